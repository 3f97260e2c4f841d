# SPDX-License-Identifier: GPL-2.0-or-later
# The agent, the plugin and the anonymizer agree on what a PtlRPC message
# means (include/lnetcap/rpc_predicates.h, issue 24): which replies are
# early replies, which are RPC errors (by status), and which carry a byte
# count instead of a status - over the samples, the socklnd corpus and the
# plugin's test vectors, and again over each of them anonymized.
#
#   agent:  `lnetcap -r` text ("early reply", "N bytes") per record, and the
#           errors by status of --summary=json;
#   plugin: lnetcap.ptlrpc.early_reply, lnetcap.ptlrpc.io_bytes and the
#           "RPC failed"/"error message" expert infos per frame.
[ -x "${LNETCAP_BINARY:-}" ] || skip "lnetcap binary not built"
need_cmd python3

inputs=()
for f in "$LNETCAP_SOURCE_DIR"/samples/*.pcapng "$LNETCAP_SOURCE_DIR"/tests/data/corpus/*.pcap; do
	[ -f "$f" ] && inputs+=("$f")
done
inputs+=("$(vectors)")

# agent_table FILE: "frame early bytes" per record, as the agent prints it.
agent_table() {
	"$LNETCAP_BINARY" -n -r "$1" 2>/dev/null |
		awk '{ e = $0 ~ /early reply/ ? 1 : 0
		       b = match($0, / [0-9]+ bytes/) ? substr($0, RSTART + 1, RLENGTH - 7) : "-"
		       print NR, e, b }'
}
# plugin_table FILE: the same columns from the plugin's fields.
plugin_table() {
	# Tab-separated: an empty field must stay a column of its own.
	ts -r "$1" -T fields -E separator=/t -E occurrence=f \
		-e frame.number -e lnetcap.ptlrpc.early_reply -e lnetcap.ptlrpc.io_bytes |
		awk -F '\t' '{ print $1, ($2 == "1" ? 1 : 0), ($3 == "" ? "-" : $3) }'
}
# agent_errors FILE / plugin_errors FILE: "status count" of the RPC errors.
agent_errors() {
	"$LNETCAP_BINARY" -n -r "$1" --summary=json 2>/dev/null | python3 -c '
import json, sys
for e in json.load(sys.stdin)["total"]["errors_by_status"]:
    print(e["status"], e["count"])'
}
plugin_errors() {
	ts -r "$1" -Y 'lnetcap.ptlrpc.status.error || lnetcap.ptlrpc.type.error' \
		-T fields -E occurrence=f -e lnetcap.ptlrpc.status | sort -n | uniq -c | awk '{ print $2, $1 }'
}

# compare NAME FILE: agent and plugin agree on FILE; prints a one-line
# digest of what they found (to compare with the anonymized copy).
compare() {
	local name=$1 f=$2 n
	agent_table "$f" >"$WORK/$name.agent"
	plugin_table "$f" >"$WORK/$name.plugin"
	n=$(wc -l <"$WORK/$name.plugin")
	[ "$n" -gt 0 ] || fail "tshark read no frames from $name"
	check "$name: agent and plugin agree on early replies and byte counts, frame by frame" \
		diff -u "$WORK/$name.agent" "$WORK/$name.plugin"
	agent_errors "$f" >"$WORK/$name.agent-err"
	plugin_errors "$f" >"$WORK/$name.plugin-err"
	check "$name: agent and plugin agree on the RPC errors by status" \
		diff -u "$WORK/$name.agent-err" "$WORK/$name.plugin-err"
	echo "$name: $n frames, $(awk '$2 == 1' "$WORK/$name.agent" | wc -l) early replies," \
		"$(awk '$3 != "-"' "$WORK/$name.agent" | wc -l) byte counts," \
		"$(awk '{ s += $2 } END { print s + 0 }' "$WORK/$name.agent-err") errors" >&2
}

total_early=0 total_bytes=0 total_err=0
for f in "${inputs[@]}"; do
	name=$(basename "$f")
	# One file both read: the agent converts socklnd TCP captures itself.
	# The vectors end with records of a future version, which the agent
	# refuses (stopping there, its output kept); the ones before are read.
	ok_rc=0
	[ "$name" = vectors.pcapng ] && ok_rc=1
	"$LNETCAP_BINARY" -n -r "$f" -w "$WORK/$name.lnetcap.pcapng" 2>"$WORK/$name.err"
	[ $? -le $ok_rc ] || fail "lnetcap could not rewrite $name: $(cat "$WORK/$name.err")"
	"$LNETCAP_BINARY" -n -r "$f" -w "$WORK/$name.anon.pcapng" --anon-key "$WORK/key" 2>"$WORK/$name.err"
	[ $? -le $ok_rc ] || fail "lnetcap could not anonymize $name: $(cat "$WORK/$name.err")"
	chmod a+r "$WORK/$name.lnetcap.pcapng" "$WORK/$name.anon.pcapng"
	compare "$name" "$WORK/$name.lnetcap.pcapng"
	compare "$name.anon" "$WORK/$name.anon.pcapng"
	# The anonymizer keeps what decides them: the same verdicts after it.
	check "$name: the anonymized copy has the same early replies and byte counts" \
		diff -u "$WORK/$name.agent" "$WORK/$name.anon.agent"
	check "$name: the anonymized copy has the same RPC errors" \
		diff -u "$WORK/$name.agent-err" "$WORK/$name.anon.agent-err"
	total_early=$((total_early + $(awk '$2 == 1' "$WORK/$name.agent" | wc -l)))
	total_bytes=$((total_bytes + $(awk '$3 != "-"' "$WORK/$name.agent" | wc -l)))
	total_err=$((total_err + $(awk '{ s += $2 } END { print s + 0 }' "$WORK/$name.agent-err")))
done
# The inputs must exercise every predicate, or agreement proves little.
check "the inputs hold early replies ($total_early)" test "$total_early" -gt 0
check "the inputs hold byte-count statuses ($total_bytes)" test "$total_bytes" -gt 0
check "the inputs hold RPC errors ($total_err)" test "$total_err" -gt 0
pass "agent, plugin and anonymizer agree on early replies, errors and byte counts"
