/*
 * build_expr.c - expressions: literals, names, operators, buffer loads and
 * regions, dtype constructors and calls checked against the intrinsic table.
 *
 * Must not build statements; a call that only makes sense as a statement
 * (tile primitives, scope ids) is reported here when used as a value.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/build_internal.h"
#include "ir/fold.h"

static const tx_expr *build(builder *b, const tx_ast *a, int depth);

/* ---- dtypes --------------------------------------------------------------------- */

/* `T.float32` (or a shorthand T.f32 / T.i32) as a dtype. */
/* A dtype packed into a map value; 0 stays "not remembered". Codes fit in 7
 * bits: the top bit of the code byte is the scalable flag. */
static void *pack_dtype(tx_dtype t) {
  return (void *)(uintptr_t)(1 + ((uintptr_t)t.code | (uintptr_t)(t.scalable ? 0x80 : 0) |
                                  (uintptr_t)t.bits << 8 | (uintptr_t)t.lanes << 16));
}
static tx_dtype unpack_dtype(void *p) {
  uintptr_t v = (uintptr_t)p - 1;
  return (tx_dtype){.code = (uint8_t)(v & 0x7f),
                    .bits = (uint8_t)(v >> 8),
                    .lanes = (uint16_t)(v >> 16),
                    .scalable = (uint8_t)((v & 0x80) != 0)};
}

/* T.<dtype>x<N> that would be a data type but for N > TX_MAX_LANES: worth
 * its own message, since the name looks right. */
static int too_many_lanes(const char *q) {
  const char *x = strrchr(q, 'x');
  tx_dtype t;
  if (strncmp(q, "T.", 2) != 0 || !x || !x[1] || strspn(x + 1, "0123456789") != strlen(x + 1))
    return 0;
  return strlen(x + 1) > 4 || atoi(x + 1) > TX_MAX_LANES
             ? tx_dtype_parse(q + 2, (size_t)(x - q - 2), &t)
             : 0;
}

int bld_dtype_attr(builder *b, const tx_ast *ast, tx_dtype *out, int report) {
  const char *q = ast ? bld_qualified_name(b, ast, NULL) : NULL;
  /* Each call site asks again (T.float32(...) everywhere): remember. */
  void *known = q ? tx_ptrmap_get(&b->dtype_of, q) : NULL;
  if (known) {
    *out = unpack_dtype(known);
    return 1;
  }
  if (q && strncmp(q, "T.", 2) == 0 && !strchr(q + 2, '.')) {
    static const struct {
      const char *short_name, *full;
    } shorthands[] = {{"f16", "float16"},   {"f32", "float32"}, {"f64", "float64"},
                      {"bf16", "bfloat16"}, {"i8", "int8"},     {"i16", "int16"},
                      {"i32", "int32"},     {"i64", "int64"},   {"u8", "uint8"},
                      {"u16", "uint16"},    {"u32", "uint32"},  {"u64", "uint64"}};
    const char *name = q + 2;
    for (size_t i = 0; i < sizeof shorthands / sizeof *shorthands; i++)
      if (strcmp(name, shorthands[i].short_name) == 0) name = shorthands[i].full;
    if (tx_dtype_parse(name, strlen(name), out)) {
      if (!tx_ptrmap_put(&b->dtype_of, q, pack_dtype(*out))) bld_oom(b);
      return 1;
    }
  }
  if (report && q && too_many_lanes(q))
    BLD_ERROR(b, ast, "data type '%s' has more than %d lanes", q, TX_MAX_LANES);
  else if (report)
    BLD_ERROR(b, ast, "expected a data type such as \"float32\" or T.float32");
  return 0;
}

int bld_tensormap_type(builder *b, const tx_ast *ast) {
  if (!ast || ast->kind != AST_CALL || ast->u.call.keywords.len) return 0;
  const char *q = bld_qualified_name(b, ast->u.call.func, NULL);
  if (!q) return 0;
  const tx_ast_list *args = &ast->u.call.args;
  if (strcmp(q, "T.TensorMap") == 0) return args->len == 0;
  if (strcmp(q, "T.handle") != 0 || args->len != 1 || args->items[0]->kind != AST_STR) return 0;
  static const char *const names[] = {"tensormap", "TensorMap", "CUtensorMap", "cuTensorMap"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strcmp(args->items[0]->u.str.data, names[i]) == 0) return 1;
  return 0;
}

int bld_dtype(builder *b, const tx_ast *ast, tx_dtype *out) {
  if (ast->kind == AST_STR) {
    if (tx_dtype_parse(ast->u.str.data, ast->u.str.len, out)) return 1;
    BLD_ERROR(b, ast, "unknown data type '%s'", ast->u.str.data);
    return 0;
  }
  return bld_dtype_attr(b, ast, out, 1);
}

/* ---- pointer types ---------------------------------------------------------------- */

/* Storage scopes a pointer may name: TVM's storage ranks, each optionally
 * tagged ("shared.dyn", "local.fragment", "wmma.matrix_a"). */
static int known_scope(const char *s) {
  static const char *const bases[] = {"global", "shared",  "local", "warp",
                                      "tmem",   "texture", "wmma",  "trn"};
  for (size_t i = 0; i < sizeof bases / sizeof *bases; i++) {
    size_t n = strlen(bases[i]);
    if (strncmp(s, bases[i], n) == 0 && (s[n] == '\0' || (s[n] == '.' && s[n + 1] != '\0')))
      return 1;
  }
  return 0;
}

static int pointer_scope(builder *b, const tx_ast *a, const char **scope) {
  if (a->kind != AST_STR) {
    BLD_ERROR(b, a, "the storage scope of T.handle must be a string such as \"shared\"");
    return -1;
  }
  if (!known_scope(a->u.str.data)) {
    BLD_ERROR(b, a,
              "unknown storage scope '%s' for T.handle; expected \"global\", \"shared\", "
              "\"shared.dyn\", \"local\", \"warp\" or \"tmem\"",
              a->u.str.data);
    return -1;
  }
  *scope = bld_intern(b, a->u.str.data);
  return *scope ? 1 : (bld_oom(b), -1);
}

/* The callee of `call` is a bare or dotted name ending in `name`
 * (`PointerType(...)`, `tvm.ir.PointerType(...)`) that no kernel symbol
 * shadows: how TVM's printer writes IR type objects. */
static int is_type_ctor(builder *b, const tx_ast *call, const char *name) {
  const tx_ast *f = call->u.call.func;
  if (f->kind == AST_NAME) return strcmp(f->u.name.id, name) == 0 && !bld_lookup(b, f->u.name.id);
  return f->kind == AST_ATTR && strcmp(f->u.attr.attr, name) == 0 &&
         !bld_qualified_name(b, f, NULL);
}

/* PointerType(PrimType("uint64"), "shared") (TVM's IR type object, as its
 * printer writes a let variable's type): the same as T.handle("uint64",
 * "shared"). */
static int pointer_type_object(builder *b, const tx_ast *ast, tx_dtype *pointee, int *has_pointee,
                               const char **scope) {
  const tx_ast_list *args = &ast->u.call.args;
  const tx_ast *elem = args->len > 0 ? args->items[0] : NULL;
  const tx_ast *sc = args->len > 1 ? args->items[1] : NULL;
  for (size_t i = 0; i < ast->u.call.keywords.len; i++) {
    const tx_ast *kw = ast->u.call.keywords.items[i];
    const char *k = kw->u.keyword.arg;
    if (k && strcmp(k, "storage_scope") == 0 && !sc)
      sc = kw->u.keyword.value;
    else if (k && strcmp(k, "element_type") == 0 && !elem)
      elem = kw->u.keyword.value;
    else {
      BLD_ERROR(b, kw, "PointerType takes an element type and a storage scope");
      return -1;
    }
  }
  if (!elem || args->len > 2 || elem->kind != AST_CALL || !is_type_ctor(b, elem, "PrimType") ||
      elem->u.call.args.len != 1 || elem->u.call.keywords.len) {
    BLD_ERROR(b, elem ? elem : ast,
              "PointerType needs its element type as PrimType(\"dtype\"); or write "
              "T.handle(\"dtype\", \"scope\")");
    return -1;
  }
  if (!bld_dtype(b, elem->u.call.args.items[0], pointee)) return -1;
  *has_pointee = pointee->code != DT_VOID;
  if (sc && pointer_scope(b, sc, scope) < 0) return -1;
  return 1;
}

int bld_pointer_type(builder *b, const tx_ast *ast, tx_dtype *pointee, int *has_pointee,
                     const char **scope) {
  *pointee = TX_VOID;
  *has_pointee = 0;
  *scope = NULL;
  if (!ast || ast->kind != AST_CALL) return 0;
  if (is_type_ctor(b, ast, "PointerType"))
    return pointer_type_object(b, ast, pointee, has_pointee, scope);
  const char *q = bld_qualified_name(b, ast->u.call.func, NULL);
  if (q && strcmp(q, "T.Ptr") == 0) { /* the tirx dialect's spelling */
    int has;
    int r = bld_ptr_type(b, ast, pointee, &has, scope);
    *has_pointee = has;
    if (!has) *pointee = TX_VOID;
    return r;
  }
  if (!q || strcmp(q, "T.handle") != 0) return 0;
  const tx_ast_list *args = &ast->u.call.args;
  if (args->len > 2) {
    BLD_ERROR(b, ast,
              "T.handle takes at most a dtype and a storage scope: "
              "T.handle(\"float32\", \"shared\")");
    return -1;
  }
  const tx_ast *dt = args->len > 0 ? args->items[0] : NULL;
  const tx_ast *sc = args->len > 1 ? args->items[1] : NULL;
  for (size_t i = 0; i < ast->u.call.keywords.len; i++) {
    const tx_ast *kw = ast->u.call.keywords.items[i];
    const char *k = kw->u.keyword.arg;
    const tx_ast **slot = !k                                ? NULL
                          : strcmp(k, "dtype") == 0         ? &dt
                          : strcmp(k, "storage_scope") == 0 ? &sc
                                                            : NULL;
    if (!slot || (slot == &dt && args->len > 0) || (slot == &sc && args->len > 1)) {
      BLD_ERROR(b, kw, "T.handle takes dtype and storage_scope, each once");
      return -1;
    }
    *slot = kw->u.keyword.value;
  }
  if (dt && dt->kind != AST_NONE) {
    if (!bld_dtype(b, dt, pointee)) return -1;
    *has_pointee = pointee->code != DT_VOID;
  }
  if (sc && pointer_scope(b, sc, scope) < 0) return -1;
  return 1;
}

void bld_copy_pointer_type(builder *b, tx_expr *var, const tx_expr *value) {
  tx_dtype pointee;
  int has;
  const char *scope;
  if (!var || var->dtype.code != DT_HANDLE || var->u.var.tensormap ||
      !tx_expr_pointer_type(value, &pointee, &has, &scope))
    return;
  var->u.var.pointee = pointee;
  var->u.var.has_pointee = has;
  var->u.var.scope = scope ? bld_intern(b, scope) : NULL;
}

/* `T.handle(...).ty`: TVM's type object of a pointer type. */
static int is_type_object(builder *b, const tx_ast *a) {
  return a->kind == AST_ATTR && strcmp(a->u.attr.attr, "ty") == 0 &&
         a->u.attr.value->kind == AST_CALL && bld_is_tirx_call(b, a->u.attr.value, "T.handle");
}

/* The type operand of T.reinterpret: a dtype string or name, or a pointer
 * type T.handle(...) kept as a call the printer writes back as TVM does.
 * NULL after a located error. */
