#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# groups_test.sh BUILD_DIR SOURCE_DIR CASE - lnetcapd's consumer groups
# (docs/DAEMON.md, "Consumer groups") end to end: a real daemon replays the
# bundled sample to the members of one group, and what the members write
# is compared, record for record (tests/tools/pcap_dump lines, sorted),
# with what `lnetcap -r` writes for the same filter: every record once,
# none missing, none twice, each RPC's request, reply and bulk with one
# member (the bulk linked to its RPC in that member's file as in the
# direct capture's).
set -uo pipefail
build=$1 src=$2 case=$3
TEST_CASE="groups.$case"
. "$src/tests/support/testlib.sh"
lnetcap=$build/capture/lnetcap
lnetcapd=$build/capture/lnetcapd
pcap_dump=$build/tests/pcap_dump
# Two nodes' captures of a Lustre 2.17 file system merged: 50 OST_WRITE
# and 2 OST_READ with their bulk GETs, PUTs, REPLYs and ACKs (the REPLY of
# a bulk GET names no match bits: only its GET tells its RPC).
sample=$src/samples/lustre-merged-2node.pcapng
export TZ=UTC LC_ALL=C
need_file "$sample" "$lnetcapd" "$pcap_dump"
tmp=$(mktemp -d /tmp/lnetcapd-groups.XXXXXX)
pids=()
on_exit 'for p in "${pids[@]}"; do kill -CONT "$p"; kill -KILL "$p"; done; wait; [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"'
on_fail 'for f in "$tmp"/*.log "$tmp"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done'

