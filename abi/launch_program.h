/*
 * launch_program.h - the launch program: what one host function does on
 * each call, as data.
 *
 * The compiler builds it from the host function make-packed-api writes
 * (driver/launch_build.c), the executable stores it (abi/exe_format.h) and
 * the runtime runs it (runtime/launch_run.c) with no IR and no compiler. A
 * function's program is
 *  - parameter bindings: a slot <- DLTensor.data, or the scalar argument
 *    converted to the parameter's dtype, guarded by the argument's kind;
 *  - statements, run in order: checks (an assert and its message), bindings
 *    (let, T.arg_bind), tensor maps (a slot <- one of the call's 128-byte
 *    map buffers), encode calls (runtime.cuTensorMapEncodeTiled) and
 *    launches (a kernel by name, its parameter values, grid, block, dynamic
 *    shared memory and cluster), as many as the host function makes;
 *  - expressions as postfix code (launch_ops.def) over a small stack;
 *  - what tools ask of a function: its parameters (names, kinds, dtypes,
 *    shapes) and where it was defined (the source map).
 *
 * tx_lp_read accepts any bytes: it either returns a module whose every
 * index, range and stack depth was verified, so that running it cannot read
 * out of bounds, or an error saying what is wrong. Thread model: a module is
 * immutable once built or read; any number of threads may run it.
 */
#ifndef TIRX_ABI_LAUNCH_PROGRAM_H
#define TIRX_ABI_LAUNCH_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "abi/dtype.h"
#include "abi/packed_api.h"
#include "abi/tensormap_rules.h"
#include "support/strbuf.h"
#include "tirx/tirx.h"

enum {
  TX_LP_MAX_STACK = 64,      /* the deepest expression a program may hold */
  TX_LP_MAX_SLOTS = 1 << 16, /* variables of one function */
  TX_LP_DIMS = 7,            /* grid xyz, block xyz, dynamic shared bytes */
};

typedef enum tx_lp_op {
#define X(name, pops, pushes) TX_LP_##name,
#include "abi/launch_ops.def"
#undef X
  TX_LP_OP_COUNT
} tx_lp_op;

typedef union tx_lp_val {
  int64_t i;
  double f;
} tx_lp_val;

typedef struct tx_lp_ins {
  uint8_t op; /* tx_lp_op */
  int32_t a, b;
  tx_lp_val imm;
} tx_lp_ins;

/* Instructions [begin, end) of the function's code: one expression. */
typedef struct tx_lp_range {
  uint32_t begin, end;
} tx_lp_range;

/* What a failed check appends after its message (", got ..."). */
typedef enum tx_lp_got {
  TX_LP_GOT_NONE,
  TX_LP_GOT_INT,     /* the value of lhs, an integer expression */
  TX_LP_GOT_FLOAT,   /* the value of lhs, a float expression */
  TX_LP_GOT_DTYPE,   /* argument `arg`'s whole dtype */
  TX_LP_GOT_KIND,    /* argument `arg`'s kind */
  TX_LP_GOT_STRIDES, /* argument `arg`'s strides */
  TX_LP_GOT_POINTER, /* argument `arg`'s data pointer */
  TX_LP_GOT_COUNT
} tx_lp_got;

typedef enum tx_lp_stmt_kind {
  TX_LP_CHECK,  /* expr must be nonzero, else msg (+ got) */
  TX_LP_BIND,   /* slot <- expr, as dtype; range_checked: it must fit */
  TX_LP_MAP,    /* slot <- the address of the call's tensor map `index` */
  TX_LP_ENCODE, /* encodes[index] */
  TX_LP_LAUNCH, /* launches[index] */
  TX_LP_STMT_COUNT
} tx_lp_stmt_kind;

typedef struct tx_lp_stmt {
  uint8_t kind;          /* tx_lp_stmt_kind */
  uint8_t got;           /* tx_lp_got (CHECK) */
  uint8_t range_checked; /* BIND */
  tx_lp_range expr;      /* CHECK: the condition; BIND: the value */
  tx_lp_range lhs;       /* CHECK with GOT_INT / GOT_FLOAT */
  int32_t arg;           /* CHECK with GOT_DTYPE .. GOT_POINTER */
  int32_t slot;          /* BIND, MAP */
  uint32_t index;        /* MAP: the map; ENCODE, LAUNCH: into their arrays */
  tx_dtype dtype;        /* BIND */
  char *msg;             /* CHECK: the assert's message */
  char *name;            /* BIND, MAP, ENCODE: the variable (for messages) */
} tx_lp_stmt;

/* One runtime.cuTensorMapEncodeTiled: the map's slot, the dtype resolved at
 * compile time, every other operand as an expression. */
