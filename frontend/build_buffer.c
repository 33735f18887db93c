/*
 * build_buffer.c - buffer declarations (T.Buffer, T.match_buffer,
 * T.alloc_*, T.decl_*, views) and layouts (T.TileLayout, T.ComposeLayout).
 *
 * Must not decide where a buffer is visible: the statement builder binds
 * the names.
 */
#include <string.h>

#include "frontend/build_internal.h"
#include "ir/arena.h"
#include "ir/diag.h"

static const struct {
  const char *name;
  buffer_ctor ctor;
} ctors[] = {
    {"T.Buffer", CTOR_BUFFER},
    {"T.Tensor", CTOR_BUFFER},
    {"T.match_buffer", CTOR_MATCH},
    {"T.alloc_buffer", CTOR_ALLOC},
    {"T.alloc_shared", CTOR_ALLOC_SHARED},
    /* TVM's current name for T.alloc_buffer; same arguments, same node. */
    {"T.alloc_tensor", CTOR_ALLOC},
    {"T.alloc_local", CTOR_ALLOC_LOCAL},
    {"T.decl_buffer", CTOR_DECL},
    {"T.decl_tensor", CTOR_DECL}, /* TVM's current name for T.decl_buffer */
    {"T.decl_scalar", CTOR_DECL_SCALAR},
};

buffer_ctor bld_buffer_ctor_of(builder *b, const tx_ast *call) {
  if (call->kind != AST_CALL) return CTOR_NONE;
  const char *q = bld_qualified_name(b, call->u.call.func, NULL);
  for (size_t i = 0; q && i < sizeof ctors / sizeof *ctors; i++)
    if (strcmp(q, ctors[i].name) == 0) return ctors[i].ctor;
  return CTOR_NONE;
}

/* ---- shapes and small operands ------------------------------------------------------- */

/* A dim written as a string, `"n * T.int64(32)"` (TVM prints a shape
 * expression that defines a variable quoted): the text parsed as one
 * expression in the current scope. Its spans point into the string, which
 * is registered as a source of its own for quoting. */
static const tx_expr *build_string_dim(builder *b, const tx_ast *s) {
  size_t n = s->u.str.len;
  char *text = tx_arena_alloc(b->ir->arena, n + 2);
  if (!text) return bld_oom(b), NULL;
  memcpy(text, s->u.str.data, n);
  text[n] = '\n';
  text[n + 1] = '\0';
  const char *file = tx_diag_add_source(b->diags, "<shape string>", text, n + 1);
  tx_arena *ast_arena = tx_arena_create_like(b->ir->arena);
  if (!file || !ast_arena) {
    if (ast_arena) tx_arena_destroy(ast_arena);
    return bld_oom(b), NULL;
  }
  tx_parse_env env = {ast_arena, b->ir->strings, b->diags};
  tx_ast_list stmts = {0};
  const tx_expr *e = NULL;
  tirx_status st = tx_parse_python(&env, file, text, n + 1, &stmts);
  if (st == TIRX_OK && stmts.len == 1 && stmts.items[0]->kind == AST_EXPR_STMT)
    e = bld_expr(b, stmts.items[0]->u.expr_stmt.value);
  else if (st == TIRX_OK)
    BLD_ERROR(b, s, "a quoted buffer dimension must be one expression");
  else if (st == TIRX_ERR_NOMEM)
    bld_oom(b);
  else
    tx_note(b->diags, s->span, "in this quoted buffer dimension");
  tx_arena_destroy(ast_arena);
  return e;
}

/* A stride written as a string, `strides=("s",)`: a new variable of that
 * name and type `t`, defined by the buffer (TVM's parser makes
 * Var("s", "int32")); no name in scope refers to it. */
static const tx_expr *string_stride(builder *b, const tx_ast *s, tx_dtype t) {
  if (s->u.str.len == 0 || memchr(s->u.str.data, '"', s->u.str.len) ||
      memchr(s->u.str.data, '\\', s->u.str.len)) {
    BLD_ERROR(b, s, "a quoted stride names a new variable: write it as \"name\"");
    return NULL;
  }
  tx_expr *v = tx_var(b->ir, bld_intern(b, s->u.str.data), t, VAR_PLAIN, s->span);
  if (!v) bld_oom(b);
  return v;
}

/* Builds a shape ("buffer dimensions") or strides ("strides") into out;
 * index_type: the type of a quoted stride's variable. */
