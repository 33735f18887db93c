/*
 * c_launcher.h - ahead-of-time launchers: from a lowered module and its
 * compiled device image (PTX or a cubin) to a self-contained C source and
 * header (`tirxc --emit=c-launcher`, docs/aot.md).
 *
 * The generated code needs no tirx-c header or library: it declares the
 * slice of the CUDA driver API it uses, dlopens libcuda.so.1 on first use,
 * and implements each host function's packed-API prologue (the
 * make-packed-api asserts and binds) as straight-line C over DLTensor
 * arguments before launching the kernel with cuLaunchKernelEx.
 */
#ifndef TIRX_TARGET_CUDA_C_LAUNCHER_H
#define TIRX_TARGET_CUDA_C_LAUNCHER_H

#include <stddef.h>

#include "ir/diag.h"
#include "ir/ir.h"
#include "support/strbuf.h"

typedef struct tx_c_launcher_options {
  /* A C identifier: <prefix>_init, <prefix>_shutdown and the header guard. */
  const char *prefix;
  /* What the .c writes in `#include "..."` (the header's file name). */
  const char *header_name;
  const char *source_name; /* the TIRx input, for the comments; may be NULL */
  const char *arch;        /* the architecture the image was compiled for */
  int image_is_cubin;      /* 0: NUL-free PTX text; 1: cubin bytes */
} tx_c_launcher_options;

/* Is `name` usable as the prefix (a C identifier that is not a keyword)? */
int tx_c_launcher_valid_prefix(const char *name);

/* Append the launcher's source to `src` and its header to `hdr`. Host
 * functions are the public functions with "tirx.packed_api"; each must end
 * in one T.call_packed of a kernel of the module. Anything the generator
 * cannot translate (a host statement other than asserts, binds and the
 * launch; a scalar type without a C equivalent) is a located error.
 * Returns TIRX_OK, TIRX_ERR_INPUT after diagnostics, TIRX_ERR_USAGE for bad
 * options, or TIRX_ERR_NOMEM. */
tirx_status tx_codegen_c_launcher(tx_diag_sink *diags, const tx_module *lowered, const void *image,
                                  size_t image_len, const tx_c_launcher_options *opts,
                                  tx_strbuf *src, tx_strbuf *hdr);

#endif
