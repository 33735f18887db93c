/*
 * modular.c - the modular-set analysis (modular.h): sets {coeff * k + base}
 * through integer arithmetic, every step checked for overflow (an
 * overflowing step knows nothing).
 *
 * Must not: claim a residue the arithmetic does not prove.
 */
#include "ir/modular.h"

static const tx_modset UNKNOWN = {1, 0};

static int64_t gcd64(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? 0 - (uint64_t)a : (uint64_t)a, y = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
  while (y) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x > (uint64_t)INT64_MAX ? 1 : (int64_t)x; /* 1 divides everything: nothing claimed */
}

tx_modset tx_modset_make(int64_t coeff, int64_t base) {
  if (coeff == INT64_MIN) return UNKNOWN;
  if (coeff < 0) coeff = -coeff;
  if (coeff) {
    base %= coeff;
    if (base < 0) base += coeff;
  }
  return (tx_modset){coeff, base};
}

static tx_modset add_sub(tx_modset a, tx_modset b, int sub) {
  int64_t base;
  if (sub ? __builtin_sub_overflow(a.base, b.base, &base)
          : __builtin_add_overflow(a.base, b.base, &base))
    return UNKNOWN;
  return tx_modset_make(gcd64(a.coeff, b.coeff), base);
}

/* (c1 k + b1)(c2 j + b2) = c1 c2 kj + c1 b2 k + c2 b1 j + b1 b2. */
static tx_modset mul(tx_modset a, tx_modset b) {
  int64_t cc, cb, bc, bb;
  if (__builtin_mul_overflow(a.coeff, b.coeff, &cc) ||
      __builtin_mul_overflow(a.coeff, b.base, &cb) ||
      __builtin_mul_overflow(b.coeff, a.base, &bc) || __builtin_mul_overflow(a.base, b.base, &bb))
    return UNKNOWN;
  return tx_modset_make(gcd64(gcd64(cc, cb), bc), bb);
}

static int64_t floordiv64(int64_t a, int64_t b) {
  int64_t q = a / b;
  return q - (a % b != 0 && (a % b < 0) != (b < 0));
}

/* x // k and x % k (floor semantics) for a literal k > 0. */
static tx_modset floor_op(tx_modset a, int64_t k, int is_div) {
  if (is_div) {
    /* c k' n + b over k: exact when k divides the coefficient */
    if (a.coeff % k != 0) return UNKNOWN;
    return tx_modset_make(a.coeff / k, floordiv64(a.base, k));
  }
  if (a.coeff == 0) {
    int64_t r = a.base % k;
    return tx_modset_make(0, r < 0 ? r + k : r);
  }
  return tx_modset_make(gcd64(a.coeff, k), a.base);
}

/* Either of two sets (Select, min, max). */
static tx_modset either(tx_modset a, tx_modset b) {
  int64_t d;
  if (__builtin_sub_overflow(a.base, b.base, &d)) return UNKNOWN;
  return tx_modset_make(gcd64(gcd64(a.coeff, b.coeff), d), a.base);
}

tx_modset tx_modular(const tx_expr *e, tx_modset_lookup_fn lookup, void *user) {
  if (!e || !tx_dtype_is_int(e->dtype) || e->dtype.lanes != 1) return UNKNOWN;
  int64_t k;
  switch ((tx_expr_kind)e->kind) {
  case EXPR_INT:
    return (tx_modset){0, e->u.ival};
  case EXPR_VAR: {
    const tx_modset *m = lookup ? lookup(user, e) : NULL;
    return m ? *m : UNKNOWN;
  }
  case EXPR_ADD:
  case EXPR_SUB:
    return add_sub(tx_modular(e->ops[0], lookup, user), tx_modular(e->ops[1], lookup, user),
                   e->kind == EXPR_SUB);
  case EXPR_MUL:
    return mul(tx_modular(e->ops[0], lookup, user), tx_modular(e->ops[1], lookup, user));
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
    if (!tx_expr_int_literal(e->ops[1], &k) || k <= 0) return UNKNOWN;
    return floor_op(tx_modular(e->ops[0], lookup, user), k, e->kind == EXPR_FLOORDIV);
  case EXPR_MIN:
  case EXPR_MAX:
    return either(tx_modular(e->ops[0], lookup, user), tx_modular(e->ops[1], lookup, user));
  case EXPR_SELECT:
    return either(tx_modular(e->ops[1], lookup, user), tx_modular(e->ops[2], lookup, user));
  case EXPR_CAST:
    /* a widening (or same-width) integer conversion keeps the value */
    if (!tx_dtype_is_int(e->ops[0]->dtype) || e->dtype.bits < e->ops[0]->dtype.bits) return UNKNOWN;
    return tx_modular(e->ops[0], lookup, user);
  case EXPR_DIV: /* truncating: its rounding depends on the sign */
  case EXPR_MOD:
  case EXPR_FLOAT:
  case EXPR_STRING:
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE:
  case EXPR_AND:
  case EXPR_OR:
  case EXPR_NOT:
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

tx_modset tx_modset_add(tx_modset a, tx_modset b) {
  return add_sub(a, b, 0);
}

int tx_modset_multiple_of(tx_modset m, int64_t c) {
  if (c <= 0) return 0;
  return m.coeff % c == 0 && m.base % c == 0;
}

int tx_expr_multiple_of(const tx_expr *e, int64_t c) {
  return tx_modset_multiple_of(tx_modular(e, NULL, NULL), c);
}
