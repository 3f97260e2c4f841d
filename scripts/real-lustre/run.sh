#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run.sh [options] LUSTRE_GIT TAG
#
# lnetcap against real Lustre: builds TAG of LUSTRE_GIT (a lustre-release
# git dir) for the rig's kernel, boots two QEMU guests of the rig joined by
# a recorded socket link, runs LNet traffic (lnetctl/lctl ping,
# lnet_selftest brw + ping, a client mount attempt) over socklnd or
# o2iblnd (soft-RoCE) while lnetcap captures on both, started with no
# option as a user would, and reports per attach mode and node: messages
# against the wire (socklnd: converted by `lnetcap -r`; o2iblnd: the RoCEv2
# packets decoded by tests/real-lustre/roce_wire.py) and
# LNet's counters, wrong header fields, payload bytes, PtlRPC opcode/XID/
# status/jobid (tests/real-lustre/lustre_compare).  Opt-in: not part of
# ctest (a Lustre build takes ~40 min on 2 cores, a run 5-10 min).
# docs/REAL-LUSTRE.md has the details and the last results.
#
# Options:
#   -w WORK    work dir, outside the repository (default /var/tmp/lnetcap-real-lustre)
#   -B BUILD   lnetcap build dir with lnetcap and lustre_compare (default <repo>/build)
#   -L LND     tcp (ksocklnd, default) or o2ib (ko2iblnd over soft-RoCE:
#              rdma_rxe on the guests' virtio NIC; needs a Lustre built with
#              o2ib, which build-lustre.sh does against Debian's RDMA stack)
#   -m MODES   attach modes to run: kprobe (modules without BTF, as real
#              clusters have) and/or fentry (module BTF) (default "kprobe fentry")
#   -t TESTS   workload on node a: ping lst mount faults (default ping lst
#              mount; faults: LNet drop and delay rules, checked against the
#              capture's drop-rule DROPs and queue times)
#   -s SECS    lnet_selftest duration (default 15)
#   -p         also measure lnet_selftest throughput with and without a
#              capture (docs/PERFORMANCE.md), one more boot per mode
#   -S KIND    none (default: LNet traffic only, client build) or zfs: a
#              file system (server build on OpenZFS built from source,
#              MGS+MDT+OST on node b, node a mounts it twice and runs
#              guest/fs-workload.sh; socklnd, or o2iblnd with -L o2ib),
#              checked also against
#              Lustre's rpctrace log (tests/real-lustre/rpctrace_compare,
#              also lnetcap's server time against its "total"), with the
#              --assert examples (guest/fs-asserts.sh), and for leaks of
#              `--anonymize` (tests/anon/leak_test.sh on each capture);
#              WORK defaults to /var/tmp/lnetcap-real-lustre-server
#   -Z ZFS_GIT a git dir of openzfs/zfs, for the first -S zfs build
#              (ZFS_TAG, default zfs-2.1.16; a finished build is reused)
#   -T TOPO    pair (default: the two nodes above) or router: client a on
#              tcp, router r on tcp and tcp1 with scarce router buffers,
#              node c on tcp1; ping, lnet_selftest and a mount attempt from
#              a to c across r, both links recorded (topology-router.sh);
#              (with -S zfs: c serves a ZFS-backed file system that a
#              mounts across r and runs guest/fs-workload.sh on);
#              or multirail: two nodes with two NICs each on one net,
#              faults on one interface (topology-multirail.sh)
#   -6         LNet over IPv6: the guests' NIC also gets fd77::1/64 (a) and
#              fd77::2/64 (b), LNet is configured with large NIDs
#              (`lnetctl lnet configure --all --large`, Lustre 2.16+), so
#              socklnd takes the IPv6 address and its NIs are fd77::1@tcp
#              and fd77::2@tcp: HELLO V4 and 96-byte headers on the wire
#              (-L tcp, -T pair, no -S)
#   -P PORT    first TCP port on 127.0.0.1 for the guests' links (default
#              4771; each boot takes one port per link)
#   -r RUNDIR  no build and no boot: report again on the files of an
#              earlier run (WORK/runs/<time>), e.g. after changing lnetcap -r
#
# Output: WORK/runs/<time>/<mode>/{a,b}/ (guest files), wire.pcap(ng),
# report.txt; the report is printed.  Exit status 0 when every check of
# every mode passed, 1 when one failed, 2 on bad usage or setup failure.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$SRC/scripts/real-lustre
WORK=/var/tmp/lnetcap-real-lustre BUILD=$SRC/build MODES="kprobe fentry"
TESTS="ping lst mount" LST_SECS=15 PERF=0 SERVER=none PORT=4771 REREPORT= LND=tcp TOPO=pair
usage() { sed -n '4,/^set -e/{/^#/p}' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
WORK_SET=0 ZFS_GIT= ZFS_TAG=${ZFS_TAG:-zfs-2.1.16} IPV6=0
while getopts 'w:B:L:m:t:s:pS:Z:T:P:r:6h' o; do
	case $o in
	w) WORK=$OPTARG WORK_SET=1 ;;
	B) BUILD=$OPTARG ;;
	L) LND=$OPTARG ;;
	m) MODES=$OPTARG ;;
	t) TESTS=$OPTARG ;;
	s) LST_SECS=$OPTARG ;;
	p) PERF=1 ;;
	S) SERVER=$OPTARG ;;
	Z) ZFS_GIT=$OPTARG ;;
	T) TOPO=$OPTARG ;;
	P) PORT=$OPTARG ;;
	r) REREPORT=$OPTARG ;;
	6) IPV6=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
