/*
 * test_robustness.c - mutated kernels through the whole compiler.
 *
 * Every hand-written input of the golden cuda, lowering and parse suites is
 * mutated a bounded number of times (deterministically: a fixed-seed LCG per
 * file and mutant) and each mutant goes through tirx_parse_string, the pass
 * pipeline and CUDA codegen (tx_compile_module with TX_EMIT_CUDA: no NVRTC),
 * for sm_90a and, for files marked `# ptxas-archs: sm_100a`, sm_100a too. A
 * mutant must either compile or fail with an input error that has at least
 * one located error diagnostic; an internal error, a crash, a sanitizer
 * report or a hang fails the test and prints the mutant.
 *
 * The mutants run in a forked child (one per file, restarted after a crash)
 * that reports the index of the mutant it is about to compile through a pipe,
 * so a crash or hang is attributed to its mutant. This file must not weaken
 * the check: a mutant that exposes a bug that cannot be fixed yet goes into
 * SKIP below, by file and index, with the bug named.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/context.h"
#include "support/strbuf.h"
#include "driver/compile.h"
#include "tirx/tirx.h"

/* Mutants per mutation kind per file; 7 kinds. Keeps the test within ~10 s. */
#define PER_KIND 60
#define N_KINDS 7
#define N_MUTANTS (PER_KIND * N_KINDS)
/* A mutant that takes longer than this (seconds) is reported as a hang. */
#define HANG_S 30

/* Mutants that expose a known bug not fixed yet: none. */
typedef struct skip_entry {
  const char *file; /* "dir/name.tirx" */
  int mutant;
  const char *bug;
} skip_entry;
static const skip_entry SKIP[] = {{NULL, -1, NULL}};

static int skipped(const char *rel, int idx) {
  for (const skip_entry *s = SKIP; s->file; s++)
    if (s->mutant == idx && strcmp(s->file, rel) == 0) return 1;
  return 0;
}

/* ---- deterministic mutation ---------------------------------------------- */

typedef struct lcg {
  uint64_t s;
} lcg;

static uint32_t lcg_next(lcg *r) {
  r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(r->s >> 33);
}

static size_t lcg_below(lcg *r, size_t n) {
  return n ? lcg_next(r) % n : 0;
}

static uint64_t fnv1a(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

typedef struct span {
  size_t b, e;
} span;

/* A growable list of spans. */
typedef struct spans {
  span *v;
  size_t n, cap;
} spans;

static void spans_push(spans *s, size_t b, size_t e) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->v = realloc(s->v, s->cap * sizeof *s->v);
    cr_assert(s->v);
  }
  s->v[s->n++] = (span){b, e};
}

