# SPDX-License-Identifier: GPL-2.0-or-later
# MDT bodies beyond mdt_body and the reint records (issue 13), on the records
# of gen_vectors.cpp mdt_records() (byte layouts from Lustre 2.16.1's
# layout.c and lustre_idl.h, the ACL from linux/posix_acl_xattr.h):
#  - getxattr and listxattr replies (MDS_GETXATTR), the xattr cache refill
#    of an IT_GETXATTR enqueue: names and values as lnetcap.mdt.xattr.*;
#  - POSIX ACLs in RMF_ACL of getattr and open intent replies, also inside
#    an xattr value named system.posix_acl_access (lnetcap.mdt.acl.*);
#  - DoM data in RMF_NIOBUF_INLINE of open intent replies (2.16 and 2.15
#    layouts), the layout_intent of IT_LAYOUT enqueues, the whole mdt_ioepoch
#    of MDS_CLOSE;
#  - hostile and snapped buffers: flagged, never decoded past their bytes;
#    a zeroed ACL (what lnetcap --anon-key leaves) noted, not malformed.
# Every check runs (a failure does not stop the others), so a run without
# the decoders lists everything they provide.
"$LNETCAP_VECTORS" "$WORK/mdt.pcapng" mdt || fail "vector generator failed"
chmod a+r "$WORK/mdt.pcapng"
m="$WORK/mdt.pcapng"
t=$'\t'

bad() { fail_later "$*"; }

X="lnetcap.mdt.xattr.name lnetcap.mdt.xattr.value lnetcap.mdt.xattr.value_len lnetcap.mdt.xattr.count"
A="lnetcap.mdt.acl.version lnetcap.mdt.acl.tag lnetcap.mdt.acl.perm lnetcap.mdt.acl.id"
D="lnetcap.mdt.dom.offset lnetcap.mdt.dom.len lnetcap.mdt.dom.data"
L="lnetcap.ldlm.layout_intent.opc lnetcap.ldlm.layout_intent.flags lnetcap.ldlm.layout_intent.start lnetcap.ldlm.layout_intent.end"
E="lnetcap.mdt.ioepoch.open_handle lnetcap.mdt.ioepoch.unused1 lnetcap.mdt.ioepoch.unused2 lnetcap.mdt.ioepoch.padding"
O="lnetcap.ptlrpc.msg.byte_order lnetcap.lov.magic lnetcap.lov.stripe_size lnetcap.ldlm.layout_intent.flags.incompressible"
U=4294967295  # ACL_UNDEFINED_ID

# One tshark run for every field the checks read (tshark is slow to start).
ALL=(frame.number _ws.col.Info $X $A $D $L $E $O)
args=()
for f in "${ALL[@]}"; do args+=(-e "$f"); done
ts -r "$m" -T fields -E occurrence=a -E aggregator=, "${args[@]}" > "$WORK/all.txt" ||
	fail "tshark failed on the MDT records"
col() {  # col NAME: column of field NAME in all.txt
	local i
	for i in "${!ALL[@]}"; do [ "${ALL[$i]}" = "$1" ] && { echo $((i + 1)); return; }; done
	fail "field $1 not read"
}
# expect FRAME "FIELD..." EXPECTED WHAT: the fields of one frame, tab-
# separated, every occurrence, joined by ','.
expect() {
	local cols=() f got
	for f in $2; do cols+=("$(col "$f")"); done
	got=$(awk -F'\t' -v fr="$1" -v c="${cols[*]}" 'BEGIN { n = split(c, k, " ") }
		$1 == fr { for (i = 1; i <= n; i++) printf "%s%s", $(k[i]), (i < n ? "\t" : "\n") }' \
		"$WORK/all.txt")
	if [ "$got" = "$3" ]; then pass "frame $1: $4"; else bad "frame $1 ($4): got '$got', expected '$3'"; fi
}
# expect_info FRAME TEXT: the Info column of the frame contains TEXT.
expect_info() {
	local got
	got=$(awk -F'\t' -v fr="$1" '$1 == fr { print $2 }' "$WORK/all.txt")
	case "$got" in *"$2"*) pass "frame $1 Info has '$2'" ;; *) bad "frame $1 Info '$got' lacks '$2'" ;; esac
}
# frames FILTER EXPECTED: the frame numbers a filter matches.
frames() {
	local got
	got=$(ts -r "$m" -Y "$1" -T fields -e frame.number | tr '\n' ' ')
	[ "$got" = "$2" ] && pass "'$1' matches frames $2" || bad "'$1' matched '$got', expected '$2'"
}

