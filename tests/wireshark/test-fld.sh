# SPDX-License-Identifier: GPL-2.0-or-later
# The FLD protocol (lnetcap.fld): FLD_QUERY and FLD_READ as Lustre 2.16
# lays them out (layout.c RQF_FLD_QUERY/RQF_FLD_READ), on the records of
# gen_vectors.cpp fld_records():
#  1-2 FLD_QUERY lookup and its range; 3-4 FLD_READ and its 3 ranges (the
#  reply's lustre_msg big-endian, the array little-endian as fld_index.c
#  writes it); 5 lsra_count past the buffer; 6 ranges cut by the snap length.
"$LNETCAP_VECTORS" "$WORK/fld.pcapng" fld || fail "vector generator failed"
chmod a+r "$WORK/fld.pcapng"
v="$WORK/fld.pcapng"

row() {
	ts -r "$v" -Y "frame.number == $1" -T fields -E occurrence=a -E aggregator=, \
		-e _ws.col.Protocol -e lnetcap.fld.op -e lnetcap.fld.range.start -e lnetcap.fld.range.end \
		-e lnetcap.fld.range.index -e lnetcap.fld.range.flags -e lnetcap.fld.range_count
}
t=$'\t'
expect_row 1 "FLD${t}2${t}0x0000000200000401${t}0x0000000000000000${t}0${t}0x00000003${t}" \
	"FLD_QUERY: FLD_LOOKUP of sequence 0x200000401, any type"
expect_row 2 "FLD${t}${t}0x0000000200000400${t}0x0000000240000400${t}0${t}0x00000000${t}" \
	"FLD_QUERY reply: [0x200000400-0x240000400) on MDT 0"
expect_row 3 "FLD${t}${t}0x0000000200000400${t}0x0000000000000000${t}0${t}0x00000000${t}" \
	"FLD_READ from 0x200000400"
expect_row 4 "FLD${t}${t}0x0000000200000400,0x0000000240000400,0x0000000100000000${t}0x0000000240000400,0x0000000280000400,0x0000000100010000${t}0,1,0${t}0x00000000,0x00000000,0x00000001${t}3" \
	"FLD_READ reply: 3 little-endian ranges in a big-endian message"
expect_row 5 "FLD${t}${t}0x0000000200000400,0x0000000240000400${t}0x0000000240000400,0x0000000280000400${t}0,1${t}0x00000000,0x00000000${t}1000" \
	"lsra_count 1000 in a 2-range buffer: 2 ranges shown"
expect_row 6 "FLD${t}${t}0x0000000200000400${t}0x0000000240000400${t}0${t}0x00000000${t}3" \
	"ranges cut by the snap length: the captured one shown"

info=$(ts -r "$v" -T fields -E separator='|' -e frame.number -e _ws.col.Info -e _ws.expert.message)
grep -q '^1|\[node 1 [A-Z]*\] FLD_QUERY request .* FLD_LOOKUP seq 0x200000401|' <<<"$info" || fail "frame 1 Info: $(sed -n 1p <<<"$info")"
grep -q '^2|\[node 1 [A-Z]*\] FLD_QUERY reply .* \[0x200000400-0x240000400) MDT 0|' <<<"$info" || fail "frame 2 Info: $(sed -n 2p <<<"$info")"
grep -q '^4|\[node 1 [A-Z]*\] FLD_READ reply .* 3 range(s)|' <<<"$info" || fail "frame 4 Info: $(sed -n 4p <<<"$info")"
pass "Info column: operation, sequence, range, range count"
grep -q '^5|.*lsra_count 1000: the buffer (56 bytes) holds only 2 range' <<<"$info" ||
	fail "frame 5: no warning for lsra_count past the buffer: $(sed -n 5p <<<"$info")"
grep -q '^6|.*Ranges 2-3 were not captured' <<<"$info" ||
	fail "frame 6: no snap-length note: $(sed -n 6p <<<"$info")"
pass "hostile count and snapped array flagged"
expect_count "$v" "lnetcap.fld" 6
expect_count "$v" "lnetcap.ptlrpc.body.undecoded" 0
# The only malformed frame is the hostile one, and that by our warning, not
# an exception.
expect_count "$v" "_ws.malformed" 1
expect_count "$v" "_ws.malformed && !lnetcap.fld.range_count.bad" 0
