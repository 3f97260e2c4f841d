#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# edges_test.sh BUILD_DIR SOURCE_DIR CASE - lnetcapd at its edges (issue 25,
# items 7-12): the socket path, anonymization on every way out, the metrics
# endpoint under slow clients, the trigger directory and full disks,
# subscribers that merge or pause, keys and config files.  Real daemons on
# ipc sockets and loopback TCP in a private temporary directory.
set -uo pipefail
build=$1 src=$2 case=$3
TEST_CASE="edges.$case"
. "$src/tests/support/testlib.sh"
lnetcap=$build/capture/lnetcap
lnetcapd=$build/capture/lnetcapd
pcap_dump=$build/tests/pcap_dump
sample=$src/samples/lustre-fs-part1.pcapng
export TZ=UTC LC_ALL=C
need_file "$sample" "$lnetcapd" "$pcap_dump"
tmp=$(mktemp -d /tmp/lnetcapd-edges.XXXXXX)
daemons=()
on_exit 'for p in "${daemons[@]}"; do kill -CONT "$p"; kill -KILL "$p"; done; wait; [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"'

. "$src/tests/daemon/packets-lib.sh"
count() { packets "$1" | wc -l; }
real_nids() { "$lnetcap" -r "$sample" 2>/dev/null | grep -oE '[0-9]+(\.[0-9]+){3}@tcp[0-9]*' | sort -u; }
# start NAME ARGS...: lnetcapd in the background, log in NAME.log, pid in NAME_pid.
start() {
	local name=$1
	shift
	"$lnetcapd" "$@" 2>"$tmp/$name.log" &
	daemons+=($!)
	eval "${name}_pid=$!"
}
# start_ipc NAME ARGS...: on ipc://$tmp/NAME.sock, waits for the socket.
start_ipc() {
	local name=$1
	shift
	start "$name" --listen "ipc://$tmp/$name.sock" --group "$(id -gn)" "$@"
	wait_for_socket "$tmp/$name.sock" 30
}
uri() { echo "ipc://$tmp/$1.sock"; }
# endpoint NAME: the tcp:// endpoint the daemon's log names.
endpoint() {
	wait_for_log "$tmp/$1.log" " on tcp://" 30
	sed -n 's/.* on \(tcp:\/\/[^ ]*\).*/\1/p' "$tmp/$1.log" | head -1
}
metrics_address() {
	wait_for_log "$tmp/$1.log" "serving metrics at" 30
	sed -n 's/.*serving metrics at http:\/\/\([^/]*\)\/metrics.*/\1/p' "$tmp/$1.log"
}
status_of() { timeout 30 "$lnetcap" --from "$(uri "$1")" --status >"$tmp/$1.status" 2>&1; }
received() { status_of "$1" && grep -qE "^  records received: +$2\$" "$tmp/$1.status"; }
# run NAME CMD...: CMD's exit status in NAME.rc, output in NAME.out/.err (bounded in time).
run() {
	local name=$1
	shift
	timeout 90 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
rc() { cat "$tmp/$1.rc"; }
# records_at_least NAME N: daemon NAME has delivered N records or more.
records_at_least() {
	status_of "$1" || return 1
	local n
	n=$(sed -n 's/^  records received: *//p' "$tmp/$1.status")
	[ "${n:-0}" -ge "$2" ]
}
gone() { ! kill -0 "$1" 2>/dev/null; }

case $case in
socket-path)
	# Item 7.  A regular file at --listen PATH is neither deleted nor used.
	echo precious >"$tmp/file.sock"
	run file "$lnetcapd" -r "$sample" --listen "$tmp/file.sock" --group "$(id -gn)"
	expect_eq "exit status on a regular file at the socket path" "$(rc file)" 1
	contains "$tmp/file.err" "exists and is a regular file, not a socket"
	expect_eq "the regular file" "$(cat "$tmp/file.sock")" precious
	# A second daemon does not take over a running one's socket.
	start_ipc a -r "$sample" --keep-serving
	wait_for 30 "the first daemon to replay" received a 149
	run second "$lnetcapd" -r "$sample" --listen "$(uri a)" --group "$(id -gn)"
	expect_eq "exit status of a second daemon on a live socket" "$(rc second)" 1
	contains "$tmp/second.err" "another lnetcapd (or another program) is serving on it"
	check "the first daemon still serves its socket" received a 149
	# A socket left by a killed daemon is replaced; the socket is the
	# daemon's and no private directory is left next to it.
	kill -KILL "$a_pid"
	wait_for_exit "$a_pid" 10
	test -S "$tmp/a.sock" || fail "the killed daemon's socket is gone already: nothing is tested"
	start_ipc b -r "$sample" --keep-serving --listen "$(uri a)"
	wait_for 30 "the successor to serve on the stale socket" received a 149
	expect_eq "socket mode" "$(stat -c %a "$tmp/a.sock")" 660
	expect_eq "leftover private directories" "$(find "$tmp" -name '.lnetcapd.*' | wc -l)" 0
	kill -TERM "$b_pid"
	wait_for_exit "$b_pid" 20
	check "the socket is removed at exit" test ! -e "$tmp/a.sock"
	;;
