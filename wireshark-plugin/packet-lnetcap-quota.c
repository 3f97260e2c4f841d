/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap-quota.c - the quota protocol (lnetcap.quota): QUOTA_DQACQ
 * (a quota slave on an MDT/OST acquiring or releasing space from the quota
 * master), MDS_QUOTACTL/OST_QUOTACTL (lfs quota, lfs setquota), and the
 * quota_body of the quota intents of LDLM_ENQUEUE, which the LDLM decoder
 * hands to lnetcap_quota_body().  Layouts: layout.c of Lustre 2.16 (the
 * 2.15 QUOTACTL reply lacks the RMF_OBD_QUOTA_ITER buffer), structures in
 * include/lnetcap/quota.h.
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "packet-lnetcap.h"
#include "lnetcap-formats.h"
#include "lnetcap-flags.h"
#include "lnetcap-vals.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/quota.h"

#define QB(f) LNETCAP_OFF(struct lnetcap_quota_body, f)
#define QC(f) LNETCAP_OFF(struct lnetcap_obd_quotactl, f)
#define QI(f) (QC(qc_dqinfo) + LNETCAP_OFF(struct lnetcap_obd_dqinfo, f))
#define QD(f) (QC(qc_dqblk) + LNETCAP_OFF(struct lnetcap_obd_dqblk, f))

static int proto_quota = -1;
static gint ett_quota = -1;
static gint ett_body = -1;
static gint ett_qctl = -1;
static gint ett_dqinfo = -1;
static gint ett_dqblk = -1;
static int hf_fid = -1;
static int hf_glb_qtype = -1;
static int hf_glb_res = -1;
static int hf_id = -1;
static int hf_id_fid = -1;
static int hf_padding = -1;
static int hf_count = -1;
static int hf_usage = -1;
static int hf_slv_ver = -1;
static int hf_lockh = -1;
static int hf_glb_lockh = -1;
static int hf_padding1 = -1;
static int hf_cmd = -1;
static int hf_type = -1;
static int hf_qc_id = -1;
static int hf_stat = -1;
static int hf_bgrace = -1;
static int hf_igrace = -1;
static int hf_dqi_flags = -1;
static int hf_dqi_valid = -1;
static int hf_bhardlimit = -1;
static int hf_bsoftlimit = -1;
static int hf_curspace = -1;
static int hf_ihardlimit = -1;
static int hf_isoftlimit = -1;
static int hf_curinodes = -1;
static int hf_btime = -1;
static int hf_itime = -1;
static int hf_dqb_valid = -1;
static int hf_dqb_padding = -1;
static int hf_poolname = -1;
static int hf_iter = -1;

static lnetcap_flagset_t fs_flags = LNETCAP_FLAGSET(
	"lnetcap.quota.flags", "Flags (QUOTA_DQACQ_FL_*)", 32, lnetcap_dqacq_flag_defs,
	lnetcap_dqacq_flag_count);

/* FID_SEQ_NORMAL: the first sequence of ordinary files; a qb_id whose
 * first 8 bytes are at least this and whose next 8 are set is a FID. */
#define FID_SEQ_NORMAL 0x200000400ULL

