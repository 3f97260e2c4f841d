# SPDX-License-Identifier: GPL-2.0-or-later
# The generated vectors (gen_vectors.cpp: byte layouts per docs/protocol.md) are
# decoded field by field as Lustre defines them.  Golden files hold the
# expected output; each was checked by hand against the values
# gen_vectors.cpp writes (see the comments at the top of each golden).
v=$(vectors)

# 1. Record, LNet and PtlRPC summary of every frame, two-pass (-2) so
#    response_in is known.
ts -2 -r "$v" -T fields -E header=y -E separator='|' -E occurrence=a -E aggregator=, \
	-e frame.number -e lnetcap.rec.direction -e lnetcap.lnet.type \
	-e lnetcap.lnet.src_nid -e lnetcap.lnet.dest_nid -e lnetcap.lnet.ptl_index \
	-e lnetcap.lnet.match_bits -e lnetcap.ptlrpc.msg.byte_order -e lnetcap.ptlrpc.body_version \
	-e lnetcap.ptlrpc.type -e lnetcap.ptlrpc.opc -e lnetcap.ptlrpc.status \
	-e lnetcap.ptlrpc.sender_pid -e lnetcap.ptlrpc.jobid -e lnetcap.ptlrpc.xid \
	-e lnetcap.response_in -e lnetcap.response_to -e lnetcap.time \
	| golden vectors-summary.txt

# 2. Info column and expert info of every frame.
ts -2 -r "$v" -T fields -E separator='|' -e frame.number -e _ws.col.Info -e _ws.expert.message \
	| golden vectors-info.txt

# 3. Body fields (LDLM, MDT, OST, connect, ping, record extras).
ts -2 -r "$v" -T fields -E separator='|' -E occurrence=a -E aggregator=, -e frame.number \
	-e lnetcap.rec.seq_gap -e lnetcap.rec.health -e lnetcap.rec.retries -e lnetcap.rec.status \
	-e lnetcap.rec.truncated -e lnetcap.ping.ni.nid -e lnetcap.ping.ni.status \
	-e lnetcap.ldlm.res.type -e lnetcap.ldlm.res.fid -e lnetcap.ldlm.lock.req_mode \
	-e lnetcap.ldlm.extent.start -e lnetcap.ldlm.extent.end -e lnetcap.ldlm.inodebits \
	-e lnetcap.ldlm.flags -e lnetcap.ldlm.handle -e lnetcap.ldlm.intent -e lnetcap.ldlm.lvb.size \
	-e lnetcap.mdt.fid1 -e lnetcap.mdt.size -e lnetcap.mdt.mode -e lnetcap.mdt.reint.opcode \
	-e lnetcap.mdt.reint.fid1 -e lnetcap.mdt.reint.fid2 -e lnetcap.mdt.reint.mode \
	-e lnetcap.mdt.reint.valid -e lnetcap.mdt.reint.uid -e lnetcap.mdt.reint.size \
	-e lnetcap.mdt.name -e lnetcap.mdt.new_name -e lnetcap.mdt.eadata \
	-e lnetcap.ost.oa.oi -e lnetcap.ost.oi.form -e lnetcap.ost.oi.ost_idx -e lnetcap.ost.ioobj.oi \
	-e lnetcap.ost.oa.size -e lnetcap.ost.ioobj.bufcnt \
	-e lnetcap.ost.niobuf.offset -e lnetcap.ost.niobuf.len -e lnetcap.ost.niobuf.flags \
	-e lnetcap.ost.rc -e lnetcap.obd.target_uuid -e lnetcap.obd.client_uuid \
	-e lnetcap.obd.conn_handle -e lnetcap.obd.ocd.connect_flags \
	-e lnetcap.obd.ocd.connect_flags2.rep_mbits -e lnetcap.obd.ocd.lustre_version \
	-e lnetcap.obd.ocd.brw_size \
	| golden vectors-bodies.txt

# 4. Full JSON of an intent enqueue, a reint error reply and the
#    nid16/IPv6 ping (every field of those frames).
#    LNetCap and the protocols above it, each a top-level protocol.
ts -2 -r "$v" -Y "frame.number in {9,26,37}" -T json \
	-J "lnetcap lnetcap.ptlrpc lnetcap.obd lnetcap.ost lnetcap.mdt lnetcap.ldlm" \
	| sed -e '/"_index"/d' -e '/"frame.time/d' | golden vectors-json.txt

