/*
 * cuda_packed.c - packed sub-byte integer elements (int4, uint4, int1) for
 * the CUDA code generator (docs/codegen.md "Sub-byte types").
 *
 * As in TVM, a buffer of `bits`-bit integers is stored packed: element i
 * is bits (i % (8 / bits)) * bits and up of byte i / (8 / bits), lowest
 * first, which is also how the PTX sub-byte mma operands (.s4, .u4, .b1)
 * hold their elements in a register. Storage is bytes (`unsigned char`);
 * what reads or writes it:
 *  - a vector at a stride-1 Ramp whose lanes fill 1, 2, 4, 8 or 16 bytes and
 *    whose base is provably a multiple of its lanes is one access of the
 *    packed word(s), spelled by total width as TVM's PrintType does
 *    (int4x8 -> int, x16 -> int2, x32 -> int4, x4 -> short, x2 -> signed
 *    char; uint4 unsigned; int1x32 -> int);
 *  - one element is extracted with a shift and a mask (tx_packed_ld), and
 *    stored by rewriting its bits of the byte (tx_packed_st) in thread-local
 *    arrays only: elsewhere the read-modify-write of the shared byte would
 *    race with other threads storing its neighbours;
 *  - a pointer into packed storage advances by bytes: an element offset is
 *    divided by 8 / bits and must be provably a whole number of bytes.
 * Everything else (gathers, scatters, lanes of a packed vector, sub-byte
 * arithmetic whose result would have to wrap to `bits`) is a located error
 * saying why: generated code is never a guess.
 *
 * A scalar sub-byte value lives in an int, sign-extended for int4/int1 and
 * zero-extended for uint4, so loads, stores, selects and conversions to
 * wider types need no more than that.
 */
#include <inttypes.h>
#include <string.h>

#include "target/cuda/cuda_internal.h"

static int per_byte(tx_dtype t) {
  return 8 / t.bits;
}

static const char *type_name(tx_dtype t, char buf[32]) {
  return tx_dtype_str(t, buf);
}

/* ---- offsets ------------------------------------------------------------------ */

int cuda_emit_packed_offset(cuda_cg *g, tx_dtype t, const tx_expr *off, int unit_bytes,
                            tirx_span span, tx_strbuf *sb) {
  tx_dtype el = tx_dtype_elem(t);
  int per = per_byte(el), unit = per * unit_bytes;
  int64_t v;
  if (tx_expr_int_literal(off, &v) && v % unit == 0) {
    tx_sb_put_int(sb, v / per);
    return 1;
  }
  if (!cuda_multiple_of(g, off, unit)) {
    char buf[32];
    cuda_error(g, off->span.line ? off->span : span,
               "an offset into packed %s storage must be a multiple of %d elements (%d whole "
               "byte%s), and this one is not provably so",
               type_name(el, buf), unit, unit_bytes, unit_bytes == 1 ? "" : "s");
    return 0;
  }
  tx_sb_putc(sb, '(');
  cuda_emit_expr(g, off, sb);
  tx_sb_printf(sb, " / %d)", per);
  return 1;
}

int cuda_emit_elem_offset(cuda_cg *g, tx_dtype elem, const tx_expr *off, tirx_span span,
                          tx_strbuf *sb) {
  if (tx_cuda_is_packed_elem(elem)) return cuda_emit_packed_offset(g, elem, off, 1, span, sb);
  cuda_emit_expr(g, off, sb);
  return 1;
}

/* ---- values ------------------------------------------------------------------- */

/* Kinds whose scalar sub-byte value codegen holds in an int: what a load,
 * a literal or a conversion (which wraps) gives, selected or named; and
 * the kinds that are no value (a buffer as a pointer, regions: reported
 * where they are used). Arithmetic would have to wrap its result. */
static int scalar_kind_ok(const tx_expr *e) {
  switch ((tx_expr_kind)e->kind) {
  case EXPR_LOAD:
  case EXPR_INT:
  case EXPR_VAR:
  case EXPR_SELECT:
  case EXPR_LET:
  case EXPR_CAST:
  case EXPR_BUFFER:
  case EXPR_REGION:
  case EXPR_SLICE:
  case EXPR_TUPLE:
  case EXPR_LAYOUT:
  case EXPR_LAMBDA:
  case EXPR_NONE:
  case EXPR_STRING:
    return 1;
  case EXPR_CALL:
    return e->u.call.op && strcmp(e->u.call.op, "T.if_then_else") == 0;
  case EXPR_FLOAT:
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
  case EXPR_RAMP:
  case EXPR_BROADCAST:
  case TX_EXPR_KIND_COUNT:
    break;
  }
  return 0;
}

int cuda_packed_value_ok(cuda_cg *g, const tx_expr *e) {
  if (!tx_cuda_is_packed(e->dtype)) return 1;
  char buf[32];
  if (e->dtype.lanes == 1 && !scalar_kind_ok(e)) {
    cuda_error(g, e->span.line ? e->span : g->stmt_span,
               "%s on %s values is not supported: a sub-byte value is held in an int, and "
               "this result would have to wrap to %d bits (compute in int32, then convert "
               "with T.Cast)",
               tx_expr_kind_name((tx_expr_kind)e->kind), type_name(e->dtype, buf), e->dtype.bits);
    return 0;
  }
  return 1;
}

void cuda_packed_vector_error(cuda_cg *g, const tx_expr *e, const char *what) {
  char buf[32];
  cuda_error(g, e->span.line ? e->span : g->stmt_span,
             "%s of a packed %s vector is not supported: sub-byte vectors are only loaded, "
             "stored and bound whole",
             what, type_name(e->dtype, buf));
}

