/*
 * cuda_vector.c - vector values and vector memory accesses for the CUDA code
 * generator (docs/codegen.md "Vectors").
 *
 * A vector expression of N lanes is emitted in one of three views:
 *  - whole: a C value of its CUDA type (float4; uint2/uint4 for 4/8 halves;
 *    tx_boolN for bools), built as make_T(lane 0, ..., lane N-1) unless one
 *    access or intrinsic yields it;
 *  - lane i: the scalar of lane i. Element-wise kinds (arithmetic, compares,
 *    logic, min/max, Select, if_then_else, casts) recurse into their
 *    operands' lanes, so nested vector arithmetic needs no vector type for
 *    the intermediate (a float32x8 that legalize-bf16-fp8 makes between two
 *    bfloat16x8 values never exists as a value);
 *  - pair j of a float16/bfloat16 vector: lanes 2j and 2j+1 as one
 *    half2/nv_bfloat162, so arithmetic, division, fused multiply-add and
 *    compares run on the paired intrinsics (__hadd2, __h2div, __hfma2,
 *    __hlt2_mask, ...).
 * Operands are pure, so a lane or pair may repeat an operand's text; nvcc
 * merges the repeats (the same load, the same intrinsic).
 *
 * Memory: a stride-1 Ramp index whose address is provably aligned to the
 * vector type (cuda_align.c) is one vector access, `*(float4*)(A_ptr + i)`.
 * Such a load read lane by lane (an operand of element-wise arithmetic) is
 * first bound to a temporary before the statement (`float4 A_vec =
 * *(float4*)(A_ptr + i);`, lanes `A_vec.x`), as TVM's codegen binds its
 * operands, so it stays one 32-, 64- or 128-bit load (256 where the target
 * has them) instead of one load per lane. Every other vector index (other
 * strides, a computed index vector, a base not provably aligned) is a
 * gather of scalar loads or a scatter of scalar stores, lane by lane.
 *
 * Must not: print anything but CUDA text into the caller's buffers, assume
 * an alignment the IR and the launch do not promise, or move a load out of
 * a T.if_then_else branch (a lane reads only the side it selects).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "target/cuda/cuda_internal.h"
#include "ir/equal.h"
#include "ir/visit.h"

static const char COMP[] = "xyzw";

static int is_one(const tx_expr *e) {
  return e && e->kind == EXPR_INT && e->u.ival == 1;
}

static int is_ite(const tx_expr *e) {
  return e->kind == EXPR_CALL && e->u.call.op && strcmp(e->u.call.op, "T.if_then_else") == 0 &&
         e->nops == 3;
}

/* T.get_active_lane_mask(dtype, base, limit), TVM's mask of the lanes
 * base + i < limit (what its vectorizer predicates tail loops with). */
static int is_lane_mask(const tx_expr *e) {
  return e->kind == EXPR_CALL && e->u.call.op &&
         strcmp(e->u.call.op, "T.get_active_lane_mask") == 0 && e->nops >= 2;
}

static int is_f16(tx_dtype t) {
  return ((t.code == DT_FLOAT && t.bits == 16) || t.code == DT_BFLOAT) && t.lanes == 1;
}

static int is_f32(tx_dtype t) {
  return t.code == DT_FLOAT && t.bits == 32 && t.lanes == 1;
}

int cuda_is_vec16(tx_dtype t) {
  return is_f16(tx_dtype_elem(t)) && (t.lanes == 2 || t.lanes == 4 || t.lanes == 8);
}

static int is_boolvec(tx_dtype t) {
  return t.code == DT_BOOL && t.lanes > 1;
}

/* A load of N scalar elements at a vector index (the buffer's elements are
 * scalars; a buffer of vector elements indexed by a scalar is a plain load). */
static int vector_load(const tx_expr *e) {
  return e->kind == EXPR_LOAD && e->nops == 1 && e->ops[0]->dtype.lanes > 1 &&
         e->u.buffer->dtype.lanes == 1;
}

/* ... at a stride-1 Ramp of as many lanes: contiguous elements. */
static int contiguous_load(const tx_expr *e) {
  return vector_load(e) && e->ops[0]->kind == EXPR_RAMP && is_one(e->ops[0]->ops[1]) &&
         e->ops[0]->dtype.lanes == e->dtype.lanes;
}

/* Bytes of one vector of t in memory. */
static int64_t vector_bytes(tx_dtype t) {
  return (int64_t)t.lanes * tx_cuda_elem_bytes(tx_dtype_elem(t));
}

/* The alignment the CUDA type of t needs: its size when that is a power of
 * two (float2 8, float4 16, uint4 of 8 halves 16, tx_bool4 4), otherwise one
 * element's (float3, tx_bool3). */
static int64_t type_align(tx_dtype t) {
  int64_t n = vector_bytes(t);
  return n > 0 && (n & (n - 1)) == 0 ? n : tx_cuda_elem_bytes(tx_dtype_elem(t));
}

/* A contiguous load at an address provably aligned to `bytes`. */
static int aligned_load(cuda_cg *g, const tx_expr *e, int64_t bytes) {
  return contiguous_load(e) && cuda_access_aligned(g, e->u.buffer, e->ops[0]->ops[0], bytes);
}

/* ... one access of its whole CUDA type, `*(float4*)(A_ptr + i)`. */
static int whole_load(cuda_cg *g, const tx_expr *e) {
  return tx_cuda_type(e->dtype) && aligned_load(g, e, type_align(e->dtype));
}

/* ... of 16-bit floats read pair by pair, `((half2*)(H_ptr + i))[j]`. */
static int pair_load(cuda_cg *g, const tx_expr *e) {
  return cuda_is_vec16(e->dtype) && aligned_load(g, e, 4);
}

/* A vector load bound to a temporary (cuda_vector_temps). `wide`: a
 * 256-bit tx_vec256 whose lanes are v[i]. */
typedef struct cuda_vtemp {
  const tx_expr *load;
  const char *name;
  int wide;
} cuda_vtemp;

static const cuda_vtemp *find_temp(const cuda_cg *g, const tx_expr *e) {
  for (uint32_t i = 0; i < g->nvtemps; i++)
    if (g->vtemps[i].load == e) return &g->vtemps[i];
  return NULL;
}

