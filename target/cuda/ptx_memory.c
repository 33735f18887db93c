/*
 * ptx_memory.c - CUDA C for TVM's scalar T.ptx helpers: loads and stores
 * with memory-order qualifiers (ld, ld_acquire, ld_relaxed, ld_mmio,
 * ld_volatile, ld_global_acquire, ldg32, st, st_relaxed, st_release,
 * st_volatile, st_mmio, st_bulk), atom/red, and the f32/f64 arithmetic and
 * math wrappers (add/sub/mul/fma over f32, f32x2 and f64, add_rn_f32_bf16,
 * max_f32, reduce3_max/min_f32, exp2, rcp, fns_b32, fetch_register).
 *
 * Each entry follows the operand convention of the TVM helper of the same
 * name, both as TVMScript source writes it (keywords) and as TVM's printer
 * writes the call (every attribute positional); docs/ptx/memory.md lists
 * them. Every operand is an inline-asm operand: a value becomes the asm
 * operand of its PTX type, an address a 64-bit generic/global operand or a
 * 32-bit shared one. Forms PTX or TVM do not have (a cache hint on shared
 * memory, .volatile on .local, a 256-bit store on sm_90, an atom.add.b32,
 * ...) are located errors here rather than ptxas errors later, and nothing
 * is guessed: an attribute this file cannot read is an error too.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "target/cuda/cuda_call.h"

enum { NOPOS = UINT32_MAX };

/* ---- diagnostics ---------------------------------------------------------------- */

/* Does `at` carry a span inside the call `e`? A variable's span is where it
 * was bound, so an argument is pointed at only when it was written there. */
static int within(const tx_expr *at, const tx_expr *e) {
  const tirx_span *a = at ? &at->span : NULL, *c = &e->span;
  if (!a || !a->line || a->file != c->file) return 0;
  if (a->line < c->line || (a->line == c->line && a->col < c->col)) return 0;
  return !c->end_line || a->line < c->end_line || (a->line == c->end_line && a->col <= c->end_col);
}

