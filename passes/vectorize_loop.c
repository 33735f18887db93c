/*
 * vectorize_loop.c - the vectorize-loop pass: `T.vectorized` loops become
 * vector statements (Ramp indices, Broadcast invariants), or plain loops.
 *
 * Requires: flat (one-dimensional) buffer accesses, i.e. a module after
 * flatten-buffer; simplify first makes more indices recognisable.
 * Guarantees (docs/lowering.md "After vectorize-loop"): no FOR_VECTORIZED
 * loop is left. A loop `for v in T.vectorized(L)` is rewritten when all of
 * this holds, and otherwise becomes `for v in range(L)` (a FOR_SERIAL loop,
 * as TVM scalarizes):
 *  - begin 0 and a literal extent L that is a power of two in 2..64;
 *  - the body is a sequence of stores and plain/let bindings, with no call
 *    but T.if_then_else, no Let, vector or region expression; stored
 *    buffers hold elements the backend has vectors of (tx_backend
 *    vector_lanes; CUDA: 32-bit float/int/uint, 16-bit float, bool, packed
 *    int4/uint4/int1); a buffer stored in the loop is read only at the
 *    index it is stored at and stored at one index (no loop-carried
 *    dependence);
 *  - an access whose index depends on v is contiguous (`base + v`: one
 *    vector access, in memory the backend accepts it for, CUDA's global,
 *    shared and local memory (local lane by lane unless packed), with `base`
 *    provably a multiple of the chunk width C; buffers are assumed aligned,
 *    as in TVM) or lane by lane (any other index: `v * s` with a literal or
 *    loop-invariant stride, `base - v`, an index loaded from memory;
 *    codegen gathers and scatters it, packed elements excepted), and at
 *    least one access is contiguous: lane-by-lane accesses alone are the
 *    scalar loop's accesses over again, so such a loop stays serial
 *    (tx_backend.vector_access_ok says which buffers allow which);
 *  - the target's backend can emit every vector node (codegen_ok asks
 *    tx_backend.vector_node_ok; CUDA's rules are in target/cuda/cuda_vector.c).
 * C is the widest of min(L, W), ..., 4, 2 for which the rewrite meets these
 * rules, W being 8 or the most lanes a stored buffer's vectors hold if more
 * (8 for 16-bit floats and bools, 4 once 32-bit lanes are involved, 32 for
 * int4, whose 32 lanes are one 128-bit access, and up to 64 for int1).
 * The rewrite: v becomes T.Ramp(start, 1, C), index arithmetic folds into
 * the Ramp (its base, or its stride for v * s), loop-invariant operands
 * become T.Broadcast(x, C), arithmetic and casts take the vector dtype, and
 * a binding that depends on v binds a new vector variable of the same name.
 * With L == C the body replaces the loop (start 0); with L > C it stays in
 * `for v in T.unroll(L // C)` with start v * C (unroll-loop copies it out).
 */
#include <stdlib.h>
#include <string.h>

#include "ir/equal.h"
#include "ir/modular.h"
#include "passes/lower_common.h"
#include "passes/pass.h"

static const tirx_span NOSPAN = {0};

typedef struct vec_state {
  tx_pass_ctx *pc;
  tx_ir *ir;
  /* the loop being vectorized */
  const tx_expr *var;         /* the loop variable */
  const tx_expr *start;       /* lane 0 of the current chunk */
  int lanes;                  /* C */
  const tx_expr **from, **to; /* bound scalar variable -> its vector variable */
  uint32_t nmap, capmap;
  int ncontig; /* contiguous (real vector) loads and stores in the rewritten body */
  int widest;  /* the most lanes a stored buffer's vectors hold (backend vector_lanes) */
  int fail;
  int oom;
} vec_state;

/* ---- the pre-check: shape of the body, dependences ----------------------------- */

typedef struct check {
  tx_visitor v;
  const tx_stmt **stores;
  uint32_t nstores, cap;
  int bad;
  int oom; /* bad because the store list could not grow: not a verdict */
  int widest;
  const tirx_allocator *alloc;
  const tx_backend *backend;
} check;

