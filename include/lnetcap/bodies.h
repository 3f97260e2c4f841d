/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * bodies.h - PtlRPC request/reply bodies lnetcap decodes: FIDs, OST I/O
 * (obdo, obd_ioobj, niobuf_remote), LDLM (lock descriptors, requests,
 * replies, policies), MDT (mdt_body, reint records) and connect data.
 *
 * Source of truth: Lustre master c881f8ebcb, lustre_idl.h, lustre_user.h,
 * lustre_dlm_flags.h and the offsets checked by lustre/ptlrpc/wiretest.c,
 * as summarised in docs/protocol.md sections 4.1-4.3.
 * Byte order: that of the enclosing lustre_msg (see ptlrpc.h).
 */
#ifndef LNETCAP_BODIES_H
#define LNETCAP_BODIES_H

#include "compat.h"

/* --- FIDs and object ids --------------------------------------------------- */
struct lnetcap_lu_fid {
	__u64 f_seq;
	__u32 f_oid;
	__u32 f_ver;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_lu_fid, 16);

struct lnetcap_ost_id {
	__u64 oi_id; /* or the f_seq of a FID */
	__u64 oi_seq;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ost_id, 16);

/* How an ost_id is read (lustre_ostid.h ostid_seq()/ostid_id(), 2.16):
 * oi_seq 0 is a legacy group-0 object {oi_id, 0} (id masked to 48 bits),
 * oi_seq ~0 the LOV default; anything else is an lu_fid, whose IDIF
 * sequences (0x1XXXXYYYY: OST index XXXX, object id bits 32-47 YYYY) map
 * back to group 0.  Lustre prints the result as DOSTID "%#llx:%llu". */
#define LNETCAP_FID_SEQ_OST_MDT0 0ULL
#define LNETCAP_FID_SEQ_LOV_DEFAULT 0xffffffffffffffffULL
#define LNETCAP_FID_SEQ_IDIF 0x100000000ULL
#define LNETCAP_FID_SEQ_IDIF_MAX 0x1ffffffffULL
#define LNETCAP_IDIF_MAX_OID ((1ULL << 48) - 1)

/* Which obdo/mdt_body fields o_valid/mbo_valid declare valid (lustre_idl.h
 * OBD_MD_FL*, 2.16; only the bits of fields lnetcap shows). */
#define LNETCAP_OBD_MD_FLATIME 0x2ULL
#define LNETCAP_OBD_MD_FLMTIME 0x4ULL
#define LNETCAP_OBD_MD_FLCTIME 0x8ULL
#define LNETCAP_OBD_MD_FLSIZE 0x10ULL
#define LNETCAP_OBD_MD_FLBLOCKS 0x20ULL
#define LNETCAP_OBD_MD_FLBLKSZ 0x40ULL
#define LNETCAP_OBD_MD_FLMODE 0x80ULL
#define LNETCAP_OBD_MD_FLUID 0x200ULL
#define LNETCAP_OBD_MD_FLGID 0x400ULL
#define LNETCAP_OBD_MD_FLFLAGS 0x800ULL
#define LNETCAP_OBD_MD_FLNLINK 0x2000ULL
#define LNETCAP_OBD_MD_FLRDEV 0x10000ULL
#define LNETCAP_OBD_MD_FLGRANT 0x8000000ULL
#define LNETCAP_OBD_MD_FLDATAVERSION 0x0010000000000000ULL
#define LNETCAP_OBD_MD_FLPROJID 0x0100000000000000ULL
#define LNETCAP_OBD_MD_FLBTIME 0x1000000000000000ULL

/* --- OST ------------------------------------------------------------------- */
struct lnetcap_ost_layout {
	__u32 ol_stripe_size;
	__u32 ol_stripe_count;
	__u64 ol_comp_start;
	__u64 ol_comp_end;
	__u32 ol_comp_id;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ost_layout, 28);

/* struct obdo == struct ost_body (208 bytes) */
struct lnetcap_obdo {
	__u64 o_valid;
	struct lnetcap_ost_id o_oi;
	__u64 o_parent_seq;
	__u64 o_size;
	__u64 o_mtime;
	__u64 o_atime;
	__u64 o_ctime;
	__u64 o_blocks;
	__u64 o_grant;
	__u32 o_blksize;
	__u32 o_mode;
	__u32 o_uid;
	__u32 o_gid;
	__u32 o_flags;
	__u32 o_nlink;
	__u32 o_parent_oid;
	__u32 o_misc;
	__u64 o_ioepoch;
	__u32 o_stripe_idx;
	__u32 o_parent_ver;
	__u64 o_handle;
	struct lnetcap_ost_layout o_layout;
	__u32 o_layout_version;
	__u32 o_uid_h;
	__u32 o_gid_h;
	__u64 o_data_version;
	__u32 o_projid;
	__u32 o_padding_4;
	__u64 o_padding_5;
	__u64 o_padding_6;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_obdo, 208);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obdo, o_size, 32);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obdo, o_blksize, 80);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obdo, o_uid, 88);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obdo, o_parent_oid, 104);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obdo, o_ioepoch, 112);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obdo, o_handle, 128);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obdo, o_layout, 136);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obdo, o_layout_version, 164);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obdo, o_data_version, 176);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obdo, o_projid, 184);

struct lnetcap_obd_ioobj {
	struct lnetcap_ost_id ioo_oid;
	__u32 ioo_max_brw; /* number of bulk MDs = (ioo_max_brw >> 16) + 1 */
	__u32 ioo_bufcnt;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_obd_ioobj, 24);

struct lnetcap_niobuf_remote {
	__u64 rnb_offset;
	__u32 rnb_len;
	__u32 rnb_flags; /* OBD_BRW_* */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_niobuf_remote, 16);

#define LNETCAP_OBD_BRW_FLAG_LIST(X)                                           \
	X(READ, 0x1) X(WRITE, 0x2) X(NDELAY, 0x4) X(SYNC, 0x8)                \
	X(CHECK, 0x10) X(FROM_GRANT, 0x20) X(GRANTED, 0x40)                    \
	X(NOCACHE, 0x80) X(NOQUOTA, 0x100) X(SRVLOCK, 0x200)                   \
	X(ASYNC, 0x400) X(MEMALLOC, 0x800) X(OVER_USRQUOTA, 0x1000)            \
	X(OVER_GRPQUOTA, 0x2000) X(SOFT_SYNC, 0x4000)                          \
	X(OVER_PRJQUOTA, 0x8000) X(ROOT_PRJQUOTA, 0x10000)                     \
	X(RDMA_ONLY, 0x20000) X(SYS_RESOURCE, 0x40000)                         \
	X(COMPRESSED, 0x80000) X(SPECULATIVE_COMPR, 0x100000)

