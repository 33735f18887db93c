/*
 * test_ptx_mma.c - the CUDA emitters of target/cuda/ptx_mma.c (wgmma, mma,
 * mma.sp, ldmatrix, stmatrix): the inline asm each TVM operand form
 * becomes, that the forms TVM treats alike give the same instruction, the
 * wgmma descriptor bit layout (the helper's own text, run on the host), and
 * located errors for the forms that are not valid (dtype combinations,
 * shapes, non-constant parameters, register counts, operand kinds).
 *
 * The complete kernels are golden files (tests/golden/cuda/mma.tirx and
 * wgmma.tirx), assembled by ptxas in ctest (cuda.ptxas.golden).
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/cuda/cuda_internal.h"
#include "cuda_harness.h"

static const tx_target SM90 = {"sm_90a", 90, 2, NULL};

/* A kernel of one warpgroup with the buffers the bodies below use. */
static const cuda_kernel K = {
    "k.tirx",
    "# from tvm.script import tirx as T\n\n@T.prim_func\n"
    "def k(A: T.Buffer((4096,), \"float16\"), C: T.Buffer((256,), \"float32\"), n: T.int32):\n"
    "    T.device_entry(grid=(1, 1, 1), block=(128, 1, 1))\n"
    "    tx = T.launch_thread(\"threadIdx.x\", 128)\n"
    "    As = T.alloc_buffer((4096,), \"float16\", scope=\"shared\", align=1024)\n"
    "    acc = T.alloc_local((128,), \"float32\")\n"
    "    hacc = T.alloc_local((64,), \"uint32\")\n"
    "    a = T.alloc_local((4,), \"uint32\")\n"
    "    b = T.alloc_local((4,), \"uint32\")\n"
    "    ia = T.alloc_local((4,), \"int32\")\n"
    "    dA = T.alloc_local((1,), \"uint64\")\n"
    "    dB = T.alloc_local((1,), \"uint64\")\n"
    "    meta = T.alloc_local((1,), \"uint32\")\n"};

/* The CUDA of a body that must compile; the caller frees it. */
static char *cuda_of(const char *body) {
  return cuda_text_of(&SM90, &K, body);
}

static void expect_has(const char *cu, const char *needle) {
  cr_expect(strstr(cu, needle), "expected '%s' in:\n%s", needle, cu);
}

/* A body that must fail in codegen with `needle`, located at its first
 * line (the bodies start at line 16 of the source). */
static void expect_error(const char *body, const char *needle) {
  cuda_expect_error(&SM90, &K, body, needle, 16);
}

/* "acc[0], acc[1], ..." */
static const char *regs(const char *buf, int from, int n) {
  static char out[4][4096];
  static int k;
  char *o = out[k++ % 4];
  size_t len = 0;
  o[0] = 0;
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(o + len, sizeof out[0] - len, "%s%s[%d]", i ? ", " : "", buf, from + i);
  return o;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
  static char out[4][16384];
  static int k;
  char *o = out[k++ % 4];
  va_list ap;
  va_start(ap, f);
  vsnprintf(o, sizeof out[0], f, ap);
  va_end(ap);
  return o;
}

/* ---- wgmma ------------------------------------------------------------------------ */

