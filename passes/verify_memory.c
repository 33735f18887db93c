/*
 * verify_memory.c - the verify-memory pass: host code never dereferences
 * device memory (docs/lowering.md, "verify-memory").
 *
 * Runs right before split-host-device. The host part of a function is what
 * split-host-device will put in the host launcher: the statements of its
 * top-level sequence other than with-form device entries (each a kernel),
 * up to a flat T.device_entry(), or the whole body of a function without a
 * device entry. The host
 * part runs on the CPU, so it must not load, store or slice a buffer whose
 * storage is on the GPU:
 *  - parameter buffers (the runtime passes GPU tensors);
 *  - buffers in an on-chip scope (shared, shared.dyn, local, tmem, ...);
 *  - declarations and views whose storage is one of those (data=A.data,
 *    A.view(...), a flat alias made by flatten-buffer).
 * Reading metadata is fine: A.shape, symbolic extents and A.data as a
 * pointer value (an EXPR_BUFFER operand, A.ptr_to, A.access_ptr) do not
 * touch the memory. Global allocations made on the host are host memory.
 *
 * It also checks that each function's on-chip buffers fit the target
 * (tx_target_limits_of; docs/limits.md, "Buffer sizes"), with sizes in
 * 64 bits (an overflowing size is an error too):
 *  - every static `shared` buffer, and all of them together, within the
 *    static shared memory of a block;
 *  - the static buffers plus the `shared.dyn` arena (laid out by
 *    tx_backend.dyn_smem_layout, the rule split-host-device and codegen use)
 *    within the shared memory a block may opt in to;
 *  - every `local` buffer within the local memory of a thread.
 * Buffers with symbolic extents are sized at run time and not checked. Each
 * kernel of a function with several is checked on its own.
 *
 * The pass only checks: it never changes the module (*out = in). A function
 * whose device entry is not a top-level statement is left to
 * split-host-device, which reports it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "support/mem.h"
#include "ir/visit.h"
#include "passes/lower_common.h"
#include "passes/pass.h"

/* ---- which buffers live in device memory -------------------------------- */

/* The data variables of device storage seen so far in this function (a small
 * linear set: functions declare few buffers). */
typedef struct vm_state {
  tx_pass_ctx *pc;
  const tx_func *f;
  const tx_expr *dev_data[256];
  uint32_t ndev;
  int host_only;      /* the function has no device entry */
  tirx_span fallback; /* span of the host statement being walked */
  /* Spans of the expressions around the one being visited (innermost last):
   * an access a pass made has none of its own. Past the cap the deepest
   * kept one stands in, which still encloses the access. */
  tirx_span around[32];
  uint32_t depth;
  /* What was reported, so that a source access is reported once however
   * many copies unroll-loop and vectorize-loop made of it. */
  struct vm_report {
    const tx_buffer *buf;
    const char *verb;
    tirx_span span;
  } * reports;
  uint32_t nreports, capreports;
  int errors;
} vm_state;

static int is_dev_data(const vm_state *st, const tx_expr *d) {
  for (uint32_t i = 0; i < st->ndev; i++)
    if (st->dev_data[i] == d) return 1;
  return 0;
}

static void add_dev_data(vm_state *st, const tx_expr *d) {
  /* Past the cap, a buffer is judged by its scope alone: no false errors. */
  if (d && !is_dev_data(st, d) && st->ndev < sizeof st->dev_data / sizeof *st->dev_data)
    st->dev_data[st->ndev++] = d;
}

/* On-chip scopes: "shared", "shared.dyn", "local", "tmem" and their
 * qualified forms ("shared.barrier", "local.fragment", ...). */
static int device_scope(const char *scope) {
  if (!scope) return 0;
  static const char *const prefixes[] = {"shared", "local", "tmem", "warp"};
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
    size_t n = strlen(prefixes[i]);
    if (strncmp(scope, prefixes[i], n) == 0 && (scope[n] == '\0' || scope[n] == '.')) return 1;
  }
  return 0;
}

