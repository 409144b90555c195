#!/usr/bin/env bash
# dump.sh: the tree that the second parse makes of count's definition, from
# the user's own tokens (COROC_DUMP_AST=1 prints it on stderr).
. "$(dirname "$0")/../lib.sh"
need_coroc
COROC_DUMP_AST=1 "$COROC" -o "$work/count.dump.c" count.coc 2>&1
