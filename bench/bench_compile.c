/*
 * bench_compile.c - compile latency of tirx-c per kernel, text to PTX.
 *
 *   bench_compile [-n N] [--arch ARCH] [--cuda-dir DIR] [--cuda-path ROOT] [-v]
 *                 [--no-nvrtc] FILE...
 *
 * For each FILE, runs N iterations (default 20), each in a fresh context:
 * tirx_parse_string (the frontend: lex+parse+build), then tx_compile_module
 * with TX_EMIT_PTX for ARCH (default sm_90a), whose stats split the rest into
 * passes (the pipeline, verification included), codegen (lowered IR -> CUDA
 * C) and NVRTC (CUDA C -> PTX). Prints one row of medians per kernel:
 * tirx-c's own time (frontend + passes + codegen), NVRTC, and the own share
 * of the whole text -> PTX time. The first, cold iteration is in the medians
 * too (it is one of N) and is also reported on its own. Then N more
 * iterations stop after codegen (no NVRTC in between, so warm caches): their
 * median own time is the "own hot" column. With -v, the median of each pass
 * follows each row. --no-nvrtc runs only the hot iterations (for profiling
 * tirx-c's own stages; the NVRTC columns are then 0).
 *
 * With --cuda-dir, each kernel's CUDA C (the text NVRTC compiles) is written
 * to DIR/<stem>.cu, for bench/run_compile.sh to time `nvcc -ptx` on it.
 * Machine-readable `RESULT <stem> key value` lines come last. Exit status:
 * 0 ok, 1 a kernel failed to compile, 2 bad usage, 4 out of memory, 5 a file
 * could not be read or written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver/context.h" /* tirx_module.mod and the frontend's stage split: internal */
#include "driver/compile.h"
#include "support/strbuf.h"
#include "support/clock.h"
#include "tirx/tirx.h"

#include "bench/bench_stats.h"

#define MAX_ITERS BENCH_MAX_SAMPLES
#define MAX_FILES 64

/* "dir/name.tirx" -> "name" into out. */
static void stem_of(const char *path, char *out, size_t cap) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (n > 5 && strcmp(base + n - 5, ".tirx") == 0) n -= 5;
  if (n >= cap) n = cap - 1;
  memcpy(out, base, n);
  out[n] = '\0';
}

typedef struct opts {
  int iters, verbose, no_nvrtc;
  const char *arch, *cuda_dir, *cuda_path;
  const char *files[MAX_FILES];
  int nfiles;
} opts;

typedef struct sample {
  double fe, parse, build, passes, codegen, nvrtc, own, total;
  double own_hot; /* own, from the runs without NVRTC (bench_file sets it in the median) */
  double pass[TX_PASS_COUNT + 1];
} sample;

/* One text -> PTX compile of text in a fresh context. Returns a tirx_status. */
static int compile_once(const opts *o, const char *path, const char *text, size_t len,
                        tx_emit_kind emit, sample *s, tx_strbuf *out) {
  tirx_ctx *ctx = NULL;
  if (tirx_ctx_create(&ctx) != TIRX_OK) return TIRX_ERR_NOMEM;
  tx_compile_request req;
  tx_compile_request_init(&req);
  req.emit = emit;
  tx_target_from_arch(o->arch, &req.target);
  req.cuda_path = o->cuda_path;
  tx_compile_stats stats = {0};
  tirx_module *mod = NULL;
  double t0 = tx_now_ms();
  tirx_status st = tirx_parse_string(ctx, path, text, len, &mod);
  double t1 = tx_now_ms();
  double t2 = t1;
  if (st == TIRX_OK) {
    st = tx_compile_module(ctx, mod->mod, &req, &stats, out);
    t2 = tx_now_ms();
  }
  if (st != TIRX_OK) {
    fprintf(stderr, "bench_compile: %s: %s\n", path, tirx_status_name(st));
    tirx_diag_render_file(ctx, stderr);
  } else if (s) {
    tx_timings t;
    tx_ctx_last_timings(ctx, &t);
    s->fe = t1 - t0;
    s->parse = t.parse_ms;
    s->build = t.build_ms;
    s->passes = stats.pipeline_ms;
    s->codegen = stats.codegen_ms;
    s->nvrtc = stats.nvrtc_ms;
    s->own = s->fe + s->passes + s->codegen;
    s->total = t2 - t0; /* the whole text -> PTX, glue between stages included */
    for (int i = 0; i <= TX_PASS_COUNT; i++)
      s->pass[i] = i < TX_PASS_COUNT && !stats.pass_ran[i] ? 0 : stats.pass_ms[i];
  }
  tirx_ctx_destroy(ctx);
  return (int)st;
}

