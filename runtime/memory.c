/*
 * memory.c - device buffers, copies, streams, synchronization, event
 * timers and pointer queries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_internal.h"

/* CUdeviceptr is a 64-bit integer; the runtime hands out void * so device
 * pointers drop straight into DLTensor.data and kernel arguments. */
static tx_cu_deviceptr dptr(const void *p) {
  return (tx_cu_deviceptr)(uintptr_t)p;
}

tirx_status tx_rt_alloc(tx_runtime *rt, size_t bytes, void **out, tx_rt_error *err) {
  if (!out) return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_alloc: out is NULL");
  *out = NULL;
  tirx_status st = tx_rt_enter(rt, err);
  if (st || bytes == 0) return st;
  tx_cu_deviceptr p = 0;
  if ((st = tx_rt_check(rt, rt->cu.MemAlloc(&p, bytes), "cuMemAlloc_v2", err))) {
    if (err) {
      size_t n = strlen(err->message);
      snprintf(err->message + n, sizeof err->message - n, " allocating %zu bytes", bytes);
    }
    return st;
  }
  *out = (void *)(uintptr_t)p;
  return TIRX_OK;
}

tirx_status tx_rt_free(tx_runtime *rt, void *ptr, tx_rt_error *err) {
  if (!ptr) return TIRX_OK;
  tirx_status st = tx_rt_enter(rt, err);
  if (st) return st;
  return tx_rt_check(rt, rt->cu.MemFree(dptr(ptr)), "cuMemFree_v2", err);
}

tirx_status tx_rt_copy(tx_runtime *rt, void *dst, const void *src, size_t bytes,
                       tx_rt_copy_kind kind, tx_rt_stream stream, tx_rt_error *err) {
  tirx_status st = tx_rt_enter(rt, err);
  if (st || bytes == 0) return st;
  if (!dst || !src) return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_copy: NULL pointer");
  tx_cu_stream s = (tx_cu_stream)stream;
  switch (kind) {
  case TX_COPY_H2D:
    return tx_rt_check(rt, rt->cu.MemcpyHtoDAsync(dptr(dst), src, bytes, s), "cuMemcpyHtoDAsync_v2",
                       err);
  case TX_COPY_D2H:
    return tx_rt_check(rt, rt->cu.MemcpyDtoHAsync(dst, dptr(src), bytes, s), "cuMemcpyDtoHAsync_v2",
                       err);
  case TX_COPY_D2D:
    return tx_rt_check(rt, rt->cu.MemcpyDtoDAsync(dptr(dst), dptr(src), bytes, s),
                       "cuMemcpyDtoDAsync_v2", err);
  }
  return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_copy: bad copy kind %d", (int)kind);
}

tirx_status tx_rt_stream_create(tx_runtime *rt, tx_rt_stream *out, tx_rt_error *err) {
  if (!out) return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_stream_create: out is NULL");
  *out = NULL;
  tirx_status st = tx_rt_enter(rt, err);
  if (st) return st;
  tx_cu_stream s = NULL;
  st = tx_rt_check(rt, rt->cu.StreamCreate(&s, TX_CU_STREAM_NON_BLOCKING), "cuStreamCreate", err);
  if (st == TIRX_OK) *out = s;
  return st;
}

tirx_status tx_rt_stream_destroy(tx_runtime *rt, tx_rt_stream s, tx_rt_error *err) {
  if (!s) return TIRX_OK; /* the default stream is not ours to destroy */
  tirx_status st = tx_rt_enter(rt, err);
  if (st) return st;
  return tx_rt_check(rt, rt->cu.StreamDestroy((tx_cu_stream)s), "cuStreamDestroy_v2", err);
}

tirx_status tx_rt_synchronize(tx_runtime *rt, tx_rt_stream s, tx_rt_error *err) {
  tirx_status st = tx_rt_enter(rt, err);
  if (st) return st;
  if (!s) return tx_rt_check(rt, rt->cu.CtxSynchronize(), "cuCtxSynchronize", err);
  return tx_rt_check(rt, rt->cu.StreamSynchronize((tx_cu_stream)s), "cuStreamSynchronize", err);
}

