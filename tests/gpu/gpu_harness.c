/*
 * gpu_harness.c - the CUDA driver API through dlopen, for GPU tests.
 *
 * The driver API is declared here by hand (types and enum values from
 * cuda.h) so that the tests build without CUDA headers; versioned entry
 * points (_v2) are looked up by their ABI names, which is what cuda.h's
 * macros would have resolved to.
 */
#include "gpu_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/dynlib.h"

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_NO_DEVICE = 100,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
};

/* cuda.h's CUlaunchAttribute: an id padded to 8 bytes and a 64-byte union. */
typedef struct CUlaunchAttribute {
  int id;
  char pad[4];
  union {
    char pad[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
} CUlaunchAttribute;

typedef struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
} CUlaunchConfig;

typedef struct cuda_api {
  CUresult (*Init)(unsigned);
  CUresult (*DriverGetVersion)(int *);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*DeviceGetName)(char *, int, CUdevice);
  CUresult (*CtxCreate)(CUcontext *, unsigned, CUdevice);
  CUresult (*CtxDestroy)(CUcontext);
  CUresult (*CtxSynchronize)(void);
  CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, CUstream, void **, void **);
  CUresult (*LaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **); /* optional */
  CUresult (*GetErrorName)(CUresult, const char **);
} cuda_api;

struct gpu_harness {
  tx_dynlib *lib;
  cuda_api cu;
  CUdevice dev;
  CUcontext ctx;
  int major, minor, driver;
  int last;
  char arch[16];
  char name[128];
  char err[8192];
};

static const char *err_name(gpu_harness *g, CUresult r) {
  const char *s = NULL;
  if (g->cu.GetErrorName && g->cu.GetErrorName(r, &s) == CUDA_SUCCESS && s) return s;
  return "CUDA_ERROR_?";
}

/* Record a failed call; returns GPU_FAIL so callers can `return check(...)`. */
static int check(gpu_harness *g, CUresult r, const char *what) {
  if (r == CUDA_SUCCESS) return GPU_OK;
  g->last = r;
  snprintf(g->err, sizeof g->err, "%s failed: %s (%d)", what, err_name(g, r), r);
  return GPU_FAIL;
}

int gpu_open(int ordinal, gpu_harness **out, char *why, size_t cap) {
  *out = NULL;
  gpu_harness *g = calloc(1, sizeof *g);
  if (!g) {
    snprintf(why, cap, "out of memory");
    return GPU_FAIL;
  }
  /* libcuda.so.1 is the driver's soname (libcuda.so is only a dev symlink,
   * often a stub that cannot run anything). */
  static const char *const names[] = {"libcuda.so.1"};
  char reason[512];
  g->lib = tx_dynlib_open(names, 1, reason, sizeof reason);
  if (!g->lib) {
    snprintf(why, cap, "no CUDA driver (libcuda.so.1): %s", reason);
    free(g);
    return GPU_SKIP;
  }
  struct {
    const char *name;
    void *slot;
    int optional;
  } syms[] = {
      {"cuInit", &g->cu.Init, 0},
      {"cuDriverGetVersion", &g->cu.DriverGetVersion, 0},
      {"cuDeviceGetCount", &g->cu.DeviceGetCount, 0},
      {"cuDeviceGet", &g->cu.DeviceGet, 0},
      {"cuDeviceGetAttribute", &g->cu.DeviceGetAttribute, 0},
      {"cuDeviceGetName", &g->cu.DeviceGetName, 0},
      /* cuCtxCreate_v2 keeps the classic signature; CUDA 13's cuda.h maps
       * cuCtxCreate to _v4, but drivers still export _v2. */
      {"cuCtxCreate_v2", &g->cu.CtxCreate, 0},
      {"cuCtxDestroy_v2", &g->cu.CtxDestroy, 0},
      {"cuCtxSynchronize", &g->cu.CtxSynchronize, 0},
      {"cuModuleLoadDataEx", &g->cu.ModuleLoadDataEx, 0},
      {"cuModuleGetFunction", &g->cu.ModuleGetFunction, 0},
      {"cuModuleUnload", &g->cu.ModuleUnload, 0},
      {"cuMemAlloc_v2", &g->cu.MemAlloc, 0},
      {"cuMemFree_v2", &g->cu.MemFree, 0},
      {"cuMemcpyHtoD_v2", &g->cu.MemcpyHtoD, 0},
      {"cuMemcpyDtoH_v2", &g->cu.MemcpyDtoH, 0},
      {"cuLaunchKernel", &g->cu.LaunchKernel, 0},
      {"cuLaunchKernelEx", &g->cu.LaunchKernelEx, 1},
      {"cuGetErrorName", &g->cu.GetErrorName, 0},
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    tx_dynlib_fn fn = tx_dynlib_sym(g->lib, syms[i].name, reason, sizeof reason);
    if (!fn && !syms[i].optional) {
      snprintf(why, cap, "the CUDA driver lacks %s: %s", syms[i].name, reason);
      gpu_close(g);
      return GPU_FAIL;
    }
    memcpy(syms[i].slot, &fn, sizeof fn); /* all function pointers share a representation */
  }
  int n = 0;
  CUresult r = g->cu.Init(0);
  if (r == CUDA_ERROR_NO_DEVICE ||
      (r == CUDA_SUCCESS && g->cu.DeviceGetCount(&n) == CUDA_SUCCESS && n <= ordinal)) {
    snprintf(why, cap, "no CUDA device (%d found)", n);
    gpu_close(g);
    return GPU_SKIP;
  }
  if (check(g, r, "cuInit") || check(g, g->cu.DriverGetVersion(&g->driver), "cuDriverGetVersion") ||
      check(g, g->cu.DeviceGet(&g->dev, ordinal), "cuDeviceGet") ||
      check(
          g,
          g->cu.DeviceGetAttribute(&g->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, g->dev),
          "cuDeviceGetAttribute") ||
      check(
          g,
          g->cu.DeviceGetAttribute(&g->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, g->dev),
          "cuDeviceGetAttribute") ||
      check(g, g->cu.DeviceGetName(g->name, sizeof g->name, g->dev), "cuDeviceGetName") ||
      check(g, g->cu.CtxCreate(&g->ctx, 0, g->dev), "cuCtxCreate_v2")) {
    snprintf(why, cap, "%s", g->err);
    gpu_close(g);
    return GPU_FAIL;
  }
  /* The "a" targets (sm_90a, sm_100a, sm_120a) unlock wgmma/tcgen05 and are
   * what TIRx kernels are written for; before Hopper there is none. */
  snprintf(g->arch, sizeof g->arch, "sm_%d%d%s", g->major, g->minor, g->major >= 9 ? "a" : "");
  *out = g;
  return GPU_OK;
}

