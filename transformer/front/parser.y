/* parser.y: a bison grammar for C11, the GNU C found in real code and system
 * headers, and the three words coroutine, yield and await.
 *
 * How it is used (docs/design.md):
 *  1. The whole translation unit, as the preprocessor expanded it, is parsed
 *     once. That is what the compiler will see, so every typedef name from
 *     every header is known and every syntax error is found.
 *  2. Each coroutine is parsed a second time, from the user's own tokens with
 *     macros unexpanded, because the output is made of those. That parse
 *     runs nested, at the moment the first one reaches the coroutine, so the
 *     scopes (and the typedef names in them) are exactly those of its place.
 *
 * Telling `T * x;` (a declaration) from `a * b;` (a product) is the classic
 * "lexer hack": the token hook (lexhook.c) asks scope.c what an
 * identifier names. A typedef
 * name can still be declared again as an ordinary name (`int T;` in an inner
 * scope): specifiers are split into those that already have a type (after
 * which a TYPEDEF_NAME can only be the name being declared) and those that
 * do not yet.
 *
 * Actions are short: they call ast.c constructors with the token range @$,
 * and the C of build.c, external.c and syntax_error.c (parse.h says what
 * each holds; entry.c runs the file parse). What stays here needs bison's
 * own: the grammar, the nested second parse (it runs the grammar again),
 * and the report of a syntax error (what the parser could have taken).
 */
%code requires {
#include "front/parse.h"  /* the parser's state (Parser), and the C its actions call */
#include "stream.h"       /* parse_source_each, the streaming run's parse */
}

%code provides {
/* lexhook.c: the parser's token hook. It hands bison the next token: a
   keyword, a typedef name or an identifier as the scopes say, an
   __attribute__ or __asm__ group as one token, a type-like macro's words. */
int next_token(YYSTYPE *lval, Loc *lloc, Parser *p);
}

%code {
#include <stdlib.h>
#include <string.h>

/* How deep the parser's stack may grow: input nested deeper (hundreds of
   thousands of `(`, `-` or `?:` in a row) is refused with a message naming
   this limit (docs/limitations.md), where bison would say "memory
   exhausted". Left-leaning chains (`x + x + ... + x`) keep the stack low. */
#define YYMAXDEPTH COROC_MAX_NESTING
/* The stack is coroc's memory, so that the fuzz build gets it back when an
   error leaves the parse halfway (memory.c). */
#define YYMALLOC(size) xrealloc(NULL, size)
#define YYFREE xfree

#define yylex next_token  /* the token hook, lexhook.c */

/* The range of a rule: from its first symbol to its last; an empty rule is
   an empty range just after what came before. */
#define YYLLOC_DEFAULT(Cur, Rhs, N)                      \
  do {                                                   \
    if (N) {                                             \
      (Cur).first = YYRHSLOC(Rhs, 1).first;              \
      (Cur).last = YYRHSLOC(Rhs, N).last;                \
    } else {                                             \
      (Cur).first = YYRHSLOC(Rhs, 0).last + 1;           \
      (Cur).last = YYRHSLOC(Rhs, 0).last;                \
    }                                                    \
  } while (0)

#define TOK(i) (&p->toks->v[(i)])
#define NEW(kind, loc) new_node(kind, (loc).first, (loc).last)
#define EXPR(loc, op) expr_node((loc), (op), NULL, NULL, NULL)

static void coroutine_found(Parser *p, Node *specs, Node *decl_or_def, bool is_def, Loc loc);
}

/* Every %define with its reason: */
%define api.pure full              /* no globals: the coroutine parse runs nested in the file parse */
%define api.value.type union       /* each symbol's C type is declared with it */
%define api.token.prefix {T_}      /* token codes T_IDENTIFIER... do not clash with our names */
%define api.location.type {Loc}    /* a location is a range of token indices */
%define parse.error custom         /* "expected ';' before 'x'", in the project's one format */
%define parse.trace                /* COROC_TRACE=1 in the environment turns tracing on */
%locations
%param {Parser *p}
%expect 0                          /* the dangling else is settled by %precedence IFX < ELSE */

%token <Token *> IDENTIFIER TYPEDEF_NAME NUMBER CHAR STRING
%token <Token *> ATTRIBUTE "__attribute__" ASM "__asm__" PRAGMA "_Pragma"
%token <Token *> LOOP_MACRO "a macro that heads a loop" LOOP_MACRO_CALL "a use of a macro that heads a loop"
%token <Token *> RAW_MACRO "a macro's use whose arguments are not C"
%token <Token *> BLOCK_MACRO "a macro that opens or closes a block"
%token START_COROUTINE
%token SKIPPED_BODY "a coroutine's body"
%token ARROW "->" INC "++" DEC "--" SHL "<<" SHR ">>" LE "<=" GE ">=" EQ "==" NE "!="
%token ANDAND "&&" OROR "||" ELLIPSIS "..."
%token MUL_ASSIGN "*=" DIV_ASSIGN "/=" MOD_ASSIGN "%=" ADD_ASSIGN "+=" SUB_ASSIGN "-="
%token SHL_ASSIGN "<<=" SHR_ASSIGN ">>=" AND_ASSIGN "&=" XOR_ASSIGN "^=" OR_ASSIGN "|="
%token STRAY "stray character"
%token <Token *> TYPEDEF "typedef" EXTERN "extern" STATIC "static" AUTO "auto" REGISTER "register"
%token <Token *> THREAD_LOCAL "_Thread_local" INLINE "inline" NORETURN "_Noreturn"
%token <Token *> CONST "const" VOLATILE "volatile" RESTRICT "restrict" ATOMIC "_Atomic"
%token <Token *> NULLABILITY "_Nonnull"
%token <Token *> VOID "void" CHAR_KW "char" SHORT "short" INT "int" LONG "long" FLOAT "float"
%token <Token *> DOUBLE "double" SIGNED "signed" UNSIGNED "unsigned" BOOL "_Bool"
%token <Token *> COMPLEX "_Complex" IMAGINARY "_Imaginary" INT128 "__int128" FLOATN "_Float128"
%token <Token *> BUILTIN_VA_LIST "__builtin_va_list" AUTO_TYPE "__auto_type"
%token <Token *> STRUCT "struct" UNION "union" ENUM "enum"
%token <Token *> ALIGNAS "_Alignas" ALIGNOF "_Alignof" SIZEOF "sizeof" TYPEOF "typeof"
%token <Token *> STATIC_ASSERT "_Static_assert" GENERIC "_Generic" EXTENSION "__extension__"
%token <Token *> LABEL "__label__" REAL "__real__" IMAG "__imag__"
%token <Token *> OFFSETOF "__builtin_offsetof" VA_ARG "__builtin_va_arg"
%token <Token *> TYPES_COMPATIBLE "__builtin_types_compatible_p"
%token <Token *> IF "if" ELSE "else" SWITCH "switch" WHILE "while" DO "do" FOR "for"
%token <Token *> GOTO "goto" CONTINUE "continue" BREAK "break" RETURN "return"
%token <Token *> CASE "case" DEFAULT "default"
%token <Token *> COROUTINE "coroutine" YIELD "yield" AWAIT "await"

