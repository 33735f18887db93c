/*
 * dispatch_tile.c - the dispatch-tile pass: every tile-primitive call
 * (STMT_TILE_OP: `T.tile.copy(dst, src)`, `T.cta.sum(...)`) becomes the IR
 * of the first implementation the target offers that applies, as TVM's
 * TilePrimitiveDispatcher does:
 *  - the call's scope comes from its namespace (T.tile. thread, T.warp.,
 *    T.wg., T.cta., T.cluster.), its op from the rest of the name;
 *  - the candidates are the backend's variants of that op (tx_backend's
 *    tile_variants hook, target/tile.h), by priority, then name; a
 *    forced-only variant is tried only when dispatch= names it;
 *  - `dispatch="name"` keeps only that variant (a name the op does not
 *    have is a located error listing the ones it has);
 *  - the first variant whose predicate passes expands the call; one that
 *    declines lets the search go on;
 *  - when none applies, a located error at the call shows each variant,
 *    its priority and why it did not apply.
 * It runs after unify-thread-binding, so the launch is in place: the
 * device entry's block=(x, y, z) and one T.launch_thread binding per
 * threadIdx tag give each call the size of its scope's thread group and
 * the calling thread's index in it; the enclosing `if` conditions say
 * whether the whole group runs the call (a uniformity analysis: a value is
 * the same for every thread of a warp when it is a warp id, tid // 32, a
 * block id, a literal, ...; anything it cannot tell is per thread).
 * With a dispatch log (tx_pass_ctx.dispatch_log, tirxc --explain-dispatch)
 * each choice is written there as `FILE:LINE:COL: OP -> VARIANT (priority
 * P)`. Must not: know any variant (they live in target/<backend>/).
 */
#include <stdlib.h>
#include <string.h>

#include "ir/ptrmap.h"
#include "passes/lower_common.h"
#include "passes/pass.h"

static const char PASS[] = "dispatch-tile";

enum { MAX_CANDIDATES = 32 };

enum { MAX_CONDS = 64 };

/* How far a value is the same across threads: for every thread of a ...
 * (narrowest first, as the scopes). */
typedef enum uniformity { UNI_THREAD, UNI_WARP, UNI_WARPGROUP, UNI_CTA } uniformity;

typedef struct dt_state {
  tx_pass_ctx *pc;
  const tx_tile_variant *all;
  uint32_t nall;
  tx_lc_names names;
  int oom, errors;
  /* the kernel being walked: block=(x, y, z) (0: not a constant) and the
   * threadIdx.{x,y,z} variables (NULL: not bound) */
  int64_t block[3];
  const tx_expr *tid[3];
  tx_ptrmap uniform;               /* bound and loop variable -> its uniformity + 1 */
  tx_ptrmap linear;                /* variables that are a linear thread index (below) */
  const tx_expr *conds[MAX_CONDS]; /* the enclosing if/while conditions */
  uint32_t nconds;
} dt_state;

/* ---- the call ------------------------------------------------------------------- */

static const struct {
  const char *prefix;
  tx_tile_scope scope;
} SCOPES[] = {{"T.tile.", TX_SCOPE_THREAD},         {"T.thread.", TX_SCOPE_THREAD},
              {"T.warp.", TX_SCOPE_WARP},           {"T.wg.", TX_SCOPE_WARPGROUP},
              {"T.warpgroup.", TX_SCOPE_WARPGROUP}, {"T.cta.", TX_SCOPE_CTA},
              {"T.cluster.", TX_SCOPE_CLUSTER}};

/* The op after the scope prefix ("copy"), *scope set; NULL for no prefix. */
static const char *split_name(const char *name, tx_tile_scope *scope) {
  for (size_t i = 0; i < sizeof SCOPES / sizeof *SCOPES; i++) {
    size_t n = strlen(SCOPES[i].prefix);
    if (strncmp(name, SCOPES[i].prefix, n) == 0) {
      *scope = SCOPES[i].scope;
      return name + n;
    }
  }
  return NULL;
}

/* The dispatch= keyword, or NULL (st->oom when its name cannot be interned). */
static const tx_expr *dispatch_kwarg(dt_state *st, const tx_stmt *s) {
  const char *name = tx_intern(st->pc->ir->strings, "dispatch");
  if (!name) st->oom = 1;
  return name ? tx_kwarg(&s->kw, s->exprs, s->nexprs, name) : NULL;
}

