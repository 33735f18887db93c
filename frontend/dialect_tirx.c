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

/* A parameter annotated `T.Ptr(T.void)`, `T.Ptr(T.float32)` or
 * `T.Ptr(T.float16, "shared")`: the handle parameter TVM 0.27 writes as
 * T.handle, T.handle("float32"), T.handle("float16", "shared"). Returns the
 * variable, or NULL after an error. */
tx_expr *bld_ptr_param(builder *b, const tx_ast *ann, const char *name, tirx_span span) {
  const tx_ast_list *a = &ann->u.call.args;
  const tx_ast *scope = a->len == 2 ? a->items[1] : NULL;
  if (a->len < 1 || a->len > 2 || ann->u.call.keywords.len || (scope && scope->kind != AST_STR)) {
    BLD_ERROR(b, ann,
              "T.Ptr takes an element type and an optional scope: T.Ptr(T.float32[, "
              "\"shared\"])");
    return NULL;
  }
  const char *elem = bld_qualified_name(b, a->items[0], NULL);
  int is_void = elem && strcmp(elem, "T.void") == 0;
  tx_dtype pointee = TX_HANDLE;
  if (!is_void && !bld_dtype(b, a->items[0], &pointee)) return NULL;
  tx_expr *var = tx_var(b->ir, name, TX_HANDLE, VAR_PARAM, span);
  if (!var) return bld_oom(b), NULL;
  var->u.var.pointee = pointee;
  var->u.var.has_pointee = (uint8_t)!is_void;
  var->u.var.scope = scope ? bld_intern(b, scope->u.str.data) : NULL;
  if (scope && !var->u.var.scope) return bld_oom(b), NULL;
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
