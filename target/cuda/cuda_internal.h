/*
 * cuda_internal.h - what the CUDA code generator's files (cuda.c,
 * cuda_types.c, cuda_vector.c, cuda_intrinsics.c) and split-host-device share: dtype
 * spellings, the dynamic shared memory layout rule, the emitter state and
 * the device helper functions that generated code may call.
 *
 * The dynamic shared memory layout lives here because split-host-device
 * computes the launch's byte count and codegen the offsets: one rule, one
 * place, so the two cannot disagree.
 */
#ifndef TIRX_TARGET_CUDA_CUDA_INTERNAL_H
#define TIRX_TARGET_CUDA_CUDA_INTERNAL_H

#include <stdint.h>

#include "target/cuda/codegen.h"
#include "ir/diag.h"
#include "ir/ir.h"
#include "ir/modular.h"
#include "ir/ptrmap.h"
#include "support/mem.h"
#include "support/strbuf.h"

/* ---- types (cuda_types.c) ------------------------------------------------ */

/* Headers a type needs; the preamble includes only those used. */
enum {
  CUDA_FEAT_FP16 = 1u << 0,
  CUDA_FEAT_BF16 = 1u << 1,
  CUDA_FEAT_FP8 = 1u << 2,
  CUDA_FEAT_FP6 = 1u << 3,
  CUDA_FEAT_FP4 = 1u << 4,
};

/* CUDA spelling of a (scalar or vector) dtype, or NULL when CUDA has none. */
const char *tx_cuda_type(tx_dtype t);
/* The headers `t` needs (CUDA_FEAT_*). */
unsigned tx_cuda_type_features(tx_dtype t);
/* Bytes one element of `t` takes in memory (sub-byte float types round up
 * per element: a buffer of fp4 is addressed per element like TVM's codegen
 * does; a packed sub-byte integer, below, counts as the byte it is in, an
 * upper bound: tx_cuda_buffer_bytes has the packed size). */
int64_t tx_cuda_elem_bytes(tx_dtype t);
/* Is t's element an integer type narrower than a byte (int4, uint4, int1;
 * not uint1, which is TVM's bool)?
 * Buffers of it are stored packed, 8 / bits elements a byte, lowest bits
 * first (cuda_packed.c, docs/codegen.md "Sub-byte types"). */
int tx_cuda_is_packed(tx_dtype t);
/* ... and a single element (lanes 1): the element type of packed storage.
 * A buffer of int4x8 elements is one of 32-bit words, not packed. */
int tx_cuda_is_packed_elem(tx_dtype t);

/* ---- vectors (cuda_vector.c) ---------------------------------------------- */

/* The most lanes one vector of scalar element type t holds in the emitted
 * code (docs/codegen.md): float4/int4/uint4, eight 16-bit floats in a uint4,
 * tx_bool8; 0 for element types it has no vector arithmetic for. */
int tx_cuda_vector_lanes(tx_dtype t);
/* Can the emitter write the vector node e (lanes > 1) as it is: values of
 * 32-bit lanes need a CUDA type (2-4 lanes), 16-bit floats go in pairs (2,
 * 4, 8 lanes), bools are tx_bool2/4/8. What vectorize-loop asks before it
 * rewrites a loop (through tx_backend.vector_node_ok). */
int tx_cuda_vector_node_ok(const tx_expr *e);
/* Can b be accessed at a vector index, contiguous (global, shared and local
 * memory; a local array other than of packed elements, which codegen
 * declares aligned, is moved lane by lane) or lane by lane (anything but
 * packed elements)? tx_backend.vector_access_ok. */
int tx_cuda_vector_access_ok(const tx_buffer *b, int contiguous);

/* ---- storage -------------------------------------------------------------- */

/* The element count of b, the product of its extents, computed in 64 bits:
 * returns 1 with *n set, 0 when an extent is not a scalar literal, -1 when
 * the product overflows int64, -2 when an extent is negative. */
int tx_cuda_buffer_numel(const tx_buffer *b, int64_t *n);
/* The bytes of b's storage (element count * tx_cuda_elem_bytes), with the
 * same returns (-1 also when the byte count overflows int64). */
