/*
 * build_stmt.c - statements: stores, bindings, scalar sugar, scope ids,
 * device entry, attributes, loops, conditionals, with-blocks, allocations
 * and tile-primitive calls.
 *
 * Binding statements scope over the rest of their block, as in the text;
 * each block pops its names when it ends. Must not build expressions itself
 * beyond calling build_expr.c.
 */
#include <stdio.h>
#include <string.h>

#include "frontend/build_internal.h"
#include "ir/equal.h"
#include "ir/tensormap.h"

static const tx_stmt *build_stmt(builder *b, const tx_ast *st);

static tx_stmt *new_stmt(builder *b, tx_stmt_kind kind, const tx_expr *const *exprs, uint32_t ne,
                         const tx_stmt *const *stmts, uint32_t ns, tirx_span span) {
  tx_stmt *s = tx_stmt_new(b->ir, kind, exprs, ne, stmts, ns, span);
  if (!s) bld_oom(b);
  return s;
}

static int set_vars(builder *b, tx_stmt *s, const tx_expr *const *vars, uint32_t n) {
  s->vars = TX_DUP(b->ir, tx_expr, vars, n);
  s->nvars = n;
  if (n && !s->vars) return bld_oom(b), 0;
  return 1;
}

/* ---- names ------------------------------------------------------------------------------- */

/* A name about to be bound by a buffer, scope id or loop: it may shadow
 * plain bindings and outer names, but not a buffer or id in the same function. */
static int check_new_name(builder *b, const tx_ast *target, uint32_t function_mark) {
  const symbol *s = bld_lookup(b, target->u.name.id);
  if (!s || (uint32_t)(s - b->syms) < function_mark) return 1;
  if (s->kind == SYM_BUFFER || (s->kind == SYM_VAR && s->mut != MUT_NONE)) {
    BLD_ERROR(b, target, "redefinition of '%s'", target->u.name.id);
    tx_note(b->diags, s->span, "previous definition of '%s' is here", target->u.name.id);
    return 0;
  }
  return 1;
}

static uint32_t function_mark(const builder *b) {
  (void)b;
  return 0; /* module constants never clash: functions may shadow them */
}

static int bind_var(builder *b, const tx_ast *target, const tx_expr *var, var_mutability mut) {
  symbol s = {
      .name = target->u.name.id, .kind = SYM_VAR, .mut = mut, .expr = var, .span = target->span};
  return bld_push_symbol(b, s) >= 0;
}

static tx_expr *fresh_var(builder *b, const tx_ast *target, tx_dtype t, tx_var_form form) {
  tx_expr *v = tx_var(b->ir, target->u.name.id, t, form, target->span);
  if (!v) bld_oom(b);
  return v;
}

/* ---- calls used as statements ---------------------------------------------------------------- */

static const char *const scope_ids[] = {
    "cta_id",        "thread_id",       "warp_id",    "lane_id",           "warpgroup_id",
    "warp_id_in_wg", "thread_id_in_wg", "cluster_id", "cta_id_in_cluster", "cta_id_in_pair",
};

/* "cta_id" when `call` is T.cta_id(...), else NULL. */
static const char *scope_id_of(builder *b, const tx_ast *call) {
  if (!call || call->kind != AST_CALL) return NULL;
  const char *q = bld_qualified_name(b, call->u.call.func, NULL);
  if (!q || strncmp(q, "T.", 2) != 0) return NULL;
  for (size_t i = 0; i < sizeof scope_ids / sizeof *scope_ids; i++)
    if (strcmp(q + 2, scope_ids[i]) == 0) return bld_intern(b, q + 2);
  return NULL;
}

static int is_tile_op_name(const char *q) {
  static const char *const prefixes[] = {"T.tile.", "T.warp.", "T.wg.", "T.cta.", "T.cluster."};
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (strncmp(q, prefixes[i], strlen(prefixes[i])) == 0) return 1;
  return 0;
}

/* Build a statement made of a call with its operands (tile ops, scope ids, device entry). */
static tx_stmt *call_stmt(builder *b, tx_stmt_kind kind, const tx_ast *call, const char *name) {
  ptr_vec ops = {0}, kw = {0};
  uint32_t npos = 0;
  tx_stmt *s = NULL;
  if (bld_call_operands(b, call, 0, &ops, &kw, &npos)) {
    uint32_t nkw = kw.len;
    s = new_stmt(b, kind, (const tx_expr *const *)ops.items, ops.len, NULL, 0, call->span);
    if (s) {
      s->name = name;
      s->kw.npos = npos;
      s->kw.names = nkw ? (const char *const *)vec_finish(b, &kw) : NULL;
      s->kw.source_ops = bld_source_operands(b, call, 0);
    }
  }
  vec_free(&ops);
  vec_free(&kw);
  return s;
}

static int positive_extents(builder *b, const tx_stmt *s, const tx_ast *call) {
  for (uint32_t i = 0; i < s->kw.npos; i++) {
    const tx_expr *e = s->exprs[i];
    const tx_expr *const *items = e->kind == EXPR_TUPLE ? e->ops : &e;
    uint32_t n = e->kind == EXPR_TUPLE ? e->nops : 1;
    for (uint32_t k = 0; k < n; k++) {
      int64_t v;
      if (bld_const_int(items[k], &v) && v <= 0) {
        tx_error(b->diags, items[k]->span.line ? items[k]->span : call->span,
                 "launch extent must be positive, got %lld", (long long)v);
        return 0;
      }
      if (items[k]->kind != EXPR_NONE && !tx_dtype_is_int(items[k]->dtype)) {
        tx_error(b->diags, call->span, "launch extents must be integers");
        return 0;
      }
    }
  }
  return 1;
}

/* `bx, by = T.cta_id([GM, GN])` or a bare `T.cta_id([1])`. One before
 * T.device_entry() reads as TVM prints it (T.hint round trips do); the
 * verifier refuses it when lowering. */
static const tx_stmt *build_scope_id(builder *b, const tx_ast *call, const char *op,
                                     const tx_ast *const *targets, size_t ntargets) {
  tx_stmt *s = call_stmt(b, STMT_SCOPE_ID, call, op);
  if (!s || !positive_extents(b, s, call)) return NULL;
  uint32_t nids = 1;
  if (s->kw.npos > 1) {
    BLD_ERROR(b, call, "T.%s takes one list of extents, e.g. T.%s([4, 2])", op, op);
    return NULL;
  }
  if (s->kw.npos == 1 && s->exprs[0]->kind == EXPR_TUPLE) nids = s->exprs[0]->nops;
  if (ntargets && ntargets != nids) {
    BLD_ERROR(b, call, "T.%s defines %u id%s but %zu name%s bound", op, nids, nids == 1 ? "" : "s",
              ntargets, ntargets == 1 ? " is" : "s are");
    return NULL;
  }
  tx_dtype t = TX_INT32;
  const tx_expr *dt = tx_kwarg(&s->kw, s->exprs, s->nexprs, b->n.dtype);
  if (dt && (dt->kind != EXPR_STRING || !tx_dtype_parse(dt->u.str.data, dt->u.str.len, &t) ||
             !(t.bits == 32 && tx_dtype_is_int(t)))) {
    BLD_ERROR(b, call, "scope ids are \"int32\" or \"uint32\"");
    return NULL;
  }
  const tx_expr *vars[3];
  if (ntargets > 3) {
    BLD_ERROR(b, call, "at most 3 scope ids per definition");
    return NULL;
  }
  for (size_t i = 0; i < ntargets; i++) {
    if (targets[i]->kind != AST_NAME) {
      BLD_ERROR(b, targets[i], "a scope id must be bound to a plain name");
      return NULL;
    }
    if (!check_new_name(b, targets[i], function_mark(b))) return NULL;
    tx_expr *v = fresh_var(b, targets[i], t, VAR_PLAIN);
    if (!v || !bind_var(b, targets[i], v, MUT_FIXED)) return NULL;
    vars[i] = v;
  }
  return set_vars(b, s, vars, (uint32_t)ntargets) ? s : NULL;
}

/* May a device entry (the with form when with_form) start here? Each
 * with-form entry at the top of the function is a kernel of its own; a flat
 * one makes the rest of the function its kernel, so no entry may follow it.
 * An entry inside another is an error too (one inside host control flow reads
 * and prints; the verifier refuses to lower it). Returns 0 after reporting one. */
static int device_entry_allowed(builder *b, const tx_ast *call, int with_form) {
  if (b->flat_entry_seen) {
    BLD_ERROR(b, call,
              "T.device_entry() after a flat T.device_entry(): the rest of the function is "
              "already one kernel; write `with T.device_entry():` around each kernel to launch "
              "several");
    return 0;
  }
  if (b->entry_depth) {
    BLD_ERROR(b, call, "T.device_entry() inside another device entry: a kernel cannot launch one");
    return 0;
  }
  if (!with_form) b->flat_entry_seen = 1;
  return 1;
}

