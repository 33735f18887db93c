/*
 * bench_memory.c - memory-bound kernels on the GPU: tile-primitive and
 * native TIRx versions of copy, cast, axpy, RMSNorm and softmax rows
 * (the .tirx files of bench/memory, 8192 x 8192 float16), against the device's own
 * copy bandwidth (cuMemcpyDtoDAsync of the same bytes).
 *
 *   bench_memory [-n ITERS] [-r BATCHES] DIR
 *
 * Each kernel is compiled with tirx_compile for the device's arch, run
 * once and checked against a CPU reference on sampled rows (a wrong kernel
 * is a failure, not a number), then timed: BATCHES batches of ITERS
 * back-to-back launches, wall clock between two context synchronizations,
 * the median batch divided by ITERS. Bandwidth counts each byte the kernel
 * must read or write once (DRAM traffic of an ideal kernel).
 *
 * Prints a table and one RESULT line per number for bench/run_memory.sh,
 * which runs bench/memory/torch_peer.py (PyTorch's ops on the same shapes)
 * in the same run. Exits 77 when there is no GPU. Not run by ctest.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/rt_internal.h"
#include "runtime/tensor.h"
#include "support/file.h"
#include "support/mem.h"
#include "tirx/tirx.h"

#include "bench/bench_stats.h"

enum { ROWS = 8192, COLS = 8192, MAXT = 4, OUT = MAXT - 1, CHECK_ROWS = 24 };
#define NELEM ((size_t)ROWS * COLS)

typedef enum op { OP_COPY, OP_CAST, OP_AXPY, OP_RMSNORM, OP_SOFTMAX } op;

/* A kernel's tensors, in parameter order: its flat element count and
 * dtype code (DLPack). The last one is the output, which lives in the last
 * buffer (OUT) whatever the count, so no kernel overwrites another's input. */
typedef struct kcase {
  const char *name; /* file stem and function name */
  op kind;
  int ntensors;
  size_t elems[MAXT];
  uint8_t code[MAXT]; /* kDLFloat or kDLBfloat */
  int has_alpha;
} kcase;

#define T2(a, b)                                                                                   \
  { a, b }
static const kcase CASES[] = {
    {"copy_tile", OP_COPY, 2, T2(NELEM, NELEM), T2(kDLFloat, kDLFloat), 0},
    {"copy_native", OP_COPY, 2, T2(NELEM, NELEM), T2(kDLFloat, kDLFloat), 0},
    {"cast_tile", OP_CAST, 2, T2(NELEM, NELEM), T2(kDLFloat, kDLBfloat), 0},
    {"cast_native", OP_CAST, 2, T2(NELEM, NELEM), T2(kDLFloat, kDLBfloat), 0},
    {"axpy_tile", OP_AXPY, 3, {NELEM, NELEM, NELEM}, {kDLFloat, kDLFloat, kDLFloat}, 1},
    {"axpy_native", OP_AXPY, 3, {NELEM, NELEM, NELEM}, {kDLFloat, kDLFloat, kDLFloat}, 1},
    {"rmsnorm_tile", OP_RMSNORM, 3, {NELEM, COLS, NELEM}, {kDLFloat, kDLFloat, kDLFloat}, 0},
    {"rmsnorm_native", OP_RMSNORM, 3, {NELEM, COLS, NELEM}, {kDLFloat, kDLFloat, kDLFloat}, 0},
    {"softmax_tile", OP_SOFTMAX, 2, T2(NELEM, NELEM), T2(kDLFloat, kDLFloat), 0},
    {"softmax_native", OP_SOFTMAX, 2, T2(NELEM, NELEM), T2(kDLFloat, kDLFloat), 0},
};
static const float ALPHA = 1.5f;

typedef struct bench {
  tirx_runtime *rt;
  tx_runtime *raw;
  void *dev[MAXT]; /* device buffers, NELEM 16-bit elements each */
  uint16_t *host[MAXT];
  uint16_t *out; /* the output read back */
  int iters, batches;
} bench;

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int fail(const char *what, const char *msg) {
  fprintf(stderr, "bench_memory: %s: %s\n", what, msg);
  return 1;
}

/* ---- 16-bit floats on the host (to them: runtime/tensor.h, round to nearest even) */

static float u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static float f16_to_f32(uint16_t h) {
  uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
  if (e == 0) return (s ? -1.0f : 1.0f) * ldexpf((float)m, -24);
  if (e == 31) return u2f(s | 0x7f800000u | (m << 13));
  return u2f(s | ((e + 112) << 23) | (m << 13));
}

/* ---- references on sampled rows ---------------------------------------- */

/* The rows checked: spread over the matrix, the first and last included. */
static size_t check_row(int k) {
  return (size_t)k * (ROWS - 1) / (CHECK_ROWS - 1);
}

/* Within `rel` of want, or `abs` of it (float16 rounding of small values). */
static int near(float got, double want, double rel, double abs) {
  return fabs((double)got - want) <= abs + rel * fabs(want);
}

