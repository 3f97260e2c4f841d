#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# top_test.sh BUILD_DIR SOURCE_DIR CASE - lnetcap --top end to end.
#
# The screen cases run it in a real terminal: a detached tmux session of a
# fixed size (its own server socket, so cases run in parallel), keys sent
# with send-keys, the screen read back with capture-pane.  The text cases
# read its plain-text blocks.  Figures are checked against lnetcap
# --summary for the same records (check_top.py), never against themselves.
#
# Input: the first 46 records of samples/lustre-fs-part1.pcapng (mount:
# 19 RPCs of 11 opcodes, an error, a bulk GET, 1.4 s), so that the replay,
# at its recorded pace on a screen, ends within two seconds.
set -uo pipefail
build=$1 src=$2 case=$3
lnetcap=$build/capture/lnetcap
lnetcapd=$build/capture/lnetcapd
sample=$src/samples/lustre-fs-part1.pcapng
check=$src/tests/top/check_top.py
export TZ=UTC LC_ALL=C
TEST_CASE=top.$case
. "$src/tests/support/testlib.sh"
tmp=$(mktemp -d /tmp/lnetcap-top-test.XXXXXX)
daemons=()
cleanup() {
  tmux -S "$tmp/tmux.sock" kill-server 2>/dev/null
  for pid in "${daemons[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$tmp"
}
on_exit cleanup
on_fail 'for f in "$tmp"/*.log "$tmp"/*.err "$tmp"/screen.txt; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done'

need_file "$sample"
need_cmd python3
short=$tmp/short.pcapng
"$lnetcap" -r "$sample" -c 46 -w "$short" 2>/dev/null || fail "cannot cut $sample"
"$lnetcap" -r "$short" --summary=json >"$tmp/summary.json" 2>/dev/null || fail "--summary=json failed"
"$lnetcap" -r "$short" --summary >"$tmp/summary.txt" 2>/dev/null || fail "--summary failed"

# The screen: lnetcap --top ARGS in tmux, 200x50; its exit status lands in rc.
# The shell sleeps on after lnetcap so the screen stays readable (tmux's
# remain-on-exit loses what came after an alternate screen).  Standard error
# goes to top.err, or with stderr_on_screen=1 to the terminal.
stderr_on_screen=0
start_screen() {
  need_cmd tmux
  : >"$tmp/tmux.conf"
  local err="2>$tmp/top.err"
  [ "$stderr_on_screen" = 1 ] && err=
  tmux -S "$tmp/tmux.sock" -f "$tmp/tmux.conf" new-session -d -s top -x 200 -y 50 \
    "$(printf '%q ' "$lnetcap" --top "$@") $err; echo \$? >$tmp/rc; exec sleep 120" ||
    fail "tmux cannot start"
}
keys() { tmux -S "$tmp/tmux.sock" send-keys -t top "$@"; }
screen() { tmux -S "$tmp/tmux.sock" capture-pane -p -t top >"$tmp/screen.txt" 2>/dev/null; }
screen_has() { screen && grep -qF -- "$1" "$tmp/screen.txt"; }
wait_screen() { wait_for "${2:-30}" "'$1' on the screen" screen_has "$1"; }
# The panel on the screen against --summary.
check_screen() {
  screen
  check "--top's $1 panel equals --summary's ($(python3 "$check" "$tmp/screen.txt" "$tmp/summary.json" "$tmp/summary.txt" "$1" 2>&1 | tail -3))" \
    python3 "$check" "$tmp/screen.txt" "$tmp/summary.json" "$tmp/summary.txt" "$1"
}
quit_screen() {
  keys q
  wait_for_file "$tmp/rc" 10
  expect_eq "lnetcap --top exit status after q" "$(cat "$tmp/rc")" 0
}
# The keys every screen case goes through once the input ended.
drive_screen() {
  wait_screen "input ended"
  contains "$tmp/screen.txt" "[jobs by rate]"
  check_screen jobs
  keys o; wait_screen "[opcodes by rate] 11 rows"
  check_screen opcodes
  keys b; wait_screen "[opcodes by bytes]"
  # Sorted by bytes: the llog blocks (17488, 17376 bytes) lead.
  check "opcodes by bytes start with LLOG_ORIGIN_HANDLE_NEXT_BLOCK" \
    awk '/^OPCODE/ { getline; exit !($1 == "LLOG_ORIGIN_HANDLE_NEXT_BLOCK") }' "$tmp/screen.txt"
  keys e; wait_screen "[opcodes by errors]"
  check "the opcode with the error leads" \
    awk '/^OPCODE/ { getline; exit !($1 == "LLOG_ORIGIN_HANDLE_CREATE" && $9 == 1) }' "$tmp/screen.txt"
  keys / ; keys -l MDS_; keys Enter
  wait_screen "filter: MDS_"
  wait_screen "[opcodes by errors] 4 rows"
  lacks "$tmp/screen.txt" "LDLM_ENQUEUE"
  keys Escape; wait_screen "[opcodes by errors] 11 rows"
  keys c; wait_screen "[clients by errors]"
  check_screen clients
  keys t r; wait_screen "[targets by rate]"
  check_screen targets
  keys n; wait_screen "[nis by rate]"
  contains "$tmp/screen.txt" "NI/PEER"
  keys p; wait_screen "PAUSED"
  keys p j; wait_screen "[jobs by rate]"
  lacks "$tmp/screen.txt" "PAUSED"
  quit_screen
}

