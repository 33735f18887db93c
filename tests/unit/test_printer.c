/*
 * test_printer.c - exact TVMScript text for hand-built IR: literals,
 * precedence, every statement kind, T.grid / with merging, buffer
 * constructors, layouts and module headers.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/printer.h"

static tx_arena *arena;
static tx_ir ir;
static tx_strbuf sb;
static const tirx_span NOSPAN = {0};

static void setup(void) {
  arena = tx_arena_create(NULL);
  ir = (tx_ir){arena, tx_interner_create(arena)};
  sb = (tx_strbuf){0};
}

static void teardown(void) {
  tx_sb_free(&sb);
  tx_interner_destroy(ir.strings);
  tx_arena_destroy(arena);
}

TestSuite(printer, .init = setup, .fini = teardown);

/* ---- builders ---- */

static const char *S(const char *s) {
  return tx_intern(ir.strings, s);
}
static const tx_expr *I(int64_t v) {
  return tx_int(&ir, TX_INT32, v, NOSPAN);
}
static const tx_expr *IT(tx_dtype t, int64_t v) {
  return tx_int(&ir, t, v, NOSPAN);
}
static const tx_expr *F(tx_dtype t, double v) {
  return tx_float(&ir, t, v, NOSPAN);
}
static tx_expr *V(const char *name) {
  return tx_var(&ir, name, TX_INT32, VAR_PLAIN, NOSPAN);
}
static const tx_expr *STR(const char *s) {
  return tx_string(&ir, s, strlen(s), NOSPAN);
}
static const tx_expr *B(tx_expr_kind k, const tx_expr *a, const tx_expr *b) {
  return tx_binary(&ir, k, a, b, NOSPAN);
}
static const tx_expr *E(tx_expr_kind k, tx_dtype t, const tx_expr *const *ops, uint32_t n) {
  return tx_expr_new(&ir, k, t, ops, n, NOSPAN);
}
static const char *const *NAMES(const char *const *names, uint32_t n) {
  const char **out = tx_arena_alloc(arena, n * sizeof *out);
  for (uint32_t i = 0; i < n; i++)
    out[i] = S(names[i]);
  return out;
}
/* A call with npos positional operands then keywords named by kw. */
static const tx_expr *CALL(const char *op, const tx_expr *const *ops, uint32_t n, uint32_t npos,
                           const char *const *kw) {
  tx_expr *e = tx_expr_new(&ir, EXPR_CALL, TX_INT32, ops, n, NOSPAN);
  e->u.call.op = S(op);
  e->u.call.kw.npos = npos;
  e->u.call.kw.names = n > npos ? NAMES(kw, n - npos) : NULL;
  return e;
}
static const tx_expr *TUP(const tx_expr *const *ops, uint32_t n, int is_list) {
  tx_expr *e = tx_expr_new(&ir, EXPR_TUPLE, TX_VOID, ops, n, NOSPAN);
  e->u.is_list = is_list;
  return e;
}
static tx_buffer *BUF(const char *name, tx_buffer_form form, tx_dtype t,
                      const tx_expr *const *shape, uint32_t ndim) {
  tx_buffer *b = tx_arena_alloc(arena, sizeof *b);
  b->name = S(name);
  b->form = form;
  b->dtype = t;
  b->shape = TX_DUP(&ir, tx_expr, shape, ndim);
  b->ndim = ndim;
  b->scope = S("global");
  tx_expr *d = tx_var(&ir, name, TX_HANDLE, VAR_BUFFER_DATA, NOSPAN);
  b->data = d;
  return b;
}
static const tx_expr *LOAD(const tx_buffer *b, const tx_expr *const *idx, uint32_t n) {
  tx_expr *e = tx_expr_new(&ir, EXPR_LOAD, b->dtype, idx, n, NOSPAN);
  e->u.buffer = b;
  return e;
}
static tx_stmt *ST(tx_stmt_kind k, const tx_expr *const *ex, uint32_t ne, const tx_stmt *const *st,
                   uint32_t ns) {
  return tx_stmt_new(&ir, k, ex, ne, st, ns, NOSPAN);
}
static const tx_stmt *EVAL(const tx_expr *v) {
  return ST(STMT_EVAL, &v, 1, NULL, 0);
}
static const tx_stmt *SEQ(const tx_stmt *const *items, uint32_t n) {
  return ST(STMT_SEQ, NULL, 0, items, n);
}
static tx_stmt *FOR(tx_for_kind k, const tx_expr *var, const tx_expr *const *ex, uint32_t ne,
                    uint32_t npos, const char *const *kw, const tx_stmt *body) {
  tx_stmt *s = ST(STMT_FOR, ex, ne, &body, 1);
  s->flag = (uint8_t)k;
  s->vars = TX_DUP(&ir, tx_expr, &var, 1);
  s->nvars = 1;
  s->kw.npos = npos;
  s->kw.names = ne > npos ? NAMES(kw, ne - npos) : NULL;
  return s;
}
static const tx_stmt *RANGE(const tx_expr *var, const tx_expr *end, const tx_stmt *body) {
  const tx_expr *ex[] = {I(0), end};
  return FOR(FOR_SERIAL, var, ex, 2, 2, NULL, body);
}

/* ---- printing ---- */

static const char *pe(const tx_expr *e) {
  tx_sb_free(&sb);
  tx_print_expr(e, &sb);
  return tx_sb_cstr(&sb);
}
static const char *ps(const tx_stmt *s) {
  tx_sb_free(&sb);
  tx_print_stmt(s, 0, &sb);
  return tx_sb_cstr(&sb);
}
static const char *pf(const tx_func *f) {
  tx_sb_free(&sb);
  tx_print_func(f, &sb);
  return tx_sb_cstr(&sb);
}
static tx_func *FUNC(const char *name, const tx_stmt *body) {
  tx_func *f = tx_arena_alloc(arena, sizeof *f);
  f->name = S(name);
  f->body = body;
  return f;
}

/* ---- literals ---- */

