/*
 * aot_gpu_test.c - the launchers `tirxc --emit=c-launcher` writes, used the
 * way a user would: linked into a plain C program that includes only the
 * generated headers (no tirx-c header or library), with device memory from
 * the driver API.
 *
 * Built and run by tests/aot/run_aot_test.sh, which generates scale.c,
 * scale_dyn.c, block_sum.c, cluster.c, tma_tile.c, unread_shape.c and
 * two_kernels_host_stmt.c (one function, two kernel launches) from
 * tests/golden/lowering first.
 *
 *   on a GPU:          every launcher runs; results are checked against CPU
 *                      references; argument errors, shutdown/relaunch and
 *                      concurrent first use from several threads.
 *   -DAOT_FAKE:        the same program against tests/unit/fake/fake_cuda.c
 *                      (TIRX_AOT_CUDA_LIBRARY names it): kernels do not run,
 *                      so launch configurations, module loads/unloads and
 *                      context references are checked instead (CPU CI).
 *
 * Exit status: 0 pass, 1 failure, 77 skipped (no driver or no device).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_sum.h"
#include "cluster.h"
#include "scale.h"
#include "scale_dyn.h"
#include "tma_tile.h"
#include "two_kernels_host_stmt.h"
#include "unread_shape.h"

#ifdef AOT_FAKE
#include "fake/fake_cuda.h"
#endif

#ifndef TIRX_AOT_CUDA_LIBRARY
#define TIRX_AOT_CUDA_LIBRARY "libcuda.so.1"
#endif

/* ---- the driver, for device memory ----------------------------------------- */

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;

static struct {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGet)(int *, int);
  CUresult (*PrimaryCtxRetain)(CUcontext *, int);
  CUresult (*PrimaryCtxRelease)(int);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*CtxSynchronize)(void);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*HtoD)(CUdeviceptr, const void *, size_t, void *);
  CUresult (*DtoH)(void *, CUdeviceptr, size_t, void *);
} cu;
static void *cu_lib;

static int failures;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
    }                                                                                              \
  } while (0)

static int load_driver(void) {
  cu_lib = dlopen(TIRX_AOT_CUDA_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (!cu_lib) {
    printf("skip: no CUDA driver (%s)\n", dlerror());
    return 0;
  }
  struct {
    const char *name;
    void *slot;
  } syms[] = {
      {"cuInit", &cu.Init},
      {"cuDeviceGet", &cu.DeviceGet},
      {"cuDevicePrimaryCtxRetain", &cu.PrimaryCtxRetain},
      {"cuDevicePrimaryCtxRelease_v2", &cu.PrimaryCtxRelease},
      {"cuCtxSetCurrent", &cu.CtxSetCurrent},
      {"cuCtxSynchronize", &cu.CtxSynchronize},
      {"cuMemAlloc_v2", &cu.MemAlloc},
      {"cuMemFree_v2", &cu.MemFree},
      {"cuMemcpyHtoDAsync_v2", &cu.HtoD},
      {"cuMemcpyDtoHAsync_v2", &cu.DtoH},
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    void *p = dlsym(cu_lib, syms[i].name);
    if (!p) {
      printf("skip: the driver lacks %s\n", syms[i].name);
      return 0;
    }
    memcpy(syms[i].slot, &p, sizeof p);
  }
  int dev = 0;
  CUcontext ctx = NULL;
  if (cu.Init(0) != 0 || cu.DeviceGet(&dev, 0) != 0) {
    printf("skip: no CUDA device\n");
    return 0;
  }
  /* The launchers use the primary context: allocate in the same one. */
  if (cu.PrimaryCtxRetain(&ctx, dev) != 0 || cu.CtxSetCurrent(ctx) != 0) {
    printf("skip: cannot retain the primary context\n");
    return 0;
  }
  return 1;
}

static CUdeviceptr dalloc(size_t bytes) {
  CUdeviceptr p = 0;
  if (cu.MemAlloc(&p, bytes) != 0) {
    fprintf(stderr, "cuMemAlloc(%zu) failed\n", bytes);
    exit(1);
  }
  return p;
}

static void h2d(CUdeviceptr dst, const void *src, size_t bytes) {
  if (cu.HtoD(dst, src, bytes, NULL) != 0 || cu.CtxSynchronize() != 0) exit(1);
}

#ifndef AOT_FAKE /* the fake runs no kernels: nothing to read back */
static void d2h(void *dst, CUdeviceptr src, size_t bytes) {
  if (cu.CtxSynchronize() != 0 || cu.DtoH(dst, src, bytes, NULL) != 0 || cu.CtxSynchronize() != 0)
    exit(1);
}
#endif

static DLTensor tensor(CUdeviceptr data, int64_t *shape, int ndim, uint8_t code, uint8_t bits) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = (void *)(uintptr_t)data;
  t.device.device_type = kDLCUDA;
  t.device.device_id = 0;
  t.ndim = ndim;
  t.dtype.code = code;
  t.dtype.bits = bits;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}

