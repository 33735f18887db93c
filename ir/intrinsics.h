/*
 * intrinsics.h - the registry of named TIRx operations: the frontend checks
 * calls against it, codegen reads the same facts (so it lives with the IR).
 *
 * One table (intrinsics.def) lists every callable `T.*` name that is not
 * handled by dedicated syntax in the builder: math, PTX, CUDA helpers, TVM
 * builtins and tile primitives, with their argument counts, the keywords
 * they take and how their result type is found. The builder checks calls
 * against it and suggests the nearest name for a misspelling.
 */
#ifndef TIRX_IR_INTRINSICS_H
#define TIRX_IR_INTRINSICS_H

#include <stddef.h>

/* How the result dtype of a call is found. */
typedef enum tx_result_rule {
  RES_VOID, /* a statement-like call */
  RES_ARG0, /* same dtype as the first argument */
  RES_ARG1, /* same dtype as the second argument */
  RES_BOOL,
  RES_INT32,
  RES_UINT32,
  RES_INT64,
  RES_UINT64,
  RES_FLOAT32,
  RES_HANDLE,
  RES_KW_DTYPE,       /* from the `return_type=`, `dtype=` or `ret_ty=` keyword (default void) */
  RES_ARG0_DTYPE_STR, /* the first argument is a dtype string: T.reinterpret("float32", x) */
  RES_ARG3_DTYPE,     /* the fourth argument names the dtype, a string or T.handle().ty (else
                         `dtype=`): T.tvm_struct_get(args, 0, 13, "int32") as TVM prints it */
  RES_DTYPE_STR,      /* `return_type=`/`dtype=`, else the first string argument naming a
                         dtype: TVM's T.ptx.ld* helpers, written (addr, "uint32", "b32") or
                         printed with extra leading operands; T.cuda.ldg(p, "float32") */
  RES_PTX_TYPE,       /* from a PTX scalar type: `ptx_type=`, else the last string argument
                         (the printed form); "u32" -> uint32, "s64" -> int64, "f32" -> float32 */
  RES_INT_BITS_ARG0,  /* int<N> for a first argument N of 32 or 64 (T.ptx.fetch_register) */
} tx_result_rule;

typedef enum tx_intrinsic_kind {
  INTRIN_EXPR, /* an ordinary call */
  INTRIN_TILE, /* a tile primitive: T.tile.*, T.warp.*, T.wg.*, T.cta.*, T.cluster.* */
} tx_intrinsic_kind;

typedef struct tx_intrinsic {
  const char *name;       /* canonical: "T.exp", "T.ptx.mbarrier.init", "T.tile.copy" */
  int min_args, max_args; /* positional; max -1 = any number */
  tx_result_rule result;
  const char *keywords; /* comma-separated allowed keywords, "*" any, "" none */
  tx_intrinsic_kind kind;
} tx_intrinsic;

/* The entry for a canonical name, or NULL. */
const tx_intrinsic *tx_intrinsic_find(const char *name);
/* The known name closest to `name` (edit distance, same namespace preferred),
 * or NULL when nothing is close enough to suggest. */
const char *tx_intrinsic_suggest(const char *name);
/* Is `kw` allowed for `in`? */
int tx_intrinsic_allows_keyword(const tx_intrinsic *in, const char *kw);
/* Number of entries and the i-th (for tests and docs). */
size_t tx_intrinsic_count(void);
const tx_intrinsic *tx_intrinsic_at(size_t i);

#endif
