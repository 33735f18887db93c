/*
 * split_host_device.c - the split-host-device pass: each function with a
 * device entry becomes a host launcher `f` and a device function `f_kernel`
 * (docs/lowering.md, "After split-host-device"); a function with several
 * top-level entries gets `f_kernel`, `f_kernel_1`, `f_kernel_2`, ... in
 * source order, and its launcher launches them in that order, the host
 * statements between them kept in place.
 *
 * A kernel's device part is everything after a flat STMT_DEVICE_ENTRY of the
 * function's top-level sequence (the last kernel), or the body of a
 * with-form entry. Its
 * parameters are computed from what that part reads and does not define:
 * buffer storage first, then scalars, in an order that depends only on the
 * function's declarations, so output is deterministic. The declarations of
 * the buffers the kernel uses (shape, strides, elem_offset, ...) count as
 * reads, as in TVM: the kernel declares them, so a shape variable that no
 * index reads is still a parameter and the output passes the verifier.
 *
 * Device parameters: a buffer parameter is a fresh VAR_PARAM handle with the
 * buffer's dtype as pointee (params[i]) and the buffer itself in
 * param_bufs[i]; the device body keeps naming the buffer (and its original
 * data variable), so code generation maps both to the parameter. Scalars are
 * the original variables, so the body needs no rewriting.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/visit.h"
#include "passes/pass.h"

#define STAGE "split-host-device"

/* ---- a pointer vector (from the context's allocator; freed by the pass) --- */

/* Items in push order, plus a hash set of them: membership tests were linear,
 * and a device part reads thousands of variables. */
typedef struct ptrvec {
  const void **items;
  uint32_t len, cap;
  tx_ptrmap set; /* its allocator serves items too */
  int failed;
} ptrvec;

static ptrvec pv_new(const tx_ir *ir) {
  return (ptrvec){.set = {.alloc = tx_ir_alloc(ir)}};
}

static int pv_has(const ptrvec *v, const void *p) {
  return tx_ptrmap_has(&v->set, p);
}

static void pv_push(ptrvec *v, const void *p) {
  if (v->failed) return;
  if (v->len == v->cap) {
    uint32_t cap = v->cap ? v->cap * 2 : 16;
    const void **items = tx_mem_realloc(v->set.alloc, v->items, cap * sizeof *items);
    if (!items) {
      v->failed = 1;
      return;
    }
    v->items = items;
    v->cap = cap;
  }
  if (!tx_ptrset_add(&v->set, p)) {
    v->failed = 1;
    return;
  }
  v->items[v->len++] = p;
}

static void pv_add(ptrvec *v, const void *p) {
  if (p && !pv_has(v, p)) pv_push(v, p);
}

static void pv_free(ptrvec *v) {
  tx_mem_free(v->set.alloc, v->items);
  tx_ptrmap_free(&v->set);
  *v = (ptrvec){.set = {.alloc = v->set.alloc}};
}

/* ---- what the device part uses and defines ------------------------------ */

typedef struct usage {
  ptrvec used;               /* variables read, in first-use order */
  ptrvec bound;              /* variables defined inside the device part */
  ptrvec data_vars;          /* data variables of used buffers ... */
  ptrvec data_bufs;          /* ... and the first buffer seen with each */
  ptrvec dyn_allocs;         /* shared.dyn allocations, in order */
  ptrvec declared;           /* buffers whose declaration has been walked */
  ptrvec defined;            /* buffers an ALLOC/DECL inside the device part declares */
  const tx_backend *backend; /* which buffers own storage */
} usage;

/* A buffer's declaration (shape, strides, elem_offset, layout, ...) reads
 * variables too: the device function declares every buffer it uses, so what
 * that declaration mentions must be defined there. As TVM's use/def analysis
 * (VarUseDefAnalyzer::VisitBuffer) does, those reads count as uses, which
 * makes a shape variable that no index reads a kernel parameter. Each buffer
 * is walked once. */
