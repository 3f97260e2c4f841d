/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap-lnet.c - the LNet header in both forms (72-byte nid4 wire
 * header, 96-byte nid16 header; include/lnetcap/lnet.h), LNet's own
 * traffic on portal 0 (ping GET/REPLY, discovery push PUT carrying
 * struct lnet_ping_info) and the hand-off of PUT payloads to PtlRPC or to
 * Wireshark's built-in Lustre dissector.
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/exceptions.h>
#include <epan/show_exception.h>
#include <epan/expert.h>
#include <wsutil/utf8_entities.h>

#include "packet-lnetcap.h"
#include "lnetcap-names.h"
#include "lnetcap-vals.h"
#include "lnetcap/lnet.h"
#include "lnetcap/record.h"

/* Wireshark's packet-lnet.h passes this to the lnet.ptl_index table; the
 * built-in Lustre dissector dereferences it unconditionally. */
struct lnetcap_lnet_trans_info {
	guint64 match_bits;
};

static int hf_lnet = -1;
static int hf_dest_nid = -1;
static int hf_src_nid = -1;
static int hf_dest_name = -1;
static int hf_src_name = -1;
static int hf_any_nid = -1;
static int hf_nid_raw64 = -1;
static int hf_nid_size = -1;
static int hf_nid_lnd = -1;
static int hf_nid_num = -1;
static int hf_nid_addr4 = -1;
static int hf_nid_addr = -1;
static int hf_dest_pid = -1;
static int hf_src_pid = -1;
static int hf_type = -1;
static int hf_payload_length = -1;
static int hf_wmd_if = -1;
static int hf_wmd_obj = -1;
static int hf_match_bits = -1;
static int hf_hdr_data = -1;
static int hf_ptl_index = -1;
static int hf_offset = -1;
static int hf_src_offset = -1;
static int hf_sink_length = -1;
static int hf_mlength = -1;
static int hf_ack_req = -1;
static int hf_incarnation = -1;
static int hf_hello_type = -1;
static int hf_payload = -1;
static int hf_ping = -1;
static int hf_ping_kind = -1;
static int hf_ping_magic = -1;
static int hf_ping_pid = -1;
static int hf_ping_nnis = -1;
static int hf_ping_ni = -1;
static int hf_ping_ni_nid = -1;
static int hf_ping_ni_status = -1;
static int hf_ping_ni_msg_size = -1;
static int hf_ping_md = -1;
static int hf_ping_md_count = -1;
static int hf_ping_md_entry = -1;
static int hf_ping_md_nid = -1;
static int hf_ping_md_buffer = -1;

static gint ett_lnet = -1;
static gint ett_nid = -1;
static gint ett_ping = -1;
static gint ett_ping_ni = -1;
static gint ett_ping_md = -1;
static gint ett_ping_md_entry = -1;

static expert_field ei_bad_type = EI_INIT;
static expert_field ei_short_hdr = EI_INIT;
static expert_field ei_bad_hdr_len = EI_INIT;
static expert_field ei_ping_truncated = EI_INIT;
static expert_field ei_ping_magic = EI_INIT;
static expert_field ei_ping_size = EI_INIT;
static expert_field ei_ping_md_count = EI_INIT;

static lnetcap_flagset_t fs_ping_feat = LNETCAP_FLAGSET(
	"lnetcap.ping.features", "Features", 32, lnetcap_ping_feat_defs, lnetcap_ping_feat_count);

static dissector_table_t ptl_index_table;
static dissector_handle_t ptlrpc_handle;

static const value_string ni_status_vals[] = {
	{ LNETCAP_LNET_NI_STATUS_UP, "UP" },
	{ LNETCAP_LNET_NI_STATUS_DOWN, "DOWN" },
	{ 0, "INVALID" },
	{ 0, NULL }
};

/* Adds one NID (nid4: 8 bytes LE; nid16: struct lnet_nid) as its Lustre
 * text with the raw parts underneath. */
