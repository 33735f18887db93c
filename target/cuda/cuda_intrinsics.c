/*
 * cuda_intrinsics.c - CUDA C for TIRx calls: math per dtype, CUDA built-ins,
 * warp shuffles, synchronisation, and the common PTX operations as inline
 * asm (mbarriers, fences, bulk-copy groups, elect.sync, setmaxnreg, cluster
 * barriers and special registers).
 *
 * Raw PTX (T.ptx["opcode"](...), and any T.ptx name the frontend did not
 * register) is emitted generically: `opcode [dst,] operands;` with one asm
 * operand per argument (docs/codegen.md "Raw PTX"); the user wrote the
 * operand order, so nothing is guessed.
 *
 * Anything else not covered is a located error naming the op, never a
 * guess: a wrong PTX operand order would compile and silently misbehave.
 * Operand constraints follow the operand dtype: "r" 32-bit (and smaller)
 * integers, "l" 64-bit integers and pointers, "f" f32, "d" f64, "h" 16-bit
 * floats; shared-memory addresses are 32-bit ("r") through tx_smem_addr.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/cuda/cuda_call.h"
#include "target/cuda/cuda_internal.h"
#include "ir/intrinsics.h"
#include "ir/ptx_dialect.h"

/* ---- math ---------------------------------------------------------------- */

/* X(op, f32, f64, f16, bf16): NULL where no function exists. */
#define MATH_FUNCS(X)                                                                              \
  X("T.exp", "expf", "exp", "hexp", "hexp")                                                        \
  X("T.exp2", "exp2f", "exp2", "hexp2", "hexp2")                                                   \
  X("T.exp10", "exp10f", "exp10", "hexp10", "hexp10")                                              \
  X("T.log", "logf", "log", "hlog", "hlog")                                                        \
  X("T.log2", "log2f", "log2", "hlog2", "hlog2")                                                   \
  X("T.log10", "log10f", "log10", "hlog10", "hlog10")                                              \
  X("T.log1p", "log1pf", "log1p", NULL, NULL)                                                      \
  X("T.sqrt", "sqrtf", "sqrt", "hsqrt", "hsqrt")                                                   \
  X("T.rsqrt", "rsqrtf", "rsqrt", "hrsqrt", "hrsqrt")                                              \
  X("T.sin", "sinf", "sin", "hsin", "hsin")                                                        \
  X("T.cos", "cosf", "cos", "hcos", "hcos")                                                        \
  X("T.tan", "tanf", "tan", NULL, NULL)                                                            \
  X("T.sinh", "sinhf", "sinh", NULL, NULL)                                                         \
  X("T.cosh", "coshf", "cosh", NULL, NULL)                                                         \
  X("T.tanh", "tanhf", "tanh", "htanh", "htanh")                                                   \
  X("T.asin", "asinf", "asin", NULL, NULL)                                                         \
  X("T.acos", "acosf", "acos", NULL, NULL)                                                         \
  X("T.atan", "atanf", "atan", NULL, NULL)                                                         \
  X("T.asinh", "asinhf", "asinh", NULL, NULL)                                                      \
  X("T.acosh", "acoshf", "acosh", NULL, NULL)                                                      \
  X("T.atanh", "atanhf", "atanh", NULL, NULL)                                                      \
  X("T.erf", "erff", "erf", NULL, NULL)                                                            \
  X("T.fabs", "fabsf", "fabs", "__habs", "__habs")                                                 \
  X("T.floor", "floorf", "floor", "hfloor", "hfloor")                                              \
  X("T.ceil", "ceilf", "ceil", "hceil", "hceil")                                                   \
  X("T.trunc", "truncf", "trunc", "htrunc", "htrunc")                                              \
  X("T.round", "roundf", "round", NULL, NULL)                                                      \
  X("T.nearbyint", "nearbyintf", "nearbyint", "hrint", "hrint")                                    \
  X("T.pow", "powf", "pow", NULL, NULL)                                                            \
  X("T.atan2", "atan2f", "atan2", NULL, NULL)                                                      \
  X("T.fmod", "fmodf", "fmod", NULL, NULL)                                                         \
  X("T.hypot", "hypotf", "hypot", NULL, NULL)                                                      \
  X("T.copysign", "copysignf", "copysign", NULL, NULL)                                             \
  X("T.nextafter", "nextafterf", "nextafter", NULL, NULL)                                          \
  X("T.ldexp", "ldexpf", "ldexp", NULL, NULL)

static int emit_math(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const char *op = e->u.call.op;
  tx_dtype t = e->dtype;
  int f32 = t.code == DT_FLOAT && t.bits == 32, f64 = t.code == DT_FLOAT && t.bits == 64;
  int f16 = t.code == DT_FLOAT && t.bits == 16, bf16 = t.code == DT_BFLOAT;
#define X(name, a, b, c, d)                                                                        \
  if (strcmp(op, name) == 0) {                                                                     \
    const char *fn = f32 ? a : f64 ? b : f16 ? c : bf16 ? d : NULL;                                \
    if (strcmp(op, "T.fabs") != 0 && !tx_dtype_is_float(t)) fn = NULL;                             \
    if (!fn || t.lanes != 1) {                                                                     \
      char buf[32];                                                                                \
      cuda_error(g, e->span, "%s has no CUDA function for %s", op, tx_dtype_str(t, buf));          \
      return 1;                                                                                    \
    }                                                                                              \
    cuda_call_fn(g, fn, e, 0, cuda_npos(e), sb);                                                   \
    return 1;                                                                                      \
  }
  MATH_FUNCS(X)
#undef X
  return 0;
}

/* ---- direct mappings: op -> a CUDA function with the same arguments ------- */

#define DIRECT_FUNCS(X)                                                                            \
  X("T.cuda.__activemask", "__activemask")                                                         \
  X("T.tvm_warp_activemask", "__activemask")                                                       \
  X("T.cuda.__shfl_sync", "__shfl_sync")                                                           \
  X("T.cuda.__shfl_up_sync", "__shfl_up_sync")                                                     \
  X("T.cuda.__shfl_down_sync", "__shfl_down_sync")                                                 \
  X("T.cuda.__shfl_xor_sync", "__shfl_xor_sync")                                                   \
  X("T.cuda.ballot_sync", "__ballot_sync")                                                         \
  X("T.cuda.any_sync", "__any_sync")                                                               \
  X("T.ptx.any_sync", "__any_sync")                                                                \
  X("T.cuda.atomic_add", "atomicAdd")                                                              \
  X("T.cuda.atomic_cas", "atomicCAS")                                                              \
  X("T.cuda.clock64", "clock64")                                                                   \
  X("T.cuda.nano_sleep", "__nanosleep")                                                            \
  X("T.cuda.half2float", "__half2float")                                                           \
  X("T.cuda.bfloat162float", "__bfloat162float")                                                   \
  X("T.cuda.float_as_uint", "__float_as_uint")                                                     \
  X("T.cuda.uint_as_float", "__uint_as_float")                                                     \
  X("T.cuda.fdividef", "__fdividef")                                                               \
  X("T.cuda.syncthreads_and", "__syncthreads_and")                                                 \
  X("T.cuda.syncthreads_or", "__syncthreads_or")                                                   \
  X("T.cuda.cta_sync", "__syncthreads")                                                            \
  X("T.cuda.warp_sync", "__syncwarp")                                                              \
  X("T.cuda.thread_fence", "__threadfence")                                                        \
  X("T.cuda.printf", "printf")                                                                     \
  X("T.cuda.ffs_u32", "__ffs")                                                                     \
  X("T.cuda.reduce_add_sync_u32", "__reduce_add_sync")                                             \
  X("T.cuda.reduce_min_sync_u32", "__reduce_min_sync")

static int is_one_element_buffer(const tx_expr *a);

/* fn(args...): an operand that names a one-element buffer whole is its
 * element, as TVM's printer writes the load B[0] of a buffer of shape (1,). */
static void direct_call(cuda_cg *g, const char *fn, const tx_expr *e, tx_strbuf *sb) {
  cuda_open_call(sb, fn);
  for (uint32_t i = 0; i < cuda_npos(e); i++) {
    int whole = is_one_element_buffer(e->ops[i]);
    tx_sb_puts(sb, i ? (whole ? ", *(" : ", ") : (whole ? "*(" : ""));
    cuda_emit_expr(g, e->ops[i], sb);
    if (whole) tx_sb_putc(sb, ')');
  }
  tx_sb_putc(sb, ')');
}

static int emit_direct(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const char *op = e->u.call.op;
#define X(name, fn)                                                                                \
  if (strcmp(op, name) == 0) {                                                                     \
    direct_call(g, fn, e, sb);                                                                     \
    return 1;                                                                                      \
  }
  DIRECT_FUNCS(X)
#undef X
  return 0;
}

/* ---- special registers -------------------------------------------------------- */

static const char *const SREGS[] = {
    "%laneid",           "%cluster_ctarank",  "%cluster_ctaid.x",  "%cluster_ctaid.y",
    "%cluster_ctaid.z",  "%clusterid.x",      "%clusterid.y",      "%clusterid.z",
    "%cluster_nctaid.x", "%cluster_nctaid.y", "%cluster_nctaid.z",
};

static void sreg_fn_name(const char *reg, tx_strbuf *sb) {
  tx_sb_puts(sb, "tx_sreg_");
  for (const char *p = reg + 1; *p; p++)
    tx_sb_putc(sb, *p == '.' ? '_' : *p);
}

int cuda_emit_sreg(cuda_cg *g, const char *reg, tx_strbuf *sb) {
  for (size_t i = 0; i < sizeof SREGS / sizeof *SREGS; i++)
    if (strcmp(SREGS[i], reg) == 0) {
      g->sregs[i] = 1;
      sreg_fn_name(reg, sb);
      tx_sb_puts(sb, "()");
      return 1;
    }
  return 0;
}

void cuda_emit_helpers(const cuda_cg *g, tx_strbuf *sb) {
  for (size_t i = 0; i < sizeof SREGS / sizeof *SREGS; i++) {
    if (!g->sregs[i]) continue;
    tx_sb_puts(sb, "__device__ __forceinline__ int ");
    sreg_fn_name(SREGS[i], sb);
    tx_sb_printf(sb,
                 "() {\n  unsigned v;\n  asm volatile(\"mov.u32 %%0, %%%s;\" : \"=r\"(v));\n"
                 "  return (int)v;\n}\n\n",
                 SREGS[i]);
  }
}

/* "x"/"y"/"z" (default x) -> the component letter. */
static char dim_arg(cuda_cg *g, const tx_expr *e) {
  const tx_expr *a = cuda_arg(e, 0, NULL);
  if (!a) return 'x';
  const char *s = cuda_str_arg(a);
  if (s && (strcmp(s, "x") == 0 || strcmp(s, "y") == 0 || strcmp(s, "z") == 0)) return s[0];
  cuda_error(g, e->span, "%s expects \"x\", \"y\" or \"z\"", e->u.call.op);
  return 'x';
}

/* ---- PTX ------------------------------------------------------------------ */

