/*
 * target.h - what a compilation is for: the GPU architecture, its limits
 * and its features, in one table (arches.def).
 *
 * Passes and code generators ask this interface ("does the target have
 * tcgen05?", "how much static shared memory may a block have?") instead of
 * spelling architecture names or numbers: a new architecture is a new row
 * of arches.def. What depends on the code generator (how big an element is
 * in memory, how the dynamic shared arena is laid out, which vector nodes
 * it can emit) is the target's backend, a struct of functions (tx_backend;
 * CUDA's in target/cuda/backend.c), as QBE's Target. Pure functions over
 * read-only tables: no state, safe from any thread. Must not depend on the
 * frontend or the passes.
 */
#ifndef TIRX_TARGET_TARGET_H
#define TIRX_TARGET_TARGET_H

#include <stdint.h>

#include "ir/diag.h"
#include "ir/ir.h"
#include "support/strbuf.h"
#include "target/tile.h"

struct tx_backend;

/* What the pipeline is compiling for. */
typedef struct tx_target {
  const char *arch; /* "sm_90a", "sm_100a", ...; interned or static */
  int sm;           /* 90 for sm_90a */
  int opt_level;    /* 0..3 */
  /* The code generator (tx_target_from_arch sets it; NULL: CUDA's). */
  const struct tx_backend *backend;
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
  TX_FEAT_F32_MIXED = 1u << 11,    /* add/sub/fma .f32.f16 and .f32.bf16 (sm_100+) */
  TX_FEAT_SETMAXNREG = 1u << 12,   /* setmaxnreg (arch-specific targets, sm_90a on) */
  TX_FEAT_CVT_F4F6 = 1u << 13,     /* cvt to/from .e2m1x2/.e2m3x2/.e3m2x2/.ue8m0x2 */
} tx_feature;

/* Fill *out for a supported architecture name ("sm_90a": sm 90). Returns 0
 * for an unknown one. The supported names, space-separated, come from
 * tx_target_arch_list(). out->opt_level is left as it is. */
int tx_target_from_arch(const char *arch, tx_target *out);
const char *tx_target_arch_list(void);
/* The architecture a device of a compute capability runs: abi/arch.h. */

/* Does t have feature f? A name of no row that ends in 'a' or 'f' (a family
 * target such as sm_100f) has the features of its sm's 'a' row, less
 * TX_FEAT_ARCH_SPECIFIC for 'f'; any other has its sm's portable row's.
 * 0 for no target. */
int tx_target_has(const tx_target *t, tx_feature f);

struct tx_line_map;

/* A code generator, as the passes see it. Every member is set. */
typedef struct tx_backend {
  const char *name; /* "cuda" */
  /* Bytes one element of t takes in memory (an upper bound for packed
   * sub-byte elements: a whole byte). */
  int64_t (*elem_bytes)(tx_dtype t);
  /* The bytes of b's storage: 1 with *bytes set, 0 when an extent is not a
   * literal, < 0 when it overflows or is negative (report_bad_size says so). */
  int (*buffer_bytes)(const tx_buffer *b, int64_t *bytes);
  void (*report_bad_size)(tx_diag_sink *diags, tirx_span span, const tx_buffer *b, int why);
  /* Does b own its storage rather than view another buffer's? */
  int (*buffer_owns_storage)(const tx_buffer *b);
  /* Lay the dynamic shared allocations out in one arena: offsets
   * (optional), the total bytes, or *sym for a lone symbolic one. */
  tirx_status (*dyn_smem_layout)(tx_diag_sink *diags, const tx_buffer *const *bufs, uint32_t n,
                                 int64_t *offsets, int64_t *total, const tx_expr **sym);
  /* The most lanes one vector of scalar element type t holds (0: none). */
  int (*vector_lanes)(tx_dtype t);
  /* Can it emit the vector node e (e->dtype.lanes > 1) as it is? */
  int (*vector_node_ok)(const tx_expr *e);
  /* The tile-primitive implementations it offers (target/tile.h): every
   * variant of every op; *n gets their count. */
  const tx_tile_variant *(*tile_variants)(uint32_t *n);
  /* Can it access buffer b at a vector index: a contiguous one (one vector
   * access at an aligned base) or, contiguous 0, lane by lane (a gather or
   * scatter)? Which memories it aligns for whole vectors is its business. */
  int (*vector_access_ok)(const tx_buffer *b, int contiguous);
  /* The lowered module as source text (CUDA C), with a line map. */
  tirx_status (*emit)(tx_diag_sink *diags, const tx_module *lowered, const tx_target *target,
                      tx_strbuf *out, struct tx_line_map *map);
} tx_backend;

/* t's backend; CUDA's for no target or one without a backend. */
const tx_backend *tx_target_backend(const tx_target *t);

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
