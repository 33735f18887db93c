/*
 * cuda_print.c - T.print_buffer(data, "dtype", is_string, is_scalar, ndim,
 * *shape) in device code: thread (0, 0, 0) of every CTA prints with
 * printf, as TVM's CUDA codegen does (codegen_cuda.cc, print_buffer):
 *  - a string:  "<name>: <text>\n\n"
 *  - a scalar:  "Scalar (dtype: <dtype>): <value>\n\n"
 *  - a buffer:  "(<name>, shape=(d0,d1), dtype=<dtype>):\n" then the elements
 *    nested in brackets, row-major, as numpy prints them.
 * Differences from TVM, each a fix: 64-bit integers print with %lld/%llu
 * (TVM's %d reads half the value), and the elements are read through a
 * pointer of the named dtype whatever the data variable's own type is.
 * Formats: %f for float16/32/64 (float16 widened), %d/%u for 8..32-bit
 * integers; other dtypes (bfloat16, fp8, bool) are a located error, as in
 * TVM. Must not: be reachable from host code (a statement of a kernel).
 */
#include <string.h>

#include "abi/dtype.h"
#include "target/cuda/cuda_call.h"
#include "target/cuda/cuda_internal.h"

static const char OP[] = "T.print_buffer";

/* The literal integer argument i (a T.bool or integer), or -1. */
static int64_t literal_arg(const tx_expr *e, uint32_t i) {
  int64_t v;
  return i < cuda_npos(e) && tx_expr_int_literal(e->ops[i], &v) ? v : -1;
}

/* printf's conversion for dtype t and the cast its value needs ("" none). */
static const char *format_of(tx_dtype t, const char **cast) {
  *cast = "";
  if (t.lanes != 1) return NULL;
  if (t.code == DT_FLOAT && t.bits == 16) *cast = "(float)";
  if (t.code == DT_FLOAT && (t.bits == 16 || t.bits == 32 || t.bits == 64)) return "%f";
  if (t.code == DT_INT && t.bits == 64) return "%lld";
  if (t.code == DT_UINT && t.bits == 64) return "%llu";
  if (t.code == DT_INT && t.bits >= 8 && t.bits <= 32) return "%d";
  if (t.code == DT_UINT && t.bits >= 8 && t.bits <= 32) return "%u";
  return NULL;
}

/* The name TVM prints: the data variable's (or "string_literal"). */
static const char *data_name(const tx_expr *data) {
  return data->kind == EXPR_VAR && data->u.var.name ? data->u.var.name : "string_literal";
}

/* e's C text, in *sb (empty on entry; the caller frees it). */
static const char *expr_text(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  cuda_emit_expr(g, e, sb);
  return cuda_sb_text(g, sb);
}

/* `(const T*)(data)`: the elements as the named dtype. */
static const char *elements(cuda_cg *g, const tx_expr *e, tx_dtype t, tx_strbuf *sb) {
  const char *ct = cuda_ctype(g, t, e->span);
  tx_sb_printf(sb, "((const %s*)(", ct);
  cuda_emit_expr(g, e->ops[0], sb);
  tx_sb_puts(sb, "))");
  return cuda_sb_text(g, sb);
}

static void open_thread0(cuda_cg *g, tirx_span span, const char *what) {
  cuda_line(g, span, "// print_buffer starts (%s)", what);
  cuda_line(g, span, "if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {");
  g->indent++;
}

static void close_thread0(cuda_cg *g, tirx_span span) {
  g->indent--;
  cuda_line(g, span, "}");
  cuda_line(g, span, "// print_buffer ends");
}

/* One loop level of the buffer print: dims [d, ndim) of extents dims[]. */
static void element_loops(cuda_cg *g, tirx_span span, const char *const *dims, uint32_t d,
                          uint32_t ndim, const char *fmt, const char *cast, const char *elems) {
  if (d == ndim) {
    /* ((i0 * d1 + i1) * d2 + i2): row-major, TVM's spelling. */
    tx_strbuf idx = cuda_sb(g);
    for (uint32_t k = 1; k < ndim; k++)
      tx_sb_putc(&idx, '(');
    tx_sb_puts(&idx, "i0");
    for (uint32_t k = 1; k < ndim; k++)
      tx_sb_printf(&idx, " * %s + i%u)", dims[k], k);
    cuda_line(g, span, "printf(\"%s\", %s%s[%s]);", fmt, cast, elems, cuda_sb_text(g, &idx));
    tx_sb_free(&idx);
    return;
  }
  cuda_line(g, span, "for (int i%u = 0; i%u < %s; ++i%u) {", d, d, dims[d], d);
  g->indent++;
  if (d + 1 < ndim) cuda_line(g, span, "printf(\"[\");");
  element_loops(g, span, dims, d + 1, ndim, fmt, cast, elems);
  if (d + 1 < ndim) cuda_line(g, span, "printf(\"]\");");
  cuda_line(g, span, "if (i%u < %s - 1) {", d, dims[d]);
  if (d + 1 == ndim)
    cuda_line(g, span, "  printf(\" \");");
  else
    cuda_line(g, span, "  printf(\"\\n%*s\");", (int)d + 2, "");
  cuda_line(g, span, "}");
  g->indent--;
  cuda_line(g, span, "}");
}