/* Kinds computed lane by lane from their operands' lanes. */
static int lanewise(const tx_expr *e) {
  tx_expr_kind k = (tx_expr_kind)e->kind;
  return cuda_infix(k) || k == EXPR_CAST || k == EXPR_MIN || k == EXPR_MAX || k == EXPR_SELECT ||
         k == EXPR_NOT || is_ite(e);
}

/* 16-bit float vector kinds whose lanes come from their pairs (a lane of
 * an if_then_else reads only the side it selects, and a lane of a cast is
 * one conversion, so those two are computed lane by lane). */
static int pairwise(const tx_expr *e) {
  tx_expr_kind k = (tx_expr_kind)e->kind;
  return cuda_is_vec16(e->dtype) &&
         (k == EXPR_ADD || k == EXPR_SUB || k == EXPR_MUL || k == EXPR_DIV || k == EXPR_MIN ||
          k == EXPR_MAX || k == EXPR_SELECT);
}

/* make_T for a vector type whose lanes are built one by one, or NULL. */
static const char *make_fn(cuda_cg *g, tx_dtype t, tirx_span span) {
  static const struct {
    uint8_t code, bits, max_lanes;
    const char *prefix;
  } MAKE[] = {
      {DT_FLOAT, 32, 4, "make_float"},  {DT_INT, 32, 4, "make_int"},
      {DT_UINT, 32, 4, "make_uint"},    {DT_FLOAT, 64, 2, "make_double"},
      {DT_INT, 64, 2, "make_longlong"}, {DT_UINT, 64, 2, "make_ulonglong"},
      {DT_INT, 16, 4, "make_short"},    {DT_UINT, 16, 4, "make_ushort"},
      {DT_INT, 8, 4, "make_char"},      {DT_UINT, 8, 4, "make_uchar"},
  };
  static const char *const MAKE_NAMES[][5] = {
      {NULL, NULL, "make_float2", "make_float3", "make_float4"},
      {NULL, NULL, "make_int2", "make_int3", "make_int4"},
      {NULL, NULL, "make_uint2", "make_uint3", "make_uint4"},
      {NULL, NULL, "make_double2", NULL, NULL},
      {NULL, NULL, "make_longlong2", NULL, NULL},
      {NULL, NULL, "make_ulonglong2", NULL, NULL},
      {NULL, NULL, "make_short2", NULL, "make_short4"},
      {NULL, NULL, "make_ushort2", NULL, "make_ushort4"},
      {NULL, NULL, "make_char2", NULL, "make_char4"},
      {NULL, NULL, "make_uchar2", NULL, "make_uchar4"},
  };
  if (is_boolvec(t)) {
    if (!tx_cuda_type(t)) return NULL;
    (void)cuda_ctype(g, t, span); /* defines the struct in the preamble */
    return t.lanes == 2   ? "make_tx_bool2"
           : t.lanes == 3 ? "make_tx_bool3"
           : t.lanes == 4 ? "make_tx_bool4"
                          : "make_tx_bool8";
  }
  for (size_t i = 0; i < sizeof MAKE / sizeof *MAKE; i++)
    if (MAKE[i].code == t.code && MAKE[i].bits == t.bits && t.lanes >= 2 &&
        t.lanes <= MAKE[i].max_lanes)
      return MAKE_NAMES[i][t.lanes];
  return NULL;
}

static void vector_error(cuda_cg *g, const tx_expr *e) {
  char buf[32];
  cuda_error(g, e->span, "vector %s on %s is not supported by CUDA codegen",
             tx_expr_kind_name((tx_expr_kind)e->kind), tx_dtype_str(e->dtype, buf));
}

static void emit_lane(cuda_cg *g, const tx_expr *e, int i, tx_strbuf *sb);
static void emit_pair(cuda_cg *g, const tx_expr *e, int j, tx_strbuf *sb);

/* ---- lanes ---------------------------------------------------------------------- */

/* Lane i of `src` (elements of type `from`) converted to the scalar type
 * `to` as a C cast would. A 16-bit float goes through float (exact): its
 * type has conversion operators to several arithmetic types, and a cast to
 * the other 16-bit type has no direct constructor to pick. */
static void emit_convert(cuda_cg *g, tx_dtype to, tx_dtype from, const tx_expr *src, int i,
                         tirx_span span, tx_strbuf *sb) {
  const char *to_float = !is_f16(from)            ? NULL
                         : from.code == DT_BFLOAT ? "__bfloat162float("
                                                  : "__half2float(";
  if (to_float && is_f32(to)) {
    tx_sb_puts(sb, to_float);
    emit_lane(g, src, i, sb);
    tx_sb_putc(sb, ')');
    return;
  }
  /* bool converts to a 16-bit float through float too: one constructor */
  int bool_to_f16 = is_f16(to) && from.code == DT_BOOL;
  tx_sb_printf(sb, "((%s)%s", cuda_ctype(g, to, span),
               to_float      ? to_float
               : bool_to_f16 ? "(float)"
                             : "");
  emit_lane(g, src, i, sb);
  tx_sb_puts(sb, to_float ? "))" : ")");
}