static void bad(cuda_cg *g, const tx_expr *e, const tx_expr *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void bad(cuda_cg *g, const tx_expr *e, const tx_expr *at, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cuda_error(g, within(at, e) ? at->span : e->span, "%s: %s", e->u.call.op, msg);
}

/* Does the target lack what sm_<sm> brought? Then a located error naming
 * `what`. `feature`: the target feature that says so (0: sm alone says). */
static int need_sm_feature(cuda_cg *g, const tx_expr *e, int sm, tx_feature feature,
                           const char *what) {
  return cuda_need_arch(g, e, feature, sm, what, NULL);
}

static int need_sm(cuda_cg *g, const tx_expr *e, int sm, const char *what) {
  return need_sm_feature(g, e, sm, 0, what);
}

/* The cluster scope and the shared::cluster state space need sm_90. */
static int cluster_ok(cuda_cg *g, const tx_expr *e, const char *scope, const char *space) {
  if (strcmp(scope, "cluster") != 0 && strcmp(space, "shared::cluster") != 0) return 1;
  return need_sm_feature(g, e, 90, TX_FEAT_CLUSTERS, "the cluster scope/state space");
}

/* ---- attributes: positional (the printed form) or keyword ------------------------ */

static const tx_expr *attr(const tx_expr *e, uint32_t pos, const char *kw) {
  if (pos != NOPOS && pos < cuda_npos(e)) return e->ops[pos];
  return kw ? cuda_kwarg(e, kw) : NULL;
}

/* A string attribute (`def` when absent; NULL def = required). */
static int str_attr(cuda_cg *g, const tx_expr *e, uint32_t pos, const char *kw, const char *def,
                    const char **out) {
  const tx_expr *a = attr(e, pos, kw);
  if (!a) {
    if (!def) {
      bad(g, e, NULL, "%s is required", kw);
      return 0;
    }
    *out = def;
    return 1;
  }
  if (a->kind != EXPR_STRING) {
    bad(g, e, a, "%s must be a string literal", kw);
    return 0;
  }
  *out = a->u.str.data;
  return 1;
}

/* A boolean attribute written True/False or 0/1. */
static int flag_attr(cuda_cg *g, const tx_expr *e, uint32_t pos, const char *kw, int *out) {
  const tx_expr *a = attr(e, pos, kw);
  int64_t v = 0;
  if (a && !cuda_int_arg(a, &v)) {
    bad(g, e, a, "%s must be a constant (True/False)", kw);
    return 0;
  }
  *out = v != 0;
  return 1;
}

/* A keyword this helper's PTX form has no place for (the registry accepts
 * the whole family's keywords). */
static int no_kw(cuda_cg *g, const tx_expr *e, const char *kw, const char *why) {
  const tx_expr *a = cuda_kwarg(e, kw);
  if (!a) return 1;
  bad(g, e, a, "%s= does not apply: %s", kw, why);
  return 0;
}

/* `v` must be one of `set` (NULL-terminated); the error lists them. */
static int choice(cuda_cg *g, const tx_expr *e, const char *what, const char *v,
                  const char *const *set) {
  if (cuda_str_in(v, set)) return 1;
  char list[256] = "";
  size_t n = 0;
  for (const char *const *s = set; *s && n < sizeof list - 16; s++)
    n += (size_t)snprintf(list + n, sizeof list - n, "%s\"%s\"", s == set ? "" : ", ", *s);
  bad(g, e, NULL, "%s \"%s\" is not one of %s", what, v, list);
  return 0;
}

/* ---- PTX scalar types ---------------------------------------------------------------- */

typedef struct ptx_type {
  const char *name; /* "b32" */
  char kind;        /* 'b', 'u', 's', 'f' */
  int bits;
} ptx_type;

static const ptx_type PTX_TYPES[] = {
    {"b8", 'b', 8},   {"u8", 'u', 8},   {"s8", 's', 8},   {"b16", 'b', 16}, {"u16", 'u', 16},
    {"s16", 's', 16}, {"b32", 'b', 32}, {"u32", 'u', 32}, {"s32", 's', 32}, {"b64", 'b', 64},
    {"u64", 'u', 64}, {"s64", 's', 64}, {"f32", 'f', 32}, {"f64", 'f', 64},
};

/* The 32- and 64-bit types atom, red and TVM's generic st take. */
static const char *const WIDE_TYPES[] = {"b32", "b64", "u32", "u64", "s32",
                                         "s64", "f32", "f64", NULL};
static const char *const ALL_TYPES[] = {"b8",  "u8",  "s8",  "b16", "u16", "s16", "b32", "u32",
                                        "s32", "b64", "u64", "s64", "f32", "f64", NULL};

static const ptx_type *find_type(const char *name) {
  for (size_t i = 0; i < sizeof PTX_TYPES / sizeof *PTX_TYPES; i++)
    if (strcmp(PTX_TYPES[i].name, name) == 0) return &PTX_TYPES[i];
  return NULL;
}

/* The register an operand of this type travels in: 8-bit integers in a
 * 32-bit register (PTX widens/truncates), 16-bit ones in "h". */
static char type_constraint(const ptx_type *t) {
  if (t->kind == 'f') return t->bits == 64 ? 'd' : 'f';
  return t->bits == 64 ? 'l' : t->bits == 16 ? 'h' : 'r';
}

static const char *constraint_ctype(char c, int is_signed) {
  switch (c) {
  case 'l':
    return is_signed ? "long long" : "unsigned long long";
  case 'h':
    return is_signed ? "short" : "unsigned short";
  case 'f':
    return "float";
  case 'd':
    return "double";
  default:
    return is_signed ? "int" : "unsigned int";
  }
}

static int str_type(cuda_cg *g, const tx_expr *e, uint32_t pos, const char *const *allowed,
                    const ptx_type **out) {
  const char *name = NULL;
  if (!str_attr(g, e, pos, "ptx_type", NULL, &name) || !choice(g, e, "ptx_type", name, allowed))
    return 0;
  *out = find_type(name);
  return 1;
}

/* ---- operands ---------------------------------------------------------------------- */

static void put_expr(cuda_cg *g, const tx_expr *a, tx_strbuf *sb) {
  cuda_emit_expr(g, a, sb);
}

static int is_int(tx_dtype t) {
  return (t.code == DT_INT || t.code == DT_UINT || t.code == DT_BOOL) && t.lanes == 1;
}

/* A value operand of PTX type `t` ("r"((unsigned)(x)), "f"(x), ...). The
 * value keeps its kind: an integer for an integer/bit type (converted to
 * the register's C type), a float for a float type; 16-bit floats pass
 * their bits to .b16. Anything else is an error rather than a silent
 * conversion (T.reinterpret says which bits are meant). */
static int value_in(cuda_cg *g, const tx_expr *e, const tx_expr *v, const ptx_type *t,
                    tx_strbuf *ins) {
  tx_dtype d = v->dtype;
  char c = type_constraint(t), buf[32];
  const char *conv = NULL;
  if (d.lanes != 1) {
    bad(g, e, v, "operand of dtype %s is not a scalar", tx_dtype_str(d, buf));
    return 0;
  }
  if (t->kind == 'f' && v->kind == EXPR_INT) {
    conv = t->bits == 64 ? "(double)" : "(float)"; /* a literal is a number either way */
  } else if (t->kind == 'f') {
    if (d.code != DT_FLOAT || (d.bits != 32 && d.bits != 64)) {
      bad(g, e, v, "a .%s operand needs a float32/float64 value, not %s", t->name,
          tx_dtype_str(d, buf));
      return 0;
    }
    if (d.bits != t->bits) conv = t->bits == 64 ? "(double)" : "(float)";
  } else if (is_int(d)) {
    /* Converted to the register's C type unless it already is that type. */
    int bits = c == 'l' ? 64 : c == 'h' ? 16 : 32;
    tx_dtype_code code = t->kind == 's' ? DT_INT : DT_UINT;
    if (d.code != code || d.bits != bits)
      conv = c == 'l'   ? (t->kind == 's' ? "(long long)" : "(unsigned long long)")
             : c == 'h' ? (t->kind == 's' ? "(short)" : "(unsigned short)")
                        : (t->kind == 's' ? "(int)" : "(unsigned int)");
  } else if (t->kind == 'b' && t->bits == 16 && cuda_is_f16(d)) {
    g->features |= d.code == DT_BFLOAT ? CUDA_FEAT_BF16 : CUDA_FEAT_FP16;
    conv = d.code == DT_BFLOAT ? "__bfloat16_as_ushort" : "__half_as_ushort";
  } else {
    bad(g, e, v, "a .%s operand needs an integer value, not %s (use T.reinterpret for bits)",
        t->name, tx_dtype_str(d, buf));
    return 0;
  }
  cuda_asm_operand(g, ins, (char[]){c, 0}, conv, v);
  return 1;
}

/* Where a pointer points, when the IR says: a shared allocation, a kernel
 * parameter (global memory) or a local allocation. */
typedef enum ptr_home { HOME_UNKNOWN, HOME_SHARED, HOME_GLOBAL, HOME_LOCAL } ptr_home;

static ptr_home buffer_home(cuda_cg *g, const tx_buffer *b) {
  const cuda_storage *s = b && b->data ? cuda_find_storage(g, b->data) : NULL;
  if (!b) return HOME_UNKNOWN;
  if ((s && s->is_shared) || (b->scope && strncmp(b->scope, "shared", 6) == 0)) return HOME_SHARED;
  if (b->form == BUF_PARAM || b->form == BUF_MATCH) return HOME_GLOBAL;
  if (b->form == BUF_ALLOC_LOCAL || b->form == BUF_LOCAL_SCALAR ||
      (b->scope && strcmp(b->scope, "local") == 0))
    return HOME_LOCAL;
  return HOME_UNKNOWN;
}

static ptr_home pointer_home(cuda_cg *g, const tx_expr *a) {
  if (a->kind == EXPR_BUFFER) return buffer_home(g, a->u.buffer);
  if (a->kind == EXPR_VAR) {
    const cuda_storage *s = cuda_find_storage(g, a);
    const char *sc = a->u.var.scope;
    if ((s && s->is_shared) || (sc && strncmp(sc, "shared", 6) == 0)) return HOME_SHARED;
    if (sc && strcmp(sc, "local") == 0) return HOME_LOCAL;
    return HOME_UNKNOWN;
  }
  if (a->kind != EXPR_CALL || a->nops < 1) return HOME_UNKNOWN;
  const char *op = a->u.call.op;
  size_t ol = strlen(op);
  const tx_expr *x = a->ops[0];
  if (strcmp(op, "T.address_of") == 0 && (x->kind == EXPR_LOAD || x->kind == EXPR_BUFFER))
    return buffer_home(g, x->u.buffer);
  if (ol >= 7 && strcmp(op + ol - 7, ".ptr_to") == 0 && x->kind == EXPR_BUFFER)
    return buffer_home(g, x->u.buffer);
  return HOME_UNKNOWN;
}

static const char *home_name(ptr_home h) {
  return h == HOME_SHARED ? "shared memory" : h == HOME_GLOBAL ? "global memory" : "local memory";
}

/* The asm operand for an address in state space `space` ("" = generic):
 * shared spaces take a 32-bit shared-window address (a pointer goes
 * through __cvta_generic_to_shared, a uint32 is taken as one already),
 * .local and .const a pointer converted into their window, global and
 * generic a 64-bit pointer. A pointer the IR places elsewhere is an error:
 * ld.global through a shared pointer reads some unrelated global address. */
static int addr_in(cuda_cg *g, const tx_expr *e, const tx_expr *a, const char *space,
                   int space_given, tx_strbuf *ins) {
  char buf[32];
  int shared = strncmp(space, "shared", 6) == 0;
  ptr_home h = a->dtype.code == DT_HANDLE ? pointer_home(g, a) : HOME_UNKNOWN;
  ptr_home want = shared                         ? HOME_SHARED
                  : strcmp(space, "global") == 0 ? HOME_GLOBAL
                  : strcmp(space, "local") == 0  ? HOME_LOCAL
                                                 : HOME_UNKNOWN;
  int is_const = strcmp(space, "const") == 0;
  if (h != HOME_UNKNOWN && ((want != HOME_UNKNOWN && h != want) || is_const)) {
    bad(g, e, a, "the address points into %s but the state space is .%s%s; pass space=\"%s\"",
        home_name(h), space, space_given ? "" : " (the default)",
        h == HOME_SHARED   ? "shared"
        : h == HOME_GLOBAL ? "global"
                           : "local");
    return 0;
  }
  if (strncmp(space, "param", 5) == 0) {
    bad(g, e, a, "a .%s address cannot be formed from a TIRx pointer", space);
    return 0;
  }
  if (ins->len) tx_sb_puts(ins, ", ");
  if (shared) {
    if (a->dtype.code == DT_HANDLE || (is_int(a->dtype) && a->dtype.bits == 32)) {
      cuda_smem_addr_in(g, a, ins);
      return 1;
    }
    bad(g, e, a, "a .%s address must be a pointer or a uint32 shared address, not %s", space,
        tx_dtype_str(a->dtype, buf));
    return 0;
  }
  if (a->dtype.code == DT_HANDLE) {
    const char *cvta = strcmp(space, "local") == 0 ? "__cvta_generic_to_local"
                       : is_const                  ? "__cvta_generic_to_constant"
                                                   : NULL;
    tx_sb_puts(ins, "\"l\"(");
    if (cvta) cuda_open_call(ins, cvta);
    put_expr(g, a, ins);
    if (cvta) tx_sb_putc(ins, ')');
    tx_sb_putc(ins, ')');
    return 1;
  }
  /* A raw 64-bit address (a mapa result, an address computed by hand). */
  if (is_int(a->dtype) && a->dtype.bits == 64 && (want == HOME_GLOBAL || !*space)) {
    tx_sb_puts(ins, "\"l\"(");
    put_expr(g, a, ins);
    tx_sb_putc(ins, ')');
    return 1;
  }
  bad(g, e, a, "a .%s address must be a pointer%s, not %s", space,
      want == HOME_GLOBAL ? " or a uint64 address" : "", tx_dtype_str(a->dtype, buf));
  return 0;
}

/* ---- cache policy (.L2::cache_hint) ---------------------------------------------- */

typedef struct cache_hint {
  int on;
  const tx_expr *policy; /* the operand, or NULL with `value` */
  const char *value;     /* a built-in policy constant */
} cache_hint;

/* TVM's built-in policies: the createpolicy encodings of evict_* for all
 * of L2 (the values CUTLASS's CacheHintSm90 uses). */
static const char *builtin_policy(const char *hint) {
  if (strcmp(hint, "evict_normal") == 0) return "0x1000000000000000ull";
  if (strcmp(hint, "evict_first") == 0) return "0x12F0000000000000ull";
  if (strcmp(hint, "evict_last") == 0) return "0x14F0000000000000ull";
  return NULL;
}

/* The user form: cache_hint="evict_first" or cache_policy=<uint64>. */
static int hint_from_keywords(cuda_cg *g, const tx_expr *e, cache_hint *ch) {
  const char *hint = "";
  const tx_expr *pol = cuda_kwarg(e, "cache_policy");
  if (!str_attr(g, e, NOPOS, "cache_hint", "", &hint)) return 0;
  ch->on = 0;
  if (pol) {
    ch->on = 1;
    ch->policy = pol;
  } else if (*hint) {
    if (!(ch->value = builtin_policy(hint))) {
      bad(g, e, cuda_kwarg(e, "cache_hint"),
          "cache_hint \"%s\" has no built-in policy (\"evict_normal\", \"evict_first\", "
          "\"evict_last\"); pass cache_policy= instead",
          hint);
      return 0;
    }
    ch->on = 1;
  }
  return 1;
}

/* The printed form: the policy operand and a has-policy flag. */
static int hint_from_positions(cuda_cg *g, const tx_expr *e, uint32_t pol, uint32_t has,
                               cache_hint *ch) {
  int on = 0;
  if (!flag_attr(g, e, has, "has_cache_policy", &on)) return 0;
  ch->on = on;
  ch->policy = e->ops[pol];
  ch->value = NULL;
  return 1;
}

/* The policy operand: a 64-bit register. */
static int hint_in(cuda_cg *g, const tx_expr *e, const cache_hint *ch, const char *space,
                   tx_strbuf *ins) {
  char buf[32];
  if (strcmp(space, "global") != 0) {
    bad(g, e, ch->policy, ".L2::cache_hint needs the global state space, not .%s", space);
    return 0;
  }
  if (ch->policy && !is_int(ch->policy->dtype)) {
    bad(g, e, ch->policy, "cache_policy must be a 64-bit integer, not %s",
        tx_dtype_str(ch->policy->dtype, buf));
    return 0;
  }
  tx_sb_puts(ins, ", \"l\"(");
  if (ch->policy) {
    tx_sb_puts(ins, "(unsigned long long)(");
    put_expr(g, ch->policy, ins);
    tx_sb_putc(ins, ')');
  } else {
    tx_sb_puts(ins, ch->value);
  }
  tx_sb_putc(ins, ')');
  return 1;
}

/* ---- emitting ---------------------------------------------------------------------- */

/* A value: `([&]() { CT tx_r; asm volatile("text" : "=C"(tx_r) : ins[ : "memory"]);
 * return (RT)tx_r; }())`. An immediately invoked lambda keeps the call an
 * expression (an asm output needs an lvalue). */
static void put_asm_value(cuda_cg *g, const tx_expr *e, tx_strbuf *sb, char c, int is_signed,
                          tx_strbuf *text, tx_strbuf *ins, int memory) {
  const char *ct = constraint_ctype(c, is_signed), *rt = tx_cuda_type(e->dtype);
  if (!rt) {
    char buf[32];
    bad(g, e, NULL, "the result type %s has no CUDA spelling", tx_dtype_str(e->dtype, buf));
    return;
  }
  tx_sb_printf(sb, "([&]() { %s tx_r; asm volatile(", ct);
  cuda_put_cstring(sb, text->data ? text->data : "", text->len);
  tx_sb_printf(sb, " : \"=%c\"(tx_r)", c);
  if (ins->len || memory) tx_sb_printf(sb, " : %s", ins->len ? cuda_sb_text(g, ins) : "");
  if (memory) tx_sb_puts(sb, " : \"memory\"");
  tx_sb_puts(sb, "); return ");
  if (strcmp(rt, ct) == 0)
    tx_sb_puts(sb, "tx_r");
  else
    tx_sb_printf(sb, "(%s)tx_r", rt);
  tx_sb_puts(sb, "; }())");
}

/* The qualifiers loads and stores share, in PTX order:
 * prefix{.scope}{.weak}.space{.cop}{.L2::cache_hint}. */
static void put_ldst_mods(tx_strbuf *text, const char *prefix, const char *scope, int weak,
                          const char *space, const char *cop, int hint_on) {
  tx_sb_puts(text, prefix);
  if (*scope) tx_sb_printf(text, ".%s", scope);
  if (weak) tx_sb_puts(text, ".weak");
  tx_sb_printf(text, ".%s", space);
  if (*cop) tx_sb_printf(text, ".%s", cop);
  if (hint_on) tx_sb_puts(text, ".L2::cache_hint");
}

/* `, "<c>"(((T*)(p))[i])` for i in [0, n): the registers of a dst=/src= array.
 * out: "=" for loads. */
static void array_operands(cuda_cg *g, const tx_expr *p, int n, char c, const char *out,
                           tx_strbuf *to) {
  for (int i = 0; i < n; i++) {
    if (to->len) tx_sb_puts(to, ", ");
    tx_sb_printf(to, "\"%s%c\"(((%s*)(", out, c, constraint_ctype(c, 0));
    cuda_emit_expr(g, p, to);
    tx_sb_printf(to, "))[%d])", i);
  }
}

/* Frees the scratch buffers and reports an allocation failure. */
static void done(cuda_cg *g, tx_strbuf *a, tx_strbuf *b) {
  if ((a && a->failed) || (b && b->failed)) g->nomem = 1;
  if (a) tx_sb_free(a);
  if (b) tx_sb_free(b);
}

/* ---- loads ------------------------------------------------------------------------- */

static const char *const SCOPES[] = {"cta", "cluster", "gpu", "sys", NULL};
static const char *const VECS[] = {"", "v2", "v4", "v8", NULL};
static const char *const ORDERED_SPACES[] = {"global", "shared", "shared::cta", "shared::cluster",
                                             NULL};
static const char *const LD_SPACES[] = {"global",          "shared",      "shared::cta",
                                        "shared::cluster", "local",       "const",
                                        "param::entry",    "param::func", NULL};
static const char *const LD_COPS[] = {"", "ca", "cg", "cs", "lu", "cv", NULL};

/* The TVM dtype a load of `t` returns must be one of TVM's for that type:
 * b32 -> uint32 or int32, u8/b8 -> uint32 (the 32-bit register), s16 -> int16, ... */
static int ld_return_ok(const ptx_type *t, tx_dtype r) {
  if (r.lanes != 1) return 0;
  if (t->kind == 'f') return r.code == DT_FLOAT && r.bits == t->bits;
  int bits = t->bits == 8 ? 32 : t->bits;
  if (r.bits != bits) return 0;
  if (t->kind == 'u') return r.code == DT_UINT;
  if (t->kind == 's') return r.code == DT_INT;
  /* .b: raw bits, either signedness for 32/64 bits (TVM's table), uint else */
  return r.code == DT_UINT || (r.code == DT_INT && t->bits >= 32);
}

typedef enum ld_kind { LD_WEAK, LD_ACQUIRE, LD_RELAXED, LD_MMIO, LD_VOLATILE } ld_kind;

/* One load: `ld<mods>.<type> %0, [%1]{, %2};` read into the return type.
 * The printed T.ptx.ld is (addr, cache_policy, return_type, weak, space,
 * cop, ptx_type, has_cache_policy); every other form is (addr,
 * return_type, ptx_type, <attributes>) with the attributes positional in
 * the printed order or as keywords. */
static void emit_load(cuda_cg *g, const tx_expr *e, tx_strbuf *sb, ld_kind kind) {
  uint32_t n = cuda_npos(e);
  int printed_ld = kind == LD_WEAK && n == 8;
  uint32_t p_ret = printed_ld ? 2 : 1, p_type = printed_ld ? 6 : 2;
  const char *ret = NULL, *space = NULL, *scope = "", *cop = "";
  const ptx_type *t = NULL;
  int weak = 0;
  cache_hint ch = {0};
  const tx_expr *addr = attr(e, 0, NULL);
  if (!addr) {
    bad(g, e, NULL, "the address is missing");
    return;
  }
  if (!str_attr(g, e, p_ret, "return_type", NULL, &ret) || !str_type(g, e, p_type, ALL_TYPES, &t))
    return;
  uint32_t p_space = kind == LD_WEAK ? (printed_ld ? 4 : NOPOS) : kind == LD_VOLATILE ? 3 : 4;
  const char *def_space = "global";
  if (!str_attr(g, e, p_space, "space", def_space, &space)) return;
  int space_given = attr(e, p_space, "space") != NULL;
  switch (kind) {
  case LD_WEAK:
    if (!choice(g, e, "space", space, LD_SPACES)) return;
    if (printed_ld) {
      if (!flag_attr(g, e, 3, "weak", &weak) || !str_attr(g, e, 5, "cop", "", &cop) ||
          !hint_from_positions(g, e, 1, 7, &ch))
        return;
    } else if (n > 3) {
      bad(g, e, e->ops[3],
          "expected (addr, return_type, ptx_type, ...keywords) or the printed "
          "8-argument form");
      return;
    } else if (!flag_attr(g, e, NOPOS, "weak", &weak) || !str_attr(g, e, NOPOS, "cop", "", &cop) ||
               !hint_from_keywords(g, e, &ch)) {
      return;
    }
    if (!choice(g, e, "cop", cop, LD_COPS)) return;
    break;
  case LD_ACQUIRE:
  case LD_RELAXED:
    if (!str_attr(g, e, 3, "scope", "gpu", &scope) || !choice(g, e, "scope", scope, SCOPES) ||
        !choice(g, e, "space", space, ORDERED_SPACES))
      return;
    break;
  case LD_MMIO:
    if (!str_attr(g, e, 3, "scope", "sys", &scope)) return;
    if (strcmp(scope, "sys") != 0) {
      bad(g, e, attr(e, 3, "scope"), "ld.mmio has system scope only (scope=\"sys\"), not \"%s\"",
          scope);
      return;
    }
    if (strcmp(space, "global") != 0) {
      bad(g, e, attr(e, p_space, "space"), "ld.mmio reads global memory only, not .%s", space);
      return;
    }
    break;
  case LD_VOLATILE:
    if (!choice(g, e, "space", space, ORDERED_SPACES)) return;
    break;
  }
  if (!tx_dtype_parse(ret, strlen(ret), &(tx_dtype){0}) || !ld_return_ok(t, e->dtype)) {
    bad(g, e, attr(e, p_ret, "return_type"), "a .%s load cannot return %s", t->name, ret);
    return;
  }
  if (!cluster_ok(g, e, scope, space)) return;
  /* TVM's dst=ptr form (vec="v2"/"v4"/"v8" for a vector load) writes the
   * registers through the pointer instead of returning a value. */
  const tx_expr *dst = cuda_kwarg(e, "dst");
  const char *vec = "";
  if (dst && !str_attr(g, e, NOPOS, "vec", "", &vec)) return;
  if (!dst && cuda_kwarg(e, "vec")) {
    bad(g, e, cuda_kwarg(e, "vec"), "vec= needs dst= (the registers the vector load writes)");
    return;
  }
  if (dst && (dst->dtype.code != DT_HANDLE || !choice(g, e, "vec", vec, VECS))) {
    if (dst->dtype.code != DT_HANDLE) bad(g, e, dst, "dst= takes a pointer (buffer.ptr_to([i]))");
    return;
  }
  int nd = *vec ? vec[1] - '0' : 1;
  tx_strbuf text = cuda_sb(g), ins = cuda_sb(g), outs = cuda_sb(g);
  static const char *const prefix[] = {"ld", "ld.acquire", "ld.relaxed", "ld.mmio.relaxed",
                                       "ld.volatile"};
  put_ldst_mods(&text, prefix[kind], scope, weak, space, cop, ch.on);
  if (dst) {
    if (*vec) tx_sb_printf(&text, ".%s", vec);
    tx_sb_printf(&text, ".%s %s", t->name, nd > 1 ? "{" : "");
    for (int i = 0; i < nd; i++)
      tx_sb_printf(&text, "%s%%%d", i ? ", " : "", i);
    tx_sb_printf(&text, "%s, [%%%d]", nd > 1 ? "}" : "", nd);
    if (ch.on) tx_sb_printf(&text, ", %%%d", nd + 1);
    tx_sb_putc(&text, ';');
    array_operands(g, dst, nd, type_constraint(t), "=", &outs);
    if (addr_in(g, e, addr, space, space_given, &ins) &&
        (!ch.on || hint_in(g, e, &ch, space, &ins))) {
      tx_sb_puts(sb, "asm volatile(");
      cuda_put_cstring(sb, text.data ? text.data : "", text.len);
      tx_sb_printf(sb, " : %s : %s : \"memory\")", cuda_sb_text(g, &outs), cuda_sb_text(g, &ins));
    }
    if (outs.failed) g->nomem = 1;
    tx_sb_free(&outs);
    done(g, &text, &ins);
    return;
  }
  tx_sb_printf(&text, ".%s %%0, [%%1]%s;", t->name, ch.on ? ", %2" : "");
  if (addr_in(g, e, addr, space, space_given, &ins) && (!ch.on || hint_in(g, e, &ch, space, &ins)))
    put_asm_value(g, e, sb, type_constraint(t), e->dtype.code == DT_INT, &text, &ins, 1);
  done(g, &text, &ins);
}

CUDA_CALL_VARIANT(emit_ld, emit_load, LD_WEAK)
CUDA_CALL_VARIANT(emit_ld_acquire, emit_load, LD_ACQUIRE)
CUDA_CALL_VARIANT(emit_ld_relaxed, emit_load, LD_RELAXED)
CUDA_CALL_VARIANT(emit_ld_mmio, emit_load, LD_MMIO)
CUDA_CALL_VARIANT(emit_ld_volatile, emit_load, LD_VOLATILE)

/* T.ptx.ld_global_acquire(res, addr): res = ld.acquire.gpu.global of res's
 * width; res is a buffer element written through (TVM binds it to a
 * reference parameter). */
static void emit_ld_global_acquire(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 2, 2)) return;
  const tx_expr *res = e->ops[0], *addr = e->ops[1];
  tx_dtype d = res->dtype;
  char buf[32];
  if (res->kind != EXPR_LOAD) {
    bad(g, e, res, "the result must be a buffer element (it is written)");
    return;
  }
  if (!(d.code == DT_INT || d.code == DT_UINT) || d.lanes != 1 || (d.bits != 32 && d.bits != 64)) {
    bad(g, e, res, "the result must be int32, uint32, int64 or uint64, not %s",
        tx_dtype_str(d, buf));
    return;
  }
  tx_strbuf text = cuda_sb(g), ins = cuda_sb(g);
  tx_sb_printf(&text, "ld.acquire.gpu.global.b%d %%0, [%%1];", d.bits);
  if (addr_in(g, e, addr, "global", 1, &ins)) {
    tx_sb_printf(sb, "asm volatile(");
    cuda_put_cstring(sb, text.data ? text.data : "", text.len);
    tx_sb_printf(sb, " : \"=%c\"(", d.bits == 64 ? 'l' : 'r');
    put_expr(g, res, sb);
    tx_sb_printf(sb, ") : %s : \"memory\")", cuda_sb_text(g, &ins) ? cuda_sb_text(g, &ins) : "");
  }
  done(g, &text, &ins);
}

