/*
 * parse_internal.h - state shared by the Python-subset lexer (lexer.l), the
 * grammar (parser.y) and the hand-written helpers and driver (parse.c).
 *
 * Private to frontend/: nothing outside the parser includes it. It must not
 * include the bison/flex generated headers (parse.c is compiled without them);
 * the generated files include this one instead. No global state: everything a
 * parse needs hangs off one tx_pstate, so parses may run in parallel threads.
 */
#ifndef TIRX_FRONTEND_PARSE_INTERNAL_H
#define TIRX_FRONTEND_PARSE_INTERNAL_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "frontend/ast.h"

/* A token or rule location (bison's YYLTYPE). End is exclusive. Zero-width
 * locations (NEWLINE, INDENT, DEDENT, empty rules) are skipped when a rule's
 * location is computed, so a node never extends over layout tokens. */
typedef struct tx_loc {
  uint32_t line, col, end_line, end_col;
} tx_loc;

/* Lists under construction: arena cons cells, copied into a tx_ast_list array
 * when the enclosing node is built. Arena cells (rather than malloc'ed
 * vectors) mean error recovery can drop half-built lists without leaking. */
typedef struct tx_cell {
  tx_ast *item;
  struct tx_cell *next;
  int tag; /* the tx_cmpop of a comparison chain element */
} tx_cell;
typedef struct tx_plist {
  tx_cell *head, *tail;
  size_t len;
} tx_plist;

/* Call arguments while they are collected (also reused for dict entries:
 * args = keys, keywords = values). */
typedef struct tx_pargs {
  tx_plist args, keywords;
  int saw_keyword, saw_kwunpack;
} tx_pargs;

/* The grammar's semantic value (both generated parsers and the lexer). */
typedef union tx_pvalue {
  tx_ast *node;
  tx_plist list;
  tx_pargs *args;
  const char *str;
  int num;
} tx_pvalue;

/* Every node the parser allocates is a tx_pnode (its depth lives in
 * tx_ast.depth). */
typedef struct tx_pnode {
  tx_ast ast;
} tx_pnode;

typedef struct tx_pstate {
  const tx_parse_env *env;
  const char *file; /* span file name */
  void *scanner;    /* yyscan_t of the flex scanner */
  char *lexbuf;     /* the text flex scans, with two NULs after it */
  void *flex_last_alloc;
  jmp_buf fatal;         /* where a flex fatal error (out of memory) lands */
  int fatal_armed;       /* fatal is armed for the whole parse (parse_once) */
  void *parser_stack[2]; /* the parser's live stacks (tx_p_stack_alloc) */

  /* Outcome. */
  size_t nerrors;
  int stop;  /* stop everything: the lexer now only returns end of file */
  int quiet; /* the fast parse: an error only counts and stops (tx_p_error) */
  int nomem; /* an allocation failed: the result is TIRX_ERR_NOMEM */
  int nesting_reported;
  int recovering; /* the parser is resynchronising after a syntax error */
  tx_ast_list result;
  tx_pnode dummy; /* handed out when the arena is exhausted, never NULL */
  tx_pargs dummy_args;

  /* Lexer position and layout state. */
  const char *src; /* the caller's text (for messages that look ahead) */
  size_t src_len;
  uint32_t line;
  const char *line_start; /* where the current line starts in lexbuf */
  uint32_t col;           /* see tx_lex_end_col */
  int at_bol;             /* no token yet on the current logical line */
  int eof;                /* flex returned end of input */
  int lex_done;           /* no more flex scanning (unterminated triple quote) */
  int pending_dedents;    /* DEDENTs still to hand out */
  tx_loc pending_loc;
  int suppress_indent_error; /* the previous statement was an error */
  int paren_depth;
  char paren_char[TX_MAX_NESTING];
  tx_loc paren_loc[TX_MAX_NESTING];
  int indent_top;                         /* indent[0] is column 0 */
  uint32_t indent[TX_MAX_NESTING + 1];    /* tabs to multiples of 8 */
  uint32_t altindent[TX_MAX_NESTING + 1]; /* tabs as 1: detects tab/space mixing */

  /* The last token, for error messages. */
  const char *tok_text; /* into the scanner's copy of the source; NULL if synthetic */
  size_t tok_len;
  int line_first_tok, prev_line_first_tok; /* first token of this/the last logical line */
  uint32_t line_first_line, prev_line_first_line;

  struct tx_cell_block *cell_blocks; /* see cell_alloc in parse.c */
  tx_cell *cell_free;
  size_t cell_used;
  void *c_locale; /* locale_t for strtod_l, created on the first float */
} tx_pstate;

/* Diagnostics. Every error goes through these so that the count, the
 * saturation check and the stop flag stay consistent. */
