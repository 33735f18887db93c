/*
 * launch_build.c - host function -> launch program (launch_build.h).
 *
 * Walks a host function as make-packed-api writes it (docs/lowering.md,
 * "After make-packed-api"): parameter bindings first, then a flat sequence
 * of asserts, lets, T.arg_bind, tensor-map allocations and encodes, and one
 * T.call_packed per kernel launch. Anything else on the host (loops,
 * branches, stores) makes the function uncallable, with the reason kept.
 * Each expression becomes postfix code (abi/launch_ops.def) whose stack
 * depth is tracked here, so the output passes tx_lp_verify.
 */
#include "driver/launch_build.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir/tensormap.h"
#include "support/mem.h"

typedef struct lb {
  const tirx_allocator *alloc;
  const tx_module *lowered;
  tx_lp_func *f;
  uint32_t capcode, capstmts, capencodes, capkparams, caplaunches, capslots;
  const tx_expr **slots; /* the variable of each slot */
  char why[256];
  int failed, nomem;
  int depth, max_depth; /* of the expression being emitted */
  /* The tensor maps allocated so far and whether an encode filled each
   * (the host part has no control flow, so this is known here). */
  const tx_expr *map_vars[TX_MAX_KERNEL_TENSORMAPS];
  int map_encoded[TX_MAX_KERNEL_TENSORMAPS];
} lb;

static void fail(lb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(lb *b, const char *fmt, ...) {
  if (b->failed) return;
  b->failed = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->why, sizeof b->why, fmt, ap);
  va_end(ap);
}

static void fail_nomem(lb *b) {
  b->nomem = 1;
  fail(b, "out of memory");
}

/* Room for one more item of `size` bytes in *arr (n used of *cap). */
static int grow(lb *b, void **arr, uint32_t n, uint32_t *cap, size_t size) {
  if (b->failed) return 0;
  if (n < *cap) return 1;
  uint32_t c = *cap ? *cap * 2 : 16;
  void *p = tx_mem_realloc(b->alloc, *arr, (size_t)c * size);
  if (!p) {
    fail_nomem(b);
    return 0;
  }
  *arr = p;
  *cap = c;
  return 1;
}

static char *dup_str(lb *b, const char *s, size_t n) {
  char *d = tx_mem_strndup(b->alloc, s, n);
  if (!d) fail_nomem(b);
  return d;
}

static char *dup_cstr(lb *b, const char *s) {
  return s ? dup_str(b, s, strlen(s)) : NULL;
}

/* ---- expressions --------------------------------------------------------------- */

static void emit(lb *b, tx_lp_op op, int32_t a, int32_t bb, tx_lp_val imm, int push) {
  tx_lp_func *f = b->f;
  if (!grow(b, (void **)&f->code, f->ncode, &b->capcode, sizeof *f->code)) return;
  f->code[f->ncode++] = (tx_lp_ins){(uint8_t)op, a, bb, imm};
  /* push: the net stack effect (+1 for a leaf, 0 for unary, -1 for binary) */
  b->depth += push;
  if (b->depth > b->max_depth) b->max_depth = b->depth;
}

static void emit0(lb *b, tx_lp_op op, int push) {
  emit(b, op, 0, 0, (tx_lp_val){0}, push);
}

static int32_t find_slot(const lb *b, const tx_expr *var) {
  for (uint32_t i = 0; i < b->f->nslots; i++)
    if (b->slots[i] == var) return (int32_t)i;
  return -1;
}

static int32_t add_slot(lb *b, const tx_expr *var) {
  int32_t s = find_slot(b, var);
  if (s >= 0) return s;
  if (!grow(b, (void **)&b->slots, b->f->nslots, &b->capslots, sizeof *b->slots)) return 0;
  b->slots[b->f->nslots] = var;
  return (int32_t)b->f->nslots++;
}

static tx_lp_stmt *add_stmt(lb *b, tx_lp_stmt_kind kind) {
  tx_lp_func *f = b->f;
  if (!grow(b, (void **)&f->stmts, f->nstmts, &b->capstmts, sizeof *f->stmts)) return NULL;
  tx_lp_stmt *s = &f->stmts[f->nstmts++];
  memset(s, 0, sizeof *s);
  s->kind = (uint8_t)kind;
  return s;
}

