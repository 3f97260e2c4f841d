#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Guest side of the rig capture tests (runs in the guest, chroot of the
# host root; see scripts/rig/run-guest.sh).  Variables:
#   LNETCAP       the agent binary (host path)
#   RIG_VARIANT   btf | nobtf: which build of the double to load
#   RIG_ATTACH    fentry | kprobe: lnetcap --attach
#   RIG_ROUNDS    rounds of every scenario to generate (default 3)
#   RIG_DROPS     1: also run the tiny-ring drop test
#   RIG_BENCH     messages for the cost measurement (0 = skip)
#   (no lnetcap_kfunc module in the checked captures: payloads must come
#   from the pages alone; fentry loads it for the SIGINT run only)
# Leaves in RIG_OUT: list.txt (-D), capture.pcapng + double.log (+ .err),
# rdma.pcapng + rdma.log (RDMA GETs on the o2ib NI), rsp.pcapng + rsp.log
# (the monitor thread's response timeouts),
# reqbuf.pcapng + reqbuf.log (requests in multi-use request buffers),
# nocap.pcapng + nocap.log (payloads left out), getforce.pcapng +
# getforce.log (LNetGetForce's GETs), ipv6.pcapng + ipv6.log (an IPv6 NI),
# drops.pcapng + drops.log, perf.txt, insns-{ni,disjunction}.txt (the
# verifier's statistics per program).  The host checks the files; this
# script only fails on things it can see itself.
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
dbg=/sys/kernel/debug/lnet
rounds=${RIG_ROUNDS:-3}
kdir=$RIG_KMOD_NOBTF
[ "$RIG_VARIANT" = btf ] && kdir=$RIG_KMOD_BTF
extra=()
[ "$RIG_ATTACH" = kprobe ] && [ "$RIG_VARIANT" = nobtf ] &&
	extra+=(--btf "$RIG_KMOD_NOBTF/lnet.btf")

$RIG_BB insmod "$kdir/lnet.ko"
# LNet's own version, as on a real node; nothing publishes a Lustre release.
[ "$(cat /sys/module/lnet/version)" = 0.7.0 ] || fail "the double reports $(cat /sys/module/lnet/version)"

echo "== lnetcap -D"
"$LNETCAP" -D "${extra[@]}" | tee "$RIG_OUT/list.txt"

# Start a capture and wait until its programs are attached: the agent has
# no "ready" signal on stdout, so watch for its BPF links.
start_capture() { # out.pcapng errfile args...
	local out=$1 err=$2
	shift 2
	local before
	before=$(bpftool link list 2>/dev/null | grep -c '^[0-9]' || true)
	"$LNETCAP" --attach "$RIG_ATTACH" "${extra[@]}" -w "$out" "$@" 2>"$err" &
	cap_pid=$!
	wait_attached "$before" "$err"
}
# Waits until the capture $cap_pid has attached its programs.
wait_attached() { # links-before errfile
	local before=$1 err=$2
	for _ in $(seq 1 600); do
		local now
		now=$(bpftool link list 2>/dev/null | grep -c '^[0-9]' || true)
		[ "$now" -ge $((before + 7)) ] && { sleep 0.5; return 0; }
		kill -0 "$cap_pid" 2>/dev/null || { cat "$err"; fail "lnetcap exited before attaching"; }
		sleep 0.1
	done
	cat "$err"
	fail "lnetcap did not attach within 60 s"
}
# Stops a capture with SIGINT as a user would.  An agent that ignores it
# is killed and the fact recorded in sigint.txt (rig-test.sh fails on it
# after the other checks); the guest never hangs on it.
stop_capture() { # errfile
	sleep 1	# let the consumer drain
	kill -INT "$cap_pid" 2>/dev/null || true
	for _ in $(seq 1 300); do
		kill -0 "$cap_pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$cap_pid" 2>/dev/null; then
		kill -KILL "$cap_pid"
		echo "lnetcap did not exit within 30 s of SIGINT ($1)" >>"$RIG_OUT/sigint.txt"
		wait "$cap_pid" || true
		cat "$1"
		return 0
	fi
	local rc=0
	wait "$cap_pid" || rc=$?
	cat "$1"
	[ "$rc" -eq 0 ] || fail "lnetcap exited with $rc"
}
# Waits for a capture started with -c to stop by itself.
wait_capture() { # errfile
	for _ in $(seq 1 600); do
		kill -0 "$cap_pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$cap_pid" 2>/dev/null; then
		kill -KILL "$cap_pid"
		cat "$1"
		fail "lnetcap -c did not stop within 60 s (records missing?)"
	fi
	local rc=0
	wait "$cap_pid" || rc=$?
	cat "$1"
	[ "$rc" -eq 0 ] || fail "lnetcap exited with $rc"
}
rm -f "$RIG_OUT/sigint.txt"

