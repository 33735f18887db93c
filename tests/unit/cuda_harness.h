/*
 * cuda_harness.h - the shared test harness of the CUDA codegen unit tests
 * (test_codegen and the test_ptx_* family tests): compile a TIRx text for a
 * target through split-host-device, lower-iket and CUDA codegen, keep the diagnostics
 * rendered as text, and check the CUDA for needles or the located error.
 *
 * Test support only (Criterion assertions): it must not hold state between
 * calls, so that each Criterion test stays independent.
 */
#ifndef TIRX_TESTS_CUDA_HARNESS_H
#define TIRX_TESTS_CUDA_HARNESS_H

#include <stddef.h>

#include "target/cuda/codegen.h"
#include "driver/context.h"

/* One text through the pipeline: the status of each stage (a later stage
 * stays 0 when an earlier one failed), the split module, the CUDA with its
 * line map, and every diagnostic rendered. */
typedef struct cuda_compiled {
  tirx_ctx *ctx;
  tirx_status parse, split, codegen;
  const tx_module *lowered;
  tx_strbuf cu;
  tx_line_map map;
  char diags[8192];
} cuda_compiled;

/* A test kernel: the file name diagnostics give and the source up to the
 * body (signature, launch threads, buffers); tests append statements. */
typedef struct cuda_kernel {
  const char *file;
  const char *head;
} cuda_kernel;

void cuda_compile_text(cuda_compiled *c, const tx_target *target, const char *file,
                       const char *text, size_t len);
/* `k->head` followed by `body`. */
void cuda_compile_body(cuda_compiled *c, const tx_target *target, const cuda_kernel *k,
                       const char *body);
void cuda_compiled_free(cuda_compiled *c);

/* The CUDA of a body that must compile; the caller frees it. */
char *cuda_text_of(const tx_target *target, const cuda_kernel *k, const char *body);

/* The body compiles and its CUDA contains every needle (NULL-terminated). */
void cuda_expect_text(const tx_target *target, const cuda_kernel *k, const char *body,
                      const char *const *needles);

/* The body parses but fails code generation with an error containing
 * `needle`, located in the kernel's file: at line `line`, or anywhere when
 * `line` is 0. */
void cuda_expect_error(const tx_target *target, const cuda_kernel *k, const char *body,
                       const char *needle, int line);

/* A copy of the line of `text` holding `needle` (which must be there); the
 * caller frees it. */
char *cuda_line_with(const char *text, const char *needle);

#endif
