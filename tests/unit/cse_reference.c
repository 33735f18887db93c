/*
 * cse_reference.c - the cse pass as it was before it became linear: every
 * round rescans the block, compares candidates pairwise and rewrites every
 * later statement. Quadratic (and worse), but short and obviously the
 * algorithm the header of passes/cse.c describes, so test_cse.c runs it
 * next to the real pass on generated programs and on the golden kernels and
 * requires the same output. Test code only: never linked into libtirx.
 * Its round limit (10000) is far above anything the tests generate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/equal.h"
#include "passes/cse.h"
#include "passes/lower_common.h"
#include "passes/pass.h"

tirx_status tx_pass_cse_reference(tx_pass_ctx *pc, const tx_module *in, const tx_module **out);

static const char PASS[] = "cse";

/* One occurrence of a candidate expression. */
typedef struct cand {
  const tx_expr *e;
  uint64_t hash;
  uint32_t item; /* index of the block statement it occurs in */
  uint32_t size; /* node count */
} cand;

typedef struct cse_state {
  tx_pass_ctx *pc;
  tx_ir *ir;
  tx_lc_names names;
  int next; /* the N of the next cse_vN */
  /* candidates of the block being scanned */
  cand *cands;
  uint32_t ncands, capcands;
  uint32_t cur_item;
  /* the substitution in progress */
  const tx_expr *target, *with;
  int oom, internal;
} cse_state;

/* What may be searched, counted and hoisted is the pass's own definition
 * (passes/cse.h): the reference differs only in how it finds repeats. */

/* ---- collecting candidates ------------------------------------------------------- */

/* What the scan knows of a subtree once its operands are done. */
typedef struct scan_info {
  int pure;
  uint32_t size; /* node count */
  uint64_t hash; /* equal subtrees hash equal; meaningful only when pure */
} scan_info;

/* Reserve the next candidate slot (filled or dropped once the operands are
 * scanned, so that candidates stay in source pre-order); -1 on OOM. */
static int64_t reserve_cand(cse_state *st) {
  if (st->ncands == st->capcands) {
    uint32_t cap = st->capcands ? st->capcands * 2 : 64;
    cand *c = realloc(st->cands, cap * sizeof *c);
    if (!c) {
      st->oom = 1;
      return -1;
    }
    st->cands = c;
    st->capcands = cap;
  }
  st->cands[st->ncands] = (cand){0}; /* size 0: dropped unless filled */
  return st->ncands++;
}

static scan_info scan_expr(cse_state *st, const tx_expr *e);

/* Variables and integers are most leaves: hash them directly rather than
 * through tx_expr_hash's binding-aware walk. A free variable is equal only
 * to itself (tx_expr_equal), so its address is a consistent hash; the hash
 * only prefilters tx_expr_equal and never orders anything. */
static uint64_t leaf_hash(const tx_expr *e, uint64_t type) {
  if (e->kind == EXPR_VAR) return tx_hash_mix(type, (uint64_t)(uintptr_t)e);
  if (e->kind == EXPR_INT) return tx_hash_mix(tx_hash_mix(EXPR_INT, type), (uint64_t)e->u.ival);
  return tx_expr_hash(e);
}

static void scan_layout(cse_state *st, const tx_layout *l) {
  for (; l; l = l->tile) {
    const tx_layout_iter *lists[] = {l->shard, l->replica, l->offset};
    const uint32_t counts[] = {l->nshard, l->nreplica, l->noffset};
    for (int k = 0; k < 3; k++)
      for (uint32_t i = 0; lists[k] && i < counts[k]; i++) {
        scan_expr(st, lists[k][i].extent);
        scan_expr(st, lists[k][i].stride);
      }
  }
}

/* One walk finds the candidates under e and, bottom-up, e's purity, size
 * and hash: walking each candidate again for those was quadratic in depth.
 * Searched: everything but EXPR_LET and the operands of calls other than
 * searchable ones' positional arguments. */