/* Wrap an integer result to its dtype's width, as the generated C would. */
static void emit_wrap(lb *b, tx_dtype t) {
  if (tx_dtype_is_bool(t) || t.code == DT_HANDLE || tx_dtype_is_float(t)) return;
  if (t.bits < 64) emit(b, TX_LP_WRAP, t.bits, t.code == DT_INT, (tx_lp_val){0}, 0);
}

static int literal_index(lb *b, const tx_expr *e, const char *what) {
  if (!e || e->kind != EXPR_INT) {
    fail(b, "%s needs a literal index", what);
    return 0;
  }
  return (int)e->u.ival;
}

static void build_expr(lb *b, const tx_expr *e);

static void build_accessor(lb *b, const tx_expr *e) {
  static const struct {
    const char *name;
    tx_lp_op op;
    uint32_t nargs;
  } ACCESSORS[] = {
      {"T.arg_count", TX_LP_ARG_COUNT, 0},      {"T.arg_kind", TX_LP_ARG_KIND, 1},
      {"T.arg_ndim", TX_LP_ARG_NDIM, 1},        {"T.arg_dtype_code", TX_LP_DT_CODE, 1},
      {"T.arg_dtype_bits", TX_LP_DT_BITS, 1},   {"T.arg_dtype_lanes", TX_LP_DT_LANES, 1},
      {"T.arg_device_type", TX_LP_DEV_TYPE, 1}, {"T.arg_device_id", TX_LP_DEV_ID, 1},
      {"T.arg_shape", TX_LP_SHAPE, 2},          {"T.arg_stride", TX_LP_STRIDE, 2},
      {"T.arg_byte_offset", TX_LP_BYTE_OFF, 1}, {"T.arg_strides_compact", TX_LP_COMPACT, 1},
      {"T.arg_aligned", TX_LP_ALIGNED, 2},
  };
  const char *op = e->u.call.op;
  for (size_t i = 0; i < sizeof ACCESSORS / sizeof *ACCESSORS; i++) {
    if (strcmp(op, ACCESSORS[i].name) != 0) continue;
    if (e->u.call.kw.npos != ACCESSORS[i].nargs) {
      fail(b, "%s takes %u arguments", op, ACCESSORS[i].nargs);
      return;
    }
    int a = ACCESSORS[i].nargs > 0 ? literal_index(b, e->ops[0], op) : 0;
    int bb = ACCESSORS[i].nargs > 1 ? literal_index(b, e->ops[1], op) : 0;
    emit(b, ACCESSORS[i].op, a, bb, (tx_lp_val){0}, 1);
    return;
  }
  fail(b, "the launcher cannot evaluate %s", op);
}

/* The instruction of a binary expression kind (int or float flavour), or
 * TX_LP_OP_COUNT for a kind that is not one. */
