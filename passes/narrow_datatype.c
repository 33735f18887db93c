/*
 * narrow_datatype.c - the narrow-datatype pass: int64 index and loop
 * arithmetic whose values provably fit in int32 becomes int32, like TVM's
 * NarrowDataType(32). 32-bit integer arithmetic is cheaper on GPUs (64-bit
 * multiplies and compares take several instructions) and is what codegen
 * emits for thread ids.
 *
 * Requires: a well-formed module (runs after simplify, cse and
 * legalize-bf16-fp8, before split-host-device).
 * Guarantees:
 *  - an int64 expression is rewritten as int32 only when every node of it
 *    is an integer literal, a narrowed variable, a cast to int64 of a
 *    narrower integer (int8/16/32, uint8/16), or +, -, *, //, %, min, max of
 *    such operands, and passes/range.h proves the value of *every* node
 *    lies in [-2^31, 2^31): no int32 intermediate can overflow. A literal
 *    outside that range (T.int64(4294967295)) or a variable without a known
 *    range (an int64 parameter or symbolic extent) keeps the whole
 *    expression int64;
 *  - where: buffer indices of loads and stores, both operands of a
 *    comparison, the operand of a cast, loop bounds and the values of
 *    plain/let bindings;
 *  - a loop `for i in range(T.int64(a), T.int64(b)[, s])` whose bounds
 *    narrow (and b + s still fits) gets a fresh int32 loop variable of the
 *    same name; an int64 `x = v` / `x: T.let = v` binding whose value
 *    narrows gets a fresh int32 variable. The old variables are no longer
 *    bound or used anywhere; a use of a narrowed variable in a place that
 *    needs int64 (a call argument, an int64 expression that does not
 *    narrow) reads T.Cast("int64", x);
 *  - ranges come from literal loop bounds, T.launch_thread extents and
 *    bindings of integer expressions, as in simplify;
 *  - nothing else changes: buffer shapes, parameters, symbolic extents,
 *    vectors (Ramp indices) and EXPR_LET binders keep their types. A module
 *    without int64 arithmetic comes back as it is.
 */
#include <stdlib.h>
#include <string.h>

#include "passes/lower_common.h"
#include "passes/pass.h"
#include "passes/range.h"

typedef struct nd_state {
  tx_pass_ctx *pc;
  tx_ir *ir;
  tx_range_map ranges;
  /* narrowed variables: old int64 node -> new int32 node */
  const tx_expr **from, **to;
  uint32_t nmap, capmap;
  tx_mutator narrow; /* the int64 -> int32 rewrite of one expression */
  int narrow_failed;
  int oom;
} nd_state;

static int is_i64(const tx_expr *e) {
  return e && e->dtype.code == DT_INT && e->dtype.bits == 64 && e->dtype.lanes == 1;
}

static int fits_i32(tx_range r) {
  return r.known && r.lo >= INT32_MIN && r.hi <= INT32_MAX;
}

static const tx_expr *mapped(const nd_state *st, const tx_expr *v) {
  for (uint32_t i = 0; i < st->nmap; i++)
    if (st->from[i] == v) return st->to[i];
  return NULL;
}

static void add_map(nd_state *st, const tx_expr *from, const tx_expr *to) {
  if (st->nmap == st->capmap) {
    uint32_t cap = st->capmap ? st->capmap * 2 : 16;
    const tx_expr **f = tx_mem_realloc(tx_ir_alloc(st->ir), (void *)st->from, cap * sizeof *f);
    if (f) st->from = f;
    const tx_expr **t =
        f ? tx_mem_realloc(tx_ir_alloc(st->ir), (void *)st->to, cap * sizeof *t) : NULL;
    if (!t) {
      st->oom = 1;
      return;
    }
    st->to = t;
    st->capmap = cap;
  }
  st->from[st->nmap] = from;
  st->to[st->nmap++] = to;
}

/* ---- the int64 -> int32 rewrite of one expression -------------------------------- */

static const tx_expr *narrow_fail(nd_state *st, const tx_expr *e) {
  st->narrow_failed = 1;
  return e;
}

