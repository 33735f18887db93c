/*
 * tile_reduce.c - the CUDA variants of the reductions sum, max and min
 * (`T.tile.sum(dst, src, axes=-1, accum=False)`), as TVM's CUDA backend
 * defines them (docs/tirx/tile_primitives/reduction): src is reduced over
 * `axes` (its dimensions, negative from the end); dst holds the others, in
 * order (dimensions of extent 1 aside). Each output starts at the op's
 * identity (0, -inf, +inf; the old dst value with accum=True) and takes
 * dst = op(dst, src) for every reduced element, in dst's dtype.
 *  - `local` (10): registers at thread scope, sequential per thread;
 *  - `shared` (10): shared memory; at thread scope sequential, at warp,
 *    warpgroup and CTA scope the outputs are shared among the scope's
 *    threads (output f * threads + t by thread t), each reduced
 *    sequentially by its thread.
 *  - `local` at warp, warpgroup and CTA scope: registers laid out over the
 *    group's threads (target/tile.c tx_tile_owners_of) with the reduced
 *    dimensions on memory: each thread reduces the outputs it holds.
 * Not offered yet: reduced dimensions laid out over lanes (TVM's shuffle
 * tree), replicated layouts, TVM's shuffle-xor tree for shared memory, the
 * sm_100 packed forms.
 * Must not: reach into passes/ (IR is built with ir/ and target/tile.c).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "target/cuda/tile_cuda.h"
#include "target/tile_region.h"

/* A reduction call read: its operands, which src dimensions it reduces. */
typedef struct reduction {
  tx_tile_region dst, src;
  int reduced[TX_TILE_MAX_DIMS]; /* per src dimension */
  int accum;
  tx_expr_kind kind; /* EXPR_ADD, EXPR_MAX, EXPR_MIN */
} reduction;

static const char *read_axes(const tx_expr *axes, reduction *r) {
  const tx_expr *const *items = axes && axes->kind == EXPR_TUPLE ? axes->ops : &axes;
  uint32_t n = axes && axes->kind == EXPR_TUPLE ? axes->nops : 1;
  int64_t nd = r->src.ndim;
  if (!axes) { /* the default: the last dimension */
    r->reduced[nd - 1] = 1;
    return NULL;
  }
  for (uint32_t i = 0; i < n; i++) {
    int64_t a;
    if (!tx_expr_int_literal(items[i], &a)) return "axes= is not a list of integer literals";
    if (a < 0) a += nd;
    if (a < 0 || a >= nd) return "an axis is out of the source's dimensions";
    r->reduced[a] = 1;
  }
  return NULL;
}

/* Positional (dst, src, axes, accum) or keywords; NULL or why not. */
static const char *read_reduction(const tx_tile_call *c, reduction *r) {
  const tx_stmt *s = c->stmt;
  uint32_t n = tx_tile_npos(s);
  memset(r, 0, sizeof *r);
  if (n < 2 || n > 4) return "a reduction takes (dst, src[, axes[, accum]])";
  const char *why = tx_tile_region_of(s->exprs[0], c->ir, &r->dst);
  if (!why) why = tx_tile_region_of(s->exprs[1], c->ir, &r->src);
  if (why) return why;
  if (!r->dst.buffer || !r->src.buffer) return "dst and src of a reduction are buffer regions";
  for (int i = 0; i < 2; i++) { /* registers of a wider scope: owned_ok */
    const tx_tile_region *x = i ? &r->src : &r->dst;
    if (!tx_tile_memory_layout(x->buffer) && (c->scope == TX_SCOPE_THREAD || !tx_tile_in_local(x)))
      return "an operand is laid out over thread axes: not lowered yet";
  }
  if (!tx_dtype_eq(r->dst.dtype, r->src.dtype)) return "dst and src dtypes differ";
  const tx_expr *accum = n > 3 ? s->exprs[3] : tx_tile_kwarg(s, "accum");
  int64_t a = 0;
  if (accum && !tx_expr_int_literal(accum, &a)) return "accum= is not a constant";
  r->accum = a != 0;
  if ((why = read_axes(n > 2 ? s->exprs[2] : tx_tile_kwarg(s, "axes"), r))) return why;
  r->kind = strcmp(c->op, "sum") == 0 ? EXPR_ADD : strcmp(c->op, "max") == 0 ? EXPR_MAX : EXPR_MIN;
  /* dst's logical dimensions are src's unreduced ones */
  uint32_t k = 0;
  for (uint32_t i = 0; i < r->src.nlogical; i++) {
    uint32_t d = r->src.dims[i];
    if (r->reduced[d]) continue;
    if (k >= r->dst.nlogical || r->dst.extent[r->dst.dims[k]] != r->src.extent[d])
      return "dst's extents are not src's unreduced ones";
    k++;
  }
  return k == r->dst.nlogical ? NULL : "dst's extents are not src's unreduced ones";
}