int tx_cuda_buffer_bytes(const tx_buffer *b, int64_t *bytes);
/* The located error for a negative return `why` of the two above. */
void tx_cuda_report_bad_size(tx_diag_sink *diags, tirx_span span, const tx_buffer *b, int why);

/* Does `b` own its storage (an allocation, or a decl_buffer without data=)
 * rather than view another buffer's? */
int tx_cuda_buffer_owns_storage(const tx_buffer *b);

/* Lay the shared.dyn allocations out in the one dynamic shared arena:
 * each starts at the previous end rounded up to max(16, align) bytes.
 * offsets (optional) receives the byte offset of each; *total the bytes.
 * Extents must be constant, except that a lone allocation may be symbolic:
 * then *sym is its element count and *total is 0. Errors are located (a
 * size that overflows int64 is one). Whether the total fits the target is
 * verify-memory's check. */
tirx_status tx_cuda_dyn_smem_layout(tx_diag_sink *diags, const tx_buffer *const *bufs, uint32_t n,
                                    int64_t *offsets, int64_t *total, const tx_expr **sym);

/* ---- device helpers -------------------------------------------------------- */

/* Exact floor division and modulo for signed operands. The same text is
 * compiled as host C by tests/unit/test_codegen.c (through these macros) to
 * check the semantics on negative operands; codegen stringifies them with
 * Q = __device__ __forceinline__. */
#define TX_CUDA_FLOORDIV(Q, T, NAME)                                                               \
  Q T NAME(T a, T b) {                                                                             \
    T q = a / b;                                                                                   \
    T r = a % b;                                                                                   \
    return q - (T)((r != 0) && ((r < 0) != (b < 0)));                                              \
  }
#define TX_CUDA_FLOORMOD(Q, T, NAME)                                                               \
  Q T NAME(T a, T b) {                                                                             \
    T r = a % b;                                                                                   \
    return ((r != 0) && ((r < 0) != (b < 0))) ? (T)(r + b) : r;                                    \
  }
/* Tensor memory address arithmetic (tcgen05): lane in bits 31..16, column in
 * 15..0, each field advanced separately and wrapped at 16 bits (TVM's
 * get_tmem_addr), so a column offset never carries into the lane. */
#define TX_CUDA_TMEM_ADDR(Q, NAME)                                                                 \
  Q unsigned NAME(unsigned base, int row, int col) {                                               \
    unsigned lane = ((base >> 16) + (unsigned)row) & 0xFFFFu;                                      \
    unsigned column = ((base & 0xFFFFu) + (unsigned)col) & 0xFFFFu;                                \
    return (lane << 16) | column;                                                                  \
  }
/* The tcgen05 shared memory matrix descriptor (PTX ISA, tcgen05 "Shared
 * memory descriptor" table): start address >> 4 in bits 0-13, the leading
 * and stride byte offsets (already >> 4, as TVM passes them) in 16-29 and
 * 32-45, the fixed 0b001 in 46-48, base offset and LBO mode 0, and the
 * swizzling mode in 61-63 from TVM's swizzle enum (0 none -> 0, 1 32B -> 6,
 * 2 64B -> 4, 3 128B -> 2, 4 128B with 32B atoms -> 1; others -> 0). */
#define TX_CUDA_TCGEN05_SMEM_DESC(Q, NAME)                                                         \
  Q unsigned long long NAME(unsigned addr, unsigned lbo, unsigned sbo, unsigned swizzle) {         \
    unsigned mode = swizzle < 5u ? (0x12460u >> (4u * swizzle)) & 7u : 0u;                         \
    return (unsigned long long)((addr & 0x3FFFFu) >> 4) |                                          \
           ((unsigned long long)(lbo & 0x3FFFu) << 16) |                                           \
           ((unsigned long long)(sbo & 0x3FFFu) << 32) | (1ull << 46) |                            \
           ((unsigned long long)mode << 61);                                                       \
  }
