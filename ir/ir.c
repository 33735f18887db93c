/*
 * ir.c - node constructors and the small facts about kinds that every pass
 * shares (names, result types, keyword lookup).
 *
 * Must not know about text: parsing and printing live elsewhere.
 */
#include "ir/ir.h"

#include "ir/intern.h"

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

static int all_set(const tx_expr *const *ops, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (!ops[i]) return 0;
  return 1;
}

const tx_expr *tx_call_kw(tx_ir *ir, const char *op, tx_dtype dtype, const tx_expr *const *ops,
                          uint32_t nops, tx_kwargs kw, tirx_span span) {
  const char *name = all_set(ops, nops) ? tx_intern(ir->strings, op) : NULL;
  tx_expr *e = name ? tx_expr_new(ir, EXPR_CALL, dtype, ops, nops, span) : NULL;
  if (!e) return NULL;
  e->u.call.op = name;
  e->u.call.kw = kw;
  return e;
}

const tx_expr *tx_call(tx_ir *ir, const char *op, tx_dtype dtype, const tx_expr *const *args,
                       uint32_t n, tirx_span span) {
  return tx_call_kw(ir, op, dtype, args, n, (tx_kwargs){.npos = n}, span);
}

const tx_expr *tx_buffer_ref(tx_ir *ir, const tx_buffer *b, tx_dtype dtype, tirx_span span) {
  tx_expr *e = tx_expr_new(ir, EXPR_BUFFER, dtype, NULL, 0, span);
  if (e) e->u.buffer = b;
  return e;
}

const tx_expr *tx_load(tx_ir *ir, const tx_buffer *b, tx_dtype dtype, const tx_expr *const *idx,
                       uint32_t n, tirx_span span) {
  tx_expr *e = all_set(idx, n) ? tx_expr_new(ir, EXPR_LOAD, dtype, idx, n, span) : NULL;
  if (e) e->u.buffer = b;
  return e;
}

const tx_expr *tx_tuple(tx_ir *ir, tx_dtype dtype, const tx_expr *const *items, uint32_t n,
                        int is_list, tirx_span span) {
  tx_expr *e = all_set(items, n) ? tx_expr_new(ir, EXPR_TUPLE, dtype, items, n, span) : NULL;
  if (e) e->u.is_list = is_list;
  return e;
}

const tx_expr *tx_expr_with_ops(tx_ir *ir, const tx_expr *e, const tx_expr *const *ops,
                                uint32_t n) {
  tx_expr *r =
      all_set(ops, n) ? tx_expr_new(ir, (tx_expr_kind)e->kind, e->dtype, ops, n, e->span) : NULL;
  if (!r) return NULL;
  const tx_expr *const *own = r->ops;
  *r = *e; /* every field and flag, then the new operands */
  r->ops = own;
  r->nops = n;
  return r;
}

/* Replaces the array `field` of n pointers of `type` with an arena copy;
 * none (NULL) when n is 0 or field is NULL. 0 when out of memory. */
#define OWN(ir, type, field, n)                                                                    \
  ((n) && (field) ? ((field) = TX_DUP((ir), type, (field), (n))) != NULL : ((field) = NULL, 1))

const tx_expr *tx_expr_make(tx_ir *ir, const tx_expr *fields) {
  tx_expr *e = tx_arena_alloc(ir->arena, sizeof *e);
  if (!e) return NULL;
  *e = *fields;
  return OWN(ir, tx_expr, e->ops, e->nops) ? e : NULL;
}

const tx_expr *tx_expr_like(tx_ir *ir, const tx_expr *e, tx_dtype dtype, const tx_expr *const *ops,
                            uint32_t n) {
  return tx_expr_make(ir, &(tx_expr){.kind = e->kind,
                                     .python_bool = e->python_bool,
                                     .dtype = dtype,
                                     .nops = n,
                                     .ops = ops,
                                     .span = e->span,
                                     .u = e->u});
}

const tx_expr *tx_bool(tx_ir *ir, int value, tirx_span span) {
  return tx_expr_make(ir, &(tx_expr){.kind = EXPR_INT,
                                     .python_bool = 1,
                                     .dtype = TX_BOOL,
                                     .span = span,
                                     .u.ival = value ? 1 : 0});
}

const tx_expr *tx_var_make(tx_ir *ir, tx_dtype dtype, const tx_var_info *info, tirx_span span) {
  tx_expr f = {.kind = EXPR_VAR, .dtype = dtype, .span = span, .u.var = *info};
  if (info->name && !(f.u.var.name = tx_intern(ir->strings, info->name))) return NULL;
  return tx_expr_make(ir, &f);
}

const tx_buffer *tx_buffer_make(tx_ir *ir, const tx_buffer *fields) {
  tx_buffer *b = tx_arena_alloc(ir->arena, sizeof *b);
  if (!b) return NULL;
  *b = *fields;
  return OWN(ir, tx_expr, b->shape, b->ndim) && OWN(ir, tx_expr, b->strides, b->nstrides) ? b
                                                                                          : NULL;
}