static scan_info scan_expr(cse_state *st, const tx_expr *e) {
  scan_info info = {.pure = 1};
  if (!e || st->oom) return info;
  info.pure = 0;
  if (e->kind == EXPR_LET) return info;
  if (e->kind == EXPR_CALL) {
    if (tx_cse_searchable_call(e))
      for (uint32_t i = 0; i < e->u.call.kw.npos && i < e->nops; i++)
        scan_expr(st, e->ops[i]);
    return info;
  }
  int64_t slot = tx_cse_hoist_shape(e) ? reserve_cand(st) : -1;
  info = (scan_info){.pure = !tx_cse_impure_node(e), .size = 1};
  /* Leaves hash as tx_expr_hash does; inner nodes from what tx_expr_equal
   * compares of them (kind, dtype, operand count) and their operands. */
  tx_dtype t = e->dtype;
  uint64_t type = (uint64_t)t.code << 24 | (uint64_t)t.bits << 16 | t.lanes;
  info.hash = e->nops ? tx_hash_mix(tx_hash_mix(e->kind, type), e->nops) : leaf_hash(e, type);
  for (uint32_t i = 0; i < e->nops; i++) {
    scan_info op = scan_expr(st, e->ops[i]);
    info.pure &= op.pure;
    info.size += op.size;
    info.hash = tx_hash_mix(info.hash, op.hash);
  }
  if (e->kind == EXPR_LAYOUT) scan_layout(st, e->u.layout);
  if (slot >= 0 && info.pure) st->cands[slot] = (cand){e, info.hash, st->cur_item, info.size};
  return info;
}

static void collect_block(cse_state *st, const tx_stmt *const *items, uint32_t n) {
  st->ncands = 0;
  for (uint32_t i = 0; i < n && !st->oom; i++) {
    st->cur_item = i;
    for (uint32_t j = 0; j < items[i]->nexprs; j++)
      if (tx_cse_own_expr(items[i], j)) scan_expr(st, items[i]->exprs[j]);
  }
  /* Drop the reserved slots of impure expressions. */
  uint32_t kept = 0;
  for (uint32_t i = 0; i < st->ncands; i++)
    if (st->cands[i].size) st->cands[kept++] = st->cands[i];
  st->ncands = kept;
}

/* ---- scope check ------------------------------------------------------------------ */

typedef struct var_check {
  tx_visitor v;
  const tx_expr *const *bound;
  uint32_t nbound;
  int hit;
} var_check;

static int var_check_pre(tx_visitor *v, const tx_expr *e) {
  var_check *c = (var_check *)v;
  if (e->kind == EXPR_VAR)
    for (uint32_t i = 0; i < c->nbound; i++)
      if (c->bound[i] == e) c->hit = v->stop = 1;
  return 1;
}

/* Does e read a variable bound by a flat binding among items[k..n)? */
static int reads_later_binding(const tx_expr *e, const tx_stmt *const *items, uint32_t k,
                               uint32_t n) {
  var_check c = {.v = {.pre_expr = var_check_pre}};
  c.v.user = &c;
  for (uint32_t i = k; i < n && !c.hit; i++) {
    const tx_stmt *s = items[i];
    if (s->kind != STMT_BIND && s->kind != STMT_SCOPE_ID) continue;
    c.bound = s->vars;
    c.nbound = s->nvars;
    tx_visit_expr(&c.v, e);
  }
  return c.hit;
}

/* ---- substitution ------------------------------------------------------------------ */

static const tx_expr *subst_expr(tx_mutator *m, const tx_expr *e) {
  cse_state *st = m->user;
  if (e->kind == EXPR_LET || (e->kind == EXPR_CALL && !tx_cse_searchable_call(e))) return e;
  if (e->kind == st->target->kind && tx_dtype_eq(e->dtype, st->target->dtype) &&
      tx_expr_equal(e, st->target))
    return st->with;
  return NULL;
}

/* Mutate only the expressions a statement computes itself (tx_cse_own_expr), and
 * its child statements. */
static const tx_stmt *subst_stmt(tx_mutator *m, const tx_stmt *s) {
  const tx_expr **exprs = s->nexprs ? calloc(s->nexprs, sizeof *exprs) : NULL;
  const tx_stmt **stmts = s->nstmts ? calloc(s->nstmts, sizeof *stmts) : NULL;
  if ((s->nexprs && !exprs) || (s->nstmts && !stmts)) {
    free(exprs);
    m->failed = 1;
    return s;
  }
  int changed = 0;
  for (uint32_t j = 0; j < s->nexprs; j++) {
    exprs[j] = tx_cse_own_expr(s, j) ? tx_mutate_expr(m, s->exprs[j]) : s->exprs[j];
    changed |= exprs[j] != s->exprs[j];
  }
  for (uint32_t j = 0; j < s->nstmts; j++) {
    stmts[j] = tx_mutate_stmt(m, s->stmts[j]);
    changed |= stmts[j] != s->stmts[j];
  }
  tx_stmt *r = NULL;
  if (changed && !m->failed) {
    r = tx_stmt_new(m->ir, (tx_stmt_kind)s->kind, exprs, s->nexprs, stmts, s->nstmts, s->span);
    if (!r)
      m->failed = 1;
    else {
      r->flag = s->flag;
      r->nvars = s->nvars;
      r->vars = s->vars;
      r->buffer = s->buffer;
      r->name = s->name;
      r->kw = s->kw;
    }
  }
  free(exprs);
  free(stmts);
  return r ? r : s;
}

