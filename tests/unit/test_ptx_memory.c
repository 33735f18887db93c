/*
 * test_ptx_memory.c - the CUDA text target/cuda/ptx_memory.c emits for TVM's
 * scalar T.ptx helpers (ld/st with memory orders, atom/red, the f32/f64
 * arithmetic and math wrappers), in the form TVMScript source writes them
 * and in the all-positional form TVM's printer writes; the result dtypes
 * the registry gives them; and the located errors for forms PTX or TVM do
 * not have, including instructions the target architecture lacks.
 *
 * Whole kernels are checked by the goldens tests/golden/cuda/ptx_memory*.tirx
 * (assembled by ptxas in ctest) and run on a GPU by tests/gpu/ptx_memory_cases.inc.
 */
#include <criterion/criterion.h>
#include <stdio.h>

#include "cuda_harness.h"

static const tx_target SM90 = {"sm_90a", 90, 2, NULL};
static const tx_target SM100 = {"sm_100a", 100, 2, NULL};

/* The body lines go into a kernel with these buffers in scope:
 * A uint32, F float32, D float64, L uint64, S int32, H bfloat16 (global);
 * sm uint32 (shared), loc float32 (local), dl float64 (local). */
static const cuda_kernel K = {
    "k.tirx", "# from tvm.script import tirx as T\n\n@T.prim_func\n"
              "def k(A: T.Buffer((256,), \"uint32\"), F: T.Buffer((256,), \"float32\"), "
              "D: T.Buffer((256,), \"float64\"), L: T.Buffer((256,), \"uint64\"), "
              "S: T.Buffer((256,), \"int32\"), H: T.Buffer((256,), \"bfloat16\")):\n"
              "    T.device_entry(grid=(1, 1, 1), block=(32, 1, 1))\n"
              "    bx = T.launch_thread(\"blockIdx.x\", 1)\n"
              "    tx = T.launch_thread(\"threadIdx.x\", 32)\n"
              "    sm = T.alloc_buffer((64,), \"uint32\", scope=\"shared\", align=16)\n"
              "    loc = T.alloc_buffer((4,), \"float32\", scope=\"local\")\n"
              "    dl = T.alloc_buffer((1,), \"float64\", scope=\"local\")\n"};

/* One statement compiles (for `target`) and its CUDA contains every needle
 * (a NULL-terminated list). */
static void expect_cuda_for(const tx_target *target, const char *line, const char *const *needles) {
  char body[1024];
  snprintf(body, sizeof body, "    %s\n", line);
  cuda_expect_text(target, &K, body, needles);
}

#define EXPECT_CUDA(line, ...)                                                                     \
  expect_cuda_for(&SM90, line, (const char *const[]){__VA_ARGS__, NULL})
#define EXPECT_CUDA_SM100(line, ...)                                                               \
  expect_cuda_for(&SM100, line, (const char *const[]){__VA_ARGS__, NULL})

/* One statement is a codegen error mentioning `needle`, located at the
 * statement (line 11, after the kernel's head). */
static void expect_error_for(const tx_target *target, const char *line, const char *needle) {
  char body[1024];
  snprintf(body, sizeof body, "    %s\n", line);
  cuda_expect_error(target, &K, body, needle, 11);
}

#define EXPECT_ERROR(line, needle) expect_error_for(&SM90, line, needle)

/* ---- loads -------------------------------------------------------------------------- */

Test(ptx_memory, ld) {
  EXPECT_CUDA("A[tx] = T.ptx.ld(T.address_of(A[tx]), \"uint32\", \"b32\")",
              "A_ptr[tx] = ([&]() { unsigned int tx_r; asm volatile(\"ld.global.b32 %0, [%1];\" "
              ": \"=r\"(tx_r) : \"l\"((&A_ptr[tx])) : \"memory\"); return tx_r; }());");
  EXPECT_CUDA("S[tx] = T.ptx.ld(T.address_of(S[tx]), \"int32\", \"s32\", weak=True, cop=\"cs\")",
              "int tx_r; asm volatile(\"ld.weak.global.cs.s32 %0, [%1];\"");
  EXPECT_CUDA("A[tx] = T.ptx.ld(T.address_of(sm[tx]), \"uint32\", \"u32\", space=\"shared\")",
              "asm volatile(\"ld.shared.u32 %0, [%1];\" : \"=r\"(tx_r) : "
              "\"r\"(tx_smem_addr((&sm_ptr[tx]))) : \"memory\")");
  EXPECT_CUDA("loc[0] = T.ptx.ld(T.address_of(loc[1]), \"float32\", \"f32\", space=\"local\")",
              "\"ld.local.f32 %0, [%1];\" : \"=f\"(tx_r) : "
              "\"l\"(__cvta_generic_to_local((&loc_ptr[1])))");
  EXPECT_CUDA("A[tx] = T.ptx.ld(T.address_of(A[tx]), \"uint32\", \"u8\")",
              "\"ld.global.u8 %0, [%1];\" : \"=r\"(tx_r)");
  EXPECT_CUDA("A[tx] = T.ptx.ld(T.address_of(A[tx]), return_type=\"uint32\", ptx_type=\"b32\", "
              "cache_hint=\"evict_first\")",
              "\"ld.global.L2::cache_hint.b32 %0, [%1], %2;\" : \"=r\"(tx_r) : "
              "\"l\"((&A_ptr[tx])), \"l\"(0x12F0000000000000ull)");
  EXPECT_CUDA("A[tx] = T.ptx.ld(T.address_of(A[tx]), \"uint32\", \"b32\", cache_policy=L[0])",
              "\"l\"((unsigned long long)(L_ptr[0]))");
  EXPECT_CUDA("D[tx] = T.ptx.ld(T.address_of(D[tx]), \"float64\", \"f64\")",
              "double tx_r; asm volatile(\"ld.global.f64 %0, [%1];\" : \"=d\"(tx_r)");
}

