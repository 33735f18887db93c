/*
 * visit.c - the generic visitor and mutator over the uniform operand arrays.
 *
 * Must not modify any node: the mutator copies a node before giving it new
 * operands, and returns the original whenever nothing below it changed.
 * Recursive; see visit.h for the depth assumption.
 */
#include "ir/visit.h"

#include <string.h>

int tx_stmt_binds_vars(tx_stmt_kind k) {
  switch (k) {
  case STMT_BIND:
  case STMT_FOR:
  case STMT_SCOPE_ID:
  case STMT_WITH:
  case STMT_BLOCK_AXIS: /* the block's iter vars */
    return 1;
  case STMT_STORE:
  case STMT_ASSIGN: /* assigns an existing scalar-sugar variable */
  case STMT_ATTR:
  case STMT_ASSERT:
  case STMT_SEQ:
  case STMT_EVAL:
  case STMT_IF:
  case STMT_WHILE:
  case STMT_BREAK:
  case STMT_CONTINUE:
  case STMT_RETURN:
  case STMT_ALLOC:
  case STMT_DECL:
  case STMT_DEVICE_ENTRY:
  case STMT_BLOCK:
  case STMT_BLOCK_SIG:
  case STMT_BLOCK_INIT:
  case STMT_TILE_OP:
  case TX_STMT_KIND_COUNT:
    return 0;
  }
  return 0;
}

int tx_stmt_defines_buffer(tx_stmt_kind k) {
  switch (k) {
  case STMT_ALLOC:
  case STMT_DECL:
    return 1;
  case STMT_STORE: /* writes a buffer defined elsewhere */
  case STMT_BIND:
  case STMT_FOR:
  case STMT_SCOPE_ID:
  case STMT_WITH:
  case STMT_ASSIGN:
  case STMT_ATTR:
  case STMT_ASSERT:
  case STMT_SEQ:
  case STMT_EVAL:
  case STMT_IF:
  case STMT_WHILE:
  case STMT_BREAK:
  case STMT_CONTINUE:
  case STMT_RETURN:
  case STMT_DEVICE_ENTRY:
  case STMT_BLOCK:
  case STMT_BLOCK_AXIS:
  case STMT_BLOCK_SIG:
  case STMT_BLOCK_INIT:
  case STMT_TILE_OP:
  case TX_STMT_KIND_COUNT:
    return 0;
  }
  return 0;
}

/* ---- Visitor ------------------------------------------------------------- */

static void visit_exprs(tx_visitor *v, const tx_expr *const *es, uint32_t n) {
  for (uint32_t i = 0; i < n && !v->stop; i++)
    tx_visit_expr(v, es[i]);
}

static void visit_iters(tx_visitor *v, const tx_layout_iter *it, uint32_t n) {
  for (uint32_t i = 0; it && i < n && !v->stop; i++) {
    tx_visit_expr(v, it[i].extent);
    tx_visit_expr(v, it[i].stride);
  }
}

void tx_visit_layout(tx_visitor *v, const tx_layout *l) {
  /* A compose layout wraps a tile layout: follow the chain, not recursion. */
  for (; l && !v->stop; l = l->tile) {
    visit_iters(v, l->shard, l->nshard);
    visit_iters(v, l->replica, l->nreplica);
    visit_iters(v, l->offset, l->noffset);
  }
}

void tx_visit_buffer_fields(tx_visitor *v, const tx_buffer *b) {
  if (!b) return;
  tx_visit_expr(v, b->data);
  visit_exprs(v, b->shape, b->ndim);
  visit_exprs(v, b->strides, b->nstrides);
  if (!v->stop) tx_visit_expr(v, b->elem_offset);
  if (!v->stop) tx_visit_expr(v, b->allocated_addr);
  if (!v->stop) tx_visit_layout(v, b->layout);
  if (!v->stop) tx_visit_expr(v, b->origin);
}

