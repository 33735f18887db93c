/*
 * cache.h - the compile cache's pieces: a 128-bit FNV-1a hash for keys, the
 * executable file container (shared by tirx_executable_save/load and the
 * disk cache), the in-memory table and atomic disk writes. See
 * docs/runtime.md "Compile cache" and "File format".
 */
#ifndef TIRX_RUNTIME_CACHE_H
#define TIRX_RUNTIME_CACHE_H

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

/* The container: parts of an executable <-> bytes. */
typedef struct tx_exe_parts {
  const char *arch, *name; /* NUL-terminated */
  const char *lowered;
  size_t lowered_len;
  const char *ptx;
  size_t ptx_len;
  const char *kernel_info; /* "kernel cx cy cz" lines: cluster shapes */
  size_t kernel_info_len;
} tx_exe_parts;
enum { TX_EXE_FORMAT_VERSION = 1 };
tirx_status tx_exe_serialize(const tx_exe_parts *p, tx_strbuf *out);
/* Parts point into `data`. why gets the reason for a rejected container. */
tirx_status tx_exe_deserialize(const char *data, size_t len, tx_exe_parts *p, char *why,
                               size_t cap);

/* In-memory: copies in and out; locked. Entries come from the cache's
 * allocator; tx_cache_get's copy from `alloc` (the caller's). A get that
 * runs out of memory is a miss, a put that does is dropped. */
int tx_cache_get(tirx_cache *c, tx_hash128 k, const tirx_allocator *alloc, char **data,
                 size_t *len);
void tx_cache_put(tirx_cache *c, tx_hash128 k, const char *data, size_t len);

/* Disk: the directory (opts->cache_dir, $TIRX_CACHE_DIR, $XDG_CACHE_HOME/tirx,
 * $HOME/.cache/tirx) into buf; 0 when none can be named. */
int tx_cache_dir(const char *explicit_dir, char *buf, size_t cap);
/* Whole file into a buffer from `alloc` (NULL: malloc; free it with
 * tx_mem_free). Returns 0, or an errno value: ENOMEM when an allocation
 * failed, another one when the file does not exist or cannot be read. */
int tx_read_file(const tirx_allocator *alloc, const char *path, char **data, size_t *len);
/* Write through a temporary file in the same directory and rename(2), so a
 * reader sees either no file or a whole one. Creates the directory. */
tirx_status tx_write_atomic(const char *dir, const char *name, const char *data, size_t len);

#endif
