"""coro_next and coro_free of a generator's frame itself (`coro_next(&frame, &v)`, printed by
transformer/output/creation.c's emit_frame_dispatch and each backend's coro_next_in_NAME;
docs/abi.md, "The frame itself"). Its values are tests/cases/frame_itself.coc's; here, what the
form is for and what it costs:

  * the compiler sees the whole life: a function that makes a stackless generator in a local,
    resumes it as its frame to its end and frees it, compiled with -O2 by gcc and by clang, calls
    nothing at all (its object needs no symbol: `nm -u` is empty), where the same function through
    the coro_t * that coro_in_NAME returns calls into libcoro (coro_next_slow): the check that the
    first one could fail;
  * and the compiler follows each resume to its resume point: that function is the
    generator's loop, with no memory access and no trace of the state machine's gate;
  * a refusal names the generator (the frame's address goes to no call): a generator that resumes
    itself through its frame stops the program saying which generator, and so does one that frees
    itself; in the stackful backend, as the coro_t * path says it."""
import pytest

from conftest import BACKENDS, COMPILERS, disassembled, object_at_O2, run

GENERATOR = """#include <coro.h>
static coroutine int gen3(int n) {
  for (int i = 0; i < n; i++)
    yield i + 1;
}
"""

BY_FRAME = GENERATOR + """int sum(int n) {
  CORO_FRAME(gen3) frame;
  coro_in_gen3(&frame, n);
  int v, s = 0;
  while (coro_next(&frame, &v))
    s += v;
  coro_free(&frame);
  return s;
}
"""

BY_POINTER = GENERATOR + """int sum(int n) {
  CORO_FRAME(gen3) frame;
  coro_t *g = coro_in_gen3(&frame, n);
  int v, s = 0;
  while (coro_next(g, &v))
    s += v;
  coro_free(g);
  return s;
}
"""


def compiled(toolchain, text, cc, name):
    """The object of text's C, made by coroc and cc -O2."""
    src = toolchain.tmp / f"{name}.coc"
    src.write_text(text)
    c_file = toolchain.transform(src, "stackless")
    # no -Wall: gen3(n), the creation on the heap, is never called here (-Wunused-function)
    return object_at_O2(cc, c_file, toolchain.tmp / f"{name}.{cc}.o", warnings=())


def undefined_symbols(toolchain, text, cc, name):
    obj = compiled(toolchain, text, cc, name)
    res = run(["nm", "-u", obj])
    assert res.returncode == 0, res.stderr
    return res.stdout.split()


@pytest.mark.parametrize("cc", COMPILERS)
def test_a_life_by_frame_calls_nothing(toolchain, cc):
    assert undefined_symbols(toolchain, BY_FRAME, cc, "by_frame") == []


@pytest.mark.parametrize("cc", COMPILERS)
def test_a_life_by_frame_keeps_no_state(toolchain, cc):
    """More than calling nothing: the compiler follows each resume to its resume point, so
    that sum() is the generator's loop itself, with neither the frame in memory nor the state
    machine's gate in a register (resume point 1 and CORO_SUSPENDED, the word 0x10001 that
    a suspension stores). coro_enter reading the whole gate once kept GCC from it: sum()
    then carried the gate from one resume to the next and chose the resume point with a
    cmov, 1.4 times the time of a life (benchmark part 9)."""
    body = disassembled(compiled(toolchain, BY_FRAME, cc, "by_frame"), "sum")
    # an operand in parentheses is a memory access but in a lea (arithmetic) or a nop (padding)
    code = "\n".join(line for line in body.splitlines() if "nop" not in line and "lea" not in line)
    assert "0x10001" not in body and "(%" not in code and "cmov" not in body, body


@pytest.mark.parametrize("cc", COMPILERS)
def test_a_life_by_pointer_calls_the_library(toolchain, cc):
    assert "coro_next_slow" in undefined_symbols(toolchain, BY_POINTER, cc, "by_pointer")


REFUSALS = """#include <coro.h>
#include <stdio.h>
static void again(void);
coroutine int selfish(void) {
  yield 1;
  again();
  yield 2;
}
static CORO_FRAME(selfish) frame;
static int how;
static void again(void) {
  int v;
  if (how == 0)
    coro_next(&frame, &v);
  else
    coro_free(&frame);
  puts("not refused");
}
int main(int argc, char **argv) {
  (void)argv;
  how = argc - 1;
  int v;
  coro_in_selfish(&frame);
  while (coro_next(&frame, &v))
    ;
  return 0;
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("what", ["coro_next", "coro_free"])
def test_a_refusal_names_the_generator(toolchain, backend, what):
    src = toolchain.tmp / "selfish.coc"
    src.write_text(REFUSALS)
    exe = toolchain.compile(toolchain.transform(src, backend))
    res = run([exe] + (["free"] if what == "coro_free" else []))
    assert res.returncode != 0 and "not refused" not in res.stdout, res.stdout
    said = {"coro_next": "already running", "coro_free": "cannot free itself"}[what]
    assert f"{what}:" in res.stderr and said in res.stderr, res.stderr
    if backend == "stackless":
        assert "an instance of selfish" in res.stderr, res.stderr
