/*
 * backend.h - the CUDA backend as a tx_backend (target/target.h): the
 * storage, arena and vector rules the passes ask, and the emitter.
 */
#ifndef TIRX_TARGET_CUDA_BACKEND_H
#define TIRX_TARGET_CUDA_BACKEND_H

#include "target/target.h"

extern const tx_backend tx_backend_cuda;

#endif