/* T.ptx.ldg32(reg, guard, A[i], offset): reg[offset] = guard ? the f32 at
 * &A[i] (ld.global.nc) : 0.0f, as TVM's ptx_ldg32. */
static void emit_ldg32(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 4, 4)) return;
  const tx_expr *reg = e->ops[0], *guard = e->ops[1], *src = e->ops[2], *off = e->ops[3];
  if (reg->dtype.code != DT_HANDLE) {
    bad(g, e, reg, "the first argument is the destination buffer's data pointer");
    return;
  }
  if (src->kind != EXPR_LOAD) {
    bad(g, e, src, "the third argument is the global element to read (A[i])");
    return;
  }
  if (!(src->dtype.code == DT_FLOAT && src->dtype.bits == 32 && src->dtype.lanes == 1)) {
    bad(g, e, src, "ldg32 reads a float32 element");
    return;
  }
  ptr_home h = buffer_home(g, src->u.buffer);
  if (h == HOME_SHARED || h == HOME_LOCAL) {
    bad(g, e, src, "ld.global.nc needs global memory, but the element is in %s", home_name(h));
    return;
  }
  if (!is_int(guard->dtype) || !is_int(off->dtype)) {
    bad(g, e, is_int(guard->dtype) ? off : guard, "the guard and the offset are integers");
    return;
  }
  cuda_asm_begin(sb, "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t@!p mov.b32 %0, 0;\n\t"
                     "@p ld.global.nc.f32 %0, [%1];\n\t}");
  tx_sb_puts(sb, " : \"=f\"(((float*)(");
  put_expr(g, reg, sb);
  tx_sb_puts(sb, "))[");
  put_expr(g, off, sb);
  tx_sb_puts(sb, "]) : \"l\"((&");
  put_expr(g, src, sb);
  tx_sb_puts(sb, ")), \"r\"((int)(");
  put_expr(g, guard, sb);
  tx_sb_puts(sb, ")) : \"memory\")");
}

