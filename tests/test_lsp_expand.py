"""coroc-lsp's own macro expander (transformer/lsp/expand.c) against gcc's
preprocessor. At a change after a document's last #include, the server
expands the body itself, with the macros the headers left; what it makes
must be what the preprocessor makes of the whole document, as coroc reads
it.

tests/lsp_expand/check.c (coroc_lsp_expand) runs a file through the
server's preamble as an open document and its first change: the first run
preprocesses the whole text with `cc -E -dD` (the answer), the second
expands the body in the server's process (or falls back to the
preprocessor when expand.c cannot say it exactly). It compares the two
outputs token by token on each line of the document, directive lines byte
for byte, and runs coroc's pipeline on each (both backends): the same C or
the same error. Nothing here writes down what gcc prints: gcc says it, in
each run.

Five sets of inputs: every .coc and .c of the tree (examples, tests, the
tutorial), where falling back must be rare; files of the tree cut short,
as the editor holds them while they are typed; a hand-written document
for each feature the expander models (the C standard's examples of
6.10.3.5 among them), each of which it must expand itself, and one for
each construct it must leave to the preprocessor; and random documents
(fixed seeds) of macros made of each other, and of #if expressions. Where
gcc rejects a document, the server must leave its body to gcc.
"""
import os
import pathlib
import random
import subprocess

import pytest

from conftest import BUILD_DIR, FULL, SOURCE_DIR, TESTS_DIR, case_args, every_nth

CHECK = pathlib.Path(BUILD_DIR) / "tests" / "lsp_expand" / "coroc_lsp_expand"


def check(files, args):
    """{file: (how, verdict line)} from coroc_lsp_expand. Its preprocessor runs
    see one fixed time (SOURCE_DATE_EPOCH, which gcc reads): a document with
    __TIME__ in it is preprocessed twice, and two runs a second apart gave two
    texts (a fresh-clone run failed so)."""
    env = dict(os.environ, SOURCE_DATE_EPOCH="1764460800")
    r = subprocess.run([CHECK, *args, "--", *map(str, files)], capture_output=True, text=True,
                       timeout=600, env=env)
    assert r.stderr == "", r.stderr
    out = {}
    for line in r.stdout.splitlines():
        path, rest = line.split("\t", 1)   # (a tab after the path: a path may hold spaces)
        how, verdict = rest.split(" ", 1)
        out[path] = (how, line)
    assert len(out) == len(files), r.stdout
    return out


def tally(results, outside):
    """The count of each way the documents went, printed (`outside`: what
    the third kind means here); no document may disagree with gcc."""
    counts = {k: sum(1 for how, _ in results.values() if how == k)
              for k in ("self", "cpp", "outside")}
    print(f"\n{len(results)} documents: expanded by the server {counts['self']}, "
          f"by the preprocessor {counts['cpp']}, {outside} {counts['outside']}")
    assert [line for how, line in results.values() if "differs" in line] == []
    return counts


def corpus():
    roots = [SOURCE_DIR / "examples", TESTS_DIR, SOURCE_DIR / "tutorial"]
    return sorted(p for root in roots for ext in ("*.coc", "*.c") for p in root.rglob(ext)
                  if "lsp_expand" not in p.parts)


def test_the_tree_expands_as_gcc_does():
    """Every file of the tree, with the options its tests give it (a plain
    C file with -dD, as a .coc is read): no disagreement, and the
    preprocessor is needed for few."""
    groups = {}
    for f in corpus():
        args = ["-I", str(TESTS_DIR), "-I", str(f.parent), *case_args(f)]
        if f.suffix == ".c":
            args.append("-dD")
        groups.setdefault(tuple(args), []).append(f)
    results = {}
    for args, files in groups.items():
        results.update(check(files, list(args)))
    differ = [line for how, line in results.values() if "differs" in line]
    counts = {k: sum(1 for how, _ in results.values() if how == k)
              for k in ("self", "cpp", "outside")}
    print(f"\n{len(results)} files: expanded by the server {counts['self']}, "
          f"by the preprocessor {counts['cpp']}, no preamble {counts['outside']}")
    print("\n".join(line for how, line in results.values() if how == "cpp"))
    assert differ == []
    compared = counts["self"] + counts["cpp"]
    assert compared >= 250
    assert counts["cpp"] * 50 <= compared  # at most 2% fall back


