/*
 * c_launcher.c - `tirxc --emit=c-launcher`: a C source and header that embed
 * a module's device image and launch its kernels through the CUDA driver
 * API, with no tirx-c dependency at run time (docs/aot.md).
 *
 * What is generated, per module:
 *  - the header: a DLPack-compatible DLTensor (guarded by DLPACK_DLPACK_H_,
 *    so the real dlpack.h and this one coexist), the TIRX_AOT_* status
 *    codes, <prefix>_init / <prefix>_shutdown, and one function per host
 *    function: `int f(const DLTensor *A, ..., float s, void *stream,
 *    char *err, size_t err_cap)`;
 *  - the source: the image (PTX as a string literal, or cubin bytes), a
 *    hand-declared slice of the driver API loaded with dlopen under
 *    pthread_once, per-device module state loaded lazily under a mutex, and
 *    each host function's packed-API prologue translated statement by
 *    statement into C (asserts become `if (!(cond)) return fail(...)` with
 *    the same message plus ", got <value>"; T.arg_bind becomes a checked
 *    assignment) followed by the launch of each T.call_packed kernel, in
 *    order (a function with several kernels launches them one after the
 *    other on the caller's stream; a failed launch ends the call).
 *
 * Everything the generator does not understand is a located error rather
 * than a guess: a launcher that compiles but checks less than the runtime
 * would be worse than none. Nothing here prints or exits.
 */
#include "target/cuda/c_launcher.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/fold.h"
#include "support/mem.h"
#include "ir/printer.h"
#include "ir/tensormap.h"
#include "abi/tensormap_rules_text.h" /* generated: the text of abi/tensormap_rules.h */
#include "abi/packed_api.h"

enum { MAX_KERNELS = 256, MAX_NAMES = 1024, NAME_CAP = 96 };

/* How a name in a host function reads in C. */
typedef enum bind_kind {
  BK_SCALAR, /* a C variable or parameter holding the value */
  BK_TENSOR, /* a `const DLTensor *` parameter: the variable's value is ->data */
} bind_kind;

typedef struct binding {
  const tx_expr *var;
  char cname[NAME_CAP];
  bind_kind kind;
  int map; /* a tensor map in the function's storage: 1 allocated, 2 encoded */
} binding;

typedef struct gen {
  tx_diag_sink *diags;
  const tx_module *m;
  const tx_c_launcher_options *o;
  tx_strbuf *src, *hdr;
  int errors;
  const tx_func *kernels[MAX_KERNELS];
  uint32_t nkernels;
  /* The host function being translated. */
  const tx_func *f;
  binding binds[MAX_NAMES];
  uint32_t nbinds;
  char pnames[MAX_NAMES][NAME_CAP]; /* C names of f's parameters */
  uint32_t launched;                /* kernel launches translated so far ... */
  uint32_t nlaunches;               /* ... of the function's, in order */
} gen;

static void gen_error(gen *g, tirx_span span, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void gen_error(gen *g, tirx_span span, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tx_diag_vreport(g->diags, TIRX_SEV_ERROR, span, fmt, ap);
  va_end(ap);
  g->errors++;
}

/* ---- names ------------------------------------------------------------------ */

static const char *const C_KEYWORDS[] = {
    "auto",          "break",    "case",     "char",     "const",     "continue",
    "default",       "do",       "double",   "else",     "enum",      "extern",
    "float",         "for",      "goto",     "if",       "inline",    "int",
    "long",          "register", "restrict", "return",   "short",     "signed",
    "sizeof",        "static",   "struct",   "switch",   "typedef",   "union",
    "unsigned",      "void",     "volatile", "while",    "_Bool",     "_Complex",
    "_Alignas",      "_Alignof", "_Atomic",  "_Generic", "_Noreturn", "_Static_assert",
    "_Thread_local", "bool",     "true",     "false",    "NULL",      "main",
};

static int is_keyword(const char *s) {
  for (size_t i = 0; i < sizeof C_KEYWORDS / sizeof *C_KEYWORDS; i++)
    if (strcmp(C_KEYWORDS[i], s) == 0) return 1;
  return 0;
}

static int is_ident(const char *s) {
  if (!s || !*s || (*s >= '0' && *s <= '9')) return 0;
  for (const char *p = s; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
          *p == '_'))
      return 0;
  return 1;
}

int tx_c_launcher_valid_prefix(const char *name) {
  return is_ident(name) && !is_keyword(name) && strlen(name) < 64;
}

static int name_taken(const gen *g, const char *s) {
  /* The generated code's own names, and the trailing parameters of every
   * host function. */
  if (is_keyword(s) || strncmp(s, "tx_aot_", 7) == 0 || strncmp(s, "TX_AOT_", 7) == 0 ||
      strcmp(s, "stream") == 0 || strcmp(s, "err") == 0 || strcmp(s, "err_cap") == 0)
    return 1;
  for (uint32_t i = 0; i < g->nbinds; i++)
    if (strcmp(g->binds[i].cname, s) == 0) return 1;
  return 0;
}

/* A C name for TIRx name `base`, unique in the function: the name itself
 * when possible (the header reads like the kernel), else with a suffix. */
static void unique_name(const gen *g, const char *base, char out[NAME_CAP]) {
  if (!is_ident(base) || strlen(base) > NAME_CAP - 8) base = "v";
  snprintf(out, NAME_CAP, "%s", base);
  for (int k = 1; name_taken(g, out); k++)
    snprintf(out, NAME_CAP, "%s_%d", base, k);
}

static binding *bind(gen *g, const tx_expr *var, const char *cname, bind_kind kind) {
  if (g->nbinds >= MAX_NAMES) {
    gen_error(g, var->span, "too many names in host function '%s' for --emit=c-launcher",
              g->f->name);
    return NULL;
  }
  binding *b = &g->binds[g->nbinds++];
  b->var = var;
  /* memmove, not snprintf: at -O3 GCC cannot prove cname is not b->cname
   * (-Werror=restrict), and a copy onto itself must stay harmless. */
  size_t n = strnlen(cname, NAME_CAP - 1);
  memmove(b->cname, cname, n);
  b->cname[n] = '\0';
  b->kind = kind;
  b->map = 0;
  return b;
}

static const binding *lookup(const gen *g, const tx_expr *var) {
  for (uint32_t i = g->nbinds; i-- > 0;)
    if (g->binds[i].var == var) return &g->binds[i];
  return NULL;
}

/* ---- types ------------------------------------------------------------------ */

/* The C type holding a scalar of dtype t (kernel argument storage), or NULL
 * when C has none the kernel would agree with (float16, bfloat16, fp8...). */
static const char *c_type(tx_dtype t) {
  if (t.lanes != 1) return NULL;
  switch ((tx_dtype_code)t.code) {
  case DT_INT:
    return t.bits == 8    ? "int8_t"
           : t.bits == 16 ? "int16_t"
           : t.bits == 32 ? "int32_t"
           : t.bits == 64 ? "int64_t"
                          : NULL;
  case DT_UINT:
    return t.bits == 8    ? "uint8_t"
           : t.bits == 16 ? "uint16_t"
           : t.bits == 32 ? "uint32_t"
           : t.bits == 64 ? "uint64_t"
                          : NULL;
  case DT_FLOAT:
    return t.bits == 32 ? "float" : t.bits == 64 ? "double" : NULL;
  case DT_BOOL:
    return "_Bool"; /* one byte, as CUDA's bool */
  case DT_HANDLE:
    return "void *";
  case DT_BFLOAT:
  case DT_E4M3FN:
  case DT_E4M3FNUZ:
  case DT_E5M2:
  case DT_E5M2FNUZ:
  case DT_E4M3:
  case DT_E4M3B11FNUZ:
  case DT_E3M4:
  case DT_E8M0FNU:
  case DT_E2M3FN:
  case DT_E3M2FN:
  case DT_E2M1FN:
  case DT_VOID:
    return NULL;
  }
  return NULL;
}

/* The type of a scalar parameter in the public signature: bool is an int
 * there, the usual C spelling of a flag. */
static const char *c_param_type(tx_dtype t) {
  return t.code == DT_BOOL ? "int" : c_type(t);
}

/* ---- attributes and kernels --------------------------------------------------- */

static int kernel_index(const gen *g, const char *name) {
  for (uint32_t i = 0; i < g->nkernels; i++)
    if (strcmp(g->kernels[i]->name, name) == 0) return (int)i;
  return -1;
}

/* ---- C literals ------------------------------------------------------------- */

/* `s` as a C string literal; long text is split into one literal per line so
 * that the generated file stays readable and diffable. */
static void c_string(tx_strbuf *o, const char *s, size_t n, int split_lines) {
  tx_sb_put_quoted(o, s, n, TX_QUOTE_C, split_lines);
}

static void c_int_literal(tx_strbuf *o, tx_dtype t, int64_t v) {
  if (t.code == DT_BOOL) {
    tx_sb_puts(o, v ? "1" : "0");
  } else if (t.code == DT_UINT) {
    tx_sb_printf(o, "UINT64_C(%" PRIu64 ")", (uint64_t)v);
  } else if (v == INT64_MIN) {
    tx_sb_puts(o, "(-INT64_C(9223372036854775807) - 1)");
  } else if (t.bits == 64 || v > INT32_MAX || v < -INT32_MAX) {
    tx_sb_printf(o, v < 0 ? "(-INT64_C(%" PRId64 "))" : "INT64_C(%" PRId64 ")", v < 0 ? -v : v);
  } else {
    tx_sb_printf(o, v < 0 ? "(%" PRId64 ")" : "%" PRId64, v);
  }
}

static void c_float_literal(tx_strbuf *o, tx_dtype t, double v) {
  int single = t.bits == 32;
  /* A float32 literal beyond FLT_MAX is inf (as in the kernels' CUDA). */
  if (single && isinf(tx_fold_float_round(t, v))) v = tx_fold_float_round(t, v);
  if (isnan(v)) {
    tx_sb_puts(o, single ? "NAN" : "(double)NAN");
  } else if (isinf(v)) {
    tx_sb_puts(o, v < 0 ? (single ? "(-INFINITY)" : "(-(double)INFINITY)")
                        : (single ? "INFINITY" : "((double)INFINITY)"));
  } else {
    char buf[64];
    snprintf(buf, sizeof buf, single ? "%.9g" : "%.17g", v);
    tx_sb_putc(o, '(');
    tx_sb_puts(o, buf);
    if (!strpbrk(buf, ".e")) tx_sb_puts(o, ".0");
    if (single) tx_sb_putc(o, 'f');
    tx_sb_putc(o, ')');
  }
}

/* ---- expressions -------------------------------------------------------------- */

static void emit_expr(gen *g, tx_strbuf *o, const tx_expr *e);

/* The C name of the tensor argument i of a T.arg_* accessor. */
static const char *tensor_arg(gen *g, const tx_expr *call, int64_t *dim) {
  int64_t i = -1;
  if (call->nops < 1 || !tx_expr_int_literal(call->ops[0], &i) || i < 0 || i >= g->f->nparams ||
      !g->f->param_bufs || !g->f->param_bufs[i]) {
    gen_error(g, call->span, "%s: argument %" PRId64 " of '%s' is not a tensor parameter",
              call->u.call.op, i, g->f->name);
    return "NULL";
  }
  if (dim) {
    if (call->nops < 2 || !tx_expr_int_literal(call->ops[1], dim) || *dim < 0 ||
        *dim >= (int64_t)g->f->param_bufs[i]->ndim) {
      gen_error(g, call->span, "%s: the dimension must be a literal below the buffer's rank",
                call->u.call.op);
      *dim = 0;
    }
  }
  return g->pnames[i];
}

