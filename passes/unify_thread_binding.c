/*
 * unify_thread_binding.c - the unify-thread-binding pass: one binding per
 * launch tag per kernel, right after the device entry.
 *
 * After lower-tirx a kernel can still bind one tag (blockIdx.x, ...,
 * threadIdx.z, clusterCtaIdx.x/y/z) several times: flat
 * `t = T.launch_thread("threadIdx.x", n)` bindings written by the user, the
 * with-form `with T.launch_thread("threadIdx.x", n) as t:`, and
 * thread-binding loops `for t in T.thread_binding(b, e, thread="threadIdx.x")`.
 * TVM's clusterCtaIdx tags bind the CTA's coordinate inside its thread block
 * cluster; their extents are the cluster shape, while blockIdx extents keep
 * counting CTAs (CUDA's gridDim), as in TVM's launch parameters.
 *
 * Requires: a module after lower-tirx (flat T.device_entry(grid=, block=)),
 * or TVM's legacy form with no device entry at all, where the outermost
 * `with T.launch_thread(...)` marks the kernel.
 * Guarantees:
 *  - per function and tag, one binding `t = T.launch_thread(tag, extent)`
 *    (or `t = T.Cast(dtype, T.launch_thread(...))` for a non-int32 first
 *    binding) right after the device entry, in order of first appearance;
 *    every other variable bound to the tag is replaced by the unified one
 *    (cast to its own dtype), with-forms and thread-binding loops become
 *    their bodies (a loop variable with a nonzero begin b becomes t + b);
 *  - the device entry's grid= / block= / cluster= cover every tag used
 *    (blockIdx, threadIdx, clusterCtaIdx): a dimension the entry leaves at 1
 *    takes the tag's extent, and an entry without cluster= gets one when a
 *    clusterCtaIdx tag is bound; two different constant extents for one tag
 *    are a located error (so are unknown tags, a clusterCtaIdx extent that is
 *    not a positive constant, and a constant grid dimension that is not a
 *    multiple of the constant cluster dimension);
 *  - a function with launches and no device entry gets one, flat, where its
 *    outermost launch was (that launch must be the only outermost one);
 *  - a function with several kernel regions at its top level (with-form
 *    device entries, TVM's outermost with-form launches or thread-binding
 *    loops; a flat entry or launch makes the rest of the sequence the last
 *    one), or one with-form region that host statements follow, is unified
 *    region by region, each a kernel with launches of its own, and a legacy
 *    region becomes a with-form device entry;
 *  - a function that needs none of this, or a device function split earlier
 *    ("tirx.kernel"), is returned unchanged.
 * The unified variable is the first binding's variable when it can be
 * reused (a flat binding, a with target, a loop starting at 0), else a fresh
 * `threadIdx_x`-style variable; names are deterministic.
 */
#include <stdlib.h>
#include <string.h>

#include "ir/equal.h"
#include "passes/lower_common.h"
#include "passes/pass.h"

static const char PASS[] = "unify-thread-binding";
static const tirx_span NOSPAN = {0};

/* Tags 0-2 size the grid, 3-5 the block, 6-8 the cluster. */
enum { NTAGS = 9, CLUSTER_TAG0 = 6 };
static const char *const TAGS[NTAGS] = {"blockIdx.x",      "blockIdx.y",      "blockIdx.z",
                                        "threadIdx.x",     "threadIdx.y",     "threadIdx.z",
                                        "clusterCtaIdx.x", "clusterCtaIdx.y", "clusterCtaIdx.z"};

typedef enum site_kind { SITE_BIND, SITE_WITH, SITE_FOR } site_kind;

/* One place that binds a launch tag. */
typedef struct site {
  const tx_stmt *s;
  site_kind kind;
  int tag;               /* index into TAGS */
  const tx_expr *var;    /* may be NULL (a with-form without `as`) */
  const tx_expr *extent; /* int32 */
  const tx_expr *begin;  /* SITE_FOR: the loop start (NULL when 0) */
  int outermost;         /* not nested in another with/for site */
} site;