/* Callback of st->narrow: e (int64) as an int32 expression, or
 * narrow_failed. It never lets the mutator recurse on its own: every
 * operand must narrow, so each is rewritten here explicitly. */
static const tx_expr *narrow_cb(tx_mutator *m, const tx_expr *e) {
  nd_state *st = m->user;
  if (st->narrow_failed || !is_i64(e)) return narrow_fail(st, e);
  const tx_expr *r = NULL;
  int64_t v;
  switch ((tx_expr_kind)e->kind) {
  case EXPR_INT:
    if (!tx_expr_int_literal(e, &v) || v < INT32_MIN || v > INT32_MAX) return narrow_fail(st, e);
    r = tx_int(m->ir, TX_INT32, v, e->span);
    break;
  case EXPR_VAR:
    r = mapped(st, e);
    if (!r) return narrow_fail(st, e);
    break;
  case EXPR_CAST: {
    const tx_expr *in = e->ops[0];
    tx_dtype t = in->dtype;
    int fits =
        t.lanes == 1 && ((t.code == DT_INT && t.bits <= 32) || (t.code == DT_UINT && t.bits < 32));
    if (!fits) return narrow_fail(st, e);
    r = tx_lc_cast(m->ir, TX_INT32, in);
    break;
  }
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
  case EXPR_MIN:
  case EXPR_MAX: {
    const tx_expr *a = tx_mutate_expr(m, e->ops[0]);
    const tx_expr *b = st->narrow_failed ? NULL : tx_mutate_expr(m, e->ops[1]);
    if (st->narrow_failed) return e;
    r = tx_binary(m->ir, (tx_expr_kind)e->kind, a, b, e->span);
    break;
  }
  case EXPR_FLOAT:
  case EXPR_STRING:
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
    return narrow_fail(st, e);
  }
  if (!r) {
    m->failed = 1;
    return narrow_fail(st, e);
  }
  /* Every node, not just the root, must fit: int32 intermediates wrap. */
  if (!fits_i32(tx_range_of(&st->ranges, r))) return narrow_fail(st, e);
  return r;
}

/* e as int32, or NULL when it does not provably fit (or is not int64). */
static const tx_expr *narrow(nd_state *st, const tx_expr *e) {
  if (!is_i64(e)) return NULL;
  st->narrow_failed = 0;
  const tx_expr *r = tx_mutate_expr(&st->narrow, e);
  if (st->narrow.failed) st->oom = 1;
  return st->narrow_failed || st->oom ? NULL : r;
}

/* ---- the pass's mutator ------------------------------------------------------------ */

/* e narrowed when it narrows, else mutated as usual. */
static const tx_expr *narrow_or_mutate(tx_mutator *m, const tx_expr *e) {
  const tx_expr *r = narrow(m->user, e);
  return r ? r : tx_mutate_expr(m, e);
}

static const tx_expr *copy_expr(tx_mutator *m, const tx_expr *e, tx_dtype t,
                                const tx_expr *const *ops) {
  const tx_expr *r = tx_expr_like(m->ir, e, t, ops, e->nops);
  return r ? r : (m->failed = 1, e);
}