static tx_lp_op binary_op(tx_expr_kind k, int fl) {
  switch (k) {
  case EXPR_ADD:
    return fl ? TX_LP_FADD : TX_LP_ADD;
  case EXPR_SUB:
    return fl ? TX_LP_FSUB : TX_LP_SUB;
  case EXPR_MUL:
    return fl ? TX_LP_FMUL : TX_LP_MUL;
  case EXPR_DIV:
  case EXPR_FLOORDIV:
    return fl ? TX_LP_FDIV : k == EXPR_DIV ? TX_LP_DIV : TX_LP_FLOORDIV;
  case EXPR_MOD:
    return fl ? TX_LP_OP_COUNT : TX_LP_MOD;
  case EXPR_FLOORMOD:
    return fl ? TX_LP_OP_COUNT : TX_LP_FLOORMOD;
  case EXPR_MIN:
    return fl ? TX_LP_FMIN : TX_LP_MIN;
  case EXPR_MAX:
    return fl ? TX_LP_FMAX : TX_LP_MAX;
  case EXPR_EQ:
    return fl ? TX_LP_FEQ : TX_LP_EQ;
  case EXPR_NE:
    return fl ? TX_LP_FNE : TX_LP_NE;
  case EXPR_LT:
    return fl ? TX_LP_FLT : TX_LP_LT;
  case EXPR_LE:
    return fl ? TX_LP_FLE : TX_LP_LE;
  case EXPR_GT:
    return fl ? TX_LP_FGT : TX_LP_GT;
  case EXPR_GE:
    return fl ? TX_LP_FGE : TX_LP_GE;
  case EXPR_AND:
    return TX_LP_AND;
  case EXPR_OR:
    return TX_LP_OR;
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STRING:
  case EXPR_VAR:
  case EXPR_NOT:
  case EXPR_SELECT:
  case EXPR_CAST:
  case EXPR_LOAD:
  case EXPR_RAMP:
  case EXPR_BROADCAST:
  case EXPR_LET:
  case EXPR_CALL:
  case EXPR_TUPLE:
  case EXPR_BUFFER:
  case EXPR_REGION:
  case EXPR_SLICE:
  case EXPR_LAYOUT:
  case EXPR_LAMBDA:
  case EXPR_NONE:
  case TX_EXPR_KIND_COUNT:
    break;
  }
  return TX_LP_OP_COUNT;
}

static void build_binary(lb *b, const tx_expr *e) {
  int fl = tx_dtype_is_float(e->ops[0]->dtype);
  tx_lp_op op = binary_op((tx_expr_kind)e->kind, fl);
  if (op == TX_LP_OP_COUNT) {
    fail(b, "the launcher cannot take a float remainder");
    return;
  }
  build_expr(b, e->ops[0]);
  build_expr(b, e->ops[1]);
  emit0(b, op, -1);
  if (!tx_expr_is_compare((tx_expr_kind)e->kind)) emit_wrap(b, e->dtype);
}

static void build_cast(lb *b, const tx_expr *e) {
  tx_dtype from = e->ops[0]->dtype, to = e->dtype;
  build_expr(b, e->ops[0]);
  if (tx_dtype_is_float(to)) {
    if (!tx_dtype_is_float(from)) emit(b, TX_LP_I2F, 0, from.code == DT_INT, (tx_lp_val){0}, 0);
    if (to.bits == 32) emit0(b, TX_LP_F32, 0);
  } else if (tx_dtype_is_bool(to)) {
    int fl = tx_dtype_is_float(from);
    emit(b, fl ? TX_LP_FCONST : TX_LP_CONST, 0, 0, (tx_lp_val){0}, 1);
    emit0(b, fl ? TX_LP_FNE : TX_LP_NE, -1);
  } else {
    if (tx_dtype_is_float(from)) emit0(b, TX_LP_F2I, 0);
    emit_wrap(b, to);
  }
}

static void build_expr(lb *b, const tx_expr *e) {
  if (b->failed) return;
  if (e->dtype.lanes != 1) {
    fail(b, "the launcher evaluates scalars only");
    return;
  }
  if (binary_op((tx_expr_kind)e->kind, 0) != TX_LP_OP_COUNT) {
    build_binary(b, e);
    return;
  }
  switch ((tx_expr_kind)e->kind) {
  case EXPR_INT:
    emit(b, TX_LP_CONST, 0, 0, (tx_lp_val){.i = e->u.ival}, 1);
    return;
  case EXPR_FLOAT:
    emit(b, TX_LP_FCONST, 0, 0, (tx_lp_val){.f = e->u.fval}, 1);
    return;
  case EXPR_VAR: {
    int32_t s = find_slot(b, e);
    if (s < 0) {
      fail(b, "'%s' is read before it is bound", e->u.var.name);
      return;
    }
    emit(b, TX_LP_LOAD, s, 0, (tx_lp_val){0}, 1);
    return;
  }
  case EXPR_NOT:
    build_expr(b, e->ops[0]);
    emit0(b, TX_LP_NOT, 0);
    return;
  case EXPR_SELECT:
    build_expr(b, e->ops[0]);
    build_expr(b, e->ops[1]);
    build_expr(b, e->ops[2]);
    emit0(b, TX_LP_SELECT, -2);
    return;
  case EXPR_CAST:
    build_cast(b, e);
    return;
  case EXPR_CALL:
    build_accessor(b, e);
    return;
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
  case EXPR_DIV:
  case EXPR_MOD:
  case EXPR_FLOORDIV:
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
  case EXPR_STRING:
  case EXPR_LOAD:
  case EXPR_RAMP:
  case EXPR_BROADCAST:
  case EXPR_LET:
  case EXPR_TUPLE:
  case EXPR_BUFFER:
  case EXPR_REGION:
  case EXPR_SLICE:
  case EXPR_LAYOUT:
  case EXPR_LAMBDA:
  case EXPR_NONE:
  case TX_EXPR_KIND_COUNT:
    break;
  }
  fail(b, "the launcher cannot evaluate a %s expression", tx_expr_kind_name((tx_expr_kind)e->kind));
}

