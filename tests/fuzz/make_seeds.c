/*
 * make_seeds.c - seed corpora for fuzz_exe and fuzz_cache, made at fuzz
 * time from kernels in the tree (no NVRTC: host_only compiles).
 *
 *   make_seeds OUT_DIR KERNEL.tirx...
 *
 * For each kernel that compiles: OUT_DIR/exe/NAME.host.tirxexe (saved as
 * compiled), OUT_DIR/exe/NAME.ptx.tirxexe (the same with a stand-in PTX,
 * so that loading it on the fake driver resolves kernels and launches),
 * both again in the parts form of fuzz_container (NAME.host.parts,
 * NAME.ptx.parts), and its disk-cache entry in OUT_DIR/cache/. Kernels that do not compile
 * (tile primitives, error goldens) are skipped with a note. Exits 1 when
 * no seed was written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "abi/exe_format.h"
#include "support/file.h"
#include "tirx/tirx.h"

static const char STAND_IN_PTX[] = "// stand-in PTX: the fake CUDA driver accepts any image\n";

static int make_dir(const char *path) {
  if (mkdir(path, 0755) == 0 || errno == EEXIST) return 1;
  fprintf(stderr, "make_seeds: cannot create %s: %s\n", path, strerror(errno));
  return 0;
}

/* "a/examples/scale.tirx" -> "examples-scale": kernels of the same name in
 * two directories make two seeds. */
static void seed_name(const char *path, char *out, size_t cap) {
  const char *b = strrchr(path, '/');
  const char *dir = path;
  size_t dir_len = 0;
  if (b) {
    const char *d = b;
    while (d > path && d[-1] != '/')
      d--;
    dir = d;
    dir_len = (size_t)(b - d);
    b++;
  } else {
    b = path;
  }
  size_t n = strcspn(b, ".");
  snprintf(out, cap, "%.*s%s%.*s", (int)dir_len, dir, dir_len ? "-" : "", (int)n, b);
}

static int write_bytes(const char *path, const tx_strbuf *b) {
  FILE *f = b->failed ? NULL : fopen(path, "wb");
  int ok = f && fwrite(b->data, 1, b->len, f) == b->len;
  if (f) ok = fclose(f) == 0 && ok;
  return ok;
}

/* The parts form of fuzz_container (fuzz_common.h): ARCH NAME OPTIONS PTX
 * separated by NULs, then the launch programs (binary) to the end. */
static void put_parts(const tx_exe_parts *p, tx_strbuf *out) {
  tx_sb_putn(out, p->images[0].arch, strlen(p->images[0].arch) + 1);
  tx_sb_putn(out, p->name, strlen(p->name) + 1);
  tx_sb_putn(out, p->options ? p->options : "", p->options_len);
  tx_sb_putc(out, 0);
  tx_sb_putn(out, p->images[0].data ? p->images[0].data : "", p->images[0].len);
  tx_sb_putc(out, 0);
  tx_sb_putn(out, p->program, p->program_len);
}

/* From the saved file `path` (STEM.host.tirxexe): STEM.ptx.tirxexe, the
 * same with STAND_IN_PTX as its PTX, and both in the parts form
 * (STEM.host.parts, STEM.ptx.parts). */
static int write_variants(const char *path, const char *stem) {
  char *data = NULL;
  size_t len = 0;
  if (tx_read_file(NULL, path, &data, &len) != 0) return 0;
  tx_exe_parts p;
  char why[256], to[4200];
  int ok = tx_exe_deserialize(data, len, &p, why, sizeof why) == TIRX_OK;
  for (int with_ptx = 0; ok && with_ptx < 2; with_ptx++) {
    if (with_ptx) {
      tx_exe_parts_set_ptx(&p, STAND_IN_PTX, sizeof STAND_IN_PTX - 1);
      tx_strbuf container = {0};
      ok = tx_exe_serialize(&p, &container) == TIRX_OK;
      snprintf(to, sizeof to, "%s.ptx.tirxexe", stem);
      ok = ok && write_bytes(to, &container);
      tx_sb_free(&container);
    }
    tx_strbuf parts = {0};
    put_parts(&p, &parts);
    snprintf(to, sizeof to, "%s.%s.parts", stem, with_ptx ? "ptx" : "host");
    ok = ok && write_bytes(to, &parts);
    tx_sb_free(&parts);
  }
  free(data);
  return ok;
}

static int seed_from(const char *kernel, const char *out_dir, const char *cache_dir) {
  char *text = NULL;
  size_t len = 0;
  if (tx_read_file(NULL, kernel, &text, &len) != 0) {
    fprintf(stderr, "make_seeds: cannot read %s\n", kernel);
    return 0;
  }
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.host_only = 1;
  o.disk_cache = 1;
  o.cache_dir = cache_dir;
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  /* Named as a build would name it: the file name without its directory
   * (what the source map records). */
  const char *slash = strrchr(kernel, '/');
  tirx_status st = tirx_compile(slash ? slash + 1 : kernel, text, len, &o, &exe, &err);
  free(text);
  if (st != TIRX_OK) {
    fprintf(stderr, "make_seeds: skipped %s (%s)\n", kernel, err.message);
    return 0;
  }
  char base[256], stem[4096], host[4200];
  seed_name(kernel, base, sizeof base);
  snprintf(stem, sizeof stem, "%s/exe/%s", out_dir, base);
  snprintf(host, sizeof host, "%s.host.tirxexe", stem);
  int ok = tirx_executable_save(exe, host, &err) == TIRX_OK && write_variants(host, stem);
  if (!ok) fprintf(stderr, "make_seeds: cannot write the seeds of %s\n", stem);
  tirx_executable_free(exe);
  return ok;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fputs("usage: make_seeds OUT_DIR KERNEL.tirx...\n", stderr);
    return 2;
  }
  char exe_dir[4096], cache_dir[4096];
  snprintf(exe_dir, sizeof exe_dir, "%s/exe", argv[1]);
  snprintf(cache_dir, sizeof cache_dir, "%s/cache", argv[1]);
  if (!make_dir(argv[1]) || !make_dir(exe_dir) || !make_dir(cache_dir)) return 1;
  int made = 0;
  for (int i = 2; i < argc; i++)
    made += seed_from(argv[i], argv[1], cache_dir);
  printf("make_seeds: %d kernels -> %s/exe, %s\n", made, argv[1], cache_dir);
  return made > 0 ? 0 : 1;
}
