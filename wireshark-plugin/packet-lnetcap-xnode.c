/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap-xnode.c - links the two ends of one LNet message in a
 * capture merged from several nodes (mergecap of a client's and a server's
 * lnetcap files): the sender's SEND record and the receiver's RECV record
 * of the same message share source and destination NIDs, message type,
 * match bits and payload length.  Each side gets the frame of the other and
 * the one-way delay (receive time minus send time: as good as the nodes'
 * clock synchronisation; negative means skewed clocks).
 *
 * tshark needs two passes (-2) to show a link from a SEND to a RECV that
 * comes later in the file.
 */
#include <string.h>

#include <epan/expert.h>
#include <epan/packet.h>

#include "lnetcap/record.h"
#include "lnetcap-tables.h"
#include "packet-lnetcap.h"

static int hf_xnode_recv_in = -1;
static int hf_xnode_sent_in = -1;
static int hf_xnode_delay = -1;
static gint ett_xnode = -1;
static expert_field ei_xnode_skew = EI_INIT;

/* Both ends of one message. */
typedef struct xnode_msg {
	guint32 send_frame;
	guint32 recv_frame;
	nstime_t send_time;
	nstime_t recv_time;
} xnode_msg_t;

/* What identifies one LNet message on both nodes.  Built with memset so
 * padding bytes never differ. */
typedef struct xnode_key {
	guint8 src[20];
	guint8 dst[20];
	guint32 msg_type;
	guint32 payload_len;
	guint64 match_bits;
} xnode_key_t;

static wmem_map_t *xnode_map;

static guint xnode_hash(gconstpointer k)
{
	return wmem_strong_hash((const guint8 *)k, sizeof(xnode_key_t));
}

static gboolean xnode_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(xnode_key_t)) == 0;
}

void lnetcap_xnode_link(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			const lnetcap_pkt_t *pkt)
{
	xnode_key_t key;
	xnode_msg_t *m;
	proto_tree *xt;
	proto_item *it;
	nstime_t delay;

	if (!pkt->have_lnet ||
	    (pkt->direction != LNETCAP_DIR_SEND && pkt->direction != LNETCAP_DIR_RECV))
		return;
	memset(&key, 0, sizeof(key));
	lnetcap_nid_to_raw(&pkt->src, key.src);
	lnetcap_nid_to_raw(&pkt->dst, key.dst);
	key.msg_type = pkt->msg_type;
	key.payload_len = pkt->payload_len;
	key.match_bits = pkt->match_bits;

	m = (xnode_msg_t *)wmem_map_lookup(xnode_map, &key);
	if (!m && !PINFO_FD_VISITED(pinfo)) {
		m = wmem_new0(wmem_file_scope(), xnode_msg_t);
		if (!lnetcap_table_insert(xnode_map, &key, sizeof(key), m))
			m = NULL;
	}
	if (m && !PINFO_FD_VISITED(pinfo)) {
		/* A resent message has the same key: link the first pair. */
		if (pkt->direction == LNETCAP_DIR_SEND && !m->send_frame) {
			m->send_frame = pinfo->num;
			m->send_time = pinfo->abs_ts;
		} else if (pkt->direction == LNETCAP_DIR_RECV && !m->recv_frame) {
			m->recv_frame = pinfo->num;
			m->recv_time = pinfo->abs_ts;
		}
	}
	if (!m && lnetcap_table_is_full(xnode_map))
		lnetcap_table_full_note(tvb, pinfo, tree, "cross-node");
	if (!m || !m->send_frame || !m->recv_frame)
		return;
	if (pinfo->num != m->send_frame && pinfo->num != m->recv_frame)
		return;
	xt = proto_tree_add_subtree(tree, tvb, 0, 0, ett_xnode, NULL, "Other end of this message");
	if (pkt->direction == LNETCAP_DIR_SEND)
		it = proto_tree_add_uint(xt, hf_xnode_recv_in, tvb, 0, 0, m->recv_frame);
	else
		it = proto_tree_add_uint(xt, hf_xnode_sent_in, tvb, 0, 0, m->send_frame);
	proto_item_set_generated(it);
	nstime_delta(&delay, &m->recv_time, &m->send_time);
	it = proto_tree_add_time(xt, hf_xnode_delay, tvb, 0, 0, &delay);
	proto_item_set_generated(it);
	if (delay.secs < 0 || delay.nsecs < 0)
		expert_add_info(pinfo, it, &ei_xnode_skew);
}

void lnetcap_register_xnode(int proto)
{
	static hf_register_info hf[] = {
		{ &hf_xnode_recv_in, { "Received in", "lnetcap.xnode.received_in", FT_FRAMENUM,
		  BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0,
		  "The receiver's record of this message (merged multi-node capture)", HFILL } },
		{ &hf_xnode_sent_in, { "Sent in", "lnetcap.xnode.sent_in", FT_FRAMENUM,
		  BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0,
		  "The sender's record of this message (merged multi-node capture)", HFILL } },
		{ &hf_xnode_delay, { "One-way delay", "lnetcap.xnode.delay", FT_RELATIVE_TIME,
		  BASE_NONE, NULL, 0,
		  "Receive time on the receiver minus send time on the sender", HFILL } },
	};
	static gint *ett[] = { &ett_xnode };
	static ei_register_info ei[] = {
		{ &ei_xnode_skew, { "lnetcap.xnode.clock_skew", PI_SEQUENCE, PI_NOTE,
		  "Received before it was sent: the nodes' clocks are not synchronised", EXPFILL } },
	};
	expert_module_t *em;

	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto);
	expert_register_field_array(em, ei, array_length(ei));
	xnode_map = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), xnode_hash,
					   xnode_equal);
}