static void add_nid(proto_tree *tree, tvbuff_t *tvb, int hf, int off, gboolean large,
		    lnetcap_nid_t *nid, char *buf)
{
	proto_item *it, *hidden;
	proto_tree *nt;
	int len = large ? 20 : 8;

	if (large) {
		guint8 raw[20];
		tvb_memcpy(tvb, raw, off, 20);
		lnetcap_nid_from_raw(nid, raw);
	} else {
		lnetcap_nid_from_nid4(nid, tvb_get_letoh64(tvb, off));
	}
	lnetcap_nid_to_str(nid, buf, LNETCAP_NID_STRLEN);
	it = proto_tree_add_string(tree, hf, tvb, off, len, buf);
	/* lnetcap.nid matches either end, like ip.addr. */
	hidden = proto_tree_add_string(tree, hf_any_nid, tvb, off, len, buf);
	proto_item_set_hidden(hidden);
	nt = proto_item_add_subtree(it, ett_nid);
	if (large) {
		proto_tree_add_item(nt, hf_nid_size, tvb, LNETCAP_FIELD(off, lnetcap_nid, nid_size), ENC_NA);
		proto_tree_add_item(nt, hf_nid_lnd, tvb, LNETCAP_FIELD(off, lnetcap_nid, nid_type), ENC_NA);
		proto_tree_add_item(nt, hf_nid_num, tvb, LNETCAP_FIELD(off, lnetcap_nid, nid_num), ENC_BIG_ENDIAN);
		/* nid_size + 4 of the 16 address bytes are in use. */
		proto_tree_add_item(nt, hf_nid_addr, tvb, (gint)LNETCAP_AT(off, lnetcap_nid, nid_addr),
				    nid->size + 4, ENC_NA);
	} else {
		proto_tree_add_item(nt, hf_nid_raw64, tvb, off, 8, ENC_LITTLE_ENDIAN);
		proto_tree_add_item(nt, hf_nid_addr4, tvb, LNETCAP_FIELD(off, lnetcap_nid4_bytes, n4_addr),
				    ENC_LITTLE_ENDIAN);
		proto_tree_add_item(nt, hf_nid_num, tvb, LNETCAP_FIELD(off, lnetcap_nid4_bytes, n4_net_num),
				    ENC_LITTLE_ENDIAN);
		proto_tree_add_item(nt, hf_nid_lnd, tvb, LNETCAP_FIELD(off, lnetcap_nid4_bytes, n4_lnd), ENC_NA);
	}
}

static void add_wmd(proto_tree *tree, tvbuff_t *tvb, int off)
{
	proto_tree_add_item(tree, hf_wmd_if, tvb, LNETCAP_FIELD(off, lnetcap_handle_wire, wh_interface_cookie),
			    ENC_LITTLE_ENDIAN);
	proto_tree_add_item(tree, hf_wmd_obj, tvb, LNETCAP_FIELD(off, lnetcap_handle_wire, wh_object_cookie),
			    ENC_LITTLE_ENDIAN);
}

#define M(s, f) LNETCAP_OFF(struct s, f)

/* Which of LNet's pings a ping GET is.  The wire cannot tell (lib-move.c
 * lnet_send_ping(), api-ni.c lnet_ping() and peer.c discovery all send the
 * same GET), the task that sent it can: LNet health's recovery pings come
 * from the kthread "monitor_thread", discovery's from "lnet_discovery". */
static const char *lnet_ping_kind(tvbuff_t *tvb)
{
	char comm[17];

	if (!(tvb_get_letohs(tvb, LNETCAP_OFF(struct lnetcap_rec_hdr, rec_flags)) &
	      LNETCAP_REC_F_TASK_VALID))
		return "unknown";
	tvb_memcpy(tvb, comm, LNETCAP_OFF(struct lnetcap_rec_hdr, comm), 16);
	comm[16] = '\0';
	if (strcmp(comm, "monitor_thread") == 0)
		return "recovery";
	if (strcmp(comm, "lnet_discovery") == 0)
		return "discovery";
	return "ping";
}

