/*
 * test_passes.c - the pass manager (passes/pipeline.c), the well-formedness
 * verifier (passes/verify.c) and the compile driver (driver/compile.c).
 *
 * Malformed IR that the frontend refuses to build (use before definition, an
 * undeclared buffer, a scope id before T.device_entry(), a variable bound
 * twice) is built here by hand with the IR constructors. The assertions hold
 * for the real passes as well as for the temporary placeholders.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "abi/arch.h"
#include "driver/context.h"
#include "ir/visit.h"
#include "driver/compile.h"
#include "passes/pass.h"
#include "tirx/tirx.h"

static const char SCALE[] =
    "from tvm.script import tirx as T\n"
    "\n"
    "@T.prim_func\n"
    "def scale(A: T.Buffer((256,), \"float32\"), B: T.Buffer((256,), \"float32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([256])\n"
    "    B[tx] = A[tx] * T.float32(2.0)\n";

/* T.cta.copy on line 8, column 5 (no CUDA variant takes cta scope yet). */
static const char TILE[] =
    "from tvm.script import tirx as T\n"
    "\n"
    "@T.prim_func\n"
    "def f(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([32])\n"
    "    if tx < 16:\n"
    "        T.cta.copy(B[0:64], A[0:64])\n";

/* Two thread_id definitions with different extents (line 8). */
static const char INCONSISTENT[] = "from tvm.script import tirx as T\n"
                                   "\n"
                                   "@T.prim_func\n"
                                   "def f(A: T.Buffer((256,), \"float32\")):\n"
                                   "    T.device_entry()\n"
                                   "    tx = T.thread_id([128])\n"
                                   "    if tx < 4:\n"
                                   "        ty = T.thread_id([256])\n"
                                   "        A[ty] = T.float32(1.0)\n";

static tirx_ctx *ctx;
static tx_ir *ir;
static tx_pass_ctx pc;
static tx_target target;

static void setup(void) {
  cr_assert_eq(tirx_ctx_create(&ctx), TIRX_OK);
  ir = &ctx->ir;
  tx_target_from_arch("sm_90a", &target);
  target.opt_level = 2;
  pc = (tx_pass_ctx){.ir = ir, .diags = ctx->diags, .target = &target};
}

static void teardown(void) {
  tirx_ctx_destroy(ctx);
}

TestSuite(passes, .init = setup, .fini = teardown);

static const tx_module *parse(const char *src) {
  tirx_module *m = NULL;
  tirx_status st = tirx_parse_string(ctx, "t.tirx", src, strlen(src), &m);
  cr_assert_eq(st, TIRX_OK, "parse failed: %s", tirx_status_name(st));
  return m->mod;
}

static const char *diag_msg(size_t i) {
  const tirx_diagnostic *d = tx_diag_at(ctx->diags, i);
  cr_assert_not_null(d, "no diagnostic %zu", i);
  return d->message;
}

static int count_substr(const char *s, const char *sub) {
  int n = 0;
  for (const char *p = s; (p = strstr(p, sub)) != NULL; p += strlen(sub))
    n++;
  return n;
}

/* ---- Hand-built IR ------------------------------------------------------------ */

static tirx_span at(uint32_t line) {
  return (tirx_span){"t.tirx", line, 5, line, 9};
}

static const tx_expr *int32(int64_t v) {
  return tx_int(ir, TX_INT32, v, at(0));
}

static tx_expr *var(const char *name) {
  return tx_var(ir, name, TX_INT32, VAR_PLAIN, at(0));
}

static tx_buffer *buffer(const char *name, tx_buffer_form form) {
  tx_buffer *b = tx_arena_alloc(ir->arena, sizeof *b);
  b->name = tx_intern(ir->strings, name);
  b->data = tx_var(ir, name, TX_HANDLE, VAR_BUFFER_DATA, at(0));
  b->dtype = TX_INT32;
  const tx_expr *shape = int32(16);
  b->ndim = 1;
  b->shape = TX_DUP(ir, tx_expr, &shape, 1);
  b->scope = tx_intern(ir->strings, "global");
  b->form = form;
  return b;
}

static tx_stmt *store(const tx_buffer *b, const tx_expr *index, const tx_expr *value,
                      uint32_t line) {
  const tx_expr *ops[2] = {value, index};
  tx_stmt *s = tx_stmt_new(ir, STMT_STORE, ops, 2, NULL, 0, at(line));
  s->buffer = b;
  return s;
}

static tx_stmt *with_vars(tx_stmt *s, const tx_expr *v) {
  s->vars = TX_DUP(ir, tx_expr, &v, 1);
  s->nvars = 1;
  return s;
}

static tx_stmt *bind(const tx_expr *v, const tx_expr *value, uint32_t line) {
  return with_vars(tx_stmt_new(ir, STMT_BIND, &value, 1, NULL, 0, at(line)), v);
}

static tx_stmt *alloc(const tx_buffer *b, uint32_t line) {
  tx_stmt *s = tx_stmt_new(ir, STMT_ALLOC, NULL, 0, NULL, 0, at(line));
  s->buffer = b;
  return s;
}

static tx_stmt *device_entry(uint32_t line) {
  return tx_stmt_new(ir, STMT_DEVICE_ENTRY, NULL, 0, NULL, 0, at(line));
}

static tx_stmt *scope_id(const char *op, const tx_expr *v, int64_t extent, uint32_t line) {
  const tx_expr *e = int32(extent);
  const tx_expr *list = tx_expr_new(ir, EXPR_TUPLE, TX_VOID, &e, 1, at(line));
  tx_stmt *s = tx_stmt_new(ir, STMT_SCOPE_ID, &list, 1, NULL, 0, at(line));
  s->name = tx_intern(ir->strings, op);
  s->kw.npos = 1;
  return with_vars(s, v);
}

static const tx_expr *launch_thread(const char *tag, int64_t extent) {
  const tx_expr *ops[2] = {tx_string(ir, tag, strlen(tag), at(0)), int32(extent)};
  tx_expr *c = tx_expr_new(ir, EXPR_CALL, TX_INT32, ops, 2, at(0));
  c->u.call.op = tx_intern(ir->strings, "T.launch_thread");
  c->u.call.kw.npos = 2;
  return c;
}

static const tx_stmt *seq(const tx_stmt *const *items, uint32_t n) {
  return tx_stmt_new(ir, STMT_SEQ, NULL, 0, items, n, at(0));
}

static const tx_module *module_of(const tx_stmt *body, const char *attr) {
  tx_func *f = tx_arena_alloc(ir->arena, sizeof *f);
  f->name = tx_intern(ir->strings, "f");
  f->body = body;
  f->span = at(1);
  if (attr) {
    const char *key = tx_intern(ir->strings, attr);
    const tx_expr *val = tx_int(ir, TX_BOOL, 1, at(0));
    f->attr_keys = TX_DUP(ir, char, &key, 1);
    f->attr_values = TX_DUP(ir, tx_expr, &val, 1);
    f->nattrs = 1;
  }
  tx_module *m = tx_arena_alloc(ir->arena, sizeof *m);
  const tx_func *fp = f;
  m->funcs = TX_DUP(ir, tx_func, &fp, 1);
  m->nfuncs = 1;
  return m;
}

