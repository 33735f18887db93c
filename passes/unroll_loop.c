/*
 * unroll_loop.c - the unroll-loop pass: short `T.unroll` loops are copied
 * out once per iteration.
 *
 * Requires: a well-formed module (it runs after vectorize-loop, which may
 * leave T.unroll loops over vector chunks).
 * Guarantees, at -O1 and above (target->opt_level >= 1):
 *  - a FOR_UNROLL loop with literal begin and end (and a positive literal
 *    step, if any) of at most MAX_TRIP iterations, whose body has no
 *    break/continue and no buffer whose shape mentions the loop variable,
 *    and whose copies stay under MAX_STMTS statements, becomes the sequence
 *    of its body copies with the loop variable replaced by each value
 *    (integer arithmetic on the substituted literal folds shallowly:
 *    `x * 2 + 0` -> `x * 2`);
 *  - every variable, let binder and buffer the body defines is a fresh node
 *    in each copy after the first (named x_1, x_2, ... deterministically),
 *    so no node is bound twice; the first copy keeps the original nodes;
 *  - inner loops are unrolled first; every other loop is left as it was
 *    (codegen writes `#pragma unroll` for the remaining FOR_UNROLL).
 * At -O0 the module is returned unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "ir/fold.h"
#include "passes/lower_common.h"
#include "passes/pass.h"

enum { MAX_TRIP = 16, MAX_STMTS = 1024 };

/* What a body defines: variables and buffers, in first-definition order. */
typedef struct defs {
  const tx_expr **vars;
  uint32_t nvars, capvars;
  const tx_buffer **bufs;
  uint32_t nbufs, capbufs;
  uint32_t nstmts;
  int has_jump;        /* break/continue: cannot be copied out */
  const tx_expr *loop; /* the loop variable, to find it in buffer fields */
  int loop_in_buffer;
  int oom;
  const tirx_allocator *alloc;
} defs;

typedef struct un_state {
  tx_pass_ctx *pc;
  tx_ir *ir;
  tx_lc_names names;
  tirx_span loop_span; /* the loop being copied out, for errors without a span */
  int oom, errors;
} un_state;

static int grow(const tirx_allocator *a, void **items, uint32_t *cap, uint32_t len, size_t size) {
  if (len < *cap) return 1;
  uint32_t c = *cap ? *cap * 2 : 16;
  void *p = tx_mem_realloc(a, *items, c * size);
  if (!p) return 0;
  *items = p;
  *cap = c;
  return 1;
}

static void add_var(defs *d, const tx_expr *v) {
  for (uint32_t i = 0; i < d->nvars; i++)
    if (d->vars[i] == v) return;
  if (!grow(d->alloc, (void **)&d->vars, &d->capvars, d->nvars, sizeof *d->vars)) {
    d->oom = 1;
    return;
  }
  d->vars[d->nvars++] = v;
}

/* ---- what the body defines -------------------------------------------------------- */

static int defs_expr(tx_visitor *v, const tx_expr *e) {
  defs *d = v->user;
  if (e->kind == EXPR_LET && e->u.binder) add_var(d, e->u.binder);
  return 1;
}

static int defs_stmt(tx_visitor *v, const tx_stmt *s) {
  defs *d = v->user;
  d->nstmts++;
  if (s->kind == STMT_BREAK || s->kind == STMT_CONTINUE) d->has_jump = 1;
  if (tx_stmt_binds_vars((tx_stmt_kind)s->kind))
    for (uint32_t i = 0; i < s->nvars; i++)
      add_var(d, s->vars[i]);
  return 1;
}

static int find_loop_var(tx_visitor *v, const tx_expr *e) {
  defs *d = v->user;
  if (e == d->loop) d->loop_in_buffer = v->stop = 1;
  return 1;
}

static int defs_buffer(tx_visitor *v, const tx_buffer *b) {
  defs *d = v->user;
  if (!grow(d->alloc, (void **)&d->bufs, &d->capbufs, d->nbufs, sizeof *d->bufs)) {
    d->oom = 1;
    return 0;
  }
  d->bufs[d->nbufs++] = b;
  tx_visitor lv = {.user = d, .pre_expr = find_loop_var};
  tx_visit_buffer_fields(&lv, b);
  return 0;
}

/* ---- one copy of the body -------------------------------------------------------- */

typedef struct copier {
  un_state *st;
  const tx_expr **from; /* variables to replace ... */
  const tx_expr **to;   /* ... by these expressions */
  uint32_t n, cap;
  const tx_buffer **bfrom, **bto;
  uint32_t nb;
} copier;

