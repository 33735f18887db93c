/*
 * printer.h - canonical TVMScript text of IR.
 *
 * Output is deterministic: it depends only on the IR, never on pointers.
 */
#ifndef TIRX_IR_PRINTER_H
#define TIRX_IR_PRINTER_H

#include "ir/ir.h"
#include "support/strbuf.h"

/* mod in the dialect it was written in (mod->dialect). */
void tx_print_module(const tx_module *mod, tx_strbuf *out);
/* mod in `dialect` (ir/dialect.h): converts between TVMScript dialects. */
void tx_print_module_in(const tx_module *mod, tx_dialect dialect, tx_strbuf *out);
void tx_print_func(const tx_func *func, tx_strbuf *out);
/* Single nodes, for debugging and diagnostics (no header, names as-is). */
void tx_print_expr(const tx_expr *e, tx_strbuf *out);
void tx_print_stmt(const tx_stmt *s, int indent, tx_strbuf *out);
void tx_print_layout(const tx_layout *l, tx_strbuf *out);

#endif