static void emit_mbar_arrive(cuda_cg *g, const tx_expr *e, int expect_tx, tx_strbuf *sb) {
  const tx_expr *bar = cuda_arg(e, 0, NULL);
  const tx_expr *bytes = expect_tx ? cuda_arg(e, 1, NULL) : NULL;
  const tx_expr *cta = NULL, *pred = NULL, *count = NULL;
  uint32_t n = cuda_npos(e);
  if (expect_tx && n == 7) {
    /* TVM's printed form: (bar, bytes, sem, scope, space, cta_id, pred) with
     * defaults; only the local, unpredicated, shared::cta form is known. */
    int64_t c = -1, p = -1;
    const char *space = cuda_str_arg(e->ops[4]);
    if (!cuda_int_arg(e->ops[5], &c) || !cuda_int_arg(e->ops[6], &p) || c != 0 || p != 0 ||
        !space || (strcmp(space, "shared") != 0 && strcmp(space, "shared::cta") != 0) ||
        !cuda_str_arg(e->ops[2]) || *cuda_str_arg(e->ops[2]) || !cuda_str_arg(e->ops[3]) ||
        *cuda_str_arg(e->ops[3])) {
      cuda_unsupported(g, e,
                       "only the (bar, bytes, \"\", \"\", \"shared\", 0, 0) form is supported");
      return;
    }
  } else if (!cuda_nargs_ok(g, e, expect_tx ? 2 : 1, expect_tx ? 4 : 4)) {
    return;
  } else {
    uint32_t first = expect_tx ? 2 : 1;
    cta = cuda_arg(e, first, "cta_id");
    pred = cuda_arg(e, first + 1, "pred");
    if (!expect_tx) count = cuda_arg(e, 3, "count");
  }
  if (!bar || (expect_tx && !bytes)) return;
  if (pred) {
    tx_sb_puts(sb, "if (");
    cuda_emit_expr(g, pred, sb);
    tx_sb_puts(sb, ") ");
  }
  if (count && !cta) {
    /* TVM's count form is the remote one: (bar, cta_id, pred, count). */
    cuda_unsupported(g, e, "count needs cta_id (the remote form)");
    return;
  }
  if (cta) {
    const char *text =
        expect_tx
            ? "{\n\t.reg .b32 tx_rem;\n\tmapa.shared::cluster.u32 tx_rem, %0, %2;\n\t"
              "mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [tx_rem], %1;\n\t}"
        : count ? "{\n\t.reg .b32 tx_rem;\n\tmapa.shared::cluster.u32 tx_rem, %0, %1;\n\t"
                  "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [tx_rem], %2;\n\t}"
                : "{\n\t.reg .b32 tx_rem;\n\tmapa.shared::cluster.u32 tx_rem, %0, %1;\n\t"
                  "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [tx_rem];\n\t}";
    cuda_asm_begin(sb, text);
    tx_sb_puts(sb, " :: ");
    cuda_smem_addr_in(g, bar, sb);
    if (bytes) {
      tx_sb_puts(sb, ", ");
      cuda_asm_in(g, bytes, sb);
    }
    tx_sb_puts(sb, ", ");
    cuda_asm_in(g, cta, sb);
    if (count) {
      tx_sb_puts(sb, ", ");
      cuda_asm_in(g, count, sb);
    }
    tx_sb_puts(sb, " : \"memory\")");
    return;
  }
  cuda_asm_begin(sb, expect_tx ? "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                               : "mbarrier.arrive.shared::cta.b64 _, [%0];");
  tx_sb_puts(sb, " :: ");
  cuda_smem_addr_in(g, bar, sb);
  if (bytes) {
    tx_sb_puts(sb, ", ");
    cuda_asm_in(g, bytes, sb);
  }
  tx_sb_puts(sb, " : \"memory\")");
}

/* PTX ops with no value operands: op -> instruction text. */
#define PTX_FIXED(X)                                                                               \
  X("T.ptx.fence.mbarrier_init", "fence.mbarrier_init.release.cluster;")                           \
  X("T.ptx.cp_async.bulk.commit_group", "cp.async.bulk.commit_group;")                             \
  X("T.ptx.cp_async.commit_group", "cp.async.commit_group;")                                       \
  X("T.ptx_commit_group", "cp.async.commit_group;")                                                \
  X("T.ptx.griddepcontrol.wait", "griddepcontrol.wait;")                                           \
  X("T.ptx.griddepcontrol.launch_dependents", "griddepcontrol.launch_dependents;")                 \
  X("T.ptx.wgmma.fence", "wgmma.fence.sync.aligned;")                                              \
  X("T.ptx.wgmma.commit_group", "wgmma.commit_group.sync.aligned;")                                \
  X("T.ptx.tcgen05.wait.ld", "tcgen05.wait::ld.sync.aligned;")                                     \
  X("T.ptx.tcgen05.wait.st", "tcgen05.wait::st.sync.aligned;")                                     \
  X("T.ptx.tcgen05.fence.before_thread_sync", "tcgen05.fence::before_thread_sync;")                \
  X("T.ptx.tcgen05.fence.after_thread_sync", "tcgen05.fence::after_thread_sync;")                  \
  X("T.cuda.cluster_sync", "barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;")

/* The reduction step of a "sum"/"max"/"min" op name, as a lambda body over a and b. */
static const char *reduce_step(const char *kind) {
  return !kind                      ? NULL
         : strcmp(kind, "sum") == 0 ? "a + b"
         : strcmp(kind, "max") == 0 ? "a > b ? a : b"
         : strcmp(kind, "min") == 0 ? "a < b ? a : b"
                                    : NULL;
}

/* T.cuda.cta_reduce(value, op, num_warps, scratch) and cta_sum/max/min(value, num_warps,
 * scratch): TVM's CTA all-reduce. Each warp reduces, lane 0 of each writes its partial to
 * scratch[warp] (num_warps elements of the value's type), warp 0 reduces the partials and
 * every thread reads the result back from scratch[0] (two __syncthreads). */
static int emit_cta_reduce(cuda_cg *g, const tx_expr *e, const char *op, tx_strbuf *sb) {
  int generic = strcmp(op + 11, "reduce") == 0;
  const tx_expr *v = cuda_arg(e, 0, NULL), *nw = cuda_arg(e, generic ? 2 : 1, "num_warps"),
                *scratch = cuda_arg(e, generic ? 3 : 2, "scratch");
  const char *kind = generic ? cuda_str_arg(cuda_arg(e, 1, "op")) : op + 11;
  int64_t n = 0;
  if (!v || !scratch || !nw || !cuda_int_arg(nw, &n) || n < 1 || n > 32 || (n & (n - 1)) != 0) {
    cuda_unsupported(g, e, "num_warps must be a constant power of two from 1 to 32");
    return 1;
  }
  const char *f = reduce_step(kind), *ct = tx_cuda_type(v->dtype);
  if (!f || !ct || v->dtype.lanes != 1 || v->dtype.code == DT_BOOL) {
    cuda_unsupported(g, e, "op must be \"sum\", \"max\" or \"min\" over a scalar number");
    return 1;
  }
  cuda_need_helper(g, H_WARP_REDUCE);
  cuda_need_helper(g, H_CTA_REDUCE);
  tx_sb_printf(sb, "tx_cta_reduce<%s>(", ct);
  cuda_emit_expr(g, v, sb);
  tx_sb_printf(sb, ", %d, (void*)(", (int)n);
  cuda_emit_expr(g, scratch, sb);
  tx_sb_printf(sb, "), %d, [](%s a, %s b) { return %s; })", strcmp(kind, "sum") == 0, ct, ct, f);
  return 1;
}

static int emit_ptx(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const char *op = e->u.call.op;
#define X(name, text)                                                                              \
  if (strcmp(op, name) == 0) {                                                                     \
    cuda_asm_simple(sb, text);                                                                     \
    return 1;                                                                                      \
  }
  PTX_FIXED(X)
#undef X
  char text[160];
  if (strcmp(op, "T.ptx.mbarrier.init") == 0 ||
      strcmp(op, "T.ptx_init_barrier_thread_count") == 0) {
    if (!cuda_nargs_ok(g, e, 2, 2)) return 1;
    cuda_asm_begin(sb, "mbarrier.init.shared::cta.b64 [%0], %1;");
    tx_sb_puts(sb, " :: ");
    cuda_smem_addr_in(g, e->ops[0], sb);
    tx_sb_puts(sb, ", ");
    cuda_asm_in(g, e->ops[1], sb);
    tx_sb_puts(sb, " : \"memory\")");
    return 1;
  }
  if (strcmp(op, "T.ptx.mbarrier.arrive") == 0) {
    emit_mbar_arrive(g, e, 0, sb);
    return 1;
  }
  if (strcmp(op, "T.ptx.mbarrier.arrive.expect_tx") == 0) {
    emit_mbar_arrive(g, e, 1, sb);
    return 1;
  }
  if (strcmp(op, "T.ptx.mbarrier.try_wait") == 0 || strcmp(op, "T.cuda.mbarrier_wait") == 0) {
    if (!cuda_nargs_ok(g, e, 2, 2)) return 1;
    cuda_need_helper(g, H_MBAR_TRY_WAIT);
    tx_sb_puts(sb, "tx_mbarrier_wait(");
    const tx_expr *bar = e->ops[0];
    if (bar->dtype.code == DT_HANDLE) {
      cuda_need_helper(g, H_SMEM_ADDR);
      tx_sb_puts(sb, "tx_smem_addr(");
      cuda_emit_expr(g, bar, sb);
      tx_sb_putc(sb, ')');
    } else {
      tx_sb_puts(sb, "(unsigned)(");
      cuda_emit_expr(g, bar, sb);
      tx_sb_putc(sb, ')');
    }
    tx_sb_puts(sb, ", ");
    cuda_emit_expr(g, e->ops[1], sb);
    tx_sb_putc(sb, ')');
    return 1;
  }
  if (strcmp(op, "T.ptx.fence.proxy_async") == 0) {
    const tx_expr *sp = cuda_arg(e, 0, "space");
    const char *space = sp ? cuda_str_arg(sp) : "";
    if (!space) {
      cuda_unsupported(g, e, "space must be a string");
      return 1;
    }
    snprintf(text, sizeof text, "fence.proxy.async%s%s;", *space ? "." : "", space);
    cuda_asm_simple(sb, text);
    return 1;
  }
  if (strcmp(op, "T.ptx.fence") == 0) {
    const char *sem = cuda_str_arg(cuda_arg(e, 0, "sem")),
               *scope = cuda_str_arg(cuda_arg(e, 1, "scope"));
    if (!sem || !scope) {
      cuda_unsupported(g, e, "sem and scope must be strings");
      return 1;
    }
    snprintf(text, sizeof text, "fence%s%s%s%s;", *sem ? "." : "", sem, *scope ? "." : "", scope);
    cuda_asm_simple(sb, text);
    return 1;
  }
  if (strcmp(op, "T.ptx.cp_async.bulk.wait_group") == 0 ||
      strcmp(op, "T.ptx.cp_async.wait_group") == 0 || strcmp(op, "T.ptx_wait_group") == 0) {
    int bulk = strstr(op, "bulk") != NULL;
    int64_t n = 0, rd = 0;
    const tx_expr *na = cuda_arg(e, 0, bulk ? "n" : "num");
    const tx_expr *ra = bulk ? cuda_arg(e, 1, "read") : NULL;
    if ((na && !cuda_int_arg(na, &n)) || (ra && !cuda_int_arg(ra, &rd))) {
      cuda_unsupported(g, e, "the group count must be a constant");
      return 1;
    }
    snprintf(text, sizeof text, "%s%s %lld;",
             bulk ? "cp.async.bulk.wait_group" : "cp.async.wait_group", rd ? ".read" : "",
             (long long)n);
    cuda_asm_simple(sb, text);
    return 1;
  }
  if (strcmp(op, "T.ptx.setmaxnreg") == 0) {
    int64_t inc = 0, regs = 0;
    if (!cuda_int_arg(cuda_arg(e, 0, "inc"), &inc) ||
        !cuda_int_arg(cuda_arg(e, 1, "reg_count"), &regs)) {
      cuda_unsupported(g, e, "inc and reg_count must be constants");
      return 1;
    }
    snprintf(text, sizeof text, "setmaxnreg.%s.sync.aligned.u32 %lld;", inc ? "inc" : "dec",
             (long long)regs);
    cuda_asm_simple(sb, text);
    return 1;
  }
  if (strcmp(op, "T.ptx.barrier.cluster.arrive") == 0 ||
      strcmp(op, "T.ptx.barrier.cluster.wait") == 0) {
    int wait = strstr(op, "wait") != NULL;
    const tx_expr *a0 = cuda_arg(e, 0, wait ? "acquire" : "sem"), *a1 = cuda_arg(e, 1, "aligned");
    const char *mod = "";
    int64_t flag = 0, aligned = 1;
    if (wait) {
      if (a0 && (!cuda_int_arg(a0, &flag))) {
        cuda_unsupported(g, e, "acquire must be a constant");
        return 1;
      }
      mod = flag ? ".acquire" : "";
    } else if (a0) {
      const char *sem = cuda_str_arg(a0);
      if (!sem) {
        cuda_unsupported(g, e, "sem must be a string");
        return 1;
      }
      mod = strcmp(sem, "release") == 0   ? ".release"
            : strcmp(sem, "relaxed") == 0 ? ".relaxed"
                                          : "";
    }
    if (a1 && !cuda_int_arg(a1, &aligned)) {
      cuda_unsupported(g, e, "aligned must be a constant");
      return 1;
    }
    snprintf(text, sizeof text, "barrier.cluster.%s%s%s;", wait ? "wait" : "arrive", mod,
             aligned ? ".aligned" : "");
    cuda_asm_simple(sb, text);
    return 1;
  }
  if (strcmp(op, "T.ptx.bar.sync") == 0 || strcmp(op, "T.ptx.bar.arrive") == 0 ||
      strcmp(op, "T.cuda.warpgroup_sync") == 0) {
    int is_wg = strcmp(op, "T.cuda.warpgroup_sync") == 0;
    int arrive = strstr(op, "arrive") != NULL;
    const tx_expr *id = cuda_arg(e, 0, is_wg ? "bar_no" : NULL),
                  *cnt = is_wg ? NULL : cuda_arg(e, 1, NULL);
    if (!id) {
      cuda_unsupported(g, e, "missing barrier id");
      return 1;
    }
    if (is_wg)
      cuda_asm_begin(sb, "bar.sync %0, 128;");
    else if (cnt)
      cuda_asm_begin(sb, arrive ? "bar.arrive %0, %1;" : "bar.sync %0, %1;");
    else
      cuda_asm_begin(sb, "bar.sync %0;");
    tx_sb_puts(sb, " :: ");
    cuda_asm_in(g, id, sb);
    if (cnt) {
      tx_sb_puts(sb, ", ");
      cuda_asm_in(g, cnt, sb);
    }
    tx_sb_puts(sb, " : \"memory\")");
    return 1;
  }
  if (strcmp(op, "T.cuda.get_tmem_addr") == 0) {
    /* (base, row, col): lanes in the high half, columns in the low half. */
    cuda_need_helper(g, H_TMEM_ADDR);
    tx_sb_puts(sb, "tx_tmem_addr((unsigned)(");
    cuda_emit_expr(g, e->ops[0], sb);
    tx_sb_puts(sb, "), (int)(");
    cuda_emit_expr(g, e->ops[1], sb);
    tx_sb_puts(sb, "), (int)(");
    cuda_emit_expr(g, e->ops[2], sb);
    tx_sb_puts(sb, "))");
    return 1;
  }
  if (strcmp(op, "T.cuda.ldg") == 0) {
    /* T.cuda.ldg(ptr, dtype): __ldg of one element through the read-only
     * cache. With dst=(p0, .., pN-1), vec="vN": one int/uint/float vector
     * load whose lanes are written through the N pointers. */
    const tx_expr *p = cuda_arg(e, 0, NULL), *ty = cuda_arg(e, 1, "dtype"),
                  *dst = cuda_arg(e, 2, "dst"), *vec = cuda_arg(e, 3, "vec");
    /* TVM prints the vector form as (dst0, .., dstN-1, ptr, dtype, vN, N). */
    const tx_expr *const *lane_ptr = dst && dst->kind == EXPR_TUPLE ? dst->ops : NULL;
    uint32_t nlane = lane_ptr ? dst->nops : 0, np = cuda_npos(e);
    if (np >= 5 && e->ops[np - 1]->kind == EXPR_INT && e->ops[np - 2]->kind == EXPR_STRING) {
      nlane = np - 4;
      lane_ptr = e->ops;
      p = e->ops[np - 4];
      ty = e->ops[np - 3];
      vec = e->ops[np - 2];
      dst = e->ops[0];
      if ((int64_t)nlane != e->ops[np - 1]->u.ival) nlane = 0;
    }
    tx_dtype t;
    const char *ts = ty ? cuda_str_arg(ty) : NULL;
    const char *ct = ts && tx_dtype_parse(ts, strlen(ts), &t) && t.lanes == 1 &&
                             t.code != DT_BOOL && t.code != DT_HANDLE
                         ? tx_cuda_type(t)
                         : NULL;
    if (!p || p->dtype.code != DT_HANDLE || !ct) {
      cuda_unsupported(g, e, "expected (pointer, \"dtype\") with a scalar number dtype");
      return 1;
    }
    if (!dst && !vec) {
      tx_sb_printf(sb, "__ldg((const %s*)(", ct);
      cuda_emit_expr(g, p, sb);
      tx_sb_puts(sb, "))");
      return 1;
    }
    const char *vs = vec ? cuda_str_arg(vec) : NULL;
    int lanes = vs && strcmp(vs, "v2") == 0 ? 2 : vs && strcmp(vs, "v4") == 0 ? 4 : 0;
    const char *vb = t.code == DT_FLOAT && t.bits == 32  ? "float"
                     : t.code == DT_INT && t.bits == 32  ? "int"
                     : t.code == DT_UINT && t.bits == 32 ? "uint"
                                                         : NULL;
    if (!lanes || !vb || !lane_ptr || nlane != (uint32_t)lanes) {
      cuda_unsupported(g, e,
                       "the vector form is dst=(one pointer per lane), vec=\"v2\" or \"v4\" "
                       "of int32/uint32/float32");
      return 1;
    }
    static const char lane_name[] = "xyzw";
    tx_sb_printf(sb, "([&]() { %s%d tx_v = __ldg((const %s%d*)(", vb, lanes, vb, lanes);
    cuda_emit_expr(g, p, sb);
    tx_sb_puts(sb, "));");
    for (int i = 0; i < lanes; i++) {
      tx_sb_printf(sb, " *(%s*)(", ct);
      cuda_emit_expr(g, lane_ptr[i], sb);
      tx_sb_printf(sb, ") = tx_v.%c;", lane_name[i]);
    }
    tx_sb_puts(sb, " }())");
    return 1;
  }
  if (strcmp(op, "T.cuda.warp_sum") == 0 || strcmp(op, "T.cuda.warp_max") == 0 ||
      strcmp(op, "T.cuda.warp_min") == 0 || strcmp(op, "T.cuda.warp_reduce") == 0) {
    /* Butterfly all-reduce within each group of `width` lanes (default 32):
     * every lane of a group gets the group's result. */
    int generic = op[12] == 'r'; /* T.cuda.warp_reduce */
    const tx_expr *v = cuda_arg(e, 0, NULL), *w = cuda_arg(e, generic ? 2 : 1, "width");
    const char *kind = generic ? cuda_str_arg(cuda_arg(e, 1, "op")) : op + 12;
    int64_t width = 32;
    if (!v || (w && (!cuda_int_arg(w, &width) || width < 1 || width > 32 ||
                     (width & (width - 1)) != 0))) {
      cuda_unsupported(g, e, "width must be a constant power of two from 1 to 32");
      return 1;
    }
    const char *f = reduce_step(kind);
    const char *ct = tx_cuda_type(v->dtype);
    if (!f || !ct || v->dtype.lanes != 1 || v->dtype.code == DT_BOOL) {
      cuda_unsupported(g, e, "op must be \"sum\", \"max\" or \"min\" over a scalar number");
      return 1;
    }
    cuda_need_helper(g, H_WARP_REDUCE);
    tx_sb_printf(sb, "tx_warp_reduce<%s>(", ct);
    cuda_emit_expr(g, v, sb);
    tx_sb_printf(sb, ", %d, [](%s a, %s b) { return %s; })", (int)width, ct, ct, f);
    return 1;
  }
  if (strncmp(op, "T.cuda.cta_", 11) == 0 &&
      (strcmp(op + 11, "reduce") == 0 || strcmp(op + 11, "sum") == 0 ||
       strcmp(op + 11, "max") == 0 || strcmp(op + 11, "min") == 0))
    return emit_cta_reduce(g, e, op, sb);
  if (strcmp(op, "T.ptx.elect_sync") == 0 || strcmp(op, "T.cuda.elect_sync") == 0) {
    cuda_need_helper(g, H_ELECT_SYNC);
    tx_sb_puts(sb, "tx_elect_sync()");
    return 1;
  }
  return 0;
}

/* ---- raw PTX: T.ptx["opcode"](...) ------------------------------------------------ */

/* Is `op` a raw PTX call? The frontend names T.ptx["a.b"] as T.ptx.a.b when
 * every segment is an identifier and T.ptx["a.b::c"] otherwise, and lets
 * such names through only in that subscript form. Registered T.ptx.* names
 * (ir/intrinsics.def) are TVM helpers with their own operand
 * conventions (destination pointers, dtype strings, qualifier keywords), so
 * they never take this path: emitting them as `name operands;` would be a
 * guess. */
static int is_raw_ptx(const char *op) {
  return (strncmp(op, "T.ptx.", 6) == 0 || strncmp(op, "T.ptx[", 6) == 0) && !tx_intrinsic_find(op);
}

/* User text into an asm template: '%' is doubled (operands are ours to number). */
static void put_asm_text(tx_strbuf *sb, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '%') tx_sb_putc(sb, '%');
    tx_sb_putc(sb, s[i]);
  }
}

