/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * quota.h - the quota RPCs: QUOTA_DQACQ (a quota slave acquiring or
 * releasing space from the master), MDS_QUOTACTL/OST_QUOTACTL (lfs quota,
 * lfs setquota) and the quota intents of LDLM_ENQUEUE.
 *
 * Source: Lustre 2.16.1 lustre/ptlrpc/layout.c, lustre_idl.h (struct
 * quota_body, union lquota_id, struct obd_quotactl, QUOTA_DQACQ_FL_*,
 * FID_SEQ_QUOTA_GLB, enum lquota_res_type) and lustre_user.h (struct
 * obd_dqinfo, struct obd_dqblk, Q_* / LUSTRE_Q_* commands).
 *   QUOTA_DQACQ        request and reply: ptlrpc_body, RMF_QUOTA_BODY
 *   MDS/OST_QUOTACTL   request: ptlrpc_body, RMF_OBD_QUOTACTL
 *                      reply:   ptlrpc_body, RMF_OBD_QUOTACTL,
 *                               RMF_OBD_QUOTA_ITER (2.16+, variable; 2.15
 *                               replies have no third buffer)
 *   LDLM_ENQUEUE with IT_QUOTA_DQACQ / IT_QUOTA_CONN (RQF_LDLM_INTENT_QUOTA)
 *                      request: ptlrpc_body, DLM_REQ, LDLM_INTENT, QUOTA_BODY
 *                      reply:   ptlrpc_body, DLM_REP, DLM_LVB (lquota_lvb),
 *                               QUOTA_BODY
 * The structures are the same in 2.15, 2.16 and 2.17.
 */
#ifndef LNETCAP_QUOTA_H
#define LNETCAP_QUOTA_H

#include "bodies.h" /* struct lnetcap_lu_fid */

/* union lquota_id: a uid/gid/projid in the first 8 bytes, or a FID (per
 * directory quota). */
