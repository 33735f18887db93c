/*
 * build_internal.h - state shared by the builder's files (builder.c for
 * modules and functions, build_stmt.c, build_expr.c, build_buffer.c).
 *
 * Not a public interface: only the frontend includes it.
 */
#ifndef TIRX_FRONTEND_BUILD_INTERNAL_H
#define TIRX_FRONTEND_BUILD_INTERNAL_H

#include "frontend/ast.h"
#include "frontend/builder.h"
#include "ir/intrinsics.h"
#include "ir/ir.h"
#include "ir/ptrmap.h"
#include "support/strbuf.h"

/* What a name in scope stands for. */
typedef enum sym_kind {
  SYM_VAR,         /* a variable (let, loop, scope id, param, symbolic) */
  SYM_BUFFER,      /* a buffer */
  SYM_CONST,       /* a module-level constant, substituted where used */
  SYM_MODULE_TIRX, /* the tvm.script.tirx module (T, Tx, ...) */
  SYM_MODULE_IR,   /* the tvm.script.ir module (I) */
  SYM_MODULE_TILE, /* tvm.script.tirx.tile imported on its own */
  SYM_LAYOUT_NAME, /* a name imported from tvm.tirx.layout: TileLayout, S, R, Axis, laneid */
} sym_kind;

typedef enum var_mutability {
  MUT_NONE,   /* plain binding: a new `x = ...` shadows it */
  MUT_LET,    /* T.let: reassigning is an error */
  MUT_SCALAR, /* scalar sugar: assignments update it */
  MUT_FIXED,  /* loop variable, scope id, parameter: may not be reassigned */
} var_mutability;

typedef struct symbol {
  const char *name; /* interned */
  sym_kind kind;
  var_mutability mut;
  const tx_expr *expr;     /* SYM_VAR, SYM_CONST */
  const tx_buffer *buffer; /* SYM_BUFFER */
  const char *alias_of;    /* SYM_LAYOUT_NAME: the imported name */
  tirx_span span;          /* where it was defined */
  int prev;                /* index of the shadowed symbol with the same name, or -1 */
  int scalar;              /* SYM_BUFFER from T.shared_scalar: the name means element [0] */
} symbol;

/* A growable array of pointers, copied into the arena when finished. */
typedef struct ptr_vec {
  const void **items;
  uint32_t len, cap;
  const tirx_allocator *alloc; /* where items came from (set by vec_push) */
} ptr_vec;

typedef struct builder {
  tx_ir *ir;
  tx_diag_sink *diags;
  const char *file;
  int oom;

  symbol *syms;
  uint32_t nsyms, syms_cap;
  int *heads; /* hash of name -> index of the innermost symbol, -1 when none */
  uint32_t heads_cap;

  /* Per-function state. */
  int in_function;
  int s_tir; /* the function is @T.prim_func(s_tir=True): blocks are allowed */
  int loop_depth;
  int flat_entry_seen;         /* a flat T.device_entry(): the rest of the function is its kernel */
  int entry_depth;             /* inside with-form device entries */
  int if_depth;                /* inside if/else arms */
  uint8_t dialect;             /* tx_dialect the file is written in (dialect_tirx.c sets it) */
  uint8_t dialect_fixed;       /* an import of tvm.script or tvm_tirx.script decided it */
  const tx_stmt *launch_entry; /* T.device_entry(launch=T.cuda.LaunchConfig(...)), or NULL */
  tirx_span dyn_shared_span;   /* first shared.dyn allocation (line 0: none) */
  ptr_vec symbolic;            /* symbolic vars of the current function */
  ptr_vec attr_keys, attr_values;
  tx_strbuf qualified;        /* scratch for bld_qualified_name, reused across calls */
  tx_ptrmap dtype_of;         /* interned "T.float32" -> its dtype + 1 (bld_dtype_attr's memo) */
  uint32_t quoted_dims;       /* the shape being built: dims written as strings (bit i: dim i) */
  uint32_t quoted_strides;    /* the same for its strides (each a new variable) */
  int slice_steps;            /* building a store target: A[a:b:2] may have a step */
  tx_ptrmap func_of;          /* interned function name -> its first tx_func (redefinitions) */
  int funcs_full;             /* TX_MAX_FUNCS was reported; later functions are dropped */
  const tx_ast *module_class; /* the @I.ir_module class being built: `Module.f(...)` calls */

  /* Frequently compared names, interned once. */
  struct {
    const char *T, *I, *range, *None, *dtype, *scope, *data, *strides, *elem_offset, *align,
        *offset_factor, *layout, *allocated_addr, *shape, *thread, *preferred, *private_,
        *annotations, *step, *global, *shared, *shared_dyn, *local, *m, *where;
  } n;
} builder;

