/*
 * test_ptx_tcgen05.c - the T.ptx tcgen05 and cluster launch control helpers
 * of target/cuda/ptx_tcgen05.c: the CUDA each form becomes, the descriptor
 * encodings, and the located errors for bad forms and targets.
 *
 * Expected descriptor values are derived by hand from the PTX ISA tables
 * (tcgen05 "Instruction descriptor" and "Shared memory descriptor"), field
 * by field in the comments, never from the code under test. The shared
 * memory descriptor and TMEM address helpers are compiled here as host C
 * from the same macros codegen stringifies into device code.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/cuda/cuda_internal.h"
#include "cuda_harness.h"

static const tx_target SM100A = {"sm_100a", 100, 2, NULL};
static const tx_target SM103A = {"sm_103a", 103, 2, NULL};
static const tx_target SM100 = {"sm_100", 100, 2, NULL};
static const tx_target SM90A = {"sm_90a", 90, 2, NULL};

/* A kernel with the usual operands of these helpers, then the body. */
static const cuda_kernel K = {
    "k.tirx", "# from tvm.script import tirx as T\n\n@T.prim_func\n"
              "def k(A: T.Buffer((128,), \"float32\"), n: T.int32):\n"
              "    T.device_entry(grid=(1, 1, 1), block=(128, 1, 1))\n"
              "    bx = T.launch_thread(\"blockIdx.x\", 1)\n"
              "    tx = T.launch_thread(\"threadIdx.x\", 128)\n"
              "    tm = T.alloc_buffer((4,), \"uint32\", scope=\"shared\", align=16)\n"
              "    bar = T.alloc_buffer((2,), \"uint64\", scope=\"shared\", align=8)\n"
              "    sm = T.alloc_buffer((1024,), \"float16\", scope=\"shared\", align=1024)\n"
              "    d = T.alloc_buffer((2,), \"uint64\", scope=\"local\")\n"
              "    i = T.alloc_buffer((2,), \"uint32\", scope=\"local\")\n"
              "    r = T.alloc_buffer((8,), \"uint32\", scope=\"local\")\n"
              "    f = T.alloc_buffer((8,), \"float32\", scope=\"local\")\n"
              "    h = T.alloc_buffer((8,), \"float16\", scope=\"local\")\n"
              "    t = tm[0]\n"};

/* The CUDA of `body` for `target` contains every needle (NULL-terminated). */
static void expect_cuda_for(const tx_target *target, const char *body, const char *const *needles) {
  cuda_expect_text(target, &K, body, needles);
}

#define EXPECT_CUDA(body, ...)                                                                     \
  expect_cuda_for(&SM100A, body, (const char *const[]){__VA_ARGS__, NULL})

static void expect_error_for(const tx_target *target, const char *body, const char *needle) {
  cuda_expect_error(target, &K, body, needle, 0);
}

static void expect_error(const char *body, const char *needle) {
  expect_error_for(&SM100A, body, needle);
}

/* ---- device helpers as host C ------------------------------------------------- */

TX_CUDA_TCGEN05_SMEM_DESC(static, smem_desc)
TX_CUDA_TMEM_ADDR(static, tmem_addr)

Test(tcgen05_helpers, smem_descriptor_layout) {
  /* start 0x400 >> 4 = 0x40 (bits 0-13); LBO 1 << 16; SBO 64 << 32;
   * 0b001 at 46-48 = 1 << 46; 128B swizzle (TVM 3) is mode 2 at 61-63. */
  cr_expect_eq(smem_desc(0x400, 1, 64, 3), 0x4000404000010040ull);
  /* start (0x7FFF0 & 0x3FFFF) >> 4 = 0x3FFF; LBO 0x4001 keeps 14 bits = 1;
   * SBO 0x3FFF; 32B swizzle (TVM 1) is mode 6: 6 << 61 = 0xC000... */
  cr_expect_eq(smem_desc(0x7FFF0, 0x4001, 0x3FFF, 1), 0xC0007FFF00013FFFull);
  /* no swizzle: mode 0; 64B (TVM 2): mode 4; 128B with 32B atoms (TVM 4): mode 1 */
  cr_expect_eq(smem_desc(0x10, 8, 16, 0), 0x0000401000080001ull);
  cr_expect_eq(smem_desc(0x10, 8, 16, 2), 0x8000401000080001ull);
  cr_expect_eq(smem_desc(0x10, 8, 16, 4), 0x2000401000080001ull);
  /* enum values without a mode leave the swizzle bits 0 (TVM's switch) */
  cr_expect_eq(smem_desc(0x10, 8, 16, 5), 0x0000401000080001ull);
  cr_expect_eq(smem_desc(0x10, 8, 16, 99), 0x0000401000080001ull);
}

Test(tcgen05_helpers, tmem_address_fields) {
  /* lane 16 + 32 = 48 (0x30), column 32 + 8 = 40 (0x28) */
  cr_expect_eq(tmem_addr(0x00100020u, 32, 8), 0x00300028u);
  /* the column wraps at 16 bits without carrying into the lane */
  cr_expect_eq(tmem_addr(0x0001FFF8u, 0, 16), 0x00010008u);
  /* negative offsets subtract within each field */
  cr_expect_eq(tmem_addr(0x00200010u, -32, -16), 0x00000000u);
}

Test(tcgen05_helpers, emitted_text_is_the_tested_text) {
  const char *s =
      TX_CUDA_STR(TX_CUDA_TCGEN05_SMEM_DESC(__device__ __forceinline__, tx_tcgen05_smem_desc));
  cr_expect(strstr(s, "__device__ __forceinline__ unsigned long long tx_tcgen05_smem_desc("), "%s",
            s);
  EXPECT_CUDA("    T.ptx.tcgen05.encode_matrix_descriptor(d.data, sm.data, 1, 64, 3)\n",
              "unsigned long long tx_tcgen05_smem_desc(unsigned addr, unsigned lbo, unsigned sbo, "
              "unsigned swizzle) { unsigned mode = swizzle < 5u ?");
}

