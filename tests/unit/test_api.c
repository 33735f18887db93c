/*
 * test_api.c - the public C API (tirx.h): argument checking, statuses,
 * diagnostics, the buffer contract of the printers and thread independence of
 * contexts. Uses only tirx.h, as an embedding program would.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tirx/tirx.h"

static const char SCALE[] =
    "# from tvm.script import tirx as T\n"
    "\n"
    "@T.prim_func\n"
    "def scale(A: T.Buffer((256,), \"float32\"), B: T.Buffer((256,), \"float32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([256])\n"
    "    B[tx] = A[tx] * T.float32(2.0)\n";

/* An undefined name on line 6, column 12 (`C`). */
static const char UNDEFINED[] = "# from tvm.script import tirx as T\n"
                                "\n"
                                "@T.prim_func\n"
                                "def f(A: T.Buffer((4,), \"float32\")):\n"
                                "    T.device_entry()\n"
                                "    A[0] = C[0]\n";

/* A syntax error: the unclosed bracket. */
static const char BROKEN[] = "@T.prim_func\ndef f(:\n";

static tirx_ctx *new_ctx(void) {
  tirx_ctx *ctx = NULL;
  cr_assert_eq(tirx_ctx_create(&ctx), TIRX_OK);
  cr_assert_not_null(ctx);
  return ctx;
}

static tirx_module *parse_ok(tirx_ctx *ctx, const char *src) {
  tirx_module *m = NULL;
  tirx_status st = tirx_parse_string(ctx, "scale.tirx", src, strlen(src), &m);
  if (st != TIRX_OK) {
    char buf[4096];
    tirx_diag_render(ctx, buf, sizeof buf, NULL);
    cr_assert_fail("parse failed (%s):\n%s", tirx_status_name(st), buf);
  }
  cr_assert_not_null(m);
  return m;
}

/* The whole canonical print as a malloc'ed string. */
static char *print_all(const tirx_module *m) {
  size_t need = 0;
  cr_assert_eq(tirx_module_print(m, NULL, 0, &need), TIRX_ERR_TRUNCATED);
  char *buf = malloc(need + 1);
  cr_assert_not_null(buf);
  size_t again = 0;
  cr_assert_eq(tirx_module_print(m, buf, need + 1, &again), TIRX_OK);
  cr_assert_eq(again, need);
  cr_assert_eq(strlen(buf), need);
  return buf;
}

Test(api, version) {
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", TIRX_VERSION_MAJOR, TIRX_VERSION_MINOR,
           TIRX_VERSION_PATCH);
  cr_assert_str_eq(tirx_version(), want);
  cr_assert_str_eq(tirx_version(), "0.1.0");
}

Test(api, status_names) {
  cr_assert_str_eq(tirx_status_name(TIRX_OK), "ok");
  cr_assert_str_eq(tirx_status_name(TIRX_ERR_IO), "I/O error");
  cr_assert_str_eq(tirx_status_name((tirx_status)99), "unknown status");
  for (int s = TIRX_OK; s <= TIRX_ERR_TRUNCATED; s++)
    cr_assert_str_neq(tirx_status_name((tirx_status)s), "unknown status");
}

