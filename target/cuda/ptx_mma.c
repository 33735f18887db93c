/*
 * ptx_mma.c - CUDA C for TVM's T.ptx helpers of one family: warpgroup and warp matrix
 * multiply-accumulate (wgmma.*, mma*) and the matrix fragment moves ldmatrix/stmatrix.
 *
 * Each entry follows the operand convention of the TVM helper of the same
 * name (docs/ptx/mma.md lists every accepted form); forms not covered are
 * located errors, never guesses. Shapes, dtypes and register counts are
 * checked here against the PTX ISA so that a wrong combination is reported
 * at the call instead of by ptxas (or not at all: a wrong register count
 * would assemble and compute garbage).
 *
 * Each helper becomes one inline asm statement (an expression), so nothing
 * here emits C statements or declarations. wgmma.fence/commit_group stay in
 * cuda_intrinsics.c (PTX_FIXED).
 */
#include <stdio.h>
#include <string.h>

#include "target/cuda/cuda_call.h"

/* ---- PTX matrix element types ---------------------------------------------------- */

typedef enum mty {
  MT_NONE,
  MT_F16,
  MT_BF16,
  MT_TF32,
  MT_F32,
  MT_F64,
  MT_S8,
  MT_U8,
  MT_S4,
  MT_U4,
  MT_B1,
  MT_S32,
  MT_E4M3,
  MT_E5M2,
} mty;

/* Spellings TVM accepts for each type (TVM dtype names, PTX names with or
 * without the dot, the "fp16"-style abbreviations of its mma helpers). */
static const struct {
  const char *name;
  mty t;
} MTY_NAMES[] = {
    {"float16", MT_F16},
    {"fp16", MT_F16},
    {"f16", MT_F16},
    {"bfloat16", MT_BF16},
    {"bf16", MT_BF16},
    {"tf32", MT_TF32},
    {"tensor_float32", MT_TF32},
    {"float32", MT_F32},
    {"fp32", MT_F32},
    {"f32", MT_F32},
    {"float64", MT_F64},
    {"fp64", MT_F64},
    {"f64", MT_F64},
    {"int8", MT_S8},
    {"s8", MT_S8},
    {"uint8", MT_U8},
    {"u8", MT_U8},
    {"int4", MT_S4},
    {"s4", MT_S4},
    {"uint4", MT_U4},
    {"u4", MT_U4},
    {"int1", MT_B1},
    {"bit1", MT_B1},
    {"b1", MT_B1},
    {"int32", MT_S32},
    {"s32", MT_S32},
    {"float8_e4m3fn", MT_E4M3},
    {"float8_e4m3", MT_E4M3},
    {"e4m3", MT_E4M3},
    {"float8_e5m2", MT_E5M2},
    {"e5m2", MT_E5M2},
};

/* PTX spelling and element bits of each type. */
static const struct {
  const char *ptx;
  int bits;
} MTY_INFO[] = {
    [MT_NONE] = {"", 0},       [MT_F16] = {".f16", 16},  [MT_BF16] = {".bf16", 16},
    [MT_TF32] = {".tf32", 32}, [MT_F32] = {".f32", 32},  [MT_F64] = {".f64", 64},
    [MT_S8] = {".s8", 8},      [MT_U8] = {".u8", 8},     [MT_S4] = {".s4", 4},
    [MT_U4] = {".u4", 4},      [MT_B1] = {".b1", 1},     [MT_S32] = {".s32", 32},
    [MT_E4M3] = {".e4m3", 8},  [MT_E5M2] = {".e5m2", 8},
};

static mty mty_parse(const char *s) {
  if (!s) return MT_NONE;
  if (*s == '.') s++;
  for (size_t i = 0; i < sizeof MTY_NAMES / sizeof *MTY_NAMES; i++)
    if (strcmp(MTY_NAMES[i].name, s) == 0) return MTY_NAMES[i].t;
  return MT_NONE;
}

/* The register one fragment element travels in: asm constraint, C type and
 * register width. Everything narrower than 32 bits is packed into .b32
 * registers (f16x2, 4 x s8, ...). */
typedef struct frag_reg {
  const char *cons, *ctype;
  int bits;
} frag_reg;

static frag_reg frag_of(mty t) {
  switch (t) {
  case MT_F32:
    return (frag_reg){"f", "float", 32};
  case MT_F64:
    return (frag_reg){"d", "double", 64};
  case MT_S32:
    return (frag_reg){"r", "int", 32};
  case MT_NONE:
  case MT_F16:
  case MT_BF16:
  case MT_TF32:
  case MT_S8:
  case MT_U8:
  case MT_S4:
  case MT_U4:
  case MT_B1:
  case MT_E4M3:
  case MT_E5M2:
    break;
  }
  return (frag_reg){"r", "unsigned", 32};
}

/* A .b32 register (ldmatrix/stmatrix fragments, mma.sp metadata). */
static const frag_reg B32 = {"r", "unsigned", 32};

/* ---- argument helpers --------------------------------------------------------------- */

/* The span of argument `a` when it has its own, else the call's (a
 * variable is one node for all its uses: its span is its definition). */
static tirx_span arg_span(const tx_expr *e, const tx_expr *a) {
  return a && a->span.line && a->kind != EXPR_VAR ? a->span : e->span;
}

/* An integer (or bool) constant. */
static int const_int(const tx_expr *a, int64_t *v) {
  return cuda_int_arg(a, v);
}

/* A constant that must be an integer; reports `what` when it is not. */
static int need_int(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char *what, int64_t *v) {
  if (a && const_int(a, v)) return 1;
  cuda_error(g, arg_span(e, a), "%s: %s must be an integer constant", e->u.call.op, what);
  return 0;
}

/* A constant flag (bool or integer); absent means `dflt`. */
static int need_flag(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char *what, int dflt,
                     int *v) {
  int64_t x = dflt;
  if (a && a->kind != EXPR_NONE && !const_int(a, &x)) {
    cuda_error(g, arg_span(e, a), "%s: %s must be a constant (True/False)", e->u.call.op, what);
    return 0;
  }
  *v = x != 0;
  return 1;
}

static const char *need_str(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char *what) {
  const char *s = cuda_str_arg(a);
  if (!s) cuda_error(g, arg_span(e, a), "%s: %s must be a string", e->u.call.op, what);
  return s;
}

/* A matrix element type string. */
static mty need_type(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char *what) {
  const char *s = need_str(g, e, a, what);
  if (!s) return MT_NONE;
  mty t = mty_parse(s);
  if (t == MT_NONE)
    cuda_error(g, arg_span(e, a), "%s: %s \"%s\" is not a PTX matrix type", e->u.call.op, what, s);
  return t;
}

static int is_ptr(const tx_expr *a) {
  return a && a->dtype.code == DT_HANDLE && a->dtype.lanes == 1;
}

static int need_ptr(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char *what) {
  if (is_ptr(a)) return 1;
  cuda_error(g, arg_span(e, a),
             "%s: %s must be a pointer (T.address_of(buf[i]), buf.ptr_to([i]) or buf.data)",
             e->u.call.op, what);
  return 0;
}

/* A writable scalar register: a buffer element (TVM passes BufferLoads). */
static int is_reg_lvalue(const tx_expr *a) {
  return a && a->kind == EXPR_LOAD && a->dtype.lanes == 1;
}

static int is_i32(tx_dtype t) {
  return (t.code == DT_INT || t.code == DT_UINT) && t.bits == 32 && t.lanes == 1;
}

static int is_f32(tx_dtype t) {
  return t.code == DT_FLOAT && t.bits == 32 && t.lanes == 1;
}

/* ---- inline asm assembly ---------------------------------------------------------- */

/* One asm statement under construction: the template and its operand
 * lists. Outputs are numbered first, so every output is added before the
 * first input. */
typedef struct asm_b {
  tx_strbuf text, outs, ins;
  unsigned nout, nin;
} asm_b;

/* Starts an operand `"cons"(` and returns its number; the caller writes
 * the C expression into the returned list and closes it with ')'. */
