#!/usr/bin/env bash
# overflow.sh: chapter 10's stack overflow, on purpose. deep.coc is built with
# the stackful backend and run in a second process, asked for sums so deep
# that its 256 KiB stack runs out. What it prints, and how it ended, is shown
# with what differs from run to run hidden: addresses become 0x..., the
# program's path ./deep.stackful.
. "$(dirname "$0")/../lib.sh"
build_coc deep stackful
cd "$work"
ulimit -c 0                          # no core file
status=0
# (the 2>/dev/null hides bash's own "Segmentation fault" line)
{ ./deep.stackful 100000 > overflow.stdout 2> overflow.stderr; } 2>/dev/null || status=$?
echo "stdout:"
cat overflow.stdout
echo "stderr:"
sed -E -e 's/0x[0-9a-f]+/0x.../g' -e 's#[^ ]*/deep\.stackful#./deep.stackful#g' \
       -e 's/ \(entry/\n  (entry/' -e 's/: its stack/:\n  its stack/' -e 's/\. Give/.\n  Give/' \
       overflow.stderr               # (one long line, cut in four here)
if [ "$status" -gt 128 ]; then
  echo "exit status $status: killed by signal $((status - 128)), SIG$(kill -l "$status")"
else
  echo "exit status $status"
fi
