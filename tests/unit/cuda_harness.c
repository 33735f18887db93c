/*
 * cuda_harness.c - compile TIRx texts through split-host-device, lower-iket
 * (the passes after it that the device code needs) and CUDA codegen for the
 * codegen unit tests, and the checks they share (needles in
 * the CUDA, located codegen errors). See cuda_harness.h.
 *
 * It only reports through Criterion assertions; it must not print, and it
 * keeps no state between calls.
 */
#include "cuda_harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/pass.h"

void cuda_compile_text(cuda_compiled *c, const tx_target *target, const char *file,
                       const char *text, size_t len) {
  memset(c, 0, sizeof *c);
  cr_assert_eq(tirx_ctx_create(&c->ctx), TIRX_OK);
  tirx_module *m = NULL;
  c->parse = tirx_parse_string(c->ctx, file, text, len, &m);
  if (c->parse == TIRX_OK) {
    tx_pass_ctx pc = {.ir = &c->ctx->ir, .diags = c->ctx->diags, .target = target};
    const tx_module *split = NULL;
    c->split = tx_pass_split_host_device(&pc, m->mod, &split);
    if (c->split == TIRX_OK) c->split = tx_pass_lower_iket(&pc, split, &c->lowered);
    if (c->split == TIRX_OK)
      c->codegen = tx_codegen_cuda(c->ctx->diags, c->lowered, target, &c->cu, &c->map);
  }
  size_t need = 0;
  tirx_diag_render(c->ctx, c->diags, sizeof c->diags, &need);
}

void cuda_compile_body(cuda_compiled *c, const tx_target *target, const cuda_kernel *k,
                       const char *body) {
  size_t len = strlen(k->head) + strlen(body);
  char *src = malloc(len + 1);
  cr_assert(src);
  memcpy(src, k->head, strlen(k->head));
  memcpy(src + strlen(k->head), body, strlen(body) + 1);
  cuda_compile_text(c, target, k->file, src, len);
  free(src);
}

void cuda_compiled_free(cuda_compiled *c) {
  tx_sb_free(&c->cu);
  tx_line_map_free(&c->map);
  tirx_ctx_destroy(c->ctx);
}

char *cuda_text_of(const tx_target *target, const cuda_kernel *k, const char *body) {
  cuda_compiled c;
  cuda_compile_body(&c, target, k, body);
  cr_assert_eq(c.parse, TIRX_OK, "%s\n%s", body, c.diags);
  cr_assert_eq(c.codegen, TIRX_OK, "%s\n%s", body, c.diags);
  char *out = strdup(c.cu.data);
  cuda_compiled_free(&c);
  cr_assert(out);
  return out;
}

void cuda_expect_text(const tx_target *target, const cuda_kernel *k, const char *body,
                      const char *const *needles) {
  char *cu = cuda_text_of(target, k, body);
  for (const char *const *n = needles; *n; n++)
    cr_expect(strstr(cu, *n), "%s\nexpected\n  %s\nin:\n%s", body, *n, cu);
  free(cu);
}

void cuda_expect_error(const tx_target *target, const cuda_kernel *k, const char *body,
                       const char *needle, int line) {
  cuda_compiled c;
  cuda_compile_body(&c, target, k, body);
  cr_assert_eq(c.parse, TIRX_OK, "%s\n%s", body, c.diags);
  cr_expect_eq(c.codegen, TIRX_ERR_INPUT, "%s\nexpected an error, got:\n%s\n%s", body, c.diags,
               c.cu.data ? c.cu.data : "");
  cr_expect(strstr(c.diags, needle), "%s\nexpected '%s' in:\n%s", body, needle, c.diags);
  char loc[256];
  if (line > 0)
    snprintf(loc, sizeof loc, "%s:%d:", k->file, line);
  else
    snprintf(loc, sizeof loc, "%s:", k->file);
  cr_expect(strstr(c.diags, loc), "%s\nerror is not located at %s:\n%s", body, loc, c.diags);
  cuda_compiled_free(&c);
}

char *cuda_line_with(const char *text, const char *needle) {
  const char *p = strstr(text, needle);
  cr_assert(p, "no '%s' in:\n%s", needle, text);
  while (p > text && p[-1] != '\n')
    p--;
  size_t n = strcspn(p, "\n");
  char *s = malloc(n + 1);
  cr_assert(s);
  memcpy(s, p, n);
  s[n] = 0;
  return s;
}
