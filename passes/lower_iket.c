/*
 * lower_iket.c - the lower-iket pass: TVM's NVIDIA IKET profiler
 * annotations (T.cuda.iket.mark, range_start, range_end, range_push,
 * range_pop, sentinel_token) become the CUDA tracing helper calls of TVM's
 * LowerIket (src/backend/cuda/transforms/lower_iket.cc), or disappear.
 *
 * Requires: split-host-device has run (annotations live in "tirx.kernel"
 * device functions). Guarantees:
 *  - the checks of TVM's pass, as located errors: event names are
 *    non-empty string literals of at most 32 UTF-8 bytes; a payload is a
 *    scalar bool, int/uint 8/16/32/64, float32 or float64; one name keeps
 *    one kind (range, push/pop or mark) and one payload schema at every
 *    site, and a token range uses a payload at both ends or at neither; a
 *    RangeToken (a local uint32[1] buffer) is only assigned range_start,
 *    sentinel_token or another token, and range_end takes it directly;
 *  - module attribute tirx.iket.enabled true: each distinct declaration
 *    (kind, name) of the module gets an event id (from 1 when there are at
 *    most 30, else ExtendedNativeDump ids from 64; 31 is range_pop), in
 *    TVM's order (kind, then name bytes). mark, range_push, range_start and
 *    range_pop become T.cuda.func_call("tvm_builtin_iket_official_event",
 *    id[, payload], source_code=S) (a payload-free mark, push or pop
 *    statement calls the record helper of its id directly,
 *    tvm_builtin_iket_official_event_impl<id>(), which TVM's dispatcher
 *    switches to) where S is TVM's device source (the
 *    __iket_meta_info and per-declaration attribute byte arrays, then the
 *    helpers), byte for byte; range_end(token[, payload]) becomes the same
 *    call on the token (guarded by token != 0 with a payload);
 *    sentinel_token is 0. The kernels need sm_90 or newer (a located error
 *    below). TVM's environment switch for injected profiler children
 *    (TVM_IKET_INJECTED_CHILD_ENABLE ...) is not read: only the attribute;
 *  - otherwise the annotations are stripped, as TVM's regular lowering
 *    does: annotation statements, token buffers and their stores go, and
 *    the ifs, loops and sequences they leave empty with them;
 *  - a module without annotations comes back unchanged.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/lower_common.h"
#include "passes/pass.h"

#define PASS_NAME "lower-iket"

enum { NATIVE_MAX_DECLS = 30, EXTENDED_MAX_DECLS = 4032, NATIVE_FIRST_ID = 1 };
enum { EXTENDED_FIRST_ID = 64, RANGE_POP_ID = 31, NATIVE_MAX_ID = 31, EXTENDED_MAX_ID = 4095 };
enum { META_BYTES = 48, EVENT_BYTES = 60, RANGE_BYTES = 72, MAX_NAME_BYTES = 32 };
enum { MODE_NATIVE_DUMP = 3, MODE_EXTENDED_NATIVE_DUMP = 5 };

/* TVM's DeclarationKind, whose values order the declarations. */
typedef enum ik_kind { IK_NONE = 0, IK_RANGE = 1, IK_PUSH = 2, IK_MARK = 3 } ik_kind;

/* TVM's PayloadType (the record's payload type code). */
enum {
  PT_NONE = 0,
  PT_I8 = 1,
  PT_UI8 = 2,
  PT_I16 = 3,
  PT_UI16 = 4,
  PT_I32 = 5,
  PT_UI32 = 6,
  PT_I64 = 7,
  PT_FP32 = 13,
  PT_FP64 = 14,
  PT_UI64 = 16
};

/* ---- TVM's device source text (lower_iket.cc's raw strings, in its order) -------- */

/* The native (compat) event: TVM's text, shared by the compat and native
 * helper sets. */
#define IK_NATIVE_EVENT_IMPL                                                                       \
  "template <unsigned int EventId>\n"                                                              \
  "__forceinline__ __device__ void tvm_builtin_iket_official_event_impl() {\n"                     \
  "  asm volatile(\n"                                                                              \
  "      \"{\\n\"\n"                                                                               \
  "      \".reg .b32 %%r, %%t;\\n\"\n"                                                             \
  "      \"mov.b32 %%r, %%cluster_ctarank;\\n\"\n"                                                 \
  "      \"mov.u32 %%t, %%globaltimer_lo;\\n\"\n"                                                  \
  "      \"or.b32 %%t, %%t, %0;\\n\"\n"                                                            \
  "      \"mad.lo.u32 %%r, %%r, 0x1000000, 0x20;\\n\"\n"                                           \
  "      \"st.weak.shared.u32 [%%r], %%t;\\n\"\n"                                                  \
  "      \"pmevent.mask %0;\\n\"\n"                                                                \
  "      \"}\\n\"\n"                                                                               \
  "      :\n"                                                                                      \
  "      : \"n\"(EventId)\n"                                                                       \
  "      : \"memory\");\n"                                                                         \
  "}\n"

/* The end of a dispatch function's switch over event ids. */
#define IK_SWITCH_END "    default:\n      break;\n  }\n  return event_id;\n}\n"

static const char IK_OPEN[] = "\n"
                              "extern \"C\" {\n";

static const char IK_COMPAT_HEAD[] =
    "\n"
    "}\n"
    "\n" IK_NATIVE_EVENT_IMPL "\n"
    "__forceinline__ __device__ unsigned int tvm_builtin_iket_official_event(\n"
    "    unsigned int event_id) {\n"
    "  switch (event_id) {\n";

static const char IK_COMPAT_TAIL[] = "    case 31:\n"
                                     "      tvm_builtin_iket_official_event_impl<31>();\n"
                                     "      break;\n" IK_SWITCH_END;

static const char IK_CLOSE[] = "\n"
                               "}\n";

