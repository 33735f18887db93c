/*
 * parse.c - the driver of the Python-subset parser and the helpers its
 * grammar actions and lexer share: node and list construction, nesting
 * depth, literal decoding (integers, floats, string escapes) and the checks
 * Python makes after parsing (assignment targets, parameter order).
 *
 * Must not: print, exit, keep global state, or hand a NULL node to the
 * grammar (allocation failure yields ps->dummy and TIRX_ERR_NOMEM). The
 * generated lexer/parser are driven only through parse_internal.h.
 */
#define _GNU_SOURCE /* strtod_l, newlocale: float syntax must not follow LC_NUMERIC */
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/parse_internal.h"
#include "support/mem.h"

const char *tx_ast_kind_name(tx_ast_kind kind) {
  switch (kind) {
#define X(k, name)                                                                                 \
  case k:                                                                                          \
    return name;
#include "frontend/ast_kinds.def"
#undef X
  }
  return "?";
}

/* ---- locations and diagnostics ---- */

tirx_span tx_p_span(const tx_pstate *ps, tx_loc loc) {
  return (tirx_span){ps->file, loc.line, loc.col, loc.end_line, loc.end_col};
}

tx_loc tx_p_loc(const tx_ast *node) {
  return (tx_loc){node->span.line, node->span.col, node->span.end_line, node->span.end_col};
}

void tx_p_error(tx_pstate *ps, tx_loc loc, const char *fmt, ...) {
  if (ps->quiet) {
    /* The fast parse gives up at the first error; the exact parse that
     * follows reports it (tx_parse_python). */
    ps->nerrors++;
    ps->stop = 1;
    return;
  }
  if (ps->stop) return;
  va_list ap;
  va_start(ap, fmt);
  tx_diag_vreport(ps->env->diags, TIRX_SEV_ERROR, tx_p_span(ps, loc), fmt, ap);
  va_end(ap);
  ps->nerrors++;
  if (tx_diag_saturated(ps->env->diags)) ps->stop = 1;
}

/* A nesting limit stops the parse; it is reported once, where it was first
 * crossed, however many enclosing nodes cross it too. */
static void limit_error(tx_pstate *ps, tx_loc loc, const char *fmt, int limit) {
  if (!ps->nesting_reported) {
    tx_p_error(ps, loc, fmt, limit);
    ps->nesting_reported = 1;
  }
  ps->nerrors++; /* counts even when reporting was muted */
  ps->stop = 1;
}

void tx_p_nesting_error(tx_pstate *ps, tx_loc loc) {
  limit_error(ps, loc, "nesting too deep (limit %d)", TX_MAX_NESTING);
}

void tx_p_depth_error(tx_pstate *ps, tx_loc loc) {
  limit_error(ps, loc,
              "too deeply nested (limit %d levels; each operator of a chain like "
              "a + b + c, and each elif, is one level)",
              TX_MAX_EXPR_DEPTH);
}

void tx_p_oom(tx_pstate *ps) {
  ps->nomem = 1;
  ps->stop = 1;
}

/* ---- nodes and lists ---- */

/* Scaffolding (list cells, parser stacks, the state) comes from the AST
 * arena's allocator. */
static const tirx_allocator *p_allocator(const tx_pstate *ps) {
  return tx_arena_allocator(ps->env->arena);
}

static void *p_alloc(tx_pstate *ps, size_t size) {
  void *p = tx_arena_alloc(ps->env->arena, size);
  if (!p) tx_p_oom(ps);
  return p;
}

tx_ast *tx_p_new(tx_pstate *ps, tx_ast_kind kind, tx_loc loc) {
  tx_pnode *pn = p_alloc(ps, sizeof *pn);
  if (!pn) {
    /* Keep the grammar actions NULL-free; the result is discarded anyway. */
    memset(&ps->dummy, 0, sizeof ps->dummy);
    pn = &ps->dummy;
  }
  pn->ast.kind = kind;
  pn->ast.span = tx_p_span(ps, loc);
  pn->ast.depth = 1;
  return &pn->ast;
}

tx_plist tx_pl_one(tx_pstate *ps, tx_ast *item) {
  tx_plist l = {0};
  tx_pl_push(ps, &l, item, 0);
  return l;
}

/* List cells are scaffolding: they come from malloc'ed blocks owned by the
 * parse (freed at its end, whatever error recovery dropped), and the cells
 * of a finished list are recycled, so a big file does not leave megabytes
 * of dead cells in the arena. */