typedef struct ut_state {
  tx_pass_ctx *pc;
  tx_ir *ir;
  site *sites;
  uint32_t nsites, capsites;
  int open;       /* with/for sites currently entered */
  int depth;      /* statements currently entered (the function body is depth 1) */
  int flat_entry; /* a flat launch outside device code has opened the kernel */
  const tx_stmt *entry;
  int entry_count;
  /* per tag */
  const tx_expr *uvar[NTAGS];   /* the unified variable (NULL: no binding needed) */
  const tx_expr *extent[NTAGS]; /* the final launch extent */
  int used[NTAGS];
  /* substitution: variable -> expression */
  const tx_expr **from;
  const tx_expr **to;
  uint32_t nsubst, capsubst;
  const tx_expr *grid[3], *block[3], *cluster[3];
  int entry_cluster; /* the entry has cluster= */
  int wrap_legacy;   /* one of several kernels: a legacy launch becomes a with-form entry */
  int names_ready;   /* names holds the function's names already */
  tx_lc_names names;
  int error, oom;
} ut_state;

/* ---- collecting ----------------------------------------------------------------- */

static int is_call(const tx_expr *e, const char *op) {
  return e && e->kind == EXPR_CALL && e->u.call.op && strcmp(e->u.call.op, op) == 0;
}

/* The launch_thread call a binding value is (possibly under one Cast). */
static const tx_expr *launch_call(const tx_expr *e) {
  if (e && e->kind == EXPR_CAST && e->nops == 1) e = e->ops[0];
  return is_call(e, "T.launch_thread") && e->nops >= 2 ? e : NULL;
}

static int tag_index(ut_state *st, const tx_expr *tag, tirx_span span) {
  if (tag && tag->kind == EXPR_STRING)
    for (int i = 0; i < NTAGS; i++)
      if (tag->u.str.len == strlen(TAGS[i]) &&
          memcmp(tag->u.str.data, TAGS[i], tag->u.str.len) == 0)
        return i;
  if (tag && tag->kind == EXPR_VAR)
    tx_error(st->pc->diags, span,
             "T.launch_thread of a T.env_thread variable is parsed and printed but not lowered; "
             "write `with T.launch_thread(\"threadIdx.x\", n) as tx:`");
  else
    tx_error(st->pc->diags, span,
             "unsupported launch tag: expected blockIdx.x/y/z, threadIdx.x/y/z or "
             "clusterCtaIdx.x/y/z");
  st->error = 1;
  return -1;
}

static int tag_index_name(ut_state *st, const char *name, tirx_span span) {
  for (int i = 0; name && i < NTAGS; i++)
    if (strcmp(name, TAGS[i]) == 0) return i;
  tx_error(st->pc->diags, span,
           "unsupported thread binding '%s': expected blockIdx.x/y/z, "
           "threadIdx.x/y/z or clusterCtaIdx.x/y/z",
           name ? name : "?");
  st->error = 1;
  return -1;
}

static void add_site(ut_state *st, site s) {
  if (st->nsites == st->capsites) {
    uint32_t cap = st->capsites ? st->capsites * 2 : 16;
    site *p = tx_mem_realloc(tx_ir_alloc(st->ir), st->sites, cap * sizeof *p);
    if (!p) {
      st->oom = 1;
      return;
    }
    st->sites = p;
    st->capsites = cap;
  }
  s.outermost = st->open == 0 && !st->flat_entry;
  st->sites[st->nsites++] = s;
}

static int is_site_with(const tx_stmt *s) {
  return s->kind == STMT_WITH && s->nexprs && is_call(s->exprs[0], "T.launch_thread") &&
         s->exprs[0]->nops >= 2 && s->nstmts == 1;
}

static int is_site_for(const tx_stmt *s) {
  return s->kind == STMT_FOR && s->flag == FOR_THREAD_BINDING && s->nvars == 1 && s->nstmts == 1;
}

