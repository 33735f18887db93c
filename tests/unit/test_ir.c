/*
 * test_ir.c - unit tests of the IR core: arena, interner, dtypes,
 * diagnostics, structural equality/hashing, the mutator and the visitor.
 *
 * IR is built by hand here so these tests depend on nothing but ir/.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ir/arena.h"
#include "ir/diag.h"
#include "abi/dtype.h"
#include "ir/equal.h"
#include "ir/fold.h"
#include "ir/intern.h"
#include "ir/ir.h"
#include "ir/modular.h"
#include "ir/ptrmap.h"
#include "support/strbuf.h"
#include "ir/visit.h"

/* ---- Fixture: one IR context per test ---------------------------------- */

static tx_ir ir;
static const tirx_span NOSPAN = {0};

static void ir_setup(void) {
  ir.arena = tx_arena_create(NULL);
  cr_assert_not_null(ir.arena);
  ir.strings = tx_interner_create(ir.arena);
  cr_assert_not_null(ir.strings);
}

static void ir_teardown(void) {
  tx_interner_destroy(ir.strings);
  tx_arena_destroy(ir.arena);
}

/* ---- Builders ------------------------------------------------------------ */

static const tx_expr *var(const char *name) {
  return tx_var(&ir, name, TX_INT32, VAR_PLAIN, NOSPAN);
}
static const tx_expr *i32(int64_t v) {
  return tx_int(&ir, TX_INT32, v, NOSPAN);
}
static const tx_expr *f32(double v) {
  return tx_float(&ir, TX_FLOAT32, v, NOSPAN);
}
static const tx_expr *add(const tx_expr *a, const tx_expr *b) {
  return tx_binary(&ir, EXPR_ADD, a, b, NOSPAN);
}
static const tx_expr *mul(const tx_expr *a, const tx_expr *b) {
  return tx_binary(&ir, EXPR_MUL, a, b, NOSPAN);
}

static const tx_expr *let(const tx_expr *binder, const tx_expr *value, const tx_expr *body) {
  const tx_expr *ops[] = {value, body};
  tx_expr *e = tx_expr_new(&ir, EXPR_LET, body->dtype, ops, 2, NOSPAN);
  e->u.binder = binder;
  return e;
}

static const tx_expr *call(const char *op, const tx_expr *arg) {
  tx_expr *e = tx_expr_new(&ir, EXPR_CALL, arg->dtype, &arg, 1, NOSPAN);
  e->u.call.op = tx_intern(ir.strings, op);
  e->u.call.kw.npos = 1;
  return e;
}

static tx_stmt *stmt_with_vars(tx_stmt *s, const tx_expr *v) {
  s->vars = TX_DUP(&ir, tx_expr, &v, 1);
  s->nvars = 1;
  return s;
}

static const tx_stmt *bind(const tx_expr *v, const tx_expr *value) {
  return stmt_with_vars(tx_stmt_new(&ir, STMT_BIND, &value, 1, NULL, 0, NOSPAN), v);
}

static const tx_stmt *for_(const tx_expr *v, const tx_expr *extent, const tx_stmt *body) {
  const tx_expr *ex[] = {i32(0), extent};
  return stmt_with_vars(tx_stmt_new(&ir, STMT_FOR, ex, 2, &body, 1, NOSPAN), v);
}

static const tx_stmt *seq2(const tx_stmt *a, const tx_stmt *b) {
  const tx_stmt *ss[] = {a, b};
  return tx_stmt_new(&ir, STMT_SEQ, NULL, 0, ss, 2, NOSPAN);
}

static const tx_stmt *eval(const tx_expr *e) {
  return tx_stmt_new(&ir, STMT_EVAL, &e, 1, NULL, 0, NOSPAN);
}

static tx_buffer *buffer(const char *name, const tx_expr *extent) {
  tx_buffer *b = tx_arena_alloc(ir.arena, sizeof *b);
  char data[64];
  snprintf(data, sizeof data, "%s_data", name);
  b->name = tx_intern(ir.strings, name);
  b->data = tx_var(&ir, data, TX_HANDLE, VAR_BUFFER_DATA, NOSPAN);
  b->dtype = TX_FLOAT32;
  b->ndim = 1;
  b->shape = TX_DUP(&ir, tx_expr, &extent, 1);
  b->scope = tx_intern(ir.strings, "global");
  b->form = BUF_ALLOC;
  return b;
}

static const tx_stmt *alloc(const tx_buffer *b) {
  tx_stmt *s = tx_stmt_new(&ir, STMT_ALLOC, NULL, 0, NULL, 0, NOSPAN);
  s->buffer = b;
  return s;
}

static const tx_expr *load(const tx_buffer *b, const tx_expr *index) {
  tx_expr *e = tx_expr_new(&ir, EXPR_LOAD, b->dtype, &index, 1, NOSPAN);
  e->u.buffer = b;
  return e;
}

static const tx_stmt *store(const tx_buffer *b, const tx_expr *index, const tx_expr *value) {
  const tx_expr *ex[] = {value, index};
  tx_stmt *s = tx_stmt_new(&ir, STMT_STORE, ex, 2, NULL, 0, NOSPAN);
  s->buffer = b;
  return s;
}

/* def f(A: T.Buffer((n,), "float32")):  -- names chosen by the caller
 *   for i in range(n): t = i * k; A[i] = A[i] + c   (k: free variable) */
static const tx_func *make_func(const char *pa, const char *pn, const char *pi, const char *pt,
                                double c, const tx_expr *k) {
  tx_func *f = tx_arena_alloc(ir.arena, sizeof *f);
  const tx_expr *n = tx_var(&ir, pn, TX_INT32, VAR_SYMBOLIC, NOSPAN);
  tx_buffer *A = buffer(pa, n);
  A->form = BUF_PARAM;
  const tx_expr *param = tx_var(&ir, pa, TX_HANDLE, VAR_PARAM, NOSPAN);
  const tx_buffer *bufs[] = {A};
  const tx_expr *i = var(pi), *t = var(pt);
  const tx_stmt *body = seq2(bind(t, mul(i, k)), store(A, i, add(load(A, i), f32(c))));
  f->name = tx_intern(ir.strings, "f");
  f->nparams = 1;
  f->params = TX_DUP(&ir, tx_expr, &param, 1);
  f->param_bufs = TX_DUP(&ir, tx_buffer, bufs, 1);
  f->nsymbolic = 1;
  f->symbolic = TX_DUP(&ir, tx_expr, &n, 1);
  f->body = for_(i, n, body);
  return f;
}

/* ---- Arena --------------------------------------------------------------- */

TestSuite(arena);

Test(arena, alloc_is_zeroed_and_aligned) {
  tx_arena *a = tx_arena_create(NULL);
  cr_assert_not_null(a);
  for (size_t size = 1; size < 200; size += 7) {
    unsigned char *p = tx_arena_alloc(a, size);
    cr_assert_not_null(p);
    cr_assert_eq((uintptr_t)p % alignof(max_align_t), 0, "size %zu misaligned", size);
    for (size_t i = 0; i < size; i++)
      cr_assert_eq(p[i], 0);
    memset(p, 0xab, size);
  }
  cr_assert_not_null(tx_arena_alloc(a, 0), "a zero-byte request still gets memory");
  tx_arena_destroy(a);
}

Test(arena, big_allocations) {
  tx_arena *a = tx_arena_create(NULL);
  size_t before = tx_arena_used(a);
  size_t big = (size_t)8 << 20; /* larger than any chunk */
  unsigned char *p = tx_arena_alloc(a, big);
  cr_assert_not_null(p);
  p[0] = 1;
  p[big - 1] = 2;
  cr_assert_geq(tx_arena_used(a) - before, big);
  unsigned char *q = tx_arena_alloc(a, 16); /* small ones keep working after */
  cr_assert_not_null(q);
  cr_assert(q + 16 <= p || q >= p + big, "allocations overlap");
  cr_assert_null(tx_arena_alloc(a, SIZE_MAX), "absurd sizes fail instead of wrapping");
  tx_arena_destroy(a);
}

