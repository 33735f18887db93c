/*
 * api_compile.c - the compile half of the public API (tirx.h): compile
 * options, tirx_compile and tirx_compile_module through the compile cache.
 *
 * A compile is tx_compile_module's TX_EMIT_EXECUTABLE (the one compile
 * path); its bytes become the executable through tirx_executable_load_bytes
 * (runtime/executable.c), exactly as a cache entry or a saved file does, so
 * a fresh, a cached and a loaded executable are the same. The bytes are
 * what the cache stores.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/exe_format.h"
#include "driver/cache.h"
#include "driver/compile.h"
#include "driver/context.h"
#include "ir/printer.h"
#include "support/error.h"
#include "support/file.h"
#include "support/mem.h"

/* The first error diagnostic of ctx (or a generic message), named after
 * `file`, or after its span's own file when file is NULL (a file name that
 * outlives ctx: a module's, when ctx is the module's child). */
static tirx_status from_diags(tirx_error *err, tirx_status st, const tirx_ctx *ctx,
                              const char *file) {
  if (!err) return st;
  size_t n = tirx_diag_count(ctx);
  for (size_t i = 0; i < n; i++) {
    tirx_diagnostic d;
    if (tirx_diag_get(ctx, i, &d) != TIRX_OK || d.severity != TIRX_SEV_ERROR) continue;
    if (!file) file = d.span.file;
    if (d.span.line)
      tx_error_set(err, st, "%s:%u:%u: %s", file ? file : "<input>", d.span.line, d.span.col,
                   d.message);
    else
      tx_error_set(err, st, "%s", d.message); /* no place to name ("out of memory") */
    err->span = d.span;
    /* The context's file string dies with the context; the caller's lives on. */
    err->span.file = file;
    return st;
  }
  return tx_error_set(err, st, "compilation failed (%s)", tirx_status_name(st));
}

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

/* The executable of bytes (a compile's, a cache entry's). */
static tirx_status exe_from_bytes(const char *data, size_t len, const char *what,
                                  const tirx_allocator *alloc, tirx_executable **out,
                                  tirx_error *err) {
  tirx_status st = tirx_executable_load_bytes(data, len, alloc, out, err);
  if (st != TIRX_OK && st != TIRX_ERR_NOMEM) tx_error_prefix(err, what);
  return st;
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
  tx_executable_mark_from_cache(*out);
  return 1;
}

/* A store that fails (no memory, an unwritable directory) leaves the cache
 * as it was: the compile itself worked. */
static void cache_store(const tirx_compile_options *o, tx_hash128 key, const char *data,
                        size_t len) {
  if (o->cache) tx_cache_put(o->cache, key, data, len);
  char dir[4096], hex[48]; /* 32 hex digits + ".tirxexe" + NUL */
  if (o->disk_cache && tx_cache_dir(o->cache_dir, dir, sizeof dir)) {
    tx_hash_hex(key, hex);
    strcat(hex, ".tirxexe");
    (void)tx_write_atomic(dir, hex, data, len);
  }
}

/* The compile request of the options; TIRX_ERR_USAGE (in err) for an
 * unknown architecture or pass, an opt_level out of range. */
static tirx_status request_of(const tirx_compile_options *o, const char *name,
                              tx_compile_request *req, tirx_error *err) {
  tx_compile_request_init(req);
  req->emit = TX_EMIT_EXECUTABLE;
  if (o->opt_level < 0 || o->opt_level > 3)
    return tx_error_set(err, TIRX_ERR_USAGE, "opt_level must be 0..3, got %d", o->opt_level);
  req->target.opt_level = o->opt_level;
  char why[512];
  if (!tx_compile_request_arches(req, o->arch, why, sizeof why))
    return tx_error_set(err, TIRX_ERR_USAGE, "%s", why);
  for (size_t i = 0; i < o->num_disabled_passes; i++) {
    int id = tx_pass_lookup(o->disabled_passes[i]);
    if (id < 0)
      return tx_error_set(err, TIRX_ERR_USAGE, "unknown pass '%s' in disabled_passes",
                          o->disabled_passes[i]);
    req->pipeline.disabled[id] = 1;
  }
  req->cuda_path = o->cuda_path;
  req->host_only = o->host_only;
  req->exe_name = name;
  return TIRX_OK;
}