void cuda_emit_packed_cast(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (e->dtype.lanes != 1) {
    cuda_packed_vector_error(g, e, "a conversion");
    return;
  }
  /* the low `bits` bits, sign-extended for int4/int1: ((x & m) ^ s) - s */
  int m = (1 << e->dtype.bits) - 1, sgn = e->dtype.code == DT_INT;
  tx_sb_puts(sb, sgn ? "((((int)" : "((int)");
  cuda_emit_expr(g, e->ops[0], sb);
  if (sgn)
    tx_sb_printf(sb, " & %d) ^ %d) - %d)", m, m / 2 + 1, m / 2 + 1);
  else
    tx_sb_printf(sb, " & %d)", m);
}

/* ---- vector accesses ---------------------------------------------------------- */

/* Is the vector access b[idx] (of vector type t) one packed access? Else a
 * located error saying which rule it breaks. */
static int vector_ok(cuda_cg *g, const tx_buffer *b, const tx_expr *idx, tx_dtype t,
                     tirx_span span) {
  char buf[32];
  const char *name = b->name ? b->name : "?";
  int64_t stride = 0;
  if (idx->kind != EXPR_RAMP || !tx_expr_int_literal(idx->ops[1], &stride) || stride != 1) {
    cuda_error(g, span,
               "accessing buffer '%s' as %s at an index that is not contiguous (a stride-1 "
               "Ramp) would gather or scatter single packed elements; this is not supported",
               name, type_name(t, buf));
    return 0;
  }
  if (!tx_cuda_type(t)) {
    cuda_error(g, span,
               "accessing buffer '%s' as %s spans %d bits: a packed sub-byte vector must fill "
               "1, 2, 4, 8 or 16 whole bytes",
               name, type_name(t, buf), t.lanes * t.bits);
    return 0;
  }
  if (!cuda_multiple_of(g, idx->ops[0], t.lanes)) {
    cuda_error(g, span,
               "accessing buffer '%s' as %s is one %d-byte word, so the first index must be a "
               "multiple of %d elements (aligned), and this one is not provably so",
               name, type_name(t, buf), t.lanes * t.bits / 8, t.lanes);
    return 0;
  }
  return 1;
}

/* `*(T*)(ptr + bytes)` for the contiguous access b[idx] of type t. */
static void put_word(cuda_cg *g, const tx_buffer *b, const tx_expr *idx, tx_dtype t, tirx_span span,
                     tx_strbuf *sb) {
  tx_sb_printf(sb, "*(%s*)(", cuda_ctype(g, t, span));
  if (!cuda_emit_ptr(g, b, b->dtype, span, sb)) return;
  tx_sb_puts(sb, " + ");
  cuda_emit_packed_offset(g, b->dtype, idx->ops[0], t.lanes * t.bits / 8, span, sb);
  tx_sb_putc(sb, ')');
}

/* ---- loads and stores ---------------------------------------------------------- */

void cuda_emit_packed_load(cuda_cg *g, const tx_expr *e, const tx_expr *idx, tx_strbuf *sb) {
  const tx_buffer *b = e->u.buffer;
  tirx_span span = e->span.line ? e->span : g->stmt_span;
  if (idx->dtype.lanes > 1) {
    if (vector_ok(g, b, idx, e->dtype, span)) put_word(g, b, idx, e->dtype, span, sb);
    return;
  }
  cuda_need_helper(g, H_PACKED_LD);
  tx_sb_puts(sb, "tx_packed_ld(");
  if (!cuda_emit_ptr(g, b, b->dtype, span, sb)) return;
  tx_sb_puts(sb, ", ");
  cuda_emit_expr(g, idx, sb);
  tx_sb_printf(sb, ", %d, %d)", b->dtype.bits, b->dtype.code == DT_INT);
}

void cuda_emit_packed_store(cuda_cg *g, const tx_stmt *s, const tx_expr *idx) {
  const tx_buffer *b = s->buffer;
  const tx_expr *val = s->exprs[0];
  tx_strbuf sb = cuda_sb(g);
  if (idx->dtype.lanes > 1) {
    if (!vector_ok(g, b, idx, val->dtype, s->span)) goto out;
    put_word(g, b, idx, val->dtype, s->span, &sb);
    tx_sb_puts(&sb, " = ");
    cuda_emit_expr(g, val, &sb);
    tx_sb_putc(&sb, ';');
  } else {
    const cuda_storage *st = b->data ? cuda_find_storage(g, b->data) : NULL;
    if (st && !st->is_local) {
      char buf[32];
      cuda_error(g, s->span,
                 "a store of one %s element into buffer '%s' would rewrite the whole byte "
                 "holding it (%d elements), racing with threads that store the others; store "
                 "whole bytes (a vector of a multiple of %d elements) or into a local buffer",
                 type_name(b->dtype, buf), b->name ? b->name : "?", per_byte(b->dtype),
                 per_byte(b->dtype));
      goto out;
    }
    cuda_need_helper(g, H_PACKED_ST);
    tx_sb_puts(&sb, "tx_packed_st(");
    if (!cuda_emit_ptr(g, b, b->dtype, s->span, &sb)) goto out;
    tx_sb_puts(&sb, ", ");
    cuda_emit_expr(g, idx, &sb);
    tx_sb_printf(&sb, ", %d, ", b->dtype.bits);
    cuda_emit_expr(g, val, &sb);
    tx_sb_puts(&sb, ");");
  }
  cuda_line(g, s->span, "%s", cuda_sb_text(g, &sb));
out:
  tx_sb_free(&sb);
}
