/*
 * test_ptx_copy.c - the CUDA emitters of target/cuda/ptx_copy.c (TVM's async
 * copy helpers: cp.async, bulk and TMA copies, tensormap prefetch, mbarrier
 * forms, mapa): the inline asm each operand form becomes, the target-gated
 * forms (cta_group, tile::gather4 need sm_100a), and the located errors for
 * forms that are not supported.
 *
 * Whole kernels of these helpers are the goldens cp_async, bulk and tma in
 * tests/golden/cuda (assembled by ptxas in ctest); these tests pin the
 * details one call at a time.
 */
#include <criterion/criterion.h>

#include "cuda_harness.h"

static const tx_target SM90 = {"sm_90a", 90, 2, NULL};
static const tx_target SM100 = {"sm_100a", 100, 2, NULL};

/* A kernel with the buffers the tests use: global A, shared S and bar, a
 * tensor-map handle M and scalars n, p. */
static const cuda_kernel K = {
    "k.tirx", "# from tvm.script import tirx as T\n\n@T.prim_func\n"
              "def k(A: T.Buffer((1024,), \"float32\"), H: T.Buffer((1024,), \"float16\"), "
              "M: T.handle, n: T.int32, p: T.uint64):\n"
              "    T.device_entry(grid=(1, 1, 1), block=(128, 1, 1))\n"
              "    bx = T.launch_thread(\"blockIdx.x\", 1)\n"
              "    tx = T.launch_thread(\"threadIdx.x\", 128)\n"
              "    S = T.alloc_buffer((1024,), \"float32\", scope=\"shared\", align=128)\n"
              "    bar = T.alloc_buffer((2,), \"uint64\", scope=\"shared\", align=8)\n"
              "    R = T.alloc_buffer((1,), \"uint64\", scope=\"local\")\n"
              "    F = T.alloc_buffer((1,), \"float64\", scope=\"local\")\n"};

/* The body compiles for the target and the CUDA contains every needle. */
#define expect_cuda_on(t, body, ...)                                                               \
  cuda_expect_text(t, &K, body, (const char *const[]){__VA_ARGS__, NULL})
#define expect_cuda(...) expect_cuda_on(&SM90, __VA_ARGS__)
#define expect_cuda100(...) expect_cuda_on(&SM100, __VA_ARGS__)

/* The body fails code generation with a located error containing `needle`. */
#define expect_error_on(t, body, needle) cuda_expect_error(t, &K, body, needle, 0)
#define expect_error(body, needle) expect_error_on(&SM90, body, needle)

/* ---- cp.async ----------------------------------------------------------------- */

Test(cp_async, sizes_pick_cg_or_ca) {
  expect_cuda("    T.ptx.cp_async(T.address_of(S[tx * 4]), T.address_of(A[tx * 4]), 16)\n",
              "asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" :: "
              "\"r\"(tx_smem_addr((&S_ptr[(tx * 4)]))), "
              "\"l\"((unsigned long long)((&A_ptr[(tx * 4)]))) : \"memory\")");
  expect_cuda("    T.ptx.cp_async(T.address_of(S[tx]), T.address_of(A[tx]), 4)\n",
              "cp.async.ca.shared.global [%0], [%1], 4;");
  expect_cuda("    T.ptx.cp_async(T.address_of(S[tx]), T.address_of(A[tx]), 8)\n",
              "cp.async.ca.shared.global [%0], [%1], 8;");
}

Test(cp_async, cache_hint_and_prefetch) {
  expect_cuda("    T.ptx.cp_async(T.address_of(S[tx]), T.address_of(A[tx]), 16, "
              "cache_hint=\"evict_last\", prefetch_size=64)\n",
              "cp.async.cg.shared.global.L2::cache_hint.L2::64B [%0], [%1], 16, %2;",
              "\"l\"(0x14F0000000000000ULL)");
  expect_cuda("    T.ptx.cp_async(T.address_of(S[tx]), T.address_of(A[tx]), 16, cache_policy=p)\n",
              ".L2::cache_hint [%0], [%1], 16, %2;", "\"l\"((unsigned long long)(p))");
}

Test(cp_async, zero_fill_uses_src_size) {
  expect_cuda("    T.ptx.cp_async(T.address_of(S[tx]), T.address_of(A[tx]), 16, predicate=tx < n, "
              "fill_mode=\"zero\")\n",
              "cp.async.cg.shared.global [%0], [%1], 16, %2;",
              "\"r\"((unsigned)(((tx < n)) != 0 ? 16 : 0))");
  /* predicate=-1 is TVM's "no predicate": the whole size is read */
  expect_cuda("    T.ptx.cp_async(T.address_of(S[tx]), T.address_of(A[tx]), 8, predicate=-1, "
              "fill_mode=\"zero\")\n",
              "cp.async.ca.shared.global [%0], [%1], 8, %2;", "\"n\"(8)");
}

