/*
 * device.c - opening and closing a runtime: the driver, the device, its
 * primary context, and the error helpers every runtime file shares.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_internal.h"
#include "abi/arch.h"

tirx_status tx_rt_fail(tx_rt_error *err, tirx_status code, const char *fmt, ...) {
  if (err) {
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}

tirx_status tx_rt_check(const tx_runtime *rt, tx_cu_result r, const char *call, tx_rt_error *err) {
  if (r == TX_CUDA_SUCCESS) return TIRX_OK;
  tirx_status st = tx_cu_status(r);
  if (err) {
    err->code = st;
    tx_cu_format_error(err->message, sizeof err->message, call, r, rt->cu.GetErrorName);
  }
  return st;
}

tirx_status tx_rt_enter(tx_runtime *rt, tx_rt_error *err) {
  if (!rt) return tx_rt_fail(err, TIRX_ERR_USAGE, "no runtime (NULL)");
  return tx_rt_check(rt, rt->cu.CtxSetCurrent(rt->ctx), "cuCtxSetCurrent", err);
}

void tx_rt_retain(tx_runtime *rt) {
  atomic_fetch_add_explicit(&rt->refs, 1, memory_order_relaxed);
}

/* Tear down: modules first (they live in the context), then our reference
 * to the primary context, then the driver handle. */
static void destroy(tx_runtime *rt) {
  if (rt->ctx) {
    rt->cu.CtxSetCurrent(rt->ctx);
    tx_rt_module *m = rt->modules;
    while (m) {
      tx_rt_module *next = m->next;
      tx_rt_module_destroy(m);
      m = next;
    }
    rt->cu.DevicePrimaryCtxRelease(rt->dev);
  }
  pthread_mutex_destroy(&rt->lock);
  tx_cu_unload(&rt->cu);
  tirx_allocator alloc = rt->alloc; /* rt itself goes last */
  tx_mem_free(&alloc, rt);
}

void tx_rt_release(tx_runtime *rt) {
  if (atomic_fetch_sub_explicit(&rt->refs, 1, memory_order_acq_rel) == 1) destroy(rt);
}

void tx_rt_close(tx_runtime *rt) {
  if (rt) tx_rt_release(rt);
}

