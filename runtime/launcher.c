/*
 * launcher.c - the host launcher interpreter (launcher.h).
 *
 * A host function is compiled into
 *  - parameter bindings (a buffer's data variable <- DLTensor.data, a scalar
 *    <- the argument converted to its dtype), done first but guarded by the
 *    argument's kind so that they never read a union member that is not set;
 *  - a flat list of statements: checks (assert), bindings (T.arg_bind, let),
 *    tensor maps (T.tvm_stack_alloca("tensormap", 1) points a slot at one of
 *    the call's map buffers; runtime.cuTensorMapEncodeTiled is checked here
 *    and encoded by the caller's callback, which owns the driver) and the
 *    launch (T.call_packed), where a tensor-map argument is passed as a
 *    pointer to its 128 bytes, which cuLaunchKernelEx copies by value;
 *  - expressions as postfix code over a small value stack.
 * Why postfix code and not the IR: a call must cost well under a
 * microsecond, and the IR's pointer-chasing and string-compared call names
 * would dominate that. Everything string-y is resolved once here.
 */
#include "runtime/launcher.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/mem.h"
#include "abi/packed_api.h"
#include "runtime/tensor.h"

typedef enum lx_op {
  LX_CONST,
  LX_FCONST,
  LX_LOAD,
  LX_ARG_COUNT,
  LX_ARG_KIND,
  LX_ARG_NDIM,
  LX_DT_CODE,
  LX_DT_BITS,
  LX_DT_LANES,
  LX_DEV_TYPE,
  LX_DEV_ID,
  LX_SHAPE,
  LX_STRIDE,
  LX_BYTE_OFF,
  LX_COMPACT,
  LX_ALIGNED,
  LX_ADD,
  LX_SUB,
  LX_MUL,
  LX_DIV,
  LX_MOD,
  LX_FLOORDIV,
  LX_FLOORMOD,
  LX_MIN,
  LX_MAX,
  LX_FADD,
  LX_FSUB,
  LX_FMUL,
  LX_FDIV,
  LX_FMIN,
  LX_FMAX,
  LX_EQ,
  LX_NE,
  LX_LT,
  LX_LE,
  LX_GT,
  LX_GE,
  LX_FEQ,
  LX_FNE,
  LX_FLT,
  LX_FLE,
  LX_FGT,
  LX_FGE,
  LX_AND,
  LX_OR,
  LX_NOT,
  LX_SELECT,
  LX_WRAP, /* a = bits, b = 1 signed */
  LX_I2F,  /* b = 1 signed source */
  LX_F2I,
  LX_F32, /* round a double to float precision */
} lx_op;

typedef union lx_val {
  int64_t i;
  double f;
} lx_val;

typedef struct lx_ins {
  uint8_t op;
  int32_t a, b;
  lx_val imm;
} lx_ins;

typedef struct lx_range {
  uint32_t begin, end;
} lx_range;

/* What a failed check reports after "got". */
typedef enum lx_got {
  GOT_NONE,
  GOT_INT,     /* the lhs, an integer expression */
  GOT_FLOAT,   /* the lhs, a float expression */
  GOT_DTYPE,   /* argument `arg`'s whole dtype */
  GOT_KIND,    /* argument `arg`'s kind name */
  GOT_STRIDES, /* argument `arg`'s strides */
  GOT_POINTER, /* argument `arg`'s data pointer */
} lx_got;

typedef enum lx_stmt_kind {
  LS_CHECK,
  LS_BIND,
  LS_LAUNCH,
  LS_MAP,    /* T.tvm_stack_alloca("tensormap", 1): the slot points at a map of the call */
  LS_ENCODE, /* runtime.cuTensorMapEncodeTiled */
} lx_stmt_kind;

/* One encode call: its operands as code, the dtype resolved once. */
typedef struct lx_encode {
  int32_t map_slot; /* the slot holding the map's address */
  int cu_dtype, elem_bits, rank;
  lx_range addr, dims[TX_TENSORMAP_MAX_RANK], strides[TX_TENSORMAP_MAX_RANK - 1];
  lx_range box[TX_TENSORMAP_MAX_RANK], elem_strides[TX_TENSORMAP_MAX_RANK];
  lx_range interleave, swizzle, l2_promotion, oob_fill, force_dtype;
  int has_force;
} lx_encode;

typedef struct lx_stmt {
  lx_stmt_kind kind;
  lx_range expr; /* cond (check) or value (bind) */
  lx_got got;
  lx_range lhs; /* GOT_INT/GOT_FLOAT */
  int32_t arg;  /* GOT_DTYPE.. */
  char *msg;    /* check: the static message */
  int32_t slot; /* bind */
  tx_dtype dtype;
  int range_checked; /* T.arg_bind: the value must fit the variable's dtype */
  const char *var_name;
  int32_t map;    /* LS_MAP: the index into tx_launch_values.maps */
  lx_encode *enc; /* LS_ENCODE */
} lx_stmt;

/* How a parameter's slot is filled before the body runs. */
typedef struct lx_param {
  int32_t slot, arg;
  int tensor; /* 1: DLTensor.data; 0: a scalar of `dtype` */
  tx_dtype dtype;
} lx_param;

typedef struct lx_kparam {
  lx_range expr;
  tx_dtype dtype;
  /* A tensor map: expr is the map's address, passed on as the pointer to
   * the parameter's 128 bytes (the kernel takes the map by value). */
  int tensormap;
  const char *name;
} lx_kparam;

struct tx_launcher {
  char *func_name;
  char *kernel;
  uint32_t cluster[3];
  lx_ins *code;
  uint32_t ncode, capcode;
  lx_stmt *stmts;
  uint32_t nstmts, capstmts;
  lx_param *params;
  uint32_t nparams;
  lx_kparam *kparams;
  uint32_t nkparams;
  lx_range dims[7]; /* grid xyz, block xyz, dynamic shared bytes */
  const tx_expr **slots;
  uint32_t nslots, capslots;
  uint32_t max_stack;
  int has_launch;
  uint32_t nmaps;              /* LS_MAP statements */
  const tirx_allocator *alloc; /* every block above, and the interpreter's heap slots */
};

/* ---- building ------------------------------------------------------------- */

