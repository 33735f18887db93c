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

#include <stdio.h>
#include <string.h>

#include "abi/exe_format.h"
#include "driver/launch_build.h"
#include "target/cuda/c_launcher.h"
#include "target/cuda/codegen.h"
#include "driver/context.h"
#include "ir/printer.h"
#include "support/clock.h"

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

/* The target named by list[0..len) into *t; 0 (why filled) when it names none. */
static int target_of(const char *item, size_t len, tx_target *t, char *why, size_t cap) {
  char name[32];
  if (len > 0 && len < sizeof name) {
    memcpy(name, item, len);
    name[len] = 0;
    if (tx_target_from_arch(name, t)) return 1;
  }
  snprintf(why, cap, "unknown architecture '%.*s' (supported: %s)", (int)len, item,
           tx_target_arch_list());
  return 0;
}

int tx_compile_request_arches(tx_compile_request *req, const char *list, char *why, size_t cap) {
  tx_target t[TX_ARCH_COUNT];
  uint32_t n = 0;
  for (const char *p = list ? list : "";;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    tx_target one = req->target; /* opt_level and the rest as they are */
    if (!target_of(p, len, &one, why, cap)) return 0;
    for (uint32_t i = 0; i < n; i++)
      if (strcmp(t[i].arch, one.arch) == 0) {
        snprintf(why, cap, "architecture '%s' named twice", one.arch);
        return 0;
      }
    t[n++] = one; /* distinct rows of the table: n stays within it */
    if (!end) break;
    p = end + 1;
  }
  req->target = t[0];
  req->nmore = n - 1;
  for (uint32_t i = 1; i < n; i++)
    req->more[i - 1] = t[i];
  return 1;
}

static tirx_status compile_stages(tirx_ctx *ctx, const tx_module *m, const tx_compile_request *req,
                                  tx_compile_stats *stats, tx_strbuf *out);

tirx_status tx_compile_module(tirx_ctx *ctx, const tx_module *m, const tx_compile_request *req,
                              tx_compile_stats *stats, tx_strbuf *out) {
  tx_compile_stats scratch = {0};
  if (!stats) stats = &scratch;
  if (!ctx || !m || !req || !out || !req->target.arch) return TIRX_ERR_USAGE;
  /* Several architectures make one executable; nothing else holds them. */
  if (req->nmore > TX_ARCH_COUNT - 1 || (req->nmore && req->emit != TX_EMIT_EXECUTABLE))
    return TIRX_ERR_USAGE;
  *stats = (tx_compile_stats){.log = stats->log}; /* the architectures' times add up */
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
  tx_sb_printf(out, "arch=%s", req->target.arch);
  for (uint32_t i = 0; i < req->nmore; i++)
    tx_sb_printf(out, ",%s", req->more[i].arch);
  tx_sb_printf(out, " opt_level=%d host_only=%d", req->target.opt_level, req->host_only);
  for (int i = 0; i < TX_PASS_COUNT; i++)
    if (req->pipeline.disabled[i]) tx_sb_printf(out, " disable=%s", tx_pass_name((tx_pass_id)i));
}

/* The kernels' PTX through the target's backend and NVRTC. */
static tirx_status device_ptx(tirx_ctx *ctx, const tx_module *lowered,
                              const tx_compile_request *req, const tx_target *target,
                              tx_compile_stats *stats, tx_strbuf *ptx) {
  const tirx_allocator *alloc = tx_arena_allocator(ctx->arena);
  tx_strbuf cuda = {.alloc = alloc};
  tx_line_map map = {.alloc = alloc};
  double t0 = tx_now_ms();
  tirx_status st = tx_codegen_cuda(ctx->diags, lowered, target, &cuda, &map);
  stats->codegen_ms += tx_now_ms() - t0;
  if (st == TIRX_OK && cuda.failed) st = TIRX_ERR_NOMEM;
  if (st == TIRX_OK) {
    tx_nvrtc_options no = {.cuda_path = req->cuda_path,
                           .target = target,
                           .output = NVRTC_PTX,
                           .verbose = req->verbose};
    t0 = tx_now_ms();
    st = tx_nvrtc_compile(ctx->diags, cuda.data ? cuda.data : "", cuda.len, &map, &no, ptx,
                          stats->log);
    stats->nvrtc_ms += tx_now_ms() - t0;
    if (st == TIRX_OK && ptx->failed) st = TIRX_ERR_NOMEM;
  }
  tx_sb_free(&cuda);
  tx_line_map_free(&map);
  return st;
}

/* The pass pipeline over m for `target`; stats collect its timings (summed
 * over the architectures of an executable). */
