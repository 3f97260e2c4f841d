/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap-lov.c - LOV layouts (include/lnetcap/bodies.h, Lustre
 * 2.16 lustre_user.h): lov_mds_md v1/v3 with their OST objects, and
 * composite layouts (lov_comp_md_v1: PFL, FLR mirrors) whose components
 * each point at a v1/v3 layout inside the same blob.  They travel as the
 * LVB of layout locks and in the MDT_MD buffer of getattr/open replies.
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "packet-lnetcap.h"
#include "lnetcap-flags.h"
#include "lnetcap-vals.h"
#include "lnetcap/bodies.h"

static int hf_lov = -1;
static int hf_magic = -1;
static int hf_pattern = -1;
static int hf_file_fid = -1;
static int hf_stripe_size = -1;
static int hf_stripe_count = -1;
static int hf_layout_gen = -1;
static int hf_pool = -1;
static int hf_object = -1;
static int hf_ost_oi = -1;
static int hf_ost_gen = -1;
static int hf_ost_idx = -1;
static int hf_comp_size = -1;
static int hf_comp_flags = -1;
static int hf_comp_entry_count = -1;
static int hf_comp_mirror_count = -1;
static int hf_comp = -1;
static int hf_comp_id = -1;
static int hf_comp_mirror_id = -1;
static int hf_comp_start = -1;
static int hf_comp_end = -1;
static int hf_comp_offset = -1;
static int hf_comp_blob_size = -1;
static int hf_comp_timestamp = -1;
static gint ett_lov = -1;
static gint ett_object = -1;
static gint ett_comp = -1;
static expert_field ei_lov_bad = EI_INIT;
static expert_field ei_lov_unknown = EI_INIT;

static lnetcap_flagset_t fs_lcme = LNETCAP_FLAGSET(
	"lnetcap.lov.comp.flags", "Component flags", 32, lnetcap_lcme_flag_defs,
	lnetcap_lcme_flag_count);

static const value_string magic_vals[] = {
	{ LNETCAP_LOV_MAGIC_V1, "LOV_MAGIC_V1" },
	{ LNETCAP_LOV_MAGIC_V3, "LOV_MAGIC_V3" },
	{ LNETCAP_LOV_MAGIC_COMP_V1, "LOV_MAGIC_COMP_V1" },
	{ LNETCAP_LOV_MAGIC_FOREIGN, "LOV_MAGIC_FOREIGN" },
	{ 0, NULL }
};

#define LOV_ALL_STRIPES_WIDE 0xffe0 /* 0xffe0-0xffff: "all"/"-N" markers, no objects */

