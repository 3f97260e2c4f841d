/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-vals.h - value_strings and flag tables, every one expanded from
 * the X-macro lists of include/lnetcap/ (never a second copy of a number).
 */
#ifndef LNETCAP_VALS_H
#define LNETCAP_VALS_H

#include <epan/value_string.h>

#include "lnetcap-flags.h"

extern const value_string lnetcap_direction_vals[];
/* SEND, RECV, FWD, DROP, WIRE: the words lnetcap's own text output prints
 * (capture/src/text/line.cpp), for the Info column and lnetcap.seen_by. */
extern const value_string lnetcap_direction_words[];
/* ~0 sentinels, for fields with BASE_SPECIAL_VALS (other values print as
 * plain numbers, not "Unknown (n)"): "unknown" (a CPU a converter could not know), "none" (no
 * supplementary group), "EOF" (OBD_OBJECT_EOF, a lock to the end of file). */
extern const value_string lnetcap_u32_unknown_vals[];
extern const value_string lnetcap_u32_none_vals[];
extern const val64_string lnetcap_u64_eof_vals[];
extern const value_string lnetcap_hook_vals[];
extern const value_string lnetcap_health_vals[];
extern const value_string lnetcap_drop_reason_vals[];  /* "no-match" */
extern const value_string lnetcap_drop_reason_desc[];  /* the sentence */
extern const value_string lnetcap_msg_type_vals[];
extern const value_string lnetcap_lnd_vals[];
extern const value_string lnetcap_portal_vals[];
extern const value_string lnetcap_pb_type_vals[];
extern const value_string lnetcap_target_version_vals[];
extern value_string_ext lnetcap_opcode_vals_ext;
extern const value_string lnetcap_opcode_vals[];
/* SRT row of an opcode: its position among the known opcodes, or the last
 * row ("other opcodes"); rows are 0..lnetcap_opcode_row_count()-1. */
guint lnetcap_opcode_row(guint32 opc);
guint lnetcap_opcode_row_count(void);
const char *lnetcap_opcode_row_name(guint row);
extern const value_string lnetcap_status_vals[];   /* -errno and ELDLM_* */
extern const value_string lnetcap_ldlm_mode_vals[];
extern const value_string lnetcap_ldlm_type_vals[];
extern const value_string lnetcap_reint_vals[];
extern const value_string lnetcap_mgs_cfg_type_vals[];
extern const value_string lnetcap_seq_op_vals[];
extern const value_string lnetcap_seq_range_type_vals[];
extern const value_string lnetcap_llog_type_vals[];
extern const value_string lnetcap_lcfg_cmd_vals[];

/* Name of an opcode for columns and tables: "OST_READ" or "opcode 999". */
const char *lnetcap_opcode_name(wmem_allocator_t *scope, guint32 opc);

extern const lnetcap_flag_def_t lnetcap_rec_flag_defs[];
extern const guint lnetcap_rec_flag_count;
extern const lnetcap_flag_def_t lnetcap_ping_feat_defs[];
extern const guint lnetcap_ping_feat_count;
extern const lnetcap_flag_def_t lnetcap_msg_flag_defs[];
extern const guint lnetcap_msg_flag_count;
extern const lnetcap_flag_def_t lnetcap_connect_op_defs[];
extern const guint lnetcap_connect_op_count;
extern const lnetcap_flag_def_t lnetcap_brw_flag_defs[];
extern const guint lnetcap_brw_flag_count;
extern const lnetcap_flag_def_t lnetcap_ldlm_flag_defs[];
extern const guint lnetcap_ldlm_flag_count;
extern const lnetcap_flag_def_t lnetcap_inodelock_defs[];
extern const guint lnetcap_inodelock_count;
extern const lnetcap_flag_def_t lnetcap_llog_flag_defs[];
extern const guint lnetcap_llog_flag_count;
extern const lnetcap_flag_def_t lnetcap_cm_flag_defs[];
extern const guint lnetcap_cm_flag_count;
extern const lnetcap_flag_def_t lnetcap_ldd_flag_defs[];
extern const guint lnetcap_ldd_flag_count;
extern const lnetcap_flag_def_t lnetcap_lcme_flag_defs[];
extern const guint lnetcap_lcme_flag_count;
extern const lnetcap_flag_def_t lnetcap_disp_defs[];
extern const guint lnetcap_disp_count;
extern const lnetcap_flag_def_t lnetcap_intent_defs[];
extern const guint lnetcap_intent_count;

extern const lnetcap_flag_def_t lnetcap_connect_flag_defs[];
extern const guint lnetcap_connect_flag_count;
extern const lnetcap_flag_def_t lnetcap_connect2_flag_defs[];
extern const guint lnetcap_connect2_flag_count;

/* MDT extras: POSIX ACL tags (ACL_*), layout intents (LAYOUT_INTENT_*, LAIF_*). */
extern const value_string lnetcap_acl_tag_vals[];
extern const value_string lnetcap_layout_intent_vals[];
extern const lnetcap_flag_def_t lnetcap_laif_flag_defs[];
extern const guint lnetcap_laif_flag_count;
/* FLD, quota, OUT_UPDATE and MDS_BATCH. */
extern const value_string lnetcap_fld_op_vals[];
extern const value_string lnetcap_quota_cmd_vals[];
extern const value_string lnetcap_quota_type_vals[];  /* USRQUOTA, GRPQUOTA, PRJQUOTA */
extern const value_string lnetcap_quota_res_vals[];
extern const value_string lnetcap_out_type_vals[];
extern const value_string lnetcap_but_cmd_vals[];
extern const lnetcap_flag_def_t lnetcap_dqacq_flag_defs[];
extern const guint lnetcap_dqacq_flag_count;
extern const lnetcap_flag_def_t lnetcap_update_flag_defs[];
extern const guint lnetcap_update_flag_count;

#endif /* LNETCAP_VALS_H */
