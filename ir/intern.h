/*
 * intern.h - string interning.
 *
 * Equal strings intern to the same pointer, so names compare with ==. The
 * strings live in the arena given at creation; the table itself comes from
 * the arena's allocator.
 */
#ifndef TIRX_IR_INTERN_H
#define TIRX_IR_INTERN_H

#include <stddef.h>

#include "ir/arena.h"

typedef struct tx_interner tx_interner;

tx_interner *tx_interner_create(tx_arena *arena);
/* An interner that first looks strings up in parent (read, never written:
 * parent must outlive it and not change while it is used). */
tx_interner *tx_interner_create_child(tx_arena *arena, const tx_interner *parent);
void tx_interner_destroy(tx_interner *interner);
/* The interned copy of s[0..n), or NULL when out of memory. */
const char *tx_intern_n(tx_interner *interner, const char *s, size_t n);
const char *tx_intern(tx_interner *interner, const char *s);

#endif
