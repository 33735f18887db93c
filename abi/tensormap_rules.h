/*
 * tensormap_rules.h - the CUDA tensor-map constants and the host-side rules
 * TVM's runtime.cuTensorMapEncodeTiled checks before it calls the driver
 * (src/backend/cuda/runtime/cuda_device_api.cc), with TVM's words.
 *
 * The one copy of these rules. ir/tensormap.c includes this header for the
 * compiler (make-packed-api checks constant encode calls) and the runtime
 * launcher; target/cuda/c_launcher.c embeds this very text in every generated C
 * launcher that encodes a tensor map (the build turns it into a string,
 * cmake/embed_text.cmake), so the three cannot disagree.
 *
 * Must stay freestanding C: <stdint.h>, <stddef.h> and snprintf from
 * <stdio.h> only, no tirx header, nothing but static inline functions (a
 * generated launcher compiles it warning-free as C and C++). The enum values
 * are cuda.h's (tests/unit/test_cuda_abi.c compares them).
 */
#ifndef TIRX_ABI_TENSORMAP_RULES_H
#define TIRX_ABI_TENSORMAP_RULES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* CUtensorMapDataType */
enum {
  TX_TMAP_DT_UINT8 = 0,
  TX_TMAP_DT_UINT16 = 1,
  TX_TMAP_DT_UINT32 = 2,
  TX_TMAP_DT_INT32 = 3,
  TX_TMAP_DT_UINT64 = 4,
  TX_TMAP_DT_INT64 = 5,
  TX_TMAP_DT_FLOAT16 = 6,
  TX_TMAP_DT_FLOAT32 = 7,
  TX_TMAP_DT_FLOAT64 = 8,
  TX_TMAP_DT_BFLOAT16 = 9,
  TX_TMAP_DT_FLOAT32_FTZ = 10,
  TX_TMAP_DT_TFLOAT32 = 11,
  TX_TMAP_DT_TFLOAT32_FTZ = 12,
  TX_TMAP_DT_16U4_ALIGN8B = 13,
  TX_TMAP_DT_16U4_ALIGN16B = 14,
  TX_TMAP_DT_16U6_ALIGN16B = 15,
};
/* CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
 * CUtensorMapFloatOOBfill */
enum { TX_TMAP_INTERLEAVE_NONE = 0, TX_TMAP_INTERLEAVE_16B = 1, TX_TMAP_INTERLEAVE_32B = 2 };
enum {
  TX_TMAP_SWIZZLE_NONE = 0,
  TX_TMAP_SWIZZLE_32B = 1,
  TX_TMAP_SWIZZLE_64B = 2,
  TX_TMAP_SWIZZLE_128B = 3,
  TX_TMAP_SWIZZLE_128B_ATOM_32B = 4,
  TX_TMAP_SWIZZLE_128B_ATOM_32B_FLIP_8B = 5,
  TX_TMAP_SWIZZLE_128B_ATOM_64B = 6,
};
enum {
  TX_TMAP_L2_NONE = 0,
  TX_TMAP_L2_64B = 1,
  TX_TMAP_L2_128B = 2,
  TX_TMAP_L2_256B = 3,
};
enum { TX_TMAP_OOB_NONE = 0, TX_TMAP_OOB_NAN_REQUEST_ZERO_FMA = 1 };
enum { TX_TENSORMAP_MAX_RANK = 5 };

/* A CUtensorMap: 128 bytes (CU_TENSOR_MAP_NUM_QWORDS = 16) at an address
 * aligned to 64 bytes (cuTensorMapEncodeTiled's requirement, and the device
 * type's alignment); host storage uses 128 (CUDA 13's cuda.h). */
enum {
  TX_TENSORMAP_BYTES = 128,
  TX_TENSORMAP_ALIGN = 64,
  TX_TENSORMAP_HOST_ALIGN = 128,
};

/* The packed function name TVM's host code calls. */
#define TX_TENSORMAP_ENCODE_NAME "runtime.cuTensorMapEncodeTiled"

/* The values of one encode call at run time (or, in the compiler, with
 * every operand a constant and the address unknown: 0). */
typedef struct tx_tensormap_values {
  int cu_dtype;  /* the CUtensorMapDataType TVM maps the tensor dtype to */
  int elem_bits; /* of the tensor dtype */
  uint32_t rank;
  uint64_t addr;
  int64_t dims[TX_TENSORMAP_MAX_RANK], strides[TX_TENSORMAP_MAX_RANK - 1];
  int64_t box[TX_TENSORMAP_MAX_RANK], elem_strides[TX_TENSORMAP_MAX_RANK];
  int64_t interleave, swizzle, l2_promotion, oob_fill;
  /* The optional trailing force_cu_dtype: -1 keeps cu_dtype, 11 (TFLOAT32)
   * replaces it for float32 data feeding a tf32 MMA. */
  int has_force;
  int64_t force_dtype;
} tx_tensormap_values;

/* The CUtensorMapDataType handed to the driver: force_dtype when one is
 * given (>= 0), else cu_dtype. Meaningful once the rules passed. */
