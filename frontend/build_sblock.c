/*
 * build_sblock.c - the S-TIR forms of @T.prim_func(s_tir=True) functions:
 * `with T.sblock("name"):` blocks with their header (T.axis.*, T.where,
 * T.reads, T.writes, T.sblock_attr, T.sblock_alloc_buffer, T.match_buffer
 * of a region, `with T.init():`), and the implicit root block TVM's parser
 * puts around a function body.
 *
 * Builds the IR of ir.h (STMT_BLOCK and its header kinds) and nothing
 * else; passes/lower_sblock.c lowers them. Must not build expressions itself beyond build_expr.c.
 */
#include <string.h>

#include "frontend/build_internal.h"

/* ---- recognising the forms ------------------------------------------------------------ */

/* The header call of `st` (its value or its expression), or NULL. */
static const tx_ast *stmt_call(const tx_ast *st) {
  const tx_ast *v = st->kind == AST_EXPR_STMT ? st->u.expr_stmt.value
                    : st->kind == AST_ASSIGN  ? st->u.assign.value
                                              : NULL;
  return v && v->kind == AST_CALL ? v : NULL;
}

static const char *call_name(builder *b, const tx_ast *call) {
  return call ? bld_qualified_name(b, call->u.call.func, NULL) : NULL;
}

static int name_is(const char *q, const char *want) {
  return q && strcmp(q, want) == 0;
}

/* "reads" for T.reads: the header calls written as expression statements. */
static const char *sig_name(const char *q) {
  static const char *const sigs[] = {"T.where", "T.reads", "T.writes", "T.sblock_attr"};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
    if (name_is(q, sigs[i])) return sigs[i] + 2;
  return NULL;
}

/* "spatial" for T.axis.spatial; NULL for anything else. */
static const char *axis_name(const char *q) {
  static const char *const axes[] = {"spatial", "reduce", "scan", "opaque", "remap"};
  if (!q || strncmp(q, "T.axis.", 7) != 0) return NULL;
  for (size_t i = 0; i < sizeof axes / sizeof *axes; i++)
    if (strcmp(q + 7, axes[i]) == 0) return axes[i];
  return NULL;
}

const char *bld_sblock_header_op(builder *b, const tx_ast *call) {
  const char *q = call_name(b, call);
  if (sig_name(q) || name_is(q, "T.sblock_alloc_buffer") || name_is(q, "T.init")) return q;
  if (q && strncmp(q, "T.axis.", 7) == 0) return q;
  return NULL;
}

static int is_init_with(builder *b, const tx_ast *st) {
  if (st->kind != AST_WITH || st->u.with.items.len != 1) return 0;
  const tx_ast *ctx = st->u.with.items.items[0]->u.withitem.context;
  return ctx->kind == AST_CALL && name_is(call_name(b, ctx), "T.init");
}

static tx_stmt *new_stmt(builder *b, tx_stmt_kind kind, const tx_expr *const *exprs, uint32_t ne,
                         const tx_stmt *const *stmts, uint32_t ns, tirx_span span) {
  tx_stmt *s = tx_stmt_new(b->ir, kind, exprs, ne, stmts, ns, span);
  if (!s) bld_oom(b);
  return s;
}

/* ---- header items ---------------------------------------------------------------------- */

/* T.sblock_attr({"key": value, ...}): keys become the keyword names. */
static tx_stmt *build_block_attr(builder *b, const tx_ast *call) {
  const tx_ast_list *args = &call->u.call.args;
  if (args->len != 1 || call->u.call.keywords.len || args->items[0]->kind != AST_DICT) {
    BLD_ERROR(b, call, "T.sblock_attr takes one dict: T.sblock_attr({\"key\": value})");
    return NULL;
  }
  const tx_ast *dict = args->items[0];
  ptr_vec vals = {0}, keys = {0};
  int ok = 1;
  for (size_t i = 0; i < dict->u.dict.keys.len && ok; i++) {
    const tx_ast *k = dict->u.dict.keys.items[i];
    if (!k || k->kind != AST_STR) {
      BLD_ERROR(b, k ? k : dict, "block annotation keys must be strings");
      ok = 0;
      break;
    }
    const tx_expr *v = bld_arg(b, dict->u.dict.values.items[i]);
    ok = v && vec_push(b, &vals, v) && vec_push(b, &keys, bld_intern(b, k->u.str.data));
  }
  tx_stmt *s = NULL;
  if (ok)
    s = new_stmt(b, STMT_BLOCK_SIG, (const tx_expr *const *)vals.items, vals.len, NULL, 0,
                 call->span);
  if (s) {
    s->name = bld_intern(b, "sblock_attr");
    s->kw.names = (const char *const *)vec_finish(b, &keys);
  }
  vec_free(&vals);
  vec_free(&keys);
  return s;
}

