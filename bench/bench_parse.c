/*
 * bench_parse.c - parse and print throughput of libtirx on one file.
 *
 *   bench_parse FILE [-n N]
 *
 * Reads FILE once, then runs N iterations (default 5), each in a fresh
 * context: tirx_parse_string (text -> checked IR) and tirx_module_print (IR ->
 * canonical text, into a caller buffer). Prints the median of each stage in
 * ms, MB/s and lines/s, the arena bytes the parse used and the peak RSS, and
 * checks that the print equals the input byte for byte (it does for a
 * canonical input such as bench/gen_module.py's output).
 *
 * The last lines are machine-readable `RESULT key value` pairs for
 * bench/run.sh. Exit status: 0 ok, 1 the input failed to parse or print,
 * 2 bad usage, 5 the file could not be read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "ir/arena.h"
#include "driver/context.h" /* stage split (ctx->last) and arena bytes: internal */
#include "support/strbuf.h"
#include "support/clock.h"
#include "tirx/tirx.h"

#include "bench/bench_stats.h"

#define MAX_ITERS BENCH_MAX_SAMPLES

static double min_of(const double *v, int n) {
  double m = v[0];
  for (int i = 1; i < n; i++)
    if (v[i] < m) m = v[i];
  return m;
}

static long peak_rss_kib(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1; /* KiB on Linux */
}

static void row(const char *stage, double ms, double best, size_t bytes, size_t lines) {
  double s = ms / 1e3;
  printf("  %-22s %10.2f %10.2f %10.2f %12.0f\n", stage, ms, best, (double)bytes / 1e6 / s,
         (double)lines / s);
}

int main(int argc, char **argv) {
  const char *path = NULL;
  int iters = 5;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
      iters = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      puts("usage: bench_parse FILE [-n N]");
      return 0;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "bench_parse: unknown option '%s'\nusage: bench_parse FILE [-n N]\n",
              argv[i]);
      return 2;
    } else {
      path = argv[i];
    }
  }
  if (!path || iters < 1 || iters > MAX_ITERS) {
    fprintf(stderr, "usage: bench_parse FILE [-n N]   (1 <= N <= %d)\n", MAX_ITERS);
    return 2;
  }

  char *text = NULL;
  size_t len = 0;
  tx_strbuf file = {0};
  int err = tx_sb_read_file(&file, path);
  text = file.data;
  len = file.len;
  if (err) {
    fprintf(stderr, "bench_parse: cannot read '%s': %s\n", path, strerror(err));
    return 5;
  }
  size_t lines = 0;
  for (size_t i = 0; i < len; i++)
    lines += text[i] == '\n';
  long rss_before = peak_rss_kib();

  /* The output buffer is allocated once and grown only when too small, so
   * the timed print is the library's work plus one copy into it. */
  size_t cap = len + len / 4 + 4096;
  char *out = malloc(cap);
  if (!out) return 4;

  double t_parse[MAX_ITERS], t_lex[MAX_ITERS], t_build[MAX_ITERS], t_print[MAX_ITERS],
      t_destroy[MAX_ITERS], t_total[MAX_ITERS];
  size_t arena_bytes = 0, out_len = 0, nfuncs = 0;
  int identical = 0;
  for (int it = 0; it < iters; it++) {
    tirx_ctx *ctx = NULL;
    if (tirx_ctx_create(&ctx) != TIRX_OK) return 4;
    tirx_module *mod = NULL;
    double t0 = tx_now_ms();
    tirx_status st = tirx_parse_string(ctx, path, text, len, &mod);
    double t1 = tx_now_ms();
    if (st != TIRX_OK) {
      fprintf(stderr, "bench_parse: parse failed (%s):\n", tirx_status_name(st));
      tirx_diag_render_file(ctx, stderr);
      return 1;
    }
    size_t needed = 0;
    st = tirx_module_print(mod, out, cap, &needed);
    double t2 = tx_now_ms();
    if (st == TIRX_ERR_TRUNCATED) { /* grow, and time this iteration's print again */
      free(out);
      cap = needed + 1;
      out = malloc(cap);
      if (!out) return 4;
      t1 = tx_now_ms();
      st = tirx_module_print(mod, out, cap, &needed);
      t2 = tx_now_ms();
    }
    if (st != TIRX_OK) {
      fprintf(stderr, "bench_parse: print failed (%s)\n", tirx_status_name(st));
      return 1;
    }
    out_len = needed;
    identical = needed == len && memcmp(out, text, len) == 0;
    arena_bytes = tx_arena_used(ctx->arena);
    nfuncs = tirx_module_func_count(mod);
    t_lex[it] = ctx->last.parse_ms;
    t_build[it] = ctx->last.build_ms;
    double t3 = tx_now_ms();
    tirx_ctx_destroy(ctx);
    double t4 = tx_now_ms();
    t_parse[it] = t1 - t0;
    t_print[it] = t2 - t1;
    t_destroy[it] = t4 - t3;
    t_total[it] = (t1 - t0) + (t2 - t1);
  }
  long rss_peak = peak_rss_kib();

  double m_parse = bench_median(t_parse, iters), m_lex = bench_median(t_lex, iters),
         m_build = bench_median(t_build, iters), m_print = bench_median(t_print, iters),
         m_destroy = bench_median(t_destroy, iters), m_total = bench_median(t_total, iters);

  printf("tirx-c %s: %s, %zu bytes, %zu lines, %zu functions, %d iterations\n", tirx_version(),
         path, len, lines, nfuncs, iters);
  printf("  %-22s %10s %10s %10s %12s\n", "stage (median)", "ms", "min ms", "MB/s", "lines/s");
  row("parse (total)", m_parse, min_of(t_parse, iters), len, lines);
  row("  lex+parse (AST)", m_lex, min_of(t_lex, iters), len, lines);
  row("  build (IR + checks)", m_build, min_of(t_build, iters), len, lines);
  row("print", m_print, min_of(t_print, iters), len, lines);
  row("parse + print", m_total, min_of(t_total, iters), len, lines);
  printf("  context destroy: %.2f ms (not in the totals)\n", m_destroy);
  printf("  arena after parse: %zu bytes (%.1f x input); printed %zu bytes, %s the input\n",
         arena_bytes, (double)arena_bytes / (double)len, out_len,
         identical ? "identical to" : "DIFFERENT from");
  printf("  peak RSS: %ld KiB (%ld KiB after reading the input)\n", rss_peak, rss_before);

  printf("RESULT bytes %zu\n", len);
  printf("RESULT lines %zu\n", lines);
  printf("RESULT iterations %d\n", iters);
  printf("RESULT parse_ms %.3f\n", m_parse);
  printf("RESULT lexparse_ms %.3f\n", m_lex);
  printf("RESULT build_ms %.3f\n", m_build);
  printf("RESULT print_ms %.3f\n", m_print);
  printf("RESULT total_ms %.3f\n", m_total);
  printf("RESULT destroy_ms %.3f\n", m_destroy);
  printf("RESULT arena_bytes %zu\n", arena_bytes);
  printf("RESULT peak_rss_kib %ld\n", rss_peak);
  printf("RESULT roundtrip_identical %d\n", identical);
  free(out);
  free(text);
  return 0;
}
