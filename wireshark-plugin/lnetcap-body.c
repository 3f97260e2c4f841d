/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-body.c - what the body protocols (OBD, OST, MDT, LDLM, MGS...)
 * share: the protocol item each adds for its part of the message, their
 * registration in PtlRPC's opcode table, reading a lustre_msg buffer, FIDs
 * and dates.  PtlRPC hands bodies over through the table only; the body
 * files reach PtlRPC's facts through lnetcap_pkt_t, so neither side calls
 * the other and a new body is one file and one registration.
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "packet-lnetcap.h"
#include "lnetcap/bodies.h"

int lnetcap_hf_buffer = -1;
expert_field lnetcap_ei_truncated = EI_INIT;

static int hf_fid_seq = -1;
static int hf_any_fid = -1;
static int hf_fid_oid = -1;
static int hf_fid_ver = -1;
static gint ett_fid = -1;
static expert_field ei_buf_short = EI_INIT;

proto_tree *lnetcap_body_tree(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, int proto,
			      gint ett, const lnetcap_pkt_t *pkt)
{
	/* The body is everything after the ptlrpc_body buffer. */
	guint cap = tvb_captured_length(tvb);
	guint start = pkt->rpc.bufcount > 1 ? MIN(pkt->rpc.buf_off[1], cap) : cap;
	proto_item *ti = proto_tree_add_item(tree, proto, tvb, (gint)start, (gint)(cap - start), ENC_NA);
	col_set_str(pinfo->cinfo, COL_PROTOCOL, proto_get_protocol_short_name(find_protocol_by_id(proto)));
	return proto_item_add_subtree(ti, ett);
}

dissector_handle_t lnetcap_body_register(int proto, dissector_t dissector, const guint32 *opcodes,
					 size_t n)
{
	dissector_handle_t h = create_dissector_handle(dissector, proto);
	for (size_t i = 0; i < n; i++)
		dissector_add_uint(LNETCAP_OPC_TABLE, opcodes[i], h);
	return h;
}

gboolean lnetcap_rpc_buf(const lnetcap_pkt_t *pkt, guint i, guint32 *off, guint32 *len)
{
	if (!pkt->is_rpc || i >= pkt->rpc.bufcount)
		return FALSE;
	*off = pkt->rpc.buf_off[i];
	*len = pkt->rpc.buf_len[i];
	return TRUE;
}

gboolean lnetcap_rpc_buf_tree(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			      const lnetcap_pkt_t *pkt, guint i, guint32 need, gint ett,
			      const char *name, proto_tree **out, guint32 *offp)
{
	guint32 off, len;
	proto_item *it;

	*out = NULL;
	if (!lnetcap_rpc_buf(pkt, i, &off, &len))
		return FALSE;
	if (len < need) {
		proto_tree_add_expert_format(tree, pinfo, &ei_buf_short, tvb, 0, 0,
			"Buffer %u is %u bytes; %s needs %u", i, len, name, need);
		return FALSE;
	}
	if ((guint64)off + need > tvb_captured_length(tvb)) {
		proto_tree_add_expert_format(tree, pinfo, &lnetcap_ei_truncated, tvb, 0, 0,
			"%s (buffer %u) was not captured: snap length too small", name, i);
		return FALSE;
	}
	it = proto_tree_add_none_format(tree, lnetcap_hf_buffer, tvb, (gint)off,
		(gint)MIN(len, tvb_captured_length(tvb) - off), "%s", name);
	*offp = off;
	*out = proto_item_add_subtree(it, ett);
	return TRUE;
}

void lnetcap_mark_valid(proto_item *it, guint64 valid, guint64 bit, const char *flag)
{
	if (it && !(valid & bit))
		proto_item_append_text(it, " [not valid: %s not set]", flag);
}

proto_item *lnetcap_add_secs(proto_tree *tree, int hf, tvbuff_t *tvb, guint off, guint enc)
{
	nstime_t t;
	t.secs = (time_t)(gint64)tvb_get_guint64(tvb, off, enc);
	t.nsecs = 0;
	return proto_tree_add_time(tree, hf, tvb, (gint)off, 8, &t);
}

void lnetcap_add_any_fid(proto_tree *tree, tvbuff_t *tvb, guint off, const char *fid)
{
	proto_item *it = proto_tree_add_string(tree, hf_any_fid, tvb, (gint)off, 16, fid);
	proto_item_set_hidden(it);
}

const char *lnetcap_add_fid(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, guint off,
			    guint enc, int hf_fid, const char *label)
{
	guint64 seq = tvb_get_guint64(tvb, off, enc);
	guint32 oid = tvb_get_guint32(tvb, LNETCAP_AT(off, lnetcap_lu_fid, f_oid), enc);
	guint32 ver = tvb_get_guint32(tvb, LNETCAP_AT(off, lnetcap_lu_fid, f_ver), enc);
	const char *s = wmem_strdup_printf(pinfo->pool, "[0x%" G_GINT64_MODIFIER "x:0x%x:0x%x]",
					   seq, oid, ver);
	proto_item *it = proto_tree_add_string(tree, hf_fid, tvb, off, 16, s);
	proto_tree *ft;
	lnetcap_add_any_fid(tree, tvb, off, s);
	if (label)
		proto_item_prepend_text(it, "%s ", label);
	ft = proto_item_add_subtree(it, ett_fid);
	proto_tree_add_item(ft, hf_fid_seq, tvb, LNETCAP_FIELD(off, lnetcap_lu_fid, f_seq), enc);
	proto_tree_add_item(ft, hf_fid_oid, tvb, LNETCAP_FIELD(off, lnetcap_lu_fid, f_oid), enc);
	proto_tree_add_item(ft, hf_fid_ver, tvb, LNETCAP_FIELD(off, lnetcap_lu_fid, f_ver), enc);
	return s;
}

void lnetcap_register_body_helpers(int proto)
{
	static hf_register_info hf[] = {
		{ &hf_any_fid, { "Any FID", "lnetcap.fid", FT_STRING, BASE_NONE, NULL, 0,
		  "Every FID of the message, whatever field holds it (like ip.addr): "
		  "lnetcap.fid == \"[0x200000401:0x2:0x0]\" follows one file", HFILL } },
		{ &hf_fid_seq, { "Sequence", "lnetcap.fid.seq", FT_UINT64, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_fid_oid, { "Object id", "lnetcap.fid.oid", FT_UINT32, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_fid_ver, { "Version", "lnetcap.fid.ver", FT_UINT32, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &lnetcap_hf_buffer, { "Buffer", "lnetcap.ptlrpc.buffer", FT_NONE, BASE_NONE,
		  NULL, 0, NULL, HFILL } },
	};
	static gint *ett[] = { &ett_fid };
	static ei_register_info ei[] = {
		{ &lnetcap_ei_truncated, { "lnetcap.ptlrpc.truncated", PI_UNDECODED, PI_NOTE,
		  "Cut by the snap length", EXPFILL } },
		{ &ei_buf_short, { "lnetcap.ptlrpc.buffer.short", PI_MALFORMED, PI_WARN,
		  "Buffer shorter than its structure", EXPFILL } },
	};
	expert_module_t *em;

	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto);
	expert_register_field_array(em, ei, array_length(ei));
}