static void emit_lane_op(cuda_cg *g, const tx_expr *e, int i, tx_strbuf *sb) {
  tx_expr_kind k = (tx_expr_kind)e->kind;
  tx_dtype t = tx_dtype_elem(e->dtype);
  if (k == EXPR_CAST) {
    emit_convert(g, t, tx_dtype_elem(e->ops[0]->dtype), e->ops[0], i, e->span, sb);
    return;
  }
  if (k == EXPR_SELECT || is_ite(e)) {
    tx_sb_putc(sb, '(');
    emit_lane(g, e->ops[0], i, sb);
    tx_sb_puts(sb, " ? ");
    emit_lane(g, e->ops[1], i, sb);
    tx_sb_puts(sb, " : ");
    emit_lane(g, e->ops[2], i, sb);
    tx_sb_putc(sb, ')');
    return;
  }
  if (k == EXPR_NOT) {
    tx_sb_puts(sb, "(!");
    emit_lane(g, e->ops[0], i, sb);
    tx_sb_putc(sb, ')');
    return;
  }
  if (k == EXPR_MIN || k == EXPR_MAX) {
    int is_min = k == EXPR_MIN;
    const char *fn = is_f32(t)                            ? (is_min ? "fminf" : "fmaxf")
                     : t.code == DT_FLOAT && t.bits == 64 ? (is_min ? "fmin" : "fmax")
                     : is_f16(t)                          ? (is_min ? "__hmin" : "__hmax")
                     : tx_dtype_is_int(t)                 ? (is_min ? "min" : "max")
                                                          : NULL;
    if (!fn) {
      cuda_error(g, e->span, "vector min/max of this type is not supported");
      return;
    }
    cuda_open_call(sb, fn);
    emit_lane(g, e->ops[0], i, sb);
    tx_sb_puts(sb, ", ");
    emit_lane(g, e->ops[1], i, sb);
    tx_sb_putc(sb, ')');
    return;
  }
  if (k == EXPR_MOD && tx_dtype_is_float(e->dtype)) {
    cuda_error(g, e->span, "vector float %% is not supported");
    return;
  }
  const char *op = cuda_infix(k);
  if (!op) {
    vector_error(g, e);
    return;
  }
  tx_sb_putc(sb, '(');
  emit_lane(g, e->ops[0], i, sb);
  tx_sb_printf(sb, " %s ", op);
  emit_lane(g, e->ops[1], i, sb);
  tx_sb_putc(sb, ')');
}

/* Lane i of a vector operand. */
static void emit_lane(cuda_cg *g, const tx_expr *e, int i, tx_strbuf *sb) {
  tx_expr_kind k = (tx_expr_kind)e->kind;
  if (e->dtype.lanes > 1 && tx_cuda_is_packed(e->dtype)) {
    cuda_packed_vector_error(g, e, "a lane");
  } else if (e->dtype.lanes == 1) {
    /* a scalar operand (a Select's invariant condition) is every lane */
    cuda_emit_expr(g, e, sb);
  } else if (k == EXPR_BROADCAST) {
    cuda_emit_expr(g, e->ops[0], sb);
  } else if (k == EXPR_RAMP) {
    tx_sb_putc(sb, '(');
    cuda_emit_expr(g, e->ops[0], sb);
    if (e->ops[1]->kind == EXPR_INT && e->ops[1]->u.ival >= -(1 << 20) &&
        e->ops[1]->u.ival <= (1 << 20)) {
      /* a literal stride folds: base + stride * i */
      int64_t off = e->ops[1]->u.ival * i;
      tx_sb_printf(sb, off < 0 ? " - %" PRId64 ")" : " + %" PRId64 ")", off < 0 ? -off : off);
    } else {
      tx_sb_puts(sb, " + (");
      cuda_emit_expr(g, e->ops[1], sb);
      tx_sb_printf(sb, " * %d))", i);
    }
  } else if (vector_load(e) && find_temp(g, e)) {
    /* a lane of the temporary the load was bound to */
    const cuda_vtemp *vt = find_temp(g, e);
    if (vt->wide || is_boolvec(e->dtype))
      tx_sb_printf(sb, "%s.v[%d]", vt->name, i);
    else if (cuda_is_vec16(e->dtype) && e->dtype.lanes > 2) {
      tx_sb_putc(sb, '(');
      emit_pair(g, e, i / 2, sb);
      tx_sb_printf(sb, ").%c", COMP[i % 2]);
    } else
      tx_sb_printf(sb, "%s.%c", vt->name, COMP[i & 3]);
  } else if (pair_load(g, e)) {
    /* half of the aligned 32-bit pair the lane is in: one load for two
     * lanes, and never a fault (the word holds an element that is read) */
    tx_sb_putc(sb, '(');
    emit_pair(g, e, i / 2, sb);
    tx_sb_printf(sb, ").%c", COMP[i % 2]);
  } else if (vector_load(e)) {
    /* lane i of a vector access reads the element at lane i of the index */
    if (!cuda_emit_ptr(g, e->u.buffer, e->u.buffer->dtype, e->span, sb)) return;
    tx_sb_putc(sb, '[');
    emit_lane(g, e->ops[0], i, sb);
    tx_sb_putc(sb, ']');
  } else if (pairwise(e) || (cuda_is_vec16(e->dtype) && !lanewise(e))) {
    /* half of the pair the lane belongs to (nvcc keeps the pair once) */
    tx_sb_putc(sb, '(');
    emit_pair(g, e, i / 2, sb);
    tx_sb_printf(sb, ").%c", COMP[i % 2]);
  } else if (lanewise(e)) {
    /* nested vector arithmetic stays lane-wise (no make_T4 per level) */
    emit_lane_op(g, e, i, sb);
  } else if (is_boolvec(e->dtype) && tx_cuda_type(e->dtype)) {
    tx_sb_putc(sb, '(');
    cuda_emit_expr(g, e, sb);
    tx_sb_printf(sb, ").v[%d]", i);
  } else if (i < 4 && tx_cuda_type(e->dtype)) {
    tx_sb_putc(sb, '(');
    cuda_emit_expr(g, e, sb);
    tx_sb_printf(sb, ").%c", COMP[i]);
  } else if (is_lane_mask(e)) {
    /* TVM's T.get_active_lane_mask(dtype, base, limit): lane i is base + i < limit */
    tx_sb_puts(sb, "((");
    cuda_emit_expr(g, e->ops[e->nops - 2], sb);
    tx_sb_printf(sb, " + %d) < ", i);
    cuda_emit_expr(g, e->ops[e->nops - 1], sb);
    tx_sb_putc(sb, ')');
  } else {
    /* one message for every lane (the operand is met once per lane) */
    char buf[32];
    cuda_error(g, e->span, "the lanes of this %s %s cannot be emitted one by one",
               tx_dtype_str(e->dtype, buf), tx_expr_kind_name(k));
  }
}

/* ---- 16-bit float pairs -------------------------------------------------------- */

/* Can `c`, a bool vector, become a per-pair bit mask (0xffff per true lane)
 * without going through its lanes: compares of 16-bit floats (the
 * __h*2_mask intrinsics) combined with and/or/not and uniform values. */
static int mask_ok(const tx_expr *c) {
  tx_expr_kind k = (tx_expr_kind)c->kind;
  if (c->dtype.lanes == 1 || k == EXPR_BROADCAST) return 1;
  if (tx_expr_is_compare(k)) return cuda_is_vec16(c->ops[0]->dtype);
  if (k == EXPR_AND || k == EXPR_OR) return mask_ok(c->ops[0]) && mask_ok(c->ops[1]);
  if (k == EXPR_NOT) return mask_ok(c->ops[0]);
  return 0;
}

