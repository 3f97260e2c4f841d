#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# daemon_test.sh BUILD_DIR SOURCE_DIR CASE - lnetcapd and `lnetcap --from`
# end to end: real daemons replaying samples/ and the shared corpus on ipc
# sockets in a private temporary directory (so cases run in parallel),
# real subscribers with every sink.  What a subscriber gets is compared,
# record for record (tests/tools/pcap_dump: caplen, orig_len, time, bytes),
# with what lnetcap writes reading the same input directly - never with
# figures the daemon itself reports.
set -uo pipefail
build=$1 src=$2 case=$3
lnetcap=$build/capture/lnetcap
lnetcapd=$build/capture/lnetcapd
pcap_dump=$build/tests/pcap_dump
sample=$src/samples/lustre-fs-part1.pcapng
socklnd_sample=$src/samples/lnet-socklnd.pcapng
corpus=$src/tests/data/corpus/lustre-fs-part1.pcap
export TZ=UTC LC_ALL=C
TEST_CASE=$case
. "$src/tests/support/testlib.sh"
tmp=$(mktemp -d /tmp/lnetcapd-test.XXXXXX)
daemons=()
cleanup() {
  for pid in "${daemons[@]}"; do kill -CONT "$pid" 2>/dev/null; kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$tmp"
}
on_exit cleanup
on_fail 'for f in "$tmp"/*.log; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done'

need() { need_file "$@"; }
. "$src/tests/daemon/packets-lib.sh"
# start_daemon NAME ARGS...: lnetcapd on ipc://$tmp/NAME.sock, log in NAME.log.
start_daemon() {
  local name=$1; shift
  "$lnetcapd" --listen "ipc://$tmp/$name.sock" --group "$(id -gn)" "$@" 2>"$tmp/$name.log" &
  daemons+=($!)
  eval "${name}_pid=$!"
  wait_for_socket "$tmp/$name.sock" 10
}
uri() { echo "ipc://$tmp/$1.sock"; }
expect_exit() {  # expect_exit CODE NAME cmd...: output in NAME.out/NAME.err
  local want=$1 name=$2; shift 2
  timeout 60 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local got=$?
  [ "$got" -eq "$want" ] || cat "$tmp/$name.out" "$tmp/$name.err" >&2
  expect_eq "exit status of $*" "$got" "$want"
}
# start_curve_daemon NAME ARGS...: lnetcapd with CurveZMQ on 127.0.0.1 and
# a port the kernel picks; sets NAME_uri from its "serving ... on" line.
start_curve_daemon() {
  local name=$1; shift
  "$lnetcapd" --listen 'tcp://127.0.0.1:*' "$@" 2>"$tmp/$name.log" &
  daemons+=($!)
  eval "${name}_pid=$!"
  wait_for_log "$tmp/$name.log" "with CurveZMQ"
  eval "${name}_uri=$(sed -n 's/.* on \(tcp:[^ ]*\) with CurveZMQ.*/\1/p' "$tmp/$name.log")"
}
daemon_exit() {  # daemon_exit NAME: waits for it, fails unless it exited 0
  local pid_var=${1}_pid
  local rc=0
  wait "${!pid_var}" || rc=$?
  expect_eq "lnetcapd $1 exit status" "$rc" 0
}
# status NAME: `lnetcap --from ... --status` into NAME.status.
status() { timeout 30 "$lnetcap" --from "$(uri "$1")" --status >"$tmp/$1.status" 2>"$tmp/$1.status.err" || fail "--status failed: $(cat "$tmp/$1.status.err")"; }
status_value() { sed -n "s/^  $2: *//p" "$tmp/$1.status"; }  # status_value NAME ITEM
# status_at_least NAME ITEM N: the daemon's --status ITEM is N or more.
status_at_least() { status "$1"; [ "$(status_value "$1" "$2")" -ge "$3" ] 2>/dev/null; }
wait_replayed() {  # wait_replayed NAME N: until the daemon has taken N records
  replayed() { status "$1"; [ "$(status_value "$1" "records received")" = "$2" ]; }
  wait_for 30 "lnetcapd $1 to take $2 records" replayed "$1" "$2"
}
# window_slice bytes|seconds LIMIT FILE: the packets (pcap_dump lines) of
# FILE's newest records that a flight recorder with that bound holds: from
# the newest back while the records' lengths + 160 bytes each (bookkeeping,
# flight_recorder.h) fit LIMIT bytes, or while no older than LIMIT seconds
# before the newest.  Prints the bytes held to fd 3.
window_slice() {
  packets "$3" | python3 -c '
import sys
mode, limit = sys.argv[1], float(sys.argv[2])
lines = sys.stdin.read().splitlines()
def ns(l):
    s, f = l.split()[2].split(".")
    return int(s) * 10**9 + int(f)
newest, held, first = ns(lines[-1]), 0, len(lines)
for i in range(len(lines) - 1, -1, -1):
    size = int(lines[i].split()[0]) + 160
    if mode == "bytes" and held + size > limit: break
    if mode == "seconds" and ns(lines[i]) < newest - round(limit * 1e9): break
    held += size
    first = i
print("\n".join(lines[first:]))
open(3, "w").write(str(held) + "\n")
' "$1" "$2"
}

case $case in
replay-sample-equals-direct)
  need "$sample"
  start_daemon d -r "$sample" --wait-subscribers 1
  expect_exit 0 sub "$lnetcap" --from "$(uri d)" -w "$tmp/sub.pcapng"
  expect_exit 0 direct "$lnetcap" -r "$sample" -w "$tmp/direct.pcapng"
  same_packets "$tmp/sub.pcapng" "$tmp/direct.pcapng"
  [ "$(packets "$tmp/sub.pcapng" | wc -l)" -eq 149 ] || fail "samples/README.md says 149 records"
  daemon_exit d
  contains "$tmp/d.log" "149 matched, 149 sent, 0 dropped"
  # Text output too (the same decoding, whatever the transport).
  start_daemon t -r "$sample" --wait-subscribers 1
  expect_exit 0 text "$lnetcap" --from "$(uri t)" --nano
  expect_exit 0 text_direct "$lnetcap" -r "$sample" --nano
  cmp -s "$tmp/text.out" "$tmp/text_direct.out" || fail "text differs: $(diff "$tmp/text.out" "$tmp/text_direct.out" | head -3)"
  daemon_exit t ;;
replay-corpus-equals-direct)
  # The daemon converts socklnd TCP traffic itself (the corpus pcap).
  need "$corpus"
  start_daemon d -r "$corpus" --wait-subscribers 1
  expect_exit 0 sub "$lnetcap" --from "$(uri d)" -w "$tmp/sub.pcapng"
  expect_exit 0 direct "$lnetcap" -r "$corpus" -w "$tmp/direct.pcapng"
  same_packets "$tmp/sub.pcapng" "$tmp/direct.pcapng"
  daemon_exit d ;;
replay-lossless-when-unpaced)
  # Replayed as fast as possible there is no clock to keep up with: the
  # daemon waits for a full queue instead of dropping (a tiny one here).
  need "$socklnd_sample"; command -v editcap >/dev/null && command -v mergecap >/dev/null || skip "editcap/mergecap missing"
  for i in 0 1 2 3 4 5 6 7 8 9; do editcap -t $((i * 100)) "$socklnd_sample" "$tmp/part$i.pcapng" 2>/dev/null; done
  mergecap -a -w "$tmp/big.pcapng" "$tmp"/part?.pcapng
  start_daemon d -r "$tmp/big.pcapng" --queue 10 --wait-subscribers 1
  expect_exit 0 sub "$lnetcap" --from "$(uri d)" -w "$tmp/sub.pcapng"
  expect_exit 0 direct "$lnetcap" -r "$tmp/big.pcapng" -w "$tmp/direct.pcapng"
  same_packets "$tmp/sub.pcapng" "$tmp/direct.pcapng"
  daemon_exit d
  contains "$tmp/d.log" "29100 matched, 29100 sent, 0 dropped" ;;
