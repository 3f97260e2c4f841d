#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# packaging.wireshark-4.4-run (system tier): the plugin's tshark tests
# (ctest -L wireshark) pass against Wireshark 4.4, inside a fresh Debian 13
# (trixie) root made with mmdebstrap: the project is configured and built
# there (lnetcap, the plugin, the vector generator) with Debian 13's
# compiler and Wireshark 4.4 development files, and the same test scripts
# run with Debian 13's tshark 4.4.  (packaging.wireshark-4.4 only compiles
# and links against the 4.4 headers; this one runs the plugin.)
# Not run on 4.4: wireshark.gui (the Qt GUI under Xvfb) and
# wireshark.conversations, whose libwireshark helper is written to the 4.0
# epan API and skips itself on any other version.  Any other skip fails.
# The root is cached as a tarball (tests/packaging/debroot.sh); skipped (77)
# only without root or mmdebstrap, or when the Debian archive cannot be
# reached.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/debroot.sh"
[ "$(id -u)" = 0 ] || skip "needs root (chroot into a fresh Debian 13 root)"
need mmdebstrap "apt-get install mmdebstrap"
debroot_reachable || skip "the Debian archive ($DEBROOT_MIRROR) cannot be reached"

# First assertion, cheap on purpose (see declares_packages in common.sh):
# the tshark cases this test runs on 4.4 are the tree's own.
check "the plugin's tshark tests are registered in the tree" \
	grep -q 'add_test' "$SRC/tests/wireshark/CMakeLists.txt"
WORK=${LNETCAP_WORK_DIR:?}/ws44-run
ROOT=$WORK/root
mkdir -p "$WORK"
on_exit debroot_umount  # testlib owns the EXIT trap
# What the plugin tests need: the build and plugin tiers of
# scripts/apt-packages.txt without eBPF (not needed to read files), gtest
# (the test tree's CMake requires it), ncurses (lnetcap --top), python3 (srt and crosscheck helpers),
# passwd and util-linux (the unprivileged tshark user: useradd, runuser, flock).
# LNETCAP_PKG_REUSE=1 keeps the root and build of the previous run (the
# source is copied over it and rebuilt incrementally; for working on a test).
if [ "${LNETCAP_PKG_REUSE:-0}" = 1 ] && [ -d "$ROOT/src/build" ]; then
	echo "reusing the Debian 13 root and build in $ROOT"
else
	debroot_create trixie "$ROOT" build-essential cmake ninja-build pkg-config libpcap-dev \
		libzmq3-dev cppzmq-dev libglib2.0-dev libncurses-dev tshark wireshark-dev libwireshark-dev libwiretap-dev \
		googletest libgtest-dev python3 passwd util-linux
fi
debroot_mount "$ROOT"

wsver=$(debroot_run "$ROOT" "pkg-config --modversion wireshark") || fail "no wireshark.pc in the trixie root"
case $wsver in
4.4.*) ;;
*) fail "Debian 13's Wireshark is $wsver, not 4.4: update this test" ;;
esac
tsver=$(debroot_run "$ROOT" "tshark --version" | head -1)
echo "Debian 13 root: wireshark-dev $wsver, $tsver"

mkdir -p "$ROOT/src/lnetcap"
tar -C "$SRC" --exclude=./.git --exclude='./build' --exclude='./build-*' --exclude='./obj-*' \
	--exclude=./debian/tmp --exclude='./.cache' -cf - . | tar -C "$ROOT/src/lnetcap" -xf - ||
	fail "copying the source tree into the root"

t0=$(date +%s)
if ! debroot_run "$ROOT" "cmake -S /src/lnetcap -B /src/build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DLNETCAP_BUILD_PLUGIN=ON -DLNETCAP_BUILD_BPF=OFF -DBUILD_TESTING=ON &&
	cmake --build /src/build -j2 --target lnetcap lnetcap_plugin lnetcap_ws_vectors -- -k 0" \
	>"$WORK/build.log" 2>&1; then
	grep -E 'error|undefined|CMake Error' "$WORK/build.log" | head -40 >&2
	fail "building lnetcap and the plugin in the Debian 13 root failed (log: $WORK/build.log)"
fi
[ -n "$(find "$ROOT/src/build" -path '*/plugins/4.4/epan/lnetcap.so')" ] ||
	fail "no plugins/4.4/epan/lnetcap.so in the Debian 13 build: $(cd "$ROOT/src/build" && find . -name lnetcap.so)"
pass "lnetcap and the plugin built against Wireshark $wsver in $(( $(date +%s) - t0 )) s"

t0=$(date +%s)
debroot_run "$ROOT" "cd /src/build && ctest -L wireshark -E '^wireshark\.gui\$' -j2 --output-on-failure --timeout 900" \
	>"$WORK/ctest.log" 2>&1
rc=$?
grep -E 'Test +#|tests passed|SKIP|FAIL' "$WORK/ctest.log"
[ $rc = 0 ] || {
	tail -80 "$WORK/ctest.log" >&2
	fail "the plugin's tshark tests fail on Wireshark $wsver (log: $WORK/ctest.log)"
}
skipped=$(grep -E '\*\*\*Skipped|Not Run' "$WORK/ctest.log" | grep -v 'wireshark\.conversations ' || true)
[ -z "$skipped" ] || fail "tests skipped on Wireshark $wsver (only wireshark.conversations may): $skipped"
n=$(grep -cE 'Test +#[0-9]+: wireshark\.[a-z0-9-]+ .*Passed' "$WORK/ctest.log")
[ "$n" -ge 20 ] || fail "only $n wireshark tests passed on $wsver (expected every test but gui/conversations)"
pass "$n plugin tests pass with tshark $wsver in a Debian 13 root ($(( $(date +%s) - t0 )) s)"
