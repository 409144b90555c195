#!/usr/bin/env bash
# hunt.sh: the bug hunt of chapter 6. runs.coc is built for the debugger,
# then run under gdb with the commands of hunt.gdb.
. "$(dirname "$0")/../lib.sh"
debug_build gdb runs
debug_session gdb runs hunt.gdb