/* One whole expression: its code range. */
static tx_lp_range build_range(lb *b, const tx_expr *e) {
  tx_lp_range r = {b->f->ncode, 0};
  b->depth = 0;
  build_expr(b, e);
  r.end = b->f->ncode;
  if (b->max_depth > TX_LP_MAX_STACK) fail(b, "expressions too deep for the launcher");
  return r;
}

/* ---- statements ----------------------------------------------------------------- */

static int is_call(const tx_expr *e, const char *name) {
  return e && e->kind == EXPR_CALL && strcmp(e->u.call.op, name) == 0;
}

/* What a failed check on cond reports after its message. */
static void check_got(lb *b, tx_lp_stmt *st, const tx_expr *cond) {
  st->got = TX_LP_GOT_NONE;
  if (cond->kind == EXPR_EQ || cond->kind == EXPR_NE) {
    const tx_expr *lhs = cond->ops[0];
    if (is_call(lhs, "T.arg_dtype_code") || is_call(lhs, "T.arg_dtype_bits") ||
        is_call(lhs, "T.arg_dtype_lanes")) {
      st->got = TX_LP_GOT_DTYPE;
      st->arg = literal_index(b, lhs->ops[0], "dtype");
    } else if (is_call(lhs, "T.arg_kind")) {
      st->got = TX_LP_GOT_KIND;
      st->arg = literal_index(b, lhs->ops[0], "kind");
    } else {
      st->got = tx_dtype_is_float(lhs->dtype) ? TX_LP_GOT_FLOAT : TX_LP_GOT_INT;
      st->lhs = build_range(b, lhs);
    }
  } else if (is_call(cond, "T.arg_strides_compact")) {
    st->got = TX_LP_GOT_STRIDES;
    st->arg = literal_index(b, cond->ops[0], "strides");
  } else if (is_call(cond, "T.arg_aligned")) {
    st->got = TX_LP_GOT_POINTER;
    st->arg = literal_index(b, cond->ops[0], "aligned");
  }
}

static void build_assert(lb *b, const tx_stmt *s) {
  const tx_expr *cond = s->exprs[0], *msg = s->nexprs > 1 ? s->exprs[1] : NULL;
  tx_lp_range expr = build_range(b, cond);
  tx_lp_stmt *st = add_stmt(b, TX_LP_CHECK);
  if (!st) return;
  st->expr = expr;
  st->msg = msg && msg->kind == EXPR_STRING ? dup_str(b, msg->u.str.data, msg->u.str.len)
                                            : dup_cstr(b, "assertion failed");
  check_got(b, st, cond); /* adds code, not statements: st stays valid */
}

static void build_bind(lb *b, const tx_expr *var, const tx_expr *value, int checked) {
  tx_lp_range expr = build_range(b, value);
  int32_t slot = add_slot(b, var);
  tx_lp_stmt *st = add_stmt(b, TX_LP_BIND);
  if (!st) return;
  st->expr = expr;
  st->dtype = var->dtype;
  st->range_checked = (uint8_t)checked;
  st->name = dup_cstr(b, var->u.var.name);
  st->slot = slot;
}

