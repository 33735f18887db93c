/*
 * test_nvrtc.c - tx_nvrtc_compile: PTX and cubin for sm_90a / sm_100a, NVRTC
 * errors mapped back to TIRx spans, and a clear error without a toolkit.
 *
 * Needs libnvrtc (no GPU). Tests skip, with the reason, when NVRTC cannot be
 * loaded; set TIRX_REQUIRE_NVRTC=1 to make that a failure instead (for CI
 * machines that have the toolkit and must really run these).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/cuda/codegen.h"
#include "ir/arena.h"
#include "ir/diag.h"
#include "tirx/tirx.h"

static const char SCALE_CU[] =
    "extern \"C\" __global__ void scale(const float *a, float *b, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) b[i] = a[i] * 2.0f;\n"
    "}\n";

typedef struct fixture {
  tx_arena *arena;
  tx_diag_sink *diags;
  tx_strbuf out, log;
} fixture;

static void fx_init(fixture *f) {
  memset(f, 0, sizeof *f);
  f->arena = tx_arena_create(NULL);
  cr_assert_not_null(f->arena);
  f->diags = tx_diag_create(f->arena);
  cr_assert_not_null(f->diags);
}

static void fx_fini(fixture *f) {
  tx_sb_free(&f->out);
  tx_sb_free(&f->log);
  tx_diag_destroy(f->diags);
  tx_arena_destroy(f->arena);
}

/* All diagnostics rendered, for assertion messages. */
static char *rendered(fixture *f) {
  tx_strbuf sb = {0};
  tx_diag_render(f->diags, &sb);
  const char *s = tx_sb_cstr(&sb);
  char *copy = strdup(s ? s : "");
  tx_sb_free(&sb);
  return copy;
}

/* Compile; skip the test when NVRTC is not installed (unless required). */
static tirx_status compile(fixture *f, const char *src, size_t len, const tx_line_map *map,
                           const char *arch, int sm, tx_nvrtc_output output, int opt_level) {
  tx_target target = {arch, sm, opt_level, NULL};
  tx_nvrtc_options opts = {NULL, &target, output, 1};
  tirx_status st = tx_nvrtc_compile(f->diags, src, len, map, &opts, &f->out, &f->log);
  if (st == TIRX_ERR_IO && tx_diag_count(f->diags) > 0 &&
      strstr(tx_diag_at(f->diags, 0)->message, "CUDA toolkit not found")) {
    const char *req = getenv("TIRX_REQUIRE_NVRTC");
    char *msg = rendered(f);
    if (req && strcmp(req, "1") == 0) cr_assert_fail("NVRTC required but not loadable: %s", msg);
    cr_skip_test("NVRTC not available: %s", msg);
  }
  return st;
}

static const char *find_diag(fixture *f, tirx_severity sev, const char *needle,
                             const tirx_diagnostic **out) {
  for (size_t i = 0; i < tx_diag_count(f->diags); i++) {
    const tirx_diagnostic *d = tx_diag_at(f->diags, i);
    if (d->severity == sev && strstr(d->message, needle)) {
      if (out) *out = d;
      return d->message;
    }
  }
  return NULL;
}

static void expect_ptx_target(const char *arch, int sm) {
  fixture f;
  fx_init(&f);
  tirx_status st = compile(&f, SCALE_CU, strlen(SCALE_CU), NULL, arch, sm, NVRTC_PTX, 3);
  char *msg = rendered(&f);
  cr_assert_eq(st, TIRX_OK, "status %d: %s\nlog: %s", st, msg, tx_sb_cstr(&f.log));
  const char *ptx = tx_sb_cstr(&f.out);
  char want[64];
  snprintf(want, sizeof want, ".target %s", arch);
  cr_assert_not_null(strstr(ptx, want), "no '%s' in PTX:\n%.400s", want, ptx);
  cr_assert_not_null(strstr(ptx, ".entry scale("), "kernel entry missing:\n%.400s", ptx);
  cr_assert_eq(strlen(ptx), f.out.len, "PTX text must not include its NUL");
  free(msg);
  fx_fini(&f);
}

