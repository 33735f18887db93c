/*
 * printer.c - canonical TVMScript text of TIRx IR, byte for byte as Apache
 * TVM 0.27's printer writes it (rules: docs/text-format.md, "Canonical
 * printing"; what is left: docs/conformance.md, "Printing"): header
 * comments, 4-space indentation, typed literals, operator sugar only where
 * TVM's operator would rebuild the node, minimal parentheses by Python
 * precedence, T.grid and multi-item `with` sugar, free variables declared
 * where TVM declares them. Each TVM rule is a small function named after it.
 *
 * Dispatch is generated from expr_kinds.def / stmt_kinds.def. Output depends
 * only on the IR (never on pointer values); names are printed as given. The
 * only allocations are the per-function tables of declared free variables
 * and of data-variable owners (from the output buffer's allocator; on
 * failure the output is marked failed).
 */
#include "ir/printer.h"

#include "support/mem.h"
#include "ir/ptrmap.h"
#include "ir/visit.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct printer {
  tx_strbuf *out;
  int indent; /* spaces before each statement line */
  int s_tir;  /* inside an s_tir function: no layout is the default */
  /* The function's free variables (`x = T.int32()`: its symbolic extents,
   * then its T.Let binders), declared where TVM declares them (see "free
   * variables" below); declared[i] once printed. */
  const tx_func *func;
  const tx_expr **fv;
  uint32_t nfv, fv_cap;
  uint8_t *declared;
  /* Set just before printing an operand the frontend reads a bare one-element
   * buffer name in as its element [0] (arithmetic and comparison operands, a
   * store's value); print_expr clears it. */
  int scalar_operand;
  /* The function's buffers by their own data variable (a buffer whose data
   * variable carries its name: not a view or a decl_buffer over another's
   * data), to print `A.source.data` for a one-element buffer (see "TVM's
   * .source forms" below). */
  tx_ptrmap owners;
  uint8_t dialect; /* tx_dialect: the spellings of ir/dialect.def (0: TVM 0.27's) */
  /* The tirx dialect: the symbolic variables already declared at module
   * level as `n = T.dynamic("n", dtype="int32")` (each once per module), and
   * whether the function being printed is in an @T.ir_module class. */
  const tx_expr **dynamic;
  uint32_t ndynamic, dynamic_cap;
  int in_class;
  int uses_ir;   /* an `I.` name was printed (I.Op): the header imports ir as I */
  int uses_meta; /* a metadata["..."][i] reference was printed: TVM's trailer follows */
} printer;

#define SPELL(p) tx_dialect_spell((tx_dialect)(p)->dialect)

/* Python operator precedence, lowest first. Calls, names and literals are
 * PREC_PRIMARY; a negative int literal is a unary minus. */
enum {
  PREC_LOWEST,
  PREC_OR,
  PREC_AND,
  PREC_NOT,
  PREC_CMP,
  PREC_BITOR,
  PREC_BITXOR,
  PREC_BITAND,
  PREC_SHIFT,
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
  case EXPR_LAMBDA:
  case EXPR_NONE:
  case TX_EXPR_KIND_COUNT:
    return PREC_PRIMARY;
  }
  return PREC_PRIMARY;
}

/* ---- TVM's operator sugar ---------------------------------------------------------- */

/* TVM prints the bitwise builtins as Python operators: `a >> 2`, `a & 1`,
 * `~a` (its parser folds what it can at parse time, so nothing is lost). */
typedef struct bit_op {
  const char *call, *token;
  int prec, arity;
} bit_op;

static const bit_op *bit_op_of(const tx_expr *e) {
  static const bit_op ops[] = {
      {"T.shift_right", ">>", PREC_SHIFT, 2}, {"T.shift_left", "<<", PREC_SHIFT, 2},
      {"T.bitwise_and", "&", PREC_BITAND, 2}, {"T.bitwise_or", "|", PREC_BITOR, 2},
      {"T.bitwise_xor", "^", PREC_BITXOR, 2}, {"T.bitwise_not", "~", PREC_UNARY, 1},
  };
  if (e->kind != EXPR_CALL || !e->u.call.op || e->u.call.kw.names) return NULL;
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (strcmp(e->u.call.op, ops[i].call) == 0 && e->nops == (uint32_t)ops[i].arity) return &ops[i];
  return NULL;
}

static int is_int_lit(const tx_expr *e, int64_t v) {
  return e->kind == EXPR_INT && e->u.ival == v;
}

static int is_float_lit(const tx_expr *e, double v) {
  return e->kind == EXPR_FLOAT && e->u.fval == v;
}

/* A literal that is 0 (v == 0) or 1 (v == 1), int or float. */
static int is_lit(const tx_expr *e, int v) {
  return is_int_lit(e, v) || is_float_lit(e, v);
}

/* Both literals of one kind; float pairs only fold at 32 or 64 bits. */
static int both_lits(const tx_expr *a, const tx_expr *b, int any_float_width) {
  if (a->kind == EXPR_INT && b->kind == EXPR_INT) return 1;
  if (a->kind != EXPR_FLOAT || b->kind != EXPR_FLOAT) return 0;
  return any_float_width || a->dtype.bits == 32 || a->dtype.bits == 64;
}

static int is_index_type(tx_dtype t) {
  return t.code == DT_INT && (t.bits == 32 || t.bits == 64) && t.lanes == 1;
}

/* Would TVM's constant folder (arith::TryConstFold, as tvm::add & co. run it)
 * rewrite `a op b`? TVM prints an operator only when rebuilding it with the
 * operator gives the same node back, else the node's constructor: `T.Add(32,
 * 64)`, `T.Mul(x, 1)`; operands of different dtypes would be cast too. */
