/*
 * builder.c - modules, functions and the name scopes of the builder.
 *
 * Turns a file's top level (imports, constants, @T.prim_func functions,
 * @I.ir_module classes) into a tx_module. Statements and expressions are
 * built by build_stmt.c and build_expr.c. Never prints or exits: every
 * problem is a located diagnostic.
 */
#include <stdlib.h>
#include <string.h>

#include "frontend/build_internal.h"
#include "ir/ptx_dialect.h"
#include "support/mem.h"
#include "ir/visit.h"

/* ---- Small helpers -------------------------------------------------------- */

/* Out of memory is no error of the builder's: the sink's flag tells
 * tirx_parse_*, which reports it once (and drops what the failure may have
 * caused). */
void bld_oom(builder *b) {
  tx_diag_note_oom(b->diags);
  b->oom = 1;
}

const tirx_allocator *bld_alloc(const builder *b) {
  return tx_ir_alloc(b->ir);
}

const char *bld_intern(builder *b, const char *s) {
  const char *r = tx_intern(b->ir->strings, s);
  if (!r) bld_oom(b);
  return r;
}

int vec_push(builder *b, ptr_vec *v, const void *item) {
  if (v->len == v->cap) {
    uint32_t cap = v->cap ? v->cap * 2 : 8;
    v->alloc = bld_alloc(b);
    const void **p = tx_mem_realloc(v->alloc, v->items, cap * sizeof *p);
    if (!p) {
      bld_oom(b);
      return 0;
    }
    v->items = p;
    v->cap = cap;
  }
  v->items[v->len++] = item;
  return 1;
}

const void *const *vec_finish(builder *b, ptr_vec *v) {
  const void *const *out = tx_ir_dup_ptrs(b->ir, (const void *const *)v->items, v->len);
  if (v->len && !out) bld_oom(b);
  v->len = 0;
  return out;
}

void vec_free(ptr_vec *v) {
  tx_mem_free(v->alloc, v->items);
  *v = (ptr_vec){0};
}

/* ---- Scopes: a stack of symbols with a per-name shadow chain -------------- */

static uint32_t name_slot(const builder *b, const char *name) {
  uintptr_t h = (uintptr_t)name;
  h ^= h >> 17;
  h *= 0x9e3779b97f4a7c15ull;
  return (uint32_t)(h >> 20) & (b->heads_cap - 1);
}

/* Open addressing keyed by the interned pointer; slots store symbol indices. */
static int *find_head(builder *b, const char *name, int insert) {
  uint32_t i = name_slot(b, name);
  for (uint32_t probes = 0; probes < b->heads_cap; probes++, i = (i + 1) & (b->heads_cap - 1)) {
    int idx = b->heads[i];
    if (idx == -1) return insert ? &b->heads[i] : NULL;
    if (idx >= 0 && b->syms[idx].name == name) return &b->heads[i];
  }
  return NULL;
}

static int rehash(builder *b, uint32_t cap) {
  int *heads = tx_mem_alloc(bld_alloc(b), cap * sizeof *heads);
  if (!heads) return 0;
  for (uint32_t i = 0; i < cap; i++)
    heads[i] = -1;
  int *old = b->heads;
  b->heads = heads;
  b->heads_cap = cap;
  /* Re-insert the innermost symbol of every name. */
  for (uint32_t s = 0; s < b->nsyms; s++) {
    int *slot = find_head(b, b->syms[s].name, 1);
    if (slot) *slot = (int)s;
  }
  tx_mem_free(bld_alloc(b), old);
  return 1;
}

int bld_push_symbol(builder *b, symbol sym) {
  if (b->nsyms == b->syms_cap) {
    uint32_t cap = b->syms_cap ? b->syms_cap * 2 : 64;
    symbol *p = tx_mem_realloc(bld_alloc(b), b->syms, cap * sizeof *p);
    if (!p) {
      bld_oom(b);
      return -1;
    }
    b->syms = p;
    b->syms_cap = cap;
  }
  if ((b->nsyms + 1) * 2 > b->heads_cap && !rehash(b, b->heads_cap ? b->heads_cap * 2 : 128)) {
    bld_oom(b);
    return -1;
  }
  int *slot = find_head(b, sym.name, 1);
  if (!slot) {
    bld_oom(b);
    return -1;
  }
  sym.prev = *slot;
  b->syms[b->nsyms] = sym;
  *slot = (int)b->nsyms;
  return (int)b->nsyms++;
}

const symbol *bld_lookup(const builder *b, const char *name) {
  if (!b->heads_cap) return NULL;
  int *slot = find_head((builder *)b, name, 0);
  return slot && *slot >= 0 ? &b->syms[*slot] : NULL;
}

uint32_t bld_scope_mark(const builder *b) {
  return b->nsyms;
}

void bld_scope_pop(builder *b, uint32_t mark) {
  while (b->nsyms > mark) {
    symbol *s = &b->syms[--b->nsyms];
    int *slot = find_head(b, s->name, 0);
    if (slot) *slot = s->prev;
  }
}

/* ---- Qualified names -------------------------------------------------------- */

static int is_python_keyword(const char *s, size_t n) {
  static const char *const keywords[] = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  /* Keywords are 2..8 lowercase letters, or False/None/True. */
  if (n < 2 || n > 8 ||
      !((s[0] >= 'a' && s[0] <= 'z') || s[0] == 'F' || s[0] == 'N' || s[0] == 'T'))
    return 0;
  for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
    if (keywords[i][0] == s[0] && strlen(keywords[i]) == n && memcmp(keywords[i], s, n) == 0)
      return 1;
  return 0;
}

/* A segment that can be written after a dot (not a Python keyword). */
static int is_identifier(const char *s, size_t n) {
  if (n == 0 || is_python_keyword(s, n)) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return 0;
  }
  return 1;
}

/* Append `.seg` (or `["seg"]` when seg is not dotted identifiers). An
 * attribute name came from the lexer as an identifier, so only subscript
 * strings need the check. */
static void append_segment(tx_strbuf *sb, const char *seg, size_t n, int is_name) {
  if (is_name) {
    tx_sb_putc(sb, '.');
    tx_sb_putn(sb, seg, n);
    return;
  }
  int dotted = n > 0;
  for (size_t i = 0, start = 0; i <= n && dotted; i++) {
    if (i == n || seg[i] == '.') {
      dotted = is_identifier(seg + start, i - start);
      start = i + 1;
    }
  }
  if (dotted) {
    tx_sb_putc(sb, '.');
    tx_sb_putn(sb, seg, n);
  } else {
    tx_sb_puts(sb, "[\"");
    for (size_t i = 0; i < n; i++) {
      if (seg[i] == '"' || seg[i] == '\\') tx_sb_putc(sb, '\\');
      tx_sb_putc(sb, seg[i]);
    }
    tx_sb_puts(sb, "\"]");
  }
}