Test(ptx_memory, ld_printed_form) {
  /* TVM prints (addr, cache_policy, return_type, weak, space, cop, ptx_type, has_cache). */
  EXPECT_CUDA("S[tx] = T.ptx.ld(T.address_of(S[tx]), T.uint64(0), \"int32\", 1, \"global\", "
              "\"cg\", \"b32\", 0)",
              "int tx_r; asm volatile(\"ld.weak.global.cg.b32 %0, [%1];\"");
  EXPECT_CUDA("A[tx] = T.ptx.ld(T.address_of(A[tx]), L[1], \"uint32\", 0, \"global\", \"\", "
              "\"u32\", 1)",
              "\"ld.global.L2::cache_hint.u32 %0, [%1], %2;\"",
              "\"l\"((unsigned long long)(L_ptr[1]))");
  EXPECT_CUDA("A[tx] = T.ptx.ld_acquire(T.address_of(sm[0]), \"uint32\", \"b32\", \"cta\", "
              "\"shared::cta\")",
              "\"ld.acquire.cta.shared::cta.b32 %0, [%1];\"");
  EXPECT_CUDA("S[tx] = T.ptx.ld_volatile(T.address_of(sm[0]), \"int32\", \"b32\", \"shared\")",
              "\"ld.volatile.shared.b32 %0, [%1];\"");
}

Test(ptx_memory, ld_orders) {
  EXPECT_CUDA("F[tx] = T.ptx.ld_acquire(T.address_of(F[tx]), \"float32\", \"f32\")",
              "float tx_r; asm volatile(\"ld.acquire.gpu.global.f32 %0, [%1];\" : \"=f\"(tx_r)");
  EXPECT_CUDA("L[tx] = T.ptx.ld_relaxed(T.address_of(L[tx]), \"uint64\", \"u64\", scope=\"sys\")",
              "unsigned long long tx_r; asm volatile(\"ld.relaxed.sys.global.u64 %0, [%1];\" : "
              "\"=l\"(tx_r)");
  EXPECT_CUDA(
      "A[tx] = T.ptx.ld_relaxed(T.address_of(sm[1]), \"uint32\", \"b32\", scope=\"cluster\", "
      "space=\"shared::cluster\")",
      "\"ld.relaxed.cluster.shared::cluster.b32 %0, [%1];\"");
  EXPECT_CUDA("A[tx] = T.ptx.ld_mmio(T.address_of(A[tx]), \"uint32\", \"b32\")",
              "\"ld.mmio.relaxed.sys.global.b32 %0, [%1];\"");
  EXPECT_CUDA("A[tx] = T.ptx.ld_mmio(T.address_of(A[tx]), \"uint32\", \"u8\")",
              "\"ld.mmio.relaxed.sys.global.u8 %0, [%1];\"");
  EXPECT_CUDA("S[tx] = T.ptx.ld_volatile(T.address_of(S[tx]), \"int32\", \"s32\")",
              "\"ld.volatile.global.s32 %0, [%1];\"");
  /* The raw-bits type may be read as either signedness. */
  EXPECT_CUDA("S[tx] = T.ptx.ld_acquire(T.address_of(S[tx]), \"int32\", \"b32\", scope=\"sys\")",
              "int tx_r; asm volatile(\"ld.acquire.sys.global.b32");
}

Test(ptx_memory, ld_global_acquire_and_ldg32) {
  EXPECT_CUDA("T.ptx.ld_global_acquire(S[tx], T.address_of(S[0]))",
              "asm volatile(\"ld.acquire.gpu.global.b32 %0, [%1];\" : \"=r\"(S_ptr[tx]) : "
              "\"l\"((&S_ptr[0])) : \"memory\");");
  EXPECT_CUDA("T.ptx.ld_global_acquire(L[tx], T.address_of(L[0]))",
              "\"ld.acquire.gpu.global.b64 %0, [%1];\" : \"=l\"(L_ptr[tx])");
  EXPECT_CUDA("T.ptx.ldg32(loc.data, tx < 4, F[tx], 2)",
              "@!p mov.b32 %0, 0;\\n\\t@p ld.global.nc.f32 %0, [%1];",
              ": \"=f\"(((float*)(loc_ptr))[2]) : \"l\"((&F_ptr[tx])), \"r\"((int)((tx < 4)))");
}

/* ---- stores ------------------------------------------------------------------------- */