static const char IK_NATIVE_IMPLS[] =
    "\n" IK_NATIVE_EVENT_IMPL "\n"
    "template <unsigned int EventId>\n"
    "__forceinline__ __device__ void tvm_builtin_iket_official_event_payload32_impl(\n"
    "    unsigned int payload) {\n"
    "  asm volatile(\n"
    "      \"{\\n\"\n"
    "      \".reg .pred %%p;\\n\"\n"
    "      \".reg .b32 %%r, %%t, %%mask, %%payload32;\\n\"\n"
    "      \"activemask.b32 %%mask;\\n\"\n"
    "      \"elect.sync _|%%p, %%mask;\\n\"\n"
    "      \"mov.b32 %%r, %%cluster_ctarank;\\n\"\n"
    "      \"mov.u32 %%t, %%globaltimer_lo;\\n\"\n"
    "      \"or.b32 %%t, %%t, %0;\\n\"\n"
    "      \"mad.lo.u32 %%r, %%r, 0x1000000, 0x20;\\n\"\n"
    "      \"mov.b32 %%payload32, %1;\\n\"\n"
    "      \"@%%p st.weak.shared.u32 [%%r], %%t;\\n\"\n"
    "      \"@%%p st.weak.shared.b32 [%%r+4], %%payload32;\\n\"\n"
    "      \"pmevent.mask %0;\\n\"\n"
    "      \"}\\n\"\n"
    "      :\n"
    "      : \"n\"(EventId), \"r\"(payload)\n"
    "      : \"memory\");\n"
    "}\n"
    "\n"
    "template <unsigned int EventId>\n"
    "__forceinline__ __device__ void tvm_builtin_iket_official_event_payload64_impl(\n"
    "    unsigned long long payload) {\n"
    "  asm volatile(\n"
    "      \"{\\n\"\n"
    "      \".reg .pred %%p;\\n\"\n"
    "      \".reg .b32 %%r, %%t, %%mask;\\n\"\n"
    "      \".reg .b64 %%payload64;\\n\"\n"
    "      \"activemask.b32 %%mask;\\n\"\n"
    "      \"elect.sync _|%%p, %%mask;\\n\"\n"
    "      \"mov.b32 %%r, %%cluster_ctarank;\\n\"\n"
    "      \"mov.u32 %%t, %%globaltimer_lo;\\n\"\n"
    "      \"or.b32 %%t, %%t, %0;\\n\"\n"
    "      \"mad.lo.u32 %%r, %%r, 0x1000000, 0x20;\\n\"\n"
    "      \"mov.b64 %%payload64, %1;\\n\"\n"
    "      \"@%%p st.weak.shared.u32 [%%r], %%t;\\n\"\n"
    "      \"@%%p st.weak.shared.b64 [%%r+8], %%payload64;\\n\"\n"
    "      \"pmevent.mask %0;\\n\"\n"
    "      \"}\\n\"\n"
    "      :\n"
    "      : \"n\"(EventId), \"l\"(payload)\n"
    "      : \"memory\");\n"
    "}\n";

static const char IK_EXTENDED_IMPLS[] =
    "\n"
    "template <unsigned int EventId>\n"
    "__forceinline__ __device__ void tvm_builtin_iket_official_event_impl() {\n"
    "  asm volatile(\n"
    "      \"{\\n\"\n"
    "      \".reg .b32 %%r, %%t, %%evtid;\\n\"\n"
    "      \".reg .b64 %%ts_evtid;\\n\"\n"
    "      \"mov.b32 %%r, %%cluster_ctarank;\\n\"\n"
    "      \"mov.u32 %%t, %%globaltimer_lo;\\n\"\n"
    "      \"mad.lo.u32 %%r, %%r, 0x1000000, 0x20;\\n\"\n"
    "      \"mov.b32 %%evtid, %0;\\n\"\n"
    "      \"mov.b64 %%ts_evtid, {%%t, %%evtid};\\n\"\n"
    "      \"st.weak.shared.u64 [%%r], %%ts_evtid;\\n\"\n"
    "      \"pmevent.mask %0;\\n\"\n"
    "      \"}\\n\"\n"
    "      :\n"
    "      : \"n\"(EventId)\n"
    "      : \"memory\");\n"
    "}\n"
    "\n"
    "template <unsigned int EventId>\n"
    "__forceinline__ __device__ void tvm_builtin_iket_official_event_payload32_impl(\n"
    "    unsigned int payload) {\n"
    "  asm volatile(\n"
    "      \"{\\n\"\n"
    "      \".reg .pred %%p;\\n\"\n"
    "      \".reg .b32 %%r, %%t, %%mask, %%evtid, %%payload32;\\n\"\n"
    "      \".reg .b64 %%ts_evtid;\\n\"\n"
    "      \"activemask.b32 %%mask;\\n\"\n"
    "      \"elect.sync _|%%p, %%mask;\\n\"\n"
    "      \"mov.b32 %%r, %%cluster_ctarank;\\n\"\n"
    "      \"mov.u32 %%t, %%globaltimer_lo;\\n\"\n"
    "      \"mad.lo.u32 %%r, %%r, 0x1000000, 0x20;\\n\"\n"
    "      \"mov.b32 %%evtid, %0;\\n\"\n"
    "      \"mov.b32 %%payload32, %1;\\n\"\n"
    "      \"mov.b64 %%ts_evtid, {%%t, %%evtid};\\n\"\n"
    "      \"@%%p st.weak.shared.u64 [%%r], %%ts_evtid;\\n\"\n"
    "      \"@%%p st.weak.shared.b32 [%%r+8], %%payload32;\\n\"\n"
    "      \"pmevent.mask %0;\\n\"\n"
    "      \"}\\n\"\n"
    "      :\n"
    "      : \"n\"(EventId), \"r\"(payload)\n"
    "      : \"memory\");\n"
    "}\n"
    "\n"
    "template <unsigned int EventId>\n"
    "__forceinline__ __device__ void tvm_builtin_iket_official_event_payload64_impl(\n"
    "    unsigned long long payload) {\n"
    "  asm volatile(\n"
    "      \"{\\n\"\n"
    "      \".reg .pred %%p;\\n\"\n"
    "      \".reg .b32 %%r, %%t, %%mask, %%evtid;\\n\"\n"
    "      \".reg .b64 %%ts_evtid, %%payload64;\\n\"\n"
    "      \"activemask.b32 %%mask;\\n\"\n"
    "      \"elect.sync _|%%p, %%mask;\\n\"\n"
    "      \"mov.b32 %%r, %%cluster_ctarank;\\n\"\n"
    "      \"mov.u32 %%t, %%globaltimer_lo;\\n\"\n"
    "      \"mad.lo.u32 %%r, %%r, 0x1000000, 0x20;\\n\"\n"
    "      \"mov.b32 %%evtid, %0;\\n\"\n"
    "      \"mov.b64 %%payload64, %1;\\n\"\n"
    "      \"mov.b64 %%ts_evtid, {%%t, %%evtid};\\n\"\n"
    "      \"@%%p st.weak.shared.u64 [%%r], %%ts_evtid;\\n\"\n"
    "      \"@%%p st.weak.shared.b64 [%%r+8], %%payload64;\\n\"\n"
    "      \"pmevent.mask %0;\\n\"\n"
    "      \"}\\n\"\n"
    "      :\n"
    "      : \"n\"(EventId), \"l\"(payload)\n"
    "      : \"memory\");\n"
    "}\n";