Test(api, null_arguments) {
  cr_assert_eq(tirx_ctx_create(NULL), TIRX_ERR_USAGE);
  tirx_ctx_destroy(NULL);
  tirx_module *m = (tirx_module *)1;
  cr_assert_eq(tirx_parse_string(NULL, "x", "", 0, &m), TIRX_ERR_USAGE);
  cr_assert_null(m);
  cr_assert_eq(tirx_parse_file(NULL, "x", &m), TIRX_ERR_USAGE);
  size_t need = 7;
  char buf[8] = "xxxxxxx";
  cr_assert_eq(tirx_module_print(NULL, buf, sizeof buf, &need), TIRX_ERR_USAGE);
  cr_assert_eq(need, 0);
  cr_assert_eq(tirx_module_print_file(NULL, stdout), TIRX_ERR_USAGE);
  cr_assert_eq(tirx_module_equal(NULL, NULL), 1);
  cr_assert_eq(tirx_module_hash(NULL), 0);
  cr_assert_eq(tirx_module_func_count(NULL), 0);
  cr_assert_null(tirx_module_func_name(NULL, 0));
  cr_assert_eq(tirx_diag_count(NULL), 0);
  cr_assert_eq(tirx_diag_error_count(NULL), 0);
  tirx_diagnostic d;
  cr_assert_eq(tirx_diag_get(NULL, 0, &d), TIRX_ERR_USAGE);
  cr_assert_eq(tirx_diag_render(NULL, buf, sizeof buf, NULL), TIRX_ERR_USAGE);
  cr_assert_eq(tirx_diag_render_file(NULL, stderr), TIRX_ERR_USAGE);
  tirx_diag_clear(NULL);
  cr_assert_eq(tirx_ctx_set_program_name(NULL, "x"), TIRX_ERR_USAGE);

  tirx_ctx *ctx = new_ctx();
  cr_assert_eq(tirx_ctx_set_program_name(ctx, NULL), TIRX_OK);
  cr_assert_eq(tirx_parse_string(ctx, "x", "abc", 3, NULL), TIRX_ERR_USAGE);
  cr_assert_eq(tirx_parse_string(ctx, "x", NULL, 3, &m), TIRX_ERR_USAGE);
  cr_assert_eq(tirx_parse_file(ctx, NULL, &m), TIRX_ERR_USAGE);
  cr_assert_eq(tirx_parse_file(ctx, "x", NULL), TIRX_ERR_USAGE);
  cr_assert_eq(tirx_diag_get(ctx, 0, NULL), TIRX_ERR_USAGE);
  cr_assert_eq(tirx_diag_get(ctx, 0, &d), TIRX_ERR_USAGE); /* out of range */
  cr_assert_eq(tirx_diag_render(ctx, NULL, 5, NULL), TIRX_ERR_USAGE);
  cr_assert_eq(tirx_diag_render_file(ctx, NULL), TIRX_ERR_USAGE);
  tirx_module *ok = parse_ok(ctx, SCALE);
  cr_assert_eq(tirx_module_print(ok, NULL, 5, NULL), TIRX_ERR_USAGE);
  cr_assert_eq(tirx_module_print_file(ok, NULL), TIRX_ERR_USAGE);
  cr_assert_eq(tirx_module_equal(ok, NULL), 0);
  cr_assert_null(tirx_module_func_name(ok, 1));
  tirx_ctx_destroy(ctx);
}

Test(api, parse_ok) {
  tirx_ctx *ctx = new_ctx();
  tirx_module *m = parse_ok(ctx, SCALE);
  cr_assert_eq(tirx_diag_error_count(ctx), 0);
  cr_assert_eq(tirx_module_func_count(m), 1);
  cr_assert_str_eq(tirx_module_func_name(m, 0), "scale");
  char *text = print_all(m);
  cr_assert(strstr(text, "def scale(") != NULL, "print:\n%s", text);
  cr_assert(strstr(text, "T.cta_id([1])") != NULL, "print:\n%s", text);
  free(text);
  tirx_ctx_destroy(ctx);
}

Test(api, parse_not_nul_terminated) {
  /* The text need not be NUL-terminated: parse from a copy with junk after it. */
  size_t n = strlen(SCALE);
  char *copy = malloc(n + 8);
  memcpy(copy, SCALE, n);
  memset(copy + n, '@', 8);
  tirx_ctx *ctx = new_ctx();
  tirx_module *m = NULL;
  cr_assert_eq(tirx_parse_string(ctx, "scale.tirx", copy, n, &m), TIRX_OK);
  cr_assert_not_null(m);
  free(copy);
  tirx_ctx_destroy(ctx);
}

