#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# routed_test.sh LNETCAP VECTORS CASE - resends, per-NI health and
# multi-rail grouping in --summary, --assert and the text output, on the
# SYNTHETIC three-node routed capture of tests/wireshark/gen_routed.cpp.
# Expected figures come from what that generator writes, not from lnetcap:
# on the client 5 ping GETs + 5 replies, 20 requests + 20 replies, 10 GETs
# + 10 bulk REPLYs, then 4 PUTs: one sent twice (first attempt dropped
# locally, LOCAL_DROPPED, then resent: retry 1), one lost (LOCAL_DROPPED,
# not resent), one with the same header delivered, one dropped by the
# server; 2 more ping GETs: 76 messages in 79 records (2 outcome DROPs,
# 1 resend); 44 PUTs, 17 GETs.
set -uo pipefail
lnetcap=$1 vectors=$2 case=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LC_ALL=C
fail() { echo "FAIL [$case]: $*" >&2; exit 1; }
contains() { grep -qE -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "'$2' not in $1"; }; }
[ -x "$lnetcap" ] && [ -x "$vectors" ] || { echo "SKIP: binaries missing" >&2; exit 77; }
"$vectors" routed "$tmp" || fail "generator failed"
c=$tmp/client.pcapng

case $case in
resend-counts-once)
	"$lnetcap" -r "$c" --summary > "$tmp/s" || fail "summary failed"
	contains "$tmp/s" "^lnetcap summary: 76 messages"
	contains "$tmp/s" "^LNet types: GET 17 PUT 44 REPLY 15$"
	"$lnetcap" -r "$c" -q --assert 'count(type put) == 44' --assert 'count() == 76' \
		> "$tmp/a" 2>&1 || { cat "$tmp/a" >&2; fail "count() counts a resent message twice"; }
	;;
resend-text)
	"$lnetcap" -r "$c" -v > "$tmp/t" || fail "text output failed"
	first=$(grep -E "^[0-9:.]+ SEND .*task xn-alone\[[0-9]+\]" "$tmp/t" | head -1 |
		sed -E 's/.* seq ([0-9]+) cpu ([0-9]+) .*/\1 cpu \2/')
	[ -n "$first" ] || fail "no first attempt in the output"
	# The resend's health field is the first attempt's failure: shown as
	# such, not as the health of the resend (which succeeded).
	contains "$tmp/t" " retry 1 \[resend of seq $first after LOCAL_DROPPED\]"
	! grep -q "health LOCAL_DROPPED retry 1" "$tmp/t" || fail "the resend printed with the previous failure as its health"
	;;
health-by-ni)
	"$lnetcap" -r "$c" --summary > "$tmp/s" || fail "summary failed"
	contains "$tmp/s" "^LNet health by local NI +attempts +resends +failed +recovery +failures by health$"
	contains "$tmp/s" "^10\.0\.1\.1@tcp +42 +1 +2 +0  LOCAL_DROPPED 2$"
	contains "$tmp/s" "^10\.0\.1\.254@tcp +42 +1 +2 +0  LOCAL_DROPPED 2$"
	"$lnetcap" -r "$c" --summary=json > "$tmp/j" || fail "json summary failed"
	python3 - "$tmp/j" <<'PY' || fail "JSON health figures wrong"
import json, sys
d = json.load(open(sys.argv[1]))["lnet"]["health_by_local_ni"]["10.0.1.1@tcp"]
assert d == {"attempts": 42, "resends": 1, "failures": 2, "recovery_pings": 0,
             "failures_by_health": {"LOCAL_DROPPED": 2}}, d
PY
	;;
multirail-peer)
	# The router forwards the server's ping replies, which list the
	# server's two NIDs: its row is grouped under the primary NID.
	"$lnetcap" -r "$tmp/router.pcapng" --summary > "$tmp/s" || fail "summary failed"
	# ... and one recovery ping of LNet health went to it (monitor_thread).
	contains "$tmp/s" "^192\.168\.2\.2@o2ib / 192\.168\.2\.1@o2ib +43 +0 +0 +1$"
	;;
