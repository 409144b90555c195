#!/usr/bin/env bash
# two.sh: chapter 11's comparison. count.coc is built with both backends,
# both builds are run and what they print is compared, then coroc --stats
# shows what an instance of each allocates.
. "$(dirname "$0")/../lib.sh"
build_coc count stackless
build_coc count stackful
"$work/count.stackless" > "$work/two.stackless"
"$work/count.stackful" > "$work/two.stackful"
if cmp -s "$work/two.stackless" "$work/two.stackful"; then
  echo "stackless and stackful: the same $(wc -l < "$work/two.stackless") lines"
else
  echo "the two builds print differently:" >&2
  diff -u "$work/two.stackless" "$work/two.stackful" >&2 || true
  exit 1
fi
echo
echo "coroc --stats count.coc"
"$COROC" --stats count.coc
echo
echo "coroc --backend=stackful --stats count.coc"
"$COROC" --backend=stackful --stats count.coc