Test(wgmma, ss_printed_form) {
  char *cu = cuda_of(fmt("    T.ptx.wgmma.mma_async.ss(64, 64, 16, \"float16\", \"float32\", "
                         "T.bool(False), T.bool(True), T.float32(1.0), T.float32(1.0), "
                         "T.bool(True), dA[0], dB[0], %s)\n",
                         regs("acc", 0, 32)));
  char *l = cuda_line_with(cu, "wgmma.mma_async");
  expect_has(l, "setp.ne.b32 tx_sd, %34, 0;");
  expect_has(l, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2,");
  expect_has(l, "%30, %31}, %32, %33, tx_sd, 1, 1, 0, 1;");
  expect_has(l, "\"+f\"(acc_ptr[0]), \"+f\"(acc_ptr[1])");
  expect_has(l, "\"+f\"(acc_ptr[31]) : \"l\"((unsigned long long)(dA_ptr[0])), "
                "\"l\"((unsigned long long)(dB_ptr[0])), \"r\"((unsigned)(true)) : \"memory\")");
  cr_expect(!strstr(l, "acc_ptr[32]"), "%s", l);
  free(l);
  free(cu);
}

Test(wgmma, keyword_form_is_the_printed_form) {
  char *pos = cuda_of(fmt("    T.ptx.wgmma.mma_async.ss(64, 16, 16, \"bfloat16\", \"float32\", "
                          "True, False, -1.0, 1.0, n > 0, dA[0], dB[0], %s)\n",
                          regs("acc", 0, 8)));
  char *kw = cuda_of(fmt("    T.ptx.wgmma.mma_async.ss(dA[0], dB[0], %s, M=64, N=16, K=16, "
                         "in_dtype=\"bfloat16\", out_dtype=\"float32\", transA=True, "
                         "transB=False, scaleA=-1.0, scaleB=1.0, scaleD=n > 0)\n",
                         regs("acc", 0, 8)));
  cr_expect_str_eq(pos, kw);
  /* imm-scale-a -1 negates A (PTX), then the two transposes. */
  char *l = cuda_line_with(pos, "wgmma.mma_async");
  expect_has(l, ".m64n16k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, tx_sd, -1, 1, "
                "1, 0;");
  free(l);
  expect_has(pos, "\"r\"((unsigned)((n > 0)))");
  free(pos);
  free(kw);
}

Test(wgmma, rs_takes_a_registers_before_the_accumulators) {
  char *cu = cuda_of(fmt("    T.ptx.wgmma.mma_async.rs(64, 32, 16, \"float16\", \"float32\", "
                         "T.bool(True), T.bool(True), T.float32(1.0), T.float32(-1.0), "
                         "T.bool(False), dB[0], %s, %s)\n",
                         regs("a", 0, 4), regs("acc", 16, 16)));
  char *l = cuda_line_with(cu, "wgmma.mma_async");
  /* transA is meaningless for A in registers (TVM ignores it): only imm-trans-b. */
  expect_has(l, ".m64n32k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, "
                "%13, %14, %15}, {%16, %17, %18, %19}, %20, tx_sd, 1, -1, 1;");
  expect_has(l, "\"+f\"(acc_ptr[16])");
  expect_has(l, "\"+f\"(acc_ptr[31]) : \"r\"(a_ptr[0]), \"r\"(a_ptr[1]), \"r\"(a_ptr[2]), "
                "\"r\"(a_ptr[3]), \"l\"((unsigned long long)(dB_ptr[0]))");
  free(l);
  free(cu);
}

Test(wgmma, f16_and_fp8_accumulate_in_f16x2_registers) {
  char *cu =
      cuda_of(fmt("    T.ptx.wgmma.mma_async.ss(64, 32, 16, \"float16\", \"float16\", "
                  "False, False, 1.0, 1.0, True, dA[0], dB[0], %s)\n"
                  "    T.ptx.wgmma.mma_async.ss(64, 256, 32, \"float8_e4m3fn\", \"float16\", "
                  "False, False, 1.0, 1.0, True, dA[0], dB[0], %s)\n",
                  regs("hacc", 0, 8), regs("hacc", 0, 64)));
  expect_has(cu, "wgmma.mma_async.sync.aligned.m64n32k16.f16.f16.f16 {%0, %1, %2, %3, %4, %5, "
                 "%6, %7}, %8, %9, tx_sd, 1, 1, 0, 0;");
  expect_has(cu, "\"+r\"(hacc_ptr[7])");
  /* fp8 has no transpose immediates. */
  expect_has(cu, ".m64n256k32.f16.e4m3.e4m3 {%0,");
  expect_has(cu, "%63}, %64, %65, tx_sd, 1, 1;");
  free(cu);
}

Test(wgmma, tf32_and_e5m2) {
  char *cu = cuda_of(fmt("    T.ptx.wgmma.mma_async.ss(64, 8, 8, \"tf32\", \"float32\", False, "
                         "False, 1.0, 1.0, True, dA[0], dB[0], %s)\n"
                         "    T.ptx.wgmma.mma_async.rs(dB[0], %s, %s, M=64, N=8, K=32, "
                         "in_dtype=\"e5m2\", out_dtype=\"float32\", transA=False, transB=False, "
                         "scaleA=1.0, scaleB=1.0, scaleD=True)\n",
                         regs("acc", 0, 4), regs("a", 0, 4), regs("acc", 4, 4)));
  expect_has(cu, "m64n8k8.f32.tf32.tf32 {%0, %1, %2, %3}, %4, %5, tx_sd, 1, 1;");
  expect_has(cu, "m64n8k32.f32.e5m2.e5m2 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, tx_sd, 1, 1;");
  free(cu);
}

Test(wgmma, fences_waits_and_descriptors) {
  char *cu = cuda_of("    T.ptx.wgmma.noop_barrier(acc[3])\n"
                     "    T.ptx.wgmma.noop_barrier(hacc[tx % 4])\n"
                     "    T.ptx.wgmma.wait_group(n=1)\n"
                     "    T.ptx.wgmma.wait_group(0)\n"
                     "    T.ptx.wgmma.encode_matrix_descriptor(T.address_of(dA[0]), As.data, 1, "
                     "64, swizzle=3)\n"
                     "    T.cuda.wgmma.encode_matrix_descriptor(dB.data, As.ptr_to([64]), 8, 16, "
                     "n)\n");
  expect_has(cu, "asm volatile(\"\" : \"+f\"(acc_ptr[3]) : : \"memory\");");
  expect_has(cu, "asm volatile(\"\" : \"+r\"(hacc_ptr[(tx % 4)]) : : \"memory\");");
  expect_has(cu, "asm volatile(\"wgmma.wait_group.sync.aligned 1;\" ::: \"memory\");");
  expect_has(cu, "asm volatile(\"wgmma.wait_group.sync.aligned 0;\" ::: \"memory\");");
  expect_has(cu, "(*(unsigned long long*)(&dA_ptr[0]) = tx_wgmma_desc(As_ptr, 1, 64, 3));");
  expect_has(cu, "(*(unsigned long long*)dB_ptr = tx_wgmma_desc((As_ptr + 64), 8, 16, n));");
  /* the helper is in the preamble, after the one it calls */
  const char *h = strstr(cu, "unsigned long long tx_wgmma_desc(");
  const char *s = strstr(cu, "unsigned tx_smem_addr(");
  cr_expect(h && s && s < h, "%s", cu);
  free(cu);
}

/* The descriptor helper's own text, compiled for the host with a stand-in
 * for the shared address: the bit layout TVM's GmmaDescriptor has. */
static unsigned host_addr(const void *p) {
  return (unsigned)(uintptr_t)p;
}
TX_CUDA_WGMMA_DESC(static, host_addr)

Test(wgmma, descriptor_bits) {
  /* 128B swizzle, ldo 1, sdo 64 (CUTLASS's canonical K-major 128B value) */
  cr_expect_eq(tx_wgmma_desc((void *)(uintptr_t)0, 1, 64, 3), 0x4000004000010000ull);
  cr_expect_eq(tx_wgmma_desc((void *)(uintptr_t)0x1230, 1, 64, 3), 0x4000004000010123ull);
  cr_expect_eq(tx_wgmma_desc((void *)(uintptr_t)0x400, 8, 16, 0), 0x0000001000080040ull);
  cr_expect_eq(tx_wgmma_desc((void *)(uintptr_t)0, 0, 0, 1) >> 62, 3u);
  cr_expect_eq(tx_wgmma_desc((void *)(uintptr_t)0, 0, 0, 2) >> 62, 2u);
  /* fields are 14 bits wide; the address is taken modulo 256 KiB */
  cr_expect_eq(tx_wgmma_desc((void *)(uintptr_t)0x40010, 0x4001, 0x4002, 0), 0x0000000200010001ull);
  const char *s = TX_CUDA_STR(TX_CUDA_WGMMA_DESC(__device__ __forceinline__, tx_smem_addr));
  cr_expect(strstr(s, "__device__ __forceinline__ unsigned long long tx_wgmma_desc(") &&
                strstr(s, "tx_smem_addr(p)"),
            "%s", s);
}

Test(wgmma_errors, dtype_combinations) {
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(64, 64, 16, \"bfloat16\", \"float16\", False, "
                   "False, 1.0, 1.0, True, dA[0], dB[0], %s)\n",
                   regs("hacc", 0, 16)),
               "out_dtype .f16 does not go with in_dtype .bf16");
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(64, 64, 16, \"int8\", \"int32\", False, False, "
                   "1.0, 1.0, True, dA[0], dB[0], %s)\n",
                   regs("acc", 0, 32)),
               "in_dtype .s8 is not supported");
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(64, 64, 16, \"f17\", \"float32\", False, False, "
                   "1.0, 1.0, True, dA[0], dB[0], %s)\n",
                   regs("acc", 0, 32)),
               "in_dtype \"f17\" is not a PTX matrix type");
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(64, 64, 16, \"tf32\", \"float32\", False, False, "
                   "1.0, 1.0, True, dA[0], dB[0], %s)\n",
                   regs("acc", 0, 32)),
               "K must be 8 for in_dtype .tf32, got 16");
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(64, 64, 32, \"e4m3\", \"float32\", False, True, "
                   "1.0, 1.0, True, dA[0], dB[0], %s)\n",
                   regs("acc", 0, 32)),
               "transA/transB must be False for in_dtype .e4m3");
}