enum { CELLS_PER_BLOCK = 1024 };
typedef struct tx_cell_block {
  struct tx_cell_block *next;
  tx_cell cells[CELLS_PER_BLOCK];
} tx_cell_block;

static tx_cell *cell_alloc(tx_pstate *ps) {
  tx_cell *c = ps->cell_free;
  if (c) {
    ps->cell_free = c->next;
    return c;
  }
  tx_cell_block *b = ps->cell_blocks;
  if (!b || ps->cell_used == CELLS_PER_BLOCK) {
    b = tx_mem_alloc(p_allocator(ps), sizeof *b);
    if (!b) {
      tx_p_oom(ps);
      return NULL;
    }
    b->next = ps->cell_blocks;
    ps->cell_blocks = b;
    ps->cell_used = 0;
  }
  return &b->cells[ps->cell_used++];
}

void tx_p_free_cells(tx_pstate *ps) {
  for (tx_cell_block *b = ps->cell_blocks, *next; b; b = next) {
    next = b->next;
    tx_mem_free(p_allocator(ps), b);
  }
  ps->cell_blocks = NULL;
  ps->cell_free = NULL;
}

void tx_pl_push(tx_pstate *ps, tx_plist *list, tx_ast *item, int tag) {
  if (ps->nomem) return; /* keeps the dummies (see tx_p_new) from growing lists */
  tx_cell *c = cell_alloc(ps);
  if (!c) return;
  c->next = NULL;
  c->item = item;
  c->tag = tag;
  if (list->tail)
    list->tail->next = c;
  else
    list->head = c;
  list->tail = c;
  list->len++;
}

tx_plist tx_pl_cat(tx_plist a, tx_plist b) {
  if (!a.head) return b;
  if (!b.head) return a;
  a.tail->next = b.head;
  a.tail = b.tail;
  a.len += b.len;
  return a;
}

tx_ast_list tx_pl_finish(tx_pstate *ps, tx_plist list) {
  tx_ast_list out = {0};
  if (list.len == 0) return out;
  tx_ast **items = p_alloc(ps, list.len * sizeof *items);
  if (!items) return out;
  size_t i = 0;
  for (tx_cell *c = list.head; c && i < list.len; c = c->next)
    items[i++] = c->item;
  out.items = items;
  out.len = i;
  /* The list is consumed: every list is finished at most once. */
  list.tail->next = ps->cell_free;
  ps->cell_free = list.head;
  return out;
}

tx_pargs *tx_p_args_new(tx_pstate *ps) {
  tx_pargs *a = p_alloc(ps, sizeof *a);
  return a ? a : &ps->dummy_args;
}

/* Python's ordering rules for call arguments. */
void tx_p_args_add(tx_pstate *ps, tx_pargs *args, tx_ast *arg) {
  if (ps->nomem) return;
  if (arg->kind == AST_KEYWORD) {
    args->saw_keyword = 1;
    if (!arg->u.keyword.arg) args->saw_kwunpack = 1;
    tx_pl_push(ps, &args->keywords, arg, 0);
    return;
  }
  if (arg->kind == AST_STARRED) {
    if (args->saw_kwunpack)
      tx_p_error(ps, tx_p_loc(arg),
                 "iterable argument unpacking follows keyword argument unpacking");
  } else if (args->saw_kwunpack) {
    tx_p_error(ps, tx_p_loc(arg), "positional argument follows keyword argument unpacking");
  } else if (args->saw_keyword) {
    tx_p_error(ps, tx_p_loc(arg), "positional argument follows keyword argument");
  }
  tx_pl_push(ps, &args->args, arg, 0);
}

static uint32_t depth_of(const tx_ast *n) {
  return n ? n->depth : 0;
}
static uint32_t max_u32(uint32_t a, uint32_t b) {
  return a > b ? a : b;
}
static uint32_t depth_of_list(tx_ast_list l) {
  uint32_t m = 0;
  for (size_t i = 0; i < l.len; i++)
    m = max_u32(m, depth_of(l.items[i]));
  return m;
}

/* Depth = 1 + the deepest child. Consumers of the AST and of the IR built
 * from it recurse over it, so this is what TX_MAX_EXPR_DEPTH protects: their
 * stack. Brackets and indentation are limited separately, by the lexer
 * (TX_MAX_NESTING). */