Test(nvrtc, ptx_sm90a) {
  expect_ptx_target("sm_90a", 90);
}
Test(nvrtc, ptx_sm100a) {
  expect_ptx_target("sm_100a", 100);
}

Test(nvrtc, cubin_is_elf) {
  fixture f;
  fx_init(&f);
  tirx_status st = compile(&f, SCALE_CU, strlen(SCALE_CU), NULL, "sm_90a", 90, NVRTC_CUBIN, 3);
  char *msg = rendered(&f);
  cr_assert_eq(st, TIRX_OK, "status %d: %s", st, msg);
  cr_assert_gt(f.out.len, 4);
  cr_assert(memcmp(f.out.data,
                   "\x7f"
                   "ELF",
                   4) == 0,
            "cubin is not an ELF image");
  free(msg);
  fx_fini(&f);
}

/* The source need not be NUL-terminated: only `len` bytes count. */
Test(nvrtc, source_length_is_respected) {
  fixture f;
  fx_init(&f);
  size_t n = strlen(SCALE_CU);
  char *src = malloc(n + 16);
  memcpy(src, SCALE_CU, n);
  memcpy(src + n, "garbage here!!!", 16); /* would not compile if read */
  tirx_status st = compile(&f, src, n, NULL, "sm_90a", 90, NVRTC_PTX, 3);
  char *msg = rendered(&f);
  cr_assert_eq(st, TIRX_OK, "status %d: %s", st, msg);
  free(msg);
  free(src);
  fx_fini(&f);
}

Test(nvrtc, fp16_bf16_headers_and_O0) {
  static const char src[] =
      "#include <cuda_fp16.h>\n"
      "#include <cuda_bf16.h>\n"
      "extern \"C\" __global__ void cvt(const float *a, float *b) {\n"
      "  b[threadIdx.x] = __half2float(__float2half_rn(a[threadIdx.x])) +\n"
      "                   __bfloat162float(__float2bfloat16_rn(a[threadIdx.x]));\n"
      "}\n";
  fixture f;
  fx_init(&f);
  tirx_status st = compile(&f, src, strlen(src), NULL, "sm_90a", 90, NVRTC_PTX, 0);
  char *msg = rendered(&f);
  cr_assert_eq(st, TIRX_OK, "status %d: %s\nlog: %s", st, msg, tx_sb_cstr(&f.log));
  /* CUDA 13 NVRTC rejects --dopt=off: -O0 must compile with default options. */
  cr_assert_null(strstr(tx_sb_cstr(&f.log), "--dopt"), "log: %s", tx_sb_cstr(&f.log));
  free(msg);
  fx_fini(&f);
}

Test(nvrtc, verbose_log_names_options) {
  fixture f;
  fx_init(&f);
  tirx_status st = compile(&f, SCALE_CU, strlen(SCALE_CU), NULL, "sm_90a", 90, NVRTC_PTX, 3);
  cr_assert_eq(st, TIRX_OK);
  const char *log = tx_sb_cstr(&f.log);
  cr_assert_not_null(strstr(log, "nvrtc options: --gpu-architecture=compute_90a"), "%s", log);
  cr_assert_not_null(strstr(log, "-std=c++17"), "%s", log);
  cr_assert_not_null(strstr(log, "(NVRTC "), "library and version recorded: %s", log);
  fx_fini(&f);
}

/* The options of the "nvrtc options:" log line that are not the fixed ones
 * (architecture, -default-device, -std, -I), space-separated. */
static void opt_tokens(const char *log, char *out, size_t cap) {
  const char *line = strstr(log, "nvrtc options:");
  cr_assert_not_null(line, "%s", log);
  line += strlen("nvrtc options:");
  size_t n = strcspn(line, "\n");
  char buf[1024];
  snprintf(buf, sizeof buf, "%.*s", (int)n, line);
  out[0] = 0;
  for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    if (strncmp(tok, "--gpu-architecture=", 19) == 0 || strcmp(tok, "-default-device") == 0 ||
        strcmp(tok, "-std=c++17") == 0 || strncmp(tok, "-I", 2) == 0 ||
        strcmp(tok, "-device-int128") == 0)
      continue;
    if (out[0]) strncat(out, " ", cap - strlen(out) - 1);
    strncat(out, tok, cap - strlen(out) - 1);
  }
}

