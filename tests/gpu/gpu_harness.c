/*
 * gpu_harness.c - the small launcher API of the GPU tests, on top of the
 * runtime (runtime/runtime.h), so the tests load the CUDA driver the same
 * way the library does instead of keeping a second loader.
 *
 * Launches synchronize, so a fault is reported against the launch that
 * caused it.
 */
#include "gpu_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

struct gpu_harness {
  tx_runtime *rt;
  char err[2048];
  int last; /* the CUresult in the last error's "(code)", 0 when none */
};

/* Record a runtime error; its message ends in "NAME (code)" for CUDA
 * failures, which is where gpu_last_result's code comes from. */
static int failed(gpu_harness *g, tirx_status st, const tx_rt_error *e) {
  if (st == TIRX_OK) return GPU_OK;
  snprintf(g->err, sizeof g->err, "%s", e->message);
  const char *name = strstr(e->message, "CUDA_ERROR_");
  const char *open = name ? strstr(name, " (") : NULL;
  g->last = open ? atoi(open + 2) : -1;
  return GPU_FAIL;
}

int gpu_open(int ordinal, gpu_harness **out, char *why, size_t cap) {
  *out = NULL;
  gpu_harness *g = calloc(1, sizeof *g);
  if (!g) {
    snprintf(why, cap, "out of memory");
    return GPU_FAIL;
  }
  tx_rt_error e = {0};
  tirx_status st = tx_rt_open(ordinal, &g->rt, &e);
  if (st != TIRX_OK) {
    snprintf(why, cap, "%s", e.message);
    free(g);
    /* No driver or no device is a skip; a broken one is a failure. */
    return st == TIRX_ERR_IO ? GPU_SKIP : GPU_FAIL;
  }
  *out = g;
  return GPU_OK;
}

void gpu_close(gpu_harness *g) {
  if (!g) return;
  tx_rt_close(g->rt);
  free(g);
}

int gpu_cc_major(const gpu_harness *g) {
  return tx_rt_cc(g->rt) / 10;
}
int gpu_cc_minor(const gpu_harness *g) {
  return tx_rt_cc(g->rt) % 10;
}
const char *gpu_arch(const gpu_harness *g) {
  return tx_rt_arch(g->rt);
}
const char *gpu_device_name(const gpu_harness *g) {
  return tx_rt_device_name(g->rt);
}
int gpu_driver_version(const gpu_harness *g) {
  return tx_rt_driver_version(g->rt);
}
const char *gpu_error(const gpu_harness *g) {
  return g->err;
}
int gpu_last_result(const gpu_harness *g) {
  return g->last;
}

int gpu_load_module(gpu_harness *g, const void *image, gpu_module **out) {
  tx_rt_error e = {0};
  tx_rt_module *m = NULL;
  /* The size is not needed: PTX is NUL-terminated and a cubin is an ELF image. */
  int r = failed(g, tx_rt_module_load(g->rt, image, 0, &m, &e), &e);
  if (r == GPU_OK) *out = (gpu_module *)m;
  return r;
}

int gpu_get_function(gpu_harness *g, gpu_module *m, const char *name, gpu_function **out) {
  tx_rt_error e = {0};
  tx_rt_function *f = NULL;
  int r = failed(g, tx_rt_get_function(g->rt, (tx_rt_module *)m, name, &f, &e), &e);
  if (r == GPU_OK) *out = (gpu_function *)f;
  return r;
}

void gpu_unload_module(gpu_harness *g, gpu_module *m) {
  if (m) tx_rt_module_unload(g->rt, (tx_rt_module *)m);
}

int gpu_alloc(gpu_harness *g, size_t bytes, gpu_ptr *out) {
  tx_rt_error e = {0};
  void *p = NULL;
  int r = failed(g, tx_rt_alloc(g->rt, bytes, &p, &e), &e);
  if (r == GPU_OK) *out = (gpu_ptr)(uintptr_t)p;
  return r;
}

int gpu_free(gpu_harness *g, gpu_ptr p) {
  tx_rt_error e = {0};
  return failed(g, tx_rt_free(g->rt, (void *)(uintptr_t)p, &e), &e);
}

static int copy(gpu_harness *g, void *dst, const void *src, size_t bytes, tx_rt_copy_kind kind) {
  tx_rt_error e = {0};
  tirx_status st = tx_rt_copy(g->rt, dst, src, bytes, kind, NULL, &e);
  if (st == TIRX_OK) st = tx_rt_synchronize(g->rt, NULL, &e);
  return failed(g, st, &e);
}

int gpu_to_device(gpu_harness *g, gpu_ptr dst, const void *src, size_t bytes) {
  return copy(g, (void *)(uintptr_t)dst, src, bytes, TX_COPY_H2D);
}

int gpu_to_host(gpu_harness *g, void *dst, gpu_ptr src, size_t bytes) {
  return copy(g, dst, (const void *)(uintptr_t)src, bytes, TX_COPY_D2H);
}

int gpu_launch(gpu_harness *g, gpu_function *f, gpu_dim3 grid, gpu_dim3 block,
               unsigned dyn_shared_bytes, const gpu_dim3 *cluster, void **args) {
  if (cluster && cluster->x && tx_rt_cc(g->rt) < 90) {
    snprintf(g->err, sizeof g->err, "thread block clusters need sm_90 or newer");
    return GPU_SKIP;
  }
  tx_rt_launch cfg = {.grid = {grid.x, grid.y, grid.z},
                      .block = {block.x, block.y, block.z},
                      .dyn_shared_bytes = dyn_shared_bytes};
  if (cluster && cluster->x) {
    cfg.cluster[0] = cluster->x;
    cfg.cluster[1] = cluster->y ? cluster->y : 1;
    cfg.cluster[2] = cluster->z ? cluster->z : 1;
  }
  tx_rt_error e = {0};
  tirx_status st = tx_rt_launch_kernel(g->rt, (tx_rt_function *)f, &cfg, args, &e);
  if (st == TIRX_OK) st = tx_rt_synchronize(g->rt, NULL, &e);
  return failed(g, st, &e);
}