static const tx_expr *reinterpret_type(builder *b, const tx_ast *a, tx_dtype *t) {
  tx_dtype pointee;
  int has;
  const char *scope;
  if (is_type_object(b, a)) {
    /* TVM's T.handle(...).ty: the same pointer type, printed back with .ty */
    tx_expr *c = (tx_expr *)reinterpret_type(b, a->u.attr.value, t);
    if (c) c->type_object = 1;
    return c;
  }
  int ptr = bld_pointer_type(b, a, &pointee, &has, &scope);
  if (ptr < 0) return NULL;
  const tx_expr *e = NULL;
  if (ptr > 0) {
    *t = TX_HANDLE;
    char buf[32];
    const tx_expr *ops[2] = {NULL, NULL};
    uint32_t n = 0;
    if (has) {
      const char *name = tx_dtype_str(pointee, buf);
      ops[n++] = tx_string(b->ir, name, strlen(name), a->span);
    }
    if (scope) ops[n++] = tx_string(b->ir, scope, strlen(scope), a->span);
    if ((n > 0 && !ops[0]) || (n > 1 && !ops[1])) return bld_oom(b), NULL;
    tx_expr *c = tx_expr_new(b->ir, EXPR_CALL, TX_HANDLE, ops, n, a->span);
    const char **names = NULL;
    if (c && scope && !has) {
      /* No element type: the scope can only be given by keyword. */
      names = tx_arena_alloc(b->ir->arena, sizeof *names);
      if (names) names[0] = bld_intern(b, "storage_scope");
    }
    if (!c || (scope && !has && (!names || !names[0]))) return bld_oom(b), NULL;
    c->u.call.op = bld_intern(b, "T.handle");
    c->u.call.kw.npos = names ? 0 : n;
    c->u.call.kw.names = names;
    return c->u.call.op ? c : (bld_oom(b), NULL);
  }
  if (a->kind == AST_STR) {
    if (!bld_dtype(b, a, t)) return NULL;
    e = tx_string(b->ir, a->u.str.data, a->u.str.len, a->span);
  } else {
    if (!bld_dtype_attr(b, a, t, 0)) {
      BLD_ERROR(b, a,
                "T.reinterpret needs a target type: a dtype such as \"uint64\" or T.uint64, "
                "\"handle\", or a pointer type T.handle(\"float32\", \"shared\")");
      return NULL;
    }
    char buf[32];
    const char *name = tx_dtype_str(*t, buf);
    e = tx_string(b->ir, name, strlen(name), a->span);
  }
  if (!e) bld_oom(b);
  return e;
}

/* Is `t` a type a pointer's 64 bits reinterpret as: a pointer or a scalar
 * 64-bit integer. */
static int pointer_sized(tx_dtype t) {
  return t.lanes == 1 &&
         (t.code == DT_HANDLE || ((t.code == DT_INT || t.code == DT_UINT) && t.bits == 64));
}

/* T.reinterpret(type, value) as TVM prints it, or T.reinterpret(value,
 * dtype=type) / T.reinterpret(value, ty=type) (TVM's newer keyword
 * spelling); the IR keeps (type, value). A pointer reinterprets only to and
 * from another pointer or a 64-bit integer: anything else has no meaning on
 * the device (a float, a 32-bit half of an address). */
static const tx_expr *build_reinterpret(builder *b, const tx_ast *call) {
  const tx_ast_list *args = &call->u.call.args;
  const tx_ast *type_ast = NULL, *value_ast = NULL;
  for (size_t i = 0; i < call->u.call.keywords.len; i++) {
    const tx_ast *kw = call->u.call.keywords.items[i];
    const char *k = kw->u.keyword.arg;
    if (k && strcmp(k, "span") == 0) continue;
    if (!k || (strcmp(k, "dtype") != 0 && strcmp(k, "ty") != 0) || type_ast) {
      BLD_ERROR(b, kw,
                "T.reinterpret takes the target type once: as the first argument, dtype= "
                "or ty=");
      return NULL;
    }
    type_ast = kw->u.keyword.value;
  }
  if (type_ast ? args->len != 1 : args->len != 2) {
    BLD_ERROR(b, call,
              "T.reinterpret takes a target type and a value: T.reinterpret(\"uint64\", x) or "
              "T.reinterpret(x, ty=\"uint64\")");
    return NULL;
  }
  if (!type_ast) type_ast = args->items[0];
  value_ast = args->items[type_ast == args->items[0] ? 1 : 0];
  tx_dtype t = TX_VOID;
  const tx_expr *type = reinterpret_type(b, type_ast, &t);
  const tx_expr *value = type ? bld_expr(b, value_ast) : NULL;
  if (!value) return NULL;
  if (value->dtype.code == DT_VOID) {
    BLD_ERROR(b, value_ast, "this expression has no value to reinterpret");
    return NULL;
  }
  if ((t.code == DT_HANDLE || value->dtype.code == DT_HANDLE) &&
      !(pointer_sized(t) && pointer_sized(value->dtype))) {
    char buf[32];
    tx_dtype other = t.code == DT_HANDLE ? value->dtype : t;
    BLD_ERROR(b, call,
              "T.reinterpret between a pointer and %s: a pointer reinterprets only as another "
              "pointer or a 64-bit integer (\"uint64\", \"int64\")",
              tx_dtype_str(other, buf));
    return NULL;
  }
  const tx_expr *ops[2] = {type, value};
  tx_expr *e = tx_expr_new(b->ir, EXPR_CALL, t, ops, 2, call->span);
  if (!e) return bld_oom(b), NULL;
  e->u.call.op = bld_intern(b, "T.reinterpret");
  e->u.call.kw.npos = 2;
  return e->u.call.op ? e : (bld_oom(b), NULL);
}

/* ---- literals ------------------------------------------------------------------- */

int bld_const_int(const tx_expr *e, int64_t *out) {
  if (!e || e->kind != EXPR_INT) return 0;
  *out = e->u.ival;
  return 1;
}

static const tx_expr *int_literal(builder *b, const tx_ast *a, int negate) {
  uint64_t v = a->u.int_lit.value;
  if (a->u.int_lit.overflow || (negate ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)) {
    BLD_ERROR(b, a, "integer literal %s%s does not fit in 64 bits", negate ? "-" : "",
              a->u.int_lit.text ? a->u.int_lit.text : "");
    return NULL;
  }
  int64_t s = negate ? (int64_t)(0 - v) : (int64_t)v;
  tx_dtype t = (s >= INT32_MIN && s <= INT32_MAX) ? TX_INT32 : TX_INT64;
  tx_expr *e = tx_int(b->ir, t, s, a->span);
  if (!e) bld_oom(b);
  return e;
}

/* T.int8(300), T.float16(1.5), T.bool(True): a typed literal (or a cast). */
static const tx_expr *typed_literal(builder *b, const tx_ast *call, tx_dtype t, int depth) {
  if (call->u.call.args.len != 1 || call->u.call.keywords.len) {
    if (call->u.call.args.len == 0 && call->u.call.keywords.len == 0)
      BLD_ERROR(b, call, "T.<dtype>() declares a symbolic variable; write it as `n = T.int32()`");
    else
      BLD_ERROR(b, call, "a dtype constructor takes exactly one value");
    return NULL;
  }
  const tx_ast *arg = call->u.call.args.items[0];
  int negate = 0;
  if (arg->kind == AST_UNARYOP && arg->u.unop.op == UNOP_NEG &&
      (arg->u.unop.operand->kind == AST_INT || arg->u.unop.operand->kind == AST_FLOAT)) {
    negate = 1;
    arg = arg->u.unop.operand;
  }
  char tbuf[32];
  if (arg->kind == AST_INT || arg->kind == AST_TRUE || arg->kind == AST_FALSE) {
    uint64_t v = arg->kind == AST_INT ? arg->u.int_lit.value : arg->kind == AST_TRUE;
    int overflow = arg->kind == AST_INT && arg->u.int_lit.overflow;
    if (tx_dtype_is_float(t)) {
      tx_expr *e = tx_float(b->ir, t, negate ? -(double)v : (double)v, call->span);
      if (!e) bld_oom(b);
      return e;
    }
    int fits = !overflow;
    int64_t sv = (int64_t)v;
    if (fits && negate) {
      fits = v <= (uint64_t)INT64_MAX + 1;
      sv = (int64_t)(0 - v);
    } else if (fits && v > (uint64_t)INT64_MAX) {
      fits = t.code == DT_UINT && t.bits == 64;
    }
    if (fits) fits = tx_dtype_int_fits(t, sv, v > (uint64_t)INT64_MAX && !negate);
    if (!fits || t.code == DT_HANDLE || t.code == DT_VOID) {
      BLD_ERROR(b, arg, "%s%s does not fit in %s", negate ? "-" : "",
                arg->kind == AST_INT && arg->u.int_lit.text ? arg->u.int_lit.text : "value",
                tx_dtype_str(t, tbuf));
      return NULL;
    }
    tx_expr *e = tx_int(b->ir, t, sv, call->span);
    if (!e) bld_oom(b);
    return e;
  }
  if (arg->kind == AST_FLOAT) {
    if (!tx_dtype_is_float(t)) {
      BLD_ERROR(b, arg, "a float literal cannot be a %s; use T.Cast", tx_dtype_str(t, tbuf));
      return NULL;
    }
    tx_expr *e =
        tx_float(b->ir, t, negate ? -arg->u.float_lit.value : arg->u.float_lit.value, call->span);
    if (!e) bld_oom(b);
    return e;
  }
  if (arg->kind == AST_STR && tx_dtype_is_float(t)) {
    /* T.float32("inf") / ("-inf") / ("nan"), as the printer writes them. */
    const char *s = arg->u.str.data;
    double v = strcmp(s, "inf") == 0    ? INFINITY
               : strcmp(s, "-inf") == 0 ? -INFINITY
               : strcmp(s, "nan") == 0  ? NAN
                                        : 0.0;
    if (v == 0.0) {
      BLD_ERROR(b, arg, "expected \"inf\", \"-inf\" or \"nan\"");
      return NULL;
    }
    tx_expr *e = tx_float(b->ir, t, v, call->span);
    if (!e) bld_oom(b);
    return e;
  }
  /* A non-literal: T.float32(x) converts. */
  const tx_expr *v = build(b, call->u.call.args.items[0], depth + 1);
  if (!v) return NULL;
  tx_expr *e = tx_expr_new(b->ir, EXPR_CAST, t, &v, 1, call->span);
  if (!e) bld_oom(b);
  return e;
}

/* ---- type unification ------------------------------------------------------------ */

const tx_expr *bld_coerce(builder *b, const tx_expr *e, tx_dtype t, tirx_span span,
                          const char *what) {
  if (tx_dtype_eq(e->dtype, t)) return e;
  if (e->kind == EXPR_INT && e->dtype.lanes == 1 && t.lanes == 1) {
    if (tx_dtype_is_float(t)) return tx_float(b->ir, t, (double)e->u.ival, e->span);
    if (tx_dtype_is_int(t) || tx_dtype_is_bool(t)) {
      if (!tx_dtype_int_fits(t, e->u.ival, 0)) {
        char buf[32];
        tx_error(b->diags, e->span, "%lld does not fit in %s", (long long)e->u.ival,
                 tx_dtype_str(t, buf));
        return NULL;
      }
      return tx_int(b->ir, t, e->u.ival, e->span);
    }
  }
  if (e->kind == EXPR_FLOAT && tx_dtype_is_float(t) && t.lanes == 1)
    return tx_float(b->ir, t, e->u.fval, e->span);
  if (e->dtype.lanes == t.lanes && (tx_dtype_is_int(e->dtype) && tx_dtype_is_int(t)))
    return tx_expr_new(b->ir, EXPR_CAST, t, &e, 1, span);
  char a[32], c[32];
  tx_error(b->diags, span, "type mismatch in %s: %s vs %s (use T.Cast to convert)", what,
           tx_dtype_str(e->dtype, a), tx_dtype_str(t, c));
  return NULL;
}

static int is_literal(const tx_expr *e) {
  return e->kind == EXPR_INT || e->kind == EXPR_FLOAT;
}

/* Bring both operands of a binary operator to one dtype, as TVM does:
 * literals take the other side's type, narrower integers widen. */
