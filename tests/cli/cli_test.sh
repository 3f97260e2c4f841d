#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# CLI behaviour tests: cli_test.sh BUILD_DIR SOURCE_DIR CASE
# Each case runs the real lnetcap binary and checks its output, exit status
# and the files it writes.  Golden text lives in tests/cli/golden/ (origin:
# lnetcap's own output on samples/synthetic-rpcs.pcapng, checked by hand
# against tests/tools/make_synthetic_sample.cpp; regenerate with
# tests/cli/update-golden.sh after an intended change).
set -uo pipefail
build=$1 src=$2 case=$3
lnetcap=$build/capture/lnetcap
dump=$build/tests/pcap_dump
sample=$src/samples/synthetic-rpcs.pcapng
golden=$src/tests/cli/golden
export TZ=UTC LC_ALL=C
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL [$case]: $*" >&2; exit 1; }
skip() { echo "SKIP [$case]: $*"; exit 77; }
expect_exit() {  # expect_exit CODE cmd...
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [ "$got" -eq "$want" ] || { cat "$tmp/err" >&2; fail "exit $got, wanted $want: $*"; }
}
contains() { grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "'$2' not in $1"; }; }
lines() { wc -l <"$1" | tr -d ' '; }

case $case in
version)
  expect_exit 0 "$lnetcap" --version
  contains "$tmp/out" "lnetcap 0.1.0"
  [ ! -s "$tmp/err" ] || fail "stderr not empty" ;;
help)
  expect_exit 0 "$lnetcap" -h
  contains "$tmp/out" "Examples:"
  contains "$tmp/out" "-w - | wireshark -k -i -" ;;
bad-option)
  expect_exit 1 "$lnetcap" --bogus
  contains "$tmp/err" "unknown option --bogus"
  contains "$tmp/err" "hint: see lnetcap -h"
  [ ! -s "$tmp/out" ] || fail "diagnostics must go to stderr only" ;;
bad-value)
  expect_exit 1 "$lnetcap" -c zero -r "$sample"
  contains "$tmp/err" "invalid value 'zero' for -c" ;;
clustered-options)
  # tcpdump style: -qc2 is -q -c 2
  expect_exit 0 "$lnetcap" -qc2 -r "$sample"
  [ "$(lines "$tmp/out")" = 2 ] || fail "expected 2 lines"
  contains "$tmp/out" "SEND PUT 10.0.3.2@tcp > 10.0.3.1@tcp: OBD_PING request" ;;
read-text)
  expect_exit 0 "$lnetcap" -r "$sample"
  diff -u "$golden/synthetic.txt" "$tmp/out" || fail "text differs from golden"
  contains "$tmp/err" "2 messages dropped" ;;
read-verbose)
  expect_exit 0 "$lnetcap" -v --nano -r "$sample"
  contains "$tmp/out" "22:13:20.000274000 SEND PUT"
  contains "$tmp/out" "task dd[4321]"
  contains "$tmp/out" "seq 10" ;;
pretty-lnetdump)
  expect_exit 0 "$lnetcap" -r "$sample" -p '%-5c [%-15Lm] %-5Ls %-5Lt %-20LP [%-16Pj] %-30Po'
  diff -u "$golden/synthetic-lnetdump.txt" "$tmp/out" || fail "-p output differs from golden" ;;
pretty-bad-code)
  expect_exit 1 "$lnetcap" -r "$sample" -p '%Lt %Zq'
  contains "$tmp/err" "unknown format code '%Zq' at column 5" ;;
filter)
  expect_exit 0 "$lnetcap" -r "$sample" opcode LDLM_ENQUEUE
  [ "$(lines "$tmp/out")" = 2 ] || fail "expected the enqueue and its error reply"
  expect_exit 0 "$lnetcap" -r "$sample" 'status < 0'
  [ "$(lines "$tmp/out")" = 1 ] || fail "expected one failed RPC"
  contains "$tmp/out" "status -2 (ENOENT)"
  expect_exit 0 "$lnetcap" -r "$sample" 'type get or (net tcp1 and dir forward)'
  [ "$(lines "$tmp/out")" = 2 ] || fail "expected the ping and the forwarded write" ;;