static int by_priority(const void *a, const void *b) {
  const tx_tile_variant *x = *(const tx_tile_variant *const *)a;
  const tx_tile_variant *y = *(const tx_tile_variant *const *)b;
  if (x->priority != y->priority) return x->priority > y->priority ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* The variants of op, best first; their count. */
static uint32_t candidates(const dt_state *st, const char *op, const tx_tile_variant **out) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < st->nall && n < MAX_CANDIDATES; i++)
    if (strcmp(st->all[i].op, op) == 0) out[n++] = &st->all[i];
  qsort(out, n, sizeof *out, by_priority);
  return n;
}

static const char *fresh(void *user, const char *base) {
  dt_state *st = user;
  tx_ir *ir = st->pc->ir;
  const char *b = tx_intern(ir->strings, base);
  return b ? tx_lc_fresh_name(&st->names, ir, b) : NULL;
}

/* ---- reporting ------------------------------------------------------------------ */

static void unknown_variant(dt_state *st, const tx_stmt *s, const tx_expr *want,
                            const tx_tile_variant *const *cand, uint32_t n) {
  tx_strbuf known = {.alloc = tx_ir_alloc(st->pc->ir)};
  for (uint32_t i = 0; i < n; i++)
    tx_sb_printf(&known, "%s%s", i ? ", " : "", cand[i]->name);
  const char *list = n ? tx_sb_cstr(&known) : "none";
  if (!list) {
    st->oom = 1; /* the message could not be made: an out-of-memory run */
  } else {
    tx_error(st->pc->diags, want->span, "%s has no variant '%.*s' on %s (variants: %s)", s->name,
             (int)want->u.str.len, want->u.str.data, tx_target_backend(st->pc->target)->name, list);
    st->errors++;
  }
  tx_sb_free(&known);
}

/* The table of why each candidate did not apply. */
static void nothing_applies(dt_state *st, const tx_stmt *s, const tx_tile_variant *const *cand,
                            const char *const *why, uint32_t n, const tx_tile_call *c) {
  const char *backend = tx_target_backend(st->pc->target)->name;
  if (!n) {
    tx_error(st->pc->diags, s->span,
             "tile primitive %s is not lowered yet: %s has no variant of '%s' (scope %s)", s->name,
             backend, c->op, tx_tile_scope_name(c->scope));
    st->errors++;
    return;
  }
  tx_strbuf t = {.alloc = tx_ir_alloc(st->pc->ir)};
  tx_sb_printf(&t, "no %s variant of %s applies (scope %s):\n  %-12s %-8s %s", backend, s->name,
               tx_tile_scope_name(c->scope), "variant", "priority", "why not");
  for (uint32_t i = 0; i < n; i++)
    tx_sb_printf(&t, "\n  %-12s %-8d %s", cand[i]->name, cand[i]->priority, why[i]);
  const char *table = tx_sb_cstr(&t);
  if (!table) {
    st->oom = 1; /* the message could not be made: an out-of-memory run */
  } else {
    tx_error(st->pc->diags, s->span, "%s", table);
    st->errors++;
  }
  tx_sb_free(&t);
}

static void explain(dt_state *st, const tx_stmt *s, const tx_tile_variant *v) {
  tx_strbuf *log = st->pc->dispatch_log;
  if (!log) return;
  tx_sb_printf(log, "%s:%u:%u: %s -> %s (priority %d)\n", s->span.file ? s->span.file : "<input>",
               s->span.line, s->span.col, s->name, v->name, v->priority);
}

/* ---- thread groups ---------------------------------------------------------------- */

static int64_t cta_threads(const dt_state *st) {
  return st->block[0] && st->block[1] && st->block[2] ? st->block[0] * st->block[1] * st->block[2]
                                                      : 0;
}

/* The widest group that aligned runs of c consecutive threads fill (the
 * whole CTA when c is a multiple of its size). */
static uniformity group_of(const dt_state *st, int64_t c) {
  int64_t n = cta_threads(st);
  if (c > 0 && n && c % n == 0) return UNI_CTA;
  return c > 0 && c % 128 == 0 ? UNI_WARPGROUP : c > 0 && c % 32 == 0 ? UNI_WARP : UNI_THREAD;
}

static uniformity narrower(uniformity a, uniformity b) {
  return a < b ? a : b;
}