static int build_dims(builder *b, const tx_ast *a, ptr_vec *out, const char *what,
                      tx_dtype index_type) {
  const tx_ast *const *items = &a;
  size_t n = 1;
  if (a->kind == AST_TUPLE || a->kind == AST_LIST) {
    items = (const tx_ast *const *)a->u.seq.elts.items;
    n = a->u.seq.elts.len;
  }
  int shape = strcmp(what, "buffer dimensions") == 0;
  uint32_t *quoted_bits = shape ? &b->quoted_dims : &b->quoted_strides;
  *quoted_bits = 0;
  for (size_t i = 0; i < n; i++) {
    int quoted = items[i]->kind == AST_STR;
    const tx_expr *e = !quoted ? bld_expr(b, items[i])
                       : shape ? build_string_dim(b, items[i])
                               : string_stride(b, items[i], index_type);
    if (!e) return 0;
    if (quoted && i < 32) *quoted_bits |= 1u << i;
    if (!tx_dtype_is_int(e->dtype)) {
      BLD_ERROR(b, items[i], "%s must be integers", what);
      return 0;
    }
    int64_t v;
    if (bld_const_int(e, &v) && v < 0) {
      BLD_ERROR(b, items[i], "%s cannot be negative (got %lld)", what, (long long)v);
      return 0;
    }
    if (!vec_push(b, out, e)) return 0;
  }
  return 1;
}

static int const_int_arg(builder *b, const tx_ast *a, int64_t *out, const char *what) {
  const tx_expr *e = bld_expr(b, a);
  if (!e) return 0;
  if (!bld_const_int(e, out)) {
    BLD_ERROR(b, a, "%s must be an integer constant", what);
    return 0;
  }
  return 1;
}

static int string_arg(builder *b, const tx_ast *a, const char **out, const char *what) {
  if (a->kind != AST_STR) {
    BLD_ERROR(b, a, "%s must be a string", what);
    return 0;
  }
  *out = bld_intern(b, a->u.str.data);
  return *out != NULL;
}

/* The positional parameter names of each constructor, in order. */
static const char *const *positional_names(buffer_ctor ctor, size_t *n) {
  static const char *const shape_dtype[] = {"shape", "dtype"};
  static const char *const match[] = {"param", "shape", "dtype"};
  static const char *const decl[] = {"shape", "dtype", "data"};
  static const char *const scalar[] = {"dtype", "data", "scope", "elem_offset"};
  switch (ctor) {
  case CTOR_MATCH:
    *n = 3;
    return match;
  case CTOR_DECL:
    *n = 3;
    return decl;
  case CTOR_DECL_SCALAR:
    *n = 4;
    return scalar;
  case CTOR_BUFFER:
  case CTOR_ALLOC:
  case CTOR_ALLOC_SHARED:
  case CTOR_ALLOC_LOCAL:
  case CTOR_NONE:
    break;
  }
  *n = 2;
  return shape_dtype;
}

static int is_none(const tx_ast *a) {
  return a->kind == AST_NONE || (a->kind == AST_STR && strcmp(a->u.str.data, "default") == 0);
}

/* Apply one named argument of a constructor to the buffer. */
static int buffer_field(builder *b, tx_buffer *buf, buffer_ctor ctor, const char *name,
                        const tx_ast *v, ptr_vec *shape, ptr_vec *strides) {
  if (strcmp(name, "param") == 0) return 1; /* handled by the caller */
  if (strcmp(name, "shape") == 0) return build_dims(b, v, shape, "buffer dimensions", TX_INT32);
  if (strcmp(name, "dtype") == 0) return bld_dtype(b, v, &buf->dtype);
  if (strcmp(name, "strides") == 0) {
    /* TVM: a quoted stride of match_buffer takes shape[0]'s type. */
    tx_dtype index_type =
        ctor == CTOR_MATCH && shape->len ? ((const tx_expr *)shape->items[0])->dtype : TX_INT32;
    return is_none(v) || build_dims(b, v, strides, "strides", index_type);
  }
  if (strcmp(name, "scope") == 0) {
    if (ctor == CTOR_ALLOC_SHARED || ctor == CTOR_ALLOC_LOCAL) {
      BLD_ERROR(b, v, "this constructor fixes the scope; use T.alloc_buffer(..., scope=...)");
      return 0;
    }
    return string_arg(b, v, &buf->scope, "scope");
  }
  if (strcmp(name, "align") == 0) return const_int_arg(b, v, &buf->align, "align");
  if (strcmp(name, "offset_factor") == 0)
    return const_int_arg(b, v, &buf->offset_factor, "offset_factor");
  if (strcmp(name, "layout") == 0) {
    buf->layout_none = v->kind == AST_NONE;
    if (is_none(v)) return 1;
    if (v->kind == AST_NAME) {
      const symbol *s = bld_lookup(b, v->u.name.id);
      if (s && s->kind == SYM_CONST && s->expr->kind == EXPR_LAYOUT) {
        buf->layout = s->expr->u.layout;
        return 1;
      }
    }
    buf->layout = bld_layout(b, v);
    return buf->layout != NULL;
  }
  if (strcmp(name, "annotations") == 0 && ctor == CTOR_ALLOC) {
    if (v->kind != AST_DICT) {
      BLD_ERROR(b, v, "annotations= takes a dict: annotations={\"key\": value}");
      return 0;
    }
    buf->annotations = v->u.dict.keys.len ? bld_arg(b, v) : NULL;
    return !v->u.dict.keys.len || buf->annotations != NULL;
  }
  const tx_expr **slot = strcmp(name, "data") == 0             ? &buf->data
                         : strcmp(name, "elem_offset") == 0    ? &buf->elem_offset
                         : strcmp(name, "allocated_addr") == 0 ? &buf->allocated_addr
                                                               : NULL;
  if (!slot || (ctor == CTOR_MATCH && slot != &buf->elem_offset) ||
      (ctor == CTOR_BUFFER && slot == &buf->data)) {
    BLD_ERROR(b, v, "unexpected keyword argument '%s'", name);
    return 0;
  }
  if (is_none(v)) return 1;
  const tx_expr *e = bld_expr(b, v);
  if (!e) return 0;
  if (slot == &buf->data && e->dtype.code != DT_HANDLE) {
    BLD_ERROR(b, v, "data= must be a pointer such as another buffer's .data");
    return 0;
  }
  *slot = e;
  return 1;
}

