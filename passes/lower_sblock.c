/*
 * lower_sblock.c - the lower-sblock pass: S-TIR blocks (`with T.sblock(..)`
 * in an @T.prim_func(s_tir=True) function, and the implicit root block)
 * become the plain statements they stand for, as TVM's s_tir pipeline
 * (LowerInitBlock, ConvertBlocksToOpaque, LowerOpaqueBlock) makes them:
 *  - each block iterator (`vi = T.axis.spatial(16, i)`, `T.axis.remap`) is
 *    replaced by its binding everywhere in the block;
 *  - `with T.init():` runs when every reduction iterator is at the start of
 *    its domain (a `T.axis.remap` iterator's domain is its loop's);
 *  - `T.where(c)` guards the block's body (the init included);
 *  - `T.sblock_alloc_buffer` becomes `T.alloc_buffer` at the block's top
 *    (every use names the new buffer);
 *  - `T.reads`, `T.writes`, `T.sblock_attr` and the block name go.
 * Inner blocks are lowered before the block that holds them, so a binding
 * that names an outer iterator is substituted again on the way out.
 *
 * Requires: the frontend's IR (the first pass). Guarantees: no STMT_BLOCK,
 * STMT_BLOCK_AXIS, STMT_BLOCK_SIG or STMT_BLOCK_INIT remains; a function
 * without blocks is returned unchanged. Refused with a located error: a
 * `T.match_buffer` of a region inside a block (TVM binds it to the region's
 * buffer; not implemented), an iterator without a binding, and a
 * `T.axis.remap` of a variable that is not an enclosing loop's.
 * Must not: know any target (blocks are target-independent).
 */
#include <string.h>

#include "ir/ptrmap.h"
#include "passes/lower_common.h"
#include "passes/pass.h"

static const char PASS[] = "lower-sblock";

/* An enclosing loop: its variable and start, for T.axis.remap domains. */
typedef struct loop_scope {
  const tx_expr *var, *min;
} loop_scope;

typedef struct sb_state {
  tx_pass_ctx *pc;
  tx_ir *ir;
  loop_scope *loops;
  uint32_t nloops, caploops;
  int oom, errors;
} sb_state;

/* What one block's header says, gathered before the block is rebuilt. */
typedef struct block_parts {
  tx_ptrmap subst;          /* iterator variable -> its binding */
  tx_ptrmap bufs;           /* block buffer -> the allocated buffer */
  const tx_expr *init_cond; /* every reduction iterator at its domain start (NULL: always) */
  const tx_expr *where;     /* T.where's condition, or NULL */
  const tx_stmt *init;      /* the T.init() body, or NULL */
  const tx_stmt **allocs;
  uint32_t nallocs;
} block_parts;

static void fail(sb_state *st, tirx_span span, const char *msg) {
  tx_error(st->pc->diags, span, "%s", msg);
  st->errors++;
}

/* ---- substitution --------------------------------------------------------------- */

static int names_buffer(tx_expr_kind k) {
  return k == EXPR_LOAD || k == EXPR_BUFFER || k == EXPR_REGION;
}

/* Iterators become their bindings; a use of a block buffer names the
 * allocated one. */
static const tx_expr *subst_expr(tx_mutator *m, const tx_expr *e) {
  const block_parts *bp = m->user;
  if (e->kind == EXPR_VAR) return tx_ptrmap_get(&bp->subst, e);
  const tx_buffer *nb = names_buffer(e->kind) ? tx_ptrmap_get(&bp->bufs, e->u.buffer) : NULL;
  if (!nb) return NULL;
  const tx_expr *c = tx_mutate_expr_children(m, e);
  tx_expr f = *c;
  f.u.buffer = nb;
  return tx_expr_make(m->ir, &f);
}