Test(ptx_memory, st) {
  /* TVM's T.ptx.st defaults to the shared state space. */
  EXPECT_CUDA("T.ptx.st(T.address_of(sm[tx]), A[tx], ptx_type=\"u32\")",
              "asm volatile(\"st.shared.u32 [%0], %1;\" :: \"r\"(tx_smem_addr((&sm_ptr[tx]))), "
              "\"r\"(A_ptr[tx]) : \"memory\");");
  EXPECT_CUDA("T.ptx.st(sm.ptr_to([4]), A[0], A[1], space=\"shared::cta\", vec=\"v2\", "
              "ptx_type=\"b32\")",
              "\"st.shared::cta.v2.b32 [%0], {%1, %2};\"");
  EXPECT_CUDA("T.ptx.st(T.address_of(A[tx]), T.uint32(7), weak=True, space=\"global\", cop=\"cs\", "
              "ptx_type=\"b32\", cache_hint=\"evict_last\")",
              "\"st.weak.global.cs.L2::cache_hint.b32 [%0], %1, %2;\" :: \"l\"((&A_ptr[tx])), "
              "\"r\"(7U), \"l\"(0x14F0000000000000ull)");
  EXPECT_CUDA("T.ptx.st(T.address_of(D[tx]), D[0], space=\"global\", ptx_type=\"f64\")",
              "\"st.global.f64 [%0], %1;\" :: \"l\"((&D_ptr[tx])), \"d\"(D_ptr[0])");
  EXPECT_CUDA("T.ptx.st(T.address_of(S[tx]), tx, space=\"global\", ptx_type=\"s32\")",
              "\"st.global.s32 [%0], %1;\" :: \"l\"((&S_ptr[tx])), \"r\"(tx)");
  /* A narrower integer type takes the value in a 32-bit register. */
  EXPECT_CUDA("T.ptx.st_volatile(T.address_of(sm[0]), tx, ptx_type=\"u8\")",
              "\"st.volatile.shared.u8 [%0], %1;\"", "\"r\"((unsigned int)(tx))");
  /* bfloat16 bits into a .b16 store */
  EXPECT_CUDA("T.ptx.st_volatile(T.address_of(H[tx]), H[0], space=\"global\", ptx_type=\"b16\")",
              "\"h\"(__bfloat16_as_ushort(H_ptr[0]))");
}

Test(ptx_memory, st_orders) {
  EXPECT_CUDA("T.ptx.st_relaxed(T.address_of(sm[tx]), A[tx], scope=\"cta\", ptx_type=\"b32\")",
              "\"st.relaxed.cta.shared.b32 [%0], %1;\"");
  EXPECT_CUDA("T.ptx.st_release(T.address_of(A[tx]), A[tx], space=\"global\", ptx_type=\"u32\")",
              "\"st.release.gpu.global.u32 [%0], %1;\"");
  EXPECT_CUDA("T.ptx.st_release(T.address_of(A[tx]), A[tx], scope=\"sys\", space=\"global\", "
              "ptx_type=\"b32\", cache_policy=L[0])",
              "\"st.release.sys.global.L2::cache_hint.b32 [%0], %1, %2;\"");
  EXPECT_CUDA("T.ptx.st_volatile(T.address_of(F[tx]), F[0], space=\"global\", ptx_type=\"f32\")",
              "\"st.volatile.global.f32 [%0], %1;\" :: \"l\"((&F_ptr[tx])), \"f\"(F_ptr[0])");
  EXPECT_CUDA("T.ptx.st_mmio(T.address_of(A[tx]), A[0], ptx_type=\"b32\")",
              "\"st.mmio.relaxed.sys.global.b32 [%0], %1;\"");
  /* T.ptx.st(sem=...) picks the order of the siblings. */
  EXPECT_CUDA("T.ptx.st(T.address_of(A[tx]), A[0], sem=\"release\", scope=\"cluster\", "
              "space=\"global\", ptx_type=\"b32\")",
              "\"st.release.cluster.global.b32 [%0], %1;\"");
  EXPECT_CUDA("T.ptx.st_relaxed(T.address_of(A[tx]), A[0], A[1], A[2], A[3], space=\"global\", "
              "vec=\"v4\", ptx_type=\"b32\")",
              "\"st.relaxed.gpu.global.v4.b32 [%0], {%1, %2, %3, %4};\"");
}

Test(ptx_memory, st_printed_form) {
  /* (addr, *values, cache_policy, weak, space, cop, vec, ptx_type, has_cache) */
  EXPECT_CUDA("T.ptx.st(T.address_of(A[0]), A[1], A[2], T.uint64(0), 0, \"global\", \"\", "
              "\"v2\", \"b32\", 0)",
              "asm volatile(\"st.global.v2.b32 [%0], {%1, %2};\" :: \"l\"((&A_ptr[0])), "
              "\"r\"(A_ptr[1]), \"r\"(A_ptr[2]) : \"memory\");");
  EXPECT_CUDA("T.ptx.st(T.address_of(sm[0]), A[1], T.uint64(0), 1, \"shared\", \"wb\", \"\", "
              "\"u32\", 0)",
              "\"st.weak.shared.wb.u32 [%0], %1;\"");
}