static int write_cuda(const opts *o, const char *path, const char *stem, const char *text,
                      size_t len) {
  tx_strbuf cu = {0};
  int st = compile_once(o, path, text, len, TX_EMIT_CUDA, NULL, &cu);
  if (st == TIRX_OK && cu.failed) st = TIRX_ERR_NOMEM;
  if (st == TIRX_OK) {
    char name[4096];
    snprintf(name, sizeof name, "%s/%s.cu", o->cuda_dir, stem);
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(cu.data, 1, cu.len, f) != cu.len) {
      fprintf(stderr, "bench_compile: cannot write '%s': %s\n", name, strerror(errno));
      st = 5;
    }
    if (f && fclose(f) != 0) st = 5;
  }
  tx_sb_free(&cu);
  return st;
}

#define MED(field)                                                                                 \
  do {                                                                                             \
    for (int i = 0; i < o->iters; i++)                                                             \
      v[i] = s[i].field;                                                                           \
    m->field = bench_median(v, o->iters);                                                          \
  } while (0)

static int bench_file(const opts *o, const char *path, sample *m, sample *cold, size_t *lines) {
  char *text = NULL;
  size_t len = 0;
  tx_strbuf file = {0};
  int err = tx_sb_read_file(&file, path);
  text = file.data;
  len = file.len;
  if (err) {
    fprintf(stderr, "bench_compile: cannot read '%s': %s\n", path, strerror(err));
    return 5;
  }
  *lines = 0;
  for (size_t i = 0; i < len; i++)
    *lines += text[i] == '\n';
  static sample s[MAX_ITERS];
  double v[MAX_ITERS];
  int st = TIRX_OK;
  for (int it = 0; it < o->iters && st == TIRX_OK && !o->no_nvrtc; it++) {
    tx_strbuf ptx = {0};
    st = compile_once(o, path, text, len, TX_EMIT_PTX, &s[it], &ptx);
    if (st == TIRX_OK && (ptx.failed || ptx.len == 0)) st = TIRX_ERR_NOMEM;
    tx_sb_free(&ptx);
  }
  if (st == TIRX_OK && !o->no_nvrtc) {
    *cold = s[0];
    MED(fe);
    MED(parse);
    MED(build);
    MED(passes);
    MED(codegen);
    MED(nvrtc);
    MED(own);
    MED(total);
    for (int p = 0; p <= TX_PASS_COUNT; p++)
      MED(pass[p]);
  }
  /* The same stages again, N times back to back with no NVRTC in between
   * (TX_EMIT_CUDA): NVRTC evicts tirx-c's code and data from the caches, so
   * this is tirx-c's time with warm caches, for comparison. */
  for (int it = 0; it < o->iters && st == TIRX_OK; it++) {
    tx_strbuf cu = {0};
    st = compile_once(o, path, text, len, TX_EMIT_CUDA, &s[it], &cu);
    if (st == TIRX_OK && cu.failed) st = TIRX_ERR_NOMEM;
    tx_sb_free(&cu);
  }
  if (st == TIRX_OK) {
    for (int i = 0; i < o->iters; i++)
      v[i] = s[i].own;
    m->own_hot = bench_median(v, o->iters);
  }
  if (st == TIRX_OK && o->cuda_dir) {
    char stem[256];
    stem_of(path, stem, sizeof stem);
    st = write_cuda(o, path, stem, text, len);
  }
  free(text);
  return st == TIRX_OK ? 0 : st == 5 ? 5 : st == TIRX_ERR_NOMEM ? 4 : 1;
}

static const char usage[] =
    "usage: bench_compile [-n N] [--arch ARCH] [--cuda-dir DIR] [--cuda-path ROOT] [-v]\n"
    "                     [--no-nvrtc] FILE...";