static int qualify(builder *b, const tx_ast *a, tx_strbuf *sb, const symbol **root, int depth) {
  if (depth > TX_MAX_EXPR_DEPTH) return 0;
  if (a->kind == AST_NAME) {
    const symbol *s = bld_lookup(b, a->u.name.id);
    if (!s) return 0;
    if (root) *root = s;
    switch (s->kind) {
    case SYM_MODULE_TIRX:
      tx_sb_puts(sb, "T");
      return 1;
    case SYM_MODULE_IR:
      tx_sb_puts(sb, "I");
      return 1;
    case SYM_MODULE_TILE:
      tx_sb_puts(sb, "T.tile");
      return 1;
    case SYM_LAYOUT_NAME:
      tx_sb_puts(sb, s->alias_of);
      return 1;
    case SYM_VAR:
    case SYM_BUFFER:
    case SYM_CONST:
      return 0;
    }
    return 0;
  }
  if (a->kind == AST_ATTR) {
    if (!qualify(b, a->u.attr.value, sb, root, depth + 1)) return 0;
    append_segment(sb, a->u.attr.attr, strlen(a->u.attr.attr), 1);
    return 1;
  }
  /* Only the raw-opcode form T.ptx["..."] names a callee through a subscript. */
  if (a->kind == AST_SUBSCRIPT && a->u.subscript.index->kind == AST_STR) {
    if (!qualify(b, a->u.subscript.value, sb, root, depth + 1)) return 0;
    append_segment(sb, a->u.subscript.index->u.str.data, a->u.subscript.index->u.str.len, 0);
    return 1;
  }
  return 0;
}

const char *bld_qualified_name(builder *b, const tx_ast *callee, const symbol **root) {
  tx_strbuf *sb = &b->qualified;
  sb->len = 0;
  const char *out = NULL;
  if (qualify(b, callee, sb, root, 0)) {
    const char *s = tx_sb_cstr(sb);
    out = s ? tx_intern_n(b->ir->strings, s, sb->len) : NULL;
    if (!out) bld_oom(b);
  }
  return out;
}

/* PTX instruction names (the first opcode token) that TVM's T.ptx attribute
 * chain may start with; sorted for bsearch. A chain starting with anything
 * else stays an unknown intrinsic, so a misspelt helper is still reported
 * at parse time. */
static const char *const ptx_mnemonics[] = {
    "abs",
    "activemask",
    "add",
    "addc",
    "and",
    "applypriority",
    "atom",
    "bar",
    "barrier",
    "bfe",
    "bfi",
    "bfind",
    "brev",
    "clusterlaunchcontrol",
    "clz",
    "cnot",
    "copysign",
    "cos",
    "cp",
    "createpolicy",
    "cvt",
    "cvta",
    "discard",
    "div",
    "dp2a",
    "dp4a",
    "elect",
    "ex2",
    "fence",
    "fma",
    "fns",
    "getctarank",
    "griddepcontrol",
    "ld",
    "ldmatrix",
    "ldu",
    "lg2",
    "lop3",
    "mad",
    "mapa",
    "match",
    "max",
    "mbarrier",
    "membar",
    "min",
    "mma",
    "mov",
    "mul",
    "multimem",
    "nanosleep",
    "neg",
    "not",
    "or",
    "popc",
    "prefetch",
    "prefetchu",
    "prmt",
    "rcp",
    "red",
    "redux",
    "rem",
    "rsqrt",
    "selp",
    "set",
    "setmaxnreg",
    "setp",
    "shf",
    "shfl",
    "shl",
    "shr",
    "sin",
    "sqrt",
    "st",
    "stmatrix",
    "sub",
    "subc",
    "tanh",
    "tcgen05",
    "tensormap",
    "testp",
    "trap",
    "vote",
    "wgmma",
    "xor",
};

static int cmp_mnemonic(const void *key, const void *elt) {
  return strcmp((const char *)key, *(const char *const *)elt);
}

const char *bld_ptx_chain_name(builder *b, const char *q) {
  if (strncmp(q, "T.ptx.", 6) != 0) return NULL;
  tx_strbuf op = {.alloc = bld_alloc(b)};
  const char *p = q + 6;
  if (strncmp(p, "st_bulk.", 8) == 0) { /* TVM's family name for st.bulk */
    tx_sb_puts(&op, "st.bulk");
    p += 8;
  }
  while (*p) {
    const char *end = strchr(p, '.');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    /* A trailing '_' escapes a Python keyword (async_, global_, or_). */
    size_t keep = n > 1 && p[n - 1] == '_' && p[n - 2] != '_' ? n - 1 : n;
    if (op.len) tx_sb_putc(&op, '.');
    for (size_t i = 0; i < keep; i++) {
      if (p[i] == '_' && i + 1 < keep && p[i + 1] == '_') {
        tx_sb_puts(&op, "::"); /* shared__cta is shared::cta */
        i++;
      } else {
        tx_sb_putc(&op, p[i]);
      }
    }
    p += n + (end ? 1 : 0);
  }
  const char *text = tx_sb_cstr(&op);
  const char *out = NULL;
  if (text) {
    char first[32];
    size_t n = strcspn(text, ".");
    if (n < sizeof first) {
      memcpy(first, text, n);
      first[n] = 0;
      if (bsearch(first, ptx_mnemonics, sizeof ptx_mnemonics / sizeof *ptx_mnemonics,
                  sizeof *ptx_mnemonics, cmp_mnemonic)) {
        tx_strbuf *sb = &b->qualified;
        sb->len = 0;
        tx_sb_puts(sb, "T.ptx");
        append_segment(sb, text, op.len, 0);
        const char *s = tx_sb_cstr(sb);
        out = s ? tx_intern_n(b->ir->strings, s, sb->len) : NULL;
        if (!out) bld_oom(b);
      }
    }
  } else {
    bld_oom(b);
  }
  tx_sb_free(&op);
  return out;
}

const char *bld_raw_ptx_name(builder *b, const char *q) {
  if (strncmp(q, "T.ptx.", 6) != 0 || strchr(q, '[')) return q;
  const char *chain = bld_ptx_chain_name(b, q);
  if (chain && strcmp(chain, q) == 0) return q;
  tx_strbuf *sb = &b->qualified;
  sb->len = 0;
  tx_sb_puts(sb, "T.ptx[\"");
  for (const char *p = q + 6; *p; p++) /* dotted: identifiers and dots, nothing to escape */
    tx_sb_putc(sb, *p);
  tx_sb_puts(sb, "\"]");
  const char *s = tx_sb_cstr(sb);
  const char *out = s ? tx_intern_n(b->ir->strings, s, sb->len) : NULL;
  if (!out) bld_oom(b);
  return out;
}