static int in_device_memory(const vm_state *st, const tx_buffer *b) {
  if (!b) return 0;
  if (device_scope(b->scope)) return 1;
  if (b->data && is_dev_data(st, b->data)) return 1;
  /* A view (A.view(...), A.permute(...)) reads its origin's storage. */
  if (b->form == BUF_VIEW && b->origin && b->origin->kind == EXPR_CALL && b->origin->nops > 0 &&
      b->origin->ops[0]->kind == EXPR_BUFFER)
    return in_device_memory(st, b->origin->ops[0]->u.buffer);
  return 0;
}

/* ---- the walk over host statements -------------------------------------- */

/* The same place as a diagnostic shows it: file, line and column. Spans
 * that start there but end elsewhere (A[i], A[i] * i) read the same. */
static int same_place(tirx_span a, tirx_span b) {
  return a.line == b.line && a.col == b.col &&
         (a.file == b.file || (a.file && b.file && strcmp(a.file, b.file) == 0));
}

/* Has this access (buffer, verb, place) been reported? If not, remember it. */
static int reported_before(vm_state *st, tirx_span span, const char *verb, const tx_buffer *b) {
  for (uint32_t i = 0; i < st->nreports; i++)
    if (st->reports[i].buf == b && st->reports[i].verb == verb &&
        same_place(st->reports[i].span, span))
      return 1;
  if (st->nreports == st->capreports) {
    uint32_t cap = st->capreports ? 2 * st->capreports : 16;
    struct vm_report *p = tx_mem_realloc(tx_ir_alloc(st->pc->ir), st->reports, cap * sizeof *p);
    if (!p) return 0; /* report it again rather than lose it */
    st->reports = p;
    st->capreports = cap;
  }
  st->reports[st->nreports++] = (struct vm_report){b, verb, span};
  return 0;
}

static void report(vm_state *st, tirx_span span, const char *verb, const tx_buffer *b) {
  if (span.line == 0 && st->depth) span = st->around[(st->depth < 32 ? st->depth : 32) - 1];
  if (span.line == 0) span = st->fallback;
  if (reported_before(st, span, verb, b)) return;
  const char *hint = st->host_only ? "the function has no T.device_entry(): device memory is only "
                                     "accessible after one"
                                   : "move the access after T.device_entry()";
  tx_error(st->pc->diags, span, "host code cannot %s buffer '%s': it lives in device memory (%s)",
           verb, b->name ? b->name : "?", hint);
  st->errors++;
}

/* A buffer method call: `.vload` reads, `.vstore` writes; `.ptr_to` and
 * `.access_ptr` only compute an address. */
static const char *method_access(const tx_expr *e) {
  if (e->nops == 0 || e->ops[0]->kind != EXPR_BUFFER || !e->u.call.op) return NULL;
  if (strcmp(e->u.call.op, ".vload") == 0) return "read";
  if (strcmp(e->u.call.op, ".vstore") == 0) return "write";
  return NULL;
}

static int vm_pre_expr(tx_visitor *v, const tx_expr *e) {
  vm_state *st = v->user;
  const char *verb = NULL;
  const tx_buffer *b = NULL;
  switch ((tx_expr_kind)e->kind) {
  case EXPR_LOAD:
    verb = "read";
    b = e->u.buffer;
    break;
  case EXPR_REGION:
    verb = "access";
    b = e->u.buffer;
    break;
  case EXPR_CALL:
    /* T.address_of(A[i]) computes an address; it does not read A[i]. */
    if (e->u.call.op && strcmp(e->u.call.op, "T.address_of") == 0) return 0;
    verb = method_access(e);
    b = verb ? e->ops[0]->u.buffer : NULL;
    break;
  case EXPR_BUFFER: /* the buffer as a value: a pointer, not an access */
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STRING:
  case EXPR_VAR:
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
  case EXPR_LET:
  case EXPR_TUPLE:
  case EXPR_SLICE:
  case EXPR_LAYOUT:
  case EXPR_LAMBDA:
  case EXPR_NONE:
  case TX_EXPR_KIND_COUNT:
    break;
  }
  if (b && in_device_memory(st, b)) report(st, e->span, verb, b);
  if (tx_diag_saturated(st->pc->diags)) v->stop = 1;
  if (e->span.line) {
    if (st->depth < 32) st->around[st->depth] = e->span;
    st->depth++;
  }
  return 1;
}

static void vm_post_expr(tx_visitor *v, const tx_expr *e) {
  vm_state *st = v->user;
  if (e->span.line && st->depth) st->depth--;
}

