/*
 * cse.c - the cse pass: common subexpression elimination, in the spirit of
 * TVM's CommonSubexprElimTIR.
 *
 * Requires: a well-formed module (runs after simplify, so that equal values
 * are usually spelled equally). Runs at -O2 and above only.
 * Guarantees:
 *  - within each block (a statement sequence, or the single statement that
 *    is the body of a loop, branch, `with` or function), a pure, non-trivial
 *    expression that occurs two or more times in the block's statements (in
 *    one statement or across several) is computed once: `cse_vN = expr`
 *    (BIND_PLAIN, a fresh variable) is inserted right before the first
 *    statement that uses it, and every structurally equal occurrence in that
 *    statement and the later ones (their nested bodies included) reads
 *    cse_vN. When the first occurrence is the whole value of a plain or let
 *    binding, that binding's variable is reused instead of a new one;
 *  - counted and replaced: the expressions a statement computes itself:
 *    store values and indices, binding values, `if` conditions and loop
 *    bounds. Not touched: launch and device-entry operands, attributes,
 *    allocations, `with` items, `while` conditions, evaluated calls,
 *    assertions, call keywords;
 *  - pure: no buffer load (a store in between may change it), no call
 *    except the plain math and bit calls `T.<name>(...)` (whose arguments are
 *    searched but which are never hoisted themselves), no EXPR_LET, no
 *    mutable scalar-sugar variable; non-trivial: an arithmetic, comparison,
 *    logical, select or cast node (never a variable, literal, Ramp,
 *    Broadcast, nor a cast of a variable or literal); scalar only (vector
 *    values are left to codegen);
 *  - scopes: a candidate's free variables are bound before the first
 *    statement that uses it (they are read there): a candidate that reads a
 *    variable bound by that statement or a later one of the block is refused;
 *  - largest expressions first (node count, then source order), repeated
 *    until no expression occurs twice (within the rescan budget below), so `(a*b + c)` used twice
 * gives one variable and its parts are not bound again; grouping is structural equality
 * (tx_expr_equal), and names are cse_v1, cse_v2, ... in the order they are made (a name already
 * used in the function is skipped), so output is deterministic. Must not: move, drop or reorder a
 * statement, hoist anything impure, or let the output depend on addresses (hashes only find table
 * slots).
 *
 * How, in O(n log n) for a block of n expression nodes (the result is the
 * one the definition above gives, which was once computed by rescanning the
 * block after every binding: cubic on a block of N bindings):
 *  - a quick look hashes the block's own expressions bottom-up: when no two
 *    hoistable nodes hash alike nothing repeats, and most blocks stop there;
 *  - one scan hash-conses every pure node of the block's own expressions
 *    into a class (kind, dtype, payload and the classes of its operands:
 *    for these binder-free trees exactly tx_expr_equal), with its node
 *    count, its first statement and the last statement binding a variable
 *    it reads (the scope check). Occurrences are grouped without comparing
 *    trees;
 *  - classes are taken largest first; within one size, by where their first
 *    remaining occurrence now is. Binding a class removes its other
 *    occurrences, and what the scan counted inside them, and moves its
 *    first one into the new binding right before the statement that holds
 *    it (itself perhaps such a binding). Nothing of one size is inside
 *    another of that size, so a whole size is ordered once, then bound. The
 *    bindings placed before one statement form a tree (a binding sits
 *    before the one it was taken out of, siblings in the order they were
 *    made), and a jump pointer per binding orders two of them in O(log);
 *  - then every statement is rewritten once: a node is replaced by the
 *    variable of its class when that class's binding precedes the
 *    statement (classes of nested statements and call keywords are looked
 *    up in the same table).
 * Rescans: only a reused binding `x = e` can make two expressions equal
 * that were not (`e + 1` and `x + 1`): when replacing e by x does that (a
 * class's operands, re-hashed, meet another class), or when a class that
 * reads x is about to be bound while e is still spelled out in a nested
 * statement after the binding, the block is rewritten as it stands and
 * scanned again. The rescans of one block may cost RESCAN_FACTOR times its
 * first scan plus RESCAN_SLACK; beyond that such expressions stay as they
 * are written (the result is still correct, only less is shared). Blocks
 * that hoist something also walk the statements nested in them once to
 * rewrite them, so a statement nested d blocks deep is walked up to d times
 * (the frontend bounds nesting at 200).
 * Limits: expressions shared between a statement and the body of a loop it
 * precedes are not combined (the body is its own block), and common
 * subexpressions are not sought modulo commutativity.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/equal.h"
#include "support/mem.h"
#include "ir/ptrmap.h"
#include "passes/cse.h"
#include "passes/lower_common.h"
#include "passes/pass.h"

static const char PASS[] = "cse";

enum { NONE = UINT32_MAX, ROOT = UINT32_MAX - 1 };
/* Class ids: 0 is "no class" (impure or unknown), 1 the class of a missing
 * (NULL) operand. */
enum { CLS_NONE = 0, CLS_NULL = 1, CLS_FIRST = 2 };
/* Rescan budget of a block, in units of tx_cse_probe.work. */
enum { RESCAN_FACTOR = 8, RESCAN_SLACK = 1 << 20 };

/* A pure node of the block's own expressions, in post-order. */
typedef struct cse_node {
  const tx_expr *e;
  uint32_t cls;
  uint32_t parent; /* the pure node it is an operand of, or NONE */
  uint32_t nsub;   /* its pure descendants: nodes [index - nsub, index) */
  uint32_t next;   /* the next node of its class */
  uint32_t item;   /* the block statement it is in */
  uint32_t host;   /* memo of host_of (NONE: not known yet) */
  uint32_t moved;  /* the pick whose binding it became the value of, or NONE */
  uint8_t dead;    /* removed (replaced, or inside a replaced occurrence) */
} cse_node;

/* A structural class. */
typedef struct cse_class {
  uint64_t hash, payload;
  tx_dtype dtype;
  uint8_t kind, python_bool, hoistable;
  uint32_t nops, kids; /* operand classes: kid[kids .. kids + nops) */
  uint32_t size;       /* node count */
  uint32_t head, tail; /* its nodes, in scan order */
  uint32_t alive;      /* its nodes not dead */
  uint32_t first_item; /* the statement of its first node */
  uint32_t bound_at;   /* 1 + the last statement binding a variable it reads; 0: none */
  uint32_t hidden_at;  /* 1 + the last statement with it in a nested statement or keyword */
  uint32_t current;    /* the class its nodes now are (a reused binding's variable) */
  uint32_t pick;       /* NONE unless bound */
  uint32_t first;      /* its first remaining node, found at its size's turn */
} cse_class;

/* A class bound once. New bindings are nodes of the tree of bindings before
 * statement `item` (parent ROOT: right before the statement). */
typedef struct cse_pick {
  uint32_t cls, node, item;
  uint32_t parent, depth, jump;
  uint32_t child, last_child, sibling; /* children in the order they were made */
  const tx_expr *var;
  uint32_t replaced; /* occurrences rewritten to var */
  uint8_t reuse;     /* var is the variable of the binding at `item` */
} cse_pick;

typedef struct cse_slot {
  uint64_t hash;
  uint32_t cls, gen; /* empty unless gen is the table's */
} cse_slot;

typedef struct item_vec {
  const tx_stmt **items;
  uint32_t n, cap;
} item_vec;