Test(printer, int_literals) {
  cr_assert_str_eq(pe(I(5)), "5");
  cr_assert_str_eq(pe(I(-3)), "-3");
  cr_assert_str_eq(pe(IT(TX_INT64, 5)), "T.int64(5)");
  cr_assert_str_eq(pe(IT(tx_dt(DT_UINT, 8, 1), 3)), "T.uint8(3)");
  cr_assert_str_eq(pe(IT(tx_dt(DT_UINT, 64, 1), -1)), "T.uint64(18446744073709551615)");
  cr_assert_str_eq(pe(IT(TX_BOOL, 1)), "T.bool(True)");
  cr_assert_str_eq(pe(IT(TX_BOOL, 0)), "T.bool(False)");
}

Test(printer, float_literals) {
  tx_dtype f16 = tx_dt(DT_FLOAT, 16, 1);
  cr_assert_str_eq(pe(F(TX_FLOAT32, 2.0)), "T.float32(2.0)");
  cr_assert_str_eq(pe(F(f16, 0.5)), "T.float16(0.5)");
  cr_assert_str_eq(pe(F(TX_FLOAT32, 1.25)), "T.float32(1.25)");
  cr_assert_str_eq(pe(F(TX_FLOAT32, 0.1)), "T.float32(0.10000000000000001)");
  cr_assert_str_eq(pe(F(TX_FLOAT32, 1e-5)), "T.float32(1.0000000000000001e-05)");
  cr_assert_str_eq(pe(F(TX_FLOAT32, 0.0001)), "T.float32(0.0001)");
  cr_assert_str_eq(pe(F(TX_FLOAT32, 100.0)), "T.float32(100.0)");
  cr_assert_str_eq(pe(F(TX_FLOAT32, 1e16)), "T.float32(10000000000000000.0)");
  cr_assert_str_eq(pe(F(TX_FLOAT32, 1e15)), "T.float32(1000000000000000.0)");
  cr_assert(strncmp(pe(F(TX_FLOAT32, 1.5e300)), "T.float32(1500000000000000078757", 32) == 0);
  cr_assert_str_eq(pe(F(TX_FLOAT32, -2.5)), "T.float32(-2.5)");
  cr_assert_str_eq(pe(F(TX_FLOAT32, -0.0)), "T.float32(-0.0)");
  cr_assert_str_eq(pe(F(TX_FLOAT32, 0.0)), "T.float32(0.0)");
  cr_assert_str_eq(pe(F(TX_FLOAT32, (double)3.4028234663852886e38f)),
                   "T.float32(340282346638528859811704183484516925440.0)");
  cr_assert_str_eq(pe(F(TX_FLOAT32, 1.0 / 3)), "T.float32(0.33333333333333331)");
  cr_assert_str_eq(pe(F(TX_FLOAT32, INFINITY)), "T.float32(\"inf\")");
  cr_assert_str_eq(pe(F(TX_FLOAT32, -INFINITY)), "T.float32(\"-inf\")");
  cr_assert_str_eq(pe(F(TX_FLOAT32, NAN)), "T.float32(\"nan\")");
}

Test(printer, strings_and_none) {
  cr_assert_str_eq(pe(STR("a\"b\\c\n\t\r\x01\x7f\xc3\xa9")),
                   "\"a\\\"b\\\\c\\n\\t\\r\\x01\\x7f\xc3\xa9\"");
  cr_assert_str_eq(pe(tx_none(&ir, NOSPAN)), "None");
}

/* ---- precedence ---- */

Test(printer, precedence) {
  const tx_expr *a = V("a"), *b = V("b"), *c = V("c");
  cr_assert_str_eq(pe(B(EXPR_MUL, B(EXPR_ADD, a, b), c)), "(a + b) * c");
  cr_assert_str_eq(pe(B(EXPR_ADD, a, B(EXPR_MUL, b, c))), "a + b * c");
  cr_assert_str_eq(pe(B(EXPR_SUB, a, B(EXPR_SUB, b, c))), "a - (b - c)");
  cr_assert_str_eq(pe(B(EXPR_SUB, B(EXPR_SUB, a, b), c)), "a - b - c");
  cr_assert_str_eq(pe(B(EXPR_ADD, a, B(EXPR_ADD, b, c))), "a + (b + c)");
  cr_assert_str_eq(pe(B(EXPR_FLOORDIV, a, B(EXPR_MUL, b, c))), "a // (b * c)");
  cr_assert_str_eq(pe(B(EXPR_FLOORMOD, B(EXPR_FLOORDIV, a, b), c)), "a // b % c");
  cr_assert_str_eq(pe(B(EXPR_SUB, a, I(-3))), "a - -3");
  cr_assert_str_eq(pe(B(EXPR_MUL, I(-3), a)), "-3 * a");
  cr_assert_str_eq(pe(B(EXPR_LT, B(EXPR_ADD, a, I(1)), b)), "a + 1 < b");
  /* Operands of different dtypes print as the constructor (TVM's operator
   * would cast them first). */
  cr_assert_str_eq(pe(B(EXPR_EQ, B(EXPR_LT, a, b), c)), "T.EQ(a < b, c)");
  cr_assert_str_eq(pe(B(EXPR_EQ, B(EXPR_LT, a, b), B(EXPR_LT, b, c))), "(a < b) == (b < c)");
  const tx_expr *lt = B(EXPR_LT, a, b), *gt = B(EXPR_GT, b, c);
  cr_assert_str_eq(pe(B(EXPR_AND, lt, gt)), "a < b and b > c");
  cr_assert_str_eq(pe(B(EXPR_AND, B(EXPR_OR, lt, gt), lt)), "(a < b or b > c) and a < b");
  cr_assert_str_eq(pe(B(EXPR_OR, lt, B(EXPR_AND, gt, lt))), "a < b or b > c and a < b");
  cr_assert_str_eq(pe(B(EXPR_AND, lt, B(EXPR_AND, gt, lt))), "a < b and (b > c and a < b)");
  const tx_expr *n = E(EXPR_NOT, TX_BOOL, &lt, 1);
  cr_assert_str_eq(pe(n), "not a < b");
  const tx_expr *orr = B(EXPR_OR, lt, gt);
  cr_assert_str_eq(pe(E(EXPR_NOT, TX_BOOL, &orr, 1)), "not (a < b or b > c)");
  cr_assert_str_eq(pe(B(EXPR_AND, n, gt)), "not a < b and b > c");
  cr_assert_str_eq(pe(B(EXPR_EQ, n, gt)), "(not a < b) == (b > c)");
}

