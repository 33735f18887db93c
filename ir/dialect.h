/*
 * dialect.h - the two TVMScript dialects: TVM 0.27's `tvm.script.tirx`
 * (@T.prim_func, T.Buffer) and the standalone apache-tvm-tirx package's
 * `tvm_tirx.script.tirx` (@T.function, T.Tensor, `with T.device_entry():`).
 *
 * Both read into the same IR; a module remembers the dialect it was written
 * in (tx_module.dialect) only so that it prints back in it by default. The
 * spellings that differ are the rows of dialect.def (docs/dialects.md).
 */
#ifndef TIRX_IR_DIALECT_H
#define TIRX_IR_DIALECT_H

typedef enum tx_dialect {
#define X(kind, name, fdec, mdec, param, dtype_attr, header) kind,
#include "ir/dialect.def"
#undef X
  TX_DIALECT_COUNT
} tx_dialect;

/* What a printer spells differently in one dialect. */
typedef struct tx_dialect_spelling {
  const char *name;             /* "tvm", "tirx": the --dialect= value */
  const char *func_decorator;   /* "T.prim_func" */
  const char *module_decorator; /* "I.ir_module" */
  const char *param_ctor;       /* "T.Buffer": a buffer parameter's annotation */
  int dtype_attr;               /* 1: a parameter's dtype prints as T.float32 */
  const char *header;           /* the lines above a module, or NULL (TVM's own) */
} tx_dialect_spelling;

/* d's row; an out-of-range d is TX_DIALECT_TVM. */
const tx_dialect_spelling *tx_dialect_spell(tx_dialect d);

/* The dialect named `name` ("tvm" or "tirx"), or -1. */
int tx_dialect_lookup(const char *name);

/* The name dialect d gives the intrinsic TVM 0.27 calls tvm_op
 * (ir/dialect_ops.def): tvm_op itself when the dialects share it. */
const char *tx_dialect_op_spelling(tx_dialect d, const char *tvm_op);

/* TVM 0.27's name of the tirx dialect's intrinsic tirx_op (T.stack_alloca:
 * T.tvm_stack_alloca), or NULL when the dialects do not name it apart. */
const char *tx_dialect_tvm_op(const char *tirx_op);

#endif
