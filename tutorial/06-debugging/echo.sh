#!/usr/bin/env bash
# echo.sh: the echo example's server and client tasks in one process
# (--self-test), stackful, as coroc's gdb extension shows them: under gdb
# with echo.gdb.
. "$(dirname "$0")/../lib.sh"
cp "$root/examples/echo.coc" .   # debug_build takes the .coc from here
trap 'rm -f echo.coc' EXIT
debug_build echo echo --backend=stackful
debug_session echo echo echo.gdb
