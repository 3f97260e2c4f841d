/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap-ost.c - OST bodies (docs/protocol.md 4.2/4.3): ost_body (= obdo)
 * in every OST request and reply, and for OST_READ/OST_WRITE the obd_ioobj
 * and niobuf_remote arrays of the request and the per-niobuf return codes
 * of the write reply.
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "packet-lnetcap.h"
#include "lnetcap-vals.h"
#include "lnetcap/bodies.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap-formats.h"
#include "lnetcap-fields.h"

static int proto_ost = -1;
static gint ett_ost = -1;
static int hf_oa_oi_id = -1;
static int hf_oa_oi_seq = -1;
static int hf_oi_form = -1;
static int hf_oi_fid = -1;
static int hf_oi_ost_idx = -1;
static int hf_oa_parent_fid = -1;
static int hf_ioobj = -1;
static int hf_ioobj_oi = -1;
static int hf_ioobj_max_brw = -1;
static int hf_ioobj_md_count = -1;
static int hf_ioobj_bufcnt = -1;
static int hf_niobuf = -1;
static int hf_niobuf_offset = -1;
static int hf_niobuf_len = -1;
static int hf_rc = -1;
static int hf_io_bytes = -1;

static gint ett_oa = -1;
static gint ett_oi = -1;
static gint ett_ioobj = -1;
static gint ett_niobuf = -1;

static expert_field ei_array = EI_INIT;
static expert_field ei_rc = EI_INIT;

static lnetcap_flagset_t fs_brw = LNETCAP_FLAGSET(
	"lnetcap.ost.niobuf.flags", "Flags", 32, lnetcap_brw_flag_defs, lnetcap_brw_flag_count);

enum { OI_LEGACY, OI_DEFAULT, OI_IDIF, OI_FID };
static const value_string oi_form_vals[] = {
	{ OI_LEGACY, "legacy group 0 {id, seq 0}" },
	{ OI_DEFAULT, "LOV default" },
	{ OI_IDIF, "IDIF FID" },
	{ OI_FID, "FID" },
	{ 0, NULL }
};

/* struct ost_id, read the way ostid_seq()/ostid_id() read it (see
 * LNETCAP_FID_SEQ_* in bodies.h) and shown as Lustre prints it (DOSTID
 * "seq:id"); the FID forms also show the FID and, for IDIF, the OST. */
void lnetcap_add_ost_id(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, int hf, guint off,
			guint enc)
{
	/* The same 16 bytes read both ways: as an ost_id and as an lu_fid. */
	guint64 raw_seq = tvb_get_guint64(tvb, LNETCAP_AT(off, lnetcap_ost_id, oi_seq), enc);
	guint64 fseq = tvb_get_guint64(tvb, LNETCAP_AT(off, lnetcap_lu_fid, f_seq), enc);
	guint32 foid = tvb_get_guint32(tvb, LNETCAP_AT(off, lnetcap_lu_fid, f_oid), enc);
	guint32 fver = tvb_get_guint32(tvb, LNETCAP_AT(off, lnetcap_lu_fid, f_ver), enc);
	guint64 seq, id;
	guint form;
	proto_item *it;
	proto_tree *t;

	if (raw_seq == LNETCAP_FID_SEQ_OST_MDT0) {
		form = OI_LEGACY;
		seq = LNETCAP_FID_SEQ_OST_MDT0;
		id = fseq & LNETCAP_IDIF_MAX_OID;
	} else if (raw_seq == LNETCAP_FID_SEQ_LOV_DEFAULT) {
		form = OI_DEFAULT;
		seq = LNETCAP_FID_SEQ_LOV_DEFAULT;
		id = fseq;
	} else if (fseq >= LNETCAP_FID_SEQ_IDIF && fseq <= LNETCAP_FID_SEQ_IDIF_MAX) {
		form = OI_IDIF;
		seq = LNETCAP_FID_SEQ_OST_MDT0;
		id = ((guint64)fver << 48) | ((fseq & 0xffff) << 32) | foid;
	} else {
		form = OI_FID;
		seq = fseq;
		id = foid;
	}
	it = proto_tree_add_string(tree, hf, tvb, off, 16,
		wmem_strdup_printf(pinfo->pool, "0x%" G_GINT64_MODIFIER "x:%" G_GUINT64_FORMAT, seq, id));
	t = proto_item_add_subtree(it, ett_oi);
	it = proto_tree_add_uint(t, hf_oi_form, tvb, off, 16, form);
	proto_item_set_generated(it);
	if (form == OI_IDIF || form == OI_FID)
		lnetcap_add_fid(t, tvb, pinfo, off, enc, hf_oi_fid, NULL);
	it = proto_tree_add_uint64(t, hf_oa_oi_seq, tvb, form == OI_FID ? off : LNETCAP_AT(off, lnetcap_ost_id, oi_seq), 8, seq);
	if (form == OI_IDIF)
		proto_item_set_generated(it);
	it = proto_tree_add_uint64(t, hf_oa_oi_id, tvb, form == OI_FID ? LNETCAP_AT(off, lnetcap_lu_fid, f_oid) : off,
				   form == OI_FID ? 4 : 8, id);
	if (form == OI_IDIF)
		proto_item_set_generated(it);
	if (form == OI_IDIF) {
		it = proto_tree_add_uint(t, hf_oi_ost_idx, tvb, off, 8, (guint32)(fseq >> 16) & 0xffff);
		proto_item_set_generated(it);
	}
}

