/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * mdt_reint.h - the MDS_REINT record variants beyond the generic
 * mdt_rec_reint and mdt_rec_setattr of bodies.h: create (also open), link,
 * unlink (also rmentry), rename (also migrate), setxattr and resync.
 *
 * Every variant is 136 bytes and shares the first 40 (opcode, credentials)
 * with mdt_rec_reint; the fields after byte 40 differ per opcode, and the
 * plugin and the tests used to type those offsets as numbers.  Written from
 * the layouts of lustre_idl.h, checked field by field against v2_15_8,
 * v2_16_1 and v2_17_0 (identical for these, except resync's mirror id,
 * noted there).  Byte order: that of the enclosing lustre_msg.
 */
#ifndef LNETCAP_MDT_REINT_H
#define LNETCAP_MDT_REINT_H

#include "bodies.h"

/* The 40 bytes every variant starts with (mdt_rec_reint rr_opcode..). */
#define LNETCAP_MDT_REC_HEAD(p)                                                \
	__u32 p##_opcode;                                                      \
	__u32 p##_cap;                                                         \
	__u32 p##_fsuid;                                                       \
	__u32 p##_fsuid_h;                                                     \
	__u32 p##_fsgid;                                                       \
	__u32 p##_fsgid_h;                                                     \
	__u32 p##_suppgid1;                                                    \
	__u32 p##_suppgid1_h;                                                  \
	__u32 p##_suppgid2;                                                    \
	__u32 p##_suppgid2_h;

/* REINT_CREATE and REINT_OPEN (struct mdt_rec_create). */
struct lnetcap_mdt_rec_create {
	LNETCAP_MDT_REC_HEAD(cr)
	struct lnetcap_lu_fid cr_fid1;
	struct lnetcap_lu_fid cr_fid2;        /* the new child */
	__u64 cr_open_handle_old;             /* open replay */
	__s64 cr_time;
	__u64 cr_rdev;                        /* or __u32 cr_archive_id */
	__u64 cr_ioepoch;
	__u64 cr_padding_1;
	__u32 cr_mode;
	__u32 cr_bias;
	__u32 cr_flags_l;                     /* open flags, low 32 bits */
	__u32 cr_flags_h;
	__u32 cr_umask;
	__u32 cr_padding_4;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_mdt_rec_create, 136);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_create, cr_fid2, 56);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_create, cr_time, 80);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_create, cr_rdev, 88);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_create, cr_mode, 112);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_create, cr_bias, 116);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_create, cr_flags_l, 120);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_create, cr_flags_h, 124);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_create, cr_umask, 128);

/* Link, unlink and rename share one shape: two FIDs, a time, the bias and
 * (except link, which pads it) the mode. */
#define LNETCAP_MDT_REC_NAMEOP(p)                                              \
	LNETCAP_MDT_REC_HEAD(p)                                                \
	struct lnetcap_lu_fid p##_fid1;                                        \
	struct lnetcap_lu_fid p##_fid2;                                        \
	__s64 p##_time;                                                        \
	__u64 p##_padding_atime;                                               \
	__u64 p##_padding_ctime;                                               \
	__u64 p##_padding_size;                                                \
	__u64 p##_padding_blocks;                                              \
	__u32 p##_bias;                                                        \
	__u32 p##_mode;                                                        \
	__u32 p##_padding_flags;                                               \
	__u32 p##_padding_flags_h;                                             \
	__u32 p##_padding_umask;                                               \
	__u32 p##_padding_4;

/* REINT_LINK (struct mdt_rec_link; lk_mode is padding there). */
struct lnetcap_mdt_rec_link {
	LNETCAP_MDT_REC_NAMEOP(lk)
} LNETCAP_PACKED;
/* REINT_UNLINK and REINT_RMENTRY (struct mdt_rec_unlink). */
struct lnetcap_mdt_rec_unlink {
	LNETCAP_MDT_REC_NAMEOP(ul)
} LNETCAP_PACKED;
/* REINT_RENAME and REINT_MIGRATE (struct mdt_rec_rename). */
struct lnetcap_mdt_rec_rename {
	LNETCAP_MDT_REC_NAMEOP(rn)
} LNETCAP_PACKED;
#define LNETCAP_ASSERT_NAMEOP_(s, p)                                           \
	LNETCAP_ASSERT_SIZE(struct s, 136);                                    \
	LNETCAP_ASSERT_OFFSET(struct s, p##_fid1, 40);                         \
	LNETCAP_ASSERT_OFFSET(struct s, p##_fid2, 56);                         \
	LNETCAP_ASSERT_OFFSET(struct s, p##_time, 72);                         \
	LNETCAP_ASSERT_OFFSET(struct s, p##_bias, 112);                        \
	LNETCAP_ASSERT_OFFSET(struct s, p##_mode, 116)
LNETCAP_ASSERT_NAMEOP_(lnetcap_mdt_rec_link, lk);
LNETCAP_ASSERT_NAMEOP_(lnetcap_mdt_rec_unlink, ul);
LNETCAP_ASSERT_NAMEOP_(lnetcap_mdt_rec_rename, rn);
#undef LNETCAP_ASSERT_NAMEOP_

/* REINT_SETXATTR (struct mdt_rec_setxattr). */
struct lnetcap_mdt_rec_setxattr {
	LNETCAP_MDT_REC_HEAD(sx)
	struct lnetcap_lu_fid sx_fid;
	__u64 sx_padding_1;                   /* these three are rr_fid2 */
	__u32 sx_padding_2;
	__u32 sx_padding_3;
	__u64 sx_valid;
	__s64 sx_time;
	__u64 sx_padding_5;
	__u64 sx_padding_6;
	__u64 sx_padding_7;
	__u32 sx_size;                        /* of the xattr value */
	__u32 sx_flags;
	__u32 sx_padding_8;
	__u32 sx_padding_9;
	__u32 sx_padding_10;
	__u32 sx_padding_11;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_mdt_rec_setxattr, 136);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_setxattr, sx_valid, 72);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_setxattr, sx_time, 80);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_setxattr, sx_size, 112);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_setxattr, sx_flags, 116);

/* REINT_RESYNC (struct mdt_rec_resync).  The mirror id moved: 2.15 sends
 * it as a __u16 at byte 132 (rs_mirror_id_old); 2.16+ as a __u32 in the
 * former rr_umask at byte 128, and the old field is deprecated. */
struct lnetcap_mdt_rec_resync {
	LNETCAP_MDT_REC_HEAD(rs)
	struct lnetcap_lu_fid rs_fid;
	__u8 rs_padding0[16];
	__u64 rs_lease_handle;                /* rr_mtime */
	__s64 rs_padding1;
	__s64 rs_padding2;
	__u64 rs_padding3;
	__u64 rs_padding4;
	__u32 rs_bias;
	__u32 rs_padding5;
	__u32 rs_padding6;
	__u32 rs_padding7;
	__u32 rs_mirror_id_new;               /* 2.16+ */
	__u16 rs_mirror_id_old;               /* 2.15 */
	__u16 rs_padding9;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_mdt_rec_resync, 136);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_resync, rs_lease_handle, 72);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_resync, rs_bias, 112);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_resync, rs_mirror_id_new, 128);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_resync, rs_mirror_id_old, 132);

#endif /* LNETCAP_MDT_REINT_H */
