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

/* ---- registers laid out over a thread group ------------------------------------------ */

/* The thread axis of each scope's group: the index that tx_tile_call's
 * thread_index is. */
static const char *group_axis(tx_tile_scope s) {
  switch (s) {
  case TX_SCOPE_WARP:
    return "laneid";
  case TX_SCOPE_WARPGROUP:
    return "tid_in_wg";
  case TX_SCOPE_CTA:
    return "tx";
  case TX_SCOPE_THREAD:
  case TX_SCOPE_CLUSTER:
  case TX_TILE_SCOPE_COUNT:
    break;
  }
  return NULL;
}

static const char *read_shard(const tx_layout_iter *it, const char *axis, uint32_t d,
                              tx_tile_shard *s) {
  if (!tx_expr_int_literal(it->extent, &s->extent) || !tx_expr_int_literal(it->stride, &s->stride))
    return "a register layout with a symbolic extent or stride";
  s->dim = d;
  s->on_thread = it->axis && strcmp(it->axis, "m") != 0;
  if (s->on_thread && strcmp(it->axis, axis) != 0)
    return "a register layout over a thread axis other than the scope's";
  return NULL;
}

/* The layout's shards, each on a buffer dimension (consecutive shards
 * multiplying to its extent; trailing ones of extent 1 on the last) and on
 * memory or the group's axis. */
static const char *read_shards(const tx_layout *l, const tx_buffer *b, const char *axis,
                               tx_tile_owners *o) {
  static const char split[] = "a register layout whose iterators do not split the buffer's "
                              "dimensions";
  if (l->nshard > TX_TILE_MAX_SHARDS) return "a register layout with too many iterators";
  if (!b->ndim) return split;
  uint32_t k = 0;
  const char *why;
  for (uint32_t d = 0; d < b->ndim; d++) {
    int64_t want, p = 1;
    if (!tx_expr_int_literal(b->shape[d], &want)) return "a register buffer of symbolic shape";
    for (; k < l->nshard && p < want; k++, p *= o->shard[k - 1].extent)
      if ((why = read_shard(&l->shard[k], axis, d, &o->shard[k]))) return why;
    if (p != want) return split;
  }
  for (; k < l->nshard; k++) {
    if ((why = read_shard(&l->shard[k], axis, b->ndim - 1, &o->shard[k]))) return why;
    if (o->shard[k].extent != 1) return split;
  }
  o->nshard = k;
  return NULL;
}

/* The thread shards' strides, smallest first, must be 1, e0, e0 * e1, ...:
 * each thread index names one position. */
static const char *thread_radix(tx_tile_owners *o) {
  int64_t next = 1;
  for (;;) {
    uint32_t found = o->nshard;
    for (uint32_t k = 0; k < o->nshard; k++)
      if (o->shard[k].on_thread && o->shard[k].extent > 1 && o->shard[k].stride == next) found = k;
    if (found == o->nshard) break;
    next *= o->shard[found].extent;
  }
  for (uint32_t k = 0; k < o->nshard; k++)
    if (o->shard[k].on_thread && o->shard[k].extent > 1 && o->shard[k].stride >= next)
      return "a register layout whose thread strides are not a mixed radix from 1";
  o->threads = next;
  return NULL;
}

const char *tx_tile_owners_of(const tx_tile_call *c, const tx_tile_region *r, tx_tile_owners *o) {
  memset(o, 0, sizeof *o);
  const char *axis = group_axis(c->scope);
  const tx_buffer *b = r->buffer;
  if (!axis || !b || !tx_tile_in_local(r)) return "not a register region of a thread group";
  const tx_layout *l = b->layout;
  if (!l || l->kind != LAYOUT_TILE) return "a register region without a layout over the threads";
  if (l->nreplica) return "a register layout with replicas: not lowered yet";
  for (uint32_t k = 0; k < l->noffset; k++)
    if (l->offset[k].axis && strcmp(l->offset[k].axis, "m") != 0)
      return "a register layout with a thread offset: not lowered yet";
  const char *why = read_shards(l, b, axis, o);
  if (!why) why = thread_radix(o);
  if (why) return why;
  /* TVM's rule: a register layout of a group covers the whole group */
  if (!c->thread_index || c->nthreads <= 0 || o->threads != c->nthreads)
    return "the register layout does not cover every thread of the group exactly once";
  for (uint32_t k = 0; k < o->nshard; k++) {
    const tx_tile_shard *s = &o->shard[k];
    int64_t lo;
    if (!s->on_thread || s->extent == 1) continue;
    if (!tx_expr_int_literal(r->start[s->dim], &lo) || lo != 0 ||
        !tx_expr_int_literal(b->shape[s->dim], &lo) || lo != r->extent[s->dim])
      return "the region covers part of a dimension laid out over threads";
  }
  return NULL;
}