filter-file)
  printf '# comment line\nnet kfi\n' >"$tmp/f"
  expect_exit 0 "$lnetcap" -r "$sample" -F "$tmp/f"
  [ "$(lines "$tmp/out")" = 2 ] || fail "expected the two kfi messages" ;;
bad-filter)
  expect_exit 1 "$lnetcap" -r "$sample" type pot and portal 4
  contains "$tmp/err" "filter: unknown LNet message type"
  contains "$tmp/err" "column 6 ('pot')" ;;
count)
  expect_exit 0 "$lnetcap" -c 3 -r "$sample"
  [ "$(lines "$tmp/out")" = 3 ] || fail "expected 3 lines" ;;
rewrite-byte-exact)
  expect_exit 0 "$lnetcap" -r "$sample" -w "$tmp/copy.pcapng"
  [ ! -s "$tmp/out" ] || fail "-w must not print text"
  "$dump" "$sample" >"$tmp/a" || fail "pcap_dump of the sample"
  "$dump" "$tmp/copy.pcapng" >"$tmp/b" || fail "pcap_dump of the copy"
  diff -u "$tmp/a" "$tmp/b" || fail "records changed in the rewrite"
  contains "$tmp/b" "linktype 154" ;;
rewrite-filtered)
  expect_exit 0 "$lnetcap" -r "$sample" -w "$tmp/enq.pcapng" opcode LDLM_ENQUEUE
  expect_exit 0 "$lnetcap" -r "$tmp/enq.pcapng"
  [ "$(lines "$tmp/out")" = 2 ] || fail "expected 2 records in the filtered file" ;;
write-stdout)
  "$lnetcap" -r "$sample" -w - 2>"$tmp/err" | "$lnetcap" -r - >"$tmp/out" 2>>"$tmp/err" || fail "pipe failed"
  diff -u "$golden/synthetic.txt" "$tmp/out" || fail "-w - | -r - changed the records" ;;
print-with-write)
  expect_exit 0 "$lnetcap" -r "$sample" -w "$tmp/x.pcapng" --print -c 1
  [ "$(lines "$tmp/out")" = 1 ] || fail "--print must print with -w" ;;
tshark-opens)
  command -v tshark >/dev/null || { echo "SKIP: tshark not installed"; exit 77; }
  expect_exit 0 "$lnetcap" -r "$sample" -w "$tmp/t.pcapng"
  n=$(tshark -r "$tmp/t.pcapng" -T fields -e frame.number 2>/dev/null | wc -l)
  [ "$n" = 8 ] || fail "tshark counted $n frames, wanted 8"
  enc=$(tshark -r "$tmp/t.pcapng" -T fields -e frame.encap_type -c 1 2>/dev/null)
  [ "$enc" = 52 ] || fail "tshark sees encapsulation $enc, wanted 52 (USER7)"
  capinfos "$tmp/t.pcapng" >"$tmp/ci" 2>&1
  contains "$tmp/ci" "Number of packets:   8" ;;
corrupt-truncated)
  size=$(stat -c %s "$sample")
  head -c $((size - 300)) "$sample" >"$tmp/cut.pcapng"
  expect_exit 1 "$lnetcap" -r "$tmp/cut.pcapng" -w "$tmp/salvage.pcapng"
  contains "$tmp/err" "$tmp/cut.pcapng: offset"
  contains "$tmp/err" "truncated"
  # Everything before the damage is in the output, which is a valid pcapng.
  "$dump" "$tmp/salvage.pcapng" >"$tmp/d" || fail "salvaged output is not a valid capture"
  n=$(($(lines "$tmp/d") - 1))
  [ "$n" -ge 6 ] || fail "only $n records salvaged" ;;
corrupt-version)
  # Patch the version field of the first record (EPB data starts at a fixed
  # offset in this file: SHB + 3 IDBs + EPB header).
  cp "$sample" "$tmp/v.pcapng"
  off=$(grep -obUaP 'LNCR' "$tmp/v.pcapng" | head -1 | cut -d: -f1)
  printf '\x09' | dd of="$tmp/v.pcapng" bs=1 seek=$((off + 4)) conv=notrunc status=none
  expect_exit 1 "$lnetcap" -r "$tmp/v.pcapng"
  contains "$tmp/err" "record version 9 is not one this lnetcap understands"
  contains "$tmp/err" "upgrade lnetcap" ;;