Test(wgmma_errors, shapes_must_be_constant_and_valid) {
  expect_error(
      fmt("    T.ptx.wgmma.mma_async.ss(64, n, 16, \"float16\", \"float32\", False, False, "
          "1.0, 1.0, True, dA[0], dB[0], %s)\n",
          regs("acc", 0, 32)),
      "N must be an integer constant");
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(64, 60, 16, \"float16\", \"float32\", False, "
                   "False, 1.0, 1.0, True, dA[0], dB[0], %s)\n",
                   regs("acc", 0, 30)),
               "N must be a multiple of 8 in 8..256, got 60");
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(128, 64, 16, \"float16\", \"float32\", False, "
                   "False, 1.0, 1.0, True, dA[0], dB[0], %s)\n",
                   regs("acc", 0, 32)),
               "M must be 64, got 128");
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(64, 64, 16, \"float16\", \"float32\", tx > 0, "
                   "False, 1.0, 1.0, True, dA[0], dB[0], %s)\n",
                   regs("acc", 0, 32)),
               "transA must be a constant");
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(64, 64, 16, \"float16\", \"float32\", False, "
                   "False, 2.0, 1.0, True, dA[0], dB[0], %s)\n",
                   regs("acc", 0, 32)),
               "scaleA must be 1.0 or -1.0");
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(dA[0], dB[0], %s, M=64, N=64, K=16, "
                   "in_dtype=\"float16\", out_dtype=\"float32\", transA=False, transB=False, "
                   "scaleA=1.0, scaleB=1.0)\n",
                   regs("acc", 0, 32)),
               "missing scaleD=");
}