/* The PTX opcode of a raw call: the name after "T.ptx", dotted segments and
 * ["..."] segments (unescaped) joined by '.'. '%' is doubled because the
 * text becomes an asm template. */
static void raw_opcode(const char *op, tx_strbuf *sb) {
  const char *p = op + 5;
  size_t start = sb->len;
  while (*p) {
    if (p[0] == '[' && p[1] == '"') {
      if (sb->len > start) tx_sb_putc(sb, '.');
      for (p += 2; *p && !(p[0] == '"' && p[1] == ']'); p++) {
        if (*p == '\\' && p[1]) p++;
        put_asm_text(sb, p, 1);
      }
      p += *p ? 2 : 0;
    } else if (*p == '.') {
      if (sb->len > start) tx_sb_putc(sb, '.');
      p++;
    } else {
      put_asm_text(sb, p++, 1);
    }
  }
}

/* ---- T.tvm_access_ptr ------------------------------------------------------------ */

/* T.tvm_access_ptr(T.type_annotation(dtype), data, offset, extent, rw_mask):
 * the address of element `offset` (in units of dtype, lanes included) of
 * `data`, as TVM's LowerIntrin turns it into &data_as_dtype[offset]. A
 * nested access pointer as data adds its offset (TVM requires the same
 * dtype). Extent and rw_mask only describe the access to analyses. The
 * innermost data's storage into *out, or NULL when it is not a variable
 * with storage in this kernel. */
const tx_expr *cuda_access_ptr_base(cuda_cg *g, const tx_expr *e, const cuda_storage **out) {
  *out = NULL;
  const tx_expr *p = e;
  while (p->kind == EXPR_CALL && strcmp(p->u.call.op, "T.tvm_access_ptr") == 0 && p->nops == 5)
    p = p->ops[1];
  if (p->kind != EXPR_VAR) return NULL;
  *out = cuda_find_storage(g, p);
  return *out ? p : NULL;
}

/* The element type of access pointer `e` (its type annotation). */
tx_dtype cuda_access_ptr_dtype(const tx_expr *e) {
  return e->ops[0]->dtype;
}

/* The offsets, in elements of the access pointer's dtype (bytes for
 * packed sub-byte ones). */
static void emit_access_ptr_offsets(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const tx_expr *p = e;
  while (p->kind == EXPR_CALL && strcmp(p->u.call.op, "T.tvm_access_ptr") == 0 && p->nops == 5) {
    tx_sb_puts(sb, " + ");
    cuda_emit_elem_offset(g, cuda_access_ptr_dtype(p), p->ops[2], e->span, sb);
    p = p->ops[1];
  }
}

static int nested_dtype_ok(cuda_cg *g, const tx_expr *e) {
  tx_dtype t = cuda_access_ptr_dtype(e);
  for (const tx_expr *p = e->ops[1];
       p->kind == EXPR_CALL && strcmp(p->u.call.op, "T.tvm_access_ptr") == 0; p = p->ops[1]) {
    if (p->nops != 5 || !tx_dtype_eq(cuda_access_ptr_dtype(p), t)) {
      cuda_unsupported(g, e, "nested access pointers must use the same element type");
      return 0;
    }
  }
  return 1;
}

static void emit_tvm_access_ptr(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 5, 5) || !nested_dtype_ok(g, e)) return;
  const cuda_storage *s;
  if (!cuda_access_ptr_base(g, e, &s)) {
    cuda_unsupported(g, e, "the data must be a buffer's data (A.data) or an access pointer");
    return;
  }
  tx_sb_putc(sb, '(');
  cuda_emit_storage_ptr(g, s, cuda_access_ptr_dtype(e), e->span, sb);
  emit_access_ptr_offsets(g, e, sb);
  tx_sb_putc(sb, ')');
}

static int scope_is_shared(const char *scope) {
  return scope && strncmp(scope, "shared", 6) == 0;
}

/* Does pointer argument `a` point into shared memory? The data of a shared
 * allocation, T.address_of(S[i]) and S.ptr_to([i]) of a shared buffer. */
static int is_shared_ptr(cuda_cg *g, const tx_expr *a) {
  if (a->kind == EXPR_VAR) {
    const cuda_storage *s = cuda_find_storage(g, a);
    return (s && s->is_shared) || scope_is_shared(a->u.var.scope);
  }
  if (a->kind != EXPR_CALL || a->nops < 1) return 0;
  const char *op = a->u.call.op;
  if (strcmp(op, "T.tvm_access_ptr") == 0) {
    const cuda_storage *s;
    const tx_expr *base = cuda_access_ptr_base(g, a, &s);
    return base && (s->is_shared || scope_is_shared(base->u.var.scope));
  }
  size_t ol = strlen(op);
  int addr = strcmp(op, "T.address_of") == 0 &&
             (a->ops[0]->kind == EXPR_LOAD || a->ops[0]->kind == EXPR_BUFFER);
  int ptr_to = ((ol >= 7 && strcmp(op + ol - 7, ".ptr_to") == 0) ||
                (ol >= 11 && strcmp(op + ol - 11, ".access_ptr") == 0)) &&
               a->ops[0]->kind == EXPR_BUFFER;
  if (!addr && !ptr_to) return 0;
  const tx_buffer *b = a->ops[0]->u.buffer;
  const cuda_storage *s = b && b->data ? cuda_find_storage(g, b->data) : NULL;
  return b && ((s && s->is_shared) || scope_is_shared(b->scope));
}

/* Constraint and C conversion for a value of dtype t: "r"/"l"/"f"/"d"/"h"
 * by width and kind, with the cast that makes the C value fit the
 * register (16-bit floats travel as their bits). NULL when PTX has no
 * register for it (vectors, fp8 and narrower, void). */
static const char *raw_constraint(cuda_cg *g, tx_dtype t, const char **conv) {
  *conv = NULL;
  if (t.lanes != 1) return NULL;
  switch ((tx_dtype_code)t.code) {
  case DT_INT:
  case DT_UINT:
    if (t.bits == 128) return "q"; /* a .b128 register (PTX ISA 8.3) */
    if (t.bits == 64) return "l";
    if (t.bits == 32) return "r";
    if (t.bits == 16) {
      *conv = t.code == DT_INT ? "(short)" : "(unsigned short)";
      return "h";
    }
    if (t.bits == 8) {
      *conv = t.code == DT_INT ? "(int)" : "(unsigned)";
      return "r";
    }
    return NULL;
  case DT_FLOAT:
    if (t.bits == 64) return "d";
    if (t.bits == 32) return "f";
    if (t.bits == 16) {
      g->features |= CUDA_FEAT_FP16;
      *conv = "__half_as_ushort";
      return "h";
    }
    return NULL;
  case DT_BFLOAT:
    if (t.bits != 16) return NULL;
    g->features |= CUDA_FEAT_BF16;
    *conv = "__bfloat16_as_ushort";
    return "h";
  case DT_HANDLE:
    return "l";
  case DT_BOOL:
    *conv = "(unsigned)";
    return "r";
  case DT_VOID:
  case DT_E4M3FN:
  case DT_E4M3FNUZ:
  case DT_E5M2:
  case DT_E5M2FNUZ:
  case DT_E4M3:
  case DT_E4M3B11FNUZ:
  case DT_E3M4:
  case DT_E8M0FNU:
  case DT_E2M3FN:
  case DT_E3M2FN:
  case DT_E2M1FN:
    return NULL;
  }
  return NULL;
}

