/*
 * cuda.c - CUDA C for the device functions (attr "tirx.kernel") of a
 * lowered module, in the style of TVM's CUDA codegen (docs/codegen.md).
 *
 * The translation unit is: a minimal preamble (headers only for the 16-bit
 * and 8/6/4-bit float types actually used), T.cuda.func_call sources once
 * each, the device helpers used (exact floor division, PTX wrappers), then
 * one `extern "C" __global__` function per kernel. Kernels are emitted into
 * a separate buffer first because only then is it known which headers and
 * helpers they need.
 *
 * Names: every variable gets one C name per kernel, sanitized and made
 * unique with numeric suffixes in order of appearance, so output depends
 * only on the IR. Storage (parameters, allocations, the dynamic shared
 * arena) is looked up by the buffer's data variable, which is what views
 * share with the buffer they view.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "target/cuda/cuda_internal.h"
#include "ir/fold.h"
#include "ir/visit.h"
#include "abi/packed_api.h"

/* ---- small tables ---------------------------------------------------------- */

static void *grow(cuda_cg *g, void *items, uint32_t *cap, uint32_t len, size_t size) {
  if (len < *cap) return items;
  uint32_t ncap = *cap ? *cap * 2 : 32;
  void *p = tx_mem_realloc(tx_ir_alloc(&g->ir), items, ncap * size);
  if (!p) {
    g->nomem = 1;
    return NULL;
  }
  *cap = ncap;
  return p;
}

/* Reports a located error once. The generator writes an operand's text
 * once per lane or pair it is read in (docs/codegen.md "Vectors"), so a
 * problem in the operand is met once per lane: only the first report of a
 * message at a place (file, line, column: what the diagnostic shows) is
 * kept. */
void cuda_error(cuda_cg *g, tirx_span span, const char *fmt, ...) {
  g->failed = 1;
  /* After an allocation failure a missing name may be its doing; the
   * generator ends as out of memory anyway. */
  if (g->nomem) return;
  if (!span.line) span = g->stmt_span;
  tx_strbuf msg = cuda_sb(g);
  va_list ap;
  va_start(ap, fmt);
  tx_sb_vprintf(&msg, fmt, ap);
  va_end(ap);
  const char *text = cuda_sb_text(g, &msg);
  tx_strbuf key = cuda_sb(g);
  tx_sb_printf(&key, "%s:%u:%u:%s", span.file ? span.file : "", span.line, span.col, text);
  const char *k = tx_sb_cstr(&key) ? tx_intern(g->ir.strings, tx_sb_cstr(&key)) : NULL;
  if (!k) {
    g->nomem = 1;
  } else if (!tx_ptrmap_has(&g->reported, k)) {
    if (!tx_ptrset_add(&g->reported, k)) g->nomem = 1;
    tx_diag_report(g->diags, TIRX_SEV_ERROR, span, "%s", text);
  }
  tx_sb_free(&key);
  tx_sb_free(&msg);
}

/* Names that generated code cannot use for a variable: C/C++ keywords, CUDA
 * built-ins, types and the names the generator itself emits. */
static const char *const RESERVED[] = {
    "asm",       "auto",     "bool",     "break",    "case",     "char",     "class",
    "const",     "continue", "default",  "delete",   "do",       "double",   "else",
    "enum",      "extern",   "false",    "float",    "for",      "goto",     "half",
    "if",        "inline",   "int",      "long",     "max",      "min",      "namespace",
    "new",       "operator", "register", "restrict", "return",   "short",    "signed",
    "sizeof",    "smem",     "static",   "struct",   "switch",   "template", "this",
    "threadIdx", "blockIdx", "blockDim", "gridDim",  "true",     "typedef",  "union",
    "unsigned",  "using",    "void",     "volatile", "warpSize", "while",    "nv_bfloat16",
    "printf",
};

/* The reserved words, interned into g's strings so that a name check is a
 * pointer lookup. */
static void intern_reserved(cuda_cg *g) {
  for (size_t i = 0; i < sizeof RESERVED / sizeof *RESERVED; i++) {
    const char *s = tx_intern(g->ir.strings, RESERVED[i]);
    if (!s || !tx_ptrset_add(&g->reserved, s)) g->nomem = 1;
  }
}

/* `s` is interned, so taken names compare by pointer. */
static int name_taken(const cuda_cg *g, const char *s) {
  return tx_ptrmap_has(&g->taken, s) || tx_ptrmap_has(&g->reserved, s);
}

/* A valid, unused C identifier derived from `base` (+ `suffix`). */
static const char *unique_name(cuda_cg *g, const char *base, const char *suffix) {
  char buf[160];
  size_t n = 0;
  if (!base || !*base) base = "v";
  if (base[0] >= '0' && base[0] <= '9') buf[n++] = '_';
  for (const char *p = base; *p && n < 100; p++) {
    char c = *p;
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    buf[n++] = ok ? c : '_';
  }
  buf[n] = 0;
  if (suffix) strncat(buf, suffix, sizeof buf - n - 12);
  size_t len = strlen(buf);
  const char *s = tx_intern(g->ir.strings, buf);
  for (int k = 1; s && name_taken(g, s); k++) {
    snprintf(buf + len, sizeof buf - len, "_%d", k);
    s = tx_intern(g->ir.strings, buf);
  }
  if (!s || !tx_ptrset_add(&g->taken, s)) {
    g->nomem = 1;
    return "_";
  }
  return s;
}

const char *cuda_unique_name(cuda_cg *g, const char *base) {
  return unique_name(g, base, NULL);
}

static const char *bind_name(cuda_cg *g, const tx_expr *v, const char *suffix) {
  const char *c = unique_name(g, v->u.var.name, suffix);
  if (!tx_ptrmap_put(&g->names, v, (void *)c)) g->nomem = 1;
  return c;
}

static const char *lookup_name(const cuda_cg *g, const tx_expr *v) {
  return tx_ptrmap_get(&g->names, v);
}

static void add_storage(cuda_cg *g, cuda_storage s) {
  if (tx_ptrmap_has(&g->stor_of, s.data)) return;
  g->stor = grow(g, g->stor, &g->capstor, g->nstor, sizeof *g->stor);
  if (!g->stor) return;
  g->stor[g->nstor++] = s;
  if (!tx_ptrmap_put(&g->stor_of, s.data, (void *)(uintptr_t)g->nstor)) g->nomem = 1;
}

const cuda_storage *cuda_find_storage(cuda_cg *g, const tx_expr *data) {
  uintptr_t k = (uintptr_t)tx_ptrmap_get(&g->stor_of, data);
  return k ? &g->stor[k - 1] : NULL;
}

static void mark_nonneg(cuda_cg *g, const tx_expr *v) {
  if (!tx_ptrset_add(&g->nonneg, v)) g->nomem = 1;
}

/* Is e >= 0 for certain? Thread and block ids, loops counting up from a
 * non-negative start, unsigned values and closed combinations of those.
 * Used only to drop the exact floor-division form where it is not needed. */
static int nonneg(const cuda_cg *g, const tx_expr *e) {
  if (!e) return 0;
  if (e->dtype.code == DT_UINT || e->dtype.code == DT_BOOL) return 1;
  switch ((tx_expr_kind)e->kind) {
  case EXPR_INT:
    return e->u.ival >= 0;
  case EXPR_VAR:
    return tx_ptrmap_has(&g->nonneg, e);
  case EXPR_ADD:
  case EXPR_MUL:
  case EXPR_DIV:
  case EXPR_MOD:
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
  case EXPR_MIN:
    return tx_dtype_is_int(e->dtype) && nonneg(g, e->ops[0]) && nonneg(g, e->ops[1]);
  case EXPR_MAX:
    return tx_dtype_is_int(e->dtype) && (nonneg(g, e->ops[0]) || nonneg(g, e->ops[1]));
  case EXPR_SELECT:
    return nonneg(g, e->ops[1]) && nonneg(g, e->ops[2]);
  case EXPR_CAST:
    return tx_dtype_is_int(e->dtype) && tx_dtype_is_int(e->ops[0]->dtype) &&
           e->dtype.bits >= e->ops[0]->dtype.bits && nonneg(g, e->ops[0]);
  case EXPR_FLOAT:
  case EXPR_STRING:
  case EXPR_SUB:
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE:
  case EXPR_AND:
  case EXPR_OR:
  case EXPR_NOT:
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
    return 0;
  }
  return 0;
}

void cuda_need_helper(cuda_cg *g, tx_cuda_helper h) {
  g->helpers[h] = 1;
}

void cuda_add_source(cuda_cg *g, const tx_expr *src) {
  for (uint32_t i = 0; i < g->nsources; i++)
    if (g->sources[i] == src) return; /* the same node (lower-iket shares one) */
  for (uint32_t i = 0; i < g->nsources; i++)
    if (g->sources[i]->u.str.len == src->u.str.len &&
        memcmp(g->sources[i]->u.str.data, src->u.str.data, src->u.str.len) == 0)
      return;
  g->sources = grow(g, g->sources, &g->capsources, g->nsources, sizeof *g->sources);
  if (g->sources) g->sources[g->nsources++] = src;
}

