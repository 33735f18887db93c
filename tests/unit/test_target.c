/*
 * test_target.c - the architecture table (abi/arches.def) and its
 * queries: names, compute capabilities, features, limits.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "abi/arch.h"
#include "target/target.h"

static tx_target target(const char *arch) {
  tx_target t = {0};
  cr_assert(tx_target_from_arch(arch, &t), "%s", arch);
  return t;
}

Test(target, every_listed_name_is_a_row) {
  char list[256];
  snprintf(list, sizeof list, "%s", tx_target_arch_list());
  cr_assert_str_eq(list, "sm_80 sm_86 sm_89 sm_90 sm_90a sm_100 sm_100a sm_101a sm_103a "
                         "sm_120 sm_120a");
  int n = 0;
  for (char *save = NULL, *name = strtok_r(list, " ", &save); name;
       name = strtok_r(NULL, " ", &save), n++) {
    tx_target t = target(name);
    cr_assert_str_eq(t.arch, name);
    cr_assert_str_eq(tx_target_limits_of(&t)->arch, name);
    cr_assert_eq(tx_target_has(&t, TX_FEAT_ARCH_SPECIFIC), name[strlen(name) - 1] == 'a', "%s",
                 name);
  }
  cr_assert_eq(n, 11);
}

Test(target, compute_capability_picks_the_arch_specific_row) {
  cr_assert_str_eq(tx_arch_for_cc(8, 0), "sm_80");
  cr_assert_str_eq(tx_arch_for_cc(8, 9), "sm_89");
  cr_assert_str_eq(tx_arch_for_cc(9, 0), "sm_90a");
  cr_assert_str_eq(tx_arch_for_cc(10, 0), "sm_100a");
  cr_assert_str_eq(tx_arch_for_cc(10, 3), "sm_103a");
  cr_assert_str_eq(tx_arch_for_cc(12, 0), "sm_120a");
  cr_assert_null(tx_arch_for_cc(7, 5));
  cr_assert_null(tx_arch_for_cc(11, 0));
}

Test(target, features_follow_the_ptx_target_notes) {
  tx_target sm80 = target("sm_80"), sm89 = target("sm_89"), sm90 = target("sm_90"),
            sm90a = target("sm_90a"), sm100 = target("sm_100"), sm100a = target("sm_100a"),
            sm103a = target("sm_103a"), sm120 = target("sm_120"), sm120a = target("sm_120a");
  cr_assert_not(tx_target_has(&sm80, TX_FEAT_FP8));
  cr_assert(tx_target_has(&sm89, TX_FEAT_FP8));
  cr_assert_not(tx_target_has(&sm89, TX_FEAT_CLUSTERS));
  cr_assert(tx_target_has(&sm90, TX_FEAT_CLUSTERS) && tx_target_has(&sm90, TX_FEAT_TMA));
  cr_assert_not(tx_target_has(&sm90, TX_FEAT_WGMMA));
  cr_assert(tx_target_has(&sm90a, TX_FEAT_WGMMA));
  cr_assert_not(tx_target_has(&sm100a, TX_FEAT_WGMMA));
  cr_assert_not(tx_target_has(&sm90a, TX_FEAT_TCGEN05));
  cr_assert_not(tx_target_has(&sm100, TX_FEAT_TCGEN05));
  cr_assert(tx_target_has(&sm100a, TX_FEAT_TCGEN05) && tx_target_has(&sm103a, TX_FEAT_TCGEN05));
  cr_assert_not(tx_target_has(&sm120a, TX_FEAT_TCGEN05));
  cr_assert(tx_target_has(&sm100, TX_FEAT_CLC) && !tx_target_has(&sm100, TX_FEAT_CLC_MULTICAST));
  cr_assert(tx_target_has(&sm120, TX_FEAT_CLC) && tx_target_has(&sm120a, TX_FEAT_CLC_MULTICAST));
  cr_assert(tx_target_has(&sm103a, TX_FEAT_MMA_K96) && !tx_target_has(&sm100a, TX_FEAT_MMA_K96));
  cr_assert(tx_target_has(&sm100, TX_FEAT_F32X2) && !tx_target_has(&sm90a, TX_FEAT_F32X2));
  cr_assert(tx_target_has(&sm100, TX_FEAT_LDST256) && !tx_target_has(&sm90a, TX_FEAT_LDST256));
  cr_assert_not(tx_target_has(NULL, TX_FEAT_FP8));
}

/* A family target (sm_100f) has its sm's arch-specific features but is not
 * arch-specific; its limits are the portable row's. */
Test(target, family_spellings) {
  tx_target fam = {.arch = "sm_100f", .sm = 100};
  cr_assert(tx_target_has(&fam, TX_FEAT_TCGEN05));
  cr_assert(tx_target_has(&fam, TX_FEAT_CLC_MULTICAST));
  cr_assert_not(tx_target_has(&fam, TX_FEAT_ARCH_SPECIFIC));
  cr_assert_str_eq(tx_target_limits_of(&fam)->arch, "sm_100");
  tx_target odd = {.arch = "sm_77", .sm = 77};
  cr_assert_not(tx_target_has(&odd, TX_FEAT_FP8));
  cr_assert_null(tx_target_limits_of(&odd)->arch);
}
