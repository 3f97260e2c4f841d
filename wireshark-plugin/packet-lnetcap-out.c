/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap-out.c - the OUT protocol (lnetcap.out): OUT_UPDATE, the
 * object updates one target sends another (DNE: remote directories and
 * cross-MDT renames; LFSCK), and MDS_BATCH (Lustre 2.16+), a client's
 * batch of metadata sub-requests (today BUT_GETATTR, statahead).
 * Structures and how they are packed: include/lnetcap/out_update.h.
 *
 * These bodies are lists whose counts come from the wire.  The capture
 * holds a prefix of the message (the snap length) and a peer may lie, so
 * every walk stops at the first element that does not fit in the bytes
 * declared for it (buffer or inline length: a warning) or in the bytes
 * captured (a note), and after a fixed number of elements.
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "packet-lnetcap.h"
#include "lnetcap-flags.h"
#include "lnetcap-vals.h"
#include "lnetcap/out_update.h"
#include "lnetcap/ptlrpc.h"

#define OU(f) LNETCAP_OFF(struct lnetcap_object_update, f)
#define BH(f) LNETCAP_OFF(struct lnetcap_but_update_header, f)
#define LM(f) LNETCAP_OFF(struct lnetcap_lustre_msg_v2, f)
#define ROUND8(n) (((guint64)(n) + 7) & ~(guint64)7)

/* Most elements shown of any one list: far above what Lustre sends (an
 * inline request is at most OUT_UPDATE_MAX_INLINE_SIZE, 4096 bytes), small
 * enough that no count makes the tree huge. */
#define OUT_MAX_ITEMS 1024
/* Most buffers of a batched sub-message (PtlRPC's own limit is 31). */
#define OUT_MAX_SUBBUFS 32
/* Update types named in the Info column. */
#define OUT_INFO_TYPES 4

static int proto_out = -1;
static gint ett_out = -1;
static gint ett_hdr = -1;
static gint ett_req = -1;
static gint ett_update = -1;
static gint ett_param = -1;
static gint ett_reply = -1;
static gint ett_result = -1;
static gint ett_submsg = -1;
static int hf_ouh_magic = -1;
static int hf_ouh_count = -1;
static int hf_ouh_inline_length = -1;
static int hf_ouh_reply_size = -1;
static int hf_bulk_size = -1;
static int hf_ourq_magic = -1;
static int hf_ourq_count = -1;
static int hf_ourq_padding = -1;
static int hf_ou_type = -1;
static int hf_ou_params_count = -1;
static int hf_ou_result_size = -1;
static int hf_ou_padding1 = -1;
static int hf_ou_batchid = -1;
static int hf_ou_fid = -1;
static int hf_oup_len = -1;
static int hf_oup_buf = -1;
static int hf_ourp_magic = -1;
static int hf_ourp_count = -1;
static int hf_ourp_len = -1;
static int hf_our_rc = -1;
static int hf_our_datalen = -1;
static int hf_our_data = -1;
static int hf_buh_magic = -1;
static int hf_buh_count = -1;
static int hf_buh_inline_length = -1;
static int hf_buh_reply_size = -1;
static int hf_buh_update_count = -1;
static int hf_burq_magic = -1;
static int hf_burq_count = -1;
static int hf_burp_magic = -1;
static int hf_burp_count = -1;
static int hf_sub_bufcount = -1;
static int hf_sub_magic = -1;
static int hf_sub_repsize = -1;
static int hf_sub_flags = -1;
static int hf_sub_opc = -1;
static int hf_sub_result = -1;
static int hf_sub_buflen = -1;
static int hf_sub_name = -1;
static expert_field ei_overrun = EI_INIT;
static expert_field ei_magic = EI_INIT;

static lnetcap_flagset_t fs_ou_flags = LNETCAP_FLAGSET(
	"lnetcap.out.update.flags", "Flags (UPDATE_FL_*)", 32, lnetcap_update_flag_defs,
	lnetcap_update_flag_count);

/* Whether need bytes at pos lie within end (what the message declares for
 * this list) and within the captured bytes; if not, says which, on tree. */
