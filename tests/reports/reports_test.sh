#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# reports_test.sh BUILD_DIR SOURCE_DIR CASE - end-to-end tests of
# --summary, --chart, --assert and -C/-G/-W/-z rotation.
#
# Where the expected numbers come from (never from lnetcap's own output):
#  - tests/data/corpus/README.md: lustre-fs-part1 holds 65 PtlRPC requests
#    and 65 replies; per opcode LDLM_ENQUEUE 21, LDLM_CANCEL 4, MDS_CLOSE 7,
#    MDS_STATFS 4, OST_WRITE 4, OBD_PING 5, LLOG_ORIGIN_HANDLE_CREATE 3,
#    LLOG_ORIGIN_HANDLE_NEXT_BLOCK 2, LLOG_ORIGIN_HANDLE_READ_HEADER 2 and
#    one each of MGS_CONNECT, MGS_CONFIG_READ, MDS_CONNECT, MDS_GET_ROOT,
#    MDS_GETATTR, MDS_REINT, MDS_READPAGE, MDS_SYNC, OST_CONNECT, OST_STATFS,
#    OST_SYNC, OST_READ, SEQ_QUERY.
#  - samples/README.md: samples/lustre-fs-part1.pcapng holds 149 records.
#  - tshark (Wireshark's own lnet/lustre dissectors) on the corpus: request
#    and reply times, paired by NIDs and match bits, give the latencies.
#  - tshark on the corpus, one LLOG_ORIGIN_HANDLE_CREATE reply has
#    pb_status -2 (ENOENT) and OST_READ's reply carries 1048576 (bytes).
set -uo pipefail
build=$1 src=$2 case=$3
lnetcap=$build/capture/lnetcap
sample=$src/samples/lustre-fs-part1.pcapng
corpus=$src/tests/data/corpus/lustre-fs-part1.pcap
export TZ=UTC LC_ALL=C
TEST_CASE=$case
. "$src/tests/support/testlib.sh"
tmp=$(mktemp -d)
on_exit 'rm -rf "$tmp"'

expect_exit() {  # expect_exit CODE cmd...
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [ "$got" -eq "$want" ] || cat "$tmp/out" "$tmp/err" >&2
  expect_eq "exit status of $*" "$got" "$want"
}
need_sample() { [ -f "$sample" ] || skip "$sample missing"; }
need_corpus() { [ -f "$corpus" ] || skip "$corpus missing"; }
json() {  # json FILE PYTHON-EXPR: prints the expression over the parsed file as d
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
records() { "$lnetcap" -q -r "$1" 2>/dev/null | wc -l | tr -d ' '; }

case $case in
summary-table)
  need_sample
  expect_exit 0 "$lnetcap" -r "$sample" --summary
  contains "$tmp/out" "lnetcap summary: 149 messages"
  contains "$tmp/out" "RPCs: 65 requests, 65 replies, 65 matched, 1 errors, 0 unanswered"
  grep -Eq '^LDLM_ENQUEUE +42 +[0-9]+ +0 +21 +21 +0 +0 ' "$tmp/out" || fail "LDLM_ENQUEUE row"
  # OST_WRITE: 4 requests and replies, then the 1 MiB its GET pulled (corpus README).
  grep -Eq '^OST_WRITE +10 +[0-9]+ +1048576 +4 +4 +0 +0 ' "$tmp/out" || fail "OST_WRITE row with its bulk"
  contains "$tmp/out" "LLOG_ORIGIN_HANDLE_CREATE    -2 (ENOENT)"
  for section in "By opcode" "By portal" "By peer" "By jobid" "By target"; do contains "$tmp/out" "$section"; done
  # A summary replaces the per-message lines.
  lacks "$tmp/out" "SEND PUT" ;;
summary-json-corpus-counts)
  need_sample
  expect_exit 0 "$lnetcap" -r "$sample" --summary=json
  cp "$tmp/out" "$tmp/s.json"
  [ "$(json "$tmp/s.json" "d['total']['requests'], d['total']['replies'], d['total']['messages']")" = "65 65 149" ] ||
    fail "totals"
  python3 - "$tmp/s.json" <<'PY' || fail "per-opcode request counts differ from the corpus README"