static int is_id0(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static int is_digit(char c) {
  return c >= '0' && c <= '9';
}
static int is_idc(char c) {
  return is_id0(c) || is_digit(c);
}

/* Lines, each without its newline. */
static void find_lines(const char *t, size_t n, spans *out) {
  size_t b = 0;
  for (size_t i = 0; i < n; i++)
    if (t[i] == '\n') {
      spans_push(out, b, i + 1);
      b = i + 1;
    }
  if (b < n) spans_push(out, b, n);
}

/* Skips a string literal starting at t[i] (a quote); returns the index after it. */
static size_t skip_string(const char *t, size_t n, size_t i) {
  char q = t[i++];
  while (i < n && t[i] != q && t[i] != '\n')
    i += t[i] == '\\' && i + 1 < n ? 2 : 1;
  return i < n ? i + 1 : n;
}

/* Token-ish spans: identifiers, numbers and the punctuation , ) ] : (outside
 * strings and comments); integer literals; string literal contents. */
static void scan(const char *t, size_t n, spans *toks, spans *ints, spans *strs) {
  size_t i = 0;
  while (i < n) {
    char c = t[i];
    if (c == '#') {
      while (i < n && t[i] != '\n')
        i++;
    } else if (c == '"' || c == '\'') {
      size_t e = skip_string(t, n, i);
      if (e - i >= 2 && t[e - 1] == c) spans_push(strs, i + 1, e - 1);
      i = e;
    } else if (is_id0(c)) {
      size_t b = i;
      while (i < n && is_idc(t[i]))
        i++;
      spans_push(toks, b, i);
    } else if (is_digit(c)) {
      size_t b = i;
      int is_int = 1;
      while (i < n && (is_idc(t[i]) || t[i] == '.')) {
        if (!is_digit(t[i])) is_int = 0;
        i++;
      }
      spans_push(toks, b, i);
      if (is_int) spans_push(ints, b, i);
    } else {
      if (c == ',' || c == ')' || c == ']' || c == ':') spans_push(toks, i, i + 1);
      i++;
    }
  }
}

/* The arguments of calls: for each '(' that follows a name or ']', the
 * depth-0 argument spans (trimmed) up to its ')'. Appends pairs of spans to
 * `pairs` (two random distinct arguments of one call). */
static size_t find_close(const char *t, size_t n, size_t i, spans *args) {
  /* t[i] == '(' ; returns the index of the matching ')' or n. */
  int depth = 0;
  size_t arg_b = i + 1;
  for (size_t j = i; j < n; j++) {
    char c = t[j];
    if (c == '"' || c == '\'') {
      j = skip_string(t, n, j) - 1;
    } else if (c == '#') {
      while (j < n && t[j] != '\n')
        j++;
    } else if (c == '(' || c == '[' || c == '{') {
      depth++;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) {
        if (args) spans_push(args, arg_b, j);
        return j;
      }
    } else if (c == ',' && depth == 1) {
      if (args) spans_push(args, arg_b, j);
      arg_b = j + 1;
    }
  }
  return n;
}

static void trim(const char *t, span *s) {
  while (s->b < s->e && (t[s->b] == ' ' || t[s->b] == '\n' || t[s->b] == '\t'))
    s->b++;
  while (s->e > s->b && (t[s->e - 1] == ' ' || t[s->e - 1] == '\n' || t[s->e - 1] == '\t'))
    s->e--;
}

static void find_calls(const char *t, size_t n, spans *calls) {
  for (size_t i = 1; i < n; i++) {
    if (t[i] == '"' || t[i] == '\'') {
      i = skip_string(t, n, i) - 1;
      continue;
    }
    if (t[i] == '#') {
      while (i < n && t[i] != '\n')
        i++;
      continue;
    }
    if (t[i] == '(' && (is_idc(t[i - 1]) || t[i - 1] == ']')) {
      spans args = {0};
      size_t close = find_close(t, n, i, &args);
      size_t nonempty = 0;
      for (size_t k = 0; k < args.n; k++) {
        trim(t, &args.v[k]);
        if (args.v[k].e > args.v[k].b) nonempty++;
      }
      if (close < n && nonempty >= 2) spans_push(calls, i, close);
      free(args.v);
    }
  }
}

static const char *const INT_REPL[] = {"0", "-1", "1099511627776", "(1 << 40)", "65536"};
static const char *const STR_REPL[] = {
    "",           "float32", "float16",       "bfloat16",   "int8",   "uint64",
    "bool",       "int4",    "float8_e4m3fn", "float32x4",  "handle", "shared",
    "shared.dyn", "global",  "local",         "b32",        "f16",    "u64",
    "s32",        "f32",     "threadIdx.x",   "blockIdx.y", "x",      "?"};

typedef struct mutant {
  char *text;
  size_t len;
  const char *what; /* the mutation kind */
} mutant;

/* Replace t[b, e) by r (rn bytes) into a fresh buffer. */
static void splice(mutant *m, const char *t, size_t n, size_t b, size_t e, const char *r,
                   size_t rn) {
  m->len = n - (e - b) + rn;
  m->text = malloc(m->len + 1);
  cr_assert(m->text);
  memcpy(m->text, t, b);
  memcpy(m->text + b, r, rn);
  memcpy(m->text + b + rn, t + e, n - e);
  m->text[m->len] = '\0';
}

