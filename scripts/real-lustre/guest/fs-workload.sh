#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The file-system workload of a real-Lustre run (guest/fs.sh, node a): the
# everyday operations on mount M1, then lock contention between the two
# mounts M1 and M2 of the same file system (two client namespaces on one
# node), which makes the server send blocking callbacks (to the mount that
# holds a conflicting lock) and completion callbacks.  Each step is echoed
# with its status; the script goes on after a failed step and exits 1.
set -u
M1=${M1:?} M2=${M2:?}
bad=0
step() {
	local rc=0
	"$@" || rc=$?
	echo "step rc=$rc: $*"
	[ "$rc" = 0 ] || bad=1
}
drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }
xattr() { /usr/bin/python3 -c "import os,sys
if sys.argv[1] == 'set': os.setxattr(sys.argv[2], 'trusted.lnetcap', b'wire')
else: assert os.getxattr(sys.argv[2], 'trusted.lnetcap') == b'wire'" "$@"; }
readback() { # FILE MD5: read after dropping caches, compare
	drop_caches
	[ "$(md5sum <"$1" | cut -d' ' -f1)" = "$2" ]
}

D=$M1/work
step lfs df $M1
step mkdir $D
step touch $D/empty
for size in 1 64; do
	f=$D/data-${size}M
	step dd if=/dev/urandom of=/tmp/src-$size bs=1M count=$size status=none
	sum=$(md5sum </tmp/src-$size | cut -d' ' -f1)
	step dd if=/tmp/src-$size of=$f bs=1M conv=fsync status=none
	step readback $f "$sum"
	rm -f /tmp/src-$size
done
step stat $D/data-1M
step ls -l $D
step chmod 600 $D/data-1M
step mv $D/data-1M $D/renamed
step ln $D/renamed $D/hardlink
step truncate -s 4096 $D/renamed
step xattr set $D/renamed
step xattr get $D/renamed
step mkdir $D/striped
step lfs setstripe -c 1 -S 1M $D/striped
step lfs getstripe $D/striped
step flock $D/renamed true
step rm $D/hardlink $D/renamed $D/data-64M $D/empty
step rmdir $D/striped

# Contention: M1 writes and keeps its write lock; M2 reads (the server
# calls back M1's lock), M2 writes, M1 reads again.
C1=$M1/contended C2=$M2/contended
step dd if=/dev/urandom of=$C1 bs=64k count=4 conv=fsync status=none
sum=$(md5sum <$C1 | cut -d' ' -f1)
step test "$(md5sum <$C2 | cut -d' ' -f1)" = "$sum"
step dd if=/dev/zero of=$C2 bs=64k count=2 conv=notrunc,fsync status=none
step test "$(md5sum <$C1 | cut -d' ' -f1)" = "$(md5sum <$C2 | cut -d' ' -f1)"
step touch $M2/work/from-m2
step ls -l $M1/work
step rm $C1 $M2/work/from-m2
step rmdir $D
exit $bad