static void emit_call(gen *g, tx_strbuf *o, const tx_expr *e) {
  const char *op = e->u.call.op;
  int64_t d = 0;
  if (strcmp(op, "T.arg_count") == 0) {
    tx_sb_printf(o, "%u", g->f->nparams);
  } else if (strcmp(op, "T.arg_kind") == 0) {
    int64_t i = -1;
    if (e->nops != 1 || !tx_expr_int_literal(e->ops[0], &i) || i < 0 || i >= g->f->nparams) {
      gen_error(g, e->span, "T.arg_kind: bad argument index");
      return;
    }
    /* The C signature fixes every argument's kind. */
    const tx_expr *p = g->f->params[i];
    int k = g->f->param_bufs && g->f->param_bufs[i] ? TIRX_ARG_TENSOR
            : p->dtype.code == DT_HANDLE            ? TIRX_ARG_HANDLE
            : tx_dtype_is_float(p->dtype)           ? TIRX_ARG_FLOAT
                                                    : TIRX_ARG_INT;
    tx_sb_printf(o, "%d", k);
  } else if (strcmp(op, "T.arg_ndim") == 0) {
    tx_sb_printf(o, "((int32_t)%s->ndim)", tensor_arg(g, e, NULL));
  } else if (strcmp(op, "T.arg_dtype_code") == 0) {
    tx_sb_printf(o, "((int32_t)%s->dtype.code)", tensor_arg(g, e, NULL));
  } else if (strcmp(op, "T.arg_dtype_bits") == 0) {
    tx_sb_printf(o, "((int32_t)%s->dtype.bits)", tensor_arg(g, e, NULL));
  } else if (strcmp(op, "T.arg_dtype_lanes") == 0) {
    tx_sb_printf(o, "((int32_t)%s->dtype.lanes)", tensor_arg(g, e, NULL));
  } else if (strcmp(op, "T.arg_device_type") == 0) {
    tx_sb_printf(o, "((int32_t)%s->device.device_type)", tensor_arg(g, e, NULL));
  } else if (strcmp(op, "T.arg_device_id") == 0) {
    tx_sb_printf(o, "((int32_t)%s->device.device_id)", tensor_arg(g, e, NULL));
  } else if (strcmp(op, "T.arg_shape") == 0) {
    const char *t = tensor_arg(g, e, &d);
    tx_sb_printf(o, "((int64_t)%s->shape[%" PRId64 "])", t, d);
  } else if (strcmp(op, "T.arg_stride") == 0) {
    const char *t = tensor_arg(g, e, &d);
    tx_sb_printf(o, "tx_aot_stride(%s, %" PRId64 ")", t, d);
  } else if (strcmp(op, "T.arg_byte_offset") == 0) {
    tx_sb_printf(o, "((int64_t)%s->byte_offset)", tensor_arg(g, e, NULL));
  } else if (strcmp(op, "T.arg_strides_compact") == 0) {
    tx_sb_printf(o, "tx_aot_compact(%s)", tensor_arg(g, e, NULL));
  } else if (strcmp(op, "T.arg_aligned") == 0) {
    int64_t n = 0;
    const char *t = tensor_arg(g, e, NULL);
    if (e->nops != 2 || !tx_expr_int_literal(e->ops[1], &n) || n <= 0) {
      gen_error(g, e->span, "T.arg_aligned: the alignment must be a positive literal");
      n = 1;
    }
    tx_sb_printf(o, "((uintptr_t)%s->data %% %" PRId64 "u == 0)", t, n);
  } else if ((strcmp(op, "T.truncdiv") == 0 || strcmp(op, "T.truncmod") == 0) && e->nops == 2 &&
             tx_dtype_is_int(e->dtype)) {
    tx_sb_puts(o, "((");
    emit_expr(g, o, e->ops[0]);
    tx_sb_puts(o, op[7] == 'd' ? ") / (" : ") % (");
    emit_expr(g, o, e->ops[1]);
    tx_sb_puts(o, "))");
  } else {
    gen_error(g, e->span, "--emit=c-launcher cannot translate %s in host function '%s'", op,
              g->f->name);
  }
}

/* The C operator of a binary kind (a table, not a switch: -Wswitch-enum
 * would want every other kind listed). */
static const char *binary_op(tx_expr_kind k) {
  static const char *const OPS[TX_EXPR_KIND_COUNT] = {
      [EXPR_ADD] = "+", [EXPR_SUB] = "-",  [EXPR_MUL] = "*", [EXPR_DIV] = "/", [EXPR_MOD] = "%",
      [EXPR_EQ] = "==", [EXPR_NE] = "!=",  [EXPR_LT] = "<",  [EXPR_LE] = "<=", [EXPR_GT] = ">",
      [EXPR_GE] = ">=", [EXPR_AND] = "&&", [EXPR_OR] = "||",
  };
  return (unsigned)k < TX_EXPR_KIND_COUNT && OPS[k] ? OPS[k] : "?";
}

