#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# /init of the rig's initramfs (busybox).  Mounts the host root read-only
# at /host (9p tag "hostroot") and the run's output directory read-write
# at the same path inside /host (tag "rigout", path from rig.out= on the
# kernel command line), so host binaries and host paths work unchanged
# after chroot /host.  Then runs <out>/guest.sh in the chroot, records its
# exit status in <out>/guest.rc and powers off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

for m in $(cat /lib/modules/order); do
	insmod "/lib/modules/$m" || echo "RIG: insmod $m failed"
done

out=$(sed -n 's/.* rig\.out=\([^ ]*\).*/\1/p' /proc/cmdline)
opts=trans=virtio,version=9p2000.L,msize=524288
if ! mount -t 9p -o "$opts,ro" hostroot /host; then
	echo "RIG-FAIL: cannot mount the host root over 9p"
	poweroff -f
fi
if [ -z "$out" ] || ! mount -t 9p -o "$opts,cache=none" rigout "/host$out"; then
	echo "RIG-FAIL: cannot mount the output directory '$out'"
	poweroff -f
fi
mount -t proc proc /host/proc
mount -t sysfs sysfs /host/sys
mount -t devtmpfs devtmpfs /host/dev
mount -t debugfs debugfs /host/sys/kernel/debug
mount -t tracefs tracefs /host/sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /host/sys/fs/bpf
# A build tree under /tmp (e.g. a CI clone in a temporary directory) must
# stay visible under the tmpfs that gives the guest a writable /tmp: move
# its top directory (with the output mount inside) aside, then back on top.
top=
case "$out" in
/tmp/?*)
	top=${out#/tmp/}
	top=/tmp/${top%%/*}
	mkdir -p /stage
	mount -o rbind "/host$top" /stage || { echo "RIG-FAIL: cannot keep $top"; poweroff -f; }
	;;
esac
mount -t tmpfs tmpfs /host/tmp
mount -t tmpfs tmpfs /host/run
if [ -n "$top" ]; then
	mkdir -p "/host$top"
	mount -o rbind /stage "/host$top" || { echo "RIG-FAIL: cannot restore $top"; poweroff -f; }
fi
# The host has no kmod tools; the guest scripts use this busybox for
# insmod/rmmod/lsmod inside the chroot.
mkdir -p /host/tmp/rig && cp /bin/busybox /host/tmp/rig/busybox
echo "RIG-BOOT-OK uptime=$(cut -d' ' -f1 /proc/uptime)"

chroot /host /bin/bash "$out/guest.sh" >"/host$out/guest.log" 2>&1
rc=$?
echo "$rc" >"/host$out/guest.rc"
echo "RIG-DONE rc=$rc uptime=$(cut -d' ' -f1 /proc/uptime)"
sync
umount "/host$out"
poweroff -f
