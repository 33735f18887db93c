/*
 * wire.h - little-endian binary fields for the files tirx-c writes (the
 * executable container, launch programs): writers append to a strbuf,
 * readers take from a bounded cursor.
 *
 * A reader never reads past its end: a short read sets `bad` and returns
 * zeros, so a parser checks once after a group of fields. Little-endian is
 * the byte order of every host CUDA runs on; values are copied bytewise, so
 * no alignment is assumed.
 */
#ifndef TIRX_SUPPORT_WIRE_H
#define TIRX_SUPPORT_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "support/strbuf.h"

static inline void tx_wire_u8(tx_strbuf *o, uint8_t v) {
  tx_sb_putn(o, (const char *)&v, 1);
}
static inline void tx_wire_u32(tx_strbuf *o, uint32_t v) {
  tx_sb_putn(o, (const char *)&v, 4);
}
static inline void tx_wire_u64(tx_strbuf *o, uint64_t v) {
  tx_sb_putn(o, (const char *)&v, 8);
}
/* A string: u32 length + 1 (0 for NULL), then the bytes without the NUL. */
static inline void tx_wire_str(tx_strbuf *o, const char *s) {
  size_t n = s ? strlen(s) : 0;
  tx_wire_u32(o, s ? (uint32_t)n + 1 : 0);
  if (s) tx_sb_putn(o, s, n);
}

typedef struct tx_wire_reader {
  const unsigned char *p, *end;
  int bad; /* a read ran past the end (or a value was malformed) */
} tx_wire_reader;

static inline const unsigned char *tx_wire_take(tx_wire_reader *r, size_t n) {
  if (r->bad || (size_t)(r->end - r->p) < n) {
    r->bad = 1;
    return NULL;
  }
  const unsigned char *at = r->p;
  r->p += n;
  return at;
}
static inline uint8_t tx_wire_get_u8(tx_wire_reader *r) {
  const unsigned char *at = tx_wire_take(r, 1);
  return at ? at[0] : 0;
}
static inline uint32_t tx_wire_get_u32(tx_wire_reader *r) {
  uint32_t v = 0;
  const unsigned char *at = tx_wire_take(r, 4);
  if (at) memcpy(&v, at, 4);
  return v;
}
static inline uint64_t tx_wire_get_u64(tx_wire_reader *r) {
  uint64_t v = 0;
  const unsigned char *at = tx_wire_take(r, 8);
  if (at) memcpy(&v, at, 8);
  return v;
}
/* Bytes left: a count of n items of at least `each` bytes must fit. */
static inline int tx_wire_fits(const tx_wire_reader *r, uint64_t n, size_t each) {
  return !r->bad && n <= (uint64_t)(r->end - r->p) / (each ? each : 1);
}

#endif
