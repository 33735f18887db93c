/*
 * test_runtime_gpu.c - the runtime (runtime/runtime.h, runtime/tensor.h) on
 * a real GPU: kernels compiled with tx_nvrtc_compile to a cubin for the
 * device, loaded, launched and checked.
 *
 *   test_runtime_gpu [--timeout SECONDS] [--list] [CASE...]
 *   test_runtime_gpu --compile-only ARCH   (NVRTC only, no GPU: e.g. sm_100a)
 *
 * Each case runs in a forked child under a timeout (child_runner.h) and
 * opens its own runtime. Prints PASS / FAIL: why / SKIP (why) per case, then
 * "N passed, M failed, K skipped"; exits 77 when everything skipped (no
 * driver, no GPU, no NVRTC), 1 on any failure.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child_runner.h"
#include "target/cuda/codegen.h"
#include "ir/arena.h"
#include "ir/diag.h"
#include "runtime/runtime.h"
#include "runtime/tensor.h"

static const char KERNELS_CU[] =
    "extern \"C\" __global__ void add_one(int *p, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) p[i] += 1;\n"
    "}\n"
    "// Reverse `n` floats through dynamic shared memory (all of it is touched).\n"
    "extern \"C\" __global__ void smem_reverse(const float *in, float *out, int n) {\n"
    "  extern __shared__ float buf[];\n"
    "  for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = in[i];\n"
    "  __syncthreads();\n"
    "  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = buf[n - 1 - i];\n"
    "}\n"
    "extern \"C\" __global__ void cluster_rank(unsigned *out) {\n"
    "#if __CUDA_ARCH__ >= 900\n"
    "  unsigned r, n;\n"
    "  asm volatile(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"(r));\n"
    "  asm volatile(\"mov.u32 %0, %%cluster_nctarank;\" : \"=r\"(n));\n"
    "  if (threadIdx.x == 0) { out[2 * blockIdx.x] = r; out[2 * blockIdx.x + 1] = n; }\n"
    "#endif\n"
    "}\n"
    "extern \"C\" __global__ void spin(long long cycles) {\n"
    "  long long t0 = clock64();\n"
    "  while (clock64() - t0 < cycles) {}\n"
    "}\n"
    "extern \"C\" __global__ void write_null(int *p) { p[threadIdx.x] = 1; }\n";

static const char BAD_PTX[] = ".version 8.0\n"
                              ".target sm_90\n"
                              ".address_size 64\n"
                              ".visible .entry broken() {\n"
                              "  bogus.instruction %r1;\n"
                              "  ret;\n"
                              "}\n";

/* ---- per-case environment ------------------------------------------------- */

typedef struct env {
  tx_runtime *rt;
  tx_rt_module *mod;
  char *msg;
  size_t cap;
  tx_rt_error err;
} env;

