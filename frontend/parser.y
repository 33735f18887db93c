/*
 * parser.y - the grammar of the Python subset TVMScript is written in.
 *
 * A pure (reentrant) LALR(1) bison parser that builds the tx_ast of ast.h
 * from the tokens of lexer.l. Layered rules give Python's precedence; the
 * few context checks (assignment targets, argument order) live in parse.c.
 *
 * Must not: print, exit or keep global state. Every syntax error becomes one
 * located diagnostic (yyreport_syntax_error below); `error NEWLINE` resyncs
 * at the next statement so that several errors are reported per file. All
 * semantic values live in the arena, so discarded values never leak.
 */

%code top {
/* Generated code: bison's skeleton switches over its own enums partially. */
#pragma GCC diagnostic ignored "-Wswitch-enum"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <stdlib.h>
#include <string.h>
}

%code requires {
#include "frontend/parse_internal.h"
}

%code {
/* The same grammar is generated twice (CMakeLists.txt): txpy_parse with
 * lookahead correction, whose syntax errors name exactly the expected
 * tokens, and txpyf_parse without it (TX_FAST_PARSER), which tx_parse_python
 * runs first; it only re-parses with txpy_parse to report errors. Both share
 * the lexer, which returns tx_pvalue values. */
#ifdef TX_FAST_PARSER
#define txpyf_lex txpy_lex
/* The fast parse arms the lexer's fatal-error jump once, around the whole
 * parse (parse_once), so a jump out of it abandons this parser's frame:
 * its stack, when it outgrew the initial one, is allocated through ps so
 * that the driver can free it then. */
#define YYMALLOC(n) tx_p_stack_alloc(ps, (n))
#define YYFREE(p) tx_p_stack_free(ps, (p))
#else
/* The exact parser's stacks come from the parse's allocator too. Its
 * lookahead-correction stack grows in a function that has no `ps`
 * (yy_lac_stack_realloc): there this null state is the one in scope, and
 * tx_p_stack_alloc refuses it, so that stack stays in its initial array;
 * a lookahead check that needs more is reported as "nesting too deep"
 * (yyerror). yyparse's own `ps` parameter shadows it everywhere else. */
static tx_pstate *const ps = NULL;
#define YYMALLOC(n) tx_p_stack_alloc(ps, (n))
#define YYFREE(p) tx_p_stack_free(ps, (p))
#endif
int txpy_lex(tx_pvalue *lval, tx_loc *lloc, tx_pstate *ps);
static void yyerror(YYLTYPE *loc, tx_pstate *ps, const char *msg);

/* Locations skip zero-width parts (layout tokens, empty rules). */
#define YYLLOC_DEFAULT(Cur, Rhs, N) tx_p_lloc_default(&(Cur), (Rhs), (N))

/* Trees are at most TX_MAX_EXPR_DEPTH deep and brackets TX_MAX_NESTING, so
 * only pathological input (e.g. thousands of unary minuses in a row, all
 * shifted before any reduction, a tree deeper than the limit) fills a stack
 * this deep; yyerror reports it as too deep a tree. */
#define YYMAXDEPTH 20000

#define NODE(kind, loc) tx_p_new(ps, (kind), (loc))
#define SEAL(n) tx_p_seal(ps, (n))
#define FINISH(pl) tx_pl_finish(ps, (pl))
#define EMPTY ((tx_plist){0})

/* A comma-separated sequence: the element itself, or a tuple when there are
 * several elements or a trailing comma. */
static tx_ast *tx_p_tuple_or_item(tx_pstate *ps, tx_plist items, int comma, tx_loc loc) {
  if (items.len == 1 && !comma) {
    tx_ast *item = items.head->item;
    if (item->kind == AST_STARRED)
      tx_p_error(ps, tx_p_loc(item), "can't use starred expression here");
    return item;
  }
  return tx_p_seq(ps, AST_TUPLE, items, loc);
}

static tx_ast *tx_p_slice(tx_pstate *ps, tx_ast *lower, tx_ast *upper, tx_ast *step,
                          tx_loc loc) {
  tx_ast *n = NODE(AST_SLICE, loc);
  n->u.slice.lower = lower;
  n->u.slice.upper = upper;
  n->u.slice.step = step;
  SEAL(n);
  return n;
}

static tx_ast *tx_p_param(tx_pstate *ps, const char *name, tx_param_kind kind, tx_ast *ann,
                          tx_ast *def, tx_loc loc) {
  tx_ast *n = NODE(AST_PARAM, loc);
  n->u.param.name = name;
  n->u.param.kind = kind;
  n->u.param.annotation = ann;
  n->u.param.default_value = def;
  SEAL(n);
  return n;
}

static tx_ast *tx_p_alias(tx_pstate *ps, const char *name, const char *asname, tx_loc loc) {
  tx_ast *n = NODE(AST_ALIAS, loc);
  n->u.alias.name = name;
  n->u.alias.asname = asname;
  SEAL(n);
  return n;
}

/* tparams: PEP 695 type parameters `def k[n, m: T.int64](...)` (EMPTY: none). */
static tx_ast *tx_p_funcdef(tx_pstate *ps, const char *name, tx_plist tparams, tx_plist params,
                            tx_ast *returns, tx_plist body, tx_loc loc) {
  tx_ast *n = NODE(AST_FUNCDEF, loc);
  n->u.funcdef.name = name;
  n->u.funcdef.type_params = FINISH(tparams);
  n->u.funcdef.params = FINISH(params);
  n->u.funcdef.returns = returns;
  n->u.funcdef.body = FINISH(body);
  tx_p_check_params(ps, n->u.funcdef.params);
  SEAL(n);
  return n;
}

static tx_ast *tx_p_classdef(tx_pstate *ps, const char *name, tx_pargs *args, tx_plist body,
                             tx_loc loc) {
  tx_ast *n = NODE(AST_CLASSDEF, loc);
  n->u.classdef.name = name;
  if (args) {
    n->u.classdef.bases = FINISH(args->args);
    if (args->keywords.len)
      tx_p_error(ps, tx_p_loc(args->keywords.head->item),
                 "class keyword arguments are not supported");
  }
  n->u.classdef.body = FINISH(body);
  SEAL(n);
  return n;
}

/* Decorators belong to the definition, whose span then starts at the '@'. */
static tx_ast *tx_p_decorate(tx_pstate *ps, tx_plist decorators, tx_ast *def, tx_loc loc) {
  if (def->kind == AST_FUNCDEF)
    def->u.funcdef.decorators = FINISH(decorators);
  else if (def->kind == AST_CLASSDEF)
    def->u.classdef.decorators = FINISH(decorators);
  def->span = tx_p_span(ps, loc);
  SEAL(def);
  return def;
}

static tx_ast *tx_p_if(tx_pstate *ps, tx_ast_kind kind, tx_ast *test, tx_plist body,
                       tx_plist orelse, tx_loc loc) {
  tx_ast *n = NODE(kind, loc);
  if (kind == AST_IF) {
    n->u.if_.test = test;
    n->u.if_.body = FINISH(body);
    n->u.if_.orelse = FINISH(orelse);
  } else {
    n->u.while_.test = test;
    n->u.while_.body = FINISH(body);
    n->u.while_.orelse = FINISH(orelse);
  }
  SEAL(n);
  return n;
}

static tx_ast *tx_p_for(tx_pstate *ps, tx_ast *target, tx_ast *iter, tx_plist body,
                        tx_plist orelse, tx_loc loc) {
  tx_ast *n = NODE(AST_FOR, loc);
  tx_p_check_target(ps, target, "'for' target");
  n->u.for_.target = target;
  n->u.for_.iter = iter;
  n->u.for_.body = FINISH(body);
  n->u.for_.orelse = FINISH(orelse);
  SEAL(n);
  return n;
}

static tx_ast *tx_p_call(tx_pstate *ps, tx_ast *func, tx_pargs *args, tx_loc loc) {
  tx_ast *n = NODE(AST_CALL, loc);
  n->u.call.func = func;
  if (args) {
    n->u.call.args = FINISH(args->args);
    n->u.call.keywords = FINISH(args->keywords);
  }
  SEAL(n);
  return n;
}

static tx_ast *tx_p_keyword(tx_pstate *ps, const char *arg, tx_ast *value, tx_loc loc) {
  tx_ast *n = NODE(AST_KEYWORD, loc);
  n->u.keyword.arg = arg;
  n->u.keyword.value = value;
  SEAL(n);
  return n;
}

static tx_ast *tx_p_starred(tx_pstate *ps, tx_ast *value, tx_loc loc) {
  tx_ast *n = NODE(AST_STARRED, loc);
  n->u.starred.value = value;
  SEAL(n);
  return n;
}

static tx_ast *tx_p_stmt1(tx_pstate *ps, tx_ast_kind kind, tx_ast *value, tx_loc loc) {
  tx_ast *n = NODE(kind, loc);
  if (kind == AST_EXPR_STMT) n->u.expr_stmt.value = value;
  if (kind == AST_RETURN) n->u.ret.value = value;
  SEAL(n);
  return n;
}

static tx_ast *tx_p_annassign(tx_pstate *ps, tx_ast *target, tx_ast *ann, tx_ast *value,
                              tx_loc loc) {
  tx_ast *n = NODE(AST_ANNASSIGN, loc);
  if (target->kind == AST_TUPLE || target->kind == AST_LIST)
    tx_p_error(ps, tx_p_loc(target), "only single target (not %s) can be annotated",
               target->kind == AST_TUPLE ? "tuple" : "list");
  else
    tx_p_check_target(ps, target, "annotated assignment");
  n->u.annassign.target = target;
  n->u.annassign.annotation = ann;
  n->u.annassign.value = value;
  SEAL(n);
  return n;
}

static tx_ast *tx_p_augassign(tx_pstate *ps, tx_ast *target, int op, tx_ast *value,
                              tx_loc loc) {
  tx_ast *n = NODE(AST_AUGASSIGN, loc);
  if (target->kind != AST_NAME && target->kind != AST_ATTR && target->kind != AST_SUBSCRIPT)
    tx_p_error(ps, tx_p_loc(target), "illegal expression for augmented assignment");
  n->u.augassign.target = target;
  n->u.augassign.op = (tx_binop)op;
  n->u.augassign.value = value;
  SEAL(n);
  return n;
}

/* a = b = value: the chain holds every side, the last one is the value. */
static tx_ast *tx_p_assign(tx_pstate *ps, tx_plist chain, tx_loc loc) {
  tx_ast *n = NODE(AST_ASSIGN, loc);
  tx_ast_list all = FINISH(chain);
  if (all.len >= 2) {
    n->u.assign.targets = (tx_ast_list){all.items, all.len - 1};
    n->u.assign.value = all.items[all.len - 1];
    for (size_t i = 0; i + 1 < all.len; i++)
      tx_p_check_target(ps, all.items[i], "assignment");
  }
  SEAL(n);
  return n;
}

static tx_ast *tx_p_compare(tx_pstate *ps, tx_ast *left, tx_plist chain, tx_loc loc) {
  tx_ast *n = NODE(AST_COMPARE, loc);
  n->u.compare.left = left;
  tx_cmpop *ops = chain.len ? tx_arena_alloc(ps->env->arena, chain.len * sizeof *ops) : NULL;
  if (chain.len && !ops) tx_p_oom(ps);
  size_t i = 0;
  for (tx_cell *c = chain.head; c && ops; c = c->next) ops[i++] = (tx_cmpop)c->tag;
  n->u.compare.ops = ops;
  n->u.compare.comparators = FINISH(chain);
  SEAL(n);
  return n;
}

static tx_ast *tx_p_boolop(tx_pstate *ps, int is_and, tx_plist values, tx_loc loc) {
  tx_ast *n = NODE(AST_BOOLOP, loc);
  n->u.boolop.is_and = is_and;
  n->u.boolop.values = FINISH(values);
  SEAL(n);
  return n;
}

static tx_ast *tx_p_import_from(tx_pstate *ps, const char *module, int level) {
  tx_ast *n = NODE(AST_IMPORTFROM, ((tx_loc){0, 0, 0, 0}));
  n->u.import.module = module;
  n->u.import.level = level;
  return n;
}

static tx_plist tx_p_one_stmt(tx_pstate *ps, tx_ast *stmt) {
  return tx_pl_one(ps, stmt);
}
}

