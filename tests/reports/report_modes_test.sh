#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report_modes_test.sh TOOL BUILD_DIR SOURCE_DIR INPUT... - every report mode
# over whole captures (ctest label report-modes; tests/reports/CMakeLists.txt):
#   lnetcap   `lnetcap -r INPUT` with --summary (table, json, prometheus),
#             --assert (passing, and failing: exit 1 with the verdict) and
#             --chart=mermaid / --chart=html with --chart-output;
#   lnetcapd  lnetcapd replays INPUT with its RPC metrics on; scraped once the
#             whole file is in, then stopped with SIGTERM (exit 0).
# An INPUT that is not a capture (a fuzz_report input: tests/fuzz/seeds/report,
# tests/fuzz/regressions/report) is first written as the pcapng it stands for
# by report_input_pcapng.
#
# The figures are checked elsewhere (reports_test.sh, prometheus_test.sh);
# these cases are for the sanitizer build: scripts/test-sanitize.sh sanitize
# runs them in build-asan, and a sanitizer report (ASan, LSan, UBSan) fails
# the case whatever the exit status says.  halt_on_error (the script's
# ASAN_OPTIONS, or the default below) makes the first error end the program.
set -uo pipefail
tool=$1 build=$2 src=$3
shift 3
lnetcap=$build/capture/lnetcap
lnetcapd=$build/capture/lnetcapd
converter=$build/tests/fuzz/report_input_pcapng
export TZ=UTC LC_ALL=C
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
TEST_CASE="report-modes $tool"
. "$src/tests/support/testlib.sh"
tmp=$(mktemp -d /tmp/lnetcap-modes.XXXXXX)
daemon_pid=
cleanup() {
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
on_exit cleanup
(($# > 0)) || fail "no input"

# no_sanitizer_report LOG: true when LOG holds no ASan, LSan or UBSan report
# (its first lines go to stderr when it does).
no_sanitizer_report() {
	grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:|Sanitizer:DEADLYSIGNAL' "$1" || return 0
	head -40 "$1" >&2
	return 1
}
clean() { check "$2: no sanitizer report in $1" no_sanitizer_report "$1"; }

# run WANT NAME ARGS...: lnetcap ARGS, exit status WANT, stdout in $tmp/NAME.out.
run() {
	local want=$1 name=$2 rc=0
	shift 2
	"$lnetcap" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
	clean "$tmp/$name.err" "lnetcap $*"
	[ "$rc" = "$want" ] || { echo "--- stderr:" >&2; tail -20 "$tmp/$name.err" >&2; }
	expect_eq "exit status of lnetcap $*" "$rc" "$want"
}

# prometheus_ok FILE: every line a comment or a sample (name{labels} value).
prometheus_ok() {
	! grep -vE '^(# (HELP|TYPE) .*|[a-z_]+(\{.*\})? [-+0-9.eEInfa]+)?$' "$1" >&2
}

# A pcapng of INPUT in $tmp (a capture as it is; a fuzz_report input written out).
as_capture() {
	local in=$1 out
	out=$tmp/$(basename "$1").pcapng
	case $in in
	*.pcap | *.pcapng) echo "$in" ;;
	*)
		"$converter" "$in" "$out" 2>"$tmp/convert.err" || fail "report_input_pcapng $in: $(cat "$tmp/convert.err")"
		echo "$out"
		;;
	esac
}

modes_lnetcap() {
	local f=$1 n=$2
	run 0 "$n.table" -r "$f" --summary
	contains "$tmp/$n.table.out" "lnetcap summary:"
	run 0 "$n.json" -r "$f" --summary=json
	check "--summary=json of $f is JSON" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/$n.json.out"
	run 0 "$n.prom" -r "$f" --summary=prometheus
	check "--summary=prometheus of $f is the text format" prometheus_ok "$tmp/$n.prom.out"
	# Every function, both sides functions, combinators; true on any capture
	# (an error is a final reply: "rpc reply" or, for PTL_RPC_MSG_ERR, "rpc error").
	run 0 "$n.assert" -r "$f" --assert 'count() >= 0' \
		--assert 'latency_p99() < 1ms or latency_p99() >= 1ms or latency_max(*) != latency_max(*) or count() >= 0' \
		--assert 'not errors(status < 0) > count(rpc reply or rpc error) and bytes(type put) >= 0' \
		--assert 'latency_p50(opcode OST_WRITE) <= latency_max() or latency_p90(rpc request) > 0 or count(*) >= 0'
	contains "$tmp/$n.assert.out" "assertions passed"
	run 1 "$n.assert-fail" -r "$f" --assert 'count() < 0'
	contains "$tmp/$n.assert-fail.out" "assert FAIL: count() < 0"
	run 0 "$n.mermaid" -r "$f" --chart=mermaid --chart-output "$tmp/$n.mmd"
	check "--chart=mermaid of $f wrote a sequence diagram" grep -q '^sequenceDiagram' "$tmp/$n.mmd"
	run 0 "$n.html" -r "$f" --chart=html --chart-output "$tmp/$n.html"
	contains "$tmp/$n.html" "</html>"
}

# The EPBs of a pcapng file (records lnetcapd will have read).
epbs() {
	python3 - "$1" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
at = n = 0
while at + 12 <= len(d):
    kind, size = struct.unpack_from('<II', d, at)
    n += kind == 6
    at += size
print(n)
EOF
}

scrape() { python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' "http://$1/metrics"; }

# records_in ADDR N: the metrics say lnetcapd has read N records (or it died).
records_in() {
	kill -0 "$daemon_pid" 2>/dev/null || fail "lnetcapd died before it read all $2 records (its log below)"
	# Not "scrape | grep -q": grep leaves at the match, the scraper's next
	# write fails (EPIPE) and pipefail turns the match into a failure.
	scrape "$1" >"$tmp/probe.metrics" 2>/dev/null || return 1
	grep -qx "lnetcap_source_records_total $2" "$tmp/probe.metrics"
}

modes_lnetcapd() {
	local f=$1 n=$2 pcapng=$1 records addr log rc=0
	if [ "${f%.pcap}" != "$f" ]; then  # lnetcapd replays lnetcap's pcapng
		pcapng=$tmp/$n.pcapng
		run 0 "$n.convert" -r "$f" -w "$pcapng"
	fi
	records=$(epbs "$pcapng")
	# A log (and socket) of its own per input: the shell truncates a reused
	# log only once the forked daemon runs, so the wait below could read the
	# previous daemon's "serving metrics at" and scrape its dead port.
	log=$tmp/$n.d.log
	"$lnetcapd" -r "$pcapng" --listen "ipc://$tmp/$n.d.sock" --group "$(id -gn)" --keep-serving \
		--metrics-listen 127.0.0.1:0 --metrics-max-label-values 4 2>"$log" &
	daemon_pid=$!
	# The sanitizer's report if there is one (its first frames), else the end.
	# shellcheck disable=SC2016 # expanded when on_fail runs it
	on_fail "echo '--- lnetcapd log:'; if grep -q 'ERROR: ' '$log'; then sed -n '/ERROR: /,+24p' '$log'; else tail -40 '$log'; fi"
	wait_for_log "$log" "serving metrics at" 60
	addr=$(sed -n 's/.*serving metrics at http:\/\/\([^/]*\)\/metrics.*/\1/p' "$log")
	wait_for 120 "lnetcapd to read the $records records of $f" records_in "$addr" "$records"
	scrape "$addr" >"$tmp/$n.metrics" || fail "cannot scrape $addr"
	check "lnetcapd metrics of $f are the text format" prometheus_ok "$tmp/$n.metrics"
	contains "$tmp/$n.metrics" "lnetcap_opcode_requests_total"
	kill -TERM "$daemon_pid"
	wait "$daemon_pid" || rc=$?
	daemon_pid=
	expect_eq "exit status of lnetcapd -r $f after SIGTERM" "$rc" 0
	clean "$log" "lnetcapd -r $f"
}

for input in "$@"; do
	[ -e "$input" ] || fail "$input is missing"
	capture=$(as_capture "$input") || exit 1
	"modes_$tool" "$capture" "$(basename "$input")"
	echo "ok: $tool: every report mode over $input"
done