# The filter every case uses: most of the sample, not all of it, so the
# daemon's filter is part of what is checked.
filter='not type ack'
. "$src/tests/daemon/packets-lib.sh"
uri() { echo "ipc://$tmp/d.sock"; }
# start_daemon ARGS...: lnetcapd replaying the sample on $(uri), log d.log.
start_daemon() {
	"$lnetcapd" -r "$sample" --listen "$(uri)" --group "$(id -gn)" "$@" 2>"$tmp/d.log" &
	d_pid=$!
	pids+=($d_pid)
	wait_for_socket "$tmp/d.sock" 30
}
# start_members N: N members of group "split" writing m1.pcapng..mN.pcapng.
start_members() {
	local i
	members=()
	for ((i = 1; i <= $1; i++)); do
		"$lnetcap" --from "$(uri)" --consumer-group split -w "$tmp/m$i.pcapng" "$filter" 2>"$tmp/m$i.err" &
		members+=($!)
		pids+=($!)
	done
}
# wait_members: every member exits 0.
wait_members() {
	local i rc
	for i in "${!members[@]}"; do
		wait_for_exit "${members[$i]}" 60
		wait "${members[$i]}"
		rc=$?
		expect_eq "exit status of member $((i + 1)) ($(tail -2 "$tmp/m$((i + 1)).err" | tr '\n' ' '))" "$rc" 0
	done
}
# union_equals_direct N: the N members' records together are the direct
# capture's, as multisets (none missing, none twice).
union_equals_direct() {
	local i
	"$lnetcap" -r "$sample" -w "$tmp/direct.pcapng" "$filter" 2>/dev/null || fail "lnetcap -r failed"
	packets "$tmp/direct.pcapng" | sort >"$tmp/want.txt"
	for ((i = 1; i <= $1; i++)); do packets "$tmp/m$i.pcapng"; done | sort >"$tmp/union.txt"
	[ -s "$tmp/want.txt" ] || fail "the direct capture has no records"
	check "the $1 members' records together equal the direct capture's ($(wc -l <"$tmp/union.txt") vs $(wc -l <"$tmp/want.txt"); twice: $(uniq -d "$tmp/union.txt" | wc -l); first difference: $(diff "$tmp/union.txt" "$tmp/want.txt" | head -3 | cut -c1-120))" \
		cmp -s "$tmp/union.txt" "$tmp/want.txt"
}
# rpc_keys FILE: "NID NID XID" of every record of FILE that names an XID,
# or that lnetcap links to its RPC's XID (bulk, its REPLY or ACK, a
# reply's ACK); the NIDs sorted, so a request and its reply give the same
# line.
rpc_keys() {
	"$lnetcap" -r "$1" -n 2>/dev/null |
		sed -nE 's/^[^ ]+ [^ ]+ [^ ]+ ([^ ]+) > ([^ ]+) .*: (bulk|reply ACK) of [^ ]+ xid (0x[0-9a-f]+)( .*|$)/\1 \2 \4/p; t
			s/^[^ ]+ [^ ]+ [^ ]+ ([^ ]+) > ([^ ]+) [^:]* xid (0x[0-9a-f]+)( .*|$)/\1 \2 \3/p' |
		awk '{ if ($1 > $2) { t = $1; $1 = $2; $2 = t } print }' | sort -u
}
# rpcs_stay_together MEMBER...: no RPC (NIDs and XID) has records at two
# of these members, and requests with their replies are among what was
# checked.
rpcs_stay_together() {
	local i
	for i; do rpc_keys "$tmp/m$i.pcapng" | sed "s/^/m$i /"; done >"$tmp/keys.txt"
	local split
	split=$(awk '{ k = $2 " " $3 " " $4; if (k in at && at[k] != $1) print k; at[k] = $1 }' "$tmp/keys.txt" | sort -u)
	check "every RPC's records are with one member (split: $(echo "$split" | head -3 | tr '\n' ';'))" test -z "$split"
	local pairs
	pairs=$("$lnetcap" -r "$sample" -n "$filter" 2>/dev/null | grep -cE ' (request|reply)( |$)')
	check "the sample has requests and replies to keep together ($pairs)" test "$pairs" -ge 20
}
# bulk_xids FILE: the RPC's XID of every bulk record (and reply ACK)
# that lnetcap links to its RPC in FILE alone, one line each.
bulk_xids() {
	"$lnetcap" -r "$1" -n 2>/dev/null | sed -nE 's/.*: (bulk|reply ACK) of [^ ]+ xid (0x[0-9a-f]+)( .*|$)/\2/p'
}
# bulk_stays_with_rpc [-x XIDS_FILE] MEMBER...: every bulk record the direct
# capture links to its RPC is linked in the file of the member it went to
# (so its request went there too), but those of the RPCs in XIDS_FILE
# (a leaver's RPCs: its share moved mid-RPC).
bulk_stays_with_rpc() {
	local skip=/dev/null want got i
	if [ "$1" = -x ]; then skip=$2; shift 2; fi
	want=$(bulk_xids "$tmp/direct.pcapng" | grep -cvxF -f "$skip" || true)
	check "the sample has bulk to keep with its RPCs ($want records)" test "$want" -ge 100
	got=$(for i; do bulk_xids "$tmp/m$i.pcapng"; done | grep -cvxF -f "$skip" || true)
	expect_eq "bulk records linked to their RPC in the members' files (the direct capture's: $want)" "$got" "$want"
}
# received N: the daemon's --status says N records are through.
received() {
	timeout 10 "$lnetcap" --from "$(uri)" --status >"$tmp/status.txt" 2>&1 &&
		[ "$(sed -n 's/^  records received: *//p' "$tmp/status.txt")" -ge "$1" ]
}
# shares N: every member got some records (the sample's RPCs spread).
shares() {
	local i n
	for ((i = 1; i <= $1; i++)); do
		n=$(packets "$tmp/m$i.pcapng" | wc -l)
		check "member $i of $1 got a share ($n records)" test "$n" -gt 0
	done
}

case $case in
members-1|members-3|members-8)
	n=${case#members-}
	start_daemon --wait-subscribers "$n"
	start_members "$n"
	wait_members
	union_equals_direct "$n"
	rpcs_stay_together $(seq "$n")
	bulk_stays_with_rpc $(seq "$n")
	shares "$n"
	contains "$tmp/d.log" "of consumer group 'split'"
	wait "$d_pid"
	expect_eq "lnetcapd's exit status" "$?" 0 ;;
bulk-chunks)
	# No bundled sample has a multi-chunk bulk or a resend with new match
	# bits: tests/tools/make_bulk_capture writes a server's capture of four
	# clients' 4 MiB OST_WRITEs and OST_READs (chunks on XID .. XID+3) and
	# resent OST_WRITEs (bulk on a new block, XID + 0x8000, and the reply on
	# its pb_mbits, XID + 0x8001), interleaved.
	need_file "$build/tests/make_bulk_capture"
	"$build/tests/make_bulk_capture" "$tmp/bulk.pcapng" || fail "make_bulk_capture failed"
	sample=$tmp/bulk.pcapng
	start_daemon --wait-subscribers 3
	start_members 3
	wait_members
	union_equals_direct 3
	rpcs_stay_together 1 2 3
	bulk_stays_with_rpc 1 2 3
	# Each resent OST_WRITE's reply (on pb_mbits) is with its request.
	checked=0
	for i in 1 2 3; do
		"$lnetcap" -r "$tmp/m$i.pcapng" -n 2>/dev/null >"$tmp/m$i.txt"
		while read -r xid; do
			[ $((xid & 0xffff)) -ge $((0x8000)) ] || continue
			request=$(printf '0x%x' $((xid - 0x8001)))
			check "the reply on pb_mbits $xid is with its request $request (member $i)" \
				grep -qE " xid $request len [0-9]+: OST_WRITE request" "$tmp/m$i.txt"
			checked=$((checked + 1))
		done < <(sed -nE 's/.* OSC_REPLY xid (0x[0-9a-f]+) .*: OST_WRITE reply.*/\1/p' "$tmp/m$i.txt")
	done
	expect_eq "replies on pb_mbits checked" "$checked" 32
	shares 3
	wait "$d_pid"
	expect_eq "lnetcapd's exit status" "$?" 0 ;;
