/*
 * test_gpu_kernels.c - compile CUDA C with tx_nvrtc_compile, run it on the
 * GPU, compare with a CPU reference.
 *
 *   test_gpu_kernels [--cuda-dir DIR] [--timeout SECONDS] [--list] [CASE...]
 *   test_gpu_kernels --dump-cuda DIR      (write each case's CUDA as DIR/NAME.cu)
 *   test_gpu_kernels --compile-only ARCH  (NVRTC only, no GPU: e.g. sm_100a)
 *
 * Each case runs in a forked child (CUDA state does not survive fork, and a
 * crash or hang must not take the suite down) under a timeout; a hang is a
 * failure. One line per case: PASS / FAIL: why / SKIP (why), then
 * "N passed, M failed, K skipped". Exit 0 when nothing failed and something
 * passed, 77 (ctest's skip code) when everything was skipped (no driver, no
 * GPU, no NVRTC), 1 on any failure.
 *
 * Adding a case: write the kernel as a CUDA string, a run function that
 * allocates, launches through gpu_harness.h and checks against a CPU
 * reference, and a row in CASES. With --cuda-dir DIR, a case whose
 * DIR/NAME.cu exists takes its CUDA from that file instead of the built-in
 * string (e.g. the output of `tirxc NAME.tirx --emit=cuda -o DIR/NAME.cu`);
 * the file must define the same entry point with the same parameters. See
 * docs/nvrtc.md.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "target/cuda/codegen.h"
#include "child_runner.h"
#include "gpu_harness.h"
#include "driver/context.h"
#include "driver/compile.h"
#include "ir/arena.h"
#include "ir/diag.h"

enum { EXIT_PASS = 0, EXIT_FAIL = 1, EXIT_SKIP = 77 };
enum { MAX_BUFS = 16 };

/* What a case's run function gets: the harness, its kernel, a message buffer
 * and the device buffers to free at the end. */
typedef struct case_env {
  gpu_harness *g;
  gpu_function *fn;
  char msg[2048];
  gpu_ptr bufs[MAX_BUFS];
  int nbufs;
} case_env;

typedef int (*case_run)(case_env *e); /* GPU_OK, GPU_FAIL or GPU_SKIP; e->msg says why */

typedef struct gpu_case {
  const char *name;  /* also DIR/NAME.cu with --cuda-dir */
  const char *entry; /* the __global__ function to launch */
  const char *cuda;  /* built-in CUDA source (NULL for a TIRx case) */
  int min_cc;        /* compute capability * 10 needed (0: any) */
  case_run run;
  const char *tirx; /* TIRx source compiled by the whole tirx-c pipeline */
} gpu_case;

