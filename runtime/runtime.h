/*
 * runtime.h - the runtime's internal interface: the CUDA driver loaded at
 * run time, devices, memory, modules and launches.
 *
 * libcuda.so.1 is opened with dlopen when a runtime is created, so libtirx
 * builds, loads and runs its CPU-side paths on machines without a driver;
 * there every entry point returns a clear error. Every CUDA failure is
 * reported as "cuXxx failed: CUDA_ERROR_NAME (code)" naming the call. Nothing
 * here prints, exits or keeps global state: a tx_runtime owns its driver
 * handle and its reference to the device's primary context (the context
 * PyTorch, CuPy and the CUDA runtime API share, so pointers and streams
 * cross between them).
 *
 * Thread safety: every call except tx_rt_open/tx_rt_close may be used from
 * several threads on one runtime at once. Each call makes the runtime's
 * context current on the calling thread first; the function cache and the
 * module list are locked. A module must not be unloaded while another
 * thread still uses its functions.
 *
 * Errors: every fallible call takes an optional tx_rt_error (NULL: the
 * caller only wants the status). Status classes: TIRX_ERR_IO for a missing,
 * stub or too old driver, no device, and failures of the device itself
 * (a kernel fault, a lost context); TIRX_ERR_USAGE for bad arguments and
 * launch configurations the driver refuses; TIRX_ERR_INPUT for an image the
 * driver rejects (JIT log attached); TIRX_ERR_NOMEM for out of memory (host
 * or device). See docs/runtime.md.
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
  char message[1024]; /* room for the head of a JIT log */
} tx_rt_error;

typedef struct tx_runtime tx_runtime;
typedef struct tx_rt_module tx_rt_module;     /* a loaded CUmodule */
typedef struct tx_rt_function tx_rt_function; /* a CUfunction, cached per module */
typedef void *tx_rt_stream;                   /* a CUstream; NULL is the default stream */

/* Open the driver, pick device `ordinal`, retain its primary context.
 * TIRX_ERR_IO with "CUDA driver not found (libcuda.so.1): ..." or "no CUDA
 * device ..." when there is none; TIRX_ERR_USAGE for an ordinal out of
 * range. *out is NULL on failure. */
tirx_status tx_rt_open(int ordinal, tx_runtime **out, tx_rt_error *err);
/* Same with the driver library named explicitly (NULL: libcuda.so.1), for
 * unusual installs and for tests. */
tirx_status tx_rt_open_with(const char *driver_library, int ordinal, tx_runtime **out,
                            tx_rt_error *err);
/* Same with everything the runtime allocates going through `alloc` (NULL:
 * malloc; the struct is copied), which must stay valid until the runtime is
 * gone: closed, and every tensor it exported released. */
tirx_status tx_rt_open_alloc(const char *driver_library, int ordinal, const tirx_allocator *alloc,
                             tx_runtime **out, tx_rt_error *err);
/* Drop the caller's reference. Modules still loaded are unloaded; device
 * tensors exported through tensor.h keep the runtime alive until their
 * deleters have run. NULL is ignored. */
void tx_rt_close(tx_runtime *rt);

/* Device facts, read once at open. */
int tx_rt_device_count(const tx_runtime *rt);
int tx_rt_cc(const tx_runtime *rt);           /* 90 for compute capability 9.0 */
const char *tx_rt_arch(const tx_runtime *rt); /* NVRTC target: "sm_90a" (the "a" from cc 9.0 on) */
const char *tx_rt_device_name(const tx_runtime *rt);
DLDevice tx_rt_device(const tx_runtime *rt);    /* {kDLCUDA, ordinal} */
int tx_rt_driver_version(const tx_runtime *rt); /* 13000 for CUDA 13.0 */
int tx_rt_sm_count(const tx_runtime *rt);
/* The most dynamic + static shared memory one block may opt in to. */
int tx_rt_max_shared_optin(const tx_runtime *rt);

/* Memory: device buffers and copies, asynchronous on `stream` (NULL: the
 * legacy default stream). Host memory must stay valid and unchanged until
 * the stream is synchronized. bytes == 0 is a no-op; tx_rt_free(NULL) too. */
