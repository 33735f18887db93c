/*
 * ir.h - the TIRx IR: expressions, statements, buffers, layouts, functions
 * and modules.
 *
 * Nodes are immutable once built and live in the arena of a tx_ir (owned by
 * a tirx_ctx). The kind tables (expr_kinds.def, stmt_kinds.def) are the single
 * list of node kinds. Every node keeps its operands in uniform arrays, so
 * walking, comparing and rebuilding need no per-kind code; the comments in
 * the tables say which operand is which.
 *
 * Identity: a variable or buffer is its pointer. Names are interned strings
 * used only for printing; two variables may share a name.
 */
#ifndef TIRX_IR_IR_H
#define TIRX_IR_IR_H

#include <stddef.h>
#include <stdint.h>

#include "ir/arena.h"
#include "ir/dialect.h"
#include "abi/dtype.h"
#include "ir/intern.h"
#include "tirx/tirx.h"

typedef enum tx_expr_kind {
#define X(kind, name, printer) kind,
#include "ir/expr_kinds.def"
#undef X
  TX_EXPR_KIND_COUNT
} tx_expr_kind;

typedef enum tx_stmt_kind {
#define X(kind, name, printer) kind,
#include "ir/stmt_kinds.def"
#undef X
  TX_STMT_KIND_COUNT
} tx_stmt_kind;

typedef struct tx_expr tx_expr;
typedef struct tx_stmt tx_stmt;
typedef struct tx_buffer tx_buffer;
typedef struct tx_layout tx_layout;

/* Keyword arguments ride in ops[]/exprs[] after the positional ones; names
 * has one entry per keyword (interned). */
typedef struct tx_kwargs {
  uint32_t npos;            /* positional operands come first */
  const char *const *names; /* count = nops - npos */
  /* Bit i set: operand i, a scalar-sugar variable x (VAR_SCALAR), was written
   * TVM's `x.source[0]` (the region of x's one-element storage; TVM 0.27
   * prints a tile operand on scalar sugar that way) and prints so again; the
   * first 32 operands only. A spelling: equal.c ignores it. */
  uint32_t source_ops;
} tx_kwargs;

/* ---- Expressions ----------------------------------------------------------- */

/* What a variable is declared as, for printing and checking. */
typedef enum tx_var_form {
  VAR_PLAIN,       /* bound by a let, a loop or a scope id */
  VAR_PARAM,       /* a scalar or handle parameter */
  VAR_SYMBOLIC,    /* a free symbolic extent: `n = T.int32()` */
  VAR_SCALAR,      /* scalar sugar `x: T.int32 = 0`: a mutable one-element local */
  VAR_BUFFER_DATA, /* the data pointer of a buffer */
} tx_var_form;

typedef struct tx_var_info {
  const char *name;
  tx_var_form form;
  tx_dtype pointee;  /* for handles: T.handle("float32", "shared") */
  const char *scope; /* for handles with a storage scope; NULL when none */
  int has_pointee;
  /* A handle to a CUDA tensor map (TVM's PointerType(TensorMapType):
   * `T.handle("tensormap")`, printed `T.TensorMap()`): host storage filled by
   * runtime.cuTensorMapEncodeTiled, a by-value __grid_constant__ kernel
   * parameter on the device. has_pointee is 0 for it. */
  uint8_t tensormap;
  /* VAR_SYMBOLIC declared at module level as `n = TypeVar("n")` (Python's typing.TypeVar,
   * how TVM prints a function's int64 symbolic shape variables): printed that way. */
  uint8_t typevar;
} tx_var_info;

