#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One node of the routed topology (scripts/real-lustre/topology-router.sh
# boots three):
#   ROLE=r  the router: 10.77.0.3@tcp on eth0 (link 1, to a) and
#           10.78.0.3@tcp1 on eth1 (link 2, to c), forwarding enabled with
#           scarce router buffers (ROUTER_BUFFERS: tiny small large), so
#           that forwarded messages wait for them; capture, "ready"; waits
#           for a's "done".
#   ROLE=c  10.78.0.2@tcp1, route to tcp through 10.78.0.3@tcp1; the
#           lnet_selftest peer and the mount target (no MGS: its LNet drops
#           the MGS_CONNECTs); capture, "ready"; waits for a's "done".
#   ROLE=a  10.77.0.1@tcp, route to tcp1 through 10.77.0.3@tcp; waits for
#           r and c, captures, then the workload of TESTS (ping lst mount)
#           towards c, all of it across the router; "done".
# With TESTS=fs (run.sh -S zfs) c is instead a file system's server
# (guest/fs-lib.sh: MGS+MDT+OST on ZFS, rpctrace logged) and a mounts it
# across the router and runs fs-workload.sh.
# Every node captures with lnetcap as a user would (no option, lib.sh) and
# keeps LNet's counters inside and outside the capture window; the router
# also keeps `lnetctl routing show` (its buffers' minimum credits say
# whether messages waited for one).  Variables: ROLE, A_OUT, R_OUT, C_OUT,
# TESTS, LST_SECS, MOUNT_SECS, LUSTRE_VERSION, ROUTER_BUFFERS, plus lib.sh's.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
A=10.77.0.1@tcp R1=10.77.0.3@tcp R2=10.78.0.3@tcp1 C=10.78.0.2@tcp1
me=${ROLE:?}
cap=$RIG_OUT/$me.pcapng

# route_up NET GATEWAY: a route, then a ping through it until the gateway
# answers and the route is up (LNet discovers the gateway first).
route_up() {
	lnetctl route add --net "$1" --gateway "$2" || return 1
	for _ in $(seq 1 60); do
		lnetctl route show -v 2>/dev/null | grep -q 'state: up' && return 0
		lnetctl ping --timeout 2 "$2" >/dev/null 2>&1
		sleep 1
	done
	log "route to $1 through $2 never came up"
	lnetctl route show -v
	return 1
}

# snapshot TAG: the router's buffer pools (their mincredits say whether
# messages waited for a buffer); a's routes.
snapshot() {
	case $me in
	r) lnetctl routing show >"$RIG_OUT/routing-$1.txt" 2>&1 ;;
	a) lnetctl route show -v >"$RIG_OUT/routes-$1.txt" 2>&1 ;;
	esac
}

log "node $me: modules from $KMODS"
case $me in
r)
	net_up 10.77.0.3 eth0
	net_up 10.78.0.3 eth1
	read -r tiny small large <<<"${ROUTER_BUFFERS:-8 8 2}"
	lnet_up 'tcp(eth0),tcp1(eth1)' forwarding=enabled tiny_router_buffers="$tiny" \
		small_router_buffers="$small" large_router_buffers="$large" || exit 3
	lnetctl routing show | grep -q 'enable: 1' || lnetctl set routing 1
	lnetctl routing show >"$RIG_OUT/routing-start.txt" 2>&1
	;;
c)
	net_up 10.78.0.2
	lnet_up 'tcp1(eth0)' || exit 3
	wait_file "$R_OUT/lnet-up" 1800 || { log "r never brought LNet up"; exit 3; }
	route_up tcp "$R2" || exit 3
	;;
a)
	net_up 10.77.0.1
	lnet_up 'tcp(eth0)' || exit 3
	wait_file "$R_OUT/lnet-up" 1800 || { log "r never brought LNet up"; exit 3; }
	route_up tcp1 "$R1" || exit 3
	;;
*) log "ROLE=$me: not a, r or c"; exit 2 ;;
esac
# -S zfs: c is the file system's server (MGS+MDT+OST on ZFS), a its client.
fs=
if [[ " ${TESTS:-} " == *" fs "* ]] && [ "$me" != r ]; then
	fs=1
	. "$(dirname "$0")/fs-lib.sh"
	fs_client_modules || exit 3
	[ "$me" = c ] && { fs_server_modules || exit 3; }
	rpc_logging
fi
touch "$RIG_OUT/lnet-up"
for m in lnet libcfs ksocklnd; do [ -e /sys/kernel/btf/$m ] && echo $m; done >"$RIG_OUT/module-btf.txt"
cat /sys/module/lnet/version >"$RIG_OUT/lnet-version.txt" 2>&1

if [ "$me" != a ]; then
	capture_out_of_the_box "$cap" || log "no capture on $me"
	[ -n "$fs" ] && fs_serve "$C" "$A_OUT/done"
	serve_until "$A_OUT/done"
fi

log "waiting for r and c"
wait_file "$R_OUT/ready" 1800 && wait_file "$C_OUT/ready" 1800 ||
	{ log "r or c never became ready"; touch "$RIG_OUT/done"; exit 3; }
capture_out_of_the_box "$cap" || { log "no capture on a"; touch "$RIG_OUT/done"; exit 4; }
sleep 2
counters before

tests=" ${TESTS:-ping lst} "
if [[ $tests == *" ping "* ]]; then
	# lctl ping: 2.16.1's `lnetctl ping` of a NID behind a router answers
	# EINVAL ("Invalid input data or parameter") at once, in a run where
	# lctl ping of the same NID is answered.  The router itself is pinged
	# with lnetctl.
	log "ping $C across the router"
	for _ in 1 2 3; do
		lctl ping "$C" >>"$RIG_OUT/ping.txt" 2>&1
		echo "rc=$?" >>"$RIG_OUT/ping.txt"
	done
	lnetctl ping "$R1" >>"$RIG_OUT/ping.txt" 2>&1
	echo "rc=$?" >>"$RIG_OUT/ping.txt"
fi
if [[ $tests == *" lst "* ]]; then
	log "lnet_selftest across the router: brw read+write 4k+1M, ping for ${LST_SECS:-15} s"
	# concurrency 4: bulk messages then queue for the router's large buffers
	lst_brw "$A" "$C" --concurrency 4 >"$RIG_OUT/lst.txt" 2>&1
fi
if [[ $tests == *" mount "* ]]; then
	# c runs no MGS: its LNet drops the MGS_CONNECTs after they crossed r.
	log "mount -t lustre $C:/lustre across the router (c runs no MGS)"
	MOUNT_SECS=${MOUNT_SECS:-30} mount_attempt "$C"
fi
if [ -n "$fs" ]; then
	log "the file system of $C across the router: mounted twice, workload"
	lctl clear
	fs_client_work "$C"
	debug_log dk.txt
fi
workload_done
