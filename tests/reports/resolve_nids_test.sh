#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# resolve_nids_test.sh LNETCAP STUB_SO SRC CASE [VECTORS] - --resolve-nids on the
# bundled sample samples/synthetic-rpcs.pcapng (IPv4 NIDs 10.0.3.1/2@tcp,
# IPv6 2001:db8::1/2/9@tcp1, DFAs 16/17@kfi, 0@lo), with the system
# resolver replaced by tests/reports/getnameinfo_stub.c (LD_PRELOAD), so
# no DNS is involved.  Expected names are the stub's table, not lnetcap's.
set -uo pipefail
lnetcap=$1 stub=$2 src=$3 TEST_CASE=resolve-nids.$4
. "$src/tests/support/testlib.sh"
need_file "$lnetcap" "$stub"
sample=$src/samples/synthetic-rpcs.pcapng
tmp=$(mktemp -d)
on_exit "rm -rf '$tmp'"
export TZ=UTC LC_ALL=C STUB_LOG=$tmp/asked STUB_HOSTS=$tmp/hosts
# An ASan build must not refuse a preloaded library that comes first.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
printf '10.0.3.1 mds1.example\n10.0.3.2 client2\n2001:db8::1 rtr-v6\n' > "$tmp/hosts"
run() { LD_PRELOAD=$stub "$lnetcap" -r "$sample" "$@"; }

case $4 in
text)
	run --resolve-nids > "$tmp/t" 2> "$tmp/e" || fail "text output failed: $(cat "$tmp/e")"
	contains "$tmp/t" "client2@tcp > mds1.example@tcp"
	contains "$tmp/t" "rtr-v6@tcp1"
	contains "$tmp/t" "2001:db8::2@tcp1 > "   # the stub has no name for it: a number
	contains "$tmp/t" "16@kfi"
	lacks "$tmp/t" "10.0.3.1@tcp"
	# Each address asked once, always with NI_NAMEREQD; DFAs and 0@lo never.
	expect_eq "10.0.3.1 asked" "$(grep -c '^10\.0\.3\.1 NI_NAMEREQD$' "$tmp/asked")" 1
	expect_eq "questions without NI_NAMEREQD" "$(grep -vc ' NI_NAMEREQD$' "$tmp/asked")" 0
	expect_eq "non-IP NIDs asked" "$(grep -cvE '^(10\.0\.3\.[0-9]+|2001:db8::[0-9]+) ' "$tmp/asked")" 0
	expect_eq "distinct addresses = questions" "$(sort -u "$tmp/asked" | wc -l)" "$(wc -l < "$tmp/asked")"
	lacks "$tmp/e" "warning"
	;;
names-file-wins)
	printf '10.0.3.1@tcp mgs-from-file\n' > "$tmp/nids"
	run --resolve-nids --nid-names "$tmp/nids" > "$tmp/t" 2> "$tmp/e" || fail "text output failed"
	contains "$tmp/t" "client2@tcp > mgs-from-file@tcp"
	lacks "$tmp/t" "mds1.example"
	check "the file's NID not asked" bash -c "! grep -q '^10\.0\.3\.1 ' '$tmp/asked'"
	;;
numeric)
	run --resolve-nids -n > "$tmp/t" 2> "$tmp/e" || fail "-n failed"
	contains "$tmp/t" "10.0.3.2@tcp > 10.0.3.1@tcp"
	check "-n asks the resolver nothing" test ! -s "$tmp/asked"
	run > "$tmp/t" 2> "$tmp/e" || fail "plain run failed"
	check "the resolver is opt-in" test ! -s "$tmp/asked"
	;;
summary-chart)
	run --resolve-nids --summary > "$tmp/s" 2> "$tmp/e" || fail "summary failed"
	check "summary peer row by host name" grep -qE "^mds1\.example@tcp +4 +1000 " "$tmp/s"
	contains "$tmp/s" "client2@tcp <-> mds1.example@tcp"
	contains "$tmp/s" "2001:db8::2@tcp1 <-> rtr-v6@tcp1"
	lacks "$tmp/s" "10.0.3.1@tcp"
	run --resolve-nids --chart=mermaid > "$tmp/m" 2> "$tmp/e" || fail "chart failed"
	contains "$tmp/m" "as mds1.example@tcp"
	contains "$tmp/m" "as client2@tcp"
	;;
dead-dns)
	# A resolver that never answers for 10.0.3.2: one bounded wait, one
	# warning, numbers from then on, every record still printed.
	start=$(date +%s)
	STUB_HANG=10.0.3.2 run --resolve-nids > "$tmp/t" 2> "$tmp/e" || fail "run with a dead resolver failed"
	elapsed=$(( $(date +%s) - start ))
	check "stalled ${elapsed}s (bound: 1 s a look-up)" test "$elapsed" -le 4
	expect_eq "warnings" "$(grep -c 'warning' "$tmp/e")" 1
	contains "$tmp/e" "no answer from the system resolver for 10.0.3.2 within 1000 ms"
	contains "$tmp/t" "10.0.3.2@tcp"
	expect_eq "records printed" "$(wc -l < "$tmp/t")" "$("$lnetcap" -n -r "$sample" | wc -l)"
	;;
health)
	# The per-NI health section of the synthetic routed capture
	# (tests/wireshark/gen_routed.cpp): the client's NI and the router's
	# by host name.
	vectors=${5:-}
	need_file "$vectors"
	"$vectors" routed "$tmp" || fail "generator failed"
	printf '10.0.1.1 client1.example\n10.0.1.254 rtr1.example\n' > "$tmp/hosts"
	LD_PRELOAD=$stub "$lnetcap" -r "$tmp/client.pcapng" --resolve-nids --summary > "$tmp/s" 2> "$tmp/e" ||
		fail "summary failed"
	check "client NI by host name" grep -qE "^client1\.example@tcp +42 +1 +2 +0  LOCAL_DROPPED 2$" "$tmp/s"
	check "router NI by host name" grep -qE "^rtr1\.example@tcp +42 +1 +2 +0  LOCAL_DROPPED 2$" "$tmp/s"
	;;
*) fail "unknown case $4" ;;
esac
