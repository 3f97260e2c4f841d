# SPDX-License-Identifier: GPL-2.0-or-later
# The OUT protocol (lnetcap.out): OUT_UPDATE and MDS_BATCH as Lustre 2.16
# lays them out (layout.c RQF_OUT_UPDATE/RQF_MDS_BATCH, lustre_idl.h,
# obj_update.h), on gen_vectors.cpp out_records():
#  1-2 three inline updates and their three results; 8-9 a batch of two
#  BUT_GETATTR sub-requests and its two sub-replies;
#  3, 4, 5, 6, 10, 11, 12: a count or length past the data (updates,
#  parameters, result lengths, inline length, sub-requests, sub-replies,
#  sub-message buffers); 7 updates cut by the snap length; 13, 14 updates
#  and a batch sent in bulk, with one bulk size fewer than their count.
"$LNETCAP_VECTORS" "$WORK/out.pcapng" out || fail "vector generator failed"
chmod a+r "$WORK/out.pcapng"
v="$WORK/out.pcapng"

fields() {  # fields FRAME FIELD...: one frame's values, tab-separated
	local f=$1 args=()
	shift
	for x in "$@"; do args+=(-e "$x"); done
	ts -r "$v" -Y "frame.number == $f" -T fields -E occurrence=a -E aggregator=, "${args[@]}"
}
expect() {  # expect FRAME WANT WHAT FIELD...
	local f=$1 want=$2 what=$3 got
	shift 3
	got=$(fields "$f" "$@")
	[ "$got" = "$want" ] || fail "frame $f ($what): got '$got', expected '$want'"
	pass "frame $f: $what"
}
t=$'\t'
expect 1 "OUT${t}0xbddf0001${t}1${t}224${t}4096${t}0xbdde0002${t}3${t}1,10,5${t}1,3,1${t}0x00000000,0x00000000,0x00000002${t}[0x240000401:0x9:0x0],[0x200000400:0x5:0x0],[0x240000401:0x9:0x0]${t}16,5,16,4,8" \
	"OUT_UPDATE: CREATE, INDEX_INSERT (3 parameters), ATTR_SET (SYNC)" \
	_ws.col.Protocol lnetcap.out.header.magic lnetcap.out.header.count lnetcap.out.header.inline_length \
	lnetcap.out.header.reply_size lnetcap.out.request.magic lnetcap.out.request.count \
	lnetcap.out.update.type lnetcap.out.update.params_count lnetcap.out.update.flags \
	lnetcap.out.update.fid lnetcap.out.param.len
expect 1 "42424242424242424242424242424242,6469723200,01040040020000000900000000000000,00400000,0707070707070707" \
	"parameter bytes: INDEX_INSERT's are \"dir2\", the child FID, S_IFDIR" lnetcap.out.param.buf
n=$(ts -r "$v" -Y 'frame.number == 1 && lnetcap.fid == "[0x200000400:0x5:0x0]"' -T fields -e frame.number)
[ "$n" = 1 ] || fail "update FIDs not in lnetcap.fid"
pass "update FIDs are in lnetcap.fid"
expect 2 "0x00bd0002${t}3${t}8,24,8${t}0,0,-17${t}0,16,0${t}33333333333333333333333333333333" \
	"OUT_UPDATE reply: results 0, 0 with 16 bytes, -EEXIST" \
	lnetcap.out.reply.magic lnetcap.out.reply.count lnetcap.out.reply.len lnetcap.out.result.rc \
	lnetcap.out.result.datalen lnetcap.out.result.data
expect 8 "0xbadf0001${t}1${t}792${t}65536${t}2${t}0xbade0001${t}2${t}1,1${t}6,6${t}104,8,216,0,6,0,104,8,216,0,6,0${t}file1,file2" \
	"MDS_BATCH: two BUT_GETATTR sub-requests with their names" \
	lnetcap.out.batch.header.magic lnetcap.out.batch.header.count lnetcap.out.batch.header.inline_length \
	lnetcap.out.batch.header.reply_size lnetcap.out.batch.header.update_count \
	lnetcap.out.batch.request.magic lnetcap.out.batch.request.count lnetcap.out.batch.msg.opc \
	lnetcap.out.batch.msg.bufcount lnetcap.out.batch.msg.buflen lnetcap.out.batch.name