Test(api, round_trip_equal) {
  tirx_ctx *ctx = new_ctx();
  tirx_module *m = parse_ok(ctx, SCALE);
  char *p1 = print_all(m);
  tirx_module *m2 = parse_ok(ctx, p1);
  char *p2 = print_all(m2);
  cr_assert_str_eq(p1, p2);
  cr_assert(tirx_module_equal(m, m2));
  cr_assert_eq(tirx_module_hash(m), tirx_module_hash(m2));
  free(p1);
  free(p2);
  tirx_ctx_destroy(ctx);
}

Test(api, parse_error_status_and_spans) {
  tirx_ctx *ctx = new_ctx();
  tirx_module *m = (tirx_module *)1;
  cr_assert_eq(tirx_parse_string(ctx, "bad.tirx", UNDEFINED, strlen(UNDEFINED), &m),
               TIRX_ERR_INPUT);
  cr_assert_null(m);
  cr_assert_geq(tirx_diag_error_count(ctx), 1);
  cr_assert_geq(tirx_diag_count(ctx), tirx_diag_error_count(ctx));
  tirx_diagnostic d;
  cr_assert_eq(tirx_diag_get(ctx, 0, &d), TIRX_OK);
  cr_assert_eq(d.severity, TIRX_SEV_ERROR);
  cr_assert_str_eq(d.span.file, "bad.tirx");
  cr_assert_eq(d.span.line, 6);
  cr_assert_eq(d.span.col, 12);
  cr_assert_not_null(d.message);
  cr_assert(strstr(d.message, "C") != NULL, "message: %s", d.message);

  tirx_diag_clear(ctx);
  cr_assert_eq(tirx_diag_count(ctx), 0);
  cr_assert_eq(tirx_diag_error_count(ctx), 0);
  /* After clearing, a good source parses in the same context. */
  parse_ok(ctx, SCALE);
  tirx_ctx_destroy(ctx);
}

Test(api, syntax_error) {
  tirx_ctx *ctx = new_ctx();
  tirx_module *m = NULL;
  cr_assert_eq(tirx_parse_string(ctx, "broken.tirx", BROKEN, strlen(BROKEN), &m), TIRX_ERR_INPUT);
  cr_assert_null(m);
  tirx_diagnostic d;
  cr_assert_eq(tirx_diag_get(ctx, 0, &d), TIRX_OK);
  cr_assert_eq(d.span.line, 2);
  /* Earlier errors in a context do not fail a later good parse. */
  parse_ok(ctx, SCALE);
  tirx_ctx_destroy(ctx);
}

Test(api, render_format) {
  tirx_ctx *ctx = new_ctx();
  tirx_module *m = NULL;
  tirx_parse_string(ctx, "bad.tirx", UNDEFINED, strlen(UNDEFINED), &m);
  char buf[4096];
  size_t need = 0;
  cr_assert_eq(tirx_diag_render(ctx, buf, sizeof buf, &need), TIRX_OK);
  cr_assert_eq(strlen(buf), need);
  cr_assert(strncmp(buf, "bad.tirx:6:12: error: ", 22) == 0, "render:\n%s", buf);
  /* The quoted line and a caret under column 12. */
  cr_assert(strstr(buf, "\n      A[0] = C[0]\n") != NULL, "render:\n%s", buf);
  cr_assert(strstr(buf, "\n             ^") != NULL, "render:\n%s", buf);

  /* render_file writes the same bytes. */
  FILE *f = tmpfile();
  cr_assert_not_null(f);
  cr_assert_eq(tirx_diag_render_file(ctx, f), TIRX_OK);
  rewind(f);
  char back[4096];
  size_t got = fread(back, 1, sizeof back, f);
  fclose(f);
  cr_assert_eq(got, need);
  cr_assert(memcmp(back, buf, need) == 0);
  tirx_ctx_destroy(ctx);
}

Test(api, render_empty) {
  tirx_ctx *ctx = new_ctx();
  char buf[4] = "xyz";
  size_t need = 9;
  cr_assert_eq(tirx_diag_render(ctx, buf, sizeof buf, &need), TIRX_OK);
  cr_assert_eq(need, 0);
  cr_assert_str_eq(buf, "");
  cr_assert_eq(tirx_diag_render(ctx, NULL, 0, &need), TIRX_ERR_TRUNCATED);
  tirx_ctx_destroy(ctx);
}