static void emit_mask(cuda_cg *g, const tx_expr *c, int j, tx_strbuf *sb) {
  tx_expr_kind k = (tx_expr_kind)c->kind;
  if (c->dtype.lanes == 1 || k == EXPR_BROADCAST) {
    tx_sb_puts(sb, "(");
    cuda_emit_expr(g, c->dtype.lanes == 1 ? c : c->ops[0], sb);
    tx_sb_puts(sb, " ? 0xffffffffU : 0U)");
  } else if (k == EXPR_AND || k == EXPR_OR) {
    tx_sb_putc(sb, '(');
    emit_mask(g, c->ops[0], j, sb);
    tx_sb_puts(sb, k == EXPR_AND ? " & " : " | ");
    emit_mask(g, c->ops[1], j, sb);
    tx_sb_putc(sb, ')');
  } else if (k == EXPR_NOT) {
    tx_sb_puts(sb, "(~");
    emit_mask(g, c->ops[0], j, sb);
    tx_sb_putc(sb, ')');
  } else {
    /* C semantics: ordered compares, except that != is true on NaN */
    const char *fn = k == EXPR_EQ   ? "__heq2_mask"
                     : k == EXPR_NE ? "__hneu2_mask"
                     : k == EXPR_LT ? "__hlt2_mask"
                     : k == EXPR_LE ? "__hle2_mask"
                     : k == EXPR_GT ? "__hgt2_mask"
                                    : "__hge2_mask";
    cuda_open_call(sb, fn);
    emit_pair(g, c->ops[0], j, sb);
    tx_sb_puts(sb, ", ");
    emit_pair(g, c->ops[1], j, sb);
    tx_sb_putc(sb, ')');
  }
}

/* __halves2half2(lane 2j, lane 2j + 1) of `e`, whose lanes are computed
 * one by one (emit_lane_op; emit_lane would come back here). */
static void emit_halves(cuda_cg *g, const tx_expr *e, int bf, int j, tx_strbuf *sb) {
  tx_sb_puts(sb, bf ? "__halves2bfloat162(" : "__halves2half2(");
  for (int i = 2 * j; i < 2 * j + 2; i++) {
    if (i > 2 * j) tx_sb_puts(sb, ", ");
    if (lanewise(e))
      emit_lane_op(g, e, i, sb);
    else
      emit_lane(g, e, i, sb); /* a gather: its elements */
  }
  tx_sb_putc(sb, ')');
}

static void emit_call_pairs(cuda_cg *g, const char *fn, const tx_expr *const *ops, int n, int j,
                            tx_strbuf *sb) {
  cuda_open_call(sb, fn);
  for (int i = 0; i < n; i++) {
    if (i) tx_sb_puts(sb, ", ");
    emit_pair(g, ops[i], j, sb);
  }
  tx_sb_putc(sb, ')');
}

/* a * b + c (and its - forms) as one rounding: __hfma2. Returns 0 when e
 * is not such a sum. nvcc's default contraction would fuse the two paired
 * operations anyway; emitting the fma makes it certain. */
static int emit_fma_pair(cuda_cg *g, const tx_expr *e, int j, tx_strbuf *sb) {
  tx_expr_kind k = (tx_expr_kind)e->kind;
  if (k != EXPR_ADD && k != EXPR_SUB) return 0;
  const tx_expr *a = e->ops[0], *b = e->ops[1];
  int mul_left = a->kind == EXPR_MUL && cuda_is_vec16(a->dtype);
  int mul_right = b->kind == EXPR_MUL && cuda_is_vec16(b->dtype);
  if (!mul_left && !mul_right) return 0;
  const tx_expr *m = mul_left ? a : b, *c = mul_left ? b : a;
  tx_sb_puts(sb, "__hfma2(");
  if (k == EXPR_SUB && !mul_left) { /* c - x * y = (-x) * y + c */
    tx_sb_puts(sb, "__hneg2(");
    emit_pair(g, m->ops[0], j, sb);
    tx_sb_putc(sb, ')');
  } else {
    emit_pair(g, m->ops[0], j, sb);
  }
  tx_sb_puts(sb, ", ");
  emit_pair(g, m->ops[1], j, sb);
  tx_sb_puts(sb, ", ");
  if (k == EXPR_SUB && mul_left) { /* x * y - c = x * y + (-c) */
    tx_sb_puts(sb, "__hneg2(");
    emit_pair(g, c, j, sb);
    tx_sb_putc(sb, ')');
  } else {
    emit_pair(g, c, j, sb);
  }
  tx_sb_putc(sb, ')');
  return 1;
}

static void emit_cast_pair(cuda_cg *g, const tx_expr *e, int bf, int j, tx_strbuf *sb) {
  const tx_expr *src = e->ops[0];
  tx_dtype from = tx_dtype_elem(src->dtype), to = tx_dtype_elem(e->dtype);
  const char *f2 = bf ? "__floats2bfloat162_rn(" : "__floats2half2_rn(";
  if (tx_dtype_eq(from, to)) {
    emit_pair(g, src, j, sb);
  } else if (is_f32(from)) {
    /* cvt.rn.f16x2.f32 / cvt.rn.bf16x2.f32: one rounding per lane */
    tx_sb_puts(sb, f2);
    emit_lane(g, src, 2 * j, sb);
    tx_sb_puts(sb, ", ");
    emit_lane(g, src, 2 * j + 1, sb);
    tx_sb_putc(sb, ')');
  } else if (is_f16(from)) {
    /* half <-> bfloat16 through float (exact), then one rounding */
    tx_sb_printf(sb, "%s__low2float(", f2);
    emit_pair(g, src, j, sb);
    tx_sb_puts(sb, "), __high2float(");
    emit_pair(g, src, j, sb);
    tx_sb_puts(sb, "))");
  } else {
    emit_halves(g, e, bf, j, sb); /* lanes are C conversions */
  }
}

