/*
 * test_tensormap.c - tensor maps in TVM's host form (ir/tensormap.h): the
 * dtype -> CUtensorMapDataType mapping, the split of an encode call into
 * operands and its located errors, TVM's host-side checks one rule at a
 * time, the frontend's spellings of the type, and the CUDA a kernel
 * parameter of that type becomes.
 *
 * Whole kernels are the goldens (tests/golden/lowering/tma_tile,
 * tests/golden/cuda/tma_host, tests/golden/parse/functions_tensormap, the
 * split-host-device and make-packed-api cases); the launcher executing the
 * encode calls is tested in test_rtapi.c against the fake driver.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "target/cuda/codegen.h"
#include "driver/context.h"
#include "ir/tensormap.h"
#include "passes/pass.h"

#define HDR "# from tvm.script import tirx as T\n\n@T.prim_func\n"

/* ---- dtypes --------------------------------------------------------------------- */

Test(tensormap_dtype, tvm_mapping) {
  static const struct {
    const char *name;
    int cu, bits;
  } ok[] = {
      {"int8", TX_TMAP_DT_UINT8, 8},         {"uint8", TX_TMAP_DT_UINT8, 8},
      {"uint16", TX_TMAP_DT_UINT16, 16},     {"int32", TX_TMAP_DT_INT32, 32},
      {"uint32", TX_TMAP_DT_UINT32, 32},     {"int64", TX_TMAP_DT_INT64, 64},
      {"uint64", TX_TMAP_DT_UINT64, 64},     {"float16", TX_TMAP_DT_FLOAT16, 16},
      {"float32", TX_TMAP_DT_FLOAT32, 32},   {"float64", TX_TMAP_DT_FLOAT64, 64},
      {"bfloat16", TX_TMAP_DT_BFLOAT16, 16}, {"float8_e4m3fn", TX_TMAP_DT_UINT8, 8},
      {"float8_e5m2", TX_TMAP_DT_UINT8, 8},  {"float4_e2m1fn", TX_TMAP_DT_16U4_ALIGN16B, 4},
  };
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    int cu = -1, bits = -1;
    cr_expect(tx_tensormap_dtype(ok[i].name, &cu, &bits), "%s", ok[i].name);
    cr_expect_eq(cu, ok[i].cu, "%s -> %d", ok[i].name, cu);
    cr_expect_eq(bits, ok[i].bits, "%s: %d bits", ok[i].name, bits);
  }
  /* TVM's runtime has no tensor-map type for these either. */
  static const char *const bad[] = {"int16",         "bool", "float16x2", "handle",
                                    "float6_e2m3fn", "void", "tensormap", NULL};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    cr_expect(!tx_tensormap_dtype(bad[i], NULL, NULL), "%s", bad[i] ? bad[i] : "NULL");
}

/* ---- TVM's host checks ---------------------------------------------------------------- */

/* A valid rank-2 float16 map: 128 x 64 elements, 64 x 16 boxes, 128B swizzle. */
static tx_tensormap_values base(void) {
  tx_tensormap_values v = {0};
  v.cu_dtype = TX_TMAP_DT_FLOAT16;
  v.elem_bits = 16;
  v.rank = 2;
  v.addr = 0x10000;
  v.dims[0] = 128, v.dims[1] = 64;
  v.strides[0] = 256;
  v.box[0] = 64, v.box[1] = 16;
  v.elem_strides[0] = v.elem_strides[1] = 1;
  v.swizzle = TX_TMAP_SWIZZLE_128B;
  v.l2_promotion = TX_TMAP_L2_128B;
  return v;
}

static void expect_rule(tx_tensormap_values v, const char *want) {
  char why[256] = "";
  cr_expect_eq(tx_tensormap_rules(&v, why, sizeof why), 0, "passed, wanted '%s'", want);
  cr_expect_str_eq(why, want);
}

