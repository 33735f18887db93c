/*
 * test_api_gpu.c - the public API (<tirx/tirx.h> only) on a GPU: every doc
 * kernel of tests/golden/lowering through tirx_compile / tirx_runtime_load /
 * tirx_function_call against CPU references (tma_tile: tensor maps the
 * runtime encodes from the host part, sm_90+; tma_multicast: a cluster
 * launch from the compiled cluster shape, sm_90+; two_kernels: one call, two
 * launches in order, which needs the runtime to run several), one function
 * called from two threads on their own streams, a save/load round trip and
 * argument-check errors on the real launch path.
 *
 *   test_api_gpu [--driver LIB] [DIR]     run on GPU 0 (77 = no GPU)
 *   test_api_gpu --compile-only [DIR]     tirx_compile every kernel (NVRTC, no GPU)
 *
 * DIR holds the golden kernels (default TIRX_SOURCE_DIR/tests/golden/lowering).
 * --driver names the libcuda to open (tirx_runtime_open_with), e.g. the fake
 * driver of the unit tests, which checks arguments but runs no kernel.
 * Each case runs in a forked child under a timeout (child_runner.h); output
 * is PASS/FAIL/SKIP lines and "N passed, M failed, K skipped".
 */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child_runner.h"
#include "tirx/tirx.h"

#ifndef TIRX_SOURCE_DIR
#define TIRX_SOURCE_DIR "."
#endif

static const char *g_dir = TIRX_SOURCE_DIR "/tests/golden/lowering";
static const char *g_driver = NULL;
enum { CASE_TIMEOUT_S = 120 };

/* ---- helpers ------------------------------------------------------------------- */

static uint32_t lcg(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}
/* Multiples of 1/8 in [-125, 125]: sums and small products stay exact. */
static void fill_floats(float *a, int n, uint32_t seed) {
  for (int i = 0; i < n; i++)
    a[i] = (float)((int)(lcg(&seed) % 2001) - 1000) / 8.0f;
}
static uint32_t f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
/* IEEE binary16, round to nearest even; no NaN inputs. */
static uint16_t f32_to_f16(float f) {
  uint32_t x = f2u(f), sign = (x >> 16) & 0x8000u, man = x & 0x7fffffu;
  int exp = (int)((x >> 23) & 0xff);
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00u);
  int ex = exp - 127 + 15;
  if (ex <= 0) {
    if (ex < -10) return (uint16_t)sign;
    man |= 0x800000u;
    unsigned shift = (unsigned)(14 - ex);
    uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)ex << 10) | (man >> 13), rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;
  if (h >= 0x7c00u) return (uint16_t)(sign | 0x7c00u);
  return (uint16_t)(sign | h);
}
static float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, ex = (h >> 10) & 0x1f, m = h & 0x3ffu;
  float mag;
  if (ex == 0)
    mag = ldexpf((float)m, -24);
  else if (ex == 31)
    mag = m ? NAN : INFINITY;
  else
    mag = ldexpf((float)(m | 0x400u), (int)ex - 25);
  return u2f(f2u(mag) | sign);
}
static uint16_t f32_to_bf16(float f) {
  uint32_t x = f2u(f);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

static char *read_text(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  char *buf = NULL;
  size_t cap = 0, n = 0;
  for (;;) {
    if (n + 4096 + 1 > cap) {
      cap = cap ? cap * 2 : 8192;
      char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(fp);
        return NULL;
      }
      buf = nb;
    }
    size_t k = fread(buf + n, 1, 4096, fp);
    n += k;
    if (k < 4096) break;
  }
  fclose(fp);
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* ---- one case's environment ------------------------------------------------------ */

enum { MAX_OWNED = 32, MAX_VIEWS = 8 };

typedef struct env {
  tirx_runtime *rt;
  const tirx_executable *exe;
  const tirx_function *fn;
  const char *func;
  DLManagedTensorVersioned *owned[MAX_OWNED];
  int nowned;
  DLTensor views[MAX_VIEWS];
  int64_t vshape[MAX_VIEWS][2], vstride[MAX_VIEWS][2];
  int nviews;
  char *msg;
  size_t cap;
} env;

__attribute__((format(printf, 2, 3))) static int fail(env *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, e->cap, fmt, ap);
  va_end(ap);
  return CHILD_FAIL;
}

static void env_release(env *e) {
  for (int i = 0; i < e->nowned; i++)
    tirx_dlpack_release(e->owned[i]);
  e->nowned = 0;
}

/* A device tensor of `shape`, filled from host (or with 0xff bytes, so an
 * element the kernel fails to write shows up). NULL on failure (msg set). */
static DLTensor *new_tensor(env *e, const int64_t *shape, int32_t ndim, DLDataType dt,
                            const void *host) {
  tirx_error err = {0};
  DLManagedTensorVersioned *m = NULL;
  if (e->nowned >= MAX_OWNED) {
    fail(e, "too many tensors");
    return NULL;
  }
  size_t nb = 0;
  if (tirx_tensor_alloc(e->rt, shape, ndim, dt, &m, &err) != TIRX_OK ||
      tirx_tensor_nbytes(&m->dl_tensor, &nb, &err) != TIRX_OK) {
    if (m) tirx_dlpack_release(m);
    fail(e, "alloc: %s", err.message);
    return NULL;
  }
  e->owned[e->nowned++] = m;
  void *tmp = NULL;
  if (!host) {
    tmp = malloc(nb ? nb : 1);
    if (!tmp) {
      fail(e, "out of memory");
      return NULL;
    }
    memset(tmp, 0xff, nb);
    host = tmp;
  }
  tirx_status st =
      tirx_copy(e->rt, m->dl_tensor.data, host, nb, TIRX_COPY_HOST_TO_DEVICE, NULL, &err);
  free(tmp);
  if (st != TIRX_OK) {
    fail(e, "copy to device: %s", err.message);
    return NULL;
  }
  return &m->dl_tensor;
}

/* The tensor parameter i wants, sized by tirx_executable_param (symbolic dims
 * take n). */
static DLTensor *param_tensor(env *e, size_t i, int64_t n, const void *host) {
  tirx_param_info pi;
  if (tirx_executable_param(e->exe, e->func, i, &pi) != TIRX_OK) {
    fail(e, "%s: no parameter %zu", e->func, i);
    return NULL;
  }
  if (pi.kind != TIRX_ARG_TENSOR) {
    fail(e, "%s: parameter '%s' is not a tensor (kind %d)", e->func, pi.name, pi.kind);
    return NULL;
  }
  int64_t shape[8];
  for (int32_t d = 0; d < pi.ndim; d++)
    shape[d] = pi.shape[d] < 0 ? n : pi.shape[d];
  return new_tensor(e, shape, pi.ndim, pi.dtype, host);
}