anonymize-every-way-out)
	# Item 8.  The policy forces this user: the metrics labels, a TCP
	# stream, --status and the trigger files must not give real NIDs,
	# jobids or uids away.
	printf '[subscribers]\nanonymize-users = %s\nanonymize-key = %s\n' "$(id -un)" "$tmp/anon.key" >"$tmp/anon.conf"
	nids=$(real_nids)
	[ -n "$nids" ] || fail "no NIDs in $sample"
	mkdir -m 700 "$tmp/inc"
	start_ipc d -r "$sample" --config "$tmp/anon.conf" --keep-serving --metrics-listen 127.0.0.1:0 \
		--listen 'tcp://127.0.0.1:*' --allow-insecure-tcp --recorder-size 64M \
		--trigger 'status < 0 or jobid secretjob.4242 or uid 31337' --trigger-dir "$tmp/inc" --node n1
	wait_for 30 "the replay" received d 149
	curl -sf "http://$(metrics_address d)/metrics" >"$tmp/metrics.txt" || fail "no metrics"
	contains "$tmp/metrics.txt" 'lnetcap_peer_messages_total{peer="'
	for nid in $nids; do
		lacks "$tmp/metrics.txt" "$nid"
	done
	# Over TCP (no key, so no identity): forced too.
	tcp=$(endpoint d)
	run tcp "$lnetcap" --from "$tcp" --dump -w "$tmp/tcp.pcapng"
	expect_eq "TCP dump exit status" "$(rc tcp)" 0
	expect_eq "records over TCP" "$(count "$tmp/tcp.pcapng")" 149
	"$lnetcap" -r "$tmp/tcp.pcapng" >"$tmp/tcp.txt" 2>&1
	for nid in $nids; do
		lacks "$tmp/tcp.txt" "$nid"
	done
	contains "$tmp/d.log" "a peer without a uid or key could be any of them"
	status_of d || fail "--status failed: $(cat "$tmp/d.status")"
	contains "$tmp/d.status" "trigger:"
	lacks "$tmp/d.status" "secretjob"
	lacks "$tmp/d.status" "31337"
	# Trigger files: 0600, and a rerun over the same data keeps the
	# earlier file (and does not follow a symlink planted at its name).
	wait_for 30 "a trigger file" grep -q "wrote $tmp/inc/" "$tmp/d.log"
	first=$(sed -n "s/.*wrote \($(printf %s "$tmp" | sed 's/[\/.]/\\&/g')\/inc\/[^ ]*\.pcapng\).*/\1/p" "$tmp/d.log" | head -1)
	expect_eq "trigger file mode" "$(stat -c %a "$first")" 600
	kill -TERM "$d_pid"
	wait_for_exit "$d_pid" 20
	mv "$first" "$tmp/kept.pcapng"
	echo precious >"$tmp/victim"
	ln -s "$tmp/victim" "$first"
	start_ipc e -r "$sample" --keep-serving --trigger 'status < 0' --trigger-dir "$tmp/inc" --node n1
	wait_for 30 "the rerun's trigger file" grep -q "wrote $tmp/inc/" "$tmp/e.log"
	expect_eq "the symlink's target" "$(cat "$tmp/victim")" precious
	check "the rerun's file has a name of its own" test -f "${first%.pcapng}-2.pcapng"
	kill -TERM "$e_pid"
	wait_for_exit "$e_pid" 20
	;;