/* Is e the CTA's linear thread index up to an aligned wrap: threadIdx.x
 * (when rows of it are whole groups of c), a variable bound to one, or
 * one % m with m a multiple of c? Then e // c is the same across aligned
 * runs of c threads. */
static int linear_index(const dt_state *st, const tx_expr *e, int64_t c) {
  int64_t m;
  if (e->kind == EXPR_VAR && e == st->tid[0])
    return st->block[0] % c == 0 || (st->block[1] == 1 && st->block[2] == 1);
  if (e->kind == EXPR_VAR)
    return tx_ptrmap_has(&st->linear, e) && linear_index(st, tx_ptrmap_get(&st->linear, e), c);
  if (e->kind == EXPR_FLOORMOD && tx_expr_int_literal(e->ops[1], &m) && m > 0 && m % c == 0)
    return linear_index(st, e->ops[0], c);
  return 0;
}

static uniformity uniform(const dt_state *st, const tx_expr *e);

static uniformity uniform_ops(const dt_state *st, const tx_expr *e) {
  uniformity u = UNI_CTA;
  for (uint32_t i = 0; i < e->nops; i++)
    u = narrower(u, uniform(st, e->ops[i]));
  return u;
}

static uniformity uniform_var(const dt_state *st, const tx_expr *e) {
  if (e == st->tid[0]) return UNI_THREAD;
  if (e == st->tid[1]) return group_of(st, st->block[0]);
  if (e == st->tid[2]) return group_of(st, st->block[0] * st->block[1]);
  uintptr_t u = (uintptr_t)tx_ptrmap_get(&st->uniform, e);
  return u ? (uniformity)(u - 1) : UNI_CTA; /* parameters, block ids */
}

/* How far e is the same across threads. Loads and calls (elect_sync, lane
 * ids, shuffles) count as per thread: the analysis never claims more than
 * it can show. */
static uniformity uniform(const dt_state *st, const tx_expr *e) {
  int64_t c;
  if (!e) return UNI_CTA;
  switch ((tx_expr_kind)e->kind) {
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STRING:
  case EXPR_NONE:
    return UNI_CTA;
  case EXPR_VAR:
    return uniform_var(st, e);
  case EXPR_FLOORDIV:
  case EXPR_DIV:
    if (tx_expr_int_literal(e->ops[1], &c) && c > 0 && linear_index(st, e->ops[0], c)) {
      uniformity u = group_of(st, c);
      return u > uniform(st, e->ops[0]) ? u : uniform(st, e->ops[0]);
    }
    return uniform_ops(st, e);
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
  case EXPR_MOD:
  case EXPR_FLOORMOD:
  case EXPR_MIN:
  case EXPR_MAX:
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE:
  case EXPR_AND:
  case EXPR_OR:
  case EXPR_NOT:
  case EXPR_SELECT:
  case EXPR_CAST:
  case EXPR_RAMP:
  case EXPR_BROADCAST:
  case EXPR_TUPLE:
    return uniform_ops(st, e);
  case EXPR_LOAD:
  case EXPR_LET:
  case EXPR_CALL:
  case EXPR_BUFFER:
  case EXPR_REGION:
  case EXPR_SLICE:
  case EXPR_LAYOUT:
  case EXPR_LAMBDA:
  case TX_EXPR_KIND_COUNT:
    break;
  }
  return UNI_THREAD;
}

static void note_uniform(dt_state *st, const tx_expr *var, uniformity u) {
  if (!tx_ptrmap_put(&st->uniform, var, (void *)(uintptr_t)(u + 1))) st->oom = 1;
}

static const char *const TID_TAGS[3] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};

/* The launch and the bindings the walk passes: the device entry's block,
 * threadIdx variables, what every bound or loop variable is uniform over. */