static const char *default_scope(builder *b, buffer_ctor ctor) {
  switch (ctor) {
  case CTOR_ALLOC_SHARED:
    return b->n.shared;
  case CTOR_ALLOC_LOCAL:
    return b->n.local;
  case CTOR_BUFFER:
  case CTOR_MATCH:
  case CTOR_ALLOC:
  case CTOR_DECL:
  case CTOR_DECL_SCALAR:
  case CTOR_NONE:
    break;
  }
  return b->n.global;
}

static tx_buffer_form form_of(buffer_ctor ctor) {
  switch (ctor) {
  case CTOR_BUFFER:
    return BUF_PARAM;
  case CTOR_MATCH:
    return BUF_MATCH;
  case CTOR_ALLOC:
    return BUF_ALLOC;
  case CTOR_ALLOC_SHARED:
    return BUF_ALLOC_SHARED;
  case CTOR_ALLOC_LOCAL:
    return BUF_ALLOC_LOCAL;
  case CTOR_DECL:
    return BUF_DECL;
  case CTOR_DECL_SCALAR:
    return BUF_DECL_SCALAR;
  case CTOR_NONE:
    break;
  }
  return BUF_DECL;
}

/* Can a buffer in `scope` live at `data`? Only a data variable with a
 * storage scope says where it points (a typed pointer, an allocation's
 * data); the storage ranks (the part before the first '.') must agree, so
 * data=smem.data with scope="shared.dyn" is fine and a global pointer
 * declared as shared is not. */
static int same_storage_rank(const tx_expr *data, const char *scope) {
  if (!data || data->kind != EXPR_VAR || !data->u.var.scope) return 1;
  const char *ds = data->u.var.scope;
  size_t a = strcspn(ds, "."), c = strcspn(scope, ".");
  return a == c && strncmp(ds, scope, a) == 0;
}

/* Was a layout written other than as "default"? */
static int layout_given(const tx_ast *call, const char *const *pos, size_t npos_names) {
  const tx_ast *v = NULL;
  const tx_ast_list *args = &call->u.call.args;
  for (size_t i = 0; i < args->len && i < npos_names; i++)
    if (strcmp(pos[i], "layout") == 0) v = args->items[i];
  for (size_t i = 0; i < call->u.call.keywords.len; i++) {
    const tx_ast *kw = call->u.call.keywords.items[i];
    if (kw->u.keyword.arg && strcmp(kw->u.keyword.arg, "layout") == 0) v = kw->u.keyword.value;
  }
  return v && !(v->kind == AST_STR && strcmp(v->u.str.data, "default") == 0);
}

/* TVM's default layout for Trainium's on-chip memories is none at all. */
static int scope_defaults_to_no_layout(const char *scope) {
  return strcmp(scope, "trn.sbuf") == 0 || strcmp(scope, "trn.psum") == 0;
}

