/*
 * context.h - what a tirx_ctx and a tirx_module handle are inside the library.
 *
 * The public API (tirx.h) sees both as opaque; the layers below the driver
 * never see them (they take a tx_ir and a tx_diag_sink). A context owns one
 * arena that holds IR, source copies, interned strings and diagnostic
 * messages, so destroying it frees everything at once. Module handles live
 * in that arena.
 */
#ifndef TIRX_DRIVER_CONTEXT_H
#define TIRX_DRIVER_CONTEXT_H

#include "ir/arena.h"
#include "ir/diag.h"
#include "ir/intern.h"
#include "ir/ir.h"
#include "tirx/tirx.h"

/* Wall-clock milliseconds spent in each frontend stage of the most recent
 * tirx_parse_string/tirx_parse_file call on a context (for `tirxc --time`).
 * A stage that did not run reads 0. */
typedef struct tx_timings {
  double read_ms;  /* reading the file (0 for tirx_parse_string) */
  double parse_ms; /* copying the text in and parsing it (tx_parse_times) */
  double build_ms; /* building the module */
} tx_timings;

struct tirx_ctx {
  tx_arena *arena;
  tx_interner *strings;
  tx_diag_sink *diags;
  tx_ir ir; /* arena + strings again, in the form the IR constructors take */
  tx_timings last;
};

struct tirx_module {
  tirx_ctx *ctx;
  const tx_module *mod;
};

/* A context for working on parent's IR without writing into parent: new
 * nodes go to the child's arena, strings parent has keep parent's pointers,
 * diagnostics go to the child and render with parent's sources. parent is
 * only read (it must outlive the child and not change meanwhile: two
 * children of one parent may be used from two threads at once). */
tirx_status tx_ctx_create_child(const tirx_ctx *parent, const tirx_allocator *alloc,
                                tirx_ctx **out);

/* Timings of the last parse on ctx (zeroes when ctx is NULL or none ran). */
void tx_ctx_last_timings(const tirx_ctx *ctx, tx_timings *out);

#endif
