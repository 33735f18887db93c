/*
 * equal.c - structural equality and hashing (see equal.h for the rules).
 *
 * Equality keeps a bijection between lhs and rhs definitions (variables and
 * buffers) in two pointer maps; hashing numbers definitions in the order it
 * meets them. Both walk the tree in the same order, which is what keeps the
 * hash consistent with equality. A function's symbolic variables (free
 * variables, `n = T.int32()`) are paired and numbered where they are first
 * used, not by their place in its list: the list's order is the order of
 * declarations in the text, which says nothing about the program. Must not hash pointer values:
 * hashes are compared across runs.
 */
#include "ir/equal.h"

#include <string.h>

#include "ir/ptrmap.h"
#include "ir/visit.h"

/* ---- Shared helpers --------------------------------------------------------- */

static int str_eq(const char *a, const char *b) {
  if (a == b) return 1;
  return a && b && strcmp(a, b) == 0;
}

/* Number of keyword operands. A node built without keywords has a zeroed
 * tx_kwargs (npos 0, names NULL), which means "all positional". */
static uint32_t kw_count(const tx_kwargs *kw, uint32_t nops) {
  return kw->names && kw->npos <= nops ? nops - kw->npos : 0;
}

static const tx_buffer *param_buf(const tx_func *f, uint32_t i) {
  return f->param_bufs ? f->param_bufs[i] : NULL;
}

/* ---- Equality --------------------------------------------------------------- */

typedef struct {
  tx_ptrmap fwd, bwd; /* lhs -> rhs and rhs -> lhs, for variables and buffers */
  int oom;
  const tx_func *fa, *fb; /* the functions compared: their symbolic variables */
} eqctx;

/* Is v one of f's symbolic variables? */
static int is_symbolic_of(const tx_func *f, const void *v) {
  for (uint32_t i = 0; f && i < f->nsymbolic; i++)
    if (f->symbolic[i] == v) return 1;
  return 0;
}

static int eq_expr(eqctx *c, const tx_expr *a, const tx_expr *b);

/* Pair two definitions. A re-definition must repeat the existing pairing. */
static int eq_bind(eqctx *c, const void *a, const void *b) {
  const void *x = tx_ptrmap_get(&c->fwd, a);
  if (x) return x == b;
  if (tx_ptrmap_has(&c->bwd, b)) return 0;
  if (!tx_ptrmap_put(&c->fwd, a, (void *)b) || !tx_ptrmap_put(&c->bwd, b, (void *)a)) {
    c->oom = 1;
    return 0;
  }
  return 1;
}

/* A use: bound ones follow the pairing, free ones must be the same object. */
static int eq_use(eqctx *c, const void *a, const void *b) {
  const void *x = tx_ptrmap_get(&c->fwd, a);
  if (x) return x == b;
  if (tx_ptrmap_has(&c->bwd, b)) return 0;
  return a == b;
}

static int eq_exprs(eqctx *c, const tx_expr *const *a, const tx_expr *const *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (!eq_expr(c, a[i], b[i])) return 0;
  return 1;
}

static int eq_var_info(const tx_var_info *a, const tx_var_info *b) {
  if (a->form != b->form || a->has_pointee != b->has_pointee || a->tensormap != b->tensormap)
    return 0;
  if (a->has_pointee && !tx_dtype_eq(a->pointee, b->pointee)) return 0;
  return str_eq(a->scope, b->scope);
}

/* A variable at its binding site. */
static int eq_var_def(eqctx *c, const tx_expr *a, const tx_expr *b) {
  if (!a || !b) return a == b;
  if (a->kind != EXPR_VAR || b->kind != EXPR_VAR) return eq_expr(c, a, b); /* malformed */
  if (!tx_dtype_eq(a->dtype, b->dtype) || !eq_var_info(&a->u.var, &b->u.var)) return 0;
  return eq_bind(c, a, b);
}

static int eq_kw(const tx_kwargs *a, const tx_kwargs *b, uint32_t nops) {
  uint32_t n = kw_count(a, nops);
  if (n != kw_count(b, nops)) return 0;
  for (uint32_t i = 0; i < n; i++)
    if (!str_eq(a->names[i], b->names[i])) return 0;
  return 1;
}

static int eq_iters(eqctx *c, const tx_layout_iter *a, const tx_layout_iter *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!eq_expr(c, a[i].extent, b[i].extent) || !eq_expr(c, a[i].stride, b[i].stride)) return 0;
    if (!str_eq(a[i].axis, b[i].axis)) return 0;
  }
  return 1;
}

