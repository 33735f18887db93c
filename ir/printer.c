/*
 * printer.c - canonical TVMScript text of TIRx IR, in Apache TVM's printer
 * conventions (see docs/ir.md): header comments, 4-space indentation, typed
 * literals, minimal parentheses by Python precedence, T.grid and multi-item
 * `with` sugar.
 *
 * Dispatch is generated from expr_kinds.def / stmt_kinds.def. Output depends
 * only on the IR (never on pointer values); names are printed as given.
 */
#include "ir/printer.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct printer {
  tx_strbuf *out;
  int indent;    /* spaces before each statement line */
  int used_axis; /* a layout printed `@ Axis.x`: the header needs the import */
} printer;

/* Python operator precedence, lowest first. Calls, names and literals are
 * PREC_PRIMARY; a negative int literal is a unary minus. */
enum {
  PREC_LOWEST,
  PREC_OR,
  PREC_AND,
  PREC_NOT,
  PREC_CMP,
  PREC_ADD,
  PREC_MUL, /* also `@` in layout strides */
  PREC_UNARY,
  PREC_PRIMARY,
};

#define X(kind, name, fn) static void fn(printer *p, const tx_expr *e);
#include "ir/expr_kinds.def"
#undef X
#define X(kind, name, fn) static void fn(printer *p, const tx_stmt *s);
#include "ir/stmt_kinds.def"
#undef X

/* Several kinds share print_binary: its repeated prototypes are harmless. */
static void (*const expr_printers[])(printer *, const tx_expr *) = {
#define X(kind, name, fn) [kind] = fn,
#include "ir/expr_kinds.def"
#undef X
};

static void (*const stmt_printers[])(printer *, const tx_stmt *) = {
#define X(kind, name, fn) [kind] = fn,
#include "ir/stmt_kinds.def"
#undef X
};

/* ---- small output helpers ------------------------------------------------ */

static void puts_(printer *p, const char *s) {
  tx_sb_puts(p->out, s);
}

static void put_dtype(printer *p, tx_dtype t) {
  tx_dtype_print(t, p->out);
}

static void start_line(printer *p) {
  for (int i = 0; i < p->indent; i++)
    tx_sb_putc(p->out, ' ');
}

static void put_quoted(printer *p, const char *s, size_t n) {
  tx_sb_put_quoted(p->out, s, n, TX_QUOTE_PYTHON, 0);
}

static void put_qstr(printer *p, const char *s) {
  put_quoted(p, s, strlen(s));
}

/* ---- precedence ----------------------------------------------------------- */

static int is_int32(tx_dtype t) {
  return tx_dtype_eq(t, TX_INT32);
}

static int binary_prec(tx_expr_kind k, tx_dtype t) {
  switch (k) {
  case EXPR_ADD:
  case EXPR_SUB:
    return PREC_ADD;
  case EXPR_MUL:
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
    return PREC_MUL;
  case EXPR_DIV:
    return tx_dtype_is_float(t) ? PREC_MUL : PREC_PRIMARY;
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE:
    return PREC_CMP;
  case EXPR_AND:
    return PREC_AND;
  case EXPR_OR:
    return PREC_OR;
  case EXPR_NOT:
    return PREC_NOT;
  case EXPR_MOD:
  case EXPR_MIN:
  case EXPR_MAX:
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STRING:
  case EXPR_VAR:
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
  case EXPR_NONE:
  case TX_EXPR_KIND_COUNT:
    return PREC_PRIMARY;
  }
  return PREC_PRIMARY;
}

static int expr_prec(const tx_expr *e) {
  if (e->kind == EXPR_INT && is_int32(e->dtype) && e->u.ival < 0) return PREC_UNARY;
  return binary_prec((tx_expr_kind)e->kind, e->dtype);
}

static void print_expr(printer *p, const tx_expr *e) {
  if (!e || e->kind >= TX_EXPR_KIND_COUNT) {
    puts_(p, "None"); /* malformed IR: print something parseable */
    return;
  }
  expr_printers[e->kind](p, e);
}

/* Print `e` as an operand of an operator of precedence `prec`; an operand of
 * the same precedence is wrapped when `paren_same` (right operands of
 * left-associative operators, and both sides of a comparison because Python
 * chains them). */
static void print_child(printer *p, const tx_expr *e, int prec, int paren_same) {
  int mine = e ? expr_prec(e) : PREC_PRIMARY;
  int wrap = mine < prec || (paren_same && mine == prec);
  if (wrap) tx_sb_putc(p->out, '(');
  print_expr(p, e);
  if (wrap) tx_sb_putc(p->out, ')');
}

/* ---- argument lists --------------------------------------------------------- */

/* Positional count of an operand list; tolerates kw left zeroed when there
 * are no keywords. */
static uint32_t npos_of(const tx_kwargs *kw, uint32_t n) {
  return kw->names ? (kw->npos < n ? kw->npos : n) : n;
}

/* `a, b, k=v` for ops[from..n); `first` says whether nothing precedes. */
static void print_args(printer *p, const tx_expr *const *ops, uint32_t from, uint32_t n,
                       const tx_kwargs *kw, int first) {
  uint32_t npos = npos_of(kw, n);
  for (uint32_t i = from; i < n; i++) {
    if (!first) puts_(p, ", ");
    first = 0;
    if (i >= npos) tx_sb_printf(p->out, "%s=", kw->names[i - npos]);
    print_expr(p, ops[i]);
  }
}

static void print_list(printer *p, const tx_expr *const *ops, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) puts_(p, ", ");
    print_expr(p, ops[i]);
  }
}

/* A Python tuple: `()`, `(a,)`, `(a, b)`. */
static void print_tuple_of(printer *p, const tx_expr *const *ops, uint32_t n) {
  tx_sb_putc(p->out, '(');
  print_list(p, ops, n);
  if (n == 1) tx_sb_putc(p->out, ',');
  tx_sb_putc(p->out, ')');
}

