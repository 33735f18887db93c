/*
 * test_alloc_fail.c - every allocation failure surfaces as TIRX_ERR_NOMEM,
 * with nothing leaked, and every allocation goes through the caller's
 * allocator (tirx.h "Allocators").
 *
 * A counting allocator fails its Nth request (an allocation or a resize)
 * and only that one; each case runs with N = 1, 2, ... until a run gets
 * through without reaching N. Each run must end with the status and output
 * of the unfailed run, or with TIRX_ERR_NOMEM and no diagnostic but an
 * unlocated "out of memory" (no located error, no internal error, no I/O
 * error). After every run the allocator checks that each block was freed
 * (live count 0) and that every resize and free named the block's exact
 * size, so leaks show without AddressSanitizer too.
 *
 * The cases: parse (tirx_parse_file), print, the internal compile to CUDA
 * (tx_compile_module, no NVRTC), tirx_compile with host_only (alone, and
 * twice through an in-memory cache made with the allocator), executable
 * save, load, and a call through the fake CUDA driver
 * (tests/unit/fake/fake_cuda.c) with the runtime, the executable and the
 * DLPack tensors all on the allocator. The kernels: the .tirx files of
 * examples/ (the
 * tile ones stop with located errors, so the error path is failed too) and
 * a few goldens.
 *
 * The executable is linked with --wrap for malloc, calloc, realloc, strdup
 * and strndup (tests/CMakeLists.txt): calls that libtirx's own objects
 * make to the C library are counted, and while a case runs with the
 * allocator there must be none. (The C library's internal allocations,
 * fopen's buffer or dlopen's, are not calls from libtirx and not counted.)
 * A control run without an allocator shows the count works.
 *
 * Every case prints how many allocations it makes, which is also how many
 * runs it takes (docs/runtime.md "Allocators" quotes them). With
 * TIRX_ALLOC_FAIL_TRACE=1 in the environment each injected failure prints
 * its stack (addresses for addr2line), to find the site behind a failure.
 *
 * The audit's findings each have a case here that failed before the fix:
 * the builder's "internal error: out of memory" (parse, print), located
 * errors such as "unknown decorator" after a failed intern (parse, print)
 * or "variable is not defined" after a failed name table (cuda), loading
 * that said "does not re-parse" (load, call) or TIRX_ERR_IO for a file it
 * could not buffer (load), and cse's leak when its first calloc failed
 * (cuda on tiled_gemm).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/cuda/codegen.h"
#include "fake/fake_cuda.h"
#include "driver/context.h"
#include "driver/compile.h"
#include "abi/exe_format.h"
#include "support/file.h"
#include "tirx/tirx.h"

/* ---- the C library, wrapped (-Wl,--wrap=...) ---------------------------------- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);

/* Allocations made through the C library by libtirx (or this file) while
 * `watching`; a test program's global is no library state. */
static int watching;
static unsigned long libc_calls;

void *__wrap_malloc(size_t n) {
  libc_calls += watching;
  return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t size) {
  libc_calls += watching;
  return __real_calloc(n, size);
}
void *__wrap_realloc(void *p, size_t n) {
  libc_calls += watching;
  return __real_realloc(p, n);
}
char *__wrap_strdup(const char *s) {
  libc_calls += watching;
  return __real_strdup(s);
}
char *__wrap_strndup(const char *s, size_t n) {
  libc_calls += watching;
  return __real_strndup(s, n);
}

/* ---- the counting allocator ---------------------------------------------------- */

typedef struct counting {
  unsigned long requests; /* allocations and resizes asked for since arm() */
  unsigned long fail_at;  /* the request that fails (0: none) */
  int armed;              /* requests count (and fail) only between arm() and done() */
  int hit;                /* the failure was injected */
  long live_blocks;
  long long live_bytes;
  int bad_size; /* a resize or free named another size than the block's */
} counting;

/* The allocator's own header, in front of what libtirx gets: the size it
 * was asked for, to check the `old` it is told later. */
enum { HDR = 16 };

static void *counting_fn(void *ud, void *ptr, size_t old, size_t n) {
  counting *c = ud;
  unsigned char *block = ptr ? (unsigned char *)ptr - HDR : NULL;
  size_t had = 0;
  if (block) memcpy(&had, block, sizeof had);
  if (block && had != old) c->bad_size = 1;
  if (n == 0) {
    if (block) {
      c->live_blocks--;
      c->live_bytes -= (long long)had;
      free(block);
    }
    return NULL;
  }
  if (c->armed && ++c->requests == c->fail_at) {
    c->hit = 1;
    if (getenv("TIRX_ALLOC_FAIL_TRACE")) { /* where it failed, for addr2line */
      void *bt[32];
      backtrace_symbols_fd(bt, backtrace(bt, 32), 2);
    }
    return NULL;
  }
  unsigned char *q = __real_realloc(block, n + HDR);
  if (!q) return NULL;
  memcpy(q, &n, sizeof n);
  if (!block) c->live_blocks++;
  c->live_bytes += (long long)n - (long long)had;
  return q + HDR;
}

/* ---- one run of a case ------------------------------------------------------------ */

