/*
 * test_determinism.c - the same input gives byte-identical lowered IR and
 * CUDA across runs and threads (users keep these outputs as golden files).
 *
 * Two threads, each with its own context, compile every kernel of
 * tests/golden/lowering many times; every result must equal the first.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/context.h"
#include "driver/compile.h"

enum { MAX_KERNELS = 64, ROUNDS = 10 };

typedef struct corpus {
  char *names[MAX_KERNELS];
  char *texts[MAX_KERNELS];
  size_t count;
} corpus;

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_corpus(corpus *c) {
  const char *dir = TIRX_SOURCE_DIR "/tests/golden/lowering";
  DIR *d = opendir(dir);
  cr_assert(d, "cannot open %s", dir);
  struct dirent *e;
  while ((e = readdir(d)) && c->count < MAX_KERNELS) {
    size_t n = strlen(e->d_name);
    if (n < 6 || strcmp(e->d_name + n - 5, ".tirx") != 0 || strstr(e->d_name, ".expected."))
      continue;
    c->names[c->count++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(c->names, c->count, sizeof *c->names, by_name);
  for (size_t i = 0; i < c->count; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, c->names[i]);
    tx_strbuf file = {0};
    c->texts[i] = tx_sb_read_file(&file, path) ? NULL : file.data;
    if (!c->texts[i]) tx_sb_free(&file);
    cr_assert(c->texts[i], "cannot read %s", path);
  }
  cr_assert_gt(c->count, 5, "expected the doc kernels in %s", dir);
}

static void free_corpus(corpus *c) {
  for (size_t i = 0; i < c->count; i++) {
    free(c->names[i]);
    free(c->texts[i]);
  }
}

/* Lowered IR followed by CUDA for one kernel, in a fresh context. */
static char *compile_both(const char *name, const char *text) {
  tirx_ctx *ctx = NULL;
  tirx_module *m = NULL;
  if (tirx_ctx_create(&ctx) != TIRX_OK) return NULL;
  tx_strbuf out = {0};
  int ok = tirx_parse_string(ctx, name, text, strlen(text), &m) == TIRX_OK;
  tx_emit_kind kinds[2] = {TX_EMIT_LOWERED, TX_EMIT_CUDA};
  for (int k = 0; ok && k < 2; k++) {
    tx_compile_request req;
    tx_compile_request_init(&req);
    req.emit = kinds[k];
    ok = tx_compile_module(ctx, m->mod, &req, NULL, &out) == TIRX_OK;
  }
  tirx_ctx_destroy(ctx);
  if (!ok || !tx_sb_cstr(&out)) {
    tx_sb_free(&out);
    return NULL;
  }
  return out.data;
}

typedef struct job {
  const corpus *c;
  char **first; /* the reference outputs, from the main thread */
  int mismatches;
} job;

static void *worker(void *arg) {
  job *j = arg;
  for (int round = 0; round < ROUNDS; round++)
    for (size_t i = 0; i < j->c->count; i++) {
      char *out = compile_both(j->c->names[i], j->c->texts[i]);
      if (!out || strcmp(out, j->first[i]) != 0) j->mismatches++;
      free(out);
    }
  return NULL;
}

Test(determinism, same_output_across_runs_and_threads) {
  corpus c = {0};
  load_corpus(&c);
  char *first[MAX_KERNELS] = {0};
  for (size_t i = 0; i < c.count; i++) {
    first[i] = compile_both(c.names[i], c.texts[i]);
    cr_assert(first[i], "%s does not compile", c.names[i]);
  }
  job jobs[2] = {{&c, first, 0}, {&c, first, 0}};
  pthread_t t[2];
  for (int k = 0; k < 2; k++)
    cr_assert_eq(pthread_create(&t[k], NULL, worker, &jobs[k]), 0);
  for (int k = 0; k < 2; k++)
    pthread_join(t[k], NULL);
  cr_expect_eq(jobs[0].mismatches, 0, "thread 0: %d outputs differed", jobs[0].mismatches);
  cr_expect_eq(jobs[1].mismatches, 0, "thread 1: %d outputs differed", jobs[1].mismatches);
  for (size_t i = 0; i < c.count; i++)
    free(first[i]);
  free_corpus(&c);
}
