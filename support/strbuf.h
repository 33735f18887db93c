/*
 * strbuf.h - a growable byte buffer for printers and diagnostics.
 *
 * Out-of-memory is sticky: once an append fails, `failed` stays set and
 * later appends do nothing, so callers check once at the end.
 *
 * The bytes come from `alloc` (support/mem.h): a zero-initialised strbuf uses
 * malloc, `(tx_strbuf){.alloc = a}` the allocator a. Whoever takes `data`
 * over frees it with tx_mem_free(sb.alloc, data).
 */
#ifndef TIRX_SUPPORT_STRBUF_H
#define TIRX_SUPPORT_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tirx/tirx.h"

typedef struct tx_strbuf {
  char *data;
  size_t len, cap;
  int failed;
  const tirx_allocator *alloc; /* NULL: malloc */
} tx_strbuf;

/* Frees the bytes and empties the buffer; it keeps its allocator. */
void tx_sb_free(tx_strbuf *sb);
/* Marks sb failed (sticky, as when an append runs out of memory): for text
 * assembled from other buffers, one of which failed. */
void tx_sb_set_failed(tx_strbuf *sb);
/* The slow path of the appends below: grows the buffer (or fails). */
void tx_sb_putn_grow(tx_strbuf *sb, const char *s, size_t n);

/* Appends are inline because printers and code generators make tens of
 * thousands of tiny ones per kernel; only growth leaves the fast path. The
 * contents stay NUL-terminated. */
static inline void tx_sb_putn(tx_strbuf *sb, const char *s, size_t n) {
  if (n < sb->cap - sb->len && sb->data) {
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
  } else {
    tx_sb_putn_grow(sb, s, n);
  }
}
static inline void tx_sb_puts(tx_strbuf *sb, const char *s) {
  tx_sb_putn(sb, s, strlen(s));
}
static inline void tx_sb_putc(tx_strbuf *sb, char c) {
  if (sb->cap - sb->len > 1 && sb->data) {
    sb->data[sb->len++] = c;
    sb->data[sb->len] = '\0';
  } else {
    tx_sb_putn_grow(sb, &c, 1);
  }
}
void tx_sb_printf(tx_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Decimal integers, as "%lld" and "%llu" print them. */
void tx_sb_put_int(tx_strbuf *sb, long long v);
void tx_sb_put_uint(tx_strbuf *sb, unsigned long long v);
void tx_sb_vprintf(tx_strbuf *sb, const char *fmt, va_list ap);
/* How tx_sb_put_quoted escapes bytes. */
typedef enum tx_quote_style {
  TX_QUOTE_PYTHON, /* \xNN for control bytes; bytes >= 0x80 pass through (UTF-8) */
  TX_QUOTE_C,      /* octal for control and non-ASCII bytes, \? against trigraphs */
} tx_quote_style;

/* s[0..n) as a double-quoted string literal. With split_lines (C style),
 * every source line becomes a literal of its own, so embedded text stays
 * readable in generated files. The one escaper of the printer, the CUDA
 * generator and the C launcher. */
void tx_sb_put_quoted(tx_strbuf *sb, const char *s, size_t n, tx_quote_style style,
                      int split_lines);

/* Append the whole file at `path`. Returns 0, or an errno value (ENOMEM on
 * an allocation failure). The one file reader of tools, tests and benches. */
int tx_sb_read_file(tx_strbuf *sb, const char *path);
/* Append what is left of stream f (which stays open). With limit > 0 it
 * stops once more than limit bytes are in (so an endless stdin cannot
 * exhaust memory: the caller sees sb->len > limit). Returns 0 or an errno
 * value as tx_sb_read_file. */
int tx_sb_read_stream(tx_strbuf *sb, FILE *f, size_t limit);
/* NUL-terminated contents ("" when empty); NULL after a failure. */
const char *tx_sb_cstr(tx_strbuf *sb);

#endif