/* ---- one block ------------------------------------------------------------------------ */

typedef struct item_vec {
  const tx_stmt **items;
  uint32_t n, cap;
} item_vec;

static int iv_insert(item_vec *v, uint32_t at, const tx_stmt *s) {
  if (v->n == v->cap) {
    uint32_t cap = v->cap ? v->cap * 2 : 16;
    const tx_stmt **p = realloc((void *)v->items, cap * sizeof *p);
    if (!p) return 0;
    v->items = p;
    v->cap = cap;
  }
  memmove((void *)(v->items + at + 1), v->items + at, (v->n - at) * sizeof *v->items);
  v->items[at] = s;
  v->n++;
  return 1;
}

/* The group to hoist: the largest expression occurring twice or more (first
 * occurrence in source order on ties); -1 when there is none. */
static int64_t pick(cse_state *st, const tx_stmt *const *items, uint32_t n) {
  int64_t best = -1;
  uint32_t best_size = 0;
  for (uint32_t i = 0; i < st->ncands; i++) {
    cand *c = &st->cands[i];
    if (c->size <= best_size) continue;
    int seen_before = 0, count = 1;
    for (uint32_t j = 0; j < i && !seen_before; j++)
      seen_before = st->cands[j].hash == c->hash && tx_expr_equal(st->cands[j].e, c->e);
    if (seen_before) continue;
    for (uint32_t j = i + 1; j < st->ncands && count < 2; j++)
      count += st->cands[j].hash == c->hash && tx_expr_equal(st->cands[j].e, c->e);
    if (count < 2 || reads_later_binding(c->e, items, c->item, n)) continue;
    best = i;
    best_size = c->size;
  }
  return best;
}

static const char *fresh_name(cse_state *st) {
  char buf[32];
  for (;;) {
    snprintf(buf, sizeof buf, "cse_v%d", ++st->next);
    const char *name = tx_intern(st->ir->strings, buf);
    if (!name) return NULL;
    if (!tx_lc_names_has(&st->names, name)) return tx_lc_fresh_name(&st->names, st->ir, buf);
  }
}

/* CSE over a block: v holds its statements and is rewritten in place.
 * Returns 1 when something changed. */
static int cse_block(cse_state *st, item_vec *v) {
  int changed = 0;
  for (int round = 0; round < 10000 && !st->oom; round++) {
    collect_block(st, v->items, v->n);
    int64_t g = st->oom ? -1 : pick(st, v->items, v->n);
    if (g < 0) break;
    const tx_expr *e = st->cands[g].e;
    uint32_t k = st->cands[g].item;
    const tx_stmt *first = v->items[k];
    uint32_t from = k;
    const tx_expr *var;
    if (first->kind == STMT_BIND && (first->flag == BIND_PLAIN || first->flag == BIND_LET) &&
        first->nvars == 1 && first->exprs[0] == e && tx_dtype_eq(first->vars[0]->dtype, e->dtype)) {
      /* `x = e` already names the value: later uses read x. */
      var = first->vars[0];
      from = k + 1;
    } else {
      const char *name = fresh_name(st);
      tx_expr *nv = name ? tx_var(st->ir, name, e->dtype, VAR_PLAIN, e->span) : NULL;
      tx_stmt *b = nv ? tx_stmt_new(st->ir, STMT_BIND, &e, 1, NULL, 0, first->span) : NULL;
      const tx_expr *const *vs = b ? TX_DUP(st->ir, tx_expr, (const tx_expr *const *)&nv, 1) : NULL;
      if (!vs || !iv_insert(v, k, b)) {
        st->oom = 1;
        break;
      }
      b->flag = BIND_PLAIN;
      b->nvars = 1;
      b->vars = vs;
      var = nv;
      from = k + 1;
    }
    st->target = e;
    st->with = var;
    tx_mutator m = {.ir = st->ir, .user = st, .expr = subst_expr, .stmt = subst_stmt};
    int replaced = 0;
    for (uint32_t i = from; i < v->n && !m.failed; i++) {
      const tx_stmt *r = tx_mutate_stmt(&m, v->items[i]);
      replaced |= r != v->items[i];
      v->items[i] = r;
    }
    if (m.failed)
      st->oom = 1;
    else if (!replaced) {
      /* pick() saw two occurrences in those statements: a bug. */
      tx_internal_error(st->pc->diags, PASS, "no occurrence of a repeated expression was replaced");
      st->internal = 1;
      break;
    }
    changed = 1;
  }
  return changed;
}

/* ---- the pass's mutator ------------------------------------------------------------ */

static const tx_stmt *as_block(tx_mutator *m, const tx_stmt *s, tirx_span span);