static const char IK_DISPATCH0_HEAD[] =
    "\n"
    "__forceinline__ __device__ unsigned int tvm_builtin_iket_official_event(\n"
    "    unsigned int event_id) {\n"
    "  switch (event_id) {\n";

static const char IK_DISPATCH32_HEAD[] =
    "    case 31:\n"
    "      tvm_builtin_iket_official_event_impl<31>();\n"
    "      break;\n" IK_SWITCH_END "\n"
    "__forceinline__ __device__ unsigned int tvm_builtin_iket_official_event(\n"
    "    unsigned int event_id, unsigned int payload) {\n"
    "  switch (event_id) {\n";

static const char IK_DISPATCH64_HEAD[] =
    IK_SWITCH_END "\n"
                  "__forceinline__ __device__ unsigned int tvm_builtin_iket_official_event(\n"
                  "    unsigned int event_id, unsigned long long payload) {\n"
                  "  switch (event_id) {\n";

static const char IK_DISPATCH_TAIL[] = IK_SWITCH_END
    "\n"
    "template <typename Payload>\n"
    "__forceinline__ __device__ unsigned int tvm_builtin_iket_official_event(\n"
    "    unsigned int event_id, Payload payload) {\n"
    "  if constexpr (sizeof(Payload) <= 4) {\n"
    "    unsigned int payload_bits = static_cast<unsigned int>(payload);\n"
    "    if constexpr (sizeof(Payload) < 4) {\n"
    "      payload_bits &= (1U << (sizeof(Payload) * 8)) - 1U;\n"
    "    }\n"
    "    return tvm_builtin_iket_official_event(event_id, payload_bits);\n"
    "  } else {\n"
    "    return tvm_builtin_iket_official_event(\n"
    "        event_id, static_cast<unsigned long long>(payload));\n"
    "  }\n"
    "}\n"
    "\n"
    "__forceinline__ __device__ unsigned int tvm_builtin_iket_official_event(\n"
    "    unsigned int event_id, float payload) {\n"
    "  return tvm_builtin_iket_official_event(event_id, __float_as_uint(payload));\n"
    "}\n"
    "\n"
    "__forceinline__ __device__ unsigned int tvm_builtin_iket_official_event(\n"
    "    unsigned int event_id, double payload) {\n"
    "  return tvm_builtin_iket_official_event(\n"
    "      event_id, static_cast<unsigned long long>(__double_as_longlong(payload)));\n"
    "}\n";

/* ---- the state ---------------------------------------------------------------- */

/* One declaration (kind, name): an event of TVM's metadata. */
typedef struct ik_decl {
  ik_kind kind;
  const char *name; /* interned */
  size_t len;
  int has_payload;
  unsigned ptype;
  int end_set, end_has; /* range_end's payload schema (ranges) */
  unsigned end_type;
  uint32_t id;
  tirx_span span; /* the first site */
} ik_decl;

/* A RangeToken buffer and the range names its value may come from. */
typedef struct ik_token {
  const tx_buffer *buf;
  const char **names;
  uint32_t n, cap;
} ik_token;

typedef struct ik_state {
  tx_visitor v; /* first: the callbacks cast back */
  tx_pass_ctx *pc;
  const tirx_allocator *alloc;
  ik_decl *decls;
  uint32_t ndecls, capdecls;
  ik_token *tokens;
  uint32_t ntokens, captokens;
  tx_ptrmap assigned; /* token producers that are a store's value */
  int found;          /* an annotation in the current function */
  tirx_span first;    /* ... the first one */
  int has_payload_calls, changed, errors, oom;
  const tx_expr *source, *fn_name, *ret_type; /* instrumenting: the call's fixed operands */
  const char *const *kw_names;
} ik_state;

typedef enum ik_op {
  OP_NONE,
  OP_MARK,
  OP_RANGE_START,
  OP_RANGE_END,
  OP_RANGE_PUSH,
  OP_RANGE_POP,
  OP_SENTINEL
} ik_op;

/* Which annotation a call is (OP_NONE for any other expression). */
static ik_op iket_op(const tx_expr *e) {
  static const char *const names[] = {NULL,         "mark",      "range_start",   "range_end",
                                      "range_push", "range_pop", "sentinel_token"};
  static const char prefix[] = "T.cuda.iket.";
  if (!e || e->kind != EXPR_CALL || strncmp(e->u.call.op, prefix, sizeof prefix - 1) != 0)
    return OP_NONE;
  for (int i = 1; i <= OP_SENTINEL; i++)
    if (strcmp(e->u.call.op + sizeof prefix - 1, names[i]) == 0) return (ik_op)i;
  return OP_NONE;
}

static int is_producer(const tx_expr *e) {
  ik_op op = iket_op(e);
  return op == OP_RANGE_START || op == OP_SENTINEL;
}

static void ik_error(ik_state *st, tirx_span span, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void ik_error(ik_state *st, tirx_span span, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tx_diag_vreport(st->pc->diags, TIRX_SEV_ERROR, span, fmt, ap);
  va_end(ap);
  st->errors++;
  if (tx_diag_saturated(st->pc->diags)) st->v.stop = 1;
}

/* Grows *items (of *cap elements of `size`) to hold len + 1; 0 on OOM. */
static int ik_grow(ik_state *st, void **items, uint32_t *cap, uint32_t len, size_t size) {
  if (len < *cap) return 1;
  uint32_t ncap = *cap ? *cap * 2 : 16;
  void *p = tx_mem_realloc(st->alloc, *items, (size_t)ncap * size);
  if (!p) {
    st->oom = 1;
    st->v.stop = 1;
    return 0;
  }
  *items = p;
  *cap = ncap;
  return 1;
}

/* ---- checks: names and payloads ------------------------------------------------- */

/* Is s[0..n) well-formed UTF-8 (no overlong forms, surrogates or values above
 * U+10FFFF), as TVM's IsValidUTF8? */
static int valid_utf8(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i];
    int more = c <= 0x7f            ? 0
               : (c & 0xe0) == 0xc0 ? 1
               : (c & 0xf0) == 0xe0 ? 2
               : (c & 0xf8) == 0xf0 ? 3
                                    : -1;
    if (more < 0 || i + (size_t)more >= n + (more == 0)) return 0;
    uint32_t cp = more == 0 ? c : c & (0x3fu >> more);
    for (int j = 1; j <= more; j++) {
      if ((s[i + j] & 0xc0) != 0x80) return 0;
      cp = cp << 6 | (s[i + j] & 0x3f);
    }
    static const uint32_t least[] = {0, 0x80, 0x800, 0x10000};
    if (cp < least[more] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    i += (size_t)more + 1;
  }
  return 1;
}

