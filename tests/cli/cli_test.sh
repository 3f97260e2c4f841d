#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# CLI behaviour tests: cli_test.sh BUILD_DIR SOURCE_DIR CASE
# Each case runs the real lnetcap binary and checks its output, exit status
# and the files it writes.  Golden text lives in tests/cli/golden/ (origin:
# lnetcap's own output on samples/synthetic-rpcs.pcapng, checked by hand
# against tests/tools/make_synthetic_sample.cpp; after an intended change,
# rewrite them with the commands of the cases read-text and pretty-lnetdump,
# e.g. build/capture/lnetcap -r samples/synthetic-rpcs.pcapng >tests/cli/golden/synthetic.txt).
set -uo pipefail
build=$1 src=$2 case=$3
lnetcap=$build/capture/lnetcap
dump=$build/tests/pcap_dump
sample=$src/samples/synthetic-rpcs.pcapng
routed=$src/samples/lnet-routed-3node.pcapng  # 895 records
mutate=$src/tests/cli/pcapng_mutate.py
golden=$src/tests/cli/golden
export TZ=UTC LC_ALL=C
TEST_CASE=$case
. "$src/tests/support/testlib.sh"
tmp=$(mktemp -d)
on_exit 'rm -rf "$tmp"'

expect_exit() {  # expect_exit CODE cmd...
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [ "$got" -eq "$want" ] || cat "$tmp/err" >&2
  expect_eq "exit status of $*" "$got" "$want"
}
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
body-fields-documented)
  # Every body field lnetcap -h lists (include/lnetcap/fields.h rows with a
  # keyword or -p code) has its entry in lnetcap(8) BODY FIELDS.
  expect_exit 0 "$lnetcap" -h
  sed -n '/^Body fields/,/^$/p' "$tmp/out" | tail -n +2 | grep . >"$tmp/rows"
  [ -s "$tmp/rows" ] || fail "lnetcap -h lists no body fields"
  section=$(sed -n '/^\.SH BODY FIELDS/,/^\.SH /p' "$src/docs/lnetcap.8")
  [ -n "$section" ] || fail "docs/lnetcap.8 has no BODY FIELDS section"
  # A row: "KEYWORD OP N  %CODE  ..." or "-  %CODE  ..." (no keyword).
  while read -r first rest; do
    if [ "$first" = - ]; then keyword="" code=${rest%% *}
    else keyword=$first; read -r _op _n code _ <<<"$rest"
    fi
    [ -z "$keyword" ] || grep -qw -- "$keyword" <<<"$section" ||
      fail "docs/lnetcap.8 BODY FIELDS lacks the keyword $keyword"
    [ "$code" = - ] || grep -qF -- "$code" <<<"$section" || fail "docs/lnetcap.8 BODY FIELDS lacks the code $code"
  done <"$tmp/rows"
  echo "ok: $(wc -l <"$tmp/rows") body fields documented in docs/lnetcap.8" ;;
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
read-bulk)
  # Bulk names its RPC (docs/REPORTS.md, Bulk) even when the filter hides the
  # requests.  golden/lustre-fs-bulk.txt: each "bulk of"/"reply ACK of" was
  # checked against the Wireshark plugin's link of the same frame
  # (tests/wireshark/golden/corpus-fs-info.txt); the ping REPLY and ACKs name none.
  bulk_sample=$src/samples/lustre-fs-part1.pcapng
  expect_exit 0 "$lnetcap" -r "$bulk_sample" \
    'not portal 0 and (type get or type reply or type ack or portal OST_BULK or portal MDS_BULK or portal MGS_BULK)'
  diff -u "$golden/lustre-fs-bulk.txt" "$tmp/out" || fail "bulk lines differ from golden"
  # Anonymized, the link comes from what passed the filter only: no clear
  # jobid can leak from a hidden request.
  expect_exit 0 "$lnetcap" -r "$bulk_sample" --anonymize 'type reply and not portal 0'
  lacks "$tmp/out" "bulk of" ;;
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
  check "-w - | -r - keeps the records (golden/synthetic.txt)" diff -u "$golden/synthetic.txt" "$tmp/out" ;;