import json, sys
d = json.load(open(sys.argv[1]))
want = {"LDLM_ENQUEUE": 21, "LDLM_CANCEL": 4, "MDS_CLOSE": 7, "MDS_STATFS": 4, "OST_WRITE": 4,
        "OBD_PING": 5, "LLOG_ORIGIN_HANDLE_CREATE": 3, "LLOG_ORIGIN_HANDLE_NEXT_BLOCK": 2,
        "LLOG_ORIGIN_HANDLE_READ_HEADER": 2}
for one in ("MGS_CONNECT MGS_CONFIG_READ MDS_CONNECT MDS_GET_ROOT MDS_GETATTR MDS_REINT "
            "MDS_READPAGE MDS_SYNC OST_CONNECT OST_STATFS OST_SYNC OST_READ SEQ_QUERY").split():
    want[one] = 1
got = {g["opcode"]: g["requests"] for g in d["by_opcode"]}
replies = {g["opcode"]: g["replies"] for g in d["by_opcode"]}
assert got == want, (got, want)
assert replies == want, replies
errs = {g["opcode"]: g["errors_by_status"] for g in d["by_opcode"] if g["errors"]}
assert errs == {"LLOG_ORIGIN_HANDLE_CREATE": [{"status": -2, "name": "-2 (ENOENT)", "count": 1}]}, errs
# Every RPC was answered, so every opcode has one latency per request.
for g in d["by_opcode"]:
    assert g["latency_ns"]["count"] == g["requests"], g
PY
  ;;
summary-latency-vs-tshark)
  need_corpus
  command -v tshark >/dev/null || skip "tshark not installed"
  # Request/reply pairs as Wireshark sees them: the reply goes the other way
  # with the request's match bits.  Some messages span TCP segments that
  # tshark does not reassemble here, so it pairs fewer RPCs than lnetcap;
  # the slowest ones are among them, so p90, p99 and max must agree (to the
  # microsecond of the capture's timestamps).
  tshark -r "$corpus" -Y lustre.ptlrpc_body -T fields -E occurrence=f -e frame.time_epoch \
    -e lnet.src_nid -e lnet.dest_nid -e lnet.msg_dst_match_bits -e lustre.ptlrpc_body.pb_type \
    >"$tmp/tshark.tsv" 2>/dev/null || skip "tshark failed"
  expect_exit 0 "$lnetcap" -r "$corpus" --summary=json
  python3 - "$tmp/tshark.tsv" "$tmp/out" <<'PY' || fail "latencies differ from tshark's"
import json, math, sys
pending, lat = {}, []
for line in open(sys.argv[1]):
    t, src, dst, mb, typ = line.rstrip("\n").split("\t")
    if typ == "4711":
        pending[(src, dst, mb)] = float(t)
    elif (dst, src, mb) in pending:
        lat.append(float(t) - pending.pop((dst, src, mb)))
lat.sort()
rank = lambda p: lat[max(1, math.ceil(p / 100 * len(lat) - 1e-9)) - 1]
ours = json.load(open(sys.argv[2]))["total"]["latency_ns"]
assert len(lat) >= 60, len(lat)
for key, theirs in (("p90", rank(90)), ("p99", rank(99)), ("max", lat[-1])):
    assert abs(ours[key] / 1e9 - theirs) < 2e-6, (key, ours[key], theirs)
print("tshark pairs", len(lat), "max", lat[-1])
PY
  ;;
summary-bulk-vs-plugin)
  # Every bulk record of the sample names its RPC, and bytes per opcode,
  # jobid and target are message bytes plus bulk bytes.  Which RPC each
  # bulk frame belongs to comes from the Wireshark plugin's own linking
  # (its checked-in golden tests/wireshark/golden/corpus-fs-info.txt, the
  # plugin run over this sample), not from lnetcap; the lengths from the
  # LNet headers as the text lines print them.
  need_sample
  plugin=$src/tests/wireshark/golden/corpus-fs-info.txt
  [ -f "$plugin" ] || skip "$plugin missing"
  expect_exit 0 "$lnetcap" -n -r "$sample"
  cp "$tmp/out" "$tmp/lines"
  expect_exit 0 "$lnetcap" -n -r "$sample" --summary=json
  python3 - "$plugin" "$tmp/lines" "$tmp/out" <<'PY' || fail "bulk attribution differs from the plugin's"
