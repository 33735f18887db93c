/*
 * dtype.h - TIRx data types: a type code, a bit width and a lane count.
 *
 * The spelling table in dtype.c is the only place that knows type names.
 */
#ifndef TIRX_ABI_DTYPE_H
#define TIRX_ABI_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "support/strbuf.h"

/* X(CODE, spelling-prefix, fixed-bits-or-0) */
#define TX_DTYPE_CODES(X)                                                                          \
  X(DT_INT, "int", 0)                                                                              \
  X(DT_UINT, "uint", 0)                                                                            \
  X(DT_FLOAT, "float", 0)                                                                          \
  X(DT_BFLOAT, "bfloat", 0)                                                                        \
  X(DT_E4M3FN, "float8_e4m3fn", 8)                                                                 \
  X(DT_E4M3FNUZ, "float8_e4m3fnuz", 8)                                                             \
  X(DT_E5M2, "float8_e5m2", 8)                                                                     \
  X(DT_E5M2FNUZ, "float8_e5m2fnuz", 8)                                                             \
  X(DT_E4M3, "float8_e4m3", 8)                                                                     \
  X(DT_E4M3B11FNUZ, "float8_e4m3b11fnuz", 8)                                                       \
  X(DT_E3M4, "float8_e3m4", 8)                                                                     \
  X(DT_E8M0FNU, "float8_e8m0fnu", 8)                                                               \
  X(DT_E2M3FN, "float6_e2m3fn", 6)                                                                 \
  X(DT_E3M2FN, "float6_e3m2fn", 6)                                                                 \
  X(DT_E2M1FN, "float4_e2m1fn", 4)                                                                 \
  X(DT_BOOL, "bool", 1)                                                                            \
  X(DT_HANDLE, "handle", 64)                                                                       \
  X(DT_VOID, "void", 0)

typedef enum tx_dtype_code {
#define X(code, name, bits) code,
  TX_DTYPE_CODES(X)
#undef X
} tx_dtype_code;

typedef struct tx_dtype {
  uint8_t code; /* tx_dtype_code */
  uint8_t bits;
  uint16_t lanes;   /* 1 for scalars */
  uint8_t scalable; /* a scalable vector of lanes * T.vscale() lanes: "float32xvscalex4"
                       (lanes 4); parsed and printed, refused by lowering */
} tx_dtype;

enum { TX_MAX_LANES = 1024 };

static inline tx_dtype tx_dt(tx_dtype_code code, int bits, int lanes) {
  return (tx_dtype){(uint8_t)code, (uint8_t)bits, (uint16_t)lanes, 0};
}
#define TX_INT32 tx_dt(DT_INT, 32, 1)
#define TX_INT64 tx_dt(DT_INT, 64, 1)
#define TX_FLOAT32 tx_dt(DT_FLOAT, 32, 1)
#define TX_BOOL tx_dt(DT_BOOL, 1, 1)
#define TX_HANDLE tx_dt(DT_HANDLE, 64, 1)
#define TX_VOID tx_dt(DT_VOID, 0, 1)

static inline int tx_dtype_eq(tx_dtype a, tx_dtype b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes && a.scalable == b.scalable;
}
static inline tx_dtype tx_dtype_elem(tx_dtype t) {
  t.lanes = 1;
  t.scalable = 0;
  return t;
}
/* t with the lane count of `shape` (fixed or scalable). */
static inline tx_dtype tx_dtype_lanes_of(tx_dtype t, tx_dtype shape) {
  t.lanes = shape.lanes;
  t.scalable = shape.scalable;
  return t;
}
static inline tx_dtype tx_dtype_with_lanes(tx_dtype t, int lanes) {
  t.lanes = (uint16_t)lanes;
  return t;
}
int tx_dtype_is_int(tx_dtype t);   /* int or uint */
int tx_dtype_is_float(tx_dtype t); /* any floating type, fp8/fp6/fp4 included */
/* bfloat16 and the fp8/fp6/fp4 formats: the floats CUDA code computes in
 * float32 (what legalize-bf16-fp8 rewrites); float16 is not one. */
int tx_dtype_is_narrow_float(tx_dtype t);
int tx_dtype_is_bool(tx_dtype t);

/* Parse "float32", "float16x4", "bfloat16", "float8_e4m3fn", "uint8", "bool",
 * "handle", "void" ... Returns 1 on success. */
int tx_dtype_parse(const char *s, size_t n, tx_dtype *out);
/* The canonical spelling ("float32x4"). */
void tx_dtype_print(tx_dtype t, tx_strbuf *out);
/* Same into a small caller buffer (32 bytes is always enough). */
const char *tx_dtype_str(tx_dtype t, char buf[32]);

/* Range of an integer type, for literal overflow checks. */
int tx_dtype_int_fits(tx_dtype t, int64_t v, int negative_u64);

#endif