/* Pair j (lanes 2j, 2j+1) of a 16-bit float vector as a half2/nv_bfloat162. */
static void emit_pair(cuda_cg *g, const tx_expr *e, int j, tx_strbuf *sb) {
  tx_dtype el = tx_dtype_elem(e->dtype);
  int bf = el.code == DT_BFLOAT;
  const char *p2 = bf ? "nv_bfloat162" : "half2";
  tx_expr_kind k = (tx_expr_kind)e->kind;
  if (e->dtype.lanes == 1 || k == EXPR_BROADCAST) {
    tx_sb_puts(sb, bf ? "__bfloat162bfloat162(" : "__half2half2(");
    cuda_emit_expr(g, e->dtype.lanes == 1 ? e : e->ops[0], sb);
    tx_sb_putc(sb, ')');
    return;
  }
  if (!cuda_is_vec16(e->dtype)) {
    vector_error(g, e);
    return;
  }
  const cuda_vtemp *vt = vector_load(e) ? find_temp(g, e) : NULL;
  if (vt && e->dtype.lanes == 2) {
    tx_sb_puts(sb, vt->name);
    return;
  }
  if (vt) { /* 4 or 8 lanes in a uint2/uint4 of packed pairs */
    cuda_need_helper(g, bf ? H_BF2_BITS : H_H2_BITS);
    tx_sb_printf(sb, "%s(%s.%c)", bf ? "tx_bits_bf2" : "tx_bits_h2", vt->name, COMP[j]);
    return;
  }
  if (pair_load(g, e)) {
    tx_sb_printf(sb, "((%s*)(", p2);
    if (!cuda_emit_ptr(g, e->u.buffer, e->u.buffer->dtype, e->span, sb)) return;
    tx_sb_puts(sb, " + ");
    cuda_emit_expr(g, e->ops[0]->ops[0], sb);
    tx_sb_printf(sb, "))[%d]", j);
    return;
  }
  if (vector_load(e) || is_ite(e)) {
    /* a gather, or lanes that each read only their selected side */
    emit_halves(g, e, bf, j, sb);
    return;
  }
  if (emit_fma_pair(g, e, j, sb)) return;
  const char *fn = k == EXPR_ADD   ? "__hadd2"
                   : k == EXPR_SUB ? "__hsub2"
                   : k == EXPR_MUL ? "__hmul2"
                   : k == EXPR_DIV ? "__h2div"
                   : k == EXPR_MIN ? "__hmin2"
                   : k == EXPR_MAX ? "__hmax2"
                                   : NULL;
  if (fn) {
    emit_call_pairs(g, fn, e->ops, 2, j, sb);
    return;
  }
  if (k == EXPR_SELECT) {
    const tx_expr *c = e->ops[0];
    if (c->dtype.lanes == 1 || c->kind == EXPR_BROADCAST) {
      tx_sb_putc(sb, '(');
      cuda_emit_expr(g, c->dtype.lanes == 1 ? c : c->ops[0], sb);
      tx_sb_puts(sb, " ? ");
      emit_pair(g, e->ops[1], j, sb);
      tx_sb_puts(sb, " : ");
      emit_pair(g, e->ops[2], j, sb);
      tx_sb_putc(sb, ')');
    } else if (mask_ok(c)) {
      /* compare masks and a bitwise select: two instructions per pair */
      cuda_need_helper(g, bf ? H_BF2_BITS : H_H2_BITS);
      cuda_need_helper(g, bf ? H_SELECT_BF2 : H_SELECT_H2);
      tx_sb_puts(sb, bf ? "tx_select_bf2(" : "tx_select_h2(");
      emit_mask(g, c, j, sb);
      tx_sb_puts(sb, ", ");
      emit_pair(g, e->ops[1], j, sb);
      tx_sb_puts(sb, ", ");
      emit_pair(g, e->ops[2], j, sb);
      tx_sb_putc(sb, ')');
    } else {
      emit_halves(g, e, bf, j, sb);
    }
    return;
  }
  if (k == EXPR_CAST) {
    emit_cast_pair(g, e, bf, j, sb);
    return;
  }
  if (lanewise(e) || k == EXPR_RAMP) {
    vector_error(g, e);
    return;
  }
  /* a whole value (a variable, a call): its pair j */
  if (e->dtype.lanes == 2) {
    cuda_emit_expr(g, e, sb);
    return;
  }
  cuda_need_helper(g, bf ? H_BF2_BITS : H_H2_BITS);
  tx_sb_printf(sb, "%s((", bf ? "tx_bits_bf2" : "tx_bits_h2");
  cuda_emit_expr(g, e, sb);
  tx_sb_printf(sb, ").%c)", COMP[j]);
}

/* ---- whole vectors --------------------------------------------------------------- */

/* *(vt*)(ptr + base) for a stride-1 Ramp index of `b`. */
static void emit_contiguous_as(cuda_cg *g, const tx_buffer *b, const tx_expr *idx, const char *vt,
                               tirx_span span, tx_strbuf *sb) {
  tx_sb_printf(sb, "*(%s*)(", vt);
  if (!cuda_emit_ptr(g, b, b->dtype, span, sb)) return;
  tx_sb_puts(sb, " + ");
  cuda_emit_expr(g, idx->ops[0], sb);
  tx_sb_putc(sb, ')');
}

/* ... in t's own CUDA type. */
static void emit_contiguous(cuda_cg *g, const tx_buffer *b, const tx_expr *idx, tx_dtype t,
                            tirx_span span, tx_strbuf *sb) {
  emit_contiguous_as(g, b, idx, cuda_ctype(g, t, span), span, sb);
}

