/*
 * dialect_tirx.c - the forms of apache-tvm-tirx's `tvm_tirx.script.tirx`
 * dialect that TVM 0.27's `tvm.script.tirx` spells differently, read into
 * the same IR (docs/dialects.md).
 *
 * The builder calls these hooks at the few places where the spellings part:
 * imports and the function and module decorators (which also tell the
 * module's dialect, tx_module.dialect: note_dialect), T.Bind statements and the region form of
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