tx_buffer *bld_buffer(builder *b, buffer_ctor ctor, const tx_ast *call, const char *name,
                      tirx_span span) {
  tx_buffer *buf = tx_arena_alloc(b->ir->arena, sizeof *buf);
  if (!buf) return bld_oom(b), NULL;
  buf->name = name;
  buf->dtype = TX_FLOAT32;
  buf->form = form_of(ctor);
  buf->span = span;
  size_t npos_names;
  const char *const *pos = positional_names(ctor, &npos_names);
  ptr_vec shape = {0}, strides = {0};
  b->quoted_dims = b->quoted_strides = 0;
  int ok = 1, have_shape = ctor == CTOR_DECL_SCALAR, have_dtype = 0;
  const tx_ast_list *args = &call->u.call.args;
  if (args->len > npos_names) {
    BLD_ERROR(b, args->items[npos_names], "too many positional arguments (at most %zu)",
              npos_names);
    ok = 0;
  }
  for (size_t i = 0; ok && i < args->len && i < npos_names; i++) {
    ok = buffer_field(b, buf, ctor, pos[i], args->items[i], &shape, &strides);
    have_shape |= strcmp(pos[i], "shape") == 0;
    have_dtype |= strcmp(pos[i], "dtype") == 0;
  }
  for (size_t i = 0; ok && i < call->u.call.keywords.len; i++) {
    const tx_ast *kw = call->u.call.keywords.items[i];
    const char *k = kw->u.keyword.arg;
    if (!k) {
      BLD_ERROR(b, kw, "**kwargs is not supported in text form");
      ok = 0;
      break;
    }
    for (size_t p = 0; p < args->len && p < npos_names; p++)
      if (strcmp(pos[p], k) == 0) {
        BLD_ERROR(b, kw, "argument '%s' given twice", k);
        ok = 0;
      }
    static const char *const known[] = {"shape",       "dtype",          "data",  "strides",
                                        "elem_offset", "scope",          "align", "offset_factor",
                                        "layout",      "allocated_addr", "name",  "annotations"};
    int is_known = 0;
    for (size_t n = 0; n < sizeof known / sizeof *known; n++)
      is_known |= strcmp(k, known[n]) == 0;
    if (!is_known) {
      BLD_ERROR(b, kw, "unexpected keyword argument '%s'", k);
      ok = 0;
      break;
    }
    if (strcmp(k, "name") == 0) {
      BLD_ERROR(b, kw, "name= is not accepted; the buffer takes the name it is assigned to");
      ok = 0;
    }
    ok = ok && buffer_field(b, buf, ctor, k, kw->u.keyword.value, &shape, &strides);
    have_shape |= strcmp(k, "shape") == 0;
    have_dtype |= strcmp(k, "dtype") == 0;
  }
  if (ok && !have_shape) {
    BLD_ERROR(b, call, "missing the buffer shape");
    ok = 0;
  }
  if (ok && ctor == CTOR_DECL_SCALAR && !have_dtype) {
    BLD_ERROR(b, call, "T.decl_scalar needs a dtype");
    ok = 0;
  }
  if (ok && buf->scope && !same_storage_rank(buf->data, buf->scope)) {
    BLD_ERROR(b, call, "data= points to '%s' memory but the buffer is declared with scope='%s'",
              buf->data->u.var.scope, buf->scope);
    ok = 0;
  }
  /* A declaration over another buffer's data lives where that data does (TVM
   * reads a buffer's scope off its data pointer). */
  if (!buf->scope && ctor == CTOR_DECL && buf->data && buf->data->kind == EXPR_VAR)
    buf->scope = buf->data->u.var.scope;
  if (!buf->scope) buf->scope = default_scope(b, ctor);
  if (!layout_given(call, pos, npos_names) && scope_defaults_to_no_layout(buf->scope))
    buf->layout_none = 1;
  if (ok && buf->scope == b->n.local && ctor == CTOR_ALLOC) buf->form = BUF_ALLOC;
  if (ok && strcmp(buf->scope, "tmem") == 0 && !buf->allocated_addr) {
    BLD_ERROR(b, call, "a 'tmem' buffer needs allocated_addr=");
    ok = 0;
  }
  if (ok && buf->align < 0) {
    BLD_ERROR(b, call, "align must be positive");
    ok = 0;
  }
  buf->ndim = shape.len;
  buf->quoted_dims = b->quoted_dims;
  buf->quoted_strides = b->quoted_strides;
  b->quoted_dims = b->quoted_strides = 0;
  buf->shape = (const tx_expr *const *)vec_finish(b, &shape);
  buf->nstrides = strides.len;
  buf->strides = (const tx_expr *const *)vec_finish(b, &strides);
  /* Naming the default layout is having it (TVM's buffers cannot tell). */
  if (buf->layout && tx_layout_is_default(buf->layout, buf->shape, buf->ndim)) buf->layout = NULL;
  if (ok && buf->nstrides && buf->nstrides != buf->ndim) {
    BLD_ERROR(b, call, "%u strides given for %u dimensions", buf->nstrides, buf->ndim);
    ok = 0;
  }
  vec_free(&shape);
  vec_free(&strides);
  if (!ok) return NULL;
  if (!buf->data && ctor != CTOR_MATCH) {
    /* Allocations own fresh storage: a data pointer named after the buffer. */
    tx_expr *data = tx_var(b->ir, name, TX_HANDLE, VAR_BUFFER_DATA, span);
    if (!data) return bld_oom(b), NULL;
    data->u.var.pointee = buf->dtype;
    data->u.var.has_pointee = 1;
    data->u.var.scope = buf->scope;
    buf->data = data;
  }
  return buf;
}

/* ---- views ----------------------------------------------------------------------------- */

/* Is s scalar sugar, `x: T.float16` (a one-element local TVM keeps as a buffer)? */
static int is_scalar_sugar(const symbol *s) {
  return s && s->kind == SYM_VAR && s->expr->kind == EXPR_VAR && s->expr->u.var.form == VAR_SCALAR;
}