#ifdef AOT_FAKE
static fake_cuda_state *fake(void) {
  void *sym = dlsym(cu_lib, "fake_cuda_state_get");
  fake_cuda_state_fn fn;
  if (!sym) {
    fprintf(stderr, "not the fake driver\n");
    exit(1);
  }
  memcpy(&fn, &sym, sizeof fn);
  return fn();
}
#endif

/* ---- the cases -------------------------------------------------------------- */

static void test_scale(void) {
  enum { N = 256 };
  float ha[N], hb[N];
  for (int i = 0; i < N; i++)
    ha[i] = (float)i * 0.5f - 17.0f;
  CUdeviceptr a = dalloc(sizeof ha), b = dalloc(sizeof hb);
  h2d(a, ha, sizeof ha);
  int64_t shape[1] = {N};
  DLTensor A = tensor(a, shape, 1, kDLFloat, 32), B = tensor(b, shape, 1, kDLFloat, 32);
  char err[256] = "";
  int rc = scale(&A, &B, NULL, err, sizeof err);
  CHECK(rc == TIRX_AOT_OK, "rc %d: %s", rc, err);
#ifdef AOT_FAKE
  fake_cuda_state *s = fake();
  CHECK(s->last_config.gridDimX == 1 && s->last_config.blockDimX == 256 &&
            s->last_config.sharedMemBytes == 0 && s->last_config.numAttrs == 0,
        "grid %u block %u smem %u attrs %u", s->last_config.gridDimX, s->last_config.blockDimX,
        s->last_config.sharedMemBytes, s->last_config.numAttrs);
#else
  d2h(hb, b, sizeof hb);
  for (int i = 0; i < N; i++)
    CHECK(hb[i] == ha[i] * 2.0f, "B[%d] = %g, expected %g", i, hb[i], ha[i] * 2.0f);
#endif
  cu.MemFree(a);
  cu.MemFree(b);
}

/* Argument checks: the runtime's messages, with what was seen. */
static void expect_error(int rc, const char *err, const char *want) {
  CHECK(rc == TIRX_AOT_ERR_ARGUMENT, "rc %d (%s)", rc, err);
  CHECK(strcmp(err, want) == 0, "message\n  '%s'\nexpected\n  '%s'", err, want);
}