%nterm <Node *> translation_unit external_declaration function_definition declaration
%nterm <Node *> decl_specs specs_b specs_t nts nt bt ct storage_class qualifier qualifiers
%nterm <Node *> struct_or_union_spec enum_spec struct_decls_opt struct_decls struct_decl struct_declarators
%nterm <Node *> struct_declarator enumerators enumerator alignment_spec typeof_spec
%nterm <Node *> init_declarators init_declarator declarator_reg declarator direct_declarator
%nterm <Node *> pdeclarator pdirect_declarator decl_suffix
%nterm <Node *> pointer abstract_declarator direct_abstract params param_list param_decl
%nterm <Node *> type_name initializer init_list designation designators designator
%nterm <Node *> statement plain_statement compound_statement block_items block_item labeled_statement
%nterm <Node *> label labeled_declaration trailing_labels nested_function
%nterm <Node *> expression_statement selection_statement iteration_statement jump_statement
%nterm <Node *> yield_statement asm_statement label_decl for_init static_assert
%nterm <Node *> expr expr_opt assign_expr const_expr binary_expr cast_expr unary_expr
%nterm <Node *> postfix_expr args generic_assocs generic_assoc strings
%nterm <Node *> attrs attrs_opt asm_attrs offsetof_member
%nterm <int> assign_op unary_op
%nterm <Node *> body_start kr_declaration kr_specs kr_specs_b kr_specs_t kr_nts nt_plain
%nterm <Node *> implicit_specs no_specs implicit_declarators declarator_reg_p kr_implicit ideclarator idirect_declarator
%nterm <Node *> implicit_members if_else member_specs

%precedence IFX
%precedence ELSE
/* binary_expr's operators, the loosest first (C11 6.5.5-6.5.15) */
%right '?'
%left OROR
%left ANDAND
%left '|'
%left '^'
%left '&'
%left EQ NE
%left '<' '>' LE GE
%left SHL SHR
%left '+' '-'
%left '*' '/' '%'

%start start

%%

start
  : translation_unit                 { p->unit = NULL; }
  | %empty                           { p->unit = NEW(ND_TRANSLATION_UNIT, @$); }
  | START_COROUTINE function_definition { p->unit = $2; }
  | START_COROUTINE declaration      { p->unit = $2; }
  ;

/* Only the file parse reads a translation unit; it keeps no tree of it
   (external_done). */
translation_unit
  : external_declaration             { external_done(p, @1); $$ = NULL; }
  | translation_unit external_declaration { external_done(p, @2); $$ = NULL; }
  ;

external_declaration
  : function_definition
  | declaration
  | no_specs implicit_declarators ';' { $$ = decl_end(p, $1, $2, @$); }
  | ';'                              { $$ = NEW(ND_EXPR_STMT, @$); }
  | ASM ';'                          { $$ = NEW(ND_ASM_STMT, @$); }
  ;

/* {==================================================================
 * Declarations
 * =================================================================== */

/* The specifiers are remembered while their declarators are parsed, so that
   each declarator knows whether it declares a typedef name. */
declaration
  : decl_specs ';'                             { $$ = NEW(ND_DECL, @$); $$->specs = $1; end_decl(p);
                                                 coroutine_found(p, $1, $$, false, @$); }
  | decl_specs init_declarators ';'            { $$ = decl_end(p, $1, $2, @$); coroutine_found(p, $1, $$, false, @$); }
  | implicit_specs implicit_declarators ';'    { $$ = decl_end(p, $1, $2, @$); }
  | static_assert
  ;

/* Implicit int, which gcc still takes (with a warning): `static x = 1;`,
   `register r;`, `main() { ... }`. Without a type, a typedef name after the
   specifiers would be the type, and `_Atomic (` begins _Atomic(T), so the
   first declarator begins with a name or a '*'. A coroutine needs its
   types: its locals become typed fields. */
implicit_specs
  : nts                                        { if (p->original || ($1->flags & SP_COROUTINE)) refuse_implicit_int(p, @1.first, @1.last + 1);
                                                 begin_decl(p, $1); }
  ;

no_specs
  : %empty                                     { $$ = specs_add(NULL, NULL, 0, @$); begin_decl(p, $$); }
  ;

implicit_declarators
  : declarator_reg_p asm_attrs                 { $$ = node_list(ND_DECL, @$.first, @$.last, $1); }
  | declarator_reg_p asm_attrs '=' initializer { $1->init = $4; $1->last = @$.last; $$ = node_list(ND_DECL, @$.first, @$.last, $1); }
  | implicit_declarators ',' init_declarator   { $$ = node_append($1, $3, @3.last); }
  | implicit_declarators ',' attrs init_declarator { $$ = node_append($1, $4, @4.last); }
  ;

declarator_reg_p
  : ideclarator                                { $$ = NEW(ND_INIT_DECL, @$); $$->declarator = $1; $$->tok = $1->tok; declare(p, $$); }
  ;

ideclarator
  : idirect_declarator
  | pointer direct_declarator                  { $$ = declarator_derive($2, $1, @$); }
  ;

idirect_declarator
  : IDENTIFIER                                 { $$ = declarator_new($1, @$); }
  | idirect_declarator decl_suffix             { $$ = declarator_derive($1, $2, @$); }
  | idirect_declarator ATTRIBUTE               { $$ = $1; @$ = @1; }
  ;

static_assert
  : STATIC_ASSERT '(' const_expr ',' strings ')' ';' { $$ = NEW(ND_STATIC_ASSERT, @$); }
  | STATIC_ASSERT '(' const_expr ')' ';'       { $$ = NEW(ND_STATIC_ASSERT, @$); }
  ;

function_definition
  : decl_specs declarator_reg body_start compound_statement
                                               { $$ = funcdef_end(p, $1, $2, $4, @$); }
  | decl_specs declarator_reg body_start SKIPPED_BODY
                                               { $$ = funcdef_end(p, $1, $2, NULL, @$); }
  | decl_specs declarator_reg kr_start kr_decls compound_statement
                                               { $$ = funcdef_end(p, $1, $2, $5, @$); }
  | implicit_specs declarator_reg_p body_start compound_statement
                                               { $$ = funcdef_end(p, $1, $2, $4, @$); }
  | implicit_specs declarator_reg_p kr_start kr_decls compound_statement
                                               { $$ = funcdef_end(p, $1, $2, $5, @$); }
  | no_specs declarator_reg_p body_start compound_statement
                                               { $$ = funcdef_end(p, $1, $2, $4, @$); }
  | no_specs declarator_reg_p kr_start kr_decls compound_statement
                                               { $$ = funcdef_end(p, $1, $2, $5, @$); }
  ;

/* An old-style definition, `int add(a, b) int a, b; { ... }`: the parameter
   declarations come into the body's scope. A coroutine cannot be one. */
kr_start
  : %empty                                     { begin_kr_params(p, $<Node *>0, @0); }
  ;

