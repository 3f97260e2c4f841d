#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# rig-assert.sh - guest half of the --assert test in the QEMU kernel rig
# (for tests/rig/rig-test.sh; runs inside the guest like the scripts in
# tests/rig/guest/).  It runs lnetcap's command runner against real kernel
# traffic: the LNet test double produces N LDLM_ENQUEUE exchanges, each a
# request PUT and a reply PUT, while lnetcap captures.
#
#   1. an assertion that holds:  count(type put) == 2N   -> exit status 0
#   2. an assertion that fails:  count(type put) <= 1    -> exit status 1,
#      with "observed 2N, expected <= 1" in the output
#   3. the command fails:        ... -- false            -> exit status 2
#
# Variables: LNETCAP (agent binary), RIG_OUT (results directory),
# RIG_ASSERT_ROUNDS (N, default 3).  If the double is not loaded yet it is
# loaded from RIG_KMOD_BTF (or RIG_KMOD_NOBTF) with RIG_BB insmod, as
# tests/rig/guest/capture.sh does.  Leaves assert-*.out/.err in RIG_OUT.
set -uo pipefail
fail() { echo "FAIL: $*"; exit 1; }
ctl=/sys/kernel/debug/lnet/double_ctl
n=${RIG_ASSERT_ROUNDS:-3}
out=${RIG_OUT:-/tmp}

if [ ! -e "$ctl" ]; then
	kdir=${RIG_KMOD_BTF:-${RIG_KMOD_NOBTF:-}}
	[ -n "$kdir" ] || fail "the LNet test double is not loaded and RIG_KMOD_BTF is not set"
	${RIG_BB:-} insmod "$kdir/lnet.ko" || fail "insmod lnet.ko"
	[ -e "$kdir/lnetcap_kfunc.ko" ] && ${RIG_BB:-} insmod "$kdir/lnetcap_kfunc.ko"
fi
[ -e "$ctl" ] || fail "$ctl missing"

# The command whose traffic is asserted on: N enqueue exchanges.
traffic=(sh -c "echo 'enqueue $n' > $ctl")

run() { # name expected-status lnetcap-args...
	local name=$1 want=$2 rc=0
	shift 2
	echo clear >"$ctl"
	"$LNETCAP" "$@" >"$out/assert-$name.out" 2>"$out/assert-$name.err" || rc=$?
	echo "== $name (exit $rc)"
	cat "$out/assert-$name.out"
	[ "$rc" -eq "$want" ] || { cat "$out/assert-$name.err"; fail "$name: exit $rc, wanted $want"; }
}

run pass 0 --assert "count(type put) == $((2 * n))" -- "${traffic[@]}"
grep -q "^lnetcap: assert PASS: count(type put) == $((2 * n))" "$out/assert-pass.out" || fail "no PASS line"

run fail 1 --assert "count(type put) <= 1" -- "${traffic[@]}"
grep -qF "count(type put) = $((2 * n)), expected <= 1  <-- false" "$out/assert-fail.out" ||
	fail "observed/expected line missing"

run command-fails 2 --assert "count() >= 0" -- false
grep -q "^lnetcap: command 'false' exited with status 1" "$out/assert-command-fails.out" ||
	fail "command status not reported"
echo "rig-assert: all passed"
