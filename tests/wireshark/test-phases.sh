# SPDX-License-Identifier: GPL-2.0-or-later
# Each RPC's phases in a capture merged from its client and its server
# (issue 35): the plugin's lnetcap.phase.* fields and -z lnetcap,phases
# against `lnetcap --summary=json`'s latency_split, on
# samples/lustre-merged-2node.pcapng (real Lustre 2.17.0 client and server
# captures merged, clocks ~557 ms apart; phases_check.py):
#  - the table's count, p50, p99 and max per opcode and phase, and its clock
#    offsets, equal the summary's to the nanosecond, with or without -2;
#  - the fields (tshark -2): one frame per RPC, no negative transit, each
#    frame's clock offset its pair's, and per opcode the same counts, p50
#    and max as the summary;
#  - one-pass tshark shows no phase field (the offsets are not final yet);
#  - the GUI's stats_tree (-z lnetcap.phases,tree): the table's counts,
#    mins and maxes with -2, nothing counted (and why) in one pass;
#  - lnetcap.phase.in links an RPC's other records to the one with its
#    phases; a table filter selects RPCs, not offsets;
#  - a capture of one end only (the wire capture lustre-fs-part1) has none;
#  - the same comparison on SYNTHETIC client1, client2 and server files
#    (gen_phases.cpp, merged here) with what the real sample lacks: a
#    PtlRPC resend, an LNet resend, a reply on pb_mbits, a SEND without
#    queue time, an RPC only the client saw, and client2's clock drifting so
#    that no offset fits (its transits clamped to 0, never negative).
[ -x "${LNETCAP_BINARY:-}" ] || skip "lnetcap binary not built"
need_cmd python3
m="$LNETCAP_SOURCE_DIR/samples/lustre-merged-2node.pcapng"
[ -f "$m" ] || skip "samples/lustre-merged-2node.pcapng missing"
m=$(stage "$m")

"$LNETCAP_BINARY" -r "$m" --summary=json > "$WORK/summary.json" || fail "lnetcap --summary=json failed"
"$LNETCAP_BINARY" -r "$m" --summary > "$WORK/summary.txt" || fail "lnetcap --summary failed"
ts -q -r "$m" -z lnetcap,phases > "$WORK/table1.txt" || fail "tshark -z lnetcap,phases failed"
ts -2 -q -r "$m" -z lnetcap,phases > "$WORK/table.txt" || fail "tshark -2 -z lnetcap,phases failed"
check "the table is the same in one pass and in two" diff -u "$WORK/table.txt" "$WORK/table1.txt"
ts -2 -r "$m" -Y lnetcap.phase.server -T fields -E separator=/t -E occurrence=f \
	-e _ws.col.Info -e lnetcap.lnet.src_nid -e lnetcap.lnet.dest_nid \
	-e lnetcap.phase.clock_offset -e lnetcap.phase.client_queue -e lnetcap.phase.request_transit \
	-e lnetcap.phase.server -e lnetcap.phase.bulk -e lnetcap.phase.reply_transit \
	> "$WORK/fields.tsv" || fail "tshark -2 -T fields failed"
out=$(python3 "$LNETCAP_TEST_DIR/phases_check.py" "$WORK/table.txt" "$WORK/fields.tsv" \
	"$WORK/summary.json" 2>&1) || fail "the plugin's phases disagree with the summary: $out"
echo "$out"
# The sample's RPCs seen by both ends, and its two pairs.
echo "$out" | grep -qx "OST_WRITE: 50 RPCs" || fail "OST_WRITE: $out"
echo "$out" | grep -qx "OST_READ: 2 RPCs" || fail "OST_READ: $out"
echo "$out" | grep -qx "offset 10.77.0.1@tcp -> 10.77.0.2@tcp: 556701525" || fail "offset: $out"
echo "$out" | grep -q "^offset 0@lo -> 0@lo: " || fail "0@lo offset: $out"
grep -q "^Clock offset 10.77.0.1@tcp -> 10.77.0.2@tcp: server +556.70ms " "$WORK/summary.txt" ||
	fail "the summary's Clock offset line changed: $(grep '^Clock offset' "$WORK/summary.txt")"
