/*
 * cse.h - the cse pass with a probe: what one run did (units of work,
 * bindings, rescans), and a way to make one of its own allocations fail;
 * and the definitions of what cse may hoist.
 * For tests and benchmarks: the pipeline calls tx_pass_cse (pass.h), which
 * is tx_cse_run without a probe. Must not grow options that change the
 * output: a probed run rewrites exactly as an unprobed one.
 */
#ifndef TIRX_PASSES_CSE_H
#define TIRX_PASSES_CSE_H

#include <stdint.h>

#include "passes/pass.h"

typedef struct tx_cse_probe {
  /* In: when nonzero, the pass's own allocation with this number (1-based,
   * counted in `allocs`) fails as if memory had run out. Allocations of the
   * arena and of shared tables are not counted. */
  uint64_t fail_alloc_at;
  /* Out, summed over the run: */
  uint64_t work;    /* expression nodes scanned, hash-table probes, order
                       comparisons and nodes visited while rewriting */
  uint64_t allocs;  /* the pass's own allocations */
  uint32_t hoisted; /* expressions bound once (a new cse_vN or a reused binding) */
  uint32_t rescans; /* blocks scanned again after a reused binding made two
                       expressions equal (cse.c, "Rescans") */
  uint32_t refused; /* rescans a block wanted past its budget */
} tx_cse_probe;

/* tx_pass_cse, filling *probe (which may be NULL). */
tirx_status tx_cse_run(tx_pass_ctx *pc, const tx_module *in, const tx_module **out,
                       tx_cse_probe *probe);

/* What cse may search, count and hoist (cse.c): the definitions the pass
 * and the test suite's reference implementation share, so the two differ
 * only in how they find repeats, never in what counts as one. */
int tx_cse_searchable_call(const tx_expr *e);      /* a call whose arguments are searched */
int tx_cse_own_expr(const tx_stmt *s, uint32_t j); /* s computes s->exprs[j] itself */
int tx_cse_impure_node(const tx_expr *e);          /* the node itself is impure */
int tx_cse_hoist_shape(const tx_expr *e);          /* may be hoisted if its operands are pure */

#endif