static void test_scale_errors(void) {
  CUdeviceptr a = dalloc(1024), b = dalloc(1024);
  int64_t shape[1] = {256}, small[1] = {128}, strides[1] = {2};
  DLTensor A = tensor(a, shape, 1, kDLFloat, 32), B = tensor(b, shape, 1, kDLFloat, 32);
  char err[256];
  DLTensor bad = tensor(a, small, 1, kDLFloat, 32);
  expect_error(scale(&bad, &B, NULL, err, sizeof err), err,
               "scale: argument 'A': expected shape[0] == 256, got 128");
  bad = tensor(a, shape, 1, kDLInt, 32);
  expect_error(scale(&A, &bad, NULL, err, sizeof err), err,
               "scale: argument 'B': expected dtype float32, got int32");
  bad = tensor(a, shape, 1, kDLBfloat, 16);
  expect_error(scale(&bad, &B, NULL, err, sizeof err), err,
               "scale: argument 'A': expected dtype float32, got bfloat16");
  expect_error(scale(NULL, &B, NULL, err, sizeof err), err,
               "scale: argument 'A': expected a tensor, got NULL");
  bad = A;
  bad.device.device_type = kDLCPU;
  expect_error(scale(&bad, &B, NULL, err, sizeof err), err,
               "scale: argument 'A': expected a CUDA tensor (device type 2), got 1");
  bad = B;
  bad.device.device_id = 3;
  expect_error(scale(&A, &bad, NULL, err, sizeof err), err,
               "scale: argument 'B': expected the same device as argument 'A', got 3");
  bad = A;
  bad.strides = strides;
  expect_error(scale(&bad, &B, NULL, err, sizeof err), err,
               "scale: argument 'A': expected compact row-major strides");
  bad = A;
  bad.byte_offset = 4;
  expect_error(scale(&bad, &B, NULL, err, sizeof err), err,
               "scale: argument 'A': expected byte_offset == 0, got 4");
  bad = tensor(a, shape, 2, kDLFloat, 32);
  expect_error(scale(&bad, &B, NULL, err, sizeof err), err,
               "scale: argument 'A': expected 1 dimension, got 2");
  /* No room for a message, or a tiny one: still the status, never an overflow. */
  CHECK(scale(NULL, &B, NULL, NULL, 0) == TIRX_AOT_ERR_ARGUMENT, "NULL err");
  char tiny[8];
  CHECK(scale(NULL, &B, NULL, tiny, sizeof tiny) == TIRX_AOT_ERR_ARGUMENT && strlen(tiny) == 7,
        "tiny '%s'", tiny);
  /* Compact strides given explicitly are fine. */
  int64_t unit[1] = {1};
  DLTensor ok = A;
  ok.strides = unit;
  int rc = scale(&ok, &B, NULL, err, sizeof err);
  CHECK(rc == TIRX_AOT_OK, "explicit unit stride: %d %s", rc, err);
  cu.MemFree(a);
  cu.MemFree(b);
}

static void test_scale_dyn(void) {
  enum { N = 1000 };
  static float ha[N], hb[N];
  for (int i = 0; i < N; i++)
    ha[i] = (float)(i % 37) - 5.5f;
  CUdeviceptr a = dalloc(sizeof ha), b = dalloc(sizeof hb);
  h2d(a, ha, sizeof ha);
  int64_t shape[1] = {N}, other[1] = {N - 1};
  DLTensor A = tensor(a, shape, 1, kDLFloat, 32), B = tensor(b, shape, 1, kDLFloat, 32);
  char err[256] = "";
  int rc = scale_dyn(&A, &B, NULL, err, sizeof err);
  CHECK(rc == TIRX_AOT_OK, "rc %d: %s", rc, err);
#ifndef AOT_FAKE
  d2h(hb, b, sizeof hb);
  for (int i = 0; i < N; i++)
    CHECK(hb[i] == ha[i] * 2.0f, "B[%d] = %g, expected %g", i, hb[i], ha[i] * 2.0f);
#endif
  DLTensor B2 = tensor(b, other, 1, kDLFloat, 32);
  expect_error(scale_dyn(&A, &B2, NULL, err, sizeof err), err,
               "scale_dyn: argument 'B': expected shape[0] == n, got 999");
  /* n does not fit the kernel's int32. */
  int64_t huge[1] = {INT64_C(1) << 33};
  DLTensor H = tensor(a, huge, 1, kDLFloat, 32);
  expect_error(scale_dyn(&H, &H, NULL, err, sizeof err), err,
               "scale_dyn: 'n' = 8589934592 does not fit in int32");
  cu.MemFree(a);
  cu.MemFree(b);
}

/* unread_shape: the kernel reads A only at A[tx % 4]; m, which only A's
 * declared shape mentions, is still a kernel parameter (after both data
 * pointers), and the launcher passes the m it binds from A's shape. */
