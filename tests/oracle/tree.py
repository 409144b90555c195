"""The tree of a generated program, its rendering as .coc and as plain C,
and the checks the shrinker needs (every name still means the object it
meant). Standard library only.

An expression is a Tmpl: a format with placeholders @e0.. (its
sub-expressions), @v0.. (names of variables, resolved at render time) and
@S (the program's suffix), with an optional second format for the plain-C
reference (an `await` is a direct call there). Statements are small
classes; every one renders to a list of lines.
"""
import re

_PH = re.compile(r"@([ev])(\d+)|@S")


class Var:
    """One object of the program. kind: u (unsigned), arr (n), arr2 (r, c),
    pt (struct pt), sa (struct sa), ps (struct pt [n]), chr (char [8]),
    chr2 (char [2][8]), ptr (unsigned *, ext), ppt (struct pt *, ext),
    hp (struct hp, ext of .p), cp (char *)."""
    _n = 0

    def __init__(self, name, kind, depth, **kw):
        Var._n += 1
        self.uid = Var._n
        self.name = name
        self.kind = kind
        self.depth = depth
        self.n = kw.get("n", 0)
        self.r = kw.get("r", 0)
        self.c = kw.get("c", 0)
        self.ext = kw.get("ext", 1)
        self.mtd = kw.get("mtd", depth)   # innermost depth of what a pointer may point to
        self.addressable = kw.get("addressable", True)
        self.readonly = kw.get("readonly", False)
        self.hidden = kw.get("hidden", False)   # never read by generated expressions
        self.typeof = kw.get("typeof", False)   # an array declared `__typeof__(T[N]) name`
        self.cleanup = kw.get("cleanup", None)
        self.const = kw.get("const", False)

    def ctype(self):
        """(prefix, suffix) of the declaration: prefix NAME suffix."""
        pre, suf = self.written_type()
        return (f"__typeof__({pre}{suf})", "") if self.typeof else (pre, suf)

    def written_type(self):
        """(prefix, suffix) of the type as C writes it around a name."""
        k = self.kind
        if k == "u":
            return ("const unsigned" if self.const else "unsigned"), ""
        if k == "arr":
            return "unsigned", f"[{self.n}]"
        if k == "arr2":
            return "unsigned", f"[{self.r}][{self.c}]"
        if k == "pt":
            return "struct pt", ""
        if k == "sa":
            return "struct sa", ""
        if k == "ps":
            return "struct pt", f"[{self.n}]"
        if k == "chr":
            return "char", "[8]"
        if k == "chr2":
            return "char", "[2][8]"
        if k == "ptr":
            return "unsigned *", ""
        if k == "ppt":
            return "struct pt *", ""
        if k == "hp":
            return "struct hp", ""
        if k == "cp":
            return "char *", ""
        raise ValueError(k)


class Tmpl:
    """An expression (or a part of a statement) made of a format, variables
    and sub-expressions."""

    def __init__(self, fmt, vars=(), subs=(), ref=None, tags=(), naw=0, pure_slot=True):
        self.fmt = fmt
        self.ref = ref
        self.vars = list(vars)
        self.subs = list(subs)
        self.tags = set(tags)
        self.naw_self = naw       # awaits this node itself makes (0 or 1)
        self.reads = set()
        self.writes = set()
        self.replaceable = pure_slot   # the shrinker may put 0u in its place

    def render(self, mode, S):
        fmt = self.ref if (mode == "ref" and self.ref is not None) else self.fmt

        def sub(m):
            if m.group(0) == "@S":
                return S
            i = int(m.group(2))
            if m.group(1) == "v":
                return self.vars[i].name
            return self.subs[i].render(mode, S)
        return _PH.sub(sub, fmt)

    def walk(self):
        yield self
        for s in self.subs:
            yield from s.walk()