static gboolean fits(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint64 pos, guint64 need,
		     guint64 end, const char *what)
{
	if (pos + need > end) {
		proto_tree_add_expert_format(tree, pinfo, &ei_overrun, tvb, lnetcap_clamp(tvb, (guint32)MIN(pos, G_MAXUINT32)), 0,
			"%s: needs %" G_GINT64_MODIFIER "u bytes at offset %" G_GINT64_MODIFIER
			"u, but the message says its data end at offset %" G_GINT64_MODIFIER "u",
			what, need, pos, end);
		return FALSE;
	}
	if (pos + need > tvb_captured_length(tvb)) {
		proto_tree_add_expert_format(tree, pinfo, &lnetcap_ei_truncated, tvb,
			lnetcap_clamp(tvb, (guint32)MIN(pos, G_MAXUINT32)), 0,
			"%s was not captured: snap length too small", what);
		return FALSE;
	}
	return TRUE;
}

/* Bytes of [pos, pos+len) that are captured, for a data item. */
static gint captured(tvbuff_t *tvb, guint64 pos, guint64 len)
{
	guint cap = tvb_captured_length(tvb);
	return pos >= cap ? 0 : (gint)MIN(len, cap - pos);
}

/* The end of buffer i as the message declares it. */
static guint64 buf_end(const lnetcap_pkt_t *pkt, guint i)
{
	return (guint64)pkt->rpc.buf_off[i] + pkt->rpc.buf_len[i];
}

/* The inline data of an OUT or batch header: [start, start+inline_len),
 * which must lie within the buffer. */
static guint64 inline_end(packet_info *pinfo, proto_item *it, guint64 start, guint32 inline_len,
			  guint64 bufend)
{
	if (start + inline_len > bufend) {
		expert_add_info_format(pinfo, it, &ei_overrun,
			"Inline length %u is past the end of the buffer (%" G_GINT64_MODIFIER "u bytes left)",
			inline_len, bufend > start ? bufend - start : 0);
		return bufend;
	}
	return start + inline_len;
}

/* The sizes of the bulk buffers (out_update_buffer/but_update_buffer in
 * buffer i) when the updates did not fit inline. */
static void dissect_bulk_sizes(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			       lnetcap_pkt_t *pkt, guint i, guint32 count)
{
	guint32 off, len;
	guint64 end;

	if (!lnetcap_rpc_buf(pkt, i, &off, &len))
		return;
	end = buf_end(pkt, i);
	col_append_fstr(pinfo->cinfo, COL_INFO, " (%u bulk buffer(s))", count);
	for (guint32 k = 0; k < count && k < OUT_MAX_ITEMS; k++) {
		guint64 pos = off + (guint64)k * sizeof(struct lnetcap_update_buffer);
		if (!fits(tvb, pinfo, tree, pos, sizeof(struct lnetcap_update_buffer), end,
			  "update buffer size"))
			return;
		proto_tree_add_item(tree, hf_bulk_size, tvb, (gint)pos, 4, pkt->rpc.encoding);
	}
}

/* One object_update at pos; returns the offset after it, or 0 to stop. */
static guint64 dissect_update(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint64 pos,
			      guint64 end, guint enc, guint32 k, wmem_strbuf_t *types)
{
	proto_item *ui, *ti;
	proto_tree *t;
	guint32 type, nparams;
	const char *fid;
	const guint64 start = pos;

	if (!fits(tvb, pinfo, tree, pos, sizeof(struct lnetcap_object_update), end, "object_update"))
		return 0;
	ui = proto_tree_add_none_format(tree, lnetcap_hf_buffer, tvb, (gint)pos,
		(gint)sizeof(struct lnetcap_object_update), "object_update %u", k);
	t = proto_item_add_subtree(ui, ett_update);
	proto_tree_add_item_ret_uint(t, hf_ou_type, tvb, (gint)pos + OU(ou_type), 2, enc, &type);
	proto_tree_add_item_ret_uint(t, hf_ou_params_count, tvb, (gint)pos + OU(ou_params_count), 2, enc,
				     &nparams);
	proto_tree_add_item(t, hf_ou_result_size, tvb, (gint)pos + OU(ou_result_size), 4, enc);
	lnetcap_flagset_add(t, tvb, (gint)pos + OU(ou_flags), enc, &fs_ou_flags);
	proto_tree_add_item(t, hf_ou_padding1, tvb, (gint)pos + OU(ou_padding1), 4, enc);
	proto_tree_add_item(t, hf_ou_batchid, tvb, (gint)pos + OU(ou_batchid), 8, enc);
	fid = lnetcap_add_fid(t, tvb, pinfo, (guint)pos + OU(ou_fid), enc, hf_ou_fid, NULL);
	proto_item_append_text(ui, ": %s %s", val_to_str(type, lnetcap_out_type_vals, "type %u"), fid);
	if (k < OUT_INFO_TYPES)
		wmem_strbuf_append_printf(types, " %s", val_to_str(type, lnetcap_out_type_vals, "type %u"));
	else if (k == OUT_INFO_TYPES)
		wmem_strbuf_append(types, " ...");
	pos += sizeof(struct lnetcap_object_update);
	for (guint32 p = 0; p < nparams; p++) {
		proto_tree *pt;
		guint32 plen;
		if (p >= OUT_MAX_ITEMS)
			return 0;
		if (!fits(tvb, pinfo, t, pos, sizeof(struct lnetcap_object_update_param), end,
			  "object_update_param"))
			return 0;
		const guint64 data = pos + sizeof(struct lnetcap_object_update_param); /* oup_buf */
		plen = tvb_get_guint16(tvb, (gint)LNETCAP_AT(pos, lnetcap_object_update_param, oup_len), enc);
		ti = proto_tree_add_none_format(t, lnetcap_hf_buffer, tvb, (gint)pos,
			captured(tvb, pos, ROUND8(data - pos + plen)), "param %u (%u bytes)", p, plen);
		pt = proto_item_add_subtree(ti, ett_param);
		proto_tree_add_item(pt, hf_oup_len, tvb, LNETCAP_FIELD(pos, lnetcap_object_update_param, oup_len), enc);
		if (plen && captured(tvb, data, plen) > 0)
			proto_tree_add_item(pt, hf_oup_buf, tvb, (gint)data, captured(tvb, data, plen), ENC_NA);
		if (!fits(tvb, pinfo, pt, data, plen, end, "object_update_param data"))
			return 0;
		pos += ROUND8(data - pos + plen);
	}
	proto_item_set_len(ui, captured(tvb, start, pos - start));
	return pos;
}