static void emit_expr(gen *g, tx_strbuf *o, const tx_expr *e) {
  tx_expr_kind k = (tx_expr_kind)e->kind;
  const char *ct = c_type(e->dtype);
  switch (k) {
  case EXPR_INT:
    c_int_literal(o, e->dtype, e->u.ival);
    return;
  case EXPR_FLOAT:
    c_float_literal(o, e->dtype, e->u.fval);
    return;
  case EXPR_VAR: {
    const binding *b = lookup(g, e);
    if (!b) {
      gen_error(g, e->span, "--emit=c-launcher: '%s' has no value in host function '%s'",
                e->u.var.name ? e->u.var.name : "?", g->f->name);
      return;
    }
    tx_sb_puts(o, b->cname);
    if (b->kind == BK_TENSOR) tx_sb_puts(o, "->data");
    return;
  }
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
  case EXPR_DIV:
  case EXPR_MOD:
    if (!ct || e->dtype.code == DT_HANDLE || e->dtype.code == DT_BOOL ||
        (k == EXPR_MOD && !tx_dtype_is_int(e->dtype)))
      break;
    /* Narrow integers compute in 64 bits and wrap back, as TIRx does;
     * signed overflow in C would be undefined. */
    if (tx_dtype_is_int(e->dtype) && e->dtype.bits < 64) {
      const char *wide = e->dtype.code == DT_UINT ? "uint64_t" : "int64_t";
      tx_sb_printf(o, "((%s)((%s)", ct, wide);
      emit_expr(g, o, e->ops[0]);
      tx_sb_printf(o, " %s (%s)", binary_op(k), wide);
      emit_expr(g, o, e->ops[1]);
      tx_sb_puts(o, "))");
      return;
    }
    tx_sb_puts(o, "(");
    emit_expr(g, o, e->ops[0]);
    tx_sb_printf(o, " %s ", binary_op(k));
    emit_expr(g, o, e->ops[1]);
    tx_sb_puts(o, ")");
    return;
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
    if (!ct || !tx_dtype_is_int(e->dtype) || e->dtype.code == DT_UINT) break;
    tx_sb_printf(o, "((%s)tx_aot_floor%s((int64_t)", ct, k == EXPR_FLOORDIV ? "div" : "mod");
    emit_expr(g, o, e->ops[0]);
    tx_sb_puts(o, ", (int64_t)");
    emit_expr(g, o, e->ops[1]);
    tx_sb_puts(o, "))");
    return;
  case EXPR_MIN:
  case EXPR_MAX:
    if (!ct) break;
    /* Host operands are side-effect free, so evaluating twice is fine. */
    tx_sb_puts(o, "((");
    emit_expr(g, o, e->ops[0]);
    tx_sb_puts(o, k == EXPR_MIN ? ") < (" : ") > (");
    emit_expr(g, o, e->ops[1]);
    tx_sb_puts(o, ") ? (");
    emit_expr(g, o, e->ops[0]);
    tx_sb_puts(o, ") : (");
    emit_expr(g, o, e->ops[1]);
    tx_sb_puts(o, "))");
    return;
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE:
  case EXPR_AND:
  case EXPR_OR:
    if (e->dtype.lanes != 1) break;
    tx_sb_puts(o, "(");
    emit_expr(g, o, e->ops[0]);
    tx_sb_printf(o, " %s ", binary_op(k));
    emit_expr(g, o, e->ops[1]);
    tx_sb_puts(o, ")");
    return;
  case EXPR_NOT:
    tx_sb_puts(o, "(!");
    emit_expr(g, o, e->ops[0]);
    tx_sb_puts(o, ")");
    return;
  case EXPR_SELECT:
    if (e->dtype.lanes != 1) break;
    tx_sb_puts(o, "((");
    emit_expr(g, o, e->ops[0]);
    tx_sb_puts(o, ") ? (");
    emit_expr(g, o, e->ops[1]);
    tx_sb_puts(o, ") : (");
    emit_expr(g, o, e->ops[2]);
    tx_sb_puts(o, "))");
    return;
  case EXPR_CAST:
    if (!ct || e->dtype.code == DT_HANDLE) break;
    if (e->dtype.code == DT_BOOL) {
      tx_sb_puts(o, "((");
      emit_expr(g, o, e->ops[0]);
      tx_sb_puts(o, ") != 0)");
    } else {
      tx_sb_printf(o, "((%s)", ct);
      emit_expr(g, o, e->ops[0]);
      tx_sb_puts(o, ")");
    }
    return;
  case EXPR_CALL:
    emit_call(g, o, e);
    return;
  case EXPR_STRING:
  case EXPR_LOAD:
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
  char dt[32];
  gen_error(g, e->span,
            "--emit=c-launcher cannot translate a %s expression of type %s in host "
            "function '%s'",
            tx_expr_kind_name(k), tx_dtype_str(e->dtype, dt), g->f->name);
}

/* ---- statements ----------------------------------------------------------- */

static int is_call(const tx_expr *e, const char *op) {
  return e && e->kind == EXPR_CALL && strcmp(e->u.call.op, op) == 0;
}

/* printf conversion and cast showing a value of type t after ", got ". */
static void got_format(tx_dtype t, const char **conv, const char **cast) {
  if (tx_dtype_is_float(t)) {
    *conv = "%g";
    *cast = "(double)";
  } else if (t.code == DT_UINT) {
    *conv = "%llu";
    *cast = "(unsigned long long)";
  } else if (t.code == DT_BOOL) {
    *conv = "%d";
    *cast = "(int)";
  } else {
    *conv = "%lld";
    *cast = "(long long)";
  }
}

static void emit_assert(gen *g, const tx_stmt *s) {
  tx_strbuf *o = g->src;
  const tx_expr *cond = s->exprs[0], *msg = s->nexprs > 1 ? s->exprs[1] : NULL;
  const char *text = msg && msg->kind == EXPR_STRING ? msg->u.str.data : "assertion failed";
  size_t len = msg && msg->kind == EXPR_STRING ? msg->u.str.len : strlen(text);
  const tx_expr *lhs = cond->kind == EXPR_EQ ? cond->ops[0] : NULL;
  /* The C signature already fixes the count and the kind of every argument;
   * only a NULL tensor is left to catch. */
  if (is_call(lhs, "T.arg_count")) return;
  if (is_call(lhs, "T.arg_kind")) {
    int64_t i = -1;
    if (lhs->nops == 1 && tx_expr_int_literal(lhs->ops[0], &i) && i >= 0 && i < g->f->nparams &&
        g->f->param_bufs && g->f->param_bufs[i]) {
      tx_sb_printf(o,
                   "  if (!%s)\n    return tx_aot_fail(err, err_cap, TIRX_AOT_ERR_ARGUMENT, "
                   "\"%%s, got NULL\", ",
                   g->pnames[i]);
      c_string(o, text, len, 0);
      tx_sb_puts(o, ");\n");
    }
    return;
  }
  tx_sb_puts(o, "  if (!");
  if (cond->kind != EXPR_EQ && cond->kind != EXPR_NE && cond->kind != EXPR_LT &&
      cond->kind != EXPR_LE && cond->kind != EXPR_GT && cond->kind != EXPR_GE)
    tx_sb_puts(o, "(");
  emit_expr(g, o, cond);
  if (cond->kind != EXPR_EQ && cond->kind != EXPR_NE && cond->kind != EXPR_LT &&
      cond->kind != EXPR_LE && cond->kind != EXPR_GT && cond->kind != EXPR_GE)
    tx_sb_puts(o, ")");
  tx_sb_puts(o, ")\n    return tx_aot_fail(err, err_cap, TIRX_AOT_ERR_ARGUMENT, ");
  if (is_call(lhs, "T.arg_dtype_code") || is_call(lhs, "T.arg_dtype_bits") ||
      is_call(lhs, "T.arg_dtype_lanes")) {
    /* The whole dtype says more than one of its fields. */
    tx_sb_puts(o, "\"%s, got %s\", ");
    c_string(o, text, len, 0);
    tx_sb_printf(o, ", tx_aot_dtype_name(%s->dtype, tx_aot_dt, sizeof tx_aot_dt));\n",
                 tensor_arg(g, lhs, NULL));
  } else if (lhs) {
    const char *conv, *cast;
    got_format(lhs->dtype, &conv, &cast);
    tx_sb_printf(o, "\"%%s, got %s\", ", conv);
    c_string(o, text, len, 0);
    tx_sb_printf(o, ", %s", cast);
    emit_expr(g, o, lhs);
    tx_sb_puts(o, ");\n");
  } else {
    tx_sb_puts(o, "\"%s\", ");
    c_string(o, text, len, 0);
    tx_sb_puts(o, ");\n");
  }
}

/* T.arg_bind(n, value): n takes value converted to n's type, which must
 * hold it (lowering.md leaves that check to whoever runs the prologue). */
static void emit_arg_bind(gen *g, const tx_expr *call) {
  tx_strbuf *o = g->src;
  const tx_expr *var = call->nops == 2 ? call->ops[0] : NULL;
  const binding *b = var && var->kind == EXPR_VAR ? lookup(g, var) : NULL;
  if (!b || b->kind != BK_SCALAR) {
    gen_error(g, call->span, "T.arg_bind: the first operand must be a symbolic variable of '%s'",
              g->f->name);
    return;
  }
  const char *ct = c_type(var->dtype);
  tx_sb_puts(o, "  {\n    const int64_t tx_aot_v = (int64_t)");
  emit_expr(g, o, call->ops[1]);
  tx_sb_puts(o, ";\n");
  if (tx_dtype_is_int(var->dtype) && var->dtype.bits < 64) {
    char dt[32];
    tx_sb_printf(o,
                 "    if (tx_aot_v != (int64_t)(%s)tx_aot_v)\n      return tx_aot_fail(err, "
                 "err_cap, TIRX_AOT_ERR_ARGUMENT, \"%s: '%s' = %%lld does not fit in %s\", "
                 "(long long)tx_aot_v);\n",
                 ct, g->f->name, var->u.var.name ? var->u.var.name : "?",
                 tx_dtype_str(var->dtype, dt));
  }
  tx_sb_printf(o, "    %s = (%s)tx_aot_v;\n  }\n", b->cname, ct);
}

static void emit_launch(gen *g, const tx_expr *call);

/* The device the function launches on: the first tensor's (make-packed-api
 * checked that all agree), else -1 (the current context's). */
static void emit_device(gen *g, tx_strbuf *o) {
  for (uint32_t i = 0; i < g->f->nparams; i++)
    if (g->f->param_bufs && g->f->param_bufs[i]) {
      tx_sb_printf(o, "%s->device.device_id", g->pnames[i]);
      return;
    }
  tx_sb_puts(o, "-1");
}

/* A_map = T.tvm_stack_alloca("tensormap", 1): 128 bytes in the function's
 * frame; the variable reads as their address. */
static void emit_tensormap_alloc(gen *g, const tx_stmt *s) {
  const tx_expr *v = s->vars[0], *count = NULL;
  tx_tensormap_is_alloca(s->exprs[0], &count);
  if (!count || count->kind != EXPR_INT || count->u.ival != 1) {
    gen_error(g, s->span, "T.tvm_stack_alloca(\"tensormap\", n) needs n = 1");
    return;
  }
  char cname[NAME_CAP];
  unique_name(g, v->u.var.name ? v->u.var.name : "map", cname);
  tx_sb_printf(g->src, "  _Alignas(%d) unsigned char %s[%d];\n", TX_TENSORMAP_HOST_ALIGN, cname,
               TX_TENSORMAP_BYTES);
  binding *b = bind(g, v, cname, BK_SCALAR);
  if (b) b->map = 1;
}

/* runtime.cuTensorMapEncodeTiled(map, dtype, rank, address, ...): TVM's
 * checks and the driver call, in tx_aot_encode_tensormap. */
static void emit_tensormap_encode(gen *g, const tx_expr *call) {
  tx_tensormap_encode enc;
  const tx_expr *where = NULL;
  char why[384];
  if (!tx_tensormap_encode_parse(call, &enc, &where, why, sizeof why)) {
    gen_error(g, where && where->span.line ? where->span : call->span, "%s", why);
    return;
  }
  binding *b = NULL;
  for (uint32_t i = g->nbinds; i-- > 0;)
    if (g->binds[i].var == enc.map) {
      b = &g->binds[i];
      break;
    }
  if (!b) {
    gen_error(g, call->span, "--emit=c-launcher: tensor map '%s' has no value in '%s'",
              enc.map->u.var.name ? enc.map->u.var.name : "?", g->f->name);
    return;
  }
  if (b->map) b->map = 2;
  tx_strbuf *o = g->src;
  int r = enc.rank;
  tx_sb_printf(o, "  {\n    /* %s for %s */\n    const int64_t tx_aot_v[] = {",
               TX_TENSORMAP_ENCODE_NAME, b->cname);
  const tx_expr *vals[4 * TX_TENSORMAP_MAX_RANK + 4];
  int n = 0;
  for (int i = 0; i < r; i++)
    vals[n++] = enc.dims[i];
  for (int i = 0; i + 1 < r; i++)
    vals[n++] = enc.strides[i];
  for (int i = 0; i < r; i++)
    vals[n++] = enc.box[i];
  for (int i = 0; i < r; i++)
    vals[n++] = enc.elem_strides[i];
  vals[n++] = enc.interleave;
  vals[n++] = enc.swizzle;
  vals[n++] = enc.l2_promotion;
  vals[n++] = enc.oob_fill;
  for (int i = 0; i < n; i++) {
    tx_sb_puts(o, i ? ", (int64_t)" : "(int64_t)");
    emit_expr(g, o, vals[i]);
  }
  tx_sb_puts(o, ", ");
  if (enc.force_dtype) {
    tx_sb_puts(o, "(int64_t)");
    emit_expr(g, o, enc.force_dtype);
  } else {
    tx_sb_puts(o, "-1");
  }
  tx_sb_printf(o, "};\n    const int tx_aot_rc = tx_aot_encode_tensormap(\"%s\", \"%s\", %s, ",
               g->f->name, enc.map->u.var.name ? enc.map->u.var.name : "?", b->cname);
  emit_device(g, o);
  tx_sb_printf(o, ", %d, %d, %d, (uint64_t)(uintptr_t)(", enc.cu_dtype, enc.elem_bits, r);
  emit_expr(g, o, enc.addr);
  tx_sb_puts(o, "), tx_aot_v, err, err_cap);\n    if (tx_aot_rc) return tx_aot_rc;\n  }\n");
}

static void emit_stmt(gen *g, const tx_stmt *s) {
  switch ((tx_stmt_kind)s->kind) {
  case STMT_SEQ:
    for (uint32_t i = 0; i < s->nstmts; i++)
      emit_stmt(g, s->stmts[i]);
    return;
  case STMT_ASSERT:
    emit_assert(g, s);
    return;
  case STMT_EVAL:
    if (g->launched && g->launched == g->nlaunches) {
      gen_error(g, s->span, "--emit=c-launcher: '%s' has statements after its %skernel launch",
                g->f->name, g->nlaunches > 1 ? "last " : "");
      return;
    }
    if (s->exprs[0]->kind == EXPR_INT) return; /* T.evaluate(0): nothing to do */
    if (is_call(s->exprs[0], "T.arg_bind")) {
      emit_arg_bind(g, s->exprs[0]);
      return;
    }
    if (tx_tensormap_is_encode(s->exprs[0])) {
      emit_tensormap_encode(g, s->exprs[0]);
      return;
    }
    if (is_call(s->exprs[0], "T.call_packed")) {
      emit_launch(g, s->exprs[0]);
      return;
    }
    break;
  case STMT_BIND: {
    const tx_expr *v = s->nvars ? s->vars[0] : NULL;
    if (v && s->nexprs == 1 && tx_tensormap_is_alloca(s->exprs[0], NULL)) {
      emit_tensormap_alloc(g, s);
      return;
    }
    const char *ct = v ? c_type(v->dtype) : NULL;
    if (!v || !ct || s->nexprs < 1 || v->dtype.code == DT_HANDLE) break;
    char cname[NAME_CAP];
    unique_name(g, v->u.var.name ? v->u.var.name : "v", cname);
    tx_sb_printf(g->src, "  const %s %s = ", ct, cname);
    emit_expr(g, g->src, s->exprs[0]);
    tx_sb_printf(g->src, ";\n  (void)%s;\n", cname);
    bind(g, v, cname, BK_SCALAR);
    return;
  }
  case STMT_DECL:
    /* A buffer declaration on the host is metadata only. */
    return;
  case STMT_STORE:
  case STMT_ASSIGN:
  case STMT_ATTR:
  case STMT_IF:
  case STMT_FOR:
  case STMT_WHILE:
  case STMT_BREAK:
  case STMT_CONTINUE:
  case STMT_RETURN:
  case STMT_ALLOC:
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
  gen_error(g, s->span,
            "--emit=c-launcher cannot translate a %s statement in host function '%s' (only "
            "argument checks, bindings and the kernel launch)",
            tx_stmt_kind_name((tx_stmt_kind)s->kind), g->f->name);
}

/* A 3-tuple attribute of a kernel (cluster sizes) as C expressions into o,
 * or "NULL" when the kernel has none. */
static void emit_dim3_attr(gen *g, tx_strbuf *o, const tx_func *k, const char *key,
                           const char *var) {
  const tx_expr *v = tx_func_attr(k, key);
  if (!v) return;
  if (v->kind != EXPR_TUPLE || v->nops != 3) {
    gen_error(g, k->span, "kernel '%s': attribute %s is not a 3-tuple", k->name, key);
    return;
  }
  tx_sb_printf(o, "    const int64_t %s[3] = {", var);
  for (int i = 0; i < 3; i++) {
    if (i) tx_sb_puts(o, ", ");
    tx_sb_puts(o, "(int64_t)");
    emit_expr(g, o, v->ops[i]);
  }
  tx_sb_puts(o, "};\n");
}

/* Is s a kernel launch, T.call_packed("f_kernel", ...) (not a tensor-map encode)? */
static int is_launch_stmt(const tx_stmt *s) {
  return s->kind == STMT_EVAL && s->nexprs == 1 && is_call(s->exprs[0], "T.call_packed") &&
         !tx_tensormap_is_encode(s->exprs[0]);
}

/* The kernel launches among the host function's statements. */
static uint32_t count_launches(const tx_stmt *s) {
  if (s->kind != STMT_SEQ) return (uint32_t)is_launch_stmt(s);
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->nstmts; i++)
    n += count_launches(s->stmts[i]);
  return n;
}

/* One kernel launch. Launches run in statement order on the caller's stream;
 * the first that fails ends the call with its status, the last one's is the
 * call's. */
static void emit_launch(gen *g, const tx_expr *call) {
  tx_strbuf *o = g->src;
  g->launched++;
  const tx_expr *name = call->nops ? call->ops[0] : NULL;
  if (!name || name->kind != EXPR_STRING) {
    gen_error(g, call->span, "T.call_packed: the first operand must be the kernel name");
    return;
  }
  int ki = kernel_index(g, name->u.str.data);
  if (ki < 0) {
    gen_error(g, call->span,
              "--emit=c-launcher: '%s' calls '%s', which is not a kernel of this module",
              g->f->name, name->u.str.data);
    return;
  }
  const tx_func *k = g->kernels[ki];
  if (call->nops != 1 + k->nparams + 7) {
    gen_error(g, call->span,
              "T.call_packed(\"%s\"): %u operands, expected %u (the kernel's %u "
              "parameters, grid, block and dynamic shared memory)",
              k->name, call->nops - 1, k->nparams + 7, k->nparams);
    return;
  }
  tx_sb_printf(o, "  {\n    /* launch %s */\n", k->name);
  for (uint32_t i = 0; i < k->nparams; i++) {
    const tx_expr *p = k->params[i];
    const char *ct = c_type(p->dtype);
    char dt[32];
    if (!ct) {
      gen_error(g, p->span.line ? p->span : k->span,
                "--emit=c-launcher: kernel '%s' parameter '%s' of type %s has no C type", k->name,
                p->u.var.name ? p->u.var.name : "?", tx_dtype_str(p->dtype, dt));
      continue;
    }
    const tx_expr *a = call->ops[1 + i];
    if (p->u.var.tensormap) {
      /* A by-value tensor map: the argument is the address of its 128
       * bytes, which cuLaunchKernelEx copies. */
      const binding *mb = a->kind == EXPR_VAR && a->u.var.tensormap ? lookup(g, a) : NULL;
      if (!mb) {
        gen_error(g, a->span.line ? a->span : call->span,
                  "--emit=c-launcher: kernel '%s' parameter %u is a tensor map, but the launch "
                  "passes something else",
                  k->name, i);
        continue;
      }
      if (mb->map == 1)
        gen_error(g, a->span.line ? a->span : call->span,
                  "tensor map '%s' reaches the launch of %s before %s encodes it",
                  a->u.var.name ? a->u.var.name : "?", k->name, TX_TENSORMAP_ENCODE_NAME);
      tx_sb_printf(o, "    void *tx_aot_a%u = (void *)%s;\n", i, mb->cname);
      if (!mb->map)
        tx_sb_printf(o,
                     "    if (!tx_aot_a%u)\n      return tx_aot_fail(err, err_cap, "
                     "TIRX_AOT_ERR_ARGUMENT, \"%s: tensor map '%s' is NULL\");\n",
                     i, g->f->name, a->u.var.name ? a->u.var.name : "?");
      continue;
    }
    tx_sb_printf(o, "    %s%stx_aot_a%u = ", ct, ct[strlen(ct) - 1] == '*' ? "" : " ", i);
    if (p->dtype.code == DT_HANDLE)
      tx_sb_puts(o, "(void *)");
    else
      tx_sb_printf(o, "(%s)", ct);
    emit_expr(g, o, a);
    tx_sb_puts(o, ";\n");
  }
  if (k->nparams) {
    tx_sb_puts(o, "    void *tx_aot_args[] = {");
    for (uint32_t i = 0; i < k->nparams; i++)
      tx_sb_printf(o, "%s%stx_aot_a%u", i ? ", " : "", k->params[i]->u.var.tensormap ? "" : "&", i);
    tx_sb_puts(o, "};\n");
  }
  tx_sb_puts(o, "    const int64_t tx_aot_dims[7] = {");
  for (uint32_t i = 0; i < 7; i++) {
    tx_sb_puts(o, i ? ", (int64_t)" : "(int64_t)");
    emit_expr(g, o, call->ops[1 + k->nparams + i]);
  }
  tx_sb_puts(o, "};\n");
  emit_dim3_attr(g, o, k, "tirx.cluster", "tx_aot_cluster");
  emit_dim3_attr(g, o, k, "tirx.preferred_cluster", "tx_aot_preferred");
  /* The device: the first tensor's (make-packed-api checked that all agree). */
  const char *device = "-1";
  for (uint32_t i = 0; i < g->f->nparams; i++)
    if (g->f->param_bufs && g->f->param_bufs[i]) {
      device = g->pnames[i];
      break;
    }
  int last = g->launched >= g->nlaunches;
  tx_sb_printf(o, "    %s tx_aot_launch(\"%s\", %d, ",
               last ? "return" : "const int tx_aot_rc =", g->f->name, ki);
  if (strcmp(device, "-1") == 0)
    tx_sb_puts(o, "-1");
  else
    tx_sb_printf(o, "%s->device.device_id", device);
  tx_sb_printf(o, ", tx_aot_dims, %s, %s, stream, %s, err, err_cap);\n",
               tx_func_attr(k, "tirx.cluster") ? "tx_aot_cluster" : "NULL",
               tx_func_attr(k, "tirx.preferred_cluster") ? "tx_aot_preferred" : "NULL",
               k->nparams ? "tx_aot_args" : "NULL");
  tx_sb_puts(o, last ? "  }\n" : "    if (tx_aot_rc) return tx_aot_rc;\n  }\n");
}

/* ---- one host function -------------------------------------------------------- */

/* The declaration `int f(const DLTensor *A, ..., char *err, size_t err_cap)`. */
static void emit_signature(gen *g, tx_strbuf *o) {
  const tx_func *f = g->f;
  tx_sb_printf(o, "int %s(", f->name);
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tx_expr *p = f->params[i];
    if (f->param_bufs && f->param_bufs[i]) {
      tx_sb_printf(o, "const DLTensor *%s, ", g->pnames[i]);
    } else {
      const char *ct = c_param_type(p->dtype);
      tx_sb_printf(o, "%s%s%s, ", ct ? ct : "void *", ct && ct[strlen(ct) - 1] == '*' ? "" : " ",
                   g->pnames[i]);
    }
  }
  tx_sb_puts(o, "void *stream, char *err, size_t err_cap)");
}