die() { echo "real-lustre: $*" >&2; exit 2; }
if [ -n "$REREPORT" ]; then
	[ -d "$REREPORT" ] || die "-r $REREPORT: no such run directory"
	set -- none "$(sed -n 's/^real-lustre: Lustre \([^,]*\),.*/\1/p' "$REREPORT/report.txt" 2>/dev/null)"
	MODES=
	for m in kprobe fentry; do [ -d "$REREPORT/$m" ] && MODES+="$m "; done
	LND=$(sed -n 's/^real-lustre: .*, LND \([a-z0-9]*\),.*/\1/p' "$REREPORT/report.txt" 2>/dev/null)
	LND=${LND:-tcp}
	grep -q '^real-lustre: .*, server zfs' "$REREPORT/report.txt" 2>/dev/null && SERVER=zfs
	TOPO=$(sed -n 's/^real-lustre: .*, topology \([a-z]*\).*/\1/p' "$REREPORT/report.txt" 2>/dev/null)
	TOPO=${TOPO:-pair}
	grep -q '^real-lustre: .*, IPv6' "$REREPORT/report.txt" 2>/dev/null && IPV6=1
fi
[ $# = 2 ] || usage
LUSTRE_GIT=$1 TAG=$2
case $SERVER in
none) ;;
zfs)
	[ "$WORK_SET" = 1 ] || WORK=/var/tmp/lnetcap-real-lustre-server
	TESTS=fs
	;;
*) die "-S $SERVER: unknown server kind (none, zfs)" ;;
esac
case $TOPO in
pair) ;;
router | multirail)
	[ "$SERVER" = none ] || [ "$TOPO" = router ] || die "-T $TOPO runs LNet traffic only (no -S)"
	[ "$LND" = tcp ] || die "-T $TOPO runs over socklnd only (-L tcp)"
	# shellcheck source=/dev/null
	. "$HERE/topology-$TOPO.sh"
	;;
*) die "-T $TOPO: unknown topology (pair, router, multirail)" ;;
esac
# The nodes' addresses: their NIDs are IP@LND.
IP_A=10.77.0.1 IP_B=10.77.0.2
if [ "$IPV6" = 1 ]; then
	[ "$LND" = tcp ] && [ "$TOPO" = pair ] && [ "$SERVER" = none ] ||
		die "-6 runs LNet traffic over socklnd between two nodes only (-L tcp, -T pair, no -S)"
	IP_A=fd77::1 IP_B=fd77::2
fi
for m in $MODES; do
	case $m in kprobe | fentry) ;; *) die "-m: unknown attach mode '$m' (kprobe, fentry)" ;; esac
done
case $LND in
tcp | socklnd | ksocklnd) LND=tcp ;;
o2ib | o2iblnd | ko2iblnd) LND=o2ib ;;
*) die "-L $LND: unknown LND (tcp for ksocklnd, o2ib for ko2iblnd over soft-RoCE)" ;;
esac
LNETCAP=$BUILD/capture/lnetcap
COMPARE=$BUILD/tests/real-lustre/lustre_compare
RPCTRACE=$BUILD/tests/real-lustre/rpctrace_compare
[ -x "$LNETCAP" ] && [ -x "$COMPARE" ] && [ -x "$RPCTRACE" ] ||
	die "$BUILD has no lnetcap, lustre_compare or rpctrace_compare: scripts/build.sh (or -B BUILD)"