static const char *ast_str_at(const void *ctx, uint32_t i, size_t *len) {
  const tx_ast *a = ((const tx_ast *)ctx)->u.call.args.items[i];
  if (a->kind != AST_STR) return NULL;
  *len = a->u.str.len;
  return a->u.str.data;
}

int bld_ptx_printed_form(builder *b, const tx_ast *call, const char *q) {
  if (strncmp(q, "T.ptx.", 6) != 0 || strchr(q + 6, '.') || call->u.call.keywords.len) return 0;
  tx_ptx_form form;
  uint32_t nargs = (uint32_t)call->u.call.args.len;
  switch (tx_ptx_form_match(q + 6, nargs, ast_str_at, call, &form)) {
  case TX_PTX_NOT_PRINTED:
    return 0;
  case TX_PTX_PRINTED:
    return 1;
  case TX_PTX_BAD_TOKENS:
    break;
  }
  /* An older helper's string arguments can read as tokens and a marker
   * (T.ptx.ld(p, "int32", "s8"): "s8" is a PTX type): a call its arity fits
   * is the helper. */
  const tx_intrinsic *older = tx_intrinsic_find(q);
  if (older && (int)nargs >= older->min_args &&
      (older->max_args < 0 || (int)nargs <= older->max_args))
    return 0;
  size_t len;
  uint32_t first = nargs - 1;
  while (first > 0 && ast_str_at(call, first - 1, &len))
    first--;
  const tx_ast *at = first < nargs - 1 ? call->u.call.args.items[first] : call;
  tx_strbuf toks = {.alloc = bld_alloc(b)};
  for (uint32_t i = first; i + 1 < nargs; i++) {
    const tx_ast *t = call->u.call.args.items[i];
    tx_sb_printf(&toks, "%s\"%s\"", i > first ? ", " : "", t->u.str.data);
  }
  const char *list = tx_sb_cstr(&toks);
  BLD_ERROR(b, at,
            "%s: no form of PTX family '%s' takes the modifier tokens (%s) with marker \"%s\" "
            "(TVM's printed form: operands, [the predicate when the marker says \"pred\",] one "
            "token per modifier slot, \"\" for an omitted one, then the marker)",
            q, q + 6, list ? list : "", call->u.call.args.items[nargs - 1]->u.str.data);
  tx_sb_free(&toks);
  return -1;
}

int bld_is_tirx_call(builder *b, const tx_ast *ast, const char *qualified) {
  if (!ast || ast->kind != AST_CALL) return 0;
  const char *q = bld_qualified_name(b, ast->u.call.func, NULL);
  return q && strcmp(q, qualified) == 0;
}

/* ---- Imports ------------------------------------------------------------------ */

static void bind_alias(builder *b, const char *name, sym_kind kind, const char *alias_of,
                       tirx_span span) {
  symbol s = {.name = bld_intern(b, name), .kind = kind, .span = span};
  s.alias_of = alias_of ? bld_intern(b, alias_of) : NULL;
  if (s.name) bld_push_symbol(b, s);
}

/* The names tvm.tirx.layout exports that a layout expression may use. */
static const char *const layout_exports[] = {
    "TileLayout", "S", "R", "ComposeLayout", "SwizzleLayout", "Axis",
};

static void build_import_from(builder *b, const tx_ast *st) {
  const char *mod = bld_dialect_module(b, st->u.import.module ? st->u.import.module : "");
  for (size_t i = 0; i < st->u.import.names.len; i++) {
    const tx_ast *al = st->u.import.names.items[i];
    const char *name = al->u.alias.name;
    const char *as = al->u.alias.asname ? al->u.alias.asname : name;
    if (strcmp(mod, "tvm.script") == 0 && strcmp(name, "tirx") == 0)
      bind_alias(b, as, SYM_MODULE_TIRX, NULL, al->span);
    else if (strcmp(mod, "tvm.script") == 0 && strcmp(name, "ir") == 0)
      bind_alias(b, as, SYM_MODULE_IR, NULL, al->span);
    else if (strcmp(mod, "tvm.script.tirx") == 0 && strcmp(name, "tile") == 0)
      bind_alias(b, as, SYM_MODULE_TILE, NULL, al->span);
    else if (strcmp(mod, "tvm.tirx.layout") == 0) {
      /* Layout constructors print as T.TileLayout; axes as Axis.<name>. */
      int known = 0;
      for (size_t k = 0; k < sizeof layout_exports / sizeof *layout_exports; k++)
        if (strcmp(name, layout_exports[k]) == 0) known = 1;
      tx_strbuf sb = {.alloc = bld_alloc(b)};
      tx_sb_printf(&sb, known ? (strcmp(name, "Axis") == 0 ? "Axis" : "T.%s") : "Axis.%s", name);
      const char *q = tx_sb_cstr(&sb);
      if (q)
        bind_alias(b, as, SYM_LAYOUT_NAME, q, al->span);
      else
        bld_oom(b); /* unbound, the name would read as unknown */
      tx_sb_free(&sb);
    }
    /* Other imports (numpy, tvm, __future__) carry no meaning in text form. */
  }
}

/* ---- Module-level constants ------------------------------------------------- */

/* `n = TypeVar("n")` (from typing): TVM's spelling of an int64 symbolic shape variable. */
static void declare_typevar(builder *b, const tx_ast *target, const tx_ast *value) {
  const tx_ast_list *a = &value->u.call.args;
  if (a->len != 1 || value->u.call.keywords.len || a->items[0]->kind != AST_STR) {
    BLD_ERROR(b, value, "TypeVar takes the variable's name: %s = TypeVar(\"%s\")",
              target->u.name.id, target->u.name.id);
    return;
  }
  if (strcmp(a->items[0]->u.str.data, target->u.name.id) != 0) {
    BLD_ERROR(b, a->items[0], "TypeVar binding '%s' must match its declared name '%s'",
              target->u.name.id, a->items[0]->u.str.data);
    return;
  }
  symbol s = {.name = target->u.name.id, .kind = SYM_VAR, .mut = MUT_FIXED, .span = target->span};
  tx_expr *v = tx_var(b->ir, target->u.name.id, TX_INT64, VAR_SYMBOLIC, target->span);
  if (!v) return bld_oom(b);
  v->u.var.typevar = 1;
  s.expr = v;
  bld_push_symbol(b, s);
}

