# coroc-gdb.py: gdb commands that know coroc's coroutines (docs/debugging.md).
#
#   info coroutines      every live instance: address, name, generator or task,
#                        backend, state, where it resumes (file.coc:LINE), and
#                        what a task waits for
#   coro bt ADDR|all     a stackful instance's real backtrace, unwound from its
#                        saved registers; a stackless task's chain of awaits,
#                        innermost first, each at its .coc line
#   coro frame ADDR      a stackless instance's parameters and locals, under
#                        the names the program gives them
#   $coro("NAME"[, N])   the (Nth) live instance of coroutine NAME, for ADDR
#
# Where the answers come from. libcoro knows each thread's live instances
# (runtime/registry.c: coro_registries; per thread, the slabs whose live
# slots are the small instances, and a ring of struct coro_live records in
# front of the large ones); a task's header names the awaitable it waits
# for (struct coro_task's waiting_on). coroc
# emits, beside each stackless coroutine NAME, the .coc line of each resume
# point (coro_lines_NAME) and its parameters and locals (coro_locals_NAME),
# and names its functions coro_resume_NAME (stackless), coro_entry_NAME and
# coro_body_NAME (stackful). A stackful instance keeps its registers in its
# struct coro_ctx while suspended; a Python unwinder hands them to gdb as the
# caller of the newest frame, and gdb's own unwinder walks on from there, so
# it works on a core file as on a live process. A shared-stack instance whose
# frames were copied out to its buffer is unwound in the buffer: the registers
# handed to gdb are relocated there (Instance.locate), and a frame whose
# caller gdb would find through a frame pointer into the shared stack is
# unwound by the frame-pointer rule instead (ContextUnwinder._copied_frame).
# What a task waits for, in words, is coroc-gdb-waits.py's.
#
# gdb loads this from the .debug_gdb_scripts section that libcoro puts into
# every program linked with it, or by hand: source PREFIX/share/coroc/gdb/coroc-gdb.py.
# It needs the debug information of libcoro (its default RelWithDebInfo build
# has it) and works best with programs compiled with -g.

import os
import re
import time

import gdb
import gdb.unwinder

STATES = ["created", "suspended", "running", "done"]
CORO_GENERATOR, CORO_TASK = 1, 2   # enum coro_kind in coro/gen.h


def _type(name, block=None):
    try:
        return gdb.lookup_type(name, block) if block else gdb.lookup_type(name)
    except gdb.error:
        raise gdb.GdbError("coroc: no type '%s' in this program: is libcoro built with "
                           "debug information (-g)?" % name)


def _ptr(value):
    return int(value.cast(_type("unsigned long")))


_names = {}   # address -> symbol name, for one command (instances() empties it)


def _symbol_name(addr):
    """The name of the symbol (function or variable) that starts at addr, or None.
    From the ELF symbol table: the debug information would name a function
    inlined at addr instead."""
    if not addr:
        return None
    if addr not in _names:
        out = gdb.execute("info symbol 0x%x" % addr, to_string=True)
        m = re.search(r"^(\S+) in section", out, re.M)   # (after the command itself, under set trace-commands)
        _names[addr] = m.group(1) if m else None
    return _names[addr]


def _function_symbol(addr):
    try:
        block = gdb.block_for_pc(addr)
    except RuntimeError:
        return None
    while block is not None and block.function is None:
        block = block.superblock
    return block.function if block is not None else None


def _file(symtab):
    """A source file's name as gdb's `set filename-display` wants it shown."""
    try:
        mode = gdb.parameter("filename-display")
    except RuntimeError:
        mode = "relative"
    if mode == "basename":
        return os.path.basename(symtab.filename)
    if mode == "absolute":
        return symtab.fullname()
    return symtab.filename


def _is_core():
    try:
        return "core dump" in gdb.execute("info target", to_string=True)
    except gdb.error:
        return False


