/*
 * test_cse.c - the cse pass (passes/cse.c) beyond its golden files:
 *  - it gives the output of the rescanning algorithm it replaced
 *    (cse_reference.c), on every kernel of tests/golden at the point of the
 *    pipeline where cse runs, and on generated programs built to hit its
 *    corners: repeated and nested subexpressions, equal sizes in one
 *    statement, reused bindings whose value is spelled again (also inside
 *    loops and branches), variables bound after a use, scalar sugar;
 *  - its work grows linearly: tx_cse_probe.work, a count of the nodes it
 *    scans, hashes, orders and rewrites, is measured at N and 4N statements
 *    for flat blocks, nested blocks and the reused-binding pattern that
 *    makes it rescan (no clock is read);
 *  - rescans stop at their budget and the result still verifies;
 *  - out of memory at each of its own allocations gives TIRX_ERR_NOMEM,
 *    never an internal error, and (under LeakSanitizer) no leak.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/context.h"
#include "ir/printer.h"
#include "support/strbuf.h"
#include "driver/compile.h"
#include "passes/cse.h"
#include "passes/pass.h"
#include "tirx/tirx.h"

tirx_status tx_pass_cse_reference(tx_pass_ctx *pc, const tx_module *in, const tx_module **out);

static tirx_ctx *ctx;
static tx_pass_ctx pc;
static tx_target target;

static void setup(void) {
  cr_assert_eq(tirx_ctx_create(&ctx), TIRX_OK);
  tx_target_from_arch("sm_90a", &target);
  target.opt_level = 2;
  pc = (tx_pass_ctx){.ir = &ctx->ir, .diags = ctx->diags, .target = &target};
}

static void teardown(void) {
  tirx_ctx_destroy(ctx);
}

TestSuite(cse, .init = setup, .fini = teardown);

static const tx_module *parse(const char *src) {
  tirx_module *m = NULL;
  tirx_status st = tirx_parse_string(ctx, "t.tirx", src, strlen(src), &m);
  cr_assert_eq(st, TIRX_OK, "parse failed (%s) on:\n%s", tirx_status_name(st), src);
  return m->mod;
}

static char *print(const tx_module *m) {
  tx_strbuf sb = {0};
  tx_print_module(m, &sb);
  cr_assert(!sb.failed);
  return sb.data;
}

/* The module as the pipeline hands it to cse (every pass before it). */
static const tx_module *before_cse(const tx_module *m) {
  tx_pipeline_options opts = {0};
  for (int i = PASS_CSE; i < TX_PASS_COUNT; i++)
    opts.disabled[i] = 1;
  const tx_module *out = NULL;
  cr_assert_eq(tx_run_pipeline(&pc, &opts, m, &out), TIRX_OK);
  return out;
}

/* cse and the reference agree on m; returns what cse made. */
static const tx_module *same_as_reference(const tx_module *m, const char *what,
                                          tx_cse_probe *probe) {
  const tx_module *ref = NULL, *got = NULL;
  cr_assert_eq(tx_pass_cse_reference(&pc, m, &ref), TIRX_OK);
  cr_assert_eq(tx_cse_run(&pc, m, &got, probe), TIRX_OK, "%s", what);
  char *a = print(ref), *b = print(got);
  if (strcmp(a, b) != 0) {
    char *in = print(m);
    cr_assert_fail(
        "cse differs from the reference on %s\n--- input\n%s--- reference\n%s--- cse\n%s", what, in,
        a, b);
  }
  cr_assert_eq(ref == m, got == m, "%s: both keep the module or neither", what);
  cr_assert_eq(tx_verify_module(&pc, got, "cse"), TIRX_OK, "%s", what);
  free(a);
  free(b);
  return got;
}

/* ---- the golden kernels ------------------------------------------------------------- */

static int is_input(const char *name) {
  size_t n = strlen(name);
  return n > 5 && strcmp(name + n - 5, ".tirx") == 0 && !strstr(name, ".expected.");
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
  s[n] = 0;
  fclose(f);
  return s;
}

/* Every input of `dir` that parses and lowers up to cse; returns the count. */
static int golden_dir(const char *dir) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "cannot open %s", dir);
  int count = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (!is_input(e->d_name)) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *src = slurp(path);
    tirx_module *m = NULL;
    if (tirx_parse_string(ctx, path, src, strlen(src), &m) == TIRX_OK) {
      same_as_reference(m->mod, path, NULL);
      tx_pipeline_options opts = {0};
      for (int i = PASS_CSE; i < TX_PASS_COUNT; i++)
        opts.disabled[i] = 1;
      const tx_module *low = NULL;
      if (tx_run_pipeline(&pc, &opts, m->mod, &low) == TIRX_OK) {
        same_as_reference(low, path, NULL);
        count++;
      }
    }
    free(src);
  }
  closedir(d);
  return count;
}