/* `{"k": v, ...}` from keyword names and values. */
static void print_dict(printer *p, const char *const *keys, const tx_expr *const *vals,
                       uint32_t n) {
  tx_sb_putc(p->out, '{');
  for (uint32_t i = 0; i < n; i++) {
    if (i) puts_(p, ", ");
    put_qstr(p, keys[i]);
    puts_(p, ": ");
    print_expr(p, vals[i]);
  }
  tx_sb_putc(p->out, '}');
}

/* ---- literals ---------------------------------------------------------------- */

static void print_int(printer *p, const tx_expr *e) {
  tx_dtype t = e->dtype;
  if (is_int32(t)) {
    tx_sb_printf(p->out, "%" PRId64, e->u.ival);
  } else if (t.code == DT_BOOL && t.lanes == 1 && e->python_bool) {
    puts_(p, e->u.ival ? "True" : "False");
  } else if (t.code == DT_BOOL && t.lanes == 1) {
    puts_(p, e->u.ival ? "T.bool(True)" : "T.bool(False)");
  } else {
    puts_(p, "T.");
    put_dtype(p, t);
    if (t.code == DT_UINT)
      tx_sb_printf(p->out, "(%" PRIu64 ")", (uint64_t)e->u.ival);
    else
      tx_sb_printf(p->out, "(%" PRId64 ")", e->u.ival);
  }
}

/* The shortest "%.Ne" that reads back as v (what Python's repr picks). */
static void shortest_digits(double v, char *buf, size_t n) {
  for (int prec = 0; prec < 17; prec++) {
    snprintf(buf, n, "%.*e", prec, v);
    if (strtod(buf, NULL) == v) return;
  }
  snprintf(buf, n, "%.16e", v);
}

/* Python repr of a finite double: fixed notation for exponents in [-4, 16),
 * else `1e-05` / `1.5e+16`; always a '.' or an exponent. */
