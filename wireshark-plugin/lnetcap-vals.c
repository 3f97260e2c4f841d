/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-vals.c - value_strings and flag tables expanded from the shared
 * X-macro lists, so the plugin, the agent and the BPF code cannot disagree.
 */
#include <glib.h>

#include "lnetcap-vals.h"
#include "lnetcap/bodies.h"
#include "lnetcap/fld.h"
#include "lnetcap/out_update.h"
#include "lnetcap/quota.h"
#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/direction_words.h"
#include "lnetcap/record.h"

#define VS3(name, value, str) { value, str },
#define VS_NAME3(name, value, str) { value, #name },
#define VS_NAME2(name, value) { value, #name },
#define VS_LND(name, value, str, style) { value, #name },
#define VS_PORTAL(name, value) { value, #name "_PORTAL" },
#define FLAG2(name, bit) { #name, bit },
#define FLAG3(name, bit, str) { #name, bit },

const value_string lnetcap_direction_vals[] = { LNETCAP_DIR_LIST(VS3) { 0, NULL } };
#define VS_DIR_WORD(name, word) { LNETCAP_DIR_##name, word },
const value_string lnetcap_direction_words[] = { LNETCAP_DIR_WORD_LIST(VS_DIR_WORD) { 0, NULL } };
const value_string lnetcap_hook_vals[] = { LNETCAP_HOOK_LIST(VS3) { 0, NULL } };
const value_string lnetcap_health_vals[] = { LNETCAP_HEALTH_LIST(VS3) { 0, NULL } };
#define VS_DROP(name, value, str, desc) { value, str },
const value_string lnetcap_drop_reason_vals[] = { LNETCAP_DROP_REASON_LIST(VS_DROP) { 0, NULL } };
#define VS_DROP_DESC(name, value, str, desc) { value, desc },
const value_string lnetcap_drop_reason_desc[] = {
	LNETCAP_DROP_REASON_LIST(VS_DROP_DESC) { 0, NULL }
};
const value_string lnetcap_msg_type_vals[] = { LNETCAP_MSG_TYPE_LIST(VS3) { 0, NULL } };
const value_string lnetcap_lnd_vals[] = { LNETCAP_LND_LIST(VS_LND) { 0, NULL } };
const value_string lnetcap_portal_vals[] = { LNETCAP_PORTAL_LIST(VS_PORTAL) { 0, NULL } };
const value_string lnetcap_pb_type_vals[] = { LNETCAP_PTL_RPC_MSG_LIST(VS3) { 0, NULL } };
const value_string lnetcap_target_version_vals[] = {
	LNETCAP_LUSTRE_TARGET_VERSION_LIST(VS3) { 0, NULL }
};

/* Sorted by value (the X-list is), so the _ext lookup is a binary search. */
const value_string lnetcap_opcode_vals[] = { LNETCAP_OPCODE_LIST(VS_NAME3) { 0, NULL } };
value_string_ext lnetcap_opcode_vals_ext = VALUE_STRING_EXT_INIT(lnetcap_opcode_vals);

/* pb_status: negative network errnos, positive LDLM results. */
#define VS_NEG_ERRNO(name, value) { (guint32)-(value), "-" #name },
const value_string lnetcap_status_vals[] = {
	{ 0, "success" },
	LNETCAP_ERRNO_LIST(VS_NEG_ERRNO)
	LNETCAP_ELDLM_LIST(VS_NAME2)
	{ 0, NULL }
};

const value_string lnetcap_u32_unknown_vals[] = { { 0xffffffffU, "unknown" }, { 0, NULL } };
const value_string lnetcap_u32_none_vals[] = { { 0xffffffffU, "none" }, { 0, NULL } };
const val64_string lnetcap_u64_eof_vals[] = { { G_MAXUINT64, "EOF" }, { 0, NULL } };

const value_string lnetcap_ldlm_mode_vals[] = { LNETCAP_LDLM_MODE_LIST(VS_NAME2) { 0, NULL } };
const value_string lnetcap_ldlm_type_vals[] = { LNETCAP_LDLM_TYPE_LIST(VS_NAME2) { 0, NULL } };
const value_string lnetcap_reint_vals[] = { LNETCAP_REINT_LIST(VS_NAME2) { 0, NULL } };
const value_string lnetcap_llog_type_vals[] = { LNETCAP_LLOG_TYPE_LIST(VS_NAME2) { 0, NULL } };
const value_string lnetcap_lcfg_cmd_vals[] = { LNETCAP_LCFG_CMD_LIST(VS_NAME2) { 0, NULL } };
const value_string lnetcap_seq_op_vals[] = { LNETCAP_SEQ_OP_LIST(VS_NAME2) { 0, NULL } };
const value_string lnetcap_seq_range_type_vals[] = { LNETCAP_SEQ_RANGE_TYPE_LIST(VS_NAME2) { 0, NULL } };
const value_string lnetcap_mgs_cfg_type_vals[] = { LNETCAP_MGS_CFG_TYPE_LIST(VS_NAME2) { 0, NULL } };