static int unify(builder *b, const tx_expr **x, const tx_expr **y, tirx_span span,
                 const char *what) {
  tx_dtype tx = (*x)->dtype, ty = (*y)->dtype;
  if (tx_dtype_eq(tx, ty)) return 1;
  const tx_expr **from = NULL;
  tx_dtype to = tx;
  if (is_literal(*y) && !is_literal(*x)) {
    from = y;
    to = tx;
  } else if (is_literal(*x) && !is_literal(*y)) {
    from = x;
    to = ty;
  } else if (tx_dtype_is_int(tx) && tx_dtype_is_int(ty) && tx.lanes == ty.lanes) {
    int x_wider = tx.bits > ty.bits || (tx.bits == ty.bits && tx.code == DT_INT);
    from = x_wider ? y : x;
    to = x_wider ? tx : ty;
  } else if (tx_dtype_is_float(tx) && !tx_dtype_is_float(ty) && is_literal(*y)) {
    from = y;
    to = tx;
  } else if (tx_dtype_is_float(ty) && !tx_dtype_is_float(tx) && is_literal(*x)) {
    from = x;
    to = ty;
  }
  if (from && (*from)->dtype.lanes == 1 && to.lanes > 1) {
    /* A scalar operand against a vector: broadcast it. */
    const tx_expr *s = bld_coerce(b, *from, tx_dtype_elem(to), span, what);
    if (!s) return 0;
    *from = tx_expr_new(b->ir, EXPR_BROADCAST, to, &s, 1, span);
    return *from != NULL || (bld_oom(b), 0);
  }
  if (!from) {
    char a[32], c[32];
    tx_error(b->diags, span, "type mismatch in %s: %s vs %s (use T.Cast to convert)", what,
             tx_dtype_str(tx, a), tx_dtype_str(ty, c));
    return 0;
  }
  const tx_expr *r = bld_coerce(b, *from, to, span, what);
  if (!r) return 0;
  *from = r;
  return 1;
}

/* Operators need values: a tuple or a call without a result (void dtype)
 * is reported, and 0 returned. Without this check -(1, 2) became
 * 0 - (1, 2) with a void 0, which prints as T.void(0) and does not parse
 * back. */
/* An operand of an arithmetic, bitwise or comparison operator: a value, not
 * a tuple, a call without a value or a string (`-""` prints as
 * `T.handle(0) - ""`, which does not parse). */
static int check_operand(builder *b, const tx_expr *e, tirx_span span, const char *what) {
  if (e->dtype.code != DT_VOID && e->kind != EXPR_STRING) return 1;
  const char *it = e->kind == EXPR_TUPLE    ? "a tuple"
                   : e->kind == EXPR_STRING ? "a string"
                                            : "an expression without a value";
  tx_error(b->diags, e->span.line ? e->span : span, "operator '%s' cannot be applied to %s", what,
           it);
  return 0;
}

static const tx_expr *make_binary(builder *b, tx_expr_kind kind, const tx_expr *x, const tx_expr *y,
                                  tirx_span span, const char *what) {
  if (!x || !y) return NULL;
  if (!check_operand(b, x, span, what) || !check_operand(b, y, span, what)) return NULL;
  if (!unify(b, &x, &y, span, what)) return NULL;
  if (kind == EXPR_AND || kind == EXPR_OR) {
    if (!tx_dtype_is_bool(x->dtype)) {
      tx_error(b->diags, span, "operands of '%s' must be boolean", what);
      return NULL;
    }
  }
  tx_expr *e = tx_binary(b->ir, kind, x, y, span);
  if (!e) bld_oom(b);
  /* x // 0 and friends: TVM rejects them as it builds them. */
  if (e && tx_fold_check_operands(b->diags, e, span)) return NULL;
  return e;
}

/* Operators Python spells but TIRx writes as calls. */
static const tx_expr *call_of(builder *b, const char *op, tx_dtype t, const tx_expr *x,
                              const tx_expr *y, tirx_span span) {
  const tx_expr *ops[2] = {x, y};
  tx_expr *e = tx_expr_new(b->ir, EXPR_CALL, t, ops, y ? 2 : 1, span);
  if (!e) return bld_oom(b), NULL;
  e->u.call.op = bld_intern(b, op);
  e->u.call.kw.npos = y ? 2 : 1;
  return e;
}

/* TVM's printer writes a buffer of shape (1,) as a scalar: its bare name used as an
 * operand means its element [0]. Anything else is returned as it is. */
const tx_expr *bld_scalar_value(builder *b, const tx_expr *e) {
  int64_t one;
  if (!e || e->kind != EXPR_BUFFER || e->u.buffer->ndim != 1 ||
      !bld_const_int(e->u.buffer->shape[0], &one) || one != 1)
    return e;
  const tx_expr *zero = tx_int(b->ir, TX_INT32, 0, e->span);
  tx_expr *l = zero ? tx_expr_new(b->ir, EXPR_LOAD, e->u.buffer->dtype, &zero, 1, e->span) : NULL;
  if (!l) return bld_oom(b), NULL;
  l->u.buffer = e->u.buffer;
  return l;
}

/* x OP y for an operator TIRx spells as a call (`call`, such as
 * T.shift_left for `<<`): the operands' types matched as for + and, with
 * `integer`, integers (or booleans) required. TVM's T.shift_left(x, 3)
 * means x << 3 and comes here too. */
static const tx_expr *operator_call(builder *b, const char *call, const char *sym, int integer,
                                    const tx_expr *x, const tx_expr *y, tirx_span span) {
  if (!check_operand(b, x, span, sym) || !check_operand(b, y, span, sym) ||
      !unify(b, &x, &y, span, sym))
    return NULL;
  if (integer && !tx_dtype_is_int(x->dtype) && !tx_dtype_is_bool(x->dtype)) {
    tx_error(b->diags, span, "operator '%s' needs integer operands", sym);
    return NULL;
  }
  const tx_expr *e = call_of(b, call, x->dtype, x, y, span);
  /* x << 64 on int64: TVM rejects a literal shift amount out of range. */
  if (e && tx_fold_check_operands(b->diags, e, span)) return NULL;
  return e;
}

/* The operator a call names (T.bitwise_and: "&"), or NULL. */
static const char *operator_of_call(const char *q) {
  static const char *const calls[][2] = {{"T.shift_left", "<<"},
                                         {"T.shift_right", ">>"},
                                         {"T.bitwise_and", "&"},
                                         {"T.bitwise_or", "|"},
                                         {"T.bitwise_xor", "^"}};
  for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
    if (strcmp(q, calls[i][0]) == 0) return calls[i][1];
  return NULL;
}

static const tx_expr *build_binop(builder *b, const tx_ast *a, int depth) {
  const tx_expr *x = bld_scalar_value(b, build(b, a->u.binop.left, depth + 1));
  const tx_expr *y = bld_scalar_value(b, build(b, a->u.binop.right, depth + 1));
  if (!x || !y) return NULL;
  static const struct {
    tx_expr_kind kind;
    const char *call, *sym;
  } ops[] = {
      [BINOP_ADD] = {EXPR_ADD, NULL, "+"},
      [BINOP_SUB] = {EXPR_SUB, NULL, "-"},
      [BINOP_MUL] = {EXPR_MUL, NULL, "*"},
      [BINOP_DIV] = {EXPR_DIV, NULL, "/"},
      [BINOP_FLOORDIV] = {EXPR_FLOORDIV, NULL, "//"},
      [BINOP_MOD] = {EXPR_FLOORMOD, NULL, "%"},
      [BINOP_POW] = {EXPR_CALL, "T.pow", "**"},
      [BINOP_MATMUL] = {EXPR_CALL, NULL, "@"},
      [BINOP_LSHIFT] = {EXPR_CALL, "T.shift_left", "<<"},
      [BINOP_RSHIFT] = {EXPR_CALL, "T.shift_right", ">>"},
      [BINOP_BITAND] = {EXPR_CALL, "T.bitwise_and", "&"},
      [BINOP_BITOR] = {EXPR_CALL, "T.bitwise_or", "|"},
      [BINOP_BITXOR] = {EXPR_CALL, "T.bitwise_xor", "^"},
  };
  tx_binop op = a->u.binop.op;
  if (op == BINOP_MATMUL) {
    BLD_ERROR(b, a, "'@' is only meaningful inside a layout (stride @ axis)");
    return NULL;
  }
  if (ops[op].kind != EXPR_CALL) return make_binary(b, ops[op].kind, x, y, a->span, ops[op].sym);
  return operator_call(b, ops[op].call, ops[op].sym, op != BINOP_POW, x, y, a->span);
}

static const tx_expr *build_unary(builder *b, const tx_ast *a, int depth) {
  const tx_ast *operand = a->u.unop.operand;
  if (a->u.unop.op == UNOP_NEG && operand->kind == AST_INT) return int_literal(b, operand, 1);
  const tx_expr *x = build(b, operand, depth + 1);
  if (!x) return NULL;
  switch (a->u.unop.op) {
  case UNOP_POS: /* `+x` is x, but only for a value (`+T.break_loop()` is no statement) */
    return check_operand(b, x, a->span, "+") ? x : NULL;
  case UNOP_NEG:
    if (!check_operand(b, x, a->span, "-")) return NULL;
    if (x->kind == EXPR_FLOAT) return tx_float(b->ir, x->dtype, -x->u.fval, a->span);
    {
      const tx_expr *zero = tx_dtype_is_float(x->dtype) ? tx_float(b->ir, x->dtype, 0.0, a->span)
                                                        : tx_int(b->ir, x->dtype, 0, a->span);
      if (!zero) return bld_oom(b), NULL;
      return make_binary(b, EXPR_SUB, zero, x, a->span, "-");
    }
  case UNOP_NOT: {
    if (!tx_dtype_is_bool(x->dtype)) {
      BLD_ERROR(b, a, "operand of 'not' must be boolean");
      return NULL;
    }
    tx_expr *e = tx_expr_new(b->ir, EXPR_NOT, x->dtype, &x, 1, a->span);
    if (!e) bld_oom(b);
    return e;
  }
  case UNOP_INVERT:
    if (!tx_dtype_is_int(x->dtype)) {
      BLD_ERROR(b, a, "operator '~' needs an integer operand");
      return NULL;
    }
    return call_of(b, "T.bitwise_not", x->dtype, x, NULL, a->span);
  }
  return NULL;
}

static const tx_expr *build_compare(builder *b, const tx_ast *a, int depth) {
  static const tx_expr_kind kinds[] = {[CMP_EQ] = EXPR_EQ, [CMP_NE] = EXPR_NE, [CMP_LT] = EXPR_LT,
                                       [CMP_LE] = EXPR_LE, [CMP_GT] = EXPR_GT, [CMP_GE] = EXPR_GE};
  static const char *const syms[] = {"==", "!=", "<",      "<=", ">",
                                     ">=", "is", "is not", "in", "not in"};
  const tx_expr *left = bld_scalar_value(b, build(b, a->u.compare.left, depth + 1)), *result = NULL;
  for (size_t i = 0; i < a->u.compare.comparators.len; i++) {
    tx_cmpop op = a->u.compare.ops[i];
    const tx_expr *right =
        bld_scalar_value(b, build(b, a->u.compare.comparators.items[i], depth + 1));
    if (op > CMP_GE) {
      BLD_ERROR(b, a, "operator '%s' is not supported in TIRx", syms[op]);
      return NULL;
    }
    if (!left || !right) return NULL;
    const tx_expr *cmp = make_binary(b, kinds[op], left, right, a->span, syms[op]);
    if (!cmp) return NULL;
    /* a < b < c means (a < b) and (b < c). */
    result = result ? make_binary(b, EXPR_AND, result, cmp, a->span, "and") : cmp;
    if (!result) return NULL;
    left = right;
  }
  return result;
}

