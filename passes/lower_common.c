/*
 * lower_common.c - constant-folding expression builders, sequence splicing
 * and fresh names for the lowering passes (see lower_common.h).
 *
 * Folding here is deliberately shallow (literals and unit/zero operands) so
 * that address arithmetic built by the passes reads well even with the
 * simplifier disabled; the simplifier does the rest.
 */
#include "passes/lower_common.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/fold.h"
#include "support/strbuf.h"

static const tirx_span NOSPAN = {0};

int64_t tx_lc_wrap(tx_dtype t, int64_t v) {
  return tx_fold_wrap(t, v);
}

const tx_expr *tx_lc_int(tx_ir *ir, tx_dtype t, int64_t v) {
  return tx_int(ir, t, tx_lc_wrap(t, v), NOSPAN);
}

const tx_expr *tx_lc_bin(tx_ir *ir, tx_expr_kind k, const tx_expr *a, const tx_expr *b) {
  if (!a || !b) return NULL;
  int64_t x = 0, y = 0;
  int ca = tx_expr_int_literal(a, &x), cb = tx_expr_int_literal(b, &y);
  tx_dtype t = a->dtype;
  int is_int = tx_dtype_is_int(t) && tx_dtype_is_int(b->dtype);
  int64_t folded;
  /* Only the ops the passes build; the simplifier folds the rest. A
   * division by 0 stays for the simplifier to report. */
  if (is_int && ca && cb &&
      (k == EXPR_ADD || k == EXPR_SUB || k == EXPR_MUL || k == EXPR_FLOORDIV ||
       k == EXPR_FLOORMOD) &&
      tx_fold_int(k, t, x, y, &folded))
    return tx_lc_int(ir, t, folded);
  if (is_int) {
    if (cb && !ca && (k == EXPR_ADD || k == EXPR_SUB) && y == 0) return a;
    if (ca && !cb && k == EXPR_ADD && x == 0) return b;
    if (cb && k == EXPR_MUL && y == 1) return a;
    if (ca && k == EXPR_MUL && x == 1) return b;
    if ((cb && k == EXPR_MUL && y == 0) || (ca && k == EXPR_MUL && x == 0))
      return tx_lc_int(ir, tx_binary_result_type(k, a->dtype, b->dtype), 0);
    if (cb && k == EXPR_FLOORDIV && y == 1) return a;
    if (cb && k == EXPR_FLOORMOD && y == 1) return tx_lc_int(ir, t, 0);
    /* (x + c1) + c2 -> x + (c1 + c2); (x * c1) * c2 -> x * (c1 * c2) */
    int64_t z;
    if (cb && (k == EXPR_ADD || k == EXPR_MUL) && a->kind == k &&
        tx_expr_int_literal(a->ops[1], &z))
      return tx_lc_bin(ir, k, a->ops[0], tx_lc_bin(ir, k, a->ops[1], b));
    if (ca && !cb && (k == EXPR_ADD || k == EXPR_MUL)) return tx_lc_bin(ir, k, b, a);
  }
  const tx_expr *r = tx_binary(ir, k, a, b, NOSPAN);
  return r;
}

const tx_expr *tx_lc_add(tx_ir *ir, const tx_expr *a, const tx_expr *b) {
  return tx_lc_bin(ir, EXPR_ADD, a, b);
}
const tx_expr *tx_lc_mul(tx_ir *ir, const tx_expr *a, const tx_expr *b) {
  return tx_lc_bin(ir, EXPR_MUL, a, b);
}
const tx_expr *tx_lc_addi(tx_ir *ir, const tx_expr *a, int64_t v) {
  return a ? tx_lc_bin(ir, EXPR_ADD, a, tx_lc_int(ir, tx_dtype_elem(a->dtype), v)) : NULL;
}
const tx_expr *tx_lc_muli(tx_ir *ir, const tx_expr *a, int64_t v) {
  return a ? tx_lc_bin(ir, EXPR_MUL, a, tx_lc_int(ir, tx_dtype_elem(a->dtype), v)) : NULL;
}
const tx_expr *tx_lc_divi(tx_ir *ir, const tx_expr *a, int64_t v) {
  return a ? tx_lc_bin(ir, EXPR_FLOORDIV, a, tx_lc_int(ir, tx_dtype_elem(a->dtype), v)) : NULL;
}
const tx_expr *tx_lc_modi(tx_ir *ir, const tx_expr *a, int64_t v) {
  return a ? tx_lc_bin(ir, EXPR_FLOORMOD, a, tx_lc_int(ir, tx_dtype_elem(a->dtype), v)) : NULL;
}

