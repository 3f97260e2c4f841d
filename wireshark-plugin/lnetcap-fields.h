/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-fields.h - the plugin's fields made from include/lnetcap/fields.h:
 * one hf per row, registered and added to the tree by the row, so that a
 * body field is named once, in that table.
 */
#ifndef LNETCAP_FIELDS_PLUGIN_H
#define LNETCAP_FIELDS_PLUGIN_H

#include "packet-lnetcap.h"

#include "lnetcap/fields.h"

/* The hf of each row (LNETCAP_BF_*), -1 until registered. */
extern int lnetcap_bf_hf[LNETCAP_BF_COUNT];

/* Registers, under proto, the hf of every row whose buffer kind is rmf. */
void lnetcap_body_fields_register(int proto, enum lnetcap_rmf rmf);

/* "Up to the last row of the kind", for lnetcap_body_fields_add(). */
#define LNETCAP_BF_KIND_END G_MAXUINT

/* Adds rows first..last (LNETCAP_BF_*, inclusive, stopping at the last row
 * of first's buffer kind: the rows of a kind are contiguous) of the
 * struct at off: each by its type, marked "not valid" when the struct's
 * valid word lacks the row's OBD_MD_* bit. */
void lnetcap_body_fields_add(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, guint off,
			     guint enc, guint first, guint last);

#endif /* LNETCAP_FIELDS_PLUGIN_H */