/* How a raw instruction treats its first operand(s) when no return_type=
 * names a result. TVM's PTX dialect passes destinations as the leading
 * operands (a buffer element or scalar the instruction writes), so these
 * must become asm outputs: as inputs the write would silently be lost. */
typedef enum raw_dest { RAW_NO_DEST, RAW_DEST, RAW_DEST_PRED, RAW_DEST_UNSUPPORTED } raw_dest;

static int cmp_str(const void *key, const void *elt) {
  return strcmp((const char *)key, *(const char *const *)elt);
}

static raw_dest raw_dest_of(const char *opc) {
  /* Instructions whose first operand is one destination register (ld/ldu
   * take a {group} with .v2/.v4); sorted for bsearch. */
  static const char *const dest1[] = {
      "abs",  "activemask", "add",  "addc",     "and",   "atom",         "bfe",   "bfi",  "bfind",
      "brev", "clz",        "cnot", "copysign", "cos",   "createpolicy", "cvt",   "cvta", "div",
      "dp2a", "dp4a",       "ex2",  "fma",      "fns",   "getctarank",   "ld",    "ldu",  "lg2",
      "lop3", "mad",        "mapa", "max",      "min",   "mov",          "mul",   "neg",  "not",
      "or",   "popc",       "prmt", "rcp",      "redux", "rem",          "rsqrt", "selp", "shf",
      "shl",  "shr",        "sin",  "sqrt",     "sub",   "subc",         "tanh",  "xor",
  };
  char first[32];
  size_t n = strcspn(opc, ".");
  if (n >= sizeof first) return RAW_NO_DEST;
  memcpy(first, opc, n);
  first[n] = 0;
  if (bsearch(first, dest1, sizeof dest1 / sizeof *dest1, sizeof *dest1, cmp_str)) return RAW_DEST;
  /* A predicate result (setp, testp, mbarrier.try_wait/test_wait) goes to a
   * .pred register, then 0/1 into the first operand. */
  if (strcmp(first, "setp") == 0 || strcmp(first, "testp") == 0 ||
      strncmp(opc, "mbarrier.try_wait", 17) == 0 || strncmp(opc, "mbarrier.test_wait", 18) == 0)
    return RAW_DEST_PRED;
  /* Register groups and read-modify-write accumulators (ldmatrix, mma,
   * wgmma.mma_async, shfl, vote, elect) need a helper that knows their
   * shape; mma.sync and tcgen05.ld are sized below. */
  static const char *const groups[] = {"elect", "ldmatrix", "match", "mma", "shfl", "vote", "set"};
  for (size_t i = 0; i < sizeof groups / sizeof *groups; i++)
    if (strcmp(first, groups[i]) == 0) return RAW_DEST_UNSUPPORTED;
  if (strncmp(opc, "wgmma.mma_async", 15) == 0 || strncmp(opc, "tcgen05.ld.", 11) == 0)
    return RAW_DEST_UNSUPPORTED;
  return RAW_NO_DEST;
}

/* The N of a ".vN" token in the opcode (vector ld/st), 1 when none. */
static uint32_t raw_vec_width(const char *opc) {
  for (const char *p = strstr(opc, ".v"); p; p = strstr(p + 1, ".v")) {
    if ((p[2] == '2' || p[2] == '4' || p[2] == '8') && (p[3] == '.' || p[3] == 0))
      return (uint32_t)(p[2] - '0');
  }
  return 1;
}

/* Register groups of a raw operand list: operands [at, at+len) are one
 * `{...}` operand. */
typedef struct raw_groups {
  uint32_t n, at[4], len[4];
} raw_groups;

static uint32_t ptx_type_bits(const char *t, size_t n) {
  static const struct {
    const char *name;
    uint32_t bits;
  } types[] = {{"f32", 32}, {"s32", 32}, {"tf32", 32}, {"f16", 16}, {"bf16", 16}, {"s8", 8},
               {"u8", 8},   {"e4m3", 8}, {"e5m2", 8},  {"s4", 4},   {"u4", 4}};
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (strlen(types[i].name) == n && memcmp(types[i].name, t, n) == 0) return types[i].bits;
  return 0;
}

/* mma.sync.aligned.mMnNkK.alayout.blayout.dtype.atype.btype.ctype d, a, b, c:
 * four register groups whose sizes follow from the shape and types (each
 * thread holds M*N*bits/1024 words of D and C, M*K*bits/1024 of A,
 * K*N*bits/1024 of B). The sparse mma.sp{::ordered_metadata}.sync.aligned
 * forms hold half of A (M*K*bits/2048 words) and take the metadata register
 * e and the sparsity selector f after c (plain operands). Returns 0 for
 * forms it does not know (f64, block scaling), which stay located errors. */
static int mma_groups(const char *opc, raw_groups *gr) {
  unsigned m, n, k;
  int sparse = strncmp(opc, "mma.sp.sync.aligned.m", 21) == 0 ||
               strncmp(opc, "mma.sp::ordered_metadata.sync.aligned.m", 39) == 0;
  const char *p = strstr(opc, "aligned.m");
  if ((!sparse && strncmp(opc, "mma.sync.aligned.m", 18) != 0) || !p ||
      sscanf(p + 7, ".m%un%uk%u", &m, &n, &k) != 3 || strstr(opc, "block_scale"))
    return 0;
  /* The last four tokens are the types of d, a, b, c. */
  const char *tok[4];
  size_t len[4];
  const char *end = opc + strlen(opc);
  for (int t = 3; t >= 0; t--) {
    const char *dot = end;
    while (dot > opc && dot[-1] != '.')
      dot--;
    if (dot == opc) return 0;
    tok[t] = dot;
    len[t] = (size_t)(end - dot);
    end = dot - 1;
  }
  uint32_t bits[4];
  for (int t = 0; t < 4; t++)
    if (!(bits[t] = ptx_type_bits(tok[t], len[t]))) return 0;
  uint32_t words[4] = {m * n * bits[0] / 1024, m * k * bits[1] / (sparse ? 2048 : 1024),
                       k * n * bits[2] / 1024, m * n * bits[3] / 1024};
  gr->n = 4;
  for (uint32_t t = 0, at = 0; t < 4; at += words[t], t++) {
    if (!words[t]) return 0;
    gr->at[t] = at;
    gr->len[t] = words[t];
  }
  return 1;
}

/* Accumulator registers of wgmma.mma_async.sync.aligned.m64nNkK.<d>...: each
 * thread of the warpgroup holds 64*N/128 elements, f16 ones packed two per
 * register; 0 for forms not handled here (.sp, unknown types). */
static uint32_t wgmma_accumulators(const char *opc) {
  unsigned n = 0, k = 0;
  const char *p = strstr(opc, ".m64n");
  if (!p || strstr(opc, ".sp.") || sscanf(p, ".m64n%uk%u", &n, &k) != 2 || n == 0 || n > 256)
    return 0;
  const char *d = strchr(p + 1, '.');
  if (!d) return 0;
  if (strncmp(d, ".f32.", 5) == 0 || strncmp(d, ".s32.", 5) == 0) return n / 2;
  if (strncmp(d, ".f16.", 5) == 0) return n / 4;
  return 0;
}

/* Registers of tcgen05.ld/st.sync.aligned.<shape>.xN: N times 1 (32x32b,
 * 16x64b), 2 (16x128b) or 4 (16x256b); 0 for other opcodes and shapes
 * (16x32bx2 takes an extra immediate, left to the helpers). */
static uint32_t tcgen05_ldst_regs(const char *opc) {
  if (strncmp(opc, "tcgen05.ld.", 11) != 0 && strncmp(opc, "tcgen05.st.", 11) != 0) return 0;
  unsigned per = strstr(opc, ".32x32b.") || strstr(opc, ".16x64b.") ? 1
                 : strstr(opc, ".16x128b.")                         ? 2
                 : strstr(opc, ".16x256b.")                         ? 4
                                                                    : 0;
  const char *x = strstr(opc, "b.x");
  unsigned num = 0;
  if (!per || !x || sscanf(x + 3, "%u", &num) != 1 || num == 0 || num > 128) return 0;
  return per * num;
}

/* Does the opcode address the shared state space? Only then is a shared
 * pointer passed as a 32-bit shared-window address; a generic instruction
 * (ld.b32, mbarrier.init.b64) needs the generic 64-bit pointer. */
static int raw_is_shared_space(const char *opc) {
  return strstr(opc, ".shared") != NULL;
}

static int is_one_element_buffer(const tx_expr *a) {
  if (a->kind != EXPR_BUFFER) return 0;
  const tx_buffer *b = a->u.buffer;
  for (uint32_t d = 0; d < b->ndim; d++)
    if (b->shape[d]->kind != EXPR_INT || b->shape[d]->u.ival != 1) return 0;
  return 1;
}

/* TVM's T.ptx.addr(base, byte_offset): a pure address expression that only
 * a PTX memory operand consumes, as [base+offset]. */
static int is_ptx_addr(const tx_expr *a) {
  return a && a->kind == EXPR_CALL && strcmp(a->u.call.op, "T.ptx.addr") == 0 && a->nops == 2;
}

/* The byte offset of a T.ptx.addr: an int32 constant by codegen time (an
 * unrolled loop makes one), as TVM requires. 0 after a located error. */
static int ptx_addr_offset(cuda_cg *g, const tx_expr *a, long long *off) {
  const tx_expr *o = a->ops[1];
  if (is_ptx_addr(a->ops[0])) {
    cuda_error(g, a->span, "T.ptx.addr(...) cannot be nested");
    return 0;
  }
  if (o->kind != EXPR_INT || !tx_dtype_is_int(o->dtype) || o->u.ival < INT32_MIN ||
      o->u.ival > INT32_MAX) {
    cuda_error(g, o->span.line ? o->span : a->span,
               "T.ptx.addr: the byte offset must be a signed 32-bit constant by code generation "
               "(unroll the loop that computes it)");
    return 0;
  }
  *off = o->u.ival;
  return 1;
}

static void put_mem_operand(tx_strbuf *ops, uint32_t k, long long off) {
  if (off)
    tx_sb_printf(ops, "[%%%u+%lld]", k, off); /* PTX writes [r+-16] */
  else
    tx_sb_printf(ops, "[%%%u]", k);
}

/* An 8-bit integer destination: PTX has no 8-bit registers (ld.u8 writes a
 * 16-bit one), so the asm writes a 16-bit temporary tx_b<k> that `narrow`
 * declares before the asm and stores into the element after it. */
static void raw_output8(cuda_cg *g, const tx_expr *a, uint32_t k, int keep, int whole,
                        tx_strbuf *ops, tx_strbuf *outs, tx_strbuf *narrow_pre,
                        tx_strbuf *narrow_post) {
  tx_strbuf lv = cuda_sb(g);
  if (whole) tx_sb_puts(&lv, "*(");
  cuda_emit_expr(g, a, &lv);
  if (whole) tx_sb_putc(&lv, ')');
  const char *l = cuda_sb_text(g, &lv);
  tx_sb_printf(ops, "%%%u", k);
  if (outs->len) tx_sb_puts(outs, ", ");
  tx_sb_printf(outs, "\"%ch\"(tx_b%u)", keep ? '+' : '=', k);
  tx_sb_printf(narrow_pre, "unsigned short tx_b%u", k);
  if (keep) tx_sb_printf(narrow_pre, " = (unsigned short)%s", l);
  tx_sb_puts(narrow_pre, "; ");
  tx_sb_printf(narrow_post, " %s = (%s)tx_b%u;", l,
               a->dtype.code == DT_INT ? "signed char" : "unsigned char", k);
  tx_sb_free(&lv);
}

/* A destination operand: an element the instruction writes, as an asm
 * output. Returns 0 after a located error. */
static int raw_output(cuda_cg *g, const tx_expr *e, const tx_expr *a, uint32_t k, int keep,
                      tx_strbuf *ops, tx_strbuf *outs, tx_strbuf *narrow_pre,
                      tx_strbuf *narrow_post) {
  const char *op = e->u.call.op;
  int whole = is_one_element_buffer(a); /* TVM's `out` for out[0] */
  if ((a->kind == EXPR_LOAD || whole) && tx_dtype_is_int(a->dtype) && a->dtype.bits == 8 &&
      a->dtype.lanes == 1) {
    raw_output8(g, a, k, keep, whole, ops, outs, narrow_pre, narrow_post);
    return 1;
  }
  const char *conv = NULL,
             *c = a->kind == EXPR_LOAD || whole ? raw_constraint(g, a->dtype, &conv) : NULL;
  int f16 = a->dtype.code == DT_BFLOAT || (a->dtype.code == DT_FLOAT && a->dtype.bits == 16);
  if (!c || a->dtype.code == DT_BOOL || (conv && !f16 && c[0] != 'h')) {
    char buf[32];
    cuda_error(g, a->span.line ? a->span : e->span,
               "%s writes its first operand: pass a buffer element or a mutable scalar of a "
               "16/32/64-bit type (got %s), or give return_type= to use the result as a value",
               op, tx_dtype_str(a->dtype, buf));
    return 0;
  }
  tx_sb_printf(ops, "%%%u", k);
  if (outs->len) tx_sb_puts(outs, ", ");
  /* Under pred= the instruction may not run: "+" keeps the old value. */
  tx_sb_printf(outs, "\"%c%s\"(", keep ? '+' : '=', c);
  if (f16) tx_sb_puts(outs, "*(unsigned short *)&(");
  if (whole) tx_sb_puts(outs, "*(");
  cuda_emit_expr(g, a, outs);
  if (whole) tx_sb_putc(outs, ')');
  if (f16) tx_sb_putc(outs, ')');
  tx_sb_putc(outs, ')');
  return 1;
}