static void note_stmt(dt_state *st, const tx_stmt *s) {
  if (s->kind == STMT_DEVICE_ENTRY) {
    const char *kw = tx_intern(st->pc->ir->strings, "block");
    const tx_expr *b = kw ? tx_kwarg(&s->kw, s->exprs, s->nexprs, kw) : NULL;
    if (!kw) st->oom = 1;
    for (uint32_t i = 0; i < 3; i++) {
      const tx_expr *d = b && b->kind == EXPR_TUPLE && i < b->nops ? b->ops[i] : NULL;
      if (!d || !tx_expr_int_literal(d, &st->block[i]) || st->block[i] <= 0)
        st->block[i] = d || !b ? 0 : 1;
      st->tid[i] = NULL;
    }
    return;
  }
  if (s->kind == STMT_FOR && s->nvars) {
    note_uniform(st, s->vars[0], narrower(uniform(st, s->exprs[0]), uniform(st, s->exprs[1])));
    return;
  }
  if (s->kind != STMT_BIND || !s->nvars || !s->nexprs) return;
  const tx_expr *v = s->vars[0], *val = s->exprs[0];
  if (val->kind == EXPR_CALL && strcmp(val->u.call.op, "T.launch_thread") == 0 && val->nops &&
      val->ops[0]->kind == EXPR_STRING) {
    for (int i = 0; i < 3; i++)
      if (strcmp(val->ops[0]->u.str.data, TID_TAGS[i]) == 0) st->tid[i] = v;
    return;
  }
  if (s->flag != BIND_PLAIN && s->flag != BIND_LET && s->flag != BIND_LET_TYPED) {
    note_uniform(st, v, UNI_THREAD); /* a variable written again later */
    return;
  }
  note_uniform(st, v, uniform(st, val));
  if ((val->kind == EXPR_VAR && (val == st->tid[0] || tx_ptrmap_has(&st->linear, val))) ||
      val->kind == EXPR_FLOORMOD)
    if (!tx_ptrmap_put(&st->linear, v, (void *)val)) st->oom = 1;
}

/* The calling thread's index in the CTA: tx + ty * bx + tz * bx * by. */
static const tx_expr *cta_index(dt_state *st) {
  tx_ir *ir = st->pc->ir;
  const tx_expr *t = NULL;
  int64_t stride = 1;
  for (int i = 0; i < 3; i++) {
    if (st->block[i] != 1) {
      if (!st->tid[i]) return NULL;
      const tx_expr *term = tx_lc_muli(ir, tx_lc_cast(ir, TX_INT32, st->tid[i]), stride);
      t = t ? tx_lc_add(ir, t, term) : term;
      if (!t) return st->oom = 1, NULL;
    }
    stride *= st->block[i];
  }
  return t ? t : tx_lc_int(ir, TX_INT32, 0);
}

static const uniformity SCOPE_UNIFORMITY[TX_TILE_SCOPE_COUNT] = {[TX_SCOPE_THREAD] = UNI_THREAD,
                                                                 [TX_SCOPE_WARP] = UNI_WARP,
                                                                 [TX_SCOPE_WARPGROUP] =
                                                                     UNI_WARPGROUP,
                                                                 [TX_SCOPE_CTA] = UNI_CTA,
                                                                 [TX_SCOPE_CLUSTER] = UNI_CTA};

/* c's thread group: its size, the caller's index in it, and whether an
 * enclosing condition narrows it. */
static void thread_group(dt_state *st, tx_tile_call *c) {
  int64_t n = cta_threads(st), size = c->scope == TX_SCOPE_WARP        ? 32
                                      : c->scope == TX_SCOPE_WARPGROUP ? 128
                                                                       : n;
  if (c->scope == TX_SCOPE_THREAD) {
    c->nthreads = 1;
    c->thread_index = tx_lc_int(st->pc->ir, TX_INT32, 0);
    return;
  }
  if (n && size > n) size = n; /* a CTA smaller than its warp: that part of it */
  c->nthreads = n && n % size == 0 ? size : 0;
  const tx_expr *t = c->nthreads ? cta_index(st) : NULL;
  c->thread_index = t && size < n ? tx_lc_modi(st->pc->ir, t, size) : t;
  for (uint32_t i = 0; i < st->nconds; i++)
    if (uniform(st, st->conds[i]) < SCOPE_UNIFORMITY[c->scope]) {
      c->narrowed = "not every thread of the scope runs the call (an enclosing condition "
                    "differs between them)";
      break;
    }
}

/* ---- one call ------------------------------------------------------------------- */

static int names_variant(const tx_expr *want, const tx_tile_variant *v) {
  return strlen(v->name) == want->u.str.len &&
         memcmp(v->name, want->u.str.data, want->u.str.len) == 0;
}