int bld_is_buffer_view_call(builder *b, const tx_ast *call) {
  if (call->kind != AST_CALL || call->u.call.func->kind != AST_ATTR) return 0;
  const tx_ast *obj = call->u.call.func->u.attr.value;
  const symbol *s = obj->kind == AST_NAME ? bld_lookup(b, obj->u.name.id) : NULL;
  const char *m = call->u.call.func->u.attr.attr;
  if (is_scalar_sugar(s)) return strcmp(m, "view") == 0;
  return s && s->kind == SYM_BUFFER &&
         (strcmp(m, "view") == 0 || strcmp(m, "permute") == 0 || strcmp(m, "local") == 0);
}

/* The storage of scalar sugar x as TVM sees it: a (1,) local buffer of x's
 * dtype over T.address_of(x), the source of `x.view(...)` (the same buffer
 * `T.decl_buffer((1,), data=x.source.data, scope="local")` declares). */
static const tx_buffer *scalar_storage(builder *b, const tx_expr *x, tirx_span span) {
  tx_buffer *buf = tx_arena_alloc(b->ir->arena, sizeof *buf);
  const tx_expr **shape = tx_arena_alloc(b->ir->arena, sizeof *shape);
  tx_expr *addr = tx_expr_new(b->ir, EXPR_CALL, TX_HANDLE, &x, 1, span);
  if (!buf || !shape || !addr || !(shape[0] = tx_int(b->ir, TX_INT32, 1, span)) ||
      !(addr->u.call.op = bld_intern(b, "T.address_of")))
    return bld_oom(b), NULL;
  addr->u.call.kw.npos = 1;
  buf->name = x->u.var.name;
  buf->dtype = x->dtype;
  buf->form = BUF_DECL;
  buf->span = span;
  buf->scope = b->n.local;
  buf->ndim = 1;
  buf->shape = shape;
  buf->data = addr;
  return buf;
}