/* What the asm block is made from: the opcode text (already '%'-escaped),
 * the operands e->ops[0, nargs), the @p guard (or NULL) and which operands
 * are .pred registers (bit i: a 32-bit integer tested != 0 into one). */
typedef struct ptx_asm_call {
  tx_strbuf *opc;
  uint32_t nargs;
  const tx_expr *guard;
  uint64_t pred_ops;
  uint64_t addr_ops; /* bit i: operand i is a memory operand, [%k] whatever its dtype */
  const char *tail;  /* operands the ISA fixes after the last argument (", 0"), or NULL */
  /* The table's layout (printed form), for instructions the raw rules do not
   * place (register-group destinations: ldmatrix, set, vote, shfl): */
  int table;                 /* known: only the first operand is written */
  uint32_t table_ndest;      /* its registers (0: nothing written) */
  raw_groups table_gr;       /* the {groups} */
  int layout_known;          /* the table placed every operand (addr_ops is complete) */
  uint32_t joined_at;        /* argument written `|q` after the one before (UINT32_MAX: none) */
  const tx_expr *const *ops; /* with sunk lanes: the nargs operands, NULL at a sunk `_` */
  int dest_pred;             /* the table's first operand is a written .pred register */
} ptx_asm_call;

/* May operand i, the base of a T.ptx.addr, take an offset? The table knows
 * (printed form); otherwise a pointer that becomes [%k] or an integer the
 * table marked. no_offset: the raw rules write this pointer bare or open. */
static int offset_addr_ok(const ptx_asm_call *call, uint32_t i, const tx_expr *base,
                          int no_offset) {
  int marked = i < 64 && (call->addr_ops >> i & 1);
  if (call->layout_known) return marked;
  return base->dtype.code == DT_HANDLE ? !no_offset : marked;
}

static void emit_ptx_asm(cuda_cg *g, const tx_expr *e, const ptx_asm_call *call, tx_strbuf *sb);

/* T.ptx["opcode"](operands, pred=p, return_type=t) and the attribute chain. */
static void emit_raw_ptx(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const char *op = e->u.call.op;
  const tx_expr *guard = NULL; /* pred=: TVM's dialect runs the instruction under @p */
  for (uint32_t i = cuda_npos(e); i < e->nops; i++) {
    const char *kw = e->u.call.kw.names[i - e->u.call.kw.npos];
    if (strcmp(kw, "pred") == 0) {
      guard = e->ops[i];
      continue;
    }
    if (strcmp(kw, "return_type") != 0 && strcmp(kw, "dtype") != 0) {
      cuda_error(g, e->ops[i]->span.line ? e->ops[i]->span : e->span,
                 "%s: unexpected keyword argument '%s' (raw PTX calls take only return_type=, "
                 "dtype= or pred=; pass qualifiers as \".qualifier\" strings)",
                 op, kw);
      return;
    }
  }
  tx_strbuf opc = cuda_sb(g);
  raw_opcode(op, &opc);
  ptx_asm_call call = {.opc = &opc, .nargs = cuda_npos(e), .guard = guard, .joined_at = UINT32_MAX};
  emit_ptx_asm(g, e, &call, sb);
  tx_sb_free(&opc);
}

static const char *expr_str_at(const void *ctx, uint32_t i, size_t *len) {
  const tx_expr *a = ((const tx_expr *)ctx)->ops[i];
  if (a->kind != EXPR_STRING) return NULL;
  *len = a->u.str.len;
  return a->u.str.data;
}

/* What the table says about the operands (ptx_dialect.h): which arguments
 * are memory operands, the fixed immediates after the last argument
 * (st.bulk's 0, a 128-byte size; a fixed leading `_`, mbarrier.arrive's
 * state, is the raw path's sink already), and, when the only operand the
 * instruction writes is its first, that destination and the {groups}. */
static void printed_layout(const tx_expr *e, const tx_ptx_form *form, uint32_t nargs,
                           ptx_asm_call *call, tx_strbuf *tail) {
  tx_ptx_operand lay[TX_PTX_MAX_OPERANDS];
  uint32_t n;
  if (!tx_ptx_layout(form, nargs + (uint32_t)__builtin_popcountll(form->sunk), expr_str_at, e, lay,
                     &n))
    return;
  call->layout_known = 1;
  int dest_ok = 1;
  for (uint32_t i = 0; i < n; i++) {
    const tx_ptx_operand *o = &lay[i];
    if (o->kind == 'L') {
      if (o->at >= nargs && o->at > 0) {
        tx_sb_puts(tail, ", ");
        tx_sb_putn(tail, o->text, o->text_len);
      }
      continue;
    }
    if (o->kind == 'a' && o->lanes == 1 && o->at < 64) call->addr_ops |= (uint64_t)1 << o->at;
    if (o->joined && o->lanes == 1 && call->joined_at == UINT32_MAX)
      call->joined_at = o->at;
    else if (o->written && i > 0)
      dest_ok = 0;
    if (o->vector && o->lanes && call->table_gr.n < 4) {
      call->table_gr.at[call->table_gr.n] = o->at;
      call->table_gr.len[call->table_gr.n++] = o->lanes;
    }
  }
  if (n && lay[0].kind == 'r' && lay[0].written && dest_ok) {
    call->table_ndest = lay[0].lanes;
    call->dest_pred = lay[0].pred && lay[0].lanes == 1;
  }
  call->table = dest_ok;
}

/* TVM's printed table form T.ptx.<family>(operands, [pred,] tokens..., marker)
 * (ir/ptx_dialect.h): the opcode is the mnemonic and the tokens in
 * slot order; the rest is the raw-PTX path. Returns 0 when e is not that form. */
static int emit_printed_ptx(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const char *op = e->u.call.op;
  tx_ptx_form form;
  if (strncmp(op, "T.ptx.", 6) != 0 || strchr(op + 6, '.') || cuda_npos(e) != e->nops ||
      tx_ptx_form_match(op + 6, e->nops, expr_str_at, e, &form) != TX_PTX_PRINTED)
    return 0;
  /* An instruction the target lacks is a located error, not ptxas's. */
  if (!cuda_ptx_form_arch_ok(g, e, &form)) return 1;
  tx_strbuf opc = cuda_sb(g);
  put_asm_text(&opc, form.mnemonic, strlen(form.mnemonic));
  for (uint32_t i = 0; i < form.nslots; i++) {
    if (form.slot_tok[i] == UINT32_MAX) continue;
    const tx_expr *t = e->ops[form.slot_tok[i]];
    tx_sb_putc(&opc, '.');
    put_asm_text(&opc, t->u.str.data, t->u.str.len);
  }
  uint32_t nops = form.nexprs - (form.pred ? 1 : 0);
  ptx_asm_call call = {.opc = &opc,
                       .nargs = nops,
                       .guard = form.pred ? e->ops[nops] : NULL,
                       .pred_ops = form.pred_ops,
                       .joined_at = UINT32_MAX};
  /* Sunk lanes (marker s<i>) have no argument: the operand list gets a NULL
   * (written `_`) at each such position. */
  uint32_t nsunk = (uint32_t)__builtin_popcountll(form.sunk), nfull = nops + nsunk;
  const tx_expr **full = NULL;
  if (nsunk) {
    full = tx_mem_alloc(tx_ir_alloc(&g->ir), nfull * sizeof *full);
    if (!full) {
      g->nomem = 1;
      tx_sb_free(&opc);
      return 1;
    }
    for (uint32_t i = 0, arg = 0; i < nfull; i++)
      full[i] = i < 64 && (form.sunk >> i & 1) ? NULL : e->ops[arg++];
    call.ops = full;
    call.nargs = nfull;
  }
  tx_strbuf tail = cuda_sb(g);
  printed_layout(e, &form, nops, &call, &tail);
  if (nsunk && !call.table) {
    cuda_unsupported(g, e, "sunk lanes (marker s<i>) where TVM's table does not place them");
    tx_mem_free(tx_ir_alloc(&g->ir), (void *)full);
    tx_sb_free(&tail);
    tx_sb_free(&opc);
    return 1;
  }
  if (tail.len) call.tail = cuda_sb_text(g, &tail);
  emit_ptx_asm(g, e, &call, sb);
  tx_mem_free(tx_ir_alloc(&g->ir), (void *)full);
  tx_sb_free(&tail);
  tx_sb_free(&opc);
  return 1;
}

/* `opcode [dst,] operands;` as inline asm; see docs/codegen.md "Raw PTX".
 * A result makes the call an immediately invoked lambda so it stays an
 * expression (asm outputs need an lvalue). */
