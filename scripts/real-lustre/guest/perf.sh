#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Throughput boot of a real-Lustre run (run.sh -p): node b as in node.sh
# but without a capture; node a runs lnet_selftest brw write (1M and 4k,
# concurrency 8) PERF_CYCLES times, alternating no capture and a capture
# started as node.sh starts it (in ABBA order), in one boot so that both conditions share
# the guest's state.  Under TCG only the ratio means something.
# Results in $RIG_OUT/perf/<cycle>-<none|capture>-<size>.txt (`lst stat`).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
A=10.77.0.1@tcp B=10.77.0.2@tcp
if [ "$ROLE" = b ]; then
	net_up 10.77.0.2
	lnet_up || exit 3
	touch "$RIG_OUT/ready"
	wait_file "$PEER_OUT/done" 1800 || log "a never said done"
	exit 0
fi
net_up 10.77.0.1
lnet_up || exit 3
wait_file "$PEER_OUT/ready" 600 || { log "b never became ready"; exit 3; }
P=$RIG_OUT/perf
mkdir -p "$P"

brw() { # tag size
	export LST_SESSION=$$
	{
		lst new_session --timeout 300 perf
		lst add_group ga "$A"
		lst add_group gb "$B"
		lst add_batch w
		lst add_test --batch w --concurrency 8 --from ga --to gb brw write size="$2"
		lst run w
		sleep 2
		lst stat --delay "${PERF_DELAY:-5}" --count "${PERF_COUNT:-3}" ga
		lst stop w
		lst end_session
	} >"$P/$1-$2.txt" 2>&1
}

for cyc in $(seq 1 "${PERF_CYCLES:-3}"); do
	# ABBA order: a trend in the host's load over the boot weighs on both
	# conditions alike.
	conds="none capture"
	[ $((cyc % 2)) = 0 ] && conds="capture none"
	for cond in $conds; do
		if [ "$cond" = capture ]; then
			capture_out_of_the_box /tmp/perf.pcapng || { log "no capture"; continue; }
			cp "$RIG_OUT/start.txt" "$P/$cyc-start.txt"
		fi
		log "cycle $cyc: $cond"
		brw "$cyc-$cond" 1M
		brw "$cyc-$cond" 4k
		if [ "$cond" = capture ]; then
			capture_stop
			cp "$RIG_OUT/capture.err" "$P/$cyc-capture.err"
			rm -f /tmp/perf.pcapng
		fi
	done
done
touch "$RIG_OUT/done"
log "done"
