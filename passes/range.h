/*
 * range.h - integer value ranges of index expressions, shared by the passes
 * that reason about them (simplify, narrow-datatype).
 *
 * A range map records, per variable node, the closed interval [lo, hi] its
 * value lies in: loop variables with literal bounds, T.launch_thread
 * bindings ([0, extent)) and plain bindings of integer expressions. As
 * variables are identities (one binding site each), a map needs no scoping
 * and holds for a whole function. Ranges are kept within +-2^40 so that the
 * interval arithmetic here cannot overflow int64; beyond that a value is
 * "unknown", which is always a safe answer.
 */
#ifndef TIRX_PASSES_RANGE_H
#define TIRX_PASSES_RANGE_H

#include <stdint.h>

#include "ir/ir.h"

typedef struct tx_range {
  int known;
  int64_t lo, hi;
} tx_range;

typedef struct tx_range_map {
  const tx_expr **vars;
  tx_range *ranges;
  uint32_t n, cap;
  int oom;                     /* set when recording failed for lack of memory */
  const tirx_allocator *alloc; /* where vars and ranges come from (NULL: malloc) */
} tx_range_map;

/* Floor division and modulo (round toward -inf); b must not be 0. */
int64_t tx_range_fdiv(int64_t a, int64_t b);
int64_t tx_range_fmod(int64_t a, int64_t b);

/* Record the range of variable v (unknown ranges are not recorded). */
void tx_range_set(tx_range_map *m, const tx_expr *v, tx_range r);
/* The range of a scalar integer expression under the recorded variables:
 * literals, variables, casts that keep every value, + - * min max and
 * floordiv/floormod by a positive literal. Unknown otherwise. */
tx_range tx_range_of(const tx_range_map *m, const tx_expr *e);
/* Record the range a STMT_BIND gives its variable (a T.launch_thread
 * binding, possibly under a cast, or a plain binding of an integer
 * expression). */
void tx_range_record_bind(tx_range_map *m, const tx_stmt *s);
/* Record a loop variable over [begin, end) with a positive literal step
 * (step NULL = 1); nothing when the bounds are not literals. */
void tx_range_record_loop(tx_range_map *m, const tx_expr *var, const tx_expr *begin,
                          const tx_expr *end, const tx_expr *step);
/* Forget every recorded range (keeps the storage). */
void tx_range_clear(tx_range_map *m);
void tx_range_free(tx_range_map *m);

#endif