/* The body of a with-form device entry: device code, where no entry may start. */
static const tx_stmt *build_entry_body(builder *b, const tx_ast_list *body) {
  b->entry_depth++;
  const tx_stmt *inner = bld_block(b, body);
  b->entry_depth--;
  return inner;
}

static const tx_stmt *build_device_entry(builder *b, const tx_ast *call, const tx_ast_list *body) {
  if (!device_entry_allowed(b, call, body != NULL)) return NULL;
  /* TVM's T.device_entry(launch=T.cuda.LaunchConfig(grid=.., block=.., cluster=..))
   * is T.device_entry(grid=.., block=.., cluster=..). */
  tx_ast flat;
  const tx_ast *lc = NULL;
  for (size_t i = 0; i < call->u.call.keywords.len; i++) {
    const tx_ast *kw = call->u.call.keywords.items[i];
    if (kw->u.keyword.arg && strcmp(kw->u.keyword.arg, "launch") == 0) lc = kw->u.keyword.value;
  }
  if (lc) {
    if (call->u.call.keywords.len != 1 || call->u.call.args.len ||
        !bld_is_tirx_call(b, lc, "T.cuda.LaunchConfig") || lc->u.call.args.len) {
      BLD_ERROR(b, call,
                "T.device_entry(launch=...) takes only "
                "T.cuda.LaunchConfig(grid=..., block=..., cluster=...)");
      return NULL;
    }
    for (size_t i = 0; i < lc->u.call.keywords.len; i++) {
      const char *k = lc->u.call.keywords.items[i]->u.keyword.arg;
      if (!k || (strcmp(k, "grid") != 0 && strcmp(k, "block") != 0 && strcmp(k, "cluster") != 0)) {
        BLD_ERROR(b, lc->u.call.keywords.items[i],
                  "T.cuda.LaunchConfig: only grid=, block= and cluster= are supported (the "
                  "launcher chooses the stream)");
        return NULL;
      }
    }
    flat = *call;
    flat.u.call.keywords = lc->u.call.keywords;
    call = &flat;
  }
  tx_stmt *s = call_stmt(b, STMT_DEVICE_ENTRY, call, NULL);
  if (!s) return NULL;
  b->launch_entry = lc ? s : NULL; /* T.cuda.block_idx reads this kernel's launch */
  if (body) {
    const tx_stmt *inner = build_entry_body(b, body);
    if (!inner) return NULL;
    s->stmts = TX_DUP(b->ir, tx_stmt, &inner, 1);
    s->nstmts = 1;
    s->flag = 1;
  }
  return s;
}

const tx_expr *bld_launch_index(builder *b, const tx_ast *call, const char *q) {
  int is_block = strcmp(q, "T.cuda.block_idx") == 0;
  const tx_ast_list *a = &call->u.call.args;
  const char *axis = a->len == 1 && a->items[0]->kind == AST_STR ? a->items[0]->u.str.data : "";
  int d = strcmp(axis, "x") == 0 ? 0 : strcmp(axis, "y") == 0 ? 1 : strcmp(axis, "z") == 0 ? 2 : -1;
  if (d < 0 || call->u.call.keywords.len) {
    BLD_ERROR(b, call, "%s takes one axis: \"x\", \"y\" or \"z\"", q);
    return NULL;
  }
  const tx_stmt *s = b->launch_entry;
  const tx_expr *dims =
      tx_kwarg(&s->kw, s->exprs, s->nexprs, bld_intern(b, is_block ? "grid" : "block"));
  const tx_expr *ext = NULL;
  if (dims && dims->kind == EXPR_TUPLE)
    ext = (uint32_t)d < dims->nops ? dims->ops[d] : NULL;
  else if (dims)
    ext = d == 0 ? dims : NULL;
  if (!ext) ext = tx_int(b->ir, TX_INT32, 1, call->span); /* an absent dimension is 1 */
  char tag[16];
  snprintf(tag, sizeof tag, "%s.%s", is_block ? "blockIdx" : "threadIdx", axis);
  const tx_expr *ops[2] = {tx_string(b->ir, tag, strlen(tag), call->span), ext};
  tx_expr *e = ops[0] && ext ? tx_expr_new(b->ir, EXPR_CALL, TX_INT32, ops, 2, call->span) : NULL;
  if (!e) return bld_oom(b), NULL;
  e->u.call.op = bld_intern(b, "T.launch_thread");
  e->u.call.kw.npos = 2;
  return e;
}

/* TVM's AttrStmt on a node, T.attr(node, "key", value), flat or with a body:
 * the node (T.iter_var(...), T.comm_reducer(...), a variable) is kept as
 * written and the three print back positionally. */
static const tx_stmt *build_node_attr(builder *b, const tx_ast *call, const tx_ast_list *body) {
  const tx_ast_list *args = &call->u.call.args;
  if (args->items[1]->kind != AST_STR) {
    BLD_ERROR(b, args->items[1], "the key of T.attr(node, key, value) must be a string");
    return NULL;
  }
  const tx_expr *ops[3];
  for (int i = 0; i < 3; i++)
    if (!(ops[i] = bld_arg(b, args->items[i]))) return NULL;
  const tx_stmt *inner = body ? bld_block(b, body) : NULL;
  if (body && !inner) return NULL;
  tx_stmt *s = new_stmt(b, STMT_ATTR, ops, 3, inner ? &inner : NULL, inner ? 1 : 0, call->span);
  if (s) {
    s->kw.npos = 3;
    s->flag = body ? 1 : 0;
  }
  return s;
}

/* T.attr({"key": value}) flat, or with a body. */
static const tx_stmt *build_attr(builder *b, const tx_ast *call, const tx_ast_list *body) {
  const tx_ast_list *args = &call->u.call.args;
  if (args->len == 3 && !call->u.call.keywords.len) return build_node_attr(b, call, body);
  if (args->len != 1 || call->u.call.keywords.len || args->items[0]->kind != AST_DICT ||
      args->items[0]->u.dict.keys.len == 0) {
    BLD_ERROR(b, call,
              "T.attr takes one non-empty dict, T.attr({\"key\": value}), or a node, a key and a "
              "value: T.attr(node, \"key\", value)");
    return NULL;
  }
  const tx_ast *dict = args->items[0];
  ptr_vec vals = {0}, keys = {0};
  int ok = 1;
  for (size_t i = 0; i < dict->u.dict.keys.len && ok; i++) {
    const tx_ast *k = dict->u.dict.keys.items[i];
    if (!k || k->kind != AST_STR) {
      BLD_ERROR(b, k ? k : dict, "attribute keys must be strings");
      ok = 0;
      break;
    }
    const tx_expr *v = bld_arg(b, dict->u.dict.values.items[i]);
    ok = v && vec_push(b, &vals, v) && vec_push(b, &keys, bld_intern(b, k->u.str.data));
  }
  /* T.attr({"tirx.device_entry": ...}) is how TVM prints T.device_entry(): what follows it
   * (the rest of the sequence, or the with-body) is device code. */
  int is_entry = 0;
  for (size_t i = 0; ok && i < keys.len; i++)
    if (strcmp(keys.items[i], "tirx.device_entry") == 0) {
      is_entry = 1;
      ok = device_entry_allowed(b, call, body != NULL);
      if (ok) b->launch_entry = NULL;
    }
  tx_stmt *s = NULL;
  const tx_stmt *inner = NULL;
  if (ok && body) inner = is_entry ? build_entry_body(b, body) : bld_block(b, body);
  if (ok && (!body || inner)) {
    s = new_stmt(b, STMT_ATTR, (const tx_expr *const *)vals.items, vals.len, inner ? &inner : NULL,
                 inner ? 1 : 0, call->span);
    if (s) {
      s->kw.npos = 0;
      s->kw.names = (const char *const *)vec_finish(b, &keys);
      s->flag = body ? 1 : 0;
    }
  }
  vec_free(&vals);
  vec_free(&keys);
  return s;
}

/* A block-header form (T.reads, T.axis.*, T.init, ...) outside the header
 * of a T.sblock: reported where it is. */
static int misplaced_block_header(builder *b, const tx_ast *call) {
  const char *q = bld_sblock_header_op(b, call);
  if (!q) return 0;
  if (strcmp(q, "T.sblock_alloc_buffer") == 0)
    BLD_ERROR(b, call,
              "T.sblock_alloc_buffer belongs at the start of a T.sblock body or of an "
              "@T.prim_func(s_tir=True) function");
  else
    BLD_ERROR(b, call,
              "%s belongs at the start of a `with T.sblock(...)` body, before its other "
              "statements",
              q);
  return 1;
}

