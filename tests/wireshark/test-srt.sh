# SPDX-License-Identifier: GPL-2.0-or-later
# Service Response Time tables by service and by target (-z lnetcap,srt):
#  - on the real sample (Lustre 2.16.1, one server 10.0.3.1@tcp hosting MGS,
#    MDT0 and OST0) every service table row and the target table agree with
#    `lnetcap --summary=json` (srt_check.py), and a target row's filter, as
#    the GUI builds it ("Apply as Filter": FILTER==INDEX), is valid and
#    selects that opcode's frames;
#  - on the generated vectors, three targets (10.0.0.2@tcp, the client
#    10.0.0.1@tcp for the LDLM callbacks the server sends it, fe80::2@tcp1),
#    each counting the final replies that NID sent to a request seen;
#  - 300 servers (gen_vectors.cpp srt_target_records()): 256 target tables,
#    the other 44 targets' calls in one "Other targets" table.
command -v python3 >/dev/null || skip "python3 missing"
[ -x "${LNETCAP_BINARY:-}" ] || skip "lnetcap binary not built"
fs="$LNETCAP_SOURCE_DIR/samples/lustre-fs-part1.pcapng"
[ -f "$fs" ] || skip "samples/lustre-fs-part1.pcapng missing"
fs=$(stage "$fs")
ts -q -r "$fs" -z lnetcap,srt > "$WORK/srt.txt" || fail "tshark -z lnetcap,srt failed"
"$LNETCAP_BINARY" -r "$fs" --summary=json > "$WORK/summary.json" || fail "lnetcap --summary=json failed"
out=$(python3 "$LNETCAP_TEST_DIR/srt_check.py" "$WORK/srt.txt" "$WORK/summary.json") ||
	fail "SRT tables disagree with the summary: $out"
echo "$out"
# Totals of the sample, by service and by target (65 answered requests).
echo "$out" | grep -qx "service MDS: 17" || fail "MDS table total: $out"
echo "$out" | grep -qx "service LDLM: 25" || fail "LDLM table total: $out"
echo "$out" | grep -qx "target 10.0.3.1@tcp: 65" || fail "target table total: $out"
[ "$(echo "$out" | grep -c '^target ')" = 1 ] || fail "expected one target: $out"
pass "SRT service and target tables equal lnetcap --summary=json"
# The GUI's row filters ("Apply as Filter": FILTER==INDEX): MDS_CLOSE's row
# of the MDS table and of the target table select that opcode's frames.
row=$(awk '$2 == "MDS_CLOSE" { print $1; exit }' "$WORK/srt.txt")
[ -n "$row" ] || fail "no MDS_CLOSE row in the SRT tables"
n=$(count "$fs" 'lnetcap.ptlrpc.opc==35')
[ "$n" -gt 0 ] || fail "the sample has no MDS_CLOSE"
expect_count "$fs" "lnetcap.ptlrpc.srt_row==$row" "$n"
expect_count "$fs" "lnetcap.nid==\"10.0.3.1@tcp\" && lnetcap.ptlrpc.srt_row==$row" "$n"
expect_count "$fs" "lnetcap.ptlrpc.srt_row==$row && !(lnetcap.ptlrpc.opc==35)" 0

v=$(vectors)
ts -q -r "$v" -z lnetcap,srt > "$WORK/vsrt.txt" || fail "tshark -z lnetcap,srt failed"
for nid in 10.0.0.2@tcp 10.0.0.1@tcp fe80::2@tcp1; do
	got=$(awk -v f="Filter: lnetcap.nid==\"$nid\" && lnetcap.ptlrpc.srt_row" '
		/^Filter: / { on = ($0 == f) } on && /^ *[0-9]+ / { n += $3 } END { print n + 0 }' \
		"$WORK/vsrt.txt")
	want=$(count "$v" "lnetcap.response_to && !lnetcap.ptlrpc.early_reply && lnetcap.lnet.src_nid == \"$nid\"")
	[ "$got" = "$want" ] && [ "$got" -gt 0 ] || fail "target $nid: $got calls, $want answered"
	pass "target $nid: $got calls"
done
[ "$(grep -c '^Filter: lnetcap.nid==' "$WORK/vsrt.txt")" = 3 ] || fail "expected three target tables"

"$LNETCAP_VECTORS" "$WORK/targets.pcapng" srt-targets || fail "vector generator failed"
chmod a+r "$WORK/targets.pcapng"
ts -q -r "$WORK/targets.pcapng" -z lnetcap,srt > "$WORK/tsrt.txt" || fail "tshark -z lnetcap,srt failed"
n=$(grep -c '^Filter: lnetcap.nid==' "$WORK/tsrt.txt")
[ "$n" = 256 ] || fail "$n target tables for 300 targets, expected the limit, 256"
grep -q '^Filter: lnetcap.nid=="10.1.1.0@tcp"' "$WORK/tsrt.txt" || fail "256th target missing"
! grep -q '10.1.1.1@tcp' "$WORK/tsrt.txt" || fail "257th target has a table"
[ "$(awk '/^Filter: / { t++ } t == 14 + 256 && $2 == "OBD_PING" { print $3 }' "$WORK/tsrt.txt")" = 44 ] ||
	fail "Other targets table does not hold the 44 other pings"
pass "at most 256 target tables; later targets in Other targets"
