/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-flow.c - the "LNet" flow graph (Statistics > Flow Graph > LNet;
 * tshark -z flow,lnet,standard): one arrow per hop of each message, between
 * the nodes that saw it, rather than the end NIDs of its LNet header, which
 * are the same on every hop.
 *
 * A record is an arrow from the node that captured it to its peer NID (the
 * next hop) for a SEND, a FWD or a sender's DROP, and from the peer (the
 * previous hop) to the node for a RECV or a receiver's DROP.  A peer NID
 * that names an interface of another node of the capture is drawn as that
 * node, so a routed message merged from three nodes' files reads client ->
 * router (the client's SEND), router -> server (the router's FWD).  The
 * receiver's RECV ends a hop that the record of its sender side already
 * drew, when the capture links them (packet-lnetcap-xnode.c): then it
 * draws nothing.  A link capture (WIRE, converted tcpdump traffic) is
 * drawn between the header's NIDs.
 */
#include <string.h>

#include <epan/column-utils.h>
#include <epan/packet.h>
#include <epan/tap.h>

#include "packet-lnetcap.h"
#include "lnetcap-node.h"
#include "lnetcap-vals.h"
#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"
#include "ws-seq-analysis.h"

#ifdef LNETCAP_HAVE_SEQ_ANALYSIS

/* The node a NID is an interface of, by its label; else the NID itself. */
static const char *hop_end(const char *nid, wmem_allocator_t *scope)
{
	const lnetcap_node_t *n = lnetcap_node_by_nid(nid);
	return n ? lnetcap_node_label(n, scope) : nid;
}

static void set_text_address(address *dst, const char *text)
{
	address a;
	set_address(&a, AT_STRINGZ, (int)strlen(text) + 1, text);
	copy_address(dst, &a);
}

/* Above the arrow: the LNet message type and what it carries. */
static gchar *arrow_label(const lnetcap_tap_info_t *ti, wmem_allocator_t *scope)
{
	const char *type = val_to_str_const(ti->msg_type, lnetcap_msg_type_vals, "?");

	if (ti->is_rpc)
		return g_strdup_printf("%s %s %s", type, lnetcap_opcode_name(scope, ti->opc),
				       ti->pb_type == LNETCAP_PTL_RPC_MSG_REQUEST ? "req" :
				       ti->early_reply ? "early" : "rep");
	if (ti->ping_kind)
		return g_strdup_printf("%s %s", type, strcmp(ti->ping_kind, "unknown") == 0 ?
				       "ping" : ti->ping_kind);
	return g_strdup(type);
}

static tap_packet_status flow_packet(void *tapdata, packet_info *pinfo,
				     epan_dissect_t *edt _U_, const void *data,
				     tap_flags_t flags _U_)
{
	seq_analysis_info_t *sainfo = (seq_analysis_info_t *)tapdata;
	const lnetcap_tap_info_t *ti = (const lnetcap_tap_info_t *)data;
	const char *from, *to, *node, *peer, *info;
	seq_analysis_item_t *sai;
	gchar time_str[COL_MAX_LEN];

	if (!ti->src_str || !ti->node || ti->xnode_prev_hop_seen)
		return TAP_PACKET_DONT_REDRAW;
	node = ti->node;
	peer = hop_end(ti->peer_str, pinfo->pool);
	if (ti->direction == LNETCAP_DIR_WIRE) {
		from = ti->src_str;
		to = ti->dst_str;
	} else if (ti->received) {
		from = peer;
		to = node;
	} else {
		from = node;
		to = peer;
	}
	/* A message a node sends itself (LNet's loopback: discovery of its
	 * own NIDs) crosses no link between nodes: not a hop.  (4.0's text
	 * dump, tshark -z flow, also cannot draw an arrow to its own column.) */
	if (strcmp(from, to) == 0)
		return TAP_PACKET_DONT_REDRAW;
	sai = g_new0(seq_analysis_item_t, 1);
	sai->frame_number = pinfo->num;
	set_text_address(&sai->src_addr, from);
	set_text_address(&sai->dst_addr, to);
	set_fd_time(pinfo->epan, pinfo->fd, time_str);
	sai->time_str = g_strdup(time_str);
	sai->frame_label = arrow_label(ti, pinfo->pool);
	info = pinfo->cinfo ? col_get_text(pinfo->cinfo, COL_INFO) : NULL;
	sai->comment = g_strdup(info ? info : "");
	sequence_analysis_use_color_filter(pinfo, sai);
	sai->line_style = 1;
	sai->display = TRUE;
	g_queue_push_tail(sainfo->items, sai);
	return TAP_PACKET_REDRAW;
}

void lnetcap_register_flow(int proto)
{
	register_seq_analysis("lnet", "LNet", proto, "lnetcap", TL_REQUIRES_COLUMNS, flow_packet);
}

#else

void lnetcap_register_flow(int proto)
{
	(void)proto;
}

#endif