/* ---- Pass table ------------------------------------------------------------------ */

Test(passes, lookup_names_and_docs) {
  cr_assert_eq(tx_pass_lookup("lower-tirx"), PASS_LOWER_TIRX);
  cr_assert_eq(tx_pass_lookup("flatten-buffer"), PASS_FLATTEN_BUFFER);
  cr_assert_eq(tx_pass_lookup("simplify"), PASS_SIMPLIFY);
  cr_assert_eq(tx_pass_lookup("split-host-device"), PASS_SPLIT_HOST_DEVICE);
  cr_assert_eq(tx_pass_lookup("nope"), -1);
  cr_assert_eq(tx_pass_lookup(NULL), -1);
  cr_assert_eq(tx_pass_lookup("Simplify"), -1, "names are case-sensitive");
  for (int i = 0; i < TX_PASS_COUNT; i++) {
    cr_assert_eq(tx_pass_lookup(tx_pass_name((tx_pass_id)i)), i);
    cr_assert(strlen(tx_pass_doc((tx_pass_id)i)) > 10);
  }
  cr_assert_null(tx_pass_name(TX_PASS_COUNT));
  cr_assert_null(tx_pass_doc((tx_pass_id)-1));
}

Test(passes, emit_and_arch_tables) {
  cr_assert_eq(tx_emit_lookup("lowered"), TX_EMIT_LOWERED);
  cr_assert_eq(tx_emit_lookup("cubin"), TX_EMIT_CUBIN);
  cr_assert_eq(tx_emit_lookup("llvm"), -1);
  cr_assert_str_eq(tx_emit_name(TX_EMIT_PTX), "ptx");
  tx_target t = {0};
  cr_assert(tx_target_from_arch("sm_100a", &t));
  cr_assert_str_eq(t.arch, "sm_100a");
  cr_assert_eq(t.sm, 100);
  cr_assert_not(tx_target_from_arch("sm_75", &t));
  cr_assert_not(tx_target_from_arch("90a", &t));
  cr_assert_str_eq(tx_arch_for_cc(9, 0), "sm_90a");
  cr_assert_str_eq(tx_arch_for_cc(8, 6), "sm_86");
  cr_assert_null(tx_arch_for_cc(7, 5));
}

/* ---- Pipeline ------------------------------------------------------------------------ */

Test(passes, print_after_one_pass) {
  const tx_module *m = parse(SCALE), *out = NULL;
  tx_strbuf sb = {0};
  tx_pipeline_options o = {.print_out = &sb};
  o.print_after[PASS_SIMPLIFY] = 1;
  cr_assert_eq(tx_run_pipeline(&pc, &o, m, &out), TIRX_OK);
  cr_assert_not_null(out);
  const char *text = tx_sb_cstr(&sb);
  cr_assert(strncmp(text, "# after simplify\n", 17) == 0, "got: %s", text);
  cr_assert_eq(count_substr(text, "# after "), 1);
  cr_assert_not_null(strstr(text, "@T.prim_func"));
  tx_sb_free(&sb);
}

Test(passes, print_after_all_in_order_and_disabled) {
  const tx_module *m = parse(SCALE), *out = NULL;
  tx_strbuf sb = {0};
  tx_pipeline_options o = {.print_out = &sb, .print_after_all = 1, .verify_each = 1};
  o.disabled[PASS_FLATTEN_BUFFER] = 1;
  cr_assert_eq(tx_run_pipeline(&pc, &o, m, &out), TIRX_OK);
  const char *text = tx_sb_cstr(&sb);
  const char *a = strstr(text, "# after lower-tirx\n"), *b = strstr(text, "# after simplify\n"),
             *c = strstr(text, "# after split-host-device\n");
  cr_assert(a && b && c && a < b && b < c, "got: %s", text);
  cr_assert_null(strstr(text, "# after flatten-buffer"), "a disabled pass does not run");
  cr_assert_eq(o.timings_ms[PASS_FLATTEN_BUFFER], 0.0);
  /* every pass but the disabled one prints */
  cr_assert_eq(count_substr(text, "# after "), TX_PASS_COUNT - 1);
  tx_sb_free(&sb);
}

Test(passes, o0_skips_simplify) {
  const tx_module *m = parse(SCALE), *out = NULL;
  tx_strbuf sb = {0};
  tx_pipeline_options o = {.print_out = &sb, .print_after_all = 1};
  target.opt_level = 0;
  cr_assert_eq(tx_run_pipeline(&pc, &o, m, &out), TIRX_OK);
  cr_assert_null(strstr(tx_sb_cstr(&sb), "# after simplify"));
  cr_assert_eq(count_substr(tx_sb_cstr(&sb), "# after "), TX_PASS_COUNT - 1);
  tx_sb_free(&sb);
}

/* make-packed-api: the host launcher carries the packed API, kernels do not,
 * and running the pass again changes nothing. */
Test(passes, make_packed_api_marks_host_functions_only) {
  const tx_module *m = parse(SCALE), *out = NULL, *again = NULL;
  tx_pipeline_options o = {.verify_each = 1};
  cr_assert_eq(tx_run_pipeline(&pc, &o, m, &out), TIRX_OK);
  cr_assert_eq(out->nfuncs, 2);
  const tx_func *host = out->funcs[0], *kernel = out->funcs[1];
  int host_packed = 0, kernel_packed = 0;
  for (uint32_t i = 0; i < host->nattrs; i++)
    host_packed |= strcmp(host->attr_keys[i], "tirx.packed_api") == 0;
  for (uint32_t i = 0; i < kernel->nattrs; i++)
    kernel_packed |= strcmp(kernel->attr_keys[i], "tirx.packed_api") == 0;
  cr_assert(host_packed && !kernel_packed);
  cr_assert_eq(host->body->kind, STMT_SEQ);
  cr_assert_eq(host->body->stmts[0]->kind, STMT_ASSERT, "the prologue starts with the count");
  cr_assert_eq(tx_pass_make_packed_api(&pc, out, &again), TIRX_OK);
  cr_assert_eq(again, out, "idempotent");
}

/* verify-memory: a host read of a parameter buffer is one located error. */
Test(passes, verify_memory_rejects_host_reads) {
  const tx_module *m = parse("from tvm.script import tirx as T\n"
                             "\n"
                             "@T.prim_func\n"
                             "def f(A: T.Buffer((256,), \"float32\")):\n"
                             "    x = A[0]\n"
                             "    T.device_entry()\n"
                             "    tx = T.thread_id([256])\n"
                             "    A[tx] = x\n"),
                  *out = NULL;
  tx_pipeline_options o = {0};
  cr_assert_eq(tx_run_pipeline(&pc, &o, m, &out), TIRX_ERR_INPUT);
  cr_assert_eq(tx_diag_errors(ctx->diags), 1);
  cr_assert_str_eq(diag_msg(0), "host code cannot read buffer 'A': it lives in device memory "
                                "(move the access after T.device_entry())");
  cr_assert_eq(tx_diag_at(ctx->diags, 0)->span.line, 5);
}

