/*
 * arch.c - architecture names by compute capability (arch.h), read from
 * arches.def. Must not know features or limits: target/arch.c does.
 */
#include "abi/arch.h"

#include <stddef.h>

typedef struct cc_row {
  const char *name;
  int sm, default_for_cc;
} cc_row;

#define X(name, sm, dflt, static_kib, optin_kib, features) {name, sm, dflt},
static const cc_row ROWS[] = {
#include "abi/arches.def"
};
#undef X

const char *tx_arch_for_cc(int major, int minor) {
  for (size_t i = 0; i < sizeof ROWS / sizeof *ROWS; i++)
    if (ROWS[i].sm == major * 10 + minor && ROWS[i].default_for_cc) return ROWS[i].name;
  return NULL;
}