typedef struct cse_state {
  tx_pass_ctx *pc;
  tx_ir *ir;
  tx_cse_probe *probe;
  tx_lc_names names;
  int next; /* the N of the next cse_vN */
  int oom, internal;
  /* the block of this phase */
  const tx_stmt *const *items;
  uint32_t nitems;
  cse_node *nodes;
  uint32_t nnodes, capnodes;
  cse_class *cls;
  uint32_t ncls, capcls;
  uint32_t *kid;
  uint32_t nkid, capkid;
  cse_slot *table;
  uint32_t tcap, tlen, gen;
  cse_pick *picks;
  uint32_t npicks, cappicks;
  uint32_t *stack, *snode; /* operand classes and nodes of the scan, a stack */
  uint32_t nstack, capstack, capsnode;
  uint32_t *list, *tmp; /* classes of one size; counting-sort and merge buffers */
  uint32_t caplist, captmp;
  uint32_t *root_child, *root_last; /* per statement: the bindings right before it */
  uint32_t caproot, caproot_last;
  struct cse_memo {
    const tx_expr *e;
    uint32_t cls, gen; /* empty unless gen is the table's */
  } * memo;            /* expression -> class, for lookups outside the scan */
  uint32_t mcap, mlen;
  struct {
    const tx_expr *var;
    uint32_t cls, gen;
  } leaves[256];   /* the classes of recently met variables: most leaves are variables */
  tx_ptrmap risky; /* reused variables whose value is still spelled in nested code */
  int has_hidden;  /* some statement has nested statements or call keywords */
  int hidden_done;
  int may_rescan, restart;
  /* the rewrite in progress: where the statement being rewritten stands */
  uint32_t pos_item, pos_host;
} cse_state;

/* ---- what may be searched, counted and hoisted ----------------------------------- */

/* Calls whose positional arguments are searched: plain math and bit
 * intrinsics (T.exp, T.min_value, T.bitwise_and, ...), not the ones whose
 * operands must keep their form or that are not device code. */
int tx_cse_searchable_call(const tx_expr *e) {
  const char *op = e->u.call.op;
  if (!op || strncmp(op, "T.", 2) != 0 || strchr(op + 2, '.')) return 0;
  return strcmp(op, "T.launch_thread") != 0 && strcmp(op, "T.call_packed") != 0 &&
         strcmp(op, "T.call_extern") != 0;
}

/* Is exprs[j] of s an expression s computes itself (searched by cse)? */
int tx_cse_own_expr(const tx_stmt *s, uint32_t j) {
  switch ((tx_stmt_kind)s->kind) {
  case STMT_STORE:
    return 1;
  case STMT_BIND:
    return j == 0 && s->flag != BIND_SCALAR && s->flag != BIND_LOCAL_SCALAR;
  case STMT_IF:
    return j == 0;
  case STMT_FOR:
    return j < s->kw.npos;
  case STMT_ASSIGN:
  case STMT_ATTR:
  case STMT_ASSERT:
  case STMT_SEQ:
  case STMT_EVAL:
  case STMT_WHILE:
  case STMT_BREAK:
  case STMT_CONTINUE:
  case STMT_RETURN:
  case STMT_ALLOC:
  case STMT_DECL:
  case STMT_SCOPE_ID:
  case STMT_DEVICE_ENTRY:
  case STMT_WITH:
  case STMT_BLOCK:
  case STMT_BLOCK_AXIS:
  case STMT_BLOCK_SIG:
  case STMT_BLOCK_INIT:
  case STMT_TILE_OP:
  case TX_STMT_KIND_COUNT:
    return 0;
  }
  return 0;
}

/* Is this node itself impure (whatever its operands)? */
int tx_cse_impure_node(const tx_expr *e) {
  switch ((tx_expr_kind)e->kind) {
  case EXPR_VAR:
    return e->u.var.form == VAR_SCALAR;
  case EXPR_LOAD:
  case EXPR_CALL:
  case EXPR_LET:
  case EXPR_TUPLE:
  case EXPR_BUFFER:
  case EXPR_REGION:
  case EXPR_SLICE:
  case EXPR_LAYOUT:
  case EXPR_LAMBDA:
  case EXPR_NONE:
  case EXPR_STRING:
    return 1;
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
  case EXPR_DIV:
  case EXPR_MOD:
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
  case EXPR_MIN:
  case EXPR_MAX:
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE:
  case EXPR_AND:
  case EXPR_OR:
  case EXPR_NOT:
  case EXPR_SELECT:
  case EXPR_CAST:
  case EXPR_RAMP:
  case EXPR_BROADCAST:
  case TX_EXPR_KIND_COUNT:
    return 0;
  }
  return 0;
}

/* May e be hoisted if it turns out pure? (Purity needs the operands.) */
int tx_cse_hoist_shape(const tx_expr *e) {
  tx_expr_kind k = (tx_expr_kind)e->kind;
  int computes = tx_expr_is_binary(k) || k == EXPR_NOT || k == EXPR_SELECT || k == EXPR_CAST;
  if (!computes || e->dtype.lanes != 1 || e->dtype.code == DT_HANDLE || e->dtype.code == DT_VOID)
    return 0;
  /* A conversion of a variable or literal costs no more than the variable
   * that would hold it. */
  return !(k == EXPR_CAST && e->nops == 1 &&
           (e->ops[0]->kind == EXPR_VAR || e->ops[0]->kind == EXPR_INT ||
            e->ops[0]->kind == EXPR_FLOAT));
}

/* Subexpressions a rewrite leaves alone (and the scan does not enter). */
static int opaque(const tx_expr *e) {
  return e->kind == EXPR_LET || (e->kind == EXPR_CALL && !tx_cse_searchable_call(e));
}

/* ---- memory ------------------------------------------------------------------------- */

/* Every allocation of the pass's own goes through here, so the probe can
 * count them and fail one. NULL sets st->oom. */
static void *cse_realloc(cse_state *st, void *p, size_t n) {
  void *q = ++st->probe->allocs == st->probe->fail_alloc_at
                ? NULL
                : tx_mem_realloc(tx_ir_alloc(st->ir), p, n);
  if (!q) st->oom = 1;
  return q;
}

/* Frees what cse_realloc gave (through the context's allocator). */
static void cse_free(cse_state *st, void *p) {
  tx_mem_free(tx_ir_alloc(st->ir), p);
}

/* p (capacity *cap elements of `size` bytes) with room for `need`; NULL on
 * OOM (p itself is then still valid). */
static void *grow(cse_state *st, void *p, uint32_t *cap, uint64_t need, size_t size) {
  if (need <= *cap) return p;
  uint64_t c = *cap ? *cap : 64;
  while (c < need)
    c *= 2;
  if (c > UINT32_MAX / 2 || c > SIZE_MAX / size) {
    st->oom = 1;
    return NULL;
  }
  void *q = cse_realloc(st, p, c * size);
  if (q) *cap = (uint32_t)c;
  return q;
}

/* Room for `need` elements in arr (st->oom on failure; arr stays valid). */
#define GROW(st, arr, cap, need)                                                                   \
  ((uint64_t)(need) <= (cap)                                                                       \
       ? (void)0                                                                                   \
       : (void)((arr) = grow_or_keep((st), (arr), &(cap), (need), sizeof *(arr))))

/* grow(), keeping p on failure so that the array can still be freed. */
static void *grow_or_keep(cse_state *st, void *p, uint32_t *cap, uint64_t need, size_t size) {
  void *q = grow(st, p, cap, need, size);
  return q ? q : p;
}

/* ---- the class table ------------------------------------------------------------------ */

/* What structural equality compares of a pure node: kind, dtype, operand
 * count, payload (integer value and Python-bool flag, float bits, variable
 * identity) and the operands' classes. */
typedef struct cse_sig {
  uint8_t kind, python_bool;
  tx_dtype dtype;
  uint64_t payload;
  uint32_t nops;
  const uint32_t *kids;
} cse_sig;

static cse_sig sig_of(const tx_expr *e, const uint32_t *kids) {
  cse_sig s = {.kind = e->kind, .dtype = e->dtype, .nops = e->nops, .kids = kids};
  if (e->kind == EXPR_INT) {
    s.payload = (uint64_t)e->u.ival;
    s.python_bool = e->python_bool;
  } else if (e->kind == EXPR_FLOAT)
    memcpy(&s.payload, &e->u.fval, sizeof s.payload);
  else if (e->kind == EXPR_VAR)
    s.payload = (uint64_t)(uintptr_t)e; /* a free variable equals only itself */
  return s;
}

