/*
 * cuda_call.c - argument access and inline-asm operand helpers shared by
 * the files that emit T.* calls, and the lookup over the family tables
 * (cuda_call.h). Nothing here knows a particular op.
 */
#include "target/cuda/cuda_call.h"

#include <stdlib.h>
#include <string.h>

uint32_t cuda_npos(const tx_expr *e) {
  return e->u.call.kw.names ? e->u.call.kw.npos : e->nops;
}

const tx_expr *cuda_kwarg(const tx_expr *e, const char *name) {
  if (!e->u.call.kw.names) return NULL;
  for (uint32_t i = e->u.call.kw.npos; i < e->nops; i++)
    if (strcmp(e->u.call.kw.names[i - e->u.call.kw.npos], name) == 0) return e->ops[i];
  return NULL;
}

/* Positional argument i, or keyword `name` when not given positionally. */
const tx_expr *cuda_arg(const tx_expr *e, uint32_t i, const char *name) {
  if (i < cuda_npos(e)) return e->ops[i];
  return name ? cuda_kwarg(e, name) : NULL;
}

int cuda_is_f16(tx_dtype t) {
  return (t.code == DT_FLOAT && t.bits == 16) || t.code == DT_BFLOAT;
}

const char *cuda_str_arg(const tx_expr *a) {
  return a && a->kind == EXPR_STRING ? a->u.str.data : NULL;
}

int cuda_int_arg(const tx_expr *a, int64_t *v) {
  if (!a || a->kind != EXPR_INT) return 0;
  *v = a->u.ival;
  return 1;
}

void cuda_args_list(cuda_cg *g, const tx_expr *e, uint32_t from, uint32_t to, tx_strbuf *sb) {
  for (uint32_t i = from; i < to; i++) {
    if (i > from) tx_sb_puts(sb, ", ");
    cuda_emit_expr(g, e->ops[i], sb);
  }
}

void cuda_call_fn(cuda_cg *g, const char *fn, const tx_expr *e, uint32_t from, uint32_t to,
                  tx_strbuf *sb) {
  cuda_open_call(sb, fn);
  cuda_args_list(g, e, from, to, sb);
  tx_sb_putc(sb, ')');
}

int cuda_str_in(const char *s, const char *const *set) {
  for (; *set; set++)
    if (strcmp(s, *set) == 0) return 1;
  return 0;
}

int cuda_nargs_ok(cuda_cg *g, const tx_expr *e, uint32_t lo, uint32_t hi) {
  uint32_t n = cuda_npos(e);
  if (n < lo || n > hi) {
    cuda_error(g, e->span, "%s: expected %u..%u arguments, got %u", e->u.call.op, lo, hi, n);
    return 0;
  }
  return 1;
}

void cuda_unsupported(cuda_cg *g, const tx_expr *e, const char *why) {
  cuda_error(g, e->span, "%s is not supported by CUDA codegen%s%s", e->u.call.op, why ? ": " : "",
             why ? why : "");
}

/* `"cons"(conv(a))` with no separator. */
static void put_operand(cuda_cg *g, tx_strbuf *sb, const char *cons, const char *conv,
                        const tx_expr *a) {
  tx_sb_printf(sb, "\"%s\"(", cons);
  if (conv) cuda_open_call(sb, conv);
  cuda_emit_expr(g, a, sb);
  if (conv) tx_sb_putc(sb, ')');
  tx_sb_putc(sb, ')');
}

/* An asm input operand with a constraint from its dtype. */
void cuda_asm_in(cuda_cg *g, const tx_expr *a, tx_strbuf *sb) {
  tx_dtype t = a->dtype;
  const char *c = "r", *cast = NULL;
  if (t.code == DT_HANDLE)
    c = "l";
  else if (t.code == DT_FLOAT && t.bits == 32)
    c = "f";
  else if (t.code == DT_FLOAT && t.bits == 64)
    c = "d";
  else if (t.bits == 64)
    c = "l";
  else if (t.code == DT_FLOAT && t.bits == 16) {
    c = "h";
    cast = "__half_as_ushort";
  } else if (t.code == DT_BOOL || t.bits < 32)
    cast = "(unsigned)";
  put_operand(g, sb, c, cast, a);
}

void cuda_asm_operand(cuda_cg *g, tx_strbuf *list, const char *cons, const char *conv,
                      const tx_expr *a) {
  if (list->len) tx_sb_puts(list, ", ");
  put_operand(g, list, cons, conv, a);
}

/* A pointer (T.address_of(bar[0]), bar.data) goes through tx_smem_addr. */
void cuda_smem_addr(cuda_cg *g, const tx_expr *a, tx_strbuf *sb) {
  if (a->dtype.code == DT_HANDLE) {
    cuda_need_helper(g, H_SMEM_ADDR);
    tx_sb_puts(sb, "tx_smem_addr(");
  } else {
    tx_sb_puts(sb, "(unsigned)(");
  }
  cuda_emit_expr(g, a, sb);
  tx_sb_putc(sb, ')');
}

void cuda_smem_addr_in(cuda_cg *g, const tx_expr *a, tx_strbuf *sb) {
  tx_sb_puts(sb, "\"r\"(");
  cuda_smem_addr(g, a, sb);
  tx_sb_putc(sb, ')');
}

void cuda_asm_begin(tx_strbuf *sb, const char *text) {
  tx_sb_puts(sb, "asm volatile(");
  cuda_put_cstring(sb, text, strlen(text));
}

void cuda_asm_simple(tx_strbuf *sb, const char *text) {
  cuda_asm_begin(sb, text);
  tx_sb_puts(sb, " ::: \"memory\")");
}

void cuda_asm_stmt(tx_strbuf *sb, const tx_strbuf *text, tx_strbuf *ins) {
  if (text->failed || ins->failed) { /* the statement would be cut short */
    tx_sb_set_failed(sb);
    return;
  }
  tx_sb_puts(sb, "asm volatile(");
  cuda_put_cstring(sb, text->data ? text->data : "", text->len);
  if (ins->len)
    tx_sb_printf(sb, " :: %s : \"memory\")", ins->data);
  else
    tx_sb_puts(sb, " ::: \"memory\")");
}

/* ---- family tables ---------------------------------------------------------- */

static int entry_cmp(const void *key, const void *elem) {
  return strcmp((const char *)key, ((const cuda_call_entry *)elem)->op);
}

cuda_call_emitter *cuda_find_call_emitter(const char *op) {
  static const cuda_call_table *const tables[] = {
#define X(table) &table,
      CUDA_CALL_TABLES(X)
#undef X
  };
  for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
    if (!tables[i]->n) continue;
    const cuda_call_entry *hit =
        bsearch(op, tables[i]->entries, tables[i]->n, sizeof *tables[i]->entries, entry_cmp);
    if (hit) return hit->emit;
  }
  return NULL;
}
