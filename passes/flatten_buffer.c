/*
 * flatten_buffer.c - the flatten-buffer pass: every buffer access becomes a
 * one-dimensional access at its physical element offset.
 *
 * Requires: lower-tirx has run (no scalar sugar; tile primitives were
 * rejected there, so EXPR_REGION only survives in calls this pass does not
 * interpret).
 * Guarantees (docs/lowering.md, "After flatten-buffer"):
 *  - A.vload becomes a load (a predicated one T.if_then_else(mask, load,
 *    0)), an unpredicated A.vstore a store, with TVM's index list (a scalar
 *    last index becomes a Ramp of the value's lanes);
 *  - every EXPR_LOAD / STMT_STORE (and the index list of a predicated
 *    A.vstore and of A.ptr_to) has exactly one index, into a buffer with ndim 1, no
 *    strides, no elem_offset and no layout; the index is the physical
 *    element offset: row-major order, explicit strides, elem_offset,
 *    TileLayout iterators on the memory axis m (other axes are per-thread
 *    and do not address memory) and ComposeLayout / SwizzleLayout swizzles
 *    (as T.bitwise_xor of index arithmetic);
 *  - each STMT_ALLOC/STMT_DECL defines the flat buffer (same name, data
 *    variable, dtype, scope and align; shape = physical extent). Permute and
 *    reshape views (A.permute, A.view) read through their source, so their
 *    declarations are dropped;
 *  - parameter buffers keep their logical shape in param_bufs (the host
 *    needs it); when one needs flattening the body declares
 *    `A_flat = T.decl_buffer((extent,), data=A.data)` right after the device
 *    entry (at the top of the body when the host part uses A) and accesses
 *    go through it;
 *  - a vector index (a Ramp in the last dimension) stays a Ramp on the flat
 *    index; EXPR_REGION and EXPR_BUFFER operands are left as they are;
 *    buffers in "tmem" are left as they are (their axes are not memory).
 */
#include <stdlib.h>
#include <string.h>

#include "ir/equal.h"
#include "passes/lower_common.h"
#include "passes/pass.h"

static const char PASS[] = "flatten-buffer";
static const tirx_span NOSPAN = {0};

typedef struct fb_state {
  tx_pass_ctx *pc;
  tx_ir *ir;
  const tx_buffer **orig, **flat;
  uint32_t nmap, capmap;
  tx_lc_names names;
  int error, oom;
} fb_state;

static int is_tmem(const tx_buffer *b) {
  return b->scope && strcmp(b->scope, "tmem") == 0;
}

static int needs_flatten(const tx_buffer *b) {
  if (is_tmem(b)) return 0;
  return b->ndim != 1 || b->nstrides || b->elem_offset || b->layout || b->form == BUF_VIEW ||
         b->form == BUF_DECL_SCALAR;
}

/* A view whose accesses are rewritten onto its source (and is then dead). */
static const tx_buffer *view_source(const tx_buffer *b, const char **method) {
  if (b->form != BUF_VIEW || !b->origin || b->origin->kind != EXPR_CALL || !b->origin->nops ||
      b->origin->ops[0]->kind != EXPR_BUFFER)
    return NULL;
  const tx_buffer *src = b->origin->ops[0]->u.buffer;
  const char *op = b->origin->u.call.op;
  if (strcmp(op, ".permute") == 0) {
    *method = op;
    return src;
  }
  if (strcmp(op, ".view") == 0 && !b->layout && tx_dtype_eq(b->dtype, src->dtype)) {
    *method = op;
    return src;
  }
  return NULL;
}

static const tx_expr *shape_product(fb_state *st, const tx_buffer *b, uint32_t from) {
  const tx_expr *p = tx_lc_int(st->ir, TX_INT32, 1);
  for (uint32_t i = from; i < b->ndim; i++)
    p = tx_lc_mul(st->ir, p, b->shape[i]);
  return p;
}

/* Row-major linear index of idx over shape dims [0, n). */
static const tx_expr *row_major(fb_state *st, const tx_expr *const *shape,
                                const tx_expr *const *idx, uint32_t n) {
  if (n == 0) return tx_lc_int(st->ir, TX_INT32, 0);
  const tx_expr *l = idx[0];
  for (uint32_t i = 1; i < n; i++)
    l = tx_lc_add(st->ir, tx_lc_mul(st->ir, l, shape[i]), idx[i]);
  return l;
}

static int same_extent(const fb_state *st, const tx_expr *a, const tx_expr *b) {
  int64_t x, y;
  if (tx_expr_int_literal(a, &x) && tx_expr_int_literal(b, &y)) return x == y;
  return tx_expr_equal_with(tx_ir_alloc(st->ir), a, b);
}

/* Coordinates of the logical index along the shard iterators of a tile
 * layout. Matches dimensions to iterators where the extents line up (equal,
 * one dimension split over several iterators, several dimensions merged into
 * one), which keeps the arithmetic direct; otherwise splits the row-major
 * linear index. */