Test(cp_async, predicate_guards_the_copy) {
  expect_cuda("    T.ptx.cp_async(T.address_of(S[tx]), T.address_of(A[tx]), 16, "
              "predicate=T.Cast(\"int32\", tx < n), cache_hint=\"evict_first\")\n",
              "setp.eq.u32 tx_p, %2, 1;\\n\\t@tx_p cp.async.cg.shared.global.L2::cache_hint "
              "[%0], [%1], 16, %3;",
              "\"l\"(0x12F0000000000000ULL)");
}

Test(cp_async, legacy_forms_scale_offsets) {
  /* the printed InjectPTXAsyncCopy form: offsets in each pointer's elements */
  expect_cuda("    T.ptx.cp_async(\"float16\", S.data, tx * 4, H.data, tx * 8, 16)\n",
              "tx_smem_addr(((char*)(S_ptr) + ((tx * 4)) * 4))",
              "\"l\"(((char*)(H_ptr) + ((tx * 8)) * 2))");
  /* with a predicate: skip and zero-fill */
  expect_cuda("    T.ptx.cp_async(S.data, tx, A.data, tx, 8, T.Cast(\"int32\", tx < n))\n",
              "@tx_p cp.async.ca.shared.global [%0], [%1], 8;\\n\\t@!tx_p st.shared.v2.u32 [%0], "
              "{%3, %3};",
              "\"r\"(0u)");
  /* T.ptx.cp_async.legacy: offsets in elements of dtype=, bytes without it */
  expect_cuda("    T.ptx.cp_async.legacy(S.data, tx, A.data, tx, 16, dtype=\"float16\")\n",
              "((char*)(S_ptr) + (tx) * 2)", "((char*)(A_ptr) + (tx) * 2)");
  expect_cuda("    T.ptx.cp_async.legacy(S.data, tx * 16, A.data, tx * 16, 16)\n",
              "((char*)(S_ptr) + ((tx * 16)))");
}

Test(cp_async, mbarrier_arrive) {
  expect_cuda("    T.ptx.cp_async.mbarrier.arrive(T.address_of(bar[0]))\n",
              "cp.async.mbarrier.arrive.shared.b64 [%0];");
}

Test(cp_async, bad_forms_are_located_errors) {
  expect_error("    T.ptx.cp_async(T.address_of(S[tx]), T.address_of(A[tx]), 12)\n",
               "cp_size must be 4, 8 or 16 bytes, got 12");
  expect_error("    T.ptx.cp_async(T.address_of(S[tx]), T.address_of(A[tx]), n)\n",
               "cp_size must be an integer literal");
  expect_error("    T.ptx.cp_async(T.address_of(S[tx]), T.address_of(A[tx]), 16, "
               "prefetch_size=32)\n",
               "prefetch_size must be -1, 64, 128 or 256");
  expect_error("    T.ptx.cp_async(T.address_of(S[tx]), T.address_of(A[tx]), 16, "
               "fill_mode=\"nan\")\n",
               "fill_mode must be \"\" or \"zero\"");
  expect_error("    T.ptx.cp_async(T.address_of(S[tx]), T.address_of(A[tx]), 16, "
               "cache_hint=\"evict_soon\")\n",
               "unknown cache_hint \"evict_soon\"");
  expect_error("    T.ptx.cp_async(T.address_of(S[tx]), T.address_of(A[tx]), 16, "
               "cache_hint=\"evict_last\", cache_policy=p)\n",
               "give cache_hint or cache_policy, not both");
  expect_error("    T.ptx.cp_async(T.address_of(S[tx]), T.address_of(A[tx]), 16, 0)\n",
               "expected (dst, src, cp_size, ...)");
  expect_error("    T.ptx.cp_async.mbarrier.arrive(0)\n", "not a literal barrier id");
  expect_error("    T.ptx.cp_async.legacy(S.data, tx, A.data, tx, 16, dtype=\"handle\")\n",
               "dtype must be an element type string");
}

/* ---- bulk copies --------------------------------------------------------------- */