Test(wgmma_errors, register_counts_and_kinds) {
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(64, 64, 16, \"float16\", \"float32\", False, "
                   "False, 1.0, 1.0, True, dA[0], dB[0], %s)\n",
                   regs("acc", 0, 31)),
               "takes 32 accumulator registers (float32, N/2) after descA and descB, got 31");
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(64, 64, 16, \"float16\", \"float16\", False, "
                   "False, 1.0, 1.0, True, dA[0], dB[0], %s)\n",
                   regs("hacc", 0, 32)),
               "takes 16 accumulator registers (uint32 f16x2 pairs, N/4)");
  expect_error(fmt("    T.ptx.wgmma.mma_async.rs(64, 8, 16, \"float16\", \"float32\", False, "
                   "False, 1.0, 1.0, True, dB[0], %s)\n",
                   regs("acc", 0, 4)),
               "after descB and the 4 A registers, got 0");
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(64, 8, 16, \"float16\", \"float32\", False, "
                   "False, 1.0, 1.0, True, dA[0], dB[0], acc[0], acc[1], acc[2], T.float32(0))\n"),
               "accumulator 3 must be a float32 buffer element");
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(64, 8, 16, \"float16\", \"float32\", False, "
                   "False, 1.0, 1.0, True, dA[0], dB[0], %s)\n",
                   regs("hacc", 0, 4)),
               "accumulator 0 must be a float32 buffer element");
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(64, 8, 16, \"float16\", \"float32\", False, "
                   "False, 1.0, 1.0, True, a[0], dB[0], %s)\n",
                   regs("acc", 0, 4)),
               "descA must be a 64-bit matrix descriptor");
  expect_error(fmt("    T.ptx.wgmma.mma_async.rs(64, 8, 16, \"float16\", \"float32\", False, "
                   "False, 1.0, 1.0, True, dB[0], %s, %s)\n",
                   regs("acc", 4, 4), regs("acc", 0, 4)),
               "A register 0 must be a 32-bit integer");
  expect_error(fmt("    T.ptx.wgmma.mma_async.ss(64, 8, 16, \"float16\", \"float32\", False, "
                   "False, 1.0, 1.0, 1.5, dA[0], dB[0], %s)\n",
                   regs("acc", 0, 4)),
               "scaleD must be a bool or integer scalar");
}

