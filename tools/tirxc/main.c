/*
 * main.c - the tirxc command line: compile one TIRx file to canonical
 * TVMScript, lowered TIRx, CUDA C, PTX or a cubin.
 *
 *   tirxc FILE [-o OUT] [--emit=KIND] [--target=cuda] [--arch=sm_XX] [-O0..3] ...
 *   tirxc golden [--update] [--quiet] DIR...      (see golden.c)
 *
 * Exit codes are the library's status codes (tirx.h): 0 ok, 1 errors in the
 * input, 2 bad usage, 3 internal error, 4 out of memory, 5 I/O error. Output
 * to a regular file goes through a temporary and a rename, so a failed run
 * never leaves a half-written OUT behind; devices and FIFOs (-o /dev/null)
 * are written through, never replaced (support/file.h). The compiling itself is tx_compile_module
 * (driver/compile.h); this file only parses options, probes the GPU for a
 * default --arch, and prints.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/cuda/c_launcher.h"
#include "abi/arch.h"
#include "driver/context.h"
#include "support/file.h"
#include "driver/compile.h"
#include "runtime/cuda_driver.h"
#include "tirx/tirx.h"
/* Defined in golden.c (there is no header: the two files are one program). */
int tirxc_golden_main(int argc, char **argv);
int tirxc_run_main(int argc, char **argv);

static const char HELP[] =
    "usage: tirxc FILE [-o OUT] [--emit=KIND] [options]\n"
    "       tirxc --list-passes\n"
    "       tirxc golden [--update] [--quiet] DIR...\n"
    "       tirxc --help | --version\n"
    "\n"
    "Compile a TIRx kernel written in TVMScript. By default it is checked and\n"
    "printed back in canonical form. FILE '-' reads standard input.\n"
    "\n"
    "output:\n"
    "  -o OUT            write the output to OUT instead of standard output ('-' is\n"
    "                    standard output); OUT is only replaced when compiling succeeds\n"
    "  --emit=KIND       what to emit (default tirx):\n"
    "                      tirx     canonical TVMScript of the input (no lowering)\n"
    "                      lowered  TVMScript after the lowering pipeline\n"
    "                      cuda     CUDA C of the device functions\n"
    "                      ptx      PTX, compiled with NVRTC\n"
    "                      cubin    a cubin, compiled with NVRTC (binary: needs -o OUT\n"
    "                               or a standard output that is not a terminal)\n"
    "                      c-launcher  OUT.c and OUT.h: C launchers that embed the PTX\n"
    "                               and need no tirx-c at run time (needs -o OUT.c;\n"
    "                               see docs/aot.md)\n"
    "                      executable  an executable file (.tirxexe): the host\n"
    "                               functions' launch programs and the PTX, what\n"
    "                               tirx_executable_load and libtirx_rt run (binary:\n"
    "                               needs -o OUT or a standard output that is not\n"
    "                               a terminal)\n"
    "  --host-only       with --emit=executable: no device code (no NVRTC); its\n"
    "                    functions check their arguments but cannot launch\n"
    "  --embed=ptx|cubin with --emit=c-launcher: embed PTX (default; JIT-compiled by\n"
    "                    the driver) or a cubin for --arch\n"
    "  --dialect=D       with --emit=tirx or lowered: print TVMScript in dialect D,\n"
    "                      tvm   TVM 0.27's tvm.script.tirx (@T.prim_func, T.Buffer)\n"
    "                      tirx  apache-tvm-tirx's tvm_tirx.script.tirx (@T.function,\n"
    "                            T.Tensor, with T.device_entry():)\n"
    "                    default: the dialect FILE is written in (docs/dialects.md)\n"
    "\n"
    "target:\n"
    "  --target=cuda     the target; cuda is the only one (and the default)\n"
    "  --arch=ARCH       the GPU architecture: sm_80 sm_86 sm_89 sm_90 sm_90a sm_100\n"
    "                    sm_100a sm_101a sm_103a sm_120 sm_120a. Default: the GPU of\n"
    "                    this machine if there is one, else sm_90a. With\n"
    "                    --emit=executable a comma-separated list (sm_90a,sm_100a):\n"
    "                    device code for each; the runtime loads the device's own,\n"
    "                    else the latest portable one (sm_80, sm_90) it can run\n"
    "  -O0 -O1 -O2 -O3   optimization level (default -O2); -O0 skips 'simplify'\n"
    "                    NVRTC: --Ofast-compile=max/mid at -O0/-O1, at -O3\n"
    "                    --extra-device-vectorization; cubin: ptxas -O<n>\n"
    "  --cuda-path=DIR   the CUDA toolkit NVRTC is loaded from (default $CUDA_HOME,\n"
    "                    then /usr/local/cuda)\n"
    "\n"
    "pipeline (with every --emit but tirx):\n"
    "  --list-passes         list the passes in pipeline order and exit\n"
    "  --disable-pass=NAME   do not run pass NAME (repeatable)\n"
    "  --only-pass=NAME      run pass NAME alone (for testing one pass)\n"
    "  --print-after=NAME    print the module after pass NAME to standard error\n"
    "                        (repeatable)\n"
    "  --print-after-all     print the module after every pass to standard error\n"
    "  --verify-each         check the IR after every pass, not only the input\n"
    "  --time-passes         print a table of the time spent in each pass and in\n"
    "                        verification to standard error\n"
    "  --explain-dispatch    print the variant chosen for every tile-primitive call\n"
    "                        (FILE:LINE:COL: OP -> VARIANT (priority P)) to standard\n"
    "                        error\n"
    "\n"
    "other:\n"
    "  --time            print the time spent in each stage to standard error\n"
    "  -v, --verbose     print each stage, its time, the pass list and the NVRTC\n"
    "                    options to standard error\n"
    "  --help, -h        show this help and exit\n"
    "  --version         show the version and exit\n"
    "  --                end of options (for a FILE that starts with '-')\n"
    "\n"
    "Options and FILE may come in any order; options taking a value accept\n"
    "--opt=VALUE or --opt VALUE.\n"
    "\n"
    "golden:\n"
    "  Run the golden-file tests in each DIR: NAME.tirx must print as\n"
    "  NAME.expected.tirx, or fail with the diagnostics in NAME.expected.err;\n"
    "  NAME.expected.lowered.tirx and NAME.expected.cu, when present, are\n"
    "  compared with --emit=lowered and --emit=cuda. See 'tirxc golden --help'.\n"
    "\n"
    "exit status: 0 ok, 1 errors in the input, 2 bad usage, 3 internal error,\n"
    "4 out of memory, 5 I/O error. Diagnostics go to standard error.\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tirxc: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nsee 'tirxc --help'\n", stderr);
  return TIRX_ERR_USAGE;
}