static int shard_coords(fb_state *st, const tx_layout *l, const tx_expr *const *shape,
                        const tx_expr *const *idx, uint32_t ndim, const tx_expr **coord) {
  int64_t ie = (int64_t)ndim - 1, ke = (int64_t)l->nshard - 1;
  int ok = 1;
  while (ok && (ie >= 0 || ke >= 0)) {
    int64_t se, ee;
    if (ke >= 0 && tx_expr_int_literal(l->shard[ke].extent, &ee) && ee == 1) {
      coord[ke--] = tx_lc_int(st->ir, TX_INT32, 0);
      continue;
    }
    if (ie >= 0 && tx_expr_int_literal(shape[ie], &se) && se == 1) {
      ie--;
      continue;
    }
    if (ie < 0 || ke < 0) {
      ok = 0;
      break;
    }
    if (same_extent(st, shape[ie], l->shard[ke].extent)) {
      coord[ke--] = idx[ie--];
      continue;
    }
    /* Only positive extents split or merge (a 0 or negative one, an input
     * error reported elsewhere, would divide by zero here). */
    if (!tx_expr_int_literal(shape[ie], &se) || !tx_expr_int_literal(l->shard[ke].extent, &ee) ||
        se <= 0 || ee <= 0) {
      ok = 0;
      break;
    }
    int64_t next;
    if (se > ee) { /* split dimension ie over iterators ke, ke-1, ... */
      int64_t prod = 1, k = ke;
      while (k >= 0 && prod < se && tx_expr_int_literal(l->shard[k].extent, &ee) && ee > 0 &&
             !__builtin_mul_overflow(prod, ee, &next) && se % next == 0)
        prod = next, k--;
      if (prod != se) {
        ok = 0;
        break;
      }
      int64_t inner = 1;
      for (int64_t j = ke; j > k; j--) {
        tx_expr_int_literal(l->shard[j].extent, &ee);
        const tx_expr *c = tx_lc_divi(st->ir, idx[ie], inner);
        coord[j] = j == k + 1 ? c : tx_lc_modi(st->ir, c, ee);
        inner *= ee;
      }
      ke = k;
      ie--;
    } else { /* merge dimensions ie, ie-1, ... into iterator ke */
      int64_t prod = 1, i = ie;
      while (i >= 0 && prod < ee && tx_expr_int_literal(shape[i], &se) && se > 0 &&
             !__builtin_mul_overflow(prod, se, &next) && ee % next == 0)
        prod = next, i--;
      if (prod != ee) {
        ok = 0;
        break;
      }
      coord[ke--] = row_major(st, shape + i + 1, idx + i + 1, (uint32_t)(ie - i));
      ie = i;
    }
  }
  if (ok) return 1;
  /* General case: split the row-major linear index, innermost last. */
  const tx_expr *lin = row_major(st, shape, idx, ndim);
  const tx_expr *inner = tx_lc_int(st->ir, TX_INT32, 1);
  for (int64_t k = (int64_t)l->nshard - 1; k >= 0; k--) {
    const tx_expr *c = tx_lc_bin(st->ir, EXPR_FLOORDIV, lin, inner);
    coord[k] = k == 0 ? c : tx_lc_bin(st->ir, EXPR_FLOORMOD, c, l->shard[k].extent);
    inner = tx_lc_mul(st->ir, inner, l->shard[k].extent);
  }
  return 1;
}

static const tx_expr *tile_address(fb_state *st, const tx_layout *l, const tx_expr *const *shape,
                                   const tx_expr *const *idx, uint32_t ndim) {
  const tx_expr **coord =
      tx_mem_calloc(tx_ir_alloc(st->ir), l->nshard ? l->nshard : 1, sizeof *coord);
  if (!coord) return NULL;
  const tx_expr *a = tx_lc_int(st->ir, TX_INT32, 0);
  if (shard_coords(st, l, shape, idx, ndim, coord)) {
    /* Terms in decreasing constant stride (then source order), so that a
     * column-major layout reads j * 4 + i like the row-major i * 8 + j. */
    for (uint32_t k = 0; k < l->nshard; k++) {
      uint32_t best = l->nshard;
      int64_t bs = 0, s;
      for (uint32_t j = 0; j < l->nshard; j++) {
        if (l->shard[j].axis || !coord[j]) continue;
        int64_t sj = tx_expr_int_literal(l->shard[j].stride, &s) ? s : INT64_MAX;
        if (best == l->nshard || sj > bs) best = j, bs = sj;
      }
      if (best == l->nshard) break;
      a = tx_lc_add(st->ir, a, tx_lc_mul(st->ir, coord[best], l->shard[best].stride));
      coord[best] = NULL;
    }
  } else {
    a = NULL;
  }
  for (uint32_t k = 0; a && k < l->noffset; k++)
    if (!l->offset[k].axis) a = tx_lc_add(st->ir, a, l->offset[k].stride);
  tx_mem_free(tx_ir_alloc(st->ir), coord);
  return a;
}

/* addr ^ ((addr >> (M + S)) & (2^B - 1)) << M, written with floordiv,
 * floormod and a multiply so that the simplifier can reason about it. */
static const tx_expr *swizzle(fb_state *st, const tx_layout *l, const tx_expr *a) {
  if (!a || l->swizzle_len == 0) return a;
  const tx_expr *bits = tx_lc_muli(
      st->ir,
      tx_lc_modi(st->ir, tx_lc_divi(st->ir, a, INT64_C(1) << (l->per_element + l->atom_len)),
                 INT64_C(1) << l->swizzle_len),
      INT64_C(1) << l->per_element);
  const tx_expr *args[2] = {a, bits};
  return tx_lc_call(st->ir, "T.bitwise_xor", a->dtype, args, 2);
}

/* Physical offset of idx in b's own storage (b is not a redirected view). */
static const tx_expr *physical(fb_state *st, const tx_buffer *b, const tx_expr *const *idx) {
  const tx_expr *a;
  if (b->layout && b->layout->swizzle_outer) {
    tx_error(st->pc->diags, b->span,
             "buffer '%s': T.ComposeLayout(..., swizzle_inner=False) is parsed and printed but "
             "not lowered",
             b->name ? b->name : "?");
    st->error = 1;
    return NULL;
  }
  if (b->nstrides) {
    a = tx_lc_int(st->ir, TX_INT32, 0);
    for (uint32_t i = 0; i < b->ndim; i++)
      a = tx_lc_add(st->ir, a, tx_lc_mul(st->ir, idx[i], b->strides[i]));
  } else if (b->layout && b->layout->kind == LAYOUT_TILE) {
    a = tile_address(st, b->layout, b->shape, idx, b->ndim);
  } else if (b->layout && b->layout->kind == LAYOUT_COMPOSE && b->layout->tile) {
    a = swizzle(st, b->layout, tile_address(st, b->layout->tile, b->shape, idx, b->ndim));
  } else if (b->layout) { /* LAYOUT_SWIZZLE over row-major */
    a = swizzle(st, b->layout, row_major(st, b->shape, idx, b->ndim));
  } else {
    a = row_major(st, b->shape, idx, b->ndim);
  }
  if (a && b->elem_offset) a = tx_lc_add(st->ir, a, tx_lc_cast(st->ir, a->dtype, b->elem_offset));
  return a;
}

