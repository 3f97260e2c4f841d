# SPDX-License-Identifier: GPL-2.0-or-later
# Real traffic: samples/lustre-fs-part1.pcapng and samples/lnet-socklnd.pcapng,
# the lnetcap conversions of tests/data/corpus/*.pcap (Lustre 2.16.1, see
# samples/README.md).  Counts come from the corpus README: 65 requests and
# 65 replies with LDLM_ENQUEUE 21, LDLM_CANCEL 4, MDS_CLOSE 7, OST_WRITE 4,
# OST_READ 1, OBD_PING 5...; the socklnd capture has 2910 LNet messages
# (1928 PUT, 490 GET, 490 REPLY, 2 ACK).
fs="$LNETCAP_SOURCE_DIR/samples/lustre-fs-part1.pcapng"
sl="$LNETCAP_SOURCE_DIR/samples/lnet-socklnd.pcapng"
[ -f "$fs" ] && [ -f "$sl" ] || skip "samples/lustre-fs-part1.pcapng or lnet-socklnd.pcapng missing"
fs=$(stage "$fs")
sl=$(stage "$sl")

expect_count "$fs" "lnetcap.ptlrpc.type == 4711" 65
expect_count "$fs" "lnetcap.ptlrpc.type == 4713" 65
# Every reply finds its request, every request its reply (two passes).
expect_count "$fs" "lnetcap.response_to" 65
n=$(ts -2 -r "$fs" -Y "lnetcap.response_in" -T fields -e frame.number | wc -l)
[ "$n" = 65 ] || fail "$n requests found their reply, expected 65"
pass "65 request/reply pairs"
expect_count "$fs" "_ws.malformed" 0
expect_count "$fs" "lnetcap.ptlrpc.opc == LDLM_ENQUEUE && lnetcap.ptlrpc.type == 4711" 21
# A successful OST_READ reply returns the byte count in pb_status: shown as
# bytes, not as a status, in no status statistics and no error expert info.
expect_count "$fs" 'lnetcap.ptlrpc.io_bytes == 1048576 && !lnetcap.ptlrpc.status && !_ws.expert' 1
ts -q -r "$fs" -z lnetcap,tree | grep -q 1048576 && fail "a byte count counted as a reply status"
pass "OST_READ byte count kept out of the status statistics"
# The one error in the trace: the client asks for a config llog that does not exist.
expect_count "$fs" "lnetcap.ptlrpc.status == -2" 1
# Bodies on real bytes.
expect_count "$fs" 'lnetcap.mdt.name == "dir1" && lnetcap.mdt.reint.opcode == 2' 1
expect_count "$fs" 'lnetcap.ldlm.intent.open && lnetcap.mdt.name == "big"' 2
expect_count "$fs" 'lnetcap.ldlm.res.type == 11 && lnetcap.ldlm.lock.req_mode == 2' 8
expect_count "$fs" 'lnetcap.ost.niobuf.len == 1048576' 2
# ost_id of OST I/O (obdo and obd_ioobj) is a FID on this OST: the bytes
# [0x240000400:0x2:0x0] print as Lustre's DOSTID 0x240000400:2 (ostid_seq:
# ostid_id), not as the raw halves 0x2:9663677440.
expect_count "$fs" 'lnetcap.ost.oa.oi == "0x240000400:2" && lnetcap.ost.ioobj.oi == "0x240000400:2"' 1
expect_count "$fs" 'lnetcap.ost.oa.oi == "0x240000400:2"' 2
expect_count "$fs" 'lnetcap.ost.oa.oi == "0x240000400:5" && lnetcap.ost.oi.fid == "[0x240000400:0x5:0x0]" && lnetcap.ost.oi.form == 3' 6
# Object 4: the OST_WRITE request and reply, and the layout of the open reply before them.
expect_count "$fs" 'lnetcap.ost.oi.seq == 0x240000400 && lnetcap.ost.oi.id == 4' 3
expect_count "$fs" 'lnetcap.obd.target_uuid == "lfs-MDT0000_UUID"' 1
expect_count "$fs" 'lnetcap.obd.ocd.connect_flags2.rep_mbits' 6
# statfs replies: the MDT (ZFS, 128 KiB blocks) and the OST.
expect_count "$fs" 'lnetcap.obd.statfs.bsize == 131072' 3
expect_count "$fs" 'lnetcap.ptlrpc.opc == OST_STATFS && lnetcap.obd.statfs.blocks == 1775' 1
# Bulk transfers and ACKs link to their RPC: MGS config (PUT+ACK), readpage
# (PUT+ACK), the 1 MiB write (server GET + client REPLY) and read (PUT+ACK);
# five ACKs of "difficult" replies (reint, open enqueues).
n=$(ts -r "$fs" -Y lnetcap.ptlrpc.bulk_of -T fields -e frame.number -e lnetcap.ptlrpc.bulk_of | tr '\t\n' ': ')
[ "$n" = "26:25 27:25 54:53 55:53 63:61 70:68 77:75 84:82 97:95 101:100 102:100 139:138 140:138 " ] ||
	fail "bulk/ACK links: '$n'"
