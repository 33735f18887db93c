/*
 * cuda_types.c - CUDA spellings of TIRx dtypes, the headers they need, and
 * the dynamic shared memory layout rule shared with split-host-device.
 *
 * Only types with a CUDA spelling are accepted: a vector width CUDA has no
 * type for is an error at the use, not a silently wrong program. Packed
 * sub-byte integers (int4, uint4, int1) are spelled by the width of the
 * packed word a vector of them fills; their storage is bytes.
 */
#include <string.h>

#include "target/cuda/cuda_internal.h"

static const char *scalar_type(tx_dtype t) {
  switch ((tx_dtype_code)t.code) {
  case DT_INT:
    return t.bits == 8     ? "signed char"
           : t.bits == 16  ? "short"
           : t.bits == 32  ? "int"
           : t.bits == 64  ? "long long"
           : t.bits == 128 ? "__int128_t" /* TVM's spelling; NVRTC -device-int128 */
                           : NULL;
  case DT_UINT:
    return t.bits == 8     ? "unsigned char"
           : t.bits == 16  ? "unsigned short"
           : t.bits == 32  ? "unsigned int"
           : t.bits == 64  ? "unsigned long long"
           : t.bits == 128 ? "__uint128_t"
                           : NULL;
  case DT_FLOAT:
    return t.bits == 16 ? "half" : t.bits == 32 ? "float" : t.bits == 64 ? "double" : NULL;
  case DT_BFLOAT:
    return t.bits == 16 ? "nv_bfloat16" : NULL;
  case DT_E4M3FN:
    return "__nv_fp8_e4m3";
  case DT_E5M2:
    return "__nv_fp8_e5m2";
  case DT_E8M0FNU:
    return "__nv_fp8_e8m0";
  case DT_E2M3FN:
    return "__nv_fp6_e2m3";
  case DT_E3M2FN:
    return "__nv_fp6_e3m2";
  case DT_E2M1FN:
    return "__nv_fp4_e2m1";
  case DT_BOOL:
    return "bool";
  case DT_HANDLE:
    return "void*";
  case DT_VOID:
    return "void";
  case DT_E4M3FNUZ: /* no CUDA type: the fnuz encodings are AMD's */
  case DT_E5M2FNUZ:
  case DT_E4M3:
  case DT_E4M3B11FNUZ:
  case DT_E3M4:
    return NULL;
  }
  return NULL;
}

/* X(code, bits, lanes, "spelling") for the vector types CUDA has. 16-bit
 * floats of 4 and 8 lanes travel as uint2/uint4, as in TVM's codegen.
 * Bool vectors are tx_boolN, structs of N one-byte bools that codegen
 * defines in the preamble when used (H_BOOL2..H_BOOL8, docs/codegen.md):
 * the layout of N consecutive elements of a bool buffer, so a contiguous
 * load or store is one access, and lanes the compiler keeps as predicates. */
