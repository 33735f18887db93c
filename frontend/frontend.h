/*
 * frontend.h - the frontend's one entry point: source text to a module.
 *
 * Knows nothing of the public API's context or module handles (driver/
 * wraps this in tirx_parse_string and tirx_parse_file) and reads no files:
 * the caller hands it the bytes. Never prints, never exits.
 */
#ifndef TIRX_FRONTEND_FRONTEND_H
#define TIRX_FRONTEND_FRONTEND_H

#include <stddef.h>

#include "ir/diag.h"
#include "ir/ir.h"

/* Wall-clock milliseconds of the frontend's stages in one call. */
typedef struct tx_parse_times {
  double parse_ms; /* copying the text in and tx_parse_python */
  double build_ms; /* tx_build_module (0 when parsing failed) */
} tx_parse_times;

/* Parse text[0..len) (need not be NUL-terminated) named `name` in the
 * diagnostics, and build its module in ir. The text is copied into ir's
 * arena and registered with diags, so that diagnostics can quote it as long
 * as the arena lives. Returns TIRX_OK with *out set; TIRX_ERR_INPUT after
 * located errors; TIRX_ERR_NOMEM (reported as such); TIRX_ERR_INTERNAL with
 * an internal-error diagnostic naming the stage. times may be NULL. */
tirx_status tx_frontend_parse(tx_ir *ir, tx_diag_sink *diags, const char *name, const char *text,
                              size_t len, tx_parse_times *times, const tx_module **out);

#endif
