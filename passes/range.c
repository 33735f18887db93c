/*
 * range.c - integer value ranges of index expressions (see range.h).
 *
 * Requires: scalar integer expressions; anything else is "unknown".
 * Guarantees: a known range contains every value the expression can take
 * given the recorded variable ranges. Wrap-around is not modelled, so a
 * range that leaves its expression's type (where the value would wrap) is
 * unknown, as is one beyond 2^40 (not useful, and far from int64 overflow);
 * bounds are combined with overflow checks, never C signed overflow.
 */
#include "passes/range.h"

#include <stdlib.h>
#include <string.h>

#include "passes/lower_common.h"

static const tx_range UNKNOWN = {0, 0, 0};

/* Keep ranges far from int64 overflow: beyond 2^40 they are not useful. */
static tx_range checked(tx_range r) {
  const int64_t lim = INT64_C(1) << 40;
  if (!r.known || r.lo < -lim || r.hi > lim || r.lo > r.hi) return UNKNOWN;
  return r;
}

static tx_range rconst(int64_t v) {
  return checked((tx_range){1, v, v});
}

/* r, when every value in it is a value of integer type t (no wrap). */
static tx_range in_type(tx_dtype t, tx_range r) {
  if (!r.known || t.bits >= 64 || t.code == DT_BOOL) return r;
  int64_t lo = t.code == DT_UINT ? 0 : -(INT64_C(1) << (t.bits - 1));
  int64_t hi = t.code == DT_UINT ? (INT64_C(1) << t.bits) - 1 : (INT64_C(1) << (t.bits - 1)) - 1;
  return r.lo >= lo && r.hi <= hi ? r : UNKNOWN;
}

/* [lo, hi] from the products of the bounds, or unknown on overflow. */
static tx_range range_mul(tx_range a, tx_range b) {
  int64_t p[4];
  if (__builtin_mul_overflow(a.lo, b.lo, &p[0]) || __builtin_mul_overflow(a.lo, b.hi, &p[1]) ||
      __builtin_mul_overflow(a.hi, b.lo, &p[2]) || __builtin_mul_overflow(a.hi, b.hi, &p[3]))
    return UNKNOWN;
  tx_range r = {1, p[0], p[0]};
  for (int i = 1; i < 4; i++) {
    if (p[i] < r.lo) r.lo = p[i];
    if (p[i] > r.hi) r.hi = p[i];
  }
  return checked(r);
}

int64_t tx_range_fdiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

int64_t tx_range_fmod(int64_t a, int64_t b) {
  return a - tx_range_fdiv(a, b) * b;
}

void tx_range_set(tx_range_map *m, const tx_expr *v, tx_range r) {
  if (!r.known) return;
  if (m->n == m->cap) {
    uint32_t cap = m->cap ? m->cap * 2 : 32;
    const tx_expr **nv = tx_mem_realloc(m->alloc, (void *)m->vars, cap * sizeof *nv);
    if (nv) m->vars = nv;
    tx_range *nr = nv ? tx_mem_realloc(m->alloc, m->ranges, cap * sizeof *nr) : NULL;
    if (!nr) {
      m->oom = 1;
      return;
    }
    m->ranges = nr;
    m->cap = cap;
  }
  m->vars[m->n] = v;
  m->ranges[m->n++] = r;
}