#define VECTOR_TYPES(X)                                                                            \
  X(DT_FLOAT, 32, 2, "float2")                                                                     \
  X(DT_FLOAT, 32, 3, "float3")                                                                     \
  X(DT_FLOAT, 32, 4, "float4")                                                                     \
  X(DT_FLOAT, 64, 2, "double2")                                                                    \
  X(DT_INT, 32, 2, "int2")                                                                         \
  X(DT_INT, 32, 3, "int3")                                                                         \
  X(DT_INT, 32, 4, "int4")                                                                         \
  X(DT_UINT, 32, 2, "uint2")                                                                       \
  X(DT_UINT, 32, 3, "uint3")                                                                       \
  X(DT_UINT, 32, 4, "uint4")                                                                       \
  X(DT_INT, 64, 2, "longlong2")                                                                    \
  X(DT_UINT, 64, 2, "ulonglong2")                                                                  \
  X(DT_INT, 16, 2, "short2")                                                                       \
  X(DT_INT, 16, 4, "short4")                                                                       \
  X(DT_UINT, 16, 2, "ushort2")                                                                     \
  X(DT_UINT, 16, 4, "ushort4")                                                                     \
  X(DT_INT, 8, 2, "char2")                                                                         \
  X(DT_INT, 8, 4, "char4")                                                                         \
  X(DT_UINT, 8, 2, "uchar2")                                                                       \
  X(DT_UINT, 8, 4, "uchar4")                                                                       \
  X(DT_FLOAT, 16, 2, "half2")                                                                      \
  X(DT_FLOAT, 16, 4, "uint2")                                                                      \
  X(DT_FLOAT, 16, 8, "uint4")                                                                      \
  X(DT_BFLOAT, 16, 2, "nv_bfloat162")                                                              \
  X(DT_BFLOAT, 16, 4, "uint2")                                                                     \
  X(DT_BFLOAT, 16, 8, "uint4")                                                                     \
  X(DT_E4M3FN, 8, 2, "__nv_fp8x2_e4m3")                                                            \
  X(DT_E4M3FN, 8, 4, "__nv_fp8x4_e4m3")                                                            \
  X(DT_E5M2, 8, 2, "__nv_fp8x2_e5m2")                                                              \
  X(DT_E5M2, 8, 4, "__nv_fp8x4_e5m2")                                                              \
  X(DT_BOOL, 1, 2, "tx_bool2")                                                                     \
  X(DT_BOOL, 1, 3, "tx_bool3")                                                                     \
  X(DT_BOOL, 1, 4, "tx_bool4")                                                                     \
  X(DT_BOOL, 1, 8, "tx_bool8")

int tx_cuda_is_packed(tx_dtype t) {
  /* uint1 is TVM's bool (DataType::Bool), a predicate lane, not a packed bit */
  if (t.code == DT_UINT && t.bits == 1) return 0;
  return (t.code == DT_INT || t.code == DT_UINT) && t.bits < 8 && 8 % t.bits == 0;
}

int tx_cuda_is_packed_elem(tx_dtype t) {
  return tx_cuda_is_packed(t) && t.lanes == 1;
}

/* A vector of packed sub-byte integers is the packed word(s) it fills, as
 * TVM's PrintType spells them (int4x8 is an int); one element has no C
 * type of its own. */
static const char *packed_type(tx_dtype t) {
  int u = t.code == DT_UINT, w = t.bits * t.lanes;
  if (t.lanes == 1) return NULL;
  return w == 8     ? (u ? "unsigned char" : "signed char")
         : w == 16  ? (u ? "unsigned short" : "short")
         : w == 32  ? (u ? "unsigned int" : "int")
         : w == 64  ? (u ? "uint2" : "int2")
         : w == 128 ? (u ? "uint4" : "int4")
                    : NULL;
}

const char *tx_cuda_type(tx_dtype t) {
  if (tx_cuda_is_packed(t)) return packed_type(t);
  if (t.lanes == 1) return scalar_type(t);
#define X(c_, b_, l_, name)                                                                        \
  if (t.code == (c_) && t.bits == (b_) && t.lanes == (l_)) return name;
  VECTOR_TYPES(X)
#undef X
  return NULL;
}

unsigned tx_cuda_type_features(tx_dtype t) {
  switch ((tx_dtype_code)t.code) {
  case DT_FLOAT:
    return t.bits == 16 ? CUDA_FEAT_FP16 : 0;
  case DT_BFLOAT:
    return CUDA_FEAT_BF16;
  case DT_E4M3FN:
  case DT_E5M2:
  case DT_E8M0FNU:
    return CUDA_FEAT_FP8;
  case DT_E2M3FN:
  case DT_E3M2FN:
    return CUDA_FEAT_FP6;
  case DT_E2M1FN:
    return CUDA_FEAT_FP4;
  case DT_INT:
  case DT_UINT:
  case DT_BOOL:
  case DT_HANDLE:
  case DT_VOID:
  case DT_E4M3FNUZ:
  case DT_E5M2FNUZ:
  case DT_E4M3:
  case DT_E4M3B11FNUZ:
  case DT_E3M4:
    return 0;
  }
  return 0;
}

