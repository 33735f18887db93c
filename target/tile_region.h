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

#endif