/* ---- instruction descriptors ------------------------------------------------------ */

/* T.ptx.tcgen05.<helper><args> stores `value` to i[0]. */
static void expect_idesc_value(const tx_target *target, const char *helper, const char *args,
                               const char *value) {
  char body[1024], want[64];
  snprintf(body, sizeof body, "    T.ptx.tcgen05.%s%s\n", helper, args);
  snprintf(want, sizeof want, "(*(unsigned*)(i_ptr) = %s)", value);
  const char *needles[] = {want, NULL};
  expect_cuda_for(target, body, needles);
}

#define expect_idesc_for(target, args, value)                                                      \
  expect_idesc_value(target, "encode_instr_descriptor", args, value)
#define expect_scaled_idesc_for(target, args, value)                                               \
  expect_idesc_value(target, "encode_instr_descriptor_block_scaled", args, value)

Test(tcgen05_idesc, dense_kinds) {
  /* f16 kind, D f32: dtype F32=1 at 4-5 (0x10); A, B F16=0; N 256>>3 = 32
   * at 17-22 (0x400000); M 128>>4 = 8 at 24-28 (0x08000000). */
  expect_idesc_for(&SM100A,
                   "(i.data, d_dtype=\"float32\", a_dtype=\"float16\", b_dtype=\"float16\", M=128, "
                   "N=256, K=16, trans_a=False, trans_b=False)",
                   "0x08400010u");
  /* bf16, M 64 (4 << 24), N 256, transpose A (bit 15), negate A (bit 13):
   * 0x04000000 + 0x400000 + 0x8000 + 0x2000 + B bf16 1<<10 + A bf16 1<<7 + 0x10 */
  expect_idesc_for(&SM100A,
                   "(i.data, \"float32\", \"bfloat16\", \"bfloat16\", 64, 256, 16, T.bool(True), "
                   "T.bool(False), 1, T.bool(True), T.bool(False), T.bool(False), T.bool(False))",
                   "0x0440A490u");
  /* tf32: A, B TF32=2 (0x100, 0x800), N 128 (16 << 17 = 0x200000), K 8 */
  expect_idesc_for(
      &SM100A,
      "(i.data, d_dtype=\"float32\", a_dtype=\"tf32\", b_dtype=\"tf32\", M=128, N=128, "
      "K=8, trans_a=False, trans_b=False)",
      "0x08200910u");
  /* f8f6f4, D F16=0: A E5M2=1 (0x80), B E2M1=5 (0x1400), M 64, N 8 (1 << 17) */
  expect_idesc_for(
      &SM100A,
      "(i.data, d_dtype=\"float16\", a_dtype=\"float8_e5m2\", b_dtype=\"float4_e2m1fn\", "
      "M=64, N=8, K=32, trans_a=False, trans_b=False)",
      "0x04021480u");
  /* i8, sparse (bit 2), saturate (bit 3), D S32=2 (0x20), A signed 1 (0x80),
   * B unsigned 0, transpose B (bit 16), N 24 (3 << 17), M 128, K 64 sparse */
  expect_idesc_for(&SM100A,
                   "(i.data, d_dtype=\"int32\", a_dtype=\"int8\", b_dtype=\"uint8\", M=128, N=24, "
                   "K=64, trans_a=False, trans_b=True, sat_d=True, is_sparse=True)",
                   "0x080700ACu");
  /* cta_group 2, M 256 (16 << 24), N 256 */
  expect_idesc_for(&SM100A,
                   "(i.data, d_dtype=\"float32\", a_dtype=\"float16\", b_dtype=\"float16\", M=256, "
                   "N=256, K=16, trans_a=False, trans_b=False, n_cta_groups=2)",
                   "0x10400010u");
}

Test(tcgen05_idesc, block_scaled_kinds) {
  /* mxf8f6f4: A E4M3=0, B E2M3=3 (3 << 10), transpose A (bit 15), N 128
   * (16 << 17), scale type UE8M0=1 (bit 23), M 128 >> 7 = 1 at 27-28. */
  expect_scaled_idesc_for(
      &SM100A,
      "(i.data, \"float32\", \"float8_e4m3fn\", \"float6_e2m3fn\", "
      "\"float8_e8m0fnu\", \"float8_e8m0fnu\", t, t, 128, 128, 32, T.bool(True), "
      "T.bool(False), 1, T.bool(False), T.bool(False), T.bool(False))",
      "0x08A08C00u");
  /* mxf4nvf4: A, B E2M1 = 1 (0x80, 0x400), N 256 (32 << 17), scale UE4M3 = 0,
   * M 128 (1 << 27) */
  expect_scaled_idesc_for(&SM100A,
                          "(i.data, d_dtype=\"float32\", a_dtype=\"float4_e2m1fn\", "
                          "b_dtype=\"float4_e2m1fn\", sfa_dtype=\"float8_e4m3fn\", "
                          "sfb_dtype=\"float8_e4m3fn\", sfa_tmem_addr=t, sfb_tmem_addr=t, M=128, "
                          "N=256, K=64, trans_a=False, trans_b=False)",
                          "0x08400480u");
  /* mxf4 (E2M1 with UE8M0 scales), cta_group 2, sparse (bit 2), M 256
   * (2 << 27), N 128, K 128 sparse, scale UE8M0 (bit 23) */
  expect_scaled_idesc_for(&SM100A,
                          "(i.data, d_dtype=\"float32\", a_dtype=\"float4_e2m1fn\", "
                          "b_dtype=\"float4_e2m1fn\", sfa_dtype=\"float8_e8m0fnu\", "
                          "sfb_dtype=\"float8_e8m0fnu\", sfa_tmem_addr=t, sfb_tmem_addr=t, M=256, "
                          "N=128, K=128, trans_a=False, trans_b=False, n_cta_groups=2, "
                          "is_sparse=True)",
                          "0x10A00484u");
  /* mxf4 dense K=96 (sm_103a): K bit 31 on top of A, B 1, N 128, UE8M0, M 128 */
  expect_scaled_idesc_for(&SM103A,
                          "(i.data, d_dtype=\"float32\", a_dtype=\"float4_e2m1fn\", "
                          "b_dtype=\"float4_e2m1fn\", sfa_dtype=\"float8_e8m0fnu\", "
                          "sfb_dtype=\"float8_e8m0fnu\", sfa_tmem_addr=t, sfb_tmem_addr=t, M=128, "
                          "N=128, K=96, trans_a=False, trans_b=False)",
                          "0x88A00480u");
}

