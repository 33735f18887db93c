/*
 * tile_cuda.h - the CUDA backend's tile-primitive variants (the
 * tile_variants hook of tx_backend_cuda): their table (tile_variants.c)
 * and the predicates and expansions it lists, by op family
 * (tile_elementwise.c: copy and the element-wise ops; tile_reduce.c:
 * sum/max/min). Each predicate returns NULL when its variant applies to the
 * call, else why not; each expansion is tx_tile_variant's expand.
 */
#ifndef TIRX_TARGET_CUDA_TILE_CUDA_H
#define TIRX_TARGET_CUDA_TILE_CUDA_H

#include "target/tile.h"

/* Every CUDA variant, in no particular order; *n gets their count. */
const tx_tile_variant *tx_cuda_tile_variants(uint32_t *n);

/* copy: vec_auto and fallback share the predicate. */
const char *tx_cuda_reject_copy(const tx_tile_call *c);
const tx_stmt *tx_cuda_expand_vec_auto(tx_tile_call *c, const char **why);
const tx_stmt *tx_cuda_expand_fallback(tx_tile_call *c, const char **why);
/* The element-wise ops over registers (reg) and over shared memory (smem). */
const char *tx_cuda_reject_reg(const tx_tile_call *c);
const char *tx_cuda_reject_smem(const tx_tile_call *c);
const tx_stmt *tx_cuda_expand_elementwise(tx_tile_call *c, const char **why);
/* sum, max, min over registers (local) and over shared memory (shared). */
const char *tx_cuda_reject_reduce_local(const tx_tile_call *c);
const char *tx_cuda_reject_reduce_shared(const tx_tile_call *c);
const tx_stmt *tx_cuda_expand_reduce(tx_tile_call *c, const char **why);

#endif
