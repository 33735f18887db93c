/*
 * test_codegen.c - split-host-device and CUDA code generation.
 *
 * Golden tests: each tests/golden/cuda/NAME.tirx (hand-written lowered form,
 * docs/lowering.md) is parsed, split and compiled to CUDA C; the split
 * module must print as NAME.expected.split.tirx and the CUDA C must equal
 * NAME.expected.cu. TIRX_UPDATE_GOLDEN=1 rewrites the expectations instead.
 * tests/cuda/nvcc_check.sh compiles every NAME.expected.cu with nvcc.
 *
 * Also: the exact floor division helpers on negative operands (compiled
 * here as host C from the same macros codegen stringifies), the line map,
 * and located errors for what codegen does not support.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/cuda/codegen.h"
#include "target/cuda/cuda_call.h"
#include "target/cuda/cuda_internal.h"
#include "cuda_harness.h"
#include "driver/context.h"
#include "ir/printer.h"
#include "driver/compile.h"

#define GOLDEN_DIR TIRX_SOURCE_DIR "/tests/golden/cuda"

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (!buf) {
    fclose(f);
    return NULL;
  }
  size_t got = fread(buf, 1, (size_t)n, f);
  fclose(f);
  buf[got] = 0;
  if (len) *len = got;
  return buf;
}

static void spit(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  cr_assert(f, "cannot write %s", path);
  fwrite(text, 1, len, f);
  fclose(f);
}

static const tx_target SM90 = {"sm_90a", 90, 2, NULL};

static void compile_text(cuda_compiled *c, const char *name, const char *text, size_t len) {
  cuda_compile_text(c, &SM90, name, text, len);
}

/* A golden whose instructions exist on some archs only names them in a line
 * `# ptxas-archs: sm_100a` (tests/cuda/ptxas_check.sh): it is generated for
 * the first one. Others are generated for sm_90a. */
static tx_target golden_target(const char *text) {
  tx_target t = SM90;
  const char *m = strstr(text, "# ptxas-archs: ");
  if (m) {
    char arch[16] = {0};
    sscanf(m + strlen("# ptxas-archs: "), "%15s", arch);
    cr_assert(tx_target_from_arch(arch, &t), "unknown arch '%s' in the ptxas-archs line", arch);
    t.opt_level = SM90.opt_level;
  }
  return t;
}

static int update_mode(void) {
  const char *u = getenv("TIRX_UPDATE_GOLDEN");
  return u && strcmp(u, "1") == 0;
}

static void check_golden(const char *path, const char *got, size_t len) {
  if (update_mode()) {
    spit(path, got, len);
    return;
  }
  size_t elen = 0;
  char *exp = slurp(path, &elen);
  cr_assert(exp, "missing %s (run with TIRX_UPDATE_GOLDEN=1)", path);
  cr_expect(elen == len && memcmp(exp, got, len) == 0, "%s differs; got:\n%.*s", path, (int)len,
            got);
  free(exp);
}

static void run_golden(const char *name) {
  char in[512], out[512];
  snprintf(in, sizeof in, "%s/%s.tirx", GOLDEN_DIR, name);
  size_t len = 0;
  char *text = slurp(in, &len);
  cr_assert(text, "cannot read %s", in);
  tx_target target = golden_target(text);
  cuda_compiled c;
  cuda_compile_text(&c, &target, in, text, len);
  cr_assert_eq(c.parse, TIRX_OK, "%s", c.diags);
  cr_assert_eq(c.split, TIRX_OK, "%s", c.diags);
  cr_assert_eq(c.codegen, TIRX_OK, "%s", c.diags);
  /* One line-map entry per generated line. */
  size_t lines = 0;
  for (size_t i = 0; i < c.cu.len; i++)
    lines += c.cu.data[i] == '\n';
  cr_expect_eq(c.map.len, lines, "line map has %zu entries for %zu lines", c.map.len, lines);

  tx_strbuf split = {0};
  tx_print_module(c.lowered, &split);
  snprintf(out, sizeof out, "%s/%s.expected.split.tirx", GOLDEN_DIR, name);
  check_golden(out, split.data ? split.data : "", split.len);
  snprintf(out, sizeof out, "%s/%s.expected.cu", GOLDEN_DIR, name);
  check_golden(out, c.cu.data ? c.cu.data : "", c.cu.len);
  /* Deterministic: a second run gives the same text. */
  cuda_compiled again;
  cuda_compile_text(&again, &target, in, text, len);
  cr_expect(again.cu.len == c.cu.len && memcmp(again.cu.data, c.cu.data, c.cu.len) == 0);
  cuda_compiled_free(&again);
  tx_sb_free(&split);
  cuda_compiled_free(&c);
  free(text);
}

/* One golden case per kernel in tests/golden/cuda (checked below). */
// clang-format off
#define GOLDEN_CASES(X) \
  X(scale) X(scale_dyn) X(scale_grid) X(scal) X(smem_demo) X(dyn_arena) X(block_sum) \
  X(warp_reduce) X(dtypes) X(func_call) X(launch_bounds) X(kernel_name) X(unroll) X(control) X(floordiv) \
  X(cluster) X(module) X(lowp) X(host_prelude) X(vector) X(vector_select) X(vector_half) X(regs) X(raw_ptx) \
  X(tcgen05) X(tcgen05_forms) X(cp_async) X(bulk) X(tma) X(tma_host) X(vec_bool) X(vec_half) X(vec_strided) X(mma) X(wgmma) \
  X(ptx_memory) X(ptx_memory_sm100) X(ptx_chain) X(warp_allreduce) X(ldg) X(ptx_chain_sm100) X(tma_raw) \
  X(cluster_binding) X(ptr_bind) X(mapa_ptr) X(float_special) X(ptx_printed) X(ptx_printed_sm100) \
  X(access_ptr) X(ptx_legacy) X(cuda_builtins) X(iket) X(iket_strip) X(tcgen05_desc_sm90) \
  X(mma_sp) X(bare_element_args) X(ptx_ld_u8) X(uint128_b128_store) X(two_kernels) \
  X(subbyte_s4) X(subbyte_b1) X(print_buffer) X(vec_align) X(vec_wide_sm100)
// clang-format on