struct tx_expr {
  uint8_t kind; /* tx_expr_kind */
  /* EXPR_INT of bool type written as a bare Python `True`/`False` (a Python
   * value, as TVM keeps tile-primitive flags) rather than T.bool(...). */
  uint8_t python_bool;
  /* EXPR_CALL of T.handle(...) written as TVM's type object `T.handle(...).ty` (a
   * pointer type; printed back with the suffix). */
  uint8_t type_object;
  /* EXPR_NE `x != 0` the frontend made of an integer if/while condition
   * (`if x:`, tested against zero as Python does): printed as the bare `x`
   * there, as TVM keeps the integer condition. A spelling: equal.c ignores it. */
  uint8_t implicit_truth;
  /* Written with TVM's `.source` (TVM 0.27 prints a one-element buffer's
   * element as the bare name and the buffer as `A.source`), printed so again:
   * EXPR_BUFFER `A.source`, EXPR_LOAD / EXPR_REGION `A.source[0]`, and
   * EXPR_CALL `T.address_of(x)` of a scalar-sugar x written `x.source.data`.
   * A spelling: equal.c ignores it. */
  uint8_t source_form;
  tx_dtype dtype;
  uint32_t nops;
  const tx_expr *const *ops;
  tirx_span span;
  union {
    int64_t ival; /* EXPR_INT (uint64 values keep their bits) */
    double fval;  /* EXPR_FLOAT */
    struct {
      const char *data;
      size_t len;
    } str;                   /* EXPR_STRING */
    tx_var_info var;         /* EXPR_VAR */
    const tx_expr *binder;   /* EXPR_LET: the variable it binds */
    const tx_buffer *buffer; /* EXPR_LOAD, EXPR_BUFFER, EXPR_REGION */
    const tx_layout *layout; /* EXPR_LAYOUT */
    int is_list;             /* EXPR_TUPLE: printed [a, b] instead of (a, b) */
    struct {
      const char *op; /* interned full name: "T.ptx.mma", "T.exp", "A.vload" ... */
      tx_kwargs kw;
    } call; /* EXPR_CALL */
  } u;
};

/* ---- Buffers --------------------------------------------------------------- */

/* How a buffer was declared; the printer writes it back the same way. */
typedef enum tx_buffer_form {
  BUF_PARAM,        /* A: T.Buffer((..), "dtype") in the parameter list */
  BUF_MATCH,        /* A = T.match_buffer(handle, ...); in an S-TIR block
                       (STMT_DECL) origin is the matched region A[i, 0:16] */
  BUF_ALLOC,        /* T.alloc_buffer */
  BUF_ALLOC_SHARED, /* T.alloc_shared */
  BUF_ALLOC_LOCAL,  /* T.alloc_local */
  BUF_DECL,         /* T.decl_buffer */
  BUF_DECL_SCALAR,  /* T.decl_scalar */
  BUF_LOCAL_SCALAR, /* T.local_scalar */
  BUF_VIEW,         /* X = A.view(...) / A.permute(...) / A.local(...) : see origin */
  BUF_SBLOCK_ALLOC, /* T.sblock_alloc_buffer: a buffer of an S-TIR block (STMT_ALLOC) */
  BUF_FREE,         /* X = T.Buffer(...) in a body (STMT_DECL): how TVM prints a buffer it
                       uses without declaring it; no storage, refused by the verifier */
} tx_buffer_form;

struct tx_buffer {
  const char *name;
  const tx_expr *data; /* EXPR_VAR of handle type */
  tx_dtype dtype;
  uint32_t ndim, nstrides;
  const tx_expr *const *shape;
  const tx_expr *const *strides;
  const tx_expr *elem_offset; /* NULL when not given */
  const char *scope;          /* interned; "global" by default */
  int64_t align;              /* 0 when not given */
  int64_t offset_factor;      /* 0 when not given */
  const tx_layout *layout;    /* NULL when default (or None, see layout_none) */
  /* The buffer has no layout (TVM's `layout=None`, also what a trn.sbuf /
   * trn.psum buffer gets by default), as opposed to the default layout
   * T.S[shape]; layout is NULL then. Code generation treats both alike; TVM
   * prints the first as `layout=None` and keeps them apart in structural
   * equality, so equal.c does too. */
  uint8_t layout_none;
  const tx_expr *allocated_addr;
  /* T.alloc_buffer(..., annotations={...}): the dict (a TX_DICT_OP call), kept
   * for the print; lowering does not read it. */
  const tx_expr *annotations;
  /* Shape dims written as strings, `T.Buffer(("n * 2", 4))` (TVM's printed
   * form of a dim that defines a variable): bit i for dim i < 32. Printed
   * back quoted; a spelling, equal.c ignores it. */
  uint32_t quoted_dims;
  /* Strides written as strings, `strides=("s",)`: each a new int32 variable
   * of that name (match_buffer: of shape[0]'s type), defined here, as
   * TVM's parser makes one; bit i for stride i < 32. Printed quoted;
   * equal.c compares them as definitions. */
  uint32_t quoted_strides;
  tx_buffer_form form;
  const tx_expr *origin; /* BUF_VIEW: the call that made it (EXPR_CALL on EXPR_BUFFER);
                            BUF_MATCH: the handle variable */
  tirx_span span;
};