Test(bulk, g2s_cta_forms) {
  expect_cuda("    T.ptx.cp_async_bulk_g2s_cta(S.data, A.data, 4096, T.address_of(bar[0]))\n",
              "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
              "[%3];");
  expect_cuda("    T.ptx.cp_async_bulk_g2s_cta(S.data, A.data, 4096, T.address_of(bar[0]), "
              "ignore_oob=True, ignore_bytes_left=4, cache_hint=\"evict_last\")\n",
              "complete_tx::bytes.L2::cache_hint.ignore_oob [%0], [%1], %2, %3, %4, [%5], %6;",
              "\"r\"((unsigned)(4)), \"n\"(0)");
  expect_error("    T.ptx.cp_async_bulk_g2s_cta(S.data, A.data, 4096, T.address_of(bar[0]), "
               "ignore_bytes_left=4)\n",
               "need ignore_oob=True");
}

Test(bulk, g2s_cluster_multicast) {
  expect_cuda("    T.ptx.cp_async_bulk_g2s_cluster(S.data, A.data, 4096, T.address_of(bar[0]), "
              "multicast=True, cta_mask=T.uint16(5))\n",
              "complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;", "\"h\"(");
  expect_error("    T.ptx.cp_async_bulk_g2s_cluster(S.data, A.data, 4096, T.address_of(bar[0]), "
               "multicast=True)\n",
               "multicast=True needs cta_mask=");
}

Test(bulk, s2g_and_s2s) {
  expect_cuda("    T.ptx.cp_async_bulk_s2g(A.data, S.data, 4096)\n",
              "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;",
              "\"l\"((unsigned long long)(A_ptr)), \"r\"(tx_smem_addr(S_ptr))");
  expect_cuda("    T.ptx.cp_async_bulk_s2g(A.data, S.data, 4096, cache_hint=\"evict_first\", "
              "cp_mask=True, byte_mask=65535)\n",
              "bulk_group.L2::cache_hint.cp_mask [%0], [%1], %2, %3, %4;");
  expect_cuda("    T.ptx.cp_async_bulk_s2g(A.data, S.data, 4096, cp_mask=True, byte_mask=3)\n",
              "bulk_group.cp_mask [%0], [%1], %2, %3;", "\"h\"((unsigned short)(3))");
  expect_error("    T.ptx.cp_async_bulk_s2g(A.data, S.data, 4096, cp_mask=True)\n",
               "cp_mask=True needs byte_mask=");
  expect_cuda("    T.ptx.cp_async.bulk.s2c(T.ptx.map_shared_rank(S.data, 1), S.data, 512, "
              "T.ptx.map_shared_rank(T.address_of(bar[0]), 1))\n",
              "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], "
              "%2, [%3];",
              "mapa.u64 %0, %1, %2;");
}

Test(bulk, legacy_bulk) {
  expect_cuda("    T.ptx.cp_async.bulk(\"float32\", S.data, 4, A.data, 8, 512, "
              "T.address_of(bar[0]))\n",
              "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
              "[%3];",
              "tx_smem_addr(((char*)(S_ptr) + (4) * 4))", "\"l\"(((char*)(A_ptr) + (8) * 4))");
  expect_error("    T.ptx.cp_async.bulk(\"float32\", S.data, 0, A.data, 0, 512, 0)\n",
               "not a literal barrier id");
}

/* ---- TMA ------------------------------------------------------------------------ */

Test(tma, g2c_user_and_printed_forms) {
  expect_cuda("    T.ptx.cp_async.bulk.tensor.g2c(2, S.data, T.address_of(bar[0]), M, 0, 1, \"\", "
              "tx, n)\n",
              "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], "
              "[%1, {%3, %4}], [%2];",
              "\"l\"((unsigned long long)(M_ptr)), \"r\"(tx_smem_addr((&bar_ptr[0]))), "
              "\"r\"((int)(tx)), \"r\"((int)(n))");
  /* printed: policy, has_cache_policy, then the coordinates */
  expect_cuda("    T.ptx.cp_async.bulk.tensor.g2c(1, S.data, T.address_of(bar[0]), M, 0, 1, p, 1, "
              "tx)\n",
              "complete_tx::bytes.L2::cache_hint [%0], [%1, {%3}], [%2], %4;");
  /* printed with has_cache_policy 0: no cache operand */
  expect_cuda("    T.ptx.cp_async.bulk.tensor.g2c(1, S.data, T.address_of(bar[0]), M, 0, 1, "
              "T.uint64(0), 0, tx)\n",
              "complete_tx::bytes [%0], [%1, {%3}], [%2];");
}