not-a-capture)
  echo "hello" >"$tmp/junk.pcapng"
  expect_exit 1 "$lnetcap" -r "$tmp/junk.pcapng" ;;
missing-file)
  expect_exit 1 "$lnetcap" -r "$tmp/nope.pcapng"
  contains "$tmp/err" "nope.pcapng" ;;
unwritable-output)
  expect_exit 1 "$lnetcap" -r "$sample" -w "$tmp/no/such/dir/x.pcapng"
  contains "$tmp/err" "cannot create $tmp/no/such/dir/x.pcapng" ;;
full-disk)
  [ -w /dev/full ] || { echo "SKIP: no /dev/full"; exit 77; }
  expect_exit 1 "$lnetcap" -r "$sample" -w /dev/full
  contains "$tmp/err" "write to /dev/full failed: No space left on device" ;;
anonymize)
  # A fixed key makes the pseudonyms (and so this test) the same on every run;
  # a random key could by chance map 17@kfi onto 16@kfi (1 in 65536).
  printf 'lnetcap cli test key, fixed\n' >"$tmp/key"
  expect_exit 0 "$lnetcap" -r "$sample" -w "$tmp/anon.pcapng" --anon-key "$tmp/key" 'nid 10.0.3.2@tcp or net kfi or net tcp1'
  contains "$tmp/err" "anonymized 8 records"
  # No original NID (text, nid4 little-endian, address bytes), jobid or task name survives.
  # The key is random per run, so a pseudonym may contain an original as a
  # substring (4516@kfi holds 16@kfi): match whole tokens only, and bytes only
  # at byte boundaries, so the check fails on a real leak and on nothing else.
  for text in 10.0.3.1@tcp 10.0.3.2@tcp 16@kfi 17@kfi 2001:db8 dd.500 ping.0 ll_ping; do
    pattern="(?<![0-9A-Za-z.:_])${text//./\\.}(?![0-9A-Za-z_])"
    ! grep -qaP "$pattern" "$tmp/anon.pcapng" || fail "'$text' leaked"
  done
  od -An -tx1 -v "$tmp/anon.pcapng" | tr '\n' ' ' | tr -s ' ' >"$tmp/hex"
  for hex in "01 03 00 0a 00 00 02 00" "02 03 00 0a 00 00 02 00" "0a 00 03 01" "0a 00 03 02" "20 01 0d b8"; do
    ! grep -qF " $hex " "$tmp/hex" || fail "bytes $hex leaked"
  done
  # Still a complete, readable trace.
  expect_exit 0 "$lnetcap" -r "$tmp/anon.pcapng"
  [ "$(lines "$tmp/out")" = 8 ] || fail "anonymized trace lost records"
  contains "$tmp/out" "LDLM_ENQUEUE error status -2 (ENOENT)"
  # Same key, another file: the same pseudonyms.
  expect_exit 0 "$lnetcap" -r "$sample" -w "$tmp/anon2.pcapng" --anon-key "$tmp/key" -c 1
  a=$("$lnetcap" -r "$tmp/anon.pcapng" -c 1 -p '%Ns %Nd')
  b=$("$lnetcap" -r "$tmp/anon2.pcapng" -p '%Ns %Nd')
  [ "$a" = "$b" ] || fail "pseudonyms differ across files with one key: '$a' vs '$b'"
  case $a in 10.*@tcp\ 10.*@tcp) ;; *) fail "unexpected pseudonyms '$a'";; esac
  # A key file that does not exist is created, private to its owner.
  expect_exit 0 "$lnetcap" -r "$sample" -w "$tmp/anon3.pcapng" --anon-key "$tmp/new.key" -c 1
  [ "$(stat -c %a "$tmp/new.key")" = 600 ] || fail "new key file is not mode 600"
  [ "$(stat -c %s "$tmp/new.key")" -ge 16 ] || fail "new key file too short" ;;