/* The 64-bit wgmma shared memory matrix descriptor of TVM's
 * encode_matrix_descriptor: bits 0-13 the shared address >> 4, 16-29 the
 * leading and 32-45 the stride byte offsets (already in 16-byte units),
 * 49-51 base offset 0, 62-63 the layout (swizzle 0 none -> 0, 1 32B -> 3,
 * 2 64B -> 2, 3 128B -> 1). ADDR maps a pointer to its 32-bit shared
 * address; test_ptx_mma.c runs the same text on the host. */
#define TX_CUDA_WGMMA_DESC(Q, ADDR)                                                                \
  Q unsigned long long tx_wgmma_desc(const void *p, int ldo, int sdo, int swizzle) {               \
    unsigned long long layout = swizzle == 1 ? 3 : swizzle == 2 ? 2 : swizzle == 3 ? 1 : 0;        \
    return ((ADDR(p) >> 4) & 0x3FFFull) | ((ldo & 0x3FFFull) << 16) | ((sdo & 0x3FFFull) << 32) |  \
           (layout << 62);                                                                         \
  }
/* One element of a packed sub-byte buffer (cuda_packed.c): element i of
 * `bits`-bit integers is bits (i % (8 / bits)) * bits and up of byte
 * i / (8 / bits). LD returns it sign-extended (sgn) or zero-extended; ST
 * rewrites only its bits of the byte, a read-modify-write that codegen
 * emits for thread-local arrays only. i >= 0, as every valid index is.
 * tests/unit/test_codegen.c runs the same text on the host. */
#define TX_CUDA_PACKED_LD(Q, NAME)                                                                 \
  Q int NAME(const unsigned char *p, long long i, int bits, int sgn) {                             \
    unsigned long long u = (unsigned long long)i, per = 8u / (unsigned)bits;                       \
    unsigned s = (unsigned)(u % per) * (unsigned)bits;                                             \
    unsigned v = ((unsigned)p[u / per] >> s) & ((1u << bits) - 1u);                                \
    return sgn && (v >> (bits - 1)) ? (int)v - (1 << bits) : (int)v;                               \
  }
#define TX_CUDA_PACKED_ST(Q, NAME)                                                                 \
  Q void NAME(unsigned char *p, long long i, int bits, int v) {                                    \
    unsigned long long u = (unsigned long long)i, per = 8u / (unsigned)bits;                       \
    unsigned s = (unsigned)(u % per) * (unsigned)bits, m = ((1u << bits) - 1u) << s;               \
    p[u / per] = (unsigned char)((p[u / per] & ~m) | (((unsigned)v << s) & m));                    \
  }
#define TX_CUDA_STR_(...) #__VA_ARGS__
#define TX_CUDA_STR(...) TX_CUDA_STR_(__VA_ARGS__)

/* Helpers emitted into the preamble on first use, in this order:
 * X(id, "source text"). */
