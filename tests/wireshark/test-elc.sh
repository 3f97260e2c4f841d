# SPDX-License-Identifier: GPL-2.0-or-later
# Early lock cancel outside MDS_REINT (lnetcap.elc.*), per layout.c and
# ldlm_request.c of Lustre 2.16:
#  - gen_vectors.cpp elc_records(): OST_DESTROY with two cancels and with
#    none, LDLM_ENQUEUE whose slots 1-3 are early cancels (slot 0 is the
#    enqueued lock), an enqueue without, LDLM_CANCEL of three locks,
#    MDS_SWAP_LAYOUTS with its swap flags and two cancels;
#  - the real corpus (samples/lustre-fs-part1.pcapng, Lustre 2.16.1): every
#    lock its LDLM_CANCELs name was granted earlier in the capture.
"$LNETCAP_VECTORS" "$WORK/elc.pcapng" elc || fail "vector generator failed"
chmod a+r "$WORK/elc.pcapng"
v="$WORK/elc.pcapng"

row() {  # row FRAME: the ELC fields and the Info column of one frame
	ts -r "$v" -Y "frame.number == $1" -T fields -E separator='|' -E occurrence=a \
		-E aggregator=, -e lnetcap.elc.flags -e lnetcap.elc.lock_count -e lnetcap.elc.handle \
		-e _ws.col.Info
}
expect_row 1 "0x00000000|2|0x00000000005e7e10,0x00000000005e7e11|[node 1 SEND] OST_DESTROY request xid 0x3000 10.0.0.1@tcp → 10.0.0.2@tcp (cancels 2 locks)" \
	"OST_DESTROY cancels two locks in its DLM_REQ buffer (buffer 2)"
expect_row 3 "0x00000000|0||[node 1 SEND] OST_DESTROY request xid 0x3080 10.0.0.1@tcp → 10.0.0.2@tcp" \
	"OST_DESTROY with lock_count 0: no handle, though the buffer has two zero slots"
expect_row 5 "|3|0x00000000005e7e12,0x00000000005e7e13,0x00000000005e7e14|[node 1 SEND] LDLM_ENQUEUE request xid 0x3100 10.0.0.1@tcp → 10.0.0.2@tcp PW EXTENT (cancels 3 locks)" \
	"LDLM_ENQUEUE: slots 1-3 are early cancels, slot 0 (the enqueued lock) is not"
expect_row 7 "|||[node 1 SEND] LDLM_ENQUEUE request xid 0x3180 10.0.0.1@tcp → 10.0.0.2@tcp PW EXTENT" \
	"LDLM_ENQUEUE with lock_count 1 cancels nothing"
expect_row 9 "0x00000000|3|0x00000000005e7e15,0x00000000005e7e16,0x00000000005e7e17|[node 1 SEND] LDLM_CANCEL request xid 0x3200 10.0.0.1@tcp → 10.0.0.2@tcp" \
	"LDLM_CANCEL's handles are cancelled locks"
expect_row 11 "0x00000000|2|0x00000000005e7e18,0x00000000005e7e19|[node 1 SEND] MDS_SWAP_LAYOUTS request xid 0x3280 10.0.0.1@tcp → 10.0.0.2@tcp (cancels 2 locks)" \
	"MDS_SWAP_LAYOUTS cancels two locks in its DLM_REQ buffer (buffer 5)"
expect_count "$v" "lnetcap.mdt.swap_layouts.flags == 0x5 && lnetcap.mdt.swap_layouts.check_dv1 == 1 && lnetcap.mdt.swap_layouts.keep_mtime == 1 && lnetcap.mdt.swap_layouts.check_dv2 == 0" 1
# The enqueued lock's own handle stays an LDLM handle only.
expect_count "$v" "lnetcap.ldlm.handle == 0xc0ffee10" 1
expect_count "$v" "lnetcap.elc.handle == 0xc0ffee10" 0
# Replies carry no ELC buffer.
expect_count "$v" "lnetcap.elc.lock_count && lnetcap.ptlrpc.type == reply" 0
expect_count "$v" "_ws.malformed || lnetcap.ptlrpc.buffer.short" 0

fs="$LNETCAP_SOURCE_DIR/samples/lustre-fs-part1.pcapng"
[ -f "$fs" ] || skip "samples/lustre-fs-part1.pcapng missing"
fs=$(stage "$fs")
# Four LDLM_CANCELs (frames 112, 122, 124, 146) cancel 12 locks; each was
# granted (lnetcap.ldlm.reply.handle) by exactly one earlier enqueue reply.
handles=$(ts -r "$fs" -Y 'lnetcap.ptlrpc.opc == LDLM_CANCEL' -T fields -E occurrence=a \
	-E aggregator=' ' -e lnetcap.elc.handle | tr '\n' ' ')
n=$(echo $handles | wc -w)
[ "$n" = 12 ] || fail "LDLM_CANCELs of the sample name $n locks, expected 12: '$handles'"
for h in $handles; do
	expect_count "$fs" "lnetcap.ldlm.reply.handle == $h" 1
done
expect_count "$fs" "lnetcap.elc.lock_count && lnetcap.ptlrpc.opc == LDLM_CANCEL" 4