/* lov_mds_md v1/v3 at off, len bytes; returns FALSE if it is not one. */
static gboolean add_md(tvbuff_t *tvb, packet_info *pinfo, proto_tree *t, guint off, guint len,
		       guint enc, guint32 magic)
{
	guint hdr = magic == LNETCAP_LOV_MAGIC_V3 ? LNETCAP_LOV_MDS_MD_V3_LEN
						  : sizeof(struct lnetcap_lov_mds_md_v1);
	guint64 fseq, foid;
	const char *fid;
	guint32 count, n;

	if (len < hdr) {
		proto_tree_add_expert_format(t, pinfo, &ei_lov_bad, tvb, lnetcap_clamp(tvb, off), 0,
			"LOV layout of %u bytes, shorter than its %u-byte header", len, hdr);
		return FALSE;
	}
	proto_tree_add_item(t, hf_pattern, tvb, LNETCAP_FIELD(off, lnetcap_lov_mds_md_v1, lmm_pattern), enc);
	/* lmm_oi holds the file's FID packed by fid_to_lmm_oi(): oid, seq. */
	foid = tvb_get_guint64(tvb, LNETCAP_AT(off, lnetcap_lov_mds_md_v1, lmm_oi_id), enc);
	fseq = tvb_get_guint64(tvb, LNETCAP_AT(off, lnetcap_lov_mds_md_v1, lmm_oi_seq), enc);
	fid = wmem_strdup_printf(pinfo->pool, "[0x%" G_GINT64_MODIFIER "x:0x%x:0x0]", fseq,
				 (guint32)foid);
	proto_tree_add_string(t, hf_file_fid, tvb, (gint)LNETCAP_AT(off, lnetcap_lov_mds_md_v1, lmm_oi_id),
			      sizeof(struct lnetcap_ost_id), fid);
	lnetcap_add_any_fid(t, tvb, LNETCAP_AT(off, lnetcap_lov_mds_md_v1, lmm_oi_id), fid);
	proto_tree_add_item(t, hf_stripe_size, tvb, LNETCAP_FIELD(off, lnetcap_lov_mds_md_v1, lmm_stripe_size), enc);
	proto_tree_add_item_ret_uint(t, hf_stripe_count, tvb, LNETCAP_FIELD(off, lnetcap_lov_mds_md_v1, lmm_stripe_count), enc,
				     &count);
	proto_tree_add_item(t, hf_layout_gen, tvb, LNETCAP_FIELD(off, lnetcap_lov_mds_md_v1, lmm_layout_gen), enc);
	if (magic == LNETCAP_LOV_MAGIC_V3)
		proto_tree_add_item(t, hf_pool, tvb, LNETCAP_FIELD(off, lnetcap_lov_mds_md_v3, lmm_pool_name),
				    ENC_ASCII | ENC_NA);
	if (count >= LOV_ALL_STRIPES_WIDE)
		count = 0;
	/* Objects: as many as the count says and the buffer holds. */
	n = (len - hdr) / sizeof(struct lnetcap_lov_ost_data_v1);
	if (count < n)
		n = count;
	for (guint32 k = 0; k < n; k++) {
		guint o = off + hdr + k * (guint)sizeof(struct lnetcap_lov_ost_data_v1);
		proto_item *it;
		proto_tree *ot;
		guint32 idx;
		if (o + sizeof(struct lnetcap_lov_ost_data_v1) > tvb_captured_length(tvb))
			break;
		it = proto_tree_add_item(t, hf_object, tvb, (gint)o,
					 sizeof(struct lnetcap_lov_ost_data_v1), ENC_NA);
		ot = proto_item_add_subtree(it, ett_object);
		lnetcap_add_ost_id(ot, tvb, pinfo, hf_ost_oi, o, enc);
		proto_tree_add_item(ot, hf_ost_gen, tvb, LNETCAP_FIELD(o, lnetcap_lov_ost_data_v1, l_ost_gen), enc);
		proto_tree_add_item_ret_uint(ot, hf_ost_idx, tvb, LNETCAP_FIELD(o, lnetcap_lov_ost_data_v1, l_ost_idx),
					     enc, &idx);
		proto_item_append_text(it, " %u: OST%04x", k, idx);
	}
	return TRUE;
}

