/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap-seq.c - the SEQ protocol (lnetcap.seq): SEQ_QUERY, by
 * which a client or target asks a sequence controller for a range of FID
 * sequences (layout.c RQF_SEQ_QUERY of Lustre 2.16: the request carries
 * the operation and a lu_seq_range, the reply the range granted).
 */
#include <epan/packet.h>

#include "packet-lnetcap.h"
#include "lnetcap-formats.h"
#include "lnetcap-vals.h"
#include "lnetcap/bodies.h"
#include "lnetcap/ptlrpc.h"

#define SR(f) (gint)off + LNETCAP_OFF(struct lnetcap_lu_seq_range, f), \
	LNETCAP_LEN(struct lnetcap_lu_seq_range, f)

static int proto_seq = -1;
static gint ett_seq = -1;
static gint ett_range = -1;
static int hf_op = -1;
static int hf_start = -1;
static int hf_end = -1;
static int hf_index = -1;
static int hf_flags = -1;

static void dissect_range(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			  lnetcap_pkt_t *pkt, guint i)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, flags;
	guint64 start, end;
	proto_tree *t;

	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, i, sizeof(struct lnetcap_lu_seq_range),
				  ett_range, "lu_seq_range", &t, &off))
		return;
	proto_tree_add_item_ret_uint64(t, hf_start, tvb, SR(lsr_start), enc, &start);
	proto_tree_add_item_ret_uint64(t, hf_end, tvb, SR(lsr_end), enc, &end);
	proto_tree_add_item(t, hf_index, tvb, SR(lsr_index), enc);
	proto_tree_add_item_ret_uint(t, hf_flags, tvb, SR(lsr_flags), enc, &flags);
	if (pkt->rpc.pb_type != LNETCAP_PTL_RPC_MSG_REQUEST)
		col_append_fstr(pinfo->cinfo, COL_INFO, " [0x%" G_GINT64_MODIFIER "x-0x%"
				G_GINT64_MODIFIER "x) %s", start, end,
				val_to_str(flags, lnetcap_seq_range_type_vals, "flags 0x%x"));
}

static int dissect_seq(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	lnetcap_pkt_t *pkt = (lnetcap_pkt_t *)data;
	proto_tree *t = lnetcap_body_tree(tvb, pinfo, tree, proto_seq, ett_seq, pkt);
	guint32 off, len, op;

	if (pkt->rpc.pb_type == LNETCAP_PTL_RPC_MSG_REQUEST) {
		if (lnetcap_rpc_buf(pkt, LNETCAP_BUF(pkt, SEQ_OPC), &off, &len) && len >= 4 &&
		    off + 4 <= tvb_captured_length(tvb)) {
			proto_tree_add_item_ret_uint(t, hf_op, tvb, (gint)off, 4, pkt->rpc.encoding, &op);
			col_append_fstr(pinfo->cinfo, COL_INFO, " %s",
					val_to_str(op, lnetcap_seq_op_vals, "op %u"));
		}
	}
	/* The range asked for (a request) or granted (a reply). */
	dissect_range(tvb, pinfo, t, pkt, LNETCAP_BUF(pkt, SEQ_RANGE));
	return (int)tvb_captured_length(tvb);
}

void lnetcap_handoff_seq(void)
{
	static const guint32 opcodes[] = { LNETCAP_OPC_SEQ_QUERY };
	lnetcap_body_register(proto_seq, dissect_seq, opcodes, array_length(opcodes));
}

void lnetcap_register_seq(void)
{
	static hf_register_info hf[] = {
		{ &hf_op, { "Operation", "lnetcap.seq.op", FT_UINT32, BASE_DEC, VALS(lnetcap_seq_op_vals), 0, "SEQ_OPC", HFILL } },
		{ &hf_start, { "Start", "lnetcap.seq.range.start", FT_UINT64, BASE_HEX, NULL, 0, "lsr_start", HFILL } },
		{ &hf_end, { "End", "lnetcap.seq.range.end", FT_UINT64, BASE_HEX, NULL, 0, "lsr_end (exclusive)", HFILL } },
		{ &hf_index, { "Index", "lnetcap.seq.range.index", FT_UINT32, BASE_DEC, NULL, 0, "lsr_index: MDT or OST index", HFILL } },
		{ &hf_flags, { "Type", "lnetcap.seq.range.flags", FT_UINT32, BASE_HEX, VALS(lnetcap_seq_range_type_vals), 0, "lsr_flags (LU_SEQ_RANGE_*)", HFILL } },
	};
	static gint *ett[] = { &ett_seq, &ett_range };

	proto_seq = proto_register_protocol("Lustre SEQ (lnetcap)", "SEQ", "lnetcap.seq");
	proto_register_field_array(proto_seq, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
}
