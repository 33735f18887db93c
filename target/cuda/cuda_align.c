/*
 * cuda_align.c - what the CUDA code generator can prove about the alignment
 * of a vector access (docs/codegen.md "Vectors", Memory).
 *
 * A stride-1 Ramp access is one vector access (`*(float4*)(A_ptr + i)`)
 * only when its address is provably a multiple of the vector type's
 * alignment; otherwise the hardware faults (misaligned address), so the
 * access goes element by element instead. The proof has two parts:
 *  - the storage's start: kernel parameters as the launcher passes them
 *    (TVM's 64-byte data alignment, or the buffer's own `align`, which the
 *    host checks), `alignas` shared arrays, the dynamic arena's offsets;
 *    local arrays and pointer variables only as far as their elements;
 *  - the index: its modular set {coeff * k + base} (TVM's
 *    arith::ModularSet), from literals, arithmetic and the variables the
 *    kernel binds (cse's `cse_v1 = (bx * 128 + tx) * 8`, loop variables).
 *
 * Must not: claim an alignment nothing in the IR or the launch promises.
 */
#include "target/cuda/cuda_internal.h"

static const cuda_modset UNKNOWN = {1, 0};

static int64_t gcd64(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? 0 - (uint64_t)a : (uint64_t)a, y = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
  while (y) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x > (uint64_t)INT64_MAX ? 0 : (int64_t)x;
}

/* {coeff * k + base} with coeff >= 0 and, for coeff > 0, 0 <= base < coeff. */
static cuda_modset modset(int64_t coeff, int64_t base) {
  if (coeff == INT64_MIN) return UNKNOWN;
  if (coeff < 0) coeff = -coeff;
  if (coeff) {
    base %= coeff;
    if (base < 0) base += coeff;
  }
  return (cuda_modset){coeff, base};
}

static cuda_modset add(cuda_modset a, cuda_modset b, int sub) {
  int64_t base;
  if (sub ? __builtin_sub_overflow(a.base, b.base, &base)
          : __builtin_add_overflow(a.base, b.base, &base))
    return UNKNOWN;
  return modset(gcd64(a.coeff, b.coeff), base);
}

/* (c1 k + b1)(c2 j + b2) = c1 c2 kj + c1 b2 k + c2 b1 j + b1 b2. */
static cuda_modset mul(cuda_modset a, cuda_modset b) {
  int64_t cc, cb, bc, bb;
  if (__builtin_mul_overflow(a.coeff, b.coeff, &cc) ||
      __builtin_mul_overflow(a.coeff, b.base, &cb) ||
      __builtin_mul_overflow(b.coeff, a.base, &bc) || __builtin_mul_overflow(a.base, b.base, &bb))
    return UNKNOWN;
  return modset(gcd64(gcd64(cc, cb), bc), bb);
}

static int64_t floordiv64(int64_t a, int64_t b) {
  int64_t q = a / b;
  return q - (a % b != 0 && (a % b < 0) != (b < 0));
}

/* x // k and x % k (floor semantics) for a literal k > 0. */
static cuda_modset floor_op(cuda_modset a, int64_t k, int is_div) {
  if (is_div) {
    /* c k' n + b over k: exact when k divides the coefficient */
    if (a.coeff % k != 0) return UNKNOWN;
    return modset(a.coeff / k, floordiv64(a.base, k));
  }
  if (a.coeff == 0) return modset(0, a.base - floordiv64(a.base, k) * k);
  return modset(gcd64(a.coeff, k), a.base);
}

/* Either of two sets (Select, min, max). */
static cuda_modset either(cuda_modset a, cuda_modset b) {
  int64_t d;
  if (__builtin_sub_overflow(a.base, b.base, &d)) return UNKNOWN;
  return modset(gcd64(gcd64(a.coeff, b.coeff), d), a.base);
}

cuda_modset cuda_modular(const cuda_cg *g, const tx_expr *e) {
  if (!e || !tx_dtype_is_int(e->dtype) || e->dtype.lanes != 1) return UNKNOWN;
  int64_t k;
  switch ((tx_expr_kind)e->kind) {
  case EXPR_INT:
    return (cuda_modset){0, e->u.ival};
  case EXPR_VAR: {
    const cuda_modset *m = tx_ptrmap_get(&g->modsets, e);
    return m ? *m : UNKNOWN;
  }
  case EXPR_ADD:
  case EXPR_SUB:
    return add(cuda_modular(g, e->ops[0]), cuda_modular(g, e->ops[1]), e->kind == EXPR_SUB);
  case EXPR_MUL:
    return mul(cuda_modular(g, e->ops[0]), cuda_modular(g, e->ops[1]));
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
    if (!tx_expr_int_literal(e->ops[1], &k) || k <= 0) return UNKNOWN;
    return floor_op(cuda_modular(g, e->ops[0]), k, e->kind == EXPR_FLOORDIV);
  case EXPR_MIN:
  case EXPR_MAX:
    return either(cuda_modular(g, e->ops[0]), cuda_modular(g, e->ops[1]));
  case EXPR_SELECT:
    return either(cuda_modular(g, e->ops[1]), cuda_modular(g, e->ops[2]));
  case EXPR_CAST:
    /* a widening (or same-width) integer conversion keeps the value */
    if (!tx_dtype_is_int(e->ops[0]->dtype) || e->dtype.bits < e->ops[0]->dtype.bits) return UNKNOWN;
    return cuda_modular(g, e->ops[0]);
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

void cuda_note_modular(cuda_cg *g, const tx_expr *var, cuda_modset m) {
  if (m.coeff == 1) return; /* nothing known */
  cuda_modset *p = tx_arena_alloc(g->ir.arena, sizeof *p);
  if (!p || !tx_ptrmap_put(&g->modsets, var, p)) {
    g->nomem = 1;
    return;
  }
  *p = m;
}

void cuda_note_loop_var(cuda_cg *g, const tx_expr *var, const tx_expr *begin, const tx_expr *step) {
  int64_t s = 1;
  if (step && !tx_expr_int_literal(step, &s)) return;
  cuda_modset b = begin ? cuda_modular(g, begin) : (cuda_modset){0, 0};
  /* begin + step * k */
  cuda_note_modular(g, var, modset(gcd64(b.coeff, s), b.base));
}

/* a mod m in [0, m), m > 0. */
static int64_t pmod(int64_t a, int64_t m) {
  int64_t r = a % m;
  return r < 0 ? r + m : r;
}

int64_t cuda_pow2_align(int64_t bytes) {
  return bytes > 0 ? bytes & -bytes : 1;
}

int cuda_access_aligned(cuda_cg *g, const tx_buffer *b, const tx_expr *index, int64_t bytes) {
  const cuda_storage *s = b->data ? cuda_find_storage(g, b->data) : NULL;
  int64_t eb = tx_cuda_elem_bytes(b->dtype);
  if (!s || bytes <= 0 || eb <= 0) return 0;
  /* Any element is aligned to its own size (a float3 needs only 4). */
  if (bytes <= eb && eb % bytes == 0) return 1;
  if (s->align % bytes != 0) return 0;
  /* start + byte_offset + eb * (coeff * k + base), every k */
  cuda_modset m = cuda_modular(g, index);
  int64_t c = pmod(m.coeff, bytes) * pmod(eb, bytes) % bytes;
  int64_t at = (pmod(s->byte_offset, bytes) + pmod(m.base, bytes) * pmod(eb, bytes)) % bytes;
  return c == 0 && at == 0;
}
