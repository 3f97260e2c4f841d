#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live socklnd capture on a real interface: two network namespaces joined
# by a veth pair (192.168.77.1 <-> 192.168.77.2 and fd00:77::1 <-> ::2,
# nothing outside them is touched), real socklnd-framed TCP traffic on
# port 988 between them
# (socklnd_traffic), captured on the server's veth through
# open_socklnd_live (socklnd_live_check).  Also checks that capturing
# without CAP_NET_RAW fails with a clear error and hint.
#
#   live_netns.sh BUILD_DIR [COUNT [LNETCAP]]
# With LNETCAP, also checks that an idle live capture stops on SIGINT
# and leaves a valid file.
# Exit 77 (skip) without root, ip(8) or network namespaces.
set -u
BIN=$1
COUNT=${2:-60}
LNETCAP=${3:-}
TRAFFIC=$BIN/socklnd_traffic
CHECK=$BIN/socklnd_live_check

TEST_CASE=socklnd.live-netns
. "$(dirname "$0")/../support/testlib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, CAP_NET_RAW)"
command -v ip >/dev/null 2>&1 || skip "ip(8) not installed (apt-get install iproute2)"

TAG=lnetcap$$
NS_S=${TAG}s
NS_C=${TAG}c
WORK=$(mktemp -d /tmp/lnetcap-socklnd-live.XXXXXX)
SERVER_PID=
CHECK_PID=
cleanup() {
  [ -n "$CHECK_PID" ] && kill "$CHECK_PID" 2>/dev/null
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
  ip netns del "$NS_S" 2>/dev/null
  ip netns del "$NS_C" 2>/dev/null
  rm -rf "$WORK"
}
on_exit cleanup
trap 'exit 130' INT TERM

ip netns add "$NS_S" 2>/dev/null || skip "cannot create network namespaces here"
ip netns add "$NS_C" || exit 1
ip link add veth-s netns "$NS_S" type veth peer name veth-c netns "$NS_C" ||
  skip "cannot create a veth pair"
ip -n "$NS_S" addr add 192.168.77.1/24 dev veth-s
ip -n "$NS_C" addr add 192.168.77.2/24 dev veth-c
for ns in "$NS_S" "$NS_C"; do ip -n "$ns" link set lo up; done
ip -n "$NS_S" link set veth-s up
ip -n "$NS_C" link set veth-c up

# Every round runs; a failed one is recorded (fail_later) and fails the case.

# 1. Without CAP_NET_RAW the capture must refuse with a hint.
if command -v setpriv >/dev/null 2>&1; then
  if ip netns exec "$NS_S" setpriv --reuid=65534 --regid=65534 --clear-groups \
       --inh-caps=-all --bounding-set=-all "$CHECK" --expect-permission-error veth-s; then
    echo "ok: unprivileged capture refused with a CAP_NET_RAW hint"
  else
    fail_later "unprivileged capture did not fail as expected"
  fi
else
  echo "note: setpriv missing, permission check not run"
fi

# 2. Capture on the server's veth while the two peers talk: IPv4 (HELLO
#    V3, 72-byte headers), then IPv6 (HELLO V4, 96-byte nid16 headers).
round() {  # SERVER_IP CLIENT_IP SERVER_NID CLIENT_NID LABEL
  rm -f "$WORK/ready"
  ip netns exec "$NS_S" "$CHECK" veth-s 988 "$COUNT" "$4" "$3" "$WORK/ready" 30 \
    >"$WORK/check.out" 2>&1 &
  CHECK_PID=$!
  for _ in $(seq 100); do [ -e "$WORK/ready" ] && break; kill -0 "$CHECK_PID" 2>/dev/null || break; sleep 0.1; done
  [ -e "$WORK/ready" ] || { cat "$WORK/check.out"; fail_later "$5 capture did not start"; return; }
  ip netns exec "$NS_S" "$TRAFFIC" server "$1" 988 "$3" >"$WORK/server.out" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 50); do grep -q listening "$WORK/server.out" 2>/dev/null && break; sleep 0.1; done
  if ! ip netns exec "$NS_C" "$TRAFFIC" client "$1" 988 "$4" "$3" "$COUNT" 1021; then
    cat "$WORK/server.out"; fail_later "$5 traffic generator"
  fi
  wait "$SERVER_PID"; SERVER_PID=
  wait "$CHECK_PID"; rc=$?; CHECK_PID=
  cat "$WORK/check.out"
  if [ "$rc" = 0 ]; then echo "ok: $5"; else fail_later "$5 live capture check (exit $rc)"; fi
}
round 192.168.77.1 192.168.77.2 192.168.77.1@tcp 192.168.77.2@tcp "IPv4, socklnd V3"
if ip -n "$NS_S" -6 addr add fd00:77::1/64 dev veth-s nodad 2>/dev/null &&
   ip -n "$NS_C" -6 addr add fd00:77::2/64 dev veth-c nodad 2>/dev/null; then
  round fd00:77::1 fd00:77::2 fd00:77::1@tcp fd00:77::2@tcp "IPv6, socklnd V4"
else
  echo "note: IPv6 unavailable in the namespaces, V4 round not run"
fi
# 3. An idle capture (no traffic at all) stops on SIGINT within a read
#    timeout or so, and what it wrote is a complete pcapng file.
if [ -n "$LNETCAP" ]; then
  ip netns exec "$NS_S" "$LNETCAP" -i veth-s -w "$WORK/idle.pcapng" 2>"$WORK/idle.err" &
  IDLE_PID=$!
  sleep 1
  kill -INT "$IDLE_PID"
  for _ in $(seq 50); do kill -0 "$IDLE_PID" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$IDLE_PID" 2>/dev/null; then
    kill -KILL "$IDLE_PID"; fail_later "idle live capture ignored SIGINT for 5 s"
  elif ! wait "$IDLE_PID"; then
    cat "$WORK/idle.err"; fail_later "idle live capture exited non-zero after SIGINT"
  elif ! "$LNETCAP" -r "$WORK/idle.pcapng" -q >/dev/null 2>"$WORK/idle-read.err"; then
    cat "$WORK/idle-read.err"; fail_later "the idle capture's file does not read back"
  else
    echo "ok: idle live capture stopped on SIGINT with a complete file"
  fi
fi

check "every round passed" no_failures_yet
echo "PASS: live socklnd capture of $COUNT PUT/ACK pairs per round on veth in a netns pair"
