#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# daemon_bench.sh BUILD_DIR SOURCE_DIR [COPIES] - lnetcapd against direct
# lnetcap on the same records, in one run (docs/PERFORMANCE.md, "lnetcapd";
# run by `cmake --build build --target bench-daemon`):
#   direct      lnetcap -r BIG -w out
#   1, 4, 16    lnetcapd -r BIG, that many `lnetcap --from -w out` subscribers
#               (each subscriber's rate vs direct, loss, daemon CPU)
#   1 % filter  one subscriber whose filter matches ~1 %: daemon CPU vs no
#               subscriber at all, bytes it received vs the whole stream
# On a shared machine a single wall time measures the load, not the code:
# every daemon case runs in PAIRS interleaved pairs (direct, then the
# daemon case, DAEMON_BENCH_PAIRS, default 5), and a ratio is only ever
# taken within its pair; the median of the pairs is reported.
# BIG is COPIES time-shifted copies of both samples, converted once to an
# lnetcap pcapng so that every path reads the same records.  A replay as
# fast as possible waits for a full subscriber queue (never drops), so
# "lost" must be 0; it is checked from the subscribers' own files.
# DAEMON_BENCH_BIG=FILE: use FILE as BIG (COPIES is then only a label).
# DAEMON_BENCH_BASELINE=BUILD_DIR: another build's lnetcapd and lnetcap run
# in the same pairs (direct, this build, that build), so that a change is
# compared with what it replaces under the same load.
set -uo pipefail
build=$1 src=$2 copies=${3:-40}
pairs=${DAEMON_BENCH_PAIRS:-5}
baseline=${DAEMON_BENCH_BASELINE:-}
lnetcap=$build/capture/lnetcap
export TZ=UTC LC_ALL=C
tmp=$(mktemp -d /tmp/lnetcapd-bench.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
die() { echo "daemon_bench: $*" >&2; exit 1; }
command -v mergecap >/dev/null && command -v editcap >/dev/null || die "needs mergecap and editcap (wireshark-common)"
[ -z "$baseline" ] || [ -x "$baseline/capture/lnetcapd" ] || die "no $baseline/capture/lnetcapd"

if [ -n "${DAEMON_BENCH_BIG:-}" ]; then  # the same BIG for several builds (before/after)
  ln -s "$(realpath "$DAEMON_BENCH_BIG")" "$tmp/big.pcapng" || die "no $DAEMON_BENCH_BIG"
else
  "$lnetcap" -r "$src/samples/lnet-socklnd.pcapng" -w "$tmp/a.pcapng" 2>/dev/null || die "cannot convert the socklnd sample"
  mergecap -a -w "$tmp/base.pcapng" "$tmp/a.pcapng" "$src/samples/lustre-fs-part1.pcapng" || die mergecap
  parts=()
  for i in $(seq 0 $((copies - 1))); do
    editcap -t $((i * 1000)) "$tmp/base.pcapng" "$tmp/p$i.pcapng" 2>/dev/null; parts+=("$tmp/p$i.pcapng")
  done
  mergecap -a -w "$tmp/big.pcapng" "${parts[@]}" || die mergecap
  rm -f "${parts[@]}"
fi
total=$("$lnetcap" -r "$tmp/big.pcapng" -q 2>/dev/null | wc -l)
filter='opcode LDLM_ENQUEUE'
matching=$("$lnetcap" -r "$tmp/big.pcapng" -q $filter 2>/dev/null | wc -l)

now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc -l; }
count() { "$lnetcap" -r "$1" -q 2>/dev/null | wc -l; }
cpu_of() { awk '{ printf "%.3f", $1 + $2 }' "$1"; }  # /usr/bin/time -f '%U %S'
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'; }

# direct: prints "wall_seconds cpu_seconds".
direct() {
  local t0 t1
  t0=$(now)
  /usr/bin/time -f '%U %S' -o "$tmp/direct.cpu" "$lnetcap" -r "$tmp/big.pcapng" -w "$tmp/direct.pcapng" 2>/dev/null
  t1=$(now)
  [ "$(count "$tmp/direct.pcapng")" -eq "$total" ] || die "direct lost records"
  echo "$(secs "$t0" "$t1") $(cpu_of "$tmp/direct.cpu")"
}