echo "== capture ($RIG_ATTACH, $RIG_VARIANT build), $rounds rounds"
echo clear >$dbg/double_ctl
# Per round the contract gives 25 records: 20 messages (4 of them DROPs)
# and 5 DROP outcomes linked to their message (the failed sends of
# "resend" and "health", the send of "aborted" that LNet reports as timed
# out, the GETs/ACKs refused in lnet_parse by "drop_rule" and
# "malformed"); -c (records) makes lnetcap stop on its own once all are
# there.
start_capture "$RIG_OUT/capture.pcapng" "$RIG_OUT/capture.err" -v -c $((25 * rounds))
echo "all $rounds" >$dbg/double_ctl
cp $dbg/double_log "$RIG_OUT/double.log"
wait_capture "$RIG_OUT/capture.err"

echo "== RDMA GETs ($RIG_ATTACH), $rounds rounds"
# o2iblnd/kfilnd/gnilnd move a large GET's REPLY by RDMA: no REPLY passes
# lnet_parse or lnet_ni_send on either node.  Per round 4 records: our GET
# and the REPLY that landed in its MD, a peer's GET and the REPLY we wrote.
echo clear >$dbg/double_ctl
start_capture "$RIG_OUT/rdma.pcapng" "$RIG_OUT/rdma.err" -v -c $((4 * rounds))
echo "rdma_get $rounds" >$dbg/double_ctl
echo "rdma_serve_get $rounds" >$dbg/double_ctl
cp $dbg/double_log "$RIG_OUT/rdma.log"
wait_capture "$RIG_OUT/rdma.err"

echo "== response timeouts ($RIG_ATTACH), $rounds rounds"
# From the double's "monitor_thread" (LNet's): per round a send that fails
# with a remote error (SEND and its DROP outcome; the peer NI's health
# lowered by its health check is no record of its own) and a response
# timeout, which no message carries (one DROP response-timeout).
echo clear >$dbg/double_ctl
start_capture "$RIG_OUT/rsp.pcapng" "$RIG_OUT/rsp.err" -v -c $((3 * rounds))
echo "rsp_timeout $rounds" >$dbg/double_ctl
cp $dbg/double_log "$RIG_OUT/rsp.log"
wait_capture "$RIG_OUT/rsp.err"

echo "== request buffers ($RIG_ATTACH), $rounds rounds"
# A server's request buffer (and a client's for LDLM callbacks) is one MD
# that receives many requests, each at its own offset.  Per round 8
# LDLM_CANCEL requests of different lengths land in one buffer, which LNet
# then unlinks: 8 records.
echo clear >$dbg/double_ctl
start_capture "$RIG_OUT/reqbuf.pcapng" "$RIG_OUT/reqbuf.err" -v -c $((8 * rounds))
echo "reqbuf $rounds" >$dbg/double_ctl
cp $dbg/double_log "$RIG_OUT/reqbuf.log"
wait_capture "$RIG_OUT/reqbuf.err"