/* Every operand of T.reads/T.writes is a buffer element or region. */
static int access_regions(builder *b, const tx_stmt *s, const tx_ast *call) {
  for (uint32_t i = 0; i < s->nexprs; i++) {
    tx_expr_kind k = (tx_expr_kind)s->exprs[i]->kind;
    if (k != EXPR_LOAD && k != EXPR_REGION) {
      BLD_ERROR(b, i < call->u.call.args.len ? call->u.call.args.items[i] : call,
                "T.%s takes buffer regions such as A[i, 0:16]", s->name);
      return 0;
    }
  }
  return 1;
}

/* T.where(cond), T.reads(regions...), T.writes(regions...), T.sblock_attr({...}). */
static const tx_stmt *build_sig(builder *b, const tx_ast *call, const char *name) {
  if (strcmp(name, "sblock_attr") == 0) return build_block_attr(b, call);
  ptr_vec ops = {0}, kw = {0};
  uint32_t npos = 0;
  tx_stmt *s = NULL;
  if (bld_call_operands(b, call, 0, &ops, &kw, &npos)) {
    if (kw.len) {
      BLD_ERROR(b, call, "T.%s takes no keyword arguments", name);
    } else if (strcmp(name, "where") == 0 &&
               (ops.len != 1 || !tx_dtype_is_bool(((const tx_expr *)ops.items[0])->dtype))) {
      BLD_ERROR(b, call, "T.where takes one boolean condition");
    } else {
      s = new_stmt(b, STMT_BLOCK_SIG, (const tx_expr *const *)ops.items, ops.len, NULL, 0,
                   call->span);
      if (s) s->name = bld_intern(b, name);
      if (s && strcmp(name, "where") != 0 && !access_regions(b, s, call)) s = NULL;
    }
  }
  vec_free(&ops);
  vec_free(&kw);
  return s;
}

static int bind_iter_var(builder *b, const tx_ast *target, tx_dtype t, const tx_expr **out) {
  if (target->kind != AST_NAME) {
    BLD_ERROR(b, target, "a block iterator must be bound to a plain name");
    return 0;
  }
  tx_expr *v = tx_var(b->ir, target->u.name.id, t, VAR_PLAIN, target->span);
  if (!v) return bld_oom(b), 0;
  symbol s = {.name = target->u.name.id,
              .kind = SYM_VAR,
              .mut = MUT_FIXED,
              .expr = v,
              .span = target->span};
  *out = v;
  return bld_push_symbol(b, s) >= 0;
}

/* The dtype of an iterator: its binding's, else its domain's (an extent
 * or a (min, max) tuple). */
static int iter_dtype(builder *b, const tx_ast *call, const tx_stmt *s, tx_dtype *t) {
  const tx_expr *e = s->nexprs > 1 ? s->exprs[1] : s->nexprs ? s->exprs[0] : NULL;
  if (e && e->kind == EXPR_TUPLE) e = e->nops == 2 ? e->ops[0] : NULL;
  if (!e || !tx_dtype_is_int(e->dtype) || e->dtype.lanes != 1) {
    BLD_ERROR(b, call,
              "T.axis.%s takes an integer domain (an extent or (min, max)) and an optional "
              "integer binding",
              s->name);
    return 0;
  }
  *t = e->dtype;
  return 1;
}