void cuda_put_cstring(tx_strbuf *sb, const char *s, size_t n) {
  tx_sb_put_quoted(sb, s, n, TX_QUOTE_C, 0);
}

/* ---- types ------------------------------------------------------------------ */

const char *cuda_ctype(cuda_cg *g, tx_dtype t, tirx_span span) {
  const char *s = tx_cuda_type(t);
  if (!s) {
    char buf[32];
    cuda_error(g, span, "the type %s has no CUDA spelling", tx_dtype_str(t, buf));
    return "int";
  }
  g->features |= tx_cuda_type_features(t);
  if (t.code == DT_BOOL && t.lanes > 1) /* tx_boolN is defined in the preamble */
    cuda_need_helper(g, t.lanes == 2   ? H_BOOL2
                        : t.lanes == 3 ? H_BOOL3
                        : t.lanes == 4 ? H_BOOL4
                                       : H_BOOL8);
  return s;
}

const char *cuda_storage_ctype(cuda_cg *g, tx_dtype elem, tirx_span span) {
  return tx_cuda_is_packed_elem(elem) ? "unsigned char" : cuda_ctype(g, elem, span);
}

int cuda_ptr_elem(cuda_cg *g, const tx_expr *p, tx_dtype *elem) {
  const char *op = p->kind == EXPR_CALL ? p->u.call.op : NULL;
  size_t ol = op ? strlen(op) : 0;
  if (p->kind == EXPR_VAR) {
    const cuda_storage *s = cuda_find_storage(g, p);
    if (s && s->elem.code != DT_VOID) {
      *elem = s->elem;
      return 1;
    }
    /* a pointer variable of pointers counts bytes, as TVM's legacy forms */
    *elem = p->u.var.pointee;
    return p->u.var.has_pointee && elem->code != DT_VOID && elem->code != DT_HANDLE;
  } else if (op && strcmp(op, "T.address_of") == 0 && p->nops == 1 &&
             (p->ops[0]->kind == EXPR_LOAD || p->ops[0]->kind == EXPR_BUFFER)) {
    *elem = p->ops[0]->u.buffer->dtype;
  } else if (op && ol >= 7 && strcmp(op + ol - 7, ".ptr_to") == 0 && p->nops == 2 &&
             p->ops[0]->kind == EXPR_BUFFER) {
    *elem = p->ops[0]->u.buffer->dtype;
  } else if (op && strcmp(op, "T.tvm_access_ptr") == 0 && p->nops == 5) {
    *elem = cuda_access_ptr_dtype(p);
  } else {
    return 0;
  }
  return 1;
}

/* ---- literals ---------------------------------------------------------------- */

static void put_float_text(cuda_cg *g, tx_strbuf *sb, double v, int is_f32) {
  /* Whole numbers below 1e9 print as %.9g would, without its cost. */
  if (!signbit(v) && v < 1e9 && v == (double)(int64_t)v) {
    tx_sb_put_int(sb, (int64_t)v);
    tx_sb_puts(sb, is_f32 ? ".0f" : ".0");
    return;
  }
  /* Kernels repeat their constants (unrolled copies above all), and
   * snprintf's %g costs a microsecond: remember the last texts made. */
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  cuda_float_text *slot = &g->float_texts[(bits * 0x9e3779b97f4a7c15ull >> 60) % CUDA_FLOAT_CACHE];
  if (slot->len && slot->bits == bits && slot->is_f32 == is_f32) {
    tx_sb_putn(sb, slot->text, slot->len);
    return;
  }
  char buf[64];
  int n = snprintf(buf, sizeof buf, is_f32 ? "%.9g" : "%.17g", v);
  if (n < 0 || n > 40) n = 0; /* cannot happen for a finite double */
  if (!strpbrk(buf, ".e")) {
    memcpy(buf + n, ".0", 3);
    n += 2;
  }
  if (is_f32) {
    buf[n++] = 'f';
    buf[n] = 0;
  }
  tx_sb_putn(sb, buf, (size_t)n);
  *slot = (cuda_float_text){.bits = bits, .is_f32 = (uint8_t)is_f32, .len = (uint8_t)n};
  memcpy(slot->text, buf, (size_t)n);
}