echo "== payloads left out ($RIG_ATTACH), $rounds rounds"
# GPU memory (2.16+'s LNET_MD_GPU_ADDR: o2iblnd, kfilnd and efalnd move it
# peer to peer; its pages are no host memory to read) and a receive into
# an MD that may discard what arrives (master's LNET_MD_DISCARD).  Per
# round 6 records: "gpu" a GET in and the REPLY out from GPU pages, a PUT
# into GPU pages and its ACK; "discard" a PUT and its ACK.
echo clear >$dbg/double_ctl
start_capture "$RIG_OUT/nocap.pcapng" "$RIG_OUT/nocap.err" -v -c $((6 * rounds))
echo "gpu $rounds" >$dbg/double_ctl
echo "discard $rounds" >$dbg/double_ctl
cp $dbg/double_log "$RIG_OUT/nocap.log"
wait_capture "$RIG_OUT/nocap.err"

echo "== GETs LNet hands the LND itself: LNetGetForce ($RIG_ATTACH), $rounds rounds"
# lnet_discover_nid_metadata (2.17+: the EFA LND's handshake, a ping
# fault-injection path) builds a GET and calls the LND's lnd_send: no
# lnet_send, no lnet_ni_send.  Per round 3 records: that GET (at
# lnet_finalize), its REPLY, and a second one lnd_send refused (a DROP).
echo clear >$dbg/double_ctl
start_capture "$RIG_OUT/getforce.pcapng" "$RIG_OUT/getforce.err" -v -c $((3 * rounds))
echo "get_force $rounds" >$dbg/double_ctl
cp $dbg/double_log "$RIG_OUT/getforce.log"
wait_capture "$RIG_OUT/getforce.err"

echo "== large NIDs: IPv6 socklnd ($RIG_ATTACH), $rounds rounds"
# An NI with an IPv6 address (nid_size 12: "lnetctl lnet configure
# --large"): per round 6 records, a request PUT and its reply, a bulk GET
# in and its REPLY, a bulk PUT in and its ACK, between fd00:77::10@tcp1
# and fd00:77::20@tcp1.
echo clear >$dbg/double_ctl
start_capture "$RIG_OUT/ipv6.pcapng" "$RIG_OUT/ipv6.err" -v -c $((6 * rounds))
echo "ipv6 $rounds" >$dbg/double_ctl
cp $dbg/double_log "$RIG_OUT/ipv6.log"
wait_capture "$RIG_OUT/ipv6.err"

echo "== stop on SIGINT"
# In fentry mode this run has the lnetcap_kfunc module loaded: the object
# that can call it (the fallback for nodes without page translation) must
# still load and attach.
[ "$RIG_ATTACH" = fentry ] && $RIG_BB insmod "$kdir/lnetcap_kfunc.ko"
start_capture /tmp/sigint.pcapng "$RIG_OUT/sigint.err" -v
echo "ping_rpc" >$dbg/double_ctl
stop_capture "$RIG_OUT/sigint.err"
if [ "$RIG_ATTACH" = fentry ]; then
	grep -q 'lnetcap_kfunc loaded' "$RIG_OUT/sigint.err" || fail "the kfunc object was not used"
	$RIG_BB rmmod lnetcap_kfunc
fi
cat $dbg/double_stats

echo "== in-kernel filter and text output"
# One round of every scenario, captured live with the filter "type get" and
# printed as text: exactly the round's GETs (counted in the main capture),
# nothing else, and the rejected messages counted as such.
gets=$("$LNETCAP" -r "$RIG_OUT/capture.pcapng" -q 'type get' | wc -l)
per_round=$((gets / rounds))
[ "$per_round" -ge 1 ] || fail "the main capture has no GET to filter on"
echo clear >$dbg/double_ctl
links=$(bpftool link list 2>/dev/null | grep -c '^[0-9]' || true)
"$LNETCAP" --attach "$RIG_ATTACH" "${extra[@]}" -c "$per_round" 'type get' \
	>"$RIG_OUT/filter.txt" 2>"$RIG_OUT/filter.err" &