static tx_strbuf *ab_open(asm_b *b, int out, const char *cons, unsigned *idx) {
  tx_strbuf *l = out ? &b->outs : &b->ins;
  if (l->len) tx_sb_puts(l, ", ");
  tx_sb_printf(l, "\"%s\"(", cons);
  *idx = out ? b->nout++ : b->nout + b->nin++;
  return l;
}

/* An operand from an expression, with an optional C conversion around it. */
static unsigned ab_expr(cuda_cg *g, asm_b *b, int out, const char *cons, const char *conv,
                        const tx_expr *a) {
  cuda_asm_operand(g, out ? &b->outs : &b->ins, cons, conv, a);
  return out ? b->nout++ : b->nout + b->nin++;
}

/* Does `t` need parentheses to be an operand of a cast or `+`? Not when
 * it is a name or already one parenthesised whole. */
static int needs_parens(const char *t, size_t n) {
  if (n && t[0] == '(') {
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
      depth += t[i] == '(' ? 1 : t[i] == ')' ? -1 : 0;
      if (depth == 0) return i + 1 != n;
    }
    return 1;
  }
  for (size_t i = 0; i < n; i++)
    if (!(t[i] == '_' || (t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'z') ||
          (t[i] >= 'A' && t[i] <= 'Z')))
      return 1;
  return n == 0;
}

/* Expression `a` as a primary expression. */
static void put_primary(cuda_cg *g, const tx_expr *a, tx_strbuf *sb) {
  tx_strbuf t = cuda_sb(g);
  cuda_emit_expr(g, a, &t);
  if (t.failed) g->nomem = 1;
  int p = needs_parens(t.data ? t.data : "", t.len);
  if (p) tx_sb_putc(sb, '(');
  if (t.len) tx_sb_puts(sb, t.data);
  if (p) tx_sb_putc(sb, ')');
  tx_sb_free(&t);
}

/* Pointer `base` plus an element offset in the pointer's own type (TVM's
 * legacy (ptr, offset) convention); a literal 0 offset is left out. Into
 * packed sub-byte storage (a byte pointer) the offset counts bytes, and
 * must be whole 32-bit words: every fragment and row here is made of them. */
static void put_ptr(cuda_cg *g, const tx_expr *base, const tx_expr *off, tx_strbuf *sb) {
  int64_t z = 1;
  if (!off || (cuda_int_arg(off, &z) && z == 0)) {
    put_primary(g, base, sb);
    return;
  }
  tx_dtype elem;
  tx_sb_putc(sb, '(');
  put_primary(g, base, sb);
  tx_sb_puts(sb, " + ");
  if (cuda_ptr_elem(g, base, &elem) && tx_cuda_is_packed_elem(elem)) /* whole 32-bit registers */
    cuda_emit_packed_offset(g, elem, off, 4, g->stmt_span, sb);
  else
    put_primary(g, off, sb);
  tx_sb_putc(sb, ')');
}

/* An operand for register i of a fragment that lives in memory:
 * `*(ctype*)p` for a pointer to that one register (i < 0), else
 * `((ctype*)p)[i]` for consecutive registers at p = base (+ off). */
static unsigned ab_frag(cuda_cg *g, asm_b *b, int out, frag_reg r, const tx_expr *base,
                        const tx_expr *off, int i) {
  unsigned idx;
  char cons[4];
  snprintf(cons, sizeof cons, "%s%s", out ? "=" : "", r.cons);
  tx_strbuf *l = ab_open(b, out, cons, &idx);
  if (i < 0) {
    tx_sb_printf(l, "*(%s*)", r.ctype);
    put_ptr(g, base, off, l);
  } else {
    tx_sb_printf(l, "((%s*)", r.ctype);
    put_ptr(g, base, off, l);
    tx_sb_printf(l, ")[%d]", i);
  }
  tx_sb_putc(l, ')');
  return idx;
}

/* A shared-memory address operand from a pointer (plus an element offset). */
static unsigned ab_smem(cuda_cg *g, asm_b *b, const tx_expr *p, const tx_expr *off) {
  unsigned idx;
  tx_strbuf *l = ab_open(b, 0, "r", &idx);
  cuda_need_helper(g, H_SMEM_ADDR);
  tx_sb_puts(l, "tx_smem_addr(");
  if (off)
    put_ptr(g, p, off, l);
  else
    cuda_emit_expr(g, p, l);
  tx_sb_puts(l, "))");
  return idx;
}

/* "{%a, %a+1, ...}" for n consecutive operands from `first`. */
static void ab_reglist(asm_b *b, unsigned first, int n) {
  tx_sb_putc(&b->text, '{');
  for (int i = 0; i < n; i++)
    tx_sb_printf(&b->text, "%s%%%u", i ? ", " : "", first + (unsigned)i);
  tx_sb_putc(&b->text, '}');
}

static void ab_free(asm_b *b) {
  tx_sb_free(&b->text);
  tx_sb_free(&b->outs);
  tx_sb_free(&b->ins);
}

/* `asm volatile("text" : outs : ins : "memory")` into sb. The memory
 * clobber keeps ordinary loads and stores of the operands' memory (shared
 * tiles, fragments behind pointers) on their side of the instruction. */
static void ab_finish(cuda_cg *g, asm_b *b, tx_strbuf *sb) {
  if (b->text.failed || b->outs.failed || b->ins.failed) {
    g->nomem = 1;
  } else {
    tx_sb_puts(sb, "asm volatile(");
    cuda_put_cstring(sb, b->text.data, b->text.len);
    tx_sb_printf(sb, " :%s%s :%s%s : \"memory\")", b->outs.len ? " " : "",
                 b->outs.len ? b->outs.data : "", b->ins.len ? " " : "",
                 b->ins.len ? b->ins.data : "");
  }
  ab_free(b);
}

/* ---- wgmma ----------------------------------------------------------------------------- */

/* T.ptx.wgmma.wait_group(n) */
static void emit_wgmma_wait_group(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  int64_t n = 0;
  if (!need_int(g, e, cuda_arg(e, 0, "n"), "n (the number of pending groups)", &n)) return;
  if (n < 0 || n > 7) {
    cuda_error(g, e->span, "%s: n must be 0..7, got %lld", e->u.call.op, (long long)n);
    return;
  }
  char text[64];
  snprintf(text, sizeof text, "wgmma.wait_group.sync.aligned %lld;", (long long)n);
  cuda_asm_simple(sb, text);
}

/* T.ptx.wgmma.noop_barrier(reg): an empty asm that claims to read and
 * write the register, so the compiler neither caches it across the async
 * MMA nor moves its uses over the wgmma fence. */
static void emit_wgmma_noop_barrier(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 1, 1)) return;
  const tx_expr *r = e->ops[0];
  const char *cons = is_f32(r->dtype) ? "+f" : is_i32(r->dtype) ? "+r" : NULL;
  if (!is_reg_lvalue(r) || !cons) {
    char buf[32];
    cuda_error(g, arg_span(e, r),
               "%s: the operand must be a float32 or 32-bit integer buffer element (a register), "
               "got %s",
               e->u.call.op, r->kind == EXPR_LOAD ? tx_dtype_str(r->dtype, buf) : "a value");
    return;
  }
  asm_b b = {cuda_sb(g), cuda_sb(g), cuda_sb(g), 0, 0};
  ab_expr(g, &b, 1, cons, NULL, r);
  ab_finish(g, &b, sb);
}

/* T.ptx.wgmma.encode_matrix_descriptor(desc, addr, ldo, sdo, swizzle):
 * *desc = the 64-bit shared memory matrix descriptor of addr. ldo and sdo
 * are already in 16-byte units (TVM stores them as given); swizzle is
 * TVM's 0 none / 1 32B / 2 64B / 3 128B. */