print-with-write)
  expect_exit 0 "$lnetcap" -r "$sample" -w "$tmp/x.pcapng" --print -c 1
  [ "$(lines "$tmp/out")" = 1 ] || fail "--print must print with -w" ;;
tshark-opens)
  need_cmd tshark
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
  # offset in this file: SHB + 3 IDBs + EPB header).  One record of an
  # unknown version is a damaged record: skipped with a warning, or fatal
  # with --strict.
  cp "$sample" "$tmp/v.pcapng"
  off=$(grep -obUaP 'LNCR' "$tmp/v.pcapng" | head -1 | cut -d: -f1)
  printf '\x09' | dd of="$tmp/v.pcapng" bs=1 seek=$((off + 4)) conv=notrunc status=none
  expect_exit 0 "$lnetcap" -r "$tmp/v.pcapng"
  contains "$tmp/err" "record 1: bad lnetcap record: record version 9 is not one this lnetcap understands"
  contains "$tmp/err" "upgrade lnetcap"
  check "the other 7 records printed" diff -u <(tail -n +2 "$golden/synthetic.txt") "$tmp/out"
  expect_exit 1 "$lnetcap" -r "$tmp/v.pcapng" --strict
  contains "$tmp/err" "record version 9 is not one this lnetcap understands"
  [ ! -s "$tmp/out" ] || fail "--strict printed records" ;;
damaged-record)
  # Issue 33: exactly one damaged record (its lnetcap record magic) in the
  # middle of a real capture, the block framing whole.
  need_cmd python3
  "$lnetcap" -r "$routed" >"$tmp/all.txt" 2>/dev/null || fail "the sample does not read"
  [ "$(lines "$tmp/all.txt")" = 895 ] || fail "the sample should print 895 records"
  off=$(python3 "$mutate" "$routed" "$tmp/m.pcapng" record-magic 400) || fail "mutation failed"
  sed 400d "$tmp/all.txt" >"$tmp/want.txt"
  # Default: one warning naming offset and record, every other record
  # printed, the count at the end, exit status 0.
  expect_exit 0 "$lnetcap" -r "$tmp/m.pcapng"
  check "the 894 other records printed" diff -u "$tmp/want.txt" "$tmp/out"
  contains "$tmp/err" "lnetcap: warning: $tmp/m.pcapng: offset $off: record 400: bad lnetcap record: record magic is not \"LNCR\"; skipped"
  contains "$tmp/err" "lnetcap: 894 records read, 1 damaged record skipped (listed above; --strict stops at the first)"
  expect_eq "stderr lines" "$(lines "$tmp/err")" 2
  # -w keeps every good record byte for byte (pcap_dump: a header line, then
  # one line per packet), and the rewritten file reads clean.
  expect_exit 0 "$lnetcap" -r "$tmp/m.pcapng" -w "$tmp/w.pcapng"
  contains "$tmp/err" "894 records read, 1 damaged record skipped"
  "$dump" "$routed" | sed 401d >"$tmp/dump-want" || fail "pcap_dump of the sample"
  "$dump" "$tmp/w.pcapng" >"$tmp/dump-got" || fail "the -w file is not a valid capture"
  check "-w wrote the 894 good records unchanged" diff -q "$tmp/dump-want" "$tmp/dump-got"
  expect_exit 0 "$lnetcap" -r "$tmp/w.pcapng"
  [ ! -s "$tmp/err" ] || fail "the rewritten file is not clean"
  # Reports and filters see the good records.
  expect_exit 0 "$lnetcap" -r "$tmp/w.pcapng" --summary=json
  mv "$tmp/out" "$tmp/summary-want"
  expect_exit 0 "$lnetcap" -r "$tmp/m.pcapng" --summary=json
  check "--summary counts the 894" diff -u "$tmp/summary-want" "$tmp/out"
  contains "$tmp/out" '"messages": 894'
  "$lnetcap" -r "$routed" 'dir forward' 2>/dev/null | grep -vxF -- "$(sed -n 400p "$tmp/all.txt")" >"$tmp/fwd-want"
  expect_exit 0 "$lnetcap" -r "$tmp/m.pcapng" 'dir forward'
  check "a filter sees every good record" diff -u "$tmp/fwd-want" "$tmp/out"
  expect_eq "forwarded records" "$(lines "$tmp/out")" 261
  expect_exit 0 "$lnetcap" -c 450 -r "$tmp/m.pcapng"
  check "-c counts good records" diff -u <(head -450 "$tmp/want.txt") "$tmp/out"
  # --strict: the damaged record ends the read, exit 1, what came before kept.
  expect_exit 1 "$lnetcap" --strict -r "$tmp/m.pcapng" -w "$tmp/s.pcapng" --print
  check "--strict printed the 399 records before it" diff -u <(head -399 "$tmp/all.txt") "$tmp/out"
  contains "$tmp/err" "lnetcap: $tmp/m.pcapng: offset $off: record 400: bad lnetcap record: record magic is not \"LNCR\""
  lacks "$tmp/err" "warning"
  "$dump" "$tmp/s.pcapng" >"$tmp/dump-got" || fail "the --strict -w file is not a valid capture"
  check "--strict -w wrote the 399 records before it" diff -q <("$dump" "$routed" | head -400) "$tmp/dump-got"
  expect_exit 1 "$lnetcap" --strict
  contains "$tmp/err" "--strict is about damaged records in a file: give -r FILE with it" ;;