Test(cse, golden_kernels_match_the_reference, .timeout = 120) {
  static const char *const dirs[] = {
      "lowering", "cuda", "lower", "parse", "passes/cse", "passes/simplify", "passes/unroll-loop"};
  int total = 0;
  for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/golden/%s", TIRX_SOURCE_DIR, dirs[i]);
    total += golden_dir(dir);
  }
  cr_assert_gt(total, 60, "only %d golden kernels lowered", total);
}

/* ---- generated programs ------------------------------------------------------------ */

typedef struct rng {
  uint64_t s;
} rng;

static uint32_t rnd(rng *r, uint32_t n) {
  r->s ^= r->s << 13;
  r->s ^= r->s >> 7;
  r->s ^= r->s << 17;
  return (uint32_t)(r->s % n);
}

enum { MAX_VARS = 64, MAX_POOL = 256 };

/* A program being written: the variables in scope (bit i: vars[i]) and a
 * pool of expressions already written, to be written again. */
typedef struct gen {
  rng r;
  tx_strbuf out;
  char vars[MAX_VARS][8];
  char *value[MAX_VARS]; /* what a binding's variable was bound to */
  uint64_t value_vars[MAX_VARS];
  uint32_t nvars;
  uint64_t scope;
  char *pool[MAX_POOL];
  uint64_t pool_vars[MAX_POOL];
  uint32_t npool;
  int reuse_pct; /* how often an expression is taken from the pool */
} gen;

static uint32_t new_var(gen *g, char prefix) {
  if (g->nvars == MAX_VARS) return MAX_VARS;
  snprintf(g->vars[g->nvars], sizeof g->vars[0], "%c%u", prefix, g->nvars);
  return g->nvars++;
}

static void remember(gen *g, const char *s, uint64_t vars) {
  if (g->npool == MAX_POOL) {
    uint32_t i = rnd(&g->r, MAX_POOL);
    free(g->pool[i]);
    g->pool[i] = strdup(s);
    g->pool_vars[i] = vars;
    return;
  }
  g->pool[g->npool] = strdup(s);
  g->pool_vars[g->npool++] = vars;
}

/* An int32 expression over the variables in scope; *vars gets those it reads. */
static void expr(gen *g, tx_strbuf *o, int depth, uint64_t *vars) {
  if (g->npool && (int)rnd(&g->r, 100) < g->reuse_pct) {
    uint32_t i = rnd(&g->r, g->npool);
    if ((g->pool_vars[i] & ~g->scope) == 0) {
      tx_sb_puts(o, g->pool[i]);
      *vars |= g->pool_vars[i];
      return;
    }
  }
  if (depth == 0 || rnd(&g->r, 4) == 0) {
    uint32_t in_scope[MAX_VARS], n = 0;
    for (uint32_t i = 0; i < g->nvars; i++)
      if ((g->scope >> i) & 1) in_scope[n++] = i;
    if (!n || rnd(&g->r, 4) == 0) {
      tx_sb_printf(o, "%u", rnd(&g->r, 4) + 1);
      return;
    }
    uint32_t k = in_scope[rnd(&g->r, n)];
    if (g->value[k] && rnd(&g->r, 3) == 0) { /* the bound value, spelled out */
      tx_sb_puts(o, g->value[k]);
      *vars |= g->value_vars[k];
    } else {
      tx_sb_puts(o, g->vars[k]);
      *vars |= 1ull << k;
    }
    return;
  }
  tx_strbuf sub = {0};
  uint64_t v = 0;
  static const char *const ops[] = {" + ", " - ", " * ", " // ", " % "};
  uint32_t k = rnd(&g->r, 8);
  if (k < 5) {
    tx_sb_putc(&sub, '(');
    expr(g, &sub, depth - 1, &v);
    tx_sb_puts(&sub, ops[k]);
    if (k >= 3)
      tx_sb_printf(&sub, "%u", rnd(&g->r, 4) + 1); /* never divide by zero */
    else
      expr(g, &sub, depth - 1, &v);
    tx_sb_putc(&sub, ')');
  } else if (k == 5) {
    tx_sb_puts(&sub, rnd(&g->r, 2) ? "T.min(" : "T.max(");
    expr(g, &sub, depth - 1, &v);
    tx_sb_puts(&sub, ", ");
    expr(g, &sub, depth - 1, &v);
    tx_sb_putc(&sub, ')');
  } else if (k == 6) {
    tx_sb_puts(&sub, rnd(&g->r, 2) ? "T.Select(" : "T.if_then_else(");
    expr(g, &sub, depth - 1, &v);
    tx_sb_puts(&sub, " < ");
    expr(g, &sub, depth - 1, &v);
    tx_sb_puts(&sub, ", ");
    expr(g, &sub, depth - 1, &v);
    tx_sb_puts(&sub, ", ");
    expr(g, &sub, depth - 1, &v);
    tx_sb_putc(&sub, ')');
  } else {
    tx_sb_puts(&sub, "T.Cast(\"int32\", T.Cast(\"int64\", ");
    expr(g, &sub, depth - 1, &v);
    tx_sb_puts(&sub, ") + T.int64(1))");
  }
  tx_sb_puts(o, sub.data);
  remember(g, sub.data, v);
  *vars |= v;
  tx_sb_free(&sub);
}

