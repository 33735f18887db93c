/*
 * compile.h - one call from a parsed module to what `tirxc --emit=KIND`
 * writes: canonical TIRx, lowered TIRx, CUDA C, PTX or a cubin. Shared by the
 * CLI, the golden runner and the tests so that they all drive the pipeline
 * and the code generators the same way.
 */
#ifndef TIRX_DRIVER_COMPILE_H
#define TIRX_DRIVER_COMPILE_H

#include "abi/arch.h"
#include "support/strbuf.h"
#include "passes/pass.h"
#include "tirx/tirx.h"

typedef enum tx_emit_kind {
  TX_EMIT_TIRX,    /* canonical TVMScript of the input; no pipeline */
  TX_EMIT_LOWERED, /* the module after the pipeline, as TVMScript */
  TX_EMIT_CUDA,    /* CUDA C of the device functions */
  TX_EMIT_PTX,     /* PTX text through NVRTC */
  TX_EMIT_CUBIN,   /* cubin bytes through NVRTC */
  /* A self-contained C launcher (target/cuda/c_launcher.h): the source goes to
   * `out`, the header to req->header_out; the PTX (or cubin) is embedded. */
  TX_EMIT_C_LAUNCHER,
  /* An executable file (abi/exe_format.h): the launch programs of the host
   * functions and the PTX of the kernels (none with req->host_only), what
   * tirx_executable_load and libtirx_rt read. */
  TX_EMIT_EXECUTABLE,
} tx_emit_kind;

/* "tirx" -> TX_EMIT_TIRX ...; -1 for an unknown name. */
int tx_emit_lookup(const char *name);
const char *tx_emit_name(tx_emit_kind kind);

typedef struct tx_compile_request {
  tx_emit_kind emit;
  tx_target target;
  /* Pass selection, printing and verification (timings_ms is ignored here;
   * the results come back in tx_compile_stats). */
  tx_pipeline_options pipeline;
  const char *cuda_path; /* for NVRTC; NULL: $CUDA_HOME, then /usr/local/cuda */
  int verbose;           /* ask NVRTC to record its options into stats->log */
  /* TX_EMIT_C_LAUNCHER only (see target/cuda/c_launcher.h). */
  tx_strbuf *header_out;     /* receives the header */
  const char *launcher_name; /* C identifier for <name>_init/_shutdown */
  const char *header_name;   /* what the source #includes */
  const char *source_name;   /* the input's name, for comments; may be NULL */
  int embed_cubin;           /* embed a cubin for target.arch instead of PTX */
  int dialect; /* TX_EMIT_TIRX/LOWERED: the tx_dialect to print, or -1 for the input's */
  /* TX_EMIT_EXECUTABLE only. */
  const char *exe_name; /* the executable's name; NULL: the module's, else "<module>" */
  int host_only;        /* launch programs only, no device code (no NVRTC) */
  /* Further architectures whose device code the executable holds (target is
   * the first): each runs the whole pipeline, and its launch programs must
   * equal the first's. Same opt_level as target. tx_compile_request_arches
   * fills target and these from a list. */
  tx_target more[TX_ARCH_COUNT - 1];
  uint32_t nmore;
} tx_compile_request;

typedef struct tx_compile_stats {
  double pipeline_ms;                /* the whole pipeline, verification included */
  double pass_ms[TX_PASS_COUNT + 1]; /* per pass; [TX_PASS_COUNT] = verification */
  uint8_t pass_ran[TX_PASS_COUNT];   /* enabled passes (all ran unless the pipeline stopped) */
  double codegen_ms, nvrtc_ms, print_ms;
  tx_strbuf *log; /* in: where the NVRTC log goes (may be NULL) */
} tx_compile_stats;

/* Compile m (which lives in ctx) as the request says and append the result
 * to out. Diagnostics go to ctx's sink; returns TIRX_ERR_INPUT after located
 * errors, TIRX_ERR_INTERNAL for a compiler bug (a diagnostic names the
 * stage), TIRX_ERR_NOMEM, or TIRX_ERR_USAGE for a bad request. stats may be
 * NULL. The text printed by print_after/print_after_all goes to
 * req->pipeline.print_out. */
tirx_status tx_compile_module(tirx_ctx *ctx, const tx_module *m, const tx_compile_request *req,
                              tx_compile_stats *stats, tx_strbuf *out);

/* Defaults: --emit=tirx in the input's dialect, sm_90a, -O2, every pass enabled. */
void tx_compile_request_init(tx_compile_request *req);

/* Set req's architectures from a comma-separated list of names ("sm_90a" or
 * "sm_90a,sm_100a"), keeping req->target.opt_level. Returns 1, or 0 with
 * the reason in why (an unknown or repeated name, an empty list or item). */
int tx_compile_request_arches(tx_compile_request *req, const char *list, char *why, size_t cap);

#endif