/* `vi, vj = T.axis.remap("SR", [i, j])`: one iterator per letter. */
static int remap_dtypes(builder *b, const tx_ast *call, const tx_stmt *s, size_t ntargets) {
  const tx_expr *kinds = s->nexprs == 2 ? s->exprs[0] : NULL;
  const tx_expr *list = s->nexprs == 2 ? s->exprs[1] : NULL;
  if (!kinds || kinds->kind != EXPR_STRING || !list || list->kind != EXPR_TUPLE) {
    BLD_ERROR(b, call, "T.axis.remap takes a kind string and a list: T.axis.remap(\"SR\", [i, j])");
    return 0;
  }
  for (size_t i = 0; i < kinds->u.str.len; i++)
    if (kinds->u.str.data[i] != 'S' && kinds->u.str.data[i] != 'R') {
      BLD_ERROR(b, call->u.call.args.items[0],
                "T.axis.remap kinds are 'S' (spatial) and 'R' (reduce)");
      return 0;
    }
  if (kinds->u.str.len != list->nops || list->nops != ntargets) {
    BLD_ERROR(b, call, "T.axis.remap binds %zu name%s with %zu kind%s and %u loop variable%s",
              ntargets, ntargets == 1 ? "" : "s", kinds->u.str.len,
              kinds->u.str.len == 1 ? "" : "s", list->nops, list->nops == 1 ? "" : "s");
    return 0;
  }
  for (uint32_t i = 0; i < list->nops; i++)
    if (list->ops[i]->kind != EXPR_VAR || !tx_dtype_is_int(list->ops[i]->dtype)) {
      BLD_ERROR(b, call, "T.axis.remap remaps integer loop variables");
      return 0;
    }
  return 1;
}

static const tx_stmt *build_axis(builder *b, const tx_ast *st, const tx_ast *call,
                                 const char *name) {
  const tx_ast *target = st->u.assign.targets.len == 1 ? st->u.assign.targets.items[0] : NULL;
  const tx_ast *const *targets = &target;
  size_t n = 1;
  if (target && target->kind == AST_TUPLE) {
    targets = (const tx_ast *const *)target->u.seq.elts.items;
    n = target->u.seq.elts.len;
  }
  int remap = strcmp(name, "remap") == 0;
  if (!target || (!remap && n != 1) || n > 64) {
    BLD_ERROR(b, st,
              remap ? "T.axis.remap is assigned to names: vi, vj = T.axis.remap(...)"
                    : "T.axis.%s is assigned to one name",
              name);
    return NULL;
  }
  ptr_vec ops = {0}, kw = {0};
  uint32_t npos = 0;
  tx_stmt *s = NULL;
  if (bld_call_operands(b, call, 0, &ops, &kw, &npos)) {
    if (kw.len || (!remap && (ops.len < 1 || ops.len > 2)))
      BLD_ERROR(b, call, "T.axis.%s takes a domain and a binding: T.axis.%s(16, i)", name, name);
    else
      s = new_stmt(b, STMT_BLOCK_AXIS, (const tx_expr *const *)ops.items, ops.len, NULL, 0,
                   st->span);
  }
  vec_free(&ops);
  vec_free(&kw);
  if (!s) return NULL;
  s->name = bld_intern(b, name);
  tx_dtype t = TX_INT32;
  if (remap ? !remap_dtypes(b, call, s, n) : !iter_dtype(b, call, s, &t)) return NULL;
  const tx_expr *vars[64];
  for (size_t i = 0; i < n; i++) {
    if (remap) t = s->exprs[1]->ops[i]->dtype;
    if (!bind_iter_var(b, targets[i], t, &vars[i])) return NULL;
  }
  s->vars = TX_DUP(b->ir, tx_expr, vars, (uint32_t)n);
  s->nvars = (uint32_t)n;
  if (!s->vars) return bld_oom(b), NULL;
  return s;
}