void tx_p_seal(tx_pstate *ps, tx_ast *n) {
  if (n == &ps->dummy.ast) return;
  const tx_ast *a = n;
  uint32_t m = 0;
  switch (a->kind) {
  case AST_NAME:
  case AST_INT:
  case AST_FLOAT:
  case AST_STR:
  case AST_NONE:
  case AST_TRUE:
  case AST_FALSE:
  case AST_ELLIPSIS:
  case AST_BREAK:
  case AST_CONTINUE:
  case AST_PASS:
  case AST_ALIAS:
  case AST_GLOBAL:
  case AST_IMPORT:
  case AST_IMPORTFROM:
    break;
  case AST_ATTR:
    m = depth_of(a->u.attr.value);
    break;
  case AST_CALL:
    m = max_u32(depth_of(a->u.call.func),
                max_u32(depth_of_list(a->u.call.args), depth_of_list(a->u.call.keywords)));
    break;
  case AST_KEYWORD:
    m = depth_of(a->u.keyword.value);
    break;
  case AST_STARRED:
    m = depth_of(a->u.starred.value);
    break;
  case AST_SUBSCRIPT:
    m = max_u32(depth_of(a->u.subscript.value), depth_of(a->u.subscript.index));
    break;
  case AST_SLICE:
    m = max_u32(depth_of(a->u.slice.lower),
                max_u32(depth_of(a->u.slice.upper), depth_of(a->u.slice.step)));
    break;
  case AST_TUPLE:
  case AST_LIST:
    m = depth_of_list(a->u.seq.elts);
    break;
  case AST_DICT:
    m = max_u32(depth_of_list(a->u.dict.keys), depth_of_list(a->u.dict.values));
    break;
  case AST_BINOP:
    m = max_u32(depth_of(a->u.binop.left), depth_of(a->u.binop.right));
    break;
  case AST_UNARYOP:
    m = depth_of(a->u.unop.operand);
    break;
  case AST_COMPARE:
    m = max_u32(depth_of(a->u.compare.left), depth_of_list(a->u.compare.comparators));
    break;
  case AST_BOOLOP:
    m = depth_of_list(a->u.boolop.values);
    break;
  case AST_IFEXP:
    m = max_u32(depth_of(a->u.ifexp.test),
                max_u32(depth_of(a->u.ifexp.body), depth_of(a->u.ifexp.orelse)));
    break;
  case AST_LAMBDA:
    m = max_u32(depth_of_list(a->u.lambda.params), depth_of(a->u.lambda.body));
    break;
  case AST_EXPR_STMT:
    m = depth_of(a->u.expr_stmt.value);
    break;
  case AST_ASSIGN:
    m = max_u32(depth_of_list(a->u.assign.targets), depth_of(a->u.assign.value));
    break;
  case AST_ANNASSIGN:
    m = max_u32(depth_of(a->u.annassign.target),
                max_u32(depth_of(a->u.annassign.annotation), depth_of(a->u.annassign.value)));
    break;
  case AST_AUGASSIGN:
    m = max_u32(depth_of(a->u.augassign.target), depth_of(a->u.augassign.value));
    break;
  case AST_FOR:
    m = max_u32(max_u32(depth_of(a->u.for_.target), depth_of(a->u.for_.iter)),
                max_u32(depth_of_list(a->u.for_.body), depth_of_list(a->u.for_.orelse)));
    break;
  case AST_WHILE:
    m = max_u32(depth_of(a->u.while_.test),
                max_u32(depth_of_list(a->u.while_.body), depth_of_list(a->u.while_.orelse)));
    break;
  case AST_IF:
    m = max_u32(depth_of(a->u.if_.test),
                max_u32(depth_of_list(a->u.if_.body), depth_of_list(a->u.if_.orelse)));
    break;
  case AST_WITH:
    m = max_u32(depth_of_list(a->u.with.items), depth_of_list(a->u.with.body));
    break;
  case AST_WITHITEM:
    m = max_u32(depth_of(a->u.withitem.context), depth_of(a->u.withitem.target));
    break;
  case AST_FUNCDEF:
    m = max_u32(max_u32(depth_of_list(a->u.funcdef.decorators), depth_of_list(a->u.funcdef.params)),
                max_u32(depth_of_list(a->u.funcdef.body), depth_of(a->u.funcdef.returns)));
    m = max_u32(m, depth_of_list(a->u.funcdef.type_params));
    break;
  case AST_PARAM:
    m = max_u32(depth_of(a->u.param.annotation), depth_of(a->u.param.default_value));
    break;
  case AST_CLASSDEF:
    m = max_u32(depth_of_list(a->u.classdef.decorators),
                max_u32(depth_of_list(a->u.classdef.bases), depth_of_list(a->u.classdef.body)));
    break;
  case AST_RETURN:
    m = depth_of(a->u.ret.value);
    break;
  case AST_ASSERT:
    m = max_u32(depth_of(a->u.assert_.test), depth_of(a->u.assert_.msg));
    break;
  case AST_DEL:
    m = depth_of_list(a->u.del.targets);
    break;
  }
  n->depth = m + 1;
  if (n->depth > TX_MAX_EXPR_DEPTH) tx_p_depth_error(ps, tx_p_loc(n));
}

