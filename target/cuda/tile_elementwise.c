/*
 * tile_elementwise.c - the CUDA variants of copy and the element-wise tile
 * primitives, as TVM's CUDA backend lowers them
 * (python/tvm/backend/cuda/tile_primitive):
 *  - copy `vec_auto` (10): at thread scope (`T.tile.copy`: each thread its
 *    own regions) loops over the logical extents, the innermost split into
 *    a T.vectorized loop of the widest vector (<= 16 bytes) that divides it
 *    when both sides are contiguous there; at warp, warpgroup and CTA scope
 *    between global and shared memory, TVM's synthesized [outer, threads,
 *    vec] partition: round f, thread t copies the vec elements from
 *    (f * threads + t) * vec on. `fallback` (0): the scalar loops with
 *    TVM's warning, run by the scope's first thread;
 *  - element-wise `reg` (10) over local operands (thread scope) and `smem`
 *    (10) over shared ones (any scope up to the CTA, partitioned like the
 *    copy): fill, zero, cast, sqrt/exp/exp2/log2/reciprocal/silu, add/sub/
 *    mul/fdiv/maximum/minimum (a scalar or one-element operand is
 *    broadcast), fma.
 * A wider scope needs every thread of its group to run the call (the
 * dispatcher tracks that through enclosing conditions). Registers at a
 * wider scope are laid out over the group's threads (TVM's local views,
 * target/tile.c tx_tile_owners_of): each thread takes the elements it
 * holds, the other operands (global, shared, scalars) at the same logical
 * positions.
 * Must not: reach into passes/ (IR is built with ir/ and target/tile.c).
 */
#include <string.h>

#include "target/cuda/tile_cuda.h"
#include "target/tile_region.h"

enum { MAX_OPERANDS = 4 };

/* ---- the call's operands ---------------------------------------------------------- */

typedef struct operands {
  uint32_t n;
  tx_tile_region r[MAX_OPERANDS];
} operands;

/* The positional operands as regions; NULL or why not. */
static const char *read_operands(const tx_tile_call *c, operands *o) {
  o->n = tx_tile_npos(c->stmt);
  if (o->n > MAX_OPERANDS) return "more operands than the op takes";
  for (uint32_t i = 0; i < o->n; i++) {
    const char *why = tx_tile_region_of(c->stmt->exprs[i], c->ir, &o->r[i]);
    if (why) return why;
  }
  if (!o->n || !o->r[0].buffer) return "the destination is not a buffer region";
  for (uint32_t i = 0; i < o->n; i++) {
    /* registers laid out over the threads of a wider scope: owners_ok */
    if (o->r[i].buffer && !tx_tile_memory_layout(o->r[i].buffer) &&
        (c->scope == TX_SCOPE_THREAD || !tx_tile_in_local(&o->r[i])))
      return "an operand is laid out over thread axes: not lowered yet";
    if (!tx_tile_same_shape(&o->r[0], &o->r[i]))
      return "the operands' extents differ (dimensions of extent 1 aside)";
  }
  return NULL;
}

/* At a wider scope than the thread, the register operands are laid out
 * over the group's threads (tx_tile_owners_of), each thread holding the
 * same logical elements of every one; *lead gets the first such operand
 * (n when there is none). NULL, or why not. */
static const char *owners_ok(const tx_tile_call *c, const operands *o, uint32_t *lead,
                             tx_tile_owners *lo) {
  *lead = o->n;
  if (c->scope == TX_SCOPE_THREAD) return NULL;
  for (uint32_t i = 0; i < o->n; i++) {
    if (!o->r[i].buffer || !tx_tile_in_local(&o->r[i])) continue;
    tx_tile_owners w;
    const char *why = tx_tile_owners_of(c, &o->r[i], *lead == o->n ? lo : &w);
    if (why) return why;
    if (*lead == o->n)
      *lead = i;
    else if (!tx_tile_same_owners(&o->r[*lead], lo, &o->r[i], &w))
      return "the register operands are laid out over the threads differently";
  }
  return NULL;
}

static const char *thread_layout(const tx_tile_call *c) {
  operands o;
  uint32_t lead;
  tx_tile_owners lo;
  const char *why = read_operands(c, &o);
  return why ? why : owners_ok(c, &o, &lead, &lo);
}

/* ---- element values ------------------------------------------------------------------ */