static int kparam_type_ok(tx_dtype t) {
  return t.lanes == 1 && (t.code == DT_HANDLE || tx_dtype_is_bool(t) ||
                          (tx_dtype_is_int(t) && t.bits >= 8 && t.bits <= 64) ||
                          (t.code == DT_FLOAT && (t.bits == 16 || t.bits == 32 || t.bits == 64)) ||
                          (t.code == DT_BFLOAT && t.bits == 16));
}

/* The cluster shape of kernel `name`: its tirx.cluster attribute. */
static void kernel_cluster(const tx_module *m, const char *name, uint32_t out[3]) {
  for (uint32_t f = 0; f < m->nfuncs; f++) {
    const tx_func *k = m->funcs[f];
    const tx_expr *v = strcmp(k->name, name) == 0 ? tx_func_attr(k, "tirx.cluster") : NULL;
    for (uint32_t d = 0; v && v->kind == EXPR_TUPLE && d < v->nops && d < 3; d++)
      if (v->ops[d]->kind == EXPR_INT) out[d] = (uint32_t)v->ops[d]->u.ival;
  }
}

static void build_kparam(lb *b, const char *kernel, uint32_t i, const tx_expr *a) {
  tx_lp_func *f = b->f;
  if (!kparam_type_ok(a->dtype)) {
    char name[32];
    fail(b, "parameter %u of %s has type %s, which the launcher cannot pass", i, kernel,
         tx_dtype_str(a->dtype, name));
    return;
  }
  int tensormap = a->kind == EXPR_VAR && a->u.var.tensormap;
  for (uint32_t mi = 0; tensormap && mi < f->nmaps; mi++)
    if (b->map_vars[mi] == a && !b->map_encoded[mi]) {
      fail(b, "tensor map '%s' reaches the launch of %s before %s encodes it", a->u.var.name,
           kernel, TX_TENSORMAP_ENCODE_NAME);
      return;
    }
  tx_lp_range expr = build_range(b, a);
  if (!grow(b, (void **)&f->kparams, f->nkparams, &b->capkparams, sizeof *f->kparams)) return;
  tx_lp_kparam *kp = &f->kparams[f->nkparams++];
  *kp = (tx_lp_kparam){.expr = expr, .dtype = a->dtype, .tensormap = (uint8_t)tensormap};
  if (tensormap) kp->name = dup_cstr(b, a->u.var.name);
}

/* T.call_packed("kernel", params..., grid xyz, block xyz, dyn_smem). */
static void build_launch(lb *b, const tx_expr *call) {
  tx_lp_func *f = b->f;
  uint32_t n = call->u.call.kw.npos;
  if (n < 1 + TX_LP_DIMS || call->ops[0]->kind != EXPR_STRING) {
    fail(b, "T.call_packed needs a kernel name and 7 launch values");
    return;
  }
  uint32_t nk = n - 1 - TX_LP_DIMS;
  const char *kernel = call->ops[0]->u.str.data;
  if (nk > TX_MAX_KERNEL_PARAMS) {
    fail(b, "%s has more than %d parameters", kernel, TX_MAX_KERNEL_PARAMS);
    return;
  }
  tx_lp_launch l = {.first_kparam = f->nkparams, .nkparams = nk};
  for (uint32_t i = 0; i < nk; i++)
    build_kparam(b, kernel, i, call->ops[1 + i]);
  for (int d = 0; d < TX_LP_DIMS; d++)
    l.dims[d] = build_range(b, call->ops[1 + nk + (uint32_t)d]);
  kernel_cluster(b->lowered, kernel, l.cluster);
  if (!grow(b, (void **)&f->launches, f->nlaunches, &b->caplaunches, sizeof *f->launches)) return;
  l.kernel = dup_str(b, kernel, call->ops[0]->u.str.len);
  f->launches[f->nlaunches] = l;
  tx_lp_stmt *st = add_stmt(b, TX_LP_LAUNCH);
  if (st) st->index = f->nlaunches;
  f->nlaunches++; /* after add_stmt: the launch is freed with the function either way */
}