static void dissect_ost_body(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			     lnetcap_pkt_t *pkt, guint i)
{
	guint enc = pkt->rpc.encoding;
	guint32 off;
	proto_tree *t;
	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, i, sizeof(struct lnetcap_obdo),
					     ett_oa, "ost_body (obdo)", &t, &off))
		return;
	/* The members, by their rows (include/lnetcap/fields.h), in struct
	 * order; between them the one value no row can say: the parent FID,
	 * made of three members. */
	lnetcap_body_fields_add(t, tvb, pinfo, off, enc, LNETCAP_BF_OA_VALID, LNETCAP_BF_OA_PARENT_VER);
	{
		/* The MDT file this object belongs to (o_parent_*: the FID the
		 * MDT gave the file, not a separate lu_fid in the struct). */
		guint64 pseq = tvb_get_guint64(tvb, off + LNETCAP_OFF(struct lnetcap_obdo, o_parent_seq), enc);
		if (pseq) {
			const char *fid = wmem_strdup_printf(pinfo->pool, "[0x%" G_GINT64_MODIFIER "x:0x%x:0x%x]",
				pseq, tvb_get_guint32(tvb, off + LNETCAP_OFF(struct lnetcap_obdo, o_parent_oid), enc),
				tvb_get_guint32(tvb, off + LNETCAP_OFF(struct lnetcap_obdo, o_parent_ver), enc));
			proto_item *it = proto_tree_add_string(t, hf_oa_parent_fid, tvb,
				(gint)off + LNETCAP_OFF(struct lnetcap_obdo, o_parent_seq), 8, fid);
			proto_item_set_generated(it);
			lnetcap_add_any_fid(t, tvb, off + LNETCAP_OFF(struct lnetcap_obdo, o_parent_seq), fid);
		}
	}
	lnetcap_body_fields_add(t, tvb, pinfo, off, enc, LNETCAP_BF_OA_HANDLE, LNETCAP_BF_KIND_END);
}

/* Number of whole elements of size esz in buffer i that were captured;
 * flags a buffer that is not a whole number of elements. */
static guint32 array_count(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			   lnetcap_pkt_t *pkt, guint i, guint32 esz, guint32 *off,
			   const char *what)
{
	guint32 len, cap;
	if (!lnetcap_rpc_buf(pkt, i, off, &len))
		return 0;
	if (len % esz)
		proto_tree_add_expert_format(tree, pinfo, &ei_array, tvb, lnetcap_clamp(tvb, *off), 0,
			"%s buffer is %u bytes, not a multiple of %u", what, len, esz);
	cap = tvb_captured_length(tvb) > *off ? tvb_captured_length(tvb) - *off : 0;
	if (cap < len)
		len = cap - cap % esz;
	return len / esz;
}

/* The obd_ioobj array of buffer i (RMF_OBD_IOOBJ). */
static void dissect_ioobjs(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt,
			   guint i)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, n;
	proto_item *it;

	n = array_count(tvb, pinfo, tree, pkt, i, sizeof(struct lnetcap_obd_ioobj), &off, "obd_ioobj");
	for (guint32 k = 0; k < n; k++, off += sizeof(struct lnetcap_obd_ioobj)) {
		proto_tree *t;
		guint32 max_brw;
		it = proto_tree_add_item(tree, hf_ioobj, tvb, (gint)off, sizeof(struct lnetcap_obd_ioobj), ENC_NA);
		t = proto_item_add_subtree(it, ett_ioobj);
		lnetcap_add_ost_id(t, tvb, pinfo, hf_ioobj_oi, off, enc);
		proto_tree_add_item_ret_uint(t, hf_ioobj_max_brw, tvb, LNETCAP_FIELD(off, lnetcap_obd_ioobj, ioo_max_brw), enc, &max_brw);
		/* IOOBJ_MAX_BRW_BITS = 16: the number of bulk MDs. */
		it = proto_tree_add_uint(t, hf_ioobj_md_count, tvb, LNETCAP_FIELD(off, lnetcap_obd_ioobj, ioo_max_brw), (max_brw >> 16) + 1);
		proto_item_set_generated(it);
		proto_tree_add_item(t, hf_ioobj_bufcnt, tvb, LNETCAP_FIELD(off, lnetcap_obd_ioobj, ioo_bufcnt), enc);
	}
}

