/*
 * fuzz_cache.c - libFuzzer target: compile-cache entries read back
 * (runtime/api.c cache_lookup, runtime/cache.c).
 *
 * At start-up one kernel is compiled (host_only) into an empty disk cache
 * to learn its entry's file name. Each input, made into a container that
 * gets past the checksum (fuzz_container, as in fuzz_exe.c), replaces that
 * entry; then the same kernel is compiled three
 * times, with disk_cache on:
 *   1. with a fresh in-memory cache: must succeed whatever the entry holds
 *      (a damaged entry is a miss that recompiles and rewrites it);
 *   2. with the same memory cache: must be a hit with the same functions;
 *   3. without the memory cache: must be a disk hit (the entry is now
 *      whole: the input, or what step 1 rewrote) with the same functions.
 * The executable of step 1 is used through the fake driver like fuzz_exe's.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

static const char KERNEL[] =
    "# from tvm.script import tirx as T\n\n"
    "n = T.int32()\n\n"
    "@T.prim_func\n"
    "def scale_dyn(A: T.Buffer((n,), \"float32\"), B: T.Buffer((n,), \"float32\"), s: T.float32):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([1])\n"
    "    for i in range(n):\n"
    "        B[i] = A[i] * s\n";

static char cache_dir[512], entry_path[1024];

static tirx_executable *compile_kernel(tirx_cache *memory) {
  tirx_compile_options o;
  tirx_compile_options_init(&o);
  o.host_only = 1;
  o.disk_cache = 1;
  o.cache_dir = cache_dir;
  o.cache = memory;
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  tirx_status st = tirx_compile("cached.tirx", KERNEL, sizeof KERNEL - 1, &o, &exe, &err);
  FUZZ_CHECK(st == TIRX_OK && exe, "compiling through the cache: %s (%s)", tirx_status_name(st),
             err.message);
  return exe;
}

/* The one entry file in cache_dir (temporary files start with '.'). */
static int find_entry(void) {
  DIR *d = opendir(cache_dir);
  if (!d) return 0;
  int found = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    if (e->d_name[0] == '.' || n < 8 || strcmp(e->d_name + n - 8, ".tirxexe") != 0) continue;
    snprintf(entry_path, sizeof entry_path, "%s/%s", cache_dir, e->d_name);
    found++;
  }
  closedir(d);
  return found == 1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  FUZZ_CHECK(fuzz_scratch_dir("cache", cache_dir, sizeof cache_dir), "no scratch directory");
  tirx_executable_free(compile_kernel(NULL));
  FUZZ_CHECK(find_entry(), "compiling wrote no single entry into %s", cache_dir);
  (void)fuzz_fake_runtime();
  return 0;
}

static void check_same_functions(const tirx_executable *a, const tirx_executable *b,
                                 const char *what) {
  size_t n = tirx_executable_func_count(a);
  FUZZ_CHECK(tirx_executable_func_count(b) == n, "%s: %zu functions, then %zu", what, n,
             tirx_executable_func_count(b));
  for (size_t i = 0; i < n; i++)
    FUZZ_CHECK(strcmp(tirx_executable_func_name(a, i), tirx_executable_func_name(b, i)) == 0,
               "%s: function %zu differs", what, i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t len = 0;
  uint8_t *entry = fuzz_container(data, size, &len);
  FUZZ_CHECK(fuzz_write_file(entry_path, entry, len), "cannot write %s", entry_path);
  free(entry);
  tirx_cache *memory = NULL;
  FUZZ_CHECK(tirx_cache_create(&memory) == TIRX_OK, "cache");
  tirx_executable *first = compile_kernel(memory);
  fuzz_use_executable(first, fuzz_fake_runtime());
  tirx_executable *second = compile_kernel(memory);
  FUZZ_CHECK(tirx_executable_from_cache(second), "the second compile missed the memory cache");
  uint64_t hits = 0, entries = 0;
  tirx_cache_stats(memory, &hits, &entries);
  FUZZ_CHECK(hits == 1 && entries == 1, "memory cache: %llu hits, %llu entries",
             (unsigned long long)hits, (unsigned long long)entries);
  check_same_functions(first, second, "memory hit");
  tirx_executable *third = compile_kernel(NULL);
  FUZZ_CHECK(tirx_executable_from_cache(third), "the entry is not whole after a compile");
  check_same_functions(first, third, "disk hit");
  tirx_executable_free(third);
  tirx_executable_free(second);
  tirx_executable_free(first);
  tirx_cache_destroy(memory);
  return 0;
}