Test(tcgen05_idesc, cuda_namespace_spelling) {
  EXPECT_CUDA("    T.cuda.tcgen05.encode_instr_descriptor(i.data, d_dtype=\"float32\", "
              "a_dtype=\"float16\", b_dtype=\"float16\", M=128, N=256, K=16, trans_a=False, "
              "trans_b=False)\n",
              "(*(unsigned*)(i_ptr) = 0x08400010u)");
}

Test(tcgen05_idesc, errors) {
  expect_error("    T.ptx.tcgen05.encode_instr_descriptor(i.data, d_dtype=\"float32\", "
               "a_dtype=\"float16\", b_dtype=\"float16\", M=128, N=20, K=16, trans_a=False, "
               "trans_b=False)\n",
               "N is not valid");
  expect_error("    T.ptx.tcgen05.encode_instr_descriptor(i.data, d_dtype=\"float32\", "
               "a_dtype=\"float16\", b_dtype=\"float16\", M=128, N=64, K=32, trans_a=False, "
               "trans_b=False)\n",
               "K is not valid");
  expect_error("    T.ptx.tcgen05.encode_instr_descriptor(i.data, d_dtype=\"float16\", "
               "a_dtype=\"bfloat16\", b_dtype=\"bfloat16\", M=128, N=64, K=16, trans_a=False, "
               "trans_b=False)\n",
               "no tcgen05.mma kind for d=float16, a=bfloat16, b=bfloat16");
  expect_error("    T.ptx.tcgen05.encode_instr_descriptor(i.data, d_dtype=\"float32\", "
               "a_dtype=\"float16\", b_dtype=\"float16\", M=128, N=64, K=16, trans_a=False, "
               "trans_b=False, sat_d=True)\n",
               "sat_d is for kind i8 only");
  expect_error("    T.ptx.tcgen05.encode_instr_descriptor(i.data, d_dtype=\"int32\", "
               "a_dtype=\"int8\", b_dtype=\"int8\", M=128, N=64, K=32, trans_a=False, "
               "trans_b=False, neg_a=True)\n",
               "kind i8 cannot negate");
  expect_error("    T.ptx.tcgen05.encode_instr_descriptor(i.data, d_dtype=\"float32\", "
               "a_dtype=\"float4_e2m1fn\", b_dtype=\"float4_e2m1fn\", M=128, N=64, K=32, "
               "trans_a=True, trans_b=False)\n",
               "float4_e2m1fn cannot be transposed");
  expect_error("    T.ptx.tcgen05.encode_instr_descriptor(i.data, d_dtype=\"float32\", "
               "a_dtype=\"float16\", b_dtype=\"float16\", M=128, N=64, K=16, trans_a=False)\n",
               "missing trans_b");
  expect_error("    T.ptx.tcgen05.encode_instr_descriptor(i.data, d_dtype=\"float32\", "
               "a_dtype=\"float16\", b_dtype=\"float16\", M=n, N=64, K=16, trans_a=False, "
               "trans_b=False)\n",
               "M must be a constant");
  expect_error("    T.ptx.tcgen05.encode_instr_descriptor(i[0], d_dtype=\"float32\", "
               "a_dtype=\"float16\", b_dtype=\"float16\", M=128, N=64, K=16, trans_a=False, "
               "trans_b=False)\n",
               "desc must be a pointer");
  expect_error("    T.ptx.tcgen05.encode_instr_descriptor_block_scaled(i.data, "
               "d_dtype=\"float32\", a_dtype=\"float4_e2m1fn\", b_dtype=\"float4_e2m1fn\", "
               "sfa_dtype=\"float8_e8m0fnu\", sfb_dtype=\"float8_e8m0fnu\", sfa_tmem_addr=t, "
               "sfb_tmem_addr=t, M=128, N=128, K=96, trans_a=False, trans_b=False)\n",
               "K=96 is supported on sm_103a only");
  expect_error("    T.ptx.tcgen05.encode_instr_descriptor_block_scaled(i.data, "
               "d_dtype=\"float32\", a_dtype=\"float8_e4m3fn\", b_dtype=\"float8_e4m3fn\", "
               "sfa_dtype=\"float8_e4m3fn\", sfb_dtype=\"float8_e4m3fn\", sfa_tmem_addr=t, "
               "sfb_tmem_addr=t, M=128, N=128, K=32, trans_a=False, trans_b=False)\n",
               "no block-scaled tcgen05.mma kind");
}

/* ---- matrix descriptor ----------------------------------------------------------- */

Test(tcgen05_mdesc, forms) {
  EXPECT_CUDA("    T.ptx.tcgen05.encode_matrix_descriptor(d.data, T.address_of(sm[64]), ldo=1, "
              "sdo=64, swizzle=3)\n",
              "(*(unsigned long long*)(d_ptr) = tx_tcgen05_smem_desc(tx_smem_addr((&sm_ptr[64])), "
              "(unsigned)(1), (unsigned)(64), (unsigned)(3)))");
  /* a uint32 shared address is used as is; runtime offsets and swizzle pass through */
  EXPECT_CUDA("    T.ptx.tcgen05.encode_matrix_descriptor(T.address_of(d[1]), t, n, tx, n)\n",
              "(*(unsigned long long*)((&d_ptr[1])) = tx_tcgen05_smem_desc((unsigned)(t), "
              "(unsigned)(n), (unsigned)(tx), (unsigned)(n)))");
  expect_error("    T.ptx.tcgen05.encode_matrix_descriptor(d.data, sm.data, 1, 64, 5)\n",
               "swizzle must be 0 (none), 1 (32B), 2 (64B), 3 (128B) or 4");
  expect_error("    T.ptx.tcgen05.encode_matrix_descriptor(d.data, sm.data, ldo=1, swizzle=0, "
               "desc=d.data)\n",
               "missing sdo");
}