/* The object_update_request in [pos, end). */
static void dissect_update_request(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint64 pos,
				   guint64 end, guint enc)
{
	proto_item *ti;
	proto_tree *t;
	guint32 magic, count;
	wmem_strbuf_t *types = wmem_strbuf_new(pinfo->pool, "");

	if (!fits(tvb, pinfo, tree, pos, sizeof(struct lnetcap_object_update_request), end,
		  "object_update_request"))
		return;
	ti = proto_tree_add_none_format(tree, lnetcap_hf_buffer, tvb, (gint)pos,
		captured(tvb, pos, end - pos), "object_update_request");
	t = proto_item_add_subtree(ti, ett_req);
	ti = proto_tree_add_item_ret_uint(t, hf_ourq_magic, tvb,
		LNETCAP_FIELD(pos, lnetcap_object_update_request, ourq_magic), enc, &magic);
	if (magic != LNETCAP_UPDATE_REQUEST_MAGIC_V2 && magic != LNETCAP_UPDATE_REQUEST_MAGIC_V1) {
		expert_add_info(pinfo, ti, &ei_magic);
		return;
	}
	proto_tree_add_item_ret_uint(t, hf_ourq_count, tvb,
				     LNETCAP_FIELD(pos, lnetcap_object_update_request, ourq_count), enc, &count);
	proto_tree_add_item(t, hf_ourq_padding, tvb, LNETCAP_FIELD(pos, lnetcap_object_update_request, ourq_padding),
			    enc);
	pos += sizeof(struct lnetcap_object_update_request);
	for (guint32 k = 0; k < count && k < OUT_MAX_ITEMS && pos; k++)
		pos = dissect_update(tvb, pinfo, t, pos, end, enc, k, types);
	col_append_fstr(pinfo->cinfo, COL_INFO, " %u update(s):%s", count, wmem_strbuf_get_str(types));
}

static void dissect_out_request(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, magic, count, inl;
	proto_tree *t;
	proto_item *ti;

	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, 1, sizeof(struct lnetcap_out_update_header),
				  ett_hdr, "out_update_header", &t, &off))
		return;
	ti = proto_tree_add_item_ret_uint(t, hf_ouh_magic, tvb,
		LNETCAP_FIELD(off, lnetcap_out_update_header, ouh_magic), enc, &magic);
	if (magic != LNETCAP_OUT_UPDATE_HEADER_MAGIC) {
		expert_add_info(pinfo, ti, &ei_magic);
		return;
	}
	proto_tree_add_item_ret_uint(t, hf_ouh_count, tvb, LNETCAP_FIELD(off, lnetcap_out_update_header, ouh_count),
				     enc, &count);
	ti = proto_tree_add_item_ret_uint(t, hf_ouh_inline_length, tvb,
					  LNETCAP_FIELD(off, lnetcap_out_update_header, ouh_inline_length), enc, &inl);
	proto_tree_add_item(t, hf_ouh_reply_size, tvb, LNETCAP_FIELD(off, lnetcap_out_update_header, ouh_reply_size),
			    enc);
	if (inl > 0) {
		guint64 start = off + (guint64)sizeof(struct lnetcap_out_update_header);
		dissect_update_request(tvb, pinfo, t, start,
				       inline_end(pinfo, ti, start, inl, buf_end(pkt, 1)), enc);
	} else {
		dissect_bulk_sizes(tvb, pinfo, t, pkt, 2, count);
	}
}

