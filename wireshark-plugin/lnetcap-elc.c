/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-elc.c - the early-lock-cancel buffer (RMF_DLM_REQ) that MDT
 * reint requests (and other modifying RPCs) carry: an ldlm_request whose
 * lock_count handles name the locks the client cancels with this RPC
 * (_ldlm_cancel_pack() of ldlm_request.c fills lock_handle[0..count-1];
 * the lock descriptor is unused).  The client sends the buffer with length
 * 0 when it cancels nothing.
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "packet-lnetcap.h"
#include "lnetcap/bodies.h"

static int hf_elc_flags = -1;
static int hf_elc_count = -1;
static int hf_elc_handle = -1;
static gint ett_elc = -1;

guint32 lnetcap_elc(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const lnetcap_pkt_t *pkt,
		    guint i)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, len, count, room;
	proto_tree *t;

	if (!lnetcap_rpc_buf(pkt, i, &off, &len) || len == 0)
		return 0;
	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, i, sizeof(struct lnetcap_ldlm_request), ett_elc,
				  "Early lock cancel (ldlm_request)", &t, &off))
		return 0;
	proto_tree_add_item(t, hf_elc_flags, tvb, (gint)off, 4, enc);
	proto_tree_add_item_ret_uint(t, hf_elc_count, tvb, (gint)off + 4, 4, enc, &count);
	room = (len - (guint32)sizeof(struct lnetcap_ldlm_request)) / 8;
	for (guint32 k = 0; k < MIN(count, room); k++) {
		guint ho = off + (guint)sizeof(struct lnetcap_ldlm_request) + 8 * k;
		if (ho + 8 > tvb_captured_length(tvb)) {
			proto_tree_add_expert_format(t, pinfo, &lnetcap_ei_truncated, tvb,
				lnetcap_clamp(tvb, ho), 0, "Cancelled lock handles cut by the snap length");
			break;
		}
		proto_tree_add_item(t, hf_elc_handle, tvb, (gint)ho, 8, enc);
	}
	return count;
}

void lnetcap_register_elc(int proto)
{
	static hf_register_info hf[] = {
		{ &hf_elc_flags, { "ELC flags", "lnetcap.elc.flags", FT_UINT32, BASE_HEX, NULL, 0,
		  "lock_flags of the early-lock-cancel ldlm_request", HFILL } },
		{ &hf_elc_count, { "Locks cancelled", "lnetcap.elc.lock_count", FT_UINT32, BASE_DEC, NULL, 0,
		  "Locks the client cancels with this RPC (early lock cancel)", HFILL } },
		{ &hf_elc_handle, { "Cancelled lock", "lnetcap.elc.handle", FT_UINT64, BASE_HEX, NULL, 0,
		  "Server handle of a lock cancelled with this RPC", HFILL } },
	};
	static gint *ett[] = { &ett_elc };

	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
}