static const tx_stmt *eval_stmt(builder *b, const tx_expr *e, tirx_span span) {
  if (!e) return NULL;
  return new_stmt(b, STMT_EVAL, &e, 1, NULL, 0, span);
}

/* `T.break_loop()` / `T.continue_loop()`: how TVM prints break / continue. */
static int is_loop_jump_call(const char *q, const tx_ast *call) {
  return (strcmp(q, "T.break_loop") == 0 || strcmp(q, "T.continue_loop") == 0) &&
         !call->u.call.args.len && !call->u.call.keywords.len;
}

static const tx_stmt *build_loop_jump(builder *b, const tx_ast *st, int is_break) {
  if (!b->loop_depth) {
    BLD_ERROR(b, st, "'%s' outside a loop", is_break ? "break" : "continue");
    return NULL;
  }
  return new_stmt(b, is_break ? STMT_BREAK : STMT_CONTINUE, NULL, 0, NULL, 0, st->span);
}

static const tx_stmt *build_expr_stmt(builder *b, const tx_ast *st) {
  const tx_ast *v = st->u.expr_stmt.value;
  if (v->kind == AST_STR || v->kind == AST_ELLIPSIS) return NULL; /* docstring / `...` */
  if (v->kind == AST_CALL) {
    const char *op = scope_id_of(b, v);
    if (op) return build_scope_id(b, v, op, NULL, 0);
    const char *q = bld_qualified_name(b, v->u.call.func, NULL);
    if (q && strcmp(q, "T.device_entry") == 0) return build_device_entry(b, v, NULL);
    if (q && strcmp(q, "T.attr") == 0) return build_attr(b, v, NULL);
    if (q && strcmp(q, "T.Bind") == 0) return bld_bind_call(b, v);
    if (misplaced_block_header(b, v)) return NULL;
    if (q && strcmp(q, "T.func_attr") == 0) {
      BLD_ERROR(b, v, "T.func_attr must come first in the function body");
      return NULL;
    }
    if (q && is_loop_jump_call(q, v)) return build_loop_jump(b, st, strcmp(q, "T.break_loop") == 0);
    if (q && strcmp(q, "T.evaluate") == 0) {
      if (v->u.call.args.len != 1 || v->u.call.keywords.len) {
        BLD_ERROR(b, v, "T.evaluate takes exactly 1 argument");
        return NULL;
      }
      /* T.evaluate(T.break_loop()): the same break, spelled out. */
      const tx_ast *arg = v->u.call.args.items[0];
      const char *aq = arg->kind == AST_CALL ? bld_qualified_name(b, arg->u.call.func, NULL) : NULL;
      if (aq && is_loop_jump_call(aq, arg))
        return build_loop_jump(b, st, strcmp(aq, "T.break_loop") == 0);
      return eval_stmt(b, bld_expr(b, arg), st->span);
    }
    if (q && (is_tile_op_name(q) ||
              (tx_intrinsic_find(q) && tx_intrinsic_find(q)->kind == INTRIN_TILE))) {
      const tx_intrinsic *in = tx_intrinsic_find(q);
      if (!in) {
        const char *sugg = tx_intrinsic_suggest(q);
        if (sugg)
          BLD_ERROR(b, v->u.call.func, "unknown tile primitive '%s'; did you mean '%s'?", q, sugg);
        else
          BLD_ERROR(b, v->u.call.func, "unknown tile primitive '%s'", q);
        return NULL;
      }
      tx_stmt *s = call_stmt(b, STMT_TILE_OP, v, q);
      if (s && (int)s->kw.npos < in->min_args) {
        BLD_ERROR(b, v, "%s takes at least %d positional arguments but %u were given", q,
                  in->min_args, s->kw.npos);
        return NULL;
      }
      return s;
    }
    if (bld_buffer_ctor_of(b, v) != CTOR_NONE || bld_is_buffer_view_call(b, v)) {
      BLD_ERROR(b, v, "a buffer declaration must be assigned to a name");
      return NULL;
    }
  }
  const tx_expr *e = bld_expr(b, v);
  if (e && e->kind != EXPR_CALL && b->in_function) {
    BLD_ERROR(b, v, "expression statement has no effect; use T.evaluate(...) to keep it");
    return NULL;
  }
  return eval_stmt(b, e, st->span);
}

/* ---- assignments ------------------------------------------------------------------------------
 */

/* Is e `T.vscale() * N` (N constant)? Then N goes to *lanes. */
static int vscale_lanes(const tx_expr *e, int64_t *lanes) {
  if (e->kind != EXPR_MUL || e->ops[1]->kind != EXPR_INT || e->ops[0]->kind != EXPR_CALL ||
      !e->ops[0]->u.call.op || strcmp(e->ops[0]->u.call.op, "T.vscale") != 0)
    return 0;
  *lanes = e->ops[1]->u.ival;
  return 1;
}

/* The number of lanes of slice begin:end, when end is begin + constant, or
 * begin + T.vscale() * N (a scalable vector: *scalable set; TVM folds a
 * zero begin away, `0:T.vscale() * 4`). */
static int slice_lanes(const tx_expr *begin, const tx_expr *end, int64_t *lanes, int *scalable) {
  *scalable = 0;
  if (begin->kind == EXPR_INT && end->kind == EXPR_INT) {
    *lanes = end->u.ival - begin->u.ival;
    return 1;
  }
  if (begin->kind == EXPR_INT && begin->u.ival == 0 && vscale_lanes(end, lanes))
    return *scalable = 1;
  if (end->kind == EXPR_ADD && tx_expr_equal(end->ops[0], begin)) {
    if (vscale_lanes(end->ops[1], lanes)) return *scalable = 1;
    if (end->ops[1]->kind != EXPR_INT) return 0;
    *lanes = end->ops[1]->u.ival;
    return 1;
  }
  return 0;
}

/* The lanes of begin:end:step (step a positive constant): TVM prints the
 * end of a ramp of n lanes as begin + n * step, n * step folded when n is
 * constant and written `T.vscale() * 4 * 2` when n is scalable. */
static int strided_slice_lanes(const tx_expr *begin, const tx_expr *end, int64_t step,
                               int64_t *lanes, int *scalable) {
  const tx_expr *span = end->kind == EXPR_ADD && tx_expr_equal(end->ops[0], begin) ? end->ops[1]
                        : begin->kind == EXPR_INT && begin->u.ival == 0            ? end
                                                                                   : NULL;
  if (span && span->kind == EXPR_MUL && span->ops[1]->kind == EXPR_INT &&
      span->ops[1]->u.ival == step && vscale_lanes(span->ops[0], lanes))
    return *scalable = 1;
  if (!slice_lanes(begin, end, lanes, scalable) || *scalable || *lanes % step) return 0;
  *lanes /= step;
  return 1;
}

/* TVM prints a packed call without its result type (int32 unless the call
 * was built with another): bound to an annotated name, the call takes the
 * annotation's type, `p: T.let[T.handle("float32")] = T.call_packed(...)`,
 * stored into a buffer the element type. Any other value comes back as it is. */
static const tx_expr *packed_call_as(builder *b, const tx_expr *value, tx_dtype t) {
  static const char *const packed[] = {"T.call_packed",         "T.call_cpacked",
                                       "T.call_packed_lowered", "T.call_cpacked_lowered",
                                       "T.tvm_call_packed",     "T.tvm_call_cpacked"};
  if (value->kind != EXPR_CALL || !value->u.call.op || tx_dtype_eq(value->dtype, t)) return value;
  for (size_t i = 0; i < sizeof packed / sizeof *packed; i++) {
    if (strcmp(value->u.call.op, packed[i]) != 0) continue;
    tx_expr *r = tx_expr_new(b->ir, EXPR_CALL, t, value->ops, value->nops, value->span);
    if (!r) return bld_oom(b), NULL;
    r->u = value->u;
    return r;
  }
  return value;
}

/* `A[i * 4:i * 4 + 4] = v`: TVM's printed vector store. Each slice becomes
 * the stride-1 T.Ramp it stands for; the result is the EXPR_LOAD that
 * build_store stores through (NULL after an error). */
