# SPDX-License-Identifier: GPL-2.0-or-later
# Cross-node links over a router: a merged three-node capture (client
# SEND -> router FWD -> server RECV, SYNTHETIC, see gen_routed.cpp for its
# provenance and ground truth) with byte-identical repeated pings, requests
# sharing match bits, identical bulk REPLY headers, a resend, a message lost
# before the router and one dropped by the receiver, under clock skew.
# Every record must link to every other record of its message and to none
# of another: 0 wrong links, 0 missing.
command -v python3 >/dev/null || skip "python3 missing"
command -v mergecap >/dev/null || skip "mergecap missing"
"$LNETCAP_VECTORS" routed "$WORK" || fail "routed vector generator failed"
mergecap -w "$WORK/merged.pcapng" "$WORK/client.pcapng" "$WORK/router.pcapng" \
	"$WORK/server.pcapng" || fail "mergecap failed"
chmod a+r "$WORK"/*.pcapng
m="$WORK/merged.pcapng"

ts -2 -r "$m" -T fields -E occurrence=a -E aggregator=, -e frame.number -e lnetcap.rec.pid \
	-e lnetcap.rec.comm -e lnetcap.xnode.sent_in -e lnetcap.xnode.forwarded_in \
	-e lnetcap.xnode.received_in > "$WORK/links.tsv" || fail "tshark failed"
python3 "$LNETCAP_TEST_DIR/xnode_check.py" "$WORK/links.tsv" > "$WORK/check.txt"
rc=$?
cat "$WORK/check.txt" | tail -5
[ "$rc" = 0 ] || fail "cross-node links wrong or missing ($(tail -1 "$WORK/check.txt"))"
grep -q "links [1-9]" "$WORK/check.txt" || fail "no links at all"
pass "$(tail -1 "$WORK/check.txt")"

# FWD records are hops: hop 1 of 1, a hop delay from the sender's record
# (router clock +2 ms, 0.3 ms on the wire), and the RECV counts the hop.
hops=$(ts -2 -r "$m" -Y "lnetcap.rec.direction == 3 && lnetcap.xnode.hop == 1" \
	-T fields -e frame.number | wc -l)
fwds=$(count "$m" "lnetcap.rec.direction == 3")
[ "$fwds" -gt 50 ] && [ "$hops" = "$fwds" ] || fail "$hops of $fwds FWD records are hop 1"
d=$(ts -2 -r "$m" -Y "lnetcap.rec.direction == 3 && lnetcap.rec.pid == 1" -T fields \
	-e lnetcap.xnode.hop_delay)
[ "$d" = "0.002300000" ] || fail "hop delay of the first ping's FWD is '$d', expected 0.002300000"
n=$(ts -2 -r "$m" -Y "lnetcap.rec.direction == 2 && lnetcap.xnode.hops == 1" -T fields \
	-e frame.number | wc -l)
[ "$n" -gt 50 ] || fail "only $n RECVs count the router hop"
pass "FWD records shown as hops ($fwds), with hop delays"

# The resend: its SEND says which SEND it repeats, and lists both attempts
# with NI and health.
first=$(ts -2 -r "$m" -Y "lnetcap.rec.direction == 1 && lnetcap.rec.retries == 0 && lnetcap.rec.comm == \"xn-alone\"" \
	-T fields -e frame.number | head -1)
got=$(ts -2 -r "$m" -Y "lnetcap.xnode.attempt == 2" -T fields -e lnetcap.xnode.prev_attempt -e lnetcap.xnode.received_in | head -1)
[ -n "$first" ] && [ "${got%%$'\t'*}" = "$first" ] || fail "resend links to '$got', expected its first attempt $first"
[ -n "${got#*$'\t'}" ] || fail "the successful resend is not linked to its RECV"
ts -2 -r "$m" -Y "lnetcap.xnode.attempt == 2" -V > "$WORK/resend.txt" || fail "tshark failed"
grep -q "Attempt 1: frame $first from 10.0.1.1@tcp, failed LOCAL_DROPPED (frame " "$WORK/resend.txt" ||
	fail "attempt list missing from the resend's tree"
grep -q "Attempt 2: frame [0-9]* from 10.0.1.1@tcp, no failure recorded (its health field LOCAL_DROPPED is the previous attempt's)" "$WORK/resend.txt" ||
	fail "the successful resend's attempt is not shown as such"
# The successful resend's own record says LOCAL_DROPPED (read before LNet
# resets it); its attempt health, from the outcome records, is OK.
got=$(ts -2 -r "$m" -Y "lnetcap.xnode.attempt" -T fields -e lnetcap.xnode.attempt \
	-e lnetcap.rec.health -e lnetcap.xnode.attempt_health | tr '\t\n' ' |')
[ "$got" = "1 0 LOCAL_DROPPED|2 2 OK|" ] || fail "attempt health '$got'"
pass "resend linked to its first attempt ($first) and to its RECV"

# LNet's pings by kind (the sending task): recovery, discovery, a user's.
kinds=$(ts -r "$m" -Y "lnetcap.rec.direction == 1 && lnetcap.lnet.ping_kind" -T fields \
	-e lnetcap.lnet.ping_kind | sort | tr '\n' ' ')
[ "$kinds" = "discovery ping ping ping ping ping ping ping ping recovery " ] ||
	fail "ping kinds '$kinds'"
n=$(ts -r "$m" -Y "lnetcap.lnet.ping_kind == \"recovery\"" -T fields -e _ws.col.Info | grep -c "\[recovery ping\]")
[ "$n" = 1 ] || fail "$n recovery pings named in the Info column"
pass "recovery and discovery pings named"

# The time window is what keeps the ping lost after the router from taking
# the RECV of the identical ping 142 s later: with a 300 s window it would.
ts -2 -o lnetcap.xnode_window:300 -r "$m" -T fields -E occurrence=a -E aggregator=, \
	-e frame.number -e lnetcap.rec.pid -e lnetcap.rec.comm -e lnetcap.xnode.sent_in \
	-e lnetcap.xnode.forwarded_in -e lnetcap.xnode.received_in > "$WORK/wide.tsv" ||
	fail "tshark failed"
python3 "$LNETCAP_TEST_DIR/xnode_check.py" "$WORK/wide.tsv" > "$WORK/wide.txt" &&
	fail "a 300 s window links no wrong message: the 142 s case does not test the window"
pass "the window matters: $(tail -1 "$WORK/wide.txt")"
