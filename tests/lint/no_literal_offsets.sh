#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# no_literal_offsets.sh SRC [ROOT] - lnetcap reads and writes records, LNet
# headers, socklnd frames and PtlRPC only through the structs of
# include/lnetcap/ (issues 24 and 32): a field's offset is written once, in
# the struct, and pinned there by LNETCAP_ASSERT_OFFSET.  This fails on a
# field read or written at a literal offset in the agent (capture/src), the
# Wireshark plugin (wireshark-plugin) or the tests' C/C++ (tests):
#   load_le32(p + 16)  e.u32(b + 144)  p[11]  for (o : {104, 108})
#   tvb_get_guint32(tvb, off + 8, enc)  proto_tree_add_item(t, hf, tvb, (gint)off + 24, ...)
#   w.u32(112, mode)  fid(r, 56, ...)  store_le32(h.data() + 40, v)
# The files and lines that legitimately do so - formats that are not
# lnetcap's (Ethernet/IP/TCP, pcapng, ELF), the bounded readers themselves -
# are named, each with its reason, in literal_offsets.exceptions next to
# this script.  ROOT (default SRC) is the tree scanned; the self-test
# (no_literal_offsets_can_fail.sh) points it at a tree with one planted read.
set -uo pipefail
src=${1:?usage: no_literal_offsets.sh SRC [ROOT]}
root=${2:-$src}
TEST_CASE=lint.no-literal-offsets
. "$src/tests/support/testlib.sh"
exceptions="$src/tests/lint/literal_offsets.exceptions"
[ -r "$exceptions" ] || fail "cannot read $exceptions"
cd "$root" || fail "no tree at $root"

n2='([2-9]|[1-9][0-9]+)'      # an offset: 0 and 1 are not worth a name
num="(0x[0-9a-fA-F]+|[0-9]+)"
not_scaled='(?!\s*[*/])'      # "+ 8 * k" is an element stride, not a field
patterns=(
	# load_le32(p + 16), store_le64(&hdr[0] + 8, ...), load_be16(raw + 2)
	"\\b(load|store)_(le|be)(16|32|64)\\s*\\([^;]*\\+\\s*${num}\\s*[,)]"
	# Endian reads: e.u32(b + 144)
	"\\.(u16|u32|u64)\\s*\\([^;]*\\+\\s*${num}\\s*\\)"
	# Byte fields by index: p[11], &b[40], h.data()[8] - not declarations
	"(?<!char )(?<!_t )(?<!, )\\b(p|h|q|u|b|rec|hdr|head|msg|payload)\\s*\\[\\s*${n2}\\s*\\]"
	# A range-for over literal offsets: for (std::size_t o : {104, 108, ...})
	# (by its loop variable: a range-for over indices or counts is not one)
	"\\b(o|off|offs|offset|pos)\\s*:\\s*\\{\\s*${num}\\s*(,\\s*${num}\\s*)+\\}\\s*\\)"
	# Offsets hidden in named constants: constexpr ... kOffMsgNid4 = 32
	"\\bkOff\\w*\\s*=\\s*${num}"
	# An offset chosen by a condition: load_le32(h + (nid16 ? 52 : 28))
	"\\b(load|store)_(le|be)(16|32|64)\\s*\\([^;]*\\?\\s*${num}\\s*:\\s*${num}\\s*\\)"
	# A pointer into a record at a literal offset: interface_for(rec + 56)
	"\\b(raw|rec|hdr|head|msg|buf)\\s*\\+\\s*${n2}\\b${not_scaled}"
	# Wireshark reads: tvb_get_guint32(tvb, off + 8, enc), tvb_memcpy(tvb, b, off + 4, n)
	"\\btvb_(get_\\w+|memcpy)\\s*\\([^;]*\\b\\w+\\s*\\+\\s*${n2}\\b${not_scaled}"
	# Wireshark items: proto_tree_add_item(t, hf, tvb, (gint)off + 24, 4, enc)
	"\\btvb\\s*,\\s*(\\(gint\\)\\s*)?\\(?\\w+\\s*\\+\\s*${n2}\\b${not_scaled}"
	# The plugin's own field helpers: lnetcap_add_fid(t, tvb, pinfo, off + 40, ...)
	"\\b(lnetcap_add_\\w+|add_time|dissect_\\w+)\\s*\\([^;]*\\b(off|pol|o|e|eo|pos)\\s*\\+\\s*${n2}\\b${not_scaled}"
	# Test builders: w.u32(112, mode), w.u64(off + 8, v), fid(r, 56, seq, oid)
	"\\.(u8|u16|u32|u64|str|raw)\\s*\\(\\s*(\\w+\\s*\\+\\s*)?${n2}\\b${not_scaled}\\s*[,)]"
	"\\bfid\\s*\\(\\s*\\w+\\s*,\\s*${n2}\\s*,"
	# Into a byte vector: store_le32(h.data() + 40, v), payload.data() + 16
	"\\.data\\(\\)\\s*\\+\\s*${n2}\\b${not_scaled}"
)