Test(ptx_memory, st_bulk_sm100) {
  EXPECT_CUDA_SM100("T.ptx.st_bulk(sm.ptr_to([0]), 256)",
                    "asm volatile(\"st.bulk.shared::cta [%0], %1, 0;\" :: "
                    "\"r\"(tx_smem_addr((sm_ptr + 0))), \"l\"((unsigned long long)(256)) : "
                    "\"memory\");");
  EXPECT_CUDA_SM100("T.ptx.st_bulk(T.address_of(sm[8]), 64, True, \"\")",
                    "\"st.bulk.weak [%0], %1, 0;\" :: \"l\"((&sm_ptr[8]))");
}

/* ---- atom / red ----------------------------------------------------------------------- */

Test(ptx_memory, atom) {
  EXPECT_CUDA("S[tx] = T.ptx.atom_scalar(T.address_of(S[0]), 1, op=\"add\", ptx_type=\"s32\")",
              "S_ptr[tx] = ([&]() { int tx_r; asm volatile(\"atom.global.add.s32 %0, [%1], %2;\" "
              ": \"=r\"(tx_r) : \"l\"((&S_ptr[0])), \"r\"(1) : \"memory\"); return tx_r; }());");
  EXPECT_CUDA(
      "A[tx] = T.ptx.atom_scalar(T.address_of(sm[0]), A[tx], sem=\"acq_rel\", scope=\"cta\", "
      "space=\"shared\", op=\"max\", ptx_type=\"u32\")",
      "\"atom.acq_rel.cta.shared.max.u32 %0, [%1], %2;\"");
  EXPECT_CUDA(
      "L[tx] = T.ptx.atom_scalar(T.address_of(L[0]), L[tx], sem=\"relaxed\", scope=\"gpu\", "
      "op=\"exch\", ptx_type=\"b64\", cache_hint=\"evict_normal\")",
      "\"atom.relaxed.gpu.global.exch.L2::cache_hint.b64 %0, [%1], %2, %3;\" : "
      "\"=l\"(tx_r) : \"l\"((&L_ptr[0])), \"l\"(L_ptr[tx]), \"l\"(0x1000000000000000ull)");
  EXPECT_CUDA("F[tx] = T.ptx.atom_scalar(T.address_of(F[0]), F[tx], op=\"add\", ptx_type=\"f32\")",
              "float tx_r; asm volatile(\"atom.global.add.f32 %0, [%1], %2;\"");
  /* An integer literal is a number for a float type too. */
  EXPECT_CUDA("T.ptx.red_scalar(T.address_of(D[0]), 1, op=\"add\", ptx_type=\"f64\")",
              "\"red.global.add.f64 [%0], %1;\" :: \"l\"((&D_ptr[0])), \"d\"((double)(1))");
  /* The result has the PTX type's dtype: .u32 gives uint32 even for an int32 value. */
  EXPECT_CUDA("S[tx] = T.Cast(\"int32\", T.ptx.atom_scalar(T.address_of(A[0]), tx, op=\"inc\", "
              "ptx_type=\"u32\"))",
              "((int)([&]() { unsigned int tx_r; asm volatile(\"atom.global.inc.u32",
              "\"r\"((unsigned int)(tx))");
  /* printed: (address, value, cache_policy, sem, scope, space, op, ptx_type, has_cache) */
  EXPECT_CUDA("S[tx] = T.ptx.atom_scalar(T.address_of(S[0]), 2, T.uint64(0), \"acquire\", \"sys\", "
              "\"global\", \"min\", \"s32\", 0)",
              "\"atom.acquire.sys.global.min.s32 %0, [%1], %2;\"");
}

Test(ptx_memory, red) {
  EXPECT_CUDA("T.ptx.red_scalar(T.address_of(A[0]), T.uint32(1), sem=\"release\", scope=\"gpu\", "
              "op=\"add\", ptx_type=\"u32\")",
              "asm volatile(\"red.release.gpu.global.add.u32 [%0], %1;\" :: "
              "\"l\"((&A_ptr[0])), \"r\"(1U) : \"memory\");");
  EXPECT_CUDA("T.ptx.red_scalar(T.address_of(D[0]), D[tx], op=\"add\", ptx_type=\"f64\")",
              "\"red.global.add.f64 [%0], %1;\" :: \"l\"((&D_ptr[0])), \"d\"(D_ptr[tx])");
  EXPECT_CUDA("T.ptx.red_scalar(T.address_of(sm[1]), A[tx], space=\"shared::cluster\", "
              "scope=\"cluster\", op=\"or\", ptx_type=\"b32\")",
              "\"red.cluster.shared::cluster.or.b32 [%0], %1;\" :: "
              "\"r\"(tx_smem_addr((&sm_ptr[1])))");
  EXPECT_CUDA("T.ptx.red_scalar(T.address_of(L[0]), L[tx], op=\"add\", ptx_type=\"u64\", "
              "cache_policy=L[1])",
              "\"red.global.add.L2::cache_hint.u64 [%0], %1, %2;\"");
  EXPECT_CUDA("T.ptx.red_scalar(T.address_of(S[0]), 3, T.uint64(0), \"\", \"\", \"global\", "
              "\"add\", \"s32\", 0)",
              "\"red.global.add.s32 [%0], %1;\"");
}

