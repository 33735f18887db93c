/*
 * fuzz_common.c - helpers shared by the fuzz targets (fuzz_common.h).
 * Must not hide a failure of the library: anything unexpected is a
 * FUZZ_CHECK, never a silent return.
 */
#include "fuzz_common.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi/exe_format.h"
#include "support/file.h"

void fuzz_fix_checksum(uint8_t *data, size_t size) {
  if (size < FUZZ_EXE_MIN_LEN) return;
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < size - 8; i++)
    h = (h ^ data[i]) * UINT64_C(0x100000001b3);
  memcpy(data + size - 8, &h, 8); /* little-endian, like the writer */
}

static const char MAGIC[8] = {'T', 'I', 'R', 'X', 'E', 'X', 'E', 0};

/* The next NUL-separated part of [*p, end): its start and length. */
static const char *next_part(const char **p, const char *end, size_t *n) {
  const char *s = *p;
  const char *nul = s < end ? memchr(s, 0, (size_t)(end - s)) : NULL;
  *n = (size_t)((nul ? nul : end) - s);
  *p = nul ? nul + 1 : end;
  return s;
}

uint8_t *fuzz_container(const uint8_t *data, size_t size, size_t *len) {
  if (size >= sizeof MAGIC && memcmp(data, MAGIC, sizeof MAGIC) == 0) {
    uint8_t *copy = malloc(size);
    FUZZ_CHECK(copy != NULL, "out of memory");
    memcpy(copy, data, size);
    fuzz_fix_checksum(copy, size);
    *len = size;
    return copy;
  }
  const char *p = (const char *)data, *end = p + size;
  size_t n_arch, n_name;
  const char *arch = next_part(&p, end, &n_arch), *name = next_part(&p, end, &n_name);
  char arch_z[64], name_z[256]; /* the container's names are NUL-terminated */
  snprintf(arch_z, sizeof arch_z, "%.*s", (int)n_arch, arch);
  snprintf(name_z, sizeof name_z, "%.*s", (int)n_name, name);
  tx_exe_parts parts = {.name = name_z, .nimages = 1};
  parts.options = next_part(&p, end, &parts.options_len);
  parts.images[0].arch = arch_z;
  parts.images[0].data = next_part(&p, end, &parts.images[0].len);
  parts.program = p; /* binary, with NULs inside: the rest */
  parts.program_len = (size_t)(end - p);
  tx_strbuf out = {0};
  FUZZ_CHECK(tx_exe_serialize(&parts, &out) == TIRX_OK, "serialize");
  *len = out.len;
  return (uint8_t *)out.data;
}

/* ---- scratch directories ------------------------------------------------------- */

enum { MAX_SCRATCH = 4 };
static char scratch[MAX_SCRATCH][512];
static int nscratch;

static void remove_scratch(void) {
  for (int i = 0; i < nscratch; i++) {
    DIR *d = opendir(scratch[i]);
    if (d) {
      struct dirent *e;
      char path[1024];
      while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        int n = snprintf(path, sizeof path, "%s/%s", scratch[i], e->d_name);
        if (n > 0 && (size_t)n < sizeof path) unlink(path);
      }
      closedir(d);
    }
    rmdir(scratch[i]);
  }
  nscratch = 0;
}

int fuzz_scratch_dir(const char *tag, char *out, size_t cap) {
  if (nscratch == MAX_SCRATCH) return 0;
  const char *base = getenv("TMPDIR");
  struct stat st;
  if (!base || !base[0])
    base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
  char *slot = scratch[nscratch];
  int n = snprintf(slot, sizeof scratch[0], "%s/tirx-fuzz-%s-XXXXXX", base, tag);
  if (n <= 0 || (size_t)n >= sizeof scratch[0] || !mkdtemp(slot)) return 0;
  if (nscratch++ == 0) atexit(remove_scratch);
  n = snprintf(out, cap, "%s", slot);
  return n > 0 && (size_t)n < cap;
}

int fuzz_write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  int ok = size == 0 || fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

/* ---- the fake driver and calls --------------------------------------------------- */

tirx_runtime *fuzz_fake_runtime(void) {
#ifdef FAKE_CUDA_PATH
  static tirx_runtime *rt;
  static int tried;
  if (!tried) {
    tried = 1;
    tirx_error err = {0};
    if (tirx_runtime_open_with(FAKE_CUDA_PATH, 0, &rt, &err) != TIRX_OK) {
      fprintf(stderr, "fuzz: no fake CUDA driver (%s): functions are not called\n", err.message);
      rt = NULL;
    }
  }
  return rt;
#else
  return NULL;
#endif
}

enum { MAX_ARGS = 32, MAX_DIMS = 8, SYMBOLIC_EXTENT = 4 };