/* ---- stores ------------------------------------------------------------------------ */

typedef enum st_kind { ST_PLAIN, ST_RELAXED, ST_RELEASE, ST_VOLATILE, ST_MMIO } st_kind;

static const char *const ST_SPACES[] = {"global", "shared",      "shared::cta", "shared::cluster",
                                        "local",  "param::func", NULL};
static const char *const ST_COPS[] = {"", "wb", "cg", "cs", "wt", NULL};
static const char *const ST_SEMS[] = {"", "weak", "relaxed", "release", "volatile", "mmio", NULL};

/* T.ptx.st(addr, *values, weak=, sem=, scope=, space="shared", cop=, vec=,
 * ptx_type=, cache_hint=, cache_policy=) and its fixed-order siblings:
 *   st{.weak}{.ss}{.cop}{.L2::cache_hint}{.vec}.type [a], b{, policy}
 *   st.relaxed.scope / st.release.scope{.ss}{.L2::cache_hint}{.vec}.type
 *   st.volatile{.ss}{.vec}.type      st.mmio.relaxed.sys{.global}.type
 * TVM's printer writes T.ptx.st as (addr, *values, cache_policy, weak,
 * space, cop, vec, ptx_type, has_cache_policy). */
static void emit_store(cuda_cg *g, const tx_expr *e, tx_strbuf *sb, st_kind kind) {
  uint32_t n = cuda_npos(e);
  int printed = kind == ST_PLAIN && n >= 9 && e->ops[n - 5]->kind == EXPR_STRING &&
                e->ops[n - 3]->kind == EXPR_STRING && e->ops[n - 2]->kind == EXPR_STRING;
  /* TVM's src=ptr form: the values are read through a pointer. */
  const tx_expr *src = printed ? NULL : cuda_kwarg(e, "src");
  uint32_t nvals = printed ? n - 8 : n - 1;
  const char *space = NULL, *cop = "", *vec = "", *scope = "", *sem = NULL;
  const ptx_type *t = NULL;
  int weak = 0;
  cache_hint ch = {0};
  if (n < (src ? 1u : 2u) || (src && (n != 1 || src->dtype.code != DT_HANDLE))) {
    bad(g, e, NULL,
        src ? "with src= give only the address; src= is a pointer (buffer.ptr_to([i]))"
            : "expected the address and the value(s)");
    return;
  }
  static const char *const kind_sem[] = {"", "relaxed", "release", "volatile", "mmio"};
  const char *def_space = kind == ST_MMIO ? "global" : "shared";
  if (printed) {
    if (!hint_from_positions(g, e, n - 7, n - 1, &ch) || !flag_attr(g, e, n - 6, "weak", &weak) ||
        !str_attr(g, e, n - 5, "space", def_space, &space) ||
        !str_attr(g, e, n - 4, "cop", "", &cop) || !str_attr(g, e, n - 3, "vec", "", &vec) ||
        !str_type(g, e, n - 2, WIDE_TYPES, &t))
      return;
    sem = "";
  } else {
    if (!flag_attr(g, e, NOPOS, "weak", &weak) || !str_attr(g, e, NOPOS, "sem", "", &sem) ||
        !str_attr(g, e, NOPOS, "space", def_space, &space) ||
        !str_attr(g, e, NOPOS, "cop", "", &cop) || !str_attr(g, e, NOPOS, "vec", "", &vec) ||
        !str_type(g, e, NOPOS, kind == ST_PLAIN && !src ? WIDE_TYPES : ALL_TYPES, &t) ||
        !hint_from_keywords(g, e, &ch) || !choice(g, e, "sem", sem, ST_SEMS))
      return;
    /* The sibling helpers fix the order; T.ptx.st(sem=...) picks one. */
    if (kind != ST_PLAIN && *sem && strcmp(sem, kind_sem[kind]) != 0) {
      bad(g, e, cuda_kwarg(e, "sem"), "sem=\"%s\" contradicts %s", sem, e->u.call.op);
      return;
    }
    if (kind == ST_PLAIN && *sem && strcmp(sem, "weak") != 0)
      kind = strcmp(sem, "relaxed") == 0    ? ST_RELAXED
             : strcmp(sem, "release") == 0  ? ST_RELEASE
             : strcmp(sem, "volatile") == 0 ? ST_VOLATILE
                                            : ST_MMIO;
    if (strcmp(sem, "weak") == 0) weak = 1;
  }
  int space_given = printed || cuda_kwarg(e, "space") != NULL;
  if (!choice(g, e, "space", space, ST_SPACES) || !choice(g, e, "cop", cop, ST_COPS) ||
      !choice(g, e, "vec", vec, VECS))
    return;
  if (kind != ST_PLAIN) {
    const char *what = kind_sem[kind];
    if (weak) {
      bad(g, e, cuda_kwarg(e, "weak"), "st.%s is not a weak store", what);
      return;
    }
    if (*cop) {
      bad(g, e, cuda_kwarg(e, "cop"), "st.%s takes no cache operator", what);
      return;
    }
    if (ch.on && (kind == ST_VOLATILE || kind == ST_MMIO)) {
      bad(g, e, NULL, "st.%s takes no cache hint", what);
      return;
    }
    if (kind == ST_RELAXED || kind == ST_RELEASE) {
      if (!str_attr(g, e, NOPOS, "scope", "gpu", &scope) || !choice(g, e, "scope", scope, SCOPES))
        return;
    } else if (kind == ST_MMIO) {
      if (!str_attr(g, e, NOPOS, "scope", "sys", &scope)) return;
      if (strcmp(scope, "sys") != 0) {
        bad(g, e, cuda_kwarg(e, "scope"), "st.mmio has system scope only, not \"%s\"", scope);
        return;
      }
      if (strcmp(space, "global") != 0 || *vec) {
        bad(g, e, NULL, "st.mmio stores one value to global memory (no vector, no other space)");
        return;
      }
      scope = "sys";
    } else if (!no_kw(g, e, "scope", "st.volatile has no scope")) {
      return;
    }
    if ((kind != ST_PLAIN) && !choice(g, e, "space", space, ORDERED_SPACES)) return;
  } else if (!no_kw(g, e, "scope", "a weak store has no scope (use st_relaxed/st_release)")) {
    return;
  }
  int lanes = *vec ? vec[1] - '0' : 1;
  if (src) nvals = (uint32_t)lanes;
  if ((uint32_t)lanes != nvals) {
    bad(g, e, NULL, "%s%s stores %d value%s, got %u", *vec ? "." : "", *vec ? vec : "a scalar st",
        lanes, lanes == 1 ? "" : "s", nvals);
    return;
  }
  int total = lanes * t->bits;
  if (total > 256) {
    bad(g, e, NULL, ".%s.%s is %d bits; a store moves at most 256", vec, t->name, total);
    return;
  }
  if (total == 256) {
    if (strcmp(space, "global") != 0) {
      bad(g, e, NULL, "a 256-bit store needs the global state space, not .%s", space);
      return;
    }
    if (!need_sm_feature(g, e, 100, TX_FEAT_LDST256, "a 256-bit store")) return;
  }
  if (!cluster_ok(g, e, scope, space)) return;
  tx_strbuf text = cuda_sb(g), ins = cuda_sb(g);
  static const char *const prefix[] = {"st", "st.relaxed", "st.release", "st.volatile",
                                       "st.mmio.relaxed"};
  put_ldst_mods(&text, prefix[kind], scope, weak, space, cop, ch.on);
  if (*vec) tx_sb_printf(&text, ".%s", vec);
  tx_sb_printf(&text, ".%s [%%0], ", t->name);
  if (lanes > 1) tx_sb_putc(&text, '{');
  for (int i = 0; i < lanes; i++)
    tx_sb_printf(&text, "%s%%%d", i ? ", " : "", i + 1);
  if (lanes > 1) tx_sb_putc(&text, '}');
  if (ch.on) tx_sb_printf(&text, ", %%%d", lanes + 1);
  tx_sb_putc(&text, ';');
  int ok = addr_in(g, e, e->ops[0], space, space_given, &ins);
  if (ok && src) array_operands(g, src, lanes, type_constraint(t), "", &ins);
  for (int i = 0; ok && !src && i < lanes; i++)
    ok = value_in(g, e, e->ops[1 + i], t, &ins);
  if (ok && ch.on) ok = hint_in(g, e, &ch, space, &ins);
  if (ok) cuda_asm_stmt(sb, &text, &ins);
  done(g, &text, &ins);
}

