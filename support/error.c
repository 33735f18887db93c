/*
 * error.c - the public error object (error.h).
 */
#include "support/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

tirx_status tx_error_set(tirx_error *err, tirx_status code, const char *fmt, ...) {
  if (err) {
    memset(&err->span, 0, sizeof err->span);
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}

void tx_error_prefix(tirx_error *err, const char *prefix) {
  if (!err || !prefix) return;
  char was[sizeof err->message];
  memcpy(was, err->message, sizeof was);
  was[sizeof was - 1] = 0;
  int k = snprintf(err->message, sizeof err->message, "%s: ", prefix);
  if (k < 0 || (size_t)k >= sizeof err->message) return;
  size_t left = sizeof err->message - (size_t)k;
  size_t n = strnlen(was, left - 1);
  memcpy(err->message + k, was, n);
  err->message[(size_t)k + n] = 0;
}