/* ---- Layouts --------------------------------------------------------------- */

typedef enum tx_layout_kind {
  LAYOUT_TILE,    /* T.TileLayout(T.S[...] [+ T.R[...]] [+ offsets]) */
  LAYOUT_SWIZZLE, /* T.SwizzleLayout(per_element, swizzle_len, atom_len) */
  LAYOUT_COMPOSE, /* T.ComposeLayout(M, B, S, tile) : swizzle over a tile layout */
} tx_layout_kind;

/* One iterator: extent, stride and the axis the stride is on (NULL = m). */
typedef struct tx_layout_iter {
  const tx_expr *extent, *stride;
  const char *axis; /* interned axis name: "laneid", "TLane", ... */
} tx_layout_iter;

struct tx_layout {
  tx_layout_kind kind;
  uint32_t nshard, nreplica, noffset;
  const tx_layout_iter *shard, *replica;
  const tx_layout_iter *offset; /* extent unused; stride holds the offset value */
  /* Written S[(a,):(c,)] rather than S[a:c]: kept from the source only; TVM
   * (and so the printer and equal.c) makes no difference. */
  int shard_is_tuple;
  int replica_is_tuple;
  int64_t per_element, swizzle_len, atom_len; /* swizzle parameters */
  /* LAYOUT_COMPOSE written with swizzle_inner=False: kept for the print,
   * refused by flatten-buffer. */
  int swizzle_outer;
  const tx_layout *tile; /* LAYOUT_COMPOSE: the inner tile layout */
};

/* ---- Statements ------------------------------------------------------------ */

typedef enum tx_for_kind {
  FOR_SERIAL, /* range / T.serial */
  FOR_UNROLL, /* T.unroll */
  FOR_VECTORIZED,
  FOR_PARALLEL,
  FOR_THREAD_BINDING, /* name: the thread tag */
} tx_for_kind;

/* STMT_BLOCK's flag: how the block was written.
 *
 * An S-TIR block (TVM's SBlockRealize + SBlock) keeps its header as the
 * leading items of stmts[], in TVM's printed order, and its body as the last
 * item:
 *   STMT_BLOCK_AXIS  vi = T.axis.spatial(dom, binding) / vi, vj = T.axis.remap("SR", [i, j])
 *                    (binds vars[]: the iterators; exprs: the call's arguments)
 *   STMT_BLOCK_SIG   T.where(cond), T.reads(regions), T.writes(regions),
 *                    T.sblock_attr({...}) (the dict as keyword operands)
 *   STMT_ALLOC       X = T.sblock_alloc_buffer(...)  (buffer form BUF_SBLOCK_ALLOC)
 *   STMT_DECL        X = T.match_buffer(A[..], shape) (buffer form BUF_MATCH, origin: region)
 *   STMT_BLOCK_INIT  with T.init(): body
 * The block's iterator values and predicate are the axis bindings and the
 * T.where condition; reads/writes stay as written (no access detection). */
typedef enum tx_block_form {
  BLOCK_WITH,          /* with T.sblock("name"[, no_realize=True]): exprs hold the kwargs */
  BLOCK_IMPLICIT_ROOT, /* the root TVM's parser adds; printed `# with T.sblock("root"):` */
} tx_block_form;

/* STMT_STORE's flag: A[i:i + 4] = v, a vector store TVM prints with slices:
 * each stride-1 EXPR_RAMP index prints as `base:base + lanes`. */
enum { STORE_SLICES = 1 };

typedef enum tx_bind_style {
  BIND_PLAIN,        /* x = value */
  BIND_LET,          /* x: T.let = value */
  BIND_LET_TYPED,    /* x: T.let[T.int32] = value */
  BIND_SCALAR,       /* x: T.int32 = value (scalar sugar; exprs may be empty) */
  BIND_LOCAL_SCALAR, /* x = T.local_scalar("int32") */
} tx_bind_style;