static void visit_buffer_def(tx_visitor *v, const tx_buffer *b) {
  if (!b || v->stop) return;
  int walk = v->on_buffer ? v->on_buffer(v, b) : 1;
  if (walk && v->visit_buffer_defs && !v->stop) tx_visit_buffer_fields(v, b);
}

void tx_visit_expr(tx_visitor *v, const tx_expr *e) {
  /* Expressions hold no statements or buffer definitions: a walk without
   * expression callbacks would see nothing below here. */
  if (!e || v->stop || (!v->pre_expr && !v->post_expr)) return;
  if (v->pre_expr && !v->pre_expr(v, e)) return;
  if (e->kind == EXPR_LET) tx_visit_expr(v, e->u.binder);
  visit_exprs(v, e->ops, e->nops);
  if (e->kind == EXPR_LAYOUT && !v->stop) tx_visit_layout(v, e->u.layout);
  if (v->post_expr && !v->stop) v->post_expr(v, e);
}

void tx_visit_stmt(tx_visitor *v, const tx_stmt *s) {
  if (!s || v->stop) return;
  if (v->pre_stmt && !v->pre_stmt(v, s)) return;
  if (tx_stmt_defines_buffer((tx_stmt_kind)s->kind)) visit_buffer_def(v, s->buffer);
  visit_exprs(v, s->exprs, s->nexprs);
  visit_exprs(v, s->vars, s->nvars);
  for (uint32_t i = 0; i < s->nstmts && !v->stop; i++)
    tx_visit_stmt(v, s->stmts[i]);
  if (v->post_stmt && !v->stop) v->post_stmt(v, s);
}

void tx_visit_func(tx_visitor *v, const tx_func *f) {
  if (!f) return;
  visit_exprs(v, f->params, f->nparams);
  visit_exprs(v, f->symbolic, f->nsymbolic);
  for (uint32_t i = 0; f->param_bufs && i < f->nparams; i++)
    visit_buffer_def(v, f->param_bufs[i]);
  visit_exprs(v, f->attr_values, f->nattrs);
  tx_visit_stmt(v, f->body);
}

void tx_visit_module(tx_visitor *v, const tx_module *m) {
  if (!m) return;
  visit_exprs(v, m->attr_values, m->nattrs);
  for (uint32_t i = 0; i < m->nfuncs && !v->stop; i++)
    tx_visit_func(v, m->funcs[i]);
}

/* ---- Mutator ------------------------------------------------------------- */

/* Copy n pointers of `size`-byte items into the arena, or NULL (m->failed). */
static void *copy_or_fail(tx_mutator *m, const void *src, size_t n, size_t size) {
  void *p = tx_arena_dup(m->ir->arena, src, n, size);
  if (!p) m->failed = 1;
  return p;
}

/* Mutate n operands. Returns `ops` itself when none changed (the common case
 * allocates nothing), else a fresh array; `ops` again on out-of-memory. */
static const tx_expr *const *mutate_exprs(tx_mutator *m, const tx_expr *const *ops, uint32_t n) {
  const tx_expr **copy = NULL;
  for (uint32_t i = 0; i < n && !m->failed; i++) {
    const tx_expr *r = tx_mutate_expr(m, ops[i]);
    if (r != ops[i] && !copy) {
      copy = copy_or_fail(m, ops, n, sizeof *ops);
      if (!copy) return ops;
    }
    if (copy) copy[i] = r;
  }
  return copy && !m->failed ? copy : ops;
}

static const tx_layout_iter *mutate_iters(tx_mutator *m, const tx_layout_iter *it, uint32_t n) {
  tx_layout_iter *copy = NULL;
  for (uint32_t i = 0; it && i < n && !m->failed; i++) {
    tx_layout_iter r = it[i];
    r.extent = tx_mutate_expr(m, it[i].extent);
    r.stride = tx_mutate_expr(m, it[i].stride);
    if ((r.extent != it[i].extent || r.stride != it[i].stride) && !copy) {
      copy = copy_or_fail(m, it, n, sizeof *it);
      if (!copy) return it;
    }
    if (copy) copy[i] = r;
  }
  return copy && !m->failed ? copy : it;
}

