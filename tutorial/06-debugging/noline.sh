#!/usr/bin/env bash
# noline.sh: runs.coc built with coroc --no-line, under gdb with the
# commands of noline.gdb: without #line, gdb knows only the generated C.
. "$(dirname "$0")/../lib.sh"
debug_build gdb-noline runs --no-line
debug_session gdb-noline runs noline.gdb
