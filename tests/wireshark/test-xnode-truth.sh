# SPDX-License-Identifier: GPL-2.0-or-later
# tests/real-lustre/xnode_truth.py, the checker of cross-node links that
# needs no ground truth stamped into the capture (it groups records by their
# whole LNet header), on the SYNTHETIC routed capture of gen_routed.cpp:
#  - the plugin's links: 0 wrong, 0 missing, every FWD a hop; the repeated
#    byte-identical pings and shared-header requests/REPLYs are reported as
#    ambiguous, not as wrong;
#  - router and server 17 s late (as long as messages waited on the router
#    in a real routed run under scarce router buffers): still all linked
#    with the default window (60 s), missing with a 10 s window;
#  - links the plugin cannot make (the router's clock 1000 s off, beyond the
#    60 s window): the checker must see them missing and exit 1;
#  - links pointing at another message (two records' received_in swapped
#    in tshark's output): the checker must count them wrong and exit 1.
# Real captures: the lead's three-node run (scripts/real-lustre), see the
# script's usage text.
command -v python3 >/dev/null || skip "python3 missing"
command -v mergecap >/dev/null || skip "mergecap missing"
command -v editcap >/dev/null || skip "editcap missing"
checker="$LNETCAP_SOURCE_DIR/tests/real-lustre/xnode_truth.py"
"$LNETCAP_VECTORS" routed "$WORK" || fail "routed vector generator failed"
mergecap -w "$WORK/merged.pcapng" "$WORK/client.pcapng" "$WORK/router.pcapng" \
	"$WORK/server.pcapng" || fail "mergecap failed"
editcap -t 1000 "$WORK/router.pcapng" "$WORK/router-late.pcapng" || fail "editcap failed"
editcap -t 17 "$WORK/router.pcapng" "$WORK/router-17.pcapng" || fail "editcap failed"
editcap -t 17 "$WORK/server.pcapng" "$WORK/server-17.pcapng" || fail "editcap failed"
mergecap -w "$WORK/held.pcapng" "$WORK/client.pcapng" "$WORK/router-17.pcapng" \
	"$WORK/server-17.pcapng" || fail "mergecap failed"
mergecap -w "$WORK/late.pcapng" "$WORK/client.pcapng" "$WORK/router-late.pcapng" \
	"$WORK/server.pcapng" || fail "mergecap failed"
chmod a+r "$WORK"/*.pcapng

# The checker runs $TSHARK itself: the same unprivileged tshark as ts().
cat > "$WORK/tshark" <<EOF
#!/bin/bash
cd "$WORK" && exec ${RUNAS[*]} env -i PATH="$PATH" HOME="$WORK" TZ=UTC LC_ALL=C.UTF-8 \\
	WIRESHARK_PLUGIN_DIR="$WORK/plugins" WIRESHARK_CONFIG_DIR="$WORK/config" \\
	WIRESHARK_ABORT_ON_DISSECTOR_BUG=1 tshark "\$@"
EOF
# The same, with the received_in links (4th column) of the first and the
# last record that have one swapped: a ping of the client's and the
# router's own ping, messages with different headers.
cat > "$WORK/tshark-swapped" <<EOF
#!/bin/bash
set -o pipefail
"$WORK/tshark" "\$@" | awk -F'\t' -v OFS='\t' '
	{ row[NR] = \$0; if (\$4 != "") { if (!a) a = NR; b = NR } }
	END {
		if (a && b != a) {
			split(row[a], ra, "\t"); split(row[b], rb, "\t")
			t = ra[4]; ra[4] = rb[4]; rb[4] = t
			row[a] = ra[1]; row[b] = rb[1]
			for (i = 2; i <= 8; i++) { row[a] = row[a] OFS ra[i]; row[b] = row[b] OFS rb[i] }
		}
		for (i = 1; i <= NR; i++) print row[i]
	}'
EOF
# The same, with every FWD record's hop number (5th column) blanked.
cat > "$WORK/tshark-nohop" <<EOF
#!/bin/bash
set -o pipefail
"$WORK/tshark" "\$@" | awk -F'\t' -v OFS='\t' '{ \$5 = ""; print }'
EOF
chmod 755 "$WORK/tshark" "$WORK/tshark-swapped" "$WORK/tshark-nohop"

# run_checker NAME FILE TSHARK: output in $WORK/NAME.txt, exit code in rc.
run_checker() {
	TSHARK="$3" python3 "$checker" ${2:+"$2"} > "$WORK/$1.txt" 2>&1
	rc=$?
	tail -3 "$WORK/$1.txt"
	last=$(tail -1 "$WORK/$1.txt")
}
# field NAME: the number after NAME in $last.
field() { sed -n "s/.* $1 \([0-9]*\).*/\1/p" <<< " $last"; }

