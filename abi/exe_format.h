/*
 * exe_format.h - the executable file: what tirx_executable_save writes, the
 * disk cache stores and libtirx_rt loads.
 *
 *   "TIRXEXE\0", u32 format version, u32 section count,
 *   per section: u32 tag, u32 0, u64 length, the bytes;
 *   u64 FNV-1a-64 of everything before it.
 *
 * Sections: the architecture the device code is for, the module's name,
 * the compile options (text, informative), the launch programs
 * (abi/launch_program.h) and the device code (PTX text; empty for a
 * host-only compile). Little-endian, the byte order of every CUDA host.
 * Unknown sections of this version are skipped; another version, a bad
 * checksum or a section running past the end is rejected with the reason.
 * Version 1 held the lowered TVMScript, which the runtime re-parsed.
 */
#ifndef TIRX_ABI_EXE_FORMAT_H
#define TIRX_ABI_EXE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "support/strbuf.h"
#include "tirx/tirx.h"

enum { TX_EXE_FORMAT_VERSION = 2 };

/* An executable's sections; the strings point into the bytes read. */
typedef struct tx_exe_parts {
  const char *arch, *name; /* NUL-terminated */
  const char *options;     /* "opt_level=2 ..." */
  size_t options_len;
  const char *program; /* tx_lp_write's bytes */
  size_t program_len;
  const char *ptx;
  size_t ptx_len;
} tx_exe_parts;

/* Append the container of p to out; TIRX_ERR_NOMEM when out ran out. */
tirx_status tx_exe_serialize(const tx_exe_parts *p, tx_strbuf *out);
/* The parts of data[0..len), pointing into data. TIRX_ERR_INPUT with the
 * reason in why for anything that is not a whole container of this version
 * with an arch, a name and a program. */
tirx_status tx_exe_deserialize(const char *data, size_t len, tx_exe_parts *p, char *why,
                               size_t cap);

/* Mark an executable as found in a compile cache (tirx_executable_from_cache).
 * Implemented by the runtime (runtime/executable.c), called by the compile
 * API's cache lookups (driver/api_compile.c): the handoff between the two
 * halves of the public API. */
void tx_executable_mark_from_cache(tirx_executable *exe);

#endif
