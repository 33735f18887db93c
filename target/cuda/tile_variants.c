/*
 * tile_variants.c - the table of the CUDA backend's tile-primitive
 * variants (docs/tile_primitives.md): op, variant name, priority,
 * forced-only, predicate, expansion. The dispatcher orders them; the
 * predicates and expansions live with their op family (tile_cuda.h).
 */
#include "target/cuda/tile_cuda.h"

#define ELEMENTWISE(op)                                                                            \
  {op, "reg", 10, 0, tx_cuda_reject_reg, tx_cuda_expand_elementwise}, {                            \
    op, "smem", 10, 0, tx_cuda_reject_smem, tx_cuda_expand_elementwise                             \
  }

#define REDUCTION(op)                                                                              \
  {op, "local", 10, 0, tx_cuda_reject_reduce_local, tx_cuda_expand_reduce}, {                      \
    op, "shared", 10, 0, tx_cuda_reject_reduce_shared, tx_cuda_expand_reduce                       \
  }

static const tx_tile_variant VARIANTS[] = {
    {"copy", "vec_auto", 10, 0, tx_cuda_reject_copy, tx_cuda_expand_vec_auto},
    {"copy", "fallback", 0, 0, tx_cuda_reject_copy, tx_cuda_expand_fallback},
    ELEMENTWISE("fill"),
    ELEMENTWISE("zero"),
    ELEMENTWISE("cast"),
    ELEMENTWISE("sqrt"),
    ELEMENTWISE("exp"),
    ELEMENTWISE("exp2"),
    ELEMENTWISE("log2"),
    ELEMENTWISE("reciprocal"),
    ELEMENTWISE("silu"),
    ELEMENTWISE("add"),
    ELEMENTWISE("sub"),
    ELEMENTWISE("mul"),
    ELEMENTWISE("fdiv"),
    ELEMENTWISE("maximum"),
    ELEMENTWISE("minimum"),
    ELEMENTWISE("fma"),
    REDUCTION("sum"),
    REDUCTION("max"),
    REDUCTION("min"),
};

const tx_tile_variant *tx_cuda_tile_variants(uint32_t *n) {
  *n = sizeof VARIANTS / sizeof *VARIANTS;
  return VARIANTS;
}
