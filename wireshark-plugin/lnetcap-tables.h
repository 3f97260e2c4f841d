/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-tables.h - the per-file tables the plugin builds on the first
 * pass (request/reply, bulk, ACK kind, bulk GET, cross-node, sequence
 * domains) all go through one bounded insert.  A record adds at most a
 * fixed number of entries (a bulk range is at most 128 match bits), and a
 * table stops growing at the preference lnetcap.max_table_entries, so no
 * file, however crafted, can make Wireshark eat all memory.  What could not
 * be indexed is flagged (lnetcap.table.full) on the frame it concerns.
 */
#ifndef LNETCAP_TABLES_H
#define LNETCAP_TABLES_H

#include <epan/packet.h>
#include <epan/wmem_scopes.h>

#define LNETCAP_TABLE_LIMIT_DEFAULT 4000000

extern guint lnetcap_pref_table_limit;

/* Maps key -> value like wmem_map_insert, storing a file-scope copy of a
 * new key (key_len bytes); a new key is refused when the table is full.
 * FALSE only then. */
gboolean lnetcap_table_insert(wmem_map_t *map, const void *key, size_t key_len, void *value);

/* TRUE when map has reached the limit. */
gboolean lnetcap_table_is_full(wmem_map_t *map);

/* Expert info on this frame: it was not indexed in table `what`. */
void lnetcap_table_full_note(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			     const char *what);

void lnetcap_register_tables(int proto);

/* The key of an RPC exchange in the request/reply and phase tables: the
 * client's and the server's NIDs (lnetcap_nid_to_raw) and the match bits. */
typedef struct {
	guint8 client[20];
	guint8 server[20];
	guint64 mbits;
} lnetcap_rpc_key_t;
guint lnetcap_rpc_key_hash(gconstpointer k);
gboolean lnetcap_rpc_key_equal(gconstpointer a, gconstpointer b);

#endif /* LNETCAP_TABLES_H */
