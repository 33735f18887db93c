/*
 * module.c - loading modules (PTX or cubin) and the per-module function
 * cache.
 *
 * The cache is an open-addressing hash table keyed by the kernel name
 * (copied into the entry), so repeated launches by name cost a hash and a
 * string compare instead of a cuModuleGetFunction call each. It is guarded
 * by the module's mutex; entries are never removed before the module is
 * unloaded, so a handle handed out stays valid without holding the lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_internal.h"

enum { JIT_LOG_BYTES = 16384 };

tirx_status tx_rt_module_load(tx_runtime *rt, const void *image, size_t size, tx_rt_module **out,
                              tx_rt_error *err) {
  (void)size;
  if (!out) return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_module_load: out is NULL");
  *out = NULL;
  if (!image) return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_module_load: image is NULL");
  tirx_status st = tx_rt_enter(rt, err);
  if (st) return st;
  const tirx_allocator *a = tx_rt_alloc_of(rt);
  tx_rt_module *m = tx_mem_calloc(a, 1, sizeof *m);
  char *log = tx_mem_calloc(a, 1, JIT_LOG_BYTES);
  if (!m || !log || pthread_mutex_init(&m->lock, NULL) != 0) {
    tx_mem_free(a, m);
    tx_mem_free(a, log);
    return tx_rt_fail(err, TIRX_ERR_NOMEM, "out of memory");
  }
  /* The JIT's error log is the only explanation of a PTX the driver
   * rejects (ptxas's message with the PTX line). */
  int opts[2] = {TX_CU_JIT_ERROR_LOG_BUFFER, TX_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[2] = {log, (void *)(uintptr_t)(JIT_LOG_BYTES - 1)};
  tx_cu_result r = rt->cu.ModuleLoadDataEx(&m->mod, image, 2, opts, vals);
  if (r != TX_CUDA_SUCCESS) {
    st = tx_rt_check(rt, r, "cuModuleLoadDataEx", err);
    log[JIT_LOG_BYTES - 1] = '\0';
    size_t n = strlen(log);
    while (n && (log[n - 1] == '\n' || log[n - 1] == ' '))
      log[--n] = '\0';
    if (err && n) {
      size_t used = strlen(err->message);
      snprintf(err->message + used, sizeof err->message - used, "; JIT log: %s", log);
    }
    pthread_mutex_destroy(&m->lock);
    tx_mem_free(a, m);
    tx_mem_free(a, log);
    return st;
  }
  tx_mem_free(a, log);
  m->rt = rt;
  pthread_mutex_lock(&rt->lock);
  m->next = rt->modules;
  if (m->next) m->next->prev = m;
  rt->modules = m;
  pthread_mutex_unlock(&rt->lock);
  *out = m;
  return TIRX_OK;
}

void tx_rt_module_destroy(tx_rt_module *m) {
  const tirx_allocator *a = tx_rt_alloc_of(m->rt);
  for (size_t i = 0; i < m->cap; i++)
    tx_mem_free(a, m->slots[i]);
  tx_mem_free(a, m->slots);
  m->rt->cu.ModuleUnload(m->mod);
  pthread_mutex_destroy(&m->lock);
  tx_mem_free(a, m);
}

void tx_rt_module_unload(tx_runtime *rt, tx_rt_module *m) {
  if (!m || !rt) return;
  pthread_mutex_lock(&rt->lock);
  if (m->prev)
    m->prev->next = m->next;
  else
    rt->modules = m->next;
  if (m->next) m->next->prev = m->prev;
  pthread_mutex_unlock(&rt->lock);
  rt->cu.CtxSetCurrent(rt->ctx); /* cuModuleUnload needs the module's context */
  tx_rt_module_destroy(m);
}

/* FNV-1a: short kernel names, no adversarial keys. */
static uint64_t hash_name(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* The slot holding `name`, or the empty slot where it belongs. */
static size_t find_slot(tx_rt_function *const *slots, size_t cap, const char *name) {
  size_t i = (size_t)hash_name(name) & (cap - 1);
  while (slots[i] && strcmp(slots[i]->name, name) != 0)
    i = (i + 1) & (cap - 1);
  return i;
}

/* Keep the load factor at most 1/2. Called under the module lock. */
static int grow(tx_rt_module *m) {
  if ((m->count + 1) * 2 <= m->cap) return 1;
  size_t cap = m->cap ? m->cap * 2 : 16;
  const tirx_allocator *a = tx_rt_alloc_of(m->rt);
  tx_rt_function **slots = tx_mem_calloc(a, cap, sizeof *slots);
  if (!slots) return 0;
  for (size_t i = 0; i < m->cap; i++)
    if (m->slots[i]) slots[find_slot(slots, cap, m->slots[i]->name)] = m->slots[i];
  tx_mem_free(a, m->slots);
  m->slots = slots;
  m->cap = cap;
  return 1;
}

tirx_status tx_rt_get_function(tx_runtime *rt, tx_rt_module *m, const char *name,
                               tx_rt_function **out, tx_rt_error *err) {
  if (!out) return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_get_function: out is NULL");
  *out = NULL;
  if (!m || !name)
    return tx_rt_fail(err, TIRX_ERR_USAGE, "tx_rt_get_function: NULL module or name");
  tirx_status st = tx_rt_enter(rt, err);
  if (st) return st;
  pthread_mutex_lock(&m->lock);
  if (m->cap) {
    size_t i = find_slot(m->slots, m->cap, name);
    if (m->slots[i]) {
      *out = m->slots[i];
      pthread_mutex_unlock(&m->lock);
      return TIRX_OK;
    }
  }
  /* A miss: look the kernel up under the lock, so two threads asking for the
   * same new name still get one handle. */
  tx_cu_function fn = NULL;
  tx_cu_result r = rt->cu.ModuleGetFunction(&fn, m->mod, name);
  if (r != TX_CUDA_SUCCESS) {
    pthread_mutex_unlock(&m->lock);
    st = tx_rt_check(rt, r, "cuModuleGetFunction", err);
    if (err) {
      size_t used = strlen(err->message);
      snprintf(err->message + used, sizeof err->message - used, " for kernel '%s'", name);
    }
    return st;
  }
  size_t len = strlen(name);
  tx_rt_function *f = tx_mem_alloc(tx_rt_alloc_of(rt), sizeof *f + len + 1);
  if (!f || !grow(m)) {
    pthread_mutex_unlock(&m->lock);
    tx_mem_free(tx_rt_alloc_of(rt), f);
    return tx_rt_fail(err, TIRX_ERR_NOMEM, "out of memory");
  }
  f->fn = fn;
  f->dyn_smem_set = 0;
  f->module = m;
  memcpy(f->name, name, len + 1);
  m->slots[find_slot(m->slots, m->cap, name)] = f;
  m->count++;
  *out = f;
  pthread_mutex_unlock(&m->lock);
  return TIRX_OK;
}