static int collect_pre(tx_visitor *v, const tx_stmt *s) {
  ut_state *st = v->user;
  if (st->error || st->oom) return v->stop = 1, 0;
  st->depth++;
  if (s->kind == STMT_DEVICE_ENTRY || (s->kind == STMT_ATTR && s->kw.names && s->nexprs &&
                                       strcmp(s->kw.names[0], "tirx.device_entry") == 0)) {
    st->entry_count++;
    if (!st->entry) st->entry = s;
    return 1;
  }
  const tx_expr *call;
  if (s->kind == STMT_BIND && s->nvars == 1 && s->nexprs == 1 &&
      (call = launch_call(s->exprs[0]))) {
    int t = tag_index(st, call->ops[0], call->span.line ? call->span : s->span);
    if (t >= 0)
      add_site(st, (site){.s = s,
                          .kind = SITE_BIND,
                          .tag = t,
                          .var = s->vars[0],
                          .extent = tx_lc_cast(st->ir, TX_INT32, call->ops[1])});
    /* TVM's classic form: a flat launch at the top of a function without a device entry
     * starts the kernel; the rest of the function body is its device code. */
    if (t >= 0 && !st->entry && st->open == 0 && !st->flat_entry) {
      if (st->depth > 2) {
        tx_error(st->pc->diags, s->span,
                 "T.launch_thread outside device code: a kernel launch must be a top-level "
                 "statement of the function (or follow T.device_entry())");
        st->error = 1;
      }
      st->flat_entry = 1;
    }
    return 1;
  }
  if (is_site_with(s)) {
    call = s->exprs[0];
    int t = tag_index(st, call->ops[0], call->span.line ? call->span : s->span);
    if (t >= 0)
      add_site(st, (site){.s = s,
                          .kind = SITE_WITH,
                          .tag = t,
                          .var = s->nvars ? s->vars[0] : NULL,
                          .extent = tx_lc_cast(st->ir, TX_INT32, call->ops[1])});
    st->open++;
    return 1;
  }
  if (is_site_for(s)) {
    int t = tag_index_name(st, s->name, s->span);
    uint32_t npos = s->kw.npos ? s->kw.npos : s->nexprs;
    if (npos > 2) {
      tx_error(st->pc->diags, s->span, "a thread-binding loop cannot have a step");
      st->error = 1;
    }
    const tx_expr *b = tx_lc_cast(st->ir, TX_INT32, s->exprs[0]);
    const tx_expr *e = tx_lc_cast(st->ir, TX_INT32, s->exprs[1]);
    int64_t bv;
    int zero = tx_expr_int_literal(b, &bv) && bv == 0;
    if (t >= 0)
      add_site(st, (site){.s = s,
                          .kind = SITE_FOR,
                          .tag = t,
                          .var = s->vars[0],
                          .extent = zero ? e : tx_lc_bin(st->ir, EXPR_SUB, e, b),
                          .begin = zero ? NULL : s->exprs[0]});
    st->open++;
    return 1;
  }
  return 1;
}

static void collect_post(tx_visitor *v, const tx_stmt *s) {
  ut_state *st = v->user;
  st->depth--;
  if (is_site_with(s) || is_site_for(s)) st->open--;
}

/* ---- the launch --------------------------------------------------------------- */

static int same_extent(const ut_state *st, const tx_expr *a, const tx_expr *b) {
  int64_t x, y;
  if (tx_expr_int_literal(a, &x) && tx_expr_int_literal(b, &y)) return x == y;
  return tx_expr_equal_with(tx_ir_alloc(st->ir), a, b);
}

static int both_const_differ(const tx_expr *a, const tx_expr *b) {
  int64_t x, y;
  return tx_expr_int_literal(a, &x) && tx_expr_int_literal(b, &y) && x != y;
}

static int is_lit(const tx_expr *e, int64_t v) {
  int64_t x;
  return tx_expr_int_literal(e, &x) && x == v;
}

/* Read the entry's grid=/block=/cluster= (missing dimensions are 1); is
 * the keyword there? */
static int read_dims(ut_state *st, const tx_stmt *entry, const char *kw, const tx_expr *out[3]) {
  const tx_expr *one = tx_lc_int(st->ir, TX_INT32, 1);
  if (!one) st->oom = 1;
  for (int i = 0; i < 3; i++)
    out[i] = one;
  if (!entry || entry->kind != STMT_DEVICE_ENTRY) return 0;
  const char *name = tx_intern(st->ir->strings, kw);
  if (!name) return st->oom = 1, 0; /* not "absent": the lookup could not be made */
  const tx_expr *e = tx_kwarg(&entry->kw, entry->exprs, entry->nexprs, name);
  if (!e) return 0;
  const tx_expr *const *items = e->kind == EXPR_TUPLE ? e->ops : &e;
  uint32_t n = e->kind == EXPR_TUPLE ? e->nops : 1;
  for (uint32_t i = 0; i < n && i < 3; i++)
    out[i] = items[i];
  return 1;
}

