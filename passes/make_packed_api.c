/*
 * make_packed_api.c - the make-packed-api pass: every host function gets the
 * packed calling convention, as data that the runtime executes
 * (docs/lowering.md, "After make-packed-api").
 *
 * Runs last, after split-host-device. A host function is any public function
 * without the "tirx.kernel" attribute (launchers and host-only functions);
 * kernels and private helpers are left alone, and so is a function that
 * already has "tirx.packed_api" (the pass is idempotent).
 *
 * What it adds to a host function f, without touching its parameters or its
 * existing statements:
 *  - attributes "tirx.packed_api": True, "tirx.num_args": N,
 *    "tirx.arg_kinds": one string per parameter ("tensor" or the scalar's
 *    dtype), "tirx.arg_names": the parameter names;
 *  - a prologue of statements, in a fixed order: the argument count, the kind
 *    of every argument, then per tensor its ndim, dtype, device, shape,
 *    strides, byte offset and alignment (asserts), binding each symbolic
 *    variable at its first plain occurrence with T.arg_bind(n, value) and
 *    checking later occurrences; checks of compound shape expressions come
 *    last, once every variable is bound.
 * Symbolic variables are declared immutable (`n = T.int32()`), so the binding
 * is the statement T.arg_bind rather than a rebinding `n = ...`, which would
 * not re-parse. A symbolic variable that no argument determines is a located
 * error: nothing could give it a value at run time.
 *
 * Every assert message is static text: "<func>: argument '<name>': expected
 * <what>"; the runtime appends the value it saw (see lowering.md).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/printer.h"
#include "ir/tensormap.h"
#include "ir/visit.h"
#include "passes/lower_common.h"
#include "abi/packed_api.h"
#include "passes/pass.h"

#define STAGE "make-packed-api"

enum { MAX_PROLOGUE = 4096, MAX_BOUND = 256 };

/* The arrays come last: packer_new zeroes only the fields before them. */
typedef struct packer {
  tx_pass_ctx *pc;
  tx_ir *ir;
  const tx_func *f;
  uint32_t nstmts, nlate, nbound;
  int oom, too_big, errors;
  const tx_stmt *stmts[MAX_PROLOGUE]; /* the prologue, in order */
  const tx_stmt *late[MAX_PROLOGUE];  /* compound-expression checks, after all bindings */
  const tx_expr *bound[MAX_BOUND];    /* symbolic variables bound so far */
} packer;

/* ---- building blocks -------------------------------------------------------- */

static const tx_expr *lit(packer *pk, tx_dtype t, int64_t v) {
  const tx_expr *e = tx_lc_int(pk->ir, t, v);
  if (!e) pk->oom = 1;
  return e;
}

/* T.<op>(i[, extra]) with int32 operands: an accessor of argument i. */
static const tx_expr *accessor(packer *pk, const char *op, tx_dtype t, int64_t i, int64_t extra,
                               int nargs) {
  const tx_expr *args[2] = {lit(pk, TX_INT32, i), lit(pk, TX_INT32, extra)};
  if (!args[0] || !args[1]) return NULL;
  const tx_expr *e = tx_lc_call(pk->ir, op, t, args, (uint32_t)nargs);
  if (!e) pk->oom = 1;
  return e;
}

static void push(packer *pk, const tx_stmt *s, int late) {
  if (!s) {
    pk->oom = 1;
    return;
  }
  uint32_t *n = late ? &pk->nlate : &pk->nstmts;
  if (*n == MAX_PROLOGUE) {
    pk->too_big = 1;
    return;
  }
  (late ? pk->late : pk->stmts)[(*n)++] = s;
}

/* assert cond, "<func>: <what>" (what is already formatted). */
static void emit_assert(packer *pk, const tx_expr *cond, const char *what, tirx_span span,
                        int late) {
  char msg[512];
  int len = snprintf(msg, sizeof msg, "%s: %s", pk->f->name, what);
  if (len < 0) len = 0;
  if ((size_t)len >= sizeof msg) len = (int)sizeof msg - 1;
  const tx_expr *m = tx_string(pk->ir, msg, (size_t)len, span);
  if (!cond || !m) {
    pk->oom = 1;
    return;
  }
  const tx_expr *ops[2] = {cond, m};
  push(pk, tx_stmt_new(pk->ir, STMT_ASSERT, ops, 2, NULL, 0, span), late);
}

