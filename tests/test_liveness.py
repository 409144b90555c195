"""Liveness: which locals of a stackless coroutine live in its frame (transformer/passes/live.c).

tests/cases/liveness.coc runs (test_cases.py) in every mode, the default, --hoist-all
and the stackful backend, and must print the same in each. Here, its frames: for each
coroutine, exactly the fields that hold a value needed after a suspension, and the
others reported as ordinary locals; with --hoist-all, every local. The generated C is
also built at -O2 with -Werror, where the compilers look for reads of unset locals.
"""
import re

import pytest

from conftest import COMPILERS, COROC, COROC_INCLUDE, COROC_LIB, TESTS_DIR, WARNINGS, run

CASE = TESTS_DIR / "cases" / "liveness.coc"

# The fields of each frame after the header, worked out by hand from the program.
FIELDS = {
    "running_sum": ["n", "acc", "i"],        # acc and i: read by the next iteration
    "switch_past_decls": ["k", "skipped"],   # skipped: read after a yield; t: set again first
    "goto_back": ["round"],                  # carried around the loop the goto makes
    "address_kept": ["x", "p"],              # x: its address is taken; p: read after
    "pointer_in_local": ["cells", "cursor"], # cells: pointed to by cursor across yields
    "dead_before_yield": ["n", "total", "coro_i_3"],  # big, sum, two i, sq: dead by then
    "reset_each_time": ["k"],                # v is set again after each yield
    "partial_writes": ["a"],                 # a[1], written before, read after
    "struct_whole": [],                      # p is assigned whole before it is read again
    "do_while": ["n", "left"],
    "through_macro": ["base"],               # named only by a macro: kept
    "siblings": ["n", "a", "b", "i", "x", "text"],  # a and b go with b; the rest, live
    "write_through_pointer": ["which", "p"], # p[0] = 77 after the yield reads p
    "yield_changes_local": ["n", "i"],       # i: read after each yield
    "const_kept": ["m", "n", "none", "text", "k"],  # m: read once, before the first yield
    "received": ["n", "old", "sum", "i"],    # x = yield ...: x set after the yield, not read
    "received_member": ["pr"],               # pr.b = yield ...: pr.a is read after
}
PLAIN = {
    "switch_past_decls": ["t"],
    "dead_before_yield": ["big", "i", "sum", "i", "sq"],
    "reset_each_time": ["v"],
    "struct_whole": ["p"],
    "received": ["x"],
}


def stats(*args, case=CASE):
    res = run([COROC, "--stats", f"-I{TESTS_DIR}", *args, case])
    assert res.returncode == 0, res.stderr
    frames = {}
    for block in res.stdout.split("coroutine ")[1:]:
        lines = block.splitlines()
        name = lines[0].split()[0]
        fields = [l.split()[2] for l in lines[2:] if re.match(r"^\s+\d+\s+\d+\s", l)]
        plain = next((l for l in lines if "ordinary locals" in l), "")
        names = re.findall(r"[:,] (\w+) \(", plain)
        frames[name] = (lines[0], fields[1:], names, lines)
    return frames


def test_only_what_lives_across_a_suspension_is_in_the_frame(coroc):
    frames = stats()
    assert set(frames) == set(FIELDS)
    for name, want in FIELDS.items():
        assert frames[name][1] == want, f"{name}: frame fields {frames[name][1]}, want {want}"
        assert frames[name][2] == PLAIN.get(name, []), f"{name}: ordinary locals {frames[name][2]}"


def test_every_field_says_why(coroc):
    frames = stats()
    lines = frames["address_kept"][3]
    # (.*?: the path of the case, which may hold spaces)
    assert any(re.search(r" x  \(.*?liveness\.coc:50: address taken at .*?liveness\.coc:51\)$", l)
               for l in lines), lines
    assert any(re.search(r" p  \(.*?liveness\.coc:51: live across the yield at .*?liveness\.coc:52\)$", l)
               for l in lines), lines
    lines = frames["through_macro"][3]
    assert any("named by the macro TWO_MORE" in l for l in lines), lines
    header = frames["dead_before_yield"][0]
    m = re.search(r"frame (\d+) bytes.*\((\d+) with every local in it, --hoist-all\)", header)
    assert m, header
    assert int(m.group(1)) <= 32 and int(m.group(2)) >= 16 + 256, header  # big (256 bytes) is gone