union lnetcap_lquota_id {
	struct lnetcap_lu_fid qid_fid;
	__u64 qid_uid;
	__u64 qid_gid;
	__u64 qid_projid;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(union lnetcap_lquota_id, 16);

struct lnetcap_quota_body {
	struct lnetcap_lu_fid qb_fid;  /* global index FID (qb_slv_fid in an
					* IT_QUOTA_CONN reply) */
	union lnetcap_lquota_id qb_id;
	__u32 qb_flags;                /* QUOTA_DQACQ_FL_* */
	__u32 qb_padding;
	__u64 qb_count;                /* kbytes or inodes acquired/released */
	__u64 qb_usage;                /* slave usage; qb_qunit in replies */
	__u64 qb_slv_ver;              /* slave index file version */
	__u64 qb_lockh;                /* per-ID lock handle */
	__u64 qb_glb_lockh;            /* global lock handle */
	__u64 qb_padding1[4];
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_quota_body, 112);
LNETCAP_ASSERT_OFFSET(struct lnetcap_quota_body, qb_flags, 32);
LNETCAP_ASSERT_OFFSET(struct lnetcap_quota_body, qb_lockh, 64);

/* qb_flags.  X(NAME, bit) */
#define LNETCAP_QUOTA_DQACQ_FL_LIST(X)                                         \
	X(ACQ, 0x1) X(PREACQ, 0x2) X(REL, 0x4) X(REPORT, 0x8)

/* The global index FID of qb_fid (lquota_lib.c lquota_generate_fid()):
 * f_seq FID_SEQ_QUOTA_GLB, f_oid = quota type << 24 | resource type << 16. */
#define LNETCAP_FID_SEQ_QUOTA_GLB 0x200000006ULL
/* enum lquota_res_type.  X(NAME, value) */
#define LNETCAP_LQUOTA_RES_LIST(X) X(MD, 1) X(DT, 2)
/* enum lquota_type (and qc_type: USRQUOTA/GRPQUOTA/PRJQUOTA).  X(NAME, value) */
#define LNETCAP_LQUOTA_TYPE_LIST(X) X(USR, 0) X(GRP, 1) X(PRJ, 2)

/* ldlm_intent opc bits of the quota intents (IT_QUOTA_DQACQ, IT_QUOTA_CONN). */
#define LNETCAP_IT_QUOTA_DQACQ 0x800ULL
#define LNETCAP_IT_QUOTA_CONN 0x1000ULL

struct lnetcap_obd_dqinfo {
	__u64 dqi_bgrace;
	__u64 dqi_igrace;
	__u32 dqi_flags;
	__u32 dqi_valid;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_obd_dqinfo, 24);

struct lnetcap_obd_dqblk {
	__u64 dqb_bhardlimit;  /* kbytes */
	__u64 dqb_bsoftlimit;  /* kbytes */
	__u64 dqb_curspace;    /* bytes */
	__u64 dqb_ihardlimit;
	__u64 dqb_isoftlimit;
	__u64 dqb_curinodes;
	__u64 dqb_btime;       /* grace end (or grace, with LQUOTA_FLAG_* in bits 48-63) */
	__u64 dqb_itime;
	__u32 dqb_valid;       /* QIF_* */
	__u32 dqb_padding;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_obd_dqblk, 72);

struct lnetcap_obd_quotactl {
	__u32 qc_cmd;          /* Q_* / LUSTRE_Q_* */
	__u32 qc_type;         /* USRQUOTA, GRPQUOTA, PRJQUOTA */
	__u32 qc_id;
	__u32 qc_stat;
	struct lnetcap_obd_dqinfo qc_dqinfo;
	struct lnetcap_obd_dqblk qc_dqblk;
	/* char qc_poolname[] follows for the pool commands */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_obd_quotactl, 112);
LNETCAP_ASSERT_OFFSET(struct lnetcap_obd_quotactl, qc_dqblk, 40);

/* qc_cmd, named as lustre_user.h names them (LUSTRE_Q_* are the Linux
 * quotactl Q_* values where both exist; Q_GETOINFO.. are Lustre's own;
 * ITER/GETALL and DELETEQID/RESETQID are 2.16+).  X(NAME, value) */
#define LNETCAP_QUOTA_CMD_LIST(X)                                              \
	X(LUSTRE_Q_QUOTAON, 0x800002) X(LUSTRE_Q_QUOTAOFF, 0x800003)           \
	X(LUSTRE_Q_GETINFO, 0x800005) X(LUSTRE_Q_SETINFO, 0x800006)            \
	X(LUSTRE_Q_GETQUOTA, 0x800007) X(LUSTRE_Q_SETQUOTA, 0x800008)          \
	X(LUSTRE_Q_INVALIDATE, 0x80000b) X(LUSTRE_Q_FINVALIDATE, 0x80000c)     \
	X(LUSTRE_Q_GETDEFAULT, 0x80000d) X(LUSTRE_Q_SETDEFAULT, 0x80000e)      \
	X(LUSTRE_Q_GETQUOTAPOOL, 0x80000f) X(LUSTRE_Q_SETQUOTAPOOL, 0x800010)  \
	X(LUSTRE_Q_GETINFOPOOL, 0x800011) X(LUSTRE_Q_SETINFOPOOL, 0x800012)    \
	X(LUSTRE_Q_GETDEFAULT_POOL, 0x800013)                                  \
	X(LUSTRE_Q_SETDEFAULT_POOL, 0x800014) X(LUSTRE_Q_DELETEQID, 0x800015)  \
	X(LUSTRE_Q_RESETQID, 0x800016) X(LUSTRE_Q_ITERQUOTA, 0x800017)         \
	X(LUSTRE_Q_ITEROQUOTA, 0x800018) X(LUSTRE_Q_GETALLQUOTA, 0x800019)     \
	X(Q_QUOTACHECK, 0x800100) X(Q_INITQUOTA, 0x800101)                     \
	X(Q_GETOINFO, 0x800102) X(Q_GETOQUOTA, 0x800103)                       \
	X(Q_FINVALIDATE, 0x800104)

/* The pool commands carry qc_poolname after the structure
 * (LUSTRE_Q_CMD_IS_POOL). */
#define LNETCAP_QUOTA_CMD_IS_POOL(cmd) ((cmd) >= 0x80000fU && (cmd) <= 0x800014U)
/* Longest pool name (LOV_MAXPOOLNAME) and its NUL. */
#define LNETCAP_LOV_MAXPOOLNAME 15

#endif /* LNETCAP_QUOTA_H */