static void emit_header_doc(gen *g) {
  const tx_func *f = g->f;
  tx_strbuf *h = g->hdr;
  tx_sb_printf(h,
               "/* %s: checks every argument as the tirx-c runtime would, then launches\n"
               " * the kernel on `stream` (a CUstream; NULL: the legacy default stream).\n",
               f->name);
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tx_buffer *b = f->param_bufs ? f->param_bufs[i] : NULL;
    char dt[32];
    if (b) {
      tx_strbuf shape = {.alloc = tx_diag_allocator(g->diags)};
      for (uint32_t d = 0; d < b->ndim; d++) {
        if (d) tx_sb_puts(&shape, ", ");
        tx_print_expr(b->shape[d], &shape);
      }
      if (b->ndim == 1) tx_sb_putc(&shape, ',');
      tx_sb_printf(h, " *   %s: a CUDA tensor of %s, shape (%s)\n", g->pnames[i],
                   tx_dtype_str(b->dtype, dt), shape.data ? shape.data : "");
      if (shape.failed) h->failed = 1; /* the header would miss the shape */
      tx_sb_free(&shape);
    } else {
      tx_sb_printf(h, " *   %s: %s\n", g->pnames[i], tx_dtype_str(f->params[i]->dtype, dt));
    }
  }
  tx_sb_puts(h, " * Returns TIRX_AOT_OK, or a TIRX_AOT_ERR_* code with a message in err. */\n");
}

static void emit_host_func(gen *g, const tx_func *f) {
  g->f = f;
  g->nbinds = 0;
  g->launched = 0;
  g->nlaunches = f->body ? count_launches(f->body) : 0;
  if (f->nparams > MAX_NAMES / 2) {
    gen_error(g, f->span, "--emit=c-launcher: '%s' has too many parameters", f->name);
    return;
  }
  if (!tx_c_launcher_valid_prefix(f->name)) {
    gen_error(g, f->span, "--emit=c-launcher: '%s' is not usable as a C function name", f->name);
    return;
  }
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tx_expr *p = f->params[i];
    const tx_buffer *b = f->param_bufs ? f->param_bufs[i] : NULL;
    char dt[32];
    if (!b && !c_param_type(p->dtype)) {
      gen_error(g, p->span.line ? p->span : f->span,
                "--emit=c-launcher: parameter '%s' of type %s has no C type",
                p->u.var.name ? p->u.var.name : "?", tx_dtype_str(p->dtype, dt));
    }
    unique_name(g, p->u.var.name ? p->u.var.name : "arg", g->pnames[i]);
    bind(g, p, g->pnames[i], b ? BK_TENSOR : BK_SCALAR);
    /* The buffer's data variable reads the same pointer (A.data). */
    if (b && b->data && b->data != p) bind(g, b->data, g->pnames[i], BK_TENSOR);
  }
  emit_header_doc(g);
  emit_signature(g, g->hdr);
  tx_sb_puts(g->hdr, ";\n\n");

  tx_strbuf *o = g->src;
  emit_signature(g, o);
  tx_sb_puts(o, " {\n  char tx_aot_dt[32];\n  (void)tx_aot_dt;\n");
  /* A parameter only the kernel or only the checks read must not warn. */
  for (uint32_t i = 0; i < f->nparams; i++)
    tx_sb_printf(o, "  (void)%s;\n", g->pnames[i]);
  for (uint32_t i = 0; i < f->nsymbolic; i++) {
    const tx_expr *v = f->symbolic[i];
    const char *ct = c_type(v->dtype);
    char cname[NAME_CAP];
    if (!ct || !tx_dtype_is_int(v->dtype)) {
      gen_error(g, v->span, "--emit=c-launcher: symbolic variable '%s' must be an integer",
                v->u.var.name ? v->u.var.name : "?");
      continue;
    }
    unique_name(g, v->u.var.name ? v->u.var.name : "n", cname);
    /* Zero until its T.arg_bind; the void cast keeps a variable that only
     * the checks read from warning. */
    tx_sb_printf(o, "  %s %s = 0;\n  (void)%s;\n", ct, cname, cname);
    bind(g, v, cname, BK_SCALAR);
  }
  if (f->body) emit_stmt(g, f->body);
  if (!g->launched)
    gen_error(g, f->span, "--emit=c-launcher: host function '%s' launches no kernel", f->name);
  tx_sb_puts(o, "}\n\n");
}

