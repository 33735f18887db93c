/*
 * tirx.h - the public C API of libtirx.
 *
 * A tirx_ctx owns everything: the arena the IR lives in, interned strings, the
 * source texts and the diagnostics. Handles are opaque; every fallible call
 * returns a tirx_status. The library never prints, never exits and keeps no
 * global mutable state, so independent contexts may be used from different
 * threads at the same time (one context must not be shared between threads).
 */
#ifndef TIRX_TIRX_H
#define TIRX_TIRX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TIRX_API __attribute__((visibility("default")))
#else
#define TIRX_API
#endif

#define TIRX_VERSION_MAJOR 0
#define TIRX_VERSION_MINOR 1
#define TIRX_VERSION_PATCH 0

/* Status codes double as the CLI's exit codes. */
typedef enum tirx_status {
  TIRX_OK = 0,
  TIRX_ERR_INPUT = 1,    /* the input has errors; diagnostics say which */
  TIRX_ERR_USAGE = 2,    /* the caller passed bad arguments */
  TIRX_ERR_INTERNAL = 3, /* a bug in tirx-c; a diagnostic names the stage */
  TIRX_ERR_NOMEM = 4,    /* an allocation failed */
  TIRX_ERR_IO = 5,       /* a file could not be read or written */
  TIRX_ERR_TRUNCATED = 6 /* the caller's buffer was too small; *needed says how big */
} tirx_status;

typedef enum tirx_severity {
  TIRX_SEV_ERROR = 0,
  TIRX_SEV_WARNING = 1,
  TIRX_SEV_NOTE = 2,
} tirx_severity;

/* A source range. Lines and columns are 1-based; columns count bytes. The end
 * is exclusive. A span with line 0 has no location (e.g. an I/O error). */
typedef struct tirx_span {
  const char *file;
  uint32_t line, col;
  uint32_t end_line, end_col;
} tirx_span;

typedef struct tirx_diagnostic {
  tirx_severity severity;
  tirx_span span;
  const char *message; /* owned by the context, valid until it is destroyed */
} tirx_diagnostic;

typedef struct tirx_ctx tirx_ctx;
typedef struct tirx_module tirx_module;

TIRX_API const char *tirx_version(void);
TIRX_API const char *tirx_status_name(tirx_status status);

/* Create a context; *out is NULL and TIRX_ERR_NOMEM is returned on failure. */
TIRX_API tirx_status tirx_ctx_create(tirx_ctx **out);
/* Free the context and everything made from it (modules, strings, diagnostics). */
TIRX_API void tirx_ctx_destroy(tirx_ctx *ctx);

/* Parse TVMScript text into a module. `name` is the file name used in
 * diagnostics. On TIRX_ERR_INPUT, *out is NULL and the diagnostics hold every
 * error found. The text need not be NUL-terminated. */
TIRX_API tirx_status tirx_parse_string(tirx_ctx *ctx, const char *name, const char *text,
                                       size_t len, tirx_module **out);
/* Same, reading `path` ("-" reads standard input). */
TIRX_API tirx_status tirx_parse_file(tirx_ctx *ctx, const char *path, tirx_module **out);

/* Print the canonical TVMScript of a module into buf (always NUL-terminated
 * when cap > 0). *needed (optional) receives the full length without the NUL;
 * TIRX_ERR_TRUNCATED when it did not fit. */
TIRX_API tirx_status tirx_module_print(const tirx_module *mod, char *buf, size_t cap,
                                       size_t *needed);
TIRX_API tirx_status tirx_module_print_file(const tirx_module *mod, FILE *stream);

/* Structural equality of two modules (bound variables are matched by their
 * binding sites, not by name), and a hash consistent with it. */
TIRX_API int tirx_module_equal(const tirx_module *a, const tirx_module *b);
TIRX_API uint64_t tirx_module_hash(const tirx_module *mod);

/* Number of functions and the name of function i, in module order. */
TIRX_API size_t tirx_module_func_count(const tirx_module *mod);
TIRX_API const char *tirx_module_func_name(const tirx_module *mod, size_t i);

/* Diagnostics collected so far, in the order they were found. */
TIRX_API size_t tirx_diag_count(const tirx_ctx *ctx);
TIRX_API tirx_status tirx_diag_get(const tirx_ctx *ctx, size_t i, tirx_diagnostic *out);
TIRX_API size_t tirx_diag_error_count(const tirx_ctx *ctx);
/* Render all diagnostics as `file:line:col: error: msg`, the source line and a
 * caret, to a stream or a buffer (same buffer contract as tirx_module_print). */
TIRX_API tirx_status tirx_diag_render_file(const tirx_ctx *ctx, FILE *stream);
TIRX_API tirx_status tirx_diag_render(const tirx_ctx *ctx, char *buf, size_t cap, size_t *needed);
TIRX_API void tirx_diag_clear(tirx_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif /* TIRX_TIRX_H */