#define TX_CUDA_HELPERS(X)                                                                         \
  X(H_TENSORMAP, "/* A CUtensorMap (cuda.h): 128 opaque bytes, 64-byte aligned. */\n"              \
                 "struct alignas(64) tx_tensormap {\n  unsigned long long opaque[16];\n};")        \
  X(H_FLOORDIV_I32,                                                                                \
    TX_CUDA_STR(TX_CUDA_FLOORDIV(__device__ __forceinline__, int, tx_floordiv_i32)))               \
  X(H_FLOORMOD_I32,                                                                                \
    TX_CUDA_STR(TX_CUDA_FLOORMOD(__device__ __forceinline__, int, tx_floormod_i32)))               \
  X(H_FLOORDIV_I64,                                                                                \
    TX_CUDA_STR(TX_CUDA_FLOORDIV(__device__ __forceinline__, long long, tx_floordiv_i64)))         \
  X(H_FLOORMOD_I64,                                                                                \
    TX_CUDA_STR(TX_CUDA_FLOORMOD(__device__ __forceinline__, long long, tx_floormod_i64)))         \
  X(H_H2_BITS, "__device__ __forceinline__ unsigned tx_h2_bits(half2 v) {\n"                       \
               "  return *(unsigned*)&v;\n}\n"                                                     \
               "__device__ __forceinline__ half2 tx_bits_h2(unsigned u) {\n"                       \
               "  return *(half2*)&u;\n}")                                                         \
  X(H_BF2_BITS, "__device__ __forceinline__ unsigned tx_bf2_bits(nv_bfloat162 v) {\n"              \
                "  return *(unsigned*)&v;\n}\n"                                                    \
                "__device__ __forceinline__ nv_bfloat162 tx_bits_bf2(unsigned u) {\n"              \
                "  return *(nv_bfloat162*)&u;\n}")                                                 \
  X(H_SELECT_H2, "__device__ __forceinline__ half2 tx_select_h2(unsigned m, half2 a, half2 b) {\n" \
                 "  return tx_bits_h2((tx_h2_bits(a) & m) | (tx_h2_bits(b) & ~m));\n}")            \
  X(H_SELECT_BF2,                                                                                  \
    "__device__ __forceinline__ nv_bfloat162 tx_select_bf2(unsigned m, nv_bfloat162 a, "           \
    "nv_bfloat162 b) {\n"                                                                          \
    "  return tx_bits_bf2((tx_bf2_bits(a) & m) | (tx_bf2_bits(b) & ~m));\n}")                      \
  X(H_BOOL2, "struct __align__(2) tx_bool2 {\n  bool v[2];\n};\n"                                  \
             "__device__ __forceinline__ tx_bool2 make_tx_bool2(bool a, bool b) {\n"               \
             "  tx_bool2 r = {{a, b}};\n  return r;\n}")                                           \
  X(H_BOOL3, "struct tx_bool3 {\n  bool v[3];\n};\n"                                               \
             "__device__ __forceinline__ tx_bool3 make_tx_bool3(bool a, bool b, bool c) {\n"       \
             "  tx_bool3 r = {{a, b, c}};\n  return r;\n}")                                        \
  X(H_BOOL4,                                                                                       \
    "struct __align__(4) tx_bool4 {\n  bool v[4];\n};\n"                                           \
    "__device__ __forceinline__ tx_bool4 make_tx_bool4(bool a, bool b, bool c, bool d) {\n"        \
    "  tx_bool4 r = {{a, b, c, d}};\n  return r;\n}")                                              \
  X(H_BOOL8, "struct __align__(8) tx_bool8 {\n  bool v[8];\n};\n"                                  \
             "__device__ __forceinline__ tx_bool8 make_tx_bool8(bool a, bool b, bool c, bool d, "  \
             "bool e, bool f, bool g, bool h) {\n"                                                 \
             "  tx_bool8 r = {{a, b, c, d, e, f, g, h}};\n  return r;\n}")                         \
  X(H_VEC256, "/* N elements of T in one 256-bit access (sm_100+: ld.global.v8.b32). */\n"         \
              "template <typename T, int N>\nstruct __align__(32) tx_vec256 {\n  T v[N];\n};")     \
  X(H_F22BF162, "__device__ __forceinline__ unsigned tx_float22bfloat162_rn(float x, float y) {\n" \
                "  __nv_bfloat162 v = __float22bfloat162_rn(make_float2(x, y));\n"                 \
                "  return *reinterpret_cast<unsigned*>(&v);\n}")                                   \
  X(H_SMEM_ADDR, "__device__ __forceinline__ unsigned tx_smem_addr(const void* p) {\n"             \
                 "  return (unsigned)__cvta_generic_to_shared(p);\n}")                             \
  X(H_WGMMA_DESC, TX_CUDA_STR(TX_CUDA_WGMMA_DESC(__device__ __forceinline__, tx_smem_addr)))       \
  X(H_ELECT_SYNC,                                                                                  \
    "__device__ __forceinline__ unsigned tx_elect_sync() {\n"                                      \
    "  unsigned pred = 0;\n"                                                                       \
    "  asm volatile(\"{\\n\\t.reg .b32 %%rx;\\n\\t.reg .pred %%px;\\n\\t\"\n"                      \
    "               \"elect.sync %%rx|%%px, %1;\\n\\t@%%px mov.s32 %0, 1;\\n\\t}\"\n"              \
    "               : \"+r\"(pred) : \"r\"(0xFFFFFFFFu));\n"                                       \
    "  return pred;\n}")                                                                           \
  X(H_WARP_REDUCE,                                                                                 \
    "template <typename T, typename F>\n"                                                          \
    "__device__ __forceinline__ T tx_warp_reduce(T v, int width, F f) {\n"                         \
    "  for (int o = width >> 1; o > 0; o >>= 1) v = f(v, __shfl_xor_sync(0xFFFFFFFFu, v, o));\n"   \
    "  return v;\n}")                                                                              \
  X(H_CTA_REDUCE,                                                                                  \
    "template <typename T, typename F>\n"                                                          \
    "__device__ __forceinline__ T tx_cta_reduce(T v, int num_warps, void* scratch_raw, int sum, "  \
    "F f) {\n"                                                                                     \
    "  T* scratch = (T*)scratch_raw;\n"                                                            \
    "  v = tx_warp_reduce<T>(v, 32, f);\n"                                                         \
    "  int tid = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * "             \
    "blockDim.y;\n"                                                                                \
    "  int warp = tid / 32, lane = tid % 32;\n"                                                    \
    "  if (lane == 0) scratch[warp] = v;\n"                                                        \
    "  __syncthreads();\n"                                                                         \
    "  if (warp == 0) {\n"                                                                         \
    "    T p = lane < num_warps ? scratch[lane] : sum ? (T)0 : scratch[0];\n"                      \
    "    p = tx_warp_reduce<T>(p, 32, f);\n"                                                       \
    "    if (lane == 0) scratch[0] = p;\n"                                                         \
    "  }\n"                                                                                        \
    "  __syncthreads();\n"                                                                         \
    "  return scratch[0];\n}")                                                                     \
  X(H_MBAR_TRY_WAIT,                                                                               \
    "__device__ __forceinline__ void tx_mbarrier_wait(unsigned bar, int phase) {\n"                \
    "  asm volatile(\"{\\n\\t.reg .pred P1;\\n\\tTX_WAIT:\\n\\t\"\n"                               \
    "               \"mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\\n\\t\"\n"            \
    "               \"@!P1 bra TX_WAIT;\\n\\t}\" :: \"r\"(bar), \"r\"(phase) : \"memory\");\n}")   \
  X(H_TMEM_ADDR, TX_CUDA_STR(TX_CUDA_TMEM_ADDR(__device__ __forceinline__, tx_tmem_addr)))         \
  X(H_PACKED_LD, TX_CUDA_STR(TX_CUDA_PACKED_LD(__device__ __forceinline__, tx_packed_ld)))         \
  X(H_PACKED_ST, TX_CUDA_STR(TX_CUDA_PACKED_ST(__device__ __forceinline__, tx_packed_st)))         \
  X(H_TCGEN05_SMEM_DESC,                                                                           \
    TX_CUDA_STR(TX_CUDA_TCGEN05_SMEM_DESC(__device__ __forceinline__, tx_tcgen05_smem_desc)))      \
  X(H_CLC_QUERY_CANCEL,                                                                            \
    "__device__ __forceinline__ unsigned tx_clc_query_cancel(unsigned handle) {\n"                 \
    "  unsigned x;\n"                                                                              \
    "  asm volatile(\"{\\n\\t.reg .pred tx_c;\\n\\t.reg .b128 tx_resp;\\n\\t\"\n"                  \
    "               \"ld.shared.b128 tx_resp, [%1];\\n\\t\"\n"                                     \
    "               \"clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 tx_c, "              \
    "tx_resp;\\n\\t\"\n"                                                                           \
    "               \"mov.u32 %0, 0xffffffff;\\n\\t\"\n"                                           \
    "               \"@tx_c clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %0, "    \
    "tx_resp;\\n\\t}\"\n"                                                                          \
    "               : \"=r\"(x) : \"r\"(handle) : \"memory\");\n"                                  \
    "  asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"                         \
    "  return x;\n}")

