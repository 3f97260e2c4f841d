# SPDX-License-Identifier: GPL-2.0-or-later
# packets-lib.sh - sourced by the daemon's shell tests: captures compared
# record for record as tests/tools/pcap_dump prints them.  The sourcing
# script sets $pcap_dump and $tmp, and has sourced tests/support/testlib.sh.

# packets FILE: one line a record, without the link-type line.
packets() { "$pcap_dump" "$1" | tail -n +2; }

# same_packets GOT WANT: the same records in the same order (the first
# difference is named when they are not).
same_packets() {
	packets "$1" >"$tmp/got.txt"
	packets "$2" >"$tmp/want.txt"
	check "$2 has packets" test -s "$tmp/want.txt"
	check "$1 equals $2 ($(wc -l <"$tmp/got.txt") vs $(wc -l <"$tmp/want.txt") packets, first difference: $(diff "$tmp/got.txt" "$tmp/want.txt" | head -3 | cut -c1-160))" \
		cmp -s "$tmp/got.txt" "$tmp/want.txt"
}