kr_decls : kr_declaration | kr_decls kr_declaration ;

/* Its specifiers cannot begin with an attribute: one there belongs to the
   declarator before (`int f(void) __attribute__((x));`). */
kr_declaration
  : kr_specs init_declarators ';'              { $$ = NULL; end_decl(p); }
  | kr_implicit implicit_declarators ';'       { $$ = NULL; end_decl(p); }
  ;

kr_implicit : kr_nts                           { begin_decl(p, $1); } ;

kr_specs
  : kr_specs_b                                 { begin_decl(p, $1); }
  | kr_specs_t                                 { begin_decl(p, $1); }
  ;

kr_specs_b
  : bt                                         { $$ = specs_add(NULL, $1, $1->flags, @$); }
  | kr_nts bt                                  { $$ = specs_add($1, $2, $2->flags, @$); }
  | kr_specs_b bt                              { $$ = specs_add($1, $2, $2->flags, @$); }
  | kr_specs_b nt                              { $$ = specs_add($1, $2, $2->flags, @$); }
  ;

kr_specs_t
  : ct                                         { $$ = specs_add(NULL, $1, $1->flags, @$); }
  | kr_nts ct                                  { $$ = specs_add($1, $2, $2->flags, @$); }
  | kr_specs_t nt                              { $$ = specs_add($1, $2, $2->flags, @$); }
  ;

kr_nts
  : nt_plain                                   { $$ = specs_add(NULL, $1, $1->flags, @$); }
  | kr_nts nt                                  { $$ = specs_add($1, $2, $2->flags, @$); }
  ;

/* Entering a function body: its parameters come into scope. When this is a
   coroutine of the file parse, its second parse runs here. */
body_start
  : %empty                                     { coroutine_found(p, p->specs.v[p->specs.n - 1], $<Node *>0, true, (Loc){@-1.first, @0.last});
                                                 if (body_begin(p, $<Node *>0)) yyclearin; $$ = NULL; }
  ;

/* Declaration specifiers: exactly one type at the core (built-in words like
   `unsigned long`, or one struct/union/enum, typedef name or typeof), with
   storage classes, qualifiers and attributes around it. */
decl_specs
  : specs_b                                    { begin_decl(p, $1); }
  | specs_t                                    { begin_decl(p, $1); }
  ;

specs_b
  : bt                                         { $$ = specs_add(NULL, $1, $1->flags, @$); }
  | attrs bt                                   { $$ = specs_add(specs_add(NULL, $1, 0, @1), $2, $2->flags, @$); }
  | nts bt                                     { $$ = specs_add($1, $2, $2->flags, @$); }
  | specs_b bt                                 { $$ = specs_add($1, $2, $2->flags, @$); }
  | specs_b nt                                 { $$ = specs_add($1, $2, $2->flags, @$); }
  ;

specs_t
  : ct                                         { $$ = specs_add(NULL, $1, $1->flags, @$); }
  | attrs ct                                   { $$ = specs_add(specs_add(NULL, $1, 0, @1), $2, $2->flags, @$); }
  | nts ct                                     { $$ = specs_add($1, $2, $2->flags, @$); }
  | specs_t nt                                 { $$ = specs_add($1, $2, $2->flags, @$); }
  ;

/* Leading attributes are parsed as one `attrs`, the same as those before a
   statement, so that a block item can begin with attributes and only then
   turn out to be a declaration or a statement. */
nts
  : nt_plain                                   { $$ = specs_add(NULL, $1, $1->flags, @$); }
  | attrs nt_plain                             { $$ = specs_add(specs_add(NULL, $1, 0, @1), $2, $2->flags, @$); }
  | nts nt                                     { $$ = specs_add($1, $2, $2->flags, @$); }
  ;

/* a specifier that is not a type */
nt
  : nt_plain
  | ATTRIBUTE                                  { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_ATTRIBUTE; }
  ;

nt_plain
  : storage_class
  | qualifier
  | INLINE                                     { $$ = NEW(ND_SPECIFIER, @$); }
  | NORETURN                                   { $$ = NEW(ND_SPECIFIER, @$); }
  | alignment_spec
  | COROUTINE                                  { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_COROUTINE; $$->tok = $1; }
  ;

storage_class
  : TYPEDEF                                    { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPEDEF; }
  | EXTERN                                     { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_EXTERN; }
  | STATIC                                     { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_STATIC; }
  | AUTO                                       { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_AUTO; }
  | REGISTER                                   { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_REGISTER; }
  | THREAD_LOCAL                               { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_THREAD; }
  ;

qualifier
  : CONST                                      { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_CONST; }
  | VOLATILE                                   { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_VOLATILE; }
  | RESTRICT                                   { $$ = NEW(ND_SPECIFIER, @$); }
  | ATOMIC                                     { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_VOLATILE; }
  | NULLABILITY                                { $$ = NEW(ND_SPECIFIER, @$); }
  ;

/* built-in type words, which combine: unsigned long long int */
bt
  : VOID                                       { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE | SP_VOID; }
  | CHAR_KW                                    { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE; }
  | SHORT                                      { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE; }
  | INT                                        { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE; }
  | LONG                                       { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE; }
  | FLOAT                                      { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE; }
  | DOUBLE                                     { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE; }
  | SIGNED                                     { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE; }
  | UNSIGNED                                   { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE; }
  | BOOL                                       { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE; }
  | COMPLEX                                    { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE; }
  | IMAGINARY                                  { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE; }
  | INT128                                     { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE; }
  | FLOATN                                     { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE; }
  ;

/* a type that stands alone */
ct
  : struct_or_union_spec
  | enum_spec
  | TYPEDEF_NAME                               { $$ = ident(p, $1, @$); $$->flags = SP_TYPE; }
  | BUILTIN_VA_LIST                            { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE | SP_OPAQUE; }
  | AUTO_TYPE                                  { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE | SP_OPAQUE; }
  | typeof_spec
  | ATOMIC '(' type_name ')'                   { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_TYPE | SP_OPAQUE | SP_VOLATILE; }
  ;

typeof_spec
  : TYPEOF '(' expr ')'                        { $$ = NEW(ND_SIZEOF, @$); $$->expr = $3; $$->flags = SP_TYPE; $$->tok = $1; }
  | TYPEOF '(' type_name ')'                   { $$ = NEW(ND_SIZEOF, @$); $$->expr = $3; $$->flags = SP_TYPE; $$->tok = $1; }
  ;

alignment_spec
  : ALIGNAS '(' type_name ')'                  { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_ATTRIBUTE; }
  | ALIGNAS '(' const_expr ')'                 { $$ = NEW(ND_SIZEOF, @$); $$->expr = $3; $$->tok = $1; $$->flags = SP_ATTRIBUTE; }
  ;

