# SPDX-License-Identifier: GPL-2.0-or-later
# An anonymized trace still dissects fully: samples/lustre-fs-part1.pcapng
# (real Lustre 2.16.1 traffic, see samples/README.md) rewritten with
# `lnetcap --anon-key` keeps its 65 requests and 65 replies, every reply
# still finds its request, every bulk transfer its RPC (by XID and, for a
# REPLY, by the pseudonym of its GET's MD handle), nothing is malformed, and the original NIDs,
# target names and file names are gone from what tshark shows.
fs="$LNETCAP_SOURCE_DIR/samples/lustre-fs-part1.pcapng"
[ -f "$fs" ] || skip "samples/lustre-fs-part1.pcapng missing"
[ -x "${LNETCAP_BINARY:-}" ] || skip "lnetcap binary not built"
"$LNETCAP_BINARY" -r "$fs" -w "$WORK/anon.pcapng" --anon-key "$WORK/key" 2>"$WORK/anon.err" ||
	fail "lnetcap --anon-key failed: $(cat "$WORK/anon.err")"
chmod a+r "$WORK/anon.pcapng"
a="$WORK/anon.pcapng"

expect_count "$a" "lnetcap.ptlrpc.type == 4711" 65
expect_count "$a" "lnetcap.ptlrpc.type == 4713" 65
expect_count "$a" "lnetcap.response_to" 65
expect_count "$a" "_ws.malformed" 0
expect_count "$a" "lnetcap.ptlrpc.opc == LDLM_ENQUEUE && lnetcap.ptlrpc.type == 4711" 21
# Bulk transfers still find their RPC: a REPLY names its GET by the wire MD
# handle, which the anonymizer replaced by a keyed pseudonym (the same one
# in both), and the XIDs of requests and bulk moved by one offset.
bulk=$(count "$fs" "lnetcap.ptlrpc.bulk_of")
[ "$bulk" -gt 0 ] || fail "the original trace has no bulk transfer tied to its RPC"
expect_count "$a" "lnetcap.ptlrpc.bulk_of" "$bulk"
replies=$(count "$fs" "lnetcap.lnet.type == 3 && lnetcap.ptlrpc.bulk_of")  # REPLY of a bulk GET
[ "$replies" -gt 0 ] || fail "the original trace has no bulk GET's REPLY tied to its RPC"
expect_count "$a" "lnetcap.lnet.type == 3 && lnetcap.ptlrpc.bulk_of" "$replies"

ts -r "$a" -V >"$WORK/anon.txt" 2>/dev/null || fail "tshark -V failed on the anonymized trace"
for leak in 10.0.3.1@tcp 10.0.3.2@tcp lfs-MDT0000_UUID dir1 file1; do
	! grep -qF "$leak" "$WORK/anon.txt" || fail "'$leak' is still visible after anonymization"
done
pass "anonymized trace dissects with nothing identifying left"
