#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# packaging.cmake-install: `cmake --install` of this build tree with prefix
# /usr into a scratch DESTDIR puts every file where the ecosystem looks for
# it: agent in sbin, plugin in the global plugin folder of the Wireshark it
# was built against, man pages, bash completion, DKMS sources (kfunc module
# only) and docs with the samples.
source "$(dirname "$0")/common.sh"
need cmake "apt-get install cmake"
BIN=${LNETCAP_BINARY_DIR:?}
DEST=${LNETCAP_WORK_DIR:?}/cmake-install
rm -rf "$DEST"
mkdir -p "$DEST"
DESTDIR=$DEST cmake --install "$BIN" --prefix /usr >"$DEST.log" 2>&1 ||
	fail "cmake --install failed: $(tail -20 "$DEST.log")"

expect() { [ -e "$DEST$1" ] || fail "cmake --install did not install $1 (see $DEST.log)"; }
expect /usr/sbin/lnetcap
# Wireshark runs every program of its global extcap folder.
expect "/usr/lib/$MULTIARCH/wireshark/extcap/lnetcap"
[ -x "$DEST/usr/lib/$MULTIARCH/wireshark/extcap/lnetcap" ] || fail "the extcap entry is not executable"
grep -q '/usr/sbin/lnetcap' "$DEST/usr/lib/$MULTIARCH/wireshark/extcap/lnetcap" ||
	fail "the extcap entry does not run /usr/sbin/lnetcap"
expect /usr/share/man/man8/lnetcap.8
expect /usr/share/man/man5/lnetcap-record.5
expect /usr/sbin/lnetcapd
expect /usr/share/man/man8/lnetcapd.8
expect /usr/lib/systemd/system/lnetcapd.service
expect /usr/lib/sysusers.d/lnetcap.conf
expect /usr/lib/tmpfiles.d/lnetcap.conf
expect /usr/lib/udev/rules.d/60-lnetcap.rules
expect /etc/lnetcap/lnetcapd.conf
expect /usr/share/bash-completion/completions/lnetcap
for f in dkms.conf dkms-make.sh Kbuild lnetcap_kfunc.c; do expect "/usr/src/lnetcap-$VERSION/$f"; done
grep -qx "PACKAGE_VERSION=\"$VERSION\"" "$DEST/usr/src/lnetcap-$VERSION/dkms.conf" ||
	fail "dkms.conf does not carry version $VERSION"
find "$DEST" -name 'lnet_double*' -o -name 'lib-types.h' | grep -q . &&
	fail "the LNet test double was installed"
expect /usr/share/doc/lnetcap/samples/synthetic-rpcs.pcapng
expect /usr/share/doc/lnetcap/record-format.md
pass "agent, man pages, completion, DKMS sources, docs and samples"

# The plugin, when this tree builds it (it does whenever wireshark-dev is
# installed, as in CI): in exactly the global folder of that Wireshark.
if ls "$BIN"/wireshark-plugin/plugins/*/epan/lnetcap.so >/dev/null 2>&1; then
	xy=$(ws_xy)
	[ -n "$xy" ] || fail "the plugin is built but pkg-config knows no wireshark"
	expect "/usr/lib/$MULTIARCH/wireshark/plugins/$xy/epan/lnetcap.so"
	global=$(pkg-config --variable=plugindir wireshark)
	[ "$global" = "/usr/lib/$MULTIARCH/wireshark/plugins/$xy" ] ||
		fail "Wireshark's global plugin dir is $global, not where the plugin went"
	pass "plugin installed in Wireshark $xy's global folder $global/epan"
elif command -v pkg-config >/dev/null && pkg-config --exists wireshark; then
	fail "wireshark-dev is installed but this build tree has no plugin"
else
	echo "note: no wireshark-dev: this build tree has no plugin to install"
fi
"$DEST/usr/sbin/lnetcap" -r "$DEST/usr/share/doc/lnetcap/samples/synthetic-rpcs.pcapng" -c 1 >/dev/null ||
	fail "the installed lnetcap cannot read the installed sample"
pass "installed lnetcap reads the installed sample"
