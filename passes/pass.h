/*
 * pass.h - the pass manager's interface: what a pass is, the pipeline
 * options, and the entry point that runs the TIRx lowering pipeline.
 *
 * A pass is a plain function from a module to a module. It reads the IR
 * through ir/visit.h, builds new nodes in the context's arena, and reports
 * user errors as located diagnostics and its own bugs with
 * tx_internal_error(diags, "<pass name>", ...). Passes never print. Their
 * scratch memory comes from the context's allocator (tx_ir_alloc(pc->ir)),
 * through support/mem.h.
 */
#ifndef TIRX_PASSES_PASS_H
#define TIRX_PASSES_PASS_H

#include "ir/diag.h"
#include "ir/ir.h"
#include "support/mem.h"
#include "ir/ptrmap.h"
#include "support/strbuf.h"
#include "target/target.h"

/* What a pipeline run remembers between passes (tx_lc_census). Only
 * tx_run_pipeline turns it on: outside a run a module's address may be
 * reused by another module after its context is freed. */
typedef struct tx_pass_memo {
  int on;
  const tx_module *census_of; /* the module census describes, or NULL */
  unsigned census;            /* TX_LC_HAS_* bits */
  const tx_func *names_of;    /* the function `names` was handed on for, or NULL */
  tx_ptrmap names;            /* tx_lc_names_keep's set */
} tx_pass_memo;

typedef struct tx_pass_ctx {
  tx_ir *ir;
  tx_diag_sink *diags;
  const tx_target *target;
  tx_pass_memo memo;
  tx_strbuf *dispatch_log; /* dispatch-tile's choices (--explain-dispatch), or NULL */
} tx_pass_ctx;

/* A pass: returns TIRX_OK with *out set (the input itself when nothing
 * changed), TIRX_ERR_INPUT after located diagnostics, TIRX_ERR_INTERNAL or
 * TIRX_ERR_NOMEM. */
typedef tirx_status (*tx_pass_fn)(tx_pass_ctx *pc, const tx_module *in, const tx_module **out);

/* What a pass leaves true of its output that held for its input, so that
 * the run's memo (tx_pass_memo) carries over it:
 *  - TX_KEEPS_CENSUS: it makes only values of types its input already has
 *    (scalar int64 and narrow floats are what the census tracks); the census
 *    of its input then still holds, a superset at worst (a loop of no
 *    iterations unrolls to nothing), and a pass that skips work on the
 *    census does the same work either way. unroll-loop copies and folds what
 *    is there; cse binds existing expressions to variables of their types.
 *    Carrying the census over them replaces a walk of the unrolled body by
 *    one of the loop.
 *  - TX_KEEPS_NAMES: it makes no variable or buffer name (it rewrites
 *    expressions, or copies a variable under its own name); the fresh-name
 *    set handed on for a function of its input (tx_lc_names_keep) still
 *    holds for the function it made at the same position. */
enum { TX_KEEPS_CENSUS = 1, TX_KEEPS_NAMES = 2 };

/* The pipeline, in order: X(id, "name", function, keeps, "what it does").
 * The function of each pass lives in passes/<name>.c; keeps is what it
 * preserves (TX_KEEPS_*, 0 for nothing). */
