/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-tables.c - bounded inserts into the plugin's per-file tables
 * (see lnetcap-tables.h for why).
 */
#include <string.h>

#include <epan/expert.h>

#include "lnetcap-tables.h"

guint lnetcap_pref_table_limit = LNETCAP_TABLE_LIMIT_DEFAULT;
static expert_field ei_table_full = EI_INIT;

gboolean lnetcap_table_is_full(wmem_map_t *map)
{
	return wmem_map_size(map) >= lnetcap_pref_table_limit;
}

gboolean lnetcap_table_insert(wmem_map_t *map, const void *key, size_t key_len, void *value)
{
	/* An existing key keeps its stored copy; only the value changes. */
	if (wmem_map_contains(map, key)) {
		wmem_map_insert(map, key, value);
		return TRUE;
	}
	if (lnetcap_table_is_full(map))
		return FALSE;
	wmem_map_insert(map, wmem_memdup(wmem_file_scope(), key, key_len), value);
	return TRUE;
}

void lnetcap_table_full_note(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			     const char *what)
{
	proto_tree_add_expert_format(tree, pinfo, &ei_table_full, tvb, 0, 0,
		"The %s table is full (%u entries): this message is not linked; "
		"raise the preference lnetcap.max_table_entries", what,
		lnetcap_pref_table_limit);
}

void lnetcap_register_tables(int proto)
{
	static ei_register_info ei[] = {
		{ &ei_table_full, { "lnetcap.table.full", PI_SEQUENCE, PI_WARN,
		  "A matching table of the plugin is full", EXPFILL } },
	};
	expert_register_field_array(expert_register_protocol(proto), ei, array_length(ei));
}

guint lnetcap_rpc_key_hash(gconstpointer k)
{
	const lnetcap_rpc_key_t *key = (const lnetcap_rpc_key_t *)k;
	guint h = g_int64_hash(&key->mbits);
	for (size_t i = 0; i < sizeof(key->client); i++)
		h = h * 31 + key->client[i] * 7 + key->server[i];
	return h;
}

gboolean lnetcap_rpc_key_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(lnetcap_rpc_key_t)) == 0;
}