static const tx_expr *layout_extent(fb_state *st, const tx_layout *l) {
  const tx_expr *e = tx_lc_int(st->ir, TX_INT32, 1);
  for (uint32_t k = 0; k < l->nshard; k++)
    if (!l->shard[k].axis)
      e = tx_lc_add(
          st->ir, e,
          tx_lc_mul(st->ir, tx_lc_addi(st->ir, l->shard[k].extent, -1), l->shard[k].stride));
  for (uint32_t k = 0; k < l->nreplica; k++)
    if (!l->replica[k].axis)
      e = tx_lc_add(
          st->ir, e,
          tx_lc_mul(st->ir, tx_lc_addi(st->ir, l->replica[k].extent, -1), l->replica[k].stride));
  for (uint32_t k = 0; k < l->noffset; k++)
    if (!l->offset[k].axis) e = tx_lc_add(st->ir, e, l->offset[k].stride);
  return e;
}

/* ---- constant extents in 64 bits ------------------------------------------------ */

/* Sum += (extent - 1) * stride over the memory-axis iterators of `it`;
 * 0 when a field is not a literal, -1 on int64 overflow. */
static int iter_span(const tx_layout_iter *it, uint32_t n, int offsets, int64_t *sum) {
  for (uint32_t k = 0; k < n; k++) {
    if (it[k].axis) continue;
    int64_t e = 1, s, term;
    if ((!offsets && !tx_expr_int_literal(it[k].extent, &e)) ||
        !tx_expr_int_literal(it[k].stride, &s))
      return 0;
    if (offsets) { /* an offset iterator's stride is the offset itself */
      term = s;
    } else if (__builtin_mul_overflow(e - 1, s, &term)) {
      return -1;
    }
    if (__builtin_add_overflow(*sum, term, sum)) return -1;
  }
  return 1;
}

static int const_layout_extent(const tx_layout *l, int64_t *n) {
  int64_t e = 1;
  int r = iter_span(l->shard, l->nshard, 0, &e);
  if (r > 0) r = iter_span(l->replica, l->nreplica, 0, &e);
  if (r > 0) r = iter_span(l->offset, l->noffset, 1, &e);
  if (r > 0) *n = e;
  return r;
}

/* physical_extent's value computed exactly in int64 when every field is a
 * literal: 1 with *n set, 0 when something is symbolic, -1 on overflow. The
 * expression builders would fold it in the shapes' type (int32) and wrap. */
static int const_physical_extent(const tx_buffer *b, int64_t *n) {
  int64_t e = 1, x, s, term;
  if (b->nstrides) {
    for (uint32_t i = 0; i < b->ndim; i++) {
      if (!tx_expr_int_literal(b->shape[i], &x) || !tx_expr_int_literal(b->strides[i], &s))
        return 0;
      if (__builtin_mul_overflow(x - 1, s, &term) || __builtin_add_overflow(e, term, &e)) return -1;
    }
    *n = e;
    return 1;
  }
  if (b->layout && b->layout->kind == LAYOUT_TILE) return const_layout_extent(b->layout, n);
  if (b->layout && b->layout->kind == LAYOUT_COMPOSE && b->layout->tile)
    return const_layout_extent(b->layout->tile, n);
  for (uint32_t i = 0; i < b->ndim; i++) {
    if (!tx_expr_int_literal(b->shape[i], &x)) return 0;
    if (__builtin_mul_overflow(e, x, &e)) return -1;
  }
  *n = e;
  return 1;
}

static const tx_expr *physical_extent(fb_state *st, const tx_buffer *b, tirx_span span) {
  /* A literal extent is exact: int32 when it fits (as index arithmetic is),
   * else int64, so that `(65536, 65536)` is 4294967296 elements, not 0. */
  int64_t n;
  int known = const_physical_extent(b, &n);
  if (known > 0) return tx_lc_int(st->ir, n == (int32_t)n ? TX_INT32 : TX_INT64, n);
  if (known < 0) {
    tx_error(st->pc->diags, span, "the element count of buffer '%s' does not fit in 64 bits",
             b->name ? b->name : "?");
    st->error = 1;
    return NULL;
  }
  if (b->nstrides) {
    const tx_expr *e = tx_lc_int(st->ir, TX_INT32, 1);
    for (uint32_t i = 0; i < b->ndim; i++)
      e = tx_lc_add(st->ir, e,
                    tx_lc_mul(st->ir, tx_lc_addi(st->ir, b->shape[i], -1), b->strides[i]));
    return e;
  }
  if (b->layout && b->layout->kind == LAYOUT_TILE) return layout_extent(st, b->layout);
  if (b->layout && b->layout->kind == LAYOUT_COMPOSE && b->layout->tile)
    return layout_extent(st, b->layout->tile);
  return shape_product(st, b, 0);
}

/* ---- the buffer map ------------------------------------------------------------ */

static const tx_buffer *lookup(fb_state *st, const tx_buffer *b) {
  for (uint32_t i = 0; i < st->nmap; i++)
    if (st->orig[i] == b) return st->flat[i];
  return NULL;
}

