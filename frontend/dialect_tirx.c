/*
 * dialect_tirx.c - the forms of apache-tvm-tirx's `tvm_tirx.script.tirx`
 * dialect that TVM 0.27's `tvm.script.tirx` spells differently, read into
 * the same IR (docs/dialects.md).
 *
 * The builder calls these hooks at the few places where the spellings part:
 * imports and the function and module decorators (which also tell the
 * module's dialect, tx_module.dialect: note_dialect), T.Ptr parameters,
 * T.Bind statements and the region form of
 * T.device_entry. Forms both dialects share (T.Tensor, T.let, T.launch_thread)
 * need no hook.
 */
#include <string.h>

#include "frontend/build_internal.h"

/* The file's dialect is that of its first `from tvm.script import ...` or
 * `from tvm_tirx.script import ...`; without one (a printed file carries its
 * imports as comments), that of its decorators. */
static void note_dialect(builder *b, tx_dialect d, int from_import) {
  if (b->dialect_fixed) return;
  b->dialect = (uint8_t)d;
  b->dialect_fixed = (uint8_t)from_import;
}

/* `tvm_tirx.script` is `tvm.script`, `tvm_tirx.tirx.layout` `tvm.tirx.layout`:
 * the TVM module name the builder knows for mod (mod itself when it is not
 * a tvm_tirx one). */
const char *bld_dialect_module(builder *b, const char *mod) {
  static const char prefix[] = "tvm_tirx.";
  if (strcmp(mod, "tvm.script") == 0) note_dialect(b, TX_DIALECT_TVM, 1);
  if (strncmp(mod, prefix, sizeof prefix - 1) != 0) return mod;
  if (strcmp(mod, "tvm_tirx.script") == 0) note_dialect(b, TX_DIALECT_TIRX, 1);
  tx_strbuf sb = {.alloc = bld_alloc(b)};
  tx_sb_printf(&sb, "tvm.%s", mod + sizeof prefix - 1);
  const char *s = tx_sb_cstr(&sb);
  const char *canon = s ? bld_intern(b, s) : NULL;
  tx_sb_free(&sb);
  if (!canon) bld_oom(b);
  return canon ? canon : mod;
}

/* Whether q names a function decorator (@T.prim_func, or the tirx dialect's
 * @T.function, which marks the module as written in it). */
int bld_dialect_func_decorator(builder *b, const char *q) {
  if (!q) return 0;
  if (strcmp(q, "T.function") == 0) note_dialect(b, TX_DIALECT_TIRX, 0);
  return strcmp(q, "T.prim_func") == 0 || strcmp(q, "T.function") == 0;
}

/* Whether q names a module class decorator (@I.ir_module, or the tirx
 * dialect's @T.ir_module). */
int bld_dialect_module_decorator(builder *b, const char *q) {
  if (!q) return 0;
  if (strcmp(q, "T.ir_module") == 0) note_dialect(b, TX_DIALECT_TIRX, 0);
  return strcmp(q, "I.ir_module") == 0 || strcmp(q, "T.ir_module") == 0;
}

/* T.Bind as a statement: the tirx dialect's T.Bind(x, value) and TVM 0.27's
 * T.Bind(value, var=x) both mean `x = value`, and build as that assignment
 * does (so rebinding a T.let name is the same error). */
const tx_stmt *bld_bind_call(builder *b, const tx_ast *call) {
  const tx_ast_list *a = &call->u.call.args, *kw = &call->u.call.keywords;
  const tx_ast *target = NULL, *value = NULL;
  if (a->len == 2 && kw->len == 0) {
    target = a->items[0];
    value = a->items[1];
  } else if (a->len == 1 && kw->len == 1 && kw->items[0]->u.keyword.arg &&
             strcmp(kw->items[0]->u.keyword.arg, "var") == 0) {
    target = kw->items[0]->u.keyword.value;
    value = a->items[0];
  } else {
    BLD_ERROR(b, call,
              "T.Bind takes a variable and a value: T.Bind(x, value) (or TVM 0.27's "
              "T.Bind(value, var=x))");
    return NULL;
  }
  if (target->kind != AST_NAME) {
    BLD_ERROR(b, target, "T.Bind binds a variable name, not this expression");
    return NULL;
  }
  return bld_assign_name(b, target, value, call->span);
}

/* TVM 0.27's expression form `x = T.Bind(value)`: a fresh variable bound
 * to value, i.e. `x = value`. Returns the value's syntax, or NULL after a
 * located error (the tirx dialect's two-argument form is a statement). */
