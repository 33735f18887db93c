/*
 * api_memory.c - the public device-memory, stream and DLPack entry points
 * (tirx.h), thin wrappers over runtime.h and tensor.h.
 *
 * Must not add behaviour of its own: argument checks and error conversion
 * only, so the internal runtime stays the one place that talks to CUDA.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "support/error.h"
#include "runtime/api_internal.h"
#include "runtime/tensor.h"

static tirx_status usage(tirx_error *err, const char *what) {
  if (err) {
    memset(err, 0, sizeof *err);
    err->code = TIRX_ERR_USAGE;
    snprintf(err->message, sizeof err->message, "%s", what);
  }
  return TIRX_ERR_USAGE;
}

static tirx_status converted(tirx_status st, const tx_rt_error *e, tirx_error *err) {
  if (st != TIRX_OK && err) {
    memset(err, 0, sizeof *err);
    err->code = st;
    snprintf(err->message, sizeof err->message, "%s", e->message);
  }
  return st;
}

tirx_status tirx_tensor_alloc(tirx_runtime *rt, const int64_t *shape, int32_t ndim,
                              DLDataType dtype, DLManagedTensorVersioned **out, tirx_error *err) {
  if (!rt || !out || ndim < 0 || (ndim > 0 && !shape))
    return usage(err, "tirx_tensor_alloc: needs a runtime, a shape and an output");
  tx_rt_error e = {0};
  return converted(tx_rt_tensor_alloc(tx_api_runtime(rt), shape, ndim, dtype, out, &e), &e, err);
}

tirx_status tirx_tensor_alloc_legacy(tirx_runtime *rt, const int64_t *shape, int32_t ndim,
                                     DLDataType dtype, DLManagedTensor **out, tirx_error *err) {
  if (!rt || !out || ndim < 0 || (ndim > 0 && !shape))
    return usage(err, "tirx_tensor_alloc_legacy: needs a runtime, a shape and an output");
  tx_rt_error e = {0};
  return converted(tx_rt_tensor_alloc_legacy(tx_api_runtime(rt), shape, ndim, dtype, out, &e), &e,
                   err);
}

tirx_status tirx_tensor_nbytes(const DLTensor *t, size_t *out, tirx_error *err) {
  if (!t || !out) return usage(err, "tirx_tensor_nbytes: needs a tensor and an output");
  tx_rt_error e = {0};
  return converted(tx_dl_nbytes(t, 0, out, &e), &e, err);
}

tirx_status tirx_dlpack_check(const DLManagedTensorVersioned *m, const DLTensor **out,
                              tirx_error *err) {
  if (!m || !out) return usage(err, "tirx_dlpack_check: needs a capsule and an output");
  tx_rt_error e = {0};
  tx_dl_import imp = {0};
  /* Validation only: the import is not kept, so the capsule stays the caller's. */
  tirx_status st = tx_dl_import_versioned((DLManagedTensorVersioned *)m, &imp, &e);
  if (st == TIRX_OK) *out = imp.tensor;
  return converted(st, &e, err);
}

void tirx_dlpack_release(DLManagedTensorVersioned *m) {
  if (m && m->deleter) m->deleter(m);
}

tirx_status tirx_dlpack_check_legacy(const DLManagedTensor *m, const DLTensor **out,
                                     tirx_error *err) {
  if (!m || !out) return usage(err, "tirx_dlpack_check_legacy: needs a capsule and an output");
  tx_rt_error e = {0};
  tx_dl_import imp = {0};
  tirx_status st = tx_dl_import_legacy((DLManagedTensor *)m, &imp, &e);
  if (st == TIRX_OK) *out = imp.tensor;
  return converted(st, &e, err);
}

void tirx_dlpack_release_legacy(DLManagedTensor *m) {
  if (m && m->deleter) m->deleter(m);
}

tirx_status tirx_copy(tirx_runtime *rt, void *dst, const void *src, size_t bytes,
                      tirx_copy_kind kind, void *stream, tirx_error *err) {
  if (!rt || (bytes && (!dst || !src))) return usage(err, "tirx_copy: needs a runtime and buffers");
  static const tx_rt_copy_kind kinds[] = {
      [TIRX_COPY_HOST_TO_DEVICE] = TX_COPY_H2D,
      [TIRX_COPY_DEVICE_TO_HOST] = TX_COPY_D2H,
      [TIRX_COPY_DEVICE_TO_DEVICE] = TX_COPY_D2D,
  };
  if ((unsigned)kind > TIRX_COPY_DEVICE_TO_DEVICE) return usage(err, "tirx_copy: bad copy kind");
  tx_rt_error e = {0};
  return converted(tx_rt_copy(tx_api_runtime(rt), dst, src, bytes, kinds[kind], stream, &e), &e,
                   err);
}

tirx_status tirx_stream_create(tirx_runtime *rt, void **out, tirx_error *err) {
  if (!rt || !out) return usage(err, "tirx_stream_create: needs a runtime and an output");
  tx_rt_error e = {0};
  return converted(tx_rt_stream_create(tx_api_runtime(rt), out, &e), &e, err);
}

tirx_status tirx_stream_destroy(tirx_runtime *rt, void *stream, tirx_error *err) {
  if (!rt) return usage(err, "tirx_stream_destroy: needs a runtime");
  tx_rt_error e = {0};
  return converted(tx_rt_stream_destroy(tx_api_runtime(rt), stream, &e), &e, err);
}
