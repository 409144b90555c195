#!/usr/bin/env bash
# typo.sh: runs.coc with a typo on line 15 (r.cuont for r.count), through
# coroc and gcc, first with coroc's #line directives, then with --no-line.
. "$(dirname "$0")/../lib.sh"
need_coroc
mkdir -p "$work/typo"
sed 's/r\.count++/r.cuont++/' runs.coc > "$work/typo/runs.coc"
cd "$work/typo"
for opt in "" --no-line; do
  echo "\$ coroc $opt${opt:+ }-o runs.c runs.coc && gcc -c runs.c"
  "$COROC" $opt -o runs.c runs.coc
  LC_ALL=C gcc -std=gnu11 -I"$COROC_INCLUDE" -c runs.c 2>&1 || true
done
