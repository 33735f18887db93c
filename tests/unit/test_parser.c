/*
 * test_parser.c - unit tests of the Python-subset parser (frontend/lexer.l,
 * frontend/parser.y, frontend/parse.c): tokens and layout, precedence, every
 * statement kind, spans, and every error path and limit.
 *
 * Must not depend on the IR builder: it only looks at the AST and the
 * diagnostics. Run under ASan/UBSan: no input may crash or leak.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/ast.h"

typedef struct parsed {
  tx_arena *arena;
  tx_interner *strings;
  tx_diag_sink *diags;
  tx_ast_list stmts;
  tirx_status status;
} parsed;

static parsed *parse_n(const char *text, size_t len) {
  parsed *p = calloc(1, sizeof *p);
  cr_assert_not_null(p);
  p->arena = tx_arena_create(NULL);
  p->strings = tx_interner_create(p->arena);
  p->diags = tx_diag_create(p->arena);
  const char *file = tx_diag_add_source(p->diags, "t.py", text, len);
  tx_parse_env env = {p->arena, p->strings, p->diags};
  p->status = tx_parse_python(&env, file, text, len, &p->stmts);
  return p;
}

static parsed *parse(const char *text) {
  return parse_n(text, strlen(text));
}

static void release(parsed *p) {
  tx_diag_destroy(p->diags);
  tx_interner_destroy(p->strings);
  tx_arena_destroy(p->arena);
  free(p);
}

static const tx_ast *stmt(const parsed *p, size_t i) {
  cr_assert_lt(i, p->stmts.len, "statement %zu of %zu", i, p->stmts.len);
  return p->stmts.items[i];
}

/* The value of expression statement i. */
static const tx_ast *expr(const parsed *p, size_t i) {
  const tx_ast *s = stmt(p, i);
  cr_assert_eq(s->kind, AST_EXPR_STMT, "got %s", tx_ast_kind_name(s->kind));
  return s->u.expr_stmt.value;
}

static void ok(const parsed *p) {
  if (p->status != TIRX_OK) {
    const tirx_diagnostic *d = tx_diag_at(p->diags, 0);
    cr_assert_fail("parse failed: %u:%u: %s", d ? d->span.line : 0, d ? d->span.col : 0,
                   d ? d->message : "(no diagnostic)");
  }
}

/* Assert that diagnostic i is an error at line:col with exactly `msg`. */
static void diag_is(const parsed *p, size_t i, unsigned line, unsigned col, const char *msg) {
  const tirx_diagnostic *d = tx_diag_at(p->diags, i);
  cr_assert_not_null(d, "no diagnostic %zu (have %zu)", i, tx_diag_count(p->diags));
  cr_expect_str_eq(d->message, msg);
  cr_expect_eq(d->span.line, line, "line %u, want %u (%s)", d->span.line, line, d->message);
  cr_expect_eq(d->span.col, col, "col %u, want %u (%s)", d->span.col, col, d->message);
  cr_expect_str_eq(d->span.file, "t.py");
}

/* One error, exactly this one, and TIRX_ERR_INPUT. */
static void fails_with(const char *src, unsigned line, unsigned col, const char *msg) {
  parsed *p = parse(src);
  cr_expect_eq(p->status, TIRX_ERR_INPUT, "status %d for %s", p->status, src);
  cr_expect_eq(tx_diag_errors(p->diags), 1, "%zu errors for %s", tx_diag_errors(p->diags), src);
  diag_is(p, 0, line, col, msg);
  cr_expect_eq(p->stmts.len, 0);
  release(p);
}

static void span_is(const tx_ast *n, unsigned l, unsigned c, unsigned el, unsigned ec) {
  cr_expect(n->span.line == l && n->span.col == c && n->span.end_line == el &&
                n->span.end_col == ec,
            "%s span %u:%u-%u:%u, want %u:%u-%u:%u", tx_ast_kind_name(n->kind), n->span.line,
            n->span.col, n->span.end_line, n->span.end_col, l, c, el, ec);
}

static void is_name(const tx_ast *n, const char *id) {
  cr_assert_eq(n->kind, AST_NAME, "got %s", tx_ast_kind_name(n->kind));
  cr_expect_str_eq(n->u.name.id, id);
}

static char *repeat(const char *unit, size_t n, const char *prefix, const char *suffix) {
  size_t ul = strlen(unit), pl = strlen(prefix), sl = strlen(suffix);
  char *s = malloc(pl + ul * n + sl + 1);
  cr_assert_not_null(s);
  memcpy(s, prefix, pl);
  for (size_t i = 0; i < n; i++)
    memcpy(s + pl + i * ul, unit, ul);
  memcpy(s + pl + ul * n, suffix, sl + 1);
  return s;
}

/* ---------------------------------------------------------------- tokens */

Test(tokens, empty_and_blank_inputs) {
  const char *inputs[] = {"", "\n", "   ", "# only a comment", "\n\n  \n\t\n", "  # c\n"};
  for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
    parsed *p = parse(inputs[i]);
    cr_expect_eq(p->status, TIRX_OK, "input %zu", i);
    cr_expect_eq(p->stmts.len, 0);
    release(p);
  }
}

Test(tokens, no_trailing_newline) {
  parsed *p = parse("def f():\n    if x:\n        y");
  ok(p);
  const tx_ast *f = stmt(p, 0);
  cr_assert_eq(f->kind, AST_FUNCDEF);
  const tx_ast *i = f->u.funcdef.body.items[0];
  cr_assert_eq(i->kind, AST_IF);
  is_name(i->u.if_.body.items[0]->u.expr_stmt.value, "y");
  release(p);
}

Test(tokens, indentation_blocks_and_dedent_to_middle) {
  parsed *p = parse("if a:\n  if b:\n      c\n  d\ne\n");
  ok(p);
  cr_assert_eq(p->stmts.len, 2);
  const tx_ast *outer = stmt(p, 0);
  cr_assert_eq(outer->u.if_.body.len, 2);
  cr_expect_eq(outer->u.if_.body.items[0]->kind, AST_IF);
  is_name(outer->u.if_.body.items[1]->u.expr_stmt.value, "d");
  is_name(expr(p, 1), "e");
  release(p);
}

Test(tokens, tabs_count_to_multiples_of_eight) {
  /* A tab then 8 spaces of the next block line up as in CPython. */
  parsed *p = parse("if a:\n\tb\n\tif c:\n\t        d\n");
  ok(p);
  release(p);
}