static int tvm_would_fold(tx_expr_kind k, const tx_expr *a, const tx_expr *b) {
  if (!tx_dtype_eq(a->dtype, b->dtype)) return 1;
  switch (k) {
  case EXPR_ADD:
    return both_lits(a, b, 0) || is_lit(a, 0) || is_lit(b, 0);
  case EXPR_SUB:
    return both_lits(a, b, 0) || is_lit(b, 0);
  case EXPR_MUL:
    return both_lits(a, b, 0) || is_lit(a, 0) || is_lit(a, 1) || is_lit(b, 0) || is_lit(b, 1);
  case EXPR_DIV:
    return both_lits(a, b, 0) || is_lit(a, 0) || is_lit(b, 1);
  case EXPR_FLOORDIV:
    return (both_lits(a, b, 1) && !is_float_lit(b, 0)) || is_lit(a, 0) || is_lit(b, 1);
  case EXPR_FLOORMOD:
    if (a->dtype.code == DT_UINT && a->kind == EXPR_INT && b->kind == EXPR_INT) return 1;
    return is_index_type(a->dtype) &&
           ((a->kind == EXPR_INT && b->kind == EXPR_INT) || is_int_lit(a, 0) || is_int_lit(b, 1));
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE:
    return both_lits(a, b, 1);
  case EXPR_AND:
  case EXPR_OR:
    return a->kind == EXPR_INT || b->kind == EXPR_INT;
  case EXPR_MOD:
  case EXPR_MIN:
  case EXPR_MAX:
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
  return 0;
}

/* Is this binary node printed as its constructor call rather than infix? */
static int binary_as_call(const tx_expr *e) {
  tx_expr_kind k = (tx_expr_kind)e->kind;
  if (binary_prec(k, e->dtype) == PREC_PRIMARY) return 1;
  if (e->nops < 2 || !e->ops[0] || !e->ops[1]) return 0;
  return tvm_would_fold(k, e->ops[0], e->ops[1]);
}

static int expr_prec(const tx_expr *e) {
  if (e->kind == EXPR_INT && is_int32(e->dtype) && e->u.ival < 0) return PREC_UNARY;
  if (e->kind == EXPR_CALL) {
    const bit_op *b = bit_op_of(e);
    return b ? b->prec : PREC_PRIMARY;
  }
  if (tx_expr_is_binary((tx_expr_kind)e->kind) && binary_as_call(e)) return PREC_PRIMARY;
  return binary_prec((tx_expr_kind)e->kind, e->dtype);
}

/* TVM's BufferVar::IsScalar: shape (1,), no strides, default alignment,
 * offset factor and layout, no allocated address. Its printer writes such a
 * buffer's element as the bare name (`out = A`). An s_tir function's
 * buffers have no layout unless given one, so none is scalar there. */
static int is_scalar_buffer(const printer *p, const tx_buffer *buf) {
  if (p->s_tir) return 0; /* an s_tir buffer has no layout by default */
  const tx_expr *d0 = buf && buf->ndim == 1 ? buf->shape[0] : NULL;
  return d0 && d0->kind == EXPR_INT && d0->u.ival == 1 && buf->nstrides == 0 &&
         (buf->align == 0 || buf->align == 64) &&
         (buf->offset_factor == 0 || buf->offset_factor == 1) && !buf->allocated_addr &&
         !buf->annotations && !buf->layout && !buf->layout_none && buf->name;
}

static int is_zero_index(const tx_expr *e) {
  return e && e->kind == EXPR_INT && e->u.ival == 0 && e->dtype.lanes == 1;
}

/* ---- TVM's .source forms ------------------------------------------------------
 *
 * TVM 0.27 prints a one-element buffer's element as the bare name, so the
 * buffer itself is `A.source` wherever its printer writes the buffer object:
 * a buffer argument `A.source`, a region `A.source[0]`, the data pointer
 * `A.source.data`. That holds for TVM's BufferVar::IsScalar() (the
 * alloc_or_decl form: elem_offset 0 too), which a T.decl_scalar over a zero
 * offset also meets; a view's receiver (`A.view(...)`) is the bare name.
 * Regions and data pointers follow that rule here. The other forms are
 * spellings the IR keeps (tx_expr.source_form), since the frontend reads a
 * bare `A` as a call argument as the buffer (TVM: the element) and `A[0]`
 * there as a load: `A.source` (EXPR_BUFFER), `A.source[0]` (EXPR_LOAD).
 * Scalar sugar `x: T.float32` has no buffer in the IR: its forms
 * `x.source[0]` (tx_kwargs.source_ops) and `x.source.data` (source_form on
 * T.address_of(x)) are spellings too. */
static int is_source_buffer(const printer *p, const tx_buffer *buf) {
  if (!buf || !buf->name || (buf->elem_offset && !is_zero_index(buf->elem_offset))) return 0;
  return is_scalar_buffer(p, buf) || (buf->form == BUF_DECL_SCALAR && !p->s_tir);
}

/* The buffer's name, then `.source` when `source` says so. */
static void put_buffer_name(printer *p, const tx_buffer *buf, int source) {
  puts_(p, buf && buf->name ? buf->name : "_");
  if (source) puts_(p, ".source");
}

/* A scalar-sugar variable written `x.source[0]` (bit i of source_ops). */
static int is_source_elem(const tx_kwargs *kw, uint32_t i, const tx_expr *e) {
  return i < 32 && (kw->source_ops >> i & 1u) && e && e->kind == EXPR_VAR &&
         e->u.var.form == VAR_SCALAR && e->u.var.name;
}

/* T.address_of(x) of a scalar-sugar x written `x.source.data`. */
static int is_source_data(const tx_expr *e) {
  const tx_expr *x = e->nops == 1 ? e->ops[0] : NULL;
  return e->source_form && x && x->kind == EXPR_VAR && x->u.var.form == VAR_SCALAR && x->u.var.name;
}

/* A scalar element [0] of a one-element buffer, as TVM prints it: the name. */
static int is_bare_scalar_load(const printer *p, const tx_expr *e) {
  return e->kind == EXPR_LOAD && e->nops == 1 && is_zero_index(e->ops[0]) && e->dtype.lanes == 1 &&
         is_scalar_buffer(p, e->u.buffer);
}

/* A T.decl_scalar's element (a load without indices): TVM prints the bare
 * name, which the frontend reads as that element wherever it stands. */
static int is_decl_scalar_load(const tx_expr *e) {
  return e->kind == EXPR_LOAD && e->nops == 0 && e->u.buffer &&
         e->u.buffer->form == BUF_DECL_SCALAR && e->u.buffer->name;
}

static void print_expr(printer *p, const tx_expr *e) {
  int scalar_operand = p->scalar_operand;
  p->scalar_operand = 0;
  if (!e || e->kind >= TX_EXPR_KIND_COUNT) {
    puts_(p, "None"); /* malformed IR: print something parseable */
    return;
  }
  if (((scalar_operand && is_bare_scalar_load(p, e)) || is_decl_scalar_load(e)) &&
      !e->source_form) {
    puts_(p, e->u.buffer->name);
    return;
  }
  expr_printers[e->kind](p, e);
}

/* An operand the frontend reads a bare one-element buffer name in as [0]. */
static void print_scalar_operand(printer *p, const tx_expr *e) {
  p->scalar_operand = 1;
  print_expr(p, e);
}

/* Print `e` as an operand of an operator of precedence `prec`; an operand of
 * the same precedence is wrapped when `paren_same` (right operands of
 * left-associative operators, and both sides of a comparison because Python
 * chains them). */
static void print_child(printer *p, const tx_expr *e, int prec, int paren_same) {
  int mine = e ? expr_prec(e) : PREC_PRIMARY;
  int wrap = mine < prec || (paren_same && mine == prec);
  if (wrap) {
    p->scalar_operand = 0;
    tx_sb_putc(p->out, '(');
  }
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
    if (is_source_elem(kw, i, ops[i]))
      tx_sb_printf(p->out, "%s.source[0]", ops[i]->u.var.name);
    else
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

/* TVM's float literal: an integral value in fixed notation with one
 * decimal (`1.0`, `-1000000000.0`), anything else as C++'s default format
 * at 17 significant digits, i.e. printf's `%.17g` (`0.88`,
 * `7.8899999999999997`, `1.0000000000000001e-05`). */
static void format_float(double v, char *out, size_t n) {
  if (nearbyint(v) == v)
    snprintf(out, n, "%.1f", v);
  else
    snprintf(out, n, "%.17g", v);
}

static void print_float(printer *p, const tx_expr *e) {
  double v = e->u.fval;
  char buf[400]; /* %.1f of DBL_MAX has 309 digits */
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

/* `lambda x, y: body`: ops are the parameters, then the body. */
static void print_lambda(printer *p, const tx_expr *e) {
  puts_(p, "lambda");
  for (uint32_t i = 0; i + 1 < e->nops; i++) {
    puts_(p, i ? ", " : " ");
    print_expr(p, e->ops[i]);
  }
  puts_(p, ": ");
  if (e->nops) print_expr(p, e->ops[e->nops - 1]);
}

static void print_none(printer *p, const tx_expr *e) {
  (void)e;
  puts_(p, "None");
}

/* A buffer's data pointer has no name of its own: it reads `A.data`
 * (`A.source.data` for a one-element A). */
static void print_var(printer *p, const tx_expr *e) {
  const tx_buffer *b = e->u.var.form == VAR_BUFFER_DATA ? tx_ptrmap_get(&p->owners, e) : NULL;
  if (b) {
    put_buffer_name(p, b, is_source_buffer(p, b));
    puts_(p, ".data");
    return;
  }
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
  case EXPR_LAMBDA:
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

/* The constructor TVM prints for a node it cannot print as an operator. */
static const char *binary_ctor(tx_expr_kind k) {
  switch (k) {
  case EXPR_ADD:
    return "T.Add";
  case EXPR_SUB:
    return "T.Sub";
  case EXPR_MUL:
    return "T.Mul";
  case EXPR_DIV:
    return "T.Div";
  case EXPR_FLOORDIV:
    return "T.FloorDiv";
  case EXPR_FLOORMOD:
    return "T.FloorMod";
  case EXPR_EQ:
    return "T.EQ";
  case EXPR_NE:
    return "T.NE";
  case EXPR_LT:
    return "T.LT";
  case EXPR_LE:
    return "T.LE";
  case EXPR_GT:
    return "T.GT";
  case EXPR_GE:
    return "T.GE";
  case EXPR_AND:
    return "T.And";
  case EXPR_OR:
    return "T.Or";
  case EXPR_MOD:
  case EXPR_MIN:
  case EXPR_MAX:
    return infix_op(k); /* T.truncmod / T.min / T.max */
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
  return "?";
}

/* The infix operators whose operands the frontend reads a bare one-element
 * buffer name in as its element (arithmetic and comparisons; not and/or). */
static int reads_scalar_operands(tx_expr_kind k) {
  return k == EXPR_ADD || k == EXPR_SUB || k == EXPR_MUL || k == EXPR_DIV || k == EXPR_FLOORDIV ||
         k == EXPR_FLOORMOD || k == EXPR_EQ || k == EXPR_NE || k == EXPR_LT || k == EXPR_LE ||
         k == EXPR_GT || k == EXPR_GE;
}

static void print_binary(printer *p, const tx_expr *e) {
  tx_expr_kind k = (tx_expr_kind)e->kind;
  const tx_expr *a = e->nops > 0 ? e->ops[0] : NULL, *b = e->nops > 1 ? e->ops[1] : NULL;
  int prec = binary_prec(k, e->dtype);
  if (binary_as_call(e)) {
    print_call2(p, binary_ctor(k), a, b);
    return;
  }
  int scalar_operands = reads_scalar_operands(k);
  p->scalar_operand = scalar_operands;
  print_child(p, a, prec, prec == PREC_CMP);
  tx_sb_printf(p->out, " %s ", infix_op(k));
  p->scalar_operand = scalar_operands;
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

/* `[i, j]`; zero indices subscript with the empty tuple. */
static void print_subscript(printer *p, const tx_expr *const *idx, uint32_t n) {
  tx_sb_putc(p->out, '[');
  if (n == 0)
    puts_(p, "()");
  else
    print_list(p, idx, n);
  tx_sb_putc(p->out, ']');
}

static void print_load(printer *p, const tx_expr *e) {
  put_buffer_name(p, e->u.buffer, e->source_form);
  print_subscript(p, e->ops, e->nops);
}

/* `T.Ramp(base, stride, lanes)` / `T.Broadcast(v, lanes)`: lanes from dtype. */
/* A lane count: `4`, or `T.vscale() * 4` for a scalable vector. */
static void put_lanes(printer *p, tx_dtype t) {
  tx_sb_printf(p->out, t.scalable ? "T.vscale() * %d" : "%d", t.lanes);
}

static void print_lanes_fn(printer *p, const char *fn, const tx_expr *e) {
  tx_sb_printf(p->out, "%s(", fn);
  print_list(p, e->ops, e->nops);
  puts_(p, ", ");
  put_lanes(p, e->dtype);
  tx_sb_putc(p->out, ')');
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

/* `a >> b` (operands by Python's rules, as TVM's doc printer places them)
 * or `~a`. */
static void print_bit_op(printer *p, const bit_op *b, const tx_expr *e) {
  if (b->arity == 1) {
    puts_(p, b->token);
    print_child(p, e->ops[0], PREC_UNARY, 0);
    return;
  }
  print_child(p, e->ops[0], b->prec, 0);
  tx_sb_printf(p->out, " %s ", b->token);
  print_child(p, e->ops[1], b->prec, 1);
}

/* A raw PTX opcode that is a Python keyword, `T.ptx["and"]`, prints the way
 * TVM spells the op, `T.ptx.and_`. */
static int print_keyword_ptx_callee(printer *p, const char *op) {
  static const char *const kws[] = {"and", "or", "not", "xor"};
  for (size_t i = 0; i < sizeof kws / sizeof *kws; i++) {
    size_t n = strlen(kws[i]);
    if (strncmp(op, "T.ptx[\"", 7) == 0 && strncmp(op + 7, kws[i], n) == 0 &&
        strcmp(op + 7 + n, "\"]") == 0) {
      tx_sb_printf(p->out, "T.ptx.%s_", kws[i]);
      return 1;
    }
  }
  return 0;
}

/* An op starting with '.' is a method on ops[0]: `A.vload([i], dtype=...)`. */
static void print_call(printer *p, const tx_expr *e) {
  const char *op = e->u.call.op ? e->u.call.op : "?";
  if (strcmp(op, TX_DICT_OP) == 0) {
    print_dict(p, e->u.call.kw.names, e->ops, e->nops);
    return;
  }
  if (strncmp(op, "I.", 2) == 0) p->uses_ir = 1;
  if (strcmp(op, TX_METADATA_OP) == 0 && e->nops == 2) {
    p->uses_meta = 1;
    puts_(p, "metadata[");
    print_expr(p, e->ops[0]);
    puts_(p, "][");
    print_expr(p, e->ops[1]);
    tx_sb_putc(p->out, ']');
    return;
  }
  const bit_op *bit = bit_op_of(e);
  if (bit) {
    print_bit_op(p, bit, e);
    return;
  }
  uint32_t from = 0;
  if (strcmp(op, "{}") == 0) { /* a dict argument: its entries are the keywords */
    print_dict(p, e->u.call.kw.names, e->ops, e->nops);
    return;
  }
  if (strcmp(op, "T.address_of") == 0 && is_source_data(e)) {
    tx_sb_printf(p->out, "%s.source.data", e->ops[0]->u.var.name);
    return;
  }
  if (op[0] == '.' && e->nops > 0) {
    print_child(p, e->ops[0], PREC_PRIMARY, 0);
    from = 1;
  }
  if (!print_keyword_ptx_callee(p, op)) puts_(p, tx_dialect_op_spelling(p->dialect, op));
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
  put_buffer_name(p, e->u.buffer, e->source_form);
}

static void print_region(printer *p, const tx_expr *e) {
  put_buffer_name(p, e->u.buffer, e->source_form || is_source_buffer(p, e->u.buffer));
  print_subscript(p, e->ops, e->nops);
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
}

/* An int literal of dtype t. */
static void print_int_of(printer *p, tx_dtype t, int64_t v) {
  tx_expr lit = {.kind = EXPR_INT, .dtype = t};
  lit.u.ival = v;
  print_expr(p, &lit);
}

static int has_strides(const tx_layout_iter *it, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (it[i].stride) return 1;
  return 0;
}

static int all_int_extents(const tx_layout_iter *it, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (!it[i].extent || it[i].extent->kind != EXPR_INT) return 0;
  return 1;
}

/* Row-major stride of iterator i over constant extents, as TVM fills in
 * strides left out of `T.S[(8, 4)]`. */
static int64_t row_major_stride(const tx_layout_iter *it, uint32_t n, uint32_t i) {
  uint64_t s = 1;
  for (uint32_t j = i + 1; j < n; j++)
    s *= (uint64_t)it[j].extent->u.ival;
  return (int64_t)s;
}

/* One side of the slice: `8` / `(8, 4)` for one / several iterators. */
static void print_iter_part(printer *p, const tx_layout_iter *it, uint32_t n, int strides) {
  int tuple = n != 1;
  if (tuple) tx_sb_putc(p->out, '(');
  for (uint32_t i = 0; i < n; i++) {
    if (i) puts_(p, ", ");
    if (!strides)
      print_expr(p, it[i].extent);
    else if (it[i].stride)
      print_stride(p, it[i].stride, it[i].axis);
    else
      print_int_of(p, it[i].extent->dtype, row_major_stride(it, n, i));
  }
  if (tuple) tx_sb_putc(p->out, ')');
}

/* TVM's form `T.S[(8, 4):(4, 1)]` / `T.S[8:4]`: always a slice, with the
 * strides TVM computes when they were left out (a shape-only layout over
 * symbolic extents keeps its short form, `T.S[(n, 4)]`). */
static void print_iters(printer *p, const char *head, const tx_layout_iter *it, uint32_t n) {
  int strides = has_strides(it, n) || all_int_extents(it, n);
  puts_(p, head);
  tx_sb_putc(p->out, '[');
  print_iter_part(p, it, n, 0);
  if (strides) {
    tx_sb_putc(p->out, ':');
    print_iter_part(p, it, n, 1);
  }
  tx_sb_putc(p->out, ']');
}

static const char *axis_name(const char *axis) {
  return axis ? axis : "m";
}

/* Offset terms in TVM's order: by axis name (its offsets are a map). */
static void sort_offsets(const tx_layout_iter **t, uint32_t n) {
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t j = i; j > 0 && strcmp(axis_name(t[j - 1]->axis), axis_name(t[j]->axis)) > 0;
         j--) {
      const tx_layout_iter *x = t[j];
      t[j] = t[j - 1];
      t[j - 1] = x;
    }
}

/* One offset term `5 @ Axis.warpid` / `64`, as an operand of `+`; `first`
 * is the leftmost operand of the sum. */
static void print_offset_term(printer *p, const tx_layout_iter *o, int first) {
  if (named_axis(o->axis))
    print_stride(p, o->stride, o->axis);
  else
    print_child(p, o->stride, PREC_ADD, !first);
}

/* TVM adds the offset to the layout as one sum: ` + 64`, or with several
 * terms ` + (1 @ Axis.laneid + 64 + 2 @ Axis.warpid)`. */
static void print_offsets(printer *p, const tx_layout *l) {
  enum { SORT_MAX = 16 };
  const tx_layout_iter *t[SORT_MAX];
  uint32_t n = l->noffset;
  if (!n) return;
  for (uint32_t i = 0; i < n && i < SORT_MAX; i++)
    t[i] = &l->offset[i];
  if (n <= SORT_MAX) sort_offsets(t, n);
  puts_(p, n > 1 ? " + (" : " + ");
  for (uint32_t i = 0; i < n; i++) {
    if (i) puts_(p, " + ");
    print_offset_term(p, i < SORT_MAX ? t[i] : &l->offset[i], i == 0 && n > 1);
  }
  if (n > 1) tx_sb_putc(p->out, ')');
}

static void print_layout(printer *p, const tx_layout *l) {
  if (!l) {
    puts_(p, "None");
    return;
  }
  switch (l->kind) {
  case LAYOUT_TILE:
    puts_(p, "T.TileLayout(");
    print_iters(p, "T.S", l->shard, l->nshard);
    if (l->nreplica) {
      puts_(p, " + ");
      print_iters(p, "T.R", l->replica, l->nreplica);
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
    if (l->swizzle_outer) puts_(p, ", swizzle_inner=False");
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

/* The tirx dialect's spelling of a handle: T.Ptr(T.void), T.Ptr(T.float32),
 * T.Ptr(T.float16, "shared"). */
static void print_ptr_type(printer *p, const tx_expr *v) {
  const tx_var_info *vi = &v->u.var;
  puts_(p, "T.Ptr(T.");
  if (vi->has_pointee)
    put_dtype(p, vi->pointee);
  else
    puts_(p, "void");
  if (vi->scope) {
    puts_(p, ", ");
    put_qstr(p, vi->scope);
  }
  tx_sb_putc(p->out, ')');
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

/* What a constructor prints: data=, scope=, and the dtype even when it is
 * the default float32 (TVM's parameter annotations always name it). */
enum { KW_DATA = 1, KW_SCOPE = 2, SIG_DTYPE = 4, SIG_DTYPE_ATTR = 8 };

/* TVM leaves a buffer's layout out when it is the default one and prints
 * `layout=None` for a buffer without one, except in an s_tir function,
 * where no layout is the default. */
static void print_layout_kwarg(printer *p, const tx_buffer *b) {
  if (b->layout && !tx_layout_is_default(b->layout, b->shape, b->ndim)) {
    puts_(p, ", layout=");
    print_layout(p, b->layout);
  } else if (!b->layout && b->layout_none && !p->s_tir) {
    puts_(p, ", layout=None");
  }
}

/* A shape or strides tuple; entry i quoted when bit i of `quoted` is set
 * (TVM's form of a dim or stride that defines a variable; the printer's
 * text of one never holds a quote or backslash). */
static void print_dims(printer *p, const tx_expr *const *dims, uint32_t n, uint32_t quoted) {
  tx_sb_putc(p->out, '(');
  for (uint32_t i = 0; i < n; i++) {
    int q = i < 32 && (quoted >> i & 1u);
    if (i) puts_(p, ", ");
    if (q) tx_sb_putc(p->out, '"');
    print_expr(p, dims[i]);
    if (q) tx_sb_putc(p->out, '"');
  }
  if (n == 1) tx_sb_putc(p->out, ',');
  tx_sb_putc(p->out, ')');
}

/* Keyword arguments in TVM's order: data, strides, elem_offset, scope,
 * align, offset_factor, layout, allocated_addr, annotations. */
static void print_buffer_kwargs(printer *p, const tx_buffer *b, int which) {
  if ((which & KW_DATA) && data_is_foreign(b)) {
    puts_(p, ", data=");
    print_expr(p, b->data);
  }
  if (b->nstrides) {
    puts_(p, ", strides=");
    print_dims(p, b->strides, b->nstrides, b->quoted_strides);
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
  print_layout_kwarg(p, b);
  if (b->allocated_addr) {
    puts_(p, ", allocated_addr=");
    print_expr(p, b->allocated_addr);
  }
  if (b->annotations) { /* TVM appends an alloc_buffer's annotations last */
    puts_(p, ", annotations=");
    print_expr(p, b->annotations);
  }
}

/* `(shape), "dtype"` (float32 elided unless SIG_DTYPE) followed by the
 * keywords. */
static void print_buffer_sig(printer *p, const tx_buffer *b, int which) {
  print_dims(p, b->shape, b->ndim, b->quoted_dims);
  if (which & SIG_DTYPE_ATTR) {
    puts_(p, ", T."); /* the tirx dialect's T.Tensor((n,), T.float32) */
    put_dtype(p, b->dtype);
  } else if ((which & SIG_DTYPE) || !tx_dtype_eq(b->dtype, TX_FLOAT32)) {
    puts_(p, ", \"");
    put_dtype(p, b->dtype);
    tx_sb_putc(p->out, '"');
  }
  print_buffer_kwargs(p, b, which);
  tx_sb_putc(p->out, ')');
}

/* TVM names an allocation after its scope, however it was written:
 * T.alloc_shared / T.alloc_local for "shared" / "local", else
 * T.alloc_buffer(..., scope=...). */
static void print_alloc_ctor(printer *p, const tx_buffer *b) {
  const char *scope = b->scope                      ? b->scope
                      : b->form == BUF_ALLOC_SHARED ? "shared"
                      : b->form == BUF_ALLOC_LOCAL  ? "local"
                                                    : "global";
  if (p->dialect == TX_DIALECT_TIRX) {
    /* T.alloc_tensor(ty_args=[T.Tensor(shape, T.float32, scope="shared")]) */
    puts_(p, "T.alloc_tensor(ty_args=[T.Tensor(");
    print_dims(p, b->shape, b->ndim, b->quoted_dims);
    puts_(p, ", T.");
    put_dtype(p, b->dtype);
    if (!scope_is_default(scope)) {
      puts_(p, ", scope=");
      put_qstr(p, scope);
    }
    print_buffer_kwargs(p, b, 0);
    puts_(p, ")])");
    return;
  }
  if (strcmp(scope, "shared") == 0 || strcmp(scope, "local") == 0) {
    tx_sb_printf(p->out, "T.alloc_%s(", scope);
    print_buffer_sig(p, b, 0);
    return;
  }
  puts_(p, "T.alloc_buffer(");
  print_buffer_sig(p, b, KW_SCOPE);
}

/* The right-hand side that declares `b`, chosen by how it was written. */
static void print_buffer_ctor(printer *p, const tx_buffer *b) {
  switch (b->form) {
  case BUF_PARAM:
    tx_sb_printf(p->out, "%s(", SPELL(p)->param_ctor);
    print_buffer_sig(p, b, KW_SCOPE | (SPELL(p)->dtype_attr ? SIG_DTYPE_ATTR : SIG_DTYPE));
    return;
  case BUF_MATCH:
    puts_(p, "T.match_buffer(");
    print_expr(p, b->origin);
    puts_(p, ", ");
    print_buffer_sig(p, b, KW_SCOPE);
    return;
  case BUF_ALLOC:
  case BUF_ALLOC_SHARED:
  case BUF_ALLOC_LOCAL:
    print_alloc_ctor(p, b);
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
  case BUF_SBLOCK_ALLOC:
    puts_(p, "T.sblock_alloc_buffer(");
    print_buffer_sig(p, b, KW_SCOPE);
    return;
  case BUF_FREE: /* unlike a parameter's, its float32 is elided */
    puts_(p, "T.Buffer(");
    print_buffer_sig(p, b, KW_SCOPE);
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

/* ---- free variables ---------------------------------------------------------
 *
 * TVM declares a free variable (`x = T.int32()`: symbolic extents, Let
 * binders) when it first prints it, in the innermost open frame whose
 * subtree holds every use. Frames are the function, a loop (its header
 * included: a variable only its extent uses is declared on the first line
 * of its body), the body of a while, of each if branch and of a `with`, and
 * a sequence nested in a sequence; the other statements are flat, their
 * children siblings of theirs. The declaration lands right before the
 * statement of that frame being printed when the first use is met. Within
 * one statement the function's own order (first use in the source) is kept.
 */

static uint32_t expr_uses(const tx_expr *e, const tx_expr *v);

static uint32_t exprs_uses(const tx_expr *const *es, uint32_t n, const tx_expr *v) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++)
    k += expr_uses(es[i], v);
  return k;
}

static uint32_t iters_uses(const tx_layout_iter *it, uint32_t n, const tx_expr *v) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++)
    k += expr_uses(it[i].extent, v) + expr_uses(it[i].stride, v);
  return k;
}

static uint32_t layout_uses(const tx_layout *l, const tx_expr *v) {
  uint32_t k = 0;
  for (; l; l = l->tile)
    k += iters_uses(l->shard, l->nshard, v) + iters_uses(l->replica, l->nreplica, v) +
         iters_uses(l->offset, l->noffset, v);
  return k;
}

static uint32_t expr_uses(const tx_expr *e, const tx_expr *v) {
  if (!e) return 0;
  uint32_t k = (e == v) + exprs_uses(e->ops, e->nops, v);
  if (e->kind == EXPR_LET) k += e->u.binder == v;
  if (e->kind == EXPR_LAYOUT) k += layout_uses(e->u.layout, v);
  return k;
}

/* Uses in the fields of a buffer where it is defined. */
static uint32_t buffer_def_uses(const tx_buffer *b, const tx_expr *v) {
  if (!b) return 0;
  return exprs_uses(b->shape, b->ndim, v) + exprs_uses(b->strides, b->nstrides, v) +
         expr_uses(b->elem_offset, v) + expr_uses(b->allocated_addr, v) + (b->data == v) +
         layout_uses(b->layout, v) + expr_uses(b->origin, v);
}

/* Uses in the statement itself, not in its child statements. */
static uint32_t header_uses(const tx_stmt *s, const tx_expr *v) {
  uint32_t k = exprs_uses(s->exprs, s->nexprs, v);
  if (s->kind == STMT_ALLOC || s->kind == STMT_DECL) k += buffer_def_uses(s->buffer, v);
  return k;
}

static uint32_t stmt_uses(const tx_stmt *s, const tx_expr *v) {
  if (!s) return 0;
  uint32_t k = header_uses(s, v);
  for (uint32_t i = 0; i < s->nstmts; i++)
    k += stmt_uses(s->stmts[i], v);
  return k;
}

static uint32_t body_uses(const tx_stmt *s, const tx_expr *v) {
  return s->nstmts ? stmt_uses(s->stmts[0], v) : 0;
}

/* Does the statement open frames, or is it flat (its children print as its
 * siblings)? */
static int opens_frames(const tx_stmt *s) {
  switch ((tx_stmt_kind)s->kind) {
  case STMT_FOR:
  case STMT_WHILE:
  case STMT_IF:
  case STMT_WITH:
  case STMT_SEQ:
  case STMT_BLOCK:      /* with T.sblock(...): its header items are inside */
  case STMT_BLOCK_INIT: /* with T.init(): */
    return 1;
  case STMT_ATTR:
  case STMT_DEVICE_ENTRY:
    return s->flag == 1; /* the with-form */
  case STMT_BLOCK_AXIS:
  case STMT_BLOCK_SIG:
  case STMT_STORE:
  case STMT_BIND:
  case STMT_ASSIGN:
  case STMT_ASSERT:
  case STMT_EVAL:
  case STMT_BREAK:
  case STMT_CONTINUE:
  case STMT_RETURN:
  case STMT_ALLOC:
  case STMT_DECL:
  case STMT_SCOPE_ID:
  case STMT_TILE_OP:
  case TX_STMT_KIND_COUNT:
    break;
  }
  return 0;
}

/* Is there a frame at or inside s that holds all `total` uses of v? */
static int frame_holds_all(const tx_stmt *s, const tx_expr *v, uint32_t total) {
  if (!s) return 0;
  if (!opens_frames(s)) {
    for (uint32_t i = 0; i < s->nstmts; i++)
      if (frame_holds_all(s->stmts[i], v, total)) return 1;
    return 0;
  }
  if (s->kind == STMT_FOR || s->kind == STMT_SEQ || s->kind == STMT_BLOCK)
    /* a loop's (and a block's) frame holds its header */
    return stmt_uses(s, v) == total;
  if (s->kind == STMT_IF)
    return (s->nstmts > 0 && stmt_uses(s->stmts[0], v) == total) ||
           (s->nstmts > 1 && stmt_uses(s->stmts[1], v) == total);
  return body_uses(s, v) == total; /* while, with, attr and device_entry with-forms */
}

static uint32_t func_uses(const tx_func *f, const tx_expr *v) {
  uint32_t k = exprs_uses(f->attr_values, f->nattrs, v) + stmt_uses(f->body, v);
  for (uint32_t i = 0; i < f->nparams && f->param_bufs; i++)
    k += buffer_def_uses(f->param_bufs[i], v);
  return k;
}

static void print_var_type(printer *p, const tx_expr *v);
static void print_ptr_type(printer *p, const tx_expr *v);

/* `n = T.int32()`, `p = T.handle()`, `p = T.handle("float32", "global")`. */
static void declare_free_var(printer *p, uint32_t i) {
  const tx_expr *v = p->fv[i];
  p->declared[i] = 1;
  start_line(p);
  tx_sb_printf(p->out, "%s = ", v->u.var.name ? v->u.var.name : "_");
  print_var_type(p, v);
  int called =
      v->dtype.code == DT_HANDLE && (v->u.var.has_pointee || v->u.var.scope || v->u.var.tensormap);
  puts_(p, called ? "\n" : "()\n");
}

/* Declare, before statement s of the current frame, the free variables
 * whose first use is in s and that no frame inside s takes. */
static void declare_before_stmt(printer *p, const tx_stmt *s) {
  if (!p->declared || !s) return;
  for (uint32_t i = 0; i < p->nfv; i++) {
    const tx_expr *v = p->fv[i];
    if (p->declared[i]) continue;
    int here = opens_frames(s) ? stmt_uses(s, v) && !frame_holds_all(s, v, func_uses(p->func, v))
                               : header_uses(s, v) > 0;
    if (here) declare_free_var(p, i);
  }
}

/* Before a prologue line (func_attr, a match_buffer): what it uses. */
static void declare_for_exprs(printer *p, const tx_expr *const *es, uint32_t n,
                              const tx_buffer *b) {
  if (!p->declared) return;
  for (uint32_t i = 0; i < p->nfv; i++) {
    const tx_expr *v = p->fv[i];
    if (!p->declared[i] && (exprs_uses(es, n, v) || buffer_def_uses(b, v))) declare_free_var(p, i);
  }
}

/* An indented block; Python needs at least one statement in it. A
 * sequence's items are the frame's statements. */
static void print_block(printer *p, const tx_stmt *body) {
  p->indent += 4;
  if (stmt_is_empty(body)) {
    start_line(p);
    puts_(p, "T.evaluate(0)\n");
  } else {
    if (body->kind != STMT_SEQ) declare_before_stmt(p, body);
    print_stmt(p, body);
  }
  p->indent -= 4;
}

static void print_block_of(printer *p, const tx_stmt *s) {
  print_block(p, s->nstmts ? s->stmts[0] : NULL);
}

static void print_entry_region(printer *p, const tx_stmt *entry, const tx_stmt *const *rest,
                               uint32_t nrest);

/* A flat T.device_entry(...), or TVM 0.27's print of an argument-free one,
 * T.attr({"tirx.device_entry": T.bool(True)}): what the tirx dialect writes
 * as the region `with T.device_entry():` (dialect_tirx.c reads it back). */
static int is_flat_entry(const tx_stmt *s) {
  if (s->flag != 0) return 0;
  if (s->kind == STMT_DEVICE_ENTRY) return 1;
  const tx_expr *v = s->nexprs == 1 ? s->exprs[0] : NULL;
  return s->kind == STMT_ATTR && s->kw.npos == 0 && s->kw.names &&
         strcmp(s->kw.names[0], "tirx.device_entry") == 0 && v && v->kind == EXPR_INT &&
         tx_dtype_eq(v->dtype, TX_BOOL) && v->u.ival == 1;
}

/* Binding statements scope over the rest of the sequence; should one carry
 * child statements anyway, they print flat after it. In the tirx dialect a
 * flat device entry takes the rest of the sequence into its region. */
static void print_flat_rest(printer *p, const tx_stmt *s) {
  for (uint32_t i = 0; i < s->nstmts; i++) {
    const tx_stmt *c = s->stmts[i];
    if (p->dialect == TX_DIALECT_TIRX && is_flat_entry(c)) {
      print_entry_region(p, c, s->stmts + i + 1, s->nstmts - i - 1);
      return;
    }
    declare_before_stmt(p, c);
    print_stmt(p, c);
  }
}

static const char *var_name(const tx_stmt *s, uint32_t i) {
  const tx_expr *v = i < s->nvars ? s->vars[i] : NULL;
  return v && v->kind == EXPR_VAR && v->u.var.name ? v->u.var.name : "_";
}

static const tx_expr *expr_at(const tx_stmt *s, uint32_t i) {
  return i < s->nexprs ? s->exprs[i] : NULL;
}

/* A ramp index of a slice-form store, constant stride s: `base:base + lanes`,
 * `base:base + lanes * s:s` (TVM's base + lanes * stride, folded where
 * constant). */
static int print_slice_index(printer *p, const tx_expr *e) {
  if (e->kind != EXPR_RAMP || e->nops != 2 || e->ops[1]->kind != EXPR_INT || e->ops[1]->u.ival < 1)
    return 0;
  const tx_expr *base = e->ops[0];
  int64_t step = e->ops[1]->u.ival;
  if (base->kind == EXPR_INT && !e->dtype.scalable) {
    tx_sb_printf(p->out, "%" PRId64 ":%" PRId64, base->u.ival,
                 base->u.ival + e->dtype.lanes * step);
  } else {
    print_expr(p, base);
    tx_sb_putc(p->out, ':');
    /* TVM folds 0 + T.vscale() * 4 to the product. */
    if (!(base->kind == EXPR_INT && base->u.ival == 0)) {
      print_expr(p, base);
      puts_(p, " + ");
    }
    if (e->dtype.scalable) {
      put_lanes(p, e->dtype);
      if (step != 1) tx_sb_printf(p->out, " * %" PRId64, step);
    } else {
      tx_sb_printf(p->out, "%" PRId64, e->dtype.lanes * step);
    }
  }
  if (step != 1) tx_sb_printf(p->out, ":%" PRId64, step);
  return 1;
}

static void print_store_target(printer *p, const tx_stmt *s) {
  puts_(p, s->buffer && s->buffer->name ? s->buffer->name : "_");
  tx_sb_putc(p->out, '[');
  for (uint32_t i = 1; i < s->nexprs; i++) {
    if (i > 1) puts_(p, ", ");
    if (!print_slice_index(p, s->exprs[i])) print_expr(p, s->exprs[i]);
  }
  tx_sb_putc(p->out, ']');
}

/* TVM writes a store to a one-element buffer's [0] as `A = v`. */
static int is_bare_scalar_store(const printer *p, const tx_stmt *s) {
  return s->flag != STORE_SLICES && s->nexprs == 2 && is_zero_index(s->exprs[1]) && s->exprs[0] &&
         s->exprs[0]->dtype.lanes == 1 && is_scalar_buffer(p, s->buffer);
}

static void print_store(printer *p, const tx_stmt *s) {
  start_line(p);
  uint32_t n = s->nexprs ? s->nexprs - 1 : 0;
  if (is_bare_scalar_store(p, s))
    puts_(p, s->buffer->name);
  else if (s->flag == STORE_SLICES && n)
    print_store_target(p, s);
  else {
    put_buffer_name(p, s->buffer, 0);
    print_subscript(p, s->nexprs ? s->exprs + 1 : NULL, n);
  }
  puts_(p, " = ");
  print_scalar_operand(p, expr_at(s, 0));
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
    if (v && p->dialect == TX_DIALECT_TIRX && v->dtype.code == DT_HANDLE && !v->u.var.tensormap)
      print_ptr_type(p, v); /* the wheel's T.let[T.Ptr(T.void)] */
    else if (v)
      print_var_type(p, v);
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
  print_scalar_operand(p, expr_at(s, 0));
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
  if (p->dialect == TX_DIALECT_TIRX && is_flat_entry(s)) {
    print_entry_region(p, s, NULL, 0);
    return;
  }
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
  print_flat_rest(p, s);
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
/* An if/while condition: an integer one written `if x:` prints bare again. */
static void print_condition(printer *p, const tx_expr *c) {
  if (c && c->kind == EXPR_NE && c->implicit_truth && c->nops == 2)
    print_expr(p, c->ops[0]);
  else
    print_expr(p, c);
}

static void print_if(printer *p, const tx_stmt *s) {
  start_line(p);
  puts_(p, "if ");
  print_condition(p, expr_at(s, 0));
  puts_(p, ":\n");
  print_block(p, s->nstmts ? s->stmts[0] : NULL);
  if (s->nstmts > 1 && s->stmts[1]) {
    start_line(p);
    puts_(p, "else:\n");
    print_block(p, s->stmts[1]);
  }
}

/* TVM's is_zero: a 0 literal of any integer type (a uint32 loop starts at
 * T.uint32(0) and still prints `range(T.uint32(n))`). */
static int is_zero_int(const tx_expr *e) {
  return e && e->kind == EXPR_INT && e->u.ival == 0 &&
         (e->dtype.code == DT_INT || e->dtype.code == DT_UINT);
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

/* A loop's body (the innermost of a T.grid chain of `depth` loops), after
 * the free variables the loop headers use first: the loop's frame holds
 * its header. */
static void print_loop_body(printer *p, const tx_stmt *s, uint32_t depth) {
  p->indent += 4;
  for (uint32_t i = 0; p->declared && i < p->nfv; i++) {
    uint32_t k = 0;
    for (uint32_t j = 0; j < depth; j++)
      k += header_uses(grid_loop(s, j), p->fv[i]);
    if (!p->declared[i] && k) declare_free_var(p, i);
  }
  p->indent -= 4;
  print_block_of(p, grid_loop(s, depth - 1));
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
  print_loop_body(p, s, depth);
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
  /* The tirx dialect's printer keeps the begin of T.unroll(0, n) and the like. */
  int keep_begin = p->dialect == TX_DIALECT_TIRX && !bare && s->flag != FOR_THREAD_BINDING;
  uint32_t from = (npos == 2 && is_zero_int(s->exprs[0]) && !keep_begin) ? 1 : 0;
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
  if (depth > 1 && p->dialect == TX_DIALECT_TVM) { /* the tirx dialect has no T.grid sugar */
    print_grid(p, s, depth);
    return;
  }
  tx_sb_printf(p->out, "for %s in ", var_name(s, 0));
  if (s->nexprs >= 2)
    print_for_iter(p, s);
  else
    puts_(p, "range(0)"); /* malformed; keep it parseable */
  puts_(p, ":\n");
  print_loop_body(p, s, 1);
}

static void print_while(printer *p, const tx_stmt *s) {
  start_line(p);
  puts_(p, "while ");
  print_condition(p, expr_at(s, 0));
  puts_(p, ":\n");
  print_block_of(p, s);
}

/* TVM prints the loop jumps as calls. */
static void print_break(printer *p, const tx_stmt *s) {
  (void)s;
  start_line(p);
  puts_(p, "T.break_loop()\n");
}

static void print_continue(printer *p, const tx_stmt *s) {
  (void)s;
  start_line(p);
  puts_(p, "T.continue_loop()\n");
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

/* T.device_entry(grid=.., block=.., cluster=..): the frontend's reading of
 * T.device_entry(launch=T.cuda.LaunchConfig(...)), which apache-tvm-tirx
 * reads and tirx-c's grid= form it does not. */
static int is_launch_config(const tx_stmt *s) {
  if (s->kind != STMT_DEVICE_ENTRY || !s->nexprs || s->kw.npos != 0 || !s->kw.names) return 0;
  for (uint32_t i = 0; i < s->nexprs; i++) {
    const char *k = s->kw.names[i];
    if (strcmp(k, "grid") != 0 && strcmp(k, "block") != 0 && strcmp(k, "cluster") != 0) return 0;
  }
  return 1;
}

/* The tirx dialect has no flat T.device_entry(): the statements after one
 * (its own, then `rest`) print as the body of `with T.device_entry():`. */
static void print_entry_region(printer *p, const tx_stmt *entry, const tx_stmt *const *rest,
                               uint32_t nrest) {
  start_line(p);
  puts_(p, "with ");
  if (entry->kind == STMT_ATTR) {
    puts_(p, "T.device_entry()");
  } else if (is_launch_config(entry)) {
    puts_(p, "T.device_entry(launch=");
    print_stmt_call(p, "T.cuda.LaunchConfig", entry);
    tx_sb_putc(p->out, ')');
  } else {
    print_stmt_call(p, "T.device_entry", entry);
  }
  puts_(p, ":\n");
  p->indent += 4;
  if (!entry->nstmts && !nrest) {
    start_line(p);
    puts_(p, "T.evaluate(0)\n");
  }
  print_flat_rest(p, entry);
  for (uint32_t i = 0; i < nrest; i++) {
    declare_before_stmt(p, rest[i]);
    print_stmt(p, rest[i]);
  }
  p->indent -= 4;
}

static void print_device_entry(printer *p, const tx_stmt *s) {
  if (p->dialect == TX_DIALECT_TIRX && is_flat_entry(s)) {
    print_entry_region(p, s, NULL, 0);
    return;
  }
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
  /* TVM 0.27 merges nested withs into one; the tirx dialect's printer nests them. */
  while (p->dialect == TX_DIALECT_TVM && (inner = sole_stmt(s->nstmts ? s->stmts[0] : NULL)) &&
         inner->kind == STMT_WITH) {
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

/* ---- S-TIR blocks ------------------------------------------------------------ */

/* A block's header items and body, in order, one level in (ir.h, tx_block_form). */
static void print_sblock_items(printer *p, const tx_stmt *s) {
  if (!s->nstmts) {
    start_line(p);
    puts_(p, "T.evaluate(0)\n");
  }
  for (uint32_t i = 0; i < s->nstmts; i++)
    print_stmt(p, s->stmts[i]);
}

/* TVM prints the root block its parser adds as a comment, with the root's
 * allocations and body at the function's own level. */
static void print_sblock(printer *p, const tx_stmt *s) {
  start_line(p);
  if (s->flag == BLOCK_IMPLICIT_ROOT) {
    puts_(p, "# with T.sblock(\"root\"):\n");
    print_sblock_items(p, s);
    return;
  }
  puts_(p, "with T.sblock(");
  put_qstr(p, s->name ? s->name : "");
  print_args(p, s->exprs, 0, s->nexprs, &s->kw, 0);
  puts_(p, "):\n");
  p->indent += 4;
  print_sblock_items(p, s);
  p->indent -= 4;
}

static void print_sblock_axis(printer *p, const tx_stmt *s) {
  start_line(p);
  for (uint32_t i = 0; i < s->nvars; i++)
    tx_sb_printf(p->out, "%s%s", var_name(s, i), i + 1 < s->nvars ? ", " : " = ");
  tx_sb_printf(p->out, "T.axis.%s(", s->name ? s->name : "?");
  print_args(p, s->exprs, 0, s->nexprs, &s->kw, 1);
  puts_(p, ")\n");
}

static void print_sblock_sig(printer *p, const tx_stmt *s) {
  start_line(p);
  tx_sb_printf(p->out, "T.%s(", s->name ? s->name : "?");
  if (s->name && strcmp(s->name, "sblock_attr") == 0)
    print_dict(p, s->kw.names, s->exprs, s->nexprs);
  else
    print_args(p, s->exprs, 0, s->nexprs, &s->kw, 1);
  puts_(p, ")\n");
}

static void print_sblock_init(printer *p, const tx_stmt *s) {
  start_line(p);
  puts_(p, "with T.init():\n");
  print_block_of(p, s);
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
  if (v && p->dialect == TX_DIALECT_TIRX && v->dtype.code == DT_HANDLE && !v->u.var.tensormap)
    print_ptr_type(p, v);
  else if (v)
    print_var_type(p, v);
}

static void print_match_buffers(printer *p, const tx_func *f) {
  for (uint32_t i = 0; i < f->nparams && f->param_bufs; i++) {
    const tx_buffer *b = f->param_bufs[i];
    if (!b || b->form != BUF_MATCH) continue;
    declare_for_exprs(p, NULL, 0, b);
    start_line(p);
    tx_sb_printf(p->out, "%s = T.match_buffer(", b->name ? b->name : "_");
    print_expr(p, b->origin ? b->origin : f->params[i]);
    puts_(p, ", ");
    print_buffer_sig(p, b, KW_SCOPE);
    tx_sb_putc(p->out, '\n');
  }
}

/* TVM prints the parameters first, declaring the free variables their
 * buffers use, then T.func_attr and the match_buffers. */
static void print_func_prologue(printer *p, const tx_func *f) {
  for (uint32_t i = 0; i < f->nparams && f->param_bufs; i++)
    if (f->param_bufs[i] && f->param_bufs[i]->form == BUF_PARAM)
      declare_for_exprs(p, NULL, 0, f->param_bufs[i]);
  if (f->nattrs) {
    declare_for_exprs(p, f->attr_values, f->nattrs, NULL);
    /* The tirx dialect's printer writes one T.func_attr per key. */
    uint32_t per_call = p->dialect == TX_DIALECT_TIRX ? 1 : f->nattrs;
    for (uint32_t i = 0; i < f->nattrs; i += per_call) {
      start_line(p);
      puts_(p, "T.func_attr(");
      print_dict(p, f->attr_keys + i, f->attr_values + i, per_call);
      puts_(p, ")\n");
    }
  }
  print_match_buffers(p, f);
}

/* TVM's order: private, s_tir, persistent; bare without any. */
static void print_decorator(printer *p, const tx_func *f) {
  if (!f->is_private && !f->is_s_tir && !f->is_persistent) {
    tx_sb_printf(p->out, "@%s\n", SPELL(p)->func_decorator);
    return;
  }
  const char *sep = "";
  tx_sb_printf(p->out, "@%s(", SPELL(p)->func_decorator);
  if (f->is_private) puts_(p, "private=True"), sep = ", ";
  if (f->is_s_tir) puts_(p, sep), puts_(p, "s_tir=True"), sep = ", ";
  if (f->is_persistent) puts_(p, sep), puts_(p, "persistent=True");
  puts_(p, ")\n");
}

static void add_free_var(printer *p, const tx_expr *v) {
  if (!v || p->out->failed) return;
  for (uint32_t i = 0; i < p->nfv; i++)
    if (p->fv[i] == v) return;
  if (p->nfv == p->fv_cap) {
    uint32_t cap = p->fv_cap ? 2 * p->fv_cap : 8;
    const tx_expr **n = tx_mem_realloc(p->out->alloc, p->fv, cap * sizeof *n);
    if (!n) {
      p->out->failed = 1;
      return;
    }
    p->fv = n;
    p->fv_cap = cap;
  }
  p->fv[p->nfv++] = v;
}

/* TVM declares a T.Let binder like a free variable (its printer meets the
 * variable before any definition of it). */
static void collect_let_binders_expr(printer *p, const tx_expr *e) {
  if (!e) return;
  if (e->kind == EXPR_LET) add_free_var(p, e->u.binder);
  for (uint32_t i = 0; i < e->nops; i++)
    collect_let_binders_expr(p, e->ops[i]);
}

static void collect_let_binders(printer *p, const tx_stmt *s) {
  if (!s) return;
  for (uint32_t i = 0; i < s->nexprs; i++)
    collect_let_binders_expr(p, s->exprs[i]);
  for (uint32_t i = 0; i < s->nstmts; i++)
    collect_let_binders(p, s->stmts[i]);
}

/* Records b as its data variable's buffer when the variable is b's own. */
static void add_owner(printer *p, const tx_buffer *b) {
  if (!b || !b->data || b->data->kind != EXPR_VAR || data_is_foreign(b) || p->out->failed) return;
  if (!tx_ptrmap_get(&p->owners, b->data) && !tx_ptrmap_put(&p->owners, b->data, (void *)b))
    p->out->failed = 1;
}

/* The buffers that statements under s allocate or declare. */
static void collect_owners(printer *p, const tx_stmt *s) {
  if (!s) return;
  if (s->kind == STMT_ALLOC || s->kind == STMT_DECL) add_owner(p, s->buffer);
  for (uint32_t i = 0; i < s->nstmts; i++)
    collect_owners(p, s->stmts[i]);
}

/* The free variables of f and their declared flags; NULL flags (nothing to
 * declare, or out of memory: the output is then marked failed); and the
 * owners of f's data variables. */
static void start_free_vars(printer *p, const tx_func *f) {
  p->func = f;
  p->fv = NULL;
  p->nfv = p->fv_cap = 0;
  for (uint32_t i = 0; i < f->nsymbolic; i++)
    if (!f->symbolic[i]->u.var.typevar)
      add_free_var(p, f->symbolic[i]); /* TypeVars: module level */
  collect_let_binders(p, f->body);
  p->owners = (tx_ptrmap){.alloc = p->out->alloc};
  for (uint32_t i = 0; i < f->nparams && f->param_bufs; i++)
    add_owner(p, f->param_bufs[i]);
  collect_owners(p, f->body);
  p->declared = p->nfv && !p->out->failed ? tx_mem_calloc(p->out->alloc, p->nfv, 1) : NULL;
  if (p->nfv && !p->declared) p->out->failed = 1;
}

static void end_free_vars(printer *p) {
  tx_mem_free(p->out->alloc, p->declared);
  tx_mem_free(p->out->alloc, p->fv);
  tx_ptrmap_free(&p->owners);
  p->declared = NULL;
  p->fv = NULL;
  p->nfv = p->fv_cap = 0;
  p->func = NULL;
}

/* ---- symbolic variables in the tirx dialect ---------------------------------
 *
 * The wheel has no `n = T.int32()` in a body: a function's symbolic variables
 * that its signature uses are PEP 695 type parameters, `def k[n, m:
 * T.int64](...)`, in order of first use in the signature; the others (and,
 * in an @T.ir_module class, all of them) are module-level `n =
 * T.dynamic("n", dtype="int32")` lines right above the decorator, in order of
 * first use (type parameters: see in_list_order). Pointer variables (`p = T.handle(...)`) have no
 * such spelling and print as in the tvm dialect.
 */

typedef struct sym_order {
  const tx_func *f;
  const tx_expr **vars; /* f->nsymbolic slots */
  uint32_t n;
} sym_order;

/* Is v a symbolic variable of the function that the tirx dialect declares
 * outside its body? */
static int tirx_outside(const tx_func *f, const tx_expr *v) {
  if (v->kind != EXPR_VAR || v->dtype.code == DT_HANDLE) return 0;
  for (uint32_t i = 0; i < f->nsymbolic; i++)
    if (f->symbolic[i] == v) return 1;
  return 0;
}

static void order_add(sym_order *o, const tx_expr *v) {
  for (uint32_t i = 0; i < o->n; i++)
    if (o->vars[i] == v) return;
  if (o->n < o->f->nsymbolic) o->vars[o->n++] = v;
}

static int order_expr(tx_visitor *v, const tx_expr *e) {
  sym_order *o = v->user;
  if (tirx_outside(o->f, e)) order_add(o, e);
  if (e->kind == EXPR_LOAD || e->kind == EXPR_BUFFER || e->kind == EXPR_REGION)
    tx_visit_buffer_fields(v, e->u.buffer);
  return 1;
}

static int order_stmt(tx_visitor *v, const tx_stmt *s) {
  if (s->buffer) tx_visit_buffer_fields(v, s->buffer);
  return 1;
}

/* f's tirx-declared symbolic variables in order of first use: those of
 * the parameter buffers only (sig) or of the whole function. o->vars NULL
 * when out of memory (the output is marked failed). */
static sym_order order_symbolic(printer *p, const tx_func *f, int sig) {
  sym_order o = {.f = f};
  if (!f->nsymbolic) return o;
  o.vars = tx_mem_calloc(p->out->alloc, f->nsymbolic, sizeof *o.vars);
  if (!o.vars) {
    p->out->failed = 1;
    return o;
  }
  tx_visitor v = {
      .user = &o, .pre_expr = order_expr, .pre_stmt = order_stmt, .visit_buffer_defs = 1};
  for (uint32_t i = 0; i < f->nparams && f->param_bufs; i++)
    if (f->param_bufs[i] && (!sig || f->param_bufs[i]->form == BUF_PARAM))
      tx_visit_buffer_fields(&v, f->param_bufs[i]);
  if (sig) return o;
  for (uint32_t i = 0; i < f->nattrs; i++)
    tx_visit_expr(&v, f->attr_values[i]);
  tx_visit_stmt(&v, f->body);
  return o;
}

/* Marks v declared: the body prints no `v = T.int32()` for it. */
static void mark_declared(printer *p, const tx_expr *v) {
  for (uint32_t i = 0; i < p->nfv && p->declared; i++)
    if (p->fv[i] == v) p->declared[i] = 1;
}

static int in_list(const sym_order *o, const tx_expr *v) {
  for (uint32_t i = 0; i < o->n; i++)
    if (o->vars[i] == v) return 1;
  return 0;
}

/* `n = T.dynamic("n", dtype="int32")` for each variable of f's order o not
 * in skip (the type parameters) and not declared so already. */
static void print_dynamic_lines(printer *p, const sym_order *o, const sym_order *skip) {
  for (uint32_t i = 0; i < o->n && !p->out->failed; i++) {
    const tx_expr *v = o->vars[i];
    int done = skip && in_list(skip, v);
    for (uint32_t k = 0; k < p->ndynamic && !done; k++)
      done = p->dynamic[k] == v;
    if (done) continue;
    if (p->ndynamic == p->dynamic_cap) {
      uint32_t cap = p->dynamic_cap ? 2 * p->dynamic_cap : 8;
      const tx_expr **n = tx_mem_realloc(p->out->alloc, p->dynamic, cap * sizeof *n);
      if (!n) {
        p->out->failed = 1;
        return;
      }
      p->dynamic = n;
      p->dynamic_cap = cap;
    }
    p->dynamic[p->ndynamic++] = v;
    const char *name = v->u.var.name ? v->u.var.name : "_";
    tx_sb_printf(p->out, "%s = T.dynamic(\"%s\", dtype=\"", name, name);
    put_dtype(p, v->dtype);
    puts_(p, "\")\n");
  }
}

/* `[n, m: T.int64]` after the function's name. */
static void print_type_params(printer *p, const sym_order *sig) {
  if (!sig->n) return;
  tx_sb_putc(p->out, '[');
  for (uint32_t i = 0; i < sig->n; i++) {
    const tx_expr *v = sig->vars[i];
    tx_sb_printf(p->out, "%s%s", i ? ", " : "", v->u.var.name ? v->u.var.name : "_");
    if (v->dtype.code == DT_INT && v->dtype.bits == 32 && v->dtype.lanes == 1) continue;
    puts_(p, ": T.");
    put_dtype(p, v->dtype);
  }
  tx_sb_putc(p->out, ']');
}

/* o's variables in the order of f's symbolic list. The wheel orders type
 * parameters by first use, which is the list's order for a kernel it printed;
 * for one TVM printed, the list holds TVM's declaration order (`x =
 * T.int32()` before `m = T.int32()` although m is used first), which must
 * survive tvm -> tirx -> tvm. */
static void in_list_order(sym_order *o) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < o->f->nsymbolic && o->vars; i++)
    for (uint32_t k = n; k < o->n; k++)
      if (o->vars[k] == o->f->symbolic[i]) {
        const tx_expr *t = o->vars[n];
        o->vars[n++] = o->vars[k];
        o->vars[k] = t;
        break;
      }
}

/* The tirx dialect's declarations of f's symbolic variables before its
 * decorator; *sig receives the type parameters (none in a class). */
static void start_tirx_symbolic(printer *p, const tx_func *f, sym_order *sig) {
  sym_order all = order_symbolic(p, f, 0);
  *sig = p->in_class ? (sym_order){.f = f} : order_symbolic(p, f, 1);
  in_list_order(sig);
  if (!p->in_class) print_dynamic_lines(p, &all, sig);
  for (uint32_t i = 0; i < all.n; i++)
    mark_declared(p, all.vars[i]);
  tx_mem_free(p->out->alloc, all.vars);
}

static void print_func_def(printer *p, const tx_func *f) {
  p->s_tir = f->is_s_tir;
  start_free_vars(p, f);
  sym_order sig = {.f = f};
  if (p->dialect == TX_DIALECT_TIRX) start_tirx_symbolic(p, f, &sig);
  start_line(p);
  print_decorator(p, f);
  start_line(p);
  tx_sb_printf(p->out, "def %s", f->name ? f->name : "main");
  print_type_params(p, &sig);
  tx_mem_free(p->out->alloc, sig.vars);
  tx_sb_putc(p->out, '(');
  for (uint32_t i = 0; i < f->nparams; i++) {
    if (i) puts_(p, ", ");
    print_param(p, f, i);
  }
  tx_sb_putc(p->out, ')');
  if (f->has_ret) {
    puts_(p, " -> T.");
    put_dtype(p, f->ret_dtype);
  }
  puts_(p, ":\n");
  p->indent += 4;
  print_func_prologue(p, f);
  p->indent -= 4;
  print_block(p, f->body);
  end_free_vars(p);
}

/* The class body of an @I.ir_module. */
static void print_module_class(printer *p, const tx_module *m) {
  for (uint32_t i = 0; i < m->nfuncs && p->dialect == TX_DIALECT_TIRX; i++) {
    sym_order all = order_symbolic(p, m->funcs[i], 0);
    print_dynamic_lines(p, &all, NULL); /* the wheel declares them all above the class */
    tx_mem_free(p->out->alloc, all.vars);
  }
  p->in_class = 1;
  tx_sb_printf(p->out, "@%s\nclass %s:\n", SPELL(p)->module_decorator, m->name);
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

/* TVM's header: `ir as I` when a module class is printed, `tirx as T` plus
 * the `Axis` import (TVM prints the two together, whether or not a layout
 * names an axis) when any TIRx construct is; an empty module uses only I. */
/* TVM's trailer when the text refers to metadata it leaves out. */
static void emit_metadata_note(const printer *p) {
  if (p->uses_meta)
    tx_sb_puts(p->out, "\n# Metadata omitted. Use show_meta=True in script() method to show it.\n");
}

static void emit_with_header(tx_strbuf *out, tx_strbuf *body, tx_dialect d, int with_ir,
                             int with_tirx) {
  const char *header = tx_dialect_spell(d)->header;
  if (header) tx_sb_puts(out, header); /* a dialect with a fixed header */
  if (with_ir && !header) tx_sb_puts(out, "# from tvm.script import ir as I\n");
  if (with_tirx && !header) {
    tx_sb_puts(out, "# from tvm.script import tirx as T\n");
    tx_sb_puts(out, "# from tvm.tirx.layout import Axis\n");
  }
  tx_sb_putc(out, '\n');
  if (body->failed)
    out->failed = 1;
  else
    tx_sb_putn(out, body->data ? body->data : "", body->len);
  tx_sb_free(body);
}

void tx_print_module(const tx_module *mod, tx_strbuf *out) {
  tx_print_module_in(mod, (tx_dialect)mod->dialect, out);
}

void tx_print_module_in(const tx_module *mod, tx_dialect dialect, tx_strbuf *out) {
  tx_strbuf body = {.alloc = out->alloc};
  printer p = {.out = &body, .dialect = (uint8_t)dialect};
  if (mod->name) {
    print_module_class(&p, mod);
  } else {
    /* TVM prints the TypeVars right above the first function, without a blank line
     * (the tirx dialect writes them as type parameters or T.dynamic lines). */
    if (dialect == TX_DIALECT_TVM && print_typevars(&body, mod))
      tx_sb_puts(out, "# from typing import TypeVar\n");
    for (uint32_t i = 0; i < mod->nfuncs; i++) {
      if (i) tx_sb_putc(&body, '\n');
      print_func_def(&p, mod->funcs[i]);
    }
  }
  tx_mem_free(out->alloc, p.dynamic);
  emit_metadata_note(&p);
  emit_with_header(out, &body, dialect, mod->name != NULL || p.uses_ir,
                   mod->nfuncs > 0 || !mod->name);
}

void tx_print_func(const tx_func *func, tx_strbuf *out) {
  tx_strbuf body = {.alloc = out->alloc};
  printer p = {.out = &body};
  print_func_def(&p, func);
  emit_metadata_note(&p);
  emit_with_header(out, &body, TX_DIALECT_TVM, p.uses_ir, 1);
}

void tx_print_expr(const tx_expr *e, tx_strbuf *out) {
  printer p = {.out = out};
  print_expr(&p, e);
}

/* `indent` is a number of spaces. */
void tx_print_stmt(const tx_stmt *s, int indent, tx_strbuf *out) {
  printer p = {.out = out, .indent = indent};
  print_stmt(&p, s);
}

void tx_print_layout(const tx_layout *l, tx_strbuf *out) {
  printer p = {.out = out};
  print_layout(&p, l);
}