Test(passes, print_after_without_sink_is_fine) {
  const tx_module *m = parse(SCALE), *out = NULL;
  tx_pipeline_options o = {.print_after_all = 1};
  cr_assert_eq(tx_run_pipeline(&pc, &o, m, &out), TIRX_OK);
}

Test(passes, tile_op_no_variant_takes_is_a_located_error) {
  const tx_module *m = parse(TILE), *out = NULL;
  tx_pipeline_options o = {0};
  cr_assert_eq(tx_run_pipeline(&pc, &o, m, &out), TIRX_ERR_INPUT);
  cr_assert_null(out);
  cr_assert_eq(tx_diag_errors(ctx->diags), 1);
  cr_assert(strncmp(diag_msg(0), "no cuda variant of T.cta.copy applies (scope cta):\n", 51) == 0,
            "%s", diag_msg(0));
  cr_assert_not_null(
      strstr(diag_msg(0), "\n  vec_auto     10       not every thread of the scope runs the call"));
  const tirx_diagnostic *d = tx_diag_at(ctx->diags, 0);
  cr_assert_eq(d->span.line, 9);
  cr_assert_eq(d->span.col, 9);
}

Test(passes, input_is_verified_before_any_pass) {
  const tx_expr *x = var("x");
  tx_buffer *a = buffer("A", BUF_ALLOC);
  const tx_stmt *items[] = {alloc(a, 2), store(a, int32(0), x, 3), bind(x, int32(1), 4)};
  tx_strbuf sb = {0};
  tx_pipeline_options o = {.print_out = &sb, .print_after_all = 1};
  const tx_module *out = NULL;
  cr_assert_eq(tx_run_pipeline(&pc, &o, module_of(seq(items, 3), NULL), &out), TIRX_ERR_INPUT);
  cr_assert_eq(sb.len, 0, "no pass ran");
  tx_sb_free(&sb);
}

/* ---- Verifier: what the frontend can't produce --------------------------------------- */

Test(passes, verify_use_before_def) {
  const tx_expr *x = var("x");
  tx_buffer *a = buffer("A", BUF_ALLOC);
  const tx_stmt *items[] = {alloc(a, 2), store(a, int32(0), x, 3), bind(x, int32(1), 4)};
  cr_assert_eq(tx_verify_module(&pc, module_of(seq(items, 3), NULL), NULL), TIRX_ERR_INPUT);
  cr_assert_str_eq(diag_msg(0), "variable 'x' is used before it is defined");
  cr_assert_eq(tx_diag_at(ctx->diags, 0)->span.line, 3, "located at the statement using it");
}

Test(passes, verify_out_of_scope_use) {
  /* x is bound inside the if's body; the sequence after the if can't see it. */
  const tx_expr *x = var("x");
  tx_buffer *a = buffer("A", BUF_ALLOC);
  const tx_stmt *inner[] = {bind(x, int32(1), 3), store(a, int32(0), x, 4)};
  const tx_expr *cond = tx_int(ir, TX_BOOL, 1, at(2));
  const tx_stmt *body = seq(inner, 2);
  const tx_stmt *items[] = {alloc(a, 1), tx_stmt_new(ir, STMT_IF, &cond, 1, &body, 1, at(2)),
                            store(a, int32(1), x, 5)};
  cr_assert_eq(tx_verify_module(&pc, module_of(seq(items, 3), NULL), NULL), TIRX_ERR_INPUT);
  cr_assert_eq(tx_diag_errors(ctx->diags), 1);
  cr_assert_str_eq(diag_msg(0), "variable 'x' is used outside the scope of its definition");
  cr_assert_eq(tx_diag_at(ctx->diags, 0)->span.line, 5);
}

Test(passes, verify_undeclared_buffer) {
  tx_buffer *a = buffer("A", BUF_ALLOC);
  cr_assert_eq(tx_verify_module(&pc, module_of(store(a, int32(0), int32(1), 3), NULL), NULL),
               TIRX_ERR_INPUT);
  cr_assert_str_eq(diag_msg(0), "buffer 'A' is used but never declared");
  cr_assert_eq(tx_diag_at(ctx->diags, 0)->span.line, 3);
}

Test(passes, verify_buffer_load_after_its_scope) {
  tx_buffer *a = buffer("A", BUF_ALLOC), *b = buffer("B", BUF_ALLOC);
  const tx_expr *idx = int32(0);
  tx_expr *load = tx_expr_new(ir, EXPR_LOAD, TX_INT32, &idx, 1, at(6));
  load->u.buffer = a;
  const tx_stmt *loop_items[] = {alloc(a, 3), store(a, int32(0), int32(1), 4)};
  const tx_stmt *body = seq(loop_items, 2);
  const tx_expr *range[2] = {int32(0), int32(4)};
  tx_stmt *loop = with_vars(tx_stmt_new(ir, STMT_FOR, range, 2, &body, 1, at(2)), var("i"));
  const tx_stmt *items[] = {alloc(b, 1), loop, store(b, int32(0), load, 6)};
  cr_assert_eq(tx_verify_module(&pc, module_of(seq(items, 3), NULL), NULL), TIRX_ERR_INPUT);
  cr_assert_str_eq(diag_msg(0), "buffer 'A' is used outside the scope of its declaration");
  cr_assert_eq(tx_diag_at(ctx->diags, 0)->span.line, 6);
}

Test(passes, verify_scope_id_before_device_entry) {
  const tx_stmt *items[] = {scope_id("cta_id", var("bx"), 8, 2), device_entry(3)};
  cr_assert_eq(tx_verify_module(&pc, module_of(seq(items, 2), NULL), NULL), TIRX_ERR_INPUT);
  cr_assert_str_eq(diag_msg(0), "scope id T.cta_id is used before T.device_entry()");
  cr_assert_eq(tx_diag_at(ctx->diags, 0)->span.line, 2);
}

Test(passes, verify_scope_id_after_device_entry_is_fine) {
  const tx_expr *tx = var("tx");
  tx_buffer *a = buffer("A", BUF_ALLOC);
  const tx_stmt *items[] = {alloc(a, 1), device_entry(2), scope_id("thread_id", tx, 16, 3),
                            store(a, tx, int32(1), 4)};
  cr_assert_eq(tx_verify_module(&pc, module_of(seq(items, 4), NULL), NULL), TIRX_OK);
  cr_assert_eq(tx_diag_count(ctx->diags), 0);
}

Test(passes, verify_flat_launch_thread_opens_device_code) {
  /* TVM's classic kernel: a flat launch outside device code starts the kernel, so the
   * rest of the sequence (here a second launch) is device code. */
  const tx_expr *t = var("t"), *b = var("b");
  const tx_stmt *items[] = {bind(t, launch_thread("threadIdx.x", 128), 2),
                            bind(b, launch_thread("blockIdx.x", 4), 3)};
  cr_assert_eq(tx_verify_module(&pc, module_of(seq(items, 2), NULL), NULL), TIRX_OK);
  /* The same body in a device function (after split-host-device) is fine too. */
  cr_assert_eq(tx_verify_module(&pc, module_of(seq(items, 2), "tirx.kernel"), NULL), TIRX_OK);
}