static int vm_pre_stmt(tx_visitor *v, const tx_stmt *s) {
  vm_state *st = v->user;
  if (s->span.line) st->fallback = s->span;
  if (s->kind == STMT_STORE && in_device_memory(st, s->buffer))
    report(st, s->span, "write", s->buffer);
  /* A declaration over device storage (T.decl_buffer(..., data=A.data)) is
   * device memory too; its own data variable then names the same storage. */
  if (tx_stmt_defines_buffer((tx_stmt_kind)s->kind) && s->buffer && in_device_memory(st, s->buffer))
    add_dev_data(st, s->buffer->data);
  if (tx_diag_saturated(st->pc->diags)) v->stop = 1;
  return 1;
}

/* ---- functions ------------------------------------------------------------ */

static int find_nested_entry(tx_visitor *v, const tx_stmt *s) {
  if (s->kind == STMT_DEVICE_ENTRY) {
    *(int *)v->user = 1;
    v->stop = 1;
    return 0;
  }
  return 1;
}

static int has_nested_entry(const tx_stmt *s) {
  int nested = 0;
  tx_visitor probe = {0};
  probe.user = &nested;
  probe.pre_stmt = find_nested_entry;
  tx_visit_stmt(&probe, s);
  return nested;
}

static void check_func(vm_state *st) {
  const tx_func *f = st->f;
  if (!f->body) return;
  const tx_stmt *const *items = &f->body;
  uint32_t n = 1;
  if (f->body->kind == STMT_SEQ) {
    items = f->body->stmts;
    n = f->body->nstmts;
  }
  /* Host code: the top-level statements that are not device entries, up to a
   * flat entry (several with-form entries are several kernels). */
  uint32_t nhost = n;
  st->host_only = 1;
  for (uint32_t i = 0; i < n; i++)
    if (items[i] && items[i]->kind == STMT_DEVICE_ENTRY) {
      st->host_only = 0;
      if (items[i]->flag == 0) {
        nhost = i;
        break;
      }
    }
  if (st->host_only) {
    /* A device entry below the top level: split-host-device rejects it with
     * a clearer message than the accesses it would make look host-side. */
    if (has_nested_entry(f->body)) return;
  }
  /* Parameter buffers are GPU tensors. */
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->param_bufs && f->param_bufs[i]) add_dev_data(st, f->param_bufs[i]->data);
  tx_visitor v = {0};
  v.user = st;
  v.pre_expr = vm_pre_expr;
  v.post_expr = vm_post_expr;
  v.pre_stmt = vm_pre_stmt;
  for (uint32_t i = 0; i < nhost && !v.stop; i++) {
    if (items[i] && items[i]->kind == STMT_DEVICE_ENTRY) continue;
    if (!st->host_only && has_nested_entry(items[i])) continue; /* split-host-device's error */
    st->fallback = items[i]->span;
    tx_visit_stmt(&v, items[i]);
  }
}

/* ---- on-chip buffer sizes ------------------------------------------------ */

typedef struct size_state {
  tx_pass_ctx *pc;
  const tx_func *f;
  const tx_target_limits *lim;
  int64_t static_bytes; /* the static shared buffers so far */
  int static_reported;
  const tx_buffer **dyn; /* shared.dyn allocations, in codegen's order */
  tirx_span *dyn_spans;  /* ... and their allocation statements */
  uint32_t ndyn, capdyn;
  int errors, oom;
} size_state;

/* "49152 bytes (48 KiB)" */
static const char *bytes_text(char *buf, size_t n, int64_t bytes) {
  if (bytes % 1024 == 0)
    snprintf(buf, n, "%" PRId64 " bytes (%" PRId64 " KiB)", bytes, bytes / 1024);
  else
    snprintf(buf, n, "%" PRId64 " bytes", bytes);
  return buf;
}

/* Where the limits come from, for messages: "sm_90a", or every supported
 * architecture for a target without a row of its own. */
static const char *target_text(const size_state *z) {
  const tx_target *t = z->pc->target;
  return t && t->arch && z->lim->arch ? t->arch : "every supported architecture";
}

static const char *name_of(const tx_buffer *b) {
  return b->name ? b->name : "?";
}

