/*
 * mem.c - allocation through a tirx_allocator (mem.h).
 *
 * The size header sits in front of every block of a user allocator; the
 * libc path has none, so that a block made by one and freed by the other
 * shows up at once under AddressSanitizer. Must not abort or print.
 */
#include "support/mem.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The header keeps the payload aligned as malloc would align it. */
enum { HEADER = alignof(max_align_t) };
_Static_assert(HEADER >= sizeof(size_t), "the header holds a size_t");

static size_t *header_of(void *p) {
  return (size_t *)(void *)((unsigned char *)p - HEADER);
}

static void *payload_of(void *block, size_t n) {
  *(size_t *)block = n;
  return (unsigned char *)block + HEADER;
}

void *tx_mem_alloc(const tirx_allocator *a, size_t n) {
  if (tx_mem_is_libc(a)) return malloc(n ? n : 1);
  if (n > SIZE_MAX - HEADER) return NULL;
  void *block = a->fn(a->ud, NULL, 0, n + HEADER);
  return block ? payload_of(block, n) : NULL;
}

void *tx_mem_calloc(const tirx_allocator *a, size_t n, size_t size) {
  if (tx_mem_is_libc(a)) return calloc(n ? n : 1, size ? size : 1);
  if (size && n > SIZE_MAX / size) return NULL;
  void *p = tx_mem_alloc(a, n * size);
  if (p) memset(p, 0, n * size);
  return p;
}

void *tx_mem_realloc(const tirx_allocator *a, void *p, size_t n) {
  if (tx_mem_is_libc(a)) return realloc(p, n ? n : 1);
  if (!p) return tx_mem_alloc(a, n);
  if (n > SIZE_MAX - HEADER) return NULL;
  size_t *h = header_of(p);
  void *block = a->fn(a->ud, h, *h + HEADER, n + HEADER);
  return block ? payload_of(block, n) : NULL;
}

void tx_mem_free(const tirx_allocator *a, void *p) {
  if (!p) return;
  if (tx_mem_is_libc(a)) {
    free(p);
    return;
  }
  size_t *h = header_of(p);
  a->fn(a->ud, h, *h + HEADER, 0);
}

char *tx_mem_strndup(const tirx_allocator *a, const char *s, size_t n) {
  if (n == SIZE_MAX) return NULL;
  char *p = tx_mem_alloc(a, n + 1);
  if (!p) return NULL;
  if (n) memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *tx_mem_strdup(const tirx_allocator *a, const char *s) {
  return tx_mem_strndup(a, s, strlen(s));
}
