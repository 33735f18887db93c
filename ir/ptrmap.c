/*
 * ptrmap.c - growth and clearing of the pointer hash map (ptrmap.h).
 *
 * Open addressing with linear probing, kept at most half full. No removal:
 * the tables live for one pass or one kernel and are cleared as a whole.
 */
#include "ir/ptrmap.h"

#include <string.h>

#include "support/mem.h"

static int grow(tx_ptrmap *m) {
  uint32_t cap = m->cap ? m->cap * 2 : 32;
  tx_ptrmap_slot *slots = tx_mem_calloc(m->alloc, cap, sizeof *slots);
  if (!slots) return 0;
  for (uint32_t i = 0; i < m->cap; i++) {
    if (!m->slots[i].key) continue;
    uint32_t j = tx_ptrmap_slot_of(m->slots[i].key, cap);
    while (slots[j].key)
      j = (j + 1) & (cap - 1);
    slots[j] = m->slots[i];
  }
  tx_mem_free(m->alloc, m->slots);
  m->slots = slots;
  m->cap = cap;
  return 1;
}

int tx_ptrmap_put(tx_ptrmap *m, const void *key, void *val) {
  if (2 * (m->len + 1) > m->cap && !grow(m)) return 0;
  uint32_t j = tx_ptrmap_slot_of(key, m->cap);
  while (m->slots[j].key && m->slots[j].key != key)
    j = (j + 1) & (m->cap - 1);
  if (!m->slots[j].key) m->len++;
  m->slots[j].key = key;
  m->slots[j].val = val;
  return 1;
}

void tx_ptrmap_clear(tx_ptrmap *m) {
  if (m->len) memset(m->slots, 0, m->cap * sizeof *m->slots);
  m->len = 0;
}

void tx_ptrmap_free(tx_ptrmap *m) {
  tx_mem_free(m->alloc, m->slots);
  *m = (tx_ptrmap){.alloc = m->alloc};
}
