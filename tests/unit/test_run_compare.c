/*
 * test_run_compare.c - the buffer comparison behind `tirxc run --compare`
 * (tools/tirxc/compare.c): bit-exact dtypes, by-value floats within a
 * tolerance, NaN, and the line printed for each verdict.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tools/tirxc/compare.h"

static const DLDataType F32 = {kDLFloat, 32, 1}, F16 = {kDLFloat, 16, 1}, BF16 = {kDLBfloat, 16, 1},
                        I32 = {kDLInt, 32, 1}, F8 = {kDLFloat8_e4m3fn, 8, 1};

/* Run the comparison, keeping what it printed in line. */
static int compare(DLDataType dt, const void *a, const void *b, size_t bytes, double atol,
                   char line[256]) {
  FILE *f = tmpfile();
  cr_assert(f);
  int rc = tirxc_compare_buffer(f, "B", dt, a, b, bytes, atol);
  rewind(f);
  memset(line, 0, 256);
  cr_assert(fgets(line, 256, f));
  fclose(f);
  return rc;
}

Test(compare, identical_buffers) {
  float a[3] = {1, 2, 3}, b[3] = {1, 2, 3};
  char line[256];
  cr_expect_eq(compare(F32, a, b, sizeof a, 0, line), 0);
  cr_expect_str_eq(line, "B: identical\n");
}

Test(compare, integers_are_bit_exact) {
  int32_t a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 5};
  char line[256];
  cr_expect_eq(compare(I32, a, b, sizeof a, 100, line), 1); /* atol does not apply */
  cr_expect(strstr(line, "B: MISMATCH at 1 of 16 bytes (first at 12: 4 vs 5)"), "%s", line);
}

Test(compare, float32_within_atol) {
  float a[2] = {1.0f, 2.0f}, b[2] = {1.0f, 2.001f};
  char line[256];
  cr_expect_eq(compare(F32, a, b, sizeof a, 0, line), 1);
  cr_expect(strstr(line, "MISMATCH at 1 of 2 elements (first at 1: 2 vs 2.001)"), "%s", line);
  cr_expect_eq(compare(F32, a, b, sizeof a, 0.01, line), 0);
  cr_expect(strstr(line, "B: equal within atol 0.01 (max abs diff 0.000999"), "%s", line);
}

Test(compare, float16_and_bfloat16_by_value) {
  uint16_t h1[2] = {0x3c00, 0x4000}, h2[2] = {0x3c01, 0x4000}; /* 1.0 vs 1.000977 */
  char line[256];
  cr_expect_eq(compare(F16, h1, h2, sizeof h1, 0, line), 1);
  cr_expect_eq(compare(F16, h1, h2, sizeof h1, 0.001, line), 0);
  uint16_t b1[1] = {0x3f80}, b2[1] = {0x3f81}; /* 1.0 vs 1.0078125 */
  cr_expect_eq(compare(BF16, b1, b2, sizeof b1, 0.01, line), 0);
  cr_expect_eq(compare(BF16, b1, b2, sizeof b1, 0.001, line), 1);
}

Test(compare, nan_equals_nan_only) {
  uint16_t n1[1] = {0x7e00}, n2[1] = {0x7e01}, one[1] = {0x3c00};
  char line[256];
  cr_expect_eq(compare(F16, n1, n2, 2, 0, line), 0); /* two NaNs agree */
  cr_expect_eq(compare(F16, n1, one, 2, 1e9, line), 1);
}

Test(compare, fp8_is_bit_exact) {
  uint8_t a[2] = {0x38, 0x40}, b[2] = {0x38, 0x41};
  char line[256];
  cr_expect_eq(compare(F8, a, b, 2, 1.0, line), 1);
}

Test(compare, empty_buffers_agree) {
  char line[256];
  cr_expect_eq(compare(F32, "", "", 0, 0, line), 0);
  cr_expect_str_eq(line, "B: identical\n");
}