/* assert lhs == rhs, msg: the runtime reports lhs's value as "got". */
static void emit_eq(packer *pk, const tx_expr *lhs, const tx_expr *rhs, const char *what,
                    tirx_span span, int late) {
  const tx_expr *c = lhs && rhs ? tx_binary(pk->ir, EXPR_EQ, lhs, rhs, span) : NULL;
  emit_assert(pk, c, what, span, late);
}

static int is_bound(const packer *pk, const tx_expr *v) {
  for (uint32_t i = 0; i < pk->nbound; i++)
    if (pk->bound[i] == v) return 1;
  return 0;
}

static int is_symbolic(const packer *pk, const tx_expr *v) {
  for (uint32_t i = 0; i < pk->f->nsymbolic; i++)
    if (pk->f->symbolic[i] == v) return 1;
  return 0;
}

/* ---- does an expression still need an unbound symbolic variable? ------------ */

typedef struct unbound_probe {
  const packer *pk;
  const tx_expr *found;
} unbound_probe;

static int probe_expr(tx_visitor *v, const tx_expr *e) {
  unbound_probe *p = v->user;
  if (e->kind == EXPR_VAR && is_symbolic(p->pk, e) && !is_bound(p->pk, e)) {
    p->found = e;
    v->stop = 1;
  }
  return 1;
}

static const tx_expr *first_unbound(const packer *pk, const tx_expr *e) {
  unbound_probe p = {pk, NULL};
  tx_visitor v = {0};
  v.user = &p;
  v.pre_expr = probe_expr;
  tx_visit_expr(&v, e);
  return p.found;
}

/* ---- matching one argument field with its declaration --------------------- */

/* The field `value` (an int64 accessor expression) of argument `arg` must
 * equal the declared `want` (described as `field`, e.g. "shape[0]"):
 *  - a literal: assert value == literal;
 *  - an unbound symbolic variable: T.arg_bind(var, value) (the first plain
 *    occurrence binds it);
 *  - anything else: assert value == T.Cast("int64", want), after all bindings
 *    when it still mentions an unbound variable.
 * `scale` multiplies the declaration (elem_offset is checked in bytes). */
static void match(packer *pk, const char *arg, const tx_expr *value, const tx_expr *want,
                  int64_t scale, const char *field, tirx_span span) {
  char what[384];
  int64_t c;
  if (!value || !want) {
    pk->oom = 1;
    return;
  }
  if (tx_expr_int_literal(want, &c)) {
    snprintf(what, sizeof what, "argument '%s': expected %s == %lld", arg, field,
             (long long)(c * scale));
    emit_eq(pk, value, lit(pk, TX_INT64, c * scale), what, span, 0);
    return;
  }
  if (scale == 1 && want->kind == EXPR_VAR && is_symbolic(pk, want) && !is_bound(pk, want)) {
    if (pk->nbound == MAX_BOUND) {
      pk->too_big = 1;
      return;
    }
    pk->bound[pk->nbound++] = want;
    const tx_expr *ops[2] = {want, value};
    const tx_expr *call = tx_lc_call(pk->ir, "T.arg_bind", TX_VOID, ops, 2);
    push(pk, call ? tx_stmt_new(pk->ir, STMT_EVAL, &call, 1, NULL, 0, span) : NULL, 0);
    return;
  }
  tx_strbuf sb = {.alloc = tx_ir_alloc(pk->ir)};
  tx_print_expr(want, &sb);
  if (scale != 1) tx_sb_printf(&sb, " * %lld", (long long)scale);
  const char *text = tx_sb_cstr(&sb);
  if (!text || sb.failed) {
    tx_sb_free(&sb);
    pk->oom = 1;
    return;
  }
  snprintf(what, sizeof what, "argument '%s': expected %s == %s", arg, field, text);
  tx_sb_free(&sb);
  const tx_expr *rhs = tx_lc_cast(pk->ir, TX_INT64, want);
  if (rhs && scale != 1) rhs = tx_lc_muli(pk->ir, rhs, scale);
  emit_eq(pk, value, rhs, what, span, first_unbound(pk, want) != NULL);
}

