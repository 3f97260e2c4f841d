/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap-llog.c - the LLOG protocol (lnetcap.llog), by which
 * clients and servers read Lustre logs (the MGS configuration logs above
 * all): the llogd_body of every LLOG RPC, the log name of
 * LLOG_ORIGIN_HANDLE_CREATE, the llog_log_hdr of READ_HEADER replies and
 * the records of NEXT_BLOCK/PREV_BLOCK replies, with the lustre_cfg
 * commands and config markers of configuration logs (layout.c RQF_LLOG_*
 * and lustre_idl.h/lustre_cfg.h of Lustre 2.16).
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "packet-lnetcap.h"
#include "lnetcap-formats.h"
#include "lnetcap-flags.h"
#include "lnetcap-vals.h"
#include "lnetcap/bodies.h"
#include "lnetcap/ptlrpc.h"

#define LB(f) (gint)off + LNETCAP_OFF(struct lnetcap_llogd_body, f), \
	LNETCAP_LEN(struct lnetcap_llogd_body, f)
#define LH(f) (gint)off + LNETCAP_OFF(struct lnetcap_llog_log_hdr, f), \
	LNETCAP_LEN(struct lnetcap_llog_log_hdr, f)
#define CFG(f) (gint)off + LNETCAP_OFF(struct lnetcap_lustre_cfg, f), \
	LNETCAP_LEN(struct lnetcap_lustre_cfg, f)
#define CM(f) (gint)off + LNETCAP_OFF(struct lnetcap_cfg_marker, f), \
	LNETCAP_LEN(struct lnetcap_cfg_marker, f)
#define ROUND8(n) (((n) + 7u) & ~7u)

static int proto_llog = -1;
static gint ett_llog = -1;
static gint ett_body = -1;
static gint ett_hdr = -1;
static gint ett_rec = -1;
static gint ett_cfg = -1;
static gint ett_marker = -1;

static int hf_logid = -1;
static int hf_ogen = -1;
static int hf_ctxt_idx = -1;
static int hf_index = -1;
static int hf_saved_index = -1;
static int hf_len = -1;
static int hf_cur_offset = -1;
static int hf_name = -1;
static int hf_rec_len = -1;
static int hf_rec_index = -1;
static int hf_rec_type = -1;
static int hf_rec_id = -1;
static int hf_tail_len = -1;
static int hf_tail_index = -1;
static int hf_hdr_timestamp = -1;
static int hf_hdr_count = -1;
static int hf_hdr_bitmap_offset = -1;
static int hf_hdr_size = -1;
static int hf_hdr_cat_idx = -1;
static int hf_hdr_tgtuuid = -1;
static int hf_rec = -1;
static int hf_cfg_version = -1;
static int hf_cfg_command = -1;
static int hf_cfg_num = -1;
static int hf_cfg_flags = -1;
static int hf_cfg_nid = -1;
static int hf_cfg_bufcount = -1;
static int hf_cfg_buflen = -1;
static int hf_cfg_buf = -1;
static int hf_cm_step = -1;
static int hf_cm_vers = -1;
static int hf_cm_createtime = -1;
static int hf_cm_canceltime = -1;
static int hf_cm_tgtname = -1;
static int hf_cm_comment = -1;

static expert_field ei_rec_len = EI_INIT;

static lnetcap_flagset_t fs_llh_flags = LNETCAP_FLAGSET(
	"lnetcap.llog.llh_flags", "Log flags (LLOG_F_*)", 32, lnetcap_llog_flag_defs,
	lnetcap_llog_flag_count);
static lnetcap_flagset_t fs_hdr_flags = LNETCAP_FLAGSET(
	"lnetcap.llog.hdr.flags", "Header flags (LLOG_F_*)", 32, lnetcap_llog_flag_defs,
	lnetcap_llog_flag_count);
static lnetcap_flagset_t fs_cm_flags = LNETCAP_FLAGSET(
	"lnetcap.llog.marker.flags", "Marker flags (CM_*)", 32, lnetcap_cm_flag_defs,
	lnetcap_cm_flag_count);

