/*
 * ptx_requires.c - does the target have the PTX instruction a call emits?
 *
 * TVM's printed PTX form (T.ptx.<family>(operands, tokens..., marker),
 * ir/ptx_dialect.h) can spell any instruction of TVM's table, tcgen05.mma or
 * a 256-bit load as well as add.s32, and its emitter (cuda_intrinsics.c)
 * writes it through as inline asm. Without a check here the target's lack
 * of the instruction would surface as a ptxas error on generated PTX; with
 * it, a located error names the call, the arch it needs and the target.
 * The requirements are one table (ptx_requires.def) over the instruction's
 * mnemonic and modifier tokens and the target's features (target/target.h,
 * abi/arches.def).
 *
 * cuda_need_arch is the one form of the message, which the helper families
 * (ptx_memory.c) use too. Must not emit anything, decide anything about
 * operands, or hold a requirement outside the .def table: a row there is
 * the only place an instruction's architecture is stated for this form.
 */
#include <string.h>

#include "ir/ptx_dialect.h"
#include "target/cuda/cuda_call.h"

typedef enum req_cond {
  REQ_ALWAYS,  /* every form of the mnemonic */
  REQ_ANY,     /* one of the row's tokens is written */
  REQ_ALL,     /* every one of the row's tokens is written */
  REQ_WIDE256, /* .vN times the element type's bits is 256 */
} req_cond;

typedef struct ptx_require {
  const char *mnemonic;
  req_cond cond;
  const char *tokens; /* '|'-separated */
  tx_feature feature; /* 0: sm alone decides */
  int sm;
  const char *what;
  const char *need; /* NULL: "sm_<sm> or newer" */
} ptx_require;

static const ptx_require REQUIRES[] = {
#define X(mn, cond, toks, feat, sm, what, need)                                                    \
  {mn, cond, toks, (tx_feature)(feat), sm, what, need},
#include "target/cuda/ptx_requires.def"
#undef X
};

int cuda_need_arch(cuda_cg *g, const tx_expr *e, tx_feature feature, int sm, const char *what,
                   const char *need) {
  if (!g->target || g->target->sm <= 0) return 1;
  if (feature ? tx_target_has(g->target, feature) : g->target->sm >= sm) return 1;
  const char *arch = g->target->arch ? g->target->arch : "older";
  if (need)
    cuda_error(g, e->span, "%s: %s needs %s, but the target is %s", e->u.call.op, what, need, arch);
  else
    cuda_error(g, e->span, "%s: %s needs sm_%d or newer, but the target is %s", e->u.call.op, what,
               sm, arch);
  return 0;
}

/* The written modifier tokens of a matched form, in slot order. */
typedef struct form_tokens {
  const tx_expr *e;
  const tx_ptx_form *form;
} form_tokens;

static const tx_expr *token_at(const form_tokens *t, uint32_t slot) {
  uint32_t at = t->form->slot_tok[slot];
  return at == UINT32_MAX ? NULL : t->e->ops[at];
}

static int token_is(const tx_expr *tok, const char *s, size_t n) {
  return tok && tok->u.str.len == n && memcmp(tok->u.str.data, s, n) == 0;
}

static int has_token(const form_tokens *t, const char *s, size_t n) {
  for (uint32_t i = 0; i < t->form->nslots; i++)
    if (token_is(token_at(t, i), s, n)) return 1;
  return 0;
}

/* REQ_ANY (want_all 0) or REQ_ALL over the '|'-separated list. */
static int tokens_match(const form_tokens *t, const char *list, int want_all) {
  for (const char *p = list; *p;) {
    const char *bar = strchr(p, '|');
    size_t n = bar ? (size_t)(bar - p) : strlen(p);
    int has = has_token(t, p, n);
    if (has != want_all) return has;
    p += n + (bar ? 1 : 0);
  }
  return want_all;
}

/* The bits of an element type token (b32, u64, f16, bf16x2), 0 for any
 * other token (sys, shared, L2::256B). */
static int type_bits(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && i < 2 && strchr("bsuf", s[i]))
    i++;
  int bits = 0;
  size_t digits = i;
  while (i < n && s[i] >= '0' && s[i] <= '9')
    bits = bits * 10 + (s[i++] - '0');
  if (digits == 0 || i == digits || bits > 1024) return 0;
  if (i + 2 == n && s[i] == 'x' && s[i + 1] == '2') return bits * 2;
  return i == n ? bits : 0;
}

/* A .vN token and an element type whose product is 256 bits (ld.v8.f32,
 * st.v4.b64). */
static int wide256(const form_tokens *t) {
  int lanes = 0, bits = 0;
  for (uint32_t i = 0; i < t->form->nslots; i++) {
    const tx_expr *tok = token_at(t, i);
    if (!tok) continue;
    const char *s = tok->u.str.data;
    size_t n = tok->u.str.len;
    if (n == 2 && s[0] == 'v' && s[1] >= '2' && s[1] <= '8')
      lanes = s[1] - '0';
    else if (type_bits(s, n))
      bits = type_bits(s, n);
  }
  return lanes * bits == 256;
}

static int mnemonic_is(const char *mnemonic, const char *row) {
  size_t n = strlen(row);
  if (n == 0) return 1;
  if (row[n - 1] == '.') return strncmp(mnemonic, row, n) == 0;
  return strcmp(mnemonic, row) == 0;
}

static int row_applies(const ptx_require *r, const form_tokens *t) {
  if (!mnemonic_is(t->form->mnemonic, r->mnemonic)) return 0;
  switch (r->cond) {
  case REQ_ALWAYS:
    return 1;
  case REQ_ANY:
    return tokens_match(t, r->tokens, 0);
  case REQ_ALL:
    return tokens_match(t, r->tokens, 1);
  case REQ_WIDE256:
    return wide256(t);
  }
  return 0;
}

int cuda_ptx_form_arch_ok(cuda_cg *g, const tx_expr *e, const tx_ptx_form *form) {
  form_tokens t = {e, form};
  for (size_t i = 0; i < sizeof REQUIRES / sizeof REQUIRES[0]; i++) {
    const ptx_require *r = &REQUIRES[i];
    /* One error per call: the first requirement the target lacks. */
    if (row_applies(r, &t) && !cuda_need_arch(g, e, r->feature, r->sm, r->what, r->need)) return 0;
  }
  return 1;
}
