/*
 * simplify.c - the simplify pass: constant folding, algebraic identities and
 * range-based floordiv/floormod rules on integer index arithmetic.
 *
 * Requires: nothing beyond a well-formed module (it runs after
 * flatten-buffer in the pipeline, but any stage's output is fine).
 * Guarantees:
 *  - integer and bool operations on literals are folded with TIRx semantics
 *    (floordiv/floormod round toward -inf, T.truncdiv/T.truncmod toward
 *    zero, results wrap to the type's width: ir/fold.h);
 *  - an integer division or modulo by a constant 0, or a T.shift_left /
 *    T.shift_right by a constant outside [0, bits), including one that only
 *    folding makes constant, is a located error (as TVM rejects them);
 *  - identities x+0, x-0, x*1, x*0 (integers only), x//1, x%1, min/max of
 *    equal operands, and/or/not/select with literal operands; a literal
 *    operand of a commutative op goes right; (x+c1)+c2 and (x*c1)*c2 combine;
 *  - with the ranges of loop variables (literal bounds), launch_thread
 *    bindings ([0, extent)) and plain bindings of integer expressions:
 *    x // c -> 0 and x % c -> x for 0 <= x < c, (x*c + y) // c -> x + y // c,
 *    (x*c) % c -> 0, (x*c + y) % c -> y % c (c > 0), comparisons decided by
 *    the ranges fold, and an `if` on a literal condition keeps one arm;
 *  - float +, -, * of two literals of the same IEEE dtype (float16,
 *    bfloat16, float32, float64) fold as IEEE arithmetic in that type: each
 *    operand is first its value in the type (a float32 literal 1e39 is
 *    inf), the result is rounded to the type (overflow gives inf, inf - inf
 *    NaN, NaN stays NaN); fp8/fp6/fp4 literals are not folded;
 *  - idempotent: simplifying its own output changes nothing.
 * Variables are identities, so a range is recorded once per variable for
 * the whole function and needs no scoping. The range analysis itself is
 * passes/range.h, shared with narrow-datatype.
 */
#include <stdlib.h>
#include <string.h>

#include "ir/equal.h"
#include "ir/fold.h"
#include "passes/lower_common.h"
#include "passes/pass.h"
#include "passes/range.h"

static const tirx_span NOSPAN = {0};

typedef tx_range range;

typedef struct sp_state {
  tx_pass_ctx *pc;
  tx_ir *ir;
  tx_range_map ranges; /* shared range analysis (passes/range.h) */
  tirx_span stmt_span; /* the innermost statement being simplified, for errors */
  int oom, errors;
} sp_state;

static range range_of(sp_state *st, const tx_expr *e) {
  return tx_range_of(&st->ranges, e);
}

/* ---- rewriting one node ---------------------------------------------------------- */

static const tx_expr *simp(sp_state *st, const tx_expr *e);

static const tx_expr *mk_int(sp_state *st, tx_dtype t, int64_t v) {
  return tx_lc_int(st->ir, t, v);
}

static const tx_expr *mk_bin(sp_state *st, tx_expr_kind k, const tx_expr *a, const tx_expr *b) {
  if (!a || !b) return NULL;
  return simp(st, tx_binary(st->ir, k, a, b, NOSPAN));
}

static const tx_expr *mk_bool(sp_state *st, const tx_expr *like, int v) {
  return tx_lc_int(st->ir, tx_dt(DT_BOOL, 1, like->dtype.lanes), v);
}

static int is_commutative(tx_expr_kind k) {
  return k == EXPR_ADD || k == EXPR_MUL || k == EXPR_MIN || k == EXPR_MAX || k == EXPR_EQ ||
         k == EXPR_NE || k == EXPR_AND || k == EXPR_OR;
}

/* x == k * q for a literal multiplier q of x: returns the other factor. */
static const tx_expr *multiple_of(const tx_expr *x, int64_t c, int64_t *q) {
  int64_t m;
  if (x->kind == EXPR_MUL && tx_expr_int_literal(x->ops[1], &m) && m % c == 0) {
    *q = m / c;
    return x->ops[0];
  }
  return NULL;
}