%define api.pure full
%define api.prefix {txpy_}
%define api.token.prefix {TK_}
%define api.location.type {tx_loc}
%define parse.error custom
/* Lookahead correction: without it, LALR's merged lookaheads and default
 * reductions detect some errors states too late, and the "expecting ..."
 * lists of messages would name too few tokens (costs ~10% parse time). */
%define parse.lac full
%locations
%parse-param {tx_pstate *ps}
%lex-param {tx_pstate *ps}
%expect 0

%initial-action {
  @$ = (tx_loc){1, 1, 1, 1};
}

%define api.value.type {tx_pvalue}

%token <str> NAME "name"
%token <node> INT "integer" FLOAT "number" STRING "string"
%token <num> AUGASSIGN "augmented assignment"
%token <num> INDENT "indent"
%token DEDENT "unindent" NEWLINE "end of line" LEXERROR "invalid token"
%token <str> UNSUPPORTED "unsupported keyword"
%token AND "'and'" AS "'as'" ASSERT "'assert'" BREAK "'break'" CLASS "'class'"
%token CONTINUE "'continue'" DEF "'def'" DEL "'del'" ELIF "'elif'" ELSE "'else'"
%token FALSE "'False'" FOR "'for'" FROM "'from'" GLOBAL "'global'" IF "'if'"
%token IMPORT "'import'" IN "'in'" IS "'is'" LAMBDA "'lambda'" NONE "'None'" NOT "'not'"
%token OR "'or'" PASS "'pass'" RETURN "'return'" TRUE "'True'" WHILE "'while'" WITH "'with'"
%token POW "'**'" FLOORDIV "'//'" LSHIFT "'<<'" RSHIFT "'>>'" EQ "'=='" NE "'!='"
%token LE "'<='" GE "'>='" ARROW "'->'" COLONEQ "':='" ELLIPSIS "'...'"