void cuda_emit_vector_op(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  tx_expr_kind k = (tx_expr_kind)e->kind;
  tx_dtype t = e->dtype;
  if (tx_cuda_is_packed(t)) { /* loads are cuda_packed.c's; nothing else is a packed word */
    cuda_packed_vector_error(g, e, tx_expr_kind_name(k));
    return;
  }
  const cuda_vtemp *vt = vector_load(e) ? find_temp(g, e) : NULL;
  if (vt && !vt->wide) {
    tx_sb_puts(sb, vt->name);
    return;
  }
  if (whole_load(g, e)) {
    emit_contiguous(g, e->u.buffer, e->ops[0], t, e->span, sb);
    return;
  }
  /* Otherwise a gather: a contiguous load whose address is not provably
   * aligned to its vector type would fault as one access, so it is built
   * from its elements like any other vector index. */
  int built = lanewise(e) || vector_load(e) || k == EXPR_BROADCAST || k == EXPR_RAMP;
  if (!built) {
    vector_error(g, e);
    return;
  }
  if (cuda_is_vec16(t)) {
    int bf = t.code == DT_BFLOAT;
    (void)cuda_ctype(g, t, e->span); /* the fp16/bf16 header */
    if (t.lanes == 2) {
      emit_pair(g, e, 0, sb);
      return;
    }
    cuda_need_helper(g, bf ? H_BF2_BITS : H_H2_BITS);
    int n = t.lanes / 2;
    tx_sb_puts(sb, n == 2 ? "make_uint2(" : "make_uint4(");
    for (int j = 0; j < n; j++) {
      if (j) tx_sb_puts(sb, ", ");
      tx_sb_puts(sb, bf ? "tx_bf2_bits(" : "tx_h2_bits(");
      emit_pair(g, e, j, sb);
      tx_sb_putc(sb, ')');
    }
    tx_sb_putc(sb, ')');
    return;
  }
  const char *mk = make_fn(g, t, e->span);
  if (!mk) {
    char buf[32];
    cuda_error(g, e->span,
               "a %s value of type %s has no CUDA type (vectors of this type exist only as "
               "operands computed lane by lane)",
               tx_expr_kind_name(k), tx_dtype_str(t, buf));
    return;
  }
  cuda_open_call(sb, mk);
  for (int i = 0; i < t.lanes; i++) {
    if (i) tx_sb_puts(sb, ", ");
    if (k == EXPR_RAMP) {
      /* (base + (stride * i)) whatever the stride: a Ramp value */
      tx_sb_putc(sb, '(');
      cuda_emit_expr(g, e->ops[0], sb);
      tx_sb_puts(sb, " + (");
      cuda_emit_expr(g, e->ops[1], sb);
      tx_sb_printf(sb, " * %d))", i);
    } else {
      emit_lane(g, e, i, sb);
    }
  }
  tx_sb_putc(sb, ')');
}

/* ---- vector loads bound to temporaries ------------------------------------------ */

/* Elements whose lanes a temporary can name: .x .. .w of the CUDA vector
 * types, the packed pairs of 16-bit floats, v[i] of tx_boolN. The fp8 and
 * narrower vector types are storage types without lane members. */
static int lanes_named(tx_dtype t) {
  tx_dtype el = tx_dtype_elem(t);
  return el.code == DT_INT || el.code == DT_UINT || el.code == DT_BOOL ||
         (el.code == DT_FLOAT && el.bits >= 16) || el.code == DT_BFLOAT;
}

/* The C type of a temporary that holds the contiguous load e as one aligned
 * access, or NULL: e's own CUDA type for 4, 8 and 16 bytes (one 32-, 64- or
 * 128-bit load); tx_vec256<T, N> for 32 bytes where the target has 256-bit
 * loads (sm_100+, `ld.global.v8.b32`). Any other width is more than one
 * access whatever it is bound to, so its lanes are read as elements. */
static const char *temp_type(cuda_cg *g, const tx_expr *e, int *wide, char *buf, size_t n) {
  *wide = 0;
  if (!contiguous_load(e) || !lanes_named(e->dtype)) return NULL;
  int64_t bytes = vector_bytes(e->dtype);
  if ((bytes == 4 || bytes == 8 || bytes == 16) && tx_cuda_type(e->dtype) &&
      aligned_load(g, e, bytes))
    return cuda_ctype(g, e->dtype, e->span);
  if (bytes == 32 && tx_target_has(g->target, TX_FEAT_LDST256) && aligned_load(g, e, 32)) {
    snprintf(buf, n, "tx_vec256<%s, %d>", cuda_ctype(g, tx_dtype_elem(e->dtype), e->span),
             e->dtype.lanes);
    cuda_need_helper(g, H_VEC256);
    *wide = 1;
    return buf;
  }
  return NULL;
}

static void push_temp(cuda_cg *g, cuda_vtemp t) {
  if (g->nvtemps == g->capvtemps) {
    uint32_t cap = g->capvtemps ? 2 * g->capvtemps : 8;
    cuda_vtemp *p = tx_mem_realloc(tx_ir_alloc(&g->ir), g->vtemps, cap * sizeof *p);
    if (!p) {
      g->nomem = 1;
      return;
    }
    g->vtemps = p;
    g->capvtemps = cap;
  }
  g->vtemps[g->nvtemps++] = t;
}

/* Does e read a temporary already: its own, or that of an equal load (the
 * same value, read with no access at all, so this is right even inside a
 * T.if_then_else side)? */
static int share_temp(cuda_cg *g, const tx_expr *e) {
  if (find_temp(g, e)) return 1;
  for (uint32_t i = 0; i < g->nvtemps; i++)
    if (tx_expr_equal_with(tx_ir_alloc(&g->ir), g->vtemps[i].load, e)) {
      push_temp(g, (cuda_vtemp){e, g->vtemps[i].name, g->vtemps[i].wide});
      return 1;
    }
  return 0;
}

/* Bind the load e to a temporary: `float4 A_vec = *(float4*)(A_ptr + i);`. */
static void add_temp(cuda_cg *g, const tx_expr *e, tirx_span span) {
  if (share_temp(g, e)) return;
  int wide;
  char buf[64];
  const char *ty = temp_type(g, e, &wide, buf, sizeof buf);
  if (!ty) return;
  const tx_buffer *b = e->u.buffer;
  tx_strbuf sb = cuda_sb(g);
  emit_contiguous_as(g, b, e->ops[0], ty, e->span, &sb);
  tx_strbuf nb = cuda_sb(g);
  tx_sb_printf(&nb, "%s_vec", b->name ? b->name : "v");
  const char *name = cuda_unique_name(g, cuda_sb_text(g, &nb));
  cuda_line(g, span, "%s %s = %s;", ty, name, cuda_sb_text(g, &sb));
  tx_sb_free(&sb);
  tx_sb_free(&nb);
  push_temp(g, (cuda_vtemp){e, name, wide});
}

typedef struct temp_walk {
  cuda_cg *g;
  const tx_expr *whole; /* the root, used as a whole value; or NULL */
  tirx_span span;
  int alias; /* the second walk: only share temporaries already made */
} temp_walk;