/* a + b, or INT64_MAX when it overflows (a size past every limit). */
static int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* The bytes of b in *bytes: 1, 0 when symbolic; an overflow is reported. */
static int buffer_bytes(size_state *z, const tx_buffer *b, tirx_span span, int64_t *bytes) {
  int r = tx_target_backend(z->pc->target)->buffer_bytes(b, bytes);
  if (r < 0) {
    tx_target_backend(z->pc->target)->report_bad_size(z->pc->diags, span, b, r);
    z->errors++;
  }
  return r > 0;
}

static void check_static_shared(size_state *z, const tx_buffer *b, tirx_span span) {
  int64_t bytes, limit = z->lim->static_shared_bytes;
  char lim[64];
  if (!buffer_bytes(z, b, span, &bytes)) return;
  if (bytes > limit) {
    /* Dynamic shared memory holds more, up to the opt-in limit. */
    const char *hint = bytes <= z->lim->dyn_shared_bytes
                           ? " (larger shared buffers need scope=\"shared.dyn\")"
                           : "";
    tx_error(z->pc->diags, span,
             "shared buffer '%s' takes %" PRId64 " bytes, more than the %s of static shared "
             "memory a block may have on %s%s",
             name_of(b), bytes, bytes_text(lim, sizeof lim, limit), target_text(z), hint);
    z->errors++;
    z->static_reported = 1;
    return;
  }
  z->static_bytes = sat_add(z->static_bytes, bytes);
  if (z->static_bytes > limit && !z->static_reported) {
    tx_error(z->pc->diags, span,
             "with shared buffer '%s' the static shared buffers of '%s' take %" PRId64
             " bytes, more than the %s of static shared memory a block may have on %s",
             name_of(b), z->f->name ? z->f->name : "?", z->static_bytes,
             bytes_text(lim, sizeof lim, limit), target_text(z));
    z->errors++;
    z->static_reported = 1;
  }
}

static void check_local(size_state *z, const tx_buffer *b, tirx_span span) {
  int64_t bytes, limit = z->lim->local_bytes;
  char lim[64];
  if (!buffer_bytes(z, b, span, &bytes) || bytes <= limit) return;
  tx_error(z->pc->diags, span,
           "local buffer '%s' takes %" PRId64 " bytes per thread, more than the %s of local "
           "memory a thread may have on %s",
           name_of(b), bytes, bytes_text(lim, sizeof lim, limit), target_text(z));
  z->errors++;
}

static void note_dyn(size_state *z, const tx_buffer *b, tirx_span span) {
  if (z->ndyn == z->capdyn) {
    uint32_t cap = z->capdyn ? 2 * z->capdyn : 8;
    const tx_buffer **p = tx_mem_realloc(tx_ir_alloc(z->pc->ir), (void *)z->dyn, cap * sizeof *p);
    if (p) z->dyn = p;
    tirx_span *sp =
        p ? tx_mem_realloc(tx_ir_alloc(z->pc->ir), z->dyn_spans, cap * sizeof *sp) : NULL;
    if (!sp) {
      z->oom = 1;
      return;
    }
    z->dyn_spans = sp;
    z->capdyn = cap;
  }
  z->dyn_spans[z->ndyn] = span;
  z->dyn[z->ndyn++] = b;
}

/* Allocations and decl_buffers with storage of their own, as codegen
 * emits them; errors are located at the allocation statement. */
static int size_pre_stmt(tx_visitor *v, const tx_stmt *s) {
  size_state *z = v->user;
  int owns =
      s->kind == STMT_ALLOC ||
      (s->kind == STMT_DECL && tx_target_backend(z->pc->target)->buffer_owns_storage(s->buffer));
  const char *scope = owns && s->buffer ? s->buffer->scope : NULL;
  tirx_span span = s->span.line || !s->buffer ? s->span : s->buffer->span;
  if (scope && strcmp(scope, "shared") == 0) check_static_shared(z, s->buffer, span);
  if (scope && strcmp(scope, "local") == 0) check_local(z, s->buffer, span);
  if (scope && strcmp(scope, "shared.dyn") == 0) note_dyn(z, s->buffer, span);
  if (z->oom || tx_diag_saturated(z->pc->diags)) v->stop = 1;
  return 1;
}

/* The static buffers and the dynamic arena together, located at the first
 * shared.dyn buffer that does not fit. */