/* `X = T.sblock_alloc_buffer(...)` or, in a block, `X = T.match_buffer(A[..], shape)`. */
static const tx_stmt *build_block_buffer(builder *b, const tx_ast *st, const tx_ast *call,
                                         int match) {
  const tx_ast *target = st->u.assign.targets.len == 1 ? st->u.assign.targets.items[0] : NULL;
  if (!target || target->kind != AST_NAME) {
    BLD_ERROR(b, st, "a block buffer must be assigned to one name");
    return NULL;
  }
  const tx_expr *origin = NULL;
  if (match) {
    if (!call->u.call.args.len) {
      BLD_ERROR(b, call,
                "T.match_buffer in a block takes a buffer region: T.match_buffer(A[0:4], "
                "(4,))");
      return NULL;
    }
    origin = bld_arg(b, call->u.call.args.items[0]);
    if (!origin) return NULL;
    if (origin->kind != EXPR_REGION && origin->kind != EXPR_LOAD) {
      BLD_ERROR(b, call->u.call.args.items[0],
                "T.match_buffer in a block matches a buffer region such as A[i, 0:16]");
      return NULL;
    }
  }
  tx_buffer *buf =
      bld_buffer(b, match ? CTOR_MATCH : CTOR_ALLOC, call, target->u.name.id, target->span);
  if (!buf) return NULL;
  buf->form = match ? BUF_MATCH : BUF_SBLOCK_ALLOC;
  if (match) {
    buf->origin = origin;
    tx_expr *data = tx_var(b->ir, buf->name, TX_HANDLE, VAR_BUFFER_DATA, target->span);
    if (!data) return bld_oom(b), NULL;
    data->u.var.pointee = buf->dtype;
    data->u.var.has_pointee = 1;
    data->u.var.scope = buf->scope;
    buf->data = data;
  }
  tx_stmt *s = new_stmt(b, match ? STMT_DECL : STMT_ALLOC, NULL, 0, NULL, 0, call->span);
  if (!s) return NULL;
  s->buffer = buf;
  symbol sym = {.name = target->u.name.id,
                .kind = SYM_BUFFER,
                .mut = MUT_FIXED,
                .buffer = buf,
                .span = target->span};
  return bld_push_symbol(b, sym) >= 0 ? s : NULL;
}

static const tx_stmt *build_init(builder *b, const tx_ast *st) {
  const tx_ast *wi = st->u.with.items.items[0];
  const tx_ast *ctx = wi->u.withitem.context;
  if (wi->u.withitem.target || ctx->u.call.args.len || ctx->u.call.keywords.len) {
    BLD_ERROR(b, ctx, "T.init() takes no arguments and binds no name");
    return NULL;
  }
  const tx_stmt *body = bld_block(b, &st->u.with.body);
  return body ? new_stmt(b, STMT_BLOCK_INIT, NULL, 0, &body, 1, st->span) : NULL;
}

/* One header statement of a block, or NULL with *is_header 0 when `st`
 * starts the body. `in_root`: only T.sblock_alloc_buffer is a header there. */
static const tx_stmt *header_item(builder *b, const tx_ast *st, int in_root, int *is_header) {
  *is_header = 1;
  if (!in_root && is_init_with(b, st)) return build_init(b, st);
  const tx_ast *call = stmt_call(st);
  const char *q = call_name(b, call);
  if (st->kind == AST_ASSIGN && name_is(q, "T.sblock_alloc_buffer"))
    return build_block_buffer(b, st, call, 0);
  if (!in_root) {
    if (st->kind == AST_ASSIGN && name_is(q, "T.match_buffer"))
      return build_block_buffer(b, st, call, 1);
    if (st->kind == AST_ASSIGN && axis_name(q)) return build_axis(b, st, call, axis_name(q));
    if (st->kind == AST_EXPR_STMT && sig_name(q)) return build_sig(b, call, sig_name(q));
  }
  *is_header = 0;
  return NULL;
}

/* The header items then the body, as the stmts of a block. The caller
 * holds the scope mark: header names stay visible in the body. */
static int block_items(builder *b, const tx_ast_list *body, int in_root, ptr_vec *items) {
  size_t i = 0;
  int ok = 1;
  for (; i < body->len && !b->oom && !tx_diag_saturated(b->diags); i++) {
    int is_header;
    const tx_stmt *s = header_item(b, body->items[i], in_root, &is_header);
    if (!is_header) break;
    ok = s && vec_push(b, items, s) && ok;
  }
  if (!ok) return 0;
  tx_ast_list rest = {body->items + i, body->len - i};
  /* No body statement reads as `pass`: T.evaluate(0), as TVM prints it. */
  const tx_stmt *s = bld_block(b, &rest);
  return s && vec_push(b, items, s);
}

