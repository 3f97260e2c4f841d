# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the shell tests that run tshark with our plugin or extcap.
# tshark loads WIRESHARK_PLUGIN_DIR, personal plugins and personal extcaps
# only when it runs unprivileged, and root always is: as root (CI) the
# tests run tshark as the system user lnetcap-test, created if missing.
# lnetcap_tshark_user sets RUNAS to the command prefix to use (empty when
# not root) and calls the caller's skip() when that is impossible.
lnetcap_tshark_user() {
	RUNAS=()
	[ "$(id -u)" = 0 ] || return 0
	if ! id lnetcap-test >/dev/null 2>&1; then
		# ctest -j runs several tests at once: create the user under a lock.
		flock /tmp/lnetcap-test-useradd.lock sh -c 'id lnetcap-test >/dev/null 2>&1 ||
			useradd -r -M -d /nonexistent -s /usr/sbin/nologin lnetcap-test'
		id lnetcap-test >/dev/null 2>&1 ||
			skip "running as root and cannot create the unprivileged user lnetcap-test"
	fi
	command -v runuser >/dev/null 2>&1 || skip "running as root without runuser"
	RUNAS=(runuser -u lnetcap-test --)
}
