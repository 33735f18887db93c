/*
 * executable.c - executables of the public API (tirx.h): made from the
 * bytes of an executable file (abi/exe_format.h) and nothing else, whether
 * just compiled, read from the cache or loaded from a file, so a cached or
 * saved executable cannot behave differently from a fresh one. Saving
 * writes the same bytes back.
 *
 * Needs no compiler: the launch programs were built at compile time
 * (abi/launch_program.h). Part of libtirx_rt.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "abi/exe_format.h"
#include "support/file.h"
#include "support/error.h"
#include "support/mem.h"
#include "runtime/api_internal.h"
#include "runtime/tensor.h"

static char *dup_n(tirx_executable *exe, const char *s, size_t n) {
  return tx_mem_strndup(&exe->alloc, s ? s : "", s ? n : 0);
}

void tirx_executable_free(tirx_executable *exe) {
  if (!exe) return;
  tirx_allocator a = exe->alloc; /* exe itself is freed last */
  tx_lp_module_free(exe->prog);
  tx_mem_free(&a, exe->bytes);
  tx_mem_free(&a, exe->name);
  tx_mem_free(&a, exe->options);
  for (uint32_t i = 0; i < exe->nimages; i++) {
    tx_mem_free(&a, exe->images[i].arch);
    tx_mem_free(&a, exe->images[i].ptx);
  }
  tx_mem_free(&a, exe);
}

static tirx_status exe_from_parts(tirx_executable *exe, const tx_exe_parts *p, tirx_error *err) {
  exe->name = dup_n(exe, p->name, strlen(p->name));
  exe->options = dup_n(exe, p->options, p->options_len);
  if (!exe->name || !exe->options) return tx_error_set(err, TIRX_ERR_NOMEM, "out of memory");
  for (uint32_t i = 0; i < p->nimages; i++) {
    const tx_exe_image *im = &p->images[i];
    tx_api_image *to = &exe->images[exe->nimages++];
    to->arch = dup_n(exe, im->arch, strlen(im->arch));
    to->ptx = dup_n(exe, im->data, im->len);
    to->ptx_len = im->len;
    if (!to->arch || !to->ptx) return tx_error_set(err, TIRX_ERR_NOMEM, "out of memory");
  }
  char why[320] = "";
  tirx_status st = tx_lp_read(p->program, p->program_len, &exe->alloc, &exe->prog, why, sizeof why);
  if (st != TIRX_OK) return tx_error_set(err, st, "%s", why);
  return TIRX_OK;
}

tirx_status tirx_executable_load_bytes(const void *data, size_t len, const tirx_allocator *alloc,
                                       tirx_executable **out, tirx_error *err) {
  if (!out || (!data && len)) return tx_error_set(err, TIRX_ERR_USAGE, "NULL data or out");
  *out = NULL;
  tx_exe_parts p;
  char why[256];
  tirx_status st = tx_exe_deserialize(data ? data : "", len, &p, why, sizeof why);
  if (st != TIRX_OK) return tx_error_set(err, st, "%s", why);
  tirx_executable *exe = tx_mem_calloc(alloc, 1, sizeof *exe);
  if (!exe) return tx_error_set(err, TIRX_ERR_NOMEM, "out of memory");
  if (alloc) exe->alloc = *alloc;
  /* The file's own bytes are what saving writes back. */
  exe->bytes = tx_mem_alloc(&exe->alloc, len ? len : 1);
  if (!exe->bytes) st = tx_error_set(err, TIRX_ERR_NOMEM, "out of memory");
  if (st == TIRX_OK) {
    memcpy(exe->bytes, data, len);
    exe->len = len;
    st = exe_from_parts(exe, &p, err);
  }
  if (st != TIRX_OK) {
    tirx_executable_free(exe);
    return st;
  }
  *out = exe;
  return TIRX_OK;
}

void tx_executable_mark_from_cache(tirx_executable *exe) {
  if (exe) exe->from_cache = 1;
}

