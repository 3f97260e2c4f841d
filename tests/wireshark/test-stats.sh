# SPDX-License-Identifier: GPL-2.0-or-later
# Statistics over the generated vectors: the Service Response Time table
# per opcode (request time to final reply; early replies excluded), the
# stats_tree and the NID conversations/endpoints (custom address type).
v=$(vectors)
ts -q -r "$v" -z lnetcap,srt | golden vectors-srt.txt
ts -q -r "$v" -z lnetcap,tree | golden vectors-tree.txt
ts -q -r "$v" -z conv,lnetcap -z endpoints,lnetcap | golden vectors-conv.txt
# The Source/Destination columns carry NIDs.
out=$(ts -r "$v" -Y "frame.number == 37" -T fields -e _ws.col.Source -e _ws.col.Destination)
[ "$out" = "$(printf 'fe80::1@tcp\tfe80::2@tcp1')" ] || fail "address columns: '$out'"
pass "NID address type in the Source/Destination columns"
# The filters Wireshark builds from the LNetCap Conversations/Endpoints
# rows (get_conversation_filter quotes AT_STRINGZ addresses, which is what
# the tables now hold) and from Conversation Filter in the packet list
# (lnetcap_conv_filter_string): valid, and selecting the conversation.
fs=$(stage "$LNETCAP_SOURCE_DIR/samples/lustre-fs-part1.pcapng")
expect_count "$fs" 'lnetcap.nid=="10.0.3.1@tcp"' 149
expect_count "$fs" 'lnetcap.lnet.src_nid=="10.0.3.2@tcp" && lnetcap.lnet.dest_nid=="10.0.3.1@tcp"' 77
expect_count "$fs" 'lnetcap.nid == "10.0.3.2@tcp" && lnetcap.nid == "10.0.3.1@tcp"' 149
