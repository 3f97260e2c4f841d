# SPDX-License-Identifier: GPL-2.0-or-later
# The display filters the Wireshark GUI builds from the plugin's
# Conversations and Endpoints tables ("Apply as Filter", all nine
# directions) and from the packet list's Conversation Filter / Colorize
# Conversation, checked through libwireshark by conv_filter_check.c: each
# must compile and select exactly its conversation's, direction's or
# endpoint's frames; each table row must count those frames.  On the real
# sample (one conversation) and on the generated vectors (nid4 and nid16
# NIDs on tcp, o2ib, kfi, lo; six conversations, ten endpoints).
[ -n "${LNETCAP_CONV_FILTER_CHECK:-}" ] && [ -x "$LNETCAP_CONV_FILTER_CHECK" ] ||
	skip "conv_filter_check not built (needs libwireshark-dev)"
cp "$LNETCAP_CONV_FILTER_CHECK" "$WORK/conv_filter_check" && chmod 755 "$WORK/conv_filter_check"
# As the tshark user, with tshark's environment (ts in run.sh).
check() {
	(cd "$WORK" && "${RUNAS[@]}" env -i PATH="$PATH" HOME="$WORK" TZ=UTC LC_ALL=C.UTF-8 \
		WIRESHARK_PLUGIN_DIR="$WORK/plugins" WIRESHARK_CONFIG_DIR="$WORK/config" \
		WIRESHARK_ABORT_ON_DISSECTOR_BUG=1 "$WORK/conv_filter_check" "$1")
}
fs=$(stage "$LNETCAP_SOURCE_DIR/samples/lustre-fs-part1.pcapng")
out=$(check "$fs") || fail "conversation filters of the sample: $out"
echo "$out"
[ "$out" = "13 of 13 filters valid and selecting exactly their frames (149 frames, 1 conversations, 2 endpoints)" ] ||
	fail "sample: unexpected summary '$out'"
pass "conversation, endpoint and packet conversation filters of the sample"
v=$(vectors)
out=$(check "$v") || fail "conversation filters of the vectors: $out"
echo "$out"
# (72 filters today; other vectors may add conversations.)
[[ "$out" =~ ^([0-9]+)\ of\ ([0-9]+)\ filters\ valid ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] &&
	[ "${BASH_REMATCH[1]}" -ge 72 ] || fail "vectors: unexpected summary '$out'"
pass "conversation, endpoint and packet conversation filters of the vectors"