pass "bulk transfers and reply ACKs linked to their RPC"
# Every body of this 2.16.1 traffic is decoded: delegate_lustre hands
# nothing to the built-in 'lustre' dissector.  With LLOG disabled, its
# bodies go to the built-in, which rewrites Protocol and Info: ours (XID,
# status) must survive.
n=$(ts -r "$fs" -o lnetcap.delegate_lustre:TRUE -Y lustre -T fields -e frame.number | wc -l)
[ "$n" = 0 ] || fail "delegate_lustre: $n frames still need the built-in lustre dissector"
n=$(ts -r "$fs" -o lnetcap.delegate_lustre:TRUE --disable-protocol lnetcap.llog -Y lustre \
	-T fields -e frame.number | wc -l)
[ "$n" = 14 ] || fail "delegate_lustre: $n LLOG frames handed to the built-in with LLOG disabled, want 14"
diff <(ts -r "$fs" --disable-protocol lnetcap.llog -T fields -e _ws.col.Protocol -e _ws.col.Info) \
	<(ts -r "$fs" -o lnetcap.delegate_lustre:TRUE --disable-protocol lnetcap.llog -T fields \
		-e _ws.col.Protocol -e _ws.col.Info) ||
	fail "delegate_lustre changed the Protocol/Info columns"
pass "delegate_lustre keeps Protocol and Info ($n frames delegated)"
# Following one file: lnetcap.fid matches a FID wherever it is (open
# enqueue, its reply, the close, and the OST_WRITE whose obdo names the file
# as parent).
n=$(ts -r "$fs" -Y 'lnetcap.fid == "[0x200000401:0x2:0x0]"' -T fields -e frame.number | tr '\n' ' ')
[ "$n" = "68 69 73 87 89 " ] || fail "frames of file [0x200000401:0x2:0x0]: '$n'"
pass "lnetcap.fid follows one file across MDT and OST RPCs"
# An opcode or XID filter keeps the RPC's bulk transfers and ACKs.
n=$(ts -r "$fs" -Y 'lnetcap.ptlrpc.xid == 0x6b02500e01a80' -T fields -e frame.number | tr '\n' ' ')
[ "$n" = "100 101 102 103 " ] || fail "xid filter of the 1 MiB OST_WRITE: '$n'"
expect_count "$fs" 'lnetcap.ptlrpc.opc == OST_READ && lnetcap.ptlrpc.bulk_of' 2
# The outcome of intents: DISP_* bits of the open replies (created and opened).
expect_count "$fs" 'lnetcap.ldlm.disposition.open_create == 1 && lnetcap.ldlm.disposition.open_open == 1' 4
expect_count "$fs" 'lnetcap.ldlm.disposition.lookup_pos == 1 && lnetcap.ldlm.disposition.open_open == 0' 5
# Times are dates (run.sh sets TZ=UTC).
expect_count "$fs" 'lnetcap.ost.oa.mtime == "Nov 22, 2026 02:17:27" && lnetcap.ptlrpc.opc == OST_WRITE' 2
# ~0 sentinels read as words, not 4294967295.
ts -r "$fs" -V > "$WORK/tree.txt" || fail "tshark -V failed"
# (Other values are plain numbers: test-labels.sh.)
sentinel='(CPU|Supplementary GID[ 12]*|Extent end): (4294967295|18446744073709551615)$'
grep -Eq "$sentinel" "$WORK/tree.txt" &&
	fail "a ~0 sentinel printed as a bare number: $(grep -Em1 "$sentinel" "$WORK/tree.txt")"
