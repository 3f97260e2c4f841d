#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# packaging.wireshark-4.4: the plugin builds against Wireshark 4.4, the
# version of Debian 13 (trixie), with the plugin's own CMakeLists.txt.
#
# Debian 13's wireshark-dev, libwireshark-dev, libwsutil-dev, libwiretap-dev
# and the three 4.4 libraries are fetched with `apt-get download` through a
# private apt configuration (a trixie source in this test's work folder;
# the system's sources and dpkg database are not touched) and unpacked with
# dpkg -x into a scratch root.  The plugin is then configured with that
# root's WiresharkConfig.cmake (4.2+ keeps it in lib/<arch>/cmake/wireshark)
# and linked with --no-undefined against the real 4.4 libraries, so a call
# to an API 4.4 removed fails here, and implicit declarations are errors.
# Skipped (77), never passed, when trixie cannot be reached.
source "$(dirname "$0")/common.sh"
need apt-get "Debian's apt"
need dpkg-deb "apt-get install dpkg"
need cmake "apt-get install cmake"
need pkg-config "apt-get install pkg-config"
pkg-config --exists glib-2.0 || skip "libglib2.0-dev is not installed"

WORK=${LNETCAP_WORK_DIR:?}/ws44
mkdir -p "$WORK"
APTDIR=$WORK/apt
ROOT=$WORK/root
DEBS=$WORK/debs
mkdir -p "$APTDIR"/{etc/sources.list.d,etc/preferences.d,lists/partial,cache/archives/partial} "$DEBS"
: >"$APTDIR/status"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$KEYRING" ] || skip "no Debian archive keyring at $KEYRING"
echo "deb [signed-by=$KEYRING] http://deb.debian.org/debian trixie main" >"$APTDIR/etc/sources.list"
apt_opts=(-o "Dir::Etc=$APTDIR/etc" -o "Dir::Etc::sourcelist=$APTDIR/etc/sources.list"
	-o "Dir::Etc::sourceparts=$APTDIR/etc/sources.list.d" -o "Dir::Etc::preferencesparts=$APTDIR/etc/preferences.d"
	-o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR/cache"
	-o "Dir::State::status=$APTDIR/status" -o "APT::Sandbox::User=root" -o "Acquire::Retries=2"
	-o "Debug::NoLocking=1")

pkgs=(wireshark-dev libwireshark-dev libwsutil-dev libwiretap-dev libwireshark18 libwiretap15 libwsutil16)
if ! ls "$DEBS"/libwireshark18_4.4*.deb >/dev/null 2>&1; then
	timeout 300 apt-get "${apt_opts[@]}" -qq update >"$WORK/apt-update.log" 2>&1 ||
		skip "cannot reach Debian trixie with apt: $(tail -3 "$WORK/apt-update.log")"
	(cd "$DEBS" && timeout 600 apt-get "${apt_opts[@]}" -qq download "${pkgs[@]/%//trixie}") \
		>"$WORK/apt-download.log" 2>&1 ||
		skip "apt-get download of the trixie Wireshark packages failed: $(tail -3 "$WORK/apt-download.log")"
fi
rm -rf "$ROOT"
for d in "$DEBS"/*.deb; do dpkg -x "$d" "$ROOT" || fail "dpkg -x $d"; done
config=$(find "$ROOT" -name WiresharkConfig.cmake | head -1)
[ -n "$config" ] || fail "no WiresharkConfig.cmake in the downloaded packages: $(ls "$DEBS")"
wsver=$(sed -n 's/.*PACKAGE_VERSION "\([0-9.]*\)".*/\1/p' "$(dirname "$config")/WiresharkConfigVersion.cmake")
case $wsver in
4.4.*) ;;
*) fail "trixie's Wireshark is $wsver, not 4.4: update this test" ;;
esac
echo "Wireshark $wsver headers and libraries from trixie: $(cd "$DEBS" && ls | tr '\n' ' ')"

B=$WORK/build
rm -rf "$B"
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
# The -Werror flags are GCC 14's defaults (Debian 13's compiler): code that
# passes a gboolean * where 4.4 wants a bool * does not build there.
if ! cmake -S "$SRC/wireshark-plugin" -B "$B" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DWireshark_DIR="$(dirname "$config")" \
	-DCMAKE_C_FLAGS="-Werror=implicit-function-declaration -Werror=incompatible-pointer-types -Werror=int-conversion" \
	-DCMAKE_MODULE_LINKER_FLAGS="-Wl,--no-undefined -Wl,-rpath-link,$ROOT/usr/lib/$MULTIARCH" \
	>"$WORK/configure.log" 2>&1; then
	cat "$WORK/configure.log" >&2
	fail "configuring the plugin against Wireshark $wsver"
fi
grep -qE "^Wireshark_DIR:[A-Z]+=$(dirname "$config")$" "$B/CMakeCache.txt" ||
	fail "cmake did not use the 4.4 config"
keep_going=()
[ ${#gen[@]} -gt 0 ] && keep_going=(-- -k 0)
if ! cmake --build "$B" -j2 "${keep_going[@]}" >"$WORK/build.log" 2>&1; then
	grep -E 'error|undefined|note: expected' "$WORK/build.log" | head -60 >&2
	fail "the plugin does not build against Wireshark $wsver (log: $WORK/build.log)"
fi
so=$B/plugins/4.4/epan/lnetcap.so
[ -f "$so" ] || fail "no plugins/4.4/epan/lnetcap.so: $(find "$B" -name '*.so')"
# It was compiled with the 4.4 headers, not the system's 4.0 ones.
grep -q -- "-I$ROOT/usr/include/wireshark\|-isystem $ROOT/usr/include/wireshark" "$B/compile_commands.json" 2>/dev/null ||
	grep -rq "$ROOT/usr/include/wireshark" "$B/CMakeFiles" "$B"/*.ninja "$B/Makefile" 2>/dev/null ||
	fail "the build did not use the 4.4 include directory"
readelf -d "$so" | grep -q 'NEEDED.*libwireshark.so.18' || fail "$so is not linked with libwireshark.so.18 (4.4)"
for s in plugin_version plugin_want_major plugin_want_minor plugin_register; do
	nm -D --defined-only "$so" | grep -qw "$s" || fail "$so does not export $s"
done
warnings=$(grep -c 'warning:' "$WORK/build.log")
grep 'warning:' "$WORK/build.log" | sed 's/.*warning: //' | sort | uniq -c | sort -rn | head -10
pass "plugin builds and links (--no-undefined) against Wireshark $wsver: plugins/4.4/epan/lnetcap.so ($warnings compiler warnings)"