typedef struct lx_builder {
  tx_launcher *l;
  char *why;
  size_t cap;
  int failed;
  int nomem;                 /* the failure is an allocation's: the build says TIRX_ERR_NOMEM */
  uint32_t depth, max_depth; /* stack depth while emitting */
  /* The tensor maps allocated so far and whether an encode call filled each
   * (the host part has no control flow, so this is known here). */
  const tx_expr *map_vars[TX_LAUNCH_MAX_TENSORMAPS];
  int map_encoded[TX_LAUNCH_MAX_TENSORMAPS];
} lx_builder;

static void fail(lx_builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(lx_builder *b, const char *fmt, ...) {
  if (b->failed) return;
  b->failed = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->why, b->cap, fmt, ap);
  va_end(ap);
}

static void fail_nomem(lx_builder *b) {
  b->nomem = 1;
  fail(b, "out of memory");
}

static char *dup_n(const tx_launcher *l, const char *s, size_t n) {
  return tx_mem_strndup(l->alloc, s, n);
}

static void emit(lx_builder *b, lx_op op, int32_t a, int32_t bb, lx_val imm, int push) {
  tx_launcher *l = b->l;
  if (b->failed) return;
  if (l->ncode == l->capcode) {
    uint32_t cap = l->capcode ? l->capcode * 2 : 64;
    lx_ins *p = tx_mem_realloc(l->alloc, l->code, cap * sizeof *p);
    if (!p) {
      fail_nomem(b);
      return;
    }
    l->code = p;
    l->capcode = cap;
  }
  l->code[l->ncode++] = (lx_ins){(uint8_t)op, a, bb, imm};
  /* push: net stack effect (+1 for a leaf, 0 for unary, -1 for binary ...) */
  b->depth = (uint32_t)((int)b->depth + push);
  if (b->depth > b->max_depth) b->max_depth = b->depth;
}

static int32_t find_slot(const tx_launcher *l, const tx_expr *var) {
  for (uint32_t i = 0; i < l->nslots; i++)
    if (l->slots[i] == var) return (int32_t)i;
  return -1;
}

static int32_t add_slot(lx_builder *b, const tx_expr *var) {
  tx_launcher *l = b->l;
  int32_t s = find_slot(l, var);
  if (s >= 0) return s;
  if (l->nslots == l->capslots) {
    uint32_t cap = l->capslots ? l->capslots * 2 : 16;
    const tx_expr **p = tx_mem_realloc(l->alloc, l->slots, cap * sizeof *p);
    if (!p) {
      fail_nomem(b);
      return 0;
    }
    l->slots = p;
    l->capslots = cap;
  }
  l->slots[l->nslots] = var;
  return (int32_t)l->nslots++;
}

static lx_stmt *add_stmt(lx_builder *b, lx_stmt_kind kind) {
  tx_launcher *l = b->l;
  if (b->failed) return NULL;
  if (l->nstmts == l->capstmts) {
    uint32_t cap = l->capstmts ? l->capstmts * 2 : 32;
    lx_stmt *p = tx_mem_realloc(l->alloc, l->stmts, cap * sizeof *p);
    if (!p) {
      fail_nomem(b);
      return NULL;
    }
    l->stmts = p;
    l->capstmts = cap;
  }
  lx_stmt *s = &l->stmts[l->nstmts++];
  memset(s, 0, sizeof *s);
  s->kind = kind;
  return s;
}

static int is_float_type(tx_dtype t) {
  return tx_dtype_is_float(t);
}

/* Wrap an integer result to its dtype's width, as the generated C would. */
static void emit_wrap(lx_builder *b, tx_dtype t) {
  if (tx_dtype_is_bool(t) || t.code == DT_HANDLE || is_float_type(t)) return;
  if (t.bits < 64) emit(b, LX_WRAP, t.bits, t.code == DT_INT, (lx_val){0}, 0);
}

static int literal_index(lx_builder *b, const tx_expr *e, const char *what) {
  if (!e || e->kind != EXPR_INT) {
    fail(b, "%s needs a literal index", what);
    return 0;
  }
  return (int)e->u.ival;
}

static void compile_expr(lx_builder *b, const tx_expr *e);

static void compile_call(lx_builder *b, const tx_expr *e) {
  static const struct {
    const char *name;
    lx_op op;
    int nargs;
  } ACCESSORS[] = {
      {"T.arg_count", LX_ARG_COUNT, 0},      {"T.arg_kind", LX_ARG_KIND, 1},
      {"T.arg_ndim", LX_ARG_NDIM, 1},        {"T.arg_dtype_code", LX_DT_CODE, 1},
      {"T.arg_dtype_bits", LX_DT_BITS, 1},   {"T.arg_dtype_lanes", LX_DT_LANES, 1},
      {"T.arg_device_type", LX_DEV_TYPE, 1}, {"T.arg_device_id", LX_DEV_ID, 1},
      {"T.arg_shape", LX_SHAPE, 2},          {"T.arg_stride", LX_STRIDE, 2},
      {"T.arg_byte_offset", LX_BYTE_OFF, 1}, {"T.arg_strides_compact", LX_COMPACT, 1},
      {"T.arg_aligned", LX_ALIGNED, 2},
  };
  const char *op = e->u.call.op;
  for (size_t i = 0; i < sizeof ACCESSORS / sizeof *ACCESSORS; i++) {
    if (strcmp(op, ACCESSORS[i].name) != 0) continue;
    if (e->u.call.kw.npos != (uint32_t)ACCESSORS[i].nargs) {
      fail(b, "%s takes %d arguments", op, ACCESSORS[i].nargs);
      return;
    }
    int a = ACCESSORS[i].nargs > 0 ? literal_index(b, e->ops[0], op) : 0;
    int bb = ACCESSORS[i].nargs > 1 ? literal_index(b, e->ops[1], op) : 0;
    emit(b, ACCESSORS[i].op, a, bb, (lx_val){0}, 1);
    return;
  }
  fail(b, "the launcher cannot evaluate %s", op);
}