%type <list> stmts stmt simple_line small_list suite else_part opt_else decorators
%type <list> tseq eseq assign_chain comp_chain or_seq and_seq strings
%type <list> opt_tparams tparam_seq params param_seq lparams lparam_seq with_items name_seq
%type <list> dotted_name dotted_as_names import_names from_targets subseq
%type <node> small_stmt expr_stmt compound if_stmt while_stmt for_stmt with_stmt
%type <node> funcdef classdef decorator with_item import_stmt from_mod dotted_as_name
%type <node> import_name tlist targets test_se star_expr expr_se test or_test and_test
%type <node> not_test comparison expr
%type <node> lambdef subscripts subitem opt_test opt_step param lparam tparam
%type <node> ret_ann opt_ann arg
%type <args> arglist args dict_items
%type <num> comp_op dots

/* Python's arithmetic precedence, loosest first. */
%left '|'
%left '^'
%left '&'
%left LSHIFT RSHIFT
%left '+' '-'
%left '*' '/' '%' FLOORDIV '@'
%precedence UNARY
/* The other character tokens, in the order of their first use in the rules
 * before postfix precedence was declared below: the order fixes their
 * symbol numbers, which order the "expecting ..." lists of syntax errors. */
%token ';' ',' ':' '=' '.' '(' ')' '<' '>' '~' '[' ']' '{' '}'
%right POW
/* Attribute, call and subscript bind tighter than any operator. */
%precedence '.' '(' '['

%%

file:
    %empty          { ps->result = (tx_ast_list){0}; }
  | stmts           { ps->result = FINISH($1); }
  ;

stmts:
    stmt            { $$ = $1; }
  | stmts stmt      { $$ = tx_pl_cat($1, $2); }
  ;

stmt:
    simple_line     { $$ = $1; }
  | compound        { $$ = tx_p_one_stmt(ps, $1); }
  | error NEWLINE   {
      yyerrok;
      ps->recovering = 0;
      $$ = EMPTY;
    }
    /* An indented block where none belongs: report it (unless the line
     * before was already an error, e.g. a broken 'if' header), parse the
     * block for further errors and drop it. */
  | INDENT {
      if (!$1) tx_p_error(ps, @1, "unexpected indent");
    } stmts DEDENT  { $$ = EMPTY; }
  ;

simple_line:
    small_list NEWLINE      { $$ = $1; }
  | small_list ';' NEWLINE  { $$ = $1; }
  ;

small_list:
    small_stmt                  { $$ = tx_pl_one(ps, $1); }
  | small_list ';' small_stmt   { $$ = $1; tx_pl_push(ps, &$$, $3, 0); }
  ;

small_stmt:
    expr_stmt
  | DEL eseq            { $$ = NODE(AST_DEL, @$); $$->u.del.targets = FINISH($2);
                          for (size_t i = 0; i < $$->u.del.targets.len; i++)
                            tx_p_check_target(ps, $$->u.del.targets.items[i], "'del'");
                          SEAL($$); }
  | DEL eseq ','        { $$ = NODE(AST_DEL, @$); $$->u.del.targets = FINISH($2);
                          for (size_t i = 0; i < $$->u.del.targets.len; i++)
                            tx_p_check_target(ps, $$->u.del.targets.items[i], "'del'");
                          SEAL($$); }
  | PASS                { $$ = NODE(AST_PASS, @$); SEAL($$); }
  | BREAK               { $$ = NODE(AST_BREAK, @$); SEAL($$); }
  | CONTINUE            { $$ = NODE(AST_CONTINUE, @$); SEAL($$); }
  | RETURN              { $$ = tx_p_stmt1(ps, AST_RETURN, NULL, @$); }
  | RETURN tlist        { $$ = tx_p_stmt1(ps, AST_RETURN, $2, @$); }
  | GLOBAL name_seq     { $$ = NODE(AST_GLOBAL, @$); $$->u.global.names = FINISH($2); SEAL($$); }
  | ASSERT test         { $$ = NODE(AST_ASSERT, @$); $$->u.assert_.test = $2; SEAL($$); }
  | ASSERT test ',' test {
      $$ = NODE(AST_ASSERT, @$);
      $$->u.assert_.test = $2;
      $$->u.assert_.msg = $4;
      SEAL($$);
    }
  | import_stmt
  ;