static const tx_stmt *subst_stmt(tx_mutator *m, const tx_stmt *s) {
  const block_parts *bp = m->user;
  const tx_buffer *nb =
      s->kind == STMT_STORE && s->buffer ? tx_ptrmap_get(&bp->bufs, s->buffer) : NULL;
  if (!nb) return NULL;
  const tx_stmt *c = tx_mutate_stmt_children(m, s);
  tx_stmt f = *c;
  f.buffer = nb;
  return tx_stmt_make(m->ir, &f);
}

/* s with the block's iterators and buffers replaced. */
static const tx_stmt *substitute(sb_state *st, const tx_stmt *s, const block_parts *bp) {
  if ((!bp->subst.len && !bp->bufs.len) || !s) return s;
  tx_mutator m = {.ir = st->ir, .user = (void *)bp, .expr = subst_expr, .stmt = subst_stmt};
  const tx_stmt *r = tx_mutate_stmt(&m, s);
  if (m.failed || !r) st->oom = 1;
  return r;
}

static const tx_expr *substitute_expr(sb_state *st, const tx_expr *e, const block_parts *bp) {
  if (!bp->subst.len || !e) return e;
  tx_mutator m = {.ir = st->ir, .user = (void *)bp, .expr = subst_expr};
  const tx_expr *r = tx_mutate_expr(&m, e);
  if (m.failed || !r) st->oom = 1;
  return r;
}

/* X = T.sblock_alloc_buffer(...) as X = T.alloc_buffer(...), TVM's
 * Allocate of a block buffer; the uses follow through bp->bufs. */
static const tx_stmt *plain_alloc(sb_state *st, block_parts *bp, const tx_stmt *s) {
  if (!s->buffer || s->buffer->form != BUF_SBLOCK_ALLOC) return s;
  tx_buffer fb = *s->buffer;
  fb.form = BUF_ALLOC;
  const tx_buffer *nb = tx_buffer_make(st->ir, &fb);
  tx_stmt fs = *s;
  fs.buffer = nb;
  const tx_stmt *r = nb ? tx_stmt_make(st->ir, &fs) : NULL;
  if (!r || !tx_ptrmap_put(&bp->bufs, s->buffer, (void *)nb)) {
    st->oom = 1;
    return s;
  }
  return r;
}

/* ---- the header ------------------------------------------------------------------- */

/* The start of an axis domain: `16` starts at 0, `(a, b)` at a. */
static const tx_expr *domain_start(sb_state *st, const tx_expr *dom, tx_dtype t) {
  if (dom && dom->kind == EXPR_TUPLE && dom->nops == 2) return tx_lc_cast(st->ir, t, dom->ops[0]);
  return tx_lc_int(st->ir, t, 0);
}

/* The start of the enclosing loop over v, or NULL. */
static const tx_expr *loop_start(const sb_state *st, const tx_expr *v) {
  for (uint32_t i = st->nloops; i-- > 0;)
    if (st->loops[i].var == v) return st->loops[i].min;
  return NULL;
}

/* `iter == start` joined onto the init condition. */
static void add_reduction(sb_state *st, block_parts *bp, const tx_expr *iter,
                          const tx_expr *start) {
  const tx_expr *eq = tx_lc_bin(st->ir, EXPR_EQ, iter, tx_lc_cast(st->ir, iter->dtype, start));
  bp->init_cond = bp->init_cond ? tx_lc_bin(st->ir, EXPR_AND, bp->init_cond, eq) : eq;
  if (!eq || !bp->init_cond) st->oom = 1;
}

static void bind_iter(sb_state *st, block_parts *bp, const tx_expr *iter, const tx_expr *value) {
  if (!tx_ptrmap_put(&bp->subst, iter, (void *)tx_lc_cast(st->ir, iter->dtype, value))) st->oom = 1;
}

