/*
 * lower_tirx.c - the lower-tirx pass: scope ids and T.device_entry() become
 * an explicit launch, scalar sugar becomes one-element local buffers.
 *
 * Requires: a module as built by the frontend (scope ids after their
 * device entry; several device entries only as top-level with-form regions,
 * the last of which may be flat).
 * Guarantees (docs/lowering.md, "After lower-tirx"):
 *  - every device entry is the flat STMT_DEVICE_ENTRY carrying
 *    grid=(gx, gy, gz), block=(tx, ty, tz) [, cluster=, preferred_cluster=,
 *    min_blocks_per_sm=, max_blocks_per_cluster=, max_registers=,
 *    dyn_shared_bytes=] as int32 tuples
 *    (the last three are lifted from the T.attr launch hints; keywords the
 *    entry already had are kept, scope ids fill in the dimensions they
 *    determine, and a conflicting constant is a located error; a kernel
 *    with CTA ids within a cluster but no cluster or CTA id is one cluster:
 *    its grid is the cluster shape), followed by
 *    the bindings of every scope id (T.launch_thread for cta/thread ids,
 *    arithmetic on threadIdx.x for warp/lane/warpgroup ids, T.cuda cluster
 *    intrinsics for cluster ids); no STMT_SCOPE_ID is left. A function with
 *    several top-level device entries (several kernels), or a with-form one
 *    that host statements follow, keeps each as a with-form
 *    STMT_DEVICE_ENTRY whose region starts with its own bindings;
 *  - no VAR_SCALAR variable, BIND_SCALAR / BIND_LOCAL_SCALAR binding or
 *    STMT_ASSIGN is left: each scalar is a T.alloc_local((1,), dtype)
 *    buffer of the same name, read as x[0] and written by stores;
 *  - tile primitives (STMT_TILE_OP) are kept, their operands rewritten like
 *    any expression: dispatch-tile, which runs after unify-thread-binding,
 *    lowers them with the launch in place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/equal.h"
#include "ir/ptrmap.h"
#include "passes/lower_common.h"
#include "passes/pass.h"

static const char PASS[] = "lower-tirx";
/* The most dimensions (and strides) a buffer read through a scalar may have. */
#define TX_MAX_DIMS_REMAP 64
static const tirx_span NOSPAN = {0};

typedef enum id_kind {
  ID_CTA,
  ID_THREAD,
  ID_WARP,
  ID_LANE,
  ID_WG,
  ID_WARP_IN_WG,
  ID_THREAD_IN_WG,
  ID_CLUSTER,
  ID_CTA_IN_CLUSTER,
  ID_CTA_IN_PAIR,
  ID_COUNT
} id_kind;

static const char *const id_names[ID_COUNT] = {
    "cta_id",        "thread_id",       "warp_id",    "lane_id",           "warpgroup_id",
    "warp_id_in_wg", "thread_id_in_wg", "cluster_id", "cta_id_in_cluster", "cta_id_in_pair"};

/* One scope-id definition: its statement and extents (NULL = deferred). */
typedef struct scope_def {
  const tx_stmt *s;
  id_kind kind;
  uint32_t n;            /* number of extents (1..3); 0 when deferred */
  const tx_expr *ext[3]; /* int32 */
} scope_def;

typedef struct lt_state {
  tx_pass_ctx *pc;
  tx_ir *ir;
  /* scope ids of the current function, in source order */
  scope_def *defs;
  uint32_t ndefs, capdefs;
  const scope_def *first[ID_COUNT];
  /* the launch statements that follow the device entry */
  const tx_stmt **launch;
  uint32_t nlaunch, caplaunch;
  /* the function's T.device_entry (its keywords are kept) */
  const tx_stmt *entry;
  const tx_expr *entry_kwargs[16];
  const char *entry_names[16];
  uint32_t nentry;
  /* scalar sugar: variable -> its buffer */
  const tx_expr **svars;
  const tx_buffer **sbufs;
  uint32_t nscal, capscal;
  /* buffers whose shape, strides or offset read a scalar: old -> rewritten */
  tx_ptrmap rebufs;
  tx_lc_names names;
  int with_entry; /* several kernels: each device entry stays a with-form region */
  int error, oom;
} lt_state;

static int grow(const tirx_allocator *a, void **items, uint32_t *cap, uint32_t len, size_t size) {
  if (len < *cap) return 1;
  uint32_t c = *cap ? *cap * 2 : 16;
  void *p = tx_mem_realloc(a, *items, c * size);
  if (!p) return 0;
  *items = p;
  *cap = c;
  return 1;
}

static const char *intern(lt_state *st, const char *s) {
  const char *r = tx_intern(st->ir->strings, s);
  if (!r) st->oom = 1;
  return r;
}

/* ---- collecting scope ids -------------------------------------------------------- */

static id_kind id_kind_of(const char *name) {
  for (int k = 0; k < ID_COUNT; k++)
    if (name && strcmp(name, id_names[k]) == 0) return (id_kind)k;
  return ID_COUNT;
}

static const tx_expr *as_int32(lt_state *st, const tx_expr *e) {
  return tx_lc_cast(st->ir, TX_INT32, e);
}