damaged-block)
  # A packet block damaged inside whole framing (an interface that does not
  # exist) is a damaged record too.
  need_cmd python3
  "$lnetcap" -r "$routed" >"$tmp/all.txt" 2>/dev/null || fail "the sample does not read"
  off=$(python3 "$mutate" "$routed" "$tmp/m.pcapng" epb-interface 400) || fail "mutation failed"
  expect_exit 0 "$lnetcap" -r "$tmp/m.pcapng"
  check "the 894 other records printed" diff -u <(sed 400d "$tmp/all.txt") "$tmp/out"
  contains "$tmp/err" "lnetcap: warning: $tmp/m.pcapng: offset $off: record 400: packet refers to interface 99 but the section defines"
  contains "$tmp/err" "lnetcap: 894 records read, 1 damaged record skipped"
  expect_exit 1 "$lnetcap" -r "$tmp/m.pcapng" --strict
  expect_eq "records printed before it" "$(lines "$tmp/out")" 399
  contains "$tmp/err" "lnetcap: $tmp/m.pcapng: offset $off: record 400: packet refers to interface 99" ;;
damaged-many)
  # 30 damaged records: 20 warnings, one line for the rest, all counted.
  need_cmd python3
  python3 "$mutate" "$routed" "$tmp/m.pcapng" record-length "$(seq -s, 10 10 300)" >/dev/null || fail "mutation failed"
  expect_exit 0 "$lnetcap" -r "$tmp/m.pcapng"
  expect_eq "records printed" "$(lines "$tmp/out")" 865
  expect_eq "warnings" "$(grep -c ': bad lnetcap record: record is .* bytes but its header announces' "$tmp/err")" 20
  contains "$tmp/err" "record 200: bad lnetcap record"
  lacks "$tmp/err" "record 210:"
  contains "$tmp/err" "lnetcap: warning: $tmp/m.pcapng: more than 20 damaged records; the others are counted at the end, not listed"
  contains "$tmp/err" "lnetcap: 865 records read, 30 damaged records skipped (the first 20 listed above"
  expect_eq "stderr lines" "$(lines "$tmp/err")" 22 ;;
damaged-all)
  # Not one good record (all of a newer version, say) is an error, not an
  # empty success.
  need_cmd python3
  python3 "$mutate" "$routed" "$tmp/m.pcapng" record-version "$(seq -s, 1 895)" >/dev/null || fail "mutation failed"
  expect_exit 1 "$lnetcap" -r "$tmp/m.pcapng"
  [ ! -s "$tmp/out" ] || fail "printed something"
  contains "$tmp/err" "upgrade lnetcap"
  contains "$tmp/err" "lnetcap: 0 records read, 895 damaged records skipped"
  contains "$tmp/err" "lnetcap: no lnetcap record of $tmp/m.pcapng could be read: all 895 were damaged" ;;
