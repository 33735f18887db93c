/*
 * diag.c - collecting and rendering diagnostics.
 *
 * Must not print or exit: rendering goes to a caller's buffer.
 */
#include "ir/diag.h"

#include <stdio.h>
#include <string.h>

#include "support/mem.h"

typedef struct {
  const char *name;
  const char *text;
  size_t len;
} source;

struct tx_diag_sink {
  tx_arena *arena;
  tirx_diagnostic *items;
  size_t count, cap, errors;
  source *sources;
  size_t nsources, sources_cap;
  int internal, oom, saturated;
  int forcing;         /* set while recording an internal error past the limit */
  const char *program; /* prefix of unlocated diagnostics, or NULL */
};

tx_diag_sink *tx_diag_create(tx_arena *arena) {
  tx_diag_sink *sink = tx_mem_calloc(tx_arena_allocator(arena), 1, sizeof *sink);
  if (sink) sink->arena = arena;
  return sink;
}

void tx_diag_destroy(tx_diag_sink *sink) {
  if (!sink) return;
  const tirx_allocator *a = tx_arena_allocator(sink->arena);
  tx_mem_free(a, sink->items);
  tx_mem_free(a, sink->sources);
  tx_mem_free(a, sink);
}

const tirx_allocator *tx_diag_allocator(const tx_diag_sink *sink) {
  return tx_arena_allocator(sink->arena);
}

/* Append a source whose name and text outlive the sink; 0 when out of memory. */
static int push_source(tx_diag_sink *sink, source src) {
  if (sink->nsources == sink->sources_cap) {
    size_t cap = sink->sources_cap ? sink->sources_cap * 2 : 4;
    source *p = tx_mem_realloc(tx_diag_allocator(sink), sink->sources, cap * sizeof *p);
    if (!p) {
      sink->oom = 1;
      return 0;
    }
    sink->sources = p;
    sink->sources_cap = cap;
  }
  sink->sources[sink->nsources++] = src;
  return 1;
}

const char *tx_diag_add_source(tx_diag_sink *sink, const char *name, const char *text, size_t len) {
  const char *copy = tx_arena_strndup(sink->arena, name, strlen(name));
  if (!copy) {
    sink->oom = 1;
    return name;
  }
  return push_source(sink, (source){copy, text, len}) ? copy : name;
}

int tx_diag_share_sources(tx_diag_sink *sink, const tx_diag_sink *from) {
  for (size_t i = 0; i < from->nsources; i++)
    if (!push_source(sink, from->sources[i])) return 0;
  return 1;
}

static void push(tx_diag_sink *sink, tirx_severity sev, tirx_span span, const char *msg) {
  if (sink->count == sink->cap) {
    size_t cap = sink->cap ? sink->cap * 2 : 16;
    tirx_diagnostic *p = tx_mem_realloc(tx_diag_allocator(sink), sink->items, cap * sizeof *p);
    if (!p) {
      sink->oom = 1;
      return;
    }
    sink->items = p;
    sink->cap = cap;
  }
  sink->items[sink->count++] = (tirx_diagnostic){sev, span, msg};
  if (sev == TIRX_SEV_ERROR) sink->errors++;
}

void tx_diag_vreport(tx_diag_sink *sink, tirx_severity sev, tirx_span span, const char *fmt,
                     va_list ap) {
  if (sink->saturated && !sink->forcing) return;
  if (sev == TIRX_SEV_ERROR && sink->errors >= TX_MAX_ERRORS && !sink->forcing) {
    sink->saturated = 1;
    push(sink, TIRX_SEV_NOTE, (tirx_span){0}, "too many errors; stopping here");
    return;
  }
  tx_strbuf sb = {.alloc = tx_diag_allocator(sink)};
  tx_sb_vprintf(&sb, fmt, ap);
  const char *text = tx_sb_cstr(&sb);
  char *msg = text ? tx_arena_strndup(sink->arena, text, sb.len) : NULL;
  tx_sb_free(&sb);
  if (!msg) {
    sink->oom = 1;
    msg = "out of memory while reporting a diagnostic";
  }
  push(sink, sev, span, msg);
}

void tx_diag_report(tx_diag_sink *sink, tirx_severity sev, tirx_span span, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tx_diag_vreport(sink, sev, span, fmt, ap);
  va_end(ap);
}

void tx_internal_error(tx_diag_sink *sink, const char *stage, const char *fmt, ...) {
  tx_strbuf sb = {.alloc = tx_diag_allocator(sink)};
  va_list ap;
  va_start(ap, fmt);
  tx_sb_printf(&sb, "internal error in %s: ", stage);
  tx_sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  sink->internal = 1;
  sink->forcing = 1; /* an internal error is always recorded, even past the limit */
  const char *text = tx_sb_cstr(&sb);
  tx_diag_report(sink, TIRX_SEV_ERROR, (tirx_span){0}, "%s", text ? text : "internal error");
  sink->forcing = 0;
  tx_sb_free(&sb);
}