struct tx_stmt {
  uint8_t kind; /* tx_stmt_kind */
  uint8_t flag; /* tx_for_kind, tx_bind_style, or a per-kind form */
  uint32_t nexprs, nstmts, nvars;
  const tx_expr *const *exprs;
  const tx_stmt *const *stmts;
  const tx_expr *const *vars; /* variables bound here (loop var, let var, scope ids) */
  const tx_buffer *buffer;    /* STORE, ALLOC, DECL */
  const char *name;           /* ATTR key, TILE_OP/EXEC_SCOPE/SCOPE_ID op, FOR thread tag */
  tx_kwargs kw;               /* keyword operands in exprs[] */
  tirx_span span;
};

/* ---- Functions and modules -------------------------------------------------- */

typedef struct tx_func {
  const char *name;
  uint32_t nparams;
  const tx_expr *const *params;       /* EXPR_VAR each */
  const tx_buffer *const *param_bufs; /* per param: the T.Buffer, or NULL */
  uint32_t nattrs;
  const char *const *attr_keys;
  const tx_expr *const *attr_values;
  uint32_t nsymbolic;
  const tx_expr *const *symbolic; /* free symbolic extents, in first-use order */
  const tx_stmt *body;
  int is_private;
  /* @T.prim_func(s_tir=True): a TVM S-TIR (schedulable TIR) function, whose
   * body may hold blocks (STMT_BLOCK, lowered by the lower-sblock pass). Kept
   * so the print round-trips. */
  int is_s_tir;
  /* @T.prim_func(persistent=True): TVM's tirx.persistent_kernel marker, kept
   * for the print (TVM's codegen does not read it either). */
  int is_persistent;
  /* `def f(...) -> T.int32:`: the written return dtype (has_ret 0: none),
   * kept so the print round-trips as TVM prints a PrimFunc's ret_type. */
  int has_ret;
  tx_dtype ret_dtype;
  tirx_span span;
} tx_func;

typedef struct tx_module {
  const char *name; /* the class name of an I.ir_module, or NULL for a lone function */
  uint32_t nfuncs;
  const tx_func *const *funcs;
  uint32_t nattrs;
  const char *const *attr_keys;
  const tx_expr *const *attr_values;
  uint8_t dialect; /* tx_dialect it was written in: how it prints by default (not compared) */
} tx_module;

/* ---- Construction ----------------------------------------------------------- */

/* The allocator side of a context. Builders return NULL only when out of
 * memory; callers propagate it as TIRX_ERR_NOMEM. */
typedef struct tx_ir {
  tx_arena *arena;
  tx_interner *strings;
} tx_ir;

/* The allocator of ir's context, for the scratch memory of whatever builds
 * IR in it (passes, the builder): see support/mem.h. */
static inline const tirx_allocator *tx_ir_alloc(const tx_ir *ir) {
  return tx_arena_allocator(ir->arena);
}

const char *tx_expr_kind_name(tx_expr_kind kind);
const char *tx_stmt_kind_name(tx_stmt_kind kind);

/* Generic constructors: copy ops into the arena. */
tx_expr *tx_expr_new(tx_ir *ir, tx_expr_kind kind, tx_dtype dtype, const tx_expr *const *ops,
                     uint32_t nops, tirx_span span);
tx_stmt *tx_stmt_new(tx_ir *ir, tx_stmt_kind kind, const tx_expr *const *exprs, uint32_t nexprs,
                     const tx_stmt *const *stmts, uint32_t nstmts, tirx_span span);

tx_expr *tx_int(tx_ir *ir, tx_dtype dtype, int64_t value, tirx_span span);
tx_expr *tx_float(tx_ir *ir, tx_dtype dtype, double value, tirx_span span);
tx_expr *tx_string(tx_ir *ir, const char *data, size_t len, tirx_span span);
tx_expr *tx_var(tx_ir *ir, const char *name, tx_dtype dtype, tx_var_form form, tirx_span span);
tx_expr *tx_binary(tx_ir *ir, tx_expr_kind kind, const tx_expr *a, const tx_expr *b,
                   tirx_span span);
tx_expr *tx_none(tx_ir *ir, tirx_span span);