static void map_var(copier *c, const tx_expr *from, const tx_expr *to) {
  const tirx_allocator *a = tx_ir_alloc(c->st->ir);
  uint32_t cap = c->cap;
  if (!grow(a, (void **)&c->from, &c->cap, c->n, sizeof *c->from)) {
    c->st->oom = 1;
    return;
  }
  if (c->cap != cap) {
    /* Not assigned before the check: a failed realloc keeps the old block. */
    const tx_expr **to_ = tx_mem_realloc(a, (void *)c->to, c->cap * sizeof *to_);
    if (!to_) {
      c->st->oom = 1;
      return;
    }
    c->to = to_;
  }
  c->from[c->n] = from;
  c->to[c->n++] = to;
}

static const tx_expr *lookup_var(const copier *c, const tx_expr *v) {
  for (uint32_t i = 0; i < c->n; i++)
    if (c->from[i] == v) return c->to[i];
  return NULL;
}

static const tx_buffer *lookup_buf(const copier *c, const tx_buffer *b) {
  for (uint32_t i = 0; i < c->nb; i++)
    if (c->bfrom[i] == b) return c->bto[i];
  return NULL;
}

static int is_int_arith(tx_expr_kind k) {
  return k == EXPR_ADD || k == EXPR_SUB || k == EXPR_MUL || k == EXPR_FLOORDIV ||
         k == EXPR_FLOORMOD;
}

static const tx_expr *copy_expr(tx_mutator *m, const tx_expr *e) {
  copier *c = m->user;
  if (e->kind == EXPR_VAR) return lookup_var(c, e);
  const tx_expr *r = tx_mutate_expr_children(m, e);
  if (m->failed) return e;
  const tx_buffer *nb = NULL;
  const tx_expr *binder = NULL;
  if ((e->kind == EXPR_LOAD || e->kind == EXPR_BUFFER || e->kind == EXPR_REGION) && e->u.buffer)
    nb = lookup_buf(c, e->u.buffer);
  if (e->kind == EXPR_LET && e->u.binder) binder = lookup_var(c, e->u.binder);
  if (nb || binder) {
    tx_expr fields = {.kind = r->kind,
                      .python_bool = r->python_bool,
                      .dtype = r->dtype,
                      .nops = r->nops,
                      .ops = r->ops,
                      .span = r->span,
                      .u = r->u};
    if (nb) fields.u.buffer = nb;
    if (binder) fields.u.binder = binder;
    const tx_expr *n = tx_expr_make(m->ir, &fields);
    return n ? n : (m->failed = 1, e);
  }
  /* A literal converted to a scalar type is that type's literal. */
  int64_t x;
  if (r != e && r->kind == EXPR_CAST && r->dtype.lanes == 1 && tx_expr_int_literal(r->ops[0], &x)) {
    const tx_expr *f = tx_dtype_is_int(r->dtype) ? tx_lc_int(m->ir, r->dtype, x)
                       : r->dtype.code == DT_FLOAT && r->dtype.bits >= 32
                           ? tx_float(m->ir, r->dtype, (double)x, r->span)
                           : r;
    if (!f) return m->failed = 1, e;
    return f;
  }
  /* A substituted literal can make an operation undefined (7 // i with
   * i = 0): the error simplify would give, had the literal been there. */
  if (r != e && tx_fold_check_operands(c->st->pc->diags, r, c->st->loop_span)) {
    c->st->errors++;
    return r;
  }
  /* Fold what the substituted literal makes foldable (x * 0, x + 0, 2 * 4). */
  if (r != e && r->dtype.lanes == 1 && tx_dtype_is_int(r->dtype) && r->nops == 2 &&
      is_int_arith((tx_expr_kind)r->kind)) {
    const tx_expr *f = tx_lc_bin(m->ir, (tx_expr_kind)r->kind, r->ops[0], r->ops[1]);
    if (!f) return m->failed = 1, e;
    return f;
  }
  return r;
}

static const tx_stmt *copy_stmt(tx_mutator *m, const tx_stmt *s) {
  copier *c = m->user;
  if (s->kind == STMT_SEQ) return tx_lc_mutate_seq(m, s);
  const tx_stmt *r = tx_mutate_stmt_children(m, s);
  if (m->failed) return s;
  const tx_buffer *nb = s->buffer ? lookup_buf(c, s->buffer) : NULL;
  int binds = tx_stmt_binds_vars((tx_stmt_kind)s->kind) || s->kind == STMT_ASSIGN;
  int var_changed = 0;
  for (uint32_t i = 0; binds && i < s->nvars; i++)
    var_changed |= lookup_var(c, s->vars[i]) != NULL;
  if (!nb && !var_changed) return r;
  const tx_expr **vs = NULL;
  if (var_changed) {
    vs = tx_mem_alloc(tx_ir_alloc(m->ir), s->nvars * sizeof *vs);
    if (!vs) return m->failed = 1, s;
    for (uint32_t i = 0; i < s->nvars; i++) {
      const tx_expr *to = lookup_var(c, s->vars[i]);
      vs[i] = to ? to : s->vars[i];
    }
  }
  const tx_stmt *n = tx_stmt_with(m->ir, r, NULL, NULL, vs, nb);
  tx_mem_free(tx_ir_alloc(m->ir), (void *)vs);
  return n ? n : (m->failed = 1, s);
}