/* The hash only finds table slots; nothing is ever ordered by it. */
static uint64_t sig_hash(const cse_sig *s) {
  tx_dtype t = s->dtype;
  uint64_t h = tx_hash_mix(s->kind, (uint64_t)t.code << 24 | (uint64_t)t.bits << 16 | t.lanes);
  h = tx_hash_mix(tx_hash_mix(tx_hash_mix(h, s->payload), s->python_bool), s->nops);
  for (uint32_t i = 0; i < s->nops; i++)
    h = tx_hash_mix(h, s->kids[i]);
  return h;
}

/* The class a reused binding made c into (itself otherwise). */
static uint32_t current(const cse_state *st, uint32_t c) {
  return c < CLS_FIRST ? c : st->cls[c].current;
}

/* Does class c have signature s: as scanned, or (current) as the block now
 * reads after the reused bindings so far? */
static int sig_is(const cse_state *st, const cse_sig *s, uint32_t c, int now) {
  const cse_class *k = &st->cls[c];
  if (k->kind != s->kind || k->python_bool != s->python_bool || k->payload != s->payload ||
      k->nops != s->nops || !tx_dtype_eq(k->dtype, s->dtype))
    return 0;
  for (uint32_t i = 0; i < s->nops; i++) {
    uint32_t a = st->kid[k->kids + i];
    if ((now ? current(st, a) : a) != s->kids[i]) return 0;
  }
  return 1;
}

/* The class with signature s, or CLS_NONE. With `now`, only classes that
 * still have nodes, compared as they now read. */
static uint32_t table_find(cse_state *st, const cse_sig *s, uint64_t h, int now) {
  if (!st->tcap) return CLS_NONE;
  uint32_t mask = st->tcap - 1;
  for (uint32_t j = (uint32_t)h & mask; st->table[j].gen == st->gen; j = (j + 1) & mask) {
    st->probe->work++;
    const cse_slot *sl = &st->table[j];
    if (sl->hash != h || (now && !st->cls[sl->cls].alive)) continue;
    if (sig_is(st, s, sl->cls, now)) return sl->cls;
  }
  return CLS_NONE;
}

static int table_put(cse_state *st, uint64_t h, uint32_t c) {
  if (2 * (st->tlen + 1) > st->tcap) {
    uint32_t cap = st->tcap ? st->tcap * 2 : 256;
    cse_slot *t = cse_realloc(st, NULL, (size_t)cap * sizeof *t);
    if (!t) return 0;
    memset(t, 0, (size_t)cap * sizeof *t);
    for (uint32_t i = 0; i < st->tcap; i++) {
      if (st->table[i].gen != st->gen) continue;
      uint32_t j = (uint32_t)st->table[i].hash & (cap - 1);
      while (t[j].gen == st->gen)
        j = (j + 1) & (cap - 1);
      t[j] = st->table[i];
    }
    cse_free(st, st->table);
    st->table = t;
    st->tcap = cap;
  }
  uint32_t j = (uint32_t)h & (st->tcap - 1);
  while (st->table[j].gen == st->gen)
    j = (j + 1) & (st->tcap - 1);
  st->table[j] = (cse_slot){h, c, st->gen};
  st->tlen++;
  return 1;
}

static uint32_t leaf_slot(const tx_expr *var) {
  return (uint32_t)((uintptr_t)var >> 4) * 0x9e3779b1u >> 24; /* 0 .. 255 */
}

/* The class of pure node e whose operands have classes kids[], made if new. */
static uint32_t intern(cse_state *st, const tx_expr *e, const uint32_t *kids, uint32_t item) {
  uint32_t slot = leaf_slot(e);
  int var = e->kind == EXPR_VAR && !e->nops;
  if (var && st->leaves[slot].var == e && st->leaves[slot].gen == st->gen)
    return st->leaves[slot].cls;
  cse_sig s = sig_of(e, kids);
  uint64_t h = sig_hash(&s);
  uint32_t c = table_find(st, &s, h, 0);
  if (var && c != CLS_NONE)
    st->leaves[slot].var = e, st->leaves[slot].cls = c, st->leaves[slot].gen = st->gen;
  if (c != CLS_NONE) return c;
  GROW(st, st->cls, st->capcls, (uint64_t)st->ncls + 1);
  GROW(st, st->kid, st->capkid, (uint64_t)st->nkid + e->nops);
  if (st->oom) return CLS_NONE;
  uint32_t size = 1;
  for (uint32_t i = 0; i < e->nops; i++)
    size += kids[i] == CLS_NULL ? 0 : st->cls[kids[i]].size;
  c = st->ncls++;
  st->cls[c] = (cse_class){.hash = h,
                           .payload = s.payload,
                           .dtype = e->dtype,
                           .kind = e->kind,
                           .python_bool = s.python_bool,
                           .hoistable = (uint8_t)tx_cse_hoist_shape(e),
                           .nops = e->nops,
                           .kids = st->nkid,
                           .size = size,
                           .head = NONE,
                           .tail = NONE,
                           .first_item = item,
                           .current = c,
                           .pick = NONE,
                           .first = NONE};
  if (e->nops) memcpy(st->kid + st->nkid, kids, e->nops * sizeof *kids);
  st->nkid += e->nops;
  return table_put(st, h, c) ? c : CLS_NONE;
}

/* The class of a variable leaf, or CLS_NONE when the scan met none. */
static uint32_t leaf_class(cse_state *st, const tx_expr *var) {
  if (!var || var->kind != EXPR_VAR || var->nops) return CLS_NONE;
  cse_sig s = sig_of(var, NULL);
  return table_find(st, &s, sig_hash(&s), 0);
}

static uint32_t leaf_slot_wide(const tx_expr *e) {
  uint64_t h = (uint64_t)(uintptr_t)e * 0x9e3779b97f4a7c15ull;
  return (uint32_t)(h >> 32);
}

/* Make room for n more memo entries (kept at most half full). */
static void memo_reserve(cse_state *st, uint32_t n) {
  if (2 * ((uint64_t)st->mlen + n) <= st->mcap) return;
  uint64_t cap = st->mcap ? st->mcap : 256;
  while (cap < 2 * ((uint64_t)st->mlen + n))
    cap *= 2;
  if (cap > UINT32_MAX / 2) {
    st->oom = 1;
    return;
  }
  struct cse_memo *t = cse_realloc(st, NULL, (size_t)cap * sizeof *t);
  if (!t) return;
  memset(t, 0, (size_t)cap * sizeof *t);
  for (uint32_t i = 0; i < st->mcap; i++) {
    if (st->memo[i].gen != st->gen) continue;
    uint32_t j = leaf_slot_wide(st->memo[i].e) & (uint32_t)(cap - 1);
    while (t[j].gen == st->gen)
      j = (j + 1) & (uint32_t)(cap - 1);
    t[j] = st->memo[i];
  }
  cse_free(st, st->memo);
  st->memo = t;
  st->mcap = (uint32_t)cap;
}

static void memo_put(cse_state *st, const tx_expr *e, uint32_t c) {
  memo_reserve(st, 1);
  if (st->oom) return;
  uint32_t mask = st->mcap - 1, j = leaf_slot_wide(e) & mask;
  while (st->memo[j].gen == st->gen)
    j = (j + 1) & mask;
  st->memo[j] = (struct cse_memo){e, c, st->gen};
  st->mlen++;
}

/* The class of any expression, by lookup (CLS_NONE: impure, or no pure node
 * of the block's own expressions has its shape); memoized per phase. */