trickle-arrives-promptly)
  # Records are batched per subscriber, but a batch never waits for more
  # records: at 2 records/s the first ones must be printed at once, not
  # when 64 of them (32 s) have gathered.
  need "$sample"
  start_daemon d -r "$sample" --rate 2 --wait-subscribers 1
  "$lnetcap" --from "$(uri d)" -U >"$tmp/sub.out" 2>"$tmp/sub.err" &
  sub=$!
  wait_for_log "$tmp/d.log" "subscriber 1 ("
  # 3 s for 2 records at 2 records/s: a batch that waited for 64 would miss it.
  at_least_lines() { [ "$(wc -l <"$1")" -ge "$2" ]; }
  daemons+=("$sub")
  wait_for 3 "2 records printed 3 s into a 2 records/s replay" at_least_lines "$tmp/sub.out" 2
  lines=$(wc -l <"$tmp/sub.out")
  kill -INT "$sub"; wait "$sub" || true
  kill -TERM "$d_pid"; wait "$d_pid" || true
  [ "$lines" -ge 2 ] || fail "only $lines records printed 3 s into a 2 records/s replay"
  "$lnetcap" -r "$sample" | head -2 >"$tmp/direct.out"
  head -2 "$tmp/sub.out" >"$tmp/first.out"
  check "the first records equal a direct read's" cmp -s "$tmp/first.out" "$tmp/direct.out" ;;
push-down-filter)
  need "$sample"
  start_daemon d -r "$sample" --wait-subscribers 1
  expect_exit 0 sub "$lnetcap" --from "$(uri d)" -w "$tmp/sub.pcapng" opcode LDLM_ENQUEUE
  expect_exit 0 direct "$lnetcap" -r "$sample" -w "$tmp/direct.pcapng" opcode LDLM_ENQUEUE
  same_packets "$tmp/sub.pcapng" "$tmp/direct.pcapng"
  n=$(packets "$tmp/direct.pcapng" | wc -l)
  daemon_exit d
  # Only the matching records left the daemon: the filter ran there.
  contains "$tmp/d.log" "filter 'opcode LDLM_ENQUEUE'"
  contains "$tmp/d.log" "$n matched, $n sent, 0 dropped" ;;
fanout-equals-direct)
  # Fan-out classes (docs/DAEMON.md "Fan-out"): 1, 4 and 16 subscribers of
  # one class share each batch; every one's file equals the direct capture,
  # and a 17th with another snap length (its own class) gets its cut records.
  need "$socklnd_sample"; command -v editcap >/dev/null && command -v mergecap >/dev/null || skip "editcap/mergecap missing"
  for i in 0 1 2 3 4 5 6 7 8 9; do editcap -t $((i * 100)) "$socklnd_sample" "$tmp/part$i.pcapng" 2>/dev/null; done
  mergecap -a -w "$tmp/big.pcapng" "$tmp"/part?.pcapng
  expect_exit 0 direct "$lnetcap" -r "$tmp/big.pcapng" -w "$tmp/direct.pcapng"
  total=$(packets "$tmp/direct.pcapng" | wc -l)
  for n in 1 4 16; do
    start_daemon "d$n" -r "$tmp/big.pcapng" --wait-subscribers $((n + 1)) --max-subscribers-per-user 17
    pids=()
    for i in $(seq 1 "$n"); do
      timeout 60 "$lnetcap" --from "$(uri "d$n")" -w "$tmp/sub$n.$i.pcapng" 2>"$tmp/sub$n.$i.err" & pids+=($!)
    done
    timeout 60 "$lnetcap" --from "$(uri "d$n")" -s 16 -w "$tmp/cut$n.pcapng" 2>"$tmp/cut$n.err" & pids+=($!)
    for p in "${pids[@]}"; do wait "$p" || fail "a subscriber of $n failed"; done
    daemon_exit "d$n"
    for i in $(seq 1 "$n"); do same_packets "$tmp/sub$n.$i.pcapng" "$tmp/direct.pcapng"; done
    [ "$(grep -c "$total matched, $total sent, 0 dropped" "$tmp/d$n.log")" -eq $((n + 1)) ] ||
      fail "not every subscriber of $n was sent every record: $(grep matched "$tmp/d$n.log" | head -3)"
    # Local subscribers read the batches from their class's shared-memory
    # ring (each of the two classes has one): every one of them did.
    [ "$(grep -cE "$total matched, $total sent, 0 dropped \([1-9][0-9]* through the shared-memory ring\)" "$tmp/d$n.log")" -eq $((n + 1)) ] ||
      fail "not every subscriber of $n read the ring: $(grep matched "$tmp/d$n.log" | head -3)"
    paste -d' ' <(packets "$tmp/cut$n.pcapng" | cut -d' ' -f1-3) <(packets "$tmp/direct.pcapng" | cut -d' ' -f1-3) |
      awk '{ want = ($4 < 192) ? $4 : 192; if ($1 != want || $2 != $5 || $3 != $6) { print; bad = 1 } } END { exit bad }' ||
      fail "snap length 16 beside $n full subscribers not applied record by record"
  done ;;
snaplen)
  need "$sample"
  start_daemon d -r "$sample" --wait-subscribers 1
  expect_exit 0 sub "$lnetcap" --from "$(uri d)" -s 16 -w "$tmp/sub.pcapng"
  daemon_exit d
  expect_exit 0 direct "$lnetcap" -r "$sample" -w "$tmp/direct.pcapng"
  # Per record: orig_len and time as captured, caplen cut to the 104-byte
  # record header + 72-byte LNet header + at most 16 payload bytes.
  paste -d' ' <(packets "$tmp/sub.pcapng" | cut -d' ' -f1-3) <(packets "$tmp/direct.pcapng" | cut -d' ' -f1-3) |
    awk '{ want = ($4 < 192) ? $4 : 192; if ($1 != want || $2 != $5 || $3 != $6) { print; bad = 1 } } END { exit bad }' ||
    fail "snap length 16 not applied record by record"
  [ "$(packets "$tmp/sub.pcapng" | wc -l)" -eq 149 ] || fail "records lost" ;;
bad-filter-refused)
  need "$sample"
  start_daemon d -r "$sample" --wait-subscribers 1
  expect_exit 1 bad "$lnetcap" --from "$(uri d)" type pot
  contains "$tmp/bad.err" "refused the subscription"
  contains "$tmp/bad.err" "'pot'"
  [ ! -s "$tmp/bad.out" ] || fail "a refused subscription printed records"
  # The daemon goes on serving: the next subscriber gets everything.
  expect_exit 0 good "$lnetcap" --from "$(uri d)" -q
  [ "$(wc -l <"$tmp/good.out")" -eq 149 ] || fail "the good subscriber got $(wc -l <"$tmp/good.out") lines"
  daemon_exit d ;;
summary-and-assert)
  need "$sample"
  start_daemon d -r "$sample" --wait-subscribers 1
  expect_exit 0 sub "$lnetcap" --from "$(uri d)" --summary=json
  expect_exit 0 direct "$lnetcap" -r "$sample" --summary=json
  cmp -s "$tmp/sub.out" "$tmp/direct.out" || fail "summaries differ"
  daemon_exit d
  start_daemon a -r "$sample" --wait-subscribers 1
  expect_exit 1 sub_assert "$lnetcap" --from "$(uri a)" --assert 'count(opcode LDLM_ENQUEUE) <= 2'
  expect_exit 1 direct_assert "$lnetcap" -r "$sample" --assert 'count(opcode LDLM_ENQUEUE) <= 2'
  cmp -s "$tmp/sub_assert.out" "$tmp/direct_assert.out" || fail "assertion reports differ"
  contains "$tmp/sub_assert.out" "FAIL"
  daemon_exit a ;;