Test(arena, strndup_and_dup) {
  tx_arena *a = tx_arena_create(NULL);
  char *s = tx_arena_strndup(a, "hello world", 5);
  cr_assert_str_eq(s, "hello");
  char *e = tx_arena_strndup(a, "", 0);
  cr_assert_str_eq(e, "");
  int xs[] = {1, 2, 3};
  int *d = tx_arena_dup(a, xs, 3, sizeof *xs);
  cr_assert(d != xs && d[0] == 1 && d[2] == 3);
  cr_assert_null(tx_arena_dup(a, xs, 0, sizeof *xs));
  tx_arena_destroy(a);
}

/* ---- Interner ------------------------------------------------------------ */

TestSuite(intern, .init = ir_setup, .fini = ir_teardown);

Test(intern, equal_strings_same_pointer) {
  const char *a = tx_intern(ir.strings, "float32");
  char buf[] = "float32";
  const char *b = tx_intern(ir.strings, buf);
  cr_assert_eq(a, b);
  cr_assert_neq(a, (const char *)buf);
  cr_assert_neq(a, tx_intern(ir.strings, "float16"));
  cr_assert_eq(tx_intern_n(ir.strings, "float32x4", 7), a, "a prefix interns as its own string");
  cr_assert_str_eq(tx_intern_n(ir.strings, "ab\0cd", 2), "ab");
}

Test(intern, growth_over_10k_strings) {
  enum { N = 10000 };
  static const char *first[N];
  char buf[32];
  for (int i = 0; i < N; i++) {
    snprintf(buf, sizeof buf, "name_%d", i);
    first[i] = tx_intern(ir.strings, buf);
    cr_assert_not_null(first[i]);
  }
  for (int i = 0; i < N; i++) {
    snprintf(buf, sizeof buf, "name_%d", i);
    cr_assert_eq(tx_intern(ir.strings, buf), first[i], "lost %s after growth", buf);
    cr_assert_str_eq(first[i], buf);
  }
}

/* ---- Pointer map ------------------------------------------------------- */

Test(ptrmap, put_get_overwrite_through_growth) {
  enum { N = 5000 };
  static int keys[N];
  tx_ptrmap m = {0};
  cr_expect_null(tx_ptrmap_get(&m, &keys[0]), "an empty map has nothing");
  for (int i = 0; i < N; i++)
    cr_assert(tx_ptrmap_put(&m, &keys[i], &keys[(i + 1) % N]));
  cr_expect_eq(m.len, N);
  for (int i = 0; i < N; i++)
    cr_assert_eq(tx_ptrmap_get(&m, &keys[i]), &keys[(i + 1) % N], "lost key %d", i);
  /* A second put replaces the value and adds no key. */
  cr_assert(tx_ptrmap_put(&m, &keys[7], &keys[0]));
  cr_expect_eq(tx_ptrmap_get(&m, &keys[7]), &keys[0]);
  cr_expect_eq(m.len, N);
  int other = 0;
  cr_expect_not(tx_ptrmap_has(&m, &other));
  tx_ptrmap_free(&m);
  cr_expect_eq(m.cap, 0);
}

Test(ptrmap, set_clear_and_reuse) {
  int a = 0, b = 0;
  tx_ptrmap s = {0};
  cr_assert(tx_ptrset_add(&s, &a));
  cr_assert(tx_ptrset_add(&s, &a));
  cr_expect_eq(s.len, 1);
  cr_expect(tx_ptrmap_has(&s, &a));
  cr_expect_not(tx_ptrmap_has(&s, &b));
  uint32_t cap = s.cap;
  tx_ptrmap_clear(&s);
  cr_expect_eq(s.len, 0);
  cr_expect_eq(s.cap, cap, "clearing keeps the table");
  cr_expect_not(tx_ptrmap_has(&s, &a));
  cr_assert(tx_ptrset_add(&s, &b));
  cr_expect(tx_ptrmap_has(&s, &b));
  tx_ptrmap_free(&s);
}

/* ---- Dtypes -------------------------------------------------------------- */

Test(dtype, round_trip_every_name) {
  /* clang-format off */
  static const char *const names[] = {
      "float16", "float32", "float64", "float32x4", "float16x8", "bfloat16", "bfloat16x2",
      "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
      "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "float4_e2m1fnx2",
      "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "int32x4",
      "bool", "boolx4", "handle", "void", "int1", "uint1"};
  /* clang-format on */
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    tx_dtype t;
    cr_assert(tx_dtype_parse(names[i], strlen(names[i]), &t), "rejected %s", names[i]);
    char buf[32];
    cr_assert_str_eq(tx_dtype_str(t, buf), names[i]);
    tx_strbuf sb = {0};
    tx_dtype_print(t, &sb);
    cr_assert_str_eq(tx_sb_cstr(&sb), names[i]);
    tx_sb_free(&sb);
  }
}

Test(dtype, parsed_fields) {
  tx_dtype t;
  cr_assert(tx_dtype_parse("float32x4", 9, &t));
  cr_assert(tx_dtype_eq(t, tx_dt(DT_FLOAT, 32, 4)));
  cr_assert(tx_dtype_parse("float8_e4m3fn", 13, &t));
  cr_assert(tx_dtype_eq(t, tx_dt(DT_E4M3FN, 8, 1)), "longest prefix wins over float");
  cr_assert(tx_dtype_parse("float4_e2m1fn", 13, &t));
  cr_assert_eq(t.bits, 4);
  cr_assert(tx_dtype_parse("int32 junk", 5, &t), "only n bytes are read");
  cr_assert(tx_dtype_eq(t, TX_INT32));
  cr_assert(tx_dtype_is_float(tx_dt(DT_E8M0FNU, 8, 1)));
  cr_assert(tx_dtype_is_narrow_float(tx_dt(DT_BFLOAT, 16, 2)));
  cr_assert(tx_dtype_is_narrow_float(tx_dt(DT_E2M1FN, 4, 1)));
  cr_assert(!tx_dtype_is_narrow_float(tx_dt(DT_FLOAT, 16, 1)), "float16 is computed as is");
  cr_assert(!tx_dtype_is_narrow_float(tx_dt(DT_UINT, 8, 1)));
  cr_assert(tx_dtype_is_int(tx_dt(DT_UINT, 8, 1)));
  cr_assert(!tx_dtype_is_int(TX_BOOL));
}

Test(dtype, rejects_malformed) {
  static const char *const bad[] = {"float33", "int0",     "float32x0", "floatx", "",
                                    "int32x",  "int",      "float",     "int7",   "bfloat32",
                                    "voidx4",  "int32x01", "Int32",     "int32 ", "float32x99999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tx_dtype t;
    cr_assert(!tx_dtype_parse(bad[i], strlen(bad[i]), &t), "accepted \"%s\"", bad[i]);
  }
}

/* ---- Diagnostics --------------------------------------------------------- */

static const char SRC[] = "x = 1\ny = foo(bar)\n";

static tx_diag_sink *sink_with_source(tx_arena *a, const char **file) {
  tx_diag_sink *d = tx_diag_create(a);
  cr_assert_not_null(d);
  *file = tx_diag_add_source(d, "t.py", SRC, sizeof SRC - 1);
  return d;
}

static char *render(tx_diag_sink *d, tx_arena *a) {
  tx_strbuf sb = {0};
  tx_diag_render(d, &sb);
  const char *s = tx_sb_cstr(&sb);
  cr_assert_not_null(s);
  char *copy = tx_arena_strndup(a, s, sb.len);
  tx_sb_free(&sb);
  return copy;
}