typedef struct kernel {
  const char *path; /* relative to the source tree */
  char *text;
  size_t len;
  const char *func; /* for the call case: its function, or NULL to skip it */
  const char *arch; /* the CUDA cases' target (NULL: sm_90a) */
} kernel;

typedef struct run {
  counting c;
  tirx_allocator alloc;
  unsigned long fail_at;
  const kernel *k;
  tx_strbuf out;  /* what the run produced (libc; written after done()) */
  char bad[1200]; /* why an out-of-memory run's diagnostics are not allowed */
} run;

/* Failures are injected from here on, and libc calls counted. */
static void arm(run *r) {
  r->c.requests = 0;
  r->c.fail_at = r->fail_at;
  r->c.armed = 1;
  watching = 1;
}

/* The case's work is over: what follows (recording its output, freeing)
 * neither fails nor counts as the case's allocations. */
static void done(run *r) {
  r->c.armed = 0;
  watching = 0;
}

static void note_bad(run *r, const char *fmt, const char *detail) {
  if (!r->bad[0]) snprintf(r->bad, sizeof r->bad, fmt, detail);
}

/* A NOMEM run may leave unlocated "out of memory" errors and nothing else. */
static int nomem_diagnostic(const tirx_diagnostic *d) {
  return d->severity == TIRX_SEV_ERROR && d->span.line == 0 &&
         strstr(d->message, "out of memory") != NULL;
}

static void check_nomem_diags(run *r, const tirx_ctx *ctx) {
  for (size_t i = 0; i < tirx_diag_count(ctx); i++) {
    tirx_diagnostic d;
    cr_assert_eq(tirx_diag_get(ctx, i, &d), TIRX_OK);
    if (!nomem_diagnostic(&d)) note_bad(r, "diagnostic '%s'", d.message);
  }
}

static void check_nomem_error(run *r, const tirx_error *err) {
  tirx_diagnostic d = {TIRX_SEV_ERROR, err->span, err->message};
  if (err->code != TIRX_ERR_NOMEM) note_bad(r, "error code of '%s'", err->message);
  if (!nomem_diagnostic(&d)) note_bad(r, "error '%s'", err->message);
}

/* Status, then the context's rendered diagnostics, into the output. */
static void record_diags(run *r, tirx_ctx *ctx) {
  size_t need = 0;
  tirx_diag_render(ctx, NULL, 0, &need);
  char *buf = malloc(need + 1);
  cr_assert_not_null(buf);
  cr_assert_eq(tirx_diag_render(ctx, buf, need + 1, NULL), TIRX_OK);
  tx_sb_puts(&r->out, buf);
  free(buf);
}

static void record_error(run *r, tirx_status st, const tirx_error *err) {
  tx_sb_printf(&r->out, "status %d", (int)st);
  if (st != TIRX_OK) tx_sb_printf(&r->out, ": %s (line %u)", err->message, err->span.line);
  tx_sb_putc(&r->out, '\n');
}

/* The functions of an executable and their parameters. */
static void record_exe(run *r, const tirx_executable *exe) {
  tx_sb_printf(&r->out, "arch %s\n", tirx_executable_arch(exe));
  for (size_t i = 0; i < tirx_executable_func_count(exe); i++) {
    const char *f = tirx_executable_func_name(exe, i);
    tx_sb_printf(&r->out, "func %s:", f);
    for (size_t p = 0; p < tirx_executable_param_count(exe, f); p++) {
      tirx_param_info pi;
      cr_assert_eq(tirx_executable_param(exe, f, p, &pi), TIRX_OK);
      tx_sb_printf(&r->out, " %s/%d/%d.%d/%d", pi.name, pi.kind, pi.dtype.code, pi.dtype.bits,
                   (int)pi.ndim);
    }
    tx_sb_putc(&r->out, '\n');
  }
  size_t len = 0;
  const char *ptx = tirx_executable_ptx(exe, &len);
  tx_sb_printf(&r->out, "ptx %zu bytes\n", len);
  tx_sb_putn(&r->out, ptx, len);
}

/* ---- the cases ---------------------------------------------------------------------- */

typedef tirx_status (*case_fn)(run *r);

static tirx_status case_parse(run *r) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", TIRX_SOURCE_DIR, r->k->path);
  arm(r);
  tirx_ctx *ctx = NULL;
  tirx_status st = tirx_ctx_create_with(&r->alloc, &ctx);
  tirx_module *m = NULL;
  if (st == TIRX_OK) st = tirx_parse_file(ctx, path, &m);
  done(r);
  tx_sb_printf(&r->out, "status %d, %zu functions\n", (int)st, m ? tirx_module_func_count(m) : 0);
  if (ctx) {
    if (st == TIRX_ERR_NOMEM) check_nomem_diags(r, ctx);
    record_diags(r, ctx);
  }
  tirx_ctx_destroy(ctx);
  return st;
}

