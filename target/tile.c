/*
 * tile.c - what every backend's tile-primitive variants share: the scope
 * names, and operands read as regions (a buffer, the per-dimension start
 * of the region, its constant extents) with the loops and element accesses
 * an element-wise expansion builds from them.
 *
 * Must not: know any backend's instructions (those live in target/<name>/).
 */
#include "target/tile_region.h"

#include "ir/equal.h"

#include <stdio.h>
#include <string.h>

const char *tx_tile_scope_name(tx_tile_scope s) {
  static const char *const names[] = {
#define X(id, name, prefix) name,
      TX_TILE_SCOPES(X)
#undef X
  };
  return (unsigned)s < TX_TILE_SCOPE_COUNT ? names[s] : "?";
}

/* ---- operands as regions ---------------------------------------------------------- */

static const char *slice_dim(tx_tile_region *r, uint32_t d, const tx_expr *sl, tx_ir *ir) {
  const tx_buffer *b = r->buffer;
  const tx_expr *lo = sl->ops[0], *hi = sl->nops > 1 ? sl->ops[1] : NULL;
  int64_t a = 0, e;
  if (lo && lo->kind != EXPR_NONE && !tx_expr_int_literal(lo, &a)) {
    r->start[d] = lo;
  } else {
    r->start[d] = tx_int(ir, b->shape[d]->dtype, a, sl->span);
  }
  const tx_expr *end = hi && hi->kind != EXPR_NONE ? hi : b->shape[d];
  int64_t ev;
  if (tx_expr_int_literal(end, &ev) && (lo->kind == EXPR_NONE || tx_expr_int_literal(lo, &a))) {
    e = ev - a;
  } else if (end->kind == EXPR_ADD && end->nops == 2 &&
             (end->ops[0] == lo || tx_expr_equal_with(tx_ir_alloc(ir), end->ops[0], lo)) &&
             tx_expr_int_literal(end->ops[1], &e)) {
    /* A[i:i + 16]: TVM's printed form of a region starting at an expression. */
  } else {
    return "a region extent is not a constant";
  }
  if (e <= 0) return "a region extent is not positive";
  r->extent[d] = e;
  return NULL;
}

const char *tx_tile_region_of(const tx_expr *e, tx_ir *ir, tx_tile_region *r) {
  memset(r, 0, sizeof *r);
  if (e->kind == EXPR_LOAD && e->dtype.lanes == 1) {
    /* A[i, j]: the one-element region at (i, j) */
    const tx_buffer *b = e->u.buffer;
    if (b->ndim > TX_TILE_MAX_DIMS || e->nops != b->ndim)
      return "an element operand is not A[i, ...]";
    r->buffer = b;
    r->dtype = b->dtype;
    r->ndim = b->ndim;
    for (uint32_t d = 0; d < b->ndim; d++) {
      r->start[d] = e->ops[d];
      r->extent[d] = 1;
    }
    return NULL;
  }
  if (e->kind == EXPR_BUFFER || e->kind == EXPR_REGION) {
    r->buffer = e->u.buffer;
    r->dtype = r->buffer->dtype;
  } else {
    r->scalar = e; /* a value broadcast to every element */
    r->dtype = e->dtype;
    return e->dtype.lanes == 1 ? NULL : "a vector operand is not a region";
  }
  const tx_buffer *b = r->buffer;
  if (b->ndim > TX_TILE_MAX_DIMS) return "a region has more than 8 dimensions";
  if (e->kind == EXPR_REGION && e->nops != b->ndim)
    return "a region does not index every dimension";
  r->ndim = b->ndim;
  for (uint32_t d = 0; d < b->ndim; d++) {
    const tx_expr *x = e->kind == EXPR_REGION ? e->ops[d] : NULL;
    const char *why = NULL;
    if (!x) {
      static const tx_expr none = {.kind = EXPR_NONE};
      const tx_expr *ops[] = {&none, &none};
      tx_expr whole = {.kind = EXPR_SLICE, .nops = 2, .ops = ops};
      why = slice_dim(r, d, &whole, ir);
    } else if (x->kind == EXPR_SLICE) {
      why = slice_dim(r, d, x, ir);
    } else {
      r->start[d] = x;
      r->extent[d] = 1;
    }
    if (why) return why;
    if (!r->start[d]) return "out of memory";
    if (r->extent[d] != 1) r->dims[r->nlogical++] = d;
  }
  return NULL;
}

int tx_tile_same_shape(const tx_tile_region *a, const tx_tile_region *b) {
  if (a->scalar || b->scalar || !b->nlogical) return 1;
  if (a->nlogical != b->nlogical) return 0;
  for (uint32_t k = 0; k < a->nlogical; k++)
    if (a->extent[a->dims[k]] != b->extent[b->dims[k]]) return 0;
  return 1;
}

