/*
 * run.c - `tirxc run FILE [--func NAME] [--bind n=1024 ...] [--repeat N]
 * [--seed S] [--arch A] [-O N] [--compare IMAGE[:KERNEL] [--atol X]]`:
 * compile through the disk cache, allocate every buffer parameter with
 * seeded random data of its dtype, launch on GPU 0, print one checksum line
 * per buffer (after the first launch) and the median kernel time over
 * --repeat launches (CUDA events).
 *
 * --compare runs a second build of the same kernel - a cubin or PTX made by
 * another compiler (TVM's CUDA through nvcc, say) - with the launch tirx-c
 * computed (grid, block, shared memory, parameter values) on a second copy of
 * the same inputs, and compares every buffer afterwards (compare.c). It is
 * how docs/conformance.md's GPU table is measured. This file parses options
 * and drives the runtime; it prints nothing the library could.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/strbuf.h"
#include "runtime/api_internal.h"
#include "runtime/runtime.h"
#include "runtime/tensor.h"
#include "tirx/tirx.h"
#include "tools/tirxc/compare.h"

int tirxc_run_main(int argc, char **argv);

enum { MAX_BINDS = 32, MAX_PARAMS = 64, MAX_DIMS = 8 };

static const char USAGE[] =
    "usage: tirxc run FILE [--func NAME] [--bind n=1024 ...] [--repeat N] [--seed S] [--arch A] "
    "[-ON]\n"
    "                 [--compare IMAGE[:KERNEL] [--atol X] [--compare-first]]\n";

typedef struct run_opts {
  const char *file, *func, *arch;
  const char *bind_names[MAX_BINDS];
  int64_t bind_vals[MAX_BINDS];
  int nbinds, repeat, opt;
  uint64_t seed;
  const char *compare; /* IMAGE[:KERNEL] */
  double atol;
  int compare_first; /* launch the --compare build before tirx-c's */
} run_opts;

/* One set of arguments: device buffers (and the host copies they came from
 * or go back to) plus the scalar values. */
typedef struct arg_set {
  tirx_arg args[MAX_PARAMS];
  DLTensor tens[MAX_PARAMS];
  int64_t shapes[MAX_PARAMS][MAX_DIMS];
  void *host[MAX_PARAMS];
  size_t bytes[MAX_PARAMS];
} arg_set;

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

static int usage(const char *bad) {
  if (bad) fprintf(stderr, "tirxc run: unknown or incomplete option '%s'\n", bad);
  fputs(USAGE, stderr);
  return 2;
}

static int parse_opts(int argc, char **argv, run_opts *o) {
  *o = (run_opts){.repeat = 10, .opt = 2, .seed = 1};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--func") == 0 && v)
      o->func = argv[++i];
    else if (strcmp(a, "--repeat") == 0 && v)
      o->repeat = atoi(argv[++i]);
    else if (strcmp(a, "--seed") == 0 && v)
      o->seed = strtoull(argv[++i], NULL, 0);
    else if (strcmp(a, "--arch") == 0 && v)
      o->arch = argv[++i];
    else if (strcmp(a, "--compare") == 0 && v)
      o->compare = argv[++i];
    else if (strcmp(a, "--atol") == 0 && v)
      o->atol = strtod(argv[++i], NULL);
    else if (strcmp(a, "--compare-first") == 0)
      o->compare_first = 1;
    else if (strncmp(a, "-O", 2) == 0 && a[2])
      o->opt = atoi(a + 2);
    else if (strcmp(a, "--bind") == 0 && v) {
      const char *eq = strchr(argv[++i], '=');
      if (!eq || o->nbinds == MAX_BINDS) {
        fprintf(stderr, "tirxc run: --bind takes NAME=VALUE\n");
        return 2;
      }
      o->bind_names[o->nbinds] = argv[i];
      o->bind_vals[o->nbinds++] = strtoll(eq + 1, NULL, 0);
    } else if (a[0] != '-' && !o->file)
      o->file = a;
    else
      return usage(a);
  }
  if (!o->file || o->repeat < 1 || o->atol < 0 || (o->compare_first && !o->compare))
    return usage(NULL);
  return 0;
}

/* The --bind value of `name`, or `fallback`. */
static int64_t bound(const run_opts *o, const char *name, int64_t fallback) {
  size_t nl = name ? strlen(name) : 0;
  for (int b = 0; name && b < o->nbinds; b++)
    if (strncmp(o->bind_names[b], name, nl) == 0 && o->bind_names[b][nl] == '=')
      return o->bind_vals[b];
  return fallback;
}