def _parse_locals(text):
    """[(field, name, is_param, in_c_local, first, last)] from a coro_locals_NAME
    table: FIELD=NAME where coroc renamed it, %NAME kept in a C local while the
    body runs, NAME@FIRST-LAST the .coc lines where a local is in scope (a
    parameter: everywhere, 0 to a line past any)."""
    params, _, locals_ = text.partition("|")
    out = []
    for words, is_param in ((params, True), (locals_, False)):
        for w in words.split():
            w, _, scope = w.partition("@")
            first, _, last = scope.partition("-")
            field, _, name = w.lstrip("%").partition("=")
            out.append((field, name or field, is_param, w.startswith("%"),
                        int(first or 0), int(last or 1 << 30)))
    return out


class Instance:
    """One live instance, as read from the registry."""

    def __init__(self, coro, registry):
        self.coro = coro                      # gdb.Value, struct coro *
        self.addr = _ptr(coro)
        self.registry = registry              # struct coro_registry *
        c = coro.dereference()
        self.status = int(c["status"])
        self.state = STATES[self.status] if 0 <= self.status < len(STATES) else "invalid"
        self.generator = not int(c["kind"]) & CORO_TASK
        self.kind = "generator" if self.generator else "task"
        if int(c["kind"]) & CORO_GENERATOR and not self.generator:
            self.kind = "async generator"   # a task that yields: consumed by coro_next_await
        self.task = None if self.generator else coro.cast(_type("struct coro_task").pointer()).dereference()
        self.parent = _ptr(self.task["parent"]) if self.task is not None else 0
        self.resume_point = int(c["resume_point"])
        resume = _ptr(c["resume"])
        rname = _symbol_name(resume) or "0x%x" % resume
        self.stackful = rname == "stackful_resume"
        if self.stackful:
            self.backend = "stackful"
            self.s = coro.cast(_type("struct stackful").pointer()).dereference()
            self.fn = _ptr(self.s["entry"])
            ename = _symbol_name(self.fn) or "0x%x" % self.fn
            self.name = ename[len("coro_entry_"):] if ename.startswith("coro_entry_") else ename
        else:
            self.backend = "stackless"
            self.fn = resume
            self.name = rname[len("coro_resume_"):] if rname.startswith("coro_resume_") else rname

    # -- stackless: the tables coroc emits beside the resume function ----
    def _static(self, prefix):
        try:
            block = gdb.block_for_pc(self.fn)
        except RuntimeError:
            return None
        if block is None:
            return None
        sym = gdb.lookup_symbol(prefix + self.name, block)[0]
        return sym.value() if sym is not None else None

    def source_file(self):
        fn = _function_symbol(self.fn)
        return _file(fn.symtab) if fn is not None and fn.symtab is not None else "?"

    def stackless_line(self, point):
        table = self._static("coro_lines_")
        if table is None:
            return None
        n = table.type.sizeof // table.type.target().sizeof
        return int(table[point]) if 0 <= point < n else None

    def locals_table(self):
        """[(field, name, is_param, in_c_local)] from coro_locals_NAME: FIELD=NAME
        where coroc renamed it; %NAME for a local kept in a C local of the resume
        function while the body runs (its field holds it only while suspended)."""
        text = self._static("coro_locals_")
        return None if text is None else [t[:4] for t in _parse_locals(text.string())]

    def running_frame(self):
        """The gdb frame of this stackless instance's resume function, when it
        runs on the selected thread, or None."""
        try:
            frame = gdb.newest_frame()
        except gdb.error:
            return None
        while frame is not None:
            if (frame.name() or "") == "coro_resume_" + self.name:
                try:
                    if _ptr(frame.read_var("coro_c")) == self.addr:
                        return frame
                except (ValueError, gdb.error):
                    pass
            try:
                frame = frame.older()
            except gdb.error:
                return None
        return None

    def frame_value(self):
        block = gdb.block_for_pc(self.fn)
        t = _type("struct coro_frame_" + self.name, block)
        return self.coro.cast(t.pointer()).dereference()

    # -- stackful: the saved registers --------------------------------------
    def stack_mapped(self):
        """Its frames can be read: on a stack, or for a shared-stack instance
        suspended while another had the shared stack, copied out to its buffer."""
        if _ptr(self.s["map"]) == 0:
            return False
        return not bool(self.s["shared"]) or bool(self.s["on_stack"]) or self.copied_out()

    def copied_out(self):
        """A shared-stack instance whose frames are in its buffer now (stack_shared.c)."""
        return (self.stackful and bool(self.s["shared"]) and not bool(self.s["on_stack"])
                and int(self.s["copy_size"]) > 0)

    def copy_window(self):
        """(low, top, copy): its frames came from [low, top) of the shared stack
        and are at copy now; None unless copied out."""
        if not self.copied_out():
            return None
        top = _ptr(self.s["map"]) + int(self.s["map_size"])
        return top - int(self.s["copy_size"]), top, _ptr(self.s["copy"])

    def locate(self, addr):
        """Where the byte at addr of its stack is now: in its buffer when its
        frames are copied out (as coro_stackful_locate says), else at addr."""
        w = self.copy_window() if self.stackful else None
        if w is None or not w[0] <= addr < w[1]:
            return addr
        return w[2] + addr - w[0]

    def saved_registers(self):
        """[(register, value)] of where it goes on. A copied-out shared-stack
        instance's stack and frame pointers point into its buffer instead
        (locate): its frames are read there, as if they were still in place."""
        ctx = self.s["ctx"]
        names = [f.name for f in ctx.type.fields()]
        if "rsp" in names:
            # x86_64: where it goes on and its rbp are the two words on top of its stack
            # (runtime/asm/switch_x86_64.S). The registers as they are where it goes on: past
            # those two words, and for a yield switched inline, past the 128-byte red zone too,
            # which the asm statement stepped over (coro/switch_x86_64.h): there the compiler's
            # unwind info counts from the rsp it had before the statement.
            ulong = _type("unsigned long")
            sp = int(ctx["rsp"])
            words = gdb.Value(self.locate(sp)).cast(ulong.pointer())
            pc, rbp = int(words[0]), int(words[1])
            where = gdb.execute("info symbol 0x%x" % pc, to_string=True)
            in_switch = where.startswith("coro_ctx_switch ")   # assembly: no debug-info block
            sp += 16 if in_switch else 16 + 128
            return [("rsp", gdb.Value(self.locate(sp))), ("rip", gdb.Value(pc)),
                    ("rbp", gdb.Value(self.locate(rbp)))]
        if "x29" in names:
            regs = [("sp", gdb.Value(self.locate(int(ctx["sp"])))), ("pc", ctx["x30"]),
                    ("x29", gdb.Value(self.locate(int(ctx["x29"])))), ("x30", ctx["x30"])]
            return regs + [("x%d" % i, ctx["x%d" % i]) for i in range(19, 29)]
        raise gdb.GdbError("coroc: cannot unwind a stackful context of this build "
                           "(the ucontext switch): only the asm switch on x86_64 and aarch64")

    def stack_frames(self):
        """The body's frames of a suspended stackful instance, newest first."""
        return _unwinder.frames(self)

    # -- where it is and what it waits for ----------------------------------
    def where(self, running):
        if self.addr in running:
            return running[self.addr]
        if self.stackful:
            if self.status == 1 and self.stack_mapped():
                try:
                    frames = self.stack_frames()
                except gdb.GdbError:   # a context this extension cannot unwind (ucontext)
                    return "?"
                for f in frames:
                    sal = f.find_sal()
                    if sal.symtab is not None and sal.symtab.filename.endswith(".coc"):
                        return "%s:%d" % (_file(sal.symtab), sal.line)
                return "?"
            if self.status == 0:
                fn = _function_symbol(self.fn)
                if fn is not None and fn.symtab is not None:
                    return "%s:%d" % (_file(fn.symtab), fn.line)
            return "-"
        if self.status == 3:
            return "-"
        line = self.stackless_line(self.resume_point if self.status == 1 else 0)
        return "%s:%d" % (self.source_file(), line) if line is not None else "?"