static int expect_params(env *e, size_t n) {
  size_t got = tirx_executable_param_count(e->exe, e->func);
  if (got != n) return fail(e, "%s: %zu parameters, want %zu", e->func, got, n);
  return CHILD_PASS;
}

static int call_sync(env *e, const tirx_arg *args, size_t n) {
  tirx_error err = {0};
  if (tirx_function_call(e->fn, args, n, NULL, &err) != TIRX_OK)
    return fail(e, "call: %s", err.message);
  if (tirx_runtime_synchronize(e->rt, NULL, &err) != TIRX_OK)
    return fail(e, "synchronize: %s", err.message);
  return CHILD_PASS;
}

static int to_host(env *e, void *dst, const DLTensor *t) {
  tirx_error err = {0};
  size_t nb = 0;
  DLTensor c = *t;
  c.strides = NULL; /* views: the whole allocation behind them is read by the caller's size */
  if (tirx_tensor_nbytes(&c, &nb, &err) != TIRX_OK) return fail(e, "nbytes: %s", err.message);
  if (tirx_copy(e->rt, dst, t->data, nb, TIRX_COPY_DEVICE_TO_HOST, NULL, &err) != TIRX_OK ||
      tirx_runtime_synchronize(e->rt, NULL, &err) != TIRX_OK)
    return fail(e, "copy to host: %s", err.message);
  return CHILD_PASS;
}

static tirx_arg T_(const DLTensor *t) {
  tirx_arg a = {TIRX_ARG_TENSOR, {.tensor = t}};
  return a;
}
static tirx_arg F_(double f) {
  tirx_arg a = {TIRX_ARG_FLOAT, {.f = f}};
  return a;
}

static const DLDataType F32 = {kDLFloat, 32, 1};

/* ---- the golden kernels ------------------------------------------------------------- */

/* B = A * k elementwise for 256-float scale-like kernels. */
static int check_scaled(env *e, const float *a, const float *b, int n, float k) {
  for (int i = 0; i < n; i++)
    if (f2u(b[i]) != f2u(a[i] * k)) return fail(e, "B[%d] = %g, want %g", i, b[i], a[i] * k);
  return CHILD_PASS;
}

/* The most common case shape: f(A, B) with two float tensor parameters
 * (extent n, or 0 for the declared shape), A from the host, B copied back. */
static int run_a_to_b(env *e, const float *a, float *b, int64_t n) {
  int r;
  if ((r = expect_params(e, 2))) return r;
  DLTensor *da = param_tensor(e, 0, n, a), *db = param_tensor(e, 1, n, NULL);
  if (!da || !db) return CHILD_FAIL;
  tirx_arg args[] = {T_(da), T_(db)};
  if ((r = call_sync(e, args, 2)) || (r = to_host(e, b, db))) return r;
  return CHILD_PASS;
}

static int run_scale(env *e) {
  enum { N = 256 };
  float a[N], b[N];
  fill_floats(a, N, 7);
  int r = run_a_to_b(e, a, b, 0);
  if (r) return r;
  return check_scaled(e, a, b, N, 2.0f);
}

/* owned_ids: each CTA of 128 threads reverses its 128 floats through a
 * shared.dyn buffer that T.decl_buffer owns (so the launch must ask for its
 * 512 dynamic bytes); the thread id is uint32. */
static int run_owned_ids(env *e) {
  enum { N = 256 };
  float a[N], b[N];
  fill_floats(a, N, 13);
  int r = run_a_to_b(e, a, b, 0);
  if (r) return r;
  for (int i = 0; i < N; i++) {
    float want = a[(i / 128) * 128 + 127 - i % 128];
    if (b[i] != want) return fail(e, "B[%d] = %g, want %g", i, b[i], want);
  }
  return CHILD_PASS;
}

static int run_scale_dyn(env *e) {
  enum { N = 1000 };
  static float a[N], b[N];
  fill_floats(a, N, 11);
  int r;
  if ((r = expect_params(e, 2))) return r;
  tirx_param_info pi;
  if (tirx_executable_param(e->exe, e->func, 0, &pi) != TIRX_OK || pi.shape[0] != -1 ||
      !pi.dim_names[0] || strcmp(pi.dim_names[0], "n") != 0)
    return fail(e, "scale_dyn: parameter A should have the symbolic dim 'n'");
  DLTensor *da = param_tensor(e, 0, N, a), *db = param_tensor(e, 1, N, NULL);
  if (!da || !db) return CHILD_FAIL;
  tirx_arg args[] = {T_(da), T_(db)};
  if ((r = call_sync(e, args, 2)) || (r = to_host(e, b, db))) return r;
  return check_scaled(e, a, b, N, 2.0f);
}

/* unread_shape: the kernel reads A only at A[tx % 4], so only A's declared
 * shape (m,) mentions m; it is still a kernel parameter, and the launcher
 * passes the m it binds from A's shape (here 7). B[i] = A[i % 4] * 2. */
static int run_unread_shape(env *e) {
  enum { M = 7, N = 32 };
  float a[M], b[N];
  fill_floats(a, M, 19);
  int r;
  if ((r = expect_params(e, 2))) return r;
  tirx_param_info pi;
  if (tirx_executable_param(e->exe, e->func, 0, &pi) != TIRX_OK || pi.shape[0] != -1 ||
      !pi.dim_names[0] || strcmp(pi.dim_names[0], "m") != 0)
    return fail(e, "unread_shape: parameter A should have the symbolic dim 'm'");
  DLTensor *da = param_tensor(e, 0, M, a), *db = param_tensor(e, 1, 0, NULL);
  if (!da || !db) return CHILD_FAIL;
  tirx_arg args[] = {T_(da), T_(db)};
  if ((r = call_sync(e, args, 2)) || (r = to_host(e, b, db))) return r;
  for (int i = 0; i < N; i++)
    if (f2u(b[i]) != f2u(a[i % 4] * 2.0f))
      return fail(e, "B[%d] = %g, want %g", i, b[i], a[i % 4] * 2.0f);
  return CHILD_PASS;
}

