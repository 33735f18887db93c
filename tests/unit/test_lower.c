/*
 * test_lower.c - the lowering passes (lower-tirx, flatten-buffer, simplify)
 * run directly on parsed TIRx: exact printed text, located errors, and a
 * re-parse of every lowered output. Also checks tests/golden/lower/: each
 * NAME.tirx lowered by the three passes must print as
 * NAME.expected.lowered.tirx (TIRX_UPDATE_GOLDEN=1 rewrites the files).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/context.h"
#include "ir/printer.h"
#include "passes/pass.h"

enum { P_LOWER = 1, P_FLATTEN = 2, P_SIMPLIFY = 4, P_ALL = 7 };

static tirx_ctx *ctx;
static char *result; /* printed output (malloc'ed) */
static char *errors; /* rendered diagnostics (malloc'ed) */
static tirx_status status;

static void setup(void) {
  cr_assert_eq(tirx_ctx_create(&ctx), TIRX_OK);
  result = errors = NULL;
}

static void teardown(void) {
  free(result);
  free(errors);
  tirx_ctx_destroy(ctx);
}

TestSuite(lower, .init = setup, .fini = teardown);

static char *dup_sb(tx_strbuf *sb) {
  const char *s = tx_sb_cstr(sb);
  char *r = strdup(s ? s : "");
  tx_sb_free(sb);
  return r;
}

/* Parse `text`, run the selected passes, print. Returns the status. */
static tirx_status run_passes_on(tirx_ctx *c, const char *text, int passes, char **out,
                                 char **errs) {
  tirx_module *m = NULL;
  tirx_status s = tirx_parse_string(c, "input.tirx", text, strlen(text), &m);
  const tx_module *mod = m ? m->mod : NULL;
  tx_pass_ctx pc = {.ir = &c->ir, .diags = c->diags, .target = NULL};
  if (s == TIRX_OK && (passes & P_LOWER)) s = tx_pass_lower_tirx(&pc, mod, &mod);
  if (s == TIRX_OK && (passes & P_FLATTEN)) s = tx_pass_flatten_buffer(&pc, mod, &mod);
  if (s == TIRX_OK && (passes & P_SIMPLIFY)) s = tx_pass_simplify(&pc, mod, &mod);
  tx_strbuf sb = {0};
  if (s == TIRX_OK) tx_print_module(mod, &sb);
  *out = dup_sb(&sb);
  tx_strbuf eb = {0};
  tx_diag_render(c->diags, &eb);
  *errs = dup_sb(&eb);
  return s;
}

/* Re-parse printed text in a fresh context. */
static void assert_reparses(const char *text) {
  tirx_ctx *c2;
  cr_assert_eq(tirx_ctx_create(&c2), TIRX_OK);
  tirx_module *m = NULL;
  tirx_status s = tirx_parse_string(c2, "lowered.tirx", text, strlen(text), &m);
  if (s != TIRX_OK) {
    char buf[8192];
    size_t need;
    tirx_diag_render(c2, buf, sizeof buf, &need);
    cr_assert_fail("lowered output does not re-parse:\n%s\n%s", text, buf);
  }
  tirx_ctx_destroy(c2);
}

static const char *run(const char *text, int passes) {
  status = run_passes_on(ctx, text, passes, &result, &errors);
  cr_assert_eq(status, TIRX_OK, "status %d:\n%s", status, errors);
  assert_reparses(result);
  return result;
}

/* The body of the single function: text after the `def` line. */
static const char *body(const char *printed) {
  const char *p = strstr(printed, "def ");
  p = p ? strchr(p, '\n') : NULL;
  return p ? p + 1 : printed;
}

#define EXPECT_BODY(text, passes, want)                                                            \
  do {                                                                                             \
    const char *got_ = body(run((text), (passes)));                                                \
    cr_assert_str_eq(got_, (want), "got:\n%s\nwant:\n%s", got_, (want));                           \
  } while (0)

#define HDR "from tvm.script import tirx as T\n\n@T.prim_func\n"

