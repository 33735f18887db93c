/*
 * ptx_memory.c - CUDA C for TVM's T.ptx helpers of one family: scalar memory and arithmetic
 * helpers: ld/st with memory-order qualifiers, atom/red, and the f32/f64 arithmetic and math
 * wrappers.
 *
 * Each entry follows the operand convention of the TVM helper of the same
 * name; forms not covered are located errors, never guesses.
 */
#include "codegen/cuda_call.h"

const cuda_call_table cuda_ptx_memory_calls = {"memory", NULL, 0};
