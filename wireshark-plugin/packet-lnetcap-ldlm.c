/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap-ldlm.c - LDLM bodies (docs/protocol.md 4.2/4.3): ldlm_request
 * and ldlm_reply with their lock descriptor (resource id and its FID,
 * modes, extent/inodebits/flock policy, flags, handles), the enqueue
 * intent and what follows it (mdt_body, reint record, name), and the
 * ost_lvb of enqueue replies and completion callbacks.
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "packet-lnetcap.h"
#include "lnetcap-formats.h"
#include "lnetcap-vals.h"
#include "lnetcap/bodies.h"
#include "lnetcap/ptlrpc.h"

#define LD(f) LNETCAP_OFF(struct lnetcap_ldlm_lock_desc, f)

static int proto_ldlm = -1;
static gint ett_ldlm = -1;
static int hf_lock_count = -1;
static int hf_lock = -1;
static int hf_res_type = -1;
static int hf_res_name = -1;
static int hf_res_fid = -1;
static int hf_req_mode = -1;
static int hf_granted_mode = -1;
static int hf_ext_start = -1;
static int hf_ext_end = -1;
static int hf_ext_gid = -1;
static int hf_ib_try_bits = -1;
static int hf_ib_gid = -1;
static int hf_ib_initiator = -1;
static int hf_fl_start = -1;
static int hf_fl_end = -1;
static int hf_fl_owner = -1;
static int hf_fl_pid = -1;
static int hf_handle = -1;
static int hf_rep_handle = -1;
static int hf_policy_res1 = -1;
static int hf_policy_res2 = -1;
static int hf_lvb_size = -1;
static int hf_lvb_mtime = -1;
static int hf_lvb_atime = -1;
static int hf_lvb_ctime = -1;
static int hf_lvb_blocks = -1;
static int hf_qlvb_flags = -1;
static int hf_qlvb_may_rel = -1;
static int hf_qlvb_rel = -1;
static int hf_qlvb_qunit = -1;

static gint ett_req = -1;
static gint ett_lock = -1;
static gint ett_intent = -1;
static gint ett_lvb = -1;

static lnetcap_flagset_t fs_lock_flags = LNETCAP_FLAGSET(
	"lnetcap.ldlm.flags", "Lock flags", 32, lnetcap_ldlm_flag_defs, lnetcap_ldlm_flag_count);
static lnetcap_flagset_t fs_ibits = LNETCAP_FLAGSET(
	"lnetcap.ldlm.inodebits", "Inode bits", 64, lnetcap_inodelock_defs, lnetcap_inodelock_count);
static lnetcap_flagset_t fs_disp = LNETCAP_FLAGSET(
	"lnetcap.ldlm.disposition", "Intent disposition (DISP_*)", 64, lnetcap_disp_defs,
	lnetcap_disp_count);
static lnetcap_flagset_t fs_intent = LNETCAP_FLAGSET(
	"lnetcap.ldlm.intent", "Intent", 64, lnetcap_intent_defs, lnetcap_intent_count);

/* FID_SEQ_START..: resources named after a FID are [f_seq, ver<<32|oid]. */
#define FID_SEQ_START 0x200000000ULL

/* What selects the LVB's type: the lock's resource type and inode bits. */
typedef struct {
	guint32 type;
	guint64 ibits;
} lock_kind_t;

/* Adds an ldlm_lock_desc; the Info column gets the requested mode, or the
 * granted one for replies (what the server actually gave). */