metrics-slow-clients)
	# Item 9.  Ten connections that never send a request, and one that asks
	# and never reads, do not keep a scrape waiting.
	start_ipc d -r "$sample" --keep-serving --metrics-listen 127.0.0.1:0
	addr=$(metrics_address d)
	wait_for 30 "the replay" received d 149
	python3 - "$addr" "$tmp/slow.ready" <<-'EOF' &
		import socket, sys, time
		host, port = sys.argv[1].rsplit(":", 1)
		idle = [socket.create_connection((host, int(port))) for _ in range(10)]
		reader = socket.socket()
		reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
		reader.connect((host, int(port)))
		reader.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
		open(sys.argv[2], "w").close()
		time.sleep(30)
	EOF
	slow=$!
	on_exit "kill $slow"
	wait_for_file "$tmp/slow.ready" 10
	start_ns=$(date +%s%N)
	for i in 1 2 3; do
		curl -sf -m 5 "http://$addr/metrics" >"$tmp/scrape$i.txt" || fail "scrape $i failed or timed out with slow clients connected"
		contains "$tmp/scrape$i.txt" "lnetcap_scrapes_total"
	done
	ms=$((($(date +%s%N) - start_ns) / 1000000))
	check "three scrapes within 3 s with slow clients connected (took $ms ms)" test "$ms" -lt 3000
	# More connections than it keeps open: it still answers.
	python3 - "$addr" <<-'EOF' &
		import socket, sys, time
		host, port = sys.argv[1].rsplit(":", 1)
		idle = [socket.create_connection((host, int(port))) for _ in range(100)]
		time.sleep(20)
	EOF
	flood=$!
	on_exit "kill $flood"
	sleep 1
	curl -sf -m 5 "http://$addr/metrics" >"$tmp/scrape4.txt" || fail "a scrape failed with 100 idle connections open"
	kill "$slow" "$flood"
	kill -TERM "$d_pid"
	wait_for_exit "$d_pid" 20
	;;
