#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# no_literal_offsets.sh SRC - the agent reads records, LNet headers, socklnd
# frames and PtlRPC only through the structs of include/lnetcap/ (issue 24):
# a field's offset is written once, in the struct, and pinned there by
# LNETCAP_ASSERT_OFFSET.  This fails on a field read at a literal offset in
# capture/src - load_le32(p + 16), e.u32(b + 144), p[11], a range-for over
# {104, 108, ...} - outside the files that legitimately do so:
#   codec/wire_reader.h    the bounded reader itself
#   bytes.h                the byte-order loads it is built on
#   socklnd/packet_decode.cpp  Ethernet/IP/TCP headers (not lnetcap formats)
#   pcapng/                the pcapng block format (the file, not the wire)
#   live/lnet_debuginfo.cpp    ELF notes of the lnet module
set -uo pipefail
src=${1:?usage: no_literal_offsets.sh SRC}
TEST_CASE=lint.no-literal-offsets
. "$src/tests/support/testlib.sh"
cd "$src/capture/src" || fail "no capture/src under $src"

num='(0x[0-9a-fA-F]+|[0-9]+)'
patterns=(
	# load_le32(p + 16), store_le64(&hdr[0] + 8, ...), load_be16(raw + 2)
	"\\b(load|store)_(le|be)(16|32|64)\\s*\\([^;]*\\+\\s*${num}\\s*[,)]"
	# Endian reads: e.u32(b + 144)
	"\\.(u16|u32|u64)\\s*\\([^;]*\\+\\s*${num}\\s*\\)"
	# Byte fields by index: p[11], rec[11], h[14]
	"(?<!char )(?<!_t )\\b(p|h|q|u|b|rec|hdr|head|msg)\\s*\\[\\s*([2-9]|[1-9][0-9]+)\\s*\\]"
	# A range-for over literal offsets: for (std::size_t o : {104, 108, ...})
	":\\s*\\{\\s*${num}\\s*(,\\s*${num}\\s*)+\\}\\s*\\)"
	# Offsets hidden in named constants: constexpr ... kOffMsgNid4 = 32
	"\\bkOff\\w*\\s*=\\s*${num}"
	# An offset chosen by a condition: load_le32(h + (nid16 ? 52 : 28))
	"\\b(load|store)_(le|be)(16|32|64)\\s*\\([^;]*\\?\\s*${num}\\s*:\\s*${num}\\s*\\)"
	# A pointer into a record at a literal offset: interface_for(rec + 56)
	"\\b(raw|rec|hdr|head|msg|buf)\\s*\\+\\s*([2-9]|[1-9][0-9]+)\\b(?!\\s*[*/])"
)
exempt='^(\./)?(codec/wire_reader\.h|bytes\.h|socklnd/packet_decode\.cpp|pcapng/|live/lnet_debuginfo\.cpp)'

hits=$(mktemp "${TMPDIR:-/tmp}/lnetcap-lint.XXXXXX")
on_exit "rm -f '$hits'"
files=$(find . -name '*.cpp' -o -name '*.h' | sed 's|^\./||' | grep -Ev "$exempt" | sort)
for pat in "${patterns[@]}"; do
	# shellcheck disable=SC2086
	grep -nHP -- "$pat" $files >>"$hits" || true
done
sort -u -o "$hits" "$hits"
n=$(wc -l <"$hits")
[ "$n" = 0 ] || {
	echo "Field reads at literal offsets in capture/src (read them through the" >&2
	echo "include/lnetcap structs with codec/wire_reader.h instead):" >&2
	sed 's/^/  /' "$hits" >&2
}
expect_eq "field reads at literal offsets in capture/src" "$n" 0
