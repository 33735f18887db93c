/*
 * arch.c - the architecture table (arches.def) and its lookups (target.h).
 *
 * Must not know what a feature is used for: passes and backends ask.
 * Depends on target/cuda/ for its backend only.
 */
#include "target/target.h"

#include "target/cuda/backend.h"

#include <stddef.h>
#include <string.h>

typedef struct arch_row {
  const char *name;
  int sm;
  unsigned features;
  tx_target_limits limits;
} arch_row;

#define KIB INT64_C(1024)
#define X(name, sm, dflt, static_kib, optin_kib, features)                                         \
  {name, sm, features, {name, (static_kib)*KIB, (optin_kib)*KIB, 512 * KIB}},
static const arch_row ARCHES[] = {
#include "abi/arches.def"
};
#undef X
/* For a target with no row of its own or of its sm: valid on every row. */
static const tx_target_limits FALLBACK_LIMITS = {NULL, 48 * KIB, 99 * KIB, 512 * KIB};
#undef KIB
#define NARCHES (sizeof ARCHES / sizeof *ARCHES)

static const arch_row *row_named(const char *name) {
  for (size_t i = 0; name && i < NARCHES; i++)
    if (strcmp(ARCHES[i].name, name) == 0) return &ARCHES[i];
  return NULL;
}

/* The row of sm that is (specific) or is not arch-specific, or NULL. */
static const arch_row *row_of_sm(int sm, int specific) {
  for (size_t i = 0; i < NARCHES; i++)
    if (ARCHES[i].sm == sm && !!(ARCHES[i].features & TX_FEAT_ARCH_SPECIFIC) == specific)
      return &ARCHES[i];
  return NULL;
}

int tx_target_from_arch(const char *arch, tx_target *out) {
  const arch_row *r = row_named(arch);
  if (!r) return 0;
  out->arch = r->name;
  out->sm = r->sm;
  out->backend = &tx_backend_cuda; /* every row is a CUDA GPU */
  return 1;
}

const char *tx_target_arch_list(void) {
#define X(name, sm, dflt, static_kib, optin_kib, features) " " name
  static const char list[] =
#include "abi/arches.def"
      ;
#undef X
  return list + 1;
}

const tx_backend *tx_target_backend(const tx_target *t) {
  return t && t->backend ? t->backend : &tx_backend_cuda;
}

int tx_target_has(const tx_target *t, tx_feature f) {
  if (!t) return 0;
  const arch_row *r = row_named(t->arch);
  if (r) return (r->features & f) != 0;
  size_t n = t->arch ? strlen(t->arch) : 0;
  char suffix = n ? t->arch[n - 1] : 0;
  unsigned features = 0;
  if ((suffix == 'a' || suffix == 'f') && (r = row_of_sm(t->sm, 1)) != NULL)
    features = r->features & (suffix == 'f' ? ~(unsigned)TX_FEAT_ARCH_SPECIFIC : ~0u);
  else if ((r = row_of_sm(t->sm, 0)) != NULL)
    features = r->features;
  return (features & f) != 0;
}

const tx_target_limits *tx_target_limits_of(const tx_target *t) {
  const arch_row *r = t ? row_named(t->arch) : NULL;
  if (r) return &r->limits;
  /* Another spelling of a known sm ("sm_100f"): its portable row. */
  r = t ? row_of_sm(t->sm, 0) : NULL;
  return r ? &r->limits : &FALLBACK_LIMITS;
}