Test(tokens, blank_and_comment_lines_do_not_indent) {
  parsed *p = parse("if a:\n    b\n\n        # deeper comment\n  \n    c\n");
  ok(p);
  cr_expect_eq(stmt(p, 0)->u.if_.body.len, 2);
  release(p);
}

Test(tokens, implicit_and_explicit_line_joining) {
  parsed *p = parse("x = [1,\n  2,\n      3]\ny = 1 + \\\n  2\nz = f(a,\n# c\n\n b)\n");
  ok(p);
  cr_assert_eq(p->stmts.len, 3);
  cr_expect_eq(stmt(p, 0)->u.assign.value->u.seq.elts.len, 3);
  cr_expect_eq(stmt(p, 1)->u.assign.value->kind, AST_BINOP);
  cr_expect_eq(stmt(p, 2)->u.assign.value->u.call.args.len, 2);
  release(p);
}

Test(tokens, crlf_line_endings) {
  parsed *p = parse("if x:\r\n    y = 1\r\n\r\nz = 2\r\n");
  ok(p);
  cr_expect_eq(p->stmts.len, 2);
  release(p);
}

Test(tokens, integers) {
  parsed *p = parse("0\n42\n1_000\n0x_fF\n0o17\n0b1_01\n00\n18446744073709551615\n"
                    "18446744073709551616\n");
  ok(p);
  const uint64_t want[] = {0, 42, 1000, 255, 15, 5, 0, UINT64_MAX};
  for (size_t i = 0; i < 8; i++) {
    const tx_ast *n = expr(p, i);
    cr_assert_eq(n->kind, AST_INT);
    cr_expect_eq(n->u.int_lit.value, want[i], "literal %zu", i);
    cr_expect_eq(n->u.int_lit.overflow, 0);
  }
  const tx_ast *big = expr(p, 8);
  cr_expect_eq(big->u.int_lit.overflow, 1);
  cr_expect_str_eq(big->u.int_lit.text, "18446744073709551616");
  cr_expect_str_eq(expr(p, 3)->u.int_lit.text, "0x_fF");
  release(p);
}

Test(tokens, floats) {
  parsed *p = parse("1.5\n1e-3\n.5\n5.\n1_0.2_5e1_0\n2E+2\n");
  ok(p);
  const double want[] = {1.5, 1e-3, 0.5, 5.0, 10.25e10, 200.0};
  for (size_t i = 0; i < 6; i++) {
    const tx_ast *n = expr(p, i);
    cr_assert_eq(n->kind, AST_FLOAT, "literal %zu is %s", i, tx_ast_kind_name(n->kind));
    cr_expect_eq(n->u.float_lit.value, want[i], "literal %zu", i);
  }
  cr_expect_str_eq(expr(p, 1)->u.float_lit.text, "1e-3");
  release(p);
}

Test(tokens, strings_and_escapes) {
  parsed *p = parse("'a\\n\\t\\\\\\'\\\"'\n"
                    "\"\\x41\\u00e9\\U0001F600\\101\\q\"\n"
                    "r'\\n'\n"
                    "'''line1\nline2'''\n"
                    "\"a\" 'b' \"\"\"c\"\"\"\n"
                    "b'\\xff'\n"
                    "'a\\\nb'\n");
  ok(p);
  const tx_ast *s0 = expr(p, 0);
  cr_assert_eq(s0->kind, AST_STR);
  cr_expect_eq(s0->u.str.len, 6);
  cr_expect(memcmp(s0->u.str.data, "a\n\t\\'\"", 6) == 0);
  cr_expect_str_eq(expr(p, 1)->u.str.data, "A\xc3\xa9\xf0\x9f\x98\x80"
                                           "A\\q");
  cr_expect_str_eq(expr(p, 2)->u.str.data, "\\n");
  cr_expect_str_eq(expr(p, 3)->u.str.data, "line1\nline2");
  cr_expect_str_eq(expr(p, 4)->u.str.data, "abc");
  span_is(expr(p, 4), 6, 1, 6, 16);
  cr_expect_eq(expr(p, 5)->u.str.len, 1);
  cr_expect_eq((unsigned char)expr(p, 5)->u.str.data[0], 0xff);
  cr_expect_str_eq(expr(p, 6)->u.str.data, "ab");
  release(p);
}

Test(tokens, invalid_utf8_in_strings_and_comments_is_fine) {
  parsed *p = parse("x = '\xff\xfe'  # \xc0\xc1\n");
  ok(p);
  cr_expect_eq(stmt(p, 0)->u.assign.value->u.str.len, 2);
  release(p);
}

Test(tokens, operators) {
  parsed *p = parse("a @ b // c ** d << e >> f\nx -= 1\nx //= 2\nx @= 3\nx **= 4\nx >>= 5\n"
                    "x <<= 6\nx ^= 7\nx |= 8\nx &= 9\nx %= 10\nx /= 11\nx *= 12\nx += 13\n");
  ok(p);
  const tx_binop ops[] = {BINOP_SUB,    BINOP_FLOORDIV, BINOP_MATMUL, BINOP_POW,    BINOP_RSHIFT,
                          BINOP_LSHIFT, BINOP_BITXOR,   BINOP_BITOR,  BINOP_BITAND, BINOP_MOD,
                          BINOP_DIV,    BINOP_MUL,      BINOP_ADD};
  for (size_t i = 0; i < 13; i++) {
    const tx_ast *s = stmt(p, i + 1);
    cr_assert_eq(s->kind, AST_AUGASSIGN);
    cr_expect_eq(s->u.augassign.op, ops[i], "statement %zu", i + 1);
  }
  release(p);
}

/* ------------------------------------------------------------ precedence */

Test(precedence, power_binds_tighter_than_unary_minus) {
  parsed *p = parse("-a**b\na**-b\n");
  ok(p);
  const tx_ast *e = expr(p, 0);
  cr_assert_eq(e->kind, AST_UNARYOP);
  cr_expect_eq(e->u.unop.op, UNOP_NEG);
  cr_assert_eq(e->u.unop.operand->kind, AST_BINOP);
  cr_expect_eq(e->u.unop.operand->u.binop.op, BINOP_POW);
  e = expr(p, 1);
  cr_assert_eq(e->kind, AST_BINOP);
  cr_expect_eq(e->u.binop.right->kind, AST_UNARYOP);
  release(p);
}