Test(lower, smoke) {
  const char *src = HDR "def f(A: T.Buffer((256,), \"float32\")):\n"
                        "    T.device_entry()\n"
                        "    bx = T.cta_id([1])\n"
                        "    tx = T.thread_id([256])\n"
                        "    A[tx] = T.float32(1.0)\n";
  EXPECT_BODY(src, P_ALL,
              "    T.device_entry(grid=(1, 1, 1), block=(256, 1, 1))\n"
              "    bx = T.launch_thread(\"blockIdx.x\", 1)\n"
              "    tx = T.launch_thread(\"threadIdx.x\", 256)\n"
              "    A[tx] = T.float32(1.0)\n");
}

/* ---- golden files ------------------------------------------------------------ */

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  if (buf) buf[n] = 0;
  fclose(f);
  return buf;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

Test(lower, golden) {
  const char *dir = TIRX_SOURCE_DIR "/tests/golden/lower";
  int update = getenv("TIRX_UPDATE_GOLDEN") != NULL;
  DIR *d = opendir(dir);
  cr_assert(d, "no %s", dir);
  char *names[256];
  size_t n = 0;
  struct dirent *ent;
  while ((ent = readdir(d)) && n < 256) {
    size_t len = strlen(ent->d_name);
    if (len > 5 && strcmp(ent->d_name + len - 5, ".tirx") == 0 && !strstr(ent->d_name, ".expected"))
      names[n++] = strdup(ent->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, cmp_names);
  cr_assert(n > 0);
  for (size_t i = 0; i < n; i++) {
    char in[1024], exp[1024];
    snprintf(in, sizeof in, "%s/%s", dir, names[i]);
    snprintf(exp, sizeof exp, "%s/%.*s.expected.lowered.tirx", dir, (int)(strlen(names[i]) - 5),
             names[i]);
    char *src = read_all(in);
    cr_assert(src, "cannot read %s", in);
    tirx_ctx *c;
    cr_assert_eq(tirx_ctx_create(&c), TIRX_OK);
    char *out = NULL, *errs = NULL;
    tirx_status s = run_passes_on(c, src, P_ALL, &out, &errs);
    cr_assert_eq(s, TIRX_OK, "%s: status %d\n%s", names[i], s, errs);
    assert_reparses(out);
    if (update) {
      FILE *f = fopen(exp, "wb");
      cr_assert(f);
      fputs(out, f);
      fclose(f);
    } else {
      char *want = read_all(exp);
      cr_assert(want, "missing %s (run with TIRX_UPDATE_GOLDEN=1)", exp);
      cr_assert_str_eq(out, want, "%s differs:\n%s", names[i], out);
      free(want);
    }
    free(src);
    free(out);
    free(errs);
    tirx_ctx_destroy(c);
    free(names[i]);
  }
}

/* ---- layouts (TVM buffers.rst: the four layouts of B[i, j]) ------------------------ */

Test(lower, four_layouts) {
  const char *src = HDR
      "def f(B0: T.Buffer((4, 8)), B1: T.Buffer((4, 8), layout=T.TileLayout(T.S[(4, 8):(1, 4)])), "
      "B2: T.Buffer((4, 8), elem_offset=64), B3: T.Buffer((4, 8), layout=T.TileLayout(T.S[(4, "
      "8):(16, 1)]))):\n"
      "    T.device_entry()\n"
      "    i, j = T.thread_id([4, 8])\n"
      "    B0[i, j] = B1[i, j] + B2[i, j] + B3[i, j]\n";
  EXPECT_BODY(src, P_LOWER | P_FLATTEN,
              "    T.device_entry(grid=(1, 1, 1), block=(4, 8, 1))\n"
              "    B0_flat = T.decl_buffer((32,), data=B0.data)\n"
              "    B1_flat = T.decl_buffer((32,), data=B1.data)\n"
              "    B2_flat = T.decl_buffer((32,), data=B2.data)\n"
              "    B3_flat = T.decl_buffer((56,), data=B3.data)\n"
              "    i = T.launch_thread(\"threadIdx.x\", 4)\n"
              "    j = T.launch_thread(\"threadIdx.y\", 8)\n"
              "    B0_flat[i * 8 + j] = B1_flat[j * 4 + i] + B2_flat[i * 8 + j + 64] + B3_flat[i * "
              "16 + j]\n");
}

/* ---- lower-tirx ---------------------------------------------------------------- */

Test(lower, warp_lane_only) {
  const char *src = HDR "def f(A: T.Buffer((64,))):\n"
                        "    T.device_entry()\n"
                        "    bx = T.cta_id([1])\n"
                        "    w = T.warp_id([2])\n"
                        "    l = T.lane_id([32])\n"
                        "    A[w * 32 + l] = T.float32(0.0)\n";
  EXPECT_BODY(src, P_LOWER,
              "    T.device_entry(grid=(1, 1, 1), block=(64, 1, 1))\n"
              "    bx = T.launch_thread(\"blockIdx.x\", 1)\n"
              "    tx = T.launch_thread(\"threadIdx.x\", 64)\n"
              "    w = tx // 32\n"
              "    l = tx % 32\n"
              "    A[w * 32 + l] = T.float32(0.0)\n");
}

Test(lower, warpgroup_ids) {
  const char *src = HDR "def f(A: T.Buffer((256,))):\n"
                        "    T.device_entry()\n"
                        "    wg = T.warpgroup_id([2])\n"
                        "    wi = T.warp_id_in_wg([4])\n"
                        "    ti = T.thread_id_in_wg([128])\n"
                        "    A[wg * 128 + ti] = T.float32(wi)\n";
  EXPECT_BODY(src, P_LOWER,
              "    T.device_entry(grid=(1, 1, 1), block=(256, 1, 1))\n"
              "    tx = T.launch_thread(\"threadIdx.x\", 256)\n"
              "    wg = tx // 128\n"
              "    wi = tx % 128 // 32\n"
              "    ti = tx % 128\n"
              "    A[wg * 128 + ti] = T.Cast(\"float32\", wi)\n");
}

Test(lower, inconsistent_extents) {
  const char *src = HDR "def f(A: T.Buffer((256,))):\n"
                        "    T.device_entry()\n"
                        "    tx = T.thread_id([128])\n"
                        "    w = T.warp_id([2])\n"
                        "    l = T.lane_id([32])\n"
                        "    A[tx] = T.float32(0.0)\n";
  status = run_passes_on(ctx, src, P_LOWER, &result, &errors);
  cr_assert_eq(status, TIRX_ERR_INPUT);
  cr_assert(strstr(errors, "input.tirx:7:9: error: inconsistent launch extents"), "%s", errors);
}

Test(lower, deferred_without_info) {
  const char *src = HDR "def f(A: T.Buffer((256,))):\n"
                        "    T.device_entry()\n"
                        "    tx = T.thread_id()\n"
                        "    A[tx] = T.float32(0.0)\n";
  status = run_passes_on(ctx, src, P_LOWER, &result, &errors);
  cr_assert_eq(status, TIRX_ERR_INPUT);
  cr_assert(strstr(errors, "cannot infer the extent of deferred T.thread_id()"), "%s", errors);
}

Test(lower, scalar_sugar) {
  const char *src = HDR "def f(A: T.Buffer((4,), \"int32\")):\n"
                        "    x: T.int32 = 1\n"
                        "    y = T.local_scalar(\"int32\")\n"
                        "    x = x + 2\n"
                        "    y = x\n"
                        "    A[0] = y\n";
  EXPECT_BODY(src, P_LOWER,
              "    x = T.alloc_local((1,), \"int32\")\n"
              "    x = 1\n"
              "    y = T.alloc_local((1,), \"int32\")\n"
              "    x = x + 2\n"
              "    y = x\n"
              "    A[0] = y\n");
}

Test(lower, with_form_and_attr_entry) {
  const char *src = HDR "def f(A: T.Buffer((64,))):\n"
                        "    T.attr({\"tirx.device_entry\": T.bool(True)})\n"
                        "    tx = T.thread_id([64])\n"
                        "    with T.attr({\"tirx.dyn_smem_bytes\": 1024}):\n"
                        "        A[tx] = T.float32(0.0)\n";
  EXPECT_BODY(src, P_LOWER,
              "    T.device_entry(grid=(1, 1, 1), block=(64, 1, 1), dyn_shared_bytes=1024)\n"
              "    tx = T.launch_thread(\"threadIdx.x\", 64)\n"
              "    A[tx] = T.float32(0.0)\n");
}

/* lower-tirx keeps a tile primitive for dispatch-tile, its scalar sugar
 * rewritten like any operand's. */
Test(lower, tile_op_is_kept) {
  const char *src = HDR "def f(A: T.Buffer((64,)), B: T.Buffer((64,))):\n"
                        "    T.device_entry()\n"
                        "    tx = T.thread_id([64])\n"
                        "    s: T.float32 = T.float32(2.0)\n"
                        "    T.cta.fill(A[0:64], s)\n";
  EXPECT_BODY(src, P_LOWER,
              "    T.device_entry(grid=(1, 1, 1), block=(64, 1, 1))\n"
              "    tx = T.launch_thread(\"threadIdx.x\", 64)\n"
              "    s = T.alloc_local((1,))\n"
              "    s = T.float32(2.0)\n"
              "    T.cta.fill(A[0:64], s[0])\n");
}

/* ---- flatten-buffer --------------------------------------------------------------- */

Test(lower, arena_views_and_swizzle) {
  const char *src = HDR
      "def f(A: T.Buffer((64,), \"float16\")):\n"
      "    T.device_entry()\n"
      "    tx = T.thread_id([64])\n"
      "    pool = T.alloc_buffer((1024,), \"uint8\", scope=\"shared.dyn\")\n"
      "    S = T.decl_buffer((8, 64), \"float16\", data=pool.data, elem_offset=64, "
      "scope=\"shared.dyn\", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(8, 64):(64, 1)])))\n"
      "    S[tx // 8, tx] = A[tx]\n";
  EXPECT_BODY(src, P_ALL,
              "    T.device_entry(grid=(1, 1, 1), block=(64, 1, 1))\n"
              "    tx = T.launch_thread(\"threadIdx.x\", 64)\n"
              "    pool = T.alloc_buffer((1024,), \"uint8\", scope=\"shared.dyn\")\n"
              "    S = T.decl_buffer((512,), \"float16\", data=pool.data, scope=\"shared.dyn\")\n"
              "    S[(tx // 8 * 64 + tx ^ tx // 8 * 8) + 64] = A[tx]\n");
}

/* ---- simplify ---------------------------------------------------------------------- */

Test(lower, simplify_folding) {
  const char *src = HDR "def f(A: T.Buffer((16,), \"int32\"), n: T.int32):\n"
                        "    A[0] = -7 // 2\n"
                        "    A[1] = -7 % 2\n"
                        "    A[2] = T.truncdiv(-7, 2)\n"
                        "    A[3] = T.truncmod(-7, 2)\n"
                        "    A[4] = -2147483648 // -1\n"
                        "    A[5] = 2 + n + 3\n"
                        "    A[6] = n * 2 * 3 + 0\n"
                        "    A[7] = n * 1 - 0 + n % 1\n"
                        "    A[8] = T.max(n, n) + T.min(3, 5)\n"
                        "    A[9] = T.Select(3 < 4, n, 0)\n"
                        "    for i in range(8):\n"
                        "        A[i] = (n * 8 + i) // 8 + (n * 8 + i) % 8 + i // 8 + n * 4 % 4\n"
                        "        if i < 8:\n"
                        "            A[i] = 1\n"
                        "        if i >= 8:\n"
                        "            A[i] = 2\n";
  EXPECT_BODY(src, P_SIMPLIFY,
              "    A[0] = -4\n"
              "    A[1] = 1\n"
              "    A[2] = -3\n"
              "    A[3] = -1\n"
              "    A[4] = -2147483648\n"
              "    A[5] = n + 5\n"
              "    A[6] = n * 6\n"
              "    A[7] = n\n"
              "    A[8] = n + 3\n"
              "    A[9] = n\n"
              "    for i in range(8):\n"
              "        A[i] = n + i\n"
              "        A[i] = 1\n");
}

Test(lower, simplify_idempotent) {
  const char *src = HDR "def f(A: T.Buffer((64,), \"int32\"), n: T.int32):\n"
                        "    for i in range(8):\n"
                        "        A[(i * 8 + n) % 8 + 3 - 1] = (i + 4) // 2 * 2 + (i + 4) % 2\n";
  char *once = strdup(run(src, P_SIMPLIFY));
  free(result);
  free(errors);
  tirx_ctx_destroy(ctx);
  cr_assert_eq(tirx_ctx_create(&ctx), TIRX_OK);
  const char *twice = run(once, P_SIMPLIFY);
  cr_assert_str_eq(twice, once);
  free(once);
}