static int run_scal(env *e) {
  enum { N = 256 };
  float a[N], b[N];
  fill_floats(a, N, 13);
  int r;
  if ((r = expect_params(e, 3))) return r;
  tirx_param_info pi;
  if (tirx_executable_param(e->exe, e->func, 2, &pi) != TIRX_OK || pi.kind != TIRX_ARG_FLOAT)
    return fail(e, "scal: parameter s should be a float scalar");
  DLTensor *da = param_tensor(e, 0, 0, a), *db = param_tensor(e, 1, 0, NULL);
  if (!da || !db) return CHILD_FAIL;
  tirx_arg args[] = {T_(da), T_(db), F_(3.0)};
  if ((r = call_sync(e, args, 3)) || (r = to_host(e, b, db))) return r;
  return check_scaled(e, a, b, N, 3.0f);
}

static int run_smem_demo(env *e) {
  enum { N = 128 };
  float a[N], b[N];
  fill_floats(a, N, 17);
  int r = run_a_to_b(e, a, b, 0);
  if (r) return r;
  for (int i = 0; i < N; i++)
    if (b[i] != a[N - 1 - i] * 2.0f)
      return fail(e, "B[%d] = %g, want %g", i, b[i], a[N - 1 - i] * 2.0f);
  return CHILD_PASS;
}

static int run_dynamic_arena(env *e) {
  enum { N = 64 };
  float a[N], b[N], c[N];
  fill_floats(a, N, 19);
  fill_floats(b, N, 23);
  int r;
  if ((r = expect_params(e, 3))) return r;
  DLTensor *da = param_tensor(e, 0, 0, a), *db = param_tensor(e, 1, 0, b),
           *dc = param_tensor(e, 2, 0, NULL);
  if (!da || !db || !dc) return CHILD_FAIL;
  tirx_arg args[] = {T_(da), T_(db), T_(dc)};
  if ((r = call_sync(e, args, 3)) || (r = to_host(e, c, dc))) return r;
  for (int i = 0; i < N; i++)
    if (c[i] != a[N - 1 - i] + b[i])
      return fail(e, "C[%d] = %g, want %g", i, c[i], a[N - 1 - i] + b[i]);
  return CHILD_PASS;
}

static int run_block_sum(env *e) {
  enum { N = 256 };
  float a[N], out = 0.0f, want = 0.0f;
  fill_floats(a, N, 5);
  for (int i = 0; i < N; i++)
    want += a[i]; /* multiples of 1/8, |sum| < 2^15: exact in any order */
  int r;
  if ((r = expect_params(e, 2))) return r;
  DLTensor *da = param_tensor(e, 0, 0, a), *dout = param_tensor(e, 1, 0, NULL);
  if (!da || !dout) return CHILD_FAIL;
  tirx_arg args[] = {T_(da), T_(dout)};
  if ((r = call_sync(e, args, 2)) || (r = to_host(e, &out, dout))) return r;
  if (out != want) return fail(e, "out[0] = %g, want %g", out, want);
  return CHILD_PASS;
}

static int run_warp_reduce(env *e) {
  float a[32];
  int r;
  if ((r = expect_params(e, 1))) return r;
  DLTensor *da = param_tensor(e, 0, 0, NULL);
  if (!da) return CHILD_FAIL;
  tirx_arg args[] = {T_(da)};
  if ((r = call_sync(e, args, 1)) || (r = to_host(e, a, da))) return r;
  for (int i = 0; i < 32; i++)
    if (a[i] != 496.0f) return fail(e, "A[%d] = %g, want 496 (0 + 1 + ... + 31)", i, a[i]);
  return CHILD_PASS;
}

static int run_int_div(env *e) {
  enum { N = 225 };
  int32_t x[N], y[N], o[4 * N];
  for (int i = 0; i < N; i++) {
    x[i] = i / 15 - 7;
    int d = i % 15 - 7;
    y[i] = d == 0 ? 5 : d;
  }
  int r;
  if ((r = expect_params(e, 3))) return r;
  DLTensor *dx = param_tensor(e, 0, 0, x), *dy = param_tensor(e, 1, 0, y),
           *dout = param_tensor(e, 2, 0, NULL);
  if (!dx || !dy || !dout) return CHILD_FAIL;
  tirx_arg args[] = {T_(dx), T_(dy), T_(dout)};
  if ((r = call_sync(e, args, 3)) || (r = to_host(e, o, dout))) return r;
  for (int i = 0; i < N; i++) {
    int a = x[i], b = y[i];
    int fd = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
    int want[4] = {fd, a - fd * b, a / b, a % b};
    for (int k = 0; k < 4; k++)
      if (o[4 * i + k] != want[k])
        return fail(e, "op %d of (%d, %d) = %d, want %d", k, a, b, o[4 * i + k], want[k]);
  }
  return CHILD_PASS;
}

static int run_dtypes(env *e) {
  enum { N = 256 };
  float a[N], o[2 * N];
  uint16_t h[N];
  uint32_t seed = 29;
  for (int i = 0; i < N; i++)
    a[i] = (float)((int)(lcg(&seed) % 200001) - 100000) / 997.0f;
  /* edge cases: signed zero, half's largest finite value and overflow, ties to
   * even in half and bfloat16, half subnormals */
  static const float fixed[] = {0.0f,
                                -0.0f,
                                1.0f,
                                -1.0f,
                                0.1f,
                                1.0f / 3.0f,
                                65504.0f,
                                65519.0f,
                                65520.0f,
                                1e5f,
                                -1e5f,
                                5.9604645e-8f,
                                2.9802322e-8f,
                                8.940697e-8f,
                                1.00048828125f /* 1 + 2^-11: half tie, to 1 */,
                                1.00146484375f /* 1 + 3 * 2^-11: half tie, up */,
                                1.00390625f /* 1 + 2^-8: bfloat16 tie, to 1 */,
                                1.01171875f /* 1 + 3 * 2^-8: bfloat16 tie, up */,
                                3e38f,
                                -3e38f};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    a[i] = fixed[i];
  int r;
  if ((r = expect_params(e, 3))) return r;
  tirx_param_info pi;
  if (tirx_executable_param(e->exe, e->func, 2, &pi) != TIRX_OK || pi.dtype.code != kDLFloat ||
      pi.dtype.bits != 16)
    return fail(e, "dtypes: parameter H should be float16");
  DLTensor *da = param_tensor(e, 0, 0, a), *dout = param_tensor(e, 1, 0, NULL),
           *dh = param_tensor(e, 2, 0, NULL);
  if (!da || !dout || !dh) return CHILD_FAIL;
  tirx_arg args[] = {T_(da), T_(dout), T_(dh)};
  if ((r = call_sync(e, args, 3)) || (r = to_host(e, o, dout)) || (r = to_host(e, h, dh))) return r;
  for (int i = 0; i < N; i++) {
    uint16_t want16 = f32_to_f16(a[i]);
    uint32_t want_h = f2u(f16_to_f32(want16)), want_b = (uint32_t)f32_to_bf16(a[i]) << 16;
    if (h[i] != want16)
      return fail(e, "H[%d] = float16(%.9g): bits %04x, want %04x", i, a[i], h[i], want16);
    if (f2u(o[2 * i]) != want_h)
      return fail(e, "O[%d] = float32(float16(%.9g)): bits %08x, want %08x", 2 * i, a[i],
                  f2u(o[2 * i]), want_h);
    if (f2u(o[2 * i + 1]) != want_b)
      return fail(e, "O[%d] = float32(bfloat16(%.9g)): bits %08x, want %08x", 2 * i + 1, a[i],
                  f2u(o[2 * i + 1]), want_b);
  }
  return CHILD_PASS;
}