/* ---- allocation, shift, commit ------------------------------------------------- */

Test(tcgen05_alloc, forms) {
  EXPECT_CUDA("    T.ptx.tcgen05.alloc(T.address_of(tm[0]), n_cols=512, cta_group=2)\n"
              "    T.ptx.tcgen05.relinquish_alloc_permit(cta_group=2)\n"
              "    T.ptx.tcgen05.dealloc(t, n_cols=512, cta_group=2)\n",
              "asm volatile(\"tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;\" "
              ":: \"r\"(tx_smem_addr((&tm_ptr[0]))), \"r\"((unsigned)(512)) : \"memory\")",
              "asm volatile(\"tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;\" ::: "
              "\"memory\")",
              "asm volatile(\"tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;\" :: "
              "\"r\"((unsigned)(t)), \"r\"((unsigned)(512)) : \"memory\")");
  /* the printed form is positional; cta_group defaults to 1; n_cols may be runtime */
  EXPECT_CUDA("    T.ptx.tcgen05.alloc(tm.data, n)\n    T.ptx.tcgen05.dealloc(t, 32, 1)\n"
              "    T.ptx.tcgen05.relinquish_alloc_permit()\n",
              "\"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;\" :: "
              "\"r\"(tx_smem_addr(tm_ptr)), \"r\"((unsigned)(n))",
              "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;",
              "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  expect_error("    T.ptx.tcgen05.alloc(tm.data, 48)\n",
               "n_cols must be a power of two in [32, 512]");
  expect_error("    T.ptx.tcgen05.alloc(tm.data, 1024)\n", "got 1024");
  expect_error("    T.ptx.tcgen05.alloc(tm.data, 64, 3)\n", "cta_group must be 1 or 2, got 3");
  expect_error("    T.ptx.tcgen05.alloc(tm.data, 64, n)\n", "cta_group must be a constant");
  expect_error("    T.ptx.tcgen05.alloc(tm.data, cta_group=1)\n", "missing n_cols");
  expect_error("    T.ptx.tcgen05.dealloc(tm.data, 64)\n",
               "taddr is a 32-bit tensor memory address");
}

Test(tcgen05_alloc, shift) {
  EXPECT_CUDA("    T.ptx.tcgen05.shift(t, cta_group=2)\n",
              "asm volatile(\"tcgen05.shift.cta_group::2.down [%0];\" :: \"r\"((unsigned)(t)) : "
              "\"memory\")");
  EXPECT_CUDA("    T.ptx.tcgen05.shift(t)\n", "tcgen05.shift.cta_group::1.down [%0];");
}

Test(tcgen05_commit, forms) {
  /* mask 0 and single-bit masks are the unicast form, as in TVM */
  EXPECT_CUDA("    T.ptx.tcgen05.commit(bar.data)\n    T.ptx.tcgen05.commit(bar.data, 1, 4)\n",
              "asm volatile(\"tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster."
              "b64 [%0];\" :: \"r\"(tx_smem_addr(bar_ptr)) : \"memory\")");
  /* several bits or a runtime mask: multicast with a 16-bit mask */
  EXPECT_CUDA("    T.ptx.tcgen05.commit(bar.data, 2, 3)\n",
              "asm volatile(\"tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster."
              "multicast::cluster.b64 [%0], %1;\" :: \"r\"(tx_smem_addr(bar_ptr)), "
              "\"h\"((unsigned short)(3)) : \"memory\")");
  EXPECT_CUDA("    T.ptx.tcgen05.commit(T.address_of(bar[1]), cta_group=1, cta_mask=n, pred=tx)\n",
              "asm volatile(\"{\\n\\t.reg .pred tx_p;\\n\\tsetp.ne.b32 tx_p, %2, 0;\\n\\t@tx_p "
              "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::"
              "cluster.b64 [%0], %1;\\n\\t}\" :: \"r\"(tx_smem_addr((&bar_ptr[1]))), "
              "\"h\"((unsigned short)(n)), \"r\"((unsigned)(tx)) : \"memory\")");
  /* the printed form's positional pred, with a raw uint32 barrier address */
  EXPECT_CUDA(
      "    T.ptx.tcgen05.commit(t, 1, 0, tx < 4)\n",
      "\"{\\n\\t.reg .pred tx_p;\\n\\tsetp.ne.b32 tx_p, %1, 0;\\n\\t@tx_p "
      "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\\n\\t}\" "
      ":: \"r\"((unsigned)(t)), \"r\"((unsigned)((tx < 4)))");
  expect_error("    T.ptx.tcgen05.commit(bar.data, 1, 65537)\n", "cta_mask is a 16-bit mask");
  expect_error("    T.ptx.tcgen05.commit(bar.data, 0)\n", "cta_group must be 1 or 2, got 0");
}

/* ---- ld / st / cp ----------------------------------------------------------------- */