const tx_expr *tx_lc_cast(tx_ir *ir, tx_dtype t, const tx_expr *e) {
  if (!e || tx_dtype_eq(e->dtype, t)) return e;
  int64_t v;
  if (tx_expr_int_literal(e, &v) && tx_dtype_is_int(t)) return tx_lc_int(ir, t, v);
  return tx_expr_new(ir, EXPR_CAST, t, &e, 1, NOSPAN);
}

const tx_expr *tx_lc_call(tx_ir *ir, const char *op, tx_dtype t, const tx_expr *const *args,
                          uint32_t n) {
  return tx_call(ir, op, t, args, n, NOSPAN);
}

/* ---- sequences ---------------------------------------------------------------- */

const tx_stmt *tx_lc_empty(tx_ir *ir) {
  return tx_stmt_new(ir, STMT_SEQ, NULL, 0, NULL, 0, NOSPAN);
}

typedef struct stmt_vec {
  const tx_stmt **items;
  uint32_t len, cap;
  int failed;
  const tirx_allocator *alloc;
} stmt_vec;

static void sv_push(stmt_vec *v, const tx_stmt *s) {
  if (v->failed) return;
  if (s->kind == STMT_SEQ) { /* splice */
    for (uint32_t i = 0; i < s->nstmts; i++)
      sv_push(v, s->stmts[i]);
    return;
  }
  if (v->len == v->cap) {
    uint32_t cap = v->cap ? v->cap * 2 : 16;
    const tx_stmt **n = tx_mem_realloc(v->alloc, v->items, cap * sizeof *n);
    if (!n) {
      v->failed = 1;
      return;
    }
    v->items = n;
    v->cap = cap;
  }
  v->items[v->len++] = s;
}

static const tx_stmt *sv_finish(tx_ir *ir, stmt_vec *v, tirx_span span) {
  const tx_stmt *r = NULL;
  if (!v->failed) {
    if (v->len == 0) {
      const tx_expr *zero = tx_int(ir, TX_INT32, 0, span);
      r = zero ? tx_stmt_new(ir, STMT_EVAL, &zero, 1, NULL, 0, span) : NULL;
    } else if (v->len == 1) {
      r = v->items[0];
    } else {
      r = tx_stmt_new(ir, STMT_SEQ, NULL, 0, v->items, v->len, span);
    }
  }
  tx_mem_free(v->alloc, v->items);
  return r;
}

const tx_stmt *tx_lc_seq(tx_ir *ir, const tx_stmt *const *items, uint32_t n, tirx_span span) {
  stmt_vec v = {.alloc = tx_ir_alloc(ir)};
  for (uint32_t i = 0; i < n; i++) {
    if (!items[i]) {
      tx_mem_free(v.alloc, v.items);
      return NULL;
    }
    sv_push(&v, items[i]);
  }
  if (v.failed) {
    tx_mem_free(v.alloc, v.items);
    return NULL;
  }
  /* Keep an empty result empty so that an enclosing sequence can drop it. */
  if (v.len == 0) {
    tx_mem_free(v.alloc, v.items);
    return tx_lc_empty(ir);
  }
  return sv_finish(ir, &v, span);
}

