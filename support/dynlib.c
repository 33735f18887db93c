/*
 * dynlib.c - dlopen/dlsym behind the small interface of dynlib.h.
 */
#include "support/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "support/mem.h"

/* A GNU/BSD extension that every platform we run on has; without it the
 * library is merely unloaded on close. */
#ifdef RTLD_NODELETE
#define TX_RTLD_NODELETE RTLD_NODELETE
#else
#define TX_RTLD_NODELETE 0
#endif

struct tx_dynlib {
  void *handle;
  const tirx_allocator *alloc;
  char name[]; /* a copy: candidate strings are often temporaries */
};

/* Copy a reason into the caller's buffer, truncating; dlerror's string is
 * only valid until the next dl* call, so it must be copied at once. */
static void set_why(char *why, size_t cap, const char *prefix, const char *reason) {
  if (!why || cap == 0) return;
  snprintf(why, cap, "%s%s", prefix, reason ? reason : "unknown loader error");
}

tirx_status tx_dynlib_open(const tirx_allocator *alloc, const char *const *candidates, size_t n,
                           tx_dynlib **out, char *why, size_t cap) {
  *out = NULL;
  if (why && cap) why[0] = '\0';
  if (n == 0) {
    set_why(why, cap, "", "no library candidates given");
    return TIRX_ERR_IO;
  }
  for (size_t i = 0; i < n; i++) {
    if (!candidates[i]) continue;
    /* RTLD_LOCAL keeps the library's symbols out of the global namespace,
     * so two versions loaded by different contexts cannot clash; RTLD_NOW
     * makes a broken install fail here rather than at the first call.
     * RTLD_NODELETE: the CUDA libraries are not safe to unload (libnvrtc's
     * static initializers allocate on every load and never free, libcuda
     * registers atexit handlers), so dlclose only drops our reference and a
     * later dlopen reuses the resident copy. */
    void *h = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL | TX_RTLD_NODELETE);
    if (!h) {
      set_why(why, cap, "", dlerror());
      continue;
    }
    size_t len = strlen(candidates[i]);
    tx_dynlib *lib = tx_mem_alloc(alloc, sizeof *lib + len + 1);
    if (!lib) {
      dlclose(h);
      set_why(why, cap, "", "out of memory");
      return TIRX_ERR_NOMEM;
    }
    lib->handle = h;
    lib->alloc = alloc;
    memcpy(lib->name, candidates[i], len + 1);
    if (why && cap) why[0] = '\0';
    *out = lib;
    return TIRX_OK;
  }
  return TIRX_ERR_IO;
}

const char *tx_dynlib_name(const tx_dynlib *lib) {
  return lib ? lib->name : NULL;
}

tx_dynlib_fn tx_dynlib_sym(tx_dynlib *lib, const char *name, char *why, size_t cap) {
  if (why && cap) why[0] = '\0';
  if (!lib) {
    set_why(why, cap, "", "library not loaded");
    return NULL;
  }
  dlerror(); /* clear a stale error so a NULL below is attributed correctly */
  void *p = dlsym(lib->handle, name);
  if (!p) {
    const char *err = dlerror();
    set_why(why, cap, "", err ? err : "symbol resolves to NULL");
    return NULL;
  }
  /* POSIX guarantees that a dlsym result converts to a function pointer;
   * memcpy keeps the conversion well-defined in ISO C too. */
  tx_dynlib_fn fn;
  memcpy(&fn, &p, sizeof fn);
  return fn;
}

void tx_dynlib_close(tx_dynlib *lib) {
  if (!lib) return;
  dlclose(lib->handle);
  tx_mem_free(lib->alloc, lib);
}
