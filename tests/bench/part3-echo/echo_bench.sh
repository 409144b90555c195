#!/bin/sh
# tests/bench/part3-echo/echo_bench.sh: the echo part of the benchmark (docs/benchmarks.md).
#
#   echo_bench.sh --client EXE --epoll EXE --stackless EXE [--stackful EXE] [--libuv EXE]
#                 [--hosted-stackless EXE] [--hosted-stackful EXE]
#                 [--runs K] [--quick | --tiny] [--threads N] [--trace-file FILE]
#
# Measures each echo server with the same verifying client (examples/echo.coc's
# --client, built stackless: every byte of every echo is checked, and a wrong
# or missing byte fails the run) in four configurations:
#
#     64 connections x 64-byte messages      1,000 x 64 bytes (the targets)
#     10,000 connections x 64 bytes          64 connections x 16 KiB
#
# and two placements: "shared core", the server and the client pinned to the
# same processor (taskset -c 0), the fair placement on a small machine, where
# unpinned the client is the bottleneck and every server looks the same; and
# "unpinned" (1,000 x 64 bytes only), the scheduler's choice, labelled as such.
# For each configuration the servers are started afresh (so that the peak
# memory is that configuration's), warmed up with one client run each, then
# measured K times, interleaved (epoll, libuv, stackless, stackless hosted,
# stackful, stackful hosted, epoll, ...); the table of the targets 2K+1 times,
# with the epoll server twice (its second copy measures the machine's noise:
# the epoll server against itself).
#
# Hosted: the same echo server, examples/echo.coc, driven by a libuv loop
# through examples/hosts/uv_host.c instead of coro_run() (uv_hosted_echo_*,
# --hosted-stackless, --hosted-stackful). Each is measured right after its
# coro_run() twin, and under each table a line gives hosted / coro_run() per
# round trip: the server's CPU and the rate, raw and at equal speed (below).
#
# Traced: in the targets' table only, the stackless server once more with
# CORO_TRACE recording every event of the run (the cap, CORO_TRACE_MAX, set
# above what the table's runs record, so that nothing is dropped and every
# round trip pays for its events; the file, written when the server stops,
# is /dev/null unless --trace-file names one), measured right after its
# untraced twin: traced / untraced per round trip, and the target (>= 0.8x
# the rate: docs/benchmarks.md).
#
# Printed per server: round trips per second (median of the runs) and its
# ratio to the epoll server (median of the ratios of runs made back to back);
# on a shared core, that ratio at equal speed (below); the server's CPU time
# per round trip (µs, from /proc/PID/task/*/schedstat, nanosecond counts,
# median) and the client's (its getrusage); the client's p99 round-trip time
# (median); the server's peak RSS (VmHWM); and, from one extra run under
# strace -c, the server's system calls per round trip. Then the targets,
# each "met" or "NOT met".
#
# At equal speed: this machine's speed moves by a quarter between runs of a
# few seconds (a virtual machine on a shared host), and the raw ratio with
# it, by about 0.1 for the epoll server against itself. On a shared core the
# rate is 1 / (S + C), the server's and the client's CPU per round trip, and
# both move with the machine; the client does the same work whatever the
# server, so S / C does not, and (1 + S_epoll/C_epoll) / (1 + S/C) per pair
# of runs is the ratio of the rates had both runs found the machine as fast
# (its noise: about 0.01). The targets are judged at equal speed; the raw
# figures are printed beside them (docs/benchmarks.md).
#
# All cores: a last table has the coroc servers run with --threads N (N: the
# processors, or --threads N; 1 leaves it out), one scheduler and SO_REUSEPORT
# listener per thread (hosted: one libuv loop per thread), and every server
# measured with a client of N threads.
# --quick: fewer rounds, for a look rather than figures. --tiny: the targets'
# table only, with 20 connections x 20 rounds, one run, no other table and
# no strace: a check that every server runs under the bench (tests/test_bench.py),
# whose figures mean nothing.
#
# A program that prints figures, not a test: it exits 0 whatever the speeds.
# It exits 1 only when something is broken: a server that does not start, or
# a client that finds a wrong byte or a lost connection.
#
# tests/bench/run runs this with the programs it built; so does
# `cmake --build BUILD --target bench_echo`.
set -eu

runs=3
quick=no
threads=$(nproc 2>/dev/null || echo 1)
tiny=no
client='' epoll='' stackless='' stackful='' libuv='' hosted_stackless='' hosted_stackful=''
trace_file=/dev/null