/* ---- dtypes ------------------------------------------------------------------ */

/* The DLPack code and storage bits of a dtype; 0 when it has none. */
static int dlpack_dtype(tx_dtype t, int *code, int *bits) {
  *bits = t.bits;
  switch ((tx_dtype_code)t.code) {
  case DT_INT:
    *code = TX_DL_INT;
    return 1;
  case DT_UINT:
    *code = TX_DL_UINT;
    return 1;
  case DT_FLOAT:
    *code = TX_DL_FLOAT;
    return 1;
  case DT_BFLOAT:
    *code = TX_DL_BFLOAT;
    return 1;
  case DT_E4M3FN:
    *code = TX_DL_FLOAT8_E4M3FN;
    return 1;
  case DT_E4M3FNUZ:
    *code = TX_DL_FLOAT8_E4M3FNUZ;
    return 1;
  case DT_E5M2:
    *code = TX_DL_FLOAT8_E5M2;
    return 1;
  case DT_E5M2FNUZ:
    *code = TX_DL_FLOAT8_E5M2FNUZ;
    return 1;
  case DT_E4M3:
    *code = TX_DL_FLOAT8_E4M3;
    return 1;
  case DT_E4M3B11FNUZ:
    *code = TX_DL_FLOAT8_E4M3B11FNUZ;
    return 1;
  case DT_E3M4:
    *code = TX_DL_FLOAT8_E3M4;
    return 1;
  case DT_E8M0FNU:
    *code = TX_DL_FLOAT8_E8M0FNU;
    return 1;
  case DT_E2M3FN:
    *code = TX_DL_FLOAT6_E2M3FN;
    return 1;
  case DT_E3M2FN:
    *code = TX_DL_FLOAT6_E3M2FN;
    return 1;
  case DT_E2M1FN:
    *code = TX_DL_FLOAT4_E2M1FN;
    return 1;
  case DT_BOOL:
    /* DLPack stores a bool in a byte, whatever width the IR gives it. */
    *code = TX_DL_BOOL;
    *bits = 8;
    return 1;
  case DT_HANDLE:
    *code = TX_DL_OPAQUE_HANDLE;
    return 1;
  case DT_VOID:
    return 0;
  }
  return 0;
}

/* The kind of argument a scalar parameter takes. */
static tirx_arg_kind scalar_kind(tx_dtype t) {
  switch ((tx_dtype_code)t.code) {
  case DT_INT:
  case DT_UINT:
  case DT_BOOL:
    return TIRX_ARG_INT;
  case DT_FLOAT:
  case DT_BFLOAT:
  case DT_E4M3FN:
  case DT_E4M3FNUZ:
  case DT_E5M2:
  case DT_E5M2FNUZ:
  case DT_E4M3:
  case DT_E4M3B11FNUZ:
  case DT_E3M4:
  case DT_E8M0FNU:
  case DT_E2M3FN:
  case DT_E3M2FN:
  case DT_E2M1FN:
    return TIRX_ARG_FLOAT;
  case DT_HANDLE:
  case DT_VOID:
    return TIRX_ARG_HANDLE;
  }
  return TIRX_ARG_HANDLE;
}

/* ---- one tensor argument ----------------------------------------------------- */

/* Is b's layout a plain tile layout with one memory-axis shard iterator per
 * dimension, of the dimension's extent (strides a tensor can express)? */
static int layout_strides_match(const tx_buffer *b) {
  const tx_layout *l = b->layout;
  if (l->kind != LAYOUT_TILE || l->nreplica || l->noffset || l->nshard != b->ndim) return 0;
  for (uint32_t d = 0; d < b->ndim; d++) {
    int64_t a, c;
    if (l->shard[d].axis || !tx_expr_int_literal(l->shard[d].extent, &a) ||
        !tx_expr_int_literal(b->shape[d], &c) || a != c)
      return 0;
  }
  return 1;
}