int tx_tile_memory_layout(const tx_buffer *b) {
  const tx_layout *l = b->layout;
  if (!l || l->kind == LAYOUT_SWIZZLE) return 1;
  if (l->kind == LAYOUT_COMPOSE) l = l->tile; /* a swizzle over a tile layout */
  if (!l || l->kind != LAYOUT_TILE || l->nreplica) return 0;
  for (uint32_t i = 0; i < l->nshard; i++)
    if (l->shard[i].axis && strcmp(l->shard[i].axis, "m") != 0) return 0;
  return 1;
}

/* ---- building the expansion ------------------------------------------------------------ */

/* The buffer indices of the element at logical position lv[]. */
static int element_indices(tx_ir *ir, const tx_tile_region *r, const tx_expr *const *lv,
                           tirx_span span, const tx_expr **idx) {
  for (uint32_t d = 0, k = 0; d < r->ndim; d++) {
    idx[d] = r->start[d];
    if (r->extent[d] == 1) continue;
    const tx_expr *v = lv[k++];
    if (v->dtype.bits != idx[d]->dtype.bits || v->dtype.code != idx[d]->dtype.code)
      v = tx_expr_new(ir, EXPR_CAST, idx[d]->dtype, &v, 1, span);
    int64_t s;
    if (tx_expr_int_literal(idx[d], &s) && s == 0) {
      idx[d] = v;
    } else if (v && v->kind == EXPR_ADD && v->nops == 2) {
      /* start + (o * w + l) as (start + o * w) + l: the innermost variable
       * stays the last term, where vectorize-loop finds a contiguous index. */
      const tx_expr *in[] = {idx[d], v->ops[0]};
      const tx_expr *head = tx_expr_new(ir, EXPR_ADD, idx[d]->dtype, in, 2, span);
      const tx_expr *out[] = {head, v->ops[1]};
      idx[d] = head ? tx_expr_new(ir, EXPR_ADD, idx[d]->dtype, out, 2, span) : NULL;
    } else {
      const tx_expr *ops[] = {idx[d], v};
      idx[d] = v ? tx_expr_new(ir, EXPR_ADD, idx[d]->dtype, ops, 2, span) : NULL;
    }
    if (!idx[d]) return 0;
  }
  return 1;
}

const tx_expr *tx_tile_element(tx_ir *ir, const tx_tile_region *r, const tx_expr *const *lv,
                               tirx_span span) {
  if (r->scalar) return r->scalar;
  const tx_expr *idx[TX_TILE_MAX_DIMS];
  if (!element_indices(ir, r, lv, span, idx)) return NULL;
  return tx_load(ir, r->buffer, r->buffer->dtype, idx, r->ndim, span);
}

const tx_stmt *tx_tile_store(tx_ir *ir, const tx_tile_region *r, const tx_expr *const *lv,
                             const tx_expr *value, tirx_span span) {
  const tx_expr *ops[1 + TX_TILE_MAX_DIMS];
  if (!value || !element_indices(ir, r, lv, span, ops + 1)) return NULL;
  ops[0] = value;
  return tx_stmt_make(ir, &(tx_stmt){.kind = STMT_STORE,
                                     .buffer = r->buffer,
                                     .exprs = ops,
                                     .nexprs = 1 + r->ndim,
                                     .span = span});
}

int tx_tile_loop_vars(tx_tile_call *c, uint32_t n, const tx_expr **vars) {
  for (uint32_t k = 0; k < n; k++) {
    char base[16];
    snprintf(base, sizeof base, "i%u", k);
    tx_var_info info = {.name = c->fresh_name(c->user, base)};
    vars[k] = info.name ? tx_var_make(c->ir, TX_INT32, &info, c->stmt->span) : NULL;
    if (!vars[k]) return 0;
  }
  return 1;
}

const tx_stmt *tx_tile_loops(tx_ir *ir, const tx_expr *const *vars, const int64_t *extents,
                             uint32_t n, const tx_stmt *body, tx_for_kind innermost,
                             tirx_span span) {
  for (uint32_t k = n; k-- > 0 && body;) {
    const tx_expr *ops[] = {tx_int(ir, TX_INT32, 0, span), tx_int(ir, TX_INT32, extents[k], span)};
    const tx_stmt *stmts[] = {body};
    body = ops[0] && ops[1]
               ? tx_stmt_make(ir, &(tx_stmt){.kind = STMT_FOR,
                                             .flag = k + 1 == n ? innermost : FOR_SERIAL,
                                             .vars = &vars[k],
                                             .nvars = 1,
                                             .exprs = ops,
                                             .nexprs = 2,
                                             .stmts = stmts,
                                             .nstmts = 1,
                                             .span = span})
               : NULL;
  }
  return body;
}

