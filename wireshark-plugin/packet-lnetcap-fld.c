/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap-fld.c - the FLD protocol (lnetcap.fld): FLD_QUERY, by which
 * a client or MDT asks the FID Location Database which target serves a FID
 * sequence, and FLD_READ, by which an MDT copies the database from MDT0
 * (layout.c RQF_FLD_QUERY/RQF_FLD_READ of Lustre 2.16, unchanged in 2.15
 * and 2.17; include/lnetcap/fld.h).
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "packet-lnetcap.h"
#include "lnetcap-formats.h"
#include "lnetcap-vals.h"
#include "lnetcap/fld.h"
#include "lnetcap/ptlrpc.h"

#define SR(f) (gint)off + LNETCAP_OFF(struct lnetcap_lu_seq_range, f), \
	LNETCAP_LEN(struct lnetcap_lu_seq_range, f)

/* Ranges shown from an FLD_READ reply at most (a reply buffer is a page or
 * so: about 170 ranges).  Beyond, a note says how many were left out. */
#define FLD_MAX_RANGES 1024

static int proto_fld = -1;
static gint ett_fld = -1;
static gint ett_range = -1;
static gint ett_array = -1;
static int hf_op = -1;
static int hf_start = -1;
static int hf_end = -1;
static int hf_index = -1;
static int hf_flags = -1;
static int hf_count = -1;
static int hf_padding = -1;
static expert_field ei_count = EI_INIT;

/* One lu_seq_range at off (all of it captured); appends it to the Info
 * column when info is set. */
static void add_range(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint32 off, guint enc,
		      gboolean info)
{
	proto_item *ti = proto_tree_add_none_format(tree, lnetcap_hf_buffer, tvb, (gint)off,
		(gint)sizeof(struct lnetcap_lu_seq_range), "lu_seq_range");
	proto_tree *t = proto_item_add_subtree(ti, ett_range);
	guint64 start, end;
	guint32 index, flags;

	proto_tree_add_item_ret_uint64(t, hf_start, tvb, SR(lsr_start), enc, &start);
	proto_tree_add_item_ret_uint64(t, hf_end, tvb, SR(lsr_end), enc, &end);
	proto_tree_add_item_ret_uint(t, hf_index, tvb, SR(lsr_index), enc, &index);
	proto_tree_add_item_ret_uint(t, hf_flags, tvb, SR(lsr_flags), enc, &flags);
	proto_item_append_text(ti, ": [0x%" G_GINT64_MODIFIER "x-0x%" G_GINT64_MODIFIER "x) %s %u",
			       start, end, val_to_str(flags, lnetcap_seq_range_type_vals, "flags 0x%x"),
			       index);
	if (info)
		col_append_fstr(pinfo->cinfo, COL_INFO, " [0x%" G_GINT64_MODIFIER "x-0x%"
				G_GINT64_MODIFIER "x) %s %u", start, end,
				val_to_str(flags, lnetcap_seq_range_type_vals, "flags 0x%x"), index);
}

/* RMF_FLD_MDFLD in buffer i. */
static void dissect_mdfld(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt,
			  guint i, gboolean info)
{
	guint32 off;
	proto_tree *t;

	/* Checks the length and the snap length (with expert info). */
	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, i, sizeof(struct lnetcap_lu_seq_range),
				  ett_range, "fld_query_mdfld", &t, &off))
		return;
	add_range(tvb, pinfo, t, off, pkt->rpc.encoding, info);
}

/* The lu_seq_range_array of an FLD_READ reply (RMF_GENERIC_DATA, always
 * little-endian).  Ranges are shown as far as lsra_count, the buffer and
 * the captured bytes all allow. */
static void dissect_range_array(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
				lnetcap_pkt_t *pkt, guint i)
{
	const guint enc = ENC_LITTLE_ENDIAN;
	const guint32 rsz = sizeof(struct lnetcap_lu_seq_range);
	guint32 off, len, count, fit, cap, shown = 0;
	proto_tree *t;
	proto_item *ci;

	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, i, sizeof(struct lnetcap_lu_seq_range_array),
				  ett_array, "lu_seq_range_array", &t, &off))
		return;
	ci = proto_tree_add_item_ret_uint(t, hf_count, tvb, LNETCAP_FIELD(off, lnetcap_lu_seq_range_array, lsra_count),
					  enc, &count);
	proto_tree_add_item(t, hf_padding, tvb, LNETCAP_FIELD(off, lnetcap_lu_seq_range_array, lsra_padding), enc);
	col_append_fstr(pinfo->cinfo, COL_INFO, " %u range(s)", count);
	len = pkt->rpc.buf_len[i];
	fit = (len - (guint32)sizeof(struct lnetcap_lu_seq_range_array)) / rsz;
	if (count > fit) {
		expert_add_info_format(pinfo, ci, &ei_count,
			"lsra_count %u: the buffer (%u bytes) holds only %u range(s)", count, len, fit);
		count = fit;
	}
	cap = tvb_captured_length(tvb);
	for (guint32 k = 0; k < count && k < FLD_MAX_RANGES; k++) {
		guint32 ro = off + (guint32)sizeof(struct lnetcap_lu_seq_range_array) + k * rsz;
		if ((guint64)ro + rsz > cap) {
			proto_tree_add_expert_format(t, pinfo, &lnetcap_ei_truncated, tvb,
				lnetcap_clamp(tvb, ro), 0,
				"Ranges %u-%u were not captured: snap length too small", k + 1, count);
			return;
		}
		add_range(tvb, pinfo, t, ro, enc, FALSE);
		shown++;
	}
	if (shown < count)
		proto_tree_add_none_format(t, lnetcap_hf_buffer, tvb, 0, 0,
			"%u more range(s) not shown", count - shown);
}