Test(passes, verify_thread_id_used_on_the_host) {
  /* with T.device_entry(): t = launch_thread(...) ... then t is used after the
   * with-block: out of scope, so reported; a thread var used in host code
   * while in scope needs a flat entry *after* it, which scope ids forbid. */
  const tx_expr *t = var("t");
  tx_buffer *a = buffer("A", BUF_ALLOC);
  const tx_stmt *dev_items[] = {bind(t, launch_thread("threadIdx.x", 32), 3),
                                store(a, t, int32(1), 4)};
  const tx_stmt *dev_body = seq(dev_items, 2);
  tx_stmt *entry = tx_stmt_new(ir, STMT_DEVICE_ENTRY, NULL, 0, &dev_body, 1, at(2));
  entry->flag = 1;
  const tx_stmt *items[] = {alloc(a, 1), entry, store(a, t, int32(2), 5)};
  cr_assert_eq(tx_verify_module(&pc, module_of(seq(items, 3), NULL), NULL), TIRX_ERR_INPUT);
  cr_assert_eq(tx_diag_errors(ctx->diags), 1);
  cr_assert_str_eq(diag_msg(0), "variable 't' is used outside the scope of its definition");
}

Test(passes, verify_inconsistent_launch_extents) {
  const tx_module *m = parse(INCONSISTENT);
  cr_assert_eq(tx_verify_module(&pc, m, NULL), TIRX_ERR_INPUT);
  cr_assert_str_eq(diag_msg(0), "inconsistent launch extents: T.thread_id has extents [256] "
                                "here but [128] before");
  cr_assert_eq(tx_diag_at(ctx->diags, 0)->span.line, 8);
  cr_assert_str_eq(diag_msg(1), "previous definition here");
  cr_assert_eq(tx_diag_at(ctx->diags, 1)->span.line, 6);
}

Test(passes, verify_inconsistent_launch_thread_tags) {
  const tx_stmt *items[] = {bind(var("a"), launch_thread("threadIdx.x", 128), 2),
                            bind(var("b"), launch_thread("threadIdx.x", 64), 3),
                            bind(var("c"), launch_thread("threadIdx.y", 64), 4)};
  cr_assert_eq(tx_verify_module(&pc, module_of(seq(items, 3), "tirx.kernel"), NULL),
               TIRX_ERR_INPUT);
  cr_assert_eq(tx_diag_errors(ctx->diags), 1);
  cr_assert_str_eq(diag_msg(0), "inconsistent launch extents: T.launch_thread(\"threadIdx.x\") "
                                "has extent [64] here but [128] before");
}

Test(passes, verify_break_outside_loop) {
  const tx_stmt *items[] = {tx_stmt_new(ir, STMT_BREAK, NULL, 0, NULL, 0, at(2))};
  cr_assert_eq(tx_verify_module(&pc, module_of(seq(items, 1), NULL), NULL), TIRX_ERR_INPUT);
  cr_assert_str_eq(diag_msg(0), "'break' outside a loop");
  tx_diag_clear(ctx->diags);
  const tx_stmt *brk = tx_stmt_new(ir, STMT_CONTINUE, NULL, 0, NULL, 0, at(3));
  const tx_expr *cond = tx_int(ir, TX_BOOL, 1, at(2));
  const tx_stmt *loop = tx_stmt_new(ir, STMT_WHILE, &cond, 1, &brk, 1, at(2));
  cr_assert_eq(tx_verify_module(&pc, module_of(loop, NULL), NULL), TIRX_OK);
}

Test(passes, verify_var_bound_twice_is_internal) {
  const tx_expr *x = var("x");
  const tx_stmt *items[] = {bind(x, int32(1), 2), bind(x, int32(2), 3)};
  cr_assert_eq(tx_verify_module(&pc, module_of(seq(items, 2), NULL), NULL), TIRX_ERR_INTERNAL);
  cr_assert(tx_diag_has_internal(ctx->diags));
  cr_assert_not_null(strstr(diag_msg(0), "variable 'x' is bound twice"), "%s", diag_msg(0));
}

Test(passes, verify_after_a_pass_blames_the_pass) {
  tx_buffer *a = buffer("A", BUF_ALLOC);
  const tx_module *bad = module_of(store(a, int32(0), int32(1), 3), NULL);
  cr_assert_eq(tx_verify_module(&pc, bad, "flatten-buffer"), TIRX_ERR_INTERNAL);
  cr_assert_eq(tx_diag_errors(ctx->diags), 1);
  cr_assert(strncmp(diag_msg(0), "internal error in flatten-buffer: ", 34) == 0, "%s", diag_msg(0));
  cr_assert_not_null(strstr(diag_msg(0), "buffer 'A' is used but never declared"));
}

Test(passes, verify_let_scopes_over_its_body_only) {
  tx_buffer *a = buffer("A", BUF_ALLOC);
  const tx_expr *x = var("x");
  /* Let x = x + 1 in x: the value may not use the binder. */
  const tx_expr *value = tx_binary(ir, EXPR_ADD, x, int32(1), at(2));
  const tx_expr *ops[2] = {value, x};
  tx_expr *let = tx_expr_new(ir, EXPR_LET, TX_INT32, ops, 2, at(2));
  let->u.binder = x;
  const tx_stmt *items[] = {alloc(a, 1), store(a, int32(0), let, 2)};
  cr_assert_eq(tx_verify_module(&pc, module_of(seq(items, 2), NULL), NULL), TIRX_ERR_INPUT);
  cr_assert_eq(tx_diag_errors(ctx->diags), 1);
  cr_assert_str_eq(diag_msg(0), "variable 'x' is used before it is defined");
}

/* Calls fn on every input NAME.tirx (not NAME.expected.*) directly in dir,
 * in name order; returns how many there were. */
typedef void (*input_fn)(const char *dir, const char *name, void *user);

static int name_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int for_each_input(const char *dir, input_fn fn, void *user) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "cannot open %s", dir);
  char *names[512];
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".tirx") != 0 || strstr(e->d_name, ".expected."))
      continue;
    cr_assert_lt(n, 512, "too many inputs in %s", dir);
    names[n] = strdup(e->d_name);
    cr_assert_not_null(names[n]);
    n++;
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof names[0], name_cmp);
  for (int i = 0; i < n; i++) {
    fn(dir, names[i], user);
    free(names[i]);
  }
  return n;
}

static void verify_input(const char *dir, const char *name, void *user) {
  (void)user;
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  tirx_module *m = NULL;
  cr_assert_eq(tirx_parse_file(ctx, path, &m), TIRX_OK, "%s", path);
  tirx_status st = tx_verify_module(&pc, m->mod, NULL);
  char buf[2048] = "";
  if (st != TIRX_OK) tirx_diag_render(ctx, buf, sizeof buf, NULL);
  cr_assert_eq(st, TIRX_OK, "%s:\n%s", path, buf);
}

Test(passes, verify_accepts_the_golden_corpus) {
  int n = for_each_input(TIRX_SOURCE_DIR "/tests/golden/parse", verify_input, NULL);
  cr_assert(n > 20, "only %d cases", n);
}

/* Inputs of the lowering goldens that the default pipeline rejects with a
 * located error although they have no NAME.expected.err: each is the golden
 * of an earlier stage (or of a pass subset), and a later pass refuses it. */
