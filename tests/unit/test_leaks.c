/*
 * test_leaks.c - compiling and loading over and over in one process must not
 * grow memory or file descriptors (a long-lived service, a Python session
 * or a JIT cache compiles thousands of kernels).
 *
 * Each iteration opens the runtime on the fake driver
 * (tests/unit/fake/fake_cuda.c), then for every .tirx file of examples/ and
 * tests/golden/lowering: creates a context, parses, compiles to CUDA
 * (tx_compile_module, TX_EMIT_CUDA) or, on every NVRTC_EVERY-th iteration
 * when NVRTC is installed, to PTX (NVRTC for every kernel of every
 * iteration would take minutes; 1 in 25 keeps the test near 20 s on two
 * cores and still loads, uses and unloads libnvrtc ~800 times), loads the result as a module (PTX,
 * or the CUDA text when there is none: the fake accepts any image), looks a kernel up, unloads it
 * and destroys the context; then closes the runtime. Examples that stop with located errors (tile
 * primitives) exercise the error path.
 *
 * After WARMUP iterations (allocator pools, lazily loaded libraries and the
 * arena's chunk cache reach their steady state) the resident set size
 * (/proc/self/statm) and the number of open descriptors (/proc/self/fd) are
 * sampled, and again at the end: RSS may grow by less than RSS_SLACK_KIB,
 * descriptors not at all. Under AddressSanitizer (whose quarantine holds
 * freed memory on purpose) the iterations drop to 100 and only descriptors
 * are compared; LeakSanitizer checks the heap at exit instead.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/context.h"
#include "driver/compile.h"
#include "runtime/runtime.h"

#if defined(__SANITIZE_ADDRESS__)
#define TX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TX_ASAN 1
#endif
#endif

#ifdef TX_ASAN
enum { ITERATIONS = 100, WARMUP = 10, NVRTC_EVERY = 10 };
#else
enum { ITERATIONS = 1000, WARMUP = 20, NVRTC_EVERY = 25 };
#endif
enum { MAX_FILES = 64, RSS_SLACK_KIB = 2048 };

typedef struct corpus {
  char *paths[MAX_FILES];
  tirx_status expect[MAX_FILES]; /* the status of iteration 0: every later one agrees */
  size_t count, compiled;
} corpus;

static void add_dir(corpus *c, const char *dir) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "cannot open %s", dir);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    if (n < 6 || strcmp(e->d_name + n - 5, ".tirx") != 0 || strstr(e->d_name, ".expected."))
      continue;
    cr_assert_lt(c->count, MAX_FILES);
    char *path = malloc(strlen(dir) + n + 2);
    cr_assert_not_null(path);
    sprintf(path, "%s/%s", dir, e->d_name);
    c->paths[c->count++] = path;
  }
  closedir(d);
}

static long rss_kib(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long size = 0, resident = 0;
  cr_assert_not_null(f);
  cr_assert_eq(fscanf(f, "%ld %ld", &size, &resident), 2);
  fclose(f);
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Open descriptors, not counting the one opendir itself holds. */
static int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  cr_assert_not_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n - 1;
}

/* The first `.entry NAME(` of a PTX text, for a function lookup. */
static void first_entry(const char *ptx, char *name, size_t cap) {
  const char *p = ptx ? strstr(ptx, ".entry ") : NULL;
  snprintf(name, cap, "kernel");
  if (!p) return;
  p += 7;
  size_t n = strcspn(p, "( \n");
  if (n && n < cap) {
    memcpy(name, p, n);
    name[n] = '\0';
  }
}

static tirx_status compile(tirx_ctx *ctx, const tirx_module *mod, tx_emit_kind emit,
                           tx_strbuf *out) {
  tx_compile_request req;
  tx_compile_request_init(&req);
  req.emit = emit;
  return tx_compile_module(ctx, mod->mod, &req, NULL, out);
}

/* Is NVRTC usable here? One PTX compile of a kernel that is known to work. */
static int have_nvrtc(void) {
  tirx_ctx *ctx = NULL;
  tirx_module *mod = NULL;
  tx_strbuf out = {0};
  cr_assert_eq(tirx_ctx_create(&ctx), TIRX_OK);
  int ok =
      tirx_parse_file(ctx, TIRX_SOURCE_DIR "/tests/golden/lowering/scale.tirx", &mod) == TIRX_OK &&
      compile(ctx, mod, TX_EMIT_PTX, &out) == TIRX_OK;
  tx_sb_free(&out);
  tirx_ctx_destroy(ctx);
  return ok;
}