/* The event name of call (its first operand), interned; NULL after an error. */
static const char *event_name(ik_state *st, const tx_expr *call) {
  const tx_expr *a = call->u.call.kw.npos ? call->ops[0] : NULL;
  if (!a || a->kind != EXPR_STRING) {
    ik_error(st, a ? a->span : call->span, "%s requires a string-literal event name",
             call->u.call.op);
    return NULL;
  }
  if (a->u.str.len == 0) {
    ik_error(st, a->span, "IKET event names must not be empty");
    return NULL;
  }
  if (a->u.str.len > MAX_NAME_BYTES) {
    ik_error(st, a->span, "IKET event name exceeds 32 UTF-8 bytes: %.*s", (int)a->u.str.len,
             a->u.str.data);
    return NULL;
  }
  if (!valid_utf8((const unsigned char *)a->u.str.data, a->u.str.len)) {
    ik_error(st, a->span, "IKET event name is not valid UTF-8");
    return NULL;
  }
  const char *s = tx_intern_n(st->pc->ir->strings, a->u.str.data, a->u.str.len);
  if (!s) st->oom = 1;
  return s;
}

/* TVM's payload type code of p (PT_NONE after an error). */
static unsigned payload_type(ik_state *st, const tx_expr *p) {
  tx_dtype t = p->dtype;
  unsigned code = PT_NONE;
  int b = t.bits;
  if (p->kind != EXPR_STRING && t.lanes == 1) {
    if (t.code == DT_BOOL)
      code = PT_UI8;
    else if (t.code == DT_INT)
      code = b == 8 ? PT_I8 : b == 16 ? PT_I16 : b == 32 ? PT_I32 : b == 64 ? PT_I64 : PT_NONE;
    else if (t.code == DT_UINT)
      code = b == 8 ? PT_UI8 : b == 16 ? PT_UI16 : b == 32 ? PT_UI32 : b == 64 ? PT_UI64 : PT_NONE;
    else if (t.code == DT_FLOAT)
      code = b == 32 ? PT_FP32 : b == 64 ? PT_FP64 : PT_NONE;
  }
  if (code == PT_NONE) {
    char buf[32];
    ik_error(st, p->span,
             "IKET payload supports only bool, int/uint 8/16/32/64, float32, and float64; got %s",
             p->kind == EXPR_STRING ? "a string" : tx_dtype_str(t, buf));
  }
  return code;
}

static const char *type_name(unsigned t) {
  switch (t) {
  case PT_I8:
    return "I8";
  case PT_UI8:
    return "UI8";
  case PT_I16:
    return "I16";
  case PT_UI16:
    return "UI16";
  case PT_I32:
    return "I32";
  case PT_UI32:
    return "UI32";
  case PT_I64:
    return "I64";
  case PT_FP32:
    return "FP32";
  case PT_FP64:
    return "FP64";
  case PT_UI64:
    return "UI64";
  default:
    return "NoPayload";
  }
}

static const char *kind_name(ik_kind k) {
  return k == IK_RANGE ? "range" : k == IK_PUSH ? "push_pop" : "mark";
}

/* ---- declarations ---------------------------------------------------------------- */

static ik_decl *find_decl(ik_state *st, ik_kind kind, const char *name) {
  for (uint32_t i = 0; i < st->ndecls; i++)
    if (st->decls[i].name == name && (kind == IK_NONE || st->decls[i].kind == kind))
      return &st->decls[i];
  return NULL;
}

/* The declaring site `call` of kind: its name and payload schema must agree
 * with the earlier sites of the name. */
static void add_decl(ik_state *st, ik_kind kind, const tx_expr *call) {
  const char *name = event_name(st, call);
  if (!name) return;
  int has = call->u.call.kw.npos == 2;
  unsigned pt = has ? payload_type(st, call->ops[1]) : PT_NONE;
  if (has && pt == PT_NONE) return;
  st->has_payload_calls |= has;
  ik_decl *d = find_decl(st, IK_NONE, name);
  if (d && d->kind != kind) {
    ik_error(st, call->span, "IKET declaration %s changes event kind from %s to %s", name,
             kind_name(d->kind), kind_name(kind));
    return;
  }
  if (d) {
    if (d->has_payload != has)
      ik_error(st, call->span, "IKET declaration %s changes payload presence between sites", name);
    else if (d->ptype != pt)
      ik_error(st, call->span,
               "IKET declaration %s changes payload type from %s to %s between sites", name,
               type_name(d->ptype), type_name(pt));
    return;
  }
  if (!ik_grow(st, (void **)&st->decls, &st->capdecls, st->ndecls, sizeof *st->decls)) return;
  st->decls[st->ndecls++] =
      (ik_decl){kind, name, strlen(name), has, pt, 0, 0, PT_NONE, 0, call->span};
}

/* Visitor: declarations, the payloads of range_end, where producers stand. */
static int collect_stmt(tx_visitor *v, const tx_stmt *s) {
  ik_state *st = (ik_state *)v;
  if (s->kind == STMT_STORE && s->nexprs && is_producer(s->exprs[0]) &&
      !tx_ptrset_add(&st->assigned, s->exprs[0])) {
    st->oom = 1;
    v->stop = 1;
  }
  return 1;
}

static int collect_expr(tx_visitor *v, const tx_expr *e) {
  ik_state *st = (ik_state *)v;
  ik_op op = iket_op(e);
  if (op == OP_NONE) return 1;
  if (!st->found) st->first = e->span;
  st->found = 1;
  if (is_producer(e) && !tx_ptrmap_has(&st->assigned, e))
    ik_error(st, e->span,
             "range_start and sentinel_token results must be assigned to a RangeToken");
  switch (op) {
  case OP_MARK:
    add_decl(st, IK_MARK, e);
    break;
  case OP_RANGE_START:
    add_decl(st, IK_RANGE, e);
    break;
  case OP_RANGE_PUSH:
    add_decl(st, IK_PUSH, e);
    break;
  case OP_SENTINEL:
    /* token-flow identity only: no event, no declaration */
    event_name(st, e);
    break;
  case OP_RANGE_END: {
    const tx_expr *tok = e->ops[0];
    if (!(tok->dtype.code == DT_UINT && tok->dtype.bits == 32 && tok->dtype.lanes == 1))
      ik_error(st, tok->span, "IKET RangeToken must have dtype uint32");
    if (e->u.call.kw.npos == 2) {
      st->has_payload_calls = 1;
      payload_type(st, e->ops[1]);
    }
    break;
  }
  case OP_RANGE_POP:
  case OP_NONE:
    break;
  }
  return 1;
}

