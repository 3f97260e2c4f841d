# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# The routed topology of run.sh (-T router), sourced by it:
#
#   a 10.77.0.1@tcp --link 1-- r 10.77.0.3@tcp | 10.78.0.3@tcp1 --link 2-- c 10.78.0.2@tcp1
#
# r forwards between the two nets with scarce router buffers (guest/
# router.sh), a runs the workload towards c, every node captures, and both
# links are recorded by r's QEMU.  One QEMU, because filter-dump stamps
# packets with the time(NULL) at which it opened its file (whole seconds)
# plus QEMU's virtual clock: two QEMUs' recordings differ by a constant of
# up to a second (0.135 s in run 20261127T104428, which recorded link 1 at
# a and link 2 at c, and so found forwarded messages whose queue time was
# longer than the time between the links).  Checks per node: the capture
# against its links (lustre_compare; the router's FORWARD records against
# both links), LNet's counters (the router's route_count/route_length
# against its FORWARD records); for the router also whether messages
# waited for router buffers (`lnetctl routing show`: mincredits below 0)
# and what its FORWARD queue times say about that wait; and over the three
# captures merged, the plugin's links from each SEND through the router's
# FORWARD to the RECV (tests/real-lustre/xnode_truth.py).
#
# With -S zfs, c serves a real file system (MGS+MDT+OST on ZFS) that a
# mounts across the router (TESTS=fs), checked also by fs_report.
#
# Uses run.sh's SRC, HERE, WORK, BUILD, LNETCAP, COMPARE, LUSTRE_VERSION, TESTS,
# LST_SECS, SERVER, PORT, node_report, fs_report and counter.

TOPO_PORTS=2 # a TCP port per link

# topo_boot DIR KMODS: r first (it listens on both links), then c, then a
# in the foreground; returns a's status.
topo_boot() {
	local dir=$1 kmods=$2 rc=0 pr pc
	local common=(LR_WORK="$WORK" KMODS="$kmods" LNETCAP="$LNETCAP"
		LUSTRE_VERSION="$LUSTRE_VERSION" TESTS="$TESTS" LST_SECS="$LST_SECS" LND=tcp
		A_OUT="$dir/a" R_OUT="$dir/r" C_OUT="$dir/c")
	local guest=("$SRC/scripts/rig/run-guest.sh" -t 1800 -m 1536) c_guest
	local script=$HERE/guest/router.sh
	c_guest=("${guest[@]}")
	if [ "$SERVER" = zfs ]; then # c serves a file system: ZFS, its pools in memory
		common+=(ZFS_INST="$WORK/zfs-inst")
		guest=("$SRC/scripts/rig/run-guest.sh" -t 3600 -m 1536)
		c_guest=("$SRC/scripts/rig/run-guest.sh" -t 3600 -m 3072)
	fi
	nice -n 10 "${guest[@]}" \
		-n "socket,listen=127.0.0.1:$PORT" -a 52:54:00:4c:01:03 -w "$dir/wire1.pcap" \
		-n "socket,listen=127.0.0.1:$((PORT + 1))" -a 52:54:00:4c:02:03 -w "$dir/wire2.pcap" \
		"$WORK/rig" "$dir/r" "$script" ROLE=r "${common[@]}" >"$dir/r.run.log" 2>&1 &
	pr=$!
	sleep 3
	nice -n 10 "${c_guest[@]}" \
		-n "socket,connect=127.0.0.1:$((PORT + 1))" -a 52:54:00:4c:02:02 \
		"$WORK/rig" "$dir/c" "$script" ROLE=c "${common[@]}" >"$dir/c.run.log" 2>&1 &
	pc=$!
	sleep 1
	nice -n 10 "${guest[@]}" \
		-n "socket,connect=127.0.0.1:$PORT" -a 52:54:00:4c:01:01 \
		"$WORK/rig" "$dir/a" "$script" ROLE=a "${common[@]}" >"$dir/a.run.log" 2>&1 || rc=$?
	touch "$dir/a/done" # r and c stop waiting on a
	wait "$pr" "$pc" || true
	return "$rc"
}

