#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Guest side of rig.systemd: the shipped lnetcapd.service, its sysusers.d
# and tmpfiles.d files under a real systemd (the host's /lib/systemd/systemd,
# Debian 12's 252) with a live eBPF capture.  The rig's PID 1 is busybox, so
# systemd runs as PID 1 of a new PID and mount namespace (as in a container:
# container=lnetcap-rig), on the read-only host root with a writable /etc
# (for sysusers) and fresh tmpfs /var and /run.  One script, three roles:
#   systemd.sh          (the rig's guest script) loads the double, starts
#                       the namespace, waits for systemd to power it off
#   systemd.sh pid1     PID 1 of the namespace: mounts, applies the
#                       packaging's sysusers.d/tmpfiles.d as a package's
#                       postinst does, installs the units, execs systemd
#   systemd.sh check    rig-check.service, ordered after lnetcapd.service
# Variables: LNETCAP, LNETCAPD, LNETCAP_SOURCE_DIR.  Leaves sd-*.txt,
# sd-sub.pcapng, sd-double.log, sd-check.log in RIG_OUT for rig-test.sh.
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
self=$(readlink -f "$0")
src=$LNETCAP_SOURCE_DIR
dbg=/sys/kernel/debug/lnet

case ${1:-outer} in
outer)
	$RIG_BB insmod "$RIG_KMOD_BTF/lnet.ko"
	rm -f "$RIG_OUT"/sd-*
	unshare --pid --fork --mount --propagation private --mount-proc \
		env -i container=lnetcap-rig PATH="$PATH" RIG_OUT="$RIG_OUT" RIG_BB="$RIG_BB" \
		LNETCAP="$LNETCAP" LNETCAPD="$LNETCAPD" LNETCAP_SOURCE_DIR="$src" \
		RIG_SYSTEMD_LOG="${RIG_SYSTEMD_LOG:-info}" /bin/bash "$self" pid1 &
	ns=$!
	for _ in $(seq 1 "${RIG_SYSTEMD_TIMEOUT:-300}"); do
		kill -0 $ns 2>/dev/null || break
		sleep 1
	done
	if kill -0 $ns 2>/dev/null; then
		# What systemd is waiting for, from inside its namespaces.
		init=$(pgrep -P $ns | head -1)
		{
			nsenter -t "$init" -m -p systemctl --no-pager list-jobs || true
			nsenter -t "$init" -m -p systemctl --no-pager --failed || true
			nsenter -t "$init" -m -p systemctl --no-pager status lnetcapd rig-check || true
		} >"$RIG_OUT/sd-stuck.txt" 2>&1
		cat "$RIG_OUT/sd-stuck.txt"
		kill -KILL "$init" $ns || true
		fail "systemd did not power off within ${RIG_SYSTEMD_TIMEOUT:-300} s"
	fi
	rc=0
	wait $ns || rc=$?
	# (systemd's own exit status after poweroff in a container says nothing)
	echo "systemd (PID 1 of the namespace) exited with $rc"
	[ -f "$RIG_OUT/sd-check.log" ] && { echo "---- sd-check.log"; cat "$RIG_OUT/sd-check.log"; }
	grep -q '^check done$' "$RIG_OUT/sd-check.log" || fail "rig-check.service did not finish"
	$RIG_BB rmmod lnet
	echo PASS
	;;