static void print_whole_buffer(cuda_cg *g, const tx_expr *e, tx_dtype t, const char *fmt,
                               const char *cast, uint32_t ndim) {
  enum { MAX_DIMS = 8 };
  if (ndim > MAX_DIMS || cuda_npos(e) != 5u + ndim) {
    cuda_error(g, e->span, "%s: ndim is %u but %u extents follow (at most %d)", OP, ndim,
               cuda_npos(e) > 5 ? cuda_npos(e) - 5 : 0, MAX_DIMS);
    return;
  }
  tx_strbuf sb = cuda_sb(g), eb = cuda_sb(g);
  const char *dims[MAX_DIMS];
  tx_strbuf db[MAX_DIMS];
  for (uint32_t d = 0; d < ndim; d++) {
    db[d] = cuda_sb(g);
    dims[d] = expr_text(g, e->ops[5 + d], &db[d]);
  }
  char tname[32];
  open_thread0(g, e->span, "buffer");
  tx_sb_printf(&sb, "printf(\"(%s, shape=(", data_name(e->ops[0]));
  for (uint32_t d = 0; d < ndim; d++)
    tx_sb_printf(&sb, "%%d%s", d + 1 < ndim ? "," : "");
  tx_sb_printf(&sb, "), dtype=%s):\\n\"", tx_dtype_str(t, tname));
  for (uint32_t d = 0; d < ndim; d++)
    tx_sb_printf(&sb, ", (int)(%s)", dims[d]);
  tx_sb_puts(&sb, ");");
  cuda_line(g, e->span, "%s", cuda_sb_text(g, &sb));
  cuda_line(g, e->span, "printf(\"[\");");
  if (ndim) element_loops(g, e->span, dims, 0, ndim, fmt, cast, elements(g, e, t, &eb));
  cuda_line(g, e->span, "printf(\"]\\n\");");
  close_thread0(g, e->span);
  for (uint32_t d = 0; d < ndim; d++)
    tx_sb_free(&db[d]);
  tx_sb_free(&sb);
  tx_sb_free(&eb);
}

int cuda_emit_print_buffer(cuda_cg *g, const tx_expr *e) {
  if (e->kind != EXPR_CALL || strcmp(e->u.call.op, OP) != 0) return 0;
  int64_t is_string = literal_arg(e, 2), is_scalar = literal_arg(e, 3), ndim = literal_arg(e, 4);
  const tx_expr *dt = cuda_npos(e) >= 5 ? e->ops[1] : NULL;
  tx_dtype t;
  if (!dt || dt->kind != EXPR_STRING || !tx_dtype_parse(dt->u.str.data, dt->u.str.len, &t) ||
      is_string < 0 || is_scalar < 0 || ndim < 0 || (is_string && is_scalar)) {
    cuda_error(g, e->span,
               "%s takes (data, \"dtype\", is_string, is_scalar, ndim, *shape) with literal "
               "flags and ndim, not both is_string and is_scalar",
               OP);
    return 1;
  }
  tx_strbuf sb = cuda_sb(g);
  if (is_string) {
    open_thread0(g, e->span, "string");
    cuda_line(g, e->span, "printf(\"%s: %%s\\n\\n\", (char*)%s);", data_name(e->ops[0]),
              expr_text(g, e->ops[0], &sb));
    close_thread0(g, e->span);
    tx_sb_free(&sb);
    return 1;
  }
  const char *cast, *fmt = format_of(t, &cast);
  char tname[32];
  if (!fmt) {
    cuda_error(g, e->span,
               "%s: no printf format for dtype %s (float16/32/64 and integers have one)", OP,
               tx_dtype_str(t, tname));
  } else if (is_scalar) {
    open_thread0(g, e->span, "scalar");
    cuda_line(g, e->span, "printf(\"Scalar (dtype: %s): %s\\n\\n\", %s%s[0]);",
              tx_dtype_str(t, tname), fmt, cast, elements(g, e, t, &sb));
    close_thread0(g, e->span);
  } else {
    print_whole_buffer(g, e, t, fmt, cast, (uint32_t)ndim);
  }
  tx_sb_free(&sb);
  return 1;
}