static uint32_t classify(cse_state *st, const tx_expr *e) {
  if (!e) return CLS_NULL;
  if (tx_cse_impure_node(e)) return CLS_NONE;
  if (!e->nops) { /* a leaf: one lookup (a variable's often cached) */
    uint32_t slot = leaf_slot(e);
    if (e->kind == EXPR_VAR && st->leaves[slot].var == e && st->leaves[slot].gen == st->gen)
      return st->leaves[slot].cls;
    cse_sig s = sig_of(e, NULL);
    return table_find(st, &s, sig_hash(&s), 0);
  }
  uint32_t mask = st->mcap - 1, j = st->mcap ? leaf_slot_wide(e) & mask : 0;
  for (; st->mcap && st->memo[j].gen == st->gen; j = (j + 1) & mask)
    if (st->memo[j].e == e) return st->memo[j].cls;
  st->probe->work++;
  uint32_t c = CLS_FIRST;
  uint32_t base = st->nstack;
  for (uint32_t i = 0; i < e->nops && c != CLS_NONE; i++) {
    uint32_t k = classify(st, e->ops[i]);
    GROW(st, st->stack, st->capstack, (uint64_t)st->nstack + 1);
    if (st->oom) return CLS_NONE;
    st->stack[st->nstack++] = k;
    if (k == CLS_NONE) c = CLS_NONE;
  }
  if (c != CLS_NONE) {
    cse_sig s = sig_of(e, st->stack + base);
    c = table_find(st, &s, sig_hash(&s), 0);
  }
  st->nstack = base;
  memo_put(st, e, c);
  return c;
}

/* ---- the scan ---------------------------------------------------------------------- */

static uint32_t add_node(cse_state *st, const tx_expr *e, uint32_t c, uint32_t item,
                         uint32_t nsub) {
  GROW(st, st->nodes, st->capnodes, (uint64_t)st->nnodes + 1);
  if (st->oom) return NONE;
  uint32_t n = st->nnodes++;
  st->nodes[n] = (cse_node){.e = e,
                            .cls = c,
                            .parent = NONE,
                            .nsub = nsub,
                            .next = NONE,
                            .item = item,
                            .host = NONE,
                            .moved = NONE};
  cse_class *k = &st->cls[c];
  if (k->tail == NONE)
    k->head = n;
  else
    st->nodes[k->tail].next = n;
  k->tail = n;
  k->alive++;
  return n;
}

static uint32_t scan_expr(cse_state *st, const tx_expr *e, uint32_t item, uint32_t *cls);

static void scan_layout(cse_state *st, const tx_layout *l, uint32_t item) {
  uint32_t c;
  for (; l; l = l->tile) {
    const tx_layout_iter *lists[] = {l->shard, l->replica, l->offset};
    const uint32_t counts[] = {l->nshard, l->nreplica, l->noffset};
    for (int k = 0; k < 3; k++)
      for (uint32_t i = 0; lists[k] && i < counts[k]; i++) {
        scan_expr(st, lists[k][i].extent, item, &c);
        scan_expr(st, lists[k][i].stride, item, &c);
      }
  }
}

/* Searchable calls: positional arguments are own expressions, keywords are
 * only rewritten. */
static void scan_call(cse_state *st, const tx_expr *e, uint32_t item) {
  if (!tx_cse_searchable_call(e)) return;
  uint32_t c;
  for (uint32_t i = 0; i < e->u.call.kw.npos && i < e->nops; i++)
    scan_expr(st, e->ops[i], item, &c);
  if (e->nops > e->u.call.kw.npos) st->has_hidden = 1;
}

/* Scans e, recording its pure nodes (operands first). Returns e's node when
 * e is pure, else NONE; *cls gets its class (CLS_NULL for a missing operand,
 * CLS_NONE when impure). */
static uint32_t scan_expr(cse_state *st, const tx_expr *e, uint32_t item, uint32_t *cls) {
  *cls = e ? CLS_NONE : CLS_NULL;
  if (!e || st->oom) return NONE;
  st->probe->work++;
  if (e->kind == EXPR_LET) return NONE;
  if (e->kind == EXPR_CALL) {
    scan_call(st, e, item);
    return NONE;
  }
  uint32_t c, first = st->nnodes;
  if (tx_cse_impure_node(e)) { /* its operands' pure parts are roots */
    for (uint32_t i = 0; i < e->nops; i++)
      scan_expr(st, e->ops[i], item, &c);
    if (e->kind == EXPR_LAYOUT) scan_layout(st, e->u.layout, item);
    return NONE;
  }
  /* Pure kinds have at most 3 operands; more go on the stack. */
  uint32_t local_cls[4], local_node[4], base = st->nstack;
  uint32_t *kcls = local_cls, *knode = local_node;
  if (e->nops > 4) {
    GROW(st, st->stack, st->capstack, (uint64_t)base + e->nops);
    GROW(st, st->snode, st->capsnode, (uint64_t)base + e->nops);
    if (st->oom) return NONE;
    st->nstack += e->nops;
    kcls = st->stack + base;
    knode = st->snode + base;
  }
  int pure = 1;
  for (uint32_t i = 0; i < e->nops; i++) {
    knode[i] = scan_expr(st, e->ops[i], item, &kcls[i]);
    pure &= kcls[i] != CLS_NONE;
  }
  uint32_t n = NONE;
  if (pure && !st->oom && (c = intern(st, e, kcls, item)) != CLS_NONE &&
      (n = add_node(st, e, c, item, st->nnodes - first)) != NONE) {
    for (uint32_t i = 0; i < e->nops; i++)
      if (knode[i] != NONE) st->nodes[knode[i]].parent = n;
    *cls = c;
  }
  st->nstack = base;
  return n;
}

/* ---- a quick look first --------------------------------------------------------------- */

/* The structural hash of e (as sig_hash would give with operand hashes for
 * classes): equal trees hash equal. Every hoistable pure node's hash goes
 * into the table; meeting one twice sets *repeat and ends the walk. */
static uint64_t quick_hash(cse_state *st, const tx_expr *e, int *pure, int *repeat) {
  *pure = 1;
  if (!e) return CLS_NULL;
  *pure = 0;
  if (*repeat || st->oom || e->kind == EXPR_LET) return 0;
  st->probe->work++;
  int p;
  if (e->kind == EXPR_CALL) {
    for (uint32_t i = 0; tx_cse_searchable_call(e) && i < e->u.call.kw.npos && i < e->nops; i++)
      quick_hash(st, e->ops[i], &p, repeat);
    return 0;
  }
  tx_dtype t = e->dtype;
  uint64_t h = (uint64_t)e->kind | (uint64_t)t.code << 8 | (uint64_t)t.bits << 16 |
               (uint64_t)t.lanes << 32 | (uint64_t)e->nops << 48;
  h = tx_hash_mix(h, sig_of(e, NULL).payload ^ (e->kind == EXPR_INT ? e->python_bool : 0));
  int all = !tx_cse_impure_node(e);
  for (uint32_t i = 0; i < e->nops; i++) {
    h = tx_hash_mix(h, quick_hash(st, e->ops[i], &p, repeat));
    all &= p;
  }
  if (e->kind == EXPR_LAYOUT) {
    for (const tx_layout *l = e->u.layout; l; l = l->tile) {
      const tx_layout_iter *lists[] = {l->shard, l->replica, l->offset};
      const uint32_t counts[] = {l->nshard, l->nreplica, l->noffset};
      for (int k = 0; k < 3; k++)
        for (uint32_t i = 0; lists[k] && i < counts[k]; i++) {
          quick_hash(st, lists[k][i].extent, &p, repeat);
          quick_hash(st, lists[k][i].stride, &p, repeat);
        }
    }
  }
  if (!all || *repeat) return 0;
  *pure = 1;
  if (!tx_cse_hoist_shape(e)) return h;
  uint32_t mask = st->tcap - 1;
  for (uint32_t j = (uint32_t)h & mask; st->tcap && st->table[j].gen == st->gen; j = (j + 1) & mask)
    if (st->table[j].hash == h) {
      *repeat = 1;
      return 0;
    }
  table_put(st, h, CLS_NONE);
  return h;
}