static void use_declaration(tx_visitor *v, usage *u, const tx_buffer *b) {
  if (!b || pv_has(&u->declared, b)) return;
  pv_push(&u->declared, b);
  tx_visit_buffer_fields(v, b);
}

static void use_buffer(tx_visitor *v, usage *u, const tx_buffer *b) {
  if (!b) return;
  if (b->data && b->data->kind == EXPR_VAR) {
    pv_add(&u->used, b->data);
    if (!pv_has(&u->data_vars, b->data)) {
      pv_push(&u->data_vars, b->data);
      pv_push(&u->data_bufs, b);
    }
  }
  use_declaration(v, u, b);
}

static int usage_pre_expr(tx_visitor *v, const tx_expr *e) {
  usage *u = v->user;
  switch ((tx_expr_kind)e->kind) {
  case EXPR_VAR:
    pv_add(&u->used, e);
    break;
  case EXPR_LET:
    pv_add(&u->bound, e->u.binder);
    break;
  case EXPR_LAMBDA: /* its parameters, all but the last operand */
    for (uint32_t i = 0; i + 1 < e->nops; i++)
      pv_add(&u->bound, e->ops[i]);
    break;
  case EXPR_LOAD:
  case EXPR_BUFFER:
  case EXPR_REGION:
    use_buffer(v, u, e->u.buffer);
    break;
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STRING:
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
  case EXPR_DIV:
  case EXPR_MOD:
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
  case EXPR_MIN:
  case EXPR_MAX:
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE:
  case EXPR_AND:
  case EXPR_OR:
  case EXPR_NOT:
  case EXPR_SELECT:
  case EXPR_CAST:
  case EXPR_RAMP:
  case EXPR_BROADCAST:
  case EXPR_CALL:
  case EXPR_TUPLE:
  case EXPR_SLICE:
  case EXPR_LAYOUT:
  case EXPR_NONE:
  case TX_EXPR_KIND_COUNT:
    break;
  }
  return 1;
}

static int usage_pre_stmt(tx_visitor *v, const tx_stmt *s) {
  usage *u = v->user;
  /* Record bindings before vars[] is walked as ordinary expressions. */
  if (tx_stmt_binds_vars((tx_stmt_kind)s->kind))
    for (uint32_t i = 0; i < s->nvars; i++)
      pv_add(&u->bound, s->vars[i]);
  if (s->kind == STMT_STORE) use_buffer(v, u, s->buffer);
  if ((s->kind == STMT_ALLOC || s->kind == STMT_DECL) && s->buffer) pv_add(&u->defined, s->buffer);
  /* An allocation, or a T.decl_buffer without data= (codegen allocates it). */
  if ((s->kind == STMT_ALLOC ||
       (s->kind == STMT_DECL && u->backend->buffer_owns_storage(s->buffer))) &&
      s->buffer && s->buffer->scope && strcmp(s->buffer->scope, "shared.dyn") == 0)
    pv_add(&u->dyn_allocs, s->buffer);
  return 1;
}

/* An allocation (or a decl_buffer with storage of its own) defines its data
 * variable; a view's data variable is a use of the storage it views. */
static int usage_on_buffer(tx_visitor *v, const tx_buffer *b) {
  usage *u = v->user;
  if (u->backend->buffer_owns_storage(b)) {
    pv_add(&u->bound, b->data);
    /* The walk (visit_buffer_defs) covers the declaration. */
    pv_add(&u->declared, b);
    return 1;
  }
  use_buffer(v, u, b);
  return 0; /* use_buffer walked the declaration */
}

static int usage_failed(const usage *u) {
  return u->used.failed || u->bound.failed || u->data_vars.failed || u->data_bufs.failed ||
         u->dyn_allocs.failed || u->declared.failed || u->defined.failed;
}

