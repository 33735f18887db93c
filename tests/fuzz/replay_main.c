/*
 * replay_main.c - a main() for the fuzz targets without libFuzzer, so that
 * any compiler can build them and ctest can run saved inputs (crash
 * reproducers in tests/fuzz/crashes/<target>/, seed corpora) through them
 * as regression tests, under whatever sanitizers the build has.
 *
 *   fuzz_replay_<target> [--ext=.tirx] FILE_OR_DIR...
 *
 * Directories are read recursively (files starting with '.' skipped);
 * --ext keeps only files whose names end with it. A broken invariant traps
 * inside the target, which fails the run. Prints how many inputs ran.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static const char *ext_filter;
static long replayed;

static int has_ext(const char *name) {
  if (!ext_filter) return 1;
  size_t n = strlen(name), e = strlen(ext_filter);
  return n >= e && strcmp(name + n - e, ext_filter) == 0;
}

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return 0;
  }
  size_t cap = 4096, len = 0;
  uint8_t *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
    len += got;
    if (len == cap) {
      uint8_t *bigger = realloc(buf, cap *= 2);
      if (!bigger) free(buf);
      buf = bigger;
    }
  }
  int ok = buf && !ferror(f);
  fclose(f);
  if (!ok) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    free(buf);
    return 0;
  }
  /* The input is announced first: a trap leaves it as the last line. */
  fprintf(stderr, "replay: %s\n", path);
  LLVMFuzzerTestOneInput(buf, len);
  free(buf);
  replayed++;
  return 1;
}

static int replay_path(const char *path, int top) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "replay: no such file or directory: %s\n", path);
    return 0;
  }
  if (!S_ISDIR(st.st_mode)) return top || has_ext(path) ? replay_file(path) : 1;
  DIR *d = opendir(path);
  if (!d) {
    fprintf(stderr, "replay: cannot list %s\n", path);
    return 0;
  }
  int ok = 1;
  struct dirent *e;
  char child[4096];
  while (ok && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    snprintf(child, sizeof child, "%s/%s", path, e->d_name);
    ok = replay_path(child, 0);
  }
  closedir(d);
  return ok;
}

int main(int argc, char **argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  int ok = 1;
  for (int i = 1; i < argc && ok; i++) {
    if (strncmp(argv[i], "--ext=", 6) == 0)
      ext_filter = argv[i] + 6;
    else
      ok = replay_path(argv[i], 1);
  }
  printf("replayed %ld inputs\n", replayed);
  return ok ? 0 : 1;
}
