/*
 * tirx.h - the public C API of libtirx.
 *
 * A tirx_ctx owns everything: the arena the IR lives in, interned strings, the
 * source texts and the diagnostics. Handles are opaque; every fallible call
 * returns a tirx_status. The library never prints, never exits and keeps no
 * global mutable state, so independent contexts may be used from different
 * threads at the same time (one context must not be shared between threads).
 */
#ifndef TIRX_TIRX_H
#define TIRX_TIRX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TIRX_API __attribute__((visibility("default")))
#else
#define TIRX_API
#endif

#define TIRX_VERSION_MAJOR 0
#define TIRX_VERSION_MINOR 1
#define TIRX_VERSION_PATCH 0

/* Status codes double as the CLI's exit codes. */
typedef enum tirx_status {
  TIRX_OK = 0,
  TIRX_ERR_INPUT = 1,    /* the input has errors; diagnostics say which */
  TIRX_ERR_USAGE = 2,    /* the caller passed bad arguments */
  TIRX_ERR_INTERNAL = 3, /* a bug in tirx-c; a diagnostic names the stage */
  TIRX_ERR_NOMEM = 4,    /* an allocation failed */
  TIRX_ERR_IO = 5,       /* a file could not be read or written */
  TIRX_ERR_TRUNCATED = 6 /* the caller's buffer was too small; *needed says how big */
} tirx_status;

typedef enum tirx_severity {
  TIRX_SEV_ERROR = 0,
  TIRX_SEV_WARNING = 1,
  TIRX_SEV_NOTE = 2,
} tirx_severity;

/* A source range. Lines and columns are 1-based; columns count bytes. The end
 * is exclusive. A span with line 0 has no location (e.g. an I/O error). */
typedef struct tirx_span {
  const char *file;
  uint32_t line, col;
  uint32_t end_line, end_col;
} tirx_span;

typedef struct tirx_diagnostic {
  tirx_severity severity;
  tirx_span span;
  const char *message; /* owned by the context, valid until it is destroyed */
} tirx_diagnostic;

/* ==== Allocators ============================================================
 *
 * Every allocation libtirx makes goes through an allocator: the one given to
 * the object it belongs to (a context, a compile, an executable, a cache, a
 * runtime), or malloc/realloc/free where none was given. The function has
 * the shape of Lua's lua_Alloc:
 *
 *   fn(ud, NULL, 0, n)   with n > 0: allocate n bytes, aligned for any type
 *                         (as malloc aligns);
 *   fn(ud, p, old, n)    with n > 0: resize the block p, keeping its first
 *                         min(old, n) bytes; it may move;
 *   fn(ud, p, old, 0)    free p and return NULL.
 *
 * `old` is always the exact size last asked for p (libtirx keeps it), and p
 * is never NULL when old > 0. A failed allocation or resize returns NULL and
 * leaves the block as it was; libtirx then answers TIRX_ERR_NOMEM and frees
 * what it had. fn must be thread-safe when one allocator serves objects used
 * from several threads (a tirx_function called from many threads allocates
 * through its executable's allocator).
 *
 * libtirx copies the tirx_allocator struct, so it may be a temporary; fn and
 * ud must stay valid as long as anything made with them lives (each entry
 * point below says how long that is). A NULL allocator, or one whose fn is
 * NULL, means malloc. Not covered: what the C library allocates inside its
 * own calls (stdio buffers, dlopen, locales), and the CUDA driver and NVRTC,
 * which allocate for themselves. See docs/runtime.md "Allocators". */
typedef void *(*tirx_alloc_fn)(void *ud, void *ptr, size_t old_size, size_t new_size);
typedef struct tirx_allocator {
  tirx_alloc_fn fn;
  void *ud;
} tirx_allocator;

typedef struct tirx_ctx tirx_ctx;
typedef struct tirx_module tirx_module;

TIRX_API const char *tirx_version(void);
TIRX_API const char *tirx_status_name(tirx_status status);

/* Create a context; *out is NULL and TIRX_ERR_NOMEM is returned on failure. */
TIRX_API tirx_status tirx_ctx_create(tirx_ctx **out);
/* Same with everything the context allocates (IR, strings, diagnostics,
 * scratch memory of parsing and printing) going through `alloc` (NULL:
 * malloc), which must stay valid until tirx_ctx_destroy returns. */
