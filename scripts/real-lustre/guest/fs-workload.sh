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

# What a shared trace must not give away (--anonymize; the report runs
# tests/anon/leak_check.py on each node's capture and the wire): names of
# every length 1-64 (files, directories, a rename, a hard link, a
# symlink and its target), a path ~600 bytes deep, small files of 1-16 KiB
# whose bytes are text (short I/O sends them inline in the request), and
# xattrs whose names and values are text.  Every name and byte is
# deterministic, so a leak is found again in the next run.
name_of() { # LENGTH [SALT]: letters and digits, starting with a letter
	/usr/bin/python3 -c "import random,string,sys
r = random.Random(int(sys.argv[1]) * 7919 + int(sys.argv[2]))
a = string.ascii_letters
print(r.choice(a) + ''.join(r.choice(a + string.digits) for _ in range(int(sys.argv[1]) - 1)))" "$1" "${2:-0}"
}
text_of() { # BYTES SALT: readable lines, none like another file's
	/usr/bin/python3 -c "import random,sys
r = random.Random(int(sys.argv[2]))
w = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima'.split()
out = ''
while len(out) < int(sys.argv[1]):
    out += ' '.join(r.choice(w) + str(r.randrange(1000)) for _ in range(8)) + chr(10)
sys.stdout.write(out[:int(sys.argv[1])])" "$1" "$2"
}
S=$M1/share
step mkdir $S
# shellcheck disable=SC2207 # names of letters and digits: one word each
NAME=(- $(/usr/bin/python3 -c "import random,string
for n in range(1, 65):
    r = random.Random(n * 7919)
    a = string.ascii_letters
    print(r.choice(a) + ''.join(r.choice(a + string.digits) for _ in range(n - 1)))"))
step test "${#NAME[@]}" = 65 -a "${NAME[64]}" = "$(name_of 64)"
for n in $(seq 1 64); do
	step touch "$S/${NAME[$n]}"
done
step mkdir "$S/$(name_of 40 1)"
step mv "$S/${NAME[12]}" "$S/$(name_of 40 1)/$(name_of 13 1)"
step ln "$S/${NAME[20]}" "$S/$(name_of 21 1)"
step ln -s "$(name_of 33 2)/$(name_of 34 2)" "$S/$(name_of 9 2)"
step readlink "$S/$(name_of 9 2)"
deep=$S
for i in 1 2 3 4 5 6 7 8 9 10; do deep=$deep/$(name_of 60 $((10 + i))); done
step mkdir -p "$deep"
step touch "$deep/$(name_of 64 3)"
for kb in 1 2 4 8 16; do
	f=$S/$(name_of 16 $((100 + kb)))
	text_of $((kb * 1024)) $kb >/tmp/share-$kb
	sum=$(md5sum </tmp/share-$kb | cut -d' ' -f1)
	step cp /tmp/share-$kb "$f"
	step sync
	step readback "$f" "$sum"
	rm -f /tmp/share-$kb
done
share_xattr() { /usr/bin/python3 -c "import os,sys
os.setxattr(sys.argv[1], 'trusted.' + sys.argv[2], sys.argv[3].encode())
assert os.getxattr(sys.argv[1], 'trusted.' + sys.argv[2]) == sys.argv[3].encode()" "$@"; }
for n in 5 17 31; do
	step share_xattr "$S/${NAME[$n]}" "$(name_of $n 4)" "$(text_of $((n * 8)) $((200 + n)))"
done
step ls -lR $S
step rm -rf $S

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