static const tx_expr *as_type(tx_ir *ir, tx_dtype t, const tx_expr *e) {
  if (!e || (e->dtype.code == t.code && e->dtype.bits == t.bits)) return e;
  return tx_expr_new(ir, EXPR_CAST, t, &e, 1, e->span);
}

static const tx_expr *bin(tx_ir *ir, tx_expr_kind k, tx_dtype t, const tx_expr *a,
                          const tx_expr *b) {
  const tx_expr *ops[] = {as_type(ir, t, a), as_type(ir, t, b)};
  return ops[0] && ops[1] ? tx_expr_new(ir, k, t, ops, 2, a->span) : NULL;
}

static const tx_expr *math(tx_ir *ir, const char *fn, tx_dtype t, const tx_expr *x) {
  const tx_expr *args[] = {as_type(ir, t, x)};
  return args[0] ? tx_call(ir, fn, t, args, 1, x->span) : NULL;
}

static const tx_expr *float_lit(tx_ir *ir, tx_dtype t, double v, tirx_span span) {
  return tx_float(ir, t, v, span);
}

/* The binary ops: name -> IR kind. */
static const struct {
  const char *op;
  tx_expr_kind kind;
} BINARY[] = {{"add", EXPR_ADD},  {"sub", EXPR_SUB},     {"mul", EXPR_MUL},
              {"fdiv", EXPR_DIV}, {"maximum", EXPR_MAX}, {"minimum", EXPR_MIN}};

/* The unary ops with a math function. */
static const struct {
  const char *op, *fn;
} UNARY[] = {{"sqrt", "T.sqrt"}, {"exp", "T.exp"}, {"exp2", "T.exp2"}, {"log2", "T.log2"}};

static int binary_kind(const char *op, tx_expr_kind *k) {
  for (size_t i = 0; i < sizeof BINARY / sizeof *BINARY; i++)
    if (strcmp(op, BINARY[i].op) == 0) return *k = BINARY[i].kind, 1;
  return 0;
}

static const char *unary_fn(const char *op) {
  for (size_t i = 0; i < sizeof UNARY / sizeof *UNARY; i++)
    if (strcmp(op, UNARY[i].op) == 0) return UNARY[i].fn;
  return NULL;
}

static int is_unary(const char *op) {
  return unary_fn(op) || strcmp(op, "reciprocal") == 0 || strcmp(op, "silu") == 0;
}

/* How many positional operands op takes: [lo, hi]; 0 when not element-wise. */
static int operand_counts(const char *op, uint32_t *lo, uint32_t *hi) {
  tx_expr_kind k;
  if (binary_kind(op, &k)) return *lo = *hi = 3, 1;
  if (is_unary(op) || strcmp(op, "zero") == 0) return *lo = 1, *hi = 2, 1;
  if (strcmp(op, "fill") == 0 || strcmp(op, "cast") == 0) return *lo = *hi = 2, 1;
  if (strcmp(op, "fma") == 0) return *lo = *hi = 4, 1;
  return 0;
}

static const tx_expr *unary_value(tx_ir *ir, const char *op, tx_dtype t, const tx_expr *x) {
  const char *fn = unary_fn(op);
  if (fn) return math(ir, fn, t, x);
  const tx_expr *one = float_lit(ir, t, 1.0, x->span);
  if (strcmp(op, "reciprocal") == 0) return one ? bin(ir, EXPR_DIV, t, one, x) : NULL;
  /* silu: x / (1 + exp(-x)) */
  const tx_expr *zero = float_lit(ir, t, 0.0, x->span);
  const tx_expr *neg = zero ? bin(ir, EXPR_SUB, t, zero, x) : NULL;
  const tx_expr *den = neg && one ? bin(ir, EXPR_ADD, t, one, math(ir, "T.exp", t, neg)) : NULL;
  return den ? bin(ir, EXPR_DIV, t, x, den) : NULL;
}

