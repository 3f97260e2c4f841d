# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Sourced by the real-Lustre guest scripts (they run inside a QEMU guest
# of the rig, chrooted into the host root; see scripts/rig/run-guest.sh).
# Needs from the environment: RIG_* (rig.env), RIG_OUT, RIG_BB, LR_WORK
# (the harness's work dir: src/, inst/, kmod/, kernel-ko.list), KMODS (the
# Lustre module variant to load), LNETCAP, LND (tcp or o2ib).
INST=$LR_WORK/inst
export PATH=$INST/usr/sbin:$INST/usr/bin:$INST/sbin:$PATH
export LD_LIBRARY_PATH=$INST/usr/lib:$INST/usr/lib64:$INST/usr/lib/x86_64-linux-gnu

log() { echo "[$(cut -d' ' -f1 /proc/uptime)] $*"; }

# devtmpfs has no /dev/fd or /dev/std*: process substitution and tools
# writing to /dev/stdout need them.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for i in 0:stdin 1:stdout 2:stderr; do
	[ -e "/dev/${i#*:}" ] || ln -s "/proc/self/fd/${i%%:*}" "/dev/${i#*:}"
done

# Module name -> file, for the guest kernel's modules and Lustre's.  The
# kernel's list is made on the host (prepare.sh): a find over 9p in a TCG
# guest takes minutes.
declare -A KO=()
while read -r f; do
	n=${f##*/}
	n=${n%.ko}
	KO[${n//-/_}]=$f
done < <(cat "$LR_WORK/kernel-ko.list"; ls "$KMODS"/*.ko)

# load_mod NAME [PARAM...]: insmod NAME after the modules it depends on
# (the image ships no modules.dep: read "depends=" from .modinfo).
load_mod() {
	local n=${1//-/_} d
	shift
	grep -q "^$n " /proc/modules && return 0
	[ -n "${KO[$n]:-}" ] || { log "no module $n"; return 1; }
	for d in $(objcopy -O binary --only-section=.modinfo "${KO[$n]}" /dev/stdout |
		tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' ' '); do
		load_mod "$d" || return 1
	done
	$RIG_BB insmod "${KO[$n]}" "$@" || { log "insmod $n failed"; return 1; }
}

# net_up IP [DEV]: DEV (default eth0, virtio-net) with IP/24.
net_up() {
	local dev=${2:-eth0}
	load_mod virtio_net
	for _ in $(seq 1 100); do [ -e /sys/class/net/$dev ] && break; sleep 0.1; done
	ip link set lo up
	ip addr add "$1/24" dev "$dev"
	ip link set "$dev" up
}

# net6_up IP6 [DEV]: also IP6/64 on DEV (LNET_IPV6=1), without duplicate
# address detection, so the address is usable (not tentative) at once.
net6_up() {
	ip -6 addr add "$1/64" dev "${2:-eth0}" nodad
}

# lnet_up [NETWORKS [LNET_PARAM...]]: LNet with the LND of LND (tcp:
# ksocklnd; o2ib: ko2iblnd over soft-RoCE, rdma_rxe on eth0), lnet_selftest.
# NETWORKS (socklnd only) replaces tcp(eth0), e.g. a router's two nets.
lnet_up() {
	local networks=${1:-tcp(eth0)}
	[ $# = 0 ] || shift
	if [ "${LND:-tcp}" = o2ib ]; then
		# rdma_rxe needs the crc32 shash, which the kernel asks modprobe
		# for: the rig has no modprobe, so crc32_generic goes first.
		local m
		for m in crc32_generic ib_core ib_uverbs rdma_rxe ib_cm iw_cm rdma_cm; do
			load_mod $m || return 1
		done
		rdma link add rxe0 type rxe netdev eth0 || return 1
		rdma link show >"$RIG_OUT/rdma-link.txt" 2>&1
		load_mod lnet 'networks=o2ib0(eth0)' && load_mod ko2iblnd && load_mod lnet_selftest ||
			return 1
	else
		load_mod lnet "networks=$networks" "$@" && load_mod ksocklnd || return 1
		[ "${LNET_IPV6:-0}" = 1 ] || load_mod lnet_selftest || return 1
	fi
	if [ "${LNET_IPV6:-0}" = 1 ]; then
		# Large NIDs (NLM_F_APPEND: ln_nis_use_large_nids): socklnd then
		# enumerates IPv6 addresses first and takes the NIC's global one.
		# No fallback to small NIDs: that would run over IPv4 unnoticed.
		# Before lnet_selftest: its module init calls LNetNIInit, which
		# brings LNet up from the module parameters with small NIDs (seen:
		# 10.77.0.1@tcp after --large), and --large is then too late.
		lnetctl lnet configure --all --large ||
			{ log "lnetctl lnet configure --all --large failed (large NIDs: Lustre 2.16+)"; return 1; }
		load_mod lnet_selftest || return 1
	else
		lnetctl lnet configure --all >/dev/null 2>&1 || lctl network up
	fi
	lnetctl net show
}

# bounded SECS CMD...: CMD in the background, given up (KILL, not waited
# for) after SECS: under link faults lnet_selftest's kernel side can hang
# (a kworker blocked in brw_client_done_rpc's path in a multi-rail run),
# and `lst stat`/`lst stop` then block with it; the rest of the run
# (counters, capture stop) must still happen.  On a hang, blocked tasks'
# stacks go to dmesg (sysrq w).
bounded() {
	local secs=$1 pid
	shift
	"$@" &
	pid=$!
	for _ in $(seq 1 $((secs * 10))); do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; return; }
		sleep 0.1
	done
	log "$* still running after $secs s: given up"
	echo "given up after $secs s: $*"
	echo w >/proc/sysrq-trigger 2>/dev/null
	kill -KILL "$pid" 2>/dev/null
	return 124
}

# lst_brw_start FROM TO [ADD_TEST_OPTION...]: an lnet_selftest session from
# the NID FROM (group ga) to TO (group gb) running: brw read and write of
# 4k and 1M with data check, and ping.  On o2iblnd both sizes exceed an
# immediate message, so every brw bulk is RDMA (a write's REPLY is an RDMA
# GET).
lst_brw_start() {
	local from=$1 to=$2 op size
	shift 2
	export LST_SESSION=$$
	lst new_session --timeout 120 harness
	lst add_group ga "$from"
	lst add_group gb "$to"
	lst add_batch bulk
	for op in read write; do
		for size in 4k 1M; do
			lst add_test --batch bulk "$@" --from ga --to gb brw $op check=simple size=$size
		done
	done
	lst add_test --batch bulk --from ga --to gb ping
	lst run bulk
}

# lst_brw_end: `lst stat`, then the session stopped and ended, each step
# given up after 60 s.
lst_brw_end() {
	bounded 60 lst stat --count 1 ga gb
	bounded 60 lst stop bulk
	bounded 60 lst end_session
}

# lst_brw FROM TO [ADD_TEST_OPTION...]: the session for LST_SECS (default
# 15) seconds.
lst_brw() {
	lst_brw_start "$@"
	sleep "${LST_SECS:-15}"
	lst_brw_end
}

# mount_attempt NID: a client mount of NID:/lustre cut short after
# MOUNT_SECS (default 40).  With no MGS there (a client-only build), the
# far LNet drops the MGS_CONNECT requests, which still puts real PtlRPC
# requests with XIDs and jobids on the wire.  lustre.ko asks for mgc with
# request_module, which the rig cannot serve (no modprobe): the client
# stack is loaded explicitly.
mount_attempt() {
	local m
	for m in mgc lmv mdc lov osc lustre; do
		load_mod $m || log "client module $m did not load"
	done
	mkdir -p /tmp/mnt
	timeout -s KILL "${MOUNT_SECS:-40}" mount.lustre "$1:/lustre" /tmp/mnt \
		>"$RIG_OUT/mount.txt" 2>&1
	echo "rc=$?" >>"$RIG_OUT/mount.txt"
	# let the killed mount's client tear down before the counters
	sleep 5
}

# snapshot TAG: what a node keeps besides LNet's counters at each end of the
# capture window; a guest script may define its own (default: nothing).
snapshot() { :; }

# node_stop: the capture stopped (SIGINT), dmesg kept, "done" logged.
node_stop() {
	[ -n "${cap_pid:-}" ] && capture_stop
	dmesg >"$RIG_OUT/dmesg.txt"
	log "done"
}

# serve_until FILE: a node that only answers, once its capture runs:
# counters, "ready", then it waits for FILE (the workload node's "done"),
# counters again, and stops.
serve_until() {
	sleep 2
	counters before
	snapshot before
	touch "$RIG_OUT/ready"
	log "ready; waiting for $1"
	wait_file "$1" 3600 || log "$1 never appeared"
	sleep 2
	counters after
	snapshot after
	node_stop
	exit 0
}

# workload_done: the workload node's end: two idle seconds, counters, its
# capture stopped, then "done" for the nodes that wait on it.
workload_done() {
	sleep 2
	counters after
	snapshot after
	node_stop
	touch "$RIG_OUT/done"
}

# counters TAG: LNet's own global counters in counters-TAG.txt.
counters() {
	lnetctl stats show >"$RIG_OUT/counters-$1.txt" 2>&1
}

# wait_file PATH SECONDS
wait_file() {
	for _ in $(seq 1 $(($2 * 10))); do [ -e "$1" ] && return 0; sleep 0.1; done
	return 1
}

bpf_links() { bpftool link list 2>/dev/null | grep -c '^[0-9]' || true; }

# capture_start OUT ERR [ARG...]: lnetcap -v -w OUT ARG... in the
# background (cap_pid); returns once its eBPF programs are attached, 1 when
# it exits first (its stderr is in ERR).
capture_start() {
	local out=$1 err=$2 before
	shift 2
	before=$(bpf_links)
	"$LNETCAP" -v -w "$out" "$@" 2>"$err" &
	cap_pid=$!
	for _ in $(seq 1 1800); do
		# Attached, and past its self-check (-v says how it went): its
		# ping of 0@lo is LNet traffic the capture never records, which
		# must not fall inside the counters' window.
		[ "$(bpf_links)" -ge $((before + 3)) ] && grep -q 'self-check' "$err" && return 0
		kill -0 "$cap_pid" 2>/dev/null || { wait "$cap_pid"; return 1; }
		sleep 0.1
	done
	log "lnetcap did not attach within 180 s"
	kill -KILL "$cap_pid"
	return 1
}

# capture_stop: SIGINT as a user would; KILL after 60 s.
capture_stop() {
	kill -INT "$cap_pid" 2>/dev/null || true
	for _ in $(seq 1 600); do kill -0 "$cap_pid" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$cap_pid" 2>/dev/null && { log "lnetcap ignored SIGINT: KILL"; kill -KILL "$cap_pid"; }
	local rc=0
	wait "$cap_pid" || rc=$?
	log "lnetcap exit status $rc"
	counters outside-after
	return 0
}

# capture_out_of_the_box OUT: starts lnetcap with no option, as a user
# would on a real node, and records in start.txt whether that worked.
# When it did not and LUSTRE_VERSION is set, retries with
# --lustre-version so that the rest of the run still has a capture (the
# report fails the run on the first attempt either way).
capture_out_of_the_box() {
	local out=$1
	# Counters outside the capture window as well as inside it: a server
	# talks to itself (OSP statfs over 0@lo every few seconds) between the
	# inner snapshots and the capture's start and stop (run.sh's report).
	counters outside-before
	"$LNETCAP" -D >"$RIG_OUT/lnetcap-D.txt" 2>&1
	echo "rc=$?" >>"$RIG_OUT/lnetcap-D.txt"
	if capture_start "$out" "$RIG_OUT/capture.err"; then
		echo "start=ok" >"$RIG_OUT/start.txt"
		return 0
	fi
	{
		echo "start=FAIL"
		sed -n '1,3p' "$RIG_OUT/capture.err" | sed 's/^/  /'
	} >"$RIG_OUT/start.txt"
	cp "$RIG_OUT/capture.err" "$RIG_OUT/capture-first.err"
	[ -n "${LUSTRE_VERSION:-}" ] || return 1
	if capture_start "$out" "$RIG_OUT/capture.err" --lustre-version "$LUSTRE_VERSION"; then
		echo "retry=ok --lustre-version $LUSTRE_VERSION" >>"$RIG_OUT/start.txt"
		return 0
	fi
	echo "retry=FAIL --lustre-version $LUSTRE_VERSION" >>"$RIG_OUT/start.txt"
	return 1
}
