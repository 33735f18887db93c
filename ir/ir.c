/*
 * ir.c - node constructors and the small facts about kinds that every pass
 * shares (names, result types, keyword lookup).
 *
 * Must not know about text: parsing and printing live elsewhere.
 */
#include "ir/ir.h"

#include <string.h>

static const char *const expr_names[] = {
#define X(kind, name, printer) [kind] = name,
#include "ir/expr_kinds.def"
#undef X
};

static const char *const stmt_names[] = {
#define X(kind, name, printer) [kind] = name,
#include "ir/stmt_kinds.def"
#undef X
};

const char *tx_expr_kind_name(tx_expr_kind kind) {
  return (unsigned)kind < TX_EXPR_KIND_COUNT ? expr_names[kind] : "?";
}

const char *tx_stmt_kind_name(tx_stmt_kind kind) {
  return (unsigned)kind < TX_STMT_KIND_COUNT ? stmt_names[kind] : "?";
}

const void *const *tx_ir_dup_ptrs(tx_ir *ir, const void *const *items, uint32_t n) {
  if (n == 0) return NULL;
  return tx_arena_dup(ir->arena, items, n, sizeof(void *));
}

tx_expr *tx_expr_new(tx_ir *ir, tx_expr_kind kind, tx_dtype dtype, const tx_expr *const *ops,
                     uint32_t nops, tirx_span span) {
  tx_expr *e = tx_arena_alloc(ir->arena, sizeof *e);
  if (!e) return NULL;
  e->kind = (uint8_t)kind;
  e->dtype = dtype;
  e->span = span;
  if (nops) {
    e->ops = TX_DUP(ir, tx_expr, ops, nops);
    if (!e->ops) return NULL;
    e->nops = nops;
  }
  return e;
}

tx_stmt *tx_stmt_new(tx_ir *ir, tx_stmt_kind kind, const tx_expr *const *exprs, uint32_t nexprs,
                     const tx_stmt *const *stmts, uint32_t nstmts, tirx_span span) {
  tx_stmt *s = tx_arena_alloc(ir->arena, sizeof *s);
  if (!s) return NULL;
  s->kind = (uint8_t)kind;
  s->span = span;
  if (nexprs) {
    s->exprs = TX_DUP(ir, tx_expr, exprs, nexprs);
    if (!s->exprs) return NULL;
    s->nexprs = nexprs;
  }
  if (nstmts) {
    s->stmts = TX_DUP(ir, tx_stmt, stmts, nstmts);
    if (!s->stmts) return NULL;
    s->nstmts = nstmts;
  }
  return s;
}

tx_expr *tx_int(tx_ir *ir, tx_dtype dtype, int64_t value, tirx_span span) {
  tx_expr *e = tx_expr_new(ir, EXPR_INT, dtype, NULL, 0, span);
  if (e) e->u.ival = value;
  return e;
}

tx_expr *tx_float(tx_ir *ir, tx_dtype dtype, double value, tirx_span span) {
  tx_expr *e = tx_expr_new(ir, EXPR_FLOAT, dtype, NULL, 0, span);
  if (e) e->u.fval = value;
  return e;
}

tx_expr *tx_string(tx_ir *ir, const char *data, size_t len, tirx_span span) {
  tx_expr *e = tx_expr_new(ir, EXPR_STRING, TX_HANDLE, NULL, 0, span);
  if (!e) return NULL;
  e->u.str.data = tx_arena_strndup(ir->arena, data, len);
  e->u.str.len = len;
  return e->u.str.data ? e : NULL;
}

tx_expr *tx_var(tx_ir *ir, const char *name, tx_dtype dtype, tx_var_form form, tirx_span span) {
  tx_expr *e = tx_expr_new(ir, EXPR_VAR, dtype, NULL, 0, span);
  if (!e) return NULL;
  e->u.var.name = tx_intern(ir->strings, name);
  e->u.var.form = form;
  return e->u.var.name ? e : NULL;
}

tx_expr *tx_none(tx_ir *ir, tirx_span span) {
  return tx_expr_new(ir, EXPR_NONE, TX_VOID, NULL, 0, span);
}

int tx_expr_is_compare(tx_expr_kind kind) {
  return kind == EXPR_EQ || kind == EXPR_NE || kind == EXPR_LT || kind == EXPR_LE ||
         kind == EXPR_GT || kind == EXPR_GE;
}

int tx_expr_is_binary(tx_expr_kind kind) {
  return (kind >= EXPR_ADD && kind <= EXPR_OR);
}

tx_dtype tx_binary_result_type(tx_expr_kind kind, tx_dtype a, tx_dtype b) {
  if (tx_expr_is_compare(kind) || kind == EXPR_AND || kind == EXPR_OR)
    return tx_dt(DT_BOOL, 1, a.lanes > b.lanes ? a.lanes : b.lanes);
  /* Operands were unified by the builder; prefer the vector side. */
  return a.lanes >= b.lanes ? a : b;
}

tx_expr *tx_binary(tx_ir *ir, tx_expr_kind kind, const tx_expr *a, const tx_expr *b,
                   tirx_span span) {
  const tx_expr *ops[2] = {a, b};
  return tx_expr_new(ir, kind, tx_binary_result_type(kind, a->dtype, b->dtype), ops, 2, span);
}

const tx_expr *tx_kwarg(const tx_kwargs *kw, const tx_expr *const *ops, uint32_t nops,
                        const char *name) {
  if (!kw->names) return NULL;
  for (uint32_t i = kw->npos; i < nops; i++)
    if (kw->names[i - kw->npos] == name) return ops[i];
  return NULL;
}
