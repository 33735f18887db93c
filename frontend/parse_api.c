/*
 * parse_api.c - tirx_parse_string / tirx_parse_file: text to a module handle.
 *
 * Reads the input, copies it into the context's arena (diagnostics quote it
 * for the context's whole life), runs the parser and the builder, and turns
 * whatever went wrong into one tirx_status. Stage timings are recorded on the
 * context for `tirxc --time`.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "frontend/ast.h"
#include "frontend/builder.h"
#include "ir/arena.h"
#include "ir/context.h"
#include "support/mem.h"

/* Stand-in file name when the caller gives none. */
static const char *const STRING_NAME = "<string>";

/* A thread-safe strerror: the library may run on several threads at once. */
static void describe_errno(int err, char *buf, size_t cap) {
#if defined(_GNU_SOURCE)
  const char *s = strerror_r(err, buf, cap); /* GNU flavour may not fill buf */
  if (s != buf) snprintf(buf, cap, "%s", s);
#else
  if (strerror_r(err, buf, cap) != 0) snprintf(buf, cap, "error %d", err);
#endif
}

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

/* Everything parse_string does once the bytes are in memory. */
static tirx_status parse_text(tirx_ctx *ctx, const char *name, const char *text, size_t len,
                              tirx_module **out) {
  tx_diag_sink *d = ctx->diags;
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
  char *copy = tx_arena_strndup(ctx->arena, len ? text : "", len);
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
  tx_arena *ast_arena = tx_arena_create_like(ctx->arena);
  if (!ast_arena) {
    tx_diag_nomem_since(d, mark);
    return TIRX_ERR_NOMEM;
  }
  tx_parse_env env = {ast_arena, ctx->strings, d};
  tx_ast_list stmts = {0};
  tirx_status st = tx_parse_python(&env, file, copy, len, &stmts);
  double t1 = tx_now_ms();
  ctx->last.parse_ms = t1 - t0;

  tx_module *mod = NULL;
  if (st == TIRX_OK) {
    st = tx_build_module(&ctx->ir, d, file, &stmts, &mod);
    ctx->last.build_ms = tx_now_ms() - t1;
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

  tirx_module *handle = tx_arena_alloc(ctx->arena, sizeof *handle);
  if (!handle) {
    tx_diag_nomem_since(d, mark);
    return TIRX_ERR_NOMEM;
  }
  handle->ctx = ctx;
  handle->mod = mod;
  *out = handle;
  return TIRX_OK;
}

tirx_status tirx_parse_string(tirx_ctx *ctx, const char *name, const char *text, size_t len,
                              tirx_module **out) {
  if (out) *out = NULL;
  if (!ctx || !out || (!text && len > 0)) return TIRX_ERR_USAGE;
  ctx->last = (tx_timings){0};
  return parse_text(ctx, name ? name : STRING_NAME, text, len, out);
}

/* Read all of `f` into a buffer from `a`, stopping one byte past the limit
 * so an endless stdin cannot exhaust memory. Returns 0, or an errno value
 * (ENOMEM when an allocation failed). */
static int read_all(const tirx_allocator *a, FILE *f, char **data, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = tx_mem_alloc(a, cap);
  if (!buf) return ENOMEM;
  for (;;) {
    if (n == cap) {
      size_t ncap = cap * 2;
      if (ncap > (size_t)TX_MAX_INPUT_BYTES + 1) ncap = (size_t)TX_MAX_INPUT_BYTES + 1;
      if (ncap == cap) break; /* n is past the limit: the caller reports it */
      char *p = tx_mem_realloc(a, buf, ncap);
      if (!p) {
        tx_mem_free(a, buf);
        return ENOMEM;
      }
      buf = p;
      cap = ncap;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) {
      if (ferror(f)) {
        int err = errno ? errno : EIO;
        tx_mem_free(a, buf);
        return err;
      }
      break;
    }
  }
  *data = buf;
  *len = n;
  return 0;
}

tirx_status tirx_parse_file(tirx_ctx *ctx, const char *path, tirx_module **out) {
  if (out) *out = NULL;
  if (!ctx || !path || !out) return TIRX_ERR_USAGE;
  ctx->last = (tx_timings){0};
  int is_stdin = strcmp(path, "-") == 0;
  const char *name = is_stdin ? "<stdin>" : path;
  char why[256];

  double t0 = tx_now_ms();
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  /* fopen's own buffer comes from the C library; its failure is still an
   * out-of-memory one, not an I/O error. */
  int opened = f != NULL, err = opened ? 0 : errno;
  char *data = NULL;
  size_t len = 0;
  const tirx_allocator *a = tx_arena_allocator(ctx->arena);
  if (opened) {
    errno = 0;
    err = read_all(a, f, &data, &len);
    if (!is_stdin) fclose(f);
  }
  ctx->last.read_ms = tx_now_ms() - t0;
  if (err == ENOMEM) {
    tx_diag_nomem_since(ctx->diags, tx_diag_mark_now(ctx->diags));
    return TIRX_ERR_NOMEM;
  }
  if (err) {
    describe_errno(err, why, sizeof why);
    tx_error(ctx->diags, ((tirx_span){0}), "cannot %s '%s': %s", opened ? "read" : "open", name,
             why);
    return TIRX_ERR_IO;
  }
  tirx_status st = parse_text(ctx, name, data, len, out);
  tx_mem_free(a, data);
  return st;
}