static const tx_expr *slice_store_target(builder *b, const tx_ast *target) {
  b->slice_steps = 1;
  const tx_expr *region = bld_arg(b, target);
  b->slice_steps = 0;
  if (!region || region->kind != EXPR_REGION) return region;
  ptr_vec idx = {0};
  int ok = 1;
  for (uint32_t i = 0; i < region->nops && ok; i++) {
    const tx_expr *e = region->ops[i];
    if (e->kind == EXPR_SLICE) {
      int64_t lanes = 0;
      int scalable = 0;
      const tx_expr *begin = e->ops[0], *end = e->ops[1];
      int64_t step = 1;
      if (e->nops == 3 && (e->ops[2]->kind != EXPR_INT || e->ops[2]->u.ival < 1)) {
        BLD_ERROR(b, target, "a stored slice's step must be a positive constant: A[i:i + 8:2]");
        ok = 0;
        break;
      }
      if (e->nops == 3) step = e->ops[2]->u.ival;
      int sized = begin->kind != EXPR_NONE && end->kind != EXPR_NONE &&
                  (step == 1 ? slice_lanes(begin, end, &lanes, &scalable)
                             : strided_slice_lanes(begin, end, step, &lanes, &scalable));
      if (!sized || lanes < 1 || lanes > TX_MAX_LANES) {
        BLD_ERROR(b, target,
                  "a stored slice needs a constant length from 1 to %d lanes: A[i:i + 4] = value, "
                  "A[i:i + 8:2] = value",
                  TX_MAX_LANES);
        ok = 0;
        break;
      }
      const tx_expr *ops[2] = {begin, tx_int(b->ir, begin->dtype, step, e->span)};
      tx_dtype t = tx_dtype_with_lanes(begin->dtype, (int)lanes);
      t.scalable = (uint8_t)scalable;
      e = ops[1] ? tx_expr_new(b->ir, EXPR_RAMP, t, ops, 2, e->span) : NULL;
      if (!e) bld_oom(b);
    }
    ok = e && vec_push(b, &idx, e);
  }
  tx_expr *load = NULL;
  if (ok) {
    const tx_buffer *buf = region->u.buffer;
    tx_dtype t = buf->dtype;
    t.lanes = 1;
    for (uint32_t i = 0; i < idx.len; i++) {
      tx_dtype it = ((const tx_expr *)idx.items[i])->dtype;
      t.lanes = (uint16_t)(t.lanes * it.lanes);
      t.scalable |= it.scalable;
    }
    load =
        tx_expr_new(b->ir, EXPR_LOAD, t, (const tx_expr *const *)idx.items, idx.len, target->span);
    if (load)
      load->u.buffer = buf;
    else
      bld_oom(b);
  }
  vec_free(&idx);
  return load;
}

static int has_slice_index(const tx_ast *target) {
  const tx_ast *sl = target->u.subscript.index;
  if (sl->kind == AST_SLICE) return 1;
  if (sl->kind != AST_TUPLE) return 0;
  for (size_t i = 0; i < sl->u.seq.elts.len; i++)
    if (sl->u.seq.elts.items[i]->kind == AST_SLICE) return 1;
  return 0;
}

static const tx_stmt *build_store(builder *b, const tx_ast *target, const tx_expr *value,
                                  tirx_span span) {
  const tx_ast *obj = target->u.subscript.value;
  const symbol *s = obj->kind == AST_NAME ? bld_lookup(b, obj->u.name.id) : NULL;
  if (!s || s->kind != SYM_BUFFER) {
    if (obj->kind == AST_NAME && !s)
      BLD_ERROR(b, obj, "undefined name '%s'", obj->u.name.id);
    else
      BLD_ERROR(b, obj, "only buffers can be stored to");
    return NULL;
  }
  int slices = has_slice_index(target);
  const tx_expr *load = slices ? slice_store_target(b, target) : bld_expr(b, target);
  if (!load || !value) return NULL;
  if (load->kind != EXPR_LOAD) {
    BLD_ERROR(b, target, "cannot store to a buffer region");
    return NULL;
  }
  value = packed_call_as(b, value, load->dtype);
  if (!value) return NULL;
  if (value->dtype.lanes == 1 && load->dtype.lanes == 1 && tx_dtype_is_int(value->dtype) &&
      value->kind != EXPR_INT &&
      (tx_dtype_is_float(load->dtype) || load->dtype.code == DT_BFLOAT)) {
    /* TVM's buffer store converts the value to the element type:
     * `reg[i] = tx * 8 + i` into a float16 buffer stores the number. */
    value = tx_expr_new(b->ir, EXPR_CAST, load->dtype, &value, 1, span);
    if (!value) return bld_oom(b), NULL;
  }
  value = bld_coerce(b, value, load->dtype, span, "store");
  if (!value) return NULL;
  ptr_vec ops = {0};
  tx_stmt *st = NULL;
  if (vec_push(b, &ops, value)) {
    int ok = 1;
    for (uint32_t i = 0; i < load->nops && ok; i++)
      ok = vec_push(b, &ops, load->ops[i]);
    if (ok) st = new_stmt(b, STMT_STORE, (const tx_expr *const *)ops.items, ops.len, NULL, 0, span);
    if (st) st->buffer = s->buffer;
    if (st && slices) st->flag = STORE_SLICES;
  }
  vec_free(&ops);
  return st;
}

static const tx_stmt *declare_buffer(builder *b, const tx_ast *target, const tx_ast *call) {
  if (!check_new_name(b, target, function_mark(b))) return NULL;
  buffer_ctor ctor = bld_buffer_ctor_of(b, call);
  tx_ast flat;
  if (ctor != CTOR_NONE && !(call = bld_dialect_ty_args(b, call, &flat))) return NULL;
  tx_buffer *buf = NULL;
  if (ctor == CTOR_NONE) {
    buf = bld_buffer_view(b, call, target->u.name.id, target->span);
  } else if (ctor == CTOR_MATCH) {
    BLD_ERROR(b, call, "T.match_buffer must come at the start of the function");
    return NULL;
  } else {
    buf = bld_buffer(b, ctor, call, target->u.name.id, target->span);
    /* X = T.Buffer(...) in a body: TVM's print of a buffer used undeclared. */
    if (buf && ctor == CTOR_BUFFER) buf->form = BUF_FREE;
  }
  if (!buf) return NULL;
  /* Only a buffer with storage of its own opens a dynamic arena; views into
   * it (data=arena.data) share that arena. */
  int owns_storage = buf->data->u.var.form == VAR_BUFFER_DATA && buf->data->u.var.name == buf->name;
  if (buf->scope == b->n.shared_dyn && owns_storage && buf->form != BUF_VIEW) {
    if (b->dyn_shared_span.line) {
      BLD_ERROR(b, call,
                "more than one 'shared.dyn' allocation in one function; carve views "
                "from one arena with T.decl_buffer(..., data=arena.data)");
      tx_note(b->diags, b->dyn_shared_span, "the first 'shared.dyn' allocation is here");
    } else {
      b->dyn_shared_span = call->span;
    }
  }
  tx_stmt *s = new_stmt(b,
                        ctor == CTOR_ALLOC || ctor == CTOR_ALLOC_SHARED || ctor == CTOR_ALLOC_LOCAL
                            ? STMT_ALLOC
                            : STMT_DECL,
                        NULL, 0, NULL, 0, call->span);
  if (!s) return NULL;
  s->buffer = buf;
  /* TVM's T.decl_scalar returns the scalar: the name means its element. */
  symbol sym = {.name = target->u.name.id,
                .kind = SYM_BUFFER,
                .mut = MUT_FIXED,
                .buffer = buf,
                .span = target->span,
                .scalar = ctor == CTOR_DECL_SCALAR};
  return bld_push_symbol(b, sym) >= 0 ? s : NULL;
}

static const tx_stmt *bind_stmt(builder *b, const tx_ast *target, const tx_expr *var,
                                const tx_expr *value, tx_bind_style style, tirx_span span) {
  tx_stmt *s = new_stmt(b, STMT_BIND, value ? &value : NULL, value ? 1 : 0, NULL, 0, span);
  if (!s || !set_vars(b, s, &var, 1)) return NULL;
  s->flag = (uint8_t)style;
  var_mutability mut = style == BIND_SCALAR || style == BIND_LOCAL_SCALAR ? MUT_SCALAR
                       : style == BIND_PLAIN                              ? MUT_NONE
                                                                          : MUT_LET;
  return bind_var(b, target, var, mut) ? s : NULL;
}

/* `bar = T.shared_scalar("uint64")`: TVM's scalar in shared memory. It is a
 * one-element shared allocation (printed as such); the name stands for its
 * element, so `T.address_of(bar)`, `bar + 1` and `bar = v` work on bar[0]. */