class StmtExpr(Tmpl):
    """({ stmts; final; }): statements of its own scope and a final value."""

    def __init__(self, stmts, final, tags=()):
        super().__init__("", subs=[final], tags=tags)
        self.stmts = stmts

    def render(self, mode, S):
        parts = []
        for s in self.stmts:
            parts.extend(l.strip() for l in s.render(mode, S, 0))
        parts.append(self.subs[0].render(mode, S) + ";")
        return "({ " + " ".join(parts) + " })"

    def walk(self):
        yield self
        for s in self.stmts:
            for e in s.exprs_deep():
                yield from e.walk()
        yield from self.subs[0].walk()


def ind(n):
    return "  " * n


class Stmt:
    keep = False   # the shrinker may not delete it
    tags = frozenset()

    def exprs(self):
        """The full expressions of this statement itself."""
        return []

    def blocks(self):
        return []

    def exprs_deep(self):
        yield from self.exprs()
        for b in self.blocks():
            for s in b.stmts:
                yield from s.exprs_deep()


class Simple(Stmt):
    """A statement given as a format (see Tmpl) with its own expressions."""

    def __init__(self, fmt, vars=(), subs=(), ref=None, tags=(), keep=False):
        self.t = Tmpl(fmt, vars, subs, ref)
        self.tags = set(tags)
        self.keep = keep

    def render(self, mode, S, d):
        return [ind(d) + l for l in self.t.render(mode, S).split("\n")]

    def exprs(self):
        return list(self.t.subs)


class Decl(Stmt):
    def __init__(self, var, init, tags=()):
        self.var = var
        self.init = init          # a Tmpl (may be an initializer list)
        self.tags = set(tags)

    def render(self, mode, S, d):
        pre, suf = self.var.ctype()
        attr = ""
        if self.var.cleanup:
            attr = f" __attribute__((cleanup({self.var.cleanup})))"
        sp = "" if pre.endswith("*") else " "
        return [f"{ind(d)}{pre}{sp}{self.var.name}{suf}{attr} = {self.init.render(mode, S)};"]

    def exprs(self):
        return [self.init]


class Block(Stmt):
    def __init__(self, stmts=None, tags=()):
        self.stmts = stmts if stmts is not None else []
        self.tags = set(tags)

    def render(self, mode, S, d):
        out = [ind(d) + "{"]
        for s in self.stmts:
            out.extend(s.render(mode, S, d + 1))
        out.append(ind(d) + "}")
        return out

    def blocks(self):
        return [self]


class If(Stmt):
    def __init__(self, cond, then, els=None, tags=()):
        self.cond, self.then, self.els = cond, then, els
        self.tags = set(tags)

    def render(self, mode, S, d):
        out = [f"{ind(d)}if ({self.cond.render(mode, S)})"]
        out.extend(self.then.render(mode, S, d))
        if self.els is not None:
            out.append(ind(d) + "else")
            out.extend(self.els.render(mode, S, d))
        return out

    def exprs(self):
        return [self.cond]

    def blocks(self):
        return [self.then] + ([self.els] if self.els is not None else [])