expr_stmt:
    tlist                       { $$ = tx_p_stmt1(ps, AST_EXPR_STMT, $1, @$); }
  | tlist ':' test              { $$ = tx_p_annassign(ps, $1, $3, NULL, @$); }
  | tlist ':' test '=' tlist    { $$ = tx_p_annassign(ps, $1, $3, $5, @$); }
  | tlist AUGASSIGN tlist       { $$ = tx_p_augassign(ps, $1, $2, $3, @$); }
  | assign_chain                { $$ = tx_p_assign(ps, $1, @$); }
  ;

assign_chain:
    tlist '=' tlist             { $$ = tx_pl_one(ps, $1); tx_pl_push(ps, &$$, $3, 0); }
  | assign_chain '=' tlist      { $$ = $1; tx_pl_push(ps, &$$, $3, 0); }
  ;

name_seq:
    NAME                        { $$ = tx_pl_one(ps, tx_p_name(ps, $1, @1)); }
  | name_seq ',' NAME           { $$ = $1; tx_pl_push(ps, &$$, tx_p_name(ps, $3, @3), 0); }
  ;

/* ---- imports ---- */

import_stmt:
    IMPORT dotted_as_names {
      $$ = NODE(AST_IMPORT, @$);
      $$->u.import.names = FINISH($2);
      SEAL($$);
    }
  | FROM from_mod IMPORT from_targets {
      $$ = $2;
      $$->span = tx_p_span(ps, @$);
      $$->u.import.names = FINISH($4);
      SEAL($$);
    }
  ;

dotted_as_names:
    dotted_as_name                      { $$ = tx_pl_one(ps, $1); }
  | dotted_as_names ',' dotted_as_name  { $$ = $1; tx_pl_push(ps, &$$, $3, 0); }
  ;

dotted_as_name:
    dotted_name             { $$ = tx_p_alias(ps, tx_p_dotted(ps, $1), NULL, @$); }
  | dotted_name AS NAME     { $$ = tx_p_alias(ps, tx_p_dotted(ps, $1), $3, @$); }
  ;

dotted_name:
    NAME                    { $$ = tx_pl_one(ps, tx_p_name(ps, $1, @1)); }
  | dotted_name '.' NAME    { $$ = $1; tx_pl_push(ps, &$$, tx_p_name(ps, $3, @3), 0); }
  ;

from_mod:
    dotted_name             { $$ = tx_p_import_from(ps, tx_p_dotted(ps, $1), 0); }
  | dots dotted_name        { $$ = tx_p_import_from(ps, tx_p_dotted(ps, $2), $1); }
  | dots                    { $$ = tx_p_import_from(ps, NULL, $1); }
  ;

dots:
    '.'                     { $$ = 1; }
  | ELLIPSIS                { $$ = 3; }
  | dots '.'                { $$ = $1 < 1000 ? $1 + 1 : $1; }
  | dots ELLIPSIS           { $$ = $1 < 1000 ? $1 + 3 : $1; }
  ;

from_targets:
    '*'                         { $$ = tx_pl_one(ps, tx_p_alias(ps, tx_p_intern(ps, "*", 1),
                                                                NULL, @1)); }
  | '(' import_names ')'        { $$ = $2; }
  | '(' import_names ',' ')'    { $$ = $2; }
  | import_names                { $$ = $1; }
  ;

import_names:
    import_name                     { $$ = tx_pl_one(ps, $1); }
  | import_names ',' import_name    { $$ = $1; tx_pl_push(ps, &$$, $3, 0); }
  ;

import_name:
    NAME                    { $$ = tx_p_alias(ps, $1, NULL, @$); }
  | NAME AS NAME            { $$ = tx_p_alias(ps, $1, $3, @$); }
  ;

/* ---- compound statements ---- */

compound:
    if_stmt
  | while_stmt
  | for_stmt
  | with_stmt
  | funcdef
  | classdef
  | decorators funcdef      { $$ = tx_p_decorate(ps, $1, $2, @$); }
  | decorators classdef     { $$ = tx_p_decorate(ps, $1, $2, @$); }
  ;

suite:
    simple_line                 { $$ = $1; }
  | NEWLINE INDENT stmts DEDENT { $$ = $3; }
  ;

if_stmt:
    IF test ':' suite else_part { $$ = tx_p_if(ps, AST_IF, $2, $4, $5, @$); }
  ;

else_part:
    %empty                      { $$ = EMPTY; }
  | ELSE ':' suite              { $$ = $3; }
  | ELIF test ':' suite else_part {
      $$ = tx_pl_one(ps, tx_p_if(ps, AST_IF, $2, $4, $5, @$));
    }
  ;

opt_else:
    %empty                      { $$ = EMPTY; }
  | ELSE ':' suite              { $$ = $3; }
  ;

while_stmt:
    WHILE test ':' suite opt_else { $$ = tx_p_if(ps, AST_WHILE, $2, $4, $5, @$); }
  ;

for_stmt:
    FOR targets IN tlist ':' suite opt_else { $$ = tx_p_for(ps, $2, $4, $6, $7, @$); }
  ;

targets:
    eseq                        { $$ = tx_p_tuple_or_item(ps, $1, 0, @$); }
  | eseq ','                    { $$ = tx_p_tuple_or_item(ps, $1, 1, @$); }
  ;