/* -O0..-O3 become NVRTC options (docs/nvrtc.md): --Ofast-compile=max/mid at
 * -O0/-O1 (NVRTC 12.8+), --extra-device-vectorization at -O3 (12.0+), and
 * for a cubin --ptxas-options=-O<n>. Each set is compiled for real, so the
 * local NVRTC is known to accept it. */
Test(nvrtc, opt_level_options) {
  for (int cubin = 0; cubin <= 1; cubin++) {
    for (int level = 0; level <= 3; level++) {
      fixture f;
      fx_init(&f);
      tirx_status st = compile(&f, SCALE_CU, strlen(SCALE_CU), NULL, "sm_90a", 90,
                               cubin ? NVRTC_CUBIN : NVRTC_PTX, level);
      char *msg = rendered(&f);
      const char *log = tx_sb_cstr(&f.log);
      cr_assert_eq(st, TIRX_OK, "-O%d %s: status %d: %s\nlog: %s", level, cubin ? "cubin" : "PTX",
                   st, msg, log);
      int major = 0, minor = 0;
      const char *v = strstr(log, "(NVRTC ");
      cr_assert(v && sscanf(v, "(NVRTC %d.%d)", &major, &minor) == 2, "%s", log);
      int version = major * 100 + minor;
      /* int128 / uint128 are spelled __int128_t / __uint128_t (NVRTC 11.5+). */
      cr_expect((strstr(log, " -device-int128") != NULL) == (version >= 1105),
                "-device-int128 with NVRTC %d.%d: %s", major, minor, log);
      char want[256] = "";
      if (level == 0 && version >= 1208) strcat(want, "--Ofast-compile=max");
      if (level == 1 && version >= 1208) strcat(want, "--Ofast-compile=mid");
      if (level == 3 && version >= 1200) strcat(want, "--extra-device-vectorization");
      if (cubin) {
        char ptxas[32];
        snprintf(ptxas, sizeof ptxas, "%s--ptxas-options=-O%d", want[0] ? " " : "",
                 level == 2 ? 3 : level);
        strcat(want, ptxas);
      }
      char got[256];
      opt_tokens(log, got, sizeof got);
      cr_expect_str_eq(got, want, "-O%d %s: options '%s', want '%s'", level,
                       cubin ? "cubin" : "PTX", got, want);
      free(msg);
      fx_fini(&f);
    }
  }
}

/* Out-of-range levels from library callers are clamped, not passed on. */
Test(nvrtc, opt_level_is_clamped) {
  fixture f;
  fx_init(&f);
  tirx_status st = compile(&f, SCALE_CU, strlen(SCALE_CU), NULL, "sm_90a", 90, NVRTC_CUBIN, 7);
  cr_assert_eq(st, TIRX_OK, "log: %s", tx_sb_cstr(&f.log));
  cr_expect_not_null(strstr(tx_sb_cstr(&f.log), "--ptxas-options=-O3"), "%s", tx_sb_cstr(&f.log));
  fx_fini(&f);
}

static const char BAD_CU[] = "extern \"C\" __global__ void k(float *a) {\n"
                             "  a[0] = undefined_var;\n"
                             "}\n";

/* A line map whose CUDA line 2 comes from kernel.tirx:7:5-7:20. */
static void make_map(fixture *f, tx_line_map *map, tirx_span *lines, int with_span) {
  static const char tirx_src[] = "1\n2\n3\n4\n5\n6\n    A[0] = undefined_var\n";
  const char *name = tx_diag_add_source(f->diags, "kernel.tirx", tirx_src, strlen(tirx_src));
  memset(lines, 0, 3 * sizeof *lines);
  if (with_span) lines[1] = (tirx_span){name, 7, 5, 7, 25};
  map->lines = lines;
  map->len = map->cap = 3;
}