/* ---- builder.c: scopes, errors, helpers ---- */
int bld_push_symbol(builder *b, symbol sym); /* returns its index or -1 */
const symbol *bld_lookup(const builder *b, const char *name);
uint32_t bld_scope_mark(const builder *b);
void bld_scope_pop(builder *b, uint32_t mark);
const char *bld_intern(builder *b, const char *s);
void bld_oom(builder *b);
/* The context's allocator, for the builder's scratch memory. */
const tirx_allocator *bld_alloc(const builder *b);
int vec_push(builder *b, ptr_vec *v, const void *item);
const void *const *vec_finish(builder *b, ptr_vec *v); /* copies to arena and resets */
void vec_free(ptr_vec *v);

/* The dotted name of a callee or attribute chain, canonicalised: aliases of
 * tirx become "T", `T.ptx["a.b"]` becomes "T.ptx.a.b". NULL when the chain
 * does not start at a module alias or a layout import (e.g. a buffer method).
 * `root` (optional) receives the symbol the chain starts from. */
const char *bld_qualified_name(builder *b, const tx_ast *callee, const symbol **root);

/* TVM's attribute-chain spelling of a raw PTX opcode, T.ptx.fence.proxy.async_.shared__cta,
 * as the name its subscript form T.ptx["fence.proxy.async.shared::cta"] gets; NULL when q
 * is not T.ptx.<chain> or its first token is not a PTX instruction name. */
const char *bld_ptx_chain_name(builder *b, const char *q);

/* The op name of a raw-opcode call T.ptx["..."] whose qualified name is q: q
 * itself when it prints as something that parses back to q (a bracketed name,
 * or a dotted one that bld_ptx_chain_name reads as itself), else the bracketed
 * spelling of the same opcode, so that T.ptx["t"] does not print as T.ptx.t
 * (no PTX instruction 't': an unknown intrinsic). NULL when out of memory. */
const char *bld_raw_ptx_name(builder *b, const char *q);

/* Is `call` (qualified name q, written as an attribute chain) TVM's printed
 * table form of the PTX dialect, T.ptx.fence("proxy", "async", "shared::cta", "")
 * (ir/ptx_dialect.h has the rule)? 1 yes, 0 no (an older helper of the
 * same name, or not a T.ptx family), -1 after a located error: the form's
 * shape with tokens no entry of the family takes. */
int bld_ptx_printed_form(builder *b, const tx_ast *call, const char *q);

/* T.cuda.block_idx("x") / T.cuda.thread_idx("y") after
 * T.device_entry(launch=T.cuda.LaunchConfig(grid=..., block=...)) (b->launch_entry
 * set): the T.launch_thread call with the extent from the launch config; NULL
 * after a located error. Without a launch config they stay the registered
 * intrinsics (blockIdx.x). Defined in build_stmt.c. */
const tx_expr *bld_launch_index(builder *b, const tx_ast *call, const char *q);

/* ---- build_expr.c ---- */
const tx_expr *bld_expr(builder *b, const tx_ast *ast);
/* Like bld_expr, but a tuple or list becomes EXPR_TUPLE, a dict is refused,
 * and slices are kept for buffer regions. Used for call arguments. */
const tx_expr *bld_arg(builder *b, const tx_ast *ast);
/* Build a call's positional and keyword operands. Returns 0 after an error. */
int bld_call_operands(builder *b, const tx_ast *call, uint32_t skip_pos, ptr_vec *ops,
                      ptr_vec *kw_names, uint32_t *npos);
/* tx_kwargs.source_ops of a call whose operands bld_call_operands built (skip_pos 0)
 * after `first` others: the arguments written TVM's `x.source[0]` of scalar sugar. */
uint32_t bld_source_operands(builder *b, const tx_ast *call, uint32_t first);
/* A dtype written as "float32" or T.float32. Returns 0 (after reporting) when not one. */
int bld_dtype(builder *b, const tx_ast *ast, tx_dtype *out);
/* A type annotation T.int32 / T.float16 / T.handle(...): 0 when not a dtype. */
int bld_dtype_attr(builder *b, const tx_ast *ast, tx_dtype *out, int report);
/* A tensor-map annotation: T.TensorMap() or T.handle("tensormap") (TVM also
 * takes "TensorMap", "CUtensorMap" and "cuTensorMap"). 1 when it is one. */
int bld_tensormap_type(builder *b, const tx_ast *ast);
/* A pointer type T.handle(["dtype"[, "scope"]], dtype=..., storage_scope=...)
 * (TVM's PointerType): *pointee is void and *has_pointee 0 without a dtype,
 * *scope (interned) NULL without a scope. Returns 0 when `ast` is not a call
 * of T.handle (nothing reported) and -1 after a located error. A tensor-map
 * handle is not a pointer type here: check bld_tensormap_type first. */
int bld_pointer_type(builder *b, const tx_ast *ast, tx_dtype *pointee, int *has_pointee,
                     const char **scope);
/* Give a variable bound to handle `value` the pointer type the value has
 * (TVM's Bind takes the value's type): T.reinterpret(T.handle("uint64",
 * "shared"), x) makes a uint64* in shared memory. */