/* The first site binding tag t, or NULL. */
static const site *first_site(const ut_state *st, int t) {
  for (uint32_t i = 0; i < st->nsites; i++)
    if (st->sites[i].tag == t) return &st->sites[i];
  return NULL;
}

/* The cluster shape is a kernel attribute fixed at compile time (the
 * runtime reads it from the kernel, docs/runtime.md), so a clusterCtaIdx
 * extent must be a positive constant. */
static int cluster_extent_ok(ut_state *st, const site *s) {
  int64_t v;
  if (tx_expr_int_literal(s->extent, &v) && v > 0) return 1;
  if (tx_expr_int_literal(s->extent, &v))
    tx_error(st->pc->diags, s->s->span, "%s must have a positive extent, not %lld", TAGS[s->tag],
             (long long)v);
  else
    tx_error(st->pc->diags, s->s->span,
             "%s needs a constant extent: the cluster shape is fixed when the kernel is compiled",
             TAGS[s->tag]);
  st->error = 1;
  return 0;
}

/* CUDA launches whole clusters: each grid dimension (in CTAs) must be a
 * multiple of the cluster's. Checked where both are constants. */
static void check_grid_cluster(ut_state *st) {
  for (int d = 0; d < 3; d++) {
    int64_t g, c;
    if (!tx_expr_int_literal(st->grid[d], &g) || !tx_expr_int_literal(st->cluster[d], &c) ||
        c <= 0 || g % c == 0)
      continue;
    const site *at = first_site(st, CLUSTER_TAG0 + d);
    if (!at) at = first_site(st, d);
    tirx_span span = at ? at->s->span : st->entry ? st->entry->span : NOSPAN;
    tx_error(st->pc->diags, span,
             "inconsistent launch extents: the grid has %lld CTAs along %c, not a multiple of "
             "the cluster's %lld",
             (long long)g, 'x' + d, (long long)c);
    st->error = 1;
    return;
  }
}

/* Decide each tag's extent and unified variable; report conflicts. */
static void plan(ut_state *st) {
  read_dims(st, st->entry, "grid", st->grid);
  read_dims(st, st->entry, "block", st->block);
  st->entry_cluster = read_dims(st, st->entry, "cluster", st->cluster);
  for (int t = 0; t < NTAGS; t++) {
    const tx_expr **dim = t < 3              ? &st->grid[t]
                          : t < CLUSTER_TAG0 ? &st->block[t - 3]
                                             : &st->cluster[t - CLUSTER_TAG0];
    const site *first = NULL;
    for (uint32_t i = 0; i < st->nsites; i++) {
      const site *s = &st->sites[i];
      if (s->tag != t) continue;
      st->used[t] = 1;
      if (!first) {
        first = s;
        continue;
      }
      if (both_const_differ(first->extent, s->extent)) {
        int64_t a = 0, b = 0;
        tx_expr_int_literal(s->extent, &a);
        tx_expr_int_literal(first->extent, &b);
        tx_error(st->pc->diags, s->s->span,
                 "inconsistent launch extents: %s has extent %lld here but %lld before", TAGS[t],
                 (long long)a, (long long)b);
        tx_note(st->pc->diags, first->s->span, "previous binding here");
        st->error = 1;
        return;
      }
    }
    if (!first) continue;
    if (t >= CLUSTER_TAG0 && !cluster_extent_ok(st, first)) return;
    /* A dimension the entry leaves at 1 is the padding of a shorter tuple. */
    if (is_lit(*dim, 1)) {
      *dim = first->extent;
    } else if (both_const_differ(*dim, first->extent)) {
      int64_t a = 0, b = 0;
      tx_expr_int_literal(first->extent, &a);
      tx_expr_int_literal(*dim, &b);
      tx_error(st->pc->diags, first->s->span,
               "inconsistent launch extents: %s has extent %lld here but the device entry "
               "launches %lld",
               TAGS[t], (long long)a, (long long)b);
      st->error = 1;
      return;
    }
    st->extent[t] = *dim;
    /* The unified variable: the first reusable one, else a fresh one. */
    int any_var = 0;
    for (uint32_t i = 0; i < st->nsites && !st->uvar[t]; i++) {
      const site *s = &st->sites[i];
      if (s->tag != t || !s->var) continue;
      any_var = 1;
      if (!s->begin) st->uvar[t] = s->var;
    }
    if (!st->uvar[t] && any_var) {
      char base[16];
      memcpy(base, TAGS[t], strlen(TAGS[t]) + 1);
      base[strcspn(base, ".")] = '_';
      const char *nm = tx_lc_fresh_name(&st->names, st->ir, base);
      st->uvar[t] = nm ? tx_var(st->ir, nm, TX_INT32, VAR_PLAIN, NOSPAN) : NULL;
      if (!st->uvar[t]) st->oom = 1;
    }
  }
  check_grid_cluster(st);
}