TIRX_API tirx_status tirx_ctx_create_with(const tirx_allocator *alloc, tirx_ctx **out);
/* Free the context and everything made from it (modules, strings, diagnostics). */
TIRX_API void tirx_ctx_destroy(tirx_ctx *ctx);

/* Parse TVMScript text into a module. `name` is the file name used in
 * diagnostics. On TIRX_ERR_INPUT, *out is NULL and the diagnostics hold every
 * error found. The text need not be NUL-terminated. */
TIRX_API tirx_status tirx_parse_string(tirx_ctx *ctx, const char *name, const char *text,
                                       size_t len, tirx_module **out);
/* Same, reading `path` ("-" reads standard input). */
TIRX_API tirx_status tirx_parse_file(tirx_ctx *ctx, const char *path, tirx_module **out);

/* Print the canonical TVMScript of a module, in the dialect it was written
 * in (TVM 0.27's or apache-tvm-tirx's: docs/dialects.md), into buf (always
 * NUL-terminated when cap > 0). *needed (optional) receives the full length without the NUL;
 * TIRX_ERR_TRUNCATED when it did not fit. */
TIRX_API tirx_status tirx_module_print(const tirx_module *mod, char *buf, size_t cap,
                                       size_t *needed);
TIRX_API tirx_status tirx_module_print_file(const tirx_module *mod, FILE *stream);

/* Structural equality of two modules (bound variables are matched by their
 * binding sites, not by name), and a hash consistent with it. */
TIRX_API int tirx_module_equal(const tirx_module *a, const tirx_module *b);
TIRX_API uint64_t tirx_module_hash(const tirx_module *mod);

/* Number of functions and the name of function i, in module order. */
TIRX_API size_t tirx_module_func_count(const tirx_module *mod);
TIRX_API const char *tirx_module_func_name(const tirx_module *mod, size_t i);

/* Diagnostics collected so far, in the order they were found. */
TIRX_API size_t tirx_diag_count(const tirx_ctx *ctx);
TIRX_API tirx_status tirx_diag_get(const tirx_ctx *ctx, size_t i, tirx_diagnostic *out);
TIRX_API size_t tirx_diag_error_count(const tirx_ctx *ctx);
/* Render all diagnostics as `file:line:col: error: msg`, the source line and a
 * caret, to a stream or a buffer (same buffer contract as tirx_module_print). */
TIRX_API tirx_status tirx_diag_render_file(const tirx_ctx *ctx, FILE *stream);
TIRX_API tirx_status tirx_diag_render(const tirx_ctx *ctx, char *buf, size_t cap, size_t *needed);
TIRX_API void tirx_diag_clear(tirx_ctx *ctx);
/* The name rendered before diagnostics that have no file, as compilers do
 * (`tirxc: error: out of memory`); by default there is none (`error: ...`),
 * so an embedding program's messages never carry another program's name.
 * The name is copied; NULL or "" removes it. */
TIRX_API tirx_status tirx_ctx_set_program_name(tirx_ctx *ctx, const char *name);

/* ==== Compiling, loading and running kernels ===============================
 *
 * The flow: tirx_compile (text -> tirx_executable: the lowered host
 * launchers, PTX and launch facts), tirx_runtime_open (a CUDA device),
 * tirx_runtime_load (the executable's PTX into that device), then
 * tirx_loaded_function + tirx_function_call (arguments checked by the host
 * launcher, then the kernel launched on a stream). Executables can be saved
 * to one file and loaded back without recompiling; compiles go through a
 * content-addressed cache when asked to. See docs/runtime.md.
 *
 * Errors: every fallible call takes an optional tirx_error (NULL: only the
 * status is wanted) and fills it on failure. Compile errors carry the span of
 * the first error in the TIRx source.
 *
 * Thread safety: tirx_compile may run on many threads at once (each call uses
 * its own context; a shared tirx_cache is locked), and so may
 * tirx_compile_module, on one module too (it never writes into the module). A tirx_function may be
 * called from many threads at once (calls share no mutable state).
 * Open/close/load/free calls must not race with uses of the same object. */

#include "tirx/dlpack.h"

typedef struct tirx_error {
  tirx_status code;
  char message[1024];
  tirx_span span; /* line 0 when the error has no source location */
} tirx_error;

/* An in-memory compile cache shared by the compiles that name it (locked;
 * usable from many threads). Entries are whole executables, keyed like the
 * disk cache. */
