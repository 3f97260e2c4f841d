#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One node of a real-Lustre file-system run (scripts/real-lustre/run.sh -S zfs).
#   ROLE=b  10.77.0.2@tcp, the server: ZFS, capture started, counters, then
#           MGS+MDT and OST formatted on file-backed pools in the guest's
#           tmpfs and mounted; "ready"; waits for a's "done"; Lustre's debug
#           log (rpctrace), counters, capture stopped.
#   ROLE=a  10.77.0.1@tcp, the client: waits for b, capture started,
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
LND=tcp
A=10.77.0.1@tcp B=10.77.0.2@tcp
FSNAME=lfs
me=${ROLE:?}
cap=$RIG_OUT/$me.pcapng
export PATH=$ZFS_INST/usr/sbin:$ZFS_INST/sbin:$PATH
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$ZFS_INST/usr/lib
# mount.lustre finds its OSD plugin (mount_osd_zfs.so) in $LUSTRE/utils
# when the configured /usr/lib/lustre has none (it is in the install tree).
mkdir -p /tmp/lustre-utils/utils
ln -sf "$LR_WORK/inst/usr/lib/lustre/mount_osd_zfs.so" /tmp/lustre-utils/utils/
export LUSTRE=/tmp/lustre-utils

# debug_log NAME: Lustre's debug buffer (rpctrace lines) into NAME.
debug_log() {
	lctl dk >"$RIG_OUT/$1" 2>&1
	log "debug log: $(grep -c 'Handled RPC' "$RIG_OUT/$1") handled RPCs"
}

# rpc_logging: rpctrace on top of the default debug mask, a buffer large
# enough for the whole run, and jobids that name the process.
rpc_logging() {
	lctl set_param debug=+rpctrace debug_mb=128 jobid_var=procname_uid >/dev/null
	lctl get_param debug jobid_var jobid_name >"$RIG_OUT/lustre-params.txt" 2>&1
}

log "node $me: modules from $KMODS"
if [ "$me" = a ]; then net_up 10.77.0.1; else net_up 10.77.0.2; fi
lnet_up || exit 3
cat /sys/module/lnet/version >"$RIG_OUT/lnet-version.txt" 2>&1
# Lustre asks for its OSD and client modules with request_module, which
# the rig cannot serve (no modprobe): load them all.
for m in mgc lmv mdc lov osc lustre; do load_mod $m || exit 3; done

if [ "$me" = b ]; then
	# ARC capped: the guest's memory also holds the pools' files.
	load_mod zfs zfs_arc_max=134217728 || exit 3
	for m in osd_zfs mgs mdt mdd lod osp ofd ost lfsck lquota fid fld; do
		load_mod $m || exit 3
	done
	rpc_logging
	capture_out_of_the_box "$cap" || log "no capture on b"
	sleep 2
	counters before
	lctl clear
	# The pools' files live in /dev: ZFS opens file vdevs from its own
	# kernel threads, whose root is the initramfs, not this chroot (a
	# /tmp path fails with "no such pool or dataset"); devtmpfs is one
	# instance, the same path in both.
	P=/dev/lnetcap-zfs
	{
		set -x
		mkdir -p $P /tmp/mdt /tmp/ost &&
			truncate -s 384M $P/mdt.img && truncate -s 768M $P/ost.img &&
			zpool create -o cachefile=none -O canmount=off lmdt $P/mdt.img &&
			zpool create -o cachefile=none -O canmount=off lost $P/ost.img &&
			mkfs.lustre --backfstype=zfs --fsname=$FSNAME --mgs --mdt --index=0 lmdt/mdt0 &&
			mkfs.lustre --backfstype=zfs --fsname=$FSNAME --ost --index=0 --mgsnode=$B lost/ost0 &&
			mount.lustre_tgt lmdt/mdt0 /tmp/mdt &&
			mount.lustre_tgt lost/ost0 /tmp/ost
	} >"$RIG_OUT/format.txt" 2>&1
	echo "rc=$?" >>"$RIG_OUT/format.txt"
	lctl dl >>"$RIG_OUT/format.txt" 2>&1
	grep -q '^rc=0' "$RIG_OUT/format.txt" || log "formatting or mounting the targets failed (format.txt)"
	touch "$RIG_OUT/ready"
	log "ready; waiting for a"
	wait_file "$PEER_OUT/done" 3600 || log "a never said done"
	debug_log dk.txt
	sleep 2
	counters after
	[ -n "${cap_pid:-}" ] && capture_stop
	dmesg >"$RIG_OUT/dmesg.txt"
	log "done"
	exit 0
fi

rpc_logging
log "waiting for b"
wait_file "$PEER_OUT/ready" 3600 || { log "b never became ready"; exit 3; }
capture_out_of_the_box "$cap" || { log "no capture on a"; touch "$RIG_OUT/done"; exit 4; }
sleep 2
counters before
lctl clear
M1=/tmp/lfs1 M2=/tmp/lfs2
mkdir -p $M1 $M2
# mount.lustre of the build, not /sbin's (`mount -t lustre` runs that one)
if mount.lustre "$B:/$FSNAME" $M1 >"$RIG_OUT/mount.txt" 2>&1 &&
	mount.lustre "$B:/$FSNAME" $M2 >>"$RIG_OUT/mount.txt" 2>&1; then
	log "mounted twice; workload"
	M1=$M1 M2=$M2 bash "$(dirname "$0")/fs-workload.sh" >"$RIG_OUT/workload.txt" 2>&1
	echo "rc=$?" >>"$RIG_OUT/workload.txt"
	if [ -n "${ASSERTS:-}" ]; then
		log "assertion examples"
		M1=$M1 bash "$(dirname "$0")/fs-asserts.sh" >"$RIG_OUT/asserts.txt" 2>&1
		echo "rc=$?" >>"$RIG_OUT/asserts.txt"
	fi
	umount $M2
	umount $M1
else
	log "mount failed (mount.txt)"
fi
sleep 2
debug_log dk.txt
counters after
capture_stop
dmesg >"$RIG_OUT/dmesg.txt"
touch "$RIG_OUT/done"
log "done"