/* ---- arithmetic ------------------------------------------------------------------------ */

Test(ptx_memory, arith_f32_f64) {
  EXPECT_CUDA("T.ptx.add_f32(T.address_of(loc[0]), F[tx], F[0])",
              "asm volatile(\"add.rn.f32 %0, %1, %2;\" : \"=f\"(*(float*)((&loc_ptr[0]))) : "
              "\"f\"(F_ptr[tx]), \"f\"(F_ptr[0]));");
  EXPECT_CUDA("T.ptx.sub_f32(T.address_of(loc[0]), F[tx], F[0], rounding=\"rz\", ftz=True, "
              "sat=True)",
              "\"sub.rz.ftz.sat.f32 %0, %1, %2;\"");
  EXPECT_CUDA("T.ptx.mul_f32(T.address_of(F[tx]), F[tx], 2, rounding=\"rm\")",
              "\"mul.rm.f32 %0, %1, %2;\" : \"=f\"(*(float*)((&F_ptr[tx]))) : \"f\"(F_ptr[tx]), "
              "\"f\"((float)(2))");
  EXPECT_CUDA("T.ptx.fma_f32(T.address_of(loc[3]), loc[0], loc[1], loc[2], rounding=\"rp\")",
              "\"fma.rp.f32 %0, %1, %2, %3;\" : \"=f\"(*(float*)((&loc_ptr[3]))) : "
              "\"f\"(loc_ptr[0]), \"f\"(loc_ptr[1]), \"f\"(loc_ptr[2])");
  EXPECT_CUDA("T.ptx.add_f64(T.address_of(dl[0]), D[tx], D[0], rounding=\"rz\")",
              "\"add.rz.f64 %0, %1, %2;\" : \"=d\"(*(double*)((&dl_ptr[0]))) : \"d\"(D_ptr[tx]), "
              "\"d\"(D_ptr[0])");
  EXPECT_CUDA("T.ptx.sub_f64(T.address_of(dl[0]), D[tx], D[0])", "\"sub.rn.f64 %0, %1, %2;\"");
  EXPECT_CUDA("T.ptx.mul_f64(T.address_of(dl[0]), D[tx], D[0])", "\"mul.rn.f64 %0, %1, %2;\"");
  EXPECT_CUDA("T.ptx.fma_f64(T.address_of(dl[0]), D[tx], D[0], D[1], rounding=\"rm\")",
              "\"fma.rm.f64 %0, %1, %2, %3;\"");
  /* printed: (d, a, b, rounding, ftz, sat) */
  EXPECT_CUDA("T.ptx.add_f32(T.address_of(loc[0]), F[tx], F[0], \"rz\", 1, 0)",
              "\"add.rz.ftz.f32 %0, %1, %2;\"");
  EXPECT_CUDA("T.ptx.fma_f64(T.address_of(dl[0]), D[tx], D[0], D[1], \"rn\", 0, 0)",
              "\"fma.rn.f64 %0, %1, %2, %3;\"");
}

Test(ptx_memory, arith_f32x2_sm100) {
  EXPECT_CUDA_SM100("T.ptx.add_f32x2(T.address_of(L[tx]), L[0], L[1])",
                    "asm volatile(\"add.rn.f32x2 %0, %1, %2;\" : "
                    "\"=l\"(*(unsigned long long*)((&L_ptr[tx]))) : \"l\"(L_ptr[0]), "
                    "\"l\"(L_ptr[1]));");
  EXPECT_CUDA_SM100("T.ptx.sub_f32x2(T.address_of(L[tx]), L[0], L[1], rounding=\"rz\", ftz=True)",
                    "\"sub.rz.ftz.f32x2 %0, %1, %2;\"");
  EXPECT_CUDA_SM100("T.ptx.mul_f32x2(T.address_of(L[tx]), L[0], L[1], \"rm\", 0, 0)",
                    "\"mul.rm.f32x2 %0, %1, %2;\"");
  EXPECT_CUDA_SM100("T.ptx.fma_f32x2(T.address_of(L[tx]), L[0], L[1], L[2], rounding=\"rp\")",
                    "\"fma.rp.f32x2 %0, %1, %2, %3;\"");
}

