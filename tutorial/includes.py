#!/usr/bin/env python3
"""tutorial/includes.py: the listings that a chapter takes whole from a file of
the project, kept the same as the file.

A fenced block whose info string is

    LANG include PATH FIRST LAST

is the lines of PATH (relative to the chapter) from the first line that
begins with FIRST (leading blanks aside) to the next line that contains LAST,
both included: for example a whole function of runtime/asm/switch_x86_64.S,
from its label to its `.cfi_endproc`. Such a block must be exactly those
lines, so a chapter always shows the code as it is.

    tutorial/includes.py            rewrite every such block from its file
    tutorial/includes.py --check    only say which blocks differ (exit 1)

tests/test_tutorial.py checks them; after changing a file that a chapter
includes, run this script and read the chapter's text around the block again.
"""
import pathlib
import re
import sys

TUTORIAL = pathlib.Path(__file__).resolve().parent
FENCE = re.compile(r"^( *)(`{3,})(.*)$")


def extract(chapter, path, first, last):
    """The lines that `include PATH FIRST LAST` stands for, as one string."""
    lines = (chapter / path).read_text().split("\n")
    start = next((i for i, l in enumerate(lines) if l.lstrip().startswith(first)), None)
    if start is None:
        raise ValueError(f"{path}: no line begins with {first!r}")
    end = next((i for i in range(start, len(lines)) if last in lines[i]), None)
    if end is None:
        raise ValueError(f"{path}: no line after {first!r} contains {last!r}")
    return "".join(l + "\n" for l in lines[start:end + 1])


def sync(readme, fix):
    """Rewrite (or only compare) the include blocks of one chapter; the
    descriptions of those that differ."""
    lines = readme.read_text().split("\n")
    out, stale, i = [], [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        indent, fence, info = m.group(1), m.group(2), m.group(3).split()
        body = []
        while i < len(lines) and lines[i].strip() != fence:
            body.append(lines[i])
            i += 1
        if len(info) == 5 and info[1] == "include":
            want = extract(readme.parent, *info[2:]).rstrip("\n").split("\n")
            want = [indent + l if l else l for l in want]
            if want != body:
                stale.append(f"{readme.relative_to(TUTORIAL.parent)}: {' '.join(info[1:])}")
            body = want
        out.extend(body)
        if i < len(lines):
            out.append(lines[i])
            i += 1
    if fix and stale:
        readme.write_text("\n".join(out))
    return stale


def main():
    fix = "--check" not in sys.argv[1:]
    stale = [s for r in sorted(TUTORIAL.glob("[0-9][0-9]-*/README.md")) for s in sync(r, fix)]
    for s in stale:
        print(("updated " if fix else "out of date: ") + s)
    return 1 if stale and not fix else 0


if __name__ == "__main__":
    sys.exit(main())
