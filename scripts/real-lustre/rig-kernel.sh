# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by build-lustre.sh and build-zfs.sh: the kernel the rig boots is
# the one linux-headers-amd64 points at.  Sets KVER, KOBJ (the headers'
# build tree) and KSRC (their -common source tree), or exits 2 saying what
# to install.
KVER=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
	grep -m1 -o 'linux-headers-[0-9][^ ,]*-amd64' | sed 's/^linux-headers-//') || true
if [ -z "$KVER" ] || [ ! -d "/usr/src/linux-headers-$KVER" ]; then
	echo "$(basename "$0" .sh): linux-headers-amd64 is not installed; run scripts/install-deps.sh" >&2
	exit 2
fi
KOBJ=/usr/src/linux-headers-$KVER
KSRC=/usr/src/linux-headers-${KVER%-amd64}-common
