# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# The multi-rail topology of run.sh (-T multirail), sourced by it:
#
#   a 10.77.0.1@tcp (eth0) --link 1-- b 10.77.0.2@tcp (eth0)
#   a 10.77.1.1@tcp (eth1) --link 2-- b 10.77.1.2@tcp (eth1)
#
# Two NIs per node on one net, discovery and LNet health on; a runs
# lnet_selftest to b while faults hit one interface after the other
# (guest/multirail.sh); both nodes capture, both links are recorded on
# the host.  Checks (topo_report): each node's capture against both links
# and LNet's counters (node_report); resends, failed attempts per NI and
# per peer NI, recovery pings and lnetcap's --summary health section
# against LNet's own statistics (stats show, net show -v 3, peer show -v 3).
#
# Uses run.sh's SRC, HERE, WORK, LNETCAP, COMPARE, LUSTRE_VERSION, TESTS,
# LST_SECS, PORT, node_report and counter.

TOPO_PORTS=2 # a TCP port per link

# topo_boot DIR KMODS: b first (it listens on both links), then a in the
# foreground, recording both links; returns a's status.
topo_boot() {
	local dir=$1 kmods=$2 rc=0 pb
	local common=(LR_WORK="$WORK" KMODS="$kmods" LNETCAP="$LNETCAP"
		LUSTRE_VERSION="$LUSTRE_VERSION" TESTS="$TESTS" LST_SECS="$LST_SECS" LND=tcp
		A_OUT="$dir/a" B_OUT="$dir/b")
	local guest=("$SRC/scripts/rig/run-guest.sh" -t 1800 -m 1536)
	local script=$HERE/guest/multirail.sh
	mkdir -p "$dir/a" "$dir/b"
	nice -n 10 "${guest[@]}" \
		-n "socket,listen=127.0.0.1:$PORT" -a 52:54:00:4c:03:02 \
		-n "socket,listen=127.0.0.1:$((PORT + 1))" -a 52:54:00:4c:04:02 \
		"$WORK/rig" "$dir/b" "$script" ROLE=b "${common[@]}" >"$dir/b.run.log" 2>&1 &
	pb=$!
	sleep 3
	nice -n 10 "${guest[@]}" \
		-n "socket,connect=127.0.0.1:$PORT" -a 52:54:00:4c:03:01 -w "$dir/wire1.pcap" \
		-n "socket,connect=127.0.0.1:$((PORT + 1))" -a 52:54:00:4c:04:01 -w "$dir/wire2.pcap" \
		"$WORK/rig" "$dir/a" "$script" ROLE=a "${common[@]}" >"$dir/a.run.log" 2>&1 || rc=$?
	touch "$dir/a/done" # b stops waiting on a
	wait "$pb" || true
	return "$rc"
}

# topo_report MODE DIR: every check; returns 1 when one failed.
topo_report() {
	local mode=$1 dir=$2 bad=0 w
	for w in wire1 wire2; do
		if [ -s "$dir/$w.pcap" ] && "$LNETCAP" -r "$dir/$w.pcap" -w "$dir/$w.pcapng" 2>"$dir/$w.err"; then
			"$LNETCAP" -r "$dir/$w.pcapng" >"$dir/$w.txt" 2>&1 || true
		else
			echo "$mode: no recording of link ${w#wire} ($dir/$w.err)"
			bad=1
		fi
	done
	node_report "$mode" "$dir" a 10.77.0.1@tcp,10.77.1.1@tcp "$dir/wire1.pcapng" "$dir/wire2.pcapng" || bad=1
	node_report "$mode" "$dir" b 10.77.0.2@tcp,10.77.1.2@tcp "$dir/wire1.pcapng" "$dir/wire2.pcapng" || bad=1
	return "$bad"
}