static tx_range range_bin(const tx_range_map *m, const tx_expr *e) {
  tx_range a = tx_range_of(m, e->ops[0]), b = tx_range_of(m, e->ops[1]);
  int64_t c;
  int cb = tx_expr_int_literal(e->ops[1], &c);
  switch ((tx_expr_kind)e->kind) {
  /* Known ranges are within 2^40, so sums and differences cannot overflow. */
  case EXPR_ADD:
    return a.known && b.known ? checked((tx_range){1, a.lo + b.lo, a.hi + b.hi}) : UNKNOWN;
  case EXPR_SUB:
    return a.known && b.known ? checked((tx_range){1, a.lo - b.hi, a.hi - b.lo}) : UNKNOWN;
  case EXPR_MUL:
    return a.known && b.known ? range_mul(a, b) : UNKNOWN;
  case EXPR_FLOORDIV:
    if (cb && c > 0 && a.known)
      return (tx_range){1, tx_range_fdiv(a.lo, c), tx_range_fdiv(a.hi, c)};
    return UNKNOWN;
  case EXPR_FLOORMOD:
    if (cb && c > 0) {
      if (a.known && a.lo >= 0 && a.hi < c) return a;
      return checked((tx_range){1, 0, c - 1});
    }
    return UNKNOWN;
  case EXPR_MIN:
    if (a.known && b.known)
      return (tx_range){1, a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi};
    return UNKNOWN;
  case EXPR_MAX:
    if (a.known && b.known)
      return (tx_range){1, a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
    return UNKNOWN;
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STRING:
  case EXPR_VAR:
  case EXPR_DIV:
  case EXPR_MOD:
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
  case EXPR_LOAD:
  case EXPR_RAMP:
  case EXPR_BROADCAST:
  case EXPR_LET:
  case EXPR_CALL:
  case EXPR_TUPLE:
  case EXPR_BUFFER:
  case EXPR_REGION:
  case EXPR_SLICE:
  case EXPR_LAYOUT:
  case EXPR_LAMBDA:
  case EXPR_NONE:
  case TX_EXPR_KIND_COUNT:
    break;
  }
  return UNKNOWN;
}

tx_range tx_range_of(const tx_range_map *m, const tx_expr *e) {
  int64_t v;
  if (!e || !tx_dtype_is_int(e->dtype) || e->dtype.lanes != 1) return UNKNOWN;
  if (tx_expr_int_literal(e, &v)) return rconst(v);
  if (e->kind == EXPR_VAR) {
    for (uint32_t i = 0; i < m->n; i++)
      if (m->vars[i] == e) return m->ranges[i];
    return UNKNOWN;
  }
  if (e->kind == EXPR_CAST && e->nops == 1 && tx_dtype_is_int(e->ops[0]->dtype)) {
    /* A cast keeps the range when every value fits the target type. */
    tx_range r = tx_range_of(m, e->ops[0]);
    int64_t lim = e->dtype.bits >= 64 ? INT64_MAX : (INT64_C(1) << (e->dtype.bits - 1)) - 1;
    return r.known && r.lo >= 0 && r.hi <= lim ? r : UNKNOWN;
  }
  if (tx_expr_is_binary((tx_expr_kind)e->kind) && e->nops == 2)
    return in_type(e->dtype, range_bin(m, e));
  return UNKNOWN;
}

/* The extent of `T.launch_thread(tag, extent)` with a positive literal
 * extent, else 0. */
static int64_t launch_extent(const tx_expr *val) {
  int64_t ext;
  if (val->kind == EXPR_CALL && val->u.call.op && strcmp(val->u.call.op, "T.launch_thread") == 0 &&
      val->nops == 2 && tx_expr_int_literal(val->ops[1], &ext) && ext > 0)
    return ext;
  return 0;
}

void tx_range_record_bind(tx_range_map *m, const tx_stmt *s) {
  if (s->kind != STMT_BIND || !s->nvars || !s->nexprs || s->flag != BIND_PLAIN) return;
  const tx_expr *v = s->vars[0], *val = s->exprs[0];
  int64_t ext = launch_extent(val);
  if (!ext && val->kind == EXPR_CAST && val->nops == 1) ext = launch_extent(val->ops[0]);
  if (ext) {
    tx_range_set(m, v, checked((tx_range){1, 0, ext - 1}));
    return;
  }
  tx_range_set(m, v, tx_range_of(m, val));
}

void tx_range_record_loop(tx_range_map *m, const tx_expr *var, const tx_expr *begin,
                          const tx_expr *end, const tx_expr *step) {
  int64_t lo, hi, st = 1;
  if (step && !tx_expr_int_literal(step, &st)) return;
  if (var && tx_expr_int_literal(begin, &lo) && tx_expr_int_literal(end, &hi) && hi > lo && st > 0)
    tx_range_set(m, var, in_type(var->dtype, checked((tx_range){1, lo, hi - 1})));
}

void tx_range_clear(tx_range_map *m) {
  m->n = 0;
}

void tx_range_free(tx_range_map *m) {
  tx_mem_free(m->alloc, (void *)m->vars);
  tx_mem_free(m->alloc, m->ranges);
  *m = (tx_range_map){.alloc = m->alloc};
}
