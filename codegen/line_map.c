/*
 * line_map.c - the generated-line -> TIRx-span table that lets NVRTC errors
 * point back at kernel source (codegen.h).
 */
#include <stdlib.h>

#include "codegen/codegen.h"

void tx_line_map_free(tx_line_map *map) {
  if (!map) return;
  free(map->lines);
  map->lines = NULL;
  map->len = map->cap = 0;
}
