#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# no_literal_offsets_can_fail.sh SRC - no_literal_offsets.sh catches a new
# literal offset in each tree it guards: on a copy of the sources where one
# line reads a protocol field by number - in the plugin (tvb_get_guint32 of
# off + 8, proto_tree_add_item at (gint)off + 24), in a test builder
# (w.u32(112, ...), store_le32(h.data() + 40, ...)) and in the agent
# (load_le32(p + 16)) - it exits non-zero naming the file and line; on the
# unchanged copy it passes.
set -uo pipefail
src=${1:?usage: no_literal_offsets_can_fail.sh SRC}
TEST_CASE=lint.no-literal-offsets-can-fail
. "$src/tests/support/testlib.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/lnetcap-literal.XXXXXX")
on_exit "rm -rf '$work'"
# The lint is a testlib case itself: it must run as in CI, not with its own
# first assertion inverted when meta.selfcheck inverts this case's.
lint() { env -u LNETCAP_TEST_SELFCHECK "$src/tests/lint/no_literal_offsets.sh" "$@"; }

# fresh_copy: the C and C++ sources of the three guarded trees.
fresh_copy() {
	rm -rf "$work/root"
	mkdir -p "$work/root"
	(cd "$src" && find capture/src wireshark-plugin tests \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) \
		-print0 | xargs -0 cp --parents -t "$work/root") || fail "cannot copy the sources"
}

fresh_copy
lint "$src" "$work/root" >"$work/out" 2>&1
expect_eq "lint exit status on an unchanged copy" "$?" 0

# plant FILE LINE: append LINE to FILE of a fresh copy, run the lint, and
# expect it to fail naming FILE at that line.
plant() {
	local file=$1 line=$2 n
	fresh_copy
	printf '%s\n' "$line" >>"$work/root/$file"
	n=$(wc -l <"$work/root/$file")
	lint "$src" "$work/root" >"$work/out" 2>&1
	expect_eq "lint exit status with '$line' in $file" "$?" 1
	contains "$work/out" "$file:$n:"
}

plant wireshark-plugin/packet-lnetcap-ost.c \
	'static guint32 planted(tvbuff_t *tvb, guint off, guint enc) { return tvb_get_guint32(tvb, off + 8, enc); }'
plant wireshark-plugin/packet-lnetcap-mdt.c \
	'	proto_tree_add_item(t, hf_r_mode, tvb, (gint)off + 112, 4, enc);'
plant tests/wireshark/gen_vectors.cpp '    r.u32(112, 040755);'
plant tests/support/lnet_builders.h '  store_le32(h.data() + 40, 12345);'
plant capture/src/message.cpp 'static std::uint32_t planted(const std::uint8_t* p) { return load_le32(p + 16); }'
