/*
 * compare.c - see compare.h. Widening float16/bfloat16 by hand keeps this
 * free of compiler extensions (_Float16) and exact for every bit pattern.
 */
#include "tools/tirxc/compare.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static double half_to_double(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  double v;
  if (exp == 0)
    v = ldexp(man, -24); /* subnormal */
  else if (exp == 31)
    v = man ? NAN : INFINITY;
  else
    v = ldexp(man | 0x400, exp - 25);
  return sign ? -v : v;
}

static double bf16_to_double(uint16_t b) {
  uint32_t w = (uint32_t)b << 16;
  float f;
  memcpy(&f, &w, 4);
  return f;
}

/* Is `dt` compared by value (within a tolerance) rather than bit for bit? */
static int by_value(DLDataType dt) {
  if (dt.lanes > 1) return 0;
  if (dt.code == kDLFloat) return dt.bits == 16 || dt.bits == 32 || dt.bits == 64;
  return dt.code == kDLBfloat && dt.bits == 16;
}

/* Element i of a by-value dtype. */
static double element(DLDataType dt, const unsigned char *p, size_t i) {
  if (dt.bits == 64) {
    double d;
    memcpy(&d, p + 8 * i, 8);
    return d;
  }
  if (dt.bits == 32) {
    float f;
    memcpy(&f, p + 4 * i, 4);
    return f;
  }
  uint16_t h;
  memcpy(&h, p + 2 * i, 2);
  return dt.code == kDLBfloat ? bf16_to_double(h) : half_to_double(h);
}

static int values_agree(double a, double b, double atol) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  if (a == b) return 1; /* also equal infinities */
  return fabs(a - b) <= atol;
}

int tirxc_compare_buffer(FILE *out, const char *name, DLDataType dt, const void *ours,
                         const void *theirs, size_t bytes, double atol) {
  int value = by_value(dt);
  size_t esz = value ? dt.bits / 8u : 1; /* bit for bit: byte by byte */
  size_t n = bytes / esz, bad = 0, first = 0;
  double maxdiff = 0, fa = 0, fb = 0;
  const unsigned char *a = ours, *b = theirs;
  for (size_t i = 0; i < n; i++) {
    double x = value ? element(dt, a, i) : a[i], y = value ? element(dt, b, i) : b[i];
    int ok = value ? values_agree(x, y, atol) : a[i] == b[i];
    if (value && !isnan(x) && !isnan(y) && fabs(x - y) > maxdiff) maxdiff = fabs(x - y);
    if (!ok && bad++ == 0) {
      first = i;
      fa = x;
      fb = y;
    }
  }
  if (bad) {
    fprintf(out, "%s: MISMATCH at %zu of %zu %s (first at %zu: %g vs %g)\n", name, bad, n,
            value ? "elements" : "bytes", first, fa, fb);
    return 1;
  }
  if (memcmp(ours, theirs, bytes) == 0)
    fprintf(out, "%s: identical\n", name);
  else
    fprintf(out, "%s: equal within atol %g (max abs diff %g)\n", name, atol, maxdiff);
  return 0;
}