import collections, json, re, sys
plugin = {}
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    frame, info = line.rstrip("\n").split("|", 1)
    m = re.search(r"\[(bulk|reply ACK) of (\S+) xid (0x[0-9a-f]+)\]", info)
    if m:
        plugin[int(frame)] = (m.group(1), m.group(2), int(m.group(3), 16))
lines = open(sys.argv[2]).read().splitlines()
assert len(lines) == 149, len(lines)
ours, rpcs = {}, {}
for n, line in enumerate(lines, 1):
    m = re.search(r": (bulk|reply ACK) of (\S+) xid (0x[0-9a-f]+)", line)
    if m:
        ours[n] = (m.group(1), m.group(2), int(m.group(3), 16))
    m = re.search(r"^\S+ \S+ PUT (\S+) > (\S+) \S+ xid (0x[0-9a-f]+) .*: (\S+) request( jobid (\S+))?", line)
    if m:
        rpcs[int(m.group(3), 16)] = {"target": m.group(2), "jobid": m.group(6) or "(none)"}
bulk = {n: v for n, v in plugin.items() if v[0] == "bulk"}
assert len(bulk) >= 8, bulk  # MGS_CONFIG_READ, MDS_READPAGE, OST_WRITE and OST_READ bulk
assert ours == plugin, (sorted(set(ours.items()) ^ set(plugin.items())))
# Every GET and PUT on a bulk portal names its RPC.
for n, line in enumerate(lines, 1):
    if re.search(r" (GET|PUT) .* (OST|MDS|MGS)_BULK ", line):
        assert ours.get(n, ("",))[0] == "bulk", line
# Bytes per opcode / jobid / target, computed from the lines and the plugin's links.
want = {d: collections.defaultdict(lambda: [0, 0]) for d in ("opcode", "jobid", "target")}
none_bytes = 0
for n, line in enumerate(lines, 1):
    length = int(re.search(r" len (\d+)", line).group(1))
    m = re.search(r": (\S+) (request|reply|error|early reply)\b", line)
    if m and "bulk of" not in line and "reply ACK of" not in line:
        want["opcode"][m.group(1)][0] += length
    if n in bulk:
        _, op, xid = bulk[n]
        keys = {"opcode": op, "jobid": rpcs[xid]["jobid"], "target": rpcs[xid]["target"]}
        for d, k in keys.items():
            want[d][k][0] += length
            want[d][k][1] += length
    elif re.search(r" (ACK|REPLY) ", line):
        none_bytes += length
d = json.load(open(sys.argv[3]))
got = {g["opcode"]: [g["bytes"], g["bulk_bytes"]] for g in d["by_opcode"]}
assert got == dict(want["opcode"]), (got, dict(want["opcode"]))
assert got["OST_WRITE"][1] == 1048576 and got["OST_READ"][1] == 1048576, got
for dim in ("jobid", "target"):
    got = {g[dim]: g["bulk_bytes"] for g in d["by_" + dim] if g["bulk_bytes"]}
    assert got == {k: v[1] for k, v in want[dim].items()}, (dim, got, dict(want[dim]))
portal = {g["portal"]: g["bytes"] for g in d["by_portal"]}
assert portal.get("(none)", 0) == none_bytes, (portal, none_bytes)
assert d["total"]["bulk_bytes"] == sum(v[1] for v in want["opcode"].values()), d["total"]
PY
  ;;
summary-prometheus)
  need_sample
  # Debian's python3-prometheus-client lives in the system interpreter.
  py=python3
  $py -c "import prometheus_client" 2>/dev/null || py=/usr/bin/python3
  $py -c "import prometheus_client" 2>/dev/null || skip "python3-prometheus-client not installed"
  expect_exit 0 "$lnetcap" -r "$sample" --summary=prometheus
  $py - "$tmp/out" <<'PY' || fail "not a valid exposition"
