/*
 * runtime.h - the runtime's internal interface: the CUDA driver loaded at
 * run time, devices, memory, modules and launches.
 *
 * libcuda.so.1 is opened with dlopen when a runtime is created, so libtirx
 * builds, loads and runs its CPU-side paths on machines without a driver;
 * there every entry point returns a clear error. Every CUDA failure is
 * reported as "cuXxx failed: CUDA_ERROR_NAME (code)" naming the call. Nothing
 * here prints, exits or keeps global state: a tx_runtime owns its driver
 * handle and context.
 *
 * Thread safety: launching, memory calls and function lookup may be used from
 * several threads on one runtime (the function cache is locked; every call
 * makes the runtime's context current on the calling thread first).
 */
#ifndef TIRX_RUNTIME_RUNTIME_H
#define TIRX_RUNTIME_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "tirx/dlpack.h"
#include "tirx/tirx.h"

/* A runtime error: the status and a message naming what failed. */
typedef struct tx_rt_error {
  tirx_status code;
  char message[512];
} tx_rt_error;

typedef struct tx_runtime tx_runtime;
typedef struct tx_rt_module tx_rt_module;     /* a loaded CUmodule */
typedef struct tx_rt_function tx_rt_function; /* a CUfunction, cached per module */
typedef void *tx_rt_stream;                   /* a CUstream; NULL is the default stream */

/* Open the driver, pick device `ordinal`, retain its primary context.
 * TIRX_ERR_IO with "CUDA driver not found (libcuda.so.1): ..." or "no CUDA
 * device ..." when there is none. */
tirx_status tx_rt_open(int ordinal, tx_runtime **out, tx_rt_error *err);
void tx_rt_close(tx_runtime *rt);

/* Device facts. */
int tx_rt_device_count(const tx_runtime *rt);
int tx_rt_cc(const tx_runtime *rt); /* 90 for compute capability 9.0 */
const char *tx_rt_device_name(const tx_runtime *rt);
DLDevice tx_rt_device(const tx_runtime *rt); /* {kDLCUDA, ordinal} */

/* Memory: device buffers and copies, asynchronous on `stream`. */
tirx_status tx_rt_alloc(tx_runtime *rt, size_t bytes, void **out, tx_rt_error *err);
tirx_status tx_rt_free(tx_runtime *rt, void *ptr, tx_rt_error *err);
typedef enum tx_rt_copy_kind { TX_COPY_H2D, TX_COPY_D2H, TX_COPY_D2D } tx_rt_copy_kind;
tirx_status tx_rt_copy(tx_runtime *rt, void *dst, const void *src, size_t bytes,
                       tx_rt_copy_kind kind, tx_rt_stream stream, tx_rt_error *err);
tirx_status tx_rt_stream_create(tx_runtime *rt, tx_rt_stream *out, tx_rt_error *err);
tirx_status tx_rt_stream_destroy(tx_runtime *rt, tx_rt_stream s, tx_rt_error *err);
tirx_status tx_rt_synchronize(tx_runtime *rt, tx_rt_stream s, tx_rt_error *err);

/* Kernel timing with CUDA events: milliseconds between two points on `s`. */
typedef struct tx_rt_timer tx_rt_timer;
tirx_status tx_rt_timer_start(tx_runtime *rt, tx_rt_stream s, tx_rt_timer **out, tx_rt_error *err);
tirx_status tx_rt_timer_stop(tx_runtime *rt, tx_rt_timer *t, tx_rt_stream s, float *ms,
                             tx_rt_error *err);

/* Modules from PTX text (NUL-terminated) or a cubin image. A JIT failure
 * returns TIRX_ERR_INPUT with the JIT error log in the message. */
tirx_status tx_rt_module_load(tx_runtime *rt, const void *image, size_t size,
                              tx_rt_module **out, tx_rt_error *err);
void tx_rt_module_unload(tx_runtime *rt, tx_rt_module *m);
/* Cached lookup: the same name gives the same handle. */
tirx_status tx_rt_get_function(tx_runtime *rt, tx_rt_module *m, const char *name,
                               tx_rt_function **out, tx_rt_error *err);

typedef struct tx_rt_launch {
  uint32_t grid[3], block[3];
  uint32_t dyn_shared_bytes; /* > 48 KiB raises MAX_DYNAMIC_SHARED_SIZE_BYTES once */
  uint32_t cluster[3];       /* all zero: no cluster */
  uint32_t preferred_cluster[3];
  tx_rt_stream stream;
} tx_rt_launch;

/* Launch through cuLaunchKernelEx. args[i] points at parameter i's value. */
tirx_status tx_rt_launch_kernel(tx_runtime *rt, tx_rt_function *f, const tx_rt_launch *cfg,
                                void **args, tx_rt_error *err);

#endif