static int fail(case_env *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(case_env *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  return GPU_FAIL;
}

/* A device buffer, filled from `host` when non-NULL; 0 after a failure (the
 * message is set). Freed by the driver harness at the end of the case. */
static gpu_ptr dev_buf(case_env *e, size_t bytes, const void *host) {
  gpu_ptr p = 0;
  if (e->nbufs == MAX_BUFS) {
    fail(e, "too many buffers");
    return 0;
  }
  if (gpu_alloc(e->g, bytes, &p) != GPU_OK) {
    fail(e, "%s", gpu_error(e->g));
    return 0;
  }
  e->bufs[e->nbufs++] = p;
  if (host && gpu_to_device(e->g, p, host, bytes) != GPU_OK) {
    fail(e, "%s", gpu_error(e->g));
    return 0;
  }
  return p;
}

static int launch(case_env *e, gpu_dim3 grid, gpu_dim3 block, unsigned shmem,
                  const gpu_dim3 *cluster, void **args) {
  int r = gpu_launch(e->g, e->fn, grid, block, shmem, cluster, args);
  if (r != GPU_OK) snprintf(e->msg, sizeof e->msg, "%s", gpu_error(e->g));
  return r;
}

static int to_host(case_env *e, void *dst, gpu_ptr src, size_t bytes) {
  if (gpu_to_host(e->g, dst, src, bytes) == GPU_OK) return GPU_OK;
  return fail(e, "%s", gpu_error(e->g));
}

/* Deterministic inputs (no rand(): reproducible across libcs). */
static uint32_t lcg(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

/* ---- scale --------------------------------------------------------------- */

static const char SCALE_CU[] =
    "extern \"C\" __global__ void scale(const float *__restrict__ a, float *__restrict__ b,\n"
    "                                  float s, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) b[i] = a[i] * s;\n"
    "}\n";

static int run_scale(case_env *e) {
  enum { N = 1000 };
  static float a[N], b[N];
  uint32_t seed = 1;
  for (int i = 0; i < N; i++)
    a[i] = (float)((int)(lcg(&seed) % 2001) - 1000) / 7.0f;
  float s = 2.5f;
  int n = N;
  gpu_ptr da = dev_buf(e, sizeof a, a), db = dev_buf(e, sizeof b, NULL);
  if (!da || !db) return GPU_FAIL;
  void *args[] = {&da, &db, &s, &n};
  int r = launch(e, (gpu_dim3){(N + 127) / 128, 1, 1}, (gpu_dim3){128, 1, 1}, 0, NULL, args);
  if (r != GPU_OK || (r = to_host(e, b, db, sizeof b)) != GPU_OK) return r;
  for (int i = 0; i < N; i++)
    if (b[i] != a[i] * s) return fail(e, "b[%d] = %.9g, want %.9g", i, b[i], a[i] * s);
  return GPU_OK;
}

/* ---- floordiv / floormod --------------------------------------------------- */

/* What the code generator must emit for T.floordiv / T.floormod on int32:
 * C division truncates toward zero, TIR's floor division rounds down. */
static const char FLOORDIV_CU[] =
    "__device__ __forceinline__ int tx_floordiv(int a, int b) {\n"
    "  int q = a / b, r = a % b;\n"
    "  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;\n"
    "}\n"
    "__device__ __forceinline__ int tx_floormod(int a, int b) {\n"
    "  int r = a % b;\n"
    "  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n"
    "}\n"
    "extern \"C\" __global__ void floordiv_floormod(const int *a, const int *b, int *q, int *r,\n"
    "                                              int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) {\n"
    "    q[i] = tx_floordiv(a[i], b[i]);\n"
    "    r[i] = tx_floormod(a[i], b[i]);\n"
    "  }\n"
    "}\n";

static int run_floordiv(case_env *e) {
  enum { N = 15 * 6 }; /* a in -7..7, b in -3..3 without 0 */
  int a[N], b[N], q[N], r[N], n = 0;
  for (int x = -7; x <= 7; x++)
    for (int y = -3; y <= 3; y++)
      if (y != 0) a[n] = x, b[n] = y, n++;
  gpu_ptr da = dev_buf(e, sizeof a, a), db = dev_buf(e, sizeof b, b);
  gpu_ptr dq = dev_buf(e, sizeof q, NULL), dr = dev_buf(e, sizeof r, NULL);
  if (!da || !db || !dq || !dr) return GPU_FAIL;
  void *args[] = {&da, &db, &dq, &dr, &n};
  int st = launch(e, (gpu_dim3){1, 1, 1}, (gpu_dim3){128, 1, 1}, 0, NULL, args);
  if (st != GPU_OK || (st = to_host(e, q, dq, sizeof q)) != GPU_OK ||
      (st = to_host(e, r, dr, sizeof r)) != GPU_OK)
    return st;
  for (int i = 0; i < n; i++) {
    /* The reference is independent of the kernel's formula: floor of the
     * exact quotient, and the remainder that goes with it. */
    int wq = (int)floor((double)a[i] / (double)b[i]);
    int wr = a[i] - b[i] * wq;
    if (q[i] != wq || r[i] != wr)
      return fail(e, "floordiv/floormod(%d, %d) = %d, %d; want %d, %d", a[i], b[i], q[i], r[i], wq,
                  wr);
    if (wr != 0 && (wr < 0) != (b[i] < 0)) return fail(e, "reference sign broken");
  }
  return GPU_OK;
}

/* ---- fp16 / bf16 round trip ---------------------------------------------- */

static const char HALF_CU[] =
    "#include <cuda_fp16.h>\n"
    "#include <cuda_bf16.h>\n"
    "extern \"C\" __global__ void half_roundtrip(const float *x, unsigned short *hb, float *hf,\n"
    "                                           unsigned short *bb, float *bf, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) {\n"
    "    __half h = __float2half_rn(x[i]);\n"
    "    hb[i] = __half_as_ushort(h);\n"
    "    hf[i] = __half2float(h);\n"
    "    __nv_bfloat16 b = __float2bfloat16_rn(x[i]);\n"
    "    bb[i] = __bfloat16_as_ushort(b);\n"
    "    bf[i] = __bfloat162float(b);\n"
    "  }\n"
    "}\n";

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

/* IEEE binary16, round to nearest even; inputs are never NaN here. */
static uint16_t f32_to_f16(float f) {
  uint32_t x = f2u(f), sign = (x >> 16) & 0x8000u, man = x & 0x7fffffu;
  int exp = (int)((x >> 23) & 0xff);
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00u);
  int e = exp - 127 + 15;
  if (e <= 0) { /* half subnormal (or zero) */
    if (e < -10) return (uint16_t)sign;
    man |= 0x800000u;
    unsigned shift = (unsigned)(14 - e);
    uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h); /* a carry lands on the smallest normal: correct */
  }
  uint32_t h = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;
  if (h >= 0x7c00u) return (uint16_t)(sign | 0x7c00u); /* overflow: infinity */
  return (uint16_t)(sign | h);
}