static const char *const PIPELINE_REJECTS[] = {
    "cuda/module.tirx",                /* host-only function writes A: verify-memory */
    "lower/control_flow_scalars.tirx", /* scalar sugar on the host: verify-memory */
    "lower/functions_symbolic.tirx",   /* m is not determined by the arguments: make-packed-api */
    "passes/lower-tirx/scalar_sugar.tirx", /* scalar sugar on the host: verify-memory */
};

typedef struct corpus_run {
  const char *rel_base; /* prefix stripped from dir to name a case "sub/NAME.tirx" */
  int ok, rejected;
} corpus_run;

static int file_exists(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f) fclose(f);
  return f != NULL;
}

/* The pass an internal error names ("internal error in <pass>: ..."), or
 * "?" when the message has another shape. */
static void blamed_pass(const char *msg, char *out, size_t cap) {
  static const char key[] = "internal error in ";
  const char *p = msg ? strstr(msg, key) : NULL;
  size_t n = 0;
  if (p) {
    p += sizeof key - 1;
    while (p[n] && p[n] != ':' && n + 1 < cap)
      n++;
  }
  if (!n)
    snprintf(out, cap, "?");
  else
    snprintf(out, cap, "%.*s", (int)n, p);
}

/* One input through the default pipeline (sm_90a, -O2) with verify_each: an
 * internal error (a pass left malformed IR, or failed) names the file and the
 * pass; a located error is allowed only for the known rejects above and for
 * cases whose NAME.expected.err says the input is wrong. */
static void pipeline_input(const char *dir, const char *name, void *user) {
  corpus_run *run = user;
  char path[2048], rel[2048], err[2048];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  snprintf(rel, sizeof rel, "%s/%s", dir + strlen(run->rel_base), name);
  snprintf(err, sizeof err, "%.*s.expected.err", (int)(strlen(path) - 5), path);
  tirx_ctx *c = NULL;
  cr_assert_eq(tirx_ctx_create(&c), TIRX_OK);
  tirx_module *m = NULL;
  cr_assert_eq(tirx_parse_file(c, path, &m), TIRX_OK, "%s does not parse", rel);
  tx_pass_ctx lpc = {.ir = &c->ir, .diags = c->diags, .target = &target};
  tx_pipeline_options o = {.verify_each = 1};
  const tx_module *out = NULL;
  tirx_status st = tx_run_pipeline(&lpc, &o, m->mod, &out);
  char text[4096] = "";
  if (st != TIRX_OK) tirx_diag_render(c, text, sizeof text, NULL);
  if (tx_diag_has_internal(c->diags) || st == TIRX_ERR_INTERNAL) {
    char pass[64];
    blamed_pass(text, pass, sizeof pass);
    cr_assert(0, "%s: the default pipeline with --verify-each fails after pass %s:\n%s", rel, pass,
              text);
  }
  if (st == TIRX_OK) {
    run->ok++;
  } else {
    int known = file_exists(err);
    for (size_t i = 0; i < sizeof PIPELINE_REJECTS / sizeof *PIPELINE_REJECTS; i++)
      known |= strcmp(rel, PIPELINE_REJECTS[i]) == 0;
    cr_assert(known, "%s: the default pipeline rejects it (%s):\n%s", rel, tirx_status_name(st),
              text);
    run->rejected++;
  }
  tirx_ctx_destroy(c);
}

/* Every input of the lowering goldens (cuda, lower, lowering, each pass's
 * directory) through the whole default pipeline, checking the IR after every
 * pass: the per-pass goldens run only their own pass, so a later pass that
 * leaves malformed IR for them would go unnoticed. */
Test(passes, verify_each_accepts_the_golden_lowering_corpus) {
  static const char base[] = TIRX_SOURCE_DIR "/tests/golden/";
  corpus_run run = {.rel_base = base};
  static const char *const dirs[] = {"cuda", "lower", "lowering", "limits"};
  char dir[1024];
  for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
    snprintf(dir, sizeof dir, "%s%s", base, dirs[i]);
    cr_assert_gt(for_each_input(dir, pipeline_input, &run), 0, "no inputs in %s", dir);
  }
  snprintf(dir, sizeof dir, "%spasses", base);
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  int npass = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    char sub[1536];
    snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
    struct stat sb;
    if (stat(sub, &sb) != 0 || !S_ISDIR(sb.st_mode)) continue;
    for_each_input(sub, pipeline_input, &run);
    npass++;
  }
  closedir(d);
  cr_assert_geq(npass, TX_PASS_COUNT - 1, "only %d pass directories", npass);
  cr_assert_gt(run.ok, 100, "only %d inputs lowered (%d rejected)", run.ok, run.rejected);
}

/* ---- Compile driver ----------------------------------------------------------------- */

Test(passes, compile_tirx_is_the_canonical_print) {
  tirx_module *m = NULL;
  cr_assert_eq(tirx_parse_string(ctx, "t.tirx", SCALE, strlen(SCALE), &m), TIRX_OK);
  char buf[4096];
  cr_assert_eq(tirx_module_print(m, buf, sizeof buf, NULL), TIRX_OK);
  tx_compile_request req;
  tx_compile_request_init(&req);
  cr_assert_eq(req.emit, TX_EMIT_TIRX);
  cr_assert_str_eq(req.target.arch, "sm_90a");
  cr_assert_eq(req.target.opt_level, 2);
  tx_strbuf out = {0};
  cr_assert_eq(tx_compile_module(ctx, m->mod, &req, NULL, &out), TIRX_OK);
  cr_assert_str_eq(tx_sb_cstr(&out), buf);
  tx_sb_free(&out);
}

Test(passes, compile_lowered_reports_stats_and_errors) {
  tx_compile_request req;
  tx_compile_request_init(&req);
  req.emit = TX_EMIT_LOWERED;
  tx_compile_stats stats = {0};
  tx_strbuf out = {0};
  cr_assert_eq(tx_compile_module(ctx, parse(SCALE), &req, &stats, &out), TIRX_OK);
  cr_assert_not_null(strstr(tx_sb_cstr(&out), "@T.prim_func"));
  for (int i = 0; i < TX_PASS_COUNT; i++)
    cr_assert(stats.pass_ran[i]);
  cr_assert(stats.pass_ms[TX_PASS_COUNT] >= 0);
  tx_sb_free(&out);
  out = (tx_strbuf){0};
  cr_assert_eq(tx_compile_module(ctx, parse(TILE), &req, &stats, &out), TIRX_ERR_INPUT);
  cr_assert_eq(out.len, 0, "nothing is emitted on failure");
  tx_sb_free(&out);
}

/* ---- cse, legalize-bf16-fp8, narrow-datatype ------------------------------------- */

static const char REPEATED[] = "from tvm.script import tirx as T\n"
                               "\n"
                               "@T.prim_func\n"
                               "def f(A: T.Buffer((64,), \"float32\"), n: T.int32):\n"
                               "    T.device_entry(grid=(1, 1, 1), block=(64, 1, 1))\n"
                               "    tx = T.launch_thread(\"threadIdx.x\", 64)\n"
                               "    A[tx * n + 1] = T.float32(1.0)\n"
                               "    A[tx * n + 2] = T.float32(2.0)\n";

