#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# packaging.rpm-spec: packaging/lnetcap.spec parses with rpmspec -P for
# Fedora/RHEL 10 (plugin on) and RHEL 8 and 9 (plugin off: their Wireshark is
# older than 4.0), rpmlint reports no error, its Version is the project's,
# and its %files cover every file `cmake --install` of this build installs
# (so an rpmbuild would not stop on "installed but unpackaged files").
# Nothing is built with rpmbuild here: this Debian machine lacks the
# RHEL build macros and -devel packages.
source "$(dirname "$0")/common.sh"
need rpmspec "apt-get install rpm"
SPEC=$SRC/packaging/lnetcap.spec
WORK=${LNETCAP_WORK_DIR:?}/rpm
rm -rf "$WORK"
mkdir -p "$WORK"

for dist in fedora rhel8 rhel9 rhel10; do
	case $dist in
	fedora) defs=() ;;
	*) defs=(--define "rhel ${dist#rhel}") ;;
	esac
	rpmspec -P "${defs[@]}" "$SPEC" >"$WORK/$dist.spec" 2>"$WORK/$dist.err" ||
		fail "rpmspec -P ($dist): $(cat "$WORK/$dist.err")"
	pkgs=$(rpmspec -q "${defs[@]}" --qf '%{name} ' "$SPEC" 2>/dev/null)
	case $dist in
	rhel8 | rhel9) want="lnetcap lnetcap-dkms lnetcap-doc " ;;
	*) want="lnetcap lnetcap-wireshark lnetcap-dkms lnetcap-doc " ;;
	esac
	[ "$pkgs" = "$want" ] || fail "$dist: packages '$pkgs', expected '$want'"
	pass "rpmspec -P ($dist): $pkgs"
done
grep -q 'gcc-toolset' "$WORK/rhel8.spec" || fail "rhel8: no gcc-toolset for C++20"

v=$(rpmspec -q --srpm --qf '%{version}' "$SPEC" 2>/dev/null)
[ "$v" = "$VERSION" ] || fail "spec Version is $v, the project is $VERSION"
pass "spec version $v"

# Plugin dependency bound to one Wireshark X.Y (when wireshark-dev is here).
xy=$(ws_xy)
if [ -n "$xy" ]; then
	grep -qE "^Requires: +\(wireshark-cli.* >= $xy with wireshark-cli.* < ${xy%.*}\.$(( ${xy#*.} + 1 ))\)" \
		"$WORK/fedora.spec" || fail "plugin Requires not bound to Wireshark $xy: $(grep Requires: "$WORK/fedora.spec")"
	pass "lnetcap-wireshark requires Wireshark $xy.x"
fi

if command -v rpmlint >/dev/null 2>&1; then
	rpmlint "$SPEC" >"$WORK/rpmlint.txt" 2>&1
	cat "$WORK/rpmlint.txt"
	grep -q ' E: ' "$WORK/rpmlint.txt" && fail "rpmlint reports errors"
	grep -qE '[0-9]+ errors?' "$WORK/rpmlint.txt" || fail "rpmlint did not run: $(cat "$WORK/rpmlint.txt")"
	pass "rpmlint: no errors"
else
	echo "SKIP (part): rpmlint is not installed (apt-get install rpmlint)" >&2
fi

# %files against what cmake --install puts in a /usr prefix, with this
# machine's libdir standing in for %{_libdir} and systemd-rpm-macros'
# directories defined here (this machine has no systemd-rpm-macros).
BIN=${LNETCAP_BINARY_DIR:?}
DEST=$WORK/root
DESTDIR=$DEST cmake --install "$BIN" --prefix /usr >"$WORK/install.log" 2>&1 ||
	fail "cmake --install: $(tail -5 "$WORK/install.log")"
rpmspec -P --define "_libdir /usr/lib/$MULTIARCH" --define "_usrsrc /usr/src" \
	--define "_docdir /usr/share/doc" --define "_mandir /usr/share/man" \
	--define "_unitdir /usr/lib/systemd/system" --define "_sysusersdir /usr/lib/sysusers.d" \
	--define "_tmpfilesdir /usr/lib/tmpfiles.d" --define "_udevrulesdir /usr/lib/udev/rules.d" \
	--define "_sysconfdir /etc" "$SPEC" |
	awk '/^%files/ {f = 1; next} /^%(changelog|package|description|prep|build|install|check|pre|post|preun)/ {f = 0}
	     f && NF {sub(/^%(dir|doc|config\(noreplace\)|license) +/, ""); if ($0 ~ /^\//) print}' >"$WORK/files.txt"
[ -s "$WORK/files.txt" ] || fail "no %files entries found"
unpackaged=""
while IFS= read -r f; do
	f=/${f#"$DEST"/}
	ok=0
	while IFS= read -r p; do
		# shellcheck disable=SC2053
		if [[ $p == */ && $f == "$p"* ]] || [[ $f == $p ]]; then ok=1; break; fi
	done <"$WORK/files.txt"
	[ $ok = 1 ] || unpackaged+=" $f"
done < <(find "$DEST" -type f -o -type l)
[ -z "$unpackaged" ] || fail "installed but not in any %files:$unpackaged"
pass "%files cover all $(find "$DEST" -type f -o -type l | wc -l) installed files"