/* A_map = T.tvm_stack_alloca("tensormap", 1): a map in the call's storage. */
static void build_map_alloc(lb *b, const tx_stmt *s) {
  tx_lp_func *f = b->f;
  const tx_expr *var = s->vars[0], *count = NULL;
  tx_tensormap_is_alloca(s->exprs[0], &count);
  if (!count || count->kind != EXPR_INT || count->u.ival != 1) {
    fail(b, "T.tvm_stack_alloca(\"tensormap\", n) for '%s' needs n = 1", var->u.var.name);
    return;
  }
  if (f->nmaps >= TX_MAX_KERNEL_TENSORMAPS) {
    fail(b, "more than %d tensor maps", TX_MAX_KERNEL_TENSORMAPS);
    return;
  }
  int32_t slot = add_slot(b, var);
  tx_lp_stmt *st = add_stmt(b, TX_LP_MAP);
  if (!st) return;
  st->index = f->nmaps;
  st->name = dup_cstr(b, var->u.var.name);
  st->slot = slot;
  b->map_vars[f->nmaps] = var;
  b->map_encoded[f->nmaps] = 0;
  f->nmaps++;
}

static void build_encode(lb *b, const tx_expr *call) {
  tx_lp_func *f = b->f;
  tx_tensormap_encode enc;
  char why[384];
  if (!tx_tensormap_encode_parse(call, &enc, NULL, why, sizeof why)) {
    fail(b, "%s", why);
    return;
  }
  int32_t slot = find_slot(b, enc.map);
  if (slot < 0) {
    fail(b, "tensor map '%s' is encoded before it is bound", enc.map->u.var.name);
    return;
  }
  tx_lp_encode e = {.map_slot = slot,
                    .cu_dtype = enc.cu_dtype,
                    .elem_bits = enc.elem_bits,
                    .rank = enc.rank,
                    .has_force = enc.force_dtype != NULL};
  e.addr = build_range(b, enc.addr);
  for (int i = 0; i < enc.rank; i++) {
    e.dims[i] = build_range(b, enc.dims[i]);
    e.box[i] = build_range(b, enc.box[i]);
    e.elem_strides[i] = build_range(b, enc.elem_strides[i]);
    if (i + 1 < enc.rank) e.strides[i] = build_range(b, enc.strides[i]);
  }
  e.interleave = build_range(b, enc.interleave);
  e.swizzle = build_range(b, enc.swizzle);
  e.l2_promotion = build_range(b, enc.l2_promotion);
  e.oob_fill = build_range(b, enc.oob_fill);
  if (enc.force_dtype) e.force_dtype = build_range(b, enc.force_dtype);
  if (!grow(b, (void **)&f->encodes, f->nencodes, &b->capencodes, sizeof *f->encodes)) return;
  f->encodes[f->nencodes] = e;
  tx_lp_stmt *st = add_stmt(b, TX_LP_ENCODE);
  if (!st) return;
  st->index = f->nencodes++;
  st->name = dup_cstr(b, enc.map->u.var.name);
  for (uint32_t m = 0; m < f->nmaps; m++)
    if (b->map_vars[m] == enc.map) b->map_encoded[m] = 1;
}

static void build_eval(lb *b, const tx_stmt *s) {
  const tx_expr *e = s->exprs[0];
  if (is_call(e, "T.arg_bind") && e->u.call.kw.npos == 2 && e->ops[0]->kind == EXPR_VAR) {
    build_bind(b, e->ops[0], e->ops[1], 1);
  } else if (tx_tensormap_is_encode(e)) {
    build_encode(b, e);
  } else if (is_call(e, "T.call_packed") && e->nops >= 1 && e->ops[0]->kind == EXPR_STRING &&
             strncmp(e->ops[0]->u.str.data, "runtime.", 8) == 0) {
    /* TVM's runtime services: only the tensor-map encoder is provided. */
    fail(b,
         "the launcher does not provide the packed function %s (of TVM's runtime services, "
         "only %s)",
         e->ops[0]->u.str.data, TX_TENSORMAP_ENCODE_NAME);
  } else if (is_call(e, "T.call_packed")) {
    build_launch(b, e);
  } else {
    fail(b, "the launcher cannot run a %s statement on the host", tx_stmt_kind_name(STMT_EVAL));
  }
}