static void check_tensor(packer *pk, uint32_t i, const char *arg, const tx_buffer *b,
                         int64_t first_tensor, const char *first_name) {
  tirx_span sp = b->span.line ? b->span : pk->f->span;
  char what[384], field[64], dt[32];
  snprintf(what, sizeof what, "argument '%s': expected %u dimension%s", arg, b->ndim,
           b->ndim == 1 ? "" : "s");
  emit_eq(pk, accessor(pk, "T.arg_ndim", TX_INT32, i, 0, 1), lit(pk, TX_INT32, b->ndim), what, sp,
          0);

  int code = 0, bits = 0;
  if (!dlpack_dtype(b->dtype, &code, &bits)) {
    tx_error(pk->pc->diags, sp, "buffer parameter '%s' has dtype %s, which no tensor can hold", arg,
             tx_dtype_str(b->dtype, dt));
    pk->errors++;
    return;
  }
  snprintf(what, sizeof what, "argument '%s': expected dtype %s", arg, tx_dtype_str(b->dtype, dt));
  emit_eq(pk, accessor(pk, "T.arg_dtype_code", TX_INT32, i, 0, 1), lit(pk, TX_INT32, code), what,
          sp, 0);
  emit_eq(pk, accessor(pk, "T.arg_dtype_bits", TX_INT32, i, 0, 1), lit(pk, TX_INT32, bits), what,
          sp, 0);
  emit_eq(pk, accessor(pk, "T.arg_dtype_lanes", TX_INT32, i, 0, 1),
          lit(pk, TX_INT32, b->dtype.lanes), what, sp, 0);

  snprintf(what, sizeof what, "argument '%s': expected a CUDA tensor (device type %d)", arg,
           TX_DL_CUDA);
  emit_eq(pk, accessor(pk, "T.arg_device_type", TX_INT32, i, 0, 1), lit(pk, TX_INT32, TX_DL_CUDA),
          what, sp, 0);
  if (first_tensor >= 0 && (uint32_t)first_tensor != i) {
    snprintf(what, sizeof what, "argument '%s': expected the same device as argument '%s'", arg,
             first_name);
    emit_eq(pk, accessor(pk, "T.arg_device_id", TX_INT32, i, 0, 1),
            accessor(pk, "T.arg_device_id", TX_INT32, first_tensor, 0, 1), what, sp, 0);
  }

  for (uint32_t d = 0; d < b->ndim; d++) {
    snprintf(field, sizeof field, "shape[%u]", d);
    match(pk, arg, accessor(pk, "T.arg_shape", TX_INT64, i, d, 2), b->shape[d], 1, field, sp);
  }
  const tx_layout *lay = b->layout;
  if (lay && layout_strides_match(b)) {
    /* T.S[(d0, d1):(s0, s1)] over the buffer's own dimensions: the tensor's
     * strides are the layout's. */
    for (uint32_t d = 0; d < b->ndim; d++) {
      snprintf(field, sizeof field, "strides[%u]", d);
      match(pk, arg, accessor(pk, "T.arg_stride", TX_INT64, i, d, 2), lay->shard[d].stride, 1,
            field, sp);
    }
  } else if (lay) {
    /* Any other layout (swizzles, thread axes, split dimensions) addresses
     * memory in a way strides cannot describe: only the data pointer
     * matters, so the strides are not checked. */
  } else if (b->nstrides) {
    for (uint32_t d = 0; d < b->nstrides; d++) {
      snprintf(field, sizeof field, "strides[%u]", d);
      match(pk, arg, accessor(pk, "T.arg_stride", TX_INT64, i, d, 2), b->strides[d], 1, field, sp);
    }
  } else {
    snprintf(what, sizeof what, "argument '%s': expected compact row-major strides", arg);
    emit_assert(pk, accessor(pk, "T.arg_strides_compact", TX_BOOL, i, 0, 1), what, sp, 0);
  }

  const tx_expr *off = accessor(pk, "T.arg_byte_offset", TX_INT64, i, 0, 1);
  int64_t elem_bits = (int64_t)bits * b->dtype.lanes;
  if (!b->elem_offset) {
    snprintf(what, sizeof what, "argument '%s': expected byte_offset == 0", arg);
    emit_eq(pk, off, lit(pk, TX_INT64, 0), what, sp, 0);
  } else if (elem_bits % 8 != 0) {
    tx_error(pk->pc->diags, sp,
             "buffer parameter '%s': elem_offset with the sub-byte dtype %s cannot be checked "
             "against a byte offset",
             arg, tx_dtype_str(b->dtype, dt));
    pk->errors++;
  } else if (b->elem_offset->kind == EXPR_VAR && is_symbolic(pk, b->elem_offset) &&
             !is_bound(pk, b->elem_offset)) {
    /* Bind the element offset: the byte offset must be a whole number of
     * elements, and the variable gets byte_offset / element bytes. */
    int64_t eb = elem_bits / 8;
    snprintf(what, sizeof what, "argument '%s': expected byte_offset to be a multiple of %lld", arg,
             (long long)eb);
    emit_eq(pk, tx_lc_modi(pk->ir, off, eb), lit(pk, TX_INT64, 0), what, sp, 0);
    match(pk, arg, tx_lc_divi(pk->ir, off, eb), b->elem_offset, 1, "elem_offset", sp);
  } else {
    match(pk, arg, off, b->elem_offset, elem_bits / 8, "byte_offset", sp);
  }

  if (b->align > 0) {
    snprintf(what, sizeof what, "argument '%s': expected data aligned to %lld bytes", arg,
             (long long)b->align);
    emit_assert(pk, accessor(pk, "T.arg_aligned", TX_BOOL, i, b->align, 2), what, sp, 0);
  }
}