/* ---- RangeTokens ----------------------------------------------------------------- */

static ik_token *find_token(const ik_state *st, const tx_buffer *b) {
  for (uint32_t i = 0; i < st->ntokens; i++)
    if (st->tokens[i].buf == b) return &st->tokens[i];
  return NULL;
}

static void token_add_name(ik_state *st, ik_token *t, const char *name) {
  for (uint32_t i = 0; i < t->n; i++)
    if (t->names[i] == name) return;
  if (!ik_grow(st, (void **)&t->names, &t->cap, t->n, sizeof *t->names)) return;
  t->names[t->n++] = name;
  st->changed = 1;
}

/* Visitor: a store of a producer or of another token makes a token buffer,
 * whose possible range names are the producer's or the other token's. */
static int token_stmt(tx_visitor *v, const tx_stmt *s) {
  ik_state *st = (ik_state *)v;
  if (s->kind != STMT_STORE || !s->nexprs) return 1;
  const tx_expr *val = s->exprs[0];
  const ik_token *from = val->kind == EXPR_LOAD ? find_token(st, val->u.buffer) : NULL;
  const char *name = NULL;
  if (is_producer(val)) {
    const tx_expr *a = val->u.call.kw.npos ? val->ops[0] : NULL;
    if (!a || a->kind != EXPR_STRING) return 1; /* reported by the collector */
    if (!(name = tx_intern_n(st->pc->ir->strings, a->u.str.data, a->u.str.len))) st->oom = 1;
  }
  if (!name && !from) return 1;
  ik_token *t = find_token(st, s->buffer);
  if (!t) {
    if (!ik_grow(st, (void **)&st->tokens, &st->captokens, st->ntokens, sizeof *st->tokens))
      return 0;
    t = &st->tokens[st->ntokens++];
    *t = (ik_token){s->buffer, NULL, 0, 0};
    st->changed = 1;
    from = val->kind == EXPR_LOAD ? find_token(st, val->u.buffer) : NULL; /* may have moved */
  }
  if (name) token_add_name(st, t, name);
  for (uint32_t i = 0; from && i < from->n && !st->oom; i++) {
    const char *n = from->names[i];
    token_add_name(st, t, n);
    from = find_token(st, val->u.buffer); /* t's names may have moved the array */
  }
  return 1;
}

/* Visitor: token storage and range_end operands, and range_end's payload
 * schema against the ranges its token may have started. */
static int verify_stmt(tx_visitor *v, const tx_stmt *s) {
  ik_state *st = (ik_state *)v;
  if (s->kind != STMT_STORE || !find_token(st, s->buffer)) return 1;
  const tx_buffer *b = s->buffer;
  if (!(b->dtype.code == DT_UINT && b->dtype.bits == 32 && b->dtype.lanes == 1))
    ik_error(st, s->span, "IKET RangeToken storage must have dtype uint32");
  const tx_expr *val = s->exprs[0];
  if (!is_producer(val) && !(val->kind == EXPR_LOAD && find_token(st, val->u.buffer)))
    ik_error(st, val->span,
             "RangeToken may only be assigned another token, range_start, or sentinel_token");
  return 1;
}

static void end_schema(ik_state *st, const tx_expr *call, const ik_token *t) {
  int has = call->u.call.kw.npos == 2;
  unsigned pt = has ? payload_type(st, call->ops[1]) : PT_NONE;
  for (uint32_t i = 0; i < t->n; i++) {
    ik_decl *d = find_decl(st, IK_RANGE, t->names[i]);
    if (!d) continue; /* a sentinel-only identity */
    if (!d->end_set) {
      d->end_set = 1;
      d->end_has = has;
      d->end_type = pt;
    } else if (d->end_has != has) {
      ik_error(st, call->span, "range_end for %s changes payload presence between sites", d->name);
    } else if (d->end_type != pt) {
      ik_error(st, call->span, "range_end for %s changes payload type from %s to %s between sites",
               d->name, type_name(d->end_type), type_name(pt));
    }
  }
}

static int verify_expr(tx_visitor *v, const tx_expr *e) {
  ik_state *st = (ik_state *)v;
  if (iket_op(e) != OP_RANGE_END) return 1;
  const tx_expr *tok = e->ops[0];
  const ik_token *t = tok->kind == EXPR_LOAD ? find_token(st, tok->u.buffer) : NULL;
  if (!t) {
    ik_error(st, tok->span, "range_end requires a directly loaded RangeToken");
    return 1;
  }
  end_schema(st, e, t);
  return 1;
}

/* A token range uses a payload at both ends or at neither, of one type. */
static void check_ranges(ik_state *st) {
  for (uint32_t i = 0; i < st->ndecls; i++) {
    const ik_decl *d = &st->decls[i];
    if (d->kind != IK_RANGE || !d->end_set) continue;
    if (d->has_payload != d->end_has)
      ik_error(st, d->span,
               "IKET token range %s must use payloads at both range_start and range_end, or at "
               "neither endpoint",
               d->name);
    else if (d->ptype != d->end_type)
      ik_error(st, d->span,
               "IKET token range %s changes payload type from %s at range_start to %s at "
               "range_end",
               d->name, type_name(d->ptype), type_name(d->end_type));
  }
}

static void walk(ik_state *st, const tx_func *f, int (*pre_stmt)(tx_visitor *, const tx_stmt *),
                 int (*pre_expr)(tx_visitor *, const tx_expr *)) {
  st->v.pre_stmt = pre_stmt;
  st->v.pre_expr = pre_expr;
  tx_visit_func(&st->v, f);
}

static int is_kernel(const tx_func *f) {
  for (uint32_t i = 0; i < f->nattrs; i++)
    if (strcmp(f->attr_keys[i], "tirx.kernel") == 0)
      return f->attr_values[i]->kind == EXPR_INT && f->attr_values[i]->u.ival != 0;
  return 0;
}

/* Runs every check over f; 1 when f holds annotations or token buffers. */
static int check_func(ik_state *st, const tx_func *f, int enabled) {
  st->found = 0;
  walk(st, f, collect_stmt, collect_expr);
  uint32_t before = st->ntokens;
  do {
    st->changed = 0;
    walk(st, f, token_stmt, NULL);
  } while (st->changed && !st->oom && !st->v.stop);
  if (!st->found) return st->ntokens != before;
  walk(st, f, verify_stmt, verify_expr);
  if (enabled && !is_kernel(f))
    ik_error(st, st->first, "IKET annotations are only valid in a split CUDA device kernel");
  else if (enabled && (!st->pc->target || st->pc->target->sm < 90))
    ik_error(st, st->first, "NVIDIA IKET requires SM90 or newer for kernel %s (the target is %s)",
             f->name, st->pc->target && st->pc->target->arch ? st->pc->target->arch : "none");
  return 1;
}

