#!/usr/bin/python3
"""Commit messages as HACKING.md asks: a subject of at most 72 characters,
a blank line, and a body that says why.

    tests/commits/check.py --message FILE    check one message (the commit-msg hook)
    tests/commits/check.py [--since REV]     check every commit since the rule
                                             was set down (or since REV)

Exit status 1, with each problem on a line, when a message breaks the rule.
.githooks/commit-msg runs the first form (git config core.hooksPath .githooks);
tests/test_commits.py runs the second on the suite's clone.
"""
import argparse
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SUBJECT_MAX = 72

# The last commit before the rule was set down, and its time (a shallow
# clone may not hold the commit: then its time says which commits count).
RULE_SINCE = "4582f6e"
RULE_SINCE_TIME = 1795947163  # 2026-11-29 10:20 UTC


def problems(message):
    """What is wrong with one commit message (git's comment lines dropped)."""
    lines = [l for l in message.splitlines() if not l.startswith("#")]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines or not lines[0].strip():
        return ["no subject"]
    found = []
    subject = lines[0]
    if len(subject) > SUBJECT_MAX:
        found.append(f"the subject is {len(subject)} characters (at most {SUBJECT_MAX})")
    if len(lines) < 3 or lines[1].strip() or not any(l.strip() for l in lines[2:]):
        found.append("no body after a blank line (say why)")
    return found


def git(*args):
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                          check=True).stdout


def commits_since(rev=None):
    """(hash, message) of each commit after rev (default: the rule's commit)."""
    rev = rev or RULE_SINCE
    known = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", rev + "^{commit}"],
                           capture_output=True).returncode == 0
    args = ["log", "--format=%H%x00%ct%x00%B%x01"]
    args.append(f"{rev}..HEAD" if known else "HEAD")
    out = []
    for entry in git(*args).split("\x01"):
        entry = entry.lstrip("\n")
        if not entry:
            continue
        sha, when, body = entry.split("\x00", 2)
        if known or int(when) > RULE_SINCE_TIME:
            out.append((sha, body))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--message", help="a file holding one commit message")
    ap.add_argument("--since", help="check the commits after this revision")
    a = ap.parse_args()
    if a.message:
        found = problems(pathlib.Path(a.message).read_text())
        for p in found:
            print(f"commit message: {p} (HACKING.md, \"Commits\")", file=sys.stderr)
        return 1 if found else 0
    bad = 0
    for sha, body in commits_since(a.since):
        for p in problems(body):
            print(f"{sha[:12]} {body.splitlines()[0][:60]!r}: {p}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