static int is_ite(const tx_expr *e) {
  return e->kind == EXPR_CALL && e->nops == 3 && e->u.call.op &&
         strcmp(e->u.call.op, "T.if_then_else") == 0;
}

static int check_expr(tx_visitor *v, const tx_expr *e) {
  check *c = v->user;
  if (e->dtype.lanes != 1) c->bad = 1;
  switch ((tx_expr_kind)e->kind) {
  case EXPR_CALL:
    if (!is_ite(e)) c->bad = 1;
    break;
  case EXPR_SELECT:
    break;
  case EXPR_LET:
  case EXPR_RAMP:
  case EXPR_BROADCAST:
  case EXPR_TUPLE:
  case EXPR_BUFFER:
  case EXPR_REGION:
  case EXPR_SLICE:
  case EXPR_LAYOUT:
  case EXPR_LAMBDA:
  case EXPR_NONE:
  case EXPR_STRING:
    c->bad = 1;
    break;
  case EXPR_LOAD:
    if (e->nops != 1) c->bad = 1;
    break;
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_VAR:
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
  case EXPR_DIV:
  case EXPR_MOD:
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
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
  case EXPR_CAST:
  case TX_EXPR_KIND_COUNT:
    break;
  }
  if (c->bad) v->stop = 1;
  return !c->bad;
}

static int check_stmt(tx_visitor *v, const tx_stmt *s) {
  check *c = v->user;
  switch ((tx_stmt_kind)s->kind) {
  case STMT_SEQ:
    return 1;
  case STMT_STORE: {
    int lanes = c->backend->vector_lanes(s->buffer->dtype);
    if (s->nexprs != 2 || !lanes) c->bad = 1;
    if (lanes > c->widest) c->widest = lanes;
    if (c->nstores == c->cap) {
      uint32_t cap = c->cap ? c->cap * 2 : 8;
      const tx_stmt **p = tx_mem_realloc(c->alloc, (void *)c->stores, cap * sizeof *p);
      if (!p) {
        c->bad = c->oom = 1;
        break;
      }
      c->stores = p;
      c->cap = cap;
    }
    c->stores[c->nstores++] = s;
    break;
  }
  case STMT_BIND:
    if (s->nvars != 1 || s->nexprs != 1 ||
        (s->flag != BIND_PLAIN && s->flag != BIND_LET && s->flag != BIND_LET_TYPED))
      c->bad = 1;
    break;
  case STMT_ASSIGN:
  case STMT_ATTR:
  case STMT_ASSERT:
  case STMT_EVAL:
  case STMT_IF:
  case STMT_FOR:
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
    c->bad = 1;
    break;
  }
  if (c->bad) v->stop = 1;
  return !c->bad;
}

/* A load of a buffer the loop stores must read exactly the stored element. */
static int check_dep(tx_visitor *v, const tx_expr *e) {
  check *c = v->user;
  if (e->kind != EXPR_LOAD) return 1;
  for (uint32_t i = 0; i < c->nstores; i++)
    if (c->stores[i]->buffer == e->u.buffer &&
        !tx_expr_equal_with(c->alloc, c->stores[i]->exprs[1], e->ops[0]))
      c->bad = v->stop = 1;
  return 1;
}

/* 0 also when out of memory, which sets st->oom. */
static int body_ok(vec_state *st, const tx_stmt *body) {
  check c = {.alloc = tx_ir_alloc(st->ir), .backend = tx_target_backend(st->pc->target)};
  c.v.user = &c;
  c.v.pre_expr = check_expr;
  c.v.pre_stmt = check_stmt;
  tx_visit_stmt(&c.v, body);
  /* two stores of one buffer at different indices would overlap lanes */
  for (uint32_t i = 0; !c.bad && i < c.nstores; i++)
    for (uint32_t j = i + 1; j < c.nstores; j++)
      if (c.stores[i]->buffer == c.stores[j]->buffer &&
          !tx_expr_equal_with(c.alloc, c.stores[i]->exprs[1], c.stores[j]->exprs[1]))
        c.bad = 1;
  if (!c.bad) {
    tx_visitor d = {.user = &c, .pre_expr = check_dep};
    tx_visit_stmt(&d, body);
  }
  tx_mem_free(c.alloc, (void *)c.stores);
  if (c.oom) st->oom = 1;
  st->widest = c.widest;
  return !c.bad;
}