Test(printer, call_like_binaries) {
  const tx_expr *a = V("a"), *b = V("b");
  cr_assert_str_eq(pe(B(EXPR_DIV, a, b)), "T.Div(a, b)");
  cr_assert_str_eq(pe(B(EXPR_MOD, a, B(EXPR_ADD, a, b))), "T.truncmod(a, a + b)");
  cr_assert_str_eq(pe(B(EXPR_MUL, B(EXPR_MIN, a, b), B(EXPR_MAX, a, b))),
                   "T.min(a, b) * T.max(a, b)");
  const tx_expr *x = tx_var(&ir, "x", TX_FLOAT32, VAR_PLAIN, NOSPAN);
  cr_assert_str_eq(pe(B(EXPR_DIV, x, B(EXPR_DIV, x, F(TX_FLOAT32, 2)))),
                   "x / (x / T.float32(2.0))");
}

Test(printer, misc_exprs) {
  const tx_expr *a = V("a");
  const tx_expr *sel[] = {IT(TX_BOOL, 1), I(0), I(2)};
  cr_assert_str_eq(pe(E(EXPR_SELECT, TX_INT32, sel, 3)), "T.Select(T.bool(True), 0, 2)");
  cr_assert_str_eq(pe(E(EXPR_CAST, tx_dt(DT_FLOAT, 64, 1), &a, 1)), "T.Cast(\"float64\", a)");
  const tx_expr *ramp[] = {a, I(1)};
  cr_assert_str_eq(pe(E(EXPR_RAMP, tx_dt(DT_INT, 32, 32), ramp, 2)), "T.Ramp(a, 1, 32)");
  const tx_expr *z = I(0);
  cr_assert_str_eq(pe(E(EXPR_BROADCAST, tx_dt(DT_INT, 32, 4), &z, 1)), "T.Broadcast(0, 4)");
  tx_expr *x = V("x");
  const tx_expr *let_ops[] = {I(1), B(EXPR_ADD, x, I(1))};
  tx_expr *let = tx_expr_new(&ir, EXPR_LET, TX_INT32, let_ops, 2, NOSPAN);
  let->u.binder = x;
  cr_assert_str_eq(pe(let), "T.Let(x + 1, where={x: 1})");
  const tx_expr *t2[] = {a, I(1)};
  cr_assert_str_eq(pe(TUP(t2, 2, 0)), "(a, 1)");
  cr_assert_str_eq(pe(TUP(t2, 1, 0)), "(a,)");
  cr_assert_str_eq(pe(TUP(NULL, 0, 0)), "()");
  cr_assert_str_eq(pe(TUP(t2, 2, 1)), "[a, 1]");
  tx_expr *d = tx_var(&ir, "pool", TX_HANDLE, VAR_BUFFER_DATA, NOSPAN);
  cr_assert_str_eq(pe(d), "pool.data");
}

Test(printer, calls_loads_regions) {
  const tx_expr *i = V("i"), *j = V("j");
  const tx_expr *shape[] = {I(128), I(128)};
  tx_buffer *A = BUF("A", BUF_PARAM, tx_dt(DT_FLOAT, 16, 1), shape, 2);
  const tx_expr *idx[] = {i, B(EXPR_ADD, j, I(1))};
  cr_assert_str_eq(pe(LOAD(A, idx, 2)), "A[i, j + 1]");
  cr_assert_str_eq(pe(LOAD(A, NULL, 0)), "A[()]");
  const tx_expr *args[] = {I(1), STR("x"), I(8)};
  const char *kw[] = {"width"};
  cr_assert_str_eq(pe(CALL("T.cuda.warp_sum", args, 3, 2, kw)),
                   "T.cuda.warp_sum(1, \"x\", width=8)");
  cr_assert_str_eq(pe(CALL("T.cuda.cta_sync", NULL, 0, 0, NULL)), "T.cuda.cta_sync()");
  tx_expr *ref = tx_expr_new(&ir, EXPR_BUFFER, TX_HANDLE, NULL, 0, NOSPAN);
  ref->u.buffer = A;
  const tx_expr *lst = TUP(&i, 1, 1);
  const tx_expr *m[] = {ref, lst, STR("float32x4")};
  const char *kw2[] = {"dtype"};
  cr_assert_str_eq(pe(CALL(".vload", m, 3, 2, kw2)), "A.vload([i], dtype=\"float32x4\")");
  const tx_expr *none = tx_none(&ir, NOSPAN);
  const tx_expr *s1[] = {I(0), I(128)}, *s2[] = {none, none}, *s3[] = {j, none}, *s4[] = {none, j};
  const tx_expr *s5[] = {i, B(EXPR_ADD, i, I(64))};
  const tx_expr *reg_ops[] = {E(EXPR_SLICE, TX_VOID, s1, 2), i,
                              E(EXPR_SLICE, TX_VOID, s2, 2), E(EXPR_SLICE, TX_VOID, s3, 2),
                              E(EXPR_SLICE, TX_VOID, s4, 2), E(EXPR_SLICE, TX_VOID, s5, 2)};
  tx_expr *reg = tx_expr_new(&ir, EXPR_REGION, TX_VOID, reg_ops, 6, NOSPAN);
  reg->u.buffer = A;
  cr_assert_str_eq(pe(reg), "A[0:128, i, :, j:, :j, i:i + 64]");
  cr_assert_str_eq(pe(reg_ops[0]), "0:128");
}

/* ---- layouts ---- */

static tx_layout *TILE(const tx_layout_iter *sh, uint32_t n, int tuple) {
  tx_layout *l = tx_arena_alloc(arena, sizeof *l);
  l->kind = LAYOUT_TILE;
  l->shard = sh;
  l->nshard = n;
  l->shard_is_tuple = tuple;
  return l;
}