struct lnetcap_ost_lvb {
	__u64 lvb_size;
	__u64 lvb_mtime;
	__u64 lvb_atime;
	__u64 lvb_ctime;
	__u64 lvb_blocks;
	__u32 lvb_mtime_ns;
	__u32 lvb_atime_ns;
	__u32 lvb_ctime_ns;
	__u32 lvb_padding;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ost_lvb, 56);

/* lquota_lvb: the LVB of quota locks (LDLM_PLAIN locks of the quota master,
 * lustre_idl.h). */
struct lnetcap_lquota_lvb {
	__u64 lvb_flags;
	__u64 lvb_id_may_rel; /* lvb_glb_ver on the global index lock */
	__u64 lvb_id_rel;
	__u64 lvb_id_qunit;
	__u64 lvb_pad1;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_lquota_lvb, 40);

/* --- LOV layouts (lustre_user.h/lustre_idl.h, 2.16): the LVB of layout
 * locks and the MDT_MD buffer of getattr/open replies. ---------------------- */
#define LNETCAP_LOV_MAGIC_V1 0x0BD10BD0U
#define LNETCAP_LOV_MAGIC_V3 0x0BD30BD0U
#define LNETCAP_LOV_MAGIC_COMP_V1 0x0BD60BD0U
#define LNETCAP_LOV_MAGIC_FOREIGN 0x0BD70BD0U
#define LNETCAP_LOV_MAXPOOLNAME 15

struct lnetcap_lov_mds_md_v1 {
	__u32 lmm_magic;
	__u32 lmm_pattern;
	__u64 lmm_oi_id;  /* the file's FID as fid_to_lmm_oi() packs it: f_oid */
	__u64 lmm_oi_seq; /* ... and f_seq */
	__u32 lmm_stripe_size;
	__u16 lmm_stripe_count;
	__u16 lmm_layout_gen;
	/* lov_ost_data_v1 lmm_objects[] (v1); v3 has lmm_pool_name[16] first */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_lov_mds_md_v1, 32);
#define LNETCAP_LOV_MDS_MD_V3_LEN 48
/* lov_mds_md_v3: the v1 header, then the pool name, then the objects. */
struct lnetcap_lov_mds_md_v3 {
	struct lnetcap_lov_mds_md_v1 lmm_v1;
	char lmm_pool_name[LNETCAP_LOV_MAXPOOLNAME + 1];
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_lov_mds_md_v3, LNETCAP_LOV_MDS_MD_V3_LEN);

struct lnetcap_lov_ost_data_v1 {
	struct lnetcap_ost_id l_ost_oi;
	__u32 l_ost_gen;
	__u32 l_ost_idx;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_lov_ost_data_v1, 24);

struct lnetcap_lov_comp_md_v1 {
	__u32 lcm_magic;
	__u32 lcm_size;
	__u32 lcm_layout_gen;
	__u16 lcm_flags;
	__u16 lcm_entry_count;
	__u16 lcm_mirror_count; /* mirrors - 1 */
	__u8 lcm_ec_count;
	__u8 lcm_padding3;
	__u16 lcm_padding1[2];
	__u64 lcm_padding2;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_lov_comp_md_v1, 32);

struct lnetcap_lov_comp_md_entry_v1 {
	__u32 lcme_id;    /* bits 16-30: mirror id */
	__u32 lcme_flags; /* LCME_FL_* */
	__u64 lcme_extent_start;
	__u64 lcme_extent_end;
	__u32 lcme_offset; /* of the component's lov_mds_md, from lcm_magic */
	__u32 lcme_size;
	__u32 lcme_layout_gen;
	__u64 lcme_timestamp;
	__u8 lcme_dstripe_count;
	__u8 lcme_cstripe_count;
	__u8 lcme_compr_type;
	__u8 lcme_compr_lvl_bits; /* level:4, chunk_log_bits:4 */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_lov_comp_md_entry_v1, 48);

#define LNETCAP_LCME_FLAG_LIST(X)                                              \
	X(STALE, 0x1) X(PREF_RD, 0x2) X(PREF_WR, 0x4) X(OFFLINE, 0x8)           \
	X(INIT, 0x10) X(NOSYNC, 0x20) X(EXTENSION, 0x40) X(PARITY, 0x80)       \
	X(COMPRESS, 0x100) X(PARTIAL, 0x200) X(NOCOMPR, 0x400)

/* --- LDLM ------------------------------------------------------------------ */
#define LNETCAP_LDLM_MODE_LIST(X)                                              \
	X(MINMODE, 0) X(EX, 1) X(PW, 2) X(PR, 4) X(CW, 8) X(CR, 16)            \
	X(NL, 32) X(GROUP, 64) X(COS, 128) X(TXN, 256)

#define LNETCAP_LDLM_TYPE_LIST(X)                                              \
	X(PLAIN, 10) X(EXTENT, 11) X(FLOCK, 12) X(IBITS, 13)