Test(tcgen05_ldst, ld_forms) {
  EXPECT_CUDA("    T.ptx.tcgen05.ld(t, f[0], f[1], shape=\"32x32b\", num=2)\n",
              "asm volatile(\"tcgen05.ld.sync.aligned.32x32b.x2.b32 {%0, %1}, [%2];\" : "
              "\"=r\"(*(unsigned*)&(f_ptr[0])), \"=r\"(*(unsigned*)&(f_ptr[1])) : "
              "\"r\"((unsigned)(t)) : \"memory\")");
  /* row/col offsets go through tx_tmem_addr (lane, column) */
  EXPECT_CUDA("    T.ptx.tcgen05.ld(t, r[0], r[1], r[2], r[3], shape=\"16x128b\", num=2, "
              "row=tx // 32 * 32, col=8)\n",
              "tcgen05.ld.sync.aligned.16x128b.x2.b32 {%0, %1, %2, %3}, [%4];",
              "\"r\"(tx_tmem_addr((unsigned)(t), (int)(((tx / 32) * 32)), (int)(8)))");
  /* the printed form: (taddr, row, col, shape, num, pack, *regs) */
  EXPECT_CUDA("    T.ptx.tcgen05.ld(t, 0, 16, \"16x256b\", 1, T.bool(False), r[0], r[1], r[2], "
              "r[3])\n",
              "tcgen05.ld.sync.aligned.16x256b.x1.b32 {%0, %1, %2, %3}, [%4];",
              "\"r\"(tx_tmem_addr((unsigned)(t), (int)(0), (int)(16)))");
  /* 16x32bx2: immHalfSplitoff is num columns, 2 * num packed (TVM) */
  EXPECT_CUDA("    T.ptx.tcgen05.ld(t, r[0], r[1], shape=\"16x32bx2\", num=2)\n",
              "tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%0, %1}, [%2], 2;");
  EXPECT_CUDA("    T.ptx.tcgen05.ld(t, h[0], h[2], shape=\"16x32bx2\", num=2, pack=True)\n",
              "tcgen05.ld.sync.aligned.16x32bx2.x2.pack::16b.b32 {%0, %1}, [%2], 4;",
              "\"=r\"(*(unsigned*)&(h_ptr[0])), \"=r\"(*(unsigned*)&(h_ptr[2]))");
  EXPECT_CUDA("    T.ptx.tcgen05.ld(t, r[0], shape=\"16x64b\", num=1)\n",
              "tcgen05.ld.sync.aligned.16x64b.x1.b32 {%0}, [%1];");
}

Test(tcgen05_ldst, st_forms) {
  EXPECT_CUDA("    T.ptx.tcgen05.st(t, f[0], f[1], f[2], f[3], shape=\"16x64b\", num=4, col=64)\n",
              "asm volatile(\"tcgen05.st.sync.aligned.16x64b.x4.b32 [%0], {%1, %2, %3, %4};\" :: "
              "\"r\"(tx_tmem_addr((unsigned)(t), (int)(0), (int)(64))), "
              "\"r\"(*(unsigned*)&(f_ptr[0])), \"r\"(*(unsigned*)&(f_ptr[1])), "
              "\"r\"(*(unsigned*)&(f_ptr[2])), \"r\"(*(unsigned*)&(f_ptr[3])) : \"memory\")");
  EXPECT_CUDA("    T.ptx.tcgen05.st(t, 32, 0, \"32x32b\", 2, T.bool(True), h[0], h[2])\n",
              "tcgen05.st.sync.aligned.32x32b.x2.unpack::16b.b32 [%0], {%1, %2};",
              "\"r\"(tx_tmem_addr((unsigned)(t), (int)(32), (int)(0)))");
  EXPECT_CUDA("    T.ptx.tcgen05.st(t, r[0], r[1], r[2], r[3], shape=\"16x32bx2\", num=4, "
              "unpack=True)\n",
              "tcgen05.st.sync.aligned.16x32bx2.x4.unpack::16b.b32 [%0], 8, {%1, %2, %3, %4};");
}

Test(tcgen05_ldst, source_and_printed_forms_agree) {
  cuda_compiled a, b;
  cuda_compile_body(
      &a, &SM100A, &K,
      "    T.ptx.tcgen05.ld(t, r[0], r[1], r[2], r[3], shape=\"32x32b\", num=4, row=32, "
      "col=tx, pack=True)\n");
  cuda_compile_body(
      &b, &SM100A, &K,
      "    T.ptx.tcgen05.ld(t, 32, tx, \"32x32b\", 4, T.bool(True), r[0], r[1], r[2], "
      "r[3])\n");
  cr_assert_eq(a.codegen, TIRX_OK, "%s", a.diags);
  cr_assert_eq(b.codegen, TIRX_OK, "%s", b.diags);
  char *la = cuda_line_with(a.cu.data, "tcgen05.ld"), *lb = cuda_line_with(b.cu.data, "tcgen05.ld");
  cr_expect_str_eq(la, lb);
  free(la);
  free(lb);
  cuda_compiled_free(&a);
  cuda_compiled_free(&b);
}

Test(tcgen05_ldst, errors) {
  expect_error("    T.ptx.tcgen05.ld(t, r[0], r[1], r[2], shape=\"32x32b\", num=4)\n",
               "shape 32x32b with num=4 takes 4 registers, got 3");
  expect_error("    T.ptx.tcgen05.ld(t, r[0], r[1], shape=\"16x128b\", num=2)\n",
               "takes 4 registers, got 2");
  expect_error("    T.ptx.tcgen05.ld(t, r[0], shape=\"32x16b\", num=1)\n",
               "shape must be one of 16x32bx2, 16x64b, 16x128b, 16x256b, 32x32b");
  expect_error("    T.ptx.tcgen05.ld(t, r[0], r[1], r[2], shape=\"32x32b\", num=3)\n",
               "num must be a power of two in [1, 128]");
  expect_error("    T.ptx.tcgen05.ld(t, r[0], shape=\"32x32b\", num=n)\n",
               "num must be a constant");
  expect_error("    T.ptx.tcgen05.ld(t, r[0], num=1)\n", "missing shape");
  expect_error("    T.ptx.tcgen05.ld(t, h[0], shape=\"32x32b\", num=1)\n",
               "register 1 must be a buffer element of a 32-bit type");
  expect_error("    T.ptx.tcgen05.st(t, r[0], tx + 1, shape=\"32x32b\", num=2)\n",
               "register 2 must be a buffer element");
  expect_error("    T.ptx.tcgen05.ld(sm.data, r[0], shape=\"32x32b\", num=1)\n",
               "taddr is a 32-bit tensor memory address, not a pointer");
}

