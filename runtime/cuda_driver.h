/*
 * cuda_driver.h - the slice of the CUDA driver API that the runtime uses,
 * declared by hand and loaded from libcuda.so.1 with dlopen.
 *
 * Why not include <cuda.h>: libtirx must build on machines without the CUDA
 * toolkit and must not link against libcuda. Every name here carries a tx_
 * prefix so that this header and the real cuda.h can be included together
 * (tests/unit/test_cuda_abi.c does exactly that, when cuda.h exists, and
 * static-asserts that every value and layout below matches it). Opaque
 * handle types reuse cuda.h's struct tags, so the handles are the same types.
 *
 * Versioned entry points are looked up by their ABI names (cuMemAlloc_v2,
 * ...), which is what cuda.h's #define cuMemAlloc cuMemAlloc_v2 resolves to
 * in a program compiled against the toolkit.
 */
#ifndef TIRX_RUNTIME_CUDA_DRIVER_H
#define TIRX_RUNTIME_CUDA_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "tirx/tirx.h"

typedef int tx_cu_result;                   /* CUresult; an enum in cuda.h, int-sized in the ABI */
typedef int tx_cu_device;                   /* CUdevice */
typedef unsigned long long tx_cu_deviceptr; /* CUdeviceptr (CUdeviceptr_v2) */
typedef struct CUctx_st *tx_cu_context;
typedef struct CUmod_st *tx_cu_module;
typedef struct CUfunc_st *tx_cu_function;
typedef struct CUstream_st *tx_cu_stream;
typedef struct CUevent_st *tx_cu_event;

/* CUresult values the runtime reacts to (others are only named in messages). */
enum {
  TX_CUDA_SUCCESS = 0,
  TX_CUDA_ERROR_INVALID_VALUE = 1,
  TX_CUDA_ERROR_OUT_OF_MEMORY = 2,
  TX_CUDA_ERROR_NOT_INITIALIZED = 3,
  TX_CUDA_ERROR_DEINITIALIZED = 4,
  TX_CUDA_ERROR_STUB_LIBRARY = 34,
  TX_CUDA_ERROR_NO_DEVICE = 100,
  TX_CUDA_ERROR_INVALID_DEVICE = 101,
  TX_CUDA_ERROR_INVALID_IMAGE = 200,
  TX_CUDA_ERROR_INVALID_CONTEXT = 201,
  TX_CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  TX_CUDA_ERROR_INVALID_PTX = 218,
  TX_CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
  TX_CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  TX_CUDA_ERROR_SHARED_OBJECT_INIT_FAILED = 303,
  TX_CUDA_ERROR_INVALID_HANDLE = 400,
  TX_CUDA_ERROR_NOT_FOUND = 500,
  TX_CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  TX_CUDA_ERROR_NOT_SUPPORTED = 801,
  TX_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
  TX_CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
  TX_CUDA_ERROR_INVALID_CLUSTER_SIZE = 912,
  TX_CUDA_ERROR_UNKNOWN = 999,
};

/* CUdevice_attribute */
enum {
  TX_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  TX_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  TX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  TX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  TX_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  TX_CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH = 120,
};

/* CUfunction_attribute */
enum { TX_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 };