/* Mutant `idx` of the file `rel` with text t[0, n): a function of (rel, idx)
 * only. When the kind has nothing to mutate, the mutant is the text itself. */
static void mutate_once(lcg *rp, const char *t, size_t n, int kind, mutant *m) {
  lcg r = *rp;
  spans lines = {0}, toks = {0}, ints = {0}, strs = {0};
  find_lines(t, n, &lines);
  scan(t, n, &toks, &ints, &strs);
  memset(m, 0, sizeof *m);
  switch (kind) {
  case 0: /* delete one line */
    m->what = "delete line";
    if (lines.n) {
      span l = lines.v[lcg_below(&r, lines.n)];
      splice(m, t, n, l.b, l.e, "", 0);
    }
    break;
  case 1: /* delete one token-ish span */
    m->what = "delete token";
    if (toks.n) {
      span s = toks.v[lcg_below(&r, toks.n)];
      splice(m, t, n, s.b, s.e, "", 0);
    }
    break;
  case 2: /* duplicate one line */
    m->what = "duplicate line";
    if (lines.n) {
      span l = lines.v[lcg_below(&r, lines.n)];
      char *dup = malloc(l.e - l.b + 2);
      cr_assert(dup);
      memcpy(dup, t + l.b, l.e - l.b);
      size_t dn = l.e - l.b;
      if (dn == 0 || dup[dn - 1] != '\n') dup[dn++] = '\n';
      splice(m, t, n, l.b, l.b, dup, dn);
      free(dup);
    }
    break;
  case 3: /* replace an integer literal */
    m->what = "replace integer";
    if (ints.n) {
      span s = ints.v[lcg_below(&r, ints.n)];
      size_t nr = sizeof INT_REPL / sizeof *INT_REPL, k = lcg_below(&r, nr);
      if (strlen(INT_REPL[k]) == s.e - s.b && memcmp(INT_REPL[k], t + s.b, s.e - s.b) == 0)
        k = (k + 1) % nr; /* a replacement that changes the text */
      const char *rep = INT_REPL[k];
      splice(m, t, n, s.b, s.e, rep, strlen(rep));
    }
    break;
  case 4: /* replace a string literal's content */
    m->what = "replace string";
    if (strs.n) {
      span s = strs.v[lcg_below(&r, strs.n)];
      size_t nr = sizeof STR_REPL / sizeof *STR_REPL, k = lcg_below(&r, nr);
      if (strlen(STR_REPL[k]) == s.e - s.b && memcmp(STR_REPL[k], t + s.b, s.e - s.b) == 0)
        k = (k + 1) % nr;
      const char *rep = STR_REPL[k];
      splice(m, t, n, s.b, s.e, rep, strlen(rep));
    }
    break;
  case 5: { /* swap two arguments of a call */
    m->what = "swap arguments";
    spans calls = {0};
    find_calls(t, n, &calls);
    if (calls.n) {
      span c = calls.v[lcg_below(&r, calls.n)];
      spans args = {0};
      find_close(t, n, c.b, &args);
      span ne[64];
      size_t k = 0;
      for (size_t a = 0; a < args.n && k < 64; a++) {
        trim(t, &args.v[a]);
        if (args.v[a].e > args.v[a].b) ne[k++] = args.v[a];
      }
      size_t i = lcg_below(&r, k), j = lcg_below(&r, k - 1);
      if (j >= i) j++;
      if (i > j) {
        size_t x = i;
        i = j;
        j = x;
      }
      span a = ne[i], b = ne[j];
      m->len = n;
      m->text = malloc(n + 1);
      cr_assert(m->text);
      size_t o = 0;
      memcpy(m->text + o, t, a.b), o += a.b;
      memcpy(m->text + o, t + b.b, b.e - b.b), o += b.e - b.b;
      memcpy(m->text + o, t + a.e, b.b - a.e), o += b.b - a.e;
      memcpy(m->text + o, t + a.b, a.e - a.b), o += a.e - a.b;
      memcpy(m->text + o, t + b.e, n - b.e);
      m->text[n] = '\0';
      free(args.v);
    }
    free(calls.v);
    break;
  }
  case 6: /* truncate */
    m->what = "truncate";
    splice(m, t, n, lcg_below(&r, n), n, "", 0);
    break;
  }
  if (!m->text) splice(m, t, n, 0, 0, "", 0);
  free(lines.v);
  free(toks.v);
  free(ints.v);
  free(strs.v);
  *rp = r;
}

