/*
 * stand_in.c - a test tool: copy an executable file, replacing its device
 * code with a stand-in PTX text, so that the fake libcuda (which loads any
 * image) can "launch" the kernels of an executable compiled --host-only on
 * a machine without NVRTC.
 *
 *   stand_in IN.tirxexe OUT.tirxexe
 */
#include <stdio.h>
#include <stdlib.h>

#include "abi/exe_format.h"
#include "support/file.h"

int main(int argc, char **argv) {
  static const char PTX[] = "// stand-in PTX for the fake driver\n";
  if (argc != 3) {
    fprintf(stderr, "usage: stand_in IN.tirxexe OUT.tirxexe\n");
    return 2;
  }
  char *data = NULL, why[256];
  size_t len = 0;
  tx_exe_parts p;
  if (tx_read_file(NULL, argv[1], &data, &len) != 0 ||
      tx_exe_deserialize(data, len, &p, why, sizeof why) != TIRX_OK) {
    fprintf(stderr, "stand_in: cannot read %s\n", argv[1]);
    free(data);
    return 1;
  }
  tx_exe_parts_set_ptx(&p, PTX, sizeof PTX - 1);
  tx_strbuf out = {0};
  int ok = tx_exe_serialize(&p, &out) == TIRX_OK &&
           tx_file_write(argv[2], out.data, out.len, TX_WRITE_DEFAULT) == 0;
  tx_sb_free(&out);
  free(data);
  if (!ok) fprintf(stderr, "stand_in: cannot write %s\n", argv[2]);
  return ok ? 0 : 1;
}
