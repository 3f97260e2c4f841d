# SPDX-License-Identifier: GPL-2.0-or-later
# A payload the live capture could not read is not blamed on the snap
# length: the expert note gives the reason the record carries.
"$LNETCAP_VECTORS" unreadable "$WORK/unreadable.pcapng" || fail "unreadable vectors"
chmod a+r "$WORK/unreadable.pcapng"
ts -r "$WORK/unreadable.pcapng" -T fields -E separator='|' -e frame.number -e _ws.expert.message \
	> "$WORK/got.txt" || fail tshark
cat > "$WORK/expected.txt" <<'END'
1|Only 100 of 300 payload bytes were captured (snap length)
2|Only 0 of 300 payload bytes were captured: the capture could not read it
3|Only 0 of 300 payload bytes were captured: its pages could not be mapped on the capturing node
4|Only 0 of 300 payload bytes were captured: reading it faulted on the capturing node
5|Only 0 of 300 payload bytes were captured: it spans more pages than the capture reads per record
END
diff -u "$WORK/expected.txt" "$WORK/got.txt" || fail "payload notes differ"
pass "unreadable payloads say why, snap-length cuts say snap length"