Test(diag, render_caret_and_underline) {
  tx_arena *a = tx_arena_create(NULL);
  const char *file;
  tx_diag_sink *d = sink_with_source(a, &file);
  tx_error(d, ((tirx_span){file, 2, 5, 2, 8}), "unknown name '%s'", "foo");
  tx_error(d, ((tirx_span){file, 1, 1, 1, 2}), "one column");
  cr_assert_eq(tx_diag_count(d), 2);
  cr_assert_eq(tx_diag_errors(d), 2);
  cr_assert_str_eq(tx_diag_at(d, 0)->message, "unknown name 'foo'");
  cr_assert_str_eq(render(d, a), "t.py:2:5: error: unknown name 'foo'\n"
                                 "  y = foo(bar)\n"
                                 "      ^~~\n"
                                 "t.py:1:1: error: one column\n"
                                 "  x = 1\n"
                                 "  ^\n");
  tx_diag_destroy(d);
  tx_arena_destroy(a);
}

Test(diag, notes_and_unlocated) {
  tx_arena *a = tx_arena_create(NULL);
  const char *file;
  tx_diag_sink *d = sink_with_source(a, &file);
  tx_note(d, ((tirx_span){file, 1, 5, 1, 6}), "defined here");
  tx_error(d, NOSPAN, "no location");
  cr_assert_eq(tx_diag_errors(d), 1);
  cr_assert_str_eq(render(d, a), "t.py:1:5: note: defined here\n"
                                 "  x = 1\n"
                                 "      ^\n"
                                 "error: no location\n");
  /* A program name, as tirxc sets it, prefixes only the unlocated one. */
  cr_assert(tx_diag_set_program(d, "tirxc"));
  cr_assert_str_eq(render(d, a), "t.py:1:5: note: defined here\n"
                                 "  x = 1\n"
                                 "      ^\n"
                                 "tirxc: error: no location\n");
  cr_assert(tx_diag_set_program(d, NULL));
  cr_assert_str_eq(strstr(render(d, a), "error"), "error: no location\n");
  tx_diag_destroy(d);
  tx_arena_destroy(a);
}

Test(diag, saturates_at_max_errors) {
  tx_arena *a = tx_arena_create(NULL);
  const char *file;
  tx_diag_sink *d = sink_with_source(a, &file);
  for (int i = 0; i < TX_MAX_ERRORS + 50; i++)
    tx_error(d, ((tirx_span){file, 1, 1, 1, 2}), "e%d", i);
  cr_assert(tx_diag_saturated(d));
  cr_assert_eq(tx_diag_errors(d), TX_MAX_ERRORS);
  cr_assert_eq(tx_diag_count(d), TX_MAX_ERRORS + 1, "one closing note, the rest dropped");
  const tirx_diagnostic *last = tx_diag_at(d, TX_MAX_ERRORS);
  cr_assert_eq(last->severity, TIRX_SEV_NOTE);
  cr_assert_null(tx_diag_at(d, TX_MAX_ERRORS + 1));
  tx_diag_clear(d);
  cr_assert_eq(tx_diag_count(d), 0);
  cr_assert(!tx_diag_saturated(d));
  tx_diag_destroy(d);
  tx_arena_destroy(a);
}

Test(diag, internal_error_names_stage) {
  tx_arena *a = tx_arena_create(NULL);
  tx_diag_sink *d = tx_diag_create(a);
  tx_internal_error(d, "lower", "unexpected kind %d", 7);
  cr_assert(tx_diag_has_internal(d));
  cr_assert_eq(tx_diag_errors(d), 1);
  cr_assert_str_eq(tx_diag_at(d, 0)->message, "internal error in lower: unexpected kind 7");
  cr_assert_str_eq(render(d, a), "error: internal error in lower: unexpected kind 7\n");
  tx_diag_destroy(d);
  tx_arena_destroy(a);
}

/* ---- Structural equality and hashing ------------------------------------ */

TestSuite(equal, .init = ir_setup, .fini = ir_teardown);

static void assert_equal_funcs(const tx_func *a, const tx_func *b) {
  cr_assert(tx_func_equal(a, b));
  cr_assert(tx_func_equal(b, a));
  cr_assert_eq(tx_func_hash(a), tx_func_hash(b));
}

Test(equal, alpha_equivalent_functions) {
  const tx_expr *k = var("k");
  const tx_func *f = make_func("A", "n", "i", "t", 1.0, k);
  const tx_func *g = make_func("B", "m", "j", "u", 1.0, k);
  assert_equal_funcs(f, f);
  assert_equal_funcs(f, g);
}

Test(equal, differing_constant) {
  const tx_expr *k = var("k");
  const tx_func *f = make_func("A", "n", "i", "t", 1.0, k);
  const tx_func *g = make_func("A", "n", "i", "t", 2.0, k);
  cr_assert(!tx_func_equal(f, g));
  cr_assert_neq(tx_func_hash(f), tx_func_hash(g));
  cr_assert(!tx_expr_equal(i32(1), i32(2)));
  cr_assert(!tx_expr_equal(i32(1), tx_int(&ir, TX_INT64, 1, NOSPAN)), "dtype is compared");
  cr_assert(tx_expr_equal(i32(7), i32(7)));
}

Test(equal, free_variables_by_identity) {
  const tx_func *f = make_func("A", "n", "i", "t", 1.0, var("k"));
  const tx_func *g = make_func("A", "n", "i", "t", 1.0, var("k"));
  cr_assert(!tx_func_equal(f, g), "two free vars named k are different variables");
  cr_assert_eq(tx_func_hash(f), tx_func_hash(g), "free vars hash by name and dtype");
  const tx_expr *x = var("x");
  cr_assert(tx_expr_equal(add(x, i32(1)), add(x, i32(1))));
  cr_assert(!tx_expr_equal(add(x, i32(1)), add(var("x"), i32(1))));
}

Test(equal, let_bound_names_ignored) {
  const tx_expr *x = var("x"), *y = var("y"), *z = var("z");
  const tx_expr *a = let(x, i32(1), add(x, z));
  const tx_expr *b = let(y, i32(1), add(y, z));
  cr_assert(tx_expr_equal(a, b));
  cr_assert_eq(tx_expr_hash(a), tx_expr_hash(b));
  cr_assert(!tx_expr_equal(a, let(y, i32(1), add(z, y))), "operand order matters");
  cr_assert(!tx_expr_equal(a, let(y, i32(1), add(x, z))), "bound x vs free x");
  cr_assert(!tx_expr_equal(let(x, i32(1), z), let(y, i32(1), x)), "free x vs bound-elsewhere x");
}

Test(equal, binding_is_a_bijection) {
  const tx_expr *x = var("x"), *y = var("y"), *a = var("a"), *b = var("b");
  const tx_expr *l = let(x, i32(1), let(y, i32(2), add(x, y)));
  const tx_expr *r = let(a, i32(1), let(b, i32(2), add(a, a)));
  cr_assert(!tx_expr_equal(l, r));
  cr_assert(!tx_expr_equal(r, l));
  /* One lhs var may not pair with two rhs vars (or the reverse). */
  const tx_expr *l2 = let(x, i32(1), let(x, i32(2), x));
  const tx_expr *r2 = let(a, i32(1), let(b, i32(2), b));
  cr_assert(!tx_expr_equal(l2, r2));
  cr_assert(!tx_expr_equal(r2, l2));
}

Test(equal, statements_bind_vars) {
  const tx_expr *i = var("i"), *j = var("j"), *v = var("v"), *w = var("w");
  const tx_stmt *a = seq2(bind(v, i32(3)), for_(i, v, eval(add(i, v))));
  const tx_stmt *b = seq2(bind(w, i32(3)), for_(j, w, eval(add(j, w))));
  cr_assert(tx_stmt_equal(a, b));
  cr_assert_eq(tx_stmt_hash(a), tx_stmt_hash(b));
  const tx_stmt *c = seq2(bind(w, i32(3)), for_(j, w, eval(add(w, j))));
  cr_assert(!tx_stmt_equal(a, c));
  const tx_stmt *d = seq2(bind(w, i32(3)), for_(j, w, eval(add(j, w))));
  tx_stmt *d2 = (tx_stmt *)d->stmts[1];
  d2->flag = FOR_UNROLL;
  cr_assert(!tx_stmt_equal(a, d), "for kind is compared");
}

