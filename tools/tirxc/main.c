/*
 * main.c - the tirxc command line: compile one TIRx file to canonical TVMScript.
 *
 *   tirxc FILE [-o OUT] [--emit=tirx] [--time]
 *   tirxc golden [--update] [--quiet] DIR...      (see golden.c)
 *
 * Exit codes are the library's status codes (tirx.h): 0 ok, 1 errors in the
 * input, 2 bad usage, 3 internal error, 4 out of memory, 5 I/O error. Output
 * to a file goes through OUT.tmp and a rename, so a failed run never leaves a
 * half-written OUT behind.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/context.h"
#include "tirx/tirx.h"

/* Defined in golden.c (there is no header: the two files are one program). */
int tirxc_golden_main(int argc, char **argv);

static const char HELP[] =
    "usage: tirxc FILE [-o OUT] [--emit=tirx] [--time]\n"
    "       tirxc golden [--update] [--quiet] DIR...\n"
    "       tirxc --help | --version\n"
    "\n"
    "Parse and check a TIRx kernel written in TVMScript and print it back in\n"
    "canonical form. FILE '-' reads standard input.\n"
    "\n"
    "options:\n"
    "  -o OUT        write the output to OUT instead of standard output ('-' is\n"
    "                standard output); OUT is only replaced when compiling succeeds\n"
    "  --emit=tirx   what to emit: 'tirx' (canonical TVMScript) is the only kind\n"
    "  --time        print the time spent in each stage to standard error\n"
    "  --help        show this help and exit\n"
    "  --version     show the version and exit\n"
    "  --            end of options (for a FILE that starts with '-')\n"
    "\n"
    "golden:\n"
    "  Run the golden-file tests in each DIR: NAME.tirx must print as\n"
    "  NAME.expected.tirx, or fail with the diagnostics in NAME.expected.err.\n"
    "  --update writes the expectations instead; see 'tirxc golden --help'.\n"
    "\n"
    "exit status: 0 ok, 1 errors in the input, 2 bad usage, 3 internal error,\n"
    "4 out of memory, 5 I/O error. Diagnostics go to standard error.\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tirxc: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nsee 'tirxc --help'\n", stderr);
  return TIRX_ERR_USAGE;
}

typedef struct options {
  const char *input, *output;
  int time;
} options;

/* Returns -1 to go on, or the exit code (help, version, usage errors). */
static int parse_args(int argc, char **argv, options *o) {
  int only_files = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
      if (o->input) return usage_error("more than one input file ('%s' and '%s')", o->input, a);
      o->input = a;
    } else if (strcmp(a, "--") == 0) {
      only_files = 1;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(HELP, stdout);
      return fflush(stdout) == 0 ? TIRX_OK : TIRX_ERR_IO;
    } else if (strcmp(a, "--version") == 0) {
      printf("tirxc %s\n", tirx_version());
      return fflush(stdout) == 0 ? TIRX_OK : TIRX_ERR_IO;
    } else if (strcmp(a, "--time") == 0) {
      o->time = 1;
    } else if (strncmp(a, "-o", 2) == 0) {
      const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v || !*v) return usage_error("option '-o' needs a file name");
      if (o->output) return usage_error("option '-o' given twice");
      o->output = v;
    } else if (strncmp(a, "--emit", 6) == 0 && (a[6] == '=' || a[6] == '\0')) {
      const char *v = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v) return usage_error("option '--emit' needs a value");
      if (strcmp(v, "tirx") != 0)
        return usage_error("unknown --emit kind '%s' (the only kind is 'tirx')", v);
    } else {
      return usage_error("unknown option '%s'", a);
    }
  }
  if (!o->input) return usage_error("no input file");
  return -1;
}

static int write_all(FILE *f, const char *data, size_t len) {
  return (len == 0 || fwrite(data, 1, len, f) == len) && fflush(f) == 0 && !ferror(f);
}

/* Write to path.tmp, then rename over path: readers never see a partial file. */
static int write_output(const char *path, const char *data, size_t len) {
  if (!path || strcmp(path, "-") == 0) {
    if (write_all(stdout, data, len)) return TIRX_OK;
    fprintf(stderr, "tirxc: error: cannot write to standard output: %s\n", strerror(errno));
    return TIRX_ERR_IO;
  }
  size_t n = strlen(path);
  char *tmp = malloc(n + 5);
  if (!tmp) {
    fputs("tirxc: error: out of memory\n", stderr);
    return TIRX_ERR_NOMEM;
  }
  memcpy(tmp, path, n);
  memcpy(tmp + n, ".tmp", 5);
  int ok = 0, err = 0;
  FILE *f = fopen(tmp, "wb");
  if (f) {
    ok = write_all(f, data, len);
    err = errno;
    if (fclose(f) != 0 && ok) ok = 0, err = errno;
    if (ok && rename(tmp, path) != 0) ok = 0, err = errno;
    if (!ok) remove(tmp);
  } else {
    err = errno;
  }
  if (!ok) fprintf(stderr, "tirxc: error: cannot write '%s': %s\n", path, strerror(err));
  free(tmp);
  return ok ? TIRX_OK : TIRX_ERR_IO;
}

static int compile(const options *o) {
  tirx_ctx *ctx = NULL;
  if (tirx_ctx_create(&ctx) != TIRX_OK) {
    fputs("tirxc: error: out of memory\n", stderr);
    return TIRX_ERR_NOMEM;
  }
  tirx_module *mod = NULL;
  tirx_status st = tirx_parse_file(ctx, o->input, &mod);
  tx_timings t;
  tx_ctx_last_timings(ctx, &t);
  /* Warnings are worth showing even when compiling succeeded. */
  tirx_diag_render_file(ctx, stderr);

  double print_ms = 0;
  char *text = NULL;
  size_t len = 0;
  if (st == TIRX_OK) {
    double t0 = tx_now_ms();
    st = tirx_module_print(mod, NULL, 0, &len);
    if (st == TIRX_ERR_TRUNCATED) {
      text = malloc(len + 1);
      st = text ? tirx_module_print(mod, text, len + 1, NULL) : TIRX_ERR_NOMEM;
    }
    print_ms = tx_now_ms() - t0;
    if (st != TIRX_OK)
      fprintf(stderr, "tirxc: error: printing failed: %s\n", tirx_status_name(st));
    else
      st = (tirx_status)write_output(o->output, text, len);
  }
  if (o->time)
    fprintf(stderr, "tirxc: read %.2f ms, parse %.2f ms, build %.2f ms, print %.2f ms\n",
            t.read_ms, t.parse_ms, t.build_ms, print_ms);
  free(text);
  tirx_ctx_destroy(ctx);
  return (int)st;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "golden") == 0) return tirxc_golden_main(argc - 1, argv + 1);
  options o = {0};
  int rc = parse_args(argc, argv, &o);
  if (rc >= 0) return rc;
  return compile(&o);
}
