#!/usr/bin/env bash
# tasks.sh: fizzbuzz's three tasks at the third tick, as coroc's gdb
# extension shows them: the fizzbuzz example under gdb with tasks.gdb.
. "$(dirname "$0")/../lib.sh"
debug_build tasks "$root/examples/fizzbuzz.coc"
debug_session tasks fizzbuzz tasks.gdb
