/*
 * api.c - the public compile/load/run API of tirx.h: executables (lowered
 * host launchers + PTX), compiling through the cache, saving and loading,
 * runtimes, loaded executables and calls.
 *
 * An executable is always built the same way, whether just compiled, read
 * from the cache or loaded from a file: from its container parts, by
 * re-parsing the lowered TVMScript with the frontend and compiling each
 * host function into a launcher. One path means a cached or saved
 * executable cannot behave differently from a fresh one.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/cuda/codegen.h"
#include "ir/context.h"
#include "support/file.h"
#include "support/mem.h"
#include "ir/printer.h"
#include "driver/compile.h"
#include "runtime/api_internal.h"
#include "runtime/cache.h"
#include "runtime/launcher.h"
#include "runtime/runtime.h"
#include "runtime/tensor.h"

typedef struct exe_func {
  const tx_func *f;
  tirx_span def;         /* where the function was written (the source map); line 0: unknown */
  char *def_file;        /* owned: def.file */
  tx_launcher *launcher; /* NULL when the function cannot be run; why says so */
  char why[256];
} exe_func;

struct tirx_executable {
  tirx_allocator alloc; /* everything below, the context and calls' scratch memory */
  char *arch, *name, *lowered, *ptx, *kernel_info; /* kernel_info also holds the source map */
  size_t lowered_len, ptx_len, kernel_info_len;
  tirx_ctx *ctx; /* owns the re-parsed lowered module */
  const tx_module *mod;
  exe_func *funcs;
  size_t nfuncs;
  int from_cache;
};

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
  const exe_func *ef;
  tx_rt_function *kernel; /* NULL for a host-only executable */
  uint32_t cluster[3];
};

struct tirx_loaded {
  tirx_runtime *rt;
  const tirx_executable *exe;
  tx_rt_module *module;
  tirx_function *fns;
};

/* ---- errors ------------------------------------------------------------------- */