trigger-directory)
	# Item 10.  A trigger directory that cannot be used stops the daemon at
	# start, naming it; a missing last component is made 0700.
	run nodir "$lnetcapd" -r "$sample" --listen "$(uri x)" --trigger 'status < 0' --trigger-dir "$tmp/no/such/dir"
	expect_eq "exit status with a missing trigger directory" "$(rc nodir)" 1
	contains "$tmp/nodir.err" "trigger directory $tmp/no/such/dir"
	check "a daemon that could not start leaves no socket" test ! -e "$tmp/x.sock"
	touch "$tmp/plainfile"
	run notdir "$lnetcapd" -r "$sample" --listen "$(uri x)" --trigger 'status < 0' --trigger-dir "$tmp/plainfile"
	expect_eq "exit status with a file as trigger directory" "$(rc notdir)" 1
	contains "$tmp/notdir.err" "not a directory"
	mkdir -m 777 "$tmp/open"
	run open "$lnetcapd" -r "$sample" --listen "$(uri x)" --trigger 'status < 0' --trigger-dir "$tmp/open"
	expect_eq "exit status with a world-writable trigger directory" "$(rc open)" 1
	contains "$tmp/open.err" "other users may write it"
	start_ipc m -r "$sample" --keep-serving --trigger 'status < 0' --trigger-dir "$tmp/made"
	wait_for 30 "a trigger file in the made directory" grep -q "wrote $tmp/made/" "$tmp/m.log"
	expect_eq "made directory's mode" "$(stat -c %a "$tmp/made")" 700
	kill -TERM "$m_pid"
	wait_for_exit "$m_pid" 20
	# A full disk (here: a file size limit of 4 KiB) leaves no file that
	# looks like a valid incident.
	mkdir -m 700 "$tmp/full"
	(
		trap '' XFSZ
		ulimit -f 4
		exec "$lnetcapd" -r "$sample" --listen "$(uri f)" --group "$(id -gn)" --keep-serving \
			--trigger 'type put' --trigger-max-per-minute 100 --trigger-dir "$tmp/full" 2>"$tmp/f.log"
	) &
	f_pid=$!
	daemons+=($f_pid)
	wait_for_socket "$tmp/f.sock" 30
	wait_for 30 "the replay" received f 149
	kill -TERM "$f_pid"
	wait_for_exit "$f_pid" 20
	contains "$tmp/f.log" "trigger: cannot write"
	written=$(grep -c "wrote $tmp/full/" "$tmp/f.log")
	expect_eq "files in the directory (= files reported written, $written)" "$(find "$tmp/full" -type f | wc -l)" "$written"
	for f in "$tmp"/full/*.pcapng; do
		[ -e "$f" ] || continue
		check "$f is a whole pcapng" "$pcap_dump" "$f" >/dev/null
	done
	;;
merge-keeps-records)
	# Item 11.  A merge of a finished replay and a daemon that goes silent
	# (stopped) writes every record of the healthy stream, then reports the
	# lost one.
	start_ipc a -r "$sample" --wait-subscribers 1
	start_ipc b -r "$sample" --wait-subscribers 2 --keep-serving
	"$lnetcap" --from "$(uri a)" --from "$(uri b)" -w "$tmp/merged.pcapng" 2>"$tmp/merge.err" &
	sub=$!
	daemons+=($sub)
	wait_for_log "$tmp/a.log" "subscribed" 30
	wait_for_log "$tmp/b.log" "subscribed" 30
	kill -STOP "$b_pid"
	wait_for_exit "$a_pid" 30
	wait_for_exit "$sub" 40
	wait "$sub"
	sub_rc=$?
	kill -CONT "$b_pid"
	check "the merge reports the lost stream (exit $sub_rc)" test "$sub_rc" -ne 0
	contains "$tmp/merge.err" "lost contact with lnetcapd at $(uri b)"
	expect_eq "records of the healthy stream written" "$(count "$tmp/merged.pcapng")" 149
	# Ctrl-C while a stream is quiet but alive (a replay waiting for a
	# second subscriber holds the merge back): what arrived is written.
	start_ipc c -r "$sample" --wait-subscribers 1
	start_ipc q -r "$sample" --wait-subscribers 2 --keep-serving
	"$lnetcap" --from "$(uri c)" --from "$(uri q)" -w "$tmp/stopped.pcapng" 2>"$tmp/stopped.err" &
	sub=$!
	daemons+=($sub)
	wait_for_log "$tmp/q.log" "subscribed" 30
	wait_for_exit "$c_pid" 30
	kill -INT "$sub"
	wait_for_exit "$sub" 20
	expect_eq "records written after Ctrl-C" "$(count "$tmp/stopped.pcapng")" 149
	;;
subscriber-pause)
	# Item 11.  A subscriber stopped for 12 s (Ctrl-Z) goes on when resumed.
	start_ipc d -r "$sample" --rate 5 --wait-subscribers 1
	"$lnetcap" --from "$(uri d)" -w "$tmp/sub.pcapng" 2>"$tmp/sub.err" &
	sub=$!
	daemons+=($sub)
	wait_for_log "$tmp/d.log" "subscribed" 30
	sleep 1
	kill -STOP "$sub"
	sleep 12
	kill -CONT "$sub"
	sleep 3
	check "the resumed subscriber is still running" kill -0 "$sub"
	lacks "$tmp/sub.err" "lost contact"
	kill -INT "$sub"
	wait_for_exit "$sub" 20
	;;
keys-and-config)
	# Item 12.  With --authorized-keys, local users still subscribe over ipc.
	"$lnetcapd" --gen-key "$tmp/client.key" >"$tmp/client.pub" || fail "--gen-key"
	cp "$tmp/client.pub" "$tmp/authorized"
	start_ipc c -r "$sample" --wait-subscribers 1 --listen 'tcp://127.0.0.1:*' \
		--authorized-keys "$tmp/authorized" --curve-key "$tmp/server.key"
	run local "$lnetcap" --from "$(uri c)" -w "$tmp/local.pcapng"
	expect_eq "local subscriber's exit status with --authorized-keys ($(cat "$tmp/local.err"))" "$(rc local)" 0
	expect_eq "local subscriber's records" "$(count "$tmp/local.pcapng")" 149
	wait_for_exit "$c_pid" 30
	# Revoking a key (SIGHUP) ends its running subscription.
	start ks -r "$sample" --rate 5 --listen 'tcp://127.0.0.1:*' --authorized-keys "$tmp/authorized" \
		--curve-key "$tmp/server.key"
	tcp=$(endpoint ks)
	"$lnetcap" --from "$tcp" --curve-key "$tmp/client.key" --server-key "$tmp/server.key" -q \
		>"$tmp/rev.out" 2>"$tmp/rev.err" &
	rev=$!
	daemons+=($rev)
	wait_for_log "$tmp/ks.log" "subscribed" 30
	: >"$tmp/authorized"
	kill -HUP "$ks_pid"
	wait_for_exit "$rev" 10
	contains "$tmp/rev.err" "its key was revoked"
	wait "$rev"
	expect_eq "exit status of the revoked key's subscriber" "$?" 1
	# Issue 34: it still prints the closing counts it has.
	contains "$tmp/rev.err" "messages captured"
	contains "$tmp/rev.err" "messages dropped by kernel"
	# Refused handshakes are logged with a rate limit.
	"$lnetcapd" --gen-key "$tmp/stranger.key" >/dev/null
	for i in $(seq 15); do
		timeout 10 "$lnetcap" --from "$tcp" --curve-key "$tmp/stranger.key" --server-key "$tmp/server.key" -q \
			>/dev/null 2>&1
	done
	refused=$(grep -c "refused a CurveZMQ client" "$tmp/ks.log")
	check "refused handshakes logged one by one: $refused lines (at most 5)" test "$refused" -le 5
	contains "$tmp/ks.log" "further refused CurveZMQ handshakes are summed up"
	kill -TERM "$ks_pid"
	wait_for_exit "$ks_pid" 20
	contains "$tmp/ks.log" "more CurveZMQ handshakes in the last"
	# Key files as sshd checks them.
	chmod 666 "$tmp/authorized"
	run ww "$lnetcapd" -r "$sample" --listen 'tcp://127.0.0.1:*' --authorized-keys "$tmp/authorized" \
		--curve-key "$tmp/server.key"
	expect_eq "exit status with a world-writable authorized-keys file" "$(rc ww)" 1
	contains "$tmp/ww.err" "lets users other than its owner add keys"
	chmod 644 "$tmp/authorized" "$tmp/server.key"
	run wr "$lnetcapd" -r "$sample" --listen 'tcp://127.0.0.1:*' --authorized-keys "$tmp/authorized" \
		--curve-key "$tmp/server.key"
	expect_eq "exit status with a world-readable server key" "$(rc wr)" 1
	contains "$tmp/wr.err" "lets users other than its owner read or change it"
	# --config DIR is refused, not read as an empty file.
	mkdir "$tmp/confdir"
	run cd "$lnetcapd" -r "$sample" --listen "$(uri x)" --config "$tmp/confdir"
	expect_eq "exit status with --config DIR" "$(rc cd)" 1
	contains "$tmp/cd.err" "is a directory"
	;;
log-forgery-and-floods)
	# Issue 34 item 3.  A newline in a client's description started a
	# forged log line; 3000 refused subscriptions made 3000 lines.  Peer
	# text is escaped; repeated refusals are logged a few at a time, then
	# counted in one line per 10 s.
	need_cmd python3
	start_ipc d -r "$sample" --rate 5
	python3 - "$tmp/d.sock" <<-'EOF' || fail "the raw subscriber failed"
		import ctypes, struct, sys, time
		path = sys.argv[1]
		z = ctypes.CDLL("libzmq.so.5")
		z.zmq_ctx_new.restype = ctypes.c_void_p
		z.zmq_socket.restype = ctypes.c_void_p
		z.zmq_socket.argtypes = [ctypes.c_void_p, ctypes.c_int]
		z.zmq_connect.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
		z.zmq_send.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
		z.zmq_close.argtypes = [ctypes.c_void_p]
		z.zmq_ctx_term.argtypes = [ctypes.c_void_p]
		z.zmq_setsockopt.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
		ctx = z.zmq_ctx_new()
		s = z.zmq_socket(ctx, 5)  # DEALER
		zero = ctypes.c_int(0)
		z.zmq_setsockopt(s, 17, ctypes.byref(zero), 4)  # ZMQ_LINGER 0 after the sends below drained
		z.zmq_connect(s, ("ipc://" + path).encode())
		def subscribe(filt, client):
		    head = b"LNSB" + bytes([1, 1, 0, 0]) + struct.pack("<II", 0xffffffff, 0)
		    z.zmq_send(s, head, len(head), 2)  # ZMQ_SNDMORE
		    z.zmq_send(s, filt, len(filt), 2)
		    z.zmq_send(s, client, len(client), 0)
		subscribe(b"type get", b"evil\nlnetcapd: subscriber 99 (root, uid 0) subscribed: filter 'forged'\x1b[2J")
		time.sleep(0.5)
		for i in range(3000):
		    subscribe(b"type (((", b"flood %d" % i)
		time.sleep(2)  # the daemon reads them all before the connection goes
		z.zmq_close(s)
		z.zmq_ctx_term(ctx)
	EOF
	wait_for_log "$tmp/d.log" "evil" 30
	check "no log line starts with the forged text" test "$(grep -c '^lnetcapd: subscriber 99 ' "$tmp/d.log")" = 0
	# Every line naming the forged client shows its description escaped,
	# whichever line it is (its subscription, its leaving, or a churn
	# summary's "the last: ..." when the machine is slow).
	expect_eq "lines naming the forged client without its escaped description" \
		"$(grep 'evil' "$tmp/d.log" | grep -vc 'evil\\012lnetcapd: subscriber 99 ')" 0
	check "the forged client's subscription is logged" \
		grep -q '^lnetcapd: subscriber 1 (evil\\012lnetcapd: subscriber 99 ' "$tmp/d.log"
	contains "$tmp/d.log" "evil\\012lnetcapd: subscriber 99 (root, uid 0) subscribed: filter 'forged'\\033[2J"
	check "no terminal control in the log" test "$(tr -d '\n' <"$tmp/d.log" | tr -d '[:print:]' | wc -c)" = 0
	# The refusals: a few one by one, then one line with the count.
	wait_for_log "$tmp/d.log" "more subscriptions in the last 10 s" 30
	one_by_one=$(grep -c '^lnetcapd: refused flood ' "$tmp/d.log")
	summed=$(sed -n 's/^lnetcapd: refused \([0-9]*\) more subscriptions in the last 10 s.*/\1/p' "$tmp/d.log" | awk '{ n += $1 } END { print n + 0 }')
	check "refusals logged one by one are few ($one_by_one)" test "$one_by_one" -le 15
	expect_eq "refusals logged one by one plus those summed up" "$((one_by_one + summed))" 3000
	check "the log stays short ($(wc -l <"$tmp/d.log") lines)" test "$(wc -l <"$tmp/d.log")" -lt 40
	check "lnetcapd still serves" test -n "$(timeout 30 "$lnetcap" --from "$(uri d)" -c 1 2>/dev/null)"
	kill "$d_pid"
	;;