static int eq_layout(eqctx *c, const tx_layout *a, const tx_layout *b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind || a->nshard != b->nshard || a->nreplica != b->nreplica ||
      a->noffset != b->noffset || a->per_element != b->per_element ||
      a->swizzle_len != b->swizzle_len || a->atom_len != b->atom_len ||
      a->swizzle_outer != b->swizzle_outer)
    return 0;
  return eq_iters(c, a->shard, b->shard, a->nshard) &&
         eq_iters(c, a->replica, b->replica, a->nreplica) &&
         eq_iters(c, a->offset, b->offset, a->noffset) && eq_layout(c, a->tile, b->tile);
}

/* The three allocation constructors differ in spelling only (the scope,
 * compared on its own, says which one prints). */
static int form_class(tx_buffer_form f) {
  return f == BUF_ALLOC_SHARED || f == BUF_ALLOC_LOCAL ? BUF_ALLOC : (int)f;
}

/* Strides; the quoted ones define their variables. */
static int eq_strides(eqctx *c, const tx_buffer *a, const tx_buffer *b) {
  if (a->quoted_strides != b->quoted_strides) return 0;
  for (uint32_t i = 0; i < a->nstrides; i++) {
    int def = i < 32 && (a->quoted_strides >> i & 1u);
    if (!(def ? eq_var_def(c, a->strides[i], b->strides[i])
              : eq_expr(c, a->strides[i], b->strides[i])))
      return 0;
  }
  return 1;
}

static int eq_buffer_fields(eqctx *c, const tx_buffer *a, const tx_buffer *b) {
  if (!tx_dtype_eq(a->dtype, b->dtype) || a->ndim != b->ndim || a->nstrides != b->nstrides ||
      form_class(a->form) != form_class(b->form) || a->align != b->align ||
      a->offset_factor != b->offset_factor || a->layout_none != b->layout_none ||
      !str_eq(a->scope, b->scope))
    return 0;
  return eq_var_def(c, a->data, b->data) && eq_exprs(c, a->shape, b->shape, a->ndim) &&
         eq_strides(c, a, b) && eq_expr(c, a->elem_offset, b->elem_offset) &&
         eq_expr(c, a->allocated_addr, b->allocated_addr) &&
         eq_expr(c, a->annotations, b->annotations) && eq_layout(c, a->layout, b->layout) &&
         eq_expr(c, a->origin, b->origin);
}

/* A buffer at its definition: fields first (they may define its data var),
 * then the pairing. A re-definition only checks the pairing. */
static int eq_buffer_def(eqctx *c, const tx_buffer *a, const tx_buffer *b) {
  if (!a || !b) return a == b;
  const void *x = tx_ptrmap_get(&c->fwd, a);
  if (x) return x == b;
  if (tx_ptrmap_has(&c->bwd, b)) return 0;
  return eq_buffer_fields(c, a, b) && eq_bind(c, a, b);
}

static int eq_buffer_use(eqctx *c, const tx_buffer *a, const tx_buffer *b) {
  if (!a || !b) return a == b;
  return eq_use(c, a, b);
}