/* The niobuf_remote array of buffer i (RMF_NIOBUF_REMOTE), and the bytes
 * they move. */
static void dissect_niobufs(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt,
			    guint i)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, n;
	guint64 bytes = 0;
	proto_item *it;

	n = array_count(tvb, pinfo, tree, pkt, i, sizeof(struct lnetcap_niobuf_remote), &off,
			"niobuf_remote");
	for (guint32 k = 0; k < n; k++, off += sizeof(struct lnetcap_niobuf_remote)) {
		proto_tree *t;
		guint64 o;
		guint32 len;
		it = proto_tree_add_item(tree, hf_niobuf, tvb, (gint)off,
					 sizeof(struct lnetcap_niobuf_remote), ENC_NA);
		t = proto_item_add_subtree(it, ett_niobuf);
		proto_tree_add_item_ret_uint64(t, hf_niobuf_offset, tvb, LNETCAP_FIELD(off, lnetcap_niobuf_remote, rnb_offset), enc, &o);
		proto_tree_add_item_ret_uint(t, hf_niobuf_len, tvb, LNETCAP_FIELD(off, lnetcap_niobuf_remote, rnb_len), enc, &len);
		lnetcap_flagset_add(t, tvb, (gint)LNETCAP_AT(off, lnetcap_niobuf_remote, rnb_flags), enc, &fs_brw);
		proto_item_append_text(it, ": %" G_GUINT64_FORMAT "+%u", o, len);
		bytes += len;
	}
	if (n) {
		it = proto_tree_add_uint64(tree, hf_io_bytes, tvb, 0, 0, bytes);
		proto_item_set_generated(it);
		col_append_fstr(pinfo->cinfo, COL_INFO, " %u niobuf(s) %" G_GUINT64_FORMAT " bytes", n, bytes);
	}
}

/* The per-niobuf return codes of an OST_WRITE reply (RMF_RCS, __u32 each). */
static void dissect_write_rcs(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			      lnetcap_pkt_t *pkt, guint i)
{
	guint32 off, n = array_count(tvb, pinfo, tree, pkt, i, 4, &off, "RCS");
	for (guint32 k = 0; k < n; k++, off += 4) {
		gint32 rc;
		proto_item *it = proto_tree_add_item_ret_int(tree, hf_rc, tvb, (gint)off, 4,
							     pkt->rpc.encoding, &rc);
		if (rc < 0)
			expert_add_info(pinfo, it, &ei_rc);
	}
}

/* Each buffer by what the format of the opcode says it holds
 * (include/lnetcap/rpc_formats.h): the kinds this protocol shows. */
static void dissect_ost_rpc(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt)
{
	for (guint i = 1; i < LNETCAP_RPC_FORMAT_MAX_BUFS; i++) {
		switch (lnetcap_rpc_kind(pkt, i)) {
		case LNETCAP_RMF_OST_BODY:
			dissect_ost_body(tvb, pinfo, tree, pkt, i);
			break;
		case LNETCAP_RMF_OBD_IOOBJ:
			dissect_ioobjs(tvb, pinfo, tree, pkt, i);
			break;
		case LNETCAP_RMF_NIOBUF_REMOTE:
			dissect_niobufs(tvb, pinfo, tree, pkt, i);
			break;
		case LNETCAP_RMF_RCS:
			dissect_write_rcs(tvb, pinfo, tree, pkt, i);
			break;
		case LNETCAP_RMF_DLM_REQ: {
			/* OST_DESTROY: osc_destroy() cancels the object's unused
			 * locks with it. */
			guint32 n = lnetcap_elc(tvb, pinfo, tree, pkt, i);
			if (n)
				col_append_fstr(pinfo->cinfo, COL_INFO, " (cancels %u lock%s)", n,
						n == 1 ? "" : "s");
			break;
		}
		case LNETCAP_RMF_OBD_STATFS:
			lnetcap_obd_statfs(tvb, pinfo, tree, pkt);
			break;
		default:
			break;
		}
	}
}

static int dissect_ost(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	lnetcap_pkt_t *pkt = (lnetcap_pkt_t *)data;
	dissect_ost_rpc(tvb, pinfo, lnetcap_body_tree(tvb, pinfo, tree, proto_ost, ett_ost, pkt), pkt);
	return (int)tvb_captured_length(tvb);
}