static void test_unread_shape(void) {
  enum { M = 7, N = 32 };
  float ha[M], hb[N];
  for (int i = 0; i < M; i++)
    ha[i] = (float)i * 1.25f - 3.0f;
  CUdeviceptr a = dalloc(sizeof ha), b = dalloc(sizeof hb);
  h2d(a, ha, sizeof ha);
  int64_t sa[1] = {M}, sb[1] = {N};
  DLTensor A = tensor(a, sa, 1, kDLFloat, 32), B = tensor(b, sb, 1, kDLFloat, 32);
  char err[256] = "";
#ifdef AOT_FAKE
  fake_cuda_state *s = fake();
  s->capture_size[2] = sizeof(int32_t);
  memset(s->captured[2], 0, sizeof s->captured[2]);
#endif
  int rc = unread_shape(&A, &B, NULL, err, sizeof err);
  CHECK(rc == TIRX_AOT_OK, "rc %d: %s", rc, err);
#ifdef AOT_FAKE
  int32_t m = 0;
  memcpy(&m, s->captured[2], sizeof m);
  s->capture_size[2] = 0;
  CHECK(m == M, "kernel parameter m = %d, expected %d", m, M);
#else
  d2h(hb, b, sizeof hb);
  for (int i = 0; i < N; i++)
    CHECK(hb[i] == ha[i % 4] * 2.0f, "B[%d] = %g, expected %g", i, hb[i], ha[i % 4] * 2.0f);
#endif
  cu.MemFree(a);
  cu.MemFree(b);
}

/* two_kernels_host_stmt: one call of two_stage launches two_stage_kernel
 * (B = A * s, grid n // 128) and then two_stage_kernel_1 (C += m with the
 * m = n // 2 bound between the launches, grid 2, block 32), in that order. */
static void test_two_kernels(void) {
  enum { N = 256, NC = 64 };
  float ha[N], hb[N], hc[NC], hc0[NC];
  for (int i = 0; i < N; i++)
    ha[i] = (float)i * 0.25f - 9.0f;
  for (int i = 0; i < NC; i++)
    hc0[i] = (float)i;
  CUdeviceptr a = dalloc(sizeof ha), b = dalloc(sizeof hb), c = dalloc(sizeof hc);
  h2d(a, ha, sizeof ha);
  h2d(c, hc0, sizeof hc0);
  int64_t shape[1] = {N}, cshape[1] = {NC};
  DLTensor A = tensor(a, shape, 1, kDLFloat, 32), B = tensor(b, shape, 1, kDLFloat, 32);
  DLTensor C = tensor(c, cshape, 1, kDLFloat, 32);
  char err[256] = "";
#ifdef AOT_FAKE
  fake_cuda_state *s = fake();
  int before = s->launches;
  s->capture_size[1] = sizeof(int32_t);
  memset(s->captured[1], 0, sizeof s->captured[1]);
#endif
  int rc = two_stage(&A, &B, &C, 3.0f, NULL, err, sizeof err);
  CHECK(rc == TIRX_AOT_OK, "rc %d: %s", rc, err);
#ifdef AOT_FAKE
  int32_t m = 0;
  memcpy(&m, s->captured[1], sizeof m);
  s->capture_size[1] = 0;
  CHECK(s->launches == before + 2, "%d launches, expected 2", s->launches - before);
  /* The last launch is the second kernel's: its grid, block and m. */
  CHECK(s->last_config.gridDimX == 2 && s->last_config.blockDimX == 32 &&
            s->last_config.sharedMemBytes == 0,
        "grid %u block %u smem %u", s->last_config.gridDimX, s->last_config.blockDimX,
        s->last_config.sharedMemBytes);
  CHECK(m == N / 2, "kernel parameter m = %d, expected %d", m, N / 2);
#else
  d2h(hb, b, sizeof hb);
  d2h(hc, c, sizeof hc);
  for (int i = 0; i < N; i++)
    CHECK(hb[i] == ha[i] * 3.0f, "B[%d] = %g, expected %g", i, hb[i], ha[i] * 3.0f);
  for (int i = 0; i < NC; i++)
    CHECK(hc[i] == hc0[i] + (float)(N / 2), "C[%d] = %g, expected %g", i, hc[i],
          hc0[i] + (float)(N / 2));
#endif
  cu.MemFree(a);
  cu.MemFree(b);
  cu.MemFree(c);
}