static void iteration(corpus *c, int it, int nvrtc) {
  tx_runtime *rt = NULL;
  tx_rt_error err = {0};
  cr_assert_eq(tx_rt_open_with(FAKE_CUDA_PATH, 0, &rt, &err), TIRX_OK, "%s", err.message);
  int with_ptx = nvrtc && it % NVRTC_EVERY == 0;
  for (size_t i = 0; i < c->count; i++) {
    /* A context per kernel: errors recorded in a context fail every later
     * compile in it, and contexts are what a long-lived user creates. */
    tirx_ctx *ctx = NULL;
    cr_assert_eq(tirx_ctx_create(&ctx), TIRX_OK);
    tirx_module *mod = NULL;
    tirx_status st = tirx_parse_file(ctx, c->paths[i], &mod);
    cr_assert_eq(st, TIRX_OK, "%s: parse failed (%d)", c->paths[i], st);
    tx_strbuf out = {0};
    st = compile(ctx, mod, with_ptx ? TX_EMIT_PTX : TX_EMIT_CUDA, &out);
    if (it == 0) {
      c->expect[i] = st;
      /* The doc kernels all compile; only examples may stop with errors. */
      cr_assert(st == TIRX_OK || (st == TIRX_ERR_INPUT && strstr(c->paths[i], "/examples/")),
                "%s: status %d", c->paths[i], st);
      c->compiled += st == TIRX_OK;
    }
    /* Some examples stop with located errors (tile primitives): that path
     * must not leak either, and must fail the same way every time. */
    cr_assert_eq(st, c->expect[i], "%s: iteration %d: status %d, first %d", c->paths[i], it, st,
                 c->expect[i]);
    if (st == TIRX_OK) {
      const char *image = tx_sb_cstr(&out);
      cr_assert_not_null(image);
      tx_rt_module *m = NULL;
      cr_assert_eq(tx_rt_module_load(rt, image, out.len + 1, &m, &err), TIRX_OK, "%s", err.message);
      char name[128];
      first_entry(with_ptx ? image : NULL, name, sizeof name);
      tx_rt_function *fn = NULL;
      cr_assert_eq(tx_rt_get_function(rt, m, name, &fn, &err), TIRX_OK, "%s", err.message);
      tx_rt_module_unload(rt, m);
    }
    tx_sb_free(&out);
    tirx_ctx_destroy(ctx);
  }
  tx_rt_close(rt);
}

Test(leaks, compile_load_unload_1000_times, .timeout = 240) {
  corpus c = {0};
  add_dir(&c, TIRX_SOURCE_DIR "/examples");
  add_dir(&c, TIRX_SOURCE_DIR "/tests/golden/lowering");
  cr_assert_gt(c.count, 10, "only %zu kernels found", c.count);
  int nvrtc = have_nvrtc();
  if (!nvrtc) cr_log_info("NVRTC not available: CUDA only, the CUDA text is loaded instead");

  long rss0 = 0;
  int fds0 = 0;
  for (int it = 0; it < ITERATIONS; it++) {
    iteration(&c, it, nvrtc);
    if (it + 1 == WARMUP) {
      rss0 = rss_kib();
      fds0 = open_fds();
    }
  }
  long rss1 = rss_kib();
  int fds1 = open_fds();
  cr_log_info("%d iterations of %zu kernels (%zu compile; PTX every %d: %s): RSS %ld -> %ld KiB, "
              "fds %d -> %d",
              ITERATIONS, c.count, c.compiled, NVRTC_EVERY, nvrtc ? "yes" : "no NVRTC", rss0, rss1,
              fds0, fds1);
  cr_expect_eq(fds1, fds0, "open file descriptors grew from %d to %d", fds0, fds1);
#ifndef TX_ASAN
  cr_expect_lt(rss1 - rss0, RSS_SLACK_KIB, "RSS grew by %ld KiB (from %ld to %ld KiB)", rss1 - rss0,
               rss0, rss1);
#endif
  for (size_t i = 0; i < c.count; i++)
    free(c.paths[i]);
}