/* A float32 view of a fresh allocation of `elems` floats: shape (4, 8), the
 * given strides (NULL: compact) and byte offset. */
static DLTensor *view(env *e, int64_t elems, const float *host, const int64_t *strides,
                      uint64_t byte_offset) {
  if (e->nviews >= MAX_VIEWS) {
    fail(e, "too many views");
    return NULL;
  }
  DLTensor *base = new_tensor(e, &elems, 1, F32, host);
  if (!base) return NULL;
  int k = e->nviews++;
  DLTensor *v = &e->views[k];
  *v = *base;
  v->ndim = 2;
  e->vshape[k][0] = 4, e->vshape[k][1] = 8;
  v->shape = e->vshape[k];
  if (strides) {
    e->vstride[k][0] = strides[0], e->vstride[k][1] = strides[1];
    v->strides = e->vstride[k];
  } else {
    v->strides = NULL;
  }
  v->byte_offset = byte_offset;
  return v;
}

static int run_layouts(env *e) {
  float b0[32], b1[32], b2[96], b3[64];
  for (int k = 0; k < 96; k++) {
    if (k < 32) b1[k] = (float)k;
    b2[k] = (float)(k % 7);
    if (k < 64) b3[k] = (float)(k % 5);
  }
  int r;
  if ((r = expect_params(e, 4))) return r;
  for (size_t i = 0; i < 4; i++) {
    tirx_param_info pi;
    if (tirx_executable_param(e->exe, e->func, i, &pi) != TIRX_OK || pi.ndim != 2 ||
        pi.shape[0] != 4 || pi.shape[1] != 8)
      return fail(e, "layouts: parameter %zu should be (4, 8)", i);
  }
  static const int64_t s1[2] = {1, 4}, s3[2] = {16, 1};
  DLTensor *d0 = view(e, 32, NULL, NULL, 0), *d1 = view(e, 32, b1, s1, 0),
           *d2 = view(e, 96, b2, NULL, 64 * sizeof(float)), *d3 = view(e, 64, b3, s3, 0);
  if (!d0 || !d1 || !d2 || !d3) return CHILD_FAIL;
  tirx_arg args[] = {T_(d0), T_(d1), T_(d2), T_(d3)};
  if ((r = call_sync(e, args, 4)) || (r = to_host(e, b0, d0))) return r;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 8; j++) {
      float want = b1[j * 4 + i] * 100.0f + b2[64 + i * 8 + j] * 10.0f + b3[i * 16 + j];
      if (b0[i * 8 + j] != want)
        return fail(e, "B0[%d, %d] = %g, want %g", i, j, b0[i * 8 + j], want);
    }
  return CHILD_PASS;
}

static int run_loops(env *e) {
  float a[512], o[256];
  int32_t p[256];
  fill_floats(a, 512, 31);
  int r;
  if ((r = expect_params(e, 3))) return r;
  DLTensor *da = param_tensor(e, 0, 0, a), *dout = param_tensor(e, 1, 0, NULL),
           *dp = param_tensor(e, 2, 0, NULL);
  if (!da || !dout || !dp) return CHILD_FAIL;
  tirx_arg args[] = {T_(da), T_(dout), T_(dp)};
  if ((r = call_sync(e, args, 3)) || (r = to_host(e, o, dout)) || (r = to_host(e, p, dp))) return r;
  for (int g = 0; g < 256; g++) {
    float want = 0.0f + a[2 * g] + a[2 * g + 1];
    int n = 0;
    for (int i = 1; i <= g % 17 + 3; i++)
      if (i % 2) n += i;
    if (o[g] != want) return fail(e, "O[%d] = %g, want %g", g, o[g], want);
    if (p[g] != n) return fail(e, "P[%d] = %d, want %d", g, p[g], n);
  }
  return CHILD_PASS;
}

static int run_func_call(env *e) {
  enum { N = 256 };
  float a[N], b[N];
  fill_floats(a, N, 37);
  int r = run_a_to_b(e, a, b, 0);
  if (r) return r;
  for (int i = 0; i < N; i++) {
    float want = a[i] > 0.f ? a[i] : 0.f;
    if (f2u(b[i]) != f2u(want))
      return fail(e, "B[%d] = %g, want my_relu(%g) = %g", i, b[i], a[i], want);
  }
  return CHILD_PASS;
}

static int run_cluster(env *e) {
  int32_t o[16];
  int r;
  if ((r = expect_params(e, 1))) return r;
  DLTensor *dout = param_tensor(e, 0, 0, NULL);
  if (!dout) return CHILD_FAIL;
  tirx_arg args[] = {T_(dout)};
  if ((r = call_sync(e, args, 1)) || (r = to_host(e, o, dout))) return r;
  for (int c = 0; c < 4; c++)
    for (int k = 0; k < 2; k++)
      if (o[c * 4 + k * 2] != k || o[c * 4 + k * 2 + 1] != c)
        return fail(e, "cluster %d rank %d wrote (%d, %d)", c, k, o[c * 4 + k * 2],
                    o[c * 4 + k * 2 + 1]);
  return CHILD_PASS;
}

static int run_unrolled(env *e) {
  enum { N = 256 };
  static float a[N * 8], o[N];
  fill_floats(a, N * 8, 23);
  int r;
  if ((r = expect_params(e, 2))) return r;
  DLTensor *da = param_tensor(e, 0, 0, a), *dout = param_tensor(e, 1, 0, NULL);
  if (!da || !dout) return CHILD_FAIL;
  tirx_arg args[] = {T_(da), T_(dout)};
  if ((r = call_sync(e, args, 2)) || (r = to_host(e, o, dout))) return r;
  for (int g = 0; g < N; g++) {
    float acc = 0.0f;
    for (int k = 0; k < 8; k++)
      acc += a[g * 8 + k] * (float)(k + 1);
    if (o[g] != acc) return fail(e, "O[%d] = %g, want %g", g, o[g], acc);
  }
  return CHILD_PASS;
}