Test(wgmma_errors, companions) {
  expect_error("    T.ptx.wgmma.noop_barrier(0)\n",
               "must be a float32 or 32-bit integer buffer element");
  expect_error("    T.ptx.wgmma.noop_barrier(dA[0])\n", "got uint64");
  expect_error("    T.ptx.wgmma.wait_group(n)\n", "must be an integer constant");
  expect_error("    T.ptx.wgmma.encode_matrix_descriptor(T.address_of(dA[0]), As.data, 1, 64, "
               "5)\n",
               "swizzle must be 0..3");
  expect_error("    T.ptx.wgmma.encode_matrix_descriptor(T.address_of(dA[0]), As.data, 1, 64)\n",
               "missing swizzle");
  expect_error("    T.ptx.wgmma.encode_matrix_descriptor(dA[0], As.data, 1, 64, 0)\n",
               "desc (where the uint64 descriptor is stored) must be a pointer");
}

/* ---- mma ------------------------------------------------------------------------------ */

static const char MMA_HEAD[] =
    "    T.ptx.mma(\"m16n8k16\", \"row\", \"col\", \"float32\", \"float16\", \"float16\", "
    "\"float32\", ";

Test(mma, list_form) {
  char *cu = cuda_of(fmt("%s[acc.ptr_to([0]), acc.ptr_to([1]), acc.ptr_to([2]), acc.ptr_to([3])], "
                         "[a.ptr_to([0]), a.ptr_to([1]), a.ptr_to([2]), a.ptr_to([3])], "
                         "[T.address_of(b[1]), T.address_of(b[0])], "
                         "c_ptrs=[acc.ptr_to([4]), acc.ptr_to([5]), acc.ptr_to([6]), "
                         "acc.ptr_to([7])])\n",
                         MMA_HEAD));
  char *l = cuda_line_with(cu, "mma.sync");
  expect_has(l, "asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, "
                "%3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\" : "
                "\"=f\"(*(float*)(acc_ptr + 0)), \"=f\"(*(float*)(acc_ptr + 1)), ");
  /* each register from its own pointer, in the order given */
  expect_has(l, "\"r\"(*(unsigned*)(&b_ptr[1])), \"r\"(*(unsigned*)(&b_ptr[0])), "
                "\"f\"(*(float*)(acc_ptr + 4))");
  expect_has(l, "\"f\"(*(float*)(acc_ptr + 7)) : \"memory\")");
  free(l);
  free(cu);
}

Test(mma, pointer_printed_and_legacy_forms) {
  char *cu =
      cuda_of(fmt("%sacc.data, a.data, b.data)\n"
                  "    T.ptx.mma(\"m16n8k8\", \"row\", \"col\", \"float32\", \"bf16\", "
                  "\"bf16\", \"float32\", 4, 2, 1, 4, T.bool(True), acc.ptr_to([0]), "
                  "acc.ptr_to([1]), acc.ptr_to([2]), acc.ptr_to([3]), a.ptr_to([0]), "
                  "a.ptr_to([1]), b.ptr_to([0]), T.bool(False))\n"
                  "    T.ptx.mma.legacy(\"m16n8k16\", \"row\", \"col\", \"fp16\", "
                  "\"fp16\", \"fp32\", a.data, 0, b.data, 2, acc.data, tx %% 2 * 4, False)\n",
                  MMA_HEAD));
  /* no c_ptrs: a zero accumulator */
  expect_has(cu, "{%10, %11, %12, %13};\" : \"=f\"(((float*)acc_ptr)[0]), "
                 "\"=f\"(((float*)acc_ptr)[1])");
  expect_has(cu, "\"r\"(((unsigned*)b_ptr)[1]), \"f\"(0.0f), \"f\"(0.0f), \"f\"(0.0f), "
                 "\"f\"(0.0f) : \"memory\");");
  /* no_c_ptr = True: zero C as well */
  expect_has(cu, "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5}, "
                 "{%6}, {%7, %8, %9, %10};");
  expect_has(cu, "\"r\"(*(unsigned*)(b_ptr + 0)), \"f\"(0.0f)");
  /* legacy: D is C, registers at pointer + element offset */
  char *l = cuda_line_with(cu, "(b_ptr + 2)");
  expect_has(l, "\"=f\"(((float*)(acc_ptr + ((tx % 2) * 4)))[3])");
  expect_has(l, "\"r\"(((unsigned*)(b_ptr + 2))[1]), \"f\"(((float*)(acc_ptr + ((tx % 2) * "
                "4)))[0])");
  free(l);
  free(cu);
}