static void build_stmt(lb *b, const tx_stmt *s) {
  if (b->failed) return;
  switch ((tx_stmt_kind)s->kind) {
  case STMT_SEQ:
    for (uint32_t i = 0; i < s->nstmts; i++)
      build_stmt(b, s->stmts[i]);
    return;
  case STMT_ASSERT:
    build_assert(b, s);
    return;
  case STMT_BIND:
    if (s->nvars == 1 && s->nexprs >= 1 && s->exprs[0]) {
      if (tx_tensormap_is_alloca(s->exprs[0], NULL))
        build_map_alloc(b, s);
      else
        build_bind(b, s->vars[0], s->exprs[0], 0);
      return;
    }
    break;
  case STMT_DECL:
    /* A = T.match_buffer(A_ptr, ...): A.data is the handle parameter. */
    if (s->buffer && s->buffer->form == BUF_MATCH && s->buffer->origin) {
      build_bind(b, s->buffer->data, s->buffer->origin, 0);
      return;
    }
    break;
  case STMT_EVAL:
    build_eval(b, s);
    return;
  case STMT_ATTR:
    if (s->nstmts == 0) return; /* annotations do not change what runs */
    break;
  case STMT_STORE:
  case STMT_ASSIGN:
  case STMT_IF:
  case STMT_FOR:
  case STMT_WHILE:
  case STMT_BREAK:
  case STMT_CONTINUE:
  case STMT_RETURN:
  case STMT_ALLOC:
  case STMT_SCOPE_ID:
  case STMT_DEVICE_ENTRY:
  case STMT_WITH:
  case STMT_BLOCK:
  case STMT_BLOCK_AXIS:
  case STMT_BLOCK_SIG:
  case STMT_BLOCK_INIT:
  case STMT_TILE_OP:
  case TX_STMT_KIND_COUNT:
    break;
  }
  fail(b, "the launcher cannot run a %s statement on the host",
       tx_stmt_kind_name((tx_stmt_kind)s->kind));
}

/* ---- parameters and the function ---------------------------------------------------- */

/* The buffer a parameter stands for: its T.Buffer, or the buffer matched on
 * it by a top-level T.match_buffer. */
static const tx_buffer *param_buffer(const tx_func *f, uint32_t i) {
  if (f->param_bufs && f->param_bufs[i]) return f->param_bufs[i];
  uint32_t n;
  const tx_stmt *const *items = tx_func_top_stmts(f, &n);
  for (uint32_t k = 0; k < n; k++)
    if (items[k]->kind == STMT_DECL && items[k]->buffer && items[k]->buffer->form == BUF_MATCH &&
        items[k]->buffer->origin == f->params[i])
      return items[k]->buffer;
  return NULL;
}

static void build_pinfo(lb *b, const tx_func *fn, uint32_t i, tx_lp_param_info *out) {
  const tx_buffer *buf = param_buffer(fn, i);
  const tx_expr *p = fn->params[i];
  out->name = dup_cstr(b, p->u.var.name);
  if (!buf) {
    out->kind = p->dtype.code == DT_HANDLE    ? TIRX_ARG_HANDLE
                : tx_dtype_is_float(p->dtype) ? TIRX_ARG_FLOAT
                                              : TIRX_ARG_INT;
    out->dtype = p->dtype;
    return;
  }
  out->kind = TIRX_ARG_TENSOR;
  out->dtype = buf->dtype;
  if (buf->ndim == 0) return;
  out->shape = tx_mem_calloc(b->alloc, buf->ndim, sizeof *out->shape);
  out->dim_names = tx_mem_calloc(b->alloc, buf->ndim, sizeof *out->dim_names);
  if (!out->shape || !out->dim_names) {
    fail_nomem(b);
    return;
  }
  out->ndim = (int32_t)buf->ndim;
  for (uint32_t d = 0; d < buf->ndim; d++) {
    const tx_expr *e = buf->shape[d];
    out->shape[d] = e->kind == EXPR_INT ? e->u.ival : -1;
    if (e->kind == EXPR_VAR) out->dim_names[d] = dup_cstr(b, e->u.var.name);
  }
}