void lnetcap_lov_layout(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint off, guint len,
			guint enc, const char *what)
{
	proto_item *ti;
	proto_tree *t;
	guint32 magic, entries;

	if (len < 4 || off + MIN(len, sizeof(struct lnetcap_lov_comp_md_v1)) > tvb_captured_length(tvb))
		return;
	ti = proto_tree_add_none_format(tree, hf_lov, tvb, (gint)off,
		(gint)MIN(len, tvb_captured_length(tvb) - off), "%s (LOV layout)", what);
	t = proto_item_add_subtree(ti, ett_lov);
	/* lmm_magic and lcm_magic: the same first __u32 of every layout. */
	proto_tree_add_item_ret_uint(t, hf_magic, tvb, LNETCAP_FIELD(off, lnetcap_lov_mds_md_v1, lmm_magic), enc, &magic);
	switch (magic) {
	case LNETCAP_LOV_MAGIC_V1:
	case LNETCAP_LOV_MAGIC_V3:
		add_md(tvb, pinfo, t, off, len, enc, magic);
		return;
	case LNETCAP_LOV_MAGIC_COMP_V1:
		break;
	default:
		/* A directory's MDT_MD holds an LMV layout instead. */
		expert_add_info_format(pinfo, ti, &ei_lov_unknown,
				       "Not a LOV layout this plugin knows (magic 0x%08x)", magic);
		return;
	}
	if (len < sizeof(struct lnetcap_lov_comp_md_v1))
		return;
	proto_tree_add_item(t, hf_comp_size, tvb, LNETCAP_FIELD(off, lnetcap_lov_comp_md_v1, lcm_size), enc);
	proto_tree_add_item(t, hf_layout_gen, tvb, LNETCAP_FIELD(off, lnetcap_lov_comp_md_v1, lcm_layout_gen), enc);
	proto_tree_add_item(t, hf_comp_flags, tvb, LNETCAP_FIELD(off, lnetcap_lov_comp_md_v1, lcm_flags), enc);
	proto_tree_add_item_ret_uint(t, hf_comp_entry_count, tvb, LNETCAP_FIELD(off, lnetcap_lov_comp_md_v1, lcm_entry_count), enc,
				     &entries);
	proto_tree_add_item(t, hf_comp_mirror_count, tvb, LNETCAP_FIELD(off, lnetcap_lov_comp_md_v1, lcm_mirror_count), enc);
	for (guint32 k = 0; k < entries; k++) {
		guint e = off + (guint)sizeof(struct lnetcap_lov_comp_md_v1) +
			  k * (guint)sizeof(struct lnetcap_lov_comp_md_entry_v1);
		guint32 id, boff, bsize, bmagic;
		guint64 start, end;
		proto_item *it;
		proto_tree *ct;
		if (e + sizeof(struct lnetcap_lov_comp_md_entry_v1) > off + len ||
		    e + sizeof(struct lnetcap_lov_comp_md_entry_v1) > tvb_captured_length(tvb))
			break;
		it = proto_tree_add_item(t, hf_comp, tvb, (gint)e,
					 sizeof(struct lnetcap_lov_comp_md_entry_v1), ENC_NA);
		ct = proto_item_add_subtree(it, ett_comp);
		proto_tree_add_item_ret_uint(ct, hf_comp_id, tvb, LNETCAP_FIELD(e, lnetcap_lov_comp_md_entry_v1, lcme_id), enc, &id);
		proto_tree_add_uint(ct, hf_comp_mirror_id, tvb, LNETCAP_FIELD(e, lnetcap_lov_comp_md_entry_v1, lcme_id), (id >> 16) & 0x7fff);
		lnetcap_flagset_add(ct, tvb, (gint)LNETCAP_AT(e, lnetcap_lov_comp_md_entry_v1, lcme_flags), enc, &fs_lcme);
		proto_tree_add_item_ret_uint64(ct, hf_comp_start, tvb, LNETCAP_FIELD(e, lnetcap_lov_comp_md_entry_v1, lcme_extent_start), enc,
					       &start);
		proto_tree_add_item_ret_uint64(ct, hf_comp_end, tvb, LNETCAP_FIELD(e, lnetcap_lov_comp_md_entry_v1, lcme_extent_end), enc, &end);
		proto_tree_add_item_ret_uint(ct, hf_comp_offset, tvb, LNETCAP_FIELD(e, lnetcap_lov_comp_md_entry_v1, lcme_offset), enc, &boff);
		proto_tree_add_item_ret_uint(ct, hf_comp_blob_size, tvb, LNETCAP_FIELD(e, lnetcap_lov_comp_md_entry_v1, lcme_size), enc, &bsize);
		proto_tree_add_item(ct, hf_layout_gen, tvb, LNETCAP_FIELD(e, lnetcap_lov_comp_md_entry_v1, lcme_layout_gen), enc);
		proto_tree_add_item(ct, hf_comp_timestamp, tvb, LNETCAP_FIELD(e, lnetcap_lov_comp_md_entry_v1, lcme_timestamp), enc);
		if (end == G_MAXUINT64)
			proto_item_append_text(it, " %u: [%" G_GUINT64_FORMAT ", EOF)", id, start);
		else
			proto_item_append_text(it, " %u: [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")",
					       id, start, end);
		/* The component's own layout, inside this blob. */
		if (bsize < 4 || boff > len || bsize > len - boff ||
		    off + boff + 4 > tvb_captured_length(tvb))
			continue;
		bmagic = tvb_get_guint32(tvb, off + boff, enc);
		if (bmagic == LNETCAP_LOV_MAGIC_V1 || bmagic == LNETCAP_LOV_MAGIC_V3) {
			proto_tree_add_item(ct, hf_magic, tvb, (gint)(off + boff), 4, enc);
			add_md(tvb, pinfo, ct, off + boff, bsize, enc, bmagic);
		}
	}
}