Test(precedence, power_is_right_associative) {
  parsed *p = parse("a ** b ** c\n");
  ok(p);
  const tx_ast *e = expr(p, 0);
  is_name(e->u.binop.left, "a");
  cr_expect_eq(e->u.binop.right->u.binop.op, BINOP_POW);
  release(p);
}

Test(precedence, arithmetic_and_bitwise) {
  parsed *p = parse("a + b * c\na - b - c\na | b ^ c & d << e + f\n-a * b\n");
  ok(p);
  const tx_ast *e = expr(p, 0);
  cr_expect_eq(e->u.binop.op, BINOP_ADD);
  cr_expect_eq(e->u.binop.right->u.binop.op, BINOP_MUL);
  e = expr(p, 1);
  cr_expect_eq(e->u.binop.left->kind, AST_BINOP); /* (a - b) - c */
  is_name(e->u.binop.right, "c");
  e = expr(p, 2);
  cr_expect_eq(e->u.binop.op, BINOP_BITOR);
  cr_expect_eq(e->u.binop.right->u.binop.op, BINOP_BITXOR);
  cr_expect_eq(e->u.binop.right->u.binop.right->u.binop.op, BINOP_BITAND);
  e = expr(p, 3);
  cr_expect_eq(e->u.binop.op, BINOP_MUL);
  cr_expect_eq(e->u.binop.left->kind, AST_UNARYOP);
  release(p);
}

Test(precedence, conditional_expression) {
  parsed *p = parse("a if b else c if d else e\n");
  ok(p);
  const tx_ast *e = expr(p, 0);
  cr_assert_eq(e->kind, AST_IFEXP);
  is_name(e->u.ifexp.body, "a");
  is_name(e->u.ifexp.test, "b");
  cr_expect_eq(e->u.ifexp.orelse->kind, AST_IFEXP);
  release(p);
}

Test(precedence, chained_comparison) {
  parsed *p = parse("a < b <= c is not d not in e == f\n(a < b) < c\n");
  ok(p);
  const tx_ast *e = expr(p, 0);
  cr_assert_eq(e->kind, AST_COMPARE);
  cr_assert_eq(e->u.compare.comparators.len, 5);
  const tx_cmpop want[] = {CMP_LT, CMP_LE, CMP_IS_NOT, CMP_NOT_IN, CMP_EQ};
  for (size_t i = 0; i < 5; i++)
    cr_expect_eq(e->u.compare.ops[i], want[i]);
  e = expr(p, 1);
  cr_expect_eq(e->u.compare.left->kind, AST_COMPARE);
  cr_expect_eq(e->u.compare.comparators.len, 1);
  release(p);
}

Test(precedence, boolean_operators) {
  parsed *p = parse("not a or b and c or d\n(a or b) or c\n");
  ok(p);
  const tx_ast *e = expr(p, 0);
  cr_assert_eq(e->kind, AST_BOOLOP);
  cr_expect_eq(e->u.boolop.is_and, 0);
  cr_assert_eq(e->u.boolop.values.len, 3);
  cr_expect_eq(e->u.boolop.values.items[0]->kind, AST_UNARYOP);
  cr_expect_eq(e->u.boolop.values.items[1]->u.boolop.is_and, 1);
  e = expr(p, 1);
  cr_expect_eq(e->u.boolop.values.len, 2);
  cr_expect_eq(e->u.boolop.values.items[0]->kind, AST_BOOLOP);
  release(p);
}

/* The boolean and comparison layers are derived directly from `test`
 * (parser.y): chains stay flat, parenthesized operands stay nested, and
 * `not` binds looser than a comparison but cannot be its operand. */
Test(precedence, boolean_and_comparison_chains_keep_their_shape) {
  parsed *p = parse("a and b and c\n(a and b) and c\na and (b and c)\na or (b or c)\n"
                    "not a == b\n(not a) == b\na < (b < c)\nnot not a\n"
                    "x = (a or b) if (c < d) else e and f\nf(a or b, c < d, k=not e)\n");
  ok(p);
  const tx_ast *e = expr(p, 0);
  cr_assert_eq(e->kind, AST_BOOLOP);
  cr_expect_eq(e->u.boolop.is_and, 1);
  cr_expect_eq(e->u.boolop.values.len, 3);
  span_is(e, 1, 1, 1, 14);
  e = expr(p, 1);
  cr_assert_eq(e->u.boolop.values.len, 2);
  cr_expect_eq(e->u.boolop.values.items[0]->kind, AST_BOOLOP);
  is_name(e->u.boolop.values.items[1], "c");
  e = expr(p, 2);
  cr_assert_eq(e->u.boolop.values.len, 2);
  is_name(e->u.boolop.values.items[0], "a");
  cr_expect_eq(e->u.boolop.values.items[1]->u.boolop.is_and, 1);
  e = expr(p, 3);
  cr_assert_eq(e->u.boolop.values.len, 2);
  cr_expect_eq(e->u.boolop.values.items[1]->kind, AST_BOOLOP);
  cr_expect_eq(e->u.boolop.values.items[1]->u.boolop.is_and, 0);
  e = expr(p, 4); /* not (a == b) */
  cr_assert_eq(e->kind, AST_UNARYOP);
  cr_expect_eq(e->u.unop.op, UNOP_NOT);
  cr_expect_eq(e->u.unop.operand->kind, AST_COMPARE);
  e = expr(p, 5); /* (not a) == b */
  cr_assert_eq(e->kind, AST_COMPARE);
  cr_expect_eq(e->u.compare.left->kind, AST_UNARYOP);
  e = expr(p, 6);
  cr_assert_eq(e->kind, AST_COMPARE);
  cr_expect_eq(e->u.compare.comparators.len, 1);
  cr_expect_eq(e->u.compare.comparators.items[0]->kind, AST_COMPARE);
  e = expr(p, 7);
  cr_assert_eq(e->kind, AST_UNARYOP);
  cr_expect_eq(e->u.unop.operand->kind, AST_UNARYOP);
  e = stmt(p, 8)->u.assign.value;
  cr_assert_eq(e->kind, AST_IFEXP);
  cr_expect_eq(e->u.ifexp.body->kind, AST_BOOLOP);
  cr_expect_eq(e->u.ifexp.test->kind, AST_COMPARE);
  cr_expect_eq(e->u.ifexp.orelse->kind, AST_BOOLOP);
  e = expr(p, 9);
  cr_assert_eq(e->kind, AST_CALL);
  cr_expect_eq(e->u.call.args.items[0]->kind, AST_BOOLOP);
  cr_expect_eq(e->u.call.args.items[1]->kind, AST_COMPARE);
  cr_expect_eq(e->u.call.keywords.items[0]->u.keyword.value->kind, AST_UNARYOP);
  release(p);
  fails_with("a == not b\n", 1, 6, "syntax error: unexpected 'not'");
  fails_with("x = *a or b\n", 1, 8, "syntax error: unexpected 'or'");
  fails_with("f(a or)\n", 1, 7, "syntax error: unexpected ')'");
}