static void build_module_assign(builder *b, const tx_ast *st) {
  if (st->u.assign.targets.len != 1 || st->u.assign.targets.items[0]->kind != AST_NAME) {
    BLD_ERROR(b, st, "only `NAME = value` assignments are allowed at module level");
    return;
  }
  const tx_ast *target = st->u.assign.targets.items[0];
  const tx_ast *value = st->u.assign.value;
  symbol s = {.name = target->u.name.id, .kind = SYM_CONST, .span = target->span};
  /* `n = T.int32()` declares a symbolic extent shared by the functions below. */
  tx_dtype dt;
  if (value->kind == AST_CALL && value->u.call.func->kind == AST_NAME &&
      strcmp(value->u.call.func->u.name.id, "TypeVar") == 0 && !bld_lookup(b, "TypeVar"))
    return declare_typevar(b, target, value);
  /* The tirx dialect's spelling; a malformed one is still declared. */
  if (bld_dynamic_dtype(b, target, value, &dt) ||
      (value->kind == AST_CALL && value->u.call.args.len == 0 && value->u.call.keywords.len == 0 &&
       bld_dtype_attr(b, value->u.call.func, &dt, 0))) {
    s.kind = SYM_VAR;
    s.mut = MUT_FIXED;
    s.expr = tx_var(b->ir, target->u.name.id, dt, VAR_SYMBOLIC, target->span);
    if (!s.expr) return bld_oom(b);
    bld_push_symbol(b, s);
    return;
  }
  if (value->kind == AST_CALL && bld_is_layout_call(b, value)) {
    const tx_layout *l = bld_layout(b, value);
    if (!l) return;
    tx_expr *e = tx_expr_new(b->ir, EXPR_LAYOUT, TX_VOID, NULL, 0, value->span);
    if (!e) return bld_oom(b);
    e->u.layout = l;
    s.expr = e;
  } else {
    s.expr = bld_expr(b, value);
    if (!s.expr) return;
    int64_t iv;
    int literal =
        s.expr->kind == EXPR_STRING || s.expr->kind == EXPR_FLOAT || bld_const_int(s.expr, &iv);
    if (!literal) {
      BLD_ERROR(b, value, "module-level constant '%s' must be a literal, a layout or T.<dtype>()",
                target->u.name.id);
      return;
    }
  }
  bld_push_symbol(b, s);
}

/* ---- Functions ----------------------------------------------------------------- */

typedef struct func_decorator {
  int ok, is_private, is_s_tir, is_persistent;
} func_decorator;

static func_decorator read_decorators(builder *b, const tx_ast *fn) {
  func_decorator d = {0};
  for (size_t i = 0; i < fn->u.funcdef.decorators.len; i++) {
    const tx_ast *dec = fn->u.funcdef.decorators.items[i];
    const tx_ast *callee = dec->kind == AST_CALL ? dec->u.call.func : dec;
    const char *q = bld_qualified_name(b, callee, NULL);
    if (bld_dialect_func_decorator(b, q)) {
      d.ok = 1;
      if (dec->kind != AST_CALL) continue;
      if (dec->u.call.args.len) BLD_ERROR(b, dec, "@%s takes only keyword arguments", q);
      for (size_t k = 0; k < dec->u.call.keywords.len; k++) {
        const tx_ast *kw = dec->u.call.keywords.items[k];
        const char *arg = kw->u.keyword.arg ? kw->u.keyword.arg : "**";
        int is_true = kw->u.keyword.value->kind == AST_TRUE;
        int is_bool = is_true || kw->u.keyword.value->kind == AST_FALSE;
        if (strcmp(arg, "private") == 0 && is_bool)
          d.is_private = is_true;
        else if (strcmp(arg, "s_tir") == 0 && is_bool)
          d.is_s_tir = is_true;
        else if (strcmp(arg, "persistent") == 0 && is_bool)
          d.is_persistent = is_true;
        else if (strcmp(arg, "check_well_formed") == 0 && is_bool)
          ; /* a Python-side switch; the text form is always checked */
        else
          BLD_ERROR(b, kw, "unsupported @%s argument '%s'", q, arg);
      }
    } else if (q && (strcmp(q, "T.jit") == 0 || strcmp(q, "T.inline") == 0 ||
                     strcmp(q, "T.meta_class") == 0 || strcmp(q, "T.macro") == 0)) {
      BLD_ERROR(b, dec, "@%s is Python metaprogramming and is not supported in text form", q);
      d.ok = -1;
    } else {
      BLD_ERROR(b, dec, "unknown decorator; expected @T.prim_func");
      d.ok = -1;
    }
  }
  if (d.ok == 0)
    BLD_ERROR(b, fn, "function '%s' must be decorated with @T.prim_func", fn->u.funcdef.name);
  return d;
}

/* A parameter: `A: T.Buffer(...)`, `a: T.handle`, `a: T.handle("float32")`, `n: T.int32`
 * (or the tirx dialect's `A: T.Tensor(...)`, `a: T.Ptr(T.float32)`). */
