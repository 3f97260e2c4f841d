#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# rig-test.sh CASE - one kernel-rig test (tests/rig/CMakeLists.txt).
# Boots the QEMU guest prepared by scripts/rig/prepare.sh, runs the guest
# half of CASE there and checks its results on the host.  Exits 77 (SKIP,
# with the reason) when the rig or the agent's live capture is not
# available, never passes silently.
# Environment: RIG_DIR, RIG_RUN, LNETCAP, RIG_CHECK, LNETCAP_SOURCE_DIR,
# KFUNC_SELFTEST, KFUNC_OBJ.
set -euo pipefail
case_=$1
src=$LNETCAP_SOURCE_DIR
guest=$src/tests/rig/guest
run=$src/scripts/rig/run-guest.sh
out=$RIG_RUN/$case_
rounds=3

TEST_CASE=rig.$case_
. "$src/tests/support/testlib.sh"

[ -f "$RIG_DIR/rig.env" ] ||
	skip "the rig is not prepared ($RIG_DIR/rig.env missing; see the output of test rig.prepare)"

need_agent() {
	[ -x "$LNETCAP" ] || skip "agent not built: $LNETCAP"
	if "$LNETCAP" -D 2>&1 | grep 'built without eBPF' >/dev/null; then
		skip "$LNETCAP was built without eBPF live capture (needs clang, bpftool, libbpf-dev)"
	fi
}

guest_run() { # timeout script VAR=VALUE...
	local t=$1 script=$2 rc=0
	shift 2
	rm -rf "$out"	# never check a previous run's files
	"$run" -t "$t" "$RIG_DIR" "$out" "$script" "$@" || rc=$?
	echo "---- guest log ($out/guest.log)"
	cat "$out/guest.log" 2>/dev/null | cut -c1-300 || true
	[ "$rc" -eq 0 ] || fail "guest script $(basename "$script") failed (rc $rc)"
}

# LNet health through the printer, the filter and --summary, on the live
# capture: per round 25 records, 19 messages (5 records are outcomes and 1
# is the resend of an earlier SEND: both belong to a message counted by its
# first record), 7 DROPs, one send held 30 ms by the double (credit wait).
health_text_ok() {
	local cap=$out/capture.pcapng n
	n=$("$LNETCAP" -r "$cap" 'drop' | wc -l)
	[ "$n" = $((7 * rounds)) ] || fail "'drop' selected $n records, expected $((7 * rounds))"
	# At least the held sends (a loaded TCG guest may hold another one as
	# long; rig_check checks the held ones one by one).
	n=$("$LNETCAP" -r "$cap" 'queue >= 30ms' | grep -c ' queue [0-9.]*m\?s' || true)
	[ "$n" -ge "$rounds" ] || fail "'queue >= 30ms' selected $n sends, expected at least $rounds"
	n=$("$LNETCAP" -r "$cap" 'queue >= 30ms' | grep -vc ' queue [0-9.]*m\?s' || true)
	[ "$n" = 0 ] || fail "'queue >= 30ms' selected $n records without such a queue time"
	n=$("$LNETCAP" -r "$cap" 'drop drop-rule' | grep -c 'drop drop-rule \[outcome of seq' || true)
	[ "$n" = "$rounds" ] || fail "drop-rule outcomes: $n, expected $rounds"
	# A SEND starts an attempt: the previous one's failure is its DROP's,
	# never the resend's (LNet keeps msg_health_status until the LND is done).
	n=$("$LNETCAP" -r "$cap" 'health != OK and not drop' | wc -l)
	[ "$n" = 0 ] || fail "'health != OK and not drop' selected $n records (a resend carrying the failure before it?)"
	"$LNETCAP" -r "$cap" --summary >"$out/summary.txt"
	grep -q "^lnetcap summary: $((19 * rounds)) messages" "$out/summary.txt" ||
		fail "--summary does not count $((19 * rounds)) messages: $(head -1 "$out/summary.txt")"
	grep -q '^LNet drops by reason' "$out/summary.txt" || fail "--summary has no drops by reason"
	grep -q '^LNet queue time by NI' "$out/summary.txt" || fail "--summary has no queue times"
	# The resends left by the double's second TCP NI: one attempt a round,
	# each a resend, none failed.
	grep -Eq "^192\.168\.1\.11@tcp +$rounds +$rounds +0\b" "$out/summary.txt" ||
		fail "--summary's health by local NI does not show the resends on 192.168.1.11@tcp"
	# GETs per round: bulk_get's, lnet_ping's and the one a drop rule drops,
	# whose DROP outcome is the same message.
	"$LNETCAP" -r "$cap" --assert "count(type get) == $((3 * rounds))" \
		--assert "count(drop) == $((7 * rounds))" >"$out/assert-health.txt" ||
		{ cat "$out/assert-health.txt"; fail "--assert does not count each message once"; }
	echo "LNet health in text, filter, summary and assert: ok"
}

