/*
 * test_intrinsics.c - unit tests for the intrinsic registry: table
 * invariants that lookup depends on (sorted, unique, sane counts), lookups,
 * keyword checks and misspelling suggestions.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "ir/intrinsics.h"

/* Binary search is only correct on a strictly increasing table; a duplicate
 * or misplaced row in intrinsics.def must fail here, not as a silent miss. */
Test(intrinsics, table_sorted_and_unique) {
  size_t n = tx_intrinsic_count();
  for (size_t i = 1; i < n; i++) {
    const char *a = tx_intrinsic_at(i - 1)->name, *b = tx_intrinsic_at(i)->name;
    cr_assert(strcmp(a, b) < 0, "entries out of order or duplicated: \"%s\" then \"%s\"", a, b);
  }
}

Test(intrinsics, entries_well_formed) {
  size_t n = tx_intrinsic_count();
  cr_assert_gt(n, 150);
  for (size_t i = 0; i < n; i++) {
    const tx_intrinsic *in = tx_intrinsic_at(i);
    cr_assert_not_null(in->name);
    cr_assert_not_null(in->keywords, "%s", in->name);
    cr_assert(strncmp(in->name, "T.", 2) == 0 || strncmp(in->name, "I.", 2) == 0,
              "%s lacks the T. (or I.) prefix", in->name);
    cr_assert_geq(in->min_args, 0, "%s", in->name);
    cr_assert(in->max_args == -1 || in->max_args >= in->min_args, "%s: bad arg range", in->name);
    /* Every entry must be reachable through lookup. */
    cr_assert_eq(tx_intrinsic_find(in->name), in, "%s", in->name);
    /* Keyword lists are bare comma-separated identifiers. */
    cr_assert_null(strchr(in->keywords, ' '), "%s: space in keywords", in->name);
    size_t kl = strlen(in->keywords);
    if (kl) {
      cr_assert_neq(in->keywords[0], ',', "%s", in->name);
      cr_assert_neq(in->keywords[kl - 1], ',', "%s", in->name);
    }
    int tile_prefix = strncmp(in->name, "T.tile.", 7) == 0 ||
                      strncmp(in->name, "T.warp.", 7) == 0 || strncmp(in->name, "T.wg.", 5) == 0 ||
                      strncmp(in->name, "T.cta.", 6) == 0 ||
                      strncmp(in->name, "T.cluster.", 10) == 0;
    cr_assert_eq(tile_prefix, in->kind == INTRIN_TILE, "%s: kind does not match prefix", in->name);
    if (in->kind == INTRIN_TILE) {
      cr_assert_eq(in->result, RES_VOID, "%s", in->name);
      cr_assert_str_eq(in->keywords, "*", "%s", in->name);
    }
  }
  cr_assert_null(tx_intrinsic_at(n));
}

static size_t count_prefix(const char *prefix) {
  size_t c = 0, n = tx_intrinsic_count(), pl = strlen(prefix);
  for (size_t i = 0; i < n; i++)
    if (strncmp(tx_intrinsic_at(i)->name, prefix, pl) == 0) c++;
  return c;
}

Test(intrinsics, namespace_counts) {
  cr_assert_gt(count_prefix("T.ptx."), 80);
  cr_assert_gt(count_prefix("T.cuda."), 50);
  /* Every tile op exists under every scope. */
  size_t tile = count_prefix("T.tile.");
  cr_assert_geq(tile, 30);
  cr_assert_eq(count_prefix("T.warp."), count_prefix("T.wg."));
  cr_assert_eq(count_prefix("T.cta."), count_prefix("T.cluster."));
  cr_assert_eq(count_prefix("T.warp."), count_prefix("T.cta."));
}

