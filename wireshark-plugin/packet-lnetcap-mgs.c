/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap-mgs.c - the MGS protocol (lnetcap.mgs): the target
 * registration of MGS_TARGET_REG (mgs_target_info, both ways), the log
 * read of MGS_CONFIG_READ (mgs_config_body, mgs_config_res) and the
 * parameter of MGS_SET_INFO (mgs_send_param), per layout.c's RQF_MGS_* of
 * Lustre 2.16.  MGS_CONNECT is the OBD protocol's.
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "packet-lnetcap.h"
#include "lnetcap-formats.h"
#include "lnetcap-flags.h"
#include "lnetcap-vals.h"
#include "lnetcap/bodies.h"
#include "lnetcap/ptlrpc.h"

#define MTI(f) (gint)off + LNETCAP_OFF(struct lnetcap_mgs_target_info, f), \
	LNETCAP_LEN(struct lnetcap_mgs_target_info, f)
#define MCB(f) (gint)off + LNETCAP_OFF(struct lnetcap_mgs_config_body, f), \
	LNETCAP_LEN(struct lnetcap_mgs_config_body, f)
#define MCR(f) (gint)off + LNETCAP_OFF(struct lnetcap_mgs_config_res, f), \
	LNETCAP_LEN(struct lnetcap_mgs_config_res, f)

/* MGS_SET_INFO's mgs_send_param (MGS_PARAM_MAXLEN, before 2.18.53). */
#define MGS_PARAM_MAXLEN 1024

static int proto_mgs = -1;
static gint ett_mgs = -1;
static gint ett_mti = -1;
static gint ett_cfg = -1;

static int hf_mti_lustre_ver = -1;
static int hf_mti_stripe_index = -1;
static int hf_mti_config_ver = -1;
static int hf_mti_nid_count = -1;
static int hf_mti_instance = -1;
static int hf_mti_fsname = -1;
static int hf_mti_svname = -1;
static int hf_mti_uuid = -1;
static int hf_mti_nid = -1;
static int hf_mti_params = -1;
static int hf_cfg_name = -1;
static int hf_cfg_offset = -1;
static int hf_cfg_type = -1;
static int hf_cfg_nm_pass = -1;
static int hf_cfg_nid_size = -1;
static int hf_cfg_bits = -1;
static int hf_cfg_units = -1;
static int hf_res_offset = -1;
static int hf_res_size = -1;
static int hf_param = -1;

static lnetcap_flagset_t fs_ldd = LNETCAP_FLAGSET(
	"lnetcap.mgs.mti.flags", "Target flags (LDD_F_*)", 32, lnetcap_ldd_flag_defs,
	lnetcap_ldd_flag_count);

/* mgs_target_info: the fixed part up to mti_params must be there; the
 * 4 KiB of parameters are shown as far as they were captured. */