/* Shapes, scalar values and seeded host data for every parameter. */
static int make_host_args(const run_opts *o, const tirx_param_info *pi, size_t np, arg_set *s) {
  uint64_t seed = o->seed;
  for (size_t i = 0; i < np; i++) {
    if (pi[i].kind != TIRX_ARG_TENSOR) {
      int64_t v = bound(o, pi[i].name, 1); /* scalars: --bind NAME=V, else 1 */
      s->args[i].kind = (tirx_arg_kind)pi[i].kind;
      if (pi[i].kind == TIRX_ARG_FLOAT)
        s->args[i].v.f = (double)v;
      else
        s->args[i].v.i = v;
      continue;
    }
    if (pi[i].ndim > MAX_DIMS) {
      fprintf(stderr, "tirxc run: parameter '%s' has more than %d dimensions\n", pi[i].name,
              MAX_DIMS);
      return 2;
    }
    for (int32_t d = 0; d < pi[i].ndim; d++) {
      int64_t e = pi[i].shape[d] >= 0 ? pi[i].shape[d] : bound(o, pi[i].dim_names[d], -1);
      if (e < 0) {
        const char *dn = pi[i].dim_names[d] ? pi[i].dim_names[d] : "?";
        fprintf(stderr, "tirxc run: parameter '%s' has symbolic dimension '%s': pass --bind %s=N\n",
                pi[i].name, dn, dn);
        return 2;
      }
      s->shapes[i][d] = e;
    }
    DLTensor t = {.ndim = pi[i].ndim, .dtype = pi[i].dtype, .shape = s->shapes[i]};
    t.device = (DLDevice){kDLCUDA, 0};
    tx_rt_error re = {0};
    if (tx_dl_nbytes(&t, 0, &s->bytes[i], &re) != TIRX_OK) {
      fprintf(stderr, "tirxc run: %s\n", re.message);
      return 1;
    }
    s->host[i] = calloc(1, s->bytes[i] ? s->bytes[i] : 1);
    if (!s->host[i]) {
      fprintf(stderr, "tirxc run: out of memory\n");
      return 4;
    }
    fill(s->host[i], s->bytes[i], t.dtype, &seed);
    s->tens[i] = t;
    s->args[i].kind = TIRX_ARG_TENSOR;
    s->args[i].v.tensor = &s->tens[i];
  }
  return 0;
}

/* A second set with the same scalars and its own host copies of `from`. */
static int copy_host_args(const arg_set *from, size_t np, arg_set *to) {
  *to = *from;
  for (size_t i = 0; i < np; i++) {
    to->host[i] = NULL;
    if (from->args[i].kind != TIRX_ARG_TENSOR) continue;
    to->tens[i].shape = to->shapes[i];
    to->args[i].v.tensor = &to->tens[i];
    to->host[i] = malloc(from->bytes[i] ? from->bytes[i] : 1);
    if (!to->host[i]) {
      fprintf(stderr, "tirxc run: out of memory\n");
      return 4;
    }
    memcpy(to->host[i], from->host[i], from->bytes[i]);
  }
  return 0;
}

/* Device buffers for every tensor of `s`, holding its host data. */
static int upload(tx_runtime *raw, size_t np, arg_set *s) {
  tx_rt_error re = {0};
  for (size_t i = 0; i < np; i++) {
    if (s->args[i].kind != TIRX_ARG_TENSOR) continue;
    if (tx_rt_alloc(raw, s->bytes[i] ? s->bytes[i] : 1, &s->tens[i].data, &re) != TIRX_OK ||
        tx_rt_copy(raw, s->tens[i].data, s->host[i], s->bytes[i], TX_COPY_H2D, NULL, &re) !=
            TIRX_OK) {
      fprintf(stderr, "tirxc run: %s\n", re.message);
      return 1;
    }
  }
  return tx_rt_synchronize(raw, NULL, &re) == TIRX_OK ? 0 : 1;
}

static int download(tx_runtime *raw, size_t np, arg_set *s) {
  tx_rt_error re = {0};
  for (size_t i = 0; i < np; i++)
    if (s->args[i].kind == TIRX_ARG_TENSOR &&
        tx_rt_copy(raw, s->host[i], s->tens[i].data, s->bytes[i], TX_COPY_D2H, NULL, &re) !=
            TIRX_OK) {
      fprintf(stderr, "tirxc run: %s\n", re.message);
      return 1;
    }
  if (tx_rt_synchronize(raw, NULL, &re) != TIRX_OK) {
    fprintf(stderr, "tirxc run: %s\n", re.message);
    return 1;
  }
  return 0;
}

