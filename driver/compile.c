/*
 * compile.c - tx_compile_module: parsed module -> pipeline -> CUDA codegen
 * -> NVRTC, stopping at the requested emit kind; plus the table of emit
 * kinds. The compile driver: the one place that strings the layers together
 * (the architectures are target/'s).
 *
 * Must not print or exit: results and logs go to the caller's strbufs and
 * problems to the context's diagnostics. No GPU probing here (the CLI does
 * that): the library compiles for whatever target it is given.
 */
#include "driver/compile.h"

#include <string.h>

#include "abi/exe_format.h"
#include "driver/launch_build.h"
#include "target/cuda/c_launcher.h"
#include "target/cuda/codegen.h"
#include "ir/context.h"
#include "ir/printer.h"

static const char *const EMIT_NAMES[] = {
    [TX_EMIT_TIRX] = "tirx",
    [TX_EMIT_LOWERED] = "lowered",
    [TX_EMIT_CUDA] = "cuda",
    [TX_EMIT_PTX] = "ptx",
    [TX_EMIT_CUBIN] = "cubin",
    [TX_EMIT_C_LAUNCHER] = "c-launcher",
    [TX_EMIT_EXECUTABLE] = "executable",
};

int tx_emit_lookup(const char *name) {
  for (int i = 0; name && i < (int)(sizeof EMIT_NAMES / sizeof *EMIT_NAMES); i++)
    if (strcmp(EMIT_NAMES[i], name) == 0) return i;
  return -1;
}

const char *tx_emit_name(tx_emit_kind kind) {
  return (unsigned)kind < sizeof EMIT_NAMES / sizeof *EMIT_NAMES ? EMIT_NAMES[kind] : "?";
}

void tx_compile_request_init(tx_compile_request *req) {
  *req = (tx_compile_request){.emit = TX_EMIT_TIRX, .dialect = -1};
  tx_target_from_arch("sm_90a", &req->target);
  req->target.opt_level = 2;
}

static tirx_status compile_stages(tirx_ctx *ctx, const tx_module *m, const tx_compile_request *req,
                                  tx_compile_stats *stats, tx_strbuf *out);

tirx_status tx_compile_module(tirx_ctx *ctx, const tx_module *m, const tx_compile_request *req,
                              tx_compile_stats *stats, tx_strbuf *out) {
  tx_compile_stats scratch = {0};
  if (!stats) stats = &scratch;
  if (!ctx || !m || !req || !out || !req->target.arch) return TIRX_ERR_USAGE;
  tx_diag_mark mark = tx_diag_mark_now(ctx->diags);
  tirx_status st = compile_stages(ctx, m, req, stats, out);
  /* An allocation that failed in any stage makes the compile an
   * out-of-memory one, whatever was reported after it (tx_diag_nomem_since). */
  if (st == TIRX_ERR_NOMEM || (st != TIRX_OK && tx_diag_oom_since(ctx->diags, mark))) {
    tx_diag_nomem_since(ctx->diags, mark);
    st = TIRX_ERR_NOMEM;
  }
  return st;
}

/* The launch programs of `lowered` as bytes (`source`: the module as
 * written, for the source map). */
static tirx_status program_bytes(const tirx_allocator *alloc, const tx_module *source,
                                 const tx_module *lowered, tx_strbuf *out) {
  tx_lp_module *prog = NULL;
  tirx_status st = tx_launch_build(alloc, lowered, source, &prog);
  if (st == TIRX_OK) st = tx_lp_write(prog, out);
  tx_lp_module_free(prog);
  return st;
}

/* What the executable records of how it was compiled (informative). */
static void options_text(const tx_compile_request *req, tx_strbuf *out) {
  tx_sb_printf(out, "arch=%s opt_level=%d host_only=%d", req->target.arch, req->target.opt_level,
               req->host_only);
  for (int i = 0; i < TX_PASS_COUNT; i++)
    if (req->pipeline.disabled[i]) tx_sb_printf(out, " disable=%s", tx_pass_name((tx_pass_id)i));
}

/* The kernels' PTX through the target's backend and NVRTC. */
static tirx_status device_ptx(tirx_ctx *ctx, const tx_module *lowered,
                              const tx_compile_request *req, tx_compile_stats *stats,
                              tx_strbuf *ptx) {
  const tirx_allocator *alloc = tx_arena_allocator(ctx->arena);
  tx_strbuf cuda = {.alloc = alloc};
  tx_line_map map = {.alloc = alloc};
  double t0 = tx_now_ms();
  tirx_status st = tx_codegen_cuda(ctx->diags, lowered, &req->target, &cuda, &map);
  stats->codegen_ms = tx_now_ms() - t0;
  if (st == TIRX_OK && cuda.failed) st = TIRX_ERR_NOMEM;
  if (st == TIRX_OK) {
    tx_nvrtc_options no = {.cuda_path = req->cuda_path,
                           .target = &req->target,
                           .output = NVRTC_PTX,
                           .verbose = req->verbose};
    t0 = tx_now_ms();
    st = tx_nvrtc_compile(ctx->diags, cuda.data ? cuda.data : "", cuda.len, &map, &no, ptx,
                          stats->log);
    stats->nvrtc_ms = tx_now_ms() - t0;
    if (st == TIRX_OK && ptx->failed) st = TIRX_ERR_NOMEM;
  }
  tx_sb_free(&cuda);
  tx_line_map_free(&map);
  return st;
}

