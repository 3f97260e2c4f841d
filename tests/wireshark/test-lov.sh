# SPDX-License-Identifier: GPL-2.0-or-later
# LVBs decoded by lock type and LOV layouts wherever they travel.
#  - gen_vectors.cpp lvb_records(): a layout lock whose LVB is a 1-stripe
#    lov_mds_md_v1 (56 bytes, the size of an ost_lvb: it was shown as one),
#    a PFL composite layout in a completion callback, a quota lock's
#    lquota_lvb and an extent lock's ost_lvb;
#  - the real corpus (samples/lustre-fs-part1.pcapng, Lustre 2.16.1): the
#    open intent replies carry the file's layout in MDT_MD.
"$LNETCAP_VECTORS" "$WORK/lvb.pcapng" lvb || fail "vector generator failed"
chmod a+r "$WORK/lvb.pcapng"
v="$WORK/lvb.pcapng"

row() {  # row FRAME: the LVB-related fields of one frame
	ts -r "$v" -Y "frame.number == $1" -T fields -E occurrence=a -E aggregator=, \
		-e lnetcap.lov.magic -e lnetcap.lov.fid -e lnetcap.lov.stripe_count \
		-e lnetcap.lov.object.oi -e lnetcap.lov.object.ost_idx -e lnetcap.lov.pool \
		-e lnetcap.lov.comp.start -e lnetcap.lov.comp.end -e lnetcap.ldlm.lvb.size \
		-e lnetcap.ldlm.qlvb.flags -e lnetcap.ldlm.qlvb.id_qunit
}
t=$'\t'
expect_row 2 "0x0bd10bd0${t}[0x200000401:0x2:0x0]${t}1${t}0x240000400:16${t}0${t}${t}${t}${t}${t}${t}" \
	"layout lock LVB is a lov_mds_md_v1, not an ost_lvb"
expect_row 3 "0x0bd60bd0,0x0bd10bd0,0x0bd30bd0${t}[0x200000401:0x2:0x0],[0x200000401:0x2:0x0]${t}1,2${t}0x280000400:16,0x2c0000400:16,0x300000400:17${t}1,2,3${t}flash${t}0,1048576${t}1048576,18446744073709551615${t}${t}${t}" \
	"composite layout: two components, v1 and v3 with pool"
expect_row 5 "${t}${t}${t}${t}${t}${t}${t}${t}${t}0x0000000000000001${t}1048576" "quota lock LVB is an lquota_lvb"
expect_row 7 "${t}${t}${t}${t}${t}${t}${t}${t}8192${t}${t}" "extent lock LVB is an ost_lvb"
# An LVB as long as an mdt_body (216 bytes: a 7-stripe v3 layout) is still
# an LVB: the reply's format says so (the request's IT_LAYOUT; without the
# request, the reply's 3 buffers), not the buffer's size.
seven="0x240000400:16,0x280000400:17,0x2c0000400:18,0x300000400:19,0x240000400:20,0x280000400:21,0x2c0000400:22"
for f in 9 10; do
	expect_row $f "0x0bd30bd0${t}[0x200000401:0x2:0x0]${t}7${t}${seven}${t}0,1,2,3,4,5,6${t}flash${t}${t}${t}${t}${t}" \
		"216-byte layout LVB of an IT_LAYOUT reply (frame $f) is a lov_mds_md_v3, not an mdt_body"
done
expect_count "$v" "frame.number >= 9 && lnetcap.mdt" 0
expect_count "$v" "_ws.malformed || lnetcap.lov.bad" 0

fs="$LNETCAP_SOURCE_DIR/samples/lustre-fs-part1.pcapng"
[ -f "$fs" ] || skip "samples/lustre-fs-part1.pcapng missing"
fs=$(stage "$fs")
got=$(ts -r "$fs" -Y "frame.number == 69" -T fields -e lnetcap.lov.magic -e lnetcap.lov.fid \
	-e lnetcap.lov.stripe_size -e lnetcap.lov.object.oi -e lnetcap.lov.object.ost_idx)
[ "$got" = "0x0bd10bd0${t}[0x200000401:0x2:0x0]${t}4194304${t}0x240000400:2${t}0" ] ||
	fail "corpus frame 69 (open reply) MDT_MD layout: '$got'"
pass "real open reply: file1's layout, one stripe on OST0000 object 0x240000400:2"
