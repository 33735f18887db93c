/*
 * run.c - `tirxc run FILE [--func NAME] [--bind n=1024 ...] [--repeat N]
 * [--seed S] [--arch A] [-O N]`: compile through the disk cache, allocate
 * every buffer parameter with seeded random data of its dtype, launch on
 * GPU 0, print one checksum line per buffer (after the first launch) and
 * the median kernel time over --repeat launches (CUDA events).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/strbuf.h"
#include "runtime/runtime.h"
#include "runtime/tensor.h"
#include "tirx/tirx.h"

int tirxc_run_main(int argc, char **argv);

enum { MAX_BINDS = 32, MAX_PARAMS = 64 };

static uint32_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(*s >> 33);
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* Fill with values that are exact in every dtype: small integers, or for
 * floats small multiples of 1/8. */
static void fill(unsigned char *p, size_t bytes, DLDataType dt, uint64_t *seed) {
  size_t esz = (dt.bits * dt.lanes + 7) / 8;
  if (esz == 0) esz = 1;
  for (size_t off = 0; off + esz <= bytes; off += esz) {
    int v = (int)(lcg(seed) % 17) - 8;
    if (dt.code == kDLFloat && dt.bits == 32 && dt.lanes == 1) {
      float f = (float)v / 8.0f;
      memcpy(p + off, &f, 4);
    } else if (dt.code == kDLFloat && dt.bits == 64 && dt.lanes == 1) {
      double d = v / 8.0;
      memcpy(p + off, &d, 8);
    } else if (dt.code == kDLBool) {
      p[off] = (unsigned char)(v & 1);
    } else if (dt.code == kDLInt || dt.code == kDLUInt) {
      int64_t x = dt.code == kDLUInt ? (v + 8) : v;
      memcpy(p + off, &x, esz < 8 ? esz : 8);
    } else {
      /* other floats: a random small bit pattern (no NaNs: high bits 0) */
      for (size_t k = 0; k < esz; k++)
        p[off + k] = (unsigned char)(lcg(seed) & 0x3f);
    }
  }
}