static void emit_wgmma_encode_desc(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 4, 5)) return;
  const tx_expr *desc = e->ops[0], *addr = e->ops[1], *ldo = e->ops[2], *sdo = e->ops[3];
  const tx_expr *swz = cuda_arg(e, 4, "swizzle");
  if (!swz) {
    cuda_error(g, e->span, "%s: missing swizzle (0 none, 1 32B, 2 64B, 3 128B)", e->u.call.op);
    return;
  }
  if (!need_ptr(g, e, desc, "desc (where the uint64 descriptor is stored)") ||
      !need_ptr(g, e, addr, "addr (the shared memory matrix)"))
    return;
  int64_t s = 0;
  if (const_int(swz, &s) && (s < 0 || s > 3)) {
    cuda_error(g, arg_span(e, swz), "%s: swizzle must be 0..3 (none, 32B, 64B, 128B), got %lld",
               e->u.call.op, (long long)s);
    return;
  }
  const tx_expr *ints[3] = {ldo, sdo, swz};
  for (int i = 0; i < 3; i++)
    if (ints[i]->dtype.code != DT_INT && ints[i]->dtype.code != DT_UINT) {
      cuda_error(g, arg_span(e, ints[i]), "%s: ldo, sdo and swizzle must be integers",
                 e->u.call.op);
      return;
    }
  cuda_need_helper(g, H_SMEM_ADDR);
  cuda_need_helper(g, H_WGMMA_DESC);
  tx_sb_puts(sb, "(*(unsigned long long*)");
  put_primary(g, desc, sb);
  tx_sb_puts(sb, " = tx_wgmma_desc(");
  cuda_emit_expr(g, addr, sb);
  for (int i = 0; i < 3; i++) {
    int narrow = !(ints[i]->dtype.code == DT_INT && ints[i]->dtype.bits == 32);
    tx_sb_puts(sb, narrow ? ", (int)" : ", ");
    if (narrow)
      put_primary(g, ints[i], sb);
    else
      cuda_emit_expr(g, ints[i], sb);
  }
  tx_sb_puts(sb, "))");
}

/* The parameters TVM passes before the operands (or as keywords). */
typedef struct wg_params {
  int64_t m, n, k;
  mty in, out;
  int trans_a, trans_b;
  int scale_a, scale_b; /* +1 or -1 */
  const tx_expr *scale_d;
} wg_params;

static const char *const WG_KEYS[10] = {"M",      "N",      "K",      "in_dtype", "out_dtype",
                                        "transA", "transB", "scaleA", "scaleB",   "scaleD"};

/* imm-scale-a/b: PTX takes 1 or -1 (negate the operand). */
static int wg_scale(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char *what, int *v) {
  double x = 0;
  int64_t i = 0;
  if (a && a->kind == EXPR_FLOAT)
    x = a->u.fval;
  else if (a && const_int(a, &i))
    x = (double)i;
  else {
    cuda_error(g, arg_span(e, a), "%s: %s must be a constant (1.0 or -1.0)", e->u.call.op, what);
    return 0;
  }
  if (x != 1.0 && x != -1.0) {
    cuda_error(g, arg_span(e, a), "%s: %s must be 1.0 or -1.0 (PTX imm-scale), got %g",
               e->u.call.op, what, x);
    return 0;
  }
  *v = x < 0 ? -1 : 1;
  return 1;
}

/* Reads the parameters; *first is the position of the first operand. Two
 * forms: printed (M, N, K, in_dtype, out_dtype, transA, transB, scaleA,
 * scaleB, scaleD, operands...) and keyword (operands..., M=..., ...). */
static int wg_read(cuda_cg *g, const tx_expr *e, int rs, wg_params *p, uint32_t *first) {
  const char *op = e->u.call.op;
  const tx_expr *a[10];
  int nkw = 0;
  for (int i = 0; i < 10; i++)
    nkw += cuda_kwarg(e, WG_KEYS[i]) != NULL;
  if (nkw) {
    for (int i = 0; i < 10; i++)
      if (!(a[i] = cuda_kwarg(e, WG_KEYS[i]))) {
        cuda_error(g, e->span,
                   "%s: keyword form needs all of M, N, K, in_dtype, out_dtype, "
                   "transA, transB, scaleA, scaleB, scaleD (missing %s=)",
                   op, WG_KEYS[i]);
        return 0;
      }
    *first = 0;
  } else {
    if (cuda_npos(e) < 10) {
      cuda_error(g, e->span,
                 "%s: expected (M, N, K, in_dtype, out_dtype, transA, transB, scaleA, scaleB, "
                 "scaleD, %s, registers...) or the operands with M=..scaleD= keywords",
                 op, rs ? "descB" : "descA, descB");
      return 0;
    }
    for (int i = 0; i < 10; i++)
      a[i] = e->ops[i];
    *first = 10;
  }
  if (!need_int(g, e, a[0], "M", &p->m) || !need_int(g, e, a[1], "N", &p->n) ||
      !need_int(g, e, a[2], "K", &p->k))
    return 0;
  if ((p->in = need_type(g, e, a[3], "in_dtype")) == MT_NONE ||
      (p->out = need_type(g, e, a[4], "out_dtype")) == MT_NONE)
    return 0;
  if (!need_flag(g, e, a[5], "transA", 0, &p->trans_a) ||
      !need_flag(g, e, a[6], "transB", 0, &p->trans_b) ||
      !wg_scale(g, e, a[7], "scaleA", &p->scale_a) || !wg_scale(g, e, a[8], "scaleB", &p->scale_b))
    return 0;
  p->scale_d = a[9];
  if (a[9]->kind == EXPR_STRING || a[9]->kind == EXPR_NONE || a[9]->dtype.lanes != 1 ||
      (a[9]->dtype.code != DT_BOOL && a[9]->dtype.code != DT_INT && a[9]->dtype.code != DT_UINT)) {
    cuda_error(g, arg_span(e, a[9]), "%s: scaleD must be a bool or integer scalar", op);
    return 0;
  }
  /* The PTX ISA's shape/type table for wgmma.mma_async (dense). */
  int kk = 0, fp8 = 0;
  switch (p->in) {
  case MT_F16:
  case MT_BF16:
    kk = 16;
    break;
  case MT_TF32:
    kk = 8;
    break;
  case MT_E4M3:
  case MT_E5M2:
    kk = 32, fp8 = 1;
    break;
  case MT_NONE:
  case MT_F32:
  case MT_F64:
  case MT_S8:
  case MT_U8:
  case MT_S4:
  case MT_U4:
  case MT_B1:
  case MT_S32:
    cuda_error(g, arg_span(e, a[3]),
               "%s: in_dtype %s is not supported (wgmma takes f16, bf16, tf32, e4m3, e5m2)", op,
               MTY_INFO[p->in].ptx);
    return 0;
  }
  if (p->out != MT_F32 && !(p->out == MT_F16 && (p->in == MT_F16 || fp8))) {
    cuda_error(g, arg_span(e, a[4]),
               "%s: out_dtype %s does not go with in_dtype %s (f16 and e4m3/e5m2 accumulate "
               "in f16 or f32, bf16 and tf32 in f32)",
               op, MTY_INFO[p->out].ptx, MTY_INFO[p->in].ptx);
    return 0;
  }
  if (p->m != 64) {
    cuda_error(g, arg_span(e, a[0]), "%s: M must be 64, got %lld", op, (long long)p->m);
    return 0;
  }
  if (p->n < 8 || p->n > 256 || p->n % 8) {
    cuda_error(g, arg_span(e, a[1]), "%s: N must be a multiple of 8 in 8..256, got %lld", op,
               (long long)p->n);
    return 0;
  }
  if (p->k != kk) {
    cuda_error(g, arg_span(e, a[2]), "%s: K must be %d for in_dtype %s, got %lld", op, kk,
               MTY_INFO[p->in].ptx, (long long)p->k);
    return 0;
  }
  /* The transposes exist for 16-bit inputs only; A from registers has none
   * (TVM ignores transA there). */
  int may_trans = p->in == MT_F16 || p->in == MT_BF16;
  if (!may_trans && ((p->trans_a && !rs) || p->trans_b)) {
    cuda_error(g, arg_span(e, a[p->trans_b ? 6 : 5]),
               "%s: transA/transB must be False for in_dtype %s (only f16/bf16 transpose)", op,
               MTY_INFO[p->in].ptx);
    return 0;
  }
  if (rs) p->trans_a = 0;
  return 1;
}