static void free_args(tx_runtime *raw, size_t np, arg_set *s) {
  tx_rt_error re = {0};
  for (size_t i = 0; i < np; i++) {
    if (s->args[i].kind != TIRX_ARG_TENSOR) continue;
    if (s->tens[i].data) tx_rt_free(raw, s->tens[i].data, &re);
    free(s->host[i]);
  }
}

/* One launch of `kernel` (NULL: tirx-c's own) and a wait for it. */
static int launch(tirx_runtime *rt, const tirx_function *fn, tx_rt_function *kernel, arg_set *s,
                  size_t np) {
  tirx_error err = {0};
  if (tx_api_function_launch(fn, kernel, s->args, np, NULL, &err) != TIRX_OK ||
      tirx_runtime_synchronize(rt, NULL, &err) != TIRX_OK) {
    fprintf(stderr, "tirxc run: %s%s\n", kernel ? "the --compare kernel: " : "", err.message);
    return 1;
  }
  return 0;
}

static void print_checksums(const tirx_param_info *pi, size_t np, const arg_set *s) {
  for (size_t i = 0; i < np; i++) {
    if (pi[i].kind != TIRX_ARG_TENSOR) continue;
    char dn[32];
    printf("%s: %s[", pi[i].name, tx_dl_dtype_str(pi[i].dtype, dn));
    for (int32_t d = 0; d < pi[i].ndim; d++)
      printf("%s%lld", d ? ", " : "", (long long)s->shapes[i][d]);
    printf("] checksum %016llx\n", (unsigned long long)checksum(s->host[i], s->bytes[i]));
  }
}

/* The median time of `repeat` launches of `kernel`, printed as `label`. */
static int time_launches(tirx_runtime *rt, const tirx_function *fn, tx_rt_function *kernel,
                         arg_set *s, size_t np, int repeat, const char *label, int cached) {
  tx_runtime *raw = tx_api_runtime(rt);
  float *ms = calloc((size_t)repeat, sizeof *ms);
  int rc = ms ? 0 : 4;
  for (int r = 0; rc == 0 && r < repeat; r++) {
    tx_rt_timer *t = NULL;
    tirx_error err = {0};
    tx_rt_error re = {0};
    if (tx_rt_timer_start(raw, NULL, &t, &re) != TIRX_OK ||
        tx_api_function_launch(fn, kernel, s->args, np, NULL, &err) != TIRX_OK ||
        tx_rt_timer_stop(raw, t, NULL, &ms[r], &re) != TIRX_OK) {
      fprintf(stderr, "tirxc run: timing failed: %s%s\n", err.message, re.message);
      rc = 1;
    }
  }
  if (rc == 0) {
    qsort(ms, (size_t)repeat, sizeof *ms, cmp_float);
    printf("%s: median %.3f us over %d launches%s\n", label, ms[repeat / 2] * 1000.0, repeat,
           cached ? " (compiled from cache)" : "");
  }
  free(ms);
  return rc;
}

/* The other build's kernel: IMAGE[:KERNEL], the kernel named as tirx-c's
 * when KERNEL is left out. */
static int load_other(tx_runtime *raw, const char *spec, const tirx_function *fn,
                      tx_rt_module **mod, tx_rt_function **kernel) {
  char path[4096];
  const char *colon = strrchr(spec, ':');
  size_t plen = colon ? (size_t)(colon - spec) : strlen(spec);
  const char *name = colon ? colon + 1 : tx_api_function_kernel(fn);
  if (plen >= sizeof path || !name || !*name) {
    fprintf(stderr, "tirxc run: --compare takes IMAGE[:KERNEL] (a cubin or PTX file)\n");
    return 2;
  }
  memcpy(path, spec, plen);
  path[plen] = '\0';
  tx_strbuf img = {0};
  int e = tx_sb_read_file(&img, path);
  const char *data = e ? NULL : tx_sb_cstr(&img);
  if (!data) {
    fprintf(stderr, "tirxc run: cannot read '%s': %s\n", path, strerror(e ? e : ENOMEM));
    tx_sb_free(&img);
    return e == ENOMEM ? 4 : 5;
  }
  tx_rt_error re = {0};
  int rc = 0;
  if (tx_rt_module_load(raw, data, img.len + 1, mod, &re) != TIRX_OK ||
      tx_rt_get_function(raw, *mod, name, kernel, &re) != TIRX_OK) {
    fprintf(stderr, "tirxc run: %s: %s\n", path, re.message);
    rc = 1;
  }
  tx_sb_free(&img);
  return rc;
}