# RDMA GETs (the double's o2ib NI, as o2iblnd): the REPLY that crossed by
# RDMA is one SEND on the responder and one RECV on the initiator, with its
# payload, and the pair reads as GET + REPLY.
rdma_ok() {
	"$RIG_CHECK" --no-held "$out/rdma.pcapng" "$out/rdma.log" ||
		fail "the RDMA GETs' captures differ from what the double produced"
	local n
	n=$("$LNETCAP" -r "$out/rdma.pcapng" -q 'type reply' | wc -l)
	[ "$n" = $((2 * rounds)) ] || fail "'type reply' selected $n RDMA REPLYs, expected $((2 * rounds))"
	"$LNETCAP" -r "$out/rdma.pcapng" --assert "count(type get) == $((2 * rounds))" \
		--assert "count(type reply) == $((2 * rounds))" >"$out/assert-rdma.txt" ||
		{ cat "$out/assert-rdma.txt"; fail "--assert does not count each RDMA GET and REPLY once"; }
	echo "RDMA GET replies recorded on both sides: ok"
}

# Response timeouts (the double's monitor thread): each one DROP
# response-timeout naming the peer NI, in the text output and in
# --summary's health by peer NI, besides rig_check's record-by-record check.
rsp_timeout_ok() {
	"$RIG_CHECK" --no-held "$out/rsp.pcapng" "$out/rsp.log" ||
		fail "the response timeouts' capture differs from what the double produced"
	local n
	n=$("$LNETCAP" -r "$out/rsp.pcapng" 'drop response-timeout' |
		grep -c 'response timeout from 192.168.1.20@tcp drop response-timeout health REMOTE_TIMEOUT$' || true)
	[ "$n" = "$rounds" ] || fail "response timeouts printed: $n, expected $rounds"
	"$LNETCAP" -r "$out/rsp.pcapng" --summary >"$out/rsp-summary.txt"
	grep -Eq "^192\.168\.1\.20@tcp .* REMOTE_TIMEOUT $rounds\b" "$out/rsp-summary.txt" ||
		{ cat "$out/rsp-summary.txt"; fail "--summary's health by peer NI has no response timeouts"; }
	echo "response timeouts recorded: ok"
}

# Multi-use request buffers (the double's "reqbuf"): each request is one
# RECV whose payload is the bytes the peer sent, read at the request's own
# offset in the buffer (rig_check compares with the bytes logged at
# lnet_parse), and each round's MD unlinked once less than max_size was
# left, at offset 3152 after 8 requests, as LNet unlinks it.
reqbuf_ok() {
	"$RIG_CHECK" --no-held "$out/reqbuf.pcapng" "$out/reqbuf.log" ||
		fail "the requests captured in request buffers differ from what the peer sent"
	local n
	n=$(grep -c '^lnet_md_unlink .* offset=3152 length=8192 max_size=5120 threshold=-1$' \
		"$out/reqbuf.log" || true)
	[ "$n" = "$rounds" ] || fail "request buffers unlinked when full: $n, expected $rounds"
	n=$("$LNETCAP" -r "$out/reqbuf.pcapng" -q 'opcode LDLM_CANCEL' | wc -l)
	[ "$n" = $((8 * rounds)) ] ||
		fail "'opcode LDLM_CANCEL' selected $n requests, expected $((8 * rounds))"
	echo "requests at their offsets in multi-use request buffers: ok"
}