/* vi, vj, vk = T.axis.remap("SSR", [i, j, k]) */
static void remap_axis(sb_state *st, block_parts *bp, const tx_stmt *s) {
  const tx_expr *kinds = s->nexprs == 2 ? s->exprs[0] : NULL;
  const tx_expr *list = s->nexprs == 2 ? s->exprs[1] : NULL;
  if (!kinds || kinds->kind != EXPR_STRING || !list || list->nops != s->nvars ||
      kinds->u.str.len != s->nvars) {
    fail(st, s->span, "T.axis.remap takes one kind letter and one loop variable per iterator");
    return;
  }
  for (uint32_t i = 0; i < s->nvars; i++) {
    const tx_expr *loop_var = list->ops[i];
    bind_iter(st, bp, s->vars[i], loop_var);
    if (kinds->u.str.data[i] != 'R') continue;
    const tx_expr *start = loop_start(st, loop_var);
    if (!start) {
      fail(st, s->span,
           "T.axis.remap of a reduction iterator needs the variable of an enclosing loop "
           "(its domain is the loop's)");
      return;
    }
    add_reduction(st, bp, s->vars[i], start);
  }
}

/* vi = T.axis.spatial(dom, binding) (reduce, scan, opaque alike) */
static void one_axis(sb_state *st, block_parts *bp, const tx_stmt *s) {
  if (s->nvars != 1 || s->nexprs != 2) {
    fail(st, s->span,
         "a block iterator without a binding cannot be lowered: write "
         "T.axis.spatial(extent, value)");
    return;
  }
  bind_iter(st, bp, s->vars[0], s->exprs[1]);
  if (strcmp(s->name, "reduce") == 0)
    add_reduction(st, bp, s->vars[0], domain_start(st, s->exprs[0], s->vars[0]->dtype));
}

static void header_item(sb_state *st, block_parts *bp, const tx_stmt *s) {
  switch ((tx_stmt_kind)s->kind) {
  case STMT_BLOCK_AXIS:
    if (strcmp(s->name, "remap") == 0)
      remap_axis(st, bp, s);
    else
      one_axis(st, bp, s);
    return;
  case STMT_BLOCK_SIG:
    if (strcmp(s->name, "where") == 0) bp->where = s->nexprs ? s->exprs[0] : NULL;
    return; /* reads, writes, sblock_attr: descriptions only */
  case STMT_BLOCK_INIT:
    bp->init = s->nstmts ? s->stmts[0] : NULL;
    return;
  case STMT_ALLOC:
    bp->allocs[bp->nallocs++] = plain_alloc(st, bp, s);
    return;
  case STMT_DECL:
    fail(st, s->span,
         "T.match_buffer of a region inside a block is parsed and printed but not lowered by "
         "tirx-c");
    return;
  case STMT_STORE:
  case STMT_BIND:
  case STMT_ASSIGN:
  case STMT_ATTR:
  case STMT_ASSERT:
  case STMT_SEQ:
  case STMT_EVAL:
  case STMT_IF:
  case STMT_FOR:
  case STMT_WHILE:
  case STMT_BREAK:
  case STMT_CONTINUE:
  case STMT_RETURN:
  case STMT_SCOPE_ID:
  case STMT_DEVICE_ENTRY:
  case STMT_WITH:
  case STMT_TILE_OP:
  case STMT_BLOCK:
  case TX_STMT_KIND_COUNT:
    break;
  }
  tx_internal_error(st->pc->diags, PASS, "a block header holds a statement of kind %d", s->kind);
  st->errors++;
}

/* ---- one block -------------------------------------------------------------------- */

static const tx_stmt *guarded(sb_state *st, const tx_expr *cond, const tx_stmt *body) {
  if (!cond) return body;
  const tx_expr *ops[] = {cond};
  const tx_stmt *then[] = {body};
  return tx_stmt_make(st->ir, &(tx_stmt){.kind = STMT_IF,
                                         .exprs = ops,
                                         .nexprs = 1,
                                         .stmts = then,
                                         .nstmts = 1,
                                         .span = body->span});
}