/* Kind-specific payload; operands are compared by the caller. */
static int eq_payload(eqctx *c, const tx_expr *a, const tx_expr *b) {
  switch ((tx_expr_kind)a->kind) {
  case EXPR_INT:
    return a->u.ival == b->u.ival && a->python_bool == b->python_bool;
  case EXPR_FLOAT:
    return memcmp(&a->u.fval, &b->u.fval, sizeof a->u.fval) == 0;
  case EXPR_STRING:
    return a->u.str.len == b->u.str.len &&
           (a->u.str.len == 0 || memcmp(a->u.str.data, b->u.str.data, a->u.str.len) == 0);
  case EXPR_VAR:
    /* A symbolic variable is paired at its first use. */
    if (!tx_ptrmap_has(&c->fwd, a) && !tx_ptrmap_has(&c->bwd, b) && is_symbolic_of(c->fa, a) &&
        is_symbolic_of(c->fb, b))
      return eq_var_def(c, a, b);
    return eq_use(c, a, b);
  case EXPR_LOAD:
  case EXPR_BUFFER:
  case EXPR_REGION:
    return eq_buffer_use(c, a->u.buffer, b->u.buffer);
  case EXPR_LET:
    return eq_var_def(c, a->u.binder, b->u.binder);
  case EXPR_CALL:
    return str_eq(a->u.call.op, b->u.call.op) && eq_kw(&a->u.call.kw, &b->u.call.kw, a->nops);
  case EXPR_TUPLE:
    return a->u.is_list == b->u.is_list;
  case EXPR_LAYOUT:
    return eq_layout(c, a->u.layout, b->u.layout);
  case EXPR_LAMBDA: /* the parameters are definitions */
    for (uint32_t i = 0; i + 1 < a->nops && i + 1 < b->nops; i++)
      if (!eq_var_def(c, a->ops[i], b->ops[i])) return 0;
    return 1;
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
  case EXPR_DIV:
  case EXPR_MOD:
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
  case EXPR_MIN:
  case EXPR_MAX:
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE:
  case EXPR_AND:
  case EXPR_OR:
  case EXPR_NOT:
  case EXPR_SELECT:
  case EXPR_CAST:
  case EXPR_RAMP:
  case EXPR_BROADCAST:
  case EXPR_SLICE:
  case EXPR_NONE:
  case TX_EXPR_KIND_COUNT:
    return 1; /* everything is in dtype and ops */
  }
  return 1;
}

static int eq_expr(eqctx *c, const tx_expr *a, const tx_expr *b) {
  /* No pointer shortcut: a shared subtree can still differ under the pairing. */
  if (!a || !b) return a == b;
  if (a->kind != b->kind || !tx_dtype_eq(a->dtype, b->dtype) || a->nops != b->nops) return 0;
  return eq_payload(c, a, b) && eq_exprs(c, a->ops, b->ops, a->nops);
}

static int eq_stmt(eqctx *c, const tx_stmt *a, const tx_stmt *b);

static int eq_stmt_vars(eqctx *c, const tx_stmt *a, const tx_stmt *b) {
  int binds = tx_stmt_binds_vars((tx_stmt_kind)a->kind);
  for (uint32_t i = 0; i < a->nvars; i++) {
    int ok = binds ? eq_var_def(c, a->vars[i], b->vars[i]) : eq_expr(c, a->vars[i], b->vars[i]);
    if (!ok) return 0;
  }
  return 1;
}

/* Same order as the hash and the visitor: buffer, exprs, vars, stmts. */
static int eq_stmt(eqctx *c, const tx_stmt *a, const tx_stmt *b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind || a->flag != b->flag || a->nexprs != b->nexprs ||
      a->nstmts != b->nstmts || a->nvars != b->nvars || !str_eq(a->name, b->name) ||
      !eq_kw(&a->kw, &b->kw, a->nexprs))
    return 0;
  int ok = tx_stmt_defines_buffer((tx_stmt_kind)a->kind) ? eq_buffer_def(c, a->buffer, b->buffer)
                                                         : eq_buffer_use(c, a->buffer, b->buffer);
  if (!ok || !eq_exprs(c, a->exprs, b->exprs, a->nexprs) || !eq_stmt_vars(c, a, b)) return 0;
  for (uint32_t i = 0; i < a->nstmts; i++)
    if (!eq_stmt(c, a->stmts[i], b->stmts[i])) return 0;
  return 1;
}

static int eq_attrs(eqctx *c, uint32_t n, const char *const *ka, const tx_expr *const *va,
                    const char *const *kb, const tx_expr *const *vb) {
  for (uint32_t i = 0; i < n; i++)
    if (!str_eq(ka[i], kb[i]) || !eq_expr(c, va[i], vb[i])) return 0;
  return 1;
}

