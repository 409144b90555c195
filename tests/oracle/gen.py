#!/usr/bin/python3
"""Random, valid, deterministic .coc programs, each with its plain-C reference.

    gen.py --seed S [--count N] [--coc OUT.coc] [--ref OUT.c] [--tags]

writes the bundle of programs S .. S+N-1 (a .coc and its reference C). One
program is one top-level coroutine (a generator of unsigned or of char *,
or a task that awaits child tasks) and a driver that folds everything it
sees into a checksum and prints `seed N: CHECKSUM`.

No undefined behaviour by construction:
  - every computation is unsigned (wraps), every division is by a nonzero
    constant, every shift by a constant below 8;
  - every index is masked to the array's size (a power of two) or to what
    a pointer is known to reach (its extent);
  - every local is initialised where it is declared, and a forward goto
    only leaves blocks (it never skips a declaration of its own block);
  - a pointer points only to an object whose block encloses the pointer's
    own (so the object outlives it), a compound literal only from the
    declaration in its own block;
  - inside one full expression an assignment (or x++) writes only a scalar
    whose address is never taken, which no other unsequenced operand reads
    or writes (operands of && || ?: and the comma are sequenced);
  - statement expressions write only their own locals, and never suspend;
  - children are pure (they only compute their value), so the order in
    which C (or the stackless backend) evaluates awaits does not matter.
"""
import argparse
import random
import sys

try:
    from tree import (Block, BackRegion, Case, Decl, Func, FwdRegion, If, Loop, Program, Simple,
                      StmtExpr, Switch, Tmpl, Var, render_bundle)
except ImportError:   # imported as a package
    from .tree import (Block, BackRegion, Case, Decl, Func, FwdRegion, If, Loop, Program, Simple,
                       StmtExpr, Switch, Tmpl, Var, render_bundle)

NAMES = "xyzuvwtnmdefhbq"


def mk(fmt, vars=(), subs=(), ref=None, tags=(), naw=0, reads=(), writes=()):
    t = Tmpl(fmt, vars, subs, ref, tags, naw)
    for s in subs:
        t.reads |= s.reads
        t.writes |= s.writes
    t.reads |= set(reads)
    t.writes |= set(writes)
    t.naw = naw + sum(getattr(s, "naw", 0) for s in subs)
    return t


class EC:
    """What one full expression may still do: fr (may not read), fw (may
    not write), aw (may await), asg (may assign), jumps (a statement
    expression may jump out). condaw is shared by the whole expression:
    one ?: with an await in an arm at most."""

    def __init__(self, aw=False, asg=True, jumps=False, fr=(), fw=(), condaw=None):
        self.aw, self.asg, self.jumps = aw, asg, jumps
        self.fr, self.fw = set(fr), set(fw)
        self.condaw = condaw if condaw is not None else [False]

    def but(self, fr=(), fw=(), **kw):
        e = EC(self.aw, self.asg, self.jumps, self.fr | set(fr), self.fw | set(fw), self.condaw)
        for k, v in kw.items():
            setattr(e, k, v)
        return e