static void usage_free(usage *u) {
  pv_free(&u->used);
  pv_free(&u->bound);
  pv_free(&u->data_vars);
  pv_free(&u->data_bufs);
  pv_free(&u->dyn_allocs);
  pv_free(&u->declared);
  pv_free(&u->defined);
}

/* ---- splitting ------------------------------------------------------------ */

typedef struct split {
  tx_pass_ctx *pc;
  const tx_func *f;
  const tx_stmt *entry; /* the kernel being split: its entry ... */
  const tx_stmt *const *dev;
  uint32_t ndev;  /* ... and its device statements */
  uint32_t index; /* its place among the function's kernels */
} split;

/* Does the top-level sequence have a device entry? */
static int has_entry(const tx_func *f) {
  uint32_t n;
  const tx_stmt *const *items = tx_func_top_stmts(f, &n);
  for (uint32_t i = 0; i < n; i++)
    if (items[i] && items[i]->kind == STMT_DEVICE_ENTRY) return 1;
  return 0;
}

/* Point sp at the kernel whose entry is items[i]: a with-form entry's body,
 * or everything after a flat entry. */
static void kernel_at(split *sp, const tx_stmt *const *items, uint32_t i, uint32_t n) {
  sp->entry = items[i];
  if (items[i]->flag == 1) {
    const tx_stmt *inner = items[i]->nstmts ? items[i]->stmts[0] : NULL;
    if (inner && inner->kind == STMT_SEQ) {
      sp->dev = inner->stmts;
      sp->ndev = inner->nstmts;
    } else {
      sp->dev = inner ? &items[i]->stmts[0] : NULL;
      sp->ndev = inner ? 1 : 0;
    }
  } else {
    sp->dev = items + i + 1;
    sp->ndev = n - i - 1;
  }
}

static const tx_expr *one(tx_ir *ir) {
  return tx_int(ir, TX_INT32, 1, (tirx_span){0});
}

/* Launch extent d (0..2) of a grid=/block= keyword: a tuple or a scalar,
 * missing trailing dimensions are 1. */
static const tx_expr *launch_dim(tx_ir *ir, const tx_expr *v, uint32_t d) {
  if (!v) return one(ir);
  if (v->kind == EXPR_TUPLE) return d < v->nops ? v->ops[d] : one(ir);
  return d == 0 ? v : one(ir);
}

static const tx_expr *launch_tuple(tx_ir *ir, const tx_expr *v) {
  const tx_expr *dims[3];
  for (uint32_t d = 0; d < 3; d++)
    dims[d] = launch_dim(ir, v, d);
  for (uint32_t d = 0; d < 3; d++)
    if (!dims[d]) return NULL;
  const tx_expr *t = tx_expr_new(ir, EXPR_TUPLE, TX_VOID, dims, 3, v ? v->span : (tirx_span){0});
  return t;
}

/* Bytes of dynamic shared memory: the shared.dyn allocations laid out one
 * after the other with the backend's alignment rule (tx_backend.dyn_smem_layout). */
static const tx_expr *dyn_smem_bytes(split *sp, const usage *u) {
  tx_ir *ir = sp->pc->ir;
  const tx_buffer *const *bufs = (const tx_buffer *const *)u->dyn_allocs.items;
  int64_t total = 0;
  const tx_expr *sym = NULL;
  tirx_status st =
      u->backend->dyn_smem_layout(sp->pc->diags, bufs, u->dyn_allocs.len, NULL, &total, &sym);
  if (st != TIRX_OK) return NULL;
  if (sym) {
    /* One symbolic allocation: elements * bytes per element. */
    const tx_buffer *b = bufs[0];
    int64_t eb = u->backend->elem_bytes(b->dtype);
    const tx_expr *n = sym;
    if (n->dtype.bits != 32 || n->dtype.code != DT_INT) {
      const tx_expr *c = tx_expr_new(ir, EXPR_CAST, TX_INT32, &n, 1, n->span);
      n = c;
    }
    if (!n) return NULL;
    return tx_binary(ir, EXPR_MUL, n, tx_int(ir, TX_INT32, eb, n->span), n->span);
  }
  return tx_int(ir, TX_INT32, total, sp->entry->span);
}

