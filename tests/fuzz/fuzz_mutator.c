/*
 * fuzz_mutator.c - a structure-aware libFuzzer mutator for fuzz_exe and
 * fuzz_cache, linked only into the libFuzzer builds (it calls
 * LLVMFuzzerMutate, which only libFuzzer provides).
 *
 * Inputs in the parts form of fuzz_container ("ARCH\0NAME\0OPTIONS\0PTX\0"
 * then the launch programs) are mutated one part at a time, and a mutated
 * text part gets no NUL (which would shift the parts after it). Parts are
 * chosen by weight, not by size: byte-uniform mutations would spend most
 * of their time in the PTX, which only the driver reads, while the launch
 * programs (binary, read and verified by abi/launch_program.c) are what
 * loading must survive. Half the program mutations are word-level
 * (mutate_word: counts and indices set to edge values). One mutation in
 * eight, and every container-form input, is mutated whole as libFuzzer
 * would.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

enum { NPARTS = 5, PROGRAM = 4 };
/* arch, name, options, PTX, launch programs: out of 8. */
static const int PART_WEIGHT[NPARTS] = {1, 1, 1, 1, 4};

static uint32_t next_random(uint32_t *state) {
  uint32_t x = *state ? *state : 0x9e3779b9u; /* xorshift32 */
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

static int pick_part(uint32_t *rng) {
  int k = 0;
  for (uint32_t r = next_random(rng) % 8; (int)r >= PART_WEIGHT[k]; k++)
    r -= (uint32_t)PART_WEIGHT[k];
  return k;
}

/* Part boundaries: part i is [start[i], start[i] + len[i]). Returns 0 when
 * the input does not have all NPARTS parts. */
static int split_parts(const uint8_t *data, size_t size, size_t start[NPARTS], size_t len[NPARTS]) {
  size_t pos = 0;
  for (int i = 0; i < NPARTS; i++) {
    const uint8_t *nul = i + 1 < NPARTS && pos < size ? memchr(data + pos, 0, size - pos) : NULL;
    if (i + 1 < NPARTS && !nul) return 0;
    size_t end = i + 1 < NPARTS ? (size_t)(nul - data) : size;
    start[i] = pos;
    len[i] = end - pos;
    pos = end + 1;
  }
  return 1;
}

/* Launch programs are little-endian u32 counts, indices and ranges
 * (abi/launch_program.c). One word-level change: a u32 at a random offset
 * becomes an edge value (a count one too big, an index past the end, the
 * stack limit, a huge length). Returns the length (unchanged). */
static size_t mutate_word(uint8_t *p, size_t n, uint32_t *rng) {
  static const uint32_t EDGE[] = {0,     1,           2,           7,           63,
                                  64,    65,          255,         256,         65536,
                                  65537, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu};
  if (n < 4) return n;
  size_t off = next_random(rng) % (n - 3);
  uint32_t v = EDGE[next_random(rng) % (sizeof EDGE / sizeof *EDGE)];
  memcpy(p + off, &v, 4);
  return n;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  size_t start[NPARTS], len[NPARTS];
  uint32_t rng = seed;
  if (next_random(&rng) % 8 == 0 || size > max_size ||
      (size >= 8 && memcmp(data, "TIRXEXE", 8) == 0) || !split_parts(data, size, start, len))
    return LLVMFuzzerMutate(data, size, max_size);
  int k = pick_part(&rng);
  size_t room = max_size - (size - len[k]); /* what part k may grow to */
  if (room == 0) return LLVMFuzzerMutate(data, size, max_size);
  uint8_t *part = malloc(room);
  if (!part) return LLVMFuzzerMutate(data, size, max_size);
  memcpy(part, data + start[k], len[k]);
  size_t n = k == PROGRAM && next_random(&rng) % 2 ? mutate_word(part, len[k], &rng)
                                                   : LLVMFuzzerMutate(part, len[k], room);
  for (size_t i = 0; k != PROGRAM && i < n; i++)
    if (part[i] == 0) part[i] = ' '; /* the program is last: its NULs shift nothing */
  size_t tail = size - (start[k] + len[k]);
  memmove(data + start[k] + n, data + start[k] + len[k], tail);
  memcpy(data + start[k], part, n);
  free(part);
  return start[k] + n + tail;
}