static int build_param(builder *b, const tx_ast *p, ptr_vec *params, ptr_vec *bufs) {
  if (p->u.param.kind != PARAM_NORMAL) {
    BLD_ERROR(b, p,
              "*args, **kwargs and keyword-only markers are not supported in kernel "
              "parameters (T.constexpr needs @T.jit, which text form does not support)");
    return 0;
  }
  if (p->u.param.default_value) {
    BLD_ERROR(b, p->u.param.default_value, "kernel parameters cannot have default values");
    return 0;
  }
  const tx_ast *ann = p->u.param.annotation;
  if (!ann) {
    BLD_ERROR(b, p, "parameter '%s' needs a type annotation (T.Buffer, T.handle or a dtype)",
              p->u.param.name);
    return 0;
  }
  const tx_buffer *buf = NULL;
  tx_expr *var = NULL;
  if (ann->kind == AST_CALL && bld_buffer_ctor_of(b, ann) == CTOR_BUFFER) {
    tx_buffer *nb = bld_buffer(b, CTOR_BUFFER, ann, p->u.param.name, p->span);
    if (!nb) return 0;
    /* The parameter is the buffer's data pointer: it prints as `A.data`. */
    var = tx_var(b->ir, p->u.param.name, TX_HANDLE, VAR_BUFFER_DATA, p->span);
    if (var) {
      var->u.var.pointee = nb->dtype;
      var->u.var.has_pointee = 1;
    }
    buf = nb;
  } else if (bld_is_tirx_call(b, ann, "T.Ptr")) {
    var = bld_ptr_param(b, ann, p->u.param.name, p->span); /* the tirx dialect's handle */
    if (!var) return 0;
  } else if (bld_tensormap_type(b, ann)) {
    /* A_map: T.TensorMap(): a by-value tensor map in a kernel's signature. */
    var = tx_var(b->ir, p->u.param.name, TX_HANDLE, VAR_PARAM, p->span);
    if (var) var->u.var.tensormap = 1;
  } else {
    tx_dtype dt;
    const tx_ast *type = ann->kind == AST_CALL ? ann->u.call.func : ann;
    if (!bld_dtype_attr(b, type, &dt, 0)) {
      BLD_ERROR(b, ann,
                "unsupported parameter annotation; expected T.Buffer(...), T.handle or a "
                "scalar dtype such as T.int32");
      return 0;
    }
    var = tx_var(b->ir, p->u.param.name, dt, VAR_PARAM, p->span);
    if (!var) return bld_oom(b), 0;
    if (ann->kind == AST_CALL) {
      /* T.handle("float32", "shared"): a typed pointer. */
      const char *scope = NULL;
      int ptr = bld_pointer_type(b, ann, &var->u.var.pointee, &var->u.var.has_pointee, &scope);
      if (ptr < 0) return 0;
      if (ptr == 0) {
        BLD_ERROR(b, ann, "only T.handle takes arguments here: T.handle(\"dtype\"[, \"scope\"])");
        return 0;
      }
      var->u.var.scope = scope;
    }
  }
  if (!var) return bld_oom(b), 0;
  if (buf) ((tx_buffer *)buf)->data = var;
  for (uint32_t i = 0; i < params->len; i++) {
    if (((const tx_expr *)params->items[i])->u.var.name == p->u.param.name) {
      BLD_ERROR(b, p, "duplicate parameter '%s'", p->u.param.name);
      return 0;
    }
  }
  symbol s = {.name = p->u.param.name,
              .kind = buf ? SYM_BUFFER : SYM_VAR,
              .mut = MUT_FIXED,
              .expr = var,
              .buffer = buf,
              .span = p->span};
  bld_push_symbol(b, s);
  return vec_push(b, params, var) && vec_push(b, bufs, buf);
}

/* `T.func_attr({...})` at the top of a body: returns 1 when consumed. */
static int build_func_attr(builder *b, const tx_ast *st) {
  if (st->kind != AST_EXPR_STMT || !bld_is_tirx_call(b, st->u.expr_stmt.value, "T.func_attr"))
    return 0;
  const tx_ast *call = st->u.expr_stmt.value;
  if (call->u.call.args.len != 1 || call->u.call.keywords.len ||
      call->u.call.args.items[0]->kind != AST_DICT) {
    BLD_ERROR(b, call, "T.func_attr takes one dict: T.func_attr({\"key\": value})");
    return 1;
  }
  const tx_ast *dict = call->u.call.args.items[0];
  for (size_t i = 0; i < dict->u.dict.keys.len; i++) {
    const tx_ast *k = dict->u.dict.keys.items[i];
    if (!k || k->kind != AST_STR) {
      BLD_ERROR(b, k ? k : dict, "attribute keys must be strings");
      continue;
    }
    const tx_expr *v = bld_arg(b, dict->u.dict.values.items[i]);
    if (!v) continue;
    vec_push(b, &b->attr_keys, bld_intern(b, k->u.str.data));
    vec_push(b, &b->attr_values, v);
  }
  return 1;
}

/* `A = T.match_buffer(a, ...)`: returns 1 when consumed. */
static int build_match_buffer(builder *b, const tx_ast *st, ptr_vec *params, ptr_vec *bufs) {
  if (st->kind != AST_ASSIGN || st->u.assign.value->kind != AST_CALL ||
      bld_buffer_ctor_of(b, st->u.assign.value) != CTOR_MATCH)
    return 0;
  const tx_ast *call = st->u.assign.value;
  const tx_ast *target = st->u.assign.targets.len == 1 ? st->u.assign.targets.items[0] : NULL;
  if (!target || target->kind != AST_NAME) {
    BLD_ERROR(b, st, "T.match_buffer must be assigned to one name");
    return 1;
  }
  const tx_ast *handle = call->u.call.args.len ? call->u.call.args.items[0] : NULL;
  const symbol *hs = handle && handle->kind == AST_NAME ? bld_lookup(b, handle->u.name.id) : NULL;
  uint32_t idx = 0;
  for (; hs && idx < params->len; idx++)
    if (params->items[idx] == hs->expr) break;
  if (!hs || hs->kind != SYM_VAR || idx == params->len) {
    BLD_ERROR(b, handle ? handle : call,
              "the first argument of T.match_buffer must be a "
              "T.handle parameter of this function");
    return 1;
  }
  if (bufs->items[idx]) {
    BLD_ERROR(b, handle, "parameter '%s' is already matched to a buffer", handle->u.name.id);
    return 1;
  }
  if (hs->expr->dtype.code != DT_HANDLE) {
    BLD_ERROR(b, handle, "T.match_buffer needs a T.handle parameter, but '%s' is a scalar",
              handle->u.name.id);
    return 1;
  }
  tx_buffer *buf = bld_buffer(b, CTOR_MATCH, call, target->u.name.id, target->span);
  if (!buf) return 1;
  buf->data = hs->expr;
  buf->origin = hs->expr;
  bufs->items[idx] = buf;
  if (bld_lookup(b, target->u.name.id) && bld_lookup(b, target->u.name.id)->kind == SYM_BUFFER) {
    BLD_ERROR(b, target, "redefinition of buffer '%s'", target->u.name.id);
    return 1;
  }
  symbol s = {.name = target->u.name.id,
              .kind = SYM_BUFFER,
              .mut = MUT_FIXED,
              .buffer = buf,
              .span = target->span};
  bld_push_symbol(b, s);
  return 1;
}

/* `n = T.int32()` among the header statements: a symbolic extent. TVM prints
 * these inside the body even when parameters use them, so they are declared
 * before the parameters are built. Returns 1 when `st` is one. */
static int is_symbolic_ctor(builder *b, const tx_ast *value) {
  tx_dtype dt;
  if (value->kind == AST_CALL && bld_is_tirx_call(b, value, "T.dynamic")) return 1;
  return value->kind == AST_CALL && !value->u.call.args.len && !value->u.call.keywords.len &&
         bld_dtype_attr(b, value->u.call.func, &dt, 0);
}

/* The tirx dialect's `n = T.dynamic("n")` is TVM 0.27's `n = T.int32()`. */
static void declare_one_symbolic(builder *b, const tx_ast *target, const tx_ast *value) {
  tx_dtype dt;
  if (!bld_dynamic_dtype(b, target, value, &dt) && !bld_dtype_attr(b, value->u.call.func, &dt, 0))
    return;
  tx_expr *v = tx_var(b->ir, target->u.name.id, dt, VAR_SYMBOLIC, target->span);
  if (!v) {
    bld_oom(b);
    return;
  }
  symbol s = {.name = target->u.name.id,
              .kind = SYM_VAR,
              .mut = MUT_FIXED,
              .expr = v,
              .span = target->span};
  if (bld_push_symbol(b, s) >= 0) vec_push(b, &b->symbolic, v);
}

