/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap-mdt.c - MDS bodies (docs/protocol.md 4.2/4.3): mdt_body for
 * getattr-style RPCs and every MDS reply, mdt_ioepoch for close, and the
 * MDS_REINT record in its variants (setattr, create, link, unlink, rename,
 * open, setxattr, ...) with the names that follow it.  The intent part of
 * LDLM enqueues reuses these through the lnetcap_mdt_* helpers.
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "packet-lnetcap.h"
#include "lnetcap-vals.h"
#include "lnetcap/bodies.h"
#include "lnetcap/mdt_reint.h"
#include "lnetcap-formats.h"
#include "lnetcap/ptlrpc.h"

#define MB(f) (gint)off + LNETCAP_OFF(struct lnetcap_mdt_body, f), LNETCAP_LEN(struct lnetcap_mdt_body, f)
#define RR(f) (gint)off + LNETCAP_OFF(struct lnetcap_mdt_rec_reint, f), LNETCAP_LEN(struct lnetcap_mdt_rec_reint, f)
/* A field of reint variant s (mdt_reint.h): its offset and length, or with
 * AT() its offset alone for the helpers that take one. */
#define VF(s, f) (gint)off + LNETCAP_OFF(struct lnetcap_mdt_rec_##s, f), LNETCAP_LEN(struct lnetcap_mdt_rec_##s, f)
#define AT(s, f) (off + (guint32)LNETCAP_OFF(struct lnetcap_mdt_rec_##s, f))

static int proto_mdt = -1;
static gint ett_mdt = -1;
static int hf_fid1 = -1;
static int hf_fid2 = -1;
static int hf_open_handle = -1;
static int hf_valid = -1;
static int hf_size = -1;
static int hf_mtime = -1;
static int hf_atime = -1;
static int hf_ctime = -1;
static int hf_blocks = -1;
static int hf_version = -1;
static int hf_t_state = -1;
static int hf_fsuid = -1;
static int hf_fsgid = -1;
static int hf_capability = -1;
static int hf_mode = -1;
static int hf_uid = -1;
static int hf_gid = -1;
static int hf_flags = -1;
static int hf_rdev = -1;
static int hf_nlink = -1;
static int hf_layout_gen = -1;
static int hf_suppgid = -1;
static int hf_eadatasize = -1;
static int hf_aclsize = -1;
static int hf_max_mdsize = -1;
static int hf_uid_h = -1;
static int hf_gid_h = -1;
static int hf_projid = -1;
static int hf_dom_size = -1;
static int hf_dom_blocks = -1;
static int hf_btime = -1;
static int hf_padding_9 = -1;
static int hf_epoch_handle = -1;
static int hf_epoch_unused1 = -1;
static int hf_epoch_unused2 = -1;
static int hf_epoch_padding = -1;
static int hf_swap_flags = -1;
static int hf_swap_check_dv1 = -1;
static int hf_swap_check_dv2 = -1;
static int hf_swap_keep_mtime = -1;
static int hf_swap_keep_atime = -1;
static int hf_swap_close = -1;
static int hf_swap_mds_release = -1;
static gint ett_swap = -1;
static gint ett_swap_flags = -1;
static int hf_r_opcode = -1;
static int hf_r_cap = -1;
static int hf_r_fsuid = -1;
static int hf_r_fsgid = -1;
static int hf_r_suppgid1 = -1;
static int hf_r_suppgid2 = -1;
static int hf_sa_padding_1 = -1;
static int hf_r_fid1 = -1;
static int hf_r_fid2 = -1;
static int hf_r_time = -1;
static int hf_r_mtime = -1;
static int hf_r_atime = -1;
static int hf_r_ctime = -1;
static int hf_r_size = -1;
static int hf_r_blocks = -1;
static int hf_r_bias = -1;
static int hf_r_mode = -1;
static int hf_r_flags = -1;
static int hf_r_flags_h = -1;
static int hf_r_umask = -1;
static int hf_r_rdev = -1;
static int hf_r_valid = -1;
static int hf_r_uid = -1;
static int hf_r_gid = -1;
static int hf_r_attr_flags = -1;
static int hf_r_projid = -1;
static int hf_name = -1;
static int hf_new_name = -1;
static int hf_eadata = -1;

static gint ett_mdt_body = -1;
static gint ett_epoch = -1;
static gint ett_reint = -1;

static expert_field ei_name = EI_INIT;