struct_or_union_spec
  : STRUCT attrs_opt '{' struct_decls_opt '}'  { $$ = NEW(ND_TAGGED, @$); $$->has_body = true; $$->tok = $1; $$->members = $4; declare_tag(p, $$, true); }
  | UNION attrs_opt '{' struct_decls_opt '}'   { $$ = NEW(ND_TAGGED, @$); $$->has_body = true; $$->tok = $1; $$->members = $4; declare_tag(p, $$, true); }
  | STRUCT attrs_opt tag '{' struct_decls_opt '}' { $$ = NEW(ND_TAGGED, @$); $$->has_body = true; $$->tok = TOK(@3.first); $$->members = $5; declare_tag(p, $$, true); }
  | UNION attrs_opt tag '{' struct_decls_opt '}' { $$ = NEW(ND_TAGGED, @$); $$->has_body = true; $$->tok = TOK(@3.first); $$->members = $5; declare_tag(p, $$, true); }
  | STRUCT attrs_opt tag                       { $$ = NEW(ND_TAGGED, @$); $$->tok = TOK(@3.first); declare_tag(p, $$, false); }
  | UNION attrs_opt tag                        { $$ = NEW(ND_TAGGED, @$); $$->tok = TOK(@3.first); declare_tag(p, $$, false); }
  ;

tag : IDENTIFIER | TYPEDEF_NAME ;

struct_decls_opt : %empty { $$ = NULL; } | struct_decls ;

/* Members are not declared in any scope: they live in their struct. Only a coroutine's parse keeps
   them (ND_TAGGED's members; a bit-field's declarator and width make an ND_DECL of their own). */
struct_decls
  : struct_decl                                { $$ = p->original ? node_list(ND_DECL, @$.first, @$.last, $1) : NULL; }
  | struct_decls struct_decl                   { $$ = $1 ? node_append($1, $2, @2.last) : NULL; }
  ;

struct_decl
  : member_specs struct_declarators ';'        { $$ = $2; if ($$) { $$->specs = $1; $$->first = @$.first; $$->last = @$.last; } }
  | member_specs ';'                           { $$ = NULL; if (p->original) { $$ = NEW(ND_DECL, @$); $$->specs = $1; } }
  | nts implicit_members ';'                   { $$ = NULL; }  /* implicit int */
  | static_assert                              { $$ = NULL; }
  | ';'                                        { $$ = NULL; }
  ;

implicit_members
  : ideclarator                                { $$ = NULL; }
  | ideclarator ':' const_expr attrs_opt       { $$ = NULL; }
  | implicit_members ',' struct_declarator     { $$ = NULL; }
  ;

member_specs : specs_b | specs_t ;

struct_declarators
  : struct_declarator                          { $$ = p->original ? node_list(ND_DECL, @$.first, @$.last, $1) : NULL; }
  | struct_declarators ',' struct_declarator   { $$ = $1 ? node_append($1, $3, @3.last) : NULL; }
  ;

struct_declarator
  : declarator                                 { $$ = $1; }
  | declarator ':' const_expr attrs_opt        { $$ = $1; if (p->original) { $$ = node_list(ND_DECL, @$.first, @$.last, $1); node_add_kid($$, $3); } }
  | ':' const_expr attrs_opt                   { $$ = p->original ? $2 : NULL; }
  ;

enum_spec
  : ENUM attrs_opt '{' enumerators comma_opt '}' { $$ = NEW(ND_TAGGED, @$); $$->has_body = true; $$->tok = $1; $$->kids = $4->kids; declare_tag(p, $$, true); }
  | ENUM attrs_opt tag '{' enumerators comma_opt '}' { $$ = NEW(ND_TAGGED, @$); $$->has_body = true; $$->tok = TOK(@3.first); $$->kids = $5->kids; declare_tag(p, $$, true); }
  | ENUM attrs_opt tag                         { $$ = NEW(ND_TAGGED, @$); $$->tok = TOK(@3.first); declare_tag(p, $$, false); }
  ;

comma_opt : %empty | ',' ;

enumerators
  : enumerator                                 { $$ = node_list(ND_EXPR, @$.first, @$.last, $1); }
  | enumerators ',' enumerator                 { $$ = node_append($1, $3, @3.last); }
  ;

enumerator
  : enum_name attrs_opt                        { $$ = NEW(ND_ENUMERATOR, @$); $$->tok = TOK(@1.first);
                                                 $$->sym = scope_declare(SYM_ENUMCONST, $$->tok, $$, 0);
                                                 if (p->original) token_set_sym($$->tok, $$->sym); }
  | enum_name attrs_opt '=' const_expr         { $$ = NEW(ND_ENUMERATOR, @$); $$->tok = TOK(@1.first); $$->value = $4;
                                                 $$->sym = scope_declare(SYM_ENUMCONST, $$->tok, $$, 0);
                                                 if (p->original) token_set_sym($$->tok, $$->sym); }
  ;

enum_name : IDENTIFIER | TYPEDEF_NAME ;

init_declarators
  : init_declarator                            { $$ = node_list(ND_DECL, @$.first, @$.last, $1); }
  | init_declarators ',' init_declarator       { $$ = node_append($1, $3, @3.last); }
  | init_declarators ',' attrs init_declarator { $$ = node_append($1, $4, @4.last); }
  ;

init_declarator
  : declarator_reg asm_attrs                   { $$ = $1; check_declared_name(p, $$); }
  | declarator_reg asm_attrs '=' initializer   { $$ = $1; $$->init = $4; $$->last = @$.last; check_declared_name(p, $$); }
  ;

/* The name is in scope from the end of its declarator, before its
   initializer: `int x = sizeof x;` refers to the new x. */
declarator_reg
  : declarator                                 { $$ = NEW(ND_INIT_DECL, @$); $$->declarator = $1; $$->tok = $1->tok; declare(p, $$); }
  ;

asm_attrs
  : %empty                                     { $$ = NULL; }
  | ASM attrs_opt                              { $$ = NULL; }
  ;

declarator
  : direct_declarator
  | pointer direct_declarator                  { $$ = declarator_derive($2, $1, @$); }
  ;

/* Right inside parentheses a declarator's name cannot be a typedef name:
   there, `(T)` is a parameter list (C11 6.7.6.3p11). After a `*` it can:
   `int (*T)(int);` declares T. */
pdeclarator
  : pdirect_declarator
  | pointer direct_declarator                  { $$ = declarator_derive($2, $1, @$); }
  ;

/* Attributes may begin a parenthesized declarator: `int (__attribute__((x)) *p)`.
   The scope opened before them is the one a parameter list would open, since
   after `(` attributes can begin either, and only what follows them tells.
   Attributes after a declarator or a part of one (`f(void) __attribute__((x))`,
   `a [[x]] [3]`) stay out of its range unless a part follows them: the range
   is the declarator's type, which a coroutine's frame and value type copy. */
direct_declarator
  : IDENTIFIER                                 { $$ = declarator_new($1, @$); }
  | TYPEDEF_NAME                               { $$ = declarator_new($1, @$); }
  | '(' pdeclarator ')'                        { $$ = declarator_paren($2, @$); }
  | '(' scope_open attrs pdeclarator ')'       { scope_pop(); $$ = declarator_paren($4, @$); }
  | direct_declarator decl_suffix              { $$ = declarator_derive($1, $2, @$); }
  | direct_declarator ATTRIBUTE                { $$ = $1; @$ = @1; }
  ;

