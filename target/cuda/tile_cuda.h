/*
 * tile_cuda.h - the CUDA backend's tile-primitive variants (the
 * tile_variants hook of tx_backend_cuda; tile_thread.c).
 */
#ifndef TIRX_TARGET_CUDA_TILE_CUDA_H
#define TIRX_TARGET_CUDA_TILE_CUDA_H

#include "target/tile.h"

/* Every CUDA variant, in no particular order; *n gets their count. */
const tx_tile_variant *tx_cuda_tile_variants(uint32_t *n);

#endif