rotation)
  need "$sample"
  start_daemon d -r "$sample" --wait-subscribers 1
  expect_exit 0 sub "$lnetcap" --from "$(uri d)" -w "$tmp/rot.pcapng" -C 20k
  daemon_exit d
  files=$(cd "$tmp" && ls | grep '^rot\.pcapng' | sort -V)
  [ "$(echo "$files" | wc -l)" -ge 3 ] || fail "expected several rotated files: $files"
  for f in $files; do packets "$tmp/$f"; done >"$tmp/rotated.txt"
  expect_exit 0 direct "$lnetcap" -r "$sample" -w "$tmp/direct.pcapng"
  packets "$tmp/direct.pcapng" | cmp -s - "$tmp/rotated.txt" || fail "rotated files differ from the direct conversion" ;;
merge-equals-mergecap)
  # Three "nodes": the sample cut in three interleaved streams, each
  # replayed by its own daemon; one subscriber merges them.
  need "$sample"; command -v mergecap >/dev/null || skip "mergecap missing"
  "$lnetcap" -r "$sample" -w "$tmp/n1.pcapng" 'rpc request' 2>/dev/null
  "$lnetcap" -r "$sample" -w "$tmp/n2.pcapng" 'rpc reply' 2>/dev/null
  "$lnetcap" -r "$sample" -w "$tmp/n3.pcapng" 'not rpc request and not rpc reply' 2>/dev/null
  for n in n1 n2 n3; do
    [ "$(packets "$tmp/$n.pcapng" | wc -l)" -gt 0 ] || fail "$n is empty: the split is no test"
    start_daemon "$n" -r "$tmp/$n.pcapng" --wait-subscribers 1 --node "node-$n"
  done
  expect_exit 0 sub "$lnetcap" --from "$(uri n1)" --from "$(uri n2)" --from "$(uri n3)" -w "$tmp/merged.pcapng"
  mergecap -w "$tmp/expected.pcapng" "$tmp/n1.pcapng" "$tmp/n2.pcapng" "$tmp/n3.pcapng"
  same_packets "$tmp/merged.pcapng" "$tmp/expected.pcapng"
  for n in n1 n2 n3; do daemon_exit "$n"; done
  # One pcapng interface per node and NI, saying which node.
  "$lnetcap" -r "$tmp/merged.pcapng" -c1 >/dev/null 2>&1 || fail "merged file unreadable"
  for n in n1 n2 n3; do grep -qa "on node-$n" "$tmp/merged.pcapng" || fail "no interface of node-$n"; done ;;
stopped-subscriber)
  # One subscriber is stopped (kill -STOP) while another keeps up: the other
  # loses nothing; the stopped one's losses are counted exactly.  It is
  # continued half-way, so the loss is a gap before later records (their
  # epb_dropcount), and the total is in its ISB.
  need "$socklnd_sample"
  total=2910  # samples/README.md
  start_daemon d -r "$socklnd_sample" --rate 500 --queue 1000 --wait-subscribers 2 --linger 60
  "$lnetcap" --from "$(uri d)" -w "$tmp/slow.pcapng" >"$tmp/slow.out" 2>"$tmp/slow.err" &
  slow=$!
  wait_for_log "$tmp/d.log" "subscriber 1 ("
  kill -STOP "$slow"
  timeout 60 "$lnetcap" --from "$(uri d)" -w "$tmp/fast.pcapng" >"$tmp/fast.out" 2>"$tmp/fast.err" &
  fast=$!
  # Continue it once its queue overflowed, well before the 5.8 s replay ends.
  wait_for_log "$tmp/d.log" "subscriber 2 ("
  wait_for 60 "lnetcapd to drop records for the stopped subscriber" \
    status_at_least d "records dropped for subscribers" 1
  kill -CONT "$slow"
  rc=0; wait "$fast" || rc=$?
  [ "$rc" = 0 ] || { cat "$tmp/fast.err" >&2; fail "the fast subscriber exited $rc"; }
  rc=0; wait "$slow" || rc=$?
  [ "$rc" = 0 ] || { cat "$tmp/slow.err" >&2; fail "the stopped subscriber exited $rc"; }
  daemon_exit d
  expect_exit 0 direct "$lnetcap" -r "$socklnd_sample" -w "$tmp/direct.pcapng"
  same_packets "$tmp/fast.pcapng" "$tmp/direct.pcapng"
  [ "$(packets "$tmp/fast.pcapng" | wc -l)" -eq $total ] || fail "the fast subscriber lost records"
  got=$(packets "$tmp/slow.pcapng" | wc -l)
  dropped=$(sed -n 's/^\([0-9]*\) messages dropped by lnetcapd.*/\1/p' "$tmp/slow.err")
  [ -n "$dropped" ] && [ "$dropped" -gt 0 ] || fail "the stopped subscriber reports no drops: $(cat "$tmp/slow.err")"
  [ $((got + dropped)) -eq $total ] || fail "received $got + dropped $dropped != $total"
  contains "$tmp/d.log" "$total matched, $got sent, $dropped dropped"
  # What it did receive is the direct conversion's records, in order.
  packets "$tmp/slow.pcapng" >"$tmp/slow.txt"
  packets "$tmp/direct.pcapng" | grep -Fxf "$tmp/slow.txt" | cmp -s - "$tmp/slow.txt" ||
    fail "the stopped subscriber's records are not a subsequence of the direct conversion"
  # The gap is in its pcapng: epb_dropcount before later records (lnetcap
  # -r sums them), and every drop in the ISB's isb_ifdrop.
  "$lnetcap" -r "$tmp/slow.pcapng" -q >/dev/null 2>"$tmp/reread.err"
  in_epbs=$(sed -n 's/.*the capture reports \([0-9]*\) messages dropped.*/\1/p' "$tmp/reread.err")
  [ -n "$in_epbs" ] && [ "$in_epbs" -gt 0 ] && [ "$in_epbs" -le "$dropped" ] ||
    fail "epb_dropcount in the stopped subscriber's file: '$in_epbs' (of $dropped)"
  in_isb=$(python3 - "$tmp/slow.pcapng" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
off, drops = 0, 0
while off + 12 <= len(d):
    btype, blen = struct.unpack_from("<II", d, off)
    if btype == 5:  # Interface Statistics Block: options after id + timestamp
        o = off + 20
        while o + 4 <= off + blen - 4:
            code, olen = struct.unpack_from("<HH", d, o)
            if code == 0:
                break
            if code == 5:  # isb_ifdrop
                drops += struct.unpack_from("<Q", d, o + 4)[0]
            o += 4 + (olen + 3) // 4 * 4
    off += blen
print(drops)
PY
)
  [ "$in_isb" = "$dropped" ] || fail "isb_ifdrop says $in_isb, the subscriber counted $dropped"
  echo "stopped subscriber: $got received, $dropped dropped ($in_epbs as epb_dropcount gaps), fast one: $total of $total" ;;
sd-notify)
  # Type=notify: READY=1 reaches $NOTIFY_SOCKET once the socket listens,
  # STOPPING=1 when the daemon ends.
  need "$sample"
  python3 - "$tmp/notify" >"$tmp/notify.txt" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(30)
for _ in range(2):
    print(s.recv(4096).decode().replace("\n", "|"), flush=True)
PY
  listener=$!
  wait_for_socket "$tmp/notify" 10
  NOTIFY_SOCKET=$tmp/notify "$lnetcapd" -r "$sample" --listen "$tmp/n.sock" --group "$(id -gn)" \
    --wait-subscribers 1 2>"$tmp/n.log" &
  daemons+=($!)
  wait_for_log "$tmp/notify.txt" READY 10
  contains "$tmp/notify.txt" "READY=1|STATUS=serving replay of $sample"
  [ -S "$tmp/n.sock" ] || fail "READY=1 before the socket exists"
  expect_exit 0 sub "$lnetcap" --from "$tmp/n.sock" -q
  wait "$listener" || fail "no second notification"
  contains "$tmp/notify.txt" "STOPPING=1" ;;