ipv6-listen)
	# Issue 34 item 4: --listen tcp://[::1]:PORT failed with "No such
	# device" (libzmq binds IPv6 only with ZMQ_IPV6 set).
	[ -e /proc/net/if_inet6 ] && ip -6 addr show lo 2>/dev/null | grep -q '::1' || skip "no IPv6 on lo"
	start v6 -r "$sample" --listen 'tcp://[::1]:*' --allow-insecure-tcp --wait-subscribers 1
	tcp=$(endpoint v6)
	case $tcp in "tcp://[::1]:"*) ;; *) fail "bound $tcp, not on [::1]" ;; esac
	run sub "$lnetcap" --from "$tcp" -w "$tmp/v6.pcapng"
	expect_eq "exit status of a subscriber over [::1] ($(cat "$tmp/sub.err"))" "$(rc sub)" 0
	expect_eq "records over [::1]" "$(count "$tmp/v6.pcapng")" 149
	wait_for_exit "$v6_pid" 30
	lacks "$tmp/v6.log" "No such device"
	;;
option-bounds)
	# Issue 34 item 4: --metrics-listen 99999 served on port 34463
	# (getaddrinfo wraps), and --recorder-size 99999999G was taken.
	run port "$lnetcapd" -r "$sample" --listen "ipc://$tmp/p.sock" --group "$(id -gn)" --metrics-listen 99999
	expect_eq "exit status with --metrics-listen 99999" "$(rc port)" 1
	contains "$tmp/port.err" "port 99999 is not a port (1 to 65535"
	run port2 "$lnetcapd" -r "$sample" --listen "ipc://$tmp/p.sock" --group "$(id -gn)" --metrics-listen 127.0.0.1:65536
	expect_eq "exit status with --metrics-listen 127.0.0.1:65536" "$(rc port2)" 1
	contains "$tmp/port2.err" "port 65536 is not a port"
	run size "$lnetcapd" -r "$sample" --listen "ipc://$tmp/s.sock" --group "$(id -gn)" --recorder-size 99999999G
	expect_eq "exit status with --recorder-size 99999999G" "$(rc size)" 1
	contains "$tmp/size.err" "invalid size '99999999G' for --recorder-size"
	contains "$tmp/size.err" "at most 1024G"
	printf '[recorder]\nsize = 2000G\n' >"$tmp/big.conf"
	run sizef "$lnetcapd" -r "$sample" --listen "ipc://$tmp/s.sock" --group "$(id -gn)" --config "$tmp/big.conf"
	expect_eq "exit status with [recorder] size = 2000G" "$(rc sizef)" 1
	contains "$tmp/sizef.err" "at most 1024G"
	# The largest allowed is taken (the replay ends at once, holding little).
	start ok -r "$sample" --listen "ipc://$tmp/ok.sock" --group "$(id -gn)" --recorder-size 1024G \
		--metrics-listen 127.0.0.1:0
	wait_for_exit "$ok_pid" 30
	wait "$ok_pid"
	expect_eq "exit status with --recorder-size 1024G" "$?" 0
	;;
