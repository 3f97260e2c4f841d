# SPDX-License-Identifier: GPL-2.0-or-later
# Cross-check against Wireshark's built-in lnet/lustre dissectors on real
# Lustre 2.16.1 traffic (tests/data/corpus/lustre-fs-part1.pcap, socklnd over
# TCP): the built-in decodes the .pcap, this plugin the lnetcap conversion of
# it, and every field both decode must agree (crosscheck.py pairs the
# messages and lists the fields), except the built-in errors listed in
# crosscheck.py, each with the Lustre source line that proves it.
corpus="$LNETCAP_SOURCE_DIR/tests/data/corpus/lustre-fs-part1.pcap"
[ -f "$corpus" ] || skip "corpus $corpus is missing"
[ -x "${LNETCAP_BINARY:-}" ] || skip "lnetcap binary not built"
command -v python3 >/dev/null || skip "python3 missing"

raw=$(stage "$corpus")
"$LNETCAP_BINARY" -r "$corpus" -w "$WORK/conv.pcapng" 2>/dev/null || fail "conversion failed"
chmod a+r "$WORK/conv.pcapng"
ts -r "$raw" -T pdml > "$WORK/builtin.pdml" || fail "tshark (built-in) failed"
ts -r "$WORK/conv.pcapng" -T pdml > "$WORK/plugin.pdml" || fail "tshark (plugin) failed"
python3 "$LNETCAP_TEST_DIR/crosscheck.py" "$WORK/builtin.pdml" "$WORK/plugin.pdml" ||
	fail "the plugin and the built-in lustre dissector disagree (see above)"
pass "plugin and built-in agree on every field both decode, outside the listed built-in errors"