#define TX_PASSES(X)                                                                               \
  X(PASS_LOWER_SBLOCK, "lower-sblock", tx_pass_lower_sblock, 0,                                    \
    "S-TIR blocks become plain statements: iterators their bindings, T.init a guarded first "      \
    "iteration, T.where an if")                                                                    \
  X(PASS_LOWER_TIRX, "lower-tirx", tx_pass_lower_tirx, 0,                                          \
    "scope ids and T.device_entry become thread launches; scalar sugar becomes local buffers")     \
  X(PASS_UNIFY_THREAD_BINDING, "unify-thread-binding", tx_pass_unify_thread_binding, 0,            \
    "one T.launch_thread per tag (blockIdx, threadIdx, clusterCtaIdx) after the device entry; "    \
    "with-forms, thread_binding loops dissolve")                                                   \
  X(PASS_DISPATCH_TILE, "dispatch-tile", tx_pass_dispatch_tile, 0,                                 \
    "tile-primitive calls become the IR of the first target variant that applies "                 \
    "(priority, predicates, dispatch=)")                                                           \
  X(PASS_FLATTEN_BUFFER, "flatten-buffer", tx_pass_flatten_buffer, 0,                              \
    "multi-dimensional accesses, strides, elem_offset and layouts become flat address arithmetic") \
  X(PASS_SIMPLIFY, "simplify", tx_pass_simplify, TX_KEEPS_NAMES,                                   \
    "constant folding, algebraic identities and range-based floordiv/floormod rules")              \
  X(PASS_VECTORIZE_LOOP, "vectorize-loop", tx_pass_vectorize_loop, TX_KEEPS_NAMES,                 \
    "T.vectorized loops become vector statements (gathers for strided accesses), or serial loops") \
  X(PASS_UNROLL_LOOP, "unroll-loop", tx_pass_unroll_loop, TX_KEEPS_CENSUS,                         \
    "short constant T.unroll loops are copied out per iteration (-O1 and up)")                     \
  X(PASS_CSE, "cse", tx_pass_cse, TX_KEEPS_CENSUS,                                                 \
    "common subexpression elimination: repeated pure expressions bound once (-O2 and up)")         \
  X(PASS_LEGALIZE_BF16_FP8, "legalize-bf16-fp8", tx_pass_legalize_bf16_fp8, 0,                     \
    "bfloat16/fp8/fp6/fp4 arithmetic computed in float32; fp8 needs sm_89 or newer")               \
  X(PASS_NARROW_DATATYPE, "narrow-datatype", tx_pass_narrow_datatype, 0,                           \
    "int64 index and loop arithmetic that provably fits in int32 becomes int32")                   \
  X(PASS_VERIFY_MEMORY, "verify-memory", tx_pass_verify_memory, 0,                                 \
    "check that host code (before T.device_entry()) never reads or writes device memory, "         \
    "and that shared and local buffers fit the target")                                            \
  X(PASS_SPLIT_HOST_DEVICE, "split-host-device", tx_pass_split_host_device, 0,                     \
    "split each kernel into a host launcher and a <name>_kernel device function")                  \
  X(PASS_LOWER_IKET, "lower-iket", tx_pass_lower_iket, 0,                                          \
    "IKET profiler annotations become TVM's tracing helper calls (tirx.iket.enabled) or go")       \
  X(PASS_MAKE_PACKED_API, "make-packed-api", tx_pass_make_packed_api, 0,                           \
    "host functions get the packed calling convention: argument checks and shape bindings")

typedef enum tx_pass_id {
#define X(id, name, fn, keeps, doc) id,
  TX_PASSES(X)
#undef X
      TX_PASS_COUNT
} tx_pass_id;

#define X(id, name, fn, keeps, doc)                                                                \
  tirx_status fn(tx_pass_ctx *pc, const tx_module *in, const tx_module **out);
TX_PASSES(X)
#undef X

/* The well-formedness check: runs first and, with verify_each, after every
 * pass. `after` names the previous pass (NULL for the input): a failure after
 * a pass is that pass's bug and is reported as an internal error. */
tirx_status tx_verify_module(tx_pass_ctx *pc, const tx_module *m, const char *after);

typedef struct tx_pipeline_options {
  int verify_each;
  int time_passes; /* fill timings[] */
  uint8_t disabled[TX_PASS_COUNT];
  uint8_t print_after[TX_PASS_COUNT];
  int print_after_all;
  tx_strbuf *print_out;                 /* where --print-after text goes (may be NULL) */
  tx_strbuf *dispatch_log;              /* dispatch-tile's choices, one line each (may be NULL) */
  double timings_ms[TX_PASS_COUNT + 1]; /* out: per pass; [TX_PASS_COUNT] = verification */
} tx_pipeline_options;

const char *tx_pass_name(tx_pass_id id);
const char *tx_pass_doc(tx_pass_id id);
/* The id of a pass name, or -1. */
int tx_pass_lookup(const char *name);

/* Run the pipeline on `in`. *out is the lowered module (host and device functions). */
tirx_status tx_run_pipeline(tx_pass_ctx *pc, tx_pipeline_options *opts, const tx_module *in,
                            const tx_module **out);

#endif
