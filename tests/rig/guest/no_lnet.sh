#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest side of rig_no_lnet: on a machine without the lnet module, live
# capture and -D must fail at once with a message that says so.
set -uo pipefail
fail() { echo "FAIL: $*"; exit 1; }
[ ! -e /sys/module/lnet ] || fail "lnet is loaded"
for args in "-w /tmp/x.pcapng" "-D" "-c 1"; do
	echo "== lnetcap $args"
	# shellcheck disable=SC2086
	timeout 60 "$LNETCAP" $args >/tmp/out 2>/tmp/err
	rc=$?
	cat /tmp/out /tmp/err
	[ "$rc" -ne 0 ] || fail "lnetcap $args succeeded without lnet"
	[ "$rc" -ne 124 ] || fail "lnetcap $args hung without lnet"
	grep -qi 'lnet kernel module is not loaded' /tmp/err ||
		fail "lnetcap $args: no clear message about the missing lnet module"
done
echo PASS
