# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the system-tier packaging tests that need a fresh Debian root
# (after common.sh, whose skip/fail/need they use):
#   debroot_create SUITE ROOT [PKG...]  a fresh root of Debian SUITE at ROOT,
#       made with `mmdebstrap --variant=apt` plus PKGs.  The first run keeps
#       the result as a tarball in $LNETCAP_DEBROOT_CACHE (default
#       /var/tmp/lnetcap-debroots, never the source tree), keyed by suite
#       and packages; later runs unpack a fresh copy of it.  Skips (77) when
#       the Debian archive cannot be reached; any other failure fails.
#   debroot_mount ROOT     /proc and /dev inside ROOT (undone by debroot_umount)
#   debroot_run ROOT CMD   runs CMD with bash -c inside ROOT as root
# Needs root (chroot, mount).
DEBROOT_MIRROR=${LNETCAP_DEBIAN_MIRROR:-http://deb.debian.org/debian}

debroot_reachable() {
	local host=${DEBROOT_MIRROR#*://}
	host=${host%%/*}
	timeout 30 bash -c "exec 3<>/dev/tcp/$host/80" 2>/dev/null
}

debroot_create() {
	local suite=$1 root=$2
	shift 2
	[ "$(id -u)" = 0 ] || skip "needs root to chroot into a Debian $suite root"
	need mmdebstrap "apt-get install mmdebstrap"
	local cache=${LNETCAP_DEBROOT_CACHE:-/var/tmp/lnetcap-debroots}
	local key
	key=$(echo "$suite $DEBROOT_MIRROR $*" | sha256sum | cut -c1-12)
	local tarball=$cache/$suite-$key.tar
	mkdir -p "$cache" || fail "cannot create $cache"
	(
		# ctest -j may run two tests that want the same root: one makes it.
		flock 9
		[ -s "$tarball" ] && exit 0
		local inc
		inc=$(IFS=,; echo "$*")
		echo "making a Debian $suite root with mmdebstrap (cached as $tarball)"
		if ! timeout 1800 mmdebstrap --variant=apt --format=tar ${inc:+--include="$inc"} \
			"$suite" "$tarball.tmp" "$DEBROOT_MIRROR" >"$tarball.log" 2>&1; then
			rm -rf --one-file-system "$tarball.tmp"
			debroot_reachable || exit 77
			tail -20 "$tarball.log" >&2
			exit 1
		fi
		mv "$tarball.tmp" "$tarball"
	) 9>"$tarball.lock"
	case $? in
	0) ;;
	77) skip "the Debian archive ($DEBROOT_MIRROR) cannot be reached: no $suite root" ;;
	*) fail "mmdebstrap of Debian $suite failed (log: $tarball.log)" ;;
	esac
	# Never delete through a mount left over from a killed run (a bound /dev
	# or apt cache would be emptied on the host).
	if awk -v r="$(realpath -m "$root")/" 'index($2 "/", r) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
		fail "something is still mounted under $root (umount it): $(awk -v r="$(realpath -m "$root")/" 'index($2 "/", r) == 1 { print $2 }' /proc/mounts)"
	fi
	rm -rf --one-file-system "$root"
	mkdir -p "$root"
	tar -C "$root" -xf "$tarball" || fail "unpacking $tarball"
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
}

DEBROOT_MOUNTS=()
debroot_mount() {
	local root=$1
	mount -t proc proc "$root/proc" || fail "mount proc in $root"
	DEBROOT_MOUNTS+=("$root/proc")
	mount --bind /dev "$root/dev" || fail "bind-mount /dev in $root"
	DEBROOT_MOUNTS+=("$root/dev")
}
# Bind-mounts a host folder (created if missing) at PATH inside ROOT.
debroot_bind() {
	local src=$1 root=$2 path=$3
	mkdir -p "$src" "$root$path" || fail "mkdir $src $root$path"
	mount --bind "$src" "$root$path" || fail "bind-mount $src at $root$path"
	DEBROOT_MOUNTS+=("$root$path")
}
debroot_umount() {
	local i
	for ((i = ${#DEBROOT_MOUNTS[@]} - 1; i >= 0; i--)); do
		umount "${DEBROOT_MOUNTS[i]}" 2>/dev/null || umount -l "${DEBROOT_MOUNTS[i]}"
	done
	DEBROOT_MOUNTS=()
}
debroot_run() {
	local root=$1
	shift
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive bash -c "$*"
}