tirx_status tx_rt_pointer_device(tx_runtime *rt, const void *ptr, DLDevice *out, tx_rt_error *err) {
  if (!out) return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_pointer_device: out is NULL");
  *out = (DLDevice){kDLCPU, 0};
  tirx_status st = tx_rt_enter(rt, err);
  if (st) return st;
  unsigned int type = 0;
  tx_cu_result r =
      rt->cu.PointerGetAttribute(&type, TX_CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dptr(ptr));
  /* Memory CUDA never saw (malloc, the stack) is INVALID_VALUE: plain CPU
   * memory, not an error. */
  if (r == TX_CUDA_ERROR_INVALID_VALUE) return TIRX_OK;
  if ((st = tx_rt_check(rt, r, "cuPointerGetAttribute(MEMORY_TYPE)", err))) return st;
  int ordinal = 0;
  unsigned int managed = 0;
  if ((st = tx_rt_check(
           rt,
           rt->cu.PointerGetAttribute(&ordinal, TX_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, dptr(ptr)),
           "cuPointerGetAttribute(DEVICE_ORDINAL)", err)) ||
      (st = tx_rt_check(
           rt, rt->cu.PointerGetAttribute(&managed, TX_CU_POINTER_ATTRIBUTE_IS_MANAGED, dptr(ptr)),
           "cuPointerGetAttribute(IS_MANAGED)", err)))
    return st;
  if (managed)
    *out = (DLDevice){kDLCUDAManaged, 0};
  else if (type == TX_CU_MEMORYTYPE_HOST)
    *out = (DLDevice){kDLCUDAHost, 0};
  else
    *out = (DLDevice){kDLCUDA, ordinal};
  return TIRX_OK;
}

struct tx_rt_timer {
  tx_cu_event start, end;
};

static void timer_free(tx_runtime *rt, tx_rt_timer *t) {
  if (t->start) rt->cu.EventDestroy(t->start);
  if (t->end) rt->cu.EventDestroy(t->end);
  tx_mem_free(tx_rt_alloc_of(rt), t);
}

tirx_status tx_rt_timer_start(tx_runtime *rt, tx_rt_stream s, tx_rt_timer **out, tx_rt_error *err) {
  if (!out) return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_timer_start: out is NULL");
  *out = NULL;
  tirx_status st = tx_rt_enter(rt, err);
  if (st) return st;
  tx_rt_timer *t = tx_mem_calloc(tx_rt_alloc_of(rt), 1, sizeof *t);
  if (!t) return tx_rt_fail(err, TIRX_ERR_NOMEM, "out of memory");
  /* Both events up front, so stop cannot fail for lack of an event after
   * the work it measures has been queued. */
  if ((st = tx_rt_check(rt, rt->cu.EventCreate(&t->start, TX_CU_EVENT_DEFAULT), "cuEventCreate",
                        err)) ||
      (st = tx_rt_check(rt, rt->cu.EventCreate(&t->end, TX_CU_EVENT_DEFAULT), "cuEventCreate",
                        err)) ||
      (st = tx_rt_check(rt, rt->cu.EventRecord(t->start, (tx_cu_stream)s), "cuEventRecord", err))) {
    timer_free(rt, t);
    return st;
  }
  *out = t;
  return TIRX_OK;
}

tirx_status tx_rt_timer_stop(tx_runtime *rt, tx_rt_timer *t, tx_rt_stream s, float *ms,
                             tx_rt_error *err) {
  if (!t) return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_timer_stop: timer is NULL");
  tirx_status st = tx_rt_enter(rt, err);
  float v = 0;
  if (!st &&
      !(st = tx_rt_check(rt, rt->cu.EventRecord(t->end, (tx_cu_stream)s), "cuEventRecord", err)) &&
      !(st = tx_rt_check(rt, rt->cu.EventSynchronize(t->end), "cuEventSynchronize", err)))
    st = tx_rt_check(rt, rt->cu.EventElapsedTime(&v, t->start, t->end), "cuEventElapsedTime", err);
  if (ms) *ms = st ? 0.0f : v;
  timer_free(rt, t);
  return st;
}