enum lnetcap_ldlm_type {
#define LNETCAP_X_(name, value) LNETCAP_LDLM_##name = value,
	LNETCAP_LDLM_TYPE_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

#define LNETCAP_MDS_INODELOCK_LIST(X)                                          \
	X(LOOKUP, 0x1) X(UPDATE, 0x2) X(OPEN, 0x4) X(LAYOUT, 0x8)             \
	X(PERM, 0x10) X(XATTR, 0x20) X(DOM, 0x40)

enum lnetcap_mds_inodelock {
#define LNETCAP_X_(name, value) LNETCAP_MDS_INODELOCK_##name = value,
	LNETCAP_MDS_INODELOCK_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/* Intent dispositions: lock_policy_res1 of an intent enqueue reply
 * (lustre_idl.h DISP_*, 2.16). */
#define LNETCAP_DISP_LIST(X)                                                   \
	X(IT_EXECD, 0x1) X(LOOKUP_EXECD, 0x2) X(LOOKUP_NEG, 0x4)               \
	X(LOOKUP_POS, 0x8) X(OPEN_CREATE, 0x10) X(OPEN_OPEN, 0x20)             \
	X(ENQ_COMPLETE, 0x400000) X(ENQ_OPEN_REF, 0x800000)                    \
	X(ENQ_CREATE_REF, 0x1000000) X(OPEN_LOCK, 0x2000000)                   \
	X(OPEN_LEASE, 0x4000000) X(OPEN_STRIPE, 0x8000000) X(OPEN_DENY, 0x10000000)

/* Wire bits of ldlm_request/ldlm_reply lock_flags (low 32 bits of LDLM_FL_*). */
#define LNETCAP_LDLM_FLAG_LIST(X)                                              \
	X(LOCK_CHANGED, 0x1) X(BLOCK_GRANTED, 0x2) X(BLOCK_WAIT, 0x8)         \
	X(SPECULATIVE, 0x10) X(AST_SENT, 0x20) X(CONTENTION, 0x40)             \
	X(REPLAY, 0x100) X(INTENT_ONLY, 0x200) X(HAS_INTENT, 0x1000)           \
	X(FLOCK_DEADLOCK, 0x8000) X(DISCARD_DATA, 0x10000)                     \
	X(NO_TIMEOUT, 0x20000) X(BLOCK_NOWAIT, 0x40000) X(TEST_LOCK, 0x80000)  \
	X(MATCH_LOCK, 0x100000) X(CANCEL_ON_BLOCK, 0x800000)                   \
	X(CONVERTING, 0x2000000) X(NO_EXPANSION, 0x20000000)                   \
	X(DENY_ON_CONTENTION, 0x40000000) X(AST_DISCARD_DATA, 0x80000000)

#define LNETCAP_LDLM_FL_HAS_INTENT 0x1000U

/* ldlm_intent.opc (IT_*) */
#define LNETCAP_INTENT_LIST(X)                                                 \
	X(OPEN, 0x1) X(CREAT, 0x2) X(READDIR, 0x4) X(GETATTR, 0x8)            \
	X(LOOKUP, 0x10) X(GETXATTR, 0x80) X(LAYOUT, 0x400)                     \
	X(QUOTA_DQACQ, 0x800) X(QUOTA_CONN, 0x1000) X(GLIMPSE, 0x4000)         \
	X(BRW, 0x8000)

struct lnetcap_ldlm_res_id {
	__u64 name[4];
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ldlm_res_id, 32);

struct lnetcap_ldlm_resource_desc {
	__u32 lr_type;
	__u32 lr_pad;
	struct lnetcap_ldlm_res_id lr_name;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ldlm_resource_desc, 40);

struct lnetcap_ldlm_extent {
	__u64 start;
	__u64 end;
	__u64 gid;
} LNETCAP_PACKED;
struct lnetcap_ldlm_flock {
	__u64 lfw_start;
	__u64 lfw_end;
	__u64 lfw_owner;
	__u32 lfw_padding;
	__u32 lfw_pid;
} LNETCAP_PACKED;
struct lnetcap_ldlm_inodebits {
	__u64 bits;
	__u64 try_bits; /* or cancel_bits */
	__u64 li_gid;
	__u32 li_padding;
	__u32 li_initiator_id;
} LNETCAP_PACKED;
union lnetcap_ldlm_policy {
	struct lnetcap_ldlm_extent l_extent;
	struct lnetcap_ldlm_flock l_flock;
	struct lnetcap_ldlm_inodebits l_inodebits;
	__u8 raw[32];
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(union lnetcap_ldlm_policy, 32);

struct lnetcap_ldlm_lock_desc {
	struct lnetcap_ldlm_resource_desc l_resource;
	__u32 l_req_mode;
	__u32 l_granted_mode;
	union lnetcap_ldlm_policy l_policy_data;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ldlm_lock_desc, 80);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ldlm_lock_desc, l_req_mode, 40);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ldlm_lock_desc, l_policy_data, 48);

struct lnetcap_ldlm_request {
	__u32 lock_flags;
	__u32 lock_count;
	struct lnetcap_ldlm_lock_desc lock_desc;
	/* __u64 lock_handle[] follows: at least LNETCAP_LDLM_LOCKREQ_HANDLES */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ldlm_request, 88);
#define LNETCAP_LDLM_LOCKREQ_HANDLES 2
/* An LDLM_ENQUEUE's lock_handle[0] is the enqueued lock; early-cancelled
 * locks follow it (ldlm_prep_enqueue_req(): LDLM_ENQUEUE_CANCEL_OFF). */
#define LNETCAP_LDLM_ENQUEUE_CANCEL_OFF 1

struct lnetcap_ldlm_reply {
	__u32 lock_flags;
	__u32 lock_padding;
	struct lnetcap_ldlm_lock_desc lock_desc;
	__u64 lock_handle;
	__u64 lock_policy_res1;
	__u64 lock_policy_res2;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ldlm_reply, 112);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ldlm_reply, lock_handle, 88);

/* --- MDT ------------------------------------------------------------------- */
struct lnetcap_mdt_body {
	struct lnetcap_lu_fid mbo_fid1;
	struct lnetcap_lu_fid mbo_fid2;
	__u64 mbo_open_handle;
	__u64 mbo_valid;
	__u64 mbo_size;
	__u64 mbo_mtime;
	__u64 mbo_atime;
	__u64 mbo_ctime;
	__u64 mbo_blocks;
	__u64 mbo_version;
	__u64 mbo_t_state;
	__u32 mbo_fsuid;
	__u32 mbo_fsgid;
	__u32 mbo_capability;
	__u32 mbo_mode;
	__u32 mbo_uid;
	__u32 mbo_gid;
	__u32 mbo_flags;
	__u32 mbo_rdev;
	__u32 mbo_nlink;
	__u32 mbo_layout_gen;
	__u32 mbo_suppgid;
	__u32 mbo_eadatasize;
	__u32 mbo_aclsize;
	__u32 mbo_max_mdsize;
	__u32 mbo_unused3;
	__u32 mbo_uid_h;
	__u32 mbo_gid_h;
	__u32 mbo_projid;
	__u64 mbo_dom_size;
	__u64 mbo_dom_blocks;
	__u64 mbo_btime;
	__u64 mbo_xattr_absent; /* 2.17; mbo_padding_9 in 2.16 */
	__u64 mbo_padding_10;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_mdt_body, 216);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_body, mbo_valid, 40);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_body, mbo_fsuid, 104);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_body, mbo_mode, 116);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_body, mbo_flags, 128);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_body, mbo_projid, 172);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_body, mbo_dom_size, 176);