Test(tma, multicast_follows_the_mask) {
  /* one bit: unicast; several bits or a runtime mask: .multicast::cluster */
  expect_cuda("    T.ptx.cp_async.bulk.tensor.g2c(1, S.data, T.address_of(bar[0]), M, 4, 1, \"\", "
              "tx)\n",
              "complete_tx::bytes [%0], [%1, {%3}], [%2];");
  expect_cuda("    T.ptx.cp_async.bulk.tensor.g2c(1, S.data, T.address_of(bar[0]), M, 6, 1, \"\", "
              "tx)\n",
              "complete_tx::bytes.multicast::cluster [%0], [%1, {%3}], [%2], %4;",
              "\"h\"((unsigned short)(6))");
  expect_cuda("    T.ptx.cp_async.bulk.tensor.g2c(1, S.data, T.address_of(bar[0]), M, n, 1, "
              "\"evict_last\", tx)\n",
              "multicast::cluster.L2::cache_hint [%0], [%1, {%3}], [%2], %4, %5;");
}

Test(tma, cta_group_and_gather4_need_sm100) {
  expect_error("    T.ptx.cp_async.bulk.tensor.g2c(2, S.data, T.address_of(bar[0]), M, 0, 2, \"\", "
               "tx, n)\n",
               "cta_group=2 needs sm_100a");
  expect_cuda100("    T.ptx.cp_async.bulk.tensor.g2c(2, S.data, T.address_of(bar[0]), M, 0, 2, "
                 "\"\", tx, n)\n",
                 "complete_tx::bytes.cta_group::2 [%0], [%1, {%3, %4}], [%2];");
  /* TVM spells cta_group::1 out on sm_100 and up */
  expect_cuda100("    T.ptx.cp_async.bulk.tensor.g2c(2, S.data, T.address_of(bar[0]), M, 0, 1, "
                 "\"\", tx, n)\n",
                 "complete_tx::bytes.cta_group::1 [%0]");
  expect_cuda("    T.ptx.cp_async.bulk.tensor.g2c(2, S.data, T.address_of(bar[0]), M, 0, 1, \"\", "
              "tx, n)\n",
              "complete_tx::bytes [%0]");
  expect_error("    T.ptx.cp_async.bulk.tensor.g2c_tile_gather4(2, S.data, T.address_of(bar[0]), "
               "M, 0, 1, \"\", 0, 1, 2, 3, 4)\n",
               "tile::gather4 needs sm_100a");
  expect_cuda100("    T.ptx.cp_async.bulk.tensor.g2c_tile_gather4_bar_addr(2, S.data, "
                 "T.cuda.cvta_generic_to_shared(T.address_of(bar[0])), M, 0, 2, p, 1, 1, 0, 1, 2, "
                 "3, 4)\n",
                 "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::"
                 "complete_tx::bytes.cta_group::2.L2::cache_hint [%0], [%1, {%3, %4, %5, %6, "
                 "%7}], [%2], %8;");
}

Test(tma, s2g_prefetch_reduce) {
  expect_cuda("    T.ptx.cp_async.bulk.tensor.s2g(3, S.data, M, \"\", tx, n, 0)\n",
              "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], "
              "[%1];");
  expect_cuda("    T.ptx.cp_async.bulk.tensor.g2c_prefetch(2, M, \"evict_first\", tx, n)\n",
              "cp.async.bulk.prefetch.tensor.2d.L2.global.tile.L2::cache_hint [%0, {%1, %2}], %3;");
  expect_cuda("    T.ptx.cp_async.bulk.tensor.s2g_reduce(1, S.data, M, \"\", \"xor\", tx)\n",
              "cp.reduce.async.bulk.tensor.1d.global.shared::cta.xor.tile.bulk_group [%0, {%2}], "
              "[%1];");
  expect_cuda("    T.ptx.cp_async.bulk.tensor.s2g_reduce(1, S.data, M, p, 1, \"inc\", tx)\n",
              "shared::cta.inc.tile.bulk_group.L2::cache_hint [%0, {%2}], [%1], %3;");
  expect_cuda("    T.ptx.prefetch_tensormap(M, \"const\")\n", "prefetch.const.tensormap [%0];");
}