static const tx_stmt *shared_scalar(builder *b, const tx_ast *target, const tx_ast *call) {
  if (!check_new_name(b, target, function_mark(b))) return NULL;
  const tx_ast_list *a = &call->u.call.args;
  tx_dtype t = TX_FLOAT32;
  if (a->len > 1 || call->u.call.keywords.len || (a->len == 1 && !bld_dtype(b, a->items[0], &t))) {
    if (a->len > 1 || call->u.call.keywords.len)
      BLD_ERROR(b, call, "T.shared_scalar takes one dtype");
    return NULL;
  }
  tx_buffer *buf = tx_arena_alloc(b->ir->arena, sizeof *buf);
  const tx_expr **shape = tx_arena_alloc(b->ir->arena, sizeof *shape);
  tx_expr *data = tx_var(b->ir, target->u.name.id, TX_HANDLE, VAR_BUFFER_DATA, target->span);
  if (!buf || !shape || !data || !(shape[0] = tx_int(b->ir, TX_INT32, 1, call->span)))
    return bld_oom(b), NULL;
  buf->name = target->u.name.id;
  buf->dtype = t;
  buf->form = BUF_ALLOC;
  buf->span = target->span;
  buf->scope = b->n.shared;
  buf->ndim = 1;
  buf->shape = shape;
  data->u.var.pointee = t;
  data->u.var.has_pointee = 1;
  data->u.var.scope = buf->scope;
  buf->data = data;
  tx_stmt *s = new_stmt(b, STMT_ALLOC, NULL, 0, NULL, 0, call->span);
  if (!s) return NULL;
  s->buffer = buf;
  symbol sym = {.name = target->u.name.id,
                .kind = SYM_BUFFER,
                .mut = MUT_FIXED,
                .buffer = buf,
                .span = target->span,
                .scalar = 1};
  return bld_push_symbol(b, sym) >= 0 ? s : NULL;
}

/* `x = value` where x is a name. */
const tx_stmt *bld_assign_name(builder *b, const tx_ast *target, const tx_ast *value_ast,
                               tirx_span span) {
  const char *name = target->u.name.id;
  if (value_ast->kind == AST_CALL && bld_is_tirx_call(b, value_ast, "T.Bind")) {
    const tx_ast *inner = bld_bind_value(b, value_ast); /* TVM 0.27's x = T.Bind(value) */
    return inner ? bld_assign_name(b, target, inner, span) : NULL;
  }
  if (value_ast->kind == AST_CALL) {
    if (misplaced_block_header(b, value_ast)) return NULL;
    const char *op = scope_id_of(b, value_ast);
    if (op) return build_scope_id(b, value_ast, op, &target, 1);
    if (bld_buffer_ctor_of(b, value_ast) != CTOR_NONE || bld_is_buffer_view_call(b, value_ast))
      return declare_buffer(b, target, value_ast);
    tx_dtype dt, pointee;
    int has_pointee;
    const char *scope;
    if ((value_ast->u.call.args.len || value_ast->u.call.keywords.len) &&
        bld_pointer_type(b, value_ast, &pointee, &has_pointee, &scope) > 0) {
      /* p = T.handle("float32", "global"): a free pointer variable, as TVM
       * declares one that no parameter binds. */
      if (!check_new_name(b, target, function_mark(b))) return NULL;
      tx_expr *v = fresh_var(b, target, TX_HANDLE, VAR_SYMBOLIC);
      if (!v) return NULL;
      v->u.var.pointee = pointee;
      v->u.var.has_pointee = has_pointee;
      v->u.var.scope = scope ? bld_intern(b, scope) : NULL;
      if (!bind_var(b, target, v, MUT_FIXED) || !vec_push(b, &b->symbolic, v)) return NULL;
      return NULL;
    }
    /* n = T.dynamic("n"); a malformed one is still declared (its error stands). */
    if (bld_dynamic_dtype(b, target, value_ast, &dt) ||
        (value_ast->u.call.args.len == 0 && value_ast->u.call.keywords.len == 0 &&
         bld_dtype_attr(b, value_ast->u.call.func, &dt, 0))) {
      /* n = T.int32() after other statements: a symbolic extent of this function. */
      if (!check_new_name(b, target, function_mark(b))) return NULL;
      tx_expr *v = fresh_var(b, target, dt, VAR_SYMBOLIC);
      if (!v || !bind_var(b, target, v, MUT_FIXED) || !vec_push(b, &b->symbolic, v)) return NULL;
      return NULL;
    }
    if (bld_is_tirx_call(b, value_ast, "T.shared_scalar"))
      return shared_scalar(b, target, value_ast);
    if (bld_is_tirx_call(b, value_ast, "T.local_scalar")) {
      const tx_ast_list *a = &value_ast->u.call.args;
      tx_dtype t;
      if (a->len != 1 || value_ast->u.call.keywords.len || !bld_dtype(b, a->items[0], &t)) {
        if (a->len != 1) BLD_ERROR(b, value_ast, "T.local_scalar takes one dtype");
        return NULL;
      }
      tx_expr *v = fresh_var(b, target, t, VAR_SCALAR);
      return v ? bind_stmt(b, target, v, NULL, BIND_LOCAL_SCALAR, span) : NULL;
    }
  }
  const symbol *s = bld_lookup(b, name);
  const tx_expr *value = bld_scalar_value(b, bld_expr(b, value_ast));
  if (!value) return NULL;
  if (s && s->kind == SYM_VAR && s->mut == MUT_SCALAR) {
    value = bld_coerce(b, value, s->expr->dtype, span, "assignment");
    if (!value) return NULL;
    tx_stmt *st = new_stmt(b, STMT_ASSIGN, &value, 1, NULL, 0, span);
    return st && set_vars(b, st, &s->expr, 1) ? st : NULL;
  }
  if (s && s->kind == SYM_VAR && (s->mut == MUT_LET || s->mut == MUT_FIXED)) {
    BLD_ERROR(b, target,
              s->mut == MUT_LET ? "cannot reassign '%s': it is an immutable T.let binding"
                                : "cannot reassign '%s': loop variables, scope ids and "
                                  "parameters are immutable",
              name);
    tx_note(b->diags, s->span, "'%s' is defined here", name);
    return NULL;
  }
  int64_t one;
  int one_element = s && s->kind == SYM_BUFFER && s->buffer->ndim == 1 &&
                    bld_const_int(s->buffer->shape[0], &one) && one == 1;
  if (s && s->kind == SYM_BUFFER && (s->scalar || one_element)) {
    /* A shared scalar, or a (1,) buffer as TVM's printer writes it: `bar = v` stores its
     * element. */
    value = bld_coerce(b, value, s->buffer->dtype, span, "assignment");
    const tx_expr *ops[2] = {value, value ? tx_int(b->ir, TX_INT32, 0, span) : NULL};
    uint32_t nops = s->buffer->ndim ? 2 : 1; /* a T.decl_scalar has no index */
    tx_stmt *st = ops[1] ? new_stmt(b, STMT_STORE, ops, nops, NULL, 0, span) : NULL;
    if (st) st->buffer = s->buffer;
    return st;
  }
  if (s && s->kind == SYM_BUFFER) {
    BLD_ERROR(b, target, "cannot assign to buffer '%s'; store to an element: %s[...] = value", name,
              name);
    return NULL;
  }
  if (value->dtype.code == DT_VOID) {
    BLD_ERROR(b, value_ast, "this expression has no value to bind");
    return NULL;
  }
  tx_expr *v = fresh_var(b, target, value->dtype, VAR_PLAIN);
  /* `A_map = T.tvm_stack_alloca("tensormap", 1)` holds a tensor map even
   * without the annotation TVM's printer adds. */
  if (v) v->u.var.tensormap = (uint8_t)tx_tensormap_is_alloca(value, NULL);
  bld_copy_pointer_type(b, v, value);
  return v ? bind_stmt(b, target, v, value, BIND_PLAIN, span) : NULL;
}

static const tx_stmt *build_assign(builder *b, const tx_ast *st) {
  if (st->u.assign.targets.len != 1) {
    BLD_ERROR(b, st, "chained assignment is not supported");
    return NULL;
  }
  const tx_ast *target = st->u.assign.targets.items[0];
  const tx_ast *value = st->u.assign.value;
  if (target->kind == AST_NAME) return bld_assign_name(b, target, value, st->span);
  if (target->kind == AST_SUBSCRIPT)
    return build_store(b, target, bld_scalar_value(b, bld_expr(b, value)), st->span);
  if (target->kind == AST_TUPLE) {
    if (value->kind == AST_CALL && misplaced_block_header(b, value)) return NULL;
    const char *op = scope_id_of(b, value);
    if (op)
      return build_scope_id(b, value, op, (const tx_ast *const *)target->u.seq.elts.items,
                            target->u.seq.elts.len);
    BLD_ERROR(b, target,
              "tuple assignment is only supported for scope ids: bx, by = T.cta_id([..])");
    return NULL;
  }
  BLD_ERROR(b, target, "cannot assign to this expression");
  return NULL;
}