struct lnetcap_mdt_ioepoch {
	__u64 mio_open_handle;
	__u64 mio_unused1;
	__u32 mio_unused2;
	__u32 mio_padding;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_mdt_ioepoch, 24);

/* MDS_SWAP_LAYOUTS request (layout.c RQF_MDS_SWAP_LAYOUTS, 2.15-2.17):
 * PTLRPC_BODY, MDT_BODY (the two files in mbo_fid1/mbo_fid2), SWAP_LAYOUTS
 * (struct mdc_swap_layouts), CAPA1, CAPA2, DLM_REQ (early lock cancels,
 * ldlm_prep_elc_req()); the reply is the ptlrpc_body alone. */
struct lnetcap_mdc_swap_layouts {
	__u64 msl_flags;      /* SWAP_LAYOUTS_* of lustre_user.h */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_mdc_swap_layouts, 8);
#define LNETCAP_SWAP_LAYOUTS_REQ_MDT_BODY 1
#define LNETCAP_SWAP_LAYOUTS_REQ_SWAP     2
#define LNETCAP_SWAP_LAYOUTS_REQ_DLM_REQ  5
#define LNETCAP_SWAP_LAYOUTS_CHECK_DV1  (1ULL << 0)
#define LNETCAP_SWAP_LAYOUTS_CHECK_DV2  (1ULL << 1)
#define LNETCAP_SWAP_LAYOUTS_KEEP_MTIME (1ULL << 2)
#define LNETCAP_SWAP_LAYOUTS_KEEP_ATIME (1ULL << 3)
#define LNETCAP_SWAP_LAYOUTS_CLOSE      (1ULL << 4)
#define LNETCAP_SWAP_LAYOUTS_MDS_RELEASE (1ULL << 31)

#define LNETCAP_REINT_LIST(X)                                                  \
	X(SETATTR, 1) X(CREATE, 2) X(LINK, 3) X(UNLINK, 4) X(RENAME, 5)       \
	X(OPEN, 6) X(SETXATTR, 7) X(RMENTRY, 8) X(MIGRATE, 9) X(RESYNC, 10)

enum lnetcap_reint_op {
#define LNETCAP_X_(name, value) LNETCAP_REINT_##name = value,
	LNETCAP_REINT_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/* Generic reint record (every mdt_rec_* variant is 136 bytes and shares the
 * first 40 bytes).  The variants' own fields after byte 40 are defined by
 * lnetcap_mdt_rec_setattr below and the structs of mdt_reint.h. */
struct lnetcap_mdt_rec_reint {
	__u32 rr_opcode;
	__u32 rr_cap;
	__u32 rr_fsuid;
	__u32 rr_fsuid_h;
	__u32 rr_fsgid;
	__u32 rr_fsgid_h;
	__u32 rr_suppgid1;
	__u32 rr_suppgid1_h;
	__u32 rr_suppgid2;
	__u32 rr_suppgid2_h;
	struct lnetcap_lu_fid rr_fid1;
	struct lnetcap_lu_fid rr_fid2;
	__u64 rr_mtime;
	__u64 rr_atime;
	__u64 rr_ctime;
	__u64 rr_size;
	__u64 rr_blocks;
	__u32 rr_bias;
	__u32 rr_mode;
	__u32 rr_flags;
	__u32 rr_flags_h;
	__u32 rr_umask;
	__u16 rr_mirror_id;
	__u16 rr_padding_4;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_mdt_rec_reint, 136);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_reint, rr_fid1, 40);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_reint, rr_fid2, 56);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_reint, rr_bias, 112);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_reint, rr_umask, 128);

/* The REINT_SETATTR variant (struct mdt_rec_setattr): the ids it sets. */
struct lnetcap_mdt_rec_setattr {
	__u32 sa_opcode;
	__u32 sa_cap;
	__u32 sa_fsuid;
	__u32 sa_fsuid_h;
	__u32 sa_fsgid;
	__u32 sa_fsgid_h;
	__u32 sa_suppgid;
	__u32 sa_suppgid_h;
	__u32 sa_padding_1;
	__u32 sa_padding_1_h;
	struct lnetcap_lu_fid sa_fid;
	__u64 sa_valid;
	__u32 sa_uid;
	__u32 sa_gid;
	__u64 sa_size;
	__u64 sa_blocks;
	__s64 sa_mtime;
	__s64 sa_atime;
	__s64 sa_ctime;
	__u32 sa_attr_flags;
	__u32 sa_mode;
	__u32 sa_bias;
	__u32 sa_projid;
	__u32 sa_padding_4;
	__u32 sa_padding_5;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_mdt_rec_setattr, 136);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_setattr, sa_uid, 64);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_setattr, sa_gid, 68);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mdt_rec_setattr, sa_projid, 124);

/* The other variants (create, link, unlink, rename, setxattr, resync) are
 * in mdt_reint.h. */

/* --- Statfs (OST_STATFS / MDS_STATFS reply, docs/protocol.md 4.3) ---------- */
struct lnetcap_obd_statfs {
	__u64 os_type;
	__u64 os_blocks;
	__u64 os_bfree;
	__u64 os_bavail;
	__u64 os_files;
	__u64 os_ffree;
	__u8 os_fsid[40];
	__u32 os_bsize;
	__u32 os_namelen;
	__u64 os_maxbytes;
	__u32 os_state;
	__u32 os_fprecreated;
	__u32 os_granted;
	__u32 os_spare3[7];
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_obd_statfs, 144);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obd_statfs, os_fsid, 48);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obd_statfs, os_bsize, 88);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obd_statfs, os_maxbytes, 96);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obd_statfs, os_state, 104);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obd_statfs, os_granted, 112);

/* --- Connect ---------------------------------------------------------------- */
#define LNETCAP_OBD_UUID_LEN 40