Test(equal, buffer_mapping) {
  const tx_expr *i = var("i");
  tx_buffer *A = buffer("A", i32(16)), *B = buffer("B", i32(16));
  tx_buffer *C = buffer("C", i32(16)), *D = buffer("D", i32(16));
  /* alloc A; alloc B; A[i] = B[i]  vs  alloc C; alloc D; C[i] = D[i] */
  const tx_stmt *l = seq2(seq2(alloc(A), alloc(B)), store(A, i, load(B, i)));
  const tx_stmt *r = seq2(seq2(alloc(C), alloc(D)), store(C, i, load(D, i)));
  cr_assert(tx_stmt_equal(l, r), "buffer names are not compared");
  cr_assert_eq(tx_stmt_hash(l), tx_stmt_hash(r));
  const tx_stmt *swapped = seq2(seq2(alloc(C), alloc(D)), store(D, i, load(C, i)));
  cr_assert(!tx_stmt_equal(l, swapped), "uses follow the definition pairing");
  tx_buffer *E = buffer("E", i32(32));
  const tx_stmt *shape = seq2(seq2(alloc(C), alloc(E)), store(C, i, load(E, i)));
  cr_assert(!tx_stmt_equal(l, shape), "fields are compared at the definition");
  cr_assert(!tx_stmt_equal(store(A, i, f32(0)), store(C, i, f32(0))), "free buffers by identity");
  cr_assert(tx_stmt_equal(store(A, i, f32(0)), store(A, i, f32(0))));
}

/* What TVM's structural equality cannot see is not compared: the three
 * spellings of an allocation; what it can is: a buffer without a layout
 * (layout=None) is not one with the default layout. */
Test(equal, buffer_printing_choices) {
  const tx_expr *i = var("i");
  tx_buffer *A = buffer("A", i32(16)), *B = buffer("B", i32(16));
  A->form = BUF_ALLOC;
  A->scope = tx_intern(ir.strings, "shared");
  B->form = BUF_ALLOC_SHARED;
  B->scope = A->scope;
  const tx_stmt *l = seq2(alloc(A), store(A, i, f32(0)));
  const tx_stmt *r = seq2(alloc(B), store(B, i, f32(0)));
  cr_assert(tx_stmt_equal(l, r), "T.alloc_buffer(scope=\"shared\") is T.alloc_shared");
  cr_assert_eq(tx_stmt_hash(l), tx_stmt_hash(r));
  B->layout_none = 1;
  cr_assert(!tx_stmt_equal(l, r), "layout=None is not the default layout");
}

Test(equal, floats_bitwise) {
  const tx_expr *nan1 = f32(NAN), *nan2 = f32(NAN);
  cr_assert(tx_expr_equal(nan1, nan2), "same NaN bits are equal");
  cr_assert_eq(tx_expr_hash(nan1), tx_expr_hash(nan2));
  cr_assert(!tx_expr_equal(f32(0.0), f32(-0.0)));
  cr_assert(tx_expr_equal(f32(0.5), f32(0.5)));
}

Test(equal, strings_and_calls_by_content) {
  /* A second context: interned pointers differ, contents match. */
  tx_arena *a2 = tx_arena_create(NULL);
  tx_ir ir2 = {a2, tx_interner_create(a2)};
  const tx_expr *s1 = tx_string(&ir, "abc", 3, NOSPAN), *s2 = tx_string(&ir2, "abc", 3, NOSPAN);
  cr_assert(tx_expr_equal(s1, s2));
  cr_assert_eq(tx_expr_hash(s1), tx_expr_hash(s2));
  cr_assert(!tx_expr_equal(s1, tx_string(&ir, "abd", 3, NOSPAN)));
  const tx_expr *x = var("x");
  const tx_expr *c1 = call("T.exp", x);
  tx_expr *c2 = (tx_expr *)call("T.exp", x);
  c2->u.call.op = tx_intern(ir2.strings, "T.exp");
  cr_assert(tx_expr_equal(c1, c2));
  cr_assert(!tx_expr_equal(c1, call("T.log", x)));
  tx_interner_destroy(ir2.strings);
  tx_arena_destroy(a2);
}

Test(equal, keyword_names_compared) {
  const tx_expr *x = var("x");
  const tx_expr *ops[] = {x, i32(1)};
  const char *k1[] = {tx_intern(ir.strings, "dtype")}, *k2[] = {tx_intern(ir.strings, "scope")};
  tx_expr *a = tx_expr_new(&ir, EXPR_CALL, TX_INT32, ops, 2, NOSPAN);
  tx_expr *b = tx_expr_new(&ir, EXPR_CALL, TX_INT32, ops, 2, NOSPAN);
  a->u.call.op = b->u.call.op = tx_intern(ir.strings, "T.f");
  a->u.call.kw = (tx_kwargs){.npos = 1, .names = k1};
  b->u.call.kw = (tx_kwargs){.npos = 1, .names = k1};
  cr_assert(tx_expr_equal(a, b));
  b->u.call.kw = (tx_kwargs){.npos = 1, .names = k2};
  cr_assert(!tx_expr_equal(a, b));
  b->u.call.kw = (tx_kwargs){.npos = 2, .names = NULL};
  cr_assert(!tx_expr_equal(a, b), "keyword vs positional");
}

/* TVM's `.source` spellings (ir.h: tx_expr.source_form, tx_kwargs.source_ops)
 * do not change what a node means. */
Test(equal, source_spelling_ignored) {
  const tx_expr *x = var("x");
  const tx_expr *ops[] = {x};
  tx_expr *a = tx_expr_new(&ir, EXPR_CALL, TX_HANDLE, ops, 1, NOSPAN);
  tx_expr *b = tx_expr_new(&ir, EXPR_CALL, TX_HANDLE, ops, 1, NOSPAN);
  a->u.call.op = b->u.call.op = tx_intern(ir.strings, "T.address_of");
  a->u.call.kw = b->u.call.kw = (tx_kwargs){.npos = 1};
  b->source_form = 1;
  b->u.call.kw.source_ops = 1;
  cr_assert(tx_expr_equal(a, b));
}

Test(equal, hash_is_deterministic_across_contexts) {
  const tx_func *f = make_func("A", "n", "i", "t", 1.0, var("k"));
  uint64_t h = tx_func_hash(f);
  cr_assert_eq(tx_func_hash(f), h);
  /* Rebuild in a fresh arena: no pointer value may leak into the hash. */
  ir_teardown();
  ir_setup();
  cr_assert_eq(tx_func_hash(make_func("X", "y", "z", "w", 1.0, var("k"))), h);
}

Test(equal, modules) {
  const tx_expr *k = var("k");
  tx_module m1 = {0}, m2 = {0};
  const tx_func *f1[] = {make_func("A", "n", "i", "t", 1.0, k)};
  const tx_func *f2[] = {make_func("B", "m", "j", "u", 1.0, k)};
  m1.nfuncs = m2.nfuncs = 1;
  m1.funcs = f1;
  m2.funcs = f2;
  m1.name = tx_intern(ir.strings, "M");
  m2.name = tx_intern(ir.strings, "M");
  cr_assert(tx_module_equal(&m1, &m2));
  cr_assert_eq(tx_module_hash(&m1), tx_module_hash(&m2));
  ((tx_func *)f2[0])->name = tx_intern(ir.strings, "g");
  cr_assert(!tx_module_equal(&m1, &m2), "function names are module symbols");
  cr_assert(tx_func_equal(f1[0], f2[0]), "but not part of a lone function");
  cr_assert(tx_module_equal(NULL, NULL));
  cr_assert(!tx_module_equal(&m1, NULL));
}

/* ---- Mutator ------------------------------------------------------------- */

TestSuite(mutator, .init = ir_setup, .fini = ir_teardown);

typedef struct {
  const tx_expr *from, *to;
  int calls;
} subst;

static const tx_expr *subst_expr(tx_mutator *m, const tx_expr *e) {
  subst *s = m->user;
  s->calls++;
  return e == s->from ? s->to : NULL;
}