static const tx_expr *build_boolop(builder *b, const tx_ast *a, int depth) {
  const tx_expr *acc = NULL;
  for (size_t i = 0; i < a->u.boolop.values.len; i++) {
    const tx_expr *v = build(b, a->u.boolop.values.items[i], depth + 1);
    if (!v) return NULL;
    const char *what = a->u.boolop.is_and ? "and" : "or";
    acc = acc ? make_binary(b, a->u.boolop.is_and ? EXPR_AND : EXPR_OR, acc, v, a->span, what) : v;
    if (!acc) return NULL;
  }
  return acc;
}

static const tx_expr *make_select(builder *b, const tx_expr *c, const tx_expr *t, const tx_expr *f,
                                  tirx_span span) {
  if (!c || !t || !f) return NULL;
  if (!tx_dtype_is_bool(c->dtype)) {
    tx_error(b->diags, span, "the condition of a select must be boolean");
    return NULL;
  }
  if (!unify(b, &t, &f, span, "select")) return NULL;
  const tx_expr *ops[3] = {c, t, f};
  tx_expr *e = tx_expr_new(b->ir, EXPR_SELECT, t->dtype, ops, 3, span);
  if (!e) bld_oom(b);
  return e;
}

/* ---- names, attributes, subscripts ------------------------------------------------- */

/* The buffer `buf` as a value; `source`: written TVM's `A.source` (tx_expr.source_form). */
static const tx_expr *buffer_value(builder *b, const tx_buffer *buf, int source, tirx_span span) {
  tx_expr *e = tx_expr_new(b->ir, EXPR_BUFFER, buf->dtype, NULL, 0, span);
  if (!e) return bld_oom(b), NULL;
  e->u.buffer = buf;
  e->source_form = (uint8_t)source;
  return e;
}

static const tx_expr *buffer_ref(builder *b, const tx_buffer *buf, tirx_span span) {
  return buffer_value(b, buf, 0, span);
}

static const tx_expr *build_name(builder *b, const tx_ast *a) {
  const symbol *s = bld_lookup(b, a->u.name.id);
  if (!s) {
    BLD_ERROR(b, a, "undefined name '%s'", a->u.name.id);
    return NULL;
  }
  switch (s->kind) {
  case SYM_VAR:
    if (s->expr->u.var.form == VAR_SYMBOLIC) {
      /* A module-level extent becomes part of the function that uses it. */
      uint32_t i = 0;
      while (i < b->symbolic.len && b->symbolic.items[i] != s->expr)
        i++;
      if (i == b->symbolic.len) vec_push(b, &b->symbolic, s->expr);
    }
    return s->expr;
  case SYM_CONST:
    return s->expr;
  case SYM_BUFFER:
    if (s->scalar) {
      /* bar = T.shared_scalar("uint64"): `bar` is the element bar[0]. */
      /* A T.decl_scalar buffer has no dimensions: a load without indices. */
      uint32_t nidx = s->buffer->ndim ? 1 : 0;
      const tx_expr *zero = tx_int(b->ir, TX_INT32, 0, a->span);
      tx_expr *e =
          zero ? tx_expr_new(b->ir, EXPR_LOAD, s->buffer->dtype, &zero, nidx, a->span) : NULL;
      if (!e) return bld_oom(b), NULL;
      e->u.buffer = s->buffer;
      return e;
    }
    return buffer_ref(b, s->buffer, a->span);
  case SYM_MODULE_TIRX:
  case SYM_MODULE_IR:
  case SYM_MODULE_TILE:
  case SYM_LAYOUT_NAME:
    break;
  }
  BLD_ERROR(b, a, "'%s' names a module, not a value", a->u.name.id);
  return NULL;
}

/* Is `a` the attribute `name` of something? */
static int is_attr_named(const tx_ast *a, const char *name) {
  return a->kind == AST_ATTR && strcmp(a->u.attr.attr, name) == 0;
}

/* The buffer a node names (a buffer name, or TVM's `X.source` of one), or NULL
 * without reporting. */
static const tx_buffer *buffer_of(builder *b, const tx_ast *a) {
  if (is_attr_named(a, "source")) a = a->u.attr.value;
  if (a->kind != AST_NAME) return NULL;
  const symbol *s = bld_lookup(b, a->u.name.id);
  return s && s->kind == SYM_BUFFER ? s->buffer : NULL;
}

/* The scalar-sugar variable `x` of TVM's `x.source` (x: T.float32 is a one-element local
 * buffer and .source names that buffer), or NULL without reporting. */
static const tx_expr *scalar_source_of(builder *b, const tx_ast *a) {
  if (!is_attr_named(a, "source") || a->u.attr.value->kind != AST_NAME) return NULL;
  const symbol *s = bld_lookup(b, a->u.attr.value->u.name.id);
  return s && s->kind == SYM_VAR && s->expr->u.var.form == VAR_SCALAR ? s->expr : NULL;
}

/* `x.source.data` of a scalar x: the address of its storage, T.address_of(x). */
static const tx_expr *scalar_address(builder *b, const tx_expr *x, tirx_span span) {
  tx_expr *e = tx_expr_new(b->ir, EXPR_CALL, TX_HANDLE, &x, 1, span);
  if (!e || !(e->u.call.op = bld_intern(b, "T.address_of"))) return bld_oom(b), NULL;
  e->u.call.kw.npos = 1;
  e->source_form = 1; /* printed back as written */
  return e;
}

static const tx_expr *build_attr(builder *b, const tx_ast *a) {
  const tx_buffer *buf = buffer_of(b, a->u.attr.value);
  const char *attr = a->u.attr.attr;
  /* TVM's printer writes a one-element buffer as a scalar; `X.source` is the buffer. */
  if (strcmp(attr, "source") == 0 && (buf = buffer_of(b, a)))
    return buffer_value(b, buf, 1, a->span);
  if (is_type_object(b, a)) {
    tx_dtype t;
    return reinterpret_type(b, a, &t); /* return_type=T.handle().ty */
  }
  const tx_expr *scalar = scalar_source_of(b, a->u.attr.value);
  if (scalar && strcmp(attr, "data") == 0) return scalar_address(b, scalar, a->span);
  if (strcmp(attr, "source") == 0 && scalar_source_of(b, a)) {
    BLD_ERROR(b, a, "'%s.source' (the storage of a scalar) can only be indexed or take .data",
              a->u.attr.value->u.name.id);
    return NULL;
  }
  if (buf) {
    if (strcmp(attr, "data") == 0) return buf->data;
    if (strcmp(attr, "elem_offset") == 0 && buf->elem_offset) return buf->elem_offset;
    if (strcmp(attr, "shape") == 0) {
      tx_expr *e = tx_expr_new(b->ir, EXPR_TUPLE, TX_VOID, buf->shape, buf->ndim, a->span);
      if (!e) bld_oom(b);
      return e;
    }
    BLD_ERROR(b, a, "buffer '%s' has no attribute '%s' (expected data, shape or elem_offset)",
              buf->name, attr);
    return NULL;
  }
  const char *q = bld_qualified_name(b, a, NULL);
  tx_dtype dt;
  if (q && bld_dtype_attr(b, a, &dt, 0)) {
    BLD_ERROR(b, a, "%s is a type; write %s(value) for a literal", q, q);
    return NULL;
  }
  if (q) {
    const char *sugg = tx_intrinsic_suggest(q);
    if (tx_intrinsic_find(q))
      BLD_ERROR(b, a, "'%s' must be called", q);
    else if (sugg)
      BLD_ERROR(b, a, "unknown name '%s'; did you mean '%s'?", q, sugg);
    else
      BLD_ERROR(b, a, "unknown name '%s'", q);
    return NULL;
  }
  if (a->u.attr.value->kind == AST_NAME && !bld_lookup(b, a->u.attr.value->u.name.id)) {
    BLD_ERROR(b, a->u.attr.value, "undefined name '%s'", a->u.attr.value->u.name.id);
    return NULL;
  }
  BLD_ERROR(b, a, "attribute '%s' is not supported here", attr);
  return NULL;
}

static int check_index_count(builder *b, const tx_ast *a, const tx_buffer *buf, size_t n) {
  if (n == buf->ndim || (buf->ndim == 0 && n == 1)) return 1;
  BLD_ERROR(b, a, "buffer '%s' has %u dimension%s but %zu ind%s given", buf->name, buf->ndim,
            buf->ndim == 1 ? "" : "s", n, n == 1 ? "ex was" : "ices were");
  return 0;
}

static const tx_expr *build_index(builder *b, const tx_ast *a, int depth) {
  const tx_expr *e = build(b, a, depth + 1);
  if (e && !tx_dtype_is_int(e->dtype)) {
    char buf[32];
    BLD_ERROR(b, a, "buffer index must be an integer, not %s", tx_dtype_str(e->dtype, buf));
    return NULL;
  }
  return e;
}

/* lower:upper, or (in a store target only: b->slice_steps) lower:upper:step,
 * an EXPR_SLICE of two or three operands. */
static const tx_expr *build_slice(builder *b, const tx_ast *s, int depth) {
  if (s->u.slice.step && !b->slice_steps) {
    BLD_ERROR(b, s->u.slice.step, "strided buffer regions are not supported");
    return NULL;
  }
  const tx_expr *ops[3];
  const tx_ast *ends[3] = {s->u.slice.lower, s->u.slice.upper, s->u.slice.step};
  uint32_t n = s->u.slice.step ? 3 : 2;
  for (uint32_t i = 0; i < n; i++) {
    ops[i] = ends[i] ? build_index(b, ends[i], depth) : tx_none(b->ir, s->span);
    if (!ops[i]) return NULL;
  }
  tx_expr *e = tx_expr_new(b->ir, EXPR_SLICE, TX_INT32, ops, n, s->span);
  if (!e) bld_oom(b);
  return e;
}

/* TVM's reference to a value it printed as metadata and omitted from the
 * text, `metadata["ir.StringImm"][0]` (while no `metadata` is defined), or
 * NULL when `a` is not one. Kept as the opaque call `metadata` ("kind", i),
 * a handle as TVM's StringImm is; lowering refuses it (the value is gone). */
static const tx_expr *metadata_ref(builder *b, const tx_ast *a) {
  const tx_ast *inner = a->u.subscript.value, *idx = a->u.subscript.index;
  if (inner->kind != AST_SUBSCRIPT || inner->u.subscript.value->kind != AST_NAME ||
      strcmp(inner->u.subscript.value->u.name.id, "metadata") != 0 ||
      bld_lookup(b, inner->u.subscript.value->u.name.id) ||
      inner->u.subscript.index->kind != AST_STR || idx->kind != AST_INT)
    return NULL;
  const tx_ast *key = inner->u.subscript.index;
  const tx_expr *ops[2] = {tx_string(b->ir, key->u.str.data, key->u.str.len, key->span),
                           tx_int(b->ir, TX_INT32, (int64_t)idx->u.int_lit.value, idx->span)};
  tx_expr *e = ops[0] && ops[1] ? tx_expr_new(b->ir, EXPR_CALL, TX_HANDLE, ops, 2, a->span) : NULL;
  if (!e || !(e->u.call.op = bld_intern(b, TX_METADATA_OP))) return bld_oom(b), NULL;
  e->u.call.kw.npos = 2;
  return e;
}