tx_buffer *bld_buffer_view(builder *b, const tx_ast *call, const char *name, tirx_span span) {
  const tx_ast *obj = call->u.call.func->u.attr.value;
  const symbol *sym = bld_lookup(b, obj->u.name.id);
  const tx_expr *scalar = is_scalar_sugar(sym) ? sym->expr : NULL;
  const tx_buffer *src = scalar ? scalar_storage(b, scalar, obj->span) : sym->buffer;
  if (!src) return NULL;
  const char *method = call->u.call.func->u.attr.attr;
  tx_buffer *buf = tx_arena_alloc(b->ir->arena, sizeof *buf);
  if (!buf) return bld_oom(b), NULL;
  *buf = *src;
  buf->name = name;
  buf->form = BUF_VIEW;
  buf->span = span;
  buf->layout = NULL;

  ptr_vec ops = {0}, kw = {0};
  uint32_t npos = 0;
  /* x.view(...) of scalar sugar keeps x itself as the receiver: it prints so. */
  tx_expr *self = scalar ? NULL : tx_expr_new(b->ir, EXPR_BUFFER, src->dtype, NULL, 0, obj->span);
  tx_expr *origin = NULL;
  int ok = (scalar || self) && vec_push(b, &ops, scalar ? scalar : self) &&
           bld_call_operands(b, call, 0, &ops, &kw, &npos);
  if (self) self->u.buffer = src;
  const tx_expr *const *args = (const tx_expr *const *)ops.items + 1;
  int dtype_view = ok && strcmp(method, "view") == 0 && npos == 1 && args[0]->kind == EXPR_STRING;
  if (dtype_view) {
    /* A.view("uint32"): the same bytes as another element type (TVM's
     * reinterpreting view); the last dimension scales by the width ratio. */
    tx_dtype to;
    int64_t last = 0;
    ok = tx_dtype_parse(args[0]->u.str.data, args[0]->u.str.len, &to) && src->ndim > 0 &&
         src->nstrides == 0 && bld_const_int(src->shape[src->ndim - 1], &last);
    uint32_t from_bits = src->dtype.bits * src->dtype.lanes, to_bits = to.bits * to.lanes;
    if (ok && (to_bits == 0 || (last * from_bits) % to_bits != 0)) ok = 0;
    if (!ok) {
      BLD_ERROR(b, call,
                "%s.view(dtype) needs a known dtype and a constant last dimension whose bytes "
                "divide into it",
                src->name);
    } else {
      const tx_expr **dims = tx_arena_alloc(b->ir->arena, src->ndim * sizeof *dims);
      const tx_expr *ext = tx_int(b->ir, src->shape[src->ndim - 1]->dtype,
                                  last * (int64_t)from_bits / (int64_t)to_bits, call->span);
      ok = dims && ext;
      if (!ok) {
        bld_oom(b);
      } else {
        for (uint32_t i = 0; i + 1 < src->ndim; i++)
          dims[i] = src->shape[i];
        dims[src->ndim - 1] = ext;
        buf->shape = dims;
        buf->nstrides = 0;
        buf->strides = NULL;
        buf->dtype = to;
      }
    }
  }
  for (uint32_t i = 0; ok && !dtype_view && i < npos; i++) {
    if (!tx_dtype_is_int(args[i]->dtype)) {
      BLD_ERROR(b, call, "%s.%s takes integer arguments", src->name, method);
      ok = 0;
    }
  }
  if (ok && strcmp(method, "permute") == 0) {
    /* permute(1, 0): dimension i of the view is dimension axes[i] of the source. */
    const tx_expr **dims = tx_arena_alloc(b->ir->arena, (src->ndim + 1) * sizeof *dims);
    ok = dims && npos == src->ndim;
    if (!ok)
      BLD_ERROR(b, call, "%s.permute needs one axis per dimension (%u)", src->name, src->ndim);
    for (uint32_t i = 0; ok && i < npos; i++) {
      int64_t axis;
      ok = bld_const_int(args[i], &axis) && axis >= 0 && axis < (int64_t)src->ndim;
      if (!ok) {
        BLD_ERROR(b, call, "%s.permute axes must be constants below %u", src->name, src->ndim);
        break;
      }
      /* A repeated axis is no permutation (and later passes rely on one). */
      for (uint32_t j = 0; ok && j < i; j++) {
        int64_t prev;
        ok = !(bld_const_int(args[j], &prev) && prev == axis);
      }
      if (!ok)
        BLD_ERROR(b, call, "%s.permute repeats axis %lld", src->name, (long long)axis);
      else
        dims[i] = src->shape[axis];
    }
    buf->shape = dims;
  } else if (ok && !dtype_view) {
    buf->ndim = npos;
    buf->shape = TX_DUP(b->ir, tx_expr, args, npos); /* ops is freed below */
    if (npos && !buf->shape) ok = 0, bld_oom(b);
    buf->nstrides = 0;
    buf->strides = NULL;
  }
  for (uint32_t i = 0; ok && i < kw.len; i++) {
    const tx_expr *v = ops.items[1 + npos + i];
    if (strcmp(kw.items[i], "dtype") == 0 && v->kind == EXPR_STRING)
      ok = tx_dtype_parse(v->u.str.data, v->u.str.len, &buf->dtype);
    else if (strcmp(kw.items[i], "layout") == 0 && v->kind == EXPR_LAYOUT)
      buf->layout = v->u.layout;
    else if (strcmp(kw.items[i], "layout") == 0 && v->kind == EXPR_NONE)
      ;
    else
      ok = 0;
    if (!ok)
      BLD_ERROR(b, call, "%s.%s got an unsupported keyword argument '%s'", src->name, method,
                (const char *)kw.items[i]);
  }
  if (ok) {
    uint32_t nkw = kw.len;
    origin = tx_expr_new(b->ir, EXPR_CALL, TX_VOID, (const tx_expr *const *)ops.items, ops.len,
                         call->span);
    tx_strbuf sb = {.alloc = bld_alloc(b)};
    tx_sb_printf(&sb, ".%s", method);
    if (origin && tx_sb_cstr(&sb)) {
      origin->u.call.op = bld_intern(b, tx_sb_cstr(&sb));
      origin->u.call.kw.npos = npos + 1;
      origin->u.call.kw.names = nkw ? (const char *const *)vec_finish(b, &kw) : NULL;
    } else {
      bld_oom(b);
      origin = NULL;
    }
    tx_sb_free(&sb);
  }
  vec_free(&ops);
  vec_free(&kw);
  if (!origin) return NULL;
  buf->origin = origin;
  return buf;
}

/* ---- layouts ----------------------------------------------------------------------------- */

int bld_is_layout_call(builder *b, const tx_ast *ast) {
  if (ast->kind != AST_CALL) return 0;
  const char *q = bld_qualified_name(b, ast->u.call.func, NULL);
  return q && (strcmp(q, "T.TileLayout") == 0 || strcmp(q, "T.ComposeLayout") == 0 ||
               strcmp(q, "T.SwizzleLayout") == 0);
}

typedef struct layout_parts {
  ptr_vec shard, replica, offset; /* tx_layout_iter* each */
  int shard_tuple, replica_tuple, have_shard;
} layout_parts;