void lnetcap_quota_body(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt,
			guint i)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, flags;
	guint64 seq, id, count;
	proto_tree *t;
	proto_item *it;
	const char *qtype = NULL;

	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, i, sizeof(struct lnetcap_quota_body), ett_body,
				  "quota_body", &t, &off))
		return;
	seq = tvb_get_guint64(tvb, off + QB(qb_fid), enc);
	lnetcap_add_fid(t, tvb, pinfo, off + QB(qb_fid), enc, hf_fid, NULL);
	if (seq == LNETCAP_FID_SEQ_QUOTA_GLB) {
		/* lquota_generate_fid(): f_oid = quota type << 24 | resource type << 16 */
		guint32 oid = tvb_get_guint32(tvb, off + QB(qb_fid) + 8, enc);
		qtype = val_to_str((oid >> 24) & 0xff, lnetcap_quota_type_vals, "type %u");
		it = proto_tree_add_uint(t, hf_glb_qtype, tvb, (gint)off + QB(qb_fid) + 8, 4,
					 (oid >> 24) & 0xff);
		proto_item_set_generated(it);
		it = proto_tree_add_uint(t, hf_glb_res, tvb, (gint)off + QB(qb_fid) + 8, 4,
					 (oid >> 16) & 0xff);
		proto_item_set_generated(it);
	}
	proto_tree_add_item_ret_uint64(t, hf_id, tvb, (gint)off + QB(qb_id), 8, enc, &id);
	if (id >= FID_SEQ_NORMAL && tvb_get_guint64(tvb, off + QB(qb_id) + 8, enc) != 0)
		lnetcap_add_fid(t, tvb, pinfo, off + QB(qb_id), enc, hf_id_fid, NULL);
	flags = tvb_get_guint32(tvb, off + QB(qb_flags), enc);
	lnetcap_flagset_add(t, tvb, (gint)off + QB(qb_flags), enc, &fs_flags);
	proto_tree_add_item(t, hf_padding, tvb, (gint)off + QB(qb_padding), 4, enc);
	proto_tree_add_item_ret_uint64(t, hf_count, tvb, (gint)off + QB(qb_count), 8, enc, &count);
	proto_tree_add_item(t, hf_usage, tvb, (gint)off + QB(qb_usage), 8, enc);
	proto_tree_add_item(t, hf_slv_ver, tvb, (gint)off + QB(qb_slv_ver), 8, enc);
	proto_tree_add_item(t, hf_lockh, tvb, (gint)off + QB(qb_lockh), 8, enc);
	proto_tree_add_item(t, hf_glb_lockh, tvb, (gint)off + QB(qb_glb_lockh), 8, enc);
	proto_tree_add_item(t, hf_padding1, tvb, (gint)off + QB(qb_padding1), 32, ENC_NA);
	if (qtype)
		col_append_fstr(pinfo->cinfo, COL_INFO, " %s", qtype);
	col_append_fstr(pinfo->cinfo, COL_INFO, " id %" G_GINT64_MODIFIER "u", id);
	for (guint k = 0; k < lnetcap_dqacq_flag_count; k++)
		if (flags & lnetcap_dqacq_flag_defs[k].bit)
			col_append_fstr(pinfo->cinfo, COL_INFO, " %s", lnetcap_dqacq_flag_defs[k].name);
	if (count)
		col_append_fstr(pinfo->cinfo, COL_INFO, " count %" G_GINT64_MODIFIER "u", count);
}