/* ---- tensor maps ---------------------------------------------------------------- */

/* The host part's tensor maps (ir/tensormap.h) are executed by the runtime:
 * a malformed allocation or encode call is reported here, at its operand,
 * rather than when the executable is loaded. */
static int check_tensormap_stmt(tx_visitor *v, const tx_stmt *s) {
  packer *pk = v->user;
  if (s->kind == STMT_BIND && s->nvars == 1 && s->nexprs == 1 && s->vars[0]->u.var.tensormap) {
    const tx_expr *count = NULL;
    if (tx_tensormap_is_alloca(s->exprs[0], &count) &&
        !(count->kind == EXPR_INT && count->u.ival == 1)) {
      tx_error(pk->pc->diags, count->span.line ? count->span : s->span,
               "a tensor map is passed to the kernel by value, one per variable: "
               "T.tvm_stack_alloca(\"tensormap\", n) needs n = 1");
      pk->errors++;
    }
  }
  if (s->kind == STMT_EVAL && s->nexprs == 1 && tx_tensormap_is_encode(s->exprs[0])) {
    tx_tensormap_encode enc;
    const tx_expr *where = NULL;
    char why[384];
    tx_tensormap_values vals;
    if (!tx_tensormap_encode_parse(s->exprs[0], &enc, &where, why, sizeof why)) {
      tx_error(pk->pc->diags, where && where->span.line ? where->span : s->span, "%s", why);
      pk->errors++;
    } else if (tx_tensormap_constant_values(&enc, &vals) &&
               !tx_tensormap_rules(&vals, why, sizeof why)) {
      /* What TVM's runtime would refuse at the first launch, refused now. */
      tx_error(pk->pc->diags, s->span, "%s: %s", TX_TENSORMAP_ENCODE_NAME, why);
      pk->errors++;
    }
  }
  return 1;
}

/* ---- one function -------------------------------------------------------------- */

static int is_kernel(const tx_func *f) {
  return tx_func_attr_true(f, "tirx.kernel");
}

static const char *param_name(const tx_func *f, uint32_t i) {
  const char *n = f->params[i]->u.var.name;
  return n ? n : "?";
}