Test(printer, layouts) {
  tx_layout_iter sh[] = {{I(8), I(4), NULL}, {I(4), I(1), S("m")}};
  cr_assert_str_eq(pe(E(EXPR_NONE, TX_VOID, NULL, 0)), "None");
  tx_strbuf out = {0};
  tx_print_layout(TILE(sh, 2, 1), &out);
  cr_assert_str_eq(tx_sb_cstr(&out), "T.TileLayout(T.S[(8, 4):(4, 1)])");
  tx_sb_free(&out);

  tx_layout_iter one[] = {{I(16384), I(1), NULL}};
  tx_layout *c = tx_arena_alloc(arena, sizeof *c);
  *c = (tx_layout){.kind = LAYOUT_COMPOSE,
                   .per_element = 3,
                   .swizzle_len = 3,
                   .atom_len = 3,
                   .tile = TILE(one, 1, 0)};
  tx_print_layout(c, &out);
  cr_assert_str_eq(tx_sb_cstr(&out), "T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[16384:1]))");
  tx_sb_free(&out);

  tx_layout *sw = tx_arena_alloc(arena, sizeof *sw);
  *sw = (tx_layout){.kind = LAYOUT_SWIZZLE, .per_element = 3, .swizzle_len = 2, .atom_len = 3};
  tx_print_layout(sw, &out);
  cr_assert_str_eq(tx_sb_cstr(&out), "T.SwizzleLayout(3, 2, 3)");
  tx_sb_free(&out);

  tx_layout_iter ax[] = {{I(8), I(4), S("laneid")}, {I(2), B(EXPR_ADD, I(1), I(1)), S("warpid")}};
  tx_layout_iter rep[] = {{I(4), I(1), S("laneid")}};
  tx_layout_iter offs[] = {{NULL, I(5), S("warpid")}, {NULL, I(64), NULL}};
  tx_layout *t = TILE(ax, 2, 1);
  t->replica = rep;
  t->nreplica = 1;
  t->offset = offs;
  t->noffset = 2;
  tx_print_layout(t, &out);
  cr_assert_str_eq(tx_sb_cstr(&out),
                   "T.TileLayout(T.S[(8, 2):(4 @ Axis.laneid, T.Add(1, 1) @ Axis.warpid)] + "
                   "T.R[4:1 @ Axis.laneid] + (64 + 5 @ Axis.warpid))");
  tx_sb_free(&out);
  t->replica_is_tuple = 1;
  tx_print_layout(t, &out);
  cr_assert(strstr(tx_sb_cstr(&out), "T.R[4:1 @ Axis.laneid]")); /* TVM: one iterator, no tuple */
  tx_sb_free(&out);
}

/* ---- statements ---- */

Test(printer, store_bind_assign) {
  const tx_expr *i = V("i"), *j = V("j");
  const tx_expr *shape[] = {I(8), I(8)};
  tx_buffer *Bf = BUF("B", BUF_PARAM, TX_FLOAT32, shape, 2);
  const tx_expr *ex[] = {F(TX_FLOAT32, 1), i, j};
  tx_stmt *st = ST(STMT_STORE, ex, 3, NULL, 0);
  st->buffer = Bf;
  cr_assert_str_eq(ps(st), "B[i, j] = T.float32(1.0)\n");

  const tx_expr *x = V("x"), *v = B(EXPR_MUL, i, I(2));
  tx_stmt *b = ST(STMT_BIND, &v, 1, NULL, 0);
  b->vars = TX_DUP(&ir, tx_expr, &x, 1);
  b->nvars = 1;
  const char *want[] = {"x = i * 2\n", "x: T.let = i * 2\n", "x: T.let[T.int32] = i * 2\n",
                        "x: T.int32 = i * 2\n", "x = T.local_scalar(\"int32\")\n"};
  for (int f = BIND_PLAIN; f <= BIND_LOCAL_SCALAR; f++) {
    b->flag = (uint8_t)f;
    cr_assert_str_eq(ps(b), want[f]);
  }
  b->flag = BIND_SCALAR;
  b->nexprs = 0;
  cr_assert_str_eq(ps(b), "x: T.int32\n");

  tx_stmt *as = ST(STMT_ASSIGN, &v, 1, NULL, 0);
  as->vars = b->vars;
  as->nvars = 1;
  cr_assert_str_eq(ps(as), "x = i * 2\n");
}

Test(printer, attr_assert_eval_return) {
  const tx_expr *vals[] = {IT(TX_INT64, 99328), STR("v")};
  tx_stmt *at = ST(STMT_ATTR, vals, 2, (const tx_stmt *const[]){EVAL(I(0))}, 1);
  at->kw.names = NAMES((const char *[]){"tirx.dyn_smem_bytes", "k"}, 2);
  at->flag = 1;
  cr_assert_str_eq(ps(at), "with T.attr({\"tirx.dyn_smem_bytes\": T.int64(99328), \"k\": \"v\"}):\n"
                           "    T.evaluate(0)\n");
  tx_stmt *flat = ST(STMT_ATTR, vals, 1, NULL, 0);
  flat->kw.names = at->kw.names;
  cr_assert_str_eq(ps(flat), "T.attr({\"tirx.dyn_smem_bytes\": T.int64(99328)})\n");

  const tx_expr *as[] = {B(EXPR_LT, V("a"), I(4)), STR("bad")};
  cr_assert_str_eq(ps(ST(STMT_ASSERT, as, 2, NULL, 0)), "assert a < 4, \"bad\"\n");
  cr_assert_str_eq(ps(EVAL(CALL("T.cuda.cta_sync", NULL, 0, 0, NULL))), "T.cuda.cta_sync()\n");
  cr_assert_str_eq(ps(EVAL(I(1))), "T.evaluate(1)\n");
  cr_assert_str_eq(ps(ST(STMT_RETURN, NULL, 0, NULL, 0)), "return\n");
  const tx_expr *r = V("r");
  cr_assert_str_eq(ps(ST(STMT_RETURN, &r, 1, NULL, 0)), "return r\n");
  cr_assert_str_eq(ps(ST(STMT_BREAK, NULL, 0, NULL, 0)), "T.break_loop()\n");
  cr_assert_str_eq(ps(ST(STMT_CONTINUE, NULL, 0, NULL, 0)), "T.continue_loop()\n");
}

