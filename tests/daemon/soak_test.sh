#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# soak_test.sh BUILD_DIR SOURCE_DIR - lnetcapd under every attack at once
# (issue 25): a daemon replays a large trace (the socklnd sample repeated,
# made here, never committed) while hostile subscribers do their worst -
# deep and huge filters, floods of connections, stalled readers, dumps
# nobody reads, a 1 MB SUBSCRIBE, SIGHUP storms, idle and slow HTTP
# clients on the metrics port - and two honest subscribers check that they
# receive exactly what a direct `lnetcap -r ... -w` writes.  The daemon's
# resident memory is sampled throughout and must stay under its budget
# (--memory-budget plus the recorder's --recorder-size).  Loopback and ipc
# only; about a minute on a loaded 2-core machine.
set -uo pipefail
build=$1 src=$2
TEST_CASE=daemon.soak
. "$src/tests/support/testlib.sh"
lnetcap=$build/capture/lnetcap
lnetcapd=$build/capture/lnetcapd
pcap_dump=$build/tests/pcap_dump
socklnd_sample=$src/samples/lnet-socklnd.pcapng
export TZ=UTC LC_ALL=C
need_file "$socklnd_sample" "$lnetcapd" "$lnetcap" "$pcap_dump"
need_cmd editcap mergecap python3
tmp=$(mktemp -d /tmp/lnetcapd-soak.XXXXXX)
on_exit 'touch "$tmp/stop"; for p in $(jobs -p); do kill -CONT $p; kill -9 $p; done; wait; [ -n "${SOAK_KEEP:-}" ] || rm -rf "$tmp"'

copies=60                  # 60 x 2910 records
budget_mib=96 recorder_mib=16
sock=$tmp/d.sock uri=ipc://$tmp/d.sock

# The large trace: the sample, shifted in time, end to end.
parts=()
for ((i = 0; i < copies; i++)); do
	editcap -t $((i * 100)) "$socklnd_sample" "$tmp/part$i.pcapng" 2>/dev/null
	parts+=("$tmp/part$i.pcapng")
done
mergecap -a -w "$tmp/big.pcapng" "${parts[@]}" || fail "mergecap failed"
rm -f "${parts[@]}"
timeout 60 "$lnetcap" -r "$tmp/big.pcapng" -w "$tmp/direct.pcapng" 2>/dev/null || fail "direct conversion failed"
timeout 60 "$lnetcap" -r "$tmp/big.pcapng" -w "$tmp/direct-get.pcapng" type get 2>/dev/null || fail "direct conversion failed"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf '[subscribers]\nanonymize-users = nobody\nanonymize-key = %s\n' "$tmp/anon.key" >"$tmp/d.conf"
# Unpaced: honest subscribers lose nothing (the daemon waits for them),
# a stalled reader is waited for 1 s, then loses its records (counted).
# The replay starts once the three stalled readers and the two honest
# subscribers are there.
"$lnetcapd" --listen "$uri" --group "$(id -gn)" --config "$tmp/d.conf" -r "$tmp/big.pcapng" \
	--wait-subscribers 5 --linger 3 --keep-serving --memory-budget ${budget_mib}M --max-subscribers 32 \
	--max-connections 300 --recorder-size ${recorder_mib}M --metrics-listen 127.0.0.1:$port \
	2>"$tmp/d.log" &
d_pid=$!
wait_for_socket "$sock"

# The daemon's resident memory, every 0.1 s, until it exits.
(
	while kill -0 "$d_pid" 2>/dev/null; do
		sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$d_pid/status" 2>/dev/null
		sleep 0.1
	done
) >"$tmp/rss.kib" &

# Stalled readers: they subscribe, then are stopped (their queues fill
# once the replay starts).
subscriptions() { [ "$(grep -c ' subscribed: ' "$tmp/d.log")" -ge "$1" ]; }
for i in 1 2 3; do
	"$lnetcap" --from "$uri" -w "$tmp/stalled$i.pcapng" 2>/dev/null &
	echo $! >"$tmp/stalled$i.pid"
done
wait_for 30 "the stalled readers' subscriptions" subscriptions 3
for i in 1 2 3; do kill -STOP "$(cat "$tmp/stalled$i.pid")"; done

# Hostile, in the background until the honest ones are done.
hostile() { while [ ! -e "$tmp/stop" ]; do "$@" >/dev/null 2>&1; sleep 0.05; done; }
repeat() { local i; for ((i = 0; i < $2; i++)); do printf '%s' "$1"; done; }
printf '%s' "$(repeat 'not (' 10000)type get$(repeat ')' 10000)" >"$tmp/deep.filter"
{ printf 'type get'; repeat ' or type get' 4999; } >"$tmp/wide.filter"
head -c 1000000 /dev/zero | tr '\0' 'x' >"$tmp/huge.filter"
hostile timeout 10 "$lnetcap" --from "$uri" -c 1 -F "$tmp/deep.filter" &
hostile timeout 10 "$lnetcap" --from "$uri" -c 1 -F "$tmp/wide.filter" &
hostile timeout 10 "$lnetcap" --from "$uri" -c 1 -F "$tmp/huge.filter" &
hostile timeout 10 "$lnetcap" --from "$uri" --status &
hostile kill -HUP "$d_pid" &