static void emit_float(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  double v = e->u.fval;
  tx_dtype t = e->dtype;
  if (t.lanes != 1) {
    cuda_error(g, e->span, "vector float literals are not supported");
    return;
  }
  int f64 = t.code == DT_FLOAT && t.bits == 64;
  const char *wrap = NULL; /* conversion from a float literal */
  if (t.code == DT_FLOAT && t.bits == 16)
    wrap = "__float2half_rn";
  else if (t.code == DT_BFLOAT)
    wrap = "__float2bfloat16_rn";
  else if (!(t.code == DT_FLOAT && (t.bits == 32 || t.bits == 64)))
    wrap = cuda_ctype(g, t, e->span);
  g->features |= tx_cuda_type_features(t);
  /* Below float64 the text is a float literal, so it must be the value's
   * float32 rounding: a literal beyond FLT_MAX is inf (1e+39f would be an
   * ill-formed C++ literal). Finite values keep their own text. */
  if (!f64 && isinf(tx_fold_float_round(TX_FLOAT32, v))) v = tx_fold_float_round(TX_FLOAT32, v);
  if (wrap) cuda_open_call(sb, wrap);
  if (isnan(v)) {
    tx_sb_puts(sb,
               f64 ? "__longlong_as_double(0x7ff8000000000000LL)" : "__int_as_float(0x7fc00000)");
  } else if (isinf(v)) {
    if (f64)
      tx_sb_puts(sb, v > 0 ? "__longlong_as_double(0x7ff0000000000000LL)"
                           : "__longlong_as_double((long long)0xfff0000000000000ULL)");
    else
      tx_sb_puts(sb, v > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float((int)0xff800000u)");
  } else if (v < 0) {
    tx_sb_puts(sb, "(-");
    put_float_text(g, sb, -v, !f64);
    tx_sb_putc(sb, ')');
  } else {
    put_float_text(g, sb, v, !f64);
  }
  if (wrap) tx_sb_putc(sb, ')');
}

static void emit_int(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  tx_dtype t = e->dtype;
  int64_t v = e->u.ival;
  if (t.lanes != 1) {
    cuda_error(g, e->span, "vector integer literals are not supported");
    return;
  }
  if (tx_cuda_is_packed(t)) { /* a sub-byte value is held in an int */
    v = tx_fold_wrap(t, v);
    if (v < 0) tx_sb_putc(sb, '(');
    tx_sb_put_int(sb, v);
    if (v < 0) tx_sb_putc(sb, ')');
    return;
  }
  switch ((tx_dtype_code)t.code) {
  case DT_BOOL:
    tx_sb_puts(sb, v ? "true" : "false");
    return;
  case DT_UINT:
    if (t.bits == 64) {
      tx_sb_put_uint(sb, (uint64_t)v);
      tx_sb_puts(sb, "ULL");
    } else if (t.bits == 32) {
      tx_sb_put_uint(sb, (uint64_t)v & 0xffffffffu);
      tx_sb_putc(sb, 'U');
    } else
      tx_sb_printf(sb, "((%s)%" PRIu64 "U)", cuda_ctype(g, t, e->span), (uint64_t)v);
    return;
  case DT_INT:
    if (t.bits == 64) {
      if (v == INT64_MIN)
        tx_sb_puts(sb, "(-9223372036854775807LL - 1LL)");
      else if (v < 0)
        tx_sb_printf(sb, "(%" PRId64 "LL)", v);
      else
        tx_sb_printf(sb, "%" PRId64 "LL", v);
    } else if (t.bits == 32) {
      if (v == INT32_MIN)
        tx_sb_puts(sb, "(-2147483647 - 1)");
      else if (v < 0) {
        tx_sb_putc(sb, '(');
        tx_sb_put_int(sb, v);
        tx_sb_putc(sb, ')');
      } else {
        tx_sb_put_int(sb, v);
      }
    } else {
      tx_sb_printf(sb, "((%s)%" PRId64 ")", cuda_ctype(g, t, e->span), v);
    }
    return;
  case DT_FLOAT:
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
  case DT_E2M1FN: {
    /* An integer literal of float type: convert through a float literal. */
    tx_expr f = *e;
    f.kind = EXPR_FLOAT;
    f.u.fval = (double)v;
    emit_float(g, &f, sb);
    return;
  }
  case DT_HANDLE:
    if (v == 0)
      tx_sb_puts(sb, "((void*)0)");
    else
      cuda_error(g, e->span, "a non-null pointer constant cannot be emitted");
    return;
  case DT_VOID:
    cuda_error(g, e->span, "a void constant has no value");
    return;
  }
}

/* ---- buffer access ------------------------------------------------------------- */

/* A pointer to `b`'s elements typed as `elem` (the buffer's dtype), or NULL
 * (after an error) when the storage is unknown. */
int cuda_emit_ptr(cuda_cg *g, const tx_buffer *b, tx_dtype elem, tirx_span span, tx_strbuf *sb) {
  const cuda_storage *s = b->data ? cuda_find_storage(g, b->data) : NULL;
  if (!s) {
    cuda_error(g, span, "the storage of buffer '%s' is not available in this kernel",
               b->name ? b->name : "?");
    return 0;
  }
  cuda_emit_storage_ptr(g, s, elem, span, sb);
  return 1;
}

/* The storage's elements as a pointer to `elem` (cast where it differs). */
void cuda_emit_storage_ptr(cuda_cg *g, const cuda_storage *s, tx_dtype elem, tirx_span span,
                           tx_strbuf *sb) {
  const char *t = cuda_storage_ctype(g, elem, span);
  if (s->is_dyn) {
    if (s->byte_offset)
      tx_sb_printf(sb, "((%s*)(smem + %" PRId64 "))", t, s->byte_offset);
    else if (elem.code == DT_UINT && elem.bits == 8 && elem.lanes == 1)
      tx_sb_puts(sb, "smem");
    else
      tx_sb_printf(sb, "((%s*)smem)", t);
  } else if (tx_dtype_eq(s->elem, elem)) {
    tx_sb_puts(sb, s->cname);
  } else {
    tx_sb_printf(sb, "((%s*)%s)", t, s->cname);
  }
}

/* b[idx] for a scalar load or the left side of a scalar store. */
static void emit_access(cuda_cg *g, const tx_buffer *b, const tx_expr *idx, tirx_span span,
                        tx_strbuf *sb) {
  if (!cuda_emit_ptr(g, b, b->dtype, span, sb)) return;
  tx_sb_putc(sb, '[');
  cuda_emit_expr(g, idx, sb);
  tx_sb_putc(sb, ']');
}

static const tx_expr *flat_index(cuda_cg *g, const tx_buffer *b, const tx_expr *const *idx,
                                 uint32_t n, tirx_span span) {
  if (n != 1) {
    cuda_error(g, span,
               "buffer '%s' is accessed with %u indices; CUDA codegen expects flattened "
               "(one-dimensional) accesses",
               b->name ? b->name : "?", n);
    return NULL;
  }
  return idx[0];
}

/* ---- expressions ------------------------------------------------------------- */

const char *cuda_infix(tx_expr_kind k) {
  switch (k) {
  case EXPR_ADD:
    return "+";
  case EXPR_SUB:
    return "-";
  case EXPR_MUL:
    return "*";
  case EXPR_DIV:
    return "/";
  case EXPR_MOD:
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
    return "&&";
  case EXPR_OR:
    return "||";
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STRING:
  case EXPR_VAR:
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
  case EXPR_MIN:
  case EXPR_MAX:
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
    return NULL;
  }
  return NULL;
}

static void emit_fn2(cuda_cg *g, const char *fn, const tx_expr *a, const tx_expr *b,
                     tx_strbuf *sb) {
  cuda_open_call(sb, fn);
  cuda_emit_expr(g, a, sb);
  tx_sb_puts(sb, ", ");
  cuda_emit_expr(g, b, sb);
  tx_sb_putc(sb, ')');
}

static int is_f16(tx_dtype t) {
  return (t.code == DT_FLOAT && t.bits == 16) || t.code == DT_BFLOAT;
}

static void emit_floor(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const tx_expr *a = e->ops[0], *b = e->ops[1];
  int is_div = e->kind == EXPR_FLOORDIV;
  tx_dtype t = e->dtype;
  if (tx_dtype_is_float(t)) {
    const char *fl = t.bits == 64 ? "floor" : "floorf";
    if (t.bits != 32 && t.bits != 64) {
      cuda_error(g, e->span, "floor division on %s is not supported",
                 is_div ? "this float type" : "this float type");
      return;
    }
    if (is_div) {
      cuda_open_call(sb, fl);
      tx_sb_putc(sb, '(');
      cuda_emit_expr(g, a, sb);
      tx_sb_puts(sb, " / ");
      cuda_emit_expr(g, b, sb);
      tx_sb_puts(sb, "))");
    } else {
      tx_sb_puts(sb, "(");
      cuda_emit_expr(g, a, sb);
      tx_sb_printf(sb, " - (%s((", fl);
      cuda_emit_expr(g, a, sb);
      tx_sb_puts(sb, " / ");
      cuda_emit_expr(g, b, sb);
      tx_sb_puts(sb, ")) * ");
      cuda_emit_expr(g, b, sb);
      tx_sb_puts(sb, "))");
    }
    return;
  }
  if (!tx_dtype_is_int(t) || t.lanes != 1) {
    cuda_error(g, e->span, "floor division needs scalar integer or float operands");
    return;
  }
  /* Truncation equals flooring when neither side can be negative. */
  if (t.code == DT_UINT || (nonneg(g, a) && nonneg(g, b))) {
    tx_sb_putc(sb, '(');
    cuda_emit_expr(g, a, sb);
    tx_sb_puts(sb, is_div ? " / " : " % ");
    cuda_emit_expr(g, b, sb);
    tx_sb_putc(sb, ')');
    return;
  }
  int wide = t.bits == 64;
  cuda_need_helper(g, wide ? (is_div ? H_FLOORDIV_I64 : H_FLOORMOD_I64)
                           : (is_div ? H_FLOORDIV_I32 : H_FLOORMOD_I32));
  const char *fn = wide ? (is_div ? "tx_floordiv_i64" : "tx_floormod_i64")
                        : (is_div ? "tx_floordiv_i32" : "tx_floormod_i32");
  if (t.bits < 32) tx_sb_printf(sb, "((%s)", cuda_ctype(g, t, e->span));
  emit_fn2(g, fn, a, b, sb);
  if (t.bits < 32) tx_sb_putc(sb, ')');
}

static void emit_minmax(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  int is_min = e->kind == EXPR_MIN;
  tx_dtype t = e->dtype;
  const char *fn = is_min ? "min" : "max";
  if (t.lanes != 1) {
    cuda_emit_vector_op(g, e, sb);
    return;
  }
  if (t.code == DT_FLOAT && t.bits == 32)
    fn = is_min ? "fminf" : "fmaxf";
  else if (t.code == DT_FLOAT && t.bits == 64)
    fn = is_min ? "fmin" : "fmax";
  else if (is_f16(t))
    fn = is_min ? "__hmin" : "__hmax";
  else if (!tx_dtype_is_int(t)) {
    cuda_error(g, e->span, "min/max of this type is not supported");
    return;
  }
  emit_fn2(g, fn, e->ops[0], e->ops[1], sb);
}

void cuda_emit_select(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (e->dtype.lanes != 1) {
    cuda_emit_vector_op(g, e, sb);
    return;
  }
  tx_sb_putc(sb, '(');
  cuda_emit_expr(g, e->ops[0], sb);
  tx_sb_puts(sb, " ? ");
  cuda_emit_expr(g, e->ops[1], sb);
  tx_sb_puts(sb, " : ");
  cuda_emit_expr(g, e->ops[2], sb);
  tx_sb_putc(sb, ')');
}

void cuda_emit_expr(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!e) {
    tx_sb_puts(sb, "/*missing*/0");
    return;
  }
  tx_expr_kind k = (tx_expr_kind)e->kind;
  if (!cuda_packed_value_ok(g, e)) return;
  switch (k) {
  case EXPR_INT:
    emit_int(g, e, sb);
    return;
  case EXPR_FLOAT:
    emit_float(g, e, sb);
    return;
  case EXPR_STRING:
    cuda_put_cstring(sb, e->u.str.data, e->u.str.len);
    return;
  case EXPR_VAR: {
    const char *n = lookup_name(g, e);
    if (n) {
      tx_sb_puts(sb, n);
      return;
    }
    const cuda_storage *s = cuda_find_storage(g, e);
    if (s) {
      if (s->is_dyn) {
        if (s->byte_offset)
          tx_sb_printf(sb, "(smem + %" PRId64 ")", s->byte_offset);
        else
          tx_sb_puts(sb, "smem");
      } else {
        tx_sb_puts(sb, s->cname);
      }
      return;
    }
    cuda_error(g, e->span, "variable '%s' is not defined in the kernel",
               e->u.var.name ? e->u.var.name : "?");
    return;
  }
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
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
    if (e->dtype.lanes != 1 || e->ops[0]->dtype.lanes != 1 || e->ops[1]->dtype.lanes != 1) {
      cuda_emit_vector_op(g, e, sb);
      return;
    }
    if (k == EXPR_MOD && tx_dtype_is_float(e->dtype)) {
      emit_fn2(g, e->dtype.bits == 64 ? "fmod" : "fmodf", e->ops[0], e->ops[1], sb);
      return;
    }
    tx_sb_putc(sb, '(');
    cuda_emit_expr(g, e->ops[0], sb);
    tx_sb_putc(sb, ' ');
    tx_sb_puts(sb, cuda_infix(k));
    tx_sb_putc(sb, ' ');
    cuda_emit_expr(g, e->ops[1], sb);
    tx_sb_putc(sb, ')');
    return;
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
    emit_floor(g, e, sb);
    return;
  case EXPR_MIN:
  case EXPR_MAX:
    emit_minmax(g, e, sb);
    return;
  case EXPR_NOT:
    if (e->dtype.lanes != 1) {
      cuda_emit_vector_op(g, e, sb);
      return;
    }
    tx_sb_puts(sb, "(!");
    cuda_emit_expr(g, e->ops[0], sb);
    tx_sb_putc(sb, ')');
    return;
  case EXPR_SELECT:
    cuda_emit_select(g, e, sb);
    return;
  case EXPR_CAST:
    if (e->dtype.lanes != 1) {
      cuda_emit_vector_op(g, e, sb);
      return;
    }
    if (tx_cuda_is_packed(e->dtype)) {
      cuda_emit_packed_cast(g, e, sb);
      return;
    }
    tx_sb_printf(sb, "((%s)", cuda_ctype(g, e->dtype, e->span));
    cuda_emit_expr(g, e->ops[0], sb);
    tx_sb_putc(sb, ')');
    return;
  case EXPR_LOAD: {
    const tx_expr *idx = flat_index(g, e->u.buffer, e->ops, e->nops, e->span);
    if (idx && tx_cuda_is_packed_elem(e->u.buffer->dtype))
      cuda_emit_packed_load(g, e, idx, sb);
    else if (idx && idx->dtype.lanes > 1)
      cuda_emit_vector_op(g, e, sb); /* a vector access or a gather */
    else if (idx)
      emit_access(g, e->u.buffer, idx, e->span, sb);
    return;
  }
  case EXPR_RAMP:
  case EXPR_BROADCAST:
    cuda_emit_vector_op(g, e, sb);
    return;
  case EXPR_LET: {
    /* Pure expressions: the binder reads as its (parenthesised) value. */
    tx_strbuf val = cuda_sb(g);
    cuda_emit_expr(g, e->ops[0], &val);
    const char *text = cuda_sb_text(g, &val);
    char *paren = NULL;
    if (text) {
      size_t n = strlen(text);
      paren = tx_arena_alloc(g->ir.arena, n + 3);
      if (paren) {
        paren[0] = '(';
        memcpy(paren + 1, text, n);
        paren[n + 1] = ')';
        paren[n + 2] = 0;
      }
    }
    tx_sb_free(&val);
    if (!paren) {
      g->nomem = 1;
      return;
    }
    if (!tx_ptrmap_put(&g->names, e->u.binder, paren)) {
      g->nomem = 1;
      return;
    }
    cuda_note_modular(g, e->u.binder, cuda_modular(g, e->ops[0]));
    cuda_emit_expr(g, e->ops[1], sb);
    return;
  }
  case EXPR_CALL:
    cuda_emit_call(g, e, sb);
    return;
  case EXPR_BUFFER:
    cuda_emit_ptr(g, e->u.buffer, e->u.buffer->dtype, e->span, sb);
    return;
  case EXPR_REGION:
  case EXPR_TUPLE:
  case EXPR_SLICE:
  case EXPR_LAYOUT:
  case EXPR_LAMBDA:
  case EXPR_NONE:
  case TX_EXPR_KIND_COUNT:
    cuda_error(g, e->span, "%s cannot appear in device code here", tx_expr_kind_name(k));
    return;
  }
}