static int dissect_fld(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	lnetcap_pkt_t *pkt = (lnetcap_pkt_t *)data;
	proto_tree *t = lnetcap_body_tree(tvb, pinfo, tree, proto_fld, ett_fld, pkt);
	gboolean request = pkt->rpc.pb_type == LNETCAP_PTL_RPC_MSG_REQUEST;
	guint32 off, len, op;

	if (pkt->rpc.opc == LNETCAP_OPC_FLD_QUERY) {
		if (request) {
			if (lnetcap_rpc_buf(pkt, LNETCAP_BUF(pkt, FLD_OPC), &off, &len) && len >= 4 &&
			    (guint64)off + 4 <= tvb_captured_length(tvb)) {
				proto_tree_add_item_ret_uint(t, hf_op, tvb, (gint)off, 4,
							     pkt->rpc.encoding, &op);
				col_append_fstr(pinfo->cinfo, COL_INFO, " %s",
						val_to_str(op, lnetcap_fld_op_vals, "op %u"));
			}
			/* The range's start is the sequence looked up. */
			if (lnetcap_rpc_buf(pkt, LNETCAP_BUF(pkt, FLD_MDFLD), &off, &len) && len >= 8 &&
			    (guint64)off + 8 <= tvb_captured_length(tvb))
				col_append_fstr(pinfo->cinfo, COL_INFO, " seq 0x%" G_GINT64_MODIFIER "x",
						tvb_get_guint64(tvb, off, pkt->rpc.encoding));
			dissect_mdfld(tvb, pinfo, t, pkt, LNETCAP_BUF(pkt, FLD_MDFLD), FALSE);
		} else {
			dissect_mdfld(tvb, pinfo, t, pkt, LNETCAP_BUF(pkt, FLD_MDFLD), TRUE);
		}
	} else { /* FLD_READ */
		if (request)
			dissect_mdfld(tvb, pinfo, t, pkt, LNETCAP_BUF(pkt, FLD_MDFLD), TRUE);
		else
			dissect_range_array(tvb, pinfo, t, pkt, LNETCAP_BUF(pkt, GENERIC_DATA));
	}
	return (int)tvb_captured_length(tvb);
}

void lnetcap_handoff_fld(void)
{
	static const guint32 opcodes[] = { LNETCAP_OPC_FLD_QUERY, LNETCAP_OPC_FLD_READ };
	lnetcap_body_register(proto_fld, dissect_fld, opcodes, array_length(opcodes));
}

void lnetcap_register_fld(void)
{
	static hf_register_info hf[] = {
		{ &hf_op, { "Operation", "lnetcap.fld.op", FT_UINT32, BASE_DEC, VALS(lnetcap_fld_op_vals), 0, "RMF_FLD_OPC (enum fld_op)", HFILL } },
		{ &hf_start, { "Start", "lnetcap.fld.range.start", FT_UINT64, BASE_HEX, NULL, 0, "lsr_start", HFILL } },
		{ &hf_end, { "End", "lnetcap.fld.range.end", FT_UINT64, BASE_HEX, NULL, 0, "lsr_end (exclusive)", HFILL } },
		{ &hf_index, { "Index", "lnetcap.fld.range.index", FT_UINT32, BASE_DEC, NULL, 0, "lsr_index: MDT or OST index", HFILL } },
		{ &hf_flags, { "Type", "lnetcap.fld.range.flags", FT_UINT32, BASE_HEX, VALS(lnetcap_seq_range_type_vals), 0, "lsr_flags (LU_SEQ_RANGE_*)", HFILL } },
		{ &hf_count, { "Range count", "lnetcap.fld.range_count", FT_UINT32, BASE_DEC, NULL, 0, "lsra_count of an FLD_READ reply", HFILL } },
		{ &hf_padding, { "Padding", "lnetcap.fld.range_padding", FT_UINT32, BASE_HEX, NULL, 0, "lsra_padding", HFILL } },
	};
	static gint *ett[] = { &ett_fld, &ett_range, &ett_array };
	static ei_register_info ei[] = {
		{ &ei_count, { "lnetcap.fld.range_count.bad", PI_MALFORMED, PI_WARN,
		  "More ranges than the buffer holds", EXPFILL } },
	};
	expert_module_t *em;

	proto_fld = proto_register_protocol("Lustre FLD (lnetcap)", "FLD", "lnetcap.fld");
	proto_register_field_array(proto_fld, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto_fld);
	expert_register_field_array(em, ei, array_length(ei));
}