cap_pid=$!
wait_attached "$links" "$RIG_OUT/filter.err"
echo "all 1" >$dbg/double_ctl
wait_capture "$RIG_OUT/filter.err"
cat "$RIG_OUT/filter.txt"
[ "$(wc -l <"$RIG_OUT/filter.txt")" = "$per_round" ] ||
	fail "expected $per_round GET lines, got $(wc -l <"$RIG_OUT/filter.txt")"
! grep -v ' GET ' "$RIG_OUT/filter.txt" || fail "the filter let a non-GET through"
grep -q 'rejected by the in-kernel filter' "$RIG_OUT/filter.err" ||
	fail "no in-kernel filter rejects reported"

echo "== in-kernel clauses: ni and disjunctions"
# One round of every scenario, of the RDMA GETs (the only messages on
# the o2ib NI) and of the IPv6 NI's traffic (16-byte NIDs), captured live
# with a filter the kernel tests exactly as
# clauses (bpf/lnetcap_clause.h): the messages the saved captures say it
# selects, and not one more crossed the ring ("received by filter"), so a
# clause the kernel evaluated wrongly (too wide or too narrow) fails here.
# -U: each line is written as it comes, for the wait below.
# -vv: the verifier's statistics of each program, kept in insns-NAME.txt
# (docs/PERFORMANCE.md).
exact_filter() { # name filter
	local name=$1 filter=$2 want got links
	want=$(( ($("$LNETCAP" -r "$RIG_OUT/capture.pcapng" -q "$filter" | wc -l) +
		$("$LNETCAP" -r "$RIG_OUT/rdma.pcapng" -q "$filter" | wc -l) +
		$("$LNETCAP" -r "$RIG_OUT/ipv6.pcapng" -q "$filter" | wc -l)) / rounds ))
	[ "$want" -ge 1 ] || fail "'$filter' selects nothing in the saved captures"
	echo clear >$dbg/double_ctl
	links=$(bpftool link list 2>/dev/null | grep -c '^[0-9]' || true)
	"$LNETCAP" --attach "$RIG_ATTACH" "${extra[@]}" -vv -U "$filter" \
		>"$RIG_OUT/$name.txt" 2>"$RIG_OUT/$name.err" &
	cap_pid=$!
	wait_attached "$links" "$RIG_OUT/$name.err"
	echo "all 1" >$dbg/double_ctl
	echo "rdma_get 1" >$dbg/double_ctl
	echo "rdma_serve_get 1" >$dbg/double_ctl
	echo "ipv6 1" >$dbg/double_ctl
	for _ in $(seq 1 300); do
		[ "$(wc -l <"$RIG_OUT/$name.txt")" -ge "$want" ] && break
		sleep 0.2
	done
	stop_capture "$RIG_OUT/$name.err" >/dev/null
	grep -E "BEGIN PROG LOAD LOG|^processed [0-9]+ insns" "$RIG_OUT/$name.err" \
		>"$RIG_OUT/insns-$name.txt" || true
	cat "$RIG_OUT/$name.txt"
	got=$(wc -l <"$RIG_OUT/$name.txt")
	[ "$got" = "$want" ] || fail "'$filter' printed $got messages, expected $want"
	grep -q "^$want messages received by filter" "$RIG_OUT/$name.err" || {
		grep 'messages' "$RIG_OUT/$name.err"
		fail "'$filter': the kernel passed up other messages than the $want the filter keeps"
	}
	grep -q 'rejected by the in-kernel filter' "$RIG_OUT/$name.err" ||
		fail "'$filter': no in-kernel filter rejects reported"
	grep -q 'in-kernel filter: [0-9] clause' "$RIG_OUT/$name.err" ||
		fail "'$filter' was not pushed to the kernel as clauses"
	echo "'$filter': the kernel kept exactly its $want messages"
}
exact_filter ni 'ni 10.0.0.10@o2ib'
exact_filter disjunction 'type ack or dir forward or (ni o2ib and type reply)'
# 16-byte NIDs in the header and as the local NI (4 words a clause).
exact_filter nid6 'nid fd00:77::20@tcp1 and not type ack'
exact_filter ni6 'ni fd00:77::10@tcp1 and dir recv'