# Payloads a capture must leave out (the double's "gpu" and "discard"):
# every bulk REPLY and PUT without payload bytes and with the reason
# (rig_check checks each against the double's nocap=device|discard), and
# the text says why.
nocap_ok() {
	"$RIG_CHECK" --no-held "$out/nocap.pcapng" "$out/nocap.log" ||
		fail "GPU or discarded payloads were captured, or captured without their reason"
	local n
	n=$("$LNETCAP" -r "$out/nocap.pcapng" | grep -c '\[payload in GPU memory, not captured\]' || true)
	[ "$n" = $((2 * rounds)) ] || fail "GPU payloads marked in the text: $n, expected $((2 * rounds))"
	n=$("$LNETCAP" -r "$out/nocap.pcapng" | grep -c '\[payload discarded by LNet, not captured\]' || true)
	[ "$n" = "$rounds" ] || fail "discarded payloads marked in the text: $n, expected $rounds"
	echo "GPU and discarded payloads left out, with their reason: ok"
}

# LNetGetForce's GETs (the double's "get_force"): each is one SEND at
# lnet_finalize with its real header, NIDs and status (rig_check), its
# REPLY pairs with it (rig_check: a REPLY received whose GET is not among
# the records fails), the refused one is one DROP send-failed.
getforce_ok() {
	"$RIG_CHECK" --no-held "$out/getforce.pcapng" "$out/getforce.log" ||
		fail "LNetGetForce's GETs were not captured as sent (or their REPLYs unpaired)"
	local n
	n=$("$LNETCAP" -r "$out/getforce.pcapng" -q 'type get and dir send' | wc -l)
	[ "$n" = "$rounds" ] || fail "'type get and dir send' selected $n forced GETs, expected $rounds"
	"$LNETCAP" -r "$out/getforce.pcapng" --assert "count(type get) == $((2 * rounds))" \
		--assert "count(type reply) == $rounds" --assert "count(drop send-failed) == $rounds" \
		>"$out/assert-getforce.txt" ||
		{ cat "$out/assert-getforce.txt"; fail "--assert does not count each forced GET once"; }
	echo "LNetGetForce's GETs recorded, their REPLYs paired: ok"
}

# Large NIDs (the double's "ipv6"): headers, local and peer NIDs of 16
# bytes byte for byte (rig_check), printed and selected as Lustre writes
# them (the live in-kernel clauses on them: guest/capture.sh "nid6", "ni6").
ipv6_ok() {
	"$RIG_CHECK" --no-held "$out/ipv6.pcapng" "$out/ipv6.log" ||
		fail "the IPv6 NI's messages differ from what the double produced"
	local n
	n=$("$LNETCAP" -r "$out/ipv6.pcapng" 'nid fd00:77::20@tcp1 and ni fd00:77::10@tcp1' | wc -l)
	[ "$n" = $((6 * rounds)) ] || fail "'nid/ni' on IPv6 NIDs selected $n records, expected $((6 * rounds))"
	n=$("$LNETCAP" -r "$out/ipv6.pcapng" | grep -c 'fd00:77::20@tcp1' || true)
	[ "$n" = $((6 * rounds)) ] || fail "IPv6 NIDs printed in $n lines, expected $((6 * rounds))"
	echo "IPv6 (large) NIDs recorded, printed and filtered: ok"
}

# The agent must stop cleanly on SIGINT, like tcpdump.
sigint_ok() {
	[ ! -s "$out/sigint.txt" ] || fail "$(cat "$out/sigint.txt")"
}