static void dissect_lock_desc(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint off,
			      guint enc, gboolean append_info, gboolean reply, lock_kind_t *kind)
{
	proto_item *ti = proto_tree_add_item(tree, hf_lock, tvb, (gint)off,
					     sizeof(struct lnetcap_ldlm_lock_desc), ENC_NA);
	proto_tree *t = proto_item_add_subtree(ti, ett_lock);
	guint32 type, req_mode, granted_mode, info_mode;
	guint64 name[4];
	guint pol = off + LD(l_policy_data);

	guint name_off = off + LD(l_resource) + LNETCAP_OFF(struct lnetcap_ldlm_resource_desc, lr_name);

	proto_tree_add_item_ret_uint(t, hf_res_type, tvb, LNETCAP_FIELD(off, lnetcap_ldlm_resource_desc, lr_type),
				     enc, &type);
	kind->type = type;
	kind->ibits = type == LNETCAP_LDLM_IBITS ? tvb_get_guint64(tvb, pol, enc) : 0;
	for (int k = 0; k < 4; k++) {
		name[k] = tvb_get_guint64(tvb, name_off + 8 * k, enc);
		proto_tree_add_item(t, hf_res_name, tvb, (gint)(name_off + 8 * k), 8, enc);
	}
	if (name[0] >= FID_SEQ_START) {
		const char *fid = wmem_strdup_printf(pinfo->pool, "[0x%" G_GINT64_MODIFIER "x:0x%x:0x%x]",
			name[0], (guint32)name[1], (guint32)(name[1] >> 32));
		/* name[0..1] hold the FID (fid_build_reg_res_name()). */
		proto_item *it = proto_tree_add_string(t, hf_res_fid, tvb, (gint)name_off,
						       sizeof(struct lnetcap_lu_fid), fid);
		proto_item_set_generated(it);
		lnetcap_add_any_fid(t, tvb, name_off, fid);
	}
	proto_tree_add_item_ret_uint(t, hf_req_mode, tvb, (gint)off + LD(l_req_mode), 4, enc, &req_mode);
	proto_tree_add_item_ret_uint(t, hf_granted_mode, tvb, (gint)off + LD(l_granted_mode), 4, enc,
				     &granted_mode);
	switch (type) {
	case LNETCAP_LDLM_EXTENT:
		proto_tree_add_item(t, hf_ext_start, tvb, LNETCAP_FIELD(pol, lnetcap_ldlm_extent, start), enc);
		proto_tree_add_item(t, hf_ext_end, tvb, LNETCAP_FIELD(pol, lnetcap_ldlm_extent, end), enc);
		proto_tree_add_item(t, hf_ext_gid, tvb, LNETCAP_FIELD(pol, lnetcap_ldlm_extent, gid), enc);
		break;
	case LNETCAP_LDLM_IBITS:
		lnetcap_flagset_add(t, tvb, (gint)pol, enc, &fs_ibits);
		proto_tree_add_item(t, hf_ib_try_bits, tvb, LNETCAP_FIELD(pol, lnetcap_ldlm_inodebits, try_bits), enc);
		proto_tree_add_item(t, hf_ib_gid, tvb, LNETCAP_FIELD(pol, lnetcap_ldlm_inodebits, li_gid), enc);
		proto_tree_add_item(t, hf_ib_initiator, tvb,
				    LNETCAP_FIELD(pol, lnetcap_ldlm_inodebits, li_initiator_id), enc);
		break;
	case LNETCAP_LDLM_FLOCK:
		proto_tree_add_item(t, hf_fl_start, tvb, LNETCAP_FIELD(pol, lnetcap_ldlm_flock, lfw_start), enc);
		proto_tree_add_item(t, hf_fl_end, tvb, LNETCAP_FIELD(pol, lnetcap_ldlm_flock, lfw_end), enc);
		proto_tree_add_item(t, hf_fl_owner, tvb, LNETCAP_FIELD(pol, lnetcap_ldlm_flock, lfw_owner), enc);
		proto_tree_add_item(t, hf_fl_pid, tvb, LNETCAP_FIELD(pol, lnetcap_ldlm_flock, lfw_pid), enc);
		break;
	default:
		break;
	}
	proto_item_append_text(ti, ": %s %s", val_to_str(type, lnetcap_ldlm_type_vals, "type %u"),
			       val_to_str(req_mode, lnetcap_ldlm_mode_vals, "mode %u"));
	info_mode = reply ? granted_mode : req_mode;
	if (append_info && info_mode)
		col_append_fstr(pinfo->cinfo, COL_INFO, " %s %s",
				val_to_str(info_mode, lnetcap_ldlm_mode_vals, "mode %u"),
				val_to_str(type, lnetcap_ldlm_type_vals, "type %u"));
}