case $WORK in "$SRC" | "$SRC"/*) die "-w $WORK is inside the repository; Lustre builds never go there" ;; esac
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
# v2_16_1 -> 2.16.1: what --lustre-version would be given when lnetcap
# cannot start on its own (the retry that keeps the rest of the run going).
LUSTRE_VERSION=$(echo "$TAG" | sed -n 's/^v\([0-9]*\)_\([0-9]*\)_\([0-9]*\).*/\1.\2.\3/p')

if [ -z "$REREPORT" ]; then
	zfs_work=()
	if [ "$SERVER" = zfs ]; then
		if [ "$(cat "$WORK/zfs-built" 2>/dev/null)" != "$ZFS_TAG" ]; then
			[ -n "$ZFS_GIT" ] || die "-S zfs: no ZFS build of $ZFS_TAG in $WORK yet: give -Z ZFS_GIT (fetch openzfs/zfs)"
			echo "real-lustre: building ZFS $ZFS_TAG (log: $WORK/zfs-build.log)"
			"$HERE/build-zfs.sh" "$ZFS_GIT" "$ZFS_TAG" "$WORK" >"$WORK/zfs-build.log" 2>&1 ||
				{ tail -20 "$WORK/zfs-build.log" >&2; die "the ZFS build failed (log: $WORK/zfs-build.log)"; }
		fi
		zfs_work=(ZFS_WORK="$WORK")
	fi
	echo "real-lustre: building $TAG (log: $WORK/build.log)"
	env "${zfs_work[@]}" "$HERE/build-lustre.sh" "$LUSTRE_GIT" "$TAG" "$WORK" >"$WORK/build.log" 2>&1 ||
		{ tail -20 "$WORK/build.log" >&2; die "the Lustre build failed (log: $WORK/build.log)"; }
	"$HERE/prepare.sh" "$WORK" "$SRC" >"$WORK/prepare.log" 2>&1 ||
		{ tail -20 "$WORK/prepare.log" >&2; die "preparing the rig failed (log: $WORK/prepare.log)"; }
	RUNS=$WORK/runs/$(date -u +%Y%m%dT%H%M%S)
else
	RUNS=$(cd "$REREPORT" && pwd)
fi
mkdir -p "$RUNS"
# The guests run lnetcap from this run's own copy: they execute it over the
# shared file system, and a BUILD rebuilt (or copied over) during the run
# would change the program under a running capture (seen: a router's
# closing counts printed from a half-replaced binary).
if [ -z "$REREPORT" ]; then
	cp "$LNETCAP" "$RUNS/lnetcap" || die "cannot copy $LNETCAP into $RUNS"
	LNETCAP=$RUNS/lnetcap
fi
REPORT=$RUNS/report.txt
commit=$(git -C "$SRC" describe --always --dirty 2>/dev/null || echo unknown)
echo "real-lustre: Lustre $TAG, LND $LND, lnetcap $commit, tests: $TESTS$([ "$SERVER" = zfs ] && echo ", server zfs")$([ "$TOPO" != pair ] && echo ", topology $TOPO")$([ "$IPV6" = 1 ] && echo ", IPv6")" >"$REPORT"

# boot_pair DIR KMODS GUEST_SCRIPT [VAR=VALUE...]: node b listens, node a
# connects; a's link is recorded in DIR/wire.pcap unless NO_WIRE=1.
boot_pair() {
	local dir=$1 kmods=$2 script=$3 rc=0
	shift 3
	local common=(LR_WORK="$WORK" KMODS="$kmods" LNETCAP="$LNETCAP"
		LUSTRE_VERSION="$LUSTRE_VERSION" TESTS="$TESTS" LST_SECS="$LST_SECS" LND="$LND"
		LNET_IPV6="$IPV6" "$@")
	local dump=(-w "$dir/wire.pcap")
	[ "${NO_WIRE:-0}" = 1 ] && dump=()
	nice -n 10 "$SRC/scripts/rig/run-guest.sh" -t 1800 -m "${MEM_B:-2048}" \
		-n "socket,listen=127.0.0.1:$PORT" -a 52:54:00:4c:00:02 \
		"$WORK/rig" "$dir/b" "$script" ROLE=b PEER_OUT="$dir/a" "${common[@]}" \
		>"$dir/b.run.log" 2>&1 &
	local pb=$!
	sleep 3
	nice -n 10 "$SRC/scripts/rig/run-guest.sh" -t 1800 -m 2048 \
		-n "socket,connect=127.0.0.1:$PORT" -a 52:54:00:4c:00:01 "${dump[@]}" \
		"$WORK/rig" "$dir/a" "$script" ROLE=a PEER_OUT="$dir/b" "${common[@]}" \
		>"$dir/a.run.log" 2>&1 || rc=$?
	# a is done (or dead): b stops waiting on a's "done"
	touch "$dir/a/done"
	wait "$pb" || true
	return "$rc"
}

