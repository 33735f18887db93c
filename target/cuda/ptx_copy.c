/*
 * ptx_copy.c - CUDA C for TVM's T.ptx helpers of one family: asynchronous copies: cp.async, bulk
 * copies, TMA tensor copies (cp.async.bulk.tensor.*), tensormap prefetch, the mbarrier forms they
 * complete on, and distributed shared memory addressing (mapa).
 *
 * Each entry follows the operand convention of the TVM helper of the same
 * name (docs/ptx/copy.md lists them); forms not covered are located errors,
 * never guesses. Qualifiers that change the instruction (sizes, cache hints,
 * dimensions, multicast, cta_group, reduction ops) must be literals, because
 * they are spelled into the PTX text; only operands may be expressions.
 *
 * Every instruction is emitted inline as `asm volatile(... : "memory")`:
 * shared-memory operands are 32-bit addresses ("r", a pointer goes through
 * tx_smem_addr, an integer is taken as an address already), global and
 * tensor-map addresses are 64-bit ("l"). Nothing here prints or allocates
 * outside the emitter's string buffers.
 */
#include <stdarg.h>
#include <string.h>

#include "target/cuda/cuda_call.h"

/* ---- an inline-asm statement under construction ---------------------------- */

typedef struct asmb {
  cuda_cg *g;
  tx_strbuf text; /* the PTX template */
  tx_strbuf ins;  /* the input operand list */
  unsigned k;     /* the next operand number */
} asmb;

static void ab_init(asmb *ab, cuda_cg *g, int has_result) {
  memset(ab, 0, sizeof *ab);
  ab->g = g;
  ab->text = ab->ins = cuda_sb(g);
  ab->k = has_result ? 1 : 0;
}

static void ab_free(asmb *ab) {
  tx_sb_free(&ab->text);
  tx_sb_free(&ab->ins);
}

