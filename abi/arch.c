/*
 * arch.c - architecture names by compute capability (arch.h), read from
 * arches.def. Must not know features or limits: target/arch.c does.
 */
#include "abi/arch.h"

#include <stddef.h>
#include <string.h>

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

int tx_arch_sm(const char *name) {
  for (size_t i = 0; name && i < sizeof ROWS / sizeof *ROWS; i++)
    if (strcmp(ROWS[i].name, name) == 0) return ROWS[i].sm;
  return -1;
}

/* An arch-specific name: its code runs on that compute capability only. */
static int arch_specific(const char *name) {
  size_t n = strlen(name);
  return n > 0 && (name[n - 1] == 'a' || name[n - 1] == 'f');
}

int tx_arch_runs_on(const char *code, const char *device) {
  if (!code || !device) return 0;
  if (strcmp(code, device) == 0) return 1;
  int c = tx_arch_sm(code), d = tx_arch_sm(device);
  return c > 0 && d > 0 && !arch_specific(code) && c <= d;
}