Test(printer, if_while_seq) {
  const tx_expr *c1 = B(EXPR_EQ, V("a"), I(1)), *c2 = B(EXPR_EQ, V("a"), I(2));
  const tx_stmt *inner[] = {EVAL(I(2)), EVAL(I(3))};
  const tx_expr *ic[] = {c2};
  const tx_stmt *elif = ST(STMT_IF, ic, 1, inner, 2);
  const tx_stmt *outer[] = {SEQ((const tx_stmt *const[]){EVAL(I(0)), EVAL(I(1))}, 2), elif};
  const tx_expr *oc[] = {c1};
  cr_assert_str_eq(ps(ST(STMT_IF, oc, 1, outer, 2)), "if a == 1:\n"
                                                     "    T.evaluate(0)\n"
                                                     "    T.evaluate(1)\n"
                                                     "else:\n"
                                                     "    if a == 2:\n"
                                                     "        T.evaluate(2)\n"
                                                     "    else:\n"
                                                     "        T.evaluate(3)\n");
  const tx_stmt *wb = SEQ(NULL, 0);
  cr_assert_str_eq(ps(ST(STMT_WHILE, oc, 1, &wb, 1)), "while a == 1:\n    T.evaluate(0)\n");
}

Test(printer, for_forms) {
  const tx_expr *i = V("i"), *n = V("n");
  const tx_stmt *body = EVAL(I(0));
  cr_assert_str_eq(ps(RANGE(i, n, body)), "for i in range(n):\n    T.evaluate(0)\n");
  const tx_expr *be[] = {I(2), n, I(3)};
  cr_assert_str_eq(ps(FOR(FOR_SERIAL, i, be, 2, 2, NULL, body)),
                   "for i in range(2, n):\n    T.evaluate(0)\n");
  cr_assert_str_eq(ps(FOR(FOR_SERIAL, i, be, 3, 3, NULL, body)),
                   "for i in range(2, n, 3):\n    T.evaluate(0)\n");
  const tx_expr *kwe[] = {I(0), n, I(1)};
  const char *kw[] = {"pragma"};
  cr_assert_str_eq(ps(FOR(FOR_SERIAL, i, kwe, 3, 2, kw, body)),
                   "for i in T.serial(n, pragma=1):\n    T.evaluate(0)\n");
  cr_assert_str_eq(ps(FOR(FOR_UNROLL, i, kwe, 2, 2, NULL, body)),
                   "for i in T.unroll(n):\n    T.evaluate(0)\n");
  cr_assert_str_eq(ps(FOR(FOR_VECTORIZED, i, be, 2, 2, NULL, body)),
                   "for i in T.vectorized(2, n):\n    T.evaluate(0)\n");
  cr_assert_str_eq(ps(FOR(FOR_PARALLEL, i, kwe, 3, 2, kw, body)),
                   "for i in T.parallel(n, pragma=1):\n    T.evaluate(0)\n");
  tx_stmt *tb = FOR(FOR_THREAD_BINDING, i, kwe, 2, 2, NULL, body);
  tb->name = S("threadIdx.x");
  cr_assert_str_eq(ps(tb),
                   "for i in T.thread_binding(n, thread=\"threadIdx.x\"):\n    T.evaluate(0)\n");
}

Test(printer, grid_merging) {
  const tx_expr *i = V("i"), *j = V("j"), *k = V("k");
  const tx_stmt *g = RANGE(i, I(128), RANGE(j, I(64), RANGE(k, I(32), EVAL(I(0)))));
  cr_assert_str_eq(ps(g), "for i, j, k in T.grid(128, 64, 32):\n    T.evaluate(0)\n");
  /* An inner extent that depends on an outer var stops the merge there. */
  const tx_stmt *dep = RANGE(i, I(8), RANGE(j, I(4), RANGE(k, B(EXPR_ADD, i, I(1)), EVAL(I(0)))));
  cr_assert_str_eq(ps(dep), "for i, j in T.grid(8, 4):\n"
                            "    for k in range(i + 1):\n"
                            "        T.evaluate(0)\n");
  /* Two statements in the body: no merge. */
  const tx_stmt *two[] = {RANGE(j, I(4), EVAL(I(0))), EVAL(I(1))};
  cr_assert_str_eq(ps(RANGE(i, I(8), SEQ(two, 2))), "for i in range(8):\n"
                                                    "    for j in range(4):\n"
                                                    "        T.evaluate(0)\n"
                                                    "    T.evaluate(1)\n");
  /* A non-zero begin is not a grid. */
  const tx_expr *be[] = {I(1), I(4)};
  const tx_stmt *nz = RANGE(i, I(8), FOR(FOR_SERIAL, j, be, 2, 2, NULL, EVAL(I(0))));
  cr_assert_str_eq(ps(nz),
                   "for i in range(8):\n    for j in range(1, 4):\n        T.evaluate(0)\n");
}

static tx_stmt *WITH(const tx_expr *call, const tx_expr *const *vars, uint32_t nv,
                     const tx_stmt *body) {
  tx_stmt *s = ST(STMT_WITH, &call, 1, &body, 1);
  s->vars = TX_DUP(&ir, tx_expr, vars, nv);
  s->nvars = nv;
  return s;
}

Test(printer, with_merging) {
  const tx_expr *a1[] = {STR("blockIdx.x"), I(1)}, *a2[] = {STR("threadIdx.x"), I(1)};
  const tx_expr *l1 = CALL("T.launch_thread", a1, 2, 2, NULL),
                *l2 = CALL("T.launch_thread", a2, 2, 2, NULL);
  const tx_stmt *w = WITH(l1, NULL, 0, WITH(l2, NULL, 0, EVAL(I(0))));
  cr_assert_str_eq(ps(w),
                   "with T.launch_thread(\"blockIdx.x\", 1), T.launch_thread(\"threadIdx.x\", 1):\n"
                   "    T.evaluate(0)\n");
  const tx_expr *x = V("x"), *xy[] = {V("a"), V("b")};
  const tx_stmt *as = WITH(CALL("T.cta", NULL, 0, 0, NULL), &x, 1, WITH(l2, xy, 2, EVAL(I(0))));
  cr_assert_str_eq(ps(as), "with T.cta() as x, T.launch_thread(\"threadIdx.x\", 1) as (a, b):\n"
                           "    T.evaluate(0)\n");
  const tx_stmt *two[] = {WITH(l2, NULL, 0, EVAL(I(0))), EVAL(I(1))};
  cr_assert_str_eq(ps(WITH(l1, NULL, 0, SEQ(two, 2))),
                   "with T.launch_thread(\"blockIdx.x\", 1):\n"
                   "    with T.launch_thread(\"threadIdx.x\", 1):\n"
                   "        T.evaluate(0)\n"
                   "    T.evaluate(1)\n");
}