const char *lnetcap_opcode_name(wmem_allocator_t *scope, guint32 opc)
{
	const char *s = try_val_to_str_ext(opc, &lnetcap_opcode_vals_ext);
	return s ? s : wmem_strdup_printf(scope, "opcode %u", opc);
}

/* Dense SRT rows: the position of an opcode in lnetcap_opcode_vals (sorted
 * by value), and one row after the known ones for every other opcode.  The
 * SRT tables index their rows by this, not by the opcode itself: a table
 * of one row per opcode value (0..1102) made the Qt SRT dialog of 4.0 hide
 * and re-sort thousands of empty rows one at a time, and it hung. */
guint lnetcap_opcode_row(guint32 opc)
{
	guint lo = 0, hi = lnetcap_opcode_row_count() - 1;
	while (lo < hi) {
		guint mid = (lo + hi) / 2;
		if (lnetcap_opcode_vals[mid].value < opc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < lnetcap_opcode_row_count() - 1 && lnetcap_opcode_vals[lo].value == opc
		       ? lo : lnetcap_opcode_row_count() - 1;
}

guint lnetcap_opcode_row_count(void)
{
	return (guint)G_N_ELEMENTS(lnetcap_opcode_vals); /* the known ones + "other" (the terminator's slot) */
}

const char *lnetcap_opcode_row_name(guint row)
{
	return row + 1 < lnetcap_opcode_row_count() ? lnetcap_opcode_vals[row].strptr : "other opcodes";
}

#define FLAGS(var, list, X)                                                    \
	const lnetcap_flag_def_t var##_defs[] = { list(X) };                   \
	const guint var##_count = G_N_ELEMENTS(var##_defs);

FLAGS(lnetcap_rec_flag, LNETCAP_REC_FLAG_LIST, FLAG3)
FLAGS(lnetcap_ping_feat, LNETCAP_PING_FEAT_LIST, FLAG2)
FLAGS(lnetcap_msg_flag, LNETCAP_MSG_FLAG_LIST, FLAG2)
FLAGS(lnetcap_connect_op, LNETCAP_MSG_CONNECT_FLAG_LIST, FLAG2)
FLAGS(lnetcap_brw_flag, LNETCAP_OBD_BRW_FLAG_LIST, FLAG2)
FLAGS(lnetcap_ldlm_flag, LNETCAP_LDLM_FLAG_LIST, FLAG2)
FLAGS(lnetcap_inodelock, LNETCAP_MDS_INODELOCK_LIST, FLAG2)
FLAGS(lnetcap_intent, LNETCAP_INTENT_LIST, FLAG2)
FLAGS(lnetcap_lcme_flag, LNETCAP_LCME_FLAG_LIST, FLAG2)
FLAGS(lnetcap_disp, LNETCAP_DISP_LIST, FLAG2)
FLAGS(lnetcap_ldd_flag, LNETCAP_LDD_FLAG_LIST, FLAG2)
FLAGS(lnetcap_llog_flag, LNETCAP_LLOG_FLAG_LIST, FLAG2)
FLAGS(lnetcap_cm_flag, LNETCAP_CM_FLAG_LIST, FLAG2)
FLAGS(lnetcap_connect_flag, LNETCAP_OBD_CONNECT_FLAG_LIST, FLAG2)
FLAGS(lnetcap_connect2_flag, LNETCAP_OBD_CONNECT2_FLAG_LIST, FLAG2)

/* MDT extras: POSIX ACL tags, layout intents (bodies.h). */
const value_string lnetcap_acl_tag_vals[] = { LNETCAP_ACL_TAG_LIST(VS_NAME2) { 0, NULL } };
const value_string lnetcap_layout_intent_vals[] = { LNETCAP_LAYOUT_INTENT_LIST(VS_NAME2) { 0, NULL } };
FLAGS(lnetcap_laif_flag, LNETCAP_LAIF_FLAG_LIST, FLAG2)
/* FLD, quota, OUT_UPDATE and MDS_BATCH (fld.h, quota.h, out_update.h). */
const value_string lnetcap_fld_op_vals[] = { LNETCAP_FLD_OP_LIST(VS_NAME2) { 0, NULL } };
const value_string lnetcap_quota_cmd_vals[] = { LNETCAP_QUOTA_CMD_LIST(VS_NAME2) { 0, NULL } };
#define VS_QTYPE(name, value) { value, #name "QUOTA" },
const value_string lnetcap_quota_type_vals[] = { LNETCAP_LQUOTA_TYPE_LIST(VS_QTYPE) { 0, NULL } };
#define VS_QRES(name, value) { value, "LQUOTA_RES_" #name },
const value_string lnetcap_quota_res_vals[] = { LNETCAP_LQUOTA_RES_LIST(VS_QRES) { 0, NULL } };
const value_string lnetcap_out_type_vals[] = { LNETCAP_OUT_TYPE_LIST(VS_NAME2) { 0, NULL } };
const value_string lnetcap_but_cmd_vals[] = { LNETCAP_BUT_CMD_LIST(VS_NAME2) { 0, NULL } };
FLAGS(lnetcap_dqacq_flag, LNETCAP_QUOTA_DQACQ_FL_LIST, FLAG2)
FLAGS(lnetcap_update_flag, LNETCAP_UPDATE_FL_LIST, FLAG2)