Test(ptx_memory, math) {
  EXPECT_CUDA("F[tx] = T.ptx.exp2(F[tx])",
              "F_ptr[tx] = ([&]() { float tx_r; asm volatile(\"ex2.approx.ftz.f32 %0, %1;\" : "
              "\"=f\"(tx_r) : \"f\"(F_ptr[tx])); return tx_r; }());");
  EXPECT_CUDA("F[tx] = T.ptx.rcp(F[tx])", "asm volatile(\"rcp.approx.ftz.f32 %0, %1;\"");
  EXPECT_CUDA("F[tx] = T.ptx.max_f32(F[tx], F[0])", "asm volatile(\"max.f32 %0, %1, %2;\"");
  EXPECT_CUDA("F[tx] = T.ptx.max_f32(F[tx], F[0], ftz=True, nan=True)",
              "asm volatile(\"max.ftz.NaN.f32 %0, %1, %2;\"");
  EXPECT_CUDA("F[tx] = T.ptx.max_f32(F[tx], F[0], 0, 1)",
              "asm volatile(\"max.NaN.f32 %0, %1, %2;\"");
  EXPECT_CUDA("A[tx] = T.ptx.fns_b32(A[tx], T.uint32(0), 1)",
              "\"fns.b32 %0, %1, %2, %3;\" : \"=r\"(tx_r) : \"r\"(A_ptr[tx]), \"r\"(0U), \"r\"(1)");
  EXPECT_CUDA("S[tx] = T.ptx.fetch_register(32, \"laneid\")",
              "S_ptr[tx] = ([&]() { unsigned int tx_r; asm volatile(\"mov.u32 %0, %%laneid;\" : "
              "\"=r\"(tx_r)); return (int)tx_r; }());");
  /* 64 bits give an int64 (TVM: "int" + bits). */
  EXPECT_CUDA("L[tx] = T.Cast(\"uint64\", T.ptx.fetch_register(64, \"%globaltimer\"))",
              "unsigned long long tx_r; asm volatile(\"mov.u64 %0, %%globaltimer;\" : "
              "\"=l\"(tx_r)); return (long long)tx_r;");
  EXPECT_CUDA_SM100("F[tx] = T.ptx.reduce3_max_f32(F[0], F[1], F[2])",
                    "\"max.f32 %0, %1, %2, %3;\" : \"=f\"(tx_r) : \"f\"(F_ptr[0]), "
                    "\"f\"(F_ptr[1]), \"f\"(F_ptr[2])");
  EXPECT_CUDA_SM100("F[tx] = T.ptx.reduce3_min_f32(F[0], F[1], F[2])",
                    "\"min.f32 %0, %1, %2, %3;\"");
  EXPECT_CUDA_SM100("F[tx] = T.ptx.add_rn_f32_bf16(F[tx], H[tx])",
                    "\"add.rn.f32.bf16 %0, %1, %2;\" : \"=f\"(tx_r) : "
                    "\"h\"(__bfloat16_as_ushort(H_ptr[tx])), \"f\"(F_ptr[tx])");
  EXPECT_CUDA_SM100("F[tx] = T.ptx.add_rn_f32_bf16(F[tx], T.uint16(16256))",
                    "\"h\"((unsigned short)(", "16256");
}

/* ---- located errors --------------------------------------------------------------------- */

Test(ptx_memory, load_errors) {
  EXPECT_ERROR("A[tx] = T.ptx.ld(T.address_of(A[tx]), \"uint32\", \"b33\")",
               "ptx_type \"b33\" is not one of");
  EXPECT_ERROR("F[tx] = T.ptx.ld(T.address_of(F[tx]), \"float32\", \"b32\")",
               "a .b32 load cannot return float32");
  EXPECT_ERROR("A[tx] = T.ptx.ld(T.address_of(A[tx]), \"uint32\")", "ptx_type is required");
  EXPECT_ERROR("A[tx] = T.ptx.ld(T.address_of(sm[0]), \"uint32\", \"b32\")",
               "points into shared memory but the state space is .global (the default); pass "
               "space=\"shared\"");
  EXPECT_ERROR("A[tx] = T.ptx.ld(T.address_of(A[tx]), \"uint32\", \"b32\", space=\"shared\")",
               "points into global memory but the state space is .shared");
  EXPECT_ERROR("A[tx] = T.ptx.ld(T.address_of(sm[0]), \"uint32\", \"b32\", space=\"shared\", "
               "cache_hint=\"evict_first\")",
               ".L2::cache_hint needs the global state space");
  EXPECT_ERROR("A[tx] = T.ptx.ld(T.address_of(A[tx]), \"uint32\", \"b32\", cache_hint=\"evict_x\")",
               "has no built-in policy");
  EXPECT_ERROR("A[tx] = T.ptx.ld(T.address_of(A[tx]), \"uint32\", \"b32\", cop=\"wb\")",
               "cop \"wb\" is not one of");
  EXPECT_ERROR("A[tx] = T.ptx.ld(T.address_of(A[tx]), \"uint32\", \"b32\", space=\"param::entry\")",
               "cannot be formed from a TIRx pointer");
  EXPECT_ERROR("A[tx] = T.ptx.ld(tx, \"uint32\", \"b32\")", "must be a pointer");
  EXPECT_ERROR("A[tx] = T.ptx.ld(T.address_of(A[tx]), \"uint32\", \"b32\", 1, \"global\")",
               "or the printed 8-argument form");
  EXPECT_ERROR("A[tx] = T.ptx.ld_acquire(T.address_of(A[tx]), \"uint32\", \"b32\", scope=\"grid\")",
               "scope \"grid\" is not one of");
  /* ptxas: .acquire/.relaxed/.volatile do not apply to .local, .volatile not to .const */
  EXPECT_ERROR("loc[0] = T.ptx.ld_acquire(T.address_of(loc[0]), \"float32\", \"f32\", "
               "space=\"local\")",
               "space \"local\" is not one of");
  EXPECT_ERROR("A[tx] = T.ptx.ld_volatile(T.address_of(A[tx]), \"uint32\", \"b32\", "
               "space=\"const\")",
               "space \"const\" is not one of");
  EXPECT_ERROR("A[tx] = T.ptx.ld_mmio(T.address_of(A[tx]), \"uint32\", \"b32\", scope=\"gpu\")",
               "system scope only");
  EXPECT_ERROR("A[tx] = T.ptx.ld_mmio(T.address_of(sm[0]), \"uint32\", \"b32\", space=\"shared\")",
               "ld.mmio reads global memory only");
  EXPECT_ERROR("T.ptx.ld_global_acquire(F[tx], T.address_of(F[0]))",
               "must be int32, uint32, int64 or uint64");
  EXPECT_ERROR("T.ptx.ld_global_acquire(tx, T.address_of(S[0]))", "must be a buffer element");
  EXPECT_ERROR("T.ptx.ld_global_acquire(S[tx], T.address_of(sm[0]))", "points into shared memory");
  EXPECT_ERROR("T.ptx.ldg32(loc.data, tx < 4, sm[tx], 0)", "float32 element");
  EXPECT_ERROR("T.ptx.ldg32(loc.data, tx < 4, F[tx], F[0])",
               "the guard and the offset are integers");
}