/* `n = T.int32()`, or TVM's grouped `m, n = T.int32(), T.int32()`: the
 * targets and their constructors when st is one (*n of them), else 0. */
static int symbolic_decl(builder *b, const tx_ast *st, const tx_ast *const **targets,
                         const tx_ast *const **values, size_t *n) {
  if (st->kind != AST_ASSIGN || st->u.assign.targets.len != 1) return 0;
  const tx_ast *target = st->u.assign.targets.items[0], *value = st->u.assign.value;
  if (target->kind == AST_NAME && is_symbolic_ctor(b, value)) {
    *targets = (const tx_ast *const *)&st->u.assign.targets.items[0];
    *values = (const tx_ast *const *)&st->u.assign.value;
    *n = 1;
    return 1;
  }
  if (target->kind != AST_TUPLE || value->kind != AST_TUPLE ||
      target->u.seq.elts.len != value->u.seq.elts.len || !target->u.seq.elts.len)
    return 0;
  for (size_t i = 0; i < target->u.seq.elts.len; i++)
    if (target->u.seq.elts.items[i]->kind != AST_NAME ||
        !is_symbolic_ctor(b, value->u.seq.elts.items[i]))
      return 0;
  *targets = (const tx_ast *const *)target->u.seq.elts.items;
  *values = (const tx_ast *const *)value->u.seq.elts.items;
  *n = target->u.seq.elts.len;
  return 1;
}

static int declare_symbolic(builder *b, const tx_ast *st) {
  const tx_ast *const *targets, *const *values;
  size_t n;
  if (!symbolic_decl(b, st, &targets, &values, &n)) return 0;
  for (size_t i = 0; i < n; i++)
    declare_one_symbolic(b, targets[i], values[i]);
  return 1;
}

static int is_header_stmt(builder *b, const tx_ast *st) {
  const tx_ast *const *targets, *const *values;
  size_t n;
  if (st->kind == AST_EXPR_STMT) return bld_is_tirx_call(b, st->u.expr_stmt.value, "T.func_attr");
  if (symbolic_decl(b, st, &targets, &values, &n)) return 1;
  if (st->kind != AST_ASSIGN || st->u.assign.value->kind != AST_CALL) return 0;
  const tx_ast *v = st->u.assign.value;
  tx_dtype dt;
  return bld_buffer_ctor_of(b, v) == CTOR_MATCH ||
         (!v->u.call.args.len && !v->u.call.keywords.len &&
          bld_dtype_attr(b, v->u.call.func, &dt, 0));
}

static int is_buffer_param(builder *b, const tx_ast *p) {
  const tx_ast *ann = p->u.param.annotation;
  return ann && ann->kind == AST_CALL && bld_buffer_ctor_of(b, ann) == CTOR_BUFFER;
}

/* Scalar parameters are built first so that buffer shapes may use them in
 * any order (a lowered kernel prints `A: T.Buffer((n,)), n: T.int32`); the
 * parameter lists keep source order. */
static int build_params(builder *b, const tx_ast *fn, ptr_vec *params, ptr_vec *bufs) {
  size_t n = fn->u.funcdef.params.len;
  size_t *source = n ? tx_mem_alloc(bld_alloc(b), n * sizeof *source) : NULL;
  if (n && !source) return bld_oom(b), 0;
  int ok = 1;
  for (int buffers = 0; buffers < 2; buffers++) {
    for (size_t i = 0; i < n; i++) {
      const tx_ast *p = fn->u.funcdef.params.items[i];
      if (is_buffer_param(b, p) != buffers) continue;
      uint32_t before = params->len;
      ok &= build_param(b, p, params, bufs);
      if (params->len > before) source[before] = i;
    }
  }
  /* Out of memory, params and bufs may differ in length: no sorting. */
  if (b->oom) {
    tx_mem_free(bld_alloc(b), source);
    return 0;
  }
  /* Back to source order: an insertion sort over a handful of parameters. */
  for (uint32_t i = 1; i < params->len; i++) {
    for (uint32_t j = i; j > 0 && source[j - 1] > source[j]; j--) {
      size_t s = source[j];
      source[j] = source[j - 1];
      source[j - 1] = s;
      const void *t = params->items[j];
      params->items[j] = params->items[j - 1];
      params->items[j - 1] = t;
      t = bufs->items[j];
      bufs->items[j] = bufs->items[j - 1];
      bufs->items[j - 1] = t;
    }
  }
  tx_mem_free(bld_alloc(b), source);
  return ok;
}

/* `-> T.int32`: 1 with *out set for a scalar dtype. Other annotations (none,
 * a pointer type) are not kept: TVM's printed form only shows scalar ones. */
static int build_return_dtype(builder *b, const tx_ast *returns, tx_dtype *out) {
  if (!returns || !bld_dtype_attr(b, returns, out, 0)) return 0;
  return out->code != DT_HANDLE;
}

/* ---- Symbolic variables a function uses ----------------------------------- */

/* `n = T.int32()` declares a variable; TVM prints one so for a free variable
 * and for a T.Let binder alike. Only the ones the function refers to are its
 * symbolic variables: a declaration a T.Let took as its binder's, or one
 * nothing reads, is not (TVM's IR has no such variable, and it must not make
 * two prints of one program differ). */
typedef struct {
  const tx_expr *const *vars;
  uint8_t *used;
  uint32_t n, left;
} symbolic_uses;

static void mark_symbolic_use(tx_visitor *v, const tx_expr *e) {
  symbolic_uses *u = v->user;
  for (uint32_t i = 0; i < u->n; i++)
    if (u->vars[i] == e && !u->used[i]) {
      u->used[i] = 1;
      if (--u->left == 0) v->stop = 1;
    }
}

static int symbolic_use_expr(tx_visitor *v, const tx_expr *e) {
  if (e->kind == EXPR_VAR) mark_symbolic_use(v, e);
  if (e->kind == EXPR_LOAD || e->kind == EXPR_BUFFER || e->kind == EXPR_REGION)
    tx_visit_buffer_fields(v, e->u.buffer);
  return 1;
}

static int symbolic_use_stmt(tx_visitor *v, const tx_stmt *s) {
  if (s->buffer) tx_visit_buffer_fields(v, s->buffer);
  return 1;
}

/* Keep, in declaration order, the symbolic variables f (symbolic list not
 * yet set) refers to. */