static void dissect_llogd_body(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			       lnetcap_pkt_t *pkt)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, index;
	proto_tree *t;

	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, 1, sizeof(struct lnetcap_llogd_body),
				  ett_body, "llogd_body", &t, &off))
		return;
	lnetcap_add_ost_id(t, tvb, pinfo, hf_logid, off, enc);
	proto_tree_add_item(t, hf_ogen, tvb, LB(lgd_logid_ogen), enc);
	proto_tree_add_item(t, hf_ctxt_idx, tvb, LB(lgd_ctxt_idx), enc);
	lnetcap_flagset_add(t, tvb, (gint)off + LNETCAP_OFF(struct lnetcap_llogd_body, lgd_llh_flags),
			    enc, &fs_llh_flags);
	proto_tree_add_item_ret_uint(t, hf_index, tvb, LB(lgd_index), enc, &index);
	proto_tree_add_item(t, hf_saved_index, tvb, LB(lgd_saved_index), enc);
	proto_tree_add_item(t, hf_len, tvb, LB(lgd_len), enc);
	proto_tree_add_item(t, hf_cur_offset, tvb, LB(lgd_cur_offset), enc);
}

static void add_rec_hdr(proto_tree *t, tvbuff_t *tvb, guint off, guint enc)
{
	proto_tree_add_item(t, hf_rec_len, tvb, LNETCAP_FIELD(off, lnetcap_llog_rec_hdr, lrh_len), enc);
	proto_tree_add_item(t, hf_rec_index, tvb, LNETCAP_FIELD(off, lnetcap_llog_rec_hdr, lrh_index), enc);
	proto_tree_add_item(t, hf_rec_type, tvb, LNETCAP_FIELD(off, lnetcap_llog_rec_hdr, lrh_type), enc);
	proto_tree_add_item(t, hf_rec_id, tvb, LNETCAP_FIELD(off, lnetcap_llog_rec_hdr, lrh_id), enc);
}

static void dissect_log_hdr(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			    lnetcap_pkt_t *pkt)
{
	guint enc = pkt->rpc.encoding;
	guint32 off;
	proto_tree *t;
	nstime_t ts;

	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, 1, sizeof(struct lnetcap_llog_log_hdr),
				  ett_hdr, "llog_log_hdr", &t, &off))
		return;
	add_rec_hdr(t, tvb, off, enc);
	ts.secs = (time_t)(gint64)tvb_get_guint64(tvb, LNETCAP_OFF(struct lnetcap_llog_log_hdr,
								    llh_timestamp) + off, enc);
	ts.nsecs = 0;
	proto_tree_add_time(t, hf_hdr_timestamp, tvb, LH(llh_timestamp), &ts);
	proto_tree_add_item(t, hf_hdr_count, tvb, LH(llh_count), enc);
	proto_tree_add_item(t, hf_hdr_bitmap_offset, tvb, LH(llh_bitmap_offset), enc);
	proto_tree_add_item(t, hf_hdr_size, tvb, LH(llh_size), enc);
	lnetcap_flagset_add(t, tvb, (gint)off + LNETCAP_OFF(struct lnetcap_llog_log_hdr, llh_flags),
			    enc, &fs_hdr_flags);
	proto_tree_add_item(t, hf_hdr_cat_idx, tvb, LH(llh_cat_idx), enc);
	proto_tree_add_item(t, hf_hdr_tgtuuid, tvb, LH(llh_tgtuuid), ENC_ASCII | ENC_NA);
}