pdirect_declarator
  : IDENTIFIER                                 { $$ = declarator_new($1, @$); }
  | '(' pdeclarator ')'                        { $$ = declarator_paren($2, @$); }
  | '(' scope_open attrs pdeclarator ')'       { scope_pop(); $$ = declarator_paren($4, @$); }
  | pdirect_declarator decl_suffix             { $$ = declarator_derive($1, $2, @$); }
  | pdirect_declarator ATTRIBUTE               { $$ = $1; @$ = @1; }
  ;

decl_suffix
  : '[' array_size ']'                         { $$ = NEW(ND_ARRAY, @$); $$->tok = TOK(@1.first); $$->size = $<Node *>2; }
  | '(' scope_open params ')'                  { scope_pop(); $$ = NEW(ND_FUNC, @$); $$->kids = $3->kids; $$->variadic = $3->variadic; }
  | '(' scope_open ident_list ')'              { scope_pop(); $$ = NEW(ND_FUNC, @$); }
  ;

scope_open : %empty                            { scope_push(); } ;

/* K&R identifier lists appear only in prototypes of old code here:
   definitions with separate parameter declarations are not supported. */
ident_list : IDENTIFIER | ident_list ',' IDENTIFIER ;

array_size
  : %empty                                     { $<Node *>$ = NULL; }
  | '*'                                        { $<Node *>$ = NULL; }
  | array_quals_or_static assign_expr          { $<Node *>$ = $2; }
  | assign_expr                                { $<Node *>$ = $1; }
  | array_quals_or_static                      { $<Node *>$ = NULL; }
  | array_quals_or_static '*'                  { $<Node *>$ = NULL; }
  ;

array_quals_or_static
  : qualifier | STATIC | ATTRIBUTE
  | array_quals_or_static qualifier | array_quals_or_static STATIC | array_quals_or_static ATTRIBUTE ;

pointer
  : '*' qualifiers                             { $$ = NEW(ND_POINTER, @$); }
  | '*'                                        { $$ = NEW(ND_POINTER, @$); }
  | pointer '*' qualifiers                     { $$ = NEW(ND_POINTER, @$); }
  | pointer '*'                                { $$ = NEW(ND_POINTER, @$); }
  ;

qualifiers
  : qualifier
  | ATTRIBUTE                                  { $$ = NULL; }
  | qualifiers qualifier
  | qualifiers ATTRIBUTE                       { $$ = $1; }
  ;

params
  : %empty                                     { $$ = NEW(ND_EXPR, @$); }
  | param_list
  | param_list ',' ELLIPSIS                    { $$ = $1; $$->variadic = true; }
  ;

param_list
  : param_decl                                 { $$ = node_list(ND_EXPR, @$.first, @$.last, $1); }
  | param_list ',' param_decl                  { $$ = node_append($1, $3, @3.last); }
  ;

param_decl
  : param_specs declarator                     { $$ = NEW(ND_PARAM, @$); $$->specs = $<Node *>1; $$->declarator = $2; $$->tok = $2->tok;
                                                 if ($2->tok) $$->sym = scope_declare(SYM_OBJECT, $2->tok, $$, $<Node *>1->flags); }
  | param_specs abstract_declarator            { $$ = NEW(ND_PARAM, @$); $$->specs = $<Node *>1; $$->declarator = $2; }
  | param_specs                                { $$ = NEW(ND_PARAM, @$); $$->specs = $<Node *>1; }
  | nts ideclarator                            { if (p->original) error_at(token_pos(p, @1.first), "implicit int in a coroutine: write the type out");
                                                 $$ = NEW(ND_PARAM, @$); $$->specs = $1; $$->declarator = $2; $$->tok = $2->tok;
                                                 if ($2->tok) $$->sym = scope_declare(SYM_OBJECT, $2->tok, $$, $1->flags); }
  ;

param_specs : specs_b { $<Node *>$ = $1; } | specs_t { $<Node *>$ = $1; } ;

type_name
  : type_specs                                 { $$ = NEW(ND_TYPENAME, @$); $$->specs = $<Node *>1; }
  | type_specs abstract_declarator             { $$ = NEW(ND_TYPENAME, @$); $$->specs = $<Node *>1; $$->declarator = $2; }
  ;

type_specs : specs_b { $<Node *>$ = $1; } | specs_t { $<Node *>$ = $1; } ;

abstract_declarator
  : pointer                                    { $$ = declarator_derive(declarator_new(NULL, @$), $1, @$); }
  | direct_abstract
  | pointer direct_abstract                    { $$ = declarator_derive($2, $1, @$); }
  ;

direct_abstract
  : '(' abstract_declarator ')'                { $$ = declarator_paren($2, @$); }
  | '(' scope_open attrs abstract_declarator ')' { scope_pop(); $$ = declarator_paren($4, @$); }
  | '[' array_size ']'                         { Node *a = NEW(ND_ARRAY, @$); a->tok = TOK(@1.first); a->size = $<Node *>2;
                                                 $$ = declarator_derive(declarator_new(NULL, @$), a, @$); }
  | direct_abstract '[' array_size ']'         { Node *a = NEW(ND_ARRAY, @2); a->tok = TOK(@2.first); a->size = $<Node *>3;
                                                 a->last = @4.last; $$ = declarator_derive($1, a, @$); }
  | '(' scope_open params ')'                  { scope_pop(); Node *f = NEW(ND_FUNC, @$); f->kids = $3->kids;
                                                 $$ = declarator_derive(declarator_new(NULL, @$), f, @$); }
  | direct_abstract '(' scope_open params ')'  { scope_pop(); Node *f = NEW(ND_FUNC, @2); f->kids = $4->kids;
                                                 f->last = @5.last; $$ = declarator_derive($1, f, @$); }
  ;

initializer
  : assign_expr
  | YIELD assign_expr                          { $$ = NEW(ND_YIELD, @$); $$->tok = $1; $$->expr = $2; $$->flags = YIELD_IN_INIT;
                                                 outside_check(p, "yield", @1); p->saw_yield_value = true; }
  | '{' init_list comma_opt '}'                { $$ = NEW(ND_INIT_LIST, @$); $$->kids = $2->kids; }
  | '{' '}'                                    { $$ = NEW(ND_INIT_LIST, @$); }
  ;

init_list
  : initializer                                { $$ = node_list(ND_EXPR, @$.first, @$.last, $1); }
  | designation initializer                    { $$ = node_list(ND_EXPR, @$.first, @$.last, $2); $2->designation = $1; }
  | init_list ',' initializer                  { $$ = node_append($1, $3, @3.last); }
  | init_list ',' designation initializer      { $$ = node_append($1, $4, @4.last); $4->designation = $3; }
  ;