static float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu;
  float mag;
  if (e == 0)
    mag = ldexpf((float)m, -24);
  else if (e == 31)
    mag = m ? NAN : INFINITY;
  else
    mag = ldexpf((float)(m | 0x400u), (int)e - 25);
  return u2f(f2u(mag) | sign);
}

static uint16_t f32_to_bf16(float f) {
  uint32_t x = f2u(f);
  x += 0x7fffu + ((x >> 16) & 1u); /* round to nearest even on the dropped half */
  return (uint16_t)(x >> 16);
}

static int run_half(case_env *e) {
  enum { N = 512 };
  static float x[N], hf[N], bf[N];
  static unsigned short hb[N], bb[N];
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
                                6e-8f,
                                5.9604645e-8f /* 2^-24 */,
                                2.9802322e-8f /* 2^-25: tie to 0 */,
                                8.9406967e-8f /* 3 * 2^-25: tie to 2^-23 */,
                                1.00048828125f /* 1 + 2^-11: tie */,
                                1.00146484375f /* 1 + 3 * 2^-11: tie up */,
                                1.00390625f /* 1 + 2^-8: bf16 tie */,
                                1.01171875f /* 1 + 3 * 2^-8: bf16 tie up */,
                                3.14159265f,
                                -3.14159265f,
                                1e-3f,
                                3.0e38f,
                                -3.0e38f,
                                6.1035156e-5f /* smallest normal half */,
                                6.0975552e-5f /* largest subnormal */};
  int nf = (int)(sizeof fixed / sizeof fixed[0]);
  uint32_t seed = 7;
  for (int i = 0; i < N; i++) {
    if (i < nf) {
      x[i] = fixed[i];
      continue;
    }
    /* Exponents 2^-30..2^20 cover half subnormals, normals and overflow. */
    float m = 1.0f + (float)(lcg(&seed) & 0x7fffff) / 8388608.0f;
    int ex = (int)(lcg(&seed) % 51) - 30;
    x[i] = ((lcg(&seed) & 1) ? -1.0f : 1.0f) * ldexpf(m, ex);
  }
  int n = N;
  gpu_ptr dx = dev_buf(e, sizeof x, x), dhb = dev_buf(e, sizeof hb, NULL);
  gpu_ptr dhf = dev_buf(e, sizeof hf, NULL), dbb = dev_buf(e, sizeof bb, NULL);
  gpu_ptr dbf = dev_buf(e, sizeof bf, NULL);
  if (!dx || !dhb || !dhf || !dbb || !dbf) return GPU_FAIL;
  void *args[] = {&dx, &dhb, &dhf, &dbb, &dbf, &n};
  int st = launch(e, (gpu_dim3){N / 128, 1, 1}, (gpu_dim3){128, 1, 1}, 0, NULL, args);
  if (st != GPU_OK || (st = to_host(e, hb, dhb, sizeof hb)) ||
      (st = to_host(e, hf, dhf, sizeof hf)) || (st = to_host(e, bb, dbb, sizeof bb)) ||
      (st = to_host(e, bf, dbf, sizeof bf)))
    return st;
  for (int i = 0; i < N; i++) {
    uint16_t wh = f32_to_f16(x[i]), wb = f32_to_bf16(x[i]);
    if (hb[i] != wh) return fail(e, "fp16(%.9g) = 0x%04x, want 0x%04x", x[i], hb[i], wh);
    if (f2u(hf[i]) != f2u(f16_to_f32(wh)))
      return fail(e, "float(fp16(%.9g)) = %.9g, want %.9g", x[i], hf[i], f16_to_f32(wh));
    if (bb[i] != wb) return fail(e, "bf16(%.9g) = 0x%04x, want 0x%04x", x[i], bb[i], wb);
    if (f2u(bf[i]) != (uint32_t)wb << 16)
      return fail(e, "float(bf16(%.9g)) = %.9g, want %.9g", x[i], bf[i], u2f((uint32_t)wb << 16));
  }
  return GPU_OK;
}

