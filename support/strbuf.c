/*
 * strbuf.c - growable byte buffer (from its allocator; freed by tx_sb_free).
 */
#include "support/strbuf.h"

#include <errno.h>
#include <stddef.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "support/mem.h"

/* Sticky failure: with cap == len the inline appends always take the slow
 * path, which sees `failed` and does nothing. */
static void fail(tx_strbuf *sb) {
  sb->failed = 1;
  sb->cap = sb->len;
}

static int reserve(tx_strbuf *sb, size_t extra) {
  if (sb->failed) return 0;
  if (extra > SIZE_MAX - sb->len - 1) {
    fail(sb);
    return 0;
  }
  size_t need = sb->len + extra + 1;
  if (need <= sb->cap) return 1;
  size_t cap = sb->cap ? sb->cap : 256;
  while (cap < need)
    cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  char *p = tx_mem_realloc(sb->alloc, sb->data, cap);
  if (!p) {
    fail(sb);
    return 0;
  }
  sb->data = p;
  sb->cap = cap;
  return 1;
}

void tx_sb_set_failed(tx_strbuf *sb) {
  fail(sb);
}

void tx_sb_free(tx_strbuf *sb) {
  tx_mem_free(sb->alloc, sb->data);
  *sb = (tx_strbuf){.alloc = sb->alloc};
}

void tx_sb_putn_grow(tx_strbuf *sb, const char *s, size_t n) {
  if (!reserve(sb, n)) return;
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

/* The conversions the fast formatter handles: %s %.*s %c %d %i %u %x with
 * no flags or width, the l/ll/z length modifiers, and %%. Code generation
 * formats thousands of short fragments per kernel, where vsnprintf's
 * generality costs more than the text itself. */
static int fast_format_ok(const char *fmt) {
  for (const char *p = fmt; *p;) {
    if (*p++ != '%') continue;
    if (*p == '%') {
      p++;
      continue;
    }
    if (p[0] == '.' && p[1] == '*' && p[2] == 's') {
      p += 3;
      continue;
    }
    if (*p == 'z')
      p++;
    else
      for (int i = 0; i < 2 && *p == 'l'; i++)
        p++;
    switch (*p++) {
    case 's':
    case 'c':
    case 'd':
    case 'i':
    case 'u':
    case 'x':
      break;
    default:
      return 0;
    }
  }
  return 1;
}

static void put_unsigned(tx_strbuf *sb, unsigned long long v, int hex) {
  char buf[24], *end = buf + sizeof buf, *p = end;
  if (hex) do {
      *--p = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v);
  else
    do {
      *--p = (char)('0' + v % 10);
      v /= 10;
    } while (v);
  tx_sb_putn(sb, p, (size_t)(end - p));
}

void tx_sb_put_int(tx_strbuf *sb, long long v) {
  if (v < 0) tx_sb_putc(sb, '-');
  put_unsigned(sb, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, 0);
}

void tx_sb_put_uint(tx_strbuf *sb, unsigned long long v) {
  put_unsigned(sb, v, 0);
}

static void fast_format(tx_strbuf *sb, const char *fmt, va_list ap) {
  for (const char *p = fmt;;) {
    const char *pct = p;
    while (*pct && *pct != '%')
      pct++;
    if (pct > p) tx_sb_putn(sb, p, (size_t)(pct - p));
    if (!*pct) return;
    p = pct + 1;
    if (*p == '%') {
      tx_sb_putc(sb, '%');
      p++;
      continue;
    }
    if (p[0] == '.') { /* %.*s */
      int n = va_arg(ap, int);
      const char *str = va_arg(ap, const char *);
      size_t len = 0;
      while ((n < 0 || len < (size_t)n) && str[len])
        len++;
      tx_sb_putn(sb, str, len);
      p += 3;
      continue;
    }
    int longs = 0, size = 0;
    if (*p == 'z') {
      size = 1;
      p++;
    } else
      while (*p == 'l') {
        longs++;
        p++;
      }
    char conv = *p++;
    if (conv == 's') {
      const char *str = va_arg(ap, const char *);
      tx_sb_puts(sb, str ? str : "(null)");
    } else if (conv == 'c') {
      tx_sb_putc(sb, (char)va_arg(ap, int));
    } else if (conv == 'd' || conv == 'i') {
      long long v = size         ? (long long)va_arg(ap, ptrdiff_t)
                    : longs == 2 ? va_arg(ap, long long)
                    : longs == 1 ? va_arg(ap, long)
                                 : va_arg(ap, int);
      tx_sb_put_int(sb, v);
    } else {
      unsigned long long v = size         ? va_arg(ap, size_t)
                             : longs == 2 ? va_arg(ap, unsigned long long)
                             : longs == 1 ? va_arg(ap, unsigned long)
                                          : va_arg(ap, unsigned);
      put_unsigned(sb, v, conv == 'x');
    }
  }
}

void tx_sb_vprintf(tx_strbuf *sb, const char *fmt, va_list ap) {
  if (sb->failed) return;
  if (fast_format_ok(fmt)) {
    va_list copy;
    va_copy(copy, ap);
    fast_format(sb, fmt, copy);
    va_end(copy);
    return;
  }
  /* Format straight into the spare room; only a result that does not fit
   * pays for a second pass. */
  if (sb->cap - sb->len < 64 && !reserve(sb, 64)) return;
  va_list copy;
  va_copy(copy, ap);
  size_t room = sb->cap - sb->len;
  int n = vsnprintf(sb->data + sb->len, room, fmt, copy);
  va_end(copy);
  if (n < 0) {
    fail(sb);
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

int tx_sb_read_stream(tx_strbuf *sb, FILE *f, size_t limit) {
  char buf[1 << 16];
  size_t total = 0, n;
  while ((!limit || total <= limit) && (n = fread(buf, 1, sizeof buf, f)) > 0) {
    tx_sb_putn(sb, buf, n);
    total += n;
  }
  int err = ferror(f) ? (errno ? errno : EIO) : 0;
  if (!err && !sb->data) tx_sb_putn(sb, "", 0); /* an empty file still gets a buffer */
  return err ? err : sb->failed ? ENOMEM : 0;
}

int tx_sb_read_file(tx_strbuf *sb, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return errno ? errno : EIO;
  int err = tx_sb_read_stream(sb, f, 0);
  fclose(f);
  return err;
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
