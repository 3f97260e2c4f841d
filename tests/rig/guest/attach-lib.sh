# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the rig's guest scripts that run several live captures at once
# (daemon.sh, top.sh): waiting for a capture's BPF programs and for its
# exit.  Needs fail() and RIG_OUT from the caller.
links() { bpftool link list 2>/dev/null | grep -c '^[0-9]' || true; }
# Waits until process $1 has attached its programs (7 more BPF links than
# $2): neither lnetcap nor lnetcapd writes a "ready" line on a pipe.
wait_attached() { # pid links-before errfile
	for _ in $(seq 1 600); do
		[ "$(links)" -ge $(($2 + 7)) ] && return 0
		kill -0 "$1" 2>/dev/null || { cat "$3"; fail "$3: exited before attaching"; }
		sleep 0.1
	done
	cat "$3"
	fail "$3: did not attach within 60 s"
}
# Waits for process $1 to exit by itself within $2 seconds; kills it and
# records the fact in sigint.txt otherwise.  Fails on a non-zero exit.
wait_exit() { # pid seconds errfile
	for _ in $(seq 1 $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -KILL "$1"
		echo "$3: still running after $2 s, killed" >>"$RIG_OUT/sigint.txt"
		wait "$1" || true
		cat "$3"
		fail "$3: did not exit"
	fi
	local rc=0
	wait "$1" || rc=$?
	echo "---- $3"
	cat "$3"
	[ "$rc" -eq 0 ] || fail "$3: exit status $rc"
}