import sys
from prometheus_client.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
assert all(n.startswith("lnetcap_") for n in fams), list(fams)
def sample(fam, name, **labels):
    for s in fams[fam].samples:
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    raise KeyError((fam, name, labels))
assert fams["lnetcap_opcode_rpc_latency_seconds"].type == "histogram"
assert sample("lnetcap_messages", "lnetcap_messages_total") == 149
assert sample("lnetcap_opcode_requests", "lnetcap_opcode_requests_total", opcode="LDLM_ENQUEUE") == 21
assert sample("lnetcap_opcode_rpc_latency_seconds", "lnetcap_opcode_rpc_latency_seconds_count",
              opcode="OST_WRITE") == 4
assert sample("lnetcap_opcode_rpc_latency_seconds", "lnetcap_opcode_rpc_latency_seconds_bucket",
              opcode="OBD_PING", le="+Inf") == 5
assert sample("lnetcap_opcode_rpc_errors", "lnetcap_opcode_rpc_errors_total",
              opcode="LLOG_ORIGIN_HANDLE_CREATE", status="-2") == 1
PY
  ;;
summary-latency-split-merged)
  # The corpus as its client and as its server saw it (--local-nid: SEND on
  # one side, RECV on the other, the same wire times), the server's clock
  # shifted by +1 ms and both merged, as a site merges two nodes' captures:
  # the offset must come out 1 ms and every transit 0; per opcode as many
  # RPCs as the corpus README lists; where there is no bulk phase, the
  # server time is the request->reply time of the one-node summary (which
  # summary-latency-vs-tshark checks against tshark); one client, one
  # target.
  need_corpus
  command -v mergecap >/dev/null && command -v editcap >/dev/null || skip "mergecap/editcap missing"
  "$lnetcap" -r "$corpus" --local-nid 10.0.3.2@tcp -w "$tmp/c.pcapng" 2>/dev/null || fail "client-side conversion failed"
  "$lnetcap" -r "$corpus" --local-nid 10.0.3.1@tcp -w "$tmp/s0.pcapng" 2>/dev/null || fail "server-side conversion failed"
  editcap -t 0.001 "$tmp/s0.pcapng" "$tmp/s.pcapng" >/dev/null || fail "editcap failed"
  mergecap -w "$tmp/m.pcapng" "$tmp/c.pcapng" "$tmp/s.pcapng" || fail "mergecap failed"
  expect_exit 0 "$lnetcap" -r "$corpus" --summary=json
  cp "$tmp/out" "$tmp/one.json"
  expect_exit 0 "$lnetcap" -r "$tmp/m.pcapng" --summary=json
  python3 - "$tmp/out" "$tmp/one.json" <<'PY' || fail "latency split of the merged corpus wrong"
import json, sys
l = json.load(open(sys.argv[1]))["latency_split"]
one = json.load(open(sys.argv[2]))
readme = {"LDLM_ENQUEUE": 21, "LDLM_CANCEL": 4, "MDS_CLOSE": 7, "MDS_STATFS": 4, "OST_WRITE": 4,
          "OBD_PING": 5, "LLOG_ORIGIN_HANDLE_CREATE": 3, "LLOG_ORIGIN_HANDLE_NEXT_BLOCK": 2,
          "LLOG_ORIGIN_HANDLE_READ_HEADER": 2}
for o in ("MGS_CONNECT MGS_CONFIG_READ MDS_CONNECT MDS_GET_ROOT MDS_GETATTR MDS_REINT "
          "MDS_READPAGE MDS_SYNC OST_CONNECT OST_STATFS OST_SYNC OST_READ SEQ_QUERY").split():
    readme[o] = 1
assert l["clock_offset_ns"] == {"10.0.3.2@tcp -> 10.0.3.1@tcp": 1000000}, l["clock_offset_ns"]
assert l["rpcs_not_split"] == 0
assert l["total"]["request_transit_ns"]["count"] == 65, l["total"]
for part in ("request_transit_ns", "reply_transit_ns"):
    assert l["total"][part]["max"] == 0, (part, l["total"][part])