void tx_p_error(tx_pstate *ps, tx_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Brackets or indentation past TX_MAX_NESTING (the lexer). */
void tx_p_nesting_error(tx_pstate *ps, tx_loc loc);
/* A syntax tree deeper than TX_MAX_EXPR_DEPTH (tx_p_seal). */
void tx_p_depth_error(tx_pstate *ps, tx_loc loc);
void tx_p_oom(tx_pstate *ps);
tirx_span tx_p_span(const tx_pstate *ps, tx_loc loc);
tx_loc tx_p_loc(const tx_ast *node);

/* bison's YYLLOC_DEFAULT: from the first to the last non-empty part; an
 * all-empty rule sits, zero-width, at the end of what precedes it. rhs[0]
 * is the location before the rule, rhs[1..n] its parts. Inline: it runs on
 * every reduction, and most reductions are unit rules (n == 1). */
static inline int tx_loc_empty(const tx_loc *l) {
  return l->line == l->end_line && l->col == l->end_col;
}
static inline void tx_p_lloc_default(tx_loc *cur, const tx_loc *rhs, int n) {
  if (n == 1) {
    *cur = rhs[1];
    return;
  }
  int first = 1, last = n;
  while (first <= n && tx_loc_empty(&rhs[first]))
    first++;
  while (last >= first && tx_loc_empty(&rhs[last]))
    last--;
  if (first > last) {
    const tx_loc *at = n > 0 ? &rhs[n] : &rhs[0];
    *cur = (tx_loc){at->end_line, at->end_col, at->end_line, at->end_col};
    return;
  }
  *cur = (tx_loc){rhs[first].line, rhs[first].col, rhs[last].end_line, rhs[last].end_col};
}

/* Nodes and lists. tx_p_new never returns NULL (see dummy). tx_p_seal sets
 * the depth of a finished node and reports nesting beyond the limit. */
tx_ast *tx_p_new(tx_pstate *ps, tx_ast_kind kind, tx_loc loc);
void tx_p_seal(tx_pstate *ps, tx_ast *node);
tx_plist tx_pl_one(tx_pstate *ps, tx_ast *item);
void tx_pl_push(tx_pstate *ps, tx_plist *list, tx_ast *item, int tag);
tx_plist tx_pl_cat(tx_plist a, tx_plist b);
/* Copies the items into an arena array and recycles the cells: a list is
 * finished at most once and not used afterwards. */
tx_ast_list tx_pl_finish(tx_pstate *ps, tx_plist list);
void tx_p_free_cells(tx_pstate *ps);
/* The parsers' stack allocator (YYMALLOC/YYFREE), from the parse's
 * allocator: bison holds at most two stacks at once (the old one while it
 * moves to a bigger one). A NULL ps (see parser.y) gets NULL. */
void *tx_p_stack_alloc(tx_pstate *ps, size_t size);
void tx_p_stack_free(tx_pstate *ps, void *p);
tx_pargs *tx_p_args_new(tx_pstate *ps);
void tx_p_args_add(tx_pstate *ps, tx_pargs *args, tx_ast *arg);

/* Builders with checks that the grammar actions share. */
tx_ast *tx_p_binop(tx_pstate *ps, tx_binop op, tx_ast *l, tx_ast *r, tx_loc loc);
tx_ast *tx_p_unop(tx_pstate *ps, tx_unop op, tx_ast *operand, tx_loc loc);
tx_ast *tx_p_seq(tx_pstate *ps, tx_ast_kind kind, tx_plist elts, tx_loc loc);
tx_ast *tx_p_name(tx_pstate *ps, const char *id, tx_loc loc);
tx_ast *tx_p_const(tx_pstate *ps, tx_ast_kind kind, tx_loc loc);
tx_ast *tx_p_concat_strings(tx_pstate *ps, tx_plist parts, tx_loc loc);
const char *tx_p_dotted(tx_pstate *ps, tx_plist names);
/* Report when `target` cannot be assigned to; `what` names the statement. */
void tx_p_check_target(tx_pstate *ps, const tx_ast *target, const char *what);
void tx_p_check_params(tx_pstate *ps, tx_ast_list params);

/* Literal tokens, called by the lexer on the token text. */
tx_ast *tx_p_int(tx_pstate *ps, const char *text, size_t len, tx_loc loc);
tx_ast *tx_p_float(tx_pstate *ps, const char *text, size_t len, tx_loc loc);
tx_ast *tx_p_string(tx_pstate *ps, const char *text, size_t len, tx_loc loc);
const char *tx_p_intern(tx_pstate *ps, const char *s, size_t n);

/* Lexer lifetime (lexer.l). open: 0, or -1 when out of memory. */
int tx_lexer_open(tx_pstate *ps, const char *text, size_t len);
void tx_lexer_close(tx_pstate *ps);

/* The bison parsers (parser.y, generated twice): with lookahead correction
 * for exact syntax errors, and without it (fast, errors not reported: a
 * parse that meets one is re-run with txpy_parse; see ps->quiet). */
int txpy_parse(tx_pstate *ps);
int txpyf_parse(tx_pstate *ps);

#endif