sigterm-ends-subscribers)
  # SIGTERM: the daemon tells every subscriber the stream ended, and both
  # exit 0 at once with what was captured so far, properly closed.
  need "$socklnd_sample"
  start_daemon d -r "$socklnd_sample" --rate 200 --wait-subscribers 1
  "$lnetcap" --from "$(uri d)" -w "$tmp/part.pcapng" 2>"$tmp/sub.err" &
  sub=$!
  # Part of the 14.5 s replay: stop it after 100 records.
  wait_for 60 "lnetcapd to take 100 records" status_at_least d "records received" 100
  kill -TERM "$d_pid"
  start=$SECONDS
  daemon_exit d
  rc=0; wait "$sub" || rc=$?
  [ "$rc" = 0 ] || { cat "$tmp/sub.err" >&2; fail "the subscriber exited $rc"; }
  [ $((SECONDS - start)) -lt 5 ] || fail "the subscriber took $((SECONDS - start)) s to notice the end"
  n=$(packets "$tmp/part.pcapng" | wc -l)
  [ "$n" -gt 0 ] && [ "$n" -lt 2910 ] || fail "expected part of the replay, got $n records"
  "$lnetcap" -r "$tmp/part.pcapng" -q >/dev/null 2>&1 || fail "the partial file does not read back" ;;
socket-permissions)
  need "$sample"
  group=$(getent group daemon >/dev/null && echo daemon || id -gn)
  "$lnetcapd" -r "$sample" --listen "$tmp/p.sock" --group "$group" --wait-subscribers 1 2>"$tmp/p.log" &
  daemons+=($!)
  wait_for_socket "$tmp/p.sock" 10
  [ "$(stat -c %a "$tmp/p.sock")" = 660 ] || fail "socket mode $(stat -c %a "$tmp/p.sock"), wanted 660"
  [ "$(stat -c %G "$tmp/p.sock")" = "$group" ] || fail "socket group $(stat -c %G "$tmp/p.sock"), wanted $group"
  # A user outside the group is told at once that the socket refuses him
  # (ZeroMQ alone would connect in the background and time out after 5 s).
  as_nobody=(setpriv --reuid nobody --regid nogroup --clear-groups)
  if [ "$(id -u)" = 0 ] && "${as_nobody[@]}" "$lnetcap" --version >/dev/null 2>&1 &&
     ! id -nG nobody | grep -qw "$group"; then
    chmod 711 "$tmp"  # the directory may be searched; the socket's mode decides
    start=$(date +%s%N)
    expect_exit 1 outsider "${as_nobody[@]}" \
      "$lnetcap" --from "ipc://$tmp/p.sock" -c 1
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    contains "$tmp/outsider.err" "permission denied on lnetcapd's socket $tmp/p.sock"
    contains "$tmp/outsider.err" "group '$group'"
    [ "$ms" -lt 4000 ] || fail "the outsider was told after $ms ms, not at once"
    chmod 700 "$tmp"
  fi
  expect_exit 1 nogroup "$lnetcapd" -r "$sample" --listen "$tmp/q.sock" --group no-such-group-lnetcap
  contains "$tmp/nogroup.err" "group 'no-such-group-lnetcap' does not exist" ;;
tcp-needs-consent)
  need "$sample"
  expect_exit 1 tcp "$lnetcapd" -r "$sample" --listen tcp://127.0.0.1:7988
  contains "$tmp/tcp.err" "refusing to listen on tcp://127.0.0.1:7988 without authentication"
  contains "$tmp/tcp.err" "give --authorized-keys FILE" ;;
curve-authorized-and-refused)
  need "$sample"
  expect_exit 0 good_key "$lnetcapd" --gen-key "$tmp/good.key"
  expect_exit 0 bad_key "$lnetcapd" --gen-key "$tmp/bad.key"
  good_pub=$(cat "$tmp/good_key.out") bad_pub=$(cat "$tmp/bad_key.out")
  [ "$(stat -c %a "$tmp/good.key")" = 600 ] || fail "client key file is not mode 0600"
  contains "$tmp/good.key" "public-key $good_pub"
  printf '# analysts\n%s alice@example\n\n' "$good_pub" >"$tmp/authorized"
  # First start: the daemon makes its key pair (0600) and names its public key.
  start_curve_daemon c -r "$sample" --wait-subscribers 1 --authorized-keys "$tmp/authorized" \
    --curve-key "$tmp/server.key"
  [ "$(stat -c %a "$tmp/server.key")" = 600 ] || fail "server key file is not mode 0600"
  server_pub=$(sed -n 's/^public-key //p' "$tmp/server.key")
  contains "$tmp/c.log" "server key $server_pub"
  # An unknown key: refused at the handshake (well before the 5 s answer
  # time), logged by its Z85 key; the daemon keeps waiting for (and then
  # serves) an authorized one.
  expect_exit 1 bad "$lnetcap" --from "$c_uri" --curve-key "$tmp/bad.key" --server-key "$server_pub" -w "$tmp/bad.pcapng"
  contains "$tmp/bad.err" "lnetcapd at $c_uri refused the CurveZMQ handshake"
  contains "$tmp/bad.err" "is your public key (in $tmp/bad.key) in its authorized-keys file"
  [ ! -s "$tmp/bad.pcapng" ] || fail "a refused subscriber wrote records"
  contains "$tmp/c.log" "key $bad_pub is not authorized"
  expect_exit 0 good "$lnetcap" --from "$c_uri" --curve-key "$tmp/good.key" --server-key "$tmp/server.key" -w "$tmp/good.pcapng"
  expect_exit 0 direct "$lnetcap" -r "$sample" -w "$tmp/direct.pcapng"
  same_packets "$tmp/good.pcapng" "$tmp/direct.pcapng"
  daemon_exit c
  contains "$tmp/c.log" "149 matched, 149 sent, 0 dropped" ;;
config-file)
  # Every setting from the file; the command line overrides the file.
  need "$sample"; need "$socklnd_sample"
  cat >"$tmp/lnetcapd.conf" <<CONF
# the daemon of this test
[source]
read = $sample
[listen]
endpoints = ipc://$tmp/conf.sock
group = $(id -gn)
node = from-the-file
[subscribers]
wait-subscribers = 1
CONF
  "$lnetcapd" --config "$tmp/lnetcapd.conf" 2>"$tmp/conf.log" & daemons+=($!); conf_pid=$!
  expect_exit 0 sub "$lnetcap" --from "$(uri conf)" -w "$tmp/sub.pcapng"
  expect_exit 0 direct "$lnetcap" -r "$sample" -w "$tmp/direct.pcapng"
  same_packets "$tmp/sub.pcapng" "$tmp/direct.pcapng"
  daemon_exit conf
  grep -aq from-the-file "$tmp/sub.pcapng" || fail "[listen] node is not in the subscriber's interface descriptions"
  # -r and --listen on the command line replace [source] read and [listen] endpoints.
  rm -f "$tmp/conf.sock"
  "$lnetcapd" --config "$tmp/lnetcapd.conf" -r "$socklnd_sample" --listen "ipc://$tmp/cli.sock" 2>"$tmp/cli.log" & daemons+=($!); cli_pid=$!
  wait_for_socket "$tmp/cli.sock" 10
  [ ! -e "$tmp/conf.sock" ] || fail "the file's endpoint was bound although --listen replaced it"
  expect_exit 0 sub2 "$lnetcap" --from "$(uri cli)" -w "$tmp/sub2.pcapng"
  expect_exit 0 direct2 "$lnetcap" -r "$socklnd_sample" -w "$tmp/direct2.pcapng"
  same_packets "$tmp/sub2.pcapng" "$tmp/direct2.pcapng"
  daemon_exit cli ;;