static int check_row_values(const bench *b, const kcase *c, size_t r, double *rowbuf) {
  const uint16_t *x = b->host[0] + r * COLS, *y = b->out + r * COLS;
  double acc = 0, mx = -INFINITY;
  for (size_t j = 0; j < COLS; j++) {
    double v = f16_to_f32(x[j]);
    acc += c->kind == OP_RMSNORM ? v * v : 0;
    mx = v > mx ? v : mx;
  }
  double scale = c->kind == OP_RMSNORM ? 1.0 / sqrt(acc / COLS + 1e-6) : 0, sum = 0;
  if (c->kind == OP_SOFTMAX)
    for (size_t j = 0; j < COLS; j++)
      sum += rowbuf[j] = exp(f16_to_f32(x[j]) - mx);
  for (size_t j = 0; j < COLS; j++) {
    double v = f16_to_f32(x[j]), want = 0, rel = 4e-3, abs = 1e-3;
    float got = c->kind == OP_CAST ? u2f((uint32_t)y[j] << 16) : f16_to_f32(y[j]);
    switch (c->kind) {
    case OP_COPY:
      if (y[j] != x[j]) goto bad;
      continue;
    case OP_CAST:
      if (y[j] != tx_dl_f32_to_bf16((float)v)) goto bad;
      continue;
    case OP_AXPY:
      want = (double)f16_to_f32(tx_dl_f32_to_f16(ALPHA)) * v + f16_to_f32(b->host[1][r * COLS + j]);
      break;
    case OP_RMSNORM:
      want = v * scale * f16_to_f32(b->host[1][j]);
      break;
    case OP_SOFTMAX:
      want = rowbuf[j] / sum;
      abs = 1e-7; /* outputs near 1/8192: float16 spacing there is 6e-8 */
      break;
    }
    if (near(got, want, rel, abs)) continue;
  bad:
    fprintf(stderr, "bench_memory: %s: row %zu col %zu = %.6g, want %.6g\n", c->name, r, j, got,
            c->kind == OP_COPY || c->kind == OP_CAST ? v : want);
    return 1;
  }
  return 0;
}

static int check(bench *b, const kcase *c) {
  tx_rt_error re = {0};
  size_t bytes = c->elems[c->ntensors - 1] * 2;
  if (tx_rt_copy(b->raw, b->out, b->dev[OUT], bytes, TX_COPY_D2H, NULL, &re) != TIRX_OK)
    return fail(c->name, re.message);
  double *rowbuf = malloc(COLS * sizeof *rowbuf);
  if (!rowbuf) return fail(c->name, "out of memory");
  int bad = 0;
  for (int k = 0; k < CHECK_ROWS && !bad; k++)
    bad = check_row_values(b, c, check_row(k), rowbuf);
  free(rowbuf);
  return bad;
}

/* ---- compile, run, time ------------------------------------------------ */

/* The median over batches of the microseconds one call of `fn` takes.
 * fn(ctx) enqueues one launch and returns 0. */
static int time_calls(bench *b, int (*fn)(void *), void *ctx, double *us) {
  double t[64];
  tx_rt_error re = {0};
  int nb = b->batches > 64 ? 64 : b->batches;
  for (int k = -1; k < nb; k++) { /* one warm-up batch */
    tx_rt_synchronize(b->raw, NULL, &re);
    double t0 = now_us();
    for (int i = 0; i < b->iters; i++)
      if (fn(ctx)) return 1;
    if (tx_rt_synchronize(b->raw, NULL, &re) != TIRX_OK) return fail("synchronize", re.message);
    if (k >= 0) t[k] = (now_us() - t0) / b->iters;
  }
  *us = bench_median(t, nb);
  return 0;
}

typedef struct call_ctx {
  tirx_function *fn;
  tirx_arg args[MAXT + 1];
  size_t nargs;
} call_ctx;

static int call_once(void *p) {
  call_ctx *c = p;
  tirx_error err = {0};
  if (tirx_function_call(c->fn, c->args, c->nargs, NULL, &err) != TIRX_OK)
    return fail("tirx_function_call", err.message);
  return 0;
}

static size_t bytes_moved(const kcase *c) {
  size_t n = 0;
  for (int i = 0; i < c->ntensors; i++)
    n += c->elems[i] * 2;
  return n;
}

