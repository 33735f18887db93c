/*
 * fuzz_mutator.c - a structure-aware libFuzzer mutator for fuzz_exe and
 * fuzz_cache, linked only into the libFuzzer builds (it calls
 * LLVMFuzzerMutate, which only libFuzzer provides).
 *
 * Inputs in the parts form of fuzz_container ("ARCH\0NAME\0LOWERED\0PTX\0
 * KERNEL_INFO") are mutated one part at a time, and a mutated part gets no
 * NUL (which would shift the parts after it). Parts are chosen by weight,
 * not by size: byte-uniform mutations spend nearly all their time in the
 * lowered text (kilobytes, whose parser fuzz_parse covers) and break the
 * host functions that the rest of loading needs, while almost never
 * reaching the kernel info (a few dozen bytes of source-map and cluster
 * lines that the runtime scans with sscanf, which gives the fuzzer no
 * coverage to follow). Half the kernel-info mutations are field-level
 * (mutate_fields). One mutation in eight, and every container-form input,
 * is mutated whole as libFuzzer would.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

enum { NPARTS = 5, KERNEL_INFO = 4 };
/* arch, name, lowered, PTX, kernel info: out of 8. */
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

/* Replace p[off, off + old) by rep[0, n_rep) in a buffer of *n bytes (room
 * at most); 0 when it does not fit. */
static int splice(uint8_t *p, size_t *n, size_t room, size_t off, size_t old, const char *rep,
                  size_t n_rep) {
  if (*n - old + n_rep > room) return 0;
  memmove(p + off + n_rep, p + off + old, *n - off - old);
  memcpy(p + off, rep, n_rep);
  *n = *n - old + n_rep;
  return 1;
}

/* Kernel-info lines ("@src FUNC LINE COL FILE", "KERNEL CX CY CZ") are
 * fields separated by spaces. One field-level change to one line: delete a
 * field, blank it, make it an edge-case number, turn the space before it
 * into another separator, or repeat the line. Returns the new length. */
static size_t mutate_fields(uint8_t *p, size_t n, size_t room, uint32_t *rng) {
  static const char *const EDGE[] = {
      "0", "1", "-1", "4294967295", "4294967296", "2147483648", "18446744073709551616", "", "x"};
  static const char SEPARATORS[] = "\n\t\r\v ";
  if (n == 0) return 0;
  size_t ls = next_random(rng) % n; /* a random line: the one holding this byte */
  while (ls > 0 && p[ls - 1] != '\n')
    ls--;
  size_t le = ls;
  while (le < n && p[le] != '\n')
    le++;
  size_t fields[64][2], nf = 0; /* [start, end) of each field */
  for (size_t i = ls; i < le && nf < 64;) {
    while (i < le && p[i] == ' ')
      i++;
    size_t fs = i;
    while (i < le && p[i] != ' ')
      i++;
    if (i > fs) fields[nf][0] = fs, fields[nf++][1] = i;
  }
  if (nf == 0) return n;
  size_t f = next_random(rng) % nf, fs = fields[f][0], fl = fields[f][1] - fs;
  char blank[256];
  switch (next_random(rng) % 5) {
  case 0: /* delete the field and the space before it */
    splice(p, &n, room, fs > ls ? fs - 1 : fs, fs > ls ? fl + 1 : fl, "", 0);
    break;
  case 1: /* blank it */
    memset(blank, ' ', fl < sizeof blank ? fl : sizeof blank);
    splice(p, &n, room, fs, fl, blank, fl < sizeof blank ? fl : sizeof blank);
    break;
  case 2: {
    const char *e = EDGE[next_random(rng) % (sizeof EDGE / sizeof *EDGE)];
    splice(p, &n, room, fs, fl, e, strlen(e));
    break;
  }
  case 3: /* the separator before it */
    if (fs > ls) p[fs - 1] = (uint8_t)SEPARATORS[next_random(rng) % (sizeof SEPARATORS - 1)];
    break;
  case 4: /* repeat the line */
    if (le < n && n + (le - ls + 1) <= room) {
      memmove(p + le + 1 + (le - ls + 1), p + le + 1, n - le - 1);
      memmove(p + le + 1, p + ls, le - ls + 1);
      n += le - ls + 1;
    }
    break;
  }
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
  size_t n = k == KERNEL_INFO && next_random(&rng) % 2 ? mutate_fields(part, len[k], room, &rng)
                                                       : LLVMFuzzerMutate(part, len[k], room);
  for (size_t i = 0; i < n; i++)
    if (part[i] == 0) part[i] = ' ';
  size_t tail = size - (start[k] + len[k]);
  memmove(data + start[k] + n, data + start[k] + len[k], tail);
  memcpy(data + start[k], part, n);
  free(part);
  return start[k] + n + tail;
}
