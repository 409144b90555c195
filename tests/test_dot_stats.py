"""--dot draws each coroutine's state machine; --stats gives its frame as the
compiler lays it out. Expected edges and sizes are worked out by hand."""
import re
import shutil

import pytest

from conftest import COROC, TESTS_DIR, run

GOLDEN = TESTS_DIR / "golden"


def edges(dot_text):
    """The edges of one coroutine's graph, its node names without the NAME_
    that a file of several coroutines puts before them."""
    return set(re.findall(r"(?:\w+_)?(s\d+) -> (?:\w+_)?(s\d+);", dot_text))


def test_dot_loops_and_exits(coroc):
    # pairs(n): start -> yield@10 (the loop runs) or -> yield@14 (n == 0);
    # 10 -> 12 -> back to 10 or out to 14; 14 -> done.
    res = run([COROC, "--dot", "shadowing.coc"], cwd=GOLDEN)
    assert res.returncode == 0, res.stderr
    assert edges(res.stdout) == {("s0", "s1"), ("s0", "s3"), ("s1", "s2"), ("s2", "s1"),
                                 ("s2", "s3"), ("s3", "s4")}
    assert 's1 [label="1: yield, line 10"]' in res.stdout
    assert 's4 [label="done", shape=oval]' in res.stdout


def test_dot_switch_and_goto(coroc):
    # tokens(s): a '\0' returns at once; otherwise goto loops back to the
    # switch, whose default yields; after a yield, the same again.
    res = run([COROC, "--dot", "switch_goto.coc"], cwd=GOLDEN)
    assert res.returncode == 0, res.stderr
    assert edges(res.stdout) == {("s0", "s1"), ("s0", "s2"), ("s1", "s1"), ("s1", "s2")}


def test_dot_straight_line(coroc, tmp_path):
    src = tmp_path / "three.coc"
    src.write_text("coroutine int three(void) {\n  yield 1;\n  yield 2;\n  yield 3;\n}\n")
    res = run([COROC, "--dot", src])
    assert edges(res.stdout) == {("s0", "s1"), ("s1", "s2"), ("s2", "s3"), ("s3", "s4")}


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz is not installed")
def test_dot_renders(coroc, tmp_path):
    res = run([COROC, "--dot", "shadowing.coc"], cwd=GOLDEN)
    svg = run(["dot", "-Tsvg"], input=res.stdout)
    assert svg.returncode == 0 and "<svg" in svg.stdout


def test_stats_frame_layout(coroc):
    # a generator's header: resume (a pointer, 8), resume_point and status
    # (2 + 2), kind, home and spawned (3, padded to 16); then the four ints
    # whose values live across a yield: 32. The innermost i (line 9) is
    # yielded before any suspension needs it: an ordinary local. With every
    # local: 36, rounded up to the 8-byte alignment of the header = 40.
    res = run([COROC, "--stats", "shadowing.coc"], cwd=GOLDEN)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == ("coroutine pairs (shadowing.coc:4), stackless: frame 32 bytes, align 8 "
                        "(40 with every local in it, --hoist-all)")
    assert lines[1] == "  each instance: a 32-byte slot of its thread's slabs"
    fields = [l.split() for l in lines[3:-1]]
    assert [(int(f[0]), int(f[1]), f[2]) for f in fields] == [
        (0, 16, "coro_base"), (16, 4, "n"), (20, 4, "i"), (24, 4, "coro_i_2"), (28, 4, "sum")]
    assert "(shadowing.coc:4: a parameter: set when the instance is made)" in lines[4]
    assert "(shadowing.coc:7: live across the yield at shadowing.coc:10)" in lines[7]
    assert lines[-1].endswith("after a suspension): i (shadowing.coc:9)")


def test_stats_under_hoist_all(coroc):
    res = run([COROC, "--stats", "--hoist-all", "shadowing.coc"], cwd=GOLDEN)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == "coroutine pairs (shadowing.coc:4), stackless: frame 40 bytes, align 8"
    assert lines[1] == "  each instance: a 40-byte slot of its thread's slabs"
    assert [l.split()[2] for l in lines[3:]] == ["coro_base", "n", "i", "coro_i_2", "sum", "coro_i_3"]
    assert all(l.endswith("every local (--hoist-all))") for l in lines[5:])


