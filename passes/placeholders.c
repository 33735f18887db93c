/*
 * placeholders.c - TEMPORARY stand-ins for the passes, the CUDA code
 * generator and the NVRTC driver that other branches are writing, so the
 * pass manager, the CLI and the golden runner link and can be tested before
 * those land. DELETE THIS FILE when merging passes/lower_tirx.c,
 * passes/flatten_buffer.c, passes/simplify.c, passes/split_host_device.c,
 * codegen/cuda.c and codegen/nvrtc.c.
 *
 * Each pass returns its input unchanged; code generation and NVRTC report an
 * internal error. Must not grow real behaviour: anything here is thrown away.
 */
#include <stdlib.h>

#include "codegen/codegen.h"
#include "passes/pass.h"

tirx_status tx_pass_split_host_device(tx_pass_ctx *pc, const tx_module *in,
                                      const tx_module **out) {
  (void)pc;
  *out = in;
  return TIRX_OK;
}

tirx_status tx_codegen_cuda(tx_diag_sink *diags, const tx_module *lowered, const tx_target *target,
                            tx_strbuf *out, tx_line_map *map) {
  (void)lowered, (void)target, (void)out, (void)map;
  tx_internal_error(diags, "codegen-cuda", "CUDA code generation is not implemented yet "
                                           "(placeholder in passes/placeholders.c)");
  return TIRX_ERR_INTERNAL;
}

void tx_line_map_free(tx_line_map *map) {
  if (!map) return;
  free(map->lines);
  *map = (tx_line_map){0};
}
