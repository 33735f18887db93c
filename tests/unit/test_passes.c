/*
 * test_passes.c - the pass manager (passes/pipeline.c), the well-formedness
 * verifier (passes/verify.c) and the compile driver (passes/compile.c).
 *
 * Malformed IR that the frontend refuses to build (use before definition, an
 * undeclared buffer, a scope id before T.device_entry(), a variable bound
 * twice) is built here by hand with the IR constructors. The assertions hold
 * for the real passes as well as for the temporary placeholders.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ir/context.h"
#include "ir/visit.h"
#include "passes/compile.h"
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

/* T.tile.copy on line 8, column 5. */
static const char TILE[] =
    "from tvm.script import tirx as T\n"
    "\n"
    "@T.prim_func\n"
    "def f(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([32])\n"
    "    T.tile.copy(B[0:64], A[0:64])\n";

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
  cr_assert_str_eq(tx_target_arch_for_cc(9, 0), "sm_90a");
  cr_assert_str_eq(tx_target_arch_for_cc(8, 6), "sm_86");
  cr_assert_null(tx_target_arch_for_cc(7, 5));
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

Test(passes, surviving_tile_op_is_a_located_error) {
  const tx_module *m = parse(TILE), *out = NULL;
  tx_pipeline_options o = {0};
  cr_assert_eq(tx_run_pipeline(&pc, &o, m, &out), TIRX_ERR_INPUT);
  cr_assert_null(out);
  cr_assert_eq(tx_diag_errors(ctx->diags), 1);
  cr_assert_str_eq(diag_msg(0), "tile primitive T.tile.copy is not lowered yet (tile-primitive "
                                "dispatch is not implemented)");
  const tirx_diagnostic *d = tx_diag_at(ctx->diags, 0);
  cr_assert_eq(d->span.line, 8);
  cr_assert_eq(d->span.col, 5);
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

Test(passes, verify_launch_thread_needs_device_code) {
  const tx_expr *t = var("t");
  const tx_stmt *items[] = {bind(t, launch_thread("threadIdx.x", 128), 2)};
  cr_assert_eq(tx_verify_module(&pc, module_of(seq(items, 1), NULL), NULL), TIRX_ERR_INPUT);
  cr_assert_str_eq(diag_msg(0), "T.launch_thread is used outside device code");
  tx_diag_clear(ctx->diags);
  /* The same body in a device function (after split-host-device) is fine. */
  cr_assert_eq(tx_verify_module(&pc, module_of(seq(items, 1), "tirx.kernel"), NULL), TIRX_OK);
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
  static const char *const dirs[] = {"cuda", "lower", "lowering"};
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
