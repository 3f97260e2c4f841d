#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest side of rig.kfunc: the BTF builds of the double and lnetcap_kfunc,
# then kfunc_selftest (KFUNC_SELFTEST, KFUNC_OBJ) drives one round of every
# scenario; the host compares kfunc.txt with double.log.
set -euo pipefail
$RIG_BB insmod "$RIG_KMOD_BTF/lnet.ko"
$RIG_BB insmod "$RIG_KMOD_BTF/lnetcap_kfunc.ko"
[ -e /sys/kernel/btf/lnetcap_kfunc ] || { echo "FAIL: no BTF for lnetcap_kfunc"; exit 1; }
"$KFUNC_SELFTEST" "$KFUNC_OBJ" all >"$RIG_OUT/kfunc.txt"
cp /sys/kernel/debug/lnet/double_log "$RIG_OUT/double.log"
cut -c1-120 "$RIG_OUT/kfunc.txt"
dmesg | grep -iE 'lnetcap|BUG|Oops|WARNING' || true
$RIG_BB rmmod lnetcap_kfunc
$RIG_BB rmmod lnet
echo PASS
