/*
 * arena.h - bump allocation for everything a context owns.
 *
 * IR nodes, AST nodes, interned strings and diagnostics are allocated here and
 * freed together when the arena is destroyed. Allocation returns NULL on
 * failure; nothing here aborts or exits. The arena carries the allocator it
 * was made with, so whatever holds an arena (a tx_ir, a context) reaches
 * the allocator for its scratch memory too.
 */
#ifndef TIRX_IR_ARENA_H
#define TIRX_IR_ARENA_H

#include <stddef.h>

#include "tirx/tirx.h"

typedef struct tx_arena tx_arena;

/* An arena whose chunks (and itself) come from `alloc` (NULL: malloc). The
 * allocator struct is copied; its fn and ud must outlive the arena. */
tx_arena *tx_arena_create(const tirx_allocator *alloc);
void tx_arena_destroy(tx_arena *arena);
/* The arena's copy of its allocator (never NULL; its fn is NULL for
 * malloc), valid as long as the arena. */
const tirx_allocator *tx_arena_allocator(const tx_arena *arena);
/* A new arena with the allocator and chunk sizes of `model` (scratch
 * arenas of a context, such as the parser's). */
tx_arena *tx_arena_create_like(const tx_arena *model);
/* Every chunk from now on is `bytes` long (larger requests still get one
 * of their own). For allocation-failure tests: with small chunks, IR
 * construction reaches the allocator often, so a failure can land in the
 * middle of any pass. */
void tx_arena_set_chunk_bytes(tx_arena *arena, size_t bytes);
/* Zeroed, max_align_t-aligned memory, or NULL when out of memory. */
void *tx_arena_alloc(tx_arena *arena, size_t size);
/* Copy of s[0..n) with a terminating NUL, or NULL. */
char *tx_arena_strndup(tx_arena *arena, const char *s, size_t n);
/* Copy of n elements of size elem (NULL for n == 0 or out of memory). */
void *tx_arena_dup(tx_arena *arena, const void *src, size_t n, size_t elem);
/* Bytes handed out so far (for benchmarks and leak tests). */
size_t tx_arena_used(const tx_arena *arena);

#endif