static void keep_used_symbolic(builder *b, const tx_func *f) {
  uint32_t n = b->symbolic.len;
  if (n == 0) return;
  uint8_t *used = tx_mem_calloc(bld_alloc(b), n, 1);
  if (!used) {
    bld_oom(b);
    return;
  }
  symbolic_uses u = {(const tx_expr *const *)b->symbolic.items, used, n, n};
  tx_visitor v = {.user = &u,
                  .pre_expr = symbolic_use_expr,
                  .pre_stmt = symbolic_use_stmt,
                  .visit_buffer_defs = 1};
  tx_visit_func(&v, f);
  uint32_t kept = 0;
  for (uint32_t i = 0; i < n; i++)
    if (used[i]) b->symbolic.items[kept++] = b->symbolic.items[i];
  b->symbolic.len = kept;
  tx_mem_free(bld_alloc(b), used);
}

static const tx_func *build_func(builder *b, const tx_ast *fn) {
  func_decorator dec = read_decorators(b, fn);
  if (dec.ok < 0) return NULL;
  uint32_t mark = bld_scope_mark(b);
  ptr_vec params = {0}, bufs = {0};
  int ok = 1;
  b->symbolic.len = 0;
  ok &= bld_type_params(b, fn);
  for (size_t i = 0; i < fn->u.funcdef.body.len; i++) {
    const tx_ast *st = fn->u.funcdef.body.items[i];
    if (!is_header_stmt(b, st)) break;
    declare_symbolic(b, st);
  }
  ok &= build_params(b, fn, &params, &bufs);
  if (b->oom) { /* the lists may be cut short: nothing below may index them */
    vec_free(&params);
    vec_free(&bufs);
    bld_scope_pop(b, mark);
    return NULL;
  }

  b->in_function = 1;
  b->loop_depth = 0;
  b->flat_entry_seen = 0;
  b->entry_depth = 0;
  b->if_depth = 0;
  b->launch_entry = NULL;
  b->dyn_shared_span = (tirx_span){0};

  /* Header statements: func_attr, symbolic extents and match_buffer come first. */
  const tx_ast_list *body = &fn->u.funcdef.body;
  size_t first = 0;
  for (; first < body->len; first++) {
    const tx_ast *st = body->items[first];
    if (!is_header_stmt(b, st)) break;
    if (!build_func_attr(b, st)) build_match_buffer(b, st, &params, &bufs);
  }
  tx_ast_list rest = {body->items + first, body->len - first};
  b->s_tir = dec.is_s_tir;
  const tx_stmt *stmt = dec.is_s_tir ? bld_s_tir_body(b, &rest, fn->span) : bld_block(b, &rest);
  b->s_tir = 0;

  tx_func *f = tx_arena_alloc(b->ir->arena, sizeof *f);
  if (!f) bld_oom(b);
  if (f && stmt && ok && !b->oom) {
    f->name = fn->u.funcdef.name;
    f->nparams = params.len;
    f->params = (const tx_expr *const *)vec_finish(b, &params);
    f->param_bufs =
        (const tx_buffer *const *)tx_ir_dup_ptrs(b->ir, (const void *const *)bufs.items, bufs.len);
    f->nattrs = b->attr_keys.len;
    f->attr_keys = (const char *const *)vec_finish(b, &b->attr_keys);
    f->attr_values = (const tx_expr *const *)vec_finish(b, &b->attr_values);
    f->body = stmt;
    keep_used_symbolic(b, f);
    f->nsymbolic = b->symbolic.len;
    f->symbolic = (const tx_expr *const *)vec_finish(b, &b->symbolic);
    f->is_private = dec.is_private;
    f->is_s_tir = dec.is_s_tir;
    f->is_persistent = dec.is_persistent;
    f->has_ret = build_return_dtype(b, fn->u.funcdef.returns, &f->ret_dtype);
    f->span = fn->span;
  }
  b->attr_keys.len = b->attr_values.len = b->symbolic.len = 0;
  vec_free(&params);
  vec_free(&bufs);
  b->in_function = 0;
  bld_scope_pop(b, mark);
  return f && stmt && ok && !b->oom ? f : NULL;
}

/* ---- Module ------------------------------------------------------------------ */

static int is_docstring(const tx_ast *st) {
  return st->kind == AST_EXPR_STMT &&
         (st->u.expr_stmt.value->kind == AST_STR || st->u.expr_stmt.value->kind == AST_ELLIPSIS);
}

/* A hash lookup by the interned name: a module of many functions must not
 * cost a scan of all earlier ones per function. */
static int check_unique_name(builder *b, const tx_func *f) {
  const tx_func *g = tx_ptrmap_get(&b->func_of, f->name);
  if (g) {
    tx_error(b->diags, f->span, "redefinition of function '%s'", f->name);
    tx_note(b->diags, g->span, "previous definition of '%s' is here", f->name);
  } else if (!tx_ptrmap_put(&b->func_of, f->name, (void *)f)) {
    bld_oom(b);
  }
  return !g;
}

/* Adds a built function to the module's list: its name must be new, and
 * the module may hold TX_MAX_FUNCS (every pass and the runtime walk the
 * list, and each function costs tens of KiB of IR as it is lowered). */
static void add_func(builder *b, ptr_vec *funcs, const tx_func *f, const tx_ast *def) {
  if (!check_unique_name(b, f)) return;
  if (funcs->len == TX_MAX_FUNCS) {
    if (!b->funcs_full)
      BLD_ERROR(b, def, "too many functions in one module (limit %d)", TX_MAX_FUNCS);
    b->funcs_full = 1;
    return;
  }
  vec_push(b, funcs, f);
}

/* `I.module_attrs({"key": value, ...})` in the class body: returns 1 when consumed. The
 * values are literals (TVM's tirx.iket.enabled is a Python bool). */
static int build_module_attrs(builder *b, const tx_ast *st, tx_module *mod) {
  if (st->kind != AST_EXPR_STMT || st->u.expr_stmt.value->kind != AST_CALL) return 0;
  const tx_ast *call = st->u.expr_stmt.value;
  const char *q = bld_qualified_name(b, call->u.call.func, NULL);
  if (!q || strcmp(q, "I.module_attrs") != 0) return 0;
  if (call->u.call.args.len != 1 || call->u.call.keywords.len ||
      call->u.call.args.items[0]->kind != AST_DICT) {
    BLD_ERROR(b, call, "I.module_attrs takes one dict: I.module_attrs({\"key\": value})");
    return 1;
  }
  if (mod->nattrs) {
    BLD_ERROR(b, call, "I.module_attrs appears twice in one module");
    return 1;
  }
  const tx_ast *dict = call->u.call.args.items[0];
  ptr_vec keys = {0}, vals = {0};
  int ok = 1;
  for (size_t i = 0; i < dict->u.dict.keys.len && ok; i++) {
    const tx_ast *k = dict->u.dict.keys.items[i];
    if (!k || k->kind != AST_STR) {
      BLD_ERROR(b, k ? k : dict, "attribute keys must be strings");
      ok = 0;
      break;
    }
    const tx_expr *v = bld_arg(b, dict->u.dict.values.items[i]);
    ok = v && vec_push(b, &keys, bld_intern(b, k->u.str.data)) && vec_push(b, &vals, v);
  }
  if (ok) {
    mod->nattrs = keys.len;
    mod->attr_keys = (const char *const *)vec_finish(b, &keys);
    mod->attr_values = (const tx_expr *const *)vec_finish(b, &vals);
  }
  vec_free(&keys);
  vec_free(&vals);
  return 1;
}

