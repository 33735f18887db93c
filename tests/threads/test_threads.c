/*
 * test_threads.c - the library's thread-safety promises (tirx.h "Thread
 * safety", runtime/runtime.h) under real concurrency, for ThreadSanitizer
 * (make test-tsan) and every other build:
 *   - separate contexts compiling on 4 threads at once give the
 *     single-threaded results (CUDA text and executables);
 *   - one tirx_cache shared by 4 threads, in memory, on disk (a temporary
 *     directory) and both, ends with one entry per kernel and only hits
 *     after each thread's first compile;
 *   - one tirx_function called from 8 threads through the fake CUDA driver
 *     (plain and tensor-map kernels, good and bad arguments), loads and
 *     frees on one runtime from 4 threads, tensors allocated and freed,
 *     and one module's function cache looked up from 4 threads.
 *
 * A plain C program, not Criterion: Criterion does not run under TSan
 * (docs/fuzzing.md). Each case runs in a forked child with a timeout
 * (tests/gpu/child_runner.c); a TSan report ends the child (halt_on_error,
 * set below) and fails the case. Usage: test_threads [CASE_SUBSTRING].
 */
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child_runner.h"
#include "fake/fake_cuda.h"
#include "driver/context.h"
#include "driver/compile.h"
#include "abi/exe_format.h"
#include "support/file.h"
#include "runtime/api_internal.h"
#include "runtime/runtime.h"
#include "tirx/tirx.h"

/* Read by the TSan runtime when the program starts: stop at the first
 * report so the child fails (child_runner ends children with _exit, which
 * would skip TSan's exit-time check). Unused in other builds. */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void) {
  return "halt_on_error=1:second_deadlock_stack=1";
}

enum { THREADS = 4, CALL_THREADS = 8, ROUNDS = 3, MAX_KERNELS = 16, CASE_TIMEOUT_S = 240 };

/* Kernels from the tree that compile without NVRTC (host_only). */
static const char *const KERNEL_FILES[] = {
    "examples/scale.tirx",
    "examples/warp_reduce.tirx",
    "examples/tiled_gemm.tirx",
    "tests/golden/lowering/block_sum.tirx",
    "tests/golden/lowering/cluster.tirx",
    "tests/golden/lowering/scale_dyn.tirx",
    "tests/golden/lowering/tma_tile.tirx",
    "tests/golden/lowering/dtypes.tirx",
};
enum { NKERNELS = sizeof KERNEL_FILES / sizeof *KERNEL_FILES };

typedef struct kernel {
  const char *name;
  char *text;
  size_t len;
  char *cuda;       /* --emit=cuda, single-threaded reference */
  size_t nfuncs;    /* callable functions of its executable */
  char *first_func; /* the first one's name */
} kernel;

/* A failure message for the case (the first one wins; threads share it). */
typedef struct outcome {
  pthread_mutex_t mu;
  char msg[512];
  int failed;
} outcome;

static void fail(outcome *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(outcome *o, const char *fmt, ...) {
  pthread_mutex_lock(&o->mu);
  if (!o->failed) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->msg, sizeof o->msg, fmt, ap);
    va_end(ap);
  }
  o->failed++;
  pthread_mutex_unlock(&o->mu);
}

static int finish(outcome *o, char *msg, size_t cap) {
  snprintf(msg, cap, "%s", o->msg);
  return o->failed ? CHILD_FAIL : CHILD_PASS;
}

/* Run fn(arg_i) on n threads at once and wait for all of them. */
static int run_threads(int n, void *(*fn)(void *), void *args, size_t arg_size, outcome *o) {
  pthread_t th[CALL_THREADS];
  int started = 0;
  for (; started < n; started++)
    if (pthread_create(&th[started], NULL, fn, (char *)args + (size_t)started * arg_size) != 0)
      break;
  for (int i = 0; i < started; i++)
    pthread_join(th[i], NULL);
  if (started < n) fail(o, "pthread_create failed after %d threads", started);
  return started == n;
}

/* ---- the kernels and their single-threaded results -------------------------------- */