struct lnetcap_obd_connect_data {
	__u64 ocd_connect_flags;
	__u32 ocd_version;
	__u32 ocd_grant;
	__u32 ocd_index;
	__u32 ocd_brw_size;
	__u64 ocd_ibits_known;
	__u8 ocd_grant_blkbits;
	__u8 ocd_grant_inobits;
	__u16 ocd_grant_tax_kb;
	__u32 ocd_grant_max_blks;
	__u64 ocd_transno;
	__u32 ocd_group;
	__u32 ocd_cksum_types;
	__u32 ocd_max_easize;
	__u32 ocd_instance;
	__u64 ocd_maxbytes;
	__u16 ocd_maxmodrpcs;
	__u8 ocd_conn_policy;
	__u8 padding0;
	__u32 padding1;
	__u64 ocd_connect_flags2;
	__u64 ocd_compr_type;
	__u64 padding4_to_f[12];
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_obd_connect_data, 192);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obd_connect_data, ocd_ibits_known, 24);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obd_connect_data, ocd_transno, 40);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obd_connect_data, ocd_maxbytes, 64);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obd_connect_data, ocd_connect_flags2, 80);

#define LNETCAP_OBD_CONNECT2_REP_MBITS 0x100000ULL
#define LNETCAP_OBD_CONNECT_BULK_MBITS 0x2000000000000000ULL

/* ocd_connect_flags (OBD_CONNECT_*), docs/protocol.md 4.3.  X(NAME, bit) */
#define LNETCAP_OBD_CONNECT_FLAG_LIST(X)                                       \
	X(RDONLY, 0x1ULL) X(INDEX, 0x2ULL) X(MDS, 0x4ULL) X(GRANT, 0x8ULL)     \
	X(SRVLOCK, 0x10ULL) X(VERSION, 0x20ULL) X(MGS_NIDLIST, 0x40ULL)        \
	X(ACL, 0x80ULL) X(XATTR, 0x100ULL) X(LARGE_ACL, 0x200ULL)              \
	X(OLD_FALLOC, 0x400ULL) X(TRANSNO, 0x800ULL) X(IBITS, 0x1000ULL)       \
	X(BARRIER, 0x2000ULL) X(ATTRFID, 0x4000ULL) X(NODEVOH, 0x8000ULL)      \
	X(RMT_CLIENT, 0x10000ULL) X(RMT_CLIENT_FORCE, 0x20000ULL)              \
	X(BRW_SIZE, 0x40000ULL) X(QUOTA64, 0x80000ULL)                         \
	X(MDS_CAPA, 0x100000ULL) X(OSS_CAPA, 0x200000ULL)                      \
	X(CANCELSET, 0x400000ULL) X(SOM, 0x800000ULL) X(AT, 0x1000000ULL)      \
	X(LRU_RESIZE, 0x2000000ULL) X(MDS_MDS, 0x4000000ULL)                   \
	X(REAL, 0x8000000ULL) X(CHANGE_QS, 0x10000000ULL)                      \
	X(CKSUM, 0x20000000ULL) X(FID, 0x40000000ULL) X(VBR, 0x80000000ULL)    \
	X(LOV_V3, 0x100000000ULL) X(GRANT_SHRINK, 0x200000000ULL)              \
	X(SKIP_ORPHAN, 0x400000000ULL) X(MAX_EASIZE, 0x800000000ULL)           \
	X(FULL20, 0x1000000000ULL) X(LAYOUTLOCK, 0x2000000000ULL)              \
	X(64BITHASH, 0x4000000000ULL) X(MAXBYTES, 0x8000000000ULL)             \
	X(IMP_RECOV, 0x10000000000ULL) X(JOBSTATS, 0x20000000000ULL)           \
	X(UMASK, 0x40000000000ULL) X(EINPROGRESS, 0x80000000000ULL)            \
	X(GRANT_PARAM, 0x100000000000ULL) X(HPREQ_CHECK1, 0x200000000000ULL)   \
	X(LVB_TYPE, 0x400000000000ULL) X(NANOSEC_TIME, 0x800000000000ULL)      \
	X(LIGHTWEIGHT, 0x1000000000000ULL) X(SHORTIO, 0x2000000000000ULL)      \
	X(PINGLESS, 0x4000000000000ULL) X(FLOCK_DEAD, 0x8000000000000ULL)      \
	X(DISP_STRIPE, 0x10000000000000ULL)                                    \
	X(OPEN_BY_FID, 0x20000000000000ULL) X(LFSCK, 0x40000000000000ULL)      \
	X(UNLINK_CLOSE, 0x100000000000000ULL)                                  \
	X(MULTIMODRPCS, 0x200000000000000ULL)                                  \
	X(DIR_STRIPE, 0x400000000000000ULL) X(SUBTREE, 0x800000000000000ULL)   \
	X(BULK_MBITS, 0x2000000000000000ULL)                                   \
	X(OBDOPACK, 0x4000000000000000ULL) X(FLAGS2, 0x8000000000000000ULL)

/* ocd_connect_flags2 (OBD_CONNECT2_*), docs/protocol.md 4.3.  X(NAME, bit) */
#define LNETCAP_OBD_CONNECT2_FLAG_LIST(X)                                      \
	X(FILE_SECCTX, 0x1ULL) X(LOCKAHEAD, 0x2ULL) X(DIR_MIGRATE, 0x4ULL)     \
	X(SUM_STATFS, 0x8ULL) X(OVERSTRIPING, 0x10ULL) X(FLR, 0x20ULL)         \
	X(WBC_INTENTS, 0x40ULL) X(LOCK_CONVERT, 0x80ULL)                       \
	X(ARCHIVE_ID_ARRAY, 0x100ULL) X(INC_XID, 0x200ULL)                     \
	X(SELINUX_POLICY, 0x400ULL) X(LSOM, 0x800ULL) X(PCC, 0x1000ULL)        \
	X(CRUSH, 0x2000ULL) X(ASYNC_DISCARD, 0x4000ULL) X(ENCRYPT, 0x8000ULL)  \
	X(FIDMAP, 0x10000ULL) X(GETATTR_PFID, 0x20000ULL) X(LSEEK, 0x40000ULL) \
	X(DOM_LVB, 0x80000ULL) X(REP_MBITS, 0x100000ULL)                       \
	X(MODE_CONVERT, 0x200000ULL) X(BATCH_RPC, 0x400000ULL)                 \
	X(PCCRO, 0x800000ULL) X(LOCK_CONTENTION, 0x2000000ULL)                 \
	X(ATOMIC_OPEN_LOCK, 0x4000000ULL) X(ENCRYPT_NAME, 0x8000000ULL)        \
	X(DMV_IMP_INHERIT, 0x20000000ULL)                                      \
	X(ENCRYPT_FID2PATH, 0x40000000ULL) X(REPLAY_CREATE, 0x80000000ULL)     \
	X(LARGE_NID, 0x100000000ULL) X(COMPRESS, 0x200000000ULL)               \
	X(UNALIGNED_DIO, 0x400000000ULL) X(CONN_POLICY, 0x800000000ULL)        \
	X(SPARSE, 0x1000000000ULL) X(MIRROR_ID_FIX, 0x2000000000ULL)           \
	X(UPDATE_LAYOUT, 0x4000000000ULL) X(FLR_EC, 0x10000000000ULL)          \
	X(FLR_IMMED_MIRROR, 0x20000000000ULL) X(NO_APPEND, 0x40000000000ULL)   \
	X(FLR_EC_WR, 0x80000000000ULL) X(PERFSTATS, 0x100000000000ULL)

