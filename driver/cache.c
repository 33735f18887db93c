/*
 * cache.c - the compile cache's pieces (cache.h): hashing, the in-memory
 * table (the public tirx_cache) and the cache directory.
 */
#include "driver/cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "support/file.h"
#include "support/mem.h"

/* ---- FNV-1a 128 ------------------------------------------------------------
 * The 128-bit prime is 2^88 + 2^8 + 0x3b; multiplication is done on two
 * 64-bit halves so that no compiler extension is needed. */

void tx_hash_init(tx_hasher *h) {
  h->hi = UINT64_C(0x6c62272e07bb0142);
  h->lo = UINT64_C(0x62b821756295c58d);
}

static void mul_prime(tx_hasher *h) {
  /* (hi:lo) * (2^88 + 0x13b) mod 2^128 */
  uint64_t lo = h->lo, hi = h->hi;
  /* lo * 0x13b as 128 bits */
  uint64_t a0 = (lo & 0xffffffffu) * 0x13b, a1 = (lo >> 32) * 0x13b;
  uint64_t plo = a0 + (a1 << 32);
  uint64_t carry = (plo < a0);
  uint64_t phi = (a1 >> 32) + carry + hi * 0x13b;
  /* + (lo << 88): only the high half is affected (88 = 64 + 24) */
  phi += lo << 24;
  h->lo = plo;
  h->hi = phi;
}

static void feed(tx_hasher *h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    h->lo ^= p[i];
    mul_prime(h);
  }
}

void tx_hash_field(tx_hasher *h, const void *data, size_t len) {
  uint64_t n = len;
  feed(h, &n, sizeof n);
  feed(h, data, len);
}

void tx_hash_str(tx_hasher *h, const char *s) {
  if (!s) {
    feed(h, "\xff", 1);
    return;
  }
  tx_hash_field(h, s, strlen(s));
}

tx_hash128 tx_hash_final(const tx_hasher *h) {
  tx_hash128 k;
  for (int i = 0; i < 8; i++) {
    k.b[i] = (uint8_t)(h->hi >> (56 - 8 * i));
    k.b[8 + i] = (uint8_t)(h->lo >> (56 - 8 * i));
  }
  return k;
}

void tx_hash_hex(tx_hash128 k, char out[33]) {
  static const char HEX[] = "0123456789abcdef";
  for (int i = 0; i < 16; i++) {
    out[2 * i] = HEX[k.b[i] >> 4];
    out[2 * i + 1] = HEX[k.b[i] & 15];
  }
  out[32] = 0;
}

/* ---- in-memory ------------------------------------------------------------------ */

typedef struct cache_entry {
  tx_hash128 key;
  char *data;
  size_t len;
} cache_entry;

struct tirx_cache {
  tirx_allocator alloc; /* the table and the entries */
  pthread_mutex_t mu;
  cache_entry *items;
  size_t n, cap;
  uint64_t hits;
};

tirx_status tirx_cache_create(tirx_cache **out) {
  return tirx_cache_create_with(NULL, out);
}

tirx_status tirx_cache_create_with(const tirx_allocator *alloc, tirx_cache **out) {
  if (!out) return TIRX_ERR_USAGE;
  tirx_cache *c = tx_mem_calloc(alloc, 1, sizeof *c);
  *out = c;
  if (!c) return TIRX_ERR_NOMEM;
  if (alloc) c->alloc = *alloc;
  if (pthread_mutex_init(&c->mu, NULL) != 0) {
    tx_mem_free(alloc, c);
    *out = NULL;
    return TIRX_ERR_NOMEM;
  }
  return TIRX_OK;
}

void tirx_cache_destroy(tirx_cache *c) {
  if (!c) return;
  tirx_allocator a = c->alloc; /* c itself is freed last */
  for (size_t i = 0; i < c->n; i++)
    tx_mem_free(&a, c->items[i].data);
  tx_mem_free(&a, c->items);
  pthread_mutex_destroy(&c->mu);
  tx_mem_free(&a, c);
}

void tirx_cache_stats(const tirx_cache *c, uint64_t *hits, uint64_t *entries) {
  if (hits) *hits = 0;
  if (entries) *entries = 0;
  if (!c) return;
  tirx_cache *m = (tirx_cache *)c; /* the lock is not part of the value */
  pthread_mutex_lock(&m->mu);
  if (hits) *hits = m->hits;
  if (entries) *entries = m->n;
  pthread_mutex_unlock(&m->mu);
}

int tx_cache_get(tirx_cache *c, tx_hash128 k, const tirx_allocator *alloc, char **data,
                 size_t *len) {
  int found = 0;
  pthread_mutex_lock(&c->mu);
  for (size_t i = 0; i < c->n && !found; i++)
    if (memcmp(&c->items[i].key, &k, sizeof k) == 0) {
      *data = tx_mem_alloc(alloc, c->items[i].len);
      if (*data) {
        memcpy(*data, c->items[i].data, c->items[i].len);
        *len = c->items[i].len;
        found = 1;
        c->hits++;
      }
      break;
    }
  pthread_mutex_unlock(&c->mu);
  return found;
}

void tx_cache_put(tirx_cache *c, tx_hash128 k, const char *data, size_t len) {
  char *copy = tx_mem_alloc(&c->alloc, len);
  if (!copy) return; /* a cache that cannot grow still works */
  memcpy(copy, data, len);
  pthread_mutex_lock(&c->mu);
  for (size_t i = 0; i < c->n; i++)
    if (memcmp(&c->items[i].key, &k, sizeof k) == 0) {
      tx_mem_free(&c->alloc, copy); /* another thread stored the same result first */
      pthread_mutex_unlock(&c->mu);
      return;
    }
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 16;
    cache_entry *p = tx_mem_realloc(&c->alloc, c->items, cap * sizeof *p);
    if (!p) {
      tx_mem_free(&c->alloc, copy);
      pthread_mutex_unlock(&c->mu);
      return;
    }
    c->items = p;
    c->cap = cap;
  }
  c->items[c->n++] = (cache_entry){k, copy, len};
  pthread_mutex_unlock(&c->mu);
}

/* ---- disk ------------------------------------------------------------------------ */

int tx_cache_dir(const char *explicit_dir, char *buf, size_t cap) {
  const char *e;
  int n = -1;
  if (explicit_dir && explicit_dir[0])
    n = snprintf(buf, cap, "%s", explicit_dir);
  else if ((e = getenv("TIRX_CACHE_DIR")) && e[0])
    n = snprintf(buf, cap, "%s", e);
  else if ((e = getenv("XDG_CACHE_HOME")) && e[0])
    n = snprintf(buf, cap, "%s/tirx", e);
  else if ((e = getenv("HOME")) && e[0])
    n = snprintf(buf, cap, "%s/.cache/tirx", e);
  return n > 0 && (size_t)n < cap;
}