const tx_stmt *tx_lc_mutate_seq(tx_mutator *m, const tx_stmt *s) {
  stmt_vec v = {.alloc = tx_ir_alloc(m->ir)};
  int changed = 0;
  for (uint32_t i = 0; i < s->nstmts && !m->failed; i++) {
    const tx_stmt *r = tx_mutate_stmt(m, s->stmts[i]);
    if (r != s->stmts[i]) changed = 1;
    if (r) sv_push(&v, r);
  }
  if (m->failed || v.failed) {
    m->failed = 1;
    tx_mem_free(v.alloc, v.items);
    return s;
  }
  if (!changed) {
    tx_mem_free(v.alloc, v.items);
    return s;
  }
  const tx_stmt *r = sv_finish(m->ir, &v, s->span);
  if (!r) {
    m->failed = 1;
    return s;
  }
  return r;
}

/* ---- names ------------------------------------------------------------------- */

static void names_add(tx_lc_names *n, const char *name) {
  if (name && !n->failed && !tx_ptrset_add(&n->set, name)) n->failed = 1;
}

static int collect_expr(tx_visitor *v, const tx_expr *e) {
  if (e->kind == EXPR_VAR) names_add(v->user, e->u.var.name);
  return 1;
}
static int collect_buffer(tx_visitor *v, const tx_buffer *b) {
  names_add(v->user, b->name);
  return 1;
}

/* The walk tx_lc_names_collect deferred. */
static void names_flush(tx_lc_names *n) {
  if (!n->pending) return;
  tx_visitor v = {.user = n, .pre_expr = collect_expr, .on_buffer = collect_buffer};
  const tx_func *f = n->pending;
  n->pending = NULL;
  tx_visit_func(&v, f);
}

int tx_lc_names_has(tx_lc_names *n, const char *name) {
  names_flush(n);
  return tx_ptrmap_has(&n->set, name);
}

void tx_lc_names_collect(tx_lc_names *n, tx_pass_ctx *pc, const tx_func *f) {
  tx_lc_names_free(n);
  const tirx_allocator *alloc = pc ? tx_ir_alloc(pc->ir) : NULL;
  n->set.alloc = n->next_suffix.alloc = alloc;
  if (pc && pc->memo.on && pc->memo.names_of == f) {
    n->set = pc->memo.names; /* made in this run: the same allocator */
    pc->memo.names = (tx_ptrmap){.alloc = alloc};
    pc->memo.names_of = NULL;
    return;
  }
  n->pending = f;
}

void tx_lc_names_keep(tx_lc_names *n, tx_pass_ctx *pc, const tx_func *result) {
  if (!pc || !pc->memo.on || n->pending || n->failed || !n->set.len || !result) return;
  tx_ptrmap_free(&pc->memo.names);
  pc->memo.names = n->set;
  pc->memo.names_of = result;
  n->set = (tx_ptrmap){.alloc = n->set.alloc};
}

/* The set only grows, so once base_k was found taken it stays taken: the
 * search for base resumes where the last one ended (the eighth copy of an
 * unrolled variable would otherwise try base_1 ... base_7 first). */
const char *tx_lc_fresh_name(tx_lc_names *n, tx_ir *ir, const char *base) {
  names_flush(n);
  const char *key = tx_intern(ir->strings, base);
  if (!key) return NULL;
  uintptr_t k = (uintptr_t)tx_ptrmap_get(&n->next_suffix, key); /* 0: try base itself */
  const char *cand = key;
  if (k || tx_lc_names_has(n, key)) {
    tx_strbuf sb = {.alloc = tx_ir_alloc(ir)};
    for (k = k ? k : 1; k < 100000; k++) {
      sb.len = 0;
      tx_sb_printf(&sb, "%s_%d", base, (int)k);
      cand = tx_sb_cstr(&sb) ? tx_intern(ir->strings, tx_sb_cstr(&sb)) : NULL;
      if (!cand || !tx_lc_names_has(n, cand)) break;
    }
    tx_sb_free(&sb);
    if (k >= 100000) return NULL; /* no free name: reported as out of memory */
  }
  if (!cand) return NULL;
  names_add(n, cand);
  if (!tx_ptrmap_put(&n->next_suffix, key, (void *)(k + 1))) n->failed = 1;
  return n->failed ? NULL : cand;
}

