/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * fields.h - the fields of PtlRPC bodies, one row each: where a field lies
 * (a member of an include/lnetcap struct, in a buffer of a kind that
 * rpc_formats.h places in each request and reply) and every name it goes
 * by.  The agent's filter parser (keyword), -p formatter (code) and text
 * printer (label) and the Wireshark plugin's field registration and
 * dissection (abbrev, name) all read these rows, so that a field is named
 * once (docs/CONTRIBUTING.md, "Adding a body field").
 *
 *   LNETCAP_BODY_FIELD_LIST(X)  X(ID, RMF, STRUCT, MEMBER, TYPE, DISPLAY, VALID,
 *                                 KEYWORD, PCODE, LABEL, ABBREV, NAME, BLURB):
 *     ID       LNETCAP_BF_ID, the row's number
 *     RMF      the buffer kind (rpc_formats.h's LNETCAP_RMF_RMF) that holds it
 *     STRUCT   the include/lnetcap struct of that buffer (its whole size must
 *              be there for any of its fields to be read, as the plugin asks)
 *     MEMBER   the member (a nested one as o_layout.ol_stripe_size)
 *     TYPE     U32, U64 (numbers), SECS (seconds since the epoch, 64 bits),
 *              OSTID (an ost_id: the plugin's own rendering; the agent
 *              offers no keyword, code or label for it)
 *     DISPLAY  DEC, HEX, OCT (numbers), NONE
 *     VALID    the OBD_MD_* bit (LNETCAP_OBD_MD_VALID) of the struct's valid
 *              word that says the member holds a value, NONE when always
 *     KEYWORD  the filter keyword ("FIELD OP NUM"), 0: not filterable
 *     PCODE    the -p code (two characters, after lnetdump's), 0: none
 *     LABEL    the text line's word (" LABEL VALUE" after the RPC), 0:
 *              not printed (a text line is short; few fields earn a place)
 *     ABBREV, NAME, BLURB  the plugin's field (hf) abbrev, display name and
 *              description (0: none; 0, not NULL: these
 *              headers include no libc)
 *
 * Rows of one buffer kind are in struct order: the plugin adds them to the
 * tree in row order.  ptlrpc_body rows: the buffer is the message's first,
 * v2 (152 bytes) or v3 (184); a row is there when the body's length
 * reaches its member (the agent prints no_ptlrpc otherwise, as lnetdump),
 * and the plugin only registers them (its body dissection interleaves
 * derived items and version checks, packet-lnetcap-ptlrpc.c).  Not rows:
 * pb_status (a request's is the sender's pid), pb_jobid (a string),
 * pb_projid (the plugin names the word by 2.16's layout, padding1).  What a row cannot say stays in the dissector's code,
 * with a comment there: derived values (the parent FID from three
 * members), arrays, unions chosen by another field.
 */
#ifndef LNETCAP_FIELDS_H
#define LNETCAP_FIELDS_H

#include "bodies.h"
#include "rpc_formats.h" /* enum lnetcap_rmf */

/* A VALID of NONE: no bit, the member always holds a value. */
#define LNETCAP_OBD_MD_NONE 0ULL

#define LNETCAP_BODY_FIELD_LIST(X) \
	X(PB_LIMIT, PTLRPC_BODY, lnetcap_ptlrpc_body, pb_limit, U32, DEC, NONE, \
	  0, "PL", 0, "lnetcap.ptlrpc.limit", "Lock limit", 0) \
	X(PB_SLV, PTLRPC_BODY, lnetcap_ptlrpc_body, pb_slv, U64, DEC, NONE, \
	  0, "PS", 0, "lnetcap.ptlrpc.slv", "Server lock volume", 0) \
	X(PB_UID, PTLRPC_BODY, lnetcap_ptlrpc_body, pb_uid, U32, DEC, NONE, \
	  "uid", "Pu", 0, "lnetcap.ptlrpc.uid", "UID", 0) \
	X(PB_GID, PTLRPC_BODY, lnetcap_ptlrpc_body, pb_gid, U32, DEC, NONE, \
	  "gid", "Pg", 0, "lnetcap.ptlrpc.gid", "GID", 0) \
	X(OA_VALID, OST_BODY, lnetcap_obdo, o_valid, U64, HEX, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.valid", "Valid", "OBD_MD_* bits") \
	X(OA_OI, OST_BODY, lnetcap_obdo, o_oi, OSTID, NONE, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.oi", "Object", "ost_id as Lustre prints it (DOSTID seq:id)") \
	X(OA_PARENT_SEQ, OST_BODY, lnetcap_obdo, o_parent_seq, U64, HEX, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.parent_seq", "Parent sequence", 0) \
	X(OA_SIZE, OST_BODY, lnetcap_obdo, o_size, U64, DEC, FLSIZE, \
	  0, 0, 0, "lnetcap.ost.oa.size", "Size", 0) \
	X(OA_MTIME, OST_BODY, lnetcap_obdo, o_mtime, SECS, NONE, FLMTIME, \
	  0, 0, 0, "lnetcap.ost.oa.mtime", "Mtime", 0) \
	X(OA_ATIME, OST_BODY, lnetcap_obdo, o_atime, SECS, NONE, FLATIME, \
	  0, 0, 0, "lnetcap.ost.oa.atime", "Atime", 0) \
	X(OA_CTIME, OST_BODY, lnetcap_obdo, o_ctime, SECS, NONE, FLCTIME, \
	  0, 0, 0, "lnetcap.ost.oa.ctime", "Ctime", 0) \
	X(OA_BLOCKS, OST_BODY, lnetcap_obdo, o_blocks, U64, DEC, FLBLOCKS, \
	  0, 0, 0, "lnetcap.ost.oa.blocks", "Blocks", 0) \
	X(OA_GRANT, OST_BODY, lnetcap_obdo, o_grant, U64, DEC, FLGRANT, \
	  "grant", "Og", "grant", "lnetcap.ost.oa.grant", "Grant", 0) \
	X(OA_BLKSIZE, OST_BODY, lnetcap_obdo, o_blksize, U32, DEC, FLBLKSZ, \
	  0, 0, 0, "lnetcap.ost.oa.blksize", "Block size", 0) \
	X(OA_MODE, OST_BODY, lnetcap_obdo, o_mode, U32, OCT, FLMODE, \
	  0, 0, 0, "lnetcap.ost.oa.mode", "Mode", 0) \
	X(OA_UID, OST_BODY, lnetcap_obdo, o_uid, U32, DEC, FLUID, \
	  0, 0, 0, "lnetcap.ost.oa.uid", "UID", 0) \
	X(OA_GID, OST_BODY, lnetcap_obdo, o_gid, U32, DEC, FLGID, \
	  0, 0, 0, "lnetcap.ost.oa.gid", "GID", 0) \
	X(OA_FLAGS, OST_BODY, lnetcap_obdo, o_flags, U32, HEX, FLFLAGS, \
	  0, 0, 0, "lnetcap.ost.oa.flags", "Flags", 0) \
	X(OA_NLINK, OST_BODY, lnetcap_obdo, o_nlink, U32, DEC, FLNLINK, \
	  0, 0, 0, "lnetcap.ost.oa.nlink", "Links", 0) \
	X(OA_PARENT_OID, OST_BODY, lnetcap_obdo, o_parent_oid, U32, HEX, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.parent_oid", "Parent oid", 0) \
	X(OA_MISC, OST_BODY, lnetcap_obdo, o_misc, U32, HEX, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.misc", "Misc", 0) \
	X(OA_IOEPOCH, OST_BODY, lnetcap_obdo, o_ioepoch, U64, HEX, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.ioepoch", "IO epoch", 0) \
	X(OA_STRIPE_IDX, OST_BODY, lnetcap_obdo, o_stripe_idx, U32, DEC, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.stripe_idx", "Stripe index", 0) \
	X(OA_PARENT_VER, OST_BODY, lnetcap_obdo, o_parent_ver, U32, HEX, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.parent_ver", "Parent version", 0) \
	X(OA_HANDLE, OST_BODY, lnetcap_obdo, o_handle, U64, HEX, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.handle", "Handle", 0) \
	X(OA_STRIPE_SIZE, OST_BODY, lnetcap_obdo, o_layout.ol_stripe_size, U32, DEC, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.layout.stripe_size", "Stripe size", 0) \
	X(OA_STRIPE_COUNT, OST_BODY, lnetcap_obdo, o_layout.ol_stripe_count, U32, DEC, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.layout.stripe_count", "Stripe count", 0) \
	X(OA_COMP_START, OST_BODY, lnetcap_obdo, o_layout.ol_comp_start, U64, DEC, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.layout.comp_start", "Component start", 0) \
	X(OA_COMP_END, OST_BODY, lnetcap_obdo, o_layout.ol_comp_end, U64, DEC, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.layout.comp_end", "Component end", 0) \
	X(OA_COMP_ID, OST_BODY, lnetcap_obdo, o_layout.ol_comp_id, U32, DEC, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.layout.comp_id", "Component id", 0) \
	X(OA_LAYOUT_VERSION, OST_BODY, lnetcap_obdo, o_layout_version, U32, DEC, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.layout_version", "Layout version", 0) \
	X(OA_UID_H, OST_BODY, lnetcap_obdo, o_uid_h, U32, DEC, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.uid_h", "UID high", 0) \
	X(OA_GID_H, OST_BODY, lnetcap_obdo, o_gid_h, U32, DEC, NONE, \
	  0, 0, 0, "lnetcap.ost.oa.gid_h", "GID high", 0) \
	X(OA_DATA_VERSION, OST_BODY, lnetcap_obdo, o_data_version, U64, HEX, FLDATAVERSION, \
	  0, 0, 0, "lnetcap.ost.oa.data_version", "Data version", 0) \
	X(OA_PROJID, OST_BODY, lnetcap_obdo, o_projid, U32, DEC, FLPROJID, \
	  0, 0, 0, "lnetcap.ost.oa.projid", "Project id", 0)

enum lnetcap_body_field_id {
#define LNETCAP_X_(id, ...) LNETCAP_BF_##id,
	LNETCAP_BODY_FIELD_LIST(LNETCAP_X_)
#undef LNETCAP_X_
	LNETCAP_BF_COUNT
};

enum lnetcap_body_field_type {
	LNETCAP_BFT_U32,
	LNETCAP_BFT_U64,
	LNETCAP_BFT_SECS,
	LNETCAP_BFT_OSTID,
};

enum lnetcap_body_field_display {
	LNETCAP_BFD_NONE,
	LNETCAP_BFD_DEC,
	LNETCAP_BFD_HEX,
	LNETCAP_BFD_OCT,
};

struct lnetcap_body_field {
	unsigned short rmf;         /* enum lnetcap_rmf */
	unsigned short struct_size; /* the buffer must hold this much */
	unsigned short offset;      /* of the member in its struct */
	unsigned short width;       /* of the member */
	unsigned char type;         /* enum lnetcap_body_field_type */
	unsigned char display;      /* enum lnetcap_body_field_display */
	unsigned long long valid_bit; /* 0: always valid */
	const char *valid_name;     /* "OBD_MD_FLSIZE" */
	const char *keyword;
	const char *pcode;
	const char *label;
	const char *abbrev;
	const char *name;
	const char *blurb;
};

static const struct lnetcap_body_field lnetcap_body_fields[] = {
#define LNETCAP_X_(id, rmf, s, member, type, display, valid, keyword, pcode, label, abbrev, \
		   name, blurb)                                                        \
	{ LNETCAP_RMF_##rmf, sizeof(struct s), LNETCAP_OFFSETOF(struct s, member),       \
	  sizeof(((struct s *)0)->member), LNETCAP_BFT_##type, LNETCAP_BFD_##display,     \
	  LNETCAP_OBD_MD_##valid, "OBD_MD_" #valid, keyword, pcode, label, abbrev, name,  \
	  blurb },
	LNETCAP_BODY_FIELD_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/* Where the valid word (the OBD_MD_* bits a row's VALID names) of a
 * buffer kind lies in its struct, or -1 when the kind has none. */
static inline int lnetcap_body_valid_offset(unsigned int rmf)
{
	if (rmf == LNETCAP_RMF_OST_BODY)
		return LNETCAP_OFF(struct lnetcap_obdo, o_valid);
	return -1;
}

#endif /* LNETCAP_FIELDS_H */