static void dissect_out_reply(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, magic, count, n;
	guint64 end = buf_end(pkt, 1), rpos;
	guint16 *lens;
	proto_tree *t;
	proto_item *ti;

	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, 1, sizeof(struct lnetcap_object_update_reply),
				  ett_reply, "object_update_reply", &t, &off))
		return;
	ti = proto_tree_add_item_ret_uint(t, hf_ourp_magic, tvb,
		LNETCAP_FIELD(off, lnetcap_object_update_reply, ourp_magic), enc, &magic);
	if (magic != LNETCAP_UPDATE_REPLY_MAGIC_V2 && magic != LNETCAP_UPDATE_REPLY_MAGIC_V1) {
		expert_add_info(pinfo, ti, &ei_magic);
		return;
	}
	proto_tree_add_item_ret_uint(t, hf_ourp_count, tvb, LNETCAP_FIELD(off, lnetcap_object_update_reply, ourp_count),
				     enc, &count);
	n = MIN(count, OUT_MAX_ITEMS);
	lens = wmem_alloc0_array(pinfo->pool, guint16, n ? n : 1);
	for (guint32 k = 0; k < n; k++) {
		guint64 lp = off + sizeof(struct lnetcap_object_update_reply) + 2 * (guint64)k; /* ourp_lens[k] */
		if (!fits(tvb, pinfo, t, lp, 2, end, "ourp_lens"))
			return;
		lens[k] = tvb_get_guint16(tvb, (gint)lp, enc);
		proto_tree_add_item(t, hf_ourp_len, tvb, (gint)lp, 2, enc);
	}
	/* object_update_result_get(): results after the padded lens array. */
	rpos = off + ROUND8(sizeof(struct lnetcap_object_update_reply) + 2 * (guint64)count);
	for (guint32 k = 0; k < n; k++) {
		proto_tree *rt;
		gint32 rc;
		guint32 dlen, rhdr;
		if (lens[k] == 0) /* Lustre stops at the first empty result */
			break;
		if (!fits(tvb, pinfo, t, rpos, sizeof(struct lnetcap_object_update_result), end,
			  "object_update_result"))
			break;
		ti = proto_tree_add_none_format(t, lnetcap_hf_buffer, tvb, (gint)rpos,
			captured(tvb, rpos, lens[k]), "object_update_result %u", k);
		rt = proto_item_add_subtree(ti, ett_result);
		proto_tree_add_item_ret_int(rt, hf_our_rc, tvb, LNETCAP_FIELD(rpos, lnetcap_object_update_result, our_rc),
					    enc, &rc);
		proto_tree_add_item_ret_uint(rt, hf_our_datalen, tvb,
					     LNETCAP_FIELD(rpos, lnetcap_object_update_result, our_datalen), enc, &dlen);
		proto_item_append_text(ti, ": %s", val_to_str(rc, lnetcap_status_vals, "%d"));
		/* our_datalen may exceed neither the result's own length nor
		 * the buffer. */
		rhdr = sizeof(struct lnetcap_object_update_result); /* our_data follows */
		dlen = MIN(dlen, (guint32)lens[k] > rhdr ? (guint32)lens[k] - rhdr : 0);
		dlen = (guint32)MIN((guint64)dlen, end - (rpos + rhdr));
		if (dlen && captured(tvb, rpos + rhdr, dlen) > 0)
			proto_tree_add_item(rt, hf_our_data, tvb, (gint)(rpos + rhdr),
					    captured(tvb, rpos + rhdr, dlen), ENC_NA);
		rpos += ROUND8(lens[k]);
	}
	col_append_fstr(pinfo->cinfo, COL_INFO, " %u result(s)", count);
}

/* One lustre_msg_v2 of a batch at pos (a sub-request, or a sub-reply when
 * reply); returns its packed size, or 0 to stop. */