/* How many mutations mutant idx stacks: one for the first half of the
 * mutants of each kind, two (the second of a random kind) for the rest, so
 * that errors after errors (recovery) are exercised too. TIRX_ROBUST_DEPTH
 * and TIRX_ROBUST_SEED change the mix for local exploration only. */
static int depth_of(int idx) {
  const char *d = getenv("TIRX_ROBUST_DEPTH");
  if (d && atoi(d) > 0) return atoi(d);
  return idx < N_MUTANTS / 2 ? 1 : 2;
}

static void make_mutant(const char *rel, const char *t, size_t n, int idx, mutant *m) {
  const char *seed = getenv("TIRX_ROBUST_SEED");
  lcg r = {fnv1a(rel) ^ ((uint64_t)(idx + 1) * 0x9E3779B97F4A7C15ull) ^
           (seed ? strtoull(seed, NULL, 10) : 0)};
  for (int k = 0; k < 4; k++)
    lcg_next(&r);
  mutate_once(&r, t, n, idx % N_KINDS, m);
  const char *what = m->what;
  for (int d = 1; d < depth_of(idx); d++) {
    mutant next;
    mutate_once(&r, m->text, m->len, (int)lcg_below(&r, N_KINDS), &next);
    free(m->text);
    *m = next;
  }
  m->what = depth_of(idx) > 1 ? "stacked" : what;
}

/* ---- compiling and checking ---------------------------------------------- */

/* Compiles one mutant for one arch. Returns NULL when it behaved, else a
 * description of what went wrong (static). diags receives the rendering. */
static const char *check_one(const char *rel, const mutant *m, const char *arch, char *diags,
                             size_t cap, int *compiled) {
  tirx_ctx *ctx = NULL;
  if (tirx_ctx_create(&ctx) != TIRX_OK) return "context creation failed";
  tirx_module *mod = NULL;
  tirx_status st = tirx_parse_string(ctx, rel, m->text, m->len, &mod);
  tx_strbuf out = {0};
  if (st == TIRX_OK) {
    tx_compile_request req;
    tx_compile_request_init(&req);
    req.emit = TX_EMIT_CUDA;
    req.pipeline.verify_each = getenv("TIRX_ROBUST_VERIFY") != NULL;
    tx_target_from_arch(arch, &req.target);
    tx_compile_stats stats = {0};
    st = tx_compile_module(ctx, mod->mod, &req, &stats, &out);
  }
  const char *bad = NULL;
  *compiled = st == TIRX_OK;
  if (st == TIRX_ERR_INPUT) {
    int located = 0;
    for (size_t i = 0; i < tirx_diag_count(ctx); i++) {
      tirx_diagnostic d;
      if (tirx_diag_get(ctx, i, &d) == TIRX_OK && d.severity == TIRX_SEV_ERROR && d.span.line > 0)
        located = 1;
    }
    if (!located) bad = "input error without a located error diagnostic";
  } else if (st == TIRX_OK) {
    if (out.failed) bad = "output buffer failed";
  } else {
    bad = tirx_status_name(st);
  }
  size_t need = 0;
  diags[0] = '\0';
  if (bad) tirx_diag_render(ctx, diags, cap, &need);
  tx_sb_free(&out);
  tirx_ctx_destroy(ctx);
  return bad;
}

