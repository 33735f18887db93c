/*
 * tile.h - the tile-primitive implementations a backend offers, as the
 * dispatch pass (passes/dispatch_tile.c) sees them.
 *
 * A tile-primitive call (`T.tile.copy(dst, src)`, `T.cta.sum(...)`) names an
 * op and an execution scope. Each backend lists variants: an op, a name, a
 * priority, a predicate that says why it does not apply, and an expansion
 * into plain IR (loops, loads, stores, intrinsic calls). The dispatcher
 * tries the variants of the call's op in order of priority (then name),
 * the first whose predicate passes expands the call, and one that declines
 * lets the search go on. Variants live with their backend (target/cuda/),
 * never in passes.
 *
 * Must not: depend on passes/ (variants build IR with ir/ helpers only).
 */
#ifndef TIRX_TARGET_TILE_H
#define TIRX_TARGET_TILE_H

#include "ir/diag.h"
#include "ir/ir.h"

struct tx_target;

/* Execution scopes, narrowest first: X(id, "name", namespace prefix). */
#define TX_TILE_SCOPES(X)                                                                          \
  X(TX_SCOPE_THREAD, "thread", "T.tile.")                                                          \
  X(TX_SCOPE_WARP, "warp", "T.warp.")                                                              \
  X(TX_SCOPE_WARPGROUP, "warpgroup", "T.wg.")                                                      \
  X(TX_SCOPE_CTA, "cta", "T.cta.")                                                                 \
  X(TX_SCOPE_CLUSTER, "cluster", "T.cluster.")

typedef enum tx_tile_scope {
#define X(id, name, prefix) id,
  TX_TILE_SCOPES(X)
#undef X
      TX_TILE_SCOPE_COUNT
} tx_tile_scope;

const char *tx_tile_scope_name(tx_tile_scope s);

/* One call being dispatched, and what a variant may use to expand it. */
typedef struct tx_tile_call {
  const tx_stmt *stmt; /* the STMT_TILE_OP */
  const char *op;      /* the op without its scope: "copy", "add" */
  tx_tile_scope scope; /* from the namespace */
  const struct tx_target *target;
  tx_ir *ir;           /* where expansions are built */
  tx_diag_sink *diags; /* for warnings a variant gives when it is chosen */
  /* A fresh variable or buffer name from `base`, unique in the function. */
  const char *(*fresh_name)(void *user, const char *base);
  void *user;
  int oom; /* set by an expansion that ran out of memory */
  /* The threads that run the call together (its scope's group: the warp,
   * the warpgroup, the CTA; one thread at thread scope): how many (0 when
   * the launch's block is not constant), the calling thread's index among
   * them in [0, nthreads) as an int32 expression (NULL when not known),
   * and NULL when every one of them runs the call, else why not (an
   * enclosing `if` that only some of them take). */
  int64_t nthreads;
  const tx_expr *thread_index;
  const char *narrowed;
} tx_tile_call;

typedef struct tx_tile_variant {
  const char *op;   /* "copy" */
  const char *name; /* "vec_auto": what dispatch= names */
  int priority;     /* higher is tried first */
  /* Tried only when dispatch= names it. */
  int forced_only;
  /* NULL when the variant applies to c, else why not (a static string). */
  const char *(*reject)(const tx_tile_call *c);
  /* The statement that replaces the call; NULL to decline (*why says why)
   * or, with c->oom set, after an allocation failure. */
  const tx_stmt *(*expand)(tx_tile_call *c, const char **why);
} tx_tile_variant;

#endif