static tirx_status case_print(run *r) {
  arm(r);
  tirx_ctx *ctx = NULL;
  tirx_status st = tirx_ctx_create_with(&r->alloc, &ctx);
  tirx_module *m = NULL;
  if (st == TIRX_OK) st = tirx_parse_string(ctx, r->k->path, r->k->text, r->k->len, &m);
  char *text = NULL;
  if (st == TIRX_OK) {
    size_t need = 0;
    st = tirx_module_print(m, NULL, 0, &need);
    if (st == TIRX_ERR_TRUNCATED) {
      watching = 0; /* the test's own buffer */
      text = malloc(need + 1);
      cr_assert_not_null(text);
      watching = 1;
      st = tirx_module_print(m, text, need + 1, NULL);
    }
  }
  done(r);
  tx_sb_printf(&r->out, "status %d\n", (int)st);
  if (st == TIRX_OK) tx_sb_puts(&r->out, text);
  if (st == TIRX_ERR_NOMEM && ctx) check_nomem_diags(r, ctx);
  if (ctx) record_diags(r, ctx);
  free(text);
  tirx_ctx_destroy(ctx);
  return st;
}

/* The internal path to CUDA C: pipeline and code generator, no NVRTC.
 * With `chunk`, the context's arenas come in chunks that small. */
static tirx_status cuda_with_chunks(run *r, size_t chunk) {
  arm(r);
  tirx_ctx *ctx = NULL;
  tirx_status st = tirx_ctx_create_with(&r->alloc, &ctx);
  if (st == TIRX_OK && chunk) tx_arena_set_chunk_bytes(ctx->arena, chunk);
  tirx_module *m = NULL;
  if (st == TIRX_OK) st = tirx_parse_string(ctx, r->k->path, r->k->text, r->k->len, &m);
  tx_strbuf cuda = {.alloc = &r->alloc};
  if (st == TIRX_OK) {
    tx_compile_request req;
    tx_compile_request_init(&req);
    req.emit = TX_EMIT_CUDA;
    if (r->k->arch) cr_assert(tx_target_from_arch(r->k->arch, &req.target));
    st = tx_compile_module(ctx, m->mod, &req, NULL, &cuda);
  }
  done(r);
  tx_sb_printf(&r->out, "status %d\n", (int)st);
  if (st == TIRX_OK) tx_sb_putn(&r->out, cuda.data ? cuda.data : "", cuda.len);
  tx_sb_free(&cuda);
  if (st == TIRX_ERR_NOMEM && ctx) check_nomem_diags(r, ctx);
  if (ctx) record_diags(r, ctx);
  tirx_ctx_destroy(ctx);
  return st;
}

static tirx_status case_cuda(run *r) {
  return cuda_with_chunks(r, 0);
}

/* IR nodes come from the arena, which asks the allocator once per 64 KiB
 * chunk: a kernel's whole IR takes a few. With 1 KiB chunks a failure
 * lands inside the builder and every pass, where a constructor returns
 * NULL mid-rewrite. */
static tirx_status case_cuda_small_chunks(run *r) {
  return cuda_with_chunks(r, 64);
}

/* NVRTC alone (the CUDA C made unarmed): the library handle, the options,
 * the log and the PTX buffers. TIRX_ERR_IO when there is no toolkit. */
static tirx_status case_nvrtc(run *r) {
  tirx_ctx *ctx = NULL;
  tirx_module *m = NULL;
  cr_assert_eq(tirx_ctx_create_with(&r->alloc, &ctx), TIRX_OK);
  cr_assert_eq(tirx_parse_string(ctx, r->k->path, r->k->text, r->k->len, &m), TIRX_OK);
  tx_compile_request req;
  tx_compile_request_init(&req);
  req.emit = TX_EMIT_CUDA;
  tx_strbuf cuda = {.alloc = &r->alloc}, ptx = {.alloc = &r->alloc}, log = {.alloc = &r->alloc};
  cr_assert_eq(tx_compile_module(ctx, m->mod, &req, NULL, &cuda), TIRX_OK);
  tx_nvrtc_options no = {.target = &req.target, .output = NVRTC_PTX, .verbose = 1};
  arm(r);
  tirx_status st = tx_nvrtc_compile(ctx->diags, cuda.data, cuda.len, NULL, &no, &ptx, &log);
  done(r);
  tx_sb_printf(&r->out, "status %d\n", (int)st);
  if (st == TIRX_OK) tx_sb_putn(&r->out, ptx.data, ptx.len);
  if (st == TIRX_ERR_NOMEM) check_nomem_diags(r, ctx);
  record_diags(r, ctx);
  tx_sb_free(&cuda);
  tx_sb_free(&ptx);
  tx_sb_free(&log);
  tirx_ctx_destroy(ctx);
  return st;
}

static void host_only_options(run *r, tirx_compile_options *o) {
  tirx_compile_options_init(o);
  o->host_only = 1;
  o->allocator = &r->alloc;
}

static tirx_status case_compile(run *r) {
  tirx_compile_options o;
  host_only_options(r, &o);
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  arm(r);
  tirx_status st = tirx_compile(r->k->path, r->k->text, r->k->len, &o, &exe, &err);
  done(r);
  record_error(r, st, &err);
  if (st == TIRX_ERR_NOMEM) check_nomem_error(r, &err);
  if (exe) record_exe(r, exe);
  tirx_executable_free(exe);
  return st;
}

