/*
 * exe_format.c - the executable container (exe_format.h). Knows sections,
 * not what is in them: abi/launch_program.c reads the programs.
 */
#include "abi/exe_format.h"

#include <stdio.h>
#include <string.h>

#include "support/wire.h"

static const char MAGIC[8] = {'T', 'I', 'R', 'X', 'E', 'X', 'E', 0};
/* Tags 1 (arch) and 4 (PTX) were version 2's; they are not reused. */
enum { TAG_NAME = 2, TAG_OPTIONS = 6, TAG_PROGRAM = 7, TAG_IMAGE = 8 };

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

/* An image section: kind, the name's length with its NUL, the name, the code. */
static void put_image(tx_strbuf *o, const tx_exe_image *im) {
  size_t alen = strlen(im->arch) + 1;
  tx_wire_u32(o, TAG_IMAGE);
  tx_wire_u32(o, 0);
  tx_wire_u64(o, 8 + alen + im->len);
  tx_wire_u32(o, (uint32_t)im->code);
  tx_wire_u32(o, (uint32_t)alen);
  tx_sb_putn(o, im->arch, alen);
  tx_sb_putn(o, im->data ? im->data : "", im->len);
}

void tx_exe_parts_set_ptx(tx_exe_parts *p, const char *ptx, size_t len) {
  for (uint32_t i = 0; i < p->nimages; i++) {
    p->images[i].data = ptx;
    p->images[i].len = len;
  }
}

tirx_status tx_exe_serialize(const tx_exe_parts *p, tx_strbuf *out) {
  if (p->nimages == 0 || p->nimages > TX_ARCH_COUNT) return TIRX_ERR_USAGE;
  size_t start = out->len;
  tx_sb_putn(out, MAGIC, sizeof MAGIC);
  tx_wire_u32(out, TX_EXE_FORMAT_VERSION);
  tx_wire_u32(out, 3 + p->nimages);
  /* Names keep their NUL so that readers can use them in place. */
  put_section(out, TAG_NAME, p->name, strlen(p->name) + 1);
  put_section(out, TAG_OPTIONS, p->options, p->options_len);
  put_section(out, TAG_PROGRAM, p->program, p->program_len);
  for (uint32_t i = 0; i < p->nimages; i++)
    put_image(out, &p->images[i]);
  if (out->failed) return TIRX_ERR_NOMEM;
  tx_wire_u64(out, fnv64(out->data + start, out->len - start));
  return out->failed ? TIRX_ERR_NOMEM : TIRX_OK;
}

static tirx_status reject(char *why, size_t cap, const char *what) {
  snprintf(why, cap, "%s", what);
  return TIRX_ERR_INPUT;
}

/* Is d[0..n) a NUL-terminated string with no NUL before its end? */
static int is_name(const char *d, size_t n) {
  return n > 0 && !d[n - 1] && !memchr(d, 0, n - 1);
}

/* An image section into p; NULL, or why it is malformed. */
static const char *take_image(tx_exe_parts *p, const char *d, size_t n) {
  tx_wire_reader r = {(const unsigned char *)d, (const unsigned char *)d + n, 0};
  uint32_t code = tx_wire_get_u32(&r), alen = tx_wire_get_u32(&r);
  if (r.bad || alen > (uint64_t)(r.end - r.p) || !is_name((const char *)r.p, alen))
    return "truncated or malformed executable (a device-code image)";
  if (code != TX_EXE_CODE_PTX) return "device code of an unknown kind (this libtirx reads PTX)";
  const char *arch = (const char *)tx_wire_take(&r, alen);
  for (uint32_t i = 0; i < p->nimages; i++)
    if (strcmp(p->images[i].arch, arch) == 0) return "two device-code images for one architecture";
  if (p->nimages == TX_ARCH_COUNT) return "more device-code images than architectures";
  p->images[p->nimages++] =
      (tx_exe_image){arch, (tx_exe_code)code, (const char *)r.p, (size_t)(r.end - r.p)};
  return NULL;
}

/* One section into p; NULL, or why its contents are malformed. */
static const char *take_section(tx_exe_parts *p, uint32_t tag, const char *d, size_t n) {
  switch (tag) {
  case TAG_NAME:
    if (!is_name(d, n)) return "truncated or malformed executable (its name)";
    p->name = d;
    return NULL;
  case TAG_OPTIONS:
    p->options = d, p->options_len = n;
    return NULL;
  case TAG_PROGRAM:
    p->program = d, p->program_len = n;
    return NULL;
  case TAG_IMAGE:
    return take_image(p, d, n);
  default:
    return NULL; /* an unknown section of this version: skipped */
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
    if (!d) return reject(why, cap, "truncated or malformed executable");
    const char *bad = take_section(p, tag, (const char *)d, (size_t)n);
    if (bad) return reject(why, cap, bad);
  }
  if (!p->nimages || !p->name || !p->program)
    return reject(why, cap, "truncated or malformed executable (a section is missing)");
  return TIRX_OK;
}
