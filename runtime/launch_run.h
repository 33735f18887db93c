/*
 * launch_run.h - running a launch program (abi/launch_program.h) against
 * the packed arguments of one call.
 *
 * The program's statements run in order; each encode call and each launch
 * goes to the caller's hooks, which own the driver. Running touches no IR,
 * keeps no state between calls and allocates only when a function has more
 * than 256 variables, so one program serves many threads at once.
 */
#ifndef TIRX_RUNTIME_LAUNCH_RUN_H
#define TIRX_RUNTIME_LAUNCH_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "abi/launch_program.h"
#include "tirx/tirx.h"

/* What one launch computed: the kernel, its launch shape and its
 * parameter values (params[i] points at parameter i's bytes, valid during
 * the hook only; a tensor map parameter points at the call's 128 bytes). */
typedef struct tx_lp_launch_values {
  const tx_lp_launch *launch;
  uint32_t index; /* into the function's launches */
  uint32_t grid[3], block[3], cluster[3], dyn_shared_bytes;
  uint32_t nparams;
  void **params;
} tx_lp_launch_values;

typedef struct tx_lp_hooks {
  /* Encode `v` (which passed tx_tensormap_rules) into the 128 bytes at map;
   * NULL: checked, not encoded. On failure the reason goes to msg. */
  tirx_status (*encode)(void *user, const tx_tensormap_values *v, void *map, char *msg, size_t cap);
  /* Launch; on failure the reason goes to msg. NULL: every launch fails with
   * "no device code". */
  tirx_status (*launch)(void *user, const tx_lp_launch_values *v, char *msg, size_t cap);
  void *user;
} tx_lp_hooks;

/* Run f for args. TIRX_ERR_USAGE with the check's message plus ", got
 * <value>" when a check fails, or the broken rule when an encode call's
 * values fail TVM's host checks; a hook's status with its message; for a
 * function that cannot be called, TIRX_ERR_USAGE with its reason. Scratch
 * memory (many variables) comes from `alloc`. Launches made before a
 * failure stay made: make-packed-api puts every argument check first. */
tirx_status tx_lp_run(const tx_lp_func *f, const tirx_allocator *alloc, const tirx_arg *args,
                      size_t n, const tx_lp_hooks *hooks, char *msg, size_t cap);

#endif
