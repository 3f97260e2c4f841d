# SPDX-License-Identifier: GPL-2.0-or-later
# The plugin's C NID printer agrees with the agent's (capture/src/nid.cpp,
# Lustre's libcfs_nidstr rules) on every LND style, net numbers, IPv6,
# unknown and removed LNDs, odd address sizes and LNET_ANY_NID, in both
# the nid16 and the nid4 header forms.
"$LNETCAP_VECTORS" nids "$WORK/nids.pcapng" "$WORK/expected.txt" || fail "nid vectors"
chmod a+r "$WORK/nids.pcapng"
ts -r "$WORK/nids.pcapng" -T fields -E separator='|' -e lnetcap.lnet.src_nid -e lnetcap.lnet.dest_nid \
	> "$WORK/got.txt" || fail tshark
diff -u "$WORK/expected.txt" "$WORK/got.txt" || fail "NID text differs from Nid::to_string()"
pass "$(wc -l < "$WORK/got.txt") NID pairs print as the agent prints them"