/* ---- TVM's device source ----------------------------------------------------------- */

/* The order of TVM's std::map<DeclarationKey>: kind, then the name's bytes. */
static int decl_order(const void *pa, const void *pb) {
  const ik_decl *a = pa, *b = pb;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  int c = memcmp(a->name, b->name, a->len < b->len ? a->len : b->len);
  return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* NVIDIA's range id of a name: 32-bit FNV-1a. */
static uint32_t range_id(const ik_decl *d) {
  if (d->kind == IK_MARK) return 0;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < d->len; i++)
    h = (h ^ (unsigned char)d->name[i]) * 16777619u;
  return h;
}

static void put_u32(unsigned char *bytes, size_t at, uint32_t v) {
  for (int i = 0; i < 4; i++)
    bytes[at + (size_t)i] = (unsigned char)(v >> (8 * i));
}

/* `__device__ __align__(1) unsigned char <prefix><name>_<n>_attrs[N] = {...};` (the
 * name with every byte outside [A-Za-z0-9_] as '_'); a NULL d names it <prefix>. */
static void byte_array(tx_strbuf *sb, const char *prefix, const ik_decl *d, uint32_t n,
                       const unsigned char *bytes, size_t len) {
  tx_sb_printf(sb, "__device__ __align__(1) unsigned char %s", prefix);
  for (size_t i = 0; d && i < d->len; i++) {
    unsigned char c = (unsigned char)d->name[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    tx_sb_putc(sb, ok ? (char)c : '_');
  }
  if (d) tx_sb_printf(sb, "_%u_attrs", (unsigned)n);
  tx_sb_printf(sb, "[%zu] = {", len);
  for (size_t i = 0; i < len; i++)
    tx_sb_printf(sb, "%s%u", i ? "," : "", (unsigned)bytes[i]);
  tx_sb_puts(sb, "};\n");
}

/* The metadata arrays: __iket_meta_info, then per declaration its event
 * attributes and, for ranges and push/pop, its range attributes. */
static void put_metadata(tx_strbuf *sb, const ik_state *st, unsigned mode) {
  unsigned char meta[META_BYTES] = {0};
  put_u32(meta, 0, META_BYTES);
  put_u32(meta, 8, 5);
  put_u32(meta, 12, mode == MODE_NATIVE_DUMP ? NATIVE_MAX_ID : EXTENDED_MAX_ID);
  put_u32(meta, 16, 32);
  put_u32(meta, 20, EVENT_BYTES);
  put_u32(meta, 24, 0xbabef19du);
  put_u32(meta, 32, 3);
  byte_array(sb, "__iket_meta_info", NULL, 0, meta, sizeof meta);
  for (uint32_t i = 0; i < st->ndecls; i++) {
    const ik_decl *d = &st->decls[i];
    uint32_t rid = range_id(d);
    unsigned char ev[EVENT_BYTES] = {0};
    put_u32(ev, 0, EVENT_BYTES);
    put_u32(ev, 4, d->id);
    put_u32(ev, 8, mode);
    put_u32(ev, 12, d->ptype);
    put_u32(ev, 16, d->kind == IK_RANGE ? 4 : d->kind == IK_PUSH ? 1 : 0);
    put_u32(ev, 20, rid);
    put_u32(ev, 24, (uint32_t)d->len);
    memcpy(ev + 28, d->name, d->len);
    byte_array(sb, "__iket_evt_decl_", d, d->id, ev, sizeof ev);
    if (!rid) continue;
    unsigned char rg[RANGE_BYTES] = {0};
    put_u32(rg, 0, RANGE_BYTES);
    put_u32(rg, 8, rid);
    put_u32(rg, 12, 0xffffffffu);
    put_u32(rg, 16, d->kind == IK_RANGE ? 1 : 2);
    put_u32(rg, 20, d->kind == IK_RANGE ? 1 : 0);
    put_u32(rg, 32, (uint32_t)d->len);
    memcpy(rg + 36, d->name, d->len);
    byte_array(sb, "__iket_range_decl_", d, rid, rg, sizeof rg);
  }
}

static int is_64bit(unsigned t) {
  return t == PT_I64 || t == PT_UI64 || t == PT_FP64;
}

/* The `case ID:` lines of one dispatch function: declarations whose payload
 * is none (want 0), 32-bit (32) or 64-bit (64). */
static void put_cases(tx_strbuf *sb, const ik_state *st, int want, const char *impl,
                      const char *arg) {
  for (uint32_t i = 0; i < st->ndecls; i++) {
    const ik_decl *d = &st->decls[i];
    int has = d->has_payload ? (is_64bit(d->ptype) ? 64 : 32) : 0;
    if (want >= 0 && has != want) continue;
    tx_sb_printf(sb, "    case %u:\n      %s<%u>(%s);\n      break;\n", (unsigned)d->id, impl,
                 (unsigned)d->id, arg);
  }
}

/* TVM's BuildOfficialDeviceSource, byte for byte. */
static void device_source(tx_strbuf *sb, const ik_state *st, unsigned mode) {
  static const char impl[] = "tvm_builtin_iket_official_event_impl";
  tx_sb_puts(sb, IK_OPEN);
  put_metadata(sb, st, mode);
  if (mode == MODE_NATIVE_DUMP && !st->has_payload_calls) {
    /* TVM keeps this no-payload form byte-compatible with its first version. */
    tx_sb_puts(sb, IK_COMPAT_HEAD);
    put_cases(sb, st, -1, impl, "");
    tx_sb_puts(sb, IK_COMPAT_TAIL);
    return;
  }
  tx_sb_puts(sb, IK_CLOSE);
  tx_sb_puts(sb, mode == MODE_NATIVE_DUMP ? IK_NATIVE_IMPLS : IK_EXTENDED_IMPLS);
  tx_sb_puts(sb, IK_DISPATCH0_HEAD);
  put_cases(sb, st, 0, impl, "");
  tx_sb_puts(sb, IK_DISPATCH32_HEAD);
  put_cases(sb, st, 32, "tvm_builtin_iket_official_event_payload32_impl", "payload");
  tx_sb_puts(sb, IK_DISPATCH64_HEAD);
  put_cases(sb, st, 64, "tvm_builtin_iket_official_event_payload64_impl", "payload");
  tx_sb_puts(sb, IK_DISPATCH_TAIL);
}

static int id_order(const void *pa, const void *pb) {
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return (a > b) - (a < b);
}

/* Orders the declarations, numbers them and checks the module-wide limits;
 * the instrument mode, or 0 after an error. */
static unsigned number_decls(ik_state *st) {
  if (st->ndecls > EXTENDED_MAX_DECLS) {
    ik_error(st, st->decls[EXTENDED_MAX_DECLS].span,
             "NVIDIA IKET supports at most %d distinct user declarations in one CUDA module; got "
             "%u",
             EXTENDED_MAX_DECLS, (unsigned)st->ndecls);
    return 0;
  }
  if (st->ndecls) qsort(st->decls, st->ndecls, sizeof *st->decls, decl_order);
  unsigned mode = st->ndecls <= NATIVE_MAX_DECLS ? MODE_NATIVE_DUMP : MODE_EXTENDED_NATIVE_DUMP;
  uint32_t id = mode == MODE_NATIVE_DUMP ? NATIVE_FIRST_ID : EXTENDED_FIRST_ID;
  for (uint32_t i = 0; i < st->ndecls; i++)
    st->decls[i].id = id++;
  /* range ids (high 32 bits) with the declaration's index: equal ids of two names collide */
  uint64_t *ids = st->ndecls ? tx_mem_calloc(st->alloc, st->ndecls, sizeof *ids) : NULL;
  if (st->ndecls && !ids) {
    st->oom = 1;
    return 0;
  }
  uint32_t n = 0;
  for (uint32_t i = 0; i < st->ndecls; i++)
    if (range_id(&st->decls[i])) ids[n++] = (uint64_t)range_id(&st->decls[i]) << 32 | i;
  if (n) qsort(ids, n, sizeof *ids, id_order);
  for (uint32_t i = 1; i < n; i++)
    if (ids[i] >> 32 == ids[i - 1] >> 32) {
      const ik_decl *a = &st->decls[(uint32_t)ids[i - 1]], *b = &st->decls[(uint32_t)ids[i]];
      ik_error(st, b->span, "NVIDIA IKET range-id collision between %s and %s", a->name, b->name);
    }
  tx_mem_free(st->alloc, ids);
  return st->errors ? 0 : mode;
}

/* ---- the rewrite ------------------------------------------------------------------- */

static int is_empty(const tx_stmt *s) {
  return !s || (s->kind == STMT_SEQ && s->nstmts == 0) ||
         (s->kind == STMT_EVAL && s->nexprs && s->exprs[0]->kind == EXPR_INT);
}

static int is_token_buffer(const ik_state *st, const tx_buffer *b) {
  return b && find_token(st, b) != NULL;
}

static const tx_expr *u32(tx_ir *ir, int64_t v) {
  return tx_lc_int(ir, tx_dt(DT_UINT, 32, 1), v);
}

/* tvm_builtin_iket_official_event(id[, payload]) with the device source. */
static const tx_expr *event_call(tx_mutator *m, const tx_expr *id, const tx_expr *payload,
                                 tirx_span span) {
  ik_state *st = m->user;
  const tx_expr *ops[] = {st->fn_name, id, payload, st->source, st->ret_type};
  uint32_t n = 0;
  const tx_expr *args[5];
  for (uint32_t i = 0; i < 5; i++)
    if (ops[i] || i != 2) args[n++] = ops[i];
  for (uint32_t i = 0; i < n; i++)
    if (!args[i]) return NULL;
  return tx_call_kw(m->ir, "T.cuda.func_call", tx_dt(DT_UINT, 32, 1), args, n,
                    (tx_kwargs){.npos = n - 2, .names = st->kw_names}, span);
}

/* The event of a declaring call (mark, range_push, range_start). */
static const tx_expr *declared_event(tx_mutator *m, const tx_expr *e, ik_kind kind) {
  ik_state *st = m->user;
  const tx_expr *a = e->ops[0];
  const char *name = tx_intern_n(m->ir->strings, a->u.str.data, a->u.str.len);
  const ik_decl *d = name ? find_decl(st, kind, name) : NULL;
  if (!d) {
    tx_internal_error(st->pc->diags, PASS_NAME, "no declaration for IKET event %s",
                      name ? name : "?");
    st->errors++;
    return e;
  }
  const tx_expr *payload = d->has_payload ? tx_mutate_expr(m, e->ops[1]) : NULL;
  return event_call(m, u32(m->ir, d->id), payload, e->span);
}

static const tx_expr *ik_expr(tx_mutator *m, const tx_expr *e) {
  ik_state *st = m->user;
  ik_op op = iket_op(e);
  if (op == OP_SENTINEL || (op == OP_RANGE_START && !st->source)) return u32(m->ir, 0);
  if (!st->source) return NULL;
  switch (op) {
  case OP_MARK:
    return declared_event(m, e, IK_MARK);
  case OP_RANGE_PUSH:
    return declared_event(m, e, IK_PUSH);
  case OP_RANGE_START:
    return declared_event(m, e, IK_RANGE);
  case OP_RANGE_POP:
    return event_call(m, u32(m->ir, RANGE_POP_ID), NULL, e->span);
  case OP_RANGE_END: /* a statement (ik_stmt) */
  case OP_SENTINEL:
  case OP_NONE:
    break;
  }
  return NULL;
}

/* range_end(token[, payload]): the event on the token, guarded by token != 0
 * with a payload (a sentinel's 0 token records nothing). */
static const tx_stmt *range_end(tx_mutator *m, const tx_stmt *s) {
  const tx_expr *e = s->exprs[0], *tok = e->ops[0];
  const tx_expr *payload = e->u.call.kw.npos == 2 ? tx_mutate_expr(m, e->ops[1]) : NULL;
  const tx_expr *ev = event_call(m, tok, payload, e->span);
  const tx_stmt *eval = ev ? tx_stmt_new(m->ir, STMT_EVAL, &ev, 1, NULL, 0, s->span) : NULL;
  if (!payload || !eval) return eval;
  const tx_expr *cond = tx_binary(m->ir, EXPR_NE, tok, u32(m->ir, 0), s->span);
  return cond ? tx_stmt_new(m->ir, STMT_IF, &cond, 1, &eval, 1, s->span) : NULL;
}

/* Stripping: a loop or if left without a body goes too. */
static const tx_stmt *strip_control(tx_mutator *m, const tx_stmt *s) {
  const tx_stmt *r = tx_mutate_stmt_children(m, s);
  if (!r) return NULL;
  int empty = r->nstmts && is_empty(r->stmts[0]);
  if (r->kind == STMT_IF && r->nstmts > 1) empty = empty && is_empty(r->stmts[1]);
  return empty ? tx_lc_empty(m->ir) : r;
}

/* A payload-free event whose value is unused (a statement):
 * tvm_builtin_iket_official_event_impl<ID>(), the record TVM's dispatcher
 * switches to for ID, called directly (with thousands of events, inlining
 * the dispatcher's switch at every site dominates the CUDA compile). */
static const tx_stmt *direct_event(tx_mutator *m, const tx_stmt *s) {
  ik_state *st = m->user;
  const tx_expr *e = s->exprs[0];
  ik_op op = iket_op(e);
  uint32_t id = RANGE_POP_ID;
  if (op != OP_RANGE_POP) {
    const tx_expr *a = e->ops[0];
    const char *name = tx_intern_n(m->ir->strings, a->u.str.data, a->u.str.len);
    const ik_decl *d = name ? find_decl(st, op == OP_MARK ? IK_MARK : IK_PUSH, name) : NULL;
    if (!d || d->has_payload) return NULL; /* the general form */
    id = d->id;
  }
  char fn[64];
  snprintf(fn, sizeof fn, "tvm_builtin_iket_official_event_impl<%u>", (unsigned)id);
  const tx_expr *args[] = {tx_string(m->ir, fn, strlen(fn), e->span), st->source};
  if (!args[0]) return NULL;
  const tx_expr *c = tx_call_kw(m->ir, "T.cuda.func_call", TX_VOID, args, 2,
                                (tx_kwargs){.npos = 1, .names = st->kw_names}, e->span);
  return c ? tx_stmt_new(m->ir, STMT_EVAL, &c, 1, NULL, 0, s->span) : NULL;
}

static const tx_stmt *ik_stmt(tx_mutator *m, const tx_stmt *s) {
  ik_state *st = m->user;
  if (s->kind == STMT_SEQ) return tx_lc_mutate_seq(m, s);
  if (s->kind == STMT_EVAL && s->nexprs && iket_op(s->exprs[0]) != OP_NONE) {
    ik_op op = iket_op(s->exprs[0]);
    if (!st->source) return tx_lc_empty(m->ir);
    if (op == OP_RANGE_END) return range_end(m, s);
    if (op == OP_MARK || op == OP_RANGE_PUSH || op == OP_RANGE_POP) return direct_event(m, s);
    return NULL;
  }
  if (st->source) return NULL;
  if ((s->kind == STMT_STORE || s->kind == STMT_ALLOC) && is_token_buffer(st, s->buffer))
    return tx_lc_empty(m->ir);
  if (s->kind == STMT_IF || s->kind == STMT_FOR || s->kind == STMT_WHILE)
    return strip_control(m, s);
  return NULL;
}

/* ---- the pass -------------------------------------------------------------------- */

static int enabled_attr(const tx_module *m) {
  for (uint32_t i = 0; i < m->nattrs; i++)
    if (strcmp(m->attr_keys[i], "tirx.iket.enabled") == 0)
      return m->attr_values[i]->kind == EXPR_INT && m->attr_values[i]->u.ival != 0;
  return 0;
}

/* The fixed operands of every event call: name, source, return type, keywords. */
static int event_operands(ik_state *st, unsigned mode) {
  tx_ir *ir = st->pc->ir;
  tx_strbuf sb = {.alloc = st->alloc};
  device_source(&sb, st, mode);
  static const char fn[] = "tvm_builtin_iket_official_event";
  st->source = sb.failed ? NULL : tx_string(ir, sb.data ? sb.data : "", sb.len, (tirx_span){0});
  tx_sb_free(&sb);
  st->fn_name = tx_string(ir, fn, sizeof fn - 1, (tirx_span){0});
  st->ret_type = tx_string(ir, "uint32", 6, (tirx_span){0});
  const char *kw[] = {tx_intern(ir->strings, "source_code"), tx_intern(ir->strings, "return_type")};
  st->kw_names = kw[0] && kw[1] ? TX_DUP(ir, char, kw, 2) : NULL;
  return st->source && st->fn_name && st->ret_type && st->kw_names;
}

static void free_state(ik_state *st) {
  for (uint32_t i = 0; i < st->ntokens; i++)
    tx_mem_free(st->alloc, st->tokens[i].names);
  tx_mem_free(st->alloc, st->tokens);
  tx_mem_free(st->alloc, st->decls);
  tx_ptrmap_free(&st->assigned);
}

static tirx_status rewrite(ik_state *st, const tx_module *in, const uint8_t *touched,
                           const tx_module **out) {
  const tx_func **funcs = tx_mem_calloc(st->alloc, in->nfuncs, sizeof *funcs);
  if (!funcs) return TIRX_ERR_NOMEM;
  int failed = 0;
  for (uint32_t i = 0; i < in->nfuncs; i++) {
    tx_mutator m = {.ir = st->pc->ir, .user = st, .expr = ik_expr, .stmt = ik_stmt};
    funcs[i] = touched[i] ? tx_mutate_func(&m, in->funcs[i]) : in->funcs[i];
    failed |= m.failed;
  }
  tirx_status status = failed       ? TIRX_ERR_NOMEM
                       : st->errors ? TIRX_ERR_INTERNAL
                                    : tx_lc_replace_funcs(st->pc->ir, in, funcs, out);
  tx_mem_free(st->alloc, funcs);
  return status;
}

tirx_status tx_pass_lower_iket(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  *out = in;
  if (!in->nfuncs) return TIRX_OK;
  ik_state st = {.pc = pc, .alloc = tx_ir_alloc(pc->ir)};
  st.v.user = &st;
  st.assigned.alloc = st.alloc;
  int enabled = enabled_attr(in), any = 0;
  uint8_t *touched = tx_mem_calloc(st.alloc, in->nfuncs, 1);
  if (!touched) return TIRX_ERR_NOMEM;
  for (uint32_t i = 0; i < in->nfuncs && !st.oom && !st.v.stop; i++) {
    touched[i] = (uint8_t)check_func(&st, in->funcs[i], enabled);
    any |= touched[i];
  }
  if (!st.errors && !st.oom) check_ranges(&st);
  tirx_status status = TIRX_OK;
  if (st.oom)
    status = TIRX_ERR_NOMEM;
  else if (st.errors)
    status = TIRX_ERR_INPUT;
  else if (any) {
    unsigned mode = enabled ? number_decls(&st) : 0;
    if (st.oom)
      status = TIRX_ERR_NOMEM;
    else if (st.errors)
      status = TIRX_ERR_INPUT;
    else if (mode && !event_operands(&st, mode))
      status = TIRX_ERR_NOMEM;
    else
      status = rewrite(&st, in, touched, out);
  }
  tx_mem_free(st.alloc, touched);
  free_state(&st);
  return status;
}
