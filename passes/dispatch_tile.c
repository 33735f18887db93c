/*
 * dispatch_tile.c - the dispatch-tile pass: every tile-primitive call
 * (STMT_TILE_OP: `T.tile.copy(dst, src)`, `T.cta.sum(...)`) becomes the IR
 * of the first implementation the target offers that applies, as TVM's
 * TilePrimitiveDispatcher does:
 *  - the call's scope comes from its namespace (T.tile. thread, T.warp.,
 *    T.wg., T.cta., T.cluster.), its op from the rest of the name;
 *  - the candidates are the backend's variants of that op (tx_backend's
 *    tile_variants hook, target/tile.h), by priority, then name; a
 *    forced-only variant is tried only when dispatch= names it;
 *  - `dispatch="name"` keeps only that variant (a name the op does not
 *    have is a located error listing the ones it has);
 *  - the first variant whose predicate passes expands the call; one that
 *    declines lets the search go on;
 *  - when none applies, a located error at the call shows each variant,
 *    its priority and why it did not apply.
 * With a dispatch log (tx_pass_ctx.dispatch_log, tirxc --explain-dispatch)
 * each choice is written there as `FILE:LINE:COL: OP -> VARIANT (priority
 * P)`. Must not: know any variant (they live in target/<backend>/).
 */
#include <stdlib.h>
#include <string.h>

#include "passes/lower_common.h"
#include "passes/pass.h"

static const char PASS[] = "dispatch-tile";

enum { MAX_CANDIDATES = 32 };

typedef struct dt_state {
  tx_pass_ctx *pc;
  const tx_tile_variant *all;
  uint32_t nall;
  tx_lc_names names;
  int oom, errors;
} dt_state;

/* ---- the call ------------------------------------------------------------------- */

static const struct {
  const char *prefix;
  tx_tile_scope scope;
} SCOPES[] = {{"T.tile.", TX_SCOPE_THREAD},         {"T.thread.", TX_SCOPE_THREAD},
              {"T.warp.", TX_SCOPE_WARP},           {"T.wg.", TX_SCOPE_WARPGROUP},
              {"T.warpgroup.", TX_SCOPE_WARPGROUP}, {"T.cta.", TX_SCOPE_CTA},
              {"T.cluster.", TX_SCOPE_CLUSTER}};

/* The op after the scope prefix ("copy"), *scope set; NULL for no prefix. */
static const char *split_name(const char *name, tx_tile_scope *scope) {
  for (size_t i = 0; i < sizeof SCOPES / sizeof *SCOPES; i++) {
    size_t n = strlen(SCOPES[i].prefix);
    if (strncmp(name, SCOPES[i].prefix, n) == 0) {
      *scope = SCOPES[i].scope;
      return name + n;
    }
  }
  return NULL;
}

/* The dispatch= keyword's string, or NULL (*bad when it is not a string). */
static const tx_expr *dispatch_kwarg(const tx_stmt *s) {
  uint32_t p = s->kw.npos;
  for (uint32_t i = p; s->kw.names && i < s->nexprs; i++)
    if (strcmp(s->kw.names[i - p], "dispatch") == 0) return s->exprs[i];
  return NULL;
}

static int by_priority(const void *a, const void *b) {
  const tx_tile_variant *x = *(const tx_tile_variant *const *)a;
  const tx_tile_variant *y = *(const tx_tile_variant *const *)b;
  if (x->priority != y->priority) return x->priority > y->priority ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* The variants of op, best first; their count. */
static uint32_t candidates(const dt_state *st, const char *op, const tx_tile_variant **out) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < st->nall && n < MAX_CANDIDATES; i++)
    if (strcmp(st->all[i].op, op) == 0) out[n++] = &st->all[i];
  qsort(out, n, sizeof *out, by_priority);
  return n;
}

static const char *fresh(void *user, const char *base) {
  dt_state *st = user;
  tx_ir *ir = st->pc->ir;
  const char *b = tx_intern(ir->strings, base);
  return b ? tx_lc_fresh_name(&st->names, ir, b) : NULL;
}

/* ---- reporting ------------------------------------------------------------------ */

static void unknown_variant(dt_state *st, const tx_stmt *s, const tx_expr *want,
                            const tx_tile_variant *const *cand, uint32_t n) {
  tx_strbuf known = {.alloc = tx_ir_alloc(st->pc->ir)};
  for (uint32_t i = 0; i < n; i++)
    tx_sb_printf(&known, "%s%s", i ? ", " : "", cand[i]->name);
  const char *list = n ? tx_sb_cstr(&known) : "none";
  if (!list) {
    st->oom = 1; /* the message could not be made: an out-of-memory run */
  } else {
    tx_error(st->pc->diags, want->span, "%s has no variant '%.*s' on %s (variants: %s)", s->name,
             (int)want->u.str.len, want->u.str.data, tx_target_backend(st->pc->target)->name, list);
    st->errors++;
  }
  tx_sb_free(&known);
}