CUDA_CALL_VARIANT(emit_st, emit_store, ST_PLAIN)
CUDA_CALL_VARIANT(emit_st_relaxed, emit_store, ST_RELAXED)
CUDA_CALL_VARIANT(emit_st_release, emit_store, ST_RELEASE)
CUDA_CALL_VARIANT(emit_st_volatile, emit_store, ST_VOLATILE)
CUDA_CALL_VARIANT(emit_st_mmio, emit_store, ST_MMIO)

/* T.ptx.st_bulk(ptr, num_bytes, weak=False, space="shared::cta"):
 * st.bulk{.weak}{.shared::cta} [a], size, 0 (zero-fills size bytes). */
static void emit_st_bulk(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  static const char *const spaces[] = {"", "shared::cta", NULL};
  const char *space = NULL;
  int weak = 0;
  int64_t bytes = 0;
  if (!cuda_nargs_ok(g, e, 2, 4) || !flag_attr(g, e, 2, "weak", &weak) ||
      !str_attr(g, e, 3, "space", "shared::cta", &space) || !choice(g, e, "space", space, spaces) ||
      !need_sm(g, e, 100, "st.bulk"))
    return;
  const tx_expr *n = e->ops[1];
  if (!is_int(n->dtype)) {
    bad(g, e, n, "num_bytes is an integer");
    return;
  }
  if (cuda_int_arg(n, &bytes) && (bytes < 0 || bytes % 8 != 0)) {
    bad(g, e, n, "num_bytes must be a non-negative multiple of 8, not %lld", (long long)bytes);
    return;
  }
  tx_strbuf text = cuda_sb(g), ins = cuda_sb(g);
  tx_sb_printf(&text, "st.bulk%s%s%s [%%0], %%1, 0;", weak ? ".weak" : "", *space ? "." : "",
               space);
  if (addr_in(g, e, e->ops[0], space, 1, &ins)) {
    cuda_asm_operand(g, &ins, "l", "(unsigned long long)", n);
    cuda_asm_stmt(sb, &text, &ins);
  }
  done(g, &text, &ins);
}

