/*
 * api_internal.h - what the public API's files share: the runtime inside a
 * tirx_runtime handle. Not installed.
 */
#ifndef TIRX_RUNTIME_API_INTERNAL_H
#define TIRX_RUNTIME_API_INTERNAL_H

#include "runtime/runtime.h"
#include "tirx/tirx.h"

tx_runtime *tx_api_runtime(tirx_runtime *rt);

#endif