/* and GNU's obsolete forms, `x: 1` and `[2] 3` */
designation
  : designators '='                            { $$ = $1; $$->last = @$.last; }
  | IDENTIFIER ':'                             { $$ = NEW(ND_DESIGNATION, @$); }
  | '[' const_expr ']'                         { $$ = node_list(ND_DESIGNATION, @$.first, @$.last, $2); }
  | '[' const_expr ELLIPSIS const_expr ']'     { $$ = node_append(node_list(ND_DESIGNATION, @$.first, @$.last, $2), $4, @$.last); }
  ;

/* The index expressions are kept (kids): a shape of the list (text.c) prints them. */
designators
  : designator                                 { $$ = node_list(ND_DESIGNATION, @$.first, @$.last, NULL);
                                                 for (int i = 0; $1 && i < $1->kids.n; i++) node_add_kid($$, $1->kids.v[i]); }
  | designators designator                     { $$ = $1; $$->last = @$.last;
                                                 for (int i = 0; $2 && i < $2->kids.n; i++) node_add_kid($$, $2->kids.v[i]); }
  ;

designator
  : '[' const_expr ']'                         { $$ = node_list(ND_DESIGNATION, @$.first, @$.last, $2); }
  | '[' const_expr ELLIPSIS const_expr ']'     { $$ = node_append(node_list(ND_DESIGNATION, @$.first, @$.last, $2), $4, @$.last); }
  | '.' IDENTIFIER                             { $$ = NULL; }
  ;

attrs : ATTRIBUTE { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_ATTRIBUTE; } | attrs ATTRIBUTE { $$ = NEW(ND_SPECIFIER, @$); $$->flags = SP_ATTRIBUTE; } ;
attrs_opt : %empty { $$ = NULL; } | attrs ;

/* }================================================================== */

/* {==================================================================
 * Statements
 * =================================================================== */

/* GNU attributes may stand before a statement: `__attribute__((fallthrough));`,
   or after a label. They are the same `attrs` that may begin a declaration's
   specifiers, so a block item need not decide which it is until after them. */
statement
  : plain_statement
  | attrs plain_statement                      { $$ = $2; $$->first = @$.first; }
  ;

plain_statement
  : labeled_statement
  | compound_statement
  | expression_statement
  | selection_statement
  | iteration_statement
  | jump_statement
  | yield_statement
  | asm_statement
  ;

labeled_statement
  : label statement                            { $$ = $1; $$->body = $2; $$->last = @$.last; }
  ;

label
  : IDENTIFIER ':'                             { $$ = NEW(ND_LABEL, @$); $$->tok = $1; }
  | TYPEDEF_NAME ':'                           { $$ = NEW(ND_LABEL, @$); $$->tok = $1; }
  | CASE const_expr ':'                        { $$ = NEW(ND_CASE, @$); $$->tok = $1; $$->value = $2; }
  | CASE const_expr ELLIPSIS const_expr ':'    { $$ = NEW(ND_CASE, @$); $$->tok = $1; $$->value = $2; $$->high = $4; }
  | DEFAULT ':'                                { $$ = NEW(ND_DEFAULT, @$); $$->tok = $1; }
  ;

/* As GNU C (and C23) allow: labels before a declaration, and at the end of
   a block, where they label an empty statement. */
labeled_declaration
  : label declaration                          { $$ = $1; $$->body = $2; $$->last = @$.last; }
  | label labeled_declaration                  { $$ = $1; $$->body = $2; $$->last = @$.last; }
  ;

trailing_labels
  : label                                      { $$ = $1; $$->body = new_node(ND_EXPR_STMT, @$.last + 1, @$.last); }
  | label trailing_labels                      { $$ = $1; $$->body = $2; $$->last = @$.last; }
  ;

compound_statement
  : '{' scope_open block_items '}'             { scope_pop(); $$ = $3; $$->first = @$.first; $$->last = @$.last; }
  | '{' scope_open block_items trailing_labels '}' { scope_pop(); $$ = node_append($3, $4, @4.last); $$->first = @$.first; $$->last = @$.last; }
  | '{' scope_open trailing_labels '}'         { scope_pop(); $$ = node_list(ND_BLOCK, @$.first, @$.last, $3); }
  | '{' '}'                                    { $$ = NEW(ND_BLOCK, @$); }
  ;

block_items
  : block_item                                 { $$ = node_list(ND_BLOCK, @$.first, @$.last, $1); }
  | block_items block_item                     { $$ = node_append($1, $2, @2.last); }
  ;

block_item
  : declaration
  | statement
  | label_decl
  | labeled_declaration
  | nested_function
  | PRAGMA                                     { $$ = NEW(ND_PRAGMA, @$); }  /* (no statement: `if (c) _Pragma(...) f();`) */
  | BLOCK_MACRO                                { $$ = NEW(ND_EXPR_STMT, @$); $$->expr = raw_macro_node(p, $1, @$); }
  ;

/* A GNU C nested function. In a coroutine it would have to be printed
   inside the resume function, and its locals would become the frame's. */
nested_function
  : decl_specs declarator_reg nested_start body_start compound_statement
                                               { $$ = funcdef_end(p, $1, $2, $5, @$); }
  | decl_specs declarator_reg nested_start kr_start kr_decls compound_statement
                                               { $$ = funcdef_end(p, $1, $2, $6, @$); }
  ;

nested_start
  : %empty                                     { if (p->original) error_tok($<Node *>0->tok, "a nested function cannot be defined in a coroutine: define '%s' outside it", tok_text($<Node *>0->tok));
                                                 $<Node *>$ = $<Node *>0; }  /* body_start finds the declarator before it */
  ;

label_decl
  : LABEL ident_list ';'                       { $$ = NEW(ND_LABEL_DECL, @$); }
  ;

expression_statement
  : ';'                                        { $$ = NEW(ND_EXPR_STMT, @$); }
  | expr ';'                                   { if ($1->kind == ND_YIELD) {  /* `x = yield v;`: a statement */
                                                   $$ = $1; $$->flags &= ~YIELD_IN_EXPR; $$->last = @$.last;
                                                 } else {
                                                   $$ = NEW(ND_EXPR_STMT, @$); $$->expr = $1;
                                                 } }
  ;

selection_statement
  : IF '(' expr ')' statement %prec IFX        { $$ = NEW(ND_IF, @$); $$->tok = $1; $$->cond = $3; $$->then = $5; }
  | if_else statement                          { $$ = $1; $$->otherwise = $2; $$->last = @$.last; }
  | SWITCH '(' expr ')' statement              { $$ = NEW(ND_SWITCH, @$); $$->tok = $1; $$->cond = $3; $$->body = $5; }
  ;

/* Everything up to the `else`, as one symbol: a chain of `else if` then
   takes one entry of the parser's stack per `if`, not six. */
if_else
  : IF '(' expr ')' statement ELSE             { $$ = NEW(ND_IF, @$); $$->tok = $1; $$->cond = $3; $$->then = $5; }
  ;

