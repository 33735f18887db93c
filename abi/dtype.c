/*
 * dtype.c - parsing and printing data type names.
 */
#include "abi/dtype.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  const char *name;
  int fixed_bits;
} code_info;

static const code_info codes[] = {
#define X(code, name, bits) [code] = {name, bits},
    TX_DTYPE_CODES(X)
#undef X
};

enum { NCODES = sizeof codes / sizeof codes[0] };

int tx_dtype_is_int(tx_dtype t) {
  return t.code == DT_INT || t.code == DT_UINT;
}

int tx_dtype_is_bool(tx_dtype t) {
  return t.code == DT_BOOL;
}

int tx_dtype_is_float(tx_dtype t) {
  switch ((tx_dtype_code)t.code) {
  case DT_FLOAT:
  case DT_BFLOAT:
  case DT_E4M3FN:
  case DT_E4M3FNUZ:
  case DT_E5M2:
  case DT_E5M2FNUZ:
  case DT_E4M3:
  case DT_E4M3B11FNUZ:
  case DT_E3M4:
  case DT_E8M0FNU:
  case DT_E2M3FN:
  case DT_E3M2FN:
  case DT_E2M1FN:
    return 1;
  case DT_INT:
  case DT_UINT:
  case DT_BOOL:
  case DT_HANDLE:
  case DT_VOID:
    return 0;
  }
  return 0;
}

int tx_dtype_is_narrow_float(tx_dtype t) {
  return t.code != DT_FLOAT && tx_dtype_is_float(t);
}

/* Parse an unsigned decimal of at most 4 digits from s[*i..n). */
static int parse_small_uint(const char *s, size_t n, size_t *i, int *out) {
  size_t start = *i;
  int v = 0;
  while (*i < n && s[*i] >= '0' && s[*i] <= '9' && *i - start < 5)
    v = v * 10 + (s[(*i)++] - '0');
  if (*i == start || s[start] == '0') return 0;
  *out = v;
  return 1;
}

static int bits_allowed(tx_dtype_code code, int bits) {
  switch (code) {
  case DT_INT:
  case DT_UINT:
    /* 128: TVM's T.uint128 (a CLC query response); codegen has no type for it */
    return bits == 1 || bits == 4 || bits == 8 || bits == 16 || bits == 32 || bits == 64 ||
           bits == 128;
  case DT_FLOAT:
    return bits == 16 || bits == 32 || bits == 64;
  case DT_BFLOAT:
    return bits == 16;
  case DT_E4M3FN:
  case DT_E4M3FNUZ:
  case DT_E5M2:
  case DT_E5M2FNUZ:
  case DT_E4M3:
  case DT_E4M3B11FNUZ:
  case DT_E3M4:
  case DT_E8M0FNU:
  case DT_E2M3FN:
  case DT_E3M2FN:
  case DT_E2M1FN:
  case DT_BOOL:
  case DT_HANDLE:
  case DT_VOID:
    return 1;
  }
  return 0;
}

int tx_dtype_parse(const char *s, size_t n, tx_dtype *out) {
  /* Longest prefix wins: "float8_e4m3fn" before "float". */
  int best = -1;
  size_t best_len = 0;
  for (int c = 0; c < NCODES; c++) {
    size_t len = strlen(codes[c].name);
    if (len <= n && memcmp(s, codes[c].name, len) == 0 && len > best_len) {
      best = c;
      best_len = len;
    }
  }
  if (best < 0) return 0;
  size_t i = best_len;
  int bits = codes[best].fixed_bits, lanes = 1;
  if (bits == 0 && best != DT_VOID) {
    if (!parse_small_uint(s, n, &i, &bits)) return 0;
  }
  int scalable = 0;
  if (i < n && s[i] == 'x') {
    i++;
    /* "float32xvscalex4": a scalable vector of 4 * vscale lanes (TVM's spelling). */
    if (n - i > 7 && memcmp(s + i, "vscalex", 7) == 0) i += 7, scalable = 1;
    if (!parse_small_uint(s, n, &i, &lanes) || lanes < 1 || lanes > TX_MAX_LANES) return 0;
  }
  if (i != n || bits > 255 || !bits_allowed((tx_dtype_code)best, bits)) return 0;
  if (best == DT_VOID && lanes != 1) return 0;
  *out = tx_dt((tx_dtype_code)best, bits, lanes);
  out->scalable = (uint8_t)scalable;
  return 1;
}

const char *tx_dtype_str(tx_dtype t, char buf[32]) {
  if (t.code >= NCODES) return snprintf(buf, 32, "?"), buf;
  const char *name = codes[t.code].name;
  int n;
  if (codes[t.code].fixed_bits || t.code == DT_VOID)
    n = snprintf(buf, 32, "%s", name);
  else
    n = snprintf(buf, 32, "%s%d", name, t.bits);
  if ((t.lanes != 1 || t.scalable) && n > 0 && n < 32)
    snprintf(buf + n, 32 - (size_t)n, t.scalable ? "xvscalex%d" : "x%d", t.lanes);
  return buf;
}

void tx_dtype_print(tx_dtype t, tx_strbuf *out) {
  char buf[32];
  tx_sb_puts(out, tx_dtype_str(t, buf));
}

int tx_dtype_int_fits(tx_dtype t, int64_t v, int negative_u64) {
  if (t.code == DT_BOOL) return v == 0 || v == 1;
  if (t.code == DT_UINT) {
    if (negative_u64) return t.bits >= 64;
    if (v < 0) return 0;
    return t.bits >= 64 || (uint64_t)v <= ((uint64_t)1 << t.bits) - 1;
  }
  if (t.code == DT_INT) {
    if (negative_u64) return 0;
    if (t.bits >= 64) return 1;
    int64_t hi = ((int64_t)1 << (t.bits - 1)) - 1, lo = -hi - 1;
    return v >= lo && v <= hi;
  }
  return 1;
}