/* ---- statements ------------------------------------------------------------ */

static void line_done(cuda_cg *g, tirx_span span) {
  tx_sb_putc(g->out, '\n');
  if (!g->map) return;
  if (g->map->len == g->map->cap) {
    size_t cap = g->map->cap ? g->map->cap * 2 : 64;
    tirx_span *p = tx_mem_realloc(g->map->alloc, g->map->lines, cap * sizeof *p);
    if (!p) {
      g->nomem = 1;
      return;
    }
    g->map->lines = p;
    g->map->cap = cap;
  }
  g->map->lines[g->map->len++] = span;
}

static void put_indent(cuda_cg *g) {
  static const char spaces[] = "                                ";
  size_t n = (size_t)(g->indent > 0 ? g->indent : 0) * 2;
  for (; n > sizeof spaces - 1; n -= sizeof spaces - 1)
    tx_sb_putn(g->out, spaces, sizeof spaces - 1);
  tx_sb_putn(g->out, spaces, n);
}

void cuda_line(cuda_cg *g, tirx_span span, const char *fmt, ...) {
  put_indent(g);
  va_list ap;
  va_start(ap, fmt);
  tx_sb_vprintf(g->out, fmt, ap);
  va_end(ap);
  line_done(g, span);
}

/* `prefix EXPR suffix` on one line. Expressions never emit lines of their
 * own, so the expression is written straight into the output. */
static void expr_line(cuda_cg *g, tirx_span span, const char *prefix, const tx_expr *e,
                      const char *suffix) {
  put_indent(g);
  tx_sb_puts(g->out, prefix);
  cuda_emit_expr(g, e, g->out);
  tx_sb_puts(g->out, suffix);
  line_done(g, span);
}

static void emit_stmt(cuda_cg *g, const tx_stmt *s);

/* `if (x)` rather than `if ((x))`: drop one pair of parentheses when they
 * enclose the whole condition. */
static void cond_line(cuda_cg *g, tirx_span span, const char *prefix, const tx_expr *e,
                      const char *suffix) {
  put_indent(g);
  tx_sb_puts(g->out, prefix);
  size_t at = g->out->len;
  cuda_emit_expr(g, e, g->out);
  char *t = g->out->failed ? NULL : g->out->data + at;
  size_t n = g->out->len - at;
  if (t && n >= 2 && t[0] == '(' && t[n - 1] == ')') {
    int depth = 0, whole = 1;
    for (size_t i = 0; i < n; i++) {
      depth += t[i] == '(' ? 1 : t[i] == ')' ? -1 : 0;
      if (depth == 0 && i + 1 < n) {
        whole = 0;
        break;
      }
    }
    /* String literals never occur in conditions, so counting is exact. */
    if (whole) {
      memmove(t, t + 1, n - 2);
      g->out->len -= 2;
      g->out->data[g->out->len] = '\0';
    }
  }
  tx_sb_puts(g->out, suffix);
  line_done(g, span);
}

static void emit_block(cuda_cg *g, const tx_stmt *s);

/* if / else if / else chains keep one level of indentation. */
static void emit_if(cuda_cg *g, const tx_stmt *s, const char *prefix) {
  cond_line(g, s->span, prefix, s->exprs[0], ") {");
  emit_block(g, s->stmts[0]);
  const tx_stmt *els = s->nstmts > 1 ? s->stmts[1] : NULL;
  if (els && els->kind == STMT_SEQ && els->nstmts == 1) els = els->stmts[0];
  if (els && els->kind == STMT_IF) {
    emit_if(g, els, "} else if (");
    return;
  }
  if (els) {
    cuda_line(g, s->span, "} else {");
    emit_block(g, els);
  }
  cuda_line(g, s->span, "}");
}

static void emit_block(cuda_cg *g, const tx_stmt *s) {
  g->indent++;
  emit_stmt(g, s);
  g->indent--;
}

/* The alignment of a local packed array of `bytes` bytes: the widest
 * packed access that fits in it (1, 2, 4, 8 or 16 bytes). */
static int packed_align(int64_t bytes) {
  int a = 1;
  while (a < 16 && a < bytes)
    a *= 2;
  return a;
}

static void emit_alloc(cuda_cg *g, const tx_stmt *s) {
  const tx_buffer *b = s->buffer;
  const char *scope = b->scope ? b->scope : "global";
  if (strcmp(scope, "shared.dyn") == 0) {
    /* Laid out up front (emit_kernel); nothing to declare here. */
    if (!cuda_find_storage(g, b->data))
      tx_internal_error(g->diags, "codegen-cuda", "shared.dyn buffer '%s' missing from the arena",
                        b->name ? b->name : "?");
    return;
  }
  int shared = strcmp(scope, "shared") == 0;
  if (!shared && strcmp(scope, "local") != 0) {
    cuda_error(g, s->span, "cannot allocate buffer '%s' with scope \"%s\" inside a kernel",
               b->name ? b->name : "?", scope);
    return;
  }
  /* The element count in 64 bits: it is the printed array extent, which
   * must not wrap (verify-memory has checked it against the target). */
  int64_t n = 0, bytes = 0;
  int known = tx_cuda_buffer_numel(b, &n);
  if (known > 0) known = tx_cuda_buffer_bytes(b, &bytes);
  if (known == 0) {
    cuda_error(g, s->span, "%s buffer '%s' needs a constant extent", scope,
               b->name ? b->name : "?");
    return;
  }
  const char *name = bind_name(g, b->data, "_ptr");
  const char *t = cuda_storage_ctype(g, b->dtype, s->span);
  /* A shared array is as aligned as its alignas; a local one only as its
   * elements (it usually lives in registers anyway). */
  int64_t align = shared ? cuda_pow2_align(b->align ? b->align : 64)
                         : cuda_pow2_align(tx_cuda_elem_bytes(b->dtype));
  add_storage(g, (cuda_storage){.data = b->data,
                                .cname = name,
                                .elem = b->dtype,
                                .align = align,
                                .is_shared = shared,
                                .is_local = !shared});
  if (known < 0) { /* the storage is known, so its uses report nothing more */
    tx_cuda_report_bad_size(g->diags, s->span, b, known);
    g->failed = 1;
    return;
  }
  int packed = tx_cuda_is_packed_elem(b->dtype);
  if (packed) n = bytes; /* bytes of packed elements */
  if (shared)
    cuda_line(g, s->span, "__shared__ alignas(%" PRId64 ") %s %s[%" PRId64 "];",
              b->align ? b->align : 64, t, name, n);
  else if (packed) /* aligned for its widest packed word (16 bytes at most) */
    cuda_line(g, s->span, "alignas(%d) %s %s[%" PRId64 "];", packed_align(bytes), t, name, n);
  else
    cuda_line(g, s->span, "%s %s[%" PRId64 "];", t, name, n);
}

