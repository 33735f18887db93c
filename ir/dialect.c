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

static const struct {
  const char *tvm, *tirx;
} op_names[] = {
#define N(tvm, tirx) {tvm, tirx},
#include "ir/dialect_ops.def"
#undef N
};

const char *tx_dialect_op_spelling(tx_dialect d, const char *tvm_op) {
  if (d != TX_DIALECT_TIRX) return tvm_op;
  for (size_t i = 0; i < sizeof op_names / sizeof *op_names; i++)
    if (strcmp(op_names[i].tvm, tvm_op) == 0) return op_names[i].tirx;
  return tvm_op;
}

const char *tx_dialect_tvm_op(const char *tirx_op) {
  for (size_t i = 0; i < sizeof op_names / sizeof *op_names; i++)
    if (strcmp(op_names[i].tirx, tirx_op) == 0) return op_names[i].tvm;
  return NULL;
}
