/*
 * legalize_bf16_fp8.c - the legalize-bf16-fp8 pass: arithmetic on bfloat16
 * and on the fp8/fp6/fp4 types is computed in float32, as TVM's
 * BF16ComputeLegalize / FP8ComputeLegalize do.
 *
 * Requires: a well-formed module (runs after simplify and cse).
 * Guarantees:
 *  - compute: every +, -, *, /, %, //, floormod, min, max and select whose
 *    result is a "narrow float" (bfloat16, float8_*, float6_*, float4_*) is
 *    computed in float32 (float32xN for vectors): each narrow operand is
 *    wrapped in T.Cast("float32", x) and the result is cast back,
 *    T.Cast("bfloat16", a_f32 * b_f32); comparisons of narrow operands
 *    compare their float32 values; math calls (T.exp, T.sqrt, ...) on narrow
 *    floats take and return float32 and are cast back. An operand that is
 *    itself a result of this pass (one of the casts back it made) is used in
 *    float32 directly: like TVM, a nested narrow computation rounds once,
 *    where its value is stored or bound, not after every operation. Casts
 *    the user wrote are kept (they round on purpose), except the exact round
 *    trip T.Cast(t, T.Cast("float32", x)) with x of narrow type t, which is x;
 *  - float16 stays native: every supported target (sm_80+) has half
 *    arithmetic;
 *  - storage: narrow-float buffers, loads and stores stay as they are. Every
 *    supported target stores bfloat16 natively (sm_80+), and CUDA 13's
 *    cuda_fp6.h/cuda_fp4.h convert in software on every architecture (their
 *    types compile for sm_80), so fp6/fp4 are accepted everywhere. fp8 needs
 *    sm_89 or newer (the first architecture with fp8 conversions and MMA):
 *    on an older target each fp8 type used is a located error at its first
 *    use, "float8_e4m3fn needs sm_89 or newer (target is sm_80)";
 *  - nothing else changes; without narrow floats the module is returned as
 *    it is.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "passes/lower_common.h"
#include "passes/pass.h"

/* Math calls whose narrow-float form is computed in float32 (every operand
 * and the result have the call's floating type). */
static const char *const MATH_OPS[] = {
    "T.exp",   "T.exp2",  "T.exp10",    "T.log",     "T.log2",      "T.log10", "T.log1p",
    "T.sqrt",  "T.rsqrt", "T.sin",      "T.cos",     "T.tan",       "T.asin",  "T.acos",
    "T.atan",  "T.sinh",  "T.cosh",     "T.tanh",    "T.erf",       "T.fabs",  "T.abs",
    "T.floor", "T.ceil",  "T.trunc",    "T.round",   "T.nearbyint", "T.pow",   "T.atan2",
    "T.fmod",  "T.hypot", "T.copysign", "T.sigmoid", "T.nextafter"};

typedef struct lg_state {
  tx_pass_ctx *pc;
  /* the casts back this pass made: their operand is the float32 value */
  const tx_expr **made;
  uint32_t nmade, capmade;
  int oom;
} lg_state;

static int is_fp8(tx_dtype t) {
  switch ((tx_dtype_code)t.code) {
  case DT_E4M3FN:
  case DT_E4M3FNUZ:
  case DT_E5M2:
  case DT_E5M2FNUZ:
  case DT_E4M3:
  case DT_E4M3B11FNUZ:
  case DT_E3M4:
  case DT_E8M0FNU:
    return 1;
  case DT_INT:
  case DT_UINT:
  case DT_FLOAT:
  case DT_BFLOAT:
  case DT_E2M3FN:
  case DT_E3M2FN:
  case DT_E2M1FN:
  case DT_BOOL:
  case DT_HANDLE:
  case DT_VOID:
    return 0;
  }
  return 0;
}

static int was_made(const lg_state *st, const tx_expr *e) {
  for (uint32_t i = 0; i < st->nmade; i++)
    if (st->made[i] == e) return 1;
  return 0;
}

static tx_dtype f32_like(tx_dtype t) {
  return tx_dt(DT_FLOAT, 32, t.lanes);
}

