/*
 * equal.h - structural equality and hashing of IR, like TVM's
 * structural_equal / structural_hash.
 *
 * Two trees are equal when they have the same shape and payloads up to a
 * consistent renaming of what they bind:
 *  - Bound variables (vars[] of STMT_BIND/FOR/SCOPE_ID/WITH, EXPR_LET
 *    binders, function params and symbolic vars, buffer data vars) match by
 *    binding site: the first definition pairs lhs with rhs, later uses must
 *    follow that pairing, and the pairing is one-to-one.
 *  - Buffers defined by STMT_ALLOC/STMT_DECL and func param_bufs match the
 *    same way; their fields are compared at the definition.
 *  - Free variables and buffers (used, never defined in the compared tree)
 *    compare by pointer identity.
 * Compared: kinds, dtypes, operand counts, integer and float payloads
 * bitwise (NaN == NaN for the same bits, -0.0 != 0.0), strings, call op and
 * keyword names, ATTR keys, flags, var forms/pointees/scopes, buffer
 * fields, layouts. Not compared: var and buffer names, spans. Function
 * names are compared by tx_module_equal (they are symbols of the module) but
 * not by tx_func_equal, as in TVM.
 *
 * Hashes are consistent with equality (equal => same hash), ignore the names
 * of bound variables (which hash by definition order), and are deterministic
 * across runs and machines: no pointer value reaches a hash. Free variables
 * hash by name and dtype.
 *
 * Out of memory: equality returns 0 (the trees may still be equal), hashing
 * falls back to a coarser hash that needs no memory and stays consistent.
 * Recursive, like visit.h.
 */
#ifndef TIRX_IR_EQUAL_H
#define TIRX_IR_EQUAL_H

#include <stdint.h>

#include "ir/ir.h"

/* 1 when structurally equal, 0 when not (or out of memory). NULL == NULL.
 * The pairing tables of bound variables (none for a tree that binds
 * nothing) come from `alloc` in the _with forms, from malloc in the plain
 * ones, which are for tests and tools: library code passes its allocator. */
int tx_expr_equal(const tx_expr *a, const tx_expr *b);
int tx_stmt_equal(const tx_stmt *a, const tx_stmt *b);
int tx_func_equal(const tx_func *a, const tx_func *b);
int tx_module_equal(const tx_module *a, const tx_module *b);
int tx_expr_equal_with(const tirx_allocator *alloc, const tx_expr *a, const tx_expr *b);
int tx_stmt_equal_with(const tirx_allocator *alloc, const tx_stmt *a, const tx_stmt *b);
int tx_func_equal_with(const tirx_allocator *alloc, const tx_func *a, const tx_func *b);
int tx_module_equal_with(const tirx_allocator *alloc, const tx_module *a, const tx_module *b);

/* The same split between _with and plain forms as for equality. */
uint64_t tx_expr_hash(const tx_expr *e);
uint64_t tx_stmt_hash(const tx_stmt *s);
uint64_t tx_func_hash(const tx_func *f);
uint64_t tx_module_hash(const tx_module *m);
uint64_t tx_expr_hash_with(const tirx_allocator *alloc, const tx_expr *e);
uint64_t tx_stmt_hash_with(const tirx_allocator *alloc, const tx_stmt *s);
uint64_t tx_func_hash_with(const tirx_allocator *alloc, const tx_func *f);
uint64_t tx_module_hash_with(const tirx_allocator *alloc, const tx_module *m);
/* The mixing step of the hashes above, for passes that hash bottom-up. */
/* Inline: hashing walks call it once per node. */
static inline uint64_t tx_hash_mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 29);
}

#endif
