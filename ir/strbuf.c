/*
 * strbuf.c - growable byte buffer (malloc'ed; freed by tx_sb_free).
 */
#include "ir/strbuf.h"

#include <errno.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(tx_strbuf *sb, size_t extra) {
  if (sb->failed) return 0;
  if (extra > SIZE_MAX - sb->len - 1) {
    sb->failed = 1;
    return 0;
  }
  size_t need = sb->len + extra + 1;
  if (need <= sb->cap) return 1;
  size_t cap = sb->cap ? sb->cap : 256;
  while (cap < need)
    cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  char *p = realloc(sb->data, cap);
  if (!p) {
    sb->failed = 1;
    return 0;
  }
  sb->data = p;
  sb->cap = cap;
  return 1;
}

void tx_sb_free(tx_strbuf *sb) {
  free(sb->data);
  *sb = (tx_strbuf){0};
}

void tx_sb_putn(tx_strbuf *sb, const char *s, size_t n) {
  if (!reserve(sb, n)) return;
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void tx_sb_puts(tx_strbuf *sb, const char *s) {
  tx_sb_putn(sb, s, strlen(s));
}

void tx_sb_putc(tx_strbuf *sb, char c) {
  tx_sb_putn(sb, &c, 1);
}

void tx_sb_vprintf(tx_strbuf *sb, const char *fmt, va_list ap) {
  if (sb->failed) return;
  /* Format straight into the spare room; only a result that does not fit
   * pays for a second pass. */
  if (sb->cap - sb->len < 64 && !reserve(sb, 64)) return;
  va_list copy;
  va_copy(copy, ap);
  size_t room = sb->cap - sb->len;
  int n = vsnprintf(sb->data + sb->len, room, fmt, copy);
  va_end(copy);
  if (n < 0) {
    sb->failed = 1;
    return;
  }
  if ((size_t)n >= room) {
    if (!reserve(sb, (size_t)n)) return;
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
  }
  sb->len += (size_t)n;
}

void tx_sb_printf(tx_strbuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tx_sb_vprintf(sb, fmt, ap);
  va_end(ap);
}

const char *tx_sb_cstr(tx_strbuf *sb) {
  if (sb->failed) return NULL;
  return sb->data ? sb->data : "";
}

int tx_sb_read_file(tx_strbuf *sb, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return errno ? errno : EIO;
  char buf[1 << 16];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    tx_sb_putn(sb, buf, n);
  int err = ferror(f) ? (errno ? errno : EIO) : sb->failed ? ENOMEM : 0;
  fclose(f);
  if (!err && !sb->data) tx_sb_putn(sb, "", 0); /* an empty file still gets a buffer */
  return err ? err : sb->failed ? ENOMEM : 0;
}

void tx_sb_put_quoted(tx_strbuf *sb, const char *s, size_t n, tx_quote_style style,
                      int split_lines) {
  int c_style = style == TX_QUOTE_C;
  tx_sb_putc(sb, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      tx_sb_putc(sb, '\\');
      tx_sb_putc(sb, (char)c);
    } else if (c == '\n') {
      tx_sb_puts(sb, "\\n");
      if (split_lines && i + 1 < n) tx_sb_puts(sb, "\"\n    \"");
    } else if (c == '\t') {
      tx_sb_puts(sb, "\\t");
    } else if (c == '\r') {
      tx_sb_puts(sb, "\\r");
    } else if (c == '?' && c_style) {
      tx_sb_puts(sb, "\\?");
    } else if (c < 0x20 || c == 0x7f || (c_style && c >= 0x80)) {
      /* C: octal takes at most three digits, so a following digit cannot
       * extend it (a hex escape would swallow it). */
      tx_sb_printf(sb, c_style ? "\\%03o" : "\\x%02x", c);
    } else {
      tx_sb_putc(sb, (char)c);
    }
  }
  tx_sb_putc(sb, '"');
}
