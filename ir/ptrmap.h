/*
 * ptrmap.h - a hash map from pointers to pointers.
 *
 * IR nodes and interned strings are compared by address, so the passes and
 * the code generators key their side tables (names, storage, variable sets)
 * by pointer. Lists searched linearly made those lookups quadratic in the
 * size of an unrolled kernel; this map makes them constant time.
 *
 * Keys are never NULL. Values may be anything but NULL (a set stores the key
 * itself). Iteration order is not exposed: callers that print keep their own
 * ordered list, so output never depends on addresses.
 *
 * The table comes from `alloc` (support/mem.h); a zero-initialised map uses
 * malloc, `(tx_ptrmap){.alloc = a}` the allocator a.
 */
#ifndef TIRX_IR_PTRMAP_H
#define TIRX_IR_PTRMAP_H

#include <stdint.h>

#include "tirx/tirx.h"

typedef struct tx_ptrmap_slot {
  const void *key;
  void *val;
} tx_ptrmap_slot;

typedef struct tx_ptrmap {
  tx_ptrmap_slot *slots;
  uint32_t len, cap;           /* cap is 0 or a power of two */
  const tirx_allocator *alloc; /* NULL: malloc */
} tx_ptrmap;

static inline uint32_t tx_ptrmap_slot_of(const void *key, uint32_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
  return (uint32_t)(h >> 32) & (cap - 1);
}

/* The value stored for key, or NULL. */
static inline void *tx_ptrmap_get(const tx_ptrmap *m, const void *key) {
  if (!m->len) return 0;
  for (uint32_t j = tx_ptrmap_slot_of(key, m->cap); m->slots[j].key; j = (j + 1) & (m->cap - 1))
    if (m->slots[j].key == key) return m->slots[j].val;
  return 0;
}

static inline int tx_ptrmap_has(const tx_ptrmap *m, const void *key) {
  return tx_ptrmap_get(m, key) != 0;
}

/* Sets key's value (replacing an earlier one); 0 when out of memory. */
int tx_ptrmap_put(tx_ptrmap *m, const void *key, void *val);
/* Adds key to a set (its own value); 0 when out of memory. */
static inline int tx_ptrset_add(tx_ptrmap *m, const void *key) {
  return tx_ptrmap_put(m, key, (void *)(uintptr_t)key);
}
/* Forgets every key and keeps the table for reuse. */
void tx_ptrmap_clear(tx_ptrmap *m);
/* Frees the table; the map is empty again and keeps its allocator. */
void tx_ptrmap_free(tx_ptrmap *m);

#endif