/* A[i, j] (a load) or A[0:16, k] (a region). */
static const tx_expr *build_subscript(builder *b, const tx_ast *a, int depth, int allow_region) {
  const tx_ast *idx = a->u.subscript.index;
  const tx_expr *meta = metadata_ref(b, a);
  if (meta) return meta;
  const tx_buffer *buf = buffer_of(b, a->u.subscript.value);
  const tx_expr *scalar = buf ? NULL : scalar_source_of(b, a->u.subscript.value);
  if (scalar) {
    /* x.source[0]: the one element of scalar x's storage, i.e. x. */
    int64_t k = -1;
    if (idx->kind == AST_INT) k = (int64_t)idx->u.int_lit.value;
    if (k != 0) {
      BLD_ERROR(b, idx, "'%s.source' has one element: index it with [0]",
                a->u.subscript.value->u.attr.value->u.name.id);
      return NULL;
    }
    return scalar;
  }
  if (!buf) {
    const tx_expr *base = build(b, a->u.subscript.value, depth + 1);
    if (!base) return NULL;
    int64_t k;
    if (base->kind == EXPR_TUPLE && idx->kind == AST_INT) {
      k = (int64_t)idx->u.int_lit.value;
      if (k < (int64_t)base->nops) return base->ops[k];
      BLD_ERROR(b, idx, "index %lld out of range for a tuple of %u", (long long)k, base->nops);
      return NULL;
    }
    BLD_ERROR(b, a, "only buffers can be indexed");
    return NULL;
  }
  const tx_ast *const *items = &idx;
  size_t n = 1;
  if (idx->kind == AST_TUPLE) {
    items = (const tx_ast *const *)idx->u.seq.elts.items;
    n = idx->u.seq.elts.len;
  }
  if (!check_index_count(b, a, buf, n)) return NULL;
  ptr_vec ops = {0};
  int region = 0, ok = 1;
  for (size_t i = 0; i < n && ok; i++) {
    const tx_expr *e = items[i]->kind == AST_SLICE ? (region = 1, build_slice(b, items[i], depth))
                                                   : build_index(b, items[i], depth);
    ok = e && vec_push(b, &ops, e);
  }
  if (region && !allow_region && ok) {
    BLD_ERROR(b, a, "a buffer region (slice) is only allowed as an argument of a call");
    ok = 0;
  }
  tx_expr *e = NULL;
  if (ok) {
    tx_dtype t = buf->dtype;
    /* A vector index (a Ramp) loads that many lanes. */
    if (!region && n >= 1 && ((const tx_expr *)ops.items[n - 1])->dtype.lanes > 1)
      t = tx_dtype_lanes_of(t, ((const tx_expr *)ops.items[n - 1])->dtype);
    e = tx_expr_new(b->ir, region ? EXPR_REGION : EXPR_LOAD, t, (const tx_expr *const *)ops.items,
                    ops.len, a->span);
    if (e) {
      e->u.buffer = buf;
      e->source_form = is_attr_named(a->u.subscript.value, "source"); /* A.source[0] */
    } else {
      bld_oom(b);
    }
  }
  vec_free(&ops);
  return e;
}

/* ---- calls ------------------------------------------------------------------------ */

int bld_call_operands(builder *b, const tx_ast *call, uint32_t skip_pos, ptr_vec *ops,
                      ptr_vec *kw_names, uint32_t *npos) {
  int ok = 1;
  *npos = 0;
  for (size_t i = skip_pos; i < call->u.call.args.len; i++) {
    const tx_ast *arg = call->u.call.args.items[i];
    if (arg->kind == AST_STARRED) {
      BLD_ERROR(b, arg, "*args is not supported in text form");
      ok = 0;
      continue;
    }
    const tx_expr *e = bld_arg(b, arg);
    ok = ok && e && vec_push(b, ops, e);
    (*npos)++;
  }
  for (size_t i = 0; i < call->u.call.keywords.len; i++) {
    const tx_ast *kw = call->u.call.keywords.items[i];
    if (!kw->u.keyword.arg) {
      BLD_ERROR(b, kw, "**kwargs is not supported in text form");
      ok = 0;
      continue;
    }
    for (size_t j = 0; j < i; j++)
      if (call->u.call.keywords.items[j]->u.keyword.arg == kw->u.keyword.arg) {
        BLD_ERROR(b, kw, "keyword argument '%s' repeated", kw->u.keyword.arg);
        ok = 0;
      }
    const tx_expr *e = bld_arg(b, kw->u.keyword.value);
    ok = ok && e && vec_push(b, ops, e) && vec_push(b, kw_names, kw->u.keyword.arg);
  }
  return ok;
}

/* Is `a` TVM's `x.source[...]` of a scalar-sugar x? */
static int is_scalar_source_elem(builder *b, const tx_ast *a) {
  return a->kind == AST_SUBSCRIPT && scalar_source_of(b, a->u.subscript.value);
}

uint32_t bld_source_operands(builder *b, const tx_ast *call, uint32_t first) {
  uint32_t mask = 0, i = first;
  for (size_t k = 0; k < call->u.call.args.len; k++, i++)
    if (i < 32 && is_scalar_source_elem(b, call->u.call.args.items[k])) mask |= 1u << i;
  for (size_t k = 0; k < call->u.call.keywords.len; k++, i++) {
    const tx_ast *kw = call->u.call.keywords.items[k];
    if (i < 32 && is_scalar_source_elem(b, kw->u.keyword.value)) mask |= 1u << i;
  }
  return mask;
}

/* The dtype a PTX scalar type is read into (TVM's table for atom/red/ld):
 * void for anything else, which codegen then reports. */
static tx_dtype ptx_scalar_dtype(const char *p) {
  static const struct {
    const char *ptx;
    tx_dtype_code code;
    int bits;
  } map[] = {{"b32", DT_UINT, 32},  {"u32", DT_UINT, 32}, {"s32", DT_INT, 32},
             {"b64", DT_UINT, 64},  {"u64", DT_UINT, 64}, {"s64", DT_INT, 64},
             {"f32", DT_FLOAT, 32}, {"f64", DT_FLOAT, 64}};
  for (size_t i = 0; i < sizeof map / sizeof *map; i++)
    if (strcmp(p, map[i].ptx) == 0) return tx_dt(map[i].code, map[i].bits, 1);
  return TX_VOID;
}

/* Does keyword `k` name a call's result dtype (`return_type=`, `dtype=`, or
 * T.call_ffi_kernel's `ret_ty=`)? */
static int is_result_keyword(const char *k) {
  return strcmp(k, "return_type") == 0 || strcmp(k, "dtype") == 0 || strcmp(k, "ret_ty") == 0;
}

static tx_dtype result_type(builder *b, const tx_intrinsic *in, const tx_expr *const *ops,
                            uint32_t npos, uint32_t nops, const char *const *kw) {
  switch (in->result) {
  case RES_VOID:
    return TX_VOID;
  case RES_ARG0:
    return npos > 0 ? ops[0]->dtype : TX_VOID;
  case RES_ARG1:
    return npos > 1 ? ops[1]->dtype : TX_VOID;
  case RES_BOOL:
    return TX_BOOL;
  case RES_INT32:
    return TX_INT32;
  case RES_UINT32:
    return tx_dt(DT_UINT, 32, 1);
  case RES_INT64:
    return TX_INT64;
  case RES_UINT64:
    return tx_dt(DT_UINT, 64, 1);
  case RES_FLOAT32:
    return TX_FLOAT32;
  case RES_HANDLE:
    return TX_HANDLE;
  case RES_KW_DTYPE:
  case RES_ARG0_DTYPE_STR:
  case RES_ARG3_DTYPE: {
    const tx_expr *s = NULL;
    if (in->result == RES_ARG0_DTYPE_STR && npos > 0) s = ops[0];
    if (in->result == RES_ARG3_DTYPE && npos > 3) s = ops[3];
    for (uint32_t i = npos; i < nops && !s; i++)
      if (is_result_keyword(kw[i - npos])) s = ops[i];
    tx_dtype t;
    if (s && s->kind == EXPR_STRING && tx_dtype_parse(s->u.str.data, s->u.str.len, &t)) return t;
    /* return_type=T.handle(...) / T.handle(...).ty: a pointer */
    if (s && s->kind == EXPR_CALL && s->u.call.op == bld_intern(b, "T.handle")) return TX_HANDLE;
    return TX_VOID;
  }
  case RES_DTYPE_STR: {
    tx_dtype t;
    for (uint32_t i = npos; i < nops; i++)
      if (is_result_keyword(kw[i - npos]))
        return ops[i]->kind == EXPR_STRING &&
                       tx_dtype_parse(ops[i]->u.str.data, ops[i]->u.str.len, &t)
                   ? t
                   : TX_VOID;
    for (uint32_t i = 0; i < npos; i++)
      if (ops[i]->kind == EXPR_STRING && tx_dtype_parse(ops[i]->u.str.data, ops[i]->u.str.len, &t))
        return t;
    return TX_VOID;
  }
  case RES_PTX_TYPE: {
    const tx_expr *s = NULL;
    for (uint32_t i = npos; i < nops; i++)
      if (strcmp(kw[i - npos], "ptx_type") == 0) s = ops[i];
    for (uint32_t i = npos; i-- > 0 && !s;)
      if (ops[i]->kind == EXPR_STRING) s = ops[i];
    return s && s->kind == EXPR_STRING ? ptx_scalar_dtype(s->u.str.data) : TX_VOID;
  }
  case RES_INT_BITS_ARG0:
    return npos > 0 && ops[0]->kind == EXPR_INT && ops[0]->u.ival == 64 ? TX_INT64 : TX_INT32;
  }
  return TX_VOID;
}

static int check_intrinsic(builder *b, const tx_ast *call, const tx_intrinsic *in, uint32_t npos,
                           const ptr_vec *kw) {
  /* Keywords may fill positional parameters (tcgen05.alloc(p, n_cols=512)). */
  uint32_t filled = npos;
  for (uint32_t i = 0; i < kw->len; i++)
    if (strcmp(in->keywords, "*") != 0 && tx_intrinsic_allows_keyword(in, kw->items[i])) filled++;
  if ((int)filled < in->min_args || (in->max_args >= 0 && (int)npos > in->max_args)) {
    if (in->min_args == in->max_args)
      BLD_ERROR(b, call, "%s takes %d positional argument%s but %u %s given", in->name,
                in->min_args, in->min_args == 1 ? "" : "s", npos, npos == 1 ? "was" : "were");
    else if (in->max_args < 0)
      BLD_ERROR(b, call, "%s takes at least %d positional arguments but %u %s given", in->name,
                in->min_args, npos, npos == 1 ? "was" : "were");
    else
      BLD_ERROR(b, call, "%s takes %d to %d positional arguments but %u %s given", in->name,
                in->min_args, in->max_args, npos, npos == 1 ? "was" : "were");
    return 0;
  }
  for (uint32_t i = 0; i < kw->len; i++) {
    if (!tx_intrinsic_allows_keyword(in, kw->items[i])) {
      BLD_ERROR(b, call, "%s got an unexpected keyword argument '%s'", in->name,
                (const char *)kw->items[i]);
      return 0;
    }
  }
  return 1;
}

static void report_unknown_callee(builder *b, const tx_ast *call, const char *q) {
  static const char *const type_prefixes[] = {"T.float", "T.int", "T.uint", "T.bfloat"};
  for (size_t i = 0; i < sizeof type_prefixes / sizeof *type_prefixes; i++) {
    size_t n = strlen(type_prefixes[i]);
    if (strncmp(q, type_prefixes[i], n) == 0 && q[n] >= '0' && q[n] <= '9') {
      BLD_ERROR(b, call->u.call.func, "unknown data type '%s'", q + 2);
      return;
    }
  }
  const char *sugg = tx_intrinsic_suggest(q);
  if (sugg)
    BLD_ERROR(b, call->u.call.func, "unknown intrinsic '%s'; did you mean '%s'?", q, sugg);
  else
    BLD_ERROR(b, call->u.call.func, "unknown intrinsic '%s'", q);
}

