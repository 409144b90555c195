#!/bin/sh
# run_self_test.sh: run one build of an example that checks itself (echo),
# with LABEL (its backend) before every line it prints, so that the demo's
# lines say which build printed them. Exits with the build's own status.
#
# Usage: run_self_test.sh LABEL EXE [ARG...]
# Used by the `demo` and `compare` targets.
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 LABEL EXE [ARG...]" >&2
  exit 2
fi
label=$1
shift
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
timeout 30 "$@" >"$tmp" 2>&1   # a hung build fails, with status 124
rc=$?
sed "s/^/$label: /" "$tmp"
if [ $rc -ne 0 ]; then
  echo "FAIL: $label: $1 exited with status $rc" >&2
fi
exit $rc