# 1. getxattr: the request names the xattr, the reply carries "blue" under
#    that name (taken from the request).
expect 1 "$X" "user.color${t}${t}${t}" "getxattr request names the xattr"
expect_info 1 'getxattr "user.color"'
expect 2 "$X" "user.color${t}626c7565${t}4${t}" "getxattr reply value under the request's name"
expect_info 2 '"user.color" 4 bytes'
#    A size probe (request mbo_eadatasize 0): the length only.
expect_info 25 'getxattr "security.selinux" (size only)'
expect 26 "$X" "security.selinux${t}${t}37${t}" "size probe reply: value length, no value"
# 2. listxattr: four NUL-separated names, three in the Info column.
expect 4 "$X" "user.color,trusted.lov,system.posix_acl_access,security.selinux${t}${t}${t}4" \
	"listxattr reply names"
expect_info 3 "listxattr"
expect_info 4 "xattrs: user.color, trusted.lov, system.posix_acl_access (+1 more)"
# 3. RMF_ACL of a getattr reply in a big-endian message: the ACL itself is
#    little-endian (USER_OBJ rw-, USER 1001 r--, GROUP_OBJ r--, MASK r-x, OTHER ---).
expect 6 "lnetcap.ptlrpc.msg.byte_order $A" \
	"1${t}2${t}0x0001,0x0002,0x0004,0x0010,0x0020${t}6,4,4,5,0${t}$U,1001,$U,$U,$U" \
	"getattr reply ACL, five entries"
frames "lnetcap.mdt.acl.tag == USER && lnetcap.mdt.acl.id == 1001 && lnetcap.mdt.acl.perm.read" "6 20 "
# 4. IT_GETXATTR: names, values and lengths of the xattr cache; the ACL
#    value decoded as an ACL (USER_OBJ rwx, GROUP 2002 r-x, OTHER --x).
expect 8 "$X" "user.color,system.posix_acl_access${t}626c7565,0200000001000700ffffffff08000500d207000020000100ffffffff${t}4,28${t}2" \
	"xattr cache refill: two names, two values"
expect 8 "$A" "2${t}0x0001,0x0008,0x0020${t}7,5,1${t}$U,2002,$U" "the system.posix_acl_access value is an ACL"
expect_info 8 "xattrs: user.color, system.posix_acl_access"
# 5. Open intent replies: ACL in slot 4, DoM data in NIOBUF_INLINE (slot 7)
#    of the 2.16 (11 buffers) and 2.15 (10 buffers) layouts.
expect 10 "$A $D" "2${t}0x0001,0x0008,0x0020${t}7,5,1${t}$U,2002,$U${t}0${t}11${t}68656c6c6f20776f726c64" \
	"open reply (2.16): ACL and 'hello world' inline"
expect_info 10 "DoM data 11 bytes at 0"
expect 11 "$A $D" "${t}${t}${t}${t}4096${t}5${t}7461696c0a" "open reply (2.15): file tail at 4096, no ACL"
# 6. Layout intents.
expect 12 "$L" "2${t}0x00000000${t}0${t}1048576" "IT_LAYOUT WRITE [0, 1 MiB)"
expect_info 12 "intent layout WRITE [0, 1048576)"
expect 13 "lnetcap.lov.magic lnetcap.lov.stripe_size" "0x0bd10bd0${t}1048576" "its reply's LVB is the layout"
expect 14 "$L lnetcap.ldlm.layout_intent.flags.incompressible" \
	"4${t}0x00000001${t}4096${t}18446744073709551615${t}1" "IT_LAYOUT TRUNC [4096, EOF), LAIF_INCOMPRESSIBLE"
expect_info 14 "intent layout TRUNC [4096, EOF)"
# 7. mdt_ioepoch of MDS_CLOSE, every field.
expect 15 "$E" \
	"0x6a6b6c6d6e6f7071${t}0x1111111111111111${t}0x22222222${t}0x33333333" "mdt_ioepoch: handle, unused1, unused2, padding"

# 8. Hostile and snapped buffers.
#    A length past RMF_EAVALS: the first value only, and a warning.
expect 17 "$X" "user.color,system.posix_acl_access${t}626c7565${t}4${t}2" "xattr value past EAVALS not decoded"
#    DoM data cut by the snap length: the 300 captured bytes, noted.
got=$(awk -F'\t' '$1 == 18 { print $'"$(col lnetcap.mdt.dom.len)"' " " length($'"$(col lnetcap.mdt.dom.data)"') }' \
	"$WORK/all.txt")
[ "$got" = "2000 600" ] && pass "frame 18: snapped DoM data shows the 300 captured bytes of 2000" ||
	bad "frame 18: snapped DoM data: length and hex digits '$got', expected '2000 600'"