/* Query the device facts the rest of the runtime and its users need. */
static tirx_status read_facts(tx_runtime *rt, tx_rt_error *err) {
  struct {
    int *out;
    int attr;
  } attrs[] = {
      {&rt->cc, TX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
      {&rt->sm_count, TX_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
      {&rt->shared_optin, TX_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN},
  };
  tirx_status st;
  for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
    if ((st = tx_rt_check(rt, rt->cu.DeviceGetAttribute(attrs[i].out, attrs[i].attr, rt->dev),
                          "cuDeviceGetAttribute", err)))
      return st;
  int minor = 0;
  if ((st = tx_rt_check(rt,
                        rt->cu.DeviceGetAttribute(
                            &minor, TX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, rt->dev),
                        "cuDeviceGetAttribute", err)))
    return st;
  /* The architecture to compile for: the table's (abi/arches.def; the
   * "a" targets from Hopper on, which wgmma/tcgen05 kernels need). A device
   * tirx-c has no row for is named in the same pattern, so that compiling
   * for it is refused with that name. */
  int major = rt->cc;
  rt->cc = major * 10 + minor;
  const char *arch = tx_arch_for_cc(major, minor);
  if (arch)
    snprintf(rt->arch, sizeof rt->arch, "%s", arch);
  else
    snprintf(rt->arch, sizeof rt->arch, "sm_%d%d%s", major, minor, major >= 9 ? "a" : "");
  if ((st = tx_rt_check(rt, rt->cu.DeviceGetName(rt->name, (int)sizeof rt->name, rt->dev),
                        "cuDeviceGetName", err)))
    return st;
  rt->name[sizeof rt->name - 1] = '\0';
  return tx_rt_check(rt, rt->cu.DriverGetVersion(&rt->driver_version), "cuDriverGetVersion", err);
}

tirx_status tx_rt_open_with(const char *driver_library, int ordinal, tx_runtime **out,
                            tx_rt_error *err) {
  return tx_rt_open_alloc(driver_library, ordinal, NULL, out, err);
}

tirx_status tx_rt_open_alloc(const char *driver_library, int ordinal, const tirx_allocator *alloc,
                             tx_runtime **out, tx_rt_error *err) {
  if (!out) return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_open: out is NULL");
  *out = NULL;
  if (ordinal < 0) return tx_rt_fail(err, TIRX_ERR_USAGE, "device ordinal %d is negative", ordinal);
  tx_runtime *rt = tx_mem_calloc(alloc, 1, sizeof *rt);
  if (!rt) return tx_rt_fail(err, TIRX_ERR_NOMEM, "out of memory");
  if (alloc) rt->alloc = *alloc;
  char msg[sizeof err->message];
  tirx_status st = tx_cu_load(&rt->cu, driver_library, &rt->alloc, msg, sizeof msg);
  if (st != TIRX_OK) {
    tx_mem_free(alloc, rt);
    return tx_rt_fail(err, st, "%s", msg);
  }
  if (pthread_mutex_init(&rt->lock, NULL) != 0) {
    tx_cu_unload(&rt->cu);
    tx_mem_free(alloc, rt);
    return tx_rt_fail(err, TIRX_ERR_NOMEM, "pthread_mutex_init failed");
  }
  atomic_init(&rt->refs, 1);
  rt->ordinal = ordinal;
  tx_cu_result r = rt->cu.Init(0);
  if (r == TX_CUDA_ERROR_NO_DEVICE) {
    st = tx_rt_fail(err, TIRX_ERR_IO, "no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)");
  } else if ((st = tx_rt_check(rt, r, "cuInit", err)) == TIRX_OK &&
             (st = tx_rt_check(rt, rt->cu.DeviceGetCount(&rt->count), "cuDeviceGetCount", err)) ==
                 TIRX_OK) {
    if (rt->count == 0)
      st = tx_rt_fail(err, TIRX_ERR_IO, "no CUDA device (cuDeviceGetCount found none)");
    else if (ordinal >= rt->count)
      st = tx_rt_fail(err, TIRX_ERR_USAGE, "no CUDA device %d (%d found)", ordinal, rt->count);
    else if (!(st = tx_rt_check(rt, rt->cu.DeviceGet(&rt->dev, ordinal), "cuDeviceGet", err)) &&
             !(st = read_facts(rt, err)) &&
             !(st = tx_rt_check(rt, rt->cu.DevicePrimaryCtxRetain(&rt->ctx, rt->dev),
                                "cuDevicePrimaryCtxRetain", err)))
      st = tx_rt_enter(rt, err);
  }
  if (st != TIRX_OK) {
    destroy(rt);
    return st;
  }
  *out = rt;
  return TIRX_OK;
}

tirx_status tx_rt_open(int ordinal, tx_runtime **out, tx_rt_error *err) {
  return tx_rt_open_with(NULL, ordinal, out, err);
}

int tx_rt_device_count(const tx_runtime *rt) {
  return rt->count;
}
int tx_rt_cc(const tx_runtime *rt) {
  return rt->cc;
}
const char *tx_rt_arch(const tx_runtime *rt) {
  return rt->arch;
}
const char *tx_rt_device_name(const tx_runtime *rt) {
  return rt->name;
}
DLDevice tx_rt_device(const tx_runtime *rt) {
  return (DLDevice){kDLCUDA, rt->ordinal};
}
int tx_rt_driver_version(const tx_runtime *rt) {
  return rt->driver_version;
}
int tx_rt_sm_count(const tx_runtime *rt) {
  return rt->sm_count;
}
int tx_rt_max_shared_optin(const tx_runtime *rt) {
  return rt->shared_optin;
}