static const tx_stmt *dispatch_call(dt_state *st, const tx_stmt *s) {
  tx_tile_call c = {.stmt = s,
                    .target = st->pc->target,
                    .ir = st->pc->ir,
                    .diags = st->pc->diags,
                    .fresh_name = fresh,
                    .user = st};
  c.op = split_name(s->name, &c.scope);
  if (!c.op) {
    tx_internal_error(st->pc->diags, PASS, "tile primitive %s has no scope prefix", s->name);
    st->errors++;
    return s;
  }
  thread_group(st, &c);
  if (st->oom) return s;
  const tx_tile_variant *cand[MAX_CANDIDATES];
  const char *why[MAX_CANDIDATES];
  uint32_t n = candidates(st, c.op, cand);
  const tx_expr *want = dispatch_kwarg(st, s);
  if (st->oom) return s;
  if (want && want->kind != EXPR_STRING) {
    tx_error(st->pc->diags, want->span, "dispatch= names a variant with a string");
    st->errors++;
    return s;
  }
  uint32_t tried = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (want ? !names_variant(want, cand[i]) : cand[i]->forced_only) continue;
    cand[tried] = cand[i];
    why[tried] = cand[i]->reject(&c);
    if (!why[tried]) {
      const tx_stmt *r = cand[i]->expand(&c, &why[tried]);
      if (c.oom) {
        st->oom = 1;
        return s;
      }
      if (r) {
        explain(st, s, cand[i]);
        return r;
      }
      if (!why[tried]) why[tried] = "declined";
    }
    tried++;
  }
  if (want && !tried)
    unknown_variant(st, s, want, cand, n);
  else
    nothing_applies(st, s, cand, why, tried, &c);
  return s;
}

/* ---- the walk ------------------------------------------------------------------- */

/* A conditional statement: its branches are walked with its condition on
 * the stack of enclosing ones. */
static const tx_stmt *under_condition(tx_mutator *m, dt_state *st, const tx_stmt *s) {
  if (st->nconds == MAX_CONDS) {
    tx_error(st->pc->diags, s->span, "conditions nested more than %d deep around tile primitives",
             MAX_CONDS);
    st->errors++;
    return s;
  }
  st->conds[st->nconds++] = s->exprs[0];
  const tx_stmt *r = tx_mutate_stmt_children(m, s);
  st->nconds--;
  return r;
}

static const tx_stmt *dt_stmt(tx_mutator *m, const tx_stmt *s) {
  dt_state *st = m->user;
  if (st->oom || tx_diag_saturated(st->pc->diags)) return NULL;
  note_stmt(st, s);
  if ((s->kind == STMT_IF || s->kind == STMT_WHILE) && s->nexprs) return under_condition(m, st, s);
  if (s->kind != STMT_TILE_OP) return NULL;
  return dispatch_call(st, s);
}

static const tx_func *dispatch_func(void *state, const tx_func *f) {
  dt_state *st = state;
  tx_lc_names_collect(&st->names, st->pc, f);
  tx_ptrmap_clear(&st->uniform);
  tx_ptrmap_clear(&st->linear);
  st->nconds = 0;
  for (int i = 0; i < 3; i++) {
    st->block[i] = 1; /* host code, until a device entry says otherwise */
    st->tid[i] = NULL;
  }
  tx_mutator m = {.ir = st->pc->ir, .user = st, .stmt = dt_stmt};
  const tx_func *r = tx_mutate_func(&m, f);
  if (m.failed || st->names.failed) st->oom = 1;
  return st->oom ? NULL : r;
}

static int is_tile_op(const tx_stmt *s) {
  return s->kind == STMT_TILE_OP;
}

tirx_status tx_pass_dispatch_tile(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  *out = in;
  if (!tx_lc_any_stmt(in, is_tile_op)) return TIRX_OK;
  dt_state st = {.pc = pc};
  st.uniform.alloc = st.linear.alloc = tx_ir_alloc(pc->ir);
  const tx_backend *be = tx_target_backend(pc->target);
  if (be->tile_variants) st.all = be->tile_variants(&st.nall);
  tirx_status status = tx_lc_each_func(pc, in, dispatch_func, &st, out);
  tx_lc_names_free(&st.names);
  tx_ptrmap_free(&st.uniform);
  tx_ptrmap_free(&st.linear);
  if (status == TIRX_OK) status = tx_lc_status(pc, st.oom, st.errors);
  if (status != TIRX_OK) *out = in;
  return status;
}
