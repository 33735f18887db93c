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
 * The constants and the rules: abi/tensormap_rules.h.
 */
#ifndef TIRX_IR_TENSORMAP_H
#define TIRX_IR_TENSORMAP_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "abi/tensormap_rules.h"

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

/* The values of an encode call whose operands (but the address) are all
 * integer literals, for checking the rules when compiling: *out gets them,
 * with address 0 (its alignment rules pass; the runtime checks the real
 * one). 0 when some operand is not a literal. */
int tx_tensormap_constant_values(const tx_tensormap_encode *enc, tx_tensormap_values *out);

#endif