/* Might some hoistable expression of the block occur twice? (No when no
 * two hash alike; a yes may be a hash collision, which the scan sorts out.) */
static int may_repeat(cse_state *st) {
  int repeat = 0, pure;
  for (uint32_t i = 0; i < st->nitems && !repeat && !st->oom; i++) {
    const tx_stmt *s = st->items[i];
    for (uint32_t j = 0; j < s->nexprs && !repeat; j++)
      if (tx_cse_own_expr(s, j)) quick_hash(st, s->exprs[j], &pure, &repeat);
  }
  return repeat || st->oom;
}

/* The scope check's data: which statement binds each variable last, then
 * for every class the last binding of a variable it reads. */
static void note_bindings(cse_state *st) {
  for (uint32_t i = 0; i < st->nitems; i++) {
    const tx_stmt *s = st->items[i];
    if (s->kind != STMT_BIND && s->kind != STMT_SCOPE_ID) continue;
    for (uint32_t j = 0; j < s->nvars; j++) {
      uint32_t c = leaf_class(st, s->vars[j]);
      if (c != CLS_NONE) st->cls[c].bound_at = i + 1;
    }
  }
  /* Operands' classes are made before their users'. */
  for (uint32_t c = CLS_FIRST; c < st->ncls; c++)
    for (uint32_t i = 0; i < st->cls[c].nops; i++) {
      uint32_t k = st->kid[st->cls[c].kids + i];
      if (k >= CLS_FIRST && st->cls[k].bound_at > st->cls[c].bound_at)
        st->cls[c].bound_at = st->cls[k].bound_at;
    }
}

static void scan_block(cse_state *st) {
  for (uint32_t i = 0; i < st->nitems && !st->oom; i++) {
    const tx_stmt *s = st->items[i];
    if (s->nstmts) st->has_hidden = 1;
    uint32_t c;
    for (uint32_t j = 0; j < s->nexprs; j++)
      if (tx_cse_own_expr(s, j)) scan_expr(st, s->exprs[j], i, &c);
  }
  if (!st->oom) note_bindings(st);
}

/* ---- order ------------------------------------------------------------------------------ */

/* The binding whose value holds node n (a pick), or ROOT when n is still in
 * its statement. Asked only once every node larger than n has had its turn
 * (so the memo never goes stale). */
static uint32_t host_of(cse_state *st, uint32_t n) {
  uint32_t h = ROOT;
  for (uint32_t cur = n;; st->probe->work++) {
    uint32_t p = st->nodes[cur].parent;
    if (p == NONE) break;
    if (st->nodes[p].moved != NONE || st->nodes[p].host != NONE) {
      h = st->nodes[p].moved != NONE ? st->nodes[p].moved : st->nodes[p].host;
      break;
    }
    cur = p;
  }
  for (uint32_t cur = n;;) {
    st->nodes[cur].host = h;
    uint32_t p = st->nodes[cur].parent;
    if (p == NONE || st->nodes[p].moved != NONE || st->nodes[p].host != NONE) break;
    cur = p;
  }
  return h;
}

static uint32_t depth_of(const cse_state *st, uint32_t p) {
  return p == ROOT ? 0 : st->picks[p].depth;
}

/* The ancestor of binding p at depth d (<= p's), by jump pointers. */
static uint32_t ancestor(cse_state *st, uint32_t p, uint32_t d) {
  while (depth_of(st, p) > d) {
    st->probe->work++;
    uint32_t j = st->picks[p].jump;
    p = depth_of(st, j) >= d ? j : st->picks[p].parent;
  }
  return p;
}

/* Order of two different bindings before one statement (ROOT: the
 * statement itself): a binding comes before the one it was taken out of,
 * siblings in the order they were made. */
static int cmp_hosts(cse_state *st, uint32_t a, uint32_t b) {
  if (a == ROOT) return 1;
  if (b == ROOT) return -1;
  uint32_t da = depth_of(st, a), db = depth_of(st, b);
  if (da > db && (a = ancestor(st, a, db)) == b) return -1;
  if (db > da && (b = ancestor(st, b, da)) == a) return 1;
  while (st->picks[a].parent != st->picks[b].parent) {
    st->probe->work++;
    uint32_t ja = st->picks[a].jump, jb = st->picks[b].jump;
    a = ja != jb ? ja : st->picks[a].parent;
    b = ja != jb ? jb : st->picks[b].parent;
  }
  return a < b ? -1 : 1;
}

/* Block order of two nodes of the same size (so neither is inside the
 * other: within one statement or binding, post-order is source order). */
static int cmp_nodes(cse_state *st, uint32_t a, uint32_t b) {
  st->probe->work++;
  const cse_node *x = &st->nodes[a], *y = &st->nodes[b];
  if (x->item != y->item) return x->item < y->item ? -1 : 1;
  uint32_t ha = host_of(st, a), hb = host_of(st, b);
  if (ha == hb) return a < b ? -1 : a > b;
  return cmp_hosts(st, ha, hb);
}

/* Does the binding or statement (item, host) come before (pos_item, pos_host)? */
static int before_pos(cse_state *st, uint32_t item, uint32_t host) {
  if (item != st->pos_item) return item < st->pos_item;
  return host != st->pos_host && cmp_hosts(st, host, st->pos_host) < 0;
}

/* Sort classes a[0..n) by their first nodes: a merge sort, linear on input
 * already in order (the usual case: classes are made in source order). */
static void sort_by_first(cse_state *st, uint32_t *a, uint32_t n) {
  GROW(st, st->tmp, st->captmp, n);
  if (st->oom) return;
  for (uint32_t w = 1; w < n; w *= 2)
    for (uint32_t lo = 0; lo + w < n; lo += 2 * w) {
      uint32_t mid = lo + w, hi = mid + w < n ? mid + w : n;
      if (cmp_nodes(st, st->cls[a[mid - 1]].first, st->cls[a[mid]].first) < 0) continue;
      uint32_t i = lo, j = mid, k = 0;
      while (i < mid || j < hi)
        st->tmp[k++] =
            j >= hi || (i < mid && cmp_nodes(st, st->cls[a[i]].first, st->cls[a[j]].first) < 0)
                ? a[i++]
                : a[j++];
      memcpy(a + lo, st->tmp, k * sizeof *a);
    }
}

/* ---- binding one class ------------------------------------------------------------- */

static const char *fresh_name(cse_state *st) {
  char buf[32];
  for (;;) {
    snprintf(buf, sizeof buf, "cse_v%d", ++st->next);
    const char *name = tx_intern(st->ir->strings, buf);
    if (!name) return NULL;
    if (!tx_lc_names_has(&st->names, name)) return tx_lc_fresh_name(&st->names, st->ir, buf);
  }
}

/* Is `x = e` (statement s, e the node's expression) a binding to reuse? */
static int reusable(const tx_stmt *s, const tx_expr *e) {
  return s->kind == STMT_BIND && (s->flag == BIND_PLAIN || s->flag == BIND_LET) && s->nvars == 1 &&
         s->exprs[0] == e && tx_dtype_eq(s->vars[0]->dtype, e->dtype);
}

/* Node n's binding becomes the last one made right before `host`. */
static void place_binding(cse_state *st, uint32_t p, uint32_t host) {
  cse_pick *k = &st->picks[p];
  k->parent = host;
  k->depth = depth_of(st, host) + 1;
  k->jump = host;
  if (host != ROOT) {
    uint32_t j = st->picks[host].jump;
    if (j != ROOT &&
        depth_of(st, host) - depth_of(st, j) == depth_of(st, j) - depth_of(st, st->picks[j].jump))
      k->jump = st->picks[j].jump;
  }
  uint32_t *last = host == ROOT ? &st->root_last[k->item] : &st->picks[host].last_child;
  uint32_t *first = host == ROOT ? &st->root_child[k->item] : &st->picks[host].child;
  if (*last == NONE)
    *first = p;
  else
    st->picks[*last].sibling = p;
  *last = p;
}