static void indent(gen *g, int level) {
  for (int i = 0; i < level; i++)
    tx_sb_puts(&g->out, "    ");
}

static void line_expr(gen *g, int depth) {
  uint64_t v = 0;
  expr(g, &g->out, depth, &v);
}

static void block(gen *g, int level, int nstmts, int nest);

static void stmt(gen *g, int level, int nest) {
  uint32_t k = rnd(&g->r, nest > 0 ? 10 : 7);
  indent(g, level);
  if (k <= 2) { /* a store */
    tx_sb_puts(&g->out, rnd(&g->r, 4) ? "A[" : "B[");
    line_expr(g, 2);
    tx_sb_puts(&g->out, "] = ");
    line_expr(g, 3);
    tx_sb_putc(&g->out, '\n');
  } else if (k <= 5) { /* a binding, sometimes of an expression written before */
    uint32_t v = new_var(g, 'v');
    if (v == MAX_VARS) {
      tx_sb_puts(&g->out, "A[0] = 0\n");
      return;
    }
    tx_sb_printf(&g->out, "%s = ", g->vars[v]);
    tx_strbuf val = {0};
    uint64_t vv = 0;
    expr(g, &val, 3, &vv);
    tx_sb_printf(&g->out, "%s\n", val.data);
    g->value[v] = val.data;
    g->value_vars[v] = vv;
    g->scope |= 1ull << v;
  } else if (k == 6) { /* scalar sugar: a mutable, impure variable */
    uint32_t v = new_var(g, 's');
    if (v == MAX_VARS) {
      tx_sb_puts(&g->out, "A[1] = 1\n");
      return;
    }
    tx_sb_printf(&g->out, "%s: T.int32 = ", g->vars[v]);
    line_expr(g, 2);
    tx_sb_putc(&g->out, '\n');
    g->scope |= 1ull << v;
  } else if (k <= 8) { /* a loop: its body is a block of its own */
    uint32_t v = new_var(g, 'i');
    if (v == MAX_VARS) {
      tx_sb_puts(&g->out, "A[2] = 2\n");
      return;
    }
    tx_sb_printf(&g->out, "for %s in range(", g->vars[v]);
    line_expr(g, 1);
    tx_sb_puts(&g->out, "):\n");
    uint64_t saved = g->scope;
    g->scope |= 1ull << v;
    block(g, level + 1, 1 + (int)rnd(&g->r, 4), nest - 1);
    g->scope = saved;
  } else { /* a branch */
    tx_sb_puts(&g->out, "if ");
    line_expr(g, 2);
    tx_sb_puts(&g->out, " < ");
    line_expr(g, 2);
    tx_sb_puts(&g->out, ":\n");
    uint64_t saved = g->scope;
    block(g, level + 1, 1 + (int)rnd(&g->r, 3), nest - 1);
    g->scope = saved;
    if (rnd(&g->r, 2)) {
      indent(g, level);
      tx_sb_puts(&g->out, "else:\n");
      block(g, level + 1, 1 + (int)rnd(&g->r, 3), nest - 1);
      g->scope = saved;
    }
  }
}

static void block(gen *g, int level, int nstmts, int nest) {
  for (int i = 0; i < nstmts; i++)
    stmt(g, level, nest);
}

