/*
 * launch_run.c - the launch program interpreter (launch_run.h).
 *
 * Programs come verified (tx_lp_read, or built by the compiler): ranges,
 * slots and stack depths are in bounds, so eval() checks nothing but what
 * depends on the arguments (which argument is a tensor, which dimension
 * exists). Why postfix code and not the IR: a call must cost well under a
 * microsecond, and the IR's pointer chasing and string-compared call names
 * would dominate that; everything string-y was resolved at compile time.
 * Must not include the compiler's headers: this is libtirx_rt.
 */
#include "runtime/launch_run.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "support/mem.h"
#include "runtime/tensor.h"

typedef tx_lp_val lp_val;

typedef struct lp_call {
  const tx_lp_func *f;
  const tirx_arg *args;
  size_t n;
  lp_val *slots;
  /* The call's tensor maps (T.tvm_stack_alloca("tensormap", 1) on the
   * host), passed to kernels by value: cuLaunchKernelEx copies them. */
  _Alignas(
      TX_TENSORMAP_HOST_ALIGN) unsigned char maps[TX_MAX_KERNEL_TENSORMAPS][TX_TENSORMAP_BYTES];
} lp_call;

static const DLTensor *tensor_of(const lp_call *c, int32_t i) {
  if (i < 0 || (size_t)i >= c->n || c->args[i].kind != TIRX_ARG_TENSOR) return NULL;
  return c->args[i].v.tensor;
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
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t floormod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t m = a % b;
  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

static int64_t wrap(int64_t v, int bits, int is_signed) {
  uint64_t mask = (UINT64_C(1) << bits) - 1;
  uint64_t u = (uint64_t)v & mask;
  if (is_signed && (u >> (bits - 1)) & 1) u |= ~mask;
  return (int64_t)u;
}

static lp_val eval(const lp_call *c, tx_lp_range rg) {
  lp_val st[TX_LP_MAX_STACK];
  int sp = 0;
  for (uint32_t pc = rg.begin; pc < rg.end; pc++) {
    const tx_lp_ins *in = &c->f->code[pc];
    switch ((tx_lp_op)in->op) {
    case TX_LP_CONST:
    case TX_LP_FCONST:
      st[sp++] = in->imm;
      break;
    case TX_LP_LOAD:
      st[sp++] = c->slots[in->a];
      break;
    case TX_LP_ARG_COUNT:
      st[sp++].i = (int64_t)c->n;
      break;
    case TX_LP_ARG_KIND:
      st[sp++].i = in->a >= 0 && (size_t)in->a < c->n ? (int64_t)c->args[in->a].kind : -1;
      break;
#define FIELD(OP, EXPR, NONE)                                                                      \
  case OP: {                                                                                       \
    const DLTensor *t = tensor_of(c, in->a);                                                       \
    st[sp++].i = t ? (int64_t)(EXPR) : (NONE);                                                     \
    break;                                                                                         \
  }
      FIELD(TX_LP_ARG_NDIM, t->ndim, -1)
      FIELD(TX_LP_DT_CODE, t->dtype.code, -1)
      FIELD(TX_LP_DT_BITS, t->dtype.bits, -1)
      FIELD(TX_LP_DT_LANES, t->dtype.lanes, -1)
      FIELD(TX_LP_DEV_TYPE, t->device.device_type, -1)
      FIELD(TX_LP_DEV_ID, t->device.device_id, -1)
      FIELD(TX_LP_BYTE_OFF, t->byte_offset, 0)
#undef FIELD
    case TX_LP_SHAPE:
      st[sp++].i = shape_at(tensor_of(c, in->a), in->b);
      break;
    case TX_LP_STRIDE:
      st[sp++].i = stride_at(tensor_of(c, in->a), in->b);
      break;
    case TX_LP_COMPACT: {
      const DLTensor *t = tensor_of(c, in->a);
      st[sp++].i = t && tx_dl_is_compact(t);
      break;
    }
    case TX_LP_ALIGNED: {
      const DLTensor *t = tensor_of(c, in->a);
      st[sp++].i = t && in->b > 0 && (uintptr_t)t->data % (uintptr_t)in->b == 0;
      break;
    }
#define BIN(OP, EXPR)                                                                              \
  case OP:                                                                                         \
    sp--;                                                                                          \
    EXPR;                                                                                          \
    break;
      BIN(TX_LP_ADD, st[sp - 1].i = (int64_t)((uint64_t)st[sp - 1].i + (uint64_t)st[sp].i))
      BIN(TX_LP_SUB, st[sp - 1].i = (int64_t)((uint64_t)st[sp - 1].i - (uint64_t)st[sp].i))
      BIN(TX_LP_MUL, st[sp - 1].i = (int64_t)((uint64_t)st[sp - 1].i * (uint64_t)st[sp].i))
      BIN(TX_LP_DIV, st[sp - 1].i = st[sp].i && !(st[sp].i == -1 && st[sp - 1].i == INT64_MIN)
                                        ? st[sp - 1].i / st[sp].i
                                        : 0)
      BIN(TX_LP_MOD, st[sp - 1].i = st[sp].i && st[sp].i != -1 ? st[sp - 1].i % st[sp].i : 0)
      BIN(TX_LP_FLOORDIV, st[sp - 1].i = floordiv(st[sp - 1].i, st[sp].i))
      BIN(TX_LP_FLOORMOD, st[sp - 1].i = floormod(st[sp - 1].i, st[sp].i))
      BIN(TX_LP_MIN, st[sp - 1].i = st[sp - 1].i < st[sp].i ? st[sp - 1].i : st[sp].i)
      BIN(TX_LP_MAX, st[sp - 1].i = st[sp - 1].i > st[sp].i ? st[sp - 1].i : st[sp].i)
      BIN(TX_LP_FADD, st[sp - 1].f += st[sp].f)
      BIN(TX_LP_FSUB, st[sp - 1].f -= st[sp].f)
      BIN(TX_LP_FMUL, st[sp - 1].f *= st[sp].f)
      BIN(TX_LP_FDIV, st[sp - 1].f /= st[sp].f)
      BIN(TX_LP_FMIN, st[sp - 1].f = st[sp - 1].f < st[sp].f ? st[sp - 1].f : st[sp].f)
      BIN(TX_LP_FMAX, st[sp - 1].f = st[sp - 1].f > st[sp].f ? st[sp - 1].f : st[sp].f)
      BIN(TX_LP_EQ, st[sp - 1].i = st[sp - 1].i == st[sp].i)
      BIN(TX_LP_NE, st[sp - 1].i = st[sp - 1].i != st[sp].i)
      BIN(TX_LP_LT, st[sp - 1].i = st[sp - 1].i < st[sp].i)
      BIN(TX_LP_LE, st[sp - 1].i = st[sp - 1].i <= st[sp].i)
      BIN(TX_LP_GT, st[sp - 1].i = st[sp - 1].i > st[sp].i)
      BIN(TX_LP_GE, st[sp - 1].i = st[sp - 1].i >= st[sp].i)
      BIN(TX_LP_FEQ, st[sp - 1].i = st[sp - 1].f == st[sp].f)
      BIN(TX_LP_FNE, st[sp - 1].i = st[sp - 1].f != st[sp].f)
      BIN(TX_LP_FLT, st[sp - 1].i = st[sp - 1].f < st[sp].f)
      BIN(TX_LP_FLE, st[sp - 1].i = st[sp - 1].f <= st[sp].f)
      BIN(TX_LP_FGT, st[sp - 1].i = st[sp - 1].f > st[sp].f)
      BIN(TX_LP_FGE, st[sp - 1].i = st[sp - 1].f >= st[sp].f)
      BIN(TX_LP_AND, st[sp - 1].i = st[sp - 1].i && st[sp].i)
      BIN(TX_LP_OR, st[sp - 1].i = st[sp - 1].i || st[sp].i)
#undef BIN
    case TX_LP_NOT:
      st[sp - 1].i = !st[sp - 1].i;
      break;
    case TX_LP_SELECT:
      sp -= 2;
      st[sp - 1] = st[sp - 1].i ? st[sp] : st[sp + 1];
      break;
    case TX_LP_WRAP:
      st[sp - 1].i = wrap(st[sp - 1].i, in->a, in->b);
      break;
    case TX_LP_I2F:
      st[sp - 1].f = in->b ? (double)st[sp - 1].i : (double)(uint64_t)st[sp - 1].i;
      break;
    case TX_LP_F2I:
      st[sp - 1].i = (int64_t)st[sp - 1].f;
      break;
    case TX_LP_F32:
      st[sp - 1].f = (double)(float)st[sp - 1].f;
      break;
    case TX_LP_OP_COUNT:
      break; /* the verifier refused it */
    }
  }
  return st[sp - 1];
}

static const char *kind_name(const lp_call *c, int32_t i) {
  if (i < 0 || (size_t)i >= c->n) return "nothing";
  const char *k = tx_arg_kind_phrase(c->args[i].kind);
  return k[0] == '?' ? "an unknown kind" : k;
}

/* The check's message with ", got ..." appended. */
static void report(const lp_call *c, const tx_lp_stmt *s, char *msg, size_t cap) {
  int n = snprintf(msg, cap, "%s", s->msg);
  if (n < 0 || (size_t)n >= cap) return;
  char *p = msg + n;
  size_t left = cap - (size_t)n;
  const DLTensor *t = tensor_of(c, s->arg);
  char name[32];
  switch ((tx_lp_got)s->got) {
  case TX_LP_GOT_NONE:
  case TX_LP_GOT_COUNT:
    return;
  case TX_LP_GOT_INT:
    snprintf(p, left, ", got %" PRId64, eval(c, s->lhs).i);
    return;
  case TX_LP_GOT_FLOAT:
    snprintf(p, left, ", got %g", eval(c, s->lhs).f);
    return;
  case TX_LP_GOT_DTYPE:
    if (t) snprintf(p, left, ", got %s", tx_dl_dtype_str(t->dtype, name));
    return;
  case TX_LP_GOT_KIND:
    snprintf(p, left, ", got %s", kind_name(c, s->arg));
    return;
  case TX_LP_GOT_STRIDES:
    if (t && t->strides) {
      size_t k = (size_t)snprintf(p, left, ", got strides (");
      for (int32_t d = 0; d < t->ndim && k < left; d++)
        k += (size_t)snprintf(p + k, left - k, "%s%" PRId64, d ? ", " : "", t->strides[d]);
      if (k < left) snprintf(p + k, left - k, ")");
    }
    return;
  case TX_LP_GOT_POINTER:
    if (t) snprintf(p, left, ", got address %p", t->data);
    return;
  }
}

static int is_float(tx_dtype t) {
  return tx_dtype_is_float(t);
}

static int fits(int64_t v, tx_dtype t) {
  if (!tx_dtype_is_int(t) || t.bits >= 64) return 1;
  return wrap(v, t.bits, t.code == DT_INT) == v;
}

/* Evaluate one encode call, apply TVM's host checks and hand it on. */
static tirx_status run_encode(const lp_call *c, const tx_lp_stmt *s, const tx_lp_hooks *h,
                              char *msg, size_t cap) {
  const tx_lp_encode *e = &c->f->encodes[s->index];
  const char *fn = c->f->name, *var = s->name ? s->name : "?";
  tx_tensormap_values v = {0};
  v.cu_dtype = e->cu_dtype;
  v.elem_bits = e->elem_bits;
  v.rank = (uint32_t)e->rank;
  v.addr = (uint64_t)eval(c, e->addr).i;
  for (int i = 0; i < e->rank; i++) {
    v.dims[i] = eval(c, e->dims[i]).i;
    v.box[i] = eval(c, e->box[i]).i;
    v.elem_strides[i] = eval(c, e->elem_strides[i]).i;
    if (i + 1 < e->rank) v.strides[i] = eval(c, e->strides[i]).i;
  }
  v.interleave = eval(c, e->interleave).i;
  v.swizzle = eval(c, e->swizzle).i;
  v.l2_promotion = eval(c, e->l2_promotion).i;
  v.oob_fill = eval(c, e->oob_fill).i;
  v.has_force = e->has_force;
  if (e->has_force) v.force_dtype = eval(c, e->force_dtype).i;
  char why[256];
  if (!tx_tensormap_rules(&v, why, sizeof why)) {
    snprintf(msg, cap, "%s: %s for '%s': %s", fn, TX_TENSORMAP_ENCODE_NAME, var, why);
    return TIRX_ERR_USAGE;
  }
  void *map = (void *)(uintptr_t)c->slots[e->map_slot].i;
  if (!map || (uintptr_t)map % TX_TENSORMAP_ALIGN) {
    snprintf(msg, cap, "%s: %s for '%s': the tensor map at %p is not 64-byte aligned", fn,
             TX_TENSORMAP_ENCODE_NAME, var, map);
    return TIRX_ERR_USAGE;
  }
  if (!h->encode) return TIRX_OK;
  tirx_status st = h->encode(h->user, &v, map, why, sizeof why);
  if (st != TIRX_OK) snprintf(msg, cap, "%s: encoding tensor map '%s': %s", fn, var, why);
  return st;
}

/* A kernel parameter's bytes, as the kernel's type has them. */
static void store_param(tx_dtype t, lp_val v, uint64_t *slot) {
  *slot = 0;
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
}

static tirx_status run_launch(const lp_call *c, const tx_lp_stmt *s, const tx_lp_hooks *h,
                              char *msg, size_t cap) {
  const tx_lp_launch *l = &c->f->launches[s->index];
  uint32_t dims[TX_LP_DIMS];
  for (int d = 0; d < TX_LP_DIMS; d++) {
    int64_t v = eval(c, l->dims[d]).i;
    if (v < 0 || v > UINT32_MAX) {
      snprintf(msg, cap, "%s: launch dimension %d of %s = %" PRId64 " is out of range", c->f->name,
               d, l->kernel, v);
      return TIRX_ERR_USAGE;
    }
    dims[d] = (uint32_t)v;
  }
  void *params[TX_MAX_KERNEL_PARAMS];
  uint64_t storage[TX_MAX_KERNEL_PARAMS];
  for (uint32_t k = 0; k < l->nkparams; k++) {
    const tx_lp_kparam *kp = &c->f->kparams[l->first_kparam + k];
    lp_val v = eval(c, kp->expr);
    if (kp->tensormap) {
      /* cuLaunchKernelEx copies the parameter's 128 bytes from here. */
      params[k] = (void *)(uintptr_t)v.i;
      if (!params[k]) {
        snprintf(msg, cap, "%s: tensor map '%s' is NULL", c->f->name, kp->name ? kp->name : "?");
        return TIRX_ERR_USAGE;
      }
      continue;
    }
    store_param(kp->dtype, v, &storage[k]);
    params[k] = &storage[k];
  }
  if (!h->launch) {
    snprintf(msg, cap, "%s: the executable has no device code (compiled host_only)", c->f->name);
    return TIRX_ERR_USAGE;
  }
  tx_lp_launch_values lv = {.launch = l,
                            .index = s->index,
                            .dyn_shared_bytes = dims[6],
                            .nparams = l->nkparams,
                            .params = params};
  memcpy(lv.grid, dims, sizeof lv.grid);
  memcpy(lv.block, dims + 3, sizeof lv.block);
  memcpy(lv.cluster, l->cluster, sizeof lv.cluster);
  return h->launch(h->user, &lv, msg, cap);
}

/* A parameter's slot: DLTensor.data, a handle, or the scalar in its dtype.
 * A wrong kind leaves 0, and the kind checks report it. */
static lp_val bind_param(const tx_lp_param *p, const tirx_arg *args, size_t n) {
  lp_val v = {0};
  if (p->arg < 0 || (size_t)p->arg >= n) return v;
  const tirx_arg *a = &args[p->arg];
  tx_dtype t = p->dtype;
  if (p->tensor && a->kind == TIRX_ARG_TENSOR && a->v.tensor)
    v.i = (int64_t)(uintptr_t)a->v.tensor->data;
  else if (a->kind == TIRX_ARG_HANDLE)
    v.i = (int64_t)(uintptr_t)a->v.handle;
  else if (!p->tensor && a->kind == TIRX_ARG_INT && !is_float(t))
    v.i = tx_dtype_is_bool(t) ? a->v.i != 0
                              : (t.bits < 64 ? wrap(a->v.i, t.bits, t.code == DT_INT) : a->v.i);
  else if (!p->tensor && a->kind == TIRX_ARG_FLOAT && is_float(t))
    v.f = t.bits == 32 ? (double)(float)a->v.f : a->v.f;
  return v;
}

static tirx_status run_bind(const lp_call *c, const tx_lp_stmt *s, char *msg, size_t cap) {
  lp_val v = eval(c, s->expr);
  tx_dtype t = s->dtype;
  if (s->range_checked && !fits(v.i, t)) {
    char name[32];
    snprintf(msg, cap, "%s: symbolic variable '%s' = %" PRId64 " does not fit in %s", c->f->name,
             s->name ? s->name : "?", v.i, tx_dtype_str(t, name));
    return TIRX_ERR_USAGE;
  }
  if (tx_dtype_is_int(t) && t.bits < 64) v.i = wrap(v.i, t.bits, t.code == DT_INT);
  c->slots[s->slot] = v;
  return TIRX_OK;
}

static tirx_status run_stmt(lp_call *c, const tx_lp_stmt *s, const tx_lp_hooks *h, char *msg,
                            size_t cap) {
  switch ((tx_lp_stmt_kind)s->kind) {
  case TX_LP_CHECK:
    if (eval(c, s->expr).i) return TIRX_OK;
    report(c, s, msg, cap);
    return TIRX_ERR_USAGE;
  case TX_LP_BIND:
    return run_bind(c, s, msg, cap);
  case TX_LP_MAP:
    c->slots[s->slot].i = (int64_t)(uintptr_t)c->maps[s->index];
    return TIRX_OK;
  case TX_LP_ENCODE:
    return run_encode(c, s, h, msg, cap);
  case TX_LP_LAUNCH:
    return run_launch(c, s, h, msg, cap);
  case TX_LP_STMT_COUNT:
    break;
  }
  snprintf(msg, cap, "%s: internal error: unknown launch statement", c->f->name);
  return TIRX_ERR_INTERNAL;
}

tirx_status tx_lp_run(const tx_lp_func *f, const tirx_allocator *alloc, const tirx_arg *args,
                      size_t n, const tx_lp_hooks *hooks, char *msg, size_t cap) {
  if (f->why) {
    snprintf(msg, cap, "function '%s' cannot be called: %s", f->name, f->why);
    return TIRX_ERR_USAGE;
  }
  static const tx_lp_hooks NO_HOOKS = {0};
  lp_val small[256];
  lp_call c = {.f = f, .args = args, .n = n, .slots = small};
  if (f->nslots > sizeof small / sizeof *small) {
    c.slots = tx_mem_alloc(alloc, f->nslots * sizeof *c.slots);
    if (!c.slots) {
      snprintf(msg, cap, "%s: out of memory", f->name);
      return TIRX_ERR_NOMEM;
    }
  }
  /* A slot read before it is written reads 0, never stale stack. */
  memset(c.slots, 0, f->nslots * sizeof *c.slots);
  for (uint32_t i = 0; i < f->nparams; i++)
    c.slots[f->params[i].slot] = bind_param(&f->params[i], args, n);
  tirx_status st = TIRX_OK;
  for (uint32_t i = 0; i < f->nstmts && st == TIRX_OK; i++)
    st = run_stmt(&c, &f->stmts[i], hooks ? hooks : &NO_HOOKS, msg, cap);
  if (c.slots != small) tx_mem_free(alloc, c.slots);
  return st;
}