/* The float32 value of operand e: e itself unless it is narrow. */
static const tx_expr *promote(tx_mutator *m, const tx_expr *e) {
  lg_state *st = m->user;
  if (!tx_dtype_is_narrow_float(e->dtype)) return e;
  if (e->kind == EXPR_CAST && was_made(st, e)) return e->ops[0];
  /* A bfloat16 literal that bfloat16 holds exactly is that float32 literal
   * (no conversion at run time). */
  if (e->kind == EXPR_FLOAT && e->dtype.code == DT_BFLOAT && e->dtype.lanes == 1) {
    float f = (float)e->u.fval;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    if ((double)f == e->u.fval && (bits & 0xffffu) == 0) {
      const tx_expr *r = tx_float(m->ir, TX_FLOAT32, e->u.fval, e->span);
      if (!r) m->failed = 1;
      return r ? r : e;
    }
  }
  const tx_expr *r = tx_expr_new(m->ir, EXPR_CAST, f32_like(e->dtype), &e, 1, e->span);
  if (!r) m->failed = 1;
  return r ? r : e;
}

/* T.Cast(t, v) for a float32 value v, remembered as a cast back. */
static const tx_expr *cast_back(tx_mutator *m, tx_dtype t, const tx_expr *v, tirx_span span) {
  lg_state *st = m->user;
  const tx_expr *r = tx_expr_new(m->ir, EXPR_CAST, t, &v, 1, span);
  if (r && st->nmade == st->capmade) {
    uint32_t cap = st->capmade ? st->capmade * 2 : 32;
    const tx_expr **p = tx_mem_realloc(tx_ir_alloc(m->ir), (void *)st->made, cap * sizeof *p);
    if (!p)
      r = NULL;
    else {
      st->made = p;
      st->capmade = cap;
    }
  }
  if (!r) {
    m->failed = 1;
    return NULL;
  }
  st->made[st->nmade++] = r;
  return r;
}

/* A copy of e with operands ops (all promoted) and dtype t. */
static const tx_expr *rebuild(tx_mutator *m, const tx_expr *e, tx_dtype t, const tx_expr **ops) {
  const tx_expr *r = tx_expr_like(m->ir, e, t, ops, e->nops);
  if (!r) m->failed = 1;
  return r;
}

static int is_math_call(const tx_expr *e) {
  if (e->kind != EXPR_CALL || !e->u.call.op || e->u.call.kw.npos != e->nops || !e->nops) return 0;
  for (size_t i = 0; i < sizeof MATH_OPS / sizeof MATH_OPS[0]; i++)
    if (strcmp(e->u.call.op, MATH_OPS[i]) == 0) {
      for (uint32_t k = 0; k < e->nops; k++)
        if (!tx_dtype_eq(e->ops[k]->dtype, e->dtype)) return 0;
      return 1;
    }
  return 0;
}

static int is_arith(tx_expr_kind k) {
  return k == EXPR_ADD || k == EXPR_SUB || k == EXPR_MUL || k == EXPR_DIV || k == EXPR_MOD ||
         k == EXPR_FLOORDIV || k == EXPR_FLOORMOD || k == EXPR_MIN || k == EXPR_MAX;
}

/* Rewrite one node whose operands are already legal. */
static const tx_expr *legalize(tx_mutator *m, const tx_expr *e) {
  tx_expr_kind k = (tx_expr_kind)e->kind;
  const tx_expr *ops[3];
  if (k == EXPR_CAST && e->nops == 1) {
    const tx_expr *in = e->ops[0];
    /* T.Cast(t, T.Cast("float32", x)) with x of narrow type t: float32 holds
     * every narrow value exactly, so the round trip is x. */
    if (tx_dtype_is_narrow_float(e->dtype) && in->kind == EXPR_CAST && in->nops == 1 &&
        tx_dtype_eq(in->dtype, f32_like(e->dtype)) && tx_dtype_eq(in->ops[0]->dtype, e->dtype))
      return in->ops[0];
    /* The float32 value of a legalized computation is already at hand. */
    if (tx_dtype_eq(e->dtype, f32_like(in->dtype)) && tx_dtype_is_narrow_float(in->dtype) &&
        in->kind == EXPR_CAST && was_made(m->user, in))
      return in->ops[0];
    return e;
  }
  if (is_arith(k) && e->nops == 2 && tx_dtype_is_narrow_float(e->dtype)) {
    for (int i = 0; i < 2; i++)
      ops[i] = promote(m, e->ops[i]);
    const tx_expr *v = rebuild(m, e, f32_like(e->dtype), ops);
    return v ? cast_back(m, e->dtype, v, e->span) : NULL;
  }
  if (tx_expr_is_compare(k) && e->nops == 2 &&
      (tx_dtype_is_narrow_float(e->ops[0]->dtype) || tx_dtype_is_narrow_float(e->ops[1]->dtype))) {
    for (int i = 0; i < 2; i++)
      ops[i] = promote(m, e->ops[i]);
    return rebuild(m, e, e->dtype, ops);
  }
  if (k == EXPR_SELECT && e->nops == 3 && tx_dtype_is_narrow_float(e->dtype)) {
    ops[0] = e->ops[0];
    for (int i = 1; i < 3; i++)
      ops[i] = promote(m, e->ops[i]);
    const tx_expr *v = rebuild(m, e, f32_like(e->dtype), ops);
    return v ? cast_back(m, e->dtype, v, e->span) : NULL;
  }
  if (is_math_call(e) && tx_dtype_is_narrow_float(e->dtype)) {
    const tx_expr **args = tx_mem_calloc(tx_ir_alloc(m->ir), e->nops, sizeof *args);
    if (!args) {
      m->failed = 1;
      return NULL;
    }
    for (uint32_t i = 0; i < e->nops; i++)
      args[i] = promote(m, e->ops[i]);
    const tx_expr *v = rebuild(m, e, f32_like(e->dtype), args);
    tx_mem_free(tx_ir_alloc(m->ir), args);
    return v ? cast_back(m, e->dtype, v, e->span) : NULL;
  }
  return e;
}

