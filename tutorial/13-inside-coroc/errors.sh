#!/usr/bin/env bash
# errors.sh: count.coc broken three ways, and what coroc says of each: a
# syntax error (the whole-file parse), a rule of coroutines (lower.c), and a
# type the parser cannot know (a typedef name that is not declared).
. "$(dirname "$0")/../lib.sh"
need_coroc
mkdir -p "$work/errors"
broken() {  # broken NAME SED-SCRIPT: a copy of count.coc with one change, through coroc
  sed "$2" count.coc > "$work/errors/$1.coc"
  echo "\$ coroc $1.coc"
  (cd "$work/errors" && "$COROC" -o "$1.c" "$1.coc" 2>&1) || echo "(exit status $?)"
}
broken semicolon 's/yield i \* i;/yield i * i/'
broken generator 's/yield i \* i;/{ yield i * i; return i; }/'
broken type 's/for (int i/for (count_t i/'