Test(api, print_truncation) {
  tirx_ctx *ctx = new_ctx();
  tirx_module *m = parse_ok(ctx, SCALE);
  char *full = print_all(m);
  size_t len = strlen(full);
  cr_assert_gt(len, 10);

  /* cap 0: nothing written (not even the NUL), the length reported. */
  char buf[8192];
  memset(buf, 'Z', sizeof buf);
  size_t need = 0;
  cr_assert_eq(tirx_module_print(m, buf, 0, &need), TIRX_ERR_TRUNCATED);
  cr_assert_eq(need, len);
  cr_assert_eq(buf[0], 'Z');

  /* cap 1: just the NUL. */
  need = 0;
  cr_assert_eq(tirx_module_print(m, buf, 1, &need), TIRX_ERR_TRUNCATED);
  cr_assert_eq(need, len);
  cr_assert_eq(buf[0], '\0');
  cr_assert_eq(buf[1], 'Z');

  /* One short of the NUL: the text minus its last byte. */
  memset(buf, 'Z', sizeof buf);
  cr_assert_eq(tirx_module_print(m, buf, len, &need), TIRX_ERR_TRUNCATED);
  cr_assert_eq(strlen(buf), len - 1);
  cr_assert(strncmp(buf, full, len - 1) == 0);

  /* Exact fit: text plus NUL, nothing written past it. */
  memset(buf, 'Z', sizeof buf);
  cr_assert_eq(tirx_module_print(m, buf, len + 1, NULL), TIRX_OK);
  cr_assert_str_eq(buf, full);
  cr_assert_eq(buf[len + 1], 'Z');

  /* print_file writes the same bytes. */
  FILE *f = tmpfile();
  cr_assert_eq(tirx_module_print_file(m, f), TIRX_OK);
  rewind(f);
  size_t got = fread(buf, 1, sizeof buf, f);
  fclose(f);
  cr_assert_eq(got, len);
  cr_assert(memcmp(buf, full, len) == 0);
  free(full);
  tirx_ctx_destroy(ctx);
}

Test(api, render_truncation) {
  tirx_ctx *ctx = new_ctx();
  tirx_module *m = NULL;
  tirx_parse_string(ctx, "bad.tirx", UNDEFINED, strlen(UNDEFINED), &m);
  size_t need = 0;
  cr_assert_eq(tirx_diag_render(ctx, NULL, 0, &need), TIRX_ERR_TRUNCATED);
  cr_assert_gt(need, 0);
  char small[5];
  size_t need2 = 0;
  cr_assert_eq(tirx_diag_render(ctx, small, sizeof small, &need2), TIRX_ERR_TRUNCATED);
  cr_assert_eq(need2, need);
  cr_assert_str_eq(small, "bad.");
  tirx_ctx_destroy(ctx);
}

Test(api, file_not_found) {
  tirx_ctx *ctx = new_ctx();
  tirx_module *m = (tirx_module *)1;
  const char *path = "/nonexistent/dir/kernel.tirx";
  cr_assert_eq(tirx_parse_file(ctx, path, &m), TIRX_ERR_IO);
  cr_assert_null(m);
  cr_assert_eq(tirx_diag_error_count(ctx), 1);
  tirx_diagnostic d;
  cr_assert_eq(tirx_diag_get(ctx, 0, &d), TIRX_OK);
  cr_assert_eq(d.span.line, 0);
  cr_assert(strstr(d.message, "cannot open '/nonexistent/dir/kernel.tirx'") != NULL, "%s",
            d.message);
  cr_assert(strstr(d.message, "No such file") != NULL, "%s", d.message);
  tirx_ctx_destroy(ctx);
}