static void ab_text(asmb *ab, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ab_text(asmb *ab, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  tx_sb_puts(&ab->text, buf);
}

/* Opens one operand: `"c"(` with a separator; returns its number. */
static unsigned ab_open(asmb *ab, const char *constraint) {
  if (ab->ins.len) tx_sb_puts(&ab->ins, ", ");
  tx_sb_printf(&ab->ins, "\"%s\"(", constraint);
  return ab->k++;
}

/* An operand `"c"(cast(e))`; cast may be NULL. */
static unsigned ab_expr(asmb *ab, const char *constraint, const char *cast, const tx_expr *e) {
  cuda_asm_operand(ab->g, &ab->ins, constraint, cast, e);
  return ab->k++;
}

/* An operand from C text. */
static unsigned ab_raw(asmb *ab, const char *constraint, const char *ctext) {
  unsigned k = ab_open(ab, constraint);
  tx_sb_printf(&ab->ins, "%s)", ctext);
  return k;
}

/* A 32-bit shared-window address: a pointer is converted, an integer is one. */
static unsigned ab_smem(asmb *ab, const tx_expr *e) {
  unsigned k = ab_open(ab, "r");
  cuda_smem_addr(ab->g, e, &ab->ins);
  tx_sb_putc(&ab->ins, ')');
  return k;
}

/* A 64-bit generic or global address (a pointer or an integer). */
static unsigned ab_gaddr(asmb *ab, const tx_expr *e) {
  return ab_expr(ab, "l", "(unsigned long long)", e);
}

static unsigned ab_u32(asmb *ab, const tx_expr *e) {
  return ab_expr(ab, "r", "(unsigned)", e);
}

static unsigned ab_s32(asmb *ab, const tx_expr *e) {
  return ab_expr(ab, "r", "(int)", e);
}

/* `asm volatile("text" :: ins : "memory")`. */
static void ab_stmt(asmb *ab, tx_strbuf *sb) {
  if (ab->text.failed || ab->ins.failed) {
    ab->g->nomem = 1;
    return;
  }
  cuda_asm_stmt(sb, &ab->text, &ab->ins);
}

/* The statement, then the builder freed. */
static void ab_finish(asmb *ab, tx_strbuf *sb) {
  ab_stmt(ab, sb);
  ab_free(ab);
}

/* A value: `([&]() { ctype tx_r; asm volatile("text" : "=c"(tx_r) : ins : "memory"); return
 * back; }())`, the template's %0 being the result; then the builder freed. */
static void ab_finish_value(asmb *ab, const char *ctype, const char *constraint, const char *back,
                            tx_strbuf *sb) {
  if (ab->text.failed || ab->ins.failed) {
    ab->g->nomem = 1;
  } else {
    tx_sb_printf(sb, "([&]() { %s tx_r; asm volatile(", ctype);
    cuda_put_cstring(sb, ab->text.data, ab->text.len);
    tx_sb_printf(sb, " : \"=%s\"(tx_r) : %s : \"memory\"); return %s; }())", constraint,
                 cuda_sb_text(ab->g, &ab->ins), back);
  }
  ab_free(ab);
}

/* ---- argument checks --------------------------------------------------------- */

static const char *op_of(const tx_expr *e) {
  return e->u.call.op;
}

/* A literal integer argument, or a located error naming `what`. */
static int lit_int(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char *what, int64_t *v) {
  if (cuda_int_arg(a, v)) return 1;
  cuda_error(g, a ? a->span : e->span, "%s: %s must be an integer literal", op_of(e), what);
  return 0;
}

/* A string literal argument ("" when absent), or a located error. */
static const char *lit_str(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char *what) {
  if (!a) return "";
  const char *s = cuda_str_arg(a);
  if (!s) cuda_error(g, a->span, "%s: %s must be a string literal", op_of(e), what);
  return s;
}

/* Does the call carry only the keywords in `allowed` (comma-separated)?
 * The frontend already checks names against the registry; this catches
 * ones a form does not use. */
static int no_kw_but(cuda_cg *g, const tx_expr *e, const char *allowed) {
  if (!e->u.call.kw.names) return 1;
  size_t al = strlen(allowed);
  for (uint32_t i = e->u.call.kw.npos; i < e->nops; i++) {
    const char *kw = e->u.call.kw.names[i - e->u.call.kw.npos];
    size_t kl = strlen(kw);
    int ok = 0;
    for (const char *p = allowed; p < allowed + al;) {
      const char *c = strchr(p, ',');
      size_t n = c ? (size_t)(c - p) : strlen(p);
      if (n == kl && strncmp(p, kw, n) == 0) ok = 1;
      p += n + (c ? 1 : 0);
    }
    if (!ok) {
      cuda_error(g, e->ops[i]->span, "%s: keyword '%s' is not valid in this form", op_of(e), kw);
      return 0;
    }
  }
  return 1;
}

/* ---- cache policies ------------------------------------------------------------ */

/* TVM's named L2 cache hints and the 64-bit policies they stand for (the
 * createpolicy encodings CUTLASS uses for TMA: CacheHintSm90). */
static const struct {
  const char *name, *value;
} CACHE_HINTS[] = {
    {"evict_normal", "0x1000000000000000ULL"},
    {"evict_first", "0x12F0000000000000ULL"},
    {"evict_last", "0x14F0000000000000ULL"},
};

typedef struct cache_pol {
  int has;              /* emit .L2::cache_hint and the policy operand */
  const tx_expr *expr;  /* the policy as an expression, or */
  const char *constant; /* a named hint's value */
} cache_pol;

/* The user form: cache_hint="evict_last" (or "") and/or cache_policy=expr. */
static int user_cache(cuda_cg *g, const tx_expr *e, const tx_expr *hint, const tx_expr *policy,
                      cache_pol *out) {
  memset(out, 0, sizeof *out);
  const char *h = lit_str(g, e, hint, "cache_hint");
  if (!h) return 0;
  if (policy) {
    if (*h) {
      cuda_error(g, policy->span, "%s: give cache_hint or cache_policy, not both", op_of(e));
      return 0;
    }
    out->has = 1;
    out->expr = policy;
    return 1;
  }
  if (!*h) return 1;
  for (size_t i = 0; i < sizeof CACHE_HINTS / sizeof *CACHE_HINTS; i++)
    if (strcmp(h, CACHE_HINTS[i].name) == 0) {
      out->has = 1;
      out->constant = CACHE_HINTS[i].value;
      return 1;
    }
  cuda_error(g, hint->span,
             "%s: unknown cache_hint \"%s\" (expected \"\", \"evict_normal\", \"evict_first\" "
             "or \"evict_last\")",
             op_of(e), h);
  return 0;
}

/* TVM's printed form: the policy expression, then has_cache_policy (0/1). */
static int printed_cache(cuda_cg *g, const tx_expr *e, const tx_expr *policy, const tx_expr *has,
                         cache_pol *out) {
  memset(out, 0, sizeof *out);
  int64_t h = 0;
  if (!lit_int(g, e, has, "has_cache_policy", &h)) return 0;
  out->has = h != 0;
  out->expr = policy;
  return 1;
}

static unsigned ab_cache(asmb *ab, const cache_pol *c) {
  if (c->constant) return ab_raw(ab, "l", c->constant);
  return ab_expr(ab, "l", "(unsigned long long)", c->expr);
}

/* `, %policy` when the copy carries a cache policy. */
static void ab_cache_opt(asmb *ab, const cache_pol *c) {
  if (c->has) ab_text(ab, ", %%%u", ab_cache(ab, c));
}

/* Ends an instruction whose last operand is the optional cache policy, and
 * emits the statement. */
static void ab_finish_cached(asmb *ab, const cache_pol *c, tx_strbuf *sb) {
  ab_cache_opt(ab, c);
  ab_text(ab, ";");
  ab_finish(ab, sb);
}

/* The keyword form of the non-tensor copies: cache_hint= / cache_policy=. */
static int keyword_cache(cuda_cg *g, const tx_expr *e, cache_pol *out) {
  return user_cache(g, e, cuda_kwarg(e, "cache_hint"), cuda_kwarg(e, "cache_policy"), out);
}

/* ---- cp.async -------------------------------------------------------------------- */

/* The element type behind a pointer, as TVM scales offsets of the legacy
 * forms by it (bytes for untyped pointers). */
static tx_dtype ptr_elem(cuda_cg *g, const tx_expr *p) {
  tx_dtype t;
  return cuda_ptr_elem(g, p, &t) ? t : tx_dt(DT_UINT, 8, 1);
}

/* `((char*)(ptr) + (off) * bytes)` into `out`, `off` counting elements of
 * `elem` (a byte count for packed sub-byte elements, which must be whole). */
static void byte_ptr(cuda_cg *g, const tx_expr *ptr, const tx_expr *off, tx_dtype elem,
                     tx_strbuf *out) {
  int64_t bytes = tx_cuda_elem_bytes(elem);
  tx_sb_puts(out, "((char*)(");
  cuda_emit_expr(g, ptr, out);
  tx_sb_puts(out, ") + ");
  if (tx_cuda_is_packed_elem(elem)) {
    cuda_emit_packed_offset(g, elem, off, 1, g->stmt_span, out);
    tx_sb_putc(out, ')');
    return;
  }
  tx_sb_putc(out, '(');
  cuda_emit_expr(g, off, out);
  tx_sb_putc(out, ')');
  if (bytes != 1) tx_sb_printf(out, " * %lld", (long long)bytes);
  tx_sb_putc(out, ')');
}

/* The shared address of `ptr` plus `off` elements of `bytes` (legacy forms). */
static unsigned ab_smem_at(asmb *ab, const tx_expr *ptr, const tx_expr *off, tx_dtype elem) {
  unsigned k = ab_open(ab, "r");
  cuda_need_helper(ab->g, H_SMEM_ADDR);
  tx_sb_puts(&ab->ins, "tx_smem_addr(");
  byte_ptr(ab->g, ptr, off, elem, &ab->ins);
  tx_sb_puts(&ab->ins, "))");
  return k;
}

/* The global address of `ptr` plus `off` elements of `bytes` (legacy forms). */
static unsigned ab_gaddr_at(asmb *ab, const tx_expr *ptr, const tx_expr *off, tx_dtype elem) {
  unsigned k = ab_open(ab, "l");
  byte_ptr(ab->g, ptr, off, elem, &ab->ins);
  tx_sb_putc(&ab->ins, ')');
  return k;
}

static int cp_size_ok(cuda_cg *g, const tx_expr *e, const tx_expr *a, int64_t *size) {
  if (!lit_int(g, e, a, "cp_size", size)) return 0;
  if (*size != 4 && *size != 8 && *size != 16) {
    cuda_error(g, a->span, "%s: cp_size must be 4, 8 or 16 bytes, got %lld", op_of(e),
               (long long)*size);
    return 0;
  }
  return 1;
}

/* The legacy forms (dst, dst_off, src, src_off, cp_size[, predicate]):
 * offsets counting elements of `elem` (NULL: each pointer's element type).
 * A predicate other than 1 skips the copy and zero-fills the destination. */
static void emit_cp_async_legacy(cuda_cg *g, const tx_expr *e, const tx_expr *const *a,
                                 const tx_expr *pred, const tx_dtype *elem, tx_strbuf *sb) {
  int64_t size = 0;
  if (!cp_size_ok(g, e, a[4], &size)) return;
  tx_dtype de = elem ? *elem : ptr_elem(g, a[0]);
  tx_dtype se = elem ? *elem : ptr_elem(g, a[2]);
  asmb ab;
  ab_init(&ab, g, 0);
  const char *cop = size == 16 ? "cg" : "ca";
  unsigned d = ab_smem_at(&ab, a[0], a[1], de), s = ab_gaddr_at(&ab, a[2], a[3], se);
  if (!pred) {
    ab_text(&ab, "cp.async.%s.shared.global [%%%u], [%%%u], %lld;", cop, d, s, (long long)size);
  } else {
    /* ptxas wants a register, not an immediate, as the stored zero. */
    unsigned p = ab_u32(&ab, pred), z = ab_raw(&ab, "r", "0u");
    ab_text(&ab,
            "{\n\t.reg .pred tx_p;\n\tsetp.eq.u32 tx_p, %%%u, 1;\n\t"
            "@tx_p cp.async.%s.shared.global [%%%u], [%%%u], %lld;\n\t@!tx_p ",
            p, cop, d, s, (long long)size);
    if (size == 16)
      ab_text(&ab, "st.shared.v4.u32 [%%%u], {%%%u, %%%u, %%%u, %%%u};", d, z, z, z, z);
    else if (size == 8)
      ab_text(&ab, "st.shared.v2.u32 [%%%u], {%%%u, %%%u};", d, z, z);
    else
      ab_text(&ab, "st.shared.u32 [%%%u], %%%u;", d, z);
    ab_text(&ab, "\n\t}");
  }
  ab_finish(&ab, sb);
}

/* The element type string `a` into *t; 0 after a located error. */
static int dtype_arg(cuda_cg *g, const tx_expr *e, const tx_expr *a, tx_dtype *t) {
  const char *s = cuda_str_arg(a);
  if (!s || !tx_dtype_parse(s, strlen(s), t) || t->code == DT_VOID || t->code == DT_HANDLE) {
    cuda_error(g, a ? a->span : e->span, "%s: dtype must be an element type string", op_of(e));
    return 0;
  }
  return 1;
}

/* T.ptx.cp_async: TVM's (dst, src, cp_size, cache_hint=, cache_policy=,
 * prefetch_size=, predicate=, fill_mode=), or the legacy element-offset forms
 * that TVM's InjectPTXAsyncCopy prints: ("dtype", dst, dst_off, src,
 * src_off, cp_size), (dst, dst_off, src, src_off, cp_size[, predicate]). */
static void emit_cp_async(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  uint32_t n = cuda_npos(e);
  const tx_expr *dt = cuda_kwarg(e, "dtype");
  if (n >= 5) {
    if (!no_kw_but(g, e, "dtype")) return;
    const tx_expr *const *a = e->ops;
    if (n == 6 && cuda_str_arg(a[0])) {
      emit_cp_async_legacy(g, e, a + 1, NULL, NULL, sb);
    } else if (n == 5) {
      emit_cp_async_legacy(g, e, a, NULL, NULL, sb);
    } else if (n == 6 && !dt) {
      emit_cp_async_legacy(g, e, a, a[5], NULL, sb);
    } else {
      cuda_unsupported(g, e,
                       "expected (dst, src, cp_size, ...) or the legacy "
                       "(\"dtype\", dst, dst_off, src, src_off, cp_size)");
    }
    return;
  }
  if (n != 3) {
    cuda_unsupported(g, e,
                     "expected (dst, src, cp_size, ...) or the legacy "
                     "(\"dtype\", dst, dst_off, src, src_off, cp_size)");
    return;
  }
  if (!no_kw_but(g, e, "cache_hint,cache_policy,prefetch_size,predicate,fill_mode")) return;
  int64_t size = 0, prefetch = -1, predv = 0;
  cache_pol cache;
  if (!cp_size_ok(g, e, e->ops[2], &size) || !keyword_cache(g, e, &cache)) return;
  const tx_expr *pf = cuda_kwarg(e, "prefetch_size");
  if (pf && !lit_int(g, e, pf, "prefetch_size", &prefetch)) return;
  if (prefetch != -1 && prefetch != 64 && prefetch != 128 && prefetch != 256) {
    cuda_error(g, pf->span, "%s: prefetch_size must be -1, 64, 128 or 256", op_of(e));
    return;
  }
  const tx_expr *pred = cuda_kwarg(e, "predicate");
  if (pred && cuda_int_arg(pred, &predv) && predv == -1) pred = NULL; /* TVM's "none" */
  const char *fill = lit_str(g, e, cuda_kwarg(e, "fill_mode"), "fill_mode");
  if (!fill) return;
  int zero = strcmp(fill, "zero") == 0;
  if (*fill && !zero) {
    cuda_error(g, cuda_kwarg(e, "fill_mode")->span, "%s: fill_mode must be \"\" or \"zero\"",
               op_of(e));
    return;
  }
  asmb ab;
  ab_init(&ab, g, 0);
  unsigned d = ab_smem(&ab, e->ops[0]), s = ab_gaddr(&ab, e->ops[1]);
  char mods[64] = "";
  if (cache.has) strcat(mods, ".L2::cache_hint");
  if (prefetch != -1)
    snprintf(mods + strlen(mods), sizeof mods - strlen(mods), ".L2::%lldB", (long long)prefetch);
  const char *cop = size == 16 ? "cg" : "ca";
  char instr[128];
  snprintf(instr, sizeof instr, "cp.async.%s.shared.global%s [%%%u], [%%%u], %lld", cop, mods, d, s,
           (long long)size);
  if (pred && !zero) {
    /* TVM's setp + @p wrapper: the copy runs when the predicate is 1 and
     * leaves the destination untouched otherwise. */
    unsigned p = ab_u32(&ab, pred);
    unsigned c = cache.has ? ab_cache(&ab, &cache) : 0;
    ab_text(&ab, "{\n\t.reg .pred tx_p;\n\tsetp.eq.u32 tx_p, %%%u, 1;\n\t@tx_p %s", p, instr);
    if (cache.has) ab_text(&ab, ", %%%u", c);
    ab_text(&ab, ";\n\t}");
    ab_finish(&ab, sb);
    return;
  }
  if (zero) {
    /* src-size = predicate != 0 ? cp_size : 0: the bytes not read are zeros. */
    unsigned ss;
    if (pred) {
      tx_strbuf t = cuda_sb(g);
      tx_sb_puts(&t, "(unsigned)((");
      cuda_emit_expr(g, pred, &t);
      tx_sb_printf(&t, ") != 0 ? %lld : 0)", (long long)size);
      ss = ab_raw(&ab, "r", cuda_sb_text(g, &t));
      tx_sb_free(&t);
    } else {
      char t[32];
      snprintf(t, sizeof t, "%lld", (long long)size);
      ss = ab_raw(&ab, "n", t);
    }
    ab_text(&ab, "%s, %%%u", instr, ss);
  } else {
    ab_text(&ab, "%s", instr);
  }
  ab_finish_cached(&ab, &cache, sb);
}

/* T.ptx.cp_async.legacy(dst, dst_off, src, src_off, cp_size[, dtype=]):
 * offsets in elements of `dtype` (bytes when absent), plain cp.async. */
static void emit_cp_async_legacy_op(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  uint32_t n = cuda_npos(e);
  const tx_expr *dt = cuda_kwarg(e, "dtype");
  if (!no_kw_but(g, e, "dtype")) return;
  if (n == 6 && !dt) {
    tx_dtype t;
    if (dtype_arg(g, e, e->ops[0], &t)) emit_cp_async_legacy(g, e, e->ops + 1, NULL, &t, sb);
    return;
  }
  if (n != 5) {
    cuda_unsupported(g, e, "expected (dst, dst_off, src, src_off, cp_size[, dtype=])");
    return;
  }
  tx_dtype t = tx_dt(DT_UINT, 8, 1); /* no dtype: byte offsets */
  if (!dt || dtype_arg(g, e, dt, &t)) emit_cp_async_legacy(g, e, e->ops, NULL, &t, sb);
}

/* T.s_tir.cp_async_raw(elem_dtype, dst, dst_off, src, src_off, cp_size): the
 * printed form of the copy TVM's InjectPTXAsyncCopy builds. As TVM's codegen
 * does, each offset counts elements of its own pointer's element type (an
 * access pointer's dtype); elem_dtype is only the call's type. */
static void emit_s_tir_cp_async_raw(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (cuda_npos(e) != 6 || !cuda_str_arg(e->ops[0])) {
    cuda_unsupported(g, e, "expected (\"dtype\", dst, dst_offset, src, src_offset, cp_size)");
    return;
  }
  emit_cp_async_legacy(g, e, e->ops + 1, NULL, NULL, sb);
}

/* A barrier operand of the helpers whose TVM ancestors took a barrier id:
 * an integer literal here would be an id, which has no meaning in TIRx. */
static int barrier_operand_ok(cuda_cg *g, const tx_expr *e, const tx_expr *bar) {
  if (bar->kind != EXPR_INT) return 1;
  cuda_error(g, bar->span,
             "%s: the barrier must be a shared-memory pointer (T.address_of(bar[0])) or a 32-bit "
             "shared address, not a literal barrier id",
             op_of(e));
  return 0;
}

/* T.ptx.cp_async.mbarrier.arrive(bar). */
static void emit_cp_async_mbar_arrive(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 1, 1) || !barrier_operand_ok(g, e, e->ops[0])) return;
  asmb ab;
  ab_init(&ab, g, 0);
  unsigned b = ab_smem(&ab, e->ops[0]);
  ab_text(&ab, "cp.async.mbarrier.arrive.shared.b64 [%%%u];", b);
  ab_finish(&ab, sb);
}

