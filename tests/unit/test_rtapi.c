/*
 * test_rtapi.c - the public compile/load/run API on the CPU: argument
 * checks of every mismatch kind with their messages (host DLTensors with
 * fake device pointers against a fake driver; the checks run before any
 * launch), launches through the fake driver (a cluster launch from TVM's
 * clusterCtaIdx bindings among them), save/load round trips and
 * rejected files, the in-memory and disk caches, a cache hit in a second
 * process, and tensor maps: the host part's runtime.cuTensorMapEncodeTiled
 * executed at launch through the fake driver (its arguments recorded, the
 * maps arriving by value in the kernel's parameters), TVM's host checks,
 * driver errors and a driver without the entry point.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake/fake_cuda.h"
#include "driver/context.h"
#include "driver/compile.h"
#include "abi/exe_format.h"
#include "abi/launch_program.h"
#include "support/file.h"
#include "tirx/tirx.h"

#define HDR "# from tvm.script import tirx as T\n\n@T.prim_func\n"

static const char SCALE_DYN[] =
    "n = T.int32()\n\n" HDR
    "def scale_dyn(A: T.Buffer((n,), \"float32\"), B: T.Buffer((n,), \"float32\"), s: T.float32, "
    "k: T.int32):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([1])\n"
    "    for i in range(n):\n"
    "        B[i] = A[i] * s + T.Cast(\"float32\", k)\n";

static const char ALIGNED[] = HDR "def al(A: T.Buffer((64,), \"float32\", align=64)):\n"
                                  "    T.device_entry()\n"
                                  "    bx = T.cta_id([1])\n"
                                  "    tx = T.thread_id([64])\n"
                                  "    A[tx] = A[tx] + T.float32(1.0)\n";

static tirx_executable *compile_host(const char *src) {
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.host_only = 1;
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  tirx_status st = tirx_compile("t.tirx", src, strlen(src), &o, &exe, &err);
  cr_assert_eq(st, TIRX_OK, "%s", err.message);
  return exe;
}

typedef struct fixture {
  tirx_executable *exe;
  tirx_runtime *rt;
  tirx_loaded *lm;
  tirx_function *fn;
} fixture;

static void setup(fixture *f, const char *src, const char *name) {
  f->exe = compile_host(src);
  tirx_error err = {0};
  cr_assert_eq(tirx_runtime_open_with(FAKE_CUDA_PATH, 0, &f->rt, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_runtime_load(f->rt, f->exe, &f->lm, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_loaded_function(f->lm, name, &f->fn, &err), TIRX_OK, "%s", err.message);
}

static void teardown(fixture *f) {
  tirx_loaded_free(f->lm);
  tirx_runtime_close(f->rt);
  tirx_executable_free(f->exe);
}

static int64_t SHAPE_A[1] = {128}, SHAPE_B[1] = {128};
static float BUF_A[256], BUF_B[256];

static DLTensor tensor(void *data, int64_t *shape, int ndim, DLDataType dt) {
  DLTensor t = {0};
  t.data = data;
  t.device = (DLDevice){kDLCUDA, 0};
  t.ndim = ndim;
  t.dtype = dt;
  t.shape = shape;
  return t;
}

static const DLDataType F32 = {kDLFloat, 32, 1}, F16 = {kDLFloat, 16, 1};

/* Call scale_dyn with (A, B, s, k) as given and return the message. */
static tirx_status call4(fixture *f, const DLTensor *a, const DLTensor *b, tirx_arg s, tirx_arg k,
                         tirx_error *err) {
  tirx_arg args[4] = {{TIRX_ARG_TENSOR, {.tensor = a}}, {TIRX_ARG_TENSOR, {.tensor = b}}, s, k};
  return tirx_function_call(f->fn, args, 4, NULL, err);
}

static const tirx_arg S_OK = {TIRX_ARG_FLOAT, {.f = 2.0}}, K_OK = {TIRX_ARG_INT, {.i = 3}};

static void expect_msg(tirx_status st, const tirx_error *err, const char *want) {
  cr_assert_eq(st, TIRX_ERR_USAGE, "status %d: %s", st, err->message);
  cr_assert_str_eq(err->message, want);
}

Test(rtapi_checks, functions_listed) {
  tirx_executable *exe = compile_host(SCALE_DYN);
  cr_assert_eq(tirx_executable_func_count(exe), 1);
  cr_assert_str_eq(tirx_executable_func_name(exe, 0), "scale_dyn");
  tirx_param_info pi;
  cr_assert_eq(tirx_executable_param(exe, "scale_dyn", 0, &pi), TIRX_OK);
  cr_assert_eq(pi.kind, TIRX_ARG_TENSOR);
  cr_assert_eq(pi.shape[0], -1);
  cr_assert_str_eq(pi.dim_names[0], "n");
  cr_assert_eq(tirx_executable_param(exe, "scale_dyn", 2, &pi), TIRX_OK);
  cr_assert_eq(pi.kind, TIRX_ARG_FLOAT);
  tirx_executable_free(exe);
}

Test(rtapi_checks, all_kinds_of_mismatch) {
  fixture f;
  setup(&f, SCALE_DYN, "scale_dyn");
  tirx_error err = {0};
  DLTensor a = tensor(BUF_A, SHAPE_A, 1, F32), b = tensor(BUF_B, SHAPE_B, 1, F32);

  /* passing checks reach the launch, which a host-only executable refuses */
  tirx_status st = call4(&f, &a, &b, S_OK, K_OK, &err);
  cr_assert_eq(st, TIRX_ERR_USAGE);
  cr_assert(strstr(err.message, "no device code"), "%s", err.message);

  /* count */
  tirx_arg one[1] = {{TIRX_ARG_TENSOR, {.tensor = &a}}};
  expect_msg(tirx_function_call(f.fn, one, 1, NULL, &err), &err,
             "scale_dyn: expected 4 arguments, got 1");
  /* wrong dtype */
  DLTensor h = tensor(BUF_A, SHAPE_A, 1, F16);
  expect_msg(call4(&f, &h, &b, S_OK, K_OK, &err), &err,
             "scale_dyn: argument 'A': expected dtype float32, got float16");
  /* the source map: the error points at the kernel's definition */
  cr_expect(err.span.file && strcmp(err.span.file, "t.tirx") == 0, "span file %s",
            err.span.file ? err.span.file : "(none)");
  cr_expect_eq(err.span.line, 5, "span line %u", err.span.line);
  /* wrong ndim */
  int64_t s2[2] = {8, 16};
  DLTensor a2 = tensor(BUF_A, s2, 2, F32);
  expect_msg(call4(&f, &a2, &b, S_OK, K_OK, &err), &err,
             "scale_dyn: argument 'A': expected 1 dimension, got 2");
  /* inconsistent symbolic dims */
  int64_t s64[1] = {64};
  DLTensor b64 = tensor(BUF_B, s64, 1, F32);
  expect_msg(call4(&f, &a, &b64, S_OK, K_OK, &err), &err,
             "scale_dyn: argument 'B': expected shape[0] == n, got 64");
  /* device type and id */
  DLTensor cpu = a;
  cpu.device = (DLDevice){kDLCPU, 0};
  expect_msg(call4(&f, &cpu, &b, S_OK, K_OK, &err), &err,
             "scale_dyn: argument 'A': expected a CUDA tensor (device type 2), got 1");
  DLTensor dev1 = b;
  dev1.device.device_id = 1;
  expect_msg(call4(&f, &a, &dev1, S_OK, K_OK, &err), &err,
             "scale_dyn: argument 'B': expected the same device as argument 'A', got 1");
  /* strides and byte offset */
  int64_t st2[1] = {2};
  DLTensor strided = a;
  strided.strides = st2;
  expect_msg(call4(&f, &strided, &b, S_OK, K_OK, &err), &err,
             "scale_dyn: argument 'A': expected compact row-major strides, got strides (2)");
  DLTensor off = a;
  off.byte_offset = 16;
  expect_msg(call4(&f, &off, &b, S_OK, K_OK, &err), &err,
             "scale_dyn: argument 'A': expected byte_offset == 0, got 16");
  /* wrong scalar kinds and a tensor where a scalar goes */
  tirx_arg s_int = {TIRX_ARG_INT, {.i = 2}};
  expect_msg(call4(&f, &a, &b, s_int, K_OK, &err), &err,
             "scale_dyn: argument 's': expected a float, got an int");
  tirx_arg k_float = {TIRX_ARG_FLOAT, {.f = 1.5}};
  expect_msg(call4(&f, &a, &b, S_OK, k_float, &err), &err,
             "scale_dyn: argument 'k': expected an int, got a float");
  tirx_arg t_for_b = {TIRX_ARG_INT, {.i = 0}};
  tirx_arg args[4] = {{TIRX_ARG_TENSOR, {.tensor = &a}}, t_for_b, S_OK, K_OK};
  expect_msg(tirx_function_call(f.fn, args, 4, NULL, &err), &err,
             "scale_dyn: argument 'B': expected a tensor, got an int");
  /* a dimension that does not fit n's int32 */
  int64_t huge[1] = {INT64_C(1) << 40};
  DLTensor ah = tensor(BUF_A, huge, 1, F32);
  st = call4(&f, &ah, &b, S_OK, K_OK, &err);
  cr_assert_eq(st, TIRX_ERR_USAGE);
  cr_assert(strstr(err.message, "'n' = 1099511627776 does not fit in int32"), "%s", err.message);
  teardown(&f);
}

