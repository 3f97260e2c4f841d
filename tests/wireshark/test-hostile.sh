# SPDX-License-Identifier: GPL-2.0-or-later
# Records crafted against the plugin's matching tables (gen_vectors.cpp,
# hostile_records()); issue 12 item 1.
#  - A request whose pb_mbits is 2^64-1 once made the bulk-range walk wrap
#    and loop forever, eating memory: tshark must now finish in seconds
#    under a 2 GB address-space limit, and still link the bulk GET on the
#    last match bits to its OST_WRITE.
#  - With lnetcap.max_table_entries small, the tables stop growing: only
#    the first requests are matched, the rest are flagged lnetcap.table.full.
#    That holds for the bulk GET table (11 GETs with their own return MDs,
#    frames 65-75) and the sequence-domain table (12 CPUs with a gap each,
#    frames 76-99) too.
"$LNETCAP_VECTORS" "$WORK/hostile.pcapng" hostile || fail "vector generator failed"
chmod a+r "$WORK/hostile.pcapng"
h="$WORK/hostile.pcapng"

# Bounded run: 60 s and 2 GB of address space (tshark itself needs ~500 MB).
out=$( (ulimit -v 2000000; timeout 60 "${RUNAS[@]}" env -i PATH="$PATH" HOME="$WORK" TZ=UTC \
	WIRESHARK_PLUGIN_DIR="$WORK/plugins" WIRESHARK_CONFIG_DIR="$WORK/config" \
	WIRESHARK_ABORT_ON_DISSECTOR_BUG=1 tshark -2 -r "$h" -T fields -e frame.number \
	-e lnetcap.ptlrpc.bulk_of -e lnetcap.response_in) 2>"$WORK/err.txt")
rc=$?
[ $rc = 0 ] || fail "tshark exited $rc on pb_mbits = 2^64-1 (124: hung; $(tail -2 "$WORK/err.txt"))"
pass "pb_mbits = 2^64-1 dissected without hanging"
[ "$(sed -n 2p <<<"$out")" = "2	1	" ] || fail "bulk GET on match bits 2^64-1 not linked to frame 1: '$(sed -n 2p <<<"$out")'"
[ "$(sed -n 1p <<<"$out")" = "1		3" ] || fail "OST_WRITE ending at 2^64-1 not matched with its reply: '$(sed -n 1p <<<"$out")'"
pass "bulk range ending at 2^64-1 still linked"

# Default limit: all 30 pings of frames 5-64 and the OST_WRITE are matched.
expect_count "$h" "lnetcap.ptlrpc.opc == OBD_PING && lnetcap.ptlrpc.type == 4713 && lnetcap.response_to" 30
expect_count "$h" "lnetcap.table.full" 0
expect_count "$h" "frame.number >= 65 && frame.number <= 75 && lnetcap.ptlrpc.bulk_of == 1" 11
n=$(ts -r "$h" -Y lnetcap.rec.seq_gap.lost -T fields -e frame.number | tr '\n' ' ')
[ "$n" = "77 79 81 83 85 87 89 91 93 95 97 99 " ] || fail "gaps of 12 sequence domains: '$n'"
pass "default limit: 11 bulk GETs linked, gaps found in all 12 sequence domains"

# A limit of 10 entries per table.  The bulk table fills on frame 1 (16
# match bits), so frame 1's pb_mbits alias is not indexed; the
# request/reply table then holds the XIDs of frames 1, 4 and the first 8
# pings (frames 5-19): 9 RPCs are matched, the ping of frame 21 is the first
# one refused.  Every SEND is a cross-node entry: frame 11 is the first
# refused there.
out=$(ts -o lnetcap.max_table_entries:10 -2 -r "$h" -T fields -e frame.number \
	-e lnetcap.response_in -e _ws.expert.message) || fail "tshark failed with a small table limit"
n=$(awk -F'\t' '$2 != ""' <<<"$out" | wc -l)
[ "$n" = 9 ] || fail "$n requests matched with 10 table entries, expected 9 (8 pings + OST_WRITE)"
first() { grep -m1 "$1 table is full" <<<"$out" | cut -f1; }
[ "$(first bulk)" = 1 ] || fail "bulk table-full note on frame '$(first bulk)', expected 1"
[ "$(first request/reply)" = 21 ] || fail "request/reply table-full note on frame '$(first request/reply)', expected 21"
[ "$(first cross-node)" = 11 ] || fail "cross-node table-full note on frame '$(first cross-node)', expected 11"
[ "$(first "ACK kind")" = 24 ] || fail "ACK-kind table-full note on frame '$(first "ACK kind")', expected 24"
# Bulk GET table: frames 65-74 fill it with their return MDs, 75 is refused.
[ "$(first "bulk GET")" = 75 ] || fail "bulk GET table-full note on frame '$(first "bulk GET")', expected 75"
# Sequence domains: cpu 1 (frames 1-64) and 100-108 fill it; the records of
# cpu 109-111 (frames 94-99) are flagged and their gaps go unchecked.
[ "$(first "sequence domain")" = 94 ] ||
	fail "sequence-domain table-full note on frame '$(first "sequence domain")', expected 94"
n=$(grep -c "sequence domain table is full" <<<"$out")
[ "$n" = 6 ] || fail "$n records flagged for a full sequence-domain table, expected 6"
n=$(grep -c "missing before this one" <<<"$out")
[ "$n" = 9 ] || fail "$n sequence gaps found with 10 domains tracked, expected 9"
pass "tables stop at lnetcap.max_table_entries and say so"