Test(mutator, identity_returns_same_pointer) {
  const tx_func *f = make_func("A", "n", "i", "t", 1.0, var("k"));
  tx_mutator m = {.ir = &ir};
  cr_assert_eq(tx_mutate_func(&m, f), f);
  cr_assert_eq(tx_mutate_stmt(&m, f->body), f->body);
  subst s = {var("unused"), var("other"), 0};
  m.user = &s;
  m.expr = subst_expr;
  size_t used = tx_arena_used(ir.arena);
  cr_assert_eq(tx_mutate_func(&m, f), f);
  cr_assert_gt(s.calls, 0);
  cr_assert_eq(tx_arena_used(ir.arena), used, "nothing allocated when nothing changes");
  cr_assert(!m.failed);
  cr_assert_null(tx_mutate_expr(&m, NULL));
}

Test(mutator, rebuilds_only_the_path) {
  const tx_expr *x = var("x"), *z = var("z"), *y = var("y");
  const tx_expr *left = add(x, i32(1)), *right = add(z, i32(2));
  const tx_expr *root = mul(left, right);
  subst s = {x, y, 0};
  tx_mutator m = {.ir = &ir, .user = &s, .expr = subst_expr};
  const tx_expr *r = tx_mutate_expr(&m, root);
  cr_assert_neq(r, root);
  cr_assert_eq(r->ops[1], right, "unchanged subtree shared");
  cr_assert_neq(r->ops[0], left);
  cr_assert_eq(r->ops[0]->ops[0], y);
  cr_assert_eq(r->ops[0]->ops[1], left->ops[1], "the constant beside x is shared");
  cr_assert_eq(root->ops[0]->ops[0], x, "the original is untouched");
  cr_assert(tx_expr_equal(r, mul(add(y, i32(1)), add(z, i32(2)))));
}

Test(mutator, statements_share_unchanged_children) {
  const tx_expr *x = var("x"), *y = var("y"), *i = var("i");
  const tx_stmt *first = eval(add(x, i32(1))), *second = eval(i32(5));
  const tx_stmt *loop = for_(i, i32(4), seq2(first, second));
  subst s = {x, y, 0};
  tx_mutator m = {.ir = &ir, .user = &s, .expr = subst_expr};
  const tx_stmt *r = tx_mutate_stmt(&m, loop);
  cr_assert_neq(r, loop);
  cr_assert_eq(r->vars, loop->vars, "binding vars are kept");
  cr_assert_eq(r->exprs, loop->exprs, "unchanged operand arrays are shared");
  cr_assert_eq(r->stmts[0]->stmts[1], second);
  cr_assert_eq(r->stmts[0]->stmts[0]->exprs[0]->ops[0], y);
}

/* Post-order rewrite: recurse first, then fold x + 0 -> x. */
static const tx_expr *fold_add_zero(tx_mutator *m, const tx_expr *e) {
  const tx_expr *r = tx_mutate_expr_children(m, e);
  if (r->kind == EXPR_ADD && r->ops[1]->kind == EXPR_INT && r->ops[1]->u.ival == 0)
    return r->ops[0];
  return r;
}

Test(mutator, callback_recurses_first) {
  const tx_expr *x = var("x");
  const tx_expr *e = mul(add(add(x, i32(0)), i32(0)), i32(3));
  tx_mutator m = {.ir = &ir, .expr = fold_add_zero};
  const tx_expr *r = tx_mutate_expr(&m, e);
  cr_assert(tx_expr_equal(r, mul(x, i32(3))));
  cr_assert_eq(r->ops[0], x);
}

static const tx_stmt *drop_evals(tx_mutator *m, const tx_stmt *s) {
  (void)m;
  return s->kind == STMT_EVAL ? tx_stmt_new(m->ir, STMT_SEQ, NULL, 0, NULL, 0, NOSPAN) : NULL;
}

Test(mutator, statement_callback) {
  const tx_expr *v = var("v");
  const tx_stmt *b = bind(v, i32(1));
  const tx_stmt *s = seq2(b, eval(v));
  tx_mutator m = {.ir = &ir, .stmt = drop_evals};
  const tx_stmt *r = tx_mutate_stmt(&m, s);
  cr_assert_eq(r->stmts[0], b);
  cr_assert_eq(r->stmts[1]->kind, STMT_SEQ);
  cr_assert_eq(r->stmts[1]->nstmts, 0);
}

/* ---- Visitor ------------------------------------------------------------- */

TestSuite(visitor, .init = ir_setup, .fini = ir_teardown);

typedef struct {
  int exprs, stmts, post_exprs, post_stmts, buffers, vars;
} counts;

static int count_pre_expr(tx_visitor *v, const tx_expr *e) {
  counts *c = v->user;
  c->exprs++;
  c->vars += e->kind == EXPR_VAR;
  return 1;
}
static void count_post_expr(tx_visitor *v, const tx_expr *e) {
  (void)e;
  ((counts *)v->user)->post_exprs++;
}
static int count_pre_stmt(tx_visitor *v, const tx_stmt *s) {
  (void)s;
  ((counts *)v->user)->stmts++;
  return 1;
}
static void count_post_stmt(tx_visitor *v, const tx_stmt *s) {
  (void)s;
  ((counts *)v->user)->post_stmts++;
}
static int count_buffer(tx_visitor *v, const tx_buffer *b) {
  (void)b;
  ((counts *)v->user)->buffers++;
  return 1;
}

static tx_visitor counting(counts *c) {
  return (tx_visitor){.user = c,
                      .pre_expr = count_pre_expr,
                      .post_expr = count_post_expr,
                      .pre_stmt = count_pre_stmt,
                      .post_stmt = count_post_stmt,
                      .on_buffer = count_buffer};
}

Test(visitor, counts_expression_nodes) {
  const tx_expr *x = var("x");
  const tx_expr *e = let(x, i32(1), mul(add(x, i32(2)), x)); /* let, x, 1, mul, add, x, 2, x */
  counts c = {0};
  tx_visitor v = counting(&c);
  tx_visit_expr(&v, e);
  cr_assert_eq(c.exprs, 8);
  cr_assert_eq(c.post_exprs, 8);
  cr_assert_eq(c.vars, 3, "the binder and both uses");
}

Test(visitor, counts_function_nodes) {
  const tx_func *f = make_func("A", "n", "i", "t", 1.0, var("k"));
  /* params: A, n. for: 0, n, i. bind: i*k (3), t. store: A[i]+c (4), i.  */
  counts c = {0};
  tx_visitor v = counting(&c);
  tx_visit_func(&v, f);
  cr_assert_eq(c.stmts, 4, "for, seq, bind, store");
  cr_assert_eq(c.post_stmts, 4);
  cr_assert_eq(c.exprs, 2 + 3 + 3 + 1 + 4 + 1);
  cr_assert_eq(c.buffers, 1, "the param buffer is a definition");

  counts c2 = {0};
  tx_visitor v2 = counting(&c2);
  v2.visit_buffer_defs = 1;
  tx_visit_func(&v2, f);
  cr_assert_eq(c2.exprs, c.exprs + 2, "plus the data var and the shape");
}

static int skip_adds(tx_visitor *v, const tx_expr *e) {
  count_pre_expr(v, e);
  return e->kind != EXPR_ADD;
}

Test(visitor, pre_returning_zero_skips_children) {
  const tx_expr *e = mul(add(var("a"), var("b")), var("c"));
  counts c = {0};
  tx_visitor v = counting(&c);
  v.pre_expr = skip_adds;
  tx_visit_expr(&v, e);
  cr_assert_eq(c.exprs, 3, "mul, add, c");
  cr_assert_eq(c.post_exprs, 2, "no post for a skipped node");
}

static int stop_at_var(tx_visitor *v, const tx_expr *e) {
  count_pre_expr(v, e);
  if (e->kind == EXPR_VAR) v->stop = 1;
  return 1;
}