# counter NAME FILE: one of LNet's global counters from `lnetctl stats show`.
counter() { sed -n "s/^ *$1: *\([0-9]*\)$/\1/p" "$2" | head -1; }

# faults_report PREFIX GUESTDIR NODE: with the "faults" workload, LNet's
# drop and delay rules against the capture (node a): the drop rule's
# dropped count = drop-rule DROPs; the delay rule's delayed count = sends
# to b held at least 1 s (queue time).  Returns 1 when they differ.
faults_report() {
	local p=$1 g=$2 node=$3 f=$2/faults.txt
	[ "$node" = a ] && [ -s "$f" ] || return 0
	# "src->dst (1/2 | 0) ptl 0, msg ffffffff, DROPPED/COUNT, PUT ..."
	local rule_drop rule_delay cap_drop cap_delay ok=0
	rule_drop=$(sed -n 's/^.*->.*(1\/[0-9]* | [0-9]*) ptl [^,]*, msg [^,]*, \([0-9]*\)\/.*/\1/p' "$f" | head -1)
	rule_delay=$(sed -n 's/^.*->.*latency [0-9]*) ptl [^,]*, msg [^,]*, \([0-9]*\)\/.*/\1/p' "$f" | head -1)
	cap_drop=$("$LNETCAP" -r "$g/$node.pcapng" -q 'drop drop-rule' 2>/dev/null | wc -l)
	cap_delay=$("$LNETCAP" -r "$g/$node.pcapng" -q "dir send and dst nid $IP_B@$LND and queue >= 1s" 2>/dev/null | wc -l)
	[ "${rule_drop:-x}" = "$cap_drop" ] && [ "${rule_delay:-x}" = "$cap_delay" ] || ok=1
	echo "$p faults: drop rule dropped=${rule_drop:-?} capture drop-rule=$cap_drop;" \
		"delay rule delayed=${rule_delay:-?} capture queue>=1s=$cap_delay" \
		"$([ "$ok" = 0 ] && echo ok || echo DIFFERENT)"
	echo "$p faults: pings $(grep -c '^rc=0' "$f")/$(grep -c '^rc=' "$f") answered;" \
		"max queue $("$LNETCAP" -r "$g/$node.pcapng" --summary 2>/dev/null |
			sed -n '/^LNet queue time by NI/{n;p}' | awk '{print $NF}')"
	return "$ok"
}

