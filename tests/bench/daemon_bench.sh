#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# daemon_bench.sh BUILD_DIR SOURCE_DIR [COPIES] - lnetcapd against direct
# lnetcap on the same records, in one run (the figures of issue 14 in
# docs/PERFORMANCE.md; run by `cmake --build build --target bench`):
#   direct      lnetcap -r BIG -w out
#   1 sub       lnetcapd -r BIG, one `lnetcap --from -w out` (rate vs direct, loss)
#   4, 16 subs  daemon CPU per subscriber
#   1 % filter  one subscriber whose filter matches ~1 %: daemon CPU vs no
#               subscriber at all, bytes it received vs the whole stream
# BIG is COPIES time-shifted copies of both samples, converted once to an
# lnetcap pcapng so that every path reads the same records.  A replay as
# fast as possible waits for a full subscriber queue (never drops), so
# "lost" must be 0; it is checked from the subscribers' own files.
# DAEMON_BENCH_BIG=FILE: use FILE as BIG (COPIES is then only a label), so
# that two builds are measured on the same records in one session.
set -uo pipefail
build=$1 src=$2 copies=${3:-40}
lnetcap=$build/capture/lnetcap lnetcapd=$build/capture/lnetcapd
export TZ=UTC LC_ALL=C
tmp=$(mktemp -d /tmp/lnetcapd-bench.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
die() { echo "daemon_bench: $*" >&2; exit 1; }
command -v mergecap >/dev/null && command -v editcap >/dev/null || die "needs mergecap and editcap (wireshark-common)"

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
cpu_of() { awk '{ printf "%.2f", $1 + $2 }' "$1"; }  # /usr/bin/time -f '%U %S'

# Direct.
t0=$(now)
/usr/bin/time -f '%U %S' -o "$tmp/direct.cpu" "$lnetcap" -r "$tmp/big.pcapng" -w "$tmp/direct.pcapng" 2>/dev/null
t1=$(now)
direct_s=$(secs "$t0" "$t1") direct_cpu=$(cpu_of "$tmp/direct.cpu")
[ "$(count "$tmp/direct.pcapng")" -eq "$total" ] || die "direct lost records"

# run_daemon NAME SUBSCRIBERS [FILTER]: the daemon waits for them all, each
# writes its own file; prints "wall_seconds daemon_cpu_seconds lost bytes
# subscribers_cpu_seconds" (CPU is user + system, steadier than wall time
# on a shared machine).
run_daemon() {
  local name=$1 n=$2 f=${3:-} sock="$tmp/$1.sock" want=$total
  [ -n "$f" ] && want=$matching
  /usr/bin/time -f '%U %S' -o "$tmp/$name.cpu" \
    "$lnetcapd" --no-config -r "$tmp/big.pcapng" --listen "ipc://$sock" --group "$(id -gn)" \
    --wait-subscribers "$n" 2>"$tmp/$name.log" &
  local dpid=$!
  for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
  local t0 pids=() lost=0 bytes=0 sub_cpu=0
  t0=$(now)
  for i in $(seq 1 "$n"); do
    /usr/bin/time -f '%U %S' -o "$tmp/$name.$i.cpu" \
      "$lnetcap" --from "ipc://$sock" -w "$tmp/$name.$i.pcapng" $f 2>/dev/null & pids+=($!)
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

read -r one_s one_cpu one_lost _ one_sub < <(run_daemon one 1)
read -r four_s four_cpu four_lost _ four_sub < <(run_daemon four 4)
read -r sixteen_s sixteen_cpu sixteen_lost _ sixteen_sub < <(run_daemon sixteen 16)
read -r flt_s flt_cpu flt_lost flt_bytes flt_sub < <(run_daemon filtered 1 "$filter")
read -r _ none_cpu _ _ _ < <(run_daemon none 0)
full_bytes=$(stat -c %s "$tmp/direct.pcapng")

rate() { echo "$total / $1" | bc -l | awk '{ printf "%.0f", $1 }'; }
ratio() { echo "$1 / $2" | bc -l | awk '{ printf "%.2f", $1 }'; }
printf 'records: %d (%d copies of both samples); 1 %% filter: %s matches %d (%.2f %%)\n' \
  "$total" "$copies" "$filter" "$matching" "$(echo "100 * $matching / $total" | bc -l)"
printf '%-34s %10s %12s %10s %10s %6s\n' case wall_s records/s daemon_cpu subs_cpu lost
printf '%-34s %10.3f %12s %10s %10s %6s\n' "direct lnetcap -r -w" "$direct_s" "$(rate "$direct_s")" - "$direct_cpu" 0
printf '%-34s %10.3f %12s %10s %10.2f %6s\n' "lnetcapd, 1 subscriber -w" "$one_s" "$(rate "$one_s")" "$one_cpu" "$one_sub" "$one_lost"
printf '%-34s %10.3f %12s %10s %10.2f %6s\n' "lnetcapd, 4 subscribers" "$four_s" "$(rate "$four_s")" "$four_cpu" "$four_sub" "$four_lost"
printf '%-34s %10.3f %12s %10s %10.2f %6s\n' "lnetcapd, 16 subscribers" "$sixteen_s" "$(rate "$sixteen_s")" "$sixteen_cpu" "$sixteen_sub" "$sixteen_lost"
printf '%-34s %10.3f %12s %10s %10.2f %6s\n' "lnetcapd, 1 subscriber, 1 % filter" "$flt_s" "$(rate "$flt_s")" "$flt_cpu" "$flt_sub" "$flt_lost"
printf '%-34s %10s %12s %10s %10s %6s\n' "lnetcapd, no subscriber" - - "$none_cpu" - -
echo "1 subscriber through the daemon: $(ratio "$direct_s" "$one_s")x the direct rate (wall); CPU daemon + subscriber $(ratio "($one_cpu + $one_sub)" "$direct_cpu")x direct's"
echo "per subscriber (wall): 4: $(ratio "$direct_s" "$four_s")x, 16: $(ratio "$direct_s" "$sixteen_s")x the direct rate each"
echo "daemon CPU per subscriber: 1: $one_cpu s, 4: $(ratio "$four_cpu" 4) s, 16: $(ratio "$sixteen_cpu" 16) s"
echo "1 % filter: daemon CPU $(ratio "$flt_cpu" "$none_cpu")x that with no subscriber; bytes received $(ratio "100 * $flt_bytes" "$full_bytes") % of the stream's pcapng"