/* Registers at a wider scope: src and dst laid out over the group's
 * threads, the reduced dimensions on memory only (each thread reduces what
 * it holds; TVM's shuffles across lanes are not written yet), dst held by
 * the threads that hold src's unreduced dimensions. NULL or why not. */
static const char *owned_ok(const tx_tile_call *c, const reduction *r, tx_tile_owners *od) {
  tx_tile_owners os;
  const char *why = tx_tile_owners_of(c, &r->dst, od);
  if (!why) why = tx_tile_owners_of(c, &r->src, &os);
  if (why) return why;
  tx_tile_region kept = r->src;
  kept.nlogical = 0;
  for (uint32_t i = 0; i < r->src.nlogical; i++) {
    uint32_t d = r->src.dims[i];
    if (!r->reduced[d])
      kept.dims[kept.nlogical++] = d;
    else if (tx_tile_dim_on_threads(&os, d))
      return "a reduced dimension is laid out over threads (a shuffle reduction): not lowered yet";
  }
  return tx_tile_same_owners(&r->dst, od, &kept, &os)
             ? NULL
             : "dst is not held by the threads that hold src's unreduced elements";
}

static const char *scoped(const tx_tile_call *c, int shared) {
  reduction r;
  const char *why = tx_tile_group_ok(c);
  if (!why) why = read_reduction(c, &r);
  if (why) return why;
  int ok = shared ? tx_tile_in_shared(&r.dst) && tx_tile_in_shared(&r.src)
                  : tx_tile_in_local(&r.dst) && tx_tile_in_local(&r.src);
  if (!ok) return shared ? "an operand is not in shared memory" : "an operand is not in registers";
  tx_tile_owners od;
  return !shared && c->scope != TX_SCOPE_THREAD ? owned_ok(c, &r, &od) : NULL;
}

const char *tx_cuda_reject_reduce_local(const tx_tile_call *c) {
  return scoped(c, 0);
}

const char *tx_cuda_reject_reduce_shared(const tx_tile_call *c) {
  return scoped(c, 1);
}

/* ---- the expansion ------------------------------------------------------------------ */

static const tx_expr *identity(tx_ir *ir, tx_expr_kind k, tx_dtype t, tirx_span span) {
  if (k == EXPR_ADD)
    return tx_dtype_is_float(t) ? tx_float(ir, t, 0.0, span) : tx_int(ir, t, 0, span);
  int lowest = k == EXPR_MAX;
  if (tx_dtype_is_float(t)) return tx_float(ir, t, lowest ? -INFINITY : INFINITY, span);
  if (t.code == DT_UINT)
    return tx_int(ir, t, lowest ? 0 : (int64_t)(UINT64_MAX >> (64 - t.bits)), span);
  int64_t max = (int64_t)(UINT64_MAX >> (65 - t.bits));
  return tx_int(ir, t, lowest ? -max - 1 : max, span);
}

static const tx_stmt *seq2(tx_ir *ir, const tx_stmt *a, const tx_stmt *b, tirx_span span) {
  if (!a || !b) return a ? NULL : b;
  const tx_stmt *items[] = {a, b};
  return tx_stmt_make(ir, &(tx_stmt){.kind = STMT_SEQ, .stmts = items, .nstmts = 2, .span = span});
}

/* For one output at dst position sv: the initialisation (unless accum) and
 * the loops over the reduced elements. */