void lnetcap_handoff_ost(void)
{
	static const guint32 opcodes[] = {
		LNETCAP_OPC_OST_READ,
		LNETCAP_OPC_OST_WRITE,
		LNETCAP_OPC_OST_GETATTR,
		LNETCAP_OPC_OST_SETATTR,
		LNETCAP_OPC_OST_CREATE,
		LNETCAP_OPC_OST_DESTROY,
		LNETCAP_OPC_OST_PUNCH,
		LNETCAP_OPC_OST_SYNC,
		LNETCAP_OPC_OST_LADVISE,
		LNETCAP_OPC_OST_FALLOCATE,
		LNETCAP_OPC_OST_SEEK,
		LNETCAP_OPC_OST_STATFS,
	};
	lnetcap_body_register(proto_ost, dissect_ost, opcodes, array_length(opcodes));
}

void lnetcap_register_ost(void)
{
	static hf_register_info hf[] = {
		{ &hf_oa_oi_id, { "Object id", "lnetcap.ost.oi.id", FT_UINT64, BASE_DEC, NULL, 0,
		  "ostid_id(): the object number within its sequence", HFILL } },
		{ &hf_oa_oi_seq, { "Object sequence", "lnetcap.ost.oi.seq", FT_UINT64, BASE_HEX, NULL, 0,
		  "ostid_seq(): 0 for legacy and IDIF objects, else the FID sequence", HFILL } },
		{ &hf_oi_form, { "Form", "lnetcap.ost.oi.form", FT_UINT32, BASE_DEC, VALS(oi_form_vals), 0,
		  "Which member of the ost_id union the bytes hold", HFILL } },
		{ &hf_oi_fid, { "FID", "lnetcap.ost.oi.fid", FT_STRING, BASE_NONE, NULL, 0,
		  "The ost_id as an lu_fid (IDIF and FID forms)", HFILL } },
		{ &hf_oi_ost_idx, { "OST index", "lnetcap.ost.oi.ost_idx", FT_UINT32, BASE_DEC, NULL, 0,
		  "OST index carried in an IDIF sequence", HFILL } },
		{ &hf_oa_parent_fid, { "Parent FID", "lnetcap.ost.oa.parent_fid", FT_STRING, BASE_NONE, NULL, 0,
		  "The MDT file this object belongs to (o_parent_seq:o_parent_oid:o_parent_ver)", HFILL } },
		{ &hf_ioobj, { "obd_ioobj", "lnetcap.ost.ioobj", FT_NONE, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_ioobj_oi, { "Object", "lnetcap.ost.ioobj.oi", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_ioobj_max_brw, { "Max BRW", "lnetcap.ost.ioobj.max_brw", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_ioobj_md_count, { "Bulk MDs", "lnetcap.ost.ioobj.md_count", FT_UINT32, BASE_DEC, NULL, 0, "(max_brw >> 16) + 1", HFILL } },
		{ &hf_ioobj_bufcnt, { "Buffers", "lnetcap.ost.ioobj.bufcnt", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_niobuf, { "niobuf_remote", "lnetcap.ost.niobuf", FT_NONE, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_niobuf_offset, { "Offset", "lnetcap.ost.niobuf.offset", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_niobuf_len, { "Length", "lnetcap.ost.niobuf.len", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rc, { "Return code", "lnetcap.ost.rc", FT_INT32, BASE_DEC, VALS(lnetcap_status_vals), 0, NULL, HFILL } },
		{ &hf_io_bytes, { "I/O bytes", "lnetcap.ost.io_bytes", FT_UINT64, BASE_DEC, NULL, 0, "Sum of the niobuf lengths", HFILL } },
	};
	static gint *ett[] = { &ett_ost, &ett_oa, &ett_oi, &ett_ioobj, &ett_niobuf };
	int proto;
	static ei_register_info ei[] = {
		{ &ei_array, { "lnetcap.ost.array.bad", PI_MALFORMED, PI_WARN,
		  "Array buffer length is not a whole number of elements", EXPFILL } },
		{ &ei_rc, { "lnetcap.ost.rc.error", PI_RESPONSE_CODE, PI_WARN,
		  "Write of this niobuf failed", EXPFILL } },
	};
	expert_module_t *em;

	proto_ost = proto_register_protocol("Lustre OST (lnetcap)", "OST", "lnetcap.ost");
	proto = proto_ost;
	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto);
	expert_register_field_array(em, ei, array_length(ei));
	lnetcap_flagset_register(proto, &fs_brw);
	/* ost_body (obdo): its members are the rows of include/lnetcap/fields.h. */
	lnetcap_body_fields_register(proto, LNETCAP_RMF_OST_BODY);
}