static int run_vec_axpy(env *e) {
  enum { N = 4096 };
  static float a[N], b[N], c[N];
  fill_floats(a, N, 21);
  fill_floats(b, N, 22);
  const float alpha = 0.5f;
  int r;
  if ((r = expect_params(e, 4))) return r;
  DLTensor *da = param_tensor(e, 0, 0, a), *db = param_tensor(e, 1, 0, b),
           *dc = param_tensor(e, 2, 0, NULL);
  if (!da || !db || !dc) return CHILD_FAIL;
  tirx_arg args[] = {T_(da), T_(db), T_(dc), F_(alpha)};
  if ((r = call_sync(e, args, 4)) || (r = to_host(e, c, dc))) return r;
  for (int i = 0; i < N; i++)
    if (c[i] != a[i] * alpha + b[i])
      return fail(e, "C[%d] = %g, want %g", i, c[i], a[i] * alpha + b[i]);
  return CHILD_PASS;
}

static int run_legacy(env *e) {
  enum { N = 1024 };
  static float a[N], b[N];
  fill_floats(a, N, 24);
  int r = run_a_to_b(e, a, b, 0);
  if (r) return r;
  for (int i = 0; i < N; i++)
    if (b[i] != a[i] + 1.0f) return fail(e, "B[%d] = %g, want %g", i, b[i], a[i] + 1.0f);
  return CHILD_PASS;
}

static int expect_usage(env *e, const tirx_arg *args, size_t n, const char *want);

/* tma_tile: a 64 x 128 float32 tensor through tensor maps that the runtime
 * encodes from the kernel's host part (runtime.cuTensorMapEncodeTiled) and
 * passes by value: C = A * s + 1 tile by tile, F[b] = 1 per CTA. A second
 * call with other tensors and another s must not reuse the first call's
 * maps; a misaligned A is refused by TVM's host checks before the driver. */
static int check_tma(env *e, const float *a, const float *c, const uint32_t *f, float s) {
  for (int b = 0; b < 16; b++)
    if (f[b] != 1) return fail(e, "CTA %d did not finish (F = %u)", b, f[b]);
  for (int i = 0; i < 64 * 128; i++) {
    float want = a[i] * s + 1.0f;
    if (f2u(c[i]) != f2u(want))
      return fail(e, "C[%d][%d] = %g, want %g (s = %g)", i / 128, i % 128, c[i], want, s);
  }
  return CHILD_PASS;
}

static int run_tma_tile(env *e) {
  enum { N = 64 * 128 };
  static float a[N], c[N], a2[N], c2[N];
  uint32_t f[16], f2[16];
  fill_floats(a, N, 41);
  fill_floats(a2, N, 43);
  int r;
  if ((r = expect_params(e, 4))) return r;
  tirx_param_info pi;
  if (tirx_executable_param(e->exe, e->func, 3, &pi) != TIRX_OK || pi.kind != TIRX_ARG_FLOAT)
    return fail(e, "tma_tile: parameter s should be a float scalar");
  DLTensor *da = param_tensor(e, 0, 0, a), *dc = param_tensor(e, 1, 0, NULL),
           *df = param_tensor(e, 2, 0, NULL);
  DLTensor *da2 = param_tensor(e, 0, 0, a2), *dc2 = param_tensor(e, 1, 0, NULL),
           *df2 = param_tensor(e, 2, 0, NULL);
  if (!da || !dc || !df || !da2 || !dc2 || !df2) return CHILD_FAIL;
  tirx_arg args[] = {T_(da), T_(dc), T_(df), F_(2.0)};
  if ((r = call_sync(e, args, 4)) || (r = to_host(e, c, dc)) || (r = to_host(e, f, df)) ||
      (r = check_tma(e, a, c, f, 2.0f)))
    return r;
  tirx_arg args2[] = {T_(da2), T_(dc2), T_(df2), F_(0.5)};
  if ((r = call_sync(e, args2, 4)) || (r = to_host(e, c2, dc2)) || (r = to_host(e, f2, df2)) ||
      (r = check_tma(e, a2, c2, f2, 0.5f)))
    return r;
  /* the first call's output is untouched by the second */
  if ((r = to_host(e, c, dc)) || (r = check_tma(e, a, c, f, 2.0f))) return r;
  DLTensor off = *da;
  off.data = (char *)da->data + 4;
  char want[256];
  snprintf(want, sizeof want,
           "tma_tile: runtime.cuTensorMapEncodeTiled for 'A_map': globalAddress = 0x%llx must "
           "be 16-byte aligned",
           (unsigned long long)(uintptr_t)off.data);
  tirx_arg bad[] = {T_(&off), T_(dc), T_(df), F_(2.0)};
  return expect_usage(e, bad, 4, want);
}

/* tma_multicast: TVM's clusterCtaIdx.x binding and a TMA multicast. The
 * runtime launches the 8 CTAs in clusters of 4 from the cluster shape the
 * compiler recorded (nothing here passes it); each CTA's 16 rows of B must
 * be the whole of A, assembled from the four quarters its cluster's CTAs
 * multicast, and R[b] its coordinate in the cluster, b % 4. */
static int run_tma_multicast(env *e) {
  enum { N = 16 * 16, CTAS = 8 };
  static float a[N], b[CTAS * N];
  int32_t rk[CTAS];
  fill_floats(a, N, 47);
  int r;
  if ((r = expect_params(e, 3))) return r;
  DLTensor *da = param_tensor(e, 0, 0, a), *db = param_tensor(e, 1, 0, NULL),
           *dr = param_tensor(e, 2, 0, NULL);
  if (!da || !db || !dr) return CHILD_FAIL;
  tirx_arg args[] = {T_(da), T_(db), T_(dr)};
  if ((r = call_sync(e, args, 3)) || (r = to_host(e, b, db)) || (r = to_host(e, rk, dr))) return r;
  for (int c = 0; c < CTAS; c++) {
    if (rk[c] != c % 4) return fail(e, "CTA %d: clusterCtaIdx.x = %d, want %d", c, rk[c], c % 4);
    for (int i = 0; i < N; i++)
      if (f2u(b[c * N + i]) != f2u(a[i]))
        return fail(e, "CTA %d: B[%d][%d] = %g, want %g (the quarter cluster rank %d multicast)", c,
                    c * 16 + i / 16, i % 16, b[c * N + i], a[i], i / 64);
  }
  return CHILD_PASS;
}