def _registries():
    try:
        head = gdb.parse_and_eval("coro_registries")
    except gdb.error:
        raise gdb.GdbError("coroc: this program has no coroc runtime (no coro_registries): "
                           "is it linked with libcoro, and running or loaded from a core file?")
    while _ptr(head):
        yield head
        head = head["next"]


def _slab_instances(r, coro_p):
    """The live slots of a registry's slabs, in address order: a live slot's
    first word is its resume function, a free one's is NULL."""
    sentinel = _ptr(r["slabs"].address)
    slabs = []
    s = r["slabs"]["next"]
    while _ptr(s) != sentinel:
        slabs.append(s)
        s = s["next"]
    inferior = gdb.selected_inferior()
    word = _type("void").pointer().sizeof
    out = []
    for s in sorted(slabs, key=_ptr):
        d = s.dereference()
        first, size, carved = int(d["first"]), int(d["slot_size"]), int(d["carved"])
        start = _ptr(s) + first
        if carved == 0:
            continue
        mem = bytes(inferior.read_memory(start, carved * size))   # one read per slab
        for i in range(carved):
            if int.from_bytes(mem[i * size:i * size + word], "little"):
                out.append(gdb.Value(start + i * size).cast(coro_p))
    return out


def _inline_children(inst, coro_p):
    """The child whose frame is inside inst's (coroc's coro_children), when
    inst is a stackless task at the await of such a child (suspended there,
    or running with the child running inside it), and the child's own, down
    the chain. Every member of the union starts with the child's header, so
    the header is at the union's start whichever child it is; a child that
    is live there names inst as its parent."""
    out = []
    while not inst.stackful and not inst.generator and inst.status in (1, 2):
        try:
            block = gdb.block_for_pc(inst.fn)
            frame_t = gdb.lookup_type("struct coro_frame_" + inst.name, block)
        except (RuntimeError, gdb.error):
            break
        if "coro_children" not in [f.name for f in frame_t.fields()]:
            break
        children = inst.coro.cast(frame_t.pointer()).dereference()["coro_children"]
        header = children.address.cast(coro_p)
        if not _ptr(header.dereference()["resume"]):
            break
        child = Instance(header, inst.registry)
        if child.status not in (1, 2) or child.parent != inst.addr:
            break
        out.append(child)
        inst = child
    return out