static void compile_binary(lx_builder *b, const tx_expr *e) {
  tx_dtype ot = e->ops[0]->dtype;
  int fl = is_float_type(ot);
  compile_expr(b, e->ops[0]);
  compile_expr(b, e->ops[1]);
  lx_op op = LX_ADD;
  switch ((tx_expr_kind)e->kind) {
  case EXPR_ADD:
    op = fl ? LX_FADD : LX_ADD;
    break;
  case EXPR_SUB:
    op = fl ? LX_FSUB : LX_SUB;
    break;
  case EXPR_MUL:
    op = fl ? LX_FMUL : LX_MUL;
    break;
  case EXPR_DIV:
    op = fl ? LX_FDIV : LX_DIV;
    break;
  case EXPR_MOD:
    op = LX_MOD;
    break;
  case EXPR_FLOORDIV:
    op = fl ? LX_FDIV : LX_FLOORDIV;
    break;
  case EXPR_FLOORMOD:
    op = LX_FLOORMOD;
    break;
  case EXPR_MIN:
    op = fl ? LX_FMIN : LX_MIN;
    break;
  case EXPR_MAX:
    op = fl ? LX_FMAX : LX_MAX;
    break;
  case EXPR_EQ:
    op = fl ? LX_FEQ : LX_EQ;
    break;
  case EXPR_NE:
    op = fl ? LX_FNE : LX_NE;
    break;
  case EXPR_LT:
    op = fl ? LX_FLT : LX_LT;
    break;
  case EXPR_LE:
    op = fl ? LX_FLE : LX_LE;
    break;
  case EXPR_GT:
    op = fl ? LX_FGT : LX_GT;
    break;
  case EXPR_GE:
    op = fl ? LX_FGE : LX_GE;
    break;
  case EXPR_AND:
    op = LX_AND;
    break;
  case EXPR_OR:
    op = LX_OR;
    break;
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
    fail(b, "internal: not a binary expression");
    return;
  }
  if (fl && (op == LX_MOD || op == LX_FLOORMOD)) {
    fail(b, "the launcher cannot take a float remainder");
    return;
  }
  emit(b, op, 0, 0, (lx_val){0}, -1);
  if (!tx_expr_is_compare((tx_expr_kind)e->kind)) emit_wrap(b, e->dtype);
}