static void dissect_target_info(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
				lnetcap_pkt_t *pkt)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, nids, cap;
	proto_tree *t;
	const guint8 *svname;

	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, MGS_TARGET_INFO),
				  LNETCAP_OFF(struct lnetcap_mgs_target_info, mti_params), ett_mti,
				  "mgs_target_info", &t, &off))
		return;
	proto_tree_add_item(t, hf_mti_lustre_ver, tvb, MTI(mti_lustre_ver), enc);
	proto_tree_add_item(t, hf_mti_stripe_index, tvb, MTI(mti_stripe_index), enc);
	proto_tree_add_item(t, hf_mti_config_ver, tvb, MTI(mti_config_ver), enc);
	lnetcap_flagset_add(t, tvb, (gint)off + LNETCAP_OFF(struct lnetcap_mgs_target_info, mti_flags),
			    enc, &fs_ldd);
	proto_tree_add_item_ret_uint(t, hf_mti_nid_count, tvb, MTI(mti_nid_count), enc, &nids);
	proto_tree_add_item(t, hf_mti_instance, tvb, MTI(mti_instance), enc);
	proto_tree_add_item(t, hf_mti_fsname, tvb, MTI(mti_fsname), ENC_ASCII | ENC_NA);
	proto_tree_add_item_ret_string(t, hf_mti_svname, tvb, MTI(mti_svname), ENC_ASCII | ENC_NA,
				       pinfo->pool, &svname);
	proto_tree_add_item(t, hf_mti_uuid, tvb, MTI(mti_uuid), ENC_ASCII | ENC_NA);
	/* mti_nids[] holds 4-byte-address NIDs (lnet_nid_t); larger NIDs go
	 * to mti_nidlist as text. */
	for (guint32 k = 0; k < MIN(nids, LNETCAP_MTI_NIDS_MAX); k++) {
		guint o = off + LNETCAP_OFF(struct lnetcap_mgs_target_info, mti_nids) + 8 * k;
		lnetcap_nid_t nid;
		char buf[LNETCAP_NID_STRLEN];
		lnetcap_nid_from_nid4(&nid, tvb_get_guint64(tvb, o, enc));
		lnetcap_nid_to_str(&nid, buf, sizeof(buf));
		proto_tree_add_string(t, hf_mti_nid, tvb, (gint)o, 8, buf);
	}
	off += LNETCAP_OFF(struct lnetcap_mgs_target_info, mti_params);
	cap = (guint32)tvb_captured_length_remaining(tvb, (gint)off);
	if (cap > 0)
		proto_tree_add_item(t, hf_mti_params, tvb, (gint)off,
				    (gint)MIN(cap, MIN(LNETCAP_MTI_PARAM_MAXLEN,
						       pkt->rpc.buf_len[1] -
						       LNETCAP_OFF(struct lnetcap_mgs_target_info, mti_params))),
				    ENC_ASCII | ENC_NA);
	if (cap < LNETCAP_MTI_PARAM_MAXLEN &&
	    pkt->rpc.buf_len[1] >= sizeof(struct lnetcap_mgs_target_info))
		proto_tree_add_expert_format(t, pinfo, &lnetcap_ei_truncated, tvb, lnetcap_clamp(tvb, off),
			0, "mti_params cut by the snap length (%u of %u bytes captured)", cap,
			LNETCAP_MTI_PARAM_MAXLEN);
	if (svname && svname[0])
		col_append_fstr(pinfo->cinfo, COL_INFO, " %s", svname);
}

static void dissect_config_read(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
				lnetcap_pkt_t *pkt)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, type;
	proto_tree *t;

	if (pkt->rpc.pb_type == LNETCAP_PTL_RPC_MSG_REQUEST) {
		const guint8 *name;
		guint64 offset;
		if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, MGS_CONFIG_BODY),
					  sizeof(struct lnetcap_mgs_config_body), ett_cfg,
					  "mgs_config_body", &t, &off))
			return;
		proto_tree_add_item_ret_string(t, hf_cfg_name, tvb, MCB(mcb_name), ENC_ASCII | ENC_NA,
					       pinfo->pool, &name);
		proto_tree_add_item_ret_uint64(t, hf_cfg_offset, tvb, MCB(mcb_offset), enc, &offset);
		proto_tree_add_item_ret_uint(t, hf_cfg_type, tvb, MCB(mcb_type), enc, &type);
		/* A union whose meaning depends on the log type. */
		if (type == LNETCAP_MGS_CFG_T_NODEMAP)
			proto_tree_add_item(t, hf_cfg_nm_pass, tvb, MCB(mcb_pass_or_nid_size), enc);
		else if (type == LNETCAP_MGS_CFG_T_RECOVER)
			proto_tree_add_item(t, hf_cfg_nid_size, tvb, MCB(mcb_pass_or_nid_size), enc);
		proto_tree_add_item(t, hf_cfg_bits, tvb, MCB(mcb_bits), enc);
		proto_tree_add_item(t, hf_cfg_units, tvb, MCB(mcb_units), enc);
		col_append_fstr(pinfo->cinfo, COL_INFO, " %s log \"%s\" from %" G_GUINT64_FORMAT,
				val_to_str(type, lnetcap_mgs_cfg_type_vals, "type %u"), name, offset);
	} else {
		if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, MGS_CONFIG_RES),
					  sizeof(struct lnetcap_mgs_config_res), ett_cfg,
					  "mgs_config_res", &t, &off))
			return;
		proto_tree_add_item(t, hf_res_offset, tvb, MCR(mcr_offset), enc);
		proto_tree_add_item(t, hf_res_size, tvb, MCR(mcr_size), enc);
	}
}

static void dissect_mgs_rpc(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt)
{
	guint32 off, len;

	switch (pkt->rpc.opc) {
	case LNETCAP_OPC_MGS_TARGET_REG:
		dissect_target_info(tvb, pinfo, tree, pkt);
		break;
	case LNETCAP_OPC_MGS_CONFIG_READ:
		dissect_config_read(tvb, pinfo, tree, pkt);
		break;
	case LNETCAP_OPC_MGS_SET_INFO:
		if (lnetcap_rpc_buf(pkt, LNETCAP_BUF(pkt, MGS_SEND_PARAM), &off, &len) && len > 0 &&
		    off < tvb_captured_length(tvb))
			proto_tree_add_item(tree, hf_param, tvb, (gint)off,
					    (gint)MIN(MIN(len, MGS_PARAM_MAXLEN),
						      tvb_captured_length(tvb) - off),
					    ENC_ASCII | ENC_NA);
		break;
	}
}