void bld_copy_pointer_type(builder *b, tx_expr *var, const tx_expr *value);
/* A (1,)-shaped buffer named as an operand (TVM's printer writes such buffers as
 * scalars) becomes its element [0]; any other e is returned as it is. */
const tx_expr *bld_scalar_value(builder *b, const tx_expr *e);
/* Convert `e` to dtype `t` where a literal can be retyped; otherwise cast or error. */
const tx_expr *bld_coerce(builder *b, const tx_expr *e, tx_dtype t, tirx_span span,
                          const char *what);
/* An integer constant known at parse time. */
int bld_const_int(const tx_expr *e, int64_t *out);

/* ---- build_buffer.c ---- */
typedef enum buffer_ctor {
  CTOR_NONE,
  CTOR_BUFFER, /* T.Buffer(...) parameter annotation */
  CTOR_MATCH,
  CTOR_ALLOC,
  CTOR_ALLOC_SHARED,
  CTOR_ALLOC_LOCAL,
  CTOR_DECL,
  CTOR_DECL_SCALAR,
} buffer_ctor;
buffer_ctor bld_buffer_ctor_of(builder *b, const tx_ast *call);
/* Build the buffer declared by a constructor call. `handle` is the matched
 * parameter for T.match_buffer. NULL after an error. */
tx_buffer *bld_buffer(builder *b, buffer_ctor ctor, const tx_ast *call, const char *name,
                      tirx_span span);
/* X = A.view(...) / A.permute(...) / A.local(...): a new view buffer, or NULL. */
tx_buffer *bld_buffer_view(builder *b, const tx_ast *call, const char *name, tirx_span span);
int bld_is_buffer_view_call(builder *b, const tx_ast *call);
const tx_layout *bld_layout(builder *b, const tx_ast *ast);
int bld_is_layout_call(builder *b, const tx_ast *ast);

/* ---- build_stmt.c ---- */
/* Build a block of statements into one statement (a SEQ when needed). */
const tx_stmt *bld_block(builder *b, const tx_ast_list *stmts);
/* Function-level statement handling needs these from builder.c. */
int bld_is_tirx_call(builder *b, const tx_ast *ast, const char *qualified);

/* `name = value` (build_stmt.c): a binding, an assignment or a store. */
const tx_stmt *bld_assign_name(builder *b, const tx_ast *target, const tx_ast *value,
                               tirx_span span);

/* The tvm_tirx dialect (dialect_tirx.c, docs/dialects.md). */
const char *bld_dialect_module(builder *b, const char *mod);
int bld_dialect_func_decorator(builder *b, const char *q);
int bld_dialect_module_decorator(builder *b, const char *q);
const tx_stmt *bld_bind_call(builder *b, const tx_ast *call);
const tx_ast *bld_bind_value(builder *b, const tx_ast *call);
tx_expr *bld_ptr_param(builder *b, const tx_ast *ann, const char *name, tirx_span span);
int bld_ptr_type(builder *b, const tx_ast *ann, tx_dtype *pointee, int *has_pointee,
                 const char **scope);
int bld_dynamic_dtype(builder *b, const tx_ast *target, const tx_ast *value, tx_dtype *out);
int bld_type_params(builder *b, const tx_ast *fn);
const char *bld_dialect_op(builder *b, const tx_ast *call, const char *q);
const tx_ast *bld_dialect_ty_args(builder *b, const tx_ast *call, tx_ast *scratch);
int bld_dialect_push_stmt(builder *b, ptr_vec *items, const tx_stmt *s, int last);

/* ---- build_sblock.c: S-TIR blocks ---- */
/* `with T.sblock(...)`: call is the T.sblock call, body the with-body. */
const tx_stmt *bld_sblock(builder *b, const tx_ast *call, const tx_ast_list *body, tirx_span span);
/* The body of an s_tir function: leading T.sblock_alloc_buffer statements,
 * then the statements, in an implicit root block where TVM makes one. */
const tx_stmt *bld_s_tir_body(builder *b, const tx_ast_list *body, tirx_span span);
/* The qualified name of a block-header call (T.reads, T.axis.*, T.init ...)
 * when `call` is one, else NULL: outside a block header they are errors. */
const char *bld_sblock_header_op(builder *b, const tx_ast *call);

/* ---- build_target.c ---- */
/* T.target("cuda") / T.target({...}): the config kept as written. */
const tx_expr *bld_target(builder *b, const tx_ast *call);

/* A span covering a node. */
static inline tirx_span bld_span(const tx_ast *ast) {
  return ast ? ast->span : (tirx_span){0};
}

/* A located error, unless an allocation failed already: then what looks
 * wrong (a name that did not intern reads as unknown) may be its doing, and
 * the parse ends as out of memory anyway. */
#define BLD_ERROR(b, ast, ...)                                                                     \
  ((b)->oom ? (void)0 : tx_error((b)->diags, bld_span(ast), __VA_ARGS__))

#endif