typedef struct tx_lp_encode {
  int32_t map_slot;
  int32_t cu_dtype, elem_bits, rank; /* rank 1..TX_TENSORMAP_MAX_RANK */
  tx_lp_range addr, dims[TX_TENSORMAP_MAX_RANK], strides[TX_TENSORMAP_MAX_RANK - 1];
  tx_lp_range box[TX_TENSORMAP_MAX_RANK], elem_strides[TX_TENSORMAP_MAX_RANK];
  tx_lp_range interleave, swizzle, l2_promotion, oob_fill, force_dtype;
  uint8_t has_force;
} tx_lp_encode;

typedef struct tx_lp_param {
  int32_t slot, arg;
  uint8_t tensor; /* 1: DLTensor.data (or a handle); 0: a scalar of dtype */
  tx_dtype dtype;
} tx_lp_param;

/* A kernel parameter: its value, and its type as the kernel takes it. A
 * tensor map's value is the map's address, passed on as the pointer to its
 * 128 bytes (the kernel takes the map by value). */
typedef struct tx_lp_kparam {
  tx_lp_range expr;
  tx_dtype dtype;
  uint8_t tensormap;
  char *name; /* the tensor map's variable; NULL otherwise */
} tx_lp_kparam;

typedef struct tx_lp_launch {
  char *kernel;                    /* the device function's name */
  uint32_t first_kparam, nkparams; /* kparams[first_kparam ..] */
  tx_lp_range dims[TX_LP_DIMS];    /* grid xyz, block xyz, dynamic shared bytes */
  uint32_t cluster[3];             /* the kernel's cluster shape; zeros: none */
} tx_lp_launch;

/* A parameter as tools see it (tirx_param_info). */
typedef struct tx_lp_param_info {
  char *name;
  int32_t kind; /* tirx_arg_kind */
  tx_dtype dtype;
  int32_t ndim;     /* tensors; 0 otherwise */
  int64_t *shape;   /* ndim extents, -1 for a symbolic one */
  char **dim_names; /* ndim names, NULL for a literal extent */
} tx_lp_param_info;

typedef struct tx_lp_func {
  char *name;
  char *def_file; /* the source map: where it was written; NULL: unknown */
  uint32_t def_line, def_col;
  char *why; /* NULL: callable; else why it cannot be called */
  tx_lp_param_info *pinfo;
  uint32_t npinfo;
  uint32_t nslots, nmaps;
  tx_lp_ins *code;
  uint32_t ncode;
  tx_lp_param *params;
  uint32_t nparams;
  tx_lp_stmt *stmts;
  uint32_t nstmts;
  tx_lp_encode *encodes;
  uint32_t nencodes;
  tx_lp_kparam *kparams;
  uint32_t nkparams;
  tx_lp_launch *launches;
  uint32_t nlaunches;
} tx_lp_func;

/* The programs of an executable's callable functions, in module order. */
typedef struct tx_lp_module {
  tirx_allocator alloc; /* every block of the module */
  tx_lp_func *funcs;
  uint32_t nfuncs;
} tx_lp_module;

/* An empty module allocating through `alloc` (NULL: malloc; copied). NULL
 * when out of memory. */
tx_lp_module *tx_lp_module_new(const tirx_allocator *alloc);
/* Append a zeroed function; NULL when out of memory. The pointer is valid
 * until the next append. */
tx_lp_func *tx_lp_module_add(tx_lp_module *m);
/* Free what f owns (through a, its module's allocator) and zero it. */
void tx_lp_func_clear(const tirx_allocator *a, tx_lp_func *f);
/* Free the module, its functions and every array and string they own. */
void tx_lp_module_free(tx_lp_module *m);

/* The bytes of a module (little-endian, self-delimiting), appended to out.
 * TIRX_ERR_NOMEM when out ran out of memory. */
tirx_status tx_lp_write(const tx_lp_module *m, tx_strbuf *out);
/* The module of bytes written by tx_lp_write, verified (tx_lp_verify);
 * allocated through `alloc`. TIRX_ERR_INPUT with the reason in why for
 * anything malformed, TIRX_ERR_NOMEM when an allocation failed. */
tirx_status tx_lp_read(const void *data, size_t len, const tirx_allocator *alloc,
                       tx_lp_module **out, char *why, size_t cap);
/* Check that running f cannot go out of bounds: every range inside the
 * code and a whole expression (launch_ops.def's stack effects), every slot,
 * map, encode, launch and kernel-parameter index in range. 0 with the first
 * problem in why. The builder's output passes by construction; the reader
 * calls it on every function. */
int tx_lp_verify(const tx_lp_func *f, char *why, size_t cap);

/* The name of an instruction ("ADD"), for dumps and messages. */
const char *tx_lp_op_name(tx_lp_op op);

#endif
