# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the packaging tests: skip/fail/pass helpers and the tools every
# test needs.  A test that cannot run says why on stderr and exits 77, which
# ctest reports as skipped, never as passed.
set -u -o pipefail
: "${TEST_CASE:=packaging.$(basename "$0" .sh | sed 's/^test-//')}"
. "$(dirname "${BASH_SOURCE[0]}")/../support/testlib.sh"
# pass MSG: the checks before it held; an assertion (see tests/wireshark/run.sh).
pass() { _assert "$*" 0 && echo "ok: $*"; }
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