/* ---- warp shuffle xor all-reduce ------------------------------------------ */

static const char WARP_CU[] =
    "extern \"C\" __global__ void warp_allreduce(const int *in, int *out) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  int v = in[i];\n"
    "  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);\n"
    "  out[i] = v;\n"
    "}\n";

static int run_warp(case_env *e) {
  enum { BLOCKS = 4, THREADS = 128, N = BLOCKS * THREADS };
  int in[N], out[N];
  uint32_t seed = 3;
  for (int i = 0; i < N; i++)
    in[i] = (int)(lcg(&seed) % 20001) - 10000;
  gpu_ptr din = dev_buf(e, sizeof in, in), dout = dev_buf(e, sizeof out, NULL);
  if (!din || !dout) return GPU_FAIL;
  void *args[] = {&din, &dout};
  int st = launch(e, (gpu_dim3){BLOCKS, 1, 1}, (gpu_dim3){THREADS, 1, 1}, 0, NULL, args);
  if (st != GPU_OK || (st = to_host(e, out, dout, sizeof out)) != GPU_OK) return st;
  for (int w = 0; w < N / 32; w++) {
    int sum = 0;
    for (int l = 0; l < 32; l++)
      sum += in[w * 32 + l];
    for (int l = 0; l < 32; l++)
      if (out[w * 32 + l] != sum)
        return fail(e, "warp %d lane %d: %d, want %d", w, l, out[w * 32 + l], sum);
  }
  return GPU_OK;
}

/* ---- shared-memory tree reduction ----------------------------------------- */

static const char BLOCK_SUM_CU[] =
    "extern \"C\" __global__ void block_sum(const float *in, float *out, int n) {\n"
    "  extern __shared__ float s[];\n"
    "  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;\n"
    "  s[t] = i < n ? in[i] : 0.0f;\n"
    "  __syncthreads();\n"
    "  for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
    "    if (t < k) s[t] += s[t + k];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (t == 0) out[blockIdx.x] = s[0];\n"
    "}\n";

static int run_block_sum(case_env *e) {
  enum { BLOCKS = 8, THREADS = 256, N = BLOCKS * THREADS - 37 }; /* a partial last block */
  static float in[N];
  float out[BLOCKS];
  uint32_t seed = 5;
  /* Small integers: every partial sum is exact, so order does not matter. */
  for (int i = 0; i < N; i++)
    in[i] = (float)((int)(lcg(&seed) % 201) - 100);
  int n = N;
  gpu_ptr din = dev_buf(e, sizeof in, in), dout = dev_buf(e, sizeof out, NULL);
  if (!din || !dout) return GPU_FAIL;
  void *args[] = {&din, &dout, &n};
  int st = launch(e, (gpu_dim3){BLOCKS, 1, 1}, (gpu_dim3){THREADS, 1, 1}, THREADS * sizeof(float),
                  NULL, args);
  if (st != GPU_OK || (st = to_host(e, out, dout, sizeof out)) != GPU_OK) return st;
  for (int b = 0; b < BLOCKS; b++) {
    float want = 0;
    for (int i = b * THREADS; i < (b + 1) * THREADS && i < N; i++)
      want += in[i];
    if (out[b] != want) return fail(e, "block %d: %.9g, want %.9g", b, out[b], want);
  }
  return GPU_OK;
}