/* A fresh variable like v (same dtype and form), named v_1, v_2, ... */
static const tx_expr *fresh_var(un_state *st, const tx_expr *v) {
  const char *nm = tx_lc_fresh_name(&st->names, st->ir, v->u.var.name ? v->u.var.name : "v");
  tx_var_info info = v->u.var;
  info.name = nm;
  const tx_expr *n = nm ? tx_var_make(st->ir, v->dtype, &info, v->span) : NULL;
  return n ? n : (st->oom = 1, v);
}

/* Does a buffer own its data variable (rather than view another buffer's
 * storage)? The convention of tx_cuda_buffer_owns_storage, which
 * split-host-device and codegen follow: the data variable carries the
 * buffer's name. */
static int owns_data(const tx_buffer *b) {
  const tx_var_info *v = &b->data->u.var;
  return b->data->kind == EXPR_VAR && v->form == VAR_BUFFER_DATA && v->name && b->name &&
         strcmp(v->name, b->name) == 0;
}

/* Copy k of the body (k == 0 keeps the original definitions). */
static const tx_stmt *body_copy(un_state *st, const tx_stmt *body, const tx_expr *var,
                                int64_t value, const defs *d, int k) {
  copier c = {.st = st};
  const tx_expr *lit = tx_lc_int(st->ir, var->dtype, value);
  if (!lit) return st->oom = 1, NULL;
  map_var(&c, var, lit);
  if (k > 0) {
    for (uint32_t i = 0; i < d->nvars; i++)
      map_var(&c, d->vars[i], fresh_var(st, d->vars[i]));
    c.bfrom = d->nbufs ? tx_mem_calloc(tx_ir_alloc(st->ir), d->nbufs, sizeof *c.bfrom) : NULL;
    c.bto = d->nbufs ? tx_mem_calloc(tx_ir_alloc(st->ir), d->nbufs, sizeof *c.bto) : NULL;
    if (d->nbufs && (!c.bfrom || !c.bto)) st->oom = 1;
    for (uint32_t i = 0; i < d->nbufs && !st->oom; i++) {
      const tx_buffer *b = d->bufs[i];
      tx_buffer fields = *b;
      fields.name = tx_lc_fresh_name(&st->names, st->ir, b->name ? b->name : "buf");
      const tx_expr *data = b->data ? lookup_var(&c, b->data) : NULL;
      if (!data && b->data && owns_data(b)) {
        /* named like its buffer, so that it still owns the storage */
        tx_var_info info = b->data->u.var;
        info.name = fields.name;
        data = fields.name ? tx_var_make(st->ir, b->data->dtype, &info, b->data->span) : NULL;
        if (!data) {
          st->oom = 1;
          break;
        }
        map_var(&c, b->data, data);
      }
      if (data) fields.data = data;
      const tx_buffer *nb = tx_buffer_make(st->ir, &fields);
      if (!nb) {
        st->oom = 1;
        break;
      }
      c.bfrom[c.nb] = b;
      c.bto[c.nb++] = nb;
    }
  }
  const tx_stmt *r = NULL;
  if (!st->oom) {
    tx_mutator m = {.ir = st->ir, .user = &c, .expr = copy_expr, .stmt = copy_stmt};
    r = tx_mutate_stmt(&m, body);
    if (m.failed) st->oom = 1;
  }
  tx_mem_free(tx_ir_alloc(st->ir), (void *)c.from);
  tx_mem_free(tx_ir_alloc(st->ir), (void *)c.to);
  tx_mem_free(tx_ir_alloc(st->ir), (void *)c.bfrom);
  tx_mem_free(tx_ir_alloc(st->ir), (void *)c.bto);
  return st->oom ? NULL : r;
}

/* ---- the pass ------------------------------------------------------------------ */