static const tx_expr *string_tuple(packer *pk, const char *const *items, uint32_t n) {
  const tx_expr *ops[MAX_BOUND];
  for (uint32_t i = 0; i < n; i++) {
    ops[i] = tx_string(pk->ir, items[i], strlen(items[i]), pk->f->span);
    if (!ops[i]) return NULL;
  }
  return tx_expr_new(pk->ir, EXPR_TUPLE, TX_VOID, ops, n, pk->f->span);
}

static tirx_status pack_func(packer *pk, const tx_func **out) {
  const tx_func *f = pk->f;
  tx_ir *ir = pk->ir;
  if (f->nparams > MAX_BOUND) {
    tx_error(pk->pc->diags, f->span, "function '%s' has %u parameters (limit %d)", f->name,
             f->nparams, MAX_BOUND);
    return TIRX_ERR_INPUT;
  }
  char what[384];
  snprintf(what, sizeof what, "expected %u argument%s", f->nparams, f->nparams == 1 ? "" : "s");
  const tx_expr *count = tx_lc_call(ir, "T.arg_count", TX_INT32, NULL, 0);
  emit_eq(pk, count, lit(pk, TX_INT32, f->nparams), what, f->span, 0);

  /* Kinds first: nothing below reads an argument of the wrong kind. */
  const char *kinds[MAX_BOUND], *names[MAX_BOUND];
  char dtbuf[MAX_BOUND][32];
  int64_t first_tensor = -1;
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tx_buffer *b = f->param_bufs ? f->param_bufs[i] : NULL;
    const tx_expr *p = f->params[i];
    tirx_arg_kind k = b ? TIRX_ARG_TENSOR : scalar_kind(p->dtype);
    names[i] = param_name(f, i);
    kinds[i] = b ? "tensor" : tx_dtype_str(p->dtype, dtbuf[i]);
    if (b && first_tensor < 0) first_tensor = i;
    snprintf(what, sizeof what, "argument '%s': expected %s", names[i], tx_arg_kind_phrase(k));
    tirx_span sp = p->span.line ? p->span : f->span;
    emit_eq(pk, accessor(pk, "T.arg_kind", TX_INT32, i, 0, 1), lit(pk, TX_INT32, k), what, sp, 0);
  }
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tx_buffer *b = f->param_bufs ? f->param_bufs[i] : NULL;
    if (b)
      check_tensor(pk, i, names[i], b, first_tensor, first_tensor >= 0 ? names[first_tensor] : "");
  }
  if (pk->oom) return TIRX_ERR_NOMEM;
  if (pk->too_big) {
    tx_error(pk->pc->diags, f->span,
             "function '%s' needs more than %d argument checks (its parameters' kinds, dtypes, "
             "shapes and strides)",
             f->name, MAX_PROLOGUE);
    return TIRX_ERR_INPUT;
  }

  /* A symbolic variable that no argument determines has no value at run time. */
  for (uint32_t i = 0; i < f->nsymbolic; i++) {
    const tx_expr *v = f->symbolic[i];
    if (is_bound(pk, v)) continue;
    tx_error(pk->pc->diags, v->span.line ? v->span : f->span,
             "symbolic variable '%s' of '%s' is not determined by the arguments: it must be a "
             "whole dimension, stride or elem_offset of a buffer parameter",
             v->u.var.name ? v->u.var.name : "?", f->name);
    pk->errors++;
  }
  tx_visitor tv = {0};
  tv.user = pk;
  tv.pre_stmt = check_tensormap_stmt;
  if (f->body) tx_visit_stmt(&tv, f->body);
  if (pk->errors) return TIRX_ERR_INPUT;

  /* Body: prologue, late checks, then the original statements. */
  uint32_t nbody = 0;
  const tx_stmt *const *body_items = NULL;
  if (f->body && f->body->kind == STMT_SEQ) {
    body_items = f->body->stmts;
    nbody = f->body->nstmts;
  } else if (f->body) {
    body_items = &f->body;
    nbody = 1;
  }
  uint32_t total = pk->nstmts + pk->nlate + nbody;
  const tx_stmt **items = tx_arena_alloc(ir->arena, (total ? total : 1) * sizeof *items);
  if (!items) return TIRX_ERR_NOMEM;
  uint32_t k = 0;
  for (uint32_t i = 0; i < pk->nstmts; i++)
    items[k++] = pk->stmts[i];
  for (uint32_t i = 0; i < pk->nlate; i++)
    items[k++] = pk->late[i];
  for (uint32_t i = 0; i < nbody; i++)
    items[k++] = body_items[i];
  const tx_stmt *body = tx_lc_seq(ir, items, k, f->body ? f->body->span : f->span);

  /* Attributes: the function's own, then the packed-API description. */
  uint32_t na = f->nattrs + 4;
  const char **keys = tx_arena_alloc(ir->arena, na * sizeof *keys);
  const tx_expr **vals = tx_arena_alloc(ir->arena, na * sizeof *vals);
  const tx_expr *ktrue = tx_bool(ir, 1, f->span);
  if (!body || !keys || !vals || !ktrue) return TIRX_ERR_NOMEM;
  for (uint32_t i = 0; i < f->nattrs; i++) {
    keys[i] = f->attr_keys[i];
    vals[i] = f->attr_values[i];
  }
  keys[f->nattrs] = tx_intern(ir->strings, "tirx.packed_api");
  vals[f->nattrs] = ktrue;
  keys[f->nattrs + 1] = tx_intern(ir->strings, "tirx.num_args");
  vals[f->nattrs + 1] = lit(pk, TX_INT32, f->nparams);
  keys[f->nattrs + 2] = tx_intern(ir->strings, "tirx.arg_kinds");
  vals[f->nattrs + 2] = string_tuple(pk, kinds, f->nparams);
  keys[f->nattrs + 3] = tx_intern(ir->strings, "tirx.arg_names");
  vals[f->nattrs + 3] = string_tuple(pk, names, f->nparams);
  for (uint32_t i = f->nattrs; i < na; i++)
    if (!keys[i] || !vals[i]) return TIRX_ERR_NOMEM;

  tx_func fields = *f;
  fields.body = body;
  fields.nattrs = na;
  fields.attr_keys = keys;
  fields.attr_values = vals;
  *out = tx_func_make(ir, &fields);
  return *out ? TIRX_OK : TIRX_ERR_NOMEM;
}

