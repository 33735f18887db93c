/*
 * context.c - the public context, module and diagnostics API (tirx.h).
 *
 * Every entry point checks its pointers first and answers TIRX_ERR_USAGE (or a
 * neutral value for calls that return no status) rather than crashing: the
 * API is used from other languages where a NULL slips through easily. Nothing
 * here prints except into a stream the caller passes.
 */
#include "driver/context.h"

#include <string.h>

#include "ir/equal.h"
#include "ir/printer.h"
#include "support/strbuf.h"

tirx_status tirx_ctx_create(tirx_ctx **out) {
  return tirx_ctx_create_with(NULL, out);
}

/* A context over a fresh arena whose strings look in parent's first (or not,
 * when parent is NULL). */
static tirx_status create_ctx(const tirx_allocator *alloc, const tirx_ctx *parent, tirx_ctx **out) {
  *out = NULL;
  tx_arena *arena = tx_arena_create(alloc);
  if (!arena) return TIRX_ERR_NOMEM;
  /* The context struct itself lives in its arena: one less thing to free. */
  tirx_ctx *ctx = tx_arena_alloc(arena, sizeof *ctx);
  tx_interner *strings = !ctx     ? NULL
                         : parent ? tx_interner_create_child(arena, parent->strings)
                                  : tx_interner_create(arena);
  tx_diag_sink *diags = strings ? tx_diag_create(arena) : NULL;
  if (!diags || (parent && !tx_diag_share_sources(diags, parent->diags))) {
    tx_diag_destroy(diags);
    tx_interner_destroy(strings);
    tx_arena_destroy(arena);
    return TIRX_ERR_NOMEM;
  }
  ctx->arena = arena;
  ctx->strings = strings;
  ctx->diags = diags;
  ctx->ir = (tx_ir){arena, strings};
  *out = ctx;
  return TIRX_OK;
}

tirx_status tirx_ctx_create_with(const tirx_allocator *alloc, tirx_ctx **out) {
  if (!out) return TIRX_ERR_USAGE;
  return create_ctx(alloc, NULL, out);
}

tirx_status tx_ctx_create_child(const tirx_ctx *parent, const tirx_allocator *alloc,
                                tirx_ctx **out) {
  return create_ctx(alloc, parent, out);
}

void tirx_ctx_destroy(tirx_ctx *ctx) {
  if (!ctx) return;
  tx_diag_destroy(ctx->diags);
  tx_interner_destroy(ctx->strings);
  tx_arena_destroy(ctx->arena); /* frees ctx too: it was allocated there */
}

void tx_ctx_last_timings(const tirx_ctx *ctx, tx_timings *out) {
  if (!out) return;
  *out = ctx ? ctx->last : (tx_timings){0};
}

/* ---- Buffer contract shared by the printers --------------------------------- */

/* Copy a finished strbuf into the caller's buffer: NUL-terminated whenever
 * cap > 0, *needed = full length, TRUNCATED when it did not fit. */
static tirx_status deliver(tx_strbuf *sb, char *buf, size_t cap, size_t *needed) {
  const char *text = tx_sb_cstr(sb);
  if (!text) {
    tx_sb_free(sb);
    if (needed) *needed = 0;
    if (cap > 0) buf[0] = '\0';
    return TIRX_ERR_NOMEM;
  }
  size_t len = sb->len;
  if (needed) *needed = len;
  tirx_status st = TIRX_OK;
  if (cap > 0) {
    size_t n = len < cap ? len : cap - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
  }
  if (len >= cap) st = TIRX_ERR_TRUNCATED;
  tx_sb_free(sb);
  return st;
}

static tirx_status write_stream(tx_strbuf *sb, FILE *stream) {
  const char *text = tx_sb_cstr(sb);
  tirx_status st = TIRX_OK;
  if (!text)
    st = TIRX_ERR_NOMEM;
  else if (sb->len && fwrite(text, 1, sb->len, stream) != sb->len)
    st = TIRX_ERR_IO;
  else if (fflush(stream) != 0 || ferror(stream))
    st = TIRX_ERR_IO;
  tx_sb_free(sb);
  return st;
}

