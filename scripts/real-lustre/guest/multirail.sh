#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One node of the multi-rail topology (scripts/real-lustre/topology-
# multirail.sh boots two): each node has two NICs on one LNet net tcp, one
# NI per interface (networks="tcp(eth0,eth1)"), discovery on, LNet health
# on with short timeouts so that resends happen within a short run.
#   ROLE=b  10.77.0.2@tcp (eth0, link 1) + 10.77.1.2@tcp (eth1, link 2):
#           capture, "ready"; takes its eth1 down when a asks (the remote
#           interface failure), up again after FAULT_SECS; waits for a's
#           "done".
#   ROLE=a  10.77.0.1@tcp (eth0) + 10.77.1.1@tcp (eth1): waits for b,
#           captures, discovers b, pings, then runs lnet_selftest (brw
#           read/write 4k and 1M, ping) to b while it applies the faults in
#           turn: (1) a health simulation on its eth0 NI (lctl net_drop_add
#           -e local_error, then -e local_dropped: every send from
#           10.77.0.1@tcp fails in the LND with that status,
#           lnet_send_error_simulation in lib-msg.c),
#           (2) its own eth1 down, (3) b's eth1 down; then lets LNet's
#           recovery pings bring health back; "done".
# Both keep LNet's global counters inside and outside the capture window
# (lib.sh), and `lnetctl net show -v 3` / `peer show -v 3` before and
# after (health values and per-NI health statistics), timeline.txt the
# timeline.  Variables: ROLE, A_OUT, B_OUT, LST_SECS, FAULT_SECS,
# LUSTRE_VERSION, plus lib.sh's.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
A=10.77.0.1@tcp B=10.77.0.2@tcp # eth0s; the eth1s are 10.77.1.1 and 10.77.1.2
me=${ROLE:?}
cap=$RIG_OUT/$me.pcapng
fault_secs=${FAULT_SECS:-8}

# health_setup: resends within seconds.  Order matters (api-ni.c,
# v2_16_1): retry_count_set refuses retries while health_sensitivity is 0
# and a retry_count above transaction_timeout; transaction_to_set refuses
# a timeout not above retry_count.  The LND's timeout is then
# transaction_timeout / (retry_count + 1) (lnet_get_lnd_timeout).
health_setup() {
	lnetctl set health_sensitivity 100 &&
		lnetctl set transaction_timeout 10 &&
		lnetctl set retry_count 3 &&
		lnetctl set recovery_interval 1 || log "a health setting was refused"
	lnetctl global show >"$RIG_OUT/global.txt" 2>&1
}

# snapshot TAG: LNet's view of both NIs and of the peer's.
snapshot() {
	local peer=$B
	[ "$me" = b ] && peer=$A
	lnetctl net show -v 3 >"$RIG_OUT/net-$1.txt" 2>&1
	lnetctl peer show -v 3 --nid "$peer" >"$RIG_OUT/peer-$1.txt" 2>&1
	# every peer, the node's own NIDs included: LNet charges the failures
	# of local NI recovery pings (sent from one local NI to another) to
	# those peer NIs
	lnetctl peer show -v 3 >"$RIG_OUT/peers-$1.txt" 2>&1
}

note() { echo "[$(cut -d' ' -f1 /proc/uptime)] $*" >>"$RIG_OUT/timeline.txt"; log "$*"; }

log "node $me: modules from $KMODS"
if [ "$me" = a ]; then
	net_up 10.77.0.1 eth0
	net_up 10.77.1.1 eth1
else
	net_up 10.77.0.2 eth0
	net_up 10.77.1.2 eth1
fi
lnet_up 'tcp(eth0,eth1)' || exit 3
health_setup
touch "$RIG_OUT/lnet-up"
for m in lnet libcfs ksocklnd; do [ -e /sys/kernel/btf/$m ] && echo $m; done >"$RIG_OUT/module-btf.txt"
cat /sys/module/lnet/version >"$RIG_OUT/lnet-version.txt" 2>&1