static void check_dyn_shared(size_state *z) {
  if (!z->ndyn || z->errors) return;
  int64_t *offs = tx_mem_calloc(tx_ir_alloc(z->pc->ir), z->ndyn, sizeof *offs), total = 0,
          limit = z->lim->dyn_shared_bytes;
  const tx_expr *sym = NULL;
  if (!offs) {
    z->oom = 1;
    return;
  }
  if (tx_target_backend(z->pc->target)
          ->dyn_smem_layout(z->pc->diags, z->dyn, z->ndyn, offs, &total, &sym) != TIRX_OK) {
    z->errors++;
  } else if (!sym && sat_add(z->static_bytes, total) > limit) {
    uint32_t i = 0;
    for (int64_t bytes = 0; i + 1 < z->ndyn; i++)
      if (tx_target_backend(z->pc->target)->buffer_bytes(z->dyn[i], &bytes) > 0 &&
          sat_add(sat_add(z->static_bytes, offs[i]), bytes) > limit)
        break;
    char lim[64], with[96] = "";
    if (z->static_bytes)
      snprintf(with, sizeof with, " (%" PRId64 " of them in static shared buffers)",
               z->static_bytes);
    tx_error(z->pc->diags, z->dyn_spans[i],
             "with dynamic shared buffer '%s' the shared memory of '%s' takes %" PRId64
             " bytes%s, more than the %s a block may have on %s",
             name_of(z->dyn[i]), z->f->name ? z->f->name : "?", sat_add(z->static_bytes, total),
             with, bytes_text(lim, sizeof lim, limit), target_text(z));
    z->errors++;
  }
  tx_mem_free(tx_ir_alloc(z->pc->ir), offs);
}

static int is_with_entry(const tx_stmt *s) {
  return s && s->kind == STMT_DEVICE_ENTRY && s->flag == 1;
}

/* The buffers of one kernel: the top-level statements in items[0..n) that
 * are (kernels) or are not (the rest) with-form device entries. */
static void check_kernel_sizes(size_state *z, const tx_stmt *const *items, uint32_t n,
                               int kernels) {
  tx_visitor v = {.user = z, .pre_stmt = size_pre_stmt, .pre_expr = tx_lc_skip_expr};
  for (uint32_t i = 0; i < n && !v.stop; i++) {
    if (is_with_entry(items[i]) != kernels) continue;
    tx_visit_stmt(&v, items[i]);
    if (kernels && !z->oom) check_dyn_shared(z);
    if (kernels) z->static_bytes = z->static_reported = 0, z->ndyn = 0;
  }
  if (!kernels && !z->oom) check_dyn_shared(z);
  z->static_bytes = z->static_reported = 0;
  z->ndyn = 0;
}

/* Each with-form device entry is a kernel of its own (several in one
 * function); the rest of the function (a flat entry's kernel) is another. */
static void check_sizes(size_state *z) {
  const tx_stmt *body = z->f->body;
  const tx_stmt *const *items = body && body->kind == STMT_SEQ ? body->stmts : &z->f->body;
  uint32_t n = body && body->kind == STMT_SEQ ? body->nstmts : body ? 1 : 0;
  check_kernel_sizes(z, items, n, 0);
  if (!z->oom) check_kernel_sizes(z, items, n, 1);
  tx_mem_free(tx_ir_alloc(z->pc->ir), (void *)z->dyn);
  tx_mem_free(tx_ir_alloc(z->pc->ir), z->dyn_spans);
}

tirx_status tx_pass_verify_memory(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  int errors = 0;
  const tx_target_limits *lim = tx_target_limits_of(pc->target);
  for (uint32_t i = 0; i < in->nfuncs; i++) {
    vm_state st = {0};
    st.pc = pc;
    st.f = in->funcs[i];
    check_func(&st);
    tx_mem_free(tx_ir_alloc(pc->ir), st.reports);
    errors += st.errors;
    size_state z = {.pc = pc, .f = in->funcs[i], .lim = lim};
    check_sizes(&z);
    if (z.oom) return TIRX_ERR_NOMEM;
    errors += z.errors;
    if (tx_diag_saturated(pc->diags)) break;
  }
  if (errors) return TIRX_ERR_INPUT;
  *out = in;
  return TIRX_OK;
}