void gpu_close(gpu_harness *g) {
  if (!g) return;
  if (g->ctx) g->cu.CtxDestroy(g->ctx);
  tx_dynlib_close(g->lib);
  free(g);
}

int gpu_cc_major(const gpu_harness *g) {
  return g->major;
}
int gpu_cc_minor(const gpu_harness *g) {
  return g->minor;
}
const char *gpu_arch(const gpu_harness *g) {
  return g->arch;
}
const char *gpu_device_name(const gpu_harness *g) {
  return g->name;
}
int gpu_driver_version(const gpu_harness *g) {
  return g->driver;
}
const char *gpu_error(const gpu_harness *g) {
  return g->err;
}
int gpu_last_result(const gpu_harness *g) {
  return g->last;
}

int gpu_load_module(gpu_harness *g, const void *image, gpu_module **out) {
  /* The JIT's error log is what explains a PTX the driver rejects. */
  char log[4096] = "";
  int opt[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *val[2] = {log, (void *)(uintptr_t)sizeof log};
  CUmodule m = NULL;
  CUresult r = g->cu.ModuleLoadDataEx(&m, image, 2, opt, val);
  if (r != CUDA_SUCCESS) {
    check(g, r, "cuModuleLoadDataEx");
    size_t n = strlen(g->err);
    log[sizeof log - 1] = '\0';
    if (log[0]) snprintf(g->err + n, sizeof g->err - n, "; JIT log: %s", log);
    return GPU_FAIL;
  }
  *out = (gpu_module *)m;
  return GPU_OK;
}

int gpu_get_function(gpu_harness *g, gpu_module *m, const char *name, gpu_function **out) {
  CUfunction f = NULL;
  if (check(g, g->cu.ModuleGetFunction(&f, (CUmodule)m, name), "cuModuleGetFunction")) {
    size_t n = strlen(g->err);
    snprintf(g->err + n, sizeof g->err - n, " for '%s'", name);
    return GPU_FAIL;
  }
  *out = (gpu_function *)f;
  return GPU_OK;
}

void gpu_unload_module(gpu_harness *g, gpu_module *m) {
  if (m) g->cu.ModuleUnload((CUmodule)m);
}

int gpu_alloc(gpu_harness *g, size_t bytes, gpu_ptr *out) {
  CUdeviceptr p = 0;
  if (check(g, g->cu.MemAlloc(&p, bytes), "cuMemAlloc_v2")) return GPU_FAIL;
  *out = p;
  return GPU_OK;
}

int gpu_free(gpu_harness *g, gpu_ptr p) {
  return p ? check(g, g->cu.MemFree((CUdeviceptr)p), "cuMemFree_v2") : GPU_OK;
}

int gpu_to_device(gpu_harness *g, gpu_ptr dst, const void *src, size_t bytes) {
  return check(g, g->cu.MemcpyHtoD((CUdeviceptr)dst, src, bytes), "cuMemcpyHtoD_v2");
}

int gpu_to_host(gpu_harness *g, void *dst, gpu_ptr src, size_t bytes) {
  return check(g, g->cu.MemcpyDtoH(dst, (CUdeviceptr)src, bytes), "cuMemcpyDtoH_v2");
}

int gpu_launch(gpu_harness *g, gpu_function *f, gpu_dim3 grid, gpu_dim3 block,
               unsigned dyn_shared_bytes, const gpu_dim3 *cluster, void **args) {
  CUresult r;
  if (cluster && cluster->x) {
    if (!g->cu.LaunchKernelEx || g->major < 9) {
      snprintf(g->err, sizeof g->err, "thread block clusters need sm_90+ and cuLaunchKernelEx");
      return GPU_SKIP;
    }
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cluster->x;
    attr.value.clusterDim.y = cluster->y ? cluster->y : 1;
    attr.value.clusterDim.z = cluster->z ? cluster->z : 1;
    CUlaunchConfig cfg = {grid.x,  grid.y,           grid.z, block.x, block.y,
                          block.z, dyn_shared_bytes, NULL,   &attr,   1};
    r = g->cu.LaunchKernelEx(&cfg, (CUfunction)f, args, NULL);
    if (check(g, r, "cuLaunchKernelEx")) return GPU_FAIL;
  } else {
    r = g->cu.LaunchKernel((CUfunction)f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                           dyn_shared_bytes, NULL, args, NULL);
    if (check(g, r, "cuLaunchKernel")) return GPU_FAIL;
  }
  /* Synchronize here so a fault is reported against this launch. */
  return check(g, g->cu.CtxSynchronize(), "cuCtxSynchronize (kernel execution)");
}
