/*
 * ptx_tcgen05.c - CUDA C for TVM's T.ptx helpers of one family: Blackwell tensor-core generation 5
 * (tcgen05.*: TMEM allocation, mma, ld/st, cp, commit, shift, descriptors) and cluster launch
 * control (clc_*). docs/ptx/tcgen05.md is the reference for every form.
 *
 * Each entry follows the operand convention of the TVM helper of the same
 * name (python/tvm/backend/cuda/op.py and the codegen of its intrinsics):
 * both the source form (operands positional, qualifiers as keywords) and
 * the printed form (TVM's internal argument order, all positional). Forms
 * TVM rejects, and targets without tcgen05, are located errors, never
 * guesses: a wrong operand order would assemble and silently misbehave.
 * The descriptor encoders are the exception to the target check: they are
 * integer arithmetic (no tcgen05 instruction), so TVM emits them for any
 * CUDA arch and so does this file.
 *
 * The instruction descriptor is computed here, at compile time, from the
 * PTX ISA tables (its operands are constants in TVM too); the shared memory
 * descriptor needs the runtime address, so a device helper packs it
 * (TX_CUDA_TCGEN05_SMEM_DESC in cuda_internal.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "target/cuda/cuda_call.h"

/* ---- diagnostics and arguments ------------------------------------------------- */