/* The block b (its inner blocks already lowered) as plain statements:
 * allocations, then [if where:] [if init_cond: init], body. */
static const tx_stmt *lower_block(sb_state *st, const tx_stmt *b) {
  if (!b->nstmts) return tx_lc_empty(st->ir);
  const tirx_allocator *a = tx_ir_alloc(st->ir);
  block_parts bp = {.subst = {.alloc = a}, .bufs = {.alloc = a}};
  bp.allocs = tx_mem_calloc(a, b->nstmts + 2, sizeof *bp.allocs);
  if (!bp.allocs) {
    st->oom = 1;
    return b;
  }
  for (uint32_t i = 0; i + 1 < b->nstmts && !st->errors; i++)
    header_item(st, &bp, b->stmts[i]);
  const tx_stmt *r = b;
  if (!st->errors && !st->oom) {
    const tx_stmt *body = b->stmts[b->nstmts - 1];
    if (bp.init) {
      const tx_stmt *both[] = {guarded(st, bp.init_cond, bp.init), body};
      body = both[0] ? tx_lc_seq(st->ir, both, 2, b->span) : NULL;
    }
    body = body ? substitute(st, guarded(st, substitute_expr(st, bp.where, &bp), body), &bp) : NULL;
    bp.allocs[bp.nallocs++] = body;
    r = body ? tx_lc_seq(st->ir, bp.allocs, bp.nallocs, b->span) : NULL;
    if (!r) {
      st->oom = 1;
      r = b;
    }
  }
  tx_ptrmap_free(&bp.subst);
  tx_ptrmap_free(&bp.bufs);
  tx_mem_free(a, bp.allocs);
  return r;
}

/* ---- the walk --------------------------------------------------------------------- */

static int push_loop(sb_state *st, const tx_stmt *loop) {
  if (st->nloops == st->caploops) {
    uint32_t cap = st->caploops ? st->caploops * 2 : 8;
    loop_scope *p = tx_mem_realloc(tx_ir_alloc(st->ir), st->loops, cap * sizeof *p);
    if (!p) return 0;
    st->loops = p;
    st->caploops = cap;
  }
  st->loops[st->nloops++] =
      (loop_scope){loop->nvars ? loop->vars[0] : NULL, loop->nexprs ? loop->exprs[0] : NULL};
  return 1;
}

static const tx_stmt *sb_stmt(tx_mutator *m, const tx_stmt *s) {
  sb_state *st = m->user;
  if (st->errors || st->oom) return s;
  if (s->kind == STMT_FOR) {
    if (!push_loop(st, s)) {
      st->oom = 1;
      return s;
    }
    const tx_stmt *r = tx_mutate_stmt_children(m, s);
    st->nloops--;
    return r;
  }
  if (s->kind != STMT_BLOCK) return NULL;
  const tx_stmt *inner = tx_mutate_stmt_children(m, s);
  return st->errors || st->oom ? s : lower_block(st, inner);
}

static int is_block(const tx_stmt *s) {
  return s->kind == STMT_BLOCK;
}

static const tx_func *lower_func(void *state, const tx_func *f) {
  sb_state *st = state;
  tx_mutator m = {.ir = st->ir, .user = st, .stmt = sb_stmt};
  const tx_func *r = tx_mutate_func(&m, f);
  if (m.failed) st->oom = 1;
  return st->oom || st->errors ? NULL : r;
}

tirx_status tx_pass_lower_sblock(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  *out = in;
  if (!tx_lc_any_stmt(in, is_block)) return TIRX_OK;
  sb_state st = {.pc = pc, .ir = pc->ir};
  tirx_status status = tx_lc_each_func(pc, in, lower_func, &st, out);
  tx_mem_free(tx_ir_alloc(pc->ir), st.loops);
  if (status == TIRX_OK) status = tx_lc_status(pc, st.oom, st.errors);
  if (status != TIRX_OK) *out = in;
  return status;
}