/* `4 @ Axis.laneid` / `4 @ laneid` / `4`: a stride (or offset) and its axis. */
static int layout_term(builder *b, const tx_ast *a, const tx_expr **value, const char **axis) {
  *axis = NULL;
  const tx_ast *v = a;
  if (a->kind == AST_BINOP && a->u.binop.op == BINOP_MATMUL) {
    v = a->u.binop.left;
    const tx_ast *ax = a->u.binop.right;
    const char *q = bld_qualified_name(b, ax, NULL);
    const char *name = NULL;
    if (q && strncmp(q, "Axis.", 5) == 0)
      name = q + 5;
    else if (q && strncmp(q, "T.Axis.", 7) == 0)
      name = q + 7;
    else if (ax->kind == AST_NAME && !bld_lookup(b, ax->u.name.id))
      name = ax->u.name.id;
    if (!name || strchr(name, '.')) {
      BLD_ERROR(b, ax, "expected an axis such as Axis.laneid after '@'");
      return 0;
    }
    *axis = strcmp(name, "m") == 0 ? NULL : bld_intern(b, name);
  }
  *value = bld_expr(b, v);
  if (*value && !tx_dtype_is_int((*value)->dtype)) {
    BLD_ERROR(b, v, "layout extents and strides must be integers");
    return 0;
  }
  return *value != NULL;
}

static int push_iter(builder *b, ptr_vec *v, const tx_expr *extent, const tx_expr *stride,
                     const char *axis) {
  tx_layout_iter *it = tx_arena_alloc(b->ir->arena, sizeof *it);
  if (!it) return bld_oom(b), 0;
  *it = (tx_layout_iter){extent, stride, axis};
  return vec_push(b, v, it);
}

/* T.S[(e0, e1):(s0, s1)] or T.R[e:s] */
static int layout_iters(builder *b, const tx_ast *sub, ptr_vec *out, int *is_tuple) {
  const tx_ast *sl = sub->u.subscript.index;
  if (sl->kind != AST_SLICE || !sl->u.slice.lower || !sl->u.slice.upper || sl->u.slice.step) {
    BLD_ERROR(b, sl, "expected extents:strides, as in T.S[(8, 4):(4, 1)]");
    return 0;
  }
  const tx_ast *ext = sl->u.slice.lower, *str = sl->u.slice.upper;
  *is_tuple = ext->kind == AST_TUPLE;
  size_t n = *is_tuple ? ext->u.seq.elts.len : 1;
  size_t m = str->kind == AST_TUPLE ? str->u.seq.elts.len : 1;
  if (n != m || (*is_tuple != (str->kind == AST_TUPLE))) {
    BLD_ERROR(b, sl, "layout has %zu extents but %zu strides", n, m);
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    const tx_ast *e = *is_tuple ? ext->u.seq.elts.items[i] : ext;
    const tx_ast *s = *is_tuple ? str->u.seq.elts.items[i] : str;
    const tx_expr *extent = bld_expr(b, e), *stride;
    const char *axis;
    if (!extent || !layout_term(b, s, &stride, &axis)) return 0;
    int64_t v;
    if (bld_const_int(extent, &v) && v <= 0) {
      BLD_ERROR(b, e, "layout extents must be positive (got %lld)", (long long)v);
      return 0;
    }
    if (!push_iter(b, out, extent, stride, axis)) return 0;
  }
  return 1;
}

static int layout_sum(builder *b, const tx_ast *a, layout_parts *p, int depth) {
  if (depth > TX_MAX_EXPR_DEPTH) {
    BLD_ERROR(b, a, "layout nested too deeply");
    return 0;
  }
  if (a->kind == AST_BINOP && a->u.binop.op == BINOP_ADD)
    return layout_sum(b, a->u.binop.left, p, depth + 1) &&
           layout_sum(b, a->u.binop.right, p, depth + 1);
  if (a->kind == AST_SUBSCRIPT) {
    const char *q = bld_qualified_name(b, a->u.subscript.value, NULL);
    if (q && strcmp(q, "T.S") == 0) {
      if (p->have_shard++) {
        BLD_ERROR(b, a, "a layout has one shard part T.S[...]");
        return 0;
      }
      return layout_iters(b, a, &p->shard, &p->shard_tuple);
    }
    if (q && strcmp(q, "T.R") == 0) return layout_iters(b, a, &p->replica, &p->replica_tuple);
  }
  const tx_expr *value;
  const char *axis;
  if (!layout_term(b, a, &value, &axis)) return 0;
  return push_iter(b, &p->offset, NULL, value, axis);
}

/* TVM keeps a layout's offsets as a map from axis to value and prints them
 * by axis name ("m" for a plain term): the IR keeps that order. */
static void sort_offsets_by_axis(tx_layout_iter *t, uint32_t n) {
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t j = i; j > 0; j--) {
      const char *x = t[j - 1].axis ? t[j - 1].axis : "m", *y = t[j].axis ? t[j].axis : "m";
      if (strcmp(x, y) <= 0) break;
      tx_layout_iter tmp = t[j];
      t[j] = t[j - 1];
      t[j - 1] = tmp;
    }
}