/* ---- bulk copies ------------------------------------------------------------------- */

/* T.ptx.cp_async.bulk([dtype,] shared_ptr, shared_off, global_ptr, global_off,
 * bytes, barrier): element offsets of each pointer's type. */
static void emit_bulk_legacy(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  uint32_t n = cuda_npos(e);
  if (!no_kw_but(g, e, "dtype")) return;
  if (n != 6 && n != 7) {
    cuda_unsupported(g, e,
                     "expected ([\"dtype\",] shared_ptr, shared_off, global_ptr, global_off, "
                     "bytes, barrier)");
    return;
  }
  const tx_expr *const *a = e->ops + (n - 6);
  if (!barrier_operand_ok(g, e, a[5])) return;
  asmb ab;
  ab_init(&ab, g, 0);
  unsigned d = ab_smem_at(&ab, a[0], a[1], ptr_elem(g, a[0]));
  unsigned s = ab_gaddr_at(&ab, a[2], a[3], ptr_elem(g, a[2]));
  unsigned bytes = ab_u32(&ab, a[4]), bar = ab_smem(&ab, a[5]);
  ab_text(&ab,
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%%%u], [%%%u], "
          "%%%u, [%%%u];",
          d, s, bytes, bar);
  ab_finish(&ab, sb);
}