/* A checked call `q(args...)` of a registered intrinsic, ops built from the AST. */
static const tx_expr *build_intrinsic_call(builder *b, const tx_ast *call, const char *q,
                                           const tx_expr *self) {
  if (b->launch_entry &&
      (strcmp(q, "T.cuda.block_idx") == 0 || strcmp(q, "T.cuda.thread_idx") == 0))
    return bld_launch_index(b, call, q);
  if (strcmp(q, "T.reinterpret") == 0 && !self) return build_reinterpret(b, call);
  const tx_intrinsic *in = tx_intrinsic_find(q);
  /* T.ptx["any.opcode"](...) passes a raw opcode through unchecked, named so
   * that it prints as a call that parses back to the same opcode. */
  static const tx_intrinsic raw_ptx = {"T.ptx", 0, -1, RES_KW_DTYPE, "*", INTRIN_EXPR};
  /* TVM's printed table form, kept as written; it wins over an older helper
   * of the same name (ir/ptx_dialect.h says how they are told apart). */
  static const tx_intrinsic printed_ptx = {"T.ptx", 0, -1, RES_VOID, "", INTRIN_EXPR};
  if (call->u.call.func->kind == AST_ATTR && strncmp(q, "T.ptx.", 6) == 0) {
    int printed = bld_ptx_printed_form(b, call, q);
    if (printed < 0) return NULL;
    if (printed) in = &printed_ptx;
  }
  if (!in && (strncmp(q, "T.ptx.", 6) == 0 || strncmp(q, "T.ptx[", 6) == 0) &&
      call->u.call.func->kind == AST_SUBSCRIPT) {
    q = bld_raw_ptx_name(b, q);
    if (!q) return NULL;
    in = &raw_ptx;
  }
  if (!in && call->u.call.func->kind == AST_ATTR) {
    /* T.ptx.ld.global_.b32(...) is T.ptx["ld.global.b32"](...) (TVM's PTX dialect). */
    const char *raw = bld_ptx_chain_name(b, q);
    if (raw && !tx_intrinsic_find(raw)) {
      q = raw;
      in = &raw_ptx;
    }
  }
  if (!in) {
    report_unknown_callee(b, call, q);
    return NULL;
  }
  if (in->kind == INTRIN_TILE) {
    BLD_ERROR(b, call, "tile primitive %s is a statement and has no value", q);
    return NULL;
  }
  ptr_vec ops = {0}, kw = {0};
  uint32_t npos = 0;
  const tx_expr *result = NULL;
  if ((!self || vec_push(b, &ops, self)) && bld_call_operands(b, call, 0, &ops, &kw, &npos) &&
      check_intrinsic(b, call, in, npos, &kw)) {
    uint32_t nops = ops.len, nkw = kw.len;
    const char *sym = self || npos != 2 || nkw ? NULL : operator_of_call(q);
    if (sym) {
      result = operator_call(b, q, sym, 1, ops.items[0], ops.items[1], call->span);
      vec_free(&ops);
      vec_free(&kw);
      return result;
    }
    tx_dtype t = result_type(b, in, (const tx_expr *const *)ops.items, npos, nops,
                             (const char *const *)kw.items);
    tx_expr *e =
        tx_expr_new(b->ir, EXPR_CALL, t, (const tx_expr *const *)ops.items, nops, call->span);
    if (e) {
      e->u.call.op = q;
      e->u.call.kw.npos = npos + (self ? 1 : 0);
      e->u.call.kw.names = nkw ? (const char *const *)vec_finish(b, &kw) : NULL;
      e->u.call.kw.source_ops = bld_source_operands(b, call, self ? 1 : 0);
      /* T.shift_left(x, 64) on int64, as the operator form. */
      result = tx_fold_check_operands(b->diags, e, call->span) ? NULL : e;
    } else {
      bld_oom(b);
    }
  }
  vec_free(&ops);
  vec_free(&kw);
  return result;
}

/* The operand of a method call given positionally at `pos` (0: the first
 * after the buffer) or as keyword `kw`, or NULL. ops are the call's
 * operands: the buffer, npos positional ones, then one per keyword. */
static const tx_expr *method_arg(const ptr_vec *ops, const ptr_vec *kw, uint32_t npos, uint32_t pos,
                                 const char *name) {
  if (pos < npos) return ops->items[1 + pos];
  for (uint32_t k = 0; k < kw->len; k++)
    if (strcmp(kw->items[k], name) == 0) return ops->items[npos + 1 + k];
  return NULL;
}

/* Is keyword `name` among the call's keywords? */
static int has_kw(const ptr_vec *kw, const char *name) {
  for (uint32_t k = 0; k < kw->len; k++)
    if (strcmp(kw->items[k], name) == 0) return 1;
  return 0;
}

/* TVM's rules for A.vload(begin, dtype, predicate) and A.vstore(begin,
 * value, predicate) (tirx.BufferVar.vload/vstore): the value's elements are
 * the buffer's, its lanes a multiple of the buffer's; a vector last index
 * has as many lanes as the access has elements; a predicate is a bool mask
 * of the value's lanes. `t` is the value's dtype. */
static int check_vector_access(builder *b, const tx_ast *call, const tx_buffer *buf,
                               const char *method, tx_dtype t, const tx_expr *begin,
                               const tx_expr *pred) {
  char vb[32], eb[32];
  int load = strcmp(method, "vload") == 0;
  int bl = buf->dtype.lanes ? buf->dtype.lanes : 1;
  if (!tx_dtype_eq(tx_dtype_elem(t), tx_dtype_elem(buf->dtype)) || t.lanes % bl != 0) {
    BLD_ERROR(b, call, "%s.%s: cannot %s %s %s a buffer of %s", buf->name, method,
              load ? "load" : "store", tx_dtype_str(t, vb), load ? "from" : "to",
              tx_dtype_str(buf->dtype, eb));
    return 0;
  }
  const tx_expr *last = begin && begin->kind == EXPR_TUPLE
                            ? (begin->nops ? begin->ops[begin->nops - 1] : NULL)
                            : begin;
  int factor = t.lanes / bl;
  if (last && last->dtype.lanes > 1 && last->dtype.lanes != factor) {
    BLD_ERROR(b, call, "%s.%s: the index has %d lanes but the %s has %d element%s", buf->name,
              method, last->dtype.lanes, load ? "load" : "store", factor, factor == 1 ? "" : "s");
    return 0;
  }
  /* TVM's masks are bool or uint1 (T.get_active_lane_mask("uint1x4", ...)). */
  int mask_type = pred && (pred->dtype.code == DT_BOOL ||
                           (pred->dtype.code == DT_UINT && pred->dtype.bits == 1));
  if (pred && (!mask_type || pred->dtype.lanes != t.lanes)) {
    BLD_ERROR(b, call, "%s.%s: predicate= must be a bool mask of %d lane%s, not %s", buf->name,
              method, t.lanes, t.lanes == 1 ? "" : "s", tx_dtype_str(pred->dtype, vb));
    return 0;
  }
  return 1;
}

/* A.vload([i], dtype, predicate=...), A.ptr_to([i]), A.access_ptr(...),
 * A.vstore([i], value, predicate=...). The dtype and the predicate may be
 * positional or keywords, as in TVM's Python methods. */
static const tx_expr *build_buffer_method(builder *b, const tx_ast *call, const tx_buffer *buf) {
  const char *method = call->u.call.func->u.attr.attr;
  static const struct {
    const char *name;
    int min_args, max_args;
    const char *keywords;
  } methods[] = {{"vload", 1, 3, "dtype,predicate"},
                 {"vstore", 2, 3, "predicate"},
                 {"ptr_to", 1, 1, ""},
                 {"access_ptr", 1, 5, "offset,extent,ptr_type,content_lanes"}};
  for (size_t i = 0; i < sizeof methods / sizeof *methods; i++) {
    if (strcmp(method, methods[i].name) != 0) continue;
    ptr_vec ops = {0}, kw = {0};
    uint32_t npos = 0;
    const tx_expr *self = buffer_ref(b, buf, call->u.call.func->u.attr.value->span);
    const tx_expr *result = NULL;
    if (self && vec_push(b, &ops, self) && bld_call_operands(b, call, 0, &ops, &kw, &npos)) {
      int ok = (int)npos >= methods[i].min_args && (int)npos <= methods[i].max_args;
      if (!ok)
        BLD_ERROR(b, call, "%s.%s takes %d to %d positional arguments but %u were given", buf->name,
                  method, methods[i].min_args, methods[i].max_args, npos);
      for (uint32_t k = 0; ok && k < kw.len; k++) {
        const char *name = kw.items[k];
        size_t len = strlen(name);
        const char *p = strstr(methods[i].keywords, name);
        ok = p && (p[len] == ',' || p[len] == 0) && (p == methods[i].keywords || p[-1] == ',');
        if (!ok)
          BLD_ERROR(b, call, "%s.%s got an unexpected keyword argument '%s'", buf->name, method,
                    name);
      }
      /* The index list of vload/vstore/ptr_to addresses one element. */
      if (ok && strcmp(method, "access_ptr") != 0 && npos >= 1 &&
          ((const tx_expr *)ops.items[1])->kind == EXPR_TUPLE)
        ok = check_index_count(b, call, buf, ((const tx_expr *)ops.items[1])->nops);
      tx_dtype t = buf->dtype;
      if (strcmp(method, "vstore") == 0) t = TX_VOID;
      if (strcmp(method, "ptr_to") == 0 || strcmp(method, "access_ptr") == 0) t = TX_HANDLE;
      int vload = strcmp(method, "vload") == 0, vstore = strcmp(method, "vstore") == 0;
      /* Python refuses an argument given twice; so does this. */
      const char *twice = vload && npos >= 2 && has_kw(&kw, "dtype")                   ? "dtype"
                          : (vload || vstore) && npos >= 3 && has_kw(&kw, "predicate") ? "predicate"
                                                                                       : NULL;
      if (ok && twice) {
        BLD_ERROR(b, call, "%s.%s got multiple values for argument '%s'", buf->name, method, twice);
        ok = 0;
      }
      const tx_expr *dt = ok && vload ? method_arg(&ops, &kw, npos, 1, "dtype") : NULL;
      if (dt && (dt->kind != EXPR_STRING || !tx_dtype_parse(dt->u.str.data, dt->u.str.len, &t))) {
        BLD_ERROR(b, call, "dtype= must be a data type string");
        ok = 0;
      }
      /* Without a dtype a vector index gives the lanes, as TVM's BufferLoad
       * takes them from its indices (the printed A.vload([T.Ramp(...)],
       * predicate=...) has none). */
      const tx_expr *begin = npos >= 1 ? ops.items[1] : NULL;
      const tx_expr *last = begin && begin->kind == EXPR_TUPLE
                                ? (begin->nops ? begin->ops[begin->nops - 1] : NULL)
                                : begin;
      if (ok && vload && !dt && last && last->dtype.lanes > 1)
        t = tx_dtype_with_lanes(buf->dtype,
                                last->dtype.lanes * (buf->dtype.lanes ? buf->dtype.lanes : 1));
      if (ok && (vload || vstore)) {
        const tx_expr *value = vstore ? ops.items[2] : NULL;
        ok = check_vector_access(b, call, buf, method, vstore ? value->dtype : t, ops.items[1],
                                 method_arg(&ops, &kw, npos, 2, "predicate"));
      }
      tx_strbuf sb = {.alloc = bld_alloc(b)};
      tx_sb_printf(&sb, ".%s", method);
      const char *op = tx_sb_cstr(&sb) ? bld_intern(b, tx_sb_cstr(&sb)) : NULL;
      if (!op) bld_oom(b); /* bld_intern reports its own; the strbuf's is ours */
      tx_sb_free(&sb);
      uint32_t nkw = kw.len;
      tx_expr *e = ok && op ? tx_expr_new(b->ir, EXPR_CALL, t, (const tx_expr *const *)ops.items,
                                          ops.len, call->span)
                            : NULL;
      if (e) {
        e->u.call.op = op;
        e->u.call.kw.npos = npos + 1;
        e->u.call.kw.names = nkw ? (const char *const *)vec_finish(b, &kw) : NULL;
        result = e;
      }
    }
    vec_free(&ops);
    vec_free(&kw);
    return result;
  }
  BLD_ERROR(b, call->u.call.func, "buffer '%s' has no method '%s'", buf->name, method);
  return NULL;
}

