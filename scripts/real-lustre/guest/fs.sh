#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One node of a real-Lustre file-system run (scripts/real-lustre/run.sh -S zfs).
#   ROLE=b  10.77.0.2@LND (tcp, or o2ib with -L o2ib), the server: ZFS, capture started, counters, then
#           MGS+MDT and OST formatted on file-backed pools in the guest's
#           tmpfs and mounted; "ready"; waits for a's "done"; Lustre's debug
#           log (rpctrace), counters, capture stopped.
#   ROLE=a  10.77.0.1@LND, the client: waits for b, capture started,
#           counters, mounts the file system twice (two client namespaces,
#           so that one mount's locks are called back for the other) and
#           runs the workload of fs-workload.sh; umount; debug log,
#           counters, capture stopped, "done".
# Both capture with lnetcap as a user would (no option) and log RPCs with
# `lctl set_param debug=+rpctrace jobid_var=procname_uid`: run.sh checks
# every "Handled RPC" line against both captures (rpctrace_compare).
# Variables: ROLE, PEER_OUT, ZFS_INST (build-zfs.sh's zfs-inst), plus lib.sh's.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fs-lib.sh"
LND=${LND:-tcp}
A=10.77.0.1@$LND B=10.77.0.2@$LND
me=${ROLE:?}
cap=$RIG_OUT/$me.pcapng

log "node $me: modules from $KMODS"
if [ "$me" = a ]; then net_up 10.77.0.1; else net_up 10.77.0.2; fi
lnet_up || exit 3
cat /sys/module/lnet/version >"$RIG_OUT/lnet-version.txt" 2>&1
fs_client_modules || exit 3

if [ "$me" = b ]; then
	fs_server_modules || exit 3
	rpc_logging
	capture_out_of_the_box "$cap" || log "no capture on b"
	fs_serve "$B" "$PEER_OUT/done"
fi

rpc_logging
log "waiting for b"
wait_file "$PEER_OUT/ready" 3600 || { log "b never became ready"; exit 3; }
capture_out_of_the_box "$cap" || { log "no capture on a"; touch "$RIG_OUT/done"; exit 4; }
sleep 2
counters before
lctl clear
fs_client_work "$B"
debug_log dk.txt
workload_done