/* Run, then compare every buffer of `ours` with `theirs`; 0 when all agree. */
static int compare_runs(const run_opts *o, const tirx_param_info *pi, size_t np,
                        const arg_set *ours, const arg_set *theirs) {
  int bad = 0;
  for (size_t i = 0; i < np; i++)
    if (pi[i].kind == TIRX_ARG_TENSOR)
      bad |= tirxc_compare_buffer(stdout, pi[i].name, pi[i].dtype, ours->host[i], theirs->host[i],
                                  ours->bytes[i], o->atol);
  printf("compare: %s\n", bad ? "MISMATCH" : "all buffers agree");
  return bad ? 1 : 0;
}

static int run_loaded(const run_opts *o, tirx_runtime *rt, const tirx_executable *exe,
                      const tirx_function *fn, const char *func) {
  tx_runtime *raw = tx_api_runtime(rt);
  size_t np = tirx_executable_param_count(exe, func);
  if (np > MAX_PARAMS) {
    fprintf(stderr, "tirxc run: %s has more than %d parameters\n", func, MAX_PARAMS);
    return 2;
  }
  tirx_param_info pi[MAX_PARAMS];
  for (size_t i = 0; i < np; i++)
    tirx_executable_param(exe, func, i, &pi[i]);
  static arg_set ours, theirs; /* large; one run per process */
  memset(&ours, 0, sizeof ours);
  memset(&theirs, 0, sizeof theirs);
  tx_rt_module *other_mod = NULL;
  tx_rt_function *other = NULL;
  int rc = make_host_args(o, pi, np, &ours);
  if (rc == 0 && o->compare) rc = load_other(raw, o->compare, fn, &other_mod, &other);
  if (rc == 0 && o->compare) rc = copy_host_args(&ours, np, &theirs);
  if (rc == 0) rc = upload(raw, np, &ours);
  if (rc == 0 && o->compare) rc = upload(raw, np, &theirs);
  /* A build that faults spoils the context for the other: --compare-first
   * says which one is tried first. */
  if (rc == 0 && o->compare_first) rc = launch(rt, fn, other, &theirs, np);
  if (rc == 0) rc = launch(rt, fn, NULL, &ours, np);
  if (rc == 0 && o->compare && !o->compare_first) rc = launch(rt, fn, other, &theirs, np);
  if (rc == 0) rc = download(raw, np, &ours);
  if (rc == 0 && o->compare) rc = download(raw, np, &theirs);
  if (rc == 0) print_checksums(pi, np, &ours);
  int cmp = rc == 0 && o->compare ? compare_runs(o, pi, np, &ours, &theirs) : 0;
  int cached = tirx_executable_from_cache(exe);
  if (rc == 0) rc = time_launches(rt, fn, NULL, &ours, np, o->repeat, func, cached);
  if (rc == 0 && o->compare)
    rc = time_launches(rt, fn, other, &theirs, np, o->repeat, "compare", 0);
  free_args(raw, np, &ours);
  if (o->compare) free_args(raw, np, &theirs);
  tx_rt_module_unload(raw, other_mod);
  return rc ? rc : cmp;
}

int tirxc_run_main(int argc, char **argv) {
  run_opts o;
  int rc = parse_opts(argc, argv, &o);
  if (rc) return rc;
  /* The file before the GPU: a missing file is the error to report even on
   * a machine without one. */
  tx_strbuf text = {0};
  int read_err = tx_sb_read_file(&text, o.file);
  if (read_err) {
    fprintf(stderr, "tirxc run: cannot read '%s': %s\n", o.file, strerror(read_err));
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
  tirx_compile_options co;
  tirx_compile_options_init(&co);
  co.arch = o.arch ? o.arch : tirx_runtime_arch(rt);
  co.opt_level = o.opt;
  co.disk_cache = 1;
  tirx_executable *exe = NULL;
  tirx_status st = tirx_compile(o.file, text.data, text.len, &co, &exe, &err);
  tx_sb_free(&text);
  tirx_loaded *lm = NULL;
  tirx_function *fn = NULL;
  const char *func = o.func;
  if (st != TIRX_OK) {
    fprintf(stderr, "%s\n", err.message);
    rc = (int)st;
  } else if (!func && !(func = tirx_executable_func_name(exe, 0))) {
    fprintf(stderr, "tirxc run: %s has no callable function\n", o.file);
    rc = 1;
  } else if (tirx_runtime_load(rt, exe, &lm, &err) != TIRX_OK ||
             tirx_loaded_function(lm, func, &fn, &err) != TIRX_OK) {
    fprintf(stderr, "tirxc run: %s\n", err.message);
    rc = 1;
  } else {
    rc = run_loaded(&o, rt, exe, fn, func);
  }
  tirx_loaded_free(lm);
  tirx_executable_free(exe);
  tirx_runtime_close(rt);
  return rc;
}
