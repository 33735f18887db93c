/*
 * tensor.c - DLPack data types, tensor sizes, and exporting/importing
 * managed tensors.
 */
#include "runtime/tensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_internal.h"

/* ---- data types ---------------------------------------------------------- */

/* THE table between tirx-c types and DLPack codes. Rows without a tirx-c
 * code (tx < 0) are DLPack types TIRx cannot express; they carry their own
 * name (a prefix followed by the bit width when `sized`). */
typedef struct dl_row {
  int tx;           /* tx_dtype_code, or -1 */
  uint8_t dl;       /* DLDataTypeCode */
  const char *name; /* only for tx < 0 */
  int sized;        /* name is followed by the bit width (complex64) */
} dl_row;

static const dl_row ROWS[] = {
    {DT_INT, kDLInt, NULL, 0},
    {DT_UINT, kDLUInt, NULL, 0},
    {DT_FLOAT, kDLFloat, NULL, 0},
    {DT_BFLOAT, kDLBfloat, NULL, 0},
    {DT_E4M3FN, kDLFloat8_e4m3fn, NULL, 0},
    {DT_E4M3FNUZ, kDLFloat8_e4m3fnuz, NULL, 0},
    {DT_E5M2, kDLFloat8_e5m2, NULL, 0},
    {DT_E5M2FNUZ, kDLFloat8_e5m2fnuz, NULL, 0},
    {DT_E8M0FNU, kDLFloat8_e8m0fnu, NULL, 0},
    {DT_E2M3FN, kDLFloat6_e2m3fn, NULL, 0},
    {DT_E3M2FN, kDLFloat6_e3m2fn, NULL, 0},
    {DT_E2M1FN, kDLFloat4_e2m1fn, NULL, 0},
    {DT_BOOL, kDLBool, NULL, 0},
    {DT_HANDLE, kDLOpaqueHandle, NULL, 0},
    {DT_E3M4, kDLFloat8_e3m4, NULL, 0},
    {DT_E4M3, kDLFloat8_e4m3, NULL, 0},
    {DT_E4M3B11FNUZ, kDLFloat8_e4m3b11fnuz, NULL, 0},
    {-1, kDLComplex, "complex", 1},
};
enum { NROWS = sizeof ROWS / sizeof ROWS[0] };

static const dl_row *row_for_dl(uint8_t code) {
  for (size_t i = 0; i < NROWS; i++)
    if (ROWS[i].dl == code) return &ROWS[i];
  return NULL;
}

int tx_dl_dtype_valid(DLDataType t) {
  const dl_row *row = row_for_dl(t.code);
  if (!row || t.lanes == 0) return 0;
  unsigned b = t.bits;
  switch ((DLDataTypeCode)t.code) {
  case kDLInt:
  case kDLUInt:
    return b == 1 || b == 4 || b == 8 || b == 16 || b == 32 || b == 64;
  case kDLFloat:
    return b == 16 || b == 32 || b == 64;
  case kDLBfloat:
    return b == 16;
  case kDLComplex:
    return b == 32 || b == 64 || b == 128;
  case kDLBool:
    return b == 8;
  case kDLOpaqueHandle:
    return b == 64;
  case kDLFloat8_e3m4:
  case kDLFloat8_e4m3:
  case kDLFloat8_e4m3b11fnuz:
  case kDLFloat8_e4m3fn:
  case kDLFloat8_e4m3fnuz:
  case kDLFloat8_e5m2:
  case kDLFloat8_e5m2fnuz:
  case kDLFloat8_e8m0fnu:
    return b == 8;
  case kDLFloat6_e2m3fn:
  case kDLFloat6_e3m2fn:
    return b == 6;
  case kDLFloat4_e2m1fn:
    return b == 4;
  }
  return 0;
}

uint64_t tx_dl_dtype_bits(DLDataType t) {
  return (uint64_t)t.bits * t.lanes;
}

int tx_dl_from_tx_dtype(tx_dtype t, DLDataType *out) {
  if (t.scalable) return 0; /* no fixed lane count */
  for (size_t i = 0; i < NROWS; i++) {
    if (ROWS[i].tx != (int)t.code) continue;
    /* DLPack stores bool in a byte; the IR's bool is 1 bit. */
    DLDataType d = {ROWS[i].dl, (uint8_t)(t.code == DT_BOOL ? 8 : t.bits), t.lanes};
    if (!tx_dl_dtype_valid(d)) return 0;
    *out = d;
    return 1;
  }
  return 0;
}

