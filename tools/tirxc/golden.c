/*
 * golden.c - `tirxc golden [--update] [--quiet] DIR...`: the golden-file runner.
 *
 * Every NAME.tirx directly inside a DIR is one case, run in name order in a
 * fresh context:
 *   - NAME.expected.err exists: compiling must fail, and the rendered
 *     diagnostics must equal that file byte for byte; no error or warning
 *     may be in them twice (the same place and message), with --update too;
 *   - otherwise compiling must succeed and the canonical print must equal
 *     NAME.expected.tirx, the print must be a fixed point
 *     (print(parse(print(m))) == print(m)) and parse(print(m)) must be
 *     structurally equal to m, with the same hash.
 * Sources are parsed under their base name, so expected diagnostics do not
 * depend on where the checkout lives. --update writes the expectations from
 * the current compiler instead of comparing (the properties are still
 * checked). The last line on stdout is always `N passed, M failed`.
 *
 * Dialect conversion: NAME.expected.converted.tirx (always expected for a
 * case named dialect_*) is the print in the other TVMScript dialect; it must
 * parse back to a structurally equal module that prints back as
 * NAME.expected.tirx (docs/dialects.md).
 *
 * Lowering expectations: NAME.expected.lowered.tirx is compared with
 * `--emit=lowered` and NAME.expected.cu with `--emit=cuda` (target sm_90a,
 * -O2, whatever GPU the machine has) when they exist. In a directory holding
 * a `.lowering` marker file both are always expected (--update creates them),
 * and a case whose lowering fails with input errors is an error case
 * compared with NAME.expected.err. A `.pass` file lists the passes (one or
 * more, blank-separated) that its directory's cases run instead of the whole
 * pipeline; their input errors are compared with NAME.expected.err too.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver/context.h"
#include "support/file.h"
#include "ir/printer.h"
#include "driver/compile.h"
#include "tirx/tirx.h"

int tirxc_golden_main(int argc, char **argv);

static const char GOLDEN_HELP[] =
    "usage: tirxc golden [--update] [--quiet] DIR...\n"
    "\n"
    "Run the golden-file tests in each DIR (not its subdirectories). For each\n"
    "NAME.tirx, in name order:\n"
    "  - with NAME.expected.err: compiling must fail with exactly those\n"
    "    diagnostics (the file is named just NAME.tirx in them), each error\n"
    "    and warning reported once (never twice at one place, even with\n"
    "    --update);\n"
    "  - otherwise: the canonical print must equal NAME.expected.tirx, printing\n"
    "    must be a fixed point, and re-parsing the print must give a\n"
    "    structurally equal module;\n"
    "  - NAME.expected.lowered.tirx, if present, must equal --emit=lowered and\n"
    "    NAME.expected.cu, if present, --emit=cuda (sm_90a, -O2). In a DIR that\n"
    "    contains a file named .lowering, both are always expected, and a case\n"
    "    whose lowering fails must match NAME.expected.err.\n"
    "  - NAME.expected.converted.tirx (always expected for NAME dialect_*) must\n"
    "    equal the print in the other TVMScript dialect (--dialect), which must\n"
    "    parse back to an equal module and convert back to the canonical print.\n"
    "  - In a DIR with a file named .pass listing pass names (blank-separated),\n"
    "    NAME.expected.lowered.tirx is the module after only those passes, and a\n"
    "    case they reject must match NAME.expected.err.\n"
    "\n"
    "options:\n"
    "  --update   write NAME.expected.tirx (when NAME.tirx compiles) or\n"
    "             NAME.expected.err (when it does not) from the current\n"
    "             compiler, removing the other one; also rewrite the lowered and\n"
    "             CUDA expectations that exist (in a .lowering DIR: create them);\n"
    "             review the result with git diff\n"
    "  --quiet    print only failures and the summary\n"
    "\n"
    "The last line is 'N passed, M failed'. Exit status: 0 when every case\n"
    "passed, 1 when one failed, 2 for bad usage (e.g. no such DIR).\n";

enum { DIFF_CONTEXT = 3, DIFF_MAX_CELLS = 4 << 20 };

typedef struct blob {
  char *data;
  size_t len;
} blob;

typedef struct runner {
  int update, quiet;
  int passed, failed;
  int case_failed; /* the current case has printed its FAIL header */
  const char *case_path;
  int only_passes;                /* a .pass directory: run only the passes it names */
  uint8_t pass_on[TX_PASS_COUNT]; /* ... these ones, in pipeline order */
} runner;