member-leaves)
	# Three members; the first stops (SIGINT) mid-stream.  It reads until
	# the daemon's END, so what it was given is in its file; the records
	# after its leave go to the other two; together they are still the
	# direct capture, record for record.  It is stopped (SIGSTOP) for a
	# while before, so that records are queued for it when it says BYE.
	start_daemon --wait-subscribers 3 --rate 100
	start_members 3
	wait_for 30 "the replay to be 120 records through" received 120
	kill -STOP "${members[0]}"
	wait_for 30 "the replay to be 240 records through" received 240
	kill -INT "${members[0]}"
	kill -CONT "${members[0]}"
	wait_members
	union_equals_direct 3
	# An RPC in flight when the leaver left has its request there and its
	# reply with another member (the leaver is gone); the members that
	# stayed kept their keys, so between them no RPC is split.
	rpcs_stay_together 2 3
	# Bulk with its RPC too, but for the RPCs the leaver had a part of.
	rpc_keys "$tmp/m1.pcapng" | cut -d' ' -f3 >"$tmp/leaver-xids.txt"
	bulk_stays_with_rpc -x "$tmp/leaver-xids.txt" 1 2 3
	# The leave point: the leaver's last record, in the direct capture's order.
	last=$(packets "$tmp/m1.pcapng" | tail -1)
	[ -n "$last" ] || fail "the leaver got no records before it left"
	at=$(packets "$tmp/direct.pcapng" | grep -nxF -- "$last" | tail -1 | cut -d: -f1)
	total=$(wc -l <"$tmp/want.txt")
	check "the leaver left mid-stream (its last record is $at of $total)" test "${at:-0}" -ge 20 -a "${at:-0}" -le $((total - 15))
	leaver=$(packets "$tmp/m1.pcapng" | wc -l)
	check "before the leave, the leaver got its share ($leaver of the first $at)" test "$leaver" -ge $((at / 8))
	# After the leave point, the two others share everything.
	packets "$tmp/direct.pcapng" | tail -n +$((at + 1)) | sort >"$tmp/after.txt"
	for i in 2 3; do packets "$tmp/m$i.pcapng"; done | sort >"$tmp/others.txt"
	check "every record after the leave is with the other two ($(comm -23 "$tmp/after.txt" "$tmp/others.txt" | wc -l) not)" \
		test -z "$(comm -23 "$tmp/after.txt" "$tmp/others.txt")"
	for i in 2 3; do
		n=$(packets "$tmp/m$i.pcapng" | grep -cxF -f "$tmp/after.txt")
		check "member $i took records after the leave ($n)" test "$n" -gt 0
	done
	# The daemon counted what it sent the leaver: all of it reached the file.
	sent=$(sed -nE "s/.*\) left: ([0-9]+) matched, ([0-9]+) sent, ([0-9]+) dropped \(member of consumer group 'split'\).*/\2/p" "$tmp/d.log")
	expect_eq "records the daemon sent the leaver, and its file's" "$sent" "$leaver"
	wait "$d_pid"
	expect_eq "lnetcapd's exit status" "$?" 0 ;;
