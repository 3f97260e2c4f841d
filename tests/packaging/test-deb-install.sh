#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# packaging.deb-install (system tier): the README's analyst and node steps
# work as written on a fresh Debian 12 machine.  Builds the .debs (as
# packaging.deb does), makes a fresh Debian 12 root with mmdebstrap, installs
# lnetcap, lnetcap-wireshark and lnetcap-doc there with
# `apt install ./x.deb ...` as a user would (recommended packages included),
# and then, as an unprivileged user of that root:
#  - `tshark -G plugins | grep lnetcap` (the README's check) finds the plugin;
#  - tshark dissects the packaged sample with it;
#  - and, as root (the README's `sudo lnetcap`), `lnetcap -r` reads it.
# The root is cached as a tarball (tests/packaging/debroot.sh) and the apt
# downloads in $LNETCAP_DEBROOT_CACHE/apt-bookworm, so reruns do not fetch
# them again.  Skipped (77) only without root, mmdebstrap, the build tools
# or the Debian archive.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/debroot.sh"
need dpkg-buildpackage "apt-get install dpkg-dev"
need dh "apt-get install debhelper"
need dh_dkms "apt-get install dh-dkms"
need mmdebstrap "apt-get install mmdebstrap"
[ "$(id -u)" = 0 ] || skip "needs root (chroot into a fresh Debian root)"
debroot_reachable || skip "the Debian archive ($DEBROOT_MIRROR) cannot be reached"

declares_packages
WORK=${LNETCAP_WORK_DIR:?}/deb-install
build_debs "$WORK"
debs=()
for p in lnetcap lnetcap-wireshark lnetcap-doc; do
	f=$(ls ${p}_"$VERSION"_*.deb 2>/dev/null) || fail "package $p was not built: $(ls)"
	debs+=("$f")
done

ROOT=$WORK/root
on_exit debroot_umount  # testlib owns the EXIT trap
debroot_create bookworm "$ROOT"
debroot_mount "$ROOT"
debroot_bind "${LNETCAP_DEBROOT_CACHE:-/var/tmp/lnetcap-debroots}/apt-bookworm" "$ROOT" /var/cache/apt/archives
mkdir -p "$ROOT/tmp/debs"
cp "${debs[@]}" "$ROOT/tmp/debs/" || fail "copying the packages into the root"

# What the README says: apt install ./lnetcap_*.deb ./lnetcap-wireshark_*.deb
# (and lnetcap-doc for the samples).  Only the debconf question tshark asks
# is answered (the default: non-root users may not capture).
t0=$(date +%s)
debroot_run "$ROOT" "cd /tmp/debs && apt-get update -qq && apt-get install -y -q $(printf './%s ' "${debs[@]##*/}")" \
	>"$WORK/apt-install.log" 2>&1 || {
	tail -30 "$WORK/apt-install.log" >&2
	fail "apt install of the packages into a fresh Debian 12 root failed (log: $WORK/apt-install.log)"
}
pass "apt install ./${debs[*]##*/} in a fresh Debian 12 root ($(( $(date +%s) - t0 )) s)"
for p in tshark wireshark; do
	debroot_run "$ROOT" "dpkg-query -W -f='\${Status}' $p" | grep -q 'install ok installed' ||
		fail "apt did not install $p with lnetcap-wireshark"
done
pass "apt brought tshark (dependency) and the wireshark GUI (recommended)"

debroot_run "$ROOT" "id analyst >/dev/null 2>&1 || useradd -m analyst" || fail "useradd analyst"
as_analyst() { debroot_run "$ROOT" "cd ~analyst && runuser -u analyst -- env HOME=/home/analyst $*"; }

# The README's check, word for word, as the analyst.
out=$(as_analyst 'tshark -G plugins | grep lnetcap' 2>"$WORK/plugins.err") ||
	fail "'tshark -G plugins | grep lnetcap' as an unprivileged user found nothing: $(cat "$WORK/plugins.err")"
echo "$out"
pass "tshark -G plugins | grep lnetcap (unprivileged): the plugin is loaded"

sample=/usr/share/doc/lnetcap/samples/synthetic-rpcs.pcapng
n=$(as_analyst "tshark -r $sample -Y lnetcap -T fields -e frame.number" 2>"$WORK/tshark.err" | wc -l)
[ "$n" = 8 ] || fail "tshark dissected $n of the sample's 8 records as lnetcap: $(cat "$WORK/tshark.err")"
pass "tshark dissects the packaged sample with the installed plugin ($n records)"

# The node admin's side (README: sudo lnetcap ...; /usr/sbin is root's PATH).
debroot_run "$ROOT" "lnetcap -r $sample" >"$WORK/lnetcap.txt" 2>"$WORK/lnetcap.err" ||
	fail "lnetcap -r $sample: $(cat "$WORK/lnetcap.err")"
n=$(wc -l <"$WORK/lnetcap.txt")
[ "$n" = 8 ] || fail "lnetcap -r printed $n lines for the 8-record sample: $(cat "$WORK/lnetcap.txt")"
grep -q LDLM_ENQUEUE "$WORK/lnetcap.txt" || fail "no LDLM_ENQUEUE in: $(cat "$WORK/lnetcap.txt")"
pass "lnetcap -r of the packaged sample: 8 records"