/* Rewriting class c's nodes to the variable of a reused binding gives the
 * classes of their parents new operands: if one of them now equals another
 * class that still has nodes, the scan no longer describes the block. */
static void rehash_parents(cse_state *st, uint32_t c, uint32_t keep) {
  for (uint32_t m = st->cls[c].head; m != NONE; m = st->nodes[m].next) {
    uint32_t q = st->nodes[m].parent;
    if (m == keep || q == NONE || st->nodes[q].dead) continue;
    const cse_class *k = &st->cls[st->nodes[q].cls];
    uint32_t base = st->nstack;
    GROW(st, st->stack, st->capstack, (uint64_t)base + k->nops);
    if (st->oom) return;
    for (uint32_t i = 0; i < k->nops; i++)
      st->stack[base + i] = current(st, st->kid[k->kids + i]);
    cse_sig s = {.kind = k->kind,
                 .python_bool = k->python_bool,
                 .dtype = k->dtype,
                 .payload = k->payload,
                 .nops = k->nops,
                 .kids = st->stack + base};
    uint64_t h = sig_hash(&s);
    uint32_t f = table_find(st, &s, h, 1);
    if (f == CLS_NONE)
      table_put(st, h, st->nodes[q].cls);
    else if (f != st->nodes[q].cls) {
      if (st->may_rescan)
        st->restart = 1;
      else
        st->probe->refused++;
    }
  }
}

static void hidden_scan(cse_state *st);

/* Bind class c: its first remaining node moves into a new binding (or is
 * the value of a binding to reuse); its other nodes, and everything counted
 * inside them, are removed. */
static void bind_class(cse_state *st, uint32_t c) {
  GROW(st, st->picks, st->cappicks, (uint64_t)st->npicks + 1);
  if (st->oom) return;
  uint32_t o = st->cls[c].first, item = st->nodes[o].item, p = st->npicks;
  const tx_expr *e = st->nodes[o].e;
  cse_pick *k = &st->picks[p];
  *k = (cse_pick){
      .cls = c, .node = o, .item = item, .child = NONE, .last_child = NONE, .sibling = NONE};
  if (st->nodes[o].parent == NONE && reusable(st->items[item], e)) {
    k->reuse = 1;
    k->var = st->items[item]->vars[0];
  } else {
    const char *name = fresh_name(st);
    k->var = name ? tx_var(st->ir, name, e->dtype, VAR_PLAIN, e->span) : NULL;
    if (!k->var) {
      st->oom = 1;
      return;
    }
    place_binding(st, p, host_of(st, o));
    st->nodes[o].moved = p;
  }
  st->npicks++;
  st->cls[c].pick = p;
  st->probe->hoisted++;
  for (uint32_t m = st->cls[c].head; m != NONE; m = st->nodes[m].next) {
    if (m == o || st->nodes[m].dead) continue;
    for (uint32_t d = m - st->nodes[m].nsub; d <= m; d++, st->probe->work++)
      if (!st->nodes[d].dead) {
        st->nodes[d].dead = 1;
        st->cls[st->nodes[d].cls].alive--;
      }
  }
  if (!k->reuse) return;
  uint32_t x = leaf_class(st, k->var);
  st->cls[c].current = x != CLS_NONE ? x : c;
  rehash_parents(st, c, o);
  /* e itself still spelled in nested statements after the binding: the
   * rewrite there makes them read x, which a later class may contain. */
  if (st->has_hidden && !st->hidden_done) hidden_scan(st);
  if (st->cls[c].hidden_at > item + 1 && !tx_ptrset_add(&st->risky, k->var)) st->oom = 1;
}

/* Would binding c meet, in nested statements, expressions that only the
 * rewrite to a reused variable makes equal to it? */
static int reads_risky(cse_state *st, uint32_t c) {
  if (!st->risky.len) return 0;
  uint32_t h = st->cls[c].head;
  for (uint32_t d = h - st->nodes[h].nsub; d <= h; d++, st->probe->work++)
    if (st->nodes[d].e->kind == EXPR_VAR && tx_ptrmap_has(&st->risky, st->nodes[d].e)) return 1;
  return 0;
}

/* The classes of one size (list[0..n)): each still counted twice is bound,
 * in the order of its first remaining node. */
static void bind_size(cse_state *st, uint32_t *list, uint32_t n) {
  uint32_t kept = 0;
  for (uint32_t i = 0; i < n; i++) {
    cse_class *k = &st->cls[list[i]];
    if (k->alive < 2) continue;
    for (uint32_t m = k->head; m != NONE; m = st->nodes[m].next)
      if (!st->nodes[m].dead && (k->first == NONE || cmp_nodes(st, m, k->first) < 0)) k->first = m;
    list[kept++] = list[i];
  }
  sort_by_first(st, list, kept);
  for (uint32_t i = 0; i < kept && !st->oom && !st->restart; i++) {
    if (reads_risky(st, list[i])) {
      if (st->may_rescan) {
        st->restart = 1;
        return;
      }
      st->probe->refused++;
    }
    bind_class(st, list[i]);
  }
}

/* Counting sort of the classes to bind by size, largest first, then size by
 * size. */
static void bind_all(cse_state *st) {
  uint32_t n = 0, maxsize = 0;
  for (uint32_t c = CLS_FIRST; c < st->ncls; c++) {
    const cse_class *k = &st->cls[c];
    if (k->hoistable && k->alive >= 2 && k->bound_at <= k->first_item) {
      n++;
      maxsize = k->size > maxsize ? k->size : maxsize;
    }
  }
  if (!n) return;
  GROW(st, st->list, st->caplist, (uint64_t)n + maxsize + 2);
  GROW(st, st->root_child, st->caproot, st->nitems);
  GROW(st, st->root_last, st->caproot_last, st->nitems);
  if (st->oom) return;
  for (uint32_t i = 0; i < st->nitems; i++)
    st->root_child[i] = st->root_last[i] = NONE;
  uint32_t *start = st->list + n; /* start[s]: where size maxsize - s begins */
  memset(start, 0, ((size_t)maxsize + 2) * sizeof *start);
  for (uint32_t c = CLS_FIRST; c < st->ncls; c++) {
    const cse_class *k = &st->cls[c];
    if (k->hoistable && k->alive >= 2 && k->bound_at <= k->first_item)
      start[maxsize - k->size + 1]++;
  }
  for (uint32_t s = 1; s <= maxsize + 1; s++)
    start[s] += start[s - 1];
  GROW(st, st->tmp, st->captmp, n);
  if (st->oom) return;
  uint32_t *sorted = st->tmp;
  for (uint32_t c = CLS_FIRST; c < st->ncls; c++) {
    const cse_class *k = &st->cls[c];
    if (k->hoistable && k->alive >= 2 && k->bound_at <= k->first_item)
      sorted[start[maxsize - k->size]++] = c;
  }
  memcpy(st->list, sorted, n * sizeof *sorted);
  for (uint32_t i = 0; i < n && !st->oom && !st->restart;) {
    uint32_t j = i;
    while (j < n && st->cls[st->list[j]].size == st->cls[st->list[i]].size)
      j++;
    bind_size(st, st->list + i, j - i);
    i = j;
  }
}

/* ---- nested statements and keywords ---------------------------------------------------- */

static void hidden_expr(cse_state *st, const tx_expr *e, uint32_t item);