eseq:
    expr_se                     { $$ = tx_pl_one(ps, $1); }
  | eseq ',' expr_se            { $$ = $1; tx_pl_push(ps, &$$, $3, 0); }
  ;

expr_se:
    expr
  | star_expr
  ;

with_stmt:
    WITH with_items ':' suite {
      $$ = NODE(AST_WITH, @$);
      $$->u.with.items = FINISH($2);
      $$->u.with.body = FINISH($4);
      SEAL($$);
    }
  ;

with_items:
    with_item                   { $$ = tx_pl_one(ps, $1); }
  | with_items ',' with_item    { $$ = $1; tx_pl_push(ps, &$$, $3, 0); }
  ;

with_item:
    test {
      $$ = NODE(AST_WITHITEM, @$);
      $$->u.withitem.context = $1;
      SEAL($$);
    }
  | test AS expr {
      $$ = NODE(AST_WITHITEM, @$);
      tx_p_check_target(ps, $3, "'with' target");
      $$->u.withitem.context = $1;
      $$->u.withitem.target = $3;
      SEAL($$);
    }
  ;

decorators:
    decorator                   { $$ = tx_pl_one(ps, $1); }
  | decorators decorator        { $$ = $1; tx_pl_push(ps, &$$, $2, 0); }
  ;

decorator:
    '@' test NEWLINE            { $$ = $2; }
  ;

funcdef:
    DEF NAME opt_tparams '(' ')' ret_ann ':' suite {
      $$ = tx_p_funcdef(ps, $2, $3, EMPTY, $6, $8, @$);
    }
  | DEF NAME opt_tparams '(' params ')' ret_ann ':' suite {
      $$ = tx_p_funcdef(ps, $2, $3, $5, $7, $9, @$);
    }
    /* Not Python: TVM prints a PrimFunc without a name (a closure's) as
       `def (A: ...):`; read as a function named "" so the print round-trips. */
  | DEF '(' ')' ret_ann ':' suite        { $$ = tx_p_funcdef(ps, "", EMPTY, EMPTY, $4, $6, @$); }
  | DEF '(' params ')' ret_ann ':' suite { $$ = tx_p_funcdef(ps, "", EMPTY, $3, $5, $7, @$); }
  ;

    /* PEP 695 type parameters, read as AST_PARAMs (a bound is the annotation,
       a PEP 696 default the default value): the tirx dialect declares a
       function's symbolic shape variables with them (dialect_tirx.c says which
       forms mean something). */
opt_tparams:
    %empty                  { $$ = EMPTY; }
  | '[' tparam_seq ']'      { $$ = $2; }
  | '[' tparam_seq ',' ']'  { $$ = $2; }
  ;

tparam_seq:
    tparam                  { $$ = tx_pl_one(ps, $1); }
  | tparam_seq ',' tparam   { $$ = $1; tx_pl_push(ps, &$$, $3, 0); }
  ;

tparam:
    NAME opt_ann            { $$ = tx_p_param(ps, $1, PARAM_NORMAL, $2, NULL, @$); }
  | NAME opt_ann '=' test   { $$ = tx_p_param(ps, $1, PARAM_NORMAL, $2, $4, @$); }
  | '*' NAME                { $$ = tx_p_param(ps, $2, PARAM_VARARGS, NULL, NULL, @$); }
  | POW NAME                { $$ = tx_p_param(ps, $2, PARAM_KWARGS, NULL, NULL, @$); }
  ;

ret_ann:
    %empty          { $$ = NULL; }
  | ARROW test      { $$ = $2; }
  ;

params:
    param_seq       { $$ = $1; }
  | param_seq ','   { $$ = $1; }
  ;

param_seq:
    param                   { $$ = tx_pl_one(ps, $1); }
  | param_seq ',' param     { $$ = $1; tx_pl_push(ps, &$$, $3, 0); }
  ;

param:
    NAME opt_ann            { $$ = tx_p_param(ps, $1, PARAM_NORMAL, $2, NULL, @$); }
  | NAME opt_ann '=' test   { $$ = tx_p_param(ps, $1, PARAM_NORMAL, $2, $4, @$); }
  | '*'                     { $$ = tx_p_param(ps, NULL, PARAM_STAR, NULL, NULL, @$); }
  | '*' NAME opt_ann        { $$ = tx_p_param(ps, $2, PARAM_VARARGS, $3, NULL, @$); }
  | POW NAME opt_ann        { $$ = tx_p_param(ps, $2, PARAM_KWARGS, $3, NULL, @$); }
  | '/'                     { $$ = tx_p_param(ps, NULL, PARAM_SLASH, NULL, NULL, @$); }
  ;

opt_ann:
    %empty          { $$ = NULL; }
  | ':' test        { $$ = $2; }
  ;

classdef:
    CLASS NAME ':' suite                    { $$ = tx_p_classdef(ps, $2, NULL, $4, @$); }
  | CLASS NAME '(' arglist ')' ':' suite    { $$ = tx_p_classdef(ps, $2, $4, $7, @$); }
  ;

/* ---- expressions ---- */

tlist:
    tseq            { $$ = tx_p_tuple_or_item(ps, $1, 0, @$); }
  | tseq ','        { $$ = tx_p_tuple_or_item(ps, $1, 1, @$); }
  ;

tseq:
    test_se             { $$ = tx_pl_one(ps, $1); }
  | tseq ',' test_se    { $$ = $1; tx_pl_push(ps, &$$, $3, 0); }
  ;

test_se:
    test
  | star_expr
  ;

star_expr:
    '*' expr        { $$ = tx_p_starred(ps, $2, @$); }
  ;

/* Python's layers (or_test > and_test > not_test > comparison > expr) are
 * kept for the operands of the boolean operators, but `test` derives each
 * layer's operator forms directly: a plain operand (by far the most common
 * test) then costs one reduction expr -> test instead of a chain of six
 * unit reductions. Same language and same trees: `(a or b) or c` still
 * nests, since a parenthesized operand is one expr (a bracketed atom). */