def instances():
    """Every live instance, thread by thread, in the order they lie in memory
    (an instance inside another's frame right after it)."""
    _names.clear()
    live = _type("struct coro_live")
    char = _type("char").pointer()
    coro_p = _type("struct coro").pointer()
    out = []
    for r in _registries():
        items = [Instance(c, r) for c in _slab_instances(r, coro_p)]
        ring = r["ring"].address
        n = ring.dereference()["next"]
        large = []
        while _ptr(n) != _ptr(ring):
            large.append(Instance((n.cast(char) + live.sizeof).cast(coro_p), r))
            n = n.dereference()["next"]
        items.extend(sorted(large, key=lambda i: i.addr))
        for i in items:
            out.append(i)
            out.extend(_inline_children(i, coro_p))
    out.extend(_reachable(out, coro_p))
    return out


def _reachable(found, coro_p):
    """Instances in storage their program gave (coro_in_NAME: a local, a
    member, an arena), which no registry lists, found the ways the runtime
    itself reaches them: a task in a ready queue, the instance a thread is
    running, the parent of a listed task, the child a listed task awaits;
    then the same from each of these, and the children inside their frames.
    One that waits on I/O, a timer or a channel and is reached from none of
    these is not found (docs/debugging.md)."""
    known = {i.addr for i in found}
    todo = []
    by_tid = {}
    for r in _registries():
        by_tid[int(r["tid"])] = r
        todo.extend((a, r) for a in _ready_queue(r))
    for addr, tid in _running_instances():
        if tid in by_tid:
            todo.append((addr, by_tid[tid]))
    todo.extend((i.parent, i.registry) for i in found if i.parent)
    todo.extend((_ptr(i.task["awaiting"]), i.registry) for i in found if i.task is not None)
    out = []
    while todo:
        addr, r = todo.pop()
        if not addr or addr in known:
            continue
        known.add(addr)
        try:
            inst = Instance(gdb.Value(addr).cast(coro_p), r)
        except gdb.error:
            continue
        if inst.status not in (0, 1, 2):   # not an instance (or one that ended)
            continue
        if not inst.stackful and not (_symbol_name(inst.fn) or "").startswith("coro_resume_"):
            continue   # the runtime's own relay inside an awaitable (a group's, a wait's)
        out.append(inst)
        for child in _inline_children(inst, coro_p):
            known.add(child.addr)
            out.append(child)
        if inst.parent:
            todo.append((inst.parent, r))
        if inst.task is not None:
            todo.append((_ptr(inst.task["awaiting"]), r))
    return sorted(out, key=lambda i: i.addr)