/* x: T.int32 = v, x: T.let = v, x: T.let[T.int32] = v */
static const tx_stmt *build_annassign(builder *b, const tx_ast *st) {
  const tx_ast *target = st->u.annassign.target, *ann = st->u.annassign.annotation;
  const tx_ast *value_ast = st->u.annassign.value;
  /* x: T.let[T.int32] = T.Bind(value) (TVM 0.27) is x: T.let[T.int32] = value. */
  while (value_ast && value_ast->kind == AST_CALL && bld_is_tirx_call(b, value_ast, "T.Bind"))
    if (!(value_ast = bld_bind_value(b, value_ast))) return NULL;
  if (target->kind != AST_NAME) {
    BLD_ERROR(b, target, "only a plain name can be annotated");
    return NULL;
  }
  if (!check_new_name(b, target, function_mark(b))) return NULL;
  const symbol *prev = bld_lookup(b, target->u.name.id);
  if (prev && prev->kind == SYM_VAR && prev->mut == MUT_NONE &&
      prev->expr->u.var.form == VAR_PLAIN && (uint32_t)(prev - b->syms) >= function_mark(b)) {
    /* Re-annotating a plain binding is a new binding; allowed. */
  }
  tx_bind_style style = BIND_SCALAR;
  tx_dtype t = TX_VOID;
  const tx_ast *type = ann;
  const char *q = ann->kind == AST_SUBSCRIPT ? bld_qualified_name(b, ann->u.subscript.value, NULL)
                                             : bld_qualified_name(b, ann, NULL);
  if (q && strcmp(q, "T.let") == 0) {
    style = ann->kind == AST_SUBSCRIPT ? BIND_LET_TYPED : BIND_LET;
    type = ann->kind == AST_SUBSCRIPT ? ann->u.subscript.index : NULL;
  } else if (ann->kind == AST_SUBSCRIPT) {
    BLD_ERROR(b, ann,
              "array annotations (x: T.float32[8]) are not supported; use "
              "T.alloc_local((8,), \"float32\")");
    return NULL;
  }
  /* T.let[T.Var(name="x", ty=TYPE)] (TVM's printer, also dtype=TYPE in
   * older docs): the variable's type is TYPE; the name is the target's. */
  if (type && type->kind == AST_CALL && type->u.call.args.len == 0) {
    const char *vq = bld_qualified_name(b, type->u.call.func, NULL);
    const tx_ast *ty = NULL;
    for (size_t i = 0; vq && strcmp(vq, "T.Var") == 0 && i < type->u.call.keywords.len; i++) {
      const tx_ast *kw = type->u.call.keywords.items[i];
      const char *k = kw->u.keyword.arg;
      if (k && (strcmp(k, "ty") == 0 || strcmp(k, "dtype") == 0)) ty = kw->u.keyword.value;
    }
    if (ty) type = ty;
  }
  int tensormap = type && bld_tensormap_type(b, type);
  /* x: T.let[T.handle("uint64", "shared")] = ...: a typed pointer. */
  tx_dtype pointee = TX_VOID;
  int has_pointee = 0;
  const char *scope = NULL;
  int ptr = type && !tensormap ? bld_pointer_type(b, type, &pointee, &has_pointee, &scope) : 0;
  if (ptr < 0) return NULL;
  if (tensormap) {
    /* TVM's older printer wrote `A_map: T.handle("tensormap") = ...` without
     * T.let: an immutable binding either way. */
    t = TX_HANDLE;
    style = BIND_LET_TYPED;
  } else if (ptr) {
    t = TX_HANDLE;
  } else if (type && !bld_dtype_attr(b, type, &t, 1)) {
    return NULL;
  }
  if (style == BIND_SCALAR && t.code == DT_HANDLE) {
    BLD_ERROR(b, ann, "a handle cannot be a mutable scalar; bind it with `x = value` or T.let");
    return NULL;
  }
  if (!value_ast && style != BIND_SCALAR) {
    BLD_ERROR(b, st, "a T.let binding needs a value");
    return NULL;
  }
  const tx_expr *value = value_ast ? bld_expr(b, value_ast) : NULL;
  if (value_ast && !value) return NULL;
  if (value && type) value = packed_call_as(b, value, t);
  if (value && type)
    value = bld_coerce(b, value, t, st->span, "annotated assignment");
  else if (value)
    t = value->dtype;
  if (value_ast && !value) return NULL;
  if (value && value->dtype.code == DT_VOID) {
    BLD_ERROR(b, value_ast, "this expression has no value to bind");
    return NULL;
  }
  tx_expr *v = fresh_var(b, target, t, style == BIND_SCALAR ? VAR_SCALAR : VAR_PLAIN);
  /* A handle bound to a tensor-map allocation holds a map whatever it was
   * annotated (T.handle, T.let): the kernel must take it by value. */
  if (v)
    v->u.var.tensormap =
        tensormap || (t.code == DT_HANDLE && value && tx_tensormap_is_alloca(value, NULL));
  if (v && ptr) {
    v->u.var.pointee = pointee;
    v->u.var.has_pointee = has_pointee;
    v->u.var.scope = scope;
  } else if (!type) {
    bld_copy_pointer_type(b, v, value);
  }
  return v ? bind_stmt(b, target, v, value, style, st->span) : NULL;
}

static const tx_stmt *build_augassign(builder *b, const tx_ast *st) {
  /* x op= v is x = x op v: reuse the expression builder on a synthesized node. */
  tx_ast *bin = tx_arena_alloc(b->ir->arena, sizeof *bin);
  if (!bin) return bld_oom(b), NULL;
  bin->kind = AST_BINOP;
  bin->span = st->span;
  bin->u.binop.op = st->u.augassign.op;
  bin->u.binop.left = st->u.augassign.target;
  bin->u.binop.right = st->u.augassign.value;
  const tx_ast *target = st->u.augassign.target;
  if (target->kind == AST_SUBSCRIPT) return build_store(b, target, bld_expr(b, bin), st->span);
  if (target->kind != AST_NAME) {
    BLD_ERROR(b, target, "cannot assign to this expression");
    return NULL;
  }
  const symbol *s = bld_lookup(b, target->u.name.id);
  if (!s) {
    BLD_ERROR(b, target, "undefined name '%s'", target->u.name.id);
    return NULL;
  }
  if (s->kind != SYM_VAR || s->mut != MUT_SCALAR) {
    BLD_ERROR(b, target, "'%s' is immutable; declare a mutable scalar with `%s: T.int32 = ...`",
              target->u.name.id, target->u.name.id);
    return NULL;
  }
  return bld_assign_name(b, target, bin, st->span);
}

/* ---- loops --------------------------------------------------------------------------------- */

typedef struct loop_form {
  const char *name;
  tx_for_kind kind;
} loop_form;

static const loop_form loop_forms[] = {
    {"range", FOR_SERIAL},        {"T.serial", FOR_SERIAL},
    {"T.unroll", FOR_UNROLL},     {"T.vectorized", FOR_VECTORIZED},
    {"T.parallel", FOR_PARALLEL}, {"T.thread_binding", FOR_THREAD_BINDING},
    {"T.grid", FOR_SERIAL},
};

static const tx_stmt *loop_nest(builder *b, const tx_ast *st, const tx_ast *const *targets,
                                size_t ntargets, const tx_expr *const *ops, uint32_t nops,
                                const loop_form *form, const tx_kwargs *kw, const char *thread,
                                int grid);