typedef enum tx_cuda_helper {
#define X(id, src) id,
  TX_CUDA_HELPERS(X)
#undef X
      TX_CUDA_HELPER_COUNT
} tx_cuda_helper;

/* ---- emitter state ------------------------------------------------------ */

/* Where a buffer's elements live: a C pointer or array expression and the
 * element type it has (a view of another type casts). */
typedef struct cuda_storage {
  const tx_expr *data; /* the data variable that names it */
  const char *cname;   /* "A_ptr", "smem" */
  tx_dtype elem;       /* the element type of cname; void for untyped handles */
  int64_t byte_offset; /* inside the dynamic shared arena */
  /* What the start of the storage is known to be aligned to, in bytes (a
   * power of two): vector accesses need it (cuda_align.c). */
  int64_t align;
  int is_dyn;
  int is_shared; /* shared or shared.dyn: raw PTX passes its address as 32 bits */
  int is_local;  /* a local allocation: thread-private */
} cuda_storage;

/* A float literal's text, remembered (cuda.c put_float_text). */
enum { CUDA_FLOAT_CACHE = 16 };
typedef struct cuda_float_text {
  uint64_t bits; /* the double's bits */
  uint8_t is_f32, len;
  char text[46];
} cuda_float_text;

typedef struct cuda_cg {
  tx_diag_sink *diags;
  tx_ir ir; /* scratch arena for names */
  const tx_target *target;
  tx_strbuf *out;
  tx_line_map *map;
  int indent;
  int failed; /* a located error was reported */
  /* The innermost located statement being emitted: errors on expressions
   * that passes made (no span of their own) are reported there. */
  tirx_span stmt_span;
  int nomem;
  unsigned features;
  uint8_t helpers[TX_CUDA_HELPER_COUNT];
  uint8_t sregs[16]; /* special registers read through helpers (cuda_intrinsics.c) */
  /* The kernel's cluster is (n, 1, 1) or none, so %cluster_ctarank is the
   * x coordinate (TVM reads clusterCtaIdx.x from it then). */
  int cluster_x_is_rank;
  /* T.cuda.func_call source code, once per distinct text, in first-use order */
  const tx_expr **sources;
  uint32_t nsources, capsources;
  /* per kernel */
  tx_ptrmap reserved; /* interned C/CUDA words no name may take (per module) */
  tx_ptrmap names;    /* variable -> its C name (the latest binding wins) */
  tx_ptrmap taken;    /* interned C names in use */
  cuda_storage *stor;
  uint32_t nstor, capstor;
  tx_ptrmap stor_of; /* data variable -> index + 1 in stor (the first added wins) */
  tx_ptrmap nonneg;  /* variables known to be >= 0 (thread ids, loop vars from 0) */
  tx_ptrmap used;    /* variables read somewhere in the kernel body */
  tx_ptrmap modsets; /* integer variable -> its tx_modset (cuda_align.c) */
  /* Vector loads bound to temporaries before the statement being emitted
   * (cuda_vector.c): one vector access each, whose lanes read the temporary. */
  struct cuda_vtemp *vtemps;
  uint32_t nvtemps, capvtemps;
  cuda_float_text float_texts[CUDA_FLOAT_CACHE];
  tx_ptrmap not_in_tables; /* call ops no math/direct/fixed-PTX table has (per module) */
  tx_ptrmap reported;      /* interned "span:message" of each error reported (per module) */
} cuda_cg;

