/*
 * modular.h - the modular-set analysis of integer expressions (TVM's
 * arith::ModularSet): what is known of an integer's residues, from its
 * literals, its arithmetic and the variables the caller knows about.
 *
 * vectorize-loop proves the bases of vector accesses aligned with it, CUDA
 * codegen the alignment of vector and packed sub-byte accesses. It builds
 * no nodes and keeps no state; a caller's knowledge of variables comes in
 * through a lookup function.
 */
#ifndef TIRX_IR_MODULAR_H
#define TIRX_IR_MODULAR_H

#include <stdint.h>

#include "ir/ir.h"

/* The integers {coeff * k + base | k in Z}: coeff 0 is the constant base,
 * {1, 0} is "anything". Normalised: coeff >= 0 and, for coeff > 0,
 * 0 <= base < coeff. */
typedef struct tx_modset {
  int64_t coeff, base;
} tx_modset;

/* The set of a variable as the caller knows it, or NULL for nothing known. */
typedef const tx_modset *(*tx_modset_lookup_fn)(void *user, const tx_expr *var);

/* {coeff * k + base}, normalised (an unrepresentable coeff is "anything"). */
tx_modset tx_modset_make(int64_t coeff, int64_t base);
/* Every sum of a member of a and a member of b. */
tx_modset tx_modset_add(tx_modset a, tx_modset b);
/* What is known of the scalar integer e: literals, + - *, floor division
 * and modulo by a positive literal, min/max/Select, widening casts, and the
 * variables `lookup` (may be NULL) knows. Anything else is {1, 0}. */
tx_modset tx_modular(const tx_expr *e, tx_modset_lookup_fn lookup, void *user);
/* Is every member of m a multiple of c (c > 0)? */
int tx_modset_multiple_of(tx_modset m, int64_t c);
/* Is the integer expression e provably a multiple of c (c > 0), with no
 * variable known? 0 means "not shown", never "not a multiple". */
int tx_expr_multiple_of(const tx_expr *e, int64_t c);

#endif