void lnetcap_mdt_body(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt,
		      guint i)
{
	guint enc = pkt->rpc.encoding;
	guint32 off;
	proto_tree *t;
	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, i, sizeof(struct lnetcap_mdt_body),
					     ett_mdt_body, "mdt_body", &t, &off))
		return;
	lnetcap_add_fid(t, tvb, pinfo, off + LNETCAP_OFF(struct lnetcap_mdt_body, mbo_fid1), enc,
			hf_fid1, NULL);
	lnetcap_add_fid(t, tvb, pinfo, off + LNETCAP_OFF(struct lnetcap_mdt_body, mbo_fid2), enc,
			hf_fid2, NULL);
	proto_tree_add_item(t, hf_open_handle, tvb, MB(mbo_open_handle), enc);
	guint64 valid = tvb_get_guint64(tvb, off + LNETCAP_OFF(struct lnetcap_mdt_body, mbo_valid), enc);
#define MV(call, flag) lnetcap_mark_valid(call, valid, LNETCAP_OBD_MD_##flag, "OBD_MD_" #flag)
	proto_tree_add_item(t, hf_valid, tvb, MB(mbo_valid), enc);
	MV(proto_tree_add_item(t, hf_size, tvb, MB(mbo_size), enc), FLSIZE);
	MV(lnetcap_add_secs(t, hf_mtime, tvb, off + LNETCAP_OFF(struct lnetcap_mdt_body, mbo_mtime), enc), FLMTIME);
	MV(lnetcap_add_secs(t, hf_atime, tvb, off + LNETCAP_OFF(struct lnetcap_mdt_body, mbo_atime), enc), FLATIME);
	MV(lnetcap_add_secs(t, hf_ctime, tvb, off + LNETCAP_OFF(struct lnetcap_mdt_body, mbo_ctime), enc), FLCTIME);
	MV(proto_tree_add_item(t, hf_blocks, tvb, MB(mbo_blocks), enc), FLBLOCKS);
	proto_tree_add_item(t, hf_version, tvb, MB(mbo_version), enc);
	proto_tree_add_item(t, hf_t_state, tvb, MB(mbo_t_state), enc);
	proto_tree_add_item(t, hf_fsuid, tvb, MB(mbo_fsuid), enc);
	proto_tree_add_item(t, hf_fsgid, tvb, MB(mbo_fsgid), enc);
	proto_tree_add_item(t, hf_capability, tvb, MB(mbo_capability), enc);
	MV(proto_tree_add_item(t, hf_mode, tvb, MB(mbo_mode), enc), FLMODE);
	MV(proto_tree_add_item(t, hf_uid, tvb, MB(mbo_uid), enc), FLUID);
	MV(proto_tree_add_item(t, hf_gid, tvb, MB(mbo_gid), enc), FLGID);
	MV(proto_tree_add_item(t, hf_flags, tvb, MB(mbo_flags), enc), FLFLAGS);
	MV(proto_tree_add_item(t, hf_rdev, tvb, MB(mbo_rdev), enc), FLRDEV);
	MV(proto_tree_add_item(t, hf_nlink, tvb, MB(mbo_nlink), enc), FLNLINK);
	proto_tree_add_item(t, hf_layout_gen, tvb, MB(mbo_layout_gen), enc);
	proto_tree_add_item(t, hf_suppgid, tvb, MB(mbo_suppgid), enc);
	proto_tree_add_item(t, hf_eadatasize, tvb, MB(mbo_eadatasize), enc);
	proto_tree_add_item(t, hf_aclsize, tvb, MB(mbo_aclsize), enc);
	proto_tree_add_item(t, hf_max_mdsize, tvb, MB(mbo_max_mdsize), enc);
	proto_tree_add_item(t, hf_uid_h, tvb, MB(mbo_uid_h), enc);
	proto_tree_add_item(t, hf_gid_h, tvb, MB(mbo_gid_h), enc);
	MV(proto_tree_add_item(t, hf_projid, tvb, MB(mbo_projid), enc), FLPROJID);
	proto_tree_add_item(t, hf_dom_size, tvb, MB(mbo_dom_size), enc);
	proto_tree_add_item(t, hf_dom_blocks, tvb, MB(mbo_dom_blocks), enc);
	MV(lnetcap_add_secs(t, hf_btime, tvb, off + LNETCAP_OFF(struct lnetcap_mdt_body, mbo_btime), enc), FLBTIME);
	proto_tree_add_item(t, hf_padding_9, tvb, MB(mbo_xattr_absent), enc);
}