/* ---- Modules ---------------------------------------------------------------- */

tirx_status tirx_module_print(const tirx_module *mod, char *buf, size_t cap, size_t *needed) {
  if (needed) *needed = 0;
  /* buf may be NULL only for a pure size query (cap == 0), as with snprintf. */
  if (!mod || !mod->mod || (!buf && cap > 0)) return TIRX_ERR_USAGE;
  tx_strbuf sb = {.alloc = tx_arena_allocator(mod->ctx->arena)};
  tx_print_module(mod->mod, &sb);
  return deliver(&sb, buf, cap, needed);
}

tirx_status tirx_module_print_file(const tirx_module *mod, FILE *stream) {
  if (!mod || !mod->mod || !stream) return TIRX_ERR_USAGE;
  tx_strbuf sb = {.alloc = tx_arena_allocator(mod->ctx->arena)};
  tx_print_module(mod->mod, &sb);
  return write_stream(&sb, stream);
}

int tirx_module_equal(const tirx_module *a, const tirx_module *b) {
  if (!a || !b || !a->mod || !b->mod) return a == b;
  if (a == b) return 1;
  return tx_module_equal_with(tx_arena_allocator(a->ctx->arena), a->mod, b->mod);
}

uint64_t tirx_module_hash(const tirx_module *mod) {
  if (!mod || !mod->mod) return 0;
  return tx_module_hash_with(tx_arena_allocator(mod->ctx->arena), mod->mod);
}

size_t tirx_module_func_count(const tirx_module *mod) {
  return mod && mod->mod ? mod->mod->nfuncs : 0;
}

const char *tirx_module_func_name(const tirx_module *mod, size_t i) {
  if (!mod || !mod->mod || i >= mod->mod->nfuncs || !mod->mod->funcs[i]) return NULL;
  return mod->mod->funcs[i]->name;
}

/* ---- Diagnostics ------------------------------------------------------------- */

size_t tirx_diag_count(const tirx_ctx *ctx) {
  return ctx ? tx_diag_count(ctx->diags) : 0;
}

tirx_status tirx_diag_get(const tirx_ctx *ctx, size_t i, tirx_diagnostic *out) {
  if (!ctx || !out) return TIRX_ERR_USAGE;
  const tirx_diagnostic *d = tx_diag_at(ctx->diags, i);
  if (!d) return TIRX_ERR_USAGE;
  *out = *d;
  return TIRX_OK;
}

size_t tirx_diag_error_count(const tirx_ctx *ctx) {
  return ctx ? tx_diag_errors(ctx->diags) : 0;
}

tirx_status tirx_diag_render_file(const tirx_ctx *ctx, FILE *stream) {
  if (!ctx || !stream) return TIRX_ERR_USAGE;
  tx_strbuf sb = {.alloc = tx_arena_allocator(ctx->arena)};
  tx_diag_render(ctx->diags, &sb);
  return write_stream(&sb, stream);
}

tirx_status tirx_diag_render(const tirx_ctx *ctx, char *buf, size_t cap, size_t *needed) {
  if (needed) *needed = 0;
  if (!ctx || (!buf && cap > 0)) return TIRX_ERR_USAGE;
  tx_strbuf sb = {.alloc = tx_arena_allocator(ctx->arena)};
  tx_diag_render(ctx->diags, &sb);
  return deliver(&sb, buf, cap, needed);
}

tirx_status tirx_ctx_set_program_name(tirx_ctx *ctx, const char *name) {
  if (!ctx) return TIRX_ERR_USAGE;
  return tx_diag_set_program(ctx->diags, name) ? TIRX_OK : TIRX_ERR_NOMEM;
}

void tirx_diag_clear(tirx_ctx *ctx) {
  if (ctx) tx_diag_clear(ctx->diags);
}