static int collect_pre_stmt(tx_visitor *v, const tx_stmt *s) {
  lt_state *st = v->user;
  if (s->kind == STMT_DEVICE_ENTRY && !st->entry) st->entry = s;
  if (s->kind != STMT_SCOPE_ID) return 1;
  id_kind k = id_kind_of(s->name);
  if (k == ID_COUNT) {
    tx_internal_error(st->pc->diags, PASS, "unknown scope id T.%s", s->name ? s->name : "?");
    st->error = 1;
    return 0;
  }
  if (!grow(tx_ir_alloc(st->ir), (void **)&st->defs, &st->capdefs, st->ndefs, sizeof *st->defs)) {
    st->oom = 1;
    v->stop = 1;
    return 0;
  }
  scope_def d = {.s = s, .kind = k};
  if (s->kw.npos >= 1) {
    const tx_expr *e = s->exprs[0];
    const tx_expr *const *items = e->kind == EXPR_TUPLE ? e->ops : &e;
    uint32_t n = e->kind == EXPR_TUPLE ? e->nops : 1;
    int deferred = n == 0 || n > 3;
    for (uint32_t i = 0; i < n && i < 3; i++) {
      if (items[i]->kind == EXPR_NONE)
        deferred = 1;
      else
        d.ext[i] = as_int32(st, items[i]);
    }
    d.n = deferred ? 0 : n;
  }
  st->defs[st->ndefs++] = d;
  if (!st->first[k]) st->first[k] = &st->defs[st->ndefs - 1];
  return 0;
}

/* ---- the launch ------------------------------------------------------------------- */

static const tx_expr *tuple3(lt_state *st, const tx_expr *const *e) {
  const tx_expr *ops[3] = {e[0], e[1], e[2]};
  for (int i = 0; i < 3; i++)
    if (!ops[i]) ops[i] = tx_lc_int(st->ir, TX_INT32, 1);
  const tx_expr *t = tx_expr_new(st->ir, EXPR_TUPLE, TX_VOID, ops, 3, NOSPAN);
  if (!t) st->oom = 1;
  return t;
}

static void add_entry_kw(lt_state *st, const char *name, const tx_expr *value) {
  for (uint32_t i = 0; i < st->nentry; i++)
    if (strcmp(st->entry_names[i], name) == 0) {
      st->entry_kwargs[i] = value;
      return;
    }
  if (st->nentry < 16 && value) {
    st->entry_names[st->nentry] = intern(st, name);
    st->entry_kwargs[st->nentry++] = value;
  }
}

static void add_launch(lt_state *st, const tx_stmt *s) {
  if (!s || !grow(tx_ir_alloc(st->ir), (void **)&st->launch, &st->caplaunch, st->nlaunch,
                  sizeof *st->launch)) {
    st->oom = 1;
    return;
  }
  st->launch[st->nlaunch++] = s;
}

/* var = value, as a plain binding (value converted to the variable's type). */
static void bind(lt_state *st, const tx_expr *var, const tx_expr *value, tirx_span span) {
  value = tx_lc_cast(st->ir, var->dtype, value);
  if (!value) {
    st->oom = 1;
    return;
  }
  const tx_stmt *s = tx_bind(st->ir, var, value, BIND_PLAIN, span);
  if (!s) {
    st->oom = 1;
    return;
  }
  add_launch(st, s);
}

static const tx_expr *launch_thread(lt_state *st, const char *tag, const tx_expr *extent) {
  const tx_expr *args[2] = {tx_string(st->ir, tag, strlen(tag), NOSPAN), extent};
  return tx_lc_call(st->ir, "T.launch_thread", TX_INT32, args, 2);
}

static const tx_expr *axis_str(lt_state *st, int d) {
  static const char *const xyz[3] = {"x", "y", "z"};
  return tx_string(st->ir, xyz[d], 1, NOSPAN);
}

/* The product of a definition's extents (NULL when deferred). */
static const tx_expr *product(lt_state *st, const scope_def *d) {
  if (!d || !d->n) return NULL;
  const tx_expr *p = d->ext[0];
  for (uint32_t i = 1; i < d->n; i++)
    p = tx_lc_mul(st->ir, p, d->ext[i]);
  return p;
}

static void print_extent(const tx_expr *e, char *buf, size_t cap) {
  int64_t v;
  if (tx_expr_int_literal(e, &v))
    snprintf(buf, cap, "%lld", (long long)v);
  else
    snprintf(buf, cap, "a symbolic count");
}

/* Do two thread counts agree? Constants compare by value, symbolic ones
 * structurally: extents are not rewritten before this pass. */
static int same_count(const lt_state *st, const tx_expr *a, const tx_expr *b) {
  int64_t x, y;
  if (tx_expr_int_literal(a, &x) && tx_expr_int_literal(b, &y)) return x == y;
  return tx_expr_equal_with(tx_ir_alloc(st->ir), a, b);
}

static const scope_def *later(const scope_def *a, const scope_def *b) {
  return a > b ? a : b;
}

