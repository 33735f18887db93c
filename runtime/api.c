/*
 * api.c - the runtime half of the public API (tirx.h): runtimes, loaded
 * executables and calls. A call runs its function's launch program
 * (runtime/launch_run.h): the argument checks, then each kernel launch in
 * order, with tensor maps encoded through the driver.
 *
 * Part of libtirx_rt: no compiler here (the compile half of the API is
 * driver/api_compile.c).
 */
#include <stdio.h>
#include <string.h>

#include "support/error.h"
#include "support/mem.h"
#include "runtime/api_internal.h"
#include "runtime/launch_run.h"
#include "runtime/runtime.h"

struct tirx_runtime {
  tx_runtime *rt;
  /* A copy of the runtime's: this handle and loaded executables come from
   * it, and rt may outlive the handle (exported tensors hold it). */
  tirx_allocator alloc;
};

tx_runtime *tx_api_runtime(tirx_runtime *rt) {
  return rt->rt;
}

struct tirx_function {
  tirx_loaded *owner;
  const tx_lp_func *f;
  tx_rt_function **kernels; /* one per launch; NULL entries without device code */
};

struct tirx_loaded {
  tirx_runtime *rt;
  const tirx_executable *exe;
  tx_rt_module *module;
  tirx_function *fns;
};

static tirx_status from_rt(tirx_error *err, tirx_status st, const tx_rt_error *e) {
  return st == TIRX_OK ? st : tx_error_set(err, st, "%s", e->message);
}

/* ---- runtimes ------------------------------------------------------------------------ */

void tirx_runtime_options_init(tirx_runtime_options *o) {
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
}

tirx_status tirx_runtime_open_ex(const tirx_runtime_options *opts, tirx_runtime **out,
                                 tirx_error *err) {
  if (!out) return tx_error_set(err, TIRX_ERR_USAGE, "tirx_runtime_open: NULL out");
  *out = NULL;
  tirx_runtime_options o;
  tirx_runtime_options_init(&o);
  if (opts) memcpy(&o, opts, opts->size < sizeof o ? opts->size : sizeof o);
  tirx_runtime *r = tx_mem_calloc(o.allocator, 1, sizeof *r);
  if (!r) return tx_error_set(err, TIRX_ERR_NOMEM, "out of memory");
  if (o.allocator) r->alloc = *o.allocator;
  tx_rt_error e = {0};
  tirx_status st = tx_rt_open_alloc(o.driver_library, o.ordinal, o.allocator, &r->rt, &e);
  if (st != TIRX_OK) {
    tx_mem_free(o.allocator, r);
    return from_rt(err, st, &e);
  }
  *out = r;
  return TIRX_OK;
}

tirx_status tirx_runtime_open_with(const char *driver_library, int ordinal, tirx_runtime **out,
                                   tirx_error *err) {
  tirx_runtime_options o;
  tirx_runtime_options_init(&o);
  o.driver_library = driver_library;
  o.ordinal = ordinal;
  return tirx_runtime_open_ex(&o, out, err);
}

tirx_status tirx_runtime_open(int ordinal, tirx_runtime **out, tirx_error *err) {
  return tirx_runtime_open_with(NULL, ordinal, out, err);
}

void tirx_runtime_close(tirx_runtime *rt) {
  if (!rt) return;
  tirx_allocator a = rt->alloc;
  tx_rt_close(rt->rt);
  tx_mem_free(&a, rt);
}

const char *tirx_runtime_arch(const tirx_runtime *rt) {
  return rt ? tx_rt_arch(rt->rt) : NULL;
}

tirx_status tirx_runtime_synchronize(tirx_runtime *rt, void *stream, tirx_error *err) {
  if (!rt) return tx_error_set(err, TIRX_ERR_USAGE, "tirx_runtime_synchronize: NULL runtime");
  tx_rt_error e = {0};
  return from_rt(err, tx_rt_synchronize(rt->rt, stream, &e), &e);
}

/* ---- loading -------------------------------------------------------------------------- */