/* The flat buffer of b; `span` locates an error in b's extent. */
static const tx_buffer *make_flat(fb_state *st, const tx_buffer *b, const char *name,
                                  tx_buffer_form form, const tx_expr *data, tirx_span span) {
  const tx_expr *ext = physical_extent(st, b, span);
  if (!ext) return st->oom = !st->error, NULL;
  tx_buffer fields = *b;
  fields.name = name;
  fields.form = form;
  fields.data = data;
  fields.ndim = 1;
  fields.shape = &ext;
  fields.nstrides = 0;
  fields.strides = NULL;
  fields.elem_offset = NULL;
  fields.layout = NULL;
  fields.origin = NULL;
  fields.offset_factor = 0;
  const tx_buffer *f = tx_buffer_make(st->ir, &fields);
  if (!f) return st->oom = 1, NULL;
  if (st->nmap == st->capmap) {
    uint32_t cap = st->capmap ? st->capmap * 2 : 16;
    const tx_buffer **o = tx_mem_realloc(tx_ir_alloc(st->ir), (void *)st->orig, cap * sizeof *o);
    if (o) st->orig = o;
    const tx_buffer **n =
        o ? tx_mem_realloc(tx_ir_alloc(st->ir), (void *)st->flat, cap * sizeof *n) : NULL;
    if (!n) return st->oom = 1, NULL;
    st->flat = n;
    st->capmap = cap;
  }
  st->orig[st->nmap] = b;
  st->flat[st->nmap++] = f;
  return f;
}

/* The flat buffer and offset for an access b[idx] (n indices). */
static const tx_expr *address(fb_state *st, const tx_buffer *b, const tx_expr *const *idx,
                              uint32_t n, const tx_buffer **flat, tirx_span span, int depth) {
  if (n != b->ndim && !(b->ndim == 0 && n == 1)) {
    tx_internal_error(st->pc->diags, PASS, "%s accessed with %u indices but has %u dimensions",
                      b->name ? b->name : "?", n, b->ndim);
    st->error = 1;
    return NULL;
  }
  const char *method = NULL;
  const tx_buffer *src = depth < 16 ? view_source(b, &method) : NULL;
  if (src) {
    const tx_expr **sidx =
        tx_mem_calloc(tx_ir_alloc(st->ir), src->ndim ? src->ndim : 1, sizeof *sidx);
    if (!sidx) return st->oom = 1, NULL;
    if (strcmp(method, ".permute") == 0) {
      const tx_expr *o = b->origin;
      for (uint32_t i = 0; i + 1 < o->u.call.kw.npos && i < n; i++) {
        int64_t ax;
        if (tx_expr_int_literal(o->ops[i + 1], &ax) && ax >= 0 && ax < (int64_t)src->ndim)
          sidx[ax] = idx[i];
      }
    } else { /* .view: same linear index, re-split over the source shape */
      const tx_expr *lin = row_major(st, b->shape, idx, b->ndim);
      for (uint32_t i = 0; i < src->ndim; i++) {
        const tx_expr *c = tx_lc_bin(st->ir, EXPR_FLOORDIV, lin, shape_product(st, src, i + 1));
        sidx[i] = i == 0 ? c : tx_lc_bin(st->ir, EXPR_FLOORMOD, c, src->shape[i]);
      }
    }
    for (uint32_t i = 0; i < src->ndim; i++)
      if (!sidx[i]) {
        tx_mem_free(tx_ir_alloc(st->ir), sidx);
        /* The frontend only makes permute views of whole permutations. */
        if (strcmp(method, ".permute") == 0 && !st->oom) {
          tx_internal_error(st->pc->diags, PASS, "%s is not a permutation of %s",
                            b->name ? b->name : "?", src->name ? src->name : "?");
          st->error = 1;
          return NULL;
        }
        return st->oom = 1, NULL;
      }
    const tx_expr *r = address(st, src, sidx, src->ndim, flat, span, depth + 1);
    tx_mem_free(tx_ir_alloc(st->ir), sidx);
    return r;
  }
  if (!needs_flatten(b)) {
    *flat = b;
    return n ? idx[0] : NULL;
  }
  const tx_buffer *f = lookup(st, b);
  if (!f) {
    tx_internal_error(st->pc->diags, PASS, "buffer %s used before its definition",
                      b->name ? b->name : "?");
    st->error = 1;
    return NULL;
  }
  *flat = f;
  if (b->ndim == 0) {
    const tx_expr *zero = tx_lc_int(st->ir, TX_INT32, 0);
    return physical(st, b, &zero);
  }
  return physical(st, b, idx);
}