typedef struct options {
  const char *input, *output;
  int time, verbose, list_passes;
  tx_emit_kind emit;
  const char *arch;   /* --arch (a comma-separated list), or NULL: probe the GPU */
  int several_arches; /* --arch names more than one (only with --emit=executable) */
  int opt_level;
  const char *cuda_path;
  uint8_t disabled[TX_PASS_COUNT], print_after[TX_PASS_COUNT];
  int print_after_all, verify_each, time_passes, explain_dispatch;
  const char *pipeline_flag;    /* the first pipeline-only option given, for the tirx check */
  int embed_cubin, embed_given; /* --embed */
  int host_only;                /* --host-only */
  int dialect;                  /* --dialect: a tx_dialect, or -1 for the input's */
} options;

/* `--name=VALUE` or `--name VALUE`: 1 and *value (NULL when missing) if argv[*i]
 * is option `name`, else 0. */
static int take_value(int argc, char **argv, int *i, const char *name, const char **value) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0 || (a[n] != '=' && a[n] != '\0')) return 0;
  *value = a[n] == '=' ? a + n + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
  return 1;
}

static int pass_names_error(const char *opt, const char *name) {
  char list[256] = "";
  for (int k = 0; k < TX_PASS_COUNT; k++) {
    if (k) strncat(list, ", ", sizeof list - strlen(list) - 1);
    strncat(list, tx_pass_name((tx_pass_id)k), sizeof list - strlen(list) - 1);
  }
  return usage_error("unknown pass '%s' in %s (passes: %s)", name, opt, list);
}