def test_stats_over_aligned_local(coroc, tmp_path):
    src = tmp_path / "aligned.coc"
    src.write_text("coroutine int a(void) {\n  _Alignas(64) char buf[64];\n"
                   "  buf[0] = 1;\n  yield 0;\n  yield buf[0];\n}\n")
    res = run([COROC, "--stats", src])
    assert res.returncode == 0, res.stderr
    assert "frame 128 bytes, align 64" in res.stdout  # header 16, buf at 64, 64 bytes
    assert "      64     64  buf" in res.stdout
    # aligned beyond a slab slot's 16 bytes: malloc, with the record in front
    assert "each instance: malloc'ed, 192 bytes with the runtime's record in front" in res.stdout


def test_dot_and_stats_exclusive(coroc):
    res = run([COROC, "--dot", "--stats", "shadowing.coc"], cwd=GOLDEN)
    assert res.returncode == 2


def test_dot_of_a_task(coroc):
    # child: await leaf (12); then a > 3 && await leaf (13) or not; then the
    # loop's condition awaits (15) on every pass; then return.
    res = run([COROC, "--dot", "tasks_chain.coc"], cwd=GOLDEN)
    assert res.returncode == 0, res.stderr
    child = res.stdout.split('subgraph "cluster_child"')[1].split("}")[0]
    assert 'child_s1 [label="1: await, line 12"]' in child
    assert edges(child) == {("s0", "s1"), ("s1", "s2"), ("s1", "s3"), ("s2", "s3"),
                            ("s3", "s3"), ("s3", "s4")}


def test_dot_of_several_coroutines_is_one_graph(coroc, tmp_path):
    # Several digraphs in one input make `dot -Tsvg` write several SVG
    # documents into one file, which no viewer opens: several coroutines are
    # the clusters of one graph instead, their nodes named after them.
    res = run([COROC, "--dot", "tasks_chain.coc"], cwd=GOLDEN)
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("digraph") == 1
    assert res.stdout.startswith('digraph "tasks_chain.coc" {\n')
    names = re.findall(r'subgraph "cluster_(\w+)"', res.stdout)
    assert names == re.findall(r"^coroutine \w+ (\w+)\([^;]*\{", (GOLDEN / "tasks_chain.coc").read_text(), re.M)
    for name in names:
        assert f'{name}_s0 [label="start", shape=oval];' in res.stdout
    if shutil.which("dot"):
        svg = run(["dot", "-Tsvg"], input=res.stdout)
        assert svg.returncode == 0, svg.stderr
        assert svg.stdout.count("<svg") == 1
        for name in names:
            assert f"coroutine {name} (tasks_chain.coc" in svg.stdout


def test_stats_of_a_task(coroc):
    # after a task's 56-byte header (a generator's 16, then parent,
    # awaiting, result, next_ready, waiting_on): x, a, the int result; no
    # field for an await's value, since each await of leaf is alone in its
    # expression and its value is read from leaf's frame where it ended;
    # then the frame of leaf (64 bytes), defined above, which child's three
    # awaits share; then one cond: 144.
    res = run([COROC, "--stats", "tasks_chain.coc"], cwd=GOLDEN)
    assert res.returncode == 0, res.stderr
    child = res.stdout.split("coroutine child")[1].split("coroutine top")[0]
    assert "frame 144 bytes, align 8" in child
    assert "each instance: a 144-byte slot of its thread's slabs" in child
    rows = [l.split()[:3] for l in child.splitlines()[3:] if re.match(r"^\s+\d+\s+\d+\s", l)]
    assert [(int(o), int(s), f) for o, s, f in rows] == [
        (0, 56, "coro_base"), (56, 4, "x"), (60, 4, "a"), (64, 4, "coro_result"),
        (72, 64, "coro_children"), (136, 4, "coro_cond_1")]
    assert "coro_base  (the runtime's header of a task)" in child
    for line in (12, 13, 15):
        assert (f"  await leaf at tasks_chain.coc:{line}: its frame is inside this one "
                "(coro_children), no allocation") in child
    top = res.stdout.split("coroutine top")[1]
    assert "     56    144  coro_children" in top   # child's frame, with leaf's inside it; no value fields