int dissect_lnetcap_lnet(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			 guint hdr_off, lnetcap_pkt_t *pkt)
{
	proto_item *ti, *it;
	proto_tree *t;
	guint32 hdr_len = tvb_get_guint8(tvb, LNETCAP_OFF(struct lnetcap_rec_hdr, lnet_hdr_len));
	gboolean large;
	int base, m;
	guint32 type, plen;

	if (hdr_len != LNETCAP_HDR_NID4_LEN && hdr_len != LNETCAP_HDR_NID16_LEN) {
		expert_add_info_format(pinfo, tree, &ei_bad_hdr_len,
			"LNet header length %u is neither 72 (nid4) nor 96 (nid16)", hdr_len);
		return -1;
	}
	if (tvb_captured_length_remaining(tvb, (gint)hdr_off) < (gint)hdr_len) {
		expert_add_info_format(pinfo, tree, &ei_short_hdr,
			"LNet header cut short: %d of %u bytes captured",
			tvb_captured_length_remaining(tvb, (gint)hdr_off), hdr_len);
		return -1;
	}
	large = hdr_len == LNETCAP_HDR_NID16_LEN;
	base = (int)hdr_off;
	ti = proto_tree_add_item(tree, hf_lnet, tvb, base, (gint)hdr_len, ENC_NA);
	proto_item_append_text(ti, large ? " (nid16)" : " (nid4)");
	t = proto_item_add_subtree(ti, ett_lnet);

	if (large) {
		add_nid(t, tvb, hf_dest_nid, base + M(lnetcap_hdr_nid16, dest_nid), TRUE,
			&pkt->dst, pkt->dst_str);
		add_nid(t, tvb, hf_src_nid, base + M(lnetcap_hdr_nid16, src_nid), TRUE,
			&pkt->src, pkt->src_str);
	} else {
		add_nid(t, tvb, hf_dest_nid, base + M(lnetcap_hdr_nid4, dest_nid), FALSE,
			&pkt->dst, pkt->dst_str);
		add_nid(t, tvb, hf_src_nid, base + M(lnetcap_hdr_nid4, src_nid), FALSE,
			&pkt->src, pkt->src_str);
	}
	/* Names from the NID names file (network name resolution on). */
	{
		const char *dn = lnetcap_nid_name(pkt->dst_str, pinfo->pool);
		const char *sn = lnetcap_nid_name(pkt->src_str, pinfo->pool);
		if (dn)
			proto_item_set_generated(proto_tree_add_string(t, hf_dest_name, tvb,
				base, 0, dn));
		if (sn)
			proto_item_set_generated(proto_tree_add_string(t, hf_src_name, tvb,
				base, 0, sn));
	}
	/* The pids, type and length sit at the same place relative to the
	 * union in both forms. */
	m = base + (large ? M(lnetcap_hdr_nid16, msg) : M(lnetcap_hdr_nid4, msg));
	proto_tree_add_item(t, hf_dest_pid, tvb, m - 16, 4, ENC_LITTLE_ENDIAN);
	proto_tree_add_item(t, hf_src_pid, tvb, m - 12, 4, ENC_LITTLE_ENDIAN);
	it = proto_tree_add_item_ret_uint(t, hf_type, tvb, m - 8, 4, ENC_LITTLE_ENDIAN, &type);
	proto_tree_add_item_ret_uint(t, hf_payload_length, tvb, m - 4, 4, ENC_LITTLE_ENDIAN, &plen);

	pkt->have_lnet = TRUE;
	pkt->msg_type = type;
	lnetcap_set_address(pinfo, &pinfo->src, &pkt->src);
	lnetcap_set_address(pinfo, &pinfo->dst, &pkt->dst);

	switch (type) {
	case LNETCAP_MSG_ACK:
		add_wmd(t, tvb, m + M(lnetcap_ack, dst_wmd));
		/* The PUT it acknowledges named this MD (its ack_wmd). */
		pkt->wmd_if = tvb_get_letoh64(tvb, m + M(lnetcap_ack, dst_wmd));
		pkt->wmd_obj = tvb_get_letoh64(tvb, m + M(lnetcap_ack, dst_wmd) + M(lnetcap_handle_wire, wh_object_cookie));
		proto_tree_add_item_ret_uint64(t, hf_match_bits, tvb, m + M(lnetcap_ack, match_bits),
					       8, ENC_LITTLE_ENDIAN, &pkt->match_bits);
		proto_tree_add_item(t, hf_mlength, tvb, m + M(lnetcap_ack, mlength), 4,
				    ENC_LITTLE_ENDIAN);
		break;
	case LNETCAP_MSG_PUT: {
		guint64 ifc = tvb_get_letoh64(tvb, m + M(lnetcap_put, ack_wmd));
		guint64 obj = tvb_get_letoh64(tvb, m + M(lnetcap_put, ack_wmd) + M(lnetcap_handle_wire, wh_object_cookie));
		add_wmd(t, tvb, m + M(lnetcap_put, ack_wmd));
		pkt->ack_wanted = !(ifc == LNETCAP_LNET_WIRE_COOKIE_NONE && obj == LNETCAP_LNET_WIRE_COOKIE_NONE);
		pkt->wmd_if = ifc;
		pkt->wmd_obj = obj;
		it = proto_tree_add_boolean(t, hf_ack_req, tvb, m + M(lnetcap_put, ack_wmd), 16,
					    pkt->ack_wanted);
		proto_item_set_generated(it);
		proto_tree_add_item_ret_uint64(t, hf_match_bits, tvb, m + M(lnetcap_put, match_bits),
					       8, ENC_LITTLE_ENDIAN, &pkt->match_bits);
		proto_tree_add_item(t, hf_hdr_data, tvb, m + M(lnetcap_put, hdr_data), 8,
				    ENC_LITTLE_ENDIAN);
		proto_tree_add_item_ret_uint(t, hf_ptl_index, tvb, m + M(lnetcap_put, ptl_index), 4,
					     ENC_LITTLE_ENDIAN, &pkt->portal);
		proto_tree_add_item_ret_uint(t, hf_offset, tvb, m + M(lnetcap_put, offset), 4,
					     ENC_LITTLE_ENDIAN, &pkt->put_offset);
		pkt->have_portal = TRUE;
		break;
	}
	case LNETCAP_MSG_GET:
		add_wmd(t, tvb, m + M(lnetcap_get, return_wmd));
		pkt->wmd_if = tvb_get_letoh64(tvb, m + M(lnetcap_get, return_wmd));
		pkt->wmd_obj = tvb_get_letoh64(tvb, m + M(lnetcap_get, return_wmd) + M(lnetcap_handle_wire, wh_object_cookie));
		proto_tree_add_item_ret_uint64(t, hf_match_bits, tvb, m + M(lnetcap_get, match_bits),
					       8, ENC_LITTLE_ENDIAN, &pkt->match_bits);
		proto_tree_add_item_ret_uint(t, hf_ptl_index, tvb, m + M(lnetcap_get, ptl_index), 4,
					     ENC_LITTLE_ENDIAN, &pkt->portal);
		proto_tree_add_item(t, hf_src_offset, tvb, m + M(lnetcap_get, src_offset), 4,
				    ENC_LITTLE_ENDIAN);
		proto_tree_add_item(t, hf_sink_length, tvb, m + M(lnetcap_get, sink_length), 4,
				    ENC_LITTLE_ENDIAN);
		pkt->have_portal = TRUE;
		break;
	case LNETCAP_MSG_REPLY:
		add_wmd(t, tvb, m + M(lnetcap_reply, dst_wmd));
		pkt->wmd_if = tvb_get_letoh64(tvb, m + M(lnetcap_reply, dst_wmd));
		pkt->wmd_obj = tvb_get_letoh64(tvb, m + M(lnetcap_reply, dst_wmd) + M(lnetcap_handle_wire, wh_object_cookie));
		break;
	case LNETCAP_MSG_HELLO:
		proto_tree_add_item(t, hf_incarnation, tvb, m + M(lnetcap_hello, incarnation), 8,
				    ENC_LITTLE_ENDIAN);
		proto_tree_add_item(t, hf_hello_type, tvb, m + M(lnetcap_hello, type), 4,
				    ENC_LITTLE_ENDIAN);
		break;
	default:
		expert_add_info_format(pinfo, it, &ei_bad_type, "Unknown LNet message type %u", type);
		break;
	}

	col_add_fstr(pinfo->cinfo, COL_INFO, "%s %s " UTF8_RIGHTWARDS_ARROW " %s",
		     val_to_str(type, lnetcap_msg_type_vals, "type %u"), pkt->src_str, pkt->dst_str);
	if (pkt->have_portal)
		col_append_fstr(pinfo->cinfo, COL_INFO, " %s",
				val_to_str(pkt->portal, lnetcap_portal_vals, "portal %u"));
	if (type <= LNETCAP_MSG_GET)
		col_append_fstr(pinfo->cinfo, COL_INFO, " mb=0x%" G_GINT64_MODIFIER "x",
				pkt->match_bits);
	/* LNet's own ping (lnetctl ping, discovery, router and recovery
	 * checks): a GET on portal 0 with the ping match bits.  Which one it
	 * is shows only in the sending task (lnet_ping_kind). */
	if (type == LNETCAP_MSG_GET && pkt->portal == LNETCAP_PORTAL_LNET_RESERVED &&
	    pkt->match_bits == LNETCAP_LNET_PING_MATCHBITS) {
		/* Shown by lnetcap_lnet_ping_kind, once the cross-node links
		 * say whether the sender's SEND knows it better. */
		pkt->ping_get = TRUE;
		pkt->ping_kind = lnet_ping_kind(tvb);
		pkt->lnet_tree = t;
	}
	proto_item_append_text(ti, ", %s %s " UTF8_RIGHTWARDS_ARROW " %s",
			       val_to_str(type, lnetcap_msg_type_vals, "type %u"),
			       pkt->src_str, pkt->dst_str);
	return (int)hdr_len;
}