Test(rtapi_checks, misaligned_pointer) {
  fixture f;
  setup(&f, ALIGNED, "al");
  tirx_error err = {0};
  int64_t s[1] = {64};
  DLTensor a = tensor((char *)BUF_A + 4, s, 1, F32);
  a.data = (void *)(uintptr_t)0x10004;
  tirx_arg args[1] = {{TIRX_ARG_TENSOR, {.tensor = &a}}};
  tirx_status st = tirx_function_call(f.fn, args, 1, NULL, &err);
  cr_assert_eq(st, TIRX_ERR_USAGE);
  cr_assert(strstr(err.message, "al: argument 'A': expected data aligned to 64 bytes, got address"),
            "%s", err.message);
  teardown(&f);
}

Test(rtapi_checks, unknown_function_and_compile_error) {
  fixture f;
  setup(&f, SCALE_DYN, "scale_dyn");
  tirx_function *fn = NULL;
  tirx_error err = {0};
  cr_assert_eq(tirx_loaded_function(f.lm, "nope", &fn, &err), TIRX_ERR_USAGE);
  cr_assert(strstr(err.message, "no function 'nope'"), "%s", err.message);
  teardown(&f);

  tirx_executable *exe = NULL;
  const char bad[] = HDR "def f(A: T.Buffer((4,), \"float32\")):\n    A[0] = undefined_name\n";
  tirx_status st = tirx_compile("bad.tirx", bad, strlen(bad), NULL, &exe, &err);
  cr_assert_eq(st, TIRX_ERR_INPUT);
  cr_assert_null(exe);
  cr_assert_eq(err.span.line, 5, "%s (line %u)", err.message, err.span.line);
  cr_assert_str_eq(err.span.file, "bad.tirx");
}

/* A module that parses but does not compile: the error names the module's
 * file and line, and the module's context gets no diagnostics (the pipeline
 * runs in a child context: the module is const). */
Test(rtapi_checks, compile_module_error_leaves_the_module_alone) {
  const char src[] = HDR "def t(A: T.Buffer((128,), \"float32\")):\n"
                         "    T.device_entry()\n"
                         "    tx = T.thread_id([128])\n"
                         "    T.tile.fill(A[0:128], T.float32(0.0))\n";
  tirx_ctx *ctx = NULL;
  tirx_module *m = NULL;
  cr_assert_eq(tirx_ctx_create(&ctx), TIRX_OK);
  cr_assert_eq(tirx_parse_string(ctx, "mod.tirx", src, strlen(src), &m), TIRX_OK);
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.host_only = 1;
  cr_assert_eq(tirx_compile_module(m, &o, &exe, &err), TIRX_ERR_INPUT, "%s", err.message);
  cr_assert_null(exe);
  cr_assert(strstr(err.message, "mod.tirx:7:5: no cuda variant of T.tile.fill applies"), "%s",
            err.message);
  cr_assert_eq(err.span.line, 7);
  cr_assert_str_eq(err.span.file, "mod.tirx");
  cr_assert_eq(tirx_diag_count(ctx), 0, "the module's context got %zu diagnostics",
               tirx_diag_count(ctx));
  tirx_ctx_destroy(ctx);
}

/* ---- save / load ------------------------------------------------------------------ */