/* ---- thread block clusters (sm_90+) --------------------------------------- */

static const char CLUSTER_CU[] =
    "extern \"C\" __global__ void cluster_rank(unsigned *out) {\n"
    "  unsigned r, nr;\n"
    "  asm volatile(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"(r));\n"
    "  asm volatile(\"mov.u32 %0, %%cluster_nctarank;\" : \"=r\"(nr));\n"
    "  if (threadIdx.x == 0) {\n"
    "    out[2 * blockIdx.x] = r;\n"
    "    out[2 * blockIdx.x + 1] = nr;\n"
    "  }\n"
    "}\n";

static int run_cluster(case_env *e) {
  enum { BLOCKS = 8, CLUSTER = 2 };
  unsigned out[2 * BLOCKS];
  gpu_ptr dout = dev_buf(e, sizeof out, NULL);
  if (!dout) return GPU_FAIL;
  void *args[] = {&dout};
  gpu_dim3 cluster = {CLUSTER, 1, 1};
  int st = launch(e, (gpu_dim3){BLOCKS, 1, 1}, (gpu_dim3){32, 1, 1}, 0, &cluster, args);
  if (st != GPU_OK || (st = to_host(e, out, dout, sizeof out)) != GPU_OK) return st;
  for (unsigned b = 0; b < BLOCKS; b++)
    if (out[2 * b] != b % CLUSTER || out[2 * b + 1] != CLUSTER)
      return fail(e, "block %u: cluster rank %u of %u, want %u of %u", b, out[2 * b],
                  out[2 * b + 1], b % CLUSTER, CLUSTER);
  return GPU_OK;
}

#include "pipeline_cases.inc"
#include "ptx_copy_cases.inc"
#include "ptx_memory_cases.inc"
#include "ptx_mma_cases.inc"
#include "ptx_tcgen05_cases.inc"
#include "conformance_cases.inc"

static const gpu_case CASES[] = {
    {"scale", "scale", SCALE_CU, 0, run_scale, NULL},
    {"floordiv_floormod", "floordiv_floormod", FLOORDIV_CU, 0, run_floordiv, NULL},
    {"half_roundtrip", "half_roundtrip", HALF_CU, 0, run_half, NULL},
    {"warp_allreduce", "warp_allreduce", WARP_CU, 0, run_warp, NULL},
    {"block_sum", "block_sum", BLOCK_SUM_CU, 0, run_block_sum, NULL},
    {"cluster_rank", "cluster_rank", CLUSTER_CU, 90, run_cluster, NULL},
    PIPELINE_CASES PTX_MMA_CASES PTX_COPY_CASES PTX_TCGEN05_CASES PTX_MEMORY_CASES
        CONFORMANCE_CASES};
enum { N_CASES = sizeof CASES / sizeof CASES[0] };

/* ---- running one case (in the child) -------------------------------------- */

/* The CUDA of a TIRx case: parse, run the lowering pipeline and the CUDA
 * code generator, exactly as `tirxc --emit=cuda` does. NULL after an error
 * (msg says which). The caller frees the result. */