Test(visitor, stop_ends_the_walk) {
  const tx_stmt *s = seq2(eval(add(i32(1), var("a"))), eval(var("b")));
  counts c = {0};
  tx_visitor v = counting(&c);
  v.pre_expr = stop_at_var;
  tx_visit_stmt(&v, s);
  cr_assert_eq(c.exprs, 3, "add, 1, a");
  cr_assert_eq(c.stmts, 2, "seq and the first eval");
}

Test(visitor, buffer_definitions) {
  tx_buffer *A = buffer("A", var("n"));
  const tx_stmt *s = seq2(alloc(A), store(A, i32(0), f32(1.0)));
  counts c = {0};
  tx_visitor v = counting(&c);
  tx_visit_stmt(&v, s);
  cr_assert_eq(c.buffers, 1, "a store is a use, not a definition");
  cr_assert_eq(c.exprs, 2);
  v.visit_buffer_defs = 1;
  c = (counts){0};
  tx_visit_stmt(&v, s);
  cr_assert_eq(c.exprs, 4, "data var and shape of A");
  cr_assert(tx_stmt_defines_buffer(STMT_ALLOC) && !tx_stmt_defines_buffer(STMT_STORE));
  cr_assert(tx_stmt_binds_vars(STMT_FOR) && !tx_stmt_binds_vars(STMT_ASSIGN));
}

/* ---- Layouts and deep trees ---------------------------------------------- */

TestSuite(layout, .init = ir_setup, .fini = ir_teardown);

static const tx_expr *layout_expr(const tx_expr *extent, const char *axis) {
  tx_layout_iter *it = tx_arena_alloc(ir.arena, 2 * sizeof *it);
  it[0] = (tx_layout_iter){extent, i32(1), NULL};
  it[1] = (tx_layout_iter){i32(8), i32(4), tx_intern(ir.strings, axis)};
  tx_layout *l = tx_arena_alloc(ir.arena, sizeof *l);
  l->kind = LAYOUT_TILE;
  l->nshard = 2;
  l->shard = it;
  tx_expr *e = tx_expr_new(&ir, EXPR_LAYOUT, TX_VOID, NULL, 0, NOSPAN);
  e->u.layout = l;
  return e;
}

Test(layout, compared_structurally) {
  const tx_expr *n = var("n");
  cr_assert(tx_expr_equal(layout_expr(n, "laneid"), layout_expr(n, "laneid")));
  cr_assert_eq(tx_expr_hash(layout_expr(n, "laneid")), tx_expr_hash(layout_expr(n, "laneid")));
  cr_assert(!tx_expr_equal(layout_expr(n, "laneid"), layout_expr(n, "warpid")));
  cr_assert(!tx_expr_equal(layout_expr(n, "laneid"), layout_expr(i32(4), "laneid")));
}

Test(layout, visited_and_mutated) {
  const tx_expr *n = var("n"), *m = var("m");
  const tx_expr *e = layout_expr(n, "laneid");
  counts c = {0};
  tx_visitor v = counting(&c);
  tx_visit_expr(&v, e);
  cr_assert_eq(c.exprs, 1 + 4, "the layout node and its iterator extents/strides");
  subst s = {n, m, 0};
  tx_mutator mu = {.ir = &ir, .user = &s, .expr = subst_expr};
  const tx_expr *r = tx_mutate_expr(&mu, e);
  cr_assert_neq(r, e);
  cr_assert_eq(r->u.layout->shard[0].extent, m);
  cr_assert_eq(e->u.layout->shard[0].extent, n, "the original layout is untouched");
  cr_assert(tx_expr_equal(r, layout_expr(m, "laneid")));
}

Test(layout, deep_chains) {
  /* Deeper than the frontend allows: passes may build such trees. */
  const tx_expr *x = var("x"), *y = var("y");
  const tx_expr *a = x, *b = x;
  for (int i = 0; i < 20000; i++) {
    a = add(a, i32(i));
    b = add(b, i32(i));
  }
  cr_assert(tx_expr_equal(a, b));
  cr_assert_eq(tx_expr_hash(a), tx_expr_hash(b));
  subst s = {x, y, 0};
  tx_mutator m = {.ir = &ir, .user = &s, .expr = subst_expr};
  const tx_expr *r = tx_mutate_expr(&m, a);
  cr_assert(!m.failed);
  cr_assert(!tx_expr_equal(r, a));
  counts c = {0};
  tx_visitor v = counting(&c);
  tx_visit_expr(&v, r);
  cr_assert_eq(c.exprs, 1 + 2 * 20000);
}

/* ---- strbuf printf: the fast path must agree with the C library ---------------- */

#define SB_CHECK(...)                                                                              \
  do {                                                                                             \
    char want[256];                                                                                \
    snprintf(want, sizeof want, __VA_ARGS__);                                                      \
    tx_strbuf sb = {0};                                                                            \
    tx_sb_puts(&sb, "<");                                                                          \
    tx_sb_printf(&sb, __VA_ARGS__);                                                                \
    cr_expect_str_eq(tx_sb_cstr(&sb) + 1, want);                                                   \
    tx_sb_free(&sb);                                                                               \
  } while (0)

Test(strbuf, printf_matches_snprintf) {
  SB_CHECK("plain text");
  SB_CHECK("%s(%s)", "fn", "");
  SB_CHECK("%d %d %d %i", 0, -1, INT_MIN, INT_MAX);
  SB_CHECK("%u %x %x", UINT_MAX, 0u, 0xdeadbeefu);
  SB_CHECK("%ld %lu %lld %llu", LONG_MIN, ULONG_MAX, LLONG_MIN, ULLONG_MAX);
  SB_CHECK("%" PRId64 "LL %" PRIu64 "ULL", INT64_MIN, UINT64_MAX);
  SB_CHECK("%zu %zd", (size_t)12345, (ptrdiff_t)-7);
  SB_CHECK("100%% %c%c", 'o', 'k');
  SB_CHECK("[%.*s] [%.*s] [%.*s]", 3, "abcdef", 0, "abc", 10, "ab");
  SB_CHECK("%5d|%-4s|%.3f|%08x|%+d", 42, "ab", 3.14159, 255u, 3); /* vsnprintf fallback */
}

Test(strbuf, printf_long_output_grows) {
  char big[3000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  SB_CHECK("%s|%d", big + 2800, 7);
  tx_strbuf sb = {0};
  tx_sb_printf(&sb, "%s%s", big, big);
  cr_expect_eq(sb.len, 2 * (sizeof big - 1));
  tx_sb_free(&sb);
}

Test(strbuf, put_int_matches_printf) {
  const long long vals[] = {0, 1, -1, 42, -9000, LLONG_MAX, LLONG_MIN};
  for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
    char want[64];
    snprintf(want, sizeof want, "%lld|%llu", vals[i], (unsigned long long)vals[i]);
    tx_strbuf sb = {0};
    tx_sb_put_int(&sb, vals[i]);
    tx_sb_putc(&sb, '|');
    tx_sb_put_uint(&sb, (unsigned long long)vals[i]);
    cr_expect_str_eq(tx_sb_cstr(&sb), want);
    tx_sb_free(&sb);
  }
}

/* ---- literal arithmetic (ir/fold.h) ---------------------------------------- */

static int64_t fold(tx_expr_kind k, tx_dtype t, int64_t x, int64_t y) {
  int64_t r = 0x5a5a;
  cr_assert(tx_fold_int(k, t, x, y, &r), "%s %" PRId64 ", %" PRId64 " should fold",
            tx_expr_kind_name(k), x, y);
  return r;
}

/* The overflowing cases wrap in the type, as TVM folds them; none is C UB
 * (the sanitizer build runs this). */
