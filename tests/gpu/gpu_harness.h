/*
 * gpu_harness.h - a minimal CUDA driver-API launcher for GPU tests.
 *
 * It sits on the runtime (runtime/runtime.h), which dlopens libcuda.so.1, so
 * test binaries build and start on machines without a driver and report a
 * skip reason instead of failing to load. Deliberately small: one device,
 * synchronous copies and launches, raw argument arrays for hand-checked
 * kernels.
 *
 * CUDA state does not survive fork(): open the harness in the process that
 * launches (test_gpu_kernels opens one per forked case).
 */
#ifndef TIRX_TESTS_GPU_HARNESS_H
#define TIRX_TESTS_GPU_HARNESS_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t gpu_ptr; /* CUdeviceptr (64-bit) */
typedef struct gpu_harness gpu_harness;
typedef struct gpu_module gpu_module;     /* CUmodule */
typedef struct gpu_function gpu_function; /* CUfunction */

/* Results: GPU_SKIP means no driver or no device (not a test failure). */
enum { GPU_OK = 0, GPU_FAIL = 1, GPU_SKIP = 2 };

/* Load the driver, pick device `ordinal`, create a context. On failure *out
 * is NULL and `why` says what is missing or what failed. */
int gpu_open(int ordinal, gpu_harness **out, char *why, size_t cap);
void gpu_close(gpu_harness *g);

/* Device facts: compute capability, "sm_90a"-style arch for NVRTC (the
 * arch-specific "a" variant from sm_90 on), name, driver version (13000 for
 * CUDA 13.0). */
int gpu_cc_major(const gpu_harness *g);
int gpu_cc_minor(const gpu_harness *g);
const char *gpu_arch(const gpu_harness *g);
const char *gpu_device_name(const gpu_harness *g);
int gpu_driver_version(const gpu_harness *g);

/* The last error: "cuXxx failed: CUDA_ERROR_NAME (code)" plus the JIT log
 * for module loads. Valid until the next failing call. */
const char *gpu_error(const gpu_harness *g);
/* The CUresult of the last failing call (0 when none). */
int gpu_last_result(const gpu_harness *g);

/* A PTX text (NUL-terminated) or cubin image. */
int gpu_load_module(gpu_harness *g, const void *image, gpu_module **out);
int gpu_get_function(gpu_harness *g, gpu_module *m, const char *name, gpu_function **out);
void gpu_unload_module(gpu_harness *g, gpu_module *m);

int gpu_alloc(gpu_harness *g, size_t bytes, gpu_ptr *out);
int gpu_free(gpu_harness *g, gpu_ptr p);
int gpu_to_device(gpu_harness *g, gpu_ptr dst, const void *src, size_t bytes);
int gpu_to_host(gpu_harness *g, void *dst, gpu_ptr src, size_t bytes);

/* Launch and wait for completion. args[i] points at the value of parameter
 * i (as cuLaunchKernel wants). cluster (may be NULL or {0,0,0}: none) uses
 * cuLaunchKernelEx; GPU_SKIP when the driver or device lacks clusters. */
typedef struct gpu_dim3 {
  unsigned x, y, z;
} gpu_dim3;
int gpu_launch(gpu_harness *g, gpu_function *f, gpu_dim3 grid, gpu_dim3 block,
               unsigned dyn_shared_bytes, const gpu_dim3 *cluster, void **args);

#endif
