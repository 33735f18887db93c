/*
 * tile_region.h - tile-primitive operands as regions, and the loops and
 * element accesses an element-wise expansion builds (target/tile.c). For
 * the variants of every backend; passes use target/tile.h only.
 */
#ifndef TIRX_TARGET_TILE_REGION_H
#define TIRX_TARGET_TILE_REGION_H

#include "target/tile.h"

enum { TX_TILE_MAX_DIMS = 8 };

/* An operand: a buffer region (buffer, per-dimension start and constant
 * extent; the dimensions of extent != 1 are the logical ones, in order) or
 * a scalar broadcast to every element. */
typedef struct tx_tile_region {
  const tx_buffer *buffer; /* NULL for a scalar */
  const tx_expr *scalar;
  tx_dtype dtype;
  uint32_t ndim, nlogical;
  const tx_expr *start[TX_TILE_MAX_DIMS];
  int64_t extent[TX_TILE_MAX_DIMS];
  uint32_t dims[TX_TILE_MAX_DIMS]; /* the logical dimensions */
} tx_tile_region;

/* e (EXPR_REGION, EXPR_BUFFER, an element A[i, ...] as a one-element
 * region, or a scalar value) as *r: NULL, or why it is not an operand an
 * element-wise variant takes (a static string). */
const char *tx_tile_region_of(const tx_expr *e, tx_ir *ir, tx_tile_region *r);
/* Does operand b fit destination a: the same logical extents, or a scalar
 * or one element (broadcast)? */
int tx_tile_same_shape(const tx_tile_region *a, const tx_tile_region *b);
/* Is b's layout over memory only (no thread axis, no replica; a swizzle
 * over such a layout counts)? */
int tx_tile_memory_layout(const tx_buffer *b);
/* The element of r at logical position lv[0..nlogical) (r's scalar for a
 * scalar); NULL on OOM. */
const tx_expr *tx_tile_element(tx_ir *ir, const tx_tile_region *r, const tx_expr *const *lv,
                               tirx_span span);
/* r[lv] = value; NULL on OOM. */
const tx_stmt *tx_tile_store(tx_ir *ir, const tx_tile_region *r, const tx_expr *const *lv,
                             const tx_expr *value, tirx_span span);
/* The call's positional operand count, and its keyword `name` (NULL when
 * absent). */
uint32_t tx_tile_npos(const tx_stmt *s);
const tx_expr *tx_tile_kwarg(const tx_stmt *s, const char *name);
/* Can the call's scope group share the work: its size and the caller's
 * index known, every thread of it running the call? NULL, or why not. */
const char *tx_tile_group_ok(const tx_tile_call *c);
/* Is r's buffer in shared memory (shared, shared.dyn) / local memory? */
int tx_tile_in_shared(const tx_tile_region *r);
int tx_tile_in_local(const tx_tile_region *r);
/* The scope of r's buffer ("global" when it has none). */
const char *tx_tile_buffer_scope(const tx_tile_region *r);
/* int32 arithmetic for index expressions: a op b, a op literal v (the
 * identities x + 0, x * 1, x // 1 folded); NULL on OOM. */
const tx_expr *tx_tile_arith(tx_ir *ir, tx_expr_kind k, const tx_expr *a, const tx_expr *b,
                             tirx_span span);
const tx_expr *tx_tile_arith_i(tx_ir *ir, tx_expr_kind k, const tx_expr *a, int64_t v,
                               tirx_span span);
/* `if index <cmp> v: body` (cmp EXPR_EQ, EXPR_LT, ...); NULL on OOM. */
const tx_stmt *tx_tile_guard(tx_ir *ir, tx_expr_kind cmp, const tx_expr *index, int64_t v,
                             const tx_stmt *body, tirx_span span);
/* n fresh int32 loop variables i0, i1, ...; 0 on OOM. */
int tx_tile_loop_vars(tx_tile_call *c, uint32_t n, const tx_expr **vars);
/* for vars[0] in range(extents[0]): ... body, the innermost loop of kind
 * `innermost`; NULL on OOM. */
const tx_stmt *tx_tile_loops(tx_ir *ir, const tx_expr *const *vars, const int64_t *extents,
                             uint32_t n, const tx_stmt *body, tx_for_kind innermost,
                             tirx_span span);

/* The element count of r's logical extents (1 for a scalar). */
int64_t tx_tile_elements(const tx_tile_region *r);
/* The logical position lv[0..n) of element q * vec + lane of the row-major
 * order over extents ext[0..n), where vec divides ext[n - 1]: the innermost
 * coordinate is (q % (ext[n-1] / vec)) * vec + lane, so that a vectorized
 * loop over lane sees a contiguous index. 0 on OOM. */
int tx_tile_unflatten(tx_ir *ir, const int64_t *ext, uint32_t n, const tx_expr *q, int64_t vec,
                      const tx_expr *lane, tirx_span span, const tx_expr **lv);

/* ---- registers laid out over a thread group ------------------------------ */

enum { TX_TILE_MAX_SHARDS = 16 };

/* One iterator of a register buffer's TileLayout: the buffer dimension it
 * is part of, its extent and stride, and whether the stride is on the
 * group's thread axis (else on memory). */
typedef struct tx_tile_shard {
  uint32_t dim;
  int64_t extent, stride;
  int on_thread;
} tx_tile_shard;

/* How a register region's elements are spread over the threads of the
 * call's group (TVM's local views: `acc.view(32, 64, layout=T.TileLayout(
 * T.S[(32, 64):(1 @ Axis.laneid, 1)]))`): the layout's shards in order,
 * consecutive shards making up each buffer dimension, on memory or on the
 * scope's thread axis (laneid for a warp, tid_in_wg for a warpgroup, tx for
 * the CTA); the thread shards' strides are an exact mixed radix from 1 over
 * `threads` threads, the whole group (TVM refuses partial coverage). */
typedef struct tx_tile_owners {
  uint32_t nshard;
  tx_tile_shard shard[TX_TILE_MAX_SHARDS];
  int64_t threads;
} tx_tile_owners;

/* Fill *o for register region r of a call at a wider scope than the
 * thread: NULL, or why r is not such a region (no replicas, constant
 * extents and strides, the region covering every dimension that is laid
 * over threads). */
const char *tx_tile_owners_of(const tx_tile_call *c, const tx_tile_region *r, tx_tile_owners *o);
/* Is buffer dimension d laid out (in part) over the threads? */
int tx_tile_dim_on_threads(const tx_tile_owners *o, uint32_t d);
/* Do the threads hold the same logical elements of a and b (the same
 * shards on each logical dimension; memory strides may differ)? */
int tx_tile_same_owners(const tx_tile_region *a, const tx_tile_owners *oa, const tx_tile_region *b,
                        const tx_tile_owners *ob);
/* The elements of r the calling thread holds: the loops (n fresh variables
 * in vars with extents ext, *nloops of them, at most TX_TILE_MAX_SHARDS +
 * TX_TILE_MAX_DIMS) and the logical position lv[0..r->nlogical) of the
 * element in terms of them and the thread index. 0 on OOM. */
int tx_tile_owned(tx_tile_call *c, const tx_tile_region *r, const tx_tile_owners *o,
                  const tx_expr **vars, int64_t *ext, uint32_t *nloops, const tx_expr **lv);

#endif