Test(mma, other_types) {
  char *cu = cuda_of(
      "    T.ptx.mma(\"m8n8k4\", \"col\", \"row\", \"float16\", \"float16\", \"float16\", "
      "\"float32\", hacc.data, a.data, b.data, acc.data)\n"
      "    T.ptx.mma(\"m16n8k32\", \"row\", \"col\", \"int32\", \"s8\", \"u8\", \"int32\", "
      "ia.data, a.data, b.data, ia.data, True)\n"
      "    T.ptx.mma(\"m8n8k128\", \"row\", \"col\", \"int32\", \"b1\", \"b1\", \"int32\", "
      "ia.data, a.data, b.data, bit_op=\"and\")\n"
      "    T.ptx.mma(\"m16n8k32\", \"row\", \"col\", \"float16\", \"e4m3\", \"e4m3\", \"float16\", "
      "hacc.data, a.data, b.data, hacc.data)\n");
  /* m8n8k4 f16: 8-thread MMAs, so 4 f16x2 D registers and 8 f32 C registers */
  expect_has(cu, "mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, "
                 "{%6, %7}, {%8, %9, %10, %11, %12, %13, %14, %15};");
  expect_has(cu, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%0, %1, %2, %3}");
  expect_has(cu, "\"=r\"(((int*)ia_ptr)[0])");
  expect_has(cu, "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc {%0, %1}, {%2}, {%3}, "
                 "{%4, %5};");
  expect_has(cu, "\"r\"(0u), \"r\"(0u)");
  expect_has(cu, "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%0, %1}, {%2, %3, %4, %5}, "
                 "{%6, %7}, {%8, %9};");
  free(cu);
}

Test(mma, sparse) {
  char *cu = cuda_of("    T.ptx.mma.sp(\"float32\", \"m16n8k32\", \"row\", \"col\", \"fp16\", "
                     "\"fp16\", \"fp32\", a.data, 0, b.data, 0, acc.data, 4, meta.data, 0, 1, "
                     "False)\n"
                     "    T.ptx.mma.sp(\"m16n8k16\", \"row\", \"col\", \"tf32\", \"tf32\", "
                     "\"fp32\", a.data, 0, b.data, 0, acc.data, 0, meta.data, 0, 2, False, "
                     "dtype=\"float32\")\n");
  expect_has(cu, "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, "
                 "%6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, 0x1;");
  expect_has(cu, "\"r\"(*(unsigned*)meta_ptr) : \"memory\");");
  expect_has(cu, "mma.sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, "
                 "%5, %6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, 0x2;");
  free(cu);
}

Test(mma_errors, dtype_combinations) {
  expect_error("    T.ptx.mma(\"m16n8k16\", \"row\", \"col\", \"float32\", \"float16\", "
               "\"bfloat16\", \"float32\", acc.data, a.data, b.data)\n",
               "multiplicand types .f16 and .bf16 do not go together");
  expect_error("    T.ptx.mma(\"m16n8k16\", \"row\", \"col\", \"float16\", \"bfloat16\", "
               "\"bfloat16\", \"float16\", hacc.data, a.data, b.data)\n",
               "accumulator types .f16 (D) and .f16 (C) do not go with .bf16 x .bf16");
  expect_error("    T.ptx.mma(\"m16n8k16\", \"row\", \"col\", \"float32\", \"float16\", "
               "\"float16\", \"float16\", acc.data, a.data, b.data)\n",
               "accumulator types .f32 (D) and .f16 (C)");
  expect_error("    T.ptx.mma(\"m16n8k16\", \"row\", \"col\", \"float32\", \"tf32\", \"tf32\", "
               "\"float32\", acc.data, a.data, b.data)\n",
               "shape m16n8k16 is not a mma shape for .tf32 multiplicands");
  expect_error("    T.ptx.mma(\"m16n8k16\", \"col\", \"col\", \"float32\", \"float16\", "
               "\"float16\", \"float32\", acc.data, a.data, b.data)\n",
               "layouts must be row, col");
  expect_error("    T.ptx.mma(\"m16n8k16\", \"row\", \"col\", \"float32\", \"float16\", "
               "\"float16\", \"float32\", acc.data, a.data, b.data, acc.data, True)\n",
               "saturate applies to s8/u8/s4/u4");
  expect_error("    T.ptx.mma(\"m8n8k128\", \"row\", \"col\", \"int32\", \"b1\", \"b1\", "
               "\"int32\", ia.data, a.data, b.data)\n",
               "b1 multiplicands need a bit operator");
  expect_error("    T.ptx.mma(\"m16n8k16\", \"row\", \"col\", \"float32\", \"float16\", "
               "\"float16\", \"float32\", acc.data, a.data, b.data, bit_op=\"or\")\n",
               "must be \"xor\" or \"and\"");
  expect_error("    T.ptx.mma(\"m16n8\", \"row\", \"col\", \"float32\", \"float16\", \"float16\", "
               "\"float32\", acc.data, a.data, b.data)\n",
               "shape \"m16n8\" is not of the form mMnNkK");
}