static char *pipeline_cuda(const gpu_case *c, const char *arch, size_t *len, char *msg,
                           size_t cap) {
  tirx_ctx *ctx = NULL;
  tirx_module *mod = NULL;
  char *result = NULL;
  if (tirx_ctx_create(&ctx) != TIRX_OK) {
    snprintf(msg, cap, "out of memory");
    return NULL;
  }
  tirx_status st = tirx_parse_string(ctx, c->name, c->tirx, strlen(c->tirx), &mod);
  tx_strbuf out = {0};
  if (st == TIRX_OK) {
    tx_compile_request req;
    tx_compile_request_init(&req);
    req.emit = TX_EMIT_CUDA;
    req.pipeline.verify_each = 1;
    if (!tx_target_from_arch(arch, &req.target))
      st = TIRX_ERR_USAGE;
    else
      st = tx_compile_module(ctx, mod->mod, &req, NULL, &out);
  }
  if (st == TIRX_OK && tx_sb_cstr(&out)) {
    *len = out.len;
    result = out.data;
    out.data = NULL;
  } else {
    tx_strbuf sb = {0};
    tx_diag_render(ctx->diags, &sb);
    snprintf(msg, cap, "tirx-c pipeline (%s): %s", tirx_status_name(st),
             tx_sb_cstr(&sb) ? tx_sb_cstr(&sb) : "");
    tx_sb_free(&sb);
  }
  tx_sb_free(&out);
  tirx_ctx_destroy(ctx);
  return result;
}

/* A whole file (NULL when unreadable); the caller frees it. */
static char *read_file_text(const char *path, size_t *len) {
  tx_strbuf sb = {0};
  if (tx_sb_read_file(&sb, path)) {
    tx_sb_free(&sb);
    return NULL;
  }
  *len = sb.len;
  return sb.data;
}

/* Compile to PTX or a cubin for the device; GPU_SKIP when NVRTC is missing. */
static int compile(const char *src, size_t len, const char *arch, int sm, tx_nvrtc_output output,
                   tx_strbuf *image, char *msg, size_t cap) {
  tx_arena *arena = tx_arena_create(NULL);
  tx_diag_sink *diags = arena ? tx_diag_create(arena) : NULL;
  if (!diags) {
    tx_arena_destroy(arena);
    snprintf(msg, cap, "out of memory");
    return GPU_FAIL;
  }
  tx_target target = {arch, sm, 3, NULL};
  tx_nvrtc_options opts = {NULL, &target, output, 0};
  tirx_status st = tx_nvrtc_compile(diags, src, len, NULL, &opts, image, NULL);
  int r = GPU_OK;
  if (st != TIRX_OK) {
    tx_strbuf sb = {0};
    tx_diag_render(diags, &sb);
    const char *text = tx_sb_cstr(&sb);
    snprintf(msg, cap, "NVRTC: %s", text ? text : "(out of memory)");
    tx_sb_free(&sb);
    r = st == TIRX_ERR_IO ? GPU_SKIP : GPU_FAIL; /* IO: the toolkit is missing */
  }
  tx_diag_destroy(diags);
  tx_arena_destroy(arena);
  return r;
}

enum { CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222 };

static int run_case(const gpu_case *c, const char *cuda_dir, int print_device, char *msg,
                    size_t cap) {
  gpu_harness *g = NULL;
  int r = gpu_open(0, &g, msg, cap);
  if (r != GPU_OK) return r;
  if (print_device) {
    printf("# device: %s, cc %d.%d, NVRTC target %s, driver %d\n", gpu_device_name(g),
           gpu_cc_major(g), gpu_cc_minor(g), gpu_arch(g), gpu_driver_version(g));
    fflush(stdout);
  }
  int cc = gpu_cc_major(g) * 10 + gpu_cc_minor(g);
  char *file_src = NULL;
  size_t len = c->cuda ? strlen(c->cuda) : 0;
  const char *src = c->cuda;
  tx_strbuf image = {0};
  gpu_module *m = NULL;
  case_env e = {.g = g};
  if (c->min_cc && cc < c->min_cc) {
    snprintf(msg, cap, "needs compute capability %d.%d", c->min_cc / 10, c->min_cc % 10);
    r = GPU_SKIP;
    goto out;
  }
  if (cuda_dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.cu", cuda_dir, c->name);
    if ((file_src = read_file_text(path, &len))) src = file_src;
  }
  if (!file_src && c->tirx) {
    if (!(file_src = pipeline_cuda(c, gpu_arch(g), &len, msg, cap))) {
      r = GPU_FAIL;
      goto out;
    }
    src = file_src;
  }
  r = compile(src, len, gpu_arch(g), cc, NVRTC_PTX, &image, msg, cap);
  if (r != GPU_OK) goto out;
  r = gpu_load_module(g, tx_sb_cstr(&image), &m);
  if (r != GPU_OK && gpu_last_result(g) == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
    /* NVRTC is newer than the driver's PTX JIT: a cubin needs no JIT. */
    image.len = 0;
    r = compile(src, len, gpu_arch(g), cc, NVRTC_CUBIN, &image, msg, cap);
    if (r != GPU_OK) goto out;
    r = gpu_load_module(g, image.data, &m);
  }
  if (r != GPU_OK) {
    snprintf(msg, cap, "%s", gpu_error(g));
    goto out;
  }
  if (gpu_get_function(g, m, c->entry, &e.fn) != GPU_OK) {
    snprintf(msg, cap, "%s", gpu_error(g));
    r = GPU_FAIL;
    goto out;
  }
  r = c->run(&e);
  snprintf(msg, cap, "%s", e.msg);
out:
  for (int i = 0; i < e.nbufs; i++)
    gpu_free(g, e.bufs[i]);
  gpu_unload_module(g, m);
  gpu_close(g);
  tx_sb_free(&image);
  free(file_src);
  return r;
}