static guint64 dissect_submsg(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint64 pos,
			      guint64 end, guint enc, gboolean reply, guint32 k)
{
	guint32 bufcount, magic, opc = 0;
	guint64 hdr, size, name_off = 0;
	guint32 name_len = 0;
	proto_item *ti, *mi;
	proto_tree *t;

	if (!fits(tvb, pinfo, tree, pos, sizeof(struct lnetcap_lustre_msg_v2), end, "batched lustre_msg"))
		return 0;
	ti = proto_tree_add_none_format(tree, lnetcap_hf_buffer, tvb, (gint)pos,
		(gint)sizeof(struct lnetcap_lustre_msg_v2), "%s %u", reply ? "sub-reply" : "sub-request", k);
	t = proto_item_add_subtree(ti, ett_submsg);
	proto_tree_add_item_ret_uint(t, hf_sub_bufcount, tvb, (gint)pos + LM(lm_bufcount), 4, enc, &bufcount);
	mi = proto_tree_add_item_ret_uint(t, hf_sub_magic, tvb, (gint)pos + LM(lm_magic), 4, enc, &magic);
	proto_tree_add_item(t, hf_sub_repsize, tvb, (gint)pos + LM(lm_repsize), 4, enc);
	proto_tree_add_item(t, hf_sub_flags, tvb, (gint)pos + LM(lm_flags), 4, enc);
	if (reply) {
		gint32 rc = (gint32)tvb_get_guint32(tvb, (gint)pos + LM(lm_opc), enc);
		proto_tree_add_item(t, hf_sub_result, tvb, (gint)pos + LM(lm_opc), 4, enc);
		proto_item_append_text(ti, ": %s", val_to_str(rc, lnetcap_status_vals, "%d"));
	} else {
		proto_tree_add_item_ret_uint(t, hf_sub_opc, tvb, (gint)pos + LM(lm_opc), 4, enc, &opc);
		proto_item_append_text(ti, ": %s", val_to_str(opc, lnetcap_but_cmd_vals, "opcode %u"));
	}
	/* Sub-messages are packed in the batch's byte order. */
	if (magic != LNETCAP_LUSTRE_MSG_MAGIC_V2) {
		expert_add_info(pinfo, mi, &ei_magic);
		return 0;
	}
	if (bufcount > OUT_MAX_SUBBUFS) {
		expert_add_info_format(pinfo, ti, &ei_overrun, "lm_bufcount %u: more than %u buffers",
				       bufcount, OUT_MAX_SUBBUFS);
		return 0;
	}
	hdr = LNETCAP_LUSTRE_MSG_HDR_SIZE(bufcount);
	if (!fits(tvb, pinfo, t, pos, hdr, end, "batched lustre_msg buffer lengths"))
		return 0;
	size = hdr;
	for (guint32 b = 0; b < bufcount; b++) {
		/* lm_buflens[b], after the fixed lustre_msg_v2 header. */
		guint64 blo = pos + sizeof(struct lnetcap_lustre_msg_v2) + 4 * (guint64)b;
		guint32 bl = tvb_get_guint32(tvb, (gint)blo, enc);
		proto_tree_add_item(t, hf_sub_buflen, tvb, (gint)blo, 4, enc);
		if (!reply && opc == 1 /* BUT_GETATTR */ && b == LNETCAP_BUT_GETATTR_NAME_BUF) {
			name_off = pos + size;
			name_len = bl;
		}
		size += ROUND8(bl);
	}
	proto_item_set_len(ti, captured(tvb, pos, size));
	/* The file name a BUT_GETATTR looks up (RMF_NAME). */
	if (name_len && pos + size <= end && captured(tvb, name_off, name_len) > 0) {
		const guint8 *name;
		proto_tree_add_item_ret_string(t, hf_sub_name, tvb, (gint)name_off,
			captured(tvb, name_off, name_len), ENC_UTF_8, pinfo->pool, &name);
		proto_item_append_text(ti, " \"%s\"", name);
	}
	if (!fits(tvb, pinfo, t, pos, size, end, "batched lustre_msg buffers"))
		return 0;
	return size;
}

