#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# packaging.deb: builds the Debian packages from the source tree with
# dpkg-buildpackage, unpacks them into a scratch root (dpkg -x, nothing is
# installed on the system) and checks that
#  - each package holds what it should (and the DKMS one no test double);
#  - the dependencies are declared (libpcap/libbpf for the agent, the exact
#    libwireshark X.Y series for the plugin, dkms for the module);
#  - the installed lnetcap runs --version and reads the bundled sample;
#  - an unprivileged tshark loads the installed plugin from the
#    global-style folder (<root>/usr/lib/<arch>/wireshark/plugins/X.Y/epan)
#    and dissects the sample.
# Build options: nocheck (the unit tests run in their own suite), noddebs.
source "$(dirname "$0")/common.sh"
need dpkg-buildpackage "apt-get install dpkg-dev"
need dh "apt-get install debhelper"
need dh_dkms "apt-get install dh-dkms"
need tshark "apt-get install tshark"
need pkg-config "apt-get install pkg-config"
[ -n "$(ws_xy)" ] || skip "wireshark-dev is not installed (no wireshark.pc)"

declares_packages
WORK=${LNETCAP_WORK_DIR:?}/deb
build_debs "$WORK"

cd "$WORK/src"
for p in lnetcap lnetcap-wireshark lnetcap-dkms lnetcap-doc; do
	ls ${p}_"$VERSION"_*.deb >/dev/null 2>&1 || fail "package $p was not built: $(ls)"
done
pass "packages: $(ls *.deb | tr '\n' ' ')"

deb() { ls "$1"_"$VERSION"_*.deb; }
files() { dpkg-deb -c "$(deb "$1")" | awk '{print $6}' | sed 's|^\./|/|'; }
has() { files "$1" | grep -qx -- "$2" || fail "$1 lacks $2"; }
depends() { dpkg-deb -f "$(deb "$1")" Depends; }

# --- contents -------------------------------------------------------------------
XY=$(ws_xy)
PLUGIN=/usr/lib/$MULTIARCH/wireshark/plugins/$XY/epan/lnetcap.so
has lnetcap /usr/sbin/lnetcap
has lnetcap /usr/share/man/man8/lnetcap.8.gz
has lnetcap /usr/share/man/man5/lnetcap-record.5.gz
has lnetcap /usr/share/bash-completion/completions/lnetcap
has lnetcap /usr/sbin/lnetcapd
has lnetcap /usr/share/man/man8/lnetcapd.8.gz
has lnetcap /usr/lib/systemd/system/lnetcapd.service
has lnetcap /usr/lib/sysusers.d/lnetcap.conf
has lnetcap /usr/lib/tmpfiles.d/lnetcap.conf
has lnetcap /usr/lib/udev/rules.d/60-lnetcap.rules
has lnetcap /etc/lnetcap/lnetcapd.conf
# The config is the admin's (kept on upgrade); the user exists before the
# daemon can run; the service is installed, not started (docs/DAEMON.md).
dpkg-deb -I "$(deb lnetcap)" conffiles 2>/dev/null | grep -qx /etc/lnetcap/lnetcapd.conf ||
	fail "/etc/lnetcap/lnetcapd.conf is not a conffile"
postinst=$(dpkg-deb -I "$(deb lnetcap)" postinst 2>/dev/null)
echo "$postinst" | grep -q 'systemd-sysusers' ||
	fail "lnetcap's postinst does not create the lnetcap user (systemd-sysusers)"
# The user must exist before tmpfiles.d gives it /var/lib/lnetcap.
[ "$(echo "$postinst" | grep -n systemd-sysusers | head -1 | cut -d: -f1)" -lt \
  "$(echo "$postinst" | grep -n systemd-tmpfiles | head -1 | cut -d: -f1)" ] ||
	fail "lnetcap's postinst runs systemd-tmpfiles before systemd-sysusers"
