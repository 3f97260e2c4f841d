# SPDX-License-Identifier: GPL-2.0-or-later
# A capture merged from several nodes' files reads as one (issue 33): every
# record says which node captured it and what that node saw (SEND, RECV,
# FWD, DROP, WIRE), record sequences are followed per node and CPU (each
# node numbers its own records, so a switch between nodes is no gap), and a
# forwarded or received ping takes its kind from the sender's SEND.
#  - samples/lnet-routed-3node.pcapng: real client, router and server
#    captures merged by mergecap; all three hosts say "on (none)", told
#    apart by their interfaces (each file has its own 0@lo).  No node lost
#    a record: no gap may be reported.
#  - the same file with one router record deleted (editcap): exactly that
#    one gap, on the router.
#  - two SYNTHETIC node files of gen_routed.cpp (client, router; "on
#    client", "on router"), merged by mergecap, with one router record
#    dropped from the router's file first: exactly one gap of one record;
#    the same when the two files are appended as pcapng sections.
command -v mergecap >/dev/null && command -v editcap >/dev/null || skip "mergecap/editcap missing"
r=$(stage "$LNETCAP_SOURCE_DIR/samples/lnet-routed-3node.pcapng")

# 1. The three nodes, one per original file, named by their first NID.
got=$(ts -r "$r" -T fields -e frame.interface_id -e lnetcap.node.index -e lnetcap.node |
	sort -u | tr '\t\n' ' |')
expect_eq "interface -> node" "$got" \
	"1 1 10.77.0.1@tcp|3 2 10.77.0.3@tcp|4 2 10.77.0.3@tcp|6 3 10.78.0.2@tcp1|"
got=$(ts -r "$r" -T fields -e lnetcap.seen_by | sort | uniq -c | awk '{print $1, $2, $3}' |
	tr '\n' '|')
expect_eq "records per node and direction" "$got" \
	"172 10.77.0.1@tcp RECV|163 10.77.0.1@tcp SEND|262 10.77.0.3@tcp FWD|1 10.77.0.3@tcp RECV|1 10.77.0.3@tcp SEND|134 10.78.0.2@tcp1 RECV|162 10.78.0.2@tcp1 SEND|"
expect_count "$r" 'lnetcap.node == "10.77.0.3@tcp"' 264
pass "every record names its capturing node and what it saw"

# 2. Who saw what, first in the Info column.
got=$(ts -r "$r" -Y "frame.number <= 5" -T fields -e _ws.col.Info | cut -d' ' -f1-3 | tr '\n' '|')
expect_eq "Info of frames 1-5" "$got" \
	"[10.78.0.2@tcp1 RECV] GET|[10.78.0.2@tcp1 SEND] REPLY|[10.77.0.1@tcp SEND] GET|[10.77.0.1@tcp RECV] REPLY|[10.77.0.3@tcp FWD] GET|"
pass "Info column starts with the node and the direction"

# 3. No sequence gap in the real merge (each node's sequences are whole).
ts -r "$r" -q -z expert > "$WORK/expert.txt" || fail "tshark -z expert failed"
lacks "$WORK/expert.txt" "missing before this one"
expect_count "$r" "lnetcap.rec.seq_gap" 0
pass "no sequence gap reported in the merged three-node capture"

# 4. One router record deleted: one gap of 1, on the router, at the next
#    record of that CPU (the router's sequence numbers are consecutive).
pick=$(ts -r "$r" -Y 'lnetcap.node == "10.77.0.3@tcp"' -T fields -e frame.number \
	-e lnetcap.rec.cpu -e lnetcap.rec.seq | sed -n 100p)
read -r frame cpu seq <<<"$pick"
[ -n "$seq" ] || fail "no 100th router record"
editcap "$r" "$WORK/lost1.pcapng" "$frame" || fail "editcap failed"
chmod a+r "$WORK/lost1.pcapng"
got=$(ts -r "$WORK/lost1.pcapng" -Y lnetcap.rec.seq_gap -T fields -e lnetcap.node \
	-e lnetcap.rec.cpu -e lnetcap.rec.seq -e lnetcap.rec.seq_gap | tr '\t\n' ' |')