/* CUjit_option */
enum {
  TX_CU_JIT_INFO_LOG_BUFFER = 3,
  TX_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  TX_CU_JIT_ERROR_LOG_BUFFER = 5,
  TX_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

/* CUpointer_attribute and CUmemorytype */
enum {
  TX_CU_POINTER_ATTRIBUTE_CONTEXT = 1,
  TX_CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  TX_CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
  TX_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
};
enum {
  TX_CU_MEMORYTYPE_HOST = 1,
  TX_CU_MEMORYTYPE_DEVICE = 2,
  TX_CU_MEMORYTYPE_ARRAY = 3,
  TX_CU_MEMORYTYPE_UNIFIED = 4,
};

/* CUstream_flags, CUevent_flags */
enum { TX_CU_STREAM_DEFAULT = 0, TX_CU_STREAM_NON_BLOCKING = 1 };
enum { TX_CU_EVENT_DEFAULT = 0, TX_CU_EVENT_DISABLE_TIMING = 2 };

/* CUlaunchAttributeID */
enum {
  TX_CU_LAUNCH_ATTRIBUTE_IGNORE = 0,
  TX_CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
  TX_CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION = 11,
};

/* CUlaunchAttributeValue: a 64-byte union whose largest-aligned member
 * (CUaccessPolicyWindow) holds a pointer, hence the 8-byte alignment. Only
 * the members the runtime sets are spelled out. */
typedef union tx_cu_launch_attribute_value {
  char pad[64];
  void *align_; /* the alignment of CUaccessPolicyWindow's base_ptr */
  struct {
    unsigned int x, y, z;
  } clusterDim;
  struct {
    unsigned int x, y, z;
  } preferredClusterDim;
} tx_cu_launch_attribute_value;

/* CUlaunchAttribute: the id is padded to 8 bytes ("char pad[8 - sizeof(id)]"). */
typedef struct tx_cu_launch_attribute {
  int id;
  char pad[4];
  tx_cu_launch_attribute_value value;
} tx_cu_launch_attribute;

/* CUlaunchConfig */
typedef struct tx_cu_launch_config {
  unsigned int gridDimX, gridDimY, gridDimZ;
  unsigned int blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
  tx_cu_stream hStream;
  tx_cu_launch_attribute *attrs;
  unsigned int numAttrs;
} tx_cu_launch_config;

/* CUtensorMap: 128 opaque bytes (CU_TENSOR_MAP_NUM_QWORDS = 16). The driver
 * wants the address 64-byte aligned; CUDA 13's cuda.h declares the type
 * 128-byte aligned, which satisfies both. The enum values of its encoding
 * are in ir/tensormap.h. */
typedef struct tx_cu_tensor_map {
  _Alignas(128) unsigned long long opaque[16];
} tx_cu_tensor_map;

/* Every entry point: X(member, ABI symbol, parameter list). All return
 * CUresult. The symbol column is an identifier so that the ABI test can
 * check that cuda.h declares each one. */
#define TX_CU_FUNCTIONS(X)                                                                         \
  X(Init, cuInit, (unsigned int flags))                                                            \
  X(DriverGetVersion, cuDriverGetVersion, (int *version))                                          \
  X(DeviceGetCount, cuDeviceGetCount, (int *count))                                                \
  X(DeviceGet, cuDeviceGet, (tx_cu_device * dev, int ordinal))                                     \
  X(DeviceGetName, cuDeviceGetName, (char *name, int len, tx_cu_device dev))                       \
  X(DeviceGetAttribute, cuDeviceGetAttribute, (int *value, int attrib, tx_cu_device dev))          \
  X(DevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, (tx_cu_context * ctx, tx_cu_device dev))     \
  X(DevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2, (tx_cu_device dev))                     \
  X(CtxSetCurrent, cuCtxSetCurrent, (tx_cu_context ctx))                                           \
  X(CtxGetCurrent, cuCtxGetCurrent, (tx_cu_context * ctx))                                         \
  X(CtxSynchronize, cuCtxSynchronize, (void))                                                      \
  X(MemAlloc, cuMemAlloc_v2, (tx_cu_deviceptr * ptr, size_t bytes))                                \
  X(MemFree, cuMemFree_v2, (tx_cu_deviceptr ptr))                                                  \
  X(MemcpyHtoDAsync, cuMemcpyHtoDAsync_v2,                                                         \
    (tx_cu_deviceptr dst, const void *src, size_t bytes, tx_cu_stream s))                          \
  X(MemcpyDtoHAsync, cuMemcpyDtoHAsync_v2,                                                         \
    (void *dst, tx_cu_deviceptr src, size_t bytes, tx_cu_stream s))                                \
  X(MemcpyDtoDAsync, cuMemcpyDtoDAsync_v2,                                                         \
    (tx_cu_deviceptr dst, tx_cu_deviceptr src, size_t bytes, tx_cu_stream s))                      \
  X(StreamCreate, cuStreamCreate, (tx_cu_stream * s, unsigned int flags))                          \
  X(StreamDestroy, cuStreamDestroy_v2, (tx_cu_stream s))                                           \
  X(StreamSynchronize, cuStreamSynchronize, (tx_cu_stream s))                                      \
  X(ModuleLoadDataEx, cuModuleLoadDataEx,                                                          \
    (tx_cu_module * m, const void *image, unsigned int nopts, int *opts, void **vals))             \
  X(ModuleUnload, cuModuleUnload, (tx_cu_module m))                                                \
  X(ModuleGetFunction, cuModuleGetFunction,                                                        \
    (tx_cu_function * f, tx_cu_module m, const char *name))                                        \
  X(FuncSetAttribute, cuFuncSetAttribute, (tx_cu_function f, int attrib, int value))               \
  X(LaunchKernelEx, cuLaunchKernelEx,                                                              \
    (const tx_cu_launch_config *cfg, tx_cu_function f, void **params, void **extra))               \
  X(EventCreate, cuEventCreate, (tx_cu_event * e, unsigned int flags))                             \
  X(EventRecord, cuEventRecord, (tx_cu_event e, tx_cu_stream s))                                   \
  X(EventSynchronize, cuEventSynchronize, (tx_cu_event e))                                         \
  X(EventElapsedTime, cuEventElapsedTime_v2, (float *ms, tx_cu_event start, tx_cu_event end))      \
  X(EventDestroy, cuEventDestroy_v2, (tx_cu_event e))                                              \
  X(GetErrorName, cuGetErrorName, (tx_cu_result r, const char **name))                             \
  X(GetErrorString, cuGetErrorString, (tx_cu_result r, const char **text))                         \
  X(PointerGetAttribute, cuPointerGetAttribute, (void *data, int attrib, tx_cu_deviceptr ptr))

/* Entry points only some kernels need, resolved when present and NULL when
 * the driver predates them: a missing one is an error of the call that
 * needs it, not of loading the driver. cuTensorMapEncodeTiled appeared in
 * CUDA 12.0 (tensor maps for TMA; the enums are ints in the ABI). */
#define TX_CU_OPTIONAL_FUNCTIONS(X)                                                                \
  X(TensorMapEncodeTiled, cuTensorMapEncodeTiled,                                                  \
    (tx_cu_tensor_map * map, int dtype, unsigned int rank, void *address,                          \
     const unsigned long long *dims, const unsigned long long *strides, const unsigned int *box,   \
     const unsigned int *elem_strides, int interleave, int swizzle, int l2_promotion,              \
     int oob_fill))

typedef tx_cu_result (*tx_cu_get_error_name_fn)(tx_cu_result r, const char **name);

struct tx_dynlib;

/* The loaded driver: one per tx_runtime, no global copy. */
typedef struct tx_cuda_driver {
  struct tx_dynlib *lib;
#define TX_CU_MEMBER(member, sym, params) tx_cu_result(*member) params;
  TX_CU_FUNCTIONS(TX_CU_MEMBER)
  TX_CU_OPTIONAL_FUNCTIONS(TX_CU_MEMBER) /* NULL when the driver lacks them */
#undef TX_CU_MEMBER
} tx_cuda_driver;

/* The driver's soname; libcuda.so (no .1) is a development symlink that is
 * often a stub which cannot run anything. */
#define TX_CUDA_DRIVER_LIBRARY "libcuda.so.1"

/* Load the driver from `library` (NULL: TX_CUDA_DRIVER_LIBRARY) and resolve
 * every entry point (the optional ones when present). Does not call cuInit. TIRX_ERR_IO with
 * "CUDA driver not found (libcuda.so.1): <dlerror>" when it does not load,
 * or "the CUDA driver (...) lacks cuXxx: ..." when it is too old;
 * TIRX_ERR_NOMEM when the handle (from `alloc`, which must outlive the
 * driver) cannot be allocated. */
tirx_status tx_cu_load(tx_cuda_driver *drv, const char *library, const tirx_allocator *alloc,
                       char *msg, size_t cap);
void tx_cu_unload(tx_cuda_driver *drv);

/* "cuXxx failed: CUDA_ERROR_NAME (code)" into msg. `name_fn` (the driver's
 * cuGetErrorName; may be NULL) names the code; an unknown code is written as
 * "unknown CUresult". Returns msg. */
const char *tx_cu_format_error(char *msg, size_t cap, const char *call, tx_cu_result r,
                               tx_cu_get_error_name_fn name_fn);

/* The tirx_status a failed driver call maps to: out of memory -> NOMEM; bad
 * arguments and launch configurations -> USAGE; images the driver rejects
 * -> INPUT; a missing, stub or too old driver, no device, and failures of
 * the device itself (faults, a lost context) -> IO. */
tirx_status tx_cu_status(tx_cu_result r);

#endif