# The honest subscribers start the replay (--wait-subscribers 5), with
# every attack under way.
timeout 110 "$lnetcap" --from "$uri" -w "$tmp/honest.pcapng" 2>"$tmp/honest.err" &
honest=$!
wait_for 30 "the first honest subscription" subscriptions 4
timeout 110 "$lnetcap" --from "$uri" -w "$tmp/honest-get.pcapng" type get 2>"$tmp/honest-get.err" &
honest_get=$!
wait_for 30 "the second honest subscription" subscriptions 5
# Dumps nobody reads: into a pipe held open here and never read.
mkfifo "$tmp/dump.fifo"
exec 3<>"$tmp/dump.fifo"
sleep 1
for i in 1 2; do "$lnetcap" --from "$uri" --dump -w "$tmp/dump.fifo" 2>"$tmp/dump$i.err" & done
wait_for 30 "the dumps" grep -q "asked for the flight recorder" "$tmp/d.log"
# (From here on, new connections of this uid may be refused: the flood
# holds its share.)
# Connection floods (held, then let go, again and again) and idle, slow
# HTTP clients on the metrics port.
python3 - "$sock" "$port" "$tmp/stop" <<-'EOF' &
	import os, socket, sys, time
	path, port, stop = sys.argv[1], int(sys.argv[2]), sys.argv[3]
	idle = []
	for _ in range(20):
	    try:
	        idle.append(socket.create_connection(("127.0.0.1", port), timeout=2))
	    except OSError:
	        pass
	slow = []
	for _ in range(5):  # asks for /metrics with a tiny window and never reads
	    try:
	        s = socket.socket()
	        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
	        s.settimeout(2)
	        s.connect(("127.0.0.1", port))
	        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
	        slow.append(s)
	    except OSError:
	        pass
	while not os.path.exists(stop):
	    held = []
	    for _ in range(600):
	        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	        try:
	            s.connect(path)
	            held.append(s)
	        except OSError:
	            s.close()
	    time.sleep(0.5)
	    for s in held:
	        s.close()
	    time.sleep(0.2)
EOF
flood=$!

wait "$honest" || fail "the honest subscriber exited $?: $(cat "$tmp/honest.err")"
wait "$honest_get" || fail "the honest 'type get' subscriber exited $?: $(cat "$tmp/honest-get.err")"
# --keep-serving: the attacks go on after the replay's end, until the
# flood has been refused a while; then an honest --status is answered and
# SIGTERM ends the daemon cleanly.
wait_for 60 "a refused connection" grep -q "refused a connection" "$tmp/d.log"
sleep 3
touch "$tmp/stop"
wait "$flood"
check "lnetcapd survived the attacks" kill -0 "$d_pid"
timeout 30 "$lnetcap" --from "$uri" --status >"$tmp/status.out" 2>"$tmp/status.err"
expect_eq "exit of an honest --status after the attacks" "$?" 0
check "--status counts refused connections" grep -Eq "^  connections refused: +[1-9]" "$tmp/status.out"
kill "$d_pid"
wait "$d_pid"
expect_eq "lnetcapd's exit status on SIGTERM" "$?" 0
contains "$tmp/d.log" "source: $((copies * 2910)) records, 0 dropped"
exec 3<&-

"$pcap_dump" "$tmp/honest.pcapng" | tail -n +2 >"$tmp/got.txt"
"$pcap_dump" "$tmp/direct.pcapng" | tail -n +2 >"$tmp/want.txt"
expect_eq "records of the direct conversion" "$(wc -l <"$tmp/want.txt")" $((copies * 2910))
check "the honest subscriber got exactly the direct conversion ($(wc -l <"$tmp/got.txt") records)" \
	cmp -s "$tmp/got.txt" "$tmp/want.txt"
"$pcap_dump" "$tmp/honest-get.pcapng" | tail -n +2 >"$tmp/got.txt"
"$pcap_dump" "$tmp/direct-get.pcapng" | tail -n +2 >"$tmp/want.txt"
check "the honest 'type get' subscriber got exactly the direct conversion ($(wc -l <"$tmp/got.txt") records)" \
	cmp -s "$tmp/got.txt" "$tmp/want.txt"

# The attacks happened, and were refused.
contains "$tmp/d.log" "levels deep (the limit)"
contains "$tmp/d.log" "terms (the limit)"
contains "$tmp/d.log" "refused a connection"
contains "$tmp/d.log" "reload"
peak=$(sort -n "$tmp/rss.kib" | tail -1)
limit=$(((budget_mib + recorder_mib) * 1024))
check "samples of the daemon's memory were taken ($(wc -l <"$tmp/rss.kib"))" test "$(wc -l <"$tmp/rss.kib")" -gt 10
# Under AddressSanitizer (the sanitize stage's build) resident memory is
# mostly ASan's shadow and quarantine, not the daemon's: the bound is the
# normal build's to check.
if grep -q __asan_init "$lnetcapd"; then
	echo "soak: AddressSanitizer build, peak RSS ${peak} KiB not held to the budget"
else
	check "the daemon's peak resident memory ${peak} KiB is under its budget ${limit} KiB" test "${peak:-0}" -lt "$limit"
fi
echo "soak: peak RSS ${peak} KiB (budget ${limit} KiB), $(grep -c 'refused' "$tmp/d.log") refusals logged"