Test(ptx_memory, store_errors) {
  EXPECT_ERROR("T.ptx.st(T.address_of(A[tx]), A[0], ptx_type=\"b32\")",
               "points into global memory but the state space is .shared (the default); pass "
               "space=\"global\"");
  EXPECT_ERROR("T.ptx.st(T.address_of(sm[0]), A[0], vec=\"v2\", ptx_type=\"b32\")",
               ".v2 stores 2 values, got 1");
  EXPECT_ERROR("T.ptx.st(T.address_of(sm[0]), A[0], ptx_type=\"b8\")",
               "ptx_type \"b8\" is not one of");
  EXPECT_ERROR("T.ptx.st(T.address_of(sm[0]), F[0], ptx_type=\"b32\")",
               "a .b32 operand needs an integer value, not float32");
  EXPECT_ERROR("T.ptx.st(T.address_of(sm[0]), A[0], ptx_type=\"f32\")",
               "a .f32 operand needs a float32/float64 value, not uint32");
  EXPECT_ERROR("T.ptx.st(T.address_of(sm[0]), A[0], scope=\"gpu\", ptx_type=\"b32\")",
               "scope= does not apply");
  EXPECT_ERROR("T.ptx.st(T.address_of(sm[0]), A[0], space=\"shared\", ptx_type=\"b32\", "
               "cache_policy=L[0])",
               ".L2::cache_hint needs the global state space");
  EXPECT_ERROR("T.ptx.st(T.address_of(A[0]), A[0], A[1], A[2], A[3], A[4], A[5], A[6], A[7], "
               "space=\"global\", vec=\"v8\", ptx_type=\"b32\")",
               "a 256-bit store needs sm_100 or newer, but the target is sm_90a");
  EXPECT_ERROR("T.ptx.st(T.address_of(L[0]), L[0], L[1], L[2], L[3], L[4], L[5], L[6], L[7], "
               "space=\"global\", vec=\"v8\", ptx_type=\"b64\")",
               "is 512 bits");
  EXPECT_ERROR("T.ptx.st_release(T.address_of(A[0]), A[0], space=\"global\", weak=True, "
               "ptx_type=\"b32\")",
               "st.release is not a weak store");
  EXPECT_ERROR("T.ptx.st_relaxed(T.address_of(A[0]), A[0], space=\"global\", cop=\"cs\", "
               "ptx_type=\"b32\")",
               "st.relaxed takes no cache operator");
  EXPECT_ERROR("T.ptx.st_release(T.address_of(A[0]), A[0], sem=\"relaxed\", space=\"global\", "
               "ptx_type=\"b32\")",
               "contradicts T.ptx.st_release");
  EXPECT_ERROR("T.ptx.st_volatile(T.address_of(A[0]), A[0], scope=\"gpu\", space=\"global\", "
               "ptx_type=\"b32\")",
               "st.volatile has no scope");
  EXPECT_ERROR("T.ptx.st_volatile(T.address_of(loc[0]), F[0], space=\"local\", ptx_type=\"f32\")",
               "space \"local\" is not one of");
  EXPECT_ERROR("T.ptx.st_mmio(T.address_of(A[0]), A[0], A[1], vec=\"v2\", ptx_type=\"b32\")",
               "st.mmio stores one value to global memory");
  EXPECT_ERROR("T.ptx.st_mmio(T.address_of(A[0]), A[0], scope=\"gpu\", ptx_type=\"b32\")",
               "system scope only");
  EXPECT_ERROR("T.ptx.st_bulk(sm.ptr_to([0]), 256)",
               "st.bulk needs sm_100 or newer, but the target is sm_90a");
  expect_error_for(&SM100, "T.ptx.st_bulk(sm.ptr_to([0]), 12)", "multiple of 8");
  expect_error_for(&SM100, "T.ptx.st_bulk(sm.ptr_to([0]), 16, space=\"global\")",
                   "space \"global\" is not one of");
}