Test(mma_errors, operands) {
  expect_error(fmt("%s[acc.ptr_to([0]), acc.ptr_to([1]), acc.ptr_to([2]), acc.ptr_to([3])], "
                   "[a.ptr_to([0]), a.ptr_to([1]), a.ptr_to([2])], [b.ptr_to([0]), "
                   "b.ptr_to([1])])\n",
                   MMA_HEAD),
               "takes 4 A registers per thread (one pointer each), got 3");
  expect_error(fmt("%s4, 4, 2, 2, False, %s, %s, %s, %s, False)\n", MMA_HEAD,
                   "acc.ptr_to([0]), acc.ptr_to([1]), acc.ptr_to([2]), acc.ptr_to([3])",
                   "a.ptr_to([0]), a.ptr_to([1]), a.ptr_to([2]), a.ptr_to([3])",
                   "b.ptr_to([0]), b.ptr_to([1])", "acc.ptr_to([0]), acc.ptr_to([1])"),
               "takes 4 C registers per thread (one pointer each), got 2");
  expect_error(fmt("%s4, 4, 2, 4, False, acc.ptr_to([0]), False)\n", MMA_HEAD),
               "expected 14 register pointers");
  expect_error(fmt("%s[acc[0], acc.ptr_to([1]), acc.ptr_to([2]), acc.ptr_to([3])], "
                   "[a.ptr_to([0]), a.ptr_to([1]), a.ptr_to([2]), a.ptr_to([3])], "
                   "[b.ptr_to([0]), b.ptr_to([1])])\n",
                   MMA_HEAD),
               "D register 0 must be a pointer");
  expect_error(fmt("%s[acc.ptr_to([0])], a.data, b.data)\n", MMA_HEAD),
               "give every fragment as a list of pointers, or every fragment as one pointer");
  expect_error(fmt("%sacc.data, a.data, b.data, saturate=tx > 0)\n", MMA_HEAD),
               "saturate must be a constant");
  expect_error("    T.ptx.mma(n, \"row\", \"col\", \"float32\", \"float16\", \"float16\", "
               "\"float32\", acc.data, a.data, b.data)\n",
               "shape must be a string");
  expect_error("    T.ptx.mma.sp(\"float32\", \"m16n8k16\", \"row\", \"col\", \"fp16\", \"fp16\", "
               "\"fp32\", a.data, 0, b.data, 0, acc.data, 0, meta.data, 0, n, False)\n",
               "sparsity selector must be an integer constant 0..3");
  expect_error("    T.ptx.mma.sp(\"float32\", \"m16n8k8\", \"row\", \"col\", \"fp16\", \"fp16\", "
               "\"fp32\", a.data, 0, b.data, 0, acc.data, 0, meta.data, 0, 0, False)\n",
               "shape m16n8k8 is not a mma.sp shape");
  expect_error("    T.ptx.mma.legacy(\"m16n8k16\", \"row\", \"col\", \"fp16\", \"fp16\", \"fp32\", "
               "a.data, 0, b.data, 0, acc[0], 0, False)\n",
               "the C fragment must be a pointer");
}

/* ---- ldmatrix / stmatrix ---------------------------------------------------------- */