static char *cuda_of(const char *name, const char *text, size_t len) {
  tirx_ctx *ctx = NULL;
  tirx_module *m = NULL;
  char *res = NULL;
  if (tirx_ctx_create(&ctx) != TIRX_OK) return NULL;
  if (tirx_parse_string(ctx, name, text, len, &m) == TIRX_OK) {
    tx_compile_request req;
    tx_compile_request_init(&req);
    req.emit = TX_EMIT_CUDA;
    tx_strbuf out = {0};
    if (tx_compile_module(ctx, m->mod, &req, NULL, &out) == TIRX_OK && !out.failed) {
      tx_sb_putc(&out, 0);
      res = out.data;
    } else {
      tx_sb_free(&out);
    }
  }
  tirx_ctx_destroy(ctx);
  return res;
}

static tirx_status compile_host(const kernel *k, tirx_cache *cache, const char *disk_dir,
                                tirx_executable **out, tirx_error *err) {
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.host_only = 1;
  o.cache = cache;
  o.disk_cache = disk_dir != NULL;
  o.cache_dir = disk_dir;
  return tirx_compile(k->name, k->text, k->len, &o, out, err);
}

static int load_kernels(kernel ks[NKERNELS], char *msg, size_t cap) {
  memset(ks, 0, NKERNELS * sizeof *ks); /* free_kernels may follow a failure */
  for (int i = 0; i < NKERNELS; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", TIRX_SOURCE_DIR, KERNEL_FILES[i]);
    kernel *k = &ks[i];
    k->name = KERNEL_FILES[i];
    if (tx_read_file(NULL, path, &k->text, &k->len) != 0) {
      snprintf(msg, cap, "cannot read %s", path);
      return 0;
    }
    k->cuda = cuda_of(k->name, k->text, k->len);
    tirx_executable *exe = NULL;
    tirx_error err = {0};
    if (!k->cuda || compile_host(k, NULL, NULL, &exe, &err) != TIRX_OK) {
      snprintf(msg, cap, "%s does not compile: %s", k->name, err.message);
      return 0;
    }
    k->nfuncs = tirx_executable_func_count(exe);
    k->first_func = strdup(k->nfuncs ? tirx_executable_func_name(exe, 0) : "");
    tirx_executable_free(exe);
  }
  return 1;
}

static void free_kernels(kernel ks[NKERNELS]) {
  for (int i = 0; i < NKERNELS; i++) {
    free(ks[i].text);
    free(ks[i].cuda);
    free(ks[i].first_func);
  }
}

/* The executable has the reference's functions. */
static int same_functions(const kernel *k, const tirx_executable *exe) {
  size_t n = tirx_executable_func_count(exe);
  return n == k->nfuncs &&
         (n == 0 || strcmp(tirx_executable_func_name(exe, 0), k->first_func) == 0);
}

/* ---- separate contexts compiling at once ---------------------------------------------- */

typedef struct compile_job {
  const kernel *ks;
  outcome *o;
  tirx_cache *cache;    /* shared cache cases */
  const char *disk_dir; /* shared disk cache cases */
  int hits;             /* executables that came from a cache */
} compile_job;

static void *compile_worker(void *arg) {
  compile_job *j = arg;
  for (int round = 0; round < ROUNDS && !j->o->failed; round++)
    for (int i = 0; i < NKERNELS; i++) {
      const kernel *k = &j->ks[i];
      if (!j->cache && !j->disk_dir) {
        char *cuda = cuda_of(k->name, k->text, k->len);
        if (!cuda || strcmp(cuda, k->cuda) != 0)
          fail(j->o, "%s: the CUDA compiled on a thread differs from the reference", k->name);
        free(cuda);
      }
      tirx_executable *exe = NULL;
      tirx_error err = {0};
      tirx_status st = compile_host(k, j->cache, j->disk_dir, &exe, &err);
      if (st != TIRX_OK)
        fail(j->o, "%s: %s", k->name, err.message);
      else if (!same_functions(k, exe))
        fail(j->o, "%s: %zu functions, want %zu", k->name, tirx_executable_func_count(exe),
             k->nfuncs);
      j->hits += tirx_executable_from_cache(exe);
      tirx_executable_free(exe);
    }
  return NULL;
}