grep -q "^10.77.0.1@tcp -> 10.77.0.2@tcp  *+556.701525  from 64 RPCs" "$WORK/table.txt" ||
	fail "the table's clock offset line: $(grep -- ' -> ' "$WORK/table.txt")"
pass "table and fields equal lnetcap --summary=json's latency_split (counts, p50, p99, max, offsets)"

# Negative transits never show, whatever the phase.
expect_count "$m" "lnetcap.phase.request_transit < 0 || lnetcap.phase.reply_transit < 0" 0
# One pass: the offsets are not final, so no phase field.
n=$(ts -r "$m" -Y 'lnetcap.phase || lnetcap.phase.in' -T fields -e frame.number | wc -l)
expect_eq "frames with phase fields in one pass" "$n" 0
pass "one-pass tshark shows no phase field"
# Frame 9 (the client's RECV of the first OST_WRITE reply) shows the phases;
# the client's SEND (6), the server's RECV (21), bulk GET (22) and REPLY (23)
# and SEND of the reply (24) link to it.
got=$(ts -2 -r "$m" -Y 'lnetcap.phase.in == 9' -T fields -e frame.number | tr '\n' ' ')
expect_eq "records linked to frame 9's phases" "$got" "6 21 22 23 24 "
n=$(ts -2 -r "$m" -Y 'frame.number == 9 && lnetcap.phase.bulk > 0.1 && lnetcap.phase.server > 0.07' \
	-T fields -e frame.number)
expect_eq "frame 9's bulk and server phases as filters" "$n" 9
pass "an RPC's records link to its phases; phases filter as times"

# The GUI's stats_tree (Statistics > LNetCap > RPC phases): with -2 the
# table's counts, mins and maxes; in one pass it counts nothing and says why.
ts -2 -q -r "$m" -z lnetcap.phases,tree > "$WORK/tree.txt" || fail "tshark -z lnetcap.phases,tree failed"
out=$(python3 "$LNETCAP_TEST_DIR/phases_check.py" --tree "$WORK/tree.txt" "$WORK/table.txt" 2>&1) ||
	fail "the stats_tree disagrees with the table: $out"
[ "$out" = "tree: 34 phase rows" ] || fail "stats_tree: $out"
ts -q -r "$m" -z lnetcap.phases,tree > "$WORK/tree1.txt" || fail "tshark -z lnetcap.phases,tree failed"
grep -q "^ not counted: the clock offsets are final only after the first pass (tshark -2) *67 " \
	"$WORK/tree1.txt" || fail "one-pass stats_tree: $(cat "$WORK/tree1.txt")"
! grep -q "OST_WRITE" "$WORK/tree1.txt" || fail "one-pass stats_tree counted phases: $(cat "$WORK/tree1.txt")"
pass "the stats_tree equals the table with -2 and counts nothing in one pass"

# A filtered table: the OST_WRITE RPCs only, the offsets of every RPC.
ts -2 -q -r "$m" -z "lnetcap,phases,lnetcap.ptlrpc.opc == OST_WRITE" > "$WORK/write.txt" ||
	fail "tshark -z lnetcap,phases,FILTER failed"
[ "$(awk '$3 == "server" { print $1, $2 }' "$WORK/write.txt")" = "OST_WRITE 50" ] ||
	fail "filtered table: $(cat "$WORK/write.txt")"
check "a filter keeps the offsets" diff <(grep -- ' -> ' "$WORK/table.txt") <(grep -- ' -> ' "$WORK/write.txt")
pass "a table filter selects the RPCs, not the offsets"

