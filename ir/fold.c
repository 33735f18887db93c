/*
 * fold.c - literal arithmetic with TIRx's semantics (see fold.h).
 *
 * Integer results are computed on uint64 bit patterns or with the one
 * overflowing case (INT64_MIN / -1) handled first, then wrapped to the
 * type, so no C signed overflow happens here. Float rounding is done with
 * frexp/ldexp/nearbyint, exact operations on doubles, never with a
 * double -> float conversion whose overflow C leaves undefined.
 */
#include "ir/fold.h"

#include <math.h>
#include <string.h>

int64_t tx_fold_wrap(tx_dtype t, int64_t v) {
  if (t.code == DT_BOOL) return v != 0;
  if (t.bits == 0 || t.bits >= 64) return v;
  uint64_t mask = (UINT64_C(1) << t.bits) - 1, u = (uint64_t)v & mask;
  if (t.code == DT_UINT) return (int64_t)u;
  if (u >> (t.bits - 1)) u |= ~mask; /* sign-extend */
  return (int64_t)u;
}

/* Truncating and flooring division of signed x by y (y != 0), wrapping
 * INT64_MIN / -1 to INT64_MIN. */
static int64_t trunc_div(int64_t x, int64_t y) {
  if (y == -1) return (int64_t)(UINT64_C(0) - (uint64_t)x);
  return x / y;
}
static int64_t trunc_mod(int64_t x, int64_t y) {
  return y == -1 ? 0 : x % y;
}
static int64_t floor_div(int64_t x, int64_t y) {
  int64_t q = trunc_div(x, y);
  if (y != -1 && x % y != 0 && ((x < 0) != (y < 0))) q--;
  return q;
}
static int64_t floor_mod(int64_t x, int64_t y) {
  int64_t r = trunc_mod(x, y);
  /* |r| < |y|, so r + y cannot overflow when their signs differ. */
  return r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}

static int is_u64(tx_dtype t) {
  return t.code == DT_UINT && t.bits == 64;
}

int tx_fold_int(tx_expr_kind k, tx_dtype t, int64_t x, int64_t y, int64_t *out) {
  x = tx_fold_wrap(t, x);
  y = tx_fold_wrap(t, y);
  uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
  int u64 = is_u64(t),
      is_div = k == EXPR_DIV || k == EXPR_MOD || k == EXPR_FLOORDIV || k == EXPR_FLOORMOD;
  if (is_div && y == 0) return 0;
  int64_t r = 0; /* every case sets it; GCC -O2 cannot see that */
  switch (k) {
  case EXPR_ADD:
    r = (int64_t)(ux + uy);
    break;
  case EXPR_SUB:
    r = (int64_t)(ux - uy);
    break;
  case EXPR_MUL:
    r = (int64_t)(ux * uy);
    break;
  case EXPR_DIV:
  case EXPR_FLOORDIV: /* unsigned: flooring is truncating */
    r = u64 ? (int64_t)(ux / uy) : k == EXPR_DIV ? trunc_div(x, y) : floor_div(x, y);
    break;
  case EXPR_MOD:
  case EXPR_FLOORMOD:
    r = u64 ? (int64_t)(ux % uy) : k == EXPR_MOD ? trunc_mod(x, y) : floor_mod(x, y);
    break;
  case EXPR_MIN:
    r = (u64 ? ux < uy : x < y) ? x : y;
    break;
  case EXPR_MAX:
    r = (u64 ? ux > uy : x > y) ? x : y;
    break;
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STRING:
  case EXPR_VAR:
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
    return 0;
  }
  *out = tx_fold_wrap(t, r);
  return 1;
}

/* ---- floats -------------------------------------------------------------------- */

typedef struct ieee_format {
  int precision; /* significand bits, the implicit one included */
  int emin, emax;
} ieee_format;

static int format_of(tx_dtype t, ieee_format *f) {
  if (t.code == DT_FLOAT && t.bits == 16)
    *f = (ieee_format){11, -14, 15};
  else if (t.code == DT_FLOAT && t.bits == 32)
    *f = (ieee_format){24, -126, 127};
  else if (t.code == DT_BFLOAT && t.bits == 16)
    *f = (ieee_format){8, -126, 127};
  else
    return 0;
  return 1;
}

double tx_fold_float_round(tx_dtype t, double v) {
  ieee_format f;
  if (!format_of(t, &f) || isnan(v) || isinf(v) || v == 0) return v;
  int e;
  (void)frexp(v, &e); /* |v| = m * 2^e with 0.5 <= m < 1: the leading bit is 2^(e-1) */
  int lead = e - 1 < f.emin ? f.emin : e - 1; /* subnormals keep the emin quantum */
  int quantum = lead - (f.precision - 1);     /* the exponent of the last kept bit */
  double r = ldexp(nearbyint(ldexp(v, -quantum)), quantum);
  double max = ldexp(2.0 - ldexp(1.0, 1 - f.precision), f.emax);
  if (fabs(r) > max) return v < 0 ? -INFINITY : INFINITY;
  return r;
}

int tx_fold_float_type(tx_dtype t) {
  ieee_format f;
  return t.lanes == 1 && ((t.code == DT_FLOAT && t.bits == 64) || format_of(t, &f));
}

/* ---- undefined literal operands ------------------------------------------------ */

static int literal_zero(const tx_expr *e) {
  if (e->kind == EXPR_BROADCAST && e->nops == 1) e = e->ops[0];
  return e->kind == EXPR_INT && e->dtype.lanes == 1 && tx_fold_wrap(e->dtype, e->u.ival) == 0;
}

static int is_shift(const tx_expr *e) {
  return e->kind == EXPR_CALL && e->nops == 2 && e->u.call.op &&
         (strcmp(e->u.call.op, "T.shift_left") == 0 || strcmp(e->u.call.op, "T.shift_right") == 0);
}

int tx_fold_check_operands(tx_diag_sink *diags, const tx_expr *e, tirx_span fallback) {
  tirx_span at = e->span.line ? e->span : fallback;
  tx_expr_kind k = (tx_expr_kind)e->kind;
  if ((k == EXPR_DIV || k == EXPR_MOD || k == EXPR_FLOORDIV || k == EXPR_FLOORMOD) &&
      e->nops == 2 && tx_dtype_is_int(e->ops[0]->dtype) && literal_zero(e->ops[1])) {
    tx_error(diags, at, "integer %s by zero: the divisor is the constant 0",
             k == EXPR_DIV || k == EXPR_FLOORDIV ? "division" : "modulo");
    return 1;
  }
  if (is_shift(e) && tx_dtype_is_int(e->ops[0]->dtype) && e->ops[1]->kind == EXPR_INT &&
      e->ops[1]->dtype.lanes == 1) {
    tx_dtype t = tx_dtype_elem(e->ops[0]->dtype);
    int64_t amount = tx_fold_wrap(e->ops[1]->dtype, e->ops[1]->u.ival);
    int negative = amount < 0 && !is_u64(e->ops[1]->dtype);
    if (negative || (uint64_t)amount >= t.bits) {
      char tb[32];
      if (negative)
        tx_error(diags, at, "shift amount %lld is negative: it must be in [0, %d) for %s",
                 (long long)amount, t.bits, tx_dtype_str(t, tb));
      else
        tx_error(diags, at, "shift amount %llu is out of range: it must be in [0, %d) for %s",
                 (unsigned long long)amount, t.bits, tx_dtype_str(t, tb));
      return 1;
    }
  }
  return 0;
}