/* Threads per CTA implied by each scope id; all must agree. */
static const tx_expr *block_threads(lt_state *st) {
  typedef struct {
    const scope_def *d;
    const tx_expr *n;
  } claim;
  claim claims[4];
  int nclaims = 0;
  const scope_def *t = st->first[ID_THREAD], *w = st->first[ID_WARP], *g = st->first[ID_WG];
  const scope_def *l = st->first[ID_LANE];
  if (t && t->n) claims[nclaims++] = (claim){t, product(st, t)};
  if (w && w->n) claims[nclaims++] = (claim){w, tx_lc_muli(st->ir, w->ext[0], 32)};
  /* A warpgroup is 128 threads, unless the ids inside it say it is smaller: TVM composes
   * the CTA's threads from warpgroup x warp-in-warpgroup x lane, so a one-warpgroup CTA
   * of 32 threads is warpgroup_id([1]), warp_id_in_wg([1]) (checked below). */
  int64_t wg_threads = 128, c;
  const scope_def *wiw = st->first[ID_WARP_IN_WG], *tiw = st->first[ID_THREAD_IN_WG];
  if (wiw && wiw->n && tx_expr_int_literal(wiw->ext[0], &c) && c > 0 && c < 4) wg_threads = c * 32;
  if (tiw && tiw->n && tx_expr_int_literal(tiw->ext[0], &c) && c > 0 && c < 128) wg_threads = c;
  if (g && g->n) claims[nclaims++] = (claim){g, tx_lc_muli(st->ir, g->ext[0], wg_threads)};
  if (!nclaims && l && l->n) claims[nclaims++] = (claim){l, l->ext[0]};
  if (!nclaims && st->first[ID_THREAD_IN_WG] && st->first[ID_THREAD_IN_WG]->n)
    claims[nclaims++] = (claim){st->first[ID_THREAD_IN_WG], st->first[ID_THREAD_IN_WG]->ext[0]};
  if (!nclaims && st->first[ID_WARP_IN_WG] && st->first[ID_WARP_IN_WG]->n)
    claims[nclaims++] =
        (claim){st->first[ID_WARP_IN_WG], tx_lc_muli(st->ir, st->first[ID_WARP_IN_WG]->ext[0], 32)};
  for (int i = 1; i < nclaims; i++) {
    if (!claims[0].n || !claims[i].n) return st->oom = 1, NULL;
    if (!same_count(st, claims[0].n, claims[i].n)) {
      const scope_def *at = later(claims[0].d, claims[i].d);
      char a[32], b[32];
      print_extent(claims[0].n, a, sizeof a);
      print_extent(claims[i].n, b, sizeof b);
      tx_error(st->pc->diags, at->s->span,
               "inconsistent launch extents: T.%s implies %s threads per CTA but T.%s implies %s",
               id_names[claims[0].d->kind], a, id_names[claims[i].d->kind], b);
      st->error = 1;
      return NULL;
    }
  }
  const tx_expr *total = nclaims ? claims[0].n : NULL;
  /* Per-warp and per-warpgroup extents must fit the fixed hardware sizes. */
  struct {
    const scope_def *d;
    int64_t size;
    const char *what;
  } fixed[] = {
      {l, 32, "lanes per warp"},
      {st->first[ID_WARP_IN_WG], 4, "warps per warpgroup"},
      {st->first[ID_THREAD_IN_WG], 128, "threads per warpgroup"},
  };
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed && total; i++) {
    const scope_def *d = fixed[i].d;
    int64_t v, tv;
    if (!d || !d->n || !tx_expr_int_literal(d->ext[0], &v) || v == fixed[i].size) continue;
    /* A smaller extent is fine when it is the whole CTA (one partial warp). */
    const tx_expr *mine = fixed[i].size == 4 ? tx_lc_muli(st->ir, d->ext[0], 32) : d->ext[0];
    if (tx_expr_int_literal(total, &tv) && mine && same_count(st, mine, total)) continue;
    tx_error(st->pc->diags, d->s->span,
             "inconsistent launch extents: T.%s([%lld]) but there are %lld %s", id_names[d->kind],
             (long long)v, (long long)fixed[i].size, fixed[i].what);
    st->error = 1;
    return NULL;
  }
  return total;
}

static void deferred_error(lt_state *st, const scope_def *d, const char *what) {
  tx_error(st->pc->diags, d->s->span,
           "cannot infer the extent of deferred T.%s(): give %s, e.g. T.%s([128])",
           id_names[d->kind], what, id_names[d->kind]);
  st->error = 1;
}

/* The launch keywords the user wrote on T.device_entry(grid=, block=,
 * cluster=, ...) are kept: scope ids only fill in what they determine. */
static int is_dims_kw(const char *k) {
  return strcmp(k, "grid") == 0 || strcmp(k, "block") == 0 || strcmp(k, "cluster") == 0 ||
         strcmp(k, "preferred_cluster") == 0;
}

/* The user's `kw=` of the device entry as three int32 extents (missing
 * ones NULL); 0 when the entry does not give it. */
static int user_dims(lt_state *st, const char *kw, const tx_expr *out[3]) {
  out[0] = out[1] = out[2] = NULL;
  const tx_stmt *e = st->entry;
  if (!e) return 0;
  const tx_expr *v = tx_kwarg(&e->kw, e->exprs, e->nexprs, intern(st, kw));
  if (!v) return 0;
  const tx_expr *const *items = v->kind == EXPR_TUPLE ? v->ops : &v;
  uint32_t n = v->kind == EXPR_TUPLE ? v->nops : 1;
  for (uint32_t i = 0; i < n && i < 3; i++)
    out[i] = as_int32(st, items[i]);
  return 1;
}

/* dims[] derived from scope ids (NULL: not determined) merged with the
 * entry's own `kw=`: a dimension the scope ids leave open keeps the user's
 * value, a user 1 (the padding of a shorter tuple) yields, and two
 * different constants are a located error at `at`. Adds the keyword when
 * either side gives it, or `always`. */
static void merge_dims(lt_state *st, const char *kw, const tx_expr *dims[3], const scope_def *at,
                       int always) {
  const tx_expr *user[3];
  int have_user = user_dims(st, kw, user);
  int derived = dims[0] || dims[1] || dims[2];
  if (!have_user && !derived && !always) return;
  const tx_expr *out[3];
  for (int i = 0; i < 3; i++) {
    int64_t u, d;
    out[i] = dims[i] ? dims[i] : user[i];
    if (!dims[i] || !user[i] || !tx_expr_int_literal(user[i], &u) || u == 1 ||
        !tx_expr_int_literal(dims[i], &d) || u == d)
      continue;
    tx_error(st->pc->diags, at ? at->s->span : st->entry->span,
             "inconsistent launch extents: T.device_entry(%s=...) launches %lld along %c but "
             "T.%s implies %lld",
             kw, (long long)u, 'x' + i, at ? id_names[at->kind] : "?", (long long)d);
    st->error = 1;
    return;
  }
  add_entry_kw(st, kw, tuple3(st, out));
}

