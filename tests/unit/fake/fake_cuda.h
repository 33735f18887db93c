/*
 * fake_cuda.h - the control block of the fake CUDA driver (fake_cuda.c), a
 * shared library with libcuda's entry points that lets the runtime's CPU
 * tests drive tx_rt_open, module loads, the function cache and launch
 * configurations without a GPU. The test dlopens the same file and reads
 * this block through fake_cuda_state().
 */
#ifndef TIRX_TESTS_FAKE_CUDA_H
#define TIRX_TESTS_FAKE_CUDA_H

#include "runtime/cuda_driver.h"

typedef struct fake_cuda_state {
  /* set by the test */
  tx_cu_result init_result; /* what cuInit returns */
  int device_count;
  /* recorded by the fake */
  int retains, releases, set_current;
  int get_function_calls;
  int func_set_attribute_calls, last_smem_value;
  int launches;
  tx_cu_launch_config last_config;
  tx_cu_launch_attribute last_attrs[4];
  int modules_loaded, modules_unloaded;
  long live_allocations;
  /* cuTensorMapEncodeTiled (absent from the build with FAKE_CUDA_NO_TENSORMAP,
   * like a driver older than CUDA 12.0): its result is set by the test, the
   * last call's arguments are recorded. The map it writes holds
   * FAKE_TENSORMAP_MAGIC, the address, the rank and the dims, so a test can
   * tell which map reached which kernel parameter. */
  tx_cu_result encode_result;
  int encodes;
  struct {
    void *map;
    int dtype;
    unsigned rank;
    void *address;
    unsigned long long dims[5], strides[5];
    unsigned box[5], elem_strides[5];
    int interleave, swizzle, l2_promotion, oob_fill;
  } last_encode;
  /* cuLaunchKernelEx: the test names how many bytes of each of the first
   * parameters to copy (0: none), the fake copies them at the launch. */
  size_t capture_size[8];
  unsigned char captured[8][128];
  /* The first launches in order: the kernel's name and its x extents. */
  int nlaunch_log;
  struct {
    char kernel[64];
    unsigned grid_x, block_x;
  } launch_log[8];
} fake_cuda_state;

enum { FAKE_TENSORMAP_MAGIC = 0x7a70 };

typedef fake_cuda_state *(*fake_cuda_state_fn)(void);

#endif
