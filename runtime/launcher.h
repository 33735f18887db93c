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
#include "tirx/tirx.h"

typedef struct tx_launcher tx_launcher;

enum { TX_LAUNCH_MAX_PARAMS = 128 };

/* What one call computed: the kernel's launch and its parameter values. */
typedef struct tx_launch_values {
  uint32_t grid[3], block[3], dyn_shared_bytes;
  uint32_t nparams;
  void *params[TX_LAUNCH_MAX_PARAMS]; /* each points into storage */
  uint64_t storage[TX_LAUNCH_MAX_PARAMS];
} tx_launch_values;

/* Compile host function `f` of `lowered`. When it cannot be run (a host-only
 * function, an unsupported statement), returns TIRX_ERR_INPUT with the
 * reason in why. */
tirx_status tx_launcher_build(const tx_module *lowered, const tx_func *f, tx_launcher **out,
                              char *why, size_t cap);
void tx_launcher_free(tx_launcher *l);

/* The kernel it launches and that kernel's cluster shape (zeros: none). */
const char *tx_launcher_kernel(const tx_launcher *l);
void tx_launcher_cluster(const tx_launcher *l, uint32_t cluster[3]);

/* Check `args` and compute the launch. TIRX_ERR_USAGE with the assert's
 * message plus ", got <value>" in msg when a check fails. */
tirx_status tx_launcher_run(const tx_launcher *l, const tirx_arg *args, size_t n,
                            tx_launch_values *out, char *msg, size_t cap);

#endif
