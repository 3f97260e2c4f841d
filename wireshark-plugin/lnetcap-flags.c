/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-flags.c - registration and display of generated flag fields.
 * The hf_register_info arrays are built once at start-up and live for the
 * whole process, as Wireshark requires.
 */
#include <epan/packet.h>

#include "lnetcap-flags.h"

void lnetcap_flagset_register(int proto, lnetcap_flagset_t *fs)
{
	guint n = *fs->count;
	enum ftenum type = fs->bits == 64 ? FT_UINT64 : fs->bits == 16 ? FT_UINT16 : FT_UINT32;
	hf_register_info *hf = g_new0(hf_register_info, n + 1);
	gint *ett[1];

	fs->fields = g_new0(int *, n + 1);
	hf[0].p_id = &fs->hf;
	hf[0].hfinfo.name = fs->label;
	hf[0].hfinfo.abbrev = fs->abbrev;
	hf[0].hfinfo.type = type;
	hf[0].hfinfo.display = BASE_HEX;
	HFILL_INIT(hf[0]);
	for (guint i = 0; i < n; i++) {
		int *id = g_new(int, 1);
		*id = -1;
		fs->fields[i] = id;
		hf[i + 1].p_id = id;
		hf[i + 1].hfinfo.name = fs->defs[i].name;
		hf[i + 1].hfinfo.abbrev = g_strdup_printf("%s.%s", fs->abbrev,
			g_ascii_strdown(fs->defs[i].name, -1));
		hf[i + 1].hfinfo.type = FT_BOOLEAN;
		hf[i + 1].hfinfo.display = fs->bits;
		hf[i + 1].hfinfo.bitmask = fs->defs[i].bit;
		HFILL_INIT(hf[i + 1]);
	}
	proto_register_field_array(proto, hf, (int)n + 1);
	ett[0] = &fs->ett;
	proto_register_subtree_array(ett, 1);
}

proto_item *lnetcap_flagset_add(proto_tree *tree, tvbuff_t *tvb, int offset,
				guint encoding, const lnetcap_flagset_t *fs)
{
	return proto_tree_add_bitmask(tree, tvb, offset, fs->hf, fs->ett,
				      (int *const *)fs->fields, encoding);
}