static void dissect_batch_request(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, magic, count, inl, nsub, rmagic;
	guint64 pos, end;
	proto_tree *t;
	proto_item *ti;

	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, 1, sizeof(struct lnetcap_but_update_header),
				  ett_hdr, "but_update_header", &t, &off))
		return;
	ti = proto_tree_add_item_ret_uint(t, hf_buh_magic, tvb, (gint)off + BH(buh_magic), 4, enc, &magic);
	if (magic != LNETCAP_BUT_HEADER_MAGIC) {
		expert_add_info(pinfo, ti, &ei_magic);
		return;
	}
	proto_tree_add_item_ret_uint(t, hf_buh_count, tvb, (gint)off + BH(buh_count), 4, enc, &count);
	ti = proto_tree_add_item_ret_uint(t, hf_buh_inline_length, tvb, (gint)off + BH(buh_inline_length),
					  4, enc, &inl);
	proto_tree_add_item(t, hf_buh_reply_size, tvb, (gint)off + BH(buh_reply_size), 4, enc);
	proto_tree_add_item_ret_uint(t, hf_buh_update_count, tvb, (gint)off + BH(buh_update_count), 4, enc,
				     &nsub);
	col_append_fstr(pinfo->cinfo, COL_INFO, " %u sub-request(s)", nsub);
	if (inl == 0) {
		dissect_bulk_sizes(tvb, pinfo, t, pkt, 2, count);
		return;
	}
	pos = off + (guint64)sizeof(struct lnetcap_but_update_header);
	end = inline_end(pinfo, ti, pos, inl, buf_end(pkt, 1));
	if (!fits(tvb, pinfo, t, pos, sizeof(struct lnetcap_batch_update_request), end,
		  "batch_update_request"))
		return;
	ti = proto_tree_add_item_ret_uint(t, hf_burq_magic, tvb,
		LNETCAP_FIELD(pos, lnetcap_batch_update_request, burq_magic), enc, &rmagic);
	if (rmagic != LNETCAP_BUT_REQUEST_MAGIC) {
		expert_add_info(pinfo, ti, &ei_magic);
		return;
	}
	proto_tree_add_item_ret_uint(t, hf_burq_count, tvb,
				     LNETCAP_FIELD(pos, lnetcap_batch_update_request, burq_count), enc, &count);
	pos += sizeof(struct lnetcap_batch_update_request);
	for (guint32 k = 0; k < count && k < OUT_MAX_ITEMS; k++) {
		guint64 size = dissect_submsg(tvb, pinfo, t, pos, end, enc, FALSE, k);
		if (!size)
			break;
		pos += size;
	}
}

static void dissect_batch_reply(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, magic, count;
	guint64 pos, end = buf_end(pkt, 1);
	proto_tree *t;
	proto_item *ti;

	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, 1, sizeof(struct lnetcap_batch_update_reply),
				  ett_reply, "batch_update_reply", &t, &off))
		return;
	ti = proto_tree_add_item_ret_uint(t, hf_burp_magic, tvb,
		LNETCAP_FIELD(off, lnetcap_batch_update_reply, burp_magic), enc, &magic);
	if (magic != LNETCAP_BUT_REPLY_MAGIC) {
		expert_add_info(pinfo, ti, &ei_magic);
		return;
	}
	proto_tree_add_item_ret_uint(t, hf_burp_count, tvb,
				     LNETCAP_FIELD(off, lnetcap_batch_update_reply, burp_count), enc, &count);
	col_append_fstr(pinfo->cinfo, COL_INFO, " %u sub-reply(ies)", count);
	pos = off + (guint64)sizeof(struct lnetcap_batch_update_reply);
	for (guint32 k = 0; k < count && k < OUT_MAX_ITEMS; k++) {
		guint64 size = dissect_submsg(tvb, pinfo, t, pos, end, enc, TRUE, k);
		if (!size)
			break;
		pos += size;
	}
}

static int dissect_out(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	lnetcap_pkt_t *pkt = (lnetcap_pkt_t *)data;
	proto_tree *t = lnetcap_body_tree(tvb, pinfo, tree, proto_out, ett_out, pkt);
	gboolean request = pkt->rpc.pb_type == LNETCAP_PTL_RPC_MSG_REQUEST;

	if (pkt->rpc.opc == LNETCAP_OPC_OUT_UPDATE) {
		if (request)
			dissect_out_request(tvb, pinfo, t, pkt);
		else
			dissect_out_reply(tvb, pinfo, t, pkt);
	} else if (request) {
		dissect_batch_request(tvb, pinfo, t, pkt);
	} else {
		dissect_batch_reply(tvb, pinfo, t, pkt);
	}
	return (int)tvb_captured_length(tvb);
}

void lnetcap_handoff_out(void)
{
	static const guint32 opcodes[] = { LNETCAP_OPC_OUT_UPDATE, LNETCAP_OPC_MDS_BATCH };
	lnetcap_body_register(proto_out, dissect_out, opcodes, array_length(opcodes));
}