/* A config marker (buffer 1 of an LCFG_MARKER record). */
static void dissect_marker(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint off,
			   guint enc)
{
	proto_item *it = proto_tree_add_item(tree, hf_rec, tvb, (gint)off,
					     sizeof(struct lnetcap_cfg_marker), ENC_NA);
	proto_tree *t = proto_item_add_subtree(it, ett_marker);
	const guint8 *tgt, *comment;

	proto_item_set_text(it, "cfg_marker");
	proto_tree_add_item(t, hf_cm_step, tvb, CM(cm_step), enc);
	lnetcap_flagset_add(t, tvb, (gint)off + LNETCAP_OFF(struct lnetcap_cfg_marker, cm_flags), enc,
			    &fs_cm_flags);
	proto_tree_add_item(t, hf_cm_vers, tvb, CM(cm_vers), enc);
	lnetcap_add_secs(t, hf_cm_createtime, tvb, off + LNETCAP_OFF(struct lnetcap_cfg_marker,
								     cm_createtime), enc);
	lnetcap_add_secs(t, hf_cm_canceltime, tvb, off + LNETCAP_OFF(struct lnetcap_cfg_marker,
								     cm_canceltime), enc);
	proto_tree_add_item_ret_string(t, hf_cm_tgtname, tvb, CM(cm_tgtname), ENC_ASCII | ENC_NA,
				       pinfo->pool, &tgt);
	proto_tree_add_item_ret_string(t, hf_cm_comment, tvb, CM(cm_comment), ENC_ASCII | ENC_NA,
				       pinfo->pool, &comment);
	proto_item_append_text(it, ": %s \"%s\"", tgt, comment);
}

/* The lustre_cfg of an OBD_CFG_REC record, data_len bytes at off. */
static void dissect_lustre_cfg(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			       proto_item *rec_item, guint off, guint data_len, guint enc)
{
	guint32 command, bufcount, hdr, p;
	proto_tree *t;
	proto_item *it;

	if (data_len < sizeof(struct lnetcap_lustre_cfg))
		return;
	it = proto_tree_add_item(tree, hf_rec, tvb, (gint)off, (gint)data_len, ENC_NA);
	proto_item_set_text(it, "lustre_cfg");
	t = proto_item_add_subtree(it, ett_cfg);
	proto_tree_add_item(t, hf_cfg_version, tvb, CFG(lcfg_version), enc);
	proto_tree_add_item_ret_uint(t, hf_cfg_command, tvb, CFG(lcfg_command), enc, &command);
	proto_tree_add_item(t, hf_cfg_num, tvb, CFG(lcfg_num), enc);
	proto_tree_add_item(t, hf_cfg_flags, tvb, CFG(lcfg_flags), enc);
	{
		lnetcap_nid_t nid;
		char buf[LNETCAP_NID_STRLEN];
		guint64 nid4 = tvb_get_guint64(tvb, off + LNETCAP_OFF(struct lnetcap_lustre_cfg,
								      lcfg_nid), enc);
		lnetcap_nid_from_nid4(&nid, nid4);
		lnetcap_nid_to_str(&nid, buf, sizeof(buf));
		proto_tree_add_string(t, hf_cfg_nid, tvb, CFG(lcfg_nid), nid4 ? buf : "none");
	}
	proto_tree_add_item_ret_uint(t, hf_cfg_bufcount, tvb, CFG(lcfg_bufcount), enc, &bufcount);
	proto_item_append_text(rec_item, ": %s", val_to_str(command, lnetcap_lcfg_cmd_vals,
							    "command 0x%x"));
	/* Header and lengths, rounded up to 8, then each buffer rounded up to 8. */
	hdr = ROUND8((guint)sizeof(struct lnetcap_lustre_cfg) + 4 * MIN(bufcount, 64u));
	if (bufcount > 64 || hdr > data_len)
		return;
	p = off + hdr;
	for (guint32 k = 0; k < bufcount; k++) {
		guint32 blen = tvb_get_guint32(tvb, off + sizeof(struct lnetcap_lustre_cfg) + 4 * k, enc);
		proto_tree_add_item(t, hf_cfg_buflen, tvb,
				    (gint)(off + sizeof(struct lnetcap_lustre_cfg) + 4 * k), 4, enc);
		if (blen > data_len || p + blen > off + data_len)
			break;
		if (command == LNETCAP_LCFG_MARKER && k == 1 &&
		    blen >= sizeof(struct lnetcap_cfg_marker))
			dissect_marker(tvb, pinfo, t, p, enc);
		else if (blen > 0) {
			const guint8 *s;
			proto_tree_add_item_ret_string(t, hf_cfg_buf, tvb, (gint)p, (gint)blen,
						       ENC_ASCII | ENC_NA, pinfo->pool, &s);
			/* Buffer 0 names the device; the rest are the arguments. */
			proto_item_append_text(rec_item, " %s", s);
		}
		p += ROUND8(blen);
	}
}