/* An empty strbuf on the generator's allocator (the context's, through
 * its scratch arena), for text built on the side. */
static inline tx_strbuf cuda_sb(const cuda_cg *g) {
  return (tx_strbuf){.alloc = tx_ir_alloc(&g->ir)};
}

/* The text of a side strbuf. After an allocation failure "" with g->nomem
 * set: generated code is never silently missing a piece. */
static inline const char *cuda_sb_text(cuda_cg *g, tx_strbuf *sb) {
  const char *t = tx_sb_cstr(sb);
  if (!t) g->nomem = 1;
  return t ? t : "";
}

void cuda_error(cuda_cg *g, tirx_span span, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cuda_emit_expr(cuda_cg *g, const tx_expr *e, tx_strbuf *sb);
/* `fn(`: the opening of a call (printf's "%s(" costs a format parse). */
static inline void cuda_open_call(tx_strbuf *sb, const char *fn) {
  tx_sb_puts(sb, fn);
  tx_sb_putc(sb, '(');
}
/* `(c ? a : b)` from ops 0..2 of a Select or T.if_then_else (lane-wise for
 * vectors). */
void cuda_emit_select(cuda_cg *g, const tx_expr *e, tx_strbuf *sb);
/* A pointer expression to the start of a variable's storage (A.data). */
const cuda_storage *cuda_find_storage(cuda_cg *g, const tx_expr *data);
/* A call expression (errors name the op when it is not supported). */
void cuda_emit_call(cuda_cg *g, const tx_expr *e, tx_strbuf *sb);
/* A call of the helper reading special register `reg` ("%cluster_ctaid.x",
 * one of cuda_intrinsics.c's table), noted for the preamble; 0 when `reg`
 * is not in the table. */
int cuda_emit_sreg(cuda_cg *g, const char *reg, tx_strbuf *sb);
/* The helper functions used so far, for the preamble. */
void cuda_emit_helpers(const cuda_cg *g, tx_strbuf *sb);
void cuda_need_helper(cuda_cg *g, tx_cuda_helper h);
/* The CUDA spelling of `t` (a located error and "int" when it has none);
 * notes the headers and preamble definitions it needs. */
const char *cuda_ctype(cuda_cg *g, tx_dtype t, tirx_span span);
/* A pointer to `b`'s elements typed as `elem`; 0 after an error. */
int cuda_emit_ptr(cuda_cg *g, const tx_buffer *b, tx_dtype elem, tirx_span span, tx_strbuf *sb);
void cuda_emit_storage_ptr(cuda_cg *g, const cuda_storage *s, tx_dtype elem, tirx_span span,
                           tx_strbuf *sb);
/* T.tvm_access_ptr: the innermost data variable (NULL when it has no
 * storage here; *s its storage) and the element type. */
const tx_expr *cuda_access_ptr_base(cuda_cg *g, const tx_expr *e, const cuda_storage **s);
tx_dtype cuda_access_ptr_dtype(const tx_expr *e);
/* The C element type of storage holding elements of `elem`: its spelling,
 * or `unsigned char` for packed sub-byte elements (bytes of them). */
const char *cuda_storage_ctype(cuda_cg *g, tx_dtype elem, tirx_span span);
/* The element type of pointer expression p (a data variable, a typed
 * pointer variable, T.address_of / ptr_to / T.tvm_access_ptr), as its
 * offsets count; 0 when it has none (void*, unknown). */
int cuda_ptr_elem(cuda_cg *g, const tx_expr *p, tx_dtype *elem);

/* ---- packed sub-byte elements (cuda_packed.c) -------------------------------- */

/* A load of a packed buffer (e an EXPR_LOAD, idx its flat index). */
void cuda_emit_packed_load(cuda_cg *g, const tx_expr *e, const tx_expr *idx, tx_strbuf *sb);
/* The statement for a store into a packed buffer. */
void cuda_emit_packed_store(cuda_cg *g, const tx_stmt *s, const tx_expr *idx);
/* `off` elements of packed type t as a byte count (off / (8 / bits)); 0
 * after a located error when off is not provably a multiple of unit_bytes
 * whole bytes (1: any byte; a word size where the address is read as one). */
int cuda_emit_packed_offset(cuda_cg *g, tx_dtype t, const tx_expr *off, int unit_bytes,
                            tirx_span span, tx_strbuf *sb);
/* `off` elements of `elem` as a count of the C pointer's elements: packed
 * offsets in bytes, every other one as it is. 0 after a located error. */
int cuda_emit_elem_offset(cuda_cg *g, tx_dtype elem, const tx_expr *off, tirx_span span,
                          tx_strbuf *sb);
/* Is integer expression e provably a multiple of c (its modular set),
 * seeing through the immutable bindings and loops emitted so far (a CSE'd
 * vector base)? */
int cuda_multiple_of(const cuda_cg *g, const tx_expr *e, int64_t c);
/* Is e, if of a packed scalar type, a value codegen can hold (a load,
 * literal, select, name)? Else a located error and 0. */
int cuda_packed_value_ok(cuda_cg *g, const tx_expr *e);
/* A conversion (EXPR_CAST) to a packed scalar type: the value wrapped to
 * its bits, as an int. */
void cuda_emit_packed_cast(cuda_cg *g, const tx_expr *e, tx_strbuf *sb);
/* The located error for `what` ("a lane", "Cast") of the packed vector e. */
void cuda_packed_vector_error(cuda_cg *g, const tx_expr *e, const char *what);

/* The C type of a pointer to `pointee` ("unsigned long long*"; "void*"
 * without one). */
void cuda_put_pointer_type(cuda_cg *g, tx_dtype pointee, int has_pointee, tirx_span span,
                           tx_strbuf *sb);
/* The C operator of a binary kind ("+", "<", "&&"), or NULL. */
const char *cuda_infix(tx_expr_kind k);
/* A fresh C name for this kernel, derived from `base`. */
const char *cuda_unique_name(cuda_cg *g, const char *base);
/* One line of kernel text at the current indentation, mapped to `span`. */
void cuda_line(cuda_cg *g, tirx_span span, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- alignment of vector accesses (cuda_align.c) ---------------------------- */

/* Kernel parameters without an `align` of their own are assumed aligned to
 * 64 bytes, TVM's data alignment (cudaMalloc gives 256). */
enum { TX_CUDA_PARAM_ALIGN = 64 };

/* What the kernel knows about the integer scalar e, from its literals,
 * arithmetic and the variables noted below. */
tx_modset cuda_modular(const cuda_cg *g, const tx_expr *e);
/* Remember the set of a bound variable (a `let`, cse's `cse_v1`). */
void cuda_note_modular(cuda_cg *g, const tx_expr *var, tx_modset m);
/* ... of a loop variable: begin (NULL for 0) plus multiples of a literal
 * step (NULL for 1). */
void cuda_note_loop_var(cuda_cg *g, const tx_expr *var, const tx_expr *begin, const tx_expr *step);
/* The largest power of two dividing bytes (1 for 0 or less). */
int64_t cuda_pow2_align(int64_t bytes);
/* Is the address of element `index` (a scalar) of b provably a multiple of
 * `bytes` for every value the index takes? 0 when b's storage is unknown. */
int cuda_access_aligned(cuda_cg *g, const tx_buffer *b, const tx_expr *index, int64_t bytes);

/* ---- vectors (cuda_vector.c) ----------------------------------------------- */

/* Is `t` a float16/bfloat16 vector of 2, 4 or 8 lanes (computed in pairs)? */
int cuda_is_vec16(tx_dtype t);
/* A vector value (lanes > 1) of an element-wise expression, Broadcast, Ramp
 * or a load at a vector index, as a whole value of its CUDA type. */
void cuda_emit_vector_op(cuda_cg *g, const tx_expr *e, tx_strbuf *sb);
/* The statement(s) for `s`, a store at the vector index `idx`: one vector
 * store for an aligned stride-1 Ramp, otherwise a scatter lane by lane. */
void cuda_emit_vector_store(cuda_cg *g, const tx_stmt *s, const tx_expr *idx);
/* Before a statement that computes the vector value `root`: bind each
 * aligned contiguous load in it that is read lane by lane (or pair by pair)
 * to a temporary, declared on lines of its own, so that it is one vector
 * access. `whole`: root itself is used as a whole value (a binding's value,
 * a vector store's), so it needs no temporary. */
void cuda_vector_temps(cuda_cg *g, tirx_span span, const tx_expr *root, int whole);
/* After that statement: the temporaries are out of use. */
void cuda_vector_temps_done(cuda_cg *g);
/* Is e `A.vstore(begin, value, predicate=mask)` (flatten-buffer leaves the
 * predicated form a call: IR stores have no mask)? */
int cuda_is_masked_vstore(const tx_expr *e);
/* Its statement: the lanes the mask selects are stored, one by one. */
void cuda_emit_masked_vstore(cuda_cg *g, const tx_stmt *s, const tx_expr *e);
void cuda_add_source(cuda_cg *g, const tx_expr *src);
/* T.print_buffer(...) as the statement(s) that print it (cuda_print.c):
 * 1 when e is that call (errors reported), 0 for any other expression. */
int cuda_emit_print_buffer(cuda_cg *g, const tx_expr *e);
/* C string literal for a TIRx string. */
void cuda_put_cstring(tx_strbuf *sb, const char *s, size_t n);

#endif