if [ "$me" = b ]; then
	capture_out_of_the_box "$cap" || log "no capture on b"
	sleep 2
	counters before
	snapshot before
	touch "$RIG_OUT/ready"
	log "ready; waiting for a"
	downed=0
	for _ in $(seq 1 36000); do
		[ -e "$A_OUT/done" ] && break
		if [ "$downed" = 0 ] && [ -e "$A_OUT/remote-down" ]; then
			note "b: eth1 down for $fault_secs s"
			ip link set dev eth1 down
			sleep "$fault_secs"
			ip link set dev eth1 up
			note "b: eth1 up"
			touch "$RIG_OUT/remote-up"
			downed=1
		fi
		sleep 0.1
	done
	[ -e "$A_OUT/done" ] || log "a never said done"
	sleep 2
	counters after
	snapshot after
	node_stop
	exit 0
fi

log "waiting for b"
wait_file "$B_OUT/ready" 1800 || { log "b never became ready"; touch "$RIG_OUT/done"; exit 3; }
capture_out_of_the_box "$cap" || { log "no capture on a"; touch "$RIG_OUT/done"; exit 4; }
sleep 2
counters before
: >"$RIG_OUT/timeline.txt"
lnetctl discover "$B" >"$RIG_OUT/discover.txt" 2>&1
echo "rc=$?" >>"$RIG_OUT/discover.txt"
snapshot before
for _ in 1 2 3; do
	lnetctl ping "$B" >>"$RIG_OUT/ping.txt" 2>&1
	echo "rc=$?" >>"$RIG_OUT/ping.txt"
done

log "lnet_selftest brw read/write 4k+1M and ping to $B, faults in turn"
lst_brw_start "$A" "$B" >"$RIG_OUT/lst.txt" 2>&1
sleep 3
# health_fault NAME ERROR: health simulation on the eth0 NI for fault_secs:
# every message whose header source is 10.77.0.1@tcp, to either of b's
# NIs, fails in socklnd with ERROR (-e: only lnet_send_error_simulation
# matches it, never lnet_parse).
health_fault() {
	note "fault $1: net_drop_add -s $A -d *@tcp -e $2 -r 1 for $fault_secs s"
	lctl net_drop_add -s "$A" -d '*@tcp' -e "$2" -r 1 >>"$RIG_OUT/timeline.txt" 2>&1
	sleep "$fault_secs"
	lctl net_drop_list >>"$RIG_OUT/timeline.txt" 2>&1
	lctl net_drop_del -a >>"$RIG_OUT/timeline.txt" 2>&1
	note "fault $1 removed"
	sleep 4
}
# (1) LOCAL_ERROR only lowers the NI's health: LNet never resends it.
# (1b) LNet resends a message whose attempt failed with LOCAL_DROPPED (and
# the other LOCAL_* but LOCAL_ERROR, and REMOTE_DROPPED), on eth1 once
# eth0's health is lower (lnet_health_check, lib-msg.c).
health_fault 1 local_error
health_fault 1b local_dropped
# (2) the local interface eth1 down
note "fault 2: a eth1 down for $fault_secs s"
ip link set dev eth1 down
sleep "$fault_secs"
ip link set dev eth1 up
note "fault 2: a eth1 up"
sleep 4
# (3) the remote interface: b takes its eth1 down
note "fault 3: asking b to take its eth1 down"
touch "$RIG_OUT/remote-down"
wait_file "$B_OUT/remote-up" $((fault_secs + 120)) || note "b never brought eth1 up again"
note "fault 3 over"
sleep "${LST_SECS:-15}"
lst_brw_end >>"$RIG_OUT/lst.txt" 2>&1
# LNet's recovery pings run every recovery_interval while an NI's health is
# below the maximum: give them time, then keep what LNet says.
sleep 10
workload_done
