/*
 * verify.c - tx_verify_module: the well-formedness check run before the
 * first pass and, with verify_each, after every pass.
 *
 * Checks, per function:
 *  - every variable is defined before it is used and bound only once (by a
 *    parameter, a symbolic extent, a BIND/FOR/SCOPE_ID/WITH, an EXPR_LET, or
 *    as the data pointer of a buffer definition);
 *  - every buffer that is loaded, stored, sliced or named is in scope: a
 *    parameter buffer, an ALLOC/DECL whose scope has not ended, a view whose
 *    origin is in scope, or a buffer over storage whose data variable is in
 *    scope (how lowered code addresses a kernel parameter or an allocation
 *    through a flat alias);
 *  - scope ids come after T.device_entry(), and thread ids (scope-id vars and
 *    T.launch_thread bindings) are used only in device code;
 *  - one scope-id kind (or launch_thread tag) is not given two different
 *    constant extents within one kernel;
 *  - break/continue are inside a loop; no device entry follows a flat one or
 *    sits in device code (each with-form entry at the top is a kernel);
 *  - no scalable vector (T.vscale() lanes): tirx-c reads and prints them but
 *    CUDA has none, so lowering stops here with a located error; likewise a
 *    function without a name (TVM's `def (`), a buffer used undeclared
 *    (BUF_FREE) and a `Module.f(...)` call between module functions.
 *
 * Scopes follow docs/ir.md: a binding statement scopes over the rest of its
 * enclosing STMT_SEQ; anything else ends its definitions with itself. Device
 * code is the rest of the sequence after a flat T.device_entry() (or after a flat
 * T.launch_thread binding outside device code: TVM's classic kernel), the body of
 * the with-form, or the whole body of a function with attribute
 * "tirx.kernel" (what split-host-device produces).
 *
 * Written with ir/visit.h's visitor: pre/post callbacks keep a stack of
 * statement frames and a stack of live definitions. With after == NULL
 * problems are the user's and get located errors; after a pass they are that
 * pass's bug and become internal errors naming it. Must not print, modify
 * IR or keep state between calls.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/visit.h"
#include "passes/pass.h"

/* ---- A pointer map valid for one function ("generation") -------------------- */

typedef struct slot {
  const void *key;
  uint32_t gen;   /* slot is empty unless gen == the map's current generation */
  uint32_t live;  /* definitions of key currently in scope */
  uint8_t bound;  /* defined at least once in this function */
  uint8_t thread; /* a thread id (scope id or launch_thread binding) */
  tirx_span span; /* first definition */
} slot;

typedef struct ptrmap {
  slot *slots;
  size_t cap, used; /* used: entries of the current generation */
  uint32_t gen;
  const tirx_allocator *alloc;
} ptrmap;

static size_t hash_ptr(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x;
}

/* Probing stops at the first slot of another generation: within one
 * generation slots only ever become current, so a key inserted at the first
 * stale slot of its chain is always found before any stale one. */