/* Does a clusterCtaIdx tag need the entry's cluster=? */
static int needs_cluster(const ut_state *st) {
  for (int t = CLUSTER_TAG0; t < NTAGS; t++)
    if (st->used[t]) return 1;
  return 0;
}

/* Nothing to do: every tag has one flat binding and the entry covers it. */
static int unchanged(ut_state *st, const tx_expr *const grid0[3], const tx_expr *const block0[3],
                     const tx_expr *const cluster0[3]) {
  if (!st->entry) return st->nsites == 0;
  int count[NTAGS] = {0};
  for (uint32_t i = 0; i < st->nsites; i++) {
    if (st->sites[i].kind != SITE_BIND) return 0;
    if (++count[st->sites[i].tag] > 1) return 0;
  }
  for (int i = 0; i < 3; i++)
    if (grid0[i] != st->grid[i] || block0[i] != st->block[i] || cluster0[i] != st->cluster[i])
      return 0;
  return st->entry_cluster || !needs_cluster(st);
}

static void subst(ut_state *st, const tx_expr *from, const tx_expr *to) {
  if (!from || from == to) return;
  if (st->nsubst == st->capsubst) {
    uint32_t cap = st->capsubst ? st->capsubst * 2 : 16;
    const tx_expr **a = tx_mem_realloc(tx_ir_alloc(st->ir), (void *)st->from, cap * sizeof *a);
    if (a) st->from = a;
    const tx_expr **b =
        a ? tx_mem_realloc(tx_ir_alloc(st->ir), (void *)st->to, cap * sizeof *b) : NULL;
    if (!b) {
      st->oom = 1;
      return;
    }
    st->to = b;
    st->capsubst = cap;
  }
  st->from[st->nsubst] = from;
  st->to[st->nsubst++] = to;
}

/* ---- the rewrite ------------------------------------------------------------- */

static const site *site_of(const ut_state *st, const tx_stmt *s) {
  for (uint32_t i = 0; i < st->nsites; i++)
    if (st->sites[i].s == s) return &st->sites[i];
  return NULL;
}

static const tx_expr *tuple3(ut_state *st, const tx_expr *const d[3]) {
  const tx_expr *t = tx_expr_new(st->ir, EXPR_TUPLE, TX_VOID, d, 3, NOSPAN);
  if (!t) st->oom = 1;
  return t;
}

/* The device entry with grid=/block= set to the planned launch. */
static const tx_stmt *new_entry(ut_state *st, const tx_stmt *old, tirx_span span) {
  const tx_expr *ops[16];
  const char *names[16];
  uint32_t n = 0;
  const char *g = tx_intern(st->ir->strings, "grid"), *b = tx_intern(st->ir->strings, "block");
  const char *c = tx_intern(st->ir->strings, "cluster");
  if (!g || !b || !c) return st->oom = 1, NULL;
  int have_g = 0, have_b = 0, have_c = 0;
  if (old) {
    uint32_t npos = old->kw.npos;
    for (uint32_t i = npos; i < old->nexprs && n < 13; i++) {
      const char *k = old->kw.names[i - npos];
      names[n] = k;
      if (k == g)
        have_g = 1, ops[n++] = tuple3(st, st->grid);
      else if (k == b)
        have_b = 1, ops[n++] = tuple3(st, st->block);
      else if (k == c)
        have_c = 1, ops[n++] = tuple3(st, st->cluster);
      else
        ops[n++] = old->exprs[i];
    }
  }
  /* grid, block and cluster lead, as lower-tirx writes them */
  const tx_expr *ops2[16];
  const char *names2[16];
  uint32_t m = 0;
  if (!have_g) names2[m] = g, ops2[m++] = tuple3(st, st->grid);
  if (!have_b) names2[m] = b, ops2[m++] = tuple3(st, st->block);
  if (!have_c && needs_cluster(st)) names2[m] = c, ops2[m++] = tuple3(st, st->cluster);
  for (uint32_t i = 0; i < n; i++)
    names2[m] = names[i], ops2[m++] = ops[i];
  for (uint32_t i = 0; i < m; i++)
    if (!ops2[i]) return NULL;
  return tx_stmt_make(
      st->ir,
      &(tx_stmt){
          .kind = STMT_DEVICE_ENTRY, .nexprs = m, .exprs = ops2, .kw.names = names2, .span = span});
}