static const tx_layout *mutate_layout(tx_mutator *m, const tx_layout *l) {
  if (!l) return NULL;
  tx_layout n = *l;
  n.shard = mutate_iters(m, l->shard, l->nshard);
  n.replica = mutate_iters(m, l->replica, l->nreplica);
  n.offset = mutate_iters(m, l->offset, l->noffset);
  n.tile = mutate_layout(m, l->tile);
  if (m->failed || (n.shard == l->shard && n.replica == l->replica && n.offset == l->offset &&
                    n.tile == l->tile))
    return l;
  tx_layout *copy = copy_or_fail(m, &n, 1, sizeof n);
  return copy ? copy : l;
}

const tx_expr *tx_mutate_expr(tx_mutator *m, const tx_expr *e) {
  if (!e || m->failed) return e;
  if (m->expr) {
    const tx_expr *r = m->expr(m, e);
    if (r) return m->failed ? e : r;
  }
  return tx_mutate_expr_children(m, e);
}

const tx_expr *tx_mutate_expr_children(tx_mutator *m, const tx_expr *e) {
  if (!e || m->failed) return e;
  const tx_expr *const *ops = mutate_exprs(m, e->ops, e->nops);
  const tx_layout *layout = e->kind == EXPR_LAYOUT ? mutate_layout(m, e->u.layout) : NULL;
  int layout_changed = e->kind == EXPR_LAYOUT && layout != e->u.layout;
  if (m->failed || (ops == e->ops && !layout_changed)) return e;
  tx_expr *copy = copy_or_fail(m, e, 1, sizeof *e);
  if (!copy) return e;
  copy->ops = ops;
  if (layout_changed) copy->u.layout = layout;
  return copy;
}

const tx_stmt *tx_mutate_stmt(tx_mutator *m, const tx_stmt *s) {
  if (!s || m->failed) return s;
  if (m->stmt) {
    const tx_stmt *r = m->stmt(m, s);
    if (r) return m->failed ? s : r;
  }
  return tx_mutate_stmt_children(m, s);
}

static const tx_stmt *const *mutate_stmts(tx_mutator *m, const tx_stmt *const *ss, uint32_t n) {
  const tx_stmt **copy = NULL;
  for (uint32_t i = 0; i < n && !m->failed; i++) {
    const tx_stmt *r = tx_mutate_stmt(m, ss[i]);
    if (r != ss[i] && !copy) {
      copy = copy_or_fail(m, ss, n, sizeof *ss);
      if (!copy) return ss;
    }
    if (copy) copy[i] = r;
  }
  return copy && !m->failed ? copy : ss;
}

const tx_stmt *tx_mutate_stmt_children(tx_mutator *m, const tx_stmt *s) {
  if (!s || m->failed) return s;
  const tx_expr *const *exprs = mutate_exprs(m, s->exprs, s->nexprs);
  const tx_stmt *const *stmts = mutate_stmts(m, s->stmts, s->nstmts);
  if (m->failed || (exprs == s->exprs && stmts == s->stmts)) return s;
  tx_stmt *copy = copy_or_fail(m, s, 1, sizeof *s);
  if (!copy) return s;
  copy->exprs = exprs;
  copy->stmts = stmts;
  return copy;
}

const tx_func *tx_mutate_func(tx_mutator *m, const tx_func *f) {
  if (!f || m->failed) return f;
  const tx_expr *const *attrs = mutate_exprs(m, f->attr_values, f->nattrs);
  const tx_stmt *body = tx_mutate_stmt(m, f->body);
  if (m->failed || (attrs == f->attr_values && body == f->body)) return f;
  tx_func *copy = copy_or_fail(m, f, 1, sizeof *f);
  if (!copy) return f;
  copy->attr_values = attrs;
  copy->body = body;
  return copy;
}