static const tx_layout *finish_tile(builder *b, layout_parts *p) {
  tx_layout *l = tx_arena_alloc(b->ir->arena, sizeof *l);
  if (!l) return bld_oom(b), NULL;
  l->kind = LAYOUT_TILE;
  const tx_layout_iter *arrays[3] = {NULL, NULL, NULL};
  ptr_vec *vecs[3] = {&p->shard, &p->replica, &p->offset};
  uint32_t counts[3];
  for (int k = 0; k < 3; k++) {
    counts[k] = vecs[k]->len;
    tx_layout_iter *arr = counts[k] ? tx_arena_alloc(b->ir->arena, counts[k] * sizeof *arr) : NULL;
    if (counts[k] && !arr) return bld_oom(b), NULL;
    for (uint32_t i = 0; i < counts[k]; i++)
      arr[i] = *(const tx_layout_iter *)vecs[k]->items[i];
    arrays[k] = arr;
  }
  sort_offsets_by_axis((tx_layout_iter *)arrays[2], counts[2]);
  l->shard = arrays[0], l->nshard = counts[0];
  l->replica = arrays[1], l->nreplica = counts[1];
  l->offset = arrays[2], l->noffset = counts[2];
  l->shard_is_tuple = p->shard_tuple;
  l->replica_is_tuple = p->replica_tuple;
  return l;
}

const tx_layout *bld_layout(builder *b, const tx_ast *ast) {
  if (ast->kind == AST_NAME) {
    const symbol *s = bld_lookup(b, ast->u.name.id);
    if (s && s->kind == SYM_CONST && s->expr->kind == EXPR_LAYOUT) return s->expr->u.layout;
  }
  if (!bld_is_layout_call(b, ast)) {
    BLD_ERROR(b, ast, "expected a layout: T.TileLayout(...) or T.ComposeLayout(...)");
    return NULL;
  }
  const char *q = bld_qualified_name(b, ast->u.call.func, NULL);
  const tx_ast_list *args = &ast->u.call.args;
  int swizzle_outer = 0;
  for (size_t i = 0; i < ast->u.call.keywords.len; i++) {
    /* T.ComposeLayout(..., swizzle_inner=False), as TVM prints a non-default one. */
    const tx_ast *kw = ast->u.call.keywords.items[i];
    const tx_ast *v = kw->u.keyword.value;
    if (strcmp(q, "T.ComposeLayout") != 0 || !kw->u.keyword.arg ||
        strcmp(kw->u.keyword.arg, "swizzle_inner") != 0 ||
        (v->kind != AST_TRUE && v->kind != AST_FALSE) || ast->u.call.keywords.len > 1) {
      BLD_ERROR(b, ast,
                strcmp(q, "T.ComposeLayout") == 0
                    ? "T.ComposeLayout takes one keyword argument, swizzle_inner=True/False"
                    : "%s takes no keyword arguments",
                q);
      return NULL;
    }
    swizzle_outer = v->kind == AST_FALSE;
  }
  if (strcmp(q, "T.TileLayout") == 0) {
    if (args->len != 1) {
      BLD_ERROR(b, ast, "T.TileLayout takes one argument: T.S[...] [+ T.R[...]] [+ offsets]");
      return NULL;
    }
    layout_parts p = {0};
    const tx_layout *l = NULL;
    if (layout_sum(b, args->items[0], &p, 0)) {
      if (!p.have_shard)
        BLD_ERROR(b, args->items[0], "a TileLayout needs a shard part T.S[...]");
      else
        l = finish_tile(b, &p);
    }
    vec_free(&p.shard);
    vec_free(&p.replica);
    vec_free(&p.offset);
    return l;
  }
  int compose = strcmp(q, "T.ComposeLayout") == 0;
  if (args->len != (compose ? 4u : 3u)) {
    BLD_ERROR(b, ast,
              compose ? "T.ComposeLayout takes (per_element, swizzle_len, atom_len, tile)"
                      : "T.SwizzleLayout takes (per_element, swizzle_len, atom_len)");
    return NULL;
  }
  int64_t params[3];
  static const char *const names[] = {"per_element", "swizzle_len", "atom_len"};
  for (int i = 0; i < 3; i++) {
    if (!const_int_arg(b, args->items[i], &params[i], names[i])) return NULL;
    if (params[i] < 0 || params[i] > 16) {
      BLD_ERROR(b, args->items[i], "%s must be between 0 and 16", names[i]);
      return NULL;
    }
  }
  if (params[2] < params[1]) {
    BLD_ERROR(b, ast, "a swizzle needs atom_len >= swizzle_len");
    return NULL;
  }
  tx_layout *l = tx_arena_alloc(b->ir->arena, sizeof *l);
  if (!l) return bld_oom(b), NULL;
  l->kind = compose ? LAYOUT_COMPOSE : LAYOUT_SWIZZLE;
  l->per_element = params[0];
  l->swizzle_len = params[1];
  l->atom_len = params[2];
  l->swizzle_outer = swizzle_outer;
  if (compose) {
    l->tile = bld_layout(b, args->items[3]);
    if (!l->tile) return NULL;
  }
  return l;
}