/* --- MGS (lustre_idl.h of Lustre 2.16; layout.c RQF_MGS_*) ------------------
 * MGS_TARGET_REG carries a mgs_target_info both ways, MGS_CONFIG_READ a
 * mgs_config_body in the request and a mgs_config_res in the reply. */
#define LNETCAP_MTI_NAME_MAXLEN 64
#define LNETCAP_MTI_PARAM_MAXLEN 4096
#define LNETCAP_MTI_NIDS_MAX 32

struct lnetcap_mgs_target_info {
	__u32 mti_lustre_ver;
	__u32 mti_stripe_index;
	__u32 mti_config_ver;
	__u32 mti_flags;          /* LDD_F_* */
	__u32 mti_nid_count;
	__u32 mti_instance;
	char mti_fsname[LNETCAP_MTI_NAME_MAXLEN];
	char mti_svname[LNETCAP_MTI_NAME_MAXLEN];
	char mti_uuid[40];
	__u64 mti_nids[LNETCAP_MTI_NIDS_MAX]; /* lnet_nid_t */
	char mti_params[LNETCAP_MTI_PARAM_MAXLEN];
	/* then mti_nidlist[][LNET_NIDSTR_SIZE] (large NIDs as text) */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_mgs_target_info, 4544);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mgs_target_info, mti_fsname, 24);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mgs_target_info, mti_nids, 192);
LNETCAP_ASSERT_OFFSET(struct lnetcap_mgs_target_info, mti_params, 448);

/* mti_flags, lustre_disk.h.  X(NAME, bit) */
#define LNETCAP_LDD_FLAG_LIST(X)                                               \
	X(SV_TYPE_MDT, 0x1) X(SV_TYPE_OST, 0x2) X(SV_TYPE_MGS, 0x4)            \
	X(SV_ALL, 0x8) X(NEED_INDEX, 0x10) X(VIRGIN, 0x20) X(UPDATE, 0x40)     \
	X(REWRITE_LDD, 0x80) X(WRITECONF, 0x100) X(PARAM, 0x400)               \
	X(NO_PRIMNODE, 0x1000) X(IR_CAPABLE, 0x2000) X(ERROR, 0x4000)          \
	X(PARAM2, 0x8000) X(NO_LOCAL_LOGS, 0x10000)

struct lnetcap_mgs_config_body {
	char mcb_name[LNETCAP_MTI_NAME_MAXLEN]; /* log name */
	__u64 mcb_offset;        /* next index of the log to send */
	__u16 mcb_type;          /* MGS_CFG_T_* */
	__u8 mcb_pass_or_nid_size; /* nodemap: mcb_nm_cur_pass; recover: mcb_rec_nid_size */
	__u8 mcb_bits;           /* log2 of the bulk unit size */
	__u32 mcb_units;         /* units in the bulk */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_mgs_config_body, 80);

struct lnetcap_mgs_config_res {
	__u64 mcr_offset;        /* index of the last record sent */
	__u64 mcr_size;          /* log size (nodemap logs: mcr_nm_cur_pass) */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_mgs_config_res, 16);

/* mcb_type.  X(NAME, value) */
#define LNETCAP_MGS_CFG_TYPE_LIST(X)                                           \
	X(CONFIG, 0) X(SPTLRPC, 1) X(RECOVER, 2) X(PARAMS, 3) X(NODEMAP, 4)    \
	X(BARRIER, 5)
#define LNETCAP_MGS_CFG_T_RECOVER 2
#define LNETCAP_MGS_CFG_T_NODEMAP 4

/* --- LLOG (lustre_idl.h, lustre_cfg.h of Lustre 2.16; layout.c RQF_LLOG_*) --
 * Every LLOG RPC carries a llogd_body; LLOG_ORIGIN_HANDLE_CREATE adds the
 * log's name, READ_HEADER's reply is a llog_log_hdr, NEXT/PREV_BLOCK's reply
 * a block of records (EADATA), each llog_rec_hdr + body + llog_rec_tail. */
struct lnetcap_llogd_body {
	struct lnetcap_ost_id lgd_logid_oi; /* llog_logid.lgl_oi */
	__u32 lgd_logid_ogen;               /* llog_logid.lgl_ogen */
	__u32 lgd_ctxt_idx;
	__u32 lgd_llh_flags;
	__u32 lgd_index;
	__u32 lgd_saved_index;
	__u32 lgd_len;
	__u64 lgd_cur_offset;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_llogd_body, 48);

struct lnetcap_llog_rec_hdr {
	__u32 lrh_len;
	__u32 lrh_index;
	__u32 lrh_type;
	__u32 lrh_id;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_llog_rec_hdr, 16);

struct lnetcap_llog_rec_tail {
	__u32 lrt_len;
	__u32 lrt_index;
} LNETCAP_PACKED;

/* The fixed head of llog_log_hdr (then llh_reserved, the bitmap from
 * llh_bitmap_offset, and the tail: 8192 bytes in all). */
