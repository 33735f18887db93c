/*
 * launcher.h - the host launcher interpreter: a host function written by
 * make-packed-api (docs/lowering.md, "After make-packed-api") compiled once
 * into a flat program of checks, bindings and one launch, then run against
 * the packed arguments of every call.
 *
 * Compiling walks the IR once; running touches no IR, allocates nothing and
 * keeps no state between calls, so one launcher serves many threads.
 */
#ifndef TIRX_RUNTIME_LAUNCHER_H
#define TIRX_RUNTIME_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "ir/tensormap.h"
#include "abi/packed_api.h"
#include "tirx/tirx.h"

typedef struct tx_launcher tx_launcher;

enum {
  TX_LAUNCH_MAX_PARAMS = TX_MAX_KERNEL_PARAMS,
  TX_LAUNCH_MAX_TENSORMAPS = TX_MAX_KERNEL_TENSORMAPS
};

/* What one call computed: the kernel's launch and its parameter values. */
typedef struct tx_launch_values {
  uint32_t grid[3], block[3], dyn_shared_bytes;
  uint32_t nparams;
  void *params[TX_LAUNCH_MAX_PARAMS]; /* each points into storage, maps or the caller's map */
  uint64_t storage[TX_LAUNCH_MAX_PARAMS];
  /* The call's tensor maps (T.tvm_stack_alloca("tensormap", 1) on the host),
   * passed to the kernel by value: params[i] points at one of them. */
  _Alignas(
      TX_TENSORMAP_HOST_ALIGN) unsigned char maps[TX_LAUNCH_MAX_TENSORMAPS][TX_TENSORMAP_BYTES];
} tx_launch_values;

/* Executes one runtime.cuTensorMapEncodeTiled: encode `v` into the 128
 * bytes at `map`. On failure returns the status with the reason in msg
 * (the launcher prefixes the function and the map's name). */
typedef tirx_status (*tx_launch_encode_fn)(void *user, const tx_tensormap_values *v, void *map,
                                           char *msg, size_t cap);

/* Compile host function `f` of `lowered`. When it cannot be run (a host-only
 * function, an unsupported statement), returns TIRX_ERR_INPUT with the
 * reason in why; TIRX_ERR_NOMEM when an allocation failed. The launcher
 * allocates through `alloc` (NULL: malloc), at build time and in
 * tx_launcher_run, so the allocator must outlive it. */
tirx_status tx_launcher_build(const tirx_allocator *alloc, const tx_module *lowered,
                              const tx_func *f, tx_launcher **out, char *why, size_t cap);
void tx_launcher_free(tx_launcher *l);

/* The kernel it launches and that kernel's cluster shape (zeros: none). */
const char *tx_launcher_kernel(const tx_launcher *l);
void tx_launcher_cluster(const tx_launcher *l, uint32_t cluster[3]);

/* Check `args` and compute the launch, executing the host statements in
 * order. TIRX_ERR_USAGE with the assert's message plus ", got <value>" in
 * msg when a check fails, or with the broken rule when an encode call's
 * values fail TVM's host checks (ir/tensormap.h). Each encode call that
 * passes them goes to `encode` (NULL: checked but not encoded, for an
 * executable that cannot launch). */
tirx_status tx_launcher_run(const tx_launcher *l, const tirx_arg *args, size_t n,
                            tx_launch_values *out, tx_launch_encode_fn encode, void *encode_user,
                            char *msg, size_t cap);

#endif
