/*
 * api_parse.c - tirx_parse_string / tirx_parse_file (tirx.h): text to a
 * module handle on a context.
 *
 * Reads the file (or stdin for "-"), hands the bytes to the frontend
 * (tx_frontend_parse) and wraps the module it builds in a handle. Stage
 * timings are recorded on the context for `tirxc --time`.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "driver/context.h"
#include "frontend/ast.h"
#include "frontend/frontend.h"
#include "support/clock.h"
#include "support/strbuf.h"

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

/* Parse the bytes and, when that worked, give the module a handle. */
static tirx_status parse_text(tirx_ctx *ctx, const char *name, const char *text, size_t len,
                              tirx_module **out) {
  tx_parse_times times;
  const tx_module *mod = NULL;
  tirx_status st = tx_frontend_parse(&ctx->ir, ctx->diags, name, text, len, &times, &mod);
  ctx->last.parse_ms = times.parse_ms;
  ctx->last.build_ms = times.build_ms;
  if (st != TIRX_OK) return st;
  tirx_module *handle = tx_arena_alloc(ctx->arena, sizeof *handle);
  if (!handle) {
    tx_diag_nomem_since(ctx->diags, tx_diag_mark_now(ctx->diags));
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

tirx_status tirx_parse_file(tirx_ctx *ctx, const char *path, tirx_module **out) {
  if (out) *out = NULL;
  if (!ctx || !path || !out) return TIRX_ERR_USAGE;
  ctx->last = (tx_timings){0};
  int is_stdin = strcmp(path, "-") == 0;
  const char *name = is_stdin ? "<stdin>" : path;

  double t0 = tx_now_ms();
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  /* fopen's own buffer comes from the C library; its failure is still an
   * out-of-memory one, not an I/O error. */
  int opened = f != NULL, err = opened ? 0 : errno;
  /* One byte past the limit is enough for the frontend to refuse it. */
  tx_strbuf sb = {.alloc = tx_arena_allocator(ctx->arena)};
  if (opened) {
    errno = 0;
    err = tx_sb_read_stream(&sb, f, (size_t)TX_MAX_INPUT_BYTES);
    if (!is_stdin) fclose(f);
  }
  ctx->last.read_ms = tx_now_ms() - t0;
  if (err == ENOMEM) {
    tx_sb_free(&sb);
    tx_diag_nomem_since(ctx->diags, tx_diag_mark_now(ctx->diags));
    return TIRX_ERR_NOMEM;
  }
  if (err) {
    char why[256];
    tx_sb_free(&sb);
    describe_errno(err, why, sizeof why);
    tx_error(ctx->diags, ((tirx_span){0}), "cannot %s '%s': %s", opened ? "read" : "open", name,
             why);
    return TIRX_ERR_IO;
  }
  tirx_status st = parse_text(ctx, name, sb.data, sb.len, out);
  tx_sb_free(&sb);
  return st;
}
