/*
 * nvrtc.c - CUDA C to PTX or a cubin through NVRTC, loaded at run time.
 *
 * NVRTC is dlopen'ed for each call (support/dynlib.h) and closed before
 * returning: tirx-c has no link-time CUDA dependency and keeps no global
 * state, and one dlopen is cheap next to an NVRTC compile. The NVRTC API is
 * declared here by hand (from nvrtc.h) so that building tirx-c needs no
 * CUDA headers. See docs/nvrtc.md for how the toolkit is located, the
 * options passed, and how NVRTC's errors become tirx diagnostics.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/cuda/codegen.h"
#include "support/dynlib.h"
#include "support/mem.h"

/* The subset of nvrtc.h that we use; the ABI has been stable since CUDA 11. */
typedef int nvrtcResult;
enum { NVRTC_SUCCESS = 0, NVRTC_ERROR_INVALID_OPTION = 5, NVRTC_ERROR_COMPILATION = 6 };
typedef struct _nvrtcProgram *nvrtcProgram;

typedef const char *(*nvrtcGetErrorString_t)(nvrtcResult);
typedef nvrtcResult (*nvrtcVersion_t)(int *, int *);
typedef nvrtcResult (*nvrtcCreateProgram_t)(nvrtcProgram *, const char *, const char *, int,
                                            const char *const *, const char *const *);
typedef nvrtcResult (*nvrtcDestroyProgram_t)(nvrtcProgram *);
typedef nvrtcResult (*nvrtcCompileProgram_t)(nvrtcProgram, int, const char *const *);
typedef nvrtcResult (*nvrtcGetSize_t)(nvrtcProgram, size_t *);
typedef nvrtcResult (*nvrtcGetData_t)(nvrtcProgram, char *);

typedef struct nvrtc_api {
  tx_dynlib *lib;
  nvrtcGetErrorString_t GetErrorString;
  nvrtcVersion_t Version;
  nvrtcCreateProgram_t CreateProgram;
  nvrtcDestroyProgram_t DestroyProgram;
  nvrtcCompileProgram_t CompileProgram;
  nvrtcGetSize_t GetProgramLogSize;
  nvrtcGetData_t GetProgramLog;
  nvrtcGetSize_t GetPTXSize;
  nvrtcGetData_t GetPTX;
  nvrtcGetSize_t GetCUBINSize;
  nvrtcGetData_t GetCUBIN;
} nvrtc_api;

/* The name NVRTC gives the program in its log: "tirx_kernel.cu(LINE): error: ...". */
static const char PROGRAM_NAME[] = "tirx_kernel.cu";

static int file_exists(const char *path) {
  return path && access(path, F_OK) == 0;
}

/* Library file names, newest first: the unversioned name (a dev install),
 * then the sonames of CUDA 13 and 12. Listed instead of globbed so that the
 * search is predictable and the error can name exactly what was tried. */
static const char *const NVRTC_NAMES[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};
enum { N_NAMES = sizeof NVRTC_NAMES / sizeof NVRTC_NAMES[0] };
/* lib64 is the toolkit's layout; lib covers Debian and conda style installs. */
static const char *const LIB_DIRS[] = {"lib64", "lib"};
enum { N_DIRS = sizeof LIB_DIRS / sizeof LIB_DIRS[0] };

/* Where the toolkit is: --cuda-path, then $CUDA_HOME, then /usr/local/cuda.
 * *explicit_root is set when the user named it: then only that directory is
 * searched, so a wrong --cuda-path is reported rather than silently replaced
 * by whatever NVRTC the loader happens to find. */
static const char *cuda_root(const tx_nvrtc_options *opts, int *explicit_root) {
  *explicit_root = 1;
  if (opts->cuda_path && opts->cuda_path[0]) return opts->cuda_path;
  const char *env = getenv("CUDA_HOME");
  if (env && env[0]) return env;
  *explicit_root = 0;
  return "/usr/local/cuda";
}