expect 9 "0x00ad0001${t}2${t}0,-2${t}2,1" "MDS_BATCH reply: sub-replies 0 and -ENOENT" \
	lnetcap.out.batch.reply.magic lnetcap.out.batch.reply.count lnetcap.out.batch.msg.result \
	lnetcap.out.batch.msg.bufcount

# Hostile counts and lengths: what fits is decoded, then one warning.
expect 3 "500${t}1" "ourq_count 500, one update in the data" lnetcap.out.request.count lnetcap.out.update.type
expect 4 "300${t}12" "300 parameters declared, one in the data" lnetcap.out.update.params_count lnetcap.out.param.len
expect 5 "1000${t}8,0,0,0${t}" "ourp_count 1000 in a 16-byte buffer: the 4 lengths it holds, no result" \
	lnetcap.out.reply.count lnetcap.out.reply.len lnetcap.out.result.rc
expect 6 "4096${t}1" "inline length past the buffer: the update the buffer holds" \
	lnetcap.out.header.inline_length lnetcap.out.update.type
expect 7 "3${t}1" "snapped inside the second update: the first one" lnetcap.out.request.count lnetcap.out.update.type
expect 10 "100${t}1${t}file3" "burq_count 100, one sub-request in the data" \
	lnetcap.out.batch.request.count lnetcap.out.batch.msg.opc lnetcap.out.batch.name
expect 11 "50${t}" "burp_count 50 in an empty buffer" lnetcap.out.batch.reply.count lnetcap.out.batch.msg.result
expect 12 "1000${t}" "sub-request of 1000 buffers: lengths not read" \
	lnetcap.out.batch.msg.bufcount lnetcap.out.batch.msg.buflen
expect 13 "0${t}3${t}4096,1200" "OUT_UPDATE in bulk: ouh_count 3, the 2 sizes the buffer holds" \
	lnetcap.out.header.inline_length lnetcap.out.header.count lnetcap.out.bulk_size
expect 14 "0${t}2${t}40${t}8192" "MDS_BATCH in bulk: buh_count 2, the 1 size the buffer holds" \
	lnetcap.out.batch.header.inline_length lnetcap.out.batch.header.count \
	lnetcap.out.batch.header.update_count lnetcap.out.bulk_size
info=$(ts -r "$v" -T fields -E separator='|' -e frame.number -e _ws.col.Info -e _ws.expert.message)
for want in '1|\[node 1 [A-Z]*\] OUT_UPDATE request .* 3 update(s): OUT_CREATE OUT_INDEX_INSERT OUT_ATTR_SET|$' \
	'2|\[node 1 [A-Z]*\] OUT_UPDATE reply .* 3 result(s)|$' \
	'3|.*|object_update: needs 40 bytes at offset 312, but the message says its data end at offset 312$' \
	'4|.*|object_update_param: needs 8 bytes at offset 312, but the message says its data end at offset 312$' \
	'5|.*ourp_lens: needs 2 bytes at offset 240, but the message says its data end at offset 240$' \
	'6|.*|Inline length 4096 is past the end of the buffer (72 bytes left)$' \
	'7|.*|object_update was not captured: snap length too small$' \
	'8|\[node 1 [A-Z]*\] MDS_BATCH request .* 2 sub-request(s)|$' \
	'10|.*|batched lustre_msg: needs 32 bytes at offset 648, but the message says its data end at offset 648$' \
	'11|.*batched lustre_msg: needs 32 bytes at offset 232, but the message says its data end at offset 232$' \
	'12|.*|lm_bufcount 1000: more than 32 buffers$' \
	'13|\[node 1 [A-Z]*\] OUT_UPDATE request .* (3 bulk buffer(s))|update buffer size: needs 8 bytes at offset 264, but the message says its data end at offset 264$' \
	'14|\[node 1 [A-Z]*\] MDS_BATCH request .* 40 sub-request(s) (2 bulk buffer(s))|update buffer size: needs 8 bytes at offset 264, but the message says its data end at offset 264$'; do
	grep -q "^$want" <<<"$info" || fail "Info/expert: no line matching '$want'"
done
pass "Info column and one warning per hostile list"
expect_count "$v" "lnetcap.out" 14
expect_count "$v" "lnetcap.ptlrpc.body.undecoded" 0
# Malformed only where a count or length lies (our warnings), never an exception.
expect_count "$v" "_ws.malformed && !lnetcap.out.overrun" 0
expect_count "$v" "lnetcap.out.overrun" 9