void tx_lc_names_free(tx_lc_names *n) {
  tx_ptrmap_free(&n->set);
  tx_ptrmap_free(&n->next_suffix);
  *n = (tx_lc_names){0};
}

/* ---- "does X occur" ---------------------------------------------------------------- */

typedef struct any_stmt {
  tx_visitor v;
  int (*pred)(const tx_stmt *s);
  int found;
} any_stmt;

static int any_stmt_pre(tx_visitor *v, const tx_stmt *s) {
  any_stmt *a = (any_stmt *)v;
  if (a->pred(s)) a->found = v->stop = 1;
  return 1;
}

tirx_status tx_lc_replace_funcs(tx_ir *ir, const tx_module *in, const tx_func *const *funcs,
                                const tx_module **out) {
  const tx_module *mod = tx_module_with_funcs(ir, in, funcs, in->nfuncs);
  if (!mod) return TIRX_ERR_NOMEM;
  *out = mod;
  return TIRX_OK;
}

tirx_status tx_lc_status(const tx_pass_ctx *pc, int oom, int errors) {
  if (oom) return TIRX_ERR_NOMEM;
  if (!errors) return TIRX_OK;
  return tx_diag_has_internal(pc->diags) ? TIRX_ERR_INTERNAL : TIRX_ERR_INPUT;
}

tirx_status tx_lc_each_func(tx_pass_ctx *pc, const tx_module *in, tx_lc_func_fn fn, void *state,
                            const tx_module **out) {
  *out = in;
  if (in->nfuncs == 0) return TIRX_OK;
  const tirx_allocator *a = tx_ir_alloc(pc->ir);
  const tx_func **funcs = tx_mem_calloc(a, in->nfuncs, sizeof *funcs);
  if (!funcs) return TIRX_ERR_NOMEM;
  int changed = 0, ended = 0;
  for (uint32_t i = 0; i < in->nfuncs && !ended; i++) {
    funcs[i] = fn(state, in->funcs[i]);
    ended = funcs[i] == NULL;
    changed |= funcs[i] != in->funcs[i];
  }
  tirx_status st = changed && !ended ? tx_lc_replace_funcs(pc->ir, in, funcs, out) : TIRX_OK;
  tx_mem_free(a, funcs);
  return st;
}

typedef struct census {
  tx_visitor v;
  unsigned bits;
} census;

static int census_pre(tx_visitor *v, const tx_expr *e) {
  census *c = (census *)v;
  tx_dtype t = e->dtype;
  if (t.code == DT_INT && t.bits == 64 && t.lanes == 1) c->bits |= TX_LC_HAS_I64;
  if (tx_dtype_is_narrow_float(t)) c->bits |= TX_LC_HAS_NARROW_FLOAT;
  return 1;
}

unsigned tx_lc_census(tx_pass_ctx *pc, const tx_module *m) {
  if (pc->memo.on && pc->memo.census_of == m) return pc->memo.census;
  census c = {.v = {.pre_expr = census_pre, .visit_buffer_defs = 1}};
  tx_visit_module(&c.v, m);
  if (pc->memo.on) {
    pc->memo.census_of = m;
    pc->memo.census = c.bits;
  }
  return c.bits;
}

int tx_lc_skip_expr(tx_visitor *v, const tx_expr *e) {
  return 0;
}

int tx_lc_any_stmt(const tx_module *m, int (*pred)(const tx_stmt *s)) {
  any_stmt a = {.v = {.pre_stmt = any_stmt_pre, .pre_expr = tx_lc_skip_expr}, .pred = pred};
  tx_visit_module(&a.v, m);
  return a.found;
}