# One end only (a wire capture): no phases, an empty table.
w="$LNETCAP_SOURCE_DIR/samples/lustre-fs-part1.pcapng"
if [ -f "$w" ]; then
	w=$(stage "$w")
	ts -2 -q -r "$w" -z lnetcap,phases > "$WORK/wire.txt" || fail "tshark -z lnetcap,phases failed"
	[ "$(grep -cE ' (queue|request|server|bulk|reply) ' "$WORK/wire.txt")" = 0 ] ||
		fail "phases in a one-end capture: $(cat "$WORK/wire.txt")"
	expect_count "$w" "lnetcap.phase || lnetcap.phase.in" 0
	pass "a capture of one end has no phases"
fi

# SYNTHETIC: resends, REP_MBITS, no queue time, one end only, drifting clock.
command -v mergecap >/dev/null || skip "mergecap missing"
mkdir -p "$WORK/gen" && chmod 755 "$WORK/gen"
"$LNETCAP_VECTORS" phases "$WORK/gen" || fail "phases vector generator failed"
mergecap -w "$WORK/gen.pcapng" "$WORK/gen/client1.pcapng" "$WORK/gen/client2.pcapng" \
	"$WORK/gen/server.pcapng" || fail "mergecap failed"
chmod a+r "$WORK/gen.pcapng"
g="$WORK/gen.pcapng"
"$LNETCAP_BINARY" -r "$g" --summary=json > "$WORK/gsummary.json" || fail "lnetcap --summary=json failed"
ts -q -r "$g" -z lnetcap,phases > "$WORK/gtable.txt" || fail "tshark -z lnetcap,phases failed"
ts -2 -r "$g" -Y lnetcap.phase.server -T fields -E separator=/t -E occurrence=f \
	-e _ws.col.Info -e lnetcap.lnet.src_nid -e lnetcap.lnet.dest_nid \
	-e lnetcap.phase.clock_offset -e lnetcap.phase.client_queue -e lnetcap.phase.request_transit \
	-e lnetcap.phase.server -e lnetcap.phase.bulk -e lnetcap.phase.reply_transit \
	> "$WORK/gfields.tsv" || fail "tshark -2 -T fields failed"
out=$(python3 "$LNETCAP_TEST_DIR/phases_check.py" "$WORK/gtable.txt" "$WORK/gfields.tsv" \
	"$WORK/gsummary.json" 2>&1) || fail "synthetic: the plugin's phases disagree with the summary: $out"
echo "$out"
# 4 pings of client2 and the one answered on pb_mbits (not the one only the
# client saw); the resent OST_READ once; 6 OST_WRITE, one without queue time.
echo "$out" | grep -qx "OBD_PING: 5 RPCs" || fail "synthetic OBD_PING: $out"
echo "$out" | grep -qx "OST_READ: 3 RPCs" || fail "synthetic OST_READ: $out"
[ "$(awk '$1 == "OST_WRITE" && $3 == "queue" { print $2, $4 }' "$WORK/gtable.txt")" = "6 5" ] ||
	fail "synthetic OST_WRITE: 6 RPCs, 5 queue times expected: $(grep OST_WRITE "$WORK/gtable.txt")"
grep -q '^10.0.5.3@tcp -> 10.0.5.2@tcp .*(empty: the clocks drifted)$' "$WORK/gtable.txt" ||
	fail "client2's drifting clock: $(grep -- ' -> ' "$WORK/gtable.txt")"
expect_count "$g" "lnetcap.phase.request_transit < 0 || lnetcap.phase.reply_transit < 0" 0
pass "synthetic resends, REP_MBITS, missing queue time and drifting clock agree with the summary"

# Bad arguments: one clear message and a non-zero exit.
for arg in "lnetcap,phases,lnetcap.bogus == 1" "lnetcap,phasesX"; do
	if ts -q -r "$m" -z "$arg" > "$WORK/bad.txt" 2> "$WORK/bad.err"; then
		fail "-z '$arg' exited 0: $(cat "$WORK/bad.txt")"
	fi
	grep -q "^tshark: -z lnetcap,phases" "$WORK/bad.err" || fail "-z '$arg': $(cat "$WORK/bad.err")"
done
pass "a bad filter or argument fails with one message"