/* Compute the launch and the bindings of every scope id. */
static void build_launch(lt_state *st) {
  const tx_expr *grid[3] = {0}, *block[3] = {0}, *cluster[3] = {0};
  int have_cluster = 0;
  const scope_def *cta = st->first[ID_CTA], *ncl = st->first[ID_CLUSTER];
  const scope_def *incl = st->first[ID_CTA_IN_CLUSTER], *pair = st->first[ID_CTA_IN_PAIR];
  const scope_def *thr = st->first[ID_THREAD];

  /* cluster shape */
  if (incl && incl->n) {
    have_cluster = 1;
    for (uint32_t i = 0; i < incl->n; i++)
      cluster[i] = incl->ext[i];
  } else if (pair) {
    have_cluster = 1;
    cluster[0] = tx_lc_int(st->ir, TX_INT32, 2);
  }
  /* grid */
  if (cta && cta->n) {
    for (uint32_t i = 0; i < cta->n; i++)
      grid[i] = cta->ext[i];
  } else if (ncl && ncl->n && have_cluster) {
    for (uint32_t i = 0; i < ncl->n; i++)
      grid[i] =
          tx_lc_mul(st->ir, ncl->ext[i], cluster[i] ? cluster[i] : tx_lc_int(st->ir, TX_INT32, 1));
  } else if (cta) {
    deferred_error(st, cta, "its extents");
    return;
  } else if (!ncl && have_cluster) {
    /* CTA ids within a cluster and no cluster or CTA id: one cluster */
    for (uint32_t i = 0; i < 3; i++)
      grid[i] = cluster[i];
  }
  if (!have_cluster && ncl && ncl->n && cta && cta->n) {
    have_cluster = 1;
    for (uint32_t i = 0; i < ncl->n; i++)
      cluster[i] = tx_lc_bin(st->ir, EXPR_FLOORDIV,
                             grid[i] ? grid[i] : tx_lc_int(st->ir, TX_INT32, 1), ncl->ext[i]);
  }
  for (uint32_t i = 0; i < st->ndefs; i++) {
    const scope_def *d = &st->defs[i];
    if (d->n || d->kind == ID_CTA_IN_PAIR || d->kind == ID_CTA) continue;
    if ((d->kind == ID_CLUSTER || d->kind == ID_CTA_IN_CLUSTER) && have_cluster) continue;
    if (d->kind != ID_CLUSTER && d->kind != ID_CTA_IN_CLUSTER && d->kind != ID_THREAD) continue;
    deferred_error(st, d, "its extents");
    return;
  }
  /* block */
  const tx_expr *total = block_threads(st);
  if (st->error || st->oom) return;
  if (thr && thr->n) {
    for (uint32_t i = 0; i < thr->n; i++)
      block[i] = thr->ext[i];
  } else if (total) {
    block[0] = total;
  } else {
    for (uint32_t i = 0; i < st->ndefs; i++)
      if (st->defs[i].kind != ID_CTA && st->defs[i].kind != ID_CLUSTER &&
          st->defs[i].kind != ID_CTA_IN_CLUSTER && st->defs[i].kind != ID_CTA_IN_PAIR) {
        deferred_error(st, &st->defs[i], "the number of threads");
        return;
      }
  }
  const scope_def *grid_at = cta && cta->n ? cta : ncl;
  const scope_def *block_at = thr && thr->n ? thr : NULL;
  for (uint32_t i = 0; i < st->ndefs && !block_at; i++)
    if (st->defs[i].kind != ID_CTA && st->defs[i].kind != ID_CLUSTER &&
        st->defs[i].kind != ID_CTA_IN_CLUSTER && st->defs[i].kind != ID_CTA_IN_PAIR)
      block_at = &st->defs[i];
  merge_dims(st, "grid", grid, grid_at, 1);
  merge_dims(st, "block", block, block_at, 1);
  if (!have_cluster) cluster[0] = cluster[1] = cluster[2] = NULL;
  merge_dims(st, "cluster", cluster, incl ? incl : pair ? pair : ncl, 0);
  if (st->error) return;
  const tx_expr *none[3] = {0};
  merge_dims(st, "preferred_cluster", none, NULL, 0);
  for (uint32_t i = 0; st->entry && i + st->entry->kw.npos < st->entry->nexprs; i++) {
    const char *k = st->entry->kw.names[i];
    if (!is_dims_kw(k)) add_entry_kw(st, k, st->entry->exprs[st->entry->kw.npos + i]);
  }
  if (incl) {
    const tx_expr *pref =
        tx_kwarg(&incl->s->kw, incl->s->exprs, incl->s->nexprs, intern(st, "preferred"));
    if (pref) {
      const tx_expr *p[3] = {0};
      const tx_expr *const *items = pref->kind == EXPR_TUPLE ? pref->ops : &pref;
      uint32_t n = pref->kind == EXPR_TUPLE ? pref->nops : 1;
      for (uint32_t i = 0; i < n && i < 3; i++)
        p[i] = as_int32(st, items[i]);
      add_entry_kw(st, "preferred_cluster", tuple3(st, p));
    }
  }

  /* blockIdx / threadIdx bindings, then the derived ids */
  static const char *const bidx[3] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
  static const char *const tidx[3] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
  const tx_expr *lin = NULL; /* the linear thread index */
  int need_lin = 0;
  for (uint32_t i = 0; i < st->ndefs; i++) {
    id_kind k = st->defs[i].kind;
    need_lin |=
        k == ID_WARP || k == ID_LANE || k == ID_WG || k == ID_WARP_IN_WG || k == ID_THREAD_IN_WG;
  }
  const tx_expr *tvars[3] = {0};
  for (uint32_t i = 0; i < st->ndefs; i++) {
    const scope_def *d = &st->defs[i];
    if (d->kind != ID_THREAD && d->kind != ID_CTA) continue;
    for (uint32_t j = 0; j < d->s->nvars && j < 3; j++) {
      const tx_expr *ext = d->kind == ID_CTA ? grid[j] : block[j];
      if (!ext) ext = tx_lc_int(st->ir, TX_INT32, 1);
      bind(st, d->s->vars[j], launch_thread(st, d->kind == ID_CTA ? bidx[j] : tidx[j], ext),
           d->s->span);
      if (d->kind == ID_THREAD && d == thr && !tvars[j]) tvars[j] = d->s->vars[j];
    }
  }
  if (need_lin) {
    const tx_expr *parts[3] = {0};
    for (int j = 0; j < 3; j++) {
      if (!block[j] || (j > 0 && !(thr && (uint32_t)j < thr->n))) continue;
      if (tvars[j]) { /* uint32 ids are read back as int32 */
        parts[j] = tx_lc_cast(st->ir, TX_INT32, tvars[j]);
        continue;
      }
      /* No int32 variable reads this dimension: bind one. */
      const char *nm = tx_lc_fresh_name(&st->names, st->ir, j == 0 ? "tx" : j == 1 ? "ty" : "tz");
      const tx_expr *v = nm ? tx_var(st->ir, nm, TX_INT32, VAR_PLAIN, NOSPAN) : NULL;
      if (!v) {
        st->oom = 1;
        return;
      }
      bind(st, v, launch_thread(st, tidx[j], block[j]), NOSPAN);
      parts[j] = v;
    }
    lin = parts[0];
    if (parts[1]) lin = tx_lc_add(st->ir, lin, tx_lc_mul(st->ir, parts[1], block[0]));
    if (parts[2])
      lin = tx_lc_add(st->ir, lin,
                      tx_lc_mul(st->ir, parts[2], tx_lc_mul(st->ir, block[0], block[1])));
  }
  for (uint32_t i = 0; i < st->ndefs; i++) {
    const scope_def *d = &st->defs[i];
    const tx_stmt *s = d->s;
    for (uint32_t j = 0; j < s->nvars && j < 3; j++) {
      const tx_expr *v = NULL;
      switch (d->kind) {
      case ID_CTA:
      case ID_THREAD:
        continue;
      case ID_WARP:
        v = tx_lc_divi(st->ir, lin, 32);
        break;
      case ID_LANE:
        v = tx_lc_modi(st->ir, lin, 32);
        break;
      case ID_WG:
        v = tx_lc_divi(st->ir, lin, 128);
        break;
      case ID_WARP_IN_WG:
        v = tx_lc_divi(st->ir, tx_lc_modi(st->ir, lin, 128), 32);
        break;
      case ID_THREAD_IN_WG:
        v = tx_lc_modi(st->ir, lin, 128);
        break;
      case ID_CLUSTER: {
        const tx_expr *a = axis_str(st, (int)j);
        v = tx_lc_call(st->ir, "T.cuda.cluster_id", TX_INT32, &a, 1);
        break;
      }
      case ID_CTA_IN_CLUSTER: {
        const tx_expr *a = axis_str(st, (int)j);
        v = tx_lc_call(st->ir, "T.cuda.cluster_cta_id", TX_INT32, &a, 1);
        break;
      }
      case ID_CTA_IN_PAIR: {
        const tx_expr *a = axis_str(st, 0);
        v = tx_lc_modi(st->ir, tx_lc_call(st->ir, "T.cuda.cluster_cta_id", TX_INT32, &a, 1), 2);
        break;
      }
      case ID_COUNT:
        break;
      }
      if (!v) {
        st->oom = 1;
        return;
      }
      bind(st, s->vars[j], v, s->span);
    }
  }
}