/* The operand count and keywords every bulk copy checks first: `n`
 * positional operands, cache_hint=/cache_policy=, and the 0/1 literal
 * keyword `flag_kw` (*flag 0 when absent). */
static int bulk_head(cuda_cg *g, const tx_expr *e, uint32_t n, const char *flag_kw,
                     cache_pol *cache, int64_t *flag) {
  const tx_expr *fa = cuda_kwarg(e, flag_kw);
  *flag = 0;
  return cuda_nargs_ok(g, e, n, n) && keyword_cache(g, e, cache) &&
         (!fa || lit_int(g, e, fa, flag_kw, flag));
}

/* T.ptx.cp_async_bulk_g2s_cta(dst, src, num_bytes, mbar, cache_hint=,
 * cache_policy=, ignore_oob=, ignore_bytes_left=, ignore_bytes_right=). */
static void emit_bulk_g2s_cta(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  cache_pol cache;
  int64_t oob = 0;
  if (!bulk_head(g, e, 4, "ignore_oob", &cache, &oob)) return;
  const tx_expr *left = cuda_kwarg(e, "ignore_bytes_left"),
                *right = cuda_kwarg(e, "ignore_bytes_right");
  if (!oob && (left || right)) {
    cuda_error(g, (left ? left : right)->span, "%s: ignore_bytes_left/right need ignore_oob=True",
               op_of(e));
    return;
  }
  asmb ab;
  ab_init(&ab, g, 0);
  unsigned d = ab_smem(&ab, e->ops[0]), s = ab_gaddr(&ab, e->ops[1]), nb = ab_u32(&ab, e->ops[2]);
  ab_text(&ab,
          "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes%s%s [%%%u], [%%%u], %%%u",
          cache.has ? ".L2::cache_hint" : "", oob ? ".ignore_oob" : "", d, s, nb);
  if (oob) {
    unsigned l = left ? ab_u32(&ab, left) : ab_raw(&ab, "n", "0");
    unsigned r = right ? ab_u32(&ab, right) : ab_raw(&ab, "n", "0");
    ab_text(&ab, ", %%%u, %%%u", l, r);
  }
  ab_text(&ab, ", [%%%u]", ab_smem(&ab, e->ops[3]));
  ab_finish_cached(&ab, &cache, sb);
}

/* T.ptx.cp_async_bulk_g2s_cluster(dst, src, num_bytes, mbar, cache_hint=,
 * cache_policy=, multicast=, cta_mask=). */