static const tx_expr *fold_consts(sp_state *st, const tx_expr *e, int64_t x, int64_t y) {
  tx_dtype t = e->ops[0]->dtype;
  x = tx_fold_wrap(t, x);
  y = tx_fold_wrap(t, y);
  uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
  int is_uint = t.code == DT_UINT && t.bits == 64;
  int64_t r;
  if (tx_fold_int((tx_expr_kind)e->kind, t, x, y, &r)) return mk_int(st, e->dtype, r);
  switch ((tx_expr_kind)e->kind) {
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
  case EXPR_DIV:
  case EXPR_MOD:
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
  case EXPR_MIN:
  case EXPR_MAX:
    return e; /* no value: a division by zero, reported by simp */
  case EXPR_EQ:
    return mk_bool(st, e, x == y);
  case EXPR_NE:
    return mk_bool(st, e, x != y);
  case EXPR_LT:
    return mk_bool(st, e, is_uint ? ux < uy : x < y);
  case EXPR_LE:
    return mk_bool(st, e, is_uint ? ux <= uy : x <= y);
  case EXPR_GT:
    return mk_bool(st, e, is_uint ? ux > uy : x > y);
  case EXPR_GE:
    return mk_bool(st, e, is_uint ? ux >= uy : x >= y);
  case EXPR_AND:
    return mk_bool(st, e, x && y);
  case EXPR_OR:
    return mk_bool(st, e, x || y);
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STRING:
  case EXPR_VAR:
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
  return e;
}

/* Decide a comparison from operand ranges: 1 true, 0 false, -1 unknown. */
static int decide(tx_expr_kind k, range a, range b) {
  if (!a.known || !b.known) return -1;
  if (k == EXPR_LT) return a.hi < b.lo ? 1 : a.lo >= b.hi ? 0 : -1;
  if (k == EXPR_LE) return a.hi <= b.lo ? 1 : a.lo > b.hi ? 0 : -1;
  if (k == EXPR_GT) return a.lo > b.hi ? 1 : a.hi <= b.lo ? 0 : -1;
  if (k == EXPR_GE) return a.lo >= b.hi ? 1 : a.hi < b.lo ? 0 : -1;
  if (k == EXPR_EQ) return (a.hi < b.lo || b.hi < a.lo) ? 0 : -1;
  if (k == EXPR_NE) return (a.hi < b.lo || b.hi < a.lo) ? 1 : -1;
  return -1;
}

static const tx_expr *simp_binary(sp_state *st, const tx_expr *e) {
  tx_expr_kind k = (tx_expr_kind)e->kind;
  const tx_expr *a = e->ops[0], *b = e->ops[1];
  int64_t x = 0, y = 0;
  int ca = tx_expr_int_literal(a, &x), cb = tx_expr_int_literal(b, &y);
  int ints = tx_dtype_is_int(a->dtype) && tx_dtype_is_int(b->dtype);
  int bools = tx_dtype_is_bool(a->dtype) && tx_dtype_is_bool(b->dtype);
  if ((ints || bools) && ca && cb) return fold_consts(st, e, x, y);
  if (a->kind == EXPR_FLOAT && b->kind == EXPR_FLOAT && tx_dtype_eq(a->dtype, b->dtype) &&
      tx_fold_float_type(a->dtype) && (k == EXPR_ADD || k == EXPR_SUB || k == EXPR_MUL)) {
    /* IEEE arithmetic in the type. The operands are values of the type, so
     * the double product is exact, and a double sum rounded again to the
     * type is the correctly rounded sum (53 >= 2 * 24 + 2 bits). */
    tx_dtype t = a->dtype;
    double fx = tx_fold_float_round(t, a->u.fval), fy = tx_fold_float_round(t, b->u.fval);
    double r = k == EXPR_ADD ? fx + fy : k == EXPR_SUB ? fx - fy : fx * fy;
    return tx_float(st->ir, t, tx_fold_float_round(t, r), e->span);
  }
  if (bools) {
    if (k == EXPR_AND && (ca || cb)) return (ca ? x : y) ? (ca ? b : a) : mk_bool(st, e, 0);
    if (k == EXPR_OR && (ca || cb)) return (ca ? x : y) ? mk_bool(st, e, 1) : (ca ? b : a);
  }
  if (!ints) return e;
  if (ca && !cb && is_commutative(k)) return mk_bin(st, k, b, a);
  if ((k == EXPR_MIN || k == EXPR_MAX) && tx_expr_equal_with(tx_ir_alloc(st->ir), a, b)) return a;
  if (k == EXPR_SUB && tx_expr_equal_with(tx_ir_alloc(st->ir), a, b))
    return mk_int(st, e->dtype, 0);
  range ra = range_of(st, a), rb = range_of(st, b);
  if (tx_expr_is_compare(k)) {
    int d = decide(k, ra, rb);
    return d < 0 ? e : mk_bool(st, e, d);
  }
  if (k == EXPR_MIN || k == EXPR_MAX) {
    if (ra.known && rb.known && (k == EXPR_MIN ? ra.hi <= rb.lo : ra.lo >= rb.hi)) return a;
    if (ra.known && rb.known && (k == EXPR_MIN ? rb.hi <= ra.lo : rb.lo >= ra.hi)) return b;
    return e;
  }
  /* (x // c) * c + x % c -> x */
  if (k == EXPR_ADD && b->kind == EXPR_FLOORMOD && a->kind == EXPR_MUL &&
      a->ops[0]->kind == EXPR_FLOORDIV &&
      tx_expr_equal_with(tx_ir_alloc(st->ir), a->ops[1], b->ops[1]) &&
      tx_expr_equal_with(tx_ir_alloc(st->ir), a->ops[0]->ops[1], b->ops[1]) &&
      tx_expr_equal_with(tx_ir_alloc(st->ir), a->ops[0]->ops[0], b->ops[0]))
    return b->ops[0];
  if (!cb) return e;
  int64_t z;
  switch (k) {
  case EXPR_ADD:
  case EXPR_SUB: {
    if (y == 0) return a;
    /* Constants combine modulo 2^64 (then wrap to the type), as the
     * operations they replace do: never C signed overflow. */
    uint64_t add = k == EXPR_ADD ? (uint64_t)y : UINT64_C(0) - (uint64_t)y;
    /* (x + c1) + c2 -> x + (c1 + c2) */
    if (a->kind == EXPR_ADD && tx_expr_int_literal(a->ops[1], &z))
      return mk_bin(st, EXPR_ADD, a->ops[0], mk_int(st, e->dtype, (int64_t)((uint64_t)z + add)));
    if (a->kind == EXPR_SUB && tx_expr_int_literal(a->ops[1], &z))
      return mk_bin(st, EXPR_ADD, a->ops[0], mk_int(st, e->dtype, (int64_t)(add - (uint64_t)z)));
    if (k == EXPR_SUB && y < 0 && y != INT64_MIN)
      return mk_bin(st, EXPR_ADD, a, mk_int(st, e->dtype, -y));
    if (k == EXPR_ADD && y < 0 && y != INT64_MIN)
      return mk_bin(st, EXPR_SUB, a, mk_int(st, e->dtype, -y));
    return e;
  }
  case EXPR_MUL:
    if (y == 1) return a;
    if (y == 0) return mk_int(st, e->dtype, 0);
    if (a->kind == EXPR_MUL && tx_expr_int_literal(a->ops[1], &z))
      return mk_bin(st, EXPR_MUL, a->ops[0],
                    mk_int(st, e->dtype, (int64_t)((uint64_t)z * (uint64_t)y)));
    return e;
  case EXPR_DIV:
  case EXPR_MOD:
    if (y == 1) return k == EXPR_DIV ? a : mk_int(st, e->dtype, 0);
    /* Truncation equals flooring for non-negative operands. */
    if (y > 0 && ra.known && ra.lo >= 0)
      return mk_bin(st, k == EXPR_DIV ? EXPR_FLOORDIV : EXPR_FLOORMOD, a, b);
    return e;
  case EXPR_FLOORDIV: {
    if (y == 1) return a;
    if (y <= 0) return e;
    if (ra.known && tx_range_fdiv(ra.lo, y) == tx_range_fdiv(ra.hi, y))
      return mk_int(st, e->dtype, tx_range_fdiv(ra.lo, y));
    int64_t q;
    const tx_expr *f;
    if ((f = multiple_of(a, y, &q))) return mk_bin(st, EXPR_MUL, f, mk_int(st, e->dtype, q));
    if (a->kind == EXPR_ADD) {
      if ((f = multiple_of(a->ops[0], y, &q)))
        return mk_bin(st, EXPR_ADD, mk_bin(st, EXPR_MUL, f, mk_int(st, e->dtype, q)),
                      mk_bin(st, EXPR_FLOORDIV, a->ops[1], b));
      if ((f = multiple_of(a->ops[1], y, &q)))
        return mk_bin(st, EXPR_ADD, mk_bin(st, EXPR_MUL, f, mk_int(st, e->dtype, q)),
                      mk_bin(st, EXPR_FLOORDIV, a->ops[0], b));
    }
    /* (x // c1) // c2 -> x // (c1 * c2) */
    if (a->kind == EXPR_FLOORDIV && tx_expr_int_literal(a->ops[1], &z) && z > 0 &&
        z < (INT64_C(1) << 31) && y < (INT64_C(1) << 31))
      return mk_bin(st, EXPR_FLOORDIV, a->ops[0], mk_int(st, e->dtype, z * y));
    return e;
  }
  case EXPR_FLOORMOD: {
    if (y == 1) return mk_int(st, e->dtype, 0);
    if (y <= 0) return e;
    if (ra.known && ra.lo >= 0 && ra.hi < y) return a;
    int64_t q;
    if (multiple_of(a, y, &q)) return mk_int(st, e->dtype, 0);
    if (a->kind == EXPR_ADD) {
      if (multiple_of(a->ops[0], y, &q)) return mk_bin(st, EXPR_FLOORMOD, a->ops[1], b);
      if (multiple_of(a->ops[1], y, &q)) return mk_bin(st, EXPR_FLOORMOD, a->ops[0], b);
    }
    /* (x % c1) % c2 -> x % c2 when c2 divides c1 */
    if (a->kind == EXPR_FLOORMOD && tx_expr_int_literal(a->ops[1], &z) && z > 0 && z % y == 0)
      return mk_bin(st, EXPR_FLOORMOD, a->ops[0], b);
    return e;
  }
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STRING:
  case EXPR_VAR:
  case EXPR_MIN:
  case EXPR_MAX:
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
  return e;
}

/* Simplify one node whose operands are already simple. */
static const tx_expr *simp(sp_state *st, const tx_expr *e) {
  if (!e) {
    st->oom = 1;
    return NULL;
  }
  int64_t x;
  if (tx_fold_check_operands(st->pc->diags, e, st->stmt_span)) {
    st->errors++;
    return e;
  }
  if (tx_expr_is_binary((tx_expr_kind)e->kind) && e->nops == 2 && e->dtype.lanes == 1) {
    const tx_expr *r = simp_binary(st, e);
    if (!r) st->oom = 1;
    return r ? r : e;
  }
  if (e->kind == EXPR_NOT && e->nops == 1) {
    if (tx_expr_int_literal(e->ops[0], &x)) return mk_bool(st, e, !x);
    if (e->ops[0]->kind == EXPR_NOT) return e->ops[0]->ops[0];
  }
  if (e->kind == EXPR_SELECT && e->nops == 3 && tx_expr_int_literal(e->ops[0], &x))
    return x ? e->ops[1] : e->ops[2];
  if (e->kind == EXPR_CAST && e->nops == 1 && tx_expr_int_literal(e->ops[0], &x) &&
      tx_dtype_is_int(e->dtype) && e->dtype.lanes == 1 && tx_dtype_is_int(e->ops[0]->dtype))
    return mk_int(st, e->dtype, x);
  return e;
}

static const tx_expr *sp_expr(tx_mutator *m, const tx_expr *e) {
  sp_state *st = m->user;
  const tx_expr *c = tx_mutate_expr_children(m, e);
  if (m->failed) return e;
  const tx_expr *r = simp(st, c);
  if (st->oom) m->failed = 1;
  return r;
}

static const tx_stmt *sp_stmt(tx_mutator *m, const tx_stmt *s) {
  sp_state *st = m->user;
  switch ((tx_stmt_kind)s->kind) {
  case STMT_SEQ:
    return tx_lc_mutate_seq(m, s);
  case STMT_FOR: {
    /* exprs: begin, end [, step]: record the loop variable's range first */
    const tx_expr *b = tx_mutate_expr(m, s->exprs[0]), *en = tx_mutate_expr(m, s->exprs[1]);
    const tx_expr *step = s->kw.npos == 3 ? tx_mutate_expr(m, s->exprs[2]) : NULL;
    tx_range_record_loop(&st->ranges, s->nvars ? s->vars[0] : NULL, b, en, step);
    if (st->ranges.oom) st->oom = m->failed = 1;
    return NULL;
  }
  case STMT_BIND: {
    const tx_stmt *r = tx_mutate_stmt_children(m, s);
    tx_range_record_bind(&st->ranges, r);
    if (st->ranges.oom) st->oom = m->failed = 1;
    return r;
  }
  case STMT_IF: {
    const tx_stmt *r = tx_mutate_stmt_children(m, s);
    int64_t c;
    if (m->failed || !tx_expr_int_literal(r->exprs[0], &c)) return r;
    if (c) return r->stmts[0];
    return r->nstmts > 1 ? r->stmts[1] : tx_lc_empty(st->ir);
  }
  case STMT_STORE:
  case STMT_ASSIGN:
  case STMT_ATTR:
  case STMT_ASSERT:
  case STMT_EVAL:
  case STMT_WHILE:
  case STMT_BREAK:
  case STMT_CONTINUE:
  case STMT_RETURN:
  case STMT_ALLOC:
  case STMT_DECL:
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

/* An arm dropped by a pruned `if` can leave an empty sequence as the body
 * of a loop or branch; a statement must stay. */
static const tx_stmt *fix_empty(tx_mutator *m, const tx_stmt *s) {
  if (s->kind == STMT_SEQ && s->nstmts == 0) {
    const tx_expr *zero = tx_lc_int(m->ir, TX_INT32, 0);
    const tx_stmt *r = zero ? tx_stmt_new(m->ir, STMT_EVAL, &zero, 1, NULL, 0, s->span) : NULL;
    if (!r) m->failed = 1;
    return r ? r : s;
  }
  return NULL;
}

/* sp_stmt, then the children of a compound statement it left alone (never
 * leaving an empty body). */
static const tx_stmt *sp_stmt_children(tx_mutator *m, const tx_stmt *s) {
  const tx_stmt *r = sp_stmt(m, s);
  if (!r && s->nstmts && s->kind != STMT_SEQ) {
    r = tx_mutate_stmt_children(m, s);
    /* bodies of compound statements: never an empty sequence */
    for (uint32_t i = 0; i < r->nstmts && !m->failed; i++) {
      const tx_stmt *f = fix_empty(m, r->stmts[i]);
      if (f && f != r->stmts[i]) {
        const tx_stmt **ss = tx_mem_alloc(tx_ir_alloc(m->ir), r->nstmts * sizeof *ss);
        if (!ss) return m->failed = 1, s;
        memcpy(ss, r->stmts, r->nstmts * sizeof *ss);
        ss[i] = f;
        const tx_stmt *copy = tx_stmt_with(m->ir, r, NULL, ss, NULL, NULL);
        tx_mem_free(tx_ir_alloc(m->ir), (void *)ss);
        if (!copy) return m->failed = 1, s;
        r = copy;
      }
    }
  }
  return r;
}

static const tx_stmt *sp_stmt_outer(tx_mutator *m, const tx_stmt *s) {
  sp_state *st = m->user;
  tirx_span outer = st->stmt_span;
  /* A leaf's expressions are simplified after this returns NULL, still
   * under its span; a compound statement restores its parent's below. */
  if (s->span.line) st->stmt_span = s->span;
  const tx_stmt *r = sp_stmt_children(m, s);
  if (r || s->nstmts) st->stmt_span = outer;
  return r;
}

tirx_status tx_pass_simplify(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  sp_state st = {.pc = pc, .ir = pc->ir, .ranges = {.alloc = tx_ir_alloc(pc->ir)}};
  const tx_func **funcs =
      in->nfuncs ? tx_mem_calloc(tx_ir_alloc(pc->ir), in->nfuncs, sizeof *funcs) : NULL;
  if (in->nfuncs && !funcs) return TIRX_ERR_NOMEM;
  int changed = 0;
  for (uint32_t i = 0; i < in->nfuncs && !st.oom && !tx_diag_saturated(pc->diags); i++) {
    tx_range_clear(&st.ranges);
    tx_mutator m = {.ir = pc->ir, .user = &st, .expr = sp_expr, .stmt = sp_stmt_outer};
    const tx_func *f = in->funcs[i];
    funcs[i] = tx_mutate_func(&m, f);
    if (m.failed) st.oom = 1;
    /* A whole body that became empty is T.evaluate(0). */
    if (!st.oom && funcs[i]->body && funcs[i]->body->kind == STMT_SEQ &&
        funcs[i]->body->nstmts == 0) {
      const tx_stmt *b = fix_empty(&m, funcs[i]->body);
      const tx_func *c = m.failed ? NULL : tx_func_with_body(pc->ir, funcs[i], b);
      if (!c)
        st.oom = 1;
      else
        funcs[i] = c;
    }
    changed |= funcs[i] != f;
  }
  tirx_status status = st.oom ? TIRX_ERR_NOMEM : st.errors ? TIRX_ERR_INPUT : TIRX_OK;
  *out = in;
  if (status == TIRX_OK && changed) status = tx_lc_replace_funcs(pc->ir, in, funcs, out);
  tx_mem_free(tx_ir_alloc(pc->ir), funcs);
  tx_range_free(&st.ranges);
  return status;
}