const tx_stmt *tx_stmt_make(tx_ir *ir, const tx_stmt *fields) {
  tx_stmt *s = tx_arena_alloc(ir->arena, sizeof *s);
  if (!s) return NULL;
  *s = *fields;
  uint32_t nkw = s->nexprs > s->kw.npos ? s->nexprs - s->kw.npos : 0;
  if (!OWN(ir, tx_expr, s->exprs, s->nexprs) || !OWN(ir, tx_stmt, s->stmts, s->nstmts) ||
      !OWN(ir, tx_expr, s->vars, s->nvars) || !OWN(ir, char, s->kw.names, nkw))
    return NULL;
  return s;
}

const tx_stmt *tx_bind(tx_ir *ir, const tx_expr *var, const tx_expr *value, tx_bind_style style,
                       tirx_span span) {
  if (!var || !value) return NULL;
  return tx_stmt_make(ir, &(tx_stmt){.kind = STMT_BIND,
                                     .flag = (uint8_t)style,
                                     .nexprs = 1,
                                     .nvars = 1,
                                     .exprs = &value,
                                     .vars = &var,
                                     .span = span});
}

const tx_stmt *tx_stmt_region(tx_ir *ir, const tx_stmt *s, const tx_stmt *body, tirx_span span) {
  tx_stmt *r = body ? tx_arena_alloc(ir->arena, sizeof *r) : NULL;
  if (!r) return NULL;
  *r = *s; /* the operand arrays are shared: nodes are never written */
  r->flag = 1;
  r->nstmts = 1;
  r->stmts = TX_DUP(ir, tx_stmt, &body, 1);
  r->span = span;
  return r->stmts ? r : NULL;
}

const tx_func *tx_func_make(tx_ir *ir, const tx_func *fields) {
  tx_func *f = tx_arena_alloc(ir->arena, sizeof *f);
  if (!f) return NULL;
  *f = *fields;
  if (!OWN(ir, tx_expr, f->params, f->nparams) || !OWN(ir, tx_buffer, f->param_bufs, f->nparams) ||
      !OWN(ir, char, f->attr_keys, f->nattrs) || !OWN(ir, tx_expr, f->attr_values, f->nattrs) ||
      !OWN(ir, tx_expr, f->symbolic, f->nsymbolic))
    return NULL;
  return f;
}

const tx_module *tx_module_with_funcs(tx_ir *ir, const tx_module *m, const tx_func *const *funcs,
                                      uint32_t n) {
  tx_module *r = tx_arena_alloc(ir->arena, sizeof *r);
  if (!r) return NULL;
  *r = *m;
  r->nfuncs = n;
  r->funcs = funcs;
  return OWN(ir, tx_func, r->funcs, n) ? r : NULL;
}

const tx_stmt *tx_stmt_with(tx_ir *ir, const tx_stmt *s, const tx_expr *const *exprs,
                            const tx_stmt *const *stmts, const tx_expr *const *vars,
                            const tx_buffer *buffer) {
  tx_stmt *r = tx_arena_alloc(ir->arena, sizeof *r);
  if (!r) return NULL;
  *r = *s;
  if (exprs && s->nexprs && !(r->exprs = TX_DUP(ir, tx_expr, exprs, s->nexprs))) return NULL;
  if (stmts && s->nstmts && !(r->stmts = TX_DUP(ir, tx_stmt, stmts, s->nstmts))) return NULL;
  if (vars && s->nvars && !(r->vars = TX_DUP(ir, tx_expr, vars, s->nvars))) return NULL;
  if (buffer) r->buffer = buffer;
  return r;
}

const tx_expr *tx_expr_with_buffer(tx_ir *ir, const tx_expr *e, const tx_buffer *b) {
  tx_expr *r = tx_arena_alloc(ir->arena, sizeof *r);
  if (!r) return NULL;
  *r = *e; /* the operand array is shared: nodes are never written */
  r->u.buffer = b;
  return r;
}

const tx_func *tx_func_with_body(tx_ir *ir, const tx_func *f, const tx_stmt *body) {
  tx_func *r = body ? tx_arena_alloc(ir->arena, sizeof *r) : NULL;
  if (!r) return NULL;
  *r = *f;
  r->body = body;
  return r;
}

const tx_expr *tx_func_attr(const tx_func *f, const char *key) {
  for (uint32_t i = 0; i < f->nattrs; i++)
    if (f->attr_keys[i] && strcmp(f->attr_keys[i], key) == 0) return f->attr_values[i];
  return NULL;
}

int tx_func_attr_true(const tx_func *f, const char *key) {
  const tx_expr *v = tx_func_attr(f, key);
  int64_t c;
  return v && (!tx_expr_int_literal(v, &c) || c != 0);
}