Test(passes, cse_runs_from_o2_only) {
  const tx_module *m = parse(REPEATED), *out = NULL;
  target.opt_level = 1;
  cr_assert_eq(tx_pass_cse(&pc, m, &out), TIRX_OK);
  cr_assert_eq(out, m, "-O1 keeps the module");
  target.opt_level = 2;
  cr_assert_eq(tx_pass_cse(&pc, m, &out), TIRX_OK);
  cr_assert_neq(out, m);
  cr_assert_eq(tx_verify_module(&pc, out, "cse"), TIRX_OK);
  const tx_module *again = NULL;
  cr_assert_eq(tx_pass_cse(&pc, out, &again), TIRX_OK);
  cr_assert_eq(again, out, "idempotent");
}

Test(passes, legalize_and_narrow_keep_plain_modules) {
  const tx_module *m = parse(REPEATED), *out = NULL;
  cr_assert_eq(tx_pass_legalize_bf16_fp8(&pc, m, &out), TIRX_OK);
  cr_assert_eq(out, m, "no narrow floats: same module");
  cr_assert_eq(tx_pass_narrow_datatype(&pc, m, &out), TIRX_OK);
  cr_assert_eq(out, m, "no int64: same module");
}

/* ---- buffer size limits (docs/limits.md) ------------------------------------------ */

Test(passes, every_arch_has_its_own_limits_row) {
  char list[256];
  snprintf(list, sizeof list, "%s", tx_target_arch_list());
  int rows = 0;
  for (char *name = strtok(list, " "); name; name = strtok(NULL, " ")) {
    tx_target t = {0};
    cr_assert(tx_target_from_arch(name, &t), "%s", name);
    const tx_target_limits *l = tx_target_limits_of(&t);
    cr_assert_str_eq(l->arch, name, "%s has no row of its own", name);
    cr_assert_eq(l->local_bytes, 512 * 1024, "%s", name);
    int specific = name[strlen(name) - 1] == 'a';
    /* Portable targets: 48 KiB of static __shared__ arrays; arch-specific
     * ones: the whole per-block maximum (ptxas allows it). */
    cr_assert_eq(l->static_shared_bytes, specific ? l->dyn_shared_bytes : 49152, "%s", name);
    rows++;
  }
  cr_assert_eq(rows, 11);
  tx_target t = {0};
  tx_target_from_arch("sm_90a", &t);
  cr_assert_eq(tx_target_limits_of(&t)->dyn_shared_bytes, 232448);
  tx_target_from_arch("sm_100a", &t);
  cr_assert_eq(tx_target_limits_of(&t)->dyn_shared_bytes, 232448);
  tx_target_from_arch("sm_80", &t);
  cr_assert_eq(tx_target_limits_of(&t)->dyn_shared_bytes, 166912);
  tx_target_from_arch("sm_120a", &t);
  cr_assert_eq(tx_target_limits_of(&t)->static_shared_bytes, 101376);
  /* Another spelling of a known sm gets that sm's portable row. */
  const tx_target fam = {"sm_100f", 100, 2, NULL};
  cr_assert_str_eq(tx_target_limits_of(&fam)->arch, "sm_100");
  cr_assert_eq(tx_target_limits_of(&fam)->static_shared_bytes, 49152);
  /* No target, or an unknown one: limits that hold on every row. */
  const tx_target odd = {"sm_75", 75, 2, NULL};
  cr_assert_null(tx_target_limits_of(NULL)->arch);
  cr_assert_eq(tx_target_limits_of(&odd), tx_target_limits_of(NULL));
  cr_assert_eq(tx_target_limits_of(NULL)->static_shared_bytes, 49152);
  cr_assert_eq(tx_target_limits_of(NULL)->dyn_shared_bytes, 101376);
}

/* A kernel `k` whose body (after the device entry) is `body`, through the
 * whole pipeline for `arch`. Returns the status; errors stay in ctx. */
static tirx_status pipeline_body(const char *arch, const char *body) {
  char src[4096];
  snprintf(src, sizeof src,
           "from tvm.script import tirx as T\n"
           "\n"
           "@T.prim_func\n"
           "def k(A: T.Buffer((64,), \"float32\"), n: T.int32):\n"
           "    T.device_entry(grid=1, block=32)\n" /* line 5; body from line 6 */
           "%s",
           body);
  cr_assert(tx_target_from_arch(arch, &target), "%s", arch);
  const tx_module *m = parse(src), *out = NULL;
  tx_pipeline_options o = {.verify_each = 1};
  tirx_status st = tx_run_pipeline(&pc, &o, m, &out);
  cr_assert_not(tx_diag_has_internal(ctx->diags));
  return st;
}

static void expect_fits(const char *arch, const char *body) {
  tirx_status st = pipeline_body(arch, body);
  char buf[2048] = "";
  if (st != TIRX_OK) tirx_diag_render(ctx, buf, sizeof buf, NULL);
  cr_assert_eq(st, TIRX_OK, "%s:\n%s\n%s", arch, body, buf);
}

/* One located error, at `line`, with exactly `msg`. */
static void expect_too_large(const char *arch, const char *body, uint32_t line, const char *msg) {
  cr_assert_eq(pipeline_body(arch, body), TIRX_ERR_INPUT, "%s:\n%s", arch, body);
  cr_assert_eq(tx_diag_errors(ctx->diags), 1);
  cr_assert_str_eq(diag_msg(0), msg);
  cr_assert_eq(tx_diag_at(ctx->diags, 0)->span.line, line);
  tx_diag_clear(ctx->diags);
}

Test(passes, static_shared_memory_at_and_over_the_limit) {
  /* One buffer: 12288 floats are 49152 bytes, sm_90's limit. */
  expect_fits("sm_90", "    S = T.alloc_buffer((12288,), \"float32\", scope=\"shared\")\n"
                       "    S[1] = A[0]\n");
  expect_too_large("sm_90",
                   "    S = T.alloc_buffer((12289,), \"float32\", scope=\"shared\")\n"
                   "    S[1] = A[0]\n",
                   6,
                   "shared buffer 'S' takes 49156 bytes, more than the 49152 bytes (48 KiB) of "
                   "static shared memory a block may have on sm_90 (larger shared buffers need "
                   "scope=\"shared.dyn\")");
  /* The sum of a kernel's static buffers, a decl_buffer with storage too. */
  static const char two_at[] = "    S = T.alloc_buffer((6144,), \"float32\", scope=\"shared\")\n"
                               "    R = T.decl_buffer((6144,), \"float32\", scope=\"shared\")\n"
                               "    S[1] = A[0]\n"
                               "    R[1] = A[1]\n";
  expect_fits("sm_90", two_at);
  expect_too_large("sm_90",
                   "    S = T.alloc_buffer((6144,), \"float32\", scope=\"shared\")\n"
                   "    R = T.decl_buffer((6145,), \"float32\", scope=\"shared\")\n"
                   "    S[1] = A[0]\n"
                   "    R[1] = A[1]\n",
                   7,
                   "with shared buffer 'R' the static shared buffers of 'k' take 49156 bytes, "
                   "more than the 49152 bytes (48 KiB) of static shared memory a block may have "
                   "on sm_90");
  /* Arch-specific targets: the whole 227 KiB, and no more. */
  expect_fits("sm_90a", "    S = T.alloc_buffer((58112,), \"float32\", scope=\"shared\")\n"
                        "    S[1] = A[0]\n");
  expect_too_large("sm_100a",
                   "    S = T.alloc_buffer((58113,), \"float32\", scope=\"shared\")\n"
                   "    S[1] = A[0]\n",
                   6,
                   "shared buffer 'S' takes 232452 bytes, more than the 232448 bytes (227 KiB) of "
                   "static shared memory a block may have on sm_100a");
}