Test(tensormap_check, every_rule) {
  char why[256];
  tx_tensormap_values v = base();
  cr_assert(tx_tensormap_rules(&v, why, sizeof why), "%s", why);
  v.rank = 6, expect_rule(v, "tensorRank = 6 must be in 1..5");
  v = base(), v.cu_dtype = 16, expect_rule(v, "tensorDataType = 16 is not a CUtensorMapDataType");
  v = base(), v.dims[1] = 0, expect_rule(v, "globalDim[1] = 0 must be in 1..2^32");
  v = base(), v.dims[0] = (INT64_C(1) << 32) + 1;
  expect_rule(v, "globalDim[0] = 4294967297 must be in 1..2^32");
  v = base(), v.strides[0] = 200, expect_rule(v, "globalStrides[0] = 200 must be a multiple of 16");
  v = base(), v.strides[0] = INT64_C(1) << 40;
  expect_rule(v, "globalStrides[0] = 1099511627776 must be in 0..2^40-1");
  v = base(), v.box[1] = 257, expect_rule(v, "boxDim[1] = 257 must be in 1..256");
  v = base(), v.elem_strides[0] = 9, expect_rule(v, "elementStrides[0] = 9 must be in 1..8");
  v = base(), v.interleave = 3;
  expect_rule(v, "interleave = 3 is not a CUtensorMapInterleave (0..2)");
  v = base(), v.swizzle = 7, expect_rule(v, "swizzle = 7 is not a CUtensorMapSwizzle (0..6)");
  v = base(), v.l2_promotion = 4;
  expect_rule(v, "l2Promotion = 4 is not a CUtensorMapL2promotion (0..3)");
  v = base(), v.oob_fill = 2, expect_rule(v, "oobFill = 2 is not a CUtensorMapFloatOOBfill (0..1)");
  v = base(), v.addr = 0x10008, expect_rule(v, "globalAddress = 0x10008 must be 16-byte aligned");
  v = base(), v.interleave = TX_TMAP_INTERLEAVE_16B;
  expect_rule(v, "tensorRank = 2 must be at least 3 when interleave is not NONE");
  /* 64 float16 = 128 bytes: fine under 128B swizzle, not under 64B or 32B. */
  v = base(), v.swizzle = TX_TMAP_SWIZZLE_64B;
  expect_rule(v, "boxDim[0] * element size = 128 bytes exceeds the 64-byte swizzle span");
  v = base(), v.swizzle = TX_TMAP_SWIZZLE_32B;
  expect_rule(v, "boxDim[0] * element size = 128 bytes exceeds the 32-byte swizzle span");
  v = base(), v.box[0] = 12;
  expect_rule(v, "boxDim[0] * element size = 24 bytes must be a multiple of 16");
  v = base(), v.cu_dtype = TX_TMAP_DT_INT32, v.elem_bits = 32, v.box[0] = 32,
  v.oob_fill = TX_TMAP_OOB_NAN_REQUEST_ZERO_FMA;
  expect_rule(v, "oobFill NAN_REQUEST_ZERO_FMA needs a floating-point type");
  /* Packed fp4 in 16-byte groups: 32-byte alignment, 128-element rows and boxes. */
  v = base(), v.cu_dtype = TX_TMAP_DT_16U4_ALIGN16B, v.elem_bits = 4, v.box[0] = 128;
  v.swizzle = 0, v.addr = 0x10010;
  expect_rule(v, "globalAddress = 0x10010 must be 32-byte aligned");
  v.addr = 0x10000, v.box[0] = 64;
  expect_rule(v, "boxDim[0] = 64 must be 128 for a packed 16U4/16U6 type");
  v.box[0] = 128, v.dims[0] = 192;
  expect_rule(v, "globalDim[0] = 192 must be a multiple of 128 for a packed 16U4/16U6 type");
  v.dims[0] = 256;
  cr_expect(tx_tensormap_rules(&v, why, sizeof why), "%s", why);
  /* The rules TVM added after its first checks (cuda_device_api.cc). */
  v = base(), v.elem_strides[0] = 2;
  expect_rule(v, "elementStrides[0] = 2 must be one because tiled TMA does not support an "
                 "innermost element stride");
  v = base(), v.rank = 3, v.dims[2] = 4, v.strides[1] = 4096, v.box[2] = 1, v.elem_strides[2] = 1;
  v.interleave = TX_TMAP_INTERLEAVE_32B, v.swizzle = TX_TMAP_SWIZZLE_64B;
  expect_rule(v, "interleave 32B (CU_TENSOR_MAP_INTERLEAVE_32B) requires "
                 "CU_TENSOR_MAP_SWIZZLE_32B, not swizzle = 2");
  v.swizzle = TX_TMAP_SWIZZLE_32B;
  cr_expect(tx_tensormap_rules(&v, why, sizeof why), "%s", why);
  v = base(), v.cu_dtype = TX_TMAP_DT_16U4_ALIGN16B, v.elem_bits = 4, v.box[0] = 128;
  v.dims[0] = 256, v.swizzle = TX_TMAP_SWIZZLE_64B;
  expect_rule(v, "CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B supports only NONE, 128B, or "
                 "128B_ATOM_32B swizzle, not swizzle = 2");
  /* force_cu_dtype: -1 keeps the mapping; 11 (TFLOAT32) only over float32. */
  v = base(), v.has_force = 1, v.force_dtype = -1;
  cr_expect(tx_tensormap_rules(&v, why, sizeof why), "%s", why);
  cr_expect_eq(tx_tensormap_driver_dtype(&v), TX_TMAP_DT_FLOAT16);
  v.force_dtype = -2;
  expect_rule(v, "force_cu_dtype = -2 must be -1 (derive from the tensor dtype) or 11");
  v.force_dtype = 7;
  expect_rule(v, "force_cu_dtype = 7: only CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 (11) is supported");
  v.force_dtype = TX_TMAP_DT_TFLOAT32;
  expect_rule(v, "CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 requires a scalar float32 tensor dtype");
  v.cu_dtype = TX_TMAP_DT_FLOAT32, v.elem_bits = 32, v.box[0] = 32;
  cr_expect(tx_tensormap_rules(&v, why, sizeof why), "%s", why);
  cr_expect_eq(tx_tensormap_driver_dtype(&v), TX_TMAP_DT_TFLOAT32);
  /* Rank 1 has no strides; rank 5 has four. */
  v = base(), v.rank = 1;
  cr_expect(tx_tensormap_rules(&v, why, sizeof why), "%s", why);
}