Test(ldst, forms) {
  char *cu = cuda_of("    T.ptx.ldmatrix(True, 4, \".b16\", As.ptr_to([tx * 8]), "
                     "T.address_of(a[0]), T.address_of(a[2]), T.address_of(a[1]), "
                     "T.address_of(a[3]))\n"
                     "    T.ptx.ldmatrix_legacy(\"float16\", False, 2, \".b16\", b.data, 2, "
                     "As.data, tx * 8)\n"
                     "    T.ptx.stmatrix(False, 2, \".b16\", As.ptr_to([tx * 8]), b.ptr_to([0]), "
                     "b.ptr_to([1]), space=\"shared::cta\")\n"
                     "    T.ptx.stmatrix(True, 1, \"b16\", \"m8n8\", \"shared\", As.data, "
                     "T.address_of(a[0]))\n");
  expect_has(cu, "asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, "
                 "%3}, [%4];\" : \"=r\"(*(unsigned*)(&a_ptr[0])), \"=r\"(*(unsigned*)(&a_ptr[2])),"
                 " \"=r\"(*(unsigned*)(&a_ptr[1])), \"=r\"(*(unsigned*)(&a_ptr[3])) : "
                 "\"r\"(tx_smem_addr((As_ptr + (tx * 8)))) : \"memory\");");
  expect_has(cu, "asm volatile(\"ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\" : "
                 "\"=r\"(((unsigned*)(b_ptr + 2))[0]), \"=r\"(((unsigned*)(b_ptr + 2))[1]) : "
                 "\"r\"(tx_smem_addr((As_ptr + (tx * 8)))) : \"memory\");");
  expect_has(cu, "asm volatile(\"stmatrix.sync.aligned.m8n8.x2.shared::cta.b16 [%0], {%1, %2};\" "
                 ": : \"r\"(tx_smem_addr((As_ptr + (tx * 8)))), \"r\"(*(unsigned*)(b_ptr + 0)), "
                 "\"r\"(*(unsigned*)(b_ptr + 1)) : \"memory\");");
  expect_has(cu, "asm volatile(\"stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};\" : : "
                 "\"r\"(tx_smem_addr(As_ptr)), \"r\"(*(unsigned*)(&a_ptr[0])) : \"memory\");");
  free(cu);
}

Test(ldst_errors, forms) {
  expect_error("    T.ptx.ldmatrix(False, 3, \".b16\", As.data, a.ptr_to([0]), a.ptr_to([1]), "
               "a.ptr_to([2]))\n",
               "num must be 1, 2 or 4, got 3");
  expect_error("    T.ptx.ldmatrix(False, n, \".b16\", As.data, a.ptr_to([0]))\n",
               "num must be an integer constant");
  expect_error("    T.ptx.ldmatrix(False, 2, \".b16\", As.data, a.ptr_to([0]))\n",
               "give 2 destination pointers, got 1");
  expect_error("    T.ptx.ldmatrix(False, 2, \".b8\", As.data, a.ptr_to([0]), a.ptr_to([1]))\n",
               "ldmatrix .m8n8 loads .b16 only");
  expect_error("    T.ptx.ldmatrix(False, 1, \".b32\", As.data, a.ptr_to([0]))\n",
               "the type must be \".b16\" or \".b8\"");
  expect_error("    T.ptx.ldmatrix(False, 1, \".b16\", As.data, a[0])\n",
               "destination register 0 must be a pointer");
  expect_error("    T.ptx.ldmatrix_legacy(\"int8\", True, 4, \".b16\", a.data, 0, As.data, 0)\n",
               "the transposed 8-bit form");
  expect_error("    T.ptx.stmatrix(False, 1, \".b16\", As.data, a.ptr_to([0]), shape=\"m16n8\")\n",
               ".m16n8 stores .b8 and needs trans");
  expect_error("    T.ptx.stmatrix(False, 4, \".b16\", As.data, a.ptr_to([0]), a.ptr_to([1]))\n",
               "give 4 source pointers, got 2");
  expect_error("    T.ptx.stmatrix(False, 1, \".b16\", As.data, a.ptr_to([0]), space=\"global\")\n",
               "space must be \"shared\" or \"shared::cta\"");
  expect_error("    T.ptx.stmatrix(False, 2, \".b16\", \"m8n8\", \"shared\")\n",
               "give 2 source pointers, got 0");
  expect_error("    T.ptx.stmatrix(False, 1, \".b16\", tx, a.ptr_to([0]))\n",
               "the shared memory destination must be a pointer");
}