void lnetcap_register_out(void)
{
	static hf_register_info hf[] = {
		{ &hf_ouh_magic, { "Header magic", "lnetcap.out.header.magic", FT_UINT32, BASE_HEX, NULL, 0, "ouh_magic (OUT_UPDATE_HEADER_MAGIC 0xbddf0001)", HFILL } },
		{ &hf_ouh_count, { "Buffer count", "lnetcap.out.header.count", FT_UINT32, BASE_DEC, NULL, 0, "ouh_count: 1 inline, else the bulk buffers", HFILL } },
		{ &hf_ouh_inline_length, { "Inline length", "lnetcap.out.header.inline_length", FT_UINT32, BASE_DEC, NULL, 0, "ouh_inline_length", HFILL } },
		{ &hf_ouh_reply_size, { "Reply size", "lnetcap.out.header.reply_size", FT_UINT32, BASE_DEC, NULL, 0, "ouh_reply_size", HFILL } },
		{ &hf_bulk_size, { "Bulk buffer size", "lnetcap.out.bulk_size", FT_UINT32, BASE_DEC, NULL, 0, "oub_size / bub_size of updates sent in bulk", HFILL } },
		{ &hf_ourq_magic, { "Request magic", "lnetcap.out.request.magic", FT_UINT32, BASE_HEX, NULL, 0, "ourq_magic (UPDATE_REQUEST_MAGIC_V1/V2)", HFILL } },
		{ &hf_ourq_count, { "Update count", "lnetcap.out.request.count", FT_UINT16, BASE_DEC, NULL, 0, "ourq_count", HFILL } },
		{ &hf_ourq_padding, { "Padding", "lnetcap.out.request.padding", FT_UINT16, BASE_HEX, NULL, 0, "ourq_padding", HFILL } },
		{ &hf_ou_type, { "Type", "lnetcap.out.update.type", FT_UINT16, BASE_DEC, VALS(lnetcap_out_type_vals), 0, "ou_type (enum update_type)", HFILL } },
		{ &hf_ou_params_count, { "Parameter count", "lnetcap.out.update.params_count", FT_UINT16, BASE_DEC, NULL, 0, "ou_params_count", HFILL } },
		{ &hf_ou_result_size, { "Result size", "lnetcap.out.update.result_size", FT_UINT32, BASE_DEC, NULL, 0, "ou_result_size", HFILL } },
		{ &hf_ou_padding1, { "Padding", "lnetcap.out.update.padding1", FT_UINT32, BASE_HEX, NULL, 0, "ou_padding1", HFILL } },
		{ &hf_ou_batchid, { "Batch id", "lnetcap.out.update.batchid", FT_UINT64, BASE_HEX, NULL, 0, "ou_batchid: the operation's transno on the master", HFILL } },
		{ &hf_ou_fid, { "FID", "lnetcap.out.update.fid", FT_STRING, BASE_NONE, NULL, 0, "ou_fid: the object updated", HFILL } },
		{ &hf_oup_len, { "Parameter length", "lnetcap.out.param.len", FT_UINT16, BASE_DEC, NULL, 0, "oup_len", HFILL } },
		{ &hf_oup_buf, { "Parameter", "lnetcap.out.param.buf", FT_BYTES, BASE_SHOW_ASCII_PRINTABLE, NULL, 0, "oup_buf (as far as captured)", HFILL } },
		{ &hf_ourp_magic, { "Reply magic", "lnetcap.out.reply.magic", FT_UINT32, BASE_HEX, NULL, 0, "ourp_magic (UPDATE_REPLY_MAGIC_V1/V2)", HFILL } },
		{ &hf_ourp_count, { "Result count", "lnetcap.out.reply.count", FT_UINT16, BASE_DEC, NULL, 0, "ourp_count", HFILL } },
		{ &hf_ourp_len, { "Result length", "lnetcap.out.reply.len", FT_UINT16, BASE_DEC, NULL, 0, "ourp_lens[]", HFILL } },
		{ &hf_our_rc, { "Return code", "lnetcap.out.result.rc", FT_INT32, BASE_DEC, VALS(lnetcap_status_vals), 0, "our_rc", HFILL } },
		{ &hf_our_datalen, { "Data length", "lnetcap.out.result.datalen", FT_UINT16, BASE_DEC, NULL, 0, "our_datalen", HFILL } },
		{ &hf_our_data, { "Data", "lnetcap.out.result.data", FT_BYTES, BASE_NONE, NULL, 0, "our_data (as far as captured)", HFILL } },
		{ &hf_buh_magic, { "Batch header magic", "lnetcap.out.batch.header.magic", FT_UINT32, BASE_HEX, NULL, 0, "buh_magic (BUT_HEADER_MAGIC 0xbadf0001)", HFILL } },
		{ &hf_buh_count, { "Buffer count", "lnetcap.out.batch.header.count", FT_UINT32, BASE_DEC, NULL, 0, "buh_count: 1 inline, else the bulk buffers", HFILL } },
		{ &hf_buh_inline_length, { "Inline length", "lnetcap.out.batch.header.inline_length", FT_UINT32, BASE_DEC, NULL, 0, "buh_inline_length", HFILL } },
		{ &hf_buh_reply_size, { "Reply size", "lnetcap.out.batch.header.reply_size", FT_UINT32, BASE_DEC, NULL, 0, "buh_reply_size", HFILL } },
		{ &hf_buh_update_count, { "Sub-request count", "lnetcap.out.batch.header.update_count", FT_UINT32, BASE_DEC, NULL, 0, "buh_update_count", HFILL } },
		{ &hf_burq_magic, { "Batch request magic", "lnetcap.out.batch.request.magic", FT_UINT32, BASE_HEX, NULL, 0, "burq_magic (BUT_REQUEST_MAGIC 0xbade0001)", HFILL } },
		{ &hf_burq_count, { "Sub-request count", "lnetcap.out.batch.request.count", FT_UINT16, BASE_DEC, NULL, 0, "burq_count", HFILL } },
		{ &hf_burp_magic, { "Batch reply magic", "lnetcap.out.batch.reply.magic", FT_UINT32, BASE_HEX, NULL, 0, "burp_magic (BUT_REPLY_MAGIC 0x00ad0001)", HFILL } },
		{ &hf_burp_count, { "Sub-reply count", "lnetcap.out.batch.reply.count", FT_UINT16, BASE_DEC, NULL, 0, "burp_count: sub-requests the target handled", HFILL } },
		{ &hf_sub_bufcount, { "Buffer count", "lnetcap.out.batch.msg.bufcount", FT_UINT32, BASE_DEC, NULL, 0, "lm_bufcount of a batched lustre_msg", HFILL } },
		{ &hf_sub_magic, { "Magic", "lnetcap.out.batch.msg.magic", FT_UINT32, BASE_HEX, NULL, 0, "lm_magic of a batched lustre_msg", HFILL } },
		{ &hf_sub_repsize, { "Reply size", "lnetcap.out.batch.msg.repsize", FT_UINT32, BASE_DEC, NULL, 0, "lm_repsize of a batched lustre_msg", HFILL } },
		{ &hf_sub_flags, { "Flags", "lnetcap.out.batch.msg.flags", FT_UINT32, BASE_HEX, NULL, 0, "lm_flags of a batched lustre_msg", HFILL } },
		{ &hf_sub_opc, { "Sub-request opcode", "lnetcap.out.batch.msg.opc", FT_UINT32, BASE_DEC, VALS(lnetcap_but_cmd_vals), 0, "lm_opc (enum batch_update_cmd)", HFILL } },
		{ &hf_sub_result, { "Sub-request result", "lnetcap.out.batch.msg.result", FT_INT32, BASE_DEC, VALS(lnetcap_status_vals), 0, "lm_result of a sub-reply", HFILL } },
		{ &hf_sub_buflen, { "Buffer length", "lnetcap.out.batch.msg.buflen", FT_UINT32, BASE_DEC, NULL, 0, "lm_buflens[] of a batched lustre_msg", HFILL } },
		{ &hf_sub_name, { "Name", "lnetcap.out.batch.name", FT_STRINGZPAD, BASE_NONE, NULL, 0, "RMF_NAME of a BUT_GETATTR sub-request", HFILL } },
	};
	static gint *ett[] = { &ett_out, &ett_hdr, &ett_req, &ett_update, &ett_param, &ett_reply,
			       &ett_result, &ett_submsg };
	static ei_register_info ei[] = {
		{ &ei_overrun, { "lnetcap.out.overrun", PI_MALFORMED, PI_WARN,
		  "A count or length points past the bytes the message declares", EXPFILL } },
		{ &ei_magic, { "lnetcap.out.magic.bad", PI_MALFORMED, PI_WARN,
		  "Unknown magic: the rest is not decoded", EXPFILL } },
	};
	expert_module_t *em;

	proto_out = proto_register_protocol("Lustre OUT and batched updates (lnetcap)", "OUT", "lnetcap.out");
	proto_register_field_array(proto_out, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	lnetcap_flagset_register(proto_out, &fs_ou_flags);
	em = expert_register_protocol(proto_out);
	expert_register_field_array(em, ei, array_length(ei));
}