static slot *map_find(ptrmap *m, const void *key) {
  if (!m->cap) return NULL;
  for (size_t i = hash_ptr(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    slot *s = &m->slots[i];
    if (s->gen != m->gen) return NULL;
    if (s->key == key) return s;
  }
}

static int map_grow(ptrmap *m) {
  size_t cap = m->cap ? m->cap * 2 : 256;
  slot *n = tx_mem_calloc(m->alloc, cap, sizeof *n);
  if (!n) return 0;
  for (size_t i = 0; i < m->cap; i++) {
    if (m->slots[i].gen != m->gen) continue;
    size_t j = hash_ptr(m->slots[i].key) & (cap - 1);
    while (n[j].gen == m->gen)
      j = (j + 1) & (cap - 1);
    n[j] = m->slots[i];
  }
  tx_mem_free(m->alloc, m->slots);
  m->slots = n;
  m->cap = cap;
  return 1;
}

/* The slot of key, created empty if missing; NULL when out of memory. */
static slot *map_get(ptrmap *m, const void *key) {
  slot *s = map_find(m, key);
  if (s) return s;
  if ((m->used + 1) * 2 > m->cap && !map_grow(m)) return NULL;
  size_t i = hash_ptr(key) & (m->cap - 1);
  while (m->slots[i].gen == m->gen)
    i = (i + 1) & (m->cap - 1);
  m->slots[i] = (slot){.key = key, .gen = m->gen};
  m->used++;
  return &m->slots[i];
}

/* ---- The verifier ---------------------------------------------------------------- */

typedef struct frame {
  const tx_stmt *s;
  size_t mark;  /* definitions stack height at the statement's start */
  uint32_t top; /* top-level expressions seen so far: exprs[] then vars[] */
} frame;

/* One launch dimension record: a scope-id kind or a launch_thread tag. */
typedef struct launch_rec {
  const char *name; /* "cta_id", or the tag text for launch_thread */
  size_t name_len;
  int is_tag;
  uint32_t n;
  int64_t ext[3];
  uint8_t known[3];
  tirx_span span;
} launch_rec;

/* A stack entry is a defined key; DEVICE_MARK opens device code. */
static const char DEVICE_MARK_OBJ;
#define DEVICE_MARK ((const void *)&DEVICE_MARK_OBJ)

typedef struct verifier {
  tx_visitor v; /* first: callbacks cast back to the verifier */
  tx_pass_ctx *pc;
  const char *after; /* NULL: checking user input */
  const tx_func *fn;
  ptrmap map;
  const void **stack;
  size_t nstack, stack_cap;
  frame *frames;
  size_t nframes, frames_cap;
  tirx_span *spans; /* spans of enclosing expressions, by depth */
  size_t depth, spans_cap;
  uint32_t header_top; /* top-level expressions of the function header */
  int in_buffer;       /* walking a buffer definition's fields */
  uint32_t device;     /* DEVICE_MARKs on the stack */
  uint32_t loops;
  int flat_entry; /* a flat device entry was seen: the rest of the function is its kernel */
  launch_rec *launch;
  size_t nlaunch, launch_cap;
  int errors, oom;
  int scalable_seen;       /* a scalable vector was reported (once per module) */
  const char *module_name; /* the @I.ir_module class: `Module.f(...)` calls name it */
} verifier;

static verifier *self(tx_visitor *v) {
  return (verifier *)v;
}

static void fail_oom(verifier *vf) {
  vf->oom = 1;
  vf->v.stop = 1;
}

/* The best location for a problem: the innermost enclosing expression, else
 * the statement. Variables are shared nodes whose span is their definition,
 * so a use is located at its parent. */
static tirx_span here(const verifier *vf, const tx_expr *e) {
  if (e && e->kind != EXPR_VAR && e->span.line) return e->span;
  for (size_t i = vf->depth; i-- > 0;)
    if (vf->spans[i].line) return vf->spans[i];
  for (size_t i = vf->nframes; i-- > 0;)
    if (vf->frames[i].s->span.line) return vf->frames[i].s->span;
  return vf->fn ? vf->fn->span : (tirx_span){0};
}

static void report(verifier *vf, tirx_span span, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void report(verifier *vf, tirx_span span, const char *fmt, ...) {
  tx_strbuf sb = {.alloc = vf->map.alloc};
  va_list ap;
  va_start(ap, fmt);
  tx_sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  const char *msg = tx_sb_cstr(&sb);
  if (!msg) {
    tx_sb_free(&sb);
    fail_oom(vf);
    return;
  }
  vf->errors++;
  if (!vf->after) {
    tx_error(vf->pc->diags, span, "%s", msg);
  } else if (span.line) {
    tx_internal_error(vf->pc->diags, vf->after, "malformed IR after this pass: %s (at %s:%u:%u)",
                      msg, span.file ? span.file : "?", span.line, span.col);
  } else {
    tx_internal_error(vf->pc->diags, vf->after, "malformed IR after this pass: %s", msg);
  }
  tx_sb_free(&sb);
  /* After a pass, one report says enough; for input, stop at the sink's limit. */
  if (vf->after || tx_diag_saturated(vf->pc->diags)) vf->v.stop = 1;
}

/* A bug wherever it shows up: the frontend never binds one node twice. */
static void report_twice(verifier *vf, const char *what, const char *name, tirx_span first) {
  vf->errors++;
  tx_internal_error(vf->pc->diags, vf->after ? vf->after : "frontend",
                    "%s '%s' is bound twice (first at line %u)", what, name ? name : "?",
                    first.line);
  vf->v.stop = 1;
}

static int push_key(verifier *vf, const void *key) {
  if (vf->nstack == vf->stack_cap) {
    size_t cap = vf->stack_cap ? vf->stack_cap * 2 : 64;
    const void **p = tx_mem_realloc(vf->map.alloc, vf->stack, cap * sizeof *p);
    if (!p) return fail_oom(vf), 0;
    vf->stack = p;
    vf->stack_cap = cap;
  }
  vf->stack[vf->nstack++] = key;
  return 1;
}

static void pop_to(verifier *vf, size_t mark) {
  while (vf->nstack > mark) {
    const void *key = vf->stack[--vf->nstack];
    if (key == DEVICE_MARK) {
      /* A kernel ends: the next one has launch extents of its own. */
      if (--vf->device == 0) vf->nlaunch = 0;
      continue;
    }
    slot *s = map_find(&vf->map, key);
    if (s && s->live) s->live--;
  }
}

static void open_device(verifier *vf) {
  if (push_key(vf, DEVICE_MARK)) vf->device++;
}

/* Define a variable or buffer (key) in the current scope. */
static void define(verifier *vf, const void *key, const char *what, const char *name,
                   tirx_span span, int thread) {
  slot *s = map_get(&vf->map, key);
  if (!s) return fail_oom(vf);
  if (s->bound) return report_twice(vf, what, name, s->span);
  s->bound = 1;
  s->live = 1;
  s->thread = (uint8_t)thread;
  s->span = span;
  push_key(vf, key);
}

static int is_live(verifier *vf, const void *key) {
  slot *s = key ? map_find(&vf->map, key) : NULL;
  return s && s->live;
}

static int is_launch_thread(const tx_expr *e) {
  return e && e->kind == EXPR_CALL && e->u.call.op && strcmp(e->u.call.op, "T.launch_thread") == 0;
}

static int is_device_attr(const tx_stmt *s) {
  for (uint32_t i = 0; s->kind == STMT_ATTR && s->kw.names && i < s->nexprs - s->kw.npos; i++)
    if (strcmp(s->kw.names[i], "tirx.device_entry") == 0) return 1;
  return 0;
}

static int is_device_entry(const tx_stmt *s) {
  return s->kind == STMT_DEVICE_ENTRY || is_device_attr(s);
}

static void use_var(verifier *vf, const tx_expr *e) {
  slot *s = map_find(&vf->map, e);
  const char *name = e->u.var.name ? e->u.var.name : "?";
  if (!s || !s->bound)
    report(vf, here(vf, NULL), "variable '%s' is used before it is defined", name);
  else if (!s->live)
    report(vf, here(vf, NULL), "variable '%s' is used outside the scope of its definition", name);
  else if (s->thread && !vf->device)
    report(vf, here(vf, NULL), "thread id '%s' is used outside device code", name);
}

static void use_buffer(verifier *vf, const tx_buffer *b, tirx_span span) {
  if (!b || is_live(vf, b)) return;
  /* A buffer over storage in scope: a flat alias of an allocation, or a
   * kernel-side buffer over a data-pointer parameter. */
  if (is_live(vf, b->data)) return;
  if (b->form == BUF_VIEW && b->origin && b->origin->kind == EXPR_CALL && b->origin->nops &&
      b->origin->ops[0]->kind == EXPR_BUFFER && is_live(vf, b->origin->ops[0]->u.buffer))
    return;
  slot *s = map_find(&vf->map, b);
  const char *name = b->name ? b->name : "?";
  if (s && s->bound)
    report(vf, span, "buffer '%s' is used outside the scope of its declaration", name);
  else
    report(vf, span, "buffer '%s' is used but never declared", name);
}

/* ---- Launch extents --------------------------------------------------------------- */

static void put_extents(tx_strbuf *sb, const launch_rec *r) {
  tx_sb_putc(sb, '[');
  for (uint32_t i = 0; i < r->n; i++) {
    if (i) tx_sb_puts(sb, ", ");
    if (r->known[i])
      tx_sb_printf(sb, "%lld", (long long)r->ext[i]);
    else
      tx_sb_putc(sb, '?');
  }
  tx_sb_putc(sb, ']');
}

static void check_launch(verifier *vf, launch_rec rec) {
  for (size_t i = 0; i < vf->nlaunch; i++) {
    const launch_rec *old = &vf->launch[i];
    if (old->is_tag != rec.is_tag || old->name_len != rec.name_len ||
        memcmp(old->name, rec.name, rec.name_len) != 0)
      continue;
    int differ = old->n != rec.n;
    for (uint32_t k = 0; !differ && k < rec.n; k++)
      differ = old->known[k] && rec.known[k] && old->ext[k] != rec.ext[k];
    if (!differ) return;
    tx_strbuf a = {.alloc = vf->map.alloc}, b = {.alloc = vf->map.alloc};
    put_extents(&a, &rec);
    put_extents(&b, old);
    const char *sa = tx_sb_cstr(&a), *sb = tx_sb_cstr(&b);
    if (sa && sb) {
      if (rec.is_tag)
        report(vf, rec.span,
               "inconsistent launch extents: T.launch_thread(\"%.*s\") has extent %s "
               "here but %s before",
               (int)rec.name_len, rec.name, sa, sb);
      else
        report(vf, rec.span, "inconsistent launch extents: T.%s has extents %s here but %s before",
               rec.name, sa, sb);
      if (!vf->after && !vf->v.stop) tx_note(vf->pc->diags, old->span, "previous definition here");
    } else {
      fail_oom(vf);
    }
    tx_sb_free(&a);
    tx_sb_free(&b);
    return;
  }
  if (vf->nlaunch == vf->launch_cap) {
    size_t cap = vf->launch_cap ? vf->launch_cap * 2 : 8;
    launch_rec *p = tx_mem_realloc(vf->map.alloc, vf->launch, cap * sizeof *p);
    if (!p) return fail_oom(vf);
    vf->launch = p;
    vf->launch_cap = cap;
  }
  vf->launch[vf->nlaunch++] = rec;
}

static void set_extent(launch_rec *r, uint32_t k, const tx_expr *e) {
  r->known[k] = e && e->kind == EXPR_INT;
  r->ext[k] = r->known[k] ? e->u.ival : 0;
}

static void scope_id_extents(verifier *vf, const tx_stmt *s) {
  if (!s->name || s->kw.npos < 1) return;
  const tx_expr *e = s->exprs[0];
  launch_rec r = {.name = s->name, .name_len = strlen(s->name), .span = s->span};
  const tx_expr *const *items = e->kind == EXPR_TUPLE ? e->ops : &e;
  r.n = e->kind == EXPR_TUPLE ? e->nops : 1;
  if (r.n > 3) return; /* the frontend rejects these; nothing to compare */
  for (uint32_t k = 0; k < r.n; k++)
    set_extent(&r, k, items[k]);
  check_launch(vf, r);
}

static void launch_thread_extent(verifier *vf, const tx_stmt *s, const tx_expr *call) {
  if (call->nops < 2 || call->ops[0]->kind != EXPR_STRING) return;
  launch_rec r = {.name = call->ops[0]->u.str.data,
                  .name_len = call->ops[0]->u.str.len,
                  .is_tag = 1,
                  .n = 1,
                  .span = call->span.line ? call->span : s->span};
  set_extent(&r, 0, call->ops[1]);
  check_launch(vf, r);
}

/* ---- Visitor callbacks ------------------------------------------------------------ */

static int push_span(verifier *vf, tirx_span span) {
  if (vf->depth == vf->spans_cap) {
    size_t cap = vf->spans_cap ? vf->spans_cap * 2 : 64;
    tirx_span *p = tx_mem_realloc(vf->map.alloc, vf->spans, cap * sizeof *p);
    if (!p) return fail_oom(vf), 0;
    vf->spans = p;
    vf->spans_cap = cap;
  }
  vf->spans[vf->depth++] = span;
  return 1;
}

/* A variable in a binding position: vars[] of a binding statement or a
 * function's params and symbolic extents. */
static void bind_var(verifier *vf, const tx_expr *e, const tx_stmt *s) {
  if (e->kind != EXPR_VAR) {
    report(vf, here(vf, e), "a %s binds a %s, not a variable",
           s ? tx_stmt_kind_name((tx_stmt_kind)s->kind) : "function header",
           tx_expr_kind_name((tx_expr_kind)e->kind));
    return;
  }
  int thread = s && (s->kind == STMT_SCOPE_ID ||
                     (s->kind == STMT_BIND && s->nexprs && is_launch_thread(s->exprs[0])));
  define(vf, e, "variable", e->u.var.name, e->span.line ? e->span : here(vf, NULL), thread);
}

static int pre_expr(tx_visitor *v, const tx_expr *e) {
  verifier *vf = self(v);
  size_t ml = vf->module_name ? strlen(vf->module_name) : 0;
  if (e->kind == EXPR_CALL && ml && e->u.call.op &&
      strncmp(e->u.call.op, vf->module_name, ml) == 0 && e->u.call.op[ml] == '.')
    report(vf, e->span,
           "%s(...) calls another function of the module: parsed and printed, but tirx-c does "
           "not compile calls between functions",
           e->u.call.op);
  if (e->dtype.scalable && !vf->scalable_seen) {
    char buf[32];
    vf->scalable_seen = 1;
    report(vf, e->span,
           "scalable vector %s (T.vscale()) is parsed and printed but not compiled: CUDA has no "
           "scalable vectors",
           tx_dtype_str(e->dtype, buf));
  }
  if (vf->depth == 0 && !vf->in_buffer) {
    if (vf->nframes == 0) {
      uint32_t idx = vf->header_top++;
      if (idx < vf->fn->nparams + vf->fn->nsymbolic) {
        bind_var(vf, e, NULL);
        return 0;
      }
    } else {
      frame *f = &vf->frames[vf->nframes - 1];
      uint32_t idx = f->top++;
      if (tx_stmt_binds_vars((tx_stmt_kind)f->s->kind) && idx >= f->s->nexprs) {
        bind_var(vf, e, f->s);
        return 0;
      }
    }
  }
  switch ((tx_expr_kind)e->kind) {
  case EXPR_VAR:
    use_var(vf, e);
    return 0; /* no operands */
  case EXPR_LOAD:
  case EXPR_REGION:
  case EXPR_BUFFER:
    use_buffer(vf, e->u.buffer, here(vf, e));
    break;
  case EXPR_LET: {
    /* The binder scopes over the body only, not over its own value. */
    if (!push_span(vf, e->span)) return 0;
    if (e->nops > 0) tx_visit_expr(v, e->ops[0]);
    size_t mark = vf->nstack;
    if (e->u.binder && e->u.binder->kind == EXPR_VAR)
      define(vf, e->u.binder, "variable", e->u.binder->u.var.name, e->span, 0);
    for (uint32_t i = 1; i < e->nops; i++)
      tx_visit_expr(v, e->ops[i]);
    pop_to(vf, mark);
    vf->depth--;
    return 0;
  }
  case EXPR_LAMBDA: {
    /* lambda x, y: body: the parameters scope over the body (the last operand). */
    if (!push_span(vf, e->span)) return 0;
    size_t mark = vf->nstack;
    for (uint32_t i = 0; i + 1 < e->nops; i++)
      define(vf, e->ops[i], "variable", e->ops[i]->u.var.name, e->span, 0);
    if (e->nops > 0) tx_visit_expr(v, e->ops[e->nops - 1]);
    pop_to(vf, mark);
    vf->depth--;
    return 0;
  }
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
  return push_span(vf, e->span);
}

static void post_expr(tx_visitor *v, const tx_expr *e) {
  (void)e;
  self(v)->depth--;
}

static int on_buffer(tx_visitor *v, const tx_buffer *b) {
  verifier *vf = self(v);
  tirx_span span = b->span.line ? b->span : here(vf, NULL);
  /* The data variable: a definition unless the buffer views storage that is
   * already in scope (decl_buffer(..., data=X.data), a match_buffer's handle). */
  const tx_expr *d = b->data;
  if (d && d->kind == EXPR_VAR && !is_live(vf, d)) {
    slot *s = map_find(&vf->map, d);
    if (s && s->bound)
      report(vf, span, "buffer '%s' uses the data of a buffer that is out of scope",
             b->name ? b->name : "?");
    else
      define(vf, d, "variable", d->u.var.name, span, 0);
  }
  define(vf, b, "buffer", b->name, span, 0);
  vf->in_buffer++;
  if (!v->stop) tx_visit_buffer_fields(v, b);
  vf->in_buffer--;
  return 0;
}

/* TVM's classic kernel: a flat `t = T.launch_thread(tag, n)` outside device code starts
 * the kernel, whose device code is the rest of the sequence (unify-thread-binding puts the
 * device entry there). */
static int opens_kernel(const tx_stmt *s) {
  return s->kind == STMT_BIND && s->nexprs && is_launch_thread(s->exprs[0]);
}

static int is_leaky(const tx_stmt *s) {
  switch ((tx_stmt_kind)s->kind) {
  case STMT_BIND:
  case STMT_SCOPE_ID:
  case STMT_ALLOC:
  case STMT_DECL:
  case STMT_BLOCK_AXIS:
    return 1;
  case STMT_DEVICE_ENTRY:
  case STMT_ATTR:
    return s->flag == 0 && is_device_entry(s);
  case STMT_STORE:
  case STMT_ASSIGN:
  case STMT_ASSERT:
  case STMT_SEQ:
  case STMT_EVAL:
  case STMT_IF:
  case STMT_FOR:
  case STMT_WHILE:
  case STMT_BREAK:
  case STMT_CONTINUE:
  case STMT_RETURN:
  case STMT_WITH:
  case STMT_BLOCK:
  case STMT_BLOCK_SIG:
  case STMT_BLOCK_INIT:
  case STMT_TILE_OP:
  case TX_STMT_KIND_COUNT:
    return 0;
  }
  return 0;
}

static int pre_stmt(tx_visitor *v, const tx_stmt *s) {
  verifier *vf = self(v);
  if (vf->nframes == vf->frames_cap) {
    size_t cap = vf->frames_cap ? vf->frames_cap * 2 : 32;
    frame *p = tx_mem_realloc(vf->map.alloc, vf->frames, cap * sizeof *p);
    if (!p) return fail_oom(vf), 0;
    vf->frames = p;
    vf->frames_cap = cap;
  }
  vf->frames[vf->nframes++] = (frame){s, vf->nstack, 0};
  switch ((tx_stmt_kind)s->kind) {
  case STMT_STORE:
    use_buffer(vf, s->buffer, s->span);
    break;
  case STMT_DECL:
    if (s->buffer && s->buffer->form == BUF_FREE)
      report(vf, s->span,
             "buffer '%s' is used without a declaration (TVM prints it as T.Buffer(...) where it "
             "is first used): it has no storage, so it is read and printed but not compiled",
             s->buffer->name ? s->buffer->name : "?");
    break;
  case STMT_SCOPE_ID:
    if (!vf->device)
      report(vf, s->span, "scope id T.%s is used before T.device_entry()", s->name ? s->name : "?");
    scope_id_extents(vf, s);
    break;
  case STMT_BIND:
    if (s->nexprs && is_launch_thread(s->exprs[0])) launch_thread_extent(vf, s, s->exprs[0]);
    break;
  case STMT_DEVICE_ENTRY:
  case STMT_ATTR:
    if (!is_device_entry(s)) break;
    if (vf->flat_entry)
      report(vf, s->span,
             "T.device_entry() after a flat T.device_entry(): the rest of the function is "
             "already one kernel; write `with T.device_entry():` around each kernel to launch "
             "several");
    else if (vf->device)
      report(vf, s->span, "T.device_entry() inside device code");
    if (!s->flag) vf->flat_entry = 1;
    if (s->flag) open_device(vf); /* with-form: the body is device code */
    break;
  case STMT_FOR:
  case STMT_WHILE:
    vf->loops++;
    break;
  case STMT_BREAK:
  case STMT_CONTINUE:
    if (!vf->loops)
      report(vf, s->span, "'%s' outside a loop", s->kind == STMT_BREAK ? "break" : "continue");
    break;
  case STMT_ASSIGN:
  case STMT_ASSERT:
  case STMT_SEQ:
  case STMT_EVAL:
  case STMT_IF:
  case STMT_RETURN:
  case STMT_ALLOC:
  case STMT_WITH:
  case STMT_BLOCK:
  case STMT_BLOCK_AXIS:
  case STMT_BLOCK_SIG:
  case STMT_BLOCK_INIT:
  case STMT_TILE_OP:
  case TX_STMT_KIND_COUNT:
    break;
  }
  return 1;
}

static void post_stmt(tx_visitor *v, const tx_stmt *s) {
  verifier *vf = self(v);
  frame f = vf->frames[--vf->nframes];
  if (s->kind == STMT_FOR || s->kind == STMT_WHILE) vf->loops--;
  const frame *parent = vf->nframes ? &vf->frames[vf->nframes - 1] : NULL;
  if (is_leaky(s) && parent && (parent->s->kind == STMT_SEQ || parent->s->kind == STMT_BLOCK)) {
    /* Scopes over the rest of the sequence (or of an S-TIR block's items:
     * its iterators and buffers): the sequence ends it. */
    if ((is_device_entry(s) && s->flag == 0) || (opens_kernel(s) && !vf->device)) open_device(vf);
    return;
  }
  pop_to(vf, f.mark);
}

/* ---- Entry point -------------------------------------------------------------------- */

static int func_is_kernel(const tx_func *f) {
  return tx_func_attr_true(f, "tirx.kernel");
}

static void verify_func(verifier *vf, const tx_func *f) {
  vf->fn = f;
  vf->map.gen++;
  vf->map.used = 0;
  vf->nstack = vf->nframes = vf->depth = vf->nlaunch = 0;
  vf->header_top = 0;
  vf->in_buffer = 0;
  vf->device = vf->loops = 0;
  vf->flat_entry = 0;
  /* A device function (after split-host-device) is device code throughout. */
  if (func_is_kernel(f)) open_device(vf);
  if (f->name && !f->name[0])
    report(vf, f->span,
           "a function without a name (`def (`, as TVM prints an unnamed PrimFunc) is read and "
           "printed but not compiled: give it a name");
  tx_visit_func(&vf->v, f);
}

tirx_status tx_verify_module(tx_pass_ctx *pc, const tx_module *m, const char *after) {
  if (!m) {
    tx_internal_error(pc->diags, after ? after : "verify", "no module to verify");
    return TIRX_ERR_INTERNAL;
  }
  verifier vf = {.map = {.alloc = tx_ir_alloc(pc->ir)}}; /* its tables all use this one */
  vf.v.user = &vf;
  vf.v.pre_expr = pre_expr;
  vf.v.post_expr = post_expr;
  vf.v.pre_stmt = pre_stmt;
  vf.v.post_stmt = post_stmt;
  vf.v.on_buffer = on_buffer;
  vf.pc = pc;
  vf.after = after;
  vf.module_name = m->name;
  int internal_before = tx_diag_has_internal(pc->diags);
  for (uint32_t i = 0; i < m->nfuncs && !vf.v.stop; i++)
    verify_func(&vf, m->funcs[i]);
  const tirx_allocator *alloc = vf.map.alloc;
  tx_mem_free(alloc, vf.map.slots);
  tx_mem_free(alloc, vf.stack);
  tx_mem_free(alloc, vf.frames);
  tx_mem_free(alloc, vf.spans);
  tx_mem_free(alloc, vf.launch);
  if (vf.oom) return TIRX_ERR_NOMEM;
  if (!vf.errors) return TIRX_OK;
  if (after || (!internal_before && tx_diag_has_internal(pc->diags))) return TIRX_ERR_INTERNAL;
  return TIRX_ERR_INPUT;
}