Test(printer, scope_id_device_entry_tile_op) {
  const tx_expr *lst[] = {V("GM"), V("GN")};
  const tx_expr *arg = TUP(lst, 2, 1);
  tx_stmt *sid = ST(STMT_SCOPE_ID, &arg, 1, NULL, 0);
  sid->name = S("cta_id");
  const tx_expr *vs[] = {V("bx"), V("by")};
  sid->vars = TX_DUP(&ir, tx_expr, vs, 2);
  sid->nvars = 2;
  cr_assert_str_eq(ps(sid), "bx, by = T.cta_id([GM, GN])\n");
  const tx_expr *ex[] = {TUP(lst, 1, 1), STR("uint32")};
  tx_stmt *tid = ST(STMT_SCOPE_ID, ex, 2, NULL, 0);
  tid->name = S("thread_id");
  tid->kw = (tx_kwargs){.npos = 1, .names = NAMES((const char *[]){"dtype"}, 1)};
  cr_assert_str_eq(ps(tid), "T.thread_id([GM], dtype=\"uint32\")\n");

  tx_stmt *de = ST(STMT_DEVICE_ENTRY, NULL, 0, NULL, 0);
  cr_assert_str_eq(ps(de), "T.device_entry()\n");
  const tx_stmt *body = EVAL(I(0));
  tx_stmt *dw = ST(STMT_DEVICE_ENTRY, NULL, 0, &body, 1);
  dw->flag = 1;
  cr_assert_str_eq(ps(dw), "with T.device_entry():\n    T.evaluate(0)\n");

  const tx_expr *shape[] = {I(16)};
  tx_buffer *A = BUF("A", BUF_ALLOC, TX_FLOAT32, shape, 1);
  const tx_expr *sl[] = {I(0), I(16)};
  const tx_expr *slice = E(EXPR_SLICE, TX_VOID, sl, 2);
  tx_expr *reg = tx_expr_new(&ir, EXPR_REGION, TX_VOID, &slice, 1, NOSPAN);
  reg->u.buffer = A;
  const tx_expr *targs[] = {reg, F(TX_FLOAT32, 1.25), STR("v10"), I(7)};
  tx_stmt *op = ST(STMT_TILE_OP, targs, 4, NULL, 0);
  op->name = S("T.tile.memset");
  op->kw = (tx_kwargs){.npos = 2, .names = NAMES((const char *[]){"dispatch", "bar"}, 2)};
  cr_assert_str_eq(ps(op), "T.tile.memset(A[0:16], T.float32(1.25), dispatch=\"v10\", bar=7)\n");
}

static const char *alloc_text(tx_buffer *b) {
  tx_stmt *s = ST(b->form == BUF_ALLOC || b->form == BUF_ALLOC_SHARED || b->form == BUF_ALLOC_LOCAL
                      ? STMT_ALLOC
                      : STMT_DECL,
                  NULL, 0, NULL, 0);
  s->buffer = b;
  return ps(s);
}

Test(printer, buffer_ctors) {
  const tx_expr *s16[] = {I(16)}, *s2[] = {I(128), I(128)};
  tx_buffer *a = BUF("A", BUF_ALLOC, TX_FLOAT32, s16, 1);
  cr_assert_str_eq(alloc_text(a), "A = T.alloc_buffer((16,))\n");
  a->scope = S("shared.dyn");
  a->dtype = tx_dt(DT_UINT, 8, 1);
  cr_assert_str_eq(alloc_text(a), "A = T.alloc_buffer((16,), \"uint8\", scope=\"shared.dyn\")\n");
  tx_buffer *sh = BUF("S", BUF_ALLOC_SHARED, tx_dt(DT_FLOAT, 16, 1), s2, 2);
  sh->scope = S("shared");
  cr_assert_str_eq(alloc_text(sh), "S = T.alloc_shared((128, 128), \"float16\")\n");
  tx_buffer *lo = BUF("L", BUF_ALLOC_LOCAL, TX_FLOAT32, s16, 1);
  lo->scope = S("local");
  cr_assert_str_eq(alloc_text(lo), "L = T.alloc_local((16,))\n");

  /* Every keyword, in TVM's order. */
  tx_buffer *d = BUF("D", BUF_DECL, tx_dt(DT_UINT, 64, 1), s16, 1);
  d->data = a->data;
  d->strides = TX_DUP(&ir, tx_expr, (const tx_expr *[]){I(1)}, 1);
  d->nstrides = 1;
  d->elem_offset = I(1);
  d->scope = S("shared.dyn");
  d->align = 8;
  d->offset_factor = 4;
  tx_layout_iter one[] = {{I(16), I(2), NULL}};
  d->layout = TILE(one, 1, 0);
  d->allocated_addr = I(0);
  cr_assert_str_eq(alloc_text(d), "D = T.decl_buffer((16,), \"uint64\", data=A.data, strides=(1,), "
                                  "elem_offset=1, scope=\"shared.dyn\", align=8, offset_factor=4, "
                                  "layout=T.TileLayout(T.S[16:2]), allocated_addr=0)\n");
  tx_buffer *own = BUF("O", BUF_DECL, TX_FLOAT32, s16, 1);
  cr_assert_str_eq(alloc_text(own), "O = T.decl_buffer((16,))\n");

  tx_buffer *sc = BUF("tmem_addr", BUF_DECL_SCALAR, tx_dt(DT_UINT, 32, 1), NULL, 0);
  sc->data = a->data;
  sc->elem_offset = I(0);
  sc->scope = S("shared.dyn");
  cr_assert_str_eq(
      alloc_text(sc),
      "tmem_addr = T.decl_scalar(T.uint32, data=A.data, elem_offset=0, scope=\"shared.dyn\")\n");

  tx_expr *ref = tx_expr_new(&ir, EXPR_BUFFER, TX_HANDLE, NULL, 0, NOSPAN);
  ref->u.buffer = lo;
  const tx_expr *vops[] = {ref, I(4), I(4)};
  tx_buffer *view = BUF("W", BUF_VIEW, TX_FLOAT32, NULL, 0);
  view->origin = CALL(".view", vops, 3, 3, NULL);
  cr_assert_str_eq(alloc_text(view), "W = L.view(4, 4)\n");
}