pid1)
	[ $$ = 1 ] || fail "not PID 1 of the namespace"
	# A writable /etc for sysusers: a tmpfs of symlinks to the host's
	# entries, with copies of the user and group files.
	mount -t tmpfs -o mode=0755 tmpfs /run
	mkdir -p /run/rig-etc-ro
	mount --bind /etc /run/rig-etc-ro
	mount -t tmpfs -o mode=0755 tmpfs /etc
	for f in /run/rig-etc-ro/* /run/rig-etc-ro/.[!.]*; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		ln -s "$f" "/etc/${f##*/}"
	done
	rm -f /etc/.pwd.lock # taken with O_NOFOLLOW
	for f in passwd group shadow gshadow; do
		rm -f "/etc/$f"
		cp -p "/run/rig-etc-ro/$f" "/etc/$f"
	done
	# systemd-tmpfiles-setup would empty /tmp at boot, the rig's /tmp
	# (RIG_BB, and the build tree of a CI clone in /tmp): not here.
	rm -f /etc/tmpfiles.d
	mkdir /etc/tmpfiles.d
	for f in /run/rig-etc-ro/tmpfiles.d/*; do [ -e "$f" ] && ln -s "$f" /etc/tmpfiles.d/; done
	ln -sf /dev/null /etc/tmpfiles.d/tmp.conf
	# A source or build tree under /var (a clone in /var/tmp) must stay
	# visible under the fresh /var: its top directory (/var/X/Y) is set
	# aside and bound back on top, as the rig's init does for /tmp.
	keep=
	case "$RIG_OUT" in
	/var/?*/?*)
		rel=${RIG_OUT#/var/}
		keep=/var/${rel%%/*}
		rel=${rel#*/}
		keep=$keep/${rel%%/*}
		mkdir -p /run/rig-keep
		mount --rbind "$keep" /run/rig-keep
		;;
	esac
	mount -t tmpfs -o mode=0755 tmpfs /var
	mkdir -p /var/lib /var/log /var/cache /var/tmp
	chmod 1777 /var/tmp
	if [ -n "$keep" ]; then
		mkdir -p "$keep"
		mount --rbind /run/rig-keep "$keep"
	fi
	# What the package's maintainer scripts do (packaging/): create the
	# user and group lnetcap, /var/lib/lnetcap.  rigsub: a member of group
	# lnetcap, to subscribe without root.
	mkdir -p /run/sysusers.d /run/tmpfiles.d /run/systemd/system/lnetcapd.service.d
	cp "$src/packaging/systemd/lnetcap.sysusers" /run/sysusers.d/lnetcap.conf
	printf 'u rigsub - "rig subscriber"\nm rigsub lnetcap\n' >/run/sysusers.d/rig.conf
	cp "$src/packaging/systemd/lnetcap.tmpfiles" /run/tmpfiles.d/lnetcap.conf
	systemd-sysusers
	systemd-tmpfiles --create /run/tmpfiles.d/lnetcap.conf
	# The shipped unit unchanged; the drop-in only points ExecStart at a
	# copy of the built lnetcapd (the package installs /usr/sbin/lnetcapd)
	# and keeps a failure from restarting it.  A copy in /run, because the
	# unit's PrivateTmp=yes hides a build tree under /tmp (a CI clone
	# there: "Failed to locate executable").
	# The subscribers (rigsub, nobody) use a copy too: a build tree in a
	# 0700 directory (mktemp -d) is not theirs to reach.
	mkdir -p /run/rig-bin
	chmod 755 /run/rig-bin
	cp "$LNETCAPD" /run/rig-bin/lnetcapd
	cp "$LNETCAP" /run/rig-bin/lnetcap
	chmod 755 /run/rig-bin/lnetcapd /run/rig-bin/lnetcap
	cp "$src/packaging/systemd/lnetcapd.service" /run/systemd/system/
	cat >/run/systemd/system/lnetcapd.service.d/rig.conf <<EOF
[Service]
ExecStart=
ExecStart=/run/rig-bin/lnetcapd
Restart=no
EOF
	cat >/run/systemd/system/rig-check.service <<EOF
[Unit]
Description=lnetcap rig: checks lnetcapd.service once it is up
Wants=lnetcapd.service
After=lnetcapd.service
SuccessAction=poweroff
FailureAction=poweroff
[Service]
Type=oneshot
Environment=RIG_OUT=$RIG_OUT LNETCAP=/run/rig-bin/lnetcap LNETCAP_SOURCE_DIR=$src
ExecStart=/bin/bash $self check
StandardOutput=append:$RIG_OUT/sd-check.log
StandardError=append:$RIG_OUT/sd-check.log
EOF
	cat >/run/systemd/system/rig.target <<EOF
[Unit]
Description=lnetcap rig
Requires=rig-check.service
After=rig-check.service
AllowIsolate=yes
EOF
	# Units of the host that have no business in this guest.
	for u in systemd-udevd.service systemd-udev-trigger.service systemd-udev-settle.service \
		systemd-timesyncd.service systemd-pstore.service; do
		ln -sf /dev/null "/run/systemd/system/$u"
	done
	exec /lib/systemd/systemd --unit=rig.target --log-target=console --log-level="${RIG_SYSTEMD_LOG:-info}" --show-status=no
	;;
check)
	echo "rig-check started"
	systemctl show -p ActiveState,SubState,StatusText,Result,User,Type lnetcapd |
		tee "$RIG_OUT/sd-show.txt"
	pid=$(systemctl show -p MainPID --value lnetcapd)
	echo "MainPID $pid"
	[ "$pid" != 0 ] || { journalctl -u lnetcapd --no-pager -o cat || true; fail "lnetcapd is not running"; }
	# READY=1 came once the programs were attached: they are there now.
	bpftool link list | grep -c '^[0-9]' >"$RIG_OUT/sd-links.txt" || true
	ps -o user=,group= -p "$pid" | tee "$RIG_OUT/sd-user.txt"
	grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' "/proc/$pid/status" | tee "$RIG_OUT/sd-caps.txt"
	stat -c '%A %U %G' /run/lnetcap/lnetcapd.sock | tee "$RIG_OUT/sd-sock.txt"
	id rigsub | tee "$RIG_OUT/sd-id.txt"

	# Not in group lnetcap: refused by the socket's mode.
	rc=0
	runuser -u nobody -- timeout 30 "$LNETCAP" --from local -c 1 >/dev/null 2>"$RIG_OUT/sd-nobody.txt" || rc=$?
	echo "exit $rc" >>"$RIG_OUT/sd-nobody.txt"
	cat "$RIG_OUT/sd-nobody.txt"

	# In group lnetcap, no root, no capabilities: one round of traffic.
	echo clear >$dbg/double_ctl
	runuser -u rigsub -- "$LNETCAP" --from local -c 25 -w /tmp/sd-sub.pcapng 2>"$RIG_OUT/sd-sub.err" &
	sub=$!
	for _ in $(seq 1 60); do
		journalctl -u lnetcapd --no-pager -o cat | grep -q ') subscribed: filter' && break
		sleep 0.5
	done
	journalctl -u lnetcapd --no-pager -o cat | grep ') subscribed: filter' || fail "the subscriber was not accepted"
	echo "all 1" >$dbg/double_ctl
	cp $dbg/double_log "$RIG_OUT/sd-double.log"
	for _ in $(seq 1 600); do kill -0 $sub 2>/dev/null || break; sleep 0.1; done
	kill -0 $sub 2>/dev/null && { kill $sub; fail "the subscriber did not get 25 records within 60 s"; }
	wait $sub || fail "the subscriber exited with $?: $(cat "$RIG_OUT/sd-sub.err")"
	cat "$RIG_OUT/sd-sub.err"
	cp /tmp/sd-sub.pcapng "$RIG_OUT/sd-sub.pcapng"

	systemctl stop lnetcapd
	systemctl show -p ActiveState,Result lnetcapd | tee "$RIG_OUT/sd-stopped.txt"
	journalctl -u lnetcapd --no-pager -o cat | tee "$RIG_OUT/sd-journal.txt"
	echo "check done"
	;;
esac