/* ---- fixed text of the generated files ---------------------------------------- */

/* DLPack 1.1's structures, as include/tirx/dlpack.h declares them: with the
 * same guard, whichever of the real header and this one comes first wins,
 * and the layouts are the ABI's either way. */
static const char HDR_DLPACK[] =
    "#ifndef DLPACK_DLPACK_H_\n"
    "#define DLPACK_DLPACK_H_\n"
    "#define DLPACK_MAJOR_VERSION 1\n"
    "#define DLPACK_MINOR_VERSION 1\n"
    "typedef enum {\n"
    "  kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLOpenCL = 4, kDLVulkan = 7, kDLMetal = 8,\n"
    "  kDLVPI = 9, kDLROCM = 10, kDLROCMHost = 11, kDLExtDev = 12, kDLCUDAManaged = 13,\n"
    "  kDLOneAPI = 14, kDLWebGPU = 15, kDLHexagon = 16, kDLMAIA = 17\n"
    "} DLDeviceType;\n"
    "typedef struct {\n"
    "  DLDeviceType device_type;\n"
    "  int32_t device_id;\n"
    "} DLDevice;\n"
    "typedef enum {\n"
    "  kDLInt = 0U, kDLUInt = 1U, kDLFloat = 2U, kDLOpaqueHandle = 3U, kDLBfloat = 4U,\n"
    "  kDLComplex = 5U, kDLBool = 6U, kDLFloat8_e3m4 = 7U, kDLFloat8_e4m3 = 8U,\n"
    "  kDLFloat8_e4m3b11fnuz = 9U, kDLFloat8_e4m3fn = 10U, kDLFloat8_e4m3fnuz = 11U,\n"
    "  kDLFloat8_e5m2 = 12U, kDLFloat8_e5m2fnuz = 13U, kDLFloat8_e8m0fnu = 14U,\n"
    "  kDLFloat6_e2m3fn = 15U, kDLFloat6_e3m2fn = 16U, kDLFloat4_e2m1fn = 17U\n"
    "} DLDataTypeCode;\n"
    "typedef struct {\n"
    "  uint8_t code;\n"
    "  uint8_t bits;\n"
    "  uint16_t lanes;\n"
    "} DLDataType;\n"
    "typedef struct {\n"
    "  void *data;\n"
    "  DLDevice device;\n"
    "  int32_t ndim;\n"
    "  DLDataType dtype;\n"
    "  int64_t *shape;\n"
    "  int64_t *strides; /* in elements; NULL means compact row-major */\n"
    "  uint64_t byte_offset;\n"
    "} DLTensor;\n"
    "typedef struct DLManagedTensor {\n"
    "  DLTensor dl_tensor;\n"
    "  void *manager_ctx;\n"
    "  void (*deleter)(struct DLManagedTensor *self);\n"
    "} DLManagedTensor;\n"
    "typedef struct {\n"
    "  uint32_t major;\n"
    "  uint32_t minor;\n"
    "} DLPackVersion;\n"
    "#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)\n"
    "#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)\n"
    "#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)\n"
    "typedef struct DLManagedTensorVersioned {\n"
    "  DLPackVersion version;\n"
    "  void *manager_ctx;\n"
    "  void (*deleter)(struct DLManagedTensorVersioned *self);\n"
    "  uint64_t flags;\n"
    "  DLTensor dl_tensor;\n"
    "} DLManagedTensorVersioned;\n"
    "#endif /* DLPACK_DLPACK_H_ */\n\n";

static const char HDR_STATUS[] =
    "/* Status codes, shared by every tirx-c launcher (the values are tirx_status's). */\n"
    "#ifndef TIRX_AOT_STATUS_DEFINED\n"
    "#define TIRX_AOT_STATUS_DEFINED\n"
    "enum {\n"
    "  TIRX_AOT_OK = 0,\n"
    "  TIRX_AOT_ERR_IMAGE = 1,    /* the driver rejected the embedded PTX/cubin (JIT log in err) "
    "*/\n"
    "  TIRX_AOT_ERR_ARGUMENT = 2, /* an argument check failed, or a bad launch configuration */\n"
    "  TIRX_AOT_ERR_CUDA = 5      /* no driver or device, or another driver call failed */\n"
    "};\n"
    "#endif\n\n";

/* The generated source's fixed part: the driver API slice, its loading, the
 * per-device module state and the helpers the host functions call. It
 * expects TX_AOT_NUM_KERNELS, tx_aot_kernel_names, tx_aot_image and
 * TX_AOT_IMAGE_WHAT to be defined before it. */