void lnetcap_lnet_ping_kind(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			    lnetcap_pkt_t *pkt)
{
	const char *kind = pkt->ping_kind, *sent;
	proto_item *it;

	if (!pkt->ping_get)
		return;
	/* Only the sender's record names the task: a router's FWD and the
	 * receiver's RECV of the same GET take the kind of its SEND when the
	 * merged capture links them (packet-lnetcap-xnode.c). */
	if (strcmp(kind, "unknown") == 0 && pkt->direction != LNETCAP_DIR_SEND &&
	    (sent = lnetcap_xnode_send_ping_kind(pinfo, pkt)) != NULL &&
	    strcmp(sent, "unknown") != 0) {
		kind = sent;
		it = proto_tree_add_string_format_value(pkt->lnet_tree ? pkt->lnet_tree : tree,
			hf_ping_kind, tvb, 0, 0, kind, "%s (from the sender's SEND in frame %u)",
			kind, pkt->xnode_send_frame);
	} else {
		it = proto_tree_add_string(pkt->lnet_tree ? pkt->lnet_tree : tree, hf_ping_kind,
					   tvb, 0, 0, kind);
	}
	proto_item_set_generated(it);
	pkt->ping_kind = kind;
	col_append_fstr(pinfo->cinfo, COL_INFO, " [%s]",
			strcmp(kind, "recovery") == 0 ? "recovery ping" :
			strcmp(kind, "discovery") == 0 ? "discovery ping" : "ping");
}

/* Lustre 2.17's NID metadata trailer (include/lnetcap/lnet.h struct
 * lnetcap_nid_metadata) at off, where the NI lists end: a count in the
 * info's byte order, then entries of a nid4 and LND-defined bytes (EFA:
 * GID and queue pair data).  A count the message cannot hold is flagged,
 * and only the captured entries are shown. */
