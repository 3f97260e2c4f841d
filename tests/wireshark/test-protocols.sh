# SPDX-License-Identifier: GPL-2.0-or-later
# PtlRPC and the bodies are protocols of their own above LNetCap, as NFS is
# above RPC: PtlRPC hands each body to the dissector table
# lnetcap.ptlrpc.opc, where OBD, OST, MDT, LDLM and MGS register their
# opcodes.  Checked on the real Lustre 2.16.1 traffic of samples/: the
# Protocol Hierarchy, protocol-name filters, Enabled Protocols (the
# disabled_protos file the GUI writes, and --disable-protocol) and the
# table's registrations.
cap=$(stage "$LNETCAP_SOURCE_DIR/samples/lustre-fs-part1.pcapng")

# 1. The protocols and their short names (Protocol column, Enabled Protocols).
ts -G protocols > "$WORK/protocols.txt" || fail "tshark -G protocols failed"
for p in "PtlRPC lnetcap.ptlrpc" "OBD lnetcap.obd" "OST lnetcap.ost" "MDT lnetcap.mdt" \
	"LDLM lnetcap.ldlm" "MGS lnetcap.mgs" "LLOG lnetcap.llog" "SEQ lnetcap.seq"; do
	awk -F'\t' -v s="${p% *}" -v f="${p#* }" '$2==s && $3==f {ok=1} END {exit !ok}' \
		"$WORK/protocols.txt" || fail "protocol $p not registered"
done
pass "PtlRPC, OBD, OST, MDT, LDLM, MGS, LLOG, SEQ are protocols"

# 2. The table and who registered which opcode in it.
ts -G dissector-tables | grep -q "^lnetcap.ptlrpc.opc	PtlRPC opcode	FT_UINT32" ||
	fail "dissector table lnetcap.ptlrpc.opc missing"
ts -G decodes > "$WORK/decodes.txt"
for d in "4 lnetcap.ost" "13 lnetcap.ost" "38 lnetcap.obd" "400 lnetcap.obd" "36 lnetcap.mdt" \
	"35 lnetcap.mdt" "101 lnetcap.ldlm" "104 lnetcap.ldlm" "253 lnetcap.mgs" "256 lnetcap.mgs" \
	"501 lnetcap.llog" "502 lnetcap.llog" "700 lnetcap.seq"; do
	grep -qx "lnetcap.ptlrpc.opc	${d% *}	${d#* }" "$WORK/decodes.txt" ||
		fail "opcode ${d% *} is not registered by ${d#* }"
done
pass "body protocols register their opcodes in lnetcap.ptlrpc.opc"

# 3. Protocol Hierarchy: each body under PtlRPC under LNetCap (frame counts
#    agree with the opcode counts of the corpus README).
ts -q -r "$cap" -z io,phs | sed -n '/^lnetcap/,/^=/p' > "$WORK/phs.txt"
cat > "$WORK/phs.want" <<'PHS'
lnetcap                                  frames:149 bytes:2214152
  lnetcap.ptlrpc                         frames:130 bytes:109328
    lnetcap.obd                          frames:16 bytes:7864
    lnetcap.ldlm                         frames:50 bytes:32680
    lnetcap.llog                         frames:14 bytes:39672
    lnetcap.mgs                          frames:2 bytes:896
    lnetcap.mdt                          frames:32 bytes:18728
    lnetcap.ost                          frames:14 bytes:8624
    lnetcap.seq                          frames:2 bytes:864
===================================================================
PHS
diff -u "$WORK/phs.want" "$WORK/phs.txt" || fail "protocol hierarchy differs"
pass "-z io,phs shows LNetCap > PtlRPC > OBD/LDLM/LLOG/MGS/MDT/OST/SEQ"