/* The records of a log block (EADATA of NEXT_BLOCK/PREV_BLOCK replies). */
static void dissect_records(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			    lnetcap_pkt_t *pkt, guint i)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, len, cap = tvb_captured_length(tvb), n = 0;
	guint64 end;  /* 64 bits: off + a hostile length must not wrap */

	if (!lnetcap_rpc_buf(pkt, i, &off, &len) || len == 0)
		return;
	end = (guint64)off + len;
	while (off + sizeof(struct lnetcap_llog_rec_hdr) <= end) {
		guint32 rlen, type, index;
		proto_item *it;
		proto_tree *t;

		/* A block is up to 8 KiB and the capture keeps a prefix: the
		 * records past the snap are expected, so a plain note in the tree
		 * says where they stop, not an expert info on every block. */
		if (off + sizeof(struct lnetcap_llog_rec_hdr) > cap) {
			proto_tree_add_none_format(tree, hf_rec, tvb, lnetcap_clamp(tvb, off), 0,
				"[Records after the %u shown were not captured]", n);
			return;
		}
		rlen = tvb_get_guint32(tvb, LNETCAP_AT(off, lnetcap_llog_rec_hdr, lrh_len), enc);
		/* Zeros after the last record: the end of the block's data (and
		 * what an anonymized trace leaves of a blanked block). */
		if (rlen == 0)
			return;
		index = tvb_get_guint32(tvb, LNETCAP_AT(off, lnetcap_llog_rec_hdr, lrh_index), enc);
		type = tvb_get_guint32(tvb, LNETCAP_AT(off, lnetcap_llog_rec_hdr, lrh_type), enc);
		it = proto_tree_add_item(tree, hf_rec, tvb, (gint)off,
					 (gint)MIN(rlen, cap - off), ENC_NA);
		proto_item_set_text(it, "Record %u: %s", index,
				    val_to_str(type, lnetcap_llog_type_vals, "type 0x%08x"));
		t = proto_item_add_subtree(it, ett_rec);
		add_rec_hdr(t, tvb, off, enc);
		if (rlen < sizeof(struct lnetcap_llog_rec_hdr) + sizeof(struct lnetcap_llog_rec_tail) ||
		    rlen % 8 || (guint64)off + rlen > end) {
			expert_add_info_format(pinfo, it, &ei_rec_len,
				"Record length %u: not a multiple of 8 holding a header and a tail "
				"within the block", rlen);
			return;
		}
		if ((guint64)off + rlen > cap) {
			proto_item_append_text(it, " [cut by the snap length]");
			return;
		}
		if (type == LNETCAP_OBD_CFG_REC)
			dissect_lustre_cfg(tvb, pinfo, t, it, off + sizeof(struct lnetcap_llog_rec_hdr),
					   rlen - sizeof(struct lnetcap_llog_rec_hdr) -
					   sizeof(struct lnetcap_llog_rec_tail), enc);
		proto_tree_add_item(t, hf_tail_len, tvb, (gint)(off + rlen - 8), 4, enc);
		proto_tree_add_item(t, hf_tail_index, tvb, (gint)(off + rlen - 4), 4, enc);
		off += rlen;
		n++;
	}
}

