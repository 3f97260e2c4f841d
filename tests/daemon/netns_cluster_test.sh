#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# netns_cluster_test.sh BUILD_DIR SOURCE_DIR - issue 14's cluster case in
# network namespaces: three "node" namespaces each run an lnetcapd with its
# own host name (a UTS namespace), replaying its side of the real corpus and
# listening on tcp:// with CurveZMQ; in an "analyst" namespace one
# `lnetcap --from ... --from ... --from ...` merges them with -w.  The
# merged file must be record for record (tests/tools/pcap_dump) what
# mergecap makes of the three direct conversions, each record on an
# interface saying `on NODE` of the node it came from (check_merged_nodes.py),
# and an unknown key from the analyst's namespace must be refused.
#
#   client1  the corpus lustre-fs-part1.pcap as the client sees it (--local-nid 10.0.3.2@tcp)
#   server1  the same traffic as the server sees it (--local-nid 10.0.3.1@tcp)
#   tap1     lnet-socklnd.pcap as a port-mirror host sees it (no --local-nid: WIRE)
#
# Network: one veth pair per node between the analyst and that node,
# 10.77.N.1 (analyst) <-> 10.77.N.2 (node N), addresses that exist only
# inside these namespaces (no route leads out of them).  Every namespace,
# and every process in it, is removed on exit whatever happens.
# Exit 77 (skip) without root, ip(8), network or UTS namespaces, mergecap
# or the corpus.
set -uo pipefail
build=$1 src=$2
lnetcap=$build/capture/lnetcap
lnetcapd=$build/capture/lnetcapd
pcap_dump=$build/tests/pcap_dump
corpus_fs=$src/tests/data/corpus/lustre-fs-part1.pcap
corpus_socklnd=$src/tests/data/corpus/lnet-socklnd.pcap
export TZ=UTC LC_ALL=C

TEST_CASE=netns-cluster
. "$src/tests/support/testlib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (network and UTS namespaces)"
command -v ip >/dev/null || skip "ip(8) not installed (iproute2)"
command -v unshare >/dev/null || skip "unshare(1) not installed (util-linux)"
command -v mergecap >/dev/null || skip "mergecap not installed (wireshark-common)"
for f in "$corpus_fs" "$corpus_socklnd"; do [ -f "$f" ] || skip "$f missing"; done

nodes=(client1 server1 tap1)
declare -A replay=([client1]=$corpus_fs [server1]=$corpus_fs [tap1]=$corpus_socklnd)
declare -A side=([client1]="--local-nid 10.0.3.2@tcp" [server1]="--local-nid 10.0.3.1@tcp" [tap1]="")
tag=lnc$$
analyst=$tag-analyst
tmp=$(mktemp -d /tmp/lnetcapd-netns.XXXXXX)
namespaces=() daemons=()
cleanup() {
  for pid in "${daemons[@]}"; do kill "$pid" 2>/dev/null; done
  # Anything still inside a namespace of this test (started here) goes too.
  for ns in "${namespaces[@]}"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
  done
  wait 2>/dev/null
  for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$tmp"
}
on_exit cleanup
trap 'exit 130' INT TERM
on_fail 'for f in "$tmp"/*.log "$tmp"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done'
. "$src/tests/daemon/packets-lib.sh"

# The namespaces: the analyst's, then one per node with its veth pair.
ip netns add "$analyst" 2>/dev/null || skip "cannot create network namespaces here"
namespaces+=("$analyst")
ip -n "$analyst" link set lo up
n=0
declare -A address
for node in "${nodes[@]}"; do
  n=$((n + 1))
  ns=$tag-$node
  ip netns add "$ns" || fail "ip netns add $ns"
  namespaces+=("$ns")
  ip link add "to-$node" netns "$analyst" type veth peer name eth0 netns "$ns" || skip "cannot create a veth pair"
  ip -n "$analyst" addr add "10.77.$n.1/24" dev "to-$node"
  ip -n "$ns" addr add "10.77.$n.2/24" dev eth0
  ip -n "$analyst" link set "to-$node" up
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  address[$node]=10.77.$n.2
done
ip netns exec "$analyst" unshare --uts true 2>/dev/null || skip "cannot create UTS namespaces here"

# Keys: the analyst's pair, one server pair the three nodes share (so one
# --server-key serves every --from), and a stranger's pair nobody authorized.
for k in analyst server stranger; do
  "$lnetcapd" --gen-key "$tmp/$k.key" >"$tmp/$k.pub" 2>"$tmp/gen-$k.err" || fail "--gen-key $k"
done
echo "$(cat "$tmp/analyst.pub") analyst@ws1" >"$tmp/authorized"