config-errors)
  # A bad line, group, key or value: one message naming file, line and key, exit 1.
  # The file text is an argument, never piped in: a function on the right
  # of a pipe runs in a subshell (issue 23).
  bad_config() {  # bad_config NAME FILE-TEXT (printf %b) WANTED-MESSAGE
    printf '%b' "$2" >"$tmp/$1.conf"
    expect_exit 1 "$1" "$lnetcapd" --config "$tmp/$1.conf"
    contains "$tmp/$1.err" "$3"
    contains "$tmp/$1.err" "hint: "
  }
  bad_config line '[source]\nread = x\nthis is not a setting\n' "$tmp/line.conf:3: 'this is not a setting' is not a [group], key = value or comment"
  bad_config nogroup 'read = x\n[source]\n' "$tmp/nogroup.conf:1: 'read' comes before any [group]"
  bad_config group '[source]\nread = x\n\n[sauce]\nread = y\n' "$tmp/group.conf:4: unknown group [sauce]"
  bad_config key '[listen]\ngroup = x\n[subscribers]\n# the bound\nqueu = 5\n' "$tmp/key.conf:5: [subscribers] queu: unknown key"
  bad_config number '[subscribers]\nqueue = five\n' "$tmp/number.conf:2: [subscribers] queue: 'five' is not a number from 1 to 10000000"
  bad_config bool '[security]\nallow-insecure-tcp = maybe\n' "$tmp/bool.conf:2: [security] allow-insecure-tcp: 'maybe' is not a boolean"
  bad_config filter '[source]\nfilter = type pot\n' "$tmp/filter.conf:2: [source] filter: filter: unknown LNet message type (expected put, get, ack, reply or hello) at column 6 ('pot')"
  bad_config attach '[source]\nattach = kretprobe\n' "$tmp/attach.conf:2: [source] attach: 'kretprobe' is not an attach mode"
  expect_exit 1 missing "$lnetcapd" --config "$tmp/absent.conf"
  contains "$tmp/missing.err" "cannot read config file $tmp/absent.conf"
  # The shipped example parses.
  expect_exit 0 example "$lnetcapd" --config "$src/packaging/lnetcapd.conf" --version
  # --no-config after --config: no file is read.
  expect_exit 0 none "$lnetcapd" --config "$tmp/absent.conf" --no-config --version ;;
config-reload)
  # SIGHUP re-reads the file: new authorized keys apply at once; what needs
  # a restart is named; a broken file changes nothing.
  need "$sample"
  expect_exit 0 k1 "$lnetcapd" --gen-key "$tmp/one.key"
  expect_exit 0 k2 "$lnetcapd" --gen-key "$tmp/two.key"
  expect_exit 0 ks "$lnetcapd" --gen-key "$tmp/server.key"
  cat "$tmp/k1.out" >"$tmp/authorized"
  write_config() {
    cat >"$tmp/lnetcapd.conf" <<CONF
[source]
read = $sample
rate = 5
[listen]
endpoints = tcp://127.0.0.1:*
node = $1
[security]
authorized-keys = $tmp/authorized
curve-key = $tmp/server.key
CONF
  }
  write_config first
  "$lnetcapd" --config "$tmp/lnetcapd.conf" 2>"$tmp/r.log" & daemons+=($!); r_pid=$!
  wait_for_log "$tmp/r.log" "with CurveZMQ"
  r_uri=$(sed -n 's/.* on \(tcp:[^ ]*\) with CurveZMQ.*/\1/p' "$tmp/r.log")
  expect_exit 1 refused "$lnetcap" --from "$r_uri" --curve-key "$tmp/two.key" --server-key "$tmp/server.key" -c 1 -q
  contains "$tmp/refused.err" "refused the CurveZMQ handshake"
  cat "$tmp/k2.out" >>"$tmp/authorized"
  write_config second
  kill -HUP "$r_pid"
  wait_for_log "$tmp/r.log" "reloaded $tmp/lnetcapd.conf"
  contains "$tmp/r.log" "reload: 2 authorized keys from $tmp/authorized"
  contains "$tmp/r.log" "reload: not applied, restart lnetcapd for: [listen] node"
  expect_exit 0 admitted "$lnetcap" --from "$r_uri" --curve-key "$tmp/two.key" --server-key "$tmp/server.key" -c 1 -q
  [ "$(wc -l <"$tmp/admitted.out")" -eq 1 ] || fail "the newly authorized key got no record"
  # A broken file on reload: logged, the daemon keeps serving as before.
  printf '[security]\nauthorised-keys = x\n' >"$tmp/lnetcapd.conf"
  kill -HUP "$r_pid"
  wait_for_log "$tmp/r.log" "reload of $tmp/lnetcapd.conf failed, nothing changed: $tmp/lnetcapd.conf:2: [security] authorised-keys: unknown key"
  kill -0 "$r_pid" 2>/dev/null || fail "a broken config on reload stopped the daemon"
  expect_exit 0 still "$lnetcap" --from "$r_uri" --curve-key "$tmp/two.key" --server-key "$tmp/server.key" -c 1 -q
  kill "$r_pid"; daemon_exit r ;;
anonymize-forced)
  # [subscribers] anonymize-users forces this user's subscriptions through
  # the anonymizer: what it gets equals `lnetcap --anonymize` with the same
  # key, record for record; no real NID reaches it, not even by filtering.
  need "$sample"
  real_nids=$("$lnetcap" -r "$sample" 2>/dev/null | grep -oE '[0-9]+(\.[0-9]+){3}@tcp[0-9]*' | sort -u)
  [ -n "$real_nids" ] || fail "no NIDs in $sample"
  forced_config() {  # forced_config USERS
    printf '[subscribers]\nanonymize-users = %s\nanonymize-key = %s\n' "$1" "$tmp/anon.key" >"$tmp/anon.conf"
  }
  no_real_nids() {  # no_real_nids CAPTURE
    "$lnetcap" -r "$1" >"$tmp/check.txt" 2>&1 || fail "cannot read $1"
    [ "$(wc -l <"$tmp/check.txt")" -gt 1 ] || fail "$1 is empty"
    for nid in $real_nids; do
      ! grep -qF "$nid" "$tmp/check.txt" || fail "real NID $nid reached a forced subscriber (text of $1)"
      ! grep -aqF "$nid" "$1" || fail "real NID $nid is in $1's bytes"
    done
  }
  forced_config "$(id -un)"
  start_daemon d -r "$sample" --config "$tmp/anon.conf" --wait-subscribers 1
  expect_exit 0 sub "$lnetcap" --from "$(uri d)" -w "$tmp/sub.pcapng"
  daemon_exit d
  no_real_nids "$tmp/sub.pcapng"
  expect_exit 0 direct "$lnetcap" -r "$sample" --anonymize --anon-key "$tmp/anon.key" -w "$tmp/direct.pcapng"
  same_packets "$tmp/sub.pcapng" "$tmp/direct.pcapng"
  contains "$tmp/d.log" "anonymized by anonymize-users"
  # A filter naming a real NID matches nothing: the filter sees pseudonyms.
  first_nid=$(echo "$real_nids" | head -1)
  start_daemon o -r "$sample" --config "$tmp/anon.conf" --wait-subscribers 1
  expect_exit 0 oracle "$lnetcap" --from "$(uri o)" -q nid "$first_nid"
  [ ! -s "$tmp/oracle.out" ] || fail "a forced subscriber's filter matched the real NID $first_nid"
  daemon_exit o
  # Another user is not forced (the control: the same daemon config shape).
  forced_config nobody
  start_daemon n -r "$sample" --config "$tmp/anon.conf" --wait-subscribers 1
  expect_exit 0 plain "$lnetcap" --from "$(uri n)" -w "$tmp/plain.pcapng"
  daemon_exit n
  expect_exit 0 real "$lnetcap" -r "$sample" -w "$tmp/real.pcapng"
  same_packets "$tmp/plain.pcapng" "$tmp/real.pcapng" ;;