corrupt-framing-midfile)
  # A broken block framing in the middle still ends the read: its offset,
  # how far the reading got, exit 1, everything before it printed/written.
  need_cmd python3
  "$lnetcap" -r "$routed" >"$tmp/all.txt" 2>/dev/null || fail "the sample does not read"
  off=$(python3 "$mutate" "$routed" "$tmp/b.pcapng" block-length 400) || fail "mutation failed"
  expect_exit 1 "$lnetcap" -r "$tmp/b.pcapng" -w "$tmp/w.pcapng" --print
  check "the 399 records before it printed" diff -u <(head -399 "$tmp/all.txt") "$tmp/out"
  contains "$tmp/err" "lnetcap: $tmp/b.pcapng: offset $off: block 0x00000006: trailing length does not match"
  contains "$tmp/err" "; 399 records read before it"
  contains "$tmp/err" "hint: the file is damaged"
  "$dump" "$tmp/w.pcapng" >"$tmp/dump-got" || fail "the -w file is not a valid capture"
  check "-w wrote the 399 records before it" diff -q <("$dump" "$routed" | head -400) "$tmp/dump-got"
  # A damaged record, then the file cut short: both said.
  python3 "$mutate" "$routed" "$tmp/r.pcapng" record-magic 100 >/dev/null || fail "mutation failed"
  off=$(python3 "$mutate" "$tmp/r.pcapng" "$tmp/c.pcapng" cut 400) || fail "mutation failed"
  expect_exit 1 "$lnetcap" -r "$tmp/c.pcapng"
  check "the 398 good records before the cut printed" diff -u <(head -399 "$tmp/all.txt" | sed 100d) "$tmp/out"
  contains "$tmp/err" "warning: $tmp/c.pcapng: offset"
  contains "$tmp/err" "record 100: bad lnetcap record"
  contains "$tmp/err" "lnetcap: $tmp/c.pcapng: offset $off: block 0x00000006 of"
  contains "$tmp/err" "is truncated (file ends 20 bytes into it); 398 records read before it, 1 damaged record skipped" ;;
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
  [ -w /dev/full ] || skip "no /dev/full"
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
  corpus=$src/tests/data/corpus/lnet-socklnd.pcap
  [ -f "$corpus" ] || { echo "SKIP: corpus missing"; exit 77; }
  "$lnetcap" -r - -q -v <"$corpus" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; fail "lnetcap -r - failed"; }
  [ "$(lines "$tmp/out")" = 2910 ] || fail "expected 2910 messages from the piped tcpdump file"
  contains "$tmp/err" "lnetcap: " ;;
read-fifo)
  # A path that is a FIFO yields its bytes once: read like -r -, not
  # probed and reopened (issue 23, item 6).
  mkfifo "$tmp/fifo"
  cat "$sample" >"$tmp/fifo" &
  writer=$!
  on_exit 'kill $writer'  # blocked on its open if lnetcap never read
  expect_exit 0 timeout -k 5 30 "$lnetcap" -r "$tmp/fifo"
  check "the text of a FIFO equals golden/synthetic.txt" diff -u "$golden/synthetic.txt" "$tmp/out"
  rc=0; wait "$writer" || rc=$?
  expect_eq "exit status of the FIFO's writer" "$rc" 0
  # /dev/stdin on a pipe, and a damaged stream is named by its path.
  expect_exit 0 sh -c 'cat "$1" | timeout 30 "$2" -r /dev/stdin -c 3' sh "$sample" "$lnetcap"
  expect_eq "lines read from /dev/stdin on a pipe" "$(lines "$tmp/out")" 3
  expect_exit 1 sh -c 'head -c 100 "$1" | timeout 30 "$2" -r /dev/stdin' sh "$sample" "$lnetcap"
  contains "$tmp/err" "/dev/stdin: offset" ;;
read-fifo-tcpdump)
  # A classic pcap of socklnd TCP traffic through a FIFO goes to the
  # socklnd converter, as on -r -.
  corpus=$src/tests/data/corpus/lnet-socklnd.pcap
  need_file "$corpus"
  expect_exit 0 "$lnetcap" -r "$corpus" -q
  cp "$tmp/out" "$tmp/want"
  mkfifo "$tmp/fifo"
  cat "$corpus" >"$tmp/fifo" &
  writer=$!
  on_exit 'kill $writer'
  expect_exit 0 timeout -k 5 60 "$lnetcap" -r "$tmp/fifo" -q
  check "socklnd text through a FIFO equals the file's" cmp -s "$tmp/want" "$tmp/out"
  expect_eq "lines" "$(lines "$tmp/out")" 2910 ;;