/* ---- the rewrite --------------------------------------------------------------- */

static int is_vec(const tx_expr *e) {
  return e && e->dtype.lanes > 1;
}

static int is_lit(const tx_expr *e, int64_t v) {
  int64_t x;
  return tx_expr_int_literal(e, &x) && x == v;
}

static const tx_expr *ramp(vec_state *st, const tx_expr *base, const tx_expr *stride) {
  if (!base || !stride) return st->oom = 1, NULL;
  const tx_expr *ops[2] = {base, stride};
  const tx_expr *r =
      tx_expr_new(st->ir, EXPR_RAMP, tx_dtype_with_lanes(base->dtype, st->lanes), ops, 2, NOSPAN);
  if (!r) st->oom = 1;
  return r;
}

static const tx_expr *broadcast(vec_state *st, const tx_expr *x) {
  if (is_vec(x)) return x;
  const tx_expr *r =
      tx_expr_new(st->ir, EXPR_BROADCAST, tx_dtype_with_lanes(x->dtype, st->lanes), &x, 1, NOSPAN);
  if (!r) st->oom = 1;
  return r;
}

/* Can buffer b be accessed at the vector index idx? A stride-1 Ramp is
 * one vector access in codegen, so it must be aligned (base a multiple of
 * the lanes) and in memory the backend accepts it for (CUDA: global,
 * shared and local; registers lane by lane unless packed); it counts as a
 * contiguous access. Any other vector index (a Ramp of another stride, a
 * computed index vector) is a gather or scatter, lane by lane, where the
 * backend can address single elements. */
static int vector_access_ok(vec_state *st, const tx_buffer *b, const tx_expr *idx) {
  if (!idx || idx->dtype.lanes != st->lanes) return 0;
  const tx_backend *be = tx_target_backend(st->pc->target);
  if (idx->kind != EXPR_RAMP || !is_lit(idx->ops[1], 1)) return be->vector_access_ok(b, 0);
  if (!be->vector_access_ok(b, 1) || !tx_expr_multiple_of(idx->ops[0], st->lanes)) return 0;
  st->ncontig++;
  return 1;
}

/* Element-wise op on vector operands (scalars broadcast). */
static const tx_expr *vector_binary(vec_state *st, const tx_expr *r) {
  const tx_expr *ops[2] = {broadcast(st, r->ops[0]), broadcast(st, r->ops[1])};
  if (!ops[0] || !ops[1]) return r;
  const tx_expr *n = tx_expr_new(st->ir, (tx_expr_kind)r->kind,
                                 tx_dtype_with_lanes(r->dtype, st->lanes), ops, 2, r->span);
  if (!n) st->oom = 1;
  return n ? n : r;
}