test:
    expr
  | expr comp_chain     { $$ = tx_p_compare(ps, $1, $2, @$); }
  | NOT not_test        { $$ = tx_p_unop(ps, UNOP_NOT, $2, @$); }
  | and_seq             { $$ = tx_p_boolop(ps, 1, $1, @$); }
  | or_seq              { $$ = tx_p_boolop(ps, 0, $1, @$); }
  | or_test IF or_test ELSE test {
      $$ = NODE(AST_IFEXP, @$);
      $$->u.ifexp.body = $1;
      $$->u.ifexp.test = $3;
      $$->u.ifexp.orelse = $5;
      SEAL($$);
    }
  | lambdef
  ;

lambdef:
    LAMBDA ':' test {
      $$ = NODE(AST_LAMBDA, @$);
      $$->u.lambda.body = $3;
      SEAL($$);
    }
  | LAMBDA lparams ':' test {
      $$ = NODE(AST_LAMBDA, @$);
      $$->u.lambda.params = FINISH($2);
      tx_p_check_params(ps, $$->u.lambda.params);
      $$->u.lambda.body = $4;
      SEAL($$);
    }
  ;

lparams:
    lparam_seq          { $$ = $1; }
  | lparam_seq ','      { $$ = $1; }
  ;

lparam_seq:
    lparam                  { $$ = tx_pl_one(ps, $1); }
  | lparam_seq ',' lparam   { $$ = $1; tx_pl_push(ps, &$$, $3, 0); }
  ;

lparam:
    NAME                { $$ = tx_p_param(ps, $1, PARAM_NORMAL, NULL, NULL, @$); }
  | NAME '=' test       { $$ = tx_p_param(ps, $1, PARAM_NORMAL, NULL, $3, @$); }
  | '*'                 { $$ = tx_p_param(ps, NULL, PARAM_STAR, NULL, NULL, @$); }
  | '*' NAME            { $$ = tx_p_param(ps, $2, PARAM_VARARGS, NULL, NULL, @$); }
  | POW NAME            { $$ = tx_p_param(ps, $2, PARAM_KWARGS, NULL, NULL, @$); }
  | '/'                 { $$ = tx_p_param(ps, NULL, PARAM_SLASH, NULL, NULL, @$); }
  ;

or_test:
    and_test
  | or_seq              { $$ = tx_p_boolop(ps, 0, $1, @$); }
  ;

or_seq:
    and_test OR and_test    { $$ = tx_pl_one(ps, $1); tx_pl_push(ps, &$$, $3, 0); }
  | or_seq OR and_test      { $$ = $1; tx_pl_push(ps, &$$, $3, 0); }
  ;

and_test:
    not_test
  | and_seq             { $$ = tx_p_boolop(ps, 1, $1, @$); }
  ;

and_seq:
    not_test AND not_test   { $$ = tx_pl_one(ps, $1); tx_pl_push(ps, &$$, $3, 0); }
  | and_seq AND not_test    { $$ = $1; tx_pl_push(ps, &$$, $3, 0); }
  ;

not_test:
    NOT not_test        { $$ = tx_p_unop(ps, UNOP_NOT, $2, @$); }
  | comparison
  ;

comparison:
    expr
  | expr comp_chain     { $$ = tx_p_compare(ps, $1, $2, @$); }
  ;

comp_chain:
    comp_op expr            { $$ = EMPTY; tx_pl_push(ps, &$$, $2, $1); }
  | comp_chain comp_op expr { $$ = $1; tx_pl_push(ps, &$$, $3, $2); }
  ;

comp_op:
    '<'         { $$ = CMP_LT; }
  | '>'         { $$ = CMP_GT; }
  | EQ          { $$ = CMP_EQ; }
  | NE          { $$ = CMP_NE; }
  | LE          { $$ = CMP_LE; }
  | GE          { $$ = CMP_GE; }
  | IN          { $$ = CMP_IN; }
  | NOT IN      { $$ = CMP_NOT_IN; }
  | IS          { $$ = CMP_IS; }
  | IS NOT      { $$ = CMP_IS_NOT; }
  ;

/* The arithmetic levels, the postfix forms (Python's `primary`) and the
 * atoms are one nonterminal with precedence declarations (see the prologue
 * of the grammar) instead of Python's ten layered rules: same trees, and a
 * name or literal becomes an expr in one reduction. */
