#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Guest side of rig.daemon (runs in the guest, chroot of the host root; see
# scripts/rig/run-guest.sh): lnetcapd serving the live eBPF capture (fentry,
# the double built with BTF) on an ipc socket, three subscribers
# (everything, 'opcode OBD_PING', 'drop') and, at the same time, a direct
# `lnetcap -w` of the same traffic.  Variables:
#   LNETCAP, LNETCAPD   the binaries (host paths)
#   RIG_ROUNDS          rounds of every scenario (default 3)
# Leaves in RIG_OUT: direct.pcapng (+ .err), sub-all/sub-ping/sub-drop
# .pcapng (+ .err), daemon.err, double.log; for the kernel push-down part
# direct-k.pcapng, double-k.log, sub-get.pcapng, daemon-k.err; sigint.txt when something had
# to be killed.  The host (rig-test.sh) compares the files; this script only
# fails on what it sees itself.
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
dbg=/sys/kernel/debug/lnet
rounds=${RIG_ROUNDS:-3}
sock=/tmp/lnetcapd/d.sock
rm -f "$RIG_OUT/sigint.txt"

$RIG_BB insmod "$RIG_KMOD_BTF/lnet.ko"
echo clear >$dbg/double_ctl

. "$(dirname "$0")/attach-lib.sh"

# Starts lnetcapd (live, fentry) on ipc://$1 with its log in $2 and waits
# until it has attached and says it serves; its pid is in $started_pid.
start_lnetcapd() { # socket errfile
	local before
	mkdir -p "$(dirname "$1")"
	before=$(links)
	"$LNETCAPD" --no-config --attach fentry --listen "ipc://$1" --group "$(id -gn)" 2>"$2" &
	started_pid=$!
	wait_attached $started_pid "$before" "$2"
	for _ in $(seq 1 100); do
		grep -q '^lnetcapd: serving ' "$2" && break
		sleep 0.1
	done
	grep -q '^lnetcapd: serving ' "$2" || { cat "$2"; fail "lnetcapd never said it is serving"; }
}
# Waits until the daemon logging to $1 has accepted $2 subscribers.
wait_subscribed() { # errfile count
	for _ in $(seq 1 300); do
		[ "$(grep -c ') subscribed: filter' "$1" || true)" -ge "$2" ] && return 0
		sleep 0.1
	done
	cat "$1"
	fail "$2 subscriber(s) were not accepted within 30 s"
}
# A direct capture of $rounds rounds of the double's scenarios into $1
# (-c stops it by itself: 25 records a round, tests/rig/guest/capture.sh);
# the double's log of them goes to $3.
direct_rounds() { # pcapng errfile double-log
	local before pid
	before=$(links)
	"$LNETCAP" --attach fentry -v -c $((25 * rounds)) -w "$1" 2>"$2" &
	pid=$!
	wait_attached $pid "$before" "$2"
	sleep 0.5
	echo "all $rounds" >$dbg/double_ctl
	cp $dbg/double_log "$3"
	wait_exit $pid 60 "$2"
}

echo "== lnetcapd, live eBPF capture (fentry) on ipc://$sock"
start_lnetcapd "$sock" "$RIG_OUT/daemon.err"
daemon_pid=$started_pid

echo "== subscribers"
subscribe() { # name [filter]
	local name=$1
	shift
	"$LNETCAP" --from "ipc://$sock" -w "$RIG_OUT/sub-$name.pcapng" "$@" \
		2>"$RIG_OUT/sub-$name.err" &
	eval "sub_${name}_pid=$!"
}
subscribe all
subscribe ping 'opcode OBD_PING'
subscribe drop 'drop'
wait_subscribed "$RIG_OUT/daemon.err" 3

echo "== direct capture of the same traffic, $rounds rounds"
direct_rounds "$RIG_OUT/direct.pcapng" "$RIG_OUT/direct.err" "$RIG_OUT/double.log"

echo "== stop lnetcapd (SIGINT): it drains the ring and ends every subscription"
sleep 2 # the daemon hands out what it took from the ring meanwhile
kill -INT $daemon_pid
wait_exit $daemon_pid 60 "$RIG_OUT/daemon.err"
for name in all ping drop; do
	pid_var=sub_${name}_pid
	wait_exit "${!pid_var}" 30 "$RIG_OUT/sub-$name.err"
done

# Kernel push-down: a daemon whose only subscriber wants 'type get' folds
# that filter into the kernel's clause table, so the other messages never
# reach user space.  A direct capture of the same rounds is the reference.
echo "== lnetcapd with one subscriber 'type get' (filtered in the kernel)"
echo clear >$dbg/double_ctl
start_lnetcapd /tmp/lnetcapd/k.sock "$RIG_OUT/daemon-k.err"
daemon_k_pid=$started_pid
"$LNETCAP" --from ipc:///tmp/lnetcapd/k.sock -w "$RIG_OUT/sub-get.pcapng" 'type get' \
	2>"$RIG_OUT/sub-get.err" &
sub_get_pid=$!
wait_subscribed "$RIG_OUT/daemon-k.err" 1
direct_rounds "$RIG_OUT/direct-k.pcapng" "$RIG_OUT/direct-k.err" "$RIG_OUT/double-k.log"
sleep 2
kill -INT $daemon_k_pid
wait_exit $daemon_k_pid 60 "$RIG_OUT/daemon-k.err"
wait_exit $sub_get_pid 30 "$RIG_OUT/sub-get.err"

cat $dbg/double_stats
$RIG_BB rmmod lnet
echo PASS
