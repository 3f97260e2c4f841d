# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# The multi-rail topology of run.sh (-T multirail), sourced by it:
#
#   a 10.77.0.1@tcp (eth0) --link 1-- b 10.77.0.2@tcp (eth0)
#   a 10.77.1.1@tcp (eth1) --link 2-- b 10.77.1.2@tcp (eth1)
#
# Two NIs per node on one net, discovery and LNet health on; a runs
# lnet_selftest to b while faults hit one interface after the other
# (guest/multirail.sh); both nodes capture, both links are recorded by
# a's QEMU (one clock, see topology-router.sh).  Checks (topo_report): each node's capture against both links
# and LNet's counters (node_report); resends, failed attempts per NI and
# per peer NI, recovery pings and lnetcap's --summary health section
# against LNet's own statistics (stats show, net show -v 3, peer show -v 3);
# and "note" lines for the messages LNet legitimately leaves out of its
# global counters under faults (GETs whose REPLY failed, messages held for
# a discovery that failed), each with the Lustre source that says why.
#
# Uses run.sh's SRC, HERE, WORK, LNETCAP, COMPARE, LUSTRE_VERSION, TESTS,
# LST_SECS, PORT, node_report and counter.

# shellcheck disable=SC2034 # read by run.sh
TOPO_PORTS=2 # a TCP port per link

# topo_boot DIR KMODS: b first (it listens on both links), then a in the
# foreground, recording both links; returns a's status.
topo_boot() {
	local dir=$1 kmods=$2 rc=0 pb
	local common=(LR_WORK="$WORK" KMODS="$kmods" LNETCAP="$LNETCAP"
		LUSTRE_VERSION="$LUSTRE_VERSION" TESTS="$TESTS" LST_SECS="$LST_SECS" LND=tcp
		A_OUT="$dir/a" B_OUT="$dir/b")
	local guest=("$SRC/scripts/rig/run-guest.sh" -t 1800 -m 1536)
	local script=$HERE/guest/multirail.sh
	mkdir -p "$dir/a" "$dir/b"
	nice -n 10 "${guest[@]}" \
		-n "socket,listen=127.0.0.1:$PORT" -a 52:54:00:4c:03:02 \
		-n "socket,listen=127.0.0.1:$((PORT + 1))" -a 52:54:00:4c:04:02 \
		"$WORK/rig" "$dir/b" "$script" ROLE=b "${common[@]}" >"$dir/b.run.log" 2>&1 &
	pb=$!
	sleep 3
	nice -n 10 "${guest[@]}" \
		-n "socket,connect=127.0.0.1:$PORT" -a 52:54:00:4c:03:01 -w "$dir/wire1.pcap" \
		-n "socket,connect=127.0.0.1:$((PORT + 1))" -a 52:54:00:4c:04:01 -w "$dir/wire2.pcap" \
		"$WORK/rig" "$dir/a" "$script" ROLE=a "${common[@]}" >"$dir/a.run.log" 2>&1 || rc=$?
	touch "$dir/a/done" # b stops waiting on a
	wait "$pb" || true
	return "$rc"
}

# lnet_hstats FILE: "NID|KEY|VALUE" for every numeric line under each
# "- nid:" of `lnetctl net show -v 3` or `peer show -v 3` (statistics and
# health stats: "error", "no route", "network timeout", "health value"...).
lnet_hstats() {
	awk '/^ *- +nid:/ {nid = $NF; next}
		nid != "" && /^ *[a-z_ ]+: *-?[0-9]+$/ {
			k = $0; sub(/^ */, "", k); sub(/ *:.*$/, "", k); print nid "|" k "|" $NF
		}' "$1" 2>/dev/null
}

# hstat_delta DIR NODE FILE NID KEY: KEY of NID after minus before
# (FILE net or peer: DIR/NODE/FILE-{before,after}.txt); empty when LNet
# did not show it after.  A NID not shown before counts from 0: b's
# snapshot before precedes a's discovery, when b knows no peer yet.
hstat_delta() {
	local g=$1/$2 b a
	b=$(lnet_hstats "$g/$3-before.txt" | awk -F'|' -v n="$4" -v k="$5" '$1 == n && $2 == k {print $3; exit}')
	a=$(lnet_hstats "$g/$3-after.txt" | awk -F'|' -v n="$4" -v k="$5" '$1 == n && $2 == k {print $3; exit}')
	[ -n "$a" ] && echo $((a - ${b:-0}))
}

