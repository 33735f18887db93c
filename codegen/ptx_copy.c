/*
 * ptx_copy.c - CUDA C for TVM's T.ptx helpers of one family: asynchronous copies: cp.async, bulk
 * copies, TMA tensor copies (cp.async.bulk.tensor.*), tensormap prefetch, the mbarrier forms they
 * complete on, and distributed shared memory addressing (mapa).
 *
 * Each entry follows the operand convention of the TVM helper of the same
 * name; forms not covered are located errors, never guesses.
 */
#include "codegen/cuda_call.h"

const cuda_call_table cuda_ptx_copy_calls = {"copy", NULL, 0};