static const char *launch_tag_expr(const char *tag) {
  static const char *const tags[][2] = {
      {"threadIdx.x", "((int)threadIdx.x)"}, {"threadIdx.y", "((int)threadIdx.y)"},
      {"threadIdx.z", "((int)threadIdx.z)"}, {"blockIdx.x", "((int)blockIdx.x)"},
      {"blockIdx.y", "((int)blockIdx.y)"},   {"blockIdx.z", "((int)blockIdx.z)"},
  };
  for (size_t i = 0; i < sizeof tags / sizeof *tags; i++)
    if (strcmp(tags[i][0], tag) == 0) return tags[i][1];
  return NULL;
}

/* TVM's clusterCtaIdx.{x,y,z}: the CTA's coordinate in its cluster, read
 * from %cluster_ctaid; for x in a cluster that is (n, 1, 1) TVM reads
 * %cluster_ctarank, the same value. The call text is built in `sb`; NULL
 * for another tag. */
static const char *cluster_tag_expr(cuda_cg *g, const char *tag, tx_strbuf *sb) {
  static const char prefix[] = "clusterCtaIdx.";
  size_t n = sizeof prefix - 1;
  if (strncmp(tag, prefix, n) != 0 || tag[n] < 'x' || tag[n] > 'z' || tag[n + 1]) return NULL;
  char reg[32];
  if (tag[n] == 'x' && g->cluster_x_is_rank)
    snprintf(reg, sizeof reg, "%%cluster_ctarank");
  else
    snprintf(reg, sizeof reg, "%%cluster_ctaid.%c", tag[n]);
  if (!cuda_emit_sreg(g, reg, sb)) return NULL;
  return cuda_sb_text(g, sb);
}

static int is_used(const cuda_cg *g, const tx_expr *v);

static int is_call(const tx_expr *e, const char *op) {
  return e && e->kind == EXPR_CALL && strcmp(e->u.call.op, op) == 0;
}

static int note_call(tx_visitor *vis, const tx_expr *e) {
  if (e->kind == EXPR_CALL) vis->stop = 1;
  return 1;
}

/* Does evaluating `e` call anything (which may have effects)? */
static int has_call(const tx_expr *e) {
  tx_visitor vis = {.pre_expr = note_call};
  tx_visit_expr(&vis, e);
  return vis.stop;
}

void cuda_put_pointer_type(cuda_cg *g, tx_dtype pointee, int has_pointee, tirx_span span,
                           tx_strbuf *sb) {
  tx_sb_puts(sb, has_pointee && pointee.code != DT_VOID ? cuda_storage_ctype(g, pointee, span)
                                                        : "void");
  tx_sb_putc(sb, '*');
}

/* `ptr: T.let = T.reinterpret(T.handle("uint64", "shared"), x)` in device
 * code: a C pointer variable of the variable's pointer type (void* when it
 * has none), registered as storage so that a buffer declared on it
 * (T.decl_buffer(..., data=ptr)) indexes through it. The value is cast to
 * that type unless it is a T.reinterpret to exactly that type already. The
 * scope only says how raw PTX passes the address (shared: 32 bits); the
 * pointer itself is a generic address, so loads and stores through it are
 * right for any memory it points to (a mapa'd peer CTA's shared memory
 * included). */
static void emit_pointer_bind(cuda_cg *g, const tx_stmt *s, const tx_expr *v, const tx_expr *val) {
  const tx_var_info *vi = &v->u.var;
  if (vi->tensormap) {
    cuda_error(g, s->span,
               "a tensor map ('%s') cannot be bound in device code; pass it to the kernel as a "
               "T.TensorMap() parameter",
               vi->name ? vi->name : "?");
    return;
  }
  if (!val) {
    cuda_error(g, s->span, "pointer variable '%s' needs a value", vi->name ? vi->name : "?");
    return;
  }
  tx_strbuf ty = cuda_sb(g), sb = cuda_sb(g);
  cuda_put_pointer_type(g, vi->pointee, vi->has_pointee, s->span, &ty);
  tx_dtype pointee;
  int has;
  const char *scope;
  int same = val->kind == EXPR_CALL && tx_expr_pointer_type(val, &pointee, &has, &scope) &&
             has == vi->has_pointee && (!has || tx_dtype_eq(pointee, vi->pointee));
  const char *t = cuda_sb_text(g, &ty);
  if (!same) tx_sb_printf(&sb, "(%s)", t ? t : "void*");
  cuda_emit_expr(g, val, &sb);
  const char *name = bind_name(g, v, NULL);
  /* Where the pointer points is not known: only its elements' alignment. */
  tx_dtype elem = vi->has_pointee ? vi->pointee : TX_VOID;
  add_storage(g, (cuda_storage){.data = v,
                                .cname = name,
                                .elem = elem,
                                .align = cuda_pow2_align(tx_cuda_elem_bytes(elem)),
                                .is_shared = vi->scope && strncmp(vi->scope, "shared", 6) == 0});
  const char *txt = cuda_sb_text(g, &sb);
  cuda_line(g, s->span, "%s %s = %s;", t ? t : "void*", name, txt ? txt : "");
  tx_sb_free(&ty);
  tx_sb_free(&sb);
}

static void emit_bind(cuda_cg *g, const tx_stmt *s) {
  const tx_expr *v = s->nvars ? s->vars[0] : NULL;
  if (!v) return;
  const tx_expr *val = s->nexprs ? s->exprs[0] : NULL;
  /* An unread binding of a pure value would only draw "unused variable". */
  if (val && !has_call(val) && !is_used(g, v)) return;
  /* `t = T.launch_thread(...)`, or `t = T.Cast(dt, T.launch_thread(...))`
   * for an id of another dtype (T.thread_id(..., dtype="uint32")). */
  const tx_expr *cast = NULL;
  if (val && val->kind == EXPR_CAST && val->nops == 1 && is_call(val->ops[0], "T.launch_thread")) {
    cast = val;
    val = val->ops[0];
  }
  if (is_call(val, "T.launch_thread")) {
    if (!is_used(g, v)) return;
    const tx_expr *tag = val->nops ? val->ops[0] : NULL;
    const char *c = tag && tag->kind == EXPR_STRING ? launch_tag_expr(tag->u.str.data) : NULL;
    tx_strbuf sreg = cuda_sb(g);
    if (!c && tag && tag->kind == EXPR_STRING) c = cluster_tag_expr(g, tag->u.str.data, &sreg);
    if (!c) {
      tx_sb_free(&sreg);
      cuda_error(g, val->span,
                 "T.launch_thread needs a tag threadIdx.{x,y,z}, blockIdx.{x,y,z} or "
                 "clusterCtaIdx.{x,y,z}");
      return;
    }
    const char *name = bind_name(g, v, NULL);
    mark_nonneg(g, v);
    const char *t = cuda_ctype(g, v->dtype, s->span);
    if (cast)
      cuda_line(g, s->span, "%s %s = (%s)%s;", t, name, t, c);
    else
      cuda_line(g, s->span, "%s %s = %s;", t, name, c);
    tx_sb_free(&sreg);
    return;
  }
  if (v->dtype.code == DT_HANDLE) {
    emit_pointer_bind(g, s, v, val);
    return;
  }
  if (val && nonneg(g, val)) mark_nonneg(g, v);
  /* an immutable binding (BIND_SCALAR is sugar for a variable STMT_ASSIGN rewrites) */
  if (val && (s->flag == BIND_PLAIN || s->flag == BIND_LET || s->flag == BIND_LET_TYPED))
    cuda_note_modular(g, v, cuda_modular(g, val));
  if (val && val->dtype.lanes > 1) cuda_vector_temps(g, s->span, val, 1);
  tx_strbuf sb = cuda_sb(g);
  if (val) cuda_emit_expr(g, val, &sb);
  const char *t = cuda_ctype(g, v->dtype, s->span);
  const char *name = bind_name(g, v, NULL);
  const char *txt = cuda_sb_text(g, &sb);
  if (val)
    cuda_line(g, s->span, "%s %s = %s;", t, name, txt ? txt : "");
  else
    cuda_line(g, s->span, "%s %s;", t, name);
  tx_sb_free(&sb);
  cuda_vector_temps_done(g);
}

