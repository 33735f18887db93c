/*
 * fake_cuda.c - a stand-in for libcuda.so.1 with every entry point the
 * runtime resolves (generated from TX_CU_FUNCTIONS, so the list cannot drift
 * from the runtime's). Device memory is host memory, modules and functions
 * are tokens, launches are recorded. A module image starting with "bad"
 * fails like PTX with a syntax error, filling the JIT error log.
 *
 * State is global here: this is a test double loaded into a forked test
 * process, not library code. The runtime may call it from many threads at
 * once (tests/threads), so every record is written under one lock.
 */
#include "fake_cuda.h"

#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_API __attribute__((visibility("default")))

static fake_cuda_state S = {.init_result = 0, .device_count = 1};
static char token_store[64]; /* addresses for fake handles */
static pthread_mutex_t record_lock = PTHREAD_MUTEX_INITIALIZER;

static void count(int *counter) {
  pthread_mutex_lock(&record_lock);
  (*counter)++;
  pthread_mutex_unlock(&record_lock);
}
static void add_allocations(long n) {
  pthread_mutex_lock(&record_lock);
  S.live_allocations += n;
  pthread_mutex_unlock(&record_lock);
}

FAKE_API fake_cuda_state *fake_cuda_state_get(void);
fake_cuda_state *fake_cuda_state_get(void) {
  return &S;
}

/* Declarations first (the warnings want prototypes), then definitions. */
#define DECL(member, sym, params) FAKE_API tx_cu_result sym params;
TX_CU_FUNCTIONS(DECL)
#ifndef FAKE_CUDA_NO_TENSORMAP
TX_CU_OPTIONAL_FUNCTIONS(DECL)
#endif
#undef DECL

tx_cu_result cuInit(unsigned int flags) {
  (void)flags;
  return S.init_result;
}
tx_cu_result cuDriverGetVersion(int *version) {
  *version = 13000;
  return 0;
}
tx_cu_result cuDeviceGetCount(int *count) {
  *count = S.device_count;
  return 0;
}
tx_cu_result cuDeviceGet(tx_cu_device *dev, int ordinal) {
  if (ordinal < 0 || ordinal >= S.device_count) return TX_CUDA_ERROR_INVALID_DEVICE;
  *dev = ordinal;
  return 0;
}
tx_cu_result cuDeviceGetName(char *name, int len, tx_cu_device dev) {
  (void)dev;
  strncpy(name, "Fake H200", (size_t)len);
  return 0;
}
tx_cu_result cuDeviceGetAttribute(int *value, int attrib, tx_cu_device dev) {
  (void)dev;
  switch (attrib) {
  case TX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = 9;
    break;
  case TX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = 0;
    break;
  case TX_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 132;
    break;
  case TX_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *value = 232448;
    break;
  default:
    return TX_CUDA_ERROR_INVALID_VALUE;
  }
  return 0;
}
tx_cu_result cuDevicePrimaryCtxRetain(tx_cu_context *ctx, tx_cu_device dev) {
  (void)dev;
  count(&S.retains);
  *ctx = (tx_cu_context)(void *)&token_store[0];
  return 0;
}
tx_cu_result cuDevicePrimaryCtxRelease_v2(tx_cu_device dev) {
  (void)dev;
  count(&S.releases);
  return 0;
}
tx_cu_result cuCtxSetCurrent(tx_cu_context ctx) {
  (void)ctx;
  count(&S.set_current);
  return 0;
}
tx_cu_result cuCtxGetCurrent(tx_cu_context *ctx) {
  *ctx = (tx_cu_context)(void *)&token_store[0];
  return 0;
}
tx_cu_result cuCtxSynchronize(void) {
  return 0;
}
tx_cu_result cuMemAlloc_v2(tx_cu_deviceptr *ptr, size_t bytes) {
  void *p = malloc(bytes);
  if (!p) return TX_CUDA_ERROR_OUT_OF_MEMORY;
  add_allocations(1);
  *ptr = (tx_cu_deviceptr)(uintptr_t)p;
  return 0;
}
tx_cu_result cuMemFree_v2(tx_cu_deviceptr ptr) {
  add_allocations(-1);
  free((void *)(uintptr_t)ptr);
  return 0;
}
tx_cu_result cuMemcpyHtoDAsync_v2(tx_cu_deviceptr dst, const void *src, size_t bytes,
                                  tx_cu_stream s) {
  (void)s;
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return 0;
}
tx_cu_result cuMemcpyDtoHAsync_v2(void *dst, tx_cu_deviceptr src, size_t bytes, tx_cu_stream s) {
  (void)s;
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return 0;
}
tx_cu_result cuMemcpyDtoDAsync_v2(tx_cu_deviceptr dst, tx_cu_deviceptr src, size_t bytes,
                                  tx_cu_stream s) {
  (void)s;
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return 0;
}
tx_cu_result cuStreamCreate(tx_cu_stream *s, unsigned int flags) {
  (void)flags;
  *s = (tx_cu_stream)(void *)&token_store[1];
  return 0;
}
tx_cu_result cuStreamDestroy_v2(tx_cu_stream s) {
  (void)s;
  return 0;
}
tx_cu_result cuStreamSynchronize(tx_cu_stream s) {
  (void)s;
  return 0;
}
tx_cu_result cuModuleLoadDataEx(tx_cu_module *m, const void *image, unsigned int nopts, int *opts,
                                void **vals) {
  if (strncmp(image, "bad", 3) != 0) {
    count(&S.modules_loaded);
    *m = (tx_cu_module)(void *)&token_store[2];
    return 0;
  }
  char *log = NULL;
  size_t cap = 0;
  for (unsigned i = 0; i < nopts; i++) {
    if (opts[i] == TX_CU_JIT_ERROR_LOG_BUFFER) log = vals[i];
    if (opts[i] == TX_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) cap = (size_t)(uintptr_t)vals[i];
  }
  if (log && cap) {
    strncpy(log, "ptxas application ptx input, line 3; error   : Unknown symbol 'bogus'\n", cap);
    log[cap - 1] = '\0';
  }
  return TX_CUDA_ERROR_INVALID_PTX;
}
tx_cu_result cuModuleUnload(tx_cu_module m) {
  (void)m;
  count(&S.modules_unloaded);
  return 0;
}
/* Function handles: one per name (the first 32 names; later ones share the
 * last), so that launches can be told apart by kernel. */