anonymize-reload)
  # SIGHUP applies a new anonymize policy to the next subscription.
  need "$sample"
  printf '[subscribers]\nanonymize-users = nobody\nanonymize-key = %s\n' "$tmp/anon.key" >"$tmp/anon.conf"
  start_daemon d -r "$sample" --config "$tmp/anon.conf" --rate 20
  expect_exit 0 before "$lnetcap" --from "$(uri d)" -c 3
  grep -qF "10.0.3." "$tmp/before.out" || fail "an unforced subscriber did not get the real NIDs"
  printf '[subscribers]\nanonymize-users = nobody;%s\nanonymize-key = %s\n' "$(id -un)" "$tmp/anon.key" >"$tmp/anon.conf"
  kill -HUP "$d_pid"
  wait_for_log "$tmp/d.log" "reload: anonymize policy applied"
  expect_exit 0 after "$lnetcap" --from "$(uri d)" -c 3
  ! grep -qF "10.0.3." "$tmp/after.out" || fail "after the reload a forced subscriber got real NIDs: $(head -1 "$tmp/after.out")"
  [ "$(wc -l <"$tmp/after.out")" -eq 3 ] || fail "after the reload: $(wc -l <"$tmp/after.out") records, wanted 3"
  kill "$d_pid"; daemon_exit d ;;
extcap-unprivileged)
  # Wireshark's way in, without privileges: a real tshark, as an
  # unprivileged user, captures from the extcap interface "lnetcapd"; its
  # capture filter becomes the subscription's and runs in the daemon.
  need "$sample"
  command -v tshark >/dev/null || skip "tshark not installed"
  . "$src/tests/support/tshark-user.sh"
  lnetcap_tshark_user
  chmod 755 "$tmp"
  mkdir -p "$tmp/conf/extcap"
  # The build tree may be out of the unprivileged user's reach: a copy.
  cp "$lnetcap" "$tmp/lnetcap"
  printf '#!/bin/sh\nexec "%s" "$@"\n' "$tmp/lnetcap" >"$tmp/conf/extcap/lnetcap"
  chmod -R a+rX "$tmp" && chmod 755 "$tmp/conf/extcap/lnetcap"
  user_group=$(id -gn); user_uid=$(id -u)
  if [ -n "${RUNAS[*]}" ]; then
    chown -R lnetcap-test "$tmp"
    user_group=$(id -gn lnetcap-test); user_uid=$(id -u lnetcap-test)
  fi
  # The daemon is root's; only the socket's group lets the user in.  Its
  # directory is the daemon's own (one the user owns is refused, as sshd's
  # StrictModes: the user could replace the socket).
  mkdir -m 755 "$tmp/run"
  "$lnetcapd" --listen "ipc://$tmp/run/d.sock" --group "$user_group" -r "$sample" --wait-subscribers 1 2>"$tmp/d.log" &
  daemons+=($!); d_pid=$!
  wait_for_socket "$tmp/run/d.sock" 10
  env=(env HOME="$tmp" WIRESHARK_CONFIG_DIR="$tmp/conf" TZ=UTC)
  "${RUNAS[@]}" "${env[@]}" tshark -D >"$tmp/ifaces.out" 2>"$tmp/ifaces.err" || fail "tshark -D: $(cat "$tmp/ifaces.err")"
  contains "$tmp/ifaces.out" "lnetcapd (LNet messages through lnetcapd (no privileges))"
  "${RUNAS[@]}" "${env[@]}" timeout 60 tshark -i lnetcapd -o "extcap.lnetcapd.from:ipc://$tmp/run/d.sock" \
    -f 'opcode LDLM_ENQUEUE' -a duration:30 -w "$tmp/ws.pcapng" >"$tmp/ws.out" 2>"$tmp/ws.err" ||
    fail "tshark -i lnetcapd: $(cat "$tmp/ws.err")"
  daemon_exit d
  expect_exit 0 direct "$lnetcap" -r "$sample" -w "$tmp/direct.pcapng" opcode LDLM_ENQUEUE
  same_packets "$tmp/ws.pcapng" "$tmp/direct.pcapng"
  n=$(packets "$tmp/direct.pcapng" | wc -l)
  contains "$tmp/d.log" "uid $user_uid) subscribed: filter 'opcode LDLM_ENQUEUE'"
  contains "$tmp/d.log" "$n matched, $n sent, 0 dropped" ;;
anonymize-keys)
  # Over CurveZMQ the key the handshake proved decides: of two subscribers
  # served at once, the one whose key is in anonymize-keys gets pseudonyms,
  # the other the real records.
  need "$sample"
  expect_exit 0 k1 "$lnetcapd" --gen-key "$tmp/forced.key"
  expect_exit 0 k2 "$lnetcapd" --gen-key "$tmp/plain.key"
  cat "$tmp/k1.out" "$tmp/k2.out" >"$tmp/authorized"
  printf '[subscribers]\nanonymize-keys = %s\nanonymize-key = %s\n' "$(cat "$tmp/k1.out")" "$tmp/anon.key" >"$tmp/anon.conf"
  start_curve_daemon c -r "$sample" --config "$tmp/anon.conf" --wait-subscribers 2 \
    --authorized-keys "$tmp/authorized" --curve-key "$tmp/server.key"
  "$lnetcap" --from "$c_uri" --curve-key "$tmp/forced.key" --server-key "$tmp/server.key" -w "$tmp/forced.pcapng" 2>"$tmp/forced.err" &
  forced_pid=$!
  expect_exit 0 plain "$lnetcap" --from "$c_uri" --curve-key "$tmp/plain.key" --server-key "$tmp/server.key" -w "$tmp/plain.pcapng"
  wait "$forced_pid" || fail "the forced subscriber failed: $(cat "$tmp/forced.err")"
  daemon_exit c
  expect_exit 0 anon "$lnetcap" -r "$sample" --anonymize --anon-key "$tmp/anon.key" -w "$tmp/anon.pcapng"
  expect_exit 0 real "$lnetcap" -r "$sample" -w "$tmp/real.pcapng"
  same_packets "$tmp/forced.pcapng" "$tmp/anon.pcapng"
  same_packets "$tmp/plain.pcapng" "$tmp/real.pcapng"
  contains "$tmp/c.log" "key $(cat "$tmp/k1.out")) subscribed"
  contains "$tmp/c.log" "anonymized by anonymize-keys" ;;
source-filter)
  # [source] filter bounds what the daemon serves at all: a subscriber gets
  # the records both filters accept, nothing else.
  need "$sample"
  printf '[source]\nfilter = opcode LDLM_ENQUEUE\n' >"$tmp/src.conf"
  start_daemon d -r "$sample" --config "$tmp/src.conf" --wait-subscribers 2
  "$lnetcap" --from "$(uri d)" -w "$tmp/all.pcapng" 2>"$tmp/all.err" & all_pid=$!
  expect_exit 0 puts "$lnetcap" --from "$(uri d)" -w "$tmp/puts.pcapng" type put
  wait "$all_pid" || fail "the unfiltered subscriber failed: $(cat "$tmp/all.err")"
  daemon_exit d
  expect_exit 0 d1 "$lnetcap" -r "$sample" -w "$tmp/want_all.pcapng" opcode LDLM_ENQUEUE
  expect_exit 0 d2 "$lnetcap" -r "$sample" -w "$tmp/want_puts.pcapng" opcode LDLM_ENQUEUE and type put
  same_packets "$tmp/all.pcapng" "$tmp/want_all.pcapng"
  same_packets "$tmp/puts.pcapng" "$tmp/want_puts.pcapng"
  [ "$(packets "$tmp/all.pcapng" | wc -l)" -lt 149 ] || fail "the source filter let everything through" ;;