int tx_dl_to_tx_dtype(DLDataType t, tx_dtype *out) {
  const dl_row *row = row_for_dl(t.code);
  if (!row || row->tx < 0 || !tx_dl_dtype_valid(t)) return 0;
  *out = tx_dt((tx_dtype_code)row->tx, t.code == kDLBool ? 1 : t.bits, t.lanes);
  return 1;
}

/* Parse "<digits>" at s[*i..n) into v (no leading zero, at most 5 digits). */
static int parse_uint(const char *s, size_t n, size_t *i, unsigned *v) {
  size_t start = *i;
  unsigned x = 0;
  while (*i < n && *i - start < 5 && s[*i] >= '0' && s[*i] <= '9')
    x = x * 10 + (unsigned)(s[(*i)++] - '0');
  if (*i == start || s[start] == '0') return 0;
  *v = x;
  return 1;
}

int tx_dl_dtype_parse(const char *s, size_t n, DLDataType *out) {
  tx_dtype t;
  if (tx_dtype_parse(s, n, &t)) return tx_dl_from_tx_dtype(t, out);
  /* DLPack-only names: the whole string must match one row. */
  for (size_t r = 0; r < NROWS; r++) {
    if (ROWS[r].tx >= 0) continue;
    size_t len = strlen(ROWS[r].name), i = len;
    if (len > n || memcmp(s, ROWS[r].name, len) != 0) continue;
    unsigned bits = 8, lanes = 1;
    if (ROWS[r].sized && !parse_uint(s, n, &i, &bits)) continue;
    if (i < n && s[i] == 'x' && (++i, !parse_uint(s, n, &i, &lanes))) continue;
    if (i != n || bits > 255 || lanes > 65535) continue;
    DLDataType d = {ROWS[r].dl, (uint8_t)bits, (uint16_t)lanes};
    if (!tx_dl_dtype_valid(d)) continue;
    *out = d;
    return 1;
  }
  return 0;
}

const char *tx_dl_dtype_str(DLDataType t, char buf[32]) {
  tx_dtype tt;
  if (tx_dl_to_tx_dtype(t, &tt)) return tx_dtype_str(tt, buf);
  const dl_row *row = row_for_dl(t.code);
  if (!row || row->tx >= 0 || !tx_dl_dtype_valid(t)) return snprintf(buf, 32, "?"), buf;
  int k = row->sized ? snprintf(buf, 32, "%s%u", row->name, (unsigned)t.bits)
                     : snprintf(buf, 32, "%s", row->name);
  if (t.lanes != 1 && k > 0 && k < 32) snprintf(buf + k, 32 - (size_t)k, "x%u", (unsigned)t.lanes);
  return buf;
}

/* ---- tensors ------------------------------------------------------------- */

int64_t tx_dl_numel(const DLTensor *t) {
  if (!t || t->ndim < 0 || (t->ndim > 0 && !t->shape)) return -1;
  int64_t n = 1;
  for (int32_t i = 0; i < t->ndim; i++) {
    int64_t e = t->shape[i];
    if (e < 0) return -1;
    if (e != 0 && n > INT64_MAX / e) return -1;
    n *= e;
  }
  return n;
}

int tx_dl_is_compact(const DLTensor *t) {
  if (!t->strides) return 1;
  int64_t expect = 1;
  for (int32_t i = t->ndim - 1; i >= 0; i--) {
    if (t->shape[i] == 0) return 1; /* no elements: any layout is compact */
    if (t->shape[i] != 1 && t->strides[i] != expect) return 0;
    if (expect > INT64_MAX / t->shape[i]) return 0;
    expect *= t->shape[i];
  }
  return 1;
}