/* ---- Files ------------------------------------------------------------------- */

static char *concat3(const char *a, const char *b, const char *c) {
  size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
  char *s = malloc(la + lb + lc + 1);
  if (!s) return NULL;
  memcpy(s, a, la);
  memcpy(s + la, b, lb);
  memcpy(s + la + lb, c, lc + 1);
  return s;
}

static int is_regular(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Whole file into a malloc'ed blob (NUL-terminated for convenience). 0 or errno. */
static int read_file(const char *path, blob *out) {
  tx_strbuf sb = {0};
  int err = tx_sb_read_file(&sb, path);
  if (err) {
    tx_sb_free(&sb);
    *out = (blob){0};
    return err;
  }
  *out = (blob){sb.data, sb.len};
  return 0;
}

/* support/file.h's writer: an interrupted update leaves no torn file. */
static int write_file(const char *path, const blob *b) {
  return tx_file_write(path, b->data, b->len, TX_WRITE_DEFAULT);
}

static int blob_eq(const blob *a, const blob *b) {
  return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* ---- Library output into blobs ------------------------------------------------- */

static tirx_status print_blob(const tirx_module *m, blob *out) {
  *out = (blob){0};
  size_t len = 0;
  tirx_status st = tirx_module_print(m, NULL, 0, &len);
  if (st != TIRX_ERR_TRUNCATED) return st == TIRX_OK ? TIRX_ERR_INTERNAL : st;
  out->data = malloc(len + 1);
  if (!out->data) return TIRX_ERR_NOMEM;
  st = tirx_module_print(m, out->data, len + 1, NULL);
  out->len = len;
  return st;
}

/* m printed in dialect d (what --dialect=D prints). */
static tirx_status print_blob_in(const tirx_module *m, tx_dialect d, blob *out) {
  tx_strbuf sb = {0};
  tx_print_module_in(m->mod, d, &sb);
  if (sb.failed) {
    tx_sb_free(&sb);
    *out = (blob){0};
    return TIRX_ERR_NOMEM;
  }
  *out = (blob){sb.data, sb.len};
  return TIRX_OK;
}

static tirx_status render_blob(const tirx_ctx *ctx, blob *out) {
  *out = (blob){0};
  size_t len = 0;
  tirx_status st = tirx_diag_render(ctx, NULL, 0, &len);
  if (st != TIRX_ERR_TRUNCATED) return st == TIRX_OK ? TIRX_ERR_INTERNAL : st;
  out->data = malloc(len + 1);
  if (!out->data) return TIRX_ERR_NOMEM;
  st = tirx_diag_render(ctx, out->data, len + 1, NULL);
  out->len = len;
  return st;
}

/* --emit=lowered / --emit=cuda output of a parsed module, with the default
 * target so expectations do not depend on the machine's GPU. */
static tirx_status emit_blob(tirx_ctx *ctx, const tirx_module *m, tx_emit_kind kind,
                             const uint8_t *pass_on, blob *out) {
  *out = (blob){0};
  tx_compile_request req;
  tx_compile_request_init(&req);
  req.emit = kind;
  for (int i = 0; pass_on && i < TX_PASS_COUNT; i++)
    req.pipeline.disabled[i] = !pass_on[i];
  tx_strbuf sb = {0};
  tirx_status st = tx_compile_module(ctx, m->mod, &req, NULL, &sb);
  if (st == TIRX_OK && sb.failed) st = TIRX_ERR_NOMEM;
  if (st != TIRX_OK) {
    tx_sb_free(&sb);
    return st;
  }
  out->data = sb.data; /* malloc'ed by the strbuf: the blob takes it over */
  out->len = sb.len;
  return TIRX_OK;
}

/* ---- Line diff ---------------------------------------------------------------- */

typedef struct line {
  const char *s;
  size_t n; /* without the '\n' */
  int nl;   /* ended by '\n' */
} line;

typedef struct edit {
  char tag;      /* ' ', '-', '+' */
  size_t ai, bi; /* positions in a and b before this edit */
} edit;

static line *split_lines(const blob *b, size_t *count) {
  size_t n = 0;
  for (size_t i = 0; i < b->len; i++)
    if (b->data[i] == '\n') n++;
  if (b->len && b->data[b->len - 1] != '\n') n++;
  line *v = malloc((n ? n : 1) * sizeof *v);
  if (!v) return NULL;
  size_t k = 0, start = 0;
  for (size_t i = 0; i < b->len; i++)
    if (b->data[i] == '\n') {
      v[k++] = (line){b->data + start, i - start, 1};
      start = i + 1;
    }
  if (start < b->len) v[k++] = (line){b->data + start, b->len - start, 0};
  *count = n;
  return v;
}

static int line_eq(const line *a, const line *b) {
  return a->n == b->n && a->nl == b->nl && memcmp(a->s, b->s, a->n) == 0;
}

static void put_line(FILE *out, char tag, const line *l) {
  fputc(tag, out);
  fwrite(l->s, 1, l->n, out);
  fputs(l->nl ? "\n" : "\n\\ No newline at end of file\n", out);
}

/* The edit script turning a[] into b[]: common prefix and suffix, and an LCS
 * table for the middle. NULL when the middle is too big for the table. */
static edit *diff_lines(const line *a, size_t na, const line *b, size_t nb, size_t *nedits) {
  size_t pre = 0, suf = 0;
  while (pre < na && pre < nb && line_eq(&a[pre], &b[pre]))
    pre++;
  while (suf < na - pre && suf < nb - pre && line_eq(&a[na - 1 - suf], &b[nb - 1 - suf]))
    suf++;
  size_t ma = na - pre - suf, mb = nb - pre - suf;
  if (ma && mb && (ma + 1) > DIFF_MAX_CELLS / (mb + 1)) return NULL;
  uint32_t *L = calloc((ma + 1) * (mb + 1), sizeof *L);
  edit *e = malloc((na + nb + 1) * sizeof *e);
  if (!L || !e) {
    free(L);
    free(e);
    return NULL;
  }
  /* L[i][j]: LCS length of the middles' suffixes a[i..], b[j..]. */
#define LCS(i, j) L[(i) * (mb + 1) + (j)]
  for (size_t i = ma; i-- > 0;)
    for (size_t j = mb; j-- > 0;)
      LCS(i, j) = line_eq(&a[pre + i], &b[pre + j])
                      ? LCS(i + 1, j + 1) + 1
                      : (LCS(i + 1, j) >= LCS(i, j + 1) ? LCS(i + 1, j) : LCS(i, j + 1));
  size_t k = 0, i = 0, j = 0;
  for (size_t p = 0; p < pre; p++)
    e[k++] = (edit){' ', p, p};
  while (i < ma || j < mb) {
    size_t ai = pre + i, bi = pre + j;
    if (i < ma && j < mb && line_eq(&a[ai], &b[bi])) {
      e[k++] = (edit){' ', ai, bi};
      i++, j++;
    } else if (j == mb || (i < ma && LCS(i + 1, j) >= LCS(i, j + 1))) {
      e[k++] = (edit){'-', ai, bi};
      i++;
    } else {
      e[k++] = (edit){'+', ai, bi};
      j++;
    }
  }
#undef LCS
  for (size_t s = 0; s < suf; s++)
    e[k++] = (edit){' ', pre + ma + s, pre + mb + s};
  free(L);
  *nedits = k;
  return e;
}

/* Unified-style diff of expected (a) against actual (b) on `out`. */
static void print_diff(FILE *out, const char *a_name, const blob *ab, const char *b_name,
                       const blob *bb) {
  size_t na = 0, nb = 0, ne = 0;
  line *a = split_lines(ab, &na), *b = split_lines(bb, &nb);
  edit *e = a && b ? diff_lines(a, na, b, nb, &ne) : NULL;
  fprintf(out, "--- %s\n+++ %s\n", a_name, b_name);
  if (!e) {
    /* Too big for the LCS table: point at the first difference only. */
    size_t i = 0;
    while (a && b && i < na && i < nb && line_eq(&a[i], &b[i]))
      i++;
    fprintf(out, "@@ first difference at line %zu @@\n", i + 1);
    if (a && i < na) put_line(out, '-', &a[i]);
    if (b && i < nb) put_line(out, '+', &b[i]);
  }
  for (size_t i = 0; e && i < ne;) {
    if (e[i].tag == ' ') {
      i++;
      continue;
    }
    size_t start = i > DIFF_CONTEXT ? i - DIFF_CONTEXT : 0, last = i, j = i;
    for (; j < ne; j++) {
      if (e[j].tag != ' ')
        last = j;
      else if (j - last > 2 * DIFF_CONTEXT)
        break;
    }
    size_t end = last + DIFF_CONTEXT + 1 < ne ? last + DIFF_CONTEXT + 1 : ne;
    size_t ca = 0, cb = 0;
    for (size_t k = start; k < end; k++) {
      if (e[k].tag != '+') ca++;
      if (e[k].tag != '-') cb++;
    }
    /* Unified convention: an empty side names the line before it. */
    fprintf(out, "@@ -%zu,%zu +%zu,%zu @@\n", e[start].ai + (ca ? 1 : 0), ca,
            e[start].bi + (cb ? 1 : 0), cb);
    for (size_t k = start; k < end; k++)
      put_line(out, e[k].tag, e[k].tag == '+' ? &b[e[k].bi] : &a[e[k].ai]);
    i = end;
  }
  free(a);
  free(b);
  free(e);
}

/* ---- Cases -------------------------------------------------------------------- */

static void fail(runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(runner *r, const char *fmt, ...) {
  fflush(stdout); /* keep PASS lines and failures in order on a terminal */
  if (!r->case_failed) fprintf(stderr, "FAIL %s\n", r->case_path);
  r->case_failed = 1;
  va_list ap;
  va_start(ap, fmt);
  fputs("  ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static void show(const blob *b) {
  fwrite(b->data, 1, b->len, stderr);
}

/* Write an expectation unless it already says exactly this. */
static void update_file(runner *r, const char *path, const blob *want) {
  blob old;
  int have = read_file(path, &old) == 0;
  int same = have && blob_eq(&old, want);
  free(old.data);
  if (same) return;
  int err = write_file(path, want);
  if (err)
    fail(r, "cannot write '%s': %s", path, strerror(err));
  else if (!r->quiet)
    printf("updated %s\n", path);
}

static void drop_file(runner *r, const char *path) {
  if (!is_regular(path)) return;
  if (remove(path) != 0)
    fail(r, "cannot remove '%s': %s", path, strerror(errno));
  else if (!r->quiet)
    printf("removed %s\n", path);
}

/* The round-trip properties of a module that compiled, given its print p1. */
static void check_round_trip(runner *r, tirx_ctx *ctx, const char *name, const tirx_module *m,
                             const blob *p1) {
  char *name2 = concat3(name, " (printed)", "");
  tirx_module *m2 = NULL;
  tirx_diag_clear(ctx); /* so a failure below renders only the re-parse's diagnostics */
  tirx_status st = tirx_parse_string(ctx, name2 ? name2 : name, p1->data, p1->len, &m2);
  free(name2);
  if (st != TIRX_OK) {
    blob d;
    fail(r, "round trip: the printed text does not compile (%s):", tirx_status_name(st));
    if (render_blob(ctx, &d) == TIRX_OK) show(&d);
    free(d.data);
    return;
  }
  blob p2;
  st = print_blob(m2, &p2);
  if (st != TIRX_OK)
    fail(r, "round trip: printing the re-parsed module failed (%s)", tirx_status_name(st));
  else if (!blob_eq(p1, &p2)) {
    fail(r, "fixed point: print(parse(print(m))) differs from print(m):");
    print_diff(stderr, "print(m)", p1, "print(parse(print(m)))", &p2);
  }
  free(p2.data);
  if (!tirx_module_equal(m, m2))
    fail(r, "structural equality: parse(print(m)) is not equal to m");
  else if (tirx_module_hash(m) != tirx_module_hash(m2))
    fail(r, "hash: parse(print(m)) equals m but hashes differently");
}

static void check_output(runner *r, const char *path, const blob *actual, const char *what);

/* Dialect conversion (docs/dialects.md), given m's print p1 in its own
 * dialect: m printed in the other dialect must equal `path`, parse back to a
 * module structurally equal to m, and print back in m's dialect as p1. */
static void check_conversion(runner *r, tirx_ctx *ctx, const char *name, const tirx_module *m,
                             const blob *p1, const char *path) {
  tx_dialect own = (tx_dialect)m->mod->dialect;
  tx_dialect other = own == TX_DIALECT_TVM ? TX_DIALECT_TIRX : TX_DIALECT_TVM;
  blob conv = {0}, back = {0};
  if (print_blob_in(m, other, &conv) != TIRX_OK) {
    fail(r, "out of memory printing in the other dialect");
    return;
  }
  check_output(r, path, &conv, "print in the other dialect (--dialect)");
  char *name2 = concat3(name, " (converted)", "");
  tirx_module *m2 = NULL;
  tirx_diag_clear(ctx);
  tirx_status st = tirx_parse_string(ctx, name2 ? name2 : name, conv.data, conv.len, &m2);
  free(name2);
  if (st != TIRX_OK) {
    blob d;
    fail(r, "conversion: the other dialect's print does not compile (%s):", tirx_status_name(st));
    if (render_blob(ctx, &d) == TIRX_OK) show(&d);
    free(d.data);
  } else if (m2->mod->dialect != other) {
    fail(r, "conversion: the other dialect's print does not read as that dialect");
  } else if (!tirx_module_equal(m, m2)) {
    fail(r, "conversion: parse(converted) is not structurally equal to m");
  } else if (print_blob_in(m2, own, &back) != TIRX_OK) {
    fail(r, "out of memory printing the conversion back");
  } else if (!blob_eq(p1, &back)) {
    fail(r, "conversion: converting back does not give print(m):");
    print_diff(stderr, "print(m)", p1, "converted back", &back);
  }
  free(conv.data);
  free(back.data);
}

/* The expectation files of one case. */
typedef struct case_files {
  char *stem, *src, *exp_tirx, *exp_err, *exp_low, *exp_cu, *exp_conv;
  int has_tirx, has_err, has_low, has_cu, has_conv;
} case_files;

static char *with_suffix(const char *dir, const char *stem, const char *suffix) {
  char *base = concat3(dir, "/", stem);
  char *s = base ? concat3(base, suffix, "") : NULL;
  free(base);
  return s;
}

/* Is line [p, p + n) the first line of an error or a warning ("FILE:L:C:
 * error: ...")? Source excerpts and carets are indented; notes may repeat
 * legitimately (one per error they explain). */
static int is_report_line(const char *p, size_t n) {
  static const char *const kinds[] = {": error: ", ": warning: ", ": internal error"};
  if (n == 0 || p[0] == ' ') return 0;
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    size_t m = strlen(kinds[k]);
    for (size_t i = 0; i + m <= n; i++)
      if (memcmp(p + i, kinds[k], m) == 0) return 1;
  }
  return 0;
}

/* The first error or warning that the rendered diagnostics `d` hold twice
 * (the same place and message), as its line; *n is its length. NULL when
 * each is reported once. */
static const char *repeated_report(const blob *d, size_t *n) {
  const char *end = d->data + d->len;
  for (const char *a = d->data; a && a < end;) {
    const char *a_end = memchr(a, '\n', (size_t)(end - a));
    size_t an = (size_t)((a_end ? a_end : end) - a);
    if (is_report_line(a, an))
      for (const char *b = a_end ? a_end + 1 : end; b < end;) {
        const char *b_end = memchr(b, '\n', (size_t)(end - b));
        size_t bn = (size_t)((b_end ? b_end : end) - b);
        if (bn == an && memcmp(a, b, an) == 0) {
          *n = an;
          return a;
        }
        b = b_end ? b_end + 1 : end;
      }
    a = a_end ? a_end + 1 : end;
  }
  return NULL;
}

/* The case failed to compile with input errors (while parsing, or while
 * lowering in a .lowering directory): compare or write NAME.expected.err.
 * Each diagnostic must be reported once, whatever the expectation says. */
static void check_errors(runner *r, tirx_ctx *ctx, const case_files *cf) {
  blob actual = {0}, expected = {0};
  int err;
  const char *twice = NULL;
  size_t twice_len = 0;
  if (render_blob(ctx, &actual) != TIRX_OK) {
    fail(r, "out of memory rendering diagnostics");
  } else if ((twice = repeated_report(&actual, &twice_len)) != NULL) {
    fail(r, "a diagnostic is reported more than once: %.*s", (int)twice_len, twice);
  } else if (r->update) {
    update_file(r, cf->exp_err, &actual);
    drop_file(r, cf->exp_tirx);
    drop_file(r, cf->exp_low);
    drop_file(r, cf->exp_cu);
  } else if (!cf->has_err) {
    fail(r, "expected to compile (%s.expected.tirx), but it failed:", cf->stem);
    show(&actual);
  } else if ((err = read_file(cf->exp_err, &expected)) != 0) {
    fail(r, "cannot read '%s': %s", cf->exp_err, strerror(err));
  } else if (!blob_eq(&expected, &actual)) {
    fail(r, "diagnostics differ from %s.expected.err:", cf->stem);
    print_diff(stderr, cf->exp_err, &expected, "actual diagnostics", &actual);
  }
  free(actual.data);
  free(expected.data);
}

/* Compare `actual` with the expectation at path (or write it with --update). */
static void check_output(runner *r, const char *path, const blob *actual, const char *what) {
  blob expected = {0};
  int err;
  if (r->update) {
    update_file(r, path, actual);
  } else if (!is_regular(path)) {
    fail(r, "no %s (create it with 'tirxc golden --update')", path);
  } else if ((err = read_file(path, &expected)) != 0) {
    fail(r, "cannot read '%s': %s", path, strerror(err));
  } else if (!blob_eq(&expected, actual)) {
    fail(r, "%s differs from %s:", what, path);
    print_diff(stderr, path, &expected, what, actual);
  }
  free(expected.data);
}

static void run_case(runner *r, const char *dir, const char *name, int lowering_dir) {
  size_t stem_len = strlen(name) - strlen(".tirx");
  case_files cf = {0};
  cf.stem = malloc(stem_len + 1);
  cf.src = concat3(dir, "/", name);
  if (cf.stem) {
    memcpy(cf.stem, name, stem_len);
    cf.stem[stem_len] = '\0';
    cf.exp_tirx = with_suffix(dir, cf.stem, ".expected.tirx");
    cf.exp_err = with_suffix(dir, cf.stem, ".expected.err");
    cf.exp_low = with_suffix(dir, cf.stem, ".expected.lowered.tirx");
    cf.exp_cu = with_suffix(dir, cf.stem, ".expected.cu");
    cf.exp_conv = with_suffix(dir, cf.stem, ".expected.converted.tirx");
  }
  r->case_failed = 0;
  r->case_path = cf.src ? cf.src : name;
  tirx_ctx *ctx = NULL;
  blob text = {0}, actual = {0}, expected = {0}, low = {0}, cu = {0};
  if (!cf.src || !cf.exp_tirx || !cf.exp_err || !cf.exp_low || !cf.exp_cu || !cf.exp_conv ||
      tirx_ctx_create(&ctx) != TIRX_OK || tirx_ctx_set_program_name(ctx, "tirxc") != TIRX_OK) {
    fail(r, "out of memory");
    goto done;
  }
  const char *stem = cf.stem;
  int err = read_file(cf.src, &text);
  if (err) {
    fail(r, "cannot read '%s': %s", cf.src, strerror(err));
    goto done;
  }
  cf.has_tirx = is_regular(cf.exp_tirx);
  cf.has_err = is_regular(cf.exp_err);
  cf.has_low = is_regular(cf.exp_low);
  cf.has_cu = is_regular(cf.exp_cu);
  cf.has_conv = is_regular(cf.exp_conv);
  if (!r->update && cf.has_err && (cf.has_tirx || cf.has_low || cf.has_cu)) {
    fail(r,
         "both %s.expected.err and an output expectation (%s.expected.tirx, .lowered.tirx or "
         ".cu) exist; remove one",
         stem, stem);
    goto done;
  }
  if (!r->update && !cf.has_tirx && !cf.has_err) {
    fail(r, "no %s.expected.tirx or %s.expected.err (create one with 'tirxc golden --update')",
         stem, stem);
    goto done;
  }

  tirx_module *m = NULL;
  /* Parsed under the base name: expectations must not depend on the checkout path. */
  tirx_status st = tirx_parse_string(ctx, name, text.data, text.len, &m);
  if (st != TIRX_OK && st != TIRX_ERR_INPUT) {
    /* Never an expectation, not even with --update: it is a compiler bug. */
    fail(r, "compiling failed with %s:", tirx_status_name(st));
    if (render_blob(ctx, &actual) == TIRX_OK) show(&actual);
    goto done;
  }
  if (st == TIRX_ERR_INPUT) {
    check_errors(r, ctx, &cf);
    goto done;
  }

  /* Lowering first: in a .lowering directory its input errors make this an
   * error case, and the round trip below clears the diagnostics. */
  int want_low = cf.has_low || lowering_dir || r->only_passes;
  int want_cu = cf.has_cu || lowering_dir;
  if (want_low || want_cu) {
    const char *stage = "--emit=lowered";
    st = want_low ? emit_blob(ctx, m, TX_EMIT_LOWERED, r->only_passes ? r->pass_on : NULL, &low)
                  : TIRX_OK;
    if (st == TIRX_OK && want_cu) {
      stage = "--emit=cuda";
      st = emit_blob(ctx, m, TX_EMIT_CUDA, NULL, &cu);
    }
    if (st == TIRX_ERR_INPUT && (lowering_dir || r->only_passes)) {
      check_errors(r, ctx, &cf);
      goto done;
    }
    if (st != TIRX_OK) {
      fail(r, "%s failed with %s:", stage, tirx_status_name(st));
      if (render_blob(ctx, &actual) == TIRX_OK) show(&actual);
      goto done;
    }
  }

  st = print_blob(m, &actual);
  if (st != TIRX_OK) {
    fail(r, "printing failed (%s)", tirx_status_name(st));
    goto done;
  }
  if (r->update) {
    update_file(r, cf.exp_tirx, &actual);
    drop_file(r, cf.exp_err);
  } else if (cf.has_err) {
    fail(r, "expected to fail (%s.expected.err), but it compiled", stem);
  } else if ((err = read_file(cf.exp_tirx, &expected)) != 0) {
    fail(r, "cannot read '%s': %s", cf.exp_tirx, strerror(err));
  } else if (!blob_eq(&expected, &actual)) {
    fail(r, "canonical print differs from %s.expected.tirx:", stem);
    print_diff(stderr, cf.exp_tirx, &expected, "actual print", &actual);
  }
  if (want_low) check_output(r, cf.exp_low, &low, "lowered module (--emit=lowered)");
  if (want_cu) check_output(r, cf.exp_cu, &cu, "CUDA (--emit=cuda)");
  check_round_trip(r, ctx, name, m, &actual);
  /* dialect_* cases always expect their conversion (--update creates it). */
  if (cf.has_conv || strncmp(stem, "dialect_", 8) == 0)
    check_conversion(r, ctx, name, m, &actual, cf.exp_conv);

done:
  if (r->case_failed) {
    r->failed++;
  } else {
    r->passed++;
    if (!r->quiet) printf("PASS %s\n", r->case_path);
  }
  tirx_ctx_destroy(ctx);
  free(text.data);
  free(actual.data);
  free(expected.data);
  free(low.data);
  free(cu.data);
  free(cf.stem);
  free(cf.src);
  free(cf.exp_tirx);
  free(cf.exp_err);
  free(cf.exp_low);
  free(cf.exp_cu);
  free(cf.exp_conv);
}

static int has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* All NAME.tirx cases of dir, sorted by name; -1 on failure (message printed). */
static int run_dir(runner *r, const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "tirxc golden: error: cannot open directory '%s': %s\n", dir, strerror(errno));
    return -1;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  for (struct dirent *ent; (ent = readdir(d)) != NULL;) {
    const char *nm = ent->d_name;
    /* Expectations (NAME.expected.tirx, NAME.expected.lowered.tirx) are not cases. */
    if (nm[0] == '.' || !has_suffix(nm, ".tirx") || strstr(nm, ".expected.")) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      char **p = realloc(names, cap * sizeof *p);
      if (!p) {
        rc = -1;
        break;
      }
      names = p;
    }
    if (!(names[n] = concat3(nm, "", ""))) {
      rc = -1;
      break;
    }
    n++;
  }
  closedir(d);
  char *marker = concat3(dir, "/", ".lowering");
  int lowering_dir = marker && is_regular(marker);
  free(marker);
  /* A .pass file names the passes this directory's cases exercise (one, or
   * several separated by blanks, run in pipeline order): each
   * NAME.expected.lowered.tirx is the input after just those passes, and a
   * case they reject with input errors is compared with NAME.expected.err. */
  r->only_passes = 0;
  memset(r->pass_on, 0, sizeof r->pass_on);
  char *pass_marker = concat3(dir, "/", ".pass");
  blob pass_names = {0};
  if (pass_marker && is_regular(pass_marker) && read_file(pass_marker, &pass_names) == 0) {
    for (char *tok = strtok(pass_names.data, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
      int id = tx_pass_lookup(tok);
      if (id < 0) {
        fprintf(stderr, "tirxc golden: error: %s names no pass ('%s'); see tirxc --list-passes\n",
                pass_marker, tok);
        rc = -1;
        continue;
      }
      r->pass_on[id] = 1;
      r->only_passes = 1;
    }
  }
  free(pass_names.data);
  free(pass_marker);
  if (rc == 0) {
    /* readdir order is the file system's; sorting makes runs reproducible. */
    if (n) qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
      char *path = concat3(dir, "/", names[i]);
      if (path && is_regular(path)) run_case(r, dir, names[i], lowering_dir);
      free(path);
    }
  } else {
    fprintf(stderr, "tirxc golden: error: out of memory listing '%s'\n", dir);
  }
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
  return rc;
}

static int golden_usage(const char *msg, const char *arg) {
  fprintf(stderr, "tirxc golden: error: %s '%s'\nsee 'tirxc golden --help'\n", msg, arg);
  return TIRX_ERR_USAGE;
}

int tirxc_golden_main(int argc, char **argv) {
  runner r = {0};
  int ndirs = 0, only_dirs = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (only_dirs || a[0] != '-') {
      struct stat st;
      if (stat(a, &st) != 0 || !S_ISDIR(st.st_mode)) return golden_usage("no such directory", a);
      ndirs++;
    } else if (strcmp(a, "--") == 0) {
      only_dirs = 1;
    } else if (strcmp(a, "--update") == 0) {
      r.update = 1;
    } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
      r.quiet = 1;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(GOLDEN_HELP, stdout);
      return 0;
    } else {
      return golden_usage("unknown option", a);
    }
  }
  if (ndirs == 0) {
    fputs("tirxc golden: error: no directory given\nsee 'tirxc golden --help'\n", stderr);
    return TIRX_ERR_USAGE;
  }
  int broken = 0;
  only_dirs = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!only_dirs && a[0] == '-') {
      if (strcmp(a, "--") == 0) only_dirs = 1;
      continue;
    }
    if (run_dir(&r, a) != 0) broken = 1;
  }
  fflush(stderr);
  printf("%d passed, %d failed\n", r.passed, r.failed);
  if (fflush(stdout) != 0) return TIRX_ERR_IO;
  if (broken) return TIRX_ERR_USAGE;
  return r.failed ? 1 : 0;
}
