#!/usr/bin/env bash
# walk.sh: out of the coroutine at a yield, and back in at the next
# coro_next: runs.coc under gdb with the commands of walk.gdb.
. "$(dirname "$0")/../lib.sh"
debug_build gdb runs
debug_session gdb runs walk.gdb
