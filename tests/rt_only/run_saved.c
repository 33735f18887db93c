/*
 * run_saved.c - a program linked against libtirx_rt alone (no compiler):
 * it loads a saved executable of two_kernels.tirx, runs its host function
 * `two` (two kernels: B = 2 * A, then B += 1) and checks the result.
 *
 *   run_saved EXE                 on the GPU: B must be 2 * A + 1
 *   run_saved EXE FAKE_DRIVER     on the fake libcuda (CI): both kernels
 *                                 must be launched, in order
 *
 * That it links at all shows libtirx_rt holds everything loading and
 * running needs; tests/rt_only/check_symbols.sh shows it holds nothing of
 * the compiler. Exit 0: passed; 1: failed (with a message); 77: no GPU.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "fake/fake_cuda.h"
#include "tirx/tirx.h"

enum { N = 256 };

static int fail(const char *what, const tirx_error *err) {
  fprintf(stderr, "run_saved: %s: %s\n", what, err ? err->message : "");
  return 1;
}

/* The fake driver's record of launches (the same copy the runtime uses). */
static fake_cuda_state *fake_state(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  void *sym = h ? dlsym(h, "fake_cuda_state_get") : NULL;
  fake_cuda_state_fn fn;
  if (!sym) return NULL;
  memcpy(&fn, &sym, sizeof fn);
  return fn();
}

static int check_fake(const char *driver) {
  fake_cuda_state *s = fake_state(driver);
  if (!s) return fail("cannot read the fake driver's state", NULL);
  if (s->nlaunch_log != 2 || strcmp(s->launch_log[0].kernel, "two_kernel") != 0 ||
      strcmp(s->launch_log[1].kernel, "two_kernel_1") != 0) {
    fprintf(stderr, "run_saved: expected launches two_kernel, two_kernel_1; got %d\n",
            s->nlaunch_log);
    return 1;
  }
  printf("run_saved: fake driver: two_kernel and two_kernel_1 launched in order\n");
  return 0;
}

static int check_gpu(tirx_runtime *rt, DLTensor *b) {
  static float host[N];
  tirx_error err = {0};
  if (tirx_copy(rt, host, b->data, sizeof host, TIRX_COPY_DEVICE_TO_HOST, NULL, &err) != TIRX_OK ||
      tirx_runtime_synchronize(rt, NULL, &err) != TIRX_OK)
    return fail("copy back", &err);
  for (int i = 0; i < N; i++)
    if (host[i] != 2.0f * (float)i + 1.0f) {
      fprintf(stderr, "run_saved: B[%d] = %g, expected %g\n", i, host[i], 2.0 * i + 1);
      return 1;
    }
  printf("run_saved: GPU: B == 2 * A + 1 for all %d elements\n", N);
  return 0;
}

/* A and B on the device, A[i] = i. */
static int make_inputs(tirx_runtime *rt, DLManagedTensorVersioned *t[2]) {
  static float host[N];
  for (int i = 0; i < N; i++)
    host[i] = (float)i;
  int64_t shape[1] = {N};
  DLDataType f32 = {kDLFloat, 32, 1};
  tirx_error err = {0};
  for (int k = 0; k < 2; k++)
    if (tirx_tensor_alloc(rt, shape, 1, f32, &t[k], &err) != TIRX_OK) return fail("alloc", &err);
  if (tirx_copy(rt, t[0]->dl_tensor.data, host, sizeof host, TIRX_COPY_HOST_TO_DEVICE, NULL,
                &err) != TIRX_OK)
    return fail("copy in", &err);
  return 0;
}

static int run(const char *exe_path, const char *driver) {
  tirx_error err = {0};
  tirx_executable *exe = NULL;
  tirx_runtime *rt = NULL;
  tirx_loaded *lm = NULL;
  tirx_function *fn = NULL;
  DLManagedTensorVersioned *t[2] = {NULL, NULL};
  int rc = 1;
  if (tirx_executable_load(exe_path, &exe, &err) != TIRX_OK) return fail("load", &err);
  tirx_status st = tirx_runtime_open_with(driver, 0, &rt, &err);
  if (st != TIRX_OK) {
    tirx_executable_free(exe);
    if (!driver) printf("skipped: no GPU (%s)\n", err.message);
    return driver ? fail("runtime", &err) : 77;
  }
  if (tirx_runtime_load(rt, exe, &lm, &err) != TIRX_OK)
    rc = fail("runtime load", &err);
  else if (tirx_loaded_function(lm, "two", &fn, &err) != TIRX_OK)
    rc = fail("function", &err);
  else if (make_inputs(rt, t) == 0) {
    tirx_arg args[2] = {{TIRX_ARG_TENSOR, {.tensor = &t[0]->dl_tensor}},
                        {TIRX_ARG_TENSOR, {.tensor = &t[1]->dl_tensor}}};
    if (tirx_function_call(fn, args, 2, NULL, &err) != TIRX_OK)
      rc = fail("call", &err);
    else
      rc = driver ? check_fake(driver) : check_gpu(rt, &t[1]->dl_tensor);
  }
  for (int k = 0; k < 2; k++)
    if (t[k]) tirx_dlpack_release(t[k]);
  tirx_loaded_free(lm);
  tirx_runtime_close(rt);
  tirx_executable_free(exe);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: run_saved EXE [FAKE_DRIVER]\n");
    return 2;
  }
  return run(argv[1], argc == 3 ? argv[2] : NULL);
}