class Loop(Stmt):
    """for: for (unsigned V = 0u; V < N [&& extra]; V++ | V += 1u + (step & 1u))
    while: { unsigned V = 0u; while (V < N [&& extra]) { V++; body } }
    do: { unsigned V = 0u; do { V++; body } while (V < N [&& extra]); }
    macro: { unsigned V = 0u; LOOP_COUNT(V, N) body } or LOOP_UPTO(V, N, extra), where
    extra never awaits (a macro's arguments may not)"""

    def __init__(self, kind, var, n, body, extra=None, step=None, tags=(), init=None):
        self.kind, self.var, self.n, self.body = kind, var, n, body
        self.extra, self.step = extra, step
        self.init = init          # the counter starts at (init & 1u), or 0u
        self.tags = set(tags)

    def render(self, mode, S, d):
        v = self.var.name
        start = "0u" if self.init is None else f"({self.init.render(mode, S)} & 1u)"
        cond = f"{v} < {self.n}u"
        if self.extra is not None:
            cond += f" && {self.extra.render(mode, S)}"
        body = self.body.render(mode, S, d + (0 if self.kind == "for" else 1))
        if self.kind == "macro":
            head = (f"LOOP_COUNT({v}, {self.n}u)" if self.extra is None
                    else f"LOOP_UPTO({v}, {self.n}u, ({self.extra.render(mode, S)}))")
            return ([f"{ind(d)}{{", f"{ind(d + 1)}unsigned {v} = {start};", f"{ind(d + 1)}{head}"]
                    + body + [f"{ind(d)}}}"])
        if self.kind == "for":
            step = f"{v}++" if self.step is None else f"{v} += 1u + ({self.step.render(mode, S)} & 1u)"
            return [f"{ind(d)}for (unsigned {v} = {start}; {cond}; {step})"] + body
        inc = f"{ind(d + 2)}{v}++;"
        body = [body[0], inc] + body[1:]
        if self.kind == "while":
            return ([f"{ind(d)}{{", f"{ind(d + 1)}unsigned {v} = {start};", f"{ind(d + 1)}while ({cond})"]
                    + body + [f"{ind(d)}}}"])
        return ([f"{ind(d)}{{", f"{ind(d + 1)}unsigned {v} = {start};", f"{ind(d + 1)}do"] + body[:-1]
                + [body[-1] + f" while ({cond});", f"{ind(d)}}}"])

    def exprs(self):
        return [e for e in (self.extra, self.step, self.init) if e is not None]

    def blocks(self):
        return [self.body]


class Case:
    def __init__(self, labels, body, brk):
        self.labels, self.body, self.brk = labels, body, brk


class Switch(Stmt):
    def __init__(self, expr, cases, tags=()):
        self.expr, self.cases = expr, cases
        self.tags = set(tags)

    def render(self, mode, S, d):
        out = [f"{ind(d)}switch ({self.expr.render(mode, S)}) {{"]
        for c in self.cases:
            out.append(ind(d) + " ".join("default:" if l == "default" else f"case {l}:" for l in c.labels))
            out.extend(c.body.render(mode, S, d + 1))
            if c.brk:
                out.append(ind(d + 1) + "break;")
        out.append(ind(d) + "}")
        return out

    def exprs(self):
        return [self.expr]

    def blocks(self):
        return [c.body for c in self.cases]


class FwdRegion(Stmt):
    """{ body } LABEL: ; -- the body may `goto LABEL` from any depth."""

    def __init__(self, label, body, tags=()):
        self.label, self.body = label, body
        self.tags = set(tags)

    def render(self, mode, S, d):
        return self.body.render(mode, S, d) + [f"{ind(d)}{self.label}: ;"]

    def blocks(self):
        return [self.body]


class BackRegion(Stmt):
    """{ unsigned CNT = 0u; LABEL: ; body... } -- the body may jump back to
    LABEL (above its own declarations) while CNT++ < its limit."""

    def __init__(self, label, cnt, body, tags=()):
        self.label, self.cnt, self.body = label, cnt, body
        self.tags = set(tags)

    def render(self, mode, S, d):
        out = [ind(d) + "{", f"{ind(d + 1)}unsigned {self.cnt.name} = 0u;", f"{ind(d + 1)}{self.label}: ;"]
        for s in self.body.stmts:
            out.extend(s.render(mode, S, d + 1))
        out.append(ind(d) + "}")
        return out

    def blocks(self):
        return [self.body]


# {==================================================================
# Programs
# ===================================================================

class Func:
    def __init__(self, name, body, ret):
        self.name, self.body, self.ret = name, body, ret   # ret: the final Simple return