read-process-substitution)
  # lnetcap -r <(zcat trace.pcapng.gz): /dev/fd/N is a pipe.
  gzip -c "$sample" >"$tmp/trace.pcapng.gz"
  expect_exit 0 timeout -k 5 30 "$lnetcap" -r <(zcat "$tmp/trace.pcapng.gz")
  check "the text of <(zcat ...) equals golden/synthetic.txt" diff -u "$golden/synthetic.txt" "$tmp/out"
  contains "$tmp/err" "2 messages dropped"
  # -w of a process substitution's records: byte-exact rewrite, as from the file.
  expect_exit 0 timeout -k 5 30 "$lnetcap" -r <(zcat "$tmp/trace.pcapng.gz") -w "$tmp/copy.pcapng"
  "$dump" "$sample" >"$tmp/a" || fail "pcap_dump of the sample"
  "$dump" "$tmp/copy.pcapng" >"$tmp/b" || fail "pcap_dump of the copy"
  check "records of a rewrite from <(zcat ...) equal the sample's" diff -u "$tmp/a" "$tmp/b" ;;
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
  need_cmd tshark
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
output-is-input)
  # Files are compared, not names: every way of naming the input as an
  # output is refused before anything is opened, and the input is intact.
  mkdir "$tmp/d" "$tmp/e"
  cp "$sample" "$tmp/d/in.pcapng"
  ln -s "$tmp/d/in.pcapng" "$tmp/d/symlink.pcapng"
  ln "$tmp/d/in.pcapng" "$tmp/d/hardlink.pcapng"
  cd "$tmp/d"
  for out in in.pcapng ./in.pcapng "$tmp/d/in.pcapng" ../d/in.pcapng ../e/../d/in.pcapng \
             symlink.pcapng hardlink.pcapng; do
    expect_exit 1 "$lnetcap" -r in.pcapng -w "$out"
    contains "$tmp/err" "-w $out is the file -r in.pcapng reads: refusing to overwrite it"
    [ "$(grep -c . "$tmp/err")" = 2 ] || fail "expected one message and one hint for -w $out"
    cmp -s "$sample" in.pcapng || fail "-w $out damaged the input"
  done
  expect_exit 1 "$lnetcap" -r symlink.pcapng -w hardlink.pcapng
  # Rotation: the input is one of the names -C would write (or a link to it).
  cp "$sample" in.pcapng2
  expect_exit 1 "$lnetcap" -r in.pcapng2 -w in.pcapng -C 1
  contains "$tmp/err" "would rotate into ./in.pcapng2, the file -r in.pcapng2 reads"
  expect_exit 1 "$lnetcap" -r in.pcapng2 -w "$tmp/d/in.pcapng" -C 1 -W 5
  ln -s in.pcapng trace7
  expect_exit 1 "$lnetcap" -r in.pcapng -w trace -C 1 -W 10
  contains "$tmp/err" "would rotate into ./trace7, the file -r in.pcapng reads"
  ln -s in.pcapng "hour-12.pcapng"
  expect_exit 1 "$lnetcap" -r in.pcapng -w 'hour-%H.pcapng' -G 3600
  contains "$tmp/err" "would rotate into ./hour-12.pcapng"
  cmp -s "$sample" in.pcapng && cmp -s "$sample" in.pcapng2 || fail "a rotation damaged the input"
  # Names a ring of 3 never reaches, and other outputs, are fine.
  expect_exit 0 "$lnetcap" -r in.pcapng2 -w ring -C 1 -W 2
  [ -s ring0 ] || fail "the ring was not written"
  # Two outputs naming one file, and a --chart-output that is the input.
  expect_exit 1 "$lnetcap" -r in.pcapng -w out.pcapng --chart mermaid --chart-output ./out.pcapng
  contains "$tmp/err" "--chart-output ./out.pcapng is the file -w out.pcapng writes"
  expect_exit 1 "$lnetcap" -r in.pcapng --chart html --chart-output symlink.pcapng
  [ ! -e out.pcapng ] || fail "a refused command created its output"
  cmp -s "$sample" in.pcapng || fail "the input was damaged" ;;