/* FNV-1a over the bytes: stable across runs, sensitive to every bit. */
static uint64_t checksum(const unsigned char *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

int tirxc_run_main(int argc, char **argv) {
  const char *file = NULL, *func = NULL, *arch = NULL;
  const char *bind_names[MAX_BINDS];
  int64_t bind_vals[MAX_BINDS];
  int nbinds = 0, repeat = 10, opt = 2;
  uint64_t seed = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--func") == 0 && v)
      func = argv[++i];
    else if (strcmp(a, "--repeat") == 0 && v)
      repeat = atoi(argv[++i]);
    else if (strcmp(a, "--seed") == 0 && v)
      seed = strtoull(argv[++i], NULL, 0);
    else if (strcmp(a, "--arch") == 0 && v)
      arch = argv[++i];
    else if (strncmp(a, "-O", 2) == 0 && a[2])
      opt = atoi(a + 2);
    else if (strcmp(a, "--bind") == 0 && v) {
      const char *eq = strchr(argv[++i], '=');
      if (!eq || nbinds == MAX_BINDS) {
        fprintf(stderr, "tirxc run: --bind takes NAME=VALUE\n");
        return 2;
      }
      bind_names[nbinds] = argv[i];
      bind_vals[nbinds++] = strtoll(eq + 1, NULL, 0);
    } else if (a[0] != '-' && !file)
      file = a;
    else {
      fprintf(stderr,
              "tirxc run: unknown or incomplete option '%s'\n"
              "usage: tirxc run FILE [--func NAME] [--bind n=1024 ...] [--repeat N] "
              "[--seed S] [--arch A] [-ON]\n",
              a);
      return 2;
    }
  }
  if (!file || repeat < 1) {
    fprintf(stderr, "usage: tirxc run FILE [--func NAME] [--bind n=1024 ...] [--repeat N] "
                    "[--seed S]\n");
    return 2;
  }
  /* The file before the GPU: a missing file is the error to report even on
   * a machine without one. */
  tx_strbuf text = {0};
  int read_err = tx_sb_read_file(&text, file);
  if (read_err) {
    fprintf(stderr, "tirxc run: cannot read '%s': %s\n", file, strerror(read_err));
    tx_sb_free(&text);
    return read_err == ENOMEM ? TIRX_ERR_NOMEM : TIRX_ERR_IO;
  }
  tirx_error err = {0};
  tirx_runtime *rt = NULL;
  /* Then the GPU: its architecture is part of the compile. */
  if (tirx_runtime_open(0, &rt, &err) != TIRX_OK) {
    fprintf(stderr, "tirxc run: no usable CUDA GPU: %s\n", err.message);
    tx_sb_free(&text);
    return 1;
  }
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.arch = arch ? arch : tirx_runtime_arch(rt);
  o.opt_level = opt;
  o.disk_cache = 1;
  tirx_executable *exe = NULL;
  tirx_status st = tirx_compile(file, text.data, text.len, &o, &exe, &err);
  tx_sb_free(&text);
  int rc = 0;
  tirx_loaded *lm = NULL;
  tirx_function *fn = NULL;
  if (st != TIRX_OK) {
    fprintf(stderr, "%s\n", err.message);
    rc = (int)st;
    goto out;
  }
  if (!func) func = tirx_executable_func_name(exe, 0);
  if (!func) {
    fprintf(stderr, "tirxc run: %s has no callable function\n", file);
    rc = 1;
    goto out;
  }
  if (tirx_runtime_load(rt, exe, &lm, &err) != TIRX_OK ||
      tirx_loaded_function(lm, func, &fn, &err) != TIRX_OK) {
    fprintf(stderr, "tirxc run: %s\n", err.message);
    rc = 1;
    goto out;
  }
  size_t np = tirx_executable_param_count(exe, func);
  if (np > MAX_PARAMS) np = MAX_PARAMS;
  tirx_arg args[MAX_PARAMS];
  DLTensor tens[MAX_PARAMS];
  int64_t shapes[MAX_PARAMS][8];
  void *host[MAX_PARAMS] = {0};
  size_t bytes[MAX_PARAMS] = {0};
  tirx_param_info pi[MAX_PARAMS];
  tx_runtime *raw = NULL; /* the device buffers come from a second handle on the same context */
  tx_rt_error re = {0};
  if (tx_rt_open(0, &raw, &re) != TIRX_OK) {
    fprintf(stderr, "tirxc run: %s\n", re.message);
    rc = 1;
    goto out;
  }
  for (size_t i = 0; i < np && rc == 0; i++) {
    tirx_executable_param(exe, func, i, &pi[i]);
    if (pi[i].kind != TIRX_ARG_TENSOR) {
      /* scalars: --bind NAME=V, else 1 */
      int64_t v = 1;
      for (int b = 0; b < nbinds; b++)
        if (strncmp(bind_names[b], pi[i].name, strlen(pi[i].name)) == 0 &&
            bind_names[b][strlen(pi[i].name)] == '=')
          v = bind_vals[b];
      args[i].kind = (tirx_arg_kind)pi[i].kind;
      if (pi[i].kind == TIRX_ARG_FLOAT)
        args[i].v.f = (double)v;
      else
        args[i].v.i = v;
      continue;
    }
    for (int32_t d = 0; d < pi[i].ndim; d++) {
      int64_t e = pi[i].shape[d];
      if (e < 0) {
        e = -1;
        for (int b = 0; b < nbinds && pi[i].dim_names[d]; b++) {
          size_t nl = strlen(pi[i].dim_names[d]);
          if (strncmp(bind_names[b], pi[i].dim_names[d], nl) == 0 && bind_names[b][nl] == '=')
            e = bind_vals[b];
        }
        if (e < 0) {
          fprintf(stderr,
                  "tirxc run: parameter '%s' has symbolic dimension '%s': pass --bind %s=N\n",
                  pi[i].name, pi[i].dim_names[d] ? pi[i].dim_names[d] : "?",
                  pi[i].dim_names[d] ? pi[i].dim_names[d] : "?");
          rc = 2;
          break;
        }
      }
      shapes[i][d] = e;
    }
    if (rc) break;
    DLTensor t = {0};
    t.ndim = pi[i].ndim;
    t.dtype = pi[i].dtype;
    t.shape = shapes[i];
    t.device = (DLDevice){kDLCUDA, 0};
    if (tx_dl_nbytes(&t, 0, &bytes[i], &re) != TIRX_OK ||
        tx_rt_alloc(raw, bytes[i] ? bytes[i] : 1, &t.data, &re) != TIRX_OK) {
      fprintf(stderr, "tirxc run: %s\n", re.message);
      rc = 1;
      break;
    }
    host[i] = calloc(1, bytes[i] ? bytes[i] : 1);
    fill(host[i], bytes[i], t.dtype, &seed);
    tx_rt_copy(raw, t.data, host[i], bytes[i], TX_COPY_H2D, NULL, &re);
    tens[i] = t;
    args[i].kind = TIRX_ARG_TENSOR;
    args[i].v.tensor = &tens[i];
  }
  if (rc == 0) {
    tx_rt_synchronize(raw, NULL, &re);
    if (tirx_function_call(fn, args, np, NULL, &err) != TIRX_OK ||
        tirx_runtime_synchronize(rt, NULL, &err) != TIRX_OK) {
      fprintf(stderr, "tirxc run: %s\n", err.message);
      rc = 1;
    }
  }
  for (size_t i = 0; rc == 0 && i < np; i++) {
    if (pi[i].kind != TIRX_ARG_TENSOR) continue;
    tx_rt_copy(raw, host[i], tens[i].data, bytes[i], TX_COPY_D2H, NULL, &re);
    tx_rt_synchronize(raw, NULL, &re);
    char dn[32];
    printf("%s: %s[", pi[i].name, tx_dl_dtype_str(pi[i].dtype, dn));
    for (int32_t d = 0; d < pi[i].ndim; d++)
      printf("%s%lld", d ? ", " : "", (long long)shapes[i][d]);
    printf("] checksum %016llx\n", (unsigned long long)checksum(host[i], bytes[i]));
  }
  if (rc == 0) {
    float *ms = calloc((size_t)repeat, sizeof *ms);
    for (int r = 0; ms && r < repeat && rc == 0; r++) {
      tx_rt_timer *t = NULL;
      if (tx_rt_timer_start(raw, NULL, &t, &re) != TIRX_OK ||
          tirx_function_call(fn, args, np, NULL, &err) != TIRX_OK ||
          tx_rt_timer_stop(raw, t, NULL, &ms[r], &re) != TIRX_OK) {
        fprintf(stderr, "tirxc run: timing failed: %s%s\n", err.message, re.message);
        rc = 1;
      }
    }
    if (rc == 0 && ms) {
      qsort(ms, (size_t)repeat, sizeof *ms, cmp_float);
      printf("%s: median %.3f us over %d launches%s\n", func, ms[repeat / 2] * 1000.0, repeat,
             tirx_executable_from_cache(exe) ? " (compiled from cache)" : "");
    }
    free(ms);
  }
  for (size_t i = 0; i < np; i++)
    if (host[i]) {
      tx_rt_free(raw, tens[i].data, &re);
      free(host[i]);
    }
  tx_rt_close(raw);
out:
  tirx_loaded_free(lm);
  tirx_executable_free(exe);
  tirx_runtime_close(rt);
  return rc;
}