/* Construction helpers: a node complete when it is returned, so that
 * passes never write into one after creation. NULL when out of memory (or
 * when an operand is NULL, so that a failed sub-expression propagates). */
/* op(args...) with n positional operands (op is interned). */
const tx_expr *tx_call(tx_ir *ir, const char *op, tx_dtype dtype, const tx_expr *const *args,
                       uint32_t n, tirx_span span);
/* op(ops...) with keywords: kw.npos positional operands, then one per name
 * in kw.names (kept by pointer: interned or arena strings). */
const tx_expr *tx_call_kw(tx_ir *ir, const char *op, tx_dtype dtype, const tx_expr *const *ops,
                          uint32_t nops, tx_kwargs kw, tirx_span span);
/* A reference to buffer b (EXPR_BUFFER). */
const tx_expr *tx_buffer_ref(tx_ir *ir, const tx_buffer *b, tx_dtype dtype, tirx_span span);
/* b[idx...]: a load of n indices. */
const tx_expr *tx_load(tx_ir *ir, const tx_buffer *b, tx_dtype dtype, const tx_expr *const *idx,
                       uint32_t n, tirx_span span);
/* A tuple (is_list: written with brackets) of n items. */
const tx_expr *tx_tuple(tx_ir *ir, tx_dtype dtype, const tx_expr *const *items, uint32_t n,
                        int is_list, tirx_span span);
/* s with other children: exprs, stmts and vars (s's counts of each; NULL
 * keeps s's own) and buffer (NULL keeps s's); every other field as s has it. */
const tx_stmt *tx_stmt_with(tx_ir *ir, const tx_stmt *s, const tx_expr *const *exprs,
                            const tx_stmt *const *stmts, const tx_expr *const *vars,
                            const tx_buffer *buffer);
/* e (a buffer reference, a load) on buffer b, everything else as e has it. */
const tx_expr *tx_expr_with_buffer(tx_ir *ir, const tx_expr *e, const tx_buffer *b);
/* f with the body body, everything else as f has it (NULL body: NULL). */
const tx_func *tx_func_with_body(tx_ir *ir, const tx_func *f, const tx_stmt *body);
/* e with the operands ops (n of them) and everything else as e has it. */
const tx_expr *tx_expr_with_ops(tx_ir *ir, const tx_expr *e, const tx_expr *const *ops, uint32_t n);
/* An expression with the fields of *fields, its ops (nops of them) copied
 * into the arena: fill a tx_expr on the stack, then build. Like
 * tx_expr_new and tx_stmt_new, this and the *_make and tx_stmt_region
 * helpers below do not check the children for NULL. */
const tx_expr *tx_expr_make(tx_ir *ir, const tx_expr *fields);
/* e's kind, span, payload (u) and python_bool on dtype and the operands ops
 * (n of them); e's spellings (type_object, implicit_truth, source_form) are
 * not kept. */
const tx_expr *tx_expr_like(tx_ir *ir, const tx_expr *e, tx_dtype dtype, const tx_expr *const *ops,
                            uint32_t n);
/* A bare Python True / False (a bool EXPR_INT with python_bool set). */
const tx_expr *tx_bool(tx_ir *ir, int value, tirx_span span);
/* A variable of dtype described by *info (its name interned; NULL stays NULL). */
const tx_expr *tx_var_make(tx_ir *ir, tx_dtype dtype, const tx_var_info *info, tirx_span span);
/* A buffer with the fields of *fields, its shape and strides (ndim and
 * nstrides of them) copied into the arena; a buffer like b but with X is
 * `tx_buffer f = *b; f.X = ...;` built from f. */
const tx_buffer *tx_buffer_make(tx_ir *ir, const tx_buffer *fields);
/* A statement with the fields of *fields, its exprs, stmts and vars (nexprs,
 * nstmts, nvars of them) and kw.names (one per keyword; NULL when there is
 * none) copied into the arena. */
const tx_stmt *tx_stmt_make(tx_ir *ir, const tx_stmt *fields);
/* var = value (STMT_BIND) written in style. */
const tx_stmt *tx_bind(tx_ir *ir, const tx_expr *var, const tx_expr *value, tx_bind_style style,
                       tirx_span span);
