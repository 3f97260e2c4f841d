# SPDX-License-Identifier: GPL-2.0-or-later
# wireshark-plugin/ builds on its own (cmake -S wireshark-plugin), as
# docs/PLUGIN.md says, and the result loads.
command -v cmake >/dev/null || skip "cmake not installed"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$LNETCAP_SOURCE_DIR/wireshark-plugin" -B "$WORK/standalone" "${gen[@]}" \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo > "$WORK/configure.log" 2>&1 ||
	fail "standalone configure failed: $(tail -5 "$WORK/configure.log")"
cmake --build "$WORK/standalone" > "$WORK/build.log" 2>&1 ||
	fail "standalone build failed: $(tail -5 "$WORK/build.log")"
so=$(ls "$WORK"/standalone/plugins/*/epan/lnetcap.so) || fail "no lnetcap.so in the standalone build"
rm -rf "$WORK/plugins" && cp -r "$WORK/standalone/plugins" "$WORK/plugins" && chmod -R a+rX "$WORK"
ts -G plugins | grep "^lnetcap.so" >/dev/null || fail "standalone lnetcap.so does not load"
pass "standalone build loads"