static tirx_status load_nvrtc(tx_diag_sink *diags, const char *root, int explicit_root,
                              nvrtc_api *api) {
  tx_strbuf paths[N_DIRS * N_NAMES];
  const char *cand[N_DIRS * N_NAMES + N_NAMES];
  size_t n = 0;
  tirx_status st = TIRX_OK;
  for (size_t d = 0; d < N_DIRS; d++)
    for (size_t i = 0; i < N_NAMES; i++) {
      paths[n] = (tx_strbuf){.alloc = tx_diag_allocator(diags)};
      tx_sb_printf(&paths[n], "%s/%s/%s", root, LIB_DIRS[d], NVRTC_NAMES[i]);
      cand[n] = tx_sb_cstr(&paths[n]);
      if (!cand[n]) st = TIRX_ERR_NOMEM;
      n++;
    }
  /* With no toolkit named, an NVRTC on the default loader path will do. */
  if (!explicit_root)
    for (size_t i = 0; i < N_NAMES; i++)
      cand[n++] = NVRTC_NAMES[i];

  char why[512] = "";
  if (st == TIRX_OK) {
    st = tx_dynlib_open(tx_diag_allocator(diags), cand, n, &api->lib, why, sizeof why);
    if (st == TIRX_ERR_IO) {
      tx_error(diags, (tirx_span){0},
               "CUDA toolkit not found: NVRTC (libnvrtc.so) is not in %s/lib64 or %s/lib%s; set "
               "CUDA_HOME or pass --cuda-path",
               root, root, explicit_root ? "" : " nor on the default library path");
      /* A library that exists but does not load (wrong architecture, missing
       * dependency) needs the loader's own words to be fixable. */
      for (size_t i = 0; i < N_DIRS * N_NAMES; i++)
        if (file_exists(cand[i])) {
          tx_note(diags, (tirx_span){0}, "%s exists but could not be loaded: %s", cand[i], why);
          break;
        }
      st = TIRX_ERR_IO;
    }
  }
  for (size_t i = 0; i < N_DIRS * N_NAMES; i++)
    tx_sb_free(&paths[i]);
  if (st != TIRX_OK) return st;

  struct {
    const char *name;
    tx_dynlib_fn *slot;
  } syms[] = {
      {"nvrtcGetErrorString", (tx_dynlib_fn *)&api->GetErrorString},
      {"nvrtcVersion", (tx_dynlib_fn *)&api->Version},
      {"nvrtcCreateProgram", (tx_dynlib_fn *)&api->CreateProgram},
      {"nvrtcDestroyProgram", (tx_dynlib_fn *)&api->DestroyProgram},
      {"nvrtcCompileProgram", (tx_dynlib_fn *)&api->CompileProgram},
      {"nvrtcGetProgramLogSize", (tx_dynlib_fn *)&api->GetProgramLogSize},
      {"nvrtcGetProgramLog", (tx_dynlib_fn *)&api->GetProgramLog},
      {"nvrtcGetPTXSize", (tx_dynlib_fn *)&api->GetPTXSize},
      {"nvrtcGetPTX", (tx_dynlib_fn *)&api->GetPTX},
      {"nvrtcGetCUBINSize", (tx_dynlib_fn *)&api->GetCUBINSize},
      {"nvrtcGetCUBIN", (tx_dynlib_fn *)&api->GetCUBIN},
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    tx_dynlib_fn fn = tx_dynlib_sym(api->lib, syms[i].name, why, sizeof why);
    if (!fn) {
      tx_error(diags, (tirx_span){0},
               "the NVRTC at %s lacks %s (CUDA 11.1 or newer is required): %s",
               tx_dynlib_name(api->lib), syms[i].name, why);
      return TIRX_ERR_IO;
    }
    /* Each slot is a function pointer of another type; all function
     * pointers share one representation, which POSIX dlsym relies on. */
    memcpy(syms[i].slot, &fn, sizeof fn);
  }
  return TIRX_OK;
}

/* "sm_90a" -> "compute_90a" for PTX, unchanged for a cubin. The arch must be
 * sm_<digits> with an optional a/f suffix: anything else is the caller's
 * mistake and NVRTC's own message for it is obscure. */
static tirx_status arch_option(tx_diag_sink *diags, const tx_nvrtc_options *opts, tx_strbuf *opt) {
  const tx_target *t = opts->target;
  char buf[32];
  const char *arch = t ? t->arch : NULL;
  if (!arch && t && t->sm > 0) {
    snprintf(buf, sizeof buf, "sm_%d", t->sm);
    arch = buf;
  }
  if (!arch) {
    tx_error(diags, (tirx_span){0}, "NVRTC needs a target architecture (e.g. sm_90a)");
    return TIRX_ERR_USAGE;
  }
  const char *p = arch + 3;
  int ok = strncmp(arch, "sm_", 3) == 0 && isdigit((unsigned char)*p);
  while (ok && isdigit((unsigned char)*p))
    p++;
  if (ok && (*p == 'a' || *p == 'f')) p++;
  if (!ok || *p) {
    tx_error(diags, (tirx_span){0}, "invalid CUDA architecture '%s' (expected e.g. sm_90a)", arch);
    return TIRX_ERR_USAGE;
  }
  tx_sb_printf(opt, "--gpu-architecture=%s%s", opts->output == NVRTC_PTX ? "compute_" : "sm_",
               arch + 3);
  return TIRX_OK;
}