def test_sibling_blocks_share_storage(coroc):
    lines = stats()["siblings"][3]
    offset = {l.split()[2]: int(l.split()[0]) for l in lines if re.match(r"^\s+\d+\s+\d+\s", l)}
    # each block's fields start where the other blocks' do, after n
    assert offset["a"] == offset["i"] == offset["text"] > offset["n"], lines
    assert offset["b"] > offset["a"] and offset["x"] > offset["i"], lines
    m = re.search(r"frame (\d+) bytes.*\((\d+) with every local", lines[0])
    assert m and int(m.group(1)) < int(m.group(2)), lines[0]
    res = run([COROC, f"-I{TESTS_DIR}", "--no-line", CASE])
    frame = res.stdout.split("struct coro_frame_siblings {")[1].split("\n};")[0]
    assert "union {  /* blocks never active at once share their storage */" in frame, frame
    assert frame.count("struct {  /* the ") == 3, frame


def test_hoist_all_keeps_every_local(coroc):
    frames = stats("--hoist-all")
    assert frames["dead_before_yield"][1] == ["n", "big", "i", "sum", "coro_i_2", "total",
                                              "coro_i_3", "sq"]
    assert all(not f[2] for f in frames.values())
    res = run([COROC, "--hoist-all", f"-I{TESTS_DIR}", "--no-line", CASE])
    assert "union" not in res.stdout.split("struct coro_frame_siblings {")[1].split("\n};")[0]
    assert "with every local" not in frames["running_sum"][0]


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("mode", [[], ["--hoist-all"]], ids=["liveness", "hoist-all"])
def test_optimised_build_has_no_warning(coroc, tmp_path, cc, mode):
    """At -O2 the compilers trace reads of unset locals (-Wmaybe-uninitialized): a
    local left out of the frame is set before it is read on every path."""
    out = tmp_path / "liveness.c"
    res = run([coroc, *mode, f"-I{TESTS_DIR}", "-o", out, CASE])
    assert res.returncode == 0, res.stderr
    exe = tmp_path / "liveness"
    res = run([cc, "-std=gnu11", "-O2", *WARNINGS, f"-I{TESTS_DIR}", f"-I{COROC_INCLUDE}", "-o", exe,
               out, COROC_LIB], timeout=120)
    assert res.returncode == 0, res.stderr
    res = run([exe])
    assert res.returncode == 0 and res.stdout.splitlines()[-1] == "OK", res.stdout + res.stderr


def resume_function(name, *args):
    res = run([COROC, "--no-line", f"-I{TESTS_DIR}", *args, CASE])
    assert res.returncode == 0, res.stderr
    text = res.stdout
    start = text.index(f"static bool coro_resume_{name}(")
    return text[start:text.index("\n}\n", start)]


def test_a_scalar_live_across_a_yield_is_a_c_local_saved_around_it(coroc):
    body = resume_function("running_sum")
    # acc and i are C locals of the resume function: the loop works on them, and
    # the frame holds them only while suspended, stored before the yield and
    # loaded back after its label
    assert "int acc = 0;" in body
    assert re.search(r"CORO_YIELD_KEEPING\(coro_c, coro_out, 1, coro_value_running_sum, "
                     r"\(coro_f->acc = acc, coro_f->i = i\), acc\);", body)
    assert "coro_resume_1:; acc = coro_f->acc; i = coro_f->i;" in body
    assert "coro_f->acc +=" not in body and "acc += " in body


def test_what_may_be_pointed_to_stays_in_the_frame(coroc):
    body = resume_function("pointer_in_local")
    assert "coro_f->cells" in body and "coro_f->cells =" not in body  # an array: always in the frame
    body = resume_function("address_kept")
    assert "&coro_f->x" in body  # its address is taken: never a C local


def test_only_the_locals_live_at_a_resume_point_are_saved_there(coroc):
    body = resume_function("write_through_pointer")
    first, second = [l for l in body.splitlines() if "CORO_YIELD" in l]
    assert "(coro_f->p = p)" in first       # p is written through after the first yield
    assert "coro_f->p" not in second        # and dead after the second


