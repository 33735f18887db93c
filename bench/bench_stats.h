/*
 * bench_stats.h - the statistics every benchmark reports: the median (what
 * docs/benchmarks.md quotes) of a sample. Header-only, included by the
 * bench_*.c programs; the clock is the library's tx_now_ms (ir/context.h).
 */
#ifndef TIRX_BENCH_STATS_H
#define TIRX_BENCH_STATS_H

#include <stdlib.h>
#include <string.h>

enum { BENCH_MAX_SAMPLES = 1000 };

static int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of v[0..n), 1 <= n <= BENCH_MAX_SAMPLES (sorts a copy). */
static double bench_median(const double *v, int n) {
  double tmp[BENCH_MAX_SAMPLES];
  memcpy(tmp, v, (size_t)n * sizeof *v);
  qsort(tmp, (size_t)n, sizeof *tmp, bench_cmp_double);
  return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

#endif