static void emit_for(cuda_cg *g, const tx_stmt *s) {
  const tx_expr *v = s->vars[0];
  /* exprs: begin, end [, step], then keyword annotations (kw.npos counts the first). */
  uint32_t npos = s->kw.npos ? s->kw.npos : s->nexprs;
  const tx_expr *begin = s->exprs[0], *end = npos > 1 ? s->exprs[1] : NULL,
                *step = npos > 2 ? s->exprs[2] : NULL;
  if (!end) {
    end = begin;
    begin = NULL;
  }
  if (s->flag == FOR_THREAD_BINDING) {
    const char *c = s->name ? launch_tag_expr(s->name) : NULL;
    if (!c) {
      cuda_error(g, s->span, "thread binding to '%s' is not supported", s->name ? s->name : "?");
      return;
    }
    cuda_line(g, s->span, "{");
    g->indent++;
    const char *name = bind_name(g, v, NULL);
    mark_nonneg(g, v);
    if (begin && !(begin->kind == EXPR_INT && begin->u.ival == 0)) {
      tx_strbuf sb = cuda_sb(g);
      cuda_emit_expr(g, begin, &sb);
      const char *b = cuda_sb_text(g, &sb);
      cuda_line(g, s->span, "%s %s = (%s + %s);", cuda_ctype(g, v->dtype, s->span), name, c,
                b ? b : "");
      tx_sb_free(&sb);
    } else {
      cuda_line(g, s->span, "%s %s = %s;", cuda_ctype(g, v->dtype, s->span), name, c);
    }
    emit_stmt(g, s->stmts[0]);
    g->indent--;
    cuda_line(g, s->span, "}");
    return;
  }
  int step_neg = step && step->kind == EXPR_INT && step->u.ival < 0;
  if ((!begin || nonneg(g, begin)) && (!step || (step->kind == EXPR_INT && step->u.ival > 0)))
    mark_nonneg(g, v);
  cuda_note_loop_var(g, v, begin, step);
  const char *name = bind_name(g, v, NULL);
  tx_strbuf sb = cuda_sb(g);
  tx_sb_printf(&sb, "for (%s %s = ", cuda_ctype(g, v->dtype, s->span), name);
  if (begin)
    cuda_emit_expr(g, begin, &sb);
  else
    tx_sb_putc(&sb, '0');
  tx_sb_printf(&sb, "; %s %s ", name, step_neg ? ">" : "<");
  cuda_emit_expr(g, end, &sb);
  if (step) {
    tx_sb_printf(&sb, "; %s += ", name);
    cuda_emit_expr(g, step, &sb);
    tx_sb_puts(&sb, ") {");
  } else {
    tx_sb_printf(&sb, "; ++%s) {", name);
  }
  if (s->flag == FOR_UNROLL) cuda_line(g, s->span, "#pragma unroll");
  const char *t = cuda_sb_text(g, &sb);
  cuda_line(g, s->span, "%s", t ? t : "");
  tx_sb_free(&sb);
  emit_block(g, s->stmts[0]);
  cuda_line(g, s->span, "}");
}

static void emit_store(cuda_cg *g, const tx_stmt *s) {
  const tx_expr *idx = flat_index(g, s->buffer, s->exprs + 1, s->nexprs - 1, s->span);
  if (!idx) return;
  if (tx_cuda_is_packed_elem(s->buffer->dtype)) {
    cuda_emit_packed_store(g, s, idx); /* packed words, or one element */
    return;
  }
  if (idx->dtype.lanes > 1) {
    cuda_emit_vector_store(g, s, idx); /* a vector store or a scatter */
    return;
  }
  /* Straight into the output, as expr_line does. */
  put_indent(g);
  emit_access(g, s->buffer, idx, s->span, g->out);
  tx_sb_puts(g->out, " = ");
  cuda_emit_expr(g, s->exprs[0], g->out);
  tx_sb_putc(g->out, ';');
  line_done(g, s->span);
}

static void emit_stmt_kind(cuda_cg *g, const tx_stmt *s);

static void emit_stmt(cuda_cg *g, const tx_stmt *s) {
  if (!s) return;
  tirx_span outer = g->stmt_span;
  if (s->span.line) g->stmt_span = s->span;
  emit_stmt_kind(g, s);
  g->stmt_span = outer;
}

static void emit_stmt_kind(cuda_cg *g, const tx_stmt *s) {
  tx_stmt_kind k = (tx_stmt_kind)s->kind;
  switch (k) {
  case STMT_SEQ:
    for (uint32_t i = 0; i < s->nstmts; i++)
      emit_stmt(g, s->stmts[i]);
    return;
  case STMT_STORE:
    emit_store(g, s);
    return;
  case STMT_BIND:
    emit_bind(g, s);
    return;
  case STMT_ASSIGN: {
    const char *n = s->nvars ? lookup_name(g, s->vars[0]) : NULL;
    if (!n) {
      cuda_error(g, s->span, "assignment to an unknown variable");
      return;
    }
    tx_strbuf pre = cuda_sb(g);
    tx_sb_printf(&pre, "%s = ", n);
    const char *p = cuda_sb_text(g, &pre);
    if (s->exprs[0]->dtype.lanes > 1) cuda_vector_temps(g, s->span, s->exprs[0], 1);
    expr_line(g, s->span, p ? p : "", s->exprs[0], ";");
    cuda_vector_temps_done(g);
    tx_sb_free(&pre);
    return;
  }
  case STMT_ATTR:
    if (s->flag == 1 && s->nstmts) emit_stmt(g, s->stmts[0]);
    return;
  case STMT_ASSERT:
    /* Device code does not check assertions (TVM drops them too). */
    return;
  case STMT_EVAL: {
    const tx_expr *e = s->exprs[0];
    if (e->kind == EXPR_INT) return; /* T.evaluate(0) */
    if (cuda_emit_print_buffer(g, e)) return;
    if (cuda_is_masked_vstore(e)) {
      cuda_emit_masked_vstore(g, s, e);
      return;
    }
    expr_line(g, s->span, "", e, ";");
    return;
  }
  case STMT_IF:
    emit_if(g, s, "if (");
    return;
  case STMT_FOR:
    emit_for(g, s);
    return;
  case STMT_WHILE:
    cond_line(g, s->span, "while (", s->exprs[0], ") {");
    emit_block(g, s->stmts[0]);
    cuda_line(g, s->span, "}");
    return;
  case STMT_BREAK:
    cuda_line(g, s->span, "break;");
    return;
  case STMT_CONTINUE:
    cuda_line(g, s->span, "continue;");
    return;
  case STMT_RETURN:
    cuda_line(g, s->span, "return;");
    return;
  case STMT_ALLOC:
    emit_alloc(g, s);
    return;
  case STMT_DECL: {
    const tx_buffer *b = s->buffer;
    if (tx_cuda_buffer_owns_storage(b)) {
      tx_stmt alloc = *s;
      alloc.kind = STMT_ALLOC;
      emit_alloc(g, &alloc);
    } else if (b->data && b->data->kind == EXPR_CALL && b->data->nops == 1 &&
               b->data->ops[0]->kind == EXPR_VAR && b->data->u.call.op &&
               strcmp(b->data->u.call.op, "T.address_of") == 0) {
      /* x.view(...) or T.decl_buffer(..., data=x.source.data) of scalar sugar x */
      cuda_error(g, s->span,
                 "buffer '%s' is over the storage of scalar '%s'; CUDA codegen does not address "
                 "a scalar as a buffer",
                 b->name ? b->name : "?",
                 b->data->ops[0]->u.var.name ? b->data->ops[0]->u.var.name : "?");
    } else if (!b->data || !cuda_find_storage(g, b->data)) {
      cuda_error(g, s->span, "view '%s' does not view storage available in this kernel",
                 b->name ? b->name : "?");
    }
    return;
  }
  case STMT_SCOPE_ID:
  case STMT_DEVICE_ENTRY:
  case STMT_WITH:
  case STMT_BLOCK:
  case STMT_BLOCK_AXIS:
  case STMT_BLOCK_SIG:
  case STMT_BLOCK_INIT:
  case STMT_TILE_OP:
  case TX_STMT_KIND_COUNT:
    cuda_error(g, s->span, "%s%s%s must be lowered before CUDA code generation",
               tx_stmt_kind_name(k), s->name ? " " : "", s->name ? s->name : "");
    return;
  }
}

/* ---- kernels ------------------------------------------------------------------ */

/* The kernel's launch bounds, as TVM writes them: a register cap
 * (tirx.max_registers) as __maxnreg__(N) alone, since nvcc accepts no
 * __launch_bounds__ beside it; else __launch_bounds__(threads
 * [, tirx.min_blocks_per_sm [, tirx.max_blocks_per_cluster]]) when the
 * block size is a constant above 1. */