/* ---- the driver: each case in a forked child (child_runner.h) ------------- */

typedef struct case_job {
  const gpu_case *c;
  const char *cuda_dir;
  int first;
} case_job;

static int case_child(void *arg, char *msg, size_t cap) {
  const case_job *j = arg;
  int r = run_case(j->c, j->cuda_dir, j->first, msg, cap);
  return r == GPU_OK ? CHILD_PASS : r == GPU_SKIP ? CHILD_SKIP : CHILD_FAIL;
}

static void usage(FILE *f) {
  fprintf(f, "usage: test_gpu_kernels [--cuda-dir DIR] [--timeout SECONDS] [--list] [CASE...]\n"
             "       test_gpu_kernels --dump-cuda DIR\n"
             "       test_gpu_kernels --compile-only ARCH [--cuda-dir DIR]\n");
}

/* Compile every case for ARCH through NVRTC without touching a GPU, so the
 * kernels (and --cuda-dir replacements) are checked on build machines. */
static int compile_only(const char *arch, const char *cuda_dir) {
  int sm = 0, failed = 0, passed = 0, skipped = 0;
  if (sscanf(arch, "sm_%d", &sm) != 1) {
    fprintf(stderr, "test_gpu_kernels: bad arch '%s'\n", arch);
    return 2;
  }
  for (size_t i = 0; i < N_CASES; i++) {
    const gpu_case *c = &CASES[i];
    char path[4096], msg[4096];
    size_t len = c->cuda ? strlen(c->cuda) : 0;
    char *file_src = NULL;
    if (c->min_cc && sm < c->min_cc) {
      /* Codegen rejects what the arch lacks (tcgen05 below sm_100a). */
      skipped++, printf("SKIP %s [%s] (needs compute capability %d.%d)\n", c->name, arch,
                        c->min_cc / 10, c->min_cc % 10);
      continue;
    }
    if (cuda_dir) {
      snprintf(path, sizeof path, "%s/%s.cu", cuda_dir, c->name);
      if (!(file_src = read_file_text(path, &len))) len = c->cuda ? strlen(c->cuda) : 0;
    }
    if (!file_src && c->tirx) file_src = pipeline_cuda(c, arch, &len, msg, sizeof msg);
    tx_strbuf ptx = {0};
    int r = GPU_FAIL;
    if (file_src || c->cuda)
      r = compile(file_src ? file_src : c->cuda, len, arch, sm, NVRTC_PTX, &ptx, msg, sizeof msg);
    if (r == GPU_OK && !strstr(tx_sb_cstr(&ptx) ? tx_sb_cstr(&ptx) : "", c->entry)) {
      snprintf(msg, sizeof msg, "entry '%s' not in the PTX", c->entry);
      r = GPU_FAIL;
    }
    if (r == GPU_OK)
      passed++, printf("PASS %s [%s]\n", c->name, arch);
    else if (r == GPU_SKIP)
      skipped++, printf("SKIP %s [%s] (%s)\n", c->name, arch, msg);
    else
      failed++, printf("FAIL %s [%s]: %s\n", c->name, arch, msg);
    tx_sb_free(&ptx);
    free(file_src);
  }
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : passed ? 0 : EXIT_SKIP;
}