expr:
    NAME            { $$ = tx_p_name(ps, $1, @$); }
  | INT             { $$ = $1; }
  | FLOAT           { $$ = $1; }
  | strings         { $$ = tx_p_concat_strings(ps, $1, @$); }
  | NONE            { $$ = tx_p_const(ps, AST_NONE, @$); }
  | TRUE            { $$ = tx_p_const(ps, AST_TRUE, @$); }
  | FALSE           { $$ = tx_p_const(ps, AST_FALSE, @$); }
  | ELLIPSIS        { $$ = tx_p_const(ps, AST_ELLIPSIS, @$); }
  | expr '|' expr          { $$ = tx_p_binop(ps, BINOP_BITOR, $1, $3, @$); }
  | expr '^' expr          { $$ = tx_p_binop(ps, BINOP_BITXOR, $1, $3, @$); }
  | expr '&' expr          { $$ = tx_p_binop(ps, BINOP_BITAND, $1, $3, @$); }
  | expr LSHIFT expr       { $$ = tx_p_binop(ps, BINOP_LSHIFT, $1, $3, @$); }
  | expr RSHIFT expr       { $$ = tx_p_binop(ps, BINOP_RSHIFT, $1, $3, @$); }
  | expr '+' expr          { $$ = tx_p_binop(ps, BINOP_ADD, $1, $3, @$); }
  | expr '-' expr          { $$ = tx_p_binop(ps, BINOP_SUB, $1, $3, @$); }
  | expr '*' expr          { $$ = tx_p_binop(ps, BINOP_MUL, $1, $3, @$); }
  | expr '/' expr          { $$ = tx_p_binop(ps, BINOP_DIV, $1, $3, @$); }
  | expr '%' expr          { $$ = tx_p_binop(ps, BINOP_MOD, $1, $3, @$); }
  | expr FLOORDIV expr     { $$ = tx_p_binop(ps, BINOP_FLOORDIV, $1, $3, @$); }
  | expr '@' expr          { $$ = tx_p_binop(ps, BINOP_MATMUL, $1, $3, @$); }
  | '+' expr %prec UNARY   { $$ = tx_p_unop(ps, UNOP_POS, $2, @$); }
  | '-' expr %prec UNARY   { $$ = tx_p_unop(ps, UNOP_NEG, $2, @$); }
  | '~' expr %prec UNARY   { $$ = tx_p_unop(ps, UNOP_INVERT, $2, @$); }
    /* ** binds tighter than a unary operator on its left, looser on its
     * right, and groups to the right: -a**-b**c is -(a**(-(b**c))). */
  | expr POW expr          { $$ = tx_p_binop(ps, BINOP_POW, $1, $3, @$); }
  | expr '.' NAME {
      $$ = NODE(AST_ATTR, @$);
      $$->u.attr.value = $1;
      $$->u.attr.attr = $3;
      SEAL($$);
    }
  | expr '(' arglist ')'     { $$ = tx_p_call(ps, $1, $3, @$); }
  | expr '[' subscripts ']' {
      $$ = NODE(AST_SUBSCRIPT, @$);
      $$->u.subscript.value = $1;
      $$->u.subscript.index = $3;
      SEAL($$);
    }
  | '(' ')'         { $$ = tx_p_seq(ps, AST_TUPLE, EMPTY, @$); }
  | '(' tseq ')'    {
      /* (x) is x itself; the parentheses only group. */
      $$ = $2.len == 1 ? tx_p_tuple_or_item(ps, $2, 0, @$) : tx_p_seq(ps, AST_TUPLE, $2, @$);
    }
  | '(' tseq ',' ')'    { $$ = tx_p_seq(ps, AST_TUPLE, $2, @$); }
  | '[' ']'             { $$ = tx_p_seq(ps, AST_LIST, EMPTY, @$); }
  | '[' tseq ']'        { $$ = tx_p_seq(ps, AST_LIST, $2, @$); }
  | '[' tseq ',' ']'    { $$ = tx_p_seq(ps, AST_LIST, $2, @$); }
  | '{' '}'             { $$ = NODE(AST_DICT, @$); SEAL($$); }
  | '{' dict_items '}' {
      $$ = NODE(AST_DICT, @$);
      $$->u.dict.keys = FINISH($2->args);
      $$->u.dict.values = FINISH($2->keywords);
      SEAL($$);
    }
  | '{' dict_items ',' '}' {
      $$ = NODE(AST_DICT, @$);
      $$->u.dict.keys = FINISH($2->args);
      $$->u.dict.values = FINISH($2->keywords);
      SEAL($$);
    }
  ;

arglist:
    %empty          { $$ = NULL; }
  | args            { $$ = $1; }
  | args ','        { $$ = $1; }
  ;

args:
    arg             { $$ = tx_p_args_new(ps); tx_p_args_add(ps, $$, $1); }
  | args ',' arg    { $$ = $1; tx_p_args_add(ps, $$, $3); }
  ;

arg:
    test
  | test '=' test {
      const char *name = NULL;
      if ($1->kind == AST_NAME)
        name = $1->u.name.id;
      else
        tx_p_error(ps, @1, "expression cannot contain assignment, perhaps you meant \"==\"?");
      $$ = tx_p_keyword(ps, name, $3, @$);
    }
  | '*' test        { $$ = tx_p_starred(ps, $2, @$); }
  | POW test        { $$ = tx_p_keyword(ps, NULL, $2, @$); }
  ;

subscripts:
    subseq          { $$ = tx_p_tuple_or_item(ps, $1, 0, @$); }
  | subseq ','      { $$ = tx_p_tuple_or_item(ps, $1, 1, @$); }
  ;

subseq:
    subitem             { $$ = tx_pl_one(ps, $1); }
  | subseq ',' subitem  { $$ = $1; tx_pl_push(ps, &$$, $3, 0); }
  ;

subitem:
    test
  | star_expr
  | opt_test ':' opt_test opt_step  { $$ = tx_p_slice(ps, $1, $3, $4, @$); }
  ;

opt_test:
    %empty          { $$ = NULL; }
  | test
  ;

opt_step:
    %empty          { $$ = NULL; }
  | ':' opt_test    { $$ = $2; }
  ;

/* keys in ->args, values in ->keywords; a NULL key is a **mapping. */
dict_items:
    test ':' test {
      $$ = tx_p_args_new(ps);
      tx_pl_push(ps, &$$->args, $1, 1);
      tx_pl_push(ps, &$$->keywords, $3, 0);
    }
  | POW expr {
      $$ = tx_p_args_new(ps);
      tx_pl_push(ps, &$$->args, NULL, 1);
      tx_pl_push(ps, &$$->keywords, $2, 0);
    }
  | dict_items ',' test ':' test {
      $$ = $1;
      tx_pl_push(ps, &$$->args, $3, 1);
      tx_pl_push(ps, &$$->keywords, $5, 0);
    }
  | dict_items ',' POW expr {
      $$ = $1;
      tx_pl_push(ps, &$$->args, NULL, 1);
      tx_pl_push(ps, &$$->keywords, $4, 0);
    }
  ;

strings:
    STRING              { $$ = tx_pl_one(ps, $1); }
  | strings STRING      { $$ = $1; tx_pl_push(ps, &$$, $2, 0); }
  ;

%%