class Program:
    """kind: gen (generator of unsigned), cgen (generator of char *), task.
    children: list of (Func, above) -- tasks awaited by the top one."""

    def __init__(self, seed, kind, top, children, a0, limit, mask):
        self.seed, self.kind, self.top, self.children = seed, kind, top, children
        self.a0, self.limit, self.mask = a0, limit, mask
        self.param = None

    def suffix(self):
        return str(self.seed)

    # .coc --------------------------------------------------------------
    def render_coc(self):
        S = self.suffix()
        out = [f"/* program seed {self.seed} ({self.kind}) */"]
        above = [c for c, a in self.children if a]
        below = [c for c, a in self.children if not a]
        for c in below:
            out.append(f"coroutine unsigned {c.name}_{S}(unsigned {self.param.name});")
        for c in above:
            out.extend(self._coc_func(c, "unsigned", S))
        t = {"gen": "unsigned", "cgen": "char *", "task": "unsigned"}[self.kind]
        out.extend(self._coc_func(self.top, t, S))
        for c in below:
            out.extend(self._coc_func(c, "unsigned", S))
        out.extend(self._coc_driver(S))
        return "\n".join(out) + "\n"

    def _coc_func(self, f, t, S):
        sp = "" if t.endswith("*") else " "
        out = [f"coroutine {t}{sp}{f.name}_{S}(unsigned {self.param.name})"]
        out.extend(f.body.render("coc", S, 0))
        return out

    def _coc_driver(self, S):
        if self.kind == "task":
            return [f"coroutine void run_{S}(void) {{",
                    f"  unsigned r = await top_{S}({self.a0}u);",
                    "  fold(r);", "}",
                    f"static void drive_{S}(void) {{",
                    "  ck = CK_BASIS;",
                    f"  coro_spawn(run_{S}());",
                    "  coro_run();",
                    f"  printf(\"seed {self.seed}: %016llx\\n\", ck);", "  fflush(stdout);", "}"]
        vt = "char *" if self.kind == "cgen" else "unsigned"
        fold = "fold_str(v)" if self.kind == "cgen" else "fold(v)"
        resume = ("coro_next(g, &v)" if self.kind == "cgen" else
                  f"((0x{self.mask:08x}u >> (n & 31u)) & 1u) ? coro_send(g, &in, &v) : coro_next(g, &v)")
        return [f"static void drive_{S}(void) {{",
                "  ck = CK_BASIS;",
                f"  coro_t *g = top_{S}({self.a0}u);",
                f"  {vt} v = 0;",
                "  unsigned in = 7u, n = 0u;",
                f"  while (n < {self.limit}u) {{",
                "    if (n)",
                f"      in = hsend({'0u' if self.kind == 'cgen' else 'v'}, n);",
                f"    bool ok = {resume};",
                "    if (!ok)",
                "      break;",
                f"    {fold};",
                "    n++;",
                "  }",
                "  int done = coro_done(g);",
                "  coro_free(g);",
                "  fold(n);",
                "  fold((unsigned)done);",
                f"  printf(\"seed {self.seed}: %016llx\\n\", ck);",
                "  fflush(stdout);",
                f"  fprintf(stderr, \"stat {self.seed} stopped=%d\\n\", !done);",
                "}"]

    # plain C reference -------------------------------------------------
    def render_ref(self):
        S = self.suffix()
        out = [f"/* program seed {self.seed} ({self.kind}): the reference */"]
        if self.kind != "task":
            vt = "const char *" if self.kind == "cgen" else "unsigned"
            fold = "fold_str(v)" if self.kind == "cgen" else "fold(v)"
            send = ("0u" if self.kind == "cgen" else
                    f"((0x{self.mask:08x}u >> (n_{S} & 31u)) & 1u) ? hsend(v, n_{S}) : 0u")
            out += [f"static unsigned n_{S}, sent_{S};",
                    f"static int stop_{S};",
                    f"static int y_{S}({vt} v) {{",
                    f"  {fold};",
                    f"  n_{S}++;",
                    f"  if (n_{S} >= {self.limit}u) {{",
                    f"    stop_{S} = 1;",
                    "    return 1;",
                    "  }",
                    f"  sent_{S} = {send};",
                    "  return 0;",
                    "}"]
        for c, _ in self.children:
            out.append(f"static unsigned {c.name}_{S}(unsigned {self.param.name});")
        for c, _ in self.children:
            out.append(f"static unsigned {c.name}_{S}(unsigned {self.param.name})")
            out.extend(c.body.render("ref", S, 0))
        t = "unsigned" if self.kind == "task" else "void"
        out.append(f"static {t} top_{S}(unsigned {self.param.name})")
        out.extend(self.top.body.render("ref", S, 0))
        out.append(f"static void drive_{S}(void) {{")
        out.append("  ck = CK_BASIS;")
        if self.kind == "task":
            out.append(f"  fold(top_{S}({self.a0}u));")
        else:
            out += [f"  n_{S} = 0u;", f"  stop_{S} = 0;", f"  top_{S}({self.a0}u);",
                    f"  fold(n_{S});", f"  fold((unsigned)!stop_{S});",
                    f"  fprintf(stderr, \"stat {self.seed} stopped=%d\\n\", stop_{S});"]
        out.append(f"  printf(\"seed {self.seed}: %016llx\\n\", ck);")
        out.append("  fflush(stdout);")
        out.append("}")
        return "\n".join(out) + "\n"

    # what the program holds --------------------------------------------
    def funcs(self):
        return [c for c, _ in self.children] + [self.top]

    def all_stmts(self):
        def walk(b):
            for s in b.stmts:
                yield s
                for bb in s.blocks():
                    yield from walk(bb)
                for e in s.exprs():
                    for n in e.walk():
                        if isinstance(n, StmtExpr):
                            yield from walk(Block(n.stmts))
        for f in self.funcs():
            yield from walk(f.body)

    def tags(self):
        t = set()
        for s in self.all_stmts():
            t |= s.tags
            for e in s.exprs():
                naw = 0
                for n in e.walk():
                    t |= n.tags
                    naw += n.naw_self
                if naw >= 2:
                    t.add("multi_await")
        t |= shadow_tags(self)
        t.add("kind_" + self.kind)
        if any(not a for _, a in self.children):
            t.add("child_heap")
        if any(a for _, a in self.children):
            t.add("child_inline")
        return t