static const tx_stmt *cse_stmt(tx_mutator *m, const tx_stmt *s) {
  cse_state *st = m->user;
  if (st->oom || st->internal) return s;
  if (s->kind == STMT_SEQ) {
    item_vec v = {0};
    int changed = 0;
    for (uint32_t i = 0; i < s->nstmts && !m->failed; i++) {
      const tx_stmt *r = tx_mutate_stmt(m, s->stmts[i]);
      changed |= r != s->stmts[i];
      if (!iv_insert(&v, v.n, r)) m->failed = 1;
    }
    if (!m->failed) changed |= cse_block(st, &v);
    const tx_stmt *r = s;
    if (!m->failed && !st->oom && changed) {
      tx_stmt *seq = tx_stmt_new(m->ir, STMT_SEQ, NULL, 0, v.items, v.n, s->span);
      if (!seq) m->failed = 1;
      r = seq ? seq : s;
    }
    free((void *)v.items);
    if (st->oom) m->failed = 1;
    return r;
  }
  if (!s->nstmts) return NULL;
  /* A compound statement: its non-sequence bodies are one-statement blocks. */
  const tx_stmt *c = tx_mutate_stmt_children(m, s);
  const tx_stmt **stmts = calloc(c->nstmts, sizeof *stmts);
  if (!stmts) return m->failed = 1, s;
  int changed = 0;
  for (uint32_t i = 0; i < c->nstmts && !m->failed; i++) {
    stmts[i] = c->stmts[i]->kind == STMT_SEQ ? c->stmts[i] : as_block(m, c->stmts[i], c->span);
    changed |= stmts[i] != c->stmts[i];
  }
  const tx_stmt *r = c;
  if (changed && !m->failed) {
    tx_stmt *n =
        tx_stmt_new(m->ir, (tx_stmt_kind)c->kind, c->exprs, c->nexprs, stmts, c->nstmts, c->span);
    if (!n)
      m->failed = 1;
    else {
      n->flag = c->flag;
      n->nvars = c->nvars;
      n->vars = c->vars;
      n->buffer = c->buffer;
      n->name = c->name;
      n->kw = c->kw;
      r = n;
    }
  }
  free(stmts);
  return r;
}

/* A single statement as a block: a sequence when bindings were hoisted. */
static const tx_stmt *as_block(tx_mutator *m, const tx_stmt *s, tirx_span span) {
  cse_state *st = m->user;
  item_vec v = {0};
  if (!iv_insert(&v, 0, s)) return m->failed = 1, s;
  const tx_stmt *r = s;
  if (cse_block(st, &v) && !st->oom) {
    tx_stmt *seq = tx_stmt_new(m->ir, STMT_SEQ, NULL, 0, v.items, v.n, span);
    if (!seq) m->failed = 1;
    r = seq ? seq : s;
  }
  if (st->oom) m->failed = 1;
  free((void *)v.items);
  return r;
}

tirx_status tx_pass_cse_reference(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  *out = in;
  if (!pc->target || pc->target->opt_level < 2) return TIRX_OK;
  cse_state st = {.pc = pc, .ir = pc->ir};
  const tx_func **funcs = in->nfuncs ? calloc(in->nfuncs, sizeof *funcs) : NULL;
  if (in->nfuncs && !funcs) return TIRX_ERR_NOMEM;
  int changed = 0;
  for (uint32_t i = 0; i < in->nfuncs && !st.oom && !st.internal; i++) {
    const tx_func *f = in->funcs[i];
    tx_lc_names_collect(&st.names, pc, f);
    st.next = 0;
    tx_mutator m = {.ir = pc->ir, .user = &st, .stmt = cse_stmt};
    funcs[i] = tx_mutate_func(&m, f);
    if (!m.failed && funcs[i]->body && funcs[i]->body->kind != STMT_SEQ) {
      const tx_stmt *b = as_block(&m, funcs[i]->body, funcs[i]->body->span);
      if (b != funcs[i]->body && !m.failed) {
        tx_func *c = tx_arena_alloc(pc->ir->arena, sizeof *c);
        if (!c)
          m.failed = 1;
        else {
          *c = *funcs[i];
          c->body = b;
          funcs[i] = c;
        }
      }
    }
    if (m.failed || st.names.failed) st.oom = 1;
    if (!st.oom && !st.internal) tx_lc_names_keep(&st.names, pc, funcs[i]);
    changed |= funcs[i] != f;
  }
  tirx_status status = st.internal ? TIRX_ERR_INTERNAL : st.oom ? TIRX_ERR_NOMEM : TIRX_OK;
  if (status == TIRX_OK && changed) status = tx_lc_replace_funcs(pc->ir, in, funcs, out);
  free(funcs);
  free(st.cands);
  tx_lc_names_free(&st.names);
  return status;
}
