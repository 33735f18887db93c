/*
 * intern.c - open-addressing hash set of strings.
 *
 * The hash is FNV-1a so the order of nothing observable depends on pointers.
 */
#include "ir/intern.h"

#include <stdint.h>
#include <string.h>

#include "support/mem.h"

typedef struct {
  const char *str;
  size_t len;
  uint64_t hash;
} slot;

struct tx_interner {
  tx_arena *arena;
  const tx_interner *parent; /* looked up first, never written; or NULL */
  slot *slots;
  size_t cap, count;
};

static uint64_t fnv1a(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

tx_interner *tx_interner_create(tx_arena *arena) {
  const tirx_allocator *a = tx_arena_allocator(arena);
  tx_interner *in = tx_mem_calloc(a, 1, sizeof *in);
  if (!in) return NULL;
  in->arena = arena;
  in->cap = 256;
  in->slots = tx_mem_calloc(a, in->cap, sizeof(slot));
  if (!in->slots) {
    tx_mem_free(a, in);
    return NULL;
  }
  return in;
}

tx_interner *tx_interner_create_child(tx_arena *arena, const tx_interner *parent) {
  tx_interner *in = tx_interner_create(arena);
  if (in) in->parent = parent;
  return in;
}

void tx_interner_destroy(tx_interner *in) {
  if (!in) return;
  const tirx_allocator *a = tx_arena_allocator(in->arena);
  tx_mem_free(a, in->slots);
  tx_mem_free(a, in);
}

static int grow(tx_interner *in) {
  size_t cap = in->cap * 2;
  slot *slots = tx_mem_calloc(tx_arena_allocator(in->arena), cap, sizeof(slot));
  if (!slots) return 0;
  for (size_t i = 0; i < in->cap; i++) {
    if (!in->slots[i].str) continue;
    size_t j = in->slots[i].hash & (cap - 1);
    while (slots[j].str)
      j = (j + 1) & (cap - 1);
    slots[j] = in->slots[i];
  }
  tx_mem_free(tx_arena_allocator(in->arena), in->slots);
  in->slots = slots;
  in->cap = cap;
  return 1;
}

/* The slot of in holding s[0..n) (hash h), or the empty slot where it goes. */
static size_t find(const tx_interner *in, const char *s, size_t n, uint64_t h) {
  size_t j = h & (in->cap - 1);
  for (; in->slots[j].str; j = (j + 1) & (in->cap - 1)) {
    const slot *sl = &in->slots[j];
    if (sl->hash == h && sl->len == n && memcmp(sl->str, s, n) == 0) break;
  }
  return j;
}

const char *tx_intern_n(tx_interner *in, const char *s, size_t n) {
  uint64_t h = fnv1a(s, n);
  /* A string the parent has keeps the parent's pointer, so names made in a
   * child compare with == against the parent's IR. */
  for (const tx_interner *p = in->parent; p; p = p->parent) {
    const char *found = p->slots[find(p, s, n, h)].str;
    if (found) return found;
  }
  if (in->count * 2 >= in->cap && !grow(in)) return NULL;
  size_t j = find(in, s, n, h);
  if (in->slots[j].str) return in->slots[j].str;
  char *copy = tx_arena_strndup(in->arena, s, n);
  if (!copy) return NULL;
  in->slots[j] = (slot){copy, n, h};
  in->count++;
  return copy;
}

const char *tx_intern(tx_interner *in, const char *s) {
  return tx_intern_n(in, s, strlen(s));
}
