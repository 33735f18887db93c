/*
 * ptx_dialect.c - recognising TVM's printed T.ptx table form (ptx_dialect.h)
 * against the family/slot facts in ptx_dialect.def.
 *
 * Only the tail of a call is read (its trailing string literals); operands
 * are left to the caller. Nothing here allocates or keeps state.
 */
#include "ir/ptx_dialect.h"

#include <stdlib.h>
#include <string.h>

typedef struct ptx_entry {
  const char *family, *mnemonic;
  uint32_t nslots;
  const char *slots, *operands;
} ptx_entry;

static const ptx_entry k_entries[] = {
#define X(FAMILY, MNEMONIC, NSLOTS, SLOTS, OPERANDS) {FAMILY, MNEMONIC, NSLOTS, SLOTS, OPERANDS},
#include "ir/ptx_dialect.def"
#undef X
};

enum { K_ENTRIES = sizeof k_entries / sizeof k_entries[0] };

/* The first entry of `name`'s run in the sorted table, and the run's length. */
static const ptx_entry *family_run(const char *name, size_t *n) {
  size_t lo = 0, hi = K_ENTRIES;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(k_entries[mid].family, name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t end = lo;
  while (end < K_ENTRIES && strcmp(k_entries[end].family, name) == 0)
    end++;
  *n = end - lo;
  return *n ? &k_entries[lo] : NULL;
}

int tx_ptx_is_family(const char *name) {
  size_t n;
  return family_run(name, &n) != NULL;
}

/* Does slot text [s, end) (a '?' flag, then '|'-separated choices) take token t? */
static int slot_takes(const char *s, const char *end, const char *t, size_t tn) {
  int optional = s < end && *s == '?';
  if (tn == 0) return optional;
  for (const char *c = s + optional; c < end;) {
    const char *bar = memchr(c, '|', (size_t)(end - c));
    const char *stop = bar ? bar : end;
    if ((size_t)(stop - c) == tn && memcmp(c, t, tn) == 0) return 1;
    c = stop + 1;
  }
  return 0;
}

/* Slot i of e as [*s, *end). */
static void slot_text(const ptx_entry *e, uint32_t i, const char **s, const char **end) {
  const char *p = e->slots;
  for (uint32_t k = 0; k < i; k++)
    p = strchr(p, ';') + 1;
  const char *semi = strchr(p, ';');
  *s = p;
  *end = semi ? semi : p + strlen(p);
}

/* Fill e's slots from the tokens at [first, first + ntok) the way TVM reads
 * them: "" tokens are skipped, each other token takes the first open slot
 * listing it (so the order is free, though TVM prints slot order), and
 * every slot that is not optional must end up filled. slot_tok[i] is the
 * argument holding slot i's token, UINT32_MAX when omitted. */
static int entry_fill(const ptx_entry *e, uint32_t first, uint32_t ntok, tx_ptx_str_at str_at,
                      const void *ctx, uint32_t *slot_tok) {
  if (e->nslots > TX_PTX_MAX_SLOTS) return 0;
  for (uint32_t i = 0; i < e->nslots; i++)
    slot_tok[i] = UINT32_MAX;
  for (uint32_t t = first; t < first + ntok; t++) {
    size_t tn;
    const char *tok = str_at(ctx, t, &tn);
    if (!tn) continue;
    uint32_t i = 0;
    for (; i < e->nslots; i++) {
      const char *s, *end;
      slot_text(e, i, &s, &end);
      if (slot_tok[i] == UINT32_MAX && slot_takes(s, end, tok, tn)) break;
    }
    if (i == e->nslots) return 0;
    slot_tok[i] = t;
  }
  for (uint32_t i = 0; i < e->nslots; i++) {
    const char *s, *end;
    slot_text(e, i, &s, &end);
    if (slot_tok[i] == UINT32_MAX && *s != '?') return 0;
  }
  return 1;
}

/* Parse "p<i>" / "s<i>" (i < 64) into *bit. */
static int indexed_flag(const char *f, size_t n, char tag, uint64_t *bits) {
  if (n < 2 || n > 3 || f[0] != tag) return 0;
  unsigned v = 0;
  for (size_t i = 1; i < n; i++) {
    if (f[i] < '0' || f[i] > '9') return 0;
    v = v * 10 + (unsigned)(f[i] - '0');
  }
  if (v >= 64) return 0;
  *bits |= (uint64_t)1 << v;
  return 1;
}

/* The marker: "" or comma-joined flags; 0 when it is not one. */
static int parse_marker(const char *m, size_t n, tx_ptx_form *f) {
  for (size_t at = 0; at < n;) {
    const char *comma = memchr(m + at, ',', n - at);
    size_t len = comma ? (size_t)(comma - (m + at)) : n - at;
    const char *flag = m + at;
    if (len == 4 && memcmp(flag, "pred", 4) == 0)
      f->pred = 1;
    else if (len == 4 && memcmp(flag, "keep", 4) == 0)
      f->keep = 1;
    else if (!indexed_flag(flag, len, 'p', &f->pred_ops) && !indexed_flag(flag, len, 's', &f->sunk))
      return 0;
    at += len + (comma ? 1 : 0);
    if (comma && at == n) return 0; /* trailing comma */
  }
  return 1;
}

static int family_has_no_slot_entry(const ptx_entry *run, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (run[i].nslots == 0) return 1;
  return 0;
}

/* Is every sunk position a lane of an operand that may be `_`? That, not
 * the count, tells mov's unpack ({_, hi}, packed) from its pack. */
static int sinks_fit(const tx_ptx_operand *lay, uint32_t n, uint64_t sunk) {
  for (uint32_t i = 0; i < n; i++)
    if (lay[i].kind != 'L' && !lay[i].sinkable)
      for (uint32_t l = 0; l < lay[i].lanes; l++)
        if (lay[i].at + l < 64 && (sunk >> (lay[i].at + l) & 1)) return 0;
  return 1;
}

tx_ptx_match tx_ptx_form_match(const char *name, uint32_t nargs, tx_ptx_str_at str_at,
                               const void *ctx, tx_ptx_form *out) {
  size_t nrun;
  const ptx_entry *run = family_run(name, &nrun);
  if (!run || nargs == 0) return TX_PTX_NOT_PRINTED;
  size_t len;
  const char *marker = str_at(ctx, nargs - 1, &len);
  tx_ptx_form f = {0};
  if (!marker || !parse_marker(marker, len, &f)) return TX_PTX_NOT_PRINTED;
  uint32_t first = nargs - 1; /* the start of the trailing string run */
  while (first > 0 && str_at(ctx, first - 1, &len))
    first--;
  /* Operands are never strings, so every string before the marker is a
   * token. TVM prints one per slot, so only a slot-less entry (elect.sync)
   * has none: T.ptx.st_bulk(p, 64, True, "") is the older helper. */
  uint32_t ntok = nargs - 1 - first;
  if (ntok == 0 && !family_has_no_slot_entry(run, nrun)) return TX_PTX_NOT_PRINTED;
  const ptx_entry *hit = NULL;
  int hit_fits = 0;
  uint32_t nops = first - (f.pred ? 1 : 0) + (uint32_t)__builtin_popcountll(f.sunk);
  if (f.pred && first == 0) return TX_PTX_BAD_TOKENS; /* "pred" with no predicate */
  uint32_t slot_tok[TX_PTX_MAX_SLOTS];
  for (size_t i = 0; i < nrun; i++) {
    if (!entry_fill(&run[i], first, ntok, str_at, ctx, slot_tok)) continue;
    /* Entries differing only in operand shape (mov's pack and unpack) share
     * their tokens: the argument count picks one, the first as a fallback. */
    tx_ptx_form cand = f;
    cand.operands = run[i].operands;
    cand.nslots = run[i].nslots;
    memcpy(cand.slot_tok, slot_tok, sizeof slot_tok);
    tx_ptx_operand lay[TX_PTX_MAX_OPERANDS];
    uint32_t nlay;
    int fits = tx_ptx_layout(&cand, nops, str_at, ctx, lay, &nlay) && sinks_fit(lay, nlay, f.sunk);
    if (!hit || (!hit_fits && fits)) {
      hit = &run[i];
      hit_fits = fits;
      memcpy(f.slot_tok, slot_tok, sizeof slot_tok);
    }
  }
  if (!hit) return TX_PTX_BAD_TOKENS;
  if (f.sunk && !hit_fits) return TX_PTX_BAD_TOKENS; /* `_` where no form allows one */
  f.mnemonic = hit->mnemonic;
  f.operands = hit->operands;
  f.nexprs = first;
  f.ntokens = ntok;
  f.nslots = hit->nslots;
  *out = f;
  return TX_PTX_PRINTED;
}

/* The count a lanes word gives (see tools/gen_ptx_dialect.py lanes_word), or
 * UINT32_MAX when the tokens do not say. */
static uint32_t word_lanes(const tx_ptx_form *f, const char *w, size_t len, tx_ptx_str_at str_at,
                           const void *ctx) {
  if (len < 2) return UINT32_MAX;
  if (w[1] >= '0' && w[1] <= '9') return (uint32_t)strtoul(w + 1, NULL, 10);
  if (w[1] != '?' && w[1] != '#') return UINT32_MAX;
  unsigned long slot = strtoul(w + 2, NULL, 10);
  if (slot >= f->nslots) return UINT32_MAX;
  if (w[1] == '?') return f->slot_tok[slot] != UINT32_MAX;
  if (f->slot_tok[slot] == UINT32_MAX) return 0;
  size_t tn;
  const char *t = str_at(ctx, f->slot_tok[slot], &tn);
  return t && tn > 1 ? (uint32_t)strtoul(t + 1, NULL, 10) : UINT32_MAX;
}

int tx_ptx_layout(const tx_ptx_form *f, uint32_t nops, tx_ptx_str_at str_at, const void *ctx,
                  tx_ptx_operand out[TX_PTX_MAX_OPERANDS], uint32_t *nout) {
  uint32_t n = 0, fixed = 0, unknown = UINT32_MAX;
  for (const char *w = f->operands; *w;) {
    size_t len = strcspn(w, " ");
    if (n == TX_PTX_MAX_OPERANDS) return 0;
    tx_ptx_operand *o = &out[n];
    *o = (tx_ptx_operand){.kind = w[0], .written = len > 1 && w[len - 1] == 'w'};
    o->vector = w[0] != 'L' && memchr(w, 'v', len) != NULL;
    o->joined = w[0] != 'L' && memchr(w, 'j', len) != NULL;
    o->pred = w[0] != 'L' && memchr(w, 'q', len) != NULL;
    o->sinkable = w[0] != 'L' && memchr(w, 'k', len) != NULL;
    if (w[0] == 'L') {
      o->text = w + 1;
      o->text_len = len - 1;
    } else {
      o->lanes = word_lanes(f, w, len, str_at, ctx);
      if (o->lanes == UINT32_MAX) {
        if (unknown != UINT32_MAX) return 0; /* two counts the tokens do not give */
        unknown = n;
      } else {
        fixed += o->lanes;
      }
    }
    n++;
    w += len + (w[len] ? 1 : 0);
  }
  if (unknown != UINT32_MAX) {
    if (fixed > nops) return 0;
    out[unknown].lanes = nops - fixed;
    fixed = nops;
  }
  if (fixed != nops) return 0;
  for (uint32_t i = 0, at = 0; i < n; i++) {
    out[i].at = at;
    at += out[i].lanes;
  }
  *nout = n;
  return 1;
}
