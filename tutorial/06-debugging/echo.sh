#!/usr/bin/env bash
# echo.sh: the echo example's server and client tasks in one process
# (--self-test), stackful, as coroc's gdb extension shows them: under gdb
# with echo.gdb.
. "$(dirname "$0")/../lib.sh"
debug_build echo "$root/examples/echo.coc" --backend=stackful
debug_session echo echo echo.gdb