size_t tx_diag_count(const tx_diag_sink *sink) {
  return sink->count;
}
size_t tx_diag_errors(const tx_diag_sink *sink) {
  return sink->errors;
}
int tx_diag_has_internal(const tx_diag_sink *sink) {
  return sink->internal;
}
int tx_diag_out_of_memory(const tx_diag_sink *sink) {
  return sink->oom;
}
void tx_diag_note_oom(tx_diag_sink *sink) {
  sink->oom = 1;
}

tx_diag_mark tx_diag_mark_now(const tx_diag_sink *sink) {
  return (tx_diag_mark){sink->count, sink->errors, sink->internal, sink->oom, sink->saturated};
}

int tx_diag_oom_since(const tx_diag_sink *sink, tx_diag_mark mark) {
  return sink->oom && !mark.oom;
}

void tx_diag_nomem_since(tx_diag_sink *sink, tx_diag_mark mark) {
  if (mark.count <= sink->count) {
    sink->count = mark.count;
    sink->errors = mark.errors;
    sink->internal = mark.internal;
    sink->saturated = mark.saturated;
  }
  sink->oom = 1;
  /* A static message: formatting one could fail too. Room was freed above
   * unless nothing was reported since the mark. */
  push(sink, TIRX_SEV_ERROR, (tirx_span){0}, "out of memory");
}

int tx_diag_saturated(const tx_diag_sink *sink) {
  return sink->saturated;
}
const tirx_diagnostic *tx_diag_at(const tx_diag_sink *sink, size_t i) {
  return i < sink->count ? &sink->items[i] : NULL;
}

void tx_diag_clear(tx_diag_sink *sink) {
  sink->count = sink->errors = 0;
  sink->internal = sink->saturated = sink->oom = 0;
}

static const source *find_source(const tx_diag_sink *sink, const char *name) {
  for (size_t i = sink->nsources; i-- > 0;)
    if (sink->sources[i].name == name || (name && strcmp(sink->sources[i].name, name) == 0))
      return &sink->sources[i];
  return NULL;
}

/* Quote line `line` of src and put a caret under columns [col, end). Long
 * lines are clipped around the caret so a 1 MB line stays readable. */
static void render_excerpt(const source *src, const tirx_span *sp, tx_strbuf *out) {
  const char *p = src->text, *end = src->text + src->len;
  for (uint32_t l = 1; l < sp->line && p < end; p++)
    if (*p == '\n') l++;
  const char *eol = p;
  while (eol < end && *eol != '\n')
    eol++;
  size_t len = (size_t)(eol - p);
  if (len && p[len - 1] == '\r') len--;
  size_t col = sp->col ? sp->col - 1 : 0;
  if (col > len) col = len;
  size_t width = 1;
  if (sp->end_line == sp->line && sp->end_col > sp->col) width = sp->end_col - sp->col;
  const size_t max_shown = 160;
  size_t from = 0;
  if (len > max_shown && col > max_shown / 2) from = col - max_shown / 2;
  size_t to = from + max_shown < len ? from + max_shown : len;
  if (width > to - col && to > col) width = to - col;
  tx_sb_puts(out, "  ");
  if (from) tx_sb_puts(out, "...");
  for (size_t i = from; i < to; i++) {
    unsigned char c = (unsigned char)p[i];
    tx_sb_putc(out, (c == '\t' || (c >= 0x20 && c != 0x7f) ? (char)c : '?'));
  }
  if (to < len) tx_sb_puts(out, "...");
  tx_sb_puts(out, "\n  ");
  if (from) tx_sb_puts(out, "   ");
  for (size_t i = from; i < col; i++)
    tx_sb_putc(out, p[i] == '\t' ? '\t' : ' ');
  tx_sb_putc(out, '^');
  for (size_t i = 1; i < width; i++)
    tx_sb_putc(out, '~');
  tx_sb_putc(out, '\n');
}

static const char *severity_name(tirx_severity sev) {
  switch (sev) {
  case TIRX_SEV_ERROR:
    return "error";
  case TIRX_SEV_WARNING:
    return "warning";
  case TIRX_SEV_NOTE:
    return "note";
  }
  return "error";
}

int tx_diag_set_program(tx_diag_sink *sink, const char *name) {
  if (!name || !*name) {
    sink->program = NULL;
    return 1;
  }
  char *copy = tx_arena_strndup(sink->arena, name, strlen(name));
  if (copy) sink->program = copy;
  return copy != NULL;
}

void tx_diag_render(const tx_diag_sink *sink, tx_strbuf *out) {
  for (size_t i = 0; i < sink->count; i++) {
    const tirx_diagnostic *d = &sink->items[i];
    const char *sev = severity_name(d->severity);
    if (d->span.file && d->span.line)
      tx_sb_printf(out, "%s:%u:%u: %s: %s\n", d->span.file, d->span.line, d->span.col, sev,
                   d->message);
    else if (d->span.file)
      tx_sb_printf(out, "%s: %s: %s\n", d->span.file, sev, d->message);
    else if (sink->program)
      tx_sb_printf(out, "%s: %s: %s\n", sink->program, sev, d->message);
    else
      tx_sb_printf(out, "%s: %s\n", sev, d->message);
    const source *src = d->span.line ? find_source(sink, d->span.file) : NULL;
    if (src) render_excerpt(src, &d->span, out);
  }
}
