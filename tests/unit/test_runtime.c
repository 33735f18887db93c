/*
 * test_runtime.c - the runtime's CPU side: a missing driver, error
 * formatting and status mapping, the open/module/cache/launch paths against
 * a fake driver (tests/unit/fake/fake_cuda.c, no GPU needed), DLPack data
 * types, sizes, compactness, export and import.
 *
 * Criterion runs each test in a forked child, so every test sees a fresh
 * fake driver.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "fake/fake_cuda.h"
#include "runtime/cuda_driver.h"
#include "runtime/runtime.h"
#include "runtime/tensor.h"

/* ---- no driver ----------------------------------------------------------- */

Test(runtime_driver, missing_library_is_io_error) {
  tx_runtime *rt = (tx_runtime *)1;
  tx_rt_error err = {0};
  tirx_status st = tx_rt_open_with("/nonexistent/libcuda.so.1", 0, &rt, &err);
  cr_assert_eq(st, TIRX_ERR_IO);
  cr_assert_eq(err.code, TIRX_ERR_IO);
  cr_assert_null(rt);
  cr_assert(strncmp(err.message, "CUDA driver not found (/nonexistent/libcuda.so.1): ", 51) == 0,
            "%s", err.message);
  cr_assert_eq(tx_rt_open_with("/nonexistent/libcuda.so.1", 0, &rt, NULL), TIRX_ERR_IO);
}

Test(runtime_driver, default_open_without_driver) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h) {
    dlclose(h);
    cr_skip_test("a CUDA driver is installed here");
  }
  tx_runtime *rt = NULL;
  tx_rt_error err = {0};
  cr_assert_eq(tx_rt_open(0, &rt, &err), TIRX_ERR_IO);
  cr_assert_null(rt);
  cr_assert(strstr(err.message, "CUDA driver not found (libcuda.so.1): "), "%s", err.message);
  tx_rt_close(NULL); /* ignored */
}

Test(runtime_driver, bad_arguments) {
  tx_rt_error err = {0};
  cr_assert_eq(tx_rt_open(0, NULL, &err), TIRX_ERR_USAGE);
  tx_runtime *rt = NULL;
  cr_assert_eq(tx_rt_open(-1, &rt, &err), TIRX_ERR_USAGE);
  cr_assert(strstr(err.message, "negative"), "%s", err.message);
}

static tx_cu_result fake_name(tx_cu_result r, const char **name) {
  if (r == 4242) {
    *name = "CUDA_ERROR_FAKE";
    return TX_CUDA_SUCCESS;
  }
  *name = NULL;
  return TX_CUDA_ERROR_INVALID_VALUE;
}

Test(runtime_driver, error_formatting) {
  char msg[128];
  cr_assert_str_eq(tx_cu_format_error(msg, sizeof msg, "cuFoo", 4242, fake_name),
                   "cuFoo failed: CUDA_ERROR_FAKE (4242)");
  cr_assert_str_eq(tx_cu_format_error(msg, sizeof msg, "cuBar", 7, fake_name),
                   "cuBar failed: unknown CUresult (7)");
  cr_assert_str_eq(tx_cu_format_error(msg, sizeof msg, "cuBaz", 2, NULL),
                   "cuBaz failed: unknown CUresult (2)");
  char tiny[8];
  tx_cu_format_error(tiny, sizeof tiny, "cuLongName", 4242, fake_name);
  cr_assert_str_eq(tiny, "cuLongN");
}

Test(runtime_driver, status_mapping) {
  cr_assert_eq(tx_cu_status(TX_CUDA_SUCCESS), TIRX_OK);
  cr_assert_eq(tx_cu_status(TX_CUDA_ERROR_OUT_OF_MEMORY), TIRX_ERR_NOMEM);
  cr_assert_eq(tx_cu_status(TX_CUDA_ERROR_INVALID_VALUE), TIRX_ERR_USAGE);
  cr_assert_eq(tx_cu_status(TX_CUDA_ERROR_INVALID_CLUSTER_SIZE), TIRX_ERR_USAGE);
  cr_assert_eq(tx_cu_status(TX_CUDA_ERROR_INVALID_PTX), TIRX_ERR_INPUT);
  cr_assert_eq(tx_cu_status(TX_CUDA_ERROR_NO_BINARY_FOR_GPU), TIRX_ERR_INPUT);
  cr_assert_eq(tx_cu_status(TX_CUDA_ERROR_NO_DEVICE), TIRX_ERR_IO);
  cr_assert_eq(tx_cu_status(700 /* ILLEGAL_ADDRESS */), TIRX_ERR_IO);
}

