/*
 * api_internal.h - what the public API's files share: the runtime inside a
 * tirx_runtime handle. Not installed.
 */
#ifndef TIRX_RUNTIME_API_INTERNAL_H
#define TIRX_RUNTIME_API_INTERNAL_H

#include "runtime/runtime.h"
#include "tirx/tirx.h"

tx_runtime *tx_api_runtime(tirx_runtime *rt);

/* tirx_function_call, but the launch it computes for `args` (grid, block,
 * dynamic shared memory, cluster and the kernel's parameter values) goes to
 * `kernel` (NULL: the function's own). `kernel` must take the same
 * parameters as the function's kernel: `tirxc run --compare` runs another
 * compiler's build of the same kernel this way. */
tirx_status tx_api_function_launch(const tirx_function *fn, tx_rt_function *kernel,
                                   const tirx_arg *args, size_t n, void *stream, tirx_error *err);
/* The name of the kernel the function launches (NULL: host-only). */
const char *tx_api_function_kernel(const tirx_function *fn);

#endif