Test(api, parse_file_ok) {
  char path[] = "/tmp/tirx_test_api_XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  FILE *f = fdopen(fd, "w");
  fputs(SCALE, f);
  fclose(f);
  tirx_ctx *ctx = new_ctx();
  tirx_module *m = NULL;
  tirx_status st = tirx_parse_file(ctx, path, &m);
  remove(path);
  cr_assert_eq(st, TIRX_OK);
  cr_assert_str_eq(tirx_module_func_name(m, 0), "scale");
  tirx_ctx_destroy(ctx);
}

Test(api, too_large) {
  /* The limit is checked before the text is touched, so a huge len is safe
   * here only because the buffer is never read: pass a real, large buffer. */
  size_t n = (64u << 20) + 1;
  char *big = malloc(n);
  cr_assert_not_null(big);
  memset(big, ' ', n);
  tirx_ctx *ctx = new_ctx();
  tirx_module *m = NULL;
  cr_assert_eq(tirx_parse_string(ctx, "big.tirx", big, n, &m), TIRX_ERR_INPUT);
  free(big);
  char buf[256];
  tirx_diag_render(ctx, buf, sizeof buf, NULL);
  cr_assert_str_eq(buf, "big.tirx: error: file too large (limit 64 MiB)\n");
  tirx_ctx_destroy(ctx);
}

/* ---- Two contexts on two threads ------------------------------------------------ */

enum { ROUNDS = 200 };

typedef struct job {
  char *first; /* print of round 0 */
  int mismatches, failures;
} job;

static void *worker(void *arg) {
  job *j = arg;
  tirx_ctx *ctx = NULL;
  if (tirx_ctx_create(&ctx) != TIRX_OK) {
    j->failures++;
    return NULL;
  }
  for (int i = 0; i < ROUNDS; i++) {
    tirx_module *m = NULL;
    size_t need = 0;
    if (tirx_parse_string(ctx, "scale.tirx", SCALE, strlen(SCALE), &m) != TIRX_OK ||
        tirx_module_print(m, NULL, 0, &need) != TIRX_ERR_TRUNCATED) {
      j->failures++;
      continue;
    }
    char *buf = malloc(need + 1);
    if (!buf || tirx_module_print(m, buf, need + 1, NULL) != TIRX_OK) {
      j->failures++;
      free(buf);
      continue;
    }
    if (!j->first)
      j->first = buf;
    else {
      if (strcmp(buf, j->first) != 0) j->mismatches++;
      free(buf);
    }
  }
  tirx_ctx_destroy(ctx);
  return NULL;
}

Test(api, two_threads) {
  job jobs[2] = {{0}, {0}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    cr_assert_eq(pthread_create(&t[i], NULL, worker, &jobs[i]), 0);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < 2; i++) {
    cr_assert_eq(jobs[i].failures, 0);
    cr_assert_eq(jobs[i].mismatches, 0);
    cr_assert_not_null(jobs[i].first);
  }
  cr_assert_str_eq(jobs[0].first, jobs[1].first);
  free(jobs[0].first);
  free(jobs[1].first);
}

/* ---- source text forms Python accepts -------------------------------------------
 * Regression tests: a UTF-8 byte-order mark and CR-only line endings used to
 * be refused ("invalid character U+FEFF", "no @T.prim_func function found"). */

/* SCALE with every "\n" replaced by `eol`, after `prefix`. */
static char *reshape(const char *prefix, const char *eol) {
  size_t n = strlen(prefix) + strlen(SCALE) * strlen(eol) + 1, k = strlen(prefix);
  char *out = malloc(n);
  cr_assert_not_null(out);
  memcpy(out, prefix, k);
  for (const char *p = SCALE; *p; p++)
    if (*p == '\n') {
      memcpy(out + k, eol, strlen(eol));
      k += strlen(eol);
    } else {
      out[k++] = *p;
    }
  out[k] = 0;
  return out;
}

Test(api, bom_and_line_endings) {
  tirx_ctx *ctx = new_ctx();
  char *want = print_all(parse_ok(ctx, SCALE));
  const char *forms[][2] = {
      {"\xEF\xBB\xBF", "\n"}, {"", "\r"}, {"", "\r\n"}, {"\xEF\xBB\xBF", "\r"}};
  for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
    char *src = reshape(forms[i][0], forms[i][1]);
    char *got = print_all(parse_ok(ctx, src));
    cr_expect_str_eq(got, want, "form %zu", i);
    free(got);
    free(src);
  }
  free(want);
  tirx_ctx_destroy(ctx);
}