static tx_stmt *finish_block(builder *b, ptr_vec *items, const char *name, tirx_span span) {
  tx_stmt *s =
      new_stmt(b, STMT_BLOCK, NULL, 0, (const tx_stmt *const *)items->items, items->len, span);
  if (s) s->name = name;
  return s;
}

/* ---- blocks ---------------------------------------------------------------------------- */

/* `with T.sblock("name"[, no_realize=True][, exec_scope="..."]):` */
const tx_stmt *bld_sblock(builder *b, const tx_ast *call, const tx_ast_list *body, tirx_span span) {
  if (!b->s_tir) {
    BLD_ERROR(b, call, "T.sblock is only allowed in an @T.prim_func(s_tir=True) function");
    return NULL;
  }
  const tx_ast_list *args = &call->u.call.args;
  if (args->len > 1 || (args->len == 1 && args->items[0]->kind != AST_STR)) {
    BLD_ERROR(b, call, "T.sblock takes the block name as a string: T.sblock(\"C\")");
    return NULL;
  }
  ptr_vec ops = {0}, kw = {0};
  uint32_t npos = 0;
  tx_stmt *s = NULL;
  if (bld_call_operands(b, call, (uint32_t)args->len, &ops, &kw, &npos)) {
    for (uint32_t i = 0; i < kw.len; i++)
      if (strcmp(kw.items[i], "no_realize") != 0 && strcmp(kw.items[i], "exec_scope") != 0) {
        BLD_ERROR(b, call, "unexpected keyword argument '%s' of T.sblock",
                  (const char *)kw.items[i]);
        npos = UINT32_MAX;
      }
    uint32_t mark = bld_scope_mark(b);
    ptr_vec items = {0};
    if (npos != UINT32_MAX && block_items(b, body, 0, &items))
      s = finish_block(b, &items, bld_intern(b, args->len ? args->items[0]->u.str.data : ""), span);
    bld_scope_pop(b, mark);
    vec_free(&items);
    if (s) {
      s->exprs = TX_DUP(b->ir, tx_expr, (const tx_expr *const *)ops.items, ops.len);
      s->nexprs = ops.len;
      s->kw.npos = 0;
      s->kw.names = kw.len ? (const char *const *)vec_finish(b, &kw) : NULL;
      if (ops.len && !s->exprs) s = (bld_oom(b), NULL);
    }
  }
  vec_free(&ops);
  vec_free(&kw);
  return s;
}

static int contains_block(const tx_stmt *s) {
  if (!s) return 0;
  if (s->kind == STMT_BLOCK) return 1;
  for (uint32_t i = 0; i < s->nstmts; i++)
    if (contains_block(s->stmts[i])) return 1;
  return 0;
}

/* TVM's rule (ScriptComplete): an s_tir body gets a root block when it
 * allocates root buffers, is one block with iterators, or is not one block
 * but holds blocks. */
static int needs_root(const tx_stmt *body, uint32_t nallocs) {
  if (nallocs) return 1;
  if (body->kind == STMT_BLOCK) {
    for (uint32_t i = 0; i < body->nstmts; i++)
      if (body->stmts[i]->kind == STMT_BLOCK_AXIS) return 1;
    return 0;
  }
  return contains_block(body);
}

const tx_stmt *bld_s_tir_body(builder *b, const tx_ast_list *body, tirx_span span) {
  uint32_t mark = bld_scope_mark(b);
  ptr_vec items = {0};
  const tx_stmt *result = NULL;
  if (block_items(b, body, 1, &items)) {
    const tx_stmt *last = items.items[items.len - 1];
    if (needs_root(last, items.len - 1)) {
      tx_stmt *root = finish_block(b, &items, bld_intern(b, "root"), span);
      if (root) root->flag = BLOCK_IMPLICIT_ROOT;
      result = root;
    } else {
      result = last;
    }
  }
  bld_scope_pop(b, mark);
  vec_free(&items);
  return result;
}
