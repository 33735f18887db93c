/*
 * exe_format.c - the executable container (exe_format.h). Knows sections,
 * not what is in them: abi/launch_program.c reads the programs.
 */
#include "abi/exe_format.h"

#include <stdio.h>
#include <string.h>

#include "support/wire.h"

static const char MAGIC[8] = {'T', 'I', 'R', 'X', 'E', 'X', 'E', 0};
enum { TAG_ARCH = 1, TAG_NAME = 2, TAG_PTX = 4, TAG_OPTIONS = 6, TAG_PROGRAM = 7 };
enum { NSECTIONS = 5 };

static uint64_t fnv64(const char *p, size_t n) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)p[i]) * UINT64_C(0x100000001b3);
  return h;
}

static void put_section(tx_strbuf *o, uint32_t tag, const char *d, size_t n) {
  tx_wire_u32(o, tag);
  tx_wire_u32(o, 0);
  tx_wire_u64(o, n);
  tx_sb_putn(o, d ? d : "", n);
}

tirx_status tx_exe_serialize(const tx_exe_parts *p, tx_strbuf *out) {
  size_t start = out->len;
  tx_sb_putn(out, MAGIC, sizeof MAGIC);
  tx_wire_u32(out, TX_EXE_FORMAT_VERSION);
  tx_wire_u32(out, NSECTIONS);
  /* Names keep their NUL so that readers can use them in place. */
  put_section(out, TAG_ARCH, p->arch, strlen(p->arch) + 1);
  put_section(out, TAG_NAME, p->name, strlen(p->name) + 1);
  put_section(out, TAG_OPTIONS, p->options, p->options_len);
  put_section(out, TAG_PROGRAM, p->program, p->program_len);
  put_section(out, TAG_PTX, p->ptx, p->ptx_len);
  if (out->failed) return TIRX_ERR_NOMEM;
  tx_wire_u64(out, fnv64(out->data + start, out->len - start));
  return out->failed ? TIRX_ERR_NOMEM : TIRX_OK;
}

static tirx_status reject(char *why, size_t cap, const char *what) {
  snprintf(why, cap, "%s", what);
  return TIRX_ERR_INPUT;
}

/* One section into p; 0 when its contents are malformed. */
static int take_section(tx_exe_parts *p, uint32_t tag, const char *d, size_t n) {
  switch (tag) {
  case TAG_ARCH:
  case TAG_NAME:
    if (n == 0 || d[n - 1] || memchr(d, 0, n - 1)) return 0;
    if (tag == TAG_ARCH)
      p->arch = d;
    else
      p->name = d;
    return 1;
  case TAG_OPTIONS:
    p->options = d, p->options_len = n;
    return 1;
  case TAG_PROGRAM:
    p->program = d, p->program_len = n;
    return 1;
  case TAG_PTX:
    p->ptx = d, p->ptx_len = n;
    return 1;
  default:
    return 1; /* an unknown section of this version: skipped */
  }
}

tirx_status tx_exe_deserialize(const char *data, size_t len, tx_exe_parts *p, char *why,
                               size_t cap) {
  memset(p, 0, sizeof *p);
  if (len < 24 || memcmp(data, MAGIC, sizeof MAGIC) != 0)
    return reject(why, cap, "not a tirx executable (bad magic)");
  tx_wire_reader r = {(const unsigned char *)data + 8, (const unsigned char *)data + len - 8, 0};
  uint32_t version = tx_wire_get_u32(&r), count = tx_wire_get_u32(&r);
  if (version != TX_EXE_FORMAT_VERSION) {
    snprintf(why, cap, "executable format version %u, this libtirx reads version %u; recompile",
             version, (unsigned)TX_EXE_FORMAT_VERSION);
    return TIRX_ERR_INPUT;
  }
  uint64_t sum;
  memcpy(&sum, data + len - 8, 8);
  if (fnv64(data, len - 8) != sum)
    return reject(why, cap, "checksum mismatch (the file is damaged or truncated)");
  for (uint32_t i = 0; i < count; i++) {
    uint32_t tag = tx_wire_get_u32(&r);
    (void)tx_wire_get_u32(&r);
    uint64_t n = tx_wire_get_u64(&r);
    const unsigned char *d = r.bad || n > (uint64_t)(r.end - r.p) ? NULL : tx_wire_take(&r, n);
    if (!d || !take_section(p, tag, (const char *)d, (size_t)n))
      return reject(why, cap, "truncated or malformed executable");
  }
  if (!p->arch || !p->name || !p->program)
    return reject(why, cap, "truncated or malformed executable (a section is missing)");
  return TIRX_OK;
}