Test(nvrtc, error_is_located_through_line_map) {
  fixture f;
  fx_init(&f);
  tirx_span lines[3];
  tx_line_map map;
  make_map(&f, &map, lines, 1);
  tirx_status st = compile(&f, BAD_CU, strlen(BAD_CU), &map, "sm_90a", 90, NVRTC_PTX, 3);
  char *msg = rendered(&f);
  cr_assert_eq(st, TIRX_ERR_INPUT, "status %d: %s", st, msg);
  const tirx_diagnostic *d = NULL;
  cr_assert_not_null(find_diag(&f, TIRX_SEV_ERROR, "CUDA compile error: ", &d), "%s", msg);
  cr_assert_not_null(strstr(d->message, "undefined_var"), "%s", d->message);
  cr_assert_eq(d->span.line, 7);
  cr_assert_eq(d->span.col, 5);
  cr_assert_str_eq(d->span.file, "kernel.tirx");
  cr_assert_not_null(find_diag(&f, TIRX_SEV_NOTE, "CUDA line 2:   a[0] = undefined_var;", NULL),
                     "%s", msg);
  cr_assert_not_null(strstr(msg, "kernel.tirx:7:5: error: CUDA compile error"), "%s", msg);
  cr_assert_eq(tx_diag_has_internal(f.diags), 0);
  cr_assert_not_null(strstr(tx_sb_cstr(&f.log), "tirx_kernel.cu(2): error"), "raw log kept");
  cr_assert_eq(f.out.len, 0);
  free(msg);
  fx_fini(&f);
}

/* Generated CUDA that fails on a line with no user span is our bug. */
Test(nvrtc, unmapped_error_is_internal) {
  fixture f;
  fx_init(&f);
  tirx_span lines[3];
  tx_line_map map;
  make_map(&f, &map, lines, 0);
  tirx_status st = compile(&f, BAD_CU, strlen(BAD_CU), &map, "sm_90a", 90, NVRTC_PTX, 3);
  char *msg = rendered(&f);
  cr_assert_eq(st, TIRX_ERR_INTERNAL, "status %d: %s", st, msg);
  cr_assert(tx_diag_has_internal(f.diags));
  cr_assert_not_null(find_diag(&f, TIRX_SEV_ERROR, "internal error in nvrtc", NULL), "%s", msg);
  cr_assert_not_null(strstr(msg, "tirx_kernel.cu(2): error"), "raw line quoted: %s", msg);
  free(msg);
  fx_fini(&f);
}

/* Without a map the CUDA is the caller's own: an unlocated input error. */
Test(nvrtc, error_without_map_is_unlocated) {
  fixture f;
  fx_init(&f);
  tirx_status st = compile(&f, BAD_CU, strlen(BAD_CU), NULL, "sm_90a", 90, NVRTC_PTX, 3);
  char *msg = rendered(&f);
  cr_assert_eq(st, TIRX_ERR_INPUT, "status %d: %s", st, msg);
  const tirx_diagnostic *d = NULL;
  cr_assert_not_null(find_diag(&f, TIRX_SEV_ERROR, "CUDA compile error: tirx_kernel.cu(2)", &d),
                     "%s", msg);
  cr_assert_eq(d->span.line, 0);
  free(msg);
  fx_fini(&f);
}

Test(nvrtc, missing_toolkit_is_clear) {
  unsetenv("CUDA_HOME"); /* Criterion runs each test in its own process */
  fixture f;
  fx_init(&f);
  tx_target target = {"sm_90a", 90, 3, NULL};
  tx_nvrtc_options opts = {"/nonexistent", &target, NVRTC_PTX, 0};
  tirx_status st = tx_nvrtc_compile(f.diags, SCALE_CU, strlen(SCALE_CU), NULL, &opts, &f.out, NULL);
  char *msg = rendered(&f);
  cr_assert_eq(st, TIRX_ERR_IO, "status %d: %s", st, msg);
  cr_assert_eq(tx_diag_errors(f.diags), 1, "%s", msg);
  const char *m = tx_diag_at(f.diags, 0)->message;
  cr_assert_str_eq(m, "CUDA toolkit not found: NVRTC (libnvrtc.so) is not in /nonexistent/lib64 or "
                      "/nonexistent/lib; set CUDA_HOME or pass --cuda-path");
  cr_assert_eq(tx_diag_at(f.diags, 0)->span.line, 0);
  free(msg);
  fx_fini(&f);
}

