/*
 * diag.h - the diagnostics sink of a context.
 *
 * User errors are located (a span into a registered source); internal errors
 * name the stage that hit the bug and turn the status into
 * TIRX_ERR_INTERNAL. Messages are copied into the arena. Nothing is printed
 * here: rendering writes into a tx_strbuf that the caller owns.
 */
#ifndef TIRX_IR_DIAG_H
#define TIRX_IR_DIAG_H

#include <stdarg.h>
#include <stddef.h>

#include "ir/arena.h"
#include "support/strbuf.h"
#include "tirx/tirx.h"

/* After this many errors a sink records one final note and drops the rest. */
enum { TX_MAX_ERRORS = 100 };

typedef struct tx_diag_sink tx_diag_sink;

/* The sink's tables come from the arena's allocator, which the code that
 * reports into the sink also uses for its own scratch memory (the sink is
 * what the code generators are handed of their context). */
tx_diag_sink *tx_diag_create(tx_arena *arena);
void tx_diag_destroy(tx_diag_sink *sink);
const tirx_allocator *tx_diag_allocator(const tx_diag_sink *sink);

/* Register the text of a source so that diagnostics can quote its lines. The
 * text is not copied: it must live as long as the sink (copy it into the
 * arena first). Returns the interned-by-pointer name to put in spans. */
const char *tx_diag_add_source(tx_diag_sink *sink, const char *name, const char *text, size_t len);
/* Make the sources of from known to sink too (names and texts shared, not
 * copied: from must outlive sink), so spans into them render with their
 * source lines. 0 when out of memory (the sink then reports it). */
int tx_diag_share_sources(tx_diag_sink *sink, const tx_diag_sink *from);

void tx_diag_report(tx_diag_sink *sink, tirx_severity sev, tirx_span span, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void tx_diag_vreport(tx_diag_sink *sink, tirx_severity sev, tirx_span span, const char *fmt,
                     va_list ap);
#define tx_error(sink, span, ...) tx_diag_report((sink), TIRX_SEV_ERROR, (span), __VA_ARGS__)
#define tx_note(sink, span, ...) tx_diag_report((sink), TIRX_SEV_NOTE, (span), __VA_ARGS__)
/* An internal compiler error in `stage` (a bug, never the user's fault). */
void tx_internal_error(tx_diag_sink *sink, const char *stage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

size_t tx_diag_count(const tx_diag_sink *sink);
size_t tx_diag_errors(const tx_diag_sink *sink);
int tx_diag_has_internal(const tx_diag_sink *sink);
/* Set when any allocation for diagnostics failed, or a stage said that one
 * of its own failed (tx_diag_note_oom). */
int tx_diag_out_of_memory(const tx_diag_sink *sink);
void tx_diag_note_oom(tx_diag_sink *sink);

/* A point in the sink's history. When a stage runs out of memory, what it
 * reported after the mark may be a consequence of the failure (a name that
 * did not intern looks unknown, a list cut short looks malformed), so
 * tx_diag_nomem_since drops it and leaves one unlocated "out of memory"
 * error: an allocation failure reads as nothing else. */
typedef struct tx_diag_mark {
  size_t count, errors;
  int internal, oom, saturated;
} tx_diag_mark;
tx_diag_mark tx_diag_mark_now(const tx_diag_sink *sink);
/* 1 when an allocation failed since the mark (the oom flag was raised). */
int tx_diag_oom_since(const tx_diag_sink *sink, tx_diag_mark mark);
void tx_diag_nomem_since(tx_diag_sink *sink, tx_diag_mark mark);
/* True once TX_MAX_ERRORS errors were reported: producers may stop early. */
int tx_diag_saturated(const tx_diag_sink *sink);
const tirx_diagnostic *tx_diag_at(const tx_diag_sink *sink, size_t i);
void tx_diag_clear(tx_diag_sink *sink);

/* The prefix of diagnostics without a file (`tirxc: error: ...`); NULL or
 * "" for none, the default. Copied; 0 when out of memory. */
int tx_diag_set_program(tx_diag_sink *sink, const char *name);
/* Render every diagnostic: `file:line:col: error: msg`, source line, caret;
 * one without a file is `error: msg`, after the program name when set. */
void tx_diag_render(const tx_diag_sink *sink, tx_strbuf *out);

#endif