static int is_scalar_or_handle_var(const tx_expr *v) {
  return v && v->kind == EXPR_VAR && v->u.var.form != VAR_BUFFER_DATA;
}

typedef struct attrs {
  const char *keys[32];
  const tx_expr *vals[32];
  uint32_t n;
} attrs;

/* Does kernel parameter a come before b in TVM's order: handles (buffers and
 * pointers) first, then by name? */
static int param_before(const tx_expr *a, const tx_buffer *ab, const tx_expr *b,
                        const tx_buffer *bb) {
  int ha = ab || a->dtype.code == DT_HANDLE, hb = bb || b->dtype.code == DT_HANDLE;
  if (ha != hb) return ha;
  return strcmp(a->u.var.name ? a->u.var.name : "", b->u.var.name ? b->u.var.name : "") < 0;
}

/* Put the kernel's parameters (and the host's arguments for them, which
 * correspond one to one) in TVM's order, as SplitHostDevice sorts them, so
 * that the signature matches TVM's kernel. Insertion sort: stable, and the
 * count is small (make-packed-api refuses more than TX_MAX_KERNEL_PARAMS). */
static void sort_kernel_params(const tx_expr **params, const tx_buffer **bufs, const void **args,
                               uint32_t n) {
  for (uint32_t i = 1; i < n; i++) {
    const tx_expr *p = params[i];
    const tx_buffer *b = bufs[i];
    const void *a = args[i];
    uint32_t j = i;
    for (; j > 0 && param_before(p, b, params[j - 1], bufs[j - 1]); j--) {
      params[j] = params[j - 1];
      bufs[j] = bufs[j - 1];
      args[j] = args[j - 1];
    }
    params[j] = p;
    bufs[j] = b;
    args[j] = a;
  }
}

/* Is s[0..n) a C identifier (so that it can name a kernel)? */
static int is_identifier(const char *s, size_t n) {
  if (n == 0 || isdigit((unsigned char)s[0])) return 0;
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)s[i]) && s[i] != '_') return 0;
  return 1;
}

/* The name TVM gives a function's kernel before "_kernel": its
 * T.func_attr global_symbol, when that is an identifier. */
static const char *kernel_base_name(const tx_func *f) {
  for (uint32_t i = 0; i < f->nattrs; i++) {
    const tx_expr *v = f->attr_values[i];
    if (strcmp(f->attr_keys[i], "global_symbol") == 0 && v->kind == EXPR_STRING &&
        is_identifier(v->u.str.data, v->u.str.len))
      return v->u.str.data;
  }
  return f->name;
}

static void set_attr(attrs *a, const char *key, const tx_expr *val) {
  for (uint32_t i = 0; i < a->n; i++)
    if (a->keys[i] == key) {
      a->vals[i] = val;
      return;
    }
  if (a->n < 32) {
    a->keys[a->n] = key;
    a->vals[a->n++] = val;
  }
}

/* The device statements, after a declaration of each T.decl_buffer the host
 * part declares and the device part uses (`A = T.decl_buffer(..., data=A_data)`
 * before a classic launch): the kernel names those buffers, so it declares
 * them too and its print reads back. Parameter buffers (bufs) are declared
 * by the signature. NULL when out of memory. */