/* A NUL-terminated string buffer (RMF_NAME, RMF_SYMTGT); returns it. */
const char *lnetcap_mdt_name(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			     lnetcap_pkt_t *pkt, guint i, int hf)
{
	guint32 off, len;
	const guint8 *s = NULL;
	if (!lnetcap_rpc_buf(pkt, i, &off, &len) || len == 0)
		return NULL;
	if ((guint64)off + len > tvb_captured_length(tvb)) {
		proto_tree_add_expert_format(tree, pinfo, &ei_name, tvb, lnetcap_clamp(tvb, off), 0,
			"Name in buffer %u was not captured (snap length)", i);
		return NULL;
	}
	proto_tree_add_item_ret_string(tree, hf ? hf : hf_name, tvb, (gint)off, (gint)len,
				       ENC_UTF_8 | ENC_NA, pinfo->pool, &s);
	return (const char *)s;
}

static void add_time(proto_tree *t, int hf, tvbuff_t *tvb, guint32 off, guint enc)
{
	lnetcap_add_secs(t, hf, tvb, off, enc);
}

/* The reint record of buffer i; returns rr_opcode (0 when absent). */
guint32 lnetcap_mdt_reint(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt,
			  guint i)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, op;
	proto_item *ti;
	proto_tree *t;
	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, i,
					     sizeof(struct lnetcap_mdt_rec_reint), ett_reint,
					     "mdt_rec_reint", &t, &off))
		return 0;
	ti = proto_tree_get_parent(t);
	proto_tree_add_item_ret_uint(t, hf_r_opcode, tvb, RR(rr_opcode), enc, &op);
	proto_item_append_text(ti, ": %s", val_to_str(op, lnetcap_reint_vals, "op %u"));
	proto_tree_add_item(t, hf_r_cap, tvb, RR(rr_cap), enc);
	proto_tree_add_item(t, hf_r_fsuid, tvb, RR(rr_fsuid), enc);
	proto_tree_add_item(t, hf_r_fsgid, tvb, RR(rr_fsgid), enc);
	proto_tree_add_item(t, hf_r_suppgid1, tvb, RR(rr_suppgid1), enc);
	/* mdt_rec_setattr has sa_padding_1 where the others have suppgid2. */
	proto_tree_add_item(t, op == LNETCAP_REINT_SETATTR ? hf_sa_padding_1 : hf_r_suppgid2, tvb,
			    RR(rr_suppgid2), enc);
	lnetcap_add_fid(t, tvb, pinfo, AT(reint, rr_fid1), enc, hf_r_fid1, NULL);
	/* Variant fields after byte 40 (bodies.h setattr, mdt_reint.h). */
	switch (op) {
	case LNETCAP_REINT_SETATTR:
		proto_tree_add_item(t, hf_r_valid, tvb, VF(setattr, sa_valid), enc);
		proto_tree_add_item(t, hf_r_uid, tvb, VF(setattr, sa_uid), enc);
		proto_tree_add_item(t, hf_r_gid, tvb, VF(setattr, sa_gid), enc);
		proto_tree_add_item(t, hf_r_size, tvb, VF(setattr, sa_size), enc);
		proto_tree_add_item(t, hf_r_blocks, tvb, VF(setattr, sa_blocks), enc);
		add_time(t, hf_r_mtime, tvb, AT(setattr, sa_mtime), enc);
		add_time(t, hf_r_atime, tvb, AT(setattr, sa_atime), enc);
		add_time(t, hf_r_ctime, tvb, AT(setattr, sa_ctime), enc);
		proto_tree_add_item(t, hf_r_attr_flags, tvb, VF(setattr, sa_attr_flags), enc);
		proto_tree_add_item(t, hf_r_mode, tvb, VF(setattr, sa_mode), enc);
		proto_tree_add_item(t, hf_r_bias, tvb, VF(setattr, sa_bias), enc);
		proto_tree_add_item(t, hf_r_projid, tvb, VF(setattr, sa_projid), enc);
		break;
	case LNETCAP_REINT_CREATE:
	case LNETCAP_REINT_OPEN:
		lnetcap_add_fid(t, tvb, pinfo, AT(create, cr_fid2), enc, hf_r_fid2, NULL);
		add_time(t, hf_r_time, tvb, AT(create, cr_time), enc);
		proto_tree_add_item(t, hf_r_rdev, tvb, VF(create, cr_rdev), enc);
		proto_tree_add_item(t, hf_r_mode, tvb, VF(create, cr_mode), enc);
		proto_tree_add_item(t, hf_r_bias, tvb, VF(create, cr_bias), enc);
		proto_tree_add_item(t, hf_r_flags, tvb, VF(create, cr_flags_l), enc);
		proto_tree_add_item(t, hf_r_flags_h, tvb, VF(create, cr_flags_h), enc);
		proto_tree_add_item(t, hf_r_umask, tvb, VF(create, cr_umask), enc);
		break;
	case LNETCAP_REINT_LINK:
	case LNETCAP_REINT_UNLINK:
	case LNETCAP_REINT_RMENTRY:
	case LNETCAP_REINT_RENAME:
	case LNETCAP_REINT_MIGRATE:
		/* One shape for the three (mdt_reint.h asserts it); link pads the mode. */
		lnetcap_add_fid(t, tvb, pinfo, AT(unlink, ul_fid2), enc, hf_r_fid2, NULL);
		add_time(t, hf_r_time, tvb, AT(unlink, ul_time), enc);
		proto_tree_add_item(t, hf_r_bias, tvb, VF(unlink, ul_bias), enc);
		if (op != LNETCAP_REINT_LINK)
			proto_tree_add_item(t, hf_r_mode, tvb, VF(unlink, ul_mode), enc);
		break;
	case LNETCAP_REINT_SETXATTR:
		proto_tree_add_item(t, hf_r_valid, tvb, VF(setxattr, sx_valid), enc);
		add_time(t, hf_r_time, tvb, AT(setxattr, sx_time), enc);
		proto_tree_add_item(t, hf_r_size, tvb, VF(setxattr, sx_size), enc);
		proto_tree_add_item(t, hf_r_flags, tvb, VF(setxattr, sx_flags), enc);
		break;
	default:
		lnetcap_add_fid(t, tvb, pinfo, AT(reint, rr_fid2), enc, hf_r_fid2, NULL);
		add_time(t, hf_r_mtime, tvb, AT(reint, rr_mtime), enc);
		add_time(t, hf_r_atime, tvb, AT(reint, rr_atime), enc);
		add_time(t, hf_r_ctime, tvb, AT(reint, rr_ctime), enc);
		proto_tree_add_item(t, hf_r_size, tvb, RR(rr_size), enc);
		proto_tree_add_item(t, hf_r_blocks, tvb, RR(rr_blocks), enc);
		proto_tree_add_item(t, hf_r_bias, tvb, RR(rr_bias), enc);
		proto_tree_add_item(t, hf_r_mode, tvb, RR(rr_mode), enc);
		proto_tree_add_item(t, hf_r_flags, tvb, RR(rr_flags), enc);
		proto_tree_add_item(t, hf_r_flags_h, tvb, RR(rr_flags_h), enc);
		proto_tree_add_item(t, hf_r_umask, tvb, RR(rr_umask), enc);
		break;
	}
	return op;
}

