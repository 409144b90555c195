# lib.sh: what every chapter's `step` script and the chapters' .sh scripts
# share. Sourced (`. "$(dirname "$0")/../lib.sh"`), never run by itself.
#
# It finds coroc, libcoro and <coro.h>: from $COROC, $COROC_LIB and
# $COROC_INCLUDE when they are set (the test suite sets them), otherwise in
# build/ at the top of the repository ($COROC_BUILD_DIR names another). When
# they are not built yet (and a chapter needs them) it builds the project, with
#   cmake -S . -B build && cmake --build build
# Everything a chapter builds goes to build/tutorial/NN-name/, never into the
# chapter's own folder.

set -euo pipefail

chapter=$(cd "$(dirname "$0")" && pwd)   # the folder of the script that sourced us

# `step --check N [FILE]`: check an answer to the chapter's exercise N instead
# of stepping through the chapter (see check_exercise below). FILE is taken
# from where you are, so it is made absolute before we move to the chapter.
check_n= check_file=
if [ "${1:-}" = --check ]; then
  if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 --check N [FILE]   (FILE: your answer, by default ./exercise-N.c or .coc)" >&2
    exit 2
  fi
  check_n=$2
  if [ $# -eq 3 ]; then
    check_file=$3
  else
    for ext in coc c; do
      if [ -f "exercise-$2.$ext" ]; then check_file=exercise-$2.$ext; fi
    done
  fi
  if [ -z "$check_file" ] || [ ! -f "$check_file" ]; then
    echo "step --check $2: no answer to check: write it in exercise-$2.c (or .coc) here, or name it" >&2
    exit 2
  fi
  check_file=$(cd "$(dirname "$check_file")" && pwd)/$(basename "$check_file")
elif [ $# -gt 0 ]; then
  echo "usage: $0             step through the chapter" >&2
  echo "       $0 --check N [FILE]   check your answer to exercise N" >&2
  exit 2
fi
root=$(cd "$chapter/../.." && pwd)
build=${COROC_BUILD_DIR:-$root/build}
COROC=${COROC:-$build/transformer/coroc}
COROC_LIB=${COROC_LIB:-$build/runtime/libcoro.a}
COROC_INCLUDE=${COROC_INCLUDE:-$root/runtime/include}
CC=${CC:-cc}
CFLAGS="-std=gnu11 -Wall -Wextra -g -O0"
export COROC COROC_LIB COROC_INCLUDE CC

# need_coroc: build the project if coroc or libcoro is not built yet.
need_coroc() {
  if [ ! -x "$COROC" ] || [ ! -f "$COROC_LIB" ]; then
    echo "coroc or libcoro is not built yet: building the project first" >&2
    (cd "$root" && cmake -S . -B "$build" && cmake --build "$build") >&2
  fi
}

work=$build/tutorial/$(basename "$chapter")
mkdir -p "$work"
cd "$chapter"

if [ -t 1 ]; then bold=$(printf '\033[1m'); plain=$(printf '\033[0m'); else bold= plain=; fi

# say TEXT: a heading between the steps.
say() {
  printf '\n%s==> %s%s\n' "$bold" "$*" "$plain"
}

# show FILE: print one of the chapter's files.
show() {
  say "$1"
  cat "$1"
}

# show_diff OLD NEW: what changed from OLD to NEW (paths from the chapter).
show_diff() {
  say "diff -u $1 $2"
  diff -u "$1" "$2" || true
}

# build_c NAME: compile NAME.c to $work/NAME.
build_c() {
  $CC $CFLAGS -o "$work/$1" "$1.c"
}

# build_coc NAME BACKEND [CORO_OPTIONS...]: coroc NAME.coc to
# $work/NAME.BACKEND.c, then compile that to $work/NAME.BACKEND with libcoro.
build_coc() {
  local name=$1 backend=$2
  shift 2
  need_coroc
  "$COROC" --backend="$backend" "$@" -o "$work/$name.$backend.c" "$name.coc"
  $CC $CFLAGS -I"$COROC_INCLUDE" -I. -o "$work/$name.$backend" \
    "$work/$name.$backend.c" "$COROC_LIB"
}

# check NAME OUTPUT_FILE: compare what a program printed with NAME.out, the
# output that the chapter shows.
check() {
  if cmp -s "$2" "$1.out"; then
    echo "(the same as $1.out)"
  else
    echo "FAIL: this is not what $1.out says:" >&2
    diff -u "$1.out" "$2" >&2 || true
    exit 1
  fi
}

# run NAME EXE: run a program, show what it prints, and check it.
run() {
  say "${2#"$root"/}"
  "$2" > "$work/$1.printed"
  cat "$work/$1.printed"
  check "$1" "$work/$1.printed"
}

# run_coc NAME: build NAME.coc with both backends, run both, check both.
run_coc() {
  build_coc "$1" stackless
  build_coc "$1" stackful
  run "$1" "$work/$1.stackless"
  "$work/$1.stackful" > "$work/$1.stackful.printed"
  printf '%s' "--backend=stackful: "
  check "$1" "$work/$1.stackful.printed"
}

# run_sh NAME: run the chapter's script NAME.sh, show what it prints, check it.
run_sh() {
  say "./$1.sh"
  "./$1.sh" > "$work/$1.printed"
  cat "$work/$1.printed"
  check "$1" "$work/$1.printed"
}

# draw NAME: the state machines of NAME.coc (coroc --dot) drawn by Graphviz
# into $work/NAME.svg, when Graphviz's dot is installed.
draw() {
  need_coroc
  say "coroc --dot $1.coc | dot -Tsvg > ${work#"$root"/}/$1.svg"
  if command -v dot >/dev/null; then
    "$COROC" --dot "$1.coc" | dot -Tsvg > "$work/$1.svg"
    echo "(drawn: open ${work#"$root"/}/$1.svg)"
  else
    echo "(Graphviz is not installed: apt-get install graphviz, and step again)"
  fi
}

# {==== exercises: step --check N [FILE]
#
# Each exercise N of a chapter has its solution in solutions/N.c or
# solutions/N.coc, and beside it:
#   N.out       what a right answer prints (required);
#   N.requires  optional: lines `REGEX<tab>what the answer must do`; each REGEX
#               (grep -E) must match somewhere in the answer, otherwise that
#               sentence is printed: what the exercise asks for but the answer
#               does not do yet;
#   N.status    optional: the exit status a right answer ends with (default 0);
#   N.backends  optional: the backends to build a .coc with (default both);
#   N.coroc     optional: coroc's options; then the answer is not built, and
#               the errors coroc reports (each `error: MESSAGE`, without the
#               place) must be N.out.
# An answer in C is compiled with $CC; one in .coc goes through coroc with each
# backend and then $CC, with libcoro. Either must compile without a warning,
# run within 20 seconds, end with the right status and print exactly N.out.
# What is wrong is said in words, then shown as a diff.

# check_fail MESSAGE...: say what is wrong with the answer, and stop.
check_fail() {
  printf '%sexercise %s: not yet.%s %s\n' "$bold" "$check_n" "$plain" "$*"
  exit 1
}

# check_requires ANSWER: every REGEX of solutions/N.requires is in ANSWER.
check_requires() {
  local req=solutions/$check_n.requires regex why
  [ -f "$req" ] || return 0
  while IFS=$'\t' read -r regex why; do
    [ -n "$regex" ] || continue
    grep -Eq -- "$regex" "$1" || check_fail "$why"
  done < "$req"
}

# check_output WHAT PRINTED STATUS: compare a run of the answer with N.out.
check_output() {
  local what=$1 printed=$2 status=$3 want=0 expected=solutions/$check_n.out
  [ -f "solutions/$check_n.status" ] && want=$(cat "solutions/$check_n.status")
  if [ "$status" -eq 124 ]; then
    check_fail "$what still ran after 20 seconds (a loop that never ends? a task that is never woken?)."
  fi
  if ! cmp -s "$printed" "$expected"; then
    local n_want n_got line
    n_want=$(wc -l < "$expected"); n_got=$(wc -l < "$printed")
    echo "--- what the exercise wants, +++ what $what printed:"
    diff -u "$expected" "$printed" | tail -n +3 | head -n 40 || true
    # A program killed by a signal loses what printf left in stdout's buffer
    # (a file here, so it is flushed only when full or at exit).
    local lost=
    if [ "$status" -gt 128 ] && [ "$status" -ne 124 ] && [ "$n_got" -lt "$n_want" ]; then
      lost=" It was killed by SIG$(kill -l "$status") before it ended, and what printf had not yet written out was lost with it: stdout is not a terminal here, so it is written only when its buffer is full or at the end; call fflush(stdout) after each line that must get out."
    fi
    [ -s "$printed" ] || check_fail "$what printed nothing; it should print $n_want lines.$lost"
    # the first line that differs, by number
    line=$(cmp "$expected" "$printed" 2>&1 | sed -n '/EOF/q; s/.*line \([0-9]*\).*/\1/p' || true)
    line=${line:-$((n_want < n_got ? n_want + 1 : n_got + 1))}  # one is the start of the other
    if [ "$line" -gt "$n_got" ]; then
      check_fail "$what printed $n_got of the $n_want lines (or left out a line's newline); line $line should be: $(sed -n "${line}p" "$expected").$lost"
    elif [ "$line" -gt "$n_want" ]; then
      check_fail "$what printed $n_got lines, $((n_got - n_want)) too many, from line $line: $(sed -n "${line}p" "$printed")"
    else
      check_fail "line $line is wrong: it should be \"$(sed -n "${line}p" "$expected")\", and $what printed \"$(sed -n "${line}p" "$printed")\"."
    fi
  fi
  if [ "$status" -ne "$want" ]; then
    local how="status $status"
    [ "$status" -gt 128 ] && how="signal $((status - 128)) (SIG$(kill -l "$status"))"
    check_fail "$what printed the right lines but ended with $how, not status $want."
  fi
  echo "$what: prints what the exercise asks for"
}

# check_build CMD...: run a compile step; its warnings are mistakes too.
check_build() {
  local log=$work/check.log
  if ! "$@" > "$log" 2>&1; then
    cat "$log"
    check_fail "it does not compile (the compiler's messages are above)."
  fi
  if [ -s "$log" ]; then
    cat "$log"
    check_fail "it compiles, but with warnings (above): a right answer has none."
  fi
}

# check_exercise: step --check N FILE. The answer is copied to
# $work/check/exercise-N.c (or .coc), and built and run there, so that what
# it prints does not depend on where you keep it.
check_exercise() {
  local sol ext answer exe status backend backends="stackless stackful" dir=$work/check
  sol=$(ls solutions/"$check_n".c solutions/"$check_n".coc 2>/dev/null | head -n 1 || true)
  [ -n "$sol" ] || { echo "this chapter has no exercise $check_n (see its README.md)" >&2; exit 2; }
  ext=${sol##*.}
  say "exercise $check_n: checking ${check_file#"$PWD"/}"
  if [ "$ext" != "${check_file##*.}" ]; then
    check_fail "the answer should be a .$ext file."
  fi
  check_requires "$check_file"
  rm -rf "$dir" && mkdir -p "$dir"
  answer=exercise-$check_n.$ext
  cp "$check_file" "$dir/$answer"
  exe=$dir/exercise-$check_n
  if [ -f "solutions/$check_n.coroc" ]; then
    # What coroc itself says about the answer is the point (chapter 13).
    need_coroc
    status=0
    (cd "$dir" && "$COROC" $(cat "$chapter/solutions/$check_n.coroc") "$answer" > "$exe.coroc" 2>&1) ||
      status=$?
    cat "$exe.coroc"
    # only the messages count, not where in your file they point
    sed -n 's/^.*: error: /error: /p' "$exe.coroc" > "$exe.printed"
    [ -s "$exe.printed" ] || check_fail "coroc accepted it; the exercise asks for a program that it refuses."
    check_output "coroc" "$exe.printed" "$status"
  elif [ "$ext" = c ]; then
    check_build $CC $CFLAGS -I"$chapter" -o "$exe" "$dir/$answer"
    status=0; { (ulimit -c 0; cd "$dir" && timeout 20 "$exe" > "$exe.printed") || status=$?; } 2>/dev/null
    check_output "your program" "$exe.printed" "$status"
  else
    need_coroc
    [ -f "solutions/$check_n.backends" ] && backends=$(cat "solutions/$check_n.backends")
    for backend in $backends; do
      check_build "$COROC" --backend="$backend" -I"$chapter" -o "$exe.$backend.c" "$dir/$answer"
      check_build $CC $CFLAGS -I"$COROC_INCLUDE" -I"$chapter" -o "$exe.$backend" "$exe.$backend.c" "$COROC_LIB"
      status=0
      # (no core file; the 2>/dev/null hides bash's own line about a signal)
      { (ulimit -c 0; cd "$dir" && timeout 20 "$exe.$backend" > "$exe.$backend.printed" \
          2> "$exe.$backend.err") || status=$?; } 2>/dev/null
      cat "$exe.$backend.err"
      check_output "your program (--backend=$backend)" "$exe.$backend.printed" "$status"
    done
  fi
  printf '%sexercise %s: right.%s The chapter'"'"'s own answer is tutorial/%s/%s.\n' "$bold" "$check_n" \
    "$plain" "$(basename "$chapter")" "$sol"
  exit 0
}

# }====
# picture NAME: the chapter's own drawing NAME.dot, drawn by Graphviz into
# $work/NAME.svg, when Graphviz's dot is installed.
picture() {
  say "dot -Tsvg $1.dot > ${work#"$root"/}/$1.svg"
  if command -v dot >/dev/null; then
    dot -Tsvg "$1.dot" > "$work/$1.svg"
    echo "(drawn: open ${work#"$root"/}/$1.svg)"
  else
    echo "(Graphviz is not installed: apt-get install graphviz, and step again)"
  fi
}

# {==== gdb (chapter 6)

# debug_build DIR NAME [COROC_OPTIONS...]: NAME.coc through coroc and gcc,
# for the debugger (-g -O0), in $work/DIR with a copy of NAME.coc beside it,
# as gdb looks for the .coc where the C was compiled. NAME may be a path to
# a .coc elsewhere (an example's), which is copied from there: nothing is
# written beside the chapter's own files. Always gcc, whatever $CC says: the
# chapter's sessions were made with it, and clang's tables of lines differ a
# little (a `next` may go to another line first).
debug_build() {
  local dir=$work/$1 src=$2
  local name
  name=$(basename "$src" .coc)
  [[ $src == *.coc ]] || src=$src.coc
  shift 2
  need_coroc
  mkdir -p "$dir"
  cp "$src" "$dir/"
  (cd "$dir" && "$COROC" "$@" -o "$name.c" "$name.coc" &&
     gcc $CFLAGS -I"$COROC_INCLUDE" -o "$name" "$name.c" "$COROC_LIB")
}

# debug_session DIR NAME SCRIPT.gdb: run $work/DIR/NAME under gdb with the
# commands of SCRIPT.gdb, one a line, and print what gdb prints, commands
# shown after "(gdb) ". (Each is given with -ex, so that one that fails does
# not stop the rest.) gdb may load coroc's extension from the programs built
# here (add-auto-load-safe-path: docs/debugging.md). What differs from one
# machine to the next is hidden: addresses become 0x..., line numbers in
# coro.h and coro/gen.h NNN, a timer's time left NNN ms, gdb's notes on threads go.
debug_session() {
  local cmds=(-iex "add-auto-load-safe-path $work" -ex "set filename-display basename"
              -ex "set trace-commands on") line
  while IFS= read -r line; do
    cmds+=(-ex "$line")
  done < "$3"
  (cd "$work/$1" && LC_ALL=C gdb -batch -nx "${cmds[@]}" "./$2" 2>&1) |
    sed -E -e '/^\[Thread debugging using libthread_db/d' \
           -e '/^Using host libthread_db/d' \
           -e 's/^\+/(gdb) /' \
           -e 's/0x[0-9a-f]+/0x.../g' \
           -e 's/(coro|gen)\.h:[0-9]+/\1.h:NNN/g' \
           -e 's/[0-9]+ ms left/NNN ms left/g' \
           -e 's/process [0-9]+/process NNN/'
}

# }====

# `step --check N`: check the answer, and do not step through the chapter.
if [ -n "$check_n" ]; then
  check_exercise
fi