static int is_packed(const tx_func *f) {
  return tx_func_attr(f, "tirx.packed_api") != NULL;
}

/* Where `name` was written in the source module. */
static const tx_func *source_func(const tx_module *source, const char *name) {
  for (uint32_t k = 0; source && k < source->nfuncs; k++)
    if (strcmp(source->funcs[k]->name, name) == 0) return source->funcs[k];
  return NULL;
}

/* The body: parameter bindings, then the statements. A failure that is not
 * an allocation's leaves f callable-no-more with the reason. */
static void build_body(lb *b, const tx_func *fn) {
  tx_lp_func *f = b->f;
  f->params = tx_mem_calloc(b->alloc, fn->nparams ? fn->nparams : 1, sizeof *f->params);
  if (!f->params) {
    fail_nomem(b);
    return;
  }
  for (uint32_t i = 0; i < fn->nparams && !b->failed; i++) {
    const tx_buffer *buf = fn->param_bufs ? fn->param_bufs[i] : NULL;
    tx_lp_param *p = &f->params[f->nparams++];
    p->arg = (int32_t)i;
    p->slot = add_slot(b, buf ? buf->data : fn->params[i]);
    /* A handle matched by T.match_buffer receives a tensor too. */
    p->tensor = buf != NULL || fn->params[i]->dtype.code == DT_HANDLE;
    p->dtype = fn->params[i]->dtype;
  }
  if (fn->body) build_stmt(b, fn->body);
  if (!b->failed && f->nlaunches == 0)
    fail(b, "'%s' launches no kernel (a host-only function)", fn->name);
}

static void build_func(lb *b, const tx_func *fn, const tx_module *source) {
  tx_lp_func *f = b->f;
  f->name = dup_cstr(b, fn->name);
  const tx_func *src = source_func(source, fn->name);
  if (src && src->span.line && src->span.file) {
    f->def_file = dup_cstr(b, src->span.file);
    f->def_line = src->span.line;
    f->def_col = src->span.col;
  }
  f->pinfo = tx_mem_calloc(b->alloc, fn->nparams ? fn->nparams : 1, sizeof *f->pinfo);
  if (!f->pinfo) {
    fail_nomem(b);
    return;
  }
  for (uint32_t i = 0; i < fn->nparams && !b->failed; i++)
    build_pinfo(b, fn, i, &f->pinfo[f->npinfo++]);
  if (b->failed) return;
  build_body(b, fn);
}

tirx_status tx_launch_build(const tirx_allocator *alloc, const tx_module *lowered,
                            const tx_module *source, tx_lp_module **out) {
  *out = NULL;
  tx_lp_module *m = tx_lp_module_new(alloc);
  if (!m) return TIRX_ERR_NOMEM;
  tirx_status st = TIRX_OK;
  for (uint32_t i = 0; i < lowered->nfuncs && st == TIRX_OK; i++) {
    const tx_func *fn = lowered->funcs[i];
    if (!is_packed(fn)) continue;
    tx_lp_func *f = tx_lp_module_add(m);
    if (!f) {
      st = TIRX_ERR_NOMEM;
      break;
    }
    lb b = {.alloc = &m->alloc, .lowered = lowered, .f = f};
    build_func(&b, fn, source);
    tx_mem_free(b.alloc, (void *)b.slots);
    if (b.nomem) {
      st = TIRX_ERR_NOMEM;
    } else if (b.failed) {
      /* Not runnable: keep the name, the parameters and the reason only. */
      tx_lp_func keep = {.name = f->name,
                         .def_file = f->def_file,
                         .def_line = f->def_line,
                         .def_col = f->def_col,
                         .pinfo = f->pinfo,
                         .npinfo = f->npinfo};
      f->name = f->def_file = NULL;
      f->pinfo = NULL;
      f->npinfo = 0;
      tx_lp_func_clear(&m->alloc, f);
      *f = keep;
      f->why = dup_cstr(&b, b.why);
      if (!f->why) st = TIRX_ERR_NOMEM;
    }
  }
  if (st != TIRX_OK) {
    tx_lp_module_free(m);
    return st;
  }
  *out = m;
  return TIRX_OK;
}