/* ---- atom / red --------------------------------------------------------------------- */

static const char *const MEM_SCOPES[] = {"", "cta", "cluster", "gpu", "sys", NULL};

/* Which types each operation takes (PTX ISA; ptxas agrees): bitwise ops and
 * exch on bits, inc/dec on u32, add on u32/s32/u64/f32/f64, min/max on
 * 32/64-bit integers. */
static int op_takes(const char *op, const ptx_type *t) {
  const char *n = t->name;
  if (!strcmp(op, "and") || !strcmp(op, "or") || !strcmp(op, "xor") || !strcmp(op, "exch"))
    return t->kind == 'b';
  if (!strcmp(op, "inc") || !strcmp(op, "dec")) return !strcmp(n, "u32");
  if (!strcmp(op, "add"))
    return !strcmp(n, "u32") || !strcmp(n, "s32") || !strcmp(n, "u64") || t->kind == 'f';
  return t->kind == 'u' || t->kind == 's'; /* min, max */
}

/* atom/red{.sem}{.scope}{.space}.op{.L2::cache_hint}.type: (address, value,
 * sem=, scope=, space="global", op=, ptx_type=, cache_hint=, cache_policy=)
 * or printed (address, value, cache_policy, sem, scope, space, op,
 * ptx_type, has_cache_policy). atom returns the old value. */