const tx_stmt *const *tx_func_top_stmts(const tx_func *f, uint32_t *n) {
  if (f->body && f->body->kind == STMT_SEQ) {
    *n = f->body->nstmts;
    return f->body->stmts;
  }
  *n = f->body ? 1 : 0;
  return &f->body;
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
    return tx_dtype_lanes_of(TX_BOOL, a.lanes >= b.lanes ? a : b);
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

int tx_pointer_type_expr(const tx_expr *t, tx_dtype *pointee, int *has_pointee,
                         const char **scope) {
  *pointee = TX_VOID;
  *has_pointee = 0;
  *scope = NULL;
  if (!t) return 0;
  if (t->kind == EXPR_STRING) return t->u.str.len == 6 && memcmp(t->u.str.data, "handle", 6) == 0;
  if (t->kind != EXPR_CALL || !t->u.call.op || strcmp(t->u.call.op, "T.handle") != 0) return 0;
  uint32_t npos = t->u.call.kw.names ? t->u.call.kw.npos : t->nops;
  for (uint32_t i = 0; i < t->nops; i++) {
    const tx_expr *a = t->ops[i];
    if (a->kind != EXPR_STRING) return 0;
    const char *kw = i < npos ? NULL : t->u.call.kw.names[i - npos];
    if ((kw && strcmp(kw, "dtype") == 0) || (!kw && i == 0)) {
      if (!tx_dtype_parse(a->u.str.data, a->u.str.len, pointee)) return 0;
      *has_pointee = pointee->code != DT_VOID;
    } else if ((kw && strcmp(kw, "storage_scope") == 0) || (!kw && i == 1)) {
      *scope = a->u.str.data;
    } else {
      return 0;
    }
  }
  return 1;
}

int tx_expr_pointer_type(const tx_expr *e, tx_dtype *pointee, int *has_pointee,
                         const char **scope) {
  *pointee = TX_VOID;
  *has_pointee = 0;
  *scope = NULL;
  if (!e || e->dtype.code != DT_HANDLE) return 0;
  if (e->kind == EXPR_VAR) {
    if (e->u.var.tensormap) return 0;
    *has_pointee = e->u.var.has_pointee;
    if (*has_pointee) *pointee = e->u.var.pointee;
    *scope = e->u.var.scope;
    return 1;
  }
  if (e->kind == EXPR_CALL && e->u.call.op && strcmp(e->u.call.op, "T.reinterpret") == 0 &&
      e->nops == 2)
    return tx_pointer_type_expr(e->ops[0], pointee, has_pointee, scope);
  return 0;
}

/* Is extent x the dimension d: the same variable, or equal literals? */
static int same_dim(const tx_expr *x, const tx_expr *d) {
  if (x == d) return 1;
  if (!x || !d || x->kind != EXPR_INT || d->kind != EXPR_INT) return 0;
  return tx_dtype_eq(x->dtype, d->dtype) && x->u.ival == d->u.ival;
}

/* The row-major stride of dimension i over literal extents (0: not known). */
static int64_t row_major_stride(const tx_layout_iter *it, uint32_t n, uint32_t i) {
  uint64_t s = 1;
  for (uint32_t j = i + 1; j < n; j++) {
    if (!it[j].extent || it[j].extent->kind != EXPR_INT) return 0;
    s *= (uint64_t)it[j].extent->u.ival;
  }
  return (int64_t)s;
}

static int on_memory_axis(const char *axis) {
  return !axis || strcmp(axis, "m") == 0;
}

int tx_layout_is_default(const tx_layout *l, const tx_expr *const *shape, uint32_t ndim) {
  if (!l || l->kind != LAYOUT_TILE || l->nreplica || l->noffset || l->nshard != ndim) return 0;
  for (uint32_t i = 0; i < ndim; i++) {
    const tx_layout_iter *it = &l->shard[i];
    if (!same_dim(it->extent, shape[i]) || !on_memory_axis(it->axis)) return 0;
    if (!it->stride) continue;
    int64_t want = row_major_stride(l->shard, ndim, i);
    if (it->stride->kind != EXPR_INT || !want || it->stride->u.ival != want ||
        !tx_dtype_eq(it->stride->dtype, shape[0]->dtype))
      return 0;
  }
  return 1;
}

int tx_expr_int_literal(const tx_expr *e, int64_t *out) {
  if (!e || e->kind != EXPR_INT || e->dtype.lanes != 1) return 0;
  *out = e->u.ival;
  return 1;
}

const tx_expr *tx_call_arg(const tx_expr *e, uint32_t pos, const char *name) {
  uint32_t npos = e->u.call.kw.npos ? e->u.call.kw.npos : e->nops;
  if (pos < npos) return pos < e->nops ? e->ops[pos] : NULL;
  for (uint32_t i = npos; e->u.call.kw.names && i < e->nops; i++)
    if (strcmp(e->u.call.kw.names[i - npos], name) == 0) return e->ops[i];
  return NULL;
}
