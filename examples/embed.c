/*
 * embed.c - libtirx embedded in a program: compile a kernel from a string,
 * run it on our own device buffers, check and print the result.
 * Exits 77 (skip) when there is no CUDA GPU, 1 on a wrong result.
 */
#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h" /* device buffers; any CUDA allocator works too */
#include "tirx/tirx.h"

static const char KERNEL[] =
    "n = T.int32()\n\n"
    "# from tvm.script import tirx as T\n\n@T.prim_func\n"
    "def axpy(X: T.Buffer((n,), \"float32\"), Y: T.Buffer((n,), \"float32\"), a: T.float32):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([1])\n"
    "    for i in range(n):\n"
    "        Y[i] = a * X[i] + Y[i]\n";

int main(void) {
  enum { N = 1000 };
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
  if (tirx_compile("axpy.tirx", KERNEL, strlen(KERNEL), &o, &exe, &err) != TIRX_OK ||
      tirx_runtime_load(rt, exe, &lm, &err) != TIRX_OK ||
      tirx_loaded_function(lm, "axpy", &fn, &err) != TIRX_OK) {
    fprintf(stderr, "embed: %s\n", err.message);
    goto out;
  }
  static float x[N], y[N];
  for (int i = 0; i < N; i++)
    x[i] = (float)i, y[i] = 1.0f;
  tx_runtime *raw = NULL;
  tx_rt_error re = {0};
  void *dx = NULL, *dy = NULL;
  if (tx_rt_open(0, &raw, &re) != TIRX_OK || tx_rt_alloc(raw, sizeof x, &dx, &re) != TIRX_OK ||
      tx_rt_alloc(raw, sizeof y, &dy, &re) != TIRX_OK) {
    fprintf(stderr, "embed: %s\n", re.message);
    tx_rt_close(raw);
    goto out;
  }
  tx_rt_copy(raw, dx, x, sizeof x, TX_COPY_H2D, NULL, &re);
  tx_rt_copy(raw, dy, y, sizeof y, TX_COPY_H2D, NULL, &re);
  tx_rt_synchronize(raw, NULL, &re);
  int64_t shape[1] = {N};
  DLTensor tx = {
      .data = dx, .device = {kDLCUDA, 0}, .ndim = 1, .dtype = {kDLFloat, 32, 1}, .shape = shape};
  DLTensor ty = tx;
  ty.data = dy;
  tirx_arg args[3] = {{TIRX_ARG_TENSOR, {.tensor = &tx}},
                      {TIRX_ARG_TENSOR, {.tensor = &ty}},
                      {TIRX_ARG_FLOAT, {.f = 2.0}}};
  if (tirx_function_call(fn, args, 3, NULL, &err) != TIRX_OK ||
      tirx_runtime_synchronize(rt, NULL, &err) != TIRX_OK) {
    fprintf(stderr, "embed: %s\n", err.message);
  } else {
    tx_rt_copy(raw, y, dy, sizeof y, TX_COPY_D2H, NULL, &re);
    tx_rt_synchronize(raw, NULL, &re);
    rc = 0;
    for (int i = 0; i < N; i++)
      if (y[i] != 2.0f * (float)i + 1.0f) {
        fprintf(stderr, "embed: y[%d] = %g, want %g\n", i, y[i], 2.0f * (float)i + 1.0f);
        rc = 1;
        break;
      }
    if (rc == 0) printf("embed: y = 2*x + 1 ok: y[0]=%g y[%d]=%g\n", y[0], N - 1, y[N - 1]);
  }
  tx_rt_free(raw, dx, &re);
  tx_rt_free(raw, dy, &re);
  tx_rt_close(raw);
out:
  tirx_loaded_free(lm);
  tirx_executable_free(exe);
  tirx_runtime_close(rt);
  return rc;
}