static void emit_atomic(cuda_cg *g, const tx_expr *e, tx_strbuf *sb, int is_atom) {
  static const char *const atom_ops[] = {"and", "or",  "xor", "exch", "add",
                                         "inc", "dec", "min", "max",  NULL};
  static const char *const atom_sems[] = {"", "relaxed", "acquire", "release", "acq_rel", NULL};
  static const char *const red_sems[] = {"", "relaxed", "release", NULL};
  uint32_t n = cuda_npos(e);
  int printed = n == 9;
  const char *sem = NULL, *scope = NULL, *space = NULL, *op = NULL;
  const ptx_type *t = NULL;
  cache_hint ch = {0};
  if (n != 2 && n != 9) {
    bad(g, e, NULL, "expected (address, value, ...keywords) or the printed 9-argument form");
    return;
  }
  if (!str_attr(g, e, printed ? 3 : NOPOS, "sem", "", &sem) ||
      !str_attr(g, e, printed ? 4 : NOPOS, "scope", "", &scope) ||
      !str_attr(g, e, printed ? 5 : NOPOS, "space", "global", &space) ||
      !str_attr(g, e, printed ? 6 : NOPOS, "op", NULL, &op) ||
      !str_type(g, e, printed ? 7 : NOPOS, WIDE_TYPES, &t) ||
      !(printed ? hint_from_positions(g, e, 2, 8, &ch) : hint_from_keywords(g, e, &ch)) ||
      !choice(g, e, "sem", sem, is_atom ? atom_sems : red_sems) ||
      !choice(g, e, "scope", scope, MEM_SCOPES) || !choice(g, e, "space", space, ORDERED_SPACES) ||
      !choice(g, e, "op", op, atom_ops))
    return;
  if (!is_atom && strcmp(op, "exch") == 0) {
    bad(g, e, attr(e, printed ? 6 : NOPOS, "op"), "red has no exch (use atom_scalar)");
    return;
  }
  if (!op_takes(op, t)) {
    bad(g, e, NULL, "%s.%s does not take .%s", is_atom ? "atom" : "red", op, t->name);
    return;
  }
  if (!cluster_ok(g, e, scope, space)) return;
  if (is_atom && tx_cuda_type(e->dtype) == NULL) {
    bad(g, e, NULL, "no result type for .%s", t->name);
    return;
  }
  tx_strbuf text = cuda_sb(g), ins = cuda_sb(g);
  tx_sb_puts(&text, is_atom ? "atom" : "red");
  if (*sem) tx_sb_printf(&text, ".%s", sem);
  if (*scope) tx_sb_printf(&text, ".%s", scope);
  tx_sb_printf(&text, ".%s.%s", space, op);
  if (ch.on) tx_sb_puts(&text, ".L2::cache_hint");
  if (is_atom)
    tx_sb_printf(&text, ".%s %%0, [%%1], %%2%s;", t->name, ch.on ? ", %3" : "");
  else
    tx_sb_printf(&text, ".%s [%%0], %%1%s;", t->name, ch.on ? ", %2" : "");
  int ok = addr_in(g, e, e->ops[0], space, printed || cuda_kwarg(e, "space"), &ins) &&
           value_in(g, e, e->ops[1], t, &ins) && (!ch.on || hint_in(g, e, &ch, space, &ins));
  if (ok && is_atom)
    put_asm_value(g, e, sb, type_constraint(t), t->kind == 's', &text, &ins, 1);
  else if (ok)
    cuda_asm_stmt(sb, &text, &ins);
  done(g, &text, &ins);
}

CUDA_CALL_VARIANT(emit_atom_scalar, emit_atomic, 1)
CUDA_CALL_VARIANT(emit_red_scalar, emit_atomic, 0)

/* ---- arithmetic ------------------------------------------------------------------- */

/* A float operand of an f32/f64 instruction: any scalar number, converted
 * to float/double as the C parameter of TVM's helper converts it. */
static int float_in(cuda_cg *g, const tx_expr *e, const tx_expr *v, int bits, tx_strbuf *ins) {
  tx_dtype d = v->dtype;
  char buf[32];
  if (d.lanes != 1 || !(is_int(d) || tx_dtype_is_float(d))) {
    bad(g, e, v, "operand of dtype %s is not a scalar number", tx_dtype_str(d, buf));
    return 0;
  }
  int same = d.code == DT_FLOAT && d.bits == bits;
  cuda_asm_operand(g, ins, bits == 64 ? "d" : "f",
                   same         ? NULL
                   : bits == 64 ? "(double)"
                                : "(float)",
                   v);
  return 1;
}

/* A packed f32x2 operand: the 64 bits of two floats (low half = element 0). */
static int packed_in(cuda_cg *g, const tx_expr *e, const tx_expr *v, tx_strbuf *ins) {
  char buf[32];
  if (!is_int(v->dtype) || v->dtype.bits != 64) {
    bad(g, e, v, "an f32x2 operand is two floats packed in a uint64, not %s",
        tx_dtype_str(v->dtype, buf));
    return 0;
  }
  cuda_asm_operand(g, ins, "l", v->dtype.code == DT_UINT ? NULL : "(unsigned long long)", v);
  return 1;
}

/* add/sub/mul_<dtype>(d, a, b, rounding="rn", ftz=False, sat=False) and
 * fma_<dtype>(d, a, b, c, ...): `op.rnd{.ftz}{.sat}.dtype [*d], a, b{, c}`,
 * the result written through the pointer d as TVM's destination-passing
 * helpers do. f64 takes no .ftz/.sat, f32x2 no .sat (PTX). */
static void emit_arith(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  static const char *const rnds[] = {"rn", "rz", "rm", "rp", NULL};
  const char *name = e->u.call.op + 6; /* "add_f32x2" */
  int is_fma = strncmp(name, "fma", 3) == 0;
  const char *dt = name + 4; /* "f32", "f32x2", "f64" */
  int x2 = strcmp(dt, "f32x2") == 0, f64 = strcmp(dt, "f64") == 0;
  uint32_t nin = is_fma ? 3 : 2, base = 1 + nin;
  const char *rnd = NULL;
  int ftz = 0, sat = 0;
  if (!cuda_nargs_ok(g, e, base, base + 3) || !str_attr(g, e, base, "rounding", "rn", &rnd) ||
      !choice(g, e, "rounding", rnd, rnds) || !flag_attr(g, e, base + 1, "ftz", &ftz) ||
      !flag_attr(g, e, base + 2, "sat", &sat))
    return;
  if (f64 && (ftz || sat)) {
    bad(g, e, NULL, "%.3s.f64 takes no .ftz or .sat", name);
    return;
  }
  if (x2 && sat) {
    bad(g, e, NULL, "%.3s.f32x2 takes no .sat", name);
    return;
  }
  if (x2 && !need_sm_feature(g, e, 100, TX_FEAT_F32X2, "the packed .f32x2 form")) return;
  const tx_expr *d = e->ops[0];
  if (d->dtype.code != DT_HANDLE) {
    bad(g, e, d, "the first argument is the destination pointer (T.address_of(x[i]))");
    return;
  }
  tx_strbuf text = cuda_sb(g), ins = cuda_sb(g);
  tx_sb_printf(&text, "%.3s.%s%s%s.%s %%0, %%1, %%2%s;", name, rnd, ftz ? ".ftz" : "",
               sat ? ".sat" : "", dt, is_fma ? ", %3" : "");
  int ok = 1;
  for (uint32_t i = 0; ok && i < nin; i++)
    ok = x2 ? packed_in(g, e, e->ops[1 + i], &ins)
            : float_in(g, e, e->ops[1 + i], f64 ? 64 : 32, &ins);
  if (ok) {
    const char *ct = x2 ? "unsigned long long" : f64 ? "double" : "float";
    tx_sb_puts(sb, "asm volatile(");
    cuda_put_cstring(sb, text.data ? text.data : "", text.len);
    tx_sb_printf(sb, " : \"=%c\"(*(%s*)(", x2 ? 'l' : f64 ? 'd' : 'f', ct);
    put_expr(g, d, sb);
    tx_sb_printf(sb, ")) : %s)", cuda_sb_text(g, &ins) ? cuda_sb_text(g, &ins) : "");
  }
  done(g, &text, &ins);
}