/* ---- beyond single kernels ---------------------------------------------------------- */

/* Two threads, one tirx_function (scal), 1000 calls each on their own
 * stream with their own tensors: ping-pong A -> B -> A with s = 2 or 0.5
 * (k % 4 < 2: 2), so the last B holds 2 * a0 and the last A holds a0. */
enum { THREAD_ITERS = 1000, THREAD_N = 256 };
typedef struct thread_job {
  env *e;
  int id;
  char msg[1200];
  int ok;
} thread_job;

static void *thread_main(void *p) {
  thread_job *j = p;
  env *e = j->e;
  tirx_error err = {0};
  void *stream = NULL;
  DLManagedTensorVersioned *ma = NULL, *mb = NULL;
  float a0[THREAD_N], a[THREAD_N], b[THREAD_N];
  fill_floats(a0, THREAD_N, 1000u + (uint32_t)j->id);
  for (int i = 0; i < THREAD_N; i++)
    a0[i] += (float)(j->id * 1000); /* the threads' data differ */
  int64_t shape[1] = {THREAD_N};
  j->ok = 0;
  if (tirx_stream_create(e->rt, &stream, &err) != TIRX_OK ||
      tirx_tensor_alloc(e->rt, shape, 1, F32, &ma, &err) != TIRX_OK ||
      tirx_tensor_alloc(e->rt, shape, 1, F32, &mb, &err) != TIRX_OK ||
      tirx_copy(e->rt, ma->dl_tensor.data, a0, sizeof a0, TIRX_COPY_HOST_TO_DEVICE, stream, &err) ||
      tirx_runtime_synchronize(e->rt, stream, &err) != TIRX_OK) {
    snprintf(j->msg, sizeof j->msg, "thread %d setup: %s", j->id, err.message);
    goto out;
  }
  for (int k = 0; k < THREAD_ITERS; k++) {
    const DLTensor *src = k % 2 ? &mb->dl_tensor : &ma->dl_tensor;
    const DLTensor *dst = k % 2 ? &ma->dl_tensor : &mb->dl_tensor;
    tirx_arg args[3] = {T_(src), T_(dst), F_(k % 4 < 2 ? 2.0 : 0.5)};
    if (tirx_function_call(e->fn, args, 3, stream, &err) != TIRX_OK) {
      snprintf(j->msg, sizeof j->msg, "thread %d call %d: %s", j->id, k, err.message);
      goto out;
    }
  }
  if (tirx_runtime_synchronize(e->rt, stream, &err) != TIRX_OK ||
      tirx_copy(e->rt, a, ma->dl_tensor.data, sizeof a, TIRX_COPY_DEVICE_TO_HOST, stream, &err) ||
      tirx_copy(e->rt, b, mb->dl_tensor.data, sizeof b, TIRX_COPY_DEVICE_TO_HOST, stream, &err) ||
      tirx_runtime_synchronize(e->rt, stream, &err) != TIRX_OK) {
    snprintf(j->msg, sizeof j->msg, "thread %d: %s", j->id, err.message);
    goto out;
  }
  for (int i = 0; i < THREAD_N; i++)
    if (a[i] != a0[i] || b[i] != 2.0f * a0[i]) {
      snprintf(j->msg, sizeof j->msg, "thread %d: [%d] A = %g (want %g), B = %g (want %g)", j->id,
               i, a[i], a0[i], b[i], 2.0f * a0[i]);
      goto out;
    }
  j->ok = 1;
out:
  tirx_dlpack_release(ma);
  tirx_dlpack_release(mb);
  if (stream) tirx_stream_destroy(e->rt, stream, NULL);
  return NULL;
}

static int run_two_threads(env *e) {
  thread_job jobs[2] = {{e, 0, "", 0}, {e, 1, "", 0}};
  pthread_t th[2];
  int started = 0;
  for (; started < 2; started++)
    if (pthread_create(&th[started], NULL, thread_main, &jobs[started]) != 0) break;
  for (int i = 0; i < started; i++)
    pthread_join(th[i], NULL);
  if (started < 2) return fail(e, "pthread_create failed");
  for (int i = 0; i < 2; i++)
    if (!jobs[i].ok) return fail(e, "%s", jobs[i].msg);
  return CHILD_PASS;
}

/* Save the executable, load it back, load that on the runtime and run scale. */
static int run_save_load(env *e) {
  char path[] = "/tmp/tirx_api_gpu_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return fail(e, "mkstemp failed");
  close(fd);
  tirx_error err = {0};
  tirx_executable *back = NULL;
  tirx_loaded *lm = NULL;
  tirx_function *fn = NULL;
  int r = CHILD_FAIL;
  if (tirx_executable_save(e->exe, path, &err) != TIRX_OK) {
    fail(e, "save: %s", err.message);
    goto out;
  }
  if (tirx_executable_load(path, &back, &err) != TIRX_OK) {
    fail(e, "load: %s", err.message);
    goto out;
  }
  size_t plen = 0, blen = 0;
  tirx_executable_ptx(e->exe, &plen);
  tirx_executable_ptx(back, &blen);
  if (tirx_executable_func_count(back) != 1 ||
      strcmp(tirx_executable_func_name(back, 0), "scale") || plen == 0 || blen != plen ||
      strcmp(tirx_executable_arch(back), tirx_executable_arch(e->exe))) {
    fail(e, "loaded executable differs (funcs %zu, ptx %zu vs %zu bytes)",
         tirx_executable_func_count(back), blen, plen);
    goto out;
  }
  if (tirx_runtime_load(e->rt, back, &lm, &err) != TIRX_OK ||
      tirx_loaded_function(lm, "scale", &fn, &err) != TIRX_OK) {
    fail(e, "runtime load: %s", err.message);
    goto out;
  }
  e->exe = back; /* size the tensors from the loaded executable */
  e->fn = fn;
  r = run_scale(e);
  env_release(e);
out:
  tirx_loaded_free(lm);
  tirx_executable_free(back);
  remove(path);
  return r;
}

static int expect_usage(env *e, const tirx_arg *args, size_t n, const char *want) {
  tirx_error err = {0};
  tirx_status st = tirx_function_call(e->fn, args, n, NULL, &err);
  if (st != TIRX_ERR_USAGE)
    return fail(e, "status %s (want TIRX_ERR_USAGE): %s", tirx_status_name(st), err.message);
  if (strcmp(err.message, want) != 0)
    return fail(e, "message \"%s\", want \"%s\"", err.message, want);
  return CHILD_PASS;
}