grep -q 'CPU: unknown (4294967295)' "$WORK/tree.txt" && grep -q 'Extent end: EOF' "$WORK/tree.txt" &&
	grep -q 'Supplementary GID: none' "$WORK/tree.txt" || fail "sentinels not named"
pass "CPU unknown, suppgid none, extent end EOF"
# Truncation notes only where a decoder needed the bytes: the 7 snapped
# records (bulk data, LLOG bodies this plugin does not decode) get none.
expect_count "$fs" 'lnetcap.rec.truncated' 7
expect_count "$fs" 'lnetcap.rec.truncated && _ws.expert.message contains "snap"' 0
# Fields o_valid/mbo_valid do not declare valid say so (Lustre ignores them):
# the OST_WRITE reply's o_nlink is not valid, its o_size is.
ts -r "$fs" -Y 'frame.number == 89' -V > "$WORK/f89.txt"
grep -q 'Links: 34341249 \[not valid: OBD_MD_FLNLINK not set\]' "$WORK/f89.txt" &&
	grep -qx ' *Size: 8' "$WORK/f89.txt" || fail "o_valid marks on frame 89: $(grep -E 'Links|Size' "$WORK/f89.txt")"
ts -r "$fs" -Y 'frame.number == 143' -V | grep -q 'Size: 0 \[not valid: OBD_MD_FLSIZE not set\]' ||
	fail "mbo_valid 0 not shown as invalid fields on frame 143"
pass "fields outside o_valid/mbo_valid marked not valid"
ts -q -r "$fs" -z lnetcap,srt | golden corpus-fs-srt.txt
ts -2 -r "$fs" -T fields -E separator='|' -e frame.number -e _ws.col.Info | golden corpus-fs-info.txt

# LNet-only traffic: ping, discovery, selftest.
expect_count "$sl" "lnetcap.lnet.type == 1" 1928
expect_count "$sl" "lnetcap.lnet.type == 2" 490
expect_count "$sl" "lnetcap.lnet.type == 3" 490
expect_count "$sl" "lnetcap.lnet.type == 0" 2
expect_count "$sl" "_ws.malformed" 0
n=$(ts -r "$sl" -Y "lnetcap.ping" -T fields -e frame.number | wc -l)
[ "$n" -gt 0 ] || fail "no ping info decoded in the socklnd capture"
pass "$n ping/push payloads decoded"

# MGS_CONFIG_READ of the client's recovery log (bytes checked by hand
# against lustre_idl.h's mgs_config_body/mgs_config_res): the request asks
# for "lfs-cliir" from index 1, type RECOVER (2) with 20-byte NIDs, 2^12-byte
# units, 256 of them; the reply's last index and size are both 4.
n=$(ts -r "$fs" -Y lnetcap.mgs -T fields -E separator=, -e frame.number \
	-e lnetcap.mgs.config.name -e lnetcap.mgs.config.offset -e lnetcap.mgs.config.type \
	-e lnetcap.mgs.config.rec_nid_size -e lnetcap.mgs.config.bits -e lnetcap.mgs.config.units \
	-e lnetcap.mgs.config.res_offset -e lnetcap.mgs.config.res_size | tr '\n' ' ')