PRELUDE = r"""#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#define CK_BASIS 14695981039346656037ull
static unsigned long long ck;
static void fold(unsigned long long v) { ck = (ck ^ v) * 1099511628211ull; }
static void fold_str(const char *s) {
  for (int i = 0; i < 8 && s[i]; i++)
    fold((unsigned char)s[i]);
  fold(0x5eu);
}
static unsigned hsend(unsigned v, unsigned n) { return v * 2654435761u + n * 40503u + 1u; }
static unsigned mix(unsigned a, unsigned b) { return a * 31u + (b ^ (a >> 3)); }
static unsigned sum4(const unsigned *p) { return p[0] + 3u * p[1] + 5u * p[2] + 7u * p[3]; }
static void put(unsigned *p, unsigned v) { *p = v; }
static void cl_u(unsigned *p) { fold(*p ^ 0xc1c1u); }
static void cl_p(unsigned **p) { fold(**p ^ 0xc2c2u); }
struct pt { unsigned x, y; };
static void cl_pt(struct pt *p) { fold(p->x * 3u + p->y); }
struct sa { unsigned n; unsigned v[4]; char t[8]; };
struct hp { unsigned *p; unsigned k; };
/* loops whose head is a macro's use (language.md): one macro made of another */
#define LOOP_UPTO(v, n, c) for (; (v) < (n) && (c); (v)++)
#define LOOP_COUNT(v, n) LOOP_UPTO(v, n, 1)
/* jumps that coroc does not see (a function that uses one keeps every local in its frame) */
#define JUMP_IF(c, label) do { if (c) goto label; } while (0)
#define BREAK_IF(c) if (!(c)) {} else break
#define CONTINUE_IF(c) if (!(c)) {} else continue
/* a macro that takes its argument's address */
#define PTR(a) (&(a))
/* an argument that is not C: the operator of a comparison */
#define CMP(a, op, b) ((a) op (b))
"""