/* dst's new element at lv from the operands' elements. */
static const tx_expr *element_value(tx_tile_call *c, const operands *o, const tx_expr *const *lv) {
  tx_ir *ir = c->ir;
  tx_dtype t = o->r[0].dtype;
  tirx_span sp = c->stmt->span;
  const tx_expr *x[MAX_OPERANDS] = {0};
  for (uint32_t i = 1; i < o->n; i++)
    if (!(x[i] = tx_tile_element(ir, &o->r[i], lv, sp))) return NULL;
  const char *op = c->op;
  tx_expr_kind k;
  if (binary_kind(op, &k)) return bin(ir, k, t, x[1], x[2]);
  if (strcmp(op, "fma") == 0) return bin(ir, EXPR_ADD, t, bin(ir, EXPR_MUL, t, x[1], x[2]), x[3]);
  if (strcmp(op, "fill") == 0 || strcmp(op, "cast") == 0) return as_type(ir, t, x[1]);
  if (strcmp(op, "zero") == 0)
    return tx_dtype_is_float(t) ? float_lit(ir, t, 0.0, sp) : tx_int(ir, t, 0, sp);
  const tx_expr *src = o->n > 1 ? x[1] : tx_tile_element(ir, &o->r[0], lv, sp);
  return src ? unary_value(ir, op, t, src) : NULL;
}

/* ---- predicates ------------------------------------------------------------------------ */

static const char *operand_scope(const tx_tile_call *c, int want_shared) {
  operands o;
  const char *why = read_operands(c, &o);
  if (why) return why;
  for (uint32_t i = 0; i < o.n; i++)
    if (o.r[i].buffer && (want_shared ? !tx_tile_in_shared(&o.r[i]) : !tx_tile_in_local(&o.r[i])))
      return want_shared ? "an operand is not in shared memory"
                         : "an operand is not in local memory (registers)";
  return NULL;
}

/* TVM's rules for the inputs of a binary op: not both constants, and a
 * constant or a broadcast (smaller) left input only where the op commutes
 * (add, mul, maximum: TVM swaps the inputs then). */
static const char *binary_operands_ok(const char *op, const operands *o) {
  tx_expr_kind k;
  if (!binary_kind(op, &k) || o->n != 3) return NULL;
  const tx_tile_region *a = &o->r[1], *b = &o->r[2];
  if (a->scalar && b->scalar) return "both inputs are constants";
  int commutes = k == EXPR_ADD || k == EXPR_MUL || k == EXPR_MAX;
  if (a->scalar && !commutes) return "a non-commutative op cannot have a constant left input";
  if (!a->scalar && !b->scalar && tx_tile_elements(a) < tx_tile_elements(b) && !commutes)
    return "a non-commutative op cannot broadcast its left input";
  return NULL;
}

static const char *elementwise_ok(const tx_tile_call *c) {
  const char *why = tx_tile_group_ok(c);
  if (why) return why;
  uint32_t lo, hi, n = tx_tile_npos(c->stmt);
  if (!operand_counts(c->op, &lo, &hi)) return "not an element-wise op";
  if (n < lo || n > hi) return "wrong number of operands";
  if (tx_tile_kwarg(c->stmt, "bias") || tx_tile_kwarg(c->stmt, "scale"))
    return "bias= and scale= are not supported yet";
  operands o;
  if ((why = read_operands(c, &o))) return why;
  if ((why = binary_operands_ok(c->op, &o))) return why;
  int needs_float = is_unary(c->op) || strcmp(c->op, "fdiv") == 0;
  if (needs_float && !tx_dtype_is_float(o.r[0].dtype)) return "the op needs a float destination";
  if (strcmp(c->op, "cast") != 0)
    for (uint32_t i = 1; i < o.n; i++)
      if (o.r[i].buffer &&
          (o.r[i].dtype.code != o.r[0].dtype.code || o.r[i].dtype.bits != o.r[0].dtype.bits))
        return "an operand's dtype differs from the destination's (use T.tile.cast)";
  return NULL;
}

const char *tx_cuda_reject_reg(const tx_tile_call *c) {
  const char *why = elementwise_ok(c);
  if (!why) why = operand_scope(c, 0);
  return why ? why : thread_layout(c);
}

const char *tx_cuda_reject_smem(const tx_tile_call *c) {
  const char *why = elementwise_ok(c);
  return why ? why : operand_scope(c, 1);
}

const char *tx_cuda_reject_copy(const tx_tile_call *c) {
  const char *why = tx_tile_group_ok(c);
  if (why) return why;
  if (tx_tile_npos(c->stmt) != 2) return "copy takes (dst, src)";
  operands o;
  if ((why = read_operands(c, &o))) return why;
  if (!o.r[1].buffer) return "the source is not a buffer region";
  if (o.r[0].dtype.code != o.r[1].dtype.code || o.r[0].dtype.bits != o.r[1].dtype.bits)
    return "copy needs equal dtypes (use T.tile.cast)";
  if (o.r[0].nlogical != o.r[1].nlogical)
    return "the operands' extents differ (copy does not broadcast)";
  return thread_layout(c);
}