static const char SRC_RUNTIME[] =
    "/* ---- the CUDA driver API, declared here so that no cuda.h is needed --------- */\n"
    "\n"
    "typedef int tx_aot_cu_result;\n"
    "typedef int tx_aot_cu_device;\n"
    "typedef struct CUctx_st *tx_aot_cu_context;\n"
    "typedef struct CUmod_st *tx_aot_cu_module;\n"
    "typedef struct CUfunc_st *tx_aot_cu_function;\n"
    "typedef struct CUstream_st *tx_aot_cu_stream;\n"
    "\n"
    "enum {\n"
    "  TX_AOT_CU_JIT_ERROR_LOG_BUFFER = 5,\n"
    "  TX_AOT_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,\n"
    "  TX_AOT_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,\n"
    "  TX_AOT_CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,\n"
    "  TX_AOT_CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION = 11,\n"
    "  TX_AOT_DEFAULT_DYN_SMEM = 48 * 1024, /* more needs an opt-in per function */\n"
    "  TX_AOT_MAX_DEVICES = 64\n"
    "};\n"
    "\n"
    "/* CUlaunchAttribute: the id padded to 8 bytes, then a 64-byte union. */\n"
    "typedef struct {\n"
    "  int id;\n"
    "  char pad[4];\n"
    "  union {\n"
    "    char pad[64];\n"
    "    void *align_;\n"
    "    struct {\n"
    "      unsigned int x, y, z;\n"
    "    } clusterDim;\n"
    "  } value;\n"
    "} tx_aot_cu_launch_attribute;\n"
    "\n"
    "/* CUlaunchConfig */\n"
    "typedef struct {\n"
    "  unsigned int gridDimX, gridDimY, gridDimZ;\n"
    "  unsigned int blockDimX, blockDimY, blockDimZ;\n"
    "  unsigned int sharedMemBytes;\n"
    "  tx_aot_cu_stream hStream;\n"
    "  tx_aot_cu_launch_attribute *attrs;\n"
    "  unsigned int numAttrs;\n"
    "} tx_aot_cu_launch_config;\n"
    "\n"
    "static struct {\n"
    "  tx_aot_cu_result (*Init)(unsigned int);\n"
    "  tx_aot_cu_result (*DeviceGet)(tx_aot_cu_device *, int);\n"
    "  tx_aot_cu_result (*DevicePrimaryCtxRetain)(tx_aot_cu_context *, tx_aot_cu_device);\n"
    "  tx_aot_cu_result (*DevicePrimaryCtxRelease)(tx_aot_cu_device);\n"
    "  tx_aot_cu_result (*CtxSetCurrent)(tx_aot_cu_context);\n"
    "  tx_aot_cu_result (*CtxGetDevice)(tx_aot_cu_device *); /* optional */\n"
    "  tx_aot_cu_result (*ModuleLoadDataEx)(tx_aot_cu_module *, const void *, unsigned int, int "
    "*,\n"
    "                                       void **);\n"
    "  tx_aot_cu_result (*ModuleUnload)(tx_aot_cu_module);\n"
    "  tx_aot_cu_result (*ModuleGetFunction)(tx_aot_cu_function *, tx_aot_cu_module, const char "
    "*);\n"
    "  tx_aot_cu_result (*FuncSetAttribute)(tx_aot_cu_function, int, int);\n"
    "  tx_aot_cu_result (*LaunchKernelEx)(const tx_aot_cu_launch_config *, tx_aot_cu_function,\n"
    "                                     void **, void **);\n"
    "  tx_aot_cu_result (*GetErrorName)(tx_aot_cu_result, const char **);\n"
    "  /* optional: CUDA 12.0+, needed by kernels with tensor maps */\n"
    "  tx_aot_cu_result (*TensorMapEncodeTiled)(void *, int, unsigned int, void *,\n"
    "                                           const unsigned long long *,\n"
    "                                           const unsigned long long *, const unsigned int *,\n"
    "                                           const unsigned int *, int, int, int, int);\n"
    "} tx_aot_cu;\n"
    "\n"
    "/* ---- errors ------------------------------------------------------------------ */\n"
    "\n"
    "static int tx_aot_fail(char *err, size_t cap, int code, const char *fmt, ...)\n"
    "    TX_AOT_PRINTF(4, 5);\n"
    "static int tx_aot_fail(char *err, size_t cap, int code, const char *fmt, ...) {\n"
    "  if (err && cap) {\n"
    "    va_list ap;\n"
    "    va_start(ap, fmt);\n"
    "    vsnprintf(err, cap, fmt, ap);\n"
    "    va_end(ap);\n"
    "  }\n"
    "  return code;\n"
    "}\n"
    "\n"
    "static const char *tx_aot_cu_name(tx_aot_cu_result r) {\n"
    "  const char *name = NULL;\n"
    "  if (!tx_aot_cu.GetErrorName || tx_aot_cu.GetErrorName(r, &name) != 0 || !name)\n"
    "    name = \"unknown CUresult\";\n"
    "  return name;\n"
    "}\n"
    "\n"
    "/* ---- loading the driver, once per process ----------------------------------- */\n"
    "\n"
    "static pthread_once_t tx_aot_driver_once = PTHREAD_ONCE_INIT;\n"
    "static int tx_aot_driver_status;\n"
    "static char tx_aot_driver_error[512];\n"
    "\n"
    "static void tx_aot_load_driver(void) {\n"
    "  /* Never closed: unloading the driver after cuInit is not safe. */\n"
    "  void *lib = dlopen(TIRX_AOT_CUDA_LIBRARY, RTLD_NOW | RTLD_LOCAL);\n"
    "  if (!lib) {\n"
    "    const char *why = dlerror();\n"
    "    snprintf(tx_aot_driver_error, sizeof tx_aot_driver_error, \"CUDA driver not found (%s): "
    "%s\",\n"
    "             TIRX_AOT_CUDA_LIBRARY, why ? why : \"dlopen failed\");\n"
    "    tx_aot_driver_status = TIRX_AOT_ERR_CUDA;\n"
    "    return;\n"
    "  }\n"
    "  struct {\n"
    "    const char *name, *alt;\n"
    "    void *slot;\n"
    "    int optional;\n"
    "  } syms[] = {\n"
    "      {\"cuInit\", NULL, &tx_aot_cu.Init, 0},\n"
    "      {\"cuDeviceGet\", NULL, &tx_aot_cu.DeviceGet, 0},\n"
    "      {\"cuDevicePrimaryCtxRetain\", NULL, &tx_aot_cu.DevicePrimaryCtxRetain, 0},\n"
    "      {\"cuDevicePrimaryCtxRelease_v2\", \"cuDevicePrimaryCtxRelease\",\n"
    "       &tx_aot_cu.DevicePrimaryCtxRelease, 0},\n"
    "      {\"cuCtxSetCurrent\", NULL, &tx_aot_cu.CtxSetCurrent, 0},\n"
    "      {\"cuCtxGetDevice\", NULL, &tx_aot_cu.CtxGetDevice, 1},\n"
    "      {\"cuModuleLoadDataEx\", NULL, &tx_aot_cu.ModuleLoadDataEx, 0},\n"
    "      {\"cuModuleUnload\", NULL, &tx_aot_cu.ModuleUnload, 0},\n"
    "      {\"cuModuleGetFunction\", NULL, &tx_aot_cu.ModuleGetFunction, 0},\n"
    "      {\"cuFuncSetAttribute\", NULL, &tx_aot_cu.FuncSetAttribute, 0},\n"
    "      {\"cuLaunchKernelEx\", NULL, &tx_aot_cu.LaunchKernelEx, 0},\n"
    "      {\"cuGetErrorName\", NULL, &tx_aot_cu.GetErrorName, 0},\n"
    "      {\"cuTensorMapEncodeTiled\", NULL, &tx_aot_cu.TensorMapEncodeTiled, 1},\n"
    "  };\n"
    "  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {\n"
    "    void *p = dlsym(lib, syms[i].name);\n"
    "    if (!p && syms[i].alt) p = dlsym(lib, syms[i].alt);\n"
    "    if (!p && syms[i].optional) continue;\n"
    "    if (!p) {\n"
    "      snprintf(tx_aot_driver_error, sizeof tx_aot_driver_error,\n"
    "               \"the CUDA driver (%s) lacks %s (too old?)\", TIRX_AOT_CUDA_LIBRARY,\n"
    "               syms[i].name);\n"
    "      tx_aot_driver_status = TIRX_AOT_ERR_CUDA;\n"
    "      return;\n"
    "    }\n"
    "    /* Copied, not cast: ISO C has no conversion from void * to a function pointer. */\n"
    "    memcpy(syms[i].slot, &p, sizeof p);\n"
    "  }\n"
    "  tx_aot_cu_result r = tx_aot_cu.Init(0);\n"
    "  if (r != 0) {\n"
    "    snprintf(tx_aot_driver_error, sizeof tx_aot_driver_error, \"cuInit failed: %s (%d)\",\n"
    "             tx_aot_cu_name(r), r);\n"
    "    tx_aot_driver_status = TIRX_AOT_ERR_CUDA;\n"
    "  }\n"
    "}\n"
    "\n"
    "/* ---- the module on each device, loaded on first use ------------------------ */\n"
    "\n"
    "typedef struct {\n"
    "  atomic_int ready; /* set (release) once the fields below are valid */\n"
    "  tx_aot_cu_device dev;\n"
    "  tx_aot_cu_context ctx; /* the device's primary context, retained */\n"
    "  tx_aot_cu_module mod;\n"
    "  tx_aot_cu_function fn[TX_AOT_NUM_KERNELS];\n"
    "  int64_t smem_optin[TX_AOT_NUM_KERNELS]; /* dynamic shared memory opted in so far */\n"
    "} tx_aot_dev;\n"
    "\n"
    "static tx_aot_dev tx_aot_devs[TX_AOT_MAX_DEVICES];\n"
    "static pthread_mutex_t tx_aot_lock = PTHREAD_MUTEX_INITIALIZER;\n"
    "\n"
    "/* Load the driver and the module on device `ordinal` (-1: the device of the\n"
    " * calling thread's current context, else 0). The fast path is one atomic load. */\n"
    "static int tx_aot_device(int ordinal, tx_aot_dev **out, char *err, size_t cap) {\n"
    "  pthread_once(&tx_aot_driver_once, tx_aot_load_driver);\n"
    "  if (tx_aot_driver_status)\n"
    "    return tx_aot_fail(err, cap, tx_aot_driver_status, \"%s\", tx_aot_driver_error);\n"
    "  if (ordinal < 0) {\n"
    "    tx_aot_cu_device cur = 0;\n"
    "    ordinal = tx_aot_cu.CtxGetDevice && tx_aot_cu.CtxGetDevice(&cur) == 0 ? cur : 0;\n"
    "  }\n"
    "  if (ordinal >= TX_AOT_MAX_DEVICES)\n"
    "    return tx_aot_fail(err, cap, TIRX_AOT_ERR_ARGUMENT, \"CUDA device %d: at most %d "
    "devices\",\n"
    "                       ordinal, TX_AOT_MAX_DEVICES);\n"
    "  tx_aot_dev *d = &tx_aot_devs[ordinal];\n"
    "  *out = d;\n"
    "  if (atomic_load_explicit(&d->ready, memory_order_acquire)) return TIRX_AOT_OK;\n"
    "  pthread_mutex_lock(&tx_aot_lock);\n"
    "  int rc = TIRX_AOT_OK;\n"
    "  if (!atomic_load_explicit(&d->ready, memory_order_relaxed)) {\n"
    "    tx_aot_cu_result r = tx_aot_cu.DeviceGet(&d->dev, ordinal);\n"
    "    const char *call = \"cuDeviceGet\";\n"
    "    int retained = 0;\n"
    "    if (r == 0) {\n"
    "      call = \"cuDevicePrimaryCtxRetain\";\n"
    "      r = tx_aot_cu.DevicePrimaryCtxRetain(&d->ctx, d->dev);\n"
    "      retained = r == 0;\n"
    "    }\n"
    "    if (r == 0) {\n"
    "      call = \"cuCtxSetCurrent\";\n"
    "      r = tx_aot_cu.CtxSetCurrent(d->ctx);\n"
    "    }\n"
    "    char log[4096] = \"\";\n"
    "    if (r == 0) {\n"
    "      /* The JIT error log is the only explanation of an image the driver refuses. */\n"
    "      int opts[2] = {TX_AOT_CU_JIT_ERROR_LOG_BUFFER, "
    "TX_AOT_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};\n"
    "      void *vals[2] = {log, (void *)(uintptr_t)(sizeof log - 1)};\n"
    "      call = \"cuModuleLoadDataEx\";\n"
    "      r = tx_aot_cu.ModuleLoadDataEx(&d->mod, tx_aot_image, 2, opts, vals);\n"
    "      log[sizeof log - 1] = '\\0';\n"
    "      if (r != 0) {\n"
    "        size_t n = strlen(log);\n"
    "        while (n && (log[n - 1] == '\\n' || log[n - 1] == ' ')) log[--n] = '\\0';\n"
    "        rc = tx_aot_fail(err, cap, r == 200 || r == 209 || r == 218 || r == 222\n"
    "                                       ? TIRX_AOT_ERR_IMAGE : TIRX_AOT_ERR_CUDA,\n"
    "                         \"cuModuleLoadDataEx failed: %s (%d) loading the embedded %s%s%s\",\n"
    "                         tx_aot_cu_name(r), r, TX_AOT_IMAGE_WHAT, *log ? \"; JIT log: \" : "
    "\"\",\n"
    "                         log);\n"
    "      }\n"
    "    }\n"
    "    for (int k = 0; r == 0 && k < TX_AOT_NUM_KERNELS; k++) {\n"
    "      r = tx_aot_cu.ModuleGetFunction(&d->fn[k], d->mod, tx_aot_kernel_names[k]);\n"
    "      if (r != 0) {\n"
    "        rc = tx_aot_fail(err, cap, TIRX_AOT_ERR_CUDA,\n"
    "                         \"cuModuleGetFunction failed: %s (%d) for kernel '%s'\",\n"
    "                         tx_aot_cu_name(r), r, tx_aot_kernel_names[k]);\n"
    "        tx_aot_cu.ModuleUnload(d->mod);\n"
    "      }\n"
    "      d->smem_optin[k] = TX_AOT_DEFAULT_DYN_SMEM;\n"
    "    }\n"
    "    if (r != 0 && rc == TIRX_AOT_OK)\n"
    "      rc = tx_aot_fail(err, cap, TIRX_AOT_ERR_CUDA, \"%s failed: %s (%d) on CUDA device "
    "%d\",\n"
    "                       call, tx_aot_cu_name(r), r, ordinal);\n"
    "    if (r != 0 && retained) tx_aot_cu.DevicePrimaryCtxRelease(d->dev);\n"
    "    if (r == 0) atomic_store_explicit(&d->ready, 1, memory_order_release);\n"
    "  }\n"
    "  pthread_mutex_unlock(&tx_aot_lock);\n"
    "  return rc;\n"
    "}\n"
    "\n"
    "/* ---- helpers of the argument checks ------------------------------------------ */\n"
    "\n"
    "/* strides[d] in elements; the compact row-major stride when strides is NULL. */\n"
    "static TX_AOT_UNUSED int64_t tx_aot_stride(const DLTensor *t, int d) {\n"
    "  if (t->strides) return t->strides[d];\n"
    "  int64_t s = 1;\n"
    "  for (int k = t->ndim - 1; k > d; k--) s *= t->shape[k];\n"
    "  return s;\n"
    "}\n"
    "\n"
    "/* Compact row-major (dimensions of extent 1 may have any stride). */\n"
    "static TX_AOT_UNUSED int tx_aot_compact(const DLTensor *t) {\n"
    "  if (!t->strides) return 1;\n"
    "  int64_t expect = 1;\n"
    "  for (int k = t->ndim - 1; k >= 0; k--) {\n"
    "    if (t->shape[k] != 1 && t->strides[k] != expect) return 0;\n"
    "    expect *= t->shape[k];\n"
    "  }\n"
    "  return 1;\n"
    "}\n"
    "\n"
    "/* Floor division and modulo as TIRx defines them (0 for a zero divisor,\n"
    " * where C would be undefined). */\n"
    "static TX_AOT_UNUSED int64_t tx_aot_floordiv(int64_t a, int64_t b) {\n"
    "  if (b == 0) return 0;\n"
    "  int64_t q = a / b;\n"
    "  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;\n"
    "}\n"
    "static TX_AOT_UNUSED int64_t tx_aot_floormod(int64_t a, int64_t b) {\n"
    "  if (b == 0) return 0;\n"
    "  int64_t r = a % b;\n"
    "  return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;\n"
    "}\n"
    "\n"
    "/* \"float32\", \"bfloat16\", \"float8_e4m3fn\", \"int8x4\": what a failed dtype check saw. "
    "*/\n"
    "static TX_AOT_UNUSED const char *tx_aot_dtype_name(DLDataType t, char *buf, size_t cap) {\n"
    "  static const char *const base[] = {\"int\", \"uint\", \"float\", \"handle\", \"bfloat\", "
    "\"complex\"};\n"
    "  static const char *const fixed[] = {\"bool\", \"float8_e3m4\", \"float8_e4m3\",\n"
    "                                      \"float8_e4m3b11fnuz\", \"float8_e4m3fn\",\n"
    "                                      \"float8_e4m3fnuz\", \"float8_e5m2\", "
    "\"float8_e5m2fnuz\",\n"
    "                                      \"float8_e8m0fnu\", \"float6_e2m3fn\", "
    "\"float6_e3m2fn\",\n"
    "                                      \"float4_e2m1fn\"};\n"
    "  int n;\n"
    "  if (t.code < 6)\n"
    "    n = snprintf(buf, cap, \"%s%u\", base[t.code], (unsigned)t.bits);\n"
    "  else if (t.code <= 17)\n"
    "    n = snprintf(buf, cap, \"%s\", fixed[t.code - 6]);\n"
    "  else\n"
    "    n = snprintf(buf, cap, \"code%u_%u\", (unsigned)t.code, (unsigned)t.bits);\n"
    "  if (t.lanes != 1 && n > 0 && (size_t)n < cap)\n"
    "    snprintf(buf + n, cap - (size_t)n, \"x%u\", (unsigned)t.lanes);\n"
    "  return buf;\n"
    "}\n"
    "\n"
    "/* ---- launching ---------------------------------------------------------------- */\n"
    "\n"
    "/* dims: grid x y z, block x y z, dynamic shared memory bytes. A grid or block\n"
    " * with a zero dimension (an empty tensor) launches nothing and succeeds. */\n"
    "static TX_AOT_UNUSED int tx_aot_launch(const char *func, int kernel, int device,\n"
    "                                       const int64_t dims[7], const int64_t *cluster,\n"
    "                                       const int64_t *preferred, void *stream, void **args,\n"
    "                                       char *err, size_t cap) {\n"
    "  const char *kname = tx_aot_kernel_names[kernel];\n"
    "  int empty = 0;\n"
    "  for (int i = 0; i < 7; i++) {\n"
    "    if (dims[i] < 0 || dims[i] > (int64_t)UINT32_MAX)\n"
    "      return tx_aot_fail(err, cap, TIRX_AOT_ERR_ARGUMENT,\n"
    "                         \"%s: the %s of kernel '%s' is out of range: %lld\", func,\n"
    "                         i < 3 ? \"grid\" : i < 6 ? \"block\" : \"dynamic shared memory "
    "size\",\n"
    "                         kname, (long long)dims[i]);\n"
    "    if (i < 6 && dims[i] == 0) empty = 1;\n"
    "  }\n"
    "  if (empty) return TIRX_AOT_OK;\n"
    "  tx_aot_dev *d = NULL;\n"
    "  int rc = tx_aot_device(device, &d, err, cap);\n"
    "  if (rc) return rc;\n"
    "  /* The primary context is the one the CUDA runtime, PyTorch and CuPy use. */\n"
    "  tx_aot_cu_result r = tx_aot_cu.CtxSetCurrent(d->ctx);\n"
    "  if (r != 0)\n"
    "    return tx_aot_fail(err, cap, TIRX_AOT_ERR_CUDA, \"cuCtxSetCurrent failed: %s (%d)\",\n"
    "                       tx_aot_cu_name(r), r);\n"
    "  if (dims[6] > TX_AOT_DEFAULT_DYN_SMEM) {\n"
    "    /* Beyond 48 KiB a kernel must opt in; the setting is per function and\n"
    "     * sticky, so it is raised only when a launch needs more than before. */\n"
    "    pthread_mutex_lock(&tx_aot_lock);\n"
    "    if (dims[6] > d->smem_optin[kernel]) {\n"
    "      r = tx_aot_cu.FuncSetAttribute(d->fn[kernel],\n"
    "                                     TX_AOT_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,\n"
    "                                     (int)dims[6]);\n"
    "      if (r == 0) d->smem_optin[kernel] = dims[6];\n"
    "    }\n"
    "    pthread_mutex_unlock(&tx_aot_lock);\n"
    "    if (r != 0)\n"
    "      return tx_aot_fail(err, cap, TIRX_AOT_ERR_ARGUMENT,\n"
    "                         \"cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) failed: %s (%d) "
    "\"\n"
    "                         \"for %lld bytes of dynamic shared memory in '%s'\",\n"
    "                         tx_aot_cu_name(r), r, (long long)dims[6], kname);\n"
    "  }\n"
    "  tx_aot_cu_launch_attribute attrs[2];\n"
    "  unsigned int nattrs = 0;\n"
    "  memset(attrs, 0, sizeof attrs);\n"
    "  const int64_t *clusters[2] = {cluster, preferred};\n"
    "  const int ids[2] = {TX_AOT_CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,\n"
    "                      TX_AOT_CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION};\n"
    "  for (int a = 0; a < 2; a++) {\n"
    "    if (!clusters[a]) continue;\n"
    "    for (int i = 0; i < 3; i++)\n"
    "      if (clusters[a][i] <= 0 || clusters[a][i] > 1024)\n"
    "        return tx_aot_fail(err, cap, TIRX_AOT_ERR_ARGUMENT,\n"
    "                           \"%s: the cluster of kernel '%s' is out of range: %lld\", func,\n"
    "                           kname, (long long)clusters[a][i]);\n"
    "    attrs[nattrs].id = ids[a];\n"
    "    attrs[nattrs].value.clusterDim.x = (unsigned int)clusters[a][0];\n"
    "    attrs[nattrs].value.clusterDim.y = (unsigned int)clusters[a][1];\n"
    "    attrs[nattrs].value.clusterDim.z = (unsigned int)clusters[a][2];\n"
    "    nattrs++;\n"
    "  }\n"
    "  tx_aot_cu_launch_config lc;\n"
    "  memset(&lc, 0, sizeof lc);\n"
    "  lc.gridDimX = (unsigned int)dims[0];\n"
    "  lc.gridDimY = (unsigned int)dims[1];\n"
    "  lc.gridDimZ = (unsigned int)dims[2];\n"
    "  lc.blockDimX = (unsigned int)dims[3];\n"
    "  lc.blockDimY = (unsigned int)dims[4];\n"
    "  lc.blockDimZ = (unsigned int)dims[5];\n"
    "  lc.sharedMemBytes = (unsigned int)dims[6];\n"
    "  lc.hStream = (tx_aot_cu_stream)stream;\n"
    "  lc.attrs = nattrs ? attrs : NULL;\n"
    "  lc.numAttrs = nattrs;\n"
    "  r = tx_aot_cu.LaunchKernelEx(&lc, d->fn[kernel], args, NULL);\n"
    "  if (r != 0)\n"
    "    return tx_aot_fail(err, cap, r == 1 || r == 701 || r == 912 ? TIRX_AOT_ERR_ARGUMENT\n"
    "                                                                : TIRX_AOT_ERR_CUDA,\n"
    "                       \"cuLaunchKernelEx failed: %s (%d) launching '%s' (grid %ux%ux%u, \"\n"
    "                       \"block %ux%ux%u, %u bytes dynamic shared memory%s)\",\n"
    "                       tx_aot_cu_name(r), r, kname, lc.gridDimX, lc.gridDimY, lc.gridDimZ,\n"
    "                       lc.blockDimX, lc.blockDimY, lc.blockDimZ, lc.sharedMemBytes,\n"
    "                       nattrs ? \", cluster\" : \"\");\n"
    "  return TIRX_AOT_OK;\n"
    "}\n\n";