static guint dissect_ping_metadata(tvbuff_t *tvb, packet_info *pinfo, proto_tree *pt, guint off, guint enc)
{
	const guint entry = sizeof(struct lnetcap_nid_md_entry);
	guint avail = tvb_captured_length(tvb);
	guint reported = tvb_reported_length(tvb);
	guint32 count, shown = 0;
	guint64 need;
	proto_item *ti, *ci;
	proto_tree *mt;

	if (off + sizeof(struct lnetcap_nid_metadata) > avail) {
		expert_add_info_format(pinfo, proto_tree_get_parent(pt), &ei_ping_truncated,
				       "Ping info cut before its NID metadata");
		return off;
	}
	ti = proto_tree_add_item(pt, hf_ping_md, tvb, off, -1, ENC_NA);
	mt = proto_item_add_subtree(ti, ett_ping_md);
	ci = proto_tree_add_item_ret_uint(mt, hf_ping_md_count, tvb,
					  LNETCAP_FIELD(off, lnetcap_nid_metadata, num_nid_mappings), enc, &count);
	off += sizeof(struct lnetcap_nid_metadata);
	need = (guint64)off + (guint64)count * entry;
	if (need > reported)
		expert_add_info_format(pinfo, ci, &ei_ping_md_count,
				       "%u metadata entries do not fit in the message: %u do",
				       count, (reported - off) / entry);
	for (; shown < count && off + entry <= avail; shown++, off += entry) {
		lnetcap_nid_t nid;
		char buf[LNETCAP_NID_STRLEN];
		proto_item *it;
		proto_tree *et;

		lnetcap_nid_from_nid4(&nid, tvb_get_guint64(tvb, LNETCAP_AT(off, lnetcap_nid_md_entry, nid), enc));
		lnetcap_nid_to_str(&nid, buf, sizeof(buf));
		it = proto_tree_add_item(mt, hf_ping_md_entry, tvb, off, entry, ENC_NA);
		proto_item_append_text(it, ": %s", buf);
		et = proto_item_add_subtree(it, ett_ping_md_entry);
		proto_tree_add_string(et, hf_ping_md_nid, tvb, LNETCAP_FIELD(off, lnetcap_nid_md_entry, nid), buf);
		proto_tree_add_item(et, hf_ping_md_buffer, tvb, LNETCAP_FIELD(off, lnetcap_nid_md_entry, buffer), ENC_NA);
	}
	proto_item_set_end(ti, tvb, (gint)off);
	proto_item_append_text(ti, ": %u %s", count, count == 1 ? "entry" : "entries");
	if (shown < count && need <= reported)
		expert_add_info_format(pinfo, ti, &ei_ping_truncated,
				       "NID metadata truncated after %u of %u entries", shown, count);
	return off;
}

/* struct lnet_ping_info: payload of a ping REPLY and of a discovery push. */
static void dissect_ping_info(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree)
{
	proto_item *ti, *it;
	proto_tree *pt;
	guint enc = ENC_LITTLE_ENDIAN;
	guint32 magic = tvb_get_letohl(tvb, 0);
	guint32 nnis, features, total = 0;
	guint avail = tvb_captured_length(tvb);
	guint off;

	if (magic != LNETCAP_LNET_PROTO_PING_MAGIC)
		enc = ENC_BIG_ENDIAN;
	ti = proto_tree_add_item(tree, hf_ping, tvb, 0, (gint)tvb_captured_length(tvb), ENC_NA);
	pt = proto_item_add_subtree(ti, ett_ping);
	proto_tree_add_item(pt, hf_ping_magic, tvb, 0, 4, enc);
	features = tvb_get_guint32(tvb, 4, enc);
	lnetcap_flagset_add(pt, tvb, 4, enc, &fs_ping_feat);
	proto_tree_add_item(pt, hf_ping_pid, tvb, 8, 4, enc);
	proto_tree_add_item_ret_uint(pt, hf_ping_nnis, tvb, 12, 4, enc, &nnis);
	off = sizeof(struct lnetcap_ping_info);
	for (guint32 i = 0; i < nnis; i++) {
		lnetcap_nid_t nid;
		char buf[LNETCAP_NID_STRLEN];
		proto_tree *nt;
		if (off + sizeof(struct lnetcap_ni_status) > avail) {
			expert_add_info_format(pinfo, ti, &ei_ping_truncated,
				"Ping info truncated after %u of %u NIs", i, nnis);
			return;
		}
		lnetcap_nid_from_nid4(&nid, tvb_get_guint64(tvb, LNETCAP_AT(off, lnetcap_ni_status, ns_nid), enc));
		lnetcap_nid_to_str(&nid, buf, sizeof(buf));
		it = proto_tree_add_item(pt, hf_ping_ni, tvb, off, 16, ENC_NA);
		proto_item_append_text(it, ": %s", buf);
		nt = proto_item_add_subtree(it, ett_ping_ni);
		proto_tree_add_string(nt, hf_ping_ni_nid, tvb, LNETCAP_FIELD(off, lnetcap_ni_status, ns_nid), buf);
		proto_tree_add_item(nt, hf_ping_ni_status, tvb, LNETCAP_FIELD(off, lnetcap_ni_status, ns_status), enc);
		proto_tree_add_item(nt, hf_ping_ni_msg_size, tvb, LNETCAP_FIELD(off, lnetcap_ni_status, ns_msg_size),
				    enc);
		if (i == 0)
			total = tvb_get_guint32(tvb, LNETCAP_AT(off, lnetcap_ni_status, ns_msg_size), enc) & ~3U;
		if (i > 0)
			col_append_fstr(pinfo->cinfo, COL_INFO, "%s%s", i == 1 ? " NIs: " : ", ", buf);
		off += sizeof(struct lnetcap_ni_status);
	}
	/* Large-address NIs (struct lnet_ni_large_status) follow the nid4 list;
	 * pi_ni[0].ns_msg_size then holds the size of the whole NI part
	 * (lnet_ping_info_size()), where the metadata trailer starts. */
	if ((features & LNETCAP_PING_FEAT_LARGE_ADDR) && nnis > 0) {
		if (total < off) {
			expert_add_info_format(pinfo, ti, &ei_ping_size,
				"Ping info size %u ends inside the nid4 list (%u bytes)", total, off);
			return;
		}
		while (off < total) {
			const guint nid_at = LNETCAP_AT(off, lnetcap_ni_large_status, ns_nid);
			guint8 raw[sizeof(struct lnetcap_nid)] = { 0 };
			lnetcap_nid_t nid;
			char buf[LNETCAP_NID_STRLEN];
			proto_tree *nt;
			guint nid_len, len, nid_size;
			if (nid_at + sizeof(guint32) > avail) {
				expert_add_info(pinfo, ti, &ei_ping_truncated);
				return;
			}
			nid_size = tvb_get_guint8(tvb, LNETCAP_AT(nid_at, lnetcap_nid, nid_size));
			/* The entry ends where the NID's address does, rounded to 4. */
			nid_len = LNETCAP_AT(0, lnetcap_nid, nid_addr) + nid_size + 4;
			len = (LNETCAP_AT(0, lnetcap_ni_large_status, ns_nid) + nid_len + 3) & ~3U;
			if (nid_size > LNETCAP_NID_SIZE_MAX || off + len > total) {
				expert_add_info_format(pinfo, ti, &ei_ping_size,
					"Large-address NI at %u (nid_size %u) does not fit in the ping info size %u",
					off, nid_size, total);
				return;
			}
			if (off + len > avail) {
				expert_add_info(pinfo, ti, &ei_ping_truncated);
				return;
			}
			tvb_memcpy(tvb, raw, nid_at, nid_len);
			lnetcap_nid_from_raw(&nid, raw);
			lnetcap_nid_to_str(&nid, buf, sizeof(buf));
			it = proto_tree_add_item(pt, hf_ping_ni, tvb, off, (gint)len, ENC_NA);
			proto_item_append_text(it, ": %s (large)", buf);
			nt = proto_item_add_subtree(it, ett_ping_ni);
			proto_tree_add_item(nt, hf_ping_ni_status, tvb,
					    LNETCAP_FIELD(off, lnetcap_ni_large_status, ns_status), enc);
			proto_tree_add_string(nt, hf_ping_ni_nid, tvb, (gint)nid_at, (gint)nid_len, buf);
			off += len;
		}
	}
	if (features & LNETCAP_PING_FEAT_METADATA)
		off = dissect_ping_metadata(tvb, pinfo, pt, off, enc);
	proto_item_set_end(ti, tvb, (gint)off);
}

