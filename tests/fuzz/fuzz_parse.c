/*
 * fuzz_parse.c - libFuzzer target: the frontend and the printer.
 *
 * The input is TVMScript text. Whatever it is, parsing must end in a module
 * or in located errors (never an internal error, a crash or a leak), and
 * rendering the diagnostics must work. When it parses, the canonical print
 * must be a fixed point: the printed text re-parses, prints byte for byte
 * the same, and the two modules are structurally equal with equal hashes.
 * Must not accept anything weaker: each check is a property the README and
 * docs/text-format.md promise.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

static const char NAME[] = "fuzz.tirx";

/* The canonical text of m (malloc'ed, NUL-terminated); *len gets its length. */
static char *print_module(const tirx_module *m, size_t *len) {
  size_t need = 0;
  tirx_status st = tirx_module_print(m, NULL, 0, &need);
  FUZZ_CHECK(st == TIRX_OK || st == TIRX_ERR_TRUNCATED, "sizing the print: %s",
             tirx_status_name(st));
  char *text = malloc(need + 1);
  FUZZ_CHECK(text != NULL, "out of memory for %zu bytes", need + 1);
  st = tirx_module_print(m, text, need + 1, len);
  FUZZ_CHECK(st == TIRX_OK && *len == need, "print: %s, %zu bytes after %zu", tirx_status_name(st),
             *len, need);
  return text;
}

/* Render the diagnostics into a buffer; every error must say where it is. */
static void check_diagnostics(const tirx_ctx *ctx, tirx_status st) {
  size_t need = 0;
  tirx_status rs = tirx_diag_render(ctx, NULL, 0, &need);
  FUZZ_CHECK(rs == TIRX_OK || rs == TIRX_ERR_TRUNCATED, "render: %s", tirx_status_name(rs));
  char *text = malloc(need + 1);
  FUZZ_CHECK(text != NULL, "out of memory");
  FUZZ_CHECK(tirx_diag_render(ctx, text, need + 1, NULL) == TIRX_OK, "render into %zu bytes",
             need + 1);
  free(text);
  if (st == TIRX_ERR_INPUT)
    FUZZ_CHECK(tirx_diag_error_count(ctx) > 0, "TIRX_ERR_INPUT without an error diagnostic");
}

static void check_fixed_point(const tirx_module *m1, const char *text1, size_t len1) {
  tirx_ctx *ctx2 = NULL;
  FUZZ_CHECK(tirx_ctx_create(&ctx2) == TIRX_OK, "context");
  tirx_module *m2 = NULL;
  tirx_status st = tirx_parse_string(ctx2, NAME, text1, len1, &m2);
  if (st != TIRX_OK) {
    fprintf(stderr, "printed text:\n%.*s\n", (int)len1, text1);
    tirx_diag_render_file(ctx2, stderr);
  }
  FUZZ_CHECK(st == TIRX_OK, "the printed text does not re-parse (%s)", tirx_status_name(st));
  size_t len2 = 0;
  char *text2 = print_module(m2, &len2);
  if (len1 != len2 || memcmp(text1, text2, len1) != 0)
    fprintf(stderr, "first print:\n%.*s\nsecond print:\n%.*s\n", (int)len1, text1, (int)len2,
            text2);
  FUZZ_CHECK(len1 == len2 && memcmp(text1, text2, len1) == 0,
             "printing is not a fixed point (%zu vs %zu bytes)", len1, len2);
  FUZZ_CHECK(tirx_module_equal(m1, m2) == 1, "the re-parsed module is not structurally equal");
  FUZZ_CHECK(tirx_module_hash(m1) == tirx_module_hash(m2), "equal modules with different hashes");
  free(text2);
  tirx_ctx_destroy(ctx2);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tirx_ctx *ctx = NULL;
  FUZZ_CHECK(tirx_ctx_create(&ctx) == TIRX_OK, "context");
  tirx_module *m = NULL;
  tirx_status st = tirx_parse_string(ctx, NAME, (const char *)data, size, &m);
  FUZZ_CHECK(st == TIRX_OK || st == TIRX_ERR_INPUT, "parse returned %s", tirx_status_name(st));
  FUZZ_CHECK((st == TIRX_OK) == (m != NULL), "status %s with module %p", tirx_status_name(st),
             (void *)m);
  check_diagnostics(ctx, st);
  if (st == TIRX_OK) {
    size_t len = 0;
    char *text = print_module(m, &len);
    check_fixed_point(m, text, len);
    free(text);
  }
  tirx_ctx_destroy(ctx);
  return 0;
}