/* `entry; binds...` (or, for the with-form entry, the entry around binds + body). */
static const tx_stmt *entry_with_binds(tx_mutator *m, const tx_stmt *old, const tx_stmt *body,
                                       tirx_span span) {
  ut_state *st = m->user;
  const tx_stmt *items[NTAGS + 2];
  uint32_t k = 0;
  const tx_stmt *e = new_entry(st, old, span);
  if (!e) return m->failed = 1, old;
  int with_form = old ? old->flag == 1 && old->nstmts == 1 : st->wrap_legacy;
  if (!with_form) items[k++] = e;
  /* binds in order of first appearance of their tag */
  int done[NTAGS] = {0};
  for (uint32_t i = 0; i < st->nsites; i++) {
    int t = st->sites[i].tag;
    if (done[t] || !st->uvar[t]) continue;
    done[t] = 1;
    const tx_expr *args[2] = {tx_string(st->ir, TAGS[t], strlen(TAGS[t]), NOSPAN), st->extent[t]};
    const tx_expr *val = tx_lc_call(st->ir, "T.launch_thread", TX_INT32, args, 2);
    val = tx_lc_cast(st->ir, st->uvar[t]->dtype, val);
    /* a reused flat binding keeps its span */
    tirx_span bspan = NOSPAN;
    for (uint32_t j = 0; j < st->nsites; j++)
      if (st->sites[j].var == st->uvar[t]) bspan = st->sites[j].s->span;
    const tx_stmt *bs = tx_bind(st->ir, st->uvar[t], val, BIND_PLAIN, bspan);
    if (!bs) return m->failed = 1, old;
    items[k++] = bs;
  }
  if (body) items[k++] = tx_mutate_stmt(m, body);
  const tx_stmt *r = tx_lc_seq(st->ir, items, k, span);
  if (!r) return m->failed = 1, old;
  if (!with_form) return r;
  const tx_stmt *w = tx_stmt_region(st->ir, e, r, old ? old->span : span);
  return w ? w : (m->failed = 1, old);
}

static const tx_expr *ut_expr(tx_mutator *m, const tx_expr *e) {
  ut_state *st = m->user;
  if (e->kind != EXPR_VAR) return NULL;
  for (uint32_t i = 0; i < st->nsubst; i++)
    if (st->from[i] == e) return st->to[i];
  return NULL;
}

static const tx_stmt *ut_stmt(tx_mutator *m, const tx_stmt *s) {
  ut_state *st = m->user;
  switch ((tx_stmt_kind)s->kind) {
  case STMT_SEQ:
    return tx_lc_mutate_seq(m, s);
  case STMT_DEVICE_ENTRY:
    if (s != st->entry) return NULL;
    return entry_with_binds(m, s, s->flag == 1 && s->nstmts == 1 ? s->stmts[0] : NULL, s->span);
  case STMT_BIND:
  case STMT_WITH:
  case STMT_FOR: {
    const site *x = site_of(st, s);
    if (!x) return NULL;
    const tx_stmt *body = x->kind == SITE_BIND ? NULL : s->stmts[0];
    /* Legacy form: the outermost launch becomes the device entry. */
    if (!st->entry && x->outermost) return entry_with_binds(m, NULL, body, s->span);
    if (body) return tx_mutate_stmt(m, body);
    return tx_lc_empty(st->ir);
  }
  case STMT_STORE:
  case STMT_ASSIGN:
  case STMT_ATTR:
  case STMT_ASSERT:
  case STMT_EVAL:
  case STMT_IF:
  case STMT_WHILE:
  case STMT_BREAK:
  case STMT_CONTINUE:
  case STMT_RETURN:
  case STMT_ALLOC:
  case STMT_DECL:
  case STMT_SCOPE_ID:
  case STMT_BLOCK:
  case STMT_BLOCK_AXIS:
  case STMT_BLOCK_SIG:
  case STMT_BLOCK_INIT:
  case STMT_TILE_OP:
  case TX_STMT_KIND_COUNT:
    break;
  }
  return NULL;
}