static const tx_expr *lg_expr(tx_mutator *m, const tx_expr *e) {
  const tx_expr *c = tx_mutate_expr_children(m, e);
  if (m->failed) return e;
  const tx_expr *r = legalize(m, c);
  return r && !m->failed ? r : e;
}

/* ---- fp8 on targets without it ------------------------------------------------ */

typedef struct fp8_check {
  tx_visitor v;
  tx_pass_ctx *pc;
  uint32_t reported; /* bit per dtype code already reported */
  int errors;
} fp8_check;

static void check_type(fp8_check *c, tx_dtype t, tirx_span span) {
  if (!is_fp8(t) || (c->reported & (1u << t.code))) return;
  c->reported |= 1u << t.code;
  c->errors++;
  char buf[32];
  tx_error(c->pc->diags, span, "%s needs sm_89 or newer (target is %s)",
           tx_dtype_str(tx_dtype_elem(t), buf), c->pc->target->arch ? c->pc->target->arch : "?");
  if (tx_diag_saturated(c->pc->diags)) c->v.stop = 1;
}

static int check_expr(tx_visitor *v, const tx_expr *e) {
  fp8_check *c = (fp8_check *)v;
  check_type(c, e->dtype, e->span);
  if (e->kind == EXPR_VAR && e->u.var.has_pointee) check_type(c, e->u.var.pointee, e->span);
  return 1;
}

static int check_buffer(tx_visitor *v, const tx_buffer *b) {
  check_type((fp8_check *)v, b->dtype, b->span);
  return 1;
}

/* ---- the pass ------------------------------------------------------------------- */

static const tx_func *legalize_func(void *state, const tx_func *f) {
  lg_state *st = state;
  tx_mutator m = {.ir = st->pc->ir, .user = st, .expr = lg_expr};
  const tx_func *r = tx_mutate_func(&m, f);
  if (m.failed) st->oom = 1;
  return st->oom ? NULL : r;
}

tirx_status tx_pass_legalize_bf16_fp8(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  *out = in;
  if (pc->target && !tx_target_has(pc->target, TX_FEAT_FP8)) {
    fp8_check c = {.pc = pc};
    c.v.user = &c;
    c.v.pre_expr = check_expr;
    c.v.on_buffer = check_buffer;
    tx_visit_module(&c.v, in);
    if (c.errors) return TIRX_ERR_INPUT;
  }
  /* Every rewrite above involves an expression of narrow-float type. */
  if (!(tx_lc_census(pc, in) & TX_LC_HAS_NARROW_FLOAT)) return TIRX_OK;
  lg_state st = {.pc = pc};
  tirx_status status = tx_lc_each_func(pc, in, legalize_func, &st, out);
  if (status == TIRX_OK && st.oom) status = TIRX_ERR_NOMEM;
  if (status != TIRX_OK) *out = in;
  tx_mem_free(tx_ir_alloc(pc->ir), (void *)st.made);
  return status;
}