Test(intrinsics, find_hits) {
  const tx_intrinsic *e = tx_intrinsic_find("T.exp");
  cr_assert_not_null(e);
  cr_assert_eq(e->min_args, 1);
  cr_assert_eq(e->max_args, 1);
  cr_assert_eq(e->result, RES_ARG0);
  cr_assert_eq(e->kind, INTRIN_EXPR);

  e = tx_intrinsic_find("T.if_then_else");
  cr_assert_not_null(e);
  cr_assert_eq(e->min_args, 3);
  cr_assert_eq(e->result, RES_ARG1);

  e = tx_intrinsic_find("T.reinterpret");
  cr_assert_not_null(e);
  cr_assert_eq(e->result, RES_ARG0_DTYPE_STR);

  e = tx_intrinsic_find("T.isnan");
  cr_assert_not_null(e);
  cr_assert_eq(e->result, RES_BOOL);

  e = tx_intrinsic_find("T.call_extern");
  cr_assert_not_null(e);
  cr_assert_eq(e->max_args, -1);

  e = tx_intrinsic_find("T.ptx.mbarrier.init");
  cr_assert_not_null(e);
  cr_assert_eq(e->min_args, 2);
  cr_assert_eq(e->result, RES_VOID);

  e = tx_intrinsic_find("T.ptx.elect_sync");
  cr_assert_not_null(e);
  cr_assert_eq(e->max_args, 0);
  cr_assert_eq(e->result, RES_UINT32);

  e = tx_intrinsic_find("T.ptx.cp_async.bulk.tensor.g2c");
  cr_assert_not_null(e);
  cr_assert_eq(e->max_args, -1);

  /* Both the callable namespace and its members are entries. */
  cr_assert_not_null(tx_intrinsic_find("T.ptx.mbarrier.arrive"));
  cr_assert_not_null(tx_intrinsic_find("T.ptx.mbarrier.arrive.expect_tx"));
  cr_assert_not_null(tx_intrinsic_find("T.ptx.tcgen05.wait.ld"));
  cr_assert_not_null(tx_intrinsic_find("T.cuda.__shfl_xor_sync"));

  e = tx_intrinsic_find("T.cuda.func_call");
  cr_assert_not_null(e);
  cr_assert_eq(e->result, RES_KW_DTYPE);

  e = tx_intrinsic_find("T.wg.copy_async");
  cr_assert_not_null(e);
  cr_assert_eq(e->kind, INTRIN_TILE);
  cr_assert_eq(e->result, RES_VOID);
  cr_assert_not_null(tx_intrinsic_find("T.cluster.gemm_async"));
  cr_assert_not_null(tx_intrinsic_find("T.tile.reduce_negate"));

  /* First and last rows, the edges of the binary search. */
  size_t n = tx_intrinsic_count();
  cr_assert_eq(tx_intrinsic_find(tx_intrinsic_at(0)->name), tx_intrinsic_at(0));
  cr_assert_eq(tx_intrinsic_find(tx_intrinsic_at(n - 1)->name), tx_intrinsic_at(n - 1));
}

Test(intrinsics, find_misses) {
  cr_assert_null(tx_intrinsic_find(NULL));
  cr_assert_null(tx_intrinsic_find(""));
  cr_assert_null(tx_intrinsic_find("T."));
  cr_assert_null(tx_intrinsic_find("exp"));
  cr_assert_null(tx_intrinsic_find("T.exq"));
  cr_assert_null(tx_intrinsic_find("T.EXP"));
  cr_assert_null(tx_intrinsic_find("T.exp "));
  cr_assert_null(tx_intrinsic_find("T.ptx"));
  cr_assert_null(tx_intrinsic_find("T.ptx.mbarrier"));
  /* Dedicated syntax is deliberately absent from the registry. */
  cr_assert_null(tx_intrinsic_find("T.prim_func"));
  cr_assert_null(tx_intrinsic_find("T.alloc_buffer"));
  cr_assert_null(tx_intrinsic_find("T.cta_id"));
  cr_assert_null(tx_intrinsic_find("T.Cast"));
  cr_assert_null(tx_intrinsic_find("T.floordiv"));
  cr_assert_null(tx_intrinsic_find("T.min"));
  cr_assert_null(tx_intrinsic_find("T.serial"));
}

Test(intrinsics, keywords) {
  const tx_intrinsic *alloc = tx_intrinsic_find("T.ptx.tcgen05.alloc");
  cr_assert_not_null(alloc);
  cr_assert(tx_intrinsic_allows_keyword(alloc, "n_cols"));
  cr_assert(tx_intrinsic_allows_keyword(alloc, "cta_group"));
  cr_assert_not(tx_intrinsic_allows_keyword(alloc, "n"));        /* token prefix */
  cr_assert_not(tx_intrinsic_allows_keyword(alloc, "n_cols_x")); /* longer token */
  cr_assert_not(tx_intrinsic_allows_keyword(alloc, "cta"));
  cr_assert_not(tx_intrinsic_allows_keyword(alloc, ""));
  cr_assert_not(tx_intrinsic_allows_keyword(alloc, NULL));
  cr_assert_not(tx_intrinsic_allows_keyword(NULL, "n_cols"));

  const tx_intrinsic *fc = tx_intrinsic_find("T.cuda.func_call");
  cr_assert(tx_intrinsic_allows_keyword(fc, "source_code"));
  cr_assert(tx_intrinsic_allows_keyword(fc, "return_type"));
  cr_assert_not(tx_intrinsic_allows_keyword(fc, "dtype"));

  const tx_intrinsic *ws = tx_intrinsic_find("T.cuda.warp_sum");
  cr_assert(tx_intrinsic_allows_keyword(ws, "width"));

  /* No keywords at all. */
  const tx_intrinsic *sync = tx_intrinsic_find("T.cuda.cta_sync");
  cr_assert_str_eq(sync->keywords, "");
  cr_assert_not(tx_intrinsic_allows_keyword(sync, "x"));

  /* Tile primitives take anything. */
  const tx_intrinsic *copy = tx_intrinsic_find("T.cta.copy");
  cr_assert(tx_intrinsic_allows_keyword(copy, "dispatch"));
  cr_assert(tx_intrinsic_allows_keyword(copy, "workspace"));
  cr_assert(tx_intrinsic_allows_keyword(copy, "whatever_config"));
  cr_assert_not(tx_intrinsic_allows_keyword(copy, ""));
}