Test(api, bom_and_cr_keep_error_locations) {
  tirx_ctx *ctx = new_ctx();
  /* UNDEFINED's error is at 6:12; neither the mark nor CR endings move it */
  const char *prefixes[] = {"\xEF\xBB\xBF", ""};
  const char *eols[] = {"\r\n", "\r"};
  for (int i = 0; i < 2; i++) {
    size_t n = strlen(UNDEFINED), k = strlen(prefixes[i]);
    char src[512];
    memcpy(src, prefixes[i], k);
    for (size_t j = 0; j < n; j++)
      if (UNDEFINED[j] == '\n') {
        memcpy(src + k, eols[i], strlen(eols[i]));
        k += strlen(eols[i]);
      } else {
        src[k++] = UNDEFINED[j];
      }
    tirx_module *m = NULL;
    tirx_diag_clear(ctx);
    cr_assert_eq(tirx_parse_string(ctx, "u.tirx", src, k, &m), TIRX_ERR_INPUT);
    tirx_diagnostic d;
    cr_assert_eq(tirx_diag_get(ctx, 0, &d), TIRX_OK);
    cr_expect_eq(d.span.line, 6, "case %d", i);
    cr_expect_eq(d.span.col, 12, "case %d", i);
    char buf[1024];
    cr_assert_eq(tirx_diag_render(ctx, buf, sizeof buf, NULL), TIRX_OK);
    cr_expect(strstr(buf, "\n      A[0] = C[0]\n"), "case %d: the quoted line: %s", i, buf);
  }
  /* A mark anywhere but the start is still an error, as in Python. */
  static const char MID[] = "x = 1\n\xEF\xBB\xBFy = 2\n";
  tirx_module *m = NULL;
  cr_expect_eq(tirx_parse_string(ctx, "m.tirx", MID, strlen(MID), &m), TIRX_ERR_INPUT);
  tirx_ctx_destroy(ctx);
}

/* ---- the number of functions ------------------------------------------------------
 * A module holds at most 16384 functions (docs/limits.md); one more is a
 * located error at the first function past the limit, reported once. The
 * redefinition check behind it is a hash lookup: a regression test for the
 * scan of all earlier functions per function, quadratic in their number. */

/* n functions of 4 lines each after a 2-line header: f<i> starts on line 3 + 5i. */
static char *many_funcs(size_t n) {
  size_t cap = 64 + n * 128, len = 0; /* each function is under 110 bytes */
  char *src = malloc(cap);
  cr_assert_not_null(src);
  len += (size_t)snprintf(src, cap, "# from tvm.script import tirx as T\n\n");
  for (size_t i = 0; i < n; i++)
    len += (size_t)snprintf(src + len, cap - len,
                            "@T.prim_func\ndef f%zu(A: T.Buffer((4,), \"float32\")):\n"
                            "    T.device_entry()\n    A[0] = T.float32(1.0)\n\n",
                            i);
  return src;
}

