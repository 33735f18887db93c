/*
 * verify_memory.c - the verify-memory pass: host code never dereferences
 * device memory (docs/lowering.md, "verify-memory").
 *
 * Runs right before split-host-device. The host part of a function is what
 * split-host-device will put in the host launcher: the statements of its
 * top-level sequence before the flat T.device_entry() (or before a with-form
 * entry), or the whole body of a function without a device entry. The host
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
 * The pass only checks: it never changes the module (*out = in). A function
 * whose device entry is not a top-level statement is left to
 * split-host-device, which reports it.
 */
#include <string.h>

#include "ir/visit.h"
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

static void report(vm_state *st, tirx_span span, const char *verb, const tx_buffer *b) {
  if (span.line == 0) span = st->fallback;
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
  case EXPR_NONE:
  case TX_EXPR_KIND_COUNT:
    break;
  }
  if (b && in_device_memory(st, b)) report(st, e->span, verb, b);
  if (tx_diag_saturated(st->pc->diags)) v->stop = 1;
  return 1;
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

static void check_func(vm_state *st) {
  const tx_func *f = st->f;
  if (!f->body) return;
  const tx_stmt *const *items = &f->body;
  uint32_t n = 1;
  if (f->body->kind == STMT_SEQ) {
    items = f->body->stmts;
    n = f->body->nstmts;
  }
  uint32_t nhost = n;
  for (uint32_t i = 0; i < n; i++)
    if (items[i] && items[i]->kind == STMT_DEVICE_ENTRY) {
      nhost = i;
      break;
    }
  st->host_only = nhost == n;
  if (st->host_only) {
    /* A device entry below the top level: split-host-device rejects it with
     * a clearer message than the accesses it would make look host-side. */
    int nested = 0;
    tx_visitor probe = {0};
    probe.user = &nested;
    probe.pre_stmt = find_nested_entry;
    tx_visit_stmt(&probe, f->body);
    if (nested) return;
  }
  /* Parameter buffers are GPU tensors. */
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->param_bufs && f->param_bufs[i]) add_dev_data(st, f->param_bufs[i]->data);
  tx_visitor v = {0};
  v.user = st;
  v.pre_expr = vm_pre_expr;
  v.pre_stmt = vm_pre_stmt;
  for (uint32_t i = 0; i < nhost && !v.stop; i++) {
    st->fallback = items[i]->span;
    tx_visit_stmt(&v, items[i]);
  }
}

tirx_status tx_pass_verify_memory(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  int errors = 0;
  for (uint32_t i = 0; i < in->nfuncs; i++) {
    vm_state st = {0};
    st.pc = pc;
    st.f = in->funcs[i];
    check_func(&st);
    errors += st.errors;
    if (tx_diag_saturated(pc->diags)) break;
  }
  if (errors) return TIRX_ERR_INPUT;
  *out = in;
  return TIRX_OK;
}