#define X(name)                                                                                    \
  Test(cuda_golden, name) {                                                                        \
    run_golden(#name);                                                                             \
  }
GOLDEN_CASES(X)
#undef X

/* Every input in the directory has a test above. */
Test(cuda_golden, all_inputs_listed) {
  static const char *const listed[] = {
#define X(name) #name,
      GOLDEN_CASES(X)
#undef X
  };
  DIR *d = opendir(GOLDEN_DIR);
  cr_assert(d);
  struct dirent *ent;
  while ((ent = readdir(d))) {
    size_t n = strlen(ent->d_name);
    if (n < 6 || strcmp(ent->d_name + n - 5, ".tirx") != 0 || strstr(ent->d_name, ".expected."))
      continue;
    int found = 0;
    for (size_t i = 0; i < sizeof listed / sizeof *listed; i++)
      if (strlen(listed[i]) == n - 5 && strncmp(listed[i], ent->d_name, n - 5) == 0) found = 1;
    cr_expect(found, "%s has no test in GOLDEN_CASES", ent->d_name);
  }
  closedir(d);
}

/* ---- floor division semantics ---------------------------------------------- */

TX_CUDA_FLOORDIV(static, int, fdiv32)
TX_CUDA_FLOORMOD(static, int, fmod32)
TX_CUDA_FLOORDIV(static, long long, fdiv64)
TX_CUDA_FLOORMOD(static, long long, fmod64)

static long long ref_floordiv(long long a, long long b) {
  long long q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

Test(floor_helpers, match_python_semantics) {
  for (int a = -50; a <= 50; a++)
    for (int b = -9; b <= 9; b++) {
      if (b == 0) continue;
      long long q = ref_floordiv(a, b), r = a - q * b;
      cr_assert_eq(fdiv32(a, b), q, "%d // %d", a, b);
      cr_assert_eq(fmod32(a, b), r, "%d %% %d", a, b);
      cr_assert_eq(fdiv64(a * 1000000007LL, b), ref_floordiv(a * 1000000007LL, b));
      cr_assert_eq(fmod64(a * 1000000007LL, b),
                   a * 1000000007LL - ref_floordiv(a * 1000000007LL, b) * b);
      /* the result of floormod has the sign of the divisor */
      cr_assert(r == 0 || (r < 0) == (b < 0));
    }
  cr_assert_eq(fdiv32(-7, 2), -4);
  cr_assert_eq(fmod32(-7, 2), 1);
  cr_assert_eq(fdiv32(7, -2), -4);
  cr_assert_eq(fmod32(7, -2), -1);
}

Test(floor_helpers, emitted_text_is_the_tested_text) {
  const char *s = TX_CUDA_STR(TX_CUDA_FLOORDIV(__device__ __forceinline__, int, tx_floordiv_i32));
  cr_assert(strstr(s, "__device__ __forceinline__ int tx_floordiv_i32(int a, int b)"), "%s", s);
}

/* ---- split-host-device details ------------------------------------------------ */

static const char *const SRC_SCALE = "# from tvm.script import tirx as T\n\n"
                                     "@T.prim_func\n"
                                     "def f(A: T.Buffer((256,), \"float32\"), B: T.Buffer((256,), "
                                     "\"float16\"), n: T.int32, m: T.int32):\n"
                                     "    T.device_entry(grid=(2, 1, 1), block=(128, 1, 1))\n"
                                     "    bx = T.launch_thread(\"blockIdx.x\", 2)\n"
                                     "    tx = T.launch_thread(\"threadIdx.x\", 128)\n"
                                     "    if tx < n:\n"
                                     "        A[bx * 128 + tx] = T.float32(1.0)\n";

Test(split, params_and_launch) {
  cuda_compiled c;
  compile_text(&c, "f.tirx", SRC_SCALE, strlen(SRC_SCALE));
  cr_assert_eq(c.codegen, TIRX_OK, "%s", c.diags);
  cr_assert_eq(c.lowered->nfuncs, 2);
  const tx_func *host = c.lowered->funcs[0], *dev = c.lowered->funcs[1];
  cr_assert_str_eq(host->name, "f");
  cr_assert_str_eq(dev->name, "f_kernel");
  /* B and m are unused on the device: A's pointer, then n. */
  cr_assert_eq(dev->nparams, 2);
  cr_assert(dev->params[0]->u.var.has_pointee);
  cr_assert_eq(dev->params[0]->u.var.pointee.code, DT_FLOAT);
  cr_assert_eq(dev->param_bufs[0], c.ctx->ir.arena ? host->param_bufs[0] : NULL);
  cr_assert_eq(dev->params[1], host->params[2]);
  /* host: T.call_packed("f_kernel", A, n, 2, 1, 1, 128, 1, 1, 0) */
  const tx_stmt *launch = host->body;
  cr_assert_eq(launch->kind, STMT_EVAL);
  const tx_expr *call = launch->exprs[0];
  cr_assert_str_eq(call->u.call.op, "T.call_packed");
  cr_assert_eq(call->nops, 10);
  cr_assert_eq(call->ops[9]->u.ival, 0);
  cr_assert(strstr(c.cu.data, "__launch_bounds__(128) f_kernel(float* __restrict__ A_ptr, int n)"),
            "%s", c.cu.data);
  cuda_compiled_free(&c);
}

Test(split, host_only_function_unchanged) {
  const char *src =
      "# from tvm.script import tirx as T\n\n@T.prim_func\ndef g(A: T.Buffer((4,), \"float32\")):\n"
      "    A[0] = T.float32(1.0)\n";
  cuda_compiled c;
  compile_text(&c, "g.tirx", src, strlen(src));
  cr_assert_eq(c.codegen, TIRX_OK, "%s", c.diags);
  cr_assert_eq(c.lowered->nfuncs, 1);
  cr_assert(!strstr(c.cu.data, "__global__"));
  cuda_compiled_free(&c);
}

/* ---- family emitter tables ------------------------------------------------------ */

/* cuda_find_call_emitter binary-searches each table, so an entry out of
 * order would silently never be found. */
Test(call_tables, sorted_without_duplicates_and_found) {
  static const cuda_call_table *const tables[] = {
#define X(table) &table,
      CUDA_CALL_TABLES(X)
#undef X
  };
  for (size_t t = 0; t < sizeof tables / sizeof *tables; t++) {
    const cuda_call_table *tab = tables[t];
    for (size_t i = 0; i < tab->n; i++) {
      if (i > 0)
        cr_expect(strcmp(tab->entries[i - 1].op, tab->entries[i].op) < 0,
                  "%s: '%s' must sort before '%s'", tab->family, tab->entries[i - 1].op,
                  tab->entries[i].op);
      cr_expect(tab->entries[i].emit != NULL, "%s: %s has no emitter", tab->family,
                tab->entries[i].op);
      cr_expect(cuda_find_call_emitter(tab->entries[i].op) == tab->entries[i].emit,
                "%s: %s is not found by lookup (duplicate in another table?)", tab->family,
                tab->entries[i].op);
    }
  }
  cr_expect_null(cuda_find_call_emitter("T.ptx.no_such_helper"));
}

/* ---- located errors ------------------------------------------------------------ */

static const cuda_kernel E = {"e.tirx", "# from tvm.script import tirx as T\n\n@T.prim_func\n"
                                        "def e(A: T.Buffer((256,), \"float32\")):\n"
                                        "    T.device_entry(grid=(1, 1, 1), block=(32, 1, 1))\n"
                                        "    bx = T.launch_thread(\"blockIdx.x\", 1)\n"
                                        "    tx = T.launch_thread(\"threadIdx.x\", 32)\n"};

static void expect_error(const char *body, const char *needle) {
  cuda_expect_error(&SM90, &E, body, needle, 0);
}

Test(errors, unsupported_ptx_op_is_named) {
  /* A legacy helper no family table emits (fetch_register, the example
   * here before, is target/cuda/ptx_memory.c's now). */
  expect_error("    T.ptx_wait_barrier(0)\n", "T.ptx_wait_barrier");
}

Test(errors, launch_tag_is_checked) {
  /* clusterCtaIdx.{x,y,z} are launch tags (TVM's cluster coordinates);
   * another suffix is not. */
  expect_error("    c = T.launch_thread(\"clusterCtaIdx.w\", 2)\n    A[c] = T.float32(1.0)\n",
               "needs a tag threadIdx.{x,y,z}, blockIdx.{x,y,z} or clusterCtaIdx.{x,y,z}");
}

Test(errors, raw_ptx_keyword_is_named) {
  expect_error(
      "    A[tx] = T.ptx[\"add.f32\"](A[tx], A[tx], return_type=\"float32\", rounding=\"rn\")\n",
      "unexpected keyword argument 'rounding'");
}

Test(errors, raw_ptx_operand_without_register) {
  expect_error("    T.ptx[\"st.global.v4.f32\"](T.address_of(A[0]), A[T.Ramp(0, 1, 4)])\n",
               "argument 2 has dtype float32x4");
}

Test(errors, raw_ptx_destination_must_be_writable) {
  /* TVM's dialect writes the first operand of ld: an rvalue there would
   * silently lose the loaded value. */
  expect_error("    T.ptx.ld.global_.f32(A[0] + A[1], A.ptr_to([0]))\n",
               "writes its first operand");
}

Test(errors, raw_ptx_register_group_destination) {
  expect_error("    T.ptx.ldmatrix.sync.aligned.m8n8.x1.shared.b16(A[0], A.ptr_to([0]))\n",
               "register group");
  expect_error(
      "    T.ptx[\"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16\"](A[0], A[1], A[2], "
      "A[3], T.uint64(0), T.uint64(0), False, 1, 1, 0, 0)\n",
      "accumulator");
}

Test(errors, raw_ptx_vector_operand_count) {
  expect_error("    T.ptx.st.global_.v4.f32(A.ptr_to([0]), A[1], A[2])\n", "takes 5 operands");
}

Test(errors, ptx_printed_form_operands) {
  /* T.ptx.addr is consumed by a memory operand, with a constant offset. */
  expect_error("    T.ptx.st(A.data, T.ptx.addr(A.data, 4), \"\", \"\", \"\", \"global\", \"\", "
               "\"\", \"\", \"\", \"b32\", \"\")\n",
               "operand 2 is not a memory operand");
  expect_error(
      "    T.ptx.ld(A[0], T.ptx.addr(A.data, tx), \"\", \"\", \"\", \"global\", \"\", \"\", "
      "\"\", \"\", \"\", \"f32\", \"\")\n",
      "must be a signed 32-bit constant");
  expect_error("    A[0] = T.reinterpret(\"float32\", T.ptx.addr(tx, 4))\n",
               "must be consumed by a PTX memory operand");
}

Test(errors, warp_reduce_width_and_op) {
  expect_error("    A[tx] = T.cuda.warp_sum(A[tx], width=6)\n", "constant power of two");
  expect_error("    A[tx] = T.cuda.warp_sum(A[tx], width=tx)\n", "constant power of two");
  expect_error("    A[tx] = T.cuda.warp_reduce(A[tx], \"prod\")\n", "\"sum\", \"max\" or \"min\"");
}

Test(errors, cuda_ldg_forms) {
  expect_error("    T.evaluate(T.cuda.ldg(A.data, \"float32x4\"))\n", "scalar number dtype");
  expect_error("    T.cuda.ldg(A.data, \"float32\", dst=(A.ptr_to([1]),), vec=\"v2\")\n",
               "one pointer per lane");
  expect_error(
      "    T.cuda.ldg(A.data, \"float32\", dst=(A.ptr_to([1]), A.ptr_to([2])), vec=\"v3\")\n",
      "one pointer per lane");
}

Test(errors, raw_ptx_pred_forms) {
  expect_error("    A[0] = T.ptx[\"add.f32\"](A[0], A[1], return_type=\"float32\", pred=tx == 0)\n",
               "pred= takes");
  expect_error("    T.ptx.red.global_.add.f32(A.ptr_to([0]), A[1], pred=A[2])\n", "pred= takes");
}

Test(errors, ptx_ld_st_register_arrays) {
  expect_error("    T.evaluate(T.ptx.ld(A.ptr_to([0]), \"float32\", \"f32\", vec=\"v2\"))\n",
               "vec= needs dst=");
  expect_error("    T.ptx.st(A.ptr_to([0]), A[1], src=A.ptr_to([2]), space=\"global\", "
               "ptx_type=\"f32\")\n",
               "give only the address");
}

Test(errors, raw_ptx_predicate_destination) {
  /* setp/try_wait write a predicate; it lands as 0/1 in a 32-bit element. */
  expect_error("    T.ptx.setp.lt.f32(A[0], A[1], A[2])\n", "writes a predicate");
}

Test(errors, raw_ptx_empty_opcode) {
  expect_error("    T.ptx[\"\"](A[0])\n", "empty PTX opcode");
}

Test(errors, vector_value_without_cuda_type) {
  /* 32-bit lanes exist as whole values up to 4 (float4); a store of more
   * goes lane by lane, a binding needs the whole value */
  expect_error("    v = A[T.Ramp(tx * 8, 2, 8)]\n    A[T.Ramp(tx * 8, 1, 8)] = v\n", "float32x8");
}

Test(errors, vector_half_modulo) {
  expect_error("    H = T.decl_buffer((64,), \"float16\", data=A.data)\n"
               "    H[T.Ramp(tx * 2, 1, 2)] = T.truncmod(H[T.Ramp(tx * 2, 1, 2)], "
               "H[T.Ramp(tx * 2, 1, 2)])\n",
               "vector Mod on float16x2");
}

/* ---- vector emission ------------------------------------------------------------ */

/* The CUDA for a kernel with buffers A (float32), H (float16), G (bfloat16),
 * M (bool) and I (int32) of 1024 elements, scalars a (float16) and flag. */
static const cuda_kernel V = {
    "v.tirx", "# from tvm.script import tirx as T\n\n@T.prim_func\n"
              "def v(A: T.Buffer((1024,), \"float32\"), H: T.Buffer((1024,), \"float16\"), "
              "G: T.Buffer((1024,), \"bfloat16\"), M: T.Buffer((1024,), \"bool\"), "
              "I: T.Buffer((1024,), \"int32\"), a: T.float16, flag: T.bool):\n"
              "    T.device_entry(grid=(1, 1, 1), block=(32, 1, 1))\n"
              "    tx = T.launch_thread(\"threadIdx.x\", 32)\n"};

static char *vector_cuda(const char *body) {
  return cuda_text_of(&SM90, &V, body);
}

/* needle occurs in text exactly n times */
static int count_of(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

Test(vector, strided_load_is_a_gather) {
  char *cu = vector_cuda("    A[T.Ramp(tx * 4, 1, 4)] = A[T.Ramp(tx, 32, 4)]\n");
  cr_expect(strstr(cu, "*(float4*)(A_ptr + (tx * 4)) = make_float4(A_ptr[(tx + 0)], "
                       "A_ptr[(tx + 32)], A_ptr[(tx + 64)], A_ptr[(tx + 96)]);"),
            "%s", cu);
  free(cu);
}

Test(vector, scatter_reads_every_lane_before_storing) {
  /* lane 1 stores A[tx * 8 + 2], which lane 2 reads: read first */
  char *cu = vector_cuda("    A[T.Ramp(tx * 8, 2, 4)] = A[T.Ramp(tx * 8 + 2, 2, 4)]\n");
  const char *last_read = strstr(cu, "float tx_lane_3 = A_ptr[(((tx * 8) + 2) + 6)];");
  const char *first_store = strstr(cu, "A_ptr[((tx * 8) + 0)] = tx_lane;");
  cr_expect(last_read && first_store && last_read < first_store, "%s", cu);
  cr_expect(strstr(cu, "A_ptr[((tx * 8) + 6)] = tx_lane_3;"), "%s", cu);
  free(cu);
}

Test(vector, scatter_with_a_loaded_index_reads_the_index_first) {
  /* an aligned index vector: one load, before the statement */
  char *cu = vector_cuda("    A[I[T.Ramp(tx * 2, 1, 2)]] = T.Broadcast(T.float32(1.0), 2)\n");
  const char *idx = strstr(cu, "int2 I_vec = *(int2*)(I_ptr + (tx * 2));");
  const char *store = strstr(cu, "A_ptr[I_vec.x] = tx_lane;");
  cr_expect(idx && store && idx < store, "%s", cu);
  free(cu);
  /* an unaligned one: each lane into a temporary before the first store */
  cu = vector_cuda("    A[I[T.Ramp(tx * 2 + 1, 1, 2)]] = T.Broadcast(T.float32(1.0), 2)\n");
  idx = strstr(cu, "int tx_index_1 = I_ptr[(((tx * 2) + 1) + 1)];");
  store = strstr(cu, "A_ptr[tx_index] = tx_lane;");
  cr_expect(idx && store && idx < store, "%s", cu);
  free(cu);
}

Test(vector, half_scatter_goes_in_pairs) {
  char *cu = vector_cuda("    H[T.Ramp(tx, 64, 4)] = H[T.Ramp(tx * 4, 1, 4)] * "
                         "H[T.Ramp(tx * 4, 1, 4)]\n");
  cr_expect(strstr(cu, "uint2 H_vec = *(uint2*)(H_ptr + (tx * 4));"), "%s", cu);
  cr_expect(strstr(cu, "half2 tx_pair_1 = __hmul2(tx_bits_h2(H_vec.y), tx_bits_h2(H_vec.y));"),
            "%s", cu);
  cr_expect(strstr(cu, "H_ptr[(tx + 192)] = tx_pair_1.y;"), "%s", cu);
  free(cu);
}

Test(vector, bool_vector_is_a_struct_of_bools) {
  char *cu = vector_cuda("    m = A[T.Ramp(tx * 4, 1, 4)] > A[T.Ramp(tx * 4 + 128, 1, 4)]\n"
                         "    M[T.Ramp(tx * 4, 1, 4)] = m\n"
                         "    I[T.Ramp(tx * 4, 1, 4)] = T.Cast(\"int32x4\", m or "
                         "T.Broadcast(flag, 4))\n");
  cr_expect_eq(count_of(cu, "struct __align__(4) tx_bool4 {\n  bool v[4];\n};"), 1, "%s", cu);
  cr_expect(strstr(cu, "tx_bool4 m = make_tx_bool4((A_vec.x > A_vec_1.x), "), "%s", cu);
  cr_expect(strstr(cu, "*(tx_bool4*)(M_ptr + (tx * 4)) = m;"), "%s", cu);
  cr_expect(strstr(cu, "make_int4(((int)((m).v[0] || flag)), "), "%s", cu);
  free(cu);
}

Test(vector, half_select_uses_compare_masks) {
  char *cu = vector_cuda("    H[T.Ramp(tx * 4, 1, 4)] = T.Select(H[T.Ramp(tx * 4, 1, 4)] != "
                         "T.Broadcast(a, 4) and not (H[T.Ramp(tx * 4, 1, 4)] < "
                         "T.Broadcast(a, 4)), H[T.Ramp(tx * 4, 1, 4)], T.Broadcast(a, 4))\n");
  /* != is true on NaN (the unordered mask); < is ordered, its negation not */
  cr_expect(strstr(cu, "tx_select_h2((__hneu2_mask(tx_bits_h2(H_vec.x), __half2half2(a)) & "
                       "(~__hlt2_mask(tx_bits_h2(H_vec.x), __half2half2(a)))), "
                       "tx_bits_h2(H_vec.x), __half2half2(a))"),
            "%s", cu);
  cr_expect(strstr(cu, "__device__ __forceinline__ half2 tx_select_h2(unsigned m, half2 a, "
                       "half2 b)"),
            "%s", cu);
  free(cu);
}

Test(vector, half_if_then_else_reads_only_the_selected_lane) {
  char *cu = vector_cuda("    H[T.Ramp(tx * 2, 1, 2)] = T.if_then_else(M[T.Ramp(tx * 2, 1, 2)], "
                         "H[T.Ramp(tx * 2 + 64, 1, 2)], T.Broadcast(a, 2))\n");
  cr_expect(strstr(cu, "__halves2half2((M_ptr[((tx * 2) + 0)] ? (((half2*)(H_ptr + ((tx * 2) + "
                       "64)))[0]).x : a), "),
            "%s", cu);
  cr_expect(!strstr(cu, "tx_select_h2"), "%s", cu);
  free(cu);
}

Test(vector, half_div_and_fma) {
  char *cu = vector_cuda("    H[T.Ramp(tx * 2, 1, 2)] = H[T.Ramp(tx * 2, 1, 2)] / "
                         "T.Broadcast(a, 2)\n"
                         "    G[T.Ramp(tx * 2, 1, 2)] = G[T.Ramp(tx * 2, 1, 2)] - "
                         "G[T.Ramp(tx * 2, 1, 2)] * G[T.Ramp(tx * 2 + 2, 1, 2)]\n"
                         "    H[T.Ramp(tx * 2, 1, 2)] = H[T.Ramp(tx * 2, 1, 2)] * "
                         "T.Broadcast(a, 2) - H[T.Ramp(tx * 2, 1, 2)]\n");
  cr_expect(strstr(cu, "= __h2div(H_vec, __half2half2(a));"), "%s", cu);
  cr_expect(strstr(cu, "nv_bfloat162 G_vec_1 = *(nv_bfloat162*)(G_ptr + ((tx * 2) + 2));"), "%s",
            cu);
  cr_expect(strstr(cu, "= __hfma2(__hneg2(G_vec), G_vec_1, G_vec);"), "%s", cu);
  cr_expect(strstr(cu, "= __hfma2(H_vec_1, __half2half2(a), __hneg2(H_vec_1));"), "%s", cu);
  free(cu);
}

Test(vector, bfloat16_vectors_computed_in_float32) {
  /* what legalize-bf16-fp8 leaves: float32x8 exists only lane by lane */
  char *cu = vector_cuda("    G[T.Ramp(tx * 8, 1, 8)] = T.Cast(\"bfloat16x8\", "
                         "T.Cast(\"float32x8\", G[T.Ramp(tx * 8, 1, 8)]) / "
                         "T.Broadcast(T.float32(3.0), 8))\n");
  cr_expect(strstr(cu, "uint4 G_vec = *(uint4*)(G_ptr + (tx * 8));"), "%s", cu);
  cr_expect(strstr(cu, "*(uint4*)(G_ptr + (tx * 8)) = make_uint4(tx_bf2_bits("
                       "__floats2bfloat162_rn((__bfloat162float((tx_bits_bf2(G_vec.x)).x) / "
                       "3.0f), "),
            "%s", cu);
  free(cu);
}

Test(errors, tile_ops_must_be_lowered) {
  expect_error("    T.evaluate(T.call_packed(\"x\", 1))\n", "host-only");
}

Test(errors, global_alloc_in_kernel) {
  expect_error("    G = T.alloc_buffer((4,), \"float32\")\n    G[0] = A[0]\n", "scope \"global\"");
}

/* ---- line map -------------------------------------------------------------------- */

/* The 1-based CUDA line that contains `needle`, or 0. */
static size_t line_of(const char *text, const char *needle) {
  const char *hit = strstr(text, needle);
  if (!hit) return 0;
  size_t line = 1;
  for (const char *p = text; p < hit; p++)
    line += *p == '\n';
  return line;
}

Test(line_map, statements_point_at_their_source) {
  const char *src = "# from tvm.script import tirx as T\n\n@T.prim_func\n"
                    "def s(A: T.Buffer((256,), \"float32\"), B: T.Buffer((256,), \"float32\")):\n"
                    "    T.device_entry(grid=(1, 1, 1), block=(256, 1, 1))\n"
                    "    tx = T.launch_thread(\"threadIdx.x\", 256)\n"
                    "    if tx < 100:\n"
                    "        B[tx] = A[tx] * T.float32(2.0)\n";
  cuda_compiled c;
  compile_text(&c, "s.tirx", src, strlen(src));
  cr_assert_eq(c.codegen, TIRX_OK, "%s", c.diags);
  size_t l_bind = line_of(c.cu.data, "int tx ="), l_if = line_of(c.cu.data, "if (tx < 100)"),
         l_store = line_of(c.cu.data, "B_ptr[tx] =");
  cr_assert(l_bind && l_if && l_store, "%s", c.cu.data);
  cr_expect_eq(c.map.lines[l_bind - 1].line, 6);
  cr_expect_eq(c.map.lines[l_if - 1].line, 7);
  cr_expect_eq(c.map.lines[l_store - 1].line, 8);
  cr_expect_str_eq(c.map.lines[l_store - 1].file, "s.tirx");
  /* the preamble has no source */
  cr_expect_eq(c.map.lines[0].line, 0);
  cuda_compiled_free(&c);
}

Test(split, with_form_entry) {
  const char *src = "# from tvm.script import tirx as T\n\n@T.prim_func\n"
                    "def w(A: T.Buffer((32,), \"float32\"), n: T.int32):\n"
                    "    m: T.let[T.int32] = n + 1\n"
                    "    with T.device_entry(grid=(1, 1, 1), block=(32, 1, 1)):\n"
                    "        tx = T.launch_thread(\"threadIdx.x\", 32)\n"
                    "        A[tx] = T.Cast(\"float32\", m)\n";
  cuda_compiled c;
  compile_text(&c, "w.tirx", src, strlen(src));
  cr_assert_eq(c.codegen, TIRX_OK, "%s", c.diags);
  cr_assert(strstr(c.cu.data, "w_kernel(float* __restrict__ A_ptr, int m)"), "%s", c.cu.data);
  cr_assert(strstr(c.cu.data, "A_ptr[tx] = ((float)m);"), "%s", c.cu.data);
  cuda_compiled_free(&c);
}

Test(split, nested_entry_is_an_error) {
  const char *src = "# from tvm.script import tirx as T\n\n@T.prim_func\n"
                    "def nested(A: T.Buffer((32,), \"float32\"), n: T.int32):\n"
                    "    if n > 0:\n"
                    "        T.device_entry(grid=(1, 1, 1), block=(32, 1, 1))\n"
                    "        tx = T.launch_thread(\"threadIdx.x\", 32)\n"
                    "        A[tx] = T.float32(0.0)\n";
  cuda_compiled c;
  compile_text(&c, "nested.tirx", src, strlen(src));
  cr_assert_eq(c.parse, TIRX_OK, "%s", c.diags);
  cr_expect_eq(c.split, TIRX_ERR_INPUT, "%s", c.diags);
  cr_expect(strstr(c.diags, "nested.tirx:6:"), "%s", c.diags);
  cuda_compiled_free(&c);
}

Test(errors, maxnreg_with_min_blocks) {
  const char *src = "# from tvm.script import tirx as T\n\n@T.prim_func\n"
                    "def r(A: T.Buffer((32,), \"float32\")):\n"
                    "    T.func_attr({\"tirx.max_registers\": 64, \"tirx.min_blocks_per_sm\": 2})\n"
                    "    T.device_entry(grid=(1, 1, 1), block=(32, 1, 1))\n"
                    "    tx = T.launch_thread(\"threadIdx.x\", 32)\n"
                    "    A[tx] = T.float32(0.0)\n";
  cuda_compiled c;
  compile_text(&c, "r.tirx", src, strlen(src));
  cr_expect_eq(c.codegen, TIRX_ERR_INPUT, "%s", c.diags);
  cr_expect(strstr(c.diags, "cannot be combined with the CUDA launch bounds"), "%s", c.diags);
  cuda_compiled_free(&c);
}

/* ---- pointers bound in device code ------------------------------------------- */

/* The CUDA of `body` after E's head; the caller frees it. */
static char *e_text(const char *body) {
  return cuda_text_of(&SM90, &E, body);
}

Test(pointers, bound_pointer_is_typed_storage) {
  /* A typed pointer from a uint64 address; a buffer of another element type
   * on an untyped one indexes through a cast; the value is cast only when
   * it is not already the variable's type. */
  char *cu = e_text("    addr: T.let = T.reinterpret(\"uint64\", A.ptr_to([tx]))\n"
                    "    p: T.let[T.handle(\"float32\", \"global\")] = T.reinterpret("
                    "T.handle(\"float32\", \"global\"), addr)\n"
                    "    V = T.decl_buffer((1,), \"float32\", data=p)\n"
                    "    q = T.reinterpret(\"handle\", addr)\n"
                    "    W = T.decl_buffer((2,), \"int32\", data=q)\n"
                    "    r = A.data\n"
                    "    R = T.decl_buffer((8,), \"float32\", data=r)\n"
                    "    V[0] = T.Cast(\"float32\", W[1]) + R[3]\n"
                    "    A[tx] = T.reinterpret(\"float32\", T.Cast(\"int32\", "
                    "T.reinterpret(\"int64\", q)))\n");
  cr_expect(strstr(cu, "unsigned long long addr = ((unsigned long long)(A_ptr + tx));"), "%s", cu);
  cr_expect(strstr(cu, "float* p = ((float*)addr);"), "%s", cu);
  cr_expect(strstr(cu, "void* q = ((void*)addr);"), "%s", cu);
  cr_expect(strstr(cu, "float* r = (float*)A_ptr;"), "%s", cu);
  cr_expect(strstr(cu, "p[0] = (((float)((int*)q)[1]) + r[3]);"), "%s", cu);
  cr_expect(strstr(cu, "((long long)q)"), "%s", cu);
  free(cu);
}

Test(pointers, bound_pointer_passed_to_calls) {
  /* A bound pointer is an operand like a buffer's data: mbarrier.init takes
   * its 32-bit shared address. */
  char *cu = e_text("    S = T.alloc_shared((32,), \"uint64\")\n"
                    "    p = T.reinterpret(T.handle(\"uint64\", \"shared\"), "
                    "T.reinterpret(\"uint64\", S.ptr_to([tx])))\n"
                    "    T.ptx.mbarrier.init(p, 1)\n");
  cr_expect(strstr(cu, "unsigned long long* p = ((unsigned long long*)((unsigned long long)(S_ptr "
                       "+ tx)));"),
            "%s", cu);
  cr_expect(strstr(cu, "__cvta_generic_to_shared(p)") || strstr(cu, "tx_smem_addr(p)"), "%s", cu);
  free(cu);
}

Test(errors, pointer_to_type_without_cuda_spelling) {
  expect_error(
      "    p = T.reinterpret(T.handle(\"float8_e4m3fnuz\"), "
      "T.reinterpret(\"uint64\", A.ptr_to([0])))\n"
      "    A[0] = T.reinterpret(\"float32\", T.Cast(\"int32\", T.reinterpret(\"uint64\", p)))\n",
      "float8_e4m3fnuz has no CUDA spelling");
}

Test(errors, tensormap_bound_in_device_code) {
  expect_error("    m: T.let[T.handle(\"tensormap\")] = T.tvm_stack_alloca(\"tensormap\", 1)\n"
               "    T.ptx.prefetch_tensormap(m)\n",
               "tensor map ('m') cannot be bound in device code");
}

Test(errors, atomic_through_untyped_pointer) {
  expect_error("    p = T.reinterpret(\"handle\", T.reinterpret(\"uint64\", A.ptr_to([0])))\n"
               "    T.cuda.atomic_add(p, T.float32(1))\n",
               "untyped pointer");
}

/* ---- what one launch carries (abi/packed_api.h) ------------------------------ */

/* A kernel taking n float32 buffers of 64 elements. */
static char *kernel_with_params(int n) {
  size_t cap = 256 + (size_t)n * 96, len = 0;
  char *src = malloc(cap);
  cr_assert_not_null(src);
  len += (size_t)snprintf(src, cap, "# from tvm.script import tirx as T\n\n@T.prim_func\ndef k(");
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(src + len, cap - len, "%sA%d: T.Buffer((64,), \"float32\")",
                            i ? ", " : "", i);
  len += (size_t)snprintf(src + len, cap - len,
                          "):\n    T.device_entry(grid=(1, 1, 1), block=(64, 1, 1))\n"
                          "    tx = T.launch_thread(\"threadIdx.x\", 64)\n");
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(src + len, cap - len, "    A%d[tx] = T.float32(1.0)\n", i);
  return src;
}

Test(errors, kernel_parameter_limit) {
  char *src = kernel_with_params(512);
  cuda_compiled c;
  compile_text(&c, "k.tirx", src, strlen(src));
  cr_expect_eq(c.codegen, TIRX_OK, "%s", c.diags);
  cuda_compiled_free(&c);
  free(src);
  src = kernel_with_params(513);
  compile_text(&c, "k.tirx", src, strlen(src));
  cr_expect_eq(c.codegen, TIRX_ERR_INPUT, "%s", c.diags);
  cr_expect(strstr(c.diags, "k.tirx:3:1: error: kernel 'k_kernel' has 513 parameters (limit "
                            "512 per launch)"),
            "%s", c.diags);
  cuda_compiled_free(&c);
  free(src);
}

/* ---- sizes and literals past 32 bits -------------------------------------------- */

/* Codegen declares an array with its 64-bit element count: a size that
 * does not fit in int32 (verify-memory rejects it in the pipeline; the
 * harness here skips the pipeline) is printed as it is, never wrapped. */
Test(codegen, array_extents_print_in_64_bits) {
  static const char *const local[] = {"float L_ptr[4295032832];", NULL};
  cuda_expect_text(&SM90, &E,
                   "    L = T.alloc_buffer((4295032832,), \"float32\", scope=\"local\")\n"
                   "    L[tx] = A[tx]\n"
                   "    A[tx] = L[tx]\n",
                   local);
  static const char *const shared[] = {"__shared__ alignas(64) signed char S_ptr[4294967296];",
                                       NULL};
  cuda_expect_text(&SM90, &E,
                   "    S = T.alloc_buffer((T.int64(4294967296),), \"int8\", scope=\"shared\")\n"
                   "    S[tx] = T.int8(1)\n",
                   shared);
  cuda_expect_error(&SM90, &E,
                    "    S = T.alloc_buffer((T.int64(4611686018427387904),), \"float32\", "
                    "scope=\"shared\")\n"
                    "    S[tx] = A[tx]\n",
                    "the size of shared buffer 'S' in bytes does not fit in 64 bits", 8);
}

/* A float32 literal beyond FLT_MAX is inf: printed as its bit pattern, not
 * as the ill-formed C++ literal 1e+39f. */
Test(codegen, out_of_range_float_literals_are_inf) {
  static const char *const f32[] = {"A_ptr[tx] = __int_as_float(0x7f800000);",
                                    "A_ptr[(tx + 1)] = __int_as_float((int)0xff800000u);", NULL};
  cuda_expect_text(&SM90, &E,
                   "    A[tx] = T.float32(1e39)\n"
                   "    A[tx + 1] = T.float32(-1e39)\n",
                   f32);
  char *cu = cuda_text_of(&SM90, &E, "    A[tx] = T.float32(3.4028234663852886e38)\n");
  cr_assert_null(strstr(cu, "0x7f800000"), "FLT_MAX is finite:\n%s", cu);
  cr_assert_null(strstr(cu, "e+39"), "%s", cu);
  free(cu);
}

Test(errors, print_buffer_without_a_format) {
  /* bfloat16 has no printf conversion (TVM refuses it too). */
  expect_error("    T.print_buffer(A.data, \"bfloat16\", T.bool(False), T.bool(False), 1, 4)\n",
               "T.print_buffer: no printf format for dtype bfloat16");
}

/* ---- packed sub-byte elements (cuda_packed.c) ------------------------------------ */

TX_CUDA_PACKED_LD(static, packed_ld)
TX_CUDA_PACKED_ST(static, packed_st)

/* Element i sits at bit (i % (8 / bits)) * bits of byte i / (8 / bits),
 * lowest first; a store changes no other element of its byte. */
Test(packed_helpers, element_order_sign_and_neighbours) {
  unsigned char p[4] = {0x9e, 0x71, 0x00, 0xff};
  cr_assert_eq(packed_ld(p, 0, 4, 1), -2); /* 0xe */
  cr_assert_eq(packed_ld(p, 1, 4, 1), -7); /* 0x9 */
  cr_assert_eq(packed_ld(p, 1, 4, 0), 9);
  cr_assert_eq(packed_ld(p, 2, 4, 1), 1);
  cr_assert_eq(packed_ld(p, 3, 4, 1), 7);
  cr_assert_eq(packed_ld(p, 0, 1, 1), 0); /* 0x9e = 0b10011110 */
  cr_assert_eq(packed_ld(p, 1, 1, 1), -1);
  cr_assert_eq(packed_ld(p, 7, 1, 0), 1);
  cr_assert_eq(packed_ld(p, 31, 1, 1), -1);
  for (int bits = 1; bits <= 4; bits *= 4)
    for (int i = 0; i < 32 / bits; i++)
      for (int v = -(1 << (bits - 1)); v < (1 << (bits - 1)); v++) {
        unsigned char q[4] = {0x5a, 0xa5, 0x3c, 0xc3}, r[4];
        memcpy(r, q, sizeof r);
        packed_st(q, i, bits, v);
        cr_assert_eq(packed_ld(q, i, bits, 1), v, "int%d element %d = %d", bits, i, v);
        cr_assert_eq(packed_ld(q, i, bits, 0), v & ((1 << bits) - 1));
        for (int j = 0; j < 32 / bits; j++)
          if (j != i) cr_assert_eq(packed_ld(q, j, bits, 0), packed_ld(r, j, bits, 0));
      }
  /* the value's high bits are dropped, as the store to int4 wraps */
  packed_st(p, 2, 4, 0x35);
  cr_assert_eq(p[1], 0x75);
}

Test(packed_helpers, emitted_text_is_the_tested_text) {
  const char *s = TX_CUDA_STR(TX_CUDA_PACKED_LD(__device__ __forceinline__, tx_packed_ld));
  cr_assert(strstr(s, "__device__ __forceinline__ int tx_packed_ld(const unsigned char *p, long "
                      "long i, int bits, int sgn)"),
            "%s", s);
}

/* int4 A and B, uint4 U, int1 F, int32 C; tx 0..31. */
static const cuda_kernel P = {
    "p.tirx", "# from tvm.script import tirx as T\n\n@T.prim_func\n"
              "def p(A: T.Buffer((1024,), \"int4\"), B: T.Buffer((1024,), \"int4\"), "
              "U: T.Buffer((1024,), \"uint4\"), F: T.Buffer((4096,), \"int1\"), "
              "C: T.Buffer((256,), \"int32\")):\n"
              "    T.device_entry(grid=(1, 1, 1), block=(32, 1, 1))\n"
              "    tx = T.launch_thread(\"threadIdx.x\", 32)\n"};

static void expect_packed(const char *body, const char *const *needles) {
  cuda_expect_text(&SM90, &P, body, needles);
}

static void expect_packed_error(const char *body, const char *needle) {
  cuda_expect_error(&SM90, &P, body, needle, 0);
}

Test(packed, words_by_total_width) {
  static const char *const want[] = {
      "unsigned char* __restrict__ A_ptr",
      "*(signed char*)(B_ptr + ((tx * 2) / 2)) = *(signed char*)(A_ptr + ((tx * 2) / 2));",
      "*(short*)(B_ptr + ((tx * 4) / 2)) = *(short*)(A_ptr + ((tx * 4) / 2));",
      "*(int2*)(B_ptr + ((tx * 16) / 2)) = *(int2*)(A_ptr + ((tx * 16) / 2));",
      "*(uint4*)(U_ptr + ((tx * 32) / 2)) = *(uint4*)(U_ptr + (((tx * 32) + 32) / 2));",
      "*(int*)(F_ptr + ((tx * 32) / 8)) = *(int*)(F_ptr + (((tx * 32) + 1024) / 8));",
      NULL};
  expect_packed("    B[T.Ramp(tx * 2, 1, 2)] = A[T.Ramp(tx * 2, 1, 2)]\n"
                "    B[T.Ramp(tx * 4, 1, 4)] = A[T.Ramp(tx * 4, 1, 4)]\n"
                "    B[T.Ramp(tx * 16, 1, 16)] = A[T.Ramp(tx * 16, 1, 16)]\n"
                "    U[T.Ramp(tx * 32, 1, 32)] = U[T.Ramp(tx * 32 + 32, 1, 32)]\n"
                "    F[T.Ramp(tx * 32, 1, 32)] = F[T.Ramp(tx * 32 + 1024, 1, 32)]\n",
                want);
}

Test(packed, storage_is_bytes) {
  /* ceil(n * bits / 8) bytes: local arrays aligned for their widest word,
   * shared arrays with their own alignment, the dynamic arena by bytes */
  static const char *const want[] = {
      "alignas(4) unsigned char L_ptr[3];", "alignas(16) unsigned char W_ptr[64];",
      "__shared__ alignas(64) unsigned char S_ptr[128];",
      "*(signed char*)(((unsigned char*)smem) + ((tx * 8) / 8))", NULL};
  expect_packed("    L = T.alloc_buffer((5,), \"int4\", scope=\"local\")\n"
                "    W = T.alloc_buffer((512,), \"int1\", scope=\"local\")\n"
                "    S = T.alloc_buffer((256,), \"uint4\", scope=\"shared\")\n"
                "    D = T.alloc_buffer((1024,), \"int1\", scope=\"shared.dyn\")\n"
                "    L[4] = A[tx]\n"
                "    W[tx] = F[tx]\n"
                "    S[T.Ramp(tx * 8, 1, 8)] = U[T.Ramp(tx * 8, 1, 8)]\n"
                "    D[T.Ramp(tx * 8, 1, 8)] = F[T.Ramp(tx * 8, 1, 8)]\n"
                "    C[0] = T.Cast(\"int32\", L[4]) + T.Cast(\"int32\", W[tx])\n",
                want);
}

Test(packed, single_elements_and_conversions) {
  static const char *const want[] = {
      "tx_packed_st(L_ptr, (tx % 8), 4, tx_packed_ld(A_ptr, (tx + 3), 4, 1));",
      "tx_packed_st(M_ptr, 1, 4, ((int)C_ptr[tx] & 15));",
      "tx_packed_st(L_ptr, 0, 4, ((((int)(C_ptr[tx] * 3) & 15) ^ 8) - 8));",
      "tx_packed_st(L_ptr, 1, 4, (-3));",
      "C_ptr[tx] = (((int)tx_packed_ld(L_ptr, 0, 4, 1)) + ((int)tx_packed_ld(M_ptr, 1, 4, 0)));",
      "(tx_packed_ld(F_ptr, tx, 1, 1) == (-1))",
      NULL};
  expect_packed("    L = T.alloc_buffer((8,), \"int4\", scope=\"local\")\n"
                "    M = T.alloc_buffer((2,), \"uint4\", scope=\"local\")\n"
                "    L[tx % 8] = A[tx + 3]\n"
                "    M[1] = T.Cast(\"uint4\", C[tx])\n"
                "    L[0] = T.Cast(\"int4\", C[tx] * 3)\n"
                "    L[1] = T.int4(-3)\n"
                "    C[tx] = T.Cast(\"int32\", L[0]) + T.Cast(\"int32\", M[1])\n"
                "    if F[tx] == T.int1(-1):\n"
                "        C[tx + 32] = 1\n",
                want);
}

Test(packed, pointers_advance_by_bytes) {
  static const char *const want[] = {
      "((unsigned*)(L_ptr + 4))[0]",                /* mma fragment at element 8 */
      "(A_ptr + ((tx * 8) / 2))",                   /* T.address_of(A[tx * 8]) */
      "(A_ptr + 6)",                                /* A.ptr_to([12]) */
      "(((unsigned char*)C_ptr) + ((tx * 2) / 2))", /* T.tvm_access_ptr int4 over int32 */
      NULL};
  expect_packed(
      "    L = T.alloc_buffer((16,), \"int4\", scope=\"local\")\n"
      "    Acc = T.alloc_buffer((2,), \"int32\", scope=\"local\")\n"
      "    L[T.Ramp(8, 1, 8)] = A[T.Ramp(tx * 8, 1, 8)]\n"
      "    T.ptx_legacy.mma(\"m8n8k32\", \"row\", \"col\", \"int4\", \"int4\", \"int32\", "
      "L.data, 8, L.data, 8, Acc.data, 0, T.bool(False))\n"
      "    T.ptx.st.global_.u64(T.address_of(C[0]), "
      "T.reinterpret(\"uint64\", T.address_of(A[tx * 8])))\n"
      "    T.ptx.st.global_.u64(T.address_of(C[2]), T.reinterpret(\"uint64\", "
      "A.ptr_to([12])))\n"
      "    T.ptx.st.global_.u64(T.address_of(C[4]), T.reinterpret(\"uint64\", "
      "T.tvm_access_ptr(T.type_annotation(\"int4\"), C.data, tx * 2, 8, 1)))\n",
      want);
}

Test(errors, packed_accesses_say_why) {
  expect_packed_error("    B[tx] = A[tx]\n", "would rewrite the whole byte holding it");
  expect_packed_error("    B[T.Ramp(tx * 8, 1, 8)] = A[T.Ramp(tx * 8 + 4, 1, 8)]\n",
                      "must be a multiple of 8 elements (aligned)");
  expect_packed_error("    B[T.Ramp(tx * 8, 1, 8)] = A[T.Ramp(tx * 8, 2, 8)]\n",
                      "not contiguous (a stride-1 Ramp)");
  expect_packed_error("    B[T.Ramp(tx * 8, 1, 6)] = A[T.Ramp(tx * 8, 1, 6)]\n",
                      "as int4x6 spans 24 bits");
  expect_packed_error("    L = T.alloc_buffer((2,), \"int4\", scope=\"local\")\n"
                      "    L[0] = A[tx] * A[tx + 1]\n",
                      "Mul on int4 values is not supported");
  expect_packed_error(
      "    C[T.Ramp(tx * 4, 1, 4)] = T.Cast(\"int32x4\", A[T.Ramp(tx * 4, 1, 4)])\n",
      "a lane of a packed int4x4 vector is not supported");
  expect_packed_error("    T.ptx.st.global_.u64(T.address_of(C[0]), "
                      "T.reinterpret(\"uint64\", T.address_of(A[tx * 2 + 1])))\n",
                      "must be a multiple of 2 elements (1 whole byte)");
  expect_packed_error("    L = T.alloc_buffer((16,), \"int4\", scope=\"local\")\n"
                      "    Acc = T.alloc_buffer((2,), \"int32\", scope=\"local\")\n"
                      "    T.ptx_legacy.mma(\"m8n8k32\", \"row\", \"col\", \"int4\", \"int4\", "
                      "\"int32\", L.data, 4, L.data, 0, Acc.data, 0, T.bool(False))\n",
                      "must be a multiple of 8 elements (4 whole bytes)");
  expect_packed_error("    x = A[T.Ramp(tx * 8, 1, 8)] + A[T.Ramp(tx * 8, 1, 8)]\n"
                      "    B[T.Ramp(tx * 8, 1, 8)] = x\n",
                      "Add of a packed int4x8 vector is not supported");
}