tirx_status tx_dl_nbytes(const DLTensor *t, int subbyte_padded, size_t *out, tx_rt_error *err) {
  *out = 0;
  if (!tx_dl_dtype_valid(t->dtype)) {
    char name[32];
    return tx_rt_fail(err, TIRX_ERR_USAGE, "invalid DLPack dtype {code %u, bits %u, lanes %u} (%s)",
                      (unsigned)t->dtype.code, (unsigned)t->dtype.bits, (unsigned)t->dtype.lanes,
                      tx_dl_dtype_str(t->dtype, name));
  }
  int64_t n = tx_dl_numel(t);
  if (n < 0)
    return tx_rt_fail(err, TIRX_ERR_USAGE, "invalid tensor shape (negative or overflowing)");
  uint64_t bits =
      t->dtype.bits < 8 && subbyte_padded ? 8u * t->dtype.lanes : tx_dl_dtype_bits(t->dtype);
  if (n != 0 && (uint64_t)n > (UINT64_MAX - 7) / bits)
    return tx_rt_fail(err, TIRX_ERR_USAGE, "tensor size overflows");
  uint64_t bytes = ((uint64_t)n * bits + 7) / 8;
  if (bytes > SIZE_MAX) return tx_rt_fail(err, TIRX_ERR_USAGE, "tensor size overflows");
  *out = (size_t)bytes;
  return TIRX_OK;
}

/* ---- export -------------------------------------------------------------- */

/* One block per exported tensor: the capsule, the runtime it came from and
 * the shape it points at, so the deleter frees everything with one free. */
typedef struct export_block {
  union {
    DLManagedTensorVersioned v;
    DLManagedTensor l;
  } u;
  tx_runtime *rt;
  int64_t shape[];
} export_block;

static void release_block(export_block *b, void *data) {
  tx_runtime *rt = b->rt;
  tx_rt_free(rt, data, NULL); /* a deleter cannot report; the memory is gone either way */
  tx_mem_free(tx_rt_alloc_of(rt), b);
  tx_rt_release(rt); /* may free rt: the block went first */
}

static void delete_versioned(DLManagedTensorVersioned *self) {
  release_block(self->manager_ctx, self->dl_tensor.data);
}

static void delete_legacy(DLManagedTensor *self) {
  release_block(self->manager_ctx, self->dl_tensor.data);
}

/* Allocate the block and the device memory and fill `t`. */
static tirx_status make_block(tx_runtime *rt, const int64_t *shape, int32_t ndim, DLDataType dtype,
                              export_block **out, DLTensor *t, tx_rt_error *err) {
  *out = NULL;
  if (!rt) return tx_rt_fail(err, TIRX_ERR_USAGE, "no runtime (NULL)");
  if (ndim < 0 || (ndim > 0 && !shape))
    return tx_rt_fail(err, TIRX_ERR_USAGE, "invalid tensor rank %d", (int)ndim);
  export_block *b =
      tx_mem_calloc(tx_rt_alloc_of(rt), 1, sizeof *b + (size_t)ndim * sizeof(int64_t));
  if (!b) return tx_rt_fail(err, TIRX_ERR_NOMEM, "out of memory");
  if (ndim) memcpy(b->shape, shape, (size_t)ndim * sizeof(int64_t));
  *t = (DLTensor){NULL, tx_rt_device(rt), ndim, dtype, ndim ? b->shape : NULL, NULL, 0};
  size_t bytes = 0;
  tirx_status st = tx_dl_nbytes(t, 0, &bytes, err);
  if (!st) st = tx_rt_alloc(rt, bytes, &t->data, err);
  if (st) {
    tx_mem_free(tx_rt_alloc_of(rt), b);
    return st;
  }
  tx_rt_retain(rt);
  b->rt = rt;
  *out = b;
  return TIRX_OK;
}

