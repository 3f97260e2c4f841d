/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-intent.c - what LDLM intent enqueues carry besides the MDT
 * records packet-lnetcap-mdt.c decodes:
 *  - the layout_intent of IT_LAYOUT requests (lnetcap.ldlm.layout_intent.*):
 *    which layout operation (LAYOUT_INTENT_*) on which extent of the file;
 *  - the reply buffers after MDT_MD: the ACL, the xattr cache refill of
 *    IT_GETXATTR and the DoM data of IT_OPEN.  Which reply format
 *    (layout.c ldlm_intent_*_server) a reply has, its buffer count says:
 *    the formats of 2.15-2.17 all differ in length (bodies.h).
 */
#include <epan/packet.h>

#include "packet-lnetcap.h"
#include "lnetcap-vals.h"
#include "lnetcap/bodies.h"

#define LI(f) LNETCAP_OFF(struct lnetcap_layout_intent, f)

static int hf_li_opc = -1;
static int hf_li_start = -1;
static int hf_li_end = -1;
static gint ett_li = -1;
static lnetcap_flagset_t fs_laif = LNETCAP_FLAGSET(
	"lnetcap.ldlm.layout_intent.flags", "Layout intent flags (LAIF_*)", 32,
	lnetcap_laif_flag_defs, lnetcap_laif_flag_count);

void lnetcap_layout_intent(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			   const lnetcap_pkt_t *pkt, guint i)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, opc;
	guint64 start, end;
	proto_tree *t;
	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, i, sizeof(struct lnetcap_layout_intent),
				  ett_li, "layout_intent", &t, &off))
		return;
	proto_tree_add_item_ret_uint(t, hf_li_opc, tvb, (gint)off + LI(lai_opc), 4, enc, &opc);
	lnetcap_flagset_add(t, tvb, (gint)off + LI(lai_flags), enc, &fs_laif);
	proto_tree_add_item_ret_uint64(t, hf_li_start, tvb, (gint)off + LI(lai_extent_start), 8, enc,
				       &start);
	proto_tree_add_item_ret_uint64(t, hf_li_end, tvb, (gint)off + LI(lai_extent_end), 8, enc, &end);
	col_append_fstr(pinfo->cinfo, COL_INFO, " %s",
			val_to_str(opc, lnetcap_layout_intent_vals, "layout op %u"));
	if (end == G_MAXUINT64)
		col_append_fstr(pinfo->cinfo, COL_INFO, " [%" G_GINT64_MODIFIER "u, EOF)", start);
	else
		col_append_fstr(pinfo->cinfo, COL_INFO, " [%" G_GINT64_MODIFIER "u, %"
				G_GINT64_MODIFIER "u)", start, end);
}

void lnetcap_intent_reply_extras(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
				 lnetcap_pkt_t *pkt)
{
	guint n = pkt->rpc.bufcount;
	/* RMF_ACL: decoded only when the mdt_body says OBD_MD_FLACL, which a
	 * getxattr reply (whose slot is a reserved, unfilled buffer) never does. */
	lnetcap_mdt_acl(tvb, pinfo, tree, pkt, 2, LNETCAP_INTENT_REP_ACL);
	if (n == LNETCAP_INTENT_GETXATTR_REP_BUFS)
		lnetcap_xattr_cache(tvb, pinfo, tree, pkt);
	else if (n >= LNETCAP_INTENT_OPEN_REP_MIN_BUFS)
		lnetcap_dom_inline(tvb, pinfo, tree, pkt, LNETCAP_INTENT_OPEN_REP_NIOBUF_INLINE);
}

void lnetcap_register_intent(int proto)
{
	static hf_register_info hf[] = {
		{ &hf_li_opc, { "Layout intent", "lnetcap.ldlm.layout_intent.opc", FT_UINT32, BASE_DEC,
		  VALS(lnetcap_layout_intent_vals), 0, "lai_opc (li_opc in 2.15)", HFILL } },
		{ &hf_li_start, { "Extent start", "lnetcap.ldlm.layout_intent.start", FT_UINT64, BASE_DEC,
		  NULL, 0, "lai_extent.e_start", HFILL } },
		{ &hf_li_end, { "Extent end", "lnetcap.ldlm.layout_intent.end", FT_UINT64,
		  BASE_DEC | BASE_VAL64_STRING | BASE_SPECIAL_VALS, VALS64(lnetcap_u64_eof_vals), 0, "lai_extent.e_end",
		  HFILL } },
	};
	static gint *ett[] = { &ett_li };

	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	lnetcap_flagset_register(proto, &fs_laif);
}