static const tx_stmt *kernel_body(split *sp, const usage *u, const tx_buffer *const *bufs,
                                  uint32_t nbufs) {
  tx_ir *ir = sp->pc->ir;
  uint32_t n = 0;
  const tx_stmt **items = tx_arena_alloc(ir->arena, (u->declared.len + sp->ndev) * sizeof *items);
  if (!items) return NULL;
  for (uint32_t i = 0; i < u->declared.len; i++) {
    const tx_buffer *b = u->declared.items[i];
    int is_param = 0;
    for (uint32_t k = 0; k < nbufs && !is_param; k++)
      is_param = bufs[k] == b;
    if (b->form != BUF_DECL || is_param || pv_has(&u->defined, b)) continue;
    const tx_stmt *d =
        tx_stmt_make(ir, &(tx_stmt){.kind = STMT_DECL, .buffer = b, .span = b->span});
    if (!d) return NULL;
    items[n++] = d;
  }
  if (n == 0 && sp->ndev == 1) return sp->dev[0];
  for (uint32_t i = 0; i < sp->ndev; i++)
    items[n++] = sp->dev[i];
  return tx_stmt_new(ir, STMT_SEQ, NULL, 0, items, n, sp->entry->span);
}

/* Splits off the kernel sp points at: *dev_out is the device function,
 * *launch_out the host statement that launches it. */