/* With TIRX_ROBUST_DUMP=DIR set, failing mutants are also written to
 * DIR/<dir>_<name>_<idx>.tirx, for reproducing them with tirxc. */
static void dump_mutant(const char *rel, int idx, const mutant *m) {
  const char *dir = getenv("TIRX_ROBUST_DUMP");
  if (!dir) return;
  char path[4096];
  int k = snprintf(path, sizeof path, "%s/", dir);
  for (const char *c = rel; *c && k < 4000; c++)
    path[k++] = *c == '/' ? '_' : *c;
  snprintf(path + k, sizeof path - (size_t)k, ".%d.tirx", idx);
  FILE *f = fopen(path, "wb");
  if (!f) return;
  fwrite(m->text, 1, m->len, f);
  fclose(f);
}

static void print_mutant(const char *rel, int idx, const mutant *m, const char *why,
                         const char *arch, const char *diags) {
  dump_mutant(rel, idx, m);
  fprintf(stderr,
          "==== %s mutant %d (%s) %s%s%s\n---- mutant text ----\n%.*s\n---- diagnostics "
          "----\n%s\n",
          rel, idx, m->what, why, arch ? " for " : "", arch ? arch : "", (int)m->len, m->text,
          diags ? diags : "");
}

static char *read_whole(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *b = malloc(cap);
  size_t k;
  while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
    n += k;
    if (n == cap) b = realloc(b, cap *= 2);
  }
  fclose(f);
  if (b) b[n] = '\0'; /* n < cap: the loop grows the buffer when it fills */
  *len = n;
  return b;
}

/* Records on the pipe: {index, what}. REC_OK: compiled for every arch;
 * REC_REJECTED: a located input error for some arch. */
enum { REC_START = 0, REC_OK = 1, REC_REJECTED = 2, REC_FAIL = 3 };

/* The child: mutants [from, N_MUTANTS) of one file, each announced on fd. */
static void child_run(const char *rel, const char *text, size_t len, int from, int fd) {
  static char diags[1 << 16];
  const char *archs[2] = {"sm_90a", NULL};
  if (strstr(text, "# ptxas-archs: sm_100a")) archs[1] = "sm_100a";
  for (int idx = from; idx < N_MUTANTS; idx++) {
    int rec[2] = {idx, REC_START};
    if (write(fd, rec, sizeof rec) != sizeof rec) _exit(2);
    if (skipped(rel, idx)) {
      rec[1] = REC_OK;
      if (write(fd, rec, sizeof rec) != sizeof rec) _exit(2);
      continue;
    }
    mutant m;
    make_mutant(rel, text, len, idx, &m);
    rec[1] = REC_OK;
    for (int a = 0; a < 2 && archs[a]; a++) {
      int compiled = 0;
      const char *why = check_one(rel, &m, archs[a], diags, sizeof diags, &compiled);
      if (!compiled && rec[1] == REC_OK) rec[1] = REC_REJECTED;
      if (why) {
        print_mutant(rel, idx, &m, why, archs[a], diags);
        rec[1] = REC_FAIL;
      }
    }
    free(m.text);
    if (write(fd, rec, sizeof rec) != sizeof rec) _exit(2);
  }
  _exit(0);
}

/* Runs every mutant of one file; returns the number of failing mutants and
 * counts the ones that compiled (ok) and were rejected. */