iteration_statement
  : WHILE '(' expr ')' statement               { $$ = NEW(ND_WHILE, @$); $$->tok = $1; $$->cond = $3; $$->body = $5; }
  | DO statement WHILE '(' expr ')' ';'        { $$ = NEW(ND_DO, @$); $$->tok = $1; $$->body = $2; $$->cond = $5; }
  | FOR '(' scope_open for_init expr_opt ';' expr_opt ')' statement
                                               { scope_pop(); $$ = NEW(ND_FOR, @$); $$->tok = $1; $$->init = $4;
                                                 $$->cond = $5; $$->step = $7; $$->body = $9; }
  | LOOP_MACRO_CALL '(' ')' statement          { $$ = loop_macro_node($1, @$, call_node(p, (Loc){@1.first, @3.last}, ident(p, $1, @1), NULL), $4); }
  | LOOP_MACRO_CALL '(' args ')' statement     { $$ = loop_macro_node($1, @$, call_node(p, (Loc){@1.first, @4.last}, ident(p, $1, @1), $3), $5); }
  | LOOP_MACRO statement                       { $$ = loop_macro_node($1, @$, ident(p, $1, @1), $2); }
  ;

for_init
  : expr_opt ';'                               { $$ = NEW(ND_EXPR_STMT, @$); $$->expr = $1; }
  | declaration
  ;

jump_statement
  : GOTO IDENTIFIER ';'                        { $$ = NEW(ND_GOTO, @$); $$->tok = $1; }
  | GOTO TYPEDEF_NAME ';'                      { $$ = NEW(ND_GOTO, @$); $$->tok = $1; }
  | GOTO '*' expr ';'                          { $$ = NEW(ND_GOTO, @$); $$->tok = $1; $$->expr = $3; }
  | CONTINUE ';'                               { $$ = NEW(ND_CONTINUE, @$); $$->tok = $1; }
  | BREAK ';'                                  { $$ = NEW(ND_BREAK, @$); $$->tok = $1; }
  | RETURN expr_opt ';'                        { $$ = NEW(ND_RETURN, @$); $$->tok = $1; $$->expr = $2; }
  ;

yield_statement
  : YIELD expr ';'                             { $$ = NEW(ND_YIELD, @$); $$->tok = $1; $$->expr = $2; outside_check(p, "yield", @1);
                                                 p->saw_yield_value = true; }
  | YIELD ';'                                  { $$ = NEW(ND_YIELD, @$); $$->tok = $1; outside_check(p, "yield", @1); }
  ;

asm_statement
  : ASM ';'                                    { $$ = asm_node(p, $1, @1); $$->last = @$.last; }
  ;

/* }================================================================== */

/* {==================================================================
 * Expressions, by precedence from lowest to highest
 * =================================================================== */

expr_opt : %empty { $$ = NULL; } | expr ;

expr
  : assign_expr
  | expr ',' assign_expr                       { $$ = expr_node(@$, OP_COMMA, $1, $3, NULL); }
  ;

/* `LVALUE = yield EXPR` is parsed wherever an assignment may stand, so that
   one out of place gets a message of its own (check.c walk_yield): only a
   statement of its own (expression_statement) takes off YIELD_IN_EXPR. */
assign_expr
  : binary_expr
  | unary_expr assign_op assign_expr           { $$ = expr_node(@$, $2, $1, $3, NULL); }
  | unary_expr assign_op YIELD assign_expr     { $$ = NEW(ND_YIELD, @$); $$->tok = $3; $$->target = $1; $$->expr = $4;
                                                 $$->flags = YIELD_IN_EXPR | ($2 == OP_ASSIGN ? 0 : YIELD_COMPOUND);
                                                 outside_check(p, "yield", @3); p->saw_yield_value = true; }
  ;

assign_op
  : '=' { $$ = OP_ASSIGN; }
  | MUL_ASSIGN { $$ = OP_ASSIGN_OP; } | DIV_ASSIGN { $$ = OP_ASSIGN_OP; } | MOD_ASSIGN { $$ = OP_ASSIGN_OP; }
  | ADD_ASSIGN { $$ = OP_ASSIGN_OP; } | SUB_ASSIGN { $$ = OP_ASSIGN_OP; } | SHL_ASSIGN { $$ = OP_ASSIGN_OP; }
  | SHR_ASSIGN { $$ = OP_ASSIGN_OP; } | AND_ASSIGN { $$ = OP_ASSIGN_OP; } | XOR_ASSIGN { $$ = OP_ASSIGN_OP; }
  | OR_ASSIGN { $$ = OP_ASSIGN_OP; }
  ;

const_expr : binary_expr ;

/* The binary operators: one rule for all ten levels, which the precedence
   declarations above order. A rule per level, as the standard writes it,
   reduced every operand through ten rules of one symbol each: most of the
   parser's work on real C. The trees are the same. */