/* Rewrite an index list; a Ramp in the last dimension stays a Ramp. */
static const tx_expr *flat_index(fb_state *st, const tx_buffer *b, const tx_expr *const *idx,
                                 uint32_t n, const tx_buffer **flat, tirx_span span) {
  const tx_expr *last = n ? idx[n - 1] : NULL;
  if (!last || last->kind != EXPR_RAMP) return address(st, b, idx, n, flat, span, 0);
  const tx_expr **tmp = tx_mem_calloc(tx_ir_alloc(st->ir), n, sizeof *tmp);
  if (!tmp) return st->oom = 1, NULL;
  memcpy(tmp, idx, n * sizeof *tmp);
  tmp[n - 1] = last->ops[0];
  const tx_expr *a0 = address(st, b, tmp, n, flat, span, 0);
  const char *method;
  if (a0 && !b->layout && !view_source(b, &method)) {
    /* Row-major or explicit strides: the address is linear in the last
     * index, so its lanes step by the Ramp's stride times that
     * dimension's stride (which the difference below, unsimplified,
     * would not always show as a constant: C[i // 8, T.Ramp(i % 8 * 4, 1, 4)]). */
    tx_mem_free(tx_ir_alloc(st->ir), tmp);
    const tx_expr *d =
        b->nstrides ? tx_lc_mul(st->ir, last->ops[1], b->strides[n - 1]) : last->ops[1];
    const tx_expr *ops[2] = {a0, d};
    return d ? tx_expr_new(st->ir, EXPR_RAMP, last->dtype, ops, 2, last->span)
             : (st->oom = 1, NULL);
  }
  tmp[n - 1] = tx_lc_add(st->ir, last->ops[0], last->ops[1]);
  const tx_buffer *f1;
  const tx_expr *a1 = tmp[n - 1] ? address(st, b, tmp, n, &f1, span, 0) : NULL;
  tx_mem_free(tx_ir_alloc(st->ir), tmp);
  if (!a0 || !a1) return NULL;
  /* The flat stride is a1 - a0; it must fold to a constant (or be the
   * Ramp's own stride on a unit-stride dimension). */
  const tx_expr *d = tx_lc_bin(st->ir, EXPR_SUB, a1, a0);
  int64_t dv;
  if (!d) return st->oom = 1, NULL;
  if (!tx_expr_int_literal(d, &dv)) {
    if (tx_expr_equal_with(tx_ir_alloc(st->ir), a1, tx_lc_add(st->ir, a0, last->ops[1])))
      d = last->ops[1];
    else {
      tx_error(st->pc->diags, span,
               "vector access to %s: the layout does not map the vector lanes to a constant "
               "stride",
               b->name ? b->name : "buffer");
      st->error = 1;
      return NULL;
    }
  }
  const tx_expr *ops[2] = {a0, d};
  return tx_expr_new(st->ir, EXPR_RAMP, last->dtype, ops, 2, last->span);
}

/* ---- the rewrite ------------------------------------------------------------------ */

/* A.access_ptr(mask, offset=o): TVM's address of element o of A's flat
 * storage (elem_offset included) -- the same pointer as the flat
 * A.ptr_to([elem_offset + o]), which is what it becomes. */
static const tx_expr *access_ptr(fb_state *st, tx_mutator *m, const tx_expr *e) {
  const tx_expr *r = tx_mutate_expr_children(m, e);
  const tx_buffer *b = e->ops[0]->u.buffer, *f = b;
  const tx_expr *off = NULL;
  for (uint32_t i = e->u.call.kw.npos; i < r->nops; i++)
    if (strcmp(e->u.call.kw.names[i - e->u.call.kw.npos], "offset") == 0) off = r->ops[i];
  const tx_expr **zeros = tx_mem_calloc(tx_ir_alloc(st->ir), b->ndim ? b->ndim : 1, sizeof *zeros);
  if (!zeros) return st->oom = 1, e;
  for (uint32_t i = 0; i < b->ndim; i++)
    if (!(zeros[i] = tx_int(st->ir, TX_INT32, 0, e->span)))
      return tx_mem_free(tx_ir_alloc(st->ir), zeros), m->failed = 1, e;
  const tx_expr *a = b->ndim ? flat_index(st, b, zeros, b->ndim, &f, e->span)
                             : tx_int(st->ir, TX_INT32, 0, e->span);
  tx_mem_free(tx_ir_alloc(st->ir), zeros);
  if (!a) return st->oom = !st->error, e;
  if (off && (off->kind != EXPR_INT || off->u.ival != 0)) {
    if (!tx_dtype_eq(off->dtype, a->dtype))
      off = tx_expr_new(st->ir, EXPR_CAST, a->dtype, &off, 1, e->span);
    a = off ? tx_binary(st->ir, EXPR_ADD, a, off, e->span) : NULL;
    if (!a) return m->failed = 1, e;
  }
  const tx_expr *ops[2] = {tx_buffer_ref(st->ir, f, e->ops[0]->dtype, e->ops[0]->span),
                           tx_tuple(st->ir, TX_VOID, &a, 1, 1, e->span)};
  const tx_expr *c = tx_call(st->ir, ".ptr_to", e->dtype, ops, 2, e->span);
  return c ? c : (m->failed = 1, e);
}

/* ---- A.vload / A.vstore ------------------------------------------------------- */

/* Bounds for the on-stack index lists and operands: buffers have a few
 * dimensions and a vstore call at most four operands (a longer one is
 * reported as out of memory rather than overrun). */
enum { VEC_MAX_DIMS = 64, VEC_MAX_OPS = 8 };

/* Is e the method call `A.<name>(...)` (name with its dot)? */
static int is_method(const tx_expr *e, const char *name) {
  return e && e->kind == EXPR_CALL && e->nops >= 2 && e->ops[0]->kind == EXPR_BUFFER &&
         e->u.call.op && strcmp(e->u.call.op, name) == 0;
}

/* The index list of A.vload(begin, ...) / A.vstore(begin, ...) for a value
 * of `lanes` lanes, as TVM's BufferVar.vload/vstore builds it: a scalar
 * last index becomes T.Ramp(index, 1, lanes / buffer lanes). The frontend
 * has checked the rest (element types, lane counts). Writes at most
 * VEC_MAX_DIMS indices into idx; returns how many, 0 when out of memory. */
static uint32_t vector_indices(fb_state *st, const tx_buffer *b, const tx_expr *begin, int lanes,
                               const tx_expr **idx, uint32_t cap) {
  uint32_t n = begin->kind == EXPR_TUPLE ? begin->nops : 1;
  if (n == 0 || n > cap) return 0;
  for (uint32_t i = 0; i < n; i++)
    idx[i] = begin->kind == EXPR_TUPLE ? begin->ops[i] : begin;
  int factor = lanes / (b->dtype.lanes ? b->dtype.lanes : 1);
  const tx_expr *last = idx[n - 1];
  if (factor > 1 && last->dtype.lanes == 1) {
    const tx_expr *ops[2] = {last, tx_int(st->ir, last->dtype, 1, NOSPAN)};
    idx[n - 1] = ops[1] ? tx_expr_new(st->ir, EXPR_RAMP, tx_dtype_with_lanes(last->dtype, factor),
                                      ops, 2, last->span)
                        : NULL;
    if (!idx[n - 1]) return 0;
  }
  return n;
}

