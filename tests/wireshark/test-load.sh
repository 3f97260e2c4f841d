# SPDX-License-Identifier: GPL-2.0-or-later
# The plugin loads into tshark, registers the lnetcap protocol, claims the
# lnetcap link type (USER7 = wtap encapsulation 52) and offers its
# preferences and statistics.
ts -G plugins > "$WORK/plugins.txt" || fail "tshark -G plugins failed"
grep "^lnetcap.so" "$WORK/plugins.txt" >/dev/null || fail "lnetcap.so not loaded: $(cat "$WORK/plugins.txt")"
pass "plugin loads"
ts -G protocols > "$WORK/protocols.txt"
# 4.2+ adds columns (enabled, can toggle, ...) after the filter name.
grep -P "^LNet capture \(lnetcap\)\tLNetCap\tlnetcap(\t|$)" "$WORK/protocols.txt" >/dev/null ||
	fail "protocol lnetcap missing"
pass "protocol registered"
ts -G decodes > "$WORK/decodes.txt"
grep -P "^wtap_encap\t52\tlnetcap$" "$WORK/decodes.txt" >/dev/null ||
	fail "lnetcap does not claim wtap encapsulation 52 (LINKTYPE_USER7)"
pass "link type claimed"
ts -G currentprefs > "$WORK/prefs.txt"
for p in user_dlt:\ 7 decode_rpc:\ TRUE delegate_lustre:\ FALSE; do
	grep -x "#lnetcap.$p" "$WORK/prefs.txt" >/dev/null || fail "preference lnetcap.$p missing"
done
pass "preferences registered"
ts -z help > "$WORK/z.txt" 2>&1
grep -x " *lnetcap,srt" "$WORK/z.txt" >/dev/null || fail "-z lnetcap,srt not offered"
grep -x " *lnetcap,tree" "$WORK/z.txt" >/dev/null || fail "-z lnetcap,tree not offered"
grep -x " *conv,lnetcap" "$WORK/z.txt" >/dev/null || fail "-z conv,lnetcap not offered"
pass "statistics registered"
