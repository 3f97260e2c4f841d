/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-elc.c - the early-lock-cancel buffer (RMF_DLM_REQ) that MDT
 * reint requests (and other modifying RPCs) carry: an ldlm_request whose
 * lock_count handles name the locks the client cancels with this RPC
 * (_ldlm_cancel_pack() of ldlm_request.c fills lock_handle[0..count-1];
 * the lock descriptor is unused).  The client sends the buffer with length
 * 0 when it cancels nothing.  ldlm_prep_elc_req() fills it for MDS_REINT,
 * OST_DESTROY and MDS_SWAP_LAYOUTS (canceloff 0) and for LDLM_ENQUEUE
 * (after the enqueued lock's own handle); LDLM_CANCEL packs its locks the
 * same way, so one filter (lnetcap.elc.handle) finds a lock's cancel
 * whichever RPC carried it.
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "packet-lnetcap.h"
#include "lnetcap/bodies.h"

static int hf_elc_flags = -1;
static int hf_elc_count = -1;
static int hf_elc_handle = -1;
static gint ett_elc = -1;

/* Adds lock_handle[first..first+count-1] of the ldlm_request at off (len
 * bytes) under t, as far as the buffer holds them and the capture has them. */
static void add_handles(tvbuff_t *tvb, packet_info *pinfo, proto_tree *t, guint enc, guint32 off,
			guint32 len, guint32 first, guint32 count)
{
	guint32 room = (len - (guint32)sizeof(struct lnetcap_ldlm_request)) / 8;
	for (guint32 k = first; k < MIN(first + count, room); k++) {
		guint ho = off + (guint)sizeof(struct lnetcap_ldlm_request) + 8 * k;
		if (ho + 8 > tvb_captured_length(tvb)) {
			proto_tree_add_expert_format(t, pinfo, &lnetcap_ei_truncated, tvb,
				lnetcap_clamp(tvb, ho), 0, "Cancelled lock handles cut by the snap length");
			break;
		}
		proto_tree_add_item(t, hf_elc_handle, tvb, (gint)ho, 8, enc);
	}
}

guint32 lnetcap_elc(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const lnetcap_pkt_t *pkt,
		    guint i)
{
	return lnetcap_elc_named(tvb, pinfo, tree, pkt, i, "Early lock cancel (ldlm_request)");
}

guint32 lnetcap_elc_named(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			  const lnetcap_pkt_t *pkt, guint i, const char *label)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, len, count;
	proto_tree *t;

	if (!lnetcap_rpc_buf(pkt, i, &off, &len) || len == 0)
		return 0;
	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, i, sizeof(struct lnetcap_ldlm_request), ett_elc,
				  label, &t, &off))
		return 0;
	proto_tree_add_item(t, hf_elc_flags, tvb, LNETCAP_FIELD(off, lnetcap_ldlm_request, lock_flags), enc);
	proto_tree_add_item_ret_uint(t, hf_elc_count, tvb, LNETCAP_FIELD(off, lnetcap_ldlm_request, lock_count), enc,
				     &count);
	add_handles(tvb, pinfo, t, enc, off, len, 0, count);
	return count;
}

/* An LDLM_ENQUEUE's ldlm_request: lock_handle[0] is the enqueued lock (the
 * client's own handle) and ldlm_prep_elc_req() starts lock_count at
 * LDLM_ENQUEUE_CANCEL_OFF, so the early-cancelled locks are slots 1 to
 * lock_count-1.  Their count is derived, so it is a generated field. */
guint32 lnetcap_elc_enqueue(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			    const lnetcap_pkt_t *pkt, guint i)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, len, count, start, cap, first = LNETCAP_LDLM_ENQUEUE_CANCEL_OFF;
	proto_tree *t;
	proto_item *it;

	if (!lnetcap_rpc_buf(pkt, i, &off, &len) || len < sizeof(struct lnetcap_ldlm_request) ||
	    (guint64)off + sizeof(struct lnetcap_ldlm_request) > tvb_captured_length(tvb))
		return 0;
	count = tvb_get_guint32(tvb, off + LNETCAP_OFF(struct lnetcap_ldlm_request, lock_count), enc);
	if (count <= first)
		return 0;
	count -= first;
	start = off + (guint32)sizeof(struct lnetcap_ldlm_request) + 8 * first;
	cap = tvb_captured_length(tvb);
	t = proto_tree_add_subtree_format(tree, tvb, lnetcap_clamp(tvb, start),
		start < cap ? (gint)MIN(8 * (guint64)count, cap - start) : 0, ett_elc, &it,
		"Early lock cancel (lock_handle[%u..%u])", first, first + count - 1);
	it = proto_tree_add_uint(t, hf_elc_count, tvb, LNETCAP_FIELD(off, lnetcap_ldlm_request, lock_count), count);
	proto_item_set_generated(it);
	add_handles(tvb, pinfo, t, enc, off, len, first, count);
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