static int run_compiles(tirx_cache *cache, const char *disk_dir, compile_job jobs[THREADS],
                        outcome *o, char *msg, size_t cap, kernel ks[NKERNELS]) {
  if (!load_kernels(ks, msg, cap)) return 0;
  for (int t = 0; t < THREADS; t++)
    jobs[t] = (compile_job){ks, o, cache, disk_dir, 0};
  return run_threads(THREADS, compile_worker, jobs, sizeof *jobs, o);
}

static int case_contexts(void *arg, char *msg, size_t cap) {
  (void)arg;
  kernel ks[NKERNELS];
  compile_job jobs[THREADS];
  outcome o = {PTHREAD_MUTEX_INITIALIZER, "", 0};
  if (run_compiles(NULL, NULL, jobs, &o, msg, cap, ks))
    for (int t = 0; t < THREADS; t++)
      if (jobs[t].hits) fail(&o, "thread %d: %d cache hits without a cache", t, jobs[t].hits);
  free_kernels(ks);
  return msg[0] ? CHILD_FAIL : finish(&o, msg, cap);
}

/* ---- one parsed module compiled by every thread at once --------------------------------- */

typedef struct module_job {
  const tirx_module *m;
  const tirx_executable *want; /* compiled before the threads started */
  outcome *o;
} module_job;

static void *module_worker(void *arg) {
  module_job *j = arg;
  tirx_compile_options opts;
  tirx_compile_options_init(&opts);
  opts.host_only = 1;
  for (int round = 0; round < ROUNDS && !j->o->failed; round++) {
    tirx_executable *exe = NULL;
    tirx_error err = {0};
    if (tirx_compile_module(j->m, &opts, &exe, &err) != TIRX_OK)
      fail(j->o, "tirx_compile_module: %s", err.message);
    else if (exe->len != j->want->len || memcmp(exe->bytes, j->want->bytes, exe->len) != 0)
      fail(j->o, "an executable compiled on a thread differs from the one compiled before");
    tirx_executable_free(exe);
  }
  return NULL;
}

/* tirx_compile_module takes a const module: the threads share one, each
 * gets the single-threaded executable byte for byte, and the module's
 * context gains neither memory nor diagnostics. */
static int case_one_module(void *arg, char *msg, size_t cap) {
  (void)arg;
  kernel ks[NKERNELS];
  outcome o = {PTHREAD_MUTEX_INITIALIZER, "", 0};
  if (!load_kernels(ks, msg, cap)) return free_kernels(ks), CHILD_FAIL;
  for (int i = 0; i < NKERNELS && !o.failed; i++) {
    tirx_ctx *ctx = NULL;
    tirx_module *m = NULL;
    tirx_executable *want = NULL;
    tirx_error err = {0};
    tirx_compile_options opts;
    tirx_compile_options_init(&opts);
    opts.host_only = 1;
    if (tirx_ctx_create(&ctx) != TIRX_OK ||
        tirx_parse_string(ctx, ks[i].name, ks[i].text, ks[i].len, &m) != TIRX_OK ||
        tirx_compile_module(m, &opts, &want, &err) != TIRX_OK) {
      fail(&o, "%s: does not compile as a module: %s", ks[i].name, err.message);
    } else {
      size_t used = tx_arena_used(ctx->arena), diags = tirx_diag_count(ctx);
      module_job jobs[THREADS];
      for (int t = 0; t < THREADS; t++)
        jobs[t] = (module_job){m, want, &o};
      run_threads(THREADS, module_worker, jobs, sizeof *jobs, &o);
      if (tx_arena_used(ctx->arena) != used)
        fail(&o, "%s: compiling grew the module's arena by %zu bytes", ks[i].name,
             tx_arena_used(ctx->arena) - used);
      if (tirx_diag_count(ctx) != diags) fail(&o, "%s: compiling added diagnostics", ks[i].name);
    }
    tirx_executable_free(want);
    tirx_ctx_destroy(ctx);
  }
  free_kernels(ks);
  return finish(&o, msg, cap);
}