static int run_file(const char *dir, const char *name, int *ok, int *rejected) {
  char path[4096], rel[512];
  snprintf(path, sizeof path, "%s/tests/golden/%s/%s", TIRX_SOURCE_DIR, dir, name);
  snprintf(rel, sizeof rel, "%s/%s", dir, name);
  size_t len = 0;
  char *text = read_whole(path, &len);
  cr_assert(text, "cannot read %s", path);
  int failures = 0, from = 0;
  while (from < N_MUTANTS) {
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    fflush(stderr);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
      close(fds[0]);
      child_run(rel, text, len, from, fds[1]);
    }
    close(fds[1]);
    int current = -1, hung = 0;
    for (;;) {
      struct pollfd p = {.fd = fds[0], .events = POLLIN};
      int pr = poll(&p, 1, HANG_S * 1000);
      if (pr == 0) {
        hung = 1;
        kill(pid, SIGKILL);
        break;
      }
      if (pr < 0 && errno == EINTR) continue;
      int rec[2];
      ssize_t k = read(fds[0], rec, sizeof rec);
      if (k != (ssize_t)sizeof rec) break;
      if (rec[1] == REC_START)
        current = rec[0];
      else {
        if (rec[1] == REC_FAIL) failures++;
        if (rec[1] == REC_OK) ++*ok;
        if (rec[1] == REC_REJECTED) ++*rejected;
        current = -1;
        from = rec[0] + 1;
      }
    }
    close(fds[0]);
    int wst = 0;
    waitpid(pid, &wst, 0);
    if (current >= 0) {
      /* The child died or hung inside mutant `current`. */
      mutant m;
      make_mutant(rel, text, len, current, &m);
      char why[128];
      if (hung)
        snprintf(why, sizeof why, "hung (more than %d s)", HANG_S);
      else if (WIFSIGNALED(wst))
        snprintf(why, sizeof why, "crashed (signal %d)", WTERMSIG(wst));
      else
        snprintf(why, sizeof why, "died (exit status %d)", WEXITSTATUS(wst));
      print_mutant(rel, current, &m, why, NULL, NULL);
      free(m.text);
      failures++;
      from = current + 1;
    } else if (from < N_MUTANTS) {
      cr_assert(0, "%s: the child stopped before mutant %d", rel, from);
    }
  }
  free(text);
  return failures;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every hand-written input of tests/golden/<dir> (not *.expected.*);
 * some_compile: whether some mutant is expected to compile (not for
 * tests/golden/parse_only, whose forms lowering refuses). */
static void run_dir(const char *dir, int some_compile) {
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/golden/%s", TIRX_SOURCE_DIR, dir);
  DIR *d = opendir(path);
  cr_assert(d, "cannot open %s", path);
  char *names[512];
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 512) {
    size_t l = strlen(e->d_name);
    if (l > 5 && strcmp(e->d_name + l - 5, ".tirx") == 0 && !strstr(e->d_name, ".expected."))
      names[n++] = strdup(e->d_name);
  }
  closedir(d);
  cr_assert_gt(n, 0, "no inputs in %s", path);
  qsort(names, n, sizeof *names, cmp_str);
  int failures = 0, ok = 0, rejected = 0;
  for (size_t i = 0; i < n; i++) {
    failures += run_file(dir, names[i], &ok, &rejected);
    free(names[i]);
  }
  cr_log_info("tests/golden/%s: %zu files, %d mutants compiled, %d rejected, %d misbehaved", dir, n,
              ok, rejected, failures);
  /* Both outcomes occur, or the mutants (or the compile) are not what they seem. */
  if (some_compile) cr_expect_gt(ok, 0, "no mutant of tests/golden/%s compiled", dir);
  cr_expect_gt(rejected, 0, "no mutant of tests/golden/%s was rejected", dir);
  cr_expect_eq(failures, 0, "%d mutant(s) of tests/golden/%s misbehaved (see above)", failures,
               dir);
}

/* The mutator itself: deterministic, and each kind changes the text. */
Test(robustness, mutants_deterministic_and_changed) {
  static const char T[] = "@T.prim_func\n"
                          "def f(A: T.Buffer((16,), \"float32\")):\n"
                          "    A[0] = T.max(A[1], 3)\n";
  size_t n = sizeof T - 1;
  for (int idx = 0; idx < N_MUTANTS; idx++) {
    mutant a, b;
    make_mutant("x.tirx", T, n, idx, &a);
    make_mutant("x.tirx", T, n, idx, &b);
    cr_expect(a.len == b.len && memcmp(a.text, b.text, a.len) == 0, "mutant %d differs", idx);
    /* (Two stacked mutations may undo each other.) */
    cr_expect(depth_of(idx) > 1 || a.len != n || memcmp(a.text, T, n) != 0,
              "mutant %d (%s) is the input", idx, a.what);
    free(a.text);
    free(b.text);
  }
}