text-write-errors)
  # Every text output checks its writes: a full disk is an error, never
  # exit 0, and the capture file beside it stays whole.
  [ -w /dev/full ] || skip "no /dev/full"
  for args in "--summary" "--summary=json" "--summary=prometheus" "--chart=mermaid" \
              "--chart=html" "--assert count(type==put)>0" "-c 1" "-p %Lt" "-v"; do
    # shellcheck disable=SC2086
    "$lnetcap" -r "$sample" $args >/dev/full 2>"$tmp/err" && fail "$args > /dev/full exited 0"
    contains "$tmp/err" "to standard output: No space left on device"
  done
  "$lnetcap" -r "$sample" -w "$tmp/keep.pcapng" --summary >/dev/full 2>"$tmp/err" &&
    fail "-w FILE --summary > /dev/full exited 0"
  contains "$tmp/err" "cannot write the summary to standard output"
  "$dump" "$sample" >"$tmp/a" && "$dump" "$tmp/keep.pcapng" >"$tmp/b" || fail "capture file unreadable"
  diff -u "$tmp/a" "$tmp/b" || fail "the capture file lost records" ;;
closed-reader)
  # `lnetcap -r big | head`: the reader going away ends the run quietly
  # with exit 0 (not "Broken pipe", exit 1), and a -w file written beside
  # the text is complete.  The sample's text (~5800 lines) is far more than
  # a pipe holds, so lnetcap is still writing when head exits.
  big=$src/samples/lnet-socklnd.pcapng
  "$lnetcap" -r "$big" 2>"$tmp/err" | head -1 >"$tmp/out"
  rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || cat "$tmp/err" >&2
  expect_eq "exit status of lnetcap | head" "$rc" 0
  [ ! -s "$tmp/err" ] || { cat "$tmp/err" >&2; fail "lnetcap | head printed an error"; }
  [ "$(lines "$tmp/out")" = 1 ] || fail "head saw no line"
  "$lnetcap" -r "$big" -w "$tmp/part.pcapng" --print 2>"$tmp/err" | head -1 >/dev/null
  rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || { cat "$tmp/err" >&2; fail "lnetcap -w F --print | head exited $rc"; }
  "$lnetcap" -r "$tmp/part.pcapng" >"$tmp/part.txt" 2>"$tmp/err" || fail "the -w file is not readable"
  [ "$(lines "$tmp/part.txt")" -ge 1 ] || fail "the -w file lost the records already printed" ;;
write-stdout-reports)
  # With -w - standard output is the pcapng stream: no text may go there.
  for args in "--summary" "--summary=json" "--chart=mermaid" "--assert count(type==put)>0" "--print"; do
    # shellcheck disable=SC2086
    expect_exit 1 "$lnetcap" -r "$sample" -w - $args
    contains "$tmp/err" "cannot share standard output with -w -"
    [ ! -s "$tmp/out" ] || fail "$args wrote to standard output"
  done
  # A chart with its own file is fine, and the stream stays a valid capture.
  "$lnetcap" -r "$sample" -w - --chart=mermaid --chart-output "$tmp/c.mmd" >"$tmp/s.pcapng" 2>"$tmp/err" ||
    fail "--chart-output FILE with -w - failed"
  "$dump" "$tmp/s.pcapng" >/dev/null || fail "the stream is not a valid capture"
  contains "$tmp/c.mmd" "sequenceDiagram" ;;