tirx_status tirx_executable_save(const tirx_executable *exe, const char *path, tirx_error *err) {
  if (!exe || !path)
    return tx_error_set(err, TIRX_ERR_USAGE, "tirx_executable_save: NULL argument");
  int e = tx_file_write(path, exe->bytes, exe->len, TX_WRITE_DEFAULT);
  if (e) return tx_error_set(err, TIRX_ERR_IO, "cannot write %s: %s", path, strerror(e));
  return TIRX_OK;
}

tirx_status tirx_executable_load(const char *path, tirx_executable **out, tirx_error *err) {
  return tirx_executable_load_with(path, NULL, out, err);
}

tirx_status tirx_executable_load_with(const char *path, const tirx_allocator *alloc,
                                      tirx_executable **out, tirx_error *err) {
  if (!out || !path)
    return tx_error_set(err, TIRX_ERR_USAGE, "tirx_executable_load: NULL argument");
  *out = NULL;
  char *data = NULL;
  size_t len = 0;
  int e = tx_read_file(alloc, path, &data, &len);
  if (e == ENOMEM) return tx_error_set(err, TIRX_ERR_NOMEM, "out of memory reading %s", path);
  if (e) return tx_error_set(err, TIRX_ERR_IO, "cannot read %s", path);
  tirx_status st = tirx_executable_load_bytes(data, len, alloc, out, err);
  if (st != TIRX_OK && st != TIRX_ERR_NOMEM) tx_error_prefix(err, path);
  tx_mem_free(alloc, data);
  return st;
}

size_t tirx_executable_func_count(const tirx_executable *exe) {
  return exe ? exe->prog->nfuncs : 0;
}

const char *tirx_executable_func_name(const tirx_executable *exe, size_t i) {
  return exe && i < exe->prog->nfuncs ? exe->prog->funcs[i].name : NULL;
}

const char *tirx_executable_arch(const tirx_executable *exe) {
  return tirx_executable_arch_at(exe, 0);
}

size_t tirx_executable_arch_count(const tirx_executable *exe) {
  return exe ? exe->nimages : 0;
}

const char *tirx_executable_arch_at(const tirx_executable *exe, size_t i) {
  return exe && i < exe->nimages ? exe->images[i].arch : NULL;
}

const char *tirx_executable_ptx(const tirx_executable *exe, size_t *len) {
  return tirx_executable_ptx_for(exe, tirx_executable_arch(exe), len);
}

const char *tirx_executable_ptx_for(const tirx_executable *exe, const char *arch, size_t *len) {
  if (len) *len = 0;
  for (uint32_t i = 0; exe && arch && i < exe->nimages; i++)
    if (strcmp(exe->images[i].arch, arch) == 0) {
      if (len) *len = exe->images[i].ptx_len;
      return exe->images[i].ptx;
    }
  return NULL;
}

int tirx_executable_from_cache(const tirx_executable *exe) {
  return exe && exe->from_cache;
}

const tx_lp_func *tx_api_find_func(const tirx_executable *exe, const char *name) {
  for (uint32_t i = 0; exe && name && i < exe->prog->nfuncs; i++)
    if (strcmp(exe->prog->funcs[i].name, name) == 0) return &exe->prog->funcs[i];
  return NULL;
}

size_t tirx_executable_param_count(const tirx_executable *exe, const char *func) {
  const tx_lp_func *f = tx_api_find_func(exe, func);
  return f ? f->npinfo : 0;
}

tirx_status tirx_executable_param(const tirx_executable *exe, const char *func, size_t i,
                                  tirx_param_info *out) {
  const tx_lp_func *f = tx_api_find_func(exe, func);
  if (!f || !out || i >= f->npinfo) return TIRX_ERR_USAGE;
  const tx_lp_param_info *p = &f->pinfo[i];
  memset(out, 0, sizeof *out);
  out->name = p->name;
  out->kind = p->kind;
  tx_dl_from_tx_dtype(p->dtype, &out->dtype);
  out->ndim = p->ndim;
  out->shape = p->shape;
  out->dim_names = (const char *const *)p->dim_names;
  return TIRX_OK;
}