/* Shards [*k, ...) of dimension d in o: their count. */
static uint32_t dim_shards(const tx_tile_owners *o, uint32_t d, uint32_t *first) {
  uint32_t n = 0;
  *first = o->nshard;
  for (uint32_t k = 0; k < o->nshard; k++)
    if (o->shard[k].dim == d) {
      if (!n) *first = k;
      n++;
    }
  return n;
}

int tx_tile_dim_on_threads(const tx_tile_owners *o, uint32_t d) {
  for (uint32_t k = 0; k < o->nshard; k++)
    if (o->shard[k].dim == d && o->shard[k].on_thread && o->shard[k].extent > 1) return 1;
  return 0;
}

int tx_tile_same_owners(const tx_tile_region *a, const tx_tile_owners *oa, const tx_tile_region *b,
                        const tx_tile_owners *ob) {
  if (a->nlogical != b->nlogical || oa->threads != ob->threads) return 0;
  for (uint32_t k = 0; k < a->nlogical; k++) {
    uint32_t da = a->dims[k], db = b->dims[k], fa, fb;
    int ta = tx_tile_dim_on_threads(oa, da), tb = tx_tile_dim_on_threads(ob, db);
    if (ta != tb) return 0;
    if (!ta) continue; /* memory only: the same region extent (tx_tile_same_shape) */
    uint32_t na = dim_shards(oa, da, &fa), nb = dim_shards(ob, db, &fb);
    if (na != nb) return 0;
    for (uint32_t j = 0; j < na; j++) {
      const tx_tile_shard *x = &oa->shard[fa + j], *y = &ob->shard[fb + j];
      if (x->extent != y->extent || x->on_thread != y->on_thread ||
          (x->on_thread && x->stride != y->stride))
        return 0;
    }
  }
  return 1;
}

/* A loop variable of extent e: a fresh one (the loop is recorded), or the
 * literal 0 when e is 1. */
static const tx_expr *loop_coord(tx_tile_call *c, int64_t e, const tx_expr **vars, int64_t *ext,
                                 uint32_t *nloops) {
  if (e == 1) return tx_int(c->ir, TX_INT32, 0, c->stmt->span);
  if (!tx_tile_loop_vars(c, 1, &vars[*nloops])) return NULL;
  ext[*nloops] = e;
  return vars[(*nloops)++];
}

int tx_tile_owned(tx_tile_call *c, const tx_tile_region *r, const tx_tile_owners *o,
                  const tx_expr **vars, int64_t *ext, uint32_t *nloops, const tx_expr **lv) {
  tx_ir *ir = c->ir;
  tirx_span sp = c->stmt->span;
  *nloops = 0;
  for (uint32_t k = 0; k < r->nlogical; k++) {
    uint32_t d = r->dims[k], first;
    if (!tx_tile_dim_on_threads(o, d)) {
      if (!(lv[k] = loop_coord(c, r->extent[d], vars, ext, nloops))) return 0;
      continue;
    }
    /* position = ((c0 * e1 + c1) * e2 + c2) ..., thread coordinates from
     * the index: (t // stride) % extent */
    uint32_t n = dim_shards(o, d, &first);
    const tx_expr *pos = NULL;
    for (uint32_t j = 0; j < n; j++) {
      const tx_tile_shard *s = &o->shard[first + j];
      const tx_expr *coord =
          !s->on_thread || s->extent == 1
              ? loop_coord(c, s->on_thread ? 1 : s->extent, vars, ext, nloops)
              : tx_tile_arith_i(ir, EXPR_FLOORMOD,
                                tx_tile_arith_i(ir, EXPR_FLOORDIV, c->thread_index, s->stride, sp),
                                s->extent, sp);
      if (!coord) return 0;
      pos = pos ? tx_tile_arith(ir, EXPR_ADD, tx_tile_arith_i(ir, EXPR_MUL, pos, s->extent, sp),
                                coord, sp)
                : coord;
      if (!pos) return 0;
    }
    lv[k] = pos;
  }
  return 1;
}