/* The iterations of a literal loop, or 0 when it is not one (*trip = count). */
static int literal_loop(const tx_stmt *s, int64_t *begin, int64_t *step, int64_t *trip) {
  uint32_t npos = s->kw.npos ? s->kw.npos : s->nexprs;
  if (s->nvars != 1 || s->nstmts != 1 || npos < 2 || npos > 3) return 0;
  int64_t b, e, st = 1;
  if (!tx_expr_int_literal(s->exprs[0], &b) || !tx_expr_int_literal(s->exprs[1], &e)) return 0;
  if (npos == 3 && (!tx_expr_int_literal(s->exprs[2], &st) || st <= 0)) return 0;
  *begin = b;
  *step = st;
  /* In uint64: e - b is exact there (e > b), and no signed overflow. */
  uint64_t span = e <= b ? 0 : (uint64_t)e - (uint64_t)b;
  uint64_t n = span / (uint64_t)st + (span % (uint64_t)st != 0);
  *trip = n > INT64_MAX ? INT64_MAX : (int64_t)n;
  return 1;
}

static const tx_stmt *unroll(tx_mutator *m, const tx_stmt *s) {
  un_state *st = m->user;
  int64_t begin, step, trip;
  if (!literal_loop(s, &begin, &step, &trip) || trip > MAX_TRIP) return s;
  defs d = {.loop = s->vars[0], .alloc = tx_ir_alloc(m->ir)};
  tx_visitor v = {
      .user = &d, .pre_expr = defs_expr, .pre_stmt = defs_stmt, .on_buffer = defs_buffer};
  tx_visit_stmt(&v, s->stmts[0]);
  const tx_stmt *r = s;
  if (d.oom) {
    m->failed = 1;
  } else if (!d.has_jump && !d.loop_in_buffer && (uint64_t)d.nstmts * (uint64_t)trip <= MAX_STMTS) {
    const tx_stmt **items =
        tx_mem_calloc(tx_ir_alloc(m->ir), trip ? (size_t)trip : 1, sizeof *items);
    if (!items) m->failed = 1;
    st->loop_span = s->span;
    for (int64_t k = 0; items && k < trip && !m->failed; k++) {
      /* begin + k * step < end fits, but k * step alone may not: uint64. */
      int64_t value = (int64_t)((uint64_t)begin + (uint64_t)k * (uint64_t)step);
      items[k] = body_copy(st, s->stmts[0], s->vars[0], value, &d, (int)k);
      if (!items[k]) m->failed = 1;
    }
    if (items && !m->failed) {
      const tx_expr *zero = tx_lc_int(st->ir, TX_INT32, 0);
      const tx_stmt *res = trip   ? tx_lc_seq(st->ir, items, (uint32_t)trip, s->span)
                           : zero ? tx_stmt_new(st->ir, STMT_EVAL, &zero, 1, NULL, 0, s->span)
                                  : NULL;
      if (!res)
        m->failed = 1;
      else
        r = res;
    }
    tx_mem_free(tx_ir_alloc(m->ir), (void *)items);
  }
  tx_mem_free(tx_ir_alloc(m->ir), (void *)d.vars);
  tx_mem_free(tx_ir_alloc(m->ir), (void *)d.bufs);
  return r;
}

static const tx_stmt *un_stmt(tx_mutator *m, const tx_stmt *s) {
  if (s->kind == STMT_SEQ) return tx_lc_mutate_seq(m, s);
  if (s->kind != STMT_FOR || s->flag != FOR_UNROLL) return NULL;
  /* inner loops first: their copies count in this loop's size */
  const tx_stmt *r = tx_mutate_stmt_children(m, s);
  if (m->failed) return s;
  return unroll(m, r);
}

static const tx_func *unroll_func(void *state, const tx_func *f) {
  un_state *st = state;
  tx_lc_names_collect(&st->names, st->pc, f);
  tx_mutator m = {.ir = st->pc->ir, .user = st, .stmt = un_stmt};
  const tx_func *r = tx_mutate_func(&m, f);
  if (m.failed || st->names.failed) st->oom = 1;
  if (st->oom) return NULL;
  tx_lc_names_keep(&st->names, st->pc, r);
  return r;
}

tirx_status tx_pass_unroll_loop(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  *out = in;
  if (!pc->target || pc->target->opt_level < 1) return TIRX_OK;
  un_state st = {.pc = pc, .ir = pc->ir};
  tirx_status status = tx_lc_each_func(pc, in, unroll_func, &st, out);
  if (status == TIRX_OK) status = st.oom ? TIRX_ERR_NOMEM : st.errors ? TIRX_ERR_INPUT : TIRX_OK;
  if (status != TIRX_OK) *out = in;
  tx_lc_names_free(&st.names);
  return status;
}
