/*
 * ast.h - the syntax tree of the Python subset TVMScript is written in.
 *
 * The parser builds it; the builder (builder.c) turns it into TIRx IR. It is
 * plain syntax: nothing here knows what `T.Buffer` means. Nodes live in the
 * context's arena and are never freed one by one.
 */
#ifndef TIRX_FRONTEND_AST_H
#define TIRX_FRONTEND_AST_H

#include <stddef.h>
#include <stdint.h>

#include "ir/arena.h"
#include "ir/diag.h"
#include "ir/intern.h"
#include "tirx/tirx.h"

typedef enum tx_ast_kind {
#define X(kind, name) kind,
#include "frontend/ast_kinds.def"
#undef X
} tx_ast_kind;

/* Binary operators (also the operator of an augmented assignment). */
typedef enum tx_binop {
  BINOP_ADD,
  BINOP_SUB,
  BINOP_MUL,
  BINOP_DIV,
  BINOP_FLOORDIV,
  BINOP_MOD,
  BINOP_POW,
  BINOP_MATMUL,
  BINOP_LSHIFT,
  BINOP_RSHIFT,
  BINOP_BITAND,
  BINOP_BITOR,
  BINOP_BITXOR,
} tx_binop;

typedef enum tx_unop { UNOP_NEG, UNOP_POS, UNOP_NOT, UNOP_INVERT } tx_unop;

typedef enum tx_cmpop {
  CMP_EQ,
  CMP_NE,
  CMP_LT,
  CMP_LE,
  CMP_GT,
  CMP_GE,
  CMP_IS,
  CMP_IS_NOT,
  CMP_IN,
  CMP_NOT_IN,
} tx_cmpop;

typedef enum tx_param_kind {
  PARAM_NORMAL,  /* x, x: T, x=1 */
  PARAM_VARARGS, /* *args */
  PARAM_KWARGS,  /* **kwargs */
  PARAM_STAR,    /* bare `*`: later params are keyword-only */
  PARAM_SLASH,   /* bare `/` */
} tx_param_kind;

typedef struct tx_ast tx_ast;
typedef struct tx_ast_list {
  tx_ast **items;
  size_t len;
} tx_ast_list;