/* T.ptx.wgmma.mma_async.ss / .rs. Operands after the parameters:
 * ss: descA, descB, accumulators...; rs: descB, A registers (4), accumulators...
 * Accumulators are buffer elements, read and written in place: N/2 float32
 * for an f32 accumulator, N/4 32-bit integers (f16x2 pairs) for f16. */
static void emit_wgmma_mma(cuda_cg *g, const tx_expr *e, tx_strbuf *sb, int rs) {
  const char *op = e->u.call.op;
  wg_params p;
  uint32_t first = 0;
  if (!wg_read(g, e, rs, &p, &first)) return;
  uint32_t npos = cuda_npos(e);
  int ndesc = rs ? 1 : 2, na = rs ? 4 : 0;
  int nacc = (int)(p.out == MT_F32 ? p.n / 2 : p.n / 4);
  int have = (int)npos - (int)first - ndesc - na;
  if (have != nacc) {
    cuda_error(g, e->span,
               "%s: m64n%lldk%lld%s%s takes %d accumulator registers (%s) after %s, got %d", op,
               (long long)p.n, (long long)p.k, MTY_INFO[p.out].ptx, MTY_INFO[p.in].ptx, nacc,
               p.out == MT_F32 ? "float32, N/2" : "uint32 f16x2 pairs, N/4",
               rs ? "descB and the 4 A registers" : "descA and descB", have < 0 ? 0 : have);
    return;
  }
  const tx_expr *const *ops = e->ops + first;
  for (int i = 0; i < ndesc; i++) {
    tx_dtype t = ops[i]->dtype;
    if ((t.code != DT_INT && t.code != DT_UINT) || t.bits != 64 || t.lanes != 1) {
      cuda_error(g, arg_span(e, ops[i]), "%s: %s must be a 64-bit matrix descriptor (uint64)", op,
                 rs  ? "descB"
                 : i ? "descB"
                     : "descA");
      return;
    }
  }
  for (int i = 0; i < na; i++) {
    const tx_expr *r = ops[ndesc + i];
    if (!is_i32(r->dtype)) {
      char buf[32];
      cuda_error(g, arg_span(e, r),
                 "%s: A register %d must be a 32-bit integer (packed %s), got %s", op, i,
                 MTY_INFO[p.in].ptx, tx_dtype_str(r->dtype, buf));
      return;
    }
  }
  for (int i = 0; i < nacc; i++) {
    const tx_expr *r = ops[ndesc + na + i];
    int ok = p.out == MT_F32 ? is_f32(r->dtype) : is_i32(r->dtype);
    if (!is_reg_lvalue(r) || !ok) {
      cuda_error(g, arg_span(e, r),
                 "%s: accumulator %d must be a %s buffer element (a register written in place)", op,
                 i, p.out == MT_F32 ? "float32" : "uint32 (f16x2)");
      return;
    }
  }
  asm_b b = {cuda_sb(g), cuda_sb(g), cuda_sb(g), 0, 0};
  for (int i = 0; i < nacc; i++)
    ab_expr(g, &b, 1, p.out == MT_F32 ? "+f" : "+r", NULL, ops[ndesc + na + i]);
  unsigned a0 = 0, da = 0, db, sd;
  if (rs) {
    for (int i = 0; i < na; i++) {
      unsigned ix = ab_expr(g, &b, 0, "r", NULL, ops[ndesc + i]);
      if (i == 0) a0 = ix;
    }
    db = ab_expr(g, &b, 0, "l", "(unsigned long long)", ops[0]);
  } else {
    da = ab_expr(g, &b, 0, "l", "(unsigned long long)", ops[0]);
    db = ab_expr(g, &b, 0, "l", "(unsigned long long)", ops[1]);
  }
  sd = ab_expr(g, &b, 0, "r", "(unsigned)", p.scale_d);
  tx_sb_printf(&b.text,
               "{\n\t.reg .pred tx_sd;\n\tsetp.ne.b32 tx_sd, %%%u, 0;\n\t"
               "wgmma.mma_async.sync.aligned.m64n%lldk%lld%s%s%s ",
               sd, (long long)p.n, (long long)p.k, MTY_INFO[p.out].ptx, MTY_INFO[p.in].ptx,
               MTY_INFO[p.in].ptx);
  ab_reglist(&b, 0, nacc);
  if (rs) {
    tx_sb_puts(&b.text, ", ");
    ab_reglist(&b, a0, na);
    tx_sb_printf(&b.text, ", %%%u", db);
  } else {
    tx_sb_printf(&b.text, ", %%%u, %%%u", da, db);
  }
  tx_sb_printf(&b.text, ", tx_sd, %d, %d", p.scale_a, p.scale_b);
  if (p.in == MT_F16 || p.in == MT_BF16) {
    if (!rs) tx_sb_printf(&b.text, ", %d", p.trans_a);
    tx_sb_printf(&b.text, ", %d", p.trans_b);
  }
  tx_sb_puts(&b.text, ";\n\t}");
  ab_finish(g, &b, sb);
}

CUDA_CALL_VARIANT(emit_wgmma_ss, emit_wgmma_mma, 0)
CUDA_CALL_VARIANT(emit_wgmma_rs, emit_wgmma_mma, 1)

/* ---- mma.sync ---------------------------------------------------------------------- */

/* Which registers a fragment comes from: one pointer per register (TVM's
 * list and printed forms), consecutive registers at base (+ off, the
 * legacy form), or none (a zero accumulator). */
typedef struct frag_src {
  const tx_expr *const *ptrs;
  const tx_expr *base, *off;
} frag_src;

typedef struct mma_cfg {
  const char *shape, *alayout, *blayout;
  int m, n, k;
  mty d, a, b, c;
  int sparse, saturate;
  const char *bitop; /* "xor"/"and", NULL when none */
  frag_src fd, fa, fb, fc;
  const tx_expr *meta, *meta_off, *selector; /* mma.sp */
} mma_cfg;

/* Operand families with a common shape table. */
typedef enum mfam { FAM_F16, FAM_BF16, FAM_TF32, FAM_F64, FAM_I8, FAM_I4, FAM_B1, FAM_F8 } mfam;

static int mma_family(mty a, mty b, mfam *f) {
  if (a == MT_F16 && b == MT_F16)
    *f = FAM_F16;
  else if (a == MT_BF16 && b == MT_BF16)
    *f = FAM_BF16;
  else if (a == MT_TF32 && b == MT_TF32)
    *f = FAM_TF32;
  else if (a == MT_F64 && b == MT_F64)
    *f = FAM_F64;
  else if ((a == MT_S8 || a == MT_U8) && (b == MT_S8 || b == MT_U8))
    *f = FAM_I8;
  else if ((a == MT_S4 || a == MT_U4) && (b == MT_S4 || b == MT_U4))
    *f = FAM_I4;
  else if (a == MT_B1 && b == MT_B1)
    *f = FAM_B1;
  else if ((a == MT_E4M3 || a == MT_E5M2) && (b == MT_E4M3 || b == MT_E5M2))
    *f = FAM_F8;
  else
    return 0;
  return 1;
}

