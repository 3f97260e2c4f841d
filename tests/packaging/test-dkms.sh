#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# packaging.dkms: the DKMS tree that `cmake --install` (and lnetcap-dkms)
# puts in /usr/src/lnetcap-<version> builds lnetcap_kfunc with dkms itself,
# in private source and DKMS trees (nothing is registered on the system,
# modules are not signed or installed):
#  - without Lustre headers, DKMS skips the module (exit 77, so the
#    package's postinst does not fail) and dkms-make.sh says what to set (a
#    module built against a guessed struct layout would copy wrong bytes);
#  - with LNET_INCLUDE pointing at headers (here the rig's LNet test double,
#    which has Lustre's struct lnet_msg layout), it builds the module.
source "$(dirname "$0")/common.sh"
need dkms "apt-get install dkms"
need make "apt-get install make"
need cmake "apt-get install cmake"

kdir="" kver=""
for d in "/lib/modules/$(uname -r)/build" /lib/modules/*/build; do
	if [ -f "$d/Makefile" ]; then kdir=$(readlink -f "$d"); kver=$(basename "$(dirname "$d")"); break; fi
done
[ -n "$kdir" ] || skip "no kernel headers in /lib/modules/*/build (apt-get install linux-headers-amd64)"

WORK=${LNETCAP_WORK_DIR:?}/dkms
rm -rf "$WORK"
mkdir -p "$WORK/root" "$WORK/tree"
DESTDIR=$WORK/root cmake --install "${LNETCAP_BINARY_DIR:?}" --prefix /usr >"$WORK/install.log" 2>&1 ||
	fail "cmake --install: $(tail -5 "$WORK/install.log")"
srctree=$WORK/root/usr/src
[ -f "$srctree/lnetcap-$VERSION/dkms.conf" ] || fail "no dkms.conf in $srctree/lnetcap-$VERSION"

# sign_file pointing nowhere: dkms then skips signing instead of creating
# a MOK key pair in /var/lib/dkms.
dk() {
	env sign_file=/nonexistent dkms "$@" -m lnetcap -v "$VERSION" -k "$kver" \
		--sourcetree "$srctree" --dkmstree "$WORK/tree" --kernelsourcedir "$kdir"
}

if ls -d /var/lib/dkms/lustre*/*/build /usr/src/lustre* >/dev/null 2>&1; then
	echo "note: Lustre sources are installed here; the no-headers case is not checked"
else
	# DKMS must skip (77: BUILD_EXCLUSIVE not met), not fail: a failing
	# build would make the package's postinst, and so apt/dnf, fail.
	(unset LNET_INCLUDE; dk build) >"$WORK/nohdr.log" 2>&1
	rc=$?
	[ $rc = 77 ] || fail "dkms build without Lustre headers exited $rc, expected 77 (skipped): $(tail -5 "$WORK/nohdr.log")"
	grep -q 'BUILD_EXCLUSIVE' "$WORK/nohdr.log" || fail "dkms does not say why it skipped: $(cat "$WORK/nohdr.log")"
	pass "without Lustre headers DKMS skips the module (exit 77) instead of failing the install"
	out=$(cd "$srctree/lnetcap-$VERSION" && env -u LNET_INCLUDE sh ./dkms-make.sh "$kver" "$kdir" 2>&1) &&
		fail "dkms-make.sh built without Lustre headers"
	echo "$out" | grep -q 'no Lustre headers found' || fail "dkms-make.sh does not say what is missing: $out"
	echo "$out" | grep -q 'LNET_INCLUDE' || fail "dkms-make.sh does not say what to set: $out"
	pass "dkms-make.sh without Lustre headers says to set LNET_INCLUDE"
	rm -rf "$WORK/tree"
	mkdir -p "$WORK/tree"
fi

if ! LNET_INCLUDE=$SRC/kmod/lnet/include dk build >"$WORK/build.log" 2>&1; then
	cat "$WORK/build.log" "$WORK"/tree/lnetcap/"$VERSION"/build/make.log 2>/dev/null | tail -30 >&2
	fail "dkms build of lnetcap_kfunc for $kver failed"
fi
ko=$(find "$WORK/tree" -name 'lnetcap_kfunc.ko*' | head -1)
[ -n "$ko" ] || fail "dkms build produced no lnetcap_kfunc.ko: $(cat "$WORK/build.log")"
modinfo -F vermagic "$ko" | grep -q "^$kver " || fail "$ko is not built for $kver: $(modinfo -F vermagic "$ko")"
pass "dkms builds lnetcap_kfunc for $kver ($(basename "$ko"))"
