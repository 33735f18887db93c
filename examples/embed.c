/*
 * embed.c - libtirx embedded in a program: compile a kernel from a string,
 * run it on our own device buffers, check and print the result. Uses only
 * the public header <tirx/tirx.h>.
 *
 * Exits 77 (skip) when there is no CUDA GPU, 1 on an error or a wrong result.
 */
#include <stdio.h>
#include <string.h>

#include "tirx/tirx.h"

static const char KERNEL[] =
    "n = T.int32()\n\n"
    "# from tvm.script import tirx as T\n\n@T.prim_func\n"
    "def axpy(X: T.Buffer((n,), \"float32\"), Y: T.Buffer((n,), \"float32\"), a: T.float32):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([4])\n"
    "    tx = T.thread_id([256])\n"
    "    i: T.int32 = bx * 256 + tx\n"
    "    if i < n:\n"
    "        Y[i] = a * X[i] + Y[i]\n";

enum { N = 1000 };

/* y = 2 * x + y on the GPU; returns 0 when every element is right. */
static int run(tirx_runtime *rt, tirx_function *fn, tirx_error *err) {
  static float x[N], y[N];
  for (int i = 0; i < N; i++)
    x[i] = (float)i, y[i] = 1.0f;
  int64_t shape[1] = {N};
  DLDataType f32 = {kDLFloat, 32, 1};
  DLManagedTensorVersioned *dx = NULL, *dy = NULL;
  int rc = 1;
  if (tirx_tensor_alloc(rt, shape, 1, f32, &dx, err) != TIRX_OK ||
      tirx_tensor_alloc(rt, shape, 1, f32, &dy, err) != TIRX_OK ||
      tirx_copy(rt, dx->dl_tensor.data, x, sizeof x, TIRX_COPY_HOST_TO_DEVICE, NULL, err) ||
      tirx_copy(rt, dy->dl_tensor.data, y, sizeof y, TIRX_COPY_HOST_TO_DEVICE, NULL, err))
    goto out;
  tirx_arg args[3] = {{TIRX_ARG_TENSOR, {.tensor = &dx->dl_tensor}},
                      {TIRX_ARG_TENSOR, {.tensor = &dy->dl_tensor}},
                      {TIRX_ARG_FLOAT, {.f = 2.0}}};
  if (tirx_function_call(fn, args, 3, NULL, err) != TIRX_OK ||
      tirx_copy(rt, y, dy->dl_tensor.data, sizeof y, TIRX_COPY_DEVICE_TO_HOST, NULL, err) ||
      tirx_runtime_synchronize(rt, NULL, err) != TIRX_OK)
    goto out;
  rc = 0;
  for (int i = 0; i < N; i++)
    if (y[i] != 2.0f * (float)i + 1.0f) {
      snprintf(err->message, sizeof err->message, "y[%d] = %g, want %g", i, y[i],
               2.0f * (float)i + 1.0f);
      rc = 1;
      break;
    }
  if (!rc) printf("embed: y = 2*x + 1 ok: y[0]=%g y[%d]=%g\n", y[0], N - 1, y[N - 1]);
out:
  tirx_dlpack_release(dx);
  tirx_dlpack_release(dy);
  return rc;
}

int main(void) {
  tirx_error err = {0};
  tirx_runtime *rt = NULL;
  if (tirx_runtime_open(0, &rt, &err) != TIRX_OK) {
    printf("embed: skipped, no CUDA GPU (%s)\n", err.message);
    return 77;
  }
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.arch = tirx_runtime_arch(rt);
  tirx_executable *exe = NULL;
  tirx_loaded *lm = NULL;
  tirx_function *fn = NULL;
  int rc = 1;
  if (tirx_compile("axpy.tirx", KERNEL, strlen(KERNEL), &o, &exe, &err) == TIRX_OK &&
      tirx_runtime_load(rt, exe, &lm, &err) == TIRX_OK &&
      tirx_loaded_function(lm, "axpy", &fn, &err) == TIRX_OK)
    rc = run(rt, fn, &err);
  if (rc) fprintf(stderr, "embed: %s\n", err.message);
  tirx_loaded_free(lm);
  tirx_executable_free(exe);
  tirx_runtime_close(rt);
  return rc;
}
