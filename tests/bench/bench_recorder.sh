#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench_recorder.sh BUILD_DIR SOURCE_DIR [COPIES] - lnetcapd's CPU time and
# peak memory replaying the same records as fast as it can, with the flight
# recorder, a trigger and the metrics on, against all of them off
# (docs/PERFORMANCE.md "lnetcapd flight recorder and metrics").  The input
# is samples/lnet-socklnd.pcapng (2910 records) repeated COPIES times
# (default 100) with shifted times; LNETCAP_BENCH_RECORDER_SIZE sets the
# recorder size (default 64M).  Runs alternate off/on, 3 each; each
# configuration keeps its lowest CPU time, so background load hurts both.
set -euo pipefail
build=$1 src=$2 copies=${3:-100}
lnetcapd=$build/capture/lnetcapd
tmp=$(mktemp -d /tmp/lnetcap-bench-recorder.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for ((i = 0; i < copies; i++)); do
  editcap -t $((i * 100)) "$src/samples/lnet-socklnd.pcapng" "$tmp/part$i.pcapng" 2>/dev/null
done
mergecap -a -w "$tmp/big.pcapng" "$tmp"/part*.pcapng
rm -f "$tmp"/part*.pcapng
records=$((copies * 2910))
mkdir "$tmp/incidents"
# run NAME ARGS...: "cpu_seconds wall_seconds max_rss_kib" of one replay
run() {
  python3 - "$lnetcapd" -r "$tmp/big.pcapng" --listen "ipc://$tmp/d.sock" --group "$(id -gn)" "$@" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], check=True, stderr=subprocess.DEVNULL)
wall = time.monotonic() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %.3f %d" % (r.ru_utime + r.ru_stime, wall, r.ru_maxrss))
PY
}
on_args=(--recorder-size "${LNETCAP_BENCH_RECORDER_SIZE:-64M}" --trigger 'status == -110 or health != OK' --trigger-dir "$tmp/incidents"
         --metrics-listen 127.0.0.1:0)
best_off="" best_on=""
for rep in 1 2 3; do
  off=$(run) on=$(run "${on_args[@]}")
  echo "run $rep: off cpu/wall/rss $off | on $on"
  if [ -z "$best_off" ] || awk -v a="${off%% *}" -v b="${best_off%% *}" 'BEGIN { exit !(a < b) }'; then best_off=$off; fi
  if [ -z "$best_on" ] || awk -v a="${on%% *}" -v b="${best_on%% *}" 'BEGIN { exit !(a < b) }'; then best_on=$on; fi
done
read -r cpu_off wall_off rss_off <<<"$best_off"
read -r cpu_on wall_on rss_on <<<"$best_on"
awk -v n=$records -v co=$cpu_off -v cn=$cpu_on -v wo=$wall_off -v wn=$wall_on -v ro=$rss_off -v rn=$rss_on 'BEGIN {
  printf "%d records, best of 3 (CPU = user + system of lnetcapd):\n", n
  printf "  off: %.2f s CPU, %.2f s wall (%.0f k records/s), peak RSS %.1f MiB\n", co, wo, n / wo / 1000, ro / 1024
  printf "  on:  %.2f s CPU, %.2f s wall (%.0f k records/s), peak RSS %.1f MiB\n", cn, wn, n / wn / 1000, rn / 1024
  printf "  recorder + trigger + metrics cost %+.1f %% CPU, %+.1f MiB\n", (cn / co - 1) * 100, (rn - ro) / 1024
}'