/* ---- one cache shared by the threads -------------------------------------------------- */

/* Each thread misses a kernel at most once (before its own store): every
 * other compile is a hit. */
static void check_hits(const compile_job jobs[THREADS], outcome *o) {
  for (int t = 0; t < THREADS; t++) {
    int want = (ROUNDS - 1) * NKERNELS;
    if (jobs[t].hits < want)
      fail(o, "thread %d: %d cache hits, want at least %d", t, jobs[t].hits, want);
  }
}

static int case_memory_cache(void *arg, char *msg, size_t cap) {
  (void)arg;
  kernel ks[NKERNELS];
  compile_job jobs[THREADS];
  outcome o = {PTHREAD_MUTEX_INITIALIZER, "", 0};
  tirx_cache *cache = NULL;
  if (tirx_cache_create(&cache) != TIRX_OK) return snprintf(msg, cap, "cache"), CHILD_FAIL;
  if (run_compiles(cache, NULL, jobs, &o, msg, cap, ks)) {
    check_hits(jobs, &o);
    uint64_t hits = 0, entries = 0;
    tirx_cache_stats(cache, &hits, &entries);
    if (entries != NKERNELS)
      fail(&o, "%llu entries, want %d", (unsigned long long)entries, NKERNELS);
    int total = 0;
    for (int t = 0; t < THREADS; t++)
      total += jobs[t].hits;
    if (hits != (uint64_t)total)
      fail(&o, "the cache counted %llu hits, the threads saw %d", (unsigned long long)hits, total);
  }
  tirx_cache_destroy(cache);
  free_kernels(ks);
  return msg[0] ? CHILD_FAIL : finish(&o, msg, cap);
}

/* The cache directory holds one entry per kernel and no temporary file. */
static void check_disk_entries(const char *dir, outcome *o) {
  DIR *d = opendir(dir);
  if (!d) {
    fail(o, "cannot list %s", dir);
    return;
  }
  int entries = 0, others = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    size_t n = strlen(e->d_name);
    if (e->d_name[0] != '.' && n == 32 + 8 && strcmp(e->d_name + 32, ".tirxexe") == 0)
      entries++;
    else
      others++;
  }
  closedir(d);
  if (entries != NKERNELS || others)
    fail(o, "%s: %d entries (want %d) and %d other files", dir, entries, NKERNELS, others);
}

static int disk_case(int with_memory, char *msg, size_t cap) {
  char dir[] = "/tmp/tirx_threads_XXXXXX";
  if (!mkdtemp(dir)) return snprintf(msg, cap, "mkdtemp"), CHILD_FAIL;
  kernel ks[NKERNELS];
  compile_job jobs[THREADS];
  outcome o = {PTHREAD_MUTEX_INITIALIZER, "", 0};
  tirx_cache *cache = NULL;
  if (with_memory && tirx_cache_create(&cache) != TIRX_OK)
    return snprintf(msg, cap, "cache"), CHILD_FAIL;
  if (run_compiles(cache, dir, jobs, &o, msg, cap, ks)) {
    check_hits(jobs, &o);
    check_disk_entries(dir, &o);
    /* A new process would find every kernel on disk. */
    for (int i = 0; i < NKERNELS; i++) {
      tirx_executable *exe = NULL;
      tirx_error err = {0};
      if (compile_host(&ks[i], NULL, dir, &exe, &err) != TIRX_OK ||
          !tirx_executable_from_cache(exe))
        fail(&o, "%s: not a disk hit after the threads (%s)", ks[i].name, err.message);
      tirx_executable_free(exe);
    }
  }
  tirx_cache_destroy(cache);
  free_kernels(ks);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fail(&o, "cannot remove %s", dir);
  return msg[0] ? CHILD_FAIL : finish(&o, msg, cap);
}

static int case_disk_cache(void *arg, char *msg, size_t cap) {
  (void)arg;
  return disk_case(0, msg, cap);
}