Test(passes, dynamic_shared_memory_at_and_over_the_limit) {
  expect_fits("sm_90a", "    D = T.alloc_buffer((232448,), \"uint8\", scope=\"shared.dyn\")\n"
                        "    D[1] = T.uint8(1)\n");
  expect_too_large("sm_90a",
                   "    D = T.alloc_buffer((232449,), \"uint8\", scope=\"shared.dyn\")\n"
                   "    D[1] = T.uint8(1)\n",
                   6,
                   "with dynamic shared buffer 'D' the shared memory of 'k' takes 232449 bytes, "
                   "more than the 232448 bytes (227 KiB) a block may have on sm_90a");
  /* Static and dynamic share the opt-in limit: sm_80 has 163 KiB. */
  static const char mixed[] = "    S = T.alloc_buffer((4096,), \"float32\", scope=\"shared\")\n"
                              "    D = T.alloc_buffer((%d,), \"uint8\", scope=\"shared.dyn\")\n"
                              "    S[1] = A[0]\n"
                              "    D[1] = T.uint8(1)\n";
  char body[512];
  snprintf(body, sizeof body, mixed, 166912 - 16384);
  expect_fits("sm_80", body);
  snprintf(body, sizeof body, mixed, 166912 - 16384 + 1);
  expect_too_large("sm_80", body, 7,
                   "with dynamic shared buffer 'D' the shared memory of 'k' takes 166913 bytes "
                   "(16384 of them in static shared buffers), more than the 166912 bytes "
                   "(163 KiB) a block may have on sm_80");
  /* A symbolic arena is sized at launch: not checked here. */
  expect_fits("sm_90a", "    D = T.alloc_buffer((n * 1000000,), \"uint8\", scope=\"shared.dyn\")\n"
                        "    D[1] = T.uint8(1)\n");
}

Test(passes, local_memory_at_and_over_the_limit) {
  expect_fits("sm_90a", "    L = T.alloc_buffer((131072,), \"float32\", scope=\"local\")\n"
                        "    L[1] = A[0]\n"
                        "    A[1] = L[1]\n");
  expect_too_large("sm_120",
                   "    L = T.alloc_buffer((65537, 2), \"float32\", scope=\"local\")\n"
                   "    L[1, 1] = A[0]\n"
                   "    A[1] = L[1, 1]\n",
                   6,
                   "local buffer 'L' takes 524296 bytes per thread, more than the 524288 bytes "
                   "(512 KiB) of local memory a thread may have on sm_120");
}

/* The three sizes of the reliability issue: each used to wrap in int32 and
 * compile to a wrong-sized array without a word. */
Test(passes, sizes_that_wrapped_in_int32_are_errors) {
  expect_too_large("sm_90a",
                   "    S = T.alloc_buffer((65536, 65536), \"float32\", scope=\"shared\")\n"
                   "    S[1, 2] = A[0]\n",
                   6,
                   "shared buffer 'S' takes 17179869184 bytes, more than the 232448 bytes "
                   "(227 KiB) of static shared memory a block may have on sm_90a");
  expect_too_large(
      "sm_90a",
      "    S = T.alloc_buffer((2147483647, 2147483647), \"float32\", scope=\"shared\")\n"
      "    S[1, 2] = A[0]\n",
      6, "the size of shared buffer 'S' in bytes does not fit in 64 bits");
  expect_too_large("sm_90a",
                   "    L = T.alloc_buffer((65536, 65537), \"float32\", scope=\"local\")\n"
                   "    L[1, 2] = A[0]\n",
                   6,
                   "local buffer 'L' takes 17180131328 bytes per thread, more than the 524288 "
                   "bytes (512 KiB) of local memory a thread may have on sm_90a");
  expect_too_large("sm_90a",
                   "    G = T.alloc_buffer((T.int64(4294967296), T.int64(4294967296)), \"int8\")\n"
                   "    G[1, 2] = T.int8(0)\n",
                   6, "the element count of buffer 'G' does not fit in 64 bits");
}

/* The first ALLOC statement of f's body. */
static int first_alloc(tx_visitor *v, const tx_stmt *s) {
  if (s->kind == STMT_ALLOC) {
    *(const tx_stmt **)v->user = s;
    v->stop = 1;
  }
  return 1;
}

/* flatten-buffer's extent is the exact element count: int32 when it fits,
 * int64 beyond, never a wrapped int32. */
Test(passes, flat_extents_are_exact_in_64_bits) {
  static const struct {
    const char *shape;
    int64_t extent;
    int bits;
  } cases[] = {
      {"(64, 64)", 4096, 32},
      {"(32768, 65536)", INT64_C(2147483648), 64},
      {"(65536, 65536)", INT64_C(4294967296), 64},
      {"(65536, 65537)", INT64_C(4295032832), 64},
      {"(2147483647, 2147483647)", INT64_C(4611686014132420609), 64},
      {"(T.int64(3), T.int64(5))", 15, 32},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char src[512];
    snprintf(src, sizeof src,
             "from tvm.script import tirx as T\n"
             "\n"
             "@T.prim_func\n"
             "def k(A: T.Buffer((4,), \"float32\")):\n"
             "    T.device_entry(grid=1, block=1)\n"
             "    S = T.alloc_buffer(%s, \"float32\", scope=\"shared\")\n"
             "    S[1, 2] = A[0]\n",
             cases[i].shape);
    const tx_module *m = parse(src), *low = NULL, *flat = NULL;
    cr_assert_eq(tx_pass_lower_tirx(&pc, m, &low), TIRX_OK);
    cr_assert_eq(tx_pass_flatten_buffer(&pc, low, &flat), TIRX_OK);
    const tx_stmt *s = NULL;
    tx_visitor v = {.user = &s, .pre_stmt = first_alloc};
    tx_visit_module(&v, flat);
    cr_assert_not_null(s);
    cr_assert_eq(s->buffer->ndim, 1);
    const tx_expr *ext = s->buffer->shape[0];
    cr_assert_eq(ext->kind, EXPR_INT, "%s", cases[i].shape);
    cr_assert_eq(ext->u.ival, cases[i].extent, "%s: %" PRId64, cases[i].shape, ext->u.ival);
    cr_assert_eq(ext->dtype.bits, cases[i].bits, "%s", cases[i].shape);
  }
}

/* ---- constant folding: undefined operations, IEEE floats ---------------------------- */