tirx_status tx_rt_tensor_alloc(tx_runtime *rt, const int64_t *shape, int32_t ndim, DLDataType dtype,
                               DLManagedTensorVersioned **out, tx_rt_error *err) {
  if (!out) return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_tensor_alloc: out is NULL");
  *out = NULL;
  export_block *b;
  DLTensor t;
  tirx_status st = make_block(rt, shape, ndim, dtype, &b, &t, err);
  if (st) return st;
  b->u.v.version = (DLPackVersion){DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  b->u.v.manager_ctx = b;
  b->u.v.deleter = delete_versioned;
  b->u.v.flags = 0;
  b->u.v.dl_tensor = t;
  *out = &b->u.v;
  return TIRX_OK;
}

tirx_status tx_rt_tensor_alloc_legacy(tx_runtime *rt, const int64_t *shape, int32_t ndim,
                                      DLDataType dtype, DLManagedTensor **out, tx_rt_error *err) {
  if (!out) return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_tensor_alloc_legacy: out is NULL");
  *out = NULL;
  export_block *b;
  DLTensor t;
  tirx_status st = make_block(rt, shape, ndim, dtype, &b, &t, err);
  if (st) return st;
  b->u.l.dl_tensor = t;
  b->u.l.manager_ctx = b;
  b->u.l.deleter = delete_legacy;
  *out = &b->u.l;
  return TIRX_OK;
}

/* ---- import -------------------------------------------------------------- */

static tirx_status check_tensor(const DLTensor *t, tx_rt_error *err) {
  if (t->ndim < 0)
    return tx_rt_fail(err, TIRX_ERR_USAGE, "DLPack tensor has ndim %d", (int)t->ndim);
  if (t->ndim > 0 && !t->shape)
    return tx_rt_fail(err, TIRX_ERR_USAGE, "DLPack tensor of rank %d has no shape", (int)t->ndim);
  if (!tx_dl_dtype_valid(t->dtype))
    return tx_rt_fail(err, TIRX_ERR_USAGE,
                      "DLPack tensor has an invalid dtype {code %u, bits %u, lanes %u}",
                      (unsigned)t->dtype.code, (unsigned)t->dtype.bits, (unsigned)t->dtype.lanes);
  if (tx_dl_numel(t) < 0)
    return tx_rt_fail(err, TIRX_ERR_USAGE, "DLPack tensor has a negative or overflowing shape");
  return TIRX_OK;
}

tirx_status tx_dl_import_versioned(DLManagedTensorVersioned *m, tx_dl_import *out,
                                   tx_rt_error *err) {
  memset(out, 0, sizeof *out);
  if (!m) return tx_rt_fail(err, TIRX_ERR_USAGE, "DLPack capsule is NULL");
  /* A different major version may have a different layout after the
   * version field: reading further would be undefined. */
  if (m->version.major != DLPACK_MAJOR_VERSION)
    return tx_rt_fail(err, TIRX_ERR_USAGE, "DLPack version %u.%u is not supported (need %d.x)",
                      (unsigned)m->version.major, (unsigned)m->version.minor, DLPACK_MAJOR_VERSION);
  tirx_status st = check_tensor(&m->dl_tensor, err);
  if (st) return st;
  out->tensor = &m->dl_tensor;
  out->read_only = (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
  out->subbyte_padded = (m->flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) != 0;
  out->versioned = m;
  return TIRX_OK;
}

tirx_status tx_dl_import_legacy(DLManagedTensor *m, tx_dl_import *out, tx_rt_error *err) {
  memset(out, 0, sizeof *out);
  if (!m) return tx_rt_fail(err, TIRX_ERR_USAGE, "DLPack capsule is NULL");
  tirx_status st = check_tensor(&m->dl_tensor, err);
  if (st) return st;
  out->tensor = &m->dl_tensor;
  out->legacy = m;
  return TIRX_OK;
}

void tx_dl_import_release(tx_dl_import *imp) {
  if (!imp) return;
  if (imp->versioned && imp->versioned->deleter) imp->versioned->deleter(imp->versioned);
  if (imp->legacy && imp->legacy->deleter) imp->legacy->deleter(imp->legacy);
  memset(imp, 0, sizeof *imp);
}

/* Python floats become 16-bit kernel scalars as TVM converts them: round to
 * nearest even, overflow to infinity, NaN stays NaN. */
uint16_t tx_dl_f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  uint32_t sign = (x >> 16) & 0x8000u, mag = x & 0x7fffffffu;
  if (mag > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);  /* NaN */
  if (mag >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds past 65504: inf */
  if (mag < 0x38800000u) {                                   /* a float16 subnormal or zero */
    if (mag < 0x33000000u) return (uint16_t)sign;            /* below half the smallest */
    uint32_t m = (mag & 0x7fffffu) | 0x800000u;
    int shift = 126 - (int)(mag >> 23); /* 14 .. 24 */
    uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    q += rem > half || (rem == half && (q & 1));
    return (uint16_t)(sign | q);
  }
  uint32_t q = ((mag >> 13) - (112u << 10)), rem = mag & 0x1fffu;
  q += rem > 0x1000u || (rem == 0x1000u && (q & 1));
  return (uint16_t)(sign | q);
}

uint16_t tx_dl_f32_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}