/* A.vload(begin, dtype[, predicate]) is the load A[begin..] of dtype; with
 * a predicate, T.if_then_else(predicate, load, 0): a masked-off lane reads
 * nothing (TVM leaves its value unspecified). Flattened like any load. */
static const tx_expr *lower_vload(tx_mutator *m, const tx_expr *e) {
  fb_state *st = m->user;
  const tx_buffer *b = e->ops[0]->u.buffer;
  const tx_expr *idx[VEC_MAX_DIMS];
  uint32_t n = vector_indices(st, b, e->ops[1], e->dtype.lanes, idx, VEC_MAX_DIMS);
  const tx_expr *load = n ? tx_load(st->ir, b, e->dtype, idx, n, e->span) : NULL;
  if (!load) return m->failed = 1, e;
  load = tx_mutate_expr(m, load);
  const tx_expr *pred = tx_call_arg(e, 3, "predicate");
  if (!pred) return load;
  tx_dtype el = tx_dtype_elem(e->dtype);
  const tx_expr *zero =
      tx_dtype_is_float(el) ? tx_float(st->ir, el, 0.0, NOSPAN) : tx_int(st->ir, el, 0, NOSPAN);
  if (zero && e->dtype.lanes > 1)
    zero = tx_expr_new(st->ir, EXPR_BROADCAST, e->dtype, &zero, 1, NOSPAN);
  const tx_expr *ops[3] = {tx_mutate_expr(m, pred), load, zero};
  const tx_expr *r = tx_call(st->ir, "T.if_then_else", e->dtype, ops, 3, e->span);
  return r ? r : (m->failed = 1, e);
}

/* A.vstore(begin, value) is the store A[begin..] = value. With a predicate
 * it stays a call (on the flat buffer, its index a Ramp): IR stores have no
 * mask, and codegen writes only the lanes it selects. */
static const tx_stmt *lower_vstore(tx_mutator *m, const tx_stmt *s) {
  fb_state *st = m->user;
  const tx_expr *e = s->exprs[0];
  const tx_buffer *b = e->ops[0]->u.buffer;
  const tx_expr *value = tx_call_arg(e, 2, "value"), *pred = tx_call_arg(e, 3, "predicate");
  const tx_expr *ops[VEC_MAX_DIMS + 1];
  uint32_t n =
      value ? vector_indices(st, b, e->ops[1], value->dtype.lanes, ops + 1, VEC_MAX_DIMS) : 0;
  if (!n) return m->failed = 1, s;
  if (!pred) {
    ops[0] = value;
    const tx_stmt *store = tx_stmt_make(
        st->ir,
        &(tx_stmt){
            .kind = STMT_STORE, .nexprs = n + 1, .exprs = ops, .buffer = b, .span = s->span});
    return store ? tx_mutate_stmt(m, store) : (m->failed = 1, s);
  }
  /* The same call with the index list TVM builds (the `.vstore` case of
   * fb_expr then flattens it). */
  const tx_expr *cops[VEC_MAX_OPS];
  if (e->nops > VEC_MAX_OPS) return m->failed = 1, s;
  memcpy(cops, e->ops, e->nops * sizeof *cops);
  cops[1] = tx_tuple(st->ir, TX_VOID, ops + 1, n, 1, e->ops[1]->span);
  const tx_expr *call = cops[1] ? tx_expr_with_ops(st->ir, e, cops, e->nops) : NULL;
  const tx_expr *flat = call ? tx_mutate_expr(m, call) : NULL;
  const tx_stmt *r = flat ? tx_stmt_with(st->ir, s, &flat, NULL, NULL, NULL) : NULL;
  return r ? r : (m->failed = 1, s);
}

static const tx_expr *fb_expr(tx_mutator *m, const tx_expr *e) {
  fb_state *st = m->user;
  if (is_method(e, ".vload")) return lower_vload(m, e);
  if (e->kind == EXPR_LOAD) {
    const tx_expr *const *ops = e->ops;
    uint32_t n = e->nops;
    const tx_expr **idx = tx_mem_calloc(tx_ir_alloc(m->ir), n ? n : 1, sizeof *idx);
    if (!idx) return m->failed = 1, e;
    for (uint32_t i = 0; i < n; i++)
      idx[i] = tx_mutate_expr(m, ops[i]);
    const tx_buffer *f = e->u.buffer;
    const tx_expr *a = (n == 1 && !needs_flatten(e->u.buffer))
                           ? idx[0]
                           : flat_index(st, e->u.buffer, idx, n, &f, e->span);
    int same = n == 1 && a == ops[0] && f == e->u.buffer;
    tx_mem_free(tx_ir_alloc(m->ir), idx);
    if (!a) return st->oom = !st->error, e;
    if (same) return e;
    const tx_expr *r = tx_load(st->ir, f, e->dtype, &a, 1, e->span);
    return r ? r : (m->failed = 1, e);
  }
  if (e->kind == EXPR_CALL && e->nops >= 2 && e->ops[0]->kind == EXPR_BUFFER &&
      e->ops[1]->kind == EXPR_TUPLE &&
      (strcmp(e->u.call.op, ".vload") == 0 || strcmp(e->u.call.op, ".vstore") == 0 ||
       strcmp(e->u.call.op, ".ptr_to") == 0)) {
    const tx_expr *r = tx_mutate_expr_children(m, e);
    const tx_buffer *b = e->ops[0]->u.buffer, *f = b;
    const tx_expr *tup = r->ops[1];
    if (!needs_flatten(b) && tup->nops == 1) return r;
    const tx_expr *a = flat_index(st, b, tup->ops, tup->nops, &f, e->span);
    if (!a) return st->oom = !st->error, e;
    /* The same call on the flat buffer with its one flat index. */
    const tx_expr **ops = tx_mem_calloc(tx_ir_alloc(st->ir), r->nops, sizeof *ops);
    if (!ops) return st->oom = 1, e;
    memcpy(ops, r->ops, r->nops * sizeof *ops);
    ops[0] = tx_buffer_ref(st->ir, f, e->ops[0]->dtype, e->ops[0]->span);
    ops[1] = tx_tuple(st->ir, tup->dtype, &a, 1, tup->u.is_list, tup->span);
    const tx_expr *c = tx_expr_with_ops(st->ir, e, ops, r->nops);
    tx_mem_free(tx_ir_alloc(st->ir), (void *)ops);
    return c ? c : (m->failed = 1, e);
  }
  if (e->kind == EXPR_CALL && e->nops >= 1 && e->ops[0]->kind == EXPR_BUFFER &&
      strcmp(e->u.call.op, ".access_ptr") == 0)
    return access_ptr(st, m, e);
  return NULL;
}