# replies_failed VTEXT: received GETs whose REPLY's last attempt failed, in
# `lnetcap -r -v` text.  The GET and its REPLY are one lnet_msg, and
# lnet_msg_decommit_rx returns before counting on a non-zero status
# (lnet/lnet/lib-msg.c, v2_16_1): LNet leaves such a GET out of recv_count.
# A REPLY's last attempt failed when its last record (SEND, resend or
# outcome DROP, tied by "[resend|outcome of seq S cpu C]") is a DROP.
replies_failed() {
	awk '
		function own(   a) {
			if (!match($0, /\{[a-z_]+ ni [^ ]+ peer [^ ]+ seq [0-9]+ cpu [0-9]+/)) return ""
			split(substr($0, RSTART, RLENGTH), a, " ")
			return "seq " a[7] " cpu " a[9]
		}
		$2 == "SEND" || $2 == "DROP" {
			k = ""
			if (match($0, /\[(resend|outcome) of seq [0-9]+ cpu [0-9]+/)) {
				k = substr($0, RSTART + 1, RLENGTH - 1); sub(/^(resend|outcome) of /, "", k)
			} else if ($2 == "SEND") k = own()
			if (k != "") { last[k] = $2; typ[k] = $3 }
		}
		END { for (k in last) if (last[k] == "DROP" && typ[k] == "REPLY") n++; print n + 0 }' "$1"
}

# sends_never_on_an_ni CAPTURE: not-sent DROPs without a local NI.  A
# message LNet held while it (re)discovered the peer, finalized with the
# discovery's error when that failed (lnet_peer_discovery_complete,
# lnet/lnet/peer.c), never had an NI: LNet counts it nowhere, not in
# drop_count (counted for sends only in lnet_post_send_locked, after an NI
# was chosen).
sends_never_on_an_ni() {
	"$LNETCAP" -r "$1" -q 'drop not-sent and ni none' 2>/dev/null | wc -l
}

# convert_links MODE DIR NAME...: each recorded link DIR/NAME.pcap (socklnd)
# converted by lnetcap into DIR/NAME.pcapng and printed into DIR/NAME.txt;
# DIR/tcp-fate.txt: what TCP did with the links' bytes (tcp_fate.py, for
# lustre_compare --tcp-fate: messages a node's TCP never acknowledged or
# left unread at a reset, connections reset under a sender).  Returns 1 when a link has no
# recording or does not convert.
convert_links() {
	local mode=$1 dir=$2 w bad=0 pairs=()
	shift 2
	for w in "$@"; do
		if [ -s "$dir/$w.pcap" ] && "$LNETCAP" -r "$dir/$w.pcap" -w "$dir/$w.pcapng" 2>"$dir/$w.err"; then
			"$LNETCAP" -r "$dir/$w.pcapng" >"$dir/$w.txt" 2>&1 || true
			pairs+=("$dir/$w.pcap" "$dir/$w.pcapng")
		else
			echo "$mode: no recording of link ${w#wire} ($dir/$w.err)"
			bad=1
		fi
	done
	rm -f "$dir/tcp-fate.txt"
	if [ "$bad" = 0 ] && ! python3 "$SRC/tests/real-lustre/tcp_fate.py" "${pairs[@]}" >"$dir/tcp-fate.txt" 2>"$dir/tcp-fate.err"; then
		echo "$mode: tcp_fate.py failed ($dir/tcp-fate.err)"
		rm -f "$dir/tcp-fate.txt"
		bad=1
	fi
	return "$bad"
}

# node_report MODE DIR NODE NID[,NID...] [WIRE...]: the lines of one node
# (its NIDs; the converted recordings of its links, default DIR/wire.pcapng);
# returns 1 on a failure.
node_report() {
	local mode=$1 dir=$2 node=$3 nid=$4 g=$2/$3 bad=0
	shift 4
	local wires=("$@")
	[ ${#wires[@]} -gt 0 ] || wires=("$dir/wire.pcapng")
	local p="$mode $node:"
	if [ ! -f "$g/start.txt" ]; then
		echo "$p no capture attempt (guest log: $g/guest.log)"
		return 1
	fi
	echo "$p $(head -1 "$g/start.txt") $(sed -n 2p "$g/start.txt" | sed 's/^ *//')"
	grep -q '^start=ok' "$g/start.txt" || bad=1
	sed -n 's/^retry=/retry=/p' "$g/start.txt" | sed "s/^/$p /"
	local desc
	desc=$(sed -n 's/^lnetcap: attach mode: //p' "$g/capture.err" | head -1)
	echo "$p attach=${desc%%,*} (expected $mode): ${desc#*, }"
	[ "${desc%%,*}" = "$mode" ] || bad=1
	echo "$p version: $(sed -n 's/^lnetcap: Lustre //p' "$g/capture.err" | head -1)" \
		"(lnet module: $(cat "$g/lnet-version.txt" 2>/dev/null))"
	[ -s "$g/$node.pcapng" ] || { echo "$p no capture file"; return 1; }
	"$LNETCAP" -r "$g/$node.pcapng" >"$dir/$node.txt" 2>&1 || true
	"$LNETCAP" -r "$g/$node.pcapng" --summary >"$dir/$node-summary.txt" 2>&1 || true
	local v rc=0
	local fate=()
	[ -f "$dir/tcp-fate.txt" ] && fate=(--tcp-fate "$dir/tcp-fate.txt")
	v=$("$COMPARE" "${fate[@]}" --local "$nid" "$g/$node.pcapng" "${wires[@]}" 2>&1) || rc=$?
	echo "$v" | sed "s/^/$p /"
	[ "$rc" = 0 ] || bad=1
	# LNet's counters over the capture window.  LNet counts a message as
	# sent or received only when it completed without error, and counts
	# what it dropped apart (lnet_drop_message in lnet_parse, and sends
	# dropped before the LND): a failed send is a SEND with a send-failed
	# outcome, a received GET/ACK LNet dropped a RECV with a drop outcome,
	# a received PUT/REPLY it dropped a DROP (docs/record-format.md).
	local k want have rdma_sent
	n() { "$LNETCAP" -r "$g/$node.pcapng" -q "$1" 2>/dev/null | wc -l; }
	# The REPLY of an RDMA GET we served (recorded at lnet_finalize, not
	# lnet_ni_send) is sent, but LNet counts that GET once, as received.
	rdma_sent=$("$LNETCAP" -r "$g/$node.pcapng" -v 'dir send and type reply' 2>/dev/null |
		grep -c '{lnet_finalize ' || true)
	echo "$p REPLYs: sent by RDMA $rdma_sent, sent as messages $(n 'dir send and type reply' |
		awk -v r="$rdma_sent" '{print $1 - r}'), received $(n 'dir recv and type reply')"
	"$LNETCAP" -r "$g/$node.pcapng" -v >"$dir/$node-v.txt" 2>&1 || true
	local -A rec=(
		[send]=$(($(n 'dir send') - $(n 'drop send-failed') - rdma_sent))
		[recv]=$(($(n 'dir recv') - $(n 'drop and (type get or type ack) and not drop send-failed and not drop not-sent') -
			$(replies_failed "$dir/$node-v.txt")))
		[drop]=$(($(n 'drop no-match or drop refused or drop parse-dropped or drop drop-rule or drop not-sent') -
			$(sends_never_on_an_ni "$g/$node.pcapng")))
	)
	# The guest reads the counters inside the capture window (2 s after the
	# start, just before the stop) and outside it (before the start, after
	# the stop).  On a quiet node the capture equals the inner difference;
	# a server keeps talking to itself across the window's edges, so there
	# the capture may hold a few more messages than the inner difference,
	# never more than the outer one.
	local outer
	for k in send recv drop; do
		want=$(($(counter "${k}_count" "$g/counters-after.txt") - $(counter "${k}_count" "$g/counters-before.txt")))
		have=${rec[$k]} outer=
		[ -s "$g/counters-outside-before.txt" ] && [ -s "$g/counters-outside-after.txt" ] &&
			outer=$(($(counter "${k}_count" "$g/counters-outside-after.txt") -
				$(counter "${k}_count" "$g/counters-outside-before.txt")))
		if [ "$want" = "$have" ]; then
			echo "$p counter ${k}_count=$want capture=$have ok"
		elif [ -n "$outer" ] && [ "$have" -gt "$want" ] && [ "$have" -le "$outer" ]; then
			echo "$p counter ${k}_count=$want capture=$have ok (between the counters inside and outside the capture window: $want..$outer)"
		else
			echo "$p counter ${k}_count=$want capture=$have DIFFERENT${outer:+ (outside the window: $outer)}"
			bad=1
		fi
	done
	# A router counts what it forwards apart: route_count and route_length
	# (lnet_msg_decommit_tx), one FORWARD record each.
	local fwd fwd_bytes route route_len
	fwd=$(n 'dir forward')
	fwd_bytes=$("$LNETCAP" -r "$g/$node.pcapng" -p '%Ll' 'dir forward' 2>/dev/null |
		awk '{s += $1} END {print s + 0}')
	route=$(($(counter route_count "$g/counters-after.txt") - $(counter route_count "$g/counters-before.txt")))
	route_len=$(($(counter route_length "$g/counters-after.txt") - $(counter route_length "$g/counters-before.txt")))
	if [ "$fwd" != 0 ] || [ "$route" != 0 ]; then
		if [ "$fwd" = "$route" ] && [ "$fwd_bytes" = "$route_len" ]; then
			echo "$p counter route_count=$route capture=$fwd ok | route_length=$route_len capture=$fwd_bytes ok"
		else
			echo "$p counter route_count=$route capture=$fwd | route_length=$route_len capture=$fwd_bytes DIFFERENT"
			bad=1
		fi
	fi
	echo "$p drops by reason: $("$LNETCAP" -r "$g/$node.pcapng" --summary 2>/dev/null |
		sed -n '/^LNet drops by reason/,/^$/p' | sed 1d | awk '{printf "%s=%s ", $1, $2}')"
	echo "$p queue time: $("$LNETCAP" -r "$g/$node.pcapng" --summary 2>/dev/null |
		sed -n '/^LNet queue time by NI/,/^$/p' | sed -n 2p)"
	faults_report "$p" "$g" "$node" || bad=1
	local drops
	drops=$(grep -aiE 'dropped|lost' "$g/capture.err" | head -2 | tr '\n' ' ')
	[ -n "$drops" ] && echo "$p lnetcap: $drops"
	return "$bad"
}

# leak_report PREFIX FILE...: a shared trace gives nothing away: every
# printable run of 4+ bytes of each FILE (a node's capture, the wire) is
# absent from `lnetcap --anonymize` of it and from its -v/-x text, but for
# tests/anon/leak-allowlist.txt's protocol constants (tests/anon/
# leak_test.sh; the workload's names, file data and xattrs are in them).
# Run on the host with BUILD's lnetcap, so -r re-checks with a newer one.
leak_report() {
	local p=$1 f how out rc bad=0
	shift
	for f in "$@"; do
		[ -s "$f" ] || continue
		# lnetcap --anonymize, and (a node's own capture) lnetcapd's forced
		# anonymization replaying it to a subscriber.
		for how in lnetcap daemon; do
			[ "$how" = daemon ] && case $f in */wire.pcap*) continue ;; esac
			rc=0
			out=$(TMPDIR=$WORK LEAK_KNOWN="$IP_A $IP_B lfs-MDT0000 lfs-OST0000" \
				bash "$SRC/tests/anon/leak_test.sh" "$BUILD" "$SRC" "$f" "$how" 2>&1) || rc=$?
			echo "$p anonymize ${f#"$RUNS"/} ($how): $(echo "$out" | sed -n 's/ in the payloads and metadata of [^;]*;/;/p' | head -1)" \
				"verdict=$([ "$rc" = 0 ] && echo PASS || echo FAIL)"
			echo "$out" | grep -E "^FAIL .*is in " | head -3 | sed "s/^/$p   /"
			echo "$out" | grep '^LEAK' | head -8 | sed "s|$WORK/lnetcap-leak[^ ]*/||g; s/^/$p   /"
			[ "$rc" = 0 ] || bad=1
		done
	done
	return "$bad"
}

