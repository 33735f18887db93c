/*
 * cuda_align.c - what the CUDA code generator can prove about the alignment
 * of a vector access (docs/codegen.md "Vectors", Memory).
 *
 * A stride-1 Ramp access is one vector access (`*(float4*)(A_ptr + i)`)
 * only when its address is provably a multiple of the vector type's
 * alignment; otherwise the hardware faults (misaligned address), so the
 * access goes element by element instead. The proof has two parts:
 *  - the storage's start: kernel parameters as the launcher passes them
 *    (TVM's 64-byte data alignment, or the buffer's own `align`, which the
 *    host checks), `alignas` shared arrays, the dynamic arena's offsets;
 *    local arrays and pointer variables only as far as their elements;
 *  - the index: its modular set {coeff * k + base} (TVM's
 *    arith::ModularSet), from literals, arithmetic and the variables the
 *    kernel binds (cse's `cse_v1 = (bx * 128 + tx) * 8`, loop variables).
 *
 * Must not: claim an alignment nothing in the IR or the launch promises.
 */
#include "target/cuda/cuda_internal.h"

static const tx_modset *known_modset(void *user, const tx_expr *var) {
  return tx_ptrmap_get(&((const cuda_cg *)user)->modsets, var);
}

tx_modset cuda_modular(const cuda_cg *g, const tx_expr *e) {
  return tx_modular(e, known_modset, (void *)g);
}

int cuda_multiple_of(const cuda_cg *g, const tx_expr *e, int64_t c) {
  return tx_modset_multiple_of(cuda_modular(g, e), c);
}

void cuda_note_modular(cuda_cg *g, const tx_expr *var, tx_modset m) {
  if (m.coeff == 1) return; /* nothing known */
  tx_modset *p = tx_arena_alloc(g->ir.arena, sizeof *p);
  if (!p || !tx_ptrmap_put(&g->modsets, var, p)) {
    g->nomem = 1;
    return;
  }
  *p = m;
}

void cuda_note_loop_var(cuda_cg *g, const tx_expr *var, const tx_expr *begin, const tx_expr *step) {
  int64_t s = 1;
  if (step && !tx_expr_int_literal(step, &s)) return;
  tx_modset b = begin ? cuda_modular(g, begin) : (tx_modset){0, 0};
  /* begin + step * k */
  cuda_note_modular(g, var, tx_modset_add(b, tx_modset_make(s, 0)));
}

/* a mod m in [0, m), m > 0. */
static int64_t pmod(int64_t a, int64_t m) {
  int64_t r = a % m;
  return r < 0 ? r + m : r;
}

int64_t cuda_pow2_align(int64_t bytes) {
  return bytes > 0 ? bytes & -bytes : 1;
}

int cuda_access_aligned(cuda_cg *g, const tx_buffer *b, const tx_expr *index, int64_t bytes) {
  const cuda_storage *s = b->data ? cuda_find_storage(g, b->data) : NULL;
  int64_t eb = tx_cuda_elem_bytes(b->dtype);
  if (!s || bytes <= 0 || eb <= 0) return 0;
  /* Any element is aligned to its own size (a float3 needs only 4). */
  if (bytes <= eb && eb % bytes == 0) return 1;
  if (s->align % bytes != 0) return 0;
  /* start + byte_offset + eb * (coeff * k + base), every k */
  tx_modset m = cuda_modular(g, index);
  int64_t c = pmod(m.coeff, bytes) * pmod(eb, bytes) % bytes;
  int64_t at = (pmod(s->byte_offset, bytes) + pmod(m.base, bytes) * pmod(eb, bytes)) % bytes;
  return c == 0 && at == 0;
}