/* A device function made by split-host-device ("tirx.kernel"): its launches are already
 * the kernel's, with no device entry to unify them under. */
static int is_kernel_func(const tx_func *f) {
  return tx_func_attr_true(f, "tirx.kernel");
}

/* Unifies f, or one kernel region of it (a function whose body is the region). */
static const tx_func *unify_region(ut_state *st, const tx_func *f) {
  st->nsites = 0;
  st->nsubst = 0;
  st->open = 0;
  st->depth = 0;
  st->flat_entry = 0;
  st->entry = NULL;
  st->entry_count = 0;
  for (int t = 0; t < NTAGS; t++)
    st->uvar[t] = st->extent[t] = NULL, st->used[t] = 0;
  /* Launches and device entries are statements: expressions need no walk. */
  tx_visitor v = {
      .user = st, .pre_stmt = collect_pre, .post_stmt = collect_post, .pre_expr = tx_lc_skip_expr};
  tx_visit_stmt(&v, f->body);
  if (st->error || st->oom) return f;
  if (st->nsites == 0) {
    /* No bindings to unify; the entry's own grid and cluster must agree. */
    read_dims(st, st->entry, "grid", st->grid);
    read_dims(st, st->entry, "cluster", st->cluster);
    check_grid_cluster(st);
    return f;
  }
  /* Names are needed only for fresh variables, i.e. when there is work. */
  if (!st->names_ready) tx_lc_names_collect(&st->names, st->pc, f);
  st->names_ready = 1;
  if (!st->entry) {
    /* One kernel per function: all launches must sit under one outermost one. */
    const site *first = NULL;
    for (uint32_t i = 0; i < st->nsites; i++) {
      const site *x = &st->sites[i];
      if (!x->outermost) continue;
      if (first) {
        tx_error(st->pc->diags, x->s->span,
                 "a second kernel launch in one function is not supported: put each kernel in "
                 "its own function");
        tx_note(st->pc->diags, first->s->span, "first kernel launch here");
        st->error = 1;
        return f;
      }
      first = x;
    }
  }
  const tx_expr *grid0[3], *block0[3], *cluster0[3];
  plan(st);
  if (st->error || st->oom) return f;
  read_dims(st, st->entry, "grid", grid0);
  read_dims(st, st->entry, "block", block0);
  read_dims(st, st->entry, "cluster", cluster0);
  /* same extents as before count as unchanged */
  for (int i = 0; i < 3; i++) {
    if (st->grid[i] != grid0[i] && same_extent(st, st->grid[i], grid0[i])) st->grid[i] = grid0[i];
    if (st->block[i] != block0[i] && same_extent(st, st->block[i], block0[i]))
      st->block[i] = block0[i];
    if (st->cluster[i] != cluster0[i] && same_extent(st, st->cluster[i], cluster0[i]))
      st->cluster[i] = cluster0[i];
  }
  if (unchanged(st, grid0, block0, cluster0)) return f;
  if (st->entry && st->entry->kind != STMT_DEVICE_ENTRY) {
    tx_internal_error(st->pc->diags, PASS, "T.attr device entry left by lower-tirx");
    st->error = 1;
    return f;
  }
  for (uint32_t i = 0; i < st->nsites; i++) {
    const site *x = &st->sites[i];
    const tx_expr *u = st->uvar[x->tag];
    if (!x->var || !u || x->var == u) continue;
    const tx_expr *to = tx_lc_cast(st->ir, x->var->dtype, u);
    if (x->begin) to = tx_lc_bin(st->ir, EXPR_ADD, to, tx_lc_cast(st->ir, x->var->dtype, x->begin));
    if (!to) return st->oom = 1, f;
    subst(st, x->var, to);
  }
  if (st->oom) return f;
  tx_mutator m = {.ir = st->ir, .user = st, .expr = ut_expr, .stmt = ut_stmt};
  const tx_func *r = tx_mutate_func(&m, f);
  if (m.failed) st->oom = 1;
  return r;
}

/* What a top-level statement starts: REGION_HOST (nothing), REGION_WITH (a
 * kernel that is this statement: a with-form device entry, or TVM's
 * outermost with-form launch or thread-binding loop), REGION_REST (a kernel
 * that is the rest of the sequence: a flat device entry or launch binding). */
