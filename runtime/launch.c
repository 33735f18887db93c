/*
 * launch.c - kernel launches through cuLaunchKernelEx: clusters, preferred
 * clusters and large dynamic shared memory; and the tensor maps TMA
 * kernels take by value, encoded with cuTensorMapEncodeTiled.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "abi/tensormap_rules.h"
#include "runtime/rt_internal.h"

/* Dynamic shared memory a kernel may use without opting in. */
enum { DEFAULT_DYN_SMEM_LIMIT = 48 * 1024 };

static unsigned dim(uint32_t v) {
  return v ? v : 1;
}

/* Beyond 48 KiB the kernel must opt in with MAX_DYNAMIC_SHARED_SIZE_BYTES.
 * The attribute is per function and sticky, so it is raised only when a
 * launch needs more than was set before; the module lock orders concurrent
 * launches (the setting is not a per-launch parameter). */
static tirx_status opt_in_shared(tx_runtime *rt, tx_rt_function *f, uint32_t bytes,
                                 tx_rt_error *err) {
  tirx_status st = TIRX_OK;
  pthread_mutex_lock(&f->module->lock);
  if (bytes > f->dyn_smem_set) {
    st = tx_rt_check(rt,
                     rt->cu.FuncSetAttribute(
                         f->fn, TX_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes),
                     "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", err);
    if (st == TIRX_OK)
      f->dyn_smem_set = bytes;
    else if (err) {
      size_t n = strlen(err->message);
      snprintf(err->message + n, sizeof err->message - n,
               " for %u bytes of dynamic shared memory in '%s' (device opt-in limit %d)", bytes,
               f->name, rt->shared_optin);
    }
  }
  pthread_mutex_unlock(&f->module->lock);
  return st;
}

tirx_status tx_rt_launch_kernel(tx_runtime *rt, tx_rt_function *f, const tx_rt_launch *cfg,
                                void **args, tx_rt_error *err) {
  if (!f || !cfg)
    return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_launch_kernel: NULL function or config");
  tirx_status st = tx_rt_enter(rt, err);
  if (st) return st;
  if (cfg->dyn_shared_bytes > DEFAULT_DYN_SMEM_LIMIT &&
      (st = opt_in_shared(rt, f, cfg->dyn_shared_bytes, err)))
    return st;
  tx_cu_launch_attribute attrs[2];
  unsigned n = 0;
  memset(attrs, 0, sizeof attrs);
  int cluster = cfg->cluster[0] || cfg->cluster[1] || cfg->cluster[2];
  int preferred =
      cfg->preferred_cluster[0] || cfg->preferred_cluster[1] || cfg->preferred_cluster[2];
  if (cluster) {
    attrs[n].id = TX_CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[n].value.clusterDim.x = dim(cfg->cluster[0]);
    attrs[n].value.clusterDim.y = dim(cfg->cluster[1]);
    attrs[n].value.clusterDim.z = dim(cfg->cluster[2]);
    n++;
  }
  if (preferred) {
    attrs[n].id = TX_CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION;
    attrs[n].value.preferredClusterDim.x = dim(cfg->preferred_cluster[0]);
    attrs[n].value.preferredClusterDim.y = dim(cfg->preferred_cluster[1]);
    attrs[n].value.preferredClusterDim.z = dim(cfg->preferred_cluster[2]);
    n++;
  }
  tx_cu_launch_config lc = {
      .gridDimX = dim(cfg->grid[0]),
      .gridDimY = dim(cfg->grid[1]),
      .gridDimZ = dim(cfg->grid[2]),
      .blockDimX = dim(cfg->block[0]),
      .blockDimY = dim(cfg->block[1]),
      .blockDimZ = dim(cfg->block[2]),
      .sharedMemBytes = cfg->dyn_shared_bytes,
      .hStream = (tx_cu_stream)cfg->stream,
      .attrs = n ? attrs : NULL,
      .numAttrs = n,
  };
  st = tx_rt_check(rt, rt->cu.LaunchKernelEx(&lc, f->fn, args, NULL), "cuLaunchKernelEx", err);
  if (st && err) {
    size_t len = strlen(err->message);
    snprintf(err->message + len, sizeof err->message - len,
             " launching '%s' (grid %ux%ux%u, block %ux%ux%u, %u bytes dynamic shared memory%s)",
             f->name, lc.gridDimX, lc.gridDimY, lc.gridDimZ, lc.blockDimX, lc.blockDimY,
             lc.blockDimZ, lc.sharedMemBytes, cluster ? ", cluster" : "");
  }
  return st;
}