def _running_frames():
    """(thread, frame, instance address) of each resume function or body on
    the threads' stacks, newest first. It selects each thread in turn: run it
    inside _keeping_selection."""
    for thread in gdb.selected_inferior().threads():
        try:
            thread.switch()
            frame = gdb.newest_frame()
        except gdb.error:
            continue
        while frame is not None:
            if (frame.name() or "").startswith(("coro_resume_", "coro_body_")):
                try:
                    addr = _ptr(frame.read_var("coro_c"))
                except (ValueError, gdb.error):
                    addr = None
                if addr:
                    yield thread, frame, addr
            try:
                frame = frame.older()
            except gdb.error:
                break


def _running_instances():
    """(address, LWP) of each instance a thread is running now."""
    return _keeping_selection(lambda: [(addr, thread.ptid[1]) for thread, _, addr in _running_frames()])


def _running_locations():
    """addr -> file:line of the instances running now, from the threads' stacks."""
    found = {}
    for _, frame, addr in _running_frames():
        sal = frame.find_sal()
        if sal.symtab is not None and addr not in found:
            found[addr] = "%s:%d" % (_file(sal.symtab), sal.line)
    return found


def _keeping_selection(fn):
    """fn(), after which the user's thread and frame are selected again."""
    thread = gdb.selected_thread()
    try:
        frame = gdb.selected_frame()
    except gdb.error:
        frame = None
    try:
        return fn()
    finally:
        if thread is not None and thread.is_valid():
            thread.switch()
            if frame is not None and frame.is_valid():
                frame.select()


def _with_running(fn):
    """fn(where the running instances are): looking takes a walk through every
    thread's stack."""
    return _keeping_selection(lambda: fn(_running_locations()))


def _ready_queue(registry):
    out = set()
    if int(registry["exited"]):   # its scheduler went with the thread
        return out
    if not _ptr(registry["sched"]):   # no task was ever spawned on the thread
        return out
    c = registry["sched"]["head"]
    while _ptr(c):
        out.add(_ptr(c))
        c = c["next_ready"]
    return out


# -- the stackful unwinder ----------------------------------------------------

class _FrameId:
    def __init__(self, sp, pc):
        self.sp = sp
        self.pc = pc