static char *program(uint64_t seed, int nstmts, int nest, int reuse_pct) {
  gen g = {.r = {seed * 0x9e3779b97f4a7c15ull + 1}, .reuse_pct = reuse_pct};
  tx_sb_puts(&g.out, "from tvm.script import tirx as T\n\n@T.prim_func\n"
                     "def f(A: T.Buffer((64,), \"int32\"), B: T.Buffer((64,), \"int32\"), "
                     "n: T.int32, m: T.int32):\n"
                     "    T.device_entry(grid=(1, 1, 1), block=(64, 1, 1))\n"
                     "    tx = T.launch_thread(\"threadIdx.x\", 64)\n");
  static const char *const fixed[] = {"tx", "n", "m"};
  for (int i = 0; i < 3; i++) {
    uint32_t v = new_var(&g, 'x');
    snprintf(g.vars[v], sizeof g.vars[v], "%s", fixed[i]);
    g.scope |= 1ull << v;
  }
  block(&g, 1, nstmts, nest);
  for (uint32_t i = 0; i < g.npool; i++)
    free(g.pool[i]);
  for (uint32_t i = 0; i < g.nvars; i++)
    free(g.value[i]);
  return g.out.data;
}

/* CSE_SEEDS=N runs N programs instead of 400 (for a longer search). */
Test(cse, generated_programs_match_the_reference, .timeout = 120) {
  const char *env = getenv("CSE_SEEDS");
  uint64_t seeds = env ? strtoull(env, NULL, 10) : 400;
  for (uint64_t seed = 1; seed <= seeds; seed++) {
    char *src = program(seed, 4 + (int)(seed % 29), (int)(seed % 4), 20 + (int)(seed % 5) * 15);
    const tx_module *m = parse(src);
    char what[64];
    snprintf(what, sizeof what, "generated program %llu", (unsigned long long)seed);
    same_as_reference(m, what, NULL);
    same_as_reference(before_cse(m), what, NULL);
    free(src);
  }
}

/* ---- work grows linearly -------------------------------------------------------------- */

typedef enum shape {
  FLAT,    /* A[(tx * n + k) % 64] = B[(tx * n + k) % 64]: one class of its own per statement */
  NESTED,  /* the same value bound, spelled again in a loop body and in `v + 1` twice: rescans */
  MERGING, /* `v = e` with `e + 1` and `v + 1`: equal only after the rewrite, a rescan each */
} shape;

/* A kernel with n groups of statements of that shape in its device block. */
static char *kernel(shape s, int n) {
  tx_strbuf o = {0};
  tx_sb_puts(&o, "from tvm.script import tirx as T\n\n@T.prim_func\n"
                 "def f(A: T.Buffer((64,), \"int32\"), B: T.Buffer((64,), \"int32\"), "
                 "n: T.int32):\n"
                 "    T.device_entry(grid=(1, 1, 1), block=(64, 1, 1))\n"
                 "    tx = T.launch_thread(\"threadIdx.x\", 64)\n");
  for (int k = 0; k < n; k++)
    switch (s) {
    case FLAT:
      tx_sb_printf(&o, "    A[(tx * n + %d) %% 64] = B[(tx * n + %d) %% 64] * 2\n", k, k);
      break;
    case NESTED:
      tx_sb_printf(&o,
                   "    v%d = tx * n + %d\n"
                   "    for i%d in range(2):\n"
                   "        A[(tx * n + %d) * i%d] = i%d\n"
                   "    A[v%d + 1] = B[v%d + 1]\n"
                   "    B[(tx * n + %d) %% 64] = 0\n",
                   k, k, k, k, k, k, k, k, k);
      break;
    case MERGING:
      tx_sb_printf(&o,
                   "    v%d = tx * n + %d\n"
                   "    A[(tx * n + %d) %% 64] = (tx * n + %d) * 3\n"
                   "    B[v%d * 3] = v%d\n",
                   k, k, k, k, k, k);
      break;
    }
  return o.data;
}

static tx_cse_probe probe_of(shape s, int n) {
  char *src = kernel(s, n);
  const tx_module *m = before_cse(parse(src)), *out = NULL;
  tx_cse_probe p = {0};
  cr_assert_eq(tx_cse_run(&pc, m, &out, &p), TIRX_OK);
  cr_assert_eq(tx_verify_module(&pc, out, "cse"), TIRX_OK);
  free(src);
  return p;
}

/* Quadratic work would give about 16 times as much for 4 times the
 * statements; linear 4, n log n a little more. */
