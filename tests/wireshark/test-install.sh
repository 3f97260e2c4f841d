# SPDX-License-Identifier: GPL-2.0-or-later
# The documented per-user install (plugin-install-user target =
# wireshark-plugin/install-user.cmake) puts lnetcap.so where tshark finds it
# with no WIRESHARK_PLUGIN_DIR: ~/.local/lib/wireshark/plugins/4.0/epan/.
command -v cmake >/dev/null || skip "cmake not installed"
home="$WORK/home"
mkdir -p "$home"
[ ${#RUNAS[@]} -gt 0 ] && chown lnetcap-test "$home"
so=$(ls "$WORK"/plugins/*/epan/lnetcap.so | head -1)
ver=$(basename "$(dirname "$(dirname "$so")")")
# The source tree may not be readable by the test user (a clone under /root).
script=$(stage "$LNETCAP_SOURCE_DIR/wireshark-plugin/install-user.cmake")
(cd "$WORK" && "${RUNAS[@]}" env -i PATH="$PATH" HOME="$home" \
	cmake -DSRC="$so" -DWSVER="$ver" -P "$script") ||
	fail "install-user.cmake failed"
[ -f "$home/.local/lib/wireshark/plugins/$ver/epan/lnetcap.so" ] || fail "not installed in the personal folder"
out=$(cd "$WORK" && "${RUNAS[@]}" env -i PATH="$PATH" HOME="$home" TZ=UTC tshark -G plugins 2>/dev/null)
echo "$out" | grep "lnetcap.so.*$home/.local/lib/wireshark/plugins/$ver/epan/lnetcap.so" >/dev/null ||
	fail "tshark does not load the personal install: $out"
pass "plugin-install-user installs where tshark loads it"