typedef struct tirx_cache tirx_cache;
TIRX_API tirx_status tirx_cache_create(tirx_cache **out);
/* Same with the cache's table and entries allocated through `alloc` (NULL:
 * malloc), which must stay valid until tirx_cache_destroy returns. */
TIRX_API tirx_status tirx_cache_create_with(const tirx_allocator *alloc, tirx_cache **out);
TIRX_API void tirx_cache_destroy(tirx_cache *cache);
/* Lookups that hit and entries stored, for tests and tools. */
TIRX_API void tirx_cache_stats(const tirx_cache *cache, uint64_t *hits, uint64_t *entries);

typedef struct tirx_compile_options {
  size_t size;           /* sizeof(tirx_compile_options): fields past it read as defaults */
  const char *arch;      /* "sm_90a" (default) ...; see tirxc --help */
  int opt_level;         /* 0..3, default 2 */
  const char *cuda_path; /* NULL: $CUDA_HOME, then /usr/local/cuda */
  const char *const *disabled_passes; /* pass names to skip (tirxc --list-passes) */
  size_t num_disabled_passes;
  int disk_cache;        /* 1: read/write the disk cache (default 0) */
  const char *cache_dir; /* NULL: $TIRX_CACHE_DIR, $XDG_CACHE_HOME/tirx, ~/.cache/tirx */
  tirx_cache *cache;     /* optional in-memory cache, checked before the disk */
  int host_only;         /* 1: no device code (no NVRTC); such an executable's
                            functions check arguments but cannot launch */
  /* What the compile allocates through (NULL: malloc): its internal
   * contexts and the executable it returns, which keeps a copy and uses it
   * until tirx_executable_free (calls of its functions allocate through it
   * too). A tirx_cache keeps its own (tirx_cache_create_with). */
  const tirx_allocator *allocator;
} tirx_compile_options;

/* Defaults: size set, sm_90a, -O2, no cache, malloc. Writes the whole
 * struct as this header declares it, so `opts` must be that big: a program
 * built against an older header sets its fields itself (with size =
 * sizeof its struct) instead, and a binding that mirrors the struct (ctypes,
 * ...) must declare every field. */
TIRX_API void tirx_compile_options_init(tirx_compile_options *opts);

typedef struct tirx_executable tirx_executable;

/* Compile TVMScript text (`name` is its file name in messages). opts may be
 * NULL (defaults). */
TIRX_API tirx_status tirx_compile(const char *name, const char *text, size_t len,
                                  const tirx_compile_options *opts, tirx_executable **out,
                                  tirx_error *err);
/* Compile a parsed module. The module is only read: the pipeline works in
 * a context of its own (memory from opts->allocator, as the executable's),
 * so the module's context gains neither IR nor diagnostics, and one module
 * may be compiled from several threads at once. Errors name the module's
 * source file and line, as tirx_compile's do. */
TIRX_API tirx_status tirx_compile_module(const tirx_module *mod, const tirx_compile_options *opts,
                                         tirx_executable **out, tirx_error *err);
TIRX_API void tirx_executable_free(tirx_executable *exe);
/* One file: magic, format version, the target, the compile options, the
 * launch programs of the host functions (built at compile time: loading
 * needs no compiler, so libtirx_rt loads it alone), the PTX and a checksum.
 * Load re-checks all of them (a version mismatch, a damaged file or a
 * malformed program is TIRX_ERR_INPUT naming what is wrong). */
TIRX_API tirx_status tirx_executable_save(const tirx_executable *exe, const char *path,
                                          tirx_error *err);
TIRX_API tirx_status tirx_executable_load(const char *path, tirx_executable **out, tirx_error *err);
/* Same with the executable allocated through `alloc` (NULL: malloc), which
 * must stay valid until tirx_executable_free returns. */
TIRX_API tirx_status tirx_executable_load_with(const char *path, const tirx_allocator *alloc,
                                               tirx_executable **out, tirx_error *err);
/* An executable from the bytes of an executable file (an embedded one, say),
 * copied; allocated through `alloc` (NULL: malloc), which must stay valid
 * until tirx_executable_free returns. */
TIRX_API tirx_status tirx_executable_load_bytes(const void *data, size_t len,
                                                const tirx_allocator *alloc, tirx_executable **out,
                                                tirx_error *err);