static void test_block_sum(void) {
  enum { N = 256 };
  float ha[N], out = 0.0f;
  double ref = 0.0;
  for (int i = 0; i < N; i++) {
    ha[i] = (float)(i % 7) - 3.0f + 0.25f;
    ref += ha[i];
  }
  CUdeviceptr a = dalloc(sizeof ha), o = dalloc(sizeof out);
  h2d(a, ha, sizeof ha);
  int64_t shape[1] = {N}, one[1] = {1};
  DLTensor A = tensor(a, shape, 1, kDLFloat, 32), O = tensor(o, one, 1, kDLFloat, 32);
  char err[256] = "";
  int rc = block_sum(&A, &O, NULL, err, sizeof err);
  CHECK(rc == TIRX_AOT_OK, "rc %d: %s", rc, err);
#ifndef AOT_FAKE
  d2h(&out, o, sizeof out);
  CHECK(fabs(out - ref) < 1e-3, "sum %g, expected %g", out, ref);
#endif
  /* The message names the handle parameter, as the runtime's does. */
  expect_error(block_sum(&O, &O, NULL, err, sizeof err), err,
               "block_sum: argument 'A_ptr': expected shape[0] == 256, got 1");
  cu.MemFree(a);
  cu.MemFree(o);
}

static void test_cluster(void) {
  enum { N = 16 };
  int32_t ho[N];
  memset(ho, 0xff, sizeof ho);
  CUdeviceptr o = dalloc(sizeof ho);
  h2d(o, ho, sizeof ho);
  int64_t shape[1] = {N};
  DLTensor O = tensor(o, shape, 1, kDLInt, 32);
  char err[512] = "";
  int rc = cluster(&O, NULL, err, sizeof err);
  CHECK(rc == TIRX_AOT_OK, "rc %d: %s", rc, err);
#ifdef AOT_FAKE
  fake_cuda_state *s = fake();
  CHECK(s->last_config.gridDimX == 8 && s->last_config.blockDimX == 32 &&
            s->last_config.numAttrs == 1 && s->last_attrs[0].id == 4 &&
            s->last_attrs[0].value.clusterDim.x == 2 && s->last_attrs[0].value.clusterDim.y == 1 &&
            s->last_attrs[0].value.clusterDim.z == 1,
        "grid %u block %u attrs %u", s->last_config.gridDimX, s->last_config.blockDimX,
        s->last_config.numAttrs);
#else
  d2h(ho, o, sizeof ho);
  /* 8 CTAs in clusters of 2: CTA (c, r) writes O[4c + 2r] = r, O[4c + 2r + 1] = c. */
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 2; r++) {
      CHECK(ho[c * 4 + r * 2] == r, "O[%d] = %d, expected %d", c * 4 + r * 2, ho[c * 4 + r * 2], r);
      CHECK(ho[c * 4 + r * 2 + 1] == c, "O[%d] = %d, expected %d", c * 4 + r * 2 + 1,
            ho[c * 4 + r * 2 + 1], c);
    }
#endif
  cu.MemFree(o);
}

/* TMA through tensor maps the launcher encodes (runtime.cuTensorMapEncodeTiled
 * in the host part): C = A * s + 1 tile by tile, F[b] = 1 per CTA. */
