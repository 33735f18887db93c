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
} fake_cuda_state;

typedef fake_cuda_state *(*fake_cuda_state_fn)(void);

#endif