counts = {g["opcode"]: g["request_transit_ns"]["count"] for g in l["by_opcode"]}
assert counts == readme, counts
# The RPCs of these opcodes move their data in bulk (Lustre's protocol);
# the others' server time is their whole request->reply time.
bulk = {g["opcode"] for g in l["by_opcode"] if g["bulk_ns"]["count"]}
assert bulk == {"OST_WRITE", "OST_READ", "MDS_READPAGE", "MGS_CONFIG_READ"}, bulk
lat = {g["opcode"]: g["latency_ns"] for g in one["by_opcode"]}
for g in l["by_opcode"]:
    if g["opcode"] not in bulk:
        assert g["server_ns"] == lat[g["opcode"]], (g["opcode"], g["server_ns"], lat[g["opcode"]])
assert [(g["client"], g["server_ns"]["count"]) for g in l["by_client"]] == [("10.0.3.2@tcp", 65)], l["by_client"]
assert [(g["target"], g["server_ns"]["count"]) for g in l["by_target"]] == [("10.0.3.1@tcp", 65)], l["by_target"]
jobs = {g["jobid"]: g["server_ns"]["count"] for g in l["by_jobid"]}
assert jobs == {g["jobid"]: g["latency_ns"]["count"] for g in one["by_jobid"] if g["latency_ns"]["count"]}, jobs
PY
  expect_exit 0 "$lnetcap" -r "$tmp/m.pcapng" --summary
  contains "$tmp/out" "Clock offset 10.0.3.2@tcp -> 10.0.3.1@tcp: server +1.00ms"
  for block in "Latency split (p50)" "Latency split by jobid (p50)" "Latency split by client (p50)" "Latency split by target (p50)"; do
    contains "$tmp/out" "$block"
  done
  expect_exit 0 "$lnetcap" -r "$tmp/m.pcapng" --summary=prometheus
  contains "$tmp/out" 'lnetcap_clock_offset_seconds{client="10.0.3.2@tcp",server="10.0.3.1@tcp"} 0.001'
  contains "$tmp/out" 'lnetcap_opcode_rpc_phase_seconds_count{opcode="LDLM_ENQUEUE",phase="request_transit"} 21'
  if command -v promtool >/dev/null; then
    # promtool parses the exposition (an error fails) and lints it.
    promtool check metrics < "$tmp/out" > "$tmp/lint" 2>&1
    rc=$?
    lacks "$tmp/lint" "error"
    lacks "$tmp/lint" "phase_seconds"
    lacks "$tmp/lint" "clock_offset"
    [ "$rc" -eq 0 ] || [ -s "$tmp/lint" ] || fail "promtool failed without a word"
  fi ;;
summary-filtered)
  # The pipeline's filter applies to the summary.
  need_sample
  expect_exit 0 "$lnetcap" -r "$sample" --summary=json opcode OBD_PING
  [ "$(json "$tmp/out" "d['total']['messages'], d['total']['requests'], d['total']['latency_ns']['count']")" = "10 5 5" ] ||
    fail "filtered totals: $(cat "$tmp/out")" ;;
chart-mermaid)
  need_sample
  expect_exit 0 "$lnetcap" -r "$sample" --chart=mermaid
  head -1 "$tmp/out" | grep -qx sequenceDiagram || fail "not a sequenceDiagram"
  contains "$tmp/out" "participant P0 as 10.0.3.2@tcp"
  contains "$tmp/out" "participant P1 as 10.0.3.1@tcp"
  [ "$(grep -c '^    P0->>P1: ' "$tmp/out")" = 65 ] || fail "65 request arrows expected"
  [ "$(grep -cE '^    P1(-->>|--x)P0: ' "$tmp/out")" = 65 ] || fail "65 reply arrows expected"
  [ "$(grep -c -- '--xP0: .*LLOG_ORIGIN_HANDLE_CREATE -2 (ENOENT)' "$tmp/out")" = 1 ] || fail "error arrow"
  # Every line after the header is a participant, a message or a comment.
  tail -n +2 "$tmp/out" | grep -vE '^    (participant P[0-9]+ as [^;#]+|P[0-9]+(->>|-->>|--x|--\)|-\))P[0-9]+: [^;]+|%%.*)$' &&
    fail "unexpected Mermaid line"
  true ;;