Test(precedence, lambda) {
  parsed *p = parse("f = lambda x, y=1, *a, **k: x + y\ng = lambda: 0\n");
  ok(p);
  const tx_ast *l = stmt(p, 0)->u.assign.value;
  cr_assert_eq(l->kind, AST_LAMBDA);
  cr_expect_eq(l->u.lambda.params.len, 4);
  cr_expect_eq(l->u.lambda.params.items[2]->u.param.kind, PARAM_VARARGS);
  cr_expect_eq(l->u.lambda.body->kind, AST_BINOP);
  cr_expect_eq(stmt(p, 1)->u.assign.value->u.lambda.params.len, 0);
  release(p);
}

/* ------------------------------------------------------------ primaries */

Test(primaries, calls) {
  parsed *p = parse("f(a, *b, c=1, **d,)\nT.prim_func(private=True)()\n");
  ok(p);
  const tx_ast *c = expr(p, 0);
  cr_assert_eq(c->kind, AST_CALL);
  cr_expect_eq(c->u.call.args.len, 2);
  cr_expect_eq(c->u.call.args.items[1]->kind, AST_STARRED);
  cr_assert_eq(c->u.call.keywords.len, 2);
  cr_expect_str_eq(c->u.call.keywords.items[0]->u.keyword.arg, "c");
  cr_expect_null(c->u.call.keywords.items[1]->u.keyword.arg);
  c = expr(p, 1);
  cr_expect_eq(c->u.call.func->kind, AST_CALL);
  release(p);
}

Test(primaries, subscripts_and_slices) {
  parsed *p = parse("a[i, j]\na[1:2]\na[(8,2):(4,1)]\na[::2]\na[:, 0]\na[i,]\na[:]\n");
  ok(p);
  const tx_ast *s = expr(p, 0)->u.subscript.index;
  cr_expect_eq(s->kind, AST_TUPLE);
  cr_expect_eq(s->u.seq.elts.len, 2);
  s = expr(p, 1)->u.subscript.index;
  cr_assert_eq(s->kind, AST_SLICE);
  cr_expect_eq(s->u.slice.lower->u.int_lit.value, 1);
  cr_expect_eq(s->u.slice.upper->u.int_lit.value, 2);
  cr_expect_null(s->u.slice.step);
  s = expr(p, 2)->u.subscript.index;
  cr_expect_eq(s->u.slice.lower->kind, AST_TUPLE);
  cr_expect_eq(s->u.slice.upper->kind, AST_TUPLE);
  s = expr(p, 3)->u.subscript.index;
  cr_expect_null(s->u.slice.lower);
  cr_expect_null(s->u.slice.upper);
  cr_expect_eq(s->u.slice.step->u.int_lit.value, 2);
  s = expr(p, 4)->u.subscript.index;
  cr_expect_eq(s->u.seq.elts.items[0]->kind, AST_SLICE);
  s = expr(p, 5)->u.subscript.index;
  cr_expect_eq(s->kind, AST_TUPLE);
  cr_expect_eq(s->u.seq.elts.len, 1);
  s = expr(p, 6)->u.subscript.index;
  cr_expect_eq(s->kind, AST_SLICE);
  span_is(s, 7, 3, 7, 4);
  release(p);
}

Test(primaries, atoms) {
  parsed *p = parse("None\nTrue\nFalse\n...\n()\n(x,)\n(x)\n[]\n[1, 2,]\n{}\n{1: 2, **d}\n"
                    "x.y.z\n");
  ok(p);
  const tx_ast_kind kinds[] = {AST_NONE, AST_TRUE, AST_FALSE, AST_ELLIPSIS, AST_TUPLE, AST_TUPLE,
                               AST_NAME, AST_LIST, AST_LIST,  AST_DICT,     AST_DICT,  AST_ATTR};
  for (size_t i = 0; i < 12; i++)
    cr_expect_eq(expr(p, i)->kind, kinds[i], "atom %zu is %s", i,
                 tx_ast_kind_name(expr(p, i)->kind));
  cr_expect_eq(expr(p, 4)->u.seq.elts.len, 0);
  cr_expect_eq(expr(p, 5)->u.seq.elts.len, 1);
  cr_expect_eq(expr(p, 8)->u.seq.elts.len, 2);
  const tx_ast *d = expr(p, 10);
  cr_assert_eq(d->u.dict.keys.len, 2);
  cr_expect_null(d->u.dict.keys.items[1]);
  is_name(d->u.dict.values.items[1], "d");
  cr_expect_str_eq(expr(p, 11)->u.attr.attr, "z");
  release(p);
}

/* ------------------------------------------------------------ statements */

Test(statements, assignments) {
  parsed *p = parse("a = b = c\na, b = b, a\nx: T.int32 = 0\ny: T.let[T.int32] = 1\nz: T.int32\n"
                    "*a, b = c\n");
  ok(p);
  const tx_ast *s = stmt(p, 0);
  cr_assert_eq(s->kind, AST_ASSIGN);
  cr_expect_eq(s->u.assign.targets.len, 2);
  is_name(s->u.assign.value, "c");
  s = stmt(p, 1);
  cr_expect_eq(s->u.assign.targets.items[0]->kind, AST_TUPLE);
  cr_expect_eq(s->u.assign.value->kind, AST_TUPLE);
  s = stmt(p, 2);
  cr_assert_eq(s->kind, AST_ANNASSIGN);
  cr_expect_eq(s->u.annassign.annotation->kind, AST_ATTR);
  cr_expect_eq(s->u.annassign.value->kind, AST_INT);
  s = stmt(p, 3);
  cr_expect_eq(s->u.annassign.annotation->kind, AST_SUBSCRIPT);
  s = stmt(p, 4);
  cr_expect_null(s->u.annassign.value);
  s = stmt(p, 5);
  cr_expect_eq(s->u.assign.targets.items[0]->u.seq.elts.items[0]->kind, AST_STARRED);
  release(p);
}

