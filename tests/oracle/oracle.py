"""The oracle's machinery: build bundles of generated programs in every mode
with every compiler, run them beside their plain-C reference, compare the
checksums, and shrink what disagrees. Used by tests/oracle/run and
tests/test_oracle.py. Standard library only."""
import concurrent.futures
import copy
import hashlib
import os
import pathlib
import re
import subprocess
import sys
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gen    # noqa: E402
import tree   # noqa: E402

SRC = HERE.parent.parent
BUILD = pathlib.Path(os.environ.get("COROC_BUILD_DIR", SRC / "build"))
COROC = pathlib.Path(os.environ.get("COROC", BUILD / "transformer" / "coroc"))
LIB = pathlib.Path(os.environ.get("COROC_LIB", BUILD / "runtime" / "libcoro.a"))
INCLUDE = pathlib.Path(os.environ.get("COROC_INCLUDE", SRC / "runtime" / "include"))

MODES = {"stackless": ["--backend=stackless"],
         "hoist-all": ["--backend=stackless", "--hoist-all"],
         "stackful": ["--backend=stackful"]}
COMPILERS = ["gcc", "clang"]
OPTS = ["-O0", "-O2"]
CFLAGS = ["-std=gnu11", "-w"]
SAN = ["-O0", "-g", "-fsanitize=undefined,address", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
SAN_ENV = {"ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0", "UBSAN_OPTIONS": "print_stacktrace=0"}

# The shapes the report counts (tag of the generator -> what it means).
SHAPES = [
    ("loops", {"loop"}),
    ("loop headed by a macro", {"loop_macro"}),
    ("a macro that jumps", {"jump_macro"}),
    ("a store that a jump to the label skips", {"jump_skips_store"}),
    ("a macro's argument that is not C", {"raw_macro"}),
    ("an address a macro takes", {"macro_address"}),
    ("asm statement operands", {"asm_operands"}),
    ("an index in __builtin_offsetof", {"offsetof_index"}),
    ("an array typed by typeof", {"typeof_array"}),
    ("break/continue", {"break", "continue", "stmt_expr_break", "stmt_expr_continue"}),
    ("switch", {"switch"}),
    ("switch fallthrough", {"fallthrough"}),
    ("case label inside a block", {"case_in_block"}),
    ("goto forward", {"goto_fwd", "stmt_expr_fwd"}),
    ("goto back", {"goto_back"}),
    ("goto back above a declaration", {"goto_back_above_decl"}),
    ("stmt-expr", {"stmt_expr"}),
    ("stmt-expr jump", {"stmt_expr_jump"}),
    ("short-circuit awaits", {"sc_await"}),
    ("assignment in && || ?:", {"sc_assign"}),
    ("multiple awaits", {"multi_await"}),
    ("await in loop condition/step", {"await_loop_cond", "await_loop_step"}),
    ("await in a loop's declaration", {"await_loop_init"}),
    ("compound literal", {"compound_literal"}),
    ("compound literal address", {"compound_literal_addr"}),
    ("2-D rows", {"row_2d"}),
    ("struct array members", {"struct_array_member"}),
    ("address escapes", {"address_escape", "array_decay", "escape_call"}),
    ("the parameter's address", {"param_address"}),
    ("pointers in locals", {"ptr_local", "ptr_copy", "ptr_reassign"}),
    ("pointers in structs", {"ptr_in_struct"}),
    ("shadowing", {"shadowing"}),
    ("cleanups", {"cleanup"}),
    ("cleanup of a struct", {"cleanup_struct"}),
    ("struct copy", {"struct_copy"}),
    ("send", {"send"}),
    ("early coro_free", {"early_free"}),
    ("generator of unsigned", {"kind_gen"}),
    ("generator of char *", {"kind_cgen"}),
    ("task", {"kind_task"}),
    ("child inside its parent", {"child_inline"}),
    ("child on the heap", {"child_heap"}),
]

LINE_RE = re.compile(r"^seed (\d+): (\S+)$")


def sh(cmd, timeout=600, cwd=None, env=None):
    e = None
    if env:
        e = dict(os.environ)
        e.update(env)
    try:
        p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout,
                           cwd=cwd, env=e, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as ex:
        out = ex.stdout.decode(errors="replace") if isinstance(ex.stdout, bytes) else (ex.stdout or "")
        return -9, out, "timeout"


class Config:
    """One way to build a bundle: a coroc mode (or ref: the plain-C
    reference), a compiler and its flags."""

    def __init__(self, mode, cc, opt, san=False):
        self.mode, self.cc, self.opt, self.san = mode, cc, opt, san

    @property
    def name(self):
        return f"{self.mode}/{self.cc}{self.opt}" + ("+san" if self.san else "")

    def flags(self):
        return CFLAGS + (SAN if self.san else [self.opt])

    def __repr__(self):
        return self.name


def all_configs(compilers=COMPILERS, opts=OPTS, modes=MODES):
    return [Config(m, cc, o) for m in modes for cc in compilers for o in opts]


# {==================================================================
# The runtime built with the sanitizers
# ===================================================================

_san_lock = threading.Lock()


def san_lib(cache_dir):
    """libcoro compiled with -fsanitize=undefined,address (once per cache dir)."""
    with _san_lock:
        cache = pathlib.Path(cache_dir)
        cache.mkdir(parents=True, exist_ok=True)
        lib = cache / "libcoro.a"
        runtime = SRC / "runtime"
        srcs = sorted(runtime.glob("*.c")) + [runtime / "asm" / "switch_x86_64.S"]
        stamp = hashlib.sha1("".join(f"{s}:{s.stat().st_mtime_ns}" for s in srcs).encode()).hexdigest()
        if lib.exists() and (cache / "stamp").exists() and (cache / "stamp").read_text() == stamp:
            return lib
        objs = []
        for s in srcs:
            o = cache / (s.name + ".o")
            rc, _, err = sh(["gcc", "-std=gnu11", *SAN, f"-I{runtime / 'include'}", f"-iquote{runtime}",
                             "-c", "-o", o, s])
            if rc:
                raise RuntimeError(f"building the sanitizer libcoro: {err}")
            objs.append(o)
        if lib.exists():
            lib.unlink()
        rc, _, err = sh(["ar", "rcs", lib, *objs])
        if rc:
            raise RuntimeError(err)
        (cache / "stamp").write_text(stamp)
        return lib


# {==================================================================
# Building and running
# ===================================================================

def coroc(mode, src, out, extra=()):
    return sh([COROC, *MODES[mode], *extra, "-o", out, src], timeout=120)


def compile_c(cfile, exe, cfg, lib):
    cmd = [cfg.cc, *cfg.flags(), f"-I{INCLUDE}", "-o", exe, cfile]
    if cfg.mode != "ref":
        cmd.append(lib)
    cmd += ["-lm", "-pthread"]
    return sh(cmd, timeout=600)


def run_exe(exe, seeds, san=False):
    """Run a bundle; returns ({seed: value}, {seed: stderr note}, stopped
    seeds). A value is the checksum, `hang`, `crash(RC)` or `san`; after a
    program that crashes the rest run from the next one."""
    vals, notes, stopped = {}, {}, set()
    first = 0
    while first < len(seeds):
        rc, out, err = sh([exe, str(first)], timeout=120, env=SAN_ENV if san else None)
        got = []
        for line in out.splitlines():
            m = LINE_RE.match(line)
            if m:
                got.append((int(m.group(1)), m.group(2)))
        for line in err.splitlines():
            m = re.match(r"stat (\d+) stopped=1", line)
            if m:
                stopped.add(int(m.group(1)))
        for s, v in got:
            vals[s] = v
        first += len(got)
        if rc == 0 and first >= len(seeds):
            break
        if rc == 0:   # ended early without a crash: count the rest as missing
            for s in seeds[first:]:
                vals[s] = "missing"
            break
        if got and got[-1][1] == "hang":
            continue
        if first < len(seeds):
            s = seeds[first]
            note = san_summary(err) if san else ""
            vals[s] = "san" if note else f"crash({rc})"
            notes[s] = note or err.strip()[-300:]
            first += 1
    return vals, notes, stopped


def san_summary(err):
    """The first line of a sanitizer's report, without addresses."""
    for line in err.splitlines():
        if "runtime error:" in line:
            return re.sub(r"^\S+:\d+:\d+: ", "", line).strip()
        if "ERROR: AddressSanitizer" in line:
            return re.sub(r"0x[0-9a-f]+", "ADDR", line.split("ERROR: ", 1)[1]).strip()
    return ""


def err_summary(err):
    """The first error of a diagnostic output, without file and line."""
    for line in err.splitlines():
        if "error" in line:
            return re.sub(r"^[^ ]*:\d+(:\d+)?: ", "", line).strip()[:200]
    return err.strip().splitlines()[0][:200] if err.strip() else ""


class Failure:
    """A program on which something went wrong.
    kind: wrong (a checksum differs), hang, crash, san (a sanitizer's
    report), coroc (coroc refused it), cc (the compiler refused coroc's C),
    generator (the reference itself is not deterministic or not clean)."""

    def __init__(self, seed, kind, configs, ref, values, note=""):
        self.seed, self.kind, self.configs, self.ref = seed, kind, configs, ref
        self.values, self.note = values, note
        self.reduced = None

    def modes(self):
        return sorted({c.split("/")[0] for c in self.configs})

    def signature(self):
        return (self.kind, tuple(self.modes()), self.note if self.kind in ("coroc", "cc", "san", "generator")
                else "")

    def describe(self):
        vs = ", ".join(f"{c}={self.values.get(c, '?')}" for c in self.configs)
        return (f"seed {self.seed}: {self.kind} in {', '.join(self.configs)}"
                + (f" (reference {self.ref}: {vs})" if self.kind in ("wrong", "hang", "crash", "san") else "")
                + (f": {self.note}" if self.note else ""))


class Oracle:
    def __init__(self, work, configs, jobs=2, san_every=10, stats_every=4, log=print, without=(),
                 ref2=("clang", "-O2")):
        self.without = list(without)
        self.ref2 = Config("ref", *ref2)   # a second build of the reference: the two must agree
        self.work = pathlib.Path(work)
        self.work.mkdir(parents=True, exist_ok=True)
        self.configs = configs
        self.jobs = jobs
        self.san_every = san_every
        self.stats_every = stats_every
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
        self.log = log
        self.failures = []
        self.tags = {}
        self.programs = 0
        self.bundles = 0
        self.san_programs = 0
        self.stats = {"frame": 0, "c_local": 0, "reasons": {}, "coroc_fields": {}, "bundles": 0}
        self.early = set()

    # one bundle ------------------------------------------------------------
    def check_bundle(self, index, seeds, san=False, stats=False, extra_configs=(), san_modes=None):
        """Generate programs `seeds`, build them in every config, compare.
        With `san`, the reference and the modes `san_modes` (all by default)
        are built with the sanitizers too."""
        d = self.work / f"b{index}"
        d.mkdir(parents=True, exist_ok=True)
        progs = [gen.generate(s, self.without) for s in seeds]
        for p in progs:
            self.tags[p.seed] = p.tags()
        configs = list(self.configs) + list(extra_configs)
        modes = sorted({c.mode for c in configs})
        builds = [Config("ref", "gcc", "-O0"), self.ref2] + configs
        if san:
            builds += [Config("ref", "gcc", "-O0", san=True)] + [Config(m, "gcc", "-O0", san=True)
                                                                  for m in modes if m in (san_modes or modes)]
        for attempt in range(3):
            progs = self._drop_refused_by_coroc(d, progs, modes)
            seeds = [p.seed for p in progs]
            (d / "ref.c").write_text(tree.render_bundle(progs, "ref"))
            futs = {cfg.name: (cfg, self.pool.submit(self._build_run, d, cfg, seeds)) for cfg in builds}
            if stats:
                futs["stats"] = (None, self.pool.submit(coroc, "stackless", d / "b.coc", d / "stats.txt",
                                                        ["--stats"]))
            results = {name: f.result() for name, (cfg, f) in futs.items()}
            refused = [(cfg, results[cfg.name][1]) for cfg in builds
                       if results[cfg.name][0] == "cc"]
            if not refused:
                break
            # a compiler refused some program's C: find which, drop it, again
            progs = self._drop_refused_by_cc(d, progs, refused)
        else:
            raise RuntimeError(f"bundle {index}: the compilers keep refusing: "
                               + "; ".join(f"{c.name}: {why}" for c, why in refused))
        if stats:
            rc, _, err = results.pop("stats")
            if rc == 0:
                self._add_stats((d / "stats.txt").read_text())
        self._compare(seeds, builds, results)
        self.programs += len(seeds)
        self.bundles += 1
        if san:
            self.san_programs += len(seeds)
        return seeds

    def _build_run(self, d, cfg, seeds):
        src = d / ("ref.c" if cfg.mode == "ref" else f"{cfg.mode}.c")
        exe = d / cfg.name.replace("/", "_").replace("+", "_")
        lib = san_lib(self.work / "san-lib") if cfg.san else LIB
        rc, _, err = compile_c(src, exe, cfg, lib)
        if rc:
            return ("cc", err_summary(err), err)
        vals, notes, stopped = run_exe(exe, seeds, san=cfg.san)
        exe.unlink()
        return ("ran", vals, notes, stopped)

    def _drop_refused_by_coroc(self, d, progs, modes):
        """Programs coroc refuses in some mode: each is a failure of its own,
        and the bundle goes on without them. Leaves MODE.c for each mode."""
        for _ in range(len(progs) + 1):
            (d / "b.coc").write_text(tree.render_bundle(progs, "coc"))
            futs = [(m, self.pool.submit(coroc, m, d / "b.coc", d / f"{m}.c")) for m in modes]
            failed = [m for m, f in futs if f.result()[0]]
            if not failed:
                return progs
            bad = set()
            for m in failed:
                for p in progs:
                    if p.seed in bad:
                        continue
                    one = d / "one.coc"
                    one.write_text(tree.render_bundle([p], "coc"))
                    rc1, _, err1 = coroc(m, one, d / "one.c")
                    if rc1:
                        bad.add(p.seed)
                        self.failures.append(Failure(p.seed, "coroc", [m], None, {}, err_summary(err1)))
            if not bad:
                raise RuntimeError(f"coroc {failed} refuses the bundle but no program alone")
            progs = [p for p in progs if p.seed not in bad]
        return progs

    def _drop_refused_by_cc(self, d, progs, refused):
        """A compiler refused a build: find the programs it refuses alone."""
        bad = set()
        for cfg, _ in refused:
            for p in progs:
                if p.seed in bad:
                    continue
                if cfg.mode == "ref":
                    src = d / "one.c"
                    src.write_text(tree.render_bundle([p], "ref"))
                else:
                    one = d / "one.coc"
                    one.write_text(tree.render_bundle([p], "coc"))
                    src = d / "one.c"
                    rc, _, err = coroc(cfg.mode, one, src)
                    if rc:
                        continue
                rc, _, err = sh([cfg.cc, *cfg.flags(), "-c", f"-I{INCLUDE}", "-o", d / "one.o", src])
                if rc:
                    bad.add(p.seed)
                    kind = "generator" if cfg.mode == "ref" else "cc"
                    self.failures.append(Failure(p.seed, kind, [cfg.name], None, {}, err_summary(err)))
        if not bad:
            # not one program's fault (a compiler killed, out of memory or
            # time): say what the compilers said, for whoever reruns it
            raise RuntimeError("a compiler refuses a bundle but no program alone: "
                               + "; ".join(f"{c.name}: {why}" for c, why in refused))
        return [p for p in progs if p.seed not in bad]

    def _compare(self, seeds, builds, results):
        ref = results["ref/gcc-O0"]
        ref2 = results[self.ref2.name]
        if ref[0] != "ran" or ref2[0] != "ran":
            raise RuntimeError(f"the reference did not build: {ref[1] if ref[0] != 'ran' else ref2[1]}")
        refv, refnotes, stopped = ref[1], ref[2], ref[3]
        self.early |= stopped
        for s in stopped:
            self.tags.setdefault(s, set()).add("early_free")
        for s in seeds:
            r = refv.get(s, "missing")
            r2 = ref2[1].get(s, "missing")
            if not re.fullmatch(r"[0-9a-f]{16}", r) or r != r2:
                self.failures.append(Failure(s, "generator", ["ref/gcc-O0", self.ref2.name], r,
                                             {"ref/gcc-O0": r, self.ref2.name: r2},
                                             refnotes.get(s, "") or ref2[2].get(s, "") or "the references differ"))
                continue
            bad = {}
            notes = []
            for cfg in builds:
                if cfg.mode == "ref" and not cfg.san:
                    continue
                res = results[cfg.name]
                if res[0] != "ran":
                    bad[cfg.name] = "cc: " + res[1]
                    continue
                v = res[1].get(s, "missing")
                if v != r:
                    bad[cfg.name] = v
                    if s in res[2]:
                        notes.append(res[2][s])
            if not bad:
                continue
            if "ref/gcc-O0+san" in bad:
                self.failures.append(Failure(s, "generator", ["ref/gcc-O0+san"], r, bad,
                                             notes[0] if notes else "the sanitized reference differs"))
                continue
            vals = set(bad.values())
            kind = ("hang" if "hang" in vals else "san" if "san" in vals else
                    "crash" if any(v.startswith("crash") for v in vals) else
                    "cc" if any(v.startswith("cc: ") for v in vals) else "wrong")
            self.failures.append(Failure(s, kind, sorted(bad), r, bad, notes[0][:200] if notes else ""))

    # --stats ---------------------------------------------------------------
    FIELD = re.compile(r"^\s+\d+\s+\d+\s+(\S+)\s+\((.*)\)\s*$")

    def _add_stats(self, text):
        st = self.stats
        st["bundles"] += 1
        for line in text.splitlines():
            m = self.FIELD.match(line)
            if m:
                name, why = m.groups()
                mm = re.match(r"^[^:()]+:\d+: (.*)$", why)
                if not mm:   # coroc's own: coro_base, coro_aw_N, coro_tmp_N, ...
                    k = re.sub(r"_\d+$", "", name)
                    st["coroc_fields"][k] = st["coroc_fields"].get(k, 0) + 1
                    continue
                if mm.group(1).startswith("a parameter"):
                    continue
                reason = re.sub(r" at [^ ]+:\d+", "", mm.group(1))
                reason = re.sub(r"'[^']*'", "'X'", reason)
                reason = re.sub(r" by the macro \S+", " by a macro", reason)
                st["frame"] += 1
                st["reasons"][reason] = st["reasons"].get(reason, 0) + 1
            elif "ordinary locals of the resume function" in line:
                st["c_local"] += len(re.findall(r"\S+ \([^()]*:\d+\)", line.split("):", 1)[1]))

    # the report ------------------------------------------------------------
    def coverage(self):
        counts = {}
        for name, tags in SHAPES:
            counts[name] = sum(1 for t in self.tags.values() if t & tags)
        return counts


# {==================================================================
# One program alone: reproduce, and shrink
# ===================================================================

class Single:
    """Builds one program (a Program tree) in a config and runs it."""

    def __init__(self, work, pool=None):
        self.work = pathlib.Path(work)
        self.work.mkdir(parents=True, exist_ok=True)
        self.n = 0
        self.cache = {}

    def outcome(self, prog, cfg):
        """What the program does in cfg: ("ok", value), ("coroc", msg),
        ("cc", msg), or (kind, value) for hang/crash/san."""
        text = tree.render_bundle([prog], "ref" if cfg.mode == "ref" else "coc")
        key = (hashlib.sha1(text.encode()).hexdigest(), cfg.name)
        if key in self.cache:
            return self.cache[key]
        self.n += 1
        base = self.work / f"t{self.n % 4}_{cfg.name.replace('/', '_').replace('+', '_')}"
        src = base.with_suffix(".c" if cfg.mode == "ref" else ".coc")
        src.write_text(text)
        cfile = src
        if cfg.mode != "ref":
            cfile = base.with_suffix(".out.c")
            rc, _, err = coroc(cfg.mode, src, cfile)
            if rc:
                return self._keep(key, ("coroc", err_summary(err)))
        exe = base.with_suffix(".exe")
        lib = san_lib(self.work / "san-lib") if cfg.san else LIB
        rc, _, err = compile_c(cfile, exe, cfg, lib)
        if rc:
            return self._keep(key, ("cc", err_summary(err)))
        vals, notes, _ = run_exe(exe, [prog.seed], san=cfg.san)
        v = vals.get(prog.seed, "missing")
        if v == "hang":
            return self._keep(key, ("hang", v))
        if v == "san":
            return self._keep(key, ("san", notes.get(prog.seed, "")))
        if not re.fullmatch(r"[0-9a-f]{16}", v):
            return self._keep(key, ("crash", v))
        return self._keep(key, ("ok", v))

    def _keep(self, key, val):
        self.cache[key] = val
        return val


REF = Config("ref", "gcc", "-O0")
REF_SAN = Config("ref", "gcc", "-O0", san=True)
STACKFUL = Config("stackful", "gcc", "-O0")


def parse_config(name):
    if "/" not in name:  # a mode coroc failed in, before any compiler ran
        return Config(name, "gcc", "-O0")
    mode, rest = name.split("/")
    san = rest.endswith("+san")
    rest = rest.replace("+san", "")
    cc, opt = rest.split("-", 1)
    return Config(mode, cc, "-" + opt, san=san)


def failing_predicate(single, failure):
    """A test that says whether a candidate program still fails the way
    `failure` did: the reference runs clean, stackful agrees with it (unless
    stackful is what fails), and the failing config still does the same
    kind of wrong."""
    cfg = parse_config(failure.configs[0])
    want = single_outcome_kind(failure)
    need_stackful = "stackful" not in failure.modes()

    def test(prog):
        if not tree.resolves(prog):
            return False
        r = single.outcome(prog, REF)
        if r[0] != "ok":
            return False
        got = single.outcome(prog, cfg)
        if want == "wrong":
            if got[0] != "ok" or got[1] == r[1]:
                return False
        elif want in ("coroc", "cc"):
            if got[0] != want or got[1] != failure.note:
                return False
        elif got[0] != want:
            return False
        if need_stackful and single.outcome(prog, STACKFUL) != r:
            return False
        return True

    def clean(prog):
        r = single.outcome(prog, REF_SAN)
        return r[0] == "ok" and r[1] == single.outcome(prog, REF)[1]
    return test, clean


def single_outcome_kind(failure):
    return failure.kind


# the shrinker ----------------------------------------------------------------

def _lists(prog):
    """Every statement list of the program, in pre-order, with an owner
    description (so that edits can be replayed on a copy)."""
    out = []

    def walk_block(b):
        out.append(b.stmts)
        for s in b.stmts:
            for bb in s.blocks():
                walk_block(bb)
            for e in s.exprs():
                for n in e.walk():
                    if isinstance(n, tree.StmtExpr):
                        lst = n.stmts
                        out.append(lst)
    for f in prog.funcs():
        walk_block(f.body)
    return out


def _slots(prog):
    """Every expression slot: (holder, index) pairs where holder.subs[index]
    (or a statement's expression attribute) may be replaced."""
    out = []

    def expr_slots(t):
        for i, s in enumerate(t.subs):
            out.append((t, i))
            expr_slots(s)
            if isinstance(s, tree.StmtExpr):
                for st in s.stmts:
                    stmt_slots(st)

    def stmt_slots(s):
        if isinstance(s, tree.Simple):
            expr_slots(s.t)
        elif isinstance(s, tree.Decl):
            out.append((s, "init"))
            expr_slots(s.init)
        else:
            for attr in ("cond", "extra", "step", "expr", "init"):
                e = getattr(s, attr, None)
                if isinstance(e, tree.Tmpl):
                    out.append((s, attr))
                    expr_slots(e)
        for b in s.blocks():
            for st in b.stmts:
                stmt_slots(st)

    for f in prog.funcs():
        for st in f.body.stmts:
            stmt_slots(st)
    return out


def _stmt_edits(s):
    """What a statement may become: [] (deleted) or the statements of its parts."""
    edits = []
    if not s.keep:
        edits.append([])
    if isinstance(s, tree.If):
        edits.append(list(s.then.stmts))
        if s.els is not None:
            edits.append(list(s.els.stmts))
            edits.append([tree.If(s.cond, s.then)])
    elif isinstance(s, (tree.Block, tree.FwdRegion)):
        edits.append(list(s.blocks()[0].stmts))
    elif isinstance(s, tree.Loop):
        edits.append(list(s.body.stmts))
        if s.n > 1:
            edits.append([tree.Loop(s.kind, s.var, 1, s.body, s.extra, s.step, s.tags, s.init)])
        if s.extra is not None or s.step is not None or s.init is not None:
            edits.append([tree.Loop(s.kind, s.var, s.n, s.body, None, None, s.tags)])
        if s.kind != "for":
            edits.append([tree.Loop("for", s.var, s.n, s.body, s.extra, None, s.tags, s.init)])
    elif isinstance(s, tree.Switch):
        for c in s.cases:
            edits.append(list(c.body.stmts))
        for i in range(len(s.cases)):
            if len(s.cases) > 1:
                edits.append([tree.Switch(s.expr, s.cases[:i] + s.cases[i + 1:], s.tags)])
        for i, c in enumerate(s.cases):
            if not c.brk:
                cs = list(s.cases)
                cs[i] = tree.Case(c.labels, c.body, True)
                edits.append([tree.Switch(s.expr, cs, s.tags)])
    elif isinstance(s, tree.BackRegion):
        edits.append([tree.Block(list(s.body.stmts))])
    return edits


def _value(t):
    return getattr(t, "isval", False)


def shrink(prog, test, clean, deadline, log=lambda m: None):
    """Greedy reduction: delete statements, put a statement's parts in its
    place, drop whole children, put 0u/1u or a part of an expression in
    place of an expression, as long as test(prog) (and, for each step
    taken, clean(prog)) holds."""
    prog = copy.deepcopy(prog)
    tries = [0]

    def attempt(cand):
        tries[0] += 1
        return test(cand) and clean(cand)

    changed = True
    while changed and time.time() < deadline:
        changed = False
        # whole children
        i = 0
        while i < len(prog.children) and time.time() < deadline:
            cand = copy.deepcopy(prog)
            del cand.children[i]
            if attempt(cand):
                prog, changed = cand, True
            else:
                i += 1
        # the driver: fewer values before coro_free
        if prog.kind != "task" and prog.limit > 1 and time.time() < deadline:
            for lim in (1, 2, 3, prog.limit // 2):
                if lim >= prog.limit or lim < 1:
                    continue
                cand = copy.deepcopy(prog)
                cand.limit = lim
                if attempt(cand):
                    prog, changed = cand, True
                    break
        # statements
        li = 0
        while time.time() < deadline:
            lists = _lists(prog)
            if li >= len(lists):
                break
            si = 0
            while time.time() < deadline:
                lists = _lists(prog)
                if li >= len(lists) or si >= len(lists[li]):
                    break
                took = False
                for k, repl in enumerate(_stmt_edits(lists[li][si])):
                    cand = copy.deepcopy(prog)
                    cl = _lists(cand)[li]
                    # replay the edit on the copy
                    repl_c = _stmt_edits(cl[si])[k]
                    cl[si:si + 1] = repl_c
                    if attempt(cand):
                        prog, changed, took = cand, True, True
                        break
                if not took:
                    si += 1
            li += 1
        # expressions
        xi = 0
        while time.time() < deadline:
            slots = _slots(prog)
            if xi >= len(slots):
                break
            holder, where = slots[xi]
            cur = holder.subs[where] if isinstance(where, int) else getattr(holder, where)
            took = False
            if _value(cur) and not (isinstance(cur, tree.Tmpl) and re.fullmatch(r"[01]u", cur.fmt)):
                options = ["0u", "1u"] + [j for j, s in enumerate(cur.subs) if _value(s)]
                for opt in options:
                    cand = copy.deepcopy(prog)
                    h, w = _slots(cand)[xi]
                    c = h.subs[w] if isinstance(w, int) else getattr(h, w)
                    new = gen.mk(opt) if isinstance(opt, str) else c.subs[opt]
                    new.isval = True
                    if isinstance(w, int):
                        h.subs[w] = new
                    else:
                        setattr(h, w, new)
                    if attempt(cand):
                        prog, changed, took = cand, True, True
                        break
            if not took:
                xi += 1
    log(f"  shrink: {tries[0]} candidates")
    return prog


def program_lines(prog):
    return tree.render_bundle([prog], "coc").count("\n")