/* The callable (packed) functions, in module order. */
TIRX_API size_t tirx_executable_func_count(const tirx_executable *exe);
TIRX_API const char *tirx_executable_func_name(const tirx_executable *exe, size_t i);
/* The architectures an executable holds device code for (tirx_compile_options
 * .arch, tirxc --arch, may name several), in the order they were asked for;
 * tirx_executable_arch is the first. tirx_runtime_load picks the one the
 * device runs: its own architecture, else the latest portable one (sm_80,
 * sm_90, ...) of the device's compute capability or an earlier one. */
TIRX_API const char *tirx_executable_arch(const tirx_executable *exe);
TIRX_API size_t tirx_executable_arch_count(const tirx_executable *exe);
TIRX_API const char *tirx_executable_arch_at(const tirx_executable *exe, size_t i);
/* PTX text of the first architecture ("" for a host-only executable); *len
 * (optional) without the NUL. */
TIRX_API const char *tirx_executable_ptx(const tirx_executable *exe, size_t *len);
/* The same for architecture `arch`; NULL (and *len 0) when it has none. */
TIRX_API const char *tirx_executable_ptx_for(const tirx_executable *exe, const char *arch,
                                             size_t *len);
/* 1 when tirx_compile found the result in a cache (memory or disk). */
TIRX_API int tirx_executable_from_cache(const tirx_executable *exe);

/* Parameters of function `name`, for tools that build arguments (tirxc run):
 * kind (TIRX_ARG_*), DLPack dtype, ndim and shape (-1 for a symbolic dim,
 * whose name goes to dim_names[d], NULL for a literal one). shape and
 * dim_names hold ndim entries (NULL when ndim is 0); like name, they belong
 * to the executable. Returns TIRX_ERR_USAGE for a bad index. */
typedef struct tirx_param_info {
  const char *name;
  int kind;
  DLDataType dtype;
  int32_t ndim;
  const int64_t *shape;
  const char *const *dim_names;
} tirx_param_info;
TIRX_API size_t tirx_executable_param_count(const tirx_executable *exe, const char *func);
TIRX_API tirx_status tirx_executable_param(const tirx_executable *exe, const char *func, size_t i,
                                           tirx_param_info *out);

/* A CUDA device (the primary context of GPU `ordinal`). */
typedef struct tirx_runtime tirx_runtime;
TIRX_API tirx_status tirx_runtime_open(int ordinal, tirx_runtime **out, tirx_error *err);
/* Same with the driver library named (NULL: libcuda.so.1): unusual installs, tests. */
TIRX_API tirx_status tirx_runtime_open_with(const char *driver_library, int ordinal,
                                            tirx_runtime **out, tirx_error *err);

/* Everything tirx_runtime_open_with takes, and an allocator. Size-versioned
 * like tirx_compile_options: fields past `size` read as defaults. */
typedef struct tirx_runtime_options {
  size_t size;                /* sizeof(tirx_runtime_options) */
  const char *driver_library; /* NULL: libcuda.so.1 */
  int ordinal;                /* the GPU, default 0 */
  /* What the runtime allocates through (NULL: malloc): the runtime itself,
   * loaded executables (tirx_runtime_load), modules, functions and the
   * DLPack capsules of tirx_tensor_alloc. A capsule keeps the runtime
   * alive until its deleter runs, which may be after tirx_runtime_close:
   * the allocator must stay valid until the runtime is closed AND every
   * capsule it exported has been released. */
  const tirx_allocator *allocator;
} tirx_runtime_options;
/* Defaults: size set, libcuda.so.1, GPU 0, malloc. */
TIRX_API void tirx_runtime_options_init(tirx_runtime_options *opts);
/* Open a runtime as opts says (NULL: the defaults). */
TIRX_API tirx_status tirx_runtime_open_ex(const tirx_runtime_options *opts, tirx_runtime **out,
                                          tirx_error *err);
TIRX_API void tirx_runtime_close(tirx_runtime *rt);
/* The architecture to compile for on this device ("sm_90a"). */
TIRX_API const char *tirx_runtime_arch(const tirx_runtime *rt);
/* Wait for `stream` (a CUstream; NULL waits for the whole device). */
TIRX_API tirx_status tirx_runtime_synchronize(tirx_runtime *rt, void *stream, tirx_error *err);

/* An executable loaded on a runtime. The executable must outlive it. */
typedef struct tirx_loaded tirx_loaded;
TIRX_API tirx_status tirx_runtime_load(tirx_runtime *rt, const tirx_executable *exe,
                                       tirx_loaded **out, tirx_error *err);
