/*
 * packed_api.h - the numbers of the packed calling convention that
 * make-packed-api writes into host functions and the runtime reads back
 * (docs/lowering.md, "After make-packed-api").
 *
 * They live in one header so that the pass and the runtime that executes its
 * asserts cannot disagree. The DLPack values are DLPack 1.1's.
 */
#ifndef TIRX_ABI_PACKED_API_H
#define TIRX_ABI_PACKED_API_H

#include "tirx/tirx.h"

/* What one kernel launch may carry. The runtime's launcher keeps each call's
 * parameter values and by-value tensor maps in fixed arrays on the calling
 * thread's stack (a call allocates nothing), so these bound a kernel's
 * parameters; CUDA's own bound, 32764 bytes of parameters since CUDA 12.1
 * on sm_70 and later, is never reached within them (512 values of at most
 * 8 bytes, 16 maps of 128). The CUDA generator reports a kernel over either
 * as a located error; the launcher checks again when it loads one. */
enum { TX_MAX_KERNEL_PARAMS = 512, TX_MAX_KERNEL_TENSORMAPS = 16 };

/* What T.arg_kind(i) returns, the kind of value the caller passed, is the
 * public API's tirx_arg_kind (TIRX_ARG_INT, _FLOAT, _HANDLE, _TENSOR): one
 * enum for the packed ABI and the API that fills it. */

/* The kind as messages say it: "an int", "a float", "a handle", "a tensor";
 * "?" for a value outside the enum. */
static inline const char *tx_arg_kind_phrase(tirx_arg_kind k) {
  switch (k) {
  case TIRX_ARG_INT:
    return "an int";
  case TIRX_ARG_FLOAT:
    return "a float";
  case TIRX_ARG_HANDLE:
    return "a handle";
  case TIRX_ARG_TENSOR:
    return "a tensor";
  }
  return "?";
}

/* DLDataTypeCode values compared with T.arg_dtype_code(i). */
enum {
  TX_DL_INT = 0,
  TX_DL_UINT = 1,
  TX_DL_FLOAT = 2,
  TX_DL_OPAQUE_HANDLE = 3,
  TX_DL_BFLOAT = 4,
  TX_DL_BOOL = 6,
  TX_DL_FLOAT8_E3M4 = 7,
  TX_DL_FLOAT8_E4M3 = 8,
  TX_DL_FLOAT8_E4M3B11FNUZ = 9,
  TX_DL_FLOAT8_E4M3FN = 10,
  TX_DL_FLOAT8_E4M3FNUZ = 11,
  TX_DL_FLOAT8_E5M2 = 12,
  TX_DL_FLOAT8_E5M2FNUZ = 13,
  TX_DL_FLOAT8_E8M0FNU = 14,
  TX_DL_FLOAT6_E2M3FN = 15,
  TX_DL_FLOAT6_E3M2FN = 16,
  TX_DL_FLOAT4_E2M1FN = 17,
};

/* DLDeviceType kDLCUDA, compared with T.arg_device_type(i). */
enum { TX_DL_CUDA = 2 };

#endif