/* ldlm_request in buffer 1; returns its lock_flags. */
static guint32 dissect_request(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			       lnetcap_pkt_t *pkt, lock_kind_t *kind)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, flags, len, nh;
	proto_tree *t;
	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, 1,
					     sizeof(struct lnetcap_ldlm_request), ett_req,
					     "ldlm_request", &t, &off))
		return 0;
	len = pkt->rpc.buf_len[1];
	flags = tvb_get_guint32(tvb, LNETCAP_AT(off, lnetcap_ldlm_request, lock_flags), enc);
	lnetcap_flagset_add(t, tvb, (gint)LNETCAP_AT(off, lnetcap_ldlm_request, lock_flags), enc, &fs_lock_flags);
	proto_tree_add_item(t, hf_lock_count, tvb, LNETCAP_FIELD(off, lnetcap_ldlm_request, lock_count), enc);
	dissect_lock_desc(tvb, pinfo, t, LNETCAP_AT(off, lnetcap_ldlm_request, lock_desc), enc, TRUE, FALSE, kind);
	/* Handles: every slot the buffer holds (at least LDLM_LOCKREQ_HANDLES),
	 * whatever lock_count says: callbacks carry the lock's handle in slot 0
	 * with lock_count 0 or 1 (ldlm_lockd.c), enqueues and cancels add
	 * early-cancelled locks after it (ldlm_request.c). */
	nh = (len - sizeof(struct lnetcap_ldlm_request)) / 8;
	for (guint32 k = 0; k < nh; k++) {
		guint ho = off + sizeof(struct lnetcap_ldlm_request) + 8 * k;
		if (ho + 8 > tvb_captured_length(tvb))
			break;
		proto_tree_add_item(t, hf_handle, tvb, (gint)ho, 8, enc);
	}
	return flags;
}

static void dissect_reply(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt,
			  lock_kind_t *kind)
{
	guint enc = pkt->rpc.encoding;
	guint32 off;
	proto_tree *t;
	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, 1,
					     sizeof(struct lnetcap_ldlm_reply), ett_req,
					     "ldlm_reply", &t, &off))
		return;
	lnetcap_flagset_add(t, tvb, (gint)LNETCAP_AT(off, lnetcap_ldlm_reply, lock_flags), enc, &fs_lock_flags);
	dissect_lock_desc(tvb, pinfo, t, LNETCAP_AT(off, lnetcap_ldlm_reply, lock_desc), enc, TRUE, TRUE, kind);
	proto_tree_add_item(t, hf_rep_handle, tvb, (gint)off + LNETCAP_OFF(struct lnetcap_ldlm_reply, lock_handle), 8, enc);
	proto_tree_add_item(t, hf_policy_res1, tvb, (gint)off + LNETCAP_OFF(struct lnetcap_ldlm_reply, lock_policy_res1), 8, enc);
	/* On the MDT (inode-bits locks) it is the intent's outcome. */
	if (kind->type == LNETCAP_LDLM_IBITS)
		lnetcap_flagset_add(t, tvb, (gint)off + LNETCAP_OFF(struct lnetcap_ldlm_reply, lock_policy_res1),
				    enc, &fs_disp);
	proto_tree_add_item(t, hf_policy_res2, tvb, (gint)off + LNETCAP_OFF(struct lnetcap_ldlm_reply, lock_policy_res2), 8, enc);
}

/* An LVB buffer, decoded by what the lock is (the client's l_lvb_type):
 * a layout lock (IBITS with the LAYOUT bit) carries a LOV layout, an
 * extent or DoM lock an ost_lvb, a quota lock (PLAIN, on the quota master)
 * an lquota_lvb.  kind NULL (a glimpse reply, which names no lock): ost_lvb
 * when the size says so. */