static void dissect_llog_rpc(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			     lnetcap_pkt_t *pkt)
{
	/* Each buffer by what the opcode's format says it holds
	 * (include/lnetcap/rpc_formats.h). */
	for (guint i = 1; i < LNETCAP_RPC_FORMAT_MAX_BUFS; i++) {
		guint32 off, len;
		switch (lnetcap_rpc_kind(pkt, i)) {
		case LNETCAP_RMF_LLOGD_BODY:
			dissect_llogd_body(tvb, pinfo, tree, pkt);
			break;
		case LNETCAP_RMF_LLOG_LOG_HDR:
			dissect_log_hdr(tvb, pinfo, tree, pkt);
			break;
		case LNETCAP_RMF_NAME: /* the log a create opens */
			if (lnetcap_rpc_buf(pkt, i, &off, &len) && len > 0 &&
			    off + len <= tvb_captured_length(tvb)) {
				const guint8 *name;
				proto_tree_add_item_ret_string(tree, hf_name, tvb, (gint)off, (gint)len,
							       ENC_ASCII | ENC_NA, pinfo->pool, &name);
				col_append_fstr(pinfo->cinfo, COL_INFO, " \"%s\"", name);
			}
			break;
		case LNETCAP_RMF_EADATA: /* a block of records */
			dissect_records(tvb, pinfo, tree, pkt, i);
			break;
		default:
			break;
		}
	}
}

static int dissect_llog(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	lnetcap_pkt_t *pkt = (lnetcap_pkt_t *)data;
	dissect_llog_rpc(tvb, pinfo, lnetcap_body_tree(tvb, pinfo, tree, proto_llog, ett_llog, pkt),
			 pkt);
	return (int)tvb_captured_length(tvb);
}

void lnetcap_handoff_llog(void)
{
	static const guint32 opcodes[] = {
		LNETCAP_OPC_LLOG_ORIGIN_HANDLE_CREATE,
		LNETCAP_OPC_LLOG_ORIGIN_HANDLE_NEXT_BLOCK,
		LNETCAP_OPC_LLOG_ORIGIN_HANDLE_READ_HEADER,
		LNETCAP_OPC_LLOG_ORIGIN_HANDLE_PREV_BLOCK,
	};
	lnetcap_body_register(proto_llog, dissect_llog, opcodes, array_length(opcodes));
}

