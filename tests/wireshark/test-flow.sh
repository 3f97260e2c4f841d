# SPDX-License-Identifier: GPL-2.0-or-later
# The LNet flow graph (Statistics > Flow Graph > LNet in Wireshark, here
# through tshark -z flow,lnet, the same registration and tap): each hop of a
# routed message drawn between the nodes that saw it, on the real merged
# three-node capture (samples/lnet-routed-3node.pcapng: client
# 10.77.0.1@tcp, router 10.77.0.3@tcp + 10.78.0.3@tcp1, server
# 10.78.0.2@tcp1), rather than between the end NIDs of the LNet header.
r=$(stage "$LNETCAP_SOURCE_DIR/samples/lnet-routed-3node.pcapng")

# 1. One lctl ping across the router: the client's SEND (frame 9) is the
#    hop client -> router, the router's FWD (frame 11) router -> server; the
#    server's RECV (frame 7, before the SEND by the clocks' skew) ends the
#    hop the FWD drew and adds no arrow.
ts -2 -r "$r" -q -z "flow,lnet,standard,frame.number == 7 || frame.number == 9 || frame.number == 11" \
	> "$WORK/ping.txt" 2> "$WORK/ping.err" || fail "tshark -z flow,lnet failed: $(cat "$WORK/ping.err")"
cat > "$WORK/ping.want" <<'EOF'
|Time     | 10.77.0.1@tcp                         | 10.78.0.2@tcp1                        |
|         |                   | 10.77.0.3@tcp     |                   
|2.110816730|         GET ping  |                   |                   |[10.77.0.1@tcp SEND] GET 10.77.0.1@tcp → 10.78.0.2@tcp1 LNET_RESERVED_PORTAL mb=0x8000000000000000 [ping]
|         |(0)      ------------------>  (0)      |                   |
|2.224073855|                   |         GET ping  |                   |[10.77.0.3@tcp FWD] GET 10.77.0.1@tcp → 10.78.0.2@tcp1 LNET_RESERVED_PORTAL mb=0x8000000000000000 [ping]
|         |                   |(0)      ------------------>  (0)      |
EOF
check "flow of one routed ping (diff want got)" diff -u "$WORK/ping.want" <(grep -v '^$' "$WORK/ping.txt")
[ -s "$WORK/ping.err" ] && fail "tshark complained: $(cat "$WORK/ping.err")"
pass "a routed ping is drawn client -> router -> server"

# 2. The whole capture: three node columns (the nodes, not their NIs), and
#    no arrow spans a column: nothing goes client -> server past the router.
ts -2 -r "$r" -q -z flow,lnet,standard > "$WORK/all.txt" 2> "$WORK/all.err" ||
	fail "tshark -z flow,lnet failed"
[ -s "$WORK/all.err" ] && fail "tshark complained: $(head -3 "$WORK/all.err")"
head -2 "$WORK/all.txt" | grep -o '[0-9.]*@tcp1\?' | sort > "$WORK/nodes.txt"
got=$(tr '\n' ' ' < "$WORK/nodes.txt")
expect_eq "node columns" "$got" "10.77.0.1@tcp 10.77.0.3@tcp 10.78.0.2@tcp1 "
arrows=$(grep -c -- '-------->\|<--------' "$WORK/all.txt")
long=$(grep -c -- '-\{20,\}' "$WORK/all.txt")
[ "$arrows" -gt 500 ] || fail "only $arrows arrows"
expect_eq "arrows spanning a node" "$long" 0
# Arrows: every record but the RECVs whose hop the sender's SEND or a
# router's FWD drew (301), and the other records of messages a node sent
# itself (28 loopback SENDs of discovery and pings of its own NID).
records=$(count "$r" "lnetcap")
ended="lnetcap.rec.direction == 2 && (lnetcap.xnode.sent_in || lnetcap.xnode.forwarded_in)"
hidden=$(ts -2 -r "$r" -Y "$ended" -T fields -e frame.number | wc -l)
self=$(ts -2 -r "$r" -Y "lnetcap.lnet.src_nid == lnetcap.lnet.dest_nid && !($ended)" -T fields \
	-e frame.number | wc -l)
expect_eq "RECVs ending a drawn hop, loopback records" "$hidden $self" "301 28"
expect_eq "arrows" "$arrows" "$((records - hidden - self))"
pass "$arrows hops between 3 nodes, none past the router"