stdin-tcpdump)
  # A tcpdump capture on a pipe is told from lnetcap pcapng by its first byte.
  corpus=$src/../shared/corpus/lnet-socklnd.pcap
  [ -f "$corpus" ] || { echo "SKIP: corpus missing"; exit 77; }
  "$lnetcap" -r - -q -v <"$corpus" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; fail "lnetcap -r - failed"; }
  [ "$(lines "$tmp/out")" = 2910 ] || fail "expected 2910 messages from the piped tcpdump file"
  contains "$tmp/err" "lnetcap: " ;;
extcap-queries)
  expect_exit 0 "$lnetcap" --extcap-interfaces --extcap-version=4.0
  contains "$tmp/out" "interface {value=lnet}{display=LNet messages (lnetcap, eBPF)}"
  grep -q '^extcap {version=' "$tmp/out" || fail "no extcap version line"
  expect_exit 0 "$lnetcap" --extcap-dlts --extcap-interface lnet
  contains "$tmp/out" "dlt {number=154}{name=USER7}"
  expect_exit 0 "$lnetcap" --extcap-config --extcap-interface lnet
  # every line is an arg or value sentence of the extcap grammar
  bad=$(grep -cvE '^(arg \{number=[0-9]+\}\{call=--[a-z-]+\}|value \{arg=[0-9]+\}\{value=)' "$tmp/out")
  [ "$bad" = 0 ] || fail "malformed extcap-config lines"
  contains "$tmp/out" "{call=--snapshot-length}"
  expect_exit 1 "$lnetcap" --extcap-dlts --extcap-interface eth0
  expect_exit 0 "$lnetcap" --extcap-interface lnet --extcap-capture-filter 'opcode OBD_PING'
  expect_exit 1 "$lnetcap" --extcap-interface lnet --extcap-capture-filter 'opcode NOPE'
  contains "$tmp/out" "unknown opcode" ;;
extcap-tshark)
  # What tshark/dumpcap really call: list the interface and capture through
  # the fifo.  The extcap entry replays the sample (-r) so no kernel is
  # needed; everything after the query is the real --capture --fifo path.
  command -v tshark >/dev/null || { echo "SKIP: tshark not installed"; exit 77; }
  # As root tshark ignores personal extcap folders, like plugins.
  . "$src/tests/support/tshark-user.sh"
  lnetcap_tshark_user
  run_as=("${RUNAS[@]}")
  chmod 755 "$tmp"
  mkdir -p "$tmp/conf/extcap"
  # The build tree may sit where the unprivileged user cannot reach (a clone
  # in a private temporary directory): give it copies it can run and read.
  cp "$sample" "$tmp/sample.pcapng"
  cp "$lnetcap" "$tmp/lnetcap"
  printf '#!/bin/sh\nexec "%s" -r "%s" "$@"\n' "$tmp/lnetcap" "$tmp/sample.pcapng" >"$tmp/conf/extcap/lnetcap"
  chmod -R a+rX "$tmp" && chmod 755 "$tmp/conf/extcap/lnetcap"
  [ -z "${run_as[*]}" ] || chown -R lnetcap-test "$tmp"
  env=(env HOME="$tmp" WIRESHARK_CONFIG_DIR="$tmp/conf" TZ=UTC)
  "${run_as[@]}" "${env[@]}" tshark -D >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; fail "tshark -D failed"; }
  contains "$tmp/out" "lnet (LNet messages (lnetcap, eBPF))"
  "${run_as[@]}" "${env[@]}" timeout 60 tshark -i lnet -a duration:20 -w "$tmp/live.pcapng" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; fail "tshark -i lnet failed"; }
  "$dump" "$tmp/live.pcapng" >"$tmp/d" || fail "capture through the fifo is not readable"
  contains "$tmp/d" "linktype 154"
  [ "$(($(lines "$tmp/d") - 1))" = 8 ] || fail "expected the 8 sample records through the fifo" ;;
*)
  fail "unknown case" ;;
esac
echo "PASS [$case]"