/* Compile m (in ctx) into an executable called name, storing its bytes in
 * the caches; errors are named after err_file (see from_diags). */
static tirx_status compile_common(tirx_ctx *ctx, const tx_module *m, const char *name,
                                  const char *err_file, const tirx_compile_options *o,
                                  tx_hash128 key, tirx_executable **out, tirx_error *err) {
  tx_compile_request req;
  tirx_status st = request_of(o, name, &req, err);
  if (st != TIRX_OK) return st;
  tx_strbuf bytes = {.alloc = o->allocator};
  st = tx_compile_module(ctx, m, &req, NULL, &bytes);
  if (st != TIRX_OK) {
    from_diags(err, st, ctx, err_file);
  } else {
    st = exe_from_bytes(bytes.data, bytes.len, name, o->allocator, out, err);
    if (st == TIRX_OK) cache_store(o, key, bytes.data, bytes.len);
  }
  tx_sb_free(&bytes);
  return st;
}

tirx_status tirx_compile(const char *name, const char *text, size_t len,
                         const tirx_compile_options *opts, tirx_executable **out, tirx_error *err) {
  if (out) *out = NULL;
  if (!out || !text) return tx_error_set(err, TIRX_ERR_USAGE, "tirx_compile: NULL text or out");
  if (err) err->code = TIRX_OK;
  if (!name) name = "<string>";
  tirx_compile_options o;
  read_options(opts, &o);
  tx_hash128 key = cache_key(text, len, &o);
  if (cache_lookup(&o, key, out)) return TIRX_OK;
  tirx_ctx *ctx = NULL;
  tirx_status st = tirx_ctx_create_with(o.allocator, &ctx);
  if (st != TIRX_OK) return tx_error_set(err, st, "out of memory");
  tirx_module *m = NULL;
  st = tirx_parse_string(ctx, name, text, len, &m);
  if (st != TIRX_OK)
    from_diags(err, st, ctx, name);
  else
    st = compile_common(ctx, m->mod, name, name, &o, key, out, err);
  tirx_ctx_destroy(ctx);
  return st;
}

tirx_status tirx_compile_module(const tirx_module *mod, const tirx_compile_options *opts,
                                tirx_executable **out, tirx_error *err) {
  if (out) *out = NULL;
  if (!out || !mod)
    return tx_error_set(err, TIRX_ERR_USAGE, "tirx_compile_module: NULL module or out");
  if (err) err->code = TIRX_OK;
  tirx_compile_options o;
  read_options(opts, &o);
  /* The key is the canonical text, so equal modules share entries. */
  tx_strbuf text = {.alloc = o.allocator};
  tx_print_module(mod->mod, &text);
  if (text.failed) {
    tx_sb_free(&text);
    return tx_error_set(err, TIRX_ERR_NOMEM, "out of memory");
  }
  tx_hash128 key = cache_key(text.data ? text.data : "", text.len, &o);
  tx_sb_free(&text);
  if (cache_lookup(&o, key, out)) return TIRX_OK;
  const char *name = mod->mod->name ? mod->mod->name : "<module>";
  /* The module is const: the passes build into a child context, so mod's
   * context gains nothing and one module compiles from several threads. */
  tirx_ctx *work = NULL;
  tirx_status st = tx_ctx_create_child(mod->ctx, o.allocator, &work);
  if (st != TIRX_OK) return tx_error_set(err, st, "out of memory");
  st = compile_common(work, mod->mod, name, NULL, &o, key, out, err);
  tirx_ctx_destroy(work);
  return st;
}