static int fail(env *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(env *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, e->cap, fmt, ap);
  va_end(ap);
  return CHILD_FAIL;
}
static int skip(env *e, const char *why) {
  snprintf(e->msg, e->cap, "%s", why);
  return CHILD_SKIP;
}
/* A failed runtime call: the runtime's message. */
static int rt_fail(env *e, const char *what) {
  return fail(e, "%s: %s (%s)", what, e->err.message, tirx_status_name(e->err.code));
}
#define CHECK(e, call)                                                                             \
  do {                                                                                             \
    if ((call) != TIRX_OK) return rt_fail((e), #call);                                             \
  } while (0)

/* Compile KERNELS_CU to a cubin for `arch` (no PTX JIT involved, so an
 * NVRTC newer than the driver still works). CHILD_SKIP without a toolkit. */
static int compile_kernels(const char *arch, int sm, tx_strbuf *image, char *msg, size_t cap) {
  tx_arena *arena = tx_arena_create(NULL);
  tx_diag_sink *diags = arena ? tx_diag_create(arena) : NULL;
  if (!diags) {
    tx_arena_destroy(arena);
    snprintf(msg, cap, "out of memory");
    return CHILD_FAIL;
  }
  tx_target target = {arch, sm, 3, NULL};
  tx_nvrtc_options opts = {NULL, &target, NVRTC_CUBIN, 0};
  tirx_status st =
      tx_nvrtc_compile(diags, KERNELS_CU, strlen(KERNELS_CU), NULL, &opts, image, NULL);
  int r = CHILD_PASS;
  if (st != TIRX_OK) {
    tx_strbuf sb = {0};
    tx_diag_render(diags, &sb);
    snprintf(msg, cap, "NVRTC: %s", tx_sb_cstr(&sb) ? tx_sb_cstr(&sb) : "(out of memory)");
    tx_sb_free(&sb);
    r = st == TIRX_ERR_IO ? CHILD_SKIP : CHILD_FAIL; /* IO: no toolkit */
  }
  tx_diag_destroy(diags);
  tx_arena_destroy(arena);
  return r;
}

/* Compile for the device and load into e->mod. */
static int load_kernels(env *e) {
  tx_strbuf image = {0};
  int r = compile_kernels(tx_rt_arch(e->rt), tx_rt_cc(e->rt), &image, e->msg, e->cap);
  if (r == CHILD_PASS &&
      tx_rt_module_load(e->rt, image.data, image.len, &e->mod, &e->err) != TIRX_OK)
    r = rt_fail(e, "tx_rt_module_load");
  tx_sb_free(&image);
  return r;
}

static int get(env *e, const char *name, tx_rt_function **f) {
  if (tx_rt_get_function(e->rt, e->mod, name, f, &e->err) != TIRX_OK)
    return rt_fail(e, "tx_rt_get_function");
  return CHILD_PASS;
}

/* ---- cases ---------------------------------------------------------------- */

static int case_device(env *e) {
  if (tx_rt_device_count(e->rt) < 1) return fail(e, "device count %d", tx_rt_device_count(e->rt));
  if (tx_rt_cc(e->rt) < 30) return fail(e, "compute capability %d", tx_rt_cc(e->rt));
  if (!tx_rt_device_name(e->rt)[0]) return fail(e, "empty device name");
  if (tx_rt_sm_count(e->rt) < 1) return fail(e, "SM count %d", tx_rt_sm_count(e->rt));
  if (tx_rt_max_shared_optin(e->rt) < 48 * 1024)
    return fail(e, "shared memory opt-in %d", tx_rt_max_shared_optin(e->rt));
  DLDevice d = tx_rt_device(e->rt);
  if (d.device_type != kDLCUDA || d.device_id != 0) return fail(e, "bad DLDevice");
  return CHILD_PASS;
}

static int case_copies(env *e) {
  enum { N = 1 << 18 };
  static unsigned in[N], out[N];
  for (unsigned i = 0; i < N; i++)
    in[i] = i * 2654435761u;
  void *a = NULL, *b = NULL;
  tx_rt_stream s = NULL;
  CHECK(e, tx_rt_alloc(e->rt, sizeof in, &a, &e->err));
  CHECK(e, tx_rt_alloc(e->rt, sizeof in, &b, &e->err));
  CHECK(e, tx_rt_stream_create(e->rt, &s, &e->err));
  CHECK(e, tx_rt_copy(e->rt, a, in, sizeof in, TX_COPY_H2D, s, &e->err));
  CHECK(e, tx_rt_copy(e->rt, b, a, sizeof in, TX_COPY_D2D, s, &e->err));
  CHECK(e, tx_rt_copy(e->rt, out, b, sizeof out, TX_COPY_D2H, s, &e->err));
  CHECK(e, tx_rt_synchronize(e->rt, s, &e->err));
  for (unsigned i = 0; i < N; i++)
    if (out[i] != in[i]) return fail(e, "out[%u] = %u, want %u", i, out[i], in[i]);
  DLDevice d;
  CHECK(e, tx_rt_pointer_device(e->rt, a, &d, &e->err));
  if (d.device_type != kDLCUDA || d.device_id != 0)
    return fail(e, "device pointer reported as {%d, %d}", (int)d.device_type, (int)d.device_id);
  CHECK(e, tx_rt_pointer_device(e->rt, in, &d, &e->err));
  if (d.device_type != kDLCPU)
    return fail(e, "host pointer reported as type %d", (int)d.device_type);
  CHECK(e, tx_rt_stream_destroy(e->rt, s, &e->err));
  CHECK(e, tx_rt_free(e->rt, a, &e->err));
  CHECK(e, tx_rt_free(e->rt, b, &e->err));
  return CHILD_PASS;
}

static int case_launch_cache(env *e) {
  int r;
  if ((r = load_kernels(e))) return r;
  tx_rt_function *f = NULL, *g = NULL;
  if ((r = get(e, "add_one", &f)) || (r = get(e, "add_one", &g))) return r;
  if (f != g) return fail(e, "the cache returned two handles for add_one");
  enum { N = 1000 };
  int host[N];
  for (int i = 0; i < N; i++)
    host[i] = i;
  void *d = NULL;
  int n = N;
  CHECK(e, tx_rt_alloc(e->rt, sizeof host, &d, &e->err));
  CHECK(e, tx_rt_copy(e->rt, d, host, sizeof host, TX_COPY_H2D, NULL, &e->err));
  void *args[] = {&d, &n};
  tx_rt_launch cfg = {.grid = {(N + 127) / 128}, .block = {128}};
  CHECK(e, tx_rt_launch_kernel(e->rt, f, &cfg, args, &e->err));
  CHECK(e, tx_rt_copy(e->rt, host, d, sizeof host, TX_COPY_D2H, NULL, &e->err));
  CHECK(e, tx_rt_synchronize(e->rt, NULL, &e->err));
  for (int i = 0; i < N; i++)
    if (host[i] != i + 1) return fail(e, "p[%d] = %d, want %d", i, host[i], i + 1);
  if (tx_rt_get_function(e->rt, e->mod, "no_such_kernel", &f, &e->err) != TIRX_ERR_USAGE ||
      !strstr(e->err.message, "no_such_kernel"))
    return fail(e, "missing kernel: %s", e->err.message);
  CHECK(e, tx_rt_free(e->rt, d, &e->err));
  return CHILD_PASS;
}

static int case_dyn_smem_100k(env *e) {
  enum { BYTES = 100 * 1024, N = BYTES / 4 };
  if (tx_rt_max_shared_optin(e->rt) < BYTES) return skip(e, "device opt-in limit below 100 KiB");
  int r;
  tx_rt_function *f = NULL;
  if ((r = load_kernels(e)) || (r = get(e, "smem_reverse", &f))) return r;
  static float in[N], out[N];
  for (int i = 0; i < N; i++)
    in[i] = (float)i * 0.5f;
  void *din = NULL, *dout = NULL;
  int n = N;
  CHECK(e, tx_rt_alloc(e->rt, sizeof in, &din, &e->err));
  CHECK(e, tx_rt_alloc(e->rt, sizeof out, &dout, &e->err));
  CHECK(e, tx_rt_copy(e->rt, din, in, sizeof in, TX_COPY_H2D, NULL, &e->err));
  void *args[] = {&din, &dout, &n};
  tx_rt_launch cfg = {.grid = {1}, .block = {256}, .dyn_shared_bytes = BYTES};
  CHECK(e, tx_rt_launch_kernel(e->rt, f, &cfg, args, &e->err));
  CHECK(e, tx_rt_copy(e->rt, out, dout, sizeof out, TX_COPY_D2H, NULL, &e->err));
  CHECK(e, tx_rt_synchronize(e->rt, NULL, &e->err));
  for (int i = 0; i < N; i++)
    if (out[i] != in[N - 1 - i]) return fail(e, "out[%d] = %g, want %g", i, out[i], in[N - 1 - i]);
  /* Smaller again after the opt-in: still fine (the attribute is a maximum). */
  n = 16 * 1024;
  cfg.dyn_shared_bytes = 64 * 1024;
  CHECK(e, tx_rt_launch_kernel(e->rt, f, &cfg, args, &e->err));
  CHECK(e, tx_rt_synchronize(e->rt, NULL, &e->err));
  /* Beyond the device: a clear error naming the size. */
  cfg.dyn_shared_bytes = (uint32_t)tx_rt_max_shared_optin(e->rt) + 4096;
  if (tx_rt_launch_kernel(e->rt, f, &cfg, args, &e->err) == TIRX_OK)
    return fail(e, "a launch over the opt-in limit succeeded");
  if (!strstr(e->err.message, "MAX_DYNAMIC_SHARED_SIZE_BYTES"))
    return fail(e, "over-limit message: %s", e->err.message);
  CHECK(e, tx_rt_free(e->rt, din, &e->err));
  CHECK(e, tx_rt_free(e->rt, dout, &e->err));
  return CHILD_PASS;
}

static int run_cluster(env *e, uint32_t grid, uint32_t cluster, uint32_t preferred) {
  int r;
  tx_rt_function *f = NULL;
  if ((r = load_kernels(e)) || (r = get(e, "cluster_rank", &f))) return r;
  unsigned host[2 * 16] = {0};
  void *d = NULL;
  CHECK(e, tx_rt_alloc(e->rt, sizeof host, &d, &e->err));
  CHECK(e, tx_rt_copy(e->rt, d, host, sizeof host, TX_COPY_H2D, NULL, &e->err));
  void *args[] = {&d};
  tx_rt_launch cfg = {.grid = {grid},
                      .block = {32},
                      .cluster = {cluster, 1, 1},
                      .preferred_cluster = {preferred, preferred ? 1 : 0, preferred ? 1 : 0}};
  CHECK(e, tx_rt_launch_kernel(e->rt, f, &cfg, args, &e->err));
  CHECK(e, tx_rt_copy(e->rt, host, d, sizeof host, TX_COPY_D2H, NULL, &e->err));
  CHECK(e, tx_rt_synchronize(e->rt, NULL, &e->err));
  for (uint32_t b = 0; b < grid; b++) {
    unsigned rank = host[2 * b], size = host[2 * b + 1];
    int size_ok = preferred ? (size == cluster || size == preferred) : size == cluster;
    if (!size_ok || rank >= size || (!preferred && rank != b % cluster))
      return fail(e, "block %u: cluster rank %u of %u", b, rank, size);
  }
  CHECK(e, tx_rt_free(e->rt, d, &e->err));
  return CHILD_PASS;
}

static int case_cluster(env *e) {
  if (tx_rt_cc(e->rt) < 90) return skip(e, "thread block clusters need compute capability 9.0");
  return run_cluster(e, 4, 2, 0);
}

static int case_preferred_cluster(env *e) {
  if (tx_rt_cc(e->rt) < 100) return skip(e, "preferred clusters need compute capability 10.0");
  return run_cluster(e, 16, 2, 4);
}

static int case_stream_timer(env *e) {
  int r;
  tx_rt_function *f = NULL;
  if ((r = load_kernels(e)) || (r = get(e, "spin", &f))) return r;
  tx_rt_stream s = NULL;
  CHECK(e, tx_rt_stream_create(e->rt, &s, &e->err));
  long long cycles = 20 * 1000 * 1000; /* ~10 ms at 2 GHz */
  void *args[] = {&cycles};
  tx_rt_launch cfg = {.grid = {1}, .block = {1}, .stream = s};
  tx_rt_timer *t = NULL;
  float ms = 0;
  CHECK(e, tx_rt_timer_start(e->rt, s, &t, &e->err));
  CHECK(e, tx_rt_launch_kernel(e->rt, f, &cfg, args, &e->err));
  CHECK(e, tx_rt_timer_stop(e->rt, t, s, &ms, &e->err));
  if (!(ms > 1.0f && ms < 5000.0f)) return fail(e, "spin of 2e7 cycles took %g ms", ms);
  /* The default stream too. */
  cfg.stream = NULL;
  CHECK(e, tx_rt_timer_start(e->rt, NULL, &t, &e->err));
  CHECK(e, tx_rt_launch_kernel(e->rt, f, &cfg, args, &e->err));
  CHECK(e, tx_rt_timer_stop(e->rt, t, NULL, &ms, &e->err));
  if (!(ms > 1.0f)) return fail(e, "default-stream spin took %g ms", ms);
  CHECK(e, tx_rt_stream_destroy(e->rt, s, &e->err));
  return CHILD_PASS;
}

/* Two threads launch the same kernel 1000 times each on their own streams,
 * looking the function up through the cache every time. */
enum { THREAD_LAUNCHES = 1000, THREAD_N = 4096 };
typedef struct thread_job {
  env *e;
  void *buf;
  tx_rt_function *seen;
  tx_rt_error err;
  int ok;
} thread_job;

static void *thread_launches(void *arg) {
  thread_job *j = arg;
  tx_runtime *rt = j->e->rt;
  tx_rt_stream s = NULL;
  int n = THREAD_N;
  if (tx_rt_stream_create(rt, &s, &j->err) != TIRX_OK) return NULL;
  for (int i = 0; i < THREAD_LAUNCHES; i++) {
    tx_rt_function *f = NULL;
    if (tx_rt_get_function(rt, j->e->mod, "add_one", &f, &j->err) != TIRX_OK) return NULL;
    if (j->seen && f != j->seen) {
      snprintf(j->err.message, sizeof j->err.message, "the cache handed out two handles");
      return NULL;
    }
    j->seen = f;
    void *args[] = {&j->buf, &n};
    tx_rt_launch cfg = {.grid = {THREAD_N / 256}, .block = {256}, .stream = s};
    if (tx_rt_launch_kernel(rt, f, &cfg, args, &j->err) != TIRX_OK) return NULL;
  }
  if (tx_rt_synchronize(rt, s, &j->err) != TIRX_OK) return NULL;
  if (tx_rt_stream_destroy(rt, s, &j->err) != TIRX_OK) return NULL;
  j->ok = 1;
  return NULL;
}

static int case_threads(env *e) {
  int r;
  if ((r = load_kernels(e))) return r;
  static int zero[THREAD_N], out[THREAD_N];
  thread_job jobs[2];
  pthread_t th[2];
  for (int t = 0; t < 2; t++) {
    jobs[t] = (thread_job){.e = e};
    CHECK(e, tx_rt_alloc(e->rt, sizeof zero, &jobs[t].buf, &e->err));
    CHECK(e, tx_rt_copy(e->rt, jobs[t].buf, zero, sizeof zero, TX_COPY_H2D, NULL, &e->err));
  }
  CHECK(e, tx_rt_synchronize(e->rt, NULL, &e->err));
  for (int t = 0; t < 2; t++)
    if (pthread_create(&th[t], NULL, thread_launches, &jobs[t]) != 0)
      return fail(e, "pthread_create");
  for (int t = 0; t < 2; t++)
    pthread_join(th[t], NULL);
  for (int t = 0; t < 2; t++)
    if (!jobs[t].ok) return fail(e, "thread %d: %s", t, jobs[t].err.message);
  if (jobs[0].seen != jobs[1].seen) return fail(e, "threads got different handles for add_one");
  for (int t = 0; t < 2; t++) {
    CHECK(e, tx_rt_copy(e->rt, out, jobs[t].buf, sizeof out, TX_COPY_D2H, NULL, &e->err));
    CHECK(e, tx_rt_synchronize(e->rt, NULL, &e->err));
    for (int i = 0; i < THREAD_N; i++)
      if (out[i] != THREAD_LAUNCHES)
        return fail(e, "thread %d: p[%d] = %d, want %d", t, i, out[i], THREAD_LAUNCHES);
    CHECK(e, tx_rt_free(e->rt, jobs[t].buf, &e->err));
  }
  return CHILD_PASS;
}

static int case_jit_error(env *e) {
  tx_rt_module *m = NULL;
  tirx_status st = tx_rt_module_load(e->rt, BAD_PTX, sizeof BAD_PTX, &m, &e->err);
  if (st != TIRX_ERR_INPUT)
    return fail(e, "bad PTX gave %s: %s", tirx_status_name(st), e->err.message);
  if (!strstr(e->err.message, "cuModuleLoadDataEx failed: CUDA_ERROR_") ||
      !strstr(e->err.message, "JIT log: "))
    return fail(e, "message lacks the call or the JIT log: %s", e->err.message);
  printf("# JIT error: %s\n", e->err.message);
  return CHILD_PASS;
}

static int case_launch_error(env *e) {
  int r;
  tx_rt_function *f = NULL;
  if ((r = load_kernels(e)) || (r = get(e, "add_one", &f))) return r;
  int n = 0;
  void *p = NULL;
  void *args[] = {&p, &n};
  tx_rt_launch cfg = {.grid = {1}, .block = {4096}}; /* more threads than a block may have */
  tirx_status st = tx_rt_launch_kernel(e->rt, f, &cfg, args, &e->err);
  if (st != TIRX_ERR_USAGE || !strstr(e->err.message, "cuLaunchKernelEx failed: CUDA_ERROR_") ||
      !strstr(e->err.message, "'add_one'"))
    return fail(e, "bad block size gave %s: %s", tirx_status_name(st), e->err.message);
  return CHILD_PASS;
}

static int case_fault(env *e) {
  int r;
  tx_rt_function *f = NULL;
  if ((r = load_kernels(e)) || (r = get(e, "write_null", &f))) return r;
  void *p = NULL;
  void *args[] = {&p};
  tx_rt_launch cfg = {.grid = {1}, .block = {32}};
  CHECK(e, tx_rt_launch_kernel(e->rt, f, &cfg, args, &e->err));
  tirx_status st = tx_rt_synchronize(e->rt, NULL, &e->err);
  if (st != TIRX_ERR_IO ||
      !strstr(e->err.message, "cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS"))
    return fail(e, "a NULL store gave %s: %s", tirx_status_name(st), e->err.message);
  return CHILD_PASS;
}

static int case_tensor(env *e) {
  int64_t shape[] = {4, 8};
  DLDataType f32;
  if (!tx_dl_dtype_parse("float32", 7, &f32)) return fail(e, "float32 does not parse");
  DLManagedTensorVersioned *t = NULL;
  CHECK(e, tx_rt_tensor_alloc(e->rt, shape, 2, f32, &t, &e->err));
  DLDevice d;
  CHECK(e, tx_rt_pointer_device(e->rt, t->dl_tensor.data, &d, &e->err));
  if (d.device_type != kDLCUDA || t->dl_tensor.device.device_type != kDLCUDA)
    return fail(e, "tensor memory is not device memory");
  size_t bytes = 0;
  CHECK(e, tx_dl_nbytes(&t->dl_tensor, 0, &bytes, &e->err));
  if (bytes != 128) return fail(e, "nbytes %zu", bytes);
  float in[32], out[32];
  for (int i = 0; i < 32; i++)
    in[i] = (float)i;
  CHECK(e, tx_rt_copy(e->rt, t->dl_tensor.data, in, bytes, TX_COPY_H2D, NULL, &e->err));
  CHECK(e, tx_rt_copy(e->rt, out, t->dl_tensor.data, bytes, TX_COPY_D2H, NULL, &e->err));
  CHECK(e, tx_rt_synchronize(e->rt, NULL, &e->err));
  if (memcmp(in, out, bytes) != 0) return fail(e, "tensor round trip differs");
  /* Imported back as a consumer would, then released through the deleter. */
  tx_dl_import imp;
  CHECK(e, tx_dl_import_versioned(t, &imp, &e->err));
  tx_dl_import_release(&imp);
  return CHILD_PASS;
}

typedef struct rt_case {
  const char *name;
  int (*run)(env *e);
} rt_case;

static const rt_case CASES[] = {
    {"device", case_device},
    {"copies", case_copies},
    {"launch_cache", case_launch_cache},
    {"dyn_smem_100k", case_dyn_smem_100k},
    {"cluster_2x1x1", case_cluster},
    {"preferred_cluster", case_preferred_cluster},
    {"stream_timer", case_stream_timer},
    {"threads_2x1000", case_threads},
    {"jit_error_log", case_jit_error},
    {"launch_error", case_launch_error},
    {"kernel_fault", case_fault},
    {"tensor", case_tensor},
};
enum { N_CASES = sizeof CASES / sizeof CASES[0] };

typedef struct job {
  const rt_case *c;
  int print_device;
} job;

/* In the child: open a runtime (skip without driver or device), run. */
static int run_child(void *arg, char *msg, size_t cap) {
  const job *j = arg;
  env e = {.msg = msg, .cap = cap};
  tirx_status st = tx_rt_open(0, &e.rt, &e.err);
  if (st == TIRX_ERR_IO) {
    snprintf(msg, cap, "%s", e.err.message);
    return CHILD_SKIP;
  }
  if (st != TIRX_OK) {
    snprintf(msg, cap, "tx_rt_open: %s", e.err.message);
    return CHILD_FAIL;
  }
  if (j->print_device) {
    printf("# device: %s, cc %d.%d, %s, %d SMs, %d B shared opt-in, driver %d\n",
           tx_rt_device_name(e.rt), tx_rt_cc(e.rt) / 10, tx_rt_cc(e.rt) % 10, tx_rt_arch(e.rt),
           tx_rt_sm_count(e.rt), tx_rt_max_shared_optin(e.rt), tx_rt_driver_version(e.rt));
  }
  int r = j->c->run(&e);
  tx_rt_module_unload(e.rt, e.mod);
  tx_rt_close(e.rt);
  return r;
}

int main(int argc, char **argv) {
  int timeout_s = 60, list = 0;
  const char *only[N_CASES + 1];
  int nonly = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
      timeout_s = atoi(argv[++i]);
    else if (strcmp(argv[i], "--list") == 0)
      list = 1;
    else if (strcmp(argv[i], "--compile-only") == 0 && i + 1 < argc) {
      /* The test kernels through NVRTC for ARCH, without a GPU. */
      const char *arch = argv[++i];
      int sm = 0;
      char msg[4096];
      tx_strbuf image = {0};
      int r = sscanf(arch, "sm_%d", &sm) == 1 ? compile_kernels(arch, sm, &image, msg, sizeof msg)
                                              : (snprintf(msg, sizeof msg, "bad arch"), CHILD_FAIL);
      tx_sb_free(&image);
      child_tally t = {0};
      child_report(&t, arch, r, msg);
      return child_summary(&t);
    } else if (argv[i][0] == '-' || nonly == N_CASES) {
      fprintf(stderr, "usage: test_runtime_gpu [--timeout SECONDS] [--list] [CASE...]\n");
      return 2;
    } else
      only[nonly++] = argv[i];
  }
  if (timeout_s <= 0) timeout_s = 60;
  child_tally tally = {0};
  int first = 1;
  for (size_t i = 0; i < N_CASES; i++) {
    int selected = nonly == 0;
    for (int k = 0; k < nonly; k++)
      selected |= strcmp(CASES[i].name, only[k]) == 0;
    if (!selected) continue;
    if (list) {
      printf("%s\n", CASES[i].name);
      continue;
    }
    char msg[4096];
    job j = {&CASES[i], first};
    int o = child_run(run_child, &j, timeout_s, msg, sizeof msg);
    first = 0;
    child_report(&tally, CASES[i].name, o, msg);
  }
  return list ? 0 : child_summary(&tally);
}
