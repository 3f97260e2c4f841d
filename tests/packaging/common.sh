# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the packaging tests: skip/fail/pass helpers and the tools every
# test needs.  A test that cannot run says why on stderr and exits 77, which
# ctest reports as skipped, never as passed.
set -u -o pipefail
: "${TEST_CASE:=packaging.$(basename "$0" .sh | sed 's/^test-//')}"
. "$(dirname "${BASH_SOURCE[0]}")/../support/testlib.sh"
# pass MSG: the checks before it held; an assertion (see tests/wireshark/run.sh).
pass() { _assert "$*" 0 && echo "ok: $*"; }
# declares_packages: the first assertion of the .deb cases, cheap on
# purpose - under LNETCAP_TEST_SELFCHECK=1 (meta.selfcheck-system) the first
# assertion is inverted, and one that comes before a minutes-long package
# build stops the case at once instead of after it.
declares_packages() {
	local p missing=
	for p in lnetcap lnetcap-wireshark lnetcap-doc lnetcap-dkms; do
		grep -qx "Package: $p" "$SRC/debian/control" || missing+=" $p"
	done
	check "debian/control declares every package the README installs (missing:${missing:- none})" [ -z "$missing" ]
}
need() {
	local tool=$1; shift
	command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed ($*)"
}
SRC=${LNETCAP_SOURCE_DIR:?LNETCAP_SOURCE_DIR not set}
VERSION=${LNETCAP_VERSION:?LNETCAP_VERSION not set}
SAMPLE=$SRC/samples/synthetic-rpcs.pcapng
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

# Major.minor of the Wireshark the plugin is built against (and that tshark
# here runs): the plugin folder is plugins/<X.Y>/epan.
ws_xy() { pkg-config --modversion wireshark 2>/dev/null | cut -d. -f1,2; }

# Runs tshark as an unprivileged user: tshark ignores WIRESHARK_PLUGIN_DIR
# when privileged, and root always is (same approach as tests/wireshark).
. "$SRC/tests/support/tshark-user.sh"
setup_tshark_user() { lnetcap_tshark_user; }
# ts PLUGIN_DIR CONFIG_DIR ARGS...
ts() {
	local pdir=$1 cdir=$2; shift 2
	(cd "$cdir" && "${RUNAS[@]}" env -i PATH="$PATH" HOME="$cdir" TZ=UTC LC_ALL=C.UTF-8 \
		WIRESHARK_PLUGIN_DIR="$pdir" WIRESHARK_CONFIG_DIR="$cdir" \
		WIRESHARK_ABORT_ON_DISSECTOR_BUG=1 tshark "$@")
}

# build_debs DIR: dpkg-buildpackage -b of a copy of the source tree in
# DIR/src/lnetcap-VERSION (so the packaging never writes into the
# developers' tree); the .debs land in DIR/src.  Skips (77) when build
# dependencies are missing.  LNETCAP_PKG_REUSE=1 checks the packages of the
# previous run again without rebuilding them (for working on a test).
build_debs() {
	local WORK=$1 tree=$1/src/lnetcap-$VERSION t0
	if [ "${LNETCAP_PKG_REUSE:-0}" = 1 ] && ls "$WORK"/src/*.deb >/dev/null 2>&1; then
		echo "reusing the packages in $WORK/src"
	else
		rm -rf "$WORK"
		mkdir -p "$tree"
		# Build trees and git data are left out.
		tar -C "$SRC" --exclude=./.git --exclude='./build' --exclude='./build-*' \
			--exclude='./obj-*' --exclude=./debian/tmp --exclude='./.cache' -cf - . |
			tar -C "$tree" -xf - || fail "copying the source tree"

		cd "$tree"
		dpkg-checkbuilddeps -B -Pnocheck 2>"$WORK/builddeps.txt" ||
			skip "build dependencies missing: $(cat "$WORK/builddeps.txt")"

		t0=$(date +%s)
		if ! DEB_BUILD_OPTIONS="nocheck noddebs parallel=2" \
			dpkg-buildpackage -b -uc -us -Pnocheck >"$WORK/build.log" 2>&1; then
			tail -60 "$WORK/build.log" >&2
			fail "dpkg-buildpackage failed (log: $WORK/build.log)"
		fi
		pass "dpkg-buildpackage -b in $(( $(date +%s) - t0 ))s"
	fi

	cd "$WORK/src" || fail "cd $WORK/src"
}
