/*
 * api_internal.h - what the public API's runtime files share (executable.c,
 * api.c, api_memory.c): the executable's and the runtime handle's insides
 * and the error helper. Not installed.
 */
#ifndef TIRX_RUNTIME_API_INTERNAL_H
#define TIRX_RUNTIME_API_INTERNAL_H

#include "abi/arch.h"
#include "abi/launch_program.h"
#include "runtime/runtime.h"
#include "tirx/tirx.h"

/* The device code for one architecture, NUL-terminated for the driver. */
typedef struct tx_api_image {
  char *arch, *ptx;
  size_t ptx_len; /* without the NUL; 0 for host-only */
} tx_api_image;

struct tirx_executable {
  tirx_allocator alloc; /* everything below and calls' scratch memory */
  char *bytes;          /* the executable file, as read or compiled */
  size_t len;
  char *name, *options;
  tx_api_image images[TX_ARCH_COUNT]; /* the file's order: the first asked for first */
  uint32_t nimages;
  tx_lp_module *prog; /* the launch programs */
  int from_cache;
};

/* Function `name`'s program, or NULL. */
const tx_lp_func *tx_api_find_func(const tirx_executable *exe, const char *name);

tx_runtime *tx_api_runtime(tirx_runtime *rt);

/* tirx_function_call, but the launch it computes for `args` (grid, block,
 * dynamic shared memory, cluster and the kernel's parameter values) goes to
 * `kernel` (NULL: the function's own). `kernel` must take the same
 * parameters as the function's kernel: `tirxc run --compare` runs another
 * compiler's build of the same kernel this way. A function that launches
 * several kernels refuses another kernel (TIRX_ERR_USAGE). */
tirx_status tx_api_function_launch(const tirx_function *fn, tx_rt_function *kernel,
                                   const tirx_arg *args, size_t n, void *stream, tirx_error *err);
/* The name of the kernel the function launches: NULL for none, or for a
 * function that launches several. */
const char *tx_api_function_kernel(const tirx_function *fn);

#endif