# run_daemon BUILD NAME SUBSCRIBERS [FILTER]: the daemon waits for them all,
# each writes its own file; prints "wall_seconds daemon_cpu_seconds lost
# bytes subscribers_cpu_seconds" (CPU is user + system, steadier than wall
# time on a shared machine).
run_daemon() {
  local bin=$1/capture name=$2 n=$3 f=${4:-} sock="$tmp/$2.sock" want=$total
  [ -n "$f" ] && want=$matching
  rm -f "$sock"
  /usr/bin/time -f '%U %S' -o "$tmp/$name.cpu" \
    "$bin/lnetcapd" --no-config -r "$tmp/big.pcapng" --listen "ipc://$sock" --group "$(id -gn)" \
    --wait-subscribers "$n" 2>"$tmp/$name.log" &
  local dpid=$!
  for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
  local t0 pids=() lost=0 bytes=0 sub_cpu=0
  t0=$(now)
  for i in $(seq 1 "$n"); do
    /usr/bin/time -f '%U %S' -o "$tmp/$name.$i.cpu" \
      "$bin/lnetcap" --from "ipc://$sock" -w "$tmp/$name.$i.pcapng" $f 2>/dev/null & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || die "$name: a subscriber failed"; done
  local t1; t1=$(now)
  wait "$dpid" || die "$name: lnetcapd failed: $(cat "$tmp/$name.log")"
  for i in $(seq 1 "$n"); do
    got=$(count "$tmp/$name.$i.pcapng"); lost=$((lost + want - got))
    bytes=$((bytes + $(stat -c %s "$tmp/$name.$i.pcapng")))
    sub_cpu=$(echo "$sub_cpu + $(cpu_of "$tmp/$name.$i.cpu")" | bc -l)
    rm -f "$tmp/$name.$i.pcapng"
  done
  echo "$(secs "$t0" "$t1") $(cpu_of "$tmp/$name.cpu") $lost $bytes $sub_cpu"
}

ratio() { echo "$1 / $2" | bc -l | awk '{ printf "%.2f", $1 }'; }
per_m() { echo "$1 * 1000000 / $total" | bc -l | awk '{ printf "%.3f", $1 }'; }  # CPU s per million records

printf 'records: %d (%d copies of both samples); %d interleaved pairs per case; load average %s\n' \
  "$total" "$copies" "$pairs" "$(cut -d' ' -f1-3 /proc/loadavg)"
builds=(this)
[ -n "$baseline" ] && builds+=(baseline)
# Per case and build: the pairs' ratios (direct wall / daemon wall: each
# subscriber's rate against the direct rate), daemon CPU, loss.
declare -A ratios cpus lost direct_cpus
for n in 1 4 16; do
  for p in $(seq 1 "$pairs"); do
    read -r d_s d_cpu < <(direct)
    direct_cpus[$n]+="$d_cpu "
    for b in "${builds[@]}"; do
      dir=$build; [ "$b" = baseline ] && dir=$baseline
      read -r s cpu l _ _ < <(run_daemon "$dir" "$b.$n" "$n") || die "$b, $n subscribers: no result"
      ratios[$b.$n]+="$(ratio "$d_s" "$s") "
      cpus[$b.$n]+="$cpu "
      lost[$b.$n]=$(( ${lost[$b.$n]:-0} + l ))
    done
  done
done
printf '%-10s %-12s %22s %20s %6s\n' build subscribers "rate/direct med (range)" "daemon CPU s med" lost
for b in "${builds[@]}"; do
  for n in 1 4 16; do
    r=${ratios[$b.$n]} c=${cpus[$b.$n]}
    printf '%-10s %-12s %8s (%11s) %11s (%s/M) %6s\n' "$b" "$n" "$(tr ' ' '\n' <<<"$r" | grep . | median)" \
      "$(tr ' ' '\n' <<<"$r" | grep . | range)" "$(tr ' ' '\n' <<<"$c" | grep . | median)" \
      "$(per_m "$(tr ' ' '\n' <<<"$c" | grep . | median)")" "${lost[$b.$n]}"
  done
  c1=$(tr ' ' '\n' <<<"${cpus[$b.1]}" | grep . | median) c16=$(tr ' ' '\n' <<<"${cpus[$b.16]}" | grep . | median)
  echo "$b: daemon CPU per million records per extra subscriber: $(per_m "($c16 - $c1) / 15") s (medians, 16 vs 1 subscriber)"
done
echo "direct CPU s (all pairs): median $(tr ' ' '\n' <<<"${direct_cpus[*]}" | grep . | median), per million records $(per_m "$(tr ' ' '\n' <<<"${direct_cpus[*]}" | grep . | median)")"

# The 1 % filter against no subscriber, once each (CPU only).
read -r _ flt_cpu flt_lost flt_bytes _ < <(run_daemon "$build" filtered 1 "$filter")
read -r _ none_cpu _ _ _ < <(run_daemon "$build" none 0)
full_bytes=$(stat -c %s "$tmp/direct.pcapng")
printf '1 %% filter (%s, %d matches, %.2f %%): daemon CPU %s s, %sx that with no subscriber (%s s); bytes received %s %% of the stream; lost %d\n' \
  "$filter" "$matching" "$(echo "100 * $matching / $total" | bc -l)" "$flt_cpu" "$(ratio "$flt_cpu" "$none_cpu")" \
  "$none_cpu" "$(ratio "100 * $flt_bytes" "$full_bytes")" "$flt_lost"
