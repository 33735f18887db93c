/*
 * arena.c - chunked bump allocator.
 *
 * Chunks grow geometrically up to 1 MiB; a request larger than a chunk gets a
 * chunk of its own. Must not free individual objects: lifetimes end together.
 */
#include "ir/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "support/mem.h"

typedef struct chunk {
  struct chunk *next;
  size_t size, used;
  alignas(max_align_t) unsigned char data[];
} chunk;

struct tx_arena {
  tirx_allocator alloc; /* a copy: the caller's struct may be a temporary */
  chunk *head;
  size_t next_size, max_size;
  size_t total;
};

/* Chunk sizes double from FIRST_CHUNK to MAX_CHUNK. The first size is a
 * measured choice, not a neutral one: starting at 4 KiB, glibc handed the
 * later, larger chunks back to the kernel at every context's end and the
 * next compile faulted them in again (139 page faults per compile of
 * bench/gen_kernel.py's kernel, a quarter of its time); from 64 KiB on the
 * chunks stay in the heap between compiles (7 faults). */
enum { FIRST_CHUNK = 64 << 10, MAX_CHUNK = 1 << 20 };

tx_arena *tx_arena_create(const tirx_allocator *alloc) {
  tx_arena *arena = tx_mem_calloc(alloc, 1, sizeof *arena);
  if (!arena) return NULL;
  if (alloc) arena->alloc = *alloc;
  arena->next_size = FIRST_CHUNK;
  arena->max_size = MAX_CHUNK;
  return arena;
}

tx_arena *tx_arena_create_like(const tx_arena *model) {
  tx_arena *arena = tx_arena_create(&model->alloc);
  if (arena && model->max_size != MAX_CHUNK) tx_arena_set_chunk_bytes(arena, model->max_size);
  return arena;
}

void tx_arena_set_chunk_bytes(tx_arena *arena, size_t bytes) {
  arena->next_size = arena->max_size = bytes ? bytes : 1;
}

void tx_arena_destroy(tx_arena *arena) {
  if (!arena) return;
  tirx_allocator alloc = arena->alloc; /* the arena itself is freed last */
  for (chunk *c = arena->head, *next; c; c = next) {
    next = c->next;
    tx_mem_free(&alloc, c);
  }
  tx_mem_free(&alloc, arena);
}

const tirx_allocator *tx_arena_allocator(const tx_arena *arena) {
  return &arena->alloc;
}

static chunk *add_chunk(tx_arena *arena, size_t need) {
  size_t size = arena->next_size > need ? arena->next_size : need;
  if (size > SIZE_MAX - sizeof(chunk)) return NULL;
  /* Not calloc: copies (tx_arena_dup, strndup) fill their bytes anyway,
   * so only tx_arena_alloc zeroes, and only what it hands out. */
  chunk *c = tx_mem_alloc(&arena->alloc, sizeof(chunk) + size);
  if (!c) return NULL;
  c->size = size;
  c->used = 0;
  c->next = arena->head;
  arena->head = c;
  if (arena->next_size < arena->max_size) arena->next_size *= 2;
  return c;
}

/* size bytes, uninitialised. */
static void *bump(tx_arena *arena, size_t size) {
  const size_t align = alignof(max_align_t);
  if (size == 0) size = 1;
  if (size > SIZE_MAX / 2) return NULL;
  size = (size + align - 1) & ~(align - 1);
  chunk *c = arena->head;
  if (!c || c->size - c->used < size) {
    c = add_chunk(arena, size);
    if (!c) return NULL;
  }
  void *p = c->data + c->used;
  c->used += size;
  arena->total += size;
  return p;
}

void *tx_arena_alloc(tx_arena *arena, size_t size) {
  void *p = bump(arena, size);
  if (p) memset(p, 0, size);
  return p;
}

char *tx_arena_strndup(tx_arena *arena, const char *s, size_t n) {
  if (n == SIZE_MAX) return NULL;
  char *p = bump(arena, n + 1);
  if (!p) return NULL;
  if (n) memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

void *tx_arena_dup(tx_arena *arena, const void *src, size_t n, size_t elem) {
  if (n == 0 || elem == 0 || n > SIZE_MAX / elem) return NULL;
  void *p = bump(arena, n * elem);
  if (p) memcpy(p, src, n * elem);
  return p;
}

size_t tx_arena_used(const tx_arena *arena) {
  return arena->total;
}
