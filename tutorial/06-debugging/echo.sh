#!/usr/bin/env bash
# echo.sh: the echo example's server and client tasks in one process
# (--self-test), stackful, as coroc's gdb extension shows them: under gdb
# with echo.gdb. The example is several files (examples/echo/): its .coc
# files go through coroc, and gcc builds their C with its main.c, in the
# folder where gdb then looks for them (as debug_build does for one file).
. "$(dirname "$0")/../lib.sh"
need_coroc
mkdir -p "$work/echo"
cp "$root"/examples/echo/*.coc "$root"/examples/echo/*.c "$root"/examples/echo/*.h "$work/echo/"
(cd "$work/echo" &&
   "$COROC" --backend=stackful -o server.stackful.c server.coc &&
   "$COROC" --backend=stackful -o client.stackful.c client.coc &&
   gcc $CFLAGS -I"$COROC_INCLUDE" -o echo server.stackful.c client.stackful.c main.c "$COROC_LIB")
debug_session echo echo echo.gdb
