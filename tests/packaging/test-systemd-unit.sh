#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# packaging.systemd-unit: lnetcapd's service files as the packages ship them.
#  - systemd-analyze verify accepts the unit (ExecStart pointed at this
#    build's lnetcapd, the man page lookup off);
#  - it runs as user lnetcap, group lnetcap, Type=notify, reloads with
#    SIGHUP, keeps no privilege beyond the capability set docs/EXTCAP.md
#    explains (the same set, ambient and bounding; NoNewPrivileges);
#  - sysusers.d creates user and group lnetcap (no login) and tmpfiles.d its
#    state directory, 0700, in a scratch root (--root: nothing on this system);
#  - the shipped config file parses and names the socket the unit's
#    RuntimeDirectory holds.
source "$(dirname "$0")/common.sh"
need systemd-analyze "apt-get install systemd"
need systemd-sysusers "apt-get install systemd"
need systemd-tmpfiles "apt-get install systemd"
BIN=${LNETCAP_BINARY_DIR:?}
UNIT=$SRC/packaging/systemd/lnetcapd.service
WORK=${LNETCAP_WORK_DIR:?}/systemd-unit
rm -rf "$WORK"; mkdir -p "$WORK"

sed "s|^ExecStart=/usr/sbin/lnetcapd|ExecStart=$BIN/capture/lnetcapd|" "$UNIT" >"$WORK/lnetcapd.service"
out=$(systemd-analyze verify --man=no "$WORK/lnetcapd.service" 2>&1) || fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify warns: $out"
pass "systemd-analyze verify"

key() { sed -n "s/^$1=//p" "$UNIT"; }
[ "$(key ExecStart)" = /usr/sbin/lnetcapd ] || fail "ExecStart is '$(key ExecStart)'"
[ "$(key Type)" = notify ] || fail "Type is '$(key Type)', lnetcapd sends READY=1"
[ "$(key User)" = lnetcap ] && [ "$(key Group)" = lnetcap ] || fail "not User=lnetcap Group=lnetcap"
key ExecReload | grep -q -- '-HUP \$MAINPID' || fail "ExecReload does not send SIGHUP"
[ "$(key NoNewPrivileges)" = yes ] || fail "NoNewPrivileges is not yes"
[ "$(key RuntimeDirectory)" = lnetcap ] || fail "RuntimeDirectory is not lnetcap (/run/lnetcap holds the socket)"
# The capabilities: exactly the set docs/EXTCAP.md gives setcap.
documented=$(sed -n 's/.*setcap \([a-z_,]*\)+ep.*/\1/p' "$SRC/docs/EXTCAP.md" | head -1 | tr ',' '\n' | tr a-z A-Z | sort | tr '\n' ' ')
[ -n "$documented" ] || fail "no setcap line in docs/EXTCAP.md"
for k in AmbientCapabilities CapabilityBoundingSet; do
	got=$(key $k | tr ' ' '\n' | sort | tr '\n' ' ')
	[ "$got" = "$documented" ] || fail "$k is '$got', docs/EXTCAP.md's set is '$documented'"
done
pass "user lnetcap, Type=notify, SIGHUP reload, capabilities = $documented"

ROOT=$WORK/root
mkdir -p "$ROOT/etc" "$ROOT/usr/lib/sysusers.d" "$ROOT/usr/lib/tmpfiles.d"
cp "$SRC/packaging/systemd/lnetcap.sysusers" "$ROOT/usr/lib/sysusers.d/lnetcap.conf"
cp "$SRC/packaging/systemd/lnetcap.tmpfiles" "$ROOT/usr/lib/tmpfiles.d/lnetcap.conf"
systemd-sysusers --root="$ROOT" >"$WORK/sysusers.log" 2>&1 || fail "systemd-sysusers: $(cat "$WORK/sysusers.log")"
grep -qE '^lnetcap:x:[0-9]+:[0-9]+:[^:]*:/var/lib/lnetcap:/usr/sbin/nologin$' "$ROOT/etc/passwd" ||
	fail "no user lnetcap without login in: $(cat "$ROOT/etc/passwd")"
grep -qE '^lnetcap:x:[0-9]+:' "$ROOT/etc/group" || fail "no group lnetcap in: $(cat "$ROOT/etc/group")"
uid=$(awk -F: '$1 == "lnetcap" { print $3 }' "$ROOT/etc/passwd")
systemd-tmpfiles --root="$ROOT" --create >"$WORK/tmpfiles.log" 2>&1 || fail "systemd-tmpfiles: $(cat "$WORK/tmpfiles.log")"
[ "$(stat -c '%a %u' "$ROOT/var/lib/lnetcap")" = "700 $uid" ] ||
	fail "/var/lib/lnetcap is $(stat -c '%a uid %u' "$ROOT/var/lib/lnetcap"), wanted 700 uid $uid"
pass "sysusers.d: user and group lnetcap; tmpfiles.d: /var/lib/lnetcap 0700"

CONF=$SRC/packaging/lnetcapd.conf
out=$("$BIN/capture/lnetcapd" --config "$CONF" --version 2>&1) || fail "the shipped config does not parse: $out"
grep -qx 'endpoints = local' "$CONF" && grep -qx 'group = lnetcap' "$CONF" ||
	fail "the shipped config does not serve the local socket to group lnetcap"
pass "shipped lnetcapd.conf parses"