/* tirx_compile_module: the pipeline runs in the module's context, the
 * executable comes from the options' allocator (the same one here). */
static tirx_status case_compile_module(run *r) {
  tirx_compile_options o;
  host_only_options(r, &o);
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  arm(r);
  tirx_ctx *ctx = NULL;
  tirx_status st = tirx_ctx_create_with(&r->alloc, &ctx);
  tirx_module *m = NULL;
  if (st == TIRX_OK) st = tirx_parse_string(ctx, r->k->path, r->k->text, r->k->len, &m);
  if (st == TIRX_OK) st = tirx_compile_module(m, &o, &exe, &err);
  done(r);
  if (m) record_error(r, st, &err);
  if (m && st == TIRX_ERR_NOMEM) check_nomem_error(r, &err);
  if (ctx) {
    if (st == TIRX_ERR_NOMEM) check_nomem_diags(r, ctx);
    record_diags(r, ctx);
  }
  if (exe) record_exe(r, exe);
  tirx_executable_free(exe);
  tirx_ctx_destroy(ctx);
  return st;
}

/* Two compiles of the same text through an in-memory cache on the
 * allocator: the second one is a hit (unless the first could not store). */
static tirx_status case_compile_cached(run *r) {
  tirx_compile_options o;
  host_only_options(r, &o);
  tirx_executable *a = NULL, *b = NULL;
  tirx_error err = {0};
  arm(r);
  tirx_status st = tirx_cache_create_with(&r->alloc, &o.cache);
  if (st == TIRX_OK) st = tirx_compile(r->k->path, r->k->text, r->k->len, &o, &a, &err);
  if (st == TIRX_OK) st = tirx_compile(r->k->path, r->k->text, r->k->len, &o, &b, &err);
  done(r);
  record_error(r, st, &err);
  if (st == TIRX_ERR_NOMEM && o.cache) check_nomem_error(r, &err);
  if (b) record_exe(r, b);
  tirx_executable_free(a);
  tirx_executable_free(b);
  tirx_cache_destroy(o.cache);
  return st;
}

/* Empty and remove a cache directory (its files are flat). */
static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]))) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(dir);
}

/* Two compiles through a fresh disk cache: the second reads the entry the
 * first wrote (when it could). */
static tirx_status case_compile_disk_cached(run *r) {
  char dir[] = "/tmp/tirx_alloc_disk_XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  tirx_compile_options o;
  host_only_options(r, &o);
  o.disk_cache = 1;
  o.cache_dir = dir;
  tirx_executable *a = NULL, *b = NULL;
  tirx_error err = {0};
  arm(r);
  tirx_status st = tirx_compile(r->k->path, r->k->text, r->k->len, &o, &a, &err);
  if (st == TIRX_OK) st = tirx_compile(r->k->path, r->k->text, r->k->len, &o, &b, &err);
  done(r);
  record_error(r, st, &err);
  if (st == TIRX_ERR_NOMEM) check_nomem_error(r, &err);
  if (b) record_exe(r, b);
  tirx_executable_free(a);
  tirx_executable_free(b);
  remove_dir(dir);
  return st;
}

/* An executable of the kernel on the allocator, compiled unarmed. */
static tirx_executable *compile_unarmed(run *r) {
  tirx_compile_options o;
  host_only_options(r, &o);
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  tirx_status st = tirx_compile(r->k->path, r->k->text, r->k->len, &o, &exe, &err);
  cr_assert_eq(st, TIRX_OK, "%s: %s", r->k->path, err.message);
  return exe;
}

static char *temp_path(void) {
  char *path = strdup("/tmp/tirx_alloc_fail_XXXXXX");
  cr_assert_not_null(path);
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  close(fd);
  return path;
}

static tirx_status case_save(run *r) {
  tirx_executable *exe = compile_unarmed(r);
  char *path = temp_path();
  tirx_error err = {0};
  arm(r);
  tirx_status st = tirx_executable_save(exe, path, &err);
  done(r);
  record_error(r, st, &err);
  if (st == TIRX_ERR_NOMEM) check_nomem_error(r, &err);
  if (st == TIRX_OK) {
    char *data = NULL;
    size_t len = 0;
    cr_assert_eq(tx_read_file(NULL, path, &data, &len), 0);
    tx_sb_putn(&r->out, data, len);
    free(data);
  }
  unlink(path);
  free(path);
  tirx_executable_free(exe);
  return st;
}

/* Save r's kernel (compiled on the libc allocator) to a new file; with
 * `ptx`, the file carries that text as its PTX, which the fake driver
 * loads like any image. */