Test(statements, simple_statements) {
  parsed *p = parse("return\nreturn a, b\npass; break; continue;\nassert x, 'm'\nassert y\n"
                    "del a, b[0]\nglobal g, h\n");
  ok(p);
  const tx_ast_kind kinds[] = {AST_RETURN, AST_RETURN, AST_PASS, AST_BREAK, AST_CONTINUE,
                               AST_ASSERT, AST_ASSERT, AST_DEL,  AST_GLOBAL};
  cr_assert_eq(p->stmts.len, 9);
  for (size_t i = 0; i < 9; i++)
    cr_expect_eq(stmt(p, i)->kind, kinds[i], "statement %zu", i);
  cr_expect_null(stmt(p, 0)->u.ret.value);
  cr_expect_eq(stmt(p, 1)->u.ret.value->kind, AST_TUPLE);
  cr_expect_eq(stmt(p, 5)->u.assert_.msg->kind, AST_STR);
  cr_expect_null(stmt(p, 6)->u.assert_.msg);
  cr_expect_eq(stmt(p, 7)->u.del.targets.len, 2);
  cr_expect_eq(stmt(p, 8)->u.global.names.len, 2);
  release(p);
}

Test(statements, imports) {
  parsed *p = parse("import a.b as c, d\nfrom x.y import (p, q as r,)\nfrom . import z\n"
                    "from ...m import *\n");
  ok(p);
  const tx_ast *s = stmt(p, 0);
  cr_assert_eq(s->kind, AST_IMPORT);
  cr_assert_eq(s->u.import.names.len, 2);
  cr_expect_str_eq(s->u.import.names.items[0]->u.alias.name, "a.b");
  cr_expect_str_eq(s->u.import.names.items[0]->u.alias.asname, "c");
  cr_expect_null(s->u.import.names.items[1]->u.alias.asname);
  s = stmt(p, 1);
  cr_assert_eq(s->kind, AST_IMPORTFROM);
  cr_expect_str_eq(s->u.import.module, "x.y");
  cr_expect_eq(s->u.import.level, 0);
  cr_expect_eq(s->u.import.names.len, 2);
  cr_expect_str_eq(s->u.import.names.items[1]->u.alias.asname, "r");
  s = stmt(p, 2);
  cr_expect_null(s->u.import.module);
  cr_expect_eq(s->u.import.level, 1);
  s = stmt(p, 3);
  cr_expect_eq(s->u.import.level, 3);
  cr_expect_str_eq(s->u.import.names.items[0]->u.alias.name, "*");
  release(p);
}

Test(statements, if_elif_else) {
  parsed *p = parse("if a: x\nelif b:\n    y\nelse:\n    z\n");
  ok(p);
  const tx_ast *s = stmt(p, 0);
  cr_assert_eq(s->kind, AST_IF);
  cr_assert_eq(s->u.if_.orelse.len, 1);
  const tx_ast *elif = s->u.if_.orelse.items[0];
  cr_assert_eq(elif->kind, AST_IF);
  is_name(elif->u.if_.test, "b");
  is_name(elif->u.if_.orelse.items[0]->u.expr_stmt.value, "z");
  span_is(s, 1, 1, 5, 6);
  span_is(elif, 2, 1, 5, 6);
  release(p);
}

Test(statements, loops) {
  parsed *p = parse("for i, j in T.grid(4, 8):\n    pass\nelse:\n    pass\n"
                    "while x: break\nelse: pass\nfor x in a, b: pass\n");
  ok(p);
  const tx_ast *s = stmt(p, 0);
  cr_assert_eq(s->kind, AST_FOR);
  cr_expect_eq(s->u.for_.target->kind, AST_TUPLE);
  cr_expect_eq(s->u.for_.orelse.len, 1);
  s = stmt(p, 1);
  cr_assert_eq(s->kind, AST_WHILE);
  cr_expect_eq(s->u.while_.orelse.len, 1);
  cr_expect_eq(stmt(p, 2)->u.for_.iter->kind, AST_TUPLE);
  release(p);
}

Test(statements, with_items) {
  parsed *p = parse("with T.block('b') as b, T.kernel() as (bx, by), c:\n    pass\n");
  ok(p);
  const tx_ast *s = stmt(p, 0);
  cr_assert_eq(s->kind, AST_WITH);
  cr_assert_eq(s->u.with.items.len, 3);
  is_name(s->u.with.items.items[0]->u.withitem.target, "b");
  cr_expect_eq(s->u.with.items.items[1]->u.withitem.target->kind, AST_TUPLE);
  cr_expect_null(s->u.with.items.items[2]->u.withitem.target);
  release(p);
}

Test(statements, function_definitions) {
  parsed *p = parse("@T.prim_func(private=True)\n@a.b\n@c\n"
                    "def f(a: T.handle, b=1, /, c: int = 2, *args, d, **kw) -> None:\n"
                    "    return a\n"
                    "def g(*, k): pass\n");
  ok(p);
  const tx_ast *f = stmt(p, 0);
  cr_assert_eq(f->kind, AST_FUNCDEF);
  cr_expect_str_eq(f->u.funcdef.name, "f");
  cr_assert_eq(f->u.funcdef.decorators.len, 3);
  cr_expect_eq(f->u.funcdef.decorators.items[0]->kind, AST_CALL);
  cr_expect_eq(f->u.funcdef.decorators.items[1]->kind, AST_ATTR);
  const tx_ast_list ps = f->u.funcdef.params;
  cr_assert_eq(ps.len, 7);
  const tx_param_kind kinds[] = {PARAM_NORMAL,  PARAM_NORMAL, PARAM_SLASH, PARAM_NORMAL,
                                 PARAM_VARARGS, PARAM_NORMAL, PARAM_KWARGS};
  for (size_t i = 0; i < 7; i++)
    cr_expect_eq(ps.items[i]->u.param.kind, kinds[i], "param %zu", i);
  cr_expect_eq(ps.items[0]->u.param.annotation->kind, AST_ATTR);
  cr_expect_eq(ps.items[1]->u.param.default_value->kind, AST_INT);
  cr_expect_str_eq(ps.items[6]->u.param.name, "kw");
  cr_expect_eq(f->u.funcdef.returns->kind, AST_NONE);
  span_is(f, 1, 1, 5, 13);
  const tx_ast *g = stmt(p, 1);
  cr_expect_eq(g->u.funcdef.params.items[0]->u.param.kind, PARAM_STAR);
  release(p);
}