/* Returns -1 to go on, or the exit code (help, version, usage errors). */
static int parse_args(int argc, char **argv, options *o) {
  int only_files = 0;
  const char *v = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
      if (o->input) return usage_error("more than one input file ('%s' and '%s')", o->input, a);
      o->input = a;
    } else if (strcmp(a, "--") == 0) {
      only_files = 1;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(HELP, stdout);
      return fflush(stdout) == 0 ? TIRX_OK : TIRX_ERR_IO;
    } else if (strcmp(a, "--version") == 0) {
      printf("tirxc %s\n", tirx_version());
      return fflush(stdout) == 0 ? TIRX_OK : TIRX_ERR_IO;
    } else if (strcmp(a, "--time") == 0) {
      o->time = 1;
    } else if (strcmp(a, "--host-only") == 0) {
      o->host_only = 1;
    } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
      o->verbose = 1;
    } else if (strcmp(a, "--list-passes") == 0) {
      o->list_passes = 1;
    } else if (strcmp(a, "--print-after-all") == 0) {
      o->print_after_all = 1;
      if (!o->pipeline_flag) o->pipeline_flag = a;
    } else if (strcmp(a, "--verify-each") == 0) {
      o->verify_each = 1;
      if (!o->pipeline_flag) o->pipeline_flag = a;
    } else if (strcmp(a, "--time-passes") == 0) {
      o->time_passes = 1;
      if (!o->pipeline_flag) o->pipeline_flag = a;
    } else if (strcmp(a, "--explain-dispatch") == 0) {
      o->explain_dispatch = 1;
      if (!o->pipeline_flag) o->pipeline_flag = a;
    } else if (a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && a[3] == '\0') {
      o->opt_level = a[2] - '0';
    } else if (a[1] == 'O') {
      return usage_error("unknown optimization level '%s' (use -O0, -O1, -O2 or -O3)", a);
    } else if (strncmp(a, "-o", 2) == 0 && strncmp(a, "--", 2) != 0) {
      v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v || !*v) return usage_error("option '-o' needs a file name");
      if (o->output) return usage_error("option '-o' given twice");
      o->output = v;
    } else if (take_value(argc, argv, &i, "--emit", &v)) {
      if (!v) return usage_error("option '--emit' needs a value");
      int k = tx_emit_lookup(v);
      if (k < 0)
        return usage_error(
            "unknown --emit kind '%s' (kinds: tirx, lowered, cuda, ptx, cubin, c-launcher, "
            "executable)",
            v);
      o->emit = (tx_emit_kind)k;
    } else if (take_value(argc, argv, &i, "--dialect", &v)) {
      o->dialect = tx_dialect_lookup(v);
      if (o->dialect < 0) return usage_error("option '--dialect' takes tvm or tirx");
    } else if (take_value(argc, argv, &i, "--embed", &v)) {
      if (!v || (strcmp(v, "ptx") != 0 && strcmp(v, "cubin") != 0))
        return usage_error("option '--embed' takes ptx or cubin");
      o->embed_cubin = strcmp(v, "cubin") == 0;
      o->embed_given = 1;
    } else if (take_value(argc, argv, &i, "--target", &v)) {
      if (!v) return usage_error("option '--target' needs a value");
      if (strcmp(v, "cuda") != 0)
        return usage_error("unknown --target '%s' (the only target is 'cuda')", v);
    } else if (take_value(argc, argv, &i, "--arch", &v)) {
      tx_compile_request r;
      char why[512];
      if (!v) return usage_error("option '--arch' needs a value");
      tx_compile_request_init(&r);
      if (!tx_compile_request_arches(&r, v, why, sizeof why))
        return usage_error("--arch=%s: %s", v, why);
      o->arch = v;
      o->several_arches = r.nmore > 0;
    } else if (take_value(argc, argv, &i, "--cuda-path", &v)) {
      if (!v || !*v) return usage_error("option '--cuda-path' needs a directory");
      o->cuda_path = v;
    } else if (take_value(argc, argv, &i, "--only-pass", &v)) {
      if (!v || !*v) return usage_error("option '--only-pass' needs a pass name");
      int id = tx_pass_lookup(v);
      if (id < 0) return pass_names_error("--only-pass", v);
      for (int k = 0; k < TX_PASS_COUNT; k++)
        o->disabled[k] = k != id;
      if (!o->pipeline_flag) o->pipeline_flag = "--only-pass";
    } else if (take_value(argc, argv, &i, "--print-after", &v) ||
               take_value(argc, argv, &i, "--disable-pass", &v)) {
      int print = strncmp(a, "--print-after", 13) == 0;
      const char *opt = print ? "--print-after" : "--disable-pass";
      if (!v || !*v) return usage_error("option '%s' needs a pass name", opt);
      int id = tx_pass_lookup(v);
      if (id < 0) return pass_names_error(opt, v);
      (print ? o->print_after : o->disabled)[id] = 1;
      if (!o->pipeline_flag) o->pipeline_flag = opt;
    } else {
      return usage_error("unknown option '%s'", a);
    }
  }
  if (o->list_passes && o->input)
    return usage_error("--list-passes takes no input file (got '%s')", o->input);
  if (o->list_passes) return -1;
  if (!o->input) return usage_error("no input file");
  if (o->emit == TX_EMIT_TIRX && o->pipeline_flag)
    return usage_error("%s needs --emit=lowered, cuda, ptx or cubin (--emit=tirx runs no passes)",
                       o->pipeline_flag);
  if (o->dialect >= 0 && o->emit != TX_EMIT_TIRX && o->emit != TX_EMIT_LOWERED)
    return usage_error("--dialect needs --emit=tirx or --emit=lowered (it chooses a TVMScript "
                       "spelling)");
  if (o->embed_given && o->emit != TX_EMIT_C_LAUNCHER)
    return usage_error("--embed needs --emit=c-launcher");
  if (o->emit == TX_EMIT_C_LAUNCHER && (!o->output || strcmp(o->output, "-") == 0))
    return usage_error("--emit=c-launcher writes two files: use -o OUT.c (the header is OUT.h)");
  if ((o->emit == TX_EMIT_CUBIN || o->emit == TX_EMIT_EXECUTABLE) &&
      (!o->output || strcmp(o->output, "-") == 0) && isatty(STDOUT_FILENO))
    return usage_error("--emit=%s writes binary data: use -o FILE or redirect standard output",
                       tx_emit_name(o->emit));
  if (o->host_only && o->emit != TX_EMIT_EXECUTABLE)
    return usage_error("--host-only needs --emit=executable");
  if (o->several_arches && o->emit != TX_EMIT_EXECUTABLE)
    return usage_error("several architectures in --arch need --emit=executable");
  return -1;
}

