/*
 * test_ptx_dialect.c - the printed T.ptx form matcher (ir/ptx_dialect.h):
 * which tails are TVM's printed form, how tokens fill slots, the marker
 * flags, entry choice by operand count, and the operand layout.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "ir/ptx_dialect.h"

/* Arguments as written: a string literal is "\"text\"", anything else an
 * expression. */
typedef struct args {
  const char *const *v;
  uint32_t n;
} args;

static const char *str_at(const void *ctx, uint32_t i, size_t *len) {
  const char *a = ((const args *)ctx)->v[i];
  if (a[0] != '"') return NULL;
  *len = strlen(a) - 2;
  return a + 1;
}

#define MATCH(name, out, ...)                                                                      \
  ({                                                                                               \
    static const char *const v_[] = {__VA_ARGS__};                                                 \
    static args a_;                                                                                \
    a_ = (args){v_, sizeof v_ / sizeof *v_};                                                       \
    ctx = &a_;                                                                                     \
    tx_ptx_form_match(name, a_.n, str_at, &a_, out);                                               \
  })

static const args *ctx;

Test(ptx_dialect, families) {
  cr_expect(tx_ptx_is_family("tcgen05"));
  cr_expect(tx_ptx_is_family("and_"));
  cr_expect(tx_ptx_is_family("st_bulk"));
  cr_expect(!tx_ptx_is_family("and"));
  cr_expect(!tx_ptx_is_family("frobnicate"));
}

Test(ptx_dialect, fence_forms) {
  tx_ptx_form f;
  cr_assert_eq(MATCH("fence", &f, "\"proxy\"", "\"async\"", "\"shared::cta\"", "\"\""),
               TX_PTX_PRINTED);
  cr_expect_str_eq(f.mnemonic, "fence");
  cr_expect_eq(f.nexprs, 0);
  cr_expect_eq(f.ntokens, 3);
  cr_expect_eq(f.nslots, 3);
  /* The older helper T.ptx.fence(sem, scope): "gpu" is no marker. */
  cr_expect_eq(MATCH("fence", &f, "\"acquire\"", "\"gpu\""), TX_PTX_NOT_PRINTED);
  /* The form's shape with a token no slot lists. */
  cr_expect_eq(MATCH("fence", &f, "\"proxy\"", "\"async\"", "\"shared::x\"", "\"\""),
               TX_PTX_BAD_TOKENS);
  /* No tokens at all: an older helper's trailing string (st_bulk's space). */
  cr_expect_eq(MATCH("st_bulk", &f, "p", "n", "w", "\"\""), TX_PTX_NOT_PRINTED);
  /* A required slot left empty. */
  cr_expect_eq(MATCH("fence", &f, "\"proxy\"", "\"\"", "\"\""), TX_PTX_BAD_TOKENS);
}

Test(ptx_dialect, marker_flags) {
  tx_ptx_form f;
  cr_assert_eq(MATCH("st", &f, "addr", "v", "p", "\"\"", "\"\"", "\"\"", "\"global\"", "\"\"",
                     "\"\"", "\"\"", "\"b32\"", "\"pred\""),
               TX_PTX_PRINTED);
  cr_expect(f.pred);
  cr_expect_eq(f.nexprs, 3);
  cr_assert_eq(MATCH("and_", &f, "p", "q", "d", "\"pred\"", "\"p1,p2\""), TX_PTX_PRINTED);
  cr_expect_str_eq(f.mnemonic, "and");
  cr_expect_eq(f.pred_ops, 6);
  cr_assert_eq(MATCH("mov", &f, "hi", "packed", "\"b64\"", "\"s0\""), TX_PTX_PRINTED);
  cr_expect_eq(f.sunk, 1);
  /* The sink only where the ISA allows one: mov's unpack, not add's d. */
  tx_ptx_operand ops[TX_PTX_MAX_OPERANDS];
  uint32_t n;
  cr_assert(tx_ptx_layout(&f, 3, str_at, ctx, ops, &n));
  cr_expect(ops[0].sinkable && ops[0].lanes == 2 && ops[0].written);
  cr_expect_eq(MATCH("add", &f, "a", "b", "\"s32\"", "\"s0\""), TX_PTX_BAD_TOKENS);
  cr_expect_eq(MATCH("mov", &f, "d", "a", "\"b32\"", "\"bogus\""), TX_PTX_NOT_PRINTED);
  cr_expect_eq(MATCH("mov", &f, "d", "a", "\"b32\"", "\"p1,\""), TX_PTX_NOT_PRINTED);
  /* "pred" with no expression to be the predicate. */
  cr_expect_eq(MATCH("fence", &f, "\"sc\"", "\"sys\"", "\"pred\""), TX_PTX_BAD_TOKENS);
}