static void dissect_lvb(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt,
			guint i, const lock_kind_t *kind)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, len;
	proto_tree *t;
	if (!lnetcap_rpc_buf(pkt, i, &off, &len) || len == 0)
		return;
	if (kind && kind->type == LNETCAP_LDLM_IBITS && (kind->ibits & LNETCAP_MDS_INODELOCK_LAYOUT)) {
		lnetcap_lov_layout(tvb, pinfo, tree, off, len, enc, "LVB");
		return;
	}
	if (kind && kind->type == LNETCAP_LDLM_PLAIN && len == sizeof(struct lnetcap_lquota_lvb)) {
		if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, i, len, ett_lvb, "lquota_lvb", &t, &off))
			return;
		proto_tree_add_item(t, hf_qlvb_flags, tvb, LNETCAP_FIELD(off, lnetcap_lquota_lvb, lvb_flags), enc);
		proto_tree_add_item(t, hf_qlvb_may_rel, tvb, LNETCAP_FIELD(off, lnetcap_lquota_lvb, lvb_id_may_rel), enc);
		proto_tree_add_item(t, hf_qlvb_rel, tvb, LNETCAP_FIELD(off, lnetcap_lquota_lvb, lvb_id_rel), enc);
		proto_tree_add_item(t, hf_qlvb_qunit, tvb, LNETCAP_FIELD(off, lnetcap_lquota_lvb, lvb_id_qunit), enc);
		return;
	}
	if (kind && kind->type != LNETCAP_LDLM_EXTENT &&
	    !(kind->type == LNETCAP_LDLM_IBITS && (kind->ibits & LNETCAP_MDS_INODELOCK_DOM)))
		return;
	if (len != sizeof(struct lnetcap_ost_lvb))
		return;
	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, i, len, ett_lvb, "ost_lvb", &t, &off))
		return;
	proto_tree_add_item(t, hf_lvb_size, tvb, LNETCAP_FIELD(off, lnetcap_ost_lvb, lvb_size), enc);
	lnetcap_add_secs(t, hf_lvb_mtime, tvb, LNETCAP_AT(off, lnetcap_ost_lvb, lvb_mtime), enc);
	lnetcap_add_secs(t, hf_lvb_atime, tvb, LNETCAP_AT(off, lnetcap_ost_lvb, lvb_atime), enc);
	lnetcap_add_secs(t, hf_lvb_ctime, tvb, LNETCAP_AT(off, lnetcap_ost_lvb, lvb_ctime), enc);
	proto_tree_add_item(t, hf_lvb_blocks, tvb, LNETCAP_FIELD(off, lnetcap_ost_lvb, lvb_blocks), enc);
}

/* Where buffer kind is in an enqueue request whose intent has the bits sel
 * (include/lnetcap/rpc_formats.h's LDLM_INTENT_* formats). */
static guint intent_buf(guint32 sel, enum lnetcap_rmf kind)
{
	return lnetcap_rpc_index_sel(LNETCAP_OPC_LDLM_ENQUEUE, FALSE, sel, kind);
}

/* Intent enqueue (RQF_LDLM_INTENT_*): the ldlm_intent selects what follows.
 * Every intent format has it in the same place, so asking all of them
 * (every bit set) finds it before its bits are known. */
static gboolean dissect_intent(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt,
			       guint32 *opc)
{
	guint32 off;
	guint64 it;
	guint32 sel;
	proto_tree *t;
	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, intent_buf(G_MAXUINT32, LNETCAP_RMF_LDLM_INTENT),
				  sizeof(struct lnetcap_ldlm_intent), ett_intent, "ldlm_intent", &t, &off))
		return FALSE;
	it = tvb_get_guint64(tvb, LNETCAP_AT(off, lnetcap_ldlm_intent, opc), pkt->rpc.encoding);
	*opc = (guint32)it;
	lnetcap_flagset_add(t, tvb, (gint)off, pkt->rpc.encoding, &fs_intent);
	if ((sel = (guint32)(it & (LNETCAP_ITF_OPEN | LNETCAP_ITF_CREAT))) != 0) {
		/* The open's reint record and the buffers after it, as in an
		 * MDS_REINT open but further on. */
		guint rec = intent_buf(sel, LNETCAP_RMF_REC_REINT);
		guint shift = rec - lnetcap_rpc_index_sel(LNETCAP_OPC_MDS_REINT, FALSE, LNETCAP_REINT_OPEN,
							  LNETCAP_RMF_REC_REINT);
		guint32 op = lnetcap_mdt_reint(tvb, pinfo, tree, pkt, rec);
		col_append_str(pinfo->cinfo, COL_INFO, " intent open");
		lnetcap_mdt_reint_names(tvb, pinfo, tree, pkt, op ? op : LNETCAP_REINT_OPEN, shift);
	} else if ((sel = (guint32)(it & (LNETCAP_ITF_GETATTR | LNETCAP_ITF_LOOKUP))) != 0) {
		const char *name;
		col_append_str(pinfo->cinfo, COL_INFO,
			       it & LNETCAP_ITF_GETATTR ? " intent getattr" : " intent lookup");
		lnetcap_mdt_body(tvb, pinfo, tree, pkt, intent_buf(sel, LNETCAP_RMF_MDT_BODY));
		name = lnetcap_mdt_name(tvb, pinfo, tree, pkt, intent_buf(sel, LNETCAP_RMF_NAME), 0);
		if (name && name[0])
			col_append_fstr(pinfo->cinfo, COL_INFO, " \"%s\"", name);
	} else if (it & LNETCAP_ITF_GETXATTR) {
		col_append_str(pinfo->cinfo, COL_INFO, " intent getxattr");
		lnetcap_mdt_body(tvb, pinfo, tree, pkt, intent_buf(LNETCAP_ITF_GETXATTR, LNETCAP_RMF_MDT_BODY));
	} else if (it & LNETCAP_ITF_LAYOUT) {
		col_append_str(pinfo->cinfo, COL_INFO, " intent layout");
		lnetcap_layout_intent(tvb, pinfo, tree, pkt,
				      intent_buf(LNETCAP_ITF_LAYOUT, LNETCAP_RMF_LAYOUT_INTENT));
	} else if ((sel = (guint32)(it & (LNETCAP_ITF_QUOTA_DQACQ | LNETCAP_ITF_QUOTA_CONN))) != 0) {
		col_append_str(pinfo->cinfo, COL_INFO,
			       it & LNETCAP_ITF_QUOTA_DQACQ ? " intent quota_dqacq" : " intent quota_conn");
		lnetcap_quota_body(tvb, pinfo, tree, pkt, intent_buf(sel, LNETCAP_RMF_QUOTA_BODY));
	}
	return TRUE;
}

