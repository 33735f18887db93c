/*
 * target.h - what a compilation is for: the GPU architecture, its limits
 * and its features, in one table (arches.def).
 *
 * Passes and code generators ask this interface ("does the target have
 * tcgen05?", "how much static shared memory may a block have?") instead of
 * spelling architecture names or numbers: a new architecture is a new row
 * of arches.def. Pure functions over read-only tables: no state, safe from
 * any thread. Must not depend on the frontend, the passes or a backend.
 */
#ifndef TIRX_TARGET_TARGET_H
#define TIRX_TARGET_TARGET_H

#include <stdint.h>

/* What the pipeline is compiling for. */
typedef struct tx_target {
  const char *arch; /* "sm_90a", "sm_100a", ...; interned or static */
  int sm;           /* 90 for sm_90a */
  int opt_level;    /* 0..3 */
} tx_target;

/* Architecture features (bits), the rows of arches.def say which has which. */
typedef enum tx_feature {
  TX_FEAT_ARCH_SPECIFIC = 1u << 0, /* an 'a' target: code runs on that exact family */
  TX_FEAT_FP8 = 1u << 1,           /* e4m3/e5m2 conversions in hardware (sm_89+) */
  TX_FEAT_CLUSTERS = 1u << 2,      /* thread-block clusters, distributed shared memory */
  TX_FEAT_TMA = 1u << 3,           /* cp.async.bulk.tensor, tensor maps */
  TX_FEAT_WGMMA = 1u << 4,         /* warpgroup mma (sm_90a) */
  TX_FEAT_TCGEN05 = 1u << 5,       /* tcgen05 mma and tensor memory */
  TX_FEAT_CLC = 1u << 6,           /* clusterlaunchcontrol (sm_100+) */
  TX_FEAT_CLC_MULTICAST = 1u << 7, /* its .multicast::cluster::all form */
  TX_FEAT_MMA_K96 = 1u << 8,       /* the K=96 mma shapes (sm_103a) */
  TX_FEAT_F32X2 = 1u << 9,         /* packed .f32x2 arithmetic (sm_100+) */
  TX_FEAT_LDST256 = 1u << 10,      /* 256-bit loads and stores (sm_100+) */
} tx_feature;

/* Fill *out for a supported architecture name ("sm_90a": sm 90). Returns 0
 * for an unknown one. The supported names, space-separated, come from
 * tx_target_arch_list(). out->opt_level is left as it is. */
int tx_target_from_arch(const char *arch, tx_target *out);
const char *tx_target_arch_list(void);
/* The architecture to use for a device of compute capability major.minor
 * ("sm_90a" for 9.0, whose arch-specific features the kernels use), or
 * NULL when tirx-c does not support it. */
const char *tx_target_arch_for_cc(int major, int minor);

/* Does t have feature f? A name of no row that ends in 'a' or 'f' (a family
 * target such as sm_100f) has the features of its sm's 'a' row, less
 * TX_FEAT_ARCH_SPECIFIC for 'f'; any other has its sm's portable row's.
 * 0 for no target. */
int tx_target_has(const tx_target *t, tx_feature f);

/* What a target allows a kernel's on-chip buffers, in bytes. */
typedef struct tx_target_limits {
  const char *arch;            /* the row ("sm_90a"); NULL for the fallback */
  int64_t static_shared_bytes; /* all static __shared__ arrays of one block */
  int64_t dyn_shared_bytes;    /* static + dynamic shared memory of one block, with the opt-in */
  int64_t local_bytes;         /* local memory of one thread */
} tx_target_limits;

/* The limits of t's architecture: the row of t->arch, else the portable row
 * of t->sm ("sm_100f" gets sm_100's), else (also for no target) a fallback
 * that holds on every supported architecture. Never NULL. */
const tx_target_limits *tx_target_limits_of(const tx_target *t);

#endif