/* ---- the IR: parse, flags, encode calls ----------------------------------------------- */

typedef struct parsed {
  tirx_ctx *ctx;
  tirx_module *m;
  tirx_status st;
  char diags[4096];
} parsed;

static void parse(parsed *p, const char *src) {
  memset(p, 0, sizeof *p);
  cr_assert_eq(tirx_ctx_create(&p->ctx), TIRX_OK);
  p->st = tirx_parse_string(p->ctx, "t.tirx", src, strlen(src), &p->m);
  size_t need = 0;
  tirx_diag_render(p->ctx, p->diags, sizeof p->diags, &need);
}

static const tx_stmt *top(const tx_func *f, uint32_t i) {
  cr_assert(f->body && f->body->kind == STMT_SEQ && i < f->body->nstmts);
  return f->body->stmts[i];
}

Test(tensormap_ir, spellings_set_the_flag) {
  parsed p;
  parse(&p, HDR "def f(A: T.Buffer((64, 64), \"float16\"), P: T.TensorMap(), "
                "Q: T.handle(\"cuTensorMap\"), h: T.handle, x: T.handle(\"float32\")):\n"
                "    a: T.let[T.handle(\"tensormap\")] = T.tvm_stack_alloca(\"tensormap\", 1)\n"
                "    b: T.handle(\"TensorMap\") = T.stack_alloca(\"tensormap\", 1)\n"
                "    c = T.tvm_stack_alloca(\"tensormap\", 1)\n"
                "    d = T.tvm_stack_alloca(\"shape\", 4)\n"
                "    e: T.let[T.TensorMap()] = h\n"
                "    g: T.let[T.handle] = T.tvm_stack_alloca(\"tensormap\", 1)\n");
  cr_assert_eq(p.st, TIRX_OK, "%s", p.diags);
  const tx_func *f = p.m->mod->funcs[0];
  cr_expect(f->params[1]->u.var.tensormap && f->params[1]->dtype.code == DT_HANDLE);
  cr_expect(f->params[2]->u.var.tensormap);
  cr_expect(!f->params[3]->u.var.tensormap && !f->params[4]->u.var.tensormap);
  for (uint32_t i = 0; i < 6; i++) {
    const tx_stmt *s = top(f, i);
    cr_assert_eq(s->kind, STMT_BIND);
    cr_expect_eq(s->vars[0]->u.var.tensormap, i != 3, "binding %u", i);
    cr_expect_eq(s->vars[0]->dtype.code, DT_HANDLE);
  }
  /* The old printer's `b: T.handle("TensorMap") = ...` binds immutably. */
  cr_expect_eq(top(f, 1)->flag, BIND_LET_TYPED);
  const tx_expr *count = NULL;
  cr_expect(tx_tensormap_is_alloca(top(f, 0)->exprs[0], &count) && count->u.ival == 1);
  cr_expect(!tx_tensormap_is_alloca(top(f, 3)->exprs[0], NULL), "a \"shape\" alloca");
  tirx_ctx_destroy(p.ctx);
}