static const tx_expr *nd_expr(tx_mutator *m, const tx_expr *e) {
  nd_state *st = m->user;
  tx_expr_kind k = (tx_expr_kind)e->kind;
  if (k == EXPR_VAR) {
    /* A narrowed variable where int64 is needed. */
    const tx_expr *nv = mapped(st, e);
    if (!nv) return e;
    const tx_expr *c = tx_expr_new(m->ir, EXPR_CAST, e->dtype, &nv, 1, e->span);
    if (!c) m->failed = 1;
    return c ? c : e;
  }
  if (k == EXPR_LOAD && e->nops) {
    const tx_expr **ops = tx_mem_calloc(tx_ir_alloc(m->ir), e->nops, sizeof *ops);
    if (!ops) return m->failed = 1, e;
    int changed = 0;
    for (uint32_t i = 0; i < e->nops; i++) {
      ops[i] = narrow_or_mutate(m, e->ops[i]);
      changed |= ops[i] != e->ops[i];
    }
    const tx_expr *r = changed ? copy_expr(m, e, e->dtype, ops) : e;
    tx_mem_free(tx_ir_alloc(m->ir), ops);
    return r;
  }
  if (tx_expr_is_compare(k) && e->nops == 2 && is_i64(e->ops[0]) && is_i64(e->ops[1])) {
    const tx_expr *ops[2] = {narrow(st, e->ops[0]), NULL};
    ops[1] = ops[0] ? narrow(st, e->ops[1]) : NULL;
    if (ops[0] && ops[1]) return copy_expr(m, e, e->dtype, ops);
    return NULL;
  }
  if (k == EXPR_CAST && e->nops == 1 && is_i64(e->ops[0])) {
    const tx_expr *in = narrow(st, e->ops[0]);
    if (!in) return NULL;
    if (tx_dtype_eq(in->dtype, e->dtype)) return in;
    return copy_expr(m, e, e->dtype, &in);
  }
  return NULL;
}

/* A copy of statement s with new operands and bound variables. */
static const tx_stmt *copy_stmt(tx_mutator *m, const tx_stmt *s, const tx_expr *const *exprs,
                                const tx_stmt *const *stmts, const tx_expr *const *vars) {
  const tx_stmt *r = tx_stmt_with(m->ir, s, exprs, stmts, vars, NULL);
  return r ? r : (m->failed = 1, s);
}

/* A fresh int32 variable standing for int64 variable v. */
static const tx_expr *narrow_var(tx_mutator *m, const tx_expr *v) {
  nd_state *st = m->user;
  const tx_expr *nv = tx_expr_like(m->ir, v, TX_INT32, NULL, 0);
  if (!nv) {
    m->failed = 1;
    return NULL;
  }
  add_map(st, v, nv);
  if (st->oom) m->failed = 1;
  return st->oom ? NULL : nv;
}

static const tx_stmt *nd_for(tx_mutator *m, const tx_stmt *s) {
  nd_state *st = m->user;
  const tx_expr *v = s->nvars == 1 ? s->vars[0] : NULL;
  uint32_t npos = s->kw.npos;
  if (!is_i64(v) || npos < 2 || npos > 3) return NULL;
  const tx_expr *nb[3] = {NULL, NULL, NULL};
  for (uint32_t i = 0; i < npos; i++)
    if (!(nb[i] = narrow(st, s->exprs[i]))) return NULL;
  tx_range rb = tx_range_of(&st->ranges, nb[0]), re = tx_range_of(&st->ranges, nb[1]);
  int64_t step = 1;
  if (npos == 3 && (!tx_expr_int_literal(nb[2], &step) || step <= 0)) return NULL;
  /* The loop counter reaches end + step - 1 before the exit test fails. */
  if (!rb.known || !re.known || re.hi + step - 1 > INT32_MAX) return NULL;
  const tx_expr *nv = narrow_var(m, v);
  if (!nv) return s;
  if (re.hi > rb.lo) tx_range_set(&st->ranges, nv, (tx_range){1, rb.lo, re.hi - 1});
  const tx_expr **exprs = tx_mem_calloc(tx_ir_alloc(m->ir), s->nexprs, sizeof *exprs);
  const tx_stmt **stmts =
      s->nstmts ? tx_mem_calloc(tx_ir_alloc(m->ir), s->nstmts, sizeof *stmts) : NULL;
  if (!exprs || (s->nstmts && !stmts)) {
    tx_mem_free(tx_ir_alloc(m->ir), exprs);
    tx_mem_free(tx_ir_alloc(m->ir), stmts);
    m->failed = 1;
    return s;
  }
  for (uint32_t i = 0; i < s->nexprs; i++)
    exprs[i] = i < npos ? nb[i] : tx_mutate_expr(m, s->exprs[i]);
  for (uint32_t i = 0; i < s->nstmts; i++)
    stmts[i] = tx_mutate_stmt(m, s->stmts[i]);
  const tx_stmt *r = copy_stmt(m, s, exprs, stmts, &nv);
  tx_mem_free(tx_ir_alloc(m->ir), exprs);
  tx_mem_free(tx_ir_alloc(m->ir), stmts);
  return r;
}