socket-directory)
	# Issue 34 item 4: a socket directory others may write (or that
	# belongs to another user) was taken without a word.  As sshd's
	# StrictModes: refused, naming the directory and the fix.
	mkdir -m 0770 "$tmp/shared"
	run gw "$lnetcapd" -r "$sample" --listen "ipc://$tmp/shared/d.sock" --group "$(id -gn)"
	expect_eq "exit status with a group-writable socket directory" "$(rc gw)" 1
	contains "$tmp/gw.err" "its directory $tmp/shared may be written by its group (mode 0770)"
	check "nothing was left in it" test -z "$(ls -A "$tmp/shared")"
	chmod 1777 "$tmp/shared"  # sticky, as /tmp: others cannot take the name
	start sticky -r "$sample" --listen "ipc://$tmp/shared/d.sock" --group "$(id -gn)"
	wait_for_exit "$sticky_pid" 30
	wait "$sticky_pid"
	expect_eq "exit status with a sticky socket directory" "$?" 0
	if [ "$(id -u)" = 0 ]; then
		mkdir -m 0755 "$tmp/theirs"
		chown 60001 "$tmp/theirs"
		run other "$lnetcapd" -r "$sample" --listen "ipc://$tmp/theirs/d.sock" --group "$(id -gn)"
		expect_eq "exit status with a socket directory of another user" "$(rc other)" 1
		contains "$tmp/other.err" "its directory $tmp/theirs belongs to uid 60001, neither root nor lnetcapd's own user"
	fi
	;;