# 4. A protocol name is a filter, and the Protocol column names the body.
expect_count "$cap" "lnetcap.mdt" 32
expect_count "$cap" "lnetcap.ldlm && lnetcap.ptlrpc" 50
expect_count "$cap" "lnetcap.ost" 14
n=$(ts -r "$cap" -Y "lnetcap.ptlrpc.opc == MDS_REINT && lnetcap.ptlrpc" -T fields \
	-e _ws.col.Protocol | sort -u | tr '\n' ' ')
[ "$n" = "MDT " ] || fail "Protocol column of MDS_REINT: '$n'"
pass "Protocol column names the body protocol"

# 5. Disabling a body protocol (command line, and Enabled Protocols' file)
#    removes its fields and nothing else: PtlRPC still decodes, says why the
#    body is not decoded, and the other bodies are untouched.
# Frames of MDS opcodes (33..60) whose MDT body was decoded.
mdt_bodies() {
	ts -r "$cap" "$@" -Y "lnetcap.ptlrpc.opc in {33..60} && lnetcap.ptlrpc && lnetcap.mdt.fid1" \
		-T fields -e frame.number | wc -l
}
n=$(mdt_bodies)
[ "$n" = 16 ] || fail "MDS messages with an mdt_body: $n (want 16)"
n=$(mdt_bodies --disable-protocol lnetcap.mdt)
[ "$n" = 0 ] || fail "--disable-protocol lnetcap.mdt still decodes $n MDS bodies"
n=$(ts -r "$cap" --disable-protocol lnetcap.mdt -Y lnetcap.ptlrpc -T fields -e frame.number | wc -l)
[ "$n" = 130 ] || fail "with MDT disabled, $n PtlRPC frames (want 130)"
n=$(ts -r "$cap" --disable-protocol lnetcap.mdt -Y lnetcap.ldlm -T fields -e frame.number | wc -l)
[ "$n" = 50 ] || fail "with MDT disabled, $n LDLM frames (want 50)"
n=$(ts -r "$cap" --disable-protocol lnetcap.mdt -Y 'lnetcap.ptlrpc.body.undecoded' -T fields \
	-e _ws.expert.message | grep -c "body not decoded: protocol MDT is disabled")
[ "$n" = 29 ] || fail "expert info for disabled MDT bodies: $n (want 29, one per MDS message with a body)"
pass "--disable-protocol lnetcap.mdt removes MDT bodies only"
echo lnetcap.ldlm > "$WORK/config/disabled_protos"
chmod a+r "$WORK/config/disabled_protos"
n=$(ts -r "$cap" -Y lnetcap.ldlm.lock -T fields -e frame.number | wc -l)
rm -f "$WORK/config/disabled_protos"
[ "$n" = 0 ] || fail "LDLM disabled in disabled_protos, still $n frames with lock fields"
expect_count "$cap" "lnetcap.ldlm.lock" 46
pass "Enabled Protocols (disabled_protos) turns LDLM off and on"

# 6. FLD, Quota and OUT (FLD_QUERY/FLD_READ; QUOTA_DQACQ and the QUOTACTLs;
#    OUT_UPDATE and MDS_BATCH) are protocols of their own too, each
#    registered for its opcodes (their bodies: test-fld.sh, test-quota.sh,
#    test-out.sh; the 2.16.1 sample has none of these RPCs).
for p in "FLD lnetcap.fld" "Quota lnetcap.quota" "OUT lnetcap.out"; do
	awk -F'\t' -v s="${p% *}" -v f="${p#* }" '$2==s && $3==f {ok=1} END {exit !ok}' \
		"$WORK/protocols.txt" || fail "protocol $p not registered"
done
for d in "900 lnetcap.fld" "901 lnetcap.fld" "601 lnetcap.quota" "48 lnetcap.quota" \
	"19 lnetcap.quota" "1000 lnetcap.out" "63 lnetcap.out"; do
	grep -qx "lnetcap.ptlrpc.opc	${d% *}	${d#* }" "$WORK/decodes.txt" ||
		fail "opcode ${d% *} is not registered by ${d#* }"
done
pass "FLD, Quota and OUT are protocols registered for their opcodes"