static char *saved_executable(run *r, const char *ptx) {
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.host_only = 1;
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  cr_assert_eq(tirx_compile(r->k->path, r->k->text, r->k->len, &o, &exe, &err), TIRX_OK, "%s",
               err.message);
  char *path = temp_path();
  cr_assert_eq(tirx_executable_save(exe, path, &err), TIRX_OK, "%s", err.message);
  tirx_executable_free(exe);
  if (!ptx) return path;
  char *data = NULL;
  size_t len = 0;
  cr_assert_eq(tx_read_file(NULL, path, &data, &len), 0);
  tx_exe_parts parts;
  char why[256];
  cr_assert_eq(tx_exe_deserialize(data, len, &parts, why, sizeof why), TIRX_OK, "%s", why);
  tx_exe_parts_set_ptx(&parts, ptx, strlen(ptx));
  tx_strbuf bytes = {0};
  cr_assert_eq(tx_exe_serialize(&parts, &bytes), TIRX_OK);
  FILE *f = fopen(path, "wb");
  cr_assert(f && fwrite(bytes.data, 1, bytes.len, f) == bytes.len);
  fclose(f);
  tx_sb_free(&bytes);
  free(data);
  return path;
}

static tirx_status case_load(run *r) {
  char *path = saved_executable(r, NULL);
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  arm(r);
  tirx_status st = tirx_executable_load_with(path, &r->alloc, &exe, &err);
  done(r);
  record_error(r, st, &err);
  if (st == TIRX_ERR_NOMEM) check_nomem_error(r, &err);
  if (exe) record_exe(r, exe);
  tirx_executable_free(exe);
  unlink(path);
  free(path);
  return st;
}

enum { MAX_ARGS = 8 };

/* Load, open, call, release: every step on the allocator. The kernel's
 * parameters are tensors of static shape (device memory from the runtime,
 * as DLPack capsules). The output is what reached the fake driver. */