static void emit_bulk_g2s_cluster(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  cache_pol cache;
  int64_t mc = 0;
  const tx_expr *mask = cuda_kwarg(e, "cta_mask");
  if (!bulk_head(g, e, 4, "multicast", &cache, &mc)) return;
  if (mc && !mask) {
    cuda_error(g, e->span, "%s: multicast=True needs cta_mask=", op_of(e));
    return;
  }
  asmb ab;
  ab_init(&ab, g, 0);
  unsigned d = ab_smem(&ab, e->ops[0]), s = ab_gaddr(&ab, e->ops[1]), nb = ab_u32(&ab, e->ops[2]);
  unsigned bar = ab_smem(&ab, e->ops[3]);
  ab_text(&ab,
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes%s%s [%%%u], [%%%u], "
          "%%%u, [%%%u]",
          mc ? ".multicast::cluster" : "", cache.has ? ".L2::cache_hint" : "", d, s, nb, bar);
  if (mc) ab_text(&ab, ", %%%u", ab_expr(&ab, "h", "(unsigned short)", mask));
  ab_finish_cached(&ab, &cache, sb);
}

/* T.ptx.cp_async_bulk_s2g(dst, src, num_bytes, cache_hint=, cache_policy=,
 * cp_mask=, byte_mask=). */
static void emit_bulk_s2g(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  cache_pol cache;
  int64_t cpm = 0;
  const tx_expr *bm = cuda_kwarg(e, "byte_mask");
  if (!bulk_head(g, e, 3, "cp_mask", &cache, &cpm)) return;
  if (cpm && !bm) {
    cuda_error(g, cuda_kwarg(e, "cp_mask")->span, "%s: cp_mask=True needs byte_mask=", op_of(e));
    return;
  }
  asmb ab;
  ab_init(&ab, g, 0);
  unsigned d = ab_gaddr(&ab, e->ops[0]), s = ab_smem(&ab, e->ops[1]), nb = ab_u32(&ab, e->ops[2]);
  ab_text(&ab, "cp.async.bulk.global.shared::cta.bulk_group%s%s [%%%u], [%%%u], %%%u",
          cache.has ? ".L2::cache_hint" : "", cpm ? ".cp_mask" : "", d, s, nb);
  ab_cache_opt(&ab, &cache);
  if (cpm) ab_text(&ab, ", %%%u", ab_expr(&ab, "h", "(unsigned short)", bm)); /* a .b16 mask */
  ab_text(&ab, ";");
  ab_finish(&ab, sb);
}

/* T.ptx.cp_async.bulk.s2c / T.ptx.cp_async_bulk_s2s_cluster(dst, src,
 * num_bytes, mbar): dst and mbar are shared::cluster addresses (integers,
 * e.g. from T.ptx.map_shared_rank; a pointer is taken in the own CTA). */
static void emit_bulk_s2s_cluster(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 4, 4)) return;
  asmb ab;
  ab_init(&ab, g, 0);
  unsigned d = ab_smem(&ab, e->ops[0]), s = ab_smem(&ab, e->ops[1]), nb = ab_u32(&ab, e->ops[2]);
  unsigned bar = ab_smem(&ab, e->ops[3]);
  ab_text(&ab,
          "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%%%u], "
          "[%%%u], %%%u, [%%%u];",
          d, s, nb, bar);
  ab_finish(&ab, sb);
}

/* ---- TMA tensor copies ---------------------------------------------------------------- */

static int sm_of(const cuda_cg *g) {
  return g->target ? g->target->sm : 0;
}

/* The tensor dimension: a literal 1..5. */
static int tma_dim(cuda_cg *g, const tx_expr *e, const tx_expr *a, int *dim) {
  int64_t d = 0;
  if (!lit_int(g, e, a, "dim", &d)) return 0;
  if (d < 1 || d > 5) {
    cuda_error(g, a->span, "%s: dim must be 1..5, got %lld", op_of(e), (long long)d);
    return 0;
  }
  *dim = (int)d;
  return 1;
}

/* The cache operands at `at` and the coordinates after them, in either
 * of TVM's forms: user (cache_hint string, coords...) or printed (policy,
 * has_cache_policy, [flag,] coords...). `flag_ok`: a leading 0/1 flag before
 * the coordinates is allowed (g2c's bar-is-address flag); *flag gets it. */
static int tma_tail(cuda_cg *g, const tx_expr *e, uint32_t at, int ncoords, int flag_ok,
                    cache_pol *cache, uint32_t *coords, int64_t *flag) {
  uint32_t n = cuda_npos(e);
  *flag = 0;
  if (at >= n) {
    cuda_error(g, e->span, "%s: missing the cache hint operand", op_of(e));
    return 0;
  }
  uint32_t first;
  if (cuda_str_arg(e->ops[at])) {
    if (!user_cache(g, e, e->ops[at], cuda_kwarg(e, "cache_policy"), cache)) return 0;
    first = at + 1;
  } else {
    if (cuda_kwarg(e, "cache_policy")) {
      cuda_error(g, cuda_kwarg(e, "cache_policy")->span,
                 "%s: cache_policy= goes with a cache_hint string", op_of(e));
      return 0;
    }
    if (at + 1 >= n || !printed_cache(g, e, e->ops[at], e->ops[at + 1], cache)) {
      if (at + 1 >= n) cuda_error(g, e->span, "%s: missing has_cache_policy", op_of(e));
      return 0;
    }
    first = at + 2;
    if (flag_ok && n - first == (uint32_t)ncoords + 1) {
      if (!lit_int(g, e, e->ops[first], "the barrier-address flag", flag)) return 0;
      first++;
    }
  }
  if (n - first != (uint32_t)ncoords) {
    cuda_error(g, e->span, "%s: expected %d coordinates, got %u", op_of(e), ncoords, n - first);
    return 0;
  }
  *coords = first;
  return 1;
}

/* `[%t, {%c0, ...}]` with the coordinates as 32-bit operands. */
static void tma_operand(asmb *ab, const tx_expr *e, unsigned tmap, uint32_t first, int ncoords) {
  ab_text(ab, "[%%%u, {", tmap);
  for (int i = 0; i < ncoords; i++)
    ab_text(ab, "%s%%%u", i ? ", " : "", ab_s32(ab, e->ops[first + (uint32_t)i]));
  ab_text(ab, "}]");
}

/* g2c and its variants: (dim, dst, bar, tensormap, cta_mask, cta_group,
 * cache..., coords...). `gather4`: .tile::gather4 with 5 coordinates (a
 * column and four rows). The _bar_addr variants take the barrier as a
 * 32-bit address, which the operand rule already covers. */