# router_report MODE DIR: did forwarded messages wait for router buffers,
# and do the FORWARD records' queue times show it?  LNet's mincredits (per
# CPT and pool) below 0 mean that many messages queued for a buffer.
router_report() {
	local p="$1 r:" g=$2/r waited q bad=0
	[ -s "$g/routing-after.txt" ] || { echo "$p no routing statistics"; return 1; }
	# lnetctl prints mincredits as unsigned 32 bits: 4294967294 is -2.
	waited=$(awk '/^ *(tiny|small|large):/ {pool = $1}
		/mincredits:/ {m = $2 >= 2147483648 ? $2 - 4294967296 : $2; if (m < 0) print pool m}' \
		"$g/routing-after.txt" | tr '\n' ' ')
	echo "$p router buffers: ${waited:-no pool ran short} (lnetctl routing show: mincredits below 0)"
	# Each FORWARD leaves on the NI of its destination's net (one hop).
	local ni
	ni=$("$LNETCAP" -r "$g/r.pcapng" -p '%Ni %Nd' 'dir forward' 2>/dev/null |
		awk '{split($1, a, "@"); split($2, b, "@"); if (a[2] == b[2]) ok++; else bad++}
			END {printf "%d %d", ok, bad}')
	echo "$p FORWARD records leaving on the destination's net: ${ni% *}, on another: ${ni#* }" \
		"$([ "${ni#* }" = 0 ] && [ "${ni% *}" -gt 0 ] && echo ok || echo DIFFERENT)"
	[ "${ni#* }" = 0 ] && [ "${ni% *}" -gt 0 ] || bad=1
	q=$("$LNETCAP" -r "$g/r.pcapng" --summary 2>/dev/null | sed -n '/^LNet queue time by NI/,/^$/p' | sed 1d)
	echo "$q" | sed "s/^/$p queue time: /"
	return "$bad"
}

# xnode_report MODE DIR: the three captures merged; every message linked
# across all its records, none to another message's.
xnode_report() {
	local p="$1 xnode:" dir=$2 v rc=0
	local check=$SRC/tests/real-lustre/xnode_truth.py plugins=$BUILD/wireshark-plugin/plugins
	command -v mergecap >/dev/null || { echo "$p mergecap missing: not checked"; return 1; }
	[ -d "$plugins" ] || { echo "$p no Wireshark plugin in $plugins (scripts/build.sh): not checked"; return 1; }
	mergecap -w "$dir/merged.pcapng" "$dir/a/a.pcapng" "$dir/r/r.pcapng" "$dir/c/c.pcapng" ||
		{ echo "$p mergecap failed"; return 1; }
	chmod a+r "$dir/merged.pcapng"
	# tshark loads no plugin from WIRESHARK_PLUGIN_DIR as root.
	local as_user=()
	[ "$(id -u)" = 0 ] && as_user=(runuser -u nobody --)
	v=$("${as_user[@]}" env WIRESHARK_PLUGIN_DIR="$plugins" python3 "$check" "$dir/merged.pcapng" 2>&1) || rc=$?
	echo "$v" | tail -8 | sed "s/^/$p /"
	return "$rc"
}

# topo_report MODE DIR: every check; returns 1 when one failed.
topo_report() {
	local mode=$1 dir=$2 bad=0
	convert_links "$mode" "$dir" wire1 wire2 || bad=1
	node_report "$mode" "$dir" a 10.77.0.1@tcp "$dir/wire1.pcapng" || bad=1
	node_report "$mode" "$dir" r 10.77.0.3@tcp,10.78.0.3@tcp1 "$dir/wire1.pcapng" "$dir/wire2.pcapng" || bad=1
	node_report "$mode" "$dir" c 10.78.0.2@tcp1 "$dir/wire2.pcapng" || bad=1
	router_report "$mode" "$dir" || bad=1
	xnode_report "$mode" "$dir" || bad=1
	if [ "$SERVER" = zfs ]; then
		fs_report "$mode" "$dir" a 10.77.0.1@tcp c 10.78.0.2@tcp1 || bad=1
	fi
	return "$bad"
}
