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

# {==== gdb (chapter 6)

# debug_build DIR NAME [COROC_OPTIONS...]: NAME.coc through coroc and gcc,
# for the debugger (-g -O0), in $work/DIR with a copy of NAME.coc beside it,
# as gdb looks for the .coc where the C was compiled. Always gcc, whatever
# $CC says: the chapter's sessions were made with it, and clang's tables of
# lines differ a little (a `next` may go to another line first).
debug_build() {
  local dir=$work/$1 name=$2
  shift 2
  need_coroc
  mkdir -p "$dir"
  cp "$name.coc" "$dir/"
  (cd "$dir" && "$COROC" "$@" -o "$name.c" "$name.coc" &&
     gcc $CFLAGS -I"$COROC_INCLUDE" -o "$name" "$name.c" "$COROC_LIB")
}

# debug_session DIR NAME SCRIPT.gdb: run $work/DIR/NAME under gdb with the
# commands of SCRIPT.gdb, one a line, and print what gdb prints, commands
# shown after "(gdb) ". (Each is given with -ex, so that one that fails does
# not stop the rest.) gdb may load coroc's extension from the programs built
# here (add-auto-load-safe-path: docs/debugging.md). What differs from one
# machine to the next is hidden: addresses become 0x..., line numbers in
# coro.h NNN, a timer's time left NNN ms, gdb's notes on threads go.
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
           -e 's/coro\.h:[0-9]+/coro.h:NNN/g' \
           -e 's/[0-9]+ ms left/NNN ms left/g' \
           -e 's/process [0-9]+/process NNN/'
}

# }====