/* The encoding of tensor maps, emitted when a host function makes one: the
 * rules TVM's runtime.cuTensorMapEncodeTiled checks before calling the
 * driver (the text of abi/tensormap_rules.h, TX_TENSORMAP_RULES_TEXT, comes
 * first), then cuTensorMapEncodeTiled in the device's primary context. v
 * holds dims[rank], strides[rank - 1], box[rank], elem_strides[rank],
 * interleave, swizzle, l2_promotion, oob_fill and force_dtype (-1: none). */
static const char SRC_TENSORMAP[] =
    "/* ---- tensor maps (runtime.cuTensorMapEncodeTiled) ------------------------ */\n"
    "\n"
    "static int tx_aot_encode_tensormap(const char *func, const char *name, void *map, int "
    "device,\n"
    "                                   int dtype, int bits, int rank, uint64_t addr,\n"
    "                                   const int64_t *v, char *err, size_t cap) {\n"
    "  tx_tensormap_values t;\n"
    "  char why[256] = \"\";\n"
    "  int i;\n"
    "  memset(&t, 0, sizeof t);\n"
    "  t.cu_dtype = dtype;\n"
    "  t.elem_bits = bits;\n"
    "  t.rank = (uint32_t)rank;\n"
    "  t.addr = addr;\n"
    "  for (i = 0; i < rank && i < TX_TENSORMAP_MAX_RANK; i++) {\n"
    "    t.dims[i] = v[i];\n"
    "    if (i + 1 < rank) t.strides[i] = v[rank + i];\n"
    "    t.box[i] = v[2 * rank - 1 + i];\n"
    "    t.elem_strides[i] = v[3 * rank - 1 + i];\n"
    "  }\n"
    "  t.interleave = v[4 * rank - 1];\n"
    "  t.swizzle = v[4 * rank];\n"
    "  t.l2_promotion = v[4 * rank + 1];\n"
    "  t.oob_fill = v[4 * rank + 2];\n"
    "  t.has_force = 1;\n"
    "  t.force_dtype = v[4 * rank + 3];\n"
    "  if (!tx_tensormap_rules(&t, why, sizeof why))\n"
    "    return tx_aot_fail(err, cap, TIRX_AOT_ERR_ARGUMENT,\n"
    "                       \"%s: runtime.cuTensorMapEncodeTiled for '%s': %s\", func, name, "
    "why);\n"
    "  tx_aot_dev *d = NULL;\n"
    "  int rc = tx_aot_device(device, &d, err, cap);\n"
    "  if (rc) return rc;\n"
    "  if (!tx_aot_cu.TensorMapEncodeTiled)\n"
    "    return tx_aot_fail(err, cap, TIRX_AOT_ERR_CUDA,\n"
    "                       \"%s: encoding tensor map '%s': the CUDA driver (%s) lacks \"\n"
    "                       \"cuTensorMapEncodeTiled, which tensor maps (TMA) need: a driver for "
    "\"\n"
    "                       \"CUDA 12.0 or newer is required\", func, name, "
    "TIRX_AOT_CUDA_LIBRARY);\n"
    "  unsigned long long gd[5] = {0}, gs[5] = {0};\n"
    "  unsigned int bd[5] = {0}, ed[5] = {0};\n"
    "  for (i = 0; i < rank && i < 5; i++) {\n"
    "    gd[i] = (unsigned long long)t.dims[i];\n"
    "    bd[i] = (unsigned int)t.box[i];\n"
    "    ed[i] = (unsigned int)t.elem_strides[i];\n"
    "    if (i + 1 < rank) gs[i] = (unsigned long long)t.strides[i];\n"
    "  }\n"
    "  tx_aot_cu_result r = tx_aot_cu.CtxSetCurrent(d->ctx);\n"
    "  if (r == 0)\n"
    "    r = tx_aot_cu.TensorMapEncodeTiled(map, tx_tensormap_driver_dtype(&t), (unsigned "
    "int)rank,\n"
    "                                       (void *)(uintptr_t)addr, gd, gs, bd, ed,\n"
    "                                       (int)t.interleave, (int)t.swizzle, "
    "(int)t.l2_promotion,\n"
    "                                       (int)t.oob_fill);\n"
    "  if (r != 0)\n"
    "    return tx_aot_fail(err, cap, r == 1 ? TIRX_AOT_ERR_ARGUMENT : TIRX_AOT_ERR_CUDA,\n"
    "                       \"%s: encoding tensor map '%s': cuTensorMapEncodeTiled failed: %s "
    "(%d)\",\n"
    "                       func, name, tx_aot_cu_name(r), r);\n"
    "  return TIRX_AOT_OK;\n"
    "}\n\n";