/* The PTX ISA's mma / mma.sp shapes per family (warp-level matrix shapes). */
static const struct {
  mfam f;
  int sparse, m, n, k;
} MMA_SHAPES[] = {
    {FAM_F16, 0, 8, 8, 4},    {FAM_F16, 0, 16, 8, 8},   {FAM_F16, 0, 16, 8, 16},
    {FAM_BF16, 0, 16, 8, 8},  {FAM_BF16, 0, 16, 8, 16}, {FAM_TF32, 0, 16, 8, 4},
    {FAM_TF32, 0, 16, 8, 8},  {FAM_F64, 0, 8, 8, 4},    {FAM_F64, 0, 16, 8, 4},
    {FAM_F64, 0, 16, 8, 8},   {FAM_F64, 0, 16, 8, 16},  {FAM_I8, 0, 8, 8, 16},
    {FAM_I8, 0, 16, 8, 16},   {FAM_I8, 0, 16, 8, 32},   {FAM_I4, 0, 8, 8, 32},
    {FAM_I4, 0, 16, 8, 32},   {FAM_I4, 0, 16, 8, 64},   {FAM_B1, 0, 8, 8, 128},
    {FAM_B1, 0, 16, 8, 128},  {FAM_B1, 0, 16, 8, 256},  {FAM_F8, 0, 16, 8, 16},
    {FAM_F8, 0, 16, 8, 32},   {FAM_F16, 1, 16, 8, 16},  {FAM_F16, 1, 16, 8, 32},
    {FAM_BF16, 1, 16, 8, 16}, {FAM_BF16, 1, 16, 8, 32}, {FAM_TF32, 1, 16, 8, 8},
    {FAM_TF32, 1, 16, 8, 16}, {FAM_I8, 1, 16, 8, 32},   {FAM_I8, 1, 16, 8, 64},
    {FAM_I4, 1, 16, 8, 64},   {FAM_I4, 1, 16, 8, 128},  {FAM_F8, 1, 16, 8, 64},
};

static int parse_shape(const char *s, int *m, int *n, int *k) {
  int used = 0;
  return s && sscanf(s, "m%dn%dk%d%n", m, n, k, &used) == 3 && s[used] == 0;
}

static int is_layout(const char *s) {
  return s && (strcmp(s, "row") == 0 || strcmp(s, "col") == 0);
}

/* Register counts per thread of the D, A, B and C fragments. */
static void mma_counts(const mma_cfg *c, int *nd, int *na, int *nb, int *nc) {
  /* m8n8k4 with f16 multiplicands runs as four 8-thread MMAs. */
  int threads = (c->m == 8 && c->n == 8 && c->k == 4 && c->a == MT_F16) ? 8 : 32;
  *nd = c->m * c->n * MTY_INFO[c->d].bits / frag_of(c->d).bits / threads;
  *na = c->m * c->k * MTY_INFO[c->a].bits / frag_of(c->a).bits / threads / (c->sparse ? 2 : 1);
  *nb = c->k * c->n * MTY_INFO[c->b].bits / frag_of(c->b).bits / threads;
  *nc = c->m * c->n * MTY_INFO[c->c].bits / frag_of(c->c).bits / threads;
}

/* Checks the configuration against the PTX ISA; located at the call. */
static int mma_check(cuda_cg *g, const tx_expr *e, mma_cfg *c) {
  const char *op = e->u.call.op;
  if (!parse_shape(c->shape, &c->m, &c->n, &c->k)) {
    cuda_error(g, e->span, "%s: shape \"%s\" is not of the form mMnNkK", op, c->shape);
    return 0;
  }
  if (!is_layout(c->alayout) || !is_layout(c->blayout)) {
    cuda_error(g, e->span, "%s: layouts must be \"row\" or \"col\"", op);
    return 0;
  }
  mfam f;
  if (!mma_family(c->a, c->b, &f)) {
    cuda_error(g, e->span, "%s: multiplicand types %s and %s do not go together", op,
               MTY_INFO[c->a].ptx, MTY_INFO[c->b].ptx);
    return 0;
  }
  int acc_ok = 0;
  switch (f) {
  case FAM_F16:
    acc_ok = (c->d == MT_F16 || c->d == MT_F32) && (c->c == MT_F16 || c->c == MT_F32);
    break;
  case FAM_F8:
    acc_ok = c->d == MT_F16 || c->d == MT_F32;
    break;
  case FAM_BF16:
  case FAM_TF32:
    acc_ok = c->d == MT_F32;
    break;
  case FAM_F64:
    acc_ok = c->d == MT_F64;
    break;
  case FAM_I8:
  case FAM_I4:
  case FAM_B1:
    acc_ok = c->d == MT_S32;
    break;
  }
  int m8n8k4 = c->m == 8 && c->n == 8 && c->k == 4;
  /* D and C may differ only in the m8n8k4 f16 form. */
  if (acc_ok && !(f == FAM_F16 && m8n8k4)) acc_ok = c->c == c->d;
  if (!acc_ok) {
    cuda_error(g, e->span, "%s: accumulator types %s (D) and %s (C) do not go with %s x %s", op,
               MTY_INFO[c->d].ptx, MTY_INFO[c->c].ptx, MTY_INFO[c->a].ptx, MTY_INFO[c->b].ptx);
    return 0;
  }
  int found = 0;
  for (size_t i = 0; i < sizeof MMA_SHAPES / sizeof *MMA_SHAPES; i++)
    found |= MMA_SHAPES[i].f == f && MMA_SHAPES[i].sparse == c->sparse && MMA_SHAPES[i].m == c->m &&
             MMA_SHAPES[i].n == c->n && MMA_SHAPES[i].k == c->k;
  if (!found) {
    cuda_error(g, e->span, "%s: shape %s is not a %s shape for %s multiplicands", op, c->shape,
               c->sparse ? "mma.sp" : "mma", MTY_INFO[c->a].ptx);
    return 0;
  }
  if (!(f == FAM_F16 && m8n8k4) &&
      (strcmp(c->alayout, "row") != 0 || strcmp(c->blayout, "col") != 0)) {
    cuda_error(g, e->span, "%s: layouts must be row, col (only m8n8k4 f16 takes others)", op);
    return 0;
  }
  if (c->saturate && f != FAM_I8 && f != FAM_I4) {
    cuda_error(g, e->span, "%s: saturate applies to s8/u8/s4/u4 multiplicands only", op);
    return 0;
  }
  if ((f == FAM_B1) != (c->bitop != NULL)) {
    cuda_error(g, e->span,
               f == FAM_B1 ? "%s: b1 multiplicands need a bit operator (\"xor\" or \"and\")"
                           : "%s: a bit operator applies to b1 multiplicands only",
               op);
    return 0;
  }
  return 1;
}

/* Checks that the pointers of the fragments are pointers. */
static int frag_ptrs_ok(cuda_cg *g, const tx_expr *e, const frag_src *s, int n, const char *what) {
  char buf[64];
  if (s->ptrs) {
    for (int i = 0; i < n; i++) {
      snprintf(buf, sizeof buf, "%s register %d", what, i);
      if (!need_ptr(g, e, s->ptrs[i], buf)) return 0;
    }
    return 1;
  }
  if (!s->base) return 1;
  snprintf(buf, sizeof buf, "the %s fragment", what);
  if (!need_ptr(g, e, s->base, buf)) return 0;
  if (s->off && s->off->dtype.code != DT_INT && s->off->dtype.code != DT_UINT) {
    cuda_error(g, arg_span(e, s->off), "%s: the %s offset must be an integer", e->u.call.op, what);
    return 0;
  }
  return 1;
}

/* Operands of one fragment, from its source. */
static unsigned frag_ops(cuda_cg *g, asm_b *b, int out, frag_reg r, const frag_src *s, int n) {
  unsigned first = 0;
  for (int i = 0; i < n; i++) {
    unsigned ix;
    if (s->ptrs) {
      ix = ab_frag(g, b, out, r, s->ptrs[i], NULL, -1);
    } else if (s->base) {
      ix = ab_frag(g, b, out, r, s->base, s->off, i);
    } else {
      tx_strbuf *l = ab_open(b, 0, r.cons, &ix);
      tx_sb_puts(l, r.cons[0] == 'f' ? "0.0f)" : r.cons[0] == 'd' ? "0.0)" : "0u)");
    }
    if (i == 0) first = ix;
  }
  return first;
}

