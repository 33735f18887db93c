/*
 * status.c - the library's version and status names (tirx.h), which the
 * compiler and the runtime library both answer.
 */
#include "tirx/tirx.h"

#define TX_STR2(x) #x
#define TX_STR(x) TX_STR2(x)

const char *tirx_version(void) {
  return TX_STR(TIRX_VERSION_MAJOR) "." TX_STR(TIRX_VERSION_MINOR) "." TX_STR(TIRX_VERSION_PATCH);
}

const char *tirx_status_name(tirx_status status) {
  switch (status) {
  case TIRX_OK:
    return "ok";
  case TIRX_ERR_INPUT:
    return "input error";
  case TIRX_ERR_USAGE:
    return "usage error";
  case TIRX_ERR_INTERNAL:
    return "internal error";
  case TIRX_ERR_NOMEM:
    return "out of memory";
  case TIRX_ERR_IO:
    return "I/O error";
  case TIRX_ERR_TRUNCATED:
    return "buffer too small";
  }
  /* A value outside the enum (from a cast or another language). */
  return "unknown status";
}