static int dissect_mgs(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	lnetcap_pkt_t *pkt = (lnetcap_pkt_t *)data;
	dissect_mgs_rpc(tvb, pinfo, lnetcap_body_tree(tvb, pinfo, tree, proto_mgs, ett_mgs, pkt), pkt);
	return (int)tvb_captured_length(tvb);
}

void lnetcap_handoff_mgs(void)
{
	static const guint32 opcodes[] = {
		LNETCAP_OPC_MGS_TARGET_REG,
		LNETCAP_OPC_MGS_SET_INFO,
		LNETCAP_OPC_MGS_CONFIG_READ,
	};
	lnetcap_body_register(proto_mgs, dissect_mgs, opcodes, array_length(opcodes));
}

void lnetcap_register_mgs(void)
{
	static hf_register_info hf[] = {
		{ &hf_mti_lustre_ver, { "Lustre version", "lnetcap.mgs.mti.lustre_ver", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_mti_stripe_index, { "Target index", "lnetcap.mgs.mti.stripe_index", FT_UINT32, BASE_DEC, NULL, 0, "mti_stripe_index", HFILL } },
		{ &hf_mti_config_ver, { "Config version", "lnetcap.mgs.mti.config_ver", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_mti_nid_count, { "NID count", "lnetcap.mgs.mti.nid_count", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_mti_instance, { "Instance", "lnetcap.mgs.mti.instance", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_mti_fsname, { "File system", "lnetcap.mgs.mti.fsname", FT_STRINGZPAD, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_mti_svname, { "Target name", "lnetcap.mgs.mti.svname", FT_STRINGZPAD, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_mti_uuid, { "Target UUID", "lnetcap.mgs.mti.uuid", FT_STRINGZPAD, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_mti_nid, { "NID", "lnetcap.mgs.mti.nid", FT_STRING, BASE_NONE, NULL, 0, "mti_nids[]", HFILL } },
		{ &hf_mti_params, { "Parameters", "lnetcap.mgs.mti.params", FT_STRINGZPAD, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_cfg_name, { "Log name", "lnetcap.mgs.config.name", FT_STRINGZPAD, BASE_NONE, NULL, 0, "mcb_name", HFILL } },
		{ &hf_cfg_offset, { "Offset", "lnetcap.mgs.config.offset", FT_UINT64, BASE_DEC, NULL, 0, "mcb_offset: next log index wanted", HFILL } },
		{ &hf_cfg_type, { "Log type", "lnetcap.mgs.config.type", FT_UINT16, BASE_DEC, VALS(lnetcap_mgs_cfg_type_vals), 0, NULL, HFILL } },
		{ &hf_cfg_nm_pass, { "Nodemap pass", "lnetcap.mgs.config.nm_cur_pass", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_cfg_nid_size, { "Recovery NID size", "lnetcap.mgs.config.rec_nid_size", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_cfg_bits, { "Unit size (log2)", "lnetcap.mgs.config.bits", FT_UINT8, BASE_DEC, NULL, 0, "mcb_bits", HFILL } },
		{ &hf_cfg_units, { "Units", "lnetcap.mgs.config.units", FT_UINT32, BASE_DEC, NULL, 0, "mcb_units: bulk pages", HFILL } },
		{ &hf_res_offset, { "Last index", "lnetcap.mgs.config.res_offset", FT_UINT64, BASE_DEC, NULL, 0, "mcr_offset", HFILL } },
		{ &hf_res_size, { "Log size", "lnetcap.mgs.config.res_size", FT_UINT64, BASE_DEC, NULL, 0, "mcr_size (mcr_nm_cur_pass for nodemap logs)", HFILL } },
		{ &hf_param, { "Parameter", "lnetcap.mgs.param", FT_STRINGZPAD, BASE_NONE, NULL, 0, "mgs_send_param", HFILL } },
	};
	static gint *ett[] = { &ett_mgs, &ett_mti, &ett_cfg };

	proto_mgs = proto_register_protocol("Lustre MGS (lnetcap)", "MGS", "lnetcap.mgs");
	proto_register_field_array(proto_mgs, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	lnetcap_flagset_register(proto_mgs, &fs_ldd);
}