Test(statements, class_definitions) {
  parsed *p = parse("@dec\nclass A(B, C):\n    x = 1\n    def m(self): pass\nclass D: pass\n");
  ok(p);
  const tx_ast *c = stmt(p, 0);
  cr_assert_eq(c->kind, AST_CLASSDEF);
  cr_expect_str_eq(c->u.classdef.name, "A");
  cr_expect_eq(c->u.classdef.decorators.len, 1);
  cr_expect_eq(c->u.classdef.bases.len, 2);
  cr_expect_eq(c->u.classdef.body.len, 2);
  cr_expect_eq(stmt(p, 1)->u.classdef.bases.len, 0);
  release(p);
}

/* ----------------------------------------------------------------- spans */

Test(spans, nodes_cover_their_full_extent) {
  parsed *p = parse("x = foo(a, b=1) + c[1:2]\n");
  ok(p);
  const tx_ast *s = stmt(p, 0);
  span_is(s, 1, 1, 1, 25);
  const tx_ast *add = s->u.assign.value;
  span_is(add, 1, 5, 1, 25);
  span_is(add->u.binop.left, 1, 5, 1, 16);
  span_is(add->u.binop.left->u.call.keywords.items[0], 1, 12, 1, 15);
  span_is(add->u.binop.right, 1, 19, 1, 25);
  span_is(add->u.binop.right->u.subscript.index, 1, 21, 1, 24);
  release(p);
}

Test(spans, parenthesized_and_multiline) {
  parsed *p = parse("y = (a +\n     b)\nz = (1, 2)\n");
  ok(p);
  span_is(stmt(p, 0), 1, 1, 2, 8);
  span_is(stmt(p, 0)->u.assign.value, 1, 6, 2, 7);  /* the parentheses only group */
  span_is(stmt(p, 1)->u.assign.value, 3, 5, 3, 11); /* a tuple includes them */
  release(p);
}

/* Columns are byte offsets from the start of the line (lexer.l); only
 * tokens that contain newlines move the line: strings, joins, blank lines. */
Test(spans, tokens_after_tokens_that_span_lines) {
  parsed *p = parse("x = \"\"\"a\nbc\"\"\" + y\nz = 'a\\\nbc' + w\nv = 1 + \\\n  u\n  \n# c\n"
                    "t = (1 +\n  s)");
  ok(p);
  cr_assert_eq(p->stmts.len, 4);
  const tx_ast *e = stmt(p, 0)->u.assign.value;
  span_is(e, 1, 5, 2, 10);
  span_is(e->u.binop.left, 1, 5, 2, 6);
  span_is(e->u.binop.right, 2, 9, 2, 10);
  e = stmt(p, 1)->u.assign.value;
  span_is(e->u.binop.left, 3, 5, 4, 4);
  span_is(e->u.binop.right, 4, 7, 4, 8);
  e = stmt(p, 2)->u.assign.value;
  span_is(e, 5, 5, 6, 4);
  span_is(e->u.binop.right, 6, 3, 6, 4);
  span_is(stmt(p, 3), 9, 1, 10, 5);
  span_is(stmt(p, 3)->u.assign.value->u.binop.right, 10, 3, 10, 4);
  release(p);
  fails_with("x = 'ab\\\ncd\n", 1, 5, "unterminated string literal (detected at line 2)");
  /* Layout tokens at the end of the input sit after the last byte. */
  fails_with("if a:\n  # c\n\n", 4, 1, "expected an indented block after 'if' statement on line 1");
  fails_with("if a:  ", 1, 8, "expected an indented block after 'if' statement on line 1");
}

Test(spans, compound_statement_ends_at_its_last_statement) {
  parsed *p = parse("for i in x:\n    a = 1\n\n    b = 2  # c\n\nz\n");
  ok(p);
  span_is(stmt(p, 0), 1, 1, 4, 10);
  release(p);
}

/* ---------------------------------------------------------------- errors */

Test(errors, expected_colon) {
  fails_with("if x\n    y = 1\n", 1, 5, "expected ':'");
  fails_with("def f()\n    pass\n", 1, 8, "expected ':'");
}

Test(errors, expected_indented_block) {
  fails_with("if x:\ny\n", 2, 1, "expected an indented block after 'if' statement on line 1");
  fails_with("def f():\n", 2, 1, "expected an indented block after function definition on line 1");
}

Test(errors, unexpected_indent) {
  fails_with("x = 1\n    y = 2\n", 2, 5, "unexpected indent");
  fails_with("  x = 1\n", 1, 3, "unexpected indent");
}

Test(errors, inconsistent_dedent) {
  fails_with("if x:\n        a\n    b\n", 3, 5,
             "unindent does not match any outer indentation level");
}

Test(errors, tabs_and_spaces) {
  fails_with("if a:\n\tx\n        y\n", 3, 9, "inconsistent use of tabs and spaces in indentation");
}

Test(errors, generic_syntax_error) {
  fails_with("f(a b)\n", 1, 5, "syntax error: unexpected name 'b'");
  fails_with("x = \n", 1, 5, "syntax error: unexpected end of line");
  fails_with("x = (1 + )\n", 1, 10, "syntax error: unexpected ')'");
}

Test(errors, brackets) {
  fails_with("x = (1 +\n", 1, 5, "'(' was never closed");
  fails_with("x = )\n", 1, 5, "unmatched ')'");
  fails_with("y = (]\n", 1, 6, "closing parenthesis ']' does not match opening parenthesis '('");
  fails_with("y = (\n1]\n", 2, 2,
             "closing parenthesis ']' does not match opening parenthesis '(' on line 1");
}

Test(errors, strings) {
  fails_with("x = 'abc\ny = 2\n", 1, 5, "unterminated string literal (detected at line 1)");
  fails_with("x = 1\ny = \"\"\"abc\nz\n", 2, 5,
             "unterminated triple-quoted string literal (detected at line 3)");
  fails_with("x = f'{a}'\n", 1, 5, "f-strings are not supported");
  fails_with("x = '\\x4'\n", 1, 6, "truncated \\x escape (expected 2 hex digits)");
  fails_with("x = 'ab\\ud800'\n", 1, 8, "invalid Unicode escape: surrogate code point U+D800");
  fails_with("x = '\\N{DASH}'\n", 1, 6, "\\N{...} escapes are not supported");
}

