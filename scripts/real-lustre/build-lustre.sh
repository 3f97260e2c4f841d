#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# [ZFS_WORK=DIR] build-lustre.sh LUSTRE_GIT TAG WORK
#
# Builds a Lustre client (LNet, ksocklnd, ko2iblnd against the kernel's own
# RDMA stack, lnet_selftest; no gss) from tag TAG of LUSTRE_GIT (a git dir
# of lustre-release, bare or not) for Debian 12's stock kernel: the ABI that the installed
# linux-headers-amd64 depends on, the same kernel the QEMU rig boots.
# Everything lands in WORK (outside the repository; never commit it):
#   WORK/src    the checked-out tree, configured and built
#   WORK/inst   `make install DESTDIR=` (lctl, lnetctl, lst, libraries)
#   WORK/built  stamp naming the tag and recipe, written only after a full build
#
# Idempotent: a finished build of the same tag is reused; a different tag
# starts over. On a 2-vCPU host configure takes ~25 min and make ~15 min.
#
# With ZFS_WORK (a finished build-zfs.sh WORK directory) it builds client
# and server (MGS, MDT and OST on ZFS OSDs) instead: ldiskfs would need a
# patched kernel, and Debian's zfs-dkms is in contrib, hence ZFS from source.
set -euo pipefail

GIT_DIR_IN=${1:?usage: build-lustre.sh LUSTRE_GIT TAG WORK}
TAG=${2:?usage: build-lustre.sh LUSTRE_GIT TAG WORK}
WORK=${3:?usage: build-lustre.sh LUSTRE_GIT TAG WORK}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
SRC=$WORK/src
JOBS=${JOBS:-2}

# The stamp names what was configured, so a build of an older recipe (no
# o2ib, another ZFS) is redone rather than reused.
ZFS_WORK=${ZFS_WORK:-}
role=(--disable-server)
BUILT_AS="$TAG o2ib"
if [ -n "$ZFS_WORK" ]; then
	zfs_tag=$(cat "$ZFS_WORK/zfs-built" 2>/dev/null) || {
		echo "build-lustre: ZFS_WORK=$ZFS_WORK holds no finished ZFS build (scripts/real-lustre/build-zfs.sh)" >&2
		exit 2
	}
	role=(--enable-server --disable-ldiskfs --with-zfs="$ZFS_WORK/zfs"
		--with-zfs-obj="$ZFS_WORK/zfs" --with-zfs-devel="$ZFS_WORK/zfs-inst")
	BUILT_AS="$TAG o2ib server $zfs_tag"
fi
if [ "$(cat "$WORK/built" 2>/dev/null)" = "$BUILT_AS" ]; then
	echo "build-lustre: $TAG already built in $WORK"
	exit 0
fi
# A client and server build holds every module and utility of the client
# build: an LNet-only run reuses it rather than configuring again (~25 min).
if [ -z "$ZFS_WORK" ]; then
	case $(cat "$WORK/built" 2>/dev/null) in
	"$BUILT_AS server "*)
		echo "build-lustre: $TAG already built in $WORK (client and server)"
		exit 0
		;;
	esac
fi

if ! git --git-dir="$GIT_DIR_IN" rev-parse -q --verify "$TAG^{commit}" >/dev/null; then
	echo "build-lustre: $GIT_DIR_IN has no tag or commit '$TAG'; list them with: git --git-dir=$GIT_DIR_IN tag" >&2
	exit 2
fi

# shellcheck source=rig-kernel.sh
. "$(dirname "$0")/rig-kernel.sh"

# Lustre's own build dependencies (not the project's: only this opt-in
# harness needs them).
if [ "${SKIP_APT:-0}" != 1 ]; then
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get install -y -q --no-install-recommends autoconf automake libtool \
		pkg-config flex bison libyaml-dev libnl-genl-3-dev libkeyutils-dev \
		libmount-dev libssl-dev libreadline-dev libselinux1-dev zlib1g-dev \
		libelf-dev pahole >/dev/null
fi

stamp_src=$WORK/src.tag
if [ "$(cat "$stamp_src" 2>/dev/null)" != "$TAG" ]; then
	rm -rf "$SRC" "$WORK/inst" "$WORK/built"
	"$(dirname "$0")/checkout-tag.sh" "$GIT_DIR_IN" "$TAG" "$SRC"
	echo "$TAG" >"$stamp_src"
fi

cd "$SRC"
# Without .git, LUSTRE-VERSION-GEN falls back to the tag's DEFAULT_VERSION.
[ -x configure ] || sh autogen.sh
# o2ib: Debian's in-kernel RDMA headers live in the -common tree (no
# MOFED); the rig runs ko2iblnd over soft-RoCE (rdma_rxe).
conf=("${role[@]}" --disable-tests --disable-manpages --disable-iokit --disable-gss
	--with-o2ib=yes --with-linux="$KSRC" --with-linux-obj="$KOBJ")
# Reconfigure when the arguments or what they point at (another ZFS) change.
if [ ! -f config.status ] || [ "$(cat "$WORK/configured" 2>/dev/null)" != "${conf[*]} ($BUILT_AS)" ]; then
	./configure "${conf[@]}"
	echo "${conf[*]} ($BUILT_AS)" >"$WORK/configured"
fi
# 2.15's configure adds -Wall -Werror to CFLAGS on x86_64, for the
# utilities and (through Rules' EXTRA_CFLAGS) every module, and gcc 12
# warns where the compilers 2.15 was released with did not (lnetctl's
# -Wuse-after-free, the quota master's -Waddress): the warnings stay
# visible, they just do not stop the build (make install too: kbuild
# rebuilds an object whose flags differ).
make_flags=()
case $TAG in v2_15_*) make_flags=(CFLAGS="-g -O2 -Wall -Wno-error" EXTRA_POST_CFLAGS=-Wno-error) ;; esac
make -j"$JOBS" "${make_flags[@]}"
rm -rf "$WORK/inst"
make install DESTDIR="$WORK/inst" "${make_flags[@]}" >/dev/null
echo "$BUILT_AS" >"$WORK/built"
echo "build-lustre: $TAG built: $(find "$SRC" -name '*.ko' -not -path '*/.tmp*' | wc -l) modules, utilities in $WORK/inst"