case $case_ in
systemd)
	# The shipped lnetcapd.service under a real systemd with a live capture
	# (guest/systemd.sh).  Also needs LNETCAPD (tests/rig/CMakeLists.txt).
	need_agent
	[ -x "${LNETCAPD:-}" ] || skip "lnetcapd not built: ${LNETCAPD:-}"
	[ -x /lib/systemd/systemd ] || skip "no systemd on this host (/lib/systemd/systemd)"
	command -v unshare >/dev/null && command -v nsenter >/dev/null ||
		skip "unshare/nsenter (util-linux) missing"
	guest_run 800 "$guest/systemd.sh" LNETCAP="$LNETCAP" LNETCAPD="$LNETCAPD" \
		LNETCAP_SOURCE_DIR="$src"
	has() { grep -qx -- "$2" "$out/$1" || fail "$1 has no line '$2': $(cat "$out/$1")"; }
	# Type=notify: active (READY=1) only once attached - the checks start
	# after it (After=lnetcapd.service) and find its BPF links there (at least 7: 9 fentry, 10 kprobe).
	has sd-show.txt 'Type=notify'
	has sd-show.txt 'ActiveState=active'
	has sd-show.txt 'SubState=running'
	has sd-show.txt 'StatusText=serving live eBPF capture'
	has sd-show.txt 'User=lnetcap'
	[ "$(cat "$out/sd-links.txt")" -ge 7 ] || fail "only $(cat "$out/sd-links.txt") BPF links when lnetcapd was ready"
	# Runs as lnetcap with exactly the unit's capability set, ambient and
	# bounding, and no new privileges.
	[ "$(tr -s ' ' <"$out/sd-user.txt" | sed 's/ *$//')" = 'lnetcap lnetcap' ] ||
		fail "lnetcapd runs as '$(cat "$out/sd-user.txt")'"
	caps=0
	for bit in 2 21 24 34 38 39; do # DAC_READ_SEARCH SYS_ADMIN SYS_RESOURCE SYSLOG PERFMON BPF
		caps=$((caps | (1 << bit)))
	done
	caps=$(printf '%016x' $caps)
	for set in Prm Eff Bnd Amb; do
		has sd-caps.txt "Cap$set:	$caps"
	done
	has sd-caps.txt 'NoNewPrivs:	1'
	has sd-sock.txt 'srw-rw---- lnetcap lnetcap'
	# A member of group lnetcap without root subscribes; others cannot.
	grep -q 'groups=.*(lnetcap)' "$out/sd-id.txt" && ! grep -q 'uid=0(' "$out/sd-id.txt" ||
		fail "rigsub is not a plain member of group lnetcap: $(cat "$out/sd-id.txt")"
	has sd-nobody.txt 'exit 1'
	"$RIG_CHECK" "$out/sd-sub.pcapng" "$out/sd-double.log"
	grep -q '^0 messages dropped by kernel' "$out/sd-sub.err" || fail "$(cat "$out/sd-sub.err")"
	grep -q '^lnetcapd: source: 25 records, 0 dropped' "$out/sd-journal.txt" ||
		fail "lnetcapd's journal does not count 25 records without loss"
	# systemctl stop: a clean exit (SIGTERM, STOPPING=1, status 0).
	has sd-stopped.txt 'ActiveState=inactive'
	has sd-stopped.txt 'Result=success'
	;;
daemon)
	# lnetcapd serving the live eBPF capture to three subscribers while a
	# direct lnetcap captures the same traffic (guest/daemon.sh).
	# Also needs LNETCAPD and RIG_SAME (tests/rig/CMakeLists.txt).
	need_agent
	[ -x "${LNETCAPD:-}" ] || skip "lnetcapd not built: ${LNETCAPD:-}"
	guest_run 600 "$guest/daemon.sh" LNETCAP="$LNETCAP" LNETCAPD="$LNETCAPD" RIG_ROUNDS=$rounds
	total=$((25 * rounds))
	# Both captures are what the double produced, by the contract...
	"$RIG_CHECK" "$out/direct.pcapng" "$out/double.log"
	"$RIG_CHECK" "$out/sub-all.pcapng" "$out/double.log"
	# ...and the subscriber's records are the direct ones, byte for byte
	# but for the two clock readings (tests/rig/rig_same.cpp says why).
	"$RIG_SAME" "$out/direct.pcapng" "$out/sub-all.pcapng" ||
		fail "the subscriber's records differ from the direct capture's"
	# The comparison is not vacuous: one payload byte flipped in a copy of
	# the subscriber's file (byte 250 of the first record that long: past
	# the record and LNet headers) must be reported as a payload difference.
	python3 - "$out/sub-all.pcapng" "$out/flipped.pcapng" 250 <<'EOF'
import struct, sys
src, dst, off = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, 'rb').read())
p = 0
while p < len(b):  # little-endian pcapng: type, length; EPB data at +28
    t, n = struct.unpack_from('<II', b, p)
    # (not a record on 0@lo, local_nid's nid_type at record byte 57: the
    # direct capture's self-check ping, which rig_same leaves out)
    if t == 6 and struct.unpack_from('<I', b, p + 20)[0] > off and b[p + 28 + 57] != 9:
        b[p + 28 + off] ^= 0xff
        open(dst, 'wb').write(b)
        sys.exit(0)
    p += n