static tirx_status emit_executable(tirx_ctx *ctx, const tx_module *m, const tx_module *lowered,
                                   const tx_compile_request *req, tx_compile_stats *stats,
                                   tx_strbuf *out) {
  const tirx_allocator *alloc = tx_arena_allocator(ctx->arena);
  tx_strbuf prog = {.alloc = alloc}, ptx = {.alloc = alloc}, opts = {.alloc = alloc};
  tirx_status st = program_bytes(alloc, m, lowered, &prog);
  if (st == TIRX_OK && !req->host_only) st = device_ptx(ctx, lowered, req, stats, &ptx);
  options_text(req, &opts);
  if (st == TIRX_OK && opts.failed) st = TIRX_ERR_NOMEM;
  if (st == TIRX_OK) {
    const char *name = req->exe_name ? req->exe_name : m->name ? m->name : "<module>";
    tx_exe_parts p = {req->target.arch, name,     opts.data, opts.len,
                      prog.data,        prog.len, ptx.data,  ptx.len};
    st = tx_exe_serialize(&p, out);
  }
  tx_sb_free(&prog);
  tx_sb_free(&ptx);
  tx_sb_free(&opts);
  return st;
}

/* The stages tx_compile_module runs, up to req->emit. */
static tirx_status compile_stages(tirx_ctx *ctx, const tx_module *m, const tx_compile_request *req,
                                  tx_compile_stats *stats, tx_strbuf *out) {
  const tirx_allocator *alloc = tx_arena_allocator(ctx->arena);
  tx_dialect dialect = (tx_dialect)(req->dialect >= 0 ? req->dialect : m->dialect);
  if (req->emit == TX_EMIT_TIRX) {
    double t0 = tx_now_ms();
    tx_print_module_in(m, dialect, out);
    stats->print_ms = tx_now_ms() - t0;
    return out->failed ? TIRX_ERR_NOMEM : TIRX_OK;
  }

  tx_pass_ctx pc = {.ir = &ctx->ir, .diags = ctx->diags, .target = &req->target};
  tx_pipeline_options po = req->pipeline; /* a copy: the timings are written into it */
  const tx_module *lowered = NULL;
  double t0 = tx_now_ms();
  tirx_status st = tx_run_pipeline(&pc, &po, m, &lowered);
  stats->pipeline_ms = tx_now_ms() - t0;
  memcpy(stats->pass_ms, po.timings_ms, sizeof stats->pass_ms);
  for (int i = 0; i < TX_PASS_COUNT; i++)
    stats->pass_ran[i] = !po.disabled[i] && !(i == PASS_SIMPLIFY && req->target.opt_level == 0);
  if (st != TIRX_OK) return st;

  if (req->emit == TX_EMIT_LOWERED) {
    t0 = tx_now_ms();
    tx_print_module_in(lowered, dialect, out);
    stats->print_ms = tx_now_ms() - t0;
    return out->failed ? TIRX_ERR_NOMEM : TIRX_OK;
  }

  if (req->emit == TX_EMIT_EXECUTABLE) return emit_executable(ctx, m, lowered, req, stats, out);

  int launcher = req->emit == TX_EMIT_C_LAUNCHER;
  if (launcher &&
      (!req->header_out || !req->header_name || !tx_c_launcher_valid_prefix(req->launcher_name)))
    return TIRX_ERR_USAGE;
  int to_nvrtc = req->emit == TX_EMIT_PTX || req->emit == TX_EMIT_CUBIN || launcher;
  tx_strbuf cuda = {.alloc = alloc};
  tx_line_map map = {.alloc = alloc};
  t0 = tx_now_ms();
  st = tx_codegen_cuda(ctx->diags, lowered, &req->target, to_nvrtc ? &cuda : out,
                       to_nvrtc ? &map : NULL);
  stats->codegen_ms = tx_now_ms() - t0;
  if (st == TIRX_OK && (to_nvrtc ? cuda.failed : out->failed)) st = TIRX_ERR_NOMEM;
  if (st == TIRX_OK && to_nvrtc) {
    tx_nvrtc_options no = {
        .cuda_path = req->cuda_path,
        .target = &req->target,
        .output =
            req->emit == TX_EMIT_CUBIN || (launcher && req->embed_cubin) ? NVRTC_CUBIN : NVRTC_PTX,
        .verbose = req->verbose,
    };
    /* A launcher embeds the image: it goes to a scratch buffer first. */
    tx_strbuf image = {.alloc = alloc};
    t0 = tx_now_ms();
    st = tx_nvrtc_compile(ctx->diags, cuda.data ? cuda.data : "", cuda.len, &map, &no,
                          launcher ? &image : out, stats->log);
    stats->nvrtc_ms = tx_now_ms() - t0;
    if (st == TIRX_OK && (launcher ? image.failed : out->failed)) st = TIRX_ERR_NOMEM;
    if (st == TIRX_OK && launcher) {
      tx_c_launcher_options lo = {
          .prefix = req->launcher_name,
          .header_name = req->header_name,
          .source_name = req->source_name,
          .arch = req->target.arch,
          .image_is_cubin = req->embed_cubin,
      };
      t0 = tx_now_ms();
      st = tx_codegen_c_launcher(ctx->diags, lowered, image.data ? image.data : "", image.len, &lo,
                                 out, req->header_out);
      stats->codegen_ms += tx_now_ms() - t0;
    }
    tx_sb_free(&image);
  }
  tx_sb_free(&cuda);
  tx_line_map_free(&map);
  return st;
}