struct tx_ast {
  tx_ast_kind kind;
  /* The parser's bookkeeping: 1 + the deepest child, which enforces
   * TX_MAX_NESTING without a second pass. It sits in what would be padding
   * before span, so nodes stay 96 bytes. Consumers ignore it. */
  uint32_t depth;
  tirx_span span;
  union {
    struct {
      const char *id;
    } name; /* interned */
    /* An integer literal. `overflow` when it does not fit in 64 bits. */
    struct {
      uint64_t value;
      int overflow;
      const char *text;
    } int_lit;
    struct {
      double value;
      const char *text;
    } float_lit; /* text as written */
    struct {
      const char *data;
      size_t len;
    } str; /* decoded, NUL-terminated */
    struct {
      tx_ast *value;
      const char *attr;
    } attr; /* value.attr; attr interned */
    struct {
      tx_ast *func;
      tx_ast_list args, keywords;
    } call; /* keywords: AST_KEYWORD */
    struct {
      const char *arg;
      tx_ast *value;
    } keyword; /* arg NULL for **value */
    struct {
      tx_ast *value;
    } starred; /* *value */
    struct {
      tx_ast *value, *index;
    } subscript; /* index: a TUPLE for a[i, j] */
    struct {
      tx_ast *lower, *upper, *step;
    } slice; /* any may be NULL */
    struct {
      tx_ast_list elts;
    } seq; /* TUPLE, LIST */
    struct {
      tx_ast_list keys, values;
    } dict; /* key NULL for **value */
    struct {
      tx_binop op;
      tx_ast *left, *right;
    } binop;
    struct {
      tx_unop op;
      tx_ast *operand;
    } unop;
    /* a < b <= c: ops has n entries, comparators n (left is separate). */
    struct {
      tx_ast *left;
      tx_cmpop *ops;
      tx_ast_list comparators;
    } compare;
    struct {
      int is_and;
      tx_ast_list values;
    } boolop;
    struct {
      tx_ast *test, *body, *orelse;
    } ifexp; /* body if test else orelse */
    struct {
      tx_ast_list params;
      tx_ast *body;
    } lambda;
    struct {
      tx_ast *value;
    } expr_stmt;
    struct {
      tx_ast_list targets;
      tx_ast *value;
    } assign; /* a = b = value */
    struct {
      tx_ast *target, *annotation, *value;
    } annassign; /* value may be NULL */
    struct {
      tx_ast *target;
      tx_binop op;
      tx_ast *value;
    } augassign;
    struct {
      tx_ast *target, *iter;
      tx_ast_list body, orelse;
    } for_;
    struct {
      tx_ast *test;
      tx_ast_list body, orelse;
    } while_;
    struct {
      tx_ast *test;
      tx_ast_list body, orelse;
    } if_; /* elif: one AST_IF in orelse */
    struct {
      tx_ast_list items;
      tx_ast_list body;
    } with; /* items: AST_WITHITEM */
    struct {
      tx_ast *context, *target;
    } withitem; /* target may be NULL */
    struct {
      const char *name;
      /* params and type_params (PEP 695 `def k[n](...)`): AST_PARAM */
      tx_ast_list decorators, type_params, params, body;
      tx_ast *returns;
    } funcdef;
    struct {
      const char *name;
      tx_param_kind kind;
      tx_ast *annotation, *default_value;
    } param;
    struct {
      const char *name;
      tx_ast_list decorators, bases, body;
    } classdef;
    struct {
      tx_ast *value;
    } ret; /* value may be NULL */
    struct {
      tx_ast *test, *msg;
    } assert_;
    /* import a.b as c / from a.b import c as d; module is dotted, level counts dots */
    struct {
      const char *module;
      int level;
      tx_ast_list names;
    } import;
    struct {
      const char *name, *asname;
    } alias;
    struct {
      tx_ast_list targets;
    } del;
    struct {
      tx_ast_list names;
    } global; /* AST_NAME items */
  } u;
};

/* What the parser needs from its context. */
typedef struct tx_parse_env {
  tx_arena *arena;
  tx_interner *strings;
  tx_diag_sink *diags;
} tx_parse_env;

/* Documented limits of the text frontend; exceeding one is a located error. */
enum {
  TX_MAX_INPUT_BYTES = 64 << 20, /* 64 MiB per source */
  TX_MAX_NESTING = 200,          /* brackets and indentation */
  /* Syntax-tree depth, which bounds the stack of every recursive walk
   * (builder, passes, printer, codegen); a flat chain a + b + ... is as
   * deep as it is long. docs/limits.md gives the stack this needs. */
  TX_MAX_EXPR_DEPTH = 2048,
  TX_MAX_LITERAL_CHARS = 4096,   /* one numeric literal */
  TX_MAX_STRING_BYTES = 1 << 20, /* one string literal, decoded */
  TX_MAX_NAME_CHARS = 1024,      /* one identifier */
  TX_MAX_FUNCS = 16384,          /* functions in one module */
};

/*
 * Parse `text` (len bytes, not necessarily NUL-terminated; may contain NULs,
 * which are errors) into a list of statements. `file` is the (already
 * registered) source name used in spans. Syntax errors are reported to
 * env->diags. Returns TIRX_OK with *out set, TIRX_ERR_INPUT after errors, or
 * TIRX_ERR_NOMEM. Never crashes, never exits, whatever the bytes.
 */
tirx_status tx_parse_python(const tx_parse_env *env, const char *file, const char *text, size_t len,
                            tx_ast_list *out);

const char *tx_ast_kind_name(tx_ast_kind kind);
static inline int tx_ast_is_stmt(tx_ast_kind kind) {
  return kind >= AST_EXPR_STMT;
}

#endif
