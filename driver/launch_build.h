/*
 * launch_build.h - the launch programs of a lowered module (the compile
 * half of abi/launch_program.h): each host function make-packed-api wrote
 * becomes a flat program of checks, bindings, tensor-map encodes and
 * launches, built once at compile time and stored in the executable.
 *
 * Reads the IR only; the runtime runs the result without it.
 */
#ifndef TIRX_DRIVER_LAUNCH_BUILD_H
#define TIRX_DRIVER_LAUNCH_BUILD_H

#include "abi/launch_program.h"
#include "ir/ir.h"
#include "tirx/tirx.h"

/* The program of every packed function of `lowered`, in module order, into
 * *out (allocated through `alloc`, NULL: malloc). `source` is the module as
 * written (before the pipeline): a function's span there is its source map
 * entry. A function that cannot be run (host-only, or a statement the
 * runtime does not run) is kept, with the reason in its `why`, so that its
 * parameters can still be listed. TIRX_ERR_NOMEM when an allocation failed
 * (*out is then NULL). */
tirx_status tx_launch_build(const tirx_allocator *alloc, const tx_module *lowered,
                            const tx_module *source, tx_lp_module **out);

#endif