sys.exit('no record with a payload byte %d' % off)
EOF
	! "$RIG_SAME" "$out/direct.pcapng" "$out/flipped.pcapng" >"$out/flipped.txt" &&
		grep -q '^record [0-9]*: payload differs' "$out/flipped.txt" ||
		fail "rig_same did not notice a flipped payload byte: $(cat "$out/flipped.txt")"
	# A filtered subscriber gets exactly the matching subset of the direct
	# capture, as lnetcap -r selects it from the file.
	for sub in 'ping:opcode OBD_PING' 'drop:drop'; do
		name=${sub%%:*} filter=${sub#*:}
		"$LNETCAP" -r "$out/direct.pcapng" -w "$out/want-$name.pcapng" "$filter"
		n=$("$LNETCAP" -r "$out/want-$name.pcapng" -q | wc -l)
		[ "$n" -gt 0 ] && [ "$n" -lt "$total" ] ||
			fail "'$filter' selects $n of the $total direct records: not a subset test"
		"$RIG_SAME" "$out/want-$name.pcapng" "$out/sub-$name.pcapng" ||
			fail "the '$filter' subscriber did not get exactly the matching records"
	done
	n=$("$LNETCAP" -r "$out/sub-drop.pcapng" -q | wc -l)
	[ "$n" = $((7 * rounds)) ] || fail "the 'drop' subscriber got $n records, expected $((7 * rounds))"
	# Nothing dropped anywhere: not by the kernel ring (direct and through
	# the daemon), not by the daemon's per-subscriber queues.
	grep -q '^0 messages dropped by kernel' "$out/direct.err" ||
		fail "the direct capture dropped records: $(cat "$out/direct.err")"
	for name in all ping drop; do
		grep -q '^0 messages dropped by kernel' "$out/sub-$name.err" ||
			fail "subscriber $name reports kernel drops: $(cat "$out/sub-$name.err")"
		! grep 'dropped by lnetcapd' "$out/sub-$name.err" ||
			fail "subscriber $name lost records in the daemon's queue"
	done
	# ...plus the direct capture's self-check ping of 0@lo, which the
	# daemon, attached first, records as any LNet traffic (rig_check and
	# rig_same leave such pings out).
	pings=$("$LNETCAP" -r "$out/sub-all.pcapng" -q 'nid 0@lo' | wc -l)
	grep -q "^lnetcapd: source: $((total + pings)) records, 0 dropped" "$out/daemon.err" ||
		fail "lnetcapd's source did not take exactly $total records (+ $pings pings) without loss"
	# (local subscribers: the records that went through the shared-memory
	# ring, all but the first batches before a handover is done, follow)
	n=$(grep -cE '^lnetcapd: subscriber [0-9]+ .*: ([0-9]+) matched, \1 sent, 0 dropped( \([0-9]+ through the shared-memory ring\))?$' "$out/daemon.err" || true)
	[ "$n" = 3 ] || fail "lnetcapd does not log 3 subscribers with every matched record sent ($n)"
	# Kernel push-down: with one 'type get' subscriber only GETs left the
	# kernel (the daemon's source took exactly those records, the rest were
	# counted as filtered, not dropped), and the subscriber got exactly the
	# GETs of the direct capture (numbered by its own programs: --renumbered).
	"$RIG_CHECK" "$out/direct-k.pcapng" "$out/double-k.log"
	"$LNETCAP" -r "$out/direct-k.pcapng" -w "$out/want-get.pcapng" 'type get'
	n=$("$LNETCAP" -r "$out/want-get.pcapng" -q | wc -l)
	[ "$n" -gt 0 ] && [ "$n" -lt "$total" ] || fail "'type get' selects $n of $total direct records"
	"$RIG_SAME" --renumbered "$out/want-get.pcapng" "$out/sub-get.pcapng" ||
		fail "the kernel-filtered subscriber did not get exactly the GETs"
	pings=$("$LNETCAP" -r "$out/sub-get.pcapng" -q 'nid 0@lo' | wc -l)
	grep -q "^lnetcapd: source: $((n + pings)) records, 0 dropped" "$out/daemon-k.err" ||
		fail "lnetcapd's source should have taken only the $n GETs (+ $pings self-check GETs): $(grep source: "$out/daemon-k.err")"
	f=$(sed -n 's/^lnetcapd: source: \([0-9]*\) messages filtered in the kernel$/\1/p' "$out/daemon-k.err")
	[ -n "$f" ] && [ "$f" -gt 0 ] || fail "lnetcapd reports no messages filtered in the kernel"
	sigint_ok
	;;
master)
	# Issue 31: Lustre master (2.17.55+ layout) without BTF.  (a) no
	# option: the exact built-in table by release, proven by the
	# self-check, and a capture rig_check finds exact; (b) a wrong table
	# (test-only override): stopped at start by the self-check, nothing
	# written.
	need_agent
	grep -q '^RIG_KMOD_MASTER=' "$RIG_DIR/rig.env" ||
		fail "the rig has no master build of the double (rerun rig.prepare)"
	guest_run 600 "$guest/master.sh" LNETCAP="$LNETCAP" RIG_ROUNDS=$rounds
	grep -q '^lustre: 2.17.57 from /sys/module/lnet/version$' "$out/list.txt" ||
		fail "-D does not take release 2.17.57 from the lnet module: $(cat "$out/list.txt")"
	grep -q '^attach mode: kprobe, offsets from built-in table for Lustre 2.17.55-2.17.57' \
		"$out/list.txt" || fail "-D does not choose the 2.17.55-2.17.57 table"
	grep -q '^self-check: passed' "$out/list.txt" || fail "-D: the self-check did not pass"
	grep -q 'self-check passed' "$out/capture.err" || fail "the capture's self-check did not pass"
	"$RIG_CHECK" "$out/capture.pcapng" "$out/double.log"
	# Alone on the node, so no other lnetcap's ping either: the capture's
	# own self-check never reaches it (rig_check leaves such pings out).
	n=$("$LNETCAP" -r "$out/capture.pcapng" -q 'nid 0@lo' | wc -l)
	[ "$n" = 0 ] || fail "the self-check's own ping reached the capture ($n records on 0@lo)"
	# (b)
	grep -q '^self-check: FAILED: .*msg_hdr' "$out/wrong-list.txt" ||
		fail "-D with a wrong table does not report the failed self-check"
	grep -q '^rc=1$' "$out/wrong-list.txt" || fail "-D with a wrong table did not exit 1"
	[ "$(cat "$out/wrong.rc")" = 1 ] || fail "a capture with a wrong table exited $(cat "$out/wrong.rc"), not 1"
	grep -q '^lnetcap: self-check failed: the struct offsets in use (TEST-ONLY table of Lustre 2.17.0 (LNETCAP_TEST_ONLY_TABLE)) do not match the running lnet module: in .*: expected .*, read .*; nothing was captured$' \
		"$out/wrong.err" || fail "no self-check message naming the field: $(cat "$out/wrong.err")"
	[ "$(grep -c . "$out/wrong.err")" -le 2 ] || fail "more than the message and its hint: $(cat "$out/wrong.err")"
	[ ! -e "$out/wrong.pcapng" ] || fail "a capture with a wrong table wrote $out/wrong.pcapng"
	[ ! -s "$out/wrong.out" ] || fail "a capture with a wrong table printed records"
	# Under TCG, loading the programs alone takes seconds: the bound is
	# generous, what matters is that it stops before any record.
	[ "$(cat "$out/wrong.secs")" -le 90 ] || fail "the refusal took $(cat "$out/wrong.secs") s"
	# (c) an unknown release: a candidate table, used only once proven.
	c=$out/candidate-2.17.60.txt
	grep -q '^attach mode: kprobe, offsets from candidate table of Lustre 2.17.55-2.17.57 for unknown release 2.17.60' "$c" &&
		grep -q '^self-check: passed' "$c" && grep -q '^rc=0$' "$c" ||
		fail "the candidate table for 2.17.60 was not proven: $(cat "$c")"
	c=$out/candidate-2.16.2.txt
	grep -q '^attach mode: kprobe, offsets from candidate table of Lustre 2.15.0-2.17.54 for unknown release 2.16.2' "$c" &&
		grep -q '^self-check: FAILED: ' "$c" && grep -q '^rc=1$' "$c" ||
		fail "the wrong candidate table for 2.16.2 was not refused: $(cat "$c")"
	echo "master layout without BTF: exact capture, wrong table refused at start, candidates proven or refused: ok"
	;;