static int temps_pre(tx_visitor *v, const tx_expr *e) {
  temp_walk *w = v->user;
  /* Scalars hold no vector loads (TIRx has no lane extract). */
  if (e->dtype.lanes == 1 && e->kind != EXPR_CALL) return 0;
  if (w->alias) {
    if (vector_load(e)) (void)share_temp(w->g, e);
    return e->kind != EXPR_LET; /* the body's loads may read the binder */
  }
  if (e->kind == EXPR_CALL) {
    /* Of a call only an if_then_else condition is read lane by lane, and
     * only it is always evaluated: its sides are read lane by lane where
     * selected, so their loads stay where they are. */
    if (is_ite(e) && e->dtype.lanes > 1) tx_visit_expr(v, e->ops[0]);
    return 0;
  }
  if (e->kind == EXPR_LET) { /* the body reads the binder, defined only inside */
    tx_visit_expr(v, e->ops[0]);
    return 0;
  }
  if (vector_load(e) && e != w->whole) add_temp(w->g, e, w->span);
  return 1;
}

void cuda_vector_temps(cuda_cg *g, tirx_span span, const tx_expr *root, int whole) {
  if (!root || root->dtype.lanes == 1) return;
  temp_walk w = {g, whole ? root : NULL, span, 0};
  tx_visitor v = {.user = &w, .pre_expr = temps_pre};
  tx_visit_expr(&v, root);
  if (!g->nvtemps) return;
  w.alias = 1;
  tx_visit_expr(&v, root);
}

void cuda_vector_temps_done(cuda_cg *g) {
  g->nvtemps = 0;
}

/* ---- stores -------------------------------------------------------------------- */

/* Does the index read memory (or call anything)? A load bound to a
 * temporary was read before the statement: it reads a register. */
static int note_load_or_call(tx_visitor *vis, const tx_expr *e) {
  if (e->kind == EXPR_LOAD && find_temp(vis->user, e)) return 0;
  if (e->kind == EXPR_LOAD || e->kind == EXPR_CALL) vis->stop = 1;
  return 1;
}

/* A temporary named `base` holding `text` (a declaration line). */
static const char *temp(cuda_cg *g, tirx_span span, const char *type, const char *base,
                        tx_strbuf *text) {
  const char *name = cuda_unique_name(g, base);
  cuda_line(g, span, "%s %s = %s;", type, name, cuda_sb_text(g, text));
  return name;
}

/* A scatter: the lanes of `val` stored one by one at the lanes of `idx`.
 * Every lane of the value (and of an index that reads memory) is computed
 * before the first store: a lane written early must not change what a
 * later lane reads, as for one vector store. With a `mask` (a bool vector
 * or scalar: A.vstore(..., predicate=)), only the lanes it selects are
 * stored. */
static void emit_scatter(cuda_cg *g, tirx_span span, const tx_buffer *b, const tx_expr *idx,
                         const tx_expr *val, const tx_expr *mask) {
  tx_dtype t = val->dtype;
  enum { MAX_SCATTER = 64 };
  if (t.lanes > MAX_SCATTER || idx->dtype.lanes != t.lanes) {
    cuda_error(g, span, "a scatter of %d lanes is not supported", t.lanes);
    return;
  }
  tx_visitor vis = {.user = g, .pre_expr = note_load_or_call};
  tx_visit_expr(&vis, idx);
  int idx_temps = vis.stop;
  const char *vnames[MAX_SCATTER], *inames[MAX_SCATTER], *mnames[MAX_SCATTER];
  int pairs = cuda_is_vec16(t);
  tx_dtype el = tx_dtype_elem(t);
  cuda_line(g, span, "{");
  g->indent++;
  for (int i = 0; i < (pairs ? t.lanes / 2 : t.lanes); i++) {
    tx_strbuf sb = cuda_sb(g);
    if (pairs) {
      (void)cuda_ctype(g, t, span);
      emit_pair(g, val, i, &sb);
      vnames[i] = temp(g, span, el.code == DT_BFLOAT ? "nv_bfloat162" : "half2", "tx_pair", &sb);
    } else {
      emit_lane(g, val, i, &sb);
      vnames[i] = temp(g, span, cuda_ctype(g, el, span), "tx_lane", &sb);
    }
    tx_sb_free(&sb);
  }
  for (int i = 0; mask && i < t.lanes; i++) {
    tx_strbuf sb = cuda_sb(g);
    emit_lane(g, mask, i, &sb);
    mnames[i] = temp(g, span, "bool", "tx_mask", &sb);
    tx_sb_free(&sb);
  }
  for (int i = 0; idx_temps && i < t.lanes; i++) {
    tx_strbuf sb = cuda_sb(g);
    emit_lane(g, idx, i, &sb);
    inames[i] = temp(g, span, cuda_ctype(g, tx_dtype_elem(idx->dtype), span), "tx_index", &sb);
    tx_sb_free(&sb);
  }
  for (int i = 0; i < t.lanes; i++) {
    tx_strbuf sb = cuda_sb(g);
    if (mask) tx_sb_printf(&sb, "if (%s) ", mnames[i]);
    if (cuda_emit_ptr(g, b, b->dtype, span, &sb)) {
      tx_sb_putc(&sb, '[');
      if (idx_temps)
        tx_sb_puts(&sb, inames[i]);
      else
        emit_lane(g, idx, i, &sb);
      if (pairs)
        tx_sb_printf(&sb, "] = %s.%c;", vnames[i / 2], COMP[i % 2]);
      else
        tx_sb_printf(&sb, "] = %s;", vnames[i]);
      const char *text = cuda_sb_text(g, &sb);
      cuda_line(g, span, "%s", text ? text : "");
    }
    tx_sb_free(&sb);
  }
  g->indent--;
  cuda_line(g, span, "}");
}

static void emit_vector_store(cuda_cg *g, const tx_stmt *s, const tx_expr *idx, int whole) {
  const tx_buffer *b = s->buffer;
  const tx_expr *val = s->exprs[0];
  tx_dtype t = val->dtype;
  if (whole) {
    tx_strbuf sb = cuda_sb(g);
    emit_contiguous(g, b, idx, t, s->span, &sb);
    tx_sb_puts(&sb, " = ");
    cuda_emit_expr(g, val, &sb);
    const char *text = cuda_sb_text(g, &sb);
    cuda_line(g, s->span, "%s;", text ? text : "");
    tx_sb_free(&sb);
    return;
  }
  emit_scatter(g, s->span, b, idx, val, NULL);
}