static gboolean is_ping_info(tvbuff_t *tvb)
{
	guint32 magic;
	if (tvb_captured_length(tvb) < sizeof(struct lnetcap_ping_info))
		return FALSE;
	magic = tvb_get_letohl(tvb, 0);
	return magic == LNETCAP_LNET_PROTO_PING_MAGIC ||
	       magic == GUINT32_SWAP_LE_BE(LNETCAP_LNET_PROTO_PING_MAGIC);
}

void dissect_lnetcap_lnet_payload(tvbuff_t *payload, packet_info *pinfo, proto_tree *root,
				  proto_tree *tree, lnetcap_pkt_t *pkt)
{
	if (!pkt->have_lnet)
		return;
	/* Portal 0 is LNet's own: discovery pushes (PUT) and ping replies. */
	if ((pkt->msg_type == LNETCAP_MSG_PUT && pkt->portal == LNETCAP_PORTAL_LNET_RESERVED) ||
	    pkt->msg_type == LNETCAP_MSG_REPLY) {
		if (is_ping_info(payload)) {
			col_append_str(pinfo->cinfo, COL_INFO,
				       pkt->msg_type == LNETCAP_MSG_PUT ? " [discovery push]"
									: " [ping reply]");
			dissect_ping_info(payload, pinfo, tree);
			pkt->ping_info = TRUE;
			return;
		}
		if (pkt->msg_type == LNETCAP_MSG_PUT) {
			expert_add_info(pinfo, tree, &ei_ping_magic);
			proto_tree_add_item(tree, hf_payload, payload, 0, (gint)tvb_captured_length(payload), ENC_NA);
			return;
		}
	}
	if (pkt->msg_type == LNETCAP_MSG_PUT) {
		gboolean decoded = FALSE;
		if (lnetcap_pref_decode_rpc && ptlrpc_handle &&
		    call_dissector_only(ptlrpc_handle, payload, pinfo, root, pkt) > 0) {
			decoded = pkt->is_rpc && pkt->rpc.have_body && pkt->rpc.body_known;
		}
		/* Optional: let Wireshark's own Lustre dissector have a go at what
		 * we do not decode (it needs the match bits as data). */
		if (lnetcap_pref_delegate_lustre && ptl_index_table && !decoded) {
			struct lnetcap_lnet_trans_info *ti =
				wmem_new0(pinfo->pool, struct lnetcap_lnet_trans_info);
			/* The built-in rewrites Protocol and Info: keep ours (they
			 * carry the XID and status it does not show). */
			const char *const volatile info = pinfo->cinfo ? wmem_strdup(pinfo->pool,
				col_get_text(pinfo->cinfo, COL_INFO)) : NULL;
			const char *const volatile proto_col = pinfo->cinfo ? wmem_strdup(pinfo->pool,
				col_get_text(pinfo->cinfo, COL_PROTOCOL)) : NULL;
			volatile gboolean handled = FALSE;
			ti->match_bits = pkt->match_bits;
			/* Its exceptions (a snapped body) stay in its subtree. */
			TRY {
				handled = dissector_try_uint_new(ptl_index_table, pkt->portal,
								 payload, pinfo, root, TRUE, ti);
			} CATCH_BOUNDS_AND_DISSECTOR_ERRORS {
				show_exception(payload, pinfo, root, EXCEPT_CODE, GET_MESSAGE);
				handled = TRUE;
			} ENDTRY;
			if (handled) {
				if (info && pkt->is_rpc) {
					col_clear_fence(pinfo->cinfo, COL_INFO);
					col_add_str(pinfo->cinfo, COL_INFO, info);
					col_add_str(pinfo->cinfo, COL_PROTOCOL, proto_col);
				}
				return;
			}
		}
		if (pkt->is_rpc)
			return;
	}
	proto_tree_add_item(tree, hf_payload, payload, 0, (gint)tvb_captured_length(payload), ENC_NA);
}