static tirx_status split_kernel(split *sp, const tx_func **dev_out, const tx_stmt **launch_out) {
  tx_pass_ctx *pc = sp->pc;
  tx_ir *ir = pc->ir;
  const tx_func *f = sp->f;
  usage u = {pv_new(ir), pv_new(ir), pv_new(ir), pv_new(ir),
             pv_new(ir), pv_new(ir), pv_new(ir), tx_target_backend(sp->pc->target)};
  tx_visitor v = {0};
  v.user = &u;
  v.pre_expr = usage_pre_expr;
  v.pre_stmt = usage_pre_stmt;
  v.on_buffer = usage_on_buffer;
  v.visit_buffer_defs = 1;
  for (uint32_t i = 0; i < sp->ndev; i++)
    tx_visit_stmt(&v, sp->dev[i]);
  /* A parameter buffer reached only through its data variable (a flat alias
   * `decl_buffer(..., data=A.data)`) is still declared in the kernel's
   * signature: its declaration counts as well. */
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tx_buffer *b = f->param_bufs ? f->param_bufs[i] : NULL;
    if (b && b->data && pv_has(&u.used, b->data) && !pv_has(&u.bound, b->data))
      use_declaration(&v, &u, b);
  }
  tirx_status st = TIRX_ERR_NOMEM;
  ptrvec bufs = pv_new(ir), args = pv_new(ir);
  if (usage_failed(&u)) goto done;

  /* 1. storage of used parameter buffers, in parameter order; 2. other
   * used storage defined outside the device part, in first-use order. */
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tx_buffer *b = f->param_bufs ? f->param_bufs[i] : NULL;
    if (!b || !b->data || pv_has(&args, b->data)) continue;
    if (pv_has(&u.used, b->data) && !pv_has(&u.bound, b->data)) {
      pv_push(&args, b->data);
      pv_push(&bufs, b);
    }
  }
  for (uint32_t i = 0; i < u.data_vars.len; i++) {
    const tx_expr *d = u.data_vars.items[i];
    if (pv_has(&u.bound, d) || pv_has(&args, d) || d->u.var.form != VAR_BUFFER_DATA) continue;
    pv_push(&args, d);
    pv_push(&bufs, u.data_bufs.items[i]);
  }
  uint32_t nbuf = args.len;
  /* 3. scalars (and raw handles): parameters, symbolic extents, then
   * anything else bound on the host, in first-use order. */
  for (uint32_t i = 0; i < f->nparams; i++)
    if (pv_has(&u.used, f->params[i]) && !pv_has(&u.bound, f->params[i]))
      pv_add(&args, f->params[i]);
  for (uint32_t i = 0; i < f->nsymbolic; i++)
    if (pv_has(&u.used, f->symbolic[i]) && !pv_has(&u.bound, f->symbolic[i]))
      pv_add(&args, f->symbolic[i]);
  for (uint32_t i = 0; i < u.used.len; i++) {
    const tx_expr *x = u.used.items[i];
    if (pv_has(&u.bound, x) || pv_has(&args, x)) continue;
    if (x->u.var.form == VAR_BUFFER_DATA) continue; /* handled above */
    pv_add(&args, x);
  }
  if (args.failed || bufs.failed) goto done;
  for (uint32_t i = 0; i < args.len; i++) {
    const tx_expr *x = args.items[i];
    if (i >= nbuf && !is_scalar_or_handle_var(x)) {
      tx_internal_error(pc->diags, STAGE, "unexpected free variable kind");
      st = TIRX_ERR_INTERNAL;
      goto done;
    }
  }

  /* Device parameters. */
  uint32_t np = args.len;
  const tx_expr **dparams = tx_arena_alloc(ir->arena, (np ? np : 1) * sizeof *dparams);
  const tx_buffer **dbufs = tx_arena_alloc(ir->arena, (np ? np : 1) * sizeof *dbufs);
  if (!dparams || !dbufs) goto done;
  for (uint32_t i = 0; i < np; i++) {
    const tx_expr *x = args.items[i];
    dbufs[i] = NULL;
    if (i < nbuf) {
      const tx_buffer *b = bufs.items[i];
      /* A matched buffer's kernel parameter keeps the handle's name, so the
       * printed `A = T.match_buffer(A_ptr, ...)` reads it. */
      const char *pname = b->form == BUF_MATCH && b->data ? b->data->u.var.name
                          : b->name                       ? b->name
                                                          : x->u.var.name;
      const tx_expr *p = tx_var_make(
          ir, TX_HANDLE,
          &(tx_var_info){.name = pname, .form = VAR_PARAM, .pointee = b->dtype, .has_pointee = 1},
          b->span);
      if (!p) goto done;
      dparams[i] = p;
      dbufs[i] = b;
    } else {
      dparams[i] = x;
    }
  }

  sort_kernel_params(dparams, dbufs, args.items, np);

  /* Launch configuration from the entry's keywords. */
  const tx_stmt *e = sp->entry;
  const tx_expr *grid = NULL, *block = NULL;
  attrs da = {0};
  for (uint32_t i = 0; i < f->nattrs; i++)
    if (strncmp(f->attr_keys[i], "tirx.", 5) == 0)
      set_attr(&da, f->attr_keys[i], f->attr_values[i]);
  for (uint32_t i = e->kw.npos; i < e->nexprs; i++) {
    const char *k = e->kw.names[i - e->kw.npos];
    if (strcmp(k, "grid") == 0)
      grid = e->exprs[i];
    else if (strcmp(k, "block") == 0)
      block = e->exprs[i];
  }
  const tx_expr *ktrue = tx_bool(ir, 1, f->span);
  if (!ktrue) goto done;
  const tx_expr *gt = launch_tuple(ir, grid), *bt = launch_tuple(ir, block);
  if (!gt || !bt) goto done;
  set_attr(&da, tx_intern(ir->strings, "tirx.kernel"), ktrue);
  set_attr(&da, tx_intern(ir->strings, "tirx.grid"), gt);
  set_attr(&da, tx_intern(ir->strings, "tirx.block"), bt);
  for (uint32_t i = e->kw.npos; i < e->nexprs; i++) {
    const char *k = e->kw.names[i - e->kw.npos];
    if (strcmp(k, "grid") == 0 || strcmp(k, "block") == 0) continue;
    char key[128];
    size_t kl = strlen(k);
    if (kl + 6 > sizeof key) continue;
    memcpy(key, "tirx.", 5);
    memcpy(key + 5, k, kl + 1);
    const tx_expr *val = e->exprs[i];
    if (strcmp(k, "cluster") == 0 || strcmp(k, "preferred_cluster") == 0)
      val = launch_tuple(ir, val);
    if (!val) goto done;
    set_attr(&da, tx_intern(ir->strings, key), val);
  }
  const char *dyn_key = tx_intern(ir->strings, "tirx.dyn_shared_bytes");
  if (!dyn_key) goto done;
  for (uint32_t i = 0; i < da.n; i++)
    if (!da.keys[i]) goto done; /* a key that could not be interned */
  const tx_expr *dyn = NULL;
  for (uint32_t i = 0; i < da.n; i++)
    if (da.keys[i] == dyn_key) dyn = da.vals[i];
  if (!dyn) {
    dyn = dyn_smem_bytes(sp, &u);
    if (!dyn) {
      st = tx_diag_errors(pc->diags) ? TIRX_ERR_INPUT : TIRX_ERR_NOMEM;
      goto done;
    }
    if (!(dyn->kind == EXPR_INT && dyn->u.ival == 0)) set_attr(&da, dyn_key, dyn);
  }

  /* The device function, named as TVM names it: the function's
   * global_symbol (its name when it has none) and "_kernel", then
   * "_kernel_1", "_kernel_2", ... for the later kernels of the function. */
  char name[256];
  const char *base = kernel_base_name(f);
  size_t fl = strlen(base);
  if (fl + 20 > sizeof name) fl = sizeof name - 20;
  memcpy(name, base, fl);
  if (sp->index)
    snprintf(name + fl, sizeof name - fl, "_kernel_%u", sp->index);
  else
    memcpy(name + fl, "_kernel", 8);
  const char *dname = tx_intern(ir->strings, name);
  const tx_stmt *dbody = dname ? kernel_body(sp, &u, dbufs, np) : NULL;
  const tx_func *df = dbody ? tx_func_make(ir, &(tx_func){.name = dname,
                                                          .nparams = np,
                                                          .params = dparams,
                                                          .param_bufs = dbufs,
                                                          .nattrs = da.n,
                                                          .attr_keys = da.keys,
                                                          .attr_values = da.vals,
                                                          .body = dbody,
                                                          .span = f->span})
                            : NULL;
  if (!df) goto done;

  /* The host launcher: host statements + T.call_packed(...). */
  ptrvec cargs = pv_new(ir);
  pv_push(&cargs, tx_string(ir, df->name, strlen(df->name), e->span));
  for (uint32_t i = 0; i < np; i++)
    pv_push(&cargs, args.items[i]);
  for (uint32_t d = 0; d < 3; d++)
    pv_push(&cargs, gt->ops[d]);
  for (uint32_t d = 0; d < 3; d++)
    pv_push(&cargs, bt->ops[d]);
  pv_push(&cargs, dyn);
  const tx_expr *call = NULL;
  if (!cargs.failed)
    call = tx_call(ir, "T.call_packed", TX_INT32, (const tx_expr *const *)cargs.items, cargs.len,
                   e->span);
  pv_free(&cargs);
  if (!call) goto done;
  const tx_stmt *launch = tx_stmt_new(ir, STMT_EVAL, &call, 1, NULL, 0, e->span);
  if (!launch) goto done;
  *launch_out = launch;
  *dev_out = df;
  st = TIRX_OK;
