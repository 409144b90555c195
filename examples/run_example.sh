#!/bin/sh
# run_example.sh: run the builds of one example (one per backend), show their
# output side by side, and fail unless each printed exactly EXPECTED.
# With one build only, it is shown beside EXPECTED instead.
#
# Usage: run_example.sh EXPECTED EXE...
# Used by the `demo` target (all builds) and by ctest (one build per test).
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 EXPECTED EXE..." >&2
  exit 2
fi
expected=$1
shift
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

status=0
n=0
for exe in "$@"; do
  n=$((n + 1))
  timeout 30 "$exe" >"$tmp/$n" 2>"$tmp/$n.err"   # a hung build fails, with status 124
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: $exe exited with status $rc" >&2
    cat "$tmp/$n.err" >&2
    status=1
  fi
done

# Side by side: the first two builds, or the only build next to EXPECTED.
# The name of a build is what follows its last underscore: generator_stackless -> stackless.
label() { b=$(basename "$1"); echo "${b##*_}"; }
if [ $n -ge 2 ]; then
  left=$tmp/1 right=$tmp/2 lname=$(label "$1") rname=$(label "$2")
else
  left=$expected right=$tmp/1 lname=expected rname=$(label "$1")
fi
echo "== $(basename "$expected" .expected)"
printf '%-42s%s\n' "$lname" "$rname"   # diff -y -t -W 80 starts the right column at 43
diff -y -t -W 80 "$left" "$right"
rc=$?
if [ $rc -eq 1 ] && [ $n -ge 2 ]; then
  echo "FAIL: the $lname and $rname builds print different output" >&2
fi
[ $rc -eq 0 ] || status=1

n=0
for exe in "$@"; do
  n=$((n + 1))
  if ! cmp -s "$expected" "$tmp/$n"; then
    echo "FAIL: $exe does not print $expected:" >&2
    diff -u --label "$expected" --label "$exe" "$expected" "$tmp/$n" >&2
    status=1
  fi
done
[ $status -eq 0 ] && echo "== ok: $# build(s) print $(basename "$expected")"
exit $status