static const char FOLDS[] = "from tvm.script import tirx as T\n"
                            "\n"
                            "@T.prim_func\n"
                            "def f(A: T.Buffer((16,), \"int32\"), n: T.int32):\n"
                            "    T.device_entry(grid=1, block=1)\n"
                            "    A[0] = n // (3 - 3)\n"
                            "    A[1] = T.truncmod(n, n - n)\n"
                            "    A[2] = T.shift_right(n, 16 * 2)\n"
                            "    A[3] = n // (3 - 2) + T.shift_right(n, 15 * 2)\n";

/* simplify reports what folding makes undefined, one error per operation,
 * each at its own line; the rest still folds. */
Test(passes, simplify_reports_folded_undefined_operations) {
  const tx_module *m = parse(FOLDS), *out = NULL;
  cr_assert_eq(tx_pass_simplify(&pc, m, &out), TIRX_ERR_INPUT);
  cr_assert_eq(tx_diag_errors(ctx->diags), 3);
  cr_assert_str_eq(diag_msg(0), "integer division by zero: the divisor is the constant 0");
  cr_assert_eq(tx_diag_at(ctx->diags, 0)->span.line, 6);
  cr_assert_str_eq(diag_msg(1), "integer modulo by zero: the divisor is the constant 0");
  cr_assert_eq(tx_diag_at(ctx->diags, 1)->span.line, 7);
  cr_assert_str_eq(diag_msg(2), "shift amount 32 is out of range: it must be in [0, 32) for int32");
  cr_assert_eq(tx_diag_at(ctx->diags, 2)->span.line, 8);
  /* -O0 does not fold, and nothing reaches codegen as `n / 0`: the pipeline
   * at -O2 stops at simplify. */
  tx_diag_clear(ctx->diags);
  tx_pipeline_options o = {0};
  cr_assert_eq(tx_run_pipeline(&pc, &o, m, &out), TIRX_ERR_INPUT);
  cr_assert_eq(tx_diag_errors(ctx->diags), 3);
}

Test(passes, unroll_reports_an_operation_its_literal_makes_undefined) {
  const tx_module *m = parse("from tvm.script import tirx as T\n"
                             "\n"
                             "@T.prim_func\n"
                             "def f(A: T.Buffer((16,), \"int32\")):\n"
                             "    T.device_entry(grid=1, block=1)\n"
                             "    for i in T.unroll(4):\n"
                             "        A[i] = 12 // (i - 2)\n"),
                  *out = NULL;
  cr_assert_eq(tx_pass_unroll_loop(&pc, m, &out), TIRX_ERR_INPUT);
  cr_assert_eq(tx_diag_errors(ctx->diags), 1, "only the copy for i = 2");
  cr_assert_str_eq(diag_msg(0), "integer division by zero: the divisor is the constant 0");
  cr_assert_eq(tx_diag_at(ctx->diags, 0)->span.line, 7);
  target.opt_level = 0;
  cr_assert_eq(tx_pass_unroll_loop(&pc, m, &out), TIRX_OK, "-O0 keeps the loop");
}

/* The float literal of `A[0] = <expr>` after simplify. */
static const tx_expr *folded_float(const char *dtype, const char *expr) {
  char src[512];
  snprintf(src, sizeof src,
           "from tvm.script import tirx as T\n"
           "\n"
           "@T.prim_func\n"
           "def f(A: T.Buffer((4,), \"%s\")):\n"
           "    A[0] = %s\n",
           dtype, expr);
  const tx_module *m = parse(src), *out = NULL;
  cr_assert_eq(tx_pass_simplify(&pc, m, &out), TIRX_OK);
  const tx_stmt *st = out->funcs[0]->body;
  cr_assert_eq(st->kind, STMT_STORE);
  cr_assert_eq(st->exprs[0]->kind, EXPR_FLOAT, "%s did not fold", expr);
  return st->exprs[0];
}

Test(passes, simplify_folds_floats_as_ieee_in_their_type) {
  cr_assert(isnan(folded_float("float32", "T.float32(1e39) - T.float32(1e39)")->u.fval),
            "a float32 1e39 is inf, inf - inf is NaN");
  double inf = folded_float("float32", "T.float32(3e38) * T.float32(10.0)")->u.fval;
  cr_assert(isinf(inf) && inf > 0);
  cr_assert(isnan(folded_float("float32", "T.float32(\"nan\") * T.float32(0.0)")->u.fval));
  cr_assert_eq(folded_float("float32", "T.float32(0.1) + T.float32(0.2)")->u.fval,
               (double)(0.1f + 0.2f));
  cr_assert_eq(folded_float("float32", "T.float32(16777216.0) + T.float32(1.0)")->u.fval,
               16777216.0, "rounded to float32, not kept as the double 16777217");
  cr_assert(isinf(folded_float("float16", "T.float16(60000.0) + T.float16(10000.0)")->u.fval));
  cr_assert_eq(folded_float("float16", "T.float16(1.0) + T.float16(0.0001)")->u.fval, 1.0);
  cr_assert_eq(folded_float("bfloat16", "T.bfloat16(1.0) + T.bfloat16(0.001)")->u.fval, 1.0);
  cr_assert_eq(folded_float("float64", "T.float64(1e39) - T.float64(1e39)")->u.fval, 0.0);
  /* fp8 has no IEEE infinities (e4m3fn saturates to NaN): not folded. */
  const tx_module *m = parse("from tvm.script import tirx as T\n"
                             "\n"
                             "@T.prim_func\n"
                             "def f(A: T.Buffer((4,), \"float8_e4m3fn\")):\n"
                             "    A[0] = T.float8_e4m3fn(448.0) + T.float8_e4m3fn(448.0)\n"),
                  *out = NULL;
  cr_assert_eq(tx_pass_simplify(&pc, m, &out), TIRX_OK);
  cr_assert_eq(out->funcs[0]->body->exprs[0]->kind, EXPR_ADD);
}

/* lower-iket: NVIDIA IKET needs sm_90 or newer (TVM's IsSm90OrNewer), a
 * located error naming the kernel; at sm_90a the same module lowers. */
Test(passes, lower_iket_needs_sm90) {
  static const char src[] = "from tvm.script import tirx as T\n"
                            "from tvm.script import ir as I\n"
                            "@I.ir_module\n"
                            "class Module:\n"
                            "    I.module_attrs({\"tirx.iket.enabled\": True})\n"
                            "    @T.prim_func\n"
                            "    def k(A: T.Buffer((32,), \"float32\")):\n"
                            "        T.device_entry()\n"
                            "        tx = T.thread_id([32])\n"
                            "        T.cuda.iket.mark(\"m\")\n"
                            "        A[tx] = T.float32(0)\n";
  const tx_module *out = NULL;
  cr_assert_eq(tx_run_pipeline(&pc, &(tx_pipeline_options){0}, parse(src), &out), TIRX_OK);
  tx_target sm80;
  cr_assert(tx_target_from_arch("sm_80", &sm80));
  pc.target = &sm80;
  cr_assert_eq(tx_run_pipeline(&pc, &(tx_pipeline_options){0}, parse(src), &out), TIRX_ERR_INPUT);
  cr_expect(strstr(diag_msg(0), "NVIDIA IKET requires SM90 or newer for kernel k_kernel"), "%s",
            diag_msg(0));
  cr_expect_eq(tx_diag_at(ctx->diags, 0)->span.line, 10);
}