static const tx_stmt *one_output(tx_tile_call *c, const reduction *r, const tx_expr *const *sv) {
  tx_ir *ir = c->ir;
  tirx_span sp = c->stmt->span;
  const tx_expr *rv[TX_TILE_MAX_DIMS], *lv[TX_TILE_MAX_DIMS];
  int64_t rext[TX_TILE_MAX_DIMS];
  uint32_t nr = 0, ns = 0;
  for (uint32_t i = 0; i < r->src.nlogical; i++)
    if (r->reduced[r->src.dims[i]]) rext[nr++] = r->src.extent[r->src.dims[i]];
  if (!tx_tile_loop_vars(c, nr, rv)) return NULL;
  for (uint32_t i = 0, k = 0; i < r->src.nlogical; i++)
    lv[i] = r->reduced[r->src.dims[i]] ? rv[k++] : sv[ns++];
  const tx_expr *acc = tx_tile_element(ir, &r->dst, sv, sp);
  const tx_expr *x = tx_tile_element(ir, &r->src, lv, sp);
  const tx_expr *ops[] = {acc, x};
  const tx_expr *val = acc && x ? tx_expr_new(ir, r->kind, r->dst.dtype, ops, 2, sp) : NULL;
  const tx_stmt *step = tx_tile_store(ir, &r->dst, sv, val, sp);
  if (step && nr) step = tx_tile_loops(ir, rv, rext, nr, step, FOR_SERIAL, sp);
  if (r->accum) return step;
  const tx_stmt *init = tx_tile_store(ir, &r->dst, sv, identity(ir, r->kind, r->dst.dtype, sp), sp);
  return init && step ? seq2(ir, init, step, sp) : NULL;
}

/* Thread scope: loops over every output. */
static const tx_stmt *every_output(tx_tile_call *c, const reduction *r) {
  const tx_expr *sv[TX_TILE_MAX_DIMS];
  int64_t ext[TX_TILE_MAX_DIMS];
  uint32_t n = r->dst.nlogical;
  for (uint32_t k = 0; k < n; k++)
    ext[k] = r->dst.extent[r->dst.dims[k]];
  if (!tx_tile_loop_vars(c, n, sv)) return NULL;
  const tx_stmt *body = one_output(c, r, sv);
  return body && n ? tx_tile_loops(c->ir, sv, ext, n, body, FOR_SERIAL, c->stmt->span) : body;
}

/* A wider scope: output f * threads + t is thread t's, in rounds f; the
 * last round guarded when the outputs do not divide among the threads. */
static const tx_stmt *shared_outputs(tx_tile_call *c, const reduction *r) {
  tx_ir *ir = c->ir;
  tirx_span sp = c->stmt->span;
  int64_t n = tx_tile_elements(&r->dst), p = c->nthreads, rounds = (n + p - 1) / p;
  int64_t ext[TX_TILE_MAX_DIMS];
  for (uint32_t k = 0; k < r->dst.nlogical; k++)
    ext[k] = r->dst.extent[r->dst.dims[k]];
  const tx_expr *f, *sv[TX_TILE_MAX_DIMS];
  if (!tx_tile_loop_vars(c, 1, &f)) return NULL;
  const tx_expr *q = rounds > 1
                         ? tx_tile_arith(ir, EXPR_ADD, tx_tile_arith_i(ir, EXPR_MUL, f, p, sp),
                                         c->thread_index, sp)
                         : c->thread_index;
  if (!q || !tx_tile_unflatten(ir, ext, r->dst.nlogical, q, 1, NULL, sp, sv)) return NULL;
  const tx_stmt *body = one_output(c, r, sv);
  if (body && n % p) body = tx_tile_guard(ir, EXPR_LT, q, n, body, sp);
  return body && rounds > 1 ? tx_tile_loops(ir, &f, &rounds, 1, body, FOR_SERIAL, sp) : body;
}

/* Registers at a wider scope: each thread over the outputs it holds. */
static const tx_stmt *owned_outputs(tx_tile_call *c, const reduction *r, const char **why) {
  tx_tile_owners od;
  if ((*why = owned_ok(c, r, &od))) return NULL;
  const tx_expr *vars[TX_TILE_MAX_SHARDS + TX_TILE_MAX_DIMS], *sv[TX_TILE_MAX_DIMS];
  int64_t ext[TX_TILE_MAX_SHARDS + TX_TILE_MAX_DIMS];
  uint32_t nloops;
  if (!tx_tile_owned(c, &r->dst, &od, vars, ext, &nloops, sv)) return NULL;
  const tx_stmt *body = one_output(c, r, sv);
  if (body && nloops)
    body = tx_tile_loops(c->ir, vars, ext, nloops, body, FOR_SERIAL, c->stmt->span);
  return body;
}

const tx_stmt *tx_cuda_expand_reduce(tx_tile_call *c, const char **why) {
  reduction r;
  if ((*why = read_reduction(c, &r))) return NULL;
  const tx_stmt *s = c->scope == TX_SCOPE_THREAD ? every_output(c, &r)
                     : tx_tile_in_local(&r.dst)  ? owned_outputs(c, &r, why)
                                                 : shared_outputs(c, &r);
  if (*why) return NULL;
  if (!s) c->oom = 1;
  return s;
}