Test(tensormap_ir, encode_call_operands) {
  parsed p;
  parse(&p,
        HDR "def f(A: T.Buffer((8, 64, 64), \"float16\"), n: T.int32):\n"
            "    M: T.let[T.TensorMap()] = T.tvm_stack_alloca(\"tensormap\", 1)\n"
            "    T.call_packed(\"runtime.cuTensorMapEncodeTiled\", M, \"float16\", 3, A.data, "
            "64, 64, n, 128, 8192, 64, 32, 1, 1, 1, 2, 1, 0, 3, 0, 11)\n"
            "    T.tvm_call_packed(\"runtime.cuTensorMapEncodeTiled\", M, \"uint8\", 1, A.data, "
            "64, 16, 1, 0, 0, 0, 0)\n");
  cr_assert_eq(p.st, TIRX_OK, "%s", p.diags);
  const tx_func *f = p.m->mod->funcs[0];
  tx_tensormap_encode e;
  char why[256] = "";
  cr_assert(tx_tensormap_encode_parse(top(f, 1)->exprs[0], &e, NULL, why, sizeof why), "%s", why);
  cr_expect_eq(e.map, top(f, 0)->vars[0]);
  cr_expect_str_eq(e.dtype, "float16");
  cr_expect_eq(e.cu_dtype, TX_TMAP_DT_FLOAT16);
  cr_expect_eq(e.rank, 3);
  cr_expect(e.dims[0]->u.ival == 64 && e.dims[2] == f->params[1], "dims (64, 64, n)");
  cr_expect(e.strides[0]->u.ival == 128 && e.strides[1]->u.ival == 8192);
  cr_expect(e.box[0]->u.ival == 64 && e.box[1]->u.ival == 32 && e.box[2]->u.ival == 1);
  cr_expect(e.elem_strides[0]->u.ival == 1 && e.elem_strides[2]->u.ival == 2);
  cr_expect(e.interleave->u.ival == 1 && e.swizzle->u.ival == 0 && e.l2_promotion->u.ival == 3);
  cr_expect(e.oob_fill->u.ival == 0 && e.force_dtype && e.force_dtype->u.ival == 11);
  cr_assert(tx_tensormap_encode_parse(top(f, 2)->exprs[0], &e, NULL, why, sizeof why), "%s", why);
  cr_expect(e.rank == 1 && e.cu_dtype == TX_TMAP_DT_UINT8 && !e.force_dtype);
  tirx_ctx_destroy(p.ctx);
}

/* ---- CUDA ------------------------------------------------------------------------------- */

static const tx_target SM90 = {"sm_90a", 90, 2, NULL};

typedef struct cuda {
  parsed p;
  tirx_status split, codegen;
  tx_strbuf cu;
  tx_line_map map;
} cuda;