Test(nvrtc, cuda_home_is_used) {
  setenv("CUDA_HOME", "/nonexistent-cuda-home", 1);
  fixture f;
  fx_init(&f);
  tx_target target = {"sm_90a", 90, 3, NULL};
  tx_nvrtc_options opts = {NULL, &target, NVRTC_PTX, 0};
  tirx_status st = tx_nvrtc_compile(f.diags, SCALE_CU, strlen(SCALE_CU), NULL, &opts, &f.out, NULL);
  cr_assert_eq(st, TIRX_ERR_IO);
  cr_assert_not_null(strstr(tx_diag_at(f.diags, 0)->message, "/nonexistent-cuda-home/lib64"));
  fx_fini(&f);
}

Test(nvrtc, invalid_arch_is_usage_error) {
  fixture f;
  fx_init(&f);
  tx_target target = {"gfx90a", 0, 3, NULL};
  tx_nvrtc_options opts = {NULL, &target, NVRTC_PTX, 0};
  tirx_status st = tx_nvrtc_compile(f.diags, SCALE_CU, strlen(SCALE_CU), NULL, &opts, &f.out, NULL);
  cr_assert_eq(st, TIRX_ERR_USAGE);
  cr_assert_not_null(strstr(tx_diag_at(f.diags, 0)->message, "invalid CUDA architecture 'gfx90a'"));
  fx_fini(&f);
}

/* An arch that passes our syntax check but NVRTC does not know. */
Test(nvrtc, unknown_arch_is_usage_error) {
  fixture f;
  fx_init(&f);
  tirx_status st = compile(&f, SCALE_CU, strlen(SCALE_CU), NULL, "sm_13", 13, NVRTC_PTX, 3);
  char *msg = rendered(&f);
  cr_assert_eq(st, TIRX_ERR_USAGE, "status %d: %s", st, msg);
  cr_assert_not_null(strstr(msg, "rejected the options (--gpu-architecture=compute_13)"), "%s",
                     msg);
  free(msg);
  fx_fini(&f);
}

/* An executable for two architectures through the public API: one image
 * each, the PTX of each for its own target. */
Test(nvrtc, executable_for_two_architectures) {
  static const char SRC[] = "@T.prim_func\n"
                            "def add1(A: T.Buffer((64,), \"float32\")):\n"
                            "    T.device_entry()\n"
                            "    bx = T.cta_id([1])\n"
                            "    tx = T.thread_id([64])\n"
                            "    A[tx] = A[tx] + T.float32(1.0)\n";
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.arch = "sm_100a,sm_90a";
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  tirx_status st = tirx_compile("two.tirx", SRC, strlen(SRC), &o, &exe, &err);
  if (st == TIRX_ERR_IO && strstr(err.message, "CUDA toolkit not found")) {
    const char *req = getenv("TIRX_REQUIRE_NVRTC");
    if (req && strcmp(req, "1") == 0) cr_assert_fail("NVRTC required: %s", err.message);
    cr_skip_test("NVRTC not available: %s", err.message);
  }
  cr_assert_eq(st, TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_executable_arch_count(exe), 2);
  static const char *const ARCH[2] = {"sm_100a", "sm_90a"};
  for (int i = 0; i < 2; i++) {
    size_t len = 0;
    const char *ptx = tirx_executable_ptx_for(exe, ARCH[i], &len);
    char want[32];
    snprintf(want, sizeof want, ".target %s", ARCH[i]);
    cr_assert(ptx && len > 0 && strstr(ptx, want), "%s: no '%s'", ARCH[i], want);
    cr_assert(strstr(ptx, ".entry add1_kernel") || strstr(ptx, ".entry add1"), "%s", ARCH[i]);
  }
  cr_assert_str_eq(tirx_executable_arch(exe), "sm_100a");
  tirx_executable_free(exe);
}