static inline int tx_tensormap_driver_dtype(const tx_tensormap_values *v) {
  return v->has_force && v->force_dtype >= 0 ? (int)v->force_dtype : v->cu_dtype;
}

static inline int tx_tensormap_is_floating(int cu) {
  return cu == TX_TMAP_DT_FLOAT16 || cu == TX_TMAP_DT_FLOAT32 || cu == TX_TMAP_DT_FLOAT64 ||
         cu == TX_TMAP_DT_BFLOAT16 || cu == TX_TMAP_DT_FLOAT32_FTZ || cu == TX_TMAP_DT_TFLOAT32 ||
         cu == TX_TMAP_DT_TFLOAT32_FTZ;
}

/* A rule of the functions below: when cond fails, the reason goes to why. */
#define TX_TMAP_RULE(cond, ...)                                                                    \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      if (why && cap) snprintf(why, cap, __VA_ARGS__);                                             \
      return 0;                                                                                    \
    }                                                                                              \
  } while (0)

/* The ranges of each field (dimensions, strides, boxes, element strides,
 * the enum operands, force_cu_dtype). 0 with the broken rule in why. */
static inline int tx_tensormap_check_fields(const tx_tensormap_values *v, char *why, size_t cap) {
  uint32_t r = v->rank, i;
  TX_TMAP_RULE(r >= 1 && r <= TX_TENSORMAP_MAX_RANK, "tensorRank = %u must be in 1..5", r);
  TX_TMAP_RULE(v->cu_dtype >= TX_TMAP_DT_UINT8 && v->cu_dtype <= TX_TMAP_DT_16U6_ALIGN16B,
               "tensorDataType = %d is not a CUtensorMapDataType", v->cu_dtype);
  for (i = 0; i < r; i++)
    TX_TMAP_RULE(v->dims[i] > 0 && v->dims[i] <= ((int64_t)1 << 32),
                 "globalDim[%u] = %lld must be in 1..2^32", i, (long long)v->dims[i]);
  for (i = 0; i + 1 < r; i++) {
    TX_TMAP_RULE(v->strides[i] >= 0 && v->strides[i] < ((int64_t)1 << 40),
                 "globalStrides[%u] = %lld must be in 0..2^40-1", i, (long long)v->strides[i]);
    TX_TMAP_RULE(v->strides[i] % 16 == 0, "globalStrides[%u] = %lld must be a multiple of 16", i,
                 (long long)v->strides[i]);
  }
  for (i = 0; i < r; i++)
    TX_TMAP_RULE(v->box[i] >= 1 && v->box[i] <= 256, "boxDim[%u] = %lld must be in 1..256", i,
                 (long long)v->box[i]);
  for (i = 0; i < r; i++)
    TX_TMAP_RULE(v->elem_strides[i] >= 1 && v->elem_strides[i] <= 8,
                 "elementStrides[%u] = %lld must be in 1..8", i, (long long)v->elem_strides[i]);
  TX_TMAP_RULE(v->interleave >= TX_TMAP_INTERLEAVE_NONE && v->interleave <= TX_TMAP_INTERLEAVE_32B,
               "interleave = %lld is not a CUtensorMapInterleave (0..2)", (long long)v->interleave);
  TX_TMAP_RULE(v->swizzle >= TX_TMAP_SWIZZLE_NONE && v->swizzle <= TX_TMAP_SWIZZLE_128B_ATOM_64B,
               "swizzle = %lld is not a CUtensorMapSwizzle (0..6)", (long long)v->swizzle);
  TX_TMAP_RULE(v->l2_promotion >= TX_TMAP_L2_NONE && v->l2_promotion <= TX_TMAP_L2_256B,
               "l2Promotion = %lld is not a CUtensorMapL2promotion (0..3)",
               (long long)v->l2_promotion);
  TX_TMAP_RULE(v->oob_fill >= TX_TMAP_OOB_NONE && v->oob_fill <= TX_TMAP_OOB_NAN_REQUEST_ZERO_FMA,
               "oobFill = %lld is not a CUtensorMapFloatOOBfill (0..1)", (long long)v->oob_fill);
  if (v->has_force) {
    TX_TMAP_RULE(v->force_dtype >= -1,
                 "force_cu_dtype = %lld must be -1 (derive from the tensor dtype) or 11",
                 (long long)v->force_dtype);
    TX_TMAP_RULE(v->force_dtype < 0 || v->force_dtype == TX_TMAP_DT_TFLOAT32,
                 "force_cu_dtype = %lld: only CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 (11) is supported",
                 (long long)v->force_dtype);
    TX_TMAP_RULE(v->force_dtype < 0 || (v->cu_dtype == TX_TMAP_DT_FLOAT32 && v->elem_bits == 32),
                 "CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 requires a scalar float32 tensor dtype");
  }
  return 1;
}

/* The rules between fields: interleave, swizzle, packed types, the inner box
 * size, the out-of-bounds fill, and the global address's alignment. */