#    An ACL of version 1: no entries.
expect 19 "$A" "1${t}${t}${t}" "ACL version 1 not decoded"
#    An ACL cut after two entries: those two only.
expect 20 "$A" "2${t}0x0001,0x0002${t}6,4${t}$U,1001" "snapped ACL: the captured entries only"
#    A getxattr reply without its request: value or name list, unknown.
expect 21 "$X" "${t}${t}${t}" "getxattr reply without request: no guess"
expect_info 21 "4 bytes of xattr data"
#    rnb_len beyond the buffer: no data.
expect 22 "$D" "0${t}500${t}" "rnb_len past NIOBUF_INLINE: no data"
#    An ACL buffer without OBD_MD_FLACL: not decoded.
expect 23 "$A" "${t}${t}${t}" "RMF_ACL without OBD_MD_FLACL ignored"
#    A zeroed ACL (anonymized capture): noted, not malformed.
expect 24 "$A" "0${t}${t}${t}" "zeroed ACL: no entries"
frames "lnetcap.mdt.acl.zeroed" "24 "
frames "lnetcap.mdt.xattr.bad" "17 "
frames "lnetcap.mdt.acl.bad" "19 "
frames "lnetcap.mdt.dom.bad" "22 "
frames "lnetcap.ptlrpc.truncated" "18 20 "
# Only what the checks above flag is malformed; no structure overran its buffer.
frames "_ws.malformed" "17 19 22 "
frames "lnetcap.ptlrpc.buffer.short" ""

# 9. Mutated and cut copies of these records: no exception, no abort.
if command -v editcap >/dev/null && command -v mergecap >/dev/null; then
	parts=()
	for ((i = 0; i < 40; i++)); do
		if ((i % 4 == 3)); then
			editcap -s $((100 + i * 23)) "$m" "$WORK/f$i.pcapng" >/dev/null 2>&1 || fail "editcap -s"
		else
			editcap -E 0.03 --seed $((i + 1)) "$m" "$WORK/f$i.pcapng" >/dev/null 2>&1 || fail "editcap -E"
		fi
		parts+=("$WORK/f$i.pcapng")
	done
	mergecap -a -w "$WORK/fuzz.pcapng" "${parts[@]}" || fail "mergecap"
	chmod a+r "$WORK/fuzz.pcapng"
	ts -2 -V -r "$WORK/fuzz.pcapng" > "$WORK/fuzz.txt" 2> "$WORK/fuzz.err" ||
		bad "tshark failed on mutated MDT records: $(tail -2 "$WORK/fuzz.err")"
	n=$(grep -c "Malformed Packet" "$WORK/fuzz.txt" || true)
	[ "$n" = 0 ] && pass "40 mutated copies: no exception" || bad "$n exceptions on mutated MDT records"
fi

# 10. Real Lustre 2.16.1 traffic (samples/lustre-fs-part1.pcapng): every open
#     intent reply has the 2.16 layout (11 buffers) with RMF_NIOBUF_INLINE in
#     slot 7 holding a bare niobuf_remote (no DoM file there: length 0), and
#     every MDS_CLOSE carries a whole mdt_ioepoch.
fs="$LNETCAP_SOURCE_DIR/samples/lustre-fs-part1.pcapng"
if [ -f "$fs" ]; then
	fs=$(stage "$fs")
	opens=$(ts -r "$fs" -Y 'lnetcap.ptlrpc.opc == LDLM_ENQUEUE && lnetcap.ptlrpc.type == 4713 && lnetcap.ptlrpc.msg.bufcount == 11' \
		-T fields -e frame.number | tr '\n' ' ')
	doms=$(ts -r "$fs" -Y 'lnetcap.mdt.dom.offset == 0 && lnetcap.mdt.dom.len == 0 && !lnetcap.mdt.dom.data' \
		-T fields -e frame.number | tr '\n' ' ')
	[ -n "$opens" ] && [ "$opens" = "$doms" ] && pass "real open replies ($opens): NIOBUF_INLINE in slot 7, empty" ||
		bad "real open replies '$opens' vs NIOBUF_INLINE decoded in '$doms'"
	closes=$(ts -r "$fs" -Y 'lnetcap.ptlrpc.opc == MDS_CLOSE && lnetcap.ptlrpc.type == 4711' -T fields -e frame.number | wc -l)
	epochs=$(ts -r "$fs" -Y 'lnetcap.mdt.ioepoch.unused1 == 0 && lnetcap.mdt.ioepoch.unused2 == 0 && lnetcap.mdt.ioepoch.padding == 0' \
		-T fields -e frame.number | wc -l)
	[ "$closes" -gt 0 ] && [ "$closes" = "$epochs" ] && pass "real MDS_CLOSE ($closes): whole mdt_ioepoch, unused slots zero" ||
		bad "real MDS_CLOSE: $closes requests, $epochs whole mdt_ioepochs"
	n=$(ts -r "$fs" -Y '_ws.malformed || lnetcap.mdt.xattr.bad || lnetcap.mdt.acl.bad || lnetcap.mdt.dom.bad' -T fields -e frame.number | wc -l)
	[ "$n" = 0 ] && pass "real traffic: nothing flagged" || bad "real traffic: $n frames flagged"
fi
