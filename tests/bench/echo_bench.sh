#!/bin/sh
# tests/bench/echo_bench.sh: the echo part of the benchmark (docs/benchmarks.md).
#
#   echo_bench.sh --client EXE --epoll EXE --stackless EXE [--stackful EXE]
#                 [--connections N] [--size M] [--rounds R] [--runs K]
#
# Starts each server on 127.0.0.1, on a port of the kernel's choosing (each
# prints it on its first line), then measures each with the same client
# (examples/echo.coc's --client, built stackless): N connections, each
# sending an M-byte message R times, every byte of every echo checked; the
# client prints round trips per second. After one warm-up run per server,
# the K runs are interleaved (epoll, stackless, stackful, epoll, ...), and a
# server's figure is the median of its K runs. The ratio of a coroc server to
# the epoll server is the median of the K ratios of runs made back to back.
#
# A program that prints figures, not a test: it exits 0 whatever the speeds.
# It exits 1 only when something is broken: a server that does not start, or
# a client that finds a wrong byte or a lost connection.
#
# tests/bench/run runs this with the programs it built; so does
# `cmake --build BUILD --target bench_echo`.
set -eu

connections=1000
size=64
rounds=100
runs=3
client='' epoll='' stackless='' stackful=''

usage() {
  echo "usage: echo_bench.sh --client EXE --epoll EXE --stackless EXE [--stackful EXE]" >&2
  echo "                     [--connections N] [--size M] [--rounds R] [--runs K]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || usage
  case $1 in
    --client) client=$2 ;;
    --epoll) epoll=$2 ;;
    --stackless) stackless=$2 ;;
    --stackful) stackful=$2 ;;
    --connections) connections=$2 ;;
    --size) size=$2 ;;
    --rounds) rounds=$2 ;;
    --runs) runs=$2 ;;
    *) usage ;;
  esac
  shift 2
done
if [ -z "$client" ] || [ -z "$epoll" ] || [ -z "$stackless" ]; then
  usage
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/coroc-echo-bench.XXXXXX")
pids=
cleanup() {
  for pid in $pids; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in $pids; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The servers, in the order of measurement: key, label, program.
set -- epoll "plain epoll callbacks (C)" "$epoll" \
       stackless "coroc echo, stackless" "$stackless"
[ -n "$stackful" ] && set -- "$@" stackful "coroc echo, stackful" "$stackful"
keys=

# start KEY EXE: run the server on port 0 and wait for the line naming its port.
start() {
  : >"$tmp/$1.out"   # there before the server opens it, for sed below
  "$2" --port 0 >"$tmp/$1.out" 2>"$tmp/$1.err" &
  pids="$pids $!"
  tries=0
  while :; do
    port=$(sed -n 's/.*listening on [0-9.]*:\([0-9][0-9]*\).*/\1/p' "$tmp/$1.out")
    [ -n "$port" ] && break
    tries=$((tries + 1))
    if [ $tries -gt 100 ]; then   # 10 s
      echo "echo_bench: the server $2 did not say where it listens:" >&2
      cat "$tmp/$1.out" "$tmp/$1.err" >&2
      exit 1
    fi
    sleep 0.1
  done
  echo "$port" >"$tmp/$1.port"
}

# measure KEY: one client run against the server KEY; its round trips per
# second, appended to $tmp/KEY.rates unless this is the warm-up.
measure() {
  if ! "$client" --client --port "$(cat "$tmp/$1.port")" --connections "$connections" \
       --size "$size" --rounds "$rounds" >"$tmp/client.out" 2>"$tmp/client.err"; then
    echo "echo_bench: the client failed against the $1 server:" >&2
    cat "$tmp/client.out" >&2
    head -20 "$tmp/client.err" >&2
    exit 1
  fi
  rate=$(sed -n 's/.*: \([0-9][0-9]*\) round trips\/s$/\1/p' "$tmp/client.out")
  [ -n "$rate" ] || { echo "echo_bench: the client printed no rate:" >&2; cat "$tmp/client.out" >&2; exit 1; }
  [ "${2:-}" = warm-up ] || echo "$rate" >>"$tmp/$1.rates"
}

load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
while [ $# -ge 3 ]; do
  start "$1" "$3"
  echo "$2" >"$tmp/$1.label"
  keys="$keys $1"
  shift 3
done

for key in $keys; do
  measure "$key" warm-up
done
run=1
while [ $run -le "$runs" ]; do
  for key in $keys; do
    measure "$key"
  done
  run=$((run + 1))
done

# median FILE: the median of the numbers in FILE, one a line.
median() {
  sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

cpu=$(sed -n 's/^model name[ \t]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
echo "3. The echo server: round trips per second at $connections connections"
echo "${cpu:-unknown processor}; $(nproc 2>/dev/null || echo '?') processors; load average $load before the runs"
echo "$connections connections x $size-byte messages x $rounds rounds on 127.0.0.1, every byte checked;"
echo "client: $(basename "$client") --client; median of $runs interleaved runs;"
echo "ratio: median of the paired ratios to the epoll server"
echo
printf '| %-28s | %13s | %15s | %-22s |\n' server "round trips/s" "min..max" ratio
printf '|%s|%s|%s|%s|\n' ------------------------------ --------------: ----------------: ------------------------
for key in $keys; do
  rates=$(sort -g "$tmp/$key.rates" | tr '\n' ' ')
  range=$(echo "$rates" | awk '{ print $1 ".." $NF }')
  if [ "$key" = epoll ]; then
    rel="1.00 (baseline)"
  else
    paste "$tmp/$key.rates" "$tmp/epoll.rates" | awk '{ print $1 / $2 }' >"$tmp/$key.ratios"
    rel="$(median "$tmp/$key.ratios" | awk '{ printf "%.2f", $1 }') x epoll"
  fi
  printf '| %-28s | %13s | %15s | %-22s |\n' "$(cat "$tmp/$key.label")" "$(median "$tmp/$key.rates")" \
         "$range" "$rel"
done
echo
echo "(more round trips per second is better: a ratio above 1 is faster than the epoll server)"