void cuda_emit_vector_store(cuda_cg *g, const tx_stmt *s, const tx_expr *idx) {
  const tx_buffer *b = s->buffer;
  const tx_expr *val = s->exprs[0];
  tx_dtype t = val->dtype;
  /* One vector store when the address is provably aligned to the vector
   * type; otherwise the lanes are stored one by one (a scatter), which is
   * right at any address. */
  int whole = idx->kind == EXPR_RAMP && is_one(idx->ops[1]) && idx->dtype.lanes == t.lanes &&
              tx_cuda_type(t) && cuda_access_aligned(g, b, idx->ops[0], type_align(t));
  cuda_vector_temps(g, s->span, val, whole);
  cuda_vector_temps(g, s->span, idx, 0);
  emit_vector_store(g, s, idx, whole);
  cuda_vector_temps_done(g);
}

int cuda_is_masked_vstore(const tx_expr *e) {
  return e && e->kind == EXPR_CALL && e->u.call.op && strcmp(e->u.call.op, ".vstore") == 0 &&
         e->nops >= 3 && e->ops[0]->kind == EXPR_BUFFER && tx_call_arg(e, 3, "predicate");
}

void cuda_emit_masked_vstore(cuda_cg *g, const tx_stmt *s, const tx_expr *e) {
  const tx_buffer *b = e->ops[0]->u.buffer;
  const tx_expr *begin = e->ops[1], *val = e->ops[2], *mask = tx_call_arg(e, 3, "predicate");
  const tx_expr *idx = begin->kind == EXPR_TUPLE && begin->nops == 1 ? begin->ops[0]
                       : begin->kind == EXPR_TUPLE                   ? NULL
                                                                     : begin;
  if (!idx) {
    cuda_error(g, e->span,
               "buffer '%s' is accessed with %u indices; CUDA codegen expects flattened "
               "(one-dimensional) accesses",
               b->name ? b->name : "?", begin->nops);
    return;
  }
  cuda_vector_temps(g, s->span, val, 0);
  cuda_vector_temps(g, s->span, idx, 0);
  cuda_vector_temps(g, s->span, mask, 0);
  emit_scatter(g, s->span, b, idx, val, mask);
  cuda_vector_temps_done(g);
}

/* ---- what the emitter can write (tx_backend.vector_node_ok) ------------------------- */

int tx_cuda_vector_lanes(tx_dtype t) {
  if (t.lanes != 1) return 0;
  if (tx_cuda_is_packed_elem(t)) return 128 / t.bits; /* one 16-byte word (int4) */
  if (t.bits == 32 && (t.code == DT_FLOAT || t.code == DT_INT || t.code == DT_UINT)) return 4;
  if (t.bits == 16 && (t.code == DT_FLOAT || t.code == DT_BFLOAT)) return 8;
  if (t.code == DT_BOOL) return 8;
  return 0;
}

static int lanes_w32(tx_dtype t) {
  return tx_cuda_vector_lanes(tx_dtype_elem(t)) == 4;
}

static int lanes_w16(tx_dtype t) {
  return tx_cuda_vector_lanes(tx_dtype_elem(t)) == 8 && t.code != DT_BOOL;
}

/* Element types a vector cast converts from lane by lane. */
static int cast_source_ok(tx_dtype t) {
  return lanes_w32(t) || lanes_w16(t) || t.code == DT_BOOL;
}

static int is_if_then_else(const tx_expr *e) {
  return e->kind == EXPR_CALL && e->nops == 3 && e->u.call.op &&
         strcmp(e->u.call.op, "T.if_then_else") == 0;
}

int tx_cuda_vector_node_ok(const tx_expr *e) {
  tx_expr_kind k = (tx_expr_kind)e->kind;
  int lanes = e->dtype.lanes;
  if (tx_cuda_is_packed(e->dtype)) /* whole packed words: contiguous loads, names */
    return tx_cuda_type(e->dtype) &&
           (k == EXPR_VAR || (k == EXPR_LOAD && e->nops == 1 && e->ops[0]->kind == EXPR_RAMP &&
                              is_one(e->ops[0]->ops[1])));
  int common = k == EXPR_LOAD || k == EXPR_VAR || k == EXPR_BROADCAST || k == EXPR_SELECT ||
               is_if_then_else(e) || (k == EXPR_CAST && cast_source_ok(e->ops[0]->dtype));
  int arith = k == EXPR_ADD || k == EXPR_SUB || k == EXPR_MUL || k == EXPR_DIV || k == EXPR_MIN ||
              k == EXPR_MAX;
  if (lanes_w16(e->dtype)) return (common || arith) && (lanes == 2 || lanes == 4 || lanes == 8);
  if (lanes_w32(e->dtype))
    return (common || arith || k == EXPR_RAMP || (k == EXPR_MOD && tx_dtype_is_int(e->dtype))) &&
           lanes <= 4;
  if (e->dtype.code == DT_BOOL) /* conditions: compares of 32-bit, 16-bit or bool lanes, && || ! */
    return (common || k == EXPR_AND || k == EXPR_OR || k == EXPR_NOT ||
            (tx_expr_is_compare(k) && cast_source_ok(e->ops[0]->dtype))) &&
           (lanes == 2 || lanes == 4 || lanes == 8);
  return 0;
}

/* Contiguous vector accesses go to global, shared and local memory: a local
 * array of packed elements is declared aligned and moves as words; any
 * other lives in registers, only as aligned as its element, and codegen
 * moves its lanes one by one (cuda_align proves nothing wider), which
 * still lets the global or shared side of a copy be one vector. */
int tx_cuda_vector_access_ok(const tx_buffer *b, int contiguous) {
  if (!contiguous) return !tx_cuda_is_packed_elem(b->dtype);
  const char *sc = b->scope ? b->scope : "global";
  return strcmp(sc, "global") == 0 || strcmp(sc, "shared") == 0 || strcmp(sc, "shared.dyn") == 0 ||
         strcmp(sc, "local") == 0;
}