static tirx_status case_call(run *r) {
  char *path = saved_executable(r, "// stand-in PTX for the fake driver\n");
  void *h = dlopen(FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(h, "%s", dlerror());
  void *sym = dlsym(h, "fake_cuda_state_get");
  cr_assert_not_null(sym);
  fake_cuda_state_fn state_fn;
  memcpy(&state_fn, &sym, sizeof state_fn);
  fake_cuda_state *fake = state_fn();
  int launches = fake->launches;
  long device_blocks = fake->live_allocations;

  tirx_executable *exe = NULL;
  tirx_runtime *rt = NULL;
  tirx_loaded *lm = NULL;
  tirx_function *fn = NULL;
  DLManagedTensorVersioned *t[MAX_ARGS] = {0};
  tirx_arg args[MAX_ARGS];
  size_t nargs = 0;
  tirx_error err = {0};
  tirx_runtime_options ro;
  tirx_runtime_options_init(&ro);
  ro.driver_library = FAKE_CUDA_PATH;
  ro.allocator = &r->alloc;
  arm(r);
  tirx_status st = tirx_executable_load_with(path, &r->alloc, &exe, &err);
  if (st == TIRX_OK) st = tirx_runtime_open_ex(&ro, &rt, &err);
  if (st == TIRX_OK) st = tirx_runtime_load(rt, exe, &lm, &err);
  if (st == TIRX_OK) st = tirx_loaded_function(lm, r->k->func, &fn, &err);
  nargs = st == TIRX_OK ? tirx_executable_param_count(exe, r->k->func) : 0;
  cr_assert_leq(nargs, MAX_ARGS);
  for (size_t i = 0; st == TIRX_OK && i < nargs; i++) {
    tirx_param_info pi;
    cr_assert_eq(tirx_executable_param(exe, r->k->func, i, &pi), TIRX_OK);
    cr_assert_eq(pi.kind, TIRX_ARG_TENSOR, "%s: parameter %zu", r->k->path, i);
    st = tirx_tensor_alloc(rt, pi.shape, pi.ndim, pi.dtype, &t[i], &err);
    if (st == TIRX_OK) args[i] = (tirx_arg){TIRX_ARG_TENSOR, {.tensor = &t[i]->dl_tensor}};
  }
  if (st == TIRX_OK) st = tirx_function_call(fn, args, nargs, NULL, &err);
  if (st == TIRX_OK) st = tirx_runtime_synchronize(rt, NULL, &err);
  /* The capsules outlive the runtime: their deleters run after the close. */
  tirx_loaded_free(lm);
  tirx_runtime_close(rt);
  for (size_t i = 0; i < MAX_ARGS; i++)
    if (t[i]) tirx_dlpack_release(t[i]);
  tirx_executable_free(exe);
  done(r);
  record_error(r, st, &err);
  if (st == TIRX_ERR_NOMEM) check_nomem_error(r, &err);
  if (st == TIRX_OK) {
    const tx_cu_launch_config *lc = &fake->last_config;
    tx_sb_printf(&r->out, "launches %d grid %u %u %u block %u %u %u smem %u\n",
                 fake->launches - launches, lc->gridDimX, lc->gridDimY, lc->gridDimZ, lc->blockDimX,
                 lc->blockDimY, lc->blockDimZ, lc->sharedMemBytes);
  }
  cr_assert_eq(fake->live_allocations, device_blocks, "%s: device memory leaked", r->k->path);
  unlink(path);
  free(path);
  return st;
}

/* ---- the loop ------------------------------------------------------------------------- */

typedef struct outcome {
  tirx_status st;
  char *out; /* libc */
  size_t len;
  int hit;
  unsigned long requests;
} outcome;

static outcome run_once(case_fn fn, const kernel *k, unsigned long fail_at) {
  run r = {.fail_at = fail_at, .k = k};
  r.alloc = (tirx_allocator){counting_fn, &r.c};
  unsigned long before = libc_calls;
  tirx_status st = fn(&r);
  cr_assert_eq(libc_calls, before, "%s: libtirx called the C library's allocator %lu times",
               k->path, libc_calls - before);
  cr_assert(!r.c.bad_size, "%s, failing allocation %lu: a resize or free named a wrong size",
            k->path, fail_at);
  cr_assert(r.c.live_blocks == 0 && r.c.live_bytes == 0,
            "%s, failing allocation %lu: %ld blocks (%lld bytes) leaked", k->path, fail_at,
            r.c.live_blocks, r.c.live_bytes);
  cr_assert(!r.bad[0], "%s, failing allocation %lu: out of memory reported with %s", k->path,
            fail_at, r.bad);
  cr_assert(!r.out.failed);
  outcome o = {st, r.out.data, r.out.len, r.c.hit, r.c.requests};
  return o;
}

/* Fail each allocation of the case in turn. */
static void fail_each(const char *name, case_fn fn, const kernel *k) {
  outcome ref = run_once(fn, k, 0);
  cr_assert_gt(ref.requests, 0, "%s %s: no allocation went through the allocator", name, k->path);
  unsigned long n = 1;
  for (;; n++) {
    cr_assert_leq(n, ref.requests + 1, "%s %s: more allocations than the unfailed run made", name,
                  k->path);
    outcome o = run_once(fn, k, n);
    int same = o.st == ref.st && o.len == ref.len && memcmp(o.out, ref.out, o.len) == 0;
    if (!o.hit) {
      cr_assert(same, "%s %s: a run past the last allocation differs from the unfailed one", name,
                k->path);
      free(o.out);
      break;
    }
    size_t at = 0; /* where the outputs part, for the message */
    while (at < o.len && at < ref.len && o.out[at] == ref.out[at])
      at++;
    size_t from = at > 80 ? at - 80 : 0;
    cr_assert(o.st == TIRX_ERR_NOMEM || same,
              "%s %s, failing allocation %lu: status %s (want %s or out of memory); output "
              "differs at byte %zu:\n--- got:\n%.*s\n--- want:\n%.*s",
              name, k->path, n, tirx_status_name(o.st), tirx_status_name(ref.st), at,
              (int)(o.len - from < 240 ? o.len - from : 240), o.out + from,
              (int)(ref.len - from < 240 ? ref.len - from : 240), ref.out + from);
    free(o.out);
  }
  fprintf(stderr, "alloc_fail: %-14s %-52s %5lu allocations, %s\n", name, k->path, ref.requests,
          tirx_status_name(ref.st));
  free(ref.out);
}

/* ---- the kernels ------------------------------------------------------------------------- */

static kernel KERNELS[] = {
    {"examples/scale.tirx", NULL, 0, "scale", NULL},
    {"examples/smem_demo.tirx", NULL, 0, NULL, NULL},
    {"examples/tile_copy_layout.tirx", NULL, 0, NULL, NULL},
    {"examples/tiled_gemm.tirx", NULL, 0, NULL, NULL},
    {"examples/warp_reduce.tirx", NULL, 0, NULL, NULL},
    {"tests/golden/lowering/block_sum.tirx", NULL, 0, "block_sum", NULL},
    {"tests/golden/lowering/cluster.tirx", NULL, 0, "cluster", NULL},
    {"tests/golden/lowering/dtypes.tirx", NULL, 0, NULL, NULL},
    {"tests/golden/lowering/launch_bounds_unroll_while.tirx", NULL, 0, NULL, NULL},
};
enum { NKERNELS = sizeof KERNELS / sizeof *KERNELS };

/* Code generator goldens for the CUDA cases: the PTX helper families
 * assemble their inline asm in side buffers. */
static kernel CODEGEN_KERNELS[] = {
    {"tests/golden/cuda/mma.tirx", NULL, 0, NULL, NULL},
    {"tests/golden/cuda/wgmma.tirx", NULL, 0, NULL, NULL},
    {"tests/golden/cuda/tcgen05_forms.tirx", NULL, 0, NULL, "sm_100a"},
    {"tests/golden/cuda/bulk.tirx", NULL, 0, NULL, NULL},
    {"tests/golden/cuda/tma_host.tirx", NULL, 0, NULL, NULL},
    {"tests/golden/cuda/ptx_memory.tirx", NULL, 0, NULL, NULL},
    {"tests/golden/cuda/cp_async.tirx", NULL, 0, NULL, NULL},
    {"tests/golden/cuda/vector_half.tirx", NULL, 0, NULL, NULL},
    {"tests/golden/cuda/raw_ptx.tirx", NULL, 0, NULL, NULL},
};
enum { NCODEGEN = sizeof CODEGEN_KERNELS / sizeof *CODEGEN_KERNELS };

static void read_kernels(kernel *ks, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", TIRX_SOURCE_DIR, ks[i].path);
    cr_assert_eq(tx_read_file(NULL, path, &ks[i].text, &ks[i].len), 0, "%s", path);
  }
}