static void grows_linearly(shape s, int n) {
  tx_cse_probe small = probe_of(s, n), big = probe_of(s, 4 * n);
  double ratio = (double)big.work / (double)small.work;
  cr_assert_gt(small.hoisted, (uint32_t)n - 1, "%u bindings for %d groups", small.hoisted, n);
  cr_assert_gt(big.hoisted, (uint32_t)(4 * n) - 1);
  cr_assert_lt(ratio, 5.5, "work %llu for %d groups, %llu for %d: ratio %.2f",
               (unsigned long long)small.work, n, (unsigned long long)big.work, 4 * n, ratio);
}

Test(cse, work_is_linear_in_a_flat_block, .timeout = 120) {
  grows_linearly(FLAT, 2000);
}

Test(cse, work_is_linear_with_nested_code_and_rescans, .timeout = 120) {
  grows_linearly(NESTED, 1000);
}

Test(cse, work_is_linear_when_reused_bindings_merge_classes, .timeout = 120) {
  grows_linearly(MERGING, 1000);
}

/* ---- the rescan budget ---------------------------------------------------------------- */

/* Few groups: every rescan is made, and the result is the reference's. */
Test(cse, merges_within_the_budget_match_the_reference) {
  char *src = kernel(MERGING, 40);
  tx_cse_probe p = {0};
  const tx_module *m = before_cse(parse(src));
  same_as_reference(m, "40 merging groups", &p);
  cr_assert_geq(p.rescans, 40, "one rescan per group, got %u", p.rescans);
  cr_assert_eq(p.refused, 0);
  free(src);
}

/* Many groups: the budget stops the rescans. The block still verifies and
 * the kernel compiles to CUDA; a group past the budget keeps `v * 3` twice
 * (the rewrite to v was made, the binding of what it made equal was not). */
Test(cse, rescans_stop_at_the_budget_and_the_kernel_still_compiles, .timeout = 120) {
  char *src = kernel(MERGING, 2000);
  const tx_module *m = parse(src), *out = NULL;
  tx_cse_probe p = {0};
  cr_assert_eq(tx_cse_run(&pc, before_cse(m), &out, &p), TIRX_OK);
  cr_assert_gt(p.refused, 0);
  cr_assert_lt(p.rescans, 100);
  cr_assert_eq(tx_verify_module(&pc, out, "cse"), TIRX_OK);
  char *text = print(out);
  cr_assert_not_null(strstr(text, "    B[cse_v"), "early groups were rescanned:\n%.2000s", text);
  cr_assert_not_null(strstr(text, "    A[v1999 % 64] = v1999 * 3\n    B[v1999 * 3] = v1999\n"),
                     "the last group is left as rewritten");
  free(text);
  tx_compile_request req;
  tx_compile_request_init(&req);
  req.emit = TX_EMIT_CUDA;
  tx_strbuf cuda = {0};
  cr_assert_eq(tx_compile_module(ctx, m, &req, NULL, &cuda), TIRX_OK);
  cr_assert_not_null(strstr(cuda.data, "__global__"));
  tx_sb_free(&cuda);
  free(src);
}

/* ---- out of memory ---------------------------------------------------------------------- */

/* Each of the pass's own allocations failing in turn: TIRX_ERR_NOMEM, the
 * input kept, no internal error (and, under LeakSanitizer, no leak: a
 * statement's operand copies were once leaked when the second failed). */
static void fails_cleanly(const char *src) {
  const tx_module *m = before_cse(parse(src)), *out = NULL;
  tx_cse_probe all = {0};
  cr_assert_eq(tx_cse_run(&pc, m, &out, &all), TIRX_OK);
  cr_assert_neq(out, m, "the case must rewrite something");
  cr_assert_gt(all.allocs, 5);
  for (uint64_t k = 1; k <= all.allocs; k++) {
    tx_cse_probe p = {.fail_alloc_at = k};
    tirx_status st = tx_cse_run(&pc, m, &out, &p);
    cr_assert_eq(st, TIRX_ERR_NOMEM, "allocation %llu of %llu failed: %s", (unsigned long long)k,
                 (unsigned long long)all.allocs, tirx_status_name(st));
    cr_assert_eq(out, m);
  }
}

Test(cse, out_of_memory_at_each_allocation_is_reported, .timeout = 120) {
  char *a = kernel(NESTED, 6), *b = kernel(MERGING, 6),
       *c = program(862, 4 + 862 % 29, 862 % 4, 50);
  fails_cleanly(a);
  fails_cleanly(b);
  fails_cleanly(c);
  free(a);
  free(b);
  free(c);
}