usage() {
  echo "usage: echo_bench.sh --client EXE --epoll EXE --stackless EXE [--stackful EXE] [--libuv EXE]" >&2
  echo "                     [--hosted-stackless EXE] [--hosted-stackful EXE]" >&2
  echo "                     [--runs K] [--quick | --tiny] [--threads N] [--trace-file FILE]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=yes; shift; continue ;;
    --tiny) tiny=yes; shift; continue ;;
  esac
  [ $# -ge 2 ] || usage
  case $1 in
    --client) client=$2 ;;
    --epoll) epoll=$2 ;;
    --stackless) stackless=$2 ;;
    --stackful) stackful=$2 ;;
    --libuv) libuv=$2 ;;
    --hosted-stackless) hosted_stackless=$2 ;;
    --hosted-stackful) hosted_stackful=$2 ;;
    --runs) runs=$2 ;;
    --threads) threads=$2 ;;
    --trace-file) trace_file=$2 ;;
    *) usage ;;
  esac
  shift 2
done
if [ -z "$client" ] || [ -z "$epoll" ] || [ -z "$stackless" ]; then
  usage
fi
have_taskset=yes
command -v taskset >/dev/null 2>&1 || have_taskset=no
have_strace=yes
command -v strace >/dev/null 2>&1 || have_strace=no

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
set -- epoll "epoll callbacks (C)" "$epoll"
[ -n "$libuv" ] && set -- "$@" libuv "libuv $(pkg-config --modversion libuv 2>/dev/null || echo '')" "$libuv"
set -- "$@" stackless "coroc echo, stackless" "$stackless"
[ -n "$hosted_stackless" ] && set -- "$@" hstackless "coroc echo, stackless in a libuv loop" "$hosted_stackless"
[ -n "$stackful" ] && set -- "$@" stackful "coroc echo, stackful" "$stackful"
[ -n "$hosted_stackful" ] && set -- "$@" hstackful "coroc echo, stackful in a libuv loop" "$hosted_stackful"
keys=
while [ $# -ge 3 ]; do
  echo "$2" >"$tmp/$1.label"
  echo "$3" >"$tmp/$1.exe"
  keys="$keys $1"
  shift 3
done
# The epoll server a second time, in the table of the targets only: what
# it measures against itself is the noise of the machine (docs/benchmarks.md).
echo "epoll callbacks (C), again" >"$tmp/epoll2.label"
echo "$epoll" >"$tmp/epoll2.exe"
# The stackless server traced, in the table of the targets only (start
# gives it CORO_TRACE, and CORO_TRACE_MAX, set with the table's size below).
echo "coroc echo, stackless, traced" >"$tmp/tstackless.label"
echo "$stackless" >"$tmp/tstackless.exe"

# pin: the command prefix of a placement.
pin() {
  if [ "$1" = shared ] && [ $have_taskset = yes ]; then echo "taskset -c 0"; fi
}

# start KEY PLACEMENT [ARGS]: run the server on port 0, wait for the line
# naming its port; its pid in $tmp/KEY.pid, its port in $tmp/KEY.port.
start() {
  key=$1 placement=$2
  shift 2
  : >"$tmp/$key.out"
  traced=''
  if [ "$key" = tstackless ]; then traced=yes; fi
  # shellcheck disable=SC2046
  $(pin "$placement") env ${traced:+"CORO_TRACE=$trace_file"} ${traced:+"CORO_TRACE_MAX=$trace_cap"} \
    "$(cat "$tmp/$key.exe")" --port 0 "$@" $(cat "$tmp/$key.args" 2>/dev/null) \
    >"$tmp/$key.out" 2>"$tmp/$key.err" &
  pid=$!
  pids="$pids $pid"
  echo "$pid" >"$tmp/$key.pid"
  tries=0
  while :; do
    port=$(sed -n 's/.*listening on [0-9.]*:\([0-9][0-9]*\).*/\1/p' "$tmp/$key.out" | head -1)
    [ -n "$port" ] && break
    tries=$((tries + 1))
    if [ $tries -gt 100 ]; then   # 10 s
      echo "echo_bench: the server $(cat "$tmp/$key.exe") did not say where it listens:" >&2
      cat "$tmp/$key.out" "$tmp/$key.err" >&2
      exit 1
    fi
    sleep 0.1
  done
  echo "$port" >"$tmp/$key.port"
}

stop() {
  pid=$(cat "$tmp/$1.pid")
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# cpu_ns PID: the CPU time of all its threads so far, ns.
cpu_ns() {
  cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# measure KEY PLACEMENT CONNS SIZE ROUNDS [warm-up] [CLIENT ARGS...]: one
# client run against KEY; appends rate, CPU/round trip and p99 to $tmp/KEY.*.
measure() {
  key=$1 placement=$2 conns=$3 size=$4 rounds=$5
  shift 5
  warm=no
  if [ "${1:-}" = warm-up ]; then warm=yes; shift; fi
  pid=$(cat "$tmp/$key.pid")
  before=$(cpu_ns "$pid")
  # shellcheck disable=SC2046
  if ! $(pin "$placement") "$client" --client --port "$(cat "$tmp/$key.port")" --connections "$conns" \
       --size "$size" --rounds "$rounds" "$@" >"$tmp/client.out" 2>"$tmp/client.err"; then
    echo "echo_bench: the client failed against the $key server ($conns x $size bytes):" >&2
    cat "$tmp/client.out" >&2
    head -20 "$tmp/client.err" >&2
    exit 1
  fi
  after=$(cpu_ns "$pid")
  grep -q "^verified $((conns * rounds)) messages" "$tmp/client.out" || {
    echo "echo_bench: the client did not verify every message against $key:" >&2
    cat "$tmp/client.out" >&2
    exit 1
  }
  [ $warm = yes ] && return 0
  rate=$(sed -n 's/.*: \([0-9][0-9]*\) round trips\/s$/\1/p' "$tmp/client.out")
  p99=$(sed -n 's/^latency: .*p99 \([0-9][0-9]*\) us$/\1/p' "$tmp/client.out")
  ccpu=$(sed -n 's/^cpu: \([0-9.]*\) us per round trip$/\1/p' "$tmp/client.out")
  echo "${ccpu:-0}" >>"$tmp/$key.ccpu"
  echo "$rate" >>"$tmp/$key.rates"
  echo "${p99:-0}" >>"$tmp/$key.p99"
  echo "$before $after $((conns * rounds))" | awk '{ printf "%.3f\n", ($2 - $1) / 1000 / $3 }' >>"$tmp/$key.cpu"
}

# median FILE: the median of the numbers in FILE, one a line.
median() {
  sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# hwm KEY: the server's peak RSS so far, KiB.
hwm() {
  sed -n 's/^VmHWM:[ \t]*\([0-9]*\) kB/\1/p' /proc/"$(cat "$tmp/$1.pid")"/status
}

# config NAME PLACEMENT CONNS SIZE ROUNDS [SERVER ARGS -- CLIENT ARGS]: one
# table of the servers in $table_keys ($keys unless set), each measured
# $table_runs times ($runs unless set). Leaves each server's figures in
# $tmp/NAME.KEY.{rate,ratio,equal,cpu,ccpu,p99,rss}.
config() {
  name=$1 placement=$2 conns=$3 size=$4 rounds=$5
  shift 5
  tkeys=${table_keys:-$keys} truns=${table_runs:-$runs}
  sargs='' cargs=''
  while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs="$sargs $1"; shift; done
  [ "${1:-}" = -- ] && shift
  cargs="$*"
  for key in $tkeys; do
    rm -f "$tmp/$key.rates" "$tmp/$key.cpu" "$tmp/$key.ccpu" "$tmp/$key.p99"
    # shellcheck disable=SC2086
    start "$key" "$placement" $sargs
  done
  for key in $tkeys; do
    # shellcheck disable=SC2086
    measure "$key" "$placement" "$conns" "$size" "$rounds" warm-up $cargs
  done
  run=1
  while [ $run -le "$truns" ]; do
    for key in $tkeys; do
      # shellcheck disable=SC2086
      measure "$key" "$placement" "$conns" "$size" "$rounds" $cargs
    done
    run=$((run + 1))
  done
  case $placement in
    shared) where="shared core (server and client on processor 0)" ;;
    *) where="unpinned (the kernel places server and client)" ;;
  esac
  echo
  echo "$conns connections x $size-byte messages x $rounds rounds, $where${cargs:+, client $cargs}${sargs:+, servers$sargs}"
  echo
  printf '| %-37s | %13s | %-15s | %14s | %12s | %12s | %11s | %10s |\n' server "round trips/s" "vs epoll" "at equal speed" \
    "CPU µs/trip" "client µs" "p99 µs" "RSS MiB"
  printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' --------------------------------------- --------------: ----------------- \
    ---------------: -------------: -------------: ------------: -----------:
  for key in $tkeys; do
    paste "$tmp/$key.rates" "$tmp/epoll.rates" | awk '{ print $1 / $2 }' >"$tmp/$key.ratios"
    # At equal speed: the client's CPU per round trip, the same work
    # whatever the server, is the yardstick of the machine's speed in each
    # run; S/C, the server's cost in client round trips, does not move with
    # it, and (1 + S_epoll/C_epoll) / (1 + S/C) is the ratio of the rates
    # had both runs found the machine as fast (docs/benchmarks.md); and
    # (S/C) / (S_epoll/C_epoll) the ratio of the servers' CPU per round trip.
    paste "$tmp/$key.cpu" "$tmp/$key.ccpu" "$tmp/epoll.cpu" "$tmp/epoll.ccpu" |
      awk -v equals="$tmp/$key.equals" -v cpus="$tmp/$key.cpuequals" '
        { ok = $1 > 0 && $2 > 0 && $3 > 0 && $4 > 0
          print (ok ? (1 + $3 / $4) / (1 + $1 / $2) : 0) >equals
          print (ok ? ($1 / $2) / ($3 / $4) : 0) >cpus }'
    rate=$(median "$tmp/$key.rates")
    ratio=$(median "$tmp/$key.ratios" | awk '{ printf "%.2f", $1 }')
    equal=$(median "$tmp/$key.equals" | awk '{ printf "%.3f", $1 }')
    cpuequal=$(median "$tmp/$key.cpuequals" | awk '{ printf "%.3f", $1 }')
    cpu=$(median "$tmp/$key.cpu" | awk '{ printf "%.2f", $1 }')
    ccpu=$(median "$tmp/$key.ccpu" | awk '{ printf "%.2f", $1 }')
    p99=$(median "$tmp/$key.p99")
    rss=$(hwm "$key" | awk '{ printf "%.1f", $1 / 1024 }')
    stop "$key"
    for f in rate ratio equal cpuequal cpu ccpu p99 rss; do
      eval "echo \"\$$f\"" >"$tmp/$name.$key.$f"
    done
    if [ "$key" = epoll ]; then ratio="1.00 (baseline)" equal="1.000"; else ratio="${ratio}x" equal="${equal}x"; fi
    # Unpinned, the rate is not the machine's speed over the two programs' CPU: no yardstick.
    [ "$placement" = shared ] || equal="-"
    printf '| %-37s | %13s | %-15s | %14s | %12s | %12s | %11s | %10s |\n' "$(cat "$tmp/$key.label")" "$rate" "$ratio" \
      "$equal" "$cpu" "$ccpu" "$p99" "$rss"
  done
  twin_ratios "$name" "$placement" "$tkeys" h "In a libuv loop / under coro_run()"
  twin_ratios "$name" "$placement" "$tkeys" t "Traced (CORO_TRACE, every event) / untraced"
}

# twin_ratios NAME PLACEMENT KEYS PREFIX TITLE: under a table, each variant
# of a coroc server (key PREFIXstackless, PREFIXstackful: h, in a libuv loop;
# t, traced) against its twin under coro_run(), per round trip, from the runs
# made back to back: the server's CPU (variant / twin) and the rate (variant /
# twin), raw and, on a shared core, at equal speed, the client's CPU as the
# yardstick as against epoll above. Left in $tmp/NAME.PREFIXKEY.{cpu,rate}[equal].
twin_ratios() {
  name=$1 placement=$2 prefix=$4 title=$5
  said=no
  for key in stackless stackful; do
    case " $3 " in *" $key "*) ;; *) continue ;; esac
    case " $3 " in *" $prefix$key "*) ;; *) continue ;; esac
    paste "$tmp/$prefix$key.cpu" "$tmp/$prefix$key.ccpu" "$tmp/$key.cpu" "$tmp/$key.ccpu" \
      "$tmp/$prefix$key.rates" "$tmp/$key.rates" |
      awk -v d="$tmp/twin" '
        { ok = $1 > 0 && $2 > 0 && $3 > 0 && $4 > 0
          print ($3 > 0 ? $1 / $3 : 0) >(d ".cpu")
          print (ok ? ($1 / $2) / ($3 / $4) : 0) >(d ".cpuequal")
          print ($6 > 0 ? $5 / $6 : 0) >(d ".rate")
          print (ok ? (1 + $3 / $4) / (1 + $1 / $2) : 0) >(d ".rateequal") }'
    for f in cpu cpuequal rate rateequal; do
      median "$tmp/twin.$f" | awk '{ printf "%.3f\n", $1 }' >"$tmp/$name.$prefix$key.$f"
    done
    [ $said = yes ] || { echo; echo "$title, per round trip (the medians of the paired ratios):"; }
    said=yes
    if [ "$placement" = shared ]; then
      printf '  %-10s server CPU %sx (at equal speed %sx), round trips/s %sx (at equal speed %sx)\n' "$key:" \
        "$(cat "$tmp/$name.$prefix$key.cpu")" "$(cat "$tmp/$name.$prefix$key.cpuequal")" \
        "$(cat "$tmp/$name.$prefix$key.rate")" "$(cat "$tmp/$name.$prefix$key.rateequal")"
    else
      printf '  %-10s server CPU %sx, round trips/s %sx\n' "$key:" "$(cat "$tmp/$name.$prefix$key.cpu")" \
        "$(cat "$tmp/$name.$prefix$key.rate")"
    fi
  done
}