done:
  pv_free(&bufs);
  pv_free(&args);
  usage_free(&u);
  return st;
}

/* Does a device entry hide below the top level? That is outside the lowered
 * form: report it rather than silently leaving a host-only function. */
typedef struct nested_probe {
  const tx_stmt *top;
  const tx_stmt *found;
} nested_probe;

static int probe_pre_stmt(tx_visitor *v, const tx_stmt *s) {
  nested_probe *np = v->user;
  if (s->kind == STMT_DEVICE_ENTRY) {
    np->found = s;
    v->stop = 1;
    return 0;
  }
  return 1;
}

/* The device entry nested in s, or NULL. */
static const tx_stmt *nested_entry(const tx_stmt *s) {
  nested_probe probe = {0};
  tx_visitor v = {0};
  v.user = &probe;
  v.pre_stmt = probe_pre_stmt;
  tx_visit_stmt(&v, s);
  return probe.found;
}

static tirx_status report_nested(tx_pass_ctx *pc, const tx_stmt *entry) {
  tx_error(pc->diags, entry->span,
           "a kernel launch inside host control flow (for, while, if) is not supported: each "
           "T.device_entry() (or outermost T.launch_thread) must be a top-level statement of "
           "the function");
  return TIRX_ERR_INPUT;
}

/* Splits f into its host launcher (*funcs first) and one device function per
 * top-level device entry, in source order; *n counts what was written. The
 * launcher keeps the host statements in order, each kernel's entry replaced
 * by its launch (a flat entry's launch ends it). */