static int eq_func(eqctx *c, const tx_func *a, const tx_func *b) {
  if (!a || !b) return a == b;
  if (a->nparams != b->nparams || a->nattrs != b->nattrs || a->nsymbolic != b->nsymbolic ||
      a->is_private != b->is_private || a->is_s_tir != b->is_s_tir ||
      a->is_persistent != b->is_persistent || a->has_ret != b->has_ret ||
      (a->has_ret && !tx_dtype_eq(a->ret_dtype, b->ret_dtype)))
    return 0;
  for (uint32_t i = 0; i < a->nparams; i++)
    if (!eq_var_def(c, a->params[i], b->params[i])) return 0;
  const tx_func *outer_a = c->fa, *outer_b = c->fb;
  c->fa = a, c->fb = b;
  int ok = 1;
  for (uint32_t i = 0; ok && i < a->nparams; i++)
    ok = eq_buffer_def(c, param_buf(a, i), param_buf(b, i));
  ok = ok && eq_attrs(c, a->nattrs, a->attr_keys, a->attr_values, b->attr_keys, b->attr_values) &&
       eq_stmt(c, a->body, b->body);
  c->fa = outer_a, c->fb = outer_b;
  /* Symbolic variables nothing uses: paired in list order. */
  uint32_t j = 0;
  for (uint32_t i = 0; ok && i < a->nsymbolic; i++) {
    if (tx_ptrmap_has(&c->fwd, a->symbolic[i])) continue;
    while (j < b->nsymbolic && tx_ptrmap_has(&c->bwd, b->symbolic[j]))
      j++;
    ok = j < b->nsymbolic && eq_var_def(c, a->symbolic[i], b->symbolic[j++]);
  }
  return ok;
}

static int eq_module(eqctx *c, const tx_module *a, const tx_module *b) {
  if (!a || !b) return a == b;
  if (!str_eq(a->name, b->name) || a->nfuncs != b->nfuncs || a->nattrs != b->nattrs) return 0;
  if (!eq_attrs(c, a->nattrs, a->attr_keys, a->attr_values, b->attr_keys, b->attr_values)) return 0;
  for (uint32_t i = 0; i < a->nfuncs; i++) {
    const tx_func *fa = a->funcs[i], *fb = b->funcs[i];
    if (fa && fb && !str_eq(fa->name, fb->name)) return 0;
    if (!eq_func(c, fa, fb)) return 0;
  }
  return 1;
}

typedef int (*eq_fn)(eqctx *c, const void *a, const void *b);

static int run_equal(const tirx_allocator *alloc, eq_fn fn, const void *a, const void *b) {
  eqctx c = {.fwd = {.alloc = alloc}, .bwd = {.alloc = alloc}};
  int r = fn(&c, a, b);
  tx_ptrmap_free(&c.fwd);
  tx_ptrmap_free(&c.bwd);
  return r && !c.oom;
}

/* Adapters so one runner serves every node type. */
static int eq_expr_v(eqctx *c, const void *a, const void *b) {
  return eq_expr(c, a, b);
}
static int eq_stmt_v(eqctx *c, const void *a, const void *b) {
  return eq_stmt(c, a, b);
}
static int eq_func_v(eqctx *c, const void *a, const void *b) {
  return eq_func(c, a, b);
}
static int eq_module_v(eqctx *c, const void *a, const void *b) {
  return eq_module(c, a, b);
}

int tx_expr_equal(const tx_expr *a, const tx_expr *b) {
  return run_equal(NULL, eq_expr_v, a, b);
}
int tx_expr_equal_with(const tirx_allocator *alloc, const tx_expr *a, const tx_expr *b) {
  return run_equal(alloc, eq_expr_v, a, b);
}
int tx_stmt_equal(const tx_stmt *a, const tx_stmt *b) {
  return run_equal(NULL, eq_stmt_v, a, b);
}
int tx_stmt_equal_with(const tirx_allocator *alloc, const tx_stmt *a, const tx_stmt *b) {
  return run_equal(alloc, eq_stmt_v, a, b);
}
int tx_func_equal(const tx_func *a, const tx_func *b) {
  return run_equal(NULL, eq_func_v, a, b);
}
int tx_func_equal_with(const tirx_allocator *alloc, const tx_func *a, const tx_func *b) {
  return run_equal(alloc, eq_func_v, a, b);
}
int tx_module_equal(const tx_module *a, const tx_module *b) {
  return run_equal(NULL, eq_module_v, a, b);
}
int tx_module_equal_with(const tirx_allocator *alloc, const tx_module *a, const tx_module *b) {
  return run_equal(alloc, eq_module_v, a, b);
}

/* ---- Hashing ---------------------------------------------------------------- */

/* Every hash step mirrors a comparison above, in the same order. */
typedef struct {
  tx_ptrmap index; /* definition -> 1-based definition number (never 0) */
  uintptr_t next;
  int oom;
  int coarse;        /* after out-of-memory: all vars/buffers hash by dtype only */
  const tx_func *fn; /* the function hashed: its symbolic variables */
} hctx;