TIRX_API void tirx_loaded_free(tirx_loaded *lm);

typedef struct tirx_function tirx_function; /* owned by its tirx_loaded */
TIRX_API tirx_status tirx_loaded_function(tirx_loaded *lm, const char *name, tirx_function **out,
                                          tirx_error *err);

/* Argument kinds; also what T.arg_kind(i) returns in lowered host code
 * (abi/packed_api.h), so the numbers are part of the packed ABI. */
typedef enum tirx_arg_kind {
  TIRX_ARG_INT = 0,    /* int and bool parameters */
  TIRX_ARG_FLOAT = 1,  /* float parameters */
  TIRX_ARG_HANDLE = 2, /* T.handle parameters */
  TIRX_ARG_TENSOR = 3, /* buffer parameters: a DLTensor on the device */
} tirx_arg_kind;

typedef struct tirx_arg {
  tirx_arg_kind kind;
  union {
    const DLTensor *tensor;
    int64_t i;
    double f;
    void *handle;
  } v;
} tirx_arg;

/* Check the arguments as the function's host launcher says (count, kinds,
 * per tensor ndim/dtype/shape/strides/offset/device/alignment, symbolic
 * dims), then launch the kernel on `stream` (NULL: the default stream).
 * Asynchronous. A failed check is TIRX_ERR_USAGE with a message such as
 * "scale_dyn: argument 'A': expected dtype float32, got float16". */
TIRX_API tirx_status tirx_function_call(const tirx_function *fn, const tirx_arg *args, size_t n,
                                        void *stream, tirx_error *err);

/* ---- Device memory and DLPack ------------------------------------------------ */

/* A compact tensor of `shape` on the runtime's GPU, as a DLPack 1.1 capsule:
 * hand it to any DLPack consumer (torch.from_dlpack, ...) or use
 * &(*out)->dl_tensor directly; its deleter frees the memory (and may run
 * after tirx_runtime_close). Contents are undefined. */
TIRX_API tirx_status tirx_tensor_alloc(tirx_runtime *rt, const int64_t *shape, int32_t ndim,
                                       DLDataType dtype, DLManagedTensorVersioned **out,
                                       tirx_error *err);
/* The same as a legacy (pre-1.0) DLManagedTensor. */
TIRX_API tirx_status tirx_tensor_alloc_legacy(tirx_runtime *rt, const int64_t *shape, int32_t ndim,
                                              DLDataType dtype, DLManagedTensor **out,
                                              tirx_error *err);
/* The number of bytes a compact tensor of t's shape and dtype occupies. */
TIRX_API tirx_status tirx_tensor_nbytes(const DLTensor *t, size_t *out, tirx_error *err);

/* Validate a capsule received from another framework (version 1.x, a valid
 * dtype and shape) and return its tensor; the capsule stays the caller's,
 * who calls its deleter when done (tirx_dlpack_release does that). */
TIRX_API tirx_status tirx_dlpack_check(const DLManagedTensorVersioned *m, const DLTensor **out,
                                       tirx_error *err);
TIRX_API void tirx_dlpack_release(DLManagedTensorVersioned *m);
/* The same for a legacy (pre-1.0) capsule. */
TIRX_API tirx_status tirx_dlpack_check_legacy(const DLManagedTensor *m, const DLTensor **out,
                                              tirx_error *err);
TIRX_API void tirx_dlpack_release_legacy(DLManagedTensor *m);

typedef enum tirx_copy_kind {
  TIRX_COPY_HOST_TO_DEVICE = 0,
  TIRX_COPY_DEVICE_TO_HOST = 1,
  TIRX_COPY_DEVICE_TO_DEVICE = 2,
} tirx_copy_kind;

/* Copy `bytes` on `stream` (NULL: the default stream); asynchronous with
 * respect to the host for device-to-device copies. */
TIRX_API tirx_status tirx_copy(tirx_runtime *rt, void *dst, const void *src, size_t bytes,
                               tirx_copy_kind kind, void *stream, tirx_error *err);
TIRX_API tirx_status tirx_stream_create(tirx_runtime *rt, void **out, tirx_error *err);
TIRX_API tirx_status tirx_stream_destroy(tirx_runtime *rt, void *stream, tirx_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TIRX_TIRX_H */