static void emit_tma_g2c_common(cuda_cg *g, const tx_expr *e, int gather4, tx_strbuf *sb) {
  int dim = 0;
  if (!no_kw_but(g, e, "cache_policy")) return;
  if (cuda_npos(e) < 7) {
    cuda_unsupported(g, e,
                     "expected (dim, dst, bar, tensormap, cta_mask, cta_group, cache_hint, "
                     "coords...)");
    return;
  }
  if (!tma_dim(g, e, e->ops[0], &dim)) return;
  int ncoords = gather4 ? 5 : dim;
  if (gather4 && dim != 2) {
    cuda_error(g, e->ops[0]->span, "%s: tile::gather4 copies are 2-D (dim=2), got dim=%d", op_of(e),
               dim);
    return;
  }
  int64_t cta_group = 0, mask = 0, flag = 0;
  if (!lit_int(g, e, e->ops[5], "cta_group", &cta_group)) return;
  if (cta_group != 1 && cta_group != 2 && cta_group != -1) {
    cuda_error(g, e->ops[5]->span, "%s: cta_group must be 1 or 2", op_of(e));
    return;
  }
  if ((cta_group == 2 || gather4) && sm_of(g) < 100) {
    cuda_error(g, e->span, "%s: %s needs sm_100a or newer (target is %s)", op_of(e),
               gather4 ? "tile::gather4" : "cta_group=2",
               g->target && g->target->arch ? g->target->arch : "unknown");
    return;
  }
  cache_pol cache;
  uint32_t first = 0;
  if (!tma_tail(g, e, 6, ncoords, 1, &cache, &first, &flag)) return;
  /* TVM multicasts unless the mask is a literal with at most one bit set. */
  const tx_expr *ma = e->ops[4];
  int multicast = !(cuda_int_arg(ma, &mask) && __builtin_popcountll((unsigned long long)mask) <= 1);
  char cg_mod[24] = "";
  if (cta_group == 2 || (cta_group == 1 && sm_of(g) >= 100))
    snprintf(cg_mod, sizeof cg_mod, ".cta_group::%lld", (long long)cta_group);
  asmb ab;
  ab_init(&ab, g, 0);
  unsigned d = ab_smem(&ab, e->ops[1]), tm = ab_gaddr(&ab, e->ops[3]);
  unsigned bar = ab_smem(&ab, e->ops[2]);
  ab_text(&ab,
          "cp.async.bulk.tensor.%dd.shared::cluster.global%s.mbarrier::complete_tx::bytes%s%s%s "
          "[%%%u], ",
          dim, gather4 ? ".tile::gather4" : "", multicast ? ".multicast::cluster" : "", cg_mod,
          cache.has ? ".L2::cache_hint" : "", d);
  tma_operand(&ab, e, tm, first, ncoords);
  ab_text(&ab, ", [%%%u]", bar);
  if (multicast) ab_text(&ab, ", %%%u", ab_expr(&ab, "h", "(unsigned short)", ma));
  if (cache.has) ab_text(&ab, ", %%%u", ab_cache(&ab, &cache));
  ab_text(&ab, ";");
  ab_stmt(&ab, sb);
  ab_free(&ab);
}

static void emit_tma_g2c(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  emit_tma_g2c_common(g, e, 0, sb);
}

static void emit_tma_g2c_gather4(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  emit_tma_g2c_common(g, e, 1, sb);
}

/* g2c_prefetch(dim, tensormap, cache..., coords...): an L2 prefetch. */
static void emit_tma_prefetch(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  int dim = 0;
  int64_t flag = 0;
  uint32_t first = 0;
  cache_pol cache;
  if (!no_kw_but(g, e, "cache_policy") || !tma_dim(g, e, e->ops[0], &dim) ||
      !tma_tail(g, e, 2, dim, 0, &cache, &first, &flag))
    return;
  asmb ab;
  ab_init(&ab, g, 0);
  unsigned tm = ab_gaddr(&ab, e->ops[1]);
  ab_text(&ab, "cp.async.bulk.prefetch.tensor.%dd.L2.global.tile%s ", dim,
          cache.has ? ".L2::cache_hint" : "");
  tma_operand(&ab, e, tm, first, dim);
  if (cache.has) ab_text(&ab, ", %%%u", ab_cache(&ab, &cache));
  ab_text(&ab, ";");
  ab_stmt(&ab, sb);
  ab_free(&ab);
}

/* s2g(dim, src, tensormap, cache..., coords...): shared::cta -> global,
 * completing in a bulk group. */
static void emit_tma_s2g(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  int dim = 0;
  int64_t flag = 0;
  uint32_t first = 0;
  cache_pol cache;
  if (!no_kw_but(g, e, "cache_policy") || !tma_dim(g, e, e->ops[0], &dim) ||
      !tma_tail(g, e, 3, dim, 0, &cache, &first, &flag))
    return;
  asmb ab;
  ab_init(&ab, g, 0);
  unsigned tm = ab_gaddr(&ab, e->ops[2]), s = ab_smem(&ab, e->ops[1]);
  ab_text(&ab, "cp.async.bulk.tensor.%dd.global.shared::cta.tile.bulk_group%s ", dim,
          cache.has ? ".L2::cache_hint" : "");
  tma_operand(&ab, e, tm, first, dim);
  ab_text(&ab, ", [%%%u]", s);
  if (cache.has) ab_text(&ab, ", %%%u", ab_cache(&ab, &cache));
  ab_text(&ab, ";");
  ab_stmt(&ab, sb);
  ab_free(&ab);
}

static const char *const RED_OPS[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor"};

/* s2g_reduce(dim, src, tensormap, cache_hint, red_op, coords...) or the
 * printed (dim, src, tensormap, policy, has_cache_policy, red_op, coords...). */
static void emit_tma_s2g_reduce(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  int dim = 0;
  uint32_t n = cuda_npos(e);
  if (!no_kw_but(g, e, "cache_policy") || !tma_dim(g, e, e->ops[0], &dim)) return;
  cache_pol cache;
  uint32_t red_at;
  if (cuda_str_arg(e->ops[3])) {
    if (!user_cache(g, e, e->ops[3], cuda_kwarg(e, "cache_policy"), &cache)) return;
    red_at = 4;
  } else {
    if (n < 6 || !printed_cache(g, e, e->ops[3], e->ops[4], &cache)) {
      if (n < 6)
        cuda_unsupported(g, e, "expected (dim, src, tensormap, cache_hint, red_op, coords...)");
      return;
    }
    red_at = 5;
  }
  const char *red = cuda_str_arg(e->ops[red_at]);
  int red_ok = 0;
  for (size_t i = 0; red && i < sizeof RED_OPS / sizeof *RED_OPS; i++)
    red_ok |= strcmp(red, RED_OPS[i]) == 0;
  if (!red_ok) {
    cuda_error(g, e->ops[red_at]->span,
               "%s: red_op must be one of \"add\", \"min\", \"max\", \"inc\", \"dec\", \"and\", "
               "\"or\", \"xor\"",
               op_of(e));
    return;
  }
  uint32_t first = red_at + 1;
  if (n - first != (uint32_t)dim) {
    cuda_error(g, e->span, "%s: expected %d coordinates, got %u", op_of(e), dim, n - first);
    return;
  }
  asmb ab;
  ab_init(&ab, g, 0);
  unsigned tm = ab_gaddr(&ab, e->ops[2]), s = ab_smem(&ab, e->ops[1]);
  ab_text(&ab, "cp.reduce.async.bulk.tensor.%dd.global.shared::cta.%s.tile.bulk_group%s ", dim, red,
          cache.has ? ".L2::cache_hint" : "");
  tma_operand(&ab, e, tm, first, dim);
  ab_text(&ab, ", [%%%u]", s);
  if (cache.has) ab_text(&ab, ", %%%u", ab_cache(&ab, &cache));
  ab_text(&ab, ";");
  ab_stmt(&ab, sb);
  ab_free(&ab);
}

/* T.ptx.prefetch_tensormap(tensormap, space=""): space "", "const", "param". */
static void emit_prefetch_tensormap(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 1, 2)) return;
  const char *space = lit_str(g, e, cuda_arg(e, 1, "space"), "space");
  if (!space) return;
  if (*space && strcmp(space, "const") != 0 && strcmp(space, "param") != 0) {
    cuda_error(g, cuda_arg(e, 1, "space")->span, "%s: space must be \"\", \"const\" or \"param\"",
               op_of(e));
    return;
  }
  asmb ab;
  ab_init(&ab, g, 0);
  unsigned tm = ab_gaddr(&ab, e->ops[0]);
  ab_text(&ab, "prefetch%s%s.tensormap [%%%u];", *space ? "." : "", space, tm);
  ab_stmt(&ab, sb);
  ab_free(&ab);
}