void tirx_loaded_free(tirx_loaded *lm) {
  if (!lm) return;
  const tirx_allocator *a = &lm->rt->alloc; /* the runtime is still open */
  if (lm->module) tx_rt_module_unload(lm->rt->rt, lm->module);
  for (uint32_t i = 0; lm->fns && i < lm->exe->prog->nfuncs; i++)
    tx_mem_free(a, (void *)lm->fns[i].kernels);
  tx_mem_free(a, lm->fns);
  tx_mem_free(a, lm);
}

/* Resolve fn's kernels now, so that a call does no lookups. */
static tirx_status resolve_kernels(tirx_loaded *lm, tirx_function *fn, tx_rt_error *e) {
  const tx_lp_func *f = fn->f;
  if (f->why || !lm->module || f->nlaunches == 0) return TIRX_OK;
  fn->kernels = tx_mem_calloc(&lm->rt->alloc, f->nlaunches, sizeof *fn->kernels);
  if (!fn->kernels) {
    snprintf(e->message, sizeof e->message, "out of memory");
    return e->code = TIRX_ERR_NOMEM;
  }
  for (uint32_t k = 0; k < f->nlaunches; k++) {
    tirx_status st =
        tx_rt_get_function(lm->rt->rt, lm->module, f->launches[k].kernel, &fn->kernels[k], e);
    if (st != TIRX_OK) return st;
  }
  return TIRX_OK;
}

/* The image of exe that the device (architecture `device`) runs, or NULL
 * with the reason in e. An executable with one image hands it to the driver
 * whatever it is for: the driver's JIT error, attached to the message, is
 * the precise one. */
static const tx_api_image *pick_image(const tirx_executable *exe, const char *device,
                                      tx_rt_error *e) {
  if (exe->nimages == 1) return &exe->images[0];
  const tx_api_image *best = NULL;
  for (uint32_t i = 0; i < exe->nimages; i++) {
    const tx_api_image *im = &exe->images[i];
    if (strcmp(im->arch, device) == 0) return im;
    if (tx_arch_runs_on(im->arch, device) &&
        (!best || tx_arch_sm(im->arch) > tx_arch_sm(best->arch)))
      best = im;
  }
  if (best) return best;
  int n = snprintf(e->message, sizeof e->message,
                   "no device code for this device (%s) in the executable; it has", device);
  for (uint32_t i = 0; i < exe->nimages && n > 0 && (size_t)n < sizeof e->message; i++)
    n += snprintf(e->message + n, sizeof e->message - (size_t)n, "%s %s", i ? "," : "",
                  exe->images[i].arch);
  e->code = TIRX_ERR_USAGE;
  return NULL;
}

tirx_status tirx_runtime_load(tirx_runtime *rt, const tirx_executable *exe, tirx_loaded **out,
                              tirx_error *err) {
  if (!rt || !exe || !out)
    return tx_error_set(err, TIRX_ERR_USAGE, "tirx_runtime_load: NULL argument");
  *out = NULL;
  uint32_t n = exe->prog->nfuncs;
  tirx_loaded *lm = tx_mem_calloc(&rt->alloc, 1, sizeof *lm);
  if (lm) lm->fns = tx_mem_calloc(&rt->alloc, n ? n : 1, sizeof *lm->fns);
  if (!lm || !lm->fns) {
    tx_mem_free(&rt->alloc, lm);
    return tx_error_set(err, TIRX_ERR_NOMEM, "out of memory");
  }
  lm->rt = rt;
  lm->exe = exe;
  tx_rt_error e = {0};
  tirx_status st = TIRX_OK;
  const tx_api_image *im = pick_image(exe, tx_rt_arch(rt->rt), &e);
  if (!im)
    st = e.code;
  else if (im->ptx_len > 0)
    st = tx_rt_module_load(rt->rt, im->ptx, im->ptx_len + 1, &lm->module, &e);
  for (uint32_t i = 0; st == TIRX_OK && i < n; i++) {
    lm->fns[i] = (tirx_function){.owner = lm, .f = &exe->prog->funcs[i]};
    st = resolve_kernels(lm, &lm->fns[i], &e);
  }
  if (st != TIRX_OK) {
    tirx_loaded_free(lm);
    return from_rt(err, st, &e);
  }
  *out = lm;
  return TIRX_OK;
}

