#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ring_test.sh BUILD_DIR SOURCE_DIR CASE - the shared-memory ring of local
# subscribers (docs/DAEMON.md "Fan-out"), end to end through the real
# daemon and subscribers; what they get is compared record for record with
# the direct capture (tests/tools/pcap_dump), and the daemon's log says
# how many records each read through the ring.
#   ring-foreign-token      a user with a token that is not outstanding is
#                           refused (logged, escaped), and another user
#                           (uid 65534) subscribing itself reads its ring
#   ring-idle-connections   40 connections to PATH.ring that send nothing:
#                           honest subscribers get exactly the direct capture
#   ring-anonymized-beside-plain  a forced (anonymized) and a plain user side
#                           by side, each through its own class's ring: the
#                           plain one equals the capture, the anonymized one
#                           `lnetcap --anonymize` and holds no real NID
#   ring-status             --status names the rings, their memory and readers
# Cases that run a user other than root need root and setpriv (skip: 77).
set -uo pipefail
build=$1 src=$2 case=$3
lnetcap=$build/capture/lnetcap
lnetcapd=$build/capture/lnetcapd
pcap_dump=$build/tests/pcap_dump
socklnd_sample=$src/samples/lnet-socklnd.pcapng
export TZ=UTC LC_ALL=C
TEST_CASE=$case
. "$src/tests/support/testlib.sh"
tmp=$(mktemp -d /tmp/lnetcapd-ring.XXXXXX)
chmod 755 "$tmp"  # other users reach the socket (its mode and group decide)
mkdir -m 1777 "$tmp/out"
daemons=()
cleanup() {
  for pid in "${daemons[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$tmp"
}
on_exit cleanup
on_fail 'for f in "$tmp"/*.log "$tmp"/*.err; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done'

. "$src/tests/daemon/packets-lib.sh"
start_daemon() {  # start_daemon NAME ARGS...: on ipc://$tmp/NAME.sock, log NAME.log
  local name=$1; shift
  "$lnetcapd" --listen "ipc://$tmp/$name.sock" "$@" 2>"$tmp/$name.log" &
  daemons+=($!)
  eval "${name}_pid=$!"
  wait_for_socket "$tmp/$name.sock" 10
}
daemon_exit() {
  local pid_var=${1}_pid rc=0
  wait "${!pid_var}" || rc=$?
  expect_eq "lnetcapd $1 exit status" "$rc" 0
}
uri() { echo "ipc://$tmp/$1.sock"; }
as_nobody() {
  [ "$(id -u)" = 0 ] || skip "needs root to run a subscriber as another user"
  command -v setpriv >/dev/null || skip "setpriv missing"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}
# A replay long enough that every subscriber's handover is done early in it.
big_replay() {
  need_file "$socklnd_sample"
  command -v editcap >/dev/null && command -v mergecap >/dev/null || skip "editcap/mergecap missing"
  for i in 0 1 2 3 4 5 6 7 8 9; do editcap -t $((i * 100)) "$socklnd_sample" "$tmp/part$i.pcapng" 2>/dev/null; done
  mergecap -a -w "$tmp/big.pcapng" "$tmp"/part?.pcapng
  "$lnetcap" -r "$tmp/big.pcapng" -w "$tmp/direct.pcapng" 2>"$tmp/direct.err" || fail "direct capture failed"
  total=$(packets "$tmp/direct.pcapng" | wc -l)
}
# ring_client PATH SECONDS COUNT [TOKEN_HEX]: COUNT connections to PATH, each
# sending TOKEN (nothing when empty) and held SECONDS; prints how many got
# anything back.
ring_client() {
  python3 - "$@" <<'EOF'
import socket, sys, time
path, secs, count = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
token = bytes.fromhex(sys.argv[4]) if len(sys.argv) > 4 else b""
conns = []
for _ in range(count):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    if token:
        s.sendall(token)
    conns.append(s)
got = 0
deadline = time.time() + secs
for s in conns:
    s.settimeout(max(0.1, deadline - time.time()))
    try:
        msg, anc, flags, addr = s.recvmsg(16, socket.CMSG_SPACE(8))
        got += 1 if (msg or anc) else 0
    except OSError:
        pass
time.sleep(max(0, deadline - time.time()))
print(got)
EOF
}

case $case in
ring-foreign-token)
  big_replay
  start_daemon d -r "$tmp/big.pcapng" --group nogroup --wait-subscribers 2
  # Nobody made an offer with this token: refused, whoever sends it.
  got=$(as_nobody bash -c "$(declare -f ring_client); ring_client '$tmp/d.sock.ring' 3 1 00112233445566778899aabbccddeeff")
  expect_eq "descriptors handed to a token nobody was offered" "$got" 0
  wait_for_log "$tmp/d.log" "refused a ring handover to uid 65534: no such token outstanding" 10
  # uid 65534 subscribing itself is handed its own ring; root beside it too.
  as_nobody timeout 60 "$lnetcap" --from "$(uri d)" -w "$tmp/out/nobody.pcapng" 2>"$tmp/nobody.err" & p1=$!
  timeout 60 "$lnetcap" --from "$(uri d)" -w "$tmp/out/root.pcapng" 2>"$tmp/root.err" & p2=$!
  wait $p1 || fail "the subscriber of uid 65534 failed"
  wait $p2 || fail "root's subscriber failed"
  daemon_exit d
  same_packets "$tmp/out/nobody.pcapng" "$tmp/direct.pcapng"
  same_packets "$tmp/out/root.pcapng" "$tmp/direct.pcapng"
  [ "$(grep -cE "$total matched, $total sent, 0 dropped \([1-9][0-9]* through the shared-memory ring\)" "$tmp/d.log")" -eq 2 ] ||
    fail "not both subscribers read the ring: $(grep matched "$tmp/d.log")" ;;
