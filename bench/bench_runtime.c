/*
 * bench_runtime.c - host launch overhead and compile latency of the runtime.
 *
 *   bench_runtime [-n LAUNCHES] [--cache-dir DIR] [FILE.tirx ...]
 *
 * 1. Launch overhead: the same kernel (scale_dyn, 1M floats) launched by
 *    tirx_function_call (argument checks + cuLaunchKernelEx) and by a raw
 *    cuLaunchKernelEx of the same CUfunction with the same arguments, in the
 *    same process, interleaved in batches. Reported: host microseconds per
 *    launch (the time to enqueue; batches are synchronized outside the timed
 *    region), medians over batches.
 * 2. Compile latency per kernel: cold (text to loaded module, no cache),
 *    NVRTC's own share of that, and warm (a disk-cache hit in a fresh
 *    in-memory state, then load).
 *
 * Prints one RESULT line per number for bench/run_runtime.sh. Exits 77 when
 * there is no GPU (nothing to measure).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver/context.h"
#include "support/strbuf.h"
#include "driver/compile.h"
#include "runtime/rt_internal.h"
#include "tirx/tirx.h"

#include "bench/bench_stats.h"

enum { BATCH = 256, BATCHES = 40 };

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static const char SCALE_DYN[] = "n = T.int32()\n\n"
                                "@T.prim_func\n"
                                "def scale_dyn(A: T.Buffer((n,), \"float32\"), "
                                "B: T.Buffer((n,), \"float32\")):\n"
                                "    T.device_entry()\n"
                                "    bx = T.cta_id([1024])\n"
                                "    tx = T.thread_id([256])\n"
                                "    i: T.int32 = bx * 256 + tx\n"
                                "    if i < n:\n"
                                "        B[i] = A[i] * T.float32(2.0)\n";

typedef struct bench {
  tirx_runtime *rt;
  tx_runtime *raw;
  tirx_function *fn;
  tx_rt_function *kernel;
  DLTensor a, b;
  int64_t shape[1];
  int n;
} bench;

static int fail(const char *what, const char *msg) {
  fprintf(stderr, "bench_runtime: %s: %s\n", what, msg);
  return 1;
}

/* Batches of launches through the public API and raw, interleaved so that
 * both see the same machine state. */
static int measure_launch(bench *bm) {
  tirx_arg args[2] = {{TIRX_ARG_TENSOR, {.tensor = &bm->a}}, {TIRX_ARG_TENSOR, {.tensor = &bm->b}}};
  void *pa = bm->a.data, *pb = bm->b.data;
  int n = bm->n;
  void *raw_args[3] = {&pa, &pb, &n};
  tx_cu_launch_config lc = {.gridDimX = 1024,
                            .gridDimY = 1,
                            .gridDimZ = 1,
                            .blockDimX = 256,
                            .blockDimY = 1,
                            .blockDimZ = 1};
  double api[BATCHES], raw[BATCHES];
  tirx_error err = {0};
  tx_rt_error re = {0};
  for (int b = -2; b < BATCHES; b++) { /* two warm-up batches */
    double t0 = now_us();
    for (int i = 0; i < BATCH; i++)
      if (tirx_function_call(bm->fn, args, 2, NULL, &err) != TIRX_OK)
        return fail("tirx_function_call", err.message);
    double t1 = now_us();
    tx_rt_synchronize(bm->raw, NULL, &re);
    double t2 = now_us();
    for (int i = 0; i < BATCH; i++)
      if (bm->raw->cu.LaunchKernelEx(&lc, bm->kernel->fn, raw_args, NULL) != 0)
        return fail("cuLaunchKernelEx", "failed");
    double t3 = now_us();
    tx_rt_synchronize(bm->raw, NULL, &re);
    if (b >= 0) {
      api[b] = (t1 - t0) / BATCH;
      raw[b] = (t3 - t2) / BATCH;
    }
  }
  double ma = bench_median(api, BATCHES), mr = bench_median(raw, BATCHES);
  printf("launch: tirx_function_call %.3f us, raw cuLaunchKernelEx %.3f us, extra %.3f us "
         "(medians of %d batches of %d)\n",
         ma, mr, ma - mr, BATCHES, BATCH);
  printf("RESULT launch api_us %.4f\nRESULT launch raw_us %.4f\nRESULT launch extra_us %.4f\n", ma,
         mr, ma - mr);
  return 0;
}

static int setup_launch(bench *bm) {
  tirx_error err = {0};
  tx_rt_error re = {0};
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.arch = tirx_runtime_arch(bm->rt);
  tirx_executable *exe = NULL;
  tirx_loaded *lm = NULL;
  if (tirx_compile("scale_dyn.tirx", SCALE_DYN, strlen(SCALE_DYN), &o, &exe, &err) != TIRX_OK ||
      tirx_runtime_load(bm->rt, exe, &lm, &err) != TIRX_OK ||
      tirx_loaded_function(lm, "scale_dyn", &bm->fn, &err) != TIRX_OK)
    return fail("compile", err.message);
  /* The raw side loads the same PTX on its own runtime handle. */
  size_t len = 0;
  const char *ptx = tirx_executable_ptx(exe, &len);
  tx_rt_module *m = NULL;
  if (tx_rt_module_load(bm->raw, ptx, len + 1, &m, &re) != TIRX_OK ||
      tx_rt_get_function(bm->raw, m, "scale_dyn_kernel", &bm->kernel, &re) != TIRX_OK)
    return fail("load", re.message);
  bm->n = 1 << 18;
  bm->shape[0] = bm->n;
  void *da = NULL, *db = NULL;
  if (tx_rt_alloc(bm->raw, (size_t)bm->n * 4, &da, &re) != TIRX_OK ||
      tx_rt_alloc(bm->raw, (size_t)bm->n * 4, &db, &re) != TIRX_OK)
    return fail("alloc", re.message);
  bm->a = (DLTensor){.data = da,
                     .device = {kDLCUDA, 0},
                     .ndim = 1,
                     .dtype = {kDLFloat, 32, 1},
                     .shape = bm->shape};
  bm->b = bm->a;
  bm->b.data = db;
  return 0; /* exe/lm live until exit: the benchmark is one process */
}

