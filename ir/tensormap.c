/*
 * tensormap.c - the shape of TVM's runtime.cuTensorMapEncodeTiled call and
 * its host-side checks (tensormap.h). Pure functions: no allocation, no
 * diagnostics, no driver.
 */
#include "ir/tensormap.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int is_call(const tx_expr *e, const char *op) {
  return e && e->kind == EXPR_CALL && e->u.call.op && strcmp(e->u.call.op, op) == 0;
}

static int is_string(const tx_expr *e, const char *s) {
  return e && e->kind == EXPR_STRING && e->u.str.len == strlen(s) &&
         memcmp(e->u.str.data, s, e->u.str.len) == 0;
}

int tx_tensormap_is_alloca(const tx_expr *e, const tx_expr **count) {
  if (!(is_call(e, "T.tvm_stack_alloca") || is_call(e, "T.stack_alloca")) || e->nops != 2 ||
      e->u.call.kw.npos != 2 || !is_string(e->ops[0], "tensormap"))
    return 0;
  if (count) *count = e->ops[1];
  return 1;
}

int tx_tensormap_is_encode(const tx_expr *e) {
  return (is_call(e, "T.call_packed") || is_call(e, "T.tvm_call_packed")) && e->nops >= 1 &&
         is_string(e->ops[0], TX_TENSORMAP_ENCODE_NAME);
}

int tx_tensormap_dtype(const char *name, int *cu_dtype, int *elem_bits) {
  tx_dtype t;
  if (!name || !tx_dtype_parse(name, strlen(name), &t) || t.lanes != 1) return 0;
  int cu = -1;
  /* TVM's runtime.cuTensorMapEncodeTiled: int16, bool and the other fp8/fp6
   * encodings have no tensor-map type there either. */
  switch ((tx_dtype_code)t.code) {
  case DT_INT:
    cu = t.bits == 8    ? TX_TMAP_DT_UINT8
         : t.bits == 32 ? TX_TMAP_DT_INT32
         : t.bits == 64 ? TX_TMAP_DT_INT64
                        : -1;
    break;
  case DT_UINT:
    cu = t.bits == 8    ? TX_TMAP_DT_UINT8
         : t.bits == 16 ? TX_TMAP_DT_UINT16
         : t.bits == 32 ? TX_TMAP_DT_UINT32
         : t.bits == 64 ? TX_TMAP_DT_UINT64
                        : -1;
    break;
  case DT_FLOAT:
    cu = t.bits == 16   ? TX_TMAP_DT_FLOAT16
         : t.bits == 32 ? TX_TMAP_DT_FLOAT32
         : t.bits == 64 ? TX_TMAP_DT_FLOAT64
                        : -1;
    break;
  case DT_BFLOAT:
    cu = t.bits == 16 ? TX_TMAP_DT_BFLOAT16 : -1;
    break;
  case DT_E4M3FN:
  case DT_E5M2:
    cu = TX_TMAP_DT_UINT8; /* the copy moves bytes */
    break;
  case DT_E2M1FN:
    cu = TX_TMAP_DT_16U4_ALIGN16B; /* packed in global, unpacked in shared memory */
    break;
  case DT_E4M3FNUZ:
  case DT_E5M2FNUZ:
  case DT_E4M3:
  case DT_E4M3B11FNUZ:
  case DT_E3M4:
  case DT_E8M0FNU:
  case DT_E2M3FN:
  case DT_E3M2FN:
  case DT_BOOL:
  case DT_HANDLE:
  case DT_VOID:
    break;
  }
  if (cu < 0) return 0;
  if (cu_dtype) *cu_dtype = cu;
  if (elem_bits) *elem_bits = t.bits;
  return 1;
}

static int fail_at(const tx_expr **where, const tx_expr *at, char *why, size_t cap, const char *msg,
                   const char *arg) {
  if (where) *where = at;
  if (why && cap) snprintf(why, cap, msg, arg);
  return 0;
}