static tirx_status set_err(tirx_error *err, tirx_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static tirx_status set_err(tirx_error *err, tirx_status code, const char *fmt, ...) {
  if (err) {
    memset(&err->span, 0, sizeof err->span);
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}

static tirx_status from_rt(tirx_error *err, tirx_status st, const tx_rt_error *e) {
  return st == TIRX_OK ? st : set_err(err, st, "%s", e->message);
}

/* The first error diagnostic of ctx (or a generic message). */
static tirx_status from_diags(tirx_error *err, tirx_status st, const tirx_ctx *ctx,
                              const char *file) {
  if (!err) return st;
  size_t n = tirx_diag_count(ctx);
  for (size_t i = 0; i < n; i++) {
    tirx_diagnostic d;
    if (tirx_diag_get(ctx, i, &d) != TIRX_OK || d.severity != TIRX_SEV_ERROR) continue;
    if (d.span.line)
      set_err(err, st, "%s:%u:%u: %s", file ? file : "<input>", d.span.line, d.span.col, d.message);
    else
      set_err(err, st, "%s", d.message); /* no place to name ("out of memory") */
    err->span = d.span;
    /* The context's file string dies with the context; the caller's lives on. */
    err->span.file = file;
    return st;
  }
  return set_err(err, st, "compilation failed (%s)", tirx_status_name(st));
}

/* ---- executables ----------------------------------------------------------------- */

static char *dup_n(tirx_executable *exe, const char *s, size_t n) {
  return tx_mem_strndup(&exe->alloc, s, n);
}

void tirx_executable_free(tirx_executable *exe) {
  if (!exe) return;
  tirx_allocator a = exe->alloc; /* exe itself is freed last */
  for (size_t i = 0; i < exe->nfuncs; i++) {
    tx_launcher_free(exe->funcs[i].launcher);
    tx_mem_free(&a, exe->funcs[i].def_file);
  }
  tx_mem_free(&a, exe->funcs);
  tirx_ctx_destroy(exe->ctx);
  tx_mem_free(&a, exe->arch);
  tx_mem_free(&a, exe->name);
  tx_mem_free(&a, exe->lowered);
  tx_mem_free(&a, exe->ptx);
  tx_mem_free(&a, exe->kernel_info);
  tx_mem_free(&a, exe);
}

static int is_packed(const tx_func *f) {
  for (uint32_t a = 0; a < f->nattrs; a++)
    if (strcmp(f->attr_keys[a], "tirx.packed_api") == 0) return 1;
  return 0;
}

/* The source map: "@src FUNC LINE COL FILE" lines in kernel_info say where
 * each packed function was written, so argument errors at run time carry the
 * span of the kernel's definition. TIRX_ERR_NOMEM when a name cannot be
 * copied. */
typedef struct tx_src_entry {
  const char *name, *file;
  size_t name_len, file_len;
  uint32_t line, col;
} tx_src_entry;

/* Parses one "@src FUNC LINE COL FILE" line (without its newline) of
 * line[0..n): 1 with the parts set, 0 for anything else. FILE is the rest
 * of the line and may hold spaces; it is never empty. Bounded by n
 * throughout: kernel_info comes from a file and may be damaged. */
static int parse_src_line(const char *line, size_t n, tx_src_entry *e) {
  const char *end = line + n, *p = line + 5;
  if (n < 5 || memcmp(line, "@src ", 5) != 0) return 0;
  const char *name = p;
  while (p < end && *p != ' ')
    p++;
  e->name = name;
  e->name_len = (size_t)(p - name);
  unsigned long v[2];
  for (int k = 0; k < 2; k++) {
    if (p >= end || *p++ != ' ' || p >= end || *p < '0' || *p > '9') return 0;
    v[k] = 0;
    while (p < end && *p >= '0' && *p <= '9' && v[k] <= UINT32_MAX)
      v[k] = v[k] * 10 + (unsigned long)(*p++ - '0');
    if (v[k] > UINT32_MAX) return 0;
  }
  if (p >= end || *p++ != ' ' || p >= end || e->name_len == 0) return 0;
  e->line = (uint32_t)v[0];
  e->col = (uint32_t)v[1];
  e->file = p;
  e->file_len = (size_t)(end - p);
  return 1;
}

static tirx_status read_source_map(tirx_executable *exe) {
  const char *p = exe->kernel_info, *end = p ? p + exe->kernel_info_len : NULL;
  while (p && p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    size_t n = (size_t)((eol ? eol : end) - p);
    tx_src_entry e;
    if (parse_src_line(p, n, &e))
      for (size_t i = 0; i < exe->nfuncs; i++) {
        exe_func *ef = &exe->funcs[i];
        const char *fname = ef->f->name;
        if (ef->def_file || strlen(fname) != e.name_len || memcmp(fname, e.name, e.name_len))
          continue;
        ef->def_file = dup_n(exe, e.file, e.file_len);
        if (!ef->def_file) return TIRX_ERR_NOMEM;
        ef->def = (tirx_span){ef->def_file, e.line, e.col, e.line, e.col};
      }
    p = eol ? eol + 1 : end;
  }
  return TIRX_OK;
}

/* A file name the source map can hold: not empty, one line. */
static int src_file_fits(const char *file) {
  return file && *file && !strchr(file, '\n');
}

/* The executable of `p`, allocated through `alloc` (NULL: malloc). */
static tirx_status exe_from_parts(const tx_exe_parts *p, const tirx_allocator *alloc,
                                  tirx_executable **out, tirx_error *err) {
  *out = NULL;
  tirx_executable *exe = tx_mem_calloc(alloc, 1, sizeof *exe);
  if (!exe) return set_err(err, TIRX_ERR_NOMEM, "out of memory");
  if (alloc) exe->alloc = *alloc;
  exe->arch = dup_n(exe, p->arch, strlen(p->arch));
  exe->name = dup_n(exe, p->name, strlen(p->name));
  exe->lowered = dup_n(exe, p->lowered, p->lowered_len);
  exe->lowered_len = p->lowered_len;
  exe->ptx = dup_n(exe, p->ptx ? p->ptx : "", p->ptx_len);
  exe->ptx_len = p->ptx_len;
  exe->kernel_info = dup_n(exe, p->kernel_info ? p->kernel_info : "", p->kernel_info_len);
  exe->kernel_info_len = p->kernel_info_len;
  tirx_status st = TIRX_OK;
  if (!exe->arch || !exe->name || !exe->lowered || !exe->ptx || !exe->kernel_info)
    st = TIRX_ERR_NOMEM;
  if (st == TIRX_OK) st = tirx_ctx_create_with(&exe->alloc, &exe->ctx);
  tirx_module *m = NULL;
  /* An empty host section: a module without callable functions (only
   * private ones), an executable with no functions. */
  if (st == TIRX_OK && exe->lowered_len > 0) {
    st = tirx_parse_string(exe->ctx, exe->name, exe->lowered, exe->lowered_len, &m);
    if (st == TIRX_OK) {
      exe->mod = m->mod;
    } else if (st != TIRX_ERR_NOMEM) {
      from_diags(err, st, exe->ctx, NULL);
      if (err)
        snprintf(err->message, sizeof err->message, "%s: the lowered module does not re-parse",
                 exe->name);
      tirx_executable_free(exe);
      return st;
    }
  }
  uint32_t nmod = exe->mod ? exe->mod->nfuncs : 0;
  if (st == TIRX_OK) {
    exe->funcs = tx_mem_calloc(&exe->alloc, nmod ? nmod : 1, sizeof *exe->funcs);
    if (!exe->funcs) st = TIRX_ERR_NOMEM;
  }
  for (uint32_t i = 0; st == TIRX_OK && i < nmod; i++) {
    const tx_func *f = exe->mod->funcs[i];
    if (!is_packed(f)) continue;
    exe_func *ef = &exe->funcs[exe->nfuncs++];
    ef->f = f;
    tirx_status ls =
        tx_launcher_build(&exe->alloc, exe->mod, f, &ef->launcher, ef->why, sizeof ef->why);
    if (ls == TIRX_ERR_NOMEM) st = ls;
  }
  if (st == TIRX_OK) st = read_source_map(exe);
  if (st != TIRX_OK) {
    tirx_executable_free(exe);
    if (st == TIRX_ERR_NOMEM) return set_err(err, st, "out of memory");
    return set_err(err, st, "cannot build the executable: %s", tirx_status_name(st));
  }
  *out = exe;
  return TIRX_OK;
}

static tirx_status exe_from_bytes(const char *data, size_t len, const char *what,
                                  const tirx_allocator *alloc, tirx_executable **out,
                                  tirx_error *err) {
  tx_exe_parts p;
  char why[256];
  tirx_status st = tx_exe_deserialize(data, len, &p, why, sizeof why);
  if (st != TIRX_OK) return set_err(err, st, "%s: %s", what, why);
  return exe_from_parts(&p, alloc, out, err);
}

static tirx_status exe_serialize(const tirx_executable *exe, tx_strbuf *out) {
  tx_exe_parts p = {exe->arch, exe->name,    exe->lowered,     exe->lowered_len,
                    exe->ptx,  exe->ptx_len, exe->kernel_info, exe->kernel_info_len};
  return tx_exe_serialize(&p, out);
}

size_t tirx_executable_func_count(const tirx_executable *exe) {
  return exe ? exe->nfuncs : 0;
}
const char *tirx_executable_func_name(const tirx_executable *exe, size_t i) {
  return exe && i < exe->nfuncs ? exe->funcs[i].f->name : NULL;
}
const char *tirx_executable_arch(const tirx_executable *exe) {
  return exe ? exe->arch : NULL;
}
const char *tirx_executable_ptx(const tirx_executable *exe, size_t *len) {
  if (len) *len = exe ? exe->ptx_len : 0;
  return exe ? exe->ptx : NULL;
}
int tirx_executable_from_cache(const tirx_executable *exe) {
  return exe && exe->from_cache;
}

static const exe_func *find_func(const tirx_executable *exe, const char *name) {
  for (size_t i = 0; exe && name && i < exe->nfuncs; i++)
    if (strcmp(exe->funcs[i].f->name, name) == 0) return &exe->funcs[i];
  return NULL;
}

size_t tirx_executable_param_count(const tirx_executable *exe, const char *func) {
  const exe_func *ef = find_func(exe, func);
  return ef ? ef->f->nparams : 0;
}

/* The buffer a parameter stands for: its T.Buffer, or the buffer matched on
 * it by a top-level T.match_buffer. */
static const tx_buffer *param_buffer(const tx_func *f, uint32_t i) {
  if (f->param_bufs && f->param_bufs[i]) return f->param_bufs[i];
  const tx_stmt *body = f->body;
  if (!body) return NULL;
  const tx_stmt *const *items = body->kind == STMT_SEQ ? body->stmts : &f->body;
  uint32_t n = body->kind == STMT_SEQ ? body->nstmts : 1;
  for (uint32_t k = 0; k < n; k++)
    if (items[k]->kind == STMT_DECL && items[k]->buffer && items[k]->buffer->form == BUF_MATCH &&
        items[k]->buffer->origin == f->params[i])
      return items[k]->buffer;
  return NULL;
}

tirx_status tirx_executable_param(const tirx_executable *exe, const char *func, size_t i,
                                  tirx_param_info *out) {
  const exe_func *ef = find_func(exe, func);
  if (!ef || !out || i >= ef->f->nparams) return TIRX_ERR_USAGE;
  memset(out, 0, sizeof *out);
  const tx_func *f = ef->f;
  const tx_buffer *b = param_buffer(f, (uint32_t)i);
  const tx_expr *p = f->params[i];
  if (b) {
    out->name = p->u.var.name;
    out->kind = TIRX_ARG_TENSOR;
    tx_dl_from_tx_dtype(b->dtype, &out->dtype);
    out->ndim = (int32_t)(b->ndim < 8 ? b->ndim : 8);
    for (int32_t d = 0; d < out->ndim; d++) {
      const tx_expr *e = b->shape[d];
      out->shape[d] = e->kind == EXPR_INT ? e->u.ival : -1;
      out->dim_names[d] = e->kind == EXPR_VAR ? e->u.var.name : NULL;
    }
    return TIRX_OK;
  }
  out->name = p->u.var.name;
  out->kind = p->dtype.code == DT_HANDLE    ? TIRX_ARG_HANDLE
              : tx_dtype_is_float(p->dtype) ? TIRX_ARG_FLOAT
                                            : TIRX_ARG_INT;
  tx_dl_from_tx_dtype(p->dtype, &out->dtype);
  return TIRX_OK;
}

/* ---- compiling -------------------------------------------------------------------- */

void tirx_compile_options_init(tirx_compile_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  o->opt_level = 2;
}

/* Options with fields past opts->size defaulted (callers built against an
 * older, smaller struct). */
static void read_options(const tirx_compile_options *in, tirx_compile_options *o) {
  tirx_compile_options_init(o);
  if (in) {
    size_t n = in->size < sizeof *o ? in->size : sizeof *o;
    memcpy(o, in, n);
    o->size = sizeof *o;
  }
  if (!o->arch) o->arch = "sm_90a";
}

/* The toolkit's version.json (CUDA 11.1+) stands for the NVRTC version in
 * cache keys: reading one file is much cheaper than loading NVRTC. */
static void hash_toolkit(tx_hasher *h, const char *cuda_path, const tirx_allocator *alloc) {
  const char *root = cuda_path && cuda_path[0] ? cuda_path : getenv("CUDA_HOME");
  if (!root || !root[0]) root = "/usr/local/cuda";
  char path[4096];
  snprintf(path, sizeof path, "%s/version.json", root);
  char *data = NULL;
  size_t len = 0;
  tx_hash_str(h, root);
  /* Unreadable (or out of memory) hashes as missing: the key only decides
   * which entry is looked up, never what the compile produces. */
  if (tx_read_file(alloc, path, &data, &len) == 0) {
    tx_hash_field(h, data, len);
    tx_mem_free(alloc, data);
  } else {
    tx_hash_str(h, "no version.json");
  }
}

static tx_hash128 cache_key(const char *text, size_t len, const tirx_compile_options *o) {
  tx_hasher h;
  tx_hash_init(&h);
  tx_hash_str(&h, "tirx-executable");
  tx_hash_str(&h, tirx_version());
  uint32_t fv = TX_EXE_FORMAT_VERSION;
  tx_hash_field(&h, &fv, sizeof fv);
  tx_hash_field(&h, text, len);
  tx_hash_str(&h, o->arch);
  int32_t ol = o->opt_level, ho = o->host_only;
  tx_hash_field(&h, &ol, sizeof ol);
  tx_hash_field(&h, &ho, sizeof ho);
  for (size_t i = 0; i < o->num_disabled_passes; i++)
    tx_hash_str(&h, o->disabled_passes[i]);
  if (!o->host_only) hash_toolkit(&h, o->cuda_path, o->allocator);
  return tx_hash_final(&h);
}

/* A hit, or 0 for a miss. A lookup that runs out of memory is a miss too:
 * the compile then makes the same executable. */
static int cache_lookup(const tirx_compile_options *o, tx_hash128 key, tirx_executable **out) {
  const tirx_allocator *alloc = o->allocator;
  char *data = NULL;
  size_t len = 0;
  int found = o->cache && tx_cache_get(o->cache, key, alloc, &data, &len);
  int from_disk = 0;
  char dir[4096], hex[33], path[4200];
  tx_hash_hex(key, hex);
  if (!found && o->disk_cache && tx_cache_dir(o->cache_dir, dir, sizeof dir)) {
    snprintf(path, sizeof path, "%s/%s.tirxexe", dir, hex);
    found = from_disk = tx_read_file(alloc, path, &data, &len) == 0;
  }
  if (!found) return 0;
  /* A damaged entry is a miss: the compile below rewrites it. */
  tirx_status st = exe_from_bytes(data, len, "cache entry", alloc, out, NULL);
  if (st == TIRX_OK && from_disk && o->cache) tx_cache_put(o->cache, key, data, len);
  tx_mem_free(alloc, data);
  if (st != TIRX_OK) return 0;
  (*out)->from_cache = 1;
  return 1;
}

/* A store that fails (no memory, an unwritable directory) leaves the cache
 * as it was: the compile itself worked. */
static void cache_store(const tirx_compile_options *o, tx_hash128 key, const tirx_executable *exe) {
  if (!o->cache && !o->disk_cache) return;
  tx_strbuf sb = {.alloc = o->allocator};
  if (exe_serialize(exe, &sb) == TIRX_OK) {
    if (o->cache) tx_cache_put(o->cache, key, sb.data, sb.len);
    char dir[4096], hex[48]; /* 32 hex digits + ".tirxexe" + NUL */
    if (o->disk_cache && tx_cache_dir(o->cache_dir, dir, sizeof dir)) {
      tx_hash_hex(key, hex);
      strcat(hex, ".tirxexe");
      /* A cache that cannot be written is not an error: the compile worked. */
      (void)tx_write_atomic(dir, hex, sb.data, sb.len);
    }
  }
  tx_sb_free(&sb);
}

/* Pipeline, printing, codegen and NVRTC as tx_compile_module does, but
 * keeping both the lowered text and the PTX from one pipeline run. */
static tirx_status compile_parts(tirx_ctx *ctx, const tx_module *m, const tirx_compile_options *o,
                                 tx_strbuf *lowered_text, tx_strbuf *kernel_info, tx_strbuf *ptx,
                                 tirx_error *err) {
  tx_target target = {0};
  if (!tx_target_from_arch(o->arch, &target))
    return set_err(err, TIRX_ERR_USAGE, "unknown architecture '%s' (supported: %s)", o->arch,
                   tx_target_arch_list());
  if (o->opt_level < 0 || o->opt_level > 3)
    return set_err(err, TIRX_ERR_USAGE, "opt_level must be 0..3, got %d", o->opt_level);
  target.opt_level = o->opt_level;
  tx_pipeline_options po = {0};
  for (size_t i = 0; i < o->num_disabled_passes; i++) {
    int id = tx_pass_lookup(o->disabled_passes[i]);
    if (id < 0)
      return set_err(err, TIRX_ERR_USAGE, "unknown pass '%s' in disabled_passes",
                     o->disabled_passes[i]);
    po.disabled[id] = 1;
  }
  tx_pass_ctx pc = {.ir = &ctx->ir, .diags = ctx->diags, .target = &target};
  const tx_module *lowered = NULL;
  tirx_status st = tx_run_pipeline(&pc, &po, m, &lowered);
  if (st != TIRX_OK) return st;
  const tirx_allocator *alloc = tx_arena_allocator(ctx->arena);
  /* Only the host functions are kept as text: they are what the runtime
   * executes, and kernels (whose signatures name symbolic extents before
   * binding them) need not re-parse. Kernel launch facts that the host side
   * needs (the cluster shape) go into kernel_info, one line per kernel. */
  const tx_func **host = tx_mem_calloc(alloc, lowered->nfuncs, sizeof *host);
  if (!host) return TIRX_ERR_NOMEM;
  tx_module sub = *lowered;
  sub.nfuncs = 0;
  for (uint32_t i = 0; i < lowered->nfuncs; i++) {
    const tx_func *f = lowered->funcs[i];
    if (is_packed(f)) {
      host[sub.nfuncs++] = f;
      for (uint32_t k = 0; k < m->nfuncs; k++)
        if (m->funcs[k]->name == f->name && m->funcs[k]->span.line &&
            src_file_fits(m->funcs[k]->span.file))
          tx_sb_printf(kernel_info, "@src %s %u %u %s\n", f->name, m->funcs[k]->span.line,
                       m->funcs[k]->span.col, m->funcs[k]->span.file);
      continue;
    }
    uint32_t cl[3] = {0, 0, 0};
    for (uint32_t a = 0; a < f->nattrs; a++) {
      const tx_expr *v = f->attr_values[a];
      if (strcmp(f->attr_keys[a], "tirx.cluster") != 0 || v->kind != EXPR_TUPLE) continue;
      for (uint32_t d = 0; d < v->nops && d < 3; d++)
        if (v->ops[d]->kind == EXPR_INT) cl[d] = (uint32_t)v->ops[d]->u.ival;
    }
    if (cl[0] | cl[1] | cl[2])
      tx_sb_printf(kernel_info, "%s %u %u %u\n", f->name, cl[0], cl[1], cl[2]);
  }
  sub.funcs = (const tx_func *const *)host;
  /* No callable function (a module of private functions): an empty host
   * section, which loads as an executable without functions; printed, a
   * module without functions would not parse back. */
  if (sub.nfuncs) tx_print_module(&sub, lowered_text);
  tx_mem_free(alloc, (void *)host);
  if (lowered_text->failed || kernel_info->failed) return TIRX_ERR_NOMEM;
  if (o->host_only) return TIRX_OK;
  tx_strbuf cuda = {.alloc = alloc};
  tx_line_map map = {.alloc = alloc};
  st = tx_codegen_cuda(ctx->diags, lowered, &target, &cuda, &map);
  if (st == TIRX_OK && cuda.failed) st = TIRX_ERR_NOMEM;
  if (st == TIRX_OK) {
    tx_nvrtc_options no = {.cuda_path = o->cuda_path, .target = &target, .output = NVRTC_PTX};
    st = tx_nvrtc_compile(ctx->diags, cuda.data ? cuda.data : "", cuda.len, &map, &no, ptx, NULL);
    if (st == TIRX_OK && ptx->failed) st = TIRX_ERR_NOMEM;
  }
  tx_sb_free(&cuda);
  tx_line_map_free(&map);
  return st;
}

static tirx_status compile_common(tirx_ctx *ctx, const tx_module *m, const char *name,
                                  const tirx_compile_options *o, tirx_executable **out,
                                  tirx_error *err) {
  const tirx_allocator *alloc = tx_arena_allocator(ctx->arena);
  tx_strbuf lowered = {.alloc = alloc}, ptx = {.alloc = alloc}, kinfo = {.alloc = alloc};
  tx_diag_mark mark = tx_diag_mark_now(ctx->diags);
  tirx_status st = compile_parts(ctx, m, o, &lowered, &kinfo, &ptx, err);
  /* The pipeline settles its own allocation failures; codegen, NVRTC and
   * the steps between are settled here (see tx_diag_nomem_since). */
  if (st == TIRX_ERR_NOMEM || (st != TIRX_OK && tx_diag_oom_since(ctx->diags, mark))) {
    st = TIRX_ERR_NOMEM;
    tx_diag_nomem_since(ctx->diags, mark);
  }
  if (st != TIRX_OK && (!err || err->code != st)) from_diags(err, st, ctx, name);
  if (st == TIRX_OK) {
    tx_exe_parts p = {o->arch,
                      name,
                      lowered.data ? lowered.data : "",
                      lowered.len,
                      ptx.data ? ptx.data : "",
                      ptx.len,
                      kinfo.data ? kinfo.data : "",
                      kinfo.len};
    st = exe_from_parts(&p, o->allocator, out, err);
  }
  tx_sb_free(&kinfo);
  tx_sb_free(&lowered);
  tx_sb_free(&ptx);
  return st;
}

tirx_status tirx_compile(const char *name, const char *text, size_t len,
                         const tirx_compile_options *opts, tirx_executable **out, tirx_error *err) {
  if (out) *out = NULL;
  if (!out || !text) return set_err(err, TIRX_ERR_USAGE, "tirx_compile: NULL text or out");
  if (err) err->code = TIRX_OK;
  if (!name) name = "<string>";
  tirx_compile_options o;
  read_options(opts, &o);
  tx_hash128 key = cache_key(text, len, &o);
  if (cache_lookup(&o, key, out)) return TIRX_OK;
  tirx_ctx *ctx = NULL;
  tirx_status st = tirx_ctx_create_with(o.allocator, &ctx);
  if (st != TIRX_OK) return set_err(err, st, "out of memory");
  tirx_module *m = NULL;
  st = tirx_parse_string(ctx, name, text, len, &m);
  if (st != TIRX_OK)
    from_diags(err, st, ctx, name);
  else
    st = compile_common(ctx, m->mod, name, &o, out, err);
  tirx_ctx_destroy(ctx);
  if (st == TIRX_OK) cache_store(&o, key, *out);
  return st;
}

tirx_status tirx_compile_module(const tirx_module *mod, const tirx_compile_options *opts,
                                tirx_executable **out, tirx_error *err) {
  if (out) *out = NULL;
  if (!out || !mod) return set_err(err, TIRX_ERR_USAGE, "tirx_compile_module: NULL module or out");
  if (err) err->code = TIRX_OK;
  tirx_compile_options o;
  read_options(opts, &o);
  /* The key is the canonical text, so equal modules share entries. */
  tx_strbuf text = {.alloc = tx_arena_allocator(mod->ctx->arena)};
  tx_print_module(mod->mod, &text);
  if (text.failed) {
    tx_sb_free(&text);
    return set_err(err, TIRX_ERR_NOMEM, "out of memory");
  }
  tx_hash128 key = cache_key(text.data ? text.data : "", text.len, &o);
  tx_sb_free(&text);
  if (cache_lookup(&o, key, out)) return TIRX_OK;
  const char *name = mod->mod->name ? mod->mod->name : "<module>";
  tirx_status st = compile_common(mod->ctx, mod->mod, name, &o, out, err);
  if (st == TIRX_OK) cache_store(&o, key, *out);
  return st;
}

/* ---- save / load ------------------------------------------------------------------ */

tirx_status tirx_executable_save(const tirx_executable *exe, const char *path, tirx_error *err) {
  if (!exe || !path) return set_err(err, TIRX_ERR_USAGE, "tirx_executable_save: NULL argument");
  tx_strbuf sb = {.alloc = &exe->alloc};
  tirx_status st = exe_serialize(exe, &sb);
  if (st == TIRX_OK) {
    int e = tx_file_write(path, sb.data, sb.len, TX_WRITE_DEFAULT);
    if (e) st = set_err(err, TIRX_ERR_IO, "cannot write %s: %s", path, strerror(e));
  } else {
    set_err(err, st, "out of memory");
  }
  tx_sb_free(&sb);
  return st;
}

tirx_status tirx_executable_load(const char *path, tirx_executable **out, tirx_error *err) {
  return tirx_executable_load_with(path, NULL, out, err);
}

tirx_status tirx_executable_load_with(const char *path, const tirx_allocator *alloc,
                                      tirx_executable **out, tirx_error *err) {
  if (!out || !path) return set_err(err, TIRX_ERR_USAGE, "tirx_executable_load: NULL argument");
  *out = NULL;
  char *data = NULL;
  size_t len = 0;
  int e = tx_read_file(alloc, path, &data, &len);
  if (e == ENOMEM) return set_err(err, TIRX_ERR_NOMEM, "out of memory reading %s", path);
  if (e) return set_err(err, TIRX_ERR_IO, "cannot read %s", path);
  tirx_status st = exe_from_bytes(data, len, path, alloc, out, err);
  tx_mem_free(alloc, data);
  return st;
}

/* ---- runtime -------------------------------------------------------------------------- */

void tirx_runtime_options_init(tirx_runtime_options *o) {
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
}

tirx_status tirx_runtime_open_ex(const tirx_runtime_options *opts, tirx_runtime **out,
                                 tirx_error *err) {
  if (!out) return set_err(err, TIRX_ERR_USAGE, "tirx_runtime_open: NULL out");
  *out = NULL;
  tirx_runtime_options o;
  tirx_runtime_options_init(&o);
  if (opts) memcpy(&o, opts, opts->size < sizeof o ? opts->size : sizeof o);
  tirx_runtime *r = tx_mem_calloc(o.allocator, 1, sizeof *r);
  if (!r) return set_err(err, TIRX_ERR_NOMEM, "out of memory");
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
  if (!rt) return set_err(err, TIRX_ERR_USAGE, "tirx_runtime_synchronize: NULL runtime");
  tx_rt_error e = {0};
  return from_rt(err, tx_rt_synchronize(rt->rt, stream, &e), &e);
}

/* The cluster shape of kernel `name` from the executable's kernel info
 * ("name cx cy cz" lines); zeros when it has none. */
static void kernel_cluster(const tirx_executable *exe, const char *name, uint32_t out[3]) {
  out[0] = out[1] = out[2] = 0;
  size_t n = strlen(name);
  for (const char *p = exe->kernel_info; p && *p;) {
    const char *eol = strchr(p, '\n');
    if (strncmp(p, name, n) == 0 && p[n] == ' ') {
      unsigned x = 0, y = 0, z = 0;
      if (sscanf(p + n, "%u %u %u", &x, &y, &z) == 3) out[0] = x, out[1] = y, out[2] = z;
      return;
    }
    p = eol ? eol + 1 : NULL;
  }
}

void tirx_loaded_free(tirx_loaded *lm) {
  if (!lm) return;
  const tirx_allocator *a = &lm->rt->alloc; /* the runtime is still open */
  if (lm->module) tx_rt_module_unload(lm->rt->rt, lm->module);
  tx_mem_free(a, lm->fns);
  tx_mem_free(a, lm);
}

tirx_status tirx_runtime_load(tirx_runtime *rt, const tirx_executable *exe, tirx_loaded **out,
                              tirx_error *err) {
  if (!rt || !exe || !out) return set_err(err, TIRX_ERR_USAGE, "tirx_runtime_load: NULL argument");
  *out = NULL;
  tirx_loaded *lm = tx_mem_calloc(&rt->alloc, 1, sizeof *lm);
  if (!lm) return set_err(err, TIRX_ERR_NOMEM, "out of memory");
  lm->rt = rt;
  lm->exe = exe;
  lm->fns = tx_mem_calloc(&rt->alloc, exe->nfuncs, sizeof *lm->fns);
  if (!lm->fns) {
    tx_mem_free(&rt->alloc, lm);
    return set_err(err, TIRX_ERR_NOMEM, "out of memory");
  }
  tx_rt_error e = {0};
  tirx_status st = TIRX_OK;
  if (exe->ptx_len > 0) {
    /* A PTX for another architecture is left to the driver's JIT, whose
     * error (attached to the message) is the precise one. */
    st = tx_rt_module_load(rt->rt, exe->ptx, exe->ptx_len + 1, &lm->module, &e);
  }
  /* Kernels are resolved now so that a call does no lookups. */
  for (size_t i = 0; st == TIRX_OK && i < exe->nfuncs; i++) {
    tirx_function *fn = &lm->fns[i];
    fn->owner = lm;
    fn->ef = &exe->funcs[i];
    if (fn->ef->launcher && lm->module) {
      kernel_cluster(exe, tx_launcher_kernel(fn->ef->launcher), fn->cluster);
      st = tx_rt_get_function(rt->rt, lm->module, tx_launcher_kernel(fn->ef->launcher), &fn->kernel,
                              &e);
    }
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
    return set_err(err, TIRX_ERR_USAGE, "tirx_loaded_function: NULL argument");
  *out = NULL;
  for (size_t i = 0; i < lm->exe->nfuncs; i++) {
    tirx_function *fn = &lm->fns[i];
    if (strcmp(fn->ef->f->name, name) != 0) continue;
    if (!fn->ef->launcher)
      return set_err(err, TIRX_ERR_USAGE, "function '%s' cannot be called: %s", name, fn->ef->why);
    *out = fn;
    return TIRX_OK;
  }
  return set_err(err, TIRX_ERR_USAGE, "no function '%s' in %s", name, lm->exe->name);
}

/* The launcher's encode callback: the runtime owns the driver. */
static tirx_status encode_tensormap(void *user, const tx_tensormap_values *v, void *map, char *msg,
                                    size_t cap) {
  tx_rt_error e = {0};
  tirx_status st = tx_rt_tensormap_encode(user, v, map, &e);
  if (st != TIRX_OK) snprintf(msg, cap, "%s", e.message);
  return st;
}

tirx_status tx_api_function_launch(const tirx_function *fn, tx_rt_function *kernel,
                                   const tirx_arg *args, size_t n, void *stream, tirx_error *err) {
  if (!fn || (!args && n)) return set_err(err, TIRX_ERR_USAGE, "tirx_function_call: NULL argument");
  tx_launch_values v;
  char msg[sizeof err->message];
  /* Without device code nothing is launched, so the maps are only checked. */
  tirx_status st =
      tx_launcher_run(fn->ef->launcher, args, n, &v, fn->kernel ? encode_tensormap : NULL,
                      fn->kernel ? fn->owner->rt->rt : NULL, msg, sizeof msg);
  if (st != TIRX_OK) {
    set_err(err, st, "%s", msg);
    if (err) err->span = fn->ef->def;
    return st;
  }
  if (!fn->kernel)
    return set_err(err, TIRX_ERR_USAGE,
                   "%s: the executable has no device code (compiled host_only)", fn->ef->f->name);
  tx_rt_launch cfg = {.dyn_shared_bytes = v.dyn_shared_bytes, .stream = stream};
  memcpy(cfg.grid, v.grid, sizeof cfg.grid);
  memcpy(cfg.block, v.block, sizeof cfg.block);
  memcpy(cfg.cluster, fn->cluster, sizeof cfg.cluster);
  tx_rt_error e = {0};
  return from_rt(
      err, tx_rt_launch_kernel(fn->owner->rt->rt, kernel ? kernel : fn->kernel, &cfg, v.params, &e),
      &e);
}

const char *tx_api_function_kernel(const tirx_function *fn) {
  return fn && fn->ef->launcher ? tx_launcher_kernel(fn->ef->launcher) : NULL;
}

tirx_status tirx_function_call(const tirx_function *fn, const tirx_arg *args, size_t n,
                               void *stream, tirx_error *err) {
  return tx_api_function_launch(fn, NULL, args, n, stream, err);
}