# fs_report MODE DIR CLIENT CLIENT_NID SERVER SERVER_NID: the file-system
# run's own checks (CLIENT, SERVER: the nodes' directories): the targets were
# formatted and mounted, every workload step passed, every RPC in either
# node's rpctrace log is in both captures with equal fields (and its
# server time agrees with lnetcap's), the --assert examples held, every
# bulk message names its RPC and each opcode's bytes are its messages' and
# its bulk's (bulk_check.py), the merged captures' latency split has no
# transit below 0 after its clock estimate (split_check.py), and
# --anonymize of each capture and the wire leaks nothing (leak_report).
# Returns 1 on a failure.
fs_report() {
	local mode=$1 dir=$2 cl=$3 cl_nid=$4 sv=$5 sv_nid=$6 bad=0 v rc=0
	local p="$mode fs:"
	echo "$p targets: $(tail -1 "$dir/$sv/format.txt" 2>/dev/null | tr -d '\n')" \
		"$(grep -c ' UP ' "$dir/$sv/format.txt" 2>/dev/null) devices up"
	grep -q '^rc=0' "$dir/$sv/format.txt" 2>/dev/null || bad=1
	echo "$p workload: $(grep -c '^step rc=0' "$dir/$cl/workload.txt" 2>/dev/null)/$(grep -c '^step rc=' "$dir/$cl/workload.txt" 2>/dev/null) steps passed"
	grep '^step rc=[1-9]' "$dir/$cl/workload.txt" 2>/dev/null | head -3 | sed "s/^/$p   /"
	grep -q '^rc=0' "$dir/$cl/workload.txt" 2>/dev/null || bad=1
	v=$("$RPCTRACE" --node "$cl_nid" "$dir/$cl/$cl.pcapng" "$dir/$cl/dk.txt" \
		--node "$sv_nid" "$dir/$sv/$sv.pcapng" "$dir/$sv/dk.txt" 2>&1) || rc=$?
	echo "$v" | sed "s/^/$p /"
	[ "$rc" = 0 ] || bad=1
	if [ -f "$dir/$cl/asserts.txt" ]; then
		echo "$p asserts: $(grep -c '^example ok' "$dir/$cl/asserts.txt")/$(grep -c '^example ' "$dir/$cl/asserts.txt") examples held"
		grep '^example [^o]' "$dir/$cl/asserts.txt" | head -5 | sed "s/^/$p   /"
		grep -q '^rc=0' "$dir/$cl/asserts.txt" || bad=1
	fi
	local wire=$dir/wire.pcap
	[ "$LND" = o2ib ] && wire=$dir/wire.pcapng  # the RoCE decoder's records
	# Bulk belongs to its RPC on both nodes (tests/real-lustre/bulk_check.py).
	python3 "$SRC/tests/real-lustre/bulk_check.py" "$LNETCAP" "$dir/$cl/$cl.pcapng" "$p" || bad=1
	python3 "$SRC/tests/real-lustre/bulk_check.py" "$LNETCAP" "$dir/$sv/$sv.pcapng" "$p" || bad=1
	# The two captures merged: the latency split has RPCs of both ends and
	# no transit below 0 after its clock estimate (split_check.py).
	if mergecap -w "$dir/merged.pcapng" "$dir/$cl/$cl.pcapng" "$dir/$sv/$sv.pcapng" 2>"$dir/merged.err"; then
		python3 "$SRC/tests/real-lustre/split_check.py" "$LNETCAP" "$dir/merged.pcapng" "$p" || bad=1
	else
		echo "$p split: mergecap failed ($dir/merged.err)"
		bad=1
	fi
	leak_report "$p" "$dir/$cl/$cl.pcapng" "$dir/$sv/$sv.pcapng" "$wire" || bad=1
	return "$bad"
}