Test(tcgen05_cp, forms) {
  EXPECT_CUDA("    T.ptx.tcgen05.cp(t, d[0], shape=\"128x256b\")\n",
              "asm volatile(\"tcgen05.cp.cta_group::1.128x256b [%0], %1;\" :: "
              "\"r\"((unsigned)(t)), \"l\"((unsigned long long)(d_ptr[0])) : \"memory\")");
  /* the printed form: (taddr, src_desc, shape, cta_group, multicast, decompress, row, col) */
  EXPECT_CUDA("    T.ptx.tcgen05.cp(t, d[0], \"64x128b\", 2, \"warpx2::02_13\", "
              "\"b8x16.b4x16_p64\", 32, 4)\n",
              "\"tcgen05.cp.cta_group::2.64x128b.warpx2::02_13.b8x16.b4x16_p64 [%0], %1;\" :: "
              "\"r\"(tx_tmem_addr((unsigned)(t), (int)(32), (int)(4)))");
  EXPECT_CUDA("    T.ptx.tcgen05.cp(t, d[1], shape=\"32x128b\", multicast=\"warpx4\", "
              "decompress=\"b8x16.b6x16_p32\", col=n)\n",
              "\"tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b6x16_p32 [%0], %1;\"");
  expect_error("    T.ptx.tcgen05.cp(t, d[0], shape=\"32x128b\")\n",
               "shape 32x128b does not take multicast \"\"");
  expect_error("    T.ptx.tcgen05.cp(t, d[0], shape=\"128x128b\", multicast=\"warpx4\")\n",
               "does not take multicast \"warpx4\"");
  expect_error("    T.ptx.tcgen05.cp(t, d[0], shape=\"256x128b\")\n", "shape must be one of");
  expect_error("    T.ptx.tcgen05.cp(t, d[0], shape=\"4x256b\", decompress=\"b4x16\")\n",
               "decompress must be");
  expect_error("    T.ptx.tcgen05.cp(t, d[0])\n", "missing shape");
}

/* ---- mma -------------------------------------------------------------------------- */

Test(tcgen05_mma, dense_forms) {
  /* source form, A from shared memory: a 64-bit descriptor */
  EXPECT_CUDA(
      "    T.ptx.tcgen05.mma(t, d[0], d[1], i[0], d_dtype=\"float32\", a_dtype=\"float16\", "
      "b_dtype=\"float16\", use_a_tmem=False, cta_group=1, enable_input_d=tx)\n",
      "asm volatile(\"{\\n\\t.reg .pred tx_en;\\n\\tsetp.ne.b32 tx_en, %4, 0;\\n\\t"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, tx_en;\\n\\t}\" :: "
      "\"r\"((unsigned)(t)), \"l\"((unsigned long long)(d_ptr[0])), "
      "\"l\"((unsigned long long)(d_ptr[1])), \"r\"((unsigned)(i_ptr[0])), "
      "\"r\"((unsigned)(tx)) : \"memory\")");
  /* A in tensor memory, masks, scale_input_d (an immediate), pred */
  EXPECT_CUDA("    T.ptx.tcgen05.mma(t, t, d[1], i[0], 1, 2, 3, 4, d_dtype=\"float32\", "
              "a_dtype=\"tf32\", b_dtype=\"tf32\", use_a_tmem=True, cta_group=1, "
              "scale_input_d=7, pred=n)\n",
              "\"{\\n\\t.reg .pred tx_en;\\n\\t.reg .pred tx_issue;\\n\\tsetp.ne.b32 tx_en, %4, "
              "0;\\n\\tsetp.ne.b32 tx_issue, %9, 0;\\n\\t@tx_issue tcgen05.mma.cta_group::1."
              "kind::tf32 [%0], [%1], %2, %3, {%5, %6, %7, %8}, tx_en, %10;\\n\\t}\" :: "
              "\"r\"((unsigned)(t)), \"r\"((unsigned)(t)), \"l\"((unsigned long long)(d_ptr[1])), "
              "\"r\"((unsigned)(i_ptr[0])), \"r\"(1u), \"r\"((unsigned)(1)), "
              "\"r\"((unsigned)(2)), \"r\"((unsigned)(3)), \"r\"((unsigned)(4)), "
              "\"r\"((unsigned)(n)), \"n\"(7) : \"memory\")");
  /* kinds from the dtypes */
  EXPECT_CUDA("    T.ptx.tcgen05.mma(t, d[0], d[1], i[0], d_dtype=\"int32\", a_dtype=\"uint8\", "
              "b_dtype=\"int8\", use_a_tmem=False, cta_group=2)\n",
              "tcgen05.mma.cta_group::2.kind::i8 [%0], %1, %2, %3, tx_en;");
  EXPECT_CUDA("    T.ptx.tcgen05.mma(t, d[0], d[1], i[0], d_dtype=\"float16\", "
              "a_dtype=\"float8_e4m3fn\", b_dtype=\"float6_e3m2fn\", use_a_tmem=False, "
              "cta_group=1)\n",
              "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, tx_en;");
}

Test(tcgen05_mma, printed_form_matches_source_form) {
  /* TVM prints (d_dtype, a_dtype, b_dtype, d, a, b, idesc, use_a_tmem,
   * cta_group, enable_input_d, scale_input_d, *masks[, pred]) */
  cuda_compiled a, b;
  cuda_compile_body(&a, &SM100A, &K,
                    "    T.ptx.tcgen05.mma(t, d[0], d[1], i[0], 0, 0, 0, 0, 0, 0, 0, n, "
                    "d_dtype=\"float32\", a_dtype=\"bfloat16\", b_dtype=\"bfloat16\", "
                    "use_a_tmem=False, cta_group=2, enable_input_d=tx, pred=tx < 8)\n");
  cuda_compile_body(&b, &SM100A, &K,
                    "    T.ptx.tcgen05.mma(\"float32\", \"bfloat16\", \"bfloat16\", t, d[0], d[1], "
                    "i[0], T.bool(False), 2, tx, 0, 0, 0, 0, 0, 0, 0, 0, n, tx < 8)\n");
  cr_assert_eq(a.codegen, TIRX_OK, "%s", a.diags);
  cr_assert_eq(b.codegen, TIRX_OK, "%s", b.diags);
  char *la = cuda_line_with(a.cu.data, "tcgen05.mma"),
       *lb = cuda_line_with(b.cu.data, "tcgen05.mma");
  cr_expect_str_eq(la, lb);
  cr_expect(strstr(la, "@tx_issue tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, {%5, %6, "
                       "%7, %8, %9, %10, %11, %12}, tx_en;"),
            "%s", la);
  free(la);
  free(lb);
  cuda_compiled_free(&a);
  cuda_compiled_free(&b);
  /* TVM's older source form: dtypes first, trailing keywords */
  EXPECT_CUDA("    T.ptx.tcgen05.mma(\"float32\", \"float16\", \"float16\", t, d[0], d[1], i[0], "
              "use_a_tmem=False, cta_group=1, enable_input_d=False)\n",
              "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, tx_en;",
              "\"r\"((unsigned)(false))");
}