/* ---- mbarrier forms --------------------------------------------------------------------- */

/* T.ptx.mbarrier.arrive.cluster_count(bar, cta_id, count): an arrival with
 * a count on the barrier at the same offset in CTA cta_id of the cluster
 * (the same text as T.ptx.mbarrier.arrive(bar, cta_id, 1, count)). */
static void emit_mbar_arrive_cluster_count(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 3, 3)) return;
  asmb ab;
  ab_init(&ab, g, 0);
  unsigned b = ab_smem(&ab, e->ops[0]), c = ab_u32(&ab, e->ops[1]), n = ab_u32(&ab, e->ops[2]);
  ab_text(&ab,
          "{\n\t.reg .b32 tx_rem;\n\tmapa.shared::cluster.u32 tx_rem, %%%u, %%%u;\n\t"
          "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [tx_rem], %%%u;\n\t}",
          b, c, n);
  ab_finish(&ab, sb);
}

/* T.ptx.mbarrier.try_wait_acquire_cluster(bar, phase): spin until the phase
 * completes, with cluster-scope acquire (a remote CTA arrived). The label is
 * local to the braces, so several copies in one kernel do not clash. */
static void emit_mbar_wait_acq_cluster(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 2, 2)) return;
  asmb ab;
  ab_init(&ab, g, 0);
  unsigned b = ab_smem(&ab, e->ops[0]), p = ab_u32(&ab, e->ops[1]);
  ab_text(&ab,
          "{\n\t.reg .pred tx_p;\n\tTX_WAIT_AC:\n\t"
          "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 tx_p, [%%%u], %%%u;\n\t"
          "@!tx_p bra TX_WAIT_AC;\n\t}",
          b, p);
  ab_finish(&ab, sb);
}

/* T.ptx.mbarrier.try_wait_once(bar, phase, ticks) -> uint32: one probe
 * with a suspend-time hint; 1 when the phase has completed. */
static void emit_mbar_try_wait_once(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 3, 3)) return;
  asmb ab;
  ab_init(&ab, g, 1);
  unsigned b = ab_smem(&ab, e->ops[0]), p = ab_u32(&ab, e->ops[1]), t = ab_u32(&ab, e->ops[2]);
  ab_text(&ab,
          "{\n\t.reg .pred tx_p;\n\t"
          "mbarrier.try_wait.parity.shared::cta.b64 tx_p, [%%%u], %%%u, %%%u;\n\t"
          "selp.u32 %%0, 1, 0, tx_p;\n\t}",
          b, p, t);
  ab_finish_value(&ab, "unsigned", "r", "tx_r", sb);
}

/* T.ptx.mbarrier_test_wait_parity(bar, phase, sem=, scope=, space=) -> uint32
 * (the printed form passes the three strings positionally). */
static void emit_mbar_test_wait_parity(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 2, 5)) return;
  const char *sem = lit_str(g, e, cuda_arg(e, 2, "sem"), "sem");
  const char *scope = lit_str(g, e, cuda_arg(e, 3, "scope"), "scope");
  const tx_expr *sp = cuda_arg(e, 4, "space");
  const char *space = sp ? lit_str(g, e, sp, "space") : "shared::cta";
  if (!sem || !scope || !space) return;
  if ((*sem && strcmp(sem, "acquire") != 0 && strcmp(sem, "relaxed") != 0) ||
      (*scope && strcmp(scope, "cta") != 0 && strcmp(scope, "cluster") != 0) ||
      (!*sem != !*scope)) {
    cuda_error(g, e->span,
               "%s: sem (\"acquire\"/\"relaxed\") and scope (\"cta\"/\"cluster\") are given "
               "together or not at all",
               op_of(e));
    return;
  }
  if (strcmp(space, "shared") != 0 && strcmp(space, "shared::cta") != 0) {
    cuda_error(g, sp->span, "%s: space must be \"shared\" or \"shared::cta\"", op_of(e));
    return;
  }
  asmb ab;
  ab_init(&ab, g, 1);
  unsigned b = ab_smem(&ab, e->ops[0]), p = ab_u32(&ab, e->ops[1]);
  ab_text(
      &ab,
      "{\n\t.reg .pred tx_p;\n\tmbarrier.test_wait.parity%s%s%s%s.%s.b64 tx_p, [%%%u], %%%u;\n\t"
      "selp.u32 %%0, 1, 0, tx_p;\n\t}",
      *sem ? "." : "", sem, *scope ? "." : "", scope, space, b, p);
  ab_finish_value(&ab, "unsigned", "r", "tx_r", sb);
}

/* ---- distributed shared memory --------------------------------------------------------- */

/* The C type a mapa result is returned as. */
static const char *mapa_ret(const char *rt) {
  if (strcmp(rt, "uint64") == 0) return "tx_r";
  if (strcmp(rt, "int64") == 0) return "(long long)tx_r";
  if (strcmp(rt, "uint32") == 0) return "(unsigned)tx_r";
  if (strcmp(rt, "int32") == 0) return "(int)tx_r";
  if (strcmp(rt, "handle") == 0) return "(void*)tx_r";
  return NULL;
}