# The direct conversions (the reference) and the daemons, each in its node's
# namespace under its own host name (no --node: the daemon names itself).
for node in "${nodes[@]}"; do
  # shellcheck disable=SC2086  # side[] is zero or two words
  "$lnetcap" -r "${replay[$node]}" ${side[$node]} -w "$tmp/$node.direct.pcapng" 2>"$tmp/$node.direct.err" ||
    fail "direct conversion for $node"
  [ "$(packets "$tmp/$node.direct.pcapng" | wc -l)" -gt 100 ] || fail "$node's direct conversion is nearly empty"
  # shellcheck disable=SC2086,SC2016  # sh -c's script expands in sh, not here
  ip netns exec "$tag-$node" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$node" \
    "$lnetcapd" -r "${replay[$node]}" ${side[$node]} --listen "tcp://${address[$node]}:7988" \
    --authorized-keys "$tmp/authorized" --curve-key "$tmp/server.key" --wait-subscribers 1 \
    2>"$tmp/$node.log" &
  daemons+=($!)
done
for node in "${nodes[@]}"; do
  wait_for_log "$tmp/$node.log" "with CurveZMQ" 10
  contains "$tmp/$node.log" "on tcp://${address[$node]}:7988 with CurveZMQ, server key $(cat "$tmp/server.pub")"
done
# Each daemon really is in its own node's namespace.
i=0
for node in "${nodes[@]}"; do
  [ "$(ip netns identify "${daemons[$i]}")" = "$tag-$node" ] || fail "lnetcapd of $node runs in '$(ip netns identify "${daemons[$i]}")'"
  i=$((i + 1))
done

# A stranger in the analyst's namespace: refused by every node at the
# handshake, logged with the analyst's address and the stranger's key.
for node in "${nodes[@]}"; do
  timeout 20 ip netns exec "$analyst" "$lnetcap" --from "tcp://${address[$node]}:7988" \
    --curve-key "$tmp/stranger.key" --server-key "$tmp/server.key" -w "$tmp/stranger.pcapng" \
    >"$tmp/stranger.out" 2>"$tmp/stranger.err"
  rc=$?
  [ $rc -eq 1 ] || fail "the stranger's subscription to $node exited $rc, wanted 1"
  contains "$tmp/stranger.err" "lnetcapd at tcp://${address[$node]}:7988 refused the CurveZMQ handshake"
  [ ! -s "$tmp/stranger.pcapng" ] || fail "a refused subscriber wrote records"
  contains "$tmp/$node.log" "refused a CurveZMQ client from ${address[$node]%.2}.1: key $(cat "$tmp/stranger.pub") is not authorized"
  rm -f "$tmp/stranger.pcapng"
done

# The analyst merges the three nodes.
froms=()
for node in "${nodes[@]}"; do froms+=(--from "tcp://${address[$node]}:7988"); done
timeout 60 ip netns exec "$analyst" "$lnetcap" "${froms[@]}" --curve-key "$tmp/analyst.key" \
  --server-key "$tmp/server.key" -w "$tmp/merged.pcapng" >"$tmp/merge.out" 2>"$tmp/merge.err" ||
  fail "the analyst's merge exited $?"
i=0
for node in "${nodes[@]}"; do
  rc=0; wait "${daemons[$i]}" || rc=$?
  expect_eq "exit status of lnetcapd of $node" "$rc" 0
  want=$(packets "$tmp/$node.direct.pcapng" | wc -l)
  contains "$tmp/$node.log" ", key $(cat "$tmp/analyst.pub")) subscribed"
  contains "$tmp/$node.log" "$want matched, $want sent, 0 dropped"
  i=$((i + 1))
done

# Record for record what mergecap makes of the direct conversions, in the
# --from order (mergecap breaks ties by input order, and the client's and
# the server's views of one message carry the same timestamp).
mergecap -w "$tmp/expected.pcapng" "$tmp/client1.direct.pcapng" "$tmp/server1.direct.pcapng" \
  "$tmp/tap1.direct.pcapng" || fail "mergecap failed"
packets "$tmp/merged.pcapng" >"$tmp/got.txt"
packets "$tmp/expected.pcapng" >"$tmp/want.txt"
check "the merge equals mergecap's ($(wc -l <"$tmp/got.txt") vs $(wc -l <"$tmp/want.txt") packets, first difference: $(diff "$tmp/got.txt" "$tmp/want.txt" | head -3 | cut -c1-160))" \
  cmp -s "$tmp/got.txt" "$tmp/want.txt"

# Which node each record came from: its interface says `on NODE`, and node
# by node the records are that node's direct conversion, in order.
python3 "$src/tests/daemon/check_merged_nodes.py" "$tmp/merged.pcapng" \
  client1="$tmp/client1.direct.pcapng" server1="$tmp/server1.direct.pcapng" \
  tap1="$tmp/tap1.direct.pcapng" >"$tmp/nodes.txt" 2>"$tmp/nodes.err" || fail "$(cat "$tmp/nodes.err")"
switches=$(sed -n 's/.*; \([0-9]*\) switches between nodes/\1/p' "$tmp/nodes.txt")
[ "${switches:-0}" -ge 100 ] || fail "the client's and server's records hardly interleave: $(cat "$tmp/nodes.txt")"
echo "PASS [netns-cluster]: $(cat "$tmp/nodes.txt")"
