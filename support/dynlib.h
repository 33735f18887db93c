/*
 * dynlib.h - a tiny wrapper over dlopen/dlsym for the CUDA libraries that
 * tirx-c loads at run time (NVRTC now, the CUDA driver later), so that
 * neither is a link-time dependency and their absence is a clear error
 * instead of a loader failure.
 *
 * No global state: every handle belongs to its caller, and failure reasons
 * (dlerror's text) are copied into a caller buffer rather than kept here.
 */
#ifndef TIRX_SUPPORT_DYNLIB_H
#define TIRX_SUPPORT_DYNLIB_H

#include <stddef.h>

#include "tirx/tirx.h"

typedef struct tx_dynlib tx_dynlib;

/* A function pointer type that any symbol may be converted to and back; ISO C
 * does not allow converting void * to a function pointer, so tx_dynlib_sym
 * hands out this type instead. */
typedef void (*tx_dynlib_fn)(void);

/* Try each of the n candidates in order (absolute paths or bare names that
 * the default loader path resolves) and set *out to the first that loads:
 * TIRX_OK, TIRX_ERR_IO when none does (`why`, when non-NULL and cap > 0,
 * receives the loader's reason for the last candidate tried; it is always
 * NUL-terminated), or TIRX_ERR_NOMEM. The handle comes from `alloc` (NULL:
 * malloc), which must outlive it. */
tirx_status tx_dynlib_open(const tirx_allocator *alloc, const char *const *candidates, size_t n,
                           tx_dynlib **out, char *why, size_t cap);

/* The candidate that tx_dynlib_open loaded (a copy owned by `lib`). */
const char *tx_dynlib_name(const tx_dynlib *lib);

/* The address of `name`, or NULL with the loader's reason in `why`. */
tx_dynlib_fn tx_dynlib_sym(tx_dynlib *lib, const char *name, char *why, size_t cap);

/* Release the handle; NULL is ignored. Libraries are opened with
 * RTLD_NODELETE (see dynlib.c), so the code stays mapped for reuse. */
void tx_dynlib_close(tx_dynlib *lib);

#endif