expect_eq "gaps after deleting frame $frame (router, cpu $cpu, seq $seq)" "$got" \
	"10.77.0.3@tcp $cpu $((seq + 1)) 1|"
ts -r "$WORK/lost1.pcapng" -q -z expert > "$WORK/expert1.txt" || fail "tshark -z expert failed"
got=$(grep -c "missing before this one" "$WORK/expert1.txt")
expect_eq "gap lines in -z expert" "$got" 1
contains "$WORK/expert1.txt" "1   Sequence            LNetCap  1 record(s) missing before this one"
pass "one deleted router record is one gap of 1 on the router"

# 5. Two node files merged, one record dropped from the router's before.
"$LNETCAP_VECTORS" routed "$WORK" || fail "routed vector generator failed"
mergecap -w "$WORK/cr.pcapng" "$WORK/client.pcapng" "$WORK/router.pcapng" || fail "mergecap failed"
editcap "$WORK/router.pcapng" "$WORK/router-1.pcapng" 20 || fail "editcap failed"
mergecap -w "$WORK/cr-1.pcapng" "$WORK/client.pcapng" "$WORK/router-1.pcapng" ||
	fail "mergecap failed"
chmod a+r "$WORK"/*.pcapng
expect_count "$WORK/cr.pcapng" "lnetcap.rec.seq_gap" 0
seq20=$(ts -r "$WORK/router.pcapng" -Y "frame.number == 20" -T fields -e lnetcap.rec.seq)
got=$(ts -r "$WORK/cr-1.pcapng" -Y lnetcap.rec.seq_gap -T fields -e lnetcap.node \
	-e lnetcap.rec.seq -e lnetcap.rec.seq_gap | tr '\t\n' ' |')
expect_eq "gaps in the client+router merge without router frame 20 (seq $seq20)" "$got" \
	"router $((seq20 + 1)) 1|"
pass "two merged node files with one lost record: exactly that gap"
# The same two files appended (cat: two pcapng sections, interface ids
# counted per section).  Wireshark 4.0 cannot name a later section's
# interfaces (its look-up indexes the whole file), so only the gap is
# checked, not the node's name.
cat "$WORK/client.pcapng" "$WORK/router-1.pcapng" > "$WORK/cat-1.pcapng"
chmod a+r "$WORK/cat-1.pcapng"
got=$(ts -r "$WORK/cat-1.pcapng" -Y lnetcap.rec.seq_gap -T fields -e lnetcap.rec.seq \
	-e lnetcap.rec.seq_gap | tr '\t\n' ' |')
expect_eq "gaps in client and router-1 appended as two sections" "$got" "$((seq20 + 1)) 1|"
nc=$(count "$WORK/client.pcapng" "lnetcap")
got=$(ts -r "$WORK/cat-1.pcapng" -T fields -e frame.number -e lnetcap.node.index |
	awk -v nc="$nc" '{print ($1 <= nc ? "client" : "router") "=" $2}' | sort -u | tr '\n' ' ')
expect_eq "node numbers of the two sections' records" "$got" "client=1 router=2 "
pass "two sections: exactly the one gap"

# 6. Ping kind: a FWD or RECV of a ping GET takes it from the linked SEND.
got=$(ts -2 -r "$r" -Y "lnetcap.lnet.ping_kind && lnetcap.rec.direction != 1" -T fields \
	-e lnetcap.rec.direction -e lnetcap.lnet.ping_kind | sort | uniq -c |
	awk '{print $1, $2, $3}' | tr '\n' '|')
expect_eq "ping kinds of FWD (3) and RECV (2) records" "$got" \
	"2 2 discovery|4 2 ping|1 3 discovery|3 3 ping|"
ts -2 -r "$r" -Y "frame.number == 50" -V > "$WORK/f50.txt" || fail "tshark failed"
contains "$WORK/f50.txt" "Ping kind: discovery (from the sender's SEND in frame 43)"
got=$(ts -2 -r "$r" -Y "frame.number == 50" -T fields -e _ws.col.Info)
[[ "$got" == *"[discovery ping]" ]] || fail "frame 50 Info '$got' lacks [discovery ping]"
pass "forwarded and received pings take their kind from the SEND"
