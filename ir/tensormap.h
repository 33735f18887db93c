/*
 * tensormap.h - CUDA tensor maps as TVM's TIRx writes them on the host:
 *
 *     A_map: T.let[T.TensorMap()] = T.tvm_stack_alloca("tensormap", 1)
 *     T.call_packed("runtime.cuTensorMapEncodeTiled", A_map, "float16", 2, A.data,
 *                   *dims, *strides, *box, *elem_strides, interleave, swizzle,
 *                   l2_promotion, oob_fill[, force_dtype])
 *
 * One place knows the shape of that call (TVM's runtime.cuTensorMapEncodeTiled,
 * src/runtime/cuda/cuda_device_api.cc), the dtype -> CUtensorMapDataType
 * mapping and the host-side checks TVM makes before calling the driver, so
 * that make-packed-api (located errors), the runtime launcher and the C
 * launcher generator cannot disagree. Nothing here allocates or reports:
 * callers get a reason string and decide.
 *
 * The enum values are cuda.h's (tests/unit/test_cuda_abi.c compares them).
 */
#ifndef TIRX_IR_TENSORMAP_H
#define TIRX_IR_TENSORMAP_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

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

/* A CUtensorMap: 128 bytes (CU_TENSOR_MAP_NUM_QWORDS = 16) at an address
 * aligned to 64 bytes (cuTensorMapEncodeTiled's requirement, and the device
 * type's alignment); host storage uses 128 (CUDA 13's cuda.h). */
enum {
  TX_TENSORMAP_BYTES = 128,
  TX_TENSORMAP_ALIGN = 64,
  TX_TENSORMAP_HOST_ALIGN = 128,
  TX_TENSORMAP_MAX_RANK = 5
};

/* The packed function name TVM's host code calls. */
#define TX_TENSORMAP_ENCODE_NAME "runtime.cuTensorMapEncodeTiled"

/* T.tvm_stack_alloca("tensormap", n) or T.stack_alloca("tensormap", n);
 * *count (optional) is n. */
int tx_tensormap_is_alloca(const tx_expr *e, const tx_expr **count);
/* T.call_packed / T.tvm_call_packed("runtime.cuTensorMapEncodeTiled", ...). */
int tx_tensormap_is_encode(const tx_expr *e);

/* TVM's mapping of a tensor dtype name ("float16") to CUtensorMapDataType
 * and the element size in bits the host checks use. 0 when TVM has none. */
int tx_tensormap_dtype(const char *name, int *cu_dtype, int *elem_bits);

/* The operands of an encode call, by role. */
typedef struct tx_tensormap_encode {
  const tx_expr *map;  /* the tensor-map variable (EXPR_VAR with u.var.tensormap) */
  const char *dtype;   /* the dtype string */
  int cu_dtype;        /* its CUtensorMapDataType */
  int elem_bits;       /* its element width */
  int rank;            /* 1..5 */
  const tx_expr *addr; /* the global address */
  const tx_expr *dims[TX_TENSORMAP_MAX_RANK];         /* globalDim, innermost first */
  const tx_expr *strides[TX_TENSORMAP_MAX_RANK - 1];  /* globalStrides in bytes, rank - 1 */
  const tx_expr *box[TX_TENSORMAP_MAX_RANK];          /* boxDim */
  const tx_expr *elem_strides[TX_TENSORMAP_MAX_RANK]; /* elementStrides */
  const tx_expr *interleave, *swizzle, *l2_promotion, *oob_fill;
  const tx_expr *force_dtype; /* the optional trailing CUtensorMapDataType; NULL when absent */
} tx_tensormap_encode;

/* Split an encode call into its operands. 0 with a reason in why (and the
 * operand it is about in *where, else the call) when the call is not of the
 * form above: the map is not a tensor-map variable, the dtype is not a
 * string literal TVM maps, the rank is not a literal in 1..5, or the
 * operand count is not 4 * rank + 7 (+1 for force_dtype). */
int tx_tensormap_encode_parse(const tx_expr *call, tx_tensormap_encode *out, const tx_expr **where,
                              char *why, size_t cap);

/* The values of one encode call at run time. */
typedef struct tx_tensormap_values {
  int cu_dtype;  /* after force_dtype */
  int elem_bits; /* of the tensor dtype */
  uint32_t rank;
  uint64_t addr;
  int64_t dims[TX_TENSORMAP_MAX_RANK], strides[TX_TENSORMAP_MAX_RANK - 1];
  int64_t box[TX_TENSORMAP_MAX_RANK], elem_strides[TX_TENSORMAP_MAX_RANK];
  int64_t interleave, swizzle, l2_promotion, oob_fill;
} tx_tensormap_values;

/* TVM's host-side checks of cuTensorMapEncodeTiled's documented requirements
 * (ranges of every field, alignments, box sizes under swizzles). 0 with the
 * broken rule in why ("boxDim[0] = 300 must be in 1..256"). */
int tx_tensormap_check(const tx_tensormap_values *v, char *why, size_t cap);

#endif
