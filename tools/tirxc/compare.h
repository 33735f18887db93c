/*
 * compare.h - element-wise comparison of two runs' output buffers for
 * `tirxc run --compare` (run.c). Integers, booleans and the 8-bit and
 * narrower floats compare bit for bit; float16, bfloat16, float32 and
 * float64 compare by value within an absolute tolerance (0: exact, NaN equal
 * to NaN). Prints one line per buffer; knows nothing of the GPU.
 */
#ifndef TIRXC_COMPARE_H
#define TIRXC_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "tirx/dlpack.h"

/* Compare `bytes` bytes of `ours` and `theirs` as elements of `dt` and print
 * "NAME: identical", "NAME: equal within atol X (max abs diff D)" or
 * "NAME: MISMATCH at K of N elements (first at element I: A vs B)" to out.
 * Returns 0 when they agree, 1 otherwise. */
int tirxc_compare_buffer(FILE *out, const char *name, DLDataType dt, const void *ours,
                         const void *theirs, size_t bytes, double atol);

#endif