static void launch_bounds(cuda_cg *g, const tx_func *f, int64_t threads, tx_strbuf *head) {
  const tx_expr *minb = tx_func_attr(f, "tirx.min_blocks_per_sm");
  const tx_expr *maxc = tx_func_attr(f, "tirx.max_blocks_per_cluster");
  const tx_expr *maxreg = tx_func_attr(f, "tirx.max_registers");
  if (maxreg && maxreg->kind == EXPR_INT) {
    if (minb || maxc)
      cuda_error(g, f->span,
                 "tirx.max_registers cannot be combined with the CUDA launch bounds "
                 "tirx.min_blocks_per_sm / tirx.max_blocks_per_cluster");
    tx_sb_printf(head, "__maxnreg__(%" PRId64 ") ", maxreg->u.ival);
    return;
  }
  if (maxc && !minb)
    cuda_error(g, f->span, "tirx.max_blocks_per_cluster requires tirx.min_blocks_per_sm");
  if (threads <= 1) return;
  tx_sb_printf(head, "__launch_bounds__(%" PRId64, threads);
  if (minb && minb->kind == EXPR_INT) {
    tx_sb_printf(head, ", %" PRId64, minb->u.ival);
    if (maxc && maxc->kind == EXPR_INT) tx_sb_printf(head, ", %" PRId64, maxc->u.ival);
  }
  tx_sb_puts(head, ") ");
}

static int is_kernel(const tx_func *f) {
  const tx_expr *k = tx_func_attr(f, "tirx.kernel");
  return k && k->kind == EXPR_INT && k->u.ival != 0;
}

static const char STDINT_PRELUDE[] = "#ifdef __CUDACC_RTC__\n"
                                     "typedef signed char int8_t;\n"
                                     "typedef unsigned char uint8_t;\n"
                                     "typedef short int16_t;\n"
                                     "typedef unsigned short uint16_t;\n"
                                     "typedef int int32_t;\n"
                                     "typedef unsigned int uint32_t;\n"
                                     "typedef long long int64_t;\n"
                                     "typedef unsigned long long uint64_t;\n"
                                     "#else\n"
                                     "#include <cstdint>\n"
                                     "#endif\n\n";

typedef struct dyn_collect {
  const tx_buffer **bufs;
  uint32_t n, cap;
  int nomem;
  const tirx_allocator *alloc;
} dyn_collect;

/* Expressions hold no statements: a walk for statements skips them. */
static int skip_expr(tx_visitor *v, const tx_expr *e) {
  (void)v;
  (void)e;
  return 0;
}

static int collect_dyn(tx_visitor *v, const tx_stmt *s) {
  dyn_collect *d = v->user;
  /* An allocation, or a T.decl_buffer without data= (it owns its storage,
   * emitted like an allocation). */
  int owns =
      s->kind == STMT_ALLOC || (s->kind == STMT_DECL && tx_cuda_buffer_owns_storage(s->buffer));
  if (owns && s->buffer->scope && strcmp(s->buffer->scope, "shared.dyn") == 0) {
    if (d->n == d->cap) {
      uint32_t cap = d->cap ? 2 * d->cap : 8;
      const tx_buffer **p = tx_mem_realloc(d->alloc, d->bufs, cap * sizeof *p);
      if (!p) {
        d->nomem = 1;
        v->stop = 1;
        return 0;
      }
      d->bufs = p;
      d->cap = cap;
    }
    d->bufs[d->n++] = s->buffer;
  }
  return 1;
}

static void reset_kernel(cuda_cg *g) {
  tx_ptrmap_clear(&g->names);
  tx_ptrmap_clear(&g->taken);
  tx_ptrmap_clear(&g->stor_of);
  tx_ptrmap_clear(&g->nonneg);
  tx_ptrmap_clear(&g->used);
  tx_ptrmap_clear(&g->modsets);
  g->nstor = 0;
}

static int collect_used_expr(tx_visitor *v, const tx_expr *e);

/* Variables read in the body (binding occurrences excluded): an unread
 * thread binding is not emitted, as in TVM, so kernels compile warning-free. */
static int collect_used_stmt(tx_visitor *v, const tx_stmt *s) {
  /* A buffer declared on a pointer variable reads it (data=ptr). */
  if (s->kind == STMT_DECL && s->buffer && s->buffer->data && s->buffer->data->kind == EXPR_VAR)
    collect_used_expr(v, s->buffer->data);
  if (!tx_stmt_binds_vars((tx_stmt_kind)s->kind)) return 1;
  /* Walk everything but vars[] (the bound names). */
  for (uint32_t i = 0; i < s->nexprs; i++)
    tx_visit_expr(v, s->exprs[i]);
  for (uint32_t i = 0; i < s->nstmts; i++)
    tx_visit_stmt(v, s->stmts[i]);
  return 0;
}

static int collect_used_expr(tx_visitor *v, const tx_expr *e) {
  cuda_cg *g = v->user;
  if (e->kind != EXPR_VAR) return 1;
  if (!tx_ptrset_add(&g->used, e)) {
    g->nomem = 1;
    v->stop = 1;
    return 0;
  }
  return 1;
}

static int is_used(const cuda_cg *g, const tx_expr *v) {
  return tx_ptrmap_has(&g->used, v);
}

/* A kernel's parameters must fit what one launch carries (packed_api.h). */
static void check_kernel_params(cuda_cg *g, const tx_func *f) {
  uint32_t maps = 0;
  for (uint32_t i = 0; i < f->nparams; i++)
    maps += f->params[i]->dtype.code == DT_HANDLE && f->params[i]->u.var.tensormap;
  if (f->nparams > TX_MAX_KERNEL_PARAMS)
    cuda_error(g, f->span, "kernel '%s' has %u parameters (limit %d per launch)", f->name,
               f->nparams, TX_MAX_KERNEL_PARAMS);
  if (maps > TX_MAX_KERNEL_TENSORMAPS)
    cuda_error(g, f->span, "kernel '%s' takes %u tensor maps by value (limit %d per launch)",
               f->name, maps, TX_MAX_KERNEL_TENSORMAPS);
}

static void emit_kernel(cuda_cg *g, const tx_func *f) {
  reset_kernel(g);
  check_kernel_params(g, f);
  tx_strbuf *out = g->out;
  const char *kname = unique_name(g, f->name, NULL);
  /* Launch bounds from a constant block shape. */
  const tx_expr *block = tx_func_attr(f, "tirx.block");
  int64_t threads = 1;
  if (block && block->kind == EXPR_TUPLE) {
    for (uint32_t i = 0; i < block->nops; i++) {
      if (block->ops[i]->kind != EXPR_INT) {
        threads = -1;
        break;
      }
      threads *= block->ops[i]->u.ival;
    }
  } else {
    threads = -1;
  }
  /* The cluster shape, as split-host-device recorded it: (n, 1, 1) or
   * none makes %cluster_ctarank the x coordinate. */
  const tx_expr *cl = tx_func_attr(f, "tirx.cluster");
  g->cluster_x_is_rank = 1;
  if (cl && cl->kind == EXPR_TUPLE)
    for (uint32_t i = 1; i < cl->nops; i++)
      if (cl->ops[i]->kind != EXPR_INT || cl->ops[i]->u.ival != 1) g->cluster_x_is_rank = 0;
  tx_strbuf head = cuda_sb(g);
  tx_sb_puts(&head, "extern \"C\" __global__ void ");
  launch_bounds(g, f, threads, &head);
  tx_sb_printf(&head, "%s(", kname);
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tx_expr *p = f->params[i];
    const tx_buffer *b = f->param_bufs ? f->param_bufs[i] : NULL;
    if (i) tx_sb_puts(&head, ", ");
    if (p->dtype.code == DT_HANDLE && p->u.var.tensormap) {
      /* TVM's by-value tensor map. The variable is a handle to it, so a read
       * of it (and T.address_of of it) is the parameter's generic address,
       * which TMA instructions and prefetch.tensormap take. */
      cuda_need_helper(g, H_TENSORMAP);
      const char *name = unique_name(g, p->u.var.name, NULL);
      char addr[160];
      snprintf(addr, sizeof addr, "((void*)&%s)", name);
      const char *a = tx_arena_strndup(g->ir.arena, addr, strlen(addr));
      if (!a || !tx_ptrmap_put(&g->names, p, (void *)a)) g->nomem = 1;
      tx_sb_printf(&head, "const __grid_constant__ tx_tensormap %s", name);
    } else if (p->dtype.code == DT_HANDLE) {
      tx_dtype elem = b ? b->dtype : p->u.var.has_pointee ? p->u.var.pointee : TX_VOID;
      const char *name = unique_name(g, b && b->name ? b->name : p->u.var.name, "_ptr");
      /* A buffer's data is aligned as the launcher passes it (its `align`,
       * which the host checks, or TVM's 64 bytes); a raw handle may point
       * anywhere, so only its elements' alignment is known. */
      int64_t align = !b         ? cuda_pow2_align(tx_cuda_elem_bytes(elem))
                      : b->align ? cuda_pow2_align(b->align)
                                 : TX_CUDA_PARAM_ALIGN;
      cuda_storage st = {.data = p, .cname = name, .elem = elem, .align = align};
      add_storage(g, st);
      st.data = b ? b->data : p;
      if (b && b->data != p) add_storage(g, st);
      tx_sb_printf(&head, "%s* __restrict__ %s",
                   elem.code == DT_VOID ? "void" : cuda_storage_ctype(g, elem, p->span), name);
    } else {
      const char *name = bind_name(g, p, NULL);
      tx_sb_printf(&head, "%s %s", cuda_ctype(g, p->dtype, p->span), name);
    }
  }
  tx_sb_puts(&head, ") {");
  const char *h = cuda_sb_text(g, &head);
  cuda_line(g, f->span, "%s", h ? h : "");
  tx_sb_free(&head);
  g->indent = 1;

  /* The dynamic shared arena: every shared.dyn allocation at its offset. */
  dyn_collect dc = {.alloc = tx_ir_alloc(&g->ir)};
  tx_visitor v = {0};
  v.user = &dc;
  v.pre_stmt = collect_dyn;
  v.pre_expr = skip_expr;
  tx_visit_stmt(&v, f->body);
  if (dc.nomem) g->nomem = 1;
  if (dc.n) {
    int64_t *offs = tx_mem_calloc(dc.alloc, dc.n, sizeof *offs);
    int64_t total = 0, align = 16;
    const tx_expr *sym = NULL;
    if (!offs) {
      g->nomem = 1;
    } else if (tx_cuda_dyn_smem_layout(g->diags, dc.bufs, dc.n, offs, &total, &sym) != TIRX_OK) {
      g->failed = 1;
    } else {
      for (uint32_t i = 0; i < dc.n; i++)
        if (dc.bufs[i]->align > align) align = dc.bufs[i]->align;
      /* Each buffer is the arena's alignment plus its byte offset. */
      for (uint32_t i = 0; i < dc.n; i++) {
        add_storage(g, (cuda_storage){.data = dc.bufs[i]->data,
                                      .cname = "smem",
                                      .elem = tx_dt(DT_UINT, 8, 1),
                                      .byte_offset = offs[i],
                                      .align = cuda_pow2_align(align),
                                      .is_dyn = 1,
                                      .is_shared = 1});
        g->features |= tx_cuda_type_features(dc.bufs[i]->dtype);
      }
      cuda_line(g, f->span, "extern __shared__ __align__(%" PRId64 ") unsigned char smem[];",
                align);
    }
    tx_mem_free(dc.alloc, offs);
  }
  tx_mem_free(dc.alloc, dc.bufs);

  tx_visitor uv = {0};
  uv.user = g;
  uv.pre_stmt = collect_used_stmt;
  uv.pre_expr = collect_used_expr;
  tx_visit_stmt(&uv, f->body);
  emit_stmt(g, f->body);
  g->indent = 0;
  cuda_line(g, f->span, "}");
  (void)out;
}

