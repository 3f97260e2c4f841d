# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/wireshark/run.sh (which provides ts, stage, count,
# expect_count, fail, pass and skips without tshark or the plugin): the
# pcapng lnetcap captured in the kernel rig dissects with the plugin.
# RIG_PCAP: the capture; RIG_ROUNDS: rounds of every scenario in it.
[ -s "${RIG_PCAP:-}" ] || skip "no rig capture at '${RIG_PCAP:-}' (did rig_guest_fentry run?)"
rounds=${RIG_ROUNDS:-3}
pcap=$(stage "$RIG_PCAP")
total=$(ts -r "$pcap" -T fields -e frame.number | wc -l)
[ "$total" -gt 0 ] || fail "tshark read no frames from $RIG_PCAP"
expect_count "$pcap" "lnetcap" "$total"
expect_count "$pcap" "_ws.malformed" 0
# Per round: ping_rpc 2 + forward 1 + resend 2 + health 1 + queue 1 + aborted 1
# OBD_PING records (DROPs carry no payload); enqueue request + reply.
expect_count "$pcap" "lnetcap.ptlrpc.opc == 400" $((8 * rounds))
expect_count "$pcap" "lnetcap.ptlrpc.opc == 101" $((2 * rounds))
expect_count "$pcap" "lnetcap.rec.retries == 1" "$rounds"
n=$(count "$pcap" "lnetcap.rec.direction == 3")
[ "$n" = "$rounds" ] || fail "forwarded records: $n, expected $rounds"
pass "forwarded records"
# LNet health: 5 outcomes per round linked to their message's frame (resend,
# health, drop_rule, malformed, aborted), one drop per reason scenario, the
# 30 ms credit wait of "queue".
expect_count "$pcap" "lnetcap.rec.outcome_of" $((5 * rounds))
expect_count "$pcap" "lnetcap.rec.drop_reason == 3" "$rounds"
expect_count "$pcap" "lnetcap.rec.drop_reason == 7" "$rounds"
expect_count "$pcap" "lnetcap.rec.drop_reason == 8" "$rounds"
expect_count "$pcap" "lnetcap.rec.drop_reason == 1" "$rounds"
n=$(count "$pcap" "lnetcap.rec.queue_ns >= 30000000")
[ "$n" -ge "$rounds" ] || fail "records held >= 30 ms: $n, expected at least $rounds"
pass "queue times"
ts -r "$pcap" -c 4 | sed 's/^/    /'
# Response timeouts (the capture's sibling rsp.pcapng, the double's monitor
# thread): a record with no LNet header, labelled by its hook and reason,
# one per round, dissected without a malformed frame.
rsp="$(dirname "$RIG_PCAP")/rsp.pcapng"
[ -s "$rsp" ] || fail "no response-timeout capture next to $RIG_PCAP"
rsp=$(stage "$rsp")
expect_count "$rsp" "_ws.malformed" 0
expect_count "$rsp" "lnetcap.rec.drop_reason == 9 && lnetcap.rec.hook == 7 && lnetcap.rec.health == 9" "$rounds"
n=$(ts -r "$rsp" -Y "lnetcap.rec.drop_reason == 9" -V | grep -c 'Hook: lnet_handle_remote_failure_locked (7)' || true)
[ "$n" = "$rounds" ] || fail "response-timeout records labelled with their hook: $n, expected $rounds"
pass "response timeouts"