const tx_ast *bld_bind_value(builder *b, const tx_ast *call) {
  if (call->u.call.args.len == 1 && call->u.call.keywords.len == 0)
    return call->u.call.args.items[0];
  BLD_ERROR(b, call,
            "`x = T.Bind(value)` takes only the value; bind an existing variable with the "
            "statement T.Bind(x, value)");
  return NULL;
}

/* The statement TVM 0.27 prints for an argument-free T.device_entry():
 * T.attr({"tirx.device_entry": T.bool(True)}), flat. */
static const tx_stmt *flat_entry_attr(builder *b, tirx_span span) {
  const tx_expr *yes = tx_int(b->ir, TX_BOOL, 1, span);
  tx_stmt *s = yes ? tx_stmt_new(b->ir, STMT_ATTR, &yes, 1, NULL, 0, span) : NULL;
  const char *key = bld_intern(b, "tirx.device_entry");
  const char *const *names = key ? TX_DUP(b->ir, char, &key, 1) : NULL;
  if (!s || !names) return bld_oom(b), NULL;
  s->kw.npos = 0;
  s->kw.names = names;
  return s;
}

/* Pushes s, the next statement of a block, to items. In the tirx dialect,
 * where the flat T.device_entry() of TVM 0.27 is always written as the
 * region `with T.device_entry():`, a region that ends its block pushes the
 * flat statement TVM 0.27 would have printed, then its body's statements:
 * the IR of the same kernel written in either dialect is then the same.
 * Returns 0 when out of memory. */
int bld_dialect_push_stmt(builder *b, ptr_vec *items, const tx_stmt *s, int last) {
  if (b->dialect != TX_DIALECT_TIRX || !last || s->kind != STMT_DEVICE_ENTRY || s->flag != 1 ||
      s->nstmts != 1)
    return vec_push(b, items, s);
  const tx_stmt *head;
  if (s->nexprs == 0) {
    head = flat_entry_attr(b, s->span);
  } else {
    tx_stmt *flat = tx_arena_alloc(b->ir->arena, sizeof *flat);
    if (flat) {
      *flat = *s; /* a new node: s itself is dropped */
      flat->flag = 0;
      flat->nstmts = 0;
      flat->stmts = NULL;
      if (b->launch_entry == s) b->launch_entry = flat;
    } else {
      bld_oom(b);
    }
    head = flat;
  }
  if (!head || !vec_push(b, items, head)) return 0;
  const tx_stmt *body = s->stmts[0];
  if (body->kind != STMT_SEQ) return vec_push(b, items, body);
  for (uint32_t i = 0; i < body->nstmts; i++)
    if (!vec_push(b, items, body->stmts[i])) return 0;
  return 1;
}

/* The pointer type `T.Ptr(T.void)`, `T.Ptr(T.float32)` or `T.Ptr(T.float16,
 * "shared")`: TVM 0.27's T.handle, T.handle("float32"), T.handle("float16",
 * "shared"). Returns 1 with the pointee (has_pointee 0 for void) and the
 * interned scope (NULL when none), -1 after a located error. */
int bld_ptr_type(builder *b, const tx_ast *ann, tx_dtype *pointee, int *has_pointee,
                 const char **scope) {
  const tx_ast_list *a = &ann->u.call.args;
  const tx_ast *sc = a->len == 2 ? a->items[1] : NULL;
  if (a->len < 1 || a->len > 2 || ann->u.call.keywords.len || (sc && sc->kind != AST_STR)) {
    BLD_ERROR(b, ann,
              "T.Ptr takes an element type and an optional scope: T.Ptr(T.float32[, "
              "\"shared\"])");
    return -1;
  }
  const char *elem = bld_qualified_name(b, a->items[0], NULL);
  int is_void = elem && strcmp(elem, "T.void") == 0;
  *pointee = TX_HANDLE;
  if (!is_void && !bld_dtype(b, a->items[0], pointee)) return -1;
  *has_pointee = !is_void;
  *scope = sc ? bld_intern(b, sc->u.str.data) : NULL;
  if (sc && !*scope) return bld_oom(b), -1;
  return 1;
}

/* A parameter annotated with a T.Ptr type (bld_ptr_type). Returns the
 * variable, or NULL after an error. */
tx_expr *bld_ptr_param(builder *b, const tx_ast *ann, const char *name, tirx_span span) {
  tx_dtype pointee;
  int has_pointee;
  const char *scope;
  if (bld_ptr_type(b, ann, &pointee, &has_pointee, &scope) < 0) return NULL;
  tx_expr *var = tx_var(b->ir, name, TX_HANDLE, VAR_PARAM, span);
  if (!var) return bld_oom(b), NULL;
  var->u.var.pointee = pointee;
  var->u.var.has_pointee = (uint8_t)has_pointee;
  var->u.var.scope = scope;
  return var;
}