typedef enum region_kind { REGION_HOST, REGION_WITH, REGION_REST } region_kind;

static region_kind region_of(const tx_stmt *s) {
  int entry = s->kind == STMT_DEVICE_ENTRY || (s->kind == STMT_ATTR && s->kw.names && s->nexprs &&
                                               strcmp(s->kw.names[0], "tirx.device_entry") == 0);
  if (entry) return s->flag == 1 ? REGION_WITH : REGION_REST;
  if (is_site_with(s) || is_site_for(s)) return REGION_WITH;
  if (s->kind == STMT_BIND && s->nvars == 1 && s->nexprs == 1 && launch_call(s->exprs[0]))
    return REGION_REST;
  return REGION_HOST;
}

/* Are the function's kernels regions: several at the top level (a
 * REGION_REST ends them), or one REGION_WITH that host statements follow?
 * (One kernel that ends the function becomes the flat form.) */
static int has_regions(const tx_func *f) {
  uint32_t n, k = 0;
  const tx_stmt *const *items = tx_func_top_stmts(f, &n);
  for (uint32_t i = 0; i < n; i++) {
    region_kind r = region_of(items[i]);
    k += r != REGION_HOST;
    if (r == REGION_REST) break;
    if (r == REGION_WITH && i + 1 < n) return 1;
  }
  return k > 1;
}

/* Several kernels in one function: each region is unified on its own, with
 * launches of its own, and a legacy one gets a with-form device entry (host
 * statements follow it). Host statements are unified too, which reports
 * launches nested in host control flow as for one kernel. */
static const tx_func *unify_kernels(ut_state *st, const tx_func *f) {
  uint32_t n, k = 0;
  const tx_stmt *const *items = tx_func_top_stmts(f, &n);
  const tx_stmt **out = tx_arena_alloc(st->ir->arena, n * sizeof *out);
  if (!out) return st->oom = 1, f;
  tx_lc_names_collect(&st->names, st->pc, f);
  st->names_ready = 1;
  int changed = 0;
  for (uint32_t i = 0; i < n && !st->error && !st->oom; i++) {
    region_kind kind = region_of(items[i]);
    tx_func part = *f;
    part.body =
        kind == REGION_REST ? tx_lc_seq(st->ir, items + i, n - i, items[i]->span) : items[i];
    if (!part.body) return st->oom = 1, f;
    st->wrap_legacy = kind == REGION_WITH;
    const tx_func *r = unify_region(st, &part);
    st->wrap_legacy = 0;
    if (r == &part) {
      for (uint32_t j = i; j < (kind == REGION_REST ? n : i + 1); j++)
        out[k++] = items[j];
    } else {
      out[k++] = r->body;
      changed = 1;
    }
    if (kind == REGION_REST) break;
  }
  if (st->error || st->oom || !changed) return f;
  const tx_func *r = tx_func_with_body(st->ir, f, tx_lc_seq(st->ir, out, k, f->body->span));
  return r ? r : (st->oom = 1, f);
}

static const tx_func *unify_func(ut_state *st, const tx_func *f) {
  if (is_kernel_func(f)) return f;
  st->names_ready = 0;
  if (has_regions(f)) return unify_kernels(st, f);
  return unify_region(st, f);
}

/* The walk ends at the first error. */
static const tx_func *unify_each(void *state, const tx_func *f) {
  ut_state *st = state;
  tx_lc_names_free(&st->names); /* collected only when the function has work */
  const tx_func *r = unify_func(st, f);
  if (st->oom || st->error) return NULL;
  tx_lc_names_keep(&st->names, st->pc, r);
  return r;
}

tirx_status tx_pass_unify_thread_binding(tx_pass_ctx *pc, const tx_module *in,
                                         const tx_module **out) {
  ut_state st = {.pc = pc, .ir = pc->ir};
  tirx_status status = tx_lc_each_func(pc, in, unify_each, &st, out);
  if (status == TIRX_OK) status = tx_lc_status(pc, st.oom, st.error);
  if (status != TIRX_OK) *out = in;
  tx_mem_free(tx_ir_alloc(pc->ir), st.sites);
  tx_mem_free(tx_ir_alloc(pc->ir), (void *)st.from);
  tx_mem_free(tx_ir_alloc(pc->ir), (void *)st.to);
  tx_lc_names_free(&st.names);
  return status;
}