/* NVRTC's own time for the kernel's CUDA (the stage tirx-c cannot shrink),
 * from the compile driver's stage timings. */
static double nvrtc_ms(const char *name, const char *text, size_t len, const char *arch) {
  tirx_ctx *ctx = NULL;
  tirx_module *m = NULL;
  double ms = -1;
  if (tirx_ctx_create(&ctx) != TIRX_OK) return ms;
  if (tirx_parse_string(ctx, name, text, len, &m) == TIRX_OK) {
    tx_compile_request req;
    tx_compile_request_init(&req);
    req.emit = TX_EMIT_PTX;
    tx_target_from_arch(arch, &req.target);
    tx_compile_stats stats = {0};
    tx_strbuf out = {0};
    if (tx_compile_module(ctx, m->mod, &req, &stats, &out) == TIRX_OK) ms = stats.nvrtc_ms;
    tx_sb_free(&out);
  }
  tirx_ctx_destroy(ctx);
  return ms;
}

/* Cold: text to a loaded module with no cache; warm: the same through a
 * disk cache that already holds it (a new in-memory state each time). */
static int measure_compile(bench *bm, const char *path, const char *cache_dir, int reps) {
  tx_strbuf file = {0};
  if (tx_sb_read_file(&file, path)) {
    tx_sb_free(&file);
    return fail(path, "cannot read");
  }
  char *text = file.data;
  size_t len = file.len;
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  double cold[16], warm[16], nv[16];
  tirx_error err = {0};
  if (reps > 16) reps = 16;
  for (int r = 0; r < reps; r++) {
    nv[r] = nvrtc_ms(base, text, len, tirx_runtime_arch(bm->rt));
    for (int w = 0; w < 2; w++) {
      tirx_compile_options o;
      tirx_compile_options_init(&o);
      o.arch = tirx_runtime_arch(bm->rt);
      o.disk_cache = w;
      o.cache_dir = cache_dir;
      tirx_executable *exe = NULL;
      tirx_loaded *lm = NULL;
      double t0 = now_us();
      if (tirx_compile(base, text, len, &o, &exe, &err) != TIRX_OK ||
          tirx_runtime_load(bm->rt, exe, &lm, &err) != TIRX_OK) {
        free(text);
        return fail(base, err.message);
      }
      double t = (now_us() - t0) / 1e3;
      if (w && !tirx_executable_from_cache(exe) && r > 0) {
        free(text);
        return fail(base, "the warm compile missed the cache");
      }
      (w ? warm : cold)[r] = t;
      tirx_loaded_free(lm);
      tirx_executable_free(exe);
    }
  }
  /* The first warm run filled the cache; report the hits only. */
  double mc = bench_median(cold, reps), mw = bench_median(warm + 1, reps - 1),
         mn = bench_median(nv, reps);
  printf("compile %-24s cold %8.3f ms  NVRTC alone %8.3f ms  cold/NVRTC %.2fx  warm (cache hit) "
         "%6.3f ms\n",
         base, mc, mn, mc / mn, mw);
  printf("RESULT compile %s cold_ms %.4f\nRESULT compile %s nvrtc_ms %.4f\n"
         "RESULT compile %s warm_ms %.4f\n",
         base, mc, base, mn, base, mw);
  free(text);
  return 0;
}

int main(int argc, char **argv) {
  const char *cache_dir = "/tmp/tirx-bench-cache";
  int first_file = 1, reps = 7;
  for (; first_file < argc && argv[first_file][0] == '-'; first_file++) {
    if (strcmp(argv[first_file], "--cache-dir") == 0 && first_file + 1 < argc)
      cache_dir = argv[++first_file];
    else if (strcmp(argv[first_file], "-n") == 0 && first_file + 1 < argc)
      reps = atoi(argv[++first_file]);
    else {
      fprintf(stderr, "usage: bench_runtime [-n REPS] [--cache-dir DIR] [FILE.tirx ...]\n");
      return 2;
    }
  }
  if (reps < 2) reps = 2;
  bench bm = {0};
  tirx_error err = {0};
  tx_rt_error re = {0};
  if (tirx_runtime_open(0, &bm.rt, &err) != TIRX_OK) {
    printf("bench_runtime: skipped, no CUDA GPU (%s)\n", err.message);
    return 77;
  }
  if (tx_rt_open(0, &bm.raw, &re) != TIRX_OK) return fail("runtime", re.message);
  printf("# device: %s (%s)\n", tx_rt_device_name(bm.raw), tirx_runtime_arch(bm.rt));
  if (setup_launch(&bm) || measure_launch(&bm)) return 1;
  for (int i = first_file; i < argc; i++)
    if (measure_compile(&bm, argv[i], cache_dir, reps)) return 1;
  return 0;
}