binary_expr
  : cast_expr
  | binary_expr '?' expr ':' binary_expr %prec '?' { $$ = expr_node(@$, OP_COND, $1, $3, $5); }
  | binary_expr '?' ':' binary_expr %prec '?'  { $$ = expr_node(@$, OP_COND, $1, NULL, $4); }
  | binary_expr OROR binary_expr               { $$ = expr_node(@$, OP_OR, $1, $3, NULL); }
  | binary_expr ANDAND binary_expr             { $$ = expr_node(@$, OP_AND, $1, $3, NULL); }
  | binary_expr '|' binary_expr                { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  | binary_expr '^' binary_expr                { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  | binary_expr '&' binary_expr                { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  | binary_expr EQ binary_expr                 { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  | binary_expr NE binary_expr                 { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  | binary_expr '<' binary_expr                { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  | binary_expr '>' binary_expr                { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  | binary_expr LE binary_expr                 { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  | binary_expr GE binary_expr                 { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  | binary_expr SHL binary_expr                { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  | binary_expr SHR binary_expr                { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  | binary_expr '+' binary_expr                { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  | binary_expr '-' binary_expr                { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  | binary_expr '*' binary_expr                { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  | binary_expr '/' binary_expr                { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  | binary_expr '%' binary_expr                { $$ = expr_node(@$, OP_BINARY, $1, $3, NULL); }
  ;

cast_expr
  : unary_expr
  | '(' type_name ')' cast_expr                { $$ = expr_node(@$, OP_CAST, $2, $4, NULL); }
  ;

unary_expr
  : postfix_expr
  | INC unary_expr                             { $$ = expr_node(@$, OP_UNARY, $2, NULL, NULL); }
  | DEC unary_expr                             { $$ = expr_node(@$, OP_UNARY, $2, NULL, NULL); }
  | unary_op cast_expr                         { $$ = expr_node(@$, $1, $2, NULL, NULL); }
  | SIZEOF unary_expr                          { $$ = NEW(ND_SIZEOF, @$); $$->expr = $2; $$->tok = $1; }
  | SIZEOF '(' type_name ')'                   { $$ = NEW(ND_SIZEOF, @$); $$->expr = $3; $$->tok = $1; }
  | ALIGNOF '(' type_name ')'                  { $$ = NEW(ND_SIZEOF, @$); $$->expr = $3; $$->tok = $1; }
  | ALIGNOF unary_expr                         { $$ = NEW(ND_SIZEOF, @$); $$->expr = $2; $$->tok = $1; }
  | ANDAND IDENTIFIER                          { $$ = EXPR(@$, OP_LABEL_ADDR); }
  | REAL cast_expr                             { $$ = expr_node(@$, OP_REAL, $2, NULL, NULL); }
  | IMAG cast_expr                             { $$ = expr_node(@$, OP_IMAG, $2, NULL, NULL); }
  | AWAIT cast_expr                            { $$ = NEW(ND_AWAIT, @$); $$->expr = $2; $$->tok = $1; outside_check(p, "await", @1);
                                                 p->saw_await = true; }
  ;

unary_op
  : '&' { $$ = OP_ADDRESS; } | '*' { $$ = OP_DEREF; } | '+' { $$ = OP_UNARY; }
  | '-' { $$ = OP_UNARY; } | '~' { $$ = OP_UNARY; } | '!' { $$ = OP_UNARY; }
  ;

/* (what the standard calls a primary expression is written here, among the
   postfix expressions: a rule of one symbol less to reduce for every operand) */
postfix_expr
  : IDENTIFIER                                 { $$ = ident(p, $1, @$); }
  | NUMBER                                     { $$ = EXPR(@$, OP_NUMBER); }
  | CHAR                                       { $$ = EXPR(@$, OP_CHAR); }
  | strings
  | '(' expr ')'                               { $$ = expr_node(@$, OP_PAREN, $2, NULL, NULL); }
  | '(' { p->stmt_expr_depth++; } compound_statement ')'
                                               { p->stmt_expr_depth--; $$ = NEW(ND_STMT_EXPR, @$); $$->block = $3;
                                                 p->saw_stmt_expr = true; }
  | GENERIC '(' assign_expr ',' generic_assocs ')' { $$ = expr_node(@$, OP_GENERIC, $3, NULL, NULL); $$->kids = $5->kids; }
  | OFFSETOF '(' type_name ',' offsetof_member ')' { $$ = offsetof_node($1, @$, $3, $5); }
  | VA_ARG '(' assign_expr ',' type_name ')'   { $$ = expr_node(@$, OP_VA_ARG, $3, NULL, NULL); }
  | TYPES_COMPATIBLE '(' type_name ',' type_name ')' { $$ = NEW(ND_SIZEOF, @$); $$->expr = $3; $$->tok = $1; }
  | postfix_expr '[' expr ']'                  { $$ = expr_node(@$, OP_INDEX, $1, $3, NULL); }
  | postfix_expr '(' ')'                       { $$ = call_node(p, @$, $1, NULL); }
  | postfix_expr '(' args ')'                  { $$ = call_node(p, @$, $1, $3); }
  | RAW_MACRO                                  { $$ = raw_macro_node(p, $1, @$); }
  | postfix_expr '.' member                    { $$ = expr_node(@$, OP_MEMBER, $1, NULL, NULL); }
  | postfix_expr ARROW member                  { $$ = expr_node(@$, OP_MEMBER, $1, NULL, NULL); }
  | postfix_expr INC                           { $$ = expr_node(@$, OP_POSTFIX, $1, NULL, NULL); }
  | postfix_expr DEC                           { $$ = expr_node(@$, OP_POSTFIX, $1, NULL, NULL); }
  | '(' type_name ')' '{' init_list comma_opt '}' { $$ = expr_node(@$, OP_COMPOUND_LITERAL, $2, NULL, NULL); $$->kids = $5->kids; }
  | '(' type_name ')' '{' '}'                  { $$ = expr_node(@$, OP_COMPOUND_LITERAL, $2, NULL, NULL); }
  ;

member : IDENTIFIER | TYPEDEF_NAME ;

/* A type name as an argument: GNU builtins that take one
   (__builtin_convertvector(v, T), __builtin_has_attribute(T, a)), and
   macros like va_arg(ap, T) and offsetof(T, m), which the coroutine parse
   reads unexpanded. */
args
  : assign_expr                                { $$ = node_list(ND_EXPR, @$.first, @$.last, $1); }
  | type_name                                  { $$ = node_list(ND_EXPR, @$.first, @$.last, $1); }
  | args ',' assign_expr                       { $$ = node_append($1, $3, @3.last); }
  | args ',' type_name                         { $$ = node_append($1, $3, @3.last); }
  ;

offsetof_member /* its indexes, or NULL (build.c, offsetof_node) */
  : member                                     { $$ = NULL; }
  | offsetof_member '.' member
  | offsetof_member '[' expr ']'               { $$ = $1 ? node_append($1, $3, @3.last) : node_list(ND_EXPR, @3.first, @3.last, $3); }
  | offsetof_member ARROW member
  ;

strings
  : STRING                                     { $$ = EXPR(@$, OP_STRING); }
  | strings STRING                             { $$ = EXPR(@$, OP_STRING); }
  ;

generic_assocs
  : generic_assoc                              { $$ = node_list(ND_EXPR, @$.first, @$.last, $1); }
  | generic_assocs ',' generic_assoc           { $$ = node_append($1, $3, @3.last); }
  ;

generic_assoc
  : type_name ':' assign_expr                  { $$ = $3; }
  | DEFAULT ':' assign_expr                    { $$ = $3; }
  ;

/* }================================================================== */

%%

/* {==================================================================
 * The second parse, and a syntax error
 * =================================================================== */

/* The file parse met a declaration or definition. If it is a coroutine,
   parse it again from the original tokens, here, in these scopes: the
   grammar runs again, nested (external.c says what is kept of it). */
static void coroutine_found(Parser *p, Node *specs, Node *n, bool is_def, Loc loc) {
  int start = coroutine_start(p, specs, n, is_def, loc);
  if (start < 0)
    return;
  Parser q = {.src = p->src, .toks = &p->src->original, .pos = start, .original = true};
  if (yyparse(&q) != 0) /* (traced as the file parse is: parse_source_each set yydebug) */
    internal_error("coroutine parse failed without a diagnostic");
  coroutine_record(p, q.unit, start, q.pos);
  Coroutine *co = *p->last_co; /* what its parse saw */
  co->saw_yield_value = q.saw_yield_value, co->saw_await = q.saw_await;
  co->saw_stmt_expr = q.saw_stmt_expr, co->jump_macro = q.jump_macro, co->jump_deed = q.jump_deed;
  co->return_macro = q.return_macro;
}

/* A syntax error: what bison knows of it, by name, for syntax_error.c. */
static int yyreport_syntax_error(const yypcontext_t *ctx, Parser *p) {
  yysymbol_kind_t expected[YYNTOKENS];
  const char *names[YYNTOKENS];
  int n = yypcontext_expected_tokens(ctx, expected, YYNTOKENS);
  for (int i = 0; i < n; i++)
    names[i] = yysymbol_name(expected[i]);
  syntax_error(p, yypcontext_location(ctx)->first, names, n,
               yypcontext_token(ctx) == YYSYMBOL_TYPEDEF_NAME);
}

/* }================================================================== */