# 5. Filters users need: opcode, XID, NID, jobid, status, expert items.
expect_count "$v" "lnetcap.ptlrpc.opc == 4" 3
expect_count "$v" "lnetcap.ptlrpc.opc == OST_READ" 5
expect_count "$v" "lnetcap.ptlrpc.xid == 0x1300" 2
expect_count "$v" 'lnetcap.nid == "16@kfi"' 1
expect_count "$v" 'lnetcap.lnet.src_nid == "fe80::2@tcp1"' 1
expect_count "$v" 'lnetcap.ptlrpc.jobid == "dd.1000"' 2
expect_count "$v" "lnetcap.ptlrpc.status == -2" 1
expect_count "$v" "lnetcap.ptlrpc.status < 0" 2
expect_count "$v" "lnetcap.ptlrpc.sender_pid == 4242" 30
expect_count "$v" "lnetcap.ptlrpc.status.error" 1
expect_count "$v" "lnetcap.ptlrpc.type.error" 1
expect_count "$v" "lnetcap.ptlrpc.resent" 1
expect_count "$v" "lnetcap.ptlrpc.early_reply" 1
expect_count "$v" "lnetcap.rec.seq_gap" 1
expect_count "$v" "lnetcap.rec.truncated" 1
# ...and the snapped ptlrpc_body says what its decoder missed.
expect_count "$v" "lnetcap.ptlrpc.truncated" 1
expect_count "$v" "lnetcap.rec.health.failed" 1
expect_count "$v" "lnetcap.rec.retries > 0" 1
expect_count "$v" "lnetcap.ptlrpc.msg.byte_order == 1" 2
expect_count "$v" "lnetcap.rec.version.unknown" 1
expect_count "$v" "lnetcap.time > 0.02" 2
# "No reply" needs the second pass.
n=$(ts -2 -r "$v" -Y lnetcap.ptlrpc.no_reply -T fields -e frame.number | tr '\n' ' ')
[ "$n" = "39 40 41 42 43 44 53 54 57 " ] || fail "requests without reply: got '$n'"
pass "requests without reply flagged"

# Slots that are padding in Lustre 2.16 (the version the plugin follows)
# are not named after what 2.17 or older layouts put there.
ts -G fields | awk -F'\t' '$1=="F" {print $3}' > "$WORK/fields.txt"
for f in lnetcap.ptlrpc.projid lnetcap.mdt.xattr_absent; do
	grep -qx "$f" "$WORK/fields.txt" && fail "$f registered: that slot is padding in 2.16"
done
for f in lnetcap.ptlrpc.padding1 lnetcap.mdt.padding_9 lnetcap.mdt.reint.sa_padding_1; do
	grep -qx "$f" "$WORK/fields.txt" || fail "$f not registered"
done
expect_count "$v" "lnetcap.mdt.reint.opcode == 1 && lnetcap.mdt.reint.suppgid2" 0
expect_count "$v" "lnetcap.mdt.reint.opcode == 1 && lnetcap.mdt.reint.sa_padding_1 == 0" 1
expect_count "$v" "lnetcap.mdt.reint.opcode == 2 && lnetcap.mdt.reint.suppgid2 == 0" 1

# 6. Preferences.
# The USER slot: on USER5 our USER7 file is no longer claimed.
n=$(ts -r "$v" -o lnetcap.user_dlt:5 -Y lnetcap -T fields -e frame.number | wc -l)
[ "$n" = 0 ] || fail "with user_dlt=5, $n frames still decoded as lnetcap"
pass "lnetcap.user_dlt moves the link-type claim"
# Registered by name: the DLT_USER table can route USER5 to "lnetcap".
n=$(ts -r "$v" -o lnetcap.user_dlt:5 \
	-o 'uat:user_dlts:"User 7 (DLT=154)","lnetcap","0","","0",""' \
	-Y lnetcap.ptlrpc -T fields -e frame.number | wc -l)
[ "$n" -ge 40 ] || fail "dissector 'lnetcap' not usable from the user_dlts table ($n)"
pass "dissector usable by name"
# Delegation to Wireshark's Lustre dissector for bodies we do not decode.
expect_count "$v" "lustre" 0
# SEQ_QUERY is decoded by lnetcap.seq; with that protocol disabled its body
# is undecoded and goes to the built-in.
expect_count "$v" "lnetcap.seq.op == 1" 1
n=$(ts -r "$v" -o lnetcap.delegate_lustre:TRUE -Y "lustre.seq_opc" -T fields -e frame.number)
[ -z "$n" ] || fail "delegate_lustre: decoded SEQ_QUERY handed to the built-in too ('$n')"
n=$(ts -r "$v" -o lnetcap.delegate_lustre:TRUE --disable-protocol lnetcap.seq -Y "lustre.seq_opc" \
	-T fields -e frame.number)
[ "$n" = 57 ] || fail "delegate_lustre: SEQ_QUERY not handed to the built-in lustre dissector ('$n')"
pass "lnetcap.delegate_lustre hands undecoded bodies (here: of a disabled protocol) to 'lustre'"
# decode_rpc off: PtlRPC left as payload.
n=$(ts -r "$v" -o lnetcap.decode_rpc:FALSE -Y lnetcap.ptlrpc -T fields -e frame.number | wc -l)
[ "$n" = 0 ] || fail "decode_rpc=FALSE still decodes PtlRPC"
pass "lnetcap.decode_rpc"