# syscalls KEY: one run of 100 connections x 64 bytes x 200 rounds with
# strace -c on the server; its system calls per round trip, and the calls.
syscalls() {
  key=$1
  start "$key" shared
  pid=$(cat "$tmp/$key.pid")
  measure "$key" shared 100 64 20 warm-up
  strace -c -f -p "$pid" -o "$tmp/$key.strace" 2>/dev/null &
  spid=$!
  sleep 0.5
  measure "$key" shared 100 64 200 warm-up
  kill -INT "$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true
  stop "$key"
  awk -v trips=20000 '
    $1 ~ /^[0-9.]+$/ && $NF == "total" { total = $4 / trips; next }
    $1 ~ /^[0-9.]+$/ && NF >= 5 { per[$NF] = $4 / trips }
    END { line = ""; n = 0
          for (k in per) if (per[k] >= 0.05) line = line sprintf("%s%s %.2f", n++ ? ", " : "", k, per[k])
          printf "%.2f (%s)\n", total, line }' "$tmp/$key.strace"
}

if [ $tiny = yes ]; then
  runs=1 c1000=20 r1000=20
elif [ $quick = yes ]; then
  c1000=1000 r64=300 r1000=30 r10000=5 r16k=50
else
  c1000=1000 r64=1500 r1000=150 r10000=15 r16k=300
