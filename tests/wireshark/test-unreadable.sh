# SPDX-License-Identifier: GPL-2.0-or-later
# A payload the live capture could not read is not blamed on the snap
# length: the expert note gives the reason the record carries, and a cut by
# the snap length alone gets no record-level note (decoders that needed the
# missing bytes say so themselves).
"$LNETCAP_VECTORS" unreadable "$WORK/unreadable.pcapng" || fail "unreadable vectors"
chmod a+r "$WORK/unreadable.pcapng"
ts -r "$WORK/unreadable.pcapng" -T fields -E separator='|' -e frame.number -e _ws.expert.message \
	> "$WORK/got.txt" || fail tshark
cat > "$WORK/expected.txt" <<'END'
1|
2|Only 0 of 300 payload bytes were captured: the capture could not read it
3|Only 0 of 300 payload bytes were captured: its pages could not be mapped on the capturing node
4|Only 0 of 300 payload bytes were captured: reading it faulted on the capturing node
5|Only 0 of 300 payload bytes were captured: it spans more pages than the capture reads per record
6|Only 0 of 300 payload bytes were captured: it is in device (GPU) memory, which the capture never reads
7|Only 0 of 300 payload bytes were captured: LNet may discard received data of its MD (LNET_MD_DISCARD)
END
diff -u "$WORK/expected.txt" "$WORK/got.txt" || fail "payload notes differ"
pass "unreadable payloads say why, snap-length cuts add no note"
