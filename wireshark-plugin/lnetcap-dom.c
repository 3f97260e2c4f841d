/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-dom.c - Data-on-MDT data returned with an open (fields
 * lnetcap.mdt.dom.*): the RMF_NIOBUF_INLINE buffer of LDLM_ENQUEUE open
 * intent replies is a niobuf_remote (offset and length in the file, message
 * byte order) followed by rnb_len bytes of the file, the whole file or its
 * tail (mdt_dom_read_on_open() of mdt_io.c; the client checks that offset +
 * length is mbo_dom_size).  A client without DoM support gets only the
 * 16-byte niobuf_remote, with length 0.
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "packet-lnetcap.h"
#include "lnetcap/bodies.h"

static int hf_dom_offset = -1;
static int hf_dom_len = -1;
static int hf_dom_data = -1;
static gint ett_dom = -1;
static expert_field ei_dom_bad = EI_INIT;

void lnetcap_dom_inline(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			const lnetcap_pkt_t *pkt, guint i)
{
	const guint32 rnb = sizeof(struct lnetcap_niobuf_remote);
	guint enc = pkt->rpc.encoding;
	guint cap = tvb_captured_length(tvb);
	guint32 off, len, dlen, doff;
	guint64 foff;
	proto_tree *t;

	if (!lnetcap_rpc_buf(pkt, i, &off, &len) || len == 0)
		return;
	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, i, rnb, ett_dom,
				  "DoM inline data (niobuf_inline)", &t, &off))
		return;
	proto_tree_add_item_ret_uint64(t, hf_dom_offset, tvb,
		(gint)off + LNETCAP_OFF(struct lnetcap_niobuf_remote, rnb_offset), 8, enc, &foff);
	proto_tree_add_item_ret_uint(t, hf_dom_len, tvb,
		(gint)off + LNETCAP_OFF(struct lnetcap_niobuf_remote, rnb_len), 4, enc, &dlen);
	if (dlen == 0)
		return;
	col_append_fstr(pinfo->cinfo, COL_INFO, " DoM data %u bytes at %" G_GINT64_MODIFIER "u",
			dlen, foff);
	if (dlen > len - rnb) {
		/* The server grows the buffer to hold all rnb_len bytes. */
		proto_tree_add_expert_format(t, pinfo, &ei_dom_bad, tvb,
			LNETCAP_FIELD(off, lnetcap_niobuf_remote, rnb_len),
			"rnb_len %u exceeds the %u data bytes of the buffer", dlen, len - rnb);
		return;
	}
	doff = off + rnb;
	if ((guint64)doff + dlen > cap) {
		/* Usual with a payload prefix: show what was captured, no more. */
		guint32 got = doff < cap ? cap - doff : 0;
		if (got)
			proto_item_append_text(proto_tree_add_item(t, hf_dom_data, tvb, (gint)doff,
				(gint)got, ENC_NA), " [%u of %u bytes captured]", got, dlen);
		proto_tree_add_expert_format(t, pinfo, &lnetcap_ei_truncated, tvb,
			lnetcap_clamp(tvb, doff), 0, "DoM inline data cut by the snap length");
		return;
	}
	proto_tree_add_item(t, hf_dom_data, tvb, (gint)doff, (gint)dlen, ENC_NA);
}

void lnetcap_register_dom(int proto)
{
	static hf_register_info hf[] = {
		{ &hf_dom_offset, { "DoM data offset", "lnetcap.mdt.dom.offset", FT_UINT64, BASE_DEC,
		  NULL, 0, "rnb_offset: where in the file the inline data starts", HFILL } },
		{ &hf_dom_len, { "DoM data length", "lnetcap.mdt.dom.len", FT_UINT32, BASE_DEC, NULL, 0,
		  "rnb_len: bytes of file data that follow", HFILL } },
		{ &hf_dom_data, { "DoM data", "lnetcap.mdt.dom.data", FT_BYTES, BASE_NONE, NULL, 0,
		  "File data returned with the open", HFILL } },
	};
	static gint *ett[] = { &ett_dom };
	static ei_register_info ei[] = {
		{ &ei_dom_bad, { "lnetcap.mdt.dom.bad", PI_MALFORMED, PI_WARN,
		  "Inline data longer than its buffer", EXPFILL } },
	};
	expert_module_t *em;

	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto);
	expert_register_field_array(em, ei, array_length(ei));
}