/* "'('" for a character token; the alias without its double quotes else. */
static void tx_describe(yysymbol_kind_t kind, char *buf, size_t cap) {
  if (kind == YYSYMBOL_YYEOF) {
    snprintf(buf, cap, "end of file");
    return;
  }
  const char *name = yysymbol_name(kind);
  size_t n = strlen(name);
  if (n >= 2 && name[0] == '"' && name[n - 1] == '"')
    snprintf(buf, cap, "%.*s", (int)(n - 2), name + 1);
  else
    snprintf(buf, cap, "%s", name);
}

/* The unexpected token as the user wrote it: "name 'x'", "'('", ... */
static void tx_describe_lookahead(const tx_pstate *ps, yysymbol_kind_t kind, char *buf,
                                  size_t cap) {
  const char *what = NULL;
  switch (kind) {
  case YYSYMBOL_NAME: what = "name"; break;
  case YYSYMBOL_INT:
  case YYSYMBOL_FLOAT: what = "number"; break;
  case YYSYMBOL_STRING: what = "string"; break;
  default: break;
  }
  if (what && ps->tok_text) {
    int n = ps->tok_len > 40 ? 40 : (int)ps->tok_len;
    snprintf(buf, cap, "%s '%.*s%s'", what, n, ps->tok_text, ps->tok_len > 40 ? "..." : "");
    return;
  }
  tx_describe(kind, buf, cap);
}

static const char *tx_block_owner(int tok) {
  switch (tok) {
  case TK_IF: return "'if' statement";
  case TK_ELIF: return "'elif' statement";
  case TK_ELSE: return "'else' statement";
  case TK_FOR: return "'for' statement";
  case TK_WHILE: return "'while' statement";
  case TK_WITH: return "'with' statement";
  case TK_DEF: return "function definition";
  case TK_CLASS: return "class definition";
  default: return NULL;
  }
}

static int yyreport_syntax_error(const yypcontext_t *ctx, tx_pstate *ps) {
  yysymbol_kind_t la = yypcontext_token(ctx);
  tx_loc loc = *yypcontext_location(ctx);
  /* Muted after a fatal error; a lexer error was reported by the lexer. */
  int muted = ps->stop || la == YYSYMBOL_LEXERROR;
  ps->recovering = 1;
  /* A block after a broken line (e.g. an 'if' header without ':') is
   * fallout, not a second "unexpected indent" (see txpy_lex). */
  if (la == YYSYMBOL_NEWLINE) ps->suppress_indent_error = 1;
  if (muted) return 0;

  enum { MAX_EXPECTED = 64 };
  yysymbol_kind_t expected[MAX_EXPECTED];
  int n = yypcontext_expected_tokens(ctx, expected, MAX_EXPECTED);
  if (n < 0) n = 0; /* LAC ran out of memory: report without the list */
  int want_colon = 0, want_indent = 0, want_eq = 0;
  for (int i = 0; i < n; i++) {
    if (expected[i] == YYTRANSLATE(':')) want_colon = 1;
    if (expected[i] == YYSYMBOL_INDENT) want_indent = 1;
    if (expected[i] == YYSYMBOL_EQ) want_eq = 1;
  }

  switch (la) {
  case YYSYMBOL_INDENT:
    tx_p_error(ps, loc, "unexpected indent");
    return 0;
  case YYSYMBOL_UNSUPPORTED:
    tx_p_error(ps, loc, "'%.*s' is not supported", (int)ps->tok_len,
               ps->tok_text ? ps->tok_text : "");
    return 0;
  case YYSYMBOL_COLONEQ:
    tx_p_error(ps, loc, "assignment expressions (':=') are not supported");
    return 0;
  case YYSYMBOL_FOR:
    if (ps->paren_depth > 0) {
      tx_p_error(ps, loc, "comprehensions are not supported");
      return 0;
    }
    break;
  default: break;
  }
  if (want_indent && la != YYSYMBOL_INDENT) {
    const char *owner = tx_block_owner(ps->prev_line_first_tok);
    if (owner)
      tx_p_error(ps, loc, "expected an indented block after %s on line %u", owner,
                 (unsigned)ps->prev_line_first_line);
    else
      tx_p_error(ps, loc, "expected an indented block");
    return 0;
  }
  if (want_colon && (la == YYTRANSLATE('}') ||
                     (la == YYTRANSLATE(',') && ps->paren_depth > 0 &&
                      ps->paren_char[ps->paren_depth - 1] == '{'))) {
    tx_p_error(ps, loc, "set literals are not supported");
    return 0;
  }
  int in_condition = ps->line_first_tok == TK_IF || ps->line_first_tok == TK_ELIF ||
                     ps->line_first_tok == TK_WHILE;
  if (la == YYTRANSLATE('=') && want_eq && in_condition) {
    tx_p_error(ps, loc, "invalid syntax: maybe you meant '==' instead of '='?");
    return 0;
  }
  if (want_colon && (la == YYSYMBOL_NEWLINE || n <= 2)) {
    tx_p_error(ps, loc, "expected ':'");
    return 0;
  }

  char unexpected[96], msg[512];
  tx_describe_lookahead(ps, la, unexpected, sizeof unexpected);
  int len = snprintf(msg, sizeof msg, "syntax error: unexpected %s", unexpected);
  /* Long lists of alternatives help nobody; name them when there are few. */
  if (n > 0 && n <= 4) {
    for (int i = 0; i < n && len > 0 && (size_t)len < sizeof msg; i++) {
      char tok[64];
      tx_describe(expected[i], tok, sizeof tok);
      len += snprintf(msg + len, sizeof msg - (size_t)len, "%s%s",
                      i == 0 ? ", expecting " : i == n - 1 ? " or " : ", ", tok);
    }
  }
  tx_p_error(ps, loc, "%s", msg);
  return 0;
}

/* Only reached for "memory exhausted": the parser stack hit YYMAXDEPTH.
 * (bison reports a failed stack malloc the same way; with the tiny stack
 * elements used here that means the process is out of memory, which the
 * arena would notice next anyway.) */
static void yyerror(YYLTYPE *loc, tx_pstate *ps, const char *msg) {
  (void)msg;
  tx_p_depth_error(ps, *loc);
}