static const tx_stmt *build_for(builder *b, const tx_ast *st) {
  const tx_ast *iter = st->u.for_.iter, *target = st->u.for_.target;
  if (st->u.for_.orelse.len) {
    BLD_ERROR(b, st->u.for_.orelse.items[0], "for-else is not supported");
    return NULL;
  }
  const char *q = NULL;
  if (iter->kind == AST_CALL) {
    const tx_ast *f = iter->u.call.func;
    q = f->kind == AST_NAME && strcmp(f->u.name.id, "range") == 0 && !bld_lookup(b, b->n.range)
            ? "range"
            : bld_qualified_name(b, f, NULL);
  }
  const loop_form *form = NULL;
  for (size_t i = 0; q && i < sizeof loop_forms / sizeof *loop_forms; i++)
    if (strcmp(q, loop_forms[i].name) == 0) form = &loop_forms[i];
  if (!form) {
    BLD_ERROR(b, iter,
              "a for loop iterates over range(...), T.serial, T.unroll, T.vectorized, "
              "T.parallel, T.thread_binding or T.grid");
    return NULL;
  }
  int grid = strcmp(form->name, "T.grid") == 0;
  const tx_ast *const *targets = (const tx_ast *const *)&target;
  size_t ntargets = 1;
  if (target->kind == AST_TUPLE) {
    targets = (const tx_ast *const *)target->u.seq.elts.items;
    ntargets = target->u.seq.elts.len;
  }
  for (size_t i = 0; i < ntargets; i++)
    if (targets[i]->kind != AST_NAME) {
      BLD_ERROR(b, targets[i], "a loop variable must be a plain name");
      return NULL;
    }
  ptr_vec ops = {0}, kw = {0};
  uint32_t npos = 0;
  const tx_stmt *result = NULL;
  if (!bld_call_operands(b, iter, 0, &ops, &kw, &npos)) goto done;
  for (uint32_t i = 0; i < npos; i++) {
    const tx_expr *e = ops.items[i];
    if (!tx_dtype_is_int(e->dtype)) {
      BLD_ERROR(b, iter, "loop bounds must be integers");
      goto done;
    }
  }
  const char *thread = NULL;
  if (grid) {
    if (npos != ntargets || kw.len) {
      BLD_ERROR(b, iter, "T.grid has %u extent%s but %zu loop variable%s", npos,
                npos == 1 ? "" : "s", ntargets, ntargets == 1 ? "" : "s");
      goto done;
    }
  } else {
    if (ntargets != 1) {
      BLD_ERROR(b, target, "only T.grid binds several loop variables");
      goto done;
    }
    if (npos < 1 || npos > 3 || (npos == 3 && form->kind != FOR_SERIAL)) {
      BLD_ERROR(b, iter, "%s takes 1 to %d positional bounds", form->name,
                form->kind == FOR_SERIAL ? 3 : 2);
      goto done;
    }
    for (uint32_t i = 0; i < kw.len; i++) {
      const char *k = kw.items[i];
      if (form->kind == FOR_THREAD_BINDING && k == b->n.thread) {
        const tx_expr *v = ops.items[npos + i];
        if (v->kind != EXPR_STRING) {
          BLD_ERROR(b, iter, "thread= must be a string such as \"threadIdx.x\"");
          goto done;
        }
        thread = bld_intern(b, v->u.str.data);
      } else if (strcmp(form->name, "range") == 0) {
        BLD_ERROR(b, iter, "range() takes no keyword arguments; use T.serial(..., %s=...)", k);
        goto done;
      }
    }
    if (form->kind == FOR_THREAD_BINDING && !thread) {
      BLD_ERROR(b, iter, "T.thread_binding needs thread=\"threadIdx.x\" (or another tag)");
      goto done;
    }
  }
  {
    /* Keyword annotations (thread= excluded) follow the bounds. */
    ptr_vec kept = {0}, kept_names = {0};
    int ok = 1;
    for (uint32_t i = 0; i < npos && ok; i++)
      ok = vec_push(b, &kept, ops.items[i]);
    for (uint32_t i = 0; i < kw.len && ok; i++)
      if (kw.items[i] != b->n.thread)
        ok = vec_push(b, &kept, ops.items[npos + i]) && vec_push(b, &kept_names, kw.items[i]);
    tx_kwargs k = {.npos = npos,
                   .names =
                       kept_names.len ? (const char *const *)vec_finish(b, &kept_names) : NULL};
    if (ok)
      result = loop_nest(b, st, targets, ntargets, (const tx_expr *const *)kept.items, kept.len,
                         form, &k, thread, grid);
    vec_free(&kept);
    vec_free(&kept_names);
  }
done:
  vec_free(&ops);
  vec_free(&kw);
  return result;
}

static const tx_stmt *loop_nest(builder *b, const tx_ast *st, const tx_ast *const *targets,
                                size_t ntargets, const tx_expr *const *ops, uint32_t nops,
                                const loop_form *form, const tx_kwargs *kw, const char *thread,
                                int grid) {
  uint32_t mark = bld_scope_mark(b);
  const tx_expr *vars[TX_MAX_NESTING];
  const tx_expr *bounds[TX_MAX_NESTING][2];
  if (ntargets > TX_MAX_NESTING) {
    BLD_ERROR(b, st, "too many loop variables");
    return NULL;
  }
  for (size_t i = 0; i < ntargets; i++) {
    const tx_expr *begin, *end;
    if (grid) {
      end = ops[i];
      begin = tx_int(b->ir, end->dtype, 0, end->span);
    } else if (kw->npos == 1) {
      end = ops[0];
      begin = tx_int(b->ir, end->dtype, 0, end->span);
    } else {
      begin = ops[0];
      end = ops[1];
      if (!tx_dtype_eq(begin->dtype, end->dtype)) {
        const tx_expr *x = begin, *y = end;
        if (x->kind == EXPR_INT)
          begin = bld_coerce(b, x, y->dtype, st->span, "loop bounds");
        else if (y->kind == EXPR_INT)
          end = bld_coerce(b, y, x->dtype, st->span, "loop bounds");
        if (!begin || !end || !tx_dtype_eq(begin->dtype, end->dtype)) {
          BLD_ERROR(b, st, "loop bounds have different types");
          bld_scope_pop(b, mark);
          return NULL;
        }
      }
    }
    if (!begin) return bld_oom(b), NULL;
    tx_expr *v = fresh_var(b, targets[i], end->dtype, VAR_PLAIN);
    if (!v || !bind_var(b, targets[i], v, MUT_FIXED)) return NULL;
    vars[i] = v;
    bounds[i][0] = begin;
    bounds[i][1] = end;
  }
  b->loop_depth++;
  const tx_stmt *body = bld_block(b, &st->u.for_.body);
  b->loop_depth--;
  bld_scope_pop(b, mark);
  if (!body) return NULL;
  for (size_t i = ntargets; i-- > 0;) {
    ptr_vec e = {0};
    int ok = vec_push(b, &e, bounds[i][0]) && vec_push(b, &e, bounds[i][1]);
    if (!grid && kw->npos == 3) ok = ok && vec_push(b, &e, ops[2]);
    for (uint32_t k = grid ? nops : kw->npos; k < nops && ok; k++)
      ok = vec_push(b, &e, ops[k]);
    tx_stmt *s =
        ok ? new_stmt(b, STMT_FOR, (const tx_expr *const *)e.items, e.len, &body, 1, st->span)
           : NULL;
    vec_free(&e);
    if (!s || !set_vars(b, s, &vars[i], 1)) return NULL;
    s->flag = (uint8_t)form->kind;
    s->name = thread;
    s->kw.npos = grid ? 2 : (kw->npos == 3 ? 3 : 2);
    s->kw.names = grid ? NULL : kw->names;
    body = s;
  }
  return body;
}

/* ---- with
 * ----------------------------------------------------------------------------------------- */

static const tx_stmt *build_with_items(builder *b, const tx_ast *st, size_t item) {
  const tx_ast_list *items = &st->u.with.items;
  if (item == items->len) return bld_block(b, &st->u.with.body);
  const tx_ast *wi = items->items[item];
  const tx_ast *ctx = wi->u.withitem.context, *target = wi->u.withitem.target;
  if (ctx->kind != AST_CALL) {
    BLD_ERROR(b, ctx, "a with-statement needs a call such as `with T.attr({...}):`");
    return NULL;
  }
  const char *q = bld_qualified_name(b, ctx->u.call.func, NULL);
  int is_entry = q && strcmp(q, "T.device_entry") == 0, is_attr = q && strcmp(q, "T.attr") == 0;
  if ((is_entry || is_attr) && (target || item + 1 != items->len)) {
    BLD_ERROR(b, ctx, "%s must be the only item of its with-statement, without `as`", q);
    return NULL;
  }
  if (is_entry) return build_device_entry(b, ctx, &st->u.with.body);
  if (is_attr) return build_attr(b, ctx, &st->u.with.body);
  if (q && strcmp(q, "T.sblock") == 0) {
    if (target || items->len != 1) {
      BLD_ERROR(b, ctx, "T.sblock must be the only item of its with-statement, without `as`");
      return NULL;
    }
    return bld_sblock(b, ctx, &st->u.with.body, st->span);
  }
  if (misplaced_block_header(b, ctx)) return NULL;
  const tx_expr *call = bld_expr(b, ctx);
  if (!call) return NULL;
  uint32_t mark = bld_scope_mark(b);
  const tx_expr *vars[8];
  uint32_t nvars = 0;
  if (target) {
    const tx_ast *const *ts = (const tx_ast *const *)&target;
    size_t n = 1;
    if (target->kind == AST_TUPLE) {
      ts = (const tx_ast *const *)target->u.seq.elts.items;
      n = target->u.seq.elts.len;
    }
    for (size_t i = 0; i < n; i++) {
      if (ts[i]->kind != AST_NAME || nvars == 8) {
        BLD_ERROR(b, ts[i], "`as` binds plain names (at most 8)");
        return NULL;
      }
      tx_dtype t = call->dtype.code == DT_VOID ? TX_INT32 : call->dtype;
      tx_expr *v = fresh_var(b, ts[i], t, VAR_PLAIN);
      if (!v || !bind_var(b, ts[i], v, MUT_FIXED)) return NULL;
      vars[nvars++] = v;
    }
  }
  const tx_stmt *body = build_with_items(b, st, item + 1);
  bld_scope_pop(b, mark);
  if (!body) return NULL;
  tx_stmt *s = new_stmt(b, STMT_WITH, &call, 1, &body, 1, wi->span);
  return s && set_vars(b, s, vars, nvars) ? s : NULL;
}