member-killed)
	# Three members; the first is killed (SIGKILL) mid-stream: no BYE, its
	# file unfinished.  What the daemon had gathered for it and not yet
	# handed to libzmq goes to the other two; what it had been sent is
	# counted in the daemon's log and --status as sent to a member gone
	# without BYE, unconfirmed.  The other two's files and that count
	# account for every record of the direct capture, none twice.
	start_daemon --wait-subscribers 3 --rate 100
	start_members 3
	wait_for 30 "the replay to be 150 records through" received 150
	kill -KILL "${members[0]}"
	{ wait "${members[0]}"; } 2>/dev/null  # bash's "Killed" line: expected
	wait_for_log "$tmp/d.log" "gone without BYE" 30
	timeout 10 "$lnetcap" --from "$(uri)" --status >"$tmp/status-after.txt" 2>&1 ||
		fail "lnetcap --status failed: $(tail -2 "$tmp/status-after.txt")"
	sent=$(sed -nE "s/.*\) disconnected: ([0-9]+) matched, ([0-9]+) sent, ([0-9]+) dropped.* \(member of consumer group 'split'; gone without BYE.*/\2/p" "$tmp/d.log")
	passed=$(sed -nE "s/.*\) disconnected: .* dropped, ([0-9]+) passed on to the other members.*/\1/p" "$tmp/d.log")
	[ -n "$sent" ] || fail "the daemon's log has no departure of the killed member: $(grep split "$tmp/d.log" | tail -3)"
	shows() { check "--status shows $1" grep -qE "$1" "$tmp/status-after.txt"; }
	shows "consumer groups: +1 \(2 members\), 1 of them yours"
	shows "group 'split': +2 members; 1 gone \($sent sent, 0 dropped\), 1 of them without BYE \($sent records sent to them unconfirmed, ${passed:-0} gathered for them passed on\)"
	shows "group 'split' member 2: +subscriber [0-9]+: [0-9]+ sent, 0 dropped"
	shows "group bulk links: +[0-9]+ requests, [0-9]+ transfers held \(at most 16384 each\); 0 given up"
	members=("${members[@]:1}")
	wait_members
	"$lnetcap" -r "$sample" -w "$tmp/direct.pcapng" "$filter" 2>/dev/null || fail "lnetcap -r failed"
	packets "$tmp/direct.pcapng" | sort >"$tmp/want.txt"
	for i in 2 3; do packets "$tmp/m$i.pcapng"; done | sort >"$tmp/others.txt"
	check "none of the other two's records is twice ($(uniq -d "$tmp/others.txt" | wc -l))" test -z "$(uniq -d "$tmp/others.txt")"
	check "all the other two's records are the direct capture's" test -z "$(comm -13 "$tmp/want.txt" "$tmp/others.txt")"
	want=$(wc -l <"$tmp/want.txt")
	others=$(wc -l <"$tmp/others.txt")
	expect_eq "the other two's records ($others) and those sent to the killed one (${passed:-0} gathered for it passed on)" \
		$((others + sent)) "$want"
	# What the killed member wrote before it died, if anything, is of its
	# own share: none of it is with the others.
	packets "$tmp/m1.pcapng" 2>/dev/null | sort >"$tmp/killed.txt" || true
	check "nothing the killed member wrote is with the others too" test -z "$(comm -12 "$tmp/killed.txt" "$tmp/others.txt")"
	wait "$d_pid"
	expect_eq "lnetcapd's exit status" "$?" 0 ;;
refusals)
	# A member with another filter is refused, naming the group's filter;
	# a bad name is refused by lnetcap itself; the group goes on.
	start_daemon --wait-subscribers 1 --rate 60
	start_members 1
	wait_for_log "$tmp/d.log" "of consumer group 'split'" 30
	timeout 30 "$lnetcap" --from "$(uri)" --consumer-group split -q 'type get' >"$tmp/other.out" 2>"$tmp/other.err"
	expect_eq "exit status of a member with another filter" "$?" 1
	contains "$tmp/other.err" "use the filter 'not type ack': a member must use the same filter"
	timeout 30 "$lnetcap" --from "$(uri)" --consumer-group 'a b' -q >"$tmp/bad.out" 2>"$tmp/bad.err"
	expect_eq "exit status with a bad group name" "$?" 1
	contains "$tmp/bad.err" "letters, digits"
	timeout 30 "$lnetcap" --consumer-group split -r "$sample" >"$tmp/nofrom.out" 2>"$tmp/nofrom.err"
	expect_eq "exit status of --consumer-group without --from" "$?" 1
	contains "$tmp/nofrom.err" "give --from URI"
	wait_members
	union_equals_direct 1 ;;
*) fail "unknown case $case" ;;
esac