/* The named buffers that follow a reint record (or an open intent, whose
 * buffers are those of MDS_REINT's format moved by shift): where each is,
 * the format of MDS_REINT for rr_opcode op says (rpc_formats.h). */
void lnetcap_mdt_reint_names(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			     lnetcap_pkt_t *pkt, guint32 op, guint shift)
{
#define SLOT(kind) lnetcap_rpc_index_sel(LNETCAP_OPC_MDS_REINT, FALSE, op, LNETCAP_RMF_##kind)
	const guint name_i = SLOT(NAME), name2_i = SLOT(SYMTGT), eadata_i = SLOT(EADATA);
	const guint dlm_i = SLOT(DLM_REQ);
#undef SLOT
	const char *name = NULL, *name2 = NULL;

	if (name_i != LNETCAP_RPC_NO_BUF)
		name = lnetcap_mdt_name(tvb, pinfo, tree, pkt, name_i + shift, hf_name);
	if (name2_i != LNETCAP_RPC_NO_BUF)
		name2 = lnetcap_mdt_name(tvb, pinfo, tree, pkt, name2_i + shift, hf_new_name);
	if (eadata_i != LNETCAP_RPC_NO_BUF) {
		guint32 off, len;
		if (lnetcap_rpc_buf(pkt, eadata_i + shift, &off, &len) && len &&
		    (guint64)off + len <= tvb_captured_length(tvb))
			proto_tree_add_item(tree, hf_eadata, tvb, (gint)off, (gint)len, ENC_NA);
	}
	if (name && name[0])
		col_append_fstr(pinfo->cinfo, COL_INFO, " \"%s\"", name);
	if (name2 && name2[0])
		col_append_fstr(pinfo->cinfo, COL_INFO, " -> \"%s\"", name2);
	/* Only MDS_REINT itself carries one; an intent's records do not. */
	if (dlm_i != LNETCAP_RPC_NO_BUF && shift == 0) {
		guint32 n = lnetcap_elc(tvb, pinfo, tree, pkt, dlm_i);
		if (n)
			col_append_fstr(pinfo->cinfo, COL_INFO, " (cancels %u lock%s)", n,
					n == 1 ? "" : "s");
	}
}