static inline int tx_tensormap_check_combination(const tx_tensormap_values *v, char *why,
                                                 size_t cap) {
  uint32_t r = v->rank, i;
  int dt = tx_tensormap_driver_dtype(v);
  int packed8 = dt == TX_TMAP_DT_16U4_ALIGN8B;
  int packed16 = dt == TX_TMAP_DT_16U4_ALIGN16B || dt == TX_TMAP_DT_16U6_ALIGN16B;
  int packed = packed8 || packed16;
  int swz128 = v->swizzle >= TX_TMAP_SWIZZLE_128B;
  uint64_t elem_bytes = ((uint64_t)v->elem_bits + 7) / 8;
  TX_TMAP_RULE(v->addr % 16 == 0, "globalAddress = 0x%llx must be 16-byte aligned",
               (unsigned long long)v->addr);
  if (v->interleave != TX_TMAP_INTERLEAVE_NONE)
    TX_TMAP_RULE(r >= 3, "tensorRank = %u must be at least 3 when interleave is not NONE", r);
  if (v->interleave == TX_TMAP_INTERLEAVE_32B)
    TX_TMAP_RULE(
        v->swizzle == TX_TMAP_SWIZZLE_32B,
        "interleave 32B (CU_TENSOR_MAP_INTERLEAVE_32B) requires CU_TENSOR_MAP_SWIZZLE_32B, "
        "not swizzle = %lld",
        (long long)v->swizzle);
  TX_TMAP_RULE(v->elem_strides[0] == 1,
               "elementStrides[0] = %lld must be one because tiled TMA does not support an "
               "innermost element stride",
               (long long)v->elem_strides[0]);
  if (v->interleave == TX_TMAP_INTERLEAVE_32B || packed16) {
    TX_TMAP_RULE(v->addr % 32 == 0, "globalAddress = 0x%llx must be 32-byte aligned",
                 (unsigned long long)v->addr);
    for (i = 0; i + 1 < r; i++)
      TX_TMAP_RULE(v->strides[i] % 32 == 0, "globalStrides[%u] = %lld must be a multiple of 32", i,
                   (long long)v->strides[i]);
  }
  if (packed16) {
    TX_TMAP_RULE(v->dims[0] % 128 == 0,
                 "globalDim[0] = %lld must be a multiple of 128 for a packed 16U4/16U6 type",
                 (long long)v->dims[0]);
    TX_TMAP_RULE(v->box[0] == 128, "boxDim[0] = %lld must be 128 for a packed 16U4/16U6 type",
                 (long long)v->box[0]);
  }
  if (dt == TX_TMAP_DT_16U4_ALIGN16B)
    TX_TMAP_RULE(v->swizzle == TX_TMAP_SWIZZLE_NONE || v->swizzle == TX_TMAP_SWIZZLE_128B ||
                     v->swizzle == TX_TMAP_SWIZZLE_128B_ATOM_32B,
                 "CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B supports only NONE, 128B, or "
                 "128B_ATOM_32B swizzle, not swizzle = %lld",
                 (long long)v->swizzle);
  if (dt == TX_TMAP_DT_16U6_ALIGN16B && swz128)
    TX_TMAP_RULE(v->interleave == TX_TMAP_INTERLEAVE_NONE,
                 "packed 16U6 align16 formats require interleave NONE for 128B swizzles");
  if (packed8)
    TX_TMAP_RULE(v->dims[0] % 2 == 0, "globalDim[0] = %lld must be even for 16U4_ALIGN8B",
                 (long long)v->dims[0]);
  if (v->interleave == TX_TMAP_INTERLEAVE_NONE && !packed) {
    uint64_t inner = (uint64_t)v->box[0] * elem_bytes;
    uint64_t limit = v->swizzle == TX_TMAP_SWIZZLE_32B   ? 32
                     : v->swizzle == TX_TMAP_SWIZZLE_64B ? 64
                     : swz128                            ? 128
                                                         : 0;
    TX_TMAP_RULE(inner % 16 == 0, "boxDim[0] * element size = %llu bytes must be a multiple of 16",
                 (unsigned long long)inner);
    TX_TMAP_RULE(!limit || inner <= limit,
                 "boxDim[0] * element size = %llu bytes exceeds the %llu-byte swizzle span",
                 (unsigned long long)inner, (unsigned long long)limit);
  }
  if (v->oob_fill == TX_TMAP_OOB_NAN_REQUEST_ZERO_FMA) {
    TX_TMAP_RULE(tx_tensormap_is_floating(dt),
                 "oobFill NAN_REQUEST_ZERO_FMA needs a floating-point type");
    TX_TMAP_RULE(!packed, "oobFill NAN_REQUEST_ZERO_FMA is not supported for a packed type");
  }
#undef TX_TMAP_RULE
  return 1;
}

/* Every rule, fields first (TVM's order). 0 with the broken rule in why
 * ("boxDim[0] = 300 must be in 1..256"). */
static inline int tx_tensormap_rules(const tx_tensormap_values *v, char *why, size_t cap) {
  return tx_tensormap_check_fields(v, why, cap) && tx_tensormap_check_combination(v, why, cap);
}

#endif
