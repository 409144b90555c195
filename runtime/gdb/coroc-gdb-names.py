# coroc-gdb-names.py: the program's names in a stackless body, the second
# half of coroc's gdb extension (coroc-gdb.py is the first; docs/debugging.md).
#
#   print sum, info locals, bt full   at a breakpoint in a stackless body, its
#                        parameters and the locals its frame keeps, by their
#                        own names (gdb macros for the selected body's fields)
#   coro locals [args]   those locals (or parameters), as info locals prints
#   coro select ADDR     the same names for a suspended stackless instance,
#                        as when it suspended, until the program runs again
#   set coro-names off   no macros (print coro_f->sum, a.sum of a global)
#
# libcoro embeds this text right after coroc-gdb.py's, as one script
# (runtime/registry.c); by hand, source coroc-gdb.py and then this file. It
# uses coroc-gdb.py's functions (_parse_locals) only when gdb calls it, not
# while it loads.

import gdb
from gdb.FrameDecorator import FrameDecorator

# {==================================================================
# The program's names in a stackless body (docs/debugging.md)
#
# gdb knows a stackless body as coro_resume_NAME, whose C locals are only
# the locals coroc kept as C locals; the parameters and the other locals are
# fields of the frame (coro_f->sum). For the selected frame of a body, each
# of them becomes a gdb macro, sum -> the field, so that every expression
# (print, display, watch, ptype, a condition, an IDE's hover) finds it; a
# frame filter adds them to bt full and the IDEs' locals (MI), and hooks on
# info locals and info args print them. The lines of coro_locals_NAME say
# which of two locals of one name is in scope. No C symbol can stand for a
# field reached through a pointer, so the names are gdb's, not the program's.
# ===================================================================

def _in_scope(table, line, with_c_locals):
    """[(name, field, is_param)] of a coro_locals table: the parameters and the
    locals in scope at .coc line `line` (the innermost of one name); those the
    body keeps in C locals only `with_c_locals` (a suspended instance's)."""
    best = {}
    for field, name, is_param, in_c_local, first, last in _parse_locals(table):
        if (with_c_locals or not in_c_local) and first <= line <= last and \
                (name not in best or first >= best[name][0]):
            best[name] = (first, field, is_param)
    return [(n, f, p) for n, (_, f, p) in sorted(best.items(), key=lambda kv: -kv[1][0])]


def _body_names(frame):
    """(coro_f, [(name, field, is_param)]) for a frame of a stackless body: its
    parameters and the locals of its frame in scope at the frame's line, not
    those gdb sees as C locals; else None."""
    fname = frame.name() or ""
    if not fname.startswith("coro_resume_"):
        return None
    try:
        sym = gdb.lookup_symbol("coro_locals_" + fname[len("coro_resume_"):], frame.block())[0]
        coro_f = frame.read_var("coro_f")
    except (RuntimeError, ValueError, gdb.error):
        return None
    if sym is None:
        return None
    return coro_f, _in_scope(sym.value().string(), frame.find_sal().line, False)


_selected = None   # coro select's instance: (coro_f, its coro_locals table, its line), or None


def _names_here():
    """The names print finds now: those of the instance coro select chose, or
    else of the selected frame's body; None if neither."""
    if _selected is not None:
        coro_f, table, line = _selected
        return coro_f, _in_scope(table, line, True)
    try:
        return _body_names(gdb.selected_frame())
    except gdb.error:
        return None


class _Named:
    """A name and its value, as a frame decorator gives its locals."""

    def __init__(self, name, value):
        self._name, self._value = name, value

    def symbol(self):
        return self._name

    def value(self):
        return self._value


class _BodyDecorator(FrameDecorator):
    def frame_locals(self):
        own = list(super().frame_locals() or [])
        found = _body_names(self.inferior_frame())
        if found is None:
            return own or None
        coro_f, names = found
        return own + [_Named(n, coro_f[f]) for n, f, p in names if not p]


class _BodyFilter:
    """Frames of stackless bodies with the locals of their frames (bt full, MI)."""

    def __init__(self):
        self.name, self.priority, self.enabled = "coroc-body-locals", 100, True
        gdb.frame_filters[self.name] = self

    def filter(self, frames):
        return map(_BodyDecorator, frames)


def _member_names(frame, found):
    """The member names of the structs and unions that the body's locals hold
    (through pointers and arrays, a few levels down): a macro would rewrite
    `a.sum` too, so a local named as one of them gets none."""
    types = [found[0][f].type for _, f, _ in found[1]]
    block = frame.block() if frame is not None else None
    while block is not None and not block.is_global:
        types += [sym.type for sym in block if sym.is_variable or sym.is_argument
                  if not sym.name.startswith("coro_")]
        block = None if block.function is not None else block.superblock
    names, seen = set(), set()
    for _ in range(4):
        nested = []
        for t in types:
            t = t.strip_typedefs()
            while t.code in (gdb.TYPE_CODE_PTR, gdb.TYPE_CODE_ARRAY):
                t = t.target().strip_typedefs()
            if t.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION) and str(t) not in seen:
                seen.add(str(t))
                for fld in t.fields():
                    names.add(fld.name)
                    nested.append(fld.type)
        types = nested
    return names