curve-key-errors)
  # A missing or unreadable key file: one clear message, before any traffic.
  expect_exit 1 nokey "$lnetcap" --from tcp://127.0.0.1:9 --curve-key "$tmp/absent.key" --server-key "$tmp/absent.pub"
  contains "$tmp/nokey.err" "cannot read key file $tmp/absent.key: No such file or directory"
  expect_exit 1 half "$lnetcap" --from tcp://127.0.0.1:9 --curve-key "$tmp/absent.key"
  contains "$tmp/half.err" "needs both --curve-key FILE and --server-key KEY"
  echo "not a key" >"$tmp/garbage.key"
  expect_exit 0 key "$lnetcapd" --gen-key "$tmp/k.key"
  expect_exit 1 garbage "$lnetcap" --from tcp://127.0.0.1:9 --curve-key "$tmp/garbage.key" --server-key "$tmp/k.key"
  contains "$tmp/garbage.err" "key file $tmp/garbage.key has no valid public-key and secret-key lines"
  expect_exit 1 again "$lnetcapd" --gen-key "$tmp/k.key"
  contains "$tmp/again.err" "cannot create key file $tmp/k.key: File exists"
  printf 'tooshort\n' >"$tmp/bad_authorized"
  expect_exit 1 authz "$lnetcapd" -r "$sample" --listen 'tcp://127.0.0.1:*' --authorized-keys "$tmp/bad_authorized" --curve-key "$tmp/k.key"
  contains "$tmp/authz.err" "$tmp/bad_authorized:1: 'tooshort' is not a 40-character Z85 public key"
  expect_exit 1 noauthz "$lnetcapd" -r "$sample" --listen 'tcp://127.0.0.1:*' --authorized-keys "$tmp/none" --curve-key "$tmp/k.key"
  contains "$tmp/noauthz.err" "cannot read authorized-keys file $tmp/none" ;;
no-daemon)
  expect_exit 1 none "$lnetcap" --from "ipc://$tmp/nobody.sock" -w "$tmp/x.pcapng"
  contains "$tmp/none.err" "no answer from lnetcapd at ipc://$tmp/nobody.sock"
  expect_exit 1 both "$lnetcap" --from local -r "$sample"
  contains "$tmp/both.err" "give no -r or -i with it" ;;
recorder-window-bytes|recorder-window-seconds)
  # The recorder holds exactly its window of a replay, and --dump returns
  # it: the newest records of a direct conversion that fit the bound.
  need "$sample"
  expect_exit 0 direct "$lnetcap" -r "$sample" -w "$tmp/direct.pcapng"
  if [ "$case" = recorder-window-bytes ]; then mode=bytes limit=40000 opt=--recorder-size
  else mode=seconds limit=7.5 opt=--recorder-seconds; fi
  start_daemon d -r "$sample" "$opt" "$limit" --keep-serving
  wait_replayed d 149
  window_slice "$mode" "$limit" "$tmp/direct.pcapng" >"$tmp/want.txt" 3>"$tmp/held.txt"
  n=$(wc -l <"$tmp/want.txt")
  [ "$n" -gt 5 ] && [ "$n" -lt 140 ] || fail "a window of $n of 149 records tests nothing"
  expect_exit 0 dump "$lnetcap" --from "$(uri d)" --dump -w "$tmp/dump.pcapng"
  packets "$tmp/dump.pcapng" >"$tmp/got.txt"
  cmp -s "$tmp/got.txt" "$tmp/want.txt" ||
    fail "the dump is not the window: $(wc -l <"$tmp/got.txt") vs $n records; $(diff "$tmp/got.txt" "$tmp/want.txt" | head -2 | cut -c1-120)"
  status d
  [ "$(status_value d "records held")" = "$n" ] || fail "status: $(cat "$tmp/d.status")"
  [ "$(status_value d "memory held (bytes)")" = "$(cat "$tmp/held.txt")" ] || fail "memory held: $(cat "$tmp/d.status"), want $(cat "$tmp/held.txt")"
  if [ $mode = bytes ]; then
    [ "$(cat "$tmp/held.txt")" -le $limit ] || fail "held more than the bound"
  else
    contains "$tmp/d.status" "keeps no size limit, 7.500 s"
    # What the records held span, newest minus oldest.
    span=$(awk 'NR == 1 { split($3, a, ".") } { split($3, b, ".") } END { printf "%.3f", (b[1] - a[1]) + (b[2] - a[2]) / 1e9 }' "$tmp/want.txt")
    [ "$(status_value d "window covered (s)")" = "$span" ] || fail "window covered: $(cat "$tmp/d.status"), want $span"
  fi
  kill -TERM "$d_pid"; daemon_exit d
  echo "window by $mode $limit: $n records, $(cat "$tmp/held.txt") bytes held" ;;
dump-equals-direct)
  # A recorder that holds the whole replay: --dump (with and without a
  # filter, any sink) equals the direct conversion; a merged dump of two
  # daemons equals mergecap; a daemon without a recorder refuses a dump.
  need "$sample"
  start_daemon d -r "$sample" --recorder-size 64M --keep-serving
  wait_replayed d 149
  expect_exit 0 direct "$lnetcap" -r "$sample" -w "$tmp/direct.pcapng"
  expect_exit 0 dump "$lnetcap" --from "$(uri d)" --dump -w "$tmp/dump.pcapng"
  same_packets "$tmp/dump.pcapng" "$tmp/direct.pcapng"
  expect_exit 0 fdirect "$lnetcap" -r "$sample" -w "$tmp/fdirect.pcapng" opcode LDLM_ENQUEUE
  expect_exit 0 fdump "$lnetcap" --from "$(uri d)" --dump -w "$tmp/fdump.pcapng" opcode LDLM_ENQUEUE
  same_packets "$tmp/fdump.pcapng" "$tmp/fdirect.pcapng"
  expect_exit 0 sdump "$lnetcap" --from "$(uri d)" --dump --summary=json
  expect_exit 0 sdirect "$lnetcap" -r "$sample" --summary=json
  cmp -s "$tmp/sdump.out" "$tmp/sdirect.out" || fail "the dump's summary differs"
  # A live subscriber still works next to dumps (old clients: SUBSCRIBE is unchanged).
  expect_exit 0 sub "$lnetcap" --from "$(uri d)" -q
  contains "$tmp/d.log" "asked for the flight recorder's 149 records"
  start_daemon plain -r "$sample" --keep-serving
  expect_exit 1 refused "$lnetcap" --from "$(uri plain)" --dump -w "$tmp/none.pcapng"
  contains "$tmp/refused.err" "this lnetcapd keeps no flight recorder"
  contains "$tmp/refused.err" "--recorder-size"
  expect_exit 1 nofrom "$lnetcap" --dump -w "$tmp/none.pcapng"
  contains "$tmp/nofrom.err" "--dump asks lnetcapd: give --from URI"
  # A dump is not a subscriber: it does not start a replay held for one.
  start_daemon w -r "$sample" --recorder-size 1M --wait-subscribers 1
  expect_exit 0 early "$lnetcap" --from "$(uri w)" --dump -q
  [ ! -s "$tmp/early.out" ] || fail "a dump before the replay started got records"
  status w
  [ "$(status_value w "records received")" = 0 ] && [ "$(status_value w subscribers)" = 0 ] ||
    fail "the dump started the replay: $(cat "$tmp/w.status")"
  kill -TERM "$d_pid" "$plain_pid" "$w_pid"; daemon_exit d; daemon_exit plain; daemon_exit w ;;
trigger-window)
  # The one error reply of the sample triggers a file holding exactly the
  # records from 2 s before it to 1 s after it.
  need "$sample"
  expect_exit 0 direct "$lnetcap" -r "$sample" -w "$tmp/direct.pcapng"
  expect_exit 0 match "$lnetcap" -r "$sample" -w "$tmp/match.pcapng" 'status < 0'
  [ "$(packets "$tmp/match.pcapng" | wc -l)" -eq 1 ] || fail "the sample should have one error reply"
  t=$(packets "$tmp/match.pcapng" | awk '{ print $3 }')
  mkdir "$tmp/incidents"
  start_daemon d -r "$sample" --trigger 'status < 0' --trigger-dir "$tmp/incidents" \
    --trigger-before 2 --trigger-after 1 --node n1 --keep-serving
  wait_replayed d 149
  packets "$tmp/direct.pcapng" | python3 -c '
import sys
def ns(t):
    s, f = t.split(".")
    return int(s) * 10**9 + int(f)
m = ns(sys.argv[1])
for l in sys.stdin:
    if m - 2 * 10**9 <= ns(l.split()[2]) <= m + 10**9: print(l, end="")
