/*
 * source.c - tx_frontend_parse (frontend.h): source text to a module.
 *
 * Normalizes the text as Python does, copies it into the arena (diagnostics
 * quote it for the arena's whole life), runs the parser and the builder, and
 * turns whatever went wrong into one tirx_status. Reads no files and knows
 * no public handles: that is driver/api_parse.c.
 */
#include <string.h>

#include "frontend/ast.h"
#include "frontend/builder.h"
#include "frontend/frontend.h"
#include "ir/arena.h"
#include "support/clock.h"

/* What Python does to source text before tokenizing it: a UTF-8 byte-order
 * mark at the start is dropped, and a carriage return that does not start a
 * CRLF pair ends a line (old Mac line endings) -- so the lexer, spans and
 * quoted lines all see one form. Edits the private copy in place; the
 * result is never longer. */
static size_t normalize_source(char *text, size_t len) {
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
    memmove(text, text + 3, len - 3 + 1); /* with the NUL */
    len -= 3;
  }
  for (char *p = memchr(text, '\r', len); p; p = memchr(p + 1, '\r', len - (size_t)(p + 1 - text)))
    if (p + 1 == text + len || p[1] != '\n') *p = '\n';
  return len;
}

tirx_status tx_frontend_parse(tx_ir *ir, tx_diag_sink *d, const char *name, const char *text,
                              size_t len, tx_parse_times *times, const tx_module **out) {
  tx_parse_times unused;
  if (!times) times = &unused;
  *times = (tx_parse_times){0};
  *out = NULL;
  tx_diag_mark mark = tx_diag_mark_now(d);

  if (len > (size_t)TX_MAX_INPUT_BYTES) {
    /* Registered without text: there is no line worth quoting. */
    const char *file = tx_diag_add_source(d, name, "", 0);
    tx_error(d, ((tirx_span){.file = file}), "file too large (limit %d MiB)",
             TX_MAX_INPUT_BYTES >> 20);
    return TIRX_ERR_INPUT;
  }

  double t0 = tx_now_ms();
  /* The copy also NUL-terminates, which the caller's text need not be. */
  char *copy = tx_arena_strndup(ir->arena, len ? text : "", len);
  if (!copy) {
    tx_diag_nomem_since(d, mark);
    return TIRX_ERR_NOMEM;
  }
  len = normalize_source(copy, len);
  const char *file = tx_diag_add_source(d, name, copy, len);
  /* The AST lives in an arena of its own, freed once the IR is built: it
   * is several times the size of the IR it becomes, and the memory goes
   * straight back to the passes that run next. Nothing built keeps a
   * pointer into it (names are interned, string literals copied). */
  tx_arena *ast_arena = tx_arena_create_like(ir->arena);
  if (!ast_arena) {
    tx_diag_nomem_since(d, mark);
    return TIRX_ERR_NOMEM;
  }
  tx_parse_env env = {ast_arena, ir->strings, d};
  tx_ast_list stmts = {0};
  tirx_status st = tx_parse_python(&env, file, copy, len, &stmts);
  double t1 = tx_now_ms();
  times->parse_ms = t1 - t0;

  tx_module *mod = NULL;
  if (st == TIRX_OK) {
    st = tx_build_module(ir, d, file, &stmts, &mod);
    times->build_ms = tx_now_ms() - t1;
  }
  tx_arena_destroy(ast_arena);

  /* Any allocation that failed on the way (the sink's flag covers those
   * whose stage went on, such as a source that could not be registered
   * for quoting) makes the parse an out-of-memory one, whatever the
   * stages said: their errors may be consequences of it. */
  if (st == TIRX_ERR_NOMEM || tx_diag_oom_since(d, mark)) {
    tx_diag_nomem_since(d, mark);
    return TIRX_ERR_NOMEM;
  }
  /* A stage that reported an error but said OK is still a failed parse. */
  if (st == TIRX_OK && tx_diag_errors(d) > mark.errors) st = TIRX_ERR_INPUT;
  if (st == TIRX_OK && !mod) {
    tx_internal_error(d, "builder", "succeeded without producing a module");
    st = TIRX_ERR_INTERNAL;
  }
  if (st != TIRX_OK) {
    if (tx_diag_has_internal(d) && !mark.internal) {
      st = TIRX_ERR_INTERNAL;
    } else if (st == TIRX_ERR_INTERNAL) {
      /* Say something, or the user gets a failure with nothing to read. */
      tx_internal_error(d, "frontend", "a stage failed without a diagnostic");
    } else if (st != TIRX_ERR_INPUT) {
      tx_internal_error(d, "frontend", "unexpected status '%s'", tirx_status_name(st));
      st = TIRX_ERR_INTERNAL;
    }
    return st;
  }

  *out = mod;
  return TIRX_OK;
}