static void compile_expr(lx_builder *b, const tx_expr *e) {
  if (b->failed) return;
  if (e->dtype.lanes != 1) {
    fail(b, "the launcher evaluates scalars only");
    return;
  }
  switch ((tx_expr_kind)e->kind) {
  case EXPR_INT:
    emit(b, LX_CONST, 0, 0, (lx_val){.i = e->u.ival}, 1);
    return;
  case EXPR_FLOAT:
    emit(b, LX_FCONST, 0, 0, (lx_val){.f = e->u.fval}, 1);
    return;
  case EXPR_VAR: {
    int32_t s = find_slot(b->l, e);
    if (s < 0) {
      fail(b, "'%s' is read before it is bound", e->u.var.name);
      return;
    }
    emit(b, LX_LOAD, s, 0, (lx_val){0}, 1);
    return;
  }
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
    compile_binary(b, e);
    return;
  case EXPR_NOT:
    compile_expr(b, e->ops[0]);
    emit(b, LX_NOT, 0, 0, (lx_val){0}, 0);
    return;
  case EXPR_SELECT:
    compile_expr(b, e->ops[0]);
    compile_expr(b, e->ops[1]);
    compile_expr(b, e->ops[2]);
    emit(b, LX_SELECT, 0, 0, (lx_val){0}, -2);
    return;
  case EXPR_CAST: {
    tx_dtype from = e->ops[0]->dtype, to = e->dtype;
    compile_expr(b, e->ops[0]);
    if (is_float_type(to)) {
      if (!is_float_type(from)) emit(b, LX_I2F, 0, from.code == DT_INT, (lx_val){0}, 0);
      if (to.bits == 32) emit(b, LX_F32, 0, 0, (lx_val){0}, 0);
    } else if (tx_dtype_is_bool(to)) {
      if (is_float_type(from))
        emit(b, LX_FCONST, 0, 0, (lx_val){.f = 0}, 1), emit(b, LX_FNE, 0, 0, (lx_val){0}, -1);
      else
        emit(b, LX_CONST, 0, 0, (lx_val){.i = 0}, 1), emit(b, LX_NE, 0, 0, (lx_val){0}, -1);
    } else {
      if (is_float_type(from)) emit(b, LX_F2I, 0, 0, (lx_val){0}, 0);
      emit_wrap(b, to);
    }
    return;
  }
  case EXPR_CALL:
    compile_call(b, e);
    return;
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

static lx_range compile_range(lx_builder *b, const tx_expr *e) {
  lx_range r = {b->l->ncode, 0};
  b->depth = 0;
  compile_expr(b, e);
  r.end = b->l->ncode;
  return r;
}

static int is_call(const tx_expr *e, const char *name) {
  return e && e->kind == EXPR_CALL && strcmp(e->u.call.op, name) == 0;
}

static void compile_assert(lx_builder *b, const tx_stmt *s) {
  const tx_expr *cond = s->exprs[0], *msg = s->nexprs > 1 ? s->exprs[1] : NULL;
  lx_stmt *st = add_stmt(b, LS_CHECK);
  if (!st) return;
  st->expr = compile_range(b, cond);
  st->msg = msg && msg->kind == EXPR_STRING ? dup_n(b->l, msg->u.str.data, msg->u.str.len)
                                            : dup_n(b->l, "assertion failed", 16);
  if (!st->msg) fail_nomem(b);
  st->got = GOT_NONE;
  if (cond->kind == EXPR_EQ || cond->kind == EXPR_NE) {
    const tx_expr *lhs = cond->ops[0];
    if (is_call(lhs, "T.arg_dtype_code") || is_call(lhs, "T.arg_dtype_bits") ||
        is_call(lhs, "T.arg_dtype_lanes")) {
      st->got = GOT_DTYPE;
      st->arg = literal_index(b, lhs->ops[0], "dtype");
    } else if (is_call(lhs, "T.arg_kind")) {
      st->got = GOT_KIND;
      st->arg = literal_index(b, lhs->ops[0], "kind");
    } else {
      st->got = is_float_type(lhs->dtype) ? GOT_FLOAT : GOT_INT;
      st->lhs = compile_range(b, lhs);
    }
  } else if (is_call(cond, "T.arg_strides_compact")) {
    st->got = GOT_STRIDES;
    st->arg = literal_index(b, cond->ops[0], "strides");
  } else if (is_call(cond, "T.arg_aligned")) {
    st->got = GOT_POINTER;
    st->arg = literal_index(b, cond->ops[0], "aligned");
  }
}

static void compile_bind(lx_builder *b, const tx_expr *var, const tx_expr *value, int checked) {
  lx_stmt *st = add_stmt(b, LS_BIND);
  if (!st) return;
  st->expr = compile_range(b, value);
  st->dtype = var->dtype;
  st->range_checked = checked;
  st->var_name = var->u.var.name;
  st->slot = add_slot(b, var);
}

static void compile_launch(lx_builder *b, const tx_module *m, const tx_expr *call) {
  tx_launcher *l = b->l;
  uint32_t n = call->u.call.kw.npos;
  if (l->has_launch) {
    fail(b, "more than one T.call_packed");
    return;
  }
  if (n < 8 || call->ops[0]->kind != EXPR_STRING) {
    fail(b, "T.call_packed needs a kernel name and 7 launch values");
    return;
  }
  l->has_launch = 1;
  l->kernel = dup_n(l, call->ops[0]->u.str.data, call->ops[0]->u.str.len);
  if (!l->kernel) fail_nomem(b);
  l->nkparams = n - 8;
  if (l->nkparams > TX_LAUNCH_MAX_PARAMS) {
    fail(b, "the kernel has more than %d parameters", TX_LAUNCH_MAX_PARAMS);
    return;
  }
  l->kparams = tx_mem_calloc(l->alloc, l->nkparams ? l->nkparams : 1, sizeof *l->kparams);
  if (!l->kparams) {
    fail_nomem(b);
    return;
  }
  for (uint32_t i = 0; i < l->nkparams; i++) {
    const tx_expr *a = call->ops[1 + i];
    tx_dtype t = a->dtype;
    int ok =
        t.lanes == 1 && (t.code == DT_HANDLE || tx_dtype_is_bool(t) ||
                         (tx_dtype_is_int(t) && t.bits >= 8 && t.bits <= 64) ||
                         (t.code == DT_FLOAT && (t.bits == 16 || t.bits == 32 || t.bits == 64)) ||
                         (t.code == DT_BFLOAT && t.bits == 16));
    if (!ok) {
      char name[32];
      fail(b, "kernel parameter %u has type %s, which the launcher cannot pass", i,
           tx_dtype_str(t, name));
      return;
    }
    l->kparams[i].dtype = t;
    if (a->kind == EXPR_VAR && a->u.var.tensormap) {
      l->kparams[i].tensormap = 1;
      l->kparams[i].name = a->u.var.name;
      for (uint32_t mi = 0; mi < l->nmaps; mi++)
        if (b->map_vars[mi] == a && !b->map_encoded[mi]) {
          fail(b, "tensor map '%s' reaches the launch of %s before %s encodes it", a->u.var.name,
               l->kernel ? l->kernel : "the kernel", TX_TENSORMAP_ENCODE_NAME);
          return;
        }
    }
    l->kparams[i].expr = compile_range(b, a);
  }
  for (int d = 0; d < 7; d++)
    l->dims[d] = compile_range(b, call->ops[1 + l->nkparams + d]);
  /* The cluster shape is a kernel attribute, fixed at compile time. */
  for (uint32_t f = 0; f < m->nfuncs; f++) {
    const tx_func *k = m->funcs[f];
    if (!l->kernel || strcmp(k->name, l->kernel) != 0) continue;
    for (uint32_t a = 0; a < k->nattrs; a++) {
      const tx_expr *v = k->attr_values[a];
      if (strcmp(k->attr_keys[a], "tirx.cluster") != 0 || v->kind != EXPR_TUPLE) continue;
      for (uint32_t d = 0; d < v->nops && d < 3; d++)
        if (v->ops[d]->kind == EXPR_INT) l->cluster[d] = (uint32_t)v->ops[d]->u.ival;
    }
  }
}

/* A_map = T.tvm_stack_alloca("tensormap", 1): a map in the call's storage. */
static void compile_map_alloc(lx_builder *b, const tx_stmt *s) {
  tx_launcher *l = b->l;
  const tx_expr *var = s->vars[0], *count = NULL;
  tx_tensormap_is_alloca(s->exprs[0], &count);
  if (!count || count->kind != EXPR_INT || count->u.ival != 1) {
    fail(b, "T.tvm_stack_alloca(\"tensormap\", n) for '%s' needs n = 1", var->u.var.name);
    return;
  }
  if (l->nmaps >= TX_LAUNCH_MAX_TENSORMAPS) {
    fail(b, "more than %d tensor maps", TX_LAUNCH_MAX_TENSORMAPS);
    return;
  }
  lx_stmt *st = add_stmt(b, LS_MAP);
  if (!st) return;
  st->map = (int32_t)l->nmaps;
  st->var_name = var->u.var.name;
  st->slot = add_slot(b, var);
  b->map_vars[l->nmaps] = var;
  b->map_encoded[l->nmaps] = 0;
  l->nmaps++;
}

static void compile_encode(lx_builder *b, const tx_expr *call) {
  tx_tensormap_encode enc;
  char why[384];
  if (!tx_tensormap_encode_parse(call, &enc, NULL, why, sizeof why)) {
    fail(b, "%s", why);
    return;
  }
  int32_t slot = find_slot(b->l, enc.map);
  if (slot < 0) {
    fail(b, "tensor map '%s' is encoded before it is bound", enc.map->u.var.name);
    return;
  }
  lx_stmt *st = add_stmt(b, LS_ENCODE);
  lx_encode *e = st ? tx_mem_calloc(b->l->alloc, 1, sizeof *e) : NULL;
  if (!e) {
    fail_nomem(b);
    return;
  }
  st->enc = e;
  st->var_name = enc.map->u.var.name;
  e->map_slot = slot;
  e->cu_dtype = enc.cu_dtype;
  e->elem_bits = enc.elem_bits;
  e->rank = enc.rank;
  e->addr = compile_range(b, enc.addr);
  for (int i = 0; i < enc.rank; i++) {
    e->dims[i] = compile_range(b, enc.dims[i]);
    e->box[i] = compile_range(b, enc.box[i]);
    e->elem_strides[i] = compile_range(b, enc.elem_strides[i]);
    if (i + 1 < enc.rank) e->strides[i] = compile_range(b, enc.strides[i]);
  }
  e->interleave = compile_range(b, enc.interleave);
  e->swizzle = compile_range(b, enc.swizzle);
  e->l2_promotion = compile_range(b, enc.l2_promotion);
  e->oob_fill = compile_range(b, enc.oob_fill);
  e->has_force = enc.force_dtype != NULL;
  if (enc.force_dtype) e->force_dtype = compile_range(b, enc.force_dtype);
  for (uint32_t m = 0; m < b->l->nmaps; m++)
    if (b->map_vars[m] == enc.map) b->map_encoded[m] = 1;
}

static void compile_stmt(lx_builder *b, const tx_module *m, const tx_stmt *s) {
  if (b->failed) return;
  if (b->l->has_launch) {
    fail(b, "statements after T.call_packed");
    return;
  }
  switch ((tx_stmt_kind)s->kind) {
  case STMT_SEQ:
    for (uint32_t i = 0; i < s->nstmts; i++)
      compile_stmt(b, m, s->stmts[i]);
    return;
  case STMT_ASSERT:
    compile_assert(b, s);
    return;
  case STMT_BIND:
    if (s->nvars == 1 && s->nexprs >= 1 && s->exprs[0] &&
        tx_tensormap_is_alloca(s->exprs[0], NULL)) {
      compile_map_alloc(b, s);
      return;
    }
    if (s->nvars == 1 && s->nexprs >= 1 && s->exprs[0]) {
      compile_bind(b, s->vars[0], s->exprs[0], 0);
      return;
    }
    break;
  case STMT_DECL:
    /* A = T.match_buffer(A_ptr, ...): A.data is the handle parameter. */
    if (s->buffer && s->buffer->form == BUF_MATCH && s->buffer->origin) {
      compile_bind(b, s->buffer->data, s->buffer->origin, 0);
      return;
    }
    break;
  case STMT_EVAL: {
    const tx_expr *e = s->exprs[0];
    if (is_call(e, "T.arg_bind") && e->u.call.kw.npos == 2 && e->ops[0]->kind == EXPR_VAR) {
      compile_bind(b, e->ops[0], e->ops[1], 1);
      return;
    }
    if (tx_tensormap_is_encode(e)) {
      compile_encode(b, e);
      return;
    }
    if (is_call(e, "T.call_packed") && e->nops >= 1 && e->ops[0]->kind == EXPR_STRING &&
        strncmp(e->ops[0]->u.str.data, "runtime.", 8) == 0) {
      /* TVM's runtime services: only the tensor-map encoder is provided. */
      fail(b,
           "the launcher does not provide the packed function %s (of TVM's runtime "
           "services, only %s)",
           e->ops[0]->u.str.data, TX_TENSORMAP_ENCODE_NAME);
      return;
    }
    if (is_call(e, "T.call_packed")) {
      compile_launch(b, m, e);
      return;
    }
    break;
  }
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

void tx_launcher_free(tx_launcher *l) {
  if (!l) return;
  const tirx_allocator *a = l->alloc;
  for (uint32_t i = 0; i < l->nstmts; i++) {
    tx_mem_free(a, l->stmts[i].msg);
    tx_mem_free(a, l->stmts[i].enc);
  }
  tx_mem_free(a, l->stmts);
  tx_mem_free(a, l->code);
  tx_mem_free(a, l->params);
  tx_mem_free(a, l->kparams);
  tx_mem_free(a, (void *)l->slots);
  tx_mem_free(a, l->kernel);
  tx_mem_free(a, l->func_name);
  tx_mem_free(a, l);
}

static int attr_is_packed(const tx_func *f) {
  for (uint32_t a = 0; a < f->nattrs; a++)
    if (strcmp(f->attr_keys[a], "tirx.packed_api") == 0) return 1;
  return 0;
}

tirx_status tx_launcher_build(const tirx_allocator *alloc, const tx_module *lowered,
                              const tx_func *f, tx_launcher **out, char *why, size_t cap) {
  *out = NULL;
  tx_launcher *l = tx_mem_calloc(alloc, 1, sizeof *l);
  if (!l) return TIRX_ERR_NOMEM;
  l->alloc = alloc;
  lx_builder b = {.l = l, .why = why, .cap = cap};
  l->func_name = dup_n(l, f->name, strlen(f->name));
  if (!l->func_name) fail_nomem(&b);
  if (!attr_is_packed(f)) fail(&b, "'%s' is not a packed (host) function", f->name);
  l->params = tx_mem_calloc(l->alloc, f->nparams ? f->nparams : 1, sizeof *l->params);
  if (!l->params) fail_nomem(&b);
  for (uint32_t i = 0; !b.failed && i < f->nparams; i++) {
    const tx_buffer *buf = f->param_bufs ? f->param_bufs[i] : NULL;
    const tx_expr *var = buf ? buf->data : f->params[i];
    lx_param *p = &l->params[l->nparams++];
    p->arg = (int32_t)i;
    p->slot = add_slot(&b, var);
    /* A handle matched by T.match_buffer receives a tensor too. */
    p->tensor = buf != NULL || f->params[i]->dtype.code == DT_HANDLE;
    p->dtype = f->params[i]->dtype;
  }
  if (!b.failed && f->body) compile_stmt(&b, lowered, f->body);
  if (!b.failed && !l->has_launch)
    fail(&b, "'%s' launches no kernel (a host-only function)", f->name);
  /* Every expression starts from an empty stack, so the deepest one bounds
   * the stack the interpreter needs. */
  l->max_stack = b.max_depth;
  if (!b.failed && l->max_stack > 64) fail(&b, "expressions too deep for the launcher");
  if (b.failed) {
    tx_launcher_free(l);
    return b.nomem ? TIRX_ERR_NOMEM : TIRX_ERR_INPUT;
  }
  *out = l;
  return TIRX_OK;
}

const char *tx_launcher_kernel(const tx_launcher *l) {
  return l->kernel;
}

void tx_launcher_cluster(const tx_launcher *l, uint32_t cluster[3]) {
  memcpy(cluster, l->cluster, sizeof l->cluster);
}

/* ---- running -------------------------------------------------------------- */

typedef struct lx_run {
  const tirx_arg *args;
  size_t n;
  lx_val *slots;
} lx_run;

static const DLTensor *tensor_of(const lx_run *r, int32_t i) {
  if (i < 0 || (size_t)i >= r->n || r->args[i].kind != TIRX_ARG_TENSOR) return NULL;
  return r->args[i].v.tensor;
}

static int64_t shape_at(const DLTensor *t, int32_t d) {
  return t && d >= 0 && d < t->ndim && t->shape ? t->shape[d] : 0;
}

static int64_t stride_at(const DLTensor *t, int32_t d) {
  if (!t || d < 0 || d >= t->ndim) return 0;
  if (t->strides) return t->strides[d];
  int64_t s = 1;
  for (int32_t k = t->ndim - 1; k > d; k--)
    s *= t->shape[k];
  return s;
}

static int64_t floordiv(int64_t a, int64_t b) {
  if (b == 0) return 0; /* the generated code would fault; a check fails instead */
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t floormod(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t m = a % b;
  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

static int64_t wrap(int64_t v, int bits, int is_signed) {
  uint64_t mask = (UINT64_C(1) << bits) - 1;
  uint64_t u = (uint64_t)v & mask;
  if (is_signed && (u >> (bits - 1)) & 1) u |= ~mask;
  return (int64_t)u;
}

static lx_val eval(const tx_launcher *l, lx_range rg, const lx_run *r) {
  lx_val st[64];
  int sp = 0;
  for (uint32_t pc = rg.begin; pc < rg.end; pc++) {
    const lx_ins *in = &l->code[pc];
    const DLTensor *t;
    switch ((lx_op)in->op) {
    case LX_CONST:
    case LX_FCONST:
      st[sp++] = in->imm;
      break;
    case LX_LOAD:
      st[sp++] = r->slots[in->a];
      break;
    case LX_ARG_COUNT:
      st[sp++].i = (int64_t)r->n;
      break;
    case LX_ARG_KIND:
      st[sp++].i = (size_t)in->a < r->n ? (int64_t)r->args[in->a].kind : -1;
      break;
    case LX_ARG_NDIM:
      t = tensor_of(r, in->a), st[sp++].i = t ? t->ndim : -1;
      break;
    case LX_DT_CODE:
      t = tensor_of(r, in->a), st[sp++].i = t ? t->dtype.code : -1;
      break;
    case LX_DT_BITS:
      t = tensor_of(r, in->a), st[sp++].i = t ? t->dtype.bits : -1;
      break;
    case LX_DT_LANES:
      t = tensor_of(r, in->a), st[sp++].i = t ? t->dtype.lanes : -1;
      break;
    case LX_DEV_TYPE:
      t = tensor_of(r, in->a), st[sp++].i = t ? (int64_t)t->device.device_type : -1;
      break;
    case LX_DEV_ID:
      t = tensor_of(r, in->a), st[sp++].i = t ? t->device.device_id : -1;
      break;
    case LX_SHAPE:
      st[sp++].i = shape_at(tensor_of(r, in->a), in->b);
      break;
    case LX_STRIDE:
      st[sp++].i = stride_at(tensor_of(r, in->a), in->b);
      break;
    case LX_BYTE_OFF:
      t = tensor_of(r, in->a), st[sp++].i = t ? (int64_t)t->byte_offset : 0;
      break;
    case LX_COMPACT:
      t = tensor_of(r, in->a), st[sp++].i = t && tx_dl_is_compact(t);
      break;
    case LX_ALIGNED:
      t = tensor_of(r, in->a);
      st[sp++].i = t && in->b > 0 && (uintptr_t)t->data % (uintptr_t)in->b == 0;
      break;
#define BIN(OP, EXPR)                                                                              \
  case OP:                                                                                         \
    sp--;                                                                                          \
    EXPR;                                                                                          \
    break;
      BIN(LX_ADD, st[sp - 1].i = (int64_t)((uint64_t)st[sp - 1].i + (uint64_t)st[sp].i))
      BIN(LX_SUB, st[sp - 1].i = (int64_t)((uint64_t)st[sp - 1].i - (uint64_t)st[sp].i))
      BIN(LX_MUL, st[sp - 1].i = (int64_t)((uint64_t)st[sp - 1].i * (uint64_t)st[sp].i))
      BIN(LX_DIV, st[sp - 1].i = st[sp].i && !(st[sp].i == -1 && st[sp - 1].i == INT64_MIN)
                                     ? st[sp - 1].i / st[sp].i
                                     : 0)
      BIN(LX_MOD, st[sp - 1].i = st[sp].i && st[sp].i != -1 ? st[sp - 1].i % st[sp].i : 0)
      BIN(LX_FLOORDIV, st[sp - 1].i = st[sp].i == -1 ? (int64_t)(0 - (uint64_t)st[sp - 1].i)
                                                     : floordiv(st[sp - 1].i, st[sp].i))
      BIN(LX_FLOORMOD, st[sp - 1].i = st[sp].i == -1 ? 0 : floormod(st[sp - 1].i, st[sp].i))
      BIN(LX_MIN, st[sp - 1].i = st[sp - 1].i < st[sp].i ? st[sp - 1].i : st[sp].i)
      BIN(LX_MAX, st[sp - 1].i = st[sp - 1].i > st[sp].i ? st[sp - 1].i : st[sp].i)
      BIN(LX_FADD, st[sp - 1].f += st[sp].f)
      BIN(LX_FSUB, st[sp - 1].f -= st[sp].f)
      BIN(LX_FMUL, st[sp - 1].f *= st[sp].f)
      BIN(LX_FDIV, st[sp - 1].f /= st[sp].f)
      BIN(LX_FMIN, st[sp - 1].f = st[sp - 1].f < st[sp].f ? st[sp - 1].f : st[sp].f)
      BIN(LX_FMAX, st[sp - 1].f = st[sp - 1].f > st[sp].f ? st[sp - 1].f : st[sp].f)
      BIN(LX_EQ, st[sp - 1].i = st[sp - 1].i == st[sp].i)
      BIN(LX_NE, st[sp - 1].i = st[sp - 1].i != st[sp].i)
      BIN(LX_LT, st[sp - 1].i = st[sp - 1].i < st[sp].i)
      BIN(LX_LE, st[sp - 1].i = st[sp - 1].i <= st[sp].i)
      BIN(LX_GT, st[sp - 1].i = st[sp - 1].i > st[sp].i)
      BIN(LX_GE, st[sp - 1].i = st[sp - 1].i >= st[sp].i)
      BIN(LX_FEQ, st[sp - 1].i = st[sp - 1].f == st[sp].f)
      BIN(LX_FNE, st[sp - 1].i = st[sp - 1].f != st[sp].f)
      BIN(LX_FLT, st[sp - 1].i = st[sp - 1].f < st[sp].f)
      BIN(LX_FLE, st[sp - 1].i = st[sp - 1].f <= st[sp].f)
      BIN(LX_FGT, st[sp - 1].i = st[sp - 1].f > st[sp].f)
      BIN(LX_FGE, st[sp - 1].i = st[sp - 1].f >= st[sp].f)
      BIN(LX_AND, st[sp - 1].i = st[sp - 1].i && st[sp].i)
      BIN(LX_OR, st[sp - 1].i = st[sp - 1].i || st[sp].i)
#undef BIN
    case LX_NOT:
      st[sp - 1].i = !st[sp - 1].i;
      break;
    case LX_SELECT:
      sp -= 2;
      st[sp - 1] = st[sp - 1].i ? st[sp] : st[sp + 1];
      break;
    case LX_WRAP:
      st[sp - 1].i = wrap(st[sp - 1].i, in->a, in->b);
      break;
    case LX_I2F:
      st[sp - 1].f = in->b ? (double)st[sp - 1].i : (double)(uint64_t)st[sp - 1].i;
      break;
    case LX_F2I:
      st[sp - 1].i = (int64_t)st[sp - 1].f;
      break;
    case LX_F32:
      st[sp - 1].f = (double)(float)st[sp - 1].f;
      break;
    }
  }
  return sp > 0 ? st[sp - 1] : (lx_val){0};
}

static const char *kind_name(const lx_run *r, int32_t i) {
  if (i < 0 || (size_t)i >= r->n) return "nothing";
  switch (r->args[i].kind) {
  case TIRX_ARG_INT:
    return "an int";
  case TIRX_ARG_FLOAT:
    return "a float";
  case TIRX_ARG_HANDLE:
    return "a handle";
  case TIRX_ARG_TENSOR:
    return "a tensor";
  }
  return "an unknown kind";
}

/* Append ", got ..." to the check's static message. */
static void report(const tx_launcher *l, const lx_stmt *s, const lx_run *r, char *msg, size_t cap) {
  int n = snprintf(msg, cap, "%s", s->msg);
  if (n < 0 || (size_t)n >= cap) return;
  char *p = msg + n;
  size_t left = cap - (size_t)n;
  const DLTensor *t = tensor_of(r, s->arg);
  char name[32];
  switch (s->got) {
  case GOT_NONE:
    return;
  case GOT_INT:
    snprintf(p, left, ", got %" PRId64, eval(l, s->lhs, r).i);
    return;
  case GOT_FLOAT:
    snprintf(p, left, ", got %g", eval(l, s->lhs, r).f);
    return;
  case GOT_DTYPE:
    if (t) snprintf(p, left, ", got %s", tx_dl_dtype_str(t->dtype, name));
    return;
  case GOT_KIND:
    snprintf(p, left, ", got %s", kind_name(r, s->arg));
    return;
  case GOT_STRIDES:
    if (t && t->strides) {
      size_t k = (size_t)snprintf(p, left, ", got strides (");
      for (int32_t d = 0; d < t->ndim && k < left; d++)
        k += (size_t)snprintf(p + k, left - k, "%s%" PRId64, d ? ", " : "", t->strides[d]);
      if (k < left) snprintf(p + k, left - k, ")");
    }
    return;
  case GOT_POINTER:
    if (t) snprintf(p, left, ", got address %p", t->data);
    return;
  }
}

static int fits(int64_t v, tx_dtype t) {
  if (!tx_dtype_is_int(t) || t.bits >= 64) return 1;
  return wrap(v, t.bits, t.code == DT_INT) == v;
}

/* Evaluate one encode call, apply TVM's host checks and hand it to `encode`. */
static tirx_status run_encode(const tx_launcher *l, const lx_stmt *s, const lx_run *r,
                              tx_launch_encode_fn encode, void *user, char *msg, size_t cap) {
  const lx_encode *e = s->enc;
  tx_tensormap_values v = {0};
  v.cu_dtype = e->cu_dtype;
  v.elem_bits = e->elem_bits;
  v.rank = (uint32_t)e->rank;
  v.addr = (uint64_t)eval(l, e->addr, r).i;
  for (int i = 0; i < e->rank; i++) {
    v.dims[i] = eval(l, e->dims[i], r).i;
    v.box[i] = eval(l, e->box[i], r).i;
    v.elem_strides[i] = eval(l, e->elem_strides[i], r).i;
    if (i + 1 < e->rank) v.strides[i] = eval(l, e->strides[i], r).i;
  }
  v.interleave = eval(l, e->interleave, r).i;
  v.swizzle = eval(l, e->swizzle, r).i;
  v.l2_promotion = eval(l, e->l2_promotion, r).i;
  v.oob_fill = eval(l, e->oob_fill, r).i;
  v.has_force = e->has_force;
  if (e->has_force) v.force_dtype = eval(l, e->force_dtype, r).i;
  char why[256];
  if (!tx_tensormap_rules(&v, why, sizeof why)) {
    snprintf(msg, cap, "%s: %s for '%s': %s", l->func_name, TX_TENSORMAP_ENCODE_NAME, s->var_name,
             why);
    return TIRX_ERR_USAGE;
  }
  void *map = (void *)(uintptr_t)r->slots[e->map_slot].i;
  if (!map || (uintptr_t)map % TX_TENSORMAP_ALIGN) {
    snprintf(msg, cap, "%s: %s for '%s': the tensor map at %p is not 64-byte aligned", l->func_name,
             TX_TENSORMAP_ENCODE_NAME, s->var_name, map);
    return TIRX_ERR_USAGE;
  }
  if (!encode) return TIRX_OK;
  tirx_status st = encode(user, &v, map, why, sizeof why);
  if (st != TIRX_OK)
    snprintf(msg, cap, "%s: encoding tensor map '%s': %s", l->func_name, s->var_name, why);
  return st;
}

tirx_status tx_launcher_run(const tx_launcher *l, const tirx_arg *args, size_t n,
                            tx_launch_values *out, tx_launch_encode_fn encode, void *encode_user,
                            char *msg, size_t cap) {
  lx_val slots[256];
  lx_val *sv = slots;
  lx_val *heap = NULL;
  if (l->nslots > sizeof slots / sizeof *slots) {
    heap = tx_mem_alloc(l->alloc, l->nslots * sizeof *heap);
    if (!heap) {
      snprintf(msg, cap, "%s: out of memory", l->func_name);
      return TIRX_ERR_NOMEM;
    }
    sv = heap;
  }
  lx_run r = {args, n, sv};
  /* Parameters first, guarded by kind: a wrong kind leaves 0 and the kind
   * checks below report it. */
  for (uint32_t i = 0; i < l->nparams; i++) {
    const lx_param *p = &l->params[i];
    lx_val v = {0};
    if ((size_t)p->arg < n) {
      const tirx_arg *a = &args[p->arg];
      if (p->tensor && a->kind == TIRX_ARG_TENSOR && a->v.tensor)
        v.i = (int64_t)(uintptr_t)a->v.tensor->data;
      else if (a->kind == TIRX_ARG_HANDLE)
        v.i = (int64_t)(uintptr_t)a->v.handle;
      else if (!p->tensor && a->kind == TIRX_ARG_INT && !is_float_type(p->dtype))
        v.i = tx_dtype_is_bool(p->dtype)
                  ? a->v.i != 0
                  : (p->dtype.bits < 64 ? wrap(a->v.i, p->dtype.bits, p->dtype.code == DT_INT)
                                        : a->v.i);
      else if (!p->tensor && a->kind == TIRX_ARG_FLOAT && is_float_type(p->dtype))
        v.f = p->dtype.bits == 32 ? (double)(float)a->v.f : a->v.f;
    }
    sv[p->slot] = v;
  }
  tirx_status st = TIRX_OK;
  for (uint32_t i = 0; i < l->nstmts && st == TIRX_OK; i++) {
    const lx_stmt *s = &l->stmts[i];
    switch (s->kind) {
    case LS_CHECK:
      if (!eval(l, s->expr, &r).i) {
        report(l, s, &r, msg, cap);
        st = TIRX_ERR_USAGE;
      }
      break;
    case LS_BIND: {
      lx_val v = eval(l, s->expr, &r);
      if (s->range_checked && !fits(v.i, s->dtype)) {
        char name[32];
        snprintf(msg, cap, "%s: symbolic variable '%s' = %" PRId64 " does not fit in %s",
                 l->func_name, s->var_name, v.i, tx_dtype_str(s->dtype, name));
        st = TIRX_ERR_USAGE;
        break;
      }
      if (tx_dtype_is_int(s->dtype) && s->dtype.bits < 64 && !is_float_type(s->dtype))
        v.i = wrap(v.i, s->dtype.bits, s->dtype.code == DT_INT);
      sv[s->slot] = v;
      break;
    }
    case LS_MAP:
      sv[s->slot].i = (int64_t)(uintptr_t)out->maps[s->map];
      break;
    case LS_ENCODE:
      st = run_encode(l, s, &r, encode, encode_user, msg, cap);
      break;
    case LS_LAUNCH:
      break;
    }
  }
  if (st == TIRX_OK) {
    uint32_t dims[7];
    for (int d = 0; d < 7; d++) {
      int64_t v = eval(l, l->dims[d], &r).i;
      if (v < 0 || v > UINT32_MAX) {
        snprintf(msg, cap, "%s: launch dimension %d = %" PRId64 " is out of range", l->func_name, d,
                 v);
        st = TIRX_ERR_USAGE;
        break;
      }
      dims[d] = (uint32_t)v;
    }
    if (st == TIRX_OK) {
      memcpy(out->grid, dims, sizeof out->grid);
      memcpy(out->block, dims + 3, sizeof out->block);
      out->dyn_shared_bytes = dims[6];
      out->nparams = l->nkparams;
      for (uint32_t k = 0; k < l->nkparams && st == TIRX_OK; k++) {
        const lx_kparam *kp = &l->kparams[k];
        lx_val v = eval(l, kp->expr, &r);
        if (kp->tensormap) {
          /* cuLaunchKernelEx copies the parameter's 128 bytes from here. */
          out->params[k] = (void *)(uintptr_t)v.i;
          if (!out->params[k]) {
            snprintf(msg, cap, "%s: tensor map '%s' is NULL", l->func_name,
                     kp->name ? kp->name : "?");
            st = TIRX_ERR_USAGE;
          }
          continue;
        }
        uint64_t *slot = &out->storage[k];
        *slot = 0;
        tx_dtype t = kp->dtype;
        if (t.code == DT_FLOAT && t.bits == 32) {
          float f = (float)v.f;
          memcpy(slot, &f, sizeof f);
        } else if (t.code == DT_FLOAT && t.bits == 16) {
          uint16_t h = tx_dl_f32_to_f16((float)v.f);
          memcpy(slot, &h, sizeof h);
        } else if (t.code == DT_BFLOAT) {
          uint16_t h = tx_dl_f32_to_bf16((float)v.f);
          memcpy(slot, &h, sizeof h);
        } else if (t.code == DT_FLOAT) {
          memcpy(slot, &v.f, sizeof v.f);
        } else {
          /* Little-endian: the low bytes of the int64 are the narrower value. */
          memcpy(slot, &v.i, sizeof v.i);
        }
        out->params[k] = slot;
      }
    }
  }
  tx_mem_free(l->alloc, heap);
  return st;
}