smoke-btf | smoke-nobtf)
	guest_run 300 "$guest/smoke.sh" RIG_VARIANT="${case_#smoke-}"
	;;
kfunc)
	[ -n "${KFUNC_SELFTEST:-}" ] && [ -x "$KFUNC_SELFTEST" ] ||
		skip "kfunc_selftest not built (needs clang and libbpf-dev)"
	guest_run 300 "$guest/kfunc.sh" KFUNC_SELFTEST="$KFUNC_SELFTEST" KFUNC_OBJ="$KFUNC_OBJ"
	python3 "$src/tests/rig/kfunc/check_kfunc.py" "$out/kfunc.txt" "$out/double.log"
	;;
fentry)
	need_agent
	guest_run 600 "$guest/capture.sh" LNETCAP="$LNETCAP" RIG_VARIANT=btf \
		RIG_ATTACH=fentry RIG_ROUNDS=$rounds RIG_DROPS=1 RIG_BENCH=4000
	grep -q '^NI 1: 0@lo' "$out/list.txt" && grep -q '^NI 2: 192.168.1.10@tcp' "$out/list.txt" ||
		fail "lnetcap -D did not list the double's NIs"
	grep -q 'attach mode: fentry' "$out/list.txt" || fail "-D does not report fentry"
	grep -q 'payload pages read through the direct map' "$out/capture.err" ||
		fail "the capture does not read payload pages through the direct map"
	"$RIG_CHECK" "$out/capture.pcapng" "$out/double.log"
	rdma_ok
	rsp_timeout_ok
	reqbuf_ok
	nocap_ok
	getforce_ok
	ipv6_ok
	health_text_ok
	sigint_ok
	;;