static void build_class(builder *b, const tx_ast *cls, tx_module *mod, ptr_vec *funcs) {
  int is_module = 0;
  for (size_t i = 0; i < cls->u.classdef.decorators.len; i++) {
    const char *q = bld_qualified_name(b, cls->u.classdef.decorators.items[i], NULL);
    if (bld_dialect_module_decorator(b, q)) is_module = 1;
  }
  if (!is_module) {
    BLD_ERROR(b, cls,
              "class '%s' must be decorated with @I.ir_module or @T.ir_module, without "
              "arguments (other classes are Python metaprogramming, not supported in text form)",
              cls->u.classdef.name);
    return;
  }
  if (mod->name) {
    BLD_ERROR(b, cls, "only one @I.ir_module class is allowed per file");
    return;
  }
  mod->name = cls->u.classdef.name;
  b->module_class = cls;
  for (size_t i = 0; i < cls->u.classdef.body.len && !tx_diag_saturated(b->diags); i++) {
    const tx_ast *st = cls->u.classdef.body.items[i];
    if (st->kind == AST_PASS || is_docstring(st)) continue;
    if (build_module_attrs(b, st, mod)) continue;
    if (st->kind != AST_FUNCDEF) {
      BLD_ERROR(b, st,
                "an @I.ir_module class may only contain @T.prim_func functions and "
                "I.module_attrs({...})");
      continue;
    }
    const tx_func *f = build_func(b, st);
    if (f) add_func(b, funcs, f, st);
  }
}

static void build_top_level(builder *b, const tx_ast *st, tx_module *mod, ptr_vec *funcs) {
  if (st->kind == AST_IMPORT || st->kind == AST_PASS || is_docstring(st)) return;
  if (st->kind == AST_IMPORTFROM) return build_import_from(b, st);
  if (st->kind == AST_ASSIGN) return build_module_assign(b, st);
  if (st->kind == AST_FUNCDEF) {
    if (mod->name) {
      BLD_ERROR(b, st, "functions must be inside the @I.ir_module class once one is declared");
      return;
    }
    const tx_func *f = build_func(b, st);
    if (f) add_func(b, funcs, f, st);
    return;
  }
  if (st->kind == AST_CLASSDEF) {
    if (funcs->len)
      BLD_ERROR(b, st, "an @I.ir_module class cannot follow top-level functions");
    else
      build_class(b, st, mod, funcs);
    return;
  }
  BLD_ERROR(b, st,
            "unexpected %s at module level; expected imports, constants and "
            "@T.prim_func functions",
            tx_ast_kind_name(st->kind));
}

static void intern_common_names(builder *b) {
#define N(field, text) b->n.field = bld_intern(b, text)
  N(T, "T");
  N(I, "I");
  N(range, "range");
  N(None, "None");
  N(dtype, "dtype");
  N(scope, "scope");
  N(data, "data");
  N(strides, "strides");
  N(elem_offset, "elem_offset");
  N(align, "align");
  N(offset_factor, "offset_factor");
  N(layout, "layout");
  N(allocated_addr, "allocated_addr");
  N(shape, "shape");
  N(thread, "thread");
  N(preferred, "preferred");
  N(private_, "private");
  N(annotations, "annotations");
  N(step, "step");
  N(global, "global");
  N(shared, "shared");
  N(shared_dyn, "shared.dyn");
  N(local, "local");
  N(m, "m");
  N(where, "where");
#undef N
}

tirx_status tx_build_module(tx_ir *ir, tx_diag_sink *diags, const char *file,
                            const tx_ast_list *stmts, tx_module **out) {
  *out = NULL;
  const tirx_allocator *alloc = tx_ir_alloc(ir);
  builder b = {.ir = ir,
               .diags = diags,
               .file = file,
               .qualified = {.alloc = alloc},
               .dtype_of = {.alloc = alloc},
               .func_of = {.alloc = alloc}};
  intern_common_names(&b);
  /* Printed TVMScript carries its imports as comments: T and I work without them. */
  bind_alias(&b, "T", SYM_MODULE_TIRX, NULL, (tirx_span){0});
  bind_alias(&b, "Tx", SYM_MODULE_TIRX, NULL, (tirx_span){0});
  bind_alias(&b, "I", SYM_MODULE_IR, NULL, (tirx_span){0});
  bind_alias(&b, "Axis", SYM_LAYOUT_NAME, "Axis", (tirx_span){0});
  size_t errors_before = tx_diag_errors(diags);

  tx_module *mod = tx_arena_alloc(ir->arena, sizeof *mod);
  ptr_vec funcs = {0};
  if (!mod) bld_oom(&b);
  for (size_t i = 0; mod && i < stmts->len && !b.oom && !tx_diag_saturated(diags); i++)
    build_top_level(&b, stmts->items[i], mod, &funcs);
  if (mod && !b.oom && funcs.len == 0 && !mod->name && tx_diag_errors(diags) == errors_before) {
    tirx_span start = {.file = file, .line = 1, .col = 1, .end_line = 1, .end_col = 1};
    tx_error(diags, start, "no @T.prim_func function found");
  }
  if (mod) {
    mod->nfuncs = funcs.len;
    mod->dialect = b.dialect;
    mod->funcs = (const tx_func *const *)vec_finish(&b, &funcs);
  }
  vec_free(&funcs);
  vec_free(&b.symbolic);
  vec_free(&b.attr_keys);
  vec_free(&b.attr_values);
  tx_sb_free(&b.qualified);
  tx_ptrmap_free(&b.dtype_of);
  tx_ptrmap_free(&b.func_of);
  tx_mem_free(alloc, b.syms);
  tx_mem_free(alloc, b.heads);
  if (b.oom) return TIRX_ERR_NOMEM;
  if (tx_diag_errors(diags) > errors_before) return TIRX_ERR_INPUT;
  *out = mod;
  return TIRX_OK;
}