run_checker plugin "$WORK/merged.pcapng" "$WORK/tshark"
expect_eq "checker exit on the plugin's links ($last)" "$rc" 0
expect_eq "wrong links" "$(field wrong)" 0
expect_eq "missing links" "$(field missing)" 0
[ "$(field links)" -gt 100 ] || fail "only '$(field links)' links checked"
[ "$(field on-several-nodes)" -ge 20 ] || fail "only '$(field on-several-nodes)' messages verified on several nodes"
# The identical pings, the requests sharing match bits and payload, the
# identical bulk REPLYs: not verifiable by header, reported as such.
[ "$(field ambiguous)" -ge 3 ] || fail "repeated identical headers not reported ambiguous ($last)"
hops=$(sed -n 's/.* fwd_hops \([0-9]*\)\/\([0-9]*\).*/\1 \2/p' <<< "$last")
[ "${hops% *}" = "${hops#* }" ] && [ "${hops% *}" -gt 10 ] || fail "FWD hops shown: '$hops'"
pass "plugin's links agree with the headers: $last"

run_checker held "$WORK/held.pcapng" "$WORK/tshark"
expect_eq "checker exit with router and server 17 s late ($last)" "$rc" 0
expect_eq "missing links, 17 s late" "$(field missing)" 0
pass "records 17 s apart linked with the default window: $last"
printf '#!/bin/bash\nexec "%s" -o lnetcap.xnode_window:10 "$@"\n' "$WORK/tshark" > "$WORK/tshark-w10"
chmod 755 "$WORK/tshark-w10"
run_checker held10 "$WORK/held.pcapng" "$WORK/tshark-w10"
expect_eq "checker exit with 17 s late and a 10 s window ($last)" "$rc" 1
[ "$(field missing)" -gt 0 ] || fail "a 10 s window linked records 17 s apart ($last)"
pass "a 10 s window would miss them: $last"

run_checker late "$WORK/late.pcapng" "$WORK/tshark"
expect_eq "checker exit with the router 1000 s off ($last)" "$rc" 1
[ "$(field missing)" -gt 0 ] || fail "links beyond the window not reported missing ($last)"
pass "unlinked records reported missing: $last"

run_checker swapped "$WORK/merged.pcapng" "$WORK/tshark-swapped"
expect_eq "checker exit with two links swapped ($last)" "$rc" 1
[ "$(field wrong)" -ge 2 ] || fail "swapped links not reported wrong ($last)"
grep -q "^wrong link: frame " "$WORK/swapped.txt" || fail "the wrong links are not named"
pass "links to another message reported wrong: $last"

run_checker nohop "$WORK/merged.pcapng" "$WORK/tshark-nohop"
expect_eq "checker exit with the FWD records' hops hidden ($last)" "$rc" 1
hops=$(sed -n 's/.* fwd_hops \([0-9]*\)\/\([0-9]*\).*/\1 \2/p' <<< "$last")
[ "${hops% *}" = 0 ] && [ "${hops#* }" -gt 10 ] || fail "hidden hops not counted: '$hops'"
grep -q "^FWD without a hop number" "$WORK/nohop.txt" || fail "FWD records without a hop are not named"
pass "FWD records without their hop reported: $last"

# REAL: samples/lnet-routed-3node.pcapng, three live captures of Lustre
# 2.16.1 (client, router with scarce buffers, server) merged: every message
# linked across its nodes, no wrong link, every FWD record a hop.
cp "$LNETCAP_SOURCE_DIR/samples/lnet-routed-3node.pcapng" "$WORK/real.pcapng"
chmod a+r "$WORK/real.pcapng"
run_checker real "$WORK/real.pcapng" "$WORK/tshark"
expect_eq "checker exit on the real routed sample ($last)" "$rc" 0
expect_eq "wrong links, real" "$(field wrong)" 0
expect_eq "missing links, real" "$(field missing)" 0
[ "$(field on-several-nodes)" -ge 250 ] || fail "only '$(field on-several-nodes)' real messages seen on several nodes"
hops=$(sed -n 's/.* fwd_hops \([0-9]*\)\/\([0-9]*\).*/\1 \2/p' <<< "$last")
expect_eq "FWD records of the real sample shown as hops" "$hops" "262 262"
pass "real routed sample: $last"
run_checker real-swapped "$WORK/real.pcapng" "$WORK/tshark-swapped"
expect_eq "checker exit on the real sample with two links swapped ($last)" "$rc" 1
pass "real sample with two links swapped reported: $last"

# Bad usage and a tshark that cannot load the plugin: exit 2, one message.
run_checker usage "" "$WORK/tshark"
expect_eq "checker exit without a file" "$rc" 2
grep -q "usage\|expected one merged capture" "$WORK/usage.txt" || fail "no usage message"
printf 'not a capture' > "$WORK/junk"
run_checker junk "$WORK/junk" "$WORK/tshark"
expect_eq "checker exit on a file that is not pcapng" "$rc" 2
grep -q "not a pcapng file" "$WORK/junk.txt" || fail "no message for a non-pcapng file"
mkdir -p "$WORK/empty" && chmod 755 "$WORK/empty"
run_checker noplugin "$WORK/merged.pcapng" \
	"${RUNAS[*]} env -i PATH=$PATH HOME=$WORK/empty WIRESHARK_PLUGIN_DIR=$WORK/empty WIRESHARK_CONFIG_DIR=$WORK/empty tshark"
expect_eq "checker exit when tshark fails" "$rc" 2
grep -q "tshark failed" "$WORK/noplugin.txt" || fail "no message for a tshark failure"
pass "bad usage, a non-pcapng file and a failing tshark exit 2 with a message"