void lnetcap_handoff_lnet(void)
{
	ptlrpc_handle = find_dissector("lnetcap.ptlrpc");
	ptl_index_table = find_dissector_table("lnet.ptl_index");
}

void lnetcap_register_lnet(int proto)
{
	static hf_register_info hf[] = {
		{ &hf_lnet, { "LNet header", "lnetcap.lnet", FT_NONE, BASE_NONE,
		  NULL, 0, NULL, HFILL } },
		{ &hf_dest_nid, { "Destination NID", "lnetcap.lnet.dest_nid", FT_STRING, BASE_NONE,
		  NULL, 0, NULL, HFILL } },
		{ &hf_src_nid, { "Source NID", "lnetcap.lnet.src_nid", FT_STRING, BASE_NONE,
		  NULL, 0, NULL, HFILL } },
		{ &hf_any_nid, { "NID", "lnetcap.nid", FT_STRING, BASE_NONE,
		  NULL, 0, "Source or destination NID", HFILL } },
		{ &hf_nid_raw64, { "lnet_nid_t", "lnetcap.lnet.nid.raw", FT_UINT64, BASE_HEX,
		  NULL, 0, "64-bit NID as on the wire", HFILL } },
		{ &hf_nid_size, { "nid_size", "lnetcap.lnet.nid.size", FT_UINT8, BASE_DEC,
		  NULL, 0, "Address bytes - 4", HFILL } },
		{ &hf_nid_lnd, { "LND", "lnetcap.lnet.nid.lnd", FT_UINT8, BASE_DEC,
		  VALS(lnetcap_lnd_vals), 0, NULL, HFILL } },
		{ &hf_nid_num, { "Net number", "lnetcap.lnet.nid.net_num", FT_UINT16, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_nid_addr4, { "Address", "lnetcap.lnet.nid.addr4", FT_UINT32, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_nid_addr, { "Address", "lnetcap.lnet.nid.addr", FT_BYTES, BASE_NONE,
		  NULL, 0, NULL, HFILL } },
		{ &hf_dest_pid, { "Destination PID", "lnetcap.lnet.dest_pid", FT_UINT32, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_src_pid, { "Source PID", "lnetcap.lnet.src_pid", FT_UINT32, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_type, { "Message type", "lnetcap.lnet.type", FT_UINT32, BASE_DEC,
		  VALS(lnetcap_msg_type_vals), 0, NULL, HFILL } },
		{ &hf_payload_length, { "Payload length", "lnetcap.lnet.payload_length", FT_UINT32,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_wmd_if, { "WMD interface cookie", "lnetcap.lnet.wmd.interface", FT_UINT64,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_wmd_obj, { "WMD object cookie", "lnetcap.lnet.wmd.object", FT_UINT64,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_match_bits, { "Match bits", "lnetcap.lnet.match_bits", FT_UINT64, BASE_HEX,
		  NULL, 0, "For PtlRPC requests and replies: the XID", HFILL } },
		{ &hf_hdr_data, { "Header data", "lnetcap.lnet.hdr_data", FT_UINT64, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_ptl_index, { "Portal", "lnetcap.lnet.ptl_index", FT_UINT32, BASE_DEC,
		  VALS(lnetcap_portal_vals), 0, NULL, HFILL } },
		{ &hf_offset, { "Offset", "lnetcap.lnet.offset", FT_UINT32, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_src_offset, { "Source offset", "lnetcap.lnet.src_offset", FT_UINT32, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_sink_length, { "Sink length", "lnetcap.lnet.sink_length", FT_UINT32, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_mlength, { "Manipulated length", "lnetcap.lnet.mlength", FT_UINT32, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_ack_req, { "ACK requested", "lnetcap.lnet.ack_requested", FT_BOOLEAN,
		  BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_incarnation, { "Incarnation", "lnetcap.lnet.hello.incarnation", FT_UINT64,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_hello_type, { "Connection type", "lnetcap.lnet.hello.type", FT_UINT32,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_payload, { "Payload", "lnetcap.lnet.payload", FT_BYTES, BASE_NONE,
		  NULL, 0, "Captured payload prefix", HFILL } },
		{ &hf_dest_name, { "Destination name", "lnetcap.lnet.dest_name", FT_STRING,
		  BASE_NONE, NULL, 0, "NAME@NET from the NID names file (network name resolution)",
		  HFILL } },
		{ &hf_src_name, { "Source name", "lnetcap.lnet.src_name", FT_STRING,
		  BASE_NONE, NULL, 0, "NAME@NET from the NID names file (network name resolution)",
		  HFILL } },
		{ &hf_ping_kind, { "Ping kind", "lnetcap.lnet.ping_kind", FT_STRING, BASE_NONE,
		  NULL, 0, "recovery (LNet health: monitor_thread), discovery (lnet_discovery), "
		  "ping (a user's lctl/lnetctl ping, or any other task) or unknown (no task in the "
		  "record); a FWD or RECV takes the kind of the SEND a merged capture links it to", HFILL } },
		{ &hf_ping, { "LNet ping info", "lnetcap.ping", FT_NONE, BASE_NONE,
		  NULL, 0, "struct lnet_ping_info", HFILL } },
		{ &hf_ping_magic, { "Magic", "lnetcap.ping.magic", FT_UINT32, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_ping_pid, { "PID", "lnetcap.ping.pid", FT_UINT32, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_ping_nnis, { "NIs", "lnetcap.ping.nnis", FT_UINT32, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_ping_ni, { "NI", "lnetcap.ping.ni", FT_NONE, BASE_NONE,
		  NULL, 0, NULL, HFILL } },
		{ &hf_ping_ni_nid, { "NID", "lnetcap.ping.ni.nid", FT_STRING, BASE_NONE,
		  NULL, 0, NULL, HFILL } },
		{ &hf_ping_ni_status, { "Status", "lnetcap.ping.ni.status", FT_UINT32, BASE_HEX,
		  VALS(ni_status_vals), 0, "NI status (for 0@lo: the ping target sequence)", HFILL } },
		{ &hf_ping_ni_msg_size, { "Message size", "lnetcap.ping.ni.msg_size", FT_UINT32,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ping_md, { "NID metadata", "lnetcap.ping.md", FT_NONE, BASE_NONE,
		  NULL, 0, "struct lnet_nid_metadata (Lustre 2.17, METADATA feature)", HFILL } },
		{ &hf_ping_md_count, { "Entries", "lnetcap.ping.md.count", FT_UINT32, BASE_DEC,
		  NULL, 0, "num_nid_mappings", HFILL } },
		{ &hf_ping_md_entry, { "Entry", "lnetcap.ping.md.entry", FT_NONE, BASE_NONE,
		  NULL, 0, "struct lnet_nid_md_entry", HFILL } },
		{ &hf_ping_md_nid, { "NID", "lnetcap.ping.md.nid", FT_STRING, BASE_NONE,
		  NULL, 0, NULL, HFILL } },
		{ &hf_ping_md_buffer, { "LND data", "lnetcap.ping.md.buffer", FT_BYTES, BASE_NONE,
		  NULL, 0, "LND-defined bytes (EFA: GID and queue pair data)", HFILL } },
	};
	static gint *ett[] = { &ett_lnet, &ett_nid, &ett_ping, &ett_ping_ni, &ett_ping_md, &ett_ping_md_entry };
	static ei_register_info ei[] = {
		{ &ei_bad_type, { "lnetcap.lnet.type.unknown", PI_PROTOCOL, PI_ERROR,
		  "Unknown LNet message type", EXPFILL } },
		{ &ei_short_hdr, { "lnetcap.lnet.short", PI_MALFORMED, PI_ERROR,
		  "LNet header cut short", EXPFILL } },
		{ &ei_bad_hdr_len, { "lnetcap.lnet.hdr_len.bad", PI_MALFORMED, PI_ERROR,
		  "Bad LNet header length", EXPFILL } },
		{ &ei_ping_truncated, { "lnetcap.ping.truncated", PI_UNDECODED, PI_NOTE,
		  "Ping info cut by the snap length", EXPFILL } },
		{ &ei_ping_magic, { "lnetcap.ping.magic.bad", PI_PROTOCOL, PI_WARN,
		  "PUT to portal 0 without lnet_ping_info magic", EXPFILL } },
		{ &ei_ping_size, { "lnetcap.ping.size.bad", PI_MALFORMED, PI_WARN,
		  "Ping info size does not match its large-address NIs", EXPFILL } },
		{ &ei_ping_md_count, { "lnetcap.ping.md.count.bad", PI_MALFORMED, PI_WARN,
		  "More NID metadata entries than the message holds", EXPFILL } },
	};
	expert_module_t *em;

	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto);
	expert_register_field_array(em, ei, array_length(ei));
	lnetcap_flagset_register(proto, &fs_ping_feat);
}