tirx_status tirx_loaded_function(tirx_loaded *lm, const char *name, tirx_function **out,
                                 tirx_error *err) {
  if (!lm || !name || !out)
    return tx_error_set(err, TIRX_ERR_USAGE, "tirx_loaded_function: NULL argument");
  *out = NULL;
  for (uint32_t i = 0; i < lm->exe->prog->nfuncs; i++) {
    tirx_function *fn = &lm->fns[i];
    if (strcmp(fn->f->name, name) != 0) continue;
    if (fn->f->why)
      return tx_error_set(err, TIRX_ERR_USAGE, "function '%s' cannot be called: %s", name,
                          fn->f->why);
    *out = fn;
    return TIRX_OK;
  }
  return tx_error_set(err, TIRX_ERR_USAGE, "no function '%s' in %s", name, lm->exe->name);
}

/* ---- calls ------------------------------------------------------------------------------ */

typedef struct call_ctx {
  const tirx_function *fn;
  tx_rt_function *override; /* tirxc run --compare's kernel, or NULL */
  void *stream;
} call_ctx;

/* The program's encode hook: the runtime owns the driver. */
static tirx_status encode_tensormap(void *user, const tx_tensormap_values *v, void *map, char *msg,
                                    size_t cap) {
  const call_ctx *c = user;
  tx_rt_error e = {0};
  tirx_status st = tx_rt_tensormap_encode(c->fn->owner->rt->rt, v, map, &e);
  if (st != TIRX_OK) snprintf(msg, cap, "%s", e.message);
  return st;
}

/* The program's launch hook: one kernel through cuLaunchKernelEx. */
static tirx_status launch_kernel(void *user, const tx_lp_launch_values *v, char *msg, size_t cap) {
  const call_ctx *c = user;
  tx_rt_launch cfg = {.dyn_shared_bytes = v->dyn_shared_bytes, .stream = c->stream};
  memcpy(cfg.grid, v->grid, sizeof cfg.grid);
  memcpy(cfg.block, v->block, sizeof cfg.block);
  memcpy(cfg.cluster, v->cluster, sizeof cfg.cluster);
  tx_rt_function *k = c->override ? c->override : c->fn->kernels[v->index];
  tx_rt_error e = {0};
  tirx_status st = tx_rt_launch_kernel(c->fn->owner->rt->rt, k, &cfg, v->params, &e);
  if (st != TIRX_OK) snprintf(msg, cap, "%s", e.message);
  return st;
}

tirx_status tx_api_function_launch(const tirx_function *fn, tx_rt_function *kernel,
                                   const tirx_arg *args, size_t n, void *stream, tirx_error *err) {
  if (!fn || (!args && n))
    return tx_error_set(err, TIRX_ERR_USAGE, "tirx_function_call: NULL argument");
  if (kernel && fn->f->nlaunches != 1)
    return tx_error_set(err, TIRX_ERR_USAGE, "%s launches %u kernels: no single kernel to replace",
                        fn->f->name, fn->f->nlaunches);
  call_ctx c = {fn, kernel, stream};
  /* Without device code nothing is launched, so the maps are only checked. */
  int device = fn->kernels != NULL;
  tx_lp_hooks hooks = {device ? encode_tensormap : NULL, device ? launch_kernel : NULL, &c};
  char msg[sizeof err->message];
  tirx_status st = tx_lp_run(fn->f, &fn->owner->exe->alloc, args, n, &hooks, msg, sizeof msg);
  if (st == TIRX_OK) return st;
  tx_error_set(err, st, "%s", msg);
  if (err && fn->f->def_file)
    err->span = (tirx_span){fn->f->def_file, fn->f->def_line, fn->f->def_col, fn->f->def_line,
                            fn->f->def_col};
  return st;
}

const char *tx_api_function_kernel(const tirx_function *fn) {
  return fn && fn->f->nlaunches == 1 ? fn->f->launches[0].kernel : NULL;
}

tirx_status tirx_function_call(const tirx_function *fn, const tirx_arg *args, size_t n,
                               void *stream, tirx_error *err) {
  return tx_api_function_launch(fn, NULL, args, n, stream, err);
}