drops)
	# Checks the tiny-ring run made by the fentry case.
	f=$RIG_RUN/fentry
	[ -s "$f/drops.pcapng" ] || skip "no drops capture (rig.capture.fentry did not run)"
	cat "$f/drops.err"
	[ ! -s "$f/sigint.txt" ] ||
		fail "$(cat "$f/sigint.txt"): killed, so its drop statistics were never written"
	"$RIG_CHECK" --expect-drops "$f/drops.pcapng" "$f/drops.log"
	;;
kprobe)
	need_agent
	guest_run 600 "$guest/capture.sh" LNETCAP="$LNETCAP" RIG_VARIANT=nobtf \
		RIG_ATTACH=kprobe RIG_ROUNDS=$rounds RIG_BENCH=4000
	grep -q 'attach mode: kprobe' "$out/list.txt" || fail "-D does not report kprobe"
	grep -q 'payload pages read through the direct map' "$out/capture.err" ||
		fail "the capture does not read payload pages through the direct map"
	"$RIG_CHECK" "$out/capture.pcapng" "$out/double.log"
	rdma_ok
	rsp_timeout_ok
	reqbuf_ok
	nocap_ok
	getforce_ok
	ipv6_ok
	health_text_ok
	sigint_ok
	;;
top)
	# lnetcap --top on a live eBPF capture (guest/top.sh): its last block,
	# the whole run, against --summary of a capture of the same records.
	need_agent
	guest_run 600 "$guest/top.sh" LNETCAP="$LNETCAP" RIG_ROUNDS=$rounds
	[ ! -s "$out/sigint.txt" ] || fail "$(cat "$out/sigint.txt")"
	grep -q '^rig-top: done' "$out/guest.log" || fail "top.sh did not finish"
	n=$("$LNETCAP" -r "$out/top.pcapng" 2>/dev/null | wc -l)
	[ "$n" = $((8 * rounds)) ] || fail "top.pcapng holds $n records, expected $((8 * rounds))"
	grep -q '^--- lnetcap top: total' "$out/top.txt" || fail "--top printed no total block"
	"$LNETCAP" -r "$out/top.pcapng" --summary=json >"$out/summary.json" 2>/dev/null ||
		fail "--summary=json of top.pcapng failed"
	"$LNETCAP" -r "$out/top.pcapng" --summary >"$out/summary.txt" 2>/dev/null ||
		fail "--summary of top.pcapng failed"
	python3 "$src/tests/top/check_top.py" "$out/top.txt" "$out/summary.json" "$out/summary.txt" \
		opcodes clients targets ||
		fail "the live --top's total differs from --summary of the same records"
	;;
assert)
	# lnetcap --assert ... -- COMMAND on real kernel traffic: one assertion
	# that holds, one that fails, one failing command (tests/reports).
	need_agent
	guest_run 600 "$src/tests/reports/rig-assert.sh" LNETCAP="$LNETCAP"
	grep -q '^rig-assert: all passed' "$out/guest.log" || fail "rig-assert.sh did not finish"
	;;
no_lnet)
	need_agent
	guest_run 300 "$guest/no_lnet.sh" LNETCAP="$LNETCAP"
	;;
*)
	echo "rig-test.sh: unknown case $case_" >&2
	exit 2
	;;
esac
echo "PASS: rig $case_"