ring-idle-connections)
  # 40 connections that send nothing: 32 wait at most 2 s each, the rest
  # are closed at once; the daemon serves its subscribers all the while
  # (those who come meanwhile keep SHARED_BATCH), and once the idle ones
  # are timed out the next subscriber is handed its ring.
  big_replay
  start_daemon d -r "$tmp/big.pcapng" --group "$(id -gn)" --wait-subscribers 5
  ring_client "$tmp/d.sock.ring" 6 40 >"$tmp/idle.out" & idle=$!
  sleep 0.5
  pids=()
  for i in 1 2 3 4; do
    timeout 60 "$lnetcap" --from "$(uri d)" -w "$tmp/sub$i.pcapng" 2>"$tmp/sub$i.err" & pids+=($!)
  done
  sleep 3
  timeout 60 "$lnetcap" --from "$(uri d)" -w "$tmp/sub5.pcapng" 2>"$tmp/sub5.err" & pids+=($!)
  for p in "${pids[@]}"; do wait "$p" || fail "a subscriber failed beside the idle connections"; done
  wait $idle
  expect_eq "idle connections handed anything" "$(cat "$tmp/idle.out")" 0
  daemon_exit d
  for i in 1 2 3 4 5; do same_packets "$tmp/sub$i.pcapng" "$tmp/direct.pcapng"; done
  [ "$(grep -c "$total matched, $total sent, 0 dropped" "$tmp/d.log")" -eq 5 ] || fail "records lost: $(grep matched "$tmp/d.log")"
  contains "$tmp/d.log" "handovers are in progress already"
  grep -qE "$total matched, $total sent, 0 dropped \([1-9][0-9]* through the shared-memory ring\)" "$tmp/d.log" ||
    fail "no subscriber was handed a ring after the idle connections timed out" ;;
ring-anonymized-beside-plain)
  big_replay
  real_nids=$("$lnetcap" -r "$socklnd_sample" 2>/dev/null | grep -oE '[0-9]+(\.[0-9]+){3}@tcp[0-9]*' | sort -u)
  [ -n "$real_nids" ] || fail "no NIDs in the sample"
  printf '[subscribers]\nanonymize-users = nobody\nanonymize-key = %s\n' "$tmp/anon.key" >"$tmp/d.conf"
  start_daemon d -r "$tmp/big.pcapng" --config "$tmp/d.conf" --group nogroup --wait-subscribers 2
  as_nobody timeout 60 "$lnetcap" --from "$(uri d)" -w "$tmp/out/anon.pcapng" 2>"$tmp/anon.err" & p1=$!
  timeout 60 "$lnetcap" --from "$(uri d)" -w "$tmp/out/plain.pcapng" 2>"$tmp/plain.err" & p2=$!
  wait $p1 || fail "the anonymized subscriber failed"
  wait $p2 || fail "the plain subscriber failed"
  daemon_exit d
  same_packets "$tmp/out/plain.pcapng" "$tmp/direct.pcapng"
  "$lnetcap" -r "$tmp/big.pcapng" --anonymize --anon-key "$tmp/anon.key" -w "$tmp/anon-direct.pcapng" 2>/dev/null ||
    fail "lnetcap --anonymize failed"
  same_packets "$tmp/out/anon.pcapng" "$tmp/anon-direct.pcapng"
  for nid in $real_nids; do
    ! grep -aqF "$nid" "$tmp/out/anon.pcapng" || fail "real NID $nid is in the anonymized subscriber's bytes"
  done
  contains "$tmp/d.log" "anonymized by anonymize-users"
  [ "$(grep -cE "$total matched, $total sent, 0 dropped \([1-9][0-9]* through the shared-memory ring\)" "$tmp/d.log")" -eq 2 ] ||
    fail "not both read their class's ring: $(grep matched "$tmp/d.log")" ;;
ring-status)
  # Two classes (whole records, and cut at 16 bytes): two rings, each read
  # by its subscriber, shown by --status while they read.
  start_daemon d -r "$socklnd_sample" --rate 20 --group "$(id -gn)" --wait-subscribers 2
  timeout 60 "$lnetcap" --from "$(uri d)" -w "$tmp/whole.pcapng" 2>"$tmp/whole.err" & p1=$!
  timeout 60 "$lnetcap" --from "$(uri d)" -s 16 -w "$tmp/cut.pcapng" 2>"$tmp/cut.err" & p2=$!
  rings_read() {
    "$lnetcap" --from "$(uri d)" --status >"$tmp/status.out" 2>&1 &&
      grep -qE "^  shared-memory rings: +2 \([0-9]+ MiB\), read by 2 subscribers, [1-9][0-9]* records sent" "$tmp/status.out"
  }
  wait_for 30 "--status to show two rings read by two subscribers" rings_read
  check "--status names the rings' memory: 2 x 128 slots of 128 KiB by default ($(grep rings "$tmp/status.out"))" \
    grep -qE "^  shared-memory rings: +2 \(32 MiB\)" "$tmp/status.out"
  kill "$p1" "$p2" "$d_pid" 2>/dev/null; wait ;;
*) fail "unknown case $case" ;;
esac
