/*
 * compile.c - tx_compile_module: parsed module -> pipeline -> CUDA codegen
 * -> NVRTC, stopping at the requested emit kind; plus the tables of emit
 * kinds and supported GPU architectures.
 *
 * Must not print or exit: results and logs go to the caller's strbufs and
 * problems to the context's diagnostics. No GPU probing here (the CLI does
 * that): the library compiles for whatever target it is given.
 */
#include "passes/compile.h"

#include <string.h>

#include "codegen/c_launcher.h"
#include "codegen/codegen.h"
#include "ir/context.h"
#include "ir/printer.h"

static const char *const EMIT_NAMES[] = {
    [TX_EMIT_TIRX] = "tirx", [TX_EMIT_LOWERED] = "lowered", [TX_EMIT_CUDA] = "cuda",
    [TX_EMIT_PTX] = "ptx",   [TX_EMIT_CUBIN] = "cubin",     [TX_EMIT_C_LAUNCHER] = "c-launcher",
};

int tx_emit_lookup(const char *name) {
  for (int i = 0; name && i < (int)(sizeof EMIT_NAMES / sizeof *EMIT_NAMES); i++)
    if (strcmp(EMIT_NAMES[i], name) == 0) return i;
  return -1;
}

const char *tx_emit_name(tx_emit_kind kind) {
  return (unsigned)kind < sizeof EMIT_NAMES / sizeof *EMIT_NAMES ? EMIT_NAMES[kind] : "?";
}

typedef struct arch_info {
  const char *name;
  int sm;
  tx_target_limits limits;
} arch_info;

/* What NVRTC can target and the kernels are written for, with what each
 * allows a block's shared memory and a thread's local memory.
 *
 * The numbers: the CUDA C++ Programming Guide's "Technical Specifications
 * per Compute Capability" table ("Maximum amount of shared memory per
 * thread block", "Maximum amount of local memory per thread"), as CCCL
 * encodes it in libcudacxx/include/cuda/__device/arch_traits.h
 * (max_shared_memory_per_block_optin = shared memory per SM minus the 1 KiB
 * the driver reserves per block):
 *  - with the opt-in (cudaFuncAttributeMaxDynamicSharedMemorySize, which the
 *    runtime sets; static plus dynamic may not exceed it): 163 KiB on 8.0
 *    (164 KiB per SM), 99 KiB on 8.6, 8.9 and 12.0 (100 KiB per SM), 227 KiB
 *    = 232448 bytes on 9.0, 10.x (228 KiB per SM; the Hopper tuning guide's
 *    "up to 227 KB");
 *  - static __shared__ arrays: 48 KiB (0xc000) for portable targets, but
 *    the whole per-block maximum for arch-specific ('a') ones -- the guide
 *    calls kernels over 48 KB architecture-specific. Measured with ptxas of
 *    CUDA 13.0: 49168 bytes of static shared memory fail for sm_80, sm_90,
 *    sm_100, sm_100f and sm_120 ("0xc000 max") and pass for sm_90a, sm_100a
 *    and sm_103a up to 232448 (232464: "0x38c00 max") and for sm_120a up to
 *    101376; a 232448-byte static array launched without error on an H200
 *    (sm_90a);
 *  - local memory: 512 KiB per thread on all of them. */
#define KIB INT64_C(1024)
/* clang-format off */
#define ROW(name, sm, static_kib, optin_kib) \
  {name, sm, {name, (static_kib) * KIB, (optin_kib) * KIB, 512 * KIB}}
/* clang-format on */
static const arch_info ARCHES[] = {
    ROW("sm_80", 80, 48, 163),     ROW("sm_86", 86, 48, 99),      ROW("sm_89", 89, 48, 99),
    ROW("sm_90", 90, 48, 227),     ROW("sm_90a", 90, 227, 227),   ROW("sm_100", 100, 48, 227),
    ROW("sm_100a", 100, 227, 227), ROW("sm_101a", 101, 227, 227), ROW("sm_103a", 103, 227, 227),
    ROW("sm_120", 120, 48, 99),    ROW("sm_120a", 120, 99, 99),
};
/* For a target with no row of its own or of its sm: valid on every row. */
static const tx_target_limits FALLBACK_LIMITS = {NULL, 48 * KIB, 99 * KIB, 512 * KIB};
#undef ROW
#undef KIB

int tx_target_from_arch(const char *arch, tx_target *out) {
  for (size_t i = 0; arch && i < sizeof ARCHES / sizeof *ARCHES; i++)
    if (strcmp(ARCHES[i].name, arch) == 0) {
      out->arch = ARCHES[i].name;
      out->sm = ARCHES[i].sm;
      return 1;
    }
  return 0;
}

static int arch_specific(const char *name) {
  size_t n = strlen(name);
  return n && name[n - 1] == 'a';
}

const tx_target_limits *tx_target_limits_of(const tx_target *t) {
  const size_t n = sizeof ARCHES / sizeof *ARCHES;
  for (size_t i = 0; t && t->arch && i < n; i++)
    if (strcmp(ARCHES[i].name, t->arch) == 0) return &ARCHES[i].limits;
  /* Another spelling of a known sm ("sm_100f"): its portable row. */
  for (size_t i = 0; t && i < n; i++)
    if (ARCHES[i].sm == t->sm && !arch_specific(ARCHES[i].name)) return &ARCHES[i].limits;
  return &FALLBACK_LIMITS;
}

const char *tx_target_arch_list(void) {
  return "sm_80 sm_86 sm_89 sm_90 sm_90a sm_100 sm_100a sm_101a sm_103a sm_120 sm_120a";
}

const char *tx_target_arch_for_cc(int major, int minor) {
  /* Hopper and later: the arch-specific ('a') variant, which wgmma, tcgen05
   * and friends need; a cubin for it runs only on that exact family. */
  switch (major * 10 + minor) {
  case 80:
    return "sm_80";
  case 86:
    return "sm_86";
  case 89:
    return "sm_89";
  case 90:
    return "sm_90a";
  case 100:
    return "sm_100a";
  case 101:
    return "sm_101a";
  case 103:
    return "sm_103a";
  case 120:
    return "sm_120a";
  default:
    return NULL;
  }
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
