#!/usr/bin/env bash
# hosted.sh: examples/fizzbuzz.coc's tasks (built with FIZZBUZZ_HOSTED: no
# main of its own) in libuv's loop, through the adapter of examples/hosts/,
# with a tick of 10 ms. Built with both backends; prints what the stackless
# build prints, and fails if the stackful build prints anything else.
. "$(dirname "$0")/../lib.sh"
need_coroc
if ! pkg-config --exists libuv 2>/dev/null; then
  echo "hosted.sh: libuv is not installed (apt-get install libuv1-dev pkg-config)" >&2
  exit 1
fi
hosts=$root/examples/hosts
for backend in stackless stackful; do
  "$COROC" --backend="$backend" -DFIZZBUZZ_HOSTED -o "$work/fizzbuzz_hosted.$backend.c" \
    "$root/examples/fizzbuzz.coc"
  # shellcheck disable=SC2046  # pkg-config's words are meant to be split
  $CC $CFLAGS -DFIZZBUZZ_HOSTED -I"$COROC_INCLUDE" -I"$hosts" -o "$work/uv_fizzbuzz.$backend" \
    "$hosts/uv_fizzbuzz.c" "$hosts/uv_host.c" "$work/fizzbuzz_hosted.$backend.c" "$COROC_LIB" \
    $(pkg-config --cflags --libs libuv) -pthread
done
"$work/uv_fizzbuzz.stackless" 10 > "$work/hosted.stackless.printed"
"$work/uv_fizzbuzz.stackful" 10 > "$work/hosted.stackful.printed"
if ! cmp -s "$work/hosted.stackless.printed" "$work/hosted.stackful.printed"; then
  echo "hosted.sh: the stackful build printed something else:" >&2
  diff -u "$work/hosted.stackless.printed" "$work/hosted.stackful.printed" >&2 || true
  exit 1
fi
cat "$work/hosted.stackless.printed"
