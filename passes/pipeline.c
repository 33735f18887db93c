/*
 * pipeline.c - the pass manager: the pass table (names, docs, lookup) and
 * tx_run_pipeline, which verifies the input, runs each enabled pass in
 * TX_PASSES order, optionally verifies and prints after each one, times
 * everything, and finally rejects tile primitives that nothing lowered.
 *
 * Must not print, exit or keep state between calls: printed IR goes to the
 * caller's strbuf, problems go to the diagnostics sink.
 */
#include <string.h>

#include "support/clock.h"
#include "ir/printer.h"
#include "ir/visit.h"
#include "passes/lower_common.h"
#include "passes/pass.h"

typedef struct pass_info {
  const char *name, *doc;
  tx_pass_fn fn;
  unsigned keeps; /* TX_KEEPS_* */
} pass_info;

static const pass_info PASSES[TX_PASS_COUNT] = {
#define X(id, name, fn, keeps, doc) [id] = {name, doc, fn, keeps},
    TX_PASSES(X)
#undef X
};

const char *tx_pass_name(tx_pass_id id) {
  return (unsigned)id < TX_PASS_COUNT ? PASSES[id].name : NULL;
}

const char *tx_pass_doc(tx_pass_id id) {
  return (unsigned)id < TX_PASS_COUNT ? PASSES[id].doc : NULL;
}

int tx_pass_lookup(const char *name) {
  for (int i = 0; name && i < TX_PASS_COUNT; i++)
    if (strcmp(PASSES[i].name, name) == 0) return i;
  return -1;
}

/* ---- The pipeline ---------------------------------------------------------------- */

/* -O0 keeps the IR as the passes that must run leave it: no simplification. */
static int pass_enabled(const tx_pass_ctx *pc, const tx_pipeline_options *o, tx_pass_id id) {
  if (o->disabled[id]) return 0;
  if (id == PASS_SIMPLIFY && pc->target && pc->target->opt_level == 0) return 0;
  return 1;
}

static tirx_status timed_verify(tx_pass_ctx *pc, tx_pipeline_options *o, const tx_module *m,
                                const char *after) {
  double t0 = tx_now_ms();
  tirx_status st = tx_verify_module(pc, m, after);
  o->timings_ms[TX_PASS_COUNT] += tx_now_ms() - t0;
  return st;
}

/* After a pass that keeps names: the handed-on set follows its function. */
static void carry_names(tx_pass_ctx *pc, const tx_module *in, const tx_module *out) {
  if (!pc->memo.names_of || in->nfuncs != out->nfuncs) return;
  for (uint32_t i = 0; i < in->nfuncs; i++)
    if (in->funcs[i] == pc->memo.names_of) {
      pc->memo.names_of = out->funcs[i];
      return;
    }
}

/* The passes in order, from in to *cur (the last module made, even on
 * failure). */
static tirx_status run_passes(tx_pass_ctx *pc, tx_pipeline_options *opts, const tx_module **cur) {
  for (int i = 0; i < TX_PASS_COUNT; i++) {
    tx_pass_id id = (tx_pass_id)i;
    if (!pass_enabled(pc, opts, id)) continue;
    const char *name = PASSES[id].name;
    const tx_module *next = NULL;
    size_t errors_before = tx_diag_errors(pc->diags);
    double t0 = tx_now_ms();
    unsigned keeps = PASSES[id].keeps;
    if (keeps & TX_KEEPS_CENSUS) tx_lc_census(pc, *cur);
    tirx_status st = PASSES[id].fn(pc, *cur, &next);
    if (st == TIRX_OK && (keeps & TX_KEEPS_CENSUS) && pc->memo.census_of == *cur)
      pc->memo.census_of = next;
    if (st == TIRX_OK && next && (keeps & TX_KEEPS_NAMES)) carry_names(pc, *cur, next);
    opts->timings_ms[id] = tx_now_ms() - t0;
    if (st == TIRX_OK && !next) {
      tx_internal_error(pc->diags, name, "the pass succeeded but returned no module");
      st = TIRX_ERR_INTERNAL;
    }
    /* An input error must say what is wrong; a silent one is the pass's bug. */
    if (st == TIRX_ERR_INPUT && tx_diag_errors(pc->diags) == errors_before) {
      tx_internal_error(pc->diags, name, "the pass failed without reporting an error");
      st = TIRX_ERR_INTERNAL;
    }
    if (st != TIRX_OK) return st;
    *cur = next;
    if (opts->print_out && (opts->print_after_all || opts->print_after[id])) {
      tx_sb_printf(opts->print_out, "# after %s\n", name);
      tx_print_module(*cur, opts->print_out);
      if (opts->print_out->failed) return TIRX_ERR_NOMEM;
    }
    if (opts->verify_each && (st = timed_verify(pc, opts, *cur, name)) != TIRX_OK) return st;
  }
  return TIRX_OK;
}

tirx_status tx_run_pipeline(tx_pass_ctx *pc, tx_pipeline_options *opts, const tx_module *in,
                            const tx_module **out) {
  *out = NULL;
  for (int i = 0; i <= TX_PASS_COUNT; i++)
    opts->timings_ms[i] = 0;
  tx_diag_mark mark = tx_diag_mark_now(pc->diags);
  tirx_status st = timed_verify(pc, opts, in, NULL);

  const tx_module *cur = in;
  if (st == TIRX_OK) {
    /* Within one run modules stay alive, so a module's address names it. */
    pc->memo = (tx_pass_memo){.on = 1, .names = {.alloc = tx_ir_alloc(pc->ir)}};
    pc->dispatch_log = opts->dispatch_log;
    st = run_passes(pc, opts, &cur);
    tx_ptrmap_free(&pc->memo.names);
    pc->memo = (tx_pass_memo){0};
  }
  /* A failed allocation anywhere (a pass's status, or a diagnostic that
   * could not be recorded) makes the run an out-of-memory one, and what
   * was reported after it goes: it may be a consequence. */
  if (st == TIRX_ERR_NOMEM || (st != TIRX_OK && tx_diag_oom_since(pc->diags, mark))) {
    tx_diag_nomem_since(pc->diags, mark);
    return TIRX_ERR_NOMEM;
  }
  if (st != TIRX_OK) return st;
  *out = cur;
  return TIRX_OK;
}