static void to_cuda(cuda *c, const char *src) {
  memset(c, 0, sizeof *c);
  parse(&c->p, src);
  cr_assert_eq(c->p.st, TIRX_OK, "%s", c->p.diags);
  const tx_module *lowered = NULL;
  tx_pass_ctx pc = {.ir = &c->p.ctx->ir, .diags = c->p.ctx->diags, .target = &SM90};
  c->split = tx_pass_split_host_device(&pc, c->p.m->mod, &lowered);
  if (c->split == TIRX_OK)
    c->codegen = tx_codegen_cuda(c->p.ctx->diags, lowered, &SM90, &c->cu, &c->map);
  size_t need = 0;
  tirx_diag_render(c->p.ctx, c->p.diags, sizeof c->p.diags, &need);
}

static void cuda_free(cuda *c) {
  tx_sb_free(&c->cu);
  tx_line_map_free(&c->map);
  tirx_ctx_destroy(c->p.ctx);
}

Test(tensormap_cuda, by_value_parameter_and_its_address) {
  cuda c;
  to_cuda(&c, HDR "def k(A_map: T.TensorMap(), G: T.handle, n: T.int32):\n"
                  "    T.device_entry(grid=(1, 1, 1), block=(32, 1, 1))\n"
                  "    tx = T.launch_thread(\"threadIdx.x\", 32)\n"
                  "    if tx == n:\n"
                  "        T.ptx.prefetch_tensormap(T.address_of(A_map))\n"
                  "        T.ptx.prefetch_tensormap(A_map)\n"
                  "        T.ptx.prefetch_tensormap(G)\n");
  cr_assert_eq(c.codegen, TIRX_OK, "%s", c.p.diags);
  const char *cu = c.cu.data;
  /* the type, once, before the kernel */
  const char *def =
      strstr(cu, "struct alignas(64) tx_tensormap {\n  unsigned long long opaque[16];\n};");
  cr_expect(def, "%s", cu);
  cr_expect(def && !strstr(def + 1, "struct alignas(64) tx_tensormap"), "defined twice");
  cr_expect(strstr(cu, "k_kernel(const __grid_constant__ tx_tensormap A_map, void* __restrict__ "
                       "G_ptr, int n)"),
            "%s", cu);
  /* T.address_of(A_map) and A_map itself are both the parameter's address;
   * a T.handle parameter is the pointer it holds (a map in global memory). */
  const char *want = "asm volatile(\"prefetch.tensormap [%0];\" :: "
                     "\"l\"((unsigned long long)(((void*)&A_map))) : \"memory\");";
  const char *first = strstr(cu, want);
  cr_expect(first && strstr(first + 1, want), "two prefetches of &A_map in:\n%s", cu);
  cr_expect(strstr(cu, "\"l\"((unsigned long long)(G_ptr))"), "%s", cu);
  cuda_free(&c);
}

Test(tensormap_cuda, no_type_without_maps) {
  cuda c;
  to_cuda(&c, HDR "def k(G: T.handle):\n"
                  "    T.device_entry(grid=(1, 1, 1), block=(32, 1, 1))\n"
                  "    tx = T.launch_thread(\"threadIdx.x\", 32)\n"
                  "    T.ptx.prefetch_tensormap(G)\n");
  cr_assert_eq(c.codegen, TIRX_OK, "%s", c.p.diags);
  cr_expect(!strstr(c.cu.data, "tx_tensormap"), "%s", c.cu.data);
  cuda_free(&c);
}

Test(tensormap_cuda, address_of_a_plain_handle_is_an_error) {
  cuda c;
  to_cuda(&c, HDR "def k(G: T.handle):\n"
                  "    T.device_entry(grid=(1, 1, 1), block=(32, 1, 1))\n"
                  "    tx = T.launch_thread(\"threadIdx.x\", 32)\n"
                  "    T.ptx.prefetch_tensormap(T.address_of(G))\n");
  cr_expect_neq(c.codegen, TIRX_OK);
  cr_expect(strstr(c.p.diags, "t.tirx:7:30: error: T.address_of is not supported by CUDA "
                              "codegen: expected a buffer element"),
            "%s", c.p.diags);
  cuda_free(&c);
}