tx_ast *tx_p_binop(tx_pstate *ps, tx_binop op, tx_ast *l, tx_ast *r, tx_loc loc) {
  tx_ast *n = tx_p_new(ps, AST_BINOP, loc);
  n->u.binop.op = op;
  n->u.binop.left = l;
  n->u.binop.right = r;
  tx_p_seal(ps, n);
  return n;
}

tx_ast *tx_p_unop(tx_pstate *ps, tx_unop op, tx_ast *operand, tx_loc loc) {
  tx_ast *n = tx_p_new(ps, AST_UNARYOP, loc);
  n->u.unop.op = op;
  n->u.unop.operand = operand;
  tx_p_seal(ps, n);
  return n;
}

tx_ast *tx_p_seq(tx_pstate *ps, tx_ast_kind kind, tx_plist elts, tx_loc loc) {
  tx_ast *n = tx_p_new(ps, kind, loc);
  n->u.seq.elts = tx_pl_finish(ps, elts);
  tx_p_seal(ps, n);
  return n;
}

tx_ast *tx_p_name(tx_pstate *ps, const char *id, tx_loc loc) {
  tx_ast *n = tx_p_new(ps, AST_NAME, loc);
  n->u.name.id = id;
  return n;
}

tx_ast *tx_p_const(tx_pstate *ps, tx_ast_kind kind, tx_loc loc) {
  return tx_p_new(ps, kind, loc);
}

const char *tx_p_intern(tx_pstate *ps, const char *s, size_t n) {
  const char *r = tx_intern_n(ps->env->strings, s, n);
  if (!r) {
    tx_p_oom(ps);
    return "";
  }
  return r;
}

/* a.b.c from its Name parts, in one pass (no quadratic re-concatenation). */
const char *tx_p_dotted(tx_pstate *ps, tx_plist names) {
  size_t total = 0;
  for (tx_cell *c = names.head; c; c = c->next)
    total += strlen(c->item->kind == AST_NAME && c->item->u.name.id ? c->item->u.name.id : "") + 1;
  char *buf = tx_mem_alloc(p_allocator(ps), total);
  if (!buf) {
    tx_p_oom(ps);
    return "";
  }
  size_t len = 0;
  for (tx_cell *c = names.head; c; c = c->next) {
    const char *id = c->item->kind == AST_NAME && c->item->u.name.id ? c->item->u.name.id : "";
    size_t n = strlen(id);
    if (len) buf[len++] = '.';
    memcpy(buf + len, id, n);
    len += n;
  }
  const char *r = tx_p_intern(ps, buf, len);
  tx_mem_free(p_allocator(ps), buf);
  return r;
}

/* ---- checks Python makes on the tree ---- */

static const char *expr_description(const tx_ast *t) {
  switch (t->kind) {
  case AST_INT:
  case AST_FLOAT:
  case AST_STR:
  case AST_ELLIPSIS:
    return "literal";
  case AST_NONE:
    return "None";
  case AST_TRUE:
    return "True";
  case AST_FALSE:
    return "False";
  case AST_CALL:
    return "function call";
  case AST_BINOP:
  case AST_UNARYOP:
    return "expression";
  case AST_COMPARE:
    return "comparison";
  case AST_BOOLOP:
    return "expression";
  case AST_IFEXP:
    return "conditional expression";
  case AST_LAMBDA:
    return "lambda";
  case AST_DICT:
    return "dict literal";
  case AST_SLICE:
    return "slice";
  case AST_KEYWORD:
  case AST_NAME:
  case AST_ATTR:
  case AST_SUBSCRIPT:
  case AST_STARRED:
  case AST_TUPLE:
  case AST_LIST:
  case AST_EXPR_STMT:
  case AST_ASSIGN:
  case AST_ANNASSIGN:
  case AST_AUGASSIGN:
  case AST_FOR:
  case AST_WHILE:
  case AST_IF:
  case AST_WITH:
  case AST_WITHITEM:
  case AST_FUNCDEF:
  case AST_PARAM:
  case AST_CLASSDEF:
  case AST_RETURN:
  case AST_BREAK:
  case AST_CONTINUE:
  case AST_PASS:
  case AST_ASSERT:
  case AST_IMPORT:
  case AST_IMPORTFROM:
  case AST_ALIAS:
  case AST_DEL:
  case AST_GLOBAL:
    break;
  }
  return "expression";
}