Test(api, function_count_limit) {
  tirx_ctx *ctx = new_ctx();
  char *src = many_funcs(16384);
  tirx_module *m = NULL;
  cr_assert_eq(tirx_parse_string(ctx, "many.tirx", src, strlen(src), &m), TIRX_OK);
  cr_expect_eq(tirx_module_func_count(m), 16384);
  free(src);
  src = many_funcs(16390);
  cr_assert_eq(tirx_parse_string(ctx, "many.tirx", src, strlen(src), &m), TIRX_ERR_INPUT);
  cr_expect_eq(tirx_diag_error_count(ctx), 1, "reported once");
  tirx_diagnostic d;
  cr_assert_eq(tirx_diag_get(ctx, 0, &d), TIRX_OK);
  cr_expect_str_eq(d.message, "too many functions in one module (limit 16384)");
  cr_expect_eq(d.span.line, 3 + 5 * 16384, "at f16384 (line %u)", d.span.line);
  free(src);
  /* a redefinition far down the list still names the first one */
  src = many_funcs(3000);
  char *dup = strstr(src, "def f2999(");
  memcpy(dup, "def f7   (", 10);
  tirx_diag_clear(ctx);
  cr_assert_eq(tirx_parse_string(ctx, "dup.tirx", src, strlen(src), &m), TIRX_ERR_INPUT);
  cr_assert_eq(tirx_diag_get(ctx, 0, &d), TIRX_OK);
  cr_expect_str_eq(d.message, "redefinition of function 'f7'");
  cr_assert_eq(tirx_diag_get(ctx, 1, &d), TIRX_OK);
  cr_expect_eq(d.span.line, 3 + 5 * 7);
  free(src);
  tirx_ctx_destroy(ctx);
}

/* ---- S-TIR blocks: structural equality sees every part of a block ---------------- */

/* An s_tir function with one block; %s are the pieces the variants change. */
static char *sblock_src(const char *name, const char *axis, const char *reads) {
  static const char fmt[] = "@T.prim_func(s_tir=True)\n"
                            "def f(A: T.Buffer((4, 4), \"int32\")):\n"
                            "    for i, j in T.grid(4, 4):\n"
                            "        with T.sblock(\"%s\"):\n"
                            "            vi, vj = T.axis.remap(\"%s\", [i, j])\n"
                            "            T.reads(%s)\n"
                            "            T.writes(A[vi, vj])\n"
                            "            A[vi, vj] = vi + vj\n";
  size_t n = sizeof fmt + strlen(name) + strlen(axis) + strlen(reads);
  char *s = malloc(n);
  cr_assert_not_null(s);
  snprintf(s, n, fmt, name, axis, reads);
  return s;
}

static int sblock_variant_equal(const char *name, const char *axis, const char *reads) {
  tirx_ctx *ctx = new_ctx();
  char *a = sblock_src("C", "SS", "");
  char *b = sblock_src(name, axis, reads);
  int eq = tirx_module_equal(parse_ok(ctx, a), parse_ok(ctx, b));
  free(a);
  free(b);
  tirx_ctx_destroy(ctx);
  return eq;
}

Test(api, sblock_equality) {
  cr_assert(sblock_variant_equal("C", "SS", ""));
  cr_assert(!sblock_variant_equal("D", "SS", ""), "the block name is compared");
  cr_assert(!sblock_variant_equal("C", "SR", ""), "the iterator kinds are compared");
  cr_assert(!sblock_variant_equal("C", "SS", "A[vi, vj]"), "the read regions are compared");
}

/* The implicit root (printed as a comment) and a written root block differ. */
Test(api, sblock_implicit_root_is_not_a_written_root) {
  static const char implicit[] = "@T.prim_func(s_tir=True)\n"
                                 "def f(A: T.Buffer((4,), \"int32\")):\n"
                                 "    for i in range(4):\n"
                                 "        with T.sblock(\"B\"):\n"
                                 "            vi = T.axis.spatial(4, i)\n"
                                 "            A[vi] = 0\n";
  static const char written[] = "@T.prim_func(s_tir=True)\n"
                                "def f(A: T.Buffer((4,), \"int32\")):\n"
                                "    with T.sblock(\"root\"):\n"
                                "        for i in range(4):\n"
                                "            with T.sblock(\"B\"):\n"
                                "                vi = T.axis.spatial(4, i)\n"
                                "                A[vi] = 0\n";
  tirx_ctx *ctx = new_ctx();
  tirx_module *a = parse_ok(ctx, implicit), *b = parse_ok(ctx, written);
  cr_assert(!tirx_module_equal(a, b));
  char *pa = print_all(a);
  cr_assert(strstr(pa, "    # with T.sblock(\"root\"):\n    for i in range(4):\n") != NULL, "%s",
            pa);
  free(pa);
  tirx_ctx_destroy(ctx);
}
