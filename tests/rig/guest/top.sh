#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Guest side of rig.top (runs in the guest, chroot of the host root; see
# scripts/rig/run-guest.sh): `lnetcap --top -w top.pcapng -c N` on a live
# eBPF capture, its standard output a file (plain-text blocks, the last one
# the whole run), stopping by itself after N records.  The host
# (rig-test.sh) checks the last block against `lnetcap -r top.pcapng
# --summary`: the same records, so every figure must be equal.  (Two
# separate captures would not do: each stamps its own time, and under TCG
# the first run of the second program's code can lag by hundreds of us.)
# Variables: LNETCAP (the agent binary), RIG_ROUNDS (default 3).
# Leaves in RIG_OUT: top.txt, top.err, top.pcapng, top-double.log.
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
dbg=/sys/kernel/debug/lnet
rounds=${RIG_ROUNDS:-3}
. "$(dirname "$0")/attach-lib.sh"

$RIG_BB insmod "$RIG_KMOD_BTF/lnet.ko"
echo clear >$dbg/double_ctl
rm -f "$RIG_OUT/sigint.txt"

# Per round: an LDLM_ENQUEUE and a PtlRPC ping (request and reply PUT
# each), a bulk GET served (GET in, REPLY out) and a bulk PUT received
# (PUT in, ACK out): 8 records.
records=$((8 * rounds))
before=$(links)
"$LNETCAP" --top -w "$RIG_OUT/top.pcapng" -c "$records" >"$RIG_OUT/top.txt" 2>"$RIG_OUT/top.err" &
top_pid=$!
wait_attached $top_pid "$before" "$RIG_OUT/top.err"
sleep 0.5

for scenario in enqueue ping_rpc bulk_get bulk_put; do
	echo "$scenario $rounds" >$dbg/double_ctl
done
cp $dbg/double_log "$RIG_OUT/top-double.log"
wait_exit $top_pid 60 "$RIG_OUT/top.err"
echo "---- top.txt (last block)"
awk '/^--- lnetcap top:/ { n = NR } { line[NR] = $0 } END { for (i = n; i <= NR; i++) print line[i] }' \
	"$RIG_OUT/top.txt"
echo "rig-top: done"