Test(fold, integers_wrap_in_their_type) {
  const tx_dtype i64 = TX_INT64, i32 = TX_INT32, u64 = tx_dt(DT_UINT, 64, 1);
  const tx_dtype u8 = tx_dt(DT_UINT, 8, 1), i8 = tx_dt(DT_INT, 8, 1);
  cr_assert_eq(fold(EXPR_DIV, i64, INT64_MIN, -1), INT64_MIN);
  cr_assert_eq(fold(EXPR_FLOORDIV, i64, INT64_MIN, -1), INT64_MIN);
  cr_assert_eq(fold(EXPR_MOD, i64, INT64_MIN, -1), 0);
  cr_assert_eq(fold(EXPR_FLOORMOD, i64, INT64_MIN, -1), 0);
  cr_assert_eq(fold(EXPR_FLOORDIV, i32, INT32_MIN, -1), INT32_MIN);
  cr_assert_eq(fold(EXPR_ADD, i32, INT32_MAX, 1), INT32_MIN);
  cr_assert_eq(fold(EXPR_MUL, i32, 65536, 65536), 0);
  cr_assert_eq(fold(EXPR_MUL, i64, INT64_MAX, 2), -2);
  cr_assert_eq(fold(EXPR_SUB, i64, INT64_MIN, 1), INT64_MAX);
  cr_assert_eq(fold(EXPR_ADD, i8, 127, 1), -128);
  cr_assert_eq(fold(EXPR_SUB, u8, 0, 1), 255);
  /* Rounding: floor toward -inf, trunc toward 0. */
  cr_assert_eq(fold(EXPR_FLOORDIV, i32, -7, 2), -4);
  cr_assert_eq(fold(EXPR_FLOORMOD, i32, -7, 2), 1);
  cr_assert_eq(fold(EXPR_FLOORMOD, i32, 7, -2), -1);
  cr_assert_eq(fold(EXPR_DIV, i32, -7, 2), -3);
  cr_assert_eq(fold(EXPR_MOD, i32, -7, 2), -1);
  cr_assert_eq(fold(EXPR_FLOORMOD, i64, INT64_MIN, INT64_MAX), INT64_MAX - 1);
  /* uint64 is unsigned: 2^64 - 1 (stored as -1) divided by 2. */
  cr_assert_eq(fold(EXPR_DIV, u64, -1, 2), INT64_MAX);
  cr_assert_eq(fold(EXPR_FLOORMOD, u64, -1, 10), 5); /* 18446744073709551615 % 10 */
  cr_assert_eq(fold(EXPR_MIN, u64, -1, 1), 1);
  cr_assert_eq(fold(EXPR_MAX, u64, -1, 1), -1);
  cr_assert_eq(fold(EXPR_MIN, i64, -1, 1), -1);
  /* Operands are taken in the type first: an int8 300 is 44. */
  cr_assert_eq(fold(EXPR_ADD, i8, 300, 0), 44);
}

Test(fold, division_by_zero_has_no_value) {
  static const tx_expr_kind kinds[] = {EXPR_DIV, EXPR_MOD, EXPR_FLOORDIV, EXPR_FLOORMOD};
  int64_t r = 42;
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    cr_assert_not(tx_fold_int(kinds[i], TX_INT32, 7, 0, &r));
    cr_assert_not(tx_fold_int(kinds[i], TX_INT32, 7, INT64_C(1) << 32, &r), "0 in int32");
  }
  cr_assert_eq(r, 42, "nothing stored");
  cr_assert_not(tx_fold_int(EXPR_EQ, TX_INT32, 1, 1, &r), "comparisons are not arithmetic");
}

static double round_to(tx_dtype t, double v) {
  return tx_fold_float_round(t, v);
}

Test(fold, floats_round_as_ieee_in_their_type) {
  const tx_dtype f32 = TX_FLOAT32, f16 = tx_dt(DT_FLOAT, 16, 1), bf16 = tx_dt(DT_BFLOAT, 16, 1);
  const tx_dtype f64 = tx_dt(DT_FLOAT, 64, 1);
  cr_assert(isinf(round_to(f32, 1e39)) && round_to(f32, 1e39) > 0);
  cr_assert(isinf(round_to(f32, -1e39)) && round_to(f32, -1e39) < 0);
  cr_assert_eq(round_to(f32, 3.4028234663852886e38), 3.4028234663852886e38, "FLT_MAX stays");
  /* Past FLT_MAX by half an ulp (2^103) is the tie that rounds to inf. */
  double flt_max = 3.4028234663852886e38;
  cr_assert_eq(round_to(f32, flt_max + ldexp(1.0, 102)), flt_max);
  cr_assert(isinf(round_to(f32, flt_max + ldexp(1.0, 103))));
  cr_assert_eq(round_to(f32, 0.1), (double)0.1f);
  cr_assert_eq(round_to(f32, 16777217.0), 16777216.0, "ties to even");
  cr_assert_eq(round_to(f32, 16777219.0), 16777220.0, "ties to even");
  cr_assert_eq(round_to(f32, 1e-46), 0.0, "below half the smallest subnormal");
  cr_assert_eq(round_to(f32, ldexp(1.5, -149)), ldexp(1.0, -148), "subnormal tie to even");
  cr_assert(signbit(round_to(f32, -1e-50)), "-0 keeps its sign");
  cr_assert(isnan(round_to(f32, NAN)));
  cr_assert_eq(round_to(f16, 65504.0), 65504.0);
  cr_assert_eq(round_to(f16, 65519.0), 65504.0);
  cr_assert(isinf(round_to(f16, 65520.0)), "65520 is the tie above float16's max");
  cr_assert_eq(round_to(f16, 1.0001), 1.0);
  cr_assert_eq(round_to(f16, ldexp(1.0, -24)), ldexp(1.0, -24), "smallest subnormal");
  cr_assert_eq(round_to(bf16, 1.00390625), 1.0, "a tie (bit 8) to even");
  cr_assert_eq(round_to(bf16, 1.01171875), 1.015625, "a tie to even, upwards");
  cr_assert(isinf(round_to(bf16, 3.4e38)), "3.4e38 is past bfloat16's max (3.3895e38)");
  cr_assert_eq(round_to(f64, 1e39), 1e39);
  cr_assert_eq(round_to(tx_dt(DT_E4M3FN, 8, 1), 1000.0), 1000.0, "fp8 is not an IEEE type here");
  cr_assert(tx_fold_float_type(f16) && tx_fold_float_type(bf16) && tx_fold_float_type(f64));
  cr_assert_not(tx_fold_float_type(tx_dt(DT_E5M2, 8, 1)));
  cr_assert_not(tx_fold_float_type(tx_dt(DT_FLOAT, 32, 4)), "vectors are not folded");
}