/* ---- launch hints in T.attr --------------------------------------------------- */

static const char *hint_kw(const char *key) {
  if (strcmp(key, "tirx.launch_bounds_min_blocks_per_sm") == 0) return "min_blocks_per_sm";
  if (strcmp(key, "tirx.launch_bounds_max_blocks_per_cluster") == 0)
    return "max_blocks_per_cluster";
  if (strcmp(key, "tirx.launch_bounds_max_registers") == 0 ||
      strcmp(key, "tirx.launch_bounds_max_regs") == 0 || strcmp(key, "tirx.max_registers") == 0)
    return "max_registers";
  if (strcmp(key, "tirx.dyn_smem_bytes") == 0 || strcmp(key, "tirx.dyn_shared_bytes") == 0)
    return "dyn_shared_bytes";
  return NULL;
}

static int is_entry_attr(const tx_stmt *s) {
  if (s->kind != STMT_ATTR || !s->kw.names) return 0;
  for (uint32_t i = 0; i < s->nexprs; i++)
    if (strcmp(s->kw.names[i], "tirx.device_entry") == 0) return 1;
  return 0;
}

static int is_hint_attr(const tx_stmt *s) {
  if (s->kind != STMT_ATTR || !s->kw.names || !s->nexprs) return 0;
  for (uint32_t i = 0; i < s->nexprs; i++)
    if (!hint_kw(s->kw.names[i])) return 0;
  return 1;
}

static int hints_pre_stmt(tx_visitor *v, const tx_stmt *s) {
  lt_state *st = v->user;
  /* Hints come alone or in the entry's own dict, as TVM prints them:
   * T.attr({"tirx.device_entry": T.bool(True), "tirx.max_registers": 92}). */
  if (!is_hint_attr(s) && !is_entry_attr(s)) return 1;
  for (uint32_t i = 0; i < s->nexprs; i++)
    if (hint_kw(s->kw.names[i])) add_entry_kw(st, hint_kw(s->kw.names[i]), s->exprs[i]);
  return 1;
}

/* ---- the rewrite ---------------------------------------------------------------- */

static const tx_buffer *scalar_buffer(lt_state *st, const tx_expr *var) {
  for (uint32_t i = 0; i < st->nscal; i++)
    if (st->svars[i] == var) return st->sbufs[i];
  return NULL;
}