/* A value-returning f32 instruction over float operands. */
static void emit_f32_op(cuda_cg *g, const tx_expr *e, tx_strbuf *sb, const char *opcode,
                        uint32_t nin) {
  tx_strbuf text = cuda_sb(g), ins = cuda_sb(g);
  tx_sb_printf(&text, "%s %%0", opcode);
  for (uint32_t i = 0; i < nin; i++)
    tx_sb_printf(&text, ", %%%u", i + 1);
  tx_sb_putc(&text, ';');
  int ok = 1;
  for (uint32_t i = 0; ok && i < nin; i++)
    ok = float_in(g, e, e->ops[i], 32, &ins);
  if (ok) put_asm_value(g, e, sb, 'f', 0, &text, &ins, 0);
  done(g, &text, &ins);
}

/* exp2(x): ex2.approx.ftz.f32 (2^x, max relative error 2^-22.5, subnormals flushed). */
static void emit_exp2(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (cuda_nargs_ok(g, e, 1, 1)) emit_f32_op(g, e, sb, "ex2.approx.ftz.f32", 1);
}

/* rcp(x): rcp.approx.ftz.f32 (1/x, max error 1 ulp, subnormals flushed). */
static void emit_rcp(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (cuda_nargs_ok(g, e, 1, 1)) emit_f32_op(g, e, sb, "rcp.approx.ftz.f32", 1);
}

/* max_f32(a, b, ftz=False, nan=False): max{.ftz}{.NaN}.f32. */
static void emit_max_f32(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  int ftz = 0, nan = 0;
  if (!cuda_nargs_ok(g, e, 2, 4) || !flag_attr(g, e, 2, "ftz", &ftz) ||
      !flag_attr(g, e, 3, "nan", &nan) || (nan && !need_sm(g, e, 80, "max.NaN")))
    return;
  char opcode[32];
  snprintf(opcode, sizeof opcode, "max%s%s.f32", ftz ? ".ftz" : "", nan ? ".NaN" : "");
  emit_f32_op(g, e, sb, opcode, 2);
}

/* reduce3_max/min_f32(a, b, c): the three-input max.f32 / min.f32 (sm_100+). */
static void emit_reduce3(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  int is_max = strstr(e->u.call.op, "max") != NULL;
  if (cuda_nargs_ok(g, e, 3, 3) && need_sm(g, e, 100, "the three-input max/min.f32"))
    emit_f32_op(g, e, sb, is_max ? "max.f32" : "min.f32", 3);
}

/* add_rn_f32_bf16(acc, x): acc + x with x a bfloat16 (or its bits as a
 * uint16): add.rn.f32.bf16 d, x, acc, the mixed-precision add (sm_100+). */
static void emit_add_rn_f32_bf16(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 2, 2) || !need_sm(g, e, 100, "add.rn.f32.bf16")) return;
  const tx_expr *acc = e->ops[0], *x = e->ops[1];
  char buf[32];
  int bf = x->dtype.code == DT_BFLOAT && x->dtype.lanes == 1;
  if (!bf && !(is_int(x->dtype) && x->dtype.bits == 16)) {
    bad(g, e, x, "x is a bfloat16 (or its bits as a uint16), not %s", tx_dtype_str(x->dtype, buf));
    return;
  }
  tx_strbuf text = cuda_sb(g), ins = cuda_sb(g);
  tx_sb_puts(&text, "add.rn.f32.bf16 %0, %1, %2;");
  if (bf) g->features |= CUDA_FEAT_BF16;
  cuda_asm_operand(g, &ins, "h", bf ? "__bfloat16_as_ushort" : "(unsigned short)", x);
  if (float_in(g, e, acc, 32, &ins)) put_asm_value(g, e, sb, 'f', 0, &text, &ins, 0);
  done(g, &text, &ins);
}

/* fns_b32(mask, base, offset): the offset-th set bit of mask from base. */
static void emit_fns_b32(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  if (!cuda_nargs_ok(g, e, 3, 3)) return;
  static const ptx_type b32 = {"b32", 'b', 32}, u32 = {"u32", 'u', 32}, s32 = {"s32", 's', 32};
  tx_strbuf text = cuda_sb(g), ins = cuda_sb(g);
  tx_sb_puts(&text, "fns.b32 %0, %1, %2, %3;");
  if (value_in(g, e, e->ops[0], &b32, &ins) && value_in(g, e, e->ops[1], &u32, &ins) &&
      value_in(g, e, e->ops[2], &s32, &ins))
    put_asm_value(g, e, sb, 'r', 0, &text, &ins, 0);
  done(g, &text, &ins);
}

/* fetch_register(bits, "name"): mov.u<bits> d, %name (a special register). */
static void emit_fetch_register(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {
  int64_t bits = 0;
  if (!cuda_nargs_ok(g, e, 2, 2)) return;
  const char *reg = cuda_str_arg(e->ops[1]);
  if (!cuda_int_arg(e->ops[0], &bits) || (bits != 32 && bits != 64)) {
    bad(g, e, e->ops[0], "bits must be 32 or 64");
    return;
  }
  if (reg && *reg == '%') reg++;
  int ok = reg && *reg;
  for (const char *p = reg; ok && *p; p++)
    ok = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.';
  if (!ok) {
    bad(g, e, e->ops[1], "the register is a special register name such as \"laneid\"");
    return;
  }
  tx_strbuf text = cuda_sb(g), ins = cuda_sb(g);
  tx_sb_printf(&text, "mov.u%d %%0, %%%%%s;", (int)bits, reg);
  put_asm_value(g, e, sb, bits == 64 ? 'l' : 'r', 0, &text, &ins, 0);
  done(g, &text, &ins);
}

/* ---- the table ---------------------------------------------------------------------- */

static const cuda_call_entry ENTRIES[] = {
    {"T.ptx.add_f32", emit_arith},
    {"T.ptx.add_f32x2", emit_arith},
    {"T.ptx.add_f64", emit_arith},
    {"T.ptx.add_rn_f32_bf16", emit_add_rn_f32_bf16},
    {"T.ptx.atom_scalar", emit_atom_scalar},
    {"T.ptx.exp2", emit_exp2},
    {"T.ptx.fetch_register", emit_fetch_register},
    {"T.ptx.fma_f32", emit_arith},
    {"T.ptx.fma_f32x2", emit_arith},
    {"T.ptx.fma_f64", emit_arith},
    {"T.ptx.fns_b32", emit_fns_b32},
    {"T.ptx.ld", emit_ld},
    {"T.ptx.ld_acquire", emit_ld_acquire},
    {"T.ptx.ld_global_acquire", emit_ld_global_acquire},
    {"T.ptx.ld_mmio", emit_ld_mmio},
    {"T.ptx.ld_relaxed", emit_ld_relaxed},
    {"T.ptx.ld_volatile", emit_ld_volatile},
    {"T.ptx.ldg32", emit_ldg32},
    {"T.ptx.max_f32", emit_max_f32},
    {"T.ptx.mul_f32", emit_arith},
    {"T.ptx.mul_f32x2", emit_arith},
    {"T.ptx.mul_f64", emit_arith},
    {"T.ptx.rcp", emit_rcp},
    {"T.ptx.red_scalar", emit_red_scalar},
    {"T.ptx.reduce3_max_f32", emit_reduce3},
    {"T.ptx.reduce3_min_f32", emit_reduce3},
    {"T.ptx.st", emit_st},
    {"T.ptx.st_bulk", emit_st_bulk},
    {"T.ptx.st_mmio", emit_st_mmio},
    {"T.ptx.st_relaxed", emit_st_relaxed},
    {"T.ptx.st_release", emit_st_release},
    {"T.ptx.st_volatile", emit_st_volatile},
    {"T.ptx.sub_f32", emit_arith},
    {"T.ptx.sub_f32x2", emit_arith},
    {"T.ptx.sub_f64", emit_arith},
};

const cuda_call_table cuda_ptx_memory_calls = {"memory", ENTRIES, sizeof ENTRIES / sizeof *ENTRIES};