static void load_kernels(void) {
  read_kernels(KERNELS, NKERNELS);
  read_kernels(CODEGEN_KERNELS, NCODEGEN);
}

static void free_kernels(void) {
  for (size_t i = 0; i < NKERNELS; i++)
    free(KERNELS[i].text);
  for (size_t i = 0; i < NCODEGEN; i++)
    free(CODEGEN_KERNELS[i].text);
}

/* Does the kernel compile (the cases after compiling need one that does)? */
static int compiles(const kernel *k) {
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.host_only = 1;
  tirx_executable *exe = NULL;
  tirx_status st = tirx_compile(k->path, k->text, k->len, &o, &exe, NULL);
  tirx_executable_free(exe);
  return st == TIRX_OK;
}

TestSuite(alloc_fail, .init = load_kernels, .fini = free_kernels, .timeout = 240);

#define EACH_KERNEL(name, fn, filter)                                                              \
  for (size_t i = 0; i < NKERNELS; i++)                                                            \
    if (filter(&KERNELS[i])) fail_each(name, fn, &KERNELS[i]);

static int any(const kernel *k) {
  (void)k;
  return 1;
}
static int has_call(const kernel *k) {
  return k->func != NULL;
}

Test(alloc_fail, parse) {
  EACH_KERNEL("parse", case_parse, any);
}
Test(alloc_fail, print) {
  EACH_KERNEL("print", case_print, any);
}
Test(alloc_fail, compile_to_cuda) {
  EACH_KERNEL("cuda", case_cuda, any);
}
Test(alloc_fail, codegen_goldens_to_cuda) {
  for (size_t i = 0; i < NCODEGEN; i++)
    fail_each("cuda", case_cuda, &CODEGEN_KERNELS[i]);
}
Test(alloc_fail, compile_to_cuda_in_small_chunks) {
  EACH_KERNEL("cuda/64B", case_cuda_small_chunks, any);
}
/* Where a toolkit is installed (NVRTC is slow: one kernel). */
Test(alloc_fail, nvrtc) {
  outcome probe = run_once(case_nvrtc, &KERNELS[0], 0);
  free(probe.out);
  if (probe.st == TIRX_ERR_IO) cr_skip_test("no CUDA toolkit (NVRTC) here");
  fail_each("nvrtc", case_nvrtc, &KERNELS[0]);
}
Test(alloc_fail, compile_host_only) {
  EACH_KERNEL("compile", case_compile, any);
}
Test(alloc_fail, compile_a_parsed_module) {
  EACH_KERNEL("compile_module", case_compile_module, any);
}
Test(alloc_fail, compile_through_a_cache) {
  EACH_KERNEL("compile+cache", case_compile_cached, compiles);
}
/* Each store fsyncs its file, which costs more than the compile: one
 * kernel is enough for the paths the disk adds. */
static int first_kernel(const kernel *k) {
  return k == &KERNELS[0];
}
Test(alloc_fail, compile_through_a_disk_cache) {
  EACH_KERNEL("compile+disk", case_compile_disk_cached, first_kernel);
}
/* An executable keeps its file's bytes, so saving allocates nothing and
 * cannot run out of memory. */
Test(alloc_fail, executable_save_allocates_nothing) {
  for (size_t i = 0; i < NKERNELS; i++) {
    if (!compiles(&KERNELS[i])) continue;
    outcome o = run_once(case_save, &KERNELS[i], 0);
    cr_assert_eq(o.st, TIRX_OK, "save %s: %s", KERNELS[i].path, tirx_status_name(o.st));
    cr_assert_gt(o.len, 24, "save %s wrote %zu bytes", KERNELS[i].path, o.len);
    cr_assert_eq(o.requests, 0, "save %s: %lu allocations", KERNELS[i].path, o.requests);
    free(o.out);
  }
}
Test(alloc_fail, executable_load) {
  EACH_KERNEL("load", case_load, compiles);
}
Test(alloc_fail, call_through_the_fake_driver) {
  EACH_KERNEL("call", case_call, has_call);
}

/* ---- the count itself ----------------------------------------------------------------- */

/* Without an allocator libtirx calls malloc, and the wrapped count sees it:
 * the zero counts above are not a count that cannot count. */
Test(alloc_hook, libc_calls_are_seen_without_an_allocator) {
  static const char SRC[] = "from tvm.script import tirx as T\n\n@T.prim_func\n"
                            "def f(A: T.Buffer((4,), \"float32\")):\n    A[0] = T.float32(1)\n";
  unsigned long before = libc_calls;
  watching = 1;
  tirx_ctx *ctx = NULL;
  tirx_module *m = NULL;
  tirx_status a = tirx_ctx_create(&ctx);
  tirx_status b = tirx_parse_string(ctx, "f.tirx", SRC, strlen(SRC), &m);
  tirx_ctx_destroy(ctx);
  watching = 0;
  cr_assert_eq(a, TIRX_OK);
  cr_assert_eq(b, TIRX_OK);
  cr_assert_gt(libc_calls, before);
}