Test(errors, numbers) {
  fails_with("x = 0123\n", 1, 5,
             "leading zeros in decimal integer literals are not permitted; use an 0o prefix "
             "for octal integers");
  fails_with("x = 0x\n", 1, 5, "invalid hexadecimal literal");
  fails_with("x = 1_\n", 1, 5, "invalid decimal literal");
  fails_with("x = 1j\n", 1, 5, "complex literals are not supported");
}

Test(errors, stray_characters) {
  fails_with("x = $\n", 1, 5, "invalid character '$'");
  fails_with("x = 1 ? 2\n", 1, 7, "invalid character '?'");
  fails_with("x = \xc3\xa9\n", 1, 5, "invalid character '\xc3\xa9' (U+00E9)");
  fails_with("x = \xff\n", 1, 5, "invalid byte 0xFF in source (not UTF-8 text)");
  fails_with("x = \\ 1\n", 1, 5, "unexpected character after line continuation character");
  fails_with("x = \x01\n", 1, 5, "invalid control character U+0001");
}

Test(errors, nul_byte) {
  parsed *p = parse_n("x = 1\ny = 'a\0b'\n", 14);
  cr_expect_eq(p->status, TIRX_ERR_INPUT);
  cr_expect_eq(tx_diag_errors(p->diags), 1);
  diag_is(p, 0, 2, 7, "NUL byte in source");
  release(p);
}

Test(errors, unsupported_constructs) {
  fails_with("try:\n    pass\n", 1, 1, "'try' is not supported");
  fails_with("x = [i for i in y]\n", 1, 8, "comprehensions are not supported");
  fails_with("if (x := 3): pass\n", 1, 7, "assignment expressions (':=') are not supported");
  fails_with("s = {1, 2}\n", 1, 7, "set literals are not supported");
  fails_with("if x = 1: pass\n", 1, 6, "invalid syntax: maybe you meant '==' instead of '='?");
}

Test(errors, semantic_checks) {
  fails_with("f() = 1\n", 1, 1, "cannot assign to function call in assignment");
  fails_with("1 += 1\n", 1, 1, "illegal expression for augmented assignment");
  fails_with("a, b: int\n", 1, 1, "only single target (not tuple) can be annotated");
  fails_with("f(a=1, b)\n", 1, 8, "positional argument follows keyword argument");
  fails_with("f(a + 1=2)\n", 1, 3,
             "expression cannot contain assignment, perhaps you meant \"==\"?");
  fails_with("def f(a=1, b): pass\n", 1, 12,
             "parameter without a default follows parameter with a default");
  fails_with("def f(a, a): pass\n", 1, 10, "duplicate argument 'a' in function definition");
  fails_with("def f(*): pass\n", 1, 7, "named arguments must follow bare *");
  fails_with("*a\n", 1, 1, "can't use starred expression here");
}

Test(errors, several_errors_are_reported) {
  parsed *p = parse("x = $\ndef f(:\n    pass\ny = (1 +\nz = 1\nf(a b)\n");
  cr_expect_eq(p->status, TIRX_ERR_INPUT);
  cr_assert_eq(tx_diag_errors(p->diags), 4, "got %zu errors", tx_diag_errors(p->diags));
  diag_is(p, 0, 1, 5, "invalid character '$'");
  diag_is(p, 1, 2, 7, "syntax error: unexpected ':'");
  diag_is(p, 2, 5, 3, "syntax error: unexpected '='");
  diag_is(p, 3, 6, 5, "syntax error: unexpected name 'b'");
  cr_expect_eq(p->stmts.len, 0);
  release(p);
}

Test(errors, saturated_sink_stops) {
  char *src = repeat("x = $\n", 1000, "", "");
  parsed *p = parse(src);
  cr_expect_eq(p->status, TIRX_ERR_INPUT);
  cr_expect(tx_diag_saturated(p->diags));
  cr_expect_eq(tx_diag_errors(p->diags), TX_MAX_ERRORS);
  release(p);
  free(src);
}

/* ---------------------------------------------------------------- limits */

#define DEPTH_MSG                                                                                  \
  "too deeply nested (limit 2048 levels; each operator of a chain like a + b + c, and each "       \
  "elif, is one level)"

static void nesting_fails(const char *src, unsigned line, unsigned col) {
  fails_with(src, line, col, "nesting too deep (limit 200)");
}

Test(limits, deep_parentheses) {
  char *src = repeat("(", 20000, "x = ", "1\n");
  nesting_fails(src, 1, 205);
  free(src);
  src = repeat("[{(", 7000, "x = ", "");
  nesting_fails(src, 1, 205);
  free(src);
}

Test(limits, nesting_just_below_the_limit_is_fine) {
  char *src = repeat("(", 150, "x = ", "1");
  char *full = repeat(")", 150, src, "\n");
  parsed *p = parse(full);
  ok(p);
  release(p);
  free(src);
  free(full);
}

Test(limits, deep_indentation) {
  size_t n = 1000, len = 0;
  char *src = malloc(n * (n + 8) + 16);
  cr_assert_not_null(src);
  for (size_t i = 0; i < n; i++) {
    memset(src + len, ' ', i);
    len += i;
    memcpy(src + len, "if x:\n", 6);
    len += 6;
  }
  memcpy(src + len, "pass\n", 6);
  parsed *p = parse(src);
  cr_expect_eq(p->status, TIRX_ERR_INPUT);
  diag_is(p, 0, 201, 201, "nesting too deep (limit 200)");
  cr_expect_eq(tx_diag_errors(p->diags), 1);
  release(p);
  free(src);
}

Test(limits, deep_expressions) {
  const char *units[] = {"-", "not ", "lambda: ", "a if b else ", "a ** ", "a + ", "a."};
  for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
    char *src = repeat(units[i], 100000, "x = ", "a\n");
    parsed *p = parse(src);
    cr_expect_eq(p->status, TIRX_ERR_INPUT, "unit '%s'", units[i]);
    cr_expect_eq(tx_diag_errors(p->diags), 1, "unit '%s'", units[i]);
    const tirx_diagnostic *d = tx_diag_at(p->diags, 0);
    cr_expect_str_eq(d->message, DEPTH_MSG, "unit '%s'", units[i]);
    release(p);
    free(src);
  }
}

