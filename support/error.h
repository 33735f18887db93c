/*
 * error.h - filling the public API's error object (tirx_error, tirx.h).
 */
#ifndef TIRX_SUPPORT_ERROR_H
#define TIRX_SUPPORT_ERROR_H

#include "tirx/tirx.h"

/* Set *err (may be NULL) to code and the formatted message, with no span;
 * returns code, so that callers can `return tx_error_set(...)`. */
tirx_status tx_error_set(tirx_error *err, tirx_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Put `prefix: ` before err's message (what failed: a path, a name). */
void tx_error_prefix(tirx_error *err, const char *prefix);

#endif
