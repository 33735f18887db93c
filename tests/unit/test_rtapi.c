/*
 * test_rtapi.c - the public compile/load/run API on the CPU: argument
 * checks of every mismatch kind with their messages (host DLTensors with
 * fake device pointers against a fake driver; the checks run before any
 * launch), launches through the fake driver, save/load round trips and
 * rejected files, the in-memory and disk caches, and a cache hit in a
 * second process.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake/fake_cuda.h"
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