MAIN = r"""static volatile unsigned cur_seed;
static void on_alarm(int sig) {
  (void)sig;
  char buf[48];
  int n = snprintf(buf, sizeof buf, "seed %u: hang\n", cur_seed);
  ssize_t w = write(1, buf, (size_t)n);
  (void)w;
  _exit(3);
}
/* main [FIRST]: run the programs from index FIRST on (after one that
   crashed); a program that runs longer than a second prints `hang`. */
int main(int argc, char **argv) {
  int first = argc > 1 ? atoi(argv[1]) : 0;
  signal(SIGALRM, on_alarm);
  for (int i = first; i < (int)(sizeof seeds / sizeof seeds[0]); i++) {
    cur_seed = seeds[i];
    struct itimerval t = {{0, 0}, {1, 0}};
    setitimer(ITIMER_REAL, &t, 0);
    drives[i]();
  }
  struct itimerval z = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &z, 0);
  return 0;
}
"""


def render_bundle(programs, mode):
    """One file of many programs: the .coc (mode coc) or the reference C."""
    out = [PRELUDE]
    for p in programs:
        out.append(p.render_coc() if mode == "coc" else p.render_ref())
    out.append("static void (*const drives[])(void) = {"
               + ", ".join(f"drive_{p.suffix()}" for p in programs) + "};")
    out.append("static const unsigned seeds[] = {" + ", ".join(str(p.seed) for p in programs) + "};")
    out.append(MAIN)
    return "\n".join(out)


# {==================================================================
# Names: each use still means the object it meant
# ===================================================================

def _scoped_walk(prog, on_decl, on_use):
    """Walk every function in C's scopes: on_decl(var, scopes) at each
    declaration, on_use(var, scopes) at each use of a variable."""
    def expr(e, scopes):
        if isinstance(e, StmtExpr):
            scopes.append({})
            for s in e.stmts:
                stmt(s, scopes)
            expr(e.subs[0], scopes)
            scopes.pop()
            return
        for v in e.vars:
            on_use(v, scopes)
        for s in e.subs:
            expr(s, scopes)

    def declare(v, scopes):
        on_decl(v, scopes)
        scopes[-1][v.name] = v

    def block(b, scopes, fresh=True):
        if fresh:
            scopes.append({})
        for s in b.stmts:
            stmt(s, scopes)
        if fresh:
            scopes.pop()

    def stmt(s, scopes):
        if isinstance(s, Decl):
            for e in s.exprs():
                expr(e, scopes)
            declare(s.var, scopes)
        elif isinstance(s, Loop):
            scopes.append({})
            declare(s.var, scopes)
            for e in s.exprs():
                expr(e, scopes)
            block(s.body, scopes)
            scopes.pop()
        elif isinstance(s, BackRegion):
            scopes.append({})
            declare(s.cnt, scopes)
            block(s.body, scopes, fresh=False)
            scopes.pop()
        else:
            for e in s.exprs():
                expr(e, scopes)
            for b in s.blocks():
                block(b, scopes)

    for f in prog.funcs():
        scopes = [{}]
        declare(prog.param, scopes)
        block(f.body, scopes)


def resolves(prog):
    """True when every use of a variable names the object it was made for."""
    ok = [True]

    def use(v, scopes):
        for sc in reversed(scopes):
            if v.name in sc:
                if sc[v.name] is not v:
                    ok[0] = False
                return
        ok[0] = False

    def decl(v, scopes):
        if v.name in scopes[-1]:
            ok[0] = False

    try:
        _scoped_walk(prog, decl, use)
    except RecursionError:
        return False
    return ok[0]


def shadow_tags(prog):
    t = set()

    def decl(v, scopes):
        if any(v.name in sc for sc in scopes[:-1]):
            t.add("shadowing")

    _scoped_walk(prog, decl, lambda v, s: None)
    return t