/* Line `line` (1-based) of the CUDA source, without its newline. */
static const char *source_line(const char *src, size_t len, uint32_t line, size_t *n) {
  const char *p = src, *end = src + len;
  for (uint32_t l = 1; l < line && p < end; l++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return NULL;
    p = nl + 1;
  }
  if (p >= end) return NULL;
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  *n = (size_t)((nl ? nl : end) - p);
  if (*n && p[*n - 1] == '\r') (*n)--;
  return p;
}

/* One "NAME(LINE): error: MESSAGE" of the log (also "error #20-D:" and
 * "catastrophic error:"); returns 0 for any other line. */
typedef struct log_error {
  const char *name;
  size_t name_len;
  uint32_t line;
  const char *msg;
  size_t msg_len;
} log_error;

static int parse_error_line(const char *s, size_t n, log_error *e) {
  const char *end = s + n, *open = NULL;
  for (const char *p = s; p + 1 < end; p++)
    if (*p == '(' && isdigit((unsigned char)p[1])) open = p; /* last "(digit" wins */
  if (!open) return 0;
  const char *p = open + 1;
  unsigned long line = 0;
  while (p < end && isdigit((unsigned char)*p) && line < UINT32_MAX)
    line = line * 10 + (unsigned long)(*p++ - '0');
  if (p + 2 > end || p[0] != ')' || p[1] != ':') return 0;
  p += 2;
  while (p < end && *p == ' ')
    p++;
  static const char *const kinds[] = {"error", "catastrophic error"};
  size_t k = 0;
  for (; k < 2; k++) {
    size_t kl = strlen(kinds[k]);
    if ((size_t)(end - p) >= kl && memcmp(p, kinds[k], kl) == 0 &&
        (p + kl == end || p[kl] == ':' || p[kl] == ' ')) {
      p += kl;
      break;
    }
  }
  if (k == 2) return 0;
  if (p < end && *p == ' ' && p + 1 < end && p[1] == '#') /* " #20-D" */
    while (p < end && *p != ':')
      p++;
  if (p >= end || *p != ':') return 0;
  p++;
  while (p < end && *p == ' ')
    p++;
  e->name = s;
  e->name_len = (size_t)(open - s);
  e->line = (uint32_t)line;
  e->msg = p;
  e->msg_len = (size_t)(end - p);
  return 1;
}

/* Turn NVRTC's compile log into diagnostics. An error on a CUDA line that
 * the line map ties to the user's source is a located user error
 * (TIRX_ERR_INPUT). An error on a line with no user span, with a map given,
 * means the code generator produced invalid CUDA: an internal error in
 * "nvrtc" (TIRX_ERR_INTERNAL). Without a map the CUDA came from the caller
 * directly (a .cu file, a test), so its errors are the caller's:
 * unlocated, TIRX_ERR_INPUT. */
static tirx_status report_compile_errors(tx_diag_sink *diags, const char *src, size_t len,
                                         const tx_line_map *map, const char *log, size_t log_len) {
  int any = 0, internal = 0;
  const char *p = log, *end = log + log_len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = (size_t)((nl ? nl : end) - p);
    if (n && p[n - 1] == '\r') n--;
    log_error e;
    if (parse_error_line(p, n, &e)) {
      any = 1;
      int ours =
          e.name_len == sizeof PROGRAM_NAME - 1 && memcmp(e.name, PROGRAM_NAME, e.name_len) == 0;
      tirx_span span = {0};
      if (ours && map && e.line >= 1 && e.line <= map->len) span = map->lines[e.line - 1];
      if (span.line != 0) {
        tx_error(diags, span, "CUDA compile error: %.*s", (int)e.msg_len, e.msg);
      } else if (map) {
        tx_internal_error(diags, "nvrtc", "generated CUDA does not compile: %.*s", (int)n, p);
        internal = 1;
      } else {
        tx_error(diags, (tirx_span){0}, "CUDA compile error: %.*s", (int)n, p);
      }
      size_t ln = 0;
      const char *text = ours ? source_line(src, len, e.line, &ln) : NULL;
      if (text) tx_note(diags, (tirx_span){0}, "CUDA line %u: %.*s", e.line, (int)ln, text);
    }
    p = nl ? nl + 1 : end;
  }
  if (!any) {
    /* A failure without a recognizable error line: keep NVRTC's own words. */
    size_t n = 0;
    while (n < log_len && log[n] != '\n')
      n++;
    tx_internal_error(diags, "nvrtc", "compilation failed: %.*s", (int)n, n ? log : "(empty log)");
    internal = 1;
  }
  return internal ? TIRX_ERR_INTERNAL : TIRX_ERR_INPUT;
}