/* ---- functions and modules ---- */

Test(printer, func_params_and_prologue) {
  const tx_expr *s256[] = {I(256)};
  tx_expr *pa = tx_var(&ir, "A", TX_HANDLE, VAR_PARAM, NOSPAN);
  tx_expr *pb = tx_var(&ir, "b", TX_HANDLE, VAR_PARAM, NOSPAN);
  tx_expr *pn = tx_var(&ir, "n", TX_INT32, VAR_PARAM, NOSPAN);
  tx_expr *pp = tx_var(&ir, "p", TX_HANDLE, VAR_PARAM, NOSPAN);
  pp->u.var.has_pointee = 1;
  pp->u.var.pointee = TX_FLOAT32;
  pp->u.var.scope = S("shared");
  tx_expr *pq = tx_var(&ir, "q", TX_HANDLE, VAR_PARAM, NOSPAN);
  tx_buffer *A = BUF("A", BUF_PARAM, TX_FLOAT32, s256, 1);
  A->align = 16;
  tx_expr *m = tx_var(&ir, "m", TX_INT32, VAR_SYMBOLIC, NOSPAN);
  const tx_expr *sm[] = {m};
  tx_buffer *Bm = BUF("B", BUF_MATCH, tx_dt(DT_FLOAT, 16, 1), sm, 1);
  Bm->origin = pb;
  Bm->align = 16;
  tx_func *f = FUNC("main", NULL);
  const tx_expr *params[] = {pa, pb, pn, pp, pq};
  const tx_buffer *bufs[] = {A, Bm, NULL, NULL, NULL};
  f->params = params;
  f->param_bufs = bufs;
  f->nparams = 5;
  f->attr_keys = NAMES((const char *[]){"global_symbol", "tirx.noalias"}, 2);
  f->attr_values = (const tx_expr *[]){STR("main"), IT(TX_BOOL, 1)};
  f->nattrs = 2;
  f->symbolic = sm;
  f->nsymbolic = 1;
  f->is_private = 1;
  cr_assert_str_eq(
      pf(f), "# from tvm.script import tirx as T\n"
             "# from tvm.tirx.layout import Axis\n"
             "\n"
             "@T.prim_func(private=True)\n"
             "def main(A: T.Buffer((256,), \"float32\", align=16), b: T.handle, n: T.int32, "
             "p: T.handle(\"float32\", \"shared\"), q: T.handle):\n"
             "    T.func_attr({\"global_symbol\": \"main\", \"tirx.noalias\": T.bool(True)})\n"
             "    m = T.int32()\n"
             "    B = T.match_buffer(b, (m,), \"float16\", align=16)\n"
             "    T.evaluate(0)\n");
}

Test(printer, module_header_and_axis) {
  const tx_expr *s32[] = {I(32)};
  tx_buffer *L = BUF("L", BUF_ALLOC_LOCAL, TX_FLOAT32, s32, 1);
  L->scope = S("local");
  tx_layout_iter it[] = {{I(32), I(1), S("laneid")}};
  L->layout = TILE(it, 1, 0);
  tx_stmt *al = ST(STMT_ALLOC, NULL, 0, NULL, 0);
  al->buffer = L;
  tx_func *f = FUNC("f", al);
  tx_func *g = FUNC("g", SEQ(NULL, 0));
  const tx_func *fs[] = {f, g};
  tx_module mod = {.name = S("Module"), .nfuncs = 2, .funcs = fs};
  tx_sb_free(&sb);
  tx_print_module(&mod, &sb);
  cr_assert_str_eq(
      tx_sb_cstr(&sb),
      "# from tvm.script import ir as I\n"
      "# from tvm.script import tirx as T\n"
      "# from tvm.tirx.layout import Axis\n"
      "\n"
      "@I.ir_module\n"
      "class Module:\n"
      "    @T.prim_func\n"
      "    def f():\n"
      "        L = T.alloc_local((32,), layout=T.TileLayout(T.S[32:1 @ Axis.laneid]))\n"
      "\n"
      "    @T.prim_func\n"
      "    def g():\n"
      "        T.evaluate(0)\n");
  /* A lone function: TVM imports Axis with T all the same; the default
   * layout T.S[32:1] on the memory axis is left out. */
  it[0].axis = S("m");
  tx_module lone = {.nfuncs = 1, .funcs = fs};
  tx_sb_free(&sb);
  tx_print_module(&lone, &sb);
  cr_assert_str_eq(tx_sb_cstr(&sb), "# from tvm.script import tirx as T\n"
                                    "# from tvm.tirx.layout import Axis\n"
                                    "\n"
                                    "@T.prim_func\n"
                                    "def f():\n"
                                    "    L = T.alloc_local((32,))\n");
  /* No layout at all is `layout=None`. */
  L->layout = NULL;
  L->layout_none = 1;
  tx_sb_free(&sb);
  tx_print_module(&lone, &sb);
  cr_assert(strstr(tx_sb_cstr(&sb), "    L = T.alloc_local((32,), layout=None)\n"));
  /* An empty module class needs no TIRx import. */
  tx_module empty = {.name = S("Module")};
  tx_sb_free(&sb);
  tx_print_module(&empty, &sb);
  cr_assert_str_eq(tx_sb_cstr(&sb), "# from tvm.script import ir as I\n"
                                    "\n"
                                    "@I.ir_module\n"
                                    "class Module:\n"
                                    "    pass\n");
}

/* ---- TVM's operator sugar ---- */