/* The literal operands that make an operation undefined, and only those. */
Test(fold, undefined_operands_are_located_errors, .init = ir_setup, .fini = ir_teardown) {
  tx_diag_sink *d = tx_diag_create(ir.arena);
  tirx_span at = {"t.tirx", 3, 5, 3, 12};
  const tx_expr *x = tx_var(&ir, "x", TX_INT32, VAR_PLAIN, NOSPAN);
  const tx_expr *zero = tx_int(&ir, TX_INT32, 0, NOSPAN), *two = tx_int(&ir, TX_INT32, 2, NOSPAN);
  const tx_expr *fx = tx_var(&ir, "f", TX_FLOAT32, VAR_PLAIN, NOSPAN);
  const tx_expr *fzero = tx_float(&ir, TX_FLOAT32, 0.0, NOSPAN);
  cr_assert(tx_fold_check_operands(d, tx_binary(&ir, EXPR_FLOORMOD, x, zero, at), NOSPAN));
  cr_assert_str_eq(tx_diag_at(d, 0)->message,
                   "integer modulo by zero: the divisor is the constant 0");
  cr_assert_eq(tx_diag_at(d, 0)->span.line, 3);
  cr_assert(tx_fold_check_operands(d, tx_binary(&ir, EXPR_DIV, x, zero, NOSPAN), at),
            "the fallback span locates it");
  cr_assert_eq(tx_diag_at(d, 1)->span.line, 3);
  cr_assert_not(tx_fold_check_operands(d, tx_binary(&ir, EXPR_DIV, x, two, at), at));
  cr_assert_not(tx_fold_check_operands(d, tx_binary(&ir, EXPR_DIV, fx, fzero, at), at),
                "float division by 0 is IEEE (inf or NaN)");
  cr_assert_not(tx_fold_check_operands(d, tx_binary(&ir, EXPR_ADD, x, zero, at), at));
  /* shifts: [0, bits) of the shifted operand's type */
  const tx_expr *ops[2] = {x, tx_int(&ir, TX_INT32, 31, NOSPAN)};
  tx_expr *shl = tx_expr_new(&ir, EXPR_CALL, TX_INT32, ops, 2, at);
  shl->u.call.op = tx_intern(ir.strings, "T.shift_left");
  cr_assert_not(tx_fold_check_operands(d, shl, at));
  ops[1] = tx_int(&ir, TX_INT64, 32, NOSPAN);
  shl = tx_expr_new(&ir, EXPR_CALL, TX_INT32, ops, 2, at);
  shl->u.call.op = tx_intern(ir.strings, "T.shift_right");
  cr_assert(tx_fold_check_operands(d, shl, at));
  cr_assert_str_eq(tx_diag_at(d, 2)->message,
                   "shift amount 32 is out of range: it must be in [0, 32) for int32");
  ops[1] = tx_int(&ir, tx_dt(DT_UINT, 64, 1), -1, NOSPAN); /* 2^64 - 1 */
  shl = tx_expr_new(&ir, EXPR_CALL, TX_INT32, ops, 2, at);
  shl->u.call.op = tx_intern(ir.strings, "T.shift_left");
  cr_assert(tx_fold_check_operands(d, shl, at));
  cr_assert_str_eq(tx_diag_at(d, 3)->message,
                   "shift amount 18446744073709551615 is out of range: it must be in [0, 32) "
                   "for int32");
  cr_assert_eq(tx_diag_errors(d), 4);
  tx_diag_destroy(d);
}

/* ---- modular sets (ir/modular.c) ---------------------------------------- */

TestSuite(modular, .init = ir_setup, .fini = ir_teardown);

/* The known sets of the two variables of the property test. */
typedef struct {
  const tx_expr *x, *y;
  tx_modset mx, my;
} mod_env;

static const tx_modset *mod_lookup(void *user, const tx_expr *v) {
  const mod_env *env = user;
  return v == env->x ? &env->mx : v == env->y ? &env->my : NULL;
}

static uint64_t mod_rng = 88172645463325252ull;
static int64_t mod_rand(int64_t lo, int64_t hi) { /* [lo, hi] */
  mod_rng ^= mod_rng << 13;
  mod_rng ^= mod_rng >> 7;
  mod_rng ^= mod_rng << 17;
  return lo + (int64_t)(mod_rng % (uint64_t)(hi - lo + 1));
}

static const tx_expr *mod_random_expr(const mod_env *env, int depth) {
  if (depth == 0 || mod_rand(0, 3) == 0) {
    int64_t pick = mod_rand(0, 2);
    return pick == 0 ? env->x : pick == 1 ? env->y : i32(mod_rand(-20, 20));
  }
  static const tx_expr_kind kinds[] = {EXPR_ADD,      EXPR_SUB, EXPR_MUL, EXPR_FLOORDIV,
                                       EXPR_FLOORMOD, EXPR_MIN, EXPR_MAX, EXPR_MUL};
  tx_expr_kind k = kinds[mod_rand(0, 7)];
  const tx_expr *a = mod_random_expr(env, depth - 1);
  const tx_expr *b = k == EXPR_FLOORDIV || k == EXPR_FLOORMOD ? i32(mod_rand(1, 12))
                                                              : mod_random_expr(env, depth - 1);
  return tx_binary(&ir, k, a, b, NOSPAN);
}

static __int128 floordiv128(__int128 a, __int128 b) {
  __int128 q = a / b;
  return q - (a % b != 0 && (a % b < 0) != (b < 0));
}

static __int128 mod_eval(const tx_expr *e, const mod_env *env, int64_t x, int64_t y) {
  if (e == env->x) return x;
  if (e == env->y) return y;
  if (e->kind == EXPR_INT) return e->u.ival;
  __int128 a = mod_eval(e->ops[0], env, x, y), b = mod_eval(e->ops[1], env, x, y);
  switch (e->kind) {
  case EXPR_ADD:
    return a + b;
  case EXPR_SUB:
    return a - b;
  case EXPR_MUL:
    return a * b;
  case EXPR_FLOORDIV:
    return floordiv128(a, b);
  case EXPR_FLOORMOD:
    return a - floordiv128(a, b) * b;
  case EXPR_MIN:
    return a < b ? a : b;
  default:
    return a > b ? a : b;
  }
}

static int mod_member(tx_modset m, __int128 v) {
  if (m.coeff == 0) return v == m.base;
  __int128 r = (v - m.base) % m.coeff;
  return r == 0;
}

/* Soundness: every value an expression takes, over random members of its
 * variables' sets, is in the set the analysis derives; thousands of random
 * expressions, and enough of the sets are informative (coeff != 1) that an
 * analysis answering "anything" fails the count below. */
Test(modular, sets_contain_every_value) {
  mod_env env = {var("x"), var("y"), {0, 0}, {0, 0}};
  int informative = 0, total = 4000;
  for (int t = 0; t < total; t++) {
    env.mx = tx_modset_make(mod_rand(0, 16), mod_rand(-8, 8));
    env.my = tx_modset_make(mod_rand(0, 16), mod_rand(-8, 8));
    const tx_expr *e = mod_random_expr(&env, 3);
    tx_modset m = tx_modular(e, mod_lookup, &env);
    cr_assert(m.coeff >= 0 && (m.coeff == 0 || (m.base >= 0 && m.base < m.coeff)),
              "normalised: {%" PRId64 ", %" PRId64 "}", m.coeff, m.base);
    if (m.coeff != 1) informative++;
    for (int s = 0; s < 40; s++) {
      int64_t x = env.mx.coeff * mod_rand(-30, 30) + env.mx.base;
      int64_t y = env.my.coeff * mod_rand(-30, 30) + env.my.base;
      __int128 v = mod_eval(e, &env, x, y);
      cr_assert(mod_member(m, v),
                "case %d: x=%" PRId64 " y=%" PRId64 " gives %" PRId64 " outside {%" PRId64
                " k + %" PRId64 "}",
                t, x, y, (int64_t)v, m.coeff, m.base);
    }
  }
  cr_assert_gt(informative, total / 4, "only %d of %d sets say anything", informative, total);
}

Test(modular, known_answers) {
  const tx_expr *x = var("x");
  mod_env env = {x, NULL, {1, 0}, {1, 0}};
  tx_modset m = tx_modular(
      tx_binary(&ir, EXPR_FLOORDIV, add(mul(x, i32(8)), i32(4)), i32(2), NOSPAN), mod_lookup, &env);
  cr_assert(m.coeff == 4 && m.base == 2, "(8x + 4) // 2 is {4k + 2}: {%" PRId64 ", %" PRId64 "}",
            m.coeff, m.base);
  m = tx_modular(tx_binary(&ir, EXPR_FLOORMOD, add(mul(x, i32(6)), i32(7)), i32(4), NOSPAN),
                 mod_lookup, &env);
  cr_assert(m.coeff == 2 && m.base == 1, "(6x + 7) %% 4 is odd: {%" PRId64 ", %" PRId64 "}",
            m.coeff, m.base);
  cr_assert(tx_expr_multiple_of(mul(add(mul(x, i32(3)), i32(1)), i32(16)), 8));
  cr_assert_not(tx_expr_multiple_of(add(mul(x, i32(16)), i32(4)), 8));
  cr_assert_not(tx_expr_multiple_of(x, 2), "an unknown variable is not a multiple of anything");
  /* overflowing arithmetic claims nothing */
  const tx_expr *big = tx_int(&ir, TX_INT64, INT64_C(1) << 62, NOSPAN);
  m = tx_modular(mul(mul(big, x), tx_int(&ir, TX_INT64, 4, NOSPAN)), mod_lookup, &env);
  cr_assert_eq(m.coeff, 1);
}