class ContextUnwinder(gdb.unwinder.Unwinder):
    """While `regs` is set, the newest frame's caller is the saved context."""

    def __init__(self):
        super().__init__("coroc-context")
        self.regs = None
        self.window = None   # (low, top, copy) of a copied-out shared-stack instance (copy_window)

    def __call__(self, pending):
        if self.regs is None:
            return None
        if pending.level() != 0:
            return self._copied_frame(pending) if self.window is not None else None
        arch = pending.architecture().name()
        sp, pc = ("rsp", "rip") if "x86-64" in arch else ("sp", "pc")
        # The newest frame's id says its stack lies below every other: the saved context's frames
        # are on another stack, which may lie above or below this one (stacks are slots of shared
        # mappings, handed out in any order), and gdb stops at a caller that looks inner to its callee.
        here = pending.read_register(sp)
        info = pending.create_unwind_info(_FrameId(gdb.Value(1).cast(here.type), pending.read_register(pc)))
        ulong = _type("unsigned long")
        for reg, value in self.regs:
            info.add_saved_register(reg, value.cast(ulong))
        return info

    def _copied_frame(self, pending):
        """A frame of a copied-out instance, read in its buffer, whose frame
        pointer gdb took from the buffer: an address where the frames were, on
        the shared stack, where another instance's are now. gdb's own unwinder
        would read on there; when the frame's function keeps the frame pointer
        (push rbp; mov rsp, rbp: built without optimisation, or with
        -fno-omit-frame-pointer), its caller is unwound here instead, from the
        buffer: return address at rbp + 8, the caller's rbp at rbp, its rsp at
        rbp + 16. (x86_64; such a frame's locals cannot be shown: gdb finds
        them from the CFA of its own unwinder only.)"""
        if "x86-64" not in pending.architecture().name():
            return None
        low, top, copy = self.window
        rbp = int(pending.read_register("rbp"))
        pc = int(pending.read_register("rip"))
        start = _frame_pointer_function(pending.architecture(), pc)
        if not low <= rbp < top or start is None:
            return None
        fp = copy + rbp - low
        ulong = _type("unsigned long")
        words = gdb.Value(fp).cast(ulong.pointer())
        caller_rbp, ret = int(words[0]), int(words[1])
        if low <= caller_rbp < top:
            caller_rbp = copy + caller_rbp - low
        info = pending.create_unwind_info(_FrameId(gdb.Value(fp + 16).cast(ulong), gdb.Value(start).cast(ulong)))
        for reg, value in (("rsp", fp + 16), ("rip", ret), ("rbp", caller_rbp)):
            info.add_saved_register(reg, gdb.Value(value).cast(ulong))
        return info

    def frames(self, inst):
        """The frames of inst's suspended body, newest first, down to its entry."""
        try:
            gdb.newest_frame()
        except gdb.error:
            raise gdb.GdbError("coroc: no stack to unwind from: start the program or load a core file")
        self.regs = inst.saved_registers()
        self.window = inst.copy_window()
        gdb.invalidate_cached_frames()
        out = []
        try:
            frame = gdb.newest_frame().older()
            while frame is not None and len(out) < 256:
                name = frame.name() or ""
                if name.startswith("coro_entry_") or name in ("stackful_main", "coro_ctx_trampoline"):
                    break
                if not _runtime_frame(frame):
                    out.append(_SavedFrame(frame))
                frame = frame.older()
        finally:
            self.regs = None
            self.window = None
            gdb.invalidate_cached_frames()
        return out


_fp_functions = {}   # function start -> it keeps the frame pointer


def _frame_pointer_function(arch, pc):
    """The start of the function at pc (a return address) when it begins
    push rbp; mov rsp, rbp (after an endbr64), else None."""
    out = gdb.execute("info symbol 0x%x" % (pc - 1), to_string=True)
    m = re.search(r"^\S+ \+ (\d+) in section", out, re.M)
    start = pc - 1 - int(m.group(1)) if m else (pc - 1 if re.search(r"^\S+ in section", out, re.M) else None)
    if start is None:
        return None
    if start not in _fp_functions:
        ops = [i["asm"].replace("%", "").split() for i in arch.disassemble(start, count=3)]
        ops = [o for o in ops if o and o[0] != "endbr64"][:2]
        _fp_functions[start] = (len(ops) == 2 and ops[0] == ["push", "rbp"] and ops[1][0] == "mov"
                                and sorted(ops[1][1].split(",")) == ["rbp", "rsp"])
    return start if _fp_functions[start] else None


def _runtime_frame(frame):
    """The switch itself, inlined from coro/gen.h (or the runtime's own files): not the program's."""
    sal = frame.find_sal()
    if sal.symtab is not None:
        path = sal.symtab.fullname() or sal.symtab.filename   # (filename obeys filename-display)
        if path.endswith("coro/gen.h") or os.path.basename(path) in ("coro.h", "stackful.c"):
            return True
    return (frame.name() or "") in ("coro_ctx_switch", "coro_stackful_suspend")


class _SavedFrame:
    """What coro bt shows of a frame, read while the unwinder was on."""

    def __init__(self, frame):
        self.pc = frame.pc()
        self.name = frame.name() or "??"
        if self.name.startswith("coro_body_"):   # a stackful body: the coroutine's own name
            self.name = self.name[len("coro_body_"):]
        self.sal = frame.find_sal()
        self.args = []
        self.locals = []
        try:
            block = frame.block()
        except RuntimeError:
            block = None
        while block is not None:
            for sym in block:
                if not sym.is_variable and not sym.is_argument:
                    continue
                if sym.name.startswith("coro_"):
                    continue
                try:
                    val = str(sym.value(frame))
                except (gdb.error, ValueError) as e:
                    val = "<%s>" % e
                (self.args if sym.is_argument else self.locals).append((sym.name, val))
            if block.function is not None:
                break
            block = block.superblock

    def find_sal(self):
        return self.sal