static const tx_expr *vec_expr(tx_mutator *m, const tx_expr *e) {
  vec_state *st = m->user;
  if (e->kind == EXPR_VAR) {
    if (e == st->var) return ramp(st, st->start, tx_lc_int(st->ir, tx_dtype_elem(e->dtype), 1));
    for (uint32_t i = 0; i < st->nmap; i++)
      if (st->from[i] == e) return st->to[i];
    return NULL;
  }
  const tx_expr *r = tx_mutate_expr_children(m, e);
  if (m->failed || st->oom) return e;
  int any = 0;
  for (uint32_t i = 0; i < r->nops; i++)
    any |= is_vec(r->ops[i]);
  if (!any) return r; /* loop-invariant */
  tx_expr_kind k = (tx_expr_kind)r->kind;
  const tx_expr *a = r->nops > 0 ? r->ops[0] : NULL, *b = r->nops > 1 ? r->ops[1] : NULL;
  switch (k) {
  case EXPR_ADD:
  case EXPR_SUB:
    /* index arithmetic folds into the Ramp */
    if (a->kind == EXPR_RAMP && !is_vec(b))
      return ramp(st, tx_lc_bin(st->ir, k, a->ops[0], b), a->ops[1]);
    if (k == EXPR_ADD && b->kind == EXPR_RAMP && !is_vec(a))
      return ramp(st, tx_lc_bin(st->ir, k, a, b->ops[0]), b->ops[1]);
    if (k == EXPR_SUB && b->kind == EXPR_RAMP && !is_vec(a)) /* a - v runs backwards */
      return ramp(st, tx_lc_bin(st->ir, k, a, b->ops[0]),
                  tx_lc_bin(st->ir, k, tx_lc_int(st->ir, b->ops[1]->dtype, 0), b->ops[1]));
    if (a->kind == EXPR_RAMP && b->kind == EXPR_RAMP)
      return ramp(st, tx_lc_bin(st->ir, k, a->ops[0], b->ops[0]),
                  tx_lc_bin(st->ir, k, a->ops[1], b->ops[1]));
    return vector_binary(st, r);
  case EXPR_MUL:
    /* a Ramp times a loop-invariant integer is a Ramp: a (symbolic) stride */
    if (a->kind == EXPR_RAMP && !is_vec(b) && tx_dtype_is_int(b->dtype))
      return ramp(st, tx_lc_bin(st->ir, k, a->ops[0], b), tx_lc_bin(st->ir, k, a->ops[1], b));
    if (b->kind == EXPR_RAMP && !is_vec(a) && tx_dtype_is_int(a->dtype))
      return ramp(st, tx_lc_bin(st->ir, k, b->ops[0], a), tx_lc_bin(st->ir, k, b->ops[1], a));
    return vector_binary(st, r);
  case EXPR_DIV:
  case EXPR_MOD:
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
    return vector_binary(st, r);
  case EXPR_NOT:
  case EXPR_SELECT:
  case EXPR_CALL: {
    if (k == EXPR_CALL && !is_ite(r)) break;
    /* a Select's invariant condition stays scalar; the values broadcast */
    const tx_expr *ops[3] = {r->ops[0], NULL, NULL};
    if (k == EXPR_NOT) ops[0] = broadcast(st, r->ops[0]);
    for (uint32_t i = 1; i < r->nops; i++)
      ops[i] = broadcast(st, r->ops[i]);
    for (uint32_t i = 0; i < r->nops; i++)
      if (!ops[i]) return r;
    const tx_expr *n =
        tx_expr_like(st->ir, r, tx_dtype_with_lanes(r->dtype, st->lanes), ops, r->nops);
    return n ? n : (st->oom = 1, r);
  }
  case EXPR_CAST: {
    const tx_expr *n = tx_expr_new(st->ir, EXPR_CAST, tx_dtype_with_lanes(r->dtype, st->lanes),
                                   r->ops, 1, r->span);
    if (!n) st->oom = 1;
    return n ? n : r;
  }
  case EXPR_LOAD: {
    if (!vector_access_ok(st, r->u.buffer, a)) {
      st->fail = 1;
      return r;
    }
    const tx_expr *n = tx_expr_like(st->ir, r, tx_dtype_with_lanes(r->dtype, st->lanes), r->ops, 1);
    return n ? n : (st->oom = 1, r);
  }
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STRING:
  case EXPR_VAR:
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
  case EXPR_RAMP:
  case EXPR_BROADCAST:
  case EXPR_LET:
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
  st->fail = 1;
  return r;
}

static const tx_stmt *vec_stmt(tx_mutator *m, const tx_stmt *s) {
  vec_state *st = m->user;
  if (s->kind == STMT_SEQ) return tx_lc_mutate_seq(m, s);
  if (s->kind == STMT_STORE) {
    const tx_expr *val = tx_mutate_expr(m, s->exprs[0]), *idx = tx_mutate_expr(m, s->exprs[1]);
    if (m->failed || st->oom || st->fail) return s;
    if (!vector_access_ok(st, s->buffer, idx)) {
      st->fail = 1;
      return s;
    }
    const tx_expr *ops[2] = {broadcast(st, val), idx};
    if (!ops[0]) return s;
    const tx_stmt *n = tx_stmt_make(
        st->ir,
        &(tx_stmt){
            .kind = STMT_STORE, .nexprs = 2, .exprs = ops, .buffer = s->buffer, .span = s->span});
    return n ? n : (st->oom = 1, s);
  }
  if (s->kind == STMT_BIND) {
    const tx_expr *val = tx_mutate_expr(m, s->exprs[0]);
    if (m->failed || st->oom || st->fail) return s;
    if (!is_vec(val)) return val == s->exprs[0] ? s : (st->fail = 1, s);
    const tx_expr *old = s->vars[0];
    const tx_expr *nv = tx_var(st->ir, old->u.var.name, val->dtype, VAR_PLAIN, old->span);
    /* the annotation was scalar */
    tx_bind_style style = s->flag == BIND_LET_TYPED ? BIND_LET : (tx_bind_style)s->flag;
    const tx_stmt *n = tx_bind(st->ir, nv, val, style, s->span);
    if (!n) return st->oom = 1, s;
    if (st->nmap == st->capmap) {
      uint32_t cap = st->capmap ? st->capmap * 2 : 8;
      const tx_expr **a = tx_mem_realloc(tx_ir_alloc(st->ir), (void *)st->from, cap * sizeof *a);
      if (a) st->from = a;
      const tx_expr **b =
          a ? tx_mem_realloc(tx_ir_alloc(st->ir), (void *)st->to, cap * sizeof *b) : NULL;
      if (!b) return st->oom = 1, s;
      st->to = b;
      st->capmap = cap;
    }
    st->from[st->nmap] = old;
    st->to[st->nmap++] = nv;
    return n;
  }
  st->fail = 1; /* body_ok admits nothing else */
  return s;
}

/* ---- what codegen can emit ------------------------------------------------------ */

typedef struct emit_check {
  tx_visitor v;
  const tx_backend *backend;
  int bad;
} emit_check;

/* Every vector node is one the target's backend can emit. */
static int emit_ok(tx_visitor *v, const tx_expr *e) {
  emit_check *c = v->user;
  if (e->dtype.lanes == 1) return 1;
  if (!c->backend->vector_node_ok(e)) c->bad = v->stop = 1;
  /* a load's Ramp index is an address (emitted lane by lane or as the base
   * of one access), not a vector value; a computed index vector is one */
  return e->kind != EXPR_LOAD || e->ops[0]->kind != EXPR_RAMP;
}

static int emit_ok_stmt(tx_visitor *v, const tx_stmt *s) {
  if (s->kind == STMT_STORE) {
    tx_visit_expr(v, s->exprs[0]);
    if (s->exprs[1]->kind != EXPR_RAMP) tx_visit_expr(v, s->exprs[1]);
    return 0;
  }
  return 1;
}

static int codegen_ok(const tx_backend *backend, const tx_stmt *body) {
  emit_check c = {.backend = backend};
  c.v.user = &c;
  c.v.pre_expr = emit_ok;
  c.v.pre_stmt = emit_ok_stmt;
  tx_visit_stmt(&c.v, body);
  return !c.bad;
}

/* ---- the loop ------------------------------------------------------------------- */

static const tx_stmt *with_kind(vec_state *st, const tx_stmt *s, tx_for_kind kind,
                                const tx_expr *const *exprs, uint32_t nexprs, const tx_stmt *body) {
  const tx_stmt *n = tx_stmt_make(st->ir, &(tx_stmt){.kind = STMT_FOR,
                                                     .flag = (uint8_t)kind,
                                                     .nexprs = nexprs,
                                                     .nstmts = 1,
                                                     .nvars = s->nvars,
                                                     .exprs = exprs,
                                                     .stmts = &body,
                                                     .vars = s->vars,
                                                     .kw.npos = nexprs,
                                                     .span = s->span});
  return n ? n : (st->oom = 1, s);
}

/* The serial loop TVM would scalarize to. */
static const tx_stmt *serial(vec_state *st, const tx_stmt *s) {
  uint32_t npos = s->kw.npos ? s->kw.npos : s->nexprs;
  return with_kind(st, s, FOR_SERIAL, s->exprs, npos, s->stmts[0]);
}

/* The body rewritten for chunks of st->lanes lanes, or NULL when that
 * width does not work (or, with st->oom, on allocation failure). */
static const tx_stmt *rewrite(vec_state *st, const tx_stmt *s, int64_t len) {
  st->nmap = 0;
  st->ncontig = 0;
  st->fail = 0;
  tx_dtype vt = st->var->dtype;
  st->start = len > st->lanes ? tx_lc_muli(st->ir, st->var, st->lanes) : tx_lc_int(st->ir, vt, 0);
  if (!st->start) return st->oom = 1, NULL;
  tx_mutator m = {.ir = st->ir, .user = st, .expr = vec_expr, .stmt = vec_stmt};
  const tx_stmt *body = tx_mutate_stmt(&m, s->stmts[0]);
  if (m.failed) st->oom = 1;
  if (st->oom || st->fail || !codegen_ok(tx_target_backend(st->pc->target), body)) return NULL;
  return body;
}

static const tx_stmt *vectorize(tx_mutator *outer, const tx_stmt *s) {
  vec_state *st = outer->user;
  uint32_t npos = s->kw.npos ? s->kw.npos : s->nexprs;
  int64_t begin, len;
  if (s->nvars != 1 || s->nstmts != 1 || npos != 2 || !tx_expr_int_literal(s->exprs[0], &begin) ||
      begin != 0 || !tx_expr_int_literal(s->exprs[1], &len) || len < 2 || len > 64 ||
      (len & (len - 1)) || !body_ok(st, s->stmts[0]))
    return st->oom ? s : serial(st, s);
  st->var = s->vars[0];
  /* The widest chunk that works: 8 lanes for 16-bit floats and bools, 4
   * for 32-bit lanes, fewer when an access is aligned only to fewer; more
   * for packed sub-byte elements (32 int4 lanes are one 128-bit access). */
  const tx_stmt *body = NULL;
  int most = st->widest > 8 ? st->widest : 8;
  for (int lanes = len < most ? (int)len : most; lanes >= 2 && !body && !st->oom; lanes /= 2) {
    st->lanes = lanes;
    body = rewrite(st, s, len);
  }
  if (st->oom) return s;
  /* Lane-by-lane accesses alone would be the scalar loop's loads and
   * stores over again: vectorize only with at least one vector access. */
  if (!body || !st->ncontig) return serial(st, s);
  if (len == st->lanes) return body;
  tx_dtype vt = st->var->dtype;
  const tx_expr *ext[2] = {tx_lc_int(st->ir, vt, 0), tx_lc_int(st->ir, vt, len / st->lanes)};
  if (!ext[0] || !ext[1]) return st->oom = 1, s;
  return with_kind(st, s, FOR_UNROLL, ext, 2, body);
}

static const tx_stmt *vl_stmt(tx_mutator *m, const tx_stmt *s) {
  vec_state *st = m->user;
  if (s->kind == STMT_SEQ) return tx_lc_mutate_seq(m, s);
  if (s->kind != STMT_FOR || s->flag != FOR_VECTORIZED) return NULL;
  const tx_stmt *r = tx_mutate_stmt_children(m, s); /* inner loops first */
  if (m->failed) return s;
  r = vectorize(m, r);
  if (st->oom) m->failed = 1;
  return r;
}

static int is_vectorized_loop(const tx_stmt *s) {
  return s->kind == STMT_FOR && s->flag == FOR_VECTORIZED;
}

static const tx_func *vectorize_func(void *state, const tx_func *f) {
  vec_state *st = state;
  tx_mutator m = {.ir = st->pc->ir, .user = st, .stmt = vl_stmt};
  const tx_func *r = tx_mutate_func(&m, f);
  if (m.failed) st->oom = 1;
  return st->oom ? NULL : r;
}

tirx_status tx_pass_vectorize_loop(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  /* vl_stmt rewrites FOR_VECTORIZED loops and nothing else. */
  *out = in;
  if (!tx_lc_any_stmt(in, is_vectorized_loop)) return TIRX_OK;
  vec_state st = {.pc = pc, .ir = pc->ir};
  tirx_status status = tx_lc_each_func(pc, in, vectorize_func, &st, out);
  if (status == TIRX_OK && st.oom) status = TIRX_ERR_NOMEM;
  if (status != TIRX_OK) *out = in;
  tx_mem_free(tx_ir_alloc(pc->ir), (void *)st.from);
  tx_mem_free(tx_ir_alloc(pc->ir), (void *)st.to);
  return status;
}