/* What buffer i of an LDLM_ENQUEUE reply holds, by its format
 * (include/lnetcap/rpc_formats.h), as Lustre chose it: by the request's
 * intent (remembered with the transaction; mdt_intent_opc(),
 * ldlm_handle_enqueue()), else, the request not seen, by the formats
 * with as many buffers as the reply has; never by a buffer's size (an
 * LVB can be as long as an mdt_body). */
static enum lnetcap_rmf enqueue_reply_kind(const lnetcap_pkt_t *pkt, guint i)
{
	enum lnetcap_rmf k = LNETCAP_RMF_NONE;

	if (pkt->trans && pkt->trans->have_intent_sel)
		k = lnetcap_rpc_kind_sel(LNETCAP_OPC_LDLM_ENQUEUE, TRUE, pkt->trans->intent_sel, i);
	if (k == LNETCAP_RMF_NONE && !(pkt->trans && pkt->trans->have_intent_sel))
		k = lnetcap_rpc_buffer_kind_n(LNETCAP_OPC_LDLM_ENQUEUE, 0, 0, 1, pkt->rpc.bufcount, i);
	return k;
}

static void dissect_ldlm_rpc(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt)
{
	gboolean request = pkt->rpc.pb_type == LNETCAP_PTL_RPC_MSG_REQUEST;
	lock_kind_t kind = { 0, 0 };
	gboolean have_lock = FALSE;
	guint32 flags;

	switch (pkt->rpc.opc) {
	case LNETCAP_OPC_LDLM_ENQUEUE:
		if (request) {
			guint32 n, sel = 0;
			gboolean have_sel = TRUE; /* no intent: selector 0 */
			flags = dissect_request(tvb, pinfo, tree, pkt, &kind);
			n = lnetcap_elc_enqueue(tvb, pinfo, tree, pkt, 1);
			if (pkt->rpc.bufcount >= 3 && (flags & LNETCAP_LDLM_FL_HAS_INTENT))
				have_sel = dissect_intent(tvb, pinfo, tree, pkt, &sel);
			/* The reply's format follows the request's intent. */
			if (pkt->trans && have_sel) {
				pkt->trans->intent_sel = sel;
				pkt->trans->have_intent_sel = TRUE;
			}
			if (n)
				col_append_fstr(pinfo->cinfo, COL_INFO, " (cancels %u lock%s)", n,
						n == 1 ? "" : "s");
		} else {
			guint32 off, len;
			/* Getattr/open intent replies carry an mdt_body next and
			 * the file's layout (MDT_MD); the others an LVB. */
			enum lnetcap_rmf k2 = enqueue_reply_kind(pkt, 2);
			dissect_reply(tvb, pinfo, tree, pkt, &kind);
			if (k2 == LNETCAP_RMF_MDT_BODY && lnetcap_rpc_buf(pkt, 2, &off, &len)) {
				/* MDT_MD is reserved at full size; mbo_eadatasize
				 * says how much of it holds the layout. */
				guint32 easize = off + sizeof(struct lnetcap_mdt_body) <=
					tvb_captured_length(tvb) ? tvb_get_guint32(tvb,
					off + LNETCAP_OFF(struct lnetcap_mdt_body, mbo_eadatasize),
					pkt->rpc.encoding) : 0;
				lnetcap_mdt_body(tvb, pinfo, tree, pkt, 2);
				/* (A getxattr reply's mbo_eadatasize sizes its names.) */
				if (easize && pkt->rpc.bufcount != LNETCAP_INTENT_GETXATTR_REP_BUFS &&
				    lnetcap_rpc_buf(pkt, 3, &off, &len) && len > 0)
					lnetcap_lov_layout(tvb, pinfo, tree, off, MIN(len, easize),
							   pkt->rpc.encoding, "MDT_MD");
				lnetcap_intent_reply_extras(tvb, pinfo, tree, pkt);
			} else if (k2 == LNETCAP_RMF_DLM_LVB) {
				dissect_lvb(tvb, pinfo, tree, pkt, 2, &kind);
				/* Quota intent replies: QUOTA_BODY after the LVB. */
				if (enqueue_reply_kind(pkt, 3) == LNETCAP_RMF_QUOTA_BODY)
					lnetcap_quota_body(tvb, pinfo, tree, pkt, 3);
			}
		}
		break;
	default:
		/* The others: each buffer by what their format says it holds
		 * (include/lnetcap/rpc_formats.h). */
		for (guint i = 1; i < LNETCAP_RPC_FORMAT_MAX_BUFS; i++) {
			switch (lnetcap_rpc_kind(pkt, i)) {
			case LNETCAP_RMF_DLM_REQ:
				dissect_request(tvb, pinfo, tree, pkt, &kind);
				have_lock = TRUE;
				/* A cancel's handles are cancelled locks, as an ELC buffer's are. */
				if (pkt->rpc.opc == LNETCAP_OPC_LDLM_CANCEL)
					lnetcap_elc_named(tvb, pinfo, tree, pkt, i,
							  "Cancelled locks (ldlm_request)");
				break;
			case LNETCAP_RMF_DLM_REP:
				dissect_reply(tvb, pinfo, tree, pkt, &kind);
				have_lock = TRUE;
				break;
			case LNETCAP_RMF_DLM_LVB:
				/* A glimpse reply names no lock: its LVB is read by size. */
				dissect_lvb(tvb, pinfo, tree, pkt, i, have_lock ? &kind : NULL);
				break;
			default:
				break;
			}
		}
		break;
	}
}