def test_a_yield_that_changes_a_kept_local_saves_it_after(coroc):
    body = resume_function("yield_changes_local")
    assert re.search(r"CORO_YIELD_KEEPING\(coro_c, coro_out, 1, coro_value_yield_changes_local, "
                     r"\(coro_f->i = i\), i\+\+\);", body)


def test_hoist_all_keeps_every_local_in_the_frame(coroc):
    body = resume_function("running_sum", "--hoist-all")
    assert "coro_f->acc" in body and "kept in the frame while suspended" not in body


def test_a_const_local_is_not_loaded_back(coroc):
    body = resume_function("const_kept")
    assert "coro_f->n = coro_f->m * 2;" in body         # const: read and written in the frame
    assert "coro_f->none = 0;" in body
    assert "(coro_f->text = text, coro_f->k = k)" in body  # a pointer to const is kept


ESCAPES = TESTS_DIR / "cases" / "liveness_escapes.coc"


def test_parts_that_may_be_arrays_keep_their_local(coroc):
    """C takes an address without `&` where an array decays: a row of a 2-D array, a
    struct's array member (tests/cases/liveness_escapes.coc, which also runs in every
    mode). Such a local stays in the frame; one whose parts are only values does not."""
    frames = stats(case=ESCAPES)
    kept = {name: f[1] for name, f in frames.items()}
    plain = {name: f[2] for name, f in frames.items()}
    assert kept["row_kept"] == ["grid", "row"]           # grid[1] is a pointer into grid
    assert kept["member_array"] == ["x"]                 # x.t decays: yielded, read later
    assert kept["member_pointer"] == ["s", "p"]          # p = s.v points into s
    assert kept["deep_paths"] == ["list", "name", "corner"] and plain["deep_paths"] == ["m"]
    assert kept["scalar_parts"] == ["total"] and plain["scalar_parts"] == ["x"]  # x.n, x.t[1]
    assert kept["whole_block"] == ["p", "x"]             # a goto comes back above x
    assert "coro_lit_1" in kept["literal_member"] and "coro_lit_2" in kept["literal_member"]
    why = next(l for l in frames["row_kept"][3] if " grid " in l)
    assert "a part of it that may be an array used as a pointer at" in why, why


def test_skipped_and_repeated_awaits_keep_the_old_value(coroc):
    """`flag && (n = await f())` may leave n as it was; `(a = await f()) && (b = await
    g())` sets a before the second suspension: both stay live across the first yield."""
    frames = stats(case=ESCAPES)
    assert frames["skipped_assignment"][1][:4] == ["flag", "n", "m", "k"]
    assert frames["two_awaits"][1][:3] == ["a", "b", "c"]


def test_a_macro_that_jumps_keeps_every_local(coroc):
    """tests/cases/jump_macros.coc: a coroutine that uses a macro whose expansion jumps out of its
    use (a goto, a break, a continue) keeps every local, and says why; a macro whose break stays
    in its own loop keeps the analysis (searching's fields say their own reasons)."""
    frames = stats(case=TESTS_DIR / "cases" / "jump_macros.coc")
    for name, macro in [("steps", "TRY"), ("skipping", "SKIP_IF"), ("stopping", "STOP_IF"),
                        ("bailing", "BAIL")]:
        assert frames[name][2] == [], f"{name}: ordinary locals {frames[name][2]}"
        assert any(f"every local: the macro {macro} jumps where coroc cannot see" in l
                   for l in frames[name][3]), frames[name][3]
    assert not any("every local:" in l for l in frames["searching"][3]), frames["searching"][3]


def test_a_macro_that_takes_an_address_keeps_the_local(coroc):
    """tests/cases/macro_address_args.coc: an argument whose address the macro takes (`&(a)` in
    its replacement, or handed to a macro that does) keeps its local in the frame, saying which
    macro; a `&` between two operands (LOW_BIT's and) takes nothing."""
    frames = stats(case=TESTS_DIR / "cases" / "macro_address_args.coc")
    lines = frames["through_pointers"][3]
    assert any(re.search(r"\bx\s+\(.*address taken by the macro PTR", l) for l in lines), lines
    assert any(re.search(r"\bs\s+\(.*address taken by the macro HANDLE", l) for l in lines), lines
    assert "odd" in frames["through_pointers"][2], frames["through_pointers"][2]
