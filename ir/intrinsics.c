/*
 * intrinsics.c - lookup, keyword checks and "did you mean" suggestions over
 * the intrinsic registry declared in intrinsics.h and listed in
 * intrinsics.def.
 *
 * The table is a read-only array built at compile time, kept sorted in the
 * .def itself, so lookup is a plain binary search and the module has no
 * mutable state at all: every function is safe to call from any thread
 * without initialisation.
 */
#include "ir/intrinsics.h"

#include <stdlib.h>
#include <string.h>

static const tx_intrinsic k_table[] = {
#define X(NAME, MIN, MAX, RES, KW, KIND) {NAME, MIN, MAX, RES, KW, KIND},
#include "ir/intrinsics.def"
#undef X
};

enum {
  K_COUNT = sizeof k_table / sizeof k_table[0],
  /* Longest name the suggester will look at. Registry names are far shorter;
   * the cap keeps the distance rows on the stack and bounds the work an
   * absurd identifier can cause. */
  K_SUGGEST_MAX_LEN = 128,
};

size_t tx_intrinsic_count(void) {
  return K_COUNT;
}

const tx_intrinsic *tx_intrinsic_at(size_t i) {
  return i < K_COUNT ? &k_table[i] : NULL;
}

static int cmp_name(const void *key, const void *elem) {
  const tx_intrinsic *in = elem;
  return strcmp(key, in->name);
}

const tx_intrinsic *tx_intrinsic_find(const char *name) {
  if (!name) return NULL;
  /* bsearch relies on the .def being strcmp-sorted; the unit test enforces it. */
  return bsearch(name, k_table, K_COUNT, sizeof k_table[0], cmp_name);
}

int tx_intrinsic_allows_keyword(const tx_intrinsic *in, const char *kw) {
  if (!in || !kw || !*kw || !in->keywords) return 0;
  const char *list = in->keywords;
  if (strcmp(list, "*") == 0) return 1;
  size_t kw_len = strlen(kw);
  /* Walk the comma-separated list comparing whole tokens, so "n" does not
   * match "n_cols" and vice versa. */
  while (*list) {
    const char *end = strchr(list, ',');
    size_t tok_len = end ? (size_t)(end - list) : strlen(list);
    if (tok_len == kw_len && memcmp(list, kw, kw_len) == 0) return 1;
    if (!end) break;
    list = end + 1;
  }
  return 0;
}

/* Length of the namespace prefix of a name: "T.ptx." for
 * "T.ptx.mbarrier.init", "T.tile." for "T.tile.copy", 0 for top-level names
 * such as "T.exp". Only the first two components count, so a typo deeper in
 * the name ("T.ptx.mbarier.init") still lands in the right namespace. */
static size_t namespace_len(const char *s) {
  const char *first = strchr(s, '.');
  if (!first) return 0;
  const char *second = strchr(first + 1, '.');
  return second ? (size_t)(second - s) + 1 : 0;
}

static int same_namespace(const char *a, const char *b) {
  size_t la = namespace_len(a), lb = namespace_len(b);
  return la == lb && memcmp(a, b, la) == 0;
}

static size_t min3(size_t a, size_t b, size_t c) {
  size_t m = a < b ? a : b;
  return m < c ? m : c;
}

/* Optimal-string-alignment distance (Levenshtein plus adjacent
 * transpositions, the usual "Damerau" for typo correction), giving up as soon
 * as it must exceed `limit`; then it returns limit + 1. Both strings are at
 * most K_SUGGEST_MAX_LEN long (callers check), so three stack rows suffice. */
static size_t bounded_distance(const char *a, size_t la, const char *b, size_t lb, size_t limit) {
  size_t rows[3][K_SUGGEST_MAX_LEN + 1];
  size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
  if ((la > lb ? la - lb : lb - la) > limit) return limit + 1;
  for (size_t j = 0; j <= lb; j++)
    prev[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t row_min = cur[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      size_t d = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < d)
        d = prev2[j - 2] + 1;
      cur[j] = d;
      if (d < row_min) row_min = d;
    }
    /* Every later row is at least this row's minimum, so stop early. */
    if (row_min > limit) return limit + 1;
    size_t *t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[lb] <= limit ? prev[lb] : limit + 1;
}

const char *tx_intrinsic_suggest(const char *name) {
  if (!name) return NULL;
  size_t len = strlen(name);
  if (len == 0 || len > K_SUGGEST_MAX_LEN) return NULL;
  /* A third of the length tolerates one slip in short names ("T.exq") and a
   * few in long PTX paths, without turning garbage into a suggestion. */
  size_t limit = len / 3 > 1 ? len / 3 : 1;

  const char *best = NULL;
  size_t best_dist = limit + 1;
  int best_same_ns = 0;
  for (size_t i = 0; i < K_COUNT; i++) {
    const char *cand = k_table[i].name;
    size_t clen = strlen(cand);
    if (clen > K_SUGGEST_MAX_LEN) continue;
    /* Only an equal distance can still win (via the namespace preference),
     * so bound the search by the best distance found so far. */
    size_t d = bounded_distance(name, len, cand, clen, best_dist);
    if (d > limit || d > best_dist) continue;
    int same_ns = same_namespace(name, cand);
    /* Smaller distance wins; on a tie a same-namespace name wins; otherwise
     * the earlier table entry stays, which makes the answer deterministic. */
    if (d < best_dist || (same_ns && !best_same_ns)) {
      best = cand;
      best_dist = d;
      best_same_ns = same_ns;
    }
  }
  return best;
}
