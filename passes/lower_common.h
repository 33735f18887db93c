/*
 * lower_common.h - small helpers shared by the lowering passes
 * (lower-tirx, flatten-buffer, simplify): integer expression builders that
 * fold constants as they go, statement-sequence splicing for mutators, and
 * deterministic fresh names.
 *
 * Builders take and return arena nodes; a NULL operand or an allocation
 * failure gives NULL, so a chain of calls needs one NULL check at the end.
 */
#ifndef TIRX_PASSES_LOWER_COMMON_H
#define TIRX_PASSES_LOWER_COMMON_H

#include <stdint.h>

#include "ir/ir.h"
#include "ir/visit.h"
#include "passes/pass.h"

/* Wrap v to the width of integer type t (two's complement), as TIRx does. */
int64_t tx_lc_wrap(tx_dtype t, int64_t v);

const tx_expr *tx_lc_int(tx_ir *ir, tx_dtype t, int64_t v);
/* Binary integer ops folding literal operands and the identities x+0, x*1,
 * x*0, x//1, x%1; a literal moves to the right of + and *. */
const tx_expr *tx_lc_bin(tx_ir *ir, tx_expr_kind k, const tx_expr *a, const tx_expr *b);
const tx_expr *tx_lc_add(tx_ir *ir, const tx_expr *a, const tx_expr *b);
const tx_expr *tx_lc_mul(tx_ir *ir, const tx_expr *a, const tx_expr *b);
/* a + v, a * v, a // v, a % v with a literal v of a's type. */
const tx_expr *tx_lc_addi(tx_ir *ir, const tx_expr *a, int64_t v);
const tx_expr *tx_lc_muli(tx_ir *ir, const tx_expr *a, int64_t v);
const tx_expr *tx_lc_divi(tx_ir *ir, const tx_expr *a, int64_t v);
const tx_expr *tx_lc_modi(tx_ir *ir, const tx_expr *a, int64_t v);
/* e converted to type t (no node when it already has it). */
const tx_expr *tx_lc_cast(tx_ir *ir, tx_dtype t, const tx_expr *e);
/* A call `op(args...)` (op is interned here) with the given result type. */
const tx_expr *tx_lc_call(tx_ir *ir, const char *op, tx_dtype t, const tx_expr *const *args,
                          uint32_t n);

/* The statement that stands for "nothing": an empty sequence. Parent
 * sequences rebuilt with tx_lc_mutate_seq drop it. */
const tx_stmt *tx_lc_empty(tx_ir *ir);
/* A sequence of items (NULL on OOM); items that are sequences are spliced in. */
const tx_stmt *tx_lc_seq(tx_ir *ir, const tx_stmt *const *items, uint32_t n, tirx_span span);
/* Mutate each item of STMT_SEQ `s`, splicing items that come back as
 * sequences into `s` (binding statements scope over the rest of their
 * sequence, so a lowering that expands one statement into several must put
 * them at the same level). Same pointer when nothing changed. An empty result
 * is T.evaluate(0); a single item is returned alone. */
const tx_stmt *tx_lc_mutate_seq(tx_mutator *m, const tx_stmt *s);

/* Deterministic fresh names: every variable and buffer name used in `f`,
 * as a set of interned pointers (no order is ever observed). The walk over
 * `f` happens at the first query: most runs of a pass need no fresh name,
 * and the IR is immutable, so a late walk sees the same names.
 *
 * Within a pipeline run a pass hands its set on (tx_lc_names_keep) keyed by
 * the function it produced; the next pass given that same function (or the
 * function a name-keeping pass made from it, pipeline.c pass_keeps) starts
 * from it instead of walking again. The handed-on set may also hold names
 * the pass removed: a superset only makes fresh names skip a few more. A
 * pass that keeps its set must make every new variable or buffer name
 * through tx_lc_fresh_name. */
typedef struct tx_lc_names {
  tx_ptrmap set;
  tx_ptrmap next_suffix;  /* interned base -> the k its last fresh name tried */
  const tx_func *pending; /* collected at the first query */
  int failed;
} tx_lc_names;
/* Start over with the names of f (taking the run's handed-on set for f). */
void tx_lc_names_collect(tx_lc_names *n, tx_pass_ctx *pc, const tx_func *f);
/* Is the interned `name` in the set? */
int tx_lc_names_has(tx_lc_names *n, const char *name);
/* `base` if unused, else base_1, base_2, ...; the result is interned and
 * recorded as used. NULL on OOM. */
const char *tx_lc_fresh_name(tx_lc_names *n, tx_ir *ir, const char *base);
/* Hand the set on for `result`, the function this pass made from the one
 * collected (nothing happens outside a pipeline run or if it was never
 * needed). The set is empty afterwards. */
void tx_lc_names_keep(tx_lc_names *n, tx_pass_ctx *pc, const tx_func *result);
void tx_lc_names_free(tx_lc_names *n);

/* One function through a pass: the function it becomes (f itself when
 * nothing changed), or NULL to end the walk (out of memory, or an error the
 * pass stops at; its state says which). */
typedef const tx_func *(*tx_lc_func_fn)(void *state, const tx_func *f);

/* The per-function driver of a pass: fn on each function of in, in order,
 * until it returns NULL. *out is in when no function changed or the walk
 * ended early, else a module of the new functions. TIRX_ERR_NOMEM when that
 * module cannot be made, else TIRX_OK: the pass turns its state into its
 * status (and keeps in as its result after an error). */
tirx_status tx_lc_each_func(tx_pass_ctx *pc, const tx_module *in, tx_lc_func_fn fn, void *state,
                            const tx_module **out);

/* A pass's status from its state: out of memory, else after errors
 * TIRX_ERR_INTERNAL when one was an internal error and TIRX_ERR_INPUT
 * otherwise, else TIRX_OK. */
tirx_status tx_lc_status(const tx_pass_ctx *pc, int oom, int errors);

/* A pass's result when some of in's functions were rewritten: a copy of in
 * whose functions are funcs[0..in->nfuncs), stored in *out. TIRX_OK, or
 * TIRX_ERR_NOMEM (then *out is untouched). */
tirx_status tx_lc_replace_funcs(tx_ir *ir, const tx_module *in, const tx_func *const *funcs,
                                const tx_module **out);

/* What kinds of values a module's expressions (buffer definitions' fields
 * included) hold, for passes that return their input untouched when what
 * they rewrite does not occur. One walk answers every question; within a
 * pipeline run the answer is remembered for the module, so consecutive
 * passes that leave the module unchanged do not walk it again. */
enum {
  TX_LC_HAS_I64 = 1u << 0,          /* a scalar int64 value */
  TX_LC_HAS_NARROW_FLOAT = 1u << 1, /* bfloat16, fp8, fp6 or fp4 (any lanes) */
};
unsigned tx_lc_census(tx_pass_ctx *pc, const tx_module *m);

/* Does some statement of module m satisfy pred? Expressions (which hold no
 * statements) are not entered, so the walk is cheap. */
int tx_lc_any_stmt(const tx_module *m, int (*pred)(const tx_stmt *s));
/* A pre_expr callback that skips every expression: for visitors that only
 * look at statements. */
int tx_lc_skip_expr(tx_visitor *v, const tx_expr *e);

#endif