/* "(float16, rank 2, globalDim [64, 64], globalStrides [128], ...)" for messages. */
static void describe(const tx_tensormap_values *v, char *buf, size_t cap) {
  size_t k = 0;
#define PUT(...)                                                                                   \
  do {                                                                                             \
    if (k < cap) {                                                                                 \
      int n_ = snprintf(buf + k, cap - k, __VA_ARGS__);                                            \
      if (n_ > 0) k += (size_t)n_;                                                                 \
    }                                                                                              \
  } while (0)
  uint32_t r = v->rank <= TX_TENSORMAP_MAX_RANK ? v->rank : TX_TENSORMAP_MAX_RANK;
  PUT(" (tensorDataType %d, rank %u, globalAddress 0x%" PRIx64 ", globalDim [",
      tx_tensormap_driver_dtype(v), v->rank, v->addr);
  for (uint32_t i = 0; i < r; i++)
    PUT("%s%" PRId64, i ? ", " : "", v->dims[i]);
  PUT("], globalStrides [");
  for (uint32_t i = 0; i + 1 < r; i++)
    PUT("%s%" PRId64, i ? ", " : "", v->strides[i]);
  PUT("], boxDim [");
  for (uint32_t i = 0; i < r; i++)
    PUT("%s%" PRId64, i ? ", " : "", v->box[i]);
  PUT("], elementStrides [");
  for (uint32_t i = 0; i < r; i++)
    PUT("%s%" PRId64, i ? ", " : "", v->elem_strides[i]);
  PUT("], interleave %" PRId64 ", swizzle %" PRId64 ", l2Promotion %" PRId64 ", oobFill %" PRId64
      ")",
      v->interleave, v->swizzle, v->l2_promotion, v->oob_fill);
#undef PUT
}

tirx_status tx_rt_tensormap_encode(tx_runtime *rt, const tx_tensormap_values *v, void *map,
                                   tx_rt_error *err) {
  if (!v || !map)
    return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_tensormap_encode: NULL values or map");
  if (!rt->cu.TensorMapEncodeTiled)
    return tx_rt_fail(err, TIRX_ERR_IO,
                      "the CUDA driver lacks cuTensorMapEncodeTiled, which tensor maps (TMA) "
                      "need: a driver for CUDA 12.0 or newer is required");
  tirx_status st = tx_rt_enter(rt, err);
  if (st) return st;
  unsigned long long dims[TX_TENSORMAP_MAX_RANK] = {0}, strides[TX_TENSORMAP_MAX_RANK] = {0};
  unsigned int box[TX_TENSORMAP_MAX_RANK] = {0}, es[TX_TENSORMAP_MAX_RANK] = {0};
  uint32_t r = v->rank <= TX_TENSORMAP_MAX_RANK ? v->rank : TX_TENSORMAP_MAX_RANK;
  for (uint32_t i = 0; i < r; i++) {
    dims[i] = (unsigned long long)v->dims[i];
    box[i] = (unsigned int)v->box[i];
    es[i] = (unsigned int)v->elem_strides[i];
    if (i + 1 < r) strides[i] = (unsigned long long)v->strides[i];
  }
  st = tx_rt_check(rt,
                   rt->cu.TensorMapEncodeTiled(map, tx_tensormap_driver_dtype(v), v->rank,
                                               (void *)(uintptr_t)v->addr, dims, strides, box, es,
                                               (int)v->interleave, (int)v->swizzle,
                                               (int)v->l2_promotion, (int)v->oob_fill),
                   "cuTensorMapEncodeTiled", err);
  if (st && err) {
    size_t n = strlen(err->message);
    describe(v, err->message + n, sizeof err->message - n);
  }
  return st;
}
