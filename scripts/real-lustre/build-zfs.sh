#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# build-zfs.sh ZFS_GIT TAG WORK
#
# Builds OpenZFS TAG from ZFS_GIT (a git dir of openzfs/zfs) for the
# kernel the rig boots, as the base of a Lustre server build
# (ZFS_WORK=WORK build-lustre.sh).  For Lustre 2.16.1 take zfs-2.1.x, x >= 7
# (6.1 support): zfs-2.2 changed arc_prune_func_t to take a uint64_t, and
# 2.16.1's osd-zfs then fails to build (-Werror=incompatible-pointer-types;
# seen with zfs-2.2.7).  Debian's zfs-dkms is in contrib,
# which this project cannot assume, hence the source build.
# Everything lands in WORK (outside the repository; never commit it):
#   WORK/zfs       the checked-out tree, configured and built in place
#                  (Lustre's --with-zfs and --with-zfs-obj point here)
#   WORK/zfs-inst  `make install DESTDIR=` (zpool, zfs, libzfs for the guests)
#   WORK/zfs-built stamp naming the tag, written only after a full build
# Idempotent: a finished build of the same tag is reused.  About 30-40 min
# of CPU on 2 cores.
set -euo pipefail
GIT_DIR_IN=${1:?usage: build-zfs.sh ZFS_GIT TAG WORK}
TAG=${2:?usage: build-zfs.sh ZFS_GIT TAG WORK}
WORK=${3:?usage: build-zfs.sh ZFS_GIT TAG WORK}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
SRC=$WORK/zfs
JOBS=${JOBS:-2}

if [ "$(cat "$WORK/zfs-built" 2>/dev/null)" = "$TAG" ]; then
	echo "build-zfs: $TAG already built in $SRC"
	exit 0
fi
git --git-dir="$GIT_DIR_IN" rev-parse -q --verify "$TAG^{commit}" >/dev/null || {
	echo "build-zfs: $GIT_DIR_IN has no tag '$TAG' (git --git-dir=$GIT_DIR_IN tag -l 'zfs-2.*')" >&2
	exit 2
}
# shellcheck source=rig-kernel.sh
. "$(dirname "$0")/rig-kernel.sh"

if [ "${SKIP_APT:-0}" != 1 ]; then
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	# OpenZFS's own build dependencies (only this opt-in harness needs them).
	$SUDO apt-get install -y -q --no-install-recommends autoconf automake libtool \
		gawk uuid-dev libblkid-dev libudev-dev libssl-dev zlib1g-dev libaio-dev \
		libattr1-dev libelf-dev libtirpc-dev python3 >/dev/null
fi

if [ "$(cat "$WORK/zfs.tag" 2>/dev/null)" != "$TAG" ]; then
	rm -rf "$SRC" "$WORK/zfs-inst" "$WORK/zfs-built"
	mkdir -p "$SRC"
	"$(dirname "$0")/checkout-tag.sh" "$GIT_DIR_IN" "$TAG" "$SRC"
	echo "$TAG" >"$WORK/zfs.tag"
fi
cd "$SRC"
[ -x configure ] || sh autogen.sh
# Modules and the user space the guests need to make pools; no pyzfs,
# dracut/initramfs or systemd integration.  --prefix=/usr: Lustre's
# --with-zfs-devel=WORK/zfs-inst expects usr/include/libzfs and
# usr/lib/libzfs.so under it.
conf=(--prefix=/usr --libdir=/usr/lib --with-linux="$KSRC" --with-linux-obj="$KOBJ"
	--disable-pyzfs --disable-sysvinit --with-config=all
	--with-udevdir=/lib/udev --disable-systemd)
if [ ! -f config.status ] || [ "$(cat "$WORK/zfs.configured" 2>/dev/null)" != "${conf[*]}" ]; then
	./configure "${conf[@]}"
	echo "${conf[*]}" >"$WORK/zfs.configured"
fi
make -j"$JOBS"
# ZFS 2.2 writes its module symbols to module/Module.symvers; Lustre 2.16's
# o2ib configure test passes $zfsobj/Module.symvers to kbuild regardless,
# and fails ("cannot compile with OpenIB gen2 headers") without it.
ln -sfn module/Module.symvers "$SRC/Module.symvers"
rm -rf "$WORK/zfs-inst"
make install DESTDIR="$WORK/zfs-inst" >/dev/null
echo "$TAG" >"$WORK/zfs-built"
echo "build-zfs: $TAG built: $(find "$SRC/module" -name '*.ko' | wc -l) modules, user space in $WORK/zfs-inst"
