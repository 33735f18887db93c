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

/* e (EXPR_REGION, EXPR_BUFFER or a scalar value) as *r: NULL, or why it is
 * not an operand an element-wise variant takes (a static string). */
const char *tx_tile_region_of(const tx_expr *e, tx_ir *ir, tx_tile_region *r);
/* Same logical extents (a scalar matches anything)? */
int tx_tile_same_shape(const tx_tile_region *a, const tx_tile_region *b);
/* Is b's layout over memory only (no thread axis, no replica)? */
int tx_tile_memory_layout(const tx_buffer *b);
/* The element of r at logical position lv[0..nlogical) (r's scalar for a
 * scalar); NULL on OOM. */
const tx_expr *tx_tile_element(tx_ir *ir, const tx_tile_region *r, const tx_expr *const *lv,
                               tirx_span span);
/* r[lv] = value; NULL on OOM. */
const tx_stmt *tx_tile_store(tx_ir *ir, const tx_tile_region *r, const tx_expr *const *lv,
                             const tx_expr *value, tirx_span span);
/* n fresh int32 loop variables i0, i1, ...; 0 on OOM. */
int tx_tile_loop_vars(tx_tile_call *c, uint32_t n, const tx_expr **vars);
/* for vars[0] in range(extents[0]): ... body, the innermost loop of kind
 * `innermost`; NULL on OOM. */
const tx_stmt *tx_tile_loops(tx_ir *ir, const tx_expr *const *vars, const int64_t *extents,
                             uint32_t n, const tx_stmt *body, tx_for_kind innermost,
                             tirx_span span);

#endif