Test(intrinsics, suggest_typos) {
  cr_assert_str_eq(tx_intrinsic_suggest("T.ptx.mbarier.init"), "T.ptx.mbarrier.init");
  cr_assert_str_eq(tx_intrinsic_suggest("T.cuda.cta_synk"), "T.cuda.cta_sync");
  cr_assert_str_eq(tx_intrinsic_suggest("T.exq"), "T.exp");
  /* Transposition counts as one edit. */
  cr_assert_str_eq(tx_intrinsic_suggest("T.ptx.elcet_sync"), "T.ptx.elect_sync");
  cr_assert_str_eq(tx_intrinsic_suggest("T.cuda.wrap_sum"), "T.cuda.warp_sum");
  /* Missing and extra characters. */
  cr_assert_str_eq(tx_intrinsic_suggest("T.ptx.tcgen05.aloc"), "T.ptx.tcgen05.alloc");
  cr_assert_str_eq(tx_intrinsic_suggest("T.if_then_elsee"), "T.if_then_else");
  cr_assert_str_eq(tx_intrinsic_suggest("T.cta.coppy"), "T.cta.copy");
  cr_assert_str_eq(tx_intrinsic_suggest("T.ptx.fence.proxy_asnyc"), "T.ptx.fence.proxy_async");
  /* Underscore vs dot confusion in a PTX path. */
  cr_assert_str_eq(tx_intrinsic_suggest("T.ptx.tcgen05.wait_ld"), "T.ptx.tcgen05.wait.ld");
  /* An exact name suggests itself. */
  cr_assert_str_eq(tx_intrinsic_suggest("T.exp"), "T.exp");
}

Test(intrinsics, suggest_prefers_same_namespace) {
  /* "T.ptx.exp3" is one edit from T.ptx.exp2 and two from T.exp2. */
  const char *a = tx_intrinsic_suggest("T.ptx.exp3");
  cr_assert_not_null(a);
  cr_assert_str_eq(a, "T.ptx.exp2");
  /* Same distance (1) to T.ptx.any_sync and T.cuda.any_sync: the namespace of
   * the query decides. */
  cr_assert_str_eq(tx_intrinsic_suggest("T.cuda.any_synk"), "T.cuda.any_sync");
  cr_assert_str_eq(tx_intrinsic_suggest("T.ptx.any_synk"), "T.ptx.any_sync");
  cr_assert_str_eq(tx_intrinsic_suggest("T.warp.exq"), "T.warp.exp");
  cr_assert_str_eq(tx_intrinsic_suggest("T.cluster.exq"), "T.cluster.exp");
  /* Repeated calls agree (no hidden state). */
  for (int i = 0; i < 3; i++)
    cr_assert_str_eq(tx_intrinsic_suggest("T.wg.cpy"), tx_intrinsic_suggest("T.wg.cpy"));
}

Test(intrinsics, suggest_rejects_garbage) {
  cr_assert_null(tx_intrinsic_suggest(NULL));
  cr_assert_null(tx_intrinsic_suggest(""));
  cr_assert_null(tx_intrinsic_suggest("xyzzy"));
  cr_assert_null(tx_intrinsic_suggest("T.frobnicate"));
  cr_assert_null(tx_intrinsic_suggest("T.ptx.qqqqqqqqqqqqqq"));
  cr_assert_null(tx_intrinsic_suggest("numpy.exp"));
  /* Longer than the suggester's cap: refused instead of scanned. */
  char huge[400];
  memset(huge, 'a', sizeof huge - 1);
  huge[sizeof huge - 1] = '\0';
  cr_assert_null(tx_intrinsic_suggest(huge));
}