static void test_tma_tile(void) {
  enum { ROWS = 64, COLS = 128, N = ROWS * COLS };
  static float ha[N], hc[N];
  uint32_t hf[16];
  for (int i = 0; i < N; i++)
    ha[i] = (float)(i % 977) * 0.25f - 100.0f;
  memset(hc, 0, sizeof hc);
  memset(hf, 0, sizeof hf);
  CUdeviceptr a = dalloc(sizeof ha), c = dalloc(sizeof hc), f = dalloc(sizeof hf);
  h2d(a, ha, sizeof ha);
  h2d(c, hc, sizeof hc);
  h2d(f, hf, sizeof hf);
  int64_t shape[2] = {ROWS, COLS}, fshape[1] = {16};
  DLTensor A = tensor(a, shape, 2, kDLFloat, 32), C = tensor(c, shape, 2, kDLFloat, 32);
  DLTensor F = tensor(f, fshape, 1, kDLUInt, 32);
  char err[512] = "";
#ifdef AOT_FAKE
  fake_cuda_state *s = fake();
  int encodes = s->encodes;
  s->capture_size[0] = s->capture_size[1] = 128; /* the two maps, by value */
#endif
  int rc = tma_tile(&A, &C, &F, 2.0f, NULL, err, sizeof err);
  CHECK(rc == TIRX_AOT_OK, "rc %d: %s", rc, err);
#ifdef AOT_FAKE
  CHECK(s->encodes == encodes + 2, "%d encodes", s->encodes - encodes);
  /* The last one is C_map's: float32 (7), rank 2, dims (128, 64), stride 512
   * bytes, box (32, 16), unit element strides, no interleave or swizzle,
   * L2 promotion 128B (2), no NaN fill. */
  CHECK(s->last_encode.dtype == 7 && s->last_encode.rank == 2 &&
            s->last_encode.address == (void *)(uintptr_t)c && s->last_encode.dims[0] == 128 &&
            s->last_encode.dims[1] == 64 && s->last_encode.strides[0] == 512 &&
            s->last_encode.box[0] == 32 && s->last_encode.box[1] == 16 &&
            s->last_encode.elem_strides[0] == 1 && s->last_encode.elem_strides[1] == 1 &&
            s->last_encode.interleave == 0 && s->last_encode.swizzle == 0 &&
            s->last_encode.l2_promotion == 2 && s->last_encode.oob_fill == 0 &&
            (uintptr_t)s->last_encode.map % 64 == 0,
        "encode(dtype %d, rank %u, dims %llu x %llu, stride %llu, box %u x %u, l2 %d)",
        s->last_encode.dtype, s->last_encode.rank, s->last_encode.dims[0], s->last_encode.dims[1],
        s->last_encode.strides[0], s->last_encode.box[0], s->last_encode.box[1],
        s->last_encode.l2_promotion);
  /* Kernel parameters in TVM's order (A_map, C_map, F, s: handles first, by
   * name): each map arrived by value. */
  unsigned long long m0[16], m1[16];
  memcpy(m0, s->captured[0], sizeof m0);
  memcpy(m1, s->captured[1], sizeof m1);
  CHECK(m0[0] == FAKE_TENSORMAP_MAGIC && m0[1] == a && m0[3] == 128 && m0[4] == 64,
        "parameter 0 is not A's map (%llx %llx)", m0[0], m0[1]);
  CHECK(m1[0] == FAKE_TENSORMAP_MAGIC && m1[1] == c, "parameter 1 is not C's map (%llx %llx)",
        m1[0], m1[1]);
  CHECK(s->last_config.gridDimX == 16 && s->last_config.blockDimX == 128, "grid %u block %u",
        s->last_config.gridDimX, s->last_config.blockDimX);
  s->capture_size[0] = s->capture_size[1] = 0;
  /* The driver's refusal names the map. */
  s->encode_result = 1;
  rc = tma_tile(&A, &C, &F, 2.0f, NULL, err, sizeof err);
  s->encode_result = 0;
  CHECK(rc == TIRX_AOT_ERR_ARGUMENT &&
            strcmp(err, "tma_tile: encoding tensor map 'A_map': cuTensorMapEncodeTiled failed: "
                        "CUDA_ERROR_INVALID_VALUE (1)") == 0,
        "rc %d: %s", rc, err);
#else
  d2h(hc, c, sizeof hc);
  d2h(hf, f, sizeof hf);
  for (int b = 0; b < 16; b++)
    CHECK(hf[b] == 1, "CTA %d did not finish (F = %u)", b, hf[b]);
  for (int i = 0; i < N; i++)
    if (hc[i] != ha[i] * 2.0f + 1.0f) {
      CHECK(0, "C[%d][%d] = %g, expected %g", i / COLS, i % COLS, hc[i], ha[i] * 2.0f + 1.0f);
      break;
    }
#endif
  /* TVM's host checks run before the driver: a tensor 4 bytes off 16-byte
   * alignment cannot be a TMA source. */
  DLTensor Am = A;
  Am.data = (void *)(uintptr_t)(a + 4);
  rc = tma_tile(&Am, &C, &F, 2.0f, NULL, err, sizeof err);
  char want[160];
  snprintf(want, sizeof want,
           "tma_tile: runtime.cuTensorMapEncodeTiled for 'A_map': globalAddress = 0x%llx must be "
           "16-byte aligned",
           (unsigned long long)(a + 4));
  expect_error(rc, err, want);
  cu.MemFree(a);
  cu.MemFree(c);
  cu.MemFree(f);
}