tirx_status tx_pass_make_packed_api(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  tx_ir *ir = pc->ir;
  const tx_func **funcs = tx_arena_alloc(ir->arena, (in->nfuncs ? in->nfuncs : 1) * sizeof *funcs);
  if (!funcs) return TIRX_ERR_NOMEM;
  tirx_status result = TIRX_OK;
  int changed = 0;
  for (uint32_t i = 0; i < in->nfuncs; i++) {
    const tx_func *f = in->funcs[i];
    funcs[i] = f;
    if (is_kernel(f) || f->is_private || tx_func_attr(f, "tirx.packed_api")) continue;
    /* The packer's arrays are too big for the stack; freed right after.
     * They are not cleared: only their first n* entries are ever read, and
     * clearing 64 KiB per function showed up in compile time. */
    packer *pk = tx_mem_alloc(tx_ir_alloc(pc->ir), sizeof *pk);
    if (!pk) return TIRX_ERR_NOMEM;
    memset(pk, 0, offsetof(packer, stmts));
    pk->pc = pc;
    pk->ir = ir;
    pk->f = f;
    tirx_status st = pack_func(pk, &funcs[i]);
    tx_mem_free(tx_ir_alloc(pc->ir), pk);
    if (st == TIRX_ERR_NOMEM) return st;
    if (st != TIRX_OK) {
      result = st;
      continue;
    }
    changed = 1;
  }
  if (result != TIRX_OK) return result;
  if (!changed) {
    *out = in;
    return TIRX_OK;
  }
  return tx_lc_replace_funcs(ir, in, funcs, out);
}