Test(tcgen05_mma, sparse_and_block_scaled) {
  EXPECT_CUDA("    T.ptx.tcgen05.mma.sp(t, d[0], d[1], t + T.uint32(8), i[0], d_dtype=\"float32\", "
              "a_dtype=\"float16\", b_dtype=\"float16\", use_a_tmem=False, cta_group=1)\n",
              "tcgen05.mma.sp.cta_group::1.kind::f16 [%0], %1, %2, [%3], %4, tx_en;");
  EXPECT_CUDA("    T.ptx.tcgen05.mma.sp(\"int32\", \"int8\", \"int8\", t, t, d[1], t, i[0], "
              "T.bool(True), 1, T.bool(True), 0, 0, 0, 0, 0)\n",
              "tcgen05.mma.sp.cta_group::1.kind::i8 [%0], [%1], %2, [%3], %4, {%6, %7, %8, %9}, "
              "tx_en;");
  /* block scaled: scale vector sizes 1X (mxf8f6f4), 2X (mxf4), 4X (mxf4nvf4) */
  EXPECT_CUDA(
      "    T.ptx.tcgen05.mma.block_scale(t, d[0], d[1], t + T.uint32(64), t + T.uint32(68), "
      "i[0], d_dtype=\"float32\", a_dtype=\"float8_e5m2\", b_dtype=\"float8_e4m3fn\", "
      "sfa_dtype=\"float8_e8m0fnu\", sfb_dtype=\"float8_e8m0fnu\", use_a_tmem=False, "
      "cta_group=1)\n",
      "\"{\\n\\t.reg .pred tx_en;\\n\\tsetp.ne.b32 tx_en, %4, 0;\\n\\ttcgen05.mma.cta_group"
      "::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%0], %1, %2, %3, [%5], [%6], "
      "tx_en;\\n\\t}\" :: \"r\"((unsigned)(t)), \"l\"((unsigned long long)(d_ptr[0])), "
      "\"l\"((unsigned long long)(d_ptr[1])), \"r\"((unsigned)(i_ptr[0])), \"r\"(1u), "
      "\"r\"((unsigned)((t + 64U))), \"r\"((unsigned)((t + 68U))) : \"memory\")");
  EXPECT_CUDA(
      "    T.ptx.tcgen05.mma.block_scale(\"float32\", \"float4_e2m1fn\", \"float4_e2m1fn\", "
      "\"float8_e8m0fnu\", \"float8_e8m0fnu\", t, d[0], d[1], t, t, i[0], T.bool(False), 2, "
      "tx)\n",
      "tcgen05.mma.cta_group::2.kind::mxf4.block_scale.scale_vec::2X [%0], %1, %2, %3, "
      "[%5], [%6], tx_en;");
  EXPECT_CUDA("    T.ptx.tcgen05.mma.sp.block_scale(t, t, d[1], t, t, t + T.uint32(16), i[0], "
              "d_dtype=\"float32\", a_dtype=\"float4_e2m1fn\", b_dtype=\"float4_e2m1fn\", "
              "sfa_dtype=\"float8_e4m3fn\", sfb_dtype=\"float8_e4m3fn\", use_a_tmem=True, "
              "cta_group=1, enable_input_d=0)\n",
              "tcgen05.mma.sp.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X [%0], [%1], "
              "%2, [%3], %4, [%6], [%7], tx_en;");
}

Test(tcgen05_mma, errors) {
  expect_error("    T.ptx.tcgen05.mma(t, d[0], d[1], i[0], 0, 0, d_dtype=\"float32\", "
               "a_dtype=\"float16\", b_dtype=\"float16\", use_a_tmem=False, cta_group=1)\n",
               "cta_group 1 takes 4 disable_output_lane masks, got 2");
  expect_error("    T.ptx.tcgen05.mma(t, d[0], d[1], i[0], 0, 0, 0, 0, d_dtype=\"float32\", "
               "a_dtype=\"float16\", b_dtype=\"float16\", use_a_tmem=False, cta_group=2)\n",
               "cta_group 2 takes 8 disable_output_lane masks, got 4");
  expect_error("    T.ptx.tcgen05.mma(t, d[0], d[1], i[0], d_dtype=\"float16\", "
               "a_dtype=\"bfloat16\", b_dtype=\"bfloat16\", use_a_tmem=False, cta_group=1)\n",
               "no kind for d=float16, a=bfloat16, b=bfloat16");
  expect_error("    T.ptx.tcgen05.mma(t, d[0], d[1], i[0], d_dtype=\"float32\", "
               "a_dtype=\"float8_e4m3fn\", b_dtype=\"float8_e4m3fn\", use_a_tmem=False, "
               "cta_group=1, scale_input_d=2)\n",
               "scale_input_d is for kinds f16 and tf32 only, not f8f6f4");
  expect_error("    T.ptx.tcgen05.mma(t, d[0], d[1], i[0], d_dtype=\"float32\", "
               "a_dtype=\"float16\", b_dtype=\"float16\", use_a_tmem=False, cta_group=1, "
               "scale_input_d=16)\n",
               "scale_input_d must be in [0, 15]");
  expect_error("    T.ptx.tcgen05.mma(t, d[0], d[1], i[0], a_dtype=\"float16\", "
               "b_dtype=\"float16\", use_a_tmem=False, cta_group=1)\n",
               "missing d_dtype");
  expect_error("    T.ptx.tcgen05.mma(t, d[0], d[1], i[0], d_dtype=\"float32\", "
               "a_dtype=\"float16\", b_dtype=\"float16\", cta_group=1)\n",
               "missing use_a_tmem");
  expect_error("    T.ptx.tcgen05.mma(t, sm.data, d[1], i[0], d_dtype=\"float32\", "
               "a_dtype=\"float16\", b_dtype=\"float16\", use_a_tmem=True, cta_group=1)\n",
               "a_operand is a 32-bit tensor memory address, not a pointer");
  expect_error("    T.ptx.tcgen05.mma.block_scale(t, d[0], d[1], t, t, i[0], d_dtype=\"float32\", "
               "a_dtype=\"float16\", b_dtype=\"float16\", sfa_dtype=\"float8_e8m0fnu\", "
               "sfb_dtype=\"float8_e8m0fnu\", use_a_tmem=False, cta_group=1)\n",
               "no block-scaled kind");
  expect_error("    T.ptx.tcgen05.mma.block_scale(\"float32\", \"float4_e2m1fn\", "
               "\"float4_e2m1fn\", \"float8_e8m0fnu\", \"float8_e8m0fnu\", t, d[0], d[1], t, t, "
               "i[0], T.bool(False), 1, T.bool(True), 5)\n",
               "too many positional arguments");
}