Test(ptx_dialect, tokens_fill_slots_in_order) {
  tx_ptx_form f;
  /* tcgen05.ld: the tokens pick the ld entry among the family's many. */
  cr_assert_eq(MATCH("tcgen05", &f, "r0", "taddr", "\"ld\"", "\"sync\"", "\"aligned\"",
                     "\"32x32b\"", "\"x1\"", "\"\"", "\"b32\"", "\"\""),
               TX_PTX_PRINTED);
  cr_expect_eq(f.nexprs, 2);
  cr_expect_eq(f.slot_tok[0], 2);          /* "ld" */
  cr_expect_eq(f.slot_tok[5], UINT32_MAX); /* pack::16b omitted */
  /* The family's slot-less entry (elect.sync): only a marker. */
  cr_expect_eq(MATCH("elect_sync", &f, "d", "p", "m", "\"\""), TX_PTX_PRINTED);
  cr_expect_str_eq(f.mnemonic, "elect.sync");
}

Test(ptx_dialect, layout) {
  tx_ptx_form f;
  tx_ptx_operand ops[TX_PTX_MAX_OPERANDS];
  uint32_t n;
  /* ld.v4: {d} of four written registers, then the address. */
  cr_assert_eq(MATCH("ld", &f, "a", "b", "c", "d", "addr", "\"\"", "\"\"", "\"shared\"", "\"\"",
                     "\"\"", "\"\"", "\"\"", "\"\"", "\"v4\"", "\"u32\"", "\"\""),
               TX_PTX_PRINTED);
  cr_assert(tx_ptx_layout(&f, 5, str_at, ctx, ops, &n));
  cr_assert_eq(n, 3);
  cr_expect(ops[0].kind == 'r' && ops[0].written && ops[0].vector && ops[0].lanes == 4);
  cr_expect(ops[1].kind == 'a' && ops[1].at == 4 && ops[1].lanes == 1);
  cr_expect_eq(ops[2].lanes, 0);                          /* no L2::cache_hint, no cache policy */
  cr_expect(!tx_ptx_layout(&f, 4, str_at, ctx, ops, &n)); /* .v4 takes four */
  /* ldmatrix .x1: one register, still a {group}. */
  cr_assert_eq(MATCH("ldmatrix", &f, "r", "p", "\"sync\"", "\"aligned\"", "\"m8n8\"", "\"x1\"",
                     "\"\"", "\"shared\"", "\"b16\"", "\"\""),
               TX_PTX_PRINTED);
  cr_assert(tx_ptx_layout(&f, 2, str_at, ctx, ops, &n));
  cr_expect(ops[0].vector && ops[0].lanes == 1 && ops[1].kind == 'a');
  /* Its count has no token formula here: the arguments left give it. */
  cr_assert(tx_ptx_layout(&f, 5, str_at, ctx, ops, &n));
  cr_expect_eq(ops[0].lanes, 4);
  /* st.bulk: the ISA's initval 0 is a fixed immediate after the operands. */
  cr_assert_eq(MATCH("st_bulk", &f, "addr", "size", "\"weak\"", "\"shared::cta\"", "\"\""),
               TX_PTX_PRINTED);
  cr_assert(tx_ptx_layout(&f, 2, str_at, ctx, ops, &n));
  cr_assert_eq(n, 3);
  cr_expect(ops[2].kind == 'L' && ops[2].at == 2 && ops[2].text_len == 1 && ops[2].text[0] == '0');
}