/* Constructs with their own IR kinds. Returns 1 when `q` is one (result in *out). */
/* Is `a` written `T.vscale() * <something>`, a scalable lane count? */
static int is_vscale_times(builder *b, const tx_ast *a) {
  if (a->kind != AST_BINOP || a->u.binop.op != BINOP_MUL) return 0;
  const tx_ast *l = a->u.binop.left;
  if (l->kind != AST_CALL || l->u.call.args.len || l->u.call.keywords.len) return 0;
  const char *q = bld_qualified_name(b, l->u.call.func, NULL);
  return q && strcmp(q, "T.vscale") == 0;
}

static int build_special_call(builder *b, const tx_ast *call, const char *q, int depth,
                              const tx_expr **out) {
  static const struct {
    const char *name;
    tx_expr_kind kind;
  } binaries[] = {
      {"T.min", EXPR_MIN},
      {"T.max", EXPR_MAX},
      {"T.floordiv", EXPR_FLOORDIV},
      {"T.floormod", EXPR_FLOORMOD},
      {"T.truncdiv", EXPR_DIV},
      {"T.truncmod", EXPR_MOD},
      {"T.Add", EXPR_ADD},
      {"T.Sub", EXPR_SUB},
      {"T.Mul", EXPR_MUL},
      {"T.Div", EXPR_DIV},
      {"T.Mod", EXPR_MOD},
      {"T.FloorDiv", EXPR_FLOORDIV},
      {"T.FloorMod", EXPR_FLOORMOD},
      {"T.Min", EXPR_MIN},
      {"T.Max", EXPR_MAX},
      {"T.EQ", EXPR_EQ},
      {"T.NE", EXPR_NE},
      {"T.LT", EXPR_LT},
      {"T.LE", EXPR_LE},
      {"T.GT", EXPR_GT},
      {"T.GE", EXPR_GE},
      {"T.And", EXPR_AND},
      {"T.Or", EXPR_OR},
  };
  const tx_ast_list *args = &call->u.call.args;
  for (size_t i = 0; i < sizeof binaries / sizeof *binaries; i++) {
    if (strcmp(q, binaries[i].name) != 0) continue;
    if (args->len != 2 || call->u.call.keywords.len) {
      BLD_ERROR(b, call, "%s takes exactly 2 arguments", q);
      *out = NULL;
      return 1;
    }
    const tx_expr *x = build(b, args->items[0], depth + 1),
                  *y = build(b, args->items[1], depth + 1);
    *out = make_binary(b, binaries[i].kind, x, y, call->span, q);
    return 1;
  }
  if (strcmp(q, "T.Select") == 0 || strcmp(q, "T.Not") == 0 || strcmp(q, "T.Cast") == 0 ||
      strcmp(q, "T.Ramp") == 0 || strcmp(q, "T.Broadcast") == 0 || strcmp(q, "T.Let") == 0) {
    *out = NULL;
    size_t want = q[2] == 'S' || q[2] == 'R' ? 3 : q[2] == 'N' ? 1 : 2;
    if (strcmp(q, "T.Let") == 0) want = 1;
    if (args->len != want || (call->u.call.keywords.len && strcmp(q, "T.Let") != 0)) {
      BLD_ERROR(b, call, "%s takes exactly %zu argument%s", q, want, want == 1 ? "" : "s");
      return 1;
    }
    if (q[2] == 'S') {
      *out =
          make_select(b, build(b, args->items[0], depth + 1), build(b, args->items[1], depth + 1),
                      build(b, args->items[2], depth + 1), call->span);
    } else if (q[2] == 'N') {
      const tx_expr *x = build(b, args->items[0], depth + 1);
      if (x && !tx_dtype_is_bool(x->dtype))
        BLD_ERROR(b, call, "T.Not needs a boolean");
      else if (x)
        *out = tx_expr_new(b->ir, EXPR_NOT, x->dtype, &x, 1, call->span);
    } else if (q[2] == 'C') {
      tx_dtype t;
      const tx_expr *x =
          bld_dtype(b, args->items[0], &t) ? build(b, args->items[1], depth + 1) : NULL;
      if (x)
        *out = tx_expr_new(b->ir, EXPR_CAST, tx_dtype_lanes_of(t, x->dtype), &x, 1, call->span);
    } else if (q[2] == 'R' || q[2] == 'B') {
      const tx_ast *lanes_ast = args->items[args->len - 1];
      int scalable = is_vscale_times(b, lanes_ast);
      if (scalable) lanes_ast = lanes_ast->u.binop.right;
      if (lanes_ast->kind != AST_INT || lanes_ast->u.int_lit.value < 1 ||
          lanes_ast->u.int_lit.value > TX_MAX_LANES) {
        BLD_ERROR(b, lanes_ast,
                  "lanes must be an integer literal from 1 to %d, or T.vscale() times one",
                  TX_MAX_LANES);
        return 1;
      }
      tx_dtype shape = tx_dt(DT_INT, 32, (int)lanes_ast->u.int_lit.value);
      shape.scalable = (uint8_t)scalable;
      const tx_expr *ops[2] = {build(b, args->items[0], depth + 1), NULL};
      if (q[2] == 'R') {
        ops[1] = build(b, args->items[1], depth + 1);
        if (!ops[0] || !ops[1] || !unify(b, &ops[0], &ops[1], call->span, "T.Ramp")) return 1;
      }
      if (ops[0])
        *out = tx_expr_new(b->ir, q[2] == 'R' ? EXPR_RAMP : EXPR_BROADCAST,
                           tx_dtype_lanes_of(ops[0]->dtype, shape), ops, q[2] == 'R' ? 2 : 1,
                           call->span);
    } else {
      /* T.Let(body, where={x: value}) */
      const tx_ast *where = call->u.call.keywords.len == 1 ? call->u.call.keywords.items[0] : NULL;
      if (!where || !where->u.keyword.arg || strcmp(where->u.keyword.arg, "where") != 0 ||
          where->u.keyword.value->kind != AST_DICT ||
          where->u.keyword.value->u.dict.keys.len != 1 ||
          !where->u.keyword.value->u.dict.keys.items[0] ||
          where->u.keyword.value->u.dict.keys.items[0]->kind != AST_NAME) {
        BLD_ERROR(b, call, "T.Let is written T.Let(body, where={name: value})");
        return 1;
      }
      const tx_ast *name = where->u.keyword.value->u.dict.keys.items[0];
      const tx_expr *value = build(b, where->u.keyword.value->u.dict.values.items[0], depth + 1);
      if (!value) return 1;
      /* TVM's key is a Var object, declared before as `x = T.int16()` (how
       * TVM prints a Let's binder): the binder has that declaration's type
       * and the value is converted to it; an undeclared name binds a
       * variable of the value's type. */
      const symbol *prev = bld_lookup(b, name->u.name.id);
      tx_dtype t = prev && prev->kind == SYM_VAR && prev->expr && prev->expr->kind == EXPR_VAR &&
                           prev->expr->u.var.form == VAR_SYMBOLIC
                       ? prev->expr->dtype
                       : value->dtype;
      value = bld_coerce(b, value, t, where->span, "T.Let binding");
      if (!value) return 1;
      tx_expr *var = tx_var(b->ir, name->u.name.id, t, VAR_PLAIN, name->span);
      if (!var) return bld_oom(b), 1;
      uint32_t mark = bld_scope_mark(b);
      bld_push_symbol(b, (symbol){.name = name->u.name.id,
                                  .kind = SYM_VAR,
                                  .mut = MUT_FIXED,
                                  .expr = var,
                                  .span = name->span});
      const tx_expr *body = build(b, args->items[0], depth + 1);
      bld_scope_pop(b, mark);
      if (!body) return 1;
      const tx_expr *ops[2] = {value, body};
      tx_expr *e = tx_expr_new(b->ir, EXPR_LET, body->dtype, ops, 2, call->span);
      if (e) e->u.binder = var;
      *out = e;
    }
    if (!*out && !tx_diag_errors(b->diags)) bld_oom(b);
    return 1;
  }
  return 0;
}

/* `lambda x, y: body`, parameter i of dtype types[i] (int32 past ntypes:
 * the index lambdas of T.tile.select); the parameters scope over the body. */
static const tx_expr *build_lambda(builder *b, const tx_ast *a, const tx_dtype *types,
                                   uint32_t ntypes) {
  const tx_ast_list *params = &a->u.lambda.params;
  ptr_vec ops = {0};
  uint32_t mark = bld_scope_mark(b);
  int ok = 1;
  for (uint32_t i = 0; ok && i < params->len; i++) {
    const tx_ast *pa = params->items[i];
    if (pa->u.param.kind != PARAM_NORMAL || pa->u.param.annotation || pa->u.param.default_value) {
      BLD_ERROR(b, pa, "a lambda takes plain parameters only");
      ok = 0;
      break;
    }
    tx_expr *v =
        tx_var(b->ir, pa->u.param.name, i < ntypes ? types[i] : TX_INT32, VAR_PLAIN, pa->span);
    symbol sym = {
        .name = pa->u.param.name, .kind = SYM_VAR, .mut = MUT_FIXED, .expr = v, .span = pa->span};
    ok = v && bld_push_symbol(b, sym) >= 0 && vec_push(b, &ops, v);
    if (!v) bld_oom(b);
  }
  const tx_expr *body = ok ? bld_arg(b, a->u.lambda.body) : NULL;
  bld_scope_pop(b, mark);
  tx_expr *e = NULL;
  if (body && vec_push(b, &ops, body)) {
    e = tx_expr_new(b->ir, EXPR_LAMBDA, TX_VOID, (const tx_expr *const *)ops.items, ops.len,
                    a->span);
    if (!e) bld_oom(b);
  }
  vec_free(&ops);
  return e;
}

/* T.Shuffle([v0, v1, ...], [i0, i1, ...]): TVM's Shuffle, lanes i0, i1, ...
 * of the concatenated vectors; one lane per index, of the vectors' element
 * type. Kept as the call T.Shuffle; CUDA codegen does not emit it. */
static const tx_expr *build_shuffle(builder *b, const tx_ast *call) {
  const tx_ast_list *args = &call->u.call.args;
  if (args->len != 2 || call->u.call.keywords.len || args->items[0]->kind != AST_LIST ||
      args->items[1]->kind != AST_LIST || args->items[0]->u.seq.elts.len == 0 ||
      args->items[1]->u.seq.elts.len == 0 || args->items[1]->u.seq.elts.len > TX_MAX_LANES) {
    BLD_ERROR(b, call, "T.Shuffle takes a list of vectors and a list of lane indices");
    return NULL;
  }
  const tx_expr *ops[2] = {bld_arg(b, args->items[0]), NULL};
  if (!ops[0] || !(ops[1] = bld_arg(b, args->items[1]))) return NULL;
  tx_dtype t = tx_dtype_with_lanes(tx_dtype_elem(ops[0]->ops[0]->dtype), (int)ops[1]->nops);
  tx_expr *e = tx_expr_new(b->ir, EXPR_CALL, t, ops, 2, call->span);
  if (!e || !(e->u.call.op = bld_intern(b, "T.Shuffle"))) return bld_oom(b), NULL;
  e->u.call.kw.npos = 2;
  return e;
}

/* T.comm_reducer(lambda x0.., y0..: result(s), [identity, ...]): TVM's
 * CommReducer, the node of T.attr(..., "reduce_scope", ...). The lambda's
 * two halves of parameters take the dtypes of the identities. */