Test(rtapi_file, save_load_round_trip) {
  tirx_executable *exe = compile_host(SCALE_DYN), *back = NULL;
  char path[] = "/tmp/tirx_rtapi_XXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  close(fd);
  tirx_error err = {0};
  cr_assert_eq(tirx_executable_save(exe, path, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_executable_load(path, &back, &err), TIRX_OK, "%s", err.message);
  cr_assert_str_eq(tirx_executable_func_name(back, 0), "scale_dyn");
  cr_assert_str_eq(tirx_executable_arch(back), "sm_90a");

  /* a flipped byte fails the checksum; a future version is refused by name */
  FILE *fp = fopen(path, "r+b");
  fseek(fp, 40, SEEK_SET);
  fputc('#', fp);
  fclose(fp);
  tirx_executable *bad = NULL;
  cr_assert_eq(tirx_executable_load(path, &bad, &err), TIRX_ERR_INPUT);
  cr_assert(strstr(err.message, "checksum"), "%s", err.message);
  fp = fopen(path, "r+b");
  fseek(fp, 8, SEEK_SET);
  fputc(99, fp);
  fclose(fp);
  cr_assert_eq(tirx_executable_load(path, &bad, &err), TIRX_ERR_INPUT);
  cr_assert(strstr(err.message, "format version 99"), "%s", err.message);
  cr_assert_eq(tirx_executable_load("/nonexistent/x", &bad, &err), TIRX_ERR_IO);
  unlink(path);
  tirx_executable_free(back);
  tirx_executable_free(exe);
}

/* A module of private functions only has nothing to call: it compiles to an
 * executable without functions (its host section is empty), which saves,
 * loads and loads on a runtime. (fuzz_compile found tirx_compile failing
 * with "the lowered module does not re-parse" here: it printed a module
 * without functions, which does not parse.) */
Test(rtapi_file, no_callable_functions) {
  static const char SRC[] = "# from tvm.script import tirx as T\n\n@T.prim_func(private=True)\n"
                            "def helper():\n    T.evaluate(2)\n";
  tirx_executable *exe = compile_host(SRC), *back = NULL;
  cr_assert_eq(tirx_executable_func_count(exe), 0);
  cr_assert_null(tirx_executable_func_name(exe, 0));
  cr_assert_eq(tirx_executable_param_count(exe, "helper"), 0);
  char path[] = "/tmp/tirx_rtapi_XXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  close(fd);
  tirx_error err = {0};
  cr_assert_eq(tirx_executable_save(exe, path, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_executable_load(path, &back, &err), TIRX_OK, "%s", err.message);
  unlink(path);
  cr_assert_eq(tirx_executable_func_count(back), 0);
  tirx_runtime *rt = NULL;
  tirx_loaded *lm = NULL;
  tirx_function *fn = NULL;
  cr_assert_eq(tirx_runtime_open_with(FAKE_CUDA_PATH, 0, &rt, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_runtime_load(rt, back, &lm, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_loaded_function(lm, "helper", &fn, &err), TIRX_ERR_USAGE);
  cr_assert_str_eq(err.message, "no function 'helper' in t.tirx");
  tirx_loaded_free(lm);
  tirx_runtime_close(rt);
  tirx_executable_free(back);
  tirx_executable_free(exe);
}

/* ---- cache ------------------------------------------------------------------------- */

Test(rtapi_cache, memory_and_disk) {
  char dir[] = "/tmp/tirx_cache_XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  tirx_cache *cache = NULL;
  cr_assert_eq(tirx_cache_create(&cache), TIRX_OK);
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.host_only = 1;
  o.cache = cache;
  o.disk_cache = 1;
  o.cache_dir = dir;
  tirx_executable *a = NULL, *b = NULL, *c = NULL;
  tirx_error err = {0};
  cr_assert_eq(tirx_compile("s", SCALE_DYN, strlen(SCALE_DYN), &o, &a, &err), TIRX_OK);
  cr_assert_eq(tirx_executable_from_cache(a), 0);
  cr_assert_eq(tirx_compile("s", SCALE_DYN, strlen(SCALE_DYN), &o, &b, &err), TIRX_OK);
  cr_assert_eq(tirx_executable_from_cache(b), 1);
  uint64_t hits = 0, entries = 0;
  tirx_cache_stats(cache, &hits, &entries);
  cr_assert_eq(hits, 1);
  cr_assert_eq(entries, 1);
  /* A second process (no shared memory cache) hits the disk entry. */
  pid_t pid = fork();
  if (pid == 0) {
    tirx_compile_options o2 = o;
    o2.cache = NULL;
    tirx_executable *d = NULL;
    int ok = tirx_compile("s", SCALE_DYN, strlen(SCALE_DYN), &o2, &d, NULL) == TIRX_OK &&
             tirx_executable_from_cache(d);
    tirx_executable_free(d);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  /* Different options are a different entry. */
  o.opt_level = 0;
  cr_assert_eq(tirx_compile("s", SCALE_DYN, strlen(SCALE_DYN), &o, &c, &err), TIRX_OK);
  cr_assert_eq(tirx_executable_from_cache(c), 0);
  tirx_executable_free(a);
  tirx_executable_free(b);
  tirx_executable_free(c);
  tirx_cache_destroy(cache);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}

/* ---- the source map of damaged or unusual executables ------------------------------ */

/* The span a dtype mismatch on scale_dyn's A reports (its definition). */
static tirx_span mismatch_span(tirx_executable *exe, char *file, size_t cap) {
  tirx_runtime *rt = NULL;
  tirx_loaded *lm = NULL;
  tirx_function *fn = NULL;
  tirx_error err = {0};
  cr_assert_eq(tirx_runtime_open_with(FAKE_CUDA_PATH, 0, &rt, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_runtime_load(rt, exe, &lm, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_loaded_function(lm, "scale_dyn", &fn, &err), TIRX_OK, "%s", err.message);
  DLTensor h = tensor(BUF_A, SHAPE_A, 1, F16), b = tensor(BUF_B, SHAPE_B, 1, F32);
  tirx_arg args[4] = {
      {TIRX_ARG_TENSOR, {.tensor = &h}}, {TIRX_ARG_TENSOR, {.tensor = &b}}, S_OK, K_OK};
  cr_assert_eq(tirx_function_call(fn, args, 4, NULL, &err), TIRX_ERR_USAGE);
  cr_assert(strstr(err.message, "expected dtype float32"), "%s", err.message);
  tirx_span span = err.span;
  snprintf(file, cap, "%s", span.file ? span.file : "");
  span.file = NULL; /* owned by the executable */
  tirx_loaded_free(lm);
  tirx_runtime_close(rt);
  return span;
}

/* A regression test: a source name that is empty or only white space used to
 * write a source-map line that the reader misparsed into a length of -1
 * (a crash in memcpy). */
Test(rtapi_file, empty_and_blank_source_names) {
  static const char *const names[] = {"", " ", "\t  ", "two words.tirx", "line\nbreak.tirx"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    tirx_compile_options o;
    tirx_compile_options_init(&o);
    o.host_only = 1;
    tirx_executable *exe = NULL;
    tirx_error err = {0};
    cr_assert_eq(tirx_compile(names[i], SCALE_DYN, strlen(SCALE_DYN), &o, &exe, &err), TIRX_OK,
                 "name %zu: %s", i, err.message);
    char file[64];
    tirx_span span = mismatch_span(exe, file, sizeof file);
    /* the binary source map keeps every name whole */
    cr_expect_str_eq(file, names[i], "name %zu", i);
    cr_expect_eq(span.line, 5u, "name %zu", i);
    tirx_executable_free(exe);
  }
}

/* The executable bytes of `src` (compiled host-only, saved) with its PTX or
 * launch programs replaced where ptx/program is not NULL, re-serialized so
 * the checksum is valid again. */
static void rebuilt_bytes(const char *src, const char *ptx, const tx_strbuf *program,
                          tx_strbuf *out) {
  tirx_executable *exe = compile_host(src);
  char path[] = "/tmp/tirx_rtapi_exe_XXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  close(fd);
  tirx_error err = {0};
  cr_assert_eq(tirx_executable_save(exe, path, &err), TIRX_OK, "%s", err.message);
  tirx_executable_free(exe);
  char *data = NULL;
  size_t len = 0;
  cr_assert_eq(tx_read_file(NULL, path, &data, &len), 0);
  unlink(path);
  tx_exe_parts parts;
  char why[256];
  cr_assert_eq(tx_exe_deserialize(data, len, &parts, why, sizeof why), TIRX_OK, "%s", why);
  if (ptx) tx_exe_parts_set_ptx(&parts, ptx, strlen(ptx));
  if (program) parts.program = program->data, parts.program_len = program->len;
  cr_assert_eq(tx_exe_serialize(&parts, out), TIRX_OK);
  free(data);
}

/* The launch-program section of src's executable. */
static void program_of(const char *src, tx_strbuf *out) {
  tx_strbuf bytes = {0};
  rebuilt_bytes(src, NULL, NULL, &bytes);
  tx_exe_parts parts;
  char why[256];
  cr_assert_eq(tx_exe_deserialize(bytes.data, bytes.len, &parts, why, sizeof why), TIRX_OK);
  tx_sb_putn(out, parts.program, parts.program_len);
  tx_sb_free(&bytes);
}

/* Loading `program` in scale_dyn's executable (checksum valid): accepted,
 * or refused with TIRX_ERR_INPUT and a message; an accepted one lists its
 * parameters. Returns 1 when accepted. */
static int load_program(const tx_strbuf *program) {
  tx_strbuf bytes = {0};
  rebuilt_bytes(SCALE_DYN, NULL, program, &bytes);
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  tirx_status st = tirx_executable_load_bytes(bytes.data, bytes.len, NULL, &exe, &err);
  cr_assert(st == TIRX_OK || (st == TIRX_ERR_INPUT && err.message[0]), "%s: %s",
            tirx_status_name(st), err.message);
  size_t touched = 0; /* reads every byte the accessors hand out (ASan checks them) */
  for (size_t f = 0; exe && f < tirx_executable_func_count(exe); f++) {
    const char *name = tirx_executable_func_name(exe, f);
    for (size_t i = 0; i < tirx_executable_param_count(exe, name); i++) {
      tirx_param_info pi;
      cr_assert_eq(tirx_executable_param(exe, name, i, &pi), TIRX_OK);
      touched += strlen(pi.name);
      for (int32_t d = 0; d < pi.ndim; d++)
        touched += (size_t)pi.shape[d] + (pi.dim_names[d] ? strlen(pi.dim_names[d]) : 0);
    }
  }
  cr_assert(!exe || touched > 0, "an accepted program has named parameters");
  tirx_executable_free(exe);
  tx_sb_free(&bytes);
  return st == TIRX_OK;
}

/* Launch programs come from files: every truncation and every flipped byte
 * of scale_dyn's (behind a valid checksum, so only the reader and its
 * verifier stand between the bytes and memory) loads or is refused with a
 * reason, never a crash (ASan runs this too). */
Test(rtapi_file, damaged_launch_programs_are_refused) {
  tx_strbuf prog = {0};
  program_of(SCALE_DYN, &prog);
  cr_assert(prog.len > 100, "%zu bytes", prog.len);
  cr_assert(load_program(&prog), "the program as compiled must load");
  int refused = 0;
  for (size_t cut = 0; cut < prog.len; cut++) {
    tx_strbuf t = {0};
    tx_sb_putn(&t, prog.data, cut);
    refused += !load_program(&t);
    tx_sb_free(&t);
  }
  cr_expect_eq(refused, (int)prog.len, "every truncation is refused");
  for (size_t i = 0; i < prog.len; i++) {
    tx_strbuf t = {0};
    tx_sb_putn(&t, prog.data, prog.len);
    t.data[i] ^= (char)0xa5;
    (void)load_program(&t);
    tx_sb_free(&t);
  }
  tx_sb_free(&prog);
}

/* The verifier, on programs built by hand: each malformed one is refused
 * with the reason. */
Test(rtapi_file, verifier_refuses_malformed_programs) {
  tx_lp_ins code[3] = {
      {TX_LP_CONST, 0, 0, {.i = 1}}, {TX_LP_ADD, 0, 0, {0}}, {TX_LP_LOAD, 5, 0, {0}}};
  tx_lp_stmt st = {.kind = TX_LP_CHECK, .msg = "m", .expr = {0, 1}};
  tx_lp_func f = {.name = "f", .code = code, .ncode = 3, .stmts = &st, .nstmts = 1, .nslots = 1};
  char why[128];
  cr_assert(tx_lp_verify(&f, why, sizeof why), "%s", why);
  st.expr = (tx_lp_range){0, 2}; /* ADD with one operand */
  cr_assert_not(tx_lp_verify(&f, why, sizeof why));
  cr_expect(strstr(why, "underflow"), "%s", why);
  st.expr = (tx_lp_range){2, 3}; /* slot 5 of 1 */
  cr_assert_not(tx_lp_verify(&f, why, sizeof why));
  cr_expect(strstr(why, "slot"), "%s", why);
  st.expr = (tx_lp_range){1, 4}; /* past the code */
  cr_assert_not(tx_lp_verify(&f, why, sizeof why));
  st.expr = (tx_lp_range){0, 1};
  st.kind = TX_LP_LAUNCH; /* launch 0 of none */
  cr_assert_not(tx_lp_verify(&f, why, sizeof why));
  cr_expect(strstr(why, "launch"), "%s", why);
  st.kind = 99;
  cr_assert_not(tx_lp_verify(&f, why, sizeof why));
}

/* A damaged disk-cache entry: the documented behaviour is a miss (the
 * compile runs and rewrites the entry), never a crash or an error. */
Test(rtapi_cache, damaged_disk_entry_is_a_miss) {
  char dir[] = "/tmp/tirx_cache_dmg_XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.host_only = 1;
  o.disk_cache = 1;
  o.cache_dir = dir;
  tirx_executable *a = NULL;
  tirx_error err = {0};
  cr_assert_eq(tirx_compile("s", SCALE_DYN, strlen(SCALE_DYN), &o, &a, &err), TIRX_OK);
  tirx_executable_free(a);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "ls %s/*.tirxexe", dir);
  FILE *ls = popen(cmd, "r");
  char entry[512] = {0};
  cr_assert(ls && fgets(entry, sizeof entry, ls));
  pclose(ls);
  entry[strcspn(entry, "\n")] = 0;
  char *data = NULL;
  size_t len = 0;
  cr_assert_eq(tx_read_file(NULL, entry, &data, &len), 0);
  /* two kinds of damage (truncated, a flipped byte), then the entry intact */
  const struct {
    const char *bytes;
    size_t len;
    int hit;
  } cases[] = {{data, len / 2, 0}, {data, len, 0}, {data, len, 1}};
  for (size_t i = 0; i < 3; i++) {
    FILE *fp = fopen(entry, "wb");
    cr_assert(fp);
    if (i == 1) {
      fwrite(data, 1, 40, fp);
      fputc(data[40] ^ 0x55, fp);
      fwrite(data + 41, 1, len - 41, fp);
    } else {
      fwrite(cases[i].bytes, 1, cases[i].len, fp);
    }
    fclose(fp);
    tirx_executable *b = NULL;
    cr_assert_eq(tirx_compile("s", SCALE_DYN, strlen(SCALE_DYN), &o, &b, &err), TIRX_OK,
                 "case %zu: %s", i, err.message);
    cr_expect_eq(tirx_executable_from_cache(b), cases[i].hit, "case %zu", i);
    cr_expect_str_eq(tirx_executable_func_name(b, 0), "scale_dyn");
    tirx_executable_free(b);
  }
  free(data);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}

/* tirx_executable_save goes through support/file.h's writer: a FIFO or device is
 * written into, never replaced by a regular file. */
Test(rtapi_file, save_to_a_fifo_writes_through) {
  char dir[] = "/tmp/tirx_fifo_XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char fifo[64];
  snprintf(fifo, sizeof fifo, "%s/exe", dir);
  cr_assert_eq(mkfifo(fifo, 0600), 0);
  tirx_executable *exe = compile_host(SCALE_DYN);
  pid_t pid = fork();
  if (pid == 0) { /* the reader: counts what arrives */
    alarm(20);
    FILE *fp = fopen(fifo, "rb");
    size_t n = 0;
    while (fp && fgetc(fp) != EOF)
      n++;
    _exit(n > 100 ? 0 : 1);
  }
  tirx_error err = {0};
  cr_assert_eq(tirx_executable_save(exe, fifo, &err), TIRX_OK, "%s", err.message);
  int status = 0;
  waitpid(pid, &status, 0);
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the reader got the bytes");
  struct stat st;
  cr_assert_eq(lstat(fifo, &st), 0);
  cr_expect(S_ISFIFO(st.st_mode), "the FIFO was replaced");
  tirx_executable_free(exe);
  unlink(fifo);
  rmdir(dir);
}

/* ---- launches through the fake driver --------------------------------------------- */

Test(rtapi_launch, fake_driver_launch) {
  /* The fake driver accepts any image, so a PTX-less executable plus a
   * stand-in PTX is enough to see the launch configuration arrive. */
  tirx_executable *exe = compile_host(SCALE_DYN);
  char path[] = "/tmp/tirx_rtapi_XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  tirx_error err = {0};
  cr_assert_eq(tirx_executable_save(exe, path, &err), TIRX_OK);
  tirx_executable_free(exe);
  cr_assert_eq(tirx_executable_load(path, &exe, &err), TIRX_OK);
  unlink(path);
  cr_assert_eq(tirx_executable_ptx(exe, NULL)[0], 0);
  tirx_executable_free(exe);
}

/* ---- device memory, streams and DLPack through the public API (fake driver) ---- */

Test(rtapi_memory, tensors_copies_streams_and_dlpack) {
  tirx_error err = {0};
  tirx_runtime *rt = NULL;
  cr_assert_eq(tirx_runtime_open_with(FAKE_CUDA_PATH, 0, &rt, &err), TIRX_OK, "%s", err.message);
  int64_t shape[2] = {4, 8};
  DLManagedTensorVersioned *t = NULL;
  cr_assert_eq(tirx_tensor_alloc(rt, shape, 2, (DLDataType){kDLFloat, 32, 1}, &t, &err), TIRX_OK,
               "%s", err.message);
  cr_expect_eq(t->version.major, 1);
  cr_expect_eq(t->dl_tensor.device.device_type, kDLCUDA);
  size_t bytes = 0;
  cr_assert_eq(tirx_tensor_nbytes(&t->dl_tensor, &bytes, &err), TIRX_OK);
  cr_expect_eq(bytes, 4 * 8 * sizeof(float));
  float host[32], back[32];
  for (int i = 0; i < 32; i++)
    host[i] = (float)i;
  void *stream = NULL;
  cr_assert_eq(tirx_stream_create(rt, &stream, &err), TIRX_OK, "%s", err.message);
  cr_expect_eq(
      tirx_copy(rt, t->dl_tensor.data, host, bytes, TIRX_COPY_HOST_TO_DEVICE, stream, &err),
      TIRX_OK, "%s", err.message);
  cr_expect_eq(
      tirx_copy(rt, back, t->dl_tensor.data, bytes, TIRX_COPY_DEVICE_TO_HOST, stream, &err),
      TIRX_OK, "%s", err.message);
  cr_expect_eq(tirx_runtime_synchronize(rt, stream, &err), TIRX_OK, "%s", err.message);
  cr_expect_eq(memcmp(host, back, bytes), 0, "the fake device memory round-trips");
  const DLTensor *view = NULL;
  cr_expect_eq(tirx_dlpack_check(t, &view, &err), TIRX_OK, "%s", err.message);
  cr_expect_eq(view, &t->dl_tensor);
  DLManagedTensorVersioned bad = *t;
  bad.version.major = 2;
  cr_expect_eq(tirx_dlpack_check(&bad, &view, &err), TIRX_ERR_USAGE);
  cr_expect(strstr(err.message, "DLPack version 2.") != NULL, "%s", err.message);
  cr_expect_eq(tirx_copy(rt, back, host, 4, (tirx_copy_kind)9, NULL, &err), TIRX_ERR_USAGE);
  cr_expect_eq(tirx_tensor_alloc(NULL, shape, 2, (DLDataType){kDLFloat, 32, 1}, &t, &err),
               TIRX_ERR_USAGE);
  cr_expect_eq(tirx_stream_destroy(rt, stream, &err), TIRX_OK, "%s", err.message);
  DLManagedTensor *old = NULL;
  cr_assert_eq(tirx_tensor_alloc_legacy(rt, shape, 2, (DLDataType){kDLInt, 8, 1}, &old, &err),
               TIRX_OK, "%s", err.message);
  cr_expect_eq(tirx_dlpack_check_legacy(old, &view, &err), TIRX_OK, "%s", err.message);
  cr_expect_eq(view, &old->dl_tensor);
  tirx_dlpack_release_legacy(old);
  tirx_dlpack_release(t);
  tirx_runtime_close(rt);
}

/* ---- tensor maps through the fake driver ------------------------------------------- */

static fake_cuda_state *fake_state(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(h, "%s", dlerror());
  void *sym = dlsym(h, "fake_cuda_state_get");
  cr_assert_not_null(sym);
  fake_cuda_state_fn fn;
  memcpy(&fn, &sym, sizeof fn);
  return fn(); /* the handle stays open: the runtime shares the same copy */
}

/* A host-only executable given a stand-in PTX section: the fake driver loads
 * any image, so tirx_function_call gets all the way to cuLaunchKernelEx. */
static tirx_executable *compile_with_stand_in_ptx(const char *src) {
  tx_strbuf bytes = {0};
  rebuilt_bytes(src, "// stand-in PTX for the fake driver\n", NULL, &bytes);
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  cr_assert_eq(tirx_executable_load_bytes(bytes.data, bytes.len, NULL, &exe, &err), TIRX_OK, "%s",
               err.message);
  tx_sb_free(&bytes);
  return exe;
}

/* Two maps over float16 tensors (64 x 128): A's box height K comes from an
 * argument; B's map is encoded as float32 with element strides (1, 2),
 * 128-byte swizzle, 256-byte L2 promotion, NaN fill and TVM's optional
 * force_dtype last. The kernel takes both by value. */
static const char TMA[] =
    HDR "def tm(A: T.Buffer((64, 128), \"float16\"), B: T.Buffer((64, 128), \"float16\"), K: "
        "T.int32, force: T.int32):\n"
        "    A_map: T.let[T.handle(\"tensormap\")] = T.tvm_stack_alloca(\"tensormap\", 1)\n"
        "    B_map: T.let[T.TensorMap()] = T.stack_alloca(\"tensormap\", 1)\n"
        "    T.call_packed(\"runtime.cuTensorMapEncodeTiled\", A_map, \"float16\", 2, A.data, 128, "
        "64, 256, 64, K, 1, 1, 0, 3, 2, 0)\n"
        "    T.call_packed(\"runtime.cuTensorMapEncodeTiled\", B_map, \"float32\", 2, B.data, 128, "
        "64, 256, 32, 16, 1, 2, 0, 3, 3, 1, force)\n"
        "    T.device_entry()\n"
        "    bx = T.cta_id([1])\n"
        "    tx = T.thread_id([32])\n"
        "    if tx == 0:\n"
        "        T.ptx.prefetch_tensormap(T.address_of(A_map))\n"
        "        T.ptx.prefetch_tensormap(B_map)\n";

static _Alignas(128) uint16_t TMA_A[64 * 128], TMA_B[64 * 128];
static int64_t TMA_SHAPE[2] = {64, 128};

static tirx_status call_tm(const tirx_function *fn, void *a_data, int64_t k, int64_t force,
                           tirx_error *err) {
  static DLTensor a, b;
  a = tensor(a_data, TMA_SHAPE, 2, F16);
  b = tensor(TMA_B, TMA_SHAPE, 2, F16);
  tirx_arg args[4] = {{TIRX_ARG_TENSOR, {.tensor = &a}},
                      {TIRX_ARG_TENSOR, {.tensor = &b}},
                      {TIRX_ARG_INT, {.i = k}},
                      {TIRX_ARG_INT, {.i = force}}};
  return tirx_function_call(fn, args, 4, NULL, err);
}

typedef struct tma_fixture {
  tirx_executable *exe;
  tirx_runtime *rt;
  tirx_loaded *lm;
  tirx_function *fn;
  fake_cuda_state *fake;
} tma_fixture;

static void tma_setup(tma_fixture *f, const char *driver, const char *src, const char *name,
                      int with_ptx) {
  f->exe = with_ptx ? compile_with_stand_in_ptx(src) : compile_host(src);
  tirx_error err = {0};
  cr_assert_eq(tirx_runtime_open_with(driver, 0, &f->rt, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_runtime_load(f->rt, f->exe, &f->lm, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_loaded_function(f->lm, name, &f->fn, &err), TIRX_OK, "%s", err.message);
  f->fake = fake_state(driver);
}

static void tma_teardown(tma_fixture *f) {
  tirx_loaded_free(f->lm);
  tirx_runtime_close(f->rt);
  tirx_executable_free(f->exe);
}

Test(rtapi_tensormap, encoded_at_launch_and_passed_by_value) {
  tma_fixture f;
  tma_setup(&f, FAKE_CUDA_PATH, TMA, "tm", 1);
  fake_cuda_state *s = f.fake;
  s->capture_size[0] = s->capture_size[1] = 128;
  tirx_error err = {0};
  cr_assert_eq(call_tm(f.fn, TMA_A, 16, -1, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(s->encodes, 2);
  cr_assert_eq(s->launches, 1);
  /* The last encode is B_map's, with TVM's argument order and enums. */
  cr_expect_eq(s->last_encode.dtype, 7, "float32 is CU_TENSOR_MAP_DATA_TYPE_FLOAT32 (7)");
  cr_expect_eq(s->last_encode.rank, 2);
  cr_expect_eq(s->last_encode.address, (void *)TMA_B);
  cr_expect(s->last_encode.dims[0] == 128 && s->last_encode.dims[1] == 64);
  cr_expect_eq(s->last_encode.strides[0], 256);
  cr_expect(s->last_encode.box[0] == 32 && s->last_encode.box[1] == 16);
  cr_expect(s->last_encode.elem_strides[0] == 1 && s->last_encode.elem_strides[1] == 2);
  cr_expect_eq(s->last_encode.interleave, 0);
  cr_expect_eq(s->last_encode.swizzle, 3);
  cr_expect_eq(s->last_encode.l2_promotion, 3);
  cr_expect_eq(s->last_encode.oob_fill, 1);
  cr_expect_eq((uintptr_t)s->last_encode.map % 64, 0, "the map storage is 64-byte aligned");
  /* Kernel parameters: (A_map, B_map), each the 128 bytes the driver wrote. */
  unsigned long long p0[16], p1[16];
  memcpy(p0, s->captured[0], sizeof p0);
  memcpy(p1, s->captured[1], sizeof p1);
  cr_expect(p0[0] == FAKE_TENSORMAP_MAGIC && p0[1] == (uintptr_t)TMA_A && p0[2] == 2 &&
                p0[3] == 128 && p0[4] == 64,
            "parameter 0 holds A's map");
  cr_expect(p1[0] == FAKE_TENSORMAP_MAGIC && p1[1] == (uintptr_t)TMA_B,
            "parameter 1 holds B's map");
  cr_expect(s->last_config.gridDimX == 1 && s->last_config.blockDimX == 32);
  /* Every call encodes again, with that call's values. */
  cr_assert_eq(call_tm(f.fn, TMA_B, 8, 11, &err), TIRX_OK, "%s", err.message);
  cr_expect_eq(s->encodes, 4);
  cr_expect_eq(s->last_encode.dtype, 11, "force_dtype 11 (TFLOAT32) replaces float32's type");
  memcpy(p0, s->captured[0], sizeof p0);
  cr_expect(p0[1] == (uintptr_t)TMA_B, "the second call's A_map describes its A");
  tma_teardown(&f);
}

Test(rtapi_tensormap, host_checks_and_driver_errors) {
  tma_fixture f;
  tma_setup(&f, FAKE_CUDA_PATH, TMA, "tm", 1);
  fake_cuda_state *s = f.fake;
  tirx_error err = {0};
  /* TVM's checks run before the driver is asked: no encode, no launch. */
  expect_msg(call_tm(f.fn, TMA_A, 300, -1, &err), &err,
             "tm: runtime.cuTensorMapEncodeTiled for 'A_map': boxDim[1] = 300 must be in 1..256");
  expect_msg(call_tm(f.fn, TMA_A, 0, -1, &err), &err,
             "tm: runtime.cuTensorMapEncodeTiled for 'A_map': boxDim[1] = 0 must be in 1..256");
  char want[256];
  snprintf(want, sizeof want,
           "tm: runtime.cuTensorMapEncodeTiled for 'A_map': globalAddress = 0x%llx must be "
           "16-byte aligned",
           (unsigned long long)(uintptr_t)((char *)TMA_A + 2));
  expect_msg(call_tm(f.fn, (char *)TMA_A + 2, 16, -1, &err), &err, want);
  cr_expect_eq(s->encodes, 0);
  /* Statements run in order: A_map is encoded before B_map's check fails. */
  expect_msg(call_tm(f.fn, TMA_A, 16, 99, &err), &err,
             "tm: runtime.cuTensorMapEncodeTiled for 'B_map': force_cu_dtype = 99: only "
             "CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 (11) is supported");
  cr_expect_eq(s->encodes, 1);
  cr_expect_eq(s->launches, 0);
  /* The driver's refusal names the map and what it was given. */
  s->encode_result = TX_CUDA_ERROR_INVALID_VALUE;
  tirx_status st = call_tm(f.fn, TMA_A, 16, -1, &err);
  cr_assert_eq(st, TIRX_ERR_USAGE, "%s", err.message);
  const char *head = "tm: encoding tensor map 'A_map': cuTensorMapEncodeTiled failed: "
                     "CUDA_ERROR_INVALID_VALUE (1) (tensorDataType 6, rank 2, globalAddress 0x";
  cr_expect(strncmp(err.message, head, strlen(head)) == 0, "%s", err.message);
  cr_expect(strstr(err.message, "globalDim [128, 64], globalStrides [256], boxDim [64, 16], "
                                "elementStrides [1, 1], interleave 0, swizzle 3, l2Promotion 2, "
                                "oobFill 0)"),
            "%s", err.message);
  cr_expect_eq(s->launches, 0, "nothing launches after a failed encode");
  tma_teardown(&f);
}

Test(rtapi_tensormap, driver_without_the_entry_point) {
  /* A driver older than CUDA 12.0 loads and launches other kernels; only a
   * call that encodes a tensor map fails, naming what is missing. */
  tma_fixture f;
  tma_setup(&f, FAKE_CUDA_OLD_PATH, TMA, "tm", 1);
  tirx_error err = {0};
  tirx_status st = call_tm(f.fn, TMA_A, 16, -1, &err);
  cr_assert_eq(st, TIRX_ERR_IO, "%s", err.message);
  cr_assert_str_eq(err.message,
                   "tm: encoding tensor map 'A_map': the CUDA driver lacks "
                   "cuTensorMapEncodeTiled, which tensor maps (TMA) need: a driver for CUDA 12.0 "
                   "or newer is required");
  cr_expect_eq(f.fake->launches, 0);
  tma_teardown(&f);
  tma_setup(&f, FAKE_CUDA_OLD_PATH, SCALE_DYN, "scale_dyn", 1);
  DLTensor a = tensor(BUF_A, SHAPE_A, 1, F32), b = tensor(BUF_B, SHAPE_B, 1, F32);
  tirx_arg args[4] = {
      {TIRX_ARG_TENSOR, {.tensor = &a}}, {TIRX_ARG_TENSOR, {.tensor = &b}}, S_OK, K_OK};
  cr_assert_eq(tirx_function_call(f.fn, args, 4, NULL, &err), TIRX_OK, "%s", err.message);
  cr_expect_eq(f.fake->launches, 1);
  tma_teardown(&f);
}

Test(rtapi_tensormap, host_only_checks_without_encoding) {
  tma_fixture f;
  tma_setup(&f, FAKE_CUDA_PATH, TMA, "tm", 0);
  tirx_error err = {0};
  tirx_status st = call_tm(f.fn, TMA_A, 16, -1, &err);
  cr_assert_eq(st, TIRX_ERR_USAGE);
  cr_assert(strstr(err.message, "no device code"), "%s", err.message);
  cr_expect_eq(f.fake->encodes, 0, "nothing to launch, so the driver is not asked");
  expect_msg(call_tm(f.fn, TMA_A, 257, -1, &err), &err,
             "tm: runtime.cuTensorMapEncodeTiled for 'A_map': boxDim[1] = 257 must be in 1..256");
  tma_teardown(&f);
}

/* A kernel parameter of tensor-map type on the host function itself: the
 * caller passes a handle to an encoded map, which reaches the kernel by value. */
static const char TMP[] = HDR "def tp(M: T.TensorMap(), n: T.int32):\n"
                              "    T.device_entry()\n"
                              "    bx = T.cta_id([1])\n"
                              "    tx = T.thread_id([32])\n"
                              "    if tx == n:\n"
                              "        T.ptx.prefetch_tensormap(M)\n";

Test(rtapi_tensormap, map_from_the_caller) {
  tma_fixture f;
  tma_setup(&f, FAKE_CUDA_PATH, TMP, "tp", 1);
  fake_cuda_state *s = f.fake;
  s->capture_size[0] = 128;
  s->capture_size[1] = 4;
  static _Alignas(64) unsigned char map[128];
  for (int i = 0; i < 128; i++)
    map[i] = (unsigned char)(i * 7 + 1);
  tirx_error err = {0};
  tirx_arg args[2] = {{TIRX_ARG_HANDLE, {.handle = map}}, {TIRX_ARG_INT, {.i = 5}}};
  cr_assert_eq(tirx_function_call(f.fn, args, 2, NULL, &err), TIRX_OK, "%s", err.message);
  cr_expect_eq(memcmp(s->captured[0], map, 128), 0, "the caller's 128 bytes, by value");
  int32_t n = 0;
  memcpy(&n, s->captured[1], 4);
  cr_expect_eq(n, 5);
  cr_expect_eq(s->encodes, 0);
  args[0].v.handle = NULL;
  expect_msg(tirx_function_call(f.fn, args, 2, NULL, &err), &err, "tp: tensor map 'M' is NULL");
  tma_teardown(&f);
}

Test(rtapi_tensormap, map_launched_before_encoding) {
  const char src[] = HDR "def early(A: T.Buffer((64,), \"float32\")):\n"
                         "    A_map: T.let[T.TensorMap()] = T.tvm_stack_alloca(\"tensormap\", 1)\n"
                         "    T.device_entry()\n"
                         "    tx = T.thread_id([32])\n"
                         "    T.ptx.prefetch_tensormap(A_map)\n";
  tirx_executable *exe = compile_host(src);
  tirx_runtime *rt = NULL;
  tirx_loaded *lm = NULL;
  tirx_function *fn = NULL;
  tirx_error err = {0};
  cr_assert_eq(tirx_runtime_open_with(FAKE_CUDA_PATH, 0, &rt, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_runtime_load(rt, exe, &lm, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_loaded_function(lm, "early", &fn, &err), TIRX_ERR_USAGE);
  cr_expect(strstr(err.message, "tensor map 'A_map' reaches the launch of early_kernel before "
                                "runtime.cuTensorMapEncodeTiled encodes it"),
            "%s", err.message);
  tirx_loaded_free(lm);
  tirx_executable_free(exe);
  /* Other TVM runtime services are refused by name, not taken for a launch. */
  const char other[] = HDR "def other(A: T.Buffer((64,), \"float32\")):\n"
                           "    M: T.let[T.TensorMap()] = T.tvm_stack_alloca(\"tensormap\", 1)\n"
                           "    T.call_packed(\"runtime.tensormap_init\", M, A.data)\n"
                           "    T.device_entry()\n"
                           "    tx = T.thread_id([32])\n"
                           "    T.ptx.prefetch_tensormap(M)\n";
  exe = compile_host(other);
  cr_assert_eq(tirx_runtime_load(rt, exe, &lm, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_loaded_function(lm, "other", &fn, &err), TIRX_ERR_USAGE);
  cr_expect(strstr(err.message, "the launcher does not provide the packed function "
                                "runtime.tensormap_init"),
            "%s", err.message);
  tirx_loaded_free(lm);
  tirx_runtime_close(rt);
  tirx_executable_free(exe);
}

/* ---- a shape variable no access reads (split-host-device) -------------------------- */

/* The kernel reads A only at A[tx % 4], so only A's declared shape (m,)
 * mentions m; split-host-device still makes m a kernel parameter (docs/
 * lowering.md), and the launcher must pass the m it binds from A's shape. */
static const char UNREAD[] =
    "m = T.int32()\n\n" HDR "def unread(A: T.Buffer((m,), \"float32\"), B: T.Buffer((32,), "
    "\"float32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([32])\n"
    "    B[tx] = A[tx % 4] * T.float32(2.0)\n";

/* The lowered kernel's signature, so that a kernel without m fails here
 * rather than when the fake driver reads a third parameter that is not there. */
static void expect_kernel_signature(const char *src, const char *want) {
  tirx_ctx *ctx = NULL;
  cr_assert_eq(tirx_ctx_create(&ctx), TIRX_OK);
  tirx_module *m = NULL;
  cr_assert_eq(tirx_parse_string(ctx, "t.tirx", src, strlen(src), &m), TIRX_OK);
  tx_compile_request req;
  tx_compile_request_init(&req);
  req.emit = TX_EMIT_LOWERED;
  req.pipeline.verify_each = 1;
  tx_strbuf out = {0};
  cr_assert_eq(tx_compile_module(ctx, m->mod, &req, NULL, &out), TIRX_OK);
  cr_assert_not_null(strstr(tx_sb_cstr(&out), want), "no '%s' in:\n%s", want, tx_sb_cstr(&out));
  tx_sb_free(&out);
  tirx_ctx_destroy(ctx);
}

Test(rtapi_launch, unread_shape_variable_reaches_the_kernel) {
  expect_kernel_signature(UNREAD, "def unread_kernel(A: T.Buffer((m,), \"float32\"), "
                                  "B: T.Buffer((32,), \"float32\"), m: T.int32):");
  tma_fixture f;
  tma_setup(&f, FAKE_CUDA_PATH, UNREAD, "unread", 1);
  fake_cuda_state *s = f.fake;
  s->capture_size[0] = s->capture_size[1] = sizeof(void *);
  s->capture_size[2] = 4;
  memset(s->captured, 0, sizeof s->captured);
  static int64_t shape_a[1] = {7}, shape_b[1] = {32};
  DLTensor a = tensor(BUF_A, shape_a, 1, F32), b = tensor(BUF_B, shape_b, 1, F32);
  tirx_arg args[2] = {{TIRX_ARG_TENSOR, {.tensor = &a}}, {TIRX_ARG_TENSOR, {.tensor = &b}}};
  tirx_error err = {0};
  int launches = s->launches;
  cr_assert_eq(tirx_function_call(f.fn, args, 2, NULL, &err), TIRX_OK, "%s", err.message);
  cr_expect_eq(s->launches, launches + 1);
  void *p0 = NULL, *p1 = NULL;
  int32_t m = 0;
  memcpy(&p0, s->captured[0], sizeof p0);
  memcpy(&p1, s->captured[1], sizeof p1);
  memcpy(&m, s->captured[2], sizeof m);
  cr_expect_eq(p0, (void *)BUF_A, "A's data first");
  cr_expect_eq(p1, (void *)BUF_B, "then B's");
  cr_expect_eq(m, 7, "then m, bound from A's shape[0]");
  tma_teardown(&f);
}

/* ---- clusters through the public API (fake driver) ------------------------------- */

/* TVM's clusterCtaIdx bindings: the cluster shape the compiler recorded
 * reaches cuLaunchKernelEx as the cluster-dimension attribute, and the grid
 * stays in CTAs (the blockIdx extents). */
static const char CLUSTER_BIND[] =
    HDR "def cb(A: T.Buffer((256,), \"int32\")):\n"
        "    T.device_entry()\n"
        "    for cx in T.thread_binding(2, thread=\"clusterCtaIdx.x\"):\n"
        "        for cy in T.thread_binding(2, thread=\"clusterCtaIdx.y\"):\n"
        "            for bx in T.thread_binding(4, thread=\"blockIdx.x\"):\n"
        "                for by in T.thread_binding(2, thread=\"blockIdx.y\"):\n"
        "                    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
        "                        A[(by * 4 + bx) * 32 + tx] = cx + cy * 2\n";

Test(rtapi_launch, cluster_bindings_launch_clusters) {
  tirx_executable *exe = compile_with_stand_in_ptx(CLUSTER_BIND);
  tirx_error err = {0};
  tirx_runtime *rt = NULL;
  tirx_loaded *lm = NULL;
  tirx_function *fn = NULL;
  cr_assert_eq(tirx_runtime_open_with(FAKE_CUDA_PATH, 0, &rt, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_runtime_load(rt, exe, &lm, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tirx_loaded_function(lm, "cb", &fn, &err), TIRX_OK, "%s", err.message);
  fake_cuda_state *s = fake_state(FAKE_CUDA_PATH);
  static int32_t out[256];
  static int64_t shape[1] = {256};
  DLTensor a = tensor(out, shape, 1, (DLDataType){kDLInt, 32, 1});
  tirx_arg args[1] = {{TIRX_ARG_TENSOR, {.tensor = &a}}};
  cr_assert_eq(tirx_function_call(fn, args, 1, NULL, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(s->launches, 1);
  cr_expect(s->last_config.gridDimX == 4 && s->last_config.gridDimY == 2 &&
                s->last_config.gridDimZ == 1,
            "grid (%u, %u, %u), want (4, 2, 1) CTAs", s->last_config.gridDimX,
            s->last_config.gridDimY, s->last_config.gridDimZ);
  cr_expect_eq(s->last_config.blockDimX, 32);
  cr_assert_eq(s->last_config.numAttrs, 1);
  cr_assert_eq(s->last_attrs[0].id, TX_CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
  cr_expect(s->last_attrs[0].value.clusterDim.x == 2 && s->last_attrs[0].value.clusterDim.y == 2 &&
                s->last_attrs[0].value.clusterDim.z == 1,
            "cluster (%u, %u, %u), want (2, 2, 1)", s->last_attrs[0].value.clusterDim.x,
            s->last_attrs[0].value.clusterDim.y, s->last_attrs[0].value.clusterDim.z);
  tirx_loaded_free(lm);
  tirx_runtime_close(rt);
  tirx_executable_free(exe);
}

/* ---- NULL arguments ----------------------------------------------------------------
 * Every public entry point checks its pointers: a NULL where an object is
 * needed is TIRX_ERR_USAGE (with the error filled when one is given), and
 * calls without a status do nothing or return a neutral value. A
 * regression test: tirx_cache_stats(NULL, ...) and
 * tirx_compile_options_init(NULL) used to crash. */

static void expect_usage(tirx_status st, const tirx_error *err, const char *what) {
  cr_expect_eq(st, TIRX_ERR_USAGE, "%s: status %d", what, st);
  cr_expect_eq(err->code, TIRX_ERR_USAGE, "%s: error code %d", what, err->code);
  cr_expect(err->message[0], "%s: no message", what);
}

Test(rtapi_null, cache_and_options) {
  cr_expect_eq(tirx_cache_create(NULL), TIRX_ERR_USAGE);
  tirx_cache_destroy(NULL);
  uint64_t hits = 7, entries = 7;
  tirx_cache_stats(NULL, &hits, &entries);
  cr_expect_eq(hits, 0);
  cr_expect_eq(entries, 0);
  tirx_cache_stats(NULL, NULL, NULL);
  tirx_cache *c = NULL;
  cr_assert_eq(tirx_cache_create(&c), TIRX_OK);
  tirx_cache_stats(c, NULL, NULL);
  tirx_cache_stats(c, &hits, NULL);
  cr_expect_eq(hits, 0);
  tirx_cache_destroy(c);
  tirx_compile_options_init(NULL);
}

Test(rtapi_null, compile_save_load) {
  tirx_error err = {0};
  tirx_executable *exe = (tirx_executable *)1;
  expect_usage(tirx_compile("s", NULL, 5, NULL, &exe, &err), &err, "compile text");
  cr_expect_null(exe);
  expect_usage(tirx_compile("s", SCALE_DYN, strlen(SCALE_DYN), NULL, NULL, &err), &err,
               "compile out");
  cr_expect_eq(tirx_compile("s", NULL, 0, NULL, NULL, NULL), TIRX_ERR_USAGE);
  expect_usage(tirx_compile_module(NULL, NULL, &exe, &err), &err, "compile_module mod");
  expect_usage(tirx_executable_save(NULL, "/tmp/x", &err), &err, "save exe");
  expect_usage(tirx_executable_load(NULL, &exe, &err), &err, "load path");
  expect_usage(tirx_executable_load("/tmp/x", NULL, &err), &err, "load out");
  tirx_executable_free(NULL);
  cr_expect_eq(tirx_executable_func_count(NULL), 0);
  cr_expect_null(tirx_executable_func_name(NULL, 0));
  cr_expect_null(tirx_executable_arch(NULL));
  size_t len = 9;
  cr_expect_null(tirx_executable_ptx(NULL, &len));
  cr_expect_eq(len, 0);
  cr_expect_eq(tirx_executable_from_cache(NULL), 0);
  cr_expect_eq(tirx_executable_param_count(NULL, "f"), 0);
  tirx_param_info info;
  cr_expect_eq(tirx_executable_param(NULL, "f", 0, &info), TIRX_ERR_USAGE);
  tirx_executable *real = compile_host(SCALE_DYN);
  /* a name can be NULL: tirx_compile calls the source "<string>" then */
  tirx_executable *named = NULL;
  cr_expect_eq(tirx_compile(NULL, SCALE_DYN, strlen(SCALE_DYN), NULL, &named, &err), TIRX_OK, "%s",
               err.message);
  tirx_executable_free(named);
  expect_usage(tirx_executable_save(real, NULL, &err), &err, "save path");
  cr_expect_eq(tirx_executable_param_count(real, NULL), 0);
  cr_expect_eq(tirx_executable_param(real, NULL, 0, &info), TIRX_ERR_USAGE);
  cr_expect_eq(tirx_executable_param(real, "scale_dyn", 0, NULL), TIRX_ERR_USAGE);
  cr_expect_null(tirx_executable_ptx(real, NULL) ? NULL : NULL);
  tirx_executable_free(real);
}

Test(rtapi_null, runtime_and_calls) {
  tirx_error err = {0};
  expect_usage(tirx_runtime_open_with(FAKE_CUDA_PATH, 0, NULL, &err), &err, "open out");
  expect_usage(tirx_runtime_open(0, NULL, &err), &err, "open out");
  tirx_runtime_close(NULL);
  cr_expect_null(tirx_runtime_arch(NULL));
  expect_usage(tirx_runtime_synchronize(NULL, NULL, &err), &err, "synchronize");
  tirx_loaded *lm = NULL;
  expect_usage(tirx_runtime_load(NULL, NULL, &lm, &err), &err, "load rt");
  tirx_loaded_free(NULL);
  tirx_function *fn = NULL;
  expect_usage(tirx_loaded_function(NULL, "f", &fn, &err), &err, "function lm");
  expect_usage(tirx_function_call(NULL, NULL, 0, NULL, &err), &err, "call fn");
  fixture f;
  setup(&f, SCALE_DYN, "scale_dyn");
  expect_usage(tirx_runtime_load(f.rt, NULL, &lm, &err), &err, "load exe");
  expect_usage(tirx_runtime_load(f.rt, f.exe, NULL, &err), &err, "load out");
  expect_usage(tirx_loaded_function(f.lm, NULL, &fn, &err), &err, "function name");
  expect_usage(tirx_loaded_function(f.lm, "scale_dyn", NULL, &err), &err, "function out");
  expect_usage(tirx_function_call(f.fn, NULL, 4, NULL, &err), &err, "call args");
  tirx_arg args[4] = {
      {TIRX_ARG_TENSOR, {.tensor = NULL}}, {TIRX_ARG_TENSOR, {.tensor = NULL}}, S_OK, K_OK};
  expect_usage(tirx_function_call(f.fn, args, 4, NULL, &err), &err, "call NULL tensor");
  teardown(&f);
}

Test(rtapi_null, memory_and_dlpack) {
  tirx_error err = {0};
  int64_t shape[1] = {4};
  DLManagedTensorVersioned *t = NULL;
  expect_usage(tirx_tensor_alloc(NULL, shape, 1, F32, &t, &err), &err, "alloc rt");
  DLManagedTensor *lt = NULL;
  expect_usage(tirx_tensor_alloc_legacy(NULL, shape, 1, F32, &lt, &err), &err, "alloc legacy");
  size_t n = 0;
  expect_usage(tirx_tensor_nbytes(NULL, &n, &err), &err, "nbytes t");
  DLTensor d = tensor(BUF_A, SHAPE_A, 1, F32);
  expect_usage(tirx_tensor_nbytes(&d, NULL, &err), &err, "nbytes out");
  const DLTensor *out = NULL;
  expect_usage(tirx_dlpack_check(NULL, &out, &err), &err, "check m");
  expect_usage(tirx_dlpack_check_legacy(NULL, &out, &err), &err, "check legacy m");
  tirx_dlpack_release(NULL);
  tirx_dlpack_release_legacy(NULL);
  expect_usage(tirx_copy(NULL, BUF_A, BUF_B, 4, TIRX_COPY_DEVICE_TO_DEVICE, NULL, &err), &err,
               "copy rt");
  void *s = NULL;
  expect_usage(tirx_stream_create(NULL, &s, &err), &err, "stream rt");
  expect_usage(tirx_stream_destroy(NULL, NULL, &err), &err, "stream destroy rt");
  tirx_runtime *rt = NULL;
  cr_assert_eq(tirx_runtime_open_with(FAKE_CUDA_PATH, 0, &rt, &err), TIRX_OK, "%s", err.message);
  expect_usage(tirx_tensor_alloc(rt, shape, 1, F32, NULL, &err), &err, "alloc out");
  expect_usage(tirx_tensor_alloc(rt, NULL, 1, F32, &t, &err), &err, "alloc shape");
  expect_usage(tirx_copy(rt, NULL, BUF_B, 4, TIRX_COPY_DEVICE_TO_DEVICE, NULL, &err), &err,
               "copy dst");
  expect_usage(tirx_copy(rt, BUF_A, NULL, 4, TIRX_COPY_DEVICE_TO_DEVICE, NULL, &err), &err,
               "copy src");
  expect_usage(tirx_stream_create(rt, NULL, &err), &err, "stream out");
  tirx_runtime_close(rt);
}

/* ---- several kernels in one host function -------------------------------------------- */

/* Two kernels with different grids and parameters, and a host binding
 * between them: the call launches both, in order, with their own shapes. */
static const char TWO_KERNELS[] =
    HDR "def two(A: T.Buffer((256,), \"float32\"), B: T.Buffer((256,), \"float32\")):\n"
        "    with T.attr({\"tirx.device_entry\": T.bool(True)}):\n"
        "        bx = T.cta_id([2])\n"
        "        tx = T.thread_id([128])\n"
        "        B[bx * 128 + tx] = A[bx * 128 + tx] * T.float32(2.0)\n"
        "    with T.attr({\"tirx.device_entry\": T.bool(True)}):\n"
        "        bx = T.cta_id([1])\n"
        "        tx = T.thread_id([256])\n"
        "        B[tx] = B[tx] + T.float32(1.0)\n";

Test(rtapi_multi, two_kernels_launch_in_order) {
  tma_fixture f;
  tma_setup(&f, FAKE_CUDA_PATH, TWO_KERNELS, "two", 1);
  fake_cuda_state *s = f.fake;
  static float a[256], b[256];
  static int64_t shape[1] = {256};
  DLTensor ta = tensor(a, shape, 1, F32), tb = tensor(b, shape, 1, F32);
  tirx_arg args[2] = {{TIRX_ARG_TENSOR, {.tensor = &ta}}, {TIRX_ARG_TENSOR, {.tensor = &tb}}};
  int before = s->launches, logged = s->nlaunch_log;
  tirx_error err = {0};
  cr_assert_eq(tirx_function_call(f.fn, args, 2, NULL, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(s->launches - before, 2);
  cr_assert_eq(s->nlaunch_log - logged, 2);
  cr_expect_str_eq(s->launch_log[logged].kernel, "two_kernel");
  cr_expect(s->launch_log[logged].grid_x == 2 && s->launch_log[logged].block_x == 128);
  cr_expect_str_eq(s->launch_log[logged + 1].kernel, "two_kernel_1");
  cr_expect(s->launch_log[logged + 1].grid_x == 1 && s->launch_log[logged + 1].block_x == 256);
  /* A bad argument is caught by the checks, before either launch. */
  DLTensor wrong = tensor(b, shape, 1, F16);
  args[1].v.tensor = &wrong;
  cr_assert_eq(tirx_function_call(f.fn, args, 2, NULL, &err), TIRX_ERR_USAGE);
  cr_expect(strstr(err.message, "expected dtype float32"), "%s", err.message);
  cr_expect_eq(s->launches - before, 2, "no launch after a failed check");
  tma_teardown(&f);
}

/* ---- device code for several architectures ---------------------------------- */

Test(rtapi_arches, compile_lists_every_architecture_in_order) {
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.host_only = 1;
  o.arch = "sm_80,sm_100a,sm_90a";
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  cr_assert_eq(tirx_compile("t.tirx", SCALE_DYN, strlen(SCALE_DYN), &o, &exe, &err), TIRX_OK, "%s",
               err.message);
  cr_assert_eq(tirx_executable_arch_count(exe), 3);
  cr_assert_str_eq(tirx_executable_arch(exe), "sm_80");
  cr_assert_str_eq(tirx_executable_arch_at(exe, 1), "sm_100a");
  cr_assert_str_eq(tirx_executable_arch_at(exe, 2), "sm_90a");
  cr_assert_null(tirx_executable_arch_at(exe, 3));
  size_t len = 1;
  cr_assert_str_eq(tirx_executable_ptx_for(exe, "sm_90a", &len), "");
  cr_assert_eq(len, 0);
  cr_assert_null(tirx_executable_ptx_for(exe, "sm_86", &len));
  tirx_executable_free(exe);

  static const char *const BAD[][2] = {
      {"sm_90a,sm_90a", "architecture 'sm_90a' named twice"},
      {"sm_90a,,sm_100a", "unknown architecture ''"},
      {"sm_90a,", "unknown architecture ''"},
      {"sm_91", "unknown architecture 'sm_91'"},
  };
  for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
    o.arch = BAD[i][0];
    cr_assert_eq(tirx_compile("t.tirx", SCALE_DYN, strlen(SCALE_DYN), &o, &exe, &err),
                 TIRX_ERR_USAGE, "%s", BAD[i][0]);
    cr_assert(strstr(err.message, BAD[i][1]), "%s: %s", BAD[i][0], err.message);
  }
}

/* SCALE_DYN's executable with one image per (arch, ptx) pair, loaded on the
 * fake driver (a 9.0 device: sm_90a), which refuses PTX starting "bad". */
static tirx_status load_images(const char *const (*images)[2], uint32_t n, tirx_error *err) {
  tx_strbuf bytes = {0};
  rebuilt_bytes(SCALE_DYN, NULL, NULL, &bytes);
  tx_exe_parts parts;
  char why[256];
  cr_assert_eq(tx_exe_deserialize(bytes.data, bytes.len, &parts, why, sizeof why), TIRX_OK);
  parts.nimages = n;
  for (uint32_t i = 0; i < n; i++)
    parts.images[i] =
        (tx_exe_image){images[i][0], TX_EXE_CODE_PTX, images[i][1], strlen(images[i][1])};
  tx_strbuf again = {0};
  cr_assert_eq(tx_exe_serialize(&parts, &again), TIRX_OK);
  tirx_executable *exe = NULL;
  cr_assert_eq(tirx_executable_load_bytes(again.data, again.len, NULL, &exe, err), TIRX_OK, "%s",
               err->message);
  cr_assert_eq(tirx_executable_arch_count(exe), n);
  tirx_runtime *rt = NULL;
  cr_assert_eq(tirx_runtime_open_with(FAKE_CUDA_PATH, 0, &rt, err), TIRX_OK, "%s", err->message);
  tirx_loaded *lm = NULL;
  tirx_status st = tirx_runtime_load(rt, exe, &lm, err);
  tirx_loaded_free(lm);
  tirx_runtime_close(rt);
  tirx_executable_free(exe);
  tx_sb_free(&again);
  tx_sb_free(&bytes);
  return st;
}

Test(rtapi_arches, load_picks_the_device_code_the_device_runs) {
  static const char *const EXACT[][2] = {{"sm_100a", "bad"}, {"sm_90a", "good"}, {"sm_90", "bad"}};
  static const char *const PORTABLE[][2] = {
      {"sm_80", "bad"}, {"sm_100", "bad"}, {"sm_90", "good"}, {"sm_100a", "bad"}};
  static const char *const NONE[][2] = {{"sm_100a", "good"}, {"sm_120", "good"}};
  static const char *const ONE[][2] = {{"sm_100a", "good"}};
  tirx_error err = {0};
  cr_assert_eq(load_images(EXACT, 3, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(load_images(PORTABLE, 4, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(load_images(NONE, 2, &err), TIRX_ERR_USAGE);
  cr_assert_str_eq(err.message,
                   "no device code for this device (sm_90a) in the executable; it has sm_100a, "
                   "sm_120");
  /* One image goes to the driver whatever it is for: its JIT decides. */
  cr_assert_eq(load_images(ONE, 1, &err), TIRX_OK, "%s", err.message);
}

Test(rtapi_arches, container_refuses_bad_images) {
  tx_strbuf bytes = {0};
  rebuilt_bytes(SCALE_DYN, NULL, NULL, &bytes);
  tx_exe_parts parts;
  char why[256];
  cr_assert_eq(tx_exe_deserialize(bytes.data, bytes.len, &parts, why, sizeof why), TIRX_OK);
  parts.nimages = 2;
  parts.images[1] = parts.images[0];
  tx_strbuf twice = {0};
  cr_assert_eq(tx_exe_serialize(&parts, &twice), TIRX_OK);
  cr_assert_eq(tx_exe_deserialize(twice.data, twice.len, &parts, why, sizeof why), TIRX_ERR_INPUT);
  cr_assert_str_eq(why, "two device-code images for one architecture");
  parts.nimages = 0;
  cr_assert_eq(tx_exe_serialize(&parts, &twice), TIRX_ERR_USAGE);
  tx_sb_free(&twice);
  tx_sb_free(&bytes);
}

Test(rtapi_arches, architecture_facts) {
  cr_assert_eq(tx_arch_sm("sm_90a"), 90);
  cr_assert_eq(tx_arch_sm("sm_91"), -1);
  cr_assert_eq(tx_arch_sm(NULL), -1);
  cr_assert(tx_arch_runs_on("sm_90a", "sm_90a"));
  cr_assert(tx_arch_runs_on("sm_80", "sm_90a"));
  cr_assert(tx_arch_runs_on("sm_90", "sm_100a"));
  cr_assert(!tx_arch_runs_on("sm_90a", "sm_100a"));
  cr_assert(!tx_arch_runs_on("sm_100", "sm_90a"));
  cr_assert(!tx_arch_runs_on("sm_91", "sm_90a"));
  cr_assert_eq(TX_ARCH_COUNT, 11);
}