/* s (a flat STMT_DEVICE_ENTRY or STMT_ATTR) as its with-form region: flag 1
 * and the one statement body, at span; every other field as s has it. */
const tx_stmt *tx_stmt_region(tx_ir *ir, const tx_stmt *s, const tx_stmt *body, tirx_span span);
/* A function with the fields of *fields, its params, param_bufs, attr_keys,
 * attr_values and symbolic (nparams, nattrs, nsymbolic of them; a NULL one
 * stays NULL) copied into the arena. */
const tx_func *tx_func_make(tx_ir *ir, const tx_func *fields);
/* m with the functions funcs (n of them, copied), everything else as m has it. */
const tx_module *tx_module_with_funcs(tx_ir *ir, const tx_module *m, const tx_func *const *funcs,
                                      uint32_t n);

/* Copy an array of n pointers into the arena (NULL for n == 0). */
const void *const *tx_ir_dup_ptrs(tx_ir *ir, const void *const *items, uint32_t n);
#define TX_DUP(ir, type, items, n)                                                                 \
  ((const type *const *)tx_ir_dup_ptrs((ir), (const void *const *)(items), (n)))

/* Result dtype of a binary arithmetic kind (comparisons give bool). */
tx_dtype tx_binary_result_type(tx_expr_kind kind, tx_dtype a, tx_dtype b);
int tx_expr_is_binary(tx_expr_kind kind);
/* Is l TVM's DefaultLayout(shape): T.S[shape] row-major on the memory axis
 * (strides left out count as row-major)? TVM never prints it on a buffer, and
 * a buffer that names it has the default layout (layout NULL). */
int tx_layout_is_default(const tx_layout *l, const tx_expr *const *shape, uint32_t ndim);
int tx_expr_is_compare(tx_expr_kind kind);
/* Is e a scalar integer (or bool) literal? Then 1, its value in *out. */
int tx_expr_int_literal(const tx_expr *e, int64_t *out);
/* The operand of call e at positional place pos, or else its keyword
 * `name` (compared by content), or NULL. */
const tx_expr *tx_call_arg(const tx_expr *e, uint32_t pos, const char *name);
/* The value of f's attribute `key` (T.func_attr), or NULL. */
const tx_expr *tx_func_attr(const tx_func *f, const char *key);
/* Is f's attribute `key` there and not a literal 0 / False? */
int tx_func_attr_true(const tx_func *f, const char *key);
/* The statements of f's top level: its body's, or the body itself when it
 * is not a sequence (none for no body); *n gets their count. */
const tx_stmt *const *tx_func_top_stmts(const tx_func *f, uint32_t *n);

/* Does expression kind `k` bind a variable over part of its operands? */
static inline int tx_expr_binds(tx_expr_kind k) {
  return k == EXPR_LET;
}

/* The pointer type (TVM's PointerType) that the IR records for a handle
 * expression: a variable's T.handle("dtype", "scope"), or a T.reinterpret
 * whose target is a type expression T.handle(...) (or "handle": void*).
 * *pointee is void and *has_pointee 0 for an untyped pointer; *scope is
 * NULL when none is given. Returns 0 when `e` is not such an expression. */
int tx_expr_pointer_type(const tx_expr *e, tx_dtype *pointee, int *has_pointee, const char **scope);
/* The same for a type expression: "handle" (a string) or a call T.handle(
 * ["dtype"[, "scope"]], storage_scope=...) as the frontend builds it. */
int tx_pointer_type_expr(const tx_expr *t, tx_dtype *pointee, int *has_pointee, const char **scope);

/* The pseudo-op of a Python dict literal kept as an EXPR_CALL (keys are the
 * keyword names, values the operands), printed `{"k": v}`: the config of
 * T.target({...}) (frontend/build_target.c). */
#define TX_DICT_OP "{}"
/* The pseudo-op of TVM's reference to an omitted metadata value,
 * `metadata["ir.StringImm"][0]`: operands the kind string and the index. */
#define TX_METADATA_OP "metadata"

/* The keyword operand named `name` (interned) of a call or statement, or NULL. */
const tx_expr *tx_kwarg(const tx_kwargs *kw, const tx_expr *const *ops, uint32_t nops,
                        const char *name);

#endif
