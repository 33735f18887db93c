/*
 * tensor.h - host-side DLPack helpers: data type names and sizes, tensor
 * sizes and compactness, device tensors the runtime allocates and exports,
 * and importing tensors other libraries export.
 *
 * Data type names are tirx-c's (abi/dtype.h: "float32", "bfloat16",
 * "float8_e4m3fn", "float8_e3m4", "int8x4", "bool"), plus the DLPack code
 * TIRx has no type for ("complex64").
 * DLPack's bool is one byte ({kDLBool, 8}); tirx-c's bool is 1 bit wide in
 * the IR, and the conversions map one onto the other.
 *
 * Sub-byte types (int4, float4_e2m1fn, float6_*) are packed unless the
 * tensor is flagged DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (each element
 * then takes a whole byte), as DLPack 1.1 specifies.
 */
#ifndef TIRX_RUNTIME_TENSOR_H
#define TIRX_RUNTIME_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "abi/dtype.h"
#include "runtime/runtime.h"

/* ---- data types ---------------------------------------------------------- */

/* tirx-c <-> DLPack data types. 0 when the type has no counterpart (void;
 * DLPack complex and the float8 variants TIRx lacks). */
int tx_dl_from_tx_dtype(tx_dtype t, DLDataType *out);
int tx_dl_to_tx_dtype(DLDataType t, tx_dtype *out);

/* Parse a name (n bytes, need not be NUL-terminated); 1 on success. */
int tx_dl_dtype_parse(const char *s, size_t n, DLDataType *out);
/* The name into buf ("?" for a type without one); returns buf. */
const char *tx_dl_dtype_str(DLDataType t, char buf[32]);

/* 1 when the dtype is one DLPack defines with a width it allows. */
int tx_dl_dtype_valid(DLDataType t);
/* Bits of one element, lanes included (int8x4: 32). */
uint64_t tx_dl_dtype_bits(DLDataType t);

/* ---- tensors ------------------------------------------------------------- */

/* Number of elements; 1 for ndim 0; -1 for a negative extent or overflow. */
int64_t tx_dl_numel(const DLTensor *t);
/* 1 when strides are NULL or describe the compact row-major layout
 * (extents of 1 may carry any stride, as in PyTorch). */
int tx_dl_is_compact(const DLTensor *t);
/* Bytes the elements span in compact layout: numel * bits rounded up to
 * bytes (or one byte per sub-byte element when subbyte_padded).
 * TIRX_ERR_USAGE for negative extents, invalid dtypes or overflow. */
tirx_status tx_dl_nbytes(const DLTensor *t, int subbyte_padded, size_t *out, tx_rt_error *err);

/* ---- export: device tensors owned by a DLPack capsule -------------------- */

/* A compact device tensor of `shape` on the runtime's device. The deleter
 * frees the device memory and the capsule; the capsule keeps the runtime
 * alive until then (tx_rt_close may come first). Contents are undefined. */
tirx_status tx_rt_tensor_alloc(tx_runtime *rt, const int64_t *shape, int32_t ndim, DLDataType dtype,
                               DLManagedTensorVersioned **out, tx_rt_error *err);
/* The same as a legacy (pre-1.0) DLManagedTensor, for consumers that only
 * take those. */
tirx_status tx_rt_tensor_alloc_legacy(tx_runtime *rt, const int64_t *shape, int32_t ndim,
                                      DLDataType dtype, DLManagedTensor **out, tx_rt_error *err);

/* float -> float16 / bfloat16 bits, round to nearest even (as TVM converts
 * Python floats for 16-bit scalar parameters); overflow gives infinity. */
uint16_t tx_dl_f32_to_f16(float f);
uint16_t tx_dl_f32_to_bf16(float f);

/* ---- import: tensors produced elsewhere ---------------------------------- */

/* A borrowed view of an imported capsule; tx_dl_import_release calls the
 * producer's deleter exactly once. */
typedef struct tx_dl_import {
  DLTensor *tensor; /* inside the capsule; valid until released */
  int read_only;    /* DLPACK_FLAG_BITMASK_READ_ONLY (always 0 for legacy) */
  int subbyte_padded;
  DLManagedTensorVersioned *versioned; /* exactly one of these is set */
  DLManagedTensor *legacy;
} tx_dl_import;

/* Validate and take ownership: version.major must be DLPACK_MAJOR_VERSION
 * (1; minor versions are compatible), ndim >= 0, shape non-NULL when
 * ndim > 0, a valid dtype. On failure the capsule is NOT consumed (the
 * caller still owns it, as the DLPack protocol expects). */
tirx_status tx_dl_import_versioned(DLManagedTensorVersioned *m, tx_dl_import *out,
                                   tx_rt_error *err);
tirx_status tx_dl_import_legacy(DLManagedTensor *m, tx_dl_import *out, tx_rt_error *err);
/* Call the producer's deleter (if any) and clear *imp; safe to repeat. */
void tx_dl_import_release(tx_dl_import *imp);

#endif