/* The tirx dialect's allocation `T.alloc_tensor(ty_args=[T.Tensor(shape,
 * dtype, scope=...)])` (and T.decl_tensor's): the call with the tensor
 * type's arguments in place of ty_args, as TVM 0.27 writes
 * T.alloc_buffer(shape, dtype, scope=...). Returns call itself when it has
 * no ty_args, *scratch when rewritten, NULL after an error. */
const tx_ast *bld_dialect_ty_args(builder *b, const tx_ast *call, tx_ast *scratch) {
  const tx_ast_list *kw = &call->u.call.keywords;
  const tx_ast *ty = NULL;
  for (size_t i = 0; i < kw->len; i++)
    if (kw->items[i]->u.keyword.arg && strcmp(kw->items[i]->u.keyword.arg, "ty_args") == 0)
      ty = kw->items[i]->u.keyword.value;
  if (!ty) return call;
  const tx_ast *t = (ty->kind == AST_LIST || ty->kind == AST_TUPLE) && ty->u.seq.elts.len == 1
                        ? ty->u.seq.elts.items[0]
                        : NULL;
  if (kw->len != 1 || call->u.call.args.len || !t || !bld_is_tirx_call(b, t, "T.Tensor")) {
    BLD_ERROR(b, call,
              "ty_args takes one tensor type and nothing else: "
              "T.alloc_tensor(ty_args=[T.Tensor(shape, dtype, scope=...)])");
    return NULL;
  }
  *scratch = *call;
  scratch->u.call.args = t->u.call.args;
  scratch->u.call.keywords = t->u.call.keywords;
  return scratch;
}

/* ---- Symbolic shape variables: T.dynamic and PEP 695 type parameters ---- */

/* The dtype a symbolic variable may have: a scalar (the wheel takes any
 * registered scalar annotation; a handle is a pointer, which T.dynamic cannot
 * make). */
static int symbolic_dtype_ok(tx_dtype dt) {
  return dt.code != DT_HANDLE && dt.code != DT_VOID;
}

/* `n = T.dynamic("n")`, `T.dynamic("n", "int64")`, `T.dynamic("n",
 * dtype="int64")`: the wheel's free symbolic variable (script/ir_builder/ir.py
 * dynamic), TVM 0.27's `n = T.int32()` / `T.int64()`. The name must be the
 * binding's: the printer writes the variable under one name, so a display
 * name that differs could not survive a print. Returns 1 with *out set, 0
 * when value is not a T.dynamic call, -1 after a located error (*out then
 * int32: the caller still declares the name, so that its uses report
 * nothing more). */
int bld_dynamic_dtype(builder *b, const tx_ast *target, const tx_ast *value, tx_dtype *out) {
  *out = TX_INT32;
  if (value->kind != AST_CALL || !bld_is_tirx_call(b, value, "T.dynamic")) return 0;
  const tx_ast_list *a = &value->u.call.args, *kw = &value->u.call.keywords;
  const tx_ast *dtype = a->len == 2 ? a->items[1] : NULL;
  if (kw->len == 1 && a->len == 1 && kw->items[0]->u.keyword.arg &&
      strcmp(kw->items[0]->u.keyword.arg, "dtype") == 0)
    dtype = kw->items[0]->u.keyword.value;
  if (a->len < 1 || a->len > 2 || kw->len > (a->len == 1 ? 1u : 0u) || (kw->len && !dtype) ||
      a->items[0]->kind != AST_STR) {
    BLD_ERROR(b, value,
              "T.dynamic takes the variable's name and an optional dtype: "
              "%s = T.dynamic(\"%s\"[, dtype=\"int64\"])",
              target->u.name.id, target->u.name.id);
    return -1;
  }
  if (strcmp(a->items[0]->u.str.data, target->u.name.id) != 0) {
    BLD_ERROR(b, a->items[0], "T.dynamic binding '%s' must match its declared name '%s'",
              target->u.name.id, a->items[0]->u.str.data);
    return -1;
  }
  if (dtype && !bld_dtype(b, dtype, out)) return *out = TX_INT32, -1;
  if (!symbolic_dtype_ok(*out)) {
    BLD_ERROR(b, dtype, "a symbolic variable has a scalar dtype, not this one");
    return *out = TX_INT32, -1;
  }
  return 1;
}

/* The dtype of type parameter p, `n` (int32), `n: int` or `n: T.int64`; 0
 * after a located error. The wheel's rules (script/parser/transpile.py):
 * only plain names, no default, a bound that is int or a scalar dtype. */