static tirx_status split_func(tx_pass_ctx *pc, const tx_func *f, const tx_func **funcs,
                              uint32_t *n) {
  tx_ir *ir = pc->ir;
  uint32_t nitems, nhs = 0, k = 0;
  const tx_stmt *const *items = tx_func_top_stmts(f, &nitems);
  const tx_stmt **hs = tx_arena_alloc(ir->arena, (nitems + 1) * sizeof *hs);
  if (!hs) return TIRX_ERR_NOMEM;
  for (uint32_t i = 0; i < nitems; i++) {
    if (!items[i] || items[i]->kind != STMT_DEVICE_ENTRY) {
      const tx_stmt *nested = items[i] ? nested_entry(items[i]) : NULL;
      if (nested) return report_nested(pc, nested);
      hs[nhs++] = items[i];
      continue;
    }
    split sp = {.pc = pc, .f = f, .index = k};
    kernel_at(&sp, items, i, nitems);
    const tx_func *df = NULL;
    tirx_status st = split_kernel(&sp, &df, &hs[nhs++]);
    if (st != TIRX_OK) return st;
    funcs[1 + k++] = df;
    if (items[i]->flag == 0) break; /* the rest was its kernel */
  }
  const tx_func *hf = tx_func_with_body(
      ir, f, nhs == 1 ? hs[0] : tx_stmt_new(ir, STMT_SEQ, NULL, 0, hs, nhs, f->body->span));
  if (!hf) return TIRX_ERR_NOMEM;
  funcs[0] = hf;
  *n = k + 1;
  return TIRX_OK;
}

tirx_status tx_pass_split_host_device(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  tx_ir *ir = pc->ir;
  /* Room for each function and each of its top-level statements (kernels). */
  uint32_t cap = 1;
  for (uint32_t i = 0; i < in->nfuncs; i++) {
    uint32_t nitems;
    tx_func_top_stmts(in->funcs[i], &nitems);
    cap += 1 + nitems;
  }
  const tx_func **funcs = tx_arena_alloc(ir->arena, cap * sizeof *funcs);
  if (!funcs) return TIRX_ERR_NOMEM;
  uint32_t n = 0;
  int changed = 0;
  tirx_status result = TIRX_OK;
  for (uint32_t i = 0; i < in->nfuncs; i++) {
    if (!has_entry(in->funcs[i])) {
      const tx_stmt *nested = in->funcs[i]->body ? nested_entry(in->funcs[i]->body) : NULL;
      if (nested) result = report_nested(pc, nested);
      funcs[n++] = in->funcs[i];
      continue;
    }
    uint32_t nf = 0;
    tirx_status st = split_func(pc, in->funcs[i], funcs + n, &nf);
    if (st != TIRX_OK) {
      if (result == TIRX_OK || st == TIRX_ERR_NOMEM) result = st;
      continue;
    }
    n += nf;
    changed = 1;
  }
  if (result != TIRX_OK) return result;
  if (!changed) {
    *out = in;
    return TIRX_OK;
  }
  *out = tx_module_with_funcs(ir, in, funcs, n);
  return *out ? TIRX_OK : TIRX_ERR_NOMEM;
}
