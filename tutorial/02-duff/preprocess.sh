#!/usr/bin/env bash
# preprocess.sh: the function expand of macros.c as the compiler sees it,
# once the preprocessor (gcc -E) has expanded Tatham's macros.
. "$(dirname "$0")/../lib.sh"
gcc -E -P macros.c | sed -n '/^static _Bool expand/,/^}/p'