# The health statistics LNet keeps per NI (lnet_incr_hstats, lib-msg.c:
# ni_hstats for LOCAL_*, the peer NI's lpni_hstats for REMOTE_* and
# NETWORK_TIMEOUT) by their `net show -v 3` / `peer show -v 3` names, and
# the global counters of `stats show` that the same function increments.
LOCAL_HSTATS="interrupts:LOCAL_INTERRUPT:local_interrupt_count dropped:LOCAL_DROPPED:local_dropped_count
aborted:LOCAL_ABORTED:local_aborted_count no_route:LOCAL_NO_ROUTE:local_no_route_count
timeouts:LOCAL_TIMEOUT:local_timeout_count error:LOCAL_ERROR:local_error_count"
PEER_HSTATS="dropped:REMOTE_DROPPED:remote_dropped_count timeout:REMOTE_TIMEOUT:remote_timeout_count
error:REMOTE_ERROR:remote_error_count network_timeout:NETWORK_TIMEOUT:network_timeout_count"

# health_report MODE DIR NODE NID,NID PEER_PRIMARY: resends, failed
# attempts per NI and peer NI, recovery pings and the --summary health
# section of NODE's capture against LNet's statistics.  Returns 1 on a
# difference.
health_report() {
	local mode=$1 dir=$2 node=$3 nids=$4 g=$2/$3 bad=0
	local p="$mode $node:" cap=$g/$node.pcapng
	[ -s "$cap" ] || { echo "$p health: no capture file"; return 1; }
	if [ ! -s "$g/net-before.txt" ] || [ ! -s "$g/net-after.txt" ]; then
		echo "$p health: no lnetctl net show -v 3 before/after"
		return 1
	fi
	local cb=$g/counters-before.txt ca=$g/counters-after.txt
	delta() { echo $(($(counter "$1" "$ca") - $(counter "$1" "$cb"))); }
	# Each failed attempt is an outcome record (DROP) with LNet's health
	# status, naming the NI it went out on and the peer NI it went to.
	# Response timeouts are apart: LNet counts them in
	# response_timeout_count only (lnet_finalize_expired_responses,
	# lib-move.c: no lnet_incr_hstats), lnetcap as a response-timeout DROP.
	# (options before the filter: lnetcap reads every word after it as
	# part of the expression)
	"$LNETCAP" -r "$cap" -q -p '%Ni %Np %Hs' \
		'dir drop and health != ok and not drop response-timeout' >"$dir/$node-failures.txt" 2>/dev/null || true
	# --summary's "failed" is the send side only (send-failed, not-sent)
	"$LNETCAP" -r "$cap" -q -p '%Ni %Np %Hs' \
		'dir drop and health != ok and (drop send-failed or drop not-sent)' \
		>"$dir/$node-send-failures.txt" 2>/dev/null || true
	"$LNETCAP" -r "$cap" -q -p '%Ni %Np %Hr' 'dir send and retries > 0' \
		>"$dir/$node-resends.txt" 2>/dev/null || true
	# NODE-v.txt and NODE-summary.txt: written by node_report, which runs first
	local ok line
	# say TEXT WANT HAVE: TEXT ok when WANT = HAVE, else DIFFERENT (and
	# the node fails); never called in a subshell, so bad sticks.
	say() {
		if [ "$2" = "$3" ]; then echo "$1 ok"; else echo "$1 DIFFERENT"; bad=1; fi
	}
	# Resends: LNet counts a resend when lnet_send accepted it again
	# (lnet_resend_pending_msgs_locked, lib-move.c); the capture sees it
	# as a SEND with retry > 0 when it reaches the LND.
	local res cres
	res=$(delta resend_count)
	cres=$(wc -l <"$dir/$node-resends.txt")
	say "$p health: resend_count=$res capture resends=$cres" "$res" "$cres"
	line=$(awk '{n[$1 == "" ? "(no NI)" : $1]++} END {for (k in n) printf "%s=%d ", k, n[k]}' "$dir/$node-resends.txt")
	echo "$p health: resends by NI: ${line:-none}"
	if awk -v nids=",$nids," 'index(nids, "," $1 ",") == 0 {exit 1}' "$dir/$node-resends.txt"; then
		echo "$p health: every resend names one of $nids as its NI ok"
	else
		echo "$p health: resends without one of $nids as NI: $(awk -v nids=",$nids," 'index(nids, "," $1 ",") == 0' "$dir/$node-resends.txt" | sort | uniq -c | head -3 | tr '\n' ';') DIFFERENT"
		bad=1
	fi
	# Whether a resend went out on another NI than the SEND it repeats
	# ("[resend of seq S cpu C]" names that SEND's record): what
	# multi-rail is for, informational (LNet may pick the same NI again
	# while its health is still the best, lnet_select_best_ni).
	line=$(awk '/ SEND / && match($0, /\{lnet_ni_send ni [^ ]+ peer [^ ]+ seq [0-9]+ cpu [0-9]+/) {
			split(substr($0, RSTART, RLENGTH), f, " ")
			ni = f[3]; at["seq " f[7] " cpu " f[9]] = ni
			if (match($0, /\[resend of seq [0-9]+ cpu [0-9]+/)) {
				r = substr($0, RSTART + 11, RLENGTH - 11); n++
				if (r in at && at[r] != ni) other++
			}
		} END {printf "%d of %d", other, n}' "$dir/$node-v.txt")
	echo "$p health: resends on another NI than the SEND they repeat: $line"
	# Per local NI, LNet's health statistics against the failed attempts.
	local nid e key hs glob want have tot
	for nid in ${nids//,/ }; do
		line="" ok=0
		for e in $LOCAL_HSTATS; do
			IFS=: read -r key hs glob <<<"$e"
			want=$(hstat_delta "$dir" "$node" net "$nid" "${key//_/ }")
			have=$(awk -v n="$nid" -v h="$hs" '$1 == n && $3 == h' "$dir/$node-failures.txt" | wc -l)
			[ "${want:-x}" = "$have" ] || ok=1
			[ "${want:-0}" = 0 ] && [ "$have" = 0 ] || line+="$hs=${want:-?}/$have "
		done
		echo "$p health: NI $nid (net show -v 3 / capture): ${line:-no failures }$([ "$ok" = 0 ] && echo ok || echo DIFFERENT)"
		[ "$ok" = 0 ] || bad=1
		echo "$p health: NI $nid health value $(lnet_hstats "$g/net-before.txt" |
			awk -F'|' -v n="$nid" '$1 == n && $2 == "health value" {print $3}') -> $(lnet_hstats "$g/net-after.txt" |
			awk -F'|' -v n="$nid" '$1 == n && $2 == "health value" {print $3}')"
	done
	# Per peer NI: `peer show -v 3` of every peer when the run kept it
	# (peers-*.txt: the node's own NIDs are peers too, the targets of local
	# NI recovery pings), else of the other node's primary NID.
	local pnids pf=peer
	[ -s "$g/peers-after.txt" ] && pf=peers
	pnids=$(lnet_hstats "$g/$pf-after.txt" | awk -F'|' '$2 == "health value" {print $1}')
	[ -n "$pnids" ] || { echo "$p health: no peer NI in peer show -v 3 ($pf-after.txt) DIFFERENT"; bad=1; }
	for nid in $pnids; do
		line="" ok=0
		for e in $PEER_HSTATS; do
			IFS=: read -r key hs glob <<<"$e"
			want=$(hstat_delta "$dir" "$node" "$pf" "$nid" "${key//_/ }")
			have=$(awk -v n="$nid" -v h="$hs" '$2 == n && $3 == h' "$dir/$node-failures.txt" | wc -l)
			[ "${want:-x}" = "$have" ] || ok=1
			[ "${want:-0}" = 0 ] && [ "$have" = 0 ] || line+="$hs=${want:-?}/$have "
		done
		echo "$p health: peer NI $nid (peer show -v 3 / capture): ${line:-no failures }$([ "$ok" = 0 ] && echo ok || echo DIFFERENT)"
		[ "$ok" = 0 ] || bad=1
	done
	# The global counters of the same failures.
	line="" ok=0
	for e in $LOCAL_HSTATS $PEER_HSTATS; do
		IFS=: read -r key hs glob <<<"$e"
		want=$(delta "$glob")
		have=$(awk -v h="$hs" '$3 == h' "$dir/$node-failures.txt" | wc -l)
		[ "$want" = "$have" ] || ok=1
		[ "$want" = 0 ] && [ "$have" = 0 ] || line+="$glob=$want/$have "
	done
	echo "$p health: stats show / capture: ${line:-no failures }$([ "$ok" = 0 ] && echo ok || echo DIFFERENT)"
	[ "$ok" = 0 ] || bad=1
	want=$(delta response_timeout_count)
	have=$("$LNETCAP" -r "$cap" -q 'drop response-timeout' 2>/dev/null | wc -l)
	say "$p health: response_timeout_count=$want capture response-timeout=$have" "$want" "$have"
	# Recovery pings: LNet pings an NI (local or peer) whose health is below
	# the maximum every recovery_interval (lnet_recover_local_nis,
	# lnet_recover_peer_nis, lib-move.c) from monitor_thread; lnetcap names
	# them "LNet recovery ping".  A failure lowers some health, but the
	# next successful send through that NI raises it again
	# (lnet_health_check, lib-msg.c): under lnet_selftest's load a single
	# failure is often healed before monitor_thread's next pass, so a
	# failure need not be followed by a ping.  A response timeout lowers the
	# peer NI's health too (lnet_finalize_expired_responses).  A ping after
	# neither, or a monitor_thread ping not named as recovery, is wrong.
	tot=$(($(awk '{print}' "$dir/$node-failures.txt" | wc -l) + have))
	local rec unnamed
	rec=$(grep -c 'LNet recovery ping' "$dir/$node-v.txt" || true)
	unnamed=$(grep 'task monitor_thread' "$dir/$node-v.txt" | grep -E '^[^ ]+ SEND GET' |
		grep -vc 'LNet recovery ping' || true)
	line=$(grep 'LNet recovery ping' "$dir/$node-v.txt" |
		sed -n 's/.* > \([^ :]*\).*/\1/p' | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')
	if [ "$tot" -gt 0 ] || [ "$rec" -gt 0 ]; then
		ok=0
		[ "$tot" -gt 0 ] && [ "$unnamed" = 0 ] || ok=1
		say "$p health: recovery pings $rec (to ${line:-none}), monitor_thread GETs not named recovery: $unnamed, after $tot failed attempts and response timeouts" 0 "$ok"
	else
		echo "$p health: no failed attempt and no recovery ping"
	fi
	# LNet's two counting rules node_report applies (run.sh: replies_failed,
	# sends_never_on_an_ni), said where they apply, with their numbers.
	local failed_replies undiscovered
	failed_replies=$(replies_failed "$dir/$node-v.txt")
	[ "$failed_replies" = 0 ] ||
		echo "$p note: $failed_replies received GETs whose REPLY failed: not in recv_count (lnet_msg_decommit_rx)"
	undiscovered=$(sends_never_on_an_ni "$cap")
	[ "$undiscovered" = 0 ] ||
		echo "$p note: $undiscovered not-sent DROPs without a local NI (held for discovery, finalized when it failed): not in drop_count"
	# lnetcap --summary's health section against the same numbers.
	summary_health "$p" "$dir/$node-summary.txt" "$dir/$node-send-failures.txt" "$dir/$node-resends.txt" || bad=1
	return "$bad"
}

# summary_health PREFIX SUMMARY FAILURES RESENDS: the "LNet health by local
# NI" rows of --summary (attempts resends failed failures-by-health) against
# the capture's own per-NI resends and failed attempts.
summary_health() {
	local p=$1 s=$2 f=$3 r=$4 bad=0 rows
	rows=$(sed -n '/^LNet health by local NI/,/^$/p' "$s" | sed '1d;/^$/d')
	[ -n "$rows" ] || { echo "$p summary: no \"LNet health by local NI\" section DIFFERENT"; return 1; }
	local nid att res fail rest want_res want_fail want_by
	while read -r nid att res fail rest; do
		want_res=$(awk -v n="$nid" '$1 == n' "$r" | wc -l)
		want_fail=$(awk -v n="$nid" '$1 == n' "$f" | wc -l)
		want_by=$(awk -v n="$nid" '$1 == n {c[$3]++} END {for (k in c) print k, c[k]}' "$f" | sort | tr '\n' ' ' | sed 's/ $//')
		local got_by
		got_by=$(echo "$rest" | awk '{for (i = 1; i < NF; i += 2) print $i, $(i + 1)}' | sort | tr '\n' ' ' | sed 's/ $//')
		if [ "$res" = "$want_res" ] && [ "$fail" = "$want_fail" ] && [ "$got_by" = "$want_by" ]; then
			echo "$p summary: $nid attempts $att resends $res failed $fail ${rest:+($rest) }ok"
		else
			echo "$p summary: $nid resends $res (capture $want_res) failed $fail (capture $want_fail) by health '$got_by' (capture '$want_by') DIFFERENT"
			bad=1
		fi
	done <<<"$rows"
	sed -n '/^LNet health by peer NI/,/^$/p' "$s" | sed '1d;/^$/d' | sed "s/^/$p summary: peer /"
	return "$bad"
}

# topo_report MODE DIR: every check; returns 1 when one failed.
topo_report() {
	local mode=$1 dir=$2 bad=0
	convert_links "$mode" "$dir" wire1 wire2 || bad=1
	echo "$mode: faults (a): $(grep -c '^\[' "$dir/a/timeline.txt" 2>/dev/null) steps;" \
		"lnet_selftest: $(grep -ciE 'error|fail' "$dir/a/lst.txt" 2>/dev/null) error lines;" \
		"discovery rc $(sed -n 's/^rc=//p' "$dir/a/discover.txt" 2>/dev/null)"
	node_report "$mode" "$dir" a 10.77.0.1@tcp,10.77.1.1@tcp "$dir/wire1.pcapng" "$dir/wire2.pcapng" || bad=1
	health_report "$mode" "$dir" a 10.77.0.1@tcp,10.77.1.1@tcp || bad=1
	node_report "$mode" "$dir" b 10.77.0.2@tcp,10.77.1.2@tcp "$dir/wire1.pcapng" "$dir/wire2.pcapng" || bad=1
	health_report "$mode" "$dir" b 10.77.0.2@tcp,10.77.1.2@tcp || bad=1
	return "$bad"
}