/* Checks and emits one mma / mma.sp. */
static void mma_emit(cuda_cg *g, const tx_expr *e, mma_cfg *c, tx_strbuf *sb) {
  if (!mma_check(g, e, c)) return;
  int nd, na, nb, nc;
  mma_counts(c, &nd, &na, &nb, &nc);
  /* The legacy forms update C in place: D is C, and is named C. */
  int d_is_c = c->fd.ptrs == c->fc.ptrs && c->fd.base == c->fc.base && c->fd.off == c->fc.off;
  if ((!d_is_c && !frag_ptrs_ok(g, e, &c->fd, nd, "D")) || !frag_ptrs_ok(g, e, &c->fa, na, "A") ||
      !frag_ptrs_ok(g, e, &c->fb, nb, "B") || !frag_ptrs_ok(g, e, &c->fc, nc, "C"))
    return;
  int64_t sel = 0;
  if (c->sparse) {
    if (!need_ptr(g, e, c->meta, "the metadata")) return;
    if (!c->selector || !const_int(c->selector, &sel) || sel < 0 || sel > 3) {
      cuda_error(g, arg_span(e, c->selector),
                 "%s: the sparsity selector must be an integer constant 0..3", e->u.call.op);
      return;
    }
  }
  asm_b b = {cuda_sb(g), cuda_sb(g), cuda_sb(g), 0, 0};
  frag_ops(g, &b, 1, frag_of(c->d), &c->fd, nd);
  unsigned ia = frag_ops(g, &b, 0, frag_of(c->a), &c->fa, na);
  unsigned ib = frag_ops(g, &b, 0, frag_of(c->b), &c->fb, nb);
  unsigned ic = frag_ops(g, &b, 0, frag_of(c->c), &c->fc, nc);
  unsigned ie = 0;
  if (c->sparse) ie = ab_frag(g, &b, 0, B32, c->meta, c->meta_off, -1);
  tx_sb_printf(&b.text, "mma%s.sync.aligned.%s.%s.%s%s%s%s%s%s", c->sparse ? ".sp" : "", c->shape,
               c->alayout, c->blayout, c->saturate ? ".satfinite" : "", MTY_INFO[c->d].ptx,
               MTY_INFO[c->a].ptx, MTY_INFO[c->b].ptx, MTY_INFO[c->c].ptx);
  if (c->bitop) tx_sb_printf(&b.text, ".%s.popc", c->bitop);
  tx_sb_putc(&b.text, ' ');
  ab_reglist(&b, 0, nd);
  tx_sb_puts(&b.text, ", ");
  ab_reglist(&b, ia, na);
  tx_sb_puts(&b.text, ", ");
  ab_reglist(&b, ib, nb);
  tx_sb_puts(&b.text, ", ");
  ab_reglist(&b, ic, nc);
  if (c->sparse) tx_sb_printf(&b.text, ", %%%u, 0x%llx", ie, (unsigned long long)sel);
  tx_sb_putc(&b.text, ';');
  ab_finish(g, &b, sb);
}

/* A bit operator argument: absent, None or "" mean none. */
static int read_bitop(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char **out) {
  *out = NULL;
  if (!a || a->kind == EXPR_NONE) return 1;
  const char *s = need_str(g, e, a, "the bit operator");
  if (!s) return 0;
  if (!*s) return 1;
  if (strcmp(s, "xor") != 0 && strcmp(s, "and") != 0) {
    cuda_error(g, arg_span(e, a), "%s: the bit operator must be \"xor\" or \"and\", got \"%s\"",
               e->u.call.op, s);
    return 0;
  }
  *out = s;
  return 1;
}

/* A leading dtype string that TVM's printer puts first (kFirst) or that
 * _dtype_forward prepends: present when the second argument is the shape. */
static uint32_t skip_leading_dtype(const tx_expr *e) {
  int m, n, k;
  return cuda_npos(e) > 1 && cuda_str_arg(e->ops[0]) &&
                 parse_shape(cuda_str_arg(e->ops[1]), &m, &n, &k)
             ? 1
             : 0;
}

/* The seven strings shape, a_layout, b_layout, d/a/b/c types from `at`. */
static int mma_read_head(cuda_cg *g, const tx_expr *e, uint32_t at, mma_cfg *c, int legacy) {
  if (cuda_npos(e) < at + 7) {
    cuda_unsupported(g, e, "expected the shape, layouts and dtypes first");
    return 0;
  }
  const tx_expr *const *a = e->ops + at;
  if (!(c->shape = need_str(g, e, a[0], "shape")) ||
      !(c->alayout = need_str(g, e, a[1], "A layout")) ||
      !(c->blayout = need_str(g, e, a[2], "B layout")))
    return 0;
  if (legacy) {
    /* (A, B, C) dtypes; D is C (the accumulator is updated in place). */
    if ((c->a = need_type(g, e, a[3], "A dtype")) == MT_NONE ||
        (c->b = need_type(g, e, a[4], "B dtype")) == MT_NONE ||
        (c->c = need_type(g, e, a[5], "C dtype")) == MT_NONE)
      return 0;
    c->d = c->c;
  } else if ((c->d = need_type(g, e, a[3], "d_type")) == MT_NONE ||
             (c->a = need_type(g, e, a[4], "a_type")) == MT_NONE ||
             (c->b = need_type(g, e, a[5], "b_type")) == MT_NONE ||
             (c->c = need_type(g, e, a[6], "c_type")) == MT_NONE) {
    return 0;
  }
  return 1;
}

/* T.ptx.mma: shape, a_layout, b_layout, d_type, a_type, b_type, c_type, then
 *  - lists:    d_ptrs, a_ptrs, b_ptrs[, c_ptrs][, saturate][, bit_op]
 *  - pointers: d_ptr, a_ptr, b_ptr[, c_ptr][, saturate][, bit_op]
 *    (consecutive registers; c_ptr None or 0 means a zero accumulator)
 *  - printed:  d_cnt, a_cnt, b_cnt, c_cnt, no_c_ptr, pointers..., saturate[, bit_op]
 * c_ptrs, saturate and bit_op may be keywords. */