/* mdt_ioepoch (RMF_MDT_EPOCH of MDS_CLOSE): the same 24 bytes in 2.15,
 * 2.16 and 2.17 (lustre_idl.h); only the open handle is still used. */
static void dissect_ioepoch(tvbuff_t *tvb, proto_tree *t, guint32 off, guint enc)
{
#define IO(f) (gint)off + LNETCAP_OFF(struct lnetcap_mdt_ioepoch, f), LNETCAP_LEN(struct lnetcap_mdt_ioepoch, f)
	proto_tree_add_item(t, hf_epoch_handle, tvb, IO(mio_open_handle), enc);
	proto_tree_add_item(t, hf_epoch_unused1, tvb, IO(mio_unused1), enc);
	proto_tree_add_item(t, hf_epoch_unused2, tvb, IO(mio_unused2), enc);
	proto_tree_add_item(t, hf_epoch_padding, tvb, IO(mio_padding), enc);
#undef IO
}

/* MDS_SWAP_LAYOUTS request: the two files (mdt_body), the swap flags and
 * the locks cancelled with it (lfs swap_layouts, HSM release/restore). */
static void dissect_swap_layouts(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
				 lnetcap_pkt_t *pkt)
{
	static int *const flag_bits[] = { &hf_swap_check_dv1, &hf_swap_check_dv2, &hf_swap_keep_mtime,
					  &hf_swap_keep_atime, &hf_swap_close, &hf_swap_mds_release, NULL };
	guint32 off, n;
	proto_tree *t;

	lnetcap_mdt_body(tvb, pinfo, tree, pkt, LNETCAP_SWAP_LAYOUTS_REQ_MDT_BODY);
	if (lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, LNETCAP_SWAP_LAYOUTS_REQ_SWAP,
				 sizeof(struct lnetcap_mdc_swap_layouts), ett_swap, "mdc_swap_layouts",
				 &t, &off))
		proto_tree_add_bitmask(t, tvb, off, hf_swap_flags, ett_swap_flags, flag_bits,
				       pkt->rpc.encoding);
	n = lnetcap_elc(tvb, pinfo, tree, pkt, LNETCAP_SWAP_LAYOUTS_REQ_DLM_REQ);
	if (n)
		col_append_fstr(pinfo->cinfo, COL_INFO, " (cancels %u lock%s)", n, n == 1 ? "" : "s");
}

/* Which buffer holds the mdt_body, the reint record, the name...: the
 * opcode's format says (include/lnetcap/rpc_formats.h, LNETCAP_BUF). */
static void dissect_mdt_rpc(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt)
{
	gboolean request = pkt->rpc.pb_type == LNETCAP_PTL_RPC_MSG_REQUEST;
	guint32 op;

	switch (pkt->rpc.opc) {
	case LNETCAP_OPC_MDS_REINT:
		if (!request) {
			lnetcap_mdt_body(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, MDT_BODY));
			/* Open and setattr replies: RMF_ACL (OBD_MD_FLACL set). */
			lnetcap_mdt_acl(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, MDT_BODY), LNETCAP_MDT_REP_ACL);
			break;
		}
		op = lnetcap_mdt_reint(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, REC_REINT));
		if (op)
			col_append_fstr(pinfo->cinfo, COL_INFO, " %s",
					val_to_str(op, lnetcap_reint_vals, "op %u"));
		lnetcap_mdt_reint_names(tvb, pinfo, tree, pkt, op, 0);
		break;
	case LNETCAP_OPC_MDS_CLOSE:
		if (request) {
			guint32 off;
			proto_tree *t;
			if (lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, MDT_EPOCH),
				sizeof(struct lnetcap_mdt_ioepoch), ett_epoch, "mdt_ioepoch", &t, &off))
				dissect_ioepoch(tvb, t, off, pkt->rpc.encoding);
			lnetcap_mdt_reint(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, REC_REINT));
		} else {
			lnetcap_mdt_body(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, MDT_BODY));
		}
		break;
	case LNETCAP_OPC_MDS_GETATTR_NAME:
		lnetcap_mdt_body(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, MDT_BODY));
		if (request) {
			const char *name = lnetcap_mdt_name(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, NAME), hf_name);
			if (name && name[0])
				col_append_fstr(pinfo->cinfo, COL_INFO, " \"%s\"", name);
		} else {
			lnetcap_mdt_acl(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, MDT_BODY), LNETCAP_MDT_REP_ACL);
		}
		break;
	case LNETCAP_OPC_MDS_GETATTR:
		lnetcap_mdt_body(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, MDT_BODY));
		if (!request)
			lnetcap_mdt_acl(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, MDT_BODY), LNETCAP_MDT_REP_ACL);
		break;
	case LNETCAP_OPC_MDS_GETXATTR:
		lnetcap_mdt_body(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, MDT_BODY));
		if (request)
			lnetcap_getxattr_request(tvb, pinfo, tree, pkt);
		else
			lnetcap_getxattr_reply(tvb, pinfo, tree, pkt);
		break;
	case LNETCAP_OPC_MDS_READPAGE:
	case LNETCAP_OPC_MDS_SYNC:
	case LNETCAP_OPC_MDS_GET_ROOT:
		lnetcap_mdt_body(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, MDT_BODY));
		break;
	case LNETCAP_OPC_MDS_STATFS:
		if (!request)
			lnetcap_obd_statfs(tvb, pinfo, tree, pkt);
		break;
	case LNETCAP_OPC_MDS_SWAP_LAYOUTS:
		if (request)
			dissect_swap_layouts(tvb, pinfo, tree, pkt);
		break;
	}
}

