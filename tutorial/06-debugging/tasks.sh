#!/usr/bin/env bash
# tasks.sh: fizzbuzz's three tasks at the third tick, as coroc's gdb
# extension shows them: the fizzbuzz example under gdb with tasks.gdb.
. "$(dirname "$0")/../lib.sh"
cp "$root/examples/fizzbuzz.coc" .   # debug_build takes the .coc from here
trap 'rm -f fizzbuzz.coc' EXIT
debug_build tasks fizzbuzz
debug_session tasks fizzbuzz tasks.gdb
