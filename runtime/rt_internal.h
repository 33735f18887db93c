/*
 * rt_internal.h - the runtime's private structures and the helpers its
 * source files share (device.c, memory.c, module.c, launch.c, tensor.c).
 */
#ifndef TIRX_RUNTIME_RT_INTERNAL_H
#define TIRX_RUNTIME_RT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "support/mem.h"
#include "runtime/cuda_driver.h"
#include "runtime/runtime.h"

struct tx_runtime {
  /* Everything the runtime allocates (itself, modules, functions, timers,
   * exported tensors' blocks) comes from here; a copy of the opener's. */
  tirx_allocator alloc;
  tx_cuda_driver cu;
  tx_cu_device dev;
  tx_cu_context ctx; /* the device's primary context, retained */
  int ordinal, count, cc, sm_count, shared_optin, driver_version;
  char name[256];
  char arch[16];
  /* One reference for the opener plus one per live exported tensor: a
   * DLPack consumer may run a deleter long after the opener closed. */
  atomic_int refs;
  pthread_mutex_t lock;  /* guards `modules` */
  tx_rt_module *modules; /* loaded modules, unloaded at the last release */
};

struct tx_rt_function {
  tx_cu_function fn;
  uint32_t dyn_smem_set; /* MAX_DYNAMIC_SHARED_SIZE_BYTES already set; under module->lock */
  tx_rt_module *module;
  char name[]; /* the cache key, owned */
};

struct tx_rt_module {
  tx_runtime *rt;
  tx_cu_module mod;
  pthread_mutex_t lock;   /* guards the cache and every function's dyn_smem_set */
  tx_rt_function **slots; /* open addressing, power-of-two capacity */
  size_t cap, count;
  tx_rt_module *prev, *next; /* in rt->modules */
};

/* Record a failure (err may be NULL); returns code so callers can
 * `return tx_rt_fail(...)`. */
tirx_status tx_rt_fail(tx_rt_error *err, tirx_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* TIRX_OK for CUDA_SUCCESS; otherwise "call failed: NAME (code)" with the
 * status tx_cu_status gives. */
tirx_status tx_rt_check(const tx_runtime *rt, tx_cu_result r, const char *call, tx_rt_error *err);
/* Make the runtime's context current on this thread (every entry point's
 * first step: the driver's current context is per thread). */
tirx_status tx_rt_enter(tx_runtime *rt, tx_rt_error *err);

/* The runtime's allocator (support/mem.h), valid as long as the runtime. */
static inline const tirx_allocator *tx_rt_alloc_of(const tx_runtime *rt) {
  return &rt->alloc;
}

void tx_rt_retain(tx_runtime *rt);
void tx_rt_release(tx_runtime *rt);

/* Unload a module without touching rt->modules (the caller unlinked it). */
void tx_rt_module_destroy(tx_rt_module *m);

#endif
