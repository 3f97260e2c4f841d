# SPDX-License-Identifier: GPL-2.0-or-later
# Field registry: every field is lnetcap.*, no abbreviation is registered
# twice (across all protocols), and the families the brief names exist.
ts -G fields > "$WORK/fields.txt" 2> "$WORK/fields.err" || fail "tshark -G fields failed"
grep -qi "warn\|error\|duplicate" "$WORK/fields.err" && fail "tshark complained: $(cat "$WORK/fields.err")"
# Fields of LNetCap and of the protocols above it (lnetcap.ptlrpc, lnetcap.mdt, ...).
ours=$(awk -F'\t' '$1=="F" && ($5=="lnetcap" || $5 ~ /^lnetcap\./)' "$WORK/fields.txt")
n=$(echo "$ours" | wc -l)
[ "$n" -gt 200 ] || fail "only $n lnetcap fields registered"
pass "$n lnetcap fields"
bad=$(echo "$ours" | awk -F'\t' '$3 !~ /^lnetcap\./ {print $3}')
[ -z "$bad" ] || fail "fields outside lnetcap.*: $bad"
# Expert items are listed as fields too, so this also catches an expert
# item named like a field.
dups=$(awk -F'\t' '$1=="F" {print $3}' "$WORK/fields.txt" | sort | uniq -d | grep '^lnetcap' || true)
[ -z "$dups" ] || fail "duplicate field abbreviations: $dups"
pass "no duplicate fields"
for f in lnetcap.rec.direction lnetcap.rec.seq_gap lnetcap.lnet.src_nid lnetcap.lnet.ptl_index \
	lnetcap.ping.ni.nid lnetcap.ptlrpc.opc lnetcap.ptlrpc.status lnetcap.ptlrpc.jobid \
	lnetcap.ptlrpc.xid lnetcap.response_in lnetcap.response_to lnetcap.time \
	lnetcap.ldlm.lock.req_mode lnetcap.ldlm.res.fid lnetcap.mdt.fid1 lnetcap.mdt.reint.opcode \
	lnetcap.mdt.name lnetcap.ost.oa.size lnetcap.ost.niobuf.offset lnetcap.obd.target_uuid \
	lnetcap.obd.ocd.connect_flags lnetcap.ptlrpc.flags.resent; do
	echo "$ours" | awk -F"\t" "{print \$3}" | grep -x "$f" >/dev/null || fail "field $f missing"
done
pass "expected fields present"
# Expert items are registered too (they are filterable).
for e in lnetcap.ptlrpc.status.error \
	lnetcap.ptlrpc.no_reply lnetcap.ptlrpc.resent lnetcap.rec.health.failed \
	lnetcap.rec.seq_gap.lost lnetcap.ptlrpc.early_reply.more_time; do
	awk -F'\t' '{print $3}' "$WORK/fields.txt" | grep -x "$e" >/dev/null || fail "expert field $e missing"
done
pass "expert fields present"