static const tx_expr *zero_index(lt_state *st) {
  return tx_lc_int(st->ir, TX_INT32, 0);
}

/* The fields of b with every scalar read as x[0]: b itself when none is
 * read, else a copy (remembered, so every use of b switches to it). */
static const tx_buffer *remap_buffer(tx_mutator *m, const tx_buffer *b) {
  lt_state *st = m->user;
  if (!b || !st->nscal) return b;
  const tx_buffer *known = tx_ptrmap_get(&st->rebufs, b);
  if (known) return known;
  const tx_expr *shape[TX_MAX_DIMS_REMAP], *strides[TX_MAX_DIMS_REMAP];
  if (b->ndim > TX_MAX_DIMS_REMAP || b->nstrides > TX_MAX_DIMS_REMAP) return b;
  int changed = 0;
  for (uint32_t i = 0; i < b->ndim; i++)
    changed |= (shape[i] = tx_mutate_expr(m, b->shape[i])) != b->shape[i];
  for (uint32_t i = 0; i < b->nstrides; i++)
    changed |= (strides[i] = tx_mutate_expr(m, b->strides[i])) != b->strides[i];
  const tx_expr *off = tx_mutate_expr(m, b->elem_offset);
  const tx_expr *origin = tx_mutate_expr(m, b->origin);
  changed |= off != b->elem_offset || origin != b->origin;
  if (!changed || m->failed) return b;
  tx_buffer fields = *b;
  fields.shape = shape;
  fields.strides = strides;
  fields.elem_offset = off;
  fields.origin = origin;
  const tx_buffer *nb = tx_buffer_make(st->ir, &fields);
  if (!nb || !tx_ptrmap_put(&st->rebufs, b, (void *)nb)) return m->failed = 1, b;
  return nb;
}

/* A load, buffer reference or region of a remapped buffer, on the copy. */
static const tx_expr *remap_buffer_use(tx_mutator *m, const tx_expr *e) {
  lt_state *st = m->user;
  const tx_buffer *nb = tx_ptrmap_get(&st->rebufs, e->u.buffer);
  if (!nb) return NULL;
  const tx_expr *r = tx_expr_with_buffer(st->ir, tx_mutate_expr_children(m, e), nb);
  return r ? r : (m->failed = 1, e);
}

static const tx_expr *lt_expr(tx_mutator *m, const tx_expr *e) {
  lt_state *st = m->user;
  if (e->kind == EXPR_LOAD || e->kind == EXPR_BUFFER || e->kind == EXPR_REGION)
    return remap_buffer_use(m, e);
  if (e->kind != EXPR_VAR || e->u.var.form != VAR_SCALAR) return NULL;
  const tx_buffer *b = scalar_buffer(st, e);
  if (!b) {
    tx_internal_error(st->pc->diags, PASS, "scalar '%s' used before its definition",
                      e->u.var.name ? e->u.var.name : "?");
    st->error = 1;
    return e;
  }
  const tx_expr *idx = zero_index(st);
  /* No span of its own: the variable node is shared by every use, so its
   * span is the definition's; diagnostics about this read are located at
   * the expression or statement around it. */
  const tx_expr *load = idx ? tx_load(st->ir, b, b->dtype, &idx, 1, (tirx_span){0}) : NULL;
  return load ? load : (m->failed = 1, e);
}

static const tx_stmt *store0(lt_state *st, const tx_buffer *b, const tx_expr *value,
                             tirx_span span) {
  const tx_expr *ops[2] = {value, zero_index(st)};
  if (!ops[0] || !ops[1]) return NULL;
  return tx_stmt_make(
      st->ir, &(tx_stmt){.kind = STMT_STORE, .nexprs = 2, .exprs = ops, .buffer = b, .span = span});
}

/* Room for one more scalar in svars and sbufs (which share capscal). */
static int grow_scalars(lt_state *st) {
  const tirx_allocator *a = tx_ir_alloc(st->ir);
  if (!grow(a, (void **)&st->svars, &st->capscal, st->nscal, sizeof *st->svars)) return 0;
  /* Not assigned before the check: a failed realloc leaves the old block. */
  const tx_buffer **bufs = tx_mem_realloc(a, (void *)st->sbufs, st->capscal * sizeof *bufs);
  if (!bufs) return 0;
  st->sbufs = bufs;
  return 1;
}

static const tx_stmt *lower_scalar(tx_mutator *m, const tx_stmt *s) {
  lt_state *st = m->user;
  const tx_expr *var = s->vars[0];
  const char *local = intern(st, "local");
  const tx_expr *data = tx_var_make(st->ir, TX_HANDLE,
                                    &(tx_var_info){.name = var->u.var.name,
                                                   .form = VAR_BUFFER_DATA,
                                                   .pointee = var->dtype,
                                                   .scope = local,
                                                   .has_pointee = 1},
                                    var->span);
  const tx_expr *one = tx_lc_int(st->ir, TX_INT32, 1);
  const tx_buffer *b = data && one ? tx_buffer_make(st->ir, &(tx_buffer){.name = var->u.var.name,
                                                                         .data = data,
                                                                         .dtype = var->dtype,
                                                                         .ndim = 1,
                                                                         .shape = &one,
                                                                         .scope = local,
                                                                         .form = BUF_ALLOC_LOCAL,
                                                                         .span = var->span})
                                   : NULL;
  if (!b || !grow_scalars(st)) return m->failed = 1, s;
  st->svars[st->nscal] = var;
  st->sbufs[st->nscal++] = b;
  const tx_stmt *alloc =
      tx_stmt_make(st->ir, &(tx_stmt){.kind = STMT_ALLOC, .buffer = b, .span = s->span});
  if (!alloc) return m->failed = 1, s;
  if (!s->nexprs) return alloc;
  const tx_stmt *items[2] = {alloc, store0(st, b, tx_mutate_expr(m, s->exprs[0]), s->span)};
  const tx_stmt *r = tx_lc_seq(st->ir, items, 2, s->span);
  return r ? r : (m->failed = 1, s);
}

