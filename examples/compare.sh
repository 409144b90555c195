#!/bin/sh
# compare.sh: one program, two styles. Shows the C that each backend made
# from the same .coc side by side, runs both builds, and shows that they
# print the same.
#
# Usage: compare.sh STACKLESS.c STACKFUL.c STACKLESS_EXE STACKFUL_EXE
set -u
[ $# -eq 4 ] || { echo "usage: $0 STACKLESS.c STACKFUL.c STACKLESS_EXE STACKFUL_EXE" >&2; exit 2; }
width=$(tput cols 2>/dev/null || echo 160)
[ "$width" -ge 120 ] || width=160
echo "== the generated C: stackless (left) and stackful (right), #line directives left out"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
grep -v '^#line' "$1" > "$tmp/stackless.c"
grep -v '^#line' "$2" > "$tmp/stackful.c"
diff -y -t -W "$width" "$tmp/stackless.c" "$tmp/stackful.c"
echo
echo "== running both"
"$3" > "$tmp/out.stackless" || { echo "FAIL: $3 exited with status $?"; exit 1; }
"$4" > "$tmp/out.stackful" || { echo "FAIL: $4 exited with status $?"; exit 1; }
diff -y -t -W "$width" "$tmp/out.stackless" "$tmp/out.stackful"
if cmp -s "$tmp/out.stackless" "$tmp/out.stackful"; then
  echo "== same output: $(wc -l < "$tmp/out.stackless") lines"
else
  echo "== FAIL: the outputs differ"
  exit 1
fi