static void tc_error(cuda_cg *g, const tx_expr *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void tc_error(cuda_cg *g, const tx_expr *e, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cuda_error(g, e->span, "%s: %s", e->u.call.op, msg);
}

static const char *target_arch(const cuda_cg *g) {
  return g->target && g->target->arch ? g->target->arch : "(none)";
}

/* tcgen05 exists on the arch-specific datacenter Blackwell targets only:
 * sm_100a, sm_101a (sm_110a), sm_103a and the sm_100f/sm_110f families (PTX
 * ISA, tcgen05 target notes), not on sm_90a nor on sm_120 parts. */
static int tcgen05_arch_ok(cuda_cg *g, const tx_expr *e) {
  if (tx_target_has(g->target, TX_FEAT_TCGEN05)) return 1;
  tc_error(g, e,
           "tcgen05 instructions need an sm_100a, sm_101a or sm_103a target (or an sm_100f "
           "family target); the target is %s",
           target_arch(g));
  return 0;
}

/* clusterlaunchcontrol needs sm_100 or later (PTX ISA 8.6); the
 * .multicast::cluster::all form of try_cancel that TVM emits also an
 * arch-specific or family target (ptxas rejects it for plain sm_100). */
static int clc_arch_ok(cuda_cg *g, const tx_expr *e, int specific) {
  if (tx_target_has(g->target, specific ? TX_FEAT_CLC_MULTICAST : TX_FEAT_CLC)) return 1;
  tc_error(g, e, "cluster launch control needs an sm_100%s or later target; the target is %s",
           specific ? "a" : "", target_arch(g));
  return 0;
}

/* An integer constant (bools too) named `name`; `dflt` when `a` is absent
 * unless `required`. */
static int int_arg(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char *name, int required,
                   int64_t dflt, int64_t *v) {
  if (!a) {
    if (required) {
      tc_error(g, e, "missing %s", name);
      return 0;
    }
    *v = dflt;
    return 1;
  }
  if (!cuda_int_arg(a, v)) {
    tc_error(g, e, "%s must be a constant", name);
    return 0;
  }
  return 1;
}

/* A string literal named `name`; `dflt` when `a` is absent unless `required`. */
static const char *str_arg(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char *name,
                           int required, const char *dflt) {
  if (!a) {
    if (required) tc_error(g, e, "missing %s", name);
    return required ? NULL : dflt;
  }
  const char *s = cuda_str_arg(a);
  if (!s) tc_error(g, e, "%s must be a string literal", name);
  return s;
}

static int cta_group_arg(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char *name,
                         int64_t *cg) {
  if (!int_arg(g, e, a, name, 0, 1, cg)) return 0;
  if (*cg == 1 || *cg == 2) return 1;
  tc_error(g, e, "%s must be 1 or 2, got %lld", name, (long long)*cg);
  return 0;
}

/* A value operand that must be present. */
static const tx_expr *need(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char *name) {
  if (!a) tc_error(g, e, "missing %s", name);
  return a;
}

/* A tensor memory address is a 32-bit (lane << 16 | column) value. */
static int tmem_value_ok(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char *name) {
  if (a->dtype.code != DT_HANDLE && a->dtype.lanes == 1) return 1;
  tc_error(g, e, "%s is a 32-bit tensor memory address, not a pointer", name);
  return 0;
}

static int pointer_ok(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char *name) {
  if (a->dtype.code == DT_HANDLE) return 1;
  tc_error(g, e, "%s must be a pointer (x.data or T.address_of(x[0]))", name);
  return 0;
}

static int is_zero(const tx_expr *a) {
  int64_t v;
  return !a || (cuda_int_arg(a, &v) && v == 0);
}

/* ---- inline asm assembly ---------------------------------------------------------- */

/* One asm statement under construction: outputs are added before inputs,
 * so operand numbers follow the order of the calls. */
typedef struct asm_stmt {
  tx_strbuf text, outs, ins;
  uint32_t n;
} asm_stmt;

static void asm_free(asm_stmt *s) {
  tx_sb_free(&s->text);
  tx_sb_free(&s->outs);
  tx_sb_free(&s->ins);
}

static tx_strbuf *next_in(asm_stmt *s) {
  if (s->ins.len) tx_sb_puts(&s->ins, ", ");
  return &s->ins;
}

/* An input "cons"(conv(a)). */
static uint32_t in_conv(cuda_cg *g, asm_stmt *s, const char *cons, const char *conv,
                        const tx_expr *a) {
  cuda_asm_operand(g, &s->ins, cons, conv, a);
  return s->n++;
}

/* A 32-bit input: "r"((unsigned)(a)). */
static uint32_t in_u32(cuda_cg *g, asm_stmt *s, const tx_expr *a) {
  return in_conv(g, s, "r", "(unsigned)", a);
}

/* A 64-bit input (descriptors): "l"((unsigned long long)(a)). */
static uint32_t in_u64(cuda_cg *g, asm_stmt *s, const tx_expr *a) {
  return in_conv(g, s, "l", "(unsigned long long)", a);
}

/* A 16-bit input (the multicast CTA mask): "h"((unsigned short)(a)). */
static uint32_t in_u16(cuda_cg *g, asm_stmt *s, const tx_expr *a) {
  return in_conv(g, s, "h", "(unsigned short)", a);
}

/* A 32-bit shared address from a pointer (cvta) or a uint32 address. */
static uint32_t in_smem(cuda_cg *g, asm_stmt *s, const tx_expr *a) {
  cuda_smem_addr_in(g, a, next_in(s));
  return s->n++;
}

static uint32_t in_imm(asm_stmt *s, int64_t v) {
  tx_sb_printf(next_in(s), "\"n\"(%lld)", (long long)v);
  return s->n++;
}

/* The tensor memory address base (+ row lanes, + col columns) as C. */
static void tmem_expr(cuda_cg *g, const tx_expr *base, const tx_expr *row, const tx_expr *col,
                      tx_strbuf *sb) {
  if (is_zero(row) && is_zero(col)) {
    tx_sb_puts(sb, "(unsigned)(");
    cuda_emit_expr(g, base, sb);
    tx_sb_putc(sb, ')');
    return;
  }
  cuda_need_helper(g, H_TMEM_ADDR);
  tx_sb_puts(sb, "tx_tmem_addr((unsigned)(");
  cuda_emit_expr(g, base, sb);
  tx_sb_puts(sb, "), (int)(");
  if (row)
    cuda_emit_expr(g, row, sb);
  else
    tx_sb_putc(sb, '0');
  tx_sb_puts(sb, "), (int)(");
  if (col)
    cuda_emit_expr(g, col, sb);
  else
    tx_sb_putc(sb, '0');
  tx_sb_puts(sb, "))");
}

static uint32_t in_tmem(cuda_cg *g, asm_stmt *s, const tx_expr *base, const tx_expr *row,
                        const tx_expr *col) {
  tx_strbuf *sb = next_in(s);
  tx_sb_puts(sb, "\"r\"(");
  tmem_expr(g, base, row, col, sb);
  tx_sb_putc(sb, ')');
  return s->n++;
}

/* `asm volatile("text" : outs : ins : "memory")`, then the statement freed. */
static void asm_finish(cuda_cg *g, asm_stmt *s, tx_strbuf *sb) {
  if (s->text.failed || s->outs.failed || s->ins.failed) {
    g->nomem = 1;
  } else {
    tx_sb_puts(sb, "asm volatile(");
    cuda_put_cstring(sb, s->text.data ? s->text.data : "", s->text.len);
    if (s->outs.len)
      tx_sb_printf(sb, " : %s : %s : \"memory\")", cuda_sb_text(g, &s->outs),
                   s->ins.len ? cuda_sb_text(g, &s->ins) : "");
    else
      tx_sb_printf(sb, " :: %s : \"memory\")", s->ins.len ? cuda_sb_text(g, &s->ins) : "");
  }
  asm_free(s);
}

/* ---- allocation ------------------------------------------------------------------ */

/* n_cols: a power of two in [32, 512] when constant (PTX ISA tcgen05.alloc). */
static int ncols_ok(cuda_cg *g, const tx_expr *e, const tx_expr *a) {
  int64_t v;
  if (!cuda_int_arg(a, &v)) return 1;
  if (v >= 32 && v <= 512 && (v & (v - 1)) == 0) return 1;
  tc_error(g, e, "n_cols must be a power of two in [32, 512], got %lld", (long long)v);
  return 0;
}

/* (x, n_cols, cta_group=1): the operands of alloc (x = dst) and dealloc
 * (x = taddr). */
static int alloc_args(cuda_cg *g, const tx_expr *e, const char *what, const tx_expr **x,
                      const tx_expr **ncols, int64_t *cg) {
  *x = need(g, e, cuda_arg(e, 0, NULL), what);
  *ncols = need(g, e, cuda_arg(e, 1, "n_cols"), "n_cols");
  return *x && *ncols && cta_group_arg(g, e, cuda_arg(e, 2, "cta_group"), "cta_group", cg);
}

/* alloc(dst, n_cols, cta_group=1): the allocated address goes to [dst]. */
static void emit_alloc(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const tx_expr *dst, *ncols;
  int64_t cg;
  if (!alloc_args(g, e, "dst", &dst, &ncols, &cg) || !ncols_ok(g, e, ncols) ||
      !tcgen05_arch_ok(g, e))
    return;
  asm_stmt s = {cuda_sb(g), cuda_sb(g), cuda_sb(g), 0};
  uint32_t d = in_smem(g, &s, dst), n = in_u32(g, &s, ncols);
  tx_sb_printf(&s.text, "tcgen05.alloc.cta_group::%lld.sync.aligned.shared::cta.b32 [%%%u], %%%u;",
               (long long)cg, d, n);
  asm_finish(g, &s, sb);
}

/* dealloc(taddr, n_cols, cta_group=1). */
static void emit_dealloc(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const tx_expr *taddr, *ncols;
  int64_t cg;
  if (!alloc_args(g, e, "taddr", &taddr, &ncols, &cg) || !tmem_value_ok(g, e, taddr, "taddr") ||
      !ncols_ok(g, e, ncols) || !tcgen05_arch_ok(g, e))
    return;
  asm_stmt s = {cuda_sb(g), cuda_sb(g), cuda_sb(g), 0};
  uint32_t t = in_u32(g, &s, taddr), n = in_u32(g, &s, ncols);
  tx_sb_printf(&s.text, "tcgen05.dealloc.cta_group::%lld.sync.aligned.b32 %%%u, %%%u;",
               (long long)cg, t, n);
  asm_finish(g, &s, sb);
}

/* relinquish_alloc_permit(cta_group=1). */
static void emit_relinquish(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  int64_t cg;
  if (!cta_group_arg(g, e, cuda_arg(e, 0, "cta_group"), "cta_group", &cg) || !tcgen05_arch_ok(g, e))
    return;
  char text[96];
  snprintf(text, sizeof text, "tcgen05.relinquish_alloc_permit.cta_group::%lld.sync.aligned;",
           (long long)cg);
  cuda_asm_simple(sb, text);
}

/* shift(taddr, cta_group=1): shift the rows of the matrix at taddr down by one. */
static void emit_shift(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const tx_expr *taddr = need(g, e, cuda_arg(e, 0, NULL), "taddr");
  int64_t cg;
  if (!taddr || !cta_group_arg(g, e, cuda_arg(e, 1, "cta_group"), "cta_group", &cg) ||
      !tmem_value_ok(g, e, taddr, "taddr") || !tcgen05_arch_ok(g, e))
    return;
  asm_stmt s = {cuda_sb(g), cuda_sb(g), cuda_sb(g), 0};
  uint32_t t = in_u32(g, &s, taddr);
  tx_sb_printf(&s.text, "tcgen05.shift.cta_group::%lld.down [%%%u];", (long long)cg, t);
  asm_finish(g, &s, sb);
}

/* ---- commit ----------------------------------------------------------------------- */

static int popcount64(uint64_t v) {
  int c = 0;
  for (; v; v &= v - 1)
    c++;
  return c;
}

/* commit(bar, cta_group=1, cta_mask=0, pred=None). As in TVM, a constant
 * cta_mask with at most one bit set is the unicast form (the executing
 * CTA's barrier); any other mask, constant or not, multicasts to the CTAs
 * whose %cluster_ctarank bits it sets. pred predicates the instruction. */
static void emit_commit(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const tx_expr *bar = need(g, e, cuda_arg(e, 0, NULL), "bar");
  const tx_expr *mask = cuda_arg(e, 2, "cta_mask"), *pred = cuda_arg(e, 3, "pred");
  int64_t cg, m = 0;
  if (!bar || !cta_group_arg(g, e, cuda_arg(e, 1, "cta_group"), "cta_group", &cg) ||
      !tcgen05_arch_ok(g, e))
    return;
  int multicast = mask && !(cuda_int_arg(mask, &m) && popcount64((uint64_t)m) <= 1);
  if (multicast && cuda_int_arg(mask, &m) && (m < 0 || m > 0xFFFF)) {
    tc_error(g, e, "cta_mask is a 16-bit mask, got %lld", (long long)m);
    return;
  }
  asm_stmt s = {cuda_sb(g), cuda_sb(g), cuda_sb(g), 0};
  uint32_t b = in_smem(g, &s, bar);
  uint32_t k = multicast ? in_u16(g, &s, mask) : 0;
  uint32_t p = pred ? in_u32(g, &s, pred) : 0;
  if (pred)
    tx_sb_printf(&s.text, "{\n\t.reg .pred tx_p;\n\tsetp.ne.b32 tx_p, %%%u, 0;\n\t@tx_p ", p);
  tx_sb_printf(&s.text, "tcgen05.commit.cta_group::%lld.mbarrier::arrive::one.shared::cluster",
               (long long)cg);
  if (multicast)
    tx_sb_printf(&s.text, ".multicast::cluster.b64 [%%%u], %%%u;", b, k);
  else
    tx_sb_printf(&s.text, ".b64 [%%%u];", b);
  if (pred) tx_sb_puts(&s.text, "\n\t}");
  asm_finish(g, &s, sb);
}

/* ---- ld / st / cp ------------------------------------------------------------------ */

/* The 32-bit registers of tcgen05.ld/.st for a shape and .num (PTX ISA,
 * tcgen05.ld "Various-combinations of .num and .shape"); 0 if invalid. */
static int64_t ldst_regs(const char *shape, int64_t num) {
  if (num < 1 || num > 128 || (num & (num - 1)) != 0) return 0;
  if (strcmp(shape, "16x32bx2") == 0 || strcmp(shape, "16x64b") == 0 ||
      strcmp(shape, "32x32b") == 0)
    return num;
  if (strcmp(shape, "16x128b") == 0) return num <= 64 ? 2 * num : 0;
  if (strcmp(shape, "16x256b") == 0) return num <= 32 ? 4 * num : 0;
  return 0;
}

/* A register of tcgen05.ld/.st, as TVM passes it: a buffer element whose
 * 32 bits are the register (TVM takes its address), 16-bit elements only
 * with .pack::16b / .unpack::16b (two per register). */
static int reg_ok(cuda_cg *g, const tx_expr *e, const tx_expr *r, uint32_t i, int packed) {
  if (r->kind == EXPR_LOAD && r->dtype.lanes == 1 &&
      (r->dtype.bits == 32 || (packed && r->dtype.bits == 16)))
    return 1;
  char buf[32];
  tc_error(g, e,
           "register %u must be a buffer element of a 32-bit type (16-bit with pack/unpack), "
           "got %s %s",
           i + 1, r->kind == EXPR_LOAD ? "an element of" : "an expression of",
           tx_dtype_str(r->dtype, buf));
  return 0;
}

/* The register as an lvalue of type unsigned. */
static void reg_lvalue(cuda_cg *g, const tx_expr *r, tx_strbuf *sb) {
  tx_sb_puts(sb, "*(unsigned*)&(");
  cuda_emit_expr(g, r, sb);
  tx_sb_putc(sb, ')');
}

typedef struct ldst_form {
  const tx_expr *taddr, *row, *col;
  const char *shape;
  int64_t num, pack;
  uint32_t reg0, nregs; /* registers: positional arguments reg0 .. reg0 + nregs - 1 */
} ldst_form;

/* ld/st read as the printed form (taddr, row, col, shape, num, pack,
 * *regs) when the fourth argument is a string, otherwise as the source
 * form (taddr, *regs, shape=, num=, row=0, col=0, pack=False). */
static int ldst_args(cuda_cg *g, const tx_expr *e, const char *pack_kw, ldst_form *f) {
  uint32_t n = cuda_npos(e);
  int printed = n >= 6 && e->ops[3]->kind == EXPR_STRING;
  const tx_expr *shape, *num, *pack;
  f->taddr = need(g, e, cuda_arg(e, 0, NULL), "taddr");
  if (printed) {
    f->row = e->ops[1];
    f->col = e->ops[2];
    shape = e->ops[3];
    num = e->ops[4];
    pack = e->ops[5];
    f->reg0 = 6;
  } else {
    f->row = cuda_kwarg(e, "row");
    f->col = cuda_kwarg(e, "col");
    shape = cuda_kwarg(e, "shape");
    num = cuda_kwarg(e, "num");
    pack = cuda_kwarg(e, pack_kw);
    f->reg0 = 1;
  }
  f->nregs = n > f->reg0 ? n - f->reg0 : 0;
  if (!f->taddr || !tmem_value_ok(g, e, f->taddr, "taddr")) return 0;
  if (!(f->shape = str_arg(g, e, shape, "shape", 1, NULL)) ||
      !int_arg(g, e, num, "num", 1, 0, &f->num) || !int_arg(g, e, pack, pack_kw, 0, 0, &f->pack))
    return 0;
  int64_t want = ldst_regs(f->shape, f->num);
  if (!want) {
    static const char *const shapes[] = {"16x32bx2", "16x64b", "16x128b", "16x256b", "32x32b"};
    int known = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
      known |= strcmp(shapes[i], f->shape) == 0;
    if (!known)
      tc_error(g, e, "shape must be one of 16x32bx2, 16x64b, 16x128b, 16x256b, 32x32b, got \"%s\"",
               f->shape);
    else
      tc_error(g, e,
               "num must be a power of two in [1, 128] (at most 64 for 16x128b, 32 for 16x256b), "
               "got %lld",
               (long long)f->num);
    return 0;
  }
  if ((int64_t)f->nregs != want) {
    tc_error(g, e, "shape %s with num=%lld takes %lld registers, got %u", f->shape,
             (long long)f->num, (long long)want, f->nregs);
    return 0;
  }
  for (uint32_t i = 0; i < f->nregs; i++)
    if (!reg_ok(g, e, e->ops[f->reg0 + i], i, f->pack != 0)) return 0;
  return tcgen05_arch_ok(g, e);
}

/* The .16x32bx2 immHalfSplitoff: TVM passes num columns (2 * num packed). */
static int64_t half_split(const ldst_form *f) {
  return f->pack ? 2 * f->num : f->num;
}

static void emit_ld(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  ldst_form f;
  if (!ldst_args(g, e, "pack", &f)) return;
  asm_stmt s = {cuda_sb(g), cuda_sb(g), cuda_sb(g), 0};
  tx_sb_printf(&s.text, "tcgen05.ld.sync.aligned.%s.x%lld%s.b32 {", f.shape, (long long)f.num,
               f.pack ? ".pack::16b" : "");
  for (uint32_t i = 0; i < f.nregs; i++) {
    if (i) tx_sb_puts(&s.outs, ", ");
    tx_sb_puts(&s.outs, "\"=r\"(");
    reg_lvalue(g, e->ops[f.reg0 + i], &s.outs);
    tx_sb_putc(&s.outs, ')');
    tx_sb_printf(&s.text, "%s%%%u", i ? ", " : "", s.n++);
  }
  uint32_t t = in_tmem(g, &s, f.taddr, f.row, f.col);
  tx_sb_printf(&s.text, "}, [%%%u]", t);
  if (strcmp(f.shape, "16x32bx2") == 0) tx_sb_printf(&s.text, ", %lld", (long long)half_split(&f));
  tx_sb_putc(&s.text, ';');
  asm_finish(g, &s, sb);
}

static void emit_st(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  ldst_form f;
  if (!ldst_args(g, e, "unpack", &f)) return;
  asm_stmt s = {cuda_sb(g), cuda_sb(g), cuda_sb(g), 0};
  uint32_t t = in_tmem(g, &s, f.taddr, f.row, f.col);
  tx_sb_printf(&s.text, "tcgen05.st.sync.aligned.%s.x%lld%s.b32 [%%%u]", f.shape, (long long)f.num,
               f.pack ? ".unpack::16b" : "", t);
  if (strcmp(f.shape, "16x32bx2") == 0) tx_sb_printf(&s.text, ", %lld", (long long)half_split(&f));
  tx_sb_puts(&s.text, ", {");
  for (uint32_t i = 0; i < f.nregs; i++) {
    tx_strbuf *in = next_in(&s);
    tx_sb_puts(in, "\"r\"(");
    reg_lvalue(g, e->ops[f.reg0 + i], in);
    tx_sb_putc(in, ')');
    tx_sb_printf(&s.text, "%s%%%u", i ? ", " : "", s.n++);
  }
  tx_sb_puts(&s.text, "};");
  asm_finish(g, &s, sb);
}

/* cp(taddr, src_desc, shape, cta_group=1, multicast="", decompress="",
 * row=0, col=0): every parameter after src_desc is keyword-only in TVM's
 * source form and positional in its printed form, in this order. */
static void emit_cp(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const tx_expr *taddr = need(g, e, cuda_arg(e, 0, NULL), "taddr");
  const tx_expr *desc = need(g, e, cuda_arg(e, 1, NULL), "src_desc");
  const char *shape = str_arg(g, e, cuda_arg(e, 2, "shape"), "shape", 1, NULL);
  const char *mc = shape ? str_arg(g, e, cuda_arg(e, 4, "multicast"), "multicast", 0, "") : NULL;
  const char *dc = mc ? str_arg(g, e, cuda_arg(e, 5, "decompress"), "decompress", 0, "") : NULL;
  int64_t cg;
  if (!taddr || !desc || !dc ||
      !cta_group_arg(g, e, cuda_arg(e, 3, "cta_group"), "cta_group", &cg) ||
      !tmem_value_ok(g, e, taddr, "taddr"))
    return;
  /* TVM's table: 32x128b needs warpx4, 64x128b a warpx2 pair, the others none. */
  static const struct {
    const char *shape, *mc1, *mc2;
  } shapes[] = {{"128x256b", "", ""},
                {"4x256b", "", ""},
                {"128x128b", "", ""},
                {"64x128b", "warpx2::02_13", "warpx2::01_23"},
                {"32x128b", "warpx4", "warpx4"}};
  int known = 0, mc_ok = 0;
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
    if (strcmp(shapes[i].shape, shape) == 0) {
      known = 1;
      mc_ok = strcmp(mc, shapes[i].mc1) == 0 || strcmp(mc, shapes[i].mc2) == 0;
    }
  if (!known) {
    tc_error(g, e, "shape must be one of 128x256b, 4x256b, 128x128b, 64x128b, 32x128b, got \"%s\"",
             shape);
    return;
  }
  if (!mc_ok) {
    tc_error(g, e,
             "shape %s does not take multicast \"%s\" (32x128b needs warpx4, 64x128b "
             "warpx2::02_13 or warpx2::01_23, the others none)",
             shape, mc);
    return;
  }
  if (*dc && strcmp(dc, "b8x16.b4x16_p64") != 0 && strcmp(dc, "b8x16.b6x16_p32") != 0) {
    tc_error(g, e,
             "decompress must be \"\", \"b8x16.b4x16_p64\" or \"b8x16.b6x16_p32\", got \"%s\"", dc);
    return;
  }
  if (!tcgen05_arch_ok(g, e)) return;
  asm_stmt s = {cuda_sb(g), cuda_sb(g), cuda_sb(g), 0};
  uint32_t t = in_tmem(g, &s, taddr, cuda_arg(e, 6, "row"), cuda_arg(e, 7, "col"));
  uint32_t d = in_u64(g, &s, desc);
  tx_sb_printf(&s.text, "tcgen05.cp.cta_group::%lld.%s%s%s%s%s [%%%u], %%%u;", (long long)cg, shape,
               *mc ? "." : "", mc, *dc ? "." : "", dc, t, d);
  asm_finish(g, &s, sb);
}

/* ---- data types and MMA kinds ------------------------------------------------------- */

typedef enum ptx_dt {
  PDT_NONE,
  PDT_S8,
  PDT_U8,
  PDT_S32,
  PDT_E2M1,
  PDT_E2M3,
  PDT_E3M2,
  PDT_E4M3,
  PDT_E4M3FNUZ,
  PDT_E5M2,
  PDT_UE8M0,
  PDT_F16,
  PDT_BF16,
  PDT_F32,
  PDT_TF32,
} ptx_dt;

/* The dtype spellings TVM's PTX data type parser accepts for these. */
static const struct {
  const char *name;
  ptx_dt t;
} DT_NAMES[] = {
    {"int8", PDT_S8},
    {".s8", PDT_S8},
    {"uint8", PDT_U8},
    {".u8", PDT_U8},
    {"int32", PDT_S32},
    {".s32", PDT_S32},
    {"e2m1", PDT_E2M1},
    {".e2m1", PDT_E2M1},
    {"float4_e2m1fn", PDT_E2M1},
    {"e2m3", PDT_E2M3},
    {".e2m3", PDT_E2M3},
    {"float6_e2m3fn", PDT_E2M3},
    {"e3m2", PDT_E3M2},
    {".e3m2", PDT_E3M2},
    {"float6_e3m2fn", PDT_E3M2},
    {"e4m3", PDT_E4M3},
    {".e4m3", PDT_E4M3},
    {"float8_e4m3fn", PDT_E4M3},
    {"float8_e4m3fnuz", PDT_E4M3FNUZ},
    {"float8_e4m3b11fnuz", PDT_E4M3FNUZ},
    {"e5m2", PDT_E5M2},
    {".e5m2", PDT_E5M2},
    {"float8_e5m2", PDT_E5M2},
    {"float8_e5m2fn", PDT_E5M2},
    {"float8_e5m2fnuz", PDT_E5M2},
    {"ue8m0", PDT_UE8M0},
    {".ue8m0", PDT_UE8M0},
    {"float8_e8m0fnu", PDT_UE8M0},
    {"float16", PDT_F16},
    {"fp16", PDT_F16},
    {".f16", PDT_F16},
    {"bfloat16", PDT_BF16},
    {"bf16", PDT_BF16},
    {"float32", PDT_F32},
    {"fp32", PDT_F32},
    {".f32", PDT_F32},
    {"tf32", PDT_TF32},
};

static ptx_dt dt_parse(const char *s) {
  for (size_t i = 0; s && i < sizeof DT_NAMES / sizeof *DT_NAMES; i++)
    if (strcmp(DT_NAMES[i].name, s) == 0) return DT_NAMES[i].t;
  return PDT_NONE;
}

typedef enum mma_kind {
  KIND_NONE,
  KIND_F16,
  KIND_TF32,
  KIND_F8F6F4,
  KIND_I8,
  KIND_MXF4,
  KIND_MXF4NVF4,
  KIND_MXF8F6F4,
} mma_kind;

static const char *const KIND_NAMES[] = {"?",  "f16",  "tf32",     "f8f6f4",
                                         "i8", "mxf4", "mxf4nvf4", "mxf8f6f4"};

static int is_f8f6f4(ptx_dt t) {
  return t == PDT_E4M3 || t == PDT_E4M3FNUZ || t == PDT_E5M2 || t == PDT_E2M3 || t == PDT_E3M2 ||
         t == PDT_E2M1;
}

static int is_f16ish(ptx_dt t) {
  return t == PDT_F16 || t == PDT_BF16;
}

static int is_i8(ptx_dt t) {
  return t == PDT_S8 || t == PDT_U8;
}

/* The kind of tcgen05.mma for D, A, B (and the scale factor types when
 * block scaled), by TVM's rules in TVM's order: the first match wins. */
static mma_kind mma_kind_of(ptx_dt d, ptx_dt a, ptx_dt b, ptx_dt sfa, ptx_dt sfb, int scaled) {
  if (!scaled) {
    if (d == PDT_F16 && a == PDT_F16 && b == PDT_F16) return KIND_F16;
    if (d == PDT_F32 && is_f16ish(a) && is_f16ish(b)) return KIND_F16;
    if (d == PDT_F32 && a == PDT_TF32 && b == PDT_TF32) return KIND_TF32;
    if (d == PDT_S32 && is_i8(a) && is_i8(b)) return KIND_I8;
    if ((d == PDT_F32 || d == PDT_F16) && is_f8f6f4(a) && is_f8f6f4(b)) return KIND_F8F6F4;
    return KIND_NONE;
  }
  if (d != PDT_F32) return KIND_NONE;
  int e8 = sfa == PDT_UE8M0 && sfb == PDT_UE8M0;
  int e4 = (sfa == PDT_E4M3 || sfa == PDT_E4M3FNUZ) && (sfb == PDT_E4M3 || sfb == PDT_E4M3FNUZ);
  if (a == PDT_E2M1 && b == PDT_E2M1 && e8) return KIND_MXF4;
  if (a == PDT_E2M1 && b == PDT_E2M1 && e4) return KIND_MXF4NVF4;
  if (is_f8f6f4(a) && is_f8f6f4(b) && e8) return KIND_MXF8F6F4;
  return KIND_NONE;
}

/* The 3-bit A/B format code of the instruction descriptor (PTX ISA,
 * tcgen05 "Instruction descriptor" tables), -1 when none. */
static int ab_format(ptx_dt t) {
  switch (t) {
  case PDT_F16:
  case PDT_E4M3:
  case PDT_E4M3FNUZ:
  case PDT_U8:
    return 0;
  case PDT_BF16:
  case PDT_E5M2:
  case PDT_S8:
    return 1;
  case PDT_TF32:
    return 2;
  case PDT_E2M3:
    return 3;
  case PDT_E3M2:
    return 4;
  case PDT_E2M1:
    return 5;
  case PDT_NONE:
  case PDT_S32:
  case PDT_UE8M0:
  case PDT_F32:
    return -1;
  }
  return -1;
}

/* The D format: F16 = 0, F32 = 1, S32 = 2. */
static int d_format(ptx_dt t) {
  return t == PDT_F16 ? 0 : t == PDT_F32 ? 1 : t == PDT_S32 ? 2 : -1;
}

/* Operand types that an MN-major (transposed) shared memory read allows
 * (TVM's table for dense tcgen05.mma). */
static int transposable(ptx_dt t, int scaled) {
  if (t == PDT_E4M3 || t == PDT_E4M3FNUZ || t == PDT_E5M2) return 1;
  return !scaled && (is_i8(t) || is_f16ish(t) || t == PDT_TF32);
}

/* M, N, K against TVM's shape table for the kind and CTA group (PTX ISA,
 * tcgen05 "Matrix shape"); dense mxf4 kinds also take K = 96, which the ISA
 * allows on sm_103a only. Returns an error message or NULL. *k96 is set for
 * that form. */
static const char *mma_shape_error(mma_kind kind, int64_t cg, int64_t m, int64_t n, int64_t k,
                                   int sparse, int *k96) {
  int mx = kind == KIND_MXF4 || kind == KIND_MXF4NVF4 || kind == KIND_MXF8F6F4;
  int64_t n_step = 0;
  int extra_n = 0;
  *k96 = 0;
  if (mx) {
    if (cg == 1 && m == 128) n_step = 8;
    if (cg == 2 && (m == 128 || m == 256)) n_step = 16;
    if (cg == 2 && sparse && m != 256) n_step = 0;
  } else if (kind == KIND_I8) {
    if (cg == 1 && (m == 64 || m == 128)) n_step = 16;
    if (cg == 2 && (m == 128 || m == 256)) n_step = 32;
    extra_n = cg == 1 && (n == 8 || n == 24);
  } else {
    if (cg == 1 && m == 64) n_step = 8;
    if (cg == 1 && m == 128) n_step = 16;
    if (cg == 2 && (m == 128 || m == 256)) n_step = 32;
  }
  if (!n_step) return "M is not valid for this kind and CTA group";
  if (!extra_n && !(n >= n_step && n <= 256 && n % n_step == 0))
    return "N is not valid for this kind, CTA group and M";
  static const int64_t k_dense[] = {0, 16, 8, 32, 32, 64, 64, 32};
  int64_t want = k_dense[kind] * (sparse ? 2 : 1);
  if (k == want) return NULL;
  if (!sparse && k == 96 && (kind == KIND_MXF4 || kind == KIND_MXF4NVF4) &&
      ((cg == 1 && m == 128) || (cg == 2 && m == 256))) {
    *k96 = 1;
    return NULL;
  }
  return "K is not valid for this kind";
}

/* ---- descriptors --------------------------------------------------------------------- */

/* The instruction descriptor operands, as TVM names them. */
typedef struct idesc_args {
  const char *d, *a, *b, *sfa, *sfb;
  int64_t m, n, k, trans_a, trans_b, cg, neg_a, neg_b, sat_d, sparse;
} idesc_args;

/* The 32-bit instruction descriptor (PTX ISA tcgen05 "Instruction
 * descriptor" tables; the sparsity selector, scale factor IDs and the .ws
 * shift are 0, as TVM leaves them). 0 after a located error. */
static int idesc_value(cuda_cg *g, const tx_expr *e, const idesc_args *x, int scaled,
                       uint32_t *out) {
  ptx_dt d = dt_parse(x->d), a = dt_parse(x->a), b = dt_parse(x->b);
  ptx_dt sfa = scaled ? dt_parse(x->sfa) : PDT_NONE, sfb = scaled ? dt_parse(x->sfb) : PDT_NONE;
  mma_kind kind = mma_kind_of(d, a, b, sfa, sfb, scaled);
  if (kind == KIND_NONE) {
    if (scaled)
      tc_error(g, e,
               "no block-scaled tcgen05.mma kind for d=%s, a=%s, b=%s, sfa=%s, sfb=%s (mxf8f6f4, "
               "mxf4, mxf4nvf4)",
               x->d, x->a, x->b, x->sfa, x->sfb);
    else
      tc_error(g, e, "no tcgen05.mma kind for d=%s, a=%s, b=%s (f16, tf32, f8f6f4, i8)", x->d, x->a,
               x->b);
    return 0;
  }
  int k96 = 0;
  const char *why = mma_shape_error(kind, x->cg, x->m, x->n, x->k, x->sparse != 0, &k96);
  if (why) {
    tc_error(g, e, "%s (kind %s, cta_group %lld, sparse %d: M=%lld, N=%lld, K=%lld)", why,
             KIND_NAMES[kind], (long long)x->cg, x->sparse != 0, (long long)x->m, (long long)x->n,
             (long long)x->k);
    return 0;
  }
  if (k96 && !tx_target_has(g->target, TX_FEAT_MMA_K96)) {
    tc_error(g, e, "K=96 is supported on sm_103a only; the target is %s", target_arch(g));
    return 0;
  }
  if ((x->trans_a && !transposable(a, scaled)) || (x->trans_b && !transposable(b, scaled))) {
    tc_error(g, e, "%s cannot be transposed (MN-major)",
             x->trans_a && !transposable(a, scaled) ? x->a : x->b);
    return 0;
  }
  uint32_t v = (uint32_t)(x->sparse != 0) << 2;
  v |= (uint32_t)(x->neg_a != 0) << 13 | (uint32_t)(x->neg_b != 0) << 14;
  v |= (uint32_t)(x->trans_a != 0) << 15 | (uint32_t)(x->trans_b != 0) << 16;
  v |= (uint32_t)(x->n >> 3) << 17;
  if (!scaled) {
    if ((x->neg_a || x->neg_b) && kind == KIND_I8) {
      tc_error(g, e, "kind i8 cannot negate A or B");
      return 0;
    }
    if (x->sat_d && kind != KIND_I8) {
      tc_error(g, e, "sat_d is for kind i8 only, not %s", KIND_NAMES[kind]);
      return 0;
    }
    v |= (uint32_t)(x->sat_d != 0) << 3;
    v |= (uint32_t)d_format(d) << 4;
    v |= (uint32_t)ab_format(a) << 7 | (uint32_t)ab_format(b) << 10;
    v |= (uint32_t)(x->m >> 4) << 24;
  } else {
    /* mxf4 kinds have a 1-bit E2M1 code (1) for A and B. */
    int mxf4 = kind == KIND_MXF4 || kind == KIND_MXF4NVF4;
    v |= (uint32_t)(mxf4 ? 1 : ab_format(a)) << 7 | (uint32_t)(mxf4 ? 1 : ab_format(b)) << 10;
    v |= (uint32_t)(sfa == PDT_UE8M0) << 23; /* scale type: UE8M0 = 1, UE4M3 = 0 */
    v |= (uint32_t)(x->m >> 7) << 27;
    v |= (uint32_t)k96 << 31;
  }
  *out = v;
  return 1;
}

/* encode_instr_descriptor(desc, d_dtype, a_dtype, b_dtype, M, N, K,
 * trans_a, trans_b, n_cta_groups=1, neg_a=False, neg_b=False, sat_d=False,
 * is_sparse=False) and the block-scaled variant (desc, d_dtype, a_dtype,
 * b_dtype, sfa_dtype, sfb_dtype, sfa_tmem_addr, sfb_tmem_addr, M, N, K,
 * trans_a, trans_b, n_cta_groups=1, neg_a=False, neg_b=False,
 * is_sparse=False): *(uint32*)desc = the descriptor, a constant. The scale
 * factor TMEM addresses are not part of it (TVM leaves the IDs 0). */
static void emit_idesc_common(cuda_cg *g, const tx_expr *e, tx_strbuf *sb, int scaled) {
  static const char *const dense_kw[] = {
      "d_dtype", "a_dtype",      "b_dtype", "M",     "N",     "K",        "trans_a",
      "trans_b", "n_cta_groups", "neg_a",   "neg_b", "sat_d", "is_sparse"};
  static const char *const scaled_kw[] = {
      "d_dtype",       "a_dtype", "b_dtype", "sfa_dtype", "sfb_dtype", "sfa_tmem_addr",
      "sfb_tmem_addr", "M",       "N",       "K",         "trans_a",   "trans_b",
      "n_cta_groups",  "neg_a",   "neg_b",   "is_sparse"};
  const char *const *kw = scaled ? scaled_kw : dense_kw;
  uint32_t nkw = scaled ? 16 : 13;
  const tx_expr *arg[16];
  for (uint32_t i = 0; i < nkw; i++)
    arg[i] = cuda_arg(e, i + 1, kw[i]);
  const tx_expr *desc = need(g, e, cuda_arg(e, 0, NULL), "desc");
  if (!desc || !pointer_ok(g, e, desc, "desc")) return;
  idesc_args x = {0};
  uint32_t i = 0;
  if (!(x.d = str_arg(g, e, arg[i], kw[i], 1, NULL))) return;
  i++;
  if (!(x.a = str_arg(g, e, arg[i], kw[i], 1, NULL))) return;
  i++;
  if (!(x.b = str_arg(g, e, arg[i], kw[i], 1, NULL))) return;
  i++;
  if (scaled) {
    if (!(x.sfa = str_arg(g, e, arg[i], kw[i], 1, NULL))) return;
    i++;
    if (!(x.sfb = str_arg(g, e, arg[i], kw[i], 1, NULL))) return;
    i++;
    if (!need(g, e, arg[i], kw[i]) || !need(g, e, arg[i + 1], kw[i + 1])) return;
    i += 2;
  }
  int64_t *ints[] = {&x.m,  &x.n,     &x.k,     &x.trans_a, &x.trans_b,
                     &x.cg, &x.neg_a, &x.neg_b, &x.sat_d,   &x.sparse};
  for (uint32_t j = 0; j < 10; j++) {
    if (scaled && ints[j] == &x.sat_d) continue;
    int required = j < 5; /* M, N, K, trans_a, trans_b */
    int64_t dflt = ints[j] == &x.cg ? 1 : 0;
    if (!int_arg(g, e, arg[i], kw[i], required, dflt, ints[j])) return;
    i++;
  }
  if (x.cg != 1 && x.cg != 2) {
    tc_error(g, e, "n_cta_groups must be 1 or 2, got %lld", (long long)x.cg);
    return;
  }
  uint32_t v;
  if (!idesc_value(g, e, &x, scaled, &v)) return;
  tx_sb_puts(sb, "(*(unsigned*)(");
  cuda_emit_expr(g, desc, sb);
  tx_sb_printf(sb, ") = 0x%08Xu)", (unsigned)v);
}

CUDA_CALL_VARIANT(emit_idesc, emit_idesc_common, 0)
CUDA_CALL_VARIANT(emit_idesc_scaled, emit_idesc_common, 1)

/* encode_matrix_descriptor(desc, addr, ldo, sdo, swizzle): *(uint64*)desc =
 * the shared memory descriptor of the matrix at addr. ldo and sdo are the
 * encoded (>> 4) byte offsets; swizzle is TVM's enum (0 none, 1 32B, 2 64B,
 * 3 128B, 4 128B with 32B atoms). */
static void emit_mdesc(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const tx_expr *desc = need(g, e, cuda_arg(e, 0, "desc"), "desc");
  const tx_expr *addr = need(g, e, cuda_arg(e, 1, "addr"), "addr");
  const tx_expr *ldo = need(g, e, cuda_arg(e, 2, "ldo"), "ldo");
  const tx_expr *sdo = need(g, e, cuda_arg(e, 3, "sdo"), "sdo");
  const tx_expr *swz = need(g, e, cuda_arg(e, 4, "swizzle"), "swizzle");
  if (!desc || !addr || !ldo || !sdo || !swz || !pointer_ok(g, e, desc, "desc")) return;
  int64_t v;
  if (cuda_int_arg(swz, &v) && (v < 0 || v > 4)) {
    tc_error(g, e,
             "swizzle must be 0 (none), 1 (32B), 2 (64B), 3 (128B) or 4 (128B, 32B atoms), "
             "got %lld",
             (long long)v);
    return;
  }
  cuda_need_helper(g, H_TCGEN05_SMEM_DESC);
  tx_sb_puts(sb, "(*(unsigned long long*)(");
  cuda_emit_expr(g, desc, sb);
  tx_sb_puts(sb, ") = tx_tcgen05_smem_desc(");
  cuda_smem_addr(g, addr, sb);
  const tx_expr *rest[] = {ldo, sdo, swz};
  for (int i = 0; i < 3; i++) {
    tx_sb_puts(sb, ", (unsigned)(");
    cuda_emit_expr(g, rest[i], sb);
    tx_sb_putc(sb, ')');
  }
  tx_sb_puts(sb, "))");
}

/* ---- mma -------------------------------------------------------------------------- */

typedef struct mma_form {
  const char *d_dt, *a_dt, *b_dt, *sfa_dt, *sfb_dt;
  const tx_expr *d, *a, *b, *sp, *sfa, *sfb, *idesc, *enable, *pred;
  const tx_expr *masks[8];
  uint32_t nmasks;
  int64_t use_a_tmem, cg, scale;
} mma_form;

/* Dense mma / mma.sp. Printed form (and TVM's older source form): d_dtype,
 * a_dtype, b_dtype, d, a, b, [sp,] idesc, use_a_tmem, cta_group,
 * enable_input_d, scale_input_d, *disable_output_lane[, pred], all
 * positional (the trailing ones may be keywords or absent). Source form:
 * d, a, b, [sp,] idesc, *disable_output_lane, then keywords. */
static int mma_dense_args(cuda_cg *g, const tx_expr *e, int sparse, mma_form *f) {
  uint32_t n = cuda_npos(e), ops = sparse ? 5 : 4;
  int printed = n > 0 && e->ops[0]->kind == EXPR_STRING;
  const tx_expr *dt[3], *uat, *cg, *en, *sc;
  uint32_t lanes0, nextra;
  if (printed) {
    for (int i = 0; i < 3; i++)
      dt[i] = e->ops[i];
    f->d = cuda_arg(e, 3, NULL);
    f->a = cuda_arg(e, 4, NULL);
    f->b = cuda_arg(e, 5, NULL);
    f->sp = sparse ? cuda_arg(e, 6, NULL) : NULL;
    uint32_t at = 3 + ops;
    f->idesc = cuda_arg(e, at - 1, NULL);
    uat = cuda_arg(e, at, "use_a_tmem");
    cg = cuda_arg(e, at + 1, "cta_group");
    en = cuda_arg(e, at + 2, "enable_input_d");
    sc = cuda_arg(e, at + 3, "scale_input_d");
    lanes0 = at + 4;
  } else {
    static const char *const names[] = {"d_dtype", "a_dtype", "b_dtype"};
    for (int i = 0; i < 3; i++)
      dt[i] = cuda_kwarg(e, names[i]);
    f->d = cuda_arg(e, 0, NULL);
    f->a = cuda_arg(e, 1, NULL);
    f->b = cuda_arg(e, 2, NULL);
    f->sp = sparse ? cuda_arg(e, 3, NULL) : NULL;
    f->idesc = cuda_arg(e, ops - 1, NULL);
    uat = cuda_kwarg(e, "use_a_tmem");
    cg = cuda_kwarg(e, "cta_group");
    en = cuda_kwarg(e, "enable_input_d");
    sc = cuda_kwarg(e, "scale_input_d");
    lanes0 = ops;
  }
  f->pred = sparse ? NULL : cuda_kwarg(e, "pred");
  if (!(f->d_dt = str_arg(g, e, dt[0], "d_dtype", 1, NULL)) ||
      !(f->a_dt = str_arg(g, e, dt[1], "a_dtype", 1, NULL)) ||
      !(f->b_dt = str_arg(g, e, dt[2], "b_dtype", 1, NULL)) || !need(g, e, f->d, "d_tmem_addr") ||
      !need(g, e, f->a, "a_operand") || !need(g, e, f->b, "b_desc") ||
      (sparse && !need(g, e, f->sp, "sp_tmem_addr")) || !need(g, e, f->idesc, "i_desc") ||
      !int_arg(g, e, uat, "use_a_tmem", 1, 0, &f->use_a_tmem) ||
      !cta_group_arg(g, e, cg, "cta_group", &f->cg) ||
      !int_arg(g, e, sc, "scale_input_d", 0, 0, &f->scale))
    return 0;
  f->enable = en;
  uint32_t want = f->cg == 2 ? 8 : 4;
  nextra = n > lanes0 ? n - lanes0 : 0;
  if (nextra == want + 1 && printed && !sparse && !f->pred) {
    f->pred = e->ops[n - 1]; /* the printed form's trailing predicate */
    nextra--;
  }
  if (nextra != 0 && nextra != want) {
    tc_error(g, e, "cta_group %lld takes %u disable_output_lane masks, got %u", (long long)f->cg,
             want, nextra);
    return 0;
  }
  f->nmasks = nextra ? want : 0;
  for (uint32_t i = 0; i < f->nmasks; i++)
    f->masks[i] = e->ops[lanes0 + i];
  return 1;
}

/* Block-scaled mma / mma.sp. Printed (and older source) form: d_dtype,
 * a_dtype, b_dtype, sfa_dtype, sfb_dtype, d, a, b, sfa, sfb, [sp,] idesc,
 * use_a_tmem, cta_group, enable_input_d. Source form: d, a, b, sfa, sfb,
 * [sp,] idesc, then keywords. */
static int mma_scaled_args(cuda_cg *g, const tx_expr *e, int sparse, mma_form *f) {
  uint32_t n = cuda_npos(e), ops = sparse ? 7 : 6;
  int printed = n > 0 && e->ops[0]->kind == EXPR_STRING;
  static const char *const names[] = {"d_dtype", "a_dtype", "b_dtype", "sfa_dtype", "sfb_dtype"};
  const tx_expr *dt[5], *uat, *cg, *en;
  uint32_t base = printed ? 5 : 0;
  for (int i = 0; i < 5; i++)
    dt[i] = printed ? e->ops[i] : cuda_kwarg(e, names[i]);
  f->d = cuda_arg(e, base, NULL);
  f->a = cuda_arg(e, base + 1, NULL);
  f->b = cuda_arg(e, base + 2, NULL);
  f->sfa = cuda_arg(e, base + 3, NULL);
  f->sfb = cuda_arg(e, base + 4, NULL);
  f->sp = sparse ? cuda_arg(e, base + 5, NULL) : NULL;
  f->idesc = cuda_arg(e, base + ops - 1, NULL);
  if (printed) {
    uat = cuda_arg(e, base + ops, "use_a_tmem");
    cg = cuda_arg(e, base + ops + 1, "cta_group");
    en = cuda_arg(e, base + ops + 2, "enable_input_d");
  } else {
    uat = cuda_kwarg(e, "use_a_tmem");
    cg = cuda_kwarg(e, "cta_group");
    en = cuda_kwarg(e, "enable_input_d");
  }
  uint32_t used = printed ? base + ops + 3 : ops;
  if (n > used) {
    tc_error(g, e, "too many positional arguments (%u)", n);
    return 0;
  }
  const char **out[] = {&f->d_dt, &f->a_dt, &f->b_dt, &f->sfa_dt, &f->sfb_dt};
  for (int i = 0; i < 5; i++)
    if (!(*out[i] = str_arg(g, e, dt[i], names[i], 1, NULL))) return 0;
  if (!need(g, e, f->d, "d_tmem_addr") || !need(g, e, f->a, "a_operand") ||
      !need(g, e, f->b, "b_desc") || !need(g, e, f->sfa, "sfa_tmem_addr") ||
      !need(g, e, f->sfb, "sfb_tmem_addr") || (sparse && !need(g, e, f->sp, "sp_tmem_addr")) ||
      !need(g, e, f->idesc, "i_desc") || !int_arg(g, e, uat, "use_a_tmem", 1, 0, &f->use_a_tmem) ||
      !cta_group_arg(g, e, cg, "cta_group", &f->cg))
    return 0;
  f->enable = en;
  return 1;
}

/* The asm of any tcgen05.mma form (PTX ISA tcgen05.mma syntax):
 *   [d], a, b, [[sp],] idesc, {masks}, enable{, scale}       dense
 *   [d], a, b, [[sp],] idesc, [sfa], [sfb], enable           block scaled
 * a is [a] when it lives in tensor memory, else a 64-bit descriptor;
 * enable_input_d (D = A*B + D when nonzero) becomes a predicate. */
static void emit_mma_common(cuda_cg *g, const tx_expr *e, tx_strbuf *sb, int sparse, int scaled) {
  mma_form f = {0};
  if (!(scaled ? mma_scaled_args(g, e, sparse, &f) : mma_dense_args(g, e, sparse, &f))) return;
  ptx_dt d = dt_parse(f.d_dt), a = dt_parse(f.a_dt), b = dt_parse(f.b_dt);
  ptx_dt sfa = scaled ? dt_parse(f.sfa_dt) : PDT_NONE, sfb = scaled ? dt_parse(f.sfb_dt) : PDT_NONE;
  mma_kind kind = mma_kind_of(d, a, b, sfa, sfb, scaled);
  if (kind == KIND_NONE) {
    if (scaled)
      tc_error(g, e, "no block-scaled kind for d=%s, a=%s, b=%s, sfa=%s, sfb=%s", f.d_dt, f.a_dt,
               f.b_dt, f.sfa_dt, f.sfb_dt);
    else
      tc_error(g, e, "no kind for d=%s, a=%s, b=%s", f.d_dt, f.a_dt, f.b_dt);
    return;
  }
  if (f.scale < 0 || f.scale > 15) {
    tc_error(g, e, "scale_input_d must be in [0, 15], got %lld", (long long)f.scale);
    return;
  }
  if (f.scale && kind != KIND_F16 && kind != KIND_TF32) {
    tc_error(g, e, "scale_input_d is for kinds f16 and tf32 only, not %s", KIND_NAMES[kind]);
    return;
  }
  const tx_expr *tmem[] = {f.d, f.use_a_tmem ? f.a : NULL, f.sp, f.sfa, f.sfb};
  static const char *const tmem_names[] = {"d_tmem_addr", "a_operand", "sp_tmem_addr",
                                           "sfa_tmem_addr", "sfb_tmem_addr"};
  for (int i = 0; i < 5; i++)
    if (tmem[i] && !tmem_value_ok(g, e, tmem[i], tmem_names[i])) return;
  if (!tcgen05_arch_ok(g, e)) return;
  /* The scale vector size of the block-scaled kinds (TVM's table). */
  int vec = kind == KIND_MXF8F6F4 ? 1 : kind == KIND_MXF4 ? 2 : 4;

  asm_stmt s = {cuda_sb(g), cuda_sb(g), cuda_sb(g), 0};
  uint32_t od = in_u32(g, &s, f.d);
  uint32_t oa = f.use_a_tmem ? in_u32(g, &s, f.a) : in_u64(g, &s, f.a);
  uint32_t ob = in_u64(g, &s, f.b);
  uint32_t osp = f.sp ? in_u32(g, &s, f.sp) : 0;
  uint32_t oi = in_u32(g, &s, f.idesc);
  uint32_t oen, osfa = 0, osfb = 0, om = 0, op = 0;
  if (f.enable) {
    oen = in_u32(g, &s, f.enable);
  } else { /* TVM's default: accumulate */
    tx_sb_puts(next_in(&s), "\"r\"(1u)");
    oen = s.n++;
  }
  if (scaled) {
    osfa = in_u32(g, &s, f.sfa);
    osfb = in_u32(g, &s, f.sfb);
  }
  for (uint32_t i = 0; i < f.nmasks; i++) {
    uint32_t k = in_u32(g, &s, f.masks[i]);
    if (i == 0) om = k;
  }
  if (f.pred) op = in_u32(g, &s, f.pred);

  tx_sb_puts(&s.text, "{\n\t.reg .pred tx_en;\n\t");
  if (f.pred) tx_sb_puts(&s.text, ".reg .pred tx_issue;\n\t");
  tx_sb_printf(&s.text, "setp.ne.b32 tx_en, %%%u, 0;\n\t", oen);
  if (f.pred) tx_sb_printf(&s.text, "setp.ne.b32 tx_issue, %%%u, 0;\n\t@tx_issue ", op);
  tx_sb_printf(&s.text, "tcgen05.mma%s.cta_group::%lld.kind::%s", f.sp ? ".sp" : "",
               (long long)f.cg, KIND_NAMES[kind]);
  if (scaled) tx_sb_printf(&s.text, ".block_scale.scale_vec::%dX", vec);
  tx_sb_printf(&s.text, " [%%%u], ", od);
  tx_sb_printf(&s.text, f.use_a_tmem ? "[%%%u], %%%u, " : "%%%u, %%%u, ", oa, ob);
  if (f.sp) tx_sb_printf(&s.text, "[%%%u], ", osp);
  tx_sb_printf(&s.text, "%%%u, ", oi);
  if (scaled) {
    tx_sb_printf(&s.text, "[%%%u], [%%%u], tx_en;", osfa, osfb);
  } else {
    if (f.nmasks) {
      tx_sb_putc(&s.text, '{');
      for (uint32_t i = 0; i < f.nmasks; i++)
        tx_sb_printf(&s.text, "%s%%%u", i ? ", " : "", om + i);
      tx_sb_puts(&s.text, "}, ");
    }
    tx_sb_puts(&s.text, "tx_en");
    if (f.scale) tx_sb_printf(&s.text, ", %%%u", in_imm(&s, f.scale));
    tx_sb_putc(&s.text, ';');
  }
  tx_sb_puts(&s.text, "\n\t}");
  asm_finish(g, &s, sb);
}

/* (sparse, scaled) */
CUDA_CALL_VARIANT(emit_mma, emit_mma_common, 0, 0)
CUDA_CALL_VARIANT(emit_mma_sp, emit_mma_common, 1, 0)
CUDA_CALL_VARIANT(emit_mma_scaled, emit_mma_common, 0, 1)
CUDA_CALL_VARIANT(emit_mma_sp_scaled, emit_mma_common, 1, 1)

/* ---- cluster launch control ------------------------------------------------------- */

/* clc_try_cancel(handle, mbar): ask to cancel a not yet launched cluster;
 * the 16-byte response lands at handle (in every CTA of the cluster) and
 * completes 16 bytes of transactions on mbar. */
static void emit_clc_try_cancel(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const tx_expr *handle = need(g, e, cuda_arg(e, 0, NULL), "handle");
  const tx_expr *mbar = need(g, e, cuda_arg(e, 1, NULL), "mbar");
  if (!handle || !mbar || !clc_arch_ok(g, e, 1)) return;
  asm_stmt s = {cuda_sb(g), cuda_sb(g), cuda_sb(g), 0};
  uint32_t h = in_smem(g, &s, handle), m = in_smem(g, &s, mbar);
  tx_sb_printf(&s.text,
               "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes"
               ".multicast::cluster::all.b128 [%%%u], [%%%u];",
               h, m);
  asm_finish(g, &s, sb);
}

/* clc_query_cancel(handle): the first ctaid.x of the cancelled cluster, or
 * 0xFFFFFFFF when the request failed (then a proxy fence, as in TVM). */
static void emit_clc_query_cancel(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  const tx_expr *handle = need(g, e, cuda_arg(e, 0, NULL), "handle");
  if (!handle || !clc_arch_ok(g, e, 0)) return;
  cuda_need_helper(g, H_CLC_QUERY_CANCEL);
  tx_sb_puts(sb, "tx_clc_query_cancel(");
  cuda_smem_addr(g, handle, sb);
  tx_sb_putc(sb, ')');
}

/* ---- the table ---------------------------------------------------------------------- */

/* Sorted by strcmp (tests/unit/test_codegen.c checks). The T.cuda.tcgen05
 * spellings are TVM's newer names of the same descriptor packers. */
static const cuda_call_entry ENTRIES[] = {
    {"T.cuda.tcgen05.encode_instr_descriptor", emit_idesc},
    {"T.cuda.tcgen05.encode_instr_descriptor_block_scaled", emit_idesc_scaled},
    {"T.cuda.tcgen05.encode_matrix_descriptor", emit_mdesc},
    {"T.ptx.clc_query_cancel", emit_clc_query_cancel},
    {"T.ptx.clc_try_cancel", emit_clc_try_cancel},
    {"T.ptx.tcgen05.alloc", emit_alloc},
    {"T.ptx.tcgen05.commit", emit_commit},
    {"T.ptx.tcgen05.cp", emit_cp},
    {"T.ptx.tcgen05.dealloc", emit_dealloc},
    {"T.ptx.tcgen05.encode_instr_descriptor", emit_idesc},
    {"T.ptx.tcgen05.encode_instr_descriptor_block_scaled", emit_idesc_scaled},
    {"T.ptx.tcgen05.encode_matrix_descriptor", emit_mdesc},
    {"T.ptx.tcgen05.ld", emit_ld},
    {"T.ptx.tcgen05.mma", emit_mma},
    {"T.ptx.tcgen05.mma.block_scale", emit_mma_scaled},
    {"T.ptx.tcgen05.mma.sp", emit_mma_sp},
    {"T.ptx.tcgen05.mma.sp.block_scale", emit_mma_sp_scaled},
    {"T.ptx.tcgen05.relinquish_alloc_permit", emit_relinquish},
    {"T.ptx.tcgen05.shift", emit_shift},
    {"T.ptx.tcgen05.st", emit_st},
};

const cuda_call_table cuda_ptx_tcgen05_calls = {"tcgen05", ENTRIES,
                                                sizeof ENTRIES / sizeof *ENTRIES};