/* ---- the fake driver ----------------------------------------------------- */

static fake_cuda_state *fake(void) {
  void *h = dlopen(FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(h, "%s", dlerror());
  void *sym = dlsym(h, "fake_cuda_state_get");
  cr_assert_not_null(sym);
  fake_cuda_state_fn fn;
  memcpy(&fn, &sym, sizeof fn);
  return fn(); /* the handle stays open: the runtime shares the same copy */
}

static tx_runtime *open_fake(void) {
  tx_runtime *rt = NULL;
  tx_rt_error err = {0};
  tirx_status st = tx_rt_open_with(FAKE_CUDA_PATH, 0, &rt, &err);
  cr_assert_eq(st, TIRX_OK, "%s", err.message);
  return rt;
}

Test(runtime_fake, no_device) {
  fake()->init_result = TX_CUDA_ERROR_NO_DEVICE;
  tx_runtime *rt = NULL;
  tx_rt_error err = {0};
  cr_assert_eq(tx_rt_open_with(FAKE_CUDA_PATH, 0, &rt, &err), TIRX_ERR_IO);
  cr_assert(strstr(err.message, "no CUDA device"), "%s", err.message);
  cr_assert_null(rt);
}

Test(runtime_fake, zero_devices_and_bad_ordinal) {
  fake_cuda_state *s = fake();
  tx_runtime *rt = NULL;
  tx_rt_error err = {0};
  cr_assert_eq(tx_rt_open_with(FAKE_CUDA_PATH, 1, &rt, &err), TIRX_ERR_USAGE);
  cr_assert_str_eq(err.message, "no CUDA device 1 (1 found)");
  s->device_count = 0;
  cr_assert_eq(tx_rt_open_with(FAKE_CUDA_PATH, 0, &rt, &err), TIRX_ERR_IO);
  cr_assert(strstr(err.message, "no CUDA device"), "%s", err.message);
  cr_assert_eq(s->retains, 0);
}

Test(runtime_fake, init_failure_named) {
  fake()->init_result = 999;
  tx_runtime *rt = NULL;
  tx_rt_error err = {0};
  cr_assert_eq(tx_rt_open_with(FAKE_CUDA_PATH, 0, &rt, &err), TIRX_ERR_IO);
  cr_assert_str_eq(err.message, "cuInit failed: CUDA_ERROR_UNKNOWN (999)");
}

Test(runtime_fake, device_facts_and_context) {
  fake_cuda_state *s = fake();
  tx_runtime *rt = open_fake();
  cr_assert_eq(tx_rt_cc(rt), 90);
  cr_assert_str_eq(tx_rt_arch(rt), "sm_90a");
  cr_assert_str_eq(tx_rt_device_name(rt), "Fake H200");
  cr_assert_eq(tx_rt_device_count(rt), 1);
  cr_assert_eq(tx_rt_sm_count(rt), 132);
  cr_assert_eq(tx_rt_max_shared_optin(rt), 232448);
  cr_assert_eq(tx_rt_driver_version(rt), 13000);
  DLDevice d = tx_rt_device(rt);
  cr_assert_eq(d.device_type, kDLCUDA);
  cr_assert_eq(d.device_id, 0);
  cr_assert_eq(s->retains, 1);
  tx_rt_close(rt);
  cr_assert_eq(s->releases, 1);
}

Test(runtime_fake, jit_log_in_error) {
  tx_runtime *rt = open_fake();
  tx_rt_module *m = (tx_rt_module *)1;
  tx_rt_error err = {0};
  cr_assert_eq(tx_rt_module_load(rt, "bad ptx", 8, &m, &err), TIRX_ERR_INPUT);
  cr_assert_null(m);
  cr_assert(strstr(err.message, "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (218); JIT log: "
                                "ptxas application ptx input, line 3"),
            "%s", err.message);
  tx_rt_close(rt);
}

Test(runtime_fake, function_cache) {
  fake_cuda_state *s = fake();
  tx_runtime *rt = open_fake();
  tx_rt_module *m = NULL;
  tx_rt_error err = {0};
  cr_assert_eq(tx_rt_module_load(rt, ".version 8.0", 13, &m, &err), TIRX_OK, "%s", err.message);
  tx_rt_function *f1 = NULL, *f2 = NULL;
  cr_assert_eq(tx_rt_get_function(rt, m, "kern", &f1, &err), TIRX_OK);
  cr_assert_eq(tx_rt_get_function(rt, m, "kern", &f2, &err), TIRX_OK);
  cr_assert_eq(f1, f2);
  cr_assert_eq(s->get_function_calls, 1);
  /* Enough names to grow the table several times; every handle survives. */
  tx_rt_function *fs[200];
  char name[32];
  for (int i = 0; i < 200; i++) {
    snprintf(name, sizeof name, "k%d", i);
    cr_assert_eq(tx_rt_get_function(rt, m, name, &fs[i], &err), TIRX_OK);
  }
  for (int i = 0; i < 200; i++) {
    snprintf(name, sizeof name, "k%d", i);
    tx_rt_function *f = NULL;
    cr_assert_eq(tx_rt_get_function(rt, m, name, &f, &err), TIRX_OK);
    cr_assert_eq(f, fs[i], "%s", name);
  }
  cr_assert_eq(s->get_function_calls, 201);
  cr_assert_eq(tx_rt_get_function(rt, m, "missing", &f1, &err), TIRX_ERR_USAGE);
  cr_assert_null(f1);
  cr_assert_str_eq(err.message,
                   "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (500) for kernel 'missing'");
  tx_rt_module_unload(rt, m);
  cr_assert_eq(s->modules_unloaded, 1);
  tx_rt_close(rt);
}

typedef struct lookup_job {
  tx_runtime *rt;
  tx_rt_module *m;
  tx_rt_function *got[64];
} lookup_job;

static void *lookup_all(void *arg) {
  lookup_job *j = arg;
  char name[16];
  for (int round = 0; round < 20; round++)
    for (int i = 0; i < 64; i++) {
      snprintf(name, sizeof name, "f%d", i);
      if (tx_rt_get_function(j->rt, j->m, name, &j->got[i], NULL) != TIRX_OK) return arg;
    }
  return NULL;
}

Test(runtime_fake, function_cache_threads) {
  fake_cuda_state *s = fake();
  tx_runtime *rt = open_fake();
  tx_rt_module *m = NULL;
  cr_assert_eq(tx_rt_module_load(rt, "ok", 3, &m, NULL), TIRX_OK);
  lookup_job jobs[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    jobs[i] = (lookup_job){rt, m, {0}};
    cr_assert_eq(pthread_create(&th[i], NULL, lookup_all, &jobs[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    void *r = NULL;
    pthread_join(th[i], &r);
    cr_assert_null(r);
  }
  for (int i = 0; i < 64; i++)
    for (int t = 1; t < 4; t++)
      cr_assert_eq(jobs[t].got[i], jobs[0].got[i]);
  cr_assert_eq(s->get_function_calls, 64); /* one driver lookup per name */
  tx_rt_close(rt);                         /* unloads the module still loaded */
  cr_assert_eq(s->modules_unloaded, 1);
}

Test(runtime_fake, launch_config_and_shared_memory) {
  fake_cuda_state *s = fake();
  tx_runtime *rt = open_fake();
  tx_rt_module *m = NULL;
  tx_rt_function *f = NULL;
  tx_rt_error err = {0};
  cr_assert_eq(tx_rt_module_load(rt, "ok", 3, &m, NULL), TIRX_OK);
  cr_assert_eq(tx_rt_get_function(rt, m, "kern", &f, NULL), TIRX_OK);

  int x = 7;
  void *args[] = {&x};
  tx_rt_launch cfg = {.grid = {4, 0, 0}, .block = {128, 1, 1}};
  cr_assert_eq(tx_rt_launch_kernel(rt, f, &cfg, args, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(s->last_config.gridDimX, 4);
  cr_assert_eq(s->last_config.gridDimY, 1); /* zero counts as 1 */
  cr_assert_eq(s->last_config.blockDimX, 128);
  cr_assert_eq(s->last_config.numAttrs, 0);
  cr_assert_eq(s->func_set_attribute_calls, 0);

  cfg.dyn_shared_bytes = 100 * 1024;
  cfg.cluster[0] = 2;
  cfg.preferred_cluster[0] = 4;
  cr_assert_eq(tx_rt_launch_kernel(rt, f, &cfg, args, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(s->last_config.sharedMemBytes, 100 * 1024);
  cr_assert_eq(s->last_config.numAttrs, 2);
  cr_assert_eq(s->last_attrs[0].id, TX_CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
  cr_assert_eq(s->last_attrs[0].value.clusterDim.x, 2);
  cr_assert_eq(s->last_attrs[0].value.clusterDim.y, 1);
  cr_assert_eq(s->last_attrs[0].value.clusterDim.z, 1);
  cr_assert_eq(s->last_attrs[1].id, TX_CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION);
  cr_assert_eq(s->last_attrs[1].value.preferredClusterDim.x, 4);
  cr_assert_eq(s->func_set_attribute_calls, 1);
  cr_assert_eq(s->last_smem_value, 100 * 1024);

  /* The opt-in is remembered: same or smaller sizes do not set it again. */
  cr_assert_eq(tx_rt_launch_kernel(rt, f, &cfg, args, &err), TIRX_OK);
  cfg.dyn_shared_bytes = 64 * 1024;
  cr_assert_eq(tx_rt_launch_kernel(rt, f, &cfg, args, &err), TIRX_OK);
  cr_assert_eq(s->func_set_attribute_calls, 1);
  cfg.dyn_shared_bytes = 200 * 1024;
  cr_assert_eq(tx_rt_launch_kernel(rt, f, &cfg, args, &err), TIRX_OK);
  cr_assert_eq(s->func_set_attribute_calls, 2);
  cr_assert_eq(s->last_smem_value, 200 * 1024);

  /* Beyond the device's limit: the call is named, with the size and kernel. */
  cfg.dyn_shared_bytes = 300 * 1024;
  cr_assert_eq(tx_rt_launch_kernel(rt, f, &cfg, args, &err), TIRX_ERR_USAGE);
  cr_assert(strstr(err.message, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) failed: "
                                "CUDA_ERROR_INVALID_VALUE (1) for 307200 bytes"),
            "%s", err.message);
  cr_assert(strstr(err.message, "'kern'"), "%s", err.message);
  cr_assert_eq(s->launches, 5);
  tx_rt_close(rt);
}

Test(runtime_fake, memory_streams_timer) {
  fake_cuda_state *s = fake();
  tx_runtime *rt = open_fake();
  tx_rt_error err = {0};
  void *a = NULL, *b = NULL;
  cr_assert_eq(tx_rt_alloc(rt, 64, &a, &err), TIRX_OK);
  cr_assert_eq(tx_rt_alloc(rt, 64, &b, &err), TIRX_OK);
  tx_rt_stream st = NULL;
  cr_assert_eq(tx_rt_stream_create(rt, &st, &err), TIRX_OK);
  char in[64], out[64] = {0};
  for (int i = 0; i < 64; i++)
    in[i] = (char)i;
  cr_assert_eq(tx_rt_copy(rt, a, in, 64, TX_COPY_H2D, st, &err), TIRX_OK);
  cr_assert_eq(tx_rt_copy(rt, b, a, 64, TX_COPY_D2D, st, &err), TIRX_OK);
  cr_assert_eq(tx_rt_copy(rt, out, b, 64, TX_COPY_D2H, st, &err), TIRX_OK);
  cr_assert_eq(tx_rt_synchronize(rt, st, &err), TIRX_OK);
  cr_assert_eq(memcmp(in, out, 64), 0);
  cr_assert_eq(tx_rt_copy(rt, NULL, in, 64, TX_COPY_H2D, st, &err), TIRX_ERR_USAGE);
  tx_rt_timer *t = NULL;
  float ms = 0;
  cr_assert_eq(tx_rt_timer_start(rt, st, &t, &err), TIRX_OK);
  cr_assert_eq(tx_rt_timer_stop(rt, t, st, &ms, &err), TIRX_OK);
  cr_assert_float_eq(ms, 1.5f, 1e-6);
  DLDevice d = {kDLCUDA, 3};
  cr_assert_eq(tx_rt_pointer_device(rt, in, &d, &err), TIRX_OK);
  cr_assert_eq(d.device_type, kDLCPU);
  cr_assert_eq(tx_rt_stream_destroy(rt, st, &err), TIRX_OK);
  cr_assert_eq(tx_rt_free(rt, a, &err), TIRX_OK);
  cr_assert_eq(tx_rt_free(rt, b, &err), TIRX_OK);
  cr_assert_eq(tx_rt_free(rt, NULL, &err), TIRX_OK);
  cr_assert_eq(s->live_allocations, 0);
  tx_rt_close(rt);
}

Test(runtime_fake, tensor_export_outlives_close) {
  fake_cuda_state *s = fake();
  tx_runtime *rt = open_fake();
  tx_rt_error err = {0};
  int64_t shape[] = {2, 3};
  DLManagedTensorVersioned *v = NULL;
  DLManagedTensor *l = NULL;
  DLDataType f32 = {kDLFloat, 32, 1};
  cr_assert_eq(tx_rt_tensor_alloc(rt, shape, 2, f32, &v, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(tx_rt_tensor_alloc_legacy(rt, shape, 2, f32, &l, &err), TIRX_OK);
  shape[0] = 99; /* the capsule keeps its own copy */
  cr_assert_eq(v->version.major, 1);
  cr_assert_eq(v->version.minor, 1);
  cr_assert_eq(v->flags, 0);
  cr_assert_eq(v->dl_tensor.ndim, 2);
  cr_assert_eq(v->dl_tensor.shape[0], 2);
  cr_assert_eq(v->dl_tensor.shape[1], 3);
  cr_assert_null(v->dl_tensor.strides);
  cr_assert_eq(v->dl_tensor.device.device_type, kDLCUDA);
  cr_assert_not_null(v->dl_tensor.data);
  cr_assert_eq(l->dl_tensor.shape[0], 2);
  cr_assert_eq(s->live_allocations, 2);
  tx_rt_close(rt); /* the two capsules keep it alive */
  cr_assert_eq(s->releases, 0);
  v->deleter(v);
  cr_assert_eq(s->releases, 0);
  l->deleter(l);
  cr_assert_eq(s->releases, 1);
  cr_assert_eq(s->live_allocations, 0);
}

Test(runtime_fake, tensor_alloc_rejects_bad_input) {
  tx_runtime *rt = open_fake();
  tx_rt_error err = {0};
  DLManagedTensorVersioned *v = NULL;
  int64_t neg[] = {2, -1};
  cr_assert_eq(tx_rt_tensor_alloc(rt, neg, 2, (DLDataType){kDLFloat, 32, 1}, &v, &err),
               TIRX_ERR_USAGE);
  int64_t ok[] = {4};
  cr_assert_eq(tx_rt_tensor_alloc(rt, ok, 1, (DLDataType){kDLFloat, 7, 1}, &v, &err),
               TIRX_ERR_USAGE);
  cr_assert(strstr(err.message, "invalid DLPack dtype"), "%s", err.message);
  cr_assert_null(v);
  /* A scalar (rank 0) is one element. */
  cr_assert_eq(tx_rt_tensor_alloc(rt, NULL, 0, (DLDataType){kDLInt, 64, 1}, &v, &err), TIRX_OK);
  cr_assert_null(v->dl_tensor.shape);
  v->deleter(v);
  tx_rt_close(rt);
}

/* ---- data types ---------------------------------------------------------- */

static void check_name(const char *name, uint8_t code, uint8_t bits, uint16_t lanes) {
  DLDataType t = {0};
  cr_assert(tx_dl_dtype_parse(name, strlen(name), &t), "parse %s", name);
  cr_assert_eq(t.code, code, "%s code %d", name, t.code);
  cr_assert_eq(t.bits, bits, "%s bits %d", name, t.bits);
  cr_assert_eq(t.lanes, lanes, "%s lanes %d", name, t.lanes);
  char buf[32];
  cr_assert_str_eq(tx_dl_dtype_str(t, buf), name);
}

Test(runtime_dtype, names_round_trip) {
  check_name("float32", kDLFloat, 32, 1);
  check_name("float16", kDLFloat, 16, 1);
  check_name("bfloat16", kDLBfloat, 16, 1);
  check_name("float8_e4m3fn", kDLFloat8_e4m3fn, 8, 1);
  check_name("float8_e5m2", kDLFloat8_e5m2, 8, 1);
  check_name("float8_e8m0fnu", kDLFloat8_e8m0fnu, 8, 1);
  check_name("float6_e2m3fn", kDLFloat6_e2m3fn, 6, 1);
  check_name("float4_e2m1fn", kDLFloat4_e2m1fn, 4, 1);
  check_name("int8x4", kDLInt, 8, 4);
  check_name("uint4", kDLUInt, 4, 1);
  check_name("int64", kDLInt, 64, 1);
  check_name("bool", kDLBool, 8, 1);
  check_name("handle", kDLOpaqueHandle, 64, 1);
  check_name("float16x2", kDLFloat, 16, 2);
  /* DLPack types TIRx has no name for */
  check_name("complex64", kDLComplex, 64, 1);
  check_name("complex128x2", kDLComplex, 128, 2);
  check_name("float8_e4m3", kDLFloat8_e4m3, 8, 1);
  check_name("float8_e4m3x2", kDLFloat8_e4m3, 8, 2);
  check_name("float8_e3m4", kDLFloat8_e3m4, 8, 1);
  check_name("float8_e4m3b11fnuz", kDLFloat8_e4m3b11fnuz, 8, 1);
}

Test(runtime_dtype, bad_names) {
  const char *bad[] = {"",     "float",    "float7",    "int3",     "complex",      "complex63",
                       "void", "float32x", "float32x0", "bfloat32", "float8_e4m3y", "int08"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    DLDataType t = {99, 99, 99};
    cr_assert_not(tx_dl_dtype_parse(bad[i], strlen(bad[i]), &t), "parsed '%s'", bad[i]);
  }
  char buf[32];
  cr_assert_str_eq(tx_dl_dtype_str((DLDataType){kDLFloat, 7, 1}, buf), "?");
  cr_assert_str_eq(tx_dl_dtype_str((DLDataType){200, 8, 1}, buf), "?");
  /* Not NUL-terminated input: only n bytes are read. */
  DLDataType t;
  cr_assert(tx_dl_dtype_parse("int32garbage", 4, &t) == 0 /* "int3" */);
  cr_assert(tx_dl_dtype_parse("float32garbage", 7, &t));
  cr_assert_eq(t.bits, 32);
}

Test(runtime_dtype, tirx_conversions) {
  DLDataType d;
  cr_assert(tx_dl_from_tx_dtype(TX_BOOL, &d));
  cr_assert_eq(d.code, kDLBool);
  cr_assert_eq(d.bits, 8);
  tx_dtype t;
  cr_assert(tx_dl_to_tx_dtype(d, &t));
  cr_assert(tx_dtype_eq(t, TX_BOOL));
  cr_assert(tx_dl_from_tx_dtype(tx_dt(DT_E4M3FN, 8, 4), &d));
  cr_assert_eq(d.code, kDLFloat8_e4m3fn);
  cr_assert_eq(d.lanes, 4);
  cr_assert_not(tx_dl_from_tx_dtype(TX_VOID, &d));
  cr_assert_not(tx_dl_to_tx_dtype((DLDataType){kDLComplex, 64, 1}, &t));
  cr_assert_eq(tx_dl_dtype_bits((DLDataType){kDLInt, 8, 4}), 32);
  cr_assert_eq(tx_dl_dtype_bits((DLDataType){kDLFloat4_e2m1fn, 4, 1}), 4);
}

/* ---- tensor sizes -------------------------------------------------------- */

Test(runtime_tensor, numel_compact_nbytes) {
  int64_t shape[] = {2, 3, 4};
  int64_t row_major[] = {12, 4, 1}, col_major[] = {1, 2, 6};
  DLTensor t = {NULL, {kDLCUDA, 0}, 3, {kDLFloat, 32, 1}, shape, NULL, 0};
  cr_assert_eq(tx_dl_numel(&t), 24);
  cr_assert(tx_dl_is_compact(&t));
  t.strides = row_major;
  cr_assert(tx_dl_is_compact(&t));
  t.strides = col_major;
  cr_assert_not(tx_dl_is_compact(&t));
  size_t n = 0;
  cr_assert_eq(tx_dl_nbytes(&t, 0, &n, NULL), TIRX_OK);
  cr_assert_eq(n, 96);

  /* Extents of 1 may carry any stride (PyTorch's unsqueeze does that). */
  int64_t s1[] = {1, 5}, st1[] = {999, 1};
  DLTensor u = {NULL, {kDLCUDA, 0}, 2, {kDLFloat, 16, 1}, s1, st1, 0};
  cr_assert(tx_dl_is_compact(&u));

  /* Sub-byte: packed unless padded. */
  int64_t five[] = {5};
  DLTensor f4 = {NULL, {kDLCUDA, 0}, 1, {kDLFloat4_e2m1fn, 4, 1}, five, NULL, 0};
  cr_assert_eq(tx_dl_nbytes(&f4, 0, &n, NULL), TIRX_OK);
  cr_assert_eq(n, 3);
  cr_assert_eq(tx_dl_nbytes(&f4, 1, &n, NULL), TIRX_OK);
  cr_assert_eq(n, 5);

  /* Rank 0 is one element; a zero extent none. */
  DLTensor scalar = {NULL, {kDLCPU, 0}, 0, {kDLInt, 8, 4}, NULL, NULL, 0};
  cr_assert_eq(tx_dl_numel(&scalar), 1);
  cr_assert_eq(tx_dl_nbytes(&scalar, 0, &n, NULL), TIRX_OK);
  cr_assert_eq(n, 4);
  int64_t zero[] = {3, 0};
  DLTensor empty = {NULL, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, zero, NULL, 0};
  cr_assert_eq(tx_dl_numel(&empty), 0);
  cr_assert_eq(tx_dl_nbytes(&empty, 0, &n, NULL), TIRX_OK);
  cr_assert_eq(n, 0);

  /* Negative extents and overflow are errors, not wrapped sizes. */
  int64_t neg[] = {3, -2};
  DLTensor bad = {NULL, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, neg, NULL, 0};
  cr_assert_eq(tx_dl_numel(&bad), -1);
  tx_rt_error err = {0};
  cr_assert_eq(tx_dl_nbytes(&bad, 0, &n, &err), TIRX_ERR_USAGE);
  int64_t huge[] = {INT64_MAX / 2, 4};
  bad.shape = huge;
  cr_assert_eq(tx_dl_numel(&bad), -1);
  int64_t big[] = {INT64_MAX / 4};
  DLTensor big_t = {NULL, {kDLCPU, 0}, 1, {kDLFloat, 64, 1}, big, NULL, 0};
  cr_assert_eq(tx_dl_nbytes(&big_t, 0, &n, &err), TIRX_ERR_USAGE);
  cr_assert(strstr(err.message, "overflow"), "%s", err.message);
}

/* ---- DLPack import ------------------------------------------------------- */

static int deleted;
static void count_versioned(DLManagedTensorVersioned *self) {
  (void)self;
  deleted++;
}
static void count_legacy(DLManagedTensor *self) {
  (void)self;
  deleted++;
}

Test(runtime_dlpack, versioned_import) {
  int64_t shape[] = {4};
  float data[4];
  DLManagedTensorVersioned m = {{1, 3},
                                NULL,
                                count_versioned,
                                DLPACK_FLAG_BITMASK_READ_ONLY,
                                {data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0}};
  tx_dl_import imp;
  tx_rt_error err = {0};
  /* A newer minor version is compatible. */
  cr_assert_eq(tx_dl_import_versioned(&m, &imp, &err), TIRX_OK, "%s", err.message);
  cr_assert_eq(imp.tensor, &m.dl_tensor);
  cr_assert(imp.read_only);
  cr_assert_not(imp.subbyte_padded);
  tx_dl_import_release(&imp);
  tx_dl_import_release(&imp); /* the second call does nothing */
  cr_assert_eq(deleted, 1);

  /* Another major version is refused and the capsule left to the caller. */
  m.version.major = 2;
  m.version.minor = 0;
  cr_assert_eq(tx_dl_import_versioned(&m, &imp, &err), TIRX_ERR_USAGE);
  cr_assert_str_eq(err.message, "DLPack version 2.0 is not supported (need 1.x)");
  cr_assert_null(imp.tensor);
  m.version.major = 0;
  cr_assert_eq(tx_dl_import_versioned(&m, &imp, &err), TIRX_ERR_USAGE);
  cr_assert_eq(deleted, 1);

  m.version.major = 1;
  m.dl_tensor.ndim = -1;
  cr_assert_eq(tx_dl_import_versioned(&m, &imp, &err), TIRX_ERR_USAGE);
  m.dl_tensor.ndim = 1;
  m.dl_tensor.shape = NULL;
  cr_assert_eq(tx_dl_import_versioned(&m, &imp, &err), TIRX_ERR_USAGE);
  cr_assert(strstr(err.message, "no shape"), "%s", err.message);
  m.dl_tensor.shape = shape;
  m.dl_tensor.dtype = (DLDataType){kDLFloat, 32, 0};
  cr_assert_eq(tx_dl_import_versioned(&m, &imp, &err), TIRX_ERR_USAGE);
  cr_assert_eq(tx_dl_import_versioned(NULL, &imp, &err), TIRX_ERR_USAGE);
  cr_assert_eq(deleted, 1);
}

Test(runtime_dlpack, legacy_import) {
  int64_t shape[] = {2, 2};
  DLManagedTensor m = {
      {NULL, {kDLCUDA, 0}, 2, {kDLBfloat, 16, 1}, shape, NULL, 0}, NULL, count_legacy};
  tx_dl_import imp;
  cr_assert_eq(tx_dl_import_legacy(&m, &imp, NULL), TIRX_OK);
  cr_assert_not(imp.read_only);
  cr_assert_eq(imp.legacy, &m);
  tx_dl_import_release(&imp);
  cr_assert_eq(deleted, 1);
}

/* Python floats for float16/bfloat16 scalar parameters: round to nearest even. */
Test(tensor, float_to_16_bit_conversions) {
  cr_expect_eq(tx_dl_f32_to_f16(1.0f), 0x3c00);
  cr_expect_eq(tx_dl_f32_to_f16(-2.0f), 0xc000);
  cr_expect_eq(tx_dl_f32_to_f16(0.1f), 0x2e66);
  cr_expect_eq(tx_dl_f32_to_f16(65504.0f), 0x7bff);
  cr_expect_eq(tx_dl_f32_to_f16(65520.0f), 0x7c00); /* the tie above the largest: infinity */
  cr_expect_eq(tx_dl_f32_to_f16(65519.0f), 0x7bff);
  cr_expect_eq(tx_dl_f32_to_f16(5.9604645e-8f), 0x0001); /* the smallest subnormal */
  cr_expect_eq(tx_dl_f32_to_f16(2.9802322e-8f), 0x0000); /* half of it: ties to even (0) */
  cr_expect_eq(tx_dl_f32_to_f16(6.1035156e-5f), 0x0400); /* the smallest normal */
  cr_expect_eq(tx_dl_f32_to_f16(1.0009766f), 0x3c01);
  cr_expect_eq(tx_dl_f32_to_f16(1.00048828125f), 0x3c00); /* tie, even stays */
  cr_expect_eq(tx_dl_f32_to_f16(1.00146484375f), 0x3c02); /* tie, odd rounds up */
  cr_expect_eq(tx_dl_f32_to_f16(-0.0f), 0x8000);
  cr_expect_eq(tx_dl_f32_to_f16(__builtin_inff()) & 0x7fff, 0x7c00);
  cr_expect_eq(tx_dl_f32_to_f16(__builtin_nanf("")) & 0x7c00, 0x7c00);
  cr_expect_neq(tx_dl_f32_to_f16(__builtin_nanf("")) & 0x03ff, 0);
  cr_expect_eq(tx_dl_f32_to_bf16(1.0f), 0x3f80);
  cr_expect_eq(tx_dl_f32_to_bf16(-3.0f), 0xc040);
  cr_expect_eq(tx_dl_f32_to_bf16(1.00390625f), 0x3f80); /* tie, even stays */
  cr_expect_eq(tx_dl_f32_to_bf16(1.01171875f), 0x3f82); /* tie, odd rounds up */
  cr_expect_eq(tx_dl_f32_to_bf16(__builtin_nanf("")) & 0x7fc0, 0x7fc0);
}