def test_an_await_beside_another_keeps_its_value_in_the_frame(coroc, tmp_path):
    # two awaits of children inside the frame in one expression share
    # coro_children: the first one's value must be kept (coro_tmp_1) while
    # the second runs; an await alone in its expression needs no such field
    src = tmp_path / "two.coc"
    src.write_text("coroutine int leaf(int x) {\n  return x;\n}\n"
                   "coroutine int both(void) {\n  int a = await leaf(1) + await leaf(2);\n"
                   "  int b = await leaf(a);\n  return a + b;\n}\n")
    res = run([COROC, "--stats", src])
    assert res.returncode == 0, res.stderr
    both = res.stdout.split("coroutine both")[1]
    assert "coro_tmp_1" in both and "coro_tmp_2" in both
    assert "coro_tmp_3" not in both


def test_stats_says_why_a_child_is_on_the_heap(coroc, tmp_path):
    src = tmp_path / "heap.coc"
    src.write_text("coroutine int later(int x);\n"
                   "coroutine int self(int n) {\n  if (n == 0)\n    return 0;\n  return await self(n - 1);\n}\n"
                   "coroutine int early(int x) {\n  return x;\n}\n"
                   "coroutine int user(void) {\n  int a = await later(1);\n  int b = await early(await later(2));\n"
                   "  int c = await early(3);\n  return a + b + c;\n}\n"
                   "coroutine int later(int x) {\n  return x;\n}\n")
    res = run([COROC, "--stats", "heap.coc"], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "await self at heap.coc:5: its frame is on the heap: it awaits itself (recursion)" in out
    assert ("await later at heap.coc:11: its frame is on the heap: it is defined below user (a frame "
            "holds only children defined above it)") in out
    assert "await early at heap.coc:12: its frame is on the heap: its arguments await" in out
    assert "await early at heap.coc:13: its frame is inside this one (coro_children), no allocation" in out
    res = run([COROC, "--stats", "--backend=stackful", "heap.coc"], cwd=tmp_path)
    out = res.stdout
    assert "await early at heap.coc:13: its body runs on this stack, a plain call" in out
    assert ("await self at heap.coc:5: an instance of its own, with a stack of its own: it awaits "
            "itself (recursion)") in out
    # a task's arguments keep what it returns too; a coroutine with no parameter has none
    user = out.split("coroutine user")[1].split("coroutine ")[0]
    assert user.startswith(" (heap.coc:10), stackful: arguments 4 bytes, align 4\n"), user
    assert "       0      4  coro_result  (the value it returns)" in user
    src.write_text("coroutine void idle(void) {\n  yield;\n}\n")
    res = run([COROC, "--stats", "--backend=stackful", "heap.coc"], cwd=tmp_path)
    assert res.stdout.splitlines()[0] == "coroutine idle (heap.coc:1), stackful: no arguments"
    assert "offset" not in res.stdout


def test_stackful_stats_say_why_each_parameter_is_kept(coroc, tmp_path):
    # the stackful backend decides no frame to print its C (frame.c,
    # frame_decided), but --stats asks why each field is there: a parameter
    # has its reason in both backends
    src = tmp_path / "params.coc"
    src.write_text("coroutine int sum(int a, long b) {\n  int t = a;\n  yield t;\n"
                   "  yield (int)b + t;\n}\n")
    for backend in ("stackless", "stackful"):
        res = run([COROC, "--stats", f"--backend={backend}", "params.coc"], cwd=tmp_path)
        assert res.returncode == 0, res.stderr
        for name in ("a", "b"):
            assert re.search(rf"  {name}  \(params\.coc:1: a parameter: set when the instance is made\)",
                             res.stdout), (backend, res.stdout)