tirx_status tx_rt_alloc(tx_runtime *rt, size_t bytes, void **out, tx_rt_error *err);
tirx_status tx_rt_free(tx_runtime *rt, void *ptr, tx_rt_error *err);
typedef enum tx_rt_copy_kind { TX_COPY_H2D, TX_COPY_D2H, TX_COPY_D2D } tx_rt_copy_kind;
tirx_status tx_rt_copy(tx_runtime *rt, void *dst, const void *src, size_t bytes,
                       tx_rt_copy_kind kind, tx_rt_stream stream, tx_rt_error *err);
/* Streams are created non-blocking: they do not serialize with the legacy
 * default stream, so work from different threads overlaps. */
tirx_status tx_rt_stream_create(tx_runtime *rt, tx_rt_stream *out, tx_rt_error *err);
tirx_status tx_rt_stream_destroy(tx_runtime *rt, tx_rt_stream s, tx_rt_error *err);
/* Wait for stream `s`; NULL waits for the whole context (cuCtxSynchronize). */
tirx_status tx_rt_synchronize(tx_runtime *rt, tx_rt_stream s, tx_rt_error *err);

/* Where a pointer lives, for DLPack device checks: {kDLCUDA, ordinal} for
 * device memory, kDLCUDAManaged for managed memory, kDLCUDAHost for pinned
 * host memory, {kDLCPU, 0} for memory CUDA does not know. */
tirx_status tx_rt_pointer_device(tx_runtime *rt, const void *ptr, DLDevice *out, tx_rt_error *err);

/* Kernel timing with CUDA events: milliseconds between two points on `s`.
 * tx_rt_timer_stop waits for the end event and always frees the timer. */
typedef struct tx_rt_timer tx_rt_timer;
tirx_status tx_rt_timer_start(tx_runtime *rt, tx_rt_stream s, tx_rt_timer **out, tx_rt_error *err);
tirx_status tx_rt_timer_stop(tx_runtime *rt, tx_rt_timer *t, tx_rt_stream s, float *ms,
                             tx_rt_error *err);

/* Modules from PTX text (NUL-terminated) or a cubin image; `size` is only
 * informational (the driver finds the end itself). A JIT failure returns
 * TIRX_ERR_INPUT with the JIT error log in the message. */
tirx_status tx_rt_module_load(tx_runtime *rt, const void *image, size_t size, tx_rt_module **out,
                              tx_rt_error *err);
/* Unload and free the module and its cached functions; NULL is ignored. */
void tx_rt_module_unload(tx_runtime *rt, tx_rt_module *m);
/* Cached lookup: the same name gives the same handle, valid until the
 * module is unloaded. A missing kernel is TIRX_ERR_USAGE naming it. */
tirx_status tx_rt_get_function(tx_runtime *rt, tx_rt_module *m, const char *name,
                               tx_rt_function **out, tx_rt_error *err);

/* Zero dimensions count as 1 in grid and block. */
typedef struct tx_rt_launch {
  uint32_t grid[3], block[3];
  uint32_t dyn_shared_bytes;     /* > 48 KiB raises MAX_DYNAMIC_SHARED_SIZE_BYTES once */
  uint32_t cluster[3];           /* all zero: no cluster; zero y/z count as 1 */
  uint32_t preferred_cluster[3]; /* all zero: none (needs a cluster; cc 10.0+) */
  tx_rt_stream stream;
} tx_rt_launch;

/* Encode a tensor map with cuTensorMapEncodeTiled into `map` (128 bytes,
 * 64-byte aligned) from values that passed tx_tensormap_rules. TIRX_ERR_IO
 * when the driver lacks the entry point (older than CUDA 12.0); otherwise
 * the driver's error, "cuTensorMapEncodeTiled failed: NAME (code)", followed
 * by the values it was given. */
struct tx_tensormap_values;
tirx_status tx_rt_tensormap_encode(tx_runtime *rt, const struct tx_tensormap_values *v, void *map,
                                   tx_rt_error *err);

/* Launch through cuLaunchKernelEx. args[i] points at parameter i's value.
 * Asynchronous: a fault inside the kernel surfaces at the next synchronize. */
tirx_status tx_rt_launch_kernel(tx_runtime *rt, tx_rt_function *f, const tx_rt_launch *cfg,
                                void **args, tx_rt_error *err);

#endif