Test(robustness, golden_cuda, .timeout = 600) {
  run_dir("cuda", 1);
}
Test(robustness, golden_lowering, .timeout = 600) {
  run_dir("lowering", 1);
}
Test(robustness, golden_parse, .timeout = 600) {
  run_dir("parse", 1);
}
Test(robustness, golden_parse_only, .timeout = 600) {
  run_dir("parse_only", 0);
}

/* Minimal forms of the mutants that found bugs, each compiled like a mutant
 * (in the test's own process: a crash fails the test). */
static const char *const REGRESSIONS[] = {
    /* a zero extent against a tile layout divided by zero in flatten-buffer */
    "from tvm.script import tirx as T\n"
    "from tvm.tirx.layout import TileLayout, ComposeLayout, S\n"
    "@T.prim_func\n"
    "def f(A: T.Buffer((128, 64), \"float16\")):\n"
    "    T.device_entry()\n"
    "    tx = T.thread_id([128])\n"
    "    pool = T.alloc_buffer((2, 128, 0), \"float16\", scope=\"shared.dyn\",\n"
    "                          layout=ComposeLayout(3, 3, 3, TileLayout(S[16384:1])))\n"
    "    for k in range(64):\n"
    "        pool[0, tx, k] = A[tx, k]\n",
    /* ptr_to with too few indices was an internal error in flatten-buffer */
    "@T.prim_func\n"
    "def f(A: T.Buffer((16,), \"float32\")):\n"
    "    T.device_entry()\n"
    "    tx = T.thread_id([16])\n"
    "    a = T.alloc_shared((16,), \"uint64\")\n"
    "    T.ptx.mbarrier.init(a.ptr_to([]), 1)\n",
    /* a permute view repeating an axis was reported as out of memory */
    "@T.prim_func\n"
    "def f(A: T.Buffer((16,), \"float32\")):\n"
    "    T.device_entry()\n"
    "    tx = T.thread_id([16])\n"
    "    tile = T.alloc_shared((4, 4), \"float32\")\n"
    "    tileT = tile.permute(0, 0)\n"
    "    A[tx] = tileT[tx % 4, tx // 4]\n",
    /* uint32 thread ids were an unlocated codegen error */
    "@T.prim_func\n"
    "def f(A: T.Buffer((16,), \"float32\")):\n"
    "    T.device_entry()\n"
    "    tx = T.thread_id([16], dtype=\"uint32\")\n"
    "    A[tx] = T.float32(1)\n",
    /* a shared.dyn T.decl_buffer without data= was missing from the arena */
    "@T.prim_func\n"
    "def f(A: T.Buffer((16,), \"float32\")):\n"
    "    T.device_entry()\n"
    "    tx = T.thread_id([16])\n"
    "    t = T.decl_buffer((16,), \"float32\", scope=\"shared.dyn\", allocated_addr=0)\n"
    "    t[tx] = A[tx]\n"
    "    A[tx] = t[15 - tx]\n",
};

Test(robustness, regressions) {
  static char diags[1 << 16];
  for (size_t i = 0; i < sizeof REGRESSIONS / sizeof *REGRESSIONS; i++) {
    mutant m = {(char *)REGRESSIONS[i], strlen(REGRESSIONS[i]), "regression"};
    int compiled = 0;
    const char *why = check_one("regression.tirx", &m, "sm_90a", diags, sizeof diags, &compiled);
    cr_expect(!why, "regression %zu: %s\n%s\n%s", i, why ? why : "", m.text, diags);
  }
}