static void hidden_layout(cse_state *st, const tx_layout *l, uint32_t item,
                          void (*walk)(cse_state *, const tx_expr *, uint32_t)) {
  for (; l; l = l->tile) {
    const tx_layout_iter *lists[] = {l->shard, l->replica, l->offset};
    const uint32_t counts[] = {l->nshard, l->nreplica, l->noffset};
    for (int k = 0; k < 3; k++)
      for (uint32_t i = 0; lists[k] && i < counts[k]; i++) {
        walk(st, lists[k][i].extent, item);
        walk(st, lists[k][i].stride, item);
      }
  }
}

/* Every node a rewrite of statement `item` visits outside its own
 * expressions' scanned part: note the last statement each class is met in. */
static void hidden_expr(cse_state *st, const tx_expr *e, uint32_t item) {
  if (!e || opaque(e) || st->oom) return;
  st->probe->work++;
  uint32_t c = classify(st, e);
  if (c >= CLS_FIRST) st->cls[c].hidden_at = item + 1;
  for (uint32_t i = 0; i < e->nops; i++)
    hidden_expr(st, e->ops[i], item);
  if (e->kind == EXPR_LAYOUT) hidden_layout(st, e->u.layout, item, hidden_expr);
}

/* An own expression: only call keywords are outside the scan. */
static void hidden_own(cse_state *st, const tx_expr *e, uint32_t item) {
  if (!e || opaque(e) || st->oom) return;
  int call = e->kind == EXPR_CALL;
  for (uint32_t i = 0; i < e->nops; i++)
    (call && i >= e->u.call.kw.npos ? hidden_expr : hidden_own)(st, e->ops[i], item);
  if (e->kind == EXPR_LAYOUT) hidden_layout(st, e->u.layout, item, hidden_own);
}

static void hidden_stmt(cse_state *st, const tx_stmt *s, uint32_t item) {
  for (uint32_t j = 0; j < s->nexprs; j++)
    if (tx_cse_own_expr(s, j)) hidden_expr(st, s->exprs[j], item);
  for (uint32_t j = 0; j < s->nstmts; j++)
    if (s->stmts[j]) hidden_stmt(st, s->stmts[j], item);
}

static void hidden_scan(cse_state *st) {
  st->hidden_done = 1;
  for (uint32_t i = 0; i < st->nitems; i++) {
    const tx_stmt *s = st->items[i];
    for (uint32_t j = 0; j < s->nexprs; j++)
      if (tx_cse_own_expr(s, j)) hidden_own(st, s->exprs[j], i);
    for (uint32_t j = 0; j < s->nstmts; j++)
      if (s->stmts[j]) hidden_stmt(st, s->stmts[j], i);
  }
}

/* ---- the rewrite ------------------------------------------------------------------------ */

/* A node whose class is bound before the statement being rewritten reads
 * the class's variable. */
static const tx_expr *subst_expr(tx_mutator *m, const tx_expr *e) {
  cse_state *st = m->user;
  st->probe->work++;
  if (opaque(e)) return e;
  if (!tx_cse_hoist_shape(e)) return NULL; /* never a bound class */
  uint32_t c = classify(st, e);
  if (st->oom) return m->failed = 1, e;
  if (c < CLS_FIRST || st->cls[c].pick == NONE) return NULL;
  uint32_t p = st->cls[c].pick;
  cse_pick *k = &st->picks[p];
  if (!before_pos(st, k->item, k->reuse ? ROOT : p)) return NULL;
  k->replaced++;
  return k->var;
}

/* A statement like s with other expressions and statements. */
static const tx_stmt *stmt_like(tx_mutator *m, const tx_stmt *s, const tx_expr *const *exprs,
                                const tx_stmt *const *stmts) {
  const tx_stmt *r = tx_stmt_with(m->ir, s, exprs, stmts, NULL, NULL);
  return r ? r : (m->failed = 1, s);
}

/* A heap copy of n pointers, for a statement about to change. */
static void *copy_ptrs(tx_mutator *m, const void *src, uint32_t n) {
  void *p = cse_realloc(m->user, NULL, (size_t)n * sizeof(void *));
  if (!p) return m->failed = 1, NULL;
  return memcpy(p, src, (size_t)n * sizeof(void *));
}

/* Mutate only the expressions a statement computes itself (tx_cse_own_expr), and
 * its child statements. The operand arrays are copied at the first change
 * and freed on every path. */
static const tx_stmt *subst_stmt(tx_mutator *m, const tx_stmt *s) {
  const tx_expr **exprs = NULL;
  const tx_stmt **stmts = NULL;
  for (uint32_t j = 0; j < s->nexprs && !m->failed; j++) {
    const tx_expr *r = tx_cse_own_expr(s, j) ? tx_mutate_expr(m, s->exprs[j]) : s->exprs[j];
    if (r != s->exprs[j] && !m->failed && (exprs || (exprs = copy_ptrs(m, s->exprs, s->nexprs))))
      exprs[j] = r;
  }
  for (uint32_t j = 0; j < s->nstmts && !m->failed; j++) {
    const tx_stmt *r = tx_mutate_stmt(m, s->stmts[j]);
    if (r != s->stmts[j] && !m->failed && (stmts || (stmts = copy_ptrs(m, s->stmts, s->nstmts))))
      stmts[j] = r;
  }
  const tx_stmt *r = s;
  if (!m->failed && (exprs || stmts))
    r = stmt_like(m, s, exprs ? exprs : s->exprs, stmts ? stmts : s->stmts);
  cse_free(m->user, exprs);
  cse_free(m->user, stmts);
  return r;
}

static int iv_push(cse_state *st, item_vec *v, const tx_stmt *s) {
  GROW(st, v->items, v->cap, (uint64_t)v->n + 1);
  if (st->oom) return 0;
  v->items[v->n++] = s;
  return 1;
}

/* Emit binding p, after the bindings taken out of its value. */
static void emit_binding(cse_state *st, tx_mutator *m, item_vec *out, uint32_t p) {
  for (uint32_t c = st->picks[p].child; c != NONE && !m->failed; c = st->picks[c].sibling)
    emit_binding(st, m, out, c);
  if (m->failed) return;
  const cse_pick *k = &st->picks[p];
  st->pos_item = k->item;
  st->pos_host = p;
  const tx_expr *value = tx_mutate_expr(m, st->nodes[k->node].e);
  const tx_stmt *first = st->items[k->item];
  const tx_stmt *b = m->failed ? NULL : tx_bind(st->ir, k->var, value, BIND_PLAIN, first->span);
  if (!b) {
    m->failed = 1;
    return;
  }
  iv_push(st, out, b);
}

/* The block with every binding in place and every statement rewritten. */
static void rewrite_block(cse_state *st, item_vec *out) {
  memo_reserve(st, st->nnodes + 64); /* about one entry per scanned node */
  tx_mutator m = {.ir = st->ir, .user = st, .expr = subst_expr, .stmt = subst_stmt};
  uint32_t from = st->nitems; /* no statement before this one reads a variable */
  for (uint32_t p = 0; p < st->npicks; p++) {
    uint32_t f = st->picks[p].item + st->picks[p].reuse;
    from = f < from ? f : from;
  }
  for (uint32_t i = 0; i < st->nitems && !m.failed && !st->oom; i++) {
    for (uint32_t c = st->root_child[i]; c != NONE && !m.failed; c = st->picks[c].sibling)
      emit_binding(st, &m, out, c);
    const tx_stmt *s = st->items[i];
    st->pos_item = i;
    st->pos_host = ROOT;
    if (i >= from && !m.failed) s = tx_mutate_stmt(&m, s);
    if (!m.failed) iv_push(st, out, s);
  }
  if (m.failed) st->oom = 1;
  for (uint32_t p = 0; p < st->npicks && !st->oom && !st->internal; p++)
    if (!st->picks[p].replaced) {
      /* The scan counted two occurrences in those statements: a bug. */
      tx_internal_error(st->pc->diags, PASS, "no occurrence of a repeated expression was replaced");
      st->internal = 1;
    }
}

