/*
 * fold.h - the arithmetic of literals, shared by everything that folds
 * constants (the frontend's checks, simplify, the lowering passes' builders,
 * the range analysis): TIRx's integer semantics and IEEE float rounding, and
 * the literal operands that make an integer operation undefined.
 *
 * Integer folding happens in the operation's own type with wrapping
 * defined (two's complement, as TIRx and TVM fold), so nothing here is C
 * signed-overflow UB. These functions build no nodes and keep no state.
 */
#ifndef TIRX_IR_FOLD_H
#define TIRX_IR_FOLD_H

#include <stdint.h>

#include "ir/diag.h"
#include "ir/ir.h"

/* v wrapped to the width of integer type t (two's complement; uint values
 * are kept zero-extended, uint64 as its bit pattern); bool is v != 0. */
int64_t tx_fold_wrap(tx_dtype t, int64_t v);

/* x k y in integer type t, for k in EXPR_ADD, SUB, MUL, DIV and MOD
 * (truncating: T.truncdiv, T.truncmod), FLOORDIV, FLOORMOD, MIN, MAX. The
 * operands are first wrapped to t; the result is wrapped to t (so
 * INT64_MIN // -1 is INT64_MIN and INT32_MAX + 1 is INT32_MIN). uint64
 * operands are unsigned. Returns 1 with *out set, 0 when k is another kind
 * or the operation has no value (a divisor of 0). */
int tx_fold_int(tx_expr_kind k, tx_dtype t, int64_t x, int64_t y, int64_t *out);

/* v rounded to float type t as IEEE 754 rounds (to nearest, ties to even;
 * too large a magnitude becomes +-inf, NaN stays NaN): float16, bfloat16
 * and float32. float64 is v itself. Returns v for every other type. */
double tx_fold_float_round(tx_dtype t, double v);
/* Does simplify fold arithmetic on literals of t (the IEEE types above)? */
int tx_fold_float_type(tx_dtype t);

/* Is e an operation that a literal operand makes undefined, as TVM rejects
 * it when it builds one? That is an integer division or modulo
 * (EXPR_DIV, EXPR_MOD, EXPR_FLOORDIV, EXPR_FLOORMOD) whose divisor is the
 * literal 0 (or a broadcast of it), or T.shift_left / T.shift_right by a
 * literal that is negative or not less than the bit width of the shifted
 * type. If so, reports a located error at e's span (`fallback` when e has
 * none) and returns 1. */
int tx_fold_check_operands(tx_diag_sink *diags, const tx_expr *e, tirx_span fallback);

#endif