insecure-tcp-warning)
	# Issue 34 item 4: insecure TCP said nothing.  One warning at start.
	start insec -r "$sample" --listen 'tcp://127.0.0.1:*' --listen "ipc://$tmp/insec.sock" --group "$(id -gn)" \
		--allow-insecure-tcp --wait-subscribers 1
	tcp=$(endpoint insec)
	wait_for_log "$tmp/insec.log" "warning: $tcp is neither authenticated nor encrypted (--allow-insecure-tcp)" 30
	run sub "$lnetcap" --from "$tcp" -c 3
	expect_eq "exit status over insecure TCP" "$(rc sub)" 0
	kill "$insec_pid"
	wait_for_exit "$insec_pid" 20
	expect_eq "insecure-TCP warnings" "$(grep -c 'neither authenticated nor encrypted' "$tmp/insec.log")" 1
	lacks "$tmp/insec.log" "ipc://$tmp/insec.sock is neither"
	# CurveZMQ: no warning.
	"$lnetcapd" --gen-key "$tmp/client.key" >"$tmp/authorized" || fail "--gen-key"
	start cz -r "$sample" --listen 'tcp://127.0.0.1:*' --authorized-keys "$tmp/authorized" --curve-key "$tmp/server.key"
	wait_for_exit "$cz_pid" 30
	lacks "$tmp/cz.log" "neither authenticated nor encrypted"
	;;