static void emit_mma(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const char *op = e->u.call.op;
  if (cuda_kwarg(e, "dtype")) {
    cuda_unsupported(g, e, "dtype= is not an operand of T.ptx.mma");
    return;
  }
  mma_cfg c = {0};
  uint32_t at = skip_leading_dtype(e), npos = cuda_npos(e);
  if (!mma_read_head(g, e, at, &c, 0)) return;
  uint32_t p = at + 7;
  if (npos < p + 3) {
    cuda_error(g, e->span, "%s: expected the D, A and B fragments after the dtypes", op);
    return;
  }
  static const char *const names[4] = {"D", "A", "B", "C"};
  const tx_expr *fr[4] = {e->ops[p], e->ops[p + 1], e->ops[p + 2], NULL};
  const tx_expr *sat = NULL, *bitop = NULL;
  int64_t cnt[4] = {0, 0, 0, 0};
  int printed = fr[0]->kind == EXPR_INT && fr[0]->dtype.code != DT_BOOL;
  int lists = fr[0]->kind == EXPR_TUPLE;
  if (printed) {
    /* d_cnt, a_cnt, b_cnt, c_cnt, no_c_ptr, one pointer per register,
     * saturate[, bit_op]. */
    int64_t no_c = 0;
    for (int i = 0; i < 4; i++)
      if (!need_int(g, e, p + (uint32_t)i < npos ? e->ops[p + i] : NULL, "a register count",
                    &cnt[i]))
        return;
    if (p + 4 >= npos || !const_int(e->ops[p + 4], &no_c)) {
      cuda_error(g, e->span, "%s: expected no_c_ptr (a bool) after the four register counts", op);
      return;
    }
    for (int i = 0; i < 4; i++)
      if (cnt[i] < 0 || cnt[i] > 64) {
        cuda_error(g, arg_span(e, e->ops[p + i]), "%s: bad register count %lld", op,
                   (long long)cnt[i]);
        return;
      }
    uint32_t q = p + 5, nptr = (uint32_t)(cnt[0] + cnt[1] + cnt[2] + (no_c ? 0 : cnt[3]));
    if (npos < q + nptr + 1 || npos > q + nptr + 2) {
      cuda_error(g, e->span,
                 "%s: expected %u register pointers (the counts say so), then saturate[, bit_op]",
                 op, nptr);
      return;
    }
    c.fd.ptrs = e->ops + q;
    c.fa.ptrs = c.fd.ptrs + cnt[0];
    c.fb.ptrs = c.fa.ptrs + cnt[1];
    if (!no_c) c.fc.ptrs = c.fb.ptrs + cnt[2];
    sat = e->ops[q + nptr];
    bitop = q + nptr + 1 < npos ? e->ops[q + nptr + 1] : NULL;
  } else {
    /* Lists of per-register pointers, or one pointer per fragment. */
    if (npos > p + 6) {
      cuda_error(g, e->span, "%s: too many arguments (expected d, a, b[, c][, saturate][, bit_op])",
                 op);
      return;
    }
    fr[3] = cuda_arg(e, p + 3, "c_ptrs");
    sat = cuda_arg(e, p + 4, "saturate");
    bitop = cuda_arg(e, p + 5, "bit_op");
    int64_t zero = 1;
    if (fr[3] && (fr[3]->kind == EXPR_NONE || (const_int(fr[3], &zero) && zero == 0))) fr[3] = NULL;
    for (int i = 0; i < 4; i++)
      if (fr[i] && (fr[i]->kind == EXPR_TUPLE) != lists) {
        cuda_error(g, arg_span(e, fr[i]),
                   "%s: give every fragment as a list of pointers, or every fragment as one "
                   "pointer",
                   op);
        return;
      }
    frag_src *dst[4] = {&c.fd, &c.fa, &c.fb, &c.fc};
    for (int i = 0; i < 4; i++) {
      if (!fr[i]) continue;
      if (lists) {
        dst[i]->ptrs = fr[i]->ops;
        cnt[i] = fr[i]->nops;
      } else {
        dst[i]->base = fr[i];
      }
    }
  }
  if (!read_bitop(g, e, bitop, &c.bitop) || !need_flag(g, e, sat, "saturate", 0, &c.saturate) ||
      !mma_check(g, e, &c))
    return;
  if (printed || lists) {
    /* The caller chose the register count: it must be the instruction's. */
    int want[4];
    mma_counts(&c, &want[0], &want[1], &want[2], &want[3]);
    for (int i = 0; i < 4; i++) {
      if (lists ? !fr[i] : (i == 3 && !c.fc.ptrs)) continue;
      if (cnt[i] != want[i]) {
        cuda_error(g, arg_span(e, printed ? e->ops[p + i] : fr[i]),
                   "%s: %s %s%s%s%s takes %d %s registers per thread (one pointer each), got "
                   "%lld",
                   op, c.shape, MTY_INFO[c.d].ptx, MTY_INFO[c.a].ptx, MTY_INFO[c.b].ptx,
                   MTY_INFO[c.c].ptx, want[i], names[i], (long long)cnt[i]);
        return;
      }
    }
  }
  mma_emit(g, e, &c, sb);
}

/* The head of the legacy pointer forms at `at` (shape, layouts, dtypes),
 * then a, a_off, b, b_off, c, c_off (D is C). Returns the operands from a,
 * or NULL after a located error. */
static const tx_expr *const *mma_read_legacy(cuda_cg *g, const tx_expr *e, uint32_t at,
                                             mma_cfg *c) {
  if (!mma_read_head(g, e, at, c, 1)) return NULL;
  const tx_expr *const *a = e->ops + at + 6;
  c->fa = (frag_src){NULL, a[0], a[1]};
  c->fb = (frag_src){NULL, a[2], a[3]};
  c->fc = (frag_src){NULL, a[4], a[5]};
  c->fd = c->fc;
  return a;
}

/* T.ptx.mma.legacy / T.ptx_mma: [dtype,] shape, A_layout, B_layout, A_dtype,
 * B_dtype, C_dtype, a, a_off, b, b_off, c, c_off, saturate[, operator].
 * A leading dtype (TVM pops it) is there when the second argument is the
 * shape: 14 arguments are either (dtype, ..., saturate) or (..., saturate,
 * operator), the b1 form TVM prints. */
static void emit_mma_legacy(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  uint32_t npos = cuda_npos(e), at = skip_leading_dtype(e);
  if (npos < 13 + at || npos > 14 + at) {
    cuda_unsupported(g, e,
                     "expected ([dtype,] shape, A_layout, B_layout, A_dtype, B_dtype, C_dtype, "
                     "a, a_offset, b, b_offset, c, c_offset, saturate[, operator])");
    return;
  }
  mma_cfg c = {0};
  const tx_expr *const *a = mma_read_legacy(g, e, at, &c);
  if (!a) return;
  const tx_expr *bit = at + 13 < npos ? e->ops[at + 13] : cuda_kwarg(e, "operator");
  if (!need_flag(g, e, a[6], "saturate", 0, &c.saturate) || !read_bitop(g, e, bit, &c.bitop))
    return;
  mma_emit(g, e, &c, sb);
}

/* T.ptx.mma.sp / T.ptx_mma_sp: [dtype,] shape, A_layout, B_layout, A_dtype,
 * B_dtype, C_dtype, a, a_off, b, b_off, c, c_off, metadata, meta_off,
 * sparse_selector, saturate (dtype first, or as dtype=). */
static void emit_mma_sp(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  uint32_t npos = cuda_npos(e), at = npos == 17 ? 1 : 0;
  if (npos < 16 || npos > 17) {
    cuda_unsupported(g, e,
                     "expected ([dtype,] shape, A_layout, B_layout, A_dtype, B_dtype, C_dtype, "
                     "a, a_offset, b, b_offset, c, c_offset, metadata, meta_offset, "
                     "sparse_selector, saturate)");
    return;
  }
  mma_cfg c = {0};
  c.sparse = 1;
  const tx_expr *const *a = mma_read_legacy(g, e, at, &c);
  if (!a) return;
  c.meta = a[6];
  c.meta_off = a[7];
  c.selector = a[8];
  if (!need_flag(g, e, a[9], "saturate", 0, &c.saturate)) return;
  mma_emit(g, e, &c, sb);
}

/* ---- ldmatrix / stmatrix ------------------------------------------------------------ */

/* trans, num and the .b16/.b8 type of ldmatrix/stmatrix. */
static int ldst_head(cuda_cg *g, const tx_expr *e, const tx_expr *trans, const tx_expr *num,
                     const tx_expr *type, int *tr, int64_t *n, const char **ty) {
  if (!need_flag(g, e, trans, "trans", 0, tr) || !need_int(g, e, num, "num", n)) return 0;
  if (*n != 1 && *n != 2 && *n != 4) {
    cuda_error(g, arg_span(e, num), "%s: num must be 1, 2 or 4, got %lld", e->u.call.op,
               (long long)*n);
    return 0;
  }
  const char *s = need_str(g, e, type, "the type");
  if (!s) return 0;
  if (*s == '.') s++;
  if (strcmp(s, "b16") != 0 && strcmp(s, "b8") != 0) {
    cuda_error(g, arg_span(e, type), "%s: the type must be \".b16\" or \".b8\", got \"%s\"",
               e->u.call.op, s);
    return 0;
  }
  *ty = s;
  return 1;
}

/* ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 into N registers. */
static void ldmatrix_emit(cuda_cg *g, const tx_expr *e, int tr, int64_t n, const char *ty,
                          const tx_expr *smem, const tx_expr *smem_off, const frag_src *dst,
                          tx_strbuf *sb) {
  if (strcmp(ty, "b16") != 0) {
    cuda_error(g, e->span, "%s: ldmatrix .m8n8 loads .b16 only (.b8 needs .m16n16/.m8n16)",
               e->u.call.op);
    return;
  }
  if (!need_ptr(g, e, smem, "the shared memory source") ||
      !frag_ptrs_ok(g, e, dst, (int)n, "destination"))
    return;
  asm_b b = {cuda_sb(g), cuda_sb(g), cuda_sb(g), 0, 0};
  frag_ops(g, &b, 1, B32, dst, (int)n);
  unsigned ia = ab_smem(g, &b, smem, smem_off);
  tx_sb_printf(&b.text, "ldmatrix.sync.aligned.m8n8.x%lld%s.shared.b16 ", (long long)n,
               tr ? ".trans" : "");
  ab_reglist(&b, 0, (int)n);
  tx_sb_printf(&b.text, ", [%%%u];", ia);
  ab_finish(g, &b, sb);
}

