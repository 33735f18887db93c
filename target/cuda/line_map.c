/*
 * line_map.c - the generated-line -> TIRx-span table that lets NVRTC errors
 * point back at kernel source (codegen.h).
 */
#include "target/cuda/codegen.h"
#include "support/mem.h"

void tx_line_map_free(tx_line_map *map) {
  if (!map) return;
  tx_mem_free(map->alloc, map->lines);
  map->lines = NULL;
  map->len = map->cap = 0;
}