static const tx_stmt *lower_entry(tx_mutator *m, const tx_stmt *s, const tx_stmt *body) {
  lt_state *st = m->user;
  const tx_stmt *e = tx_stmt_make(st->ir, &(tx_stmt){.kind = STMT_DEVICE_ENTRY,
                                                     .nexprs = st->nentry,
                                                     .exprs = st->entry_kwargs,
                                                     .kw.names = st->entry_names,
                                                     .span = s->span});
  if (!e) return m->failed = 1, s;
  uint32_t n = st->nlaunch + 2;
  const tx_stmt **items = tx_mem_calloc(tx_ir_alloc(st->ir), n, sizeof *items);
  if (!items) return m->failed = 1, s;
  uint32_t k = 0;
  items[k++] = e;
  for (uint32_t i = 0; i < st->nlaunch; i++)
    items[k++] = st->launch[i];
  if (body) items[k++] = tx_mutate_stmt(m, body);
  /* One of several kernels: the entry keeps its region, the launch inside. */
  const tx_stmt *r = st->with_entry ? tx_lc_seq(st->ir, items + 1, k - 1, s->span)
                                    : tx_lc_seq(st->ir, items, k, s->span);
  tx_mem_free(tx_ir_alloc(st->ir), items);
  if (r && st->with_entry) r = tx_stmt_region(st->ir, e, r, s->span);
  return r ? r : (m->failed = 1, s);
}

/* A buffer definition or store whose buffer reads a scalar in its fields:
 * the same statement on the remapped buffer. NULL: nothing to remap. */
static const tx_stmt *lower_buffer_stmt(tx_mutator *m, const tx_stmt *s) {
  lt_state *st = m->user;
  if (!s->buffer) return NULL;
  const tx_buffer *nb = tx_stmt_defines_buffer((tx_stmt_kind)s->kind)
                            ? remap_buffer(m, s->buffer)
                            : tx_ptrmap_get(&st->rebufs, s->buffer);
  if (!nb || nb == s->buffer) return NULL;
  const tx_stmt *r = tx_stmt_with(st->ir, s, NULL, NULL, NULL, nb);
  return r ? tx_mutate_stmt_children(m, r) : (m->failed = 1, s);
}

/* A scalar-sugar variable that buffer b's fields (data, allocated_addr,
 * shape, ...) use, or NULL: such a buffer is over the variable itself (a
 * view of it, an address kept in it), which the rewrite of scalar sugar
 * into one-element buffers does not reach. */
static int scalar_use_pre(tx_visitor *v, const tx_expr *e) {
  if (e->kind == EXPR_VAR && e->u.var.form == VAR_SCALAR && !v->user) {
    v->user = (void *)e;
    v->stop = 1;
  }
  return 1;
}

static const tx_expr *buffer_scalar_use(const tx_buffer *b) {
  tx_visitor v = {.pre_expr = scalar_use_pre};
  if (b) tx_visit_buffer_fields(&v, b);
  return v.user;
}

static const tx_stmt *lt_stmt(tx_mutator *m, const tx_stmt *s) {
  lt_state *st = m->user;
  switch ((tx_stmt_kind)s->kind) {
  case STMT_SEQ:
    return tx_lc_mutate_seq(m, s);
  case STMT_SCOPE_ID:
    return tx_lc_empty(st->ir);
  case STMT_DEVICE_ENTRY:
    return lower_entry(m, s, s->flag == 1 && s->nstmts ? s->stmts[0] : NULL);
  case STMT_ATTR:
    if (is_entry_attr(s)) return lower_entry(m, s, s->flag == 1 && s->nstmts ? s->stmts[0] : NULL);
    if (is_hint_attr(s))
      return s->flag == 1 && s->nstmts ? tx_mutate_stmt(m, s->stmts[0]) : tx_lc_empty(st->ir);
    return NULL;
  case STMT_BIND:
    if (s->flag == BIND_SCALAR || s->flag == BIND_LOCAL_SCALAR) return lower_scalar(m, s);
    return NULL;
  case STMT_ASSIGN: {
    const tx_buffer *b = s->nvars ? scalar_buffer(st, s->vars[0]) : NULL;
    if (!b || !s->nexprs) {
      tx_internal_error(st->pc->diags, PASS, "assignment to a variable that is not a scalar");
      st->error = 1;
      return s;
    }
    const tx_stmt *r = store0(st, b, tx_mutate_expr(m, s->exprs[0]), s->span);
    return r ? r : (m->failed = 1, s);
  }
  case STMT_BLOCK:
  case STMT_BLOCK_AXIS:
  case STMT_BLOCK_SIG:
  case STMT_BLOCK_INIT:
    /* lower-sblock, the first pass, leaves none. */
    tx_internal_error(st->pc->diags, PASS, "an s_tir block reached lowering");
    st->error = 1;
    return s;
  case STMT_STORE:
  case STMT_ALLOC:
  case STMT_DECL:
    return lower_buffer_stmt(m, s);
  case STMT_TILE_OP:
    /* Its operands' scalar sugar is rewritten like any expression's, and
     * dispatch-tile lowers it; a buffer over a scalar variable is refused. */
    for (uint32_t i = 0; i < s->nexprs; i++) {
      const tx_expr *e = s->exprs[i];
      const tx_buffer *b =
          e && (e->kind == EXPR_BUFFER || e->kind == EXPR_REGION || e->kind == EXPR_LOAD)
              ? e->u.buffer
              : NULL;
      const tx_expr *x = buffer_scalar_use(b);
      if (x) {
        tx_error(st->pc->diags, e->span,
                 "tile primitive %s: an operand's buffer is over the scalar variable '%s' (a "
                 "view of it or an address in it), which is not lowered yet",
                 s->name ? s->name : "?", x->u.var.name ? x->u.var.name : "?");
        st->error = 1;
        return s;
      }
    }
    return NULL;
  case STMT_EVAL:
  case STMT_FOR:
  case STMT_WHILE:
  case STMT_ASSERT:
  case STMT_IF:
  case STMT_BREAK:
  case STMT_CONTINUE:
  case STMT_RETURN:
  case STMT_WITH:
  case TX_STMT_KIND_COUNT:
    break;
  }
  return NULL;
}