const char *tx_tile_buffer_scope(const tx_tile_region *r) {
  return r->buffer && r->buffer->scope ? r->buffer->scope : "global";
}

int64_t tx_tile_elements(const tx_tile_region *r) {
  int64_t n = 1;
  for (uint32_t k = 0; k < r->nlogical; k++)
    n *= r->extent[r->dims[k]];
  return n;
}

const tx_expr *tx_tile_arith(tx_ir *ir, tx_expr_kind k, const tx_expr *a, const tx_expr *b,
                             tirx_span span) {
  if (!a || !b) return NULL;
  const tx_expr *ops[] = {a, b};
  return tx_expr_new(ir, k, TX_INT32, ops, 2, span);
}

const tx_expr *tx_tile_arith_i(tx_ir *ir, tx_expr_kind k, const tx_expr *a, int64_t v,
                               tirx_span span) {
  if (v == 0 && k == EXPR_ADD) return a;
  if (v == 1 && (k == EXPR_MUL || k == EXPR_FLOORDIV)) return a;
  return tx_tile_arith(ir, k, a, tx_int(ir, TX_INT32, v, span), span);
}

int tx_tile_unflatten(tx_ir *ir, const int64_t *ext, uint32_t n, const tx_expr *q, int64_t vec,
                      const tx_expr *lane, tirx_span span, const tx_expr **lv) {
  if (!n) return 1;
  int64_t row = ext[n - 1] / vec; /* chunks in the innermost dimension */
  /* one dimension: q is below its chunk count already */
  const tx_expr *in = n == 1    ? q
                      : row > 1 ? tx_tile_arith_i(ir, EXPR_FLOORMOD, q, row, span)
                                : tx_int(ir, TX_INT32, 0, span);
  in = tx_tile_arith_i(ir, EXPR_MUL, in, vec, span);
  lv[n - 1] = lane ? tx_tile_arith(ir, EXPR_ADD, in, lane, span) : in;
  const tx_expr *rest = tx_tile_arith_i(ir, EXPR_FLOORDIV, q, row, span);
  int64_t stride = 1;
  for (uint32_t k = n - 1; k-- > 0;) {
    /* the outermost needs no modulo: the index is below the element count */
    const tx_expr *div = tx_tile_arith_i(ir, EXPR_FLOORDIV, rest, stride, span);
    lv[k] = k ? tx_tile_arith_i(ir, EXPR_FLOORMOD, div, ext[k], span) : div;
    stride *= ext[k];
  }
  for (uint32_t k = 0; k < n; k++)
    if (!lv[k]) return 0;
  return 1;
}

uint32_t tx_tile_npos(const tx_stmt *s) {
  return s->kw.npos ? s->kw.npos : (s->kw.names ? 0 : s->nexprs);
}

const tx_expr *tx_tile_kwarg(const tx_stmt *s, const char *name) {
  uint32_t p = tx_tile_npos(s);
  for (uint32_t i = p; s->kw.names && i < s->nexprs; i++)
    if (strcmp(s->kw.names[i - p], name) == 0) return s->exprs[i];
  return NULL;
}

const char *tx_tile_group_ok(const tx_tile_call *c) {
  if (c->scope == TX_SCOPE_THREAD) return NULL;
  if (c->scope == TX_SCOPE_CLUSTER) return "cluster scope is not lowered yet";
  if (!c->nthreads) return "the scope's thread count is not known (block=(...) is not constant)";
  if (!c->thread_index) return "the calling thread's index is not known (a threadIdx is not bound)";
  return c->narrowed;
}

int tx_tile_in_shared(const tx_tile_region *r) {
  return strncmp(tx_tile_buffer_scope(r), "shared", 6) == 0;
}

int tx_tile_in_local(const tx_tile_region *r) {
  return strcmp(tx_tile_buffer_scope(r), "local") == 0;
}

const tx_stmt *tx_tile_guard(tx_ir *ir, tx_expr_kind cmp, const tx_expr *index, int64_t v,
                             const tx_stmt *body, tirx_span span) {
  const tx_expr *ops[] = {index, tx_int(ir, TX_INT32, v, span)};
  const tx_expr *cond =
      body && index && ops[1] ? tx_expr_new(ir, cmp, TX_BOOL, ops, 2, span) : NULL;
  const tx_stmt *then[] = {body};
  return cond ? tx_stmt_make(ir, &(tx_stmt){.kind = STMT_IF,
                                            .exprs = &cond,
                                            .nexprs = 1,
                                            .stmts = then,
                                            .nstmts = 1,
                                            .span = span})
              : NULL;
}
