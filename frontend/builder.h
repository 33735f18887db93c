/*
 * builder.h - from the Python syntax tree to TIRx IR.
 *
 * Resolves the `T.*` vocabulary, checks the program's meaning (names, index
 * counts, types, scope ids, launch extents, literal ranges) and reports every
 * problem as a located diagnostic. Never prints, never exits.
 */
#ifndef TIRX_FRONTEND_BUILDER_H
#define TIRX_FRONTEND_BUILDER_H

#include "frontend/ast.h"
#include "ir/diag.h"
#include "ir/ir.h"

/* Build a module from a parsed file. Returns TIRX_OK with *out set,
 * TIRX_ERR_INPUT after errors (reported to diags), or TIRX_ERR_NOMEM. */
tirx_status tx_build_module(tx_ir *ir, tx_diag_sink *diags, const char *file,
                            const tx_ast_list *stmts, tx_module **out);

#endif