static int dissect_ldlm(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	lnetcap_pkt_t *pkt = (lnetcap_pkt_t *)data;
	dissect_ldlm_rpc(tvb, pinfo, lnetcap_body_tree(tvb, pinfo, tree, proto_ldlm, ett_ldlm, pkt), pkt);
	return (int)tvb_captured_length(tvb);
}

void lnetcap_handoff_ldlm(void)
{
	static const guint32 opcodes[] = {
		LNETCAP_OPC_LDLM_ENQUEUE,
		LNETCAP_OPC_LDLM_CONVERT,
		LNETCAP_OPC_LDLM_CANCEL,
		LNETCAP_OPC_LDLM_BL_CALLBACK,
		LNETCAP_OPC_LDLM_CP_CALLBACK,
		LNETCAP_OPC_LDLM_GL_CALLBACK,
	};
	lnetcap_body_register(proto_ldlm, dissect_ldlm, opcodes, array_length(opcodes));
}

void lnetcap_register_ldlm(void)
{
	static hf_register_info hf[] = {
		{ &hf_lock_count, { "Lock count", "lnetcap.ldlm.lock_count", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_lock, { "Lock descriptor", "lnetcap.ldlm.lock", FT_NONE, BASE_NONE, NULL, 0, "ldlm_lock_desc", HFILL } },
		{ &hf_res_type, { "Resource type", "lnetcap.ldlm.res.type", FT_UINT32, BASE_DEC, VALS(lnetcap_ldlm_type_vals), 0, NULL, HFILL } },
		{ &hf_res_name, { "Resource name", "lnetcap.ldlm.res.name", FT_UINT64, BASE_HEX, NULL, 0, "ldlm_res_id.name[]", HFILL } },
		{ &hf_res_fid, { "Resource FID", "lnetcap.ldlm.res.fid", FT_STRING, BASE_NONE, NULL, 0, "FID the resource is named after", HFILL } },
		{ &hf_req_mode, { "Requested mode", "lnetcap.ldlm.lock.req_mode", FT_UINT32, BASE_DEC, VALS(lnetcap_ldlm_mode_vals), 0, NULL, HFILL } },
		{ &hf_granted_mode, { "Granted mode", "lnetcap.ldlm.lock.granted_mode", FT_UINT32, BASE_DEC, VALS(lnetcap_ldlm_mode_vals), 0, NULL, HFILL } },
		{ &hf_ext_start, { "Extent start", "lnetcap.ldlm.extent.start", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ext_end, { "Extent end", "lnetcap.ldlm.extent.end", FT_UINT64, BASE_DEC|BASE_VAL64_STRING|BASE_SPECIAL_VALS, VALS64(lnetcap_u64_eof_vals), 0, NULL, HFILL } },
		{ &hf_ext_gid, { "Extent group", "lnetcap.ldlm.extent.gid", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ib_try_bits, { "Try/cancel bits", "lnetcap.ldlm.inodebits.try_bits", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_ib_gid, { "Group", "lnetcap.ldlm.inodebits.gid", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ib_initiator, { "Initiator", "lnetcap.ldlm.inodebits.initiator_id", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_fl_start, { "Flock start", "lnetcap.ldlm.flock.start", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_fl_end, { "Flock end", "lnetcap.ldlm.flock.end", FT_UINT64, BASE_DEC|BASE_VAL64_STRING|BASE_SPECIAL_VALS, VALS64(lnetcap_u64_eof_vals), 0, NULL, HFILL } },
		{ &hf_fl_owner, { "Flock owner", "lnetcap.ldlm.flock.owner", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_fl_pid, { "Flock pid", "lnetcap.ldlm.flock.pid", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_handle, { "Lock handle", "lnetcap.ldlm.handle", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_rep_handle, { "Lock handle", "lnetcap.ldlm.reply.handle", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_policy_res1, { "Policy result 1", "lnetcap.ldlm.reply.policy_res1", FT_UINT64, BASE_HEX, NULL, 0, "Intent disposition (DISP_*)", HFILL } },
		{ &hf_policy_res2, { "Policy result 2", "lnetcap.ldlm.reply.policy_res2", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_lvb_size, { "LVB size", "lnetcap.ldlm.lvb.size", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_lvb_mtime, { "LVB mtime", "lnetcap.ldlm.lvb.mtime", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0, NULL, HFILL } },
		{ &hf_lvb_atime, { "LVB atime", "lnetcap.ldlm.lvb.atime", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0, NULL, HFILL } },
		{ &hf_lvb_ctime, { "LVB ctime", "lnetcap.ldlm.lvb.ctime", FT_ABSOLUTE_TIME, ABSOLUTE_TIME_UTC, NULL, 0, NULL, HFILL } },
		{ &hf_lvb_blocks, { "LVB blocks", "lnetcap.ldlm.lvb.blocks", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_qlvb_flags, { "Quota LVB flags", "lnetcap.ldlm.qlvb.flags", FT_UINT64, BASE_HEX, NULL, 0,
		  "lquota_lvb lvb_flags (LQUOTA_FL_EDQUOT 0x1)", HFILL } },
		{ &hf_qlvb_may_rel, { "Quota may release / global version", "lnetcap.ldlm.qlvb.id_may_rel",
		  FT_UINT64, BASE_DEC, NULL, 0, "lvb_id_may_rel (lvb_glb_ver on the global index lock)", HFILL } },
		{ &hf_qlvb_rel, { "Quota released", "lnetcap.ldlm.qlvb.id_rel", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_qlvb_qunit, { "Quota qunit", "lnetcap.ldlm.qlvb.id_qunit", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
	};
	static gint *ett[] = { &ett_ldlm, &ett_req, &ett_lock, &ett_intent, &ett_lvb };
	int proto;

	proto_ldlm = proto_register_protocol("Lustre LDLM (lnetcap)", "LDLM", "lnetcap.ldlm");
	proto = proto_ldlm;
	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	lnetcap_flagset_register(proto, &fs_lock_flags);
	lnetcap_flagset_register(proto, &fs_ibits);
	lnetcap_flagset_register(proto, &fs_disp);
	lnetcap_flagset_register(proto, &fs_intent);
	lnetcap_register_intent(proto);
}