if [ "$RIG_ATTACH" = fentry ]; then
	echo "== extcap capture without root (file capabilities)"
	# Wireshark runs its extcap entry as the desktop user; the lnetcap binary
	# carries the capabilities instead (docs/EXTCAP.md).  A copy with them
	# runs as nobody through the exact call Wireshark makes, capturing the
	# PUTs, whose payloads it must read too (cap_syslog: kallsyms addresses).
	puts=$(($("$LNETCAP" -r "$RIG_OUT/capture.pcapng" -q 'type put' | wc -l) / rounds))
	cp "$LNETCAP" /tmp/lnetcap-caps
	chmod 755 /tmp/lnetcap-caps
	setcap cap_bpf,cap_perfmon,cap_sys_admin,cap_sys_resource,cap_dac_read_search,cap_syslog+ep \
		/tmp/lnetcap-caps || fail "setcap failed"
	mkdir -p /tmp/extcap && chmod 1777 /tmp/extcap
	echo clear >$dbg/double_ctl
	links=$(bpftool link list 2>/dev/null | grep -c '^[0-9]' || true)
	runuser -u nobody -- /tmp/lnetcap-caps --capture --extcap-interface lnet \
		--fifo /tmp/extcap/out.pcapng --extcap-capture-filter 'type put' -c "$puts" \
		2>"$RIG_OUT/extcap.err" &
	cap_pid=$!
	wait_attached "$links" "$RIG_OUT/extcap.err"
	echo "all 1" >$dbg/double_ctl
	wait_capture "$RIG_OUT/extcap.err"
	n=$("$LNETCAP" -r /tmp/extcap/out.pcapng -q 'type put' | wc -l)
	[ "$n" = "$puts" ] || fail "extcap capture as nobody wrote $n PUTs, expected $puts"
	! "$LNETCAP" -r /tmp/extcap/out.pcapng | grep 'payload unreadable' ||
		fail "the extcap capture as nobody could not read payloads"
	cp /tmp/extcap/out.pcapng "$RIG_OUT/extcap.pcapng"
	echo "extcap capture as nobody: $n messages, payloads read"
fi

if [ "${RIG_DROPS:-0}" = 1 ]; then
	echo "== drops: tiny ring"
	echo clear >$dbg/double_ctl
	start_capture "$RIG_OUT/drops.pcapng" "$RIG_OUT/drops.err" -B 4
	echo "all 100" >$dbg/double_ctl
	cp $dbg/double_log "$RIG_OUT/drops.log"
	stop_capture "$RIG_OUT/drops.err"
fi

bench=${RIG_BENCH:-0}
if [ "$bench" -gt 0 ]; then
	echo "== cost per message: $bench messages"
	ns() { awk '/^bench_ns/{print $2}' $dbg/double_stats; }
	echo "bench $((bench / 2))" >$dbg/double_ctl	# warm up
	echo "bench $((bench / 2))" >$dbg/double_ctl
	base=$(ns)
	start_capture /tmp/bench.pcapng "$RIG_OUT/bench.err" -c "$bench"
	echo "bench $((bench / 2))" >$dbg/double_ctl
	with=$(ns)
	stop_capture "$RIG_OUT/bench.err"
	rm -f /tmp/bench.pcapng
	{
		echo "mode=$RIG_ATTACH variant=$RIG_VARIANT messages=$bench"
		echo "base_ns=$base with_capture_ns=$with"
		awk -v b="$base" -v w="$with" -v n="$bench" 'BEGIN {
			printf "base_ns_per_msg=%.0f\ncapture_ns_per_msg=%.0f\ncost_ns_per_msg=%.0f\nrate_ratio=%.3f\n",
			       b / n, w / n, (w - b) / n, b / w }'
	} | tee "$RIG_OUT/perf.txt"
fi

$RIG_BB rmmod lnet
echo PASS