/* ---- expansions ------------------------------------------------------------------------ */

/* The widest vector (elements, power of two, <= 16 bytes of the widest
 * operand's elements) dividing the innermost logical extent when every region is contiguous there
 * (its last dimension, no strides, default layout); 1 when none. */
static int64_t vector_width(const operands *o) {
  if (!o->r[0].nlogical) return 1;
  int64_t ext = o->r[0].extent[o->r[0].dims[o->r[0].nlogical - 1]];
  int64_t bytes = 1, v = 1;
  for (uint32_t i = 0; i < o->n; i++) {
    const tx_tile_region *r = &o->r[i];
    if (!r->buffer || !r->nlogical) continue; /* a scalar or one element: broadcast */
    if ((r->dtype.bits + 7) / 8 > bytes) bytes = (r->dtype.bits + 7) / 8;
    if (r->buffer->nstrides || r->buffer->layout || r->dims[r->nlogical - 1] != r->ndim - 1)
      return 1;
    if (r->dtype.bits % 8) return 1;
  }
  while (v * 2 * bytes <= 16 && ext % (v * 2) == 0)
    v *= 2;
  return v;
}

/* Loops over the logical extents around dst[lv] = value(lv); the innermost
 * dimension split by `vec` (> 1) into a T.vectorized loop. */
static const tx_stmt *elementwise_loops(tx_tile_call *c, const operands *o, int64_t vec) {
  const tx_tile_region *d = &o->r[0];
  uint32_t n = d->nlogical;
  /* A vector as long as the innermost extent needs no split. */
  int split = vec > 1 && d->extent[d->dims[n - 1]] > vec;
  uint32_t nl = n + split;
  const tx_expr *vars[TX_TILE_MAX_DIMS + 1], *lv[TX_TILE_MAX_DIMS];
  int64_t ext[TX_TILE_MAX_DIMS + 1];
  if (!tx_tile_loop_vars(c, nl, vars)) return NULL;
  for (uint32_t k = 0; k < n; k++) {
    ext[k] = d->extent[d->dims[k]];
    lv[k] = vars[k];
  }
  if (split) {
    /* i_outer * vec + i_vec */
    ext[n - 1] /= vec;
    ext[n] = vec;
    const tx_expr *scaled[] = {vars[n - 1], tx_int(c->ir, TX_INT32, vec, c->stmt->span)};
    const tx_expr *mul = tx_expr_new(c->ir, EXPR_MUL, TX_INT32, scaled, 2, c->stmt->span);
    const tx_expr *sum[] = {mul, vars[n]};
    lv[n - 1] = mul ? tx_expr_new(c->ir, EXPR_ADD, TX_INT32, sum, 2, c->stmt->span) : NULL;
    if (!lv[n - 1]) return NULL;
  }
  const tx_stmt *body = tx_tile_store(c->ir, d, lv, element_value(c, o, lv), c->stmt->span);
  return body ? tx_tile_loops(c->ir, vars, ext, nl, body, vec > 1 ? FOR_VECTORIZED : FOR_SERIAL,
                              c->stmt->span)
              : NULL;
}

/* The scope's [outer, threads, vec] partition of the destination's
 * elements: round f, thread t handles the vec elements from
 * (f * threads + t) * vec on, in a T.vectorized loop when vec > 1. */