void lnetcap_register_llog(void)
{
	static hf_register_info hf[] = {
		{ &hf_logid, { "Log id", "lnetcap.llog.logid", FT_STRING, BASE_NONE, NULL, 0, "llog_logid.lgl_oi, as Lustre prints an ost_id", HFILL } },
		{ &hf_ogen, { "Log generation", "lnetcap.llog.ogen", FT_UINT32, BASE_DEC, NULL, 0, "lgl_ogen", HFILL } },
		{ &hf_ctxt_idx, { "Context index", "lnetcap.llog.ctxt_idx", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_index, { "Index", "lnetcap.llog.index", FT_UINT32, BASE_DEC, NULL, 0, "lgd_index", HFILL } },
		{ &hf_saved_index, { "Saved index", "lnetcap.llog.saved_index", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_len, { "Length", "lnetcap.llog.len", FT_UINT32, BASE_DEC, NULL, 0, "lgd_len", HFILL } },
		{ &hf_cur_offset, { "Current offset", "lnetcap.llog.cur_offset", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_name, { "Log name", "lnetcap.llog.name", FT_STRINGZPAD, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_rec_len, { "Record length", "lnetcap.llog.rec.len", FT_UINT32, BASE_DEC, NULL, 0, "lrh_len", HFILL } },
		{ &hf_rec_index, { "Record index", "lnetcap.llog.rec.index", FT_UINT32, BASE_DEC, NULL, 0, "lrh_index", HFILL } },
		{ &hf_rec_type, { "Record type", "lnetcap.llog.rec.type", FT_UINT32, BASE_HEX, VALS(lnetcap_llog_type_vals), 0, "lrh_type", HFILL } },
		{ &hf_rec_id, { "Record id", "lnetcap.llog.rec.id", FT_UINT32, BASE_DEC, NULL, 0, "lrh_id", HFILL } },
		{ &hf_tail_len, { "Tail length", "lnetcap.llog.rec.tail_len", FT_UINT32, BASE_DEC, NULL, 0, "lrt_len", HFILL } },
		{ &hf_tail_index, { "Tail index", "lnetcap.llog.rec.tail_index", FT_UINT32, BASE_DEC, NULL, 0, "lrt_index", HFILL } },
		{ &hf_hdr_timestamp, { "Created", "lnetcap.llog.hdr.timestamp", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0, "llh_timestamp", HFILL } },
		{ &hf_hdr_count, { "Records", "lnetcap.llog.hdr.count", FT_UINT32, BASE_DEC, NULL, 0, "llh_count", HFILL } },
		{ &hf_hdr_bitmap_offset, { "Bitmap offset", "lnetcap.llog.hdr.bitmap_offset", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_hdr_size, { "Record size", "lnetcap.llog.hdr.size", FT_UINT32, BASE_DEC, NULL, 0, "llh_size (0: variable)", HFILL } },
		{ &hf_hdr_cat_idx, { "Catalog index", "lnetcap.llog.hdr.cat_idx", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_hdr_tgtuuid, { "Target UUID", "lnetcap.llog.hdr.tgtuuid", FT_STRINGZPAD, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_rec, { "Record", "lnetcap.llog.rec", FT_NONE, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_cfg_version, { "Config version", "lnetcap.llog.cfg.version", FT_UINT32, BASE_HEX, NULL, 0, "lcfg_version", HFILL } },
		{ &hf_cfg_command, { "Command", "lnetcap.llog.cfg.command", FT_UINT32, BASE_HEX, VALS(lnetcap_lcfg_cmd_vals), 0, "lcfg_command (LCFG_*)", HFILL } },
		{ &hf_cfg_num, { "Number", "lnetcap.llog.cfg.num", FT_UINT32, BASE_DEC, NULL, 0, "lcfg_num", HFILL } },
		{ &hf_cfg_flags, { "Flags", "lnetcap.llog.cfg.flags", FT_UINT32, BASE_HEX, NULL, 0, "lcfg_flags", HFILL } },
		{ &hf_cfg_nid, { "NID", "lnetcap.llog.cfg.nid", FT_STRING, BASE_NONE, NULL, 0, "lcfg_nid", HFILL } },
		{ &hf_cfg_bufcount, { "Buffer count", "lnetcap.llog.cfg.bufcount", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_cfg_buflen, { "Buffer length", "lnetcap.llog.cfg.buflen", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_cfg_buf, { "Argument", "lnetcap.llog.cfg.buf", FT_STRINGZPAD, BASE_NONE, NULL, 0, "lustre_cfg buffer (0: device name)", HFILL } },
		{ &hf_cm_step, { "Step", "lnetcap.llog.marker.step", FT_UINT32, BASE_DEC, NULL, 0, "cm_step (config version)", HFILL } },
		{ &hf_cm_vers, { "Lustre version", "lnetcap.llog.marker.vers", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_cm_createtime, { "Created", "lnetcap.llog.marker.createtime", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0, NULL, HFILL } },
		{ &hf_cm_canceltime, { "Cancelled", "lnetcap.llog.marker.canceltime", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0, NULL, HFILL } },
		{ &hf_cm_tgtname, { "Target", "lnetcap.llog.marker.tgtname", FT_STRINGZPAD, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_cm_comment, { "Comment", "lnetcap.llog.marker.comment", FT_STRINGZPAD, BASE_NONE, NULL, 0, NULL, HFILL } },
	};
	static gint *ett[] = { &ett_llog, &ett_body, &ett_hdr, &ett_rec, &ett_cfg, &ett_marker };
	static ei_register_info ei[] = {
		{ &ei_rec_len, { "lnetcap.llog.rec.len.bad", PI_MALFORMED, PI_WARN,
		  "Bad log record length", EXPFILL } },
	};
	expert_module_t *em;

	proto_llog = proto_register_protocol("Lustre LLOG (lnetcap)", "LLOG", "lnetcap.llog");
	proto_register_field_array(proto_llog, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto_llog);
	expert_register_field_array(em, ei, array_length(ei));
	lnetcap_flagset_register(proto_llog, &fs_llh_flags);
	lnetcap_flagset_register(proto_llog, &fs_hdr_flags);
	lnetcap_flagset_register(proto_llog, &fs_cm_flags);
}