def test_documents_being_typed(tmp_path):
    """What the editor holds while a file is typed: the first lines of
    files of the tree, and those with half of the next line, cut
    anywhere (in a comment, a string, a macro's arguments, an #if
    group): the server's expansion agrees with gcc, or is left to it."""
    files = sorted(SOURCE_DIR.glob("examples/*.coc")) + sorted(TESTS_DIR.glob("cases/*.coc"))[::5] \
        + sorted(TESTS_DIR.glob("corpus/*.c"))
    docs = []
    for f in files:
        lines = f.read_text(errors="replace").splitlines(keepends=True)
        step = max(1, len(lines) // 5)
        for k in range(step // 2 + 1, len(lines) + 1, step):
            for cut, text in (("", lines[:k]), ("b", lines[:k] + [lines[k][:len(lines[k]) // 2]]
                                                    if k < len(lines) else None)):
                if text is not None:
                    doc = tmp_path / f"{f.stem}_{k}{cut}{f.suffix}"
                    doc.write_text("".join(text))
                    docs.append(doc)
    docs = every_nth(docs, 2)  # (every other one in the suite's sample)
    results = check(docs, ["-dD", "-I", str(TESTS_DIR), "-I", str(SOURCE_DIR / "examples")])
    counts = {k: sum(1 for how, _ in results.values() if how == k) for k in ("self", "cpp")}
    print(f"\n{len(docs)} documents: expanded by the server {counts['self']}, "
          f"by the preprocessor {counts['cpp']}")
    assert [line for how, line in results.values() if "differs" in line] == []
    assert counts["self"] > 4 * counts["cpp"]


HEAD = "#include <stddef.h>\n#include <errno.h>\n#include <stdint.h>\n"

# name: the body after HEAD. Each must be expanded by the server itself
# and agree with gcc.
FEATURES = {
    "object_and_function": """
#define N 10
#define SQ(x) ((x) * (x))
#define ADD(a, b) a + b
int a = N, b = SQ(N + 1), c = ADD(SQ(2), N);
#define EMPTY
#define NOARGS() 7
int d = NOARGS() EMPTY, e = NOARGS ( );
""",
    "stringify": """
#define S(x) #x
#define XS(x) S(x)
#define BODY  a  +   b
const char *s1 = S(  a   "q\\"uote\\n"  'c'  \\  ), *s2 = XS(BODY), *s3 = S(), *s4 = XS(S(x));
const char *s5 = S(a
  b), *s6 = XS(__LINE__);
""",
    "paste": """
#define CAT(a, b) a ## b
#define XCAT(a, b) CAT(a, b)
#define CAT3(a, b, c) a ## b ## c
int CAT(x, 1) = 1, CAT(, y2) = 2, CAT(z3, ) = 3, CAT3(p, , q) = 4, XCAT(CAT(a, b), 5) = 5;
int CAT3(,,) w = CAT(0x, 1f) + CAT(1, 2) CAT(+, =) 3;
const char *CAT(u, s) = CAT(L, "wide") ? "x" : "y";
#define OBJ a ## b
int OBJ = 6;
""",
    "variadic": """
#define V(...) f(__VA_ARGS__)
#define S(...) #__VA_ARGS__
#define N(fmt, args...) g(fmt, args)
#define C(fmt, ...) h(fmt, ## __VA_ARGS__)
#define G(fmt, args...) k(fmt , ## args)
#define ONE(...) q(0, ## __VA_ARGS__)
int f(), g(), h(), k(), q();
void t(void) {
  V(); V(1); V(1, (2, 3), 4); S(); S( a , b );
  N("x", 1, 2); C("x"); C("x",); C("x", 1); C("x", 1, 2);
  G("y"); G("y", 3); ONE(); ONE(1);
}
""",
    "recursion_painted_blue": """
#define foo foo
#define a b
#define b a
#define f(x) x + f(x)
#define g f
#define h(x) g(x)
int foo, a, b;
int r1 = f(1), r2 = g(2), r3 = h(3), r4 = g;
#define lparen (
#define call f lparen 4)
int r5 = call;
""",
    "c11_example_3": """
#define x 3
#define f(a) f(x * (a))
#undef x
#define x 2
#define g f
#define z z[0]
#define h g(~
#define m(a) a(w)
#define w 0,1
#define t(a) a
#define p() int
#define q(x) x
#define r(x,y) x ## y
#define str(x) # x
int f(), y, z[1], g();
void u(void) {
f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);
g(x+(3,4)-w) | h 5) & m
(f)^m(m);
}
""",
    "c11_example_4": """
#define str(s) # s
#define xstr(s) str(s)
#define debug(s, t) printf("x" # s "= %d, x" # t "= %s", \\
 x ## s, x ## t)
#define INCFILE(n) vers ## n
#define glue(a, b) a ## b
#define xglue(a, b) glue(a, b)
#define HIGHLOW "hello"
#define LOW LOW ", world"
int printf(const char *, ...);
int x1, x2;
void u(void) {
debug(1, 2);
fputs(str(strncmp("abc\\0d", "abc", '\\4') // this goes away
 == 0) str(: @\\n), s);
}
const char *hl = glue(HIGH, LOW), *xl = xglue(HIGH, LOW);
""",
    "c11_example_5_and_7": """
#define t(x,y,z) x ## y ## z
int j[] = { t(1,2,3), t(,4,5), t(6,,7), t(8,9,),
 t(10,,), t(,11,), t(,,12), t(,,) };
#define debug(...) fprintf(stderr, __VA_ARGS__)
#define showlist(...) puts(#__VA_ARGS__)
#define report(test, ...) ((test)?puts(#test): printf(__VA_ARGS__))
void u(int x, int y) {
debug("Flag");
debug("X = %d\\n", x);
showlist(The first, second, and third items.);
report(x>y, "x is %d but y is %d", x, y);
}
""",
    "arguments_over_lines": """
#define F(x, y) x + y
#define G(x) (x)
int a = F(1,
  2) + 3;
int b = F(1,
  2)+3;
int c = G
  (4) * G(
  5
  ), d = 6;
int e = F
  ;
int F = 1;
""",
    "builtin_names": """
const char *file = __FILE__, *base = __BASE_FILE__;
int line = __LINE__, level = __INCLUDE_LEVEL__;
#define HERE __LINE__
int here = HERE, there =
  HERE;
#define AT(x) x __LINE__
int at[] = {AT(1)};
#if __LINE__ > 3 && defined __FILE__ && defined(__INCLUDE_LEVEL__) && defined __DATE__
int line_seen;
#endif
const char *name = __FILE_NAME__;
#ifdef __TIMESTAMP__
int timestamp_defined;
#endif
""",
    "if_expressions": """
#define TWO 2
#define ZERO 0
#define FN(x) ((x) + 1)
#if TWO * 3 == 6 && FN(TWO) == 3 && -1 < 0 && -1 > 0u && 0x10 == 16 && 010 == 8 && 0b11 == 3
int arithmetic;
#endif
#if (1 << 62) > 0 && (-1 >> 1) == -1 && ~0u == 18446744073709551615u && 7 / 2 == 3 && -7 % 3 == -1
int shifts;
#endif
#if 'a' == 97 && '\\n' == 10 && '\\377' < 0 && '\\x41' == 'A' && '\\0' == 0
int characters;
#endif
#if ZERO && 1 / ZERO || 1 ? 2 : 1 / ZERO
int short_circuit;
#endif
#if (2, 3) == 3 && (ZERO ? 1u : -1) > 0 && UNDEFINED_NAME == 0 && !defined UNDEFINED_NAME
int comma_and_conditional;
#endif
#if defined TWO && defined(ZERO) && !defined(NOPE) && defined FN
int defined_forms;
#elif 1 / 0
int never;
#else
int nor;
#endif
#if 0
#if garbage ( here
#else
#error not read
#endif
don't read this ' either
#elif TWO == 2
int elif_taken;
#elif 1 / 0
#else
#endif
#ifdef ZERO
int ifdef;
#endif
#ifndef TWO
int ifndef;
#else
int ifndef_else;
#endif
#if __GNUC__ >= 4 && __SIZEOF_INT__ == 4 && __STDC_VERSION__ >= 199901L
int builtins;
#endif
""",
    "define_undef_pragma": """
#define A 1
#undef A
#undef NEVER_DEFINED
#  define   B( x ,y )   x  ##y   #  x
#define C(args...) args
#define D(a, ...) __VA_ARGS__
#define E
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma STDC FP_CONTRACT ON
#pragma pack(1)
struct packed { char c; int i; };
#pragma pack()
#pragma GCC diagnostic pop
#warning a warning is not an error
#
# /* an empty directive, with a comment */
int a = B(1, 2);
""",
    "splices_and_comments": """
#define LONG(x) \\
  ((x) \\
   + 1)
int a = LONG(2), b = \\
  3, c = 4 /* a comment
  over lines */ + 5, d = 6 // a line comment \\
  continued
  ;
int e /* */ = /**/ 7;
st\\
atic int f = 8;
const char *g = "a\\
b";
""",
    "system_macros": """
void *p = NULL;
int e = EINTR, f = errno;
struct two { int a, b; };
size_t o = offsetof(struct two, b);
int64_t big = INT64_C(1) << 40;
uint8_t u = UINT8_MAX;
""",
    "a_literal_being_typed": """
#define F(x) #x x
int a = 1;
const char *s = F(b) "abc
int c = 'd;
""",
    "directives_after_calls": """
#define F(x) x
#define G F
int a = F
#define H 1
(2), b = G
#undef H
(3);
int c = F(F(F(4)));
""",
}

# name: a body the server must leave to the preprocessor (what it gives is
# still checked against gcc).
FALLBACKS = {
    "va_opt": "#define V(a, ...) f(a __VA_OPT__(,) __VA_ARGS__)\nint x = V(1);\n",
    "pragma_operator": '_Pragma("GCC diagnostic push")\nint x;\n',
    "has_include": "#if __has_include(<stdio.h>)\nint x;\n#endif\n",
    "has_attribute": "#if defined(__has_attribute)\nint x;\n#endif\n",
    "date": "const char *d = __DATE__;\n",
    "digraphs": "int a<:2:>;\n",
    "raw_string": 'const char *r = R"(raw)";\n',
    "directive_in_arguments": "#define F(x) x\nint a = F(1\n#undef F\n);\n",
    "error": "#if 1\n#error stop\n#endif\n",
    "ident": '#ident "x"\n',
    "line_in_arguments_over_lines": "#define F(x, y) x y\nint a = F(__LINE__,\n __LINE__);\n",
    "paste_not_a_token": "#define CAT(a, b) a ## b\nint x = CAT(+, -) 1;\n",
    "once": "#pragma once\nint x;\n",
    "macro_in_pragma": "#define PACK 2\n#pragma pack(PACK)\nstruct s { char c; int i; };\n",
    "unterminated_call": "#define F(x) x\nint a = F(1;\n",
    "calls_nested_deeper_than_the_stack_allows":
        "#define F(x) x\nint a = " + "F(" * 5000 + "1" + ")" * 5000 + ";\n",
    "parentheses_deeper_than_the_stack_allows":
        "#if " + "(" * 5000 + "1" + ")" * 5000 + "\nint a;\n#endif\n",
}


def write_doc(tmp_path, name, body):
    path = tmp_path / f"{name}.coc"
    path.write_text(HEAD + body.lstrip("\n"))
    return path


@pytest.mark.parametrize("mode", ["gnu17", "c11"])
def test_each_feature_is_expanded_as_gcc_does(tmp_path, mode):
    """In gcc's default mode and an ISO one (where `, ## __VA_ARGS__` keeps
    its comma when the only, variadic, argument is empty)."""
    files = [write_doc(tmp_path, name, body) for name, body in FEATURES.items()]
    results = check(files, ["-dD", f"-std={mode}"])
    assert [line for how, line in results.values() if how != "self" or "differs" in line] == []


def test_what_the_expander_leaves_to_the_preprocessor(tmp_path):
    files = [write_doc(tmp_path, name, body) for name, body in FALLBACKS.items()]
    results = check(files, ["-dD"])
    wrong = [line for how, line in results.values() if how == "self" or "differs" in line]
    assert wrong == []


def test_a_change_that_only_gcc_can_expand_still_agrees(tmp_path):
    """The same document, with and without a construct the expander leaves
    alone: the first is the server's, the second the preprocessor's, and
    both agree with the whole text's."""
    plain = write_doc(tmp_path, "plain", "#define F(x) x\nint a = F(1);\n")
    counter = write_doc(tmp_path, "counter", "#define F(x) x\nint a = F(1) + __TIME__[0];\n")
    results = check([plain, counter], ["-dD"])
    assert results[str(plain)][0] == "self" and results[str(counter)][0] == "cpp", results
    assert all(line.endswith(" same") for how, line in results.values()), results


# Random documents: macros made of each other, of their parameters, # and
# ##, GNU's comma, called with arguments nested and over lines, among
# #undef and #if groups. Their expansion is what gcc says it is.
NAMES = ["A", "B", "C", "F", "G", "H", "K"]
WORDS = ["+", "-", "1", "x", "y", "*", '"s"', "'c'", "0x1", "(", ")", ",", "L", "e",
         r'"a\\b\""', r"'\''", "->", "...", ".", "%", "<", "<<", "="]
ARGS = ["", "1", "x y", "(a, b)", "A", "F", "+", "\n  z", "q", "- -"]


def random_body(rng, params):
    toks = []
    for _ in range(rng.randint(0, 6)):
        r = rng.random()
        if params and r < 0.35:
            p = rng.choice(params)
            toks.append("#" + p if rng.random() < 0.2 else p)
        else:
            toks.append(rng.choice(NAMES) if r < 0.55 else rng.choice(WORDS))
    out = []
    for i, t in enumerate(toks):
        out.append(t)
        after = toks[i + 1] if i + 1 < len(toks) else ""
        if after and rng.random() < 0.2 and (t.isidentifier() or t in params) \
                and (after.isidentifier() or after.isdigit()):
            out.append("##")
    return " ".join(out)


def random_call(rng, sig, depth=0):
    name = rng.choice(NAMES)
    if sig.get(name) is None:
        return name
    nparams, variadic = sig[name]
    count = nparams + (rng.randint(0, 2) if variadic else 0)
    args = [random_call(rng, sig, depth + 1) if depth < 2 and rng.random() < 0.35
            else rng.choice(ARGS) for _ in range(count)]
    return name + rng.choice(["", " ", "\n"]) + "(" + ",".join(args) + ")"


def random_document(rng):
    lines, sig = ["#include <stddef.h>"], {}
    for name in NAMES:
        if rng.random() < 0.5:
            params = rng.sample(["a", "b", "c"], rng.randint(0, 2))
            variadic = rng.random() < 0.3
            body = random_body(rng, params + (["__VA_ARGS__"] if variadic else []))
            if variadic and rng.random() < 0.5:
                body += " , ## __VA_ARGS__"
            lines.append(f"#define {name}({','.join(params + (['...'] if variadic else []))}) {body}")
            sig[name] = (len(params), variadic)
        elif rng.random() < 0.7:
            lines.append(f"#define {name} {random_body(rng, [])}")
    for _ in range(rng.randint(1, 6)):
        r = rng.random()
        if r < 0.1:
            lines.append("#undef " + rng.choice(NAMES))
        elif r < 0.2:
            lines += [rng.choice(["#ifdef ", "#ifndef ", "#if defined "]) + rng.choice(NAMES),
                      random_call(rng, sig) + ";", rng.choice(["#else", "#elif 1", "#elif 0"]),
                      random_call(rng, sig) + ";", "#endif"]
        elif r < 0.25:
            lines.append("int line = __LINE__ " + random_call(rng, sig) + ";")
        lines.append(" ".join(random_call(rng, sig) for _ in range(rng.randint(1, 3)))
                     + rng.choice([";", " +x;", "\n;"]))
    return "\n".join(lines) + "\n"


# random documents a test makes (the first half of --full's, from the same seed)
RANDOM_DOCS = 300 if FULL else 150


def test_random_macros_expand_as_gcc_does(tmp_path):
    """300 random documents (a fixed seed; 150 in the suite's sample): each
    that gcc expands without an error (most of them) the server expands
    itself, as gcc does."""
    rng = random.Random(31)
    docs = []
    for k in range(RANDOM_DOCS):
        doc = tmp_path / f"random{k}.coc"
        doc.write_text(random_document(rng))
        docs.append(doc)
    counts = tally(check(docs, ["-dD"]), "gcc's error")
    assert counts["self"] >= RANDOM_DOCS * 2 // 3 and counts["cpp"] * 20 <= counts["self"]


# Random #if expressions: constants of each kind and type, the operators,
# defined, ?:, macros for values. gcc decides the group taken, or rejects
# the expression (a division by zero, a constant too large): then the
# server must leave the body to it.
CONSTANTS = ["0", "1", "2", "7", "-1", "0x7fffffffffffffff", "0xffffffffffffffff",
             "18446744073709551615u", "9223372036854775807", "9223372036854775808", "1u", "2U",
             "3l", "4LL", "5ull", "0x10", "010", "0b101", "'a'", r"'\377'", r"'\n'", r"'\x7f'",
             r"'\0'", r"-'\200'", "TWO", "ZERO", "NEG", "BIG", "U1", "UNDEFINED"]
BINARY = ["+", "-", "*", "/", "%", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "^", "|",
          "&&", "||"]


def random_expression(rng, depth=0):
    r = rng.random()
    if depth > 3 or r < 0.3:
        return rng.choice(CONSTANTS)
    if r < 0.4:
        return rng.choice("-~!+") + random_expression(rng, depth + 1)
    if r < 0.5:
        return "(" + random_expression(rng, depth + 1) + ")"
    if r < 0.55:
        return " ? ".join([random_expression(rng, depth + 1),
                           random_expression(rng, depth + 1) + " : "
                           + random_expression(rng, depth + 1)])
    if r < 0.6:
        return rng.choice(["defined TWO", "defined(UNDEFINED)", "defined ZERO", "!defined(NEG)"])
    return " ".join([random_expression(rng, depth + 1), rng.choice(BINARY),
                     random_expression(rng, depth + 1)])


def test_random_if_expressions_as_gcc_decides(tmp_path):
    """300 documents of 4 random #if each (a fixed seed; 150 in the suite's
    sample): the groups gcc takes, the server takes; an expression gcc
    rejects, the server leaves to it."""
    rng = random.Random(7)
    docs = []
    for k in range(RANDOM_DOCS):
        lines = ["#include <stddef.h>", "#define TWO 2", "#define ZERO 0", "#define NEG (-1)",
                 "#define BIG 0xffffffffffffffffu", "#define U1 1u"]
        for i in range(4):
            lines += [f"#if {random_expression(rng)}", f"int t{i};", "#else", f"int f{i};",
                      "#endif"]
        doc = tmp_path / f"if{k}.coc"
        doc.write_text("\n".join(lines) + "\n")
        docs.append(doc)
    counts = tally(check(docs, ["-dD"]), "gcc's error")
    assert counts["self"] >= RANDOM_DOCS * 2 // 3 and counts["outside"] >= RANDOM_DOCS // 12
