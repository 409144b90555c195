#!/usr/bin/python3
"""The map of coroc's files, read from the objects' symbols.

For each object file of the transformer (coroc) and the runtime (libcoro),
`nm` says which symbols it defines and which it uses; a use of a symbol that
another file of the same program defines is an edge between the two files
(a call, or a variable read or written). From those edges:

  * the circles: groups of files that reach each other (strongly connected
    components of more than one file);
  * the edges against the layer order that tests/layers/layers.txt gives
    (a file may use its own layer and the layers below it);
  * the "calls into" table of each program, as markdown.

    tests/layers/map.py [--build DIR] [--program transformer|runtime]
                        [--circles] [--table] [--check] [--write-docs]

--check exits 1 on any circle or edge against the order that layers.txt
does not list as known (with its reason), on a known one that is gone, and
on a "calls into" table of the docs that is not what the map says.
--write-docs writes those tables: each stands in a doc between the lines

    <!-- calls-into:PROGRAM [hide=PREFIX] -->
    <!-- /calls-into -->

(hide=PREFIX leaves out the calls into the files whose path starts so, the
ones every file makes), so that what the docs say of the calls between
files is never other than what the objects say. tests/test_layers.py runs
--check on the suite's build.
"""
import argparse
import collections
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SOURCE_DIR = HERE.parent.parent
# Where each program's objects are: the transformer is main.c (coroc.dir) and
# the library of the rest (coroc_pipeline.dir), which tests/reset and the
# language server (coroc-lsp.dir, lsp/) link too.
PROGRAMS = {
    "transformer": ("transformer/CMakeFiles/coroc.dir", "transformer/CMakeFiles/coroc_pipeline.dir",
                    "transformer/CMakeFiles/coroc-lsp.dir"),
    "runtime": ("runtime/CMakeFiles/coro.dir",),
}
DEFINED = set("TDBRCVWGSi")  # nm's kinds of a symbol an object defines (global or weak)


def file_name(obj, base):
    """The source an object was built from, as its path under the program's
    folder: runtime/CMakeFiles/coro.dir/sched.c.o -> sched.c,
    transformer/CMakeFiles/coroc.dir/front/lexer.c.o -> front/lexer.l (the
    scanner and the parser are generated from lexer.l and parser.y)."""
    bases = [] if base is None else [base] if isinstance(base, pathlib.Path) else base
    base = next((b for b in bases if obj.is_relative_to(b)), None)
    rel = obj.relative_to(base).as_posix() if base else obj.name
    name = rel[:-2] if rel.endswith(".o") else rel
    folder, _, leaf = name.rpartition("/")
    leaf = {"lexer.c": "lexer.l", "parser.c": "parser.y"}.get(leaf, leaf)
    return f"{folder}/{leaf}" if folder else leaf


def objects_of(build, program):
    """The object files of a program, in every folder of its sources; an
    object whose source is gone (a build from before a file moved) is not
    the program's any more."""
    bases = [build / d for d in PROGRAMS[program]]
    folder = SOURCE_DIR / PROGRAMS[program][0].split("/")[0]
    return sorted(o for base in bases for o in base.rglob("*.o")
                  if (folder / file_name(o, bases)).exists())


def read_symbols(objects, base=None):
    """{file: (defined names, used names)} from nm: one run for all the objects
    (a run each was most of the check's time), which heads each object's
    symbols with a line "OBJECT:"."""
    objects = list(objects)
    if not objects:
        return {}
    res = subprocess.run(["nm", "-g", *objects], capture_output=True, text=True, check=True)
    symbols = {obj: (set(), set()) for obj in objects}
    heads = {f"{obj}:": obj for obj in objects}
    current = objects[0]  # (nm heads nothing when given one object)
    for line in res.stdout.splitlines():
        if line in heads:
            current = heads[line]
            continue
        words = line.split()
        if len(words) == 2 and words[0] == "U":
            symbols[current][1].add(words[1])
        elif len(words) >= 3 and words[1] in DEFINED:
            symbols[current][0].add(words[-1])
    return {file_name(obj, base): symbols[obj] for obj in objects}


def edges(symbols):
    """{file: {file it uses: [symbols]}}."""
    owner = {}
    for f, (defined, _) in symbols.items():
        for s in defined:
            owner.setdefault(s, f)
    graph = collections.defaultdict(lambda: collections.defaultdict(list))
    for f, (_, used) in symbols.items():
        for s in sorted(used):
            g = owner.get(s)
            if g and g != f:
                graph[f][g].append(s)
        graph[f]  # every file is a node
    return graph


def circles(graph):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def read_layers(program):
    """layers.txt: '[program]' sections of 'LAYER: file file ...' lines, lowest
    first; 'known-circle: f g ... -- why' and 'known-edge: f -> g -- why'."""
    layers, known_circles, known_edges, section = [], [], [], None
    for raw in (HERE / "layers.txt").read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        if section != program:
            continue
        key, _, rest = line.partition(":")
        if key == "known-circle":
            files, _, why = rest.partition("--")
            known_circles.append((sorted(files.split()), why.strip()))
        elif key == "known-edge":
            pair, _, why = rest.partition("--")
            a, _, b = pair.partition("->")
            known_edges.append(((a.strip(), b.strip()), why.strip()))
        else:
            layers.append((key.strip(), rest.split()))
    return layers, known_circles, known_edges