/* First use from several threads at once, right after a shutdown: one module
 * load, every launch succeeds. */
typedef struct worker {
  DLTensor *A, *B;
  int failures;
} worker;

static void *work(void *arg) {
  worker *w = arg;
  char err[256];
  for (int i = 0; i < 50; i++)
    if (scale(w->A, w->B, NULL, err, sizeof err) != TIRX_AOT_OK) w->failures++;
  return NULL;
}

static void test_threads(void) {
  CUdeviceptr a = dalloc(1024), b = dalloc(1024);
  int64_t shape[1] = {256};
  DLTensor A = tensor(a, shape, 1, kDLFloat, 32), B = tensor(b, shape, 1, kDLFloat, 32);
  scale_shutdown();
#ifdef AOT_FAKE
  int loaded = fake()->modules_loaded;
#endif
  enum { T = 4 };
  pthread_t th[T];
  worker w[T];
  for (int i = 0; i < T; i++) {
    w[i] = (worker){&A, &B, 0};
    CHECK(pthread_create(&th[i], NULL, work, &w[i]) == 0, "pthread_create");
  }
  for (int i = 0; i < T; i++) {
    pthread_join(th[i], NULL);
    CHECK(w[i].failures == 0, "thread %d: %d failed launches", i, w[i].failures);
  }
#ifdef AOT_FAKE
  CHECK(fake()->modules_loaded == loaded + 1, "%d module loads", fake()->modules_loaded - loaded);
#endif
  cu.CtxSynchronize();
  cu.MemFree(a);
  cu.MemFree(b);
}

static void test_init_shutdown(void) {
  char err[512] = "";
  int rc = scale_init(err, sizeof err);
  CHECK(rc == TIRX_AOT_OK, "scale_init: %d %s", rc, err);
  CHECK(scale_init(err, sizeof err) == TIRX_AOT_OK, "scale_init twice");
#ifdef AOT_FAKE
  fake_cuda_state *s = fake();
  int loaded = s->modules_loaded, unloaded = s->modules_unloaded;
  int releases = s->releases;
  scale_shutdown();
  CHECK(s->modules_unloaded == unloaded + 1 && s->releases == releases + 1,
        "shutdown: %d unloads, %d releases", s->modules_unloaded - unloaded,
        s->releases - releases);
  scale_shutdown(); /* nothing left: no-op */
  CHECK(s->modules_unloaded == unloaded + 1, "second shutdown unloaded again");
  CHECK(scale_init(err, sizeof err) == TIRX_AOT_OK && s->modules_loaded == loaded + 1,
        "init after shutdown reloads");
#else
  scale_shutdown();
  scale_shutdown();
  CHECK(scale_init(err, sizeof err) == TIRX_AOT_OK, "init after shutdown: %s", err);
#endif
}

int main(void) {
  if (!load_driver()) return 77;
  test_init_shutdown();
  test_scale();
  test_scale_errors();
  test_scale_dyn();
  test_unread_shape();
  test_two_kernels();
  test_block_sum();
  test_cluster();
  test_tma_tile();
  test_threads();
  scale_shutdown();
  scale_dyn_shutdown();
  block_sum_shutdown();
  cluster_shutdown();
  tma_tile_shutdown();
  unread_shape_shutdown();
  two_kernels_host_stmt_shutdown();
#ifdef AOT_FAKE
  fake_cuda_state *s = fake();
  /* Every module loaded was unloaded; every context reference the
   * launchers took was released (the test holds one of its own). */
  CHECK(s->modules_loaded == s->modules_unloaded, "%d loads, %d unloads", s->modules_loaded,
        s->modules_unloaded);
  CHECK(s->retains == s->releases + 1, "%d retains, %d releases", s->retains, s->releases);
  CHECK(s->live_allocations == 0, "%ld allocations leaked", s->live_allocations);
#endif
  if (failures) {
    fprintf(stderr, "aot_gpu_test: %d check(s) failed\n", failures);
    return 1;
  }
  printf("aot_gpu_test: all checks passed (%s)\n", TIRX_AOT_CUDA_LIBRARY);
  return 0;
}