static const tx_stmt *partition_loops(tx_tile_call *c, const operands *o, int64_t vec,
                                      const char **why) {
  const tx_tile_region *d = &o->r[0];
  tx_ir *ir = c->ir;
  tirx_span sp = c->stmt->span;
  int64_t n = tx_tile_elements(d), p = c->nthreads;
  if (n % p) {
    *why = "the region's element count does not divide among the scope's threads";
    return NULL;
  }
  while (vec > 1 && (n / p) % vec)
    vec /= 2;
  int64_t outer = n / (p * vec), ext[TX_TILE_MAX_DIMS];
  for (uint32_t k = 0; k < d->nlogical; k++)
    ext[k] = d->extent[d->dims[k]];
  const tx_expr *vars[2], *lv[TX_TILE_MAX_DIMS];
  int64_t loop_ext[2];
  uint32_t nl = 0;
  if (!tx_tile_loop_vars(c, 2, vars)) return NULL;
  const tx_expr *q = c->thread_index, *lane = NULL;
  if (outer > 1) {
    q = tx_tile_arith(ir, EXPR_ADD, tx_tile_arith_i(ir, EXPR_MUL, vars[0], p, sp), q, sp);
    loop_ext[nl++] = outer;
  }
  if (vec > 1) {
    lane = vars[1];
    vars[nl] = vars[1];
    loop_ext[nl++] = vec;
  }
  if (!q || !tx_tile_unflatten(ir, ext, d->nlogical, q, vec, lane, sp, lv)) return NULL;
  const tx_stmt *body = tx_tile_store(ir, d, lv, element_value(c, o, lv), sp);
  if (body && nl)
    body = tx_tile_loops(ir, vars, loop_ext, nl, body, vec > 1 ? FOR_VECTORIZED : FOR_SERIAL, sp);
  return body;
}

/* `if thread_index == 0: body`: the scope's first thread does it all. */
static const tx_stmt *first_thread(tx_tile_call *c, const tx_stmt *body) {
  if (!body || c->scope == TX_SCOPE_THREAD) return body;
  return tx_tile_guard(c->ir, EXPR_EQ, c->thread_index, 0, body, c->stmt->span);
}

/* Each thread of the group over the elements it holds of the register
 * operand `lead` (laid out by lo): dst[lv] = value(lv) in loops over its
 * memory iterators. */
static const tx_stmt *owned_loops(tx_tile_call *c, const operands *o, uint32_t lead,
                                  const tx_tile_owners *lo) {
  const tx_expr *vars[TX_TILE_MAX_SHARDS + TX_TILE_MAX_DIMS], *lv[TX_TILE_MAX_DIMS];
  int64_t ext[TX_TILE_MAX_SHARDS + TX_TILE_MAX_DIMS];
  uint32_t nloops;
  if (!tx_tile_owned(c, &o->r[lead], lo, vars, ext, &nloops, lv)) return NULL;
  const tx_stmt *body = tx_tile_store(c->ir, &o->r[0], lv, element_value(c, o, lv), c->stmt->span);
  if (body && nloops)
    body = tx_tile_loops(c->ir, vars, ext, nloops, body, FOR_SERIAL, c->stmt->span);
  return body;
}

static const tx_stmt *expand_with(tx_tile_call *c, int64_t vec_of_operands, const char **why) {
  operands o;
  if ((*why = read_operands(c, &o))) return NULL;
  int64_t vec = vec_of_operands ? vector_width(&o) : 1;
  uint32_t lead;
  tx_tile_owners lo;
  if ((*why = owners_ok(c, &o, &lead, &lo))) return NULL;
  const tx_stmt *s;
  if (lead < o.n)
    s = owned_loops(c, &o, lead, &lo);
  else if (c->scope == TX_SCOPE_THREAD)
    s = elementwise_loops(c, &o, vec);
  else if (vec_of_operands)
    s = partition_loops(c, &o, vec, why);
  else
    s = first_thread(c, elementwise_loops(c, &o, 1));
  if (!s && !*why) c->oom = 1;
  return s;
}

/* copy as dst = src element-wise, through element_value's "fill". */
static const tx_stmt *expand_copy(tx_tile_call *c, int vec, const char **why) {
  tx_tile_call as_fill = *c;
  as_fill.op = "fill";
  const tx_stmt *s = expand_with(&as_fill, vec, why);
  c->oom = as_fill.oom;
  return s;
}

const tx_stmt *tx_cuda_expand_vec_auto(tx_tile_call *c, const char **why) {
  return expand_copy(c, 1, why);
}

const tx_stmt *tx_cuda_expand_fallback(tx_tile_call *c, const char **why) {
  tx_diag_report(c->diags, TIRX_SEV_WARNING, c->stmt->span,
                 "copy/fallback (scalar) picked at %s scope%s", tx_tile_scope_name(c->scope),
                 tx_tile_kwarg(c->stmt, "dispatch") ? " (dispatch=)"
                                                    : "; all faster variants rejected");
  return expand_copy(c, 0, why);
}

const tx_stmt *tx_cuda_expand_elementwise(tx_tile_call *c, const char **why) {
  return expand_with(c, 1, why);
}
