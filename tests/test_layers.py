"""The map of files: each program keeps the layers of tests/layers/layers.txt.

tests/layers/map.py reads the calls between files from the objects of this
build (nm: a symbol one object uses and another defines). The transformer
and the runtime must have no circle of files and no call against the layer
order beyond the ones layers.txt lists as known, with the reason; the
"calls into" tables of the docs must be what the map says. The check is
shown to catch what it is for on objects made here: two files that call
each other, and a lower layer that calls a higher one.
"""
import subprocess
import sys

import pytest

from conftest import BUILD_DIR, TESTS_DIR

MAP = TESTS_DIR / "layers" / "map.py"
sys.path.insert(0, str(MAP.parent))
import map as layers_map  # noqa: E402  (tests/layers/map.py, imported as a module)


@pytest.mark.parametrize("program", sorted(layers_map.PROGRAMS))
def test_program_keeps_its_layers(program):
    res = subprocess.run([sys.executable, MAP, "--build", BUILD_DIR, "--program", program, "--check"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, f"map.py --check ({program}):\n{res.stdout}{res.stderr}"


def test_docs_tables_are_what_the_map_says():
    graphs = {p: layers_map.graph_of(BUILD_DIR, p) for p in layers_map.PROGRAMS}
    tables = layers_map.docs_tables(graphs)
    assert tables, "no doc holds a calls-into table (docs/design.md should)"
    stale = [str(doc) for doc, (text, new) in tables.items() if text != new]
    assert not stale, f"run tests/layers/map.py --write-docs: the tables of {stale} are not the map's"


def objects(tmp_path, sources):
    """Compile each {name: C text} to NAME.o in tmp_path/objs; the objects' graph."""
    objs = tmp_path / "objs"
    objs.mkdir()
    for name, text in sources.items():
        (tmp_path / name).write_text(text)
        subprocess.run(["cc", "-c", "-o", objs / (name + ".o"), tmp_path / name], check=True)
    return layers_map.edges(layers_map.read_symbols(sorted(objs.glob("*.o")), objs))


def test_a_planted_circle_is_found(tmp_path):
    graph = objects(tmp_path, {
        "a.c": "int b(int);\nint a(int n) { return n ? b(n - 1) : 0; }\n",
        "b.c": "int a(int);\nint b(int n) { return n ? a(n - 1) : 1; }\n",
        "c.c": "int a(int);\nint main(void) { return a(3); }\n",
    })
    assert layers_map.circles(graph) == [["a.c", "b.c"]]
    layers = [("low", ["a.c", "b.c"]), ("top", ["c.c"])]
    found = layers_map.problems(graph, layers, [], [])
    assert found == ["a circle of files: a.c <-> b.c"], found
    # listed as known, with its reason, it passes; gone, it must be taken off
    assert layers_map.problems(graph, layers, [(["a.c", "b.c"], "planted")], []) == []
    graph["b.c"].pop("a.c")
    assert layers_map.problems(graph, layers, [(["a.c", "b.c"], "planted")], []) == [
        "layers.txt lists a circle that is gone: a.c b.c (take it off)"]


def test_a_call_against_the_order_is_found(tmp_path):
    graph = objects(tmp_path, {
        "low.c": "int high(void);\nint low(void) { return high(); }\n",
        "high.c": "int high(void) { return 1; }\n",
    })
    layers = [("bottom", ["low.c"]), ("top", ["high.c"])]
    assert layers_map.circles(graph) == []
    assert layers_map.problems(graph, layers, [], []) == ["low.c (a lower layer) uses high.c: high"]
    assert layers_map.problems(graph, layers, [], [(("low.c", "high.c"), "planted")]) == []
    # a file the layers do not name is a failure too
    assert layers_map.problems(graph, [("top", ["high.c"])], [], []) == [
        "low.c has no layer in tests/layers/layers.txt"]


# {==== one idea per file: no source of the two programs over 1,000 lines

LINE_LIMIT = 1000
SOURCE_SUFFIXES = {".c", ".h", ".l", ".y", ".S"}


def sources_over(root, limit):
    """The sources under root (the two programs' folders) longer than limit lines."""
    over = []
    for folder in ("transformer", "runtime"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in SOURCE_SUFFIXES and path.is_file():
                n = path.read_text(errors="replace").count("\n")
                if n > limit:
                    over.append(f"{path.relative_to(root)}: {n} lines")
    return over


def test_no_source_file_is_over_1000_lines():
    assert sources_over(TESTS_DIR.parent, LINE_LIMIT) == []


def test_a_long_file_is_found(tmp_path):
    (tmp_path / "runtime").mkdir()
    (tmp_path / "transformer" / "front").mkdir(parents=True)
    (tmp_path / "runtime" / "short.c").write_text("int x;\n" * LINE_LIMIT)
    (tmp_path / "transformer" / "front" / "long.y").write_text("%%\n" * (LINE_LIMIT + 1))
    assert sources_over(tmp_path, LINE_LIMIT) == [f"transformer/front/long.y: {LINE_LIMIT + 1} lines"]

# }====