/* Stands in for device memory: aligned for any buffer's align=, never read. */
static _Alignas(4096) unsigned char device_memory[1 << 16];

typedef struct call_args {
  tirx_arg args[MAX_ARGS];
  DLTensor tensors[MAX_ARGS];
  int64_t shapes[MAX_ARGS][MAX_DIMS];
} call_args;

/* Arguments as function `name`'s parameters describe them; every symbolic
 * dimension gets SYMBOLIC_EXTENT, so that dimensions naming the same
 * variable agree. Returns the number of parameters, or -1 for too many. */
static long build_args(const tirx_executable *exe, const char *name, call_args *c) {
  size_t n = tirx_executable_param_count(exe, name);
  if (n > MAX_ARGS) return -1;
  memset(c->args, 0, sizeof c->args);
  for (size_t i = 0; i < n; i++) {
    tirx_param_info pi;
    FUZZ_CHECK(tirx_executable_param(exe, name, i, &pi) == TIRX_OK, "%s: parameter %zu of %zu",
               name, i, n);
    FUZZ_CHECK(pi.name != NULL, "%s: parameter %zu has no name", name, i);
    FUZZ_CHECK(pi.ndim >= 0 && pi.ndim <= MAX_DIMS, "%s: ndim %d", name, (int)pi.ndim);
    tirx_arg *a = &c->args[i];
    a->kind = (tirx_arg_kind)pi.kind;
    switch ((tirx_arg_kind)pi.kind) {
    case TIRX_ARG_INT:
      a->v.i = SYMBOLIC_EXTENT;
      break;
    case TIRX_ARG_FLOAT:
      a->v.f = 1.0;
      break;
    case TIRX_ARG_HANDLE:
      a->v.handle = device_memory;
      break;
    case TIRX_ARG_TENSOR: {
      DLTensor *t = &c->tensors[i];
      memset(t, 0, sizeof *t);
      for (int32_t d = 0; d < pi.ndim; d++)
        c->shapes[i][d] = pi.shape[d] >= 0 ? pi.shape[d] : SYMBOLIC_EXTENT;
      t->data = device_memory;
      t->device = (DLDevice){kDLCUDA, 0};
      t->ndim = pi.ndim;
      t->dtype = pi.dtype;
      t->shape = c->shapes[i];
      a->v.tensor = t;
      break;
    }
    }
  }
  return (long)n;
}

static void call_function(const tirx_executable *exe, tirx_loaded *lm, const char *name) {
  tirx_function *fn = NULL;
  tirx_error err = {0};
  if (tirx_loaded_function(lm, name, &fn, &err) != TIRX_OK) {
    FUZZ_CHECK(fn == NULL && err.message[0], "%s: a failed lookup without a message", name);
    return;
  }
  call_args c;
  long n = build_args(exe, name, &c);
  if (n < 0) return;
  err.message[0] = '\0';
  tirx_status st = tirx_function_call(fn, c.args, (size_t)n, NULL, &err);
  FUZZ_CHECK(st == TIRX_OK || err.message[0], "%s: status %s without a message", name,
             tirx_status_name(st));
  if (n > 0) {
    /* One argument too few: a host function of a damaged file need not
     * check the count, so only the message is checked, not the status. */
    err.message[0] = '\0';
    st = tirx_function_call(fn, c.args, (size_t)n - 1, NULL, &err);
    FUZZ_CHECK(st == TIRX_OK || err.message[0], "%s: %ld of %ld arguments: %s without a message",
               name, n - 1, n, tirx_status_name(st));
  }
}

void fuzz_use_executable(const tirx_executable *exe, tirx_runtime *rt) {
  size_t nfuncs = tirx_executable_func_count(exe);
  const char *arch = tirx_executable_arch(exe);
  size_t ptx_len = 0;
  const char *ptx = tirx_executable_ptx(exe, &ptx_len);
  FUZZ_CHECK(arch != NULL && ptx != NULL && ptx[ptx_len] == '\0', "arch or PTX missing");
  FUZZ_CHECK(tirx_executable_func_name(exe, nfuncs) == NULL, "a function past the last");
  for (size_t i = 0; i < nfuncs; i++) {
    const char *name = tirx_executable_func_name(exe, i);
    FUZZ_CHECK(name != NULL, "function %zu of %zu has no name", i, nfuncs);
    call_args c;
    (void)build_args(exe, name, &c);
  }
  if (!rt) return;
  tirx_loaded *lm = NULL;
  tirx_error err = {0};
  if (tirx_runtime_load(rt, exe, &lm, &err) != TIRX_OK) {
    FUZZ_CHECK(lm == NULL && err.message[0], "a failed load without a message");
    return;
  }
  for (size_t i = 0; i < nfuncs; i++)
    call_function(exe, lm, tirx_executable_func_name(exe, i));
  tirx_loaded_free(lm);
}
