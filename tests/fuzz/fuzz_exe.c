/*
 * fuzz_exe.c - libFuzzer target: loading executable files
 * (tirx_executable_load, runtime/executable.c; the container of
 * abi/exe_format.c, the launch programs of abi/launch_program.c).
 *
 * The input is a file's bytes. As they are, tx_exe_deserialize must accept
 * them or say why not. Then they become a file that gets past the checksum
 * (fuzz_container: a container with its checksum fixed up, or parts that
 * are serialized), so that mutations reach the section parser and the
 * launch-program reader and verifier (abi/launch_program.c) through
 * tirx_executable_load; the raw bytes also go to the program reader
 * directly. A loaded executable is used
 * (fuzz_use_executable: its functions listed, loaded on the fake CUDA
 * driver and called), saved and loaded again, which must give the same
 * functions. Rejections are fine; crashes, sanitizer reports, leaks and
 * errors without a message are bugs.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "abi/exe_format.h"
#include "abi/launch_program.h"
#include "support/file.h"

static char input_path[600], resaved_path[600];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  char dir[512];
  FUZZ_CHECK(fuzz_scratch_dir("exe", dir, sizeof dir), "no scratch directory");
  snprintf(input_path, sizeof input_path, "%s/input.tirxexe", dir);
  snprintf(resaved_path, sizeof resaved_path, "%s/resaved.tirxexe", dir);
  (void)fuzz_fake_runtime();
  return 0;
}

/* The container as given: accepted, or rejected with a reason. */
static void deserialize_as_is(const uint8_t *data, size_t size) {
  tx_exe_parts p;
  char why[256] = "";
  tirx_status st = tx_exe_deserialize((const char *)data, size, &p, why, sizeof why);
  FUZZ_CHECK(st == TIRX_OK || (st == TIRX_ERR_INPUT && why[0]), "deserialize: %s (%s)",
             tirx_status_name(st), why);
  if (st != TIRX_OK) return;
  FUZZ_CHECK(p.nimages > 0 && p.name && p.program, "accepted without an image, name or program");
  for (uint32_t i = 0; i < p.nimages; i++) {
    FUZZ_CHECK(p.images[i].arch && p.images[i].code == TX_EXE_CODE_PTX, "image %u", i);
    for (uint32_t j = 0; j < i; j++)
      FUZZ_CHECK(strcmp(p.images[i].arch, p.images[j].arch) != 0, "two images for %s",
                 p.images[i].arch);
  }
}

/* The bytes as a launch-program section: read and verified, or refused
 * with a reason (abi/launch_program.c). */
static void read_program_as_is(const uint8_t *data, size_t size) {
  tx_lp_module *m = NULL;
  char why[320] = "";
  tirx_status st = tx_lp_read(data, size, NULL, &m, why, sizeof why);
  FUZZ_CHECK(st == TIRX_OK || (st == TIRX_ERR_INPUT && why[0]), "tx_lp_read: %s (%s)",
             tirx_status_name(st), why);
  FUZZ_CHECK((st == TIRX_OK) == (m != NULL), "status %s with module %p", tirx_status_name(st),
             (void *)m);
  for (uint32_t i = 0; m && i < m->nfuncs; i++)
    FUZZ_CHECK(tx_lp_verify(&m->funcs[i], why, sizeof why), "read but not verified: %s", why);
  tx_lp_module_free(m);
}

/* Saving a loaded executable and loading the file gives the same functions. */
static void check_resave(const tirx_executable *exe) {
  tirx_error err = {0};
  FUZZ_CHECK(tirx_executable_save(exe, resaved_path, &err) == TIRX_OK, "save: %s", err.message);
  tirx_executable *again = NULL;
  tirx_status st = tirx_executable_load(resaved_path, &again, &err);
  FUZZ_CHECK(st == TIRX_OK, "a saved executable does not load: %s", err.message);
  size_t n = tirx_executable_func_count(exe);
  FUZZ_CHECK(tirx_executable_func_count(again) == n, "%zu functions, %zu after saving", n,
             tirx_executable_func_count(again));
  for (size_t i = 0; i < n; i++)
    FUZZ_CHECK(strcmp(tirx_executable_func_name(exe, i), tirx_executable_func_name(again, i)) == 0,
               "function %zu renamed by saving", i);
  size_t l1 = 0, l2 = 0;
  const char *p1 = tirx_executable_ptx(exe, &l1), *p2 = tirx_executable_ptx(again, &l2);
  FUZZ_CHECK(l1 == l2 && memcmp(p1, p2, l1) == 0, "PTX changed by saving");
  FUZZ_CHECK(strcmp(tirx_executable_arch(exe), tirx_executable_arch(again)) == 0,
             "arch changed by saving");
  tirx_executable_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  deserialize_as_is(data, size);
  read_program_as_is(data, size);
  size_t len = 0;
  uint8_t *file = fuzz_container(data, size, &len);
  FUZZ_CHECK(fuzz_write_file(input_path, file, len), "cannot write %s", input_path);
  free(file);
  tirx_executable *exe = NULL;
  tirx_error err = {0};
  tirx_status st = tirx_executable_load(input_path, &exe, &err);
  FUZZ_CHECK(st == TIRX_OK || (st == TIRX_ERR_INPUT && err.message[0]), "load: %s (%s)",
             tirx_status_name(st), err.message);
  FUZZ_CHECK((st == TIRX_OK) == (exe != NULL), "status %s with executable %p", tirx_status_name(st),
             (void *)exe);
  if (exe) {
    fuzz_use_executable(exe, fuzz_fake_runtime());
    check_resave(exe);
    tirx_executable_free(exe);
  }
  return 0;
}