/* The optimization options for target->opt_level (0..3; clamped), given
 * NVRTC's version as major * 100 + minor. Returns how many were stored in
 * argv (at most 2). NVRTC has no -O: the front end (NVVM) is tuned with
 * --Ofast-compile, which trades run time for compile time (NVRTC 12.8 and
 * later; CUDA 13 rejects --dopt=off), and --extra-device-vectorization;
 * a cubin's ptxas takes -O0..-O3 itself. The PTX of -O2 is NVRTC's
 * default, so the common case compiles exactly as before. */
static int opt_options(const tx_nvrtc_options *opts, int version, const char **argv) {
  /* -O2, the default, keeps ptxas's own default (-O3): the SASS users get
   * without options must not be slower than plain nvcc's. */
  static const char *const PTXAS[] = {"--ptxas-options=-O0", "--ptxas-options=-O1",
                                      "--ptxas-options=-O3", "--ptxas-options=-O3"};
  int level = opts->target->opt_level < 0   ? 0
              : opts->target->opt_level > 3 ? 3
                                            : opts->target->opt_level;
  int n = 0;
  if (level == 0 && version >= 1208) argv[n++] = "--Ofast-compile=max";
  if (level == 1 && version >= 1208) argv[n++] = "--Ofast-compile=mid";
  if (level == 3 && version >= 1200) argv[n++] = "--extra-device-vectorization";
  if (opts->output == NVRTC_CUBIN) argv[n++] = PTXAS[level];
  return n;
}