fi

load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
vendor=$(sed -n 's/^vendor_id[ \t]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
model=$(sed -n 's/^model name[ \t]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
echo "3. The echo servers: round trips, CPU, latency and memory"
echo "processor: ${vendor:-unknown vendor} ${model:-unknown model}; $(nproc 2>/dev/null || echo '?') processors; load average $load before the runs"
echo "client: $(basename "$client") --client, every byte of every echo checked; each figure the median"
echo "of $runs interleaved runs ($((runs * 2 + 1)) for the targets' table) on servers started afresh for each"
echo "table; ratio: median of the paired ratios to the epoll server; at equal speed: the same, with the"
echo "client's CPU per round trip as the yardstick of the machine's speed in each run (shared core only);"
echo "CPU: the server's, per round trip, and the client's; RSS: the server's peak (VmHWM)"
[ $have_taskset = yes ] || echo "(taskset not found: the shared-core tables run unpinned)"
[ -n "$hosted_stackless$hosted_stackful" ] && echo "in a libuv loop: echo's server driven by libuv's loop (examples/hosts/uv_host.c), not coro_run()"

# The targets' table: the epoll server twice, the stackless one traced too
# (after its twins), and more runs. The trace's cap: 16 events a round trip
# for every run of the table, the warm-up's included. About 7 are recorded
# (10,871 to 11,170 events in --tiny's 1,600 round trips, the connections'
# own included), more when a loaded machine wakes the server more often: a
# cap of 8 dropped 114 events of 12,914 once. It only bounds the memory:
# chunks are mapped as events fill them.
after=stackless
case " $keys " in *" hstackless "*) after=hstackless ;; esac
target_keys=
for key in epoll epoll2${keys#* epoll}; do
  target_keys="$target_keys $key"
  if [ "$key" = $after ]; then target_keys="$target_keys tstackless"; fi
done
trace_cap=$(((runs * 2 + 2) * c1000 * r1000 * 16))
table_keys=$target_keys table_runs=$((runs * 2 + 1)) config c1000 shared $c1000 64 $r1000
if [ $tiny = yes ]; then
  echo
  echo "(--tiny: every server ran and every byte was verified; no other table, no targets, figures of no meaning)"
  exit 0
fi
config c64 shared 64 64 "$r64"
config c10000 shared 10000 64 "$r10000"
config c16k shared 64 16384 "$r16k"
config u1000 unpinned 1000 64 $r1000
if [ "$threads" -gt 1 ]; then
  echo
  echo "All cores: the coroc servers with --threads $threads (a scheduler and an SO_REUSEPORT listener per"
  echo "thread; in a libuv loop: a loop per thread), every server against a client of $threads threads,"
  echo "unpinned; epoll and libuv stay single-threaded"
  for key in stackless stackful hstackless hstackful; do echo "--threads $threads" >"$tmp/$key.args"; done
  config t1000 unpinned 1000 64 $r1000 -- --threads "$threads"
  rm -f "$tmp/stackless.args" "$tmp/stackful.args" "$tmp/hstackless.args" "$tmp/hstackful.args"
fi
echo
if [ $have_strace = yes ]; then
  echo "System calls per round trip (strace -c on the server; 100 connections x 64 bytes x 200 rounds):"
  for key in $keys; do
    printf '  %-37s %s\n' "$(cat "$tmp/$key.label")" "$(syscalls "$key")"
  done
else
  echo "(strace not found: no count of system calls per round trip)"
fi

# Targets: from the shared-core table at 1,000 connections.
fig() { cat "$tmp/$1.$2.$3" 2>/dev/null || echo 0; }
verdict() { if [ "$1" = 1 ]; then echo "met"; else echo "NOT met"; fi; }
ge() { echo "$1 $2" | awk '{ print ($1 >= $2) ? 1 : 0 }'; }
le() { echo "$1 $2" | awk '{ print ($1 <= $2) ? 1 : 0 }'; }
echo
echo "Targets (shared core, 1,000 connections x 64 bytes; ratios at equal speed, the raw ones beside):"
aa_raw=$(fig c1000 epoll2 ratio) aa_equal=$(fig c1000 epoll2 equal)
echo "  (the epoll server against itself: ${aa_raw}x raw, ${aa_equal}x at equal speed)"
uv_equal=$(fig c1000 libuv equal) uv_rss=$(fig c1000 libuv rss)
for key in stackless stackful; do
  [ -f "$tmp/c1000.$key.rate" ] || continue
  ratio=$(fig c1000 $key ratio) equal=$(fig c1000 $key equal) cpuequal=$(fig c1000 $key cpuequal)
  cpu=$(fig c1000 $key cpu) rss=$(fig c1000 $key rss)
  echo "  $key: round trips/s ${equal}x epoll (raw ${ratio}x) (>= 1.00x): $(verdict "$(ge "$equal" 1.0)")"
  if [ -n "$libuv" ]; then
    echo "  $key: round trips/s ${equal}x epoll vs libuv ${uv_equal}x (>= libuv): $(verdict "$(ge "$equal" "$uv_equal")")"
  fi
  echo "  $key: CPU per round trip ${cpuequal}x epoll's ($cpu µs raw) (<= 1.05x, within 5%): $(verdict "$(le "$cpuequal" 1.05)")"
  if [ -n "$libuv" ]; then
    if [ $key = stackless ]; then lim=$uv_rss; what="<= libuv"; else
      lim=$(echo "$uv_rss" | awk '{ printf "%.1f", $1 * 2 }'); what="<= 2x libuv"; fi
    echo "  $key: RSS $rss MiB vs libuv $uv_rss MiB ($what, $lim MiB): $(verdict "$(le "$rss" "$lim")")"
  fi
  if [ -f "$tmp/c1000.h$key.cpu" ]; then
    echo "  $key in a libuv loop / under coro_run(): CPU per round trip $(fig c1000 h$key cpuequal)x (raw" \
      "$(fig c1000 h$key cpu)x), round trips/s $(fig c1000 h$key rateequal)x (raw $(fig c1000 h$key rate)x) (no target)"
  fi
  if [ -f "$tmp/c1000.t$key.cpu" ]; then
    traced=$(fig c1000 t$key rateequal)
    echo "  $key traced (CORO_TRACE) / untraced: round trips/s ${traced}x (raw $(fig c1000 t$key rate)x), CPU per" \
      "round trip $(fig c1000 t$key cpuequal)x (>= 0.80x the rate): $(verdict "$(ge "$traced" 0.8)")"
  fi
done
# Every run's client verified every byte, or the script stopped above.
echo "  10,000 connections served, every byte verified, by every server: met"
[ -n "$libuv" ] || echo "  (libuv not built: install libuv1-dev; the targets against libuv are not measured)"