/* Lowers f (or one region of it, as a function whose body is the region);
 * the caller has collected the function's names. */
static const tx_func *lower_body(lt_state *st, const tx_func *f) {
  st->ndefs = 0;
  st->nlaunch = 0;
  st->nentry = 0;
  st->entry = NULL;
  memset(st->first, 0, sizeof st->first);
  tx_visitor v = {.user = st, .pre_stmt = collect_pre_stmt};
  tx_visit_stmt(&v, f->body);
  if (st->error || st->oom) return f;
  /* Pointers into defs[] are stable now that collection is over. */
  memset(st->first, 0, sizeof st->first);
  for (uint32_t i = 0; i < st->ndefs; i++)
    if (!st->first[st->defs[i].kind]) st->first[st->defs[i].kind] = &st->defs[i];
  build_launch(st);
  tx_visitor hv = {.user = st, .pre_stmt = hints_pre_stmt};
  tx_visit_stmt(&hv, f->body);
  if (st->error || st->oom || st->names.failed) return f;
  tx_mutator m = {.ir = st->ir, .user = st, .expr = lt_expr, .stmt = lt_stmt};
  const tx_func *r = tx_mutate_func(&m, f);
  if (m.failed) st->oom = 1;
  return r;
}

static int is_entry_stmt(const tx_stmt *s) {
  return s && (s->kind == STMT_DEVICE_ENTRY || is_entry_attr(s));
}

/* Are the function's kernels regions: several top-level device entries, or
 * a with-form one that host statements follow? (One kernel that ends the
 * function becomes the flat form.) */
static int has_regions(const tx_func *f) {
  uint32_t n, k = 0;
  const tx_stmt *const *items = tx_func_top_stmts(f, &n);
  for (uint32_t i = 0; i < n; i++) {
    if (!is_entry_stmt(items[i])) continue;
    k++;
    if (items[i]->flag == 1 && i + 1 < n) return 1;
  }
  return k > 1;
}

/* A flat entry followed by rest[0..n): the same entry with the rest as its region. */
static const tx_stmt *as_region(lt_state *st, const tx_stmt *entry, const tx_stmt *const *rest,
                                uint32_t n) {
  const tx_stmt *body = tx_lc_seq(st->ir, rest, n, entry->span);
  const tx_stmt *w = body ? tx_stmt_region(st->ir, entry, body, entry->span) : NULL;
  return w ? w : (st->oom = 1, NULL);
}

/* Several kernels: each top-level device entry is lowered on its own (its
 * scope ids give its launch) and stays a with-form region; a flat entry's
 * region is the rest of the sequence. Host statements in between are
 * lowered as host code. */
static const tx_func *lower_kernels(lt_state *st, const tx_func *f) {
  uint32_t n, k = 0;
  const tx_stmt *const *items = tx_func_top_stmts(f, &n);
  const tx_stmt **out = tx_arena_alloc(st->ir->arena, n * sizeof *out);
  if (!out) return st->oom = 1, f;
  for (uint32_t i = 0; i < n && !st->error && !st->oom; i++) {
    const tx_stmt *region = items[i];
    int kernel = is_entry_stmt(region);
    if (kernel && region->flag == 0) {
      region = as_region(st, region, items + i + 1, n - i - 1);
      i = n;
      if (!region) return f;
    }
    tx_func part = *f;
    part.body = region;
    st->with_entry = kernel;
    const tx_func *r = lower_body(st, &part);
    out[k++] = r->body;
  }
  st->with_entry = 0;
  if (st->error || st->oom) return f;
  const tx_func *r = tx_func_with_body(st->ir, f, tx_lc_seq(st->ir, out, k, f->body->span));
  return r ? r : (st->oom = 1, f);
}

static const tx_func *lower_func(lt_state *st, const tx_func *f) {
  tx_lc_names_collect(&st->names, st->pc, f);
  if (has_regions(f)) return lower_kernels(st, f);
  return lower_body(st, f);
}

/* Every function is lowered, after an error too (to report them all). */
static const tx_func *lower_each(void *state, const tx_func *f) {
  lt_state *st = state;
  const tx_func *r = lower_func(st, f);
  if (st->oom) return NULL;
  if (!st->error) tx_lc_names_keep(&st->names, st->pc, r);
  return r;
}

tirx_status tx_pass_lower_tirx(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  lt_state st = {.pc = pc, .ir = pc->ir};
  tirx_status status = tx_lc_each_func(pc, in, lower_each, &st, out);
  if (status == TIRX_OK) status = tx_lc_status(pc, st.oom, st.error);
  if (status != TIRX_OK) *out = in;
  const tirx_allocator *a = tx_ir_alloc(pc->ir);
  tx_mem_free(a, st.defs);
  tx_mem_free(a, st.launch);
  tx_mem_free(a, st.svars);
  tx_mem_free(a, (void *)st.sbufs);
  tx_ptrmap_free(&st.rebufs);
  tx_lc_names_free(&st.names);
  return status;
}