void lnetcap_register_lov(int proto)
{
	static hf_register_info hf[] = {
		{ &hf_lov, { "LOV layout", "lnetcap.lov", FT_NONE, BASE_NONE, NULL, 0,
		  "lov_mds_md v1/v3 or lov_comp_md_v1", HFILL } },
		{ &hf_magic, { "Magic", "lnetcap.lov.magic", FT_UINT32, BASE_HEX, VALS(magic_vals), 0, NULL, HFILL } },
		{ &hf_pattern, { "Pattern", "lnetcap.lov.pattern", FT_UINT32, BASE_HEX, NULL, 0,
		  "lmm_pattern: LOV_PATTERN_RAID0 (1), MDT (0x100, DoM), OVERSTRIPING (0x200), ...", HFILL } },
		{ &hf_file_fid, { "File FID", "lnetcap.lov.fid", FT_STRING, BASE_NONE, NULL, 0,
		  "lmm_oi: the file's FID (fid_to_lmm_oi)", HFILL } },
		{ &hf_stripe_size, { "Stripe size", "lnetcap.lov.stripe_size", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_stripe_count, { "Stripe count", "lnetcap.lov.stripe_count", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_layout_gen, { "Layout generation", "lnetcap.lov.layout_gen", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_pool, { "Pool", "lnetcap.lov.pool", FT_STRINGZPAD, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_object, { "OST object", "lnetcap.lov.object", FT_NONE, BASE_NONE, NULL, 0,
		  "lov_ost_data_v1", HFILL } },
		{ &hf_ost_oi, { "Object", "lnetcap.lov.object.oi", FT_STRING, BASE_NONE, NULL, 0,
		  "ost_id as Lustre prints it (DOSTID seq:id)", HFILL } },
		{ &hf_ost_gen, { "Generation", "lnetcap.lov.object.gen", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ost_idx, { "OST index", "lnetcap.lov.object.ost_idx", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_comp_size, { "Size", "lnetcap.lov.comp.lcm_size", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_comp_flags, { "Flags", "lnetcap.lov.comp.lcm_flags", FT_UINT16, BASE_HEX, NULL, 0,
		  "lcm_flags: FLR state (read-only, write pending, sync pending)", HFILL } },
		{ &hf_comp_entry_count, { "Components", "lnetcap.lov.comp.entry_count", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_comp_mirror_count, { "Mirror count - 1", "lnetcap.lov.comp.mirror_count", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_comp, { "Component", "lnetcap.lov.comp", FT_NONE, BASE_NONE, NULL, 0, "lov_comp_md_entry_v1", HFILL } },
		{ &hf_comp_id, { "Id", "lnetcap.lov.comp.id", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_comp_mirror_id, { "Mirror id", "lnetcap.lov.comp.mirror_id", FT_UINT32, BASE_DEC, NULL, 0,
		  "Bits 16-30 of lcme_id", HFILL } },
		{ &hf_comp_start, { "Extent start", "lnetcap.lov.comp.start", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_comp_end, { "Extent end", "lnetcap.lov.comp.end", FT_UINT64, BASE_DEC, NULL, 0,
		  "18446744073709551615 is end of file", HFILL } },
		{ &hf_comp_offset, { "Layout offset", "lnetcap.lov.comp.offset", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_comp_blob_size, { "Layout size", "lnetcap.lov.comp.size", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_comp_timestamp, { "Timestamp", "lnetcap.lov.comp.timestamp", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
	};
	static gint *ett[] = { &ett_lov, &ett_object, &ett_comp };
	static ei_register_info ei[] = {
		{ &ei_lov_bad, { "lnetcap.lov.bad", PI_MALFORMED, PI_WARN, "Bad LOV layout", EXPFILL } },
		{ &ei_lov_unknown, { "lnetcap.lov.unknown", PI_UNDECODED, PI_NOTE,
		  "Layout of a kind this plugin does not decode", EXPFILL } },
	};

	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	expert_register_field_array(expert_register_protocol(proto), ei, array_length(ei));
	lnetcap_flagset_register(proto, &fs_lcme);
}