Test(ptx_memory, atomic_errors) {
  EXPECT_ERROR("S[tx] = T.ptx.atom_scalar(T.address_of(S[0]), 1, op=\"add\", ptx_type=\"b32\")",
               "atom.add does not take .b32");
  EXPECT_ERROR("L[tx] = T.ptx.atom_scalar(T.address_of(L[0]), L[0], op=\"inc\", ptx_type=\"u64\")",
               "atom.inc does not take .u64");
  EXPECT_ERROR("A[tx] = T.ptx.atom_scalar(T.address_of(A[0]), A[0], op=\"and\", ptx_type=\"u32\")",
               "atom.and does not take .u32");
  EXPECT_ERROR("F[tx] = T.ptx.atom_scalar(T.address_of(F[0]), F[0], op=\"max\", ptx_type=\"f32\")",
               "atom.max does not take .f32");
  EXPECT_ERROR("A[tx] = T.ptx.atom_scalar(T.address_of(A[0]), A[0], op=\"cas\", ptx_type=\"b32\")",
               "op \"cas\" is not one of");
  EXPECT_ERROR("A[tx] = T.ptx.atom_scalar(T.address_of(A[0]), A[0], ptx_type=\"b32\")",
               "op is required");
  EXPECT_ERROR("T.ptx.red_scalar(T.address_of(A[0]), A[0], T.uint64(0), \"\", \"\")",
               "or the printed 9-argument form");
  EXPECT_ERROR("A[tx] = T.ptx.atom_scalar(T.address_of(A[0]), A[0], sem=\"seq_cst\", op=\"exch\", "
               "ptx_type=\"b32\")",
               "sem \"seq_cst\" is not one of");
  EXPECT_ERROR("T.ptx.red_scalar(T.address_of(A[0]), A[0], sem=\"acquire\", op=\"add\", "
               "ptx_type=\"u32\")",
               "sem \"acquire\" is not one of");
  EXPECT_ERROR("T.ptx.red_scalar(T.address_of(A[0]), A[0], op=\"exch\", ptx_type=\"b32\")",
               "red has no exch");
  EXPECT_ERROR("T.ptx.red_scalar(T.address_of(sm[0]), A[0], space=\"shared\", op=\"add\", "
               "ptx_type=\"u32\", cache_hint=\"evict_first\")",
               ".L2::cache_hint needs the global state space");
  EXPECT_ERROR("T.ptx.red_scalar(T.address_of(A[0]), A[0], space=\"local\", op=\"add\", "
               "ptx_type=\"u32\")",
               "space \"local\" is not one of");
  EXPECT_ERROR("T.ptx.red_scalar(T.address_of(A[0]), F[0], op=\"add\", ptx_type=\"u32\")",
               "a .u32 operand needs an integer value, not float32");
}

Test(ptx_memory, arith_errors) {
  EXPECT_ERROR("T.ptx.add_f32(T.address_of(loc[0]), F[0], F[1], rounding=\"rna\")",
               "rounding \"rna\" is not one of");
  EXPECT_ERROR("T.ptx.add_f64(T.address_of(dl[0]), D[0], D[1], \"rn\", 1, 0)",
               "add.f64 takes no .ftz or .sat");
  EXPECT_ERROR("T.ptx.add_f32(F[0], F[0], F[1])", "the first argument is the destination pointer");
  EXPECT_ERROR("T.ptx.add_f32x2(T.address_of(L[0]), L[0], L[1])",
               "the packed .f32x2 form needs sm_100 or newer, but the target is sm_90a");
  expect_error_for(&SM100, "T.ptx.fma_f32x2(T.address_of(L[0]), L[0], L[1], F[0])",
                   "an f32x2 operand is two floats packed in a uint64, not float32");
  expect_error_for(&SM100, "T.ptx.mul_f32x2(T.address_of(L[0]), L[0], L[1], \"rn\", 0, 1)",
                   "mul.f32x2 takes no .sat");
  EXPECT_ERROR("F[tx] = T.ptx.reduce3_max_f32(F[0], F[1], F[2])",
               "the three-input max/min.f32 needs sm_100 or newer");
  EXPECT_ERROR("F[tx] = T.ptx.add_rn_f32_bf16(F[0], H[0])", "needs sm_100 or newer");
  expect_error_for(&SM100, "F[tx] = T.ptx.add_rn_f32_bf16(F[0], F[1])",
                   "x is a bfloat16 (or its bits as a uint16), not float32");
  EXPECT_ERROR("S[tx] = T.ptx.fetch_register(16, \"laneid\")", "bits must be 32 or 64");
  EXPECT_ERROR("S[tx] = T.ptx.fetch_register(32, \"laneid; trap\")",
               "special register name such as \"laneid\"");
  EXPECT_ERROR("F[tx] = T.ptx.exp2(F[T.Ramp(0, 1, 4)])", "is not a scalar number");
}