static const tx_stmt *nd_bind(tx_mutator *m, const tx_stmt *s) {
  nd_state *st = m->user;
  const tx_expr *v = s->nvars == 1 ? s->vars[0] : NULL;
  if (is_i64(v) && s->nexprs == 1 && (s->flag == BIND_PLAIN || s->flag == BIND_LET)) {
    const tx_expr *val = narrow(st, s->exprs[0]);
    if (val) {
      const tx_expr *nv = narrow_var(m, v);
      if (!nv) return s;
      tx_range_set(&st->ranges, nv, tx_range_of(&st->ranges, val));
      return copy_stmt(m, s, &val, NULL, &nv);
    }
  }
  const tx_stmt *r = tx_mutate_stmt_children(m, s);
  tx_range_record_bind(&st->ranges, r);
  return r;
}

static const tx_stmt *nd_stmt(tx_mutator *m, const tx_stmt *s) {
  nd_state *st = m->user;
  const tx_stmt *r = NULL;
  switch ((tx_stmt_kind)s->kind) {
  case STMT_FOR:
    r = nd_for(m, s);
    if (!r) {
      /* Not narrowed: still record an int32 loop's range for its body. */
      const tx_expr *step = s->kw.npos == 3 ? s->exprs[2] : NULL;
      tx_range_record_loop(&st->ranges, s->nvars ? s->vars[0] : NULL, s->exprs[0], s->exprs[1],
                           step);
    }
    break;
  case STMT_BIND:
    r = nd_bind(m, s);
    break;
  case STMT_STORE: {
    /* exprs: value, indices... */
    const tx_expr **exprs = tx_mem_calloc(tx_ir_alloc(m->ir), s->nexprs, sizeof *exprs);
    if (!exprs) return m->failed = 1, s;
    int changed = 0;
    for (uint32_t i = 0; i < s->nexprs; i++) {
      exprs[i] = i == 0 ? tx_mutate_expr(m, s->exprs[i]) : narrow_or_mutate(m, s->exprs[i]);
      changed |= exprs[i] != s->exprs[i];
    }
    r = changed ? copy_stmt(m, s, exprs, s->stmts, s->vars) : s;
    tx_mem_free(tx_ir_alloc(m->ir), exprs);
    break;
  }
  case STMT_ASSIGN:
  case STMT_ATTR:
  case STMT_ASSERT:
  case STMT_SEQ:
  case STMT_EVAL:
  case STMT_IF:
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
  if (st->ranges.oom || st->oom) m->failed = 1;
  return r;
}

static const tx_func *narrow_func(void *state, const tx_func *f) {
  nd_state *st = state;
  tx_range_clear(&st->ranges);
  st->nmap = 0;
  tx_mutator m = {.ir = st->pc->ir, .user = st, .expr = nd_expr, .stmt = nd_stmt};
  const tx_func *r = tx_mutate_func(&m, f);
  if (m.failed || st->ranges.oom) st->oom = 1;
  return st->oom ? NULL : r;
}

tirx_status tx_pass_narrow_datatype(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  *out = in;
  /* Every rewrite starts at a scalar int64 expression (see narrow()). */
  if (!(tx_lc_census(pc, in) & TX_LC_HAS_I64)) return TIRX_OK;
  nd_state st = {.pc = pc, .ir = pc->ir, .ranges = {.alloc = tx_ir_alloc(pc->ir)}};
  st.narrow = (tx_mutator){.ir = pc->ir, .user = &st, .expr = narrow_cb};
  tirx_status status = tx_lc_each_func(pc, in, narrow_func, &st, out);
  if (status == TIRX_OK && st.oom) status = TIRX_ERR_NOMEM;
  if (status != TIRX_OK) *out = in;
  tx_mem_free(tx_ir_alloc(pc->ir), (void *)st.from);
  tx_mem_free(tx_ir_alloc(pc->ir), (void *)st.to);
  tx_range_free(&st.ranges);
  return status;
}
