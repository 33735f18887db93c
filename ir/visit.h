/*
 * visit.h - the shared traversals of the IR: a read-only visitor and a
 * rebuilding mutator. Every pass walks the IR through these, so no pass
 * hand-rolls a traversal and a new operand is seen by all of them.
 *
 * Both walk the uniform operand arrays (ops[], exprs[], stmts[], vars[]), so
 * they need no per-kind code. Neither modifies a node: the mutator builds new
 * nodes in the arena and shares every unchanged subtree.
 *
 * Depth: both recurse once per tree level. The frontend bounds expression
 * depth at 200 and statement nesting by the source; trees built by passes may
 * be deeper, and a frame here is well under 100 bytes, so an 8 MiB stack
 * allows tens of thousands of levels. Passes that build unbounded chains
 * (e.g. a sum of 10^6 terms) must balance them first.
 */
#ifndef TIRX_IR_VISIT_H
#define TIRX_IR_VISIT_H

#include "ir/ir.h"

/* ---- Facts about kinds that every walker needs ------------------------------ */

/* Does statement kind `k` bind the variables in its vars[] (BIND, FOR,
 * SCOPE_ID, WITH)? Elsewhere (ASSIGN) vars[] holds uses. */
int tx_stmt_binds_vars(tx_stmt_kind k);
/* Does statement kind `k` define its buffer (ALLOC, DECL)? Elsewhere (STORE)
 * the buffer is a use. */
int tx_stmt_defines_buffer(tx_stmt_kind k);

/* ---- Visitor ------------------------------------------------------------- */

typedef struct tx_visitor tx_visitor;

/* Every callback may be NULL. pre_* returning 0 skips the node's children
 * (and its post_* call, so pre/post can push/pop scope state). Setting
 * `stop` from any callback ends the whole walk early (for "does X occur"). */
struct tx_visitor {
  void *user;
  int (*pre_expr)(tx_visitor *v, const tx_expr *e);
  void (*post_expr)(tx_visitor *v, const tx_expr *e);
  int (*pre_stmt)(tx_visitor *v, const tx_stmt *s);
  void (*post_stmt)(tx_visitor *v, const tx_stmt *s);
  /* Called once per buffer definition (STMT_ALLOC/STMT_DECL buffer, each
   * non-NULL func param_bufs entry), whatever visit_buffer_defs says.
   * Returning 0 skips that buffer's expressions. Buffer uses (EXPR_LOAD,
   * EXPR_BUFFER, EXPR_REGION, STMT_STORE) are seen through pre_expr/pre_stmt. */
  int (*on_buffer)(tx_visitor *v, const tx_buffer *b);
  /* Opt-in: at a buffer definition also walk the buffer's expressions: data,
   * shape, strides, elem_offset, allocated_addr, layout extents/strides and
   * origin. Off by default because most passes only care about statements. */
  int visit_buffer_defs;
  int stop;
};

/* Order of a walk (pre-order, then post-order on the way back up):
 *   expression: pre_expr; EXPR_LET binder; ops[] in order; for EXPR_LAYOUT
 *     the layout's iterator expressions; post_expr.
 *   statement: pre_stmt; the defined buffer (ALLOC/DECL); exprs[]; vars[];
 *     stmts[]; post_stmt.
 *   function: params, symbolic vars, param buffers, attr values, body.
 *   module: attr values, then each function.
 * Variables in vars[], EXPR_LET binders and params are visited as ordinary
 * EXPR_VAR expressions; use tx_stmt_binds_vars to tell binding from use.
 * NULL nodes are skipped. */
void tx_visit_expr(tx_visitor *v, const tx_expr *e);
void tx_visit_stmt(tx_visitor *v, const tx_stmt *s);
void tx_visit_func(tx_visitor *v, const tx_func *f);
void tx_visit_module(tx_visitor *v, const tx_module *m);
/* Walk a buffer's expressions unconditionally (no on_buffer call). */
void tx_visit_buffer_fields(tx_visitor *v, const tx_buffer *b);
/* Walk a layout's iterator expressions (and an inner tile layout). */
void tx_visit_layout(tx_visitor *v, const tx_layout *l);

/* ---- Mutator ------------------------------------------------------------- */

typedef struct tx_mutator tx_mutator;

/* A callback returning non-NULL replaces the node (it may first call
 * tx_mutate_*_children to recurse); returning NULL means "not handled": the
 * children are mutated and the node rebuilt only if one changed. */
struct tx_mutator {
  tx_ir *ir; /* where rebuilt nodes are allocated */
  void *user;
  const tx_expr *(*expr)(tx_mutator *m, const tx_expr *e);
  const tx_stmt *(*stmt)(tx_mutator *m, const tx_stmt *s);
  int failed; /* set on out-of-memory; the results are then the originals */
};

/* What gets mutated: expression ops[] and the iterator expressions of an
 * EXPR_LAYOUT; statement exprs[] and stmts[]. Kept as they are: binding
 * variables (EXPR_LET binder, vars[]), buffers and their fields, spans and
 * payloads. A rebuilt node is a copy of the original with new operand
 * arrays. Nothing changed => the same pointer comes back. NULL in => NULL out. */
const tx_expr *tx_mutate_expr(tx_mutator *m, const tx_expr *e);
const tx_stmt *tx_mutate_stmt(tx_mutator *m, const tx_stmt *s);
/* The default behaviour, for callbacks that want to recurse first. */
const tx_expr *tx_mutate_expr_children(tx_mutator *m, const tx_expr *e);
const tx_stmt *tx_mutate_stmt_children(tx_mutator *m, const tx_stmt *s);
/* Mutates the body and attribute values; params, param buffers and symbolic
 * variables are kept. Same pointer when nothing changed. */
const tx_func *tx_mutate_func(tx_mutator *m, const tx_func *f);

#endif
