/*
 * cuda_call.h - what the files that turn T.* calls into CUDA C share:
 * argument access (positional or keyword), operand helpers for inline asm,
 * and the emitter tables that each instruction-family file contributes.
 *
 * A family file (ptx_mma.c, ptx_copy.c, ptx_tcgen05.c, ptx_memory.c) owns
 * the TVM helpers of one PTX family: it defines one cuda_call_table, sorted
 * by op name in strcmp order, and lists it in CUDA_CALL_TABLES below.
 * cuda_emit_call looks an op up there after the general cases; a unit test
 * checks every table is sorted and free of duplicates.
 *
 * Emitters report unsupported operand forms as located errors through
 * cuda_unsupported/cuda_error, never by guessing an operand order.
 */
#ifndef TIRX_TARGET_CUDA_CUDA_CALL_H
#define TIRX_TARGET_CUDA_CUDA_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "target/cuda/cuda_internal.h"

/* ---- arguments ------------------------------------------------------------ */

/* The number of positional arguments. */
uint32_t cuda_npos(const tx_expr *e);
/* Keyword argument `name`, or NULL. */
const tx_expr *cuda_kwarg(const tx_expr *e, const char *name);
/* Positional argument i, or keyword `name` when not given positionally. */
const tx_expr *cuda_arg(const tx_expr *e, uint32_t i, const char *name);
/* The text of a string literal argument, or NULL. */
const char *cuda_str_arg(const tx_expr *a);
/* Reads an integer literal argument; 0 when `a` is not one. */
int cuda_int_arg(const tx_expr *a, int64_t *v);
int cuda_is_f16(tx_dtype t);
/* Is `s` one of the strings of `set` (NULL-terminated)? */
int cuda_str_in(const char *s, const char *const *set);
/* Checks lo <= positional count <= hi, reporting a located error if not. */
int cuda_nargs_ok(cuda_cg *g, const tx_expr *e, uint32_t lo, uint32_t hi);
/* "<op> is not supported by CUDA codegen: <why>", located at the call. */
void cuda_unsupported(cuda_cg *g, const tx_expr *e, const char *why);

/* ---- emitting -------------------------------------------------------------- */

/* Arguments from..to-1, comma-separated. */
void cuda_args_list(cuda_cg *g, const tx_expr *e, uint32_t from, uint32_t to, tx_strbuf *sb);
/* fn(arguments from..to-1). */
void cuda_call_fn(cuda_cg *g, const char *fn, const tx_expr *e, uint32_t from, uint32_t to,
                  tx_strbuf *sb);
/* An asm input operand with a constraint from its dtype ("r", "l", "f",
 * "d", "h"); narrow integers and bools widen to 32 bits. */
void cuda_asm_in(cuda_cg *g, const tx_expr *a, tx_strbuf *sb);
/* `"cons"(conv(a))` (`"cons"(a)` when conv is NULL) appended to the asm
 * operand list `list`, after ", " when the list is not empty. */
void cuda_asm_operand(cuda_cg *g, tx_strbuf *list, const char *cons, const char *conv,
                      const tx_expr *a);
/* A 32-bit shared address as C: tx_smem_addr(p) for a pointer, (unsigned)(a)
 * for an integer that already is one. */
void cuda_smem_addr(cuda_cg *g, const tx_expr *a, tx_strbuf *sb);
/* A 32-bit shared address operand ("r") from a pointer or an integer. */
void cuda_smem_addr_in(cuda_cg *g, const tx_expr *a, tx_strbuf *sb);
/* `asm volatile("text"`: the caller adds the operand lists and `)`. */
void cuda_asm_begin(tx_strbuf *sb, const char *text);
/* `asm volatile("text" ::: "memory")`. */
void cuda_asm_simple(tx_strbuf *sb, const char *text);
/* `asm volatile("text" :: ins : "memory")`, or `::: "memory"` when `ins`
 * is empty (an instruction without outputs). */
void cuda_asm_stmt(tx_strbuf *sb, const tx_strbuf *text, tx_strbuf *ins);

/* ---- architecture requirements (ptx_requires.c) ----------------------------- */

struct tx_ptx_form;

/* Does the target have what `what` needs: `feature` (0: an sm of at least
 * `sm`)? Otherwise a located error at call e, "<op>: <what> needs <need>,
 * but the target is <arch>" (need NULL: "sm_<sm> or newer"), and 0. No
 * target (or no sm): 1. */
int cuda_need_arch(cuda_cg *g, const tx_expr *e, tx_feature feature, int sm, const char *what,
                   const char *need);
/* Does the target have the instruction that `form`, TVM's printed form of
 * call e (tx_ptx_form_match), spells (ptx_requires.def)? Otherwise one
 * located error naming the first requirement it lacks, and 0. */
int cuda_ptx_form_arch_ok(cuda_cg *g, const tx_expr *e, const struct tx_ptx_form *form);

/* ---- family tables ---------------------------------------------------------- */

typedef void cuda_call_emitter(cuda_cg *g, const tx_expr *e, tx_strbuf *sb);

typedef struct cuda_call_entry {
  const char *op; /* "T.ptx.wgmma.mma_async.ss" */
  cuda_call_emitter *emit;
} cuda_call_entry;

typedef struct cuda_call_table {
  const char *family; /* for test messages */
  const cuda_call_entry *entries;
  size_t n;
} cuda_call_table;

/* Defines emitter `name` as fn(g, e, sb, <the rest>): the table entry of
 * one variant of an emitter that serves several ops. */
#define CUDA_CALL_VARIANT(name, fn, ...)                                                           \
  static void name(cuda_cg *g, const tx_expr *e, tx_strbuf *sb) {                                  \
    fn(g, e, sb, __VA_ARGS__);                                                                     \
  }

#define CUDA_CALL_TABLES(X)                                                                        \
  X(cuda_ptx_mma_calls)                                                                            \
  X(cuda_ptx_copy_calls)                                                                           \
  X(cuda_ptx_tcgen05_calls)                                                                        \
  X(cuda_ptx_memory_calls)

#define X(table) extern const cuda_call_table table;
CUDA_CALL_TABLES(X)
#undef X

/* The emitter for `op` from the family tables, or NULL. */
cuda_call_emitter *cuda_find_call_emitter(const char *op);

#endif
