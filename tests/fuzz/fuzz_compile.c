/*
 * fuzz_compile.c - libFuzzer target: the lowering pipeline and the CUDA
 * code generator, as `tirxc --emit=cuda --verify-each` drives them
 * (driver/compile.h), in process and without NVRTC.
 *
 * The input is TVMScript text; what does not parse is dropped (fuzz_parse
 * covers the frontend). A module that parses must compile to CUDA or fail
 * with located errors: an internal error (a pass producing IR the verifier
 * rejects, a pass's own tx_internal_error), a crash, a sanitizer report or
 * a leak is a bug. Target: sm_90a at -O2, the CLI's defaults. A module that
 * compiles to CUDA must also compile to an executable (tirx_compile,
 * host_only: the same pipeline, then the lowered host functions printed and
 * parsed back, which is what executable files and cache entries hold).
 */
#include <string.h>

#include "fuzz_common.h"
#include "driver/context.h"
#include "driver/compile.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tirx_ctx *ctx = NULL;
  FUZZ_CHECK(tirx_ctx_create(&ctx) == TIRX_OK, "context");
  tirx_module *m = NULL;
  if (tirx_parse_string(ctx, "fuzz.tirx", (const char *)data, size, &m) != TIRX_OK) {
    tirx_ctx_destroy(ctx);
    return 0;
  }
  tx_compile_request req;
  tx_compile_request_init(&req);
  req.emit = TX_EMIT_CUDA;
  req.pipeline.verify_each = 1;
  tx_strbuf out = {0};
  tirx_status st = tx_compile_module(ctx, m->mod, &req, NULL, &out);
  if (st != TIRX_OK && st != TIRX_ERR_INPUT) tirx_diag_render_file(ctx, stderr);
  FUZZ_CHECK(st == TIRX_OK || st == TIRX_ERR_INPUT, "compiling returned %s", tirx_status_name(st));
  if (st == TIRX_ERR_INPUT)
    FUZZ_CHECK(tirx_diag_error_count(ctx) > 0, "TIRX_ERR_INPUT without an error diagnostic");
  FUZZ_CHECK(!out.failed, "the CUDA buffer failed without TIRX_ERR_NOMEM");
  tx_sb_free(&out);
  tirx_ctx_destroy(ctx);
  if (st == TIRX_OK) {
    tirx_compile_options o;
    tirx_compile_options_init(&o);
    o.host_only = 1;
    tirx_executable *exe = NULL;
    tirx_error err = {0};
    tirx_status hs = tirx_compile("fuzz.tirx", (const char *)data, size, &o, &exe, &err);
    FUZZ_CHECK(hs == TIRX_OK, "compiles to CUDA but not to an executable: %s", err.message);
    fuzz_use_executable(exe, NULL);
    tirx_executable_free(exe);
  }
  return 0;
}
