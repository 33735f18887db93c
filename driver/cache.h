/*
 * cache.h - the compile cache's pieces: a 128-bit FNV-1a hash for keys, the
 * in-memory table and the cache directory (entries are executable files,
 * abi/exe_format.h, written with support/file.h). See docs/runtime.md
 * "Compile cache".
 */
#ifndef TIRX_DRIVER_CACHE_H
#define TIRX_DRIVER_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "support/strbuf.h"
#include "tirx/tirx.h"

typedef struct tx_hash128 {
  uint8_t b[16];
} tx_hash128;

/* Incremental FNV-1a (128-bit). Each field is fed with its length first so
 * that ("ab","c") and ("a","bc") differ. */
typedef struct tx_hasher {
  uint64_t hi, lo;
} tx_hasher;
void tx_hash_init(tx_hasher *h);
void tx_hash_field(tx_hasher *h, const void *data, size_t len);
void tx_hash_str(tx_hasher *h, const char *s); /* NULL hashes like "" plus a marker */
tx_hash128 tx_hash_final(const tx_hasher *h);
void tx_hash_hex(tx_hash128 k, char out[33]);

/* In-memory: copies in and out; locked. Entries come from the cache's
 * allocator; tx_cache_get's copy from `alloc` (the caller's). A get that
 * runs out of memory is a miss, a put that does is dropped. */
int tx_cache_get(tirx_cache *c, tx_hash128 k, const tirx_allocator *alloc, char **data,
                 size_t *len);
void tx_cache_put(tirx_cache *c, tx_hash128 k, const char *data, size_t len);

/* Disk: the directory (opts->cache_dir, $TIRX_CACHE_DIR, $XDG_CACHE_HOME/tirx,
 * $HOME/.cache/tirx) into buf; 0 when none can be named. */
int tx_cache_dir(const char *explicit_dir, char *buf, size_t cap);
#endif