/* Mismatched arguments on the real launch path (scale_dyn, n = 64). */
static int run_arg_errors(env *e) {
  int64_t s64[1] = {64}, s32[1] = {32}, s2[2] = {8, 8};
  DLDataType f16 = {kDLFloat, 16, 1};
  DLTensor *a = new_tensor(e, s64, 1, F32, NULL), *b = new_tensor(e, s64, 1, F32, NULL),
           *h = new_tensor(e, s64, 1, f16, NULL), *b32 = new_tensor(e, s32, 1, F32, NULL),
           *a2 = new_tensor(e, s2, 2, F32, NULL);
  if (!a || !b || !h || !b32 || !a2) return CHILD_FAIL;
  int r;
  tirx_arg wrong_dtype[] = {T_(h), T_(b)}, wrong_shape[] = {T_(a), T_(b32)},
           wrong_ndim[] = {T_(a2), T_(b)}, wrong_kind[] = {T_(a), F_(1.0)}, ok[] = {T_(a), T_(b)};
  if ((r = expect_usage(e, wrong_dtype, 2,
                        "scale_dyn: argument 'A': expected dtype float32, got float16")) ||
      (r = expect_usage(e, wrong_shape, 2,
                        "scale_dyn: argument 'B': expected shape[0] == n, got 32")) ||
      (r = expect_usage(e, wrong_ndim, 2,
                        "scale_dyn: argument 'A': expected 1 dimension, got 2")) ||
      (r = expect_usage(e, ok, 1, "scale_dyn: expected 2 arguments, got 1")) ||
      (r = expect_usage(e, wrong_kind, 2,
                        "scale_dyn: argument 'B': expected a tensor, got a float")))
    return r;
  /* a call that fits still launches after the failed ones */
  return call_sync(e, ok, 2);
}

/* ---- the case table ------------------------------------------------------------------ */

/* two_kernels: one call launches two_kernel (B = 2A) and then two_kernel_1
 * (B += 1) on the same stream. Needs the runtime to run several T.call_packed
 * launches of one host function, in order. */
static int run_two_kernels(env *e) {
  enum { N = 256 };
  static float a[N], b[N];
  fill_floats(a, N, 31);
  int r = run_a_to_b(e, a, b, 0);
  if (r) return r;
  for (int i = 0; i < N; i++)
    if (f2u(b[i]) != f2u(a[i] * 2.0f + 1.0f))
      return fail(e, "B[%d] = %g, want 2 * %g + 1 = %g", i, b[i], a[i], a[i] * 2.0f + 1.0f);
  return CHILD_PASS;
}

typedef struct gcase {
  const char *name; /* test name */
  const char *file; /* tests/golden/lowering/<file>.tirx */
  const char *func; /* the function inside */
  int min_sm;       /* skip below this compute capability (x10) */
  int (*run)(env *e);
  /* The architectures to compile for, a printf format where %s is the
   * device's (NULL: the device's alone). */
  const char *arches;
} gcase;

static const gcase CASES[] = {
    {"scale", "scale", "scale", 0, run_scale, NULL},
    {"scale_dyn", "scale_dyn", "scale_dyn", 0, run_scale_dyn, NULL},
    {"scal", "scal", "scal", 0, run_scal, NULL},
    {"smem_demo", "smem_demo", "smem_demo", 0, run_smem_demo, NULL},
    {"dynamic_arena", "dynamic_arena", "dyn", 0, run_dynamic_arena, NULL},
    {"block_sum", "block_sum", "block_sum", 0, run_block_sum, NULL},
    {"warp_reduce", "warp_reduce", "warp_reduce", 0, run_warp_reduce, NULL},
    {"floordiv_floormod", "floordiv_floormod", "int_div", 0, run_int_div, NULL},
    {"dtypes", "dtypes", "dtypes", 0, run_dtypes, NULL},
    {"layouts_four", "layouts_four", "layouts", 0, run_layouts, NULL},
    {"launch_bounds_unroll_while", "launch_bounds_unroll_while", "loops", 0, run_loops, NULL},
    {"func_call", "func_call", "relu", 0, run_func_call, NULL},
    {"cluster", "cluster", "cluster", 90, run_cluster, NULL},
    {"unrolled", "unrolled", "unrolled_sum", 0, run_unrolled, NULL},
    {"vectorized_elementwise", "vectorized_elementwise", "vec_axpy", 0, run_vec_axpy, NULL},
    {"legacy_launch_thread", "legacy_launch_thread", "legacy_add", 0, run_legacy, NULL},
    {"tma_tile", "tma_tile", "tma_tile", 90, run_tma_tile, NULL},
    {"tma_multicast", "tma_multicast", "tma_multicast", 90, run_tma_multicast, NULL},
    {"owned_ids", "owned_ids", "owned_ids", 0, run_owned_ids, NULL},
    {"unread_shape", "unread_shape", "unread_shape", 0, run_unread_shape, NULL},
    {"two_kernels", "two_kernels", "two", 0, run_two_kernels, NULL},
    {"api.two_threads_1000_calls", "scal", "scal", 0, run_two_threads, NULL},
    {"api.save_load_roundtrip", "scale", "scale", 0, run_save_load, NULL},
    {"api.arg_errors", "scale_dyn", "scale_dyn", 0, run_arg_errors, NULL},
    /* Several images: the device's own among others, and (on 9.0 and
     * later) a portable sm_80 one that the driver's JIT runs. */
    {"api.arch_list_own", "scale", "scale", 0, run_scale, "sm_120a,%s"},
    {"api.arch_list_portable", "scale", "scale", 90, run_scale, "sm_120a,sm_80"},
};
enum { NCASES = sizeof CASES / sizeof CASES[0] };

static tirx_status open_rt(tirx_runtime **rt, tirx_error *err) {
  return g_driver ? tirx_runtime_open_with(g_driver, 0, rt, err) : tirx_runtime_open(0, rt, err);
}

/* "sm_90a" -> 90 */
static int arch_sm(const char *arch) {
  if (!arch || strncmp(arch, "sm_", 3) != 0) return 0;
  return atoi(arch + 3);
}

