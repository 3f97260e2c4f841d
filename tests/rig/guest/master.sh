#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Guest side of rig.master (issue 31): the LNet double built as Lustre
# master's lnet.ko presents itself (kmod/master/: /sys/module/lnet/version
# 2.17.57, the structs of 2.17.55+, no module BTF, no .btf file), so
# lnetcap has nothing but its built-in tables and must pick the exact one
# by release, prove it with its self-check and capture exactly; then, with
# a table known to be wrong (LNETCAP_TEST_ONLY_TABLE, test only), it must
# stop at start with the self-check's message and write nothing.
# Leaves in RIG_OUT: list.txt, capture.pcapng + capture.err + double.log
# (a), wrong-list.txt, wrong.err, wrong.rc, wrong.secs (b),
# candidate-2.17.60.txt, candidate-2.16.2.txt (c).
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
dbg=/sys/kernel/debug/lnet
rounds=${RIG_ROUNDS:-3}

$RIG_BB insmod "$RIG_KMOD_MASTER/lnet.ko"
[ "$(cat /sys/module/lnet/version)" = 2.17.57 ] ||
	fail "the master double reports $(cat /sys/module/lnet/version)"
[ ! -e /sys/kernel/btf/lnet ] || fail "the master double has module BTF"
[ -c /dev/lnet ] || fail "no /dev/lnet"

echo "== lnetcap -D (no option)"
"$LNETCAP" -D | tee "$RIG_OUT/list.txt"

# (a) no option at all: kprobes, the built-in table chosen by release.
echo "== (a) lnetcap -w capture.pcapng, $rounds rounds"
echo clear >$dbg/double_ctl
before=$(bpftool link list 2>/dev/null | grep -c '^[0-9]' || true)
"$LNETCAP" -v -w "$RIG_OUT/capture.pcapng" -c $((25 * rounds)) 2>"$RIG_OUT/capture.err" &
cap_pid=$!
for _ in $(seq 1 600); do
	now=$(bpftool link list 2>/dev/null | grep -c '^[0-9]' || true)
	[ "$now" -ge $((before + 7)) ] && break
	kill -0 "$cap_pid" 2>/dev/null || { cat "$RIG_OUT/capture.err"; fail "lnetcap exited before attaching"; }
	sleep 0.1
done
sleep 0.5
echo "all $rounds" >$dbg/double_ctl
cp $dbg/double_log "$RIG_OUT/double.log"
for _ in $(seq 1 600); do
	kill -0 "$cap_pid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$cap_pid" 2>/dev/null; then
	kill -KILL "$cap_pid"
	cat "$RIG_OUT/capture.err"
	fail "lnetcap -c did not stop within 60 s (records missing?)"
fi
rc=0
wait "$cap_pid" || rc=$?
cat "$RIG_OUT/capture.err"
[ "$rc" -eq 0 ] || fail "lnetcap exited with $rc"

# (b) a wrong table: the 2.17.0 one (LU-20426 moved msg_hdr by 16 bytes).
echo "== (b) LNETCAP_TEST_ONLY_TABLE=2.17.0 lnetcap -D"
rc=0
LNETCAP_TEST_ONLY_TABLE=2.17.0 "$LNETCAP" -D >"$RIG_OUT/wrong-list.txt" 2>&1 || rc=$?
cat "$RIG_OUT/wrong-list.txt"
echo "rc=$rc" >>"$RIG_OUT/wrong-list.txt"
echo "== (b) LNETCAP_TEST_ONLY_TABLE=2.17.0 lnetcap -w wrong.pcapng"
echo clear >$dbg/double_ctl
# Traffic all along, so a capture that did start would have records to write.
(for _ in $(seq 1 40); do echo "ping_rpc 1" >$dbg/double_ctl 2>/dev/null; sleep 0.25; done) &
gen=$!
t0=$(date +%s)
rc=0
LNETCAP_TEST_ONLY_TABLE=2.17.0 timeout 120 "$LNETCAP" -w "$RIG_OUT/wrong.pcapng" -c 10 \
	>"$RIG_OUT/wrong.out" 2>"$RIG_OUT/wrong.err" || rc=$?
t1=$(date +%s)
kill "$gen" 2>/dev/null || true
wait "$gen" 2>/dev/null || true
cat "$RIG_OUT/wrong.err"
echo "$rc" >"$RIG_OUT/wrong.rc"
echo $((t1 - t0)) >"$RIG_OUT/wrong.secs"
# (c) a release no table was read for: only a candidate, which the
# self-check proves (2.17.60: the 2.17.55+ table) or refuses (2.16.2: the
# 2.15.0-2.17.54 table, wrong for this module).
for v in 2.17.60 2.16.2; do
	echo "== (c) lnetcap -D --lustre-version $v"
	rc=0
	"$LNETCAP" -D --lustre-version $v >"$RIG_OUT/candidate-$v.txt" 2>&1 || rc=$?
	echo "rc=$rc" >>"$RIG_OUT/candidate-$v.txt"
	cat "$RIG_OUT/candidate-$v.txt"
done
echo "master double: done"