struct lnetcap_llog_log_hdr {
	struct lnetcap_llog_rec_hdr llh_hdr;
	__s64 llh_timestamp;
	__u32 llh_count;
	__u32 llh_bitmap_offset;
	__u32 llh_size;
	__u32 llh_flags;
	__u32 llh_cat_idx;
	char llh_tgtuuid[40];
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_llog_log_hdr, 84);

/* lrh_type values (enum llog_op_type).  X(NAME, value) */
#define LNETCAP_LLOG_TYPE_LIST(X)                                              \
	X(LLOG_PAD_MAGIC, 0x10600000) X(OST_SZ_REC, 0x10600f00)                \
	X(MDS_UNLINK_REC, 0x10612404) X(MDS_UNLINK64_REC, 0x10692404)          \
	X(MDS_SETATTR64_REC, 0x10692401) X(OBD_CFG_REC, 0x10620000)            \
	X(LLOG_GEN_REC, 0x10640000) X(CHANGELOG_REC, 0x10660000)               \
	X(CHANGELOG_USER_REC, 0x10670000) X(CHANGELOG_USER_REC2, 0x10670002)   \
	X(HSM_AGENT_REC, 0x10680000) X(UPDATE_REC, 0x106a0000)                 \
	X(LLOG_HDR_MAGIC, 0x10645539) X(LLOG_LOGID_MAGIC, 0x1064553b)
#define LNETCAP_OBD_CFG_REC 0x10620000U

/* llh_flags / lgd_llh_flags (enum llog_flag).  X(NAME, bit) */
#define LNETCAP_LLOG_FLAG_LIST(X)                                              \
	X(ZAP_WHEN_EMPTY, 0x1) X(IS_CAT, 0x2) X(IS_PLAIN, 0x4)                 \
	X(EXT_JOBID, 0x8) X(IS_FIXSIZE, 0x10) X(EXT_EXTRA_FLAGS, 0x20)         \
	X(EXT_X_UIDGID, 0x40) X(EXT_X_NID, 0x80) X(EXT_X_OMODE, 0x100)         \
	X(EXT_X_XATTR, 0x200) X(RM_ON_ERR, 0x400) X(MAX_AGE, 0x800)            \
	X(EXT_X_NID_BE, 0x1000)

/* The body of an OBD_CFG_REC record: lustre_cfg, then lcfg_buflens[]
 * (header rounded up to 8), then the buffers, each rounded up to 8. */
struct lnetcap_lustre_cfg {
	__u32 lcfg_version;
	__u32 lcfg_command;
	__u32 lcfg_num;
	__u32 lcfg_flags;
	__u64 lcfg_nid;
	__u32 lcfg_nal;
	__u32 lcfg_bufcount;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_lustre_cfg, 32);
#define LNETCAP_LUSTRE_CFG_VERSION 0x1cf60001U
#define LNETCAP_LCFG_MARKER 0x00cf010U

/* lcfg_command (enum lcfg_command_type, the common ones).  X(NAME, value) */
#define LNETCAP_LCFG_CMD_LIST(X)                                               \
	X(ATTACH, 0xcf001) X(DETACH, 0xcf002) X(SETUP, 0xcf003)                \
	X(CLEANUP, 0xcf004) X(ADD_UUID, 0xcf005) X(DEL_UUID, 0xcf006)          \
	X(MOUNTOPT, 0xcf007) X(DEL_MOUNTOPT, 0xcf008) X(SET_TIMEOUT, 0xcf009)  \
	X(ADD_CONN, 0xcf00b) X(DEL_CONN, 0xcf00c) X(LOV_ADD_OBD, 0xcf00d)      \
	X(LOV_DEL_OBD, 0xcf00e) X(PARAM, 0xcf00f) X(MARKER, 0xcf010)           \
	X(LOG_START, 0xce011) X(LOG_END, 0xce012) X(LOV_ADD_INA, 0xce013)      \
	X(ADD_MDC, 0xcf014) X(DEL_MDC, 0xcf015) X(SPTLRPC_CONF, 0xce016)       \
	X(POOL_NEW, 0xce020) X(POOL_ADD, 0xce021) X(POOL_REM, 0xce022)         \
	X(POOL_DEL, 0xce023) X(SET_LDLM_TIMEOUT, 0xce030)                      \
	X(PRE_CLEANUP, 0xcf031) X(SET_PARAM, 0xce032)

/* Buffer 1 of an LCFG_MARKER record. */
struct lnetcap_cfg_marker {
	__u32 cm_step;
	__u32 cm_flags;        /* CM_* */
	__u32 cm_vers;
	__u32 cm_padding;
	__s64 cm_createtime;
	__s64 cm_canceltime;
	char cm_tgtname[LNETCAP_MTI_NAME_MAXLEN];
	char cm_comment[LNETCAP_MTI_NAME_MAXLEN];
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_cfg_marker, 160);

/* cm_flags.  X(NAME, bit) */
#define LNETCAP_CM_FLAG_LIST(X)                                                \
	X(START, 0x1) X(END, 0x2) X(SKIP, 0x4) X(UPGRADE146, 0x8) X(EXCLUDE, 0x10)

/* --- SEQ (lustre_idl.h of Lustre 2.16; layout.c RQF_SEQ_QUERY) -------------
 * SEQ_QUERY: request SEQ_OPC (u32) and SEQ_RANGE, reply SEQ_RANGE. */
struct lnetcap_lu_seq_range {
	__u64 lsr_start;
	__u64 lsr_end;
	__u32 lsr_index;         /* MDT or OST index */
	__u32 lsr_flags;         /* LU_SEQ_RANGE_* */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_lu_seq_range, 24);

/* seq_op.  X(NAME, value) */
#define LNETCAP_SEQ_OP_LIST(X) X(SEQ_ALLOC_SUPER, 0) X(SEQ_ALLOC_META, 1)
/* lsr_flags (enum lu_seq_range_types).  X(NAME, value) */
#define LNETCAP_SEQ_RANGE_TYPE_LIST(X) X(MDT, 0) X(OST, 1) X(ANY, 3)

/* --- MDT extras: xattrs, POSIX ACLs, DoM inline data, layout intent ---------
 * Lustre 2.15.0, 2.16.1 and 2.17.0 agree on every slot and struct below
 * (lustre/ptlrpc/layout.c, lustre/include/uapi/linux/lustre/lustre_idl.h),
 * except where a comment names a version. */
