# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# What a real-Lustre file-system node does, sourced (after lib.sh) by the
# two topologies that run one: fs.sh (-S zfs, client and server on one
# net) and router.sh (-T router -S zfs, the server behind an LNet router).
# Variables: ZFS_INST (build-zfs.sh's zfs-inst), LR_WORK, RIG_OUT.
FSNAME=lfs
export PATH=$ZFS_INST/usr/sbin:$ZFS_INST/sbin:$PATH
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:$ZFS_INST/usr/lib
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

# fs_client_modules: Lustre asks for its OSD and client modules with
# request_module, which the rig cannot serve (no modprobe): load them all.
fs_client_modules() {
	local m
	for m in mgc lmv mdc lov osc lustre; do load_mod "$m" || return 1; done
}

# fs_server_modules: ZFS (ARC capped: the guest's memory also holds the
# pools' files) and the server's modules.
fs_server_modules() {
	local m
	load_mod zfs zfs_arc_max=134217728 || return 1
	for m in osd_zfs mgs mdt mdd lod osp ofd ost lfsck lquota fid fld; do
		# Lustre 2.17 merged the ost module into ofd (LU-14291): no
		# ost.ko from v2_17_0 on, its OSS services come with ofd.
		[ "$m" = ost ] && [ ! -e "$KMODS/ost.ko" ] && continue
		load_mod "$m" || return 1
	done
}

# fs_targets MGSNID: MGS+MDT and one OST formatted on file-backed pools and
# mounted; format.txt ends in rc=N and `lctl dl`.  The pools' files live in
# /dev: ZFS opens file vdevs from its own kernel threads, whose root is the
# initramfs, not this chroot (a /tmp path fails with "no such pool or
# dataset"); devtmpfs is one instance, the same path in both.
fs_targets() {
	local mgs=$1 P=/dev/lnetcap-zfs
	# Lustre 2.17 ships one mount helper and links mount.lustre_tgt to it
	# at install (mount_lustre.c mounts type lustre_tgt by that name); the
	# harness's DESTDIR install of 2.17.0 left the link out.
	if ! command -v mount.lustre_tgt >/dev/null; then
		mkdir -p /tmp/lustre-bin && ln -sf "$(command -v mount.lustre)" /tmp/lustre-bin/mount.lustre_tgt &&
			PATH=/tmp/lustre-bin:$PATH
	fi
	{
		set -x
		mkdir -p $P /tmp/mdt /tmp/ost &&
			truncate -s 384M $P/mdt.img && truncate -s 768M $P/ost.img &&
			zpool create -o cachefile=none -O canmount=off lmdt $P/mdt.img &&
			zpool create -o cachefile=none -O canmount=off lost $P/ost.img &&
			mkfs.lustre --backfstype=zfs --fsname=$FSNAME --mgs --mdt --index=0 lmdt/mdt0 &&
			mkfs.lustre --backfstype=zfs --fsname=$FSNAME --ost --index=0 --mgsnode="$mgs" lost/ost0 &&
			mount.lustre_tgt lmdt/mdt0 /tmp/mdt &&
			mount.lustre_tgt lost/ost0 /tmp/ost
	} >"$RIG_OUT/format.txt" 2>&1
	echo "rc=$?" >>"$RIG_OUT/format.txt"
	lctl dl >>"$RIG_OUT/format.txt" 2>&1
	grep -q '^rc=0' "$RIG_OUT/format.txt" || log "formatting or mounting the targets failed (format.txt)"
}

# fs_client_work MGSNID: mounts the file system twice (two client
# namespaces, so that one mount's locks are called back for the other),
# runs fs-workload.sh (workload.txt) and, with ASSERTS set, fs-asserts.sh
# (asserts.txt); unmounts.
fs_client_work() {
	local mgs=$1 M1=/tmp/lfs1 M2=/tmp/lfs2 here
	here=$(dirname "${BASH_SOURCE[0]}")
	mkdir -p $M1 $M2
	# mount.lustre of the build, not /sbin's (`mount -t lustre` runs that one)
	if mount.lustre "$mgs:/$FSNAME" $M1 >"$RIG_OUT/mount.txt" 2>&1 &&
		mount.lustre "$mgs:/$FSNAME" $M2 >>"$RIG_OUT/mount.txt" 2>&1; then
		log "mounted twice; workload"
		M1=$M1 M2=$M2 bash "$here/fs-workload.sh" >"$RIG_OUT/workload.txt" 2>&1
		echo "rc=$?" >>"$RIG_OUT/workload.txt"
		if [ -n "${ASSERTS:-}" ]; then
			log "assertion examples"
			M1=$M1 bash "$here/fs-asserts.sh" >"$RIG_OUT/asserts.txt" 2>&1
			echo "rc=$?" >>"$RIG_OUT/asserts.txt"
		fi
		umount $M2
		umount $M1
	else
		log "mount failed (mount.txt)"
	fi
}

# fs_serve MGSNID FILE: the server's run once its capture runs: counters,
# the targets, "ready"; then it waits for FILE (the client's "done"), keeps
# Lustre's debug log (dk.txt) and the counters, and stops.
fs_serve() {
	sleep 2
	counters before
	lctl clear
	fs_targets "$1"
	touch "$RIG_OUT/ready"
	log "ready; waiting for $2"
	wait_file "$2" 3600 || log "$2 never appeared"
	debug_log dk.txt
	sleep 2
	counters after
	node_stop
	exit 0
}