wire-escaping)
  # A jobid that retitles the terminal (ESC ] 0 ; X BEL) and a task name
  # that clears it and breaks the line (ESC [ 2 J CR LF), same lengths as
  # the sample's "dd.500" and "ll_ping", so the records stay valid.
  perl -0777 -pe 's/dd\.500/\x1b]0;X\x07/g; s/ll_ping/\x1b[2J\r\nZ/g' "$sample" >"$tmp/h.pcapng"
  ! cmp -s "$sample" "$tmp/h.pcapng" || fail "the sample was not patched"
  for args in "" "-v" "-vv -x" "-q" "-p %Pj|%c" "--summary" "--summary=json" "--summary=prometheus" \
              "--chart=mermaid" "--chart=html" "--assert count(jobid)>0"; do
    # shellcheck disable=SC2086
    "$lnetcap" -r "$tmp/h.pcapng" $args >"$tmp/out" 2>"$tmp/err"
    # Tabs (the -x dump) and newlines are ours; anything else is not.
    if LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f-\xff]' "$tmp/out" "$tmp/err"; then
      grep -naP '[\x00-\x08\x0b-\x1f\x7f-\xff]' "$tmp/out" "$tmp/err" | cat -v >&2
      fail "raw control bytes in the output of lnetcap $args"
    fi
  done
  "$lnetcap" -r "$tmp/h.pcapng" -v >"$tmp/out" 2>/dev/null
  # One line per record; -v's own detail lines (a ping reply's NIs) start
  # with a tab, which a hostile byte can never produce (it is escaped).
  [ "$(grep -vc $'^\t' "$tmp/out")" = 8 ] || fail "a record printed as more than one line"
  [ "$(grep -c $'^\t' "$tmp/out")" = 1 ] || fail "not exactly one -v detail line (the ping reply's)"
  contains "$tmp/out" 'jobid \033]0;X\007 '
  contains "$tmp/out" 'task \033[2J\015\012Z[2011]'
  "$lnetcap" -r "$tmp/h.pcapng" -p '[%Pj]' >"$tmp/out" 2>/dev/null
  contains "$tmp/out" '[\033]0;X\007]'
  "$lnetcap" -r "$tmp/h.pcapng" --summary >"$tmp/out" 2>/dev/null
  grep -q '^\\033\]0;X\\007 ' "$tmp/out" || fail "summary row of the jobid is not escaped"
  "$lnetcap" -r "$tmp/h.pcapng" --chart=html >"$tmp/out" 2>/dev/null
  contains "$tmp/out" '10.0.3.2@tcp \033]0;X\007</text>'
  # Error messages quote what they were given: escaped too.
  printf 'type \033]0;X\007\n' >"$tmp/f"
  expect_exit 1 "$lnetcap" -r "$sample" -F "$tmp/f"
  contains "$tmp/err" "at line 1, column 6 of $tmp/f ('\\033]0;X\\007')"
  ! grep -qaP '[\x00-\x08\x0b-\x1f]' "$tmp/err" || fail "raw control bytes in an error message" ;;
number-ranges)
  # Every number a user types is range-checked for its field; nothing wraps.
  expect_exit 1 "$lnetcap" -r "$sample" portal 4294967300
  contains "$tmp/err" "portal value out of range (0 to 4294967295) at column 8 ('4294967300')"
  expect_exit 1 "$lnetcap" -r "$sample" 'xid == 18446744073709551616'
  contains "$tmp/err" "xid value out of range (0 to 18446744073709551615)"
  expect_exit 1 "$lnetcap" -r "$sample" 'status < -9223372036854775808'
  contains "$tmp/err" "status value out of range (-2147483648 to 2147483647)"
  expect_exit 1 "$lnetcap" -r "$sample" 'uid == -1'
  contains "$tmp/err" "uid value out of range (0 to 4294967295)"
  expect_exit 1 "$lnetcap" -r "$sample" 'retries > 256'
  contains "$tmp/err" "retries value out of range (0 to 255)"
  # XIDs are 64-bit unsigned: 2^63 is above every XID of the sample.
  expect_exit 0 "$lnetcap" -r "$sample" 'xid > 0x8000000000000000'
  [ ! -s "$tmp/out" ] || fail "xid > 2^63 matched (the comparison wrapped)"
  expect_exit 0 "$lnetcap" -r "$sample" 'xid < 0x8000000000000000 and xid == 0xffffffffffffffff or xid == 0x655400000080'
  [ "$(lines "$tmp/out")" = 2 ] || fail "expected the enqueue and its reply"
  expect_exit 1 "$lnetcap" -r "$sample" -w "$tmp/o" -C 99999999999999999999
  contains "$tmp/err" "invalid file size '99999999999999999999' for -C (expected 1 to"
  expect_exit 1 "$lnetcap" -r "$sample" -w "$tmp/o" -C 17179869184g
  contains "$tmp/err" "invalid file size '17179869184g' for -C"
  [ ! -e "$tmp/o" ] || fail "a refused -C created its file"
  expect_exit 1 "$lnetcap" -r "$sample" -c 18446744073709551616
  contains "$tmp/err" "(expected a number from 1 to 18446744073709551615)"
  expect_exit 1 "$lnetcap" -r "$sample" -p '%-99999999Lt'
  contains "$tmp/err" "-p: width 99999999 at column 1 is too large (0 to 1000)" ;;