/* Does any host function encode a tensor map (so the source needs SRC_TENSORMAP)? */
static int module_encodes_tensormaps(const tx_module *m) {
  for (uint32_t i = 0; i < m->nfuncs; i++) {
    const tx_stmt *b = m->funcs[i]->body;
    const tx_stmt *const *items = b && b->kind == STMT_SEQ ? b->stmts : &b;
    uint32_t n = b && b->kind == STMT_SEQ ? b->nstmts : (b ? 1 : 0);
    for (uint32_t k = 0; k < n; k++)
      if (items[k]->kind == STMT_EVAL && items[k]->nexprs == 1 &&
          tx_tensormap_is_encode(items[k]->exprs[0]))
        return 1;
  }
  return 0;
}

/* ---- the whole launcher ------------------------------------------------------- */

static void emit_image(gen *g, const unsigned char *img, size_t len) {
  tx_strbuf *o = g->src;
  if (g->o->image_is_cubin) {
    /* 16-byte aligned: the driver reads the ELF image in place. */
    tx_sb_printf(o, "static _Alignas(16) const unsigned char tx_aot_image[%zu] = {", len);
    for (size_t i = 0; i < len; i++)
      tx_sb_printf(o, "%s%u,", i % 20 == 0 ? "\n    " : "", img[i]);
    tx_sb_puts(o, "\n};\n\n");
  } else {
    tx_sb_puts(o, "static const char tx_aot_image[] =\n    ");
    c_string(o, (const char *)img, len, 1);
    tx_sb_puts(o, ";\n\n");
  }
}

tirx_status tx_codegen_c_launcher(tx_diag_sink *diags, const tx_module *lowered, const void *image,
                                  size_t image_len, const tx_c_launcher_options *opts,
                                  tx_strbuf *src, tx_strbuf *hdr) {
  if (!diags || !lowered || !image || !opts || !src || !hdr || !opts->header_name ||
      !tx_c_launcher_valid_prefix(opts->prefix))
    return TIRX_ERR_USAGE;
  const tirx_allocator *alloc = tx_diag_allocator(diags);
  gen *g = tx_mem_calloc(alloc, 1, sizeof *g); /* the name tables are too big for the stack */
  if (!g) return TIRX_ERR_NOMEM;
  g->diags = diags;
  g->m = lowered;
  g->o = opts;
  g->src = src;
  g->hdr = hdr;
  const char *arch = opts->arch ? opts->arch : "?";
  const char *input = opts->source_name ? opts->source_name : "a TIRx module";
  tirx_span nospan = {0};

  uint32_t nhost = 0;
  for (uint32_t i = 0; i < lowered->nfuncs; i++) {
    const tx_func *f = lowered->funcs[i];
    if (tx_func_attr_true(f, "tirx.kernel")) {
      if (g->nkernels >= MAX_KERNELS) {
        gen_error(g, f->span, "--emit=c-launcher: too many kernels");
        break;
      }
      g->kernels[g->nkernels++] = f;
    } else if (!f->is_private && tx_func_attr_true(f, "tirx.packed_api")) {
      nhost++;
    }
  }
  if (!nhost) gen_error(g, nospan, "--emit=c-launcher: %s has no host function to export", input);

  /* ---- header ---- */
  char guard[96];
  snprintf(guard, sizeof guard, "TIRX_AOT_%s_H", opts->prefix);
  for (char *p = guard; *p; p++)
    if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
  tx_sb_printf(hdr,
               "/*\n * %s - generated by tirxc --emit=c-launcher from %s (%s). Do not edit.\n"
               " *\n"
               " * Launchers for the kernels of %s, with the %s embedded in %s's\n"
               " * source: no tirx-c header or library is needed to build or run them, only\n"
               " * libcuda.so.1 (dlopen'ed on first use), pthreads and libdl.\n"
               " *\n"
               " * Tensors are DLPack DLTensors (PyTorch, CuPy and NumPy export them); data\n"
               " * is used as is: byte_offset must be what the kernel declares (checked).\n"
               " * Launches go through the device's primary context (the one the CUDA runtime\n"
               " * and PyTorch use) of the first tensor's device, asynchronously on `stream`.\n"
               " * Every function is thread-safe; `err` (may be NULL) receives a message on\n"
               " * failure, truncated to err_cap bytes.\n"
               " */\n"
               "#ifndef %s\n#define %s\n\n#include <stddef.h>\n#include <stdint.h>\n\n",
               opts->header_name, input, arch, input, opts->image_is_cubin ? "cubin" : "PTX",
               opts->prefix, guard, guard);
  tx_sb_puts(hdr, HDR_DLPACK);
  tx_sb_puts(hdr, HDR_STATUS);
  tx_sb_puts(hdr, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  tx_sb_printf(hdr,
               "/* Load the driver and the module on the current context's device (else\n"
               " * device 0) now, instead of at the first launch: reports a missing driver or\n"
               " * an image the GPU cannot run early, and takes the JIT time out of the first\n"
               " * launch. Optional and idempotent. Returns TIRX_AOT_OK or an error code. */\n"
               "int %s_init(char *err, size_t err_cap);\n\n"
               "/* Unload the module from every device and release their primary contexts;\n"
               " * the next launch loads it again. Must not run concurrently with a launch. */\n"
               "void %s_shutdown(void);\n\n",
               opts->prefix, opts->prefix);

  /* ---- source: preamble, image, kernel table ---- */
  tx_sb_printf(src,
               "/*\n * Generated by tirxc --emit=c-launcher from %s (%s). Do not edit.\n"
               " * Build: cc -std=c11 -c this file; link with -ldl -lpthread (glibc < 2.34).\n"
               " * -DTIRX_AOT_CUDA_LIBRARY='\"path\"' loads another driver library (tests).\n"
               " */\n"
               "#ifndef _POSIX_C_SOURCE\n#define _POSIX_C_SOURCE 200809L /* dlopen, pthreads */\n"
               "#endif\n"
               "#include \"%s\"\n\n"
               "#include <dlfcn.h>\n#include <math.h>\n#include <pthread.h>\n#include <stdarg.h>\n"
               "#include <stdatomic.h>\n#include <stdint.h>\n#include <stdio.h>\n"
               "#include <string.h>\n\n"
               "#ifndef TIRX_AOT_CUDA_LIBRARY\n#define TIRX_AOT_CUDA_LIBRARY \"libcuda.so.1\"\n"
               "#endif\n\n"
               "#if defined(__GNUC__)\n"
               "#define TX_AOT_UNUSED __attribute__((unused))\n"
               "#define TX_AOT_PRINTF(f, a) __attribute__((format(printf, f, a)))\n"
               "/* The image is one long literal, beyond ISO C's minimum of 4095 characters. */\n"
               "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n"
               "#else\n#define TX_AOT_UNUSED\n#define TX_AOT_PRINTF(f, a)\n#endif\n\n",
               input, arch, opts->header_name);
  tx_sb_printf(src, "#define TX_AOT_IMAGE_WHAT \"%s for %s\"\n",
               opts->image_is_cubin ? "cubin" : "PTX", arch);
  tx_sb_printf(src, "#define TX_AOT_NUM_KERNELS %u\n\n", g->nkernels ? g->nkernels : 1);
  tx_sb_puts(src, "static const char *const tx_aot_kernel_names[TX_AOT_NUM_KERNELS] = {");
  for (uint32_t i = 0; i < g->nkernels; i++) {
    tx_sb_puts(src, i ? ", " : "");
    c_string(src, g->kernels[i]->name, strlen(g->kernels[i]->name), 0);
  }
  if (!g->nkernels) tx_sb_puts(src, "\"\"");
  tx_sb_puts(src, "};\n\n");
  emit_image(g, image, image_len);
  tx_sb_puts(src, SRC_RUNTIME);
  if (module_encodes_tensormaps(lowered)) {
    tx_sb_puts(
        src,
        "/* ---- abi/tensormap_rules.h, as tirx-c checks them --------------------------- */\n\n");
    tx_sb_puts(src, TX_TENSORMAP_RULES_TEXT);
    tx_sb_puts(src, "\n");
    tx_sb_puts(src, SRC_TENSORMAP);
  }

  /* ---- host functions ---- */
  tx_sb_puts(
      src, "/* ---- the host functions -------------------------------------------------- */\n\n");
  for (uint32_t i = 0; i < lowered->nfuncs && !g->errors; i++) {
    const tx_func *f = lowered->funcs[i];
    if (!tx_func_attr_true(f, "tirx.kernel") && !f->is_private &&
        tx_func_attr_true(f, "tirx.packed_api"))
      emit_host_func(g, f);
  }

  /* ---- init / shutdown ---- */
  tx_sb_printf(
      src,
      "int %s_init(char *err, size_t err_cap) {\n"
      "  tx_aot_dev *d = NULL;\n"
      "  return tx_aot_device(-1, &d, err, err_cap);\n"
      "}\n\n"
      "void %s_shutdown(void) {\n"
      "  pthread_mutex_lock(&tx_aot_lock);\n"
      "  for (int i = 0; i < TX_AOT_MAX_DEVICES; i++) {\n"
      "    tx_aot_dev *d = &tx_aot_devs[i];\n"
      "    if (!atomic_load_explicit(&d->ready, memory_order_relaxed)) continue;\n"
      "    tx_aot_cu.CtxSetCurrent(d->ctx); /* cuModuleUnload needs the module's context */\n"
      "    tx_aot_cu.ModuleUnload(d->mod);\n"
      "    tx_aot_cu.DevicePrimaryCtxRelease(d->dev);\n"
      "    atomic_store_explicit(&d->ready, 0, memory_order_relaxed);\n"
      "  }\n"
      "  pthread_mutex_unlock(&tx_aot_lock);\n"
      "}\n",
      opts->prefix, opts->prefix);
  tx_sb_printf(hdr, "#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s */\n", guard);

  int errors = g->errors;
  tx_mem_free(alloc, g);
  if (errors) return TIRX_ERR_INPUT;
  return src->failed || hdr->failed ? TIRX_ERR_NOMEM : TIRX_OK;
}