static char function_names[32][64];
static int nfunction_names;

static int function_slot(const char *name) {
  for (int i = 0; i < nfunction_names; i++)
    if (strcmp(function_names[i], name) == 0) return i;
  if (nfunction_names == 32) return 31;
  snprintf(function_names[nfunction_names], sizeof function_names[0], "%s", name);
  return nfunction_names++;
}

tx_cu_result cuModuleGetFunction(tx_cu_function *f, tx_cu_module m, const char *name) {
  (void)m;
  count(&S.get_function_calls);
  if (strcmp(name, "missing") == 0) return TX_CUDA_ERROR_NOT_FOUND;
  pthread_mutex_lock(&record_lock);
  *f = (tx_cu_function)(void *)&token_store[8 + function_slot(name)];
  pthread_mutex_unlock(&record_lock);
  return 0;
}
tx_cu_result cuFuncSetAttribute(tx_cu_function f, int attrib, int value) {
  (void)f;
  if (attrib != TX_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    return TX_CUDA_ERROR_INVALID_VALUE;
  if (value > 232448) return TX_CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&record_lock);
  S.func_set_attribute_calls++;
  S.last_smem_value = value;
  pthread_mutex_unlock(&record_lock);
  return 0;
}
tx_cu_result cuLaunchKernelEx(const tx_cu_launch_config *cfg, tx_cu_function f, void **params,
                              void **extra) {
  (void)extra;
  pthread_mutex_lock(&record_lock);
  S.launches++;
  if (S.nlaunch_log < 8) {
    int slot = (int)((char *)(void *)f - &token_store[8]);
    snprintf(S.launch_log[S.nlaunch_log].kernel, sizeof S.launch_log[0].kernel, "%s",
             slot >= 0 && slot < nfunction_names ? function_names[slot] : "?");
    S.launch_log[S.nlaunch_log].grid_x = cfg->gridDimX;
    S.launch_log[S.nlaunch_log++].block_x = cfg->blockDimX;
  }
  for (int i = 0; i < 8; i++)
    if (S.capture_size[i] && params)
      memcpy(S.captured[i], params[i],
             S.capture_size[i] < sizeof S.captured[i] ? S.capture_size[i] : sizeof S.captured[i]);
  S.last_config = *cfg;
  memset(S.last_attrs, 0, sizeof S.last_attrs);
  tx_cu_result r = cfg->numAttrs > 4 ? TX_CUDA_ERROR_INVALID_VALUE : 0;
  if (r == 0 && cfg->numAttrs) memcpy(S.last_attrs, cfg->attrs, cfg->numAttrs * sizeof *cfg->attrs);
  S.last_config.attrs = NULL;
  pthread_mutex_unlock(&record_lock);
  return r;
}
#ifndef FAKE_CUDA_NO_TENSORMAP
tx_cu_result cuTensorMapEncodeTiled(tx_cu_tensor_map *map, int dtype, unsigned int rank,
                                    void *address, const unsigned long long *dims,
                                    const unsigned long long *strides, const unsigned int *box,
                                    const unsigned int *elem_strides, int interleave, int swizzle,
                                    int l2_promotion, int oob_fill) {
  pthread_mutex_lock(&record_lock);
  S.encodes++;
  S.last_encode.map = map;
  S.last_encode.dtype = dtype;
  S.last_encode.rank = rank;
  S.last_encode.address = address;
  for (unsigned i = 0; i < rank && i < 5; i++) {
    S.last_encode.dims[i] = dims[i];
    S.last_encode.box[i] = box[i];
    S.last_encode.elem_strides[i] = elem_strides[i];
    if (i + 1 < rank) S.last_encode.strides[i] = strides[i];
  }
  S.last_encode.interleave = interleave;
  S.last_encode.swizzle = swizzle;
  S.last_encode.l2_promotion = l2_promotion;
  S.last_encode.oob_fill = oob_fill;
  pthread_mutex_unlock(&record_lock);
  if (S.encode_result) return S.encode_result;
  memset(map, 0, sizeof *map);
  map->opaque[0] = FAKE_TENSORMAP_MAGIC;
  map->opaque[1] = (unsigned long long)(uintptr_t)address;
  map->opaque[2] = rank;
  for (unsigned i = 0; i < rank && i < 5; i++)
    map->opaque[3 + i] = dims[i];
  return 0;
}
#endif
tx_cu_result cuEventCreate(tx_cu_event *e, unsigned int flags) {
  (void)flags;
  *e = malloc(1);
  return *e ? 0 : TX_CUDA_ERROR_OUT_OF_MEMORY;
}
tx_cu_result cuEventRecord(tx_cu_event e, tx_cu_stream s) {
  (void)e, (void)s;
  return 0;
}
tx_cu_result cuEventSynchronize(tx_cu_event e) {
  (void)e;
  return 0;
}
tx_cu_result cuEventElapsedTime_v2(float *ms, tx_cu_event start, tx_cu_event end) {
  (void)start, (void)end;
  *ms = 1.5f;
  return 0;
}
tx_cu_result cuEventDestroy_v2(tx_cu_event e) {
  free(e);
  return 0;
}
tx_cu_result cuGetErrorName(tx_cu_result r, const char **name) {
  switch (r) {
  case 0:
    *name = "CUDA_SUCCESS";
    return 0;
  case 1:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return 0;
  case 100:
    *name = "CUDA_ERROR_NO_DEVICE";
    return 0;
  case 218:
    *name = "CUDA_ERROR_INVALID_PTX";
    return 0;
  case 500:
    *name = "CUDA_ERROR_NOT_FOUND";
    return 0;
  case 999:
    *name = "CUDA_ERROR_UNKNOWN";
    return 0;
  default:
    *name = NULL;
    return TX_CUDA_ERROR_INVALID_VALUE;
  }
}
tx_cu_result cuGetErrorString(tx_cu_result r, const char **text) {
  return cuGetErrorName(r, text);
}
tx_cu_result cuPointerGetAttribute(void *data, int attrib, tx_cu_deviceptr ptr) {
  (void)data, (void)attrib, (void)ptr;
  return TX_CUDA_ERROR_INVALID_VALUE; /* nothing is device memory to this fake's pointer table */
}