static void format_float(double v, char *out, size_t n) {
  char sci[40], digits[24];
  shortest_digits(v, sci, sizeof sci);
  const char *s = sci;
  int neg = *s == '-';
  if (neg) s++;
  size_t nd = 0;
  for (; *s && *s != 'e'; s++)
    if (*s != '.' && nd < sizeof digits - 1) digits[nd++] = *s;
  digits[nd] = '\0';
  int exp10 = *s == 'e' ? atoi(s + 1) : 0;
  while (nd > 1 && digits[nd - 1] == '0')
    digits[--nd] = '\0';
  char *o = out, *end = out + n - 1;
#define PUT(c)                                                                                     \
  do {                                                                                             \
    if (o < end) *o++ = (c);                                                                       \
  } while (0)
  if (neg) PUT('-');
  if (exp10 < -4 || exp10 >= 16) {
    PUT(digits[0]);
    if (nd > 1) PUT('.');
    for (size_t i = 1; i < nd; i++)
      PUT(digits[i]);
    *o = '\0';
    snprintf(o, (size_t)(end - o) + 1, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
    return;
  }
  if (exp10 < 0) {
    PUT('0');
    PUT('.');
    for (int i = -1; i > exp10; i--)
      PUT('0');
    for (size_t i = 0; i < nd; i++)
      PUT(digits[i]);
  } else {
    size_t point = (size_t)exp10 + 1;
    for (size_t i = 0; i < point; i++)
      PUT(i < nd ? digits[i] : '0');
    PUT('.');
    if (nd <= point) PUT('0');
    for (size_t i = point; i < nd; i++)
      PUT(digits[i]);
  }
#undef PUT
  *o = '\0';
}

static void print_float(printer *p, const tx_expr *e) {
  double v = e->u.fval;
  char buf[64];
  puts_(p, "T.");
  put_dtype(p, e->dtype);
  if (isnan(v)) {
    puts_(p, "(\"nan\")");
  } else if (isinf(v)) {
    puts_(p, v < 0 ? "(\"-inf\")" : "(\"inf\")");
  } else {
    format_float(v, buf, sizeof buf);
    tx_sb_printf(p->out, "(%s)", buf);
  }
}

static void print_string(printer *p, const tx_expr *e) {
  put_quoted(p, e->u.str.data ? e->u.str.data : "", e->u.str.len);
}

static void print_none(printer *p, const tx_expr *e) {
  (void)e;
  puts_(p, "None");
}

/* A buffer's data pointer has no name of its own: it reads `A.data`. */
static void print_var(printer *p, const tx_expr *e) {
  puts_(p, e->u.var.name ? e->u.var.name : "_");
  if (e->u.var.form == VAR_BUFFER_DATA) puts_(p, ".data");
}

/* ---- operators --------------------------------------------------------------- */

static const char *infix_op(tx_expr_kind k) {
  switch (k) {
  case EXPR_ADD:
    return "+";
  case EXPR_SUB:
    return "-";
  case EXPR_MUL:
    return "*";
  case EXPR_DIV:
    return "/";
  case EXPR_FLOORDIV:
    return "//";
  case EXPR_FLOORMOD:
    return "%";
  case EXPR_EQ:
    return "==";
  case EXPR_NE:
    return "!=";
  case EXPR_LT:
    return "<";
  case EXPR_LE:
    return "<=";
  case EXPR_GT:
    return ">";
  case EXPR_GE:
    return ">=";
  case EXPR_AND:
    return "and";
  case EXPR_OR:
    return "or";
  case EXPR_MOD:
    return "T.truncmod";
  case EXPR_MIN:
    return "T.min";
  case EXPR_MAX:
    return "T.max";
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
  case EXPR_NONE:
  case TX_EXPR_KIND_COUNT:
    break;
  }
  return "?";
}

static void print_call2(printer *p, const char *fn, const tx_expr *a, const tx_expr *b) {
  tx_sb_printf(p->out, "%s(", fn);
  print_expr(p, a);
  puts_(p, ", ");
  print_expr(p, b);
  tx_sb_putc(p->out, ')');
}

static void print_binary(printer *p, const tx_expr *e) {
  tx_expr_kind k = (tx_expr_kind)e->kind;
  const tx_expr *a = e->nops > 0 ? e->ops[0] : NULL, *b = e->nops > 1 ? e->ops[1] : NULL;
  int prec = binary_prec(k, e->dtype);
  if (prec == PREC_PRIMARY) { /* T.truncdiv / T.truncmod / T.min / T.max */
    print_call2(p, k == EXPR_DIV ? "T.truncdiv" : infix_op(k), a, b);
    return;
  }
  print_child(p, a, prec, prec == PREC_CMP);
  tx_sb_printf(p->out, " %s ", infix_op(k));
  print_child(p, b, prec, 1);
}

static void print_not(printer *p, const tx_expr *e) {
  puts_(p, "not ");
  print_child(p, e->nops ? e->ops[0] : NULL, PREC_NOT, 0);
}

/* `T.Name(op0, op1, ...)`. */
static void print_fn_ops(printer *p, const char *fn, const tx_expr *e) {
  tx_sb_printf(p->out, "%s(", fn);
  print_list(p, e->ops, e->nops);
  tx_sb_putc(p->out, ')');
}

static void print_select(printer *p, const tx_expr *e) {
  print_fn_ops(p, "T.Select", e);
}

static void print_cast(printer *p, const tx_expr *e) {
  puts_(p, "T.Cast(\"");
  put_dtype(p, e->dtype);
  puts_(p, "\", ");
  print_expr(p, e->nops ? e->ops[0] : NULL);
  tx_sb_putc(p->out, ')');
}

/* `A[i, j]`; zero indices subscript with the empty tuple. */
static void print_subscript(printer *p, const tx_buffer *buf, const tx_expr *const *idx,
                            uint32_t n) {
  puts_(p, buf && buf->name ? buf->name : "_");
  tx_sb_putc(p->out, '[');
  if (n == 0)
    puts_(p, "()");
  else
    print_list(p, idx, n);
  tx_sb_putc(p->out, ']');
}

static void print_load(printer *p, const tx_expr *e) {
  print_subscript(p, e->u.buffer, e->ops, e->nops);
}

/* `T.Ramp(base, stride, lanes)` / `T.Broadcast(v, lanes)`: lanes from dtype. */
static void print_lanes_fn(printer *p, const char *fn, const tx_expr *e) {
  tx_sb_printf(p->out, "%s(", fn);
  print_list(p, e->ops, e->nops);
  tx_sb_printf(p->out, ", %d)", e->dtype.lanes);
}

static void print_ramp(printer *p, const tx_expr *e) {
  print_lanes_fn(p, "T.Ramp", e);
}

static void print_broadcast(printer *p, const tx_expr *e) {
  print_lanes_fn(p, "T.Broadcast", e);
}

static void print_let(printer *p, const tx_expr *e) {
  puts_(p, "T.Let(");
  print_expr(p, e->nops > 1 ? e->ops[1] : NULL);
  puts_(p, ", where={");
  print_expr(p, e->u.binder);
  puts_(p, ": ");
  print_expr(p, e->nops ? e->ops[0] : NULL);
  puts_(p, "})");
}

/* An op starting with '.' is a method on ops[0]: `A.vload([i], dtype=...)`. */
static void print_call(printer *p, const tx_expr *e) {
  const char *op = e->u.call.op ? e->u.call.op : "?";
  uint32_t from = 0;
  if (strcmp(op, "{}") == 0) { /* a dict argument: its entries are the keywords */
    print_dict(p, e->u.call.kw.names, e->ops, e->nops);
    return;
  }
  if (op[0] == '.' && e->nops > 0) {
    print_child(p, e->ops[0], PREC_PRIMARY, 0);
    from = 1;
  }
  puts_(p, op);
  tx_sb_putc(p->out, '(');
  print_args(p, e->ops, from, e->nops, &e->u.call.kw, 1);
  tx_sb_putc(p->out, ')');
  if (e->type_object) puts_(p, ".ty");
}

static void print_tuple(printer *p, const tx_expr *e) {
  if (!e->u.is_list) {
    print_tuple_of(p, e->ops, e->nops);
    return;
  }
  tx_sb_putc(p->out, '[');
  print_list(p, e->ops, e->nops);
  tx_sb_putc(p->out, ']');
}

static void print_buffer_ref(printer *p, const tx_expr *e) {
  puts_(p, e->u.buffer && e->u.buffer->name ? e->u.buffer->name : "_");
}

static void print_region(printer *p, const tx_expr *e) {
  print_subscript(p, e->u.buffer, e->ops, e->nops);
}

/* `b:e` (or `b:e:s`); an omitted side (EXPR_NONE) prints empty. */
static void print_slice(printer *p, const tx_expr *e) {
  for (uint32_t i = 0; i < e->nops; i++) {
    if (i) tx_sb_putc(p->out, ':');
    if (e->ops[i] && e->ops[i]->kind != EXPR_NONE) print_expr(p, e->ops[i]);
  }
  if (e->nops < 2) tx_sb_putc(p->out, ':');
}

/* ---- layouts ---------------------------------------------------------------- */

static int named_axis(const char *axis) {
  return axis && strcmp(axis, "m") != 0;
}

/* A stride term: `4` or `4 @ Axis.laneid` (`@` binds like `*`). */
static void print_stride(printer *p, const tx_expr *stride, const char *axis) {
  if (!named_axis(axis)) {
    print_expr(p, stride);
    return;
  }
  print_child(p, stride, PREC_MUL, 0);
  tx_sb_printf(p->out, " @ Axis.%s", axis);
  p->used_axis = 1;
}

/* `T.S[(8, 4):(4, 1)]` / `T.S[8:4]`; shape only when no strides are given. */
static void print_iters(printer *p, const char *head, const tx_layout_iter *it, uint32_t n,
                        int is_tuple) {
  int has_strides = 0;
  for (uint32_t i = 0; i < n; i++)
    has_strides |= it[i].stride != NULL;
  puts_(p, head);
  tx_sb_putc(p->out, '[');
  for (int part = 0; part < (has_strides ? 2 : 1); part++) {
    if (part) tx_sb_putc(p->out, ':');
    if (is_tuple) tx_sb_putc(p->out, '(');
    for (uint32_t i = 0; i < n; i++) {
      if (i) puts_(p, ", ");
      if (part)
        print_stride(p, it[i].stride, it[i].axis);
      else
        print_expr(p, it[i].extent);
    }
    if (is_tuple && n == 1) tx_sb_putc(p->out, ',');
    if (is_tuple) tx_sb_putc(p->out, ')');
  }
  tx_sb_putc(p->out, ']');
}

/* ` + 5 @ Axis.warpid` or ` + 64` per offset term. */
static void print_offsets(printer *p, const tx_layout *l) {
  for (uint32_t i = 0; i < l->noffset; i++) {
    puts_(p, " + ");
    if (named_axis(l->offset[i].axis))
      print_stride(p, l->offset[i].stride, l->offset[i].axis);
    else
      print_child(p, l->offset[i].stride, PREC_ADD, 1);
  }
}

static void print_layout(printer *p, const tx_layout *l) {
  if (!l) {
    puts_(p, "None");
    return;
  }
  switch (l->kind) {
  case LAYOUT_TILE:
    puts_(p, "T.TileLayout(");
    print_iters(p, "T.S", l->shard, l->nshard, l->shard_is_tuple);
    if (l->nreplica) {
      puts_(p, " + ");
      print_iters(p, "T.R", l->replica, l->nreplica, l->replica_is_tuple);
    }
    print_offsets(p, l);
    tx_sb_putc(p->out, ')');
    return;
  case LAYOUT_SWIZZLE:
    tx_sb_printf(p->out, "T.SwizzleLayout(%" PRId64 ", %" PRId64 ", %" PRId64 ")", l->per_element,
                 l->swizzle_len, l->atom_len);
    return;
  case LAYOUT_COMPOSE:
    tx_sb_printf(p->out, "T.ComposeLayout(%" PRId64 ", %" PRId64 ", %" PRId64 ", ", l->per_element,
                 l->swizzle_len, l->atom_len);
    print_layout(p, l->tile);
    tx_sb_putc(p->out, ')');
    return;
  }
}

static void print_layout_expr(printer *p, const tx_expr *e) {
  print_layout(p, e->u.layout);
}

/* ---- types and buffers ------------------------------------------------------ */

/* A variable's annotation: `T.int32`, `T.handle`, `T.handle("float32", "shared")`,
 * `T.TensorMap()` (TVM's printer spells a tensor-map handle that way). */
static void print_var_type(printer *p, const tx_expr *v) {
  if (v->dtype.code != DT_HANDLE) {
    puts_(p, "T.");
    put_dtype(p, v->dtype);
    return;
  }
  if (v->u.var.tensormap) {
    puts_(p, "T.TensorMap()");
    return;
  }
  puts_(p, "T.handle");
  const tx_var_info *vi = &v->u.var;
  if (vi->has_pointee) {
    puts_(p, "(\"");
    put_dtype(p, vi->pointee);
    tx_sb_putc(p->out, '"');
    if (vi->scope) {
      puts_(p, ", ");
      put_qstr(p, vi->scope);
    }
    tx_sb_putc(p->out, ')');
  } else if (vi->scope) {
    puts_(p, "(storage_scope=");
    put_qstr(p, vi->scope);
    tx_sb_putc(p->out, ')');
  }
}

static int scope_is_default(const char *scope) {
  return !scope || strcmp(scope, "global") == 0;
}

/* decl_buffer prints data= unless the pointer is the buffer's own (its data
 * variable carries the buffer's name). */
static int data_is_foreign(const tx_buffer *b) {
  const tx_expr *d = b->data;
  if (!d || d->kind != EXPR_VAR) return d != NULL;
  return d->u.var.form != VAR_BUFFER_DATA || !d->u.var.name || !b->name ||
         strcmp(d->u.var.name, b->name) != 0;
}

enum { KW_DATA = 1, KW_SCOPE = 2 };

/* Keyword arguments in TVM's order: data, strides, elem_offset, scope,
 * align, offset_factor, layout, allocated_addr. */
static void print_buffer_kwargs(printer *p, const tx_buffer *b, int which) {
  if ((which & KW_DATA) && data_is_foreign(b)) {
    puts_(p, ", data=");
    print_expr(p, b->data);
  }
  if (b->nstrides) {
    puts_(p, ", strides=");
    print_tuple_of(p, b->strides, b->nstrides);
  }
  if (b->elem_offset) {
    puts_(p, ", elem_offset=");
    print_expr(p, b->elem_offset);
  }
  if ((which & KW_SCOPE) && !scope_is_default(b->scope)) {
    puts_(p, ", scope=");
    put_qstr(p, b->scope);
  }
  if (b->align) tx_sb_printf(p->out, ", align=%" PRId64, b->align);
  if (b->offset_factor) tx_sb_printf(p->out, ", offset_factor=%" PRId64, b->offset_factor);
  if (b->layout) {
    puts_(p, ", layout=");
    print_layout(p, b->layout);
  }
  if (b->allocated_addr) {
    puts_(p, ", allocated_addr=");
    print_expr(p, b->allocated_addr);
  }
}

/* `(shape), "dtype"` (float32 elided) followed by the keywords. */
static void print_buffer_sig(printer *p, const tx_buffer *b, int which) {
  print_tuple_of(p, b->shape, b->ndim);
  if (!tx_dtype_eq(b->dtype, TX_FLOAT32)) {
    puts_(p, ", \"");
    put_dtype(p, b->dtype);
    tx_sb_putc(p->out, '"');
  }
  print_buffer_kwargs(p, b, which);
  tx_sb_putc(p->out, ')');
}

/* The right-hand side that declares `b`, chosen by how it was written. */
static void print_buffer_ctor(printer *p, const tx_buffer *b) {
  switch (b->form) {
  case BUF_PARAM:
    puts_(p, "T.Buffer(");
    print_buffer_sig(p, b, KW_SCOPE);
    return;
  case BUF_MATCH:
    puts_(p, "T.match_buffer(");
    print_expr(p, b->origin);
    puts_(p, ", ");
    print_buffer_sig(p, b, KW_SCOPE);
    return;
  case BUF_ALLOC:
    puts_(p, "T.alloc_buffer(");
    print_buffer_sig(p, b, KW_SCOPE);
    return;
  case BUF_ALLOC_SHARED:
    puts_(p, "T.alloc_shared(");
    print_buffer_sig(p, b, 0);
    return;
  case BUF_ALLOC_LOCAL:
    puts_(p, "T.alloc_local(");
    print_buffer_sig(p, b, 0);
    return;
  case BUF_DECL:
    puts_(p, "T.decl_buffer(");
    print_buffer_sig(p, b, KW_DATA | KW_SCOPE);
    return;
  case BUF_DECL_SCALAR:
    puts_(p, "T.decl_scalar(T.");
    put_dtype(p, b->dtype);
    print_buffer_kwargs(p, b, KW_DATA | KW_SCOPE);
    tx_sb_putc(p->out, ')');
    return;
  case BUF_LOCAL_SCALAR:
    puts_(p, "T.local_scalar(\"");
    put_dtype(p, b->dtype);
    puts_(p, "\")");
    return;
  case BUF_VIEW:
    print_expr(p, b->origin);
    return;
  }
}

/* ---- statements ------------------------------------------------------------- */

static void print_stmt(printer *p, const tx_stmt *s) {
  if (!s || s->kind >= TX_STMT_KIND_COUNT) return;
  stmt_printers[s->kind](p, s);
}

static int stmt_is_empty(const tx_stmt *s) {
  if (!s) return 1;
  if (s->kind != STMT_SEQ) return 0;
  for (uint32_t i = 0; i < s->nstmts; i++)
    if (!stmt_is_empty(s->stmts[i])) return 0;
  return 1;
}

/* The only statement of a body: looks through one-item sequences. */
static const tx_stmt *sole_stmt(const tx_stmt *s) {
  while (s && s->kind == STMT_SEQ && s->nstmts == 1)
    s = s->stmts[0];
  return s;
}

/* An indented block; Python needs at least one statement in it. */
static void print_block(printer *p, const tx_stmt *body) {
  p->indent += 4;
  if (stmt_is_empty(body)) {
    start_line(p);
    puts_(p, "T.evaluate(0)\n");
  } else {
    print_stmt(p, body);
  }
  p->indent -= 4;
}

static void print_block_of(printer *p, const tx_stmt *s) {
  print_block(p, s->nstmts ? s->stmts[0] : NULL);
}

/* Binding statements scope over the rest of the sequence; should one carry
 * child statements anyway, they print flat after it. */
static void print_flat_rest(printer *p, const tx_stmt *s) {
  for (uint32_t i = 0; i < s->nstmts; i++)
    print_stmt(p, s->stmts[i]);
}

static const char *var_name(const tx_stmt *s, uint32_t i) {
  const tx_expr *v = i < s->nvars ? s->vars[i] : NULL;
  return v && v->kind == EXPR_VAR && v->u.var.name ? v->u.var.name : "_";
}

static const tx_expr *expr_at(const tx_stmt *s, uint32_t i) {
  return i < s->nexprs ? s->exprs[i] : NULL;
}

static void print_store(printer *p, const tx_stmt *s) {
  start_line(p);
  uint32_t n = s->nexprs ? s->nexprs - 1 : 0;
  print_subscript(p, s->buffer, s->nexprs ? s->exprs + 1 : NULL, n);
  puts_(p, " = ");
  print_expr(p, expr_at(s, 0));
  tx_sb_putc(p->out, '\n');
}

static void print_bind(printer *p, const tx_stmt *s) {
  const tx_expr *v = s->nvars ? s->vars[0] : NULL;
  start_line(p);
  puts_(p, var_name(s, 0));
  switch ((tx_bind_style)s->flag) {
  case BIND_PLAIN:
    puts_(p, " = ");
    break;
  case BIND_LET:
    puts_(p, ": T.let = ");
    break;
  case BIND_LET_TYPED:
    puts_(p, ": T.let[");
    if (v) print_var_type(p, v);
    puts_(p, "] = ");
    break;
  case BIND_SCALAR:
    puts_(p, ": ");
    if (v) print_var_type(p, v);
    if (s->nexprs) puts_(p, " = ");
    break;
  case BIND_LOCAL_SCALAR:
    puts_(p, " = T.local_scalar(\"");
    if (v) put_dtype(p, v->dtype);
    puts_(p, "\")\n");
    print_flat_rest(p, s);
    return;
  }
  if (s->nexprs) print_expr(p, s->exprs[0]);
  tx_sb_putc(p->out, '\n');
  print_flat_rest(p, s);
}

static void print_assign(printer *p, const tx_stmt *s) {
  start_line(p);
  tx_sb_printf(p->out, "%s = ", var_name(s, 0));
  print_expr(p, expr_at(s, 0));
  tx_sb_putc(p->out, '\n');
}

/* `T.attr({"k": v})`; positional operands (the 3-argument form) first. */
static void print_attr_call(printer *p, const tx_stmt *s) {
  uint32_t npos = npos_of(&s->kw, s->nexprs);
  puts_(p, "T.attr(");
  print_list(p, s->exprs, npos);
  if (npos < s->nexprs || npos == 0) {
    if (npos) puts_(p, ", ");
    print_dict(p, s->kw.names, s->exprs + npos, s->nexprs - npos);
  }
  tx_sb_putc(p->out, ')');
}

static void print_attr(printer *p, const tx_stmt *s) {
  start_line(p);
  if (s->flag == 1) {
    puts_(p, "with ");
    print_attr_call(p, s);
    puts_(p, ":\n");
    print_block_of(p, s);
    return;
  }
  print_attr_call(p, s);
  tx_sb_putc(p->out, '\n');
  print_flat_rest(p, s);
}

static void print_assert(printer *p, const tx_stmt *s) {
  start_line(p);
  puts_(p, "assert ");
  print_expr(p, expr_at(s, 0));
  if (s->nexprs > 1) {
    puts_(p, ", ");
    print_expr(p, s->exprs[1]);
  }
  tx_sb_putc(p->out, '\n');
}

static void print_seq(printer *p, const tx_stmt *s) {
  for (uint32_t i = 0; i < s->nstmts; i++)
    print_stmt(p, s->stmts[i]);
}

/* A call is a statement by itself; anything else needs T.evaluate. */
static void print_eval(printer *p, const tx_stmt *s) {
  const tx_expr *v = expr_at(s, 0);
  start_line(p);
  if (v && v->kind == EXPR_CALL) {
    print_expr(p, v);
  } else {
    puts_(p, "T.evaluate(");
    print_expr(p, v);
    tx_sb_putc(p->out, ')');
  }
  tx_sb_putc(p->out, '\n');
}

/* TVM never prints elif: an else holding an if nests one level deeper. */
static void print_if(printer *p, const tx_stmt *s) {
  start_line(p);
  puts_(p, "if ");
  print_expr(p, expr_at(s, 0));
  puts_(p, ":\n");
  print_block(p, s->nstmts ? s->stmts[0] : NULL);
  if (s->nstmts > 1 && s->stmts[1]) {
    start_line(p);
    puts_(p, "else:\n");
    print_block(p, s->stmts[1]);
  }
}

static int is_zero_int(const tx_expr *e) {
  return e && e->kind == EXPR_INT && e->u.ival == 0 && e->dtype.code == DT_INT;
}

static int uses_var(const tx_expr *e, const tx_expr *v) {
  if (!e) return 0;
  if (e == v) return 1;
  for (uint32_t i = 0; i < e->nops; i++)
    if (uses_var(e->ops[i], v)) return 1;
  return 0;
}

/* `for i in range(n)`-shaped: serial, from literal 0, no step or keywords. */
static int is_plain_range(const tx_stmt *s) {
  return s && s->kind == STMT_FOR && s->flag == FOR_SERIAL && s->nvars >= 1 && s->nexprs == 2 &&
         npos_of(&s->kw, s->nexprs) == 2 && is_zero_int(s->exprs[0]);
}

/* Length of the T.grid chain starting at s: each body is one plain loop
 * whose extent does not depend on an enclosing loop of the chain. */
static uint32_t grid_depth(const tx_stmt *s) {
  if (!is_plain_range(s)) return 0;
  uint32_t n = 1;
  const tx_stmt *cur = s;
  for (;;) {
    const tx_stmt *inner = sole_stmt(cur->nstmts ? cur->stmts[0] : NULL);
    if (!is_plain_range(inner)) return n;
    for (const tx_stmt *o = s; o != inner; o = sole_stmt(o->stmts[0]))
      if (uses_var(inner->exprs[1], o->vars[0])) return n;
    cur = inner;
    n++;
  }
}

/* The i-th loop of a grid chain (the chain was checked by grid_depth). */
static const tx_stmt *grid_loop(const tx_stmt *s, uint32_t i) {
  while (i--)
    s = sole_stmt(s->stmts[0]);
  return s;
}

static void print_grid(printer *p, const tx_stmt *s, uint32_t depth) {
  puts_(p, "for ");
  for (uint32_t i = 0; i < depth; i++)
    tx_sb_printf(p->out, "%s%s", i ? ", " : "", var_name(grid_loop(s, i), 0));
  puts_(p, " in T.grid(");
  for (uint32_t i = 0; i < depth; i++) {
    if (i) puts_(p, ", ");
    print_expr(p, grid_loop(s, i)->exprs[1]);
  }
  puts_(p, "):\n");
  print_block_of(p, grid_loop(s, depth - 1));
}

static const char *for_fn(tx_for_kind k) {
  switch (k) {
  case FOR_SERIAL:
    return "T.serial";
  case FOR_UNROLL:
    return "T.unroll";
  case FOR_VECTORIZED:
    return "T.vectorized";
  case FOR_PARALLEL:
    return "T.parallel";
  case FOR_THREAD_BINDING:
    return "T.thread_binding";
  }
  return "T.serial";
}

/* The iterator call: begin is dropped when it is literal 0 and no step
 * follows; the thread tag precedes the annotations. */
static void print_for_iter(printer *p, const tx_stmt *s) {
  uint32_t npos = npos_of(&s->kw, s->nexprs);
  int bare = s->flag == FOR_SERIAL && npos == s->nexprs;
  puts_(p, bare ? "range(" : for_fn((tx_for_kind)s->flag));
  if (!bare) tx_sb_putc(p->out, '(');
  uint32_t from = (npos == 2 && is_zero_int(s->exprs[0])) ? 1 : 0;
  print_list(p, s->exprs + from, npos - from);
  if (s->flag == FOR_THREAD_BINDING) {
    puts_(p, ", thread=");
    put_qstr(p, s->name ? s->name : "");
  }
  int first = npos == from && s->flag != FOR_THREAD_BINDING;
  print_args(p, s->exprs, npos, s->nexprs, &s->kw, first);
  tx_sb_putc(p->out, ')');
}

static void print_for(printer *p, const tx_stmt *s) {
  start_line(p);
  uint32_t depth = grid_depth(s);
  if (depth > 1) {
    print_grid(p, s, depth);
    return;
  }
  tx_sb_printf(p->out, "for %s in ", var_name(s, 0));
  if (s->nexprs >= 2)
    print_for_iter(p, s);
  else
    puts_(p, "range(0)"); /* malformed; keep it parseable */
  puts_(p, ":\n");
  print_block_of(p, s);
}

static void print_while(printer *p, const tx_stmt *s) {
  start_line(p);
  puts_(p, "while ");
  print_expr(p, expr_at(s, 0));
  puts_(p, ":\n");
  print_block_of(p, s);
}

static void print_break(printer *p, const tx_stmt *s) {
  (void)s;
  start_line(p);
  puts_(p, "break\n");
}

static void print_continue(printer *p, const tx_stmt *s) {
  (void)s;
  start_line(p);
  puts_(p, "continue\n");
}

static void print_return(printer *p, const tx_stmt *s) {
  start_line(p);
  puts_(p, "return");
  if (s->nexprs) {
    tx_sb_putc(p->out, ' ');
    print_expr(p, s->exprs[0]);
  }
  tx_sb_putc(p->out, '\n');
}

static void print_buffer_stmt(printer *p, const tx_stmt *s) {
  start_line(p);
  if (s->buffer) {
    tx_sb_printf(p->out, "%s = ", s->buffer->name ? s->buffer->name : "_");
    print_buffer_ctor(p, s->buffer);
  }
  tx_sb_putc(p->out, '\n');
  print_flat_rest(p, s);
}

static void print_alloc(printer *p, const tx_stmt *s) {
  print_buffer_stmt(p, s);
}

static void print_decl(printer *p, const tx_stmt *s) {
  print_buffer_stmt(p, s);
}

/* `fn(args, k=v)` from a statement's operands. */
static void print_stmt_call(printer *p, const char *fn, const tx_stmt *s) {
  puts_(p, fn);
  tx_sb_putc(p->out, '(');
  print_args(p, s->exprs, 0, s->nexprs, &s->kw, 1);
  tx_sb_putc(p->out, ')');
}

static void print_scope_id(printer *p, const tx_stmt *s) {
  start_line(p);
  for (uint32_t i = 0; i < s->nvars; i++)
    tx_sb_printf(p->out, "%s%s", var_name(s, i), i + 1 < s->nvars ? ", " : " = ");
  tx_sb_printf(p->out, "T.%s", s->name ? s->name : "?");
  tx_sb_putc(p->out, '(');
  print_args(p, s->exprs, 0, s->nexprs, &s->kw, 1);
  puts_(p, ")\n");
  print_flat_rest(p, s);
}

static void print_device_entry(printer *p, const tx_stmt *s) {
  start_line(p);
  if (s->flag == 1) {
    puts_(p, "with ");
    print_stmt_call(p, "T.device_entry", s);
    puts_(p, ":\n");
    print_block_of(p, s);
    return;
  }
  print_stmt_call(p, "T.device_entry", s);
  tx_sb_putc(p->out, '\n');
  print_flat_rest(p, s);
}

/* One `with` item: `call`, `call as x` or `call as (a, b)`. */
static void print_with_item(printer *p, const tx_stmt *s) {
  print_expr(p, expr_at(s, 0));
  if (s->nvars == 0) return;
  puts_(p, " as ");
  if (s->nvars > 1) tx_sb_putc(p->out, '(');
  for (uint32_t i = 0; i < s->nvars; i++)
    tx_sb_printf(p->out, "%s%s", i ? ", " : "", var_name(s, i));
  if (s->nvars > 1) tx_sb_putc(p->out, ')');
}

/* Directly nested withs share one line: `with a, b:`. */
static void print_with(printer *p, const tx_stmt *s) {
  start_line(p);
  puts_(p, "with ");
  print_with_item(p, s);
  const tx_stmt *inner;
  while ((inner = sole_stmt(s->nstmts ? s->stmts[0] : NULL)) && inner->kind == STMT_WITH) {
    puts_(p, ", ");
    print_with_item(p, inner);
    s = inner;
  }
  puts_(p, ":\n");
  print_block_of(p, s);
}

static void print_tile_op(printer *p, const tx_stmt *s) {
  start_line(p);
  print_stmt_call(p, s->name ? s->name : "?", s);
  tx_sb_putc(p->out, '\n');
}

/* ---- functions and modules ------------------------------------------------- */

static void print_param(printer *p, const tx_func *f, uint32_t i) {
  const tx_expr *v = f->params[i];
  const tx_buffer *b = f->param_bufs ? f->param_bufs[i] : NULL;
  if (b && b->form == BUF_PARAM) {
    tx_sb_printf(p->out, "%s: ", b->name ? b->name : "_");
    print_buffer_ctor(p, b);
    return;
  }
  tx_sb_printf(p->out, "%s: ", v && v->u.var.name ? v->u.var.name : "_");
  if (v) print_var_type(p, v);
}

static void print_match_buffers(printer *p, const tx_func *f) {
  for (uint32_t i = 0; i < f->nparams && f->param_bufs; i++) {
    const tx_buffer *b = f->param_bufs[i];
    if (!b || b->form != BUF_MATCH) continue;
    start_line(p);
    tx_sb_printf(p->out, "%s = T.match_buffer(", b->name ? b->name : "_");
    print_expr(p, b->origin ? b->origin : f->params[i]);
    puts_(p, ", ");
    print_buffer_sig(p, b, KW_SCOPE);
    tx_sb_putc(p->out, '\n');
  }
}

static void print_func_prologue(printer *p, const tx_func *f) {
  if (f->nattrs) {
    start_line(p);
    puts_(p, "T.func_attr(");
    print_dict(p, f->attr_keys, f->attr_values, f->nattrs);
    puts_(p, ")\n");
  }
  for (uint32_t i = 0; i < f->nsymbolic; i++) {
    const tx_expr *v = f->symbolic[i];
    if (v->u.var.typevar) continue; /* declared at module level */
    start_line(p);
    tx_sb_printf(p->out, "%s = T.", v->u.var.name ? v->u.var.name : "_");
    put_dtype(p, v->dtype);
    puts_(p, "()\n");
  }
  print_match_buffers(p, f);
}

static void print_func_def(printer *p, const tx_func *f) {
  start_line(p);
  puts_(p, f->is_private ? "@T.prim_func(private=True)\n" : "@T.prim_func\n");
  start_line(p);
  tx_sb_printf(p->out, "def %s(", f->name ? f->name : "main");
  for (uint32_t i = 0; i < f->nparams; i++) {
    if (i) puts_(p, ", ");
    print_param(p, f, i);
  }
  puts_(p, "):\n");
  p->indent += 4;
  print_func_prologue(p, f);
  p->indent -= 4;
  print_block(p, f->body);
}

/* The class body of an @I.ir_module. */
static void print_module_class(printer *p, const tx_module *m) {
  tx_sb_printf(p->out, "@I.ir_module\nclass %s:\n", m->name);
  p->indent += 4;
  if (m->nattrs) {
    start_line(p);
    puts_(p, "I.module_attrs(");
    print_dict(p, m->attr_keys, m->attr_values, m->nattrs);
    puts_(p, ")\n"); /* TVM puts no blank line before the first function */
  }
  for (uint32_t i = 0; i < m->nfuncs; i++) {
    if (i) tx_sb_putc(p->out, '\n');
    print_func_def(p, m->funcs[i]);
  }
  if (!m->nfuncs && !m->nattrs) {
    start_line(p);
    puts_(p, "pass\n");
  }
  p->indent -= 4;
}

/* `n = TypeVar("n")` for each TypeVar symbolic variable of the module, first use first;
 * returns how many. */
static int print_typevars(tx_strbuf *out, const tx_module *m) {
  int n = 0;
  for (uint32_t i = 0; i < m->nfuncs; i++)
    for (uint32_t j = 0; j < m->funcs[i]->nsymbolic; j++) {
      const tx_expr *v = m->funcs[i]->symbolic[j];
      int seen = !v->u.var.typevar;
      for (uint32_t k = 0; k <= i && !seen; k++)
        for (uint32_t l = 0; l < m->funcs[k]->nsymbolic && !seen; l++)
          seen = (k < i || l < j) && m->funcs[k]->symbolic[l] == v;
      if (seen) continue;
      tx_sb_printf(out, "%s = TypeVar(\"%s\")\n", v->u.var.name, v->u.var.name);
      n++;
    }
  return n;
}

/* Imports depend on what the body used, so the body is printed first. */
static void emit_with_header(tx_strbuf *out, tx_strbuf *body, int with_ir, int used_axis) {
  if (with_ir) tx_sb_puts(out, "# from tvm.script import ir as I\n");
  tx_sb_puts(out, "# from tvm.script import tirx as T\n");
  if (used_axis) tx_sb_puts(out, "# from tvm.tirx.layout import Axis\n");
  tx_sb_putc(out, '\n');
  if (body->failed)
    out->failed = 1;
  else
    tx_sb_putn(out, body->data ? body->data : "", body->len);
  tx_sb_free(body);
}

void tx_print_module(const tx_module *mod, tx_strbuf *out) {
  tx_strbuf body = {.alloc = out->alloc};
  printer p = {&body, 0, 0};
  if (mod->name) {
    print_module_class(&p, mod);
  } else {
    /* TVM prints the TypeVars right above the first function, without a blank line. */
    if (print_typevars(&body, mod)) tx_sb_puts(out, "# from typing import TypeVar\n");
    for (uint32_t i = 0; i < mod->nfuncs; i++) {
      if (i) tx_sb_putc(&body, '\n');
      print_func_def(&p, mod->funcs[i]);
    }
  }
  emit_with_header(out, &body, mod->name != NULL, p.used_axis);
}

void tx_print_func(const tx_func *func, tx_strbuf *out) {
  tx_strbuf body = {.alloc = out->alloc};
  printer p = {&body, 0, 0};
  print_func_def(&p, func);
  emit_with_header(out, &body, 0, p.used_axis);
}

void tx_print_expr(const tx_expr *e, tx_strbuf *out) {
  printer p = {out, 0, 0};
  print_expr(&p, e);
}

/* `indent` is a number of spaces. */
void tx_print_stmt(const tx_stmt *s, int indent, tx_strbuf *out) {
  printer p = {out, indent, 0};
  print_stmt(&p, s);
}

void tx_print_layout(const tx_layout *l, tx_strbuf *out) {
  printer p = {out, 0, 0};
  print_layout(&p, l);
}