/* The table of why each candidate did not apply. */
static void nothing_applies(dt_state *st, const tx_stmt *s, const tx_tile_variant *const *cand,
                            const char *const *why, uint32_t n, const tx_tile_call *c) {
  const char *backend = tx_target_backend(st->pc->target)->name;
  if (!n) {
    tx_error(st->pc->diags, s->span,
             "tile primitive %s is not lowered yet: %s has no variant of '%s' (scope %s)", s->name,
             backend, c->op, tx_tile_scope_name(c->scope));
    st->errors++;
    return;
  }
  tx_strbuf t = {.alloc = tx_ir_alloc(st->pc->ir)};
  tx_sb_printf(&t, "no %s variant of %s applies (scope %s):\n  %-12s %-8s %s", backend, s->name,
               tx_tile_scope_name(c->scope), "variant", "priority", "why not");
  for (uint32_t i = 0; i < n; i++)
    tx_sb_printf(&t, "\n  %-12s %-8d %s", cand[i]->name, cand[i]->priority, why[i]);
  const char *table = tx_sb_cstr(&t);
  if (!table) {
    st->oom = 1; /* the message could not be made: an out-of-memory run */
  } else {
    tx_error(st->pc->diags, s->span, "%s", table);
    st->errors++;
  }
  tx_sb_free(&t);
}

static void explain(dt_state *st, const tx_stmt *s, const tx_tile_variant *v) {
  tx_strbuf *log = st->pc->dispatch_log;
  if (!log) return;
  tx_sb_printf(log, "%s:%u:%u: %s -> %s (priority %d)\n", s->span.file ? s->span.file : "<input>",
               s->span.line, s->span.col, s->name, v->name, v->priority);
}

/* ---- one call ------------------------------------------------------------------- */

static int names_variant(const tx_expr *want, const tx_tile_variant *v) {
  return strlen(v->name) == want->u.str.len &&
         memcmp(v->name, want->u.str.data, want->u.str.len) == 0;
}

static const tx_stmt *dispatch_call(dt_state *st, const tx_stmt *s) {
  tx_tile_call c = {.stmt = s,
                    .target = st->pc->target,
                    .ir = st->pc->ir,
                    .diags = st->pc->diags,
                    .fresh_name = fresh,
                    .user = st};
  c.op = split_name(s->name, &c.scope);
  if (!c.op) {
    tx_internal_error(st->pc->diags, PASS, "tile primitive %s has no scope prefix", s->name);
    st->errors++;
    return s;
  }
  const tx_tile_variant *cand[MAX_CANDIDATES];
  const char *why[MAX_CANDIDATES];
  uint32_t n = candidates(st, c.op, cand);
  const tx_expr *want = dispatch_kwarg(s);
  if (want && want->kind != EXPR_STRING) {
    tx_error(st->pc->diags, want->span, "dispatch= names a variant with a string");
    st->errors++;
    return s;
  }
  uint32_t tried = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (want ? !names_variant(want, cand[i]) : cand[i]->forced_only) continue;
    cand[tried] = cand[i];
    why[tried] = cand[i]->reject(&c);
    if (!why[tried]) {
      const tx_stmt *r = cand[i]->expand(&c, &why[tried]);
      if (c.oom) {
        st->oom = 1;
        return s;
      }
      if (r) {
        explain(st, s, cand[i]);
        return r;
      }
      if (!why[tried]) why[tried] = "declined";
    }
    tried++;
  }
  if (want && !tried)
    unknown_variant(st, s, want, cand, n);
  else
    nothing_applies(st, s, cand, why, tried, &c);
  return s;
}

/* ---- the walk ------------------------------------------------------------------- */

static const tx_stmt *dt_stmt(tx_mutator *m, const tx_stmt *s) {
  dt_state *st = m->user;
  if (s->kind != STMT_TILE_OP || st->oom || tx_diag_saturated(st->pc->diags)) return NULL;
  return dispatch_call(st, s);
}

static const tx_func *dispatch_func(void *state, const tx_func *f) {
  dt_state *st = state;
  tx_lc_names_collect(&st->names, st->pc, f);
  tx_mutator m = {.ir = st->pc->ir, .user = st, .stmt = dt_stmt};
  const tx_func *r = tx_mutate_func(&m, f);
  if (m.failed || st->names.failed) st->oom = 1;
  return st->oom ? NULL : r;
}

static int is_tile_op(const tx_stmt *s) {
  return s->kind == STMT_TILE_OP;
}

tirx_status tx_pass_dispatch_tile(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  *out = in;
  if (!tx_lc_any_stmt(in, is_tile_op)) return TIRX_OK;
  dt_state st = {.pc = pc};
  const tx_backend *be = tx_target_backend(pc->target);
  if (be->tile_variants) st.all = be->tile_variants(&st.nall);
  tirx_status status = tx_lc_each_func(pc, in, dispatch_func, &st, out);
  tx_lc_names_free(&st.names);
  if (status == TIRX_OK) status = tx_lc_status(pc, st.oom, st.errors);
  if (status != TIRX_OK) *out = in;
  return status;
}