_unwinder = ContextUnwinder()
gdb.unwinder.register_unwinder(None, _unwinder, replace=True)


# -- the commands ---------------------------------------------------------------

def _table(rows):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        gdb.write("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1] + "\n")


class InfoCoroutines(gdb.Command):
    """Every live coroutine instance of the program (coroc's libcoro).

One line each: its address, the coroutine's name, generator or task, the
backend (stackless or stackful), its state (created, suspended, running,
done), where it will go on (file.coc:LINE) and what a task waits for: a
child task, a read or write on an fd, a timer and the time left, an
offloaded call, wait_all or wait_any."""

    def __init__(self):
        super().__init__("info coroutines", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        insts = instances()
        if not insts:
            gdb.write("No live coroutine instances.\n")
            return
        by_parent = {i.parent: i for i in insts if i.parent}
        rows = [("ADDRESS", "NAME", "KIND", "BACKEND", "STATE", "WHERE", "WAITS FOR")]
        threads = {int(i.registry["tid"]) for i in insts}

        def fill(running):
            readies = {}
            for i in insts:
                key = _ptr(i.registry)
                if key not in readies:
                    readies[key] = _ready_queue(i.registry)
                rows.append(("0x%x" % i.addr, i.name, i.kind, i.backend, i.state, i.where(running),
                             waits_for(i, by_parent, readies[key])
                             + (" [LWP %d]" % int(i.registry["tid"]) if len(threads) > 1 else "")))
        _with_running(fill)
        _table(rows)


class Coro(gdb.Command):
    """Commands for coroc's coroutines: coro bt, coro frame (and info coroutines)."""

    def __init__(self):
        super().__init__("coro", gdb.COMMAND_STACK, prefix=True)


def _find(arg):
    if not arg.strip():
        raise gdb.GdbError("coroc: which instance? give its address (from info coroutines)")
    m = re.fullmatch(r'\s*\$coro\(\s*"([^"]*)"\s*(?:,\s*(\d+)\s*)?\)\s*', arg)
    if m:   # here, not by gdb: its call would put the string in the inferior (none in a core file)
        addr = _ptr(_coro_named(m.group(1), int(m.group(2) or 0)))
    else:
        addr = int(gdb.parse_and_eval(arg).cast(_type("unsigned long")))
    insts = instances()
    for i in insts:
        if i.addr == addr:
            return i, insts
    raise gdb.GdbError("coroc: 0x%x is not a live coroutine instance (see info coroutines)" % addr)


def _args_of(inst):
    table = inst.locals_table() or []
    frame = inst.frame_value()
    return ", ".join("%s=%s" % (name, frame[field]) for field, name, p, _ in table if p)


def _print_chain(inst, insts, running):
    """inst's chain of awaits, from its innermost child out to the task nobody awaits."""
    by_addr = {i.addr: i for i in insts}
    by_parent = {i.parent: i for i in insts if i.parent}
    while inst.addr in by_parent:
        inst = by_parent[inst.addr]
    n = 0
    seen = set()
    while inst is not None and inst.addr not in seen:
        seen.add(inst.addr)
        label = "[0x%x %s %s, %s]" % (inst.addr, inst.backend, inst.kind, inst.state)
        if inst.stackful and inst.status == 1 and inst.stack_mapped():
            for k, f in enumerate(inst.stack_frames()):
                where = "%s:%d" % (_file(f.sal.symtab), f.sal.line) if f.sal.symtab else "??"
                args = ", ".join("%s=%s" % a for a in f.args)
                gdb.write("#%-2d 0x%016x in %s (%s) at %s%s\n" % (n, f.pc, f.name, args, where,
                                                                  "" if k else "  " + label))
                n += 1
        else:
            args = _args_of(inst) if not inst.stackful else ""
            gdb.write("#%-2d %s (%s) at %s  %s\n" % (n, inst.name, args, inst.where(running), label))
            n += 1
        parent = by_addr.get(inst.parent)
        if parent is None and inst.parent:
            waiter = _relay_waiter(inst.parent, insts)
            if waiter is not None:
                gdb.write("    (awaited with %s)\n" % waiter[1])
                parent = waiter[0]
        inst = parent


def _relay_waiter(relay, insts):
    """The task that awaits coro_wait_all/any, given the relay its tasks see as their parent."""
    for i in insts:
        if i.task is None:
            continue
        aw = i.task["waiting_on"]
        if not _ptr(aw) or _symbol_name(_ptr(aw.dereference()["ops"])) != "group_awaiter":
            continue
        w = aw.cast(_type("struct coro_wait").pointer())
        if _ptr(w.dereference()["relay"].address) == relay:
            return i, "wait_any" if int(w.dereference()["any"]) else "wait_all"
    return None


class CoroBt(gdb.Command):
    """Backtrace of a coroutine instance: coro bt ADDR, or coro bt all.

A suspended stackful instance: its real backtrace, unwound from its saved
registers. A stackless task: the chain of tasks awaiting one another,
innermost first, each at the .coc line where it will go on."""

    def __init__(self):
        super().__init__("coro bt", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        if arg.strip() == "all":
            insts = instances()
            parents = {i.parent for i in insts}
            leaves = [i for i in insts if i.addr not in parents]
            def show(running):
                for i in leaves:
                    gdb.write("\ncoroutine 0x%x (%s):\n" % (i.addr, i.name))
                    _print_chain(i, insts, running)
            _with_running(show)
            return
        inst, insts = _find(arg)
        if inst.stackful and inst.status == 2:
            gdb.write("0x%x is running: its frames are on its thread's stack (bt)\n" % inst.addr)
        _with_running(lambda running: _print_chain(inst, insts, running))


class CoroFrame(gdb.Command):
    """The parameters and locals of a suspended coroutine instance: coro frame ADDR.

A stackless instance keeps them in its frame, some under names coroc gave
them; they are shown under the names of the program. A stackful one keeps
them on its stack: they are read from its suspended frames."""

    def __init__(self):
        super().__init__("coro frame", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        inst, _ = _find(arg)
        gdb.write("coroutine 0x%x (%s, %s %s, %s) at %s\n" % (
            inst.addr, inst.name, inst.backend, inst.kind, inst.state,
            _with_running(lambda running: inst.where(running))))
        if inst.stackful:
            if inst.status != 1 or not inst.stack_mapped():
                gdb.write("  (not suspended: no saved frames)\n")
                return
            for f in inst.stack_frames():
                if f.name == inst.name:
                    for what, items in (("parameters", f.args), ("locals", f.locals)):
                        gdb.write("%s:\n" % what)
                        for name, val in items:
                            gdb.write("  %s = %s\n" % (name, val))
                    return
            return
        table = inst.locals_table()
        if table is None:
            raise gdb.GdbError("coroc: no coro_locals_%s table: was the program made by this coroc?"
                               % inst.name)
        frame = inst.frame_value()
        running = inst.running_frame() if inst.status == 2 else None
        for what, want in (("parameters", True), ("locals", False)):
            gdb.write("%s:\n" % what)
            for field, name, is_param, in_c_local in table:
                if is_param != want:
                    continue
                value, note = frame[field], "" if field == name else "  (frame field %s)" % field
                if in_c_local and running is not None:
                    try:  # the running body's own copy: the field is as it was at the last suspension
                        value, note = running.read_var(name), "  (in the running body)"
                    except (ValueError, gdb.error):
                        note += "  (as at the last suspension)"
                gdb.write("  %s = %s%s\n" % (name, value, note))


class CoroFunction(gdb.Function):
    """$coro("NAME") or $coro("NAME", N): the live instance of coroutine NAME
(the Nth of them, from 0, in the order of info coroutines), as a coro_t *.
For scripts: coro bt $coro("writer")."""

    def __init__(self):
        super().__init__("coro")

    def invoke(self, name, n=None):
        return _coro_named(name.string(), int(n) if n is not None else 0)


def _coro_named(name, n):
    found = [i for i in instances() if i.name == name]
    if n >= len(found):
        raise gdb.GdbError("coroc: no live instance %d of coroutine %s (%d live)" % (n, name, len(found)))
    return found[n].coro


_commands = [InfoCoroutines(), Coro(), CoroBt(), CoroFrame(), CoroFunction()]