static int case_memory_and_disk_cache(void *arg, char *msg, size_t cap) {
  (void)arg;
  return disk_case(1, msg, cap);
}

/* ---- calls through the fake driver ----------------------------------------------------- */

#define HDR "# from tvm.script import tirx as T\n\n@T.prim_func\n"

static const char SCALE_DYN[] =
    "n = T.int32()\n\n" HDR
    "def scale_dyn(A: T.Buffer((n,), \"float32\"), B: T.Buffer((n,), \"float32\"), s: T.float32):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([1])\n"
    "    for i in range(n):\n"
    "        B[i] = A[i] * s\n";

/* Two tensor maps encoded by the host part at every call (test_rtapi.c). */
static const char TMA[] =
    HDR "def tm(A: T.Buffer((64, 128), \"float16\"), B: T.Buffer((64, 128), \"float16\"), K: "
        "T.int32):\n"
        "    A_map: T.let[T.handle(\"tensormap\")] = T.tvm_stack_alloca(\"tensormap\", 1)\n"
        "    B_map: T.let[T.TensorMap()] = T.stack_alloca(\"tensormap\", 1)\n"
        "    T.call_packed(\"runtime.cuTensorMapEncodeTiled\", A_map, \"float16\", 2, A.data, 128, "
        "64, 256, 64, K, 1, 1, 0, 3, 2, 0)\n"
        "    T.call_packed(\"runtime.cuTensorMapEncodeTiled\", B_map, \"float16\", 2, B.data, 128, "
        "64, 256, 64, 16, 1, 1, 0, 3, 2, 0)\n"
        "    T.device_entry()\n"
        "    bx = T.cta_id([1])\n"
        "    tx = T.thread_id([32])\n"
        "    if tx == 0:\n"
        "        T.ptx.prefetch_tensormap(T.address_of(A_map))\n"
        "        T.ptx.prefetch_tensormap(B_map)\n";

static const char STAND_IN_PTX[] = "// stand-in PTX for the fake driver\n";

/* A host_only compile of src given a stand-in PTX, so that loading it on the
 * fake driver resolves its kernels and calls launch. */
static tirx_executable *with_stand_in_ptx(const char *src, char *msg, size_t cap) {
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.host_only = 1;
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  if (tirx_compile("t.tirx", src, strlen(src), &o, &exe, &err) != TIRX_OK) {
    snprintf(msg, cap, "compile: %s", err.message);
    return NULL;
  }
  char path[] = "/tmp/tirx_threads_exe_XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  char *data = NULL;
  size_t len = 0;
  tx_exe_parts parts;
  char why[256];
  tx_strbuf out = {0};
  int ok = fd >= 0 && tirx_executable_save(exe, path, &err) == TIRX_OK &&
           tx_read_file(NULL, path, &data, &len) == 0 &&
           tx_exe_deserialize(data, len, &parts, why, sizeof why) == TIRX_OK;
  tirx_executable_free(exe);
  exe = NULL;
  if (ok) {
    tx_exe_parts_set_ptx(&parts, STAND_IN_PTX, sizeof STAND_IN_PTX - 1);
    FILE *f = tx_exe_serialize(&parts, &out) == TIRX_OK ? fopen(path, "wb") : NULL;
    ok = f && fwrite(out.data, 1, out.len, f) == out.len;
    if (f) ok = fclose(f) == 0 && ok;
    ok = ok && tirx_executable_load(path, &exe, &err) == TIRX_OK;
  }
  if (!ok) snprintf(msg, cap, "cannot make the stand-in executable: %s", err.message);
  tx_sb_free(&out);
  free(data);
  if (fd >= 0) unlink(path);
  return exe;
}

