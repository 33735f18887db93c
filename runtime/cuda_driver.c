/*
 * cuda_driver.c - loading libcuda.so.1 and naming its errors.
 */
#include "runtime/cuda_driver.h"

#include <stdio.h>
#include <string.h>

#include "support/dynlib.h"

/* Entry points renamed in later CUDA versions: when a driver older than the
 * toolkit we were written against lacks the new name, the old one has the
 * same signature (cuEventElapsedTime_v2 appeared in CUDA 12.8). */
static const char *fallback_symbol(const char *sym) {
  static const char *const pairs[][2] = {
      {"cuEventElapsedTime_v2", "cuEventElapsedTime"},
      {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    if (strcmp(pairs[i][0], sym) == 0) return pairs[i][1];
  return NULL;
}

tirx_status tx_cu_load(tx_cuda_driver *drv, const char *library, const tirx_allocator *alloc,
                       char *msg, size_t cap) {
  memset(drv, 0, sizeof *drv);
  const char *name = library ? library : TX_CUDA_DRIVER_LIBRARY;
  char why[512];
  tirx_status st = tx_dynlib_open(alloc, &name, 1, &drv->lib, why, sizeof why);
  if (st == TIRX_ERR_NOMEM) {
    snprintf(msg, cap, "out of memory");
    return st;
  }
  if (st != TIRX_OK) {
    snprintf(msg, cap, "CUDA driver not found (%s): %s", name, why);
    return TIRX_ERR_IO;
  }
  /* One table drives the lookups so a new entry point is one line in
   * TX_CU_FUNCTIONS; the slots are written through memcpy because ISO C has
   * no conversion between different function pointer types' objects. */
  struct slot {
    const char *sym;
    void *addr;
  } slots[] = {
#define TX_CU_SLOT(member, sym, params) {#sym, &drv->member},
      TX_CU_FUNCTIONS(TX_CU_SLOT)
#undef TX_CU_SLOT
  };
  for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++) {
    tx_dynlib_fn fn = tx_dynlib_sym(drv->lib, slots[i].sym, why, sizeof why);
    const char *alt = fn ? NULL : fallback_symbol(slots[i].sym);
    if (alt) fn = tx_dynlib_sym(drv->lib, alt, NULL, 0);
    if (!fn) {
      snprintf(msg, cap, "the CUDA driver (%s) lacks %s (too old?): %s", name, slots[i].sym, why);
      tx_cu_unload(drv);
      return TIRX_ERR_IO;
    }
    memcpy(slots[i].addr, &fn, sizeof fn);
  }
  struct slot optional[] = {
#define TX_CU_SLOT(member, sym, params) {#sym, &drv->member},
      TX_CU_OPTIONAL_FUNCTIONS(TX_CU_SLOT)
#undef TX_CU_SLOT
  };
  for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++) {
    tx_dynlib_fn fn = tx_dynlib_sym(drv->lib, optional[i].sym, NULL, 0);
    memcpy(optional[i].addr, &fn, sizeof fn); /* NULL when absent */
  }
  return TIRX_OK;
}

void tx_cu_unload(tx_cuda_driver *drv) {
  if (!drv) return;
  tx_dynlib_close(drv->lib);
  memset(drv, 0, sizeof *drv);
}

const char *tx_cu_format_error(char *msg, size_t cap, const char *call, tx_cu_result r,
                               tx_cu_get_error_name_fn name_fn) {
  const char *name = NULL;
  if (!name_fn || name_fn(r, &name) != TX_CUDA_SUCCESS || !name) name = "unknown CUresult";
  if (msg && cap) snprintf(msg, cap, "%s failed: %s (%d)", call, name, r);
  return msg;
}

tirx_status tx_cu_status(tx_cu_result r) {
  switch (r) {
  case TX_CUDA_SUCCESS:
    return TIRX_OK;
  case TX_CUDA_ERROR_OUT_OF_MEMORY:
    return TIRX_ERR_NOMEM;
  case TX_CUDA_ERROR_INVALID_VALUE:
  case TX_CUDA_ERROR_INVALID_HANDLE:
  case TX_CUDA_ERROR_INVALID_DEVICE:
  case TX_CUDA_ERROR_INVALID_CLUSTER_SIZE:
  case TX_CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
  case TX_CUDA_ERROR_NOT_FOUND:
    return TIRX_ERR_USAGE;
  case TX_CUDA_ERROR_INVALID_IMAGE:
  case TX_CUDA_ERROR_INVALID_PTX:
  case TX_CUDA_ERROR_NO_BINARY_FOR_GPU:
  case TX_CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
  case TX_CUDA_ERROR_SHARED_OBJECT_INIT_FAILED:
    return TIRX_ERR_INPUT;
  default:
    /* A missing or mismatched driver, no device, a fault in a kernel, a lost
     * context: the device side failed, not the caller's arguments. */
    return TIRX_ERR_IO;
  }
}
