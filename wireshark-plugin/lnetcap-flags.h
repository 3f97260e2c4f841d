/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-flags.h - bit-flag words whose per-bit fields are generated at
 * registration time from the shared X-lists (X(NAME, bit)), so a flag added
 * to include/lnetcap/ shows up in Wireshark without touching the plugin.
 * Each bit becomes <abbrev>.<name in lower case>.
 */
#ifndef LNETCAP_FLAGS_H
#define LNETCAP_FLAGS_H

#include <epan/packet.h>

typedef struct lnetcap_flag_def {
	const char *name;
	guint64 bit;
} lnetcap_flag_def_t;

typedef struct lnetcap_flagset {
	const char *abbrev;   /* "lnetcap.ptlrpc.flags" */
	const char *label;    /* "Flags" */
	int bits;             /* 16, 32 or 64 */
	const lnetcap_flag_def_t *defs;
	const guint *count;
	/* filled in by lnetcap_flagset_register() */
	int hf;
	gint ett;
	int **fields;         /* NULL-terminated, for proto_tree_add_bitmask */
} lnetcap_flagset_t;

#define LNETCAP_FLAGSET(abbrev, label, bits, defs, count)                     \
	{ abbrev, label, bits, defs, &count, -1, -1, NULL }

void lnetcap_flagset_register(int proto, lnetcap_flagset_t *fs);
proto_item *lnetcap_flagset_add(proto_tree *tree, tvbuff_t *tvb, int offset,
				guint encoding, const lnetcap_flagset_t *fs);

#endif /* LNETCAP_FLAGS_H */