static int run_case(bench *b, const char *dir, const kcase *c) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.tirx", dir, c->name);
  size_t len = 0;
  char *text = NULL;
  if (tx_read_file(NULL, path, &text, &len) != 0) return fail(path, "cannot read");
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.arch = tirx_runtime_arch(b->rt);
  tirx_executable *exe = NULL;
  tirx_loaded *lm = NULL;
  tirx_error err = {0};
  call_ctx cc = {0};
  int rc = 1;
  if (tirx_compile(path, text, len, &o, &exe, &err) != TIRX_OK ||
      tirx_runtime_load(b->rt, exe, &lm, &err) != TIRX_OK ||
      tirx_loaded_function(lm, c->name, &cc.fn, &err) != TIRX_OK) {
    fail(c->name, err.message);
    goto done;
  }
  int64_t shapes[MAXT][1];
  DLTensor t[MAXT];
  for (int i = 0; i < c->ntensors; i++) {
    shapes[i][0] = (int64_t)c->elems[i];
    t[i] = (DLTensor){.data = b->dev[i + 1 == c->ntensors ? OUT : i],
                      .device = {kDLCUDA, 0},
                      .ndim = 1,
                      .dtype = {c->code[i], 16, 1},
                      .shape = shapes[i]};
    cc.args[cc.nargs++] = (tirx_arg){TIRX_ARG_TENSOR, {.tensor = &t[i]}};
  }
  /* 2-D parameters take 2-D tensors: the flat ones reshaped. */
  int64_t shape2[2] = {ROWS, COLS};
  for (int i = 0; i < c->ntensors; i++)
    if (c->elems[i] == NELEM && strstr(c->name, "_tile")) t[i].ndim = 2, t[i].shape = shape2;
  if (c->has_alpha) cc.args[cc.nargs++] = (tirx_arg){TIRX_ARG_FLOAT, {.f = ALPHA}};
  double us = 0;
  if (call_once(&cc) || check(b, c) || time_calls(b, call_once, &cc, &us)) goto done;
  double gbs = (double)bytes_moved(c) / us / 1e3;
  printf("%-16s %10.2f us %9.1f GB/s\n", c->name, us, gbs);
  printf("RESULT memory %s us %.3f\nRESULT memory %s gbs %.1f\n", c->name, us, c->name, gbs);
  rc = 0;
done:
  tirx_loaded_free(lm);
  tirx_executable_free(exe);
  tx_mem_free(NULL, text);
  return rc;
}

static int dtod_once(void *p) {
  bench *b = p;
  tx_rt_error re = {0};
  if (tx_rt_copy(b->raw, b->dev[OUT], b->dev[0], NELEM * 2, TX_COPY_D2D, NULL, &re) != TIRX_OK)
    return fail("cuMemcpyDtoD", re.message);
  return 0;
}

static int setup(bench *b) {
  tx_rt_error re = {0};
  uint32_t seed = 12345;
  b->out = malloc(NELEM * 2);
  if (!b->out) return fail("setup", "out of memory");
  for (int i = 0; i < MAXT; i++) {
    b->host[i] = malloc(NELEM * 2);
    if (!b->host[i]) return fail("setup", "out of memory");
    for (size_t k = 0; k < NELEM; k++) {
      seed = seed * 1664525u + 1013904223u;
      /* X in [-4, 4); the weight row (tensor 1 of rmsnorm) near 1 */
      float v = ((float)(seed >> 8) / 16777216.0f) * 8.0f - 4.0f;
      b->host[i][k] = tx_dl_f32_to_f16(i == 1 && k < COLS ? 1.0f + v / 16 : v);
    }
    if (tx_rt_alloc(b->raw, NELEM * 2, &b->dev[i], &re) != TIRX_OK ||
        tx_rt_copy(b->raw, b->dev[i], b->host[i], NELEM * 2, TX_COPY_H2D, NULL, &re) != TIRX_OK)
      return fail("setup", re.message);
  }
  return 0;
}

int main(int argc, char **argv) {
  bench b = {.iters = 20, .batches = 7};
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
      b.iters = atoi(argv[++i]);
    else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
      b.batches = atoi(argv[++i]);
    else
      break;
  }
  if (i + 1 != argc || b.iters < 1 || b.batches < 1) {
    fprintf(stderr, "usage: bench_memory [-n ITERS] [-r BATCHES] DIR\n");
    return 2;
  }
  tirx_error err = {0};
  tx_rt_error re = {0};
  if (tirx_runtime_open(0, &b.rt, &err) != TIRX_OK) {
    printf("bench_memory: skipped, no CUDA GPU (%s)\n", err.message);
    return 77;
  }
  if (tx_rt_open(0, &b.raw, &re) != TIRX_OK) return fail("runtime", re.message);
  printf("# device: %s (%s); %d x %d float16; median of %d batches of %d launches\n",
         tx_rt_device_name(b.raw), tirx_runtime_arch(b.rt), ROWS, COLS, b.batches, b.iters);
  if (setup(&b)) return 1;
  double us = 0;
  if (time_calls(&b, dtod_once, &b, &us)) return 1;
  printf("%-16s %10.2f us %9.1f GB/s\n", "cuMemcpyDtoD", us, 2.0 * NELEM * 2 / us / 1e3);
  printf("RESULT memory dtod us %.3f\nRESULT memory dtod gbs %.1f\n", us,
         2.0 * NELEM * 2 / us / 1e3);
  int rc = 0;
  for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++)
    rc |= run_case(&b, argv[i], &CASES[k]);
  for (int k = 0; k < MAXT; k++) {
    tx_rt_free(b.raw, b.dev[k], &re);
    free(b.host[k]);
  }
  free(b.out);
  tx_rt_close(b.raw);
  tirx_runtime_close(b.rt);
  return rc;
}