# Exceptions: "PATH" (a file, or a directory ending in /) excepts the whole
# file; "PATH: TEXT" only its lines containing TEXT.  A "# reason" is
# mandatory.  Blank lines and lines starting with # are comments.
whole=() partial_path=() partial_text=()
while IFS= read -r line; do
	case $line in '' | '#'*) continue ;; esac
	case $line in *' # '*) ;; *) fail "exception without a '# reason': $line" ;; esac
	entry=${line%% # *}
	entry=${entry%"${entry##*[![:space:]]}"}
	case $entry in
	*': '*) partial_path+=("${entry%%: *}") partial_text+=("${entry#*: }") ;;
	*) whole+=("$entry") ;;
	esac
done <"$exceptions"

excepted_file() {
	local f=$1 w
	for w in "${whole[@]}"; do
		case $w in */) [[ $f == "$w"* ]] && return 0 ;; *) [ "$f" = "$w" ] && return 0 ;; esac
	done
	return 1
}

hits=$(mktemp "${TMPDIR:-/tmp}/lnetcap-lint.XXXXXX")
on_exit "rm -f '$hits'"
files=()
while IFS= read -r f; do
	excepted_file "$f" || files+=("$f")
done < <(find capture/src wireshark-plugin tests \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) \
	-not -path '*/golden/*' 2>/dev/null | sed 's|^\./||' | sort)
[ "${#files[@]}" -gt 0 ] || fail "no sources found under $root"
for pat in "${patterns[@]}"; do
	grep -nHP -- "$pat" "${files[@]}" >>"$hits" || true
done
sort -u -o "$hits" "$hits"
# Comment lines explain offsets; they do not read them.
grep -vP '^[^:]+:\d+:\s*(//|/\*|\*)' "$hits" >"$hits.code" || true
mv "$hits.code" "$hits"
for k in "${!partial_path[@]}"; do
	grep -vF -- "${partial_path[$k]}:" "$hits" >"$hits.keep" || true
	grep -F -- "${partial_path[$k]}:" "$hits" | grep -vF -- "${partial_text[$k]}" >>"$hits.keep" || true
	sort -u -o "$hits" "$hits.keep"
	rm -f "$hits.keep"
done
n=$(wc -l <"$hits")
[ "$n" = 0 ] || {
	echo "Field reads at literal offsets (read them through the include/lnetcap" >&2
	echo "structs - LNETCAP_OFF/LNETCAP_LEN, OFF(), codec/wire_reader.h - or name" >&2
	echo "the exception and its reason in tests/lint/literal_offsets.exceptions):" >&2
	sed 's/^/  /' "$hits" >&2
}
expect_eq "field reads at literal offsets in capture/src, wireshark-plugin and tests" "$n" 0