/* A regression test: a flat chain of 1,000 terms used to be refused as
 * "nesting too deep (limit 200)". The limit is on the tree's depth (what
 * recursive walks need stack for), so a chain is fine up to it. */
Test(limits, long_flat_chains_are_fine) {
  /* Comparison and boolean chains are one node, as in Python: never deep. */
  const char *flat[] = {"a and ", "a or ", "a < ", "a == "};
  for (size_t i = 0; i < sizeof flat / sizeof *flat; i++) {
    char *src = repeat(flat[i], 20000, "x = ", "a\n");
    parsed *p = parse(src);
    cr_expect_eq(p->status, TIRX_OK, "unit '%s'", flat[i]);
    release(p);
    free(src);
  }
  const char *units[] = {"a + ", "a * ", "a - ", "a // ", "a | ", "a << "};
  for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
    char *src = repeat(units[i], 2000, "x = ", "a\n");
    parsed *p = parse(src);
    cr_expect_eq(p->status, TIRX_OK, "unit '%s'", units[i]);
    release(p);
    free(src);
    src = repeat(units[i], 2100, "x = ", "a\n");
    p = parse(src);
    cr_expect_eq(p->status, TIRX_ERR_INPUT, "unit '%s'", units[i]);
    cr_expect_eq(tx_diag_errors(p->diags), 1, "unit '%s'", units[i]);
    if (tx_diag_errors(p->diags))
      cr_expect_str_eq(tx_diag_at(p->diags, 0)->message, DEPTH_MSG, "unit '%s'", units[i]);
    release(p);
    free(src);
  }
}

Test(limits, long_elif_chain) {
  char *src = repeat("elif b:\n pass\n", 20000, "if a:\n pass\n", "");
  parsed *p = parse(src);
  cr_expect_eq(p->status, TIRX_ERR_INPUT);
  cr_expect_str_eq(tx_diag_at(p->diags, 0)->message, DEPTH_MSG);
  release(p);
  free(src);
}

Test(limits, megabyte_line) {
  char *src = repeat("a1, ", 250000, "x = [", "0]\n");
  parsed *p = parse(src);
  ok(p);
  cr_expect_eq(stmt(p, 0)->u.assign.value->u.seq.elts.len, 250001);
  release(p);
  free(src);
}

Test(limits, hundred_thousand_lines) {
  char *src = repeat("x = a[i, j] + f(1, k=2)  # c\n", 100000, "", "");
  parsed *p = parse(src);
  ok(p);
  cr_expect_eq(p->stmts.len, 100000);
  span_is(stmt(p, 99999), 100000, 1, 100000, 24);
  release(p);
  free(src);
}

Test(limits, literals) {
  char *src = repeat("9", 5000, "x = ", "\n");
  fails_with(src, 1, 5, "numeric literal too long (5000 characters, limit 4096)");
  free(src);
  src = repeat("9", 4000, "x = ", "\n");
  parsed *p = parse(src);
  ok(p);
  cr_expect_eq(stmt(p, 0)->u.assign.value->u.int_lit.overflow, 1);
  cr_expect_eq(strlen(stmt(p, 0)->u.assign.value->u.int_lit.text), 4000);
  release(p);
  free(src);
  src = repeat("n", 2000, "", " = 1\n");
  fails_with(src, 1, 1, "identifier too long (2000 characters, limit 1024)");
  free(src);
  src = repeat("a", TX_MAX_STRING_BYTES + 1, "x = '", "'\n");
  fails_with(src, 1, 5, "string literal too long (1048577 bytes, limit 1048576)");
  free(src);
  src = repeat("'aaaaaaaaaaaaaaaaaaa' ", 60000, "x = ", "\n");
  fails_with(src, 1, 5, "string literal too long (1140000 bytes, limit 1048576)");
  free(src);
}

Test(limits, input_too_large) {
  size_t len = (size_t)TX_MAX_INPUT_BYTES + 1;
  char *src = calloc(1, len); /* never read: the size is checked first */
  cr_assert_not_null(src);
  parsed *p = parse_n(src, len);
  cr_expect_eq(p->status, TIRX_ERR_INPUT);
  diag_is(p, 0, 1, 1, "source too large (67108865 bytes, limit 64 MiB)");
  release(p);
  free(src);
}

Test(limits, binary_garbage_never_crashes) {
  unsigned seed = 12345;
  char *buf = malloc(1 << 16);
  cr_assert_not_null(buf);
  for (int round = 0; round < 50; round++) {
    size_t len = (size_t)(round * 1300 + 1);
    for (size_t i = 0; i < len; i++) {
      seed = seed * 1103515245u + 12345u;
      unsigned char c = (unsigned char)(seed >> 16);
      /* Half the rounds use mostly-Python bytes to get deeper into the grammar. */
      static const char alphabet[] = "()[]{}:,.=+-*/ \n\tabcif0123'\"\\#@lambda";
      if (round % 2) c = (unsigned char)alphabet[c % (sizeof alphabet - 1)];
      buf[i] = (char)(c ? c : 'x');
    }
    parsed *p = parse_n(buf, len);
    cr_expect(p->status == TIRX_OK || p->status == TIRX_ERR_INPUT, "round %d: %d", round,
              p->status);
    if (p->status == TIRX_ERR_INPUT) cr_expect_gt(tx_diag_errors(p->diags), 0);
    release(p);
  }
  free(buf);
}

Test(limits, unbalanced_quotes_and_backslashes) {
  char *src = repeat("'", 100001, "", "\n");
  parsed *p = parse(src);
  cr_expect_eq(p->status, TIRX_ERR_INPUT);
  release(p);
  free(src);
  src = repeat("\\", 100000, "", "");
  p = parse(src);
  cr_expect_eq(p->status, TIRX_ERR_INPUT);
  release(p);
  free(src);
}

Test(api, kind_names_and_bad_arguments) {
  cr_expect_str_eq(tx_ast_kind_name(AST_NAME), "Name");
  cr_expect_str_eq(tx_ast_kind_name(AST_FUNCDEF), "FunctionDef");
  cr_expect_str_eq(tx_ast_kind_name(AST_GLOBAL), "Global");
  tx_ast_list out;
  cr_expect_eq(tx_parse_python(NULL, "f", "x", 1, &out), TIRX_ERR_USAGE);
}