static void emit_ptx_asm(cuda_cg *g, const tx_expr *e, const ptx_asm_call *call, tx_strbuf *sb) {
  const char *op = e->u.call.op;
  const tx_expr *guard = call->guard;
  uint32_t nargs = call->nargs;
  const tx_expr *const *args = call->ops ? call->ops : e->ops; /* NULL: a sunk lane `_` */
  if (guard && (e->dtype.code != DT_VOID || guard->dtype.lanes != 1 ||
                !(tx_dtype_is_int(guard->dtype) || guard->dtype.code == DT_BOOL) ||
                guard->dtype.bits > 32)) {
    cuda_error(g, guard->span.line ? guard->span : e->span,
               "%s: pred= takes a 32-bit integer or bool, and not with return_type=", op);
    return;
  }
  tx_strbuf opc = cuda_sb(g), ops = cuda_sb(g), pre = cuda_sb(g), ins = cuda_sb(g),
            outs = cuda_sb(g), npre = cuda_sb(g), npost = cuda_sb(g);
  tx_sb_puts(&opc, cuda_sb_text(g, call->opc));
  if (opc.failed || call->opc->failed) {
    g->nomem = 1;
    goto done;
  }
  if (opc.len == 0) {
    cuda_error(g, e->span, "%s: empty PTX opcode", op);
    goto done;
  }
  tx_dtype rt = e->dtype;
  int has_dst = rt.code != DT_VOID;
  const char *rconv = NULL, *rc = NULL;
  if (has_dst) {
    rc = raw_constraint(g, rt, &rconv);
    if (!rc) {
      char buf[32];
      cuda_error(g, e->span, "%s: no PTX register type for the result dtype %s", op,
                 tx_dtype_str(rt, buf));
      goto done;
    }
    /* A bool result is a predicate: written by the instruction, then made 0/1. */
    if (rt.code == DT_BOOL) {
      tx_sb_puts(&pre, ".reg .pred tx_pd;\n\t");
      tx_sb_puts(&ops, "tx_pd");
    } else {
      tx_sb_puts(&ops, "%0");
    }
  }
  const char *opcs = cuda_sb_text(g, &opc);
  raw_dest dest = has_dst ? RAW_NO_DEST : raw_dest_of(opcs);
  raw_groups gr = {0};
  uint32_t vec = raw_vec_width(opcs), ndest = dest == RAW_DEST || dest == RAW_DEST_PRED ? 1 : 0;
  uint32_t addr_at = UINT32_MAX, tcg = tcgen05_ldst_regs(opcs);
  uint32_t map_at = UINT32_MAX, mask_at = UINT32_MAX; /* cp.async.bulk.tensor operands */
  int accum = 0;                                      /* destinations also read ("+") */
  if (tcg && strncmp(opcs, "tcgen05.ld.", 11) == 0) {
    /* tcgen05.ld {r..}, [taddr]: the tensor memory address is an integer. */
    dest = RAW_DEST;
    ndest = tcg;
    gr = (raw_groups){1, {0}, {tcg}};
    addr_at = tcg;
  } else if (tcg) {
    gr = (raw_groups){1, {1}, {tcg}}; /* tcgen05.st [taddr], {r..} */
    addr_at = 0;
  } else if (strncmp(opcs, "tcgen05.mma.", 12) == 0 && !strstr(opcs, ".ws") &&
             (nargs == 9 || nargs == 13)) {
    /* tcgen05.mma [d-tmem], a-desc, b-desc, idesc, {disable-output-lane},
     * enable-input-d: 4 mask words for cta_group::1, 8 for ::2. */
    uint32_t nmask = strstr(opcs, "cta_group::2") ? 8 : 4;
    if (nargs == 5 + nmask) gr = (raw_groups){1, {4}, {nmask}};
    addr_at = 0;
  } else if (strncmp(opcs, "cp.async.bulk.tensor.", 21) == 0 && opcs[21] >= '1' &&
             opcs[21] <= '5' && opcs[22] == 'd') {
    /* [dst], [map, {c0..cN-1}], [mbar] (global -> shared) or
     * [map, {c0..cN-1}], [src] (shared -> global): the coordinates are a
     * group inside the tensor map's brackets. */
    uint32_t nc = strstr(opcs, ".tile::gather4") ? 5 : (uint32_t)(opcs[21] - '0');
    map_at = strstr(opcs, ".global.shared::") ? 0 : 1;
    gr = (raw_groups){1, {map_at + 1}, {nc}};
    mask_at = strstr(opcs, ".multicast::cluster") ? map_at + nc + 2 : UINT32_MAX;
  } else if (strncmp(opcs, "wgmma.mma_async.sync.aligned.m64n", 33) == 0 &&
             wgmma_accumulators(opcs) && nargs > wgmma_accumulators(opcs)) {
    /* wgmma d, a-desc | {a0..a3}, b-desc, scale-d, imm...: the {d} group is
     * read and written ("+"), N/2 f32/s32 or N/4 packed f16 registers; A
     * from registers (a 32-bit operand after d) is a group of 4. */
    uint32_t nd = wgmma_accumulators(opcs);
    dest = RAW_DEST;
    ndest = nd;
    accum = 1;
    if (args[nd] && args[nd]->dtype.bits == 32)
      gr = (raw_groups){2, {0, nd}, {nd, 4}};
    else
      gr = (raw_groups){1, {0}, {nd}};
  } else if (strncmp(opcs, "tcgen05.cp.", 11) == 0) {
    addr_at = 0; /* tcgen05.cp [taddr], s-desc */
  } else if (dest == RAW_DEST_UNSUPPORTED && mma_groups(opcs, &gr)) {
    dest = RAW_DEST; /* d is written, a, b, c are read */
    ndest = gr.len[0];
  } else if (vec > 1 && (strncmp(opcs, "ld.", 3) == 0 || strncmp(opcs, "ldu.", 4) == 0)) {
    /* ld.v4 writes a {group} of four destinations */
    ndest = vec;
    gr = (raw_groups){1, {0}, {vec}};
  } else if (vec > 1 && (strncmp(opcs, "st.", 3) == 0 || strncmp(opcs, "red.", 4) == 0 ||
                         strncmp(opcs, "multimem.", 9) == 0)) {
    gr = (raw_groups){1, {1}, {vec}}; /* st.v4 [p], {a, b, c, d} */
  } else if (dest == RAW_DEST && strncmp(opcs, "mov.", 4) == 0 && nargs == 3) {
    /* mov.b64 d, {a, b} packs two 32-bit lanes; mov.b64 {d0, d1}, a unpacks:
     * the first operand's width against the type token tells which. */
    const char *tt = strrchr(opcs, '.');
    unsigned tbits = 0;
    if (tt && sscanf(tt, ".b%u", &tbits) == 1 && args[0] && args[0]->dtype.bits * 2 == tbits) {
      ndest = 2;
      gr = (raw_groups){1, {0}, {2}};
    } else {
      gr = (raw_groups){1, {1}, {2}};
    }
  } else if (strncmp(opcs, "stmatrix.", 9) == 0) {
    /* stmatrix [p], {r0..rN-1}: N from the .xN token. */
    const char *x = strstr(opcs, ".x");
    vec = x && (x[2] == '1' || x[2] == '2' || x[2] == '4') ? (uint32_t)(x[2] - '0') : 1;
    gr = (raw_groups){1, {1}, {vec}};
  }
  /* mbarrier.arrive writes a state (a uint64 element before the address)
   * or, without one, the sink `_`; the address of any mbarrier op may be a
   * 32/64-bit integer (a mapa result) as well as a pointer. */
  int sink = 0;
  if (!has_dst && strncmp(opcs, "mbarrier.", 9) == 0) {
    const tx_expr *a0 = nargs > 0 ? args[0] : NULL;
    const tx_expr *a1 = nargs > 1 ? args[1] : NULL;
    int arrive = strncmp(opcs, "mbarrier.arrive", 15) == 0;
    if (arrive && a0 && a1 && a0->kind == EXPR_LOAD && tx_dtype_is_int(a0->dtype) &&
        a0->dtype.bits == 64 && a1->kind != EXPR_INT) {
      dest = RAW_DEST;
      ndest = 1;
    } else if (arrive && a0 && a0->kind != EXPR_STRING) {
      sink = 1;
    }
    addr_at = ndest;
  }
  if (dest == RAW_NO_DEST && !has_dst && call->table && call->table_ndest == 1 &&
      !call->table_gr.n) {
    /* The table says the first operand is written (slct d, ...): an output. */
    dest = RAW_DEST;
    ndest = 1;
  }
  if (call->ops && call->table) {
    /* Sunk lanes: only the table knows where the operands are. */
    dest = call->table_ndest ? RAW_DEST : RAW_NO_DEST;
    ndest = call->table_ndest;
    gr = call->table_gr;
  } else if (dest == RAW_DEST_UNSUPPORTED && call->table) {
    /* The printed form's table says where the destination and groups are. */
    size_t ol = strlen(opcs);
    int pred_type = ol > 5 && strcmp(opcs + ol - 5, ".pred") == 0;
    dest = !call->table_ndest ? RAW_NO_DEST
           : pred_type        ? (call->table_ndest == 1 ? RAW_DEST_PRED : RAW_DEST_UNSUPPORTED)
                              : RAW_DEST;
    ndest = call->table_ndest;
    gr = call->table_gr;
  }
  size_t opc_len = strlen(opcs);
  if (dest == RAW_DEST && ndest == 1 &&
      ((opc_len > 5 && strcmp(opcs + opc_len - 5, ".pred") == 0) || call->dest_pred))
    dest = RAW_DEST_PRED; /* and.pred p, q, r; isspacep p, a: a predicate, then 0/1 */
  if (dest == RAW_DEST_UNSUPPORTED && nargs > 0) {
    cuda_unsupported(g, e,
                     "this instruction writes a register group, a predicate or an accumulator; "
                     "use its T.ptx/T.cuda helper (or return_type= for one 32/64-bit result)");
    goto done;
  }
  int shared_space = raw_is_shared_space(opcs);
  /* Only the shared state space named: every pointer is a shared address (a
   * buffer's pointer scope is not a reliable discriminator; TVM converts
   * unconditionally too). With .global or a tensormap also named, only the
   * pointers known to be shared are converted. */
  int shared_only = shared_space && !strstr(opcs, ".global") && !strstr(opcs, "tensormap");
  int reg_ptrs = strncmp(opcs, "cvta.", 5) == 0 || strncmp(opcs, "mapa.", 5) == 0 ||
                 strncmp(opcs, "isspacep.", 9) == 0;
  uint32_t k = has_dst, npred = 0, pred_out = UINT32_MAX, joined_out = UINT32_MAX;
  if (sink) tx_sb_putc(&ops, '_');
  for (uint32_t i = 0; i < nargs; i++) {
    const tx_expr *a = args[i];
    /* T.ptx.addr(base, off): base is the operand, off goes into [%k+off]. */
    long long off = 0;
    int offset_addr = is_ptx_addr(a);
    if (offset_addr) {
      if (!ptx_addr_offset(g, a, &off)) goto done;
      a = a->ops[0];
    }
    int opens = 0, closes = 0, in_group = 0;
    for (uint32_t q = 0; q < gr.n; q++) {
      opens |= i == gr.at[q];
      closes |= i == gr.at[q] + gr.len[q] - 1;
      in_group |= i >= gr.at[q] && i < gr.at[q] + gr.len[q];
    }
    const char *sep = opens ? ", {" : ", ";
    if (!a) {
      if (ops.len || opens) tx_sb_puts(&ops, ops.len ? sep : "{");
      tx_sb_putc(&ops, '_');
      if (closes) tx_sb_putc(&ops, '}');
      continue;
    }
    if (i == call->joined_at && i > 0) {
      /* setp p|q, lop3 d|p, shfl.sync d|p: a second, predicate, result. */
      if (a->kind != EXPR_LOAD || !tx_dtype_is_int(a->dtype) || a->dtype.bits != 32 ||
          a->dtype.lanes != 1) {
        cuda_error(g, a->span.line ? a->span : e->span,
                   "%s writes a predicate into operand %u: pass a 32-bit integer buffer element "
                   "or mutable scalar",
                   op, i + 1);
        goto done;
      }
      tx_sb_puts(&pre, ".reg .pred tx_pq;\n\t");
      tx_sb_puts(&ops, "|tx_pq");
      if (outs.len) tx_sb_puts(&outs, ", ");
      tx_sb_printf(&outs, "\"%sr\"(", guard ? "+" : "=");
      cuda_emit_expr(g, a, &outs);
      tx_sb_putc(&outs, ')');
      joined_out = k++;
      continue;
    }
    if (i == 0 && dest == RAW_DEST_PRED) {
      /* The instruction writes tx_pd; selp makes it 0/1 in a 32-bit element. */
      if (a->kind != EXPR_LOAD || !tx_dtype_is_int(a->dtype) || a->dtype.bits != 32 ||
          a->dtype.lanes != 1) {
        cuda_error(g, a->span.line ? a->span : e->span,
                   "%s writes a predicate into its first operand: pass a 32-bit integer buffer "
                   "element or mutable scalar, or give return_type=\"bool\"",
                   op);
        goto done;
      }
      tx_sb_puts(&pre, ".reg .pred tx_pd;\n\t");
      tx_sb_puts(&ops, "tx_pd");
      tx_sb_printf(&outs, "\"%sr\"(", guard ? "+" : "=");
      cuda_emit_expr(g, a, &outs);
      tx_sb_putc(&outs, ')');
      pred_out = k++;
      continue;
    }
    if (i < ndest) {
      if (ops.len || opens) tx_sb_puts(&ops, ops.len ? sep : "{");
      if (!raw_output(g, e, a, k, guard != NULL || accum, &ops, &outs, &npre, &npost)) goto done;
      if (closes) tx_sb_putc(&ops, '}');
      k++;
      continue;
    }
    if (a->kind == EXPR_STRING) {
      /* ".rn" extends the opcode; anything else ("_", "%laneid") is an operand. */
      tx_strbuf *to = a->u.str.len && a->u.str.data[0] == '.' ? &opc : &ops;
      if (to == &ops && ops.len) tx_sb_puts(&ops, ", ");
      put_asm_text(to, a->u.str.data, a->u.str.len);
      continue;
    }
    if (ops.len || opens) tx_sb_puts(&ops, ops.len ? sep : "{");
    if (ins.len) tx_sb_puts(&ins, ", ");
    int pred_tagged = i < 64 && (call->pred_ops >> i & 1);
    if ((a->dtype.code == DT_BOOL || (pred_tagged && tx_dtype_is_int(a->dtype))) &&
        a->dtype.lanes == 1) {
      /* PTX takes predicates, C has no predicate operand: test the value. */
      tx_sb_printf(&pre, ".reg .pred tx_p%u;\n\tsetp.ne.b32 tx_p%u, %%%u, 0;\n\t", npred, npred, k);
      tx_sb_printf(&ops, "tx_p%u", npred++);
      tx_sb_puts(&ins, is_one_element_buffer(a) ? "\"r\"((unsigned)*(" : "\"r\"((unsigned)(");
      cuda_emit_expr(g, a, &ins);
      tx_sb_puts(&ins, "))");
    } else if (i == mask_at && tx_dtype_is_int(a->dtype)) {
      /* The multicast CTA mask is a 16-bit operand. */
      tx_sb_printf(&ops, "%%%u", k);
      tx_sb_puts(&ins, "\"h\"((unsigned short)(");
      cuda_emit_expr(g, a, &ins);
      tx_sb_puts(&ins, "))");
    } else if (offset_addr && !offset_addr_ok(call, i, a, reg_ptrs || i == map_at)) {
      cuda_error(g, args[i]->span.line ? args[i]->span : e->span,
                 "%s: T.ptx.addr(...) is an address with a byte offset; operand %u is not a "
                 "memory operand",
                 op, i + 1);
      goto done;
    } else if (a->kind == EXPR_INT && !in_group) {
      /* Immediates stay immediates: some operands (shift counts, barrier
       * ids of some forms) must be constants. A {group} holds registers. */
      tx_sb_printf(&ops, "%%%u", k);
      tx_sb_puts(&ins, "\"n\"(");
      cuda_emit_expr(g, a, &ins);
      tx_sb_putc(&ins, ')');
    } else if (a->dtype.code == DT_HANDLE) {
      /* Pointers are memory operands; shared ones as 32-bit shared addresses.
       * cvta/mapa/isspacep take the address as a plain 64-bit register. */
      if (reg_ptrs || i == map_at)
        tx_sb_printf(&ops, reg_ptrs ? "%%%u" : "[%%%u", k);
      else
        put_mem_operand(&ops, k, off);
      if (!reg_ptrs && (shared_only || (shared_space && is_shared_ptr(g, a)))) {
        cuda_smem_addr_in(g, a, &ins);
      } else {
        tx_sb_puts(&ins, "\"l\"(");
        cuda_emit_expr(g, a, &ins);
        tx_sb_putc(&ins, ')');
      }
    } else {
      const char *conv = NULL, *c = raw_constraint(g, a->dtype, &conv);
      if (!c) {
        char buf[32];
        cuda_error(g, a->span.line ? a->span : e->span,
                   "%s: argument %u has dtype %s, which has no PTX register type", op, i + 1,
                   tx_dtype_str(a->dtype, buf));
        goto done;
      }
      if (i == addr_at || (i < 64 && (call->addr_ops >> i & 1)))
        put_mem_operand(&ops, k, off);
      else
        tx_sb_printf(&ops, "%%%u", k);
      tx_sb_printf(&ins, "\"%s\"(", c);
      if (conv) tx_sb_printf(&ins, "%s(", conv);
      /* A one-element buffer named whole (TVM's B.view("uint32") as a
       * register) is its element. */
      int whole = is_one_element_buffer(a);
      if (whole) tx_sb_puts(&ins, "*(");
      cuda_emit_expr(g, a, &ins);
      if (whole) tx_sb_putc(&ins, ')');
      if (conv) tx_sb_putc(&ins, ')');
      tx_sb_putc(&ins, ')');
    }
    if (closes) tx_sb_puts(&ops, map_at != UINT32_MAX ? "}]" : "}");
    k++;
  }
  if (call->tail) tx_sb_puts(&ops, call->tail);
  if (guard) {
    tx_sb_printf(&pre, ".reg .pred tx_pg;\n\tsetp.ne.b32 tx_pg, %%%u, 0;\n\t", k);
    if (ins.len) tx_sb_puts(&ins, ", ");
    tx_sb_puts(&ins, is_one_element_buffer(guard) ? "\"r\"((unsigned)*(" : "\"r\"((unsigned)(");
    cuda_emit_expr(g, guard, &ins);
    tx_sb_puts(&ins, "))");
  }
  uint32_t nwant = gr.n ? gr.at[gr.n - 1] + gr.len[gr.n - 1] : 0;
  /* mma: d, a, b, c and nothing else; mma.sp: then the metadata and selector */
  uint32_t ntail = gr.n == 4 && strncmp(opcs, "mma.sp", 6) == 0 ? 2 : 0;
  if (nwant > nargs || (gr.n == 4 && nwant + ntail != nargs)) {
    cuda_error(g, e->span, "%s takes %u operands (its {groups} fixed by the opcode), got %u", op,
               nwant + ntail, nargs);
    goto done;
  }
  if (opc.failed || ops.failed || pre.failed || ins.failed || outs.failed || npre.failed ||
      npost.failed) {
    g->nomem = 1;
    goto done;
  }
  tx_strbuf text = cuda_sb(g);
  if (pre.len) tx_sb_printf(&text, "{\n\t%s", cuda_sb_text(g, &pre));
  tx_sb_printf(&text, "%s%s%s%s;", guard ? "@tx_pg " : "", cuda_sb_text(g, &opc),
               ops.len ? " " : "", cuda_sb_text(g, &ops));
  if (has_dst && rt.code == DT_BOOL) tx_sb_puts(&text, "\n\tselp.u32 %0, 1, 0, tx_pd;");
  if (pred_out != UINT32_MAX) tx_sb_printf(&text, "\n\tselp.u32 %%%u, 1, 0, tx_pd;", pred_out);
  if (joined_out != UINT32_MAX) tx_sb_printf(&text, "\n\tselp.u32 %%%u, 1, 0, tx_pq;", joined_out);
  if (pre.len) tx_sb_puts(&text, "\n\t}");
  if (text.failed) {
    g->nomem = 1;
    tx_sb_free(&text);
    goto done;
  }
  if (has_dst) {
    /* The C type the register is read into, and how it becomes the result. */
    const char *ct = rc[0] == 'l'   ? (rt.code == DT_INT ? "long long" : "unsigned long long")
                     : rc[0] == 'f' ? "float"
                     : rc[0] == 'd' ? "double"
                     : rc[0] == 'h' ? (rt.code == DT_INT ? "short" : "unsigned short")
                     : rt.code == DT_INT && rt.bits == 32 ? "int"
                                                          : "unsigned";
    const char *back = rt.code == DT_BOOL                     ? "tx_r != 0"
                       : rt.code == DT_FLOAT && rt.bits == 16 ? "__ushort_as_half(tx_r)"
                       : rt.code == DT_BFLOAT                 ? "__ushort_as_bfloat16(tx_r)"
                       : rt.code == DT_HANDLE                 ? "(void*)tx_r"
                       : (rt.code == DT_INT || rt.code == DT_UINT) && rt.bits == 8 ? NULL
                                                                                   : "tx_r";
    tx_sb_printf(sb, "([&]() { %s tx_r; asm volatile(", ct);
    cuda_put_cstring(sb, text.data, text.len);
    tx_sb_printf(sb, " : \"=%s\"(tx_r) :%s%s : \"memory\"); return ", rc, ins.len ? " " : "",
                 ins.len ? cuda_sb_text(g, &ins) : "");
    if (back)
      tx_sb_puts(sb, back);
    else
      tx_sb_printf(sb, "(%s)tx_r", rt.code == DT_INT ? "signed char" : "unsigned char");
    tx_sb_puts(sb, "; }())");
  } else {
    /* 8-bit destinations: a lambda holds their 16-bit temporaries */
    if (npre.len) tx_sb_printf(sb, "([&]() { %s", cuda_sb_text(g, &npre));
    tx_sb_puts(sb, "asm volatile(");
    cuda_put_cstring(sb, text.data, text.len);
    if (outs.len)
      tx_sb_printf(sb, " : %s :%s%s : \"memory\")", cuda_sb_text(g, &outs), ins.len ? " " : "",
                   ins.len ? cuda_sb_text(g, &ins) : "");
    else if (ins.len)
      tx_sb_printf(sb, " :: %s : \"memory\")", cuda_sb_text(g, &ins));
    else
      tx_sb_puts(sb, " ::: \"memory\")");
    if (npre.len) tx_sb_printf(sb, ";%s }())", cuda_sb_text(g, &npost));
  }
  tx_sb_free(&text);
done:
  tx_sb_free(&npre);
  tx_sb_free(&npost);
  tx_sb_free(&outs);
  tx_sb_free(&opc);
  tx_sb_free(&ops);
  tx_sb_free(&pre);
  tx_sb_free(&ins);
}

