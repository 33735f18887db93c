/*
 * exe_format.h - the executable file: what tirx_executable_save writes, the
 * disk cache stores and libtirx_rt loads.
 *
 *   "TIRXEXE\0", u32 format version, u32 section count,
 *   per section: u32 tag, u32 0, u64 length, the bytes;
 *   u64 FNV-1a-64 of everything before it.
 *
 * Sections: the module's name, the compile options (text, informative), the
 * launch programs (abi/launch_program.h) and one device-code image per
 * architecture it was compiled for (u32 code kind, u32 length of the
 * architecture's name with its NUL, the name, then the code: PTX text, empty
 * for a host-only compile), the first the one asked for first. Little-
 * endian, the byte order of every CUDA host. Unknown sections of this
 * version are skipped; another version, a bad checksum, a section running
 * past the end, an image of an unknown kind or a second image for one
 * architecture is rejected with the reason. Version 1 held the lowered
 * TVMScript, which the runtime re-parsed; version 2 held PTX for one
 * architecture.
 */
#ifndef TIRX_ABI_EXE_FORMAT_H
#define TIRX_ABI_EXE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "abi/arch.h"
#include "support/strbuf.h"
#include "tirx/tirx.h"

enum { TX_EXE_FORMAT_VERSION = 3 };

/* What an image's code is. Only PTX is written and read today; the kind is
 * in the file so that cubins can join without a new version. */
typedef enum tx_exe_code { TX_EXE_CODE_PTX = 0 } tx_exe_code;

/* The device code for one architecture; the strings point into the bytes. */
typedef struct tx_exe_image {
  const char *arch; /* NUL-terminated */
  tx_exe_code code;
  const char *data; /* PTX text without a NUL; len 0 for host-only */
  size_t len;
} tx_exe_image;

/* An executable's sections; the strings point into the bytes read. */
typedef struct tx_exe_parts {
  const char *name;    /* NUL-terminated */
  const char *options; /* "arch=sm_90a opt_level=2 ..." */
  size_t options_len;
  const char *program; /* tx_lp_write's bytes */
  size_t program_len;
  tx_exe_image images[TX_ARCH_COUNT]; /* at least one, distinct architectures */
  uint32_t nimages;
} tx_exe_parts;

/* Give every image of p the code ptx[0..len) (tests and tools that put a
 * stand-in PTX into a compiled executable). */
void tx_exe_parts_set_ptx(tx_exe_parts *p, const char *ptx, size_t len);

/* Append the container of p to out; TIRX_ERR_NOMEM when out ran out. */
tirx_status tx_exe_serialize(const tx_exe_parts *p, tx_strbuf *out);
/* The parts of data[0..len), pointing into data. TIRX_ERR_INPUT with the
 * reason in why for anything that is not a whole container of this version
 * with a name, a program and at least one image. */
tirx_status tx_exe_deserialize(const char *data, size_t len, tx_exe_parts *p, char *why,
                               size_t cap);

/* Mark an executable as found in a compile cache (tirx_executable_from_cache).
 * Implemented by the runtime (runtime/executable.c), called by the compile
 * API's cache lookups (driver/api_compile.c): the handoff between the two
 * halves of the public API. */
void tx_executable_mark_from_cache(tirx_executable *exe);

#endif