static int write_all(FILE *f, const char *data, size_t len) {
  return (len == 0 || fwrite(data, 1, len, f) == len) && fflush(f) == 0 && !ferror(f);
}

/* Standard output for "-" or no path; otherwise support/file.h's writer, which
 * replaces a regular file atomically and writes through anything else. */
static int write_output(const char *path, const char *data, size_t len) {
  if (!path || strcmp(path, "-") == 0) {
    if (write_all(stdout, data, len)) return TIRX_OK;
    fprintf(stderr, "tirxc: error: cannot write to standard output: %s\n", strerror(errno));
    return TIRX_ERR_IO;
  }
  int err = tx_file_write(path, data, len, TX_WRITE_DEFAULT);
  if (!err) return TIRX_OK;
  fprintf(stderr, "tirxc: error: cannot write '%s': %s\n", path, strerror(err));
  return TIRX_ERR_IO;
}

/* For --emit=c-launcher -o DIR/NAME.c: the header path DIR/NAME.h, the
 * header's file name NAME.h (what the source includes) and the prefix NAME
 * of NAME_init/NAME_shutdown (non-identifier characters become '_'). */
typedef struct launcher_names {
  char header_path[4096], header_name[512], prefix[64];
} launcher_names;

static int launcher_names_for(const char *out, launcher_names *ln) {
  size_t n = strlen(out);
  if (n >= 2 && strcmp(out + n - 2, ".c") == 0) n -= 2;
  if (n + 3 > sizeof ln->header_path) return 0;
  memcpy(ln->header_path, out, n);
  memcpy(ln->header_path + n, ".h", 3);
  const char *base = strrchr(ln->header_path, '/');
  base = base ? base + 1 : ln->header_path;
  if (strlen(base) >= sizeof ln->header_name) return 0;
  strcpy(ln->header_name, base);
  size_t k = 0;
  for (const char *p = base; *p && p < base + strlen(base) - 2 && k + 1 < sizeof ln->prefix; p++) {
    int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
    ln->prefix[k++] = ok ? *p : '_';
  }
  ln->prefix[k] = '\0';
  if (k == 0 || (ln->prefix[0] >= '0' && ln->prefix[0] <= '9')) return 0;
  return 1;
}

static int list_passes(void) {
  for (int i = 0; i < TX_PASS_COUNT; i++)
    printf("%-20s %s\n", tx_pass_name((tx_pass_id)i), tx_pass_doc((tx_pass_id)i));
  return fflush(stdout) == 0 ? TIRX_OK : TIRX_ERR_IO;
}

/* The compute capability of GPU 0 through the driver API, loaded at run time
 * so that tirxc needs no CUDA to build or run. NULL when there is no usable
 * GPU (no driver, no device, an unsupported one): then the default applies.
 * The library stays loaded: unloading the driver after cuInit is unsafe. */