enum { H_NULL = 0x6e756c6c, H_BOUND = 0x626f756e, H_FREE = 0x66726565, H_ANY = 0x616e7920 };

static uint64_t mix(uint64_t h, uint64_t v) {
  return tx_hash_mix(h, v);
}

static uint64_t mix_bytes(uint64_t h, const void *p, size_t n) {
  uint64_t f = 1469598103934665603ull; /* FNV-1a, then folded in */
  for (size_t i = 0; i < n; i++)
    f = (f ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
  return mix(mix(h, n), f);
}

static uint64_t mix_str(uint64_t h, const char *s) {
  return s ? mix_bytes(h, s, strlen(s)) : mix(h, H_NULL);
}

static uint64_t mix_dtype(uint64_t h, tx_dtype t) {
  return mix(h, (uint64_t)t.scalable << 32 | (uint64_t)t.code << 24 | (uint64_t)t.bits << 16 |
                    t.lanes);
}

/* Number a definition on first sight; a re-definition keeps its number. */
static uint64_t h_bind(hctx *c, uint64_t h, const void *p) {
  if (c->coarse) return mix(h, H_ANY);
  uintptr_t idx = (uintptr_t)tx_ptrmap_get(&c->index, p);
  if (!idx) {
    idx = ++c->next;
    if (!tx_ptrmap_put(&c->index, p, (void *)idx)) c->oom = 1;
  }
  return mix(mix(h, H_BOUND), idx);
}

/* A use: bound ones by number; free ones by what identifies them to a user. */
static uint64_t h_use(hctx *c, uint64_t h, const void *p, const char *name, tx_dtype t) {
  if (c->coarse) return mix(h, H_ANY);
  uintptr_t idx = (uintptr_t)tx_ptrmap_get(&c->index, p);
  if (idx) return mix(mix(h, H_BOUND), idx);
  return mix_dtype(mix_str(mix(h, H_FREE), name), t);
}

static uint64_t h_expr(hctx *c, uint64_t h, const tx_expr *e);

static uint64_t h_exprs(hctx *c, uint64_t h, const tx_expr *const *es, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    h = h_expr(c, h, es[i]);
  return h;
}

static uint64_t h_var_def(hctx *c, uint64_t h, const tx_expr *v) {
  if (!v) return mix(h, H_NULL);
  if (v->kind != EXPR_VAR) return h_expr(c, h, v);
  h = mix(mix_dtype(h, v->dtype), v->u.var.form);
  h = mix(h, (uint64_t)v->u.var.has_pointee + 2 * (uint64_t)v->u.var.tensormap);
  if (v->u.var.has_pointee) h = mix_dtype(h, v->u.var.pointee);
  return h_bind(c, mix_str(h, v->u.var.scope), v);
}

static uint64_t h_kw(uint64_t h, const tx_kwargs *kw, uint32_t nops) {
  uint32_t n = kw_count(kw, nops);
  h = mix(h, n);
  for (uint32_t i = 0; i < n; i++)
    h = mix_str(h, kw->names[i]);
  return h;
}

static uint64_t h_iters(hctx *c, uint64_t h, const tx_layout_iter *it, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    h = mix_str(h_expr(c, h_expr(c, h, it[i].extent), it[i].stride), it[i].axis);
  return h;
}

static uint64_t h_layout(hctx *c, uint64_t h, const tx_layout *l) {
  if (!l) return mix(h, H_NULL);
  h = mix(mix(mix(h, l->kind), l->nshard), l->nreplica);
  h = mix(h, l->noffset);
  h = mix(mix(mix(h, (uint64_t)l->per_element), (uint64_t)l->swizzle_len), (uint64_t)l->atom_len);
  h = mix(h, (uint64_t)l->swizzle_outer);
  h = h_iters(c, h_iters(c, h_iters(c, h, l->shard, l->nshard), l->replica, l->nreplica), l->offset,
              l->noffset);
  return h_layout(c, h, l->tile);
}

static uint64_t h_strides(hctx *c, uint64_t h, const tx_buffer *b) {
  h = mix(h, b->quoted_strides);
  for (uint32_t i = 0; i < b->nstrides; i++)
    h = i < 32 && (b->quoted_strides >> i & 1u) ? h_var_def(c, h, b->strides[i])
                                                : h_expr(c, h, b->strides[i]);
  return h;
}

static uint64_t h_buffer_def(hctx *c, uint64_t h, const tx_buffer *b) {
  if (!b) return mix(h, H_NULL);
  uintptr_t idx = c->coarse ? 0 : (uintptr_t)tx_ptrmap_get(&c->index, b);
  if (idx) return mix(mix(h, H_BOUND), idx);
  h = mix(mix(mix(mix_dtype(h, b->dtype), b->ndim), b->nstrides), (uint64_t)form_class(b->form));
  h = mix_str(mix(mix(h, (uint64_t)b->align), (uint64_t)b->offset_factor), b->scope);
  h = mix(h, b->layout_none);
  h = h_strides(c, h_exprs(c, h_var_def(c, h, b->data), b->shape, b->ndim), b);
  h = h_expr(c, h_expr(c, h, b->elem_offset), b->allocated_addr);
  h = h_expr(c, h, b->annotations);
  h = h_expr(c, h_layout(c, h, b->layout), b->origin);
  return h_bind(c, h, b);
}

static uint64_t h_buffer_use(hctx *c, uint64_t h, const tx_buffer *b) {
  if (!b) return mix(h, H_NULL);
  return mix(h_use(c, h, b, b->name, b->dtype), b->ndim);
}

static uint64_t h_payload(hctx *c, uint64_t h, const tx_expr *e) {
  switch ((tx_expr_kind)e->kind) {
  case EXPR_INT:
    return mix(h, (uint64_t)e->u.ival);
  case EXPR_FLOAT: {
    uint64_t bits;
    memcpy(&bits, &e->u.fval, sizeof bits);
    return mix(h, bits);
  }
  case EXPR_STRING:
    return mix_bytes(h, e->u.str.data, e->u.str.len);
  case EXPR_VAR:
    /* A symbolic variable is numbered at its first use (as equality pairs it). */
    if (!c->coarse && !tx_ptrmap_has(&c->index, e) && is_symbolic_of(c->fn, e))
      return h_var_def(c, h, e);
    return h_use(c, h, e, e->u.var.name, e->dtype);
  case EXPR_LOAD:
  case EXPR_BUFFER:
  case EXPR_REGION:
    return h_buffer_use(c, h, e->u.buffer);
  case EXPR_LET:
    return h_var_def(c, h, e->u.binder);
  case EXPR_CALL:
    return h_kw(mix_str(h, e->u.call.op), &e->u.call.kw, e->nops);
  case EXPR_TUPLE:
    return mix(h, (uint64_t)e->u.is_list);
  case EXPR_LAYOUT:
    return h_layout(c, h, e->u.layout);
  case EXPR_LAMBDA:
    for (uint32_t i = 0; i + 1 < e->nops; i++)
      h = h_var_def(c, h, e->ops[i]);
    return h;
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
  case EXPR_DIV:
  case EXPR_MOD:
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
  case EXPR_MIN:
  case EXPR_MAX:
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE:
  case EXPR_AND:
  case EXPR_OR:
  case EXPR_NOT:
  case EXPR_SELECT:
  case EXPR_CAST:
  case EXPR_RAMP:
  case EXPR_BROADCAST:
  case EXPR_SLICE:
  case EXPR_NONE:
  case TX_EXPR_KIND_COUNT:
    return h;
  }
  return h;
}

static uint64_t h_expr(hctx *c, uint64_t h, const tx_expr *e) {
  if (!e) return mix(h, H_NULL);
  h = mix(mix_dtype(mix(h, e->kind), e->dtype), e->nops);
  return h_exprs(c, h_payload(c, h, e), e->ops, e->nops);
}

static uint64_t h_stmt(hctx *c, uint64_t h, const tx_stmt *s) {
  if (!s) return mix(h, H_NULL);
  h = mix(mix(mix(mix(mix(h, 0x5374 + s->kind), s->flag), s->nexprs), s->nstmts), s->nvars);
  h = h_kw(mix_str(h, s->name), &s->kw, s->nexprs);
  h = tx_stmt_defines_buffer((tx_stmt_kind)s->kind) ? h_buffer_def(c, h, s->buffer)
                                                    : h_buffer_use(c, h, s->buffer);
  h = h_exprs(c, h, s->exprs, s->nexprs);
  int binds = tx_stmt_binds_vars((tx_stmt_kind)s->kind);
  for (uint32_t i = 0; i < s->nvars; i++)
    h = binds ? h_var_def(c, h, s->vars[i]) : h_expr(c, h, s->vars[i]);
  for (uint32_t i = 0; i < s->nstmts; i++)
    h = h_stmt(c, h, s->stmts[i]);
  return h;
}

static uint64_t h_attrs(hctx *c, uint64_t h, uint32_t n, const char *const *keys,
                        const tx_expr *const *values) {
  for (uint32_t i = 0; i < n; i++)
    h = h_expr(c, mix_str(h, keys[i]), values[i]);
  return h;
}

static uint64_t h_func(hctx *c, uint64_t h, const tx_func *f) {
  if (!f) return mix(h, H_NULL);
  h = mix(mix(mix(mix(h, f->nparams), f->nattrs), f->nsymbolic), (uint64_t)f->is_private);
  h = mix(h, (uint64_t)f->is_s_tir);
  h = mix(h, (uint64_t)f->is_persistent);
  for (uint32_t i = 0; i < f->nparams; i++)
    h = h_var_def(c, h, f->params[i]);
  const tx_func *outer = c->fn;
  c->fn = f;
  for (uint32_t i = 0; i < f->nparams; i++)
    h = h_buffer_def(c, h, param_buf(f, i));
  h = h_attrs(c, h, f->nattrs, f->attr_keys, f->attr_values);
  h = h_stmt(c, h, f->body);
  c->fn = outer;
  /* Symbolic variables nothing uses: numbered in list order. */
  for (uint32_t i = 0; i < f->nsymbolic; i++)
    if (c->coarse || !tx_ptrmap_has(&c->index, f->symbolic[i])) h = h_var_def(c, h, f->symbolic[i]);
  return h;
}

static uint64_t h_module(hctx *c, uint64_t h, const tx_module *m) {
  if (!m) return mix(h, H_NULL);
  h = mix(mix(mix_str(h, m->name), m->nfuncs), m->nattrs);
  h = h_attrs(c, h, m->nattrs, m->attr_keys, m->attr_values);
  for (uint32_t i = 0; i < m->nfuncs; i++) {
    const tx_func *f = m->funcs[i];
    h = h_func(c, mix_str(h, f ? f->name : NULL), f);
  }
  return h;
}

typedef uint64_t (*hash_fn)(hctx *c, uint64_t h, const void *node);

/* Out of memory mid-way: start again in coarse mode, which allocates nothing. */
static uint64_t run_hash(const tirx_allocator *alloc, hash_fn fn, const void *node) {
  const uint64_t seed = 0x7469727863ull; /* "tirxc" */
  hctx c = {.index = {.alloc = alloc}};
  uint64_t h = fn(&c, seed, node);
  if (c.oom) {
    tx_ptrmap_free(&c.index);
    c = (hctx){.coarse = 1};
    h = fn(&c, seed, node);
  }
  tx_ptrmap_free(&c.index);
  return mix(h, 0);
}

static uint64_t h_expr_v(hctx *c, uint64_t h, const void *n) {
  return h_expr(c, h, n);
}
static uint64_t h_stmt_v(hctx *c, uint64_t h, const void *n) {
  return h_stmt(c, h, n);
}
static uint64_t h_func_v(hctx *c, uint64_t h, const void *n) {
  return h_func(c, h, n);
}
static uint64_t h_module_v(hctx *c, uint64_t h, const void *n) {
  return h_module(c, h, n);
}

uint64_t tx_expr_hash(const tx_expr *e) {
  return run_hash(NULL, h_expr_v, e);
}
uint64_t tx_expr_hash_with(const tirx_allocator *alloc, const tx_expr *e) {
  return run_hash(alloc, h_expr_v, e);
}
uint64_t tx_stmt_hash(const tx_stmt *s) {
  return run_hash(NULL, h_stmt_v, s);
}
uint64_t tx_stmt_hash_with(const tirx_allocator *alloc, const tx_stmt *s) {
  return run_hash(alloc, h_stmt_v, s);
}
uint64_t tx_func_hash(const tx_func *f) {
  return run_hash(NULL, h_func_v, f);
}
uint64_t tx_func_hash_with(const tirx_allocator *alloc, const tx_func *f) {
  return run_hash(alloc, h_func_v, f);
}
uint64_t tx_module_hash(const tx_module *m) {
  return run_hash(NULL, h_module_v, m);
}
uint64_t tx_module_hash_with(const tirx_allocator *alloc, const tx_module *m) {
  return run_hash(alloc, h_module_v, m);
}