case $case in
screen-replay)
  # -r FILE on a terminal: replayed at its recorded pace, then the totals.
  start_screen -r "$short"
  # The first windows come while the replay runs (1.4 s of records).
  wait_screen "lnetcap top - -r $short - window"
  drive_screen
  contains "$tmp/screen.txt" "total over 1.37 s" ;;
screen-subscription)
  # Two lnetcapd "nodes" (the requests on one, every other record on the
  # other); --top subscribes to both and merges them in time order.
  "$lnetcap" -r "$short" -w "$tmp/n1.pcapng" 'rpc request' 2>/dev/null
  "$lnetcap" -r "$short" -w "$tmp/n2.pcapng" 'not rpc request' 2>/dev/null
  for n in n1 n2; do
    "$lnetcapd" --listen "ipc://$tmp/$n.sock" --group "$(id -gn)" -r "$tmp/$n.pcapng" \
      --wait-subscribers 1 --node "node-$n" 2>"$tmp/$n.log" &
    daemons+=($!)
    wait_for_socket "$tmp/$n.sock" 10
  done
  start_screen --from "ipc://$tmp/n1.sock" --from "ipc://$tmp/n2.sock"
  drive_screen
  contains "$tmp/screen.txt" "lnetcap top - --from ipc://$tmp/n1.sock ipc://$tmp/n2.sock" ;;
screen-holds-warnings)
  # A warning while the screen is up (a damaged record) would stay on it as
  # garbage: it is held, and written once the terminal is given back.
  python3 "$src/tests/cli/pcapng_mutate.py" "$short" "$tmp/damaged.pcapng" record-magic 10 >/dev/null ||
    fail "mutation failed"
  stderr_on_screen=1
  start_screen -r "$tmp/damaged.pcapng"
  wait_screen "input ended"
  lacks "$tmp/screen.txt" "warning"
  contains "$tmp/screen.txt" "45 msgs"
  quit_screen
  # Back on the terminal, after the view.
  wait_screen "record 10: bad lnetcap record" 10
  lacks "$tmp/screen.txt" "input ended" ;;
text-not-a-tty)
  # Standard output a file: plain-text blocks, the last one the whole run.
  timeout 60 "$lnetcap" --top -r "$short" >"$tmp/top.out" 2>"$tmp/top.err"
  expect_eq "exit status" "$?" 0
  check "one block per second of records, then the total" \
    test "$(grep -c '^--- lnetcap top: window ' "$tmp/top.out")" = 2
  check "the last block is the total" \
    test "$(grep '^--- lnetcap top:' "$tmp/top.out" | tail -1)" = "--- lnetcap top: total (1.37 s) ---"
  check "every block has every panel" \
    test "$(grep -c '^\[' "$tmp/top.out")" = 15
  check "the total block equals --summary ($(python3 "$check" "$tmp/top.out" "$tmp/summary.json" "$tmp/summary.txt" jobs clients opcodes targets 2>&1 | tail -3))" \
    python3 "$check" "$tmp/top.out" "$tmp/summary.json" "$tmp/summary.txt" jobs clients opcodes targets ;;
text-batch-on-a-tty)
  # --top-batch: the blocks even on a terminal (as top -b).
  start_screen -r "$short" --top-batch
  wait_for_file "$tmp/rc" 30
  expect_eq "exit status" "$(cat "$tmp/rc")" 0
  screen
  contains "$tmp/screen.txt" "--- lnetcap top: total (1.37 s) ---"
  check "the total block on the terminal equals --summary" \
    python3 "$check" "$tmp/screen.txt" "$tmp/summary.json" "$tmp/summary.txt" jobs clients opcodes targets ;;
writes-what-it-counts)
  # --top -w FILE: the file holds exactly the records the view counted
  # (the live rig case rig.top relies on it), and a filter applies to both.
  timeout 60 "$lnetcap" --top -r "$short" -w "$tmp/top.pcapng" 'rpc request or rpc reply' >"$tmp/top.out" 2>"$tmp/top.err"
  expect_eq "exit status" "$?" 0
  "$lnetcap" -r "$short" 'rpc request or rpc reply' >"$tmp/want.txt" 2>/dev/null
  "$lnetcap" -r "$tmp/top.pcapng" >"$tmp/got.txt" 2>/dev/null || fail "the file --top wrote is unreadable"
  check "the file holds the filtered records ($(wc -l <"$tmp/got.txt") of $(wc -l <"$tmp/want.txt"))" \
    cmp -s "$tmp/want.txt" "$tmp/got.txt"
  "$lnetcap" -r "$tmp/top.pcapng" --summary=json >"$tmp/wsum.json" 2>/dev/null
  "$lnetcap" -r "$tmp/top.pcapng" --summary >"$tmp/wsum.txt" 2>/dev/null
  check "the total block equals --summary of the file" \
    python3 "$check" "$tmp/top.out" "$tmp/wsum.json" "$tmp/wsum.txt" jobs clients opcodes targets ;;
refuses-other-outputs)
  timeout 30 "$lnetcap" --top -r "$short" --summary >"$tmp/top.out" 2>"$tmp/top.err"
  expect_eq "exit status" "$?" 1
  contains "$tmp/top.err" "--top is a view of its own" ;;
*) fail "unknown case $case" ;;
esac