def against_order(graph, layers):
    """Edges from a file to a file of a higher layer: [(from, to, symbols)]."""
    level = {f: i for i, (_, files) in enumerate(layers) for f in files}
    bad = []
    for f in sorted(graph):
        for g, syms in sorted(graph[f].items()):
            if f in level and g in level and level[g] > level[f]:
                bad.append((f, g, syms))
    return bad


def layer_order(layers):
    return {f: i for i, (_, files) in enumerate(layers) for f in files}


def table(graph, layers, hide=None):
    """The "calls into" table: each file, its layer and the files it uses,
    lowest layer first (the calls into files whose path starts with `hide`
    left out)."""
    level = {f: name for name, files in layers for f in files}
    order = layer_order(layers)
    lines = ["| file | layer | calls into |", "|---|---|---|"]
    for f in sorted(graph, key=lambda f: (order.get(f, len(layers)), f)):
        into = [g for g in sorted(graph[f]) if not (hide and g.startswith(hide))]
        shown = ", ".join(f"`{g}`" for g in into) or (f"`{hide}` only" if graph[f] else "nothing")
        lines.append(f"| `{f}` | {level.get(f, '?')} | {shown} |")
    return "\n".join(lines)


def problems(graph, layers, known_circles, known_edges):
    """What --check fails on, as sentences: a file without a layer, a circle
    or an edge against the order that is not known, a known one that is gone."""
    out = []
    layered = {f for _, files in layers for f in files}
    out += [f"{f} has no layer in tests/layers/layers.txt" for f in sorted(graph) if f not in layered]
    out += [f"{f} is in layers.txt but not in the build" for f in sorted(layered) if f not in graph]
    found = circles(graph)
    bad = against_order(graph, layers)
    known_c = [c for c, _ in known_circles]
    known_e = [e for e, _ in known_edges]
    out += [f"a circle of files: {' <-> '.join(c)}" for c in found if c not in known_c]
    out += [f"{f} (a lower layer) uses {g}: {', '.join(syms)}" for f, g, syms in bad if (f, g) not in known_e]
    out += [f"layers.txt lists a circle that is gone: {' '.join(c)} (take it off)"
            for c in known_c if c not in found]
    out += [f"layers.txt lists an edge that is gone: {a} -> {b} (take it off)"
            for a, b in known_e if (a, b) not in [(f, g) for f, g, _ in bad]]
    return out


def graph_of(build, program):
    objects = objects_of(build, program)
    if not objects:
        sys.exit(f"map.py: no objects in {build / PROGRAMS[program][0]}: build first")
    return edges(read_symbols(objects, [build / d for d in PROGRAMS[program]]))


DOCS = SOURCE_DIR / "docs"
TABLE = re.compile(r"(<!-- calls-into:(\w+)((?: \S+=\S+)*) -->\n)(.*?)(<!-- /calls-into -->)", re.S)


def docs_tables(graphs):
    """{doc: (its text, its text with each table of a program in `graphs` written anew)}."""
    out = {}
    for doc in sorted(DOCS.glob("*.md")):
        text = doc.read_text(encoding="utf-8")

        def write(m):
            program = m.group(2)
            if program not in graphs:
                return m.group(0)
            options = dict(o.split("=", 1) for o in m.group(3).split())
            layers = read_layers(program)[0]
            return m.group(1) + table(graphs[program], layers, options.get("hide")) + "\n" + m.group(5)

        new = TABLE.sub(write, text)
        if TABLE.search(text):
            out[doc] = (text, new)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", type=pathlib.Path, default=SOURCE_DIR / "build")
    ap.add_argument("--program", choices=sorted(PROGRAMS), action="append")
    ap.add_argument("--circles", action="store_true")
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write-docs", action="store_true")
    opts = ap.parse_args()
    failed = False
    graphs = {}
    for program in opts.program or sorted(PROGRAMS):
        graph = graphs[program] = graph_of(opts.build, program)
        layers, known_circles, known_edges = read_layers(program)
        if opts.circles or not (opts.table or opts.check or opts.write_docs):
            print(f"{program}: circles")
            for c in circles(graph):
                print("  " + " <-> ".join(c))
            print(f"{program}: edges against the layer order")
            for f, g, syms in against_order(graph, layers):
                print(f"  {f} -> {g}: {', '.join(syms)}")
        if opts.table:
            print(table(graph, layers))
        if opts.check:
            for p in problems(graph, layers, known_circles, known_edges):
                print(f"{program}: {p}")
                failed = True
    for doc, (text, new) in docs_tables(graphs).items():
        if opts.write_docs and new != text:
            doc.write_text(new, encoding="utf-8")
            print(f"map.py: wrote the calls-into tables of {doc.relative_to(SOURCE_DIR)}")
        elif opts.check and new != text:
            print(f"{doc.relative_to(SOURCE_DIR)}: a calls-into table is not what the map says: "
                  "run tests/layers/map.py --write-docs")
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