static const char *detect_gpu_arch(int *major, int *minor) {
  /* Static: reachable until exit, as the loaded driver must stay. */
  static tx_cuda_driver cu;
  char msg[256];
  if (!cu.lib && tx_cu_load(&cu, NULL, NULL, msg, sizeof msg) != TIRX_OK) return NULL;
  tx_cu_device dev = 0;
  if (cu.Init(0) != 0 || cu.DeviceGet(&dev, 0) != 0 ||
      cu.DeviceGetAttribute(major, TX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != 0 ||
      cu.DeviceGetAttribute(minor, TX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != 0)
    return NULL;
  return tx_arch_for_cc(*major, *minor);
}

static void print_pass_table(const tx_compile_stats *s) {
  double total = s->pass_ms[TX_PASS_COUNT];
  for (int i = 0; i < TX_PASS_COUNT; i++)
    if (s->pass_ran[i]) total += s->pass_ms[i];
  double pct = total > 0 ? 100.0 / total : 0;
  fprintf(stderr, "tirxc: pass timings\n  %-20s %10s %7s\n", "pass", "ms", "%");
  for (int i = 0; i < TX_PASS_COUNT; i++)
    if (s->pass_ran[i])
      fprintf(stderr, "  %-20s %10.3f %6.1f%%\n", tx_pass_name((tx_pass_id)i), s->pass_ms[i],
              s->pass_ms[i] * pct);
  fprintf(stderr, "  %-20s %10.3f %6.1f%%\n", "(verification)", s->pass_ms[TX_PASS_COUNT],
          s->pass_ms[TX_PASS_COUNT] * pct);
  fprintf(stderr, "  %-20s %10.3f %6.1f%%\n", "total", total, total > 0 ? 100.0 : 0.0);
}

static int compile(const options *o) {
  tirx_ctx *ctx = NULL;
  if (tirx_ctx_create(&ctx) != TIRX_OK || tirx_ctx_set_program_name(ctx, "tirxc") != TIRX_OK) {
    fputs("tirxc: error: out of memory\n", stderr);
    tirx_ctx_destroy(ctx);
    return TIRX_ERR_NOMEM;
  }
  tx_compile_request req;
  tx_compile_request_init(&req);
  req.emit = o->emit;
  req.dialect = o->dialect;
  req.target.opt_level = o->opt_level;
  req.cuda_path = o->cuda_path;
  req.verbose = o->verbose;
  req.host_only = o->host_only;
  const char *arch_origin = "--arch";
  if (o->arch) {
    char why[512];
    tx_compile_request_arches(&req, o->arch, why, sizeof why); /* checked with the options */
  } else if (o->emit != TX_EMIT_TIRX) {
    /* Only probed when it matters: starting the driver costs ~100 ms. */
    int major = 0, minor = 0;
    const char *gpu = detect_gpu_arch(&major, &minor);
    if (gpu) tx_target_from_arch(gpu, &req.target);
    arch_origin = gpu ? "this machine's GPU" : "default: no supported GPU found";
  }
  tx_strbuf printed = {0}, log = {0}, out = {0}, header = {0};
  launcher_names ln;
  if (o->emit == TX_EMIT_C_LAUNCHER) {
    if (!launcher_names_for(o->output, &ln) || !tx_c_launcher_valid_prefix(ln.prefix)) {
      tirx_ctx_destroy(ctx);
      return usage_error("cannot derive a C name from '%s' for --emit=c-launcher (use -o NAME.c "
                         "with NAME a C identifier)",
                         o->output);
    }
    req.header_out = &header;
    req.header_name = ln.header_name;
    req.launcher_name = ln.prefix;
    req.source_name = o->input;
    req.embed_cubin = o->embed_cubin;
  }
  memcpy(req.pipeline.disabled, o->disabled, sizeof o->disabled);
  memcpy(req.pipeline.print_after, o->print_after, sizeof o->print_after);
  req.pipeline.print_after_all = o->print_after_all;
  req.pipeline.verify_each = o->verify_each;
  req.pipeline.time_passes = o->time_passes;
  req.pipeline.print_out = &printed;
  req.pipeline.dispatch_log = o->explain_dispatch ? &printed : NULL;
  tx_compile_stats stats = {.log = &log};

  tirx_module *mod = NULL;
  tirx_status st = tirx_parse_file(ctx, o->input, &mod);
  tx_timings t;
  tx_ctx_last_timings(ctx, &t);
  if (o->verbose) {
    fprintf(stderr, "tirxc: read %.2f ms\ntirxc: parse %.2f ms\ntirxc: build %.2f ms\n", t.read_ms,
            t.parse_ms, t.build_ms);
    if (st == TIRX_OK && o->emit != TX_EMIT_TIRX) {
      fprintf(stderr, "tirxc: target cuda, arch %s (%s), -O%d\ntirxc: passes:", req.target.arch,
              arch_origin, req.target.opt_level);
      for (int i = 0; i < TX_PASS_COUNT; i++)
        fprintf(stderr, " %s%s", tx_pass_name((tx_pass_id)i),
                o->disabled[i]                                    ? " (disabled)"
                : i == PASS_SIMPLIFY && req.target.opt_level == 0 ? " (off at -O0)"
                                                                  : "");
      fputc('\n', stderr);
    }
  }
  if (st == TIRX_OK) st = tx_compile_module(ctx, mod->mod, &req, &stats, &out);
  /* What the passes printed comes first: the diagnostics are about the end. */
  if (printed.len) fwrite(printed.data, 1, printed.len, stderr);
  /* Warnings are worth showing even when compiling succeeded. */
  tirx_diag_render_file(ctx, stderr);
  if (o->verbose && mod) {
    if (o->emit != TX_EMIT_TIRX) {
      for (int i = 0; i < TX_PASS_COUNT; i++)
        if (stats.pass_ran[i])
          fprintf(stderr, "tirxc: pass %s %.2f ms\n", tx_pass_name((tx_pass_id)i),
                  stats.pass_ms[i]);
      fprintf(stderr, "tirxc: verify %.2f ms\n", stats.pass_ms[TX_PASS_COUNT]);
    }
    int device = o->emit == TX_EMIT_CUDA || o->emit == TX_EMIT_PTX || o->emit == TX_EMIT_CUBIN ||
                 o->emit == TX_EMIT_C_LAUNCHER || (o->emit == TX_EMIT_EXECUTABLE && !o->host_only);
    if (device) fprintf(stderr, "tirxc: codegen %.2f ms\n", stats.codegen_ms);
    if (device && o->emit != TX_EMIT_CUDA) {
      fprintf(stderr, "tirxc: nvrtc %.2f ms\n", stats.nvrtc_ms);
      if (log.len)
        fprintf(stderr, "tirxc: nvrtc log:\n%.*s%s", (int)log.len, log.data,
                log.data[log.len - 1] == '\n' ? "" : "\n");
    }
    if (o->emit == TX_EMIT_TIRX || o->emit == TX_EMIT_LOWERED)
      fprintf(stderr, "tirxc: print %.2f ms\n", stats.print_ms);
  }
  if (o->time_passes && mod) print_pass_table(&stats);
  if (st == TIRX_ERR_NOMEM || printed.failed) {
    fputs("tirxc: error: out of memory\n", stderr);
    st = TIRX_ERR_NOMEM;
  } else if (st == TIRX_OK) {
    /* The header first: a source without its header would not build. */
    if (o->emit == TX_EMIT_C_LAUNCHER)
      st = (tirx_status)write_output(ln.header_path, header.data ? header.data : "", header.len);
    if (st == TIRX_OK) st = (tirx_status)write_output(o->output, out.data ? out.data : "", out.len);
  }
  if (o->time) {
    fprintf(stderr, "tirxc: read %.2f ms, parse %.2f ms, build %.2f ms", t.read_ms, t.parse_ms,
            t.build_ms);
    if (o->emit != TX_EMIT_TIRX)
      fprintf(stderr, ", lower %.2f ms, codegen %.2f ms, nvrtc %.2f ms", stats.pipeline_ms,
              stats.codegen_ms, stats.nvrtc_ms);
    fprintf(stderr, ", print %.2f ms\n", stats.print_ms);
  }
  tx_sb_free(&printed);
  tx_sb_free(&log);
  tx_sb_free(&out);
  tx_sb_free(&header);
  tirx_ctx_destroy(ctx);
  return (int)st;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "golden") == 0) return tirxc_golden_main(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "run") == 0) return tirxc_run_main(argc - 1, argv + 1);
  options o = {.opt_level = 2, .emit = TX_EMIT_TIRX, .dialect = -1};
  int rc = parse_args(argc, argv, &o);
  if (rc >= 0) return rc;
  if (o.list_passes) return list_passes();
  return compile(&o);
}
