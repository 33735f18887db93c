/*
 * build_target.c - T.target(...): TVM's Target object as its printer writes
 * it in function attributes, `"target": T.target({"kind": "cuda", "arch":
 * "sm_90a", "host": {...}, "keys": ["cuda", "gpu"], ...})` or T.target("cuda").
 *
 * The config is kept as written, for printing and comparing: the call
 * T.target with one operand, a string or a dict. A dict literal is an
 * EXPR_CALL with the pseudo-op TX_DICT_OP, its keys as keyword names and its
 * values as operands (nested dicts the same way). Nothing here interprets
 * the target: tirx-c takes its target from --arch. Must not build other
 * expressions than through build_expr.c.
 */
#include <string.h>

#include "frontend/build_internal.h"

static const tx_expr *dict_value(builder *b, const tx_ast *a, int depth);

static const tx_expr *build_dict(builder *b, const tx_ast *d, int depth) {
  if (depth > TX_MAX_EXPR_DEPTH) {
    BLD_ERROR(b, d, "target config nested too deeply (limit %d)", TX_MAX_EXPR_DEPTH);
    return NULL;
  }
  ptr_vec vals = {0}, keys = {0};
  int ok = 1;
  for (size_t i = 0; i < d->u.dict.keys.len && ok; i++) {
    const tx_ast *k = d->u.dict.keys.items[i];
    if (!k || k->kind != AST_STR) {
      BLD_ERROR(b, k ? k : d, "target config keys must be strings");
      ok = 0;
      break;
    }
    const tx_expr *v = dict_value(b, d->u.dict.values.items[i], depth + 1);
    ok = v && vec_push(b, &vals, v) && vec_push(b, &keys, bld_intern(b, k->u.str.data));
  }
  tx_expr *e = NULL;
  if (ok) {
    e = tx_expr_new(b->ir, EXPR_CALL, TX_VOID, (const tx_expr *const *)vals.items, vals.len,
                    d->span);
    if (!e) bld_oom(b);
  }
  if (e) {
    e->u.call.op = bld_intern(b, TX_DICT_OP);
    e->u.call.kw.npos = 0;
    e->u.call.kw.names = keys.len ? (const char *const *)vec_finish(b, &keys) : NULL;
  }
  vec_free(&vals);
  vec_free(&keys);
  return e;
}

static const tx_expr *dict_value(builder *b, const tx_ast *a, int depth) {
  return a->kind == AST_DICT ? build_dict(b, a, depth) : bld_arg(b, a);
}

const tx_expr *bld_target(builder *b, const tx_ast *call) {
  const tx_ast_list *args = &call->u.call.args;
  if (args->len != 1 || call->u.call.keywords.len ||
      (args->items[0]->kind != AST_DICT && args->items[0]->kind != AST_STR)) {
    BLD_ERROR(b, call, "T.target takes one target: a string such as \"cuda\" or a config dict");
    return NULL;
  }
  const tx_expr *config = dict_value(b, args->items[0], 0);
  if (!config) return NULL;
  tx_expr *e = tx_expr_new(b->ir, EXPR_CALL, TX_HANDLE, &config, 1, call->span);
  if (!e) return bld_oom(b), NULL;
  e->u.call.op = bld_intern(b, "T.target");
  return e;
}