static int type_param_dtype(builder *b, const tx_ast *p, tx_dtype *out) {
  const tx_ast *bound = p->u.param.annotation;
  if (p->u.param.kind != PARAM_NORMAL) {
    BLD_ERROR(b, p, "only scalar type parameters are supported: def f[n](...) declares n");
    return 0;
  }
  if (p->u.param.default_value) {
    BLD_ERROR(b, p->u.param.default_value, "a symbolic type parameter cannot have a default");
    return 0;
  }
  *out = TX_INT32;
  if (!bound || (bound->kind == AST_NAME && strcmp(bound->u.name.id, "int") == 0)) return 1;
  if (bld_dtype_attr(b, bound, out, 0) && symbolic_dtype_ok(*out)) return 1;
  BLD_ERROR(b, bound,
            "a symbolic type parameter bound must be int or a scalar dtype: def f[n: T.int64]");
  return 0;
}

/* `def k[n, m: T.int64](...)`: each type parameter declares a symbolic
 * variable of the function, visible to its parameters and body, as `n =
 * T.int32()` at the top of a TVM 0.27 body does (an int64 one as TVM's
 * module-level `m = TypeVar("m")`). Returns 0 after an error. */
int bld_type_params(builder *b, const tx_ast *fn) {
  const tx_ast_list *tp = &fn->u.funcdef.type_params;
  uint32_t mark = bld_scope_mark(b);
  int ok = 1, dup = 0;
  for (size_t i = 0; i < tp->len; i++, dup = 0) {
    const tx_ast *p = tp->items[i];
    tx_dtype dt;
    if (!type_param_dtype(b, p, &dt)) { /* declared all the same: no errors at its uses */
      ok = 0;
      dt = TX_INT32;
    }
    for (uint32_t k = mark; k < b->nsyms && !dup; k++)
      dup = strcmp(b->syms[k].name, p->u.param.name) == 0;
    if (dup) {
      BLD_ERROR(b, p, "duplicate type parameter '%s'", p->u.param.name);
      ok = 0;
      continue;
    }
    tx_expr *v = tx_var(b->ir, p->u.param.name, dt, VAR_SYMBOLIC, p->span);
    if (!v) return bld_oom(b), 0;
    /* TVM 0.27 prints an int64 variable of a signature as `n = TypeVar("n")`
     * (its printed corpus has no other spelling of one): so n: T.int64 converts. */
    v->u.var.typevar = (uint8_t)(dt.code == DT_INT && dt.bits == 64 && dt.lanes == 1);
    symbol s = {
        .name = p->u.param.name, .kind = SYM_VAR, .mut = MUT_FIXED, .expr = v, .span = p->span};
    if (bld_push_symbol(b, s) < 0 || !vec_push(b, &b->symbolic, v)) return 0;
  }
  return ok;
}

/* ---- Intrinsics the tirx dialect names differently ---- */

/* The wheel's T.gpu_* / T.stack_* intrinsics that have no TVM 0.27
 * counterpart with the same operands, and why. */
static const struct {
  const char *name, *why;
} refused_ops[] = {
    {"T.gpu_thread_allreduce",
     "takes a combining lambda and tuples of values (the wheel's six operands), not TVM 0.27's "
     "T.tvm_thread_allreduce operand list; write T.tvm_thread_allreduce"},
    {"T.gpu_thread_filter", "has no TVM 0.27 counterpart (a thread-filter marker for the wheel's "
                            "lowering); write the predicate as an if"},
    {"T.gpu_active_thread_selector",
     "has no TVM 0.27 counterpart (compiler metadata of the wheel's lowering)"},
};

/* The op a call named q builds: TVM 0.27's name for a tirx-dialect name
 * (ir/dialect_ops.def), q itself otherwise; NULL after a located error
 * (a wheel intrinsic that cannot be mapped, or T.dynamic outside a binding). */
const char *bld_dialect_op(builder *b, const tx_ast *call, const char *q) {
  const char *tvm = tx_dialect_tvm_op(q);
  if (tvm) return tvm;
  for (size_t i = 0; i < sizeof refused_ops / sizeof *refused_ops; i++)
    if (strcmp(q, refused_ops[i].name) == 0) {
      BLD_ERROR(b, call->u.call.func, "%s %s", q, refused_ops[i].why);
      return NULL;
    }
  if (strcmp(q, "T.dynamic") == 0) {
    BLD_ERROR(b, call,
              "T.dynamic declares a symbolic variable; bind it to its name: n = T.dynamic(\"n\")");
    return NULL;
  }
  return q;
}
