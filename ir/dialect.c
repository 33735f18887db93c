/*
 * dialect.c - the rows of dialect.def as a lookup table (see dialect.h).
 */
#include "ir/dialect.h"

#include <string.h>

static const tx_dialect_spelling spellings[TX_DIALECT_COUNT] = {
#define X(kind, name, fdec, mdec, param, dtype_attr, header)                                       \
  [kind] = {name, fdec, mdec, param, dtype_attr, header},
#include "ir/dialect.def"
#undef X
};

const tx_dialect_spelling *tx_dialect_spell(tx_dialect d) {
  return &spellings[(unsigned)d < TX_DIALECT_COUNT ? d : TX_DIALECT_TVM];
}

int tx_dialect_lookup(const char *name) {
  for (int i = 0; name && i < TX_DIALECT_COUNT; i++)
    if (strcmp(spellings[i].name, name) == 0) return i;
  return -1;
}