static int dissect_mdt(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	lnetcap_pkt_t *pkt = (lnetcap_pkt_t *)data;
	dissect_mdt_rpc(tvb, pinfo, lnetcap_body_tree(tvb, pinfo, tree, proto_mdt, ett_mdt, pkt), pkt);
	return (int)tvb_captured_length(tvb);
}

void lnetcap_handoff_mdt(void)
{
	static const guint32 opcodes[] = {
		LNETCAP_OPC_MDS_REINT,
		LNETCAP_OPC_MDS_CLOSE,
		LNETCAP_OPC_MDS_GETATTR_NAME,
		LNETCAP_OPC_MDS_GETATTR,
		LNETCAP_OPC_MDS_READPAGE,
		LNETCAP_OPC_MDS_SYNC,
		LNETCAP_OPC_MDS_GETXATTR,
		LNETCAP_OPC_MDS_GET_ROOT,
		LNETCAP_OPC_MDS_STATFS,
		LNETCAP_OPC_MDS_SWAP_LAYOUTS,
	};
	lnetcap_body_register(proto_mdt, dissect_mdt, opcodes, array_length(opcodes));
}

void lnetcap_register_mdt(void)
{
	static hf_register_info hf[] = {
		{ &hf_fid1, { "FID 1", "lnetcap.mdt.fid1", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_fid2, { "FID 2", "lnetcap.mdt.fid2", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_open_handle, { "Open handle", "lnetcap.mdt.open_handle", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_valid, { "Valid", "lnetcap.mdt.valid", FT_UINT64, BASE_HEX, NULL, 0, "OBD_MD_* bits", HFILL } },
		{ &hf_size, { "Size", "lnetcap.mdt.size", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_mtime, { "Mtime", "lnetcap.mdt.mtime", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0, NULL, HFILL } },
		{ &hf_atime, { "Atime", "lnetcap.mdt.atime", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0, NULL, HFILL } },
		{ &hf_ctime, { "Ctime", "lnetcap.mdt.ctime", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0, NULL, HFILL } },
		{ &hf_blocks, { "Blocks", "lnetcap.mdt.blocks", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_version, { "Version", "lnetcap.mdt.version", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_t_state, { "T state", "lnetcap.mdt.t_state", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_fsuid, { "FS UID", "lnetcap.mdt.fsuid", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_fsgid, { "FS GID", "lnetcap.mdt.fsgid", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_capability, { "Capability", "lnetcap.mdt.capability", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_mode, { "Mode", "lnetcap.mdt.mode", FT_UINT32, BASE_OCT, NULL, 0, NULL, HFILL } },
		{ &hf_uid, { "UID", "lnetcap.mdt.uid", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_gid, { "GID", "lnetcap.mdt.gid", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_flags, { "Flags", "lnetcap.mdt.flags", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_rdev, { "Rdev", "lnetcap.mdt.rdev", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_nlink, { "Links", "lnetcap.mdt.nlink", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_layout_gen, { "Layout generation", "lnetcap.mdt.layout_gen", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_suppgid, { "Supplementary GID", "lnetcap.mdt.suppgid", FT_UINT32, BASE_DEC|BASE_SPECIAL_VALS, VALS(lnetcap_u32_none_vals), 0, NULL, HFILL } },
		{ &hf_eadatasize, { "EA data size", "lnetcap.mdt.eadatasize", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_aclsize, { "ACL size", "lnetcap.mdt.aclsize", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_max_mdsize, { "Max MD size", "lnetcap.mdt.max_mdsize", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_uid_h, { "UID high", "lnetcap.mdt.uid_h", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_gid_h, { "GID high", "lnetcap.mdt.gid_h", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_projid, { "Project id", "lnetcap.mdt.projid", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_dom_size, { "DoM size", "lnetcap.mdt.dom_size", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_dom_blocks, { "DoM blocks", "lnetcap.mdt.dom_blocks", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_btime, { "Btime", "lnetcap.mdt.btime", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0, NULL, HFILL } },
		{ &hf_padding_9, { "Padding 9", "lnetcap.mdt.padding_9", FT_UINT64, BASE_HEX, NULL, 0,
		  "mbo_padding_9 in Lustre 2.16 (the layout this plugin follows); "
		  "Lustre 2.17 puts mbo_xattr_absent here", HFILL } },
		{ &hf_swap_flags, { "Swap flags", "lnetcap.mdt.swap_layouts.flags", FT_UINT64, BASE_HEX, NULL, 0,
		  "msl_flags of mdc_swap_layouts", HFILL } },
		{ &hf_swap_check_dv1, { "Check data version 1", "lnetcap.mdt.swap_layouts.check_dv1", FT_BOOLEAN, 64, NULL,
		  LNETCAP_SWAP_LAYOUTS_CHECK_DV1, "SWAP_LAYOUTS_CHECK_DV1", HFILL } },
		{ &hf_swap_check_dv2, { "Check data version 2", "lnetcap.mdt.swap_layouts.check_dv2", FT_BOOLEAN, 64, NULL,
		  LNETCAP_SWAP_LAYOUTS_CHECK_DV2, "SWAP_LAYOUTS_CHECK_DV2", HFILL } },
		{ &hf_swap_keep_mtime, { "Keep mtime", "lnetcap.mdt.swap_layouts.keep_mtime", FT_BOOLEAN, 64, NULL,
		  LNETCAP_SWAP_LAYOUTS_KEEP_MTIME, "SWAP_LAYOUTS_KEEP_MTIME", HFILL } },
		{ &hf_swap_keep_atime, { "Keep atime", "lnetcap.mdt.swap_layouts.keep_atime", FT_BOOLEAN, 64, NULL,
		  LNETCAP_SWAP_LAYOUTS_KEEP_ATIME, "SWAP_LAYOUTS_KEEP_ATIME", HFILL } },
		{ &hf_swap_close, { "Close", "lnetcap.mdt.swap_layouts.close", FT_BOOLEAN, 64, NULL,
		  LNETCAP_SWAP_LAYOUTS_CLOSE, "SWAP_LAYOUTS_CLOSE", HFILL } },
		{ &hf_swap_mds_release, { "MDS release", "lnetcap.mdt.swap_layouts.mds_release", FT_BOOLEAN, 64, NULL,
		  LNETCAP_SWAP_LAYOUTS_MDS_RELEASE, "SWAP_LAYOUTS_MDS_RELEASE (HSM release)", HFILL } },
		{ &hf_epoch_handle, { "Open handle", "lnetcap.mdt.ioepoch.open_handle", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_epoch_unused1, { "Unused 1", "lnetcap.mdt.ioepoch.unused1", FT_UINT64, BASE_HEX, NULL, 0,
		  "mio_unused1 (was the IO epoch), 2.15-2.17", HFILL } },
		{ &hf_epoch_unused2, { "Unused 2", "lnetcap.mdt.ioepoch.unused2", FT_UINT32, BASE_HEX, NULL, 0,
		  "mio_unused2 (were flags), 2.15-2.17", HFILL } },
		{ &hf_epoch_padding, { "Padding", "lnetcap.mdt.ioepoch.padding", FT_UINT32, BASE_HEX, NULL, 0,
		  "mio_padding, 2.15-2.17", HFILL } },
		{ &hf_r_opcode, { "Reint opcode", "lnetcap.mdt.reint.opcode", FT_UINT32, BASE_DEC, VALS(lnetcap_reint_vals), 0, NULL, HFILL } },
		{ &hf_r_cap, { "Capabilities", "lnetcap.mdt.reint.cap", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_r_fsuid, { "FS UID", "lnetcap.mdt.reint.fsuid", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_r_fsgid, { "FS GID", "lnetcap.mdt.reint.fsgid", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_r_suppgid1, { "Supplementary GID 1", "lnetcap.mdt.reint.suppgid1", FT_UINT32, BASE_DEC|BASE_SPECIAL_VALS, VALS(lnetcap_u32_none_vals), 0, NULL, HFILL } },
		{ &hf_r_suppgid2, { "Supplementary GID 2", "lnetcap.mdt.reint.suppgid2", FT_UINT32, BASE_DEC|BASE_SPECIAL_VALS, VALS(lnetcap_u32_none_vals), 0, NULL, HFILL } },
		{ &hf_sa_padding_1, { "Padding 1", "lnetcap.mdt.reint.sa_padding_1", FT_UINT32, BASE_HEX, NULL, 0,
		  "mdt_rec_setattr sa_padding_1 (Lustre 2.16 and 2.17), where other records have suppgid2", HFILL } },
		{ &hf_r_fid1, { "FID 1", "lnetcap.mdt.reint.fid1", FT_STRING, BASE_NONE, NULL, 0, "Object, or parent directory", HFILL } },
		{ &hf_r_fid2, { "FID 2", "lnetcap.mdt.reint.fid2", FT_STRING, BASE_NONE, NULL, 0, "Child, or target directory", HFILL } },
		{ &hf_r_time, { "Time", "lnetcap.mdt.reint.time", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0, NULL, HFILL } },
		{ &hf_r_mtime, { "Mtime", "lnetcap.mdt.reint.mtime", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0, NULL, HFILL } },
		{ &hf_r_atime, { "Atime", "lnetcap.mdt.reint.atime", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0, NULL, HFILL } },
		{ &hf_r_ctime, { "Ctime", "lnetcap.mdt.reint.ctime", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0, NULL, HFILL } },
		{ &hf_r_size, { "Size", "lnetcap.mdt.reint.size", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_r_blocks, { "Blocks", "lnetcap.mdt.reint.blocks", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_r_bias, { "Bias", "lnetcap.mdt.reint.bias", FT_UINT32, BASE_HEX, NULL, 0, "mds_op_bias", HFILL } },
		{ &hf_r_mode, { "Mode", "lnetcap.mdt.reint.mode", FT_UINT32, BASE_OCT, NULL, 0, NULL, HFILL } },
		{ &hf_r_flags, { "Flags", "lnetcap.mdt.reint.flags", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_r_flags_h, { "Flags high", "lnetcap.mdt.reint.flags_h", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_r_umask, { "Umask", "lnetcap.mdt.reint.umask", FT_UINT32, BASE_OCT, NULL, 0, NULL, HFILL } },
		{ &hf_r_rdev, { "Rdev", "lnetcap.mdt.reint.rdev", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_r_valid, { "Valid", "lnetcap.mdt.reint.valid", FT_UINT64, BASE_HEX, NULL, 0, "MDS_ATTR_* (setattr) or OBD_MD_* (setxattr)", HFILL } },
		{ &hf_r_uid, { "UID", "lnetcap.mdt.reint.uid", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_r_gid, { "GID", "lnetcap.mdt.reint.gid", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_r_attr_flags, { "Attr flags", "lnetcap.mdt.reint.attr_flags", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_r_projid, { "Project id", "lnetcap.mdt.reint.projid", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_name, { "Name", "lnetcap.mdt.name", FT_STRINGZ, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_new_name, { "New name", "lnetcap.mdt.new_name", FT_STRINGZ, BASE_NONE, NULL, 0, "Target name of a rename", HFILL } },
		{ &hf_eadata, { "EA data", "lnetcap.mdt.eadata", FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL } },
	};
	static gint *ett[] = { &ett_mdt, &ett_mdt_body, &ett_epoch, &ett_reint, &ett_swap, &ett_swap_flags };
	int proto;
	static ei_register_info ei[] = {
		{ &ei_name, { "lnetcap.mdt.name.truncated", PI_UNDECODED, PI_NOTE,
		  "Name cut by the snap length", EXPFILL } },
	};
	expert_module_t *em;

	proto_mdt = proto_register_protocol("Lustre MDT (lnetcap)", "MDT", "lnetcap.mdt");
	proto = proto_mdt;
	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto);
	expert_register_field_array(em, ei, array_length(ei));
	lnetcap_register_xattr(proto);
	lnetcap_register_dom(proto);
}