/* The fake's records (the handle stays open: the runtime shares the copy). */
static fake_cuda_state *fake_state(void) {
  void *h = dlopen(FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
  void *sym = h ? dlsym(h, "fake_cuda_state_get") : NULL;
  fake_cuda_state_fn get;
  memcpy(&get, &sym, sizeof sym);
  return sym ? get() : NULL;
}

static DLTensor device_tensor(void *data, int64_t *shape, int ndim, DLDataType dt) {
  DLTensor t = {0};
  t.data = data;
  t.device = (DLDevice){kDLCUDA, 0};
  t.ndim = ndim;
  t.dtype = dt;
  t.shape = shape;
  return t;
}

enum { CALLS = 400 };

typedef struct call_job {
  const tirx_function *scale, *tm;
  outcome *o;
  int launched; /* calls that passed the checks */
  _Alignas(128) uint16_t a[64 * 128];
  float x[256], y[256];
} call_job;

static const DLDataType F32 = {kDLFloat, 32, 1}, F16 = {kDLFloat, 16, 1};

static void *call_worker(void *arg) {
  call_job *j = arg;
  int64_t n_shape[1] = {256}, tm_shape[2] = {64, 128};
  DLTensor x = device_tensor(j->x, n_shape, 1, F32), y = device_tensor(j->y, n_shape, 1, F32);
  DLTensor bad = device_tensor(j->x, n_shape, 1, F16);
  DLTensor a = device_tensor(j->a, tm_shape, 2, F16);
  for (int i = 0; i < CALLS && !j->o->failed; i++) {
    tirx_error err = {0};
    tirx_arg args[3] = {{TIRX_ARG_TENSOR, {.tensor = &x}},
                        {TIRX_ARG_TENSOR, {.tensor = &y}},
                        {TIRX_ARG_FLOAT, {.f = 2.0}}};
    if (i % 4 == 3) {
      args[1].v.tensor = &bad;
      tirx_status st = tirx_function_call(j->scale, args, 3, NULL, &err);
      if (st != TIRX_ERR_USAGE ||
          strcmp(err.message, "scale_dyn: argument 'B': expected dtype float32, got float16") != 0)
        fail(j->o, "a bad call: %s: %s", tirx_status_name(st), err.message);
      continue;
    }
    if (tirx_function_call(j->scale, args, 3, NULL, &err) != TIRX_OK)
      fail(j->o, "scale_dyn: %s", err.message);
    tirx_arg targs[3] = {{TIRX_ARG_TENSOR, {.tensor = &a}},
                         {TIRX_ARG_TENSOR, {.tensor = &a}},
                         {TIRX_ARG_INT, {.i = 8 + i % 8}}};
    if (tirx_function_call(j->tm, targs, 3, NULL, &err) != TIRX_OK)
      fail(j->o, "tm: %s", err.message);
    j->launched += 2;
  }
  return NULL;
}

typedef struct loaded_fn {
  tirx_executable *exe;
  tirx_loaded *lm;
  tirx_function *fn;
} loaded_fn;

static int load_fn(tirx_runtime *rt, const char *src, const char *name, loaded_fn *l, char *msg,
                   size_t cap) {
  memset(l, 0, sizeof *l);
  l->exe = with_stand_in_ptx(src, msg, cap);
  tirx_error err = {0};
  if (!l->exe) return 0;
  if (tirx_runtime_load(rt, l->exe, &l->lm, &err) != TIRX_OK ||
      tirx_loaded_function(l->lm, name, &l->fn, &err) != TIRX_OK) {
    snprintf(msg, cap, "%s: %s", name, err.message);
    return 0;
  }
  return 1;
}

static void unload_fn(loaded_fn *l) {
  tirx_loaded_free(l->lm);
  tirx_executable_free(l->exe);
}

static int case_one_function(void *arg, char *msg, size_t cap) {
  (void)arg;
  tirx_runtime *rt = NULL;
  tirx_error err = {0};
  if (tirx_runtime_open_with(FAKE_CUDA_PATH, 0, &rt, &err) != TIRX_OK)
    return snprintf(msg, cap, "open: %s", err.message), CHILD_FAIL;
  fake_cuda_state *s = fake_state();
  loaded_fn scale = {0}, tm = {0};
  int ok = s && load_fn(rt, SCALE_DYN, "scale_dyn", &scale, msg, cap) &&
           load_fn(rt, TMA, "tm", &tm, msg, cap);
  outcome o = {PTHREAD_MUTEX_INITIALIZER, "", 0};
  static call_job jobs[CALL_THREADS];
  if (ok) {
    int launches0 = s->launches, encodes0 = s->encodes;
    for (int t = 0; t < CALL_THREADS; t++) {
      memset(&jobs[t], 0, sizeof jobs[t]);
      jobs[t].scale = scale.fn;
      jobs[t].tm = tm.fn;
      jobs[t].o = &o;
    }
    if (run_threads(CALL_THREADS, call_worker, jobs, sizeof *jobs, &o)) {
      int launched = 0;
      for (int t = 0; t < CALL_THREADS; t++)
        launched += jobs[t].launched;
      if (s->launches - launches0 != launched)
        fail(&o, "the driver saw %d launches, the threads made %d", s->launches - launches0,
             launched);
      /* Half the launches are tm's, each encoding two maps. */
      if (s->encodes - encodes0 != launched)
        fail(&o, "%d tensor maps encoded for %d tm launches", s->encodes - encodes0, launched / 2);
      if (launched != CALL_THREADS * (CALLS - CALLS / 4) * 2)
        fail(&o, "%d launches, want %d", launched, CALL_THREADS * (CALLS - CALLS / 4) * 2);
    }
  }
  unload_fn(&scale);
  unload_fn(&tm);
  tirx_runtime_close(rt);
  if (!s) snprintf(msg, cap, "no fake driver state");
  return msg[0] ? CHILD_FAIL : finish(&o, msg, cap);
}

/* ---- loads, frees and tensors on one runtime -------------------------------------------- */

enum { LOADS = 40 };

typedef struct load_job {
  tirx_runtime *rt;
  const tirx_executable *exe;
  outcome *o;
} load_job;

static void *load_worker(void *arg) {
  load_job *j = arg;
  float x[64], y[64];
  int64_t shape[1] = {64};
  DLTensor a = device_tensor(x, shape, 1, F32), b = device_tensor(y, shape, 1, F32);
  for (int i = 0; i < LOADS && !j->o->failed; i++) {
    tirx_loaded *lm = NULL;
    tirx_function *fn = NULL;
    tirx_error err = {0};
    tirx_arg args[3] = {{TIRX_ARG_TENSOR, {.tensor = &a}},
                        {TIRX_ARG_TENSOR, {.tensor = &b}},
                        {TIRX_ARG_FLOAT, {.f = 1.0}}};
    if (tirx_runtime_load(j->rt, j->exe, &lm, &err) != TIRX_OK ||
        tirx_loaded_function(lm, "scale_dyn", &fn, &err) != TIRX_OK ||
        tirx_function_call(fn, args, 3, NULL, &err) != TIRX_OK)
      fail(j->o, "load/call %d: %s", i, err.message);
    tirx_loaded_free(lm);
    DLManagedTensorVersioned *t = NULL;
    int64_t tshape[2] = {16, 8};
    if (tirx_tensor_alloc(j->rt, tshape, 2, F32, &t, &err) != TIRX_OK)
      fail(j->o, "tensor: %s", err.message);
    else
      tirx_dlpack_release(t);
  }
  return NULL;
}

static int case_loads(void *arg, char *msg, size_t cap) {
  (void)arg;
  tirx_runtime *rt = NULL;
  tirx_error err = {0};
  if (tirx_runtime_open_with(FAKE_CUDA_PATH, 0, &rt, &err) != TIRX_OK)
    return snprintf(msg, cap, "open: %s", err.message), CHILD_FAIL;
  fake_cuda_state *s = fake_state();
  tirx_executable *exe = with_stand_in_ptx(SCALE_DYN, msg, cap);
  outcome o = {PTHREAD_MUTEX_INITIALIZER, "", 0};
  if (exe && s) {
    int loaded0 = s->modules_loaded, unloaded0 = s->modules_unloaded;
    long live0 = s->live_allocations;
    load_job jobs[THREADS];
    for (int t = 0; t < THREADS; t++)
      jobs[t] = (load_job){rt, exe, &o};
    if (run_threads(THREADS, load_worker, jobs, sizeof *jobs, &o)) {
      if (s->modules_loaded - loaded0 != THREADS * LOADS ||
          s->modules_unloaded - unloaded0 != THREADS * LOADS)
        fail(&o, "%d modules loaded and %d unloaded, want %d each", s->modules_loaded - loaded0,
             s->modules_unloaded - unloaded0, THREADS * LOADS);
      if (s->live_allocations != live0)
        fail(&o, "%ld device allocations left", s->live_allocations - live0);
    }
  }
  tirx_executable_free(exe);
  tirx_runtime_close(rt);
  if (!s && !msg[0]) snprintf(msg, cap, "no fake driver state");
  return msg[0] ? CHILD_FAIL : finish(&o, msg, cap);
}

/* ---- one module's function cache (the runtime layer) ------------------------------------ */

enum { NAMES = 64 };

typedef struct lookup_job {
  tx_runtime *rt;
  tx_rt_module *m;
  tx_rt_function *got[NAMES];
  outcome *o;
} lookup_job;

static void *lookup_worker(void *arg) {
  lookup_job *j = arg;
  char name[16];
  for (int round = 0; round < 20; round++)
    for (int i = 0; i < NAMES; i++) {
      snprintf(name, sizeof name, "f%d", i);
      tx_rt_error err = {0};
      if (tx_rt_get_function(j->rt, j->m, name, &j->got[i], &err) != TIRX_OK)
        fail(j->o, "%s: %s", name, err.message);
    }
  return NULL;
}

static int case_function_cache(void *arg, char *msg, size_t cap) {
  (void)arg;
  tx_runtime *rt = NULL;
  tx_rt_module *m = NULL;
  tx_rt_error err = {0};
  fake_cuda_state *s = NULL;
  if (tx_rt_open_with(FAKE_CUDA_PATH, 0, &rt, &err) != TIRX_OK || !(s = fake_state()) ||
      tx_rt_module_load(rt, "ok", 3, &m, &err) != TIRX_OK) {
    snprintf(msg, cap, "setup: %s", err.message);
    tx_rt_close(rt);
    return CHILD_FAIL;
  }
  int calls0 = s->get_function_calls;
  outcome o = {PTHREAD_MUTEX_INITIALIZER, "", 0};
  lookup_job jobs[THREADS];
  for (int t = 0; t < THREADS; t++)
    jobs[t] = (lookup_job){rt, m, {0}, &o};
  if (run_threads(THREADS, lookup_worker, jobs, sizeof *jobs, &o)) {
    for (int i = 0; i < NAMES; i++)
      for (int t = 1; t < THREADS; t++)
        if (jobs[t].got[i] != jobs[0].got[i]) fail(&o, "f%d: two handles", i);
    if (s->get_function_calls - calls0 != NAMES)
      fail(&o, "%d driver lookups for %d names", s->get_function_calls - calls0, NAMES);
  }
  tx_rt_close(rt); /* unloads the module */
  return finish(&o, msg, cap);
}

typedef struct test_case {
  const char *name;
  child_fn fn;
} test_case;

static const test_case CASES[] = {
    {"threads.contexts_compile_at_once", case_contexts},
    {"threads.one_module_many_compilers", case_one_module},
    {"threads.memory_cache_shared", case_memory_cache},
    {"threads.disk_cache_shared", case_disk_cache},
    {"threads.memory_and_disk_cache_shared", case_memory_and_disk_cache},
    {"threads.one_function_many_callers", case_one_function},
    {"threads.loads_and_tensors_on_one_runtime", case_loads},
    {"threads.function_cache_lookups", case_function_cache},
};

int main(int argc, char **argv) {
  const char *filter = argc > 1 ? argv[1] : NULL;
  child_tally tally = {0};
  for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
    if (filter && !strstr(CASES[i].name, filter)) continue;
    char msg[4096];
    int r = child_run(CASES[i].fn, NULL, CASE_TIMEOUT_S, msg, sizeof msg);
    child_report(&tally, CASES[i].name, r, msg);
  }
  return child_summary(&tally);
}