tirx_status tx_nvrtc_compile(tx_diag_sink *diags, const char *cuda_src, size_t len,
                             const tx_line_map *map, const tx_nvrtc_options *opts, tx_strbuf *out,
                             tx_strbuf *log) {
  if (!diags || !cuda_src || !opts || !out) return TIRX_ERR_USAGE;
  tirx_status st;
  const tirx_allocator *alloc = tx_diag_allocator(diags);
  tx_strbuf arch = {.alloc = alloc}, inc = {.alloc = alloc}, src = {.alloc = alloc},
            raw = {.alloc = alloc};
  nvrtc_api api = {0};
  nvrtcProgram prog = NULL;

  st = arch_option(diags, opts, &arch);
  if (st != TIRX_OK) goto done;

  int explicit_root;
  const char *root = cuda_root(opts, &explicit_root);
  st = load_nvrtc(diags, root, explicit_root, &api);
  if (st != TIRX_OK) goto done;

  int major = 0, minor = 0;
  api.Version(&major, &minor);

  /* Options, and why each is there:
   *  - the architecture (compute_XX for PTX, sm_XX for a cubin);
   *  - -default-device: helpers without __device__ are device code;
   *  - -std=c++17: the dialect target/cuda/cuda.c writes;
   *  - -I<root>/include, when it exists, for cuda_fp16.h / cuda_bf16.h and
   *    friends (recent NVRTCs carry them built in; older ones do not);
   *  - -device-int128 (NVRTC 11.5 and later): __int128_t / __uint128_t in
   *    device code, the spelling of int128 / uint128 (TVM's too); it only
   *    admits the type;
   *  - the optimization options of target->opt_level (opt_options). */
  const char *argv[12];
  int argc = 0;
  argv[argc++] = tx_sb_cstr(&arch);
  argv[argc++] = "-default-device";
  argv[argc++] = "-std=c++17";
  tx_sb_printf(&inc, "%s/include/cuda_fp16.h", root);
  if (file_exists(tx_sb_cstr(&inc))) {
    inc.len = 0;
    tx_sb_printf(&inc, "-I%s/include", root);
    argv[argc++] = tx_sb_cstr(&inc);
  }
  if (major * 100 + minor >= 1105) argv[argc++] = "-device-int128";
  argc += opt_options(opts, major * 100 + minor, argv + argc);
  /* NVRTC wants NUL-terminated source; the caller's need not be. */
  tx_sb_putn(&src, cuda_src, len);
  const char *csrc = tx_sb_cstr(&src);
  for (int i = 0; i < argc; i++)
    if (!argv[i]) csrc = NULL;
  if (!csrc || inc.failed) { /* a failed probe would silently drop -I */
    st = TIRX_ERR_NOMEM;
    goto done;
  }

  if (log && opts->verbose) {
    tx_sb_printf(log, "nvrtc: %s (NVRTC %d.%d)\nnvrtc options:", tx_dynlib_name(api.lib), major,
                 minor);
    for (int i = 0; i < argc; i++)
      tx_sb_printf(log, " %s", argv[i]);
    tx_sb_putc(log, '\n');
  }

  nvrtcResult r = api.CreateProgram(&prog, csrc, PROGRAM_NAME, 0, NULL, NULL);
  if (r != NVRTC_SUCCESS) {
    tx_internal_error(diags, "nvrtc", "nvrtcCreateProgram failed: %s", api.GetErrorString(r));
    st = TIRX_ERR_INTERNAL;
    prog = NULL;
    goto done;
  }
  nvrtcResult cr = api.CompileProgram(prog, argc, argv);

  size_t log_size = 0;
  if (api.GetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    char *buf = tx_mem_alloc(alloc, log_size);
    if (!buf) {
      st = TIRX_ERR_NOMEM;
      goto done;
    }
    if (api.GetProgramLog(prog, buf) == NVRTC_SUCCESS)
      tx_sb_putn(&raw, buf, strnlen(buf, log_size));
    tx_mem_free(alloc, buf);
    if (raw.failed) { /* the errors would be lost */
      st = TIRX_ERR_NOMEM;
      goto done;
    }
  }
  if (log) tx_sb_putn(log, raw.data ? raw.data : "", raw.len);

  if (cr == NVRTC_ERROR_COMPILATION) {
    st = report_compile_errors(diags, cuda_src, len, map, raw.data ? raw.data : "", raw.len);
    goto done;
  }
  if (cr == NVRTC_ERROR_INVALID_OPTION) {
    /* Mostly an architecture this NVRTC does not know (sm_100a on CUDA 12.4). */
    size_t n = 0;
    while (n < raw.len && raw.data[n] != '\n')
      n++;
    tx_error(diags, (tirx_span){0}, "NVRTC %d.%d rejected the options (%s): %.*s", major, minor,
             argv[0], (int)n, n ? raw.data : "invalid option");
    st = TIRX_ERR_USAGE;
    goto done;
  }
  if (cr != NVRTC_SUCCESS) {
    tx_internal_error(diags, "nvrtc", "nvrtcCompileProgram failed: %s", api.GetErrorString(cr));
    st = TIRX_ERR_INTERNAL;
    goto done;
  }

  int ptx = opts->output == NVRTC_PTX;
  size_t size = 0;
  r = (ptx ? api.GetPTXSize : api.GetCUBINSize)(prog, &size);
  if (r != NVRTC_SUCCESS || size == 0) {
    tx_internal_error(diags, "nvrtc", "no %s was produced: %s", ptx ? "PTX" : "cubin",
                      r != NVRTC_SUCCESS ? api.GetErrorString(r) : "size 0");
    st = TIRX_ERR_INTERNAL;
    goto done;
  }
  char *buf = tx_mem_alloc(alloc, size);
  if (!buf) {
    st = TIRX_ERR_NOMEM;
    goto done;
  }
  r = (ptx ? api.GetPTX : api.GetCUBIN)(prog, buf);
  if (r != NVRTC_SUCCESS) {
    tx_mem_free(alloc, buf);
    tx_internal_error(diags, "nvrtc", "reading the %s failed: %s", ptx ? "PTX" : "cubin",
                      api.GetErrorString(r));
    st = TIRX_ERR_INTERNAL;
    goto done;
  }
  /* PTX comes NUL-terminated; the NUL is not part of the text. */
  if (ptx && buf[size - 1] == '\0') size--;
  tx_sb_putn(out, buf, size);
  tx_mem_free(alloc, buf);
  st = out->failed || (log && log->failed) ? TIRX_ERR_NOMEM : TIRX_OK;

done:
  if (prog) api.DestroyProgram(&prog);
  tx_dynlib_close(api.lib);
  tx_sb_free(&arch);
  tx_sb_free(&inc);
  tx_sb_free(&src);
  tx_sb_free(&raw);
  return st;
}
