"""`await child(...)` of a child whose frame is inside its parent's (transformer/passes/lower.c's
lower_await_inline, <coro/gen.h>'s coro_start_child; docs/abi.md, "Tasks in the stackless
backend"). What such children compute is tests/tasks' and tests/cases'; here, what the shape of
the await is for.

coro_inside_NAME puts the child's arguments in its frame, and coro_start_child writes its header
only once it has seen that no trace is recorded. With the child's body inline, the compiler then
has, on one path, the header's 8-byte word (status CORO_CREATED) and the 2-byte status the body's
end stores into it (CORO_DONE), and stores the word once, as it is at the end: a child that
returns at once costs one store of its header, not two stores one inside the other (a fifth of
an await on AMD Zen 1, benchmark part 8). Compiled with -O2 by gcc and by clang, the parent's
resume function makes no 2-byte store but to its own status. With the header written before the
test (coroc's output before, rebuilt here by moving the write back into coro_inside_NAME), gcc
gives the child's status a 2-byte store of its own: the check that the first could fail. (clang
14 merges the two stores in either shape.)"""
import re

import pytest

from conftest import COMPILERS, disassembled, object_at_O2

PARENT = """#include <coro.h>
long result;
coroutine int child(int x) {
  return x + 1;
}
coroutine void parent(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += await child((int)(i & 7));
  result = s;
}
"""

# a store of 2 bytes: `mov %ax,0x5a(%rdi)`, `movw $0x3,0xa(%rbx)`
TWO_BYTE_STORE = re.compile(r"\bmovw?\s+(%[abcd]x|%[sd]i|%bp|%r\d+w|\$0x[0-9a-f]+),(0x[0-9a-f]+)?\(%r")
# where the parent's own status is: struct coro's status, at 10 (<coro/gen.h>)
OWN_STATUS = "0xa("


def two_byte_stores(toolchain, cc, header_first):
    src = toolchain.tmp / "parent.coc"
    src.write_text(PARENT)
    c_file = toolchain.transform(src, "stackless")
    if header_first:   # the shape of the output before: the header written before the trace's test
        text = c_file.read_text()
        text = re.sub(r"(static inline coro_t \*coro_inside_child\(struct coro_frame_child \*coro_f, int x\) \{\n)",
                      r"\1  coro_frame_again(&coro_f->coro_base.base, coro_resume_child, CORO_TASK);\n", text)
        assert "coro_frame_again" in text
        c_file.write_text(text)
    obj = object_at_O2(cc, c_file, toolchain.tmp / f"parent.{cc}.{header_first}.o")
    body = disassembled(obj, "coro_resume_parent")
    return [line.strip() for line in body.splitlines() if TWO_BYTE_STORE.search(line)]


@pytest.mark.parametrize("cc", COMPILERS)
def test_a_child_that_returns_at_once_writes_its_header_once(toolchain, cc):
    stores = two_byte_stores(toolchain, cc, header_first=False)
    assert stores and all(OWN_STATUS in s for s in stores), stores


def test_with_the_header_written_first_the_status_is_stored_apart(toolchain):
    stores = two_byte_stores(toolchain, "gcc", header_first=True)
    assert any(OWN_STATUS not in s for s in stores), stores
