/*
 * test_cuda_abi.c - runtime/cuda_driver.h against the real cuda.h: every
 * constant, struct layout and entry point name the runtime declares by hand
 * must match the toolkit's. Built only when cuda.h is found at configure
 * time (tests/CMakeLists.txt); the checks are static assertions, so a
 * mismatch fails the build of this test, and the test itself only reports.
 */
#include <criterion/criterion.h>
#include <cuda.h>
#include <stdalign.h>
#include <stddef.h>

#include "ir/tensormap.h"
#include "runtime/cuda_driver.h"

/* Compared as long long: the two sides are different enum types. */
#define SAME(ours, theirs)                                                                         \
  _Static_assert((long long)(ours) == (long long)(theirs), #ours " != " #theirs)

SAME(TX_CUDA_SUCCESS, CUDA_SUCCESS);
SAME(TX_CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE);
SAME(TX_CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_OUT_OF_MEMORY);
SAME(TX_CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_NOT_INITIALIZED);
SAME(TX_CUDA_ERROR_DEINITIALIZED, CUDA_ERROR_DEINITIALIZED);
SAME(TX_CUDA_ERROR_STUB_LIBRARY, CUDA_ERROR_STUB_LIBRARY);
SAME(TX_CUDA_ERROR_NO_DEVICE, CUDA_ERROR_NO_DEVICE);
SAME(TX_CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_INVALID_DEVICE);
SAME(TX_CUDA_ERROR_INVALID_IMAGE, CUDA_ERROR_INVALID_IMAGE);
SAME(TX_CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_INVALID_CONTEXT);
SAME(TX_CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_NO_BINARY_FOR_GPU);
SAME(TX_CUDA_ERROR_INVALID_PTX, CUDA_ERROR_INVALID_PTX);
SAME(TX_CUDA_ERROR_JIT_COMPILER_NOT_FOUND, CUDA_ERROR_JIT_COMPILER_NOT_FOUND);
SAME(TX_CUDA_ERROR_UNSUPPORTED_PTX_VERSION, CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
SAME(TX_CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, CUDA_ERROR_SHARED_OBJECT_INIT_FAILED);
SAME(TX_CUDA_ERROR_INVALID_HANDLE, CUDA_ERROR_INVALID_HANDLE);
SAME(TX_CUDA_ERROR_NOT_FOUND, CUDA_ERROR_NOT_FOUND);
SAME(TX_CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
SAME(TX_CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_NOT_SUPPORTED);
SAME(TX_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH);
SAME(TX_CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE);
SAME(TX_CUDA_ERROR_INVALID_CLUSTER_SIZE, CUDA_ERROR_INVALID_CLUSTER_SIZE);
SAME(TX_CUDA_ERROR_UNKNOWN, CUDA_ERROR_UNKNOWN);

SAME(TX_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
     CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
SAME(TX_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
SAME(TX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
SAME(TX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
SAME(TX_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
     CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
SAME(TX_CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH);
SAME(TX_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
     CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
SAME(TX_CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER);
SAME(TX_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
SAME(TX_CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER);
SAME(TX_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
SAME(TX_CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_CONTEXT);
SAME(TX_CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
SAME(TX_CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_IS_MANAGED);
SAME(TX_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL);
SAME(TX_CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_HOST);
SAME(TX_CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_DEVICE);
SAME(TX_CU_MEMORYTYPE_ARRAY, CU_MEMORYTYPE_ARRAY);
SAME(TX_CU_MEMORYTYPE_UNIFIED, CU_MEMORYTYPE_UNIFIED);
SAME(TX_CU_STREAM_DEFAULT, CU_STREAM_DEFAULT);
SAME(TX_CU_STREAM_NON_BLOCKING, CU_STREAM_NON_BLOCKING);
SAME(TX_CU_EVENT_DEFAULT, CU_EVENT_DEFAULT);
SAME(TX_CU_EVENT_DISABLE_TIMING, CU_EVENT_DISABLE_TIMING);
SAME(TX_CU_LAUNCH_ATTRIBUTE_IGNORE, CU_LAUNCH_ATTRIBUTE_IGNORE);
SAME(TX_CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
SAME(TX_CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION,
     CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION);

/* Tensor maps: the enums of cuTensorMapEncodeTiled (ir/tensormap.h) and CUtensorMap. */
SAME(TX_TMAP_DT_UINT8, CU_TENSOR_MAP_DATA_TYPE_UINT8);
SAME(TX_TMAP_DT_UINT16, CU_TENSOR_MAP_DATA_TYPE_UINT16);
SAME(TX_TMAP_DT_UINT32, CU_TENSOR_MAP_DATA_TYPE_UINT32);
SAME(TX_TMAP_DT_INT32, CU_TENSOR_MAP_DATA_TYPE_INT32);
SAME(TX_TMAP_DT_UINT64, CU_TENSOR_MAP_DATA_TYPE_UINT64);
SAME(TX_TMAP_DT_INT64, CU_TENSOR_MAP_DATA_TYPE_INT64);
SAME(TX_TMAP_DT_FLOAT16, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
SAME(TX_TMAP_DT_FLOAT32, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
SAME(TX_TMAP_DT_FLOAT64, CU_TENSOR_MAP_DATA_TYPE_FLOAT64);
SAME(TX_TMAP_DT_BFLOAT16, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
SAME(TX_TMAP_DT_FLOAT32_FTZ, CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ);
SAME(TX_TMAP_DT_TFLOAT32, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32);
SAME(TX_TMAP_DT_TFLOAT32_FTZ, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ);
#if CUDA_VERSION >= 12080
SAME(TX_TMAP_DT_16U4_ALIGN8B, CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B);
SAME(TX_TMAP_DT_16U4_ALIGN16B, CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B);
SAME(TX_TMAP_DT_16U6_ALIGN16B, CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B);
SAME(TX_TMAP_SWIZZLE_128B_ATOM_32B, CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B);
SAME(TX_TMAP_SWIZZLE_128B_ATOM_32B_FLIP_8B, CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B);
SAME(TX_TMAP_SWIZZLE_128B_ATOM_64B, CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B);
#endif
SAME(TX_TMAP_INTERLEAVE_NONE, CU_TENSOR_MAP_INTERLEAVE_NONE);
SAME(TX_TMAP_INTERLEAVE_16B, CU_TENSOR_MAP_INTERLEAVE_16B);
SAME(TX_TMAP_INTERLEAVE_32B, CU_TENSOR_MAP_INTERLEAVE_32B);
SAME(TX_TMAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE);
SAME(TX_TMAP_SWIZZLE_32B, CU_TENSOR_MAP_SWIZZLE_32B);
SAME(TX_TMAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_64B);
SAME(TX_TMAP_SWIZZLE_128B, CU_TENSOR_MAP_SWIZZLE_128B);
SAME(TX_TMAP_L2_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE);
SAME(TX_TMAP_L2_64B, CU_TENSOR_MAP_L2_PROMOTION_L2_64B);
SAME(TX_TMAP_L2_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
SAME(TX_TMAP_L2_256B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
SAME(TX_TMAP_OOB_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
SAME(TX_TMAP_OOB_NAN_REQUEST_ZERO_FMA, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
SAME(TX_TENSORMAP_BYTES, sizeof(CUtensorMap));
SAME(sizeof(tx_cu_tensor_map), sizeof(CUtensorMap));
/* CUDA 12's cuda.h aligns CUtensorMap to 64 bytes (what the driver requires
 * of the address), CUDA 13's to 128: our host storage satisfies either. */
_Static_assert(alignof(CUtensorMap) % TX_TENSORMAP_ALIGN == 0, "the driver wants 64-byte maps");
_Static_assert(alignof(tx_cu_tensor_map) >= alignof(CUtensorMap), "tx_cu_tensor_map alignment");
SAME(sizeof(CUtensorMapDataType), sizeof(int)); /* the enums travel as ints */
SAME(sizeof(cuuint64_t), sizeof(unsigned long long));
SAME(sizeof(cuuint32_t), sizeof(unsigned int));

/* Scalar and handle types. */
SAME(sizeof(tx_cu_result), sizeof(CUresult));
SAME(sizeof(tx_cu_device), sizeof(CUdevice));
SAME(sizeof(tx_cu_deviceptr), sizeof(CUdeviceptr));
#define SAME_TYPE(a, b) _Static_assert(_Generic((a)0, b : 1, default : 0), #a " is not " #b)
SAME_TYPE(tx_cu_deviceptr, CUdeviceptr);
SAME_TYPE(tx_cu_context, CUcontext);
SAME_TYPE(tx_cu_module, CUmodule);
SAME_TYPE(tx_cu_function, CUfunction);
SAME_TYPE(tx_cu_stream, CUstream);
SAME_TYPE(tx_cu_event, CUevent);

/* Launch structures, field by field. */
#define SAME_FIELD(ours, theirs, field)                                                            \
  SAME(offsetof(ours, field), offsetof(theirs, field));                                            \
  SAME(sizeof(((ours *)0)->field), sizeof(((theirs *)0)->field))
SAME(sizeof(tx_cu_launch_attribute_value), sizeof(CUlaunchAttributeValue));
SAME(alignof(tx_cu_launch_attribute_value), alignof(CUlaunchAttributeValue));
SAME_FIELD(tx_cu_launch_attribute_value, CUlaunchAttributeValue, clusterDim);
SAME_FIELD(tx_cu_launch_attribute_value, CUlaunchAttributeValue, clusterDim.x);
SAME_FIELD(tx_cu_launch_attribute_value, CUlaunchAttributeValue, clusterDim.y);
SAME_FIELD(tx_cu_launch_attribute_value, CUlaunchAttributeValue, clusterDim.z);
SAME_FIELD(tx_cu_launch_attribute_value, CUlaunchAttributeValue, preferredClusterDim.x);
SAME_FIELD(tx_cu_launch_attribute_value, CUlaunchAttributeValue, preferredClusterDim.y);
SAME_FIELD(tx_cu_launch_attribute_value, CUlaunchAttributeValue, preferredClusterDim.z);
SAME(sizeof(tx_cu_launch_attribute), sizeof(CUlaunchAttribute));
SAME(alignof(tx_cu_launch_attribute), alignof(CUlaunchAttribute));
SAME_FIELD(tx_cu_launch_attribute, CUlaunchAttribute, id);
SAME_FIELD(tx_cu_launch_attribute, CUlaunchAttribute, value);
SAME(sizeof(tx_cu_launch_config), sizeof(CUlaunchConfig));
SAME(alignof(tx_cu_launch_config), alignof(CUlaunchConfig));
SAME_FIELD(tx_cu_launch_config, CUlaunchConfig, gridDimX);
SAME_FIELD(tx_cu_launch_config, CUlaunchConfig, gridDimY);
SAME_FIELD(tx_cu_launch_config, CUlaunchConfig, gridDimZ);
SAME_FIELD(tx_cu_launch_config, CUlaunchConfig, blockDimX);
SAME_FIELD(tx_cu_launch_config, CUlaunchConfig, blockDimY);
SAME_FIELD(tx_cu_launch_config, CUlaunchConfig, blockDimZ);
SAME_FIELD(tx_cu_launch_config, CUlaunchConfig, sharedMemBytes);
SAME_FIELD(tx_cu_launch_config, CUlaunchConfig, hStream);
SAME_FIELD(tx_cu_launch_config, CUlaunchConfig, attrs);
SAME_FIELD(tx_cu_launch_config, CUlaunchConfig, numAttrs);

/* Every symbol the runtime resolves is one cuda.h declares under that ABI
 * name (a typo or a wrong _vN suffix fails to compile here). Inside sizeof,
 * so nothing references libcuda at link time. */
#define DECLARED(member, sym, params)                                                              \
  _Static_assert(sizeof(&sym) == sizeof(void (*)(void)), #sym " is not declared by cuda.h");
TX_CU_FUNCTIONS(DECLARED)
TX_CU_OPTIONAL_FUNCTIONS(DECLARED)
#undef DECLARED

Test(cuda_abi, matches_cuda_h) {
  int n = 0;
#define COUNT(member, sym, params) n++;
  TX_CU_FUNCTIONS(COUNT)
  TX_CU_OPTIONAL_FUNCTIONS(COUNT)
#undef COUNT
  cr_log_info("%d entry points, constants and launch structs match cuda.h %d", n, CUDA_VERSION);
}