Test(printer, bitwise_builtins_print_as_operators) {
  const tx_expr *a = V("a"), *b = V("b");
  const tx_expr *ab[] = {a, b};
  const tx_expr *sh = CALL("T.shift_right", ab, 2, 2, NULL);
  const tx_expr *and_ops[] = {sh, I(1)};
  const tx_expr *an = CALL("T.bitwise_and", and_ops, 2, 2, NULL);
  cr_assert_str_eq(pe(an), "a >> b & 1");
  cr_assert_str_eq(pe(B(EXPR_ADD, sh, an)), "(a >> b) + (a >> b & 1)");
  const tx_expr *or_ops[] = {an, CALL("T.bitwise_xor", ab, 2, 2, NULL)};
  cr_assert_str_eq(pe(CALL("T.bitwise_or", or_ops, 2, 2, NULL)), "a >> b & 1 | a ^ b");
  const tx_expr *nested[] = {a, sh};
  cr_assert_str_eq(pe(CALL("T.shift_left", nested, 2, 2, NULL)), "a << (a >> b)");
  const tx_expr *sum = B(EXPR_ADD, a, b);
  cr_assert_str_eq(pe(CALL("T.bitwise_not", &sum, 1, 1, NULL)), "~(a + b)");
  /* Comparisons bind looser than the bitwise operators. */
  cr_assert_str_eq(pe(B(EXPR_EQ, an, I(0))), "a >> b & 1 == 0");
}

Test(printer, constructor_where_tvm_would_fold) {
  const tx_expr *a = V("a");
  cr_assert_str_eq(pe(B(EXPR_ADD, I(32), I(64))), "T.Add(32, 64)");
  cr_assert_str_eq(pe(B(EXPR_ADD, a, I(0))), "T.Add(a, 0)");
  cr_assert_str_eq(pe(B(EXPR_ADD, a, I(1))), "a + 1");
  cr_assert_str_eq(pe(B(EXPR_SUB, I(0), a)), "0 - a");
  cr_assert_str_eq(pe(B(EXPR_SUB, a, I(0))), "T.Sub(a, 0)");
  cr_assert_str_eq(pe(B(EXPR_MUL, I(1), a)), "T.Mul(1, a)");
  cr_assert_str_eq(pe(B(EXPR_MUL, I(2), a)), "2 * a");
  cr_assert_str_eq(pe(B(EXPR_FLOORDIV, a, I(1))), "T.FloorDiv(a, 1)");
  cr_assert_str_eq(pe(B(EXPR_FLOORMOD, a, I(1))), "T.FloorMod(a, 1)");
  cr_assert_str_eq(pe(B(EXPR_LT, I(1), I(2))), "T.LT(1, 2)");
  cr_assert_str_eq(pe(B(EXPR_AND, IT(TX_BOOL, 1), B(EXPR_LT, a, I(1)))),
                   "T.And(T.bool(True), a < 1)");
  cr_assert_str_eq(pe(B(EXPR_ADD, a, IT(TX_INT64, 1))), "T.Add(a, T.int64(1))");
  /* float16 constants do not fold; float32 ones do, and x / 1.0 does. */
  tx_dtype f16 = tx_dt(DT_FLOAT, 16, 1);
  cr_assert_str_eq(pe(B(EXPR_ADD, F(f16, 1.5), F(f16, 2.5))), "T.float16(1.5) + T.float16(2.5)");
  cr_assert_str_eq(pe(B(EXPR_ADD, F(TX_FLOAT32, 1.5), F(TX_FLOAT32, 2.5))),
                   "T.Add(T.float32(1.5), T.float32(2.5))");
  const tx_expr *x = tx_var(&ir, "x", TX_FLOAT32, VAR_PLAIN, NOSPAN);
  cr_assert_str_eq(pe(B(EXPR_DIV, x, F(TX_FLOAT32, 1.0))), "T.Div(x, T.float32(1.0))");
  cr_assert_str_eq(pe(B(EXPR_DIV, x, F(TX_FLOAT32, 2.0))), "x / T.float32(2.0)");
  cr_assert_str_eq(pe(B(EXPR_MUL, B(EXPR_ADD, I(1), I(2)), a)), "T.Add(1, 2) * a");
}

Test(printer, keyword_ptx_opcodes) {
  const tx_expr *a = V("a");
  const tx_expr *ops[] = {a, a};
  cr_assert_str_eq(pe(CALL("T.ptx[\"and\"]", ops, 2, 2, NULL)), "T.ptx.and_(a, a)");
  cr_assert_str_eq(pe(CALL("T.ptx[\"not\"]", ops, 1, 1, NULL)), "T.ptx.not_(a)");
  cr_assert_str_eq(pe(CALL("T.ptx[\"ld.global.b32\"]", ops, 1, 1, NULL)),
                   "T.ptx[\"ld.global.b32\"](a)");
}

/* ---- free variables ---- */

Test(printer, free_variable_placement) {
  tx_expr *n = tx_var(&ir, "n", TX_INT32, VAR_SYMBOLIC, NOSPAN);
  tx_expr *m = tx_var(&ir, "m", TX_INT32, VAR_SYMBOLIC, NOSPAN);
  const tx_expr *s1[] = {I(16)};
  tx_buffer *A = BUF("A", BUF_PARAM, TX_INT32, s1, 1);
  const tx_expr *i = V("i"), *j = V("j");
  tx_stmt *st_i = ST(STMT_STORE, (const tx_expr *[]){m, i}, 2, NULL, 0);
  st_i->buffer = A;
  tx_stmt *st_j = ST(STMT_STORE, (const tx_expr *[]){I(1), j}, 2, NULL, 0);
  st_j->buffer = A;
  /* n only in the second loop's extent: declared on its body's first line;
   * m in the first loop's body: right before the statement using it. */
  const tx_stmt *first = RANGE(i, I(4), SEQ((const tx_stmt *[]){st_j, st_i}, 2));
  const tx_stmt *second = RANGE(j, n, st_j);
  tx_func *f = FUNC("main", SEQ((const tx_stmt *[]){first, second}, 2));
  const tx_expr *pa = V("A");
  f->params = (const tx_expr *[]){pa};
  f->param_bufs = (const tx_buffer *[]){A};
  f->nparams = 1;
  f->symbolic = (const tx_expr *[]){n, m};
  f->nsymbolic = 2;
  cr_assert_str_eq(pf(f), "# from tvm.script import tirx as T\n"
                          "# from tvm.tirx.layout import Axis\n"
                          "\n"
                          "@T.prim_func\n"
                          "def main(A: T.Buffer((16,), \"int32\")):\n"
                          "    for i in range(4):\n"
                          "        A[j] = 1\n"
                          "        m = T.int32()\n"
                          "        A[i] = m\n"
                          "    for j in range(n):\n"
                          "        n = T.int32()\n"
                          "        A[j] = 1\n");
}