status=0
port=$PORT
for mode in $MODES; do
	variant=nobtf
	[ "$mode" = fentry ] && variant=btf
	dir=$RUNS/$mode
	mkdir -p "$dir"
	t0=$(date +%s)
	if [ "$TOPO" != pair ]; then
		if [ -z "$REREPORT" ]; then
			echo "real-lustre: $mode: booting the $TOPO topology ($dir)"
			PORT=$port topo_boot "$dir" "$WORK/kmod/$variant" ||
				echo "$mode: node a's script failed (rc $?, log $dir/a/guest.log)" >>"$REPORT"
			port=$((port + TOPO_PORTS))
		fi
		echo "== $mode (Lustre modules $variant, LND $LND, topology $TOPO), $(($(date +%s) - t0)) s" >>"$REPORT"
		topo_report "$mode" "$dir" >>"$REPORT" || status=1
		continue
	fi
	if [ -z "$REREPORT" ]; then
		echo "real-lustre: $mode: booting two guests ($dir)"
		if [ "$SERVER" = zfs ]; then
			MEM_B=3072 PORT=$port boot_pair "$dir" "$WORK/kmod/$variant" "$HERE/guest/fs.sh" \
				ZFS_INST="$WORK/zfs-inst" ASSERTS=1
		else
			PORT=$port boot_pair "$dir" "$WORK/kmod/$variant" "$HERE/guest/node.sh"
		fi ||
			echo "$mode: node a's script failed (rc $?, log $dir/a/guest.log)" >>"$REPORT"
		port=$((port + 1))
	fi
	{
		echo "== $mode (Lustre modules $variant, LND $LND), $(($(date +%s) - t0)) s"
		# socklnd: lnetcap's own TCP converter; o2iblnd: an independent
		# RoCEv2/o2iblnd decoder (lnetcap has no RoCE converter).
		if [ "$LND" = o2ib ]; then
			wire_to() { python3 "$SRC/tests/real-lustre/roce_wire.py" "$1" "$2"; }
		else
			wire_to() { "$LNETCAP" -r "$1" -w "$2"; }
		fi
		if [ -s "$dir/wire.pcap" ] && wire_to "$dir/wire.pcap" "$dir/wire.pcapng" 2>"$dir/wire.err"; then
			"$LNETCAP" -r "$dir/wire.pcapng" >"$dir/wire.txt" 2>&1 || true
			[ "$LND" = o2ib ] && sed 's/^/wire: /' "$dir/wire.err"
		else
			echo "$mode: no wire recording to compare with ($dir/wire.err)"
		fi
	} >>"$REPORT"
	node_report "$mode" "$dir" a "$IP_A@$LND" >>"$REPORT" || status=1
	node_report "$mode" "$dir" b "$IP_B@$LND" >>"$REPORT" || status=1
	[ "$SERVER" = zfs ] && { fs_report "$mode" "$dir" a "$IP_A@$LND" b "$IP_B@$LND" >>"$REPORT" || status=1; }
	pdir=$RUNS/$mode-perf
	if [ -n "$REREPORT" ] && [ -d "$pdir/a/perf" ]; then
		python3 "$HERE/perf-summary.py" "$mode" "$pdir/a/perf" >>"$REPORT" 2>&1 || true
	elif [ "$PERF" = 1 ]; then
		mkdir -p "$pdir"
		echo "real-lustre: $mode: throughput boot ($pdir)"
		NO_WIRE=1 PORT=$port boot_pair "$pdir" "$WORK/kmod/$variant" "$HERE/guest/perf.sh" ||
			echo "$mode: throughput run failed ($pdir/a/guest.log)" >>"$REPORT"
		port=$((port + 1))
		python3 "$HERE/perf-summary.py" "$mode" "$pdir/a/perf" >>"$REPORT" 2>&1 || true
	fi
done
echo "real-lustre: $([ "$status" = 0 ] && echo PASS || echo FAIL)" >>"$REPORT"
chmod -R a+rX "$RUNS" 2>/dev/null || true
cat "$REPORT"
echo "(files: $RUNS)"
exit "$status"