/* ---- cluster launch control ----------------------------------------------------------- */

Test(clc, forms) {
  EXPECT_CUDA("    T.ptx.clc_try_cancel(T.address_of(tm[0]), bar.data)\n"
              "    A[tx] = T.Cast(\"float32\", T.ptx.clc_query_cancel(tm.data))\n",
              "asm volatile(\"clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::"
              "complete_tx::bytes.multicast::cluster::all.b128 [%0], [%1];\" :: "
              "\"r\"(tx_smem_addr((&tm_ptr[0]))), \"r\"(tx_smem_addr(bar_ptr)) : \"memory\")",
              "A_ptr[tx] = ((float)tx_clc_query_cancel(tx_smem_addr(tm_ptr)));",
              "\"mov.u32 %0, 0xffffffff;\\n\\t\"",
              "\"@tx_c clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %0, "
              "tx_resp;\\n\\t}\"",
              "asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");");
  /* query_cancel needs only sm_100; try_cancel's multicast form an 'a' target */
  const char *const q[] = {"tx_clc_query_cancel(tx_smem_addr(tm_ptr))", NULL};
  expect_cuda_for(&SM100, "    A[tx] = T.Cast(\"float32\", T.ptx.clc_query_cancel(tm.data))\n", q);
  expect_error_for(&SM100, "    T.ptx.clc_try_cancel(tm.data, bar.data)\n",
                   "needs an sm_100a or later target; the target is sm_100");
  expect_error_for(&SM90A, "    A[tx] = T.Cast(\"float32\", T.ptx.clc_query_cancel(tm.data))\n",
                   "needs an sm_100 or later target; the target is sm_90a");
}

/* ---- targets ----------------------------------------------------------------------- */

Test(tcgen05_target, below_sm100a_is_a_located_error) {
  static const char *const bodies[] = {
      "    T.ptx.tcgen05.alloc(tm.data, 64)\n",
      "    T.ptx.tcgen05.dealloc(t, 64)\n",
      "    T.ptx.tcgen05.relinquish_alloc_permit()\n",
      "    T.ptx.tcgen05.shift(t)\n",
      "    T.ptx.tcgen05.commit(bar.data)\n",
      "    T.ptx.tcgen05.cp(t, d[0], shape=\"128x256b\")\n",
      "    T.ptx.tcgen05.ld(t, r[0], shape=\"32x32b\", num=1)\n",
      "    T.ptx.tcgen05.st(t, r[0], shape=\"32x32b\", num=1)\n",
      "    T.ptx.tcgen05.mma(t, d[0], d[1], i[0], d_dtype=\"float32\", a_dtype=\"float16\", "
      "b_dtype=\"float16\", use_a_tmem=False, cta_group=1)\n",
  };
  for (size_t k = 0; k < sizeof bodies / sizeof *bodies; k++) {
    expect_error_for(&SM90A, bodies[k], "need an sm_100a, sm_101a or sm_103a target");
    expect_error_for(&SM100, bodies[k], "the target is sm_100");
  }
  /* the descriptor encoders are integer arithmetic: TVM emits them for any
   * arch (its tcgen05 descriptor tests compile for the default "cuda") */
  const char *const enc[] = {
      "    T.ptx.tcgen05.encode_matrix_descriptor(d.data, sm.data, 1, 64, 3)\n",
      "    T.ptx.tcgen05.encode_instr_descriptor(i.data, d_dtype=\"float32\", a_dtype=\"float16\", "
      "b_dtype=\"float16\", M=128, N=64, K=16, trans_a=False, trans_b=False)\n",
  };
  const char *const enc_ok[][2] = {{"tx_tcgen05_smem_desc(", NULL}, {"= 0x", NULL}};
  for (size_t k = 0; k < 2; k++) {
    expect_cuda_for(&SM90A, enc[k], enc_ok[k]);
    expect_cuda_for(&SM100, enc[k], enc_ok[k]);
  }
  /* the family targets and sm_103a are accepted */
  const char *const ok[] = {"tcgen05.alloc.cta_group::1", NULL};
  expect_cuda_for(&SM103A, "    T.ptx.tcgen05.alloc(tm.data, 64)\n", ok);
  static const tx_target SM100F = {"sm_100f", 100, 2, NULL};
  expect_cuda_for(&SM100F, "    T.ptx.tcgen05.alloc(tm.data, 64)\n", ok);
}
