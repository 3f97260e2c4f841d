# SPDX-License-Identifier: GPL-2.0-or-later
# The "Lustre" configuration profile (wireshark-plugin/profile/Lustre):
#  - cmake --install puts it where Wireshark finds global profiles
#    (<datadir>/wireshark/profiles/Lustre; the deb and rpm lists name it);
#  - every colouring rule is a valid filter and colours the frames it is
#    meant for in the vectors (errors, resends, health failures, gaps,
#    truncation) and the real corpus (bulk transfers);
#  - with -C Lustre the packet list has the seen-by (node and direction),
#    XID, opcode, response time and job id columns.
[ -n "${LNETCAP_BUILD_DIR:-}" ] || skip "LNETCAP_BUILD_DIR unset"
DESTDIR="$WORK/dest" cmake --install "$LNETCAP_BUILD_DIR" --component lnetcap-profile >/dev/null ||
	fail "cmake --install --component lnetcap-profile failed"
prof=$(find "$WORK/dest" -path '*/share/wireshark/profiles/Lustre' -type d)
[ -n "$prof" ] && [ -f "$prof/colorfilters" ] && [ -f "$prof/preferences" ] ||
	fail "profile not installed under <datadir>/wireshark/profiles/Lustre"
grep -qx 'usr/share/wireshark/profiles/Lustre' "$LNETCAP_SOURCE_DIR/debian/lnetcap-wireshark.install" ||
	fail "debian/lnetcap-wireshark.install does not list the profile"
grep -q '^%{_datadir}/wireshark/profiles/Lustre/$' "$LNETCAP_SOURCE_DIR/packaging/lnetcap.spec" ||
	fail "packaging/lnetcap.spec does not list the profile"
pass "installed as a global profile and packaged"

# Column widths (the profile's "recent" file, which Wireshark reads by
# column format, custom columns by their field): one width per column of
# the preferences, and the XID column wide enough for a 64-bit XID
# ("0x0006b02500e01a80"; the GUI test's screenshot shows it whole).
[ -f "$prof/recent" ] || fail "profile has no recent file (column widths)"
cols=$(sed -n '/^gui.column.format:/,/^[^	]/p' "$prof/preferences" | grep -o '"%[^"]*"' |
	sed -e 's/"//g' -e 's/^\(%Cus:[^:]*\):.*/\1/')
widths=$(sed -n '/^column.width:/,$p' "$prof/recent" | sed -n 's/^\t"\{0,1\}\([^",]*\)"\{0,1\}, [0-9]*,\{0,1\}$/\1/p')
[ "$cols" = "$widths" ] || fail "recent's column widths ($widths) do not follow the columns ($cols)"
xid=$(sed -n 's/^\t"%Cus:lnetcap.ptlrpc.xid", \([0-9]*\),$/\1/p' "$prof/recent")
[ "${xid:-0}" -ge 160 ] || fail "XID column width '${xid}' cuts a 64-bit XID"
pass "column widths: one per column, XID ${xid} px"

# Wireshark loads it as a personal profile the same way.
mkdir -p "$WORK/config/profiles"
cp -r "$prof" "$WORK/config/profiles/"
chmod -R a+rwX "$WORK/config"
v=$(vectors)
fs=$(stage "$LNETCAP_SOURCE_DIR/samples/lustre-fs-part1.pcapng")

# Colouring rules: frames each one colours (first match wins, as in the GUI).
declare -A want=(
	["Lustre: records lost or dropped"]="$v:1"
	["Lustre: LNet health failure"]="$v:1"
	["Lustre: error reply"]="$v:2"
	["Lustre: resend or retry"]="$v:1"
	["Lustre: truncated by the snap length"]="$v:1"
	["Lustre: bulk transfer or ACK"]="$fs:10"
	["Lustre: LNet only"]="$v:6"
)
n=0
seen=""
while IFS='@' read -r _ name filter _; do
	[ -n "$name" ] || continue
	n=$((n + 1))
	spec=${want[$name]:-}
	[ -n "$spec" ] || fail "colouring rule '$name' has no expectation in test-profile.sh"
	file=${spec%:*}
	# Frames this rule colours: matching it and none of the rules above.
	got=$(count "$file" "($filter)${seen:+ && !($seen)}") || fail "rule '$name': invalid filter '$filter'"
	[ "$got" = "${spec##*:}" ] || fail "rule '$name' colours $got frame(s) of $(basename "$file"), expected ${spec##*:}"
	seen="${seen:+$seen || }($filter)"
done < <(grep '^@' "$prof/colorfilters")
[ "$n" = "${#want[@]}" ] || fail "$n colouring rules, expected ${#want[@]}"
pass "$n colouring rules valid and colouring what they should"
ts -C Lustre --color -r "$v" > /dev/null 2> "$WORK/err.txt" || fail "tshark -C Lustre --color failed"
[ ! -s "$WORK/err.txt" ] || fail "tshark complained about the profile: $(cat "$WORK/err.txt")"

# Columns.
line=$(ts -C Lustre -r "$v" -Y 'frame.number == 4' | tr -s ' ')
[ "$line" = " 4 0.006250000 node 1 SEND 10.0.0.2@tcp → 10.0.0.1@tcp OST 0x0000000000001080 OST_WRITE 0.005000000 624 [node 1 SEND] OST_WRITE reply xid 0x1080 10.0.0.2@tcp → 10.0.0.1@tcp" ] ||
	fail "columns of -C Lustre: '$line'"
line=$(ts -C Lustre -r "$v" -Y 'frame.number == 3' | tr -s ' ')
case "$line" in *" 0x0000000000001080 OST_WRITE dd.1000 680 "*) ;; *) fail "job id column: '$line'" ;; esac
pass "columns: seen by, XID, opcode, response time, job id"
