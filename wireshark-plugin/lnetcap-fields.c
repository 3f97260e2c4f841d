/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-fields.c - hf registration and dissection driven by the rows of
 * include/lnetcap/fields.h (see lnetcap-fields.h).
 */
#include "lnetcap-fields.h"

int lnetcap_bf_hf[LNETCAP_BF_COUNT];

static enum ftenum field_ftype(const struct lnetcap_body_field *f)
{
	switch (f->type) {
	case LNETCAP_BFT_U32:
		return FT_UINT32;
	case LNETCAP_BFT_U64:
		return FT_UINT64;
	case LNETCAP_BFT_SECS:
		return FT_ABSOLUTE_TIME;
	default:
		return FT_STRING; /* OSTID: the text lnetcap_add_ost_id() makes */
	}
}

static int field_display(const struct lnetcap_body_field *f)
{
	if (f->type == LNETCAP_BFT_SECS)
		return ABSOLUTE_TIME_UTC;
	switch (f->display) {
	case LNETCAP_BFD_DEC:
		return BASE_DEC;
	case LNETCAP_BFD_HEX:
		return BASE_HEX;
	case LNETCAP_BFD_OCT:
		return BASE_OCT;
	default:
		return BASE_NONE;
	}
}

void lnetcap_body_fields_register(int proto, enum lnetcap_rmf rmf)
{
	/* Wireshark keeps pointers into the array: it lives as long as the
	 * plugin, one per kind registered. */
	hf_register_info *hf = g_new0(hf_register_info, LNETCAP_BF_COUNT);
	int n = 0;

	for (guint i = 0; i < LNETCAP_BF_COUNT; i++) {
		const struct lnetcap_body_field *f = &lnetcap_body_fields[i];
		if (f->rmf != (unsigned)rmf)
			continue;
		lnetcap_bf_hf[i] = -1;
		hf[n].p_id = &lnetcap_bf_hf[i];
		hf[n].hfinfo.name = f->name;
		hf[n].hfinfo.abbrev = f->abbrev;
		hf[n].hfinfo.type = field_ftype(f);
		hf[n].hfinfo.display = field_display(f);
		hf[n].hfinfo.blurb = f->blurb;
		HFILL_INIT(hf[n]);
		n++;
	}
	proto_register_field_array(proto, hf, n);
}

void lnetcap_body_fields_add(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, guint off,
			     guint enc, guint first, guint last)
{
	int valid_off = lnetcap_body_valid_offset(lnetcap_body_fields[first].rmf);
	guint64 valid = valid_off < 0 ? 0 : tvb_get_guint64(tvb, off + (guint)valid_off, enc);

	for (guint i = first; i <= last && i < LNETCAP_BF_COUNT; i++) {
		const struct lnetcap_body_field *f = &lnetcap_body_fields[i];
		if (f->rmf != lnetcap_body_fields[first].rmf)
			break; /* the rows of one kind are contiguous */
		guint at = off + f->offset;
		proto_item *it;

		switch (f->type) {
		case LNETCAP_BFT_SECS:
			it = lnetcap_add_secs(tree, lnetcap_bf_hf[i], tvb, at, enc);
			break;
		case LNETCAP_BFT_OSTID:
			lnetcap_add_ost_id(tree, tvb, pinfo, lnetcap_bf_hf[i], at, enc);
			it = NULL; /* an ost_id has no valid bit */
			break;
		default:
			it = proto_tree_add_item(tree, lnetcap_bf_hf[i], tvb, (gint)at, f->width, enc);
			break;
		}
		if (f->valid_bit)
			lnetcap_mark_valid(it, valid, f->valid_bit, f->valid_name);
	}
}
