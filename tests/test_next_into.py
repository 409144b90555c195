"""coro_next(g, &v) of a coro_t * with v of the generator's value type (printed by
transformer/output/emit_stackless.c's emit_next_into; docs/abi.md, "The consumer's variable").
Its values are tests/cases/next_into.coc's; here, what it is for: the consumer's variable stays
in a register.

The body, inlined into the consumer's loop, stores its value into v; every other way (the slow
one, another generator's instance) stores into a copy, so that v's address goes to no call. Then
the compiler keeps v in a register, and a resume stores nothing to the consumer's stack. Compiled
with -O2 by gcc and by clang, the consumer's function has no 4-byte store to the stack at all;
the same function passing `(void *)&v`, which takes the way every coro_next took before, stores
the value there at every resume: the check that the first could fail."""
import re

import pytest

from conftest import COMPILERS, disassembled, object_at_O2

CONSUMER = """#include <coro.h>
static coroutine int gen3(int n) {
  for (int i = 0; i < n; i++)
    yield i + 1;
}
int sum(int n) {
  coro_t *g = gen3(n);
  int v, s = 0;
  while (coro_next(g, OUT))
    s += v;
  coro_free(g);
  return s;
}
"""

# a 32-bit register (the int value) stored to the stack: `mov %ecx,0xc(%rsp)`
INT_TO_STACK = re.compile(r"\bmov\s+%(e[a-z]{2}|r\d+d),(-?0x[0-9a-f]+)?\(%rsp\)")


def stores_to_stack(toolchain, cc, out, name):
    src = toolchain.tmp / f"{name}.coc"
    src.write_text(CONSUMER.replace("OUT", out))
    c_file = toolchain.transform(src, "stackless")
    body = disassembled(object_at_O2(cc, c_file, toolchain.tmp / f"{name}.{cc}.o"), "sum")
    return [line.strip() for line in body.splitlines() if INT_TO_STACK.search(line)]


@pytest.mark.parametrize("cc", COMPILERS)
def test_the_consumers_variable_stays_in_a_register(toolchain, cc):
    assert stores_to_stack(toolchain, cc, "&v", "typed") == []


@pytest.mark.parametrize("cc", COMPILERS)
def test_through_void_pointer_the_variable_is_stored(toolchain, cc):
    assert stores_to_stack(toolchain, cc, "(void *)&v", "untyped") != []