int64_t tx_cuda_elem_bytes(tx_dtype t) {
  int64_t bits = (int64_t)t.bits * t.lanes;
  if (t.code == DT_BOOL) bits = 8 * (int64_t)t.lanes;
  if (t.code == DT_HANDLE) bits = 64 * (int64_t)t.lanes;
  /* Sub-byte element types: one element per byte unless vectorised. */
  return bits < 8 ? 1 : (bits + 7) / 8;
}

int tx_cuda_buffer_owns_storage(const tx_buffer *b) {
  if (!b || !b->data || b->data->kind != EXPR_VAR) return 0;
  const tx_var_info *v = &b->data->u.var;
  return v->form == VAR_BUFFER_DATA && v->name && b->name && strcmp(v->name, b->name) == 0;
}

int tx_cuda_buffer_numel(const tx_buffer *b, int64_t *n) {
  int64_t p = 1;
  for (uint32_t i = 0; i < b->ndim; i++)
    if (!b->shape[i] || b->shape[i]->kind != EXPR_INT || b->shape[i]->dtype.lanes != 1) return 0;
  for (uint32_t i = 0; i < b->ndim; i++) {
    int64_t e = b->shape[i]->u.ival;
    if (e < 0) return -2;
    if (__builtin_mul_overflow(p, e, &p)) return -1;
  }
  *n = p;
  return 1;
}

int tx_cuda_buffer_bytes(const tx_buffer *b, int64_t *bytes) {
  int64_t n = 0;
  int r = tx_cuda_buffer_numel(b, &n);
  if (r <= 0) return r;
  if (tx_cuda_is_packed_elem(b->dtype)) {
    int64_t per = 8 / b->dtype.bits; /* packed: ceil(n / per) bytes */
    *bytes = n / per + (n % per != 0);
    return 1;
  }
  return __builtin_mul_overflow(n, tx_cuda_elem_bytes(b->dtype), bytes) ? -1 : 1;
}

void tx_cuda_report_bad_size(tx_diag_sink *diags, tirx_span span, const tx_buffer *b, int why) {
  const char *scope = b->scope ? b->scope : "global";
  if (why == -2)
    tx_error(diags, span, "%s buffer '%s' has a negative extent", scope, b->name ? b->name : "?");
  else
    tx_error(diags, span, "the size of %s buffer '%s' in bytes does not fit in 64 bits", scope,
             b->name ? b->name : "?");
}

tirx_status tx_cuda_dyn_smem_layout(tx_diag_sink *diags, const tx_buffer *const *bufs, uint32_t n,
                                    int64_t *offsets, int64_t *total, const tx_expr **sym) {
  int64_t off = 0;
  *total = 0;
  *sym = NULL;
  for (uint32_t i = 0; i < n; i++) {
    const tx_buffer *b = bufs[i];
    int64_t align = b->align > 16 ? b->align : 16, bytes = 0;
    if (__builtin_add_overflow(off, align - 1, &off)) {
      tx_cuda_report_bad_size(diags, b->span, b, -1);
      return TIRX_ERR_INPUT;
    }
    off = off / align * align;
    if (offsets) offsets[i] = off;
    int known = tx_cuda_buffer_bytes(b, &bytes);
    if (known == 0) {
      if (n == 1 && b->ndim == 1) {
        *sym = b->shape[0];
        return TIRX_OK;
      }
      tx_error(diags, b->span,
               "dynamic shared buffer '%s' has a symbolic extent; only a lone one-dimensional "
               "shared.dyn allocation may",
               b->name ? b->name : "?");
      return TIRX_ERR_INPUT;
    }
    if (known < 0 || __builtin_add_overflow(off, bytes, &off)) {
      tx_cuda_report_bad_size(diags, b->span, b, known < 0 ? known : -1);
      return TIRX_ERR_INPUT;
    }
  }
  *total = off;
  return TIRX_OK;
}