/* ---- the translation unit ---------------------------------------------------- */

static const char *const HELPER_SRC[] = {
#define X(id, src) src,
    TX_CUDA_HELPERS(X)
#undef X
};

static size_t count_lines(const char *s, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    k += s[i] == '\n';
  return k;
}

tirx_status tx_codegen_cuda(tx_diag_sink *diags, const tx_module *lowered, const tx_target *target,
                            tx_strbuf *out, tx_line_map *map) {
  /* The generator's scratch IR and every table below use the context's
   * allocator, which the sink knows. */
  const tirx_allocator *alloc = tx_diag_allocator(diags);
  tx_arena *arena = tx_arena_create(alloc);
  if (!arena) return TIRX_ERR_NOMEM;
  tx_interner *strings = tx_interner_create(arena);
  if (!strings) {
    tx_arena_destroy(arena);
    return TIRX_ERR_NOMEM;
  }
  cuda_cg g = {0};
  g.diags = diags;
  g.ir = (tx_ir){arena, strings};
  g.target = target;
  tx_ptrmap *maps[] = {&g.reserved, &g.names,         &g.taken,   &g.stor_of, &g.nonneg,
                       &g.used,     &g.not_in_tables, &g.modsets, &g.reported};
  for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
    maps[i]->alloc = alloc;
  tx_strbuf body = {.alloc = alloc};
  tx_line_map bmap = {.alloc = alloc};
  g.out = &body;
  g.map = &bmap;
  intern_reserved(&g);
  for (uint32_t i = 0; i < lowered->nfuncs; i++) {
    const tx_func *f = lowered->funcs[i];
    if (!is_kernel(f)) continue;
    if (body.len) cuda_line(&g, (tirx_span){0}, "%s", "");
    emit_kernel(&g, f);
  }

  /* Preamble, sources and helpers: lines with no TIRx span. */
  tx_strbuf pre = {.alloc = alloc};
  tx_sb_puts(&pre, "// Generated by tirx-c. Do not edit.\n");
  if (g.features & CUDA_FEAT_FP16) tx_sb_puts(&pre, "#include <cuda_fp16.h>\n");
  if (g.features & CUDA_FEAT_BF16) tx_sb_puts(&pre, "#include <cuda_bf16.h>\n");
  if (g.features & CUDA_FEAT_FP8) tx_sb_puts(&pre, "#include <cuda_fp8.h>\n");
  if (g.features & CUDA_FEAT_FP6) tx_sb_puts(&pre, "#include <cuda_fp6.h>\n");
  if (g.features & CUDA_FEAT_FP4) tx_sb_puts(&pre, "#include <cuda_fp4.h>\n");
  tx_sb_putc(&pre, '\n');
  /* User sources (T.cuda.func_call source_code=) are written against <cstdint>, which
   * NVRTC does not provide; TVM's CUDA defines the fixed-width types the same way. Under
   * NVRTC the 64-bit ones are the `long long` this file uses for int64/uint64, so a pointer
   * to a uint64 buffer passes as a uint64_t*; nvcc (the toolkit checks) gets <cstdint>,
   * whose 64-bit types are `long` on Linux. */
  if (g.nsources) tx_sb_puts(&pre, STDINT_PRELUDE);
  for (uint32_t i = 0; i < g.nsources; i++) {
    const tx_expr *s = g.sources[i];
    size_t a = 0, n = s->u.str.len;
    const char *d = s->u.str.data;
    /* Trim surrounding blank lines so the layout does not depend on them. */
    while (a < n && (d[a] == '\n' || d[a] == '\r'))
      a++;
    while (n > a && (d[n - 1] == '\n' || d[n - 1] == '\r' || d[n - 1] == ' '))
      n--;
    tx_sb_putn(&pre, d + a, n - a);
    tx_sb_puts(&pre, "\n\n");
  }
  for (int h = 0; h < TX_CUDA_HELPER_COUNT; h++)
    if (g.helpers[h]) {
      tx_sb_puts(&pre, HELPER_SRC[h]);
      tx_sb_puts(&pre, "\n\n");
    }
  cuda_emit_helpers(&g, &pre);

  tirx_status st = TIRX_OK;
  if (g.nomem || pre.failed || body.failed)
    st = TIRX_ERR_NOMEM;
  else if (g.failed || tx_diag_errors(diags))
    st = tx_diag_has_internal(diags) ? TIRX_ERR_INTERNAL : TIRX_ERR_INPUT;
  if (st == TIRX_OK) {
    size_t prelines = count_lines(pre.data ? pre.data : "", pre.len);
    tx_sb_putn(out, pre.data ? pre.data : "", pre.len);
    tx_sb_putn(out, body.data ? body.data : "", body.len);
    if (out->failed) st = TIRX_ERR_NOMEM;
    if (map && st == TIRX_OK) {
      size_t need = map->len + prelines + bmap.len;
      if (need > map->cap) {
        tirx_span *p = tx_mem_realloc(map->alloc, map->lines, need * sizeof *p);
        if (!p)
          st = TIRX_ERR_NOMEM;
        else {
          map->lines = p;
          map->cap = need;
        }
      }
      if (st == TIRX_OK) {
        for (size_t i = 0; i < prelines; i++)
          map->lines[map->len++] = (tirx_span){0};
        for (size_t i = 0; i < bmap.len; i++)
          map->lines[map->len++] = bmap.lines[i];
      }
    }
  }
  tx_sb_free(&pre);
  tx_sb_free(&body);
  tx_line_map_free(&bmap);
  tx_mem_free(alloc, g.sources);
  tx_ptrmap_free(&g.reserved);
  tx_ptrmap_free(&g.names);
  tx_ptrmap_free(&g.taken);
  tx_ptrmap_free(&g.stor_of);
  tx_mem_free(alloc, g.stor);
  tx_ptrmap_free(&g.nonneg);
  tx_ptrmap_free(&g.used);
  tx_ptrmap_free(&g.not_in_tables);
  tx_ptrmap_free(&g.modsets);
  tx_ptrmap_free(&g.reported);
  tx_mem_free(alloc, g.vtemps);
  tx_interner_destroy(strings);
  tx_arena_destroy(arena);
  return st;
}