/* ---- the dispatcher --------------------------------------------------------------- */

static const char *infix_call(const char *op) {
  if (strcmp(op, "T.shift_left") == 0) return "<<";
  if (strcmp(op, "T.shift_right") == 0) return ">>";
  if (strcmp(op, "T.bitwise_and") == 0) return "&";
  if (strcmp(op, "T.bitwise_or") == 0) return "|";
  if (strcmp(op, "T.bitwise_xor") == 0) return "^";
  return NULL;
}

static void emit_limit(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const char *op = e->u.call.op;
  tx_dtype t = e->dtype;
  int is_max = strcmp(op, "T.max_value") == 0, is_inf = strcmp(op, "T.infinity") == 0;
  if (t.code == DT_FLOAT && (t.bits == 32 || t.bits == 64) && t.lanes == 1) {
    int f64 = t.bits == 64;
    if (is_inf)
      tx_sb_puts(sb,
                 f64 ? "__longlong_as_double(0x7ff0000000000000LL)" : "__int_as_float(0x7f800000)");
    else if (is_max)
      tx_sb_puts(sb, f64 ? "1.7976931348623157e+308" : "3.40282347e+38f");
    else
      tx_sb_puts(sb, f64 ? "(-1.7976931348623157e+308)" : "(-3.40282347e+38f)");
    return;
  }
  if (t.code == DT_INT && !is_inf && t.lanes == 1) {
    if (t.bits == 32)
      tx_sb_puts(sb, is_max ? "2147483647" : "(-2147483647 - 1)");
    else if (t.bits == 64)
      tx_sb_puts(sb, is_max ? "9223372036854775807LL" : "(-9223372036854775807LL - 1LL)");
    else if (t.bits == 16)
      tx_sb_puts(sb, is_max ? "((short)32767)" : "((short)-32768)");
    else if (t.bits == 8)
      tx_sb_puts(sb, is_max ? "((signed char)127)" : "((signed char)-128)");
    else
      cuda_unsupported(g, e, "integer width");
    return;
  }
  if (t.code == DT_UINT && !is_inf && t.lanes == 1) {
    if (!is_max)
      tx_sb_puts(sb, t.bits == 64 ? "0ULL" : "0U");
    else if (t.bits == 64)
      tx_sb_puts(sb, "18446744073709551615ULL");
    else if (t.bits == 32)
      tx_sb_puts(sb, "4294967295U");
    else if (t.bits == 16)
      tx_sb_puts(sb, "((unsigned short)65535)");
    else if (t.bits == 8)
      tx_sb_puts(sb, "((unsigned char)255)");
    else
      cuda_unsupported(g, e, "integer width");
    return;
  }
  if (cuda_is_f16(t) && t.lanes == 1) {
    g->features |= t.code == DT_BFLOAT ? CUDA_FEAT_BF16 : CUDA_FEAT_FP16;
    const char *cv = t.code == DT_BFLOAT ? "__float2bfloat16_rn" : "__float2half_rn";
    const char *v = is_inf                ? "__int_as_float(0x7f800000)"
                    : t.code == DT_BFLOAT ? (is_max ? "3.38953139e+38f" : "(-3.38953139e+38f)")
                                          : (is_max ? "65504.0f" : "(-65504.0f)");
    tx_sb_printf(sb, "%s(%s)", cv, v);
    return;
  }
  cuda_unsupported(g, e, "this dtype");
}

/* Is `a` a pointer variable of no element type: T.reinterpret("handle", x)
 * bound in device code, or an untyped T.handle parameter? */
static int untyped_pointer(cuda_cg *g, const tx_expr *a) {
  if (a->kind != EXPR_VAR || a->dtype.code != DT_HANDLE) return 0;
  const cuda_storage *s = cuda_find_storage(g, a);
  return s && s->elem.code == DT_VOID;
}

/* T.reinterpret to or from a pointer: the same 64 bits as a C cast, to the
 * target pointer type (T.handle("uint64", "shared") is unsigned long long*,
 * "handle" void*) or to a 64-bit integer. The frontend refuses other pairs;
 * this refuses them again for IR that passes built. */
static void emit_pointer_reinterpret(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const tx_expr *x = e->ops[e->nops - 1];
  tx_dtype to = e->dtype, from = x->dtype;
  int int64_to = (to.code == DT_INT || to.code == DT_UINT) && to.bits == 64 && to.lanes == 1;
  int int64_from =
      (from.code == DT_INT || from.code == DT_UINT) && from.bits == 64 && from.lanes == 1;
  tx_dtype pointee;
  int has;
  const char *scope;
  if (to.code == DT_HANDLE && (from.code == DT_HANDLE || int64_from) && e->nops == 2 &&
      tx_pointer_type_expr(e->ops[0], &pointee, &has, &scope)) {
    tx_sb_puts(sb, "((");
    cuda_put_pointer_type(g, pointee, has, e->span, sb);
    tx_sb_putc(sb, ')');
  } else if (from.code == DT_HANDLE && int64_to) {
    tx_sb_printf(sb, "((%s)", cuda_ctype(g, to, e->span));
  } else {
    cuda_unsupported(g, e, "a pointer reinterprets only as another pointer or a 64-bit integer");
    return;
  }
  cuda_emit_expr(g, x, sb);
  tx_sb_putc(sb, ')');
}