/* Write every built-in kernel as DIR/NAME.cu (for tests/cuda/ptxas_check.sh,
 * and as the starting point of a --cuda-dir replacement). */
static int dump_cuda(const char *dir) {
  for (size_t i = 0; i < N_CASES; i++) {
    char path[4096], msg[4096];
    size_t len = 0;
    /* A case for arch-specific instructions says so in its TIRx source;
     * ptxas_check.sh reads the marker from the .cu. */
    const char *only = CASES[i].tirx ? strstr(CASES[i].tirx, "# ptxas-archs: ") : NULL;
    /* TIRx cases are written as the pipeline generates them: for the first
     * arch of the marker (codegen rejects tcgen05 below sm_100a), else sm_90a. */
    char arch[16] = "sm_90a";
    if (only) sscanf(only + strlen("# ptxas-archs: "), "%15s", arch);
    char *generated = CASES[i].tirx ? pipeline_cuda(&CASES[i], arch, &len, msg, sizeof msg) : NULL;
    const char *text = CASES[i].tirx ? generated : CASES[i].cuda;
    if (!text) {
      fprintf(stderr, "test_gpu_kernels: %s: %s\n", CASES[i].name, msg);
      return 1;
    }
    snprintf(path, sizeof path, "%s/%s.cu", dir, CASES[i].name);
    FILE *f = fopen(path, "wb");
    int bad = !f;
    if (f && only) bad = fprintf(f, "// %.*s\n", (int)strcspn(only + 2, "\n"), only + 2) < 0;
    bad = bad || fputs(text, f) == EOF;
    if (f && fclose(f) != 0) bad = 1;
    free(generated);
    if (bad) {
      fprintf(stderr, "test_gpu_kernels: cannot write %s: %s\n", path, strerror(errno));
      return 1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *cuda_dir = NULL, *compile_arch = NULL;
  int timeout_s = 60, list = 0;
  const char *only[64];
  int nonly = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--cuda-dir") == 0 && i + 1 < argc)
      cuda_dir = argv[++i];
    else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
      timeout_s = atoi(argv[++i]);
    else if (strcmp(argv[i], "--list") == 0)
      list = 1;
    else if (strcmp(argv[i], "--compile-only") == 0 && i + 1 < argc)
      compile_arch = argv[++i];
    else if (strcmp(argv[i], "--dump-cuda") == 0 && i + 1 < argc)
      return dump_cuda(argv[++i]);
    else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (argv[i][0] == '-' || nonly == 64) {
      usage(stderr);
      return 2;
    } else
      only[nonly++] = argv[i];
  }
  if (timeout_s <= 0) timeout_s = 60;
  if (compile_arch) return compile_only(compile_arch, cuda_dir);
  for (int j = 0; j < nonly; j++) {
    int found = 0;
    for (size_t i = 0; i < N_CASES; i++)
      found |= strcmp(CASES[i].name, only[j]) == 0;
    if (!found) {
      fprintf(stderr, "test_gpu_kernels: no case named '%s' (see --list)\n", only[j]);
      return 2;
    }
  }
  child_tally tally = {0};
  int first = 1;
  for (size_t i = 0; i < N_CASES; i++) {
    const gpu_case *c = &CASES[i];
    int selected = nonly == 0;
    for (int j = 0; j < nonly; j++)
      selected |= strcmp(c->name, only[j]) == 0;
    if (!selected) continue;
    if (list) {
      printf("%s\n", c->name);
      continue;
    }
    char msg[4096];
    case_job job = {c, cuda_dir, first};
    int o = child_run(case_child, &job, timeout_s, msg, sizeof msg);
    first = 0;
    child_report(&tally, c->name, o, msg);
  }
  if (list) return 0;
  return child_summary(&tally);
}
