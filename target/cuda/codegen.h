/*
 * codegen.h - from lowered IR to CUDA C, and from CUDA C to PTX or a cubin
 * through NVRTC (loaded at run time; no link-time CUDA dependency).
 */
#ifndef TIRX_TARGET_CUDA_CODEGEN_H
#define TIRX_TARGET_CUDA_CODEGEN_H

#include <stddef.h>

#include "ir/diag.h"
#include "ir/ir.h"
#include "support/strbuf.h"
#include "target/target.h"

/* For each line of generated CUDA, the TIRx span it came from (line 0 when
 * none), so NVRTC errors point back at the kernel source. */
typedef struct tx_line_map {
  tirx_span *lines; /* lines[i] is the span of CUDA line i + 1 */
  size_t len, cap;
  const tirx_allocator *alloc; /* where lines comes from (NULL: malloc) */
} tx_line_map;
/* Frees the lines; the map keeps its allocator. */
void tx_line_map_free(tx_line_map *map);

/* CUDA C for every device function (attr "tirx.kernel") of a lowered
 * module, as one translation unit. `map` may be NULL. Scratch memory comes
 * from the allocator of diags' context (tx_diag_allocator), as in
 * tx_nvrtc_compile. */
tirx_status tx_codegen_cuda(tx_diag_sink *diags, const tx_module *lowered, const tx_target *target,
                            tx_strbuf *out, tx_line_map *map);

typedef enum tx_nvrtc_output { NVRTC_PTX, NVRTC_CUBIN } tx_nvrtc_output;

typedef struct tx_nvrtc_options {
  const char *cuda_path; /* --cuda-path; NULL: $CUDA_HOME, then /usr/local/cuda */
  const tx_target *target;
  tx_nvrtc_output output;
  int verbose; /* record the options used into `log` */
} tx_nvrtc_options;

/* Compile CUDA C with NVRTC. On a compile error, NVRTC's messages become
 * diagnostics located through `map`; a missing toolkit is a clear error.
 * `out` receives PTX text or cubin bytes; `log` (optional) the raw log. */
tirx_status tx_nvrtc_compile(tx_diag_sink *diags, const char *cuda_src, size_t len,
                             const tx_line_map *map, const tx_nvrtc_options *opts, tx_strbuf *out,
                             tx_strbuf *log);

#endif