class Gen:
    def __init__(self, seed, without=()):
        self.seed = seed
        self.without = set(without)
        self.r = random.Random(seed)
        self.nlabel = 0
        self.nname = 0

    # ------------------------------------------------------------------
    def choose(self, weights):
        items = [(k, w) for k, w in weights.items() if w > 0]
        tot = sum(w for _, w in items)
        x = self.r.random() * tot
        for k, w in items:
            x -= w
            if x < 0:
                return k
        return items[-1][0]

    def p(self, prob):
        return self.r.random() < prob

    def const(self):
        r = self.r
        c = r.choice([r.randrange(0, 10), r.randrange(0, 100), r.randrange(0, 1 << 16),
                      r.randrange(0, 1 << 32)])
        return mk(f"{c}u")

    def fresh(self, base=None):
        self.nname += 1
        return (base or self.r.choice(NAMES)) + str(self.nname)

    def label(self, kind):
        self.nlabel += 1
        return f"{kind}{self.nlabel}"

    # scopes -------------------------------------------------------------
    @property
    def depth(self):
        return len(self.scopes)

    def visible(self):
        seen, out = set(self.blocked), []
        for sc in reversed(self.scopes):
            for name, v in sc.items():
                if name not in seen:
                    seen.add(name)
                    out.append(v)
        return out

    def vis(self, *kinds):
        return [v for v in self.visible() if v.kind in kinds and not v.hidden]

    def newname(self):
        """A name for a new local: now and then one that shadows an outer one."""
        cur = self.scopes[-1]
        if self.p(self.shadow_p):
            outer = [v.name for v in self.visible()
                     if v.name not in cur and v is not self.param and not v.hidden]
            if outer:
                return self.r.choice(outer)
        return self.fresh()

    def declare(self, v):
        self.scopes[-1][v.name] = v

    # expressions ----------------------------------------------------------
    def idx(self, ec):
        """A small pure index expression (it is masked where it is used)."""
        t = self._idx(ec)
        t.isval = True
        return t

    def _idx(self, ec):
        ec = ec.but(asg=False, aw=False, jumps=False)
        k = self.r.random()
        sc = [v for v in self.vis("u") if v not in ec.fr]
        if k < 0.45 and sc:
            v = self.r.choice(sc)
            return mk("@v0", [v], reads=[v])
        if k < 0.6 and sc:
            v = self.r.choice(sc)
            return mk(f"(@v0 + {self.r.randrange(1, 9)}u)", [v], reads=[v])
        return mk(f"{self.r.randrange(0, 8)}u")

    def leaf(self, ec):
        """A value read from some object, or a constant."""
        r = self.r
        opts = {"const": 3}
        sc = [v for v in self.vis("u") if v not in ec.fr]
        if sc:
            opts["scalar"] = 8
        aggs = [v for v in self.vis("arr", "arr2", "pt", "sa", "ps", "chr", "chr2", "ptr", "ppt", "hp", "cp")]
        if aggs:
            opts["agg"] = 7
        if not self.in_lit:
            opts["lit"] = 0.5 * self.w_lit
        k = self.choose(opts)
        if k == "const":
            return self.const()
        if k == "scalar":
            v = r.choice(sc)
            return mk("@v0", [v], reads=[v])
        if k == "lit":
            self.in_lit = True
            try:
                if self.p(0.5):
                    subs = [self.val(ec, 0) for _ in range(4)] + [self.idx(ec)]
                    return self._unseq("(unsigned[]){@e0, @e1, @e2, @e3}[@e4 & 3u]", subs, ec,
                                       tags=["compound_literal"])
                subs = [self.val(ec, 0), self.val(ec, 0)]
                return self._unseq(f"((struct pt){{@e0, @e1}}).{r.choice('xy')}", subs, ec,
                                   tags=["compound_literal"])
            finally:
                self.in_lit = False
        v = r.choice(aggs)
        i = self.idx(ec)
        K = v.kind
        if K == "arr":
            return mk(f"@v0[@e0 & {v.n - 1}u]", [v], [i])
        if K == "arr2":
            j = self.idx(ec)
            return mk(f"@v0[@e0 & {v.r - 1}u][@e1 & {v.c - 1}u]", [v], [i, j])
        if K == "pt":
            return mk(f"@v0.{r.choice('xy')}", [v])
        if K == "sa":
            if self.p(0.5):
                return mk("@v0.v[@e0 & 3u]", [v], [i])
            if self.p(0.5):
                return mk("(unsigned)@v0.t[@e0 & 7u]", [v], [i])
            return mk("@v0.n", [v])
        if K == "ps":
            return mk(f"@v0[@e0 & {v.n - 1}u].{r.choice('xy')}", [v], [i])
        if K == "chr":
            return mk("(unsigned)@v0[@e0 & 7u]", [v], [i])
        if K == "chr2":
            j = self.idx(ec)
            return mk("(unsigned)@v0[@e0 & 1u][@e1 & 7u]", [v], [i, j])
        if K == "ptr":
            if v.ext == 1 or self.p(0.3):
                return mk("*@v0", [v])
            return mk(f"@v0[@e0 & {v.ext - 1}u]", [v], [i])
        if K == "ppt":
            if v.ext == 1 or self.p(0.4):
                return mk(f"@v0->{r.choice('xy')}", [v])
            return mk(f"@v0[@e0 & {v.ext - 1}u].{r.choice('xy')}", [v], [i])
        if K == "hp":
            if self.p(0.3):
                return mk("@v0.k", [v])
            if v.ext == 1:
                return mk("*@v0.p", [v])
            return mk(f"@v0.p[@e0 & {v.ext - 1}u]", [v], [i])
        if K == "cp":
            return mk("(unsigned)@v0[@e0 & 3u]", [v], [i])
        raise ValueError(K)

    def _unseq(self, fmt, subs, ec, tags=(), **kw):
        """A node whose operands C leaves unsequenced: check that no operand
        writes what another reads or writes; replace the offender by a
        constant when one does."""
        seen_r, seen_w = set(), set()
        out = []
        for s in subs:
            if (s.writes & (seen_r | seen_w)) or (s.reads & seen_w):
                s = self.const()
            seen_r |= s.reads
            seen_w |= s.writes
            out.append(s)
        return mk(fmt, subs=out, tags=tags, **kw)

    def targets(self, ec):
        """Scalars an assignment inside an expression may write."""
        return [v for v in self.vis("u") if not v.addressable and not v.readonly and not v.const
                and v not in ec.fw and v not in ec.fr]

    def await_call(self, ec):
        kids = self.callable
        c = self.r.choice(kids)
        saved = self.in_aw
        self.in_aw = True
        arg = self.val(ec if not saved and self.p(0.3) else ec.but(aw=False), self.r.randrange(0, 2))
        self.in_aw = saved
        return mk(f"(await {c}_@S(@e0))", subs=[arg], ref=f"{c}_@S(@e0)", naw=1, tags=["await"])

    def val(self, ec, d):
        """An unsigned value (marked so, for the shrinker)."""
        t = self._val(ec, d)
        t.isval = True
        return t

    def _val(self, ec, d):
        r = self.r
        opts = {"leaf": 4 if d > 0 else 10}
        can_aw = ec.aw and self.callable
        if d > 0:
            opts.update(bin=5, cmp=1.5, cond=1.5, andor=1.5, call=1, comma=0.7)
            if ec.asg and self.targets(ec):
                opts["asg"] = 1.5 * self.w_asg
            if can_aw:
                opts["await"] = 3 * self.w_aw
                opts["sc"] = 2.5 * self.w_sc
            if not self.in_se and self.p(0.5):
                opts["se"] = 0.6 * self.w_se
        elif can_aw and self.p(0.25 * self.w_aw):
            return self.await_call(ec)
        k = self.choose(opts)
        if k == "leaf":
            return self.leaf(ec)
        if k == "await":
            return self.await_call(ec)
        if k == "bin":
            op = r.choice(["+", "-", "*", "^", "&", "|", "+", "^", "/", "%", "<<", ">>"])
            a = self.val(ec, d - 1)
            if op in ("/", "%"):
                return mk(f"(@e0 {op} {r.randrange(1, 10)}u)", subs=[a])
            if op in ("<<", ">>"):
                return mk(f"(@e0 {op} {r.randrange(0, 8)})", subs=[a])
            b = self.val(ec.but(fr=a.writes, fw=a.reads | a.writes), d - 1)
            return self._unseq(f"(@e0 {op} @e1)", [a, b], ec)
        if k == "cmp":
            op = r.choice(["<", "==", "!=", ">=", ">"])
            a = self.val(ec, d - 1)
            b = self.val(ec.but(fr=a.writes, fw=a.reads | a.writes), d - 1)
            if self.p(0.2) and not (a.naw or b.naw) and not any(
                    isinstance(n, StmtExpr) for e in (a, b) for n in e.walk()):
                # the operator as a macro's argument, which coroc cannot read as C: it keeps
                # the locals named there in the frame (no await in it: refused there)
                return self._unseq(f"(unsigned)CMP((@e0), {op}, (@e1))", [a, b], ec, tags=["raw_macro"])
            return self._unseq(f"(unsigned)(@e0 {op} @e1)", [a, b], ec)
        if k == "call":
            if self.p(0.1):
                a = self.val(ec.but(aw=False), d - 1)
                if not a.writes and not any(isinstance(n, StmtExpr) for n in a.walk()):
                    # an index that the builtin reads at run time (no side effect: gcc and clang
                    # need not agree on evaluating one)
                    return mk("(unsigned)__builtin_offsetof(struct sa, v[@e0 & 3u])", subs=[a],
                              tags=["offsetof_index"])
            if self.p(0.6):
                a = self.val(ec, d - 1)
                b = self.val(ec.but(fr=a.writes, fw=a.reads | a.writes), d - 1)
                return self._unseq("mix(@e0, @e1)", [a, b], ec)
            p = self.ptr_u(ec, min_ext=4)
            if p is None:
                return self.leaf(ec)
            return mk("sum4(@e0)", subs=[p], tags=p.tags)
        if k == "cond":
            return self.cond(ec, d)
        if k == "andor":
            a = self.val(ec, d - 1)
            b = self.val(ec, d - 1)
            op = r.choice(["&&", "||"])
            tags = []
            if b.naw:
                tags.append("sc_await")
            if b.writes:
                tags.append("sc_assign")
            return mk(f"(unsigned)(@e0 {op} @e1)", subs=[a, b], tags=tags)
        if k == "comma":
            a = self.val(ec, d - 1)
            b = self.val(ec, d - 1)
            return mk("(@e0, @e1)", subs=[a, b], tags=["comma_await"] if a.naw and b.naw else [])
        if k == "asg":
            return self.inner_assign(ec, d)
        if k == "sc":
            return self.sc_await(ec, d)
        if k == "se":
            return self.stmt_expr(ec)
        raise ValueError(k)

    def cond(self, ec, d):
        c = self.val(ec, d - 1)
        arm_ec = ec
        if ec.aw:
            if ec.condaw[0]:
                arm_ec = ec.but(aw=False)
            else:
                ec.condaw[0] = True
        a = self.val(arm_ec, d - 1)
        b = self.val(arm_ec, d - 1)
        tags = []
        if a.naw or b.naw:
            tags.append("sc_await")
        if a.writes or b.writes:
            tags.append("sc_assign")
        return mk("(@e0 ? @e1 : @e2)", subs=[c, a, b], tags=tags)

    def inner_assign(self, ec, d):
        rhs = self.val(ec, max(0, d - 1))
        ts = [v for v in self.targets(ec) if v not in rhs.writes]
        if not ts:
            return rhs
        v = self.r.choice(ts)
        k = self.r.random()
        if k < 0.15:
            return mk("@v0++", [v], reads=[v], writes=[v])
        if k < 0.3:
            return mk(f"(@v0 {self.r.choice(['+=', '^=', '|='])} @e0)", [v], [rhs], reads=[v], writes=[v])
        return mk("(@v0 = @e0)", [v], [rhs], writes=[v])

    def sc_await(self, ec, d):
        """&&, || and ?: with awaits on either side and assignments inside."""
        r = self.r
        left = self.val(ec.but(aw=self.p(0.5)), max(0, d - 1))

        def arm():
            a = self.await_call(ec)
            ts = [v for v in self.targets(ec) if v not in a.writes]
            if ts and self.p(0.6):
                v = r.choice(ts)
                return mk("(@v0 = @e0)", [v], [a], writes=[v])
            return a
        k = r.random()
        if k < 0.35:
            b = arm()
            n = mk("(unsigned)(@e0 && @e1)", subs=[left, b])
        elif k < 0.6:
            b = arm()
            n = mk("(unsigned)(@e0 || @e1)", subs=[left, b])
        elif k < 0.8 and not ec.condaw[0]:
            ec.condaw[0] = True
            a, b = arm(), (arm() if self.p(0.5) else self.val(ec.but(aw=False), 0))
            n = mk("(@e0 ? @e1 : @e2)", subs=[left, a, b])
        else:
            a = arm()
            b = self.await_call(ec)
            n = mk("(@e0, @e1)", subs=[a, b], tags=["comma_await"])
        n.tags |= {"sc_await"}
        if n.writes:
            n.tags.add("sc_assign")
        return n

    def stmt_expr(self, ec):
        """({ ... }): its own locals, maybe a loop, maybe a jump out."""
        r = self.r
        saved = self.in_se
        self.in_se = True
        self.scopes.append({})
        inner = EC(aw=False, asg=False, fr=ec.fr)
        t = Var(self.fresh("s"), "u", self.depth, addressable=False)
        stmts = [Decl(t, self.val(inner, 1))]
        self.declare(t)
        tags = ["stmt_expr"]
        if self.p(0.4):
            lv = Var(self.r.choice("jkl"), "u", self.depth + 1, readonly=True)
            self.scopes.append({lv.name: lv})
            e = self.val(inner, 1)
            self.scopes.pop()
            stmts.append(Loop("for", lv, r.randrange(1, 5),
                              Block([Simple(f"@v0 {r.choice(['+=', '^='])} @e0;", [t], [e])])))
        if ec.jumps:
            js = []
            if self.fwd:
                js.append("fwd")
            if self.back:
                js.append("back")
            if self.brk:
                js.append("break")
            if self.cont:
                js.append("continue")
            js = [j for j in js if "stmt_expr_" + j not in self.without]
            if "stmt_expr_continue_await" in self.without and self.loop_aw:
                js = [j for j in js if j != "continue"]
            if "stmt_expr_jump_cleanup" in self.without and any(
                    v.cleanup for sc in self.scopes for v in sc.values()):
                js = []
            if js:
                j = r.choice(js)
                c = self.val(inner, 1)
                if j == "fwd":
                    stmts.append(Simple(f"if (@e0) goto {r.choice(self.fwd)};", subs=[c]))
                elif j == "back":
                    lab, cnt, lim = r.choice(self.back)
                    stmts.append(Simple(f"if (@e0 && @v0++ < {lim}u) goto {lab};", [cnt], [c]))
                else:
                    stmts.append(Simple(f"if (@e0) {j};", subs=[c]))
                tags.append("stmt_expr_jump")
                tags.append("stmt_expr_" + j)
        if self.p(0.5):
            stmts.append(Simple(f"@v0 {r.choice(['+=', '^=', '*='])} @e0;", [t], [self.val(inner, 1)]))
        final = mk("@v0", [t], reads=[])
        self.scopes.pop()
        self.in_se = saved
        n = StmtExpr(stmts, final, tags=tags)
        n.reads, n.writes, n.naw = set(), set(), 0
        own = {t} | {s.var for s in stmts if isinstance(s, Loop)}
        for s in stmts:  # (deep: a loop's body reads too, and a jump back counts)
            for e in s.exprs_deep():
                n.reads |= {v for v in e.reads if v.depth <= self.depth and v not in own}
                n.writes |= {v for v in e.writes if v.depth <= self.depth and v not in own}
        return n

    # pointers -------------------------------------------------------------
    def ptr_u(self, ec, min_ext=1, lit=False, maxdepth=None):
        """An unsigned * to a live object: its extent (how many elements it
        reaches) and the depth of what it points to."""
        r = self.r
        md = self.depth if maxdepth is None else maxdepth
        opts = []
        for v in self.visible():
            if v.hidden or v.depth > md:
                continue
            K = v.kind
            if K == "u" and v.addressable and not v.const:
                opts.append(("&@v0", v, 1, ["address_escape"] + (["param_address"] if v is self.param else []), []))
                # the `&` inside a macro, which coroc does not see (it keeps the local all the same)
                opts.append(("PTR(@v0)", v, 1, ["address_escape", "macro_address"], []))
            elif K == "arr":
                opts.append(("@v0", v, v.n, ["array_decay"], []))
                opts.append((f"&@v0[@e0 & {v.n // 2 - 1}u]", v, v.n // 2, ["address_escape"], [1]))
            elif K == "arr2":
                opts.append((f"@v0[@e0 & {v.r - 1}u]", v, v.c, ["row_2d"], [1]))
                opts.append((f"&@v0[@e0 & {v.r - 1}u][@e1 & {v.c - 1}u]", v, 1, ["address_escape"], [1, 1]))
            elif K == "pt":
                opts.append((f"&@v0.{r.choice('xy')}", v, 1, ["address_escape"], []))
            elif K == "sa":
                opts.append(("@v0.v", v, 4, ["struct_array_member"], []))
                opts.append(("&@v0.v[@e0 & 1u]", v, 2, ["address_escape"], [1]))
                opts.append(("&@v0.n", v, 1, ["address_escape"], []))
            elif K == "ps":
                opts.append((f"&@v0[@e0 & {v.n - 1}u].{r.choice('xy')}", v, 1, ["address_escape"], [1]))
            elif K == "ptr" and v.mtd <= md:
                opts.append(("@v0", v, v.ext, ["ptr_copy"], []))
            elif K == "hp" and v.mtd <= md:
                opts.append(("@v0.p", v, v.ext, ["ptr_in_struct"], []))
            elif K == "ppt" and v.mtd <= md:
                opts.append((f"&@v0->{r.choice('xy')}", v, 1, ["address_escape"], []))
        opts = [o for o in opts if o[2] >= min_ext]
        if lit and self.p(0.3 * self.w_lit):
            if min_ext <= 1 and self.p(0.4):
                subs = [self.val(ec, 0), self.val(ec, 0)]
                t = self._unseq(f"&(struct pt){{@e0, @e1}}.{r.choice('xy')}", subs, ec,
                                tags=["compound_literal", "compound_literal_addr"])
                t.ext, t.mtd = 1, self.depth
                return t
            subs = [self.val(ec, 0) for _ in range(4)]
            t = self._unseq("(unsigned[]){@e0, @e1, @e2, @e3}", subs, ec,
                            tags=["compound_literal", "compound_literal_addr"])
            t.ext, t.mtd = 4, self.depth
            return t
        if not opts:
            return None
        fmt, v, ext, tags, idxs = r.choice(opts)
        subs = [self.idx(ec) for _ in idxs]
        t = mk(fmt, [v], subs, tags=tags)
        t.ext = ext
        t.mtd = v.mtd if v.kind in ("ptr", "hp", "ppt") else v.depth
        return t

    def ptr_pt(self, ec, lit=False):
        r = self.r
        opts = []
        for v in self.visible():
            if v.hidden:
                continue
            if v.kind == "pt":
                opts.append(("&@v0", v, 1, [], ["address_escape"]))
            elif v.kind == "ps":
                opts.append(("@v0", v, v.n, [], ["array_decay"]))
                opts.append((f"&@v0[@e0 & {v.n - 1}u]", v, 1, [1], ["address_escape"]))
            elif v.kind == "ppt":
                opts.append(("@v0", v, v.ext, [], ["ptr_copy"]))
        if lit and (not opts or self.p(0.3 * self.w_lit)):
            subs = [self.val(ec, 0), self.val(ec, 0)]
            t = self._unseq("&(struct pt){@e0, @e1}", subs, ec, tags=["compound_literal", "compound_literal_addr"])
            t.ext, t.mtd = 1, self.depth
            return t
        if not opts:
            return None
        fmt, v, ext, idxs, tags = r.choice(opts)
        t = mk(fmt, [v], [self.idx(ec) for _ in idxs], tags=tags)
        t.ext = ext
        t.mtd = v.mtd if v.kind == "ppt" else v.depth
        return t

    def ptr_c(self, ec):
        """A char * to a NUL-terminated string (every char array has its
        [7] zero, and writes reach at most [6])."""
        opts = []
        for v in self.visible():
            if v.hidden:
                continue
            if v.kind == "chr":
                opts.append(("@v0", v, [], ["array_decay"]))
                opts.append(("&@v0[@e0 & 3u]", v, [1], ["address_escape"]))
            elif v.kind == "chr2":
                opts.append(("@v0[@e0 & 1u]", v, [1], ["row_2d"]))
            elif v.kind == "sa":
                opts.append(("@v0.t", v, [], ["struct_array_member"]))
            elif v.kind == "cp":
                opts.append(("@v0", v, [], ["ptr_copy"]))
        if not opts:
            return None
        fmt, v, idxs, tags = self.r.choice(opts)
        t = mk(fmt, [v], [self.idx(ec) for _ in idxs], tags=tags)
        t.mtd = v.mtd if v.kind == "cp" else v.depth
        return t

    # statements -----------------------------------------------------------
    def ec(self, **kw):
        kw.setdefault("aw", self.fn_task)
        kw.setdefault("asg", True)
        return EC(**kw)

    def lvalue(self, ec):
        """An lvalue of type unsigned to store to, and its tags."""
        r = self.r
        opts = []
        for v in self.visible():
            if v.hidden or v.readonly or v.const:
                continue
            if v.kind == "u" and v not in ec.fw:
                opts.append(("@v0", v, []))
            elif v.kind == "arr":
                opts.append((f"@v0[@e0 & {v.n - 1}u]", v, [1]))
            elif v.kind == "arr2":
                opts.append((f"@v0[@e0 & {v.r - 1}u][@e1 & {v.c - 1}u]", v, [1, 1]))
            elif v.kind == "pt":
                opts.append((f"@v0.{r.choice('xy')}", v, []))
            elif v.kind == "sa":
                opts.append(("@v0.v[@e0 & 3u]", v, [1]))
                opts.append(("@v0.n", v, []))
            elif v.kind == "ps":
                opts.append((f"@v0[@e0 & {v.n - 1}u].{r.choice('xy')}", v, [1]))
            elif v.kind == "ptr":
                opts.append(("*@v0" if v.ext == 1 else f"@v0[@e0 & {v.ext - 1}u]", v, [1] if v.ext > 1 else []))
            elif v.kind == "ppt":
                opts.append((f"@v0->{r.choice('xy')}", v, []))
            elif v.kind == "hp":
                opts.append(("*@v0.p" if v.ext == 1 else f"@v0.p[@e0 & {v.ext - 1}u]", v, [1] if v.ext > 1 else []))
                opts.append(("@v0.k", v, []))
        if not opts:
            return None
        fmt, v, idxs = r.choice(opts)
        t = mk(fmt, [v], [self.idx(ec) for _ in idxs])
        t.target = v if v.kind == "u" else None
        return t

    def weights(self):
        w = dict(self.W)
        if self.in_se:
            return {}
        if not self.fn_gen:
            w["yield_"] = w["yrecv"] = 0
        if self.fn_kind != "gen":
            w["yrecv"] = 0
        if not self.fn_task:
            w["ybare"] = w["sleep"] = w["awaitst"] = 0
        if not self.callable:
            w["awaitst"] = 0
        if self.pure:
            w["fold"] = w["decl_cleanup"] = 0
        if self.jmacro:  # a macro's jump may not leave a cleanup's scope; its regions are where
            w["decl_cleanup"] = 0  # a jump may skip a store
            w["fwd"] *= 2
        if not self.brk:
            w["brk"] = 0
        if not self.cont:
            w["cont"] = 0
        if not self.fwd:
            w["gotofwd"] = 0
        if not self.back:
            w["gotoback"] = 0
        if not (self.fwd or self.back or self.brk or self.cont):
            w["sejump"] = 0
        if self.nest >= 4 or self.budget < 3:
            for k in ("if_", "loop", "switch", "block", "fwd", "back"):
                w[k] = 0
        for k in self.without:
            if k in w:
                w[k] = 0
        return w

    def stmts(self, n):
        out = []
        for _ in range(n):
            if self.budget <= 0 and out:
                break
            out.extend(self.stmt())
        return out

    def sub_block(self, n, push=True, fresh_scope=True):
        self.nest += 1
        if fresh_scope:
            self.scopes.append({})
        b = Block(self.stmts(n))
        if fresh_scope:
            self.scopes.pop()
        self.nest -= 1
        return b

    def stmt(self):
        """A list of statements (usually one)."""
        r = self.r
        self.budget -= 1
        k = self.choose(self.weights())
        fn = getattr(self, "s_" + k)
        res = fn()
        if res is None:
            return []
        return res if isinstance(res, list) else [res]

    def named(self, make):
        """make(name) under a name of a new local: C puts the name in
        scope within its own initializer, so the initializer may not read
        an outer object of that name."""
        name = self.newname()
        self.blocked.add(name)
        try:
            return make(name)
        finally:
            self.blocked.discard(name)

    def s_decl_u(self):
        return self.named(self._decl_u)

    def _decl_u(self, name):
        ec = self.ec()
        init = self.val(ec, r_depth(self.r))
        v = Var(name, "u", self.depth, addressable=self.p(0.35), const=self.p(0.05))
        self.declare(v)
        return Decl(v, init)

    def s_decl_agg(self):
        return self.named(self._decl_agg)

    def _decl_agg(self, name):
        r = self.r
        ec = self.ec(aw=False) if not self.p(0.2) else self.ec()
        k = r.choice(["arr", "arr", "arr2", "arr2", "pt", "sa", "sa", "ps", "chr", "chr2"])
        if k == "arr":
            n = r.choice([4, 8])
            m = r.randrange(1, n + 1)
            subs = self._vals(ec, m)
            init = mk("{" + ", ".join(f"@e{i}" for i in range(m)) + "}", subs=subs)
            v = Var(name, k, self.depth, n=n)
        elif k == "arr2":
            rr, cc = r.choice([2, 4]), r.choice([2, 4])
            subs = self._vals(ec, rr * cc)
            rows = ["{" + ", ".join(f"@e{i * cc + j}" for j in range(cc)) + "}" for i in range(rr)]
            init = mk("{" + ", ".join(rows) + "}", subs=subs)
            v = Var(name, k, self.depth, r=rr, c=cc)
        elif k == "pt":
            if self.p(0.4):
                subs = self._vals(ec, 2)
                init = mk("(struct pt){@e0, @e1}", subs=subs, tags=["compound_literal"])
            else:
                init = mk("{@e0, @e1}", subs=self._vals(ec, 2))
            v = Var(name, k, self.depth)
        elif k == "sa":
            subs = self._vals(ec, 5)
            init = mk('{@e0, {@e1, @e2, @e3, @e4}, "' + self.word() + '"}', subs=subs)
            v = Var(name, k, self.depth)
        elif k == "ps":
            n = r.choice([2, 4])
            subs = self._vals(ec, 2 * n)
            init = mk("{" + ", ".join(f"{{@e{2 * i}, @e{2 * i + 1}}}" for i in range(n)) + "}", subs=subs)
            v = Var(name, k, self.depth, n=n)
        elif k == "chr":
            init = mk(f'"{self.word()}"')
            v = Var(name, k, self.depth)
        else:
            init = mk(f'{{"{self.word()}", "{self.word()}"}}')
            v = Var(name, k, self.depth)
        self.declare(v)
        if k in ("arr", "arr2", "ps", "chr", "chr2") and self.p(0.15):
            v.typeof = True  # the array's type from a typeof: it decays all the same
            return Decl(v, init, tags={"typeof_array"})
        return Decl(v, init)

    def word(self):
        return "".join(self.r.choice("abcdefghijklmnop") for _ in range(self.r.randrange(0, 6)))

    def _vals(self, ec, n):
        """n values of one initializer list (indeterminately sequenced)."""
        out = []
        fr, fw = set(), set()
        for _ in range(n):
            e = self.val(ec.but(fr=fr, fw=fw), r_depth(self.r) if self.p(0.3) else 0)
            fr |= e.writes
            fw |= e.reads | e.writes
            out.append(e)
        return out

    def s_decl_ptr(self):
        return self.named(self._decl_ptr)

    def _decl_ptr(self, name):
        r = self.r
        ec = self.ec()
        k = r.choice(["ptr", "ptr", "ptr", "ppt", "hp", "cp"])
        if k == "ptr":
            p = self.ptr_u(ec, lit=True)
            if p is None:
                return self._decl_agg(name)
            v = Var(name, "ptr", self.depth, ext=p.ext, mtd=p.mtd)
            self.declare(v)
            return Decl(v, p, tags=p.tags | {"ptr_local"})
        if k == "ppt":
            p = self.ptr_pt(ec, lit=True)
            v = Var(name, "ppt", self.depth, ext=p.ext, mtd=p.mtd)
            self.declare(v)
            return Decl(v, p, tags=p.tags | {"ptr_local"})
        if k == "hp":
            p = self.ptr_u(ec, lit=True)
            if p is None:
                return self._decl_agg(name)
            e = self.val(ec.but(fr=p.writes, fw=p.reads | p.writes), 0)
            v = Var(name, "hp", self.depth, ext=p.ext, mtd=p.mtd)
            self.declare(v)
            return Decl(v, mk("{@e0, @e1}", subs=[p, e]), tags=p.tags | {"ptr_in_struct"})
        p = self.ptr_c(ec)
        if p is None:
            return self._decl_agg(name)
        v = Var(name, "cp", self.depth, mtd=p.mtd)
        self.declare(v)
        return Decl(v, p, tags=p.tags | {"ptr_local"})

    def s_decl_cleanup(self):
        return self.named(self._decl_cleanup)

    def _decl_cleanup(self, name):
        ec = self.ec()
        if self.p(0.2):
            v = Var(name, "pt", self.depth, cleanup="cl_pt")
            init = mk("{@e0, @e1}", subs=self._vals(ec, 2))
            self.declare(v)
            return Decl(v, init, tags={"cleanup", "cleanup_struct"})
        if self.p(0.25):
            p = self.ptr_u(ec)
            if p is not None:
                v = Var(name, "ptr", self.depth, ext=p.ext, mtd=p.mtd, cleanup="cl_p")
                self.declare(v)
                return Decl(v, p, tags=p.tags | {"cleanup"})
        v = Var(name, "u", self.depth, addressable=self.p(0.3), cleanup="cl_u")
        init = self.val(ec, r_depth(self.r))
        self.declare(v)
        return Decl(v, init, tags={"cleanup"})

    def s_assign(self):
        r = self.r
        jumps = self.p(0.15)
        ec = self.ec(jumps=jumps, asg=not jumps)
        if self.p(0.12):
            # a whole struct
            sas = self.vis("sa")
            if sas and self.p(0.5):
                return Simple("@v0 = @v1;", [r.choice(sas), r.choice(sas)], tags={"struct_copy"})
            ps = self.vis("pt")
            if ps:
                v = r.choice(ps)
                if self.p(0.5):
                    subs = self._vals(ec, 2)
                    return Simple("@v0 = (struct pt){@e0, @e1};", [v], subs, tags={"compound_literal"})
                src = self.vis("ps")
                if src:
                    s = r.choice(src)
                    return Simple(f"@v0 = @v1[@e0 & {s.n - 1}u];", [v, s], [self.idx(ec)])
        if self.p(0.06):
            cs = self.vis("chr", "cp", "sa")
            if cs:
                v = r.choice(cs)
                e = self.val(ec, 1)
                i = self.idx(ec.but(fr=e.writes))
                f = "@v0.t" if v.kind == "sa" else "@v0"
                return Simple(f"{f}[@e1 & 3u] = (char)(97u + (@e0 & 15u));", [v], [e, i])
        if self.p(0.1):
            incs = [v for v in self.vis("u") if not v.readonly and not v.const]
            if incs and self.p(0.2):  # read and written by an asm statement that changes nothing
                return Simple('__asm__ volatile("" : "+r"(@v0));', [r.choice(incs)], tags={"asm_operands"})
            if incs:
                return Simple("@v0++;", [r.choice(incs)])
        e = self.val(ec, r_depth(r))
        lv = self.lvalue(ec.but(fr=e.writes, fw=e.writes))
        if lv is None:
            return Simple("fold(@e0);", subs=[e]) if not self.pure else None
        if lv.target is not None and lv.target in e.writes:
            return None
        op = r.choice(["=", "=", "=", "+=", "^=", "-=", "|="])
        if op == "=" and self.p(0.12) and not any(n.naw_self or isinstance(n, StmtExpr)
                                                  for t in (lv, e) for n in t.walk()):
            # the store as an asm statement's output (coroc reads its operands as names only)
            return Simple('__asm__ volatile("" : "=r"(@e0) : "0"(@e1));', subs=[lv, e],
                          tags={"asm_operands"})
        return Simple(f"@e0 {op} @e1;", subs=[lv, e])

    def s_fold(self):
        jumps = self.p(0.2)
        ec = self.ec(jumps=jumps, asg=not jumps)
        return Simple("fold(@e0);", subs=[self.val(ec, r_depth(self.r))])

    def s_put(self):
        ec = self.ec()
        e = self.val(ec, r_depth(self.r))
        p = self.ptr_u(ec.but(fr=e.writes))
        if p is None:
            return None
        return Simple("put(@e0, @e1);", subs=[p, e], tags=p.tags | {"escape_call"})

    def s_ptrassign(self):
        r = self.r
        ptrs = [v for v in self.vis("ptr", "ppt", "cp") if v.cleanup is None]
        if not ptrs:
            return self.s_decl_ptr()
        v = r.choice(ptrs)
        ec = self.ec(aw=False)
        if v.kind == "ptr":
            p = self.ptr_u(ec, min_ext=v.ext, maxdepth=v.depth)
        elif v.kind == "ppt":
            p = self.ptr_pt(ec)
            if p is not None and (p.ext < v.ext or p.mtd > v.depth):
                p = None
        else:
            p = self.ptr_c(ec)
            if p is not None and p.mtd > v.depth:
                p = None
        if p is None or p.vars == [v]:
            return None
        v.mtd = max(v.mtd, p.mtd)
        return Simple("@v0 = @e0;", [v], [p], tags=p.tags | {"ptr_reassign"})

    def s_if_(self):
        c = self.val(self.ec(), r_depth(self.r))
        then = self.sub_block(self.r.randrange(1, 4))
        els = self.sub_block(self.r.randrange(1, 3)) if self.p(0.4) else None
        return If(c, then, els)

    def s_loop(self):
        r = self.r
        kind = r.choice(["for", "for", "while", "do", "macro"])
        name = "i" if self.p(0.4) else r.choice(["j", "k", "i"]) if self.p(0.3) else self.fresh("i")
        n = r.choice([1, 2, 3, 3, 4, 5, 6, 10])
        init = None
        if self.p(0.15 + 0.2 * (self.fn_task and bool(self.callable))):
            self.blocked.add(name)   # the counter's own name is in scope in its initializer
            init = self.val(self.ec(), r_depth(r))
            self.blocked.discard(name)
        self.scopes.append({})
        v = Var(name, "u", self.depth, readonly=True, addressable=False)
        self.declare(v)
        extra = step = None
        if self.p(0.2 + 0.3 * self.fn_task * self.w_aw):
            ec = self.ec()
            if kind == "macro":   # a loop macro's arguments may not await, nor assign
                ec = EC(aw=False, asg=False, fr=ec.fr)
            extra = self.val(ec, r_depth(r))
        if kind == "for" and self.p(0.25):
            step = self.val(self.ec(), 1)
        saved = self.brk, self.cont, self.loop_aw
        self.brk, self.cont = True, True
        self.loop_aw = bool((extra is not None and extra.naw) or (step is not None and step.naw))
        body = self.sub_block(r.randrange(1, 5))
        self.brk, self.cont, self.loop_aw = saved
        self.scopes.pop()
        tags = {"loop", "loop_" + kind}
        if init is not None and init.naw:
            tags.add("await_loop_init")
        if extra is not None and extra.naw:
            tags.add("await_loop_cond")
        if step is not None and step.naw:
            tags.add("await_loop_step")
        return Loop(kind, v, n, body, extra, step, tags=tags, init=init)

    def s_switch(self):
        r = self.r
        m = r.choice([2, 4, 4, 8])
        e = self.val(self.ec(), r_depth(r))
        expr = mk(f"@e0 & {m - 1}u" if self.p(0.6) else f"@e0 % {m}u", subs=[e])
        labels = list(range(m))
        r.shuffle(labels)
        ncases = r.randrange(1, min(m, 4) + 1)
        cases = []
        saved = self.brk
        self.brk = True
        tags = {"switch"}
        for i in range(ncases):
            ls = [labels.pop() for _ in range(r.choice([1, 1, 2])) if labels]
            if i == ncases - 1 and (not ls or self.p(0.5)):
                ls.append("default")
            if not ls:
                break
            if labels and "case_in_block" not in self.without and self.p(0.25 * self.w_case):
                body = self.case_in_block(labels.pop())
            else:
                body = self.sub_block(r.randrange(1, 4))
            brk = self.p(0.6)
            if not brk and i < ncases - 1:
                tags.add("fallthrough")
            cases.append(Case(ls, body, brk))
        self.brk = saved
        return Switch(expr, cases, tags=tags)

    def case_in_block(self, k):
        """A case body whose first statement is a block (or an if) that
        begins with another case label: the switch jumps into it. Nothing
        is declared before the label, so the jump skips no initialisation."""
        r = self.r
        self.nest += 1
        self.scopes.append({})
        then = self.sub_block(r.randrange(1, 4))
        then.stmts.insert(0, Simple(f"case {k}: ;", tags={"case_in_block"}))
        first = If(self.val(self.ec(), r_depth(r)), then) if self.p(0.7) else then
        rest = self.stmts(r.randrange(0, 3))
        self.scopes.pop()
        self.nest -= 1
        return Block([first] + rest)

    def s_block(self):
        """A nested block that declares a name an outer block has."""
        saved = self.shadow_p
        self.shadow_p = 0.7
        b = self.sub_block(self.r.randrange(2, 5))
        self.shadow_p = saved
        return b

    def s_fwd(self):
        lab = self.label("F")
        # where jumps may be macros': an outer local set at the region's end and read after its
        # label, so that only the jumps to the label read its older value (which a suspension
        # before the jump must keep, though coroc does not see the jump)
        outer = [v for v in self.vis("u") if not v.readonly and not v.const and v is not self.param]
        kept = self.r.choice(outer) if outer and self.jmacro and not self.pure and self.p(0.9) else None
        self.fwd.append(lab)
        if kept is None:
            body = self.sub_block(self.r.randrange(2, 6))
            self.fwd.remove(lab)
            return FwdRegion(lab, body, tags={"goto_fwd_region"})
        # a suspension first, the jump last: the older value must cross the one to reach the
        # other; the random part in a block of its own, whose names cannot hide the local. What
        # the suspension declares (a generator's char source) is the region block's, made before
        # the part that may read it, under a name other than the local's
        self.scopes.append({})
        self.blocked.add(kept.name)
        first = self.s_yield_() if self.fn_gen else self.s_ybare()
        self.blocked.discard(kept.name)
        body = self.sub_block(self.r.randrange(2, 6))
        self.fwd.remove(lab)
        c = self.val(self.ec(aw=False, fr={kept}), r_depth(self.r))  # (not read by the jump)
        self.scopes.pop()
        body = Block((first if isinstance(first, list) else [first]) + [body] +
                     [Simple(f"JUMP_IF((@e0), {lab});", subs=[c], tags={"jump_macro"}),
                      Simple(f"@v0 = {self.r.randrange(1, 1000)}u;", [kept])])
        return [FwdRegion(lab, body, tags={"goto_fwd_region", "jump_skips_store"}),
                Simple("fold(@v0);", [kept])]

    def s_back(self):
        lab = self.label("B")
        self.nest += 1
        self.scopes.append({})
        cnt = Var(self.fresh("c"), "u", self.depth, readonly=True, hidden=True, addressable=False)
        self.declare(cnt)
        lim = self.r.choice([1, 2, 2, 3])
        self.back.append((lab, cnt, lim))
        stmts = self.stmts(self.r.randrange(2, 6))
        self.back.pop()
        # one jump back at the end, unless the body has its own
        c = self.val(self.ec(), r_depth(self.r))
        stmts.append(Simple(f"if (@e0 && @v0++ < {lim}u) goto {lab};", [cnt], [c], tags={"goto_back"}))
        self.scopes.pop()
        self.nest -= 1
        tags = {"goto_back_region"}
        if any(isinstance(s, Decl) for s in stmts):
            tags.add("goto_back_above_decl")
        return BackRegion(lab, cnt, Block(stmts), tags=tags)

    def s_yield_(self):
        ec = self.ec(aw=False)
        if self.fn_kind == "cgen":
            p = self.ptr_c(ec)
            if p is None:
                return [self.s_decl_charsrc(), self.s_yield_()]
            return Simple("yield @e0;", subs=[p], ref="{ if (y_@S(@e0)) return; }", tags=p.tags | {"yield"})
        e = self.val(ec, r_depth(self.r))
        return Simple("yield @e0;", subs=[e], ref="{ if (y_@S(@e0)) return; }", tags={"yield"})

    def s_decl_charsrc(self):
        return self.named(self._decl_charsrc)

    def _decl_charsrc(self, name):
        v = Var(name, self.r.choice(["chr", "sa"]), self.depth)
        if v.kind == "chr":
            init = mk(f'"{self.word()}"')
        else:
            init = mk('{@e0, {@e1, @e2, @e3, @e4}, "' + self.word() + '"}', subs=self._vals(self.ec(aw=False), 5))
        self.declare(v)
        return Decl(v, init)

    def s_yrecv(self):
        ec = self.ec(aw=False)
        e = self.val(ec, r_depth(self.r))
        lv = self.lvalue(EC(asg=False))
        if lv is None:
            return None
        return Simple("@e0 = yield @e1;", subs=[lv, e],
                      ref="{ if (y_@S(@e1)) return; @e0 = sent_@S; }", tags={"send", "yield"})

    def s_ybare(self):
        return Simple("yield;", ref=";", tags={"yield_bare"})

    def s_sleep(self):
        return Simple("await coro_sleep(0);", ref=";", tags={"sleep"})

    def s_awaitst(self):
        a = self.await_call(self.ec())
        return Simple("@e0;", subs=[a], ref="(void)@e0;")

    def jump(self, plain, macro, vars=(), subs=(), tags=(), macro_ok=True):
        """`if (C) JUMP;`, or in a function whose jumps may be macros', the macro's use."""
        if self.jmacro and macro_ok and self.p(0.7):
            return Simple(macro, vars, subs, tags=set(tags) | {"jump_macro"})
        return Simple(plain, vars, subs, tags=tags)

    def s_brk(self):
        c = self.val(self.ec(), r_depth(self.r))
        return self.jump("if (@e0) break;", "BREAK_IF((@e0));", subs=[c], tags={"break"})

    def s_cont(self):
        c = self.val(self.ec(), r_depth(self.r))
        # (not where the lowering moves a loop's continues: a condition or a step that awaits)
        return self.jump("if (@e0) continue;", "CONTINUE_IF((@e0));", subs=[c], tags={"continue"},
                         macro_ok=not self.loop_aw)

    def s_gotofwd(self):
        c = self.val(self.ec(), r_depth(self.r))
        lab = self.r.choice(self.fwd)
        # (the condition in parentheses: a compound literal's commas are no macro's)
        return self.jump(f"if (@e0) goto {lab};", f"JUMP_IF((@e0), {lab});", subs=[c],
                         tags={"goto_fwd"})

    def s_gotoback(self):
        lab, cnt, lim = self.r.choice(self.back)
        c = self.val(self.ec(), r_depth(self.r))
        return self.jump(f"if (@e0 && @v0++ < {lim}u) goto {lab};",
                         f"JUMP_IF((@e0 && @v0++ < {lim}u), {lab});", [cnt], [c], tags={"goto_back"})

    def s_sejump(self):
        ec = self.ec(jumps=True, aw=False)
        se = self.stmt_expr(ec)
        if self.pure or self.p(0.4):
            ts = [v for v in self.vis("u") if not v.readonly and not v.const]
            if ts:
                return Simple("@v0 = @e0;", [self.r.choice(ts)], [se])
        if self.pure:
            return None
        return Simple("fold(@e0);", subs=[se])

    def s_ret(self):
        c = self.val(self.ec(), r_depth(self.r))
        if self.fn_gen:
            return Simple("if (@e0) return;", subs=[c], tags={"early_return"})
        e = self.val(self.ec(), r_depth(self.r))
        return Simple("if (@e0) return @e1;", subs=[c, e], tags={"early_return"})

    # functions ------------------------------------------------------------
    def body(self, kind, pure, budget, callable):
        self.fn_kind = kind
        self.fn_gen = kind in ("gen", "cgen")
        self.fn_task = kind in ("task", "child")
        self.pure = pure
        self.callable = callable
        self.budget = budget
        self.scopes = [{self.param.name: self.param}, {}]
        self.nest = 0
        self.brk = self.cont = False
        self.fwd, self.back = [], []
        self.in_se = False
        self.blocked = set()
        self.in_lit = self.in_aw = self.loop_aw = False
        self.jmacro = self.p(0.35)  # its jumps may be macros' (JUMP_IF, BREAK_IF, CONTINUE_IF)
        stmts = []
        while self.budget > 0:
            stmts.extend(self.stmt())
        ret = None
        if self.fn_gen and not any(isinstance(s, Simple) and "yield" in s.tags for s in _flat(stmts)):
            y = self.s_yield_()
            stmts.extend(y if isinstance(y, list) else [y])
        if self.fn_task:
            ret = Simple("return @e0;", subs=[self.val(self.ec(), r_depth(self.r))], keep=True)
            stmts.append(ret)
        return Func("", Block(stmts), ret)

    def program(self):
        r = self.r
        kind = self.choose({"gen": 45, "task": 45, "cgen": 10})
        self.W = dict(decl_u=10, decl_agg=7, decl_ptr=6, decl_cleanup=2, assign=12, fold=5, put=1.5,
                      ptrassign=1.5, if_=6, loop=7, switch=3, block=2.5, fwd=2.5, back=2.5,
                      yield_=12, yrecv=4, ybare=2.5, sleep=1.5, awaitst=3, brk=3, cont=2, gotofwd=5,
                      gotoback=5, sejump=2.5, ret=0.8)
        focus = r.sample(["loop", "switch", "fwd", "back", "sejump", "decl_agg", "decl_ptr",
                          "decl_cleanup", "yrecv", "block", "assign", "ptrassign"], 3)
        for f in focus:
            self.W[f] *= 3
        self.w_lit = r.choice([0.5, 1, 2])
        self.w_asg = r.choice([0.5, 1, 2])
        self.w_aw = r.choice([0.5, 1, 2])
        self.w_sc = r.choice([0.5, 1, 2])
        self.w_se = r.choice([0.5, 1, 2])
        self.shadow_p = r.choice([0.05, 0.15, 0.3])
        self.w_case = r.choice([0.5, 1, 2])
        self.param = Var("a0", "u", 0, addressable=self.p(0.3))
        children = []
        if kind == "task":
            nch = self.choose({0: 1, 1: 3, 2: 3, 3: 2})
            for k in range(nch):
                name = f"c{k + 1}"
                f = self.body("child", True, r.randrange(2, 9), [c.name for c, _ in children])
                f.name = name
                children.append((f, self.p(0.6)))
        top = self.body(kind, False, r.randrange(10, 28), [c.name for c, _ in children])
        top.name = "top"
        a0 = r.randrange(0, 1 << 32) if self.p(0.5) else r.randrange(0, 10)
        limit = 1000000 if self.p(0.5) else r.randrange(1, 12)
        mask = r.randrange(0, 1 << 32)
        prog = Program(self.seed, kind, top, children, a0, limit, mask)
        prog.param = self.param
        return prog


def _flat(stmts):
    for s in stmts:
        yield s
        for b in s.blocks():
            yield from _flat(b.stmts)


def r_depth(r):
    return r.choice([0, 1, 1, 2, 2, 3])


def generate(seed, without=()):
    """Program `seed`. without: what never to make, a way around a known
    bug (the same seed makes another program then): a statement kind
    (yrecv, sejump, decl_cleanup, ... the s_NAME methods), a jump out of a
    statement expression (stmt_expr_break, _continue, _fwd, _back),
    stmt_expr_jump_cleanup (no such jump while a cleanup local is in
    scope), stmt_expr_continue_await (no `continue` out of one in a loop
    whose condition or step awaits)."""
    return Gen(seed, without).program()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--coc")
    ap.add_argument("--ref")
    ap.add_argument("--tags", action="store_true", help="print each program's shapes")
    ap.add_argument("--without", default="", help="comma-separated shapes not to make (see generate)")
    a = ap.parse_args()
    without = [w for w in a.without.split(",") if w]
    progs = [generate(s, without) for s in range(a.seed, a.seed + a.count)]
    coc = render_bundle(progs, "coc")
    if a.coc:
        open(a.coc, "w").write(coc)
    else:
        sys.stdout.write(coc)
    if a.ref:
        open(a.ref, "w").write(render_bundle(progs, "ref"))
    if a.tags:
        for p in progs:
            print(p.seed, " ".join(sorted(p.tags())), file=sys.stderr)


if __name__ == "__main__":
    main()