/* obd_quotactl in buffer i (request and reply). */
static void dissect_quotactl(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt,
			     guint i)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, cmd, type, id, len;
	proto_tree *t, *s;
	proto_item *ti;

	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, i, sizeof(struct lnetcap_obd_quotactl), ett_qctl,
				  "obd_quotactl", &t, &off))
		return;
	proto_tree_add_item_ret_uint(t, hf_cmd, tvb, (gint)off + QC(qc_cmd), 4, enc, &cmd);
	proto_tree_add_item_ret_uint(t, hf_type, tvb, (gint)off + QC(qc_type), 4, enc, &type);
	proto_tree_add_item_ret_uint(t, hf_qc_id, tvb, (gint)off + QC(qc_id), 4, enc, &id);
	proto_tree_add_item(t, hf_stat, tvb, (gint)off + QC(qc_stat), 4, enc);
	ti = proto_tree_add_none_format(t, lnetcap_hf_buffer, tvb, (gint)off + QC(qc_dqinfo),
		(gint)sizeof(struct lnetcap_obd_dqinfo), "obd_dqinfo");
	s = proto_item_add_subtree(ti, ett_dqinfo);
	proto_tree_add_item(s, hf_bgrace, tvb, (gint)off + QI(dqi_bgrace), 8, enc);
	proto_tree_add_item(s, hf_igrace, tvb, (gint)off + QI(dqi_igrace), 8, enc);
	proto_tree_add_item(s, hf_dqi_flags, tvb, (gint)off + QI(dqi_flags), 4, enc);
	proto_tree_add_item(s, hf_dqi_valid, tvb, (gint)off + QI(dqi_valid), 4, enc);
	ti = proto_tree_add_none_format(t, lnetcap_hf_buffer, tvb, (gint)off + QC(qc_dqblk),
		(gint)sizeof(struct lnetcap_obd_dqblk), "obd_dqblk");
	s = proto_item_add_subtree(ti, ett_dqblk);
	proto_tree_add_item(s, hf_bhardlimit, tvb, (gint)off + QD(dqb_bhardlimit), 8, enc);
	proto_tree_add_item(s, hf_bsoftlimit, tvb, (gint)off + QD(dqb_bsoftlimit), 8, enc);
	proto_tree_add_item(s, hf_curspace, tvb, (gint)off + QD(dqb_curspace), 8, enc);
	proto_tree_add_item(s, hf_ihardlimit, tvb, (gint)off + QD(dqb_ihardlimit), 8, enc);
	proto_tree_add_item(s, hf_isoftlimit, tvb, (gint)off + QD(dqb_isoftlimit), 8, enc);
	proto_tree_add_item(s, hf_curinodes, tvb, (gint)off + QD(dqb_curinodes), 8, enc);
	proto_tree_add_item(s, hf_btime, tvb, (gint)off + QD(dqb_btime), 8, enc);
	proto_tree_add_item(s, hf_itime, tvb, (gint)off + QD(dqb_itime), 8, enc);
	proto_tree_add_item(s, hf_dqb_valid, tvb, (gint)off + QD(dqb_valid), 4, enc);
	proto_tree_add_item(s, hf_dqb_padding, tvb, (gint)off + QD(dqb_padding), 4, enc);
	col_append_fstr(pinfo->cinfo, COL_INFO, " %s %s id %u",
			val_to_str(cmd, lnetcap_quota_cmd_vals, "cmd 0x%x"),
			val_to_str(type, lnetcap_quota_type_vals, "type %u"), id);
	/* Pool commands: qc_poolname follows, as much as buffer and capture hold. */
	len = pkt->rpc.buf_len[i];
	if (LNETCAP_QUOTA_CMD_IS_POOL(cmd) && len > sizeof(struct lnetcap_obd_quotactl)) {
		guint32 po = off + (guint32)sizeof(struct lnetcap_obd_quotactl);
		guint32 cap = tvb_captured_length(tvb);
		guint32 plen = MIN(len - (guint32)sizeof(struct lnetcap_obd_quotactl),
				   LNETCAP_LOV_MAXPOOLNAME + 1);
		if (po < cap) {
			const guint8 *pool;
			proto_tree_add_item_ret_string(t, hf_poolname, tvb, (gint)po,
				(gint)MIN(plen, cap - po), ENC_ASCII, pinfo->pool, &pool);
			col_append_fstr(pinfo->cinfo, COL_INFO, " pool \"%s\"", pool);
		}
	}
}

static int dissect_quota(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	lnetcap_pkt_t *pkt = (lnetcap_pkt_t *)data;
	proto_tree *t = lnetcap_body_tree(tvb, pinfo, tree, proto_quota, ett_quota, pkt);
	guint32 off, len;

	if (pkt->rpc.opc == LNETCAP_OPC_QUOTA_DQACQ) {
		lnetcap_quota_body(tvb, pinfo, t, pkt, LNETCAP_BUF(pkt, QUOTA_BODY));
		return (int)tvb_captured_length(tvb);
	}
	dissect_quotactl(tvb, pinfo, t, pkt, LNETCAP_BUF(pkt, OBD_QUOTACTL));
	/* 2.16+ replies: RMF_OBD_QUOTA_ITER, the entries of LUSTRE_Q_ITER*
	 * commands (a list whose format is internal to the quota code). */
	if (lnetcap_rpc_buf(pkt, LNETCAP_BUF(pkt, OBD_QUOTA_ITER), &off, &len) &&
	    len > 0 && off < tvb_captured_length(tvb))
		proto_tree_add_item(t, hf_iter, tvb, (gint)off,
				    (gint)MIN(len, tvb_captured_length(tvb) - off), ENC_NA);
	return (int)tvb_captured_length(tvb);
}