/* The same parse with an allocator: every block went through it, none to
 * the C library, and all came back. */
Test(alloc_hook, a_context_allocates_only_through_its_allocator) {
  static const char SRC[] = "from tvm.script import tirx as T\n\n@T.prim_func\n"
                            "def f(A: T.Buffer((4,), \"float32\")):\n    A[0] = T.float32(1)\n";
  counting c = {.armed = 1};
  tirx_allocator alloc = {counting_fn, &c};
  unsigned long before = libc_calls;
  watching = 1;
  tirx_ctx *ctx = NULL;
  tirx_module *m = NULL;
  tirx_status a = tirx_ctx_create_with(&alloc, &ctx);
  tirx_status b = tirx_parse_string(ctx, "f.tirx", SRC, strlen(SRC), &m);
  long live = c.live_blocks;
  tirx_ctx_destroy(ctx);
  watching = 0;
  cr_assert_eq(a, TIRX_OK);
  cr_assert_eq(b, TIRX_OK);
  cr_assert_gt(c.requests, 0);
  cr_assert_gt(live, 0, "the context holds memory from its allocator");
  cr_assert_eq(libc_calls, before, "%lu calls to the C library", libc_calls - before);
  cr_assert_eq(c.live_blocks, 0);
  cr_assert_eq(c.live_bytes, 0);
  cr_assert(!c.bad_size);
}

/* The options structs are size-versioned: a caller built before the
 * allocator field existed (a smaller `size`) gets malloc, whatever lies
 * past its struct. */
Test(alloc_hook, options_older_than_the_allocator_field_mean_malloc) {
  static const char SRC[] = "from tvm.script import tirx as T\n\n@T.prim_func\n"
                            "def f(A: T.Buffer((64,), \"float32\")):\n"
                            "    T.device_entry()\n"
                            "    bx = T.cta_id([1])\n"
                            "    tx = T.thread_id([64])\n"
                            "    A[tx] = A[tx] * T.float32(2.0)\n";
  counting c = {.armed = 1};
  tirx_allocator alloc = {counting_fn, &c};
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.host_only = 1;
  o.allocator = &alloc;
  o.size = offsetof(tirx_compile_options, allocator);
  tirx_executable *exe = NULL;
  cr_assert_eq(tirx_compile("f.tirx", SRC, strlen(SRC), &o, &exe, NULL), TIRX_OK);
  tirx_executable_free(exe);
  cr_assert_eq(c.requests, 0, "an old struct's allocator field was read");
  o.size = sizeof o;
  cr_assert_eq(tirx_compile("f.tirx", SRC, strlen(SRC), &o, &exe, NULL), TIRX_OK);
  cr_assert_gt(c.live_blocks, 0, "the executable lives on the allocator");
  tirx_executable_free(exe);
  cr_assert_gt(c.requests, 0);
  cr_assert_eq(c.live_blocks, 0);

  c = (counting){.armed = 1};
  tirx_runtime_options ro;
  tirx_runtime_options_init(&ro);
  ro.driver_library = FAKE_CUDA_PATH;
  ro.allocator = &alloc;
  ro.size = offsetof(tirx_runtime_options, allocator);
  tirx_runtime *rt = NULL;
  tirx_error err = {0};
  cr_assert_eq(tirx_runtime_open_ex(&ro, &rt, &err), TIRX_OK, "%s", err.message);
  tirx_runtime_close(rt);
  cr_assert_eq(c.requests, 0, "an old struct's allocator field was read");
  ro.size = sizeof ro;
  cr_assert_eq(tirx_runtime_open_ex(&ro, &rt, &err), TIRX_OK, "%s", err.message);
  cr_assert_gt(c.live_blocks, 0);
  tirx_runtime_close(rt);
  cr_assert_eq(c.live_blocks, 0);
}

/* A DLPack capsule's deleter may run after tirx_runtime_close: it frees
 * through the runtime's allocator, which must still be there (tirx.h), and
 * the runtime's memory comes back only then. */
Test(alloc_hook, a_capsule_outlives_the_runtime_on_its_allocator) {
  counting c = {.armed = 1};
  tirx_allocator alloc = {counting_fn, &c};
  tirx_runtime_options ro;
  tirx_runtime_options_init(&ro);
  ro.driver_library = FAKE_CUDA_PATH;
  ro.allocator = &alloc;
  tirx_runtime *rt = NULL;
  tirx_error err = {0};
  cr_assert_eq(tirx_runtime_open_ex(&ro, &rt, &err), TIRX_OK, "%s", err.message);
  int64_t shape[1] = {16};
  DLManagedTensorVersioned *t = NULL;
  cr_assert_eq(tirx_tensor_alloc(rt, shape, 1, (DLDataType){kDLFloat, 32, 1}, &t, &err), TIRX_OK,
               "%s", err.message);
  tirx_runtime_close(rt);
  cr_assert_gt(c.live_blocks, 0, "the capsule keeps the runtime (and its memory)");
  tirx_dlpack_release(t);
  cr_assert_eq(c.live_blocks, 0);
  cr_assert_eq(c.live_bytes, 0);
  cr_assert(!c.bad_size);
}