void tx_p_check_target(tx_pstate *ps, const tx_ast *t, const char *what) {
  if (t->kind == AST_NAME || t->kind == AST_ATTR || t->kind == AST_SUBSCRIPT) return;
  if (t->kind == AST_STARRED) {
    tx_p_check_target(ps, t->u.starred.value, what);
    return;
  }
  if (t->kind == AST_TUPLE || t->kind == AST_LIST) {
    /* Elements are at most TX_MAX_NESTING deep, so this recursion is bounded. */
    for (size_t i = 0; i < t->u.seq.elts.len; i++)
      tx_p_check_target(ps, t->u.seq.elts.items[i], what);
    return;
  }
  tx_p_error(ps, tx_p_loc(t), "cannot assign to %s in %s", expr_description(t), what);
}

/* Order rules of a parameter list (def and lambda). */
void tx_p_check_params(tx_pstate *ps, tx_ast_list params) {
  int seen_default = 0, seen_star = 0, seen_kwargs = 0, seen_slash = 0;
  for (size_t i = 0; i < params.len; i++) {
    const tx_ast *p = params.items[i];
    tx_loc loc = tx_p_loc(p);
    if (seen_kwargs) {
      tx_p_error(ps, loc, "arguments cannot follow var-keyword argument");
      return;
    }
    switch (p->u.param.kind) {
    case PARAM_NORMAL:
      if (p->u.param.default_value)
        seen_default = 1;
      else if (seen_default && !seen_star) {
        tx_p_error(ps, loc, "parameter without a default follows parameter with a default");
        return;
      }
      break;
    case PARAM_VARARGS:
    case PARAM_STAR:
      if (seen_star) {
        tx_p_error(ps, loc, "* argument may appear only once");
        return;
      }
      seen_star = 1;
      if (p->u.param.kind == PARAM_STAR &&
          (i + 1 == params.len || params.items[i + 1]->u.param.kind == PARAM_KWARGS)) {
        tx_p_error(ps, loc, "named arguments must follow bare *");
        return;
      }
      break;
    case PARAM_KWARGS:
      seen_kwargs = 1;
      break;
    case PARAM_SLASH:
      if (seen_slash || seen_star || i == 0) {
        tx_p_error(ps, loc,
                   seen_slash  ? "/ may appear only once"
                   : seen_star ? "/ must be ahead of *"
                               : "at least one argument must precede /");
        return;
      }
      seen_slash = 1;
      break;
    }
    for (size_t j = 0; j < i && p->u.param.name; j++)
      if (params.items[j]->u.param.name == p->u.param.name) {
        tx_p_error(ps, loc, "duplicate argument '%s' in function definition", p->u.param.name);
        return;
      }
  }
}

/* ---- literals ---- */

static int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

static int literal_too_long(tx_pstate *ps, size_t len, tx_loc loc) {
  if (len <= TX_MAX_LITERAL_CHARS) return 0;
  tx_p_error(ps, loc, "numeric literal too long (%zu characters, limit %d)", len,
             (int)TX_MAX_LITERAL_CHARS);
  return 1;
}

/* The lexer guarantees the syntax; values beyond 64 bits set overflow and
 * keep the text for the builder to report. */