_macros = {}   # the macros defined for the selected body: name -> expansion


def _define_names(_event=None):
    """Make the names of the selected frame's body gdb macros, and undefine the others."""
    want = {}
    found = _names_here() if _names_on.value else None
    if found is not None:
        co = found[0].type.target().name[len("coro_frame_"):]
        try:
            members = _member_names(gdb.selected_frame(), found)
        except gdb.error:   # no frame (a core file's selection, or the program has ended)
            members = _member_names(None, found)
        for name, field, _ in found[1]:
            if name not in members:
                want[name] = '(((struct coro_frame_%s *)$coro_body("%s", "%s"))->%s)' % (
                    co, name, field, field)
    for name in [n for n in _macros if _macros[n] != want.get(n)]:
        gdb.execute("macro undef " + name, to_string=True)
        del _macros[name]
    for name, text in want.items():
        if name not in _macros:
            gdb.execute("macro define %s %s" % (name, text), to_string=True)
            _macros[name] = text


class CoroBodyFunction(gdb.Function):
    """$coro_body("NAME", "FIELD"): the frame (coro_f) of the selected body,
where the local NAME is the field FIELD: what the macro NAME expands to."""

    def __init__(self):
        super().__init__("coro_body")

    def invoke(self, name, field):
        name, field = name.string(), field.string()
        found = _names_here()
        if found is None or (name, field) not in [(n, f) for n, f, _ in found[1]]:
            # a frame selected without a prompt since (a script's `up`): the macros lag
            raise gdb.GdbError("coroc: %s was a local of the body selected before; "
                               "its macro follows the selected frame at the next prompt" % name)
        return found[0]


class NamesParameter(gdb.Parameter):
    """Whether the parameters and locals of a stackless body are gdb macros
while one of its frames is selected (print sum for coro_f->sum)."""
    set_doc = "Set whether a stackless body's names are macros."
    show_doc = "Show whether a stackless body's names are macros."

    def __init__(self):
        super().__init__("coro-names", gdb.COMMAND_DATA, gdb.PARAM_BOOLEAN)
        self.value = True

    def get_set_string(self):
        _define_names()
        return ""


class CoroLocals(gdb.Command):
    """The locals (coro locals) or parameters (coro locals args) of the selected
frame of a stackless body that live in its frame, as info locals prints
C locals: info locals and info args print them after gdb's own."""

    def __init__(self):
        super().__init__("coro locals", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        found = _names_here()
        for name, field, is_param in found[1] if found else ():
            if is_param == (arg.strip() == "args"):
                gdb.write("%s = %s\n" % (name, found[0][field]))


class CoroSelect(gdb.Command):
    """Make a suspended stackless instance's names the ones gdb finds: coro select ADDR.

Then print NAME, info locals and info args show its parameters and locals, as
they were when it suspended, under the program's names, whatever frame is
selected; coro select alone goes back to the selected frame's. The choice
lasts until the program runs again. (A stackful instance's locals are C
locals in its own frames: coro frame ADDR and coro bt ADDR show them.)"""

    def __init__(self):
        super().__init__("coro select", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        global _selected
        if not arg.strip():
            _selected = None
            _define_names()
            gdb.write("coroc: the names of the selected frame again\n")
            return
        inst, _ = _find(arg)
        if inst.stackful:
            raise gdb.GdbError("coroc: 0x%x is stackful: its locals are C locals in its own frames "
                               "(coro frame, coro bt)" % inst.addr)
        if inst.status != 1:
            raise gdb.GdbError("coroc: 0x%x is %s, not suspended: select its body's frame instead"
                               % (inst.addr, inst.state))
        table = inst._static("coro_locals_")
        if table is None:
            raise gdb.GdbError("coroc: no coro_locals_%s table: was the program made by this coroc?"
                               % inst.name)
        coro_f = inst.coro.cast(_type("struct coro_frame_" + inst.name, gdb.block_for_pc(inst.fn)).pointer())
        _selected = (coro_f, table.string(), inst.stackless_line(inst.resume_point) or 0)
        _define_names()
        gdb.write("coroc: the names of %s 0x%x, suspended at %s\n" % (inst.name, inst.addr, inst.where({})))


def _unselect(_event=None):
    global _selected
    _selected = None


def _hook(command, text):
    """Run text after gdb's command, unless the user hooks it already."""
    try:
        gdb.execute("show user info hookpost-" + command, to_string=True)
    except gdb.error:
        gdb.execute("define info hookpost-%s\n%s\nend" % (command, text))


_names_on = NamesParameter()
_name_commands = [CoroBodyFunction(), CoroLocals(), CoroSelect(), _BodyFilter()]
gdb.events.cont.connect(_unselect)
gdb.events.exited.connect(_unselect)
_hook("locals", "coro locals")
_hook("args", "coro locals args")
for _event in (gdb.events.stop, gdb.events.before_prompt, gdb.events.exited):
    _event.connect(_define_names)
