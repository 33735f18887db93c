/*
 * ptx_dialect.h - TVM's printed form of its table-driven PTX dialect.
 *
 * TVM prints every table-driven `T.ptx` call as the family name with the
 * operands, then one string per modifier slot of the instruction ("" = the
 * slot is omitted), then one marker string:
 *
 *   T.ptx.fence("proxy", "async", "shared::cta", "")
 *   T.ptx.mbarrier(addr, T.uint32(1), "init", "", "shared", "b64", "")
 *
 * Several family names (T.ptx.fence, T.ptx.ld, T.ptx.mapa, ...) are also
 * older helpers registered in intrinsics.def with their own argument
 * conventions. The printed form is told apart by its tail alone (see
 * tx_ptx_form_match), so the same rule serves the builder, which keeps such a
 * call exactly as written, and the CUDA codegen, which reads it back as PTX
 * text. Pure functions over a read-only table (ptx_dialect.def): no state.
 */
#ifndef TIRX_IR_PTX_DIALECT_H
#define TIRX_IR_PTX_DIALECT_H

#include <stddef.h>
#include <stdint.h>

/* The string literal at argument i (its bytes and length), or NULL when the
 * argument is not a string literal. */
typedef const char *(*tx_ptx_str_at)(const void *ctx, uint32_t i, size_t *len);

enum { TX_PTX_MAX_SLOTS = 16 };

typedef struct tx_ptx_form {
  const char *mnemonic; /* PTX mnemonic of the family: "tcgen05", "st.bulk", "vote.sync" */
  /* The entry's operands in PTX order, one word each: kind (r register, a
   * address, p raw pointer, i immediate, L<text> an immediate the ISA fixes,
   * which takes no argument), registers (a number, '*' when the modifiers
   * decide), 'v' when a {group}, 'j' when joined to the one before as `p|q`,
   * 'w' when written: "r1w a1", "r#3vw a1", "r1w r1jw r1 r1". */
  const char *operands;
  uint32_t nexprs;   /* arguments before the tokens: operands, then the predicate if pred */
  uint32_t ntokens;  /* modifier tokens, at arguments [nexprs, nexprs + ntokens) */
  int pred;          /* marker "pred": the last expression argument guards the instruction */
  int keep;          /* marker "keep": destinations keep their value when the guard is false */
  uint64_t pred_ops; /* marker "p<i>": operand i is a .pred register (bit i) */
  uint64_t sunk;     /* marker "s<i>": operand position i is the sink `_` (no argument) */
  uint32_t nslots;   /* the entry's modifier slots, in PTX (and print) order */
  uint32_t slot_tok[TX_PTX_MAX_SLOTS]; /* argument holding slot i's token; UINT32_MAX omitted */
} tx_ptx_form;

typedef enum tx_ptx_match {
  TX_PTX_NOT_PRINTED, /* not the printed form: an older helper or a raw call */
  TX_PTX_PRINTED,     /* the printed form of a table entry; *out filled */
  TX_PTX_BAD_TOKENS,  /* the printed form's shape, but no entry takes these tokens */
} tx_ptx_match;

/* Is `name(args)` (name without "T.ptx.", e.g. "fence", "and_") with nargs
 * positional arguments and no keyword arguments TVM's printed form? It is
 * when the family is in TVM's table, the arguments end in a run of string
 * literals whose last one is a well-formed marker (empty, or comma-joined
 * pred / keep / p<i> / s<i>). The strings before the marker are the
 * modifier tokens (operands are never strings). TX_PTX_PRINTED when an
 * entry of the family takes them as TVM reads them ("" skipped, each other
 * token fills the first open slot listing it, every required slot filled),
 * else TX_PTX_BAD_TOKENS. A bare marker with no tokens is the form only for
 * a family with a slot-less entry (TVM prints every slot). BAD_TOKENS can
 * still be an older helper whose last argument looks like a marker
 * (T.ptx.ld(p, "int32", "s8")): the caller decides (bld_ptx_printed_form). */
tx_ptx_match tx_ptx_form_match(const char *name, uint32_t nargs, tx_ptx_str_at str_at,
                               const void *ctx, tx_ptx_form *out);

/* One operand of a matched form, in PTX order. */
typedef struct tx_ptx_operand {
  char kind;        /* 'r' register, 'a' address, 'p' raw pointer, 'i' immediate, 'L' fixed */
  int written;      /* the instruction writes it (a destination or accumulator) */
  uint32_t at;      /* its first argument (for 'L', the argument it precedes) */
  uint32_t lanes;   /* arguments it takes */
  int vector;       /* PTX writes it as a {group} (ldmatrix .x1 too) */
  int joined;       /* written `prev|this`: a second, .pred, destination (setp p|q) */
  int pred;         /* a .pred register (isspacep's destination) */
  int sinkable;     /* a lane may be the sink `_` (mov's unpack destination) */
  const char *text; /* 'L': the immediate's text (not NUL-terminated), text_len bytes */
  size_t text_len;
} tx_ptx_operand;

enum { TX_PTX_MAX_OPERANDS = 16 };

/* The operands of a form tx_ptx_form_match filled, for nops operand
 * arguments (sunk lanes counted): their kinds and argument positions, the
 * register counts worked out from the tokens (a written .vN or .xN, an
 * optional operand present with its qualifier) or, for one count no token
 * gives, from the arguments left. Sets *n to the number of operands and
 * returns 1; 0 when they do not add up to nops or some count stays unknown. */
int tx_ptx_layout(const tx_ptx_form *f, uint32_t nops, tx_ptx_str_at str_at, const void *ctx,
                  tx_ptx_operand out[TX_PTX_MAX_OPERANDS], uint32_t *n);

/* Is `name` (without "T.ptx.") a family of TVM's table? */
int tx_ptx_is_family(const char *name);

#endif
