#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest side of rig_smoke: load the double (and the kfunc module), list the
# NIs, generate one round of every scenario and check the log; check that
# module BTF is there exactly when expected.  Runs in the guest, chroot of
# the host root.  Needs RIG_VARIANT=btf|nobtf.
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
kdir=$RIG_KMOD_NOBTF
[ "$RIG_VARIANT" = btf ] && kdir=$RIG_KMOD_BTF
echo "kernel $(uname -r), variant $RIG_VARIANT"
[ ! -e /sys/module/lnet ] || fail "lnet loaded before insmod"
$RIG_BB insmod "$kdir/lnet.ko"
$RIG_BB insmod "$kdir/lnetcap_kfunc.ko"
echo "version: $(cat /sys/module/lnet/version)"
cat /sys/kernel/debug/lnet/nis
grep -q '^192.168.1.10@tcp ' /sys/kernel/debug/lnet/nis || fail "tcp NI missing"
echo all > /sys/kernel/debug/lnet/double_ctl
cut -c1-160 /sys/kernel/debug/lnet/double_log
cat /sys/kernel/debug/lnet/double_stats
n_send=$(grep -c '^lnet_ni_send ' /sys/kernel/debug/lnet/double_log)
n_parse=$(grep -c '^lnet_parse ' /sys/kernel/debug/lnet/double_log)
n_drop=$(grep -c '^lnet_drop_message ' /sys/kernel/debug/lnet/double_log)
echo "sends=$n_send parses=$n_parse drops=$n_drop"
[ "$n_send" = 11 ] || fail "expected 11 lnet_ni_send events"
[ "$n_parse" = 7 ] || fail "expected 7 lnet_parse events"
[ "$n_drop" = 2 ] || fail "expected 2 drops (no MD, drop rule)"
grep -q '^lnet_send .* hold_ms=30 ' /sys/kernel/debug/lnet/double_log || fail "no credit wait"
grep -q '^lnet_send .* drop=-113' /sys/kernel/debug/lnet/double_log || fail "no drop before the LND"
grep -q '^lnet_parse_refused .* why=rule ' /sys/kernel/debug/lnet/double_log || fail "no drop rule"
grep -q '^lnet_parse_refused .* why=proto rc=-71 ' /sys/kernel/debug/lnet/double_log ||
	fail "no protocol error"
grep -q 'dir=forward .*routing=1' /sys/kernel/debug/lnet/double_log || fail "no forward"
grep -q '^lnet_ni_send .* retry=1 ' /sys/kernel/debug/lnet/double_log || fail "no resend"
grep -q '^lnet_finalize .* hs=[1-9]' /sys/kernel/debug/lnet/double_log || fail "no health failure"
grep -q '^lnet_finalize .* rc=-110 hs=0 ' /sys/kernel/debug/lnet/double_log ||
	fail "no send completed after its MD was unlinked (aborted)"
dmesg | grep -E 'lnet|lnetcap' || true
if [ "$RIG_VARIANT" = btf ]; then
	[ -e /sys/kernel/btf/lnet ] || fail "/sys/kernel/btf/lnet missing"
	[ -e /sys/kernel/btf/lnetcap_kfunc ] || fail "/sys/kernel/btf/lnetcap_kfunc missing"
	bpftool btf dump file /sys/kernel/btf/lnet | grep -E "FUNC 'lnet_(parse|ni_send|finalize|drop_message|send|drop_rule_match)'"
	bpftool btf dump file /sys/kernel/btf/lnetcap_kfunc | grep "FUNC 'bpf_lnetcap_msg_payload'"
else
	[ ! -e /sys/kernel/btf/lnet ] || fail "/sys/kernel/btf/lnet present in the no-BTF build"
fi
bpftool btf list | grep -E 'name (lnet|lnetcap_kfunc) ' || true
grep -E ' (lnet_parse|lnet_ni_send|lnet_finalize|lnet_drop_message|lnet_send|lnet_drop_rule_match)\b' /proc/kallsyms
$RIG_BB rmmod lnetcap_kfunc
$RIG_BB rmmod lnet
echo PASS