static int parse_args(int argc, char **argv, opts *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (strcmp(a, "-n") == 0 && more) {
      o->iters = atoi(argv[++i]);
    } else if (strcmp(a, "--arch") == 0 && more) {
      o->arch = argv[++i];
    } else if (strcmp(a, "--cuda-dir") == 0 && more) {
      o->cuda_dir = argv[++i];
    } else if (strcmp(a, "--cuda-path") == 0 && more) {
      o->cuda_path = argv[++i];
    } else if (strcmp(a, "--no-nvrtc") == 0) {
      o->no_nvrtc = 1;
    } else if (strcmp(a, "-v") == 0) {
      o->verbose = 1;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      puts(usage);
      return 0;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "bench_compile: unknown option '%s'\n%s\n", a, usage);
      return 2;
    } else if (o->nfiles < MAX_FILES) {
      o->files[o->nfiles++] = a;
    } else {
      fprintf(stderr, "bench_compile: at most %d files\n", MAX_FILES);
      return 2;
    }
  }
  tx_target t;
  if (!o->nfiles || o->iters < 1 || o->iters > MAX_ITERS || !tx_target_from_arch(o->arch, &t)) {
    fprintf(stderr, "%s\n  (1 <= N <= %d; ARCH one of: %s)\n", usage, MAX_ITERS,
            tx_target_arch_list());
    return 2;
  }
  return -1;
}

int main(int argc, char **argv) {
  opts o = {.iters = 20, .arch = "sm_90a"};
  int rc = parse_args(argc, argv, &o);
  if (rc >= 0) return rc;

  static sample med[MAX_FILES], cold[MAX_FILES];
  size_t lines[MAX_FILES];
  for (int f = 0; f < o.nfiles; f++) {
    rc = bench_file(&o, o.files[f], &med[f], &cold[f], &lines[f]);
    if (rc) return rc;
  }

  printf("tirx-c %s: text -> PTX for %s, %d iterations per kernel, medians in ms\n", tirx_version(),
         o.arch, o.iters);
  printf("%-28s %6s %9s %9s %9s %9s %9s %9s %7s %9s\n", "kernel", "lines", "frontend", "passes",
         "codegen", "own", "nvrtc", "total", "own %", "own hot");
  for (int f = 0; f < o.nfiles; f++) {
    char stem[256];
    stem_of(o.files[f], stem, sizeof stem);
    const sample *m = &med[f];
    printf("%-28s %6zu %9.3f %9.3f %9.3f %9.3f %9.2f %9.2f %6.2f%% %9.3f\n", stem, lines[f], m->fe,
           m->passes, m->codegen, m->own, m->nvrtc, m->total,
           m->total > 0 ? 100.0 * m->own / m->total : 0.0, m->own_hot);
    if (o.verbose) {
      printf("    frontend: lex+parse %.3f, build %.3f; cold (first) iteration: own %.3f, nvrtc "
             "%.2f\n    passes:",
             m->parse, m->build, cold[f].own, cold[f].nvrtc);
      for (int p = 0; p < TX_PASS_COUNT; p++)
        if (m->pass[p] > 0) printf(" %s %.3f", tx_pass_name((tx_pass_id)p), m->pass[p]);
      printf(" (verify %.3f)\n", m->pass[TX_PASS_COUNT]);
    }
  }
  printf("own = frontend + passes + codegen; total = the whole text -> PTX (own + NVRTC + glue);\n"
         "own hot = own with no NVRTC between iterations (warm caches)\n");

  for (int f = 0; f < o.nfiles; f++) {
    char stem[256];
    stem_of(o.files[f], stem, sizeof stem);
    const sample *m = &med[f];
    printf("RESULT %s lines %zu\n", stem, lines[f]);
    printf("RESULT %s frontend_ms %.4f\n", stem, m->fe);
    printf("RESULT %s lexparse_ms %.4f\n", stem, m->parse);
    printf("RESULT %s build_ms %.4f\n", stem, m->build);
    printf("RESULT %s passes_ms %.4f\n", stem, m->passes);
    printf("RESULT %s codegen_ms %.4f\n", stem, m->codegen);
    printf("RESULT %s own_ms %.4f\n", stem, m->own);
    printf("RESULT %s nvrtc_ms %.4f\n", stem, m->nvrtc);
    printf("RESULT %s total_ms %.4f\n", stem, m->total);
    printf("RESULT %s own_hot_ms %.4f\n", stem, m->own_hot);
    printf("RESULT %s cold_own_ms %.4f\n", stem, cold[f].own);
    printf("RESULT %s cold_nvrtc_ms %.4f\n", stem, cold[f].nvrtc);
  }
  return 0;
}