void cuda_emit_call(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const char *op = e->u.call.op;
  uint32_t n = cuda_npos(e);
  if ((strcmp(op, "T.cuda.atomic_add") == 0 || strcmp(op, "T.cuda.atomic_cas") == 0) && n >= 1 &&
      untyped_pointer(g, e->ops[0])) {
    /* atomicAdd/atomicCAS take T* for the value's T (TVM's helper is a
     * template on it): a void* says nothing to deduce from. */
    cuda_unsupported(g, e,
                     "the address is an untyped pointer (void*); bind it with a pointer type "
                     "such as T.handle(\"float32\")");
    return;
  }
  /* The three name tables are long strcmp chains; an op none of them knows
   * is remembered (op strings are immutable, so the pointer names it). */
  if (emit_printed_ptx(g, e, sb)) return;
  if (strcmp(op, "T.ptx.addr") == 0) {
    cuda_unsupported(g, e,
                     "T.ptx.addr(...) must be consumed by a PTX memory operand that takes an "
                     "immediate byte offset");
    return;
  }
  if (!tx_ptrmap_has(&g->not_in_tables, op)) {
    if (emit_math(g, e, sb) || emit_direct(g, e, sb) || emit_ptx(g, e, sb)) return;
    if (!tx_ptrset_add(&g->not_in_tables, op)) g->nomem = 1;
  }
  if (is_raw_ptx(op)) {
    emit_raw_ptx(g, e, sb);
    return;
  }
  const char *inf = infix_call(op);
  if (inf) {
    if (!cuda_nargs_ok(g, e, 2, 2)) return;
    tx_sb_putc(sb, '(');
    cuda_emit_expr(g, e->ops[0], sb);
    tx_sb_printf(sb, " %s ", inf);
    cuda_emit_expr(g, e->ops[1], sb);
    tx_sb_putc(sb, ')');
    return;
  }
  if (strcmp(op, "T.bitwise_not") == 0) {
    tx_sb_puts(sb, "(~");
    cuda_emit_expr(g, e->ops[0], sb);
    tx_sb_putc(sb, ')');
    return;
  }
  if (strcmp(op, "T.if_then_else") == 0) {
    if (cuda_nargs_ok(g, e, 3, 3)) cuda_emit_select(g, e, sb);
    return;
  }
  if (strcmp(op, "T.likely") == 0 || strcmp(op, "T.tvm_thread_invariant") == 0) {
    cuda_emit_expr(g, e->ops[0], sb);
    return;
  }
  if (strcmp(op, "T.abs") == 0) {
    tx_dtype t = e->dtype;
    const char *fn = t.code == DT_INT                     ? (t.bits == 64 ? "llabs" : "abs")
                     : t.code == DT_FLOAT && t.bits == 32 ? "fabsf"
                     : t.code == DT_FLOAT && t.bits == 64 ? "fabs"
                     : (t.code == DT_FLOAT && t.bits == 16) || t.code == DT_BFLOAT ? "__habs"
                                                                                   : NULL;
    if (t.code == DT_UINT) {
      cuda_emit_expr(g, e->ops[0], sb);
      return;
    }
    if (!fn) {
      cuda_unsupported(g, e, "this dtype");
      return;
    }
    cuda_call_fn(g, fn, e, 0, 1, sb);
    return;
  }
  if (strcmp(op, "T.sigmoid") == 0) {
    if (!(e->dtype.code == DT_FLOAT && e->dtype.bits == 32)) {
      cuda_unsupported(g, e, "only float32");
      return;
    }
    tx_sb_puts(sb, "(1.0f / (1.0f + expf(-(");
    cuda_emit_expr(g, e->ops[0], sb);
    tx_sb_puts(sb, "))))");
    return;
  }
  if (strcmp(op, "T.isnan") == 0 || strcmp(op, "T.isinf") == 0 || strcmp(op, "T.isfinite") == 0) {
    const tx_expr *x = e->ops[0];
    if (cuda_is_f16(x->dtype) && strcmp(op, "T.isnan") == 0) {
      cuda_call_fn(g, "__hisnan", e, 0, 1, sb);
      return;
    }
    if (!tx_dtype_is_float(x->dtype) || x->dtype.bits < 32) {
      cuda_unsupported(g, e, "only float32/float64");
      return;
    }
    cuda_call_fn(g, op + 2, e, 0, 1, sb);
    return;
  }
  if (strcmp(op, "T.popcount") == 0 || strcmp(op, "T.clz") == 0) {
    int wide = e->ops[0]->dtype.bits == 64;
    const char *fn = op[2] == 'p' ? (wide ? "__popcll" : "__popc") : (wide ? "__clzll" : "__clz");
    cuda_call_fn(g, fn, e, 0, 1, sb);
    return;
  }
  if (strcmp(op, "T.cast") == 0 || strcmp(op, "T.Cast") == 0) {
    tx_sb_printf(sb, "((%s)", tx_cuda_type(e->dtype) ? tx_cuda_type(e->dtype) : "int");
    cuda_emit_expr(g, e->ops[cuda_npos(e) - 1], sb);
    tx_sb_putc(sb, ')');
    return;
  }
  if (strcmp(op, "T.reinterpret") == 0) {
    const tx_expr *x = e->ops[n - 1];
    tx_dtype to = e->dtype, from = x->dtype;
    if (to.code == DT_HANDLE || from.code == DT_HANDLE) {
      emit_pointer_reinterpret(g, e, sb);
      return;
    }
    const char *fn = NULL;
    if (to.code == DT_FLOAT && to.bits == 32 && from.code == DT_INT && from.bits == 32)
      fn = "__int_as_float";
    else if (to.code == DT_FLOAT && to.bits == 32 && from.code == DT_UINT && from.bits == 32)
      fn = "__uint_as_float";
    else if (to.code == DT_INT && to.bits == 32 && from.code == DT_FLOAT && from.bits == 32)
      fn = "__float_as_int";
    else if (to.code == DT_UINT && to.bits == 32 && from.code == DT_FLOAT && from.bits == 32)
      fn = "__float_as_uint";
    else if (to.code == DT_FLOAT && to.bits == 64 && from.code == DT_INT && from.bits == 64)
      fn = "__longlong_as_double";
    else if (to.code == DT_INT && to.bits == 64 && from.code == DT_FLOAT && from.bits == 64)
      fn = "__double_as_longlong";
    if (!fn) {
      cuda_unsupported(g, e, "this pair of types");
      return;
    }
    cuda_call_fn(g, fn, e, n - 1, n, sb);
    return;
  }
  if (strcmp(op, "T.max_value") == 0 || strcmp(op, "T.min_value") == 0 ||
      strcmp(op, "T.infinity") == 0) {
    emit_limit(g, e, sb);
    return;
  }
  if (strcmp(op, "T.call_extern") == 0 || strcmp(op, "T.call_pure_extern") == 0) {
    const char *fn = n >= 2 ? cuda_str_arg(e->ops[1]) : NULL;
    if (!fn) {
      cuda_unsupported(g, e, "expected (dtype, \"name\", args...)");
      return;
    }
    cuda_call_fn(g, fn, e, 2, n, sb);
    return;
  }
  if (strcmp(op, "T.cuda.func_call") == 0) {
    const char *fn = n >= 1 ? cuda_str_arg(e->ops[0]) : NULL;
    const tx_expr *src = cuda_kwarg(e, "source_code");
    if (!fn) {
      cuda_unsupported(g, e, "expected the function name first");
      return;
    }
    if (src && src->kind == EXPR_STRING) cuda_add_source(g, src);
    cuda_call_fn(g, fn, e, 1, n, sb);
    return;
  }
  if (strcmp(op, "T.tvm_warp_shuffle") == 0 || strcmp(op, "T.tvm_warp_shuffle_up") == 0 ||
      strcmp(op, "T.tvm_warp_shuffle_down") == 0 || strcmp(op, "T.tvm_warp_shuffle_xor") == 0) {
    if (!cuda_nargs_ok(g, e, 5, 5)) return;
    const char *suffix = op + strlen("T.tvm_warp_shuffle");
    char fn[32];
    snprintf(fn, sizeof fn, "__shfl%s_sync", suffix);
    /* (mask, value, lane/delta, width, warp_size): CUDA takes the first four. */
    cuda_call_fn(g, fn, e, 0, 4, sb);
    return;
  }
  if (strcmp(op, "T.tvm_storage_sync") == 0) {
    /* (scope[, is_load, num_blocks]): TVM's op takes all three and its CUDA
     * codegen reads the last two only for the "global" grid barrier. */
    const char *scope = n ? cuda_str_arg(e->ops[0]) : NULL;
    if (scope && (strcmp(scope, "shared") == 0 || strcmp(scope, "shared.dyn") == 0))
      tx_sb_puts(sb, "__syncthreads()");
    else if (scope && strcmp(scope, "warp") == 0)
      tx_sb_puts(sb, "__syncwarp()");
    else
      cuda_unsupported(g, e, "only \"shared\", \"shared.dyn\" and \"warp\" scopes");
    return;
  }
  if (strcmp(op, "T.tvm_access_ptr") == 0) {
    emit_tvm_access_ptr(g, e, sb);
    return;
  }
  if (strcmp(op, "T.handle_add_byte_offset") == 0 && cuda_nargs_ok(g, e, 2, 2)) {
    tx_sb_puts(sb, "((void*)((char*)");
    cuda_emit_expr(g, e->ops[0], sb);
    tx_sb_puts(sb, " + ");
    cuda_emit_expr(g, e->ops[1], sb);
    tx_sb_puts(sb, "))");
    return;
  }
  if (strcmp(op, "T.cuda.make_float2") == 0 && cuda_nargs_ok(g, e, 2, 2)) {
    /* TVM's helper returns a float2's 64 bits: x in the low word. */
    tx_sb_puts(sb, "(((unsigned long long)__float_as_uint(");
    cuda_emit_expr(g, e->ops[1], sb);
    tx_sb_puts(sb, ") << 32) | (unsigned long long)__float_as_uint(");
    cuda_emit_expr(g, e->ops[0], sb);
    tx_sb_puts(sb, "))");
    return;
  }
  if ((strcmp(op, "T.cuda.float2_x") == 0 || strcmp(op, "T.cuda.float2_y") == 0) &&
      cuda_nargs_ok(g, e, 1, 1)) {
    tx_sb_puts(sb, "__uint_as_float((unsigned)(");
    cuda_emit_expr(g, e->ops[0], sb);
    tx_sb_puts(sb, op[strlen(op) - 1] == 'y' ? " >> 32))" : "))");
    return;
  }
  if (strcmp(op, "T.cuda.float22bfloat162_rn") == 0 && cuda_nargs_ok(g, e, 2, 2)) {
    /* The bits of the packed __nv_bfloat162, as TVM's helper returns them. */
    g->features |= CUDA_FEAT_BF16;
    cuda_need_helper(g, H_F22BF162);
    cuda_call_fn(g, "tx_float22bfloat162_rn", e, 0, 2, sb);
    return;
  }
  if (strcmp(op, "T.buffer_offset") == 0) {
    /* TVM's LowerTIRxCleanup replaces it by the flattened index. */
    const tx_expr *x = n == 1 ? e->ops[0] : NULL;
    if (!x || x->kind != EXPR_LOAD || x->nops != 1) {
      cuda_unsupported(g, e, "expected a flattened buffer element (one index)");
      return;
    }
    tx_sb_putc(sb, '(');
    cuda_emit_expr(g, x->ops[0], sb);
    tx_sb_putc(sb, ')');
    return;
  }
  if (strcmp(op, "T.address_of") == 0) {
    const tx_expr *x = n == 1 ? e->ops[0] : NULL;
    if (x && x->kind == EXPR_VAR && x->u.var.tensormap) {
      /* A tensor-map variable reads as the address of the map already. */
      cuda_emit_expr(g, x, sb);
      return;
    }
    if (!x || (x->kind != EXPR_LOAD && x->kind != EXPR_BUFFER)) {
      cuda_unsupported(g, e, "expected a buffer element");
      return;
    }
    if (x->kind == EXPR_LOAD && tx_cuda_is_packed_elem(x->u.buffer->dtype) && x->nops == 1) {
      /* no C object per packed element: the address of its byte */
      tx_sb_putc(sb, '(');
      if (!cuda_emit_ptr(g, x->u.buffer, x->u.buffer->dtype, e->span, sb)) return;
      tx_sb_puts(sb, " + ");
      cuda_emit_packed_offset(g, x->u.buffer->dtype, x->ops[0], 1, e->span, sb);
      tx_sb_putc(sb, ')');
      return;
    }
    tx_sb_puts(sb, "(&");
    cuda_emit_expr(g, x, sb);
    tx_sb_putc(sb, ')');
    return;
  }
  size_t ol = strlen(op);
  if (ol >= 7 && strcmp(op + ol - 7, ".ptr_to") == 0 && n == 2 && e->ops[0]->kind == EXPR_BUFFER) {
    const tx_expr *idx = e->ops[1];
    if (idx->kind == EXPR_TUPLE) {
      if (idx->nops != 1) {
        cuda_unsupported(g, e, "expected one (flattened) index");
        return;
      }
      idx = idx->ops[0];
    }
    tx_sb_puts(sb, "(");
    cuda_emit_expr(g, e->ops[0], sb);
    tx_sb_puts(sb, " + ");
    cuda_emit_elem_offset(g, e->ops[0]->u.buffer->dtype, idx, e->span, sb);
    tx_sb_putc(sb, ')');
    return;
  }
  if (strcmp(op, ".access_ptr") == 0 && n >= 1 && e->ops[0]->kind == EXPR_BUFFER) {
    /* flatten-buffer rewrites access_ptr to ptr_to; what reaches here is a
     * flat buffer without an element offset: its data plus offset=. */
    const tx_buffer *b = e->ops[0]->u.buffer;
    const tx_expr *off = cuda_kwarg(e, "offset");
    if (!b || b->ndim != 1 || b->elem_offset || b->layout) {
      cuda_unsupported(g, e, "a buffer that is not flat (run flatten-buffer)");
      return;
    }
    tx_sb_puts(sb, "(");
    cuda_emit_expr(g, e->ops[0], sb);
    if (off) {
      tx_sb_puts(sb, " + ");
      cuda_emit_elem_offset(g, b->dtype, off, e->span, sb);
    }
    tx_sb_putc(sb, ')');
    return;
  }
  if (strcmp(op, "T.cuda.thread_idx") == 0 || strcmp(op, "T.cuda.block_idx") == 0 ||
      strcmp(op, "T.cuda.block_dim") == 0 || strcmp(op, "T.cuda.grid_dim") == 0) {
    const char *base = op[7] == 't'                          ? "threadIdx"
                       : op[7] == 'g'                        ? "gridDim"
                       : strcmp(op, "T.cuda.block_idx") == 0 ? "blockIdx"
                                                             : "blockDim";
    tx_sb_printf(sb, "((int)%s.%c)", base, dim_arg(g, e));
    return;
  }
  if (strcmp(op, "T.cuda.cluster_cta_id") == 0 || strcmp(op, "T.cuda.cluster_id") == 0 ||
      strcmp(op, "T.cuda.cluster_dim") == 0) {
    char reg[32];
    const char *base = strcmp(op, "T.cuda.cluster_cta_id") == 0 ? "%cluster_ctaid"
                       : strcmp(op, "T.cuda.cluster_id") == 0   ? "%clusterid"
                                                                : "%cluster_nctaid";
    snprintf(reg, sizeof reg, "%s.%c", base, dim_arg(g, e));
    cuda_emit_sreg(g, reg, sb);
    return;
  }
  if (strcmp(op, "T.cuda.lane_id") == 0) {
    cuda_emit_sreg(g, "%laneid", sb);
    return;
  }
  if (strcmp(op, "T.cuda.cvta_generic_to_shared") == 0) {
    cuda_need_helper(g, H_SMEM_ADDR);
    cuda_call_fn(g, "tx_smem_addr", e, 0, 1, sb);
    return;
  }
  if (strcmp(op, "T.cuda.trap_when_assert_failed") == 0) {
    tx_sb_puts(sb, "((");
    cuda_emit_expr(g, e->ops[0], sb);
    tx_sb_puts(sb, ") ? (void)0 : __trap())");
    return;
  }
  if (strcmp(op, "T.call_packed") == 0 || strcmp(op, "T.tvm_call_packed") == 0 ||
      strcmp(op, "T.call_cpacked") == 0) {
    cuda_unsupported(g, e, "it is host-only");
    return;
  }
  if (strcmp(op, "T.launch_thread") == 0) {
    cuda_unsupported(g, e,
                     "T.launch_thread must be bound to a variable (tx = T.launch_thread(...))");
    return;
  }
  /* A registered T.ptx.* helper without an emitter: its operands follow
   * TVM's convention for that helper, so name the raw form instead. */
  cuda_call_emitter *family = cuda_find_call_emitter(op);
  if (family) {
    family(g, e, sb);
    return;
  }
  if (strncmp(op, "T.ptx.", 6) == 0) {
    cuda_unsupported(
        g, e,
        "no emitter for this TVM helper; write the instruction as T.ptx[\"opcode\"](operands...)");
    return;
  }
  cuda_unsupported(g, e, NULL);
}
