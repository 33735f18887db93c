/*
 * fuzz_common.h - what the fuzz targets of tests/fuzz share: the check that
 * turns a broken invariant into a crash libFuzzer reports, the executable
 * container's checksum fix-up, scratch directories, and one routine that
 * exercises a loaded executable (functions, parameters, a load and calls
 * through the fake CUDA driver). Test code: it may print and trap; the
 * library it drives may not.
 */
#ifndef TIRX_TESTS_FUZZ_COMMON_H
#define TIRX_TESTS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tirx/tirx.h"

/* libFuzzer's entry points (replay_main.c calls them too). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A broken invariant is a bug: say which, then trap so that the fuzzer (or
 * the replay run) stops with this input as the reproducer. */
#define FUZZ_CHECK(cond, ...)                                                                      \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "fuzz check failed (%s:%d): %s: ", __FILE__, __LINE__, #cond);               \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      __builtin_trap();                                                                            \
    }                                                                                              \
  } while (0)

/* The smallest container tx_exe_deserialize looks into: magic, version,
 * section count and the checksum. */
enum { FUZZ_EXE_MIN_LEN = 24 };

/* Overwrite the container's last 8 bytes with the FNV-1a-64 of the bytes
 * before them (runtime/cache.c's checksum), so that mutated files get past
 * the checksum check into the section parser and the loader. Inputs shorter
 * than FUZZ_EXE_MIN_LEN are left as they are. */
void fuzz_fix_checksum(uint8_t *data, size_t size);

/* An executable file's bytes from a fuzz input, in one of two forms:
 * - a container (starts with "TIRXEXE\0"): copied, its checksum fixed up,
 *   so mutations reach the section parser;
 * - anything else: parts, "ARCH\0NAME\0OPTIONS\0PTX\0" and the launch
 *   programs to the end (missing ones empty), serialized with
 *   tx_exe_serialize, so mutations of the programs keep the section
 *   lengths right and reach the program reader.
 * Returns a malloc'ed buffer and its length in *len. */
uint8_t *fuzz_container(const uint8_t *data, size_t size, size_t *len);

/* A fresh scratch directory (under $TMPDIR, else /dev/shm, else /tmp) that
 * is removed with its files when the process exits normally. Returns 0
 * when none can be made. */
int fuzz_scratch_dir(const char *tag, char *out, size_t cap);

/* Write data to path (replacing it); 0 on failure. */
int fuzz_write_file(const char *path, const void *data, size_t size);

/* A runtime on the fake CUDA driver (tests/unit/fake/fake_cuda.c), opened
 * once; NULL when the build names no fake driver or it cannot be opened. */
tirx_runtime *fuzz_fake_runtime(void);

/* Use every function of exe the way a program would: names, parameter
 * descriptions, and, when rt is given, a load and one call per function
 * with arguments built from those descriptions (host memory stands in for
 * device memory: the fake driver never touches it). Traps on broken
 * invariants (a function without a name, an error without a message). */
void fuzz_use_executable(const tirx_executable *exe, tirx_runtime *rt);

#endif