' "$t" >"$tmp/want.txt"
  files=("$tmp"/incidents/*.pcapng)
  [ "${#files[@]}" -eq 1 ] && [ -f "${files[0]}" ] || fail "expected one trigger file: ${files[*]}"
  case "${files[0]}" in */n1-*T*Z-*.pcapng) ;; *) fail "trigger file name ${files[0]}" ;; esac
  packets "${files[0]}" >"$tmp/got.txt"
  n=$(wc -l <"$tmp/want.txt")
  [ "$n" -gt 3 ] && [ "$n" -lt 149 ] || fail "a window of $n records tests nothing"
  cmp -s "$tmp/got.txt" "$tmp/want.txt" || fail "trigger file: $(wc -l <"$tmp/got.txt") records, want $n"
  contains "$tmp/d.log" "wrote ${files[0]} ($n records)"
  status d
  [ "$(status_value d "triggers fired")" = 1 ] && [ "$(status_value d "trigger files written")" = 1 ] &&
    [ "$(status_value d "trigger files skipped")" = 0 ] || fail "status: $(cat "$tmp/d.status")"
  kill -TERM "$d_pid"; daemon_exit d ;;
trigger-storm-limited)
  # Every request triggers (a storm): at most 3 files a minute (the sample
  # spans 59 s), the rest counted as skipped, in the log and --status.
  need "$sample"
  requests=$("$lnetcap" -r "$sample" -q 'rpc request' 2>/dev/null | wc -l)
  [ "$requests" -gt 10 ] || fail "too few requests for a storm"
  mkdir "$tmp/incidents"
  start_daemon d -r "$sample" --trigger 'rpc request' --trigger-dir "$tmp/incidents" \
    --trigger-before 1 --trigger-after 0.5 --trigger-max-per-minute 3 --keep-serving
  wait_replayed d 149
  status d
  [ "$(status_value d "triggers fired")" = "$requests" ] || fail "status: $(cat "$tmp/d.status")"
  [ "$(status_value d "trigger files written")" = 3 ] || fail "status: $(cat "$tmp/d.status")"
  [ "$(status_value d "trigger files skipped")" = $((requests - 3)) ] || fail "status: $(cat "$tmp/d.status")"
  [ "$(ls "$tmp/incidents" | wc -l)" -eq 3 ] || fail "files: $(ls "$tmp/incidents")"
  contains "$tmp/d.log" "no file (at most 3 a minute)"
  for f in "$tmp"/incidents/*; do "$lnetcap" -r "$f" -q >/dev/null 2>&1 || fail "$f does not read back"; done
  kill -TERM "$d_pid"; daemon_exit d ;;
recorder-config)
  # [recorder] and [metrics] in the config file: the daemon runs with them
  # (--status shows them, a dump works, metrics answer); bad values are
  # refused with file, line and key.
  need "$sample"
  mkdir "$tmp/incidents"
  cat >"$tmp/r.conf" <<CONF
[recorder]
size = 40000
seconds = 30
trigger = status < 0
trigger-dir = $tmp/incidents
trigger-max-per-minute = 2
[metrics]
listen = 127.0.0.1:0
max-label-values = 8
CONF
  start_daemon d --config "$tmp/r.conf" -r "$sample" --keep-serving
  wait_replayed d 149
  expect_eq "flight recorder in --status" "$(status_value d "flight recorder")" "keeps 40000 bytes, 30.000 s"
  expect_eq "trigger in --status" "$(status_value d trigger)" "'status < 0', files in $tmp/incidents"
  [ "$(status_value d "trigger files written")" = 1 ] || fail "status: $(cat "$tmp/d.status")"
  address=$(status_value d metrics)
  case "$address" in http://127.0.0.1:[1-9]*/metrics) ;; *) fail "metrics at '$address'" ;; esac
  python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$address" >"$tmp/metrics.txt" ||
    fail "no answer from $address"
  contains "$tmp/metrics.txt" "lnetcap_label_values_limit 8"
  contains "$tmp/metrics.txt" "lnetcap_trigger_files_written_total 1"
  expect_exit 0 dump "$lnetcap" --from "$(uri d)" --dump -q
  [ "$(wc -l <"$tmp/dump.out")" = "$(status_value d "records held")" ] || fail "dump of $(wc -l <"$tmp/dump.out") records"
  kill -TERM "$d_pid"; daemon_exit d
  printf '[recorder]\nsize = 1k\n' >"$tmp/small.conf"
  expect_exit 1 small "$lnetcapd" --config "$tmp/small.conf" -r "$sample"
  contains "$tmp/small.err" "$tmp/small.conf:2: [recorder] size: invalid size '1k'"
  printf '[metrics]\nlisten = 127.0.0.1:0\n[recorder]\n\ntrigger = type pot\n' >"$tmp/trig.conf"
  expect_exit 1 trig "$lnetcapd" --config "$tmp/trig.conf" -r "$sample"
  contains "$tmp/trig.err" "$tmp/trig.conf:5: [recorder] trigger: filter: "
  contains "$tmp/trig.err" "'pot'" ;;
dump-anonymized)
  # A subscriber forced through the anonymizer gets its dumps anonymized
  # too: equal to lnetcap --anonymize with the daemon's key, no real NID,
  # and its filter sees only pseudonyms.
  need "$sample"
  printf '[subscribers]\nanonymize-users = %s\nanonymize-key = %s\n' "$(id -un)" "$tmp/anon.key" >"$tmp/anon.conf"
  mkdir "$tmp/inc"  # a trigger naming a real NID: --status must not show it to this user
  start_daemon d -r "$sample" --config "$tmp/anon.conf" --recorder-size 64M --keep-serving \
    --trigger 'nid 10.0.3.1@tcp and status < 0' --trigger-dir "$tmp/inc"
  wait_replayed d 149
  expect_exit 0 dump "$lnetcap" --from "$(uri d)" --dump -w "$tmp/dump.pcapng"
  expect_exit 0 direct "$lnetcap" -r "$sample" --anonymize --anon-key "$tmp/anon.key" -w "$tmp/direct.pcapng"
  same_packets "$tmp/dump.pcapng" "$tmp/direct.pcapng"
  for nid in $("$lnetcap" -r "$sample" 2>/dev/null | grep -oE '[0-9]+(\.[0-9]+){3}@tcp[0-9]*' | sort -u); do
    ! grep -aqF "$nid" "$tmp/dump.pcapng" || fail "real NID $nid is in the dump"
    expect_exit 0 oracle "$lnetcap" --from "$(uri d)" --dump -q nid "$nid"
    [ ! -s "$tmp/oracle.out" ] || fail "a forced dump's filter matched the real NID $nid"
  done
  status d
  expect_eq "records held in --status" "$(status_value d "records held")" 149
  check "a forced user sees the trigger without its filter" grep -Eq "^  trigger: +on \(its filter is not shown" "$tmp/d.status"
  for nid in $("$lnetcap" -r "$sample" 2>/dev/null | grep -oE '[0-9]+(\.[0-9]+){3}@tcp[0-9]*' | sort -u); do
    ! grep -qF "$nid" "$tmp/d.status" || fail "real NID $nid in a forced user's --status"
  done
  kill -TERM "$d_pid"; daemon_exit d ;;
dump-source-filter)
  # [source] filter bounds what the daemon keeps too: the recorder holds
  # (and a dump returns) only what it would serve.
  need "$sample"
  printf '[source]\nfilter = opcode LDLM_ENQUEUE\n' >"$tmp/sf.conf"
  start_daemon d --config "$tmp/sf.conf" -r "$sample" --recorder-size 64M --keep-serving
  wait_replayed d 149
  expect_exit 0 dump "$lnetcap" --from "$(uri d)" --dump -w "$tmp/dump.pcapng"
  expect_exit 0 direct "$lnetcap" -r "$sample" -w "$tmp/direct.pcapng" opcode LDLM_ENQUEUE
  same_packets "$tmp/dump.pcapng" "$tmp/direct.pcapng"
  kill -TERM "$d_pid"; daemon_exit d ;;
*) fail "unknown case" ;;
esac
echo "PASS [$case]"
