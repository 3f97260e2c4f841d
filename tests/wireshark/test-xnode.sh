# SPDX-License-Identifier: GPL-2.0-or-later
# A merged two-node capture with its cross-node links.  The corpus
# (tests/data/corpus/lustre-fs-part1.pcap, real Lustre 2.16.1 traffic) is
# converted twice by lnetcap: as the client 10.0.3.2@tcp saw it and as the
# server 10.0.3.1@tcp saw it (--local-nid makes each message a SEND on one
# side and a RECV on the other); the server's clock is shifted by +1 ms with
# editcap and both files are merged with mergecap, as a site would merge a
# client's and a server's captures.  Every message must then link its SEND
# to its RECV, with the same XID, and show a one-way delay of 1 ms.
corpus="$LNETCAP_SOURCE_DIR/tests/data/corpus/lustre-fs-part1.pcap"
[ -f "$corpus" ] || skip "corpus $corpus is missing"
[ -x "${LNETCAP_BINARY:-}" ] || skip "lnetcap binary not built"
command -v mergecap >/dev/null && command -v editcap >/dev/null || skip "mergecap/editcap missing"

"$LNETCAP_BINARY" -r "$corpus" --local-nid 10.0.3.2@tcp -w "$WORK/client.pcapng" 2>/dev/null ||
	fail "client-side conversion failed"
"$LNETCAP_BINARY" -r "$corpus" --local-nid 10.0.3.1@tcp -w "$WORK/server0.pcapng" 2>/dev/null ||
	fail "server-side conversion failed"
editcap -t 0.001 "$WORK/server0.pcapng" "$WORK/server.pcapng" || fail "editcap failed"
mergecap -w "$WORK/merged.pcapng" "$WORK/client.pcapng" "$WORK/server.pcapng" || fail "mergecap failed"
chmod a+r "$WORK"/*.pcapng
m="$WORK/merged.pcapng"

sends=$(count "$m" "lnetcap.rec.direction == 1")
recvs=$(count "$m" "lnetcap.rec.direction == 2")
[ "$sends" -gt 100 ] && [ "$sends" = "$recvs" ] || fail "expected as many SENDs as RECVs, got $sends/$recvs"
pass "$sends messages seen by both nodes"

linked=$(ts -2 -r "$m" -Y "lnetcap.xnode.received_in" -T fields -e frame.number | wc -l)
[ "$linked" = "$sends" ] || fail "$linked of $sends SENDs link to their RECV"
linked=$(ts -2 -r "$m" -Y "lnetcap.xnode.sent_in" -T fields -e frame.number | wc -l)
[ "$linked" = "$recvs" ] || fail "$linked of $recvs RECVs link to their SEND"
pass "every SEND and RECV is linked"

# The server's clock runs 1 ms ahead: client->server messages take +1 ms,
# server->client ones -1 ms, which the plugin flags as clock skew.
delays=$(ts -2 -r "$m" -Y "lnetcap.xnode.sent_in && lnetcap.lnet.src_nid == \"10.0.3.2@tcp\"" \
	-T fields -e lnetcap.xnode.delay | sort -u)
[ "$delays" = "0.001000000" ] || fail "client->server delays '$delays', expected only 0.001000000"
delays=$(ts -2 -r "$m" -Y "lnetcap.xnode.sent_in && lnetcap.lnet.src_nid == \"10.0.3.1@tcp\"" \
	-T fields -e lnetcap.xnode.delay | sort -u)
[ "$delays" = "-0.001000000" ] || fail "server->client delays '$delays', expected only -0.001000000"
skew=$(ts -2 -r "$m" -Y "lnetcap.xnode.clock_skew" -T fields -e frame.number | wc -l)
[ "$skew" -gt 0 ] || fail "negative delays not flagged as clock skew"
pass "one-way delays shown, skew flagged"

# A linked pair is the same message: same XID and NIDs on both sides.
pair=$(ts -2 -r "$m" -Y "lnetcap.xnode.received_in && lnetcap.ptlrpc.opc == MDS_CONNECT" \
	-T fields -e frame.number -e lnetcap.xnode.received_in | head -1)
send=${pair%%$'\t'*}
recv=${pair##*$'\t'}
a=$(ts -r "$m" -Y "frame.number == $send" -T fields -e lnetcap.lnet.match_bits -e lnetcap.lnet.src_nid -e lnetcap.lnet.dest_nid)
b=$(ts -r "$m" -Y "frame.number == $recv" -T fields -e lnetcap.lnet.match_bits -e lnetcap.lnet.src_nid -e lnetcap.lnet.dest_nid)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "linked frames $send and $recv differ: '$a' vs '$b'"
pass "MDS_CONNECT request linked across nodes ($send -> $recv)"