tx_ast *tx_p_int(tx_pstate *ps, const char *text, size_t len, tx_loc loc) {
  tx_ast *n = tx_p_new(ps, AST_INT, loc);
  if (literal_too_long(ps, len, loc)) {
    n->u.int_lit.overflow = 1;
    n->u.int_lit.text = "0";
    return n;
  }
  unsigned base = 10;
  size_t i = 0;
  if (len > 2 && text[0] == '0') {
    switch (text[1]) {
    case 'x':
    case 'X':
      base = 16;
      i = 2;
      break;
    case 'o':
    case 'O':
      base = 8;
      i = 2;
      break;
    case 'b':
    case 'B':
      base = 2;
      i = 2;
      break;
    default:
      break;
    }
  }
  uint64_t v = 0;
  int overflow = 0;
  for (; i < len; i++) {
    if (text[i] == '_') continue;
    unsigned d = (unsigned)digit_value(text[i]);
    if (v > (UINT64_MAX - d) / base) overflow = 1;
    v = v * base + d;
  }
  n->u.int_lit.value = overflow ? 0 : v;
  n->u.int_lit.overflow = overflow;
  n->u.int_lit.text = tx_arena_strndup(ps->env->arena, text, len);
  if (!n->u.int_lit.text) {
    tx_p_oom(ps);
    n->u.int_lit.text = "0";
  }
  return n;
}

tx_ast *tx_p_float(tx_pstate *ps, const char *text, size_t len, tx_loc loc) {
  tx_ast *n = tx_p_new(ps, AST_FLOAT, loc);
  if (literal_too_long(ps, len, loc)) {
    n->u.float_lit.text = "0.0";
    return n;
  }
  char buf[TX_MAX_LITERAL_CHARS + 1];
  size_t k = 0;
  for (size_t i = 0; i < len; i++)
    if (text[i] != '_') buf[k++] = text[i];
  buf[k] = '\0';
#if defined(__GLIBC__)
  if (!ps->c_locale) ps->c_locale = (void *)newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
  n->u.float_lit.value =
      ps->c_locale ? strtod_l(buf, NULL, (locale_t)ps->c_locale) : strtod(buf, NULL);
#else
  n->u.float_lit.value = strtod(buf, NULL);
#endif
  n->u.float_lit.text = tx_arena_strndup(ps->env->arena, text, len);
  if (!n->u.float_lit.text) {
    tx_p_oom(ps);
    n->u.float_lit.text = "0.0";
  }
  return n;
}

/* The location of byte `off` of a token that starts at `start`. */
static tx_loc loc_at(tx_loc start, const char *text, size_t off, size_t width) {
  tx_loc l = {start.line, start.col, 0, 0};
  for (size_t i = 0; i < off; i++) {
    if (text[i] == '\n') {
      l.line++;
      l.col = 1;
    } else {
      l.col++;
    }
  }
  l.end_line = l.line;
  l.end_col = l.col + (uint32_t)width;
  return l;
}