static const tx_stmt *fb_stmt(tx_mutator *m, const tx_stmt *s) {
  fb_state *st = m->user;
  switch ((tx_stmt_kind)s->kind) {
  case STMT_SEQ:
    return tx_lc_mutate_seq(m, s);
  case STMT_ALLOC:
  case STMT_DECL: {
    const tx_buffer *b = s->buffer;
    const char *method;
    if (!b || !needs_flatten(b)) return NULL;
    if (view_source(b, &method)) return tx_lc_empty(st->ir); /* reads through its source */
    tx_buffer_form form =
        b->form == BUF_DECL_SCALAR || b->form == BUF_VIEW ? BUF_DECL : (tx_buffer_form)b->form;
    const tx_buffer *f = make_flat(st, b, b->name, form, b->data, s->span.line ? s->span : b->span);
    if (!f) return m->failed = 1, s; /* out of memory, or an error (st->error) */
    const tx_stmt *r =
        tx_stmt_make(st->ir, &(tx_stmt){.kind = b->form == BUF_VIEW ? STMT_DECL : s->kind,
                                        .nexprs = s->nexprs,
                                        .nstmts = s->nstmts,
                                        .exprs = s->exprs,
                                        .stmts = s->stmts,
                                        .buffer = f,
                                        .span = s->span});
    if (!r) return m->failed = 1, s;
    return tx_mutate_stmt_children(m, r);
  }
  case STMT_STORE: {
    const tx_stmt *c = tx_mutate_stmt_children(m, s);
    uint32_t n = c->nexprs - 1;
    const tx_buffer *f = s->buffer;
    if (n == 1 && !needs_flatten(s->buffer)) return c;
    const tx_expr *a = flat_index(st, s->buffer, c->exprs + 1, n, &f, s->span);
    if (!a) return st->oom = !st->error, s;
    const tx_expr *ops[2] = {c->exprs[0], a};
    const tx_stmt *r = tx_stmt_make(
        st->ir,
        &(tx_stmt){.kind = STMT_STORE, .nexprs = 2, .exprs = ops, .buffer = f, .span = s->span});
    return r ? r : (m->failed = 1, s);
  }
  case STMT_EVAL:
    if (s->nexprs && is_method(s->exprs[0], ".vstore")) return lower_vstore(m, s);
    break;
  case STMT_BIND:
  case STMT_ASSIGN:
  case STMT_ATTR:
  case STMT_ASSERT:
  case STMT_IF:
  case STMT_FOR:
  case STMT_WHILE:
  case STMT_BREAK:
  case STMT_CONTINUE:
  case STMT_RETURN:
  case STMT_SCOPE_ID:
  case STMT_DEVICE_ENTRY:
  case STMT_WITH:
  case STMT_BLOCK:
  case STMT_BLOCK_AXIS:
  case STMT_BLOCK_SIG:
  case STMT_BLOCK_INIT:
  case STMT_TILE_OP:
  case TX_STMT_KIND_COUNT:
    break;
  }
  return NULL;
}

/* ---- parameters ------------------------------------------------------------------ */

/* The buffers loaded, named or stored in a statement: one walk answers
 * "does the body use parameter b" for every parameter. */
typedef struct use_set {
  tx_ptrmap bufs;
  int oom;
} use_set;

static void note_use(tx_visitor *v, const tx_buffer *b) {
  use_set *u = v->user;
  const char *method;
  /* An access through a view is an access to its source (address() reads through it). */
  for (int depth = 0; b && depth < 17; depth++, b = view_source(b, &method))
    if (!tx_ptrset_add(&u->bufs, b)) {
      u->oom = v->stop = 1;
      return;
    }
}
static int uses_pre_expr(tx_visitor *v, const tx_expr *e) {
  if (e->kind == EXPR_LOAD || e->kind == EXPR_BUFFER) note_use(v, e->u.buffer);
  return 1;
}
static int uses_pre_stmt(tx_visitor *v, const tx_stmt *s) {
  if (s->kind == STMT_STORE) note_use(v, s->buffer);
  return 1;
}
static void collect_uses(use_set *u, const tx_stmt *const *items, int64_t n) {
  tx_visitor v = {.user = u, .pre_expr = uses_pre_expr, .pre_stmt = uses_pre_stmt};
  for (int64_t i = 0; i < n && !v.stop; i++)
    tx_visit_stmt(&v, items[i]);
}

