"""What <coro.h> takes from the user's namespace: nothing outside coro_/CORO_.

coroc adds `#include <coro.h>` to every file it writes, so whatever that header
declares or defines is in every user's program. Here the preprocessor's own list of
macros and clang's own list of file-scope declarations after `#include <coro.h>` are
compared with those of the standard headers it may include (ALLOWED: C's, whose
names C reserves); every other name must be the runtime's. tests/cases/posix_names.coc
is the same promise seen from a program: locals, fields and functions named like
<signal.h>'s and <sys/socket.h>'s names.
"""
import json
import re
import subprocess

import pytest

from conftest import COROC_INCLUDE

ALLOWED = ["errno.h", "stdbool.h", "stddef.h", "stdint.h"]
# What a program may ask of the C library before the include: the headers must stay clean.
FEATURES = [[], ["-D_GNU_SOURCE"], ["-D_POSIX_C_SOURCE=200809L"], ["-D_DEFAULT_SOURCE"]]
OWN = re.compile(r"^(coro_|CORO_)")
CONTRACT_TAG = "coro"  # `typedef struct coro coro_t;`: the tag the runtime's API itself names


def preprocess_macros(cc, text, flags):
    res = subprocess.run([cc, "-std=gnu11", *flags, f"-I{COROC_INCLUDE}", "-E", "-dM", "-x", "c", "-"],
                         input=text, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return {line.split()[1].split("(")[0] for line in res.stdout.splitlines() if line.startswith("#define ")}


def file_scope_names(text, flags):
    """Every name a declaration at file scope brings in: objects, functions, typedefs,
    tags and enumeration constants, as clang's AST lists them."""
    res = subprocess.run(["clang", "-std=gnu11", *flags, f"-I{COROC_INCLUDE}", "-fsyntax-only", "-Xclang",
                          "-ast-dump=json", "-x", "c", "-"],
                         input=text, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    names = set()
    for decl in json.loads(res.stdout).get("inner", []):
        if decl.get("isImplicit"):
            continue  # the compiler's own (__builtin_memcpy, __int128_t, ...)
        if decl.get("name"):
            names.add(decl["name"])
        if decl.get("kind") == "EnumDecl":
            names.update(c["name"] for c in decl.get("inner", []) if c.get("kind") == "EnumConstantDecl")
    return names


def allowed_text():
    return "".join(f"#include <{h}>\n" for h in ALLOWED)


@pytest.mark.parametrize("cc", ["gcc", "clang"])
@pytest.mark.parametrize("flags", FEATURES, ids=["plain", "gnu", "posix", "default"])
def test_macros_are_the_runtimes_own(cc, flags):
    theirs = preprocess_macros(cc, allowed_text(), flags)
    ours = preprocess_macros(cc, "#include <coro.h>\n", flags) - theirs
    assert {"CORO_H", "CORO_FRAME", "CORO_CANCELED"} <= ours  # it did include the runtime's header
    stray = sorted(m for m in ours if not OWN.match(m))
    assert not stray, f"<coro.h> defines macros outside CORO_/coro_: {stray[:40]}"


@pytest.mark.parametrize("flags", FEATURES, ids=["plain", "gnu", "posix", "default"])
def test_declarations_are_the_runtimes_own(flags):
    theirs = file_scope_names(allowed_text(), flags)
    ours = file_scope_names("#include <coro.h>\n", flags) - theirs
    assert {"coro_t", "coro_next", "coro_read", "coro_spawn"} <= ours
    stray = sorted(n for n in ours if not OWN.match(n) and n != CONTRACT_TAG)
    assert not stray, f"<coro.h> declares names outside coro_/CORO_: {stray[:40]}"


def test_a_planted_leak_is_seen(tmp_path):
    """The check above can fail: a header that includes <signal.h> is caught."""
    (tmp_path / "leaky.h").write_text("#include <coro.h>\n#include <signal.h>\nint leaked_name;\n")
    flags = [f"-I{tmp_path}"]
    macros = preprocess_macros("gcc", '#include "leaky.h"\n', flags) - preprocess_macros("gcc", allowed_text(), flags)
    assert "si_pid" in macros
    names = file_scope_names('#include "leaky.h"\n', flags) - file_scope_names(allowed_text(), flags)
    assert "leaked_name" in names and "sigaction" in names