static size_t put_utf8(char *out, uint32_t cp) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xc0 | cp >> 6);
    out[1] = (char)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xe0 | cp >> 12);
    out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
    out[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  out[0] = (char)(0xf0 | cp >> 18);
  out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
  out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
  out[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

/* Decode a string token (prefix, quotes and all, as the lexer matched it).
 * Escapes never take more bytes decoded than written (\U0010FFFF: 10 -> 4),
 * so the output fits in the body's length. Bytes literals (b'') decode \x
 * and octal escapes to single bytes and leave \u alone, as Python does. */
tx_ast *tx_p_string(tx_pstate *ps, const char *text, size_t len, tx_loc loc) {
  tx_ast *n = tx_p_new(ps, AST_STR, loc);
  int raw = 0, bytes = 0;
  size_t i = 0;
  while (i < len && text[i] != '\'' && text[i] != '"') {
    if (text[i] == 'r' || text[i] == 'R') raw = 1;
    if (text[i] == 'b' || text[i] == 'B') bytes = 1;
    i++;
  }
  size_t q = (len - i >= 6 && text[i + 1] == text[i] && text[i + 2] == text[i]) ? 3 : 1;
  size_t body = i + q, body_end = len - q;
  char *out = p_alloc(ps, body_end - body + 1);
  if (!out) {
    n->u.str.data = "";
    return n;
  }
  size_t o = 0;
  for (size_t p = body; p < body_end;) {
    char c = text[p];
    if (c != '\\' || raw) {
      out[o++] = c;
      p++;
      continue;
    }
    size_t esc = p; /* the backslash */
    char e = text[p + 1];
    p += 2;
    switch (e) {
    case '\n':
      break; /* line continuation inside the literal */
    case '\r':
      if (p < body_end && text[p] == '\n') p++;
      break;
    case '\\':
      out[o++] = '\\';
      break;
    case '\'':
      out[o++] = '\'';
      break;
    case '"':
      out[o++] = '"';
      break;
    case 'a':
      out[o++] = '\a';
      break;
    case 'b':
      out[o++] = '\b';
      break;
    case 'f':
      out[o++] = '\f';
      break;
    case 'n':
      out[o++] = '\n';
      break;
    case 'r':
      out[o++] = '\r';
      break;
    case 't':
      out[o++] = '\t';
      break;
    case 'v':
      out[o++] = '\v';
      break;
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7': {
      uint32_t v = (uint32_t)(e - '0');
      for (int k = 0; k < 2 && p < body_end && text[p] >= '0' && text[p] <= '7'; k++)
        v = v * 8 + (uint32_t)(text[p++] - '0');
      if (bytes) {
        if (v > 0xff)
          tx_p_error(ps, loc_at(loc, text, esc, p - esc), "octal escape value out of range");
        out[o++] = (char)(v & 0xff);
      } else {
        o += put_utf8(out + o, v);
      }
      break;
    }
    case 'x':
    case 'u':
    case 'U': {
      if (bytes && e != 'x') { /* no \u in bytes: kept verbatim */
        out[o++] = '\\';
        out[o++] = e;
        break;
      }
      size_t want = e == 'x' ? 2 : e == 'u' ? 4 : 8;
      uint32_t v = 0;
      size_t k = 0;
      for (; k < want && p + k < body_end && digit_value(text[p + k]) < 16; k++)
        v = v * 16 + (uint32_t)digit_value(text[p + k]);
      if (k < want) {
        tx_p_error(ps, loc_at(loc, text, esc, 2 + k),
                   "truncated \\%c escape (expected %zu hex digits)", e, want);
        p += k;
        break;
      }
      p += want;
      if (bytes) {
        out[o++] = (char)v;
      } else if (v > 0x10ffff) {
        tx_p_error(ps, loc_at(loc, text, esc, p - esc), "illegal Unicode character in \\U escape");
      } else if (v >= 0xd800 && v <= 0xdfff) {
        tx_p_error(ps, loc_at(loc, text, esc, p - esc),
                   "invalid Unicode escape: surrogate code point U+%04X", (unsigned)v);
      } else {
        o += put_utf8(out + o, v);
      }
      break;
    }
    case 'N':
      if (!bytes) {
        tx_p_error(ps, loc_at(loc, text, esc, 2), "\\N{...} escapes are not supported");
        break;
      }
      /* In bytes, \N is not an escape. */
      out[o++] = '\\';
      out[o++] = e;
      break;
    default:
      /* Unknown escapes keep the backslash, as in Python. */
      out[o++] = '\\';
      out[o++] = e;
      break;
    }
  }
  out[o] = '\0';
  if (o > TX_MAX_STRING_BYTES)
    tx_p_error(ps, loc, "string literal too long (%zu bytes, limit %d)", o,
               (int)TX_MAX_STRING_BYTES);
  n->u.str.data = out;
  n->u.str.len = o;
  return n;
}

/* 'a' 'b' is 'ab': joined once, at the end, so k parts cost O(total). */
tx_ast *tx_p_concat_strings(tx_pstate *ps, tx_plist parts, tx_loc loc) {
  if (parts.len == 1) return parts.head->item;
  size_t total = 0;
  for (tx_cell *c = parts.head; c; c = c->next)
    total += c->item->u.str.len;
  tx_ast *n = tx_p_new(ps, AST_STR, loc);
  if (total > TX_MAX_STRING_BYTES) {
    tx_p_error(ps, loc, "string literal too long (%zu bytes, limit %d)", total,
               (int)TX_MAX_STRING_BYTES);
    n->u.str.data = "";
    return n;
  }
  char *out = p_alloc(ps, total + 1);
  if (!out) {
    n->u.str.data = "";
    return n;
  }
  size_t o = 0;
  for (tx_cell *c = parts.head; c; c = c->next) {
    if (c->item->u.str.len) memcpy(out + o, c->item->u.str.data, c->item->u.str.len);
    o += c->item->u.str.len;
  }
  out[o] = '\0';
  n->u.str.data = out;
  n->u.str.len = o;
  return n;
}

/* ---- the driver ---- */

void *tx_p_stack_alloc(tx_pstate *ps, size_t size) {
  if (!ps) return NULL; /* the exact parser's lookahead stack (parser.y) */
  for (int i = 0; i < 2; i++)
    if (!ps->parser_stack[i]) return ps->parser_stack[i] = tx_mem_alloc(p_allocator(ps), size);
  return NULL; /* bison then reports memory exhaustion; never happens */
}

void tx_p_stack_free(tx_pstate *ps, void *p) {
  if (!ps) return; /* nothing was allocated without a state */
  for (int i = 0; i < 2; i++)
    if (ps->parser_stack[i] == p) ps->parser_stack[i] = NULL;
  tx_mem_free(p_allocator(ps), p);
}

static tx_loc offset_loc(const char *text, size_t off) {
  uint32_t line = 1;
  size_t bol = 0;
  for (const char *p = text, *end = text + off; (p = memchr(p, '\n', (size_t)(end - p))); p++) {
    line++;
    bol = (size_t)(p - text) + 1;
  }
  uint32_t col = (uint32_t)(off - bol + 1);
  return (tx_loc){line, col, line, col + 1};
}

static void run_parser(tx_pstate *ps, int (*parse)(tx_pstate *)) {
  int rc = parse(ps);
  if (rc == 2 && !ps->nerrors)
    tx_p_oom(ps); /* bison: memory exhausted */
  else if (rc != 0 && !ps->nerrors && !ps->nomem)
    ps->nerrors++; /* aborted */
}

/* One lex+parse of text with `parse`; everything the run allocated outside
 * the arena is released, so the state can be reset for another. With
 * `arm_once` (the fast parser, whose stacks live in ps->parser_stack), the
 * lexer's fatal-error jump is armed here once instead of around every
 * token (tx_next_token): setjmp per token cost ~3% of the frontend. */
static void parse_once(tx_pstate *ps, const char *text, size_t len, int (*parse)(tx_pstate *),
                       int arm_once) {
  if (tx_lexer_open(ps, text, len) != 0) {
    tx_p_oom(ps);
  } else if (!arm_once) {
    run_parser(ps, parse);
  } else if (setjmp(ps->fatal)) {
    /* flex failed (out of memory) inside the parse: its frames are gone. */
    tx_p_oom(ps);
    for (int i = 0; i < 2; i++)
      tx_mem_free(p_allocator(ps), ps->parser_stack[i]);
    ps->parser_stack[0] = ps->parser_stack[1] = NULL;
  } else {
    ps->fatal_armed = 1;
    run_parser(ps, parse);
  }
  ps->fatal_armed = 0;
  tx_lexer_close(ps);
  tx_p_free_cells(ps);
#if defined(__GLIBC__)
  if (ps->c_locale) freelocale((locale_t)ps->c_locale);
  ps->c_locale = NULL;
#endif
}

tirx_status tx_parse_python(const tx_parse_env *env, const char *file, const char *text, size_t len,
                            tx_ast_list *out) {
  if (out) *out = (tx_ast_list){0};
  if (!env || !env->arena || !env->strings || !env->diags || !out || (!text && len))
    return TIRX_ERR_USAGE;
  if (!text) text = "";

  const tirx_allocator *alloc = tx_arena_allocator(env->arena);
  tx_pstate *ps = tx_mem_calloc(alloc, 1, sizeof *ps);
  if (!ps) return TIRX_ERR_NOMEM;
  ps->env = env;
  ps->file = file;

  if (len > TX_MAX_INPUT_BYTES) {
    tx_p_error(ps, (tx_loc){1, 1, 1, 1}, "source too large (%zu bytes, limit %d MiB)", len,
               (int)(TX_MAX_INPUT_BYTES >> 20));
  } else {
    /* CPython refuses NUL bytes outright; so do we, before lexing. */
    const char *nul = memchr(text, '\0', len);
    if (nul) {
      tx_p_error(ps, offset_loc(text, (size_t)(nul - text)), "NUL byte in source");
    } else {
      /* Lookahead correction costs about a sixth of the parse and matters
       * only for the "expecting ..." lists of syntax errors: parse without
       * it, quietly, and only when that meets an error parse again with it,
       * to report (the first run's nodes stay in the arena, unused). */
      ps->quiet = 1;
      parse_once(ps, text, len, txpyf_parse, 1);
      if (ps->nerrors || ps->nomem) {
        *ps = (tx_pstate){.env = env, .file = file};
        parse_once(ps, text, len, txpy_parse, 0);
      }
    }
  }

  tirx_status st = TIRX_OK;
  if (ps->nomem)
    st = TIRX_ERR_NOMEM;
  else if (ps->nerrors)
    st = TIRX_ERR_INPUT;
  else
    *out = ps->result;
  tx_mem_free(alloc, ps);
  return st;
}