/* ---- one block ------------------------------------------------------------------------ */

static void phase_begin(cse_state *st, const item_vec *v) {
  st->items = v->items;
  st->nitems = v->n;
  st->nnodes = st->npicks = st->nstack = st->nkid = st->tlen = st->mlen = 0;
  st->ncls = CLS_FIRST;
  if (++st->gen == 0) { /* wrapped: clear the stale slots */
    if (st->table) memset(st->table, 0, (size_t)st->tcap * sizeof *st->table);
    if (st->memo) memset(st->memo, 0, (size_t)st->mcap * sizeof *st->memo);
    st->gen = 1;
  }
  st->has_hidden = st->hidden_done = st->restart = 0;
  GROW(st, st->cls, st->capcls, CLS_FIRST);
}

static void phase_end(cse_state *st) {
  tx_ptrmap_free(&st->risky);
}

/* CSE over a block: v holds its statements and is rewritten in place.
 * Returns 1 when something changed. A phase that asks for a rescan may do
 * so while the rescans so far cost less than the budget (so they cost at
 * most the budget plus one phase). */
static int cse_block(cse_state *st, item_vec *v) {
  int changed = 0;
  uint64_t start = st->probe->work, rescans_from = 0, budget = 0;
  for (int phase = 0; !st->oom && !st->internal; phase++) {
    st->may_rescan = phase == 0 || st->probe->work - rescans_from < budget;
    phase_begin(st, v);
    if (phase == 0 && !st->oom && !may_repeat(st)) break;
    if (phase == 0) phase_begin(st, v); /* forget the quick look's hashes */
    if (!st->oom) scan_block(st);
    if (phase == 0) budget = (uint64_t)RESCAN_FACTOR * (st->probe->work - start) + RESCAN_SLACK;
    if (!st->oom) bind_all(st);
    item_vec out = {0};
    if (st->npicks && !st->oom) rewrite_block(st, &out);
    if (st->npicks && !st->oom && !st->internal) {
      cse_free(st, (void *)v->items);
      *v = out;
      out = (item_vec){0};
      changed = 1;
    }
    cse_free(st, (void *)out.items);
    phase_end(st);
    if (phase == 0) rescans_from = st->probe->work;
    if (!st->restart) break;
    st->probe->rescans++;
  }
  return changed;
}

/* ---- the pass's mutator ------------------------------------------------------------ */

static const tx_stmt *as_block(tx_mutator *m, const tx_stmt *s, tirx_span span);

static const tx_stmt *cse_stmt(tx_mutator *m, const tx_stmt *s) {
  cse_state *st = m->user;
  if (st->oom || st->internal) return s;
  if (s->kind == STMT_SEQ) {
    item_vec v = {0};
    int changed = 0;
    for (uint32_t i = 0; i < s->nstmts && !m->failed; i++) {
      const tx_stmt *r = tx_mutate_stmt(m, s->stmts[i]);
      changed |= r != s->stmts[i];
      if (!iv_push(st, &v, r)) m->failed = 1;
    }
    if (!m->failed) changed |= cse_block(st, &v);
    const tx_stmt *r = s;
    if (!m->failed && !st->oom && changed) {
      const tx_stmt *seq = tx_stmt_new(m->ir, STMT_SEQ, NULL, 0, v.items, v.n, s->span);
      if (!seq) m->failed = 1;
      r = seq ? seq : s;
    }
    cse_free(st, (void *)v.items);
    if (st->oom) m->failed = 1;
    return r;
  }
  if (!s->nstmts) return NULL;
  /* A compound statement: its non-sequence bodies are one-statement blocks. */
  const tx_stmt *c = tx_mutate_stmt_children(m, s);
  const tx_stmt **stmts = m->failed ? NULL : cse_realloc(st, NULL, c->nstmts * sizeof *stmts);
  if (!stmts) return m->failed = 1, s;
  int changed = 0;
  for (uint32_t i = 0; i < c->nstmts && !m->failed; i++) {
    stmts[i] = c->stmts[i]->kind == STMT_SEQ ? c->stmts[i] : as_block(m, c->stmts[i], c->span);
    changed |= stmts[i] != c->stmts[i];
  }
  const tx_stmt *r = c;
  if (changed && !m->failed) r = stmt_like(m, c, c->exprs, stmts);
  cse_free(st, stmts);
  return r;
}

/* A single statement as a block: a sequence when bindings were hoisted. */
static const tx_stmt *as_block(tx_mutator *m, const tx_stmt *s, tirx_span span) {
  cse_state *st = m->user;
  item_vec v = {0};
  if (!iv_push(st, &v, s)) return m->failed = 1, s;
  const tx_stmt *r = s;
  if (cse_block(st, &v) && !st->oom) {
    const tx_stmt *seq = tx_stmt_new(m->ir, STMT_SEQ, NULL, 0, v.items, v.n, span);
    if (!seq) m->failed = 1;
    r = seq ? seq : s;
  }
  if (st->oom) m->failed = 1;
  cse_free(st, (void *)v.items);
  return r;
}

static void state_free(cse_state *st) {
  cse_free(st, st->nodes);
  cse_free(st, st->cls);
  cse_free(st, st->kid);
  cse_free(st, st->table);
  cse_free(st, st->memo);
  cse_free(st, st->picks);
  cse_free(st, st->stack);
  cse_free(st, st->snode);
  cse_free(st, st->list);
  cse_free(st, st->tmp);
  cse_free(st, st->root_child);
  cse_free(st, st->root_last);
  phase_end(st);
  tx_lc_names_free(&st->names);
}

tirx_status tx_cse_run(tx_pass_ctx *pc, const tx_module *in, const tx_module **out,
                       tx_cse_probe *probe) {
  tx_cse_probe unused = {0};
  *out = in;
  if (!pc->target || pc->target->opt_level < 2) return TIRX_OK;
  cse_state st = {.pc = pc, .ir = pc->ir, .probe = probe ? probe : &unused};
  const tx_func **funcs = in->nfuncs ? cse_realloc(&st, NULL, in->nfuncs * sizeof *funcs) : NULL;
  if (in->nfuncs && !funcs) return TIRX_ERR_NOMEM;
  int changed = 0;
  for (uint32_t i = 0; i < in->nfuncs && !st.oom && !st.internal; i++) {
    const tx_func *f = in->funcs[i];
    tx_lc_names_collect(&st.names, pc, f);
    st.next = 0;
    tx_mutator m = {.ir = pc->ir, .user = &st, .stmt = cse_stmt};
    funcs[i] = tx_mutate_func(&m, f);
    if (!m.failed && funcs[i]->body && funcs[i]->body->kind != STMT_SEQ) {
      const tx_stmt *b = as_block(&m, funcs[i]->body, funcs[i]->body->span);
      if (b != funcs[i]->body && !m.failed) {
        const tx_func *c = tx_func_with_body(pc->ir, funcs[i], b);
        if (!c)
          m.failed = 1;
        else
          funcs[i] = c;
      }
    }
    if (m.failed || st.names.failed) st.oom = 1;
    if (!st.oom && !st.internal) tx_lc_names_keep(&st.names, pc, funcs[i]);
    changed |= funcs[i] != f;
  }
  tirx_status status = st.internal ? TIRX_ERR_INTERNAL : st.oom ? TIRX_ERR_NOMEM : TIRX_OK;
  if (status == TIRX_OK && changed) status = tx_lc_replace_funcs(pc->ir, in, funcs, out);
  cse_free(&st, funcs);
  state_free(&st);
  return status;
}

tirx_status tx_pass_cse(tx_pass_ctx *pc, const tx_module *in, const tx_module **out) {
  return tx_cse_run(pc, in, out, NULL);
}
