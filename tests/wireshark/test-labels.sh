# SPDX-License-Identifier: GPL-2.0-or-later
# Labels of numeric fields that have a sentinel value (tshark -V, not only
# filter values): a plain number prints as the number, only the sentinel
# gets its name.  CPU (~0 = unknown), extent ends (~0 = EOF) and the
# supplementary GIDs (~0 = none) once printed "Unknown (1)" for CPU 1.
v=$(vectors)
"$LNETCAP_VECTORS" "$WORK/mdt.pcapng" mdt || fail "vector generator failed"
"$LNETCAP_VECTORS" routed "$WORK" || fail "routed vector generator failed"
chmod a+r "$WORK"/*.pcapng
ts -r "$v" -V > "$WORK/v.txt" || fail "tshark failed"
ts -r "$WORK/mdt.pcapng" -V >> "$WORK/v.txt" || fail "tshark failed"
ts -r "$WORK/client.pcapng" -V >> "$WORK/v.txt" || fail "tshark failed"

! grep -E "(CPU|Extent end|Flock end|Supplementary GID[ 12]*): Unknown" "$WORK/v.txt" ||
	fail "a plain number is labelled Unknown"
grep -qx " *CPU: 1" "$WORK/v.txt" || fail "no 'CPU: 1' label"
grep -qx " *CPU: 0" "$WORK/v.txt" || fail "no 'CPU: 0' label"
grep -qx " *Extent end: 4095" "$WORK/v.txt" || fail "no 'Extent end: 4095' label"
grep -qx " *Extent end: EOF (18446744073709551615)" "$WORK/v.txt" || fail "the EOF sentinel lost its name"
grep -qx " *Supplementary GID: 0" "$WORK/v.txt" || fail "no 'Supplementary GID: 0' label"
grep -qx " *Supplementary GID 1: 0" "$WORK/v.txt" || fail "no 'Supplementary GID 1: 0' label"
pass "numbers print as numbers, sentinels by name"

# A converted capture knows no CPU: ~0 is named.
corpus="$LNETCAP_SOURCE_DIR/tests/data/corpus/lnet-socklnd.pcap"
[ -f "$corpus" ] || fail "$corpus missing"
[ -x "${LNETCAP_BINARY:-}" ] || fail "LNETCAP_BINARY is not set to the lnetcap binary"
{
	"$LNETCAP_BINARY" -r "$corpus" -c 5 -w "$WORK/conv.pcapng" 2>/dev/null || fail "conversion failed"
	chmod a+r "$WORK/conv.pcapng"
	ts -r "$WORK/conv.pcapng" -V > "$WORK/conv.txt" || fail "tshark failed"
	grep -qx " *CPU: unknown (4294967295)" "$WORK/conv.txt" ||
		fail "the CPU sentinel of a converted file is not labelled unknown"
	pass "CPU ~0 labelled unknown"
}