static const tx_expr *build_comm_reducer(builder *b, const tx_ast *call) {
  const tx_ast_list *args = &call->u.call.args;
  if (args->len != 2 || call->u.call.keywords.len || args->items[0]->kind != AST_LAMBDA ||
      args->items[1]->kind != AST_LIST ||
      args->items[0]->u.lambda.params.len != 2 * args->items[1]->u.seq.elts.len) {
    BLD_ERROR(b, call,
              "T.comm_reducer takes a lambda of 2N parameters and a list of N identities: "
              "T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)])");
    return NULL;
  }
  const tx_expr *ident = bld_arg(b, args->items[1]);
  if (!ident) return NULL;
  uint32_t n = ident->nops;
  tx_dtype *types = tx_arena_alloc(b->ir->arena, (2 * n + 1) * sizeof *types);
  if (!types) return bld_oom(b), NULL;
  for (uint32_t i = 0; i < n; i++)
    types[i] = types[n + i] = ident->ops[i]->dtype;
  const tx_expr *ops[2] = {build_lambda(b, args->items[0], types, 2 * n), ident};
  if (!ops[0]) return NULL;
  tx_expr *e = tx_expr_new(b->ir, EXPR_CALL, TX_HANDLE, ops, 2, call->span);
  if (!e || !(e->u.call.op = bld_intern(b, "T.comm_reducer"))) return bld_oom(b), NULL;
  e->u.call.kw.npos = 2;
  return e;
}

/* The function `Module.f` names when `callee` is that attribute of the
 * @I.ir_module class being built (and the class name is not shadowed), or NULL. */
static const tx_ast *module_function_of(builder *b, const tx_ast *callee) {
  const tx_ast *cls = b->module_class;
  if (!cls || callee->kind != AST_ATTR || callee->u.attr.value->kind != AST_NAME ||
      strcmp(callee->u.attr.value->u.name.id, cls->u.classdef.name) != 0 ||
      bld_lookup(b, cls->u.classdef.name))
    return NULL;
  for (size_t i = 0; i < cls->u.classdef.body.len; i++) {
    const tx_ast *st = cls->u.classdef.body.items[i];
    if (st->kind == AST_FUNCDEF && strcmp(st->u.funcdef.name, callee->u.attr.attr) == 0) return st;
  }
  return NULL;
}

/* `Module.f(args...)`: a call of another function of the module (TVM's
 * GlobalVar call), of f's written return dtype (void without one). Kept as
 * the call `Module.f`; lowering does not inline or link it. */
static const tx_expr *build_module_call(builder *b, const tx_ast *call, const tx_ast *fn) {
  tx_dtype t = TX_VOID;
  if (fn->u.funcdef.returns && !bld_dtype(b, fn->u.funcdef.returns, &t)) return NULL;
  ptr_vec ops = {0}, kw = {0};
  uint32_t npos = 0;
  tx_expr *e = NULL;
  if (bld_call_operands(b, call, 0, &ops, &kw, &npos)) {
    if (kw.len) {
      BLD_ERROR(b, call, "a call of a module function takes positional arguments only");
    } else {
      tx_strbuf sb = {.alloc = bld_alloc(b)};
      tx_sb_printf(&sb, "%s.%s", b->module_class->u.classdef.name, fn->u.funcdef.name);
      e = tx_expr_new(b->ir, EXPR_CALL, t, (const tx_expr *const *)ops.items, ops.len, call->span);
      if (e && tx_sb_cstr(&sb) && (e->u.call.op = bld_intern(b, tx_sb_cstr(&sb))))
        e->u.call.kw.npos = npos;
      else
        e = NULL, bld_oom(b);
      tx_sb_free(&sb);
    }
  }
  vec_free(&ops);
  vec_free(&kw);
  return e;
}

static const tx_expr *build_call(builder *b, const tx_ast *call, int depth) {
  const tx_ast *callee = call->u.call.func;
  const tx_ast *fn = module_function_of(b, callee);
  if (fn) return build_module_call(b, call, fn);
  if (callee->kind == AST_ATTR) {
    const tx_buffer *buf = buffer_of(b, callee->u.attr.value);
    if (buf) return build_buffer_method(b, call, buf);
  }
  if (callee->kind == AST_NAME && strcmp(callee->u.name.id, "range") == 0) {
    BLD_ERROR(b, call, "range() is only allowed as the iterable of a for loop");
    return NULL;
  }
  const char *q = bld_qualified_name(b, callee, NULL);
  if (!q) {
    const tx_ast *root = callee;
    while (root->kind == AST_ATTR)
      root = root->u.attr.value;
    if (root->kind == AST_NAME && !bld_lookup(b, root->u.name.id)) {
      BLD_ERROR(b, root, "undefined name '%s'", root->u.name.id);
      return NULL;
    }
    BLD_ERROR(b, callee, "this expression cannot be called");
    return NULL;
  }
  tx_dtype dt;
  if (bld_dtype_attr(b, callee, &dt, 0)) return typed_literal(b, call, dt, depth);
  const tx_expr *special = NULL;
  if (build_special_call(b, call, q, depth, &special)) return special;
  if (strcmp(q, "T.target") == 0) return bld_target(b, call);
  if (strcmp(q, "T.meta_var") == 0 || strcmp(q, "T.inline") == 0 || strcmp(q, "T.jit") == 0 ||
      strcmp(q, "T.meta_class") == 0 || strcmp(q, "T.SMEMPool") == 0 ||
      strcmp(q, "T.TMEMPool") == 0) {
    BLD_ERROR(b, call, "%s is Python metaprogramming and is not supported in text form", q);
    return NULL;
  }
  if (bld_buffer_ctor_of(b, call) != CTOR_NONE) {
    BLD_ERROR(b, call, "%s declares a buffer; assign it to a name: `A = %s(...)`", q, q);
    return NULL;
  }
  if (bld_is_layout_call(b, call)) {
    const tx_layout *l = bld_layout(b, call);
    if (!l) return NULL;
    tx_expr *e = tx_expr_new(b->ir, EXPR_LAYOUT, TX_VOID, NULL, 0, call->span);
    if (!e) return bld_oom(b), NULL;
    e->u.layout = l;
    return e;
  }
  if (strcmp(q, "T.comm_reducer") == 0) return build_comm_reducer(b, call);
  if (strcmp(q, "T.Shuffle") == 0) return build_shuffle(b, call);
  q = bld_dialect_op(b, call, q); /* T.stack_alloca is T.tvm_stack_alloca, ... */
  return q ? build_intrinsic_call(b, call, q, NULL) : NULL;
}

/* ---- dispatch --------------------------------------------------------------------- */

static const tx_expr *build_seq(builder *b, const tx_ast *a, int depth) {
  ptr_vec items = {0};
  int ok = 1;
  for (size_t i = 0; i < a->u.seq.elts.len && ok; i++) {
    const tx_expr *e = bld_arg(b, a->u.seq.elts.items[i]);
    ok = e && vec_push(b, &items, e);
  }
  (void)depth;
  tx_expr *e = NULL;
  if (ok) {
    e = tx_expr_new(b->ir, EXPR_TUPLE, TX_VOID, (const tx_expr *const *)items.items, items.len,
                    a->span);
    if (e)
      e->u.is_list = a->kind == AST_LIST;
    else
      bld_oom(b);
  }
  vec_free(&items);
  return e;
}

static const tx_expr *build(builder *b, const tx_ast *a, int depth) {
  if (depth > TX_MAX_EXPR_DEPTH) {
    BLD_ERROR(b, a, "expression nested too deeply (limit %d)", TX_MAX_EXPR_DEPTH);
    return NULL;
  }
  tx_expr *e = NULL;
  switch (a->kind) {
  case AST_NAME:
    return build_name(b, a);
  case AST_INT:
    return int_literal(b, a, 0);
  case AST_FLOAT:
    e = tx_float(b->ir, TX_FLOAT32, a->u.float_lit.value, a->span);
    break;
  case AST_STR:
    e = tx_string(b->ir, a->u.str.data, a->u.str.len, a->span);
    break;
  case AST_TRUE:
  case AST_FALSE:
    e = tx_int(b->ir, TX_BOOL, a->kind == AST_TRUE, a->span);
    if (e) e->python_bool = 1;
    break;
  case AST_NONE:
    e = tx_none(b->ir, a->span);
    break;
  case AST_ATTR:
    return build_attr(b, a);
  case AST_CALL:
    return build_call(b, a, depth);
  case AST_SUBSCRIPT:
    return build_subscript(b, a, depth, 0);
  case AST_BINOP:
    return build_binop(b, a, depth);
  case AST_UNARYOP:
    return build_unary(b, a, depth);
  case AST_COMPARE:
    return build_compare(b, a, depth);
  case AST_BOOLOP:
    return build_boolop(b, a, depth);
  case AST_IFEXP:
    return make_select(b, build(b, a->u.ifexp.test, depth + 1),
                       build(b, a->u.ifexp.body, depth + 1), build(b, a->u.ifexp.orelse, depth + 1),
                       a->span);
  case AST_TUPLE:
  case AST_LIST:
    return build_seq(b, a, depth);
  case AST_LAMBDA:
    return build_lambda(b, a, NULL, 0);
  case AST_ELLIPSIS:
  case AST_KEYWORD:
  case AST_STARRED:
  case AST_SLICE:
  case AST_DICT:
  case AST_EXPR_STMT:
  case AST_ASSIGN:
  case AST_ANNASSIGN:
  case AST_AUGASSIGN:
  case AST_FOR:
  case AST_WHILE:
  case AST_IF:
  case AST_WITH:
  case AST_WITHITEM:
  case AST_FUNCDEF:
  case AST_PARAM:
  case AST_CLASSDEF:
  case AST_RETURN:
  case AST_BREAK:
  case AST_CONTINUE:
  case AST_PASS:
  case AST_ASSERT:
  case AST_IMPORT:
  case AST_IMPORTFROM:
  case AST_ALIAS:
  case AST_DEL:
  case AST_GLOBAL:
    BLD_ERROR(b, a, "%s is not supported in a TIRx expression", tx_ast_kind_name(a->kind));
    return NULL;
  }
  if (!e) bld_oom(b);
  return e;
}

const tx_expr *bld_expr(builder *b, const tx_ast *ast) {
  return build(b, ast, 0);
}

/* A dict argument (`annotations={"k": v}` on a loop, `workspace={"smem": buf}` on a tile
 * primitive): an EXPR_CALL with op "{}" whose keywords are the entries, in order. */
static const tx_expr *build_dict(builder *b, const tx_ast *d) {
  size_t n = d->u.dict.keys.len;
  ptr_vec vals = {0}, keys = {0};
  int ok = 1;
  for (size_t i = 0; i < n && ok; i++) {
    const tx_ast *k = d->u.dict.keys.items[i];
    if (!k || k->kind != AST_STR) {
      BLD_ERROR(b, k ? k : d, "dict keys must be strings");
      ok = 0;
      break;
    }
    const tx_expr *v = bld_arg(b, d->u.dict.values.items[i]);
    ok = v && vec_push(b, &vals, v) && vec_push(b, &keys, bld_intern(b, k->u.str.data));
  }
  tx_expr *e = NULL;
  if (ok)
    e = tx_expr_new(b->ir, EXPR_CALL, TX_VOID, (const tx_expr *const *)vals.items,
                    (uint32_t)vals.len, d->span);
  if (ok && !e) bld_oom(b);
  if (e) {
    e->u.call.op = bld_intern(b, "{}");
    e->u.call.kw.npos = 0;
    e->u.call.kw.names = n ? (const char *const *)vec_finish(b, &keys) : NULL;
    if (!e->u.call.op || (n && !e->u.call.kw.names)) e = NULL, bld_oom(b);
  }
  vec_free(&vals);
  vec_free(&keys);
  return e;
}

const tx_expr *bld_arg(builder *b, const tx_ast *ast) {
  if (ast->kind == AST_SUBSCRIPT) return build_subscript(b, ast, 0, 1);
  if (ast->kind == AST_DICT) return build_dict(b, ast);
  if (ast->kind == AST_CALL && bld_is_layout_call(b, ast)) return build_call(b, ast, 0);
  return build(b, ast, 0);
}
