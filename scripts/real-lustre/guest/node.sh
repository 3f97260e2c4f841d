#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One node of a real-Lustre run (scripts/real-lustre/run.sh boots two).
#   ROLE=b  10.77.0.2@LND: LNet up, capture started, counters, "ready";
#           waits for A's "done", counters, capture stopped.
#   ROLE=a  10.77.0.1@LND: LNet up, waits for B, capture started,
#           counters, then the workload of TESTS (ping lst mount faults),
#           counters, capture stopped, "done".
# Both capture with lnetcap as a user would: no option (see lib.sh).
# Two idle seconds around the workload keep the capture window and the
# counter window apart from any traffic.  Variables: ROLE, PEER_OUT,
# TESTS, LST_SECS, MOUNT_SECS, LUSTRE_VERSION, LND, LNET_IPV6 (1: the
# NIDs are fd77::1@LND and fd77::2@LND, large NIDs), plus lib.sh's.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
ip_a=10.77.0.1 ip_b=10.77.0.2
[ "${LNET_IPV6:-0}" = 1 ] && ip_a=fd77::1 ip_b=fd77::2
A=$ip_a@${LND:-tcp} B=$ip_b@${LND:-tcp}
me=${ROLE:?}
cap=$RIG_OUT/$me.pcapng

log "node $me: modules from $KMODS"
if [ "$me" = a ]; then net_up 10.77.0.1; else net_up 10.77.0.2; fi
if [ "${LNET_IPV6:-0}" = 1 ]; then
	if [ "$me" = a ]; then net6_up "$ip_a"; else net6_up "$ip_b"; fi
fi
lnet_up || exit 3
# With -6 the NI must be the IPv6 one, or the run is not what it says.
if [ "${LNET_IPV6:-0}" = 1 ]; then
	mine=$B
	[ "$me" = a ] && mine=$A
	lnetctl net show | grep -q "nid: $mine\$" || { log "no NI $mine after lnetctl lnet configure --large"; exit 3; }
fi
for m in lnet libcfs ksocklnd ko2iblnd; do [ -e /sys/kernel/btf/$m ] && echo $m; done >"$RIG_OUT/module-btf.txt"
cat /sys/module/lnet/version >"$RIG_OUT/lnet-version.txt" 2>&1

if [ "$me" = b ]; then
	capture_out_of_the_box "$cap" || log "no capture on b"
	serve_until "$PEER_OUT/done"
fi

log "waiting for b"
wait_file "$PEER_OUT/ready" 600 || { log "b never became ready"; exit 3; }
capture_out_of_the_box "$cap" || { log "no capture on a"; touch "$RIG_OUT/done"; exit 4; }
sleep 2
counters before

tests=" ${TESTS:-ping lst} "
if [[ $tests == *" ping "* ]]; then
	log "ping"
	for _ in 1 2 3; do
		lnetctl ping "$B" >>"$RIG_OUT/ping.txt" 2>&1
		echo "rc=$?" >>"$RIG_OUT/ping.txt"
	done
	# No timeout argument: lctl (2.16) turns one into seconds for its
	# range check but hands the number to the kernel as milliseconds.
	lctl ping "$B" >>"$RIG_OUT/ping.txt" 2>&1
	echo "rc=$?" >>"$RIG_OUT/ping.txt"
fi
if [[ $tests == *" lst "* ]]; then
	log "lnet_selftest: brw read+write 4k+1M, ping for ${LST_SECS:-15} s"
	lst_brw "$A" "$B" >"$RIG_OUT/lst.txt" 2>&1
fi
if [[ $tests == *" mount "* ]]; then
	# A client-only build has no server: b's LNet drops the MGS_CONNECTs.
	log "mount -t lustre $B:/lustre (b runs no MGS)"
	mount_attempt "$B"
fi
if [[ $tests == *" faults "* ]]; then
	# LNet fault injection (lctl net_drop_add / net_delay_add): every 2nd
	# message from b is dropped in a's lnet_parse, every message a sends
	# to b is held 1 s before the LND.  The rules' own counts (dropped,
	# delayed) are what the capture's drop-rule DROPs and queue times must
	# match (run.sh).  A ping fails when its REPLY is dropped.
	log "faults: drop 1/2 from b, delay 1 s to b, lctl ping x6"
	{
		lctl net_drop_add -s "$B" -d "$A" -r 2
		lctl net_delay_add -s "$A" -d "$B" -r 1 -l 1
		for _ in 1 2 3 4 5 6; do
			# 5 s, so the 1 s delay cannot time it out: lnetctl's
			# --timeout is seconds; lctl ping's number reaches the
			# kernel as milliseconds (2.16: `lctl ping NID 5` = 5 ms)
			lnetctl ping --timeout 5 "$B" >/dev/null
			echo "rc=$?"
		done
		sleep 2
		echo "== rules"
		lctl net_drop_list
		lctl net_delay_list
		lctl net_drop_del -a
		lctl net_delay_del -a
	} >"$RIG_OUT/faults.txt" 2>&1
fi
workload_done