#define LNETCAP_OBD_MD_DOM_SIZE 0x1000ULL               /* mbo_dom_size valid */
#define LNETCAP_OBD_MD_FLXATTR 0x0000001000000000ULL    /* getxattr */
#define LNETCAP_OBD_MD_FLXATTRLS 0x0000002000000000ULL  /* listxattr */
#define LNETCAP_OBD_MD_FLACL 0x0000008000000000ULL      /* RMF_ACL holds the ACL */
/* Both: the xattr cache's "all names and values" (intent getxattr). */
#define LNETCAP_OBD_MD_FLXATTRALL (LNETCAP_OBD_MD_FLXATTR | LNETCAP_OBD_MD_FLXATTRLS)

/* Buffer slots (layout.c).  MDS_GETXATTR (mds_getxattr_client/_server):
 * the request names the xattr in RMF_NAME, the reply's RMF_EADATA holds its
 * value (OBD_MD_FLXATTR in the request's mbo_valid) or the NUL-separated
 * names (OBD_MD_FLXATTRLS); mbo_eadatasize of the reply says how many bytes. */
#define LNETCAP_GETXATTR_REQ_NAME 3
#define LNETCAP_GETXATTR_REP_EADATA 2
/* RMF_ACL of MDS_GETATTR/GETATTR_NAME (mds_getattr_server), MDS_REINT open
 * and setattr replies (mds_reint_open_server, mds_setattr_server); filled
 * when the reply's mbo_valid has OBD_MD_FLACL, mbo_aclsize bytes. */
#define LNETCAP_MDT_REP_ACL 3
/* Intent enqueue replies: RMF_ACL after DLM_REP, MDT_BODY, MDT_MD in
 * ldlm_intent_server, _getattr_, _open_ and _getxattr_server. */
#define LNETCAP_INTENT_REP_ACL 4
/* ldlm_intent_getxattr_server (8 buffers): the xattr cache refill, with
 * mbo_eadatasize bytes of names, mbo_aclsize bytes of values and
 * mbo_max_mdsize __u32 lengths (mdt_getxattr_all(), mdt_xattr.c). */
#define LNETCAP_INTENT_GETXATTR_REP_BUFS 8
#define LNETCAP_INTENT_GETXATTR_REP_NAMES 5  /* RMF_EADATA */
#define LNETCAP_INTENT_GETXATTR_REP_VALS 6   /* RMF_EAVALS */
#define LNETCAP_INTENT_GETXATTR_REP_LENS 7   /* RMF_EAVALS_LENS, message byte order */
/* ldlm_intent_open_server: 10 buffers in 2.15, 11 in 2.16 and 2.17 (they add
 * RMF_DEFAULT_MDT_MD at the end); RMF_NIOBUF_INLINE is slot 7 in all.  It
 * holds a niobuf_remote and then rnb_len bytes of the file (DoM read on
 * open, mdt_dom_read_on_open() of mdt_io.c). */
#define LNETCAP_INTENT_OPEN_REP_MIN_BUFS 10
#define LNETCAP_INTENT_OPEN_REP_NIOBUF_INLINE 7
/* ldlm_intent_layout_client: RMF_LAYOUT_INTENT after LDLM_INTENT. */
#define LNETCAP_INTENT_LAYOUT_REQ_LAYOUT_INTENT 3

/* POSIX ACL in xattr form (Linux uapi linux/posix_acl_xattr.h; Lustre sends
 * it as the xattr holds it, RMF_ACL has no swabber): little-endian whatever
 * the lustre_msg byte order. */
#define LNETCAP_POSIX_ACL_XATTR_VERSION 0x0002U
#define LNETCAP_ACL_UNDEFINED_ID 0xffffffffU
#define LNETCAP_XATTR_NAME_ACL_ACCESS "system.posix_acl_access"
#define LNETCAP_XATTR_NAME_ACL_DEFAULT "system.posix_acl_default"
struct lnetcap_posix_acl_xattr_header {
	__u32 a_version; /* __le32 */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_posix_acl_xattr_header, 4);
struct lnetcap_posix_acl_xattr_entry {
	__u16 e_tag;  /* __le16, ACL_* */
	__u16 e_perm; /* __le16, 4 read, 2 write, 1 execute */
	__u32 e_id;   /* __le32, uid/gid; ACL_UNDEFINED_ID for *_OBJ, MASK, OTHER */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_posix_acl_xattr_entry, 8);
/* e_tag (linux/posix_acl.h).  X(NAME, value) */
#define LNETCAP_ACL_TAG_LIST(X)                                                \
	X(USER_OBJ, 0x01) X(USER, 0x02) X(GROUP_OBJ, 0x04) X(GROUP, 0x08)      \
	X(MASK, 0x10) X(OTHER, 0x20)

enum lnetcap_acl_tag {
#define LNETCAP_X_(name, value) LNETCAP_ACL_##name = value,
	LNETCAP_ACL_TAG_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/* RMF_LAYOUT_INTENT (lustre_idl.h: li_* in 2.15, lai_* in 2.16/2.17, same
 * bytes; wiretest.c pins 24 bytes). */
struct lnetcap_layout_intent {
	__u32 lai_opc;          /* LAYOUT_INTENT_* */
	__u32 lai_flags;        /* LAIF_* (2.17) */
	__u64 lai_extent_start; /* struct lu_extent lai_extent */
	__u64 lai_extent_end;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_layout_intent, 24);
/* enum layout_intent_opc: 0-6 in 2.15, PCCRO_SET/CLEAR from 2.16, CHANGE
 * from 2.17.  X(NAME, value) */
#define LNETCAP_LAYOUT_INTENT_LIST(X)                                          \
	X(ACCESS, 0) X(READ, 1) X(WRITE, 2) X(GLIMPSE, 3) X(TRUNC, 4)          \
	X(RELEASE, 5) X(RESTORE, 6) X(PCCRO_SET, 7) X(PCCRO_CLEAR, 8)          \
	X(CHANGE, 9)
/* enum layout_intent_flags (2.17; 2.15 and 2.16 define none).  X(NAME, bit) */
#define LNETCAP_LAIF_FLAG_LIST(X) X(INCOMPRESSIBLE, 0x1)

#endif /* LNETCAP_BODIES_H */