static tirx_status run_pipeline(tirx_ctx *ctx, const tx_module *m, const tx_compile_request *req,
                                const tx_target *target, tx_compile_stats *stats,
                                const tx_module **lowered) {
  tx_pass_ctx pc = {.ir = &ctx->ir, .diags = ctx->diags, .target = target};
  tx_pipeline_options po = req->pipeline; /* a copy: the timings are written into it */
  double t0 = tx_now_ms();
  tirx_status st = tx_run_pipeline(&pc, &po, m, lowered);
  stats->pipeline_ms += tx_now_ms() - t0;
  for (int i = 0; i <= TX_PASS_COUNT; i++)
    stats->pass_ms[i] += po.timings_ms[i];
  for (int i = 0; i < TX_PASS_COUNT; i++)
    stats->pass_ran[i] = !po.disabled[i] && !(i == PASS_SIMPLIFY && target->opt_level == 0);
  return st;
}

/* The launch programs for `target` must be those of the first architecture
 * (`first`): an executable has one host side. */
static tirx_status same_program(tirx_ctx *ctx, const tx_module *m, const tx_compile_request *req,
                                const tx_strbuf *first, const tx_strbuf *prog,
                                const tx_target *target) {
  if (prog->len == first->len && memcmp(prog->data, first->data, prog->len) == 0) return TIRX_OK;
  tirx_span at = m->nfuncs ? m->funcs[0]->span : (tirx_span){0};
  tx_error(ctx->diags, at,
           "the host code compiled for %s differs from that for %s: compile them as separate "
           "executables",
           target->arch, req->target.arch);
  return TIRX_ERR_INPUT;
}

/* Image k of the executable: the PTX for `target` (nothing when host_only),
 * after its own pipeline run unless it is the first. */
static tirx_status arch_image(tirx_ctx *ctx, const tx_module *m, const tx_module *lowered,
                              const tx_compile_request *req, const tx_target *target,
                              const tx_strbuf *first_prog, tx_compile_stats *stats,
                              tx_strbuf *ptx) {
  tirx_status st = TIRX_OK;
  if (target != &req->target) {
    const tirx_allocator *alloc = tx_arena_allocator(ctx->arena);
    tx_strbuf prog = {.alloc = alloc};
    st = run_pipeline(ctx, m, req, target, stats, &lowered);
    if (st == TIRX_OK) st = program_bytes(alloc, m, lowered, &prog);
    if (st == TIRX_OK) st = same_program(ctx, m, req, first_prog, &prog, target);
    tx_sb_free(&prog);
  }
  if (st == TIRX_OK && !req->host_only) st = device_ptx(ctx, lowered, req, target, stats, ptx);
  return st;
}

static tirx_status emit_executable(tirx_ctx *ctx, const tx_module *m, const tx_module *lowered,
                                   const tx_compile_request *req, tx_compile_stats *stats,
                                   tx_strbuf *out) {
  const tirx_allocator *alloc = tx_arena_allocator(ctx->arena);
  tx_strbuf prog = {.alloc = alloc}, opts = {.alloc = alloc}, ptx[TX_ARCH_COUNT];
  uint32_t n = req->nmore + 1;
  tirx_status st = program_bytes(alloc, m, lowered, &prog); /* n <= TX_ARCH_COUNT: checked */
  const char *name = req->exe_name ? req->exe_name : m->name ? m->name : "<module>";
  tx_exe_parts p = {.name = name, .nimages = n};
  for (uint32_t i = 0; i < n; i++) {
    const tx_target *t = i ? &req->more[i - 1] : &req->target;
    ptx[i] = (tx_strbuf){.alloc = alloc};
    if (st == TIRX_OK) st = arch_image(ctx, m, lowered, req, t, &prog, stats, &ptx[i]);
    p.images[i] = (tx_exe_image){t->arch, TX_EXE_CODE_PTX, ptx[i].data, ptx[i].len};
  }
  options_text(req, &opts);
  if (st == TIRX_OK && opts.failed) st = TIRX_ERR_NOMEM;
  if (st == TIRX_OK) {
    p.options = opts.data, p.options_len = opts.len;
    p.program = prog.data, p.program_len = prog.len;
    st = tx_exe_serialize(&p, out);
  }
  for (uint32_t i = 0; i < n; i++)
    tx_sb_free(&ptx[i]);
  tx_sb_free(&prog);
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

  const tx_module *lowered = NULL;
  tirx_status st = run_pipeline(ctx, m, req, &req->target, stats, &lowered);
  if (st != TIRX_OK) return st;
  double t0;

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