[ "$n" = "25,lfs-cliir,1,2,20,12,256,, 28,,,,,,,4,4 " ] || fail "MGS_CONFIG_READ: '$n'"
pass "MGS_CONFIG_READ body and result"

# LLOG: the client opens its config logs by name, reads the header of
# "lfs-client" (24 records of a plain log, LLOG_F_IS_PLAIN) and its first
# block: lustre_cfg records MARKER "lov setup", ATTACH, SETUP, MARKER; the
# fifth record is cut by the 1200-byte snap and says so in the tree (no
# expert info: records past the snap are the rule, not a problem).
n=$(ts -r "$fs" -Y 'lnetcap.llog.name' -T fields -e lnetcap.llog.name | tr '\n' ' ')
[ "$n" = "lfs-sptlrpc lfs-client params " ] || fail "LLOG log names: '$n'"
n=$(ts -r "$fs" -Y 'frame.number == 18' -T fields -E separator=, -e lnetcap.llog.hdr.count \
	-e lnetcap.llog.hdr.size -e lnetcap.llog.hdr.flags -e lnetcap.llog.hdr.tgtuuid)
[ "$n" = "24,80,0x00000004,config_uuid" ] || fail "llog_log_hdr: '$n'"
n=$(ts -r "$fs" -Y 'frame.number == 20' -T fields -E separator=, -E occurrence=a -E aggregator=';' \
	-e lnetcap.llog.rec.index -e lnetcap.llog.cfg.command -e lnetcap.llog.cfg.buf \
	-e lnetcap.llog.marker.tgtname -e lnetcap.llog.marker.comment)
[ "$n" = "1;2;3;4;5,0x000cf010;0x000cf001;0x000cf003;0x000cf010,lfs-clilov;lov;lfs-clilov_UUID;lfs-clilov;,lfs-clilov;lfs-clilov,lov setup;lov setup" ] ||
	fail "config log records: '$n'"
ts -r "$fs" -Y 'frame.number == 20' -V | grep -q 'Record 5: OBD_CFG_REC \[cut by the snap length\]' ||
	fail "record 5 of frame 20 not marked as cut"
pass "LLOG names, header and lustre_cfg records"

# Early lock cancel: the CREATE of "dir1" (frame 61) carries in its
# RMF_DLM_REQ slot (buffer 5, layout.c mds_reint_create_*_client) an
# ldlm_request cancelling one lock: the PR IBITS lock granted in frame 48.
n=$(ts -r "$fs" -Y 'lnetcap.elc.lock_count && lnetcap.ptlrpc.opc == MDS_REINT' -T fields -E separator=, -e frame.number \
	-e lnetcap.elc.lock_count -e lnetcap.elc.handle)
[ "$n" = "61,1,0x2801a493bd8aae8b" ] || fail "early lock cancel: '$n'"
expect_count "$fs" 'lnetcap.ldlm.reply.handle == 0x2801a493bd8aae8b' 1
pass "early-lock-cancel buffer of MDS_REINT"

# SEQ_QUERY: the client asks for a metadata sequence (SEQ_ALLOC_META) and is
# granted [0x200000401, 0x200000402) on MDT0, the sequence of the FIDs of
# every file it then creates ([0x200000401:0x2:0x0] above).
n=$(ts -r "$fs" -Y lnetcap.seq -T fields -E separator=, -e frame.number -e lnetcap.seq.op \
	-e lnetcap.seq.range.start -e lnetcap.seq.range.end -e lnetcap.seq.range.flags | tr '\n' ' ')
[ "$n" = "59,1,0x0000000000000000,0x0000000000000000,0x00000000 60,,0x0000000200000401,0x0000000200000402,0x00000000 " ] ||
	fail "SEQ_QUERY: '$n'"
pass "SEQ_QUERY operation and granted range"