Test(tma, bad_forms_are_located_errors) {
  expect_error("    T.ptx.cp_async.bulk.tensor.g2c(6, S.data, T.address_of(bar[0]), M, 0, 1, \"\", "
               "0, 0, 0, 0, 0, 0)\n",
               "dim must be 1..5, got 6");
  expect_error("    T.ptx.cp_async.bulk.tensor.g2c(3, S.data, T.address_of(bar[0]), M, 0, 1, \"\", "
               "tx, n)\n",
               "expected 3 coordinates, got 2");
  expect_error("    T.ptx.cp_async.bulk.tensor.g2c(n, S.data, T.address_of(bar[0]), M, 0, 1, \"\", "
               "tx, n)\n",
               "dim must be an integer literal");
  expect_error("    T.ptx.cp_async.bulk.tensor.g2c(1, S.data, T.address_of(bar[0]), M, 0, 3, \"\", "
               "tx)\n",
               "cta_group must be 1 or 2");
  expect_error("    T.ptx.cp_async.bulk.tensor.g2c(1, S.data, T.address_of(bar[0]), M, 0, 1, p, n, "
               "tx)\n",
               "has_cache_policy must be an integer literal");
  expect_error_on(&SM100,
                  "    T.ptx.cp_async.bulk.tensor.g2c_tile_gather4(3, S.data, "
                  "T.address_of(bar[0]), M, 0, 1, \"\", 0, 1, 2, 3, 4)\n",
                  "tile::gather4 copies are 2-D");
  expect_error("    T.ptx.cp_async.bulk.tensor.s2g_reduce(1, S.data, M, \"\", \"mul\", tx)\n",
               "red_op must be one of");
  expect_error("    T.ptx.prefetch_tensormap(M, space=\"global\")\n",
               "space must be \"\", \"const\" or \"param\"");
}

/* ---- mbarrier forms ----------------------------------------------------------------- */

Test(mbarrier, remote_arrivals_with_a_count) {
  expect_cuda("    T.ptx.mbarrier.arrive.cluster_count(T.address_of(bar[0]), 1, 2)\n",
              "mapa.shared::cluster.u32 tx_rem, %0, %1;\\n\\t"
              "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [tx_rem], %2;");
  expect_cuda("    T.ptx.mbarrier.arrive(T.address_of(bar[0]), 1, tx == 0, 2)\n",
              "if ((tx == 0)) asm volatile(",
              "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [tx_rem], %2;");
  expect_error("    T.ptx.mbarrier.arrive(T.address_of(bar[0]), count=2)\n", "count needs cta_id");
}

Test(mbarrier, waits) {
  expect_cuda("    T.ptx.mbarrier.try_wait_acquire_cluster(T.address_of(bar[0]), 1)\n",
              "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 tx_p, [%0], %1;\\n\\t"
              "@!tx_p bra TX_WAIT_AC;");
  expect_cuda("    if T.ptx.mbarrier.try_wait_once(T.address_of(bar[0]), 0, 100) == T.uint32(1):\n"
              "        A[tx] = T.float32(1)\n",
              "mbarrier.try_wait.parity.shared::cta.b64 tx_p, [%1], %2, %3;\\n\\t"
              "selp.u32 %0, 1, 0, tx_p;");
  expect_cuda("    if T.ptx.mbarrier_test_wait_parity(T.address_of(bar[0]), 0, sem=\"acquire\", "
              "scope=\"cta\") == T.uint32(1):\n"
              "        A[tx] = T.float32(1)\n",
              "mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 tx_p, [%1], %2;");
  expect_error("    if T.ptx.mbarrier_test_wait_parity(T.address_of(bar[0]), 0, sem=\"acquire\") "
               "== T.uint32(1):\n"
               "        A[tx] = T.float32(1)\n",
               "are given together or not at all");
}

/* ---- mapa ------------------------------------------------------------------------- */

Test(mapa, forms) {
  expect_cuda("    R[0] = T.ptx.map_shared_rank(T.address_of(S[tx]), 1)\n",
              "asm volatile(\"mapa.u64 %0, %1, %2;\" : \"=l\"(tx_r) : "
              "\"l\"((unsigned long long)((&S_ptr[tx]))), \"r\"((unsigned)(1))");
  expect_cuda("    R[0] = T.ptx.mapa(T.address_of(S[tx]), 1, \"shared::cluster\", \"u32\", "
              "\"uint32\")\n",
              "mapa.shared::cluster.u32 %0, %1, %2;", "\"r\"(tx_smem_addr((&S_ptr[tx])))",
              "return (unsigned)tx_r;");
  expect_cuda("    T.ptx.mapa.u64(R[0], T.address_of(S[tx]), 1)\n",
              "asm volatile(\"mapa.u64 %0, %1, %2;\" : \"=l\"(R_ptr[0]) : ");
  expect_error("    R[0] = T.ptx.mapa(T.address_of(S[tx]), 1, ptx_type=\"u32\")\n",
               "generic addresses are 64-bit");
  expect_error("    R[0] = T.ptx.mapa(T.address_of(S[tx]), 1, space=\"shared::cta\")\n",
               "space must be \"\" or \"shared::cluster\"");
  expect_error("    T.ptx.mapa.u64(F[0], T.address_of(S[tx]), 1)\n",
               "the destination must be a 64-bit integer");
}