chart-html)
  need_sample
  expect_exit 0 "$lnetcap" -r "$sample" --chart=html --chart-output "$tmp/chart.html"
  [ ! -s "$tmp/out" ] || fail "the chart went to stdout despite --chart-output"
  python3 - "$tmp/chart.html" <<'PY' || fail "bad HTML chart"
import sys, xml.etree.ElementTree as ET
page = open(sys.argv[1]).read()
assert page.startswith("<!DOCTYPE html>")
assert "<script" not in page and "src=" not in page and "href=" not in page
svg = page[page.index("<svg"):page.index("</svg>") + 6]
root = ET.fromstring(svg)   # well-formed XML
ns = "{http://www.w3.org/2000/svg}"
groups = root.findall(ns + "g")
assert len(groups) == 149, len(groups)
kinds = [g.get("class") for g in groups]
assert kinds.count("req") == 65 and kinds.count("rep") + kinds.count("err") == 65, kinds
assert kinds.count("err") == 1
PY
  ;;
chart-cap-note)
  # The lnet-socklnd sample has 2910 messages: more than a chart shows.
  [ -f "$src/samples/lnet-socklnd.pcapng" ] || skip "lnet-socklnd sample missing"
  expect_exit 0 "$lnetcap" -r "$src/samples/lnet-socklnd.pcapng" --chart=mermaid
  contains "$tmp/out" "2410 more messages not shown (the chart stops at 500 arrows"
  [ "$(grep -cE '^    P[0-9]+-' "$tmp/out")" = 500 ] || fail "500 arrows expected" ;;
chart-unwritable)
  need_sample
  expect_exit 1 "$lnetcap" -r "$sample" --chart=html --chart-output /nonexistent-dir/c.html
  contains "$tmp/err" "cannot create chart file /nonexistent-dir/c.html" ;;
assert-pass)
  need_sample
  expect_exit 0 "$lnetcap" -r "$sample" --assert 'count(opcode LDLM_ENQUEUE and rpc request) == 21' \
    --assert 'count(type put and portal MDS_REQUEST) == 21' --assert 'errors() <= 1 and latency_max() < 1s'
  contains "$tmp/out" "lnetcap: assert PASS: count(opcode LDLM_ENQUEUE and rpc request) == 21"
  contains "$tmp/out" "    count(type put and portal MDS_REQUEST) = 21, expected == 21"
  contains "$tmp/out" "lnetcap: 3 of 3 assertions passed" ;;
assert-fail)
  need_sample
  expect_exit 1 "$lnetcap" -r "$sample" --assert 'count(opcode LDLM_ENQUEUE) <= 2' --assert 'count(opcode OBD_PING and rpc request) == 5'
  contains "$tmp/out" "lnetcap: assert FAIL: count(opcode LDLM_ENQUEUE) <= 2"
  contains "$tmp/out" "    count(opcode LDLM_ENQUEUE) = 42, expected <= 2  <-- false"
  contains "$tmp/out" "lnetcap: assert PASS: count(opcode OBD_PING and rpc request) == 5"
  contains "$tmp/out" "lnetcap: 1 of 2 assertions passed" ;;
assert-bad-syntax)
  need_sample
  expect_exit 1 "$lnetcap" -r "$sample" --assert 'count(opcode LDLM_ENQUEUE) =< 2'
  contains "$tmp/err" "assertion 'count(opcode LDLM_ENQUEUE) =< 2': expected a number or a function such as count(...) but found '<' at column 29"
  expect_exit 1 "$lnetcap" -r "$sample" --assert 'count(opcode LDLM_ENQUEUX) == 1'
  contains "$tmp/err" "LDLM_ENQUEUX" ;;
