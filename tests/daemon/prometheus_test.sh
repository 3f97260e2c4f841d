#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# prometheus_test.sh BUILD_DIR SOURCE_DIR - lnetcapd's metrics scraped by a
# real Prometheus server (Debian's `prometheus`, started here on a free
# port with its own config and storage; the packaged service is not used).
# The daemon replays the shared corpus (converted with lnetcap, as the other
# tests do); PromQL answers (HTTP API /api/v1/query) are compared with
# `lnetcap --summary=json` on the same records, for every opcode:
#  - the request count and the latency count: equal;
#  - p99: histogram_quantile() interpolates inside the bucket that holds the
#    p99-th sample, and the summary's nearest-rank p99 is that sample, so
#    the PromQL value must lie in the same bucket (lower, upper] as the
#    summary's value (report::kLatencyBuckets).
set -uo pipefail
build=$1 src=$2
lnetcap=$build/capture/lnetcap
lnetcapd=$build/capture/lnetcapd
corpus=$src/tests/data/corpus/lustre-fs-part1.pcap
export TZ=UTC LC_ALL=C
TEST_CASE=prometheus
. "$src/tests/support/testlib.sh"
tmp=$(mktemp -d /tmp/lnetcapd-prom.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$tmp"
}
on_exit cleanup
on_fail 'for f in "$tmp"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done'
[ -f "$corpus" ] || { echo "SKIP: $corpus missing" >&2; exit 77; }
prometheus=$(command -v prometheus) || fail "prometheus is not installed (scripts/apt-packages.txt lists it)"

"$lnetcap" -r "$corpus" -w "$tmp/corpus.pcapng" 2>/dev/null || fail "cannot convert the corpus"
"$lnetcap" -r "$tmp/corpus.pcapng" --summary=json >"$tmp/summary.json" 2>/dev/null || fail "no summary"

"$lnetcapd" -r "$tmp/corpus.pcapng" --listen "ipc://$tmp/d.sock" --group "$(id -gn)" --keep-serving \
  --metrics-listen 127.0.0.1:0 2>"$tmp/d.log" &
pids+=($!)
wait_for_log "$tmp/d.log" "serving metrics at" 10
metrics=$(sed -n 's/.*serving metrics at http:\/\/\([^/]*\)\/metrics.*/\1/p' "$tmp/d.log")
[ -n "$metrics" ] || fail "the daemon did not say where it serves metrics"
curl_get() { python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1"; }
curl_get "http://$metrics/nothing" >/dev/null 2>&1 && fail "a path other than /metrics answered 200"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: lnetcapd
    static_configs:
      - targets: ['$metrics']
YML
"$prometheus" --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
  --web.listen-address="127.0.0.1:$port" >"$tmp/prometheus.log" 2>&1 &
pids+=($!)

# query EXPR: the JSON result vector, once it is not empty (Prometheus needs
# a scrape or two first).
query() {
  for _ in $(seq 60); do
    if python3 - "$port" "$1" >"$tmp/answer.json" 2>/dev/null <<'PY'
import json, sys, urllib.parse, urllib.request
url = "http://127.0.0.1:%s/api/v1/query?query=%s" % (sys.argv[1], urllib.parse.quote(sys.argv[2]))
r = json.load(urllib.request.urlopen(url, timeout=5))
if r["status"] != "success" or not r["data"]["result"]:
    sys.exit(1)
json.dump(r["data"]["result"], sys.stdout)
PY
    then return 0; fi
    sleep 0.5
  done
  fail "Prometheus never answered $1"
}
# Wait for a scrape after the whole replay (its record count).
total=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"]["messages"])' "$tmp/summary.json")
query "lnetcap_messages_total == $total"
query 'lnetcap_opcode_requests_total'; cp "$tmp/answer.json" "$tmp/requests.json"
query 'lnetcap_opcode_rpc_latency_seconds_count'; cp "$tmp/answer.json" "$tmp/counts.json"
query 'histogram_quantile(0.99, lnetcap_opcode_rpc_latency_seconds_bucket)'; cp "$tmp/answer.json" "$tmp/p99.json"
check "PromQL and lnetcap --summary=json agree" python3 - "$tmp" <<'PY'
import json, math, sys
tmp = sys.argv[1]
summary = {g["opcode"]: g for g in json.load(open(tmp + "/summary.json"))["by_opcode"]}
def by_opcode(name):
    return {r["metric"]["opcode"]: float(r["value"][1]) for r in json.load(open(tmp + "/" + name))}
requests, counts, p99 = by_opcode("requests.json"), by_opcode("counts.json"), by_opcode("p99.json")
buckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
def bucket(seconds):  # (lower, upper] holding the value
    lower = 0
    for b in buckets:
        if seconds <= b:
            return (lower, b)
        lower = b
    return (lower, math.inf)
bad, checked = 0, 0
for opcode, g in summary.items():
    if requests.get(opcode) != g["requests"]:
        print("%s: PromQL requests %s, summary %d" % (opcode, requests.get(opcode), g["requests"])); bad += 1
    lat = g["latency_ns"]
    if counts.get(opcode, 0) != lat["count"]:
        print("%s: PromQL latency count %s, summary %d" % (opcode, counts.get(opcode), lat["count"])); bad += 1
    if lat["count"]:
        want = bucket(lat["p99"] / 1e9)
        got = p99.get(opcode)
        # histogram_quantile answers the upper bound of the highest finite
        # bucket for samples in +Inf.
        ok = got is not None and (want[0] < got <= want[1] or (want[1] == math.inf and got == want[0]))
        if not ok:
            print("%s: PromQL p99 %s s not in the summary p99's bucket %s (p99 %d ns)" % (opcode, got, want, lat["p99"])); bad += 1
        checked += 1
print("compared %d opcodes (%d with latencies); e.g. LDLM_ENQUEUE: %d requests, PromQL p99 %.6f s, summary p99 %d ns"
      % (len(summary), checked, requests.get("LDLM_ENQUEUE", -1), p99.get("LDLM_ENQUEUE", -1), summary["LDLM_ENQUEUE"]["latency_ns"]["p99"]))
sys.exit(1 if bad or checked < 5 else 0)
PY
query 'up{job="lnetcapd"} == 1'
"$lnetcap" --from "ipc://$tmp/d.sock" --status >"$tmp/status.txt" 2>&1 || fail "--status: $(cat "$tmp/status.txt")"
scrapes=$(sed -n 's/^  scrapes served: *//p' "$tmp/status.txt")
[ -n "$scrapes" ] && [ "$scrapes" -ge 1 ] || fail "--status shows no scrapes: $(cat "$tmp/status.txt")"
check "--status names the metrics address: $(cat "$tmp/status.txt")" grep -q "^  metrics: *http://$metrics/metrics" "$tmp/status.txt"
echo "PASS [prometheus]: $scrapes scrapes served"