if dpkg-deb -I "$(deb lnetcap)" postinst 2>/dev/null | grep -q 'deb-systemd-invoke start'; then
	fail "lnetcap's postinst starts lnetcapd"
fi
has lnetcap "/usr/lib/$MULTIARCH/wireshark/extcap/lnetcap"
has lnetcap-wireshark "$PLUGIN"
for f in dkms.conf Kbuild lnetcap_kfunc.c dkms-make.sh; do
	has lnetcap-dkms "/usr/src/lnetcap-$VERSION/$f"
done
has lnetcap-doc /usr/share/doc/lnetcap/samples/synthetic-rpcs.pcapng
has lnetcap-doc /usr/share/doc/lnetcap/record-format.md
# The LNet test double is for the QEMU rig only: on a node it would
# conflict with the real lnet module.
if dpkg-deb -c "$(deb lnetcap-dkms)" | grep -q -e lnet_double -e lib-types.h; then
	fail "lnetcap-dkms ships the LNet test double"
fi
# One package per audience: the plugin is not in the agent and vice versa.
files lnetcap | grep -q 'wireshark/plugins' && fail "the agent package ships the plugin"
files lnetcap-wireshark | grep -q '/sbin/' && fail "the plugin package ships the agent"
pass "package contents"

# --- dependencies ---------------------------------------------------------------
d=$(depends lnetcap)
echo "$d" | grep -q 'libpcap0.8' || fail "lnetcap does not depend on libpcap: $d"
echo "$d" | grep -q 'libbpf' || fail "lnetcap does not depend on libbpf (no eBPF capture?): $d"
d=$(depends lnetcap-wireshark)
major=${XY%.*} minor=${XY#*.}
libpkg=$(dpkg-query -S "$(readlink -f /usr/lib/$MULTIARCH/libwireshark.so)" | cut -d: -f1)
echo "$d" | grep -qE "$libpkg \(>= ${XY//./\\.}(\.[0-9]+)?\)" || fail "lnetcap-wireshark: no '$libpkg (>= $XY)' in: $d"
echo "$d" | grep -qF "$libpkg (<< $major.$((minor + 1))~)" ||
	fail "lnetcap-wireshark: not bound to the $XY series: $d"
# The README's check runs tshark: an analyst's apt must bring it.
echo "$d" | grep -qE '(^|, )tshark(,|$| )' || fail "lnetcap-wireshark does not depend on tshark: $d"
depends lnetcap-dkms | grep -q dkms || fail "lnetcap-dkms does not depend on dkms"
dpkg-deb -I "$(deb lnetcap-dkms)" postinst >/dev/null 2>&1 || fail "lnetcap-dkms has no postinst (dh_dkms)"
pass "dependencies: lnetcap-wireshark -> $(depends lnetcap-wireshark)"

# --- the installed files work ---------------------------------------------------
ROOT=$(mktemp -d "${TMPDIR:-/tmp}/lnetcap-pkg-root.XXXXXX")
on_exit 'rm -rf "$ROOT"'
chmod 755 "$ROOT"
for f in *.deb; do dpkg -x "$f" "$ROOT" || fail "dpkg -x $f"; done
chmod -R a+rX "$ROOT"

out=$("$ROOT/usr/sbin/lnetcap" --version 2>&1) || fail "installed lnetcap --version: $out"
echo "$out" | grep -qF "$VERSION" || fail "lnetcap --version says '$out', expected $VERSION"
pass "installed lnetcap --version: $out"
# The daemon as installed: its shipped config parses, --gen-key makes a key pair.
out=$("$ROOT/usr/sbin/lnetcapd" --config "$ROOT/etc/lnetcap/lnetcapd.conf" --version 2>&1) ||
	fail "installed lnetcapd with the installed config: $out"
pub=$("$ROOT/usr/sbin/lnetcapd" --gen-key "$ROOT/client.key" 2>&1) || fail "installed lnetcapd --gen-key: $pub"
[ "$(stat -c %a "$ROOT/client.key")" = 600 ] || fail "lnetcapd --gen-key made a key file that is not 0600"
grep -qxF "public-key $pub" "$ROOT/client.key" || fail "lnetcapd --gen-key printed '$pub', not the file's public key"
pass "installed lnetcapd reads the installed config; --gen-key writes a 0600 key pair"
# Wireshark's extcap query, through the installed entry script (it runs
# /usr/sbin/lnetcap, so point PATH-independent checks at the scratch copy).
ext=$ROOT/usr/lib/$MULTIARCH/wireshark/extcap/lnetcap
[ -x "$ext" ] || fail "extcap entry not executable"
sed "s|/usr/sbin/lnetcap|$ROOT/usr/sbin/lnetcap|" "$ext" >"$WORK/extcap.sh"
out=$(sh "$WORK/extcap.sh" --extcap-interfaces --extcap-version=$(ws_xy) 2>&1) ||
	fail "extcap --extcap-interfaces: $out"
echo "$out" | grep -q '^interface {value=lnet}' || fail "extcap lists no lnet interface: $out"
pass "installed extcap entry answers --extcap-interfaces"

DOCSAMPLE=$ROOT/usr/share/doc/lnetcap/samples/synthetic-rpcs.pcapng
cmp -s "$DOCSAMPLE" "$SAMPLE" || fail "packaged sample differs from samples/synthetic-rpcs.pcapng"
"$ROOT/usr/sbin/lnetcap" -r "$DOCSAMPLE" >"$WORK/sample.txt" 2>"$WORK/sample.err" ||
	fail "installed lnetcap -r sample: $(cat "$WORK/sample.err")"
n=$(wc -l <"$WORK/sample.txt")
[ "$n" = 8 ] || fail "installed lnetcap printed $n lines for the 8-record sample"
grep -q LDLM_ENQUEUE "$WORK/sample.txt" || fail "no LDLM_ENQUEUE in: $(cat "$WORK/sample.txt")"
pass "installed lnetcap reads the packaged sample (8 records)"

if command -v man >/dev/null 2>&1; then
	for m in man8/lnetcap.8.gz man8/lnetcapd.8.gz man5/lnetcap-record.5.gz; do
		w=$(MANWIDTH=80 man --warnings -l "$ROOT/usr/share/man/$m" 2>&1 >/dev/null)
		[ -z "$w" ] || fail "man $m: $w"
	done
	pass "man pages render without warnings"
fi

setup_tshark_user
CONF=$ROOT/tshark-home
mkdir -p "$CONF"
[ ${#RUNAS[@]} -eq 0 ] || chown lnetcap-test "$CONF"
PDIR=$ROOT/usr/lib/$MULTIARCH/wireshark/plugins
ts "$PDIR" "$CONF" -G plugins >"$WORK/plugins.txt" 2>&1 || fail "tshark -G plugins: $(cat "$WORK/plugins.txt")"
grep -F "$ROOT$PLUGIN" "$WORK/plugins.txt" >/dev/null ||
	fail "tshark did not load $ROOT$PLUGIN: $(grep -i lnetcap "$WORK/plugins.txt" || echo none)"
pass "unprivileged tshark loads the installed plugin from $PLUGIN"
ts "$PDIR" "$CONF" -r "$DOCSAMPLE" -Y lnetcap -T fields -e frame.number -e _ws.col.Protocol \
	>"$WORK/tshark.txt" 2>"$WORK/tshark.err" || fail "tshark -r sample: $(cat "$WORK/tshark.err")"
n=$(wc -l <"$WORK/tshark.txt")
[ "$n" = 8 ] || fail "tshark dissected $n of 8 records as lnetcap: $(cat "$WORK/tshark.txt" "$WORK/tshark.err")"
pass "tshark dissects the packaged sample with the packaged plugin ($n records)"