static int case_child(void *arg, char *msg, size_t cap) {
  const gcase *c = arg;
  tirx_error err = {0};
  tirx_runtime *rt = NULL;
  if (open_rt(&rt, &err) != TIRX_OK) {
    snprintf(msg, cap, "no CUDA GPU: %s", err.message);
    return CHILD_SKIP;
  }
  int r = CHILD_FAIL;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.tirx", g_dir, c->file);
  size_t len = 0;
  char *text = read_text(path, &len);
  tirx_executable *exe = NULL;
  tirx_loaded *lm = NULL;
  tirx_function *fn = NULL;
  int sm = arch_sm(tirx_runtime_arch(rt));
  if (sm < c->min_sm) {
    snprintf(msg, cap, "needs sm_%d, the device is %s", c->min_sm, tirx_runtime_arch(rt));
    r = CHILD_SKIP;
    goto out;
  }
  if (!text) {
    snprintf(msg, cap, "cannot read %s", path);
    goto out;
  }
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.arch = tirx_runtime_arch(rt);
  char arches[128];
  if (c->arches) {
    snprintf(arches, sizeof arches, c->arches, o.arch);
    o.arch = arches;
  }
  if (tirx_compile(path, text, len, &o, &exe, &err) != TIRX_OK) {
    snprintf(msg, cap, "compile: %s", err.message);
    goto out;
  }
  if (tirx_runtime_load(rt, exe, &lm, &err) != TIRX_OK ||
      tirx_loaded_function(lm, c->func, &fn, &err) != TIRX_OK) {
    snprintf(msg, cap, "load: %s", err.message);
    goto out;
  }
  env e = {.rt = rt, .exe = exe, .fn = fn, .func = c->func, .msg = msg, .cap = cap};
  r = c->run(&e);
  env_release(&e);
out:
  tirx_loaded_free(lm);
  tirx_executable_free(exe);
  free(text);
  tirx_runtime_close(rt);
  return r;
}

/* Whether there is a device at all: one child, so no CUDA state reaches the
 * parent before the cases fork. */
static int probe_child(void *arg, char *msg, size_t cap) {
  (void)arg;
  tirx_error err = {0};
  tirx_runtime *rt = NULL;
  if (open_rt(&rt, &err) != TIRX_OK) {
    snprintf(msg, cap, "tirx_runtime_open failed: %s", err.message);
    return CHILD_SKIP;
  }
  snprintf(msg, cap, "%s", tirx_runtime_arch(rt));
  tirx_runtime_close(rt);
  return CHILD_PASS;
}

/* ---- --compile-only: every kernel of the directory through tirx_compile ------------- */

static int compile_child(void *arg, char *msg, size_t cap) {
  const char *file = arg;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", g_dir, file);
  size_t len = 0;
  char *text = read_text(path, &len);
  if (!text) {
    snprintf(msg, cap, "cannot read %s", path);
    return CHILD_FAIL;
  }
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.arch = "sm_90a";
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  int r = CHILD_FAIL;
  if (tirx_compile(path, text, len, &o, &exe, &err) != TIRX_OK) {
    snprintf(msg, cap, "compile: %s", err.message);
    goto out;
  }
  size_t plen = 0;
  tirx_executable_ptx(exe, &plen);
  if (plen == 0 || tirx_executable_func_count(exe) == 0) {
    snprintf(msg, cap, "no PTX or no function");
    goto out;
  }
  /* the case table's function, when the file is one of its kernels */
  for (size_t i = 0; i < NCASES; i++) {
    size_t fl = strlen(CASES[i].file);
    if (strncmp(file, CASES[i].file, fl) != 0 || strcmp(file + fl, ".tirx") != 0) continue;
    if (tirx_executable_param_count(exe, CASES[i].func) == 0) {
      snprintf(msg, cap, "no function '%s' with parameters", CASES[i].func);
      goto out;
    }
  }
  r = CHILD_PASS;
out:
  tirx_executable_free(exe);
  free(text);
  return r;
}

static int name_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int compile_only(void) {
  DIR *d = opendir(g_dir);
  if (!d) {
    printf("FAIL compile-only: cannot open %s\n", g_dir);
    return 1;
  }
  char *names[256];
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(d)) && n < 256) {
    size_t l = strlen(de->d_name);
    if (l > 5 && strcmp(de->d_name + l - 5, ".tirx") == 0 && !strstr(de->d_name, ".expected."))
      names[n++] = strdup(de->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof names[0], name_cmp);
  child_tally t = {0};
  char msg[4096];
  for (size_t i = 0; i < n; i++) {
    int o = child_run(compile_child, names[i], 300, msg, sizeof msg);
    char label[512];
    snprintf(label, sizeof label, "compile %s", names[i]);
    child_report(&t, label, o, msg);
  }
  /* every case's kernel must be there */
  for (size_t i = 0; i < NCASES; i++) {
    int found = 0;
    for (size_t k = 0; k < n; k++) {
      size_t fl = strlen(CASES[i].file);
      if (strncmp(names[k], CASES[i].file, fl) == 0 && strcmp(names[k] + fl, ".tirx") == 0)
        found = 1;
    }
    if (!found) {
      char m[256];
      snprintf(m, sizeof m, "%s.tirx missing from %s", CASES[i].file, g_dir);
      child_report(&t, CASES[i].name, CHILD_FAIL, m);
    }
  }
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  if (n == 0) {
    printf("FAIL compile-only: no .tirx files in %s\n", g_dir);
    t.failed++;
  }
  return child_summary(&t);
}

int main(int argc, char **argv) {
  int compile = 0;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--compile-only") == 0)
      compile = 1;
    else if (strcmp(argv[i], "--driver") == 0 && i + 1 < argc)
      g_driver = argv[++i];
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (argv[i][0] == '-') {
      fprintf(stderr, "usage: %s [--compile-only] [--driver LIB] [--only CASE] [DIR]\n", argv[0]);
      return 2;
    } else
      g_dir = argv[i];
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (compile) return compile_only();
  child_tally t = {0};
  char msg[4096];
  int o = child_run(probe_child, NULL, 60, msg, sizeof msg);
  if (o != CHILD_PASS) {
    child_report(&t, "gpu", o == CHILD_SKIP ? CHILD_SKIP : CHILD_FAIL, msg);
    return child_summary(&t);
  }
  printf("device: %s, kernels from %s\n", msg, g_dir);
  for (size_t i = 0; i < NCASES; i++) {
    if (only && strcmp(only, CASES[i].name) != 0) continue;
    o = child_run(case_child, (void *)&CASES[i], CASE_TIMEOUT_S, msg, sizeof msg);
    child_report(&t, CASES[i].name, o, msg);
  }
  return child_summary(&t);
}