filter-file-bounds)
  expect_exit 1 timeout 20 "$lnetcap" -r "$sample" -F /dev/zero
  contains "$tmp/err" "filter file /dev/zero is larger than 1024 KiB"
  expect_exit 1 "$lnetcap" -r "$sample" -F "$tmp"
  contains "$tmp/err" "filter file $tmp is a directory"
  expect_exit 1 "$lnetcap" -r "$sample" -F "$tmp/none"
  contains "$tmp/err" "cannot read filter file $tmp/none: No such file or directory"
  # Errors name the line and column in the file, comments included.
  printf '# failed RPCs\nnet kfi\n   and statis < 0\n' >"$tmp/f"
  expect_exit 1 "$lnetcap" -r "$sample" -F "$tmp/f"
  contains "$tmp/err" "unknown filter keyword at line 3, column 8 of $tmp/f ('statis')"
  printf 'jobid "dd.500\n' >"$tmp/f"
  expect_exit 1 "$lnetcap" -r "$sample" -F "$tmp/f"
  contains "$tmp/err" "unterminated quoted string at line 1, column 7 of $tmp/f" ;;
clearer-errors)
  expect_exit 1 "$lnetcap" -r "$tmp/nosuchfile.pcapng"
  [ "$(grep -o nosuchfile "$tmp/err" | wc -l)" = 1 ] || fail "the file is named more than once"
  contains "$tmp/err" "$tmp/nosuchfile.pcapng: No such file or directory"
  # A classic pcap (little-endian, nanosecond magic) with link type 154 and
  # one 4-byte packet: lnetcap's records in a format that cannot hold them.
  printf '\x4d\x3c\xb2\xa1\x02\x00\x04\x00\0\0\0\0\0\0\0\0\xff\xff\0\0\x9a\0\0\0' >"$tmp/classic.pcap"
  printf '\1\0\0\0\0\0\0\0\4\0\0\0\4\0\0\0LNCR' >>"$tmp/classic.pcap"
  expect_exit 1 "$lnetcap" -r "$tmp/classic.pcap"
  contains "$tmp/err" "$tmp/classic.pcap: lnetcap records need pcapng"
  contains "$tmp/err" "editcap -F pcapng" ;;
only-command)
  # --only-command needs a live command, and Lustre's per-session jobids:
  # each missing piece is one message naming what to set.
  expect_exit 1 "$lnetcap" --only-command -r "$sample"
  contains "$tmp/err" "--only-command counts what a command run live causes"
  expect_exit 1 "$lnetcap" --assert 'count() > 0' --only-command -r "$sample" -- true
  contains "$tmp/err" "(no -r, no --from)"
  mkdir -p "$tmp/sysfs"
  export LNETCAP_LUSTRE_SYSFS=$tmp/sysfs
  expect_exit 1 "$lnetcap" --assert 'count() > 0' --only-command -- true
  contains "$tmp/err" "no Lustre client here ($tmp/sysfs/jobid_var is missing)"
  echo procname_uid >"$tmp/sysfs/jobid_var"
  expect_exit 1 "$lnetcap" --assert 'count() > 0' --only-command -- true
  contains "$tmp/err" "jobid_var is 'procname_uid'"
  contains "$tmp/err" "lctl set_param jobid_var=session" ;;
*)
  fail "unknown case" ;;
esac
echo "PASS [$case]"
