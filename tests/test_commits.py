"""Commit messages keep HACKING.md's rule: a subject of at most 72
characters, a blank line, a body saying why (tests/commits/check.py, which
.githooks/commit-msg runs before a commit is made)."""
import pathlib
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR

sys.path.insert(0, str(SOURCE_DIR / "tests" / "commits"))
import check  # noqa: E402

CHECK = SOURCE_DIR / "tests" / "commits" / "check.py"
HOOK = SOURCE_DIR / ".githooks" / "commit-msg"


def test_every_commit_since_the_rule_keeps_it():
    if not (SOURCE_DIR / ".git").exists():
        pytest.skip("not a git clone: no history to check")
    commits = check.commits_since()
    bad = [(sha[:12], body.splitlines()[0], p) for sha, body in commits for p in check.problems(body)]
    assert bad == []


GOOD = "runtime: one thread-end path\n\nThree keys ended a thread's state in no order.\n"


@pytest.mark.parametrize("message, problem", [
    ("x" * 73 + "\n\nwhy\n", "73 characters"),
    ("runtime: a fix\n", "no body"),
    ("runtime: a fix\nwhy, without the blank line\n", "no body"),
    ("runtime: a fix\n\n\n# git's comment lines are not a body\n", "no body"),
    ("\n\nwhy\n", "no subject"),
])
def test_the_rule_refuses(message, problem):
    assert any(problem in p for p in check.problems(message))


def test_the_rule_takes_a_good_message():
    assert check.problems(GOOD) == []
    assert check.problems("x" * 72 + "\n\nwhy\n# a comment\n") == []


def test_the_hook_refuses_and_takes(tmp_path):
    bad = tmp_path / "bad"
    bad.write_text("a subject and nothing else\n")
    good = tmp_path / "good"
    good.write_text(GOOD)
    r = subprocess.run(["/bin/sh", str(HOOK), str(bad)], cwd=SOURCE_DIR, capture_output=True,
                       text=True)
    assert r.returncode == 1 and "no body" in r.stderr
    r = subprocess.run(["/bin/sh", str(HOOK), str(good)], cwd=SOURCE_DIR, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