ping-kinds)
	# Recovery and discovery pings are named as such, a user's is a ping.
	"$lnetcap" -r "$tmp/router.pcapng" > "$tmp/t" || fail "text output failed"
	[ "$(grep -c ": LNet recovery ping$" "$tmp/t")" = 1 ] || { cat "$tmp/t" >&2; fail "recovery ping not named"; }
	[ "$(grep -c ": LNet discovery ping$" "$tmp/t")" = 1 ] || fail "discovery ping not named"
	[ "$(grep -c "SEND GET .*: LNet ping$" "$tmp/t")" = 1 ] || fail "the user's ping is not a plain LNet ping"
	;;
nid-names)
	# Names for NIDs: exact NID, an address on every net of an LND, an
	# address on every net; -n turns them off; a bad file is one clear error.
	printf '# names\n10.0.1.1@tcp client1\n192.168.2.1 oss1 # any net\n10.0.1.254@tcp* rtr1\n' > "$tmp/nids"
	"$lnetcap" -r "$c" --nid-names "$tmp/nids" -c 2 > "$tmp/t" || fail "text output failed"
	contains "$tmp/t" "SEND GET client1@tcp > oss1@o2ib .*: LNet ping$"
	contains "$tmp/t" "RECV REPLY oss1@o2ib > client1@tcp "
	"$lnetcap" -r "$c" --nid-names "$tmp/nids" -n -c 1 > "$tmp/t" || fail "-n failed"
	contains "$tmp/t" "SEND GET 10\.0\.1\.1@tcp > 192\.168\.2\.1@o2ib "
	"$lnetcap" -r "$c" --nid-names "$tmp/nids" --summary > "$tmp/s" || fail "summary failed"
	contains "$tmp/s" "^oss1@o2ib +76 "
	contains "$tmp/s" "^client1@tcp +42 +1 +2 +0  LOCAL_DROPPED 2$"
	contains "$tmp/s" "^rtr1@tcp +42 +1 +2 +0  LOCAL_DROPPED 2$"
	"$lnetcap" -r "$c" --nid-names "$tmp/nids" --chart=mermaid > "$tmp/m" || fail "chart failed"
	contains "$tmp/m" "participant P0 as client1@tcp$"
	contains "$tmp/m" "participant P1 as oss1@o2ib$"
	printf '10.0.1.1@tcp\n' > "$tmp/bad"
	"$lnetcap" -r "$c" --nid-names "$tmp/bad" > "$tmp/o" 2> "$tmp/e" && fail "a bad names file was accepted"
	contains "$tmp/e" "bad:1: expected 'NID NAME'"
	[ ! -s "$tmp/o" ] || fail "output despite a bad names file"
	;;
chart-hops)
	# On the router, each FWD is a hop from its outgoing NI to the next hop.
	"$lnetcap" -r "$tmp/router.pcapng" --chart=mermaid > "$tmp/m" || fail "chart failed"
	contains "$tmp/m" "participant P0 as 192\.168\.2\.254@o2ib$"
	contains "$tmp/m" "participant P1 as 192\.168\.2\.1@o2ib$"
	contains "$tmp/m" "P0-\)P1: \+0\.000000 FWD GET LNET_RESERVED"
	;;
chart-merged)
	# Merged from the three nodes, a message is one arrow from its sender
	# plus one per router hop: the receiver's RECV is not a second arrow.
	command -v mergecap >/dev/null || { echo "SKIP: mergecap missing" >&2; exit 77; }
	mergecap -w "$tmp/m.pcapng" "$c" "$tmp/router.pcapng" "$tmp/server.pcapng" || fail "mergecap failed"
	"$lnetcap" -r "$tmp/m.pcapng" > "$tmp/t" || fail "text output failed"
	records=$(wc -l < "$tmp/t")
	recvs=$(grep -c "^[0-9:.]* RECV " "$tmp/t")
	[ "$recvs" -gt 70 ] || fail "only $recvs RECV records in the merged capture"
	"$lnetcap" -r "$tmp/m.pcapng" --chart=mermaid > "$tmp/m" || fail "chart failed"
	contains "$tmp/m" "%% lnetcap: $((records - recvs)) messages shown"
	;;
*) fail "unknown case" ;;
esac
echo "ok [$case]"
