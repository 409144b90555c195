#!/usr/bin/env bash
# cpp.sh: count's definition as the preprocessor hands it to the first parse:
# what coroc runs is `cc -E -dD` (and more options), this is the gist of it.
. "$(dirname "$0")/../lib.sh"
$CC -E -x c count.coc | sed -n '/^coroutine int count/,/^}/p'