assert-command-fails)
  # With -r the command runs first (it may be what writes the file); its
  # failure makes the run fail with 2 whatever the assertions say.
  need_sample
  expect_exit 2 "$lnetcap" -r "$sample" --assert 'count() == 149' -- sh -c 'exit 3'
  contains "$tmp/out" "lnetcap: assert PASS: count() == 149"
  contains "$tmp/out" "lnetcap: command 'sh' exited with status 3"
  expect_exit 0 "$lnetcap" -r "$tmp/made.pcapng" --assert 'count() == 149' -- cp "$sample" "$tmp/made.pcapng"
  contains "$tmp/out" "lnetcap: command 'cp' exited with status 0" ;;
assert-command-missing)
  need_sample
  expect_exit 1 "$lnetcap" -r "$sample" --assert 'count() > 0' -- /nonexistent/cmd
  contains "$tmp/err" "cannot run command '/nonexistent/cmd'" ;;
assert-socklnd-direct)
  # The same assertions straight on the tcpdump file of socklnd traffic.
  need_corpus
  expect_exit 0 "$lnetcap" -r "$corpus" --assert 'count(rpc request) == 65' --assert 'count(rpc reply or rpc error) == 65'
  contains "$tmp/out" "lnetcap: 2 of 2 assertions passed" ;;
rotate-size)
  need_sample
  expect_exit 0 "$lnetcap" -r "$sample" -w "$tmp/t.pcapng" -C 20k
  ls "$tmp" | grep '^t\.pcapng' >"$tmp/files"
  [ "$(head -1 "$tmp/files")" = t.pcapng ] || fail "first file must be t.pcapng"
  n=$(wc -l <"$tmp/files")
  [ "$n" -ge 3 ] || fail "expected several files, got $n"
  total=0 i=0
  for f in $(sort -V "$tmp/files"); do
    want=t.pcapng; [ $i -gt 0 ] && want=t.pcapng$i
    [ "$f" = "$want" ] || fail "file $i is $f, wanted $want"
    size=$(stat -c %s "$tmp/$f")
    # Rotation happens before a write once the file exceeds 20 KiB, so
    # every file but the last holds more than 20480 bytes plus one record.
    [ $i -eq $((n - 1)) ] || [ "$size" -gt 20480 ] || fail "$f is only $size bytes"
    capinfos "$tmp/$f" >/dev/null 2>&1 || ! command -v capinfos >/dev/null || fail "$f unreadable by capinfos"
    total=$((total + $(records "$tmp/$f")))
    i=$((i + 1))
  done
  [ "$total" = 149 ] || fail "the files hold $total records, not 149" ;;
rotate-ring)
  need_sample
  expect_exit 0 "$lnetcap" -r "$sample" -w "$tmp/t.pcapng" -C 10k -W 3
  [ "$(ls "$tmp" | grep '^t\.pcapng' | sort | tr '\n' ' ')" = "t.pcapng0 t.pcapng1 t.pcapng2 " ] ||
    fail "ring of 3: $(ls "$tmp")" ;;