int tx_tensormap_encode_parse(const tx_expr *call, tx_tensormap_encode *out, const tx_expr **where,
                              char *why, size_t cap) {
  memset(out, 0, sizeof *out);
  if (where) *where = call;
    /* A variable operand's span is its declaration: point at the call instead. */
#define AT(x) ((x)->kind == EXPR_VAR ? call : (x))
  if (!tx_tensormap_is_encode(call))
    return fail_at(where, call, why, cap, "%s", "not an encode call");
  const tx_expr *const *a = call->ops + 1; /* after the function name */
  uint32_t n = call->u.call.kw.npos - 1;
  if (call->u.call.kw.npos != call->nops)
    return fail_at(where, call, why, cap, "%s takes no keyword arguments",
                   TX_TENSORMAP_ENCODE_NAME);
  if (n < 4)
    return fail_at(where, call, why, cap,
                   "%s expects (tensor_map, dtype, rank, address, dims..., strides..., box..., "
                   "element_strides..., interleave, swizzle, l2_promotion, oob_fill)",
                   TX_TENSORMAP_ENCODE_NAME);
  if (a[0]->kind != EXPR_VAR || !a[0]->u.var.tensormap)
    return fail_at(where, AT(a[0]), why, cap,
                   "the first operand of %s must be a tensor map: a variable bound to "
                   "T.tvm_stack_alloca(\"tensormap\", 1) (annotated T.handle(\"tensormap\") or "
                   "T.TensorMap())",
                   TX_TENSORMAP_ENCODE_NAME);
  out->map = a[0];
  if (a[1]->kind != EXPR_STRING)
    return fail_at(where, AT(a[1]), why, cap,
                   "the dtype of %s must be a string literal such as \"float16\"",
                   TX_TENSORMAP_ENCODE_NAME);
  out->dtype = a[1]->u.str.data;
  if (!tx_tensormap_dtype(out->dtype, &out->cu_dtype, &out->elem_bits))
    return fail_at(where, AT(a[1]), why, cap,
                   "tensor-map dtype \"%s\" is not supported (int8, int32, int64, uint8, uint16, "
                   "uint32, uint64, float16, float32, float64, bfloat16, float8_e4m3fn, "
                   "float8_e5m2, float4_e2m1fn)",
                   out->dtype);
  if (a[2]->kind != EXPR_INT || a[2]->u.ival < 1 || a[2]->u.ival > TX_TENSORMAP_MAX_RANK)
    return fail_at(where, AT(a[2]), why, cap, "the rank of %s must be an integer literal in 1..5",
                   TX_TENSORMAP_ENCODE_NAME);
  int r = (int)a[2]->u.ival;
  out->rank = r;
  uint32_t base = 4u * (uint32_t)r + 7u;
  if (n != base && n != base + 1) {
    char msg[320];
    snprintf(msg, sizeof msg,
             "%%s of rank %d takes %u operands after its name (tensor_map, dtype, rank, address, "
             "%d dims, %d strides, %d box sizes, %d element strides, interleave, swizzle, "
             "l2_promotion, oob_fill[, force_dtype]), got %u",
             r, base, r, r - 1, r, r, n);
    return fail_at(where, call, why, cap, msg, TX_TENSORMAP_ENCODE_NAME);
  }
  out->addr = a[3];
  uint32_t k = 4;
  for (int i = 0; i < r; i++)
    out->dims[i] = a[k++];
  for (int i = 0; i < r - 1; i++)
    out->strides[i] = a[k++];
  for (int i = 0; i < r; i++)
    out->box[i] = a[k++];
  for (int i = 0; i < r; i++)
    out->elem_strides[i] = a[k++];
  out->interleave = a[k++];
  out->swizzle = a[k++];
  out->l2_promotion = a[k++];
  out->oob_fill = a[k++];
  out->force_dtype = k < n ? a[k] : NULL;
  for (uint32_t i = 2; i < n; i++)
    if (!tx_dtype_is_int(a[i]->dtype) && !(i == 3 && a[i]->dtype.code == DT_HANDLE))
      return fail_at(where, AT(a[i]), why, cap,
                     "the operands of %s after the dtype must be integers "
                     "(the address a pointer such as A.data)",
                     TX_TENSORMAP_ENCODE_NAME);
  if (a[3]->dtype.code != DT_HANDLE && !(tx_dtype_is_int(a[3]->dtype) && a[3]->dtype.bits == 64))
    return fail_at(where, AT(a[3]), why, cap,
                   "the address operand of %s must be a pointer (A.data) or a 64-bit integer",
                   TX_TENSORMAP_ENCODE_NAME);
  return 1;
#undef AT
}

/* *out = e's value when e is an integer literal; 0 otherwise. */
static int literal(const tx_expr *e, int64_t *out) {
  if (!e || e->kind != EXPR_INT) return 0;
  *out = e->u.ival;
  return 1;
}

int tx_tensormap_constant_values(const tx_tensormap_encode *enc, tx_tensormap_values *out) {
  tx_tensormap_values v = {0};
  v.cu_dtype = enc->cu_dtype;
  v.elem_bits = enc->elem_bits;
  v.rank = (uint32_t)enc->rank;
  int ok = 1;
  for (int i = 0; i < enc->rank; i++) {
    ok &= literal(enc->dims[i], &v.dims[i]) & literal(enc->box[i], &v.box[i]) &
          literal(enc->elem_strides[i], &v.elem_strides[i]);
    if (i + 1 < enc->rank) ok &= literal(enc->strides[i], &v.strides[i]);
  }
  ok &= literal(enc->interleave, &v.interleave) & literal(enc->swizzle, &v.swizzle) &
        literal(enc->l2_promotion, &v.l2_promotion) & literal(enc->oob_fill, &v.oob_fill);
  v.has_force = enc->force_dtype != NULL;
  if (enc->force_dtype) ok &= literal(enc->force_dtype, &v.force_dtype);
  if (ok) *out = v;
  return ok;
}