void lnetcap_handoff_quota(void)
{
	static const guint32 opcodes[] = {
		LNETCAP_OPC_QUOTA_DQACQ,
		LNETCAP_OPC_MDS_QUOTACTL,
		LNETCAP_OPC_OST_QUOTACTL,
	};
	lnetcap_body_register(proto_quota, dissect_quota, opcodes, array_length(opcodes));
}

void lnetcap_register_quota(void)
{
	static hf_register_info hf[] = {
		{ &hf_fid, { "Index FID", "lnetcap.quota.fid", FT_STRING, BASE_NONE, NULL, 0, "qb_fid: the global quota index (qb_slv_fid, the slave index, in IT_QUOTA_CONN replies)", HFILL } },
		{ &hf_glb_qtype, { "Quota type", "lnetcap.quota.glb.qtype", FT_UINT32, BASE_DEC, VALS(lnetcap_quota_type_vals), 0, "From the global index FID (f_oid >> 24)", HFILL } },
		{ &hf_glb_res, { "Resource type", "lnetcap.quota.glb.res_type", FT_UINT32, BASE_DEC, VALS(lnetcap_quota_res_vals), 0, "From the global index FID ((f_oid >> 16) & 0xff): inodes (MD) or blocks (DT)", HFILL } },
		{ &hf_id, { "Quota ID", "lnetcap.quota.id", FT_UINT64, BASE_DEC, NULL, 0, "qb_id: uid, gid or project id", HFILL } },
		{ &hf_id_fid, { "Quota ID FID", "lnetcap.quota.id_fid", FT_STRING, BASE_NONE, NULL, 0, "qb_id.qid_fid (per-directory quota)", HFILL } },
		{ &hf_padding, { "Padding", "lnetcap.quota.padding", FT_UINT32, BASE_HEX, NULL, 0, "qb_padding", HFILL } },
		{ &hf_count, { "Count", "lnetcap.quota.count", FT_UINT64, BASE_DEC, NULL, 0, "qb_count: kbytes or inodes acquired or released", HFILL } },
		{ &hf_usage, { "Usage / qunit", "lnetcap.quota.usage", FT_UINT64, BASE_DEC, NULL, 0, "qb_usage: the slave's usage in requests, the qunit (qb_qunit) in replies", HFILL } },
		{ &hf_slv_ver, { "Slave index version", "lnetcap.quota.slv_ver", FT_UINT64, BASE_DEC, NULL, 0, "qb_slv_ver", HFILL } },
		{ &hf_lockh, { "Per-ID lock handle", "lnetcap.quota.lockh", FT_UINT64, BASE_HEX, NULL, 0, "qb_lockh", HFILL } },
		{ &hf_glb_lockh, { "Global lock handle", "lnetcap.quota.glb_lockh", FT_UINT64, BASE_HEX, NULL, 0, "qb_glb_lockh", HFILL } },
		{ &hf_padding1, { "Padding", "lnetcap.quota.padding1", FT_BYTES, BASE_NONE, NULL, 0, "qb_padding1[4]", HFILL } },
		{ &hf_cmd, { "Command", "lnetcap.quota.qc_cmd", FT_UINT32, BASE_HEX, VALS(lnetcap_quota_cmd_vals), 0, "qc_cmd (Q_* / LUSTRE_Q_*)", HFILL } },
		{ &hf_type, { "Type", "lnetcap.quota.qc_type", FT_UINT32, BASE_DEC, VALS(lnetcap_quota_type_vals), 0, "qc_type", HFILL } },
		{ &hf_qc_id, { "ID", "lnetcap.quota.qc_id", FT_UINT32, BASE_DEC, NULL, 0, "qc_id: uid, gid or project id", HFILL } },
		{ &hf_stat, { "Status", "lnetcap.quota.qc_stat", FT_INT32, BASE_DEC, NULL, 0, "qc_stat", HFILL } },
		{ &hf_bgrace, { "Block grace", "lnetcap.quota.dqi_bgrace", FT_UINT64, BASE_DEC, NULL, 0, "dqi_bgrace (seconds)", HFILL } },
		{ &hf_igrace, { "Inode grace", "lnetcap.quota.dqi_igrace", FT_UINT64, BASE_DEC, NULL, 0, "dqi_igrace (seconds)", HFILL } },
		{ &hf_dqi_flags, { "Info flags", "lnetcap.quota.dqi_flags", FT_UINT32, BASE_HEX, NULL, 0, "dqi_flags", HFILL } },
		{ &hf_dqi_valid, { "Info valid", "lnetcap.quota.dqi_valid", FT_UINT32, BASE_HEX, NULL, 0, "dqi_valid (IIF_*)", HFILL } },
		{ &hf_bhardlimit, { "Block hard limit", "lnetcap.quota.dqb_bhardlimit", FT_UINT64, BASE_DEC, NULL, 0, "dqb_bhardlimit (kbytes)", HFILL } },
		{ &hf_bsoftlimit, { "Block soft limit", "lnetcap.quota.dqb_bsoftlimit", FT_UINT64, BASE_DEC, NULL, 0, "dqb_bsoftlimit (kbytes)", HFILL } },
		{ &hf_curspace, { "Space used", "lnetcap.quota.dqb_curspace", FT_UINT64, BASE_DEC, NULL, 0, "dqb_curspace (bytes)", HFILL } },
		{ &hf_ihardlimit, { "Inode hard limit", "lnetcap.quota.dqb_ihardlimit", FT_UINT64, BASE_DEC, NULL, 0, "dqb_ihardlimit", HFILL } },
		{ &hf_isoftlimit, { "Inode soft limit", "lnetcap.quota.dqb_isoftlimit", FT_UINT64, BASE_DEC, NULL, 0, "dqb_isoftlimit", HFILL } },
		{ &hf_curinodes, { "Inodes used", "lnetcap.quota.dqb_curinodes", FT_UINT64, BASE_DEC, NULL, 0, "dqb_curinodes", HFILL } },
		{ &hf_btime, { "Block grace time", "lnetcap.quota.dqb_btime", FT_UINT64, BASE_HEX, NULL, 0, "dqb_btime (grace end or grace; LQUOTA_FLAG_* in bits 48-63)", HFILL } },
		{ &hf_itime, { "Inode grace time", "lnetcap.quota.dqb_itime", FT_UINT64, BASE_HEX, NULL, 0, "dqb_itime (grace end or grace; LQUOTA_FLAG_* in bits 48-63)", HFILL } },
		{ &hf_dqb_valid, { "Valid", "lnetcap.quota.dqb_valid", FT_UINT32, BASE_HEX, NULL, 0, "dqb_valid (QIF_*)", HFILL } },
		{ &hf_dqb_padding, { "Padding", "lnetcap.quota.dqb_padding", FT_UINT32, BASE_HEX, NULL, 0, "dqb_padding", HFILL } },
		{ &hf_poolname, { "Pool", "lnetcap.quota.poolname", FT_STRINGZPAD, BASE_NONE, NULL, 0, "qc_poolname of the pool commands", HFILL } },
		{ &hf_iter, { "Iteration data", "lnetcap.quota.iter", FT_BYTES, BASE_NONE, NULL, 0, "RMF_OBD_QUOTA_ITER of a QUOTACTL reply (2.16+)", HFILL } },
	};
	static gint *ett[] = { &ett_quota, &ett_body, &ett_qctl, &ett_dqinfo, &ett_dqblk };

	proto_quota = proto_register_protocol("Lustre Quota (lnetcap)", "Quota", "lnetcap.quota");
	proto_register_field_array(proto_quota, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	lnetcap_flagset_register(proto_quota, &fs_flags);
}