subscriber-survives-restart)
	# Issue 34 item 5.  A daemon killed mid-stream and started again: the
	# subscriber subscribes again with the same filter, marks the gap (a
	# comment on the first record after it, a line in its statistics) and
	# ends with the new daemon's stream; a three-node merge goes on with
	# the other two streams meanwhile.  Without the new daemon, --reconnect bounds the wait.
	start_ipc r -r "$sample" --rate 20 --wait-subscribers 2
	start_ipc o -r "$sample" --rate 20 --wait-subscribers 1
	start_ipc p -r "$sample" --rate 20 --wait-subscribers 1
	"$lnetcap" --from "$(uri r)" --reconnect 30 -w "$tmp/one.pcapng" 'not type ack' 2>"$tmp/one.err" &
	one=$!
	daemons+=($one)
	# A three-node merge: r restarts, o and p go on meanwhile.
	"$lnetcap" --from "$(uri r)" --from "$(uri o)" --from "$(uri p)" --reconnect 30 \
		-w "$tmp/merged.pcapng" 2>"$tmp/merged.err" &
	merged=$!
	daemons+=($merged)
	wait_for 30 "records to flow" records_at_least r 30
	kill -KILL "$r_pid"
	wait_for_log "$tmp/one.err" "went away; subscribing again when it is back" 20
	wait_for_log "$tmp/merged.err" "went away; subscribing again when it is back" 20
	start_ipc r2 -r "$sample" --rate 20 --wait-subscribers 2 --listen "$(uri r)"
	wait_for_log "$tmp/one.err" "(subscribed again)" 30
	wait_for_exit "$one" 40
	wait "$one"
	expect_eq "exit status of the subscriber across the restart ($(tail -3 "$tmp/one.err"))" "$?" 0
	wait_for_exit "$merged" 40
	wait "$merged"
	expect_eq "exit status of the merge across the restart ($(tail -3 "$tmp/merged.err"))" "$?" 0
	contains "$tmp/r2.log" "filter 'not type ack'"  # the same filter, subscribed again
	# Records of both daemons: some of the first, all the second's.
	want=$("$lnetcap" -r "$sample" 'not type ack' 2>/dev/null | wc -l)
	got=$(count "$tmp/one.pcapng")
	check "the subscriber has the second daemon's $want records and some of the first's ($got)" \
		test "$got" -gt "$want"
	check "the subscriber's output is a whole pcapng" "$pcap_dump" "$tmp/one.pcapng" >/dev/null
	check "the gap is marked in the output" grep -aq "restarted at .*; records in between not seen" "$tmp/one.pcapng"
	check "the statistics name the restart" \
		grep -Eq "^lnetcap: lnetcapd at $(uri r) restarted at [0-9T:Z-]+; records in between not seen\$" "$tmp/one.err"
	contains "$tmp/one.err" "messages captured"
	mgot=$(count "$tmp/merged.pcapng")
	all=$("$lnetcap" -r "$sample" 2>/dev/null | wc -l)
	check "the merge has every record of the two other streams, the second daemon's and some of the first's ($mgot > 3 x $all)" \
		test "$mgot" -gt $((3 * all))
	contains "$tmp/merged.err" "restarted at"
	check "the merge marks the gap" grep -aq "records in between not seen" "$tmp/merged.pcapng"
	# A daemon that does not come back: the wait is bounded.
	start_ipc g -r "$sample" --rate 20 --wait-subscribers 1
	"$lnetcap" --from "$(uri g)" --reconnect 2 -w "$tmp/gone.pcapng" 2>"$tmp/gone.err" &
	gone_sub=$!
	daemons+=($gone_sub)
	wait_for 30 "records to flow" records_at_least g 10
	kill -KILL "$g_pid"
	wait_for_exit "$gone_sub" 15
	wait "$gone_sub"
	expect_eq "exit status when the daemon does not come back" "$?" 1
	contains "$tmp/gone.err" "did not come back within 2 s"
	captured=$(sed -n 's/^\([0-9]*\) messages captured$/\1/p' "$tmp/gone.err")
	check "its closing counts say what it got (${captured:-?} captured)" test -n "$captured"
	contains "$tmp/gone.err" "$captured messages received by filter"
	;;
*) fail "unknown case $case" ;;
esac
echo "PASS [$TEST_CASE]"