rotate-gzip)
  need_sample
  command -v gzip >/dev/null || skip "gzip missing"
  expect_exit 0 "$lnetcap" -r "$sample" -w "$tmp/t.pcapng" -C 20k -z gzip
  # Every rotated file is compressed, the last (still open at exit) is not.
  [ -f "$tmp/t.pcapng.gz" ] && [ -f "$tmp/t.pcapng1.gz" ] || fail "no .gz files: $(ls "$tmp")"
  last=$(ls "$tmp" | grep -E '^t\.pcapng[0-9]*$')
  [ "$(echo "$last" | wc -l)" = 1 ] || fail "exactly one uncompressed file expected: $last"
  gunzip "$tmp"/*.gz
  total=0
  for f in "$tmp"/t.pcapng*; do total=$((total + $(records "$f"))); done
  [ "$total" = 149 ] || fail "$total records after gunzip" ;;
rotate-time)
  # -G 1 with an strftime name: the records after a 1.5 s pause in the
  # input go to a second file named from the time it was opened.
  need_sample
  (head -c 40000 "$sample"; sleep 1.5; tail -c +40001 "$sample") |
    "$lnetcap" -r - -w "$tmp/t-%s.pcapng" -G 1 >"$tmp/out" 2>"$tmp/err" || fail "lnetcap failed: $(cat "$tmp/err")"
  ls "$tmp" | grep -E '^t-[0-9]{10}\.pcapng$' >"$tmp/files"
  expect_eq "files written ($(ls "$tmp" | tr '\n' ' '))" "$(wc -l <"$tmp/files")" 2
  first=$(head -1 "$tmp/files" | tr -dc 0-9) second=$(tail -1 "$tmp/files" | tr -dc 0-9)
  [ $((second - first)) -ge 1 ] || fail "second file not opened a period later"
  total=0
  for f in $(cat "$tmp/files"); do total=$((total + $(records "$tmp/$f"))); done
  [ "$total" = 149 ] || fail "$total records" ;;
packet-buffered)
  # -U: what was captured is in the file at once, not when a buffer fills.
  # Without -U the same run leaves only the section header on disk.
  need_sample
  # The input pauses after 40000 bytes at a gate: a FIFO whose only writer
  # is this shell's fd 7.  Closing it (or the test ending, however) lets the
  # rest through; no fixed sleep, and nothing left blocked.
  read_at_least() { [ "$(awk '/^rchar:/ {print $2}' "/proc/$1/io" 2>/dev/null || echo 0)" -ge "$2" ]; }
  records_at_least() { [ "$(records "$1")" -ge "$2" ]; }
  for u in -U none; do
    opt=$u; [ "$u" = none ] && opt=
    mkfifo "$tmp/gate$u"
    exec 7<>"$tmp/gate$u"
    (exec 7>&-; head -c 40000 "$sample"; cat "$tmp/gate$u" >/dev/null; tail -c +40001 "$sample") |
      "$lnetcap" -r - -w "$tmp/u$u.pcapng" $opt 2>"$tmp/err" 7>&- &
    pid=$!
    if [ "$u" = -U ]; then
      wait_for 30 "-U: records on disk mid-capture" records_at_least "$tmp/u$u.pcapng" 51
    else
      wait_for 30 "lnetcap to read the first 40000 bytes" read_at_least "$pid" 40000
    fi
    mid=$(records "$tmp/u$u.pcapng")
    exec 7>&-
    wait $pid || fail "lnetcap $opt failed: $(cat "$tmp/err")"
    if [ "$u" = -U ]; then [ "$mid" -gt 50 ] || fail "-U: only $mid records on disk mid-capture"
    else [ "$mid" -eq 0 ] || fail "without -U $mid records were already on disk (test assumption)"; fi
    expect_eq "records in the $opt file" "$(records "$tmp/u$u.pcapng")" 149
  done ;;
rotate-unwritable)
  need_sample
  expect_exit 1 "$lnetcap" -r "$sample" -w /nonexistent-dir/t.pcapng -C 20k
  contains "$tmp/err" "/nonexistent-dir/t.pcapng" ;;
rotate-bad-z)
  need_sample
  expect_exit 1 "$lnetcap" -r "$sample" -w "$tmp/t.pcapng" -C 20k -z no-such-compressor
  contains "$tmp/err" "-z: cannot run 'no-such-compressor'"
  [ ! -e "$tmp/t.pcapng" ] || fail "a file was written despite the bad -z" ;;
rotate-needs-write)
  need_sample
  expect_exit 1 "$lnetcap" -r "$sample" -W 3
  contains "$tmp/err" "-W needs -C or -G"
  expect_exit 1 "$lnetcap" -r "$sample" -C 10 -w -
  contains "$tmp/err" "cannot rotate standard output" ;;
progress-on-tty)
  # script(1) gives lnetcap a terminal: the meter is drawn, then erased.
  need_sample
  command -v script >/dev/null || skip "script(1) missing"
  script -qec "$lnetcap -r $sample --summary=json" /dev/null >"$tmp/tty" 2>&1 || fail "script failed"
  contains "$tmp/tty" "lnetcap: reading $sample"
  grep -q $'\r\033\[K' "$tmp/tty" || fail "meter not erased"
  "$lnetcap" -r "$sample" --summary=json >"$tmp/out" 2>"$tmp/err"
  lacks "$tmp/err" "reading" ;;
*)
  fail "unknown case" ;;
esac
exit 0