/* T.ptx.ldmatrix(trans, num, dtype, smem_ptr, *dst_ptrs): one pointer per
 * destination register. A first argument that is a string is TVM's older
 * (dtype, trans, num, type, local_ptr, local_offset, smem_ptr, smem_offset)
 * form, the same as ldmatrix_legacy. */
static void emit_ldmatrix_legacy(cuda_cg *g, const tx_expr *e, tx_strbuf *sb);

static void emit_ldmatrix(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  uint32_t npos = cuda_npos(e);
  if (npos && cuda_str_arg(e->ops[0])) {
    emit_ldmatrix_legacy(g, e, sb);
    return;
  }
  if (npos < 4) {
    cuda_unsupported(g, e, "expected (trans, num, dtype, smem_ptr, dst_ptr...)");
    return;
  }
  int tr;
  int64_t n;
  const char *ty;
  if (!ldst_head(g, e, e->ops[0], e->ops[1], e->ops[2], &tr, &n, &ty)) return;
  if (npos - 4 != n) {
    cuda_error(g, e->span,
               "%s: .x%lld loads %lld registers; give %lld destination pointers, got %u",
               e->u.call.op, (long long)n, (long long)n, (long long)n, npos - 4);
    return;
  }
  frag_src dst = {e->ops + 4, NULL, NULL};
  ldmatrix_emit(g, e, tr, n, ty, e->ops[3], NULL, &dst, sb);
}

/* T.ptx.ldmatrix_legacy([dtype,] trans, num, type, local_ptr, local_offset,
 * smem_ptr, smem_offset): num consecutive registers at local_ptr + offset. */
static void emit_ldmatrix_legacy(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  uint32_t npos = cuda_npos(e), at = npos == 8 ? 1 : 0;
  if (npos < 7 || npos > 8) {
    cuda_unsupported(g, e,
                     "expected ([dtype,] trans, num, type, local_ptr, local_offset, smem_ptr, "
                     "smem_offset)");
    return;
  }
  const tx_expr *dt = at ? e->ops[0] : cuda_kwarg(e, "dtype");
  const tx_expr *const *a = e->ops + at;
  int tr;
  int64_t n;
  const char *ty;
  if (!ldst_head(g, e, a[0], a[1], a[2], &tr, &n, &ty)) return;
  const char *elem = dt ? cuda_str_arg(dt) : NULL;
  if (tr && elem && (strstr(elem, "int8") || strstr(elem, "float8"))) {
    /* TVM replaces this case by a gather loop over an implied stride. */
    cuda_unsupported(g, e, "the transposed 8-bit form (TVM's gather-loop fallback)");
    return;
  }
  frag_src dst = {NULL, a[3], a[4]};
  ldmatrix_emit(g, e, tr, n, ty, a[5], a[6], &dst, sb);
}

/* T.ptx.stmatrix(trans, num, dtype, smem_ptr, *src_ptrs, shape=, space=), or
 * the printed (trans, num, dtype, shape, space, smem_ptr, *src_ptrs). */
static void emit_stmatrix(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const char *op = e->u.call.op;
  uint32_t npos = cuda_npos(e);
  if (npos < 5) {
    cuda_unsupported(g, e, "expected (trans, num, dtype, smem_ptr, src_ptr...)");
    return;
  }
  int printed = cuda_str_arg(e->ops[3]) != NULL;
  const tx_expr *shape_a = printed ? e->ops[3] : cuda_kwarg(e, "shape");
  const tx_expr *space_a = printed ? e->ops[4] : cuda_kwarg(e, "space");
  if (printed && (cuda_kwarg(e, "shape") || cuda_kwarg(e, "space"))) {
    cuda_error(g, e->span, "%s: shape and space are given twice", op);
    return;
  }
  uint32_t p = printed ? 5 : 3;
  int tr;
  int64_t n;
  const char *ty;
  if (!ldst_head(g, e, e->ops[0], e->ops[1], e->ops[2], &tr, &n, &ty)) return;
  const char *shape = shape_a ? need_str(g, e, shape_a, "shape") : "m8n8";
  const char *space = space_a ? need_str(g, e, space_a, "space") : "shared";
  if (!shape || !space) return;
  if (strcmp(shape, "m8n8") != 0 && strcmp(shape, "m16n8") != 0) {
    cuda_error(g, arg_span(e, shape_a), "%s: shape must be \"m8n8\" or \"m16n8\", got \"%s\"", op,
               shape);
    return;
  }
  if (strcmp(space, "shared") != 0 && strcmp(space, "shared::cta") != 0) {
    cuda_error(g, arg_span(e, space_a), "%s: space must be \"shared\" or \"shared::cta\"", op);
    return;
  }
  int m16n8 = shape[1] == '1';
  if (m16n8 != (strcmp(ty, "b8") == 0) || (m16n8 && !tr)) {
    cuda_error(g, e->span, "%s: stmatrix .m8n8 stores .b16; .m16n8 stores .b8 and needs trans", op);
    return;
  }
  int have = (int)npos - (int)p - 1;
  if (have != n) {
    cuda_error(g, e->span, "%s: .x%lld stores %lld registers; give %lld source pointers, got %d",
               op, (long long)n, (long long)n, (long long)n, have < 0 ? 0 : have);
    return;
  }
  const tx_expr *smem = e->ops[p];
  frag_src src = {e->ops + p + 1, NULL, NULL};
  if (!need_ptr(g, e, smem, "the shared memory destination") ||
      !frag_ptrs_ok(g, e, &src, (int)n, "source"))
    return;
  asm_b b = {cuda_sb(g), cuda_sb(g), cuda_sb(g), 0, 0};
  unsigned ia = ab_smem(g, &b, smem, NULL);
  unsigned ir = frag_ops(g, &b, 0, B32, &src, (int)n);
  tx_sb_printf(&b.text, "stmatrix.sync.aligned.%s.x%lld%s.%s.%s [%%%u], ", shape, (long long)n,
               tr ? ".trans" : "", space, ty, ia);
  ab_reglist(&b, ir, (int)n);
  tx_sb_putc(&b.text, ';');
  ab_finish(g, &b, sb);
}

/* ---- the table ---------------------------------------------------------------------- */

/* Sorted by strcmp (tests/unit/test_codegen.c checks). The T.cuda.wgmma.*
 * and T.ptx_* names are TVM's older spellings of the same helpers;
 * T.ptx_legacy.* its PTXLegacyNamespace (the same argument order). */
static const cuda_call_entry ENTRIES[] = {
    {"T.cuda.wgmma.encode_matrix_descriptor", emit_wgmma_encode_desc},
    {"T.cuda.wgmma.noop_barrier", emit_wgmma_noop_barrier},
    {"T.ptx.ldmatrix", emit_ldmatrix},
    {"T.ptx.ldmatrix_legacy", emit_ldmatrix_legacy},
    {"T.ptx.mma", emit_mma},
    {"T.ptx.mma.legacy", emit_mma_legacy},
    {"T.ptx.mma.sp", emit_mma_sp},
    {"T.ptx.stmatrix", emit_stmatrix},
    {"T.ptx.wgmma.encode_matrix_descriptor", emit_wgmma_encode_desc},
    {"T.ptx.wgmma.mma_async.rs", emit_wgmma_rs},
    {"T.ptx.wgmma.mma_async.ss", emit_wgmma_ss},
    {"T.ptx.wgmma.noop_barrier", emit_wgmma_noop_barrier},
    {"T.ptx.wgmma.wait_group", emit_wgmma_wait_group},
    {"T.ptx_ldmatrix", emit_ldmatrix_legacy},
    {"T.ptx_legacy.ldmatrix", emit_ldmatrix_legacy},
    {"T.ptx_legacy.mma", emit_mma_legacy},
    {"T.ptx_mma", emit_mma_legacy},
    {"T.ptx_mma_sp", emit_mma_sp},
};

const cuda_call_table cuda_ptx_mma_calls = {"mma", ENTRIES, sizeof ENTRIES / sizeof *ENTRIES};
