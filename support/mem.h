/*
 * mem.h - the one door to the heap: every allocation of the libraries goes
 * through these, with the allocator of the object it belongs to.
 *
 * `a` is the caller's tirx_allocator (tirx.h); NULL, or one whose fn is
 * NULL, means the C library's malloc/realloc/free, called directly. With a
 * user allocator each block carries a small header (max_align_t-aligned)
 * holding its size, so that the user's fn always receives the exact old
 * size, as its contract promises, although callers of tx_mem_free rarely
 * know it. A block must be resized and freed with the allocator that made
 * it. Must not keep state of its own: no global "current allocator".
 */
#ifndef TIRX_SUPPORT_MEM_H
#define TIRX_SUPPORT_MEM_H

#include <stddef.h>

#include "tirx/tirx.h"

/* n bytes (uninitialised), or NULL when out of memory. n == 0 still gives a
 * distinct block, which must be freed. */
void *tx_mem_alloc(const tirx_allocator *a, size_t n);
/* n * size zeroed bytes, or NULL (also when n * size overflows). */
void *tx_mem_calloc(const tirx_allocator *a, size_t n, size_t size);
/* Resize p (NULL: allocate) to n bytes; NULL on failure, p then unchanged. */
void *tx_mem_realloc(const tirx_allocator *a, void *p, size_t n);
/* Free p; NULL is ignored. */
void tx_mem_free(const tirx_allocator *a, void *p);
/* Copies with a terminating NUL, freed with tx_mem_free; NULL when out of
 * memory. tx_mem_strndup copies s[0..n) (s need not be NUL-terminated). */
char *tx_mem_strdup(const tirx_allocator *a, const char *s);
char *tx_mem_strndup(const tirx_allocator *a, const char *s, size_t n);

/* Whether a is the C library's (NULL or no fn). */
static inline int tx_mem_is_libc(const tirx_allocator *a) {
  return !a || !a->fn;
}

#endif
