/*
 * backend.c - tx_backend_cuda: the CUDA code generator's rules and its
 * emitter behind the target interface, so that passes never include
 * target/cuda/.
 */
#include "target/cuda/backend.h"

#include "target/cuda/codegen.h"
#include "target/cuda/cuda_internal.h"
#include "target/cuda/tile_cuda.h"

const tx_backend tx_backend_cuda = {
    .name = "cuda",
    .elem_bytes = tx_cuda_elem_bytes,
    .buffer_bytes = tx_cuda_buffer_bytes,
    .report_bad_size = tx_cuda_report_bad_size,
    .buffer_owns_storage = tx_cuda_buffer_owns_storage,
    .dyn_smem_layout = tx_cuda_dyn_smem_layout,
    .vector_lanes = tx_cuda_vector_lanes,
    .vector_node_ok = tx_cuda_vector_node_ok,
    .tile_variants = tx_cuda_tile_variants,
    .vector_access_ok = tx_cuda_vector_access_ok,
    .emit = tx_codegen_cuda,
};