/* ---- dispatch
 * ------------------------------------------------------------------------------------ */

static const tx_expr *bool_cond(builder *b, const tx_ast *a, int int_ok) {
  const tx_expr *c = bld_expr(b, a);
  if (c && int_ok && tx_dtype_is_int(c->dtype) && c->dtype.lanes == 1) {
    /* `if T.cuda.elect_sync():` - TVM tests an integer condition as
     * Python does, against zero. */
    const tx_expr *zero = tx_int(b->ir, c->dtype, 0, c->span);
    tx_expr *ne = zero ? tx_binary(b->ir, EXPR_NE, c, zero, c->span) : NULL;
    if (!ne) return bld_oom(b), NULL;
    ne->implicit_truth = 1;
    return ne;
  }
  if (c && !tx_dtype_is_bool(c->dtype)) {
    char buf[32];
    BLD_ERROR(b, a, "condition must be boolean, not %s (compare it, e.g. x != 0)",
              tx_dtype_str(c->dtype, buf));
    return NULL;
  }
  return c;
}

static const tx_stmt *build_if(builder *b, const tx_ast *st) {
  const tx_expr *c = bool_cond(b, st->u.if_.test, 1);
  const tx_stmt *then = bld_block(b, &st->u.if_.body);
  const tx_stmt *els = st->u.if_.orelse.len ? bld_block(b, &st->u.if_.orelse) : NULL;
  if (!c || !then || (st->u.if_.orelse.len && !els)) return NULL;
  const tx_stmt *arms[2] = {then, els};
  return new_stmt(b, STMT_IF, &c, 1, arms, els ? 2 : 1, st->span);
}

static const tx_stmt *build_while(builder *b, const tx_ast *st) {
  if (st->u.while_.orelse.len) {
    BLD_ERROR(b, st->u.while_.orelse.items[0], "while-else is not supported");
    return NULL;
  }
  const tx_expr *c = bool_cond(b, st->u.while_.test, 1);
  b->loop_depth++;
  const tx_stmt *body = bld_block(b, &st->u.while_.body);
  b->loop_depth--;
  if (!c || !body) return NULL;
  return new_stmt(b, STMT_WHILE, &c, 1, &body, 1, st->span);
}

/* TVM's printed assert message with an error kind, ("ValueError", ["part",
 * ...]): a tuple of the kind and a list of strings (or of references to
 * omitted metadata strings, metadata["ir.StringImm"][0]). */
static int is_kind_message(const tx_expr *m) {
  if (m->kind != EXPR_TUPLE || m->u.is_list || m->nops != 2 || m->ops[0]->kind != EXPR_STRING)
    return 0;
  const tx_expr *parts = m->ops[1];
  if (parts->kind != EXPR_TUPLE || !parts->u.is_list) return 0;
  for (uint32_t i = 0; i < parts->nops; i++) {
    const tx_expr *p = parts->ops[i];
    int meta = p->kind == EXPR_CALL && p->u.call.op && strcmp(p->u.call.op, TX_METADATA_OP) == 0;
    if (p->kind != EXPR_STRING && !meta) return 0;
  }
  return 1;
}

static const tx_stmt *build_assert(builder *b, const tx_ast *st) {
  const tx_expr *c = bool_cond(b, st->u.assert_.test, 0);
  const tx_expr *msg =
      st->u.assert_.msg ? bld_expr(b, st->u.assert_.msg) : tx_string(b->ir, "", 0, st->span);
  if (!c || !msg) return NULL;
  if (msg->kind != EXPR_STRING && !is_kind_message(msg)) {
    BLD_ERROR(b, st->u.assert_.msg,
              "the assert message must be a string or (\"ErrorKind\", [\"part\", ...])");
    return NULL;
  }
  const tx_expr *ops[2] = {c, msg};
  return new_stmt(b, STMT_ASSERT, ops, 2, NULL, 0, st->span);
}

/* Statements that produced no node (a docstring, a symbolic declaration). */
static int produced_nothing_ok(const tx_ast *st) {
  return st->kind == AST_PASS ||
         (st->kind == AST_EXPR_STMT && (st->u.expr_stmt.value->kind == AST_STR ||
                                        st->u.expr_stmt.value->kind == AST_ELLIPSIS)) ||
         st->kind == AST_ASSIGN;
}

static const tx_stmt *build_stmt(builder *b, const tx_ast *st) {
  switch (st->kind) {
  case AST_EXPR_STMT:
    return build_expr_stmt(b, st);
  case AST_ASSIGN:
    return build_assign(b, st);
  case AST_ANNASSIGN:
    return build_annassign(b, st);
  case AST_AUGASSIGN:
    return build_augassign(b, st);
  case AST_FOR:
    return build_for(b, st);
  case AST_WHILE:
    return build_while(b, st);
  case AST_IF:
    return build_if(b, st);
  case AST_WITH:
    return build_with_items(b, st, 0);
  case AST_ASSERT:
    return build_assert(b, st);
  case AST_PASS:
    return NULL;
  case AST_BREAK:
  case AST_CONTINUE:
    return build_loop_jump(b, st, st->kind == AST_BREAK);
  case AST_RETURN: {
    const tx_expr *v = st->u.ret.value ? bld_expr(b, st->u.ret.value) : NULL;
    if (st->u.ret.value && !v) return NULL;
    return new_stmt(b, STMT_RETURN, v ? &v : NULL, v ? 1 : 0, NULL, 0, st->span);
  }
  case AST_FUNCDEF:
    BLD_ERROR(b, st,
              "nested functions are not supported in text form (@T.inline is Python "
              "metaprogramming)");
    return NULL;
  case AST_CLASSDEF:
    BLD_ERROR(b, st, "classes are not allowed inside a function");
    return NULL;
  case AST_IMPORT:
  case AST_IMPORTFROM:
    BLD_ERROR(b, st, "imports belong at module level");
    return NULL;
  case AST_DEL:
  case AST_GLOBAL:
    BLD_ERROR(b, st, "%s statements are not supported in TIRx",
              st->kind == AST_DEL ? "del" : "global");
    return NULL;
  case AST_NAME:
  case AST_INT:
  case AST_FLOAT:
  case AST_STR:
  case AST_NONE:
  case AST_TRUE:
  case AST_FALSE:
  case AST_ELLIPSIS:
  case AST_ATTR:
  case AST_CALL:
  case AST_KEYWORD:
  case AST_STARRED:
  case AST_SUBSCRIPT:
  case AST_SLICE:
  case AST_TUPLE:
  case AST_LIST:
  case AST_DICT:
  case AST_BINOP:
  case AST_UNARYOP:
  case AST_COMPARE:
  case AST_BOOLOP:
  case AST_IFEXP:
  case AST_LAMBDA:
  case AST_WITHITEM:
  case AST_PARAM:
  case AST_ALIAS:
    break;
  }
  tx_internal_error(b->diags, "builder", "unexpected syntax node %s", tx_ast_kind_name(st->kind));
  return NULL;
}

const tx_stmt *bld_block(builder *b, const tx_ast_list *stmts) {
  uint32_t mark = bld_scope_mark(b);
  ptr_vec items = {0};
  int failed = 0;
  for (size_t i = 0; i < stmts->len && !b->oom && !tx_diag_saturated(b->diags); i++) {
    const tx_ast *st = stmts->items[i];
    size_t errors = tx_diag_errors(b->diags);
    const tx_stmt *s = build_stmt(b, st);
    if (s)
      bld_dialect_push_stmt(b, &items, s, i + 1 == stmts->len);
    else if (tx_diag_errors(b->diags) > errors || !produced_nothing_ok(st))
      failed |= tx_diag_errors(b->diags) > errors;
  }
  bld_scope_pop(b, mark);
  const tx_stmt *result = NULL;
  if (!failed && !b->oom && items.len == 0) {
    /* `pass` (or nothing) is T.evaluate(0), which is how it prints. */
    tirx_span span = stmts->len ? stmts->items[0]->span : (tirx_span){0};
    const tx_expr *zero = tx_int(b->ir, TX_INT32, 0, span);
    result = zero ? new_stmt(b, STMT_EVAL, &zero, 1, NULL, 0, span) : NULL;
    if (!zero) bld_oom(b);
  } else if (!failed && !b->oom) {
    if (items.len == 1) {
      result = items.items[0];
    } else {
      tirx_span span = stmts->len ? stmts->items[0]->span : (tirx_span){0};
      result = new_stmt(b, STMT_SEQ, NULL, 0, (const tx_stmt *const *)items.items, items.len, span);
    }
  }
  vec_free(&items);
  return result;
}