static const tx_func *flatten_func(fb_state *st, const tx_func *f) {
  st->nmap = 0;
  tx_lc_names_collect(&st->names, st->pc, f);
  const tx_stmt *body = f->body;
  /* Where the parameter declarations go: after the device entry when the
   * host part does not touch the buffer. */
  int64_t entry = -1;
  if (body && body->kind == STMT_SEQ)
    for (uint32_t i = 0; i < body->nstmts && entry < 0; i++)
      if (body->stmts[i]->kind == STMT_DEVICE_ENTRY) entry = i;
  /* Several kernels share the declarations: they go at the top, and
   * split-host-device declares each in the kernels that use it. */
  for (int64_t i = entry + 1; entry >= 0 && i < body->nstmts; i++)
    if (body->stmts[i]->kind == STMT_DEVICE_ENTRY) entry = -1;
  const tx_stmt **top = tx_mem_calloc(tx_ir_alloc(st->ir), f->nparams + 1, sizeof *top),
                **after = tx_mem_calloc(tx_ir_alloc(st->ir), f->nparams + 1, sizeof *after);
  uint32_t ntop = 0, nafter = 0;
  if (!top || !after) {
    tx_mem_free(tx_ir_alloc(st->ir), top);
    tx_mem_free(tx_ir_alloc(st->ir), after);
    st->oom = 1;
    return f;
  }
  /* Which buffers the whole body, and the host part before the entry, use. */
  use_set body_uses = {.bufs = {.alloc = tx_ir_alloc(st->ir)}},
          host_uses = {.bufs = {.alloc = tx_ir_alloc(st->ir)}};
  int any = 0;
  for (uint32_t i = 0; f->param_bufs && i < f->nparams; i++)
    any |= f->param_bufs[i] && needs_flatten(f->param_bufs[i]);
  if (any && body) {
    collect_uses(&body_uses, &body, 1);
    if (entry > 0) collect_uses(&host_uses, body->stmts, entry);
    if (body_uses.oom || host_uses.oom) st->oom = 1;
  }
  for (uint32_t i = 0; i < f->nparams && !st->oom; i++) {
    const tx_buffer *b = f->param_bufs ? f->param_bufs[i] : NULL;
    if (!b || !needs_flatten(b) || !tx_ptrmap_has(&body_uses.bufs, b)) continue;
    tx_strbuf sb = {.alloc = tx_ir_alloc(st->ir)};
    tx_sb_printf(&sb, "%s_flat", b->name ? b->name : "buf");
    const char *name =
        tx_sb_cstr(&sb) ? tx_lc_fresh_name(&st->names, st->ir, tx_sb_cstr(&sb)) : NULL;
    tx_sb_free(&sb);
    const tx_expr *data = b->data ? b->data : b->origin;
    const tx_buffer *flat = name ? make_flat(st, b, name, BUF_DECL, data, b->span) : NULL;
    const tx_stmt *decl =
        flat ? tx_stmt_make(st->ir, &(tx_stmt){.kind = STMT_DECL, .buffer = flat, .span = b->span})
             : NULL;
    if (!decl) {
      st->oom = !st->error;
      break;
    }
    if (entry >= 0 && !tx_ptrmap_has(&host_uses.bufs, b))
      after[nafter++] = decl;
    else
      top[ntop++] = decl;
  }
  tx_ptrmap_free(&body_uses.bufs);
  tx_ptrmap_free(&host_uses.bufs);
  const tx_func *r = f;
  if (!st->oom && !st->error) {
    tx_mutator m = {.ir = st->ir, .user = st, .expr = fb_expr, .stmt = fb_stmt};
    const tx_stmt *nb = tx_mutate_stmt(&m, body);
    if (m.failed && !st->error) st->oom = 1;
    if (!st->oom && (ntop || nafter)) {
      /* nb keeps the top-level shape: the device entry is still at `entry`
       * unless statements before it were dropped, so find it again. */
      uint32_t n = nb->kind == STMT_SEQ ? nb->nstmts : 1;
      const tx_stmt *const *items = nb->kind == STMT_SEQ ? nb->stmts : &nb;
      const tx_stmt **all = tx_mem_calloc(tx_ir_alloc(st->ir), n + ntop + nafter, sizeof *all);
      if (!all) st->oom = 1;
      uint32_t k = 0;
      for (uint32_t i = 0; all && i < ntop; i++)
        all[k++] = top[i];
      int placed = nafter == 0;
      for (uint32_t i = 0; all && i < n; i++) {
        all[k++] = items[i];
        if (!placed && items[i]->kind == STMT_DEVICE_ENTRY) {
          for (uint32_t j = 0; j < nafter; j++)
            all[k++] = after[j];
          placed = 1;
        }
      }
      if (all && !placed) {
        tx_internal_error(st->pc->diags, PASS, "lost the device entry of %s",
                          f->name ? f->name : "?");
        st->error = 1;
      }
      if (all && !st->error) nb = tx_lc_seq(st->ir, all, k, nb->span);
      if (!nb) st->oom = 1;
      tx_mem_free(tx_ir_alloc(st->ir), all);
    }
    if (!st->oom && !st->error && nb != body) {
      const tx_func *c = tx_func_with_body(st->ir, f, nb);
      if (!c)
        st->oom = 1;
      else
        r = c;
    }
  }
  tx_mem_free(tx_ir_alloc(st->ir), top);
  tx_mem_free(tx_ir_alloc(st->ir), after);
  return r;
}

/* The walk ends at the first error. */
static const tx_func *flatten_each(void *state, const tx_func *f) {
  fb_state *st = state;
  const tx_func *r = flatten_func(st, f);
  if (st->oom || st->error) return NULL;
  tx_lc_names_keep(&st->names, st->pc, r);
  return r;
}

tirx_status tx_pass_flatten_buffer(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  fb_state st = {.pc = pc, .ir = pc->ir};
  tirx_status status = tx_lc_each_func(pc, in, flatten_each, &st, out);
  if (status == TIRX_OK) status = tx_lc_status(pc, st.oom, st.error);
  if (status != TIRX_OK) *out = in;
  tx_mem_free(tx_ir_alloc(pc->ir), (void *)st.orig);
  tx_mem_free(tx_ir_alloc(pc->ir), (void *)st.flat);
  tx_lc_names_free(&st.names);
  (void)NOSPAN;
  return status;
}