/* mapa{.space}.type d, a, rank with a as the pointer or address `a`. */
static void emit_mapa_value(cuda_cg *g, const tx_expr *e, const tx_expr *a, const tx_expr *rank,
                            const char *space, const char *type, const char *rt, tx_strbuf *sb) {
  int u64 = strcmp(type, "u64") == 0;
  if (strcmp(space, "") != 0 && strcmp(space, "shared::cluster") != 0) {
    cuda_error(g, e->span, "%s: space must be \"\" or \"shared::cluster\"", op_of(e));
    return;
  }
  if (!u64 && strcmp(type, "u32") != 0) {
    cuda_error(g, e->span, "%s: ptx_type must be \"u32\" or \"u64\"", op_of(e));
    return;
  }
  if (!*space && !u64) {
    cuda_error(g, e->span,
               "%s: generic addresses are 64-bit: use ptx_type=\"u64\" or "
               "space=\"shared::cluster\"",
               op_of(e));
    return;
  }
  const char *back = mapa_ret(rt);
  if (!back || (!u64 && strcmp(rt, "handle") == 0)) {
    cuda_error(g, e->span, "%s: return_type \"%s\" is not supported here", op_of(e), rt);
    return;
  }
  asmb ab;
  ab_init(&ab, g, 1);
  unsigned ai;
  if (!*space)
    ai = ab_gaddr(&ab, a);
  else if (!u64)
    ai = ab_smem(&ab, a);
  else if (a->dtype.code == DT_HANDLE)
    ai = ab_expr(&ab, "l", "(unsigned long long)__cvta_generic_to_shared", a);
  else
    ai = ab_expr(&ab, "l", "(unsigned long long)", a);
  unsigned r = ab_u32(&ab, rank);
  ab_text(&ab, "mapa%s%s.%s %%0, %%%u, %%%u;", *space ? "." : "", space, type, ai, r);
  ab_finish_value(&ab, u64 ? "unsigned long long" : "unsigned", u64 ? "l" : "r", back, sb);
}

/* T.ptx.mapa(ptr, rank, space="", ptx_type="u64", return_type="uint64"). */
static void emit_mapa(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 2, 5)) return;
  const tx_expr *sp = cuda_arg(e, 2, "space"), *ty = cuda_arg(e, 3, "ptx_type"),
                *rt = cuda_arg(e, 4, "return_type");
  const char *space = lit_str(g, e, sp, "space");
  const char *type = ty ? lit_str(g, e, ty, "ptx_type") : "u64";
  const char *ret = rt ? lit_str(g, e, rt, "return_type") : "uint64";
  if (!space || !type || !ret) return;
  emit_mapa_value(g, e, e->ops[0], e->ops[1], space, type, ret, sb);
}

/* T.ptx.map_shared_rank(ptr, rank): mapa.u64 of a generic address. */
static void emit_map_shared_rank(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 2, 2)) return;
  emit_mapa_value(g, e, e->ops[0], e->ops[1], "", "u64", "uint64", sb);
}

/* T.ptx.mapa.u64(d, a, rank): the table form, writing the 64-bit generic
 * address into d (a scalar or a buffer element). */
static void emit_mapa_u64(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 3, 3)) return;
  const tx_expr *d = e->ops[0];
  if ((d->kind != EXPR_LOAD && d->kind != EXPR_VAR) || d->dtype.bits != 64 || d->dtype.lanes != 1 ||
      (d->dtype.code != DT_UINT && d->dtype.code != DT_INT)) {
    cuda_error(g, d->span, "%s: the destination must be a 64-bit integer scalar or element",
               op_of(e));
    return;
  }
  asmb ab;
  ab_init(&ab, g, 1);
  unsigned a = ab_gaddr(&ab, e->ops[1]), r = ab_u32(&ab, e->ops[2]);
  ab_text(&ab, "mapa.u64 %%0, %%%u, %%%u;", a, r);
  if (ab.text.failed || ab.ins.failed) {
    g->nomem = 1;
    ab_free(&ab);
    return;
  }
  tx_sb_puts(sb, "asm volatile(");
  cuda_put_cstring(sb, ab.text.data, ab.text.len);
  tx_sb_puts(sb, " : \"=l\"(");
  cuda_emit_expr(g, d, sb);
  tx_sb_printf(sb, ") : %s : \"memory\")", cuda_sb_text(g, &ab.ins));
  ab_free(&ab);
}

/* ---- the table ------------------------------------------------------------------------ */

static const cuda_call_entry ENTRIES[] = {
    {"T.ptx.cp_async", emit_cp_async},
    {"T.ptx.cp_async.bulk", emit_bulk_legacy},
    {"T.ptx.cp_async.bulk.s2c", emit_bulk_s2s_cluster},
    {"T.ptx.cp_async.bulk.tensor.g2c", emit_tma_g2c},
    {"T.ptx.cp_async.bulk.tensor.g2c_bar_addr", emit_tma_g2c},
    {"T.ptx.cp_async.bulk.tensor.g2c_prefetch", emit_tma_prefetch},
    {"T.ptx.cp_async.bulk.tensor.g2c_tile_gather4", emit_tma_g2c_gather4},
    {"T.ptx.cp_async.bulk.tensor.g2c_tile_gather4_bar_addr", emit_tma_g2c_gather4},
    {"T.ptx.cp_async.bulk.tensor.s2g", emit_tma_s2g},
    {"T.ptx.cp_async.bulk.tensor.s2g_reduce", emit_tma_s2g_reduce},
    {"T.ptx.cp_async.legacy", emit_cp_async_legacy_op},
    {"T.ptx.cp_async.mbarrier.arrive", emit_cp_async_mbar_arrive},
    {"T.ptx.cp_async_bulk_g2s_cluster", emit_bulk_g2s_cluster},
    {"T.ptx.cp_async_bulk_g2s_cta", emit_bulk_g2s_cta},
    {"T.ptx.cp_async_bulk_s2g", emit_bulk_s2g},
    {"T.ptx.cp_async_bulk_s2s_cluster", emit_bulk_s2s_cluster},
    {"T.ptx.map_shared_rank", emit_map_shared_rank},
    {"T.ptx.mapa", emit_mapa},
    {"T.ptx.mapa.u64", emit_mapa_u64},
    {"T.ptx.mbarrier.arrive.cluster_count", emit_mbar_arrive_cluster_count},
    {"T.ptx.mbarrier.try_wait_acquire_cluster", emit_mbar_wait_acq_cluster},
    {"T.ptx.mbarrier.try_wait_once", emit_mbar_try_wait_once},
    {"T.ptx.mbarrier_test_wait_parity", emit_mbar_test_wait_parity},
    {"T.ptx.prefetch_tensormap", emit_prefetch_tensormap},
    {"T.s_tir.cp_async_raw", emit_s_tir_cp_async_raw},
};

const cuda_call_table cuda_ptx_copy_calls = {"copy", ENTRIES, sizeof ENTRIES / sizeof *ENTRIES};
