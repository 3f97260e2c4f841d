/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * ptlrpc.h - PtlRPC message framing: lustre_msg_v2, ptlrpc_body v2/v3, the
 * complete opcode table and the status (errno) names.
 *
 * Source of truth: Lustre master c881f8ebcb,
 *   include/uapi/linux/lustre/lustre_idl.h (structs, opcodes; wiretest.c)
 *   lustre/ptlrpc/lproc_ptlrpc.c          (opcode names)
 *   lustre/include/lustre_errno.h         (network errno values)
 * as summarised in docs/protocol.md sections 3 and 4.1.
 *
 * Byte order: a lustre_msg is written in the SENDER's native order; read
 * lm_magic as little-endian: LUSTRE_MSG_MAGIC_V2 means LE, the swabbed
 * value means the whole message is big-endian.
 */
#ifndef LNETCAP_PTLRPC_H
#define LNETCAP_PTLRPC_H

#include "compat.h"

#define LNETCAP_LUSTRE_MSG_MAGIC_V2 0x0BD00BD3U
#define LNETCAP_LUSTRE_MSG_MAGIC_V2_SWABBED 0xD30BD00BU
#define LNETCAP_PTLRPC_MAX_BUFCOUNT 32
#define LNETCAP_PTLRPC_MSG_VERSION 0x3U
#define LNETCAP_LUSTRE_VERSION_MASK 0xffff0000U
#define LNETCAP_LUSTRE_JOBID_SIZE 32
#define LNETCAP_PTLRPC_BODY_V2_LEN 152
#define LNETCAP_PTLRPC_BODY_V3_LEN 184
/* An early reply (1 buffer, v3 body) is 224 bytes; the final reply of an
 * AT-capable request lands at this offset in the reply buffer. */
#define LNETCAP_LUSTRE_MSG_EARLY_SIZE 224

/* --- struct lustre_msg_v2 (32 bytes + 4 x bufcount) -----------------------
 *  0          4          8          12         16         20         24     28     32
 *  +----------+----------+----------+----------+----------+----------+------+------+----------
 *  |bufcount  |secflvr   |magic     |repsize   |cksum     |flags     |opc   |pad   |buflens[]
 *  +----------+----------+----------+----------+----------+----------+------+------+----------
 * Buffers follow at round_up(32 + 4*bufcount, 8), each padded to 8 bytes.
 */
struct lnetcap_lustre_msg_v2 {
	__u32 lm_bufcount;
	__u32 lm_secflvr;
	__u32 lm_magic;
	__u32 lm_repsize;
	__u32 lm_cksum;
	__u32 lm_flags;
	__u32 lm_opc;
	__u32 lm_padding_3;
	/* __u32 lm_buflens[lm_bufcount] follows */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_lustre_msg_v2, 32);
LNETCAP_ASSERT_OFFSET(struct lnetcap_lustre_msg_v2, lm_magic, 8);
LNETCAP_ASSERT_OFFSET(struct lnetcap_lustre_msg_v2, lm_flags, 20);

#define LNETCAP_MSGHDR_AT_SUPPORT 0x1
#define LNETCAP_MSGHDR_CKSUM_INCOMPAT18 0x2

/* Round a length up to the 8-byte buffer alignment of lustre_msg_v2. */
#define LNETCAP_LUSTRE_MSG_ROUND8(n) (((n) + 7U) & ~7U)
#define LNETCAP_LUSTRE_MSG_HDR_SIZE(bufcount)                                  \
	LNETCAP_LUSTRE_MSG_ROUND8(32U + 4U * (bufcount))

/* --- struct ptlrpc_body_v3 (184 bytes; v2 is the first 152) --------------- */
struct lnetcap_ptlrpc_body {
	__u64 pb_handle;
	__u32 pb_type;
	__u32 pb_version;
	__u32 pb_opc;
	__u32 pb_status; /* signed */
	__u64 pb_last_xid;
	__u16 pb_tag;
	__u16 pb_padding0;
	__u32 pb_projid; /* 2.17; pb_padding1 in 2.16 */
	__u64 pb_last_committed;
	__u64 pb_transno;
	__u32 pb_flags;
	__u32 pb_op_flags;
	__u32 pb_conn_cnt;
	__u32 pb_timeout;
	__u32 pb_service_time;
	__u32 pb_limit;
	__u64 pb_slv;
	__u64 pb_pre_versions[4];
	__u64 pb_mbits;
	__u64 pb_padding64_0;
	__u64 pb_padding64_1;
	__u32 pb_uid;
	__u32 pb_gid;
	char pb_jobid[LNETCAP_LUSTRE_JOBID_SIZE]; /* v3 only */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ptlrpc_body, 184);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_type, 8);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_version, 12);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_opc, 16);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_status, 20);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_last_xid, 24);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_tag, 32);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_projid, 36);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_last_committed, 40);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_transno, 48);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_flags, 56);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_op_flags, 60);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_conn_cnt, 64);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_timeout, 68);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_service_time, 72);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_limit, 76);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_slv, 80);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_pre_versions, 88);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_mbits, 120);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_uid, 144);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_gid, 148);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ptlrpc_body, pb_jobid, 152);

/* pb_type */
#define LNETCAP_PTL_RPC_MSG_LIST(X)                                            \
	X(REQUEST, 4711, "request")                                            \
	X(ERR, 4712, "error")                                                  \
	X(REPLY, 4713, "reply")

enum lnetcap_ptl_rpc_msg {
#define LNETCAP_X_(name, value, str) LNETCAP_PTL_RPC_MSG_##name = value,
	LNETCAP_PTL_RPC_MSG_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/* pb_version target part (pb_version & LUSTRE_VERSION_MASK) */
#define LNETCAP_LUSTRE_TARGET_VERSION_LIST(X)                                  \
	X(OBD, 0x00010000, "OBD")                                              \
	X(MDS, 0x00020000, "MDS")                                              \
	X(OST, 0x00030000, "OST")                                              \
	X(DLM, 0x00040000, "DLM")                                              \
	X(LOG, 0x00050000, "LOG")                                              \
	X(MGS, 0x00060000, "MGS")

/* pb_flags (MSG_*) */
#define LNETCAP_MSG_FLAG_LIST(X)                                               \
	X(RESENT, 0x2)                                                         \
	X(REPLAY, 0x4)                                                         \
	X(REQ_REPLAY_DONE, 0x40)                                               \
	X(LOCK_REPLAY_DONE, 0x80)                                              \
	X(CLIENT_BANNED, 0x100)                                                \
	X(PACK_UID_GID, 0x200)                                                 \
	X(PACK_PROJID, 0x400)

/* pb_op_flags for connect RPCs (MSG_CONNECT_*) */
#define LNETCAP_MSG_CONNECT_FLAG_LIST(X)                                       \
	X(RECOVERING, 0x1)                                                     \
	X(RECONNECT, 0x2)                                                      \
	X(REPLAYABLE, 0x4)                                                     \
	X(LIBCLIENT, 0x10)                                                     \
	X(INITIAL, 0x20)                                                       \
	X(NEXT_VER, 0x80)                                                      \
	X(TRANSNO, 0x100)

/* --- Opcodes (docs/protocol.md 4.1): X(ENUM_NAME, value, "stats name") ----
 * Obsolete numbers that a current peer never sends are kept, so old traces
 * still get names.  Sorted by value.
 */
#define LNETCAP_OPCODE_LIST(X)                                                 \
	X(OST_REPLY, 0, "ost_reply")                                           \
	X(OST_GETATTR, 1, "ost_getattr")                                       \
	X(OST_SETATTR, 2, "ost_setattr")                                       \
	X(OST_READ, 3, "ost_read")                                             \
	X(OST_WRITE, 4, "ost_write")                                           \
	X(OST_CREATE, 5, "ost_create")                                         \
	X(OST_DESTROY, 6, "ost_destroy")                                       \
	X(OST_GET_INFO, 7, "ost_get_info")                                     \
	X(OST_CONNECT, 8, "ost_connect")                                       \
	X(OST_DISCONNECT, 9, "ost_disconnect")                                 \
	X(OST_PUNCH, 10, "ost_punch")                                          \
	X(OST_OPEN, 11, "ost_open")                                            \
	X(OST_CLOSE, 12, "ost_close")                                          \
	X(OST_STATFS, 13, "ost_statfs")                                        \
	X(OST_SYNC, 16, "ost_sync")                                            \
	X(OST_SET_INFO, 17, "ost_set_info")                                    \
	X(OST_QUOTACHECK, 18, "ost_quotacheck")                                \
	X(OST_QUOTACTL, 19, "ost_quotactl")                                    \
	X(OST_QUOTA_ADJUST_QUNIT, 20, "ost_quota_adjust_qunit")                \
	X(OST_LADVISE, 21, "ost_ladvise")                                      \
	X(OST_FALLOCATE, 22, "ost_fallocate")                                  \
	X(OST_SEEK, 23, "ost_seek")                                            \
	X(MDS_GETATTR, 33, "mds_getattr")                                      \
	X(MDS_GETATTR_NAME, 34, "mds_getattr_lock")                            \
	X(MDS_CLOSE, 35, "mds_close")                                          \
	X(MDS_REINT, 36, "mds_reint")                                          \
	X(MDS_READPAGE, 37, "mds_readpage")                                    \
	X(MDS_CONNECT, 38, "mds_connect")                                      \
	X(MDS_DISCONNECT, 39, "mds_disconnect")                                \
	X(MDS_GET_ROOT, 40, "mds_get_root")                                    \
	X(MDS_STATFS, 41, "mds_statfs")                                        \
	X(MDS_PIN, 42, "mds_pin")                                              \
	X(MDS_UNPIN, 43, "mds_unpin")                                          \
	X(MDS_SYNC, 44, "mds_sync")                                            \
	X(MDS_DONE_WRITING, 45, "mds_done_writing")                            \
	X(MDS_SET_INFO, 46, "mds_set_info")                                    \
	X(MDS_QUOTACHECK, 47, "mds_quotacheck")                                \
	X(MDS_QUOTACTL, 48, "mds_quotactl")                                    \
	X(MDS_GETXATTR, 49, "mds_getxattr")                                    \
	X(MDS_SETXATTR, 50, "mds_setxattr")                                    \
	X(MDS_WRITEPAGE, 51, "mds_writepage")                                  \
	X(MDS_IS_SUBDIR, 52, "mds_is_subdir")                                  \
	X(MDS_GET_INFO, 53, "mds_get_info")                                    \
	X(MDS_HSM_STATE_GET, 54, "mds_hsm_state_get")                          \
	X(MDS_HSM_STATE_SET, 55, "mds_hsm_state_set")                          \
	X(MDS_HSM_ACTION, 56, "mds_hsm_action")                                \
	X(MDS_HSM_PROGRESS, 57, "mds_hsm_progress")                            \
	X(MDS_HSM_REQUEST, 58, "mds_hsm_request")                              \
	X(MDS_HSM_CT_REGISTER, 59, "mds_hsm_ct_register")                      \
	X(MDS_HSM_CT_UNREGISTER, 60, "mds_hsm_ct_unregister")                  \
	X(MDS_SWAP_LAYOUTS, 61, "mds_swap_layouts")                            \
	X(MDS_RMFID, 62, "mds_rmfid")                                          \
	X(MDS_BATCH, 63, "mds_batch")                                          \
	X(MDS_HSM_DATA_VERSION, 64, "mds_hsm_data_version")                    \
	X(LDLM_ENQUEUE, 101, "ldlm_enqueue")                                   \
	X(LDLM_CONVERT, 102, "ldlm_convert")                                   \
	X(LDLM_CANCEL, 103, "ldlm_cancel")                                     \
	X(LDLM_BL_CALLBACK, 104, "ldlm_bl_callback")                           \
	X(LDLM_CP_CALLBACK, 105, "ldlm_cp_callback")                           \
	X(LDLM_GL_CALLBACK, 106, "ldlm_gl_callback")                           \
	X(LDLM_SET_INFO, 107, "ldlm_set_info")                                 \
	X(MGS_CONNECT, 250, "mgs_connect")                                     \
	X(MGS_DISCONNECT, 251, "mgs_disconnect")                               \
	X(MGS_EXCEPTION, 252, "mgs_exception")                                 \
	X(MGS_TARGET_REG, 253, "mgs_target_reg")                               \
	X(MGS_TARGET_DEL, 254, "mgs_target_del")                               \
	X(MGS_SET_INFO, 255, "mgs_set_info")                                   \
	X(MGS_CONFIG_READ, 256, "mgs_config_read")                             \
	X(OBD_PING, 400, "obd_ping")                                           \
	X(OBD_LOG_CANCEL, 401, "llog_cancel")                                  \
	X(OBD_QC_CALLBACK, 402, "obd_quota_callback")                          \
	X(OBD_IDX_READ, 403, "dt_index_read")                                  \
	X(LLOG_ORIGIN_HANDLE_CREATE, 501, "llog_origin_handle_open")           \
	X(LLOG_ORIGIN_HANDLE_NEXT_BLOCK, 502, "llog_origin_handle_next_block") \
	X(LLOG_ORIGIN_HANDLE_READ_HEADER, 503,                                 \
	  "llog_origin_handle_read_header")                                    \
	X(LLOG_ORIGIN_HANDLE_WRITE_REC, 504, "llog_origin_handle_write_rec")   \
	X(LLOG_ORIGIN_HANDLE_CLOSE, 505, "llog_origin_handle_close")           \
	X(LLOG_ORIGIN_CONNECT, 506, "llog_origin_connect")                     \
	X(LLOG_CATINFO, 507, "llog_catinfo")                                   \
	X(LLOG_ORIGIN_HANDLE_PREV_BLOCK, 508, "llog_origin_handle_prev_block") \
	X(LLOG_ORIGIN_HANDLE_DESTROY, 509, "llog_origin_handle_destroy")       \
	X(QUOTA_DQACQ, 601, "quota_acquire")                                   \
	X(QUOTA_DQREL, 602, "quota_release")                                   \
	X(SEQ_QUERY, 700, "seq_query")                                         \
	X(SEC_CTX_INIT, 801, "sec_ctx_init")                                   \
	X(SEC_CTX_INIT_CONT, 802, "sec_ctx_init_cont")                         \
	X(SEC_CTX_FINI, 803, "sec_ctx_fini")                                   \
	X(FLD_QUERY, 900, "fld_query")                                         \
	X(FLD_READ, 901, "fld_read")                                           \
	X(OUT_UPDATE, 1000, "out_update")                                      \
	X(LFSCK_NOTIFY, 1101, "lfsck_notify")                                  \
	X(LFSCK_QUERY, 1102, "lfsck_query")

enum lnetcap_opcode {
#define LNETCAP_X_(name, value, str) LNETCAP_OPC_##name = value,
	LNETCAP_OPCODE_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/* --- Status: network errno values (x86 Linux numbering, lustre_errno.h) ----
 * pb_status in a reply is -errno; positive values are LDLM results.
 * X(NAME, value)
 */
#define LNETCAP_ERRNO_LIST(X)                                                  \
	X(EPERM, 1) X(ENOENT, 2) X(ESRCH, 3) X(EINTR, 4) X(EIO, 5)            \
	X(ENXIO, 6) X(E2BIG, 7) X(ENOEXEC, 8) X(EBADF, 9) X(ECHILD, 10)        \
	X(EAGAIN, 11) X(ENOMEM, 12) X(EACCES, 13) X(EFAULT, 14)                \
	X(ENOTBLK, 15) X(EBUSY, 16) X(EEXIST, 17) X(EXDEV, 18) X(ENODEV, 19)   \
	X(ENOTDIR, 20) X(EISDIR, 21) X(EINVAL, 22) X(ENFILE, 23)               \
	X(EMFILE, 24) X(ENOTTY, 25) X(ETXTBSY, 26) X(EFBIG, 27) X(ENOSPC, 28)  \
	X(ESPIPE, 29) X(EROFS, 30) X(EMLINK, 31) X(EPIPE, 32) X(EDOM, 33)      \
	X(ERANGE, 34) X(EDEADLK, 35) X(ENAMETOOLONG, 36) X(ENOLCK, 37)         \
	X(ENOSYS, 38) X(ENOTEMPTY, 39) X(ELOOP, 40) X(ENOMSG, 42)              \
	X(EIDRM, 43) X(ECHRNG, 44) X(EL2NSYNC, 45) X(EL3HLT, 46)               \
	X(EL3RST, 47) X(ELNRNG, 48) X(EUNATCH, 49) X(ENOCSI, 50)               \
	X(EL2HLT, 51) X(EBADE, 52) X(EBADR, 53) X(EXFULL, 54) X(ENOANO, 55)    \
	X(EBADRQC, 56) X(EBADSLT, 57) X(EBFONT, 59) X(ENOSTR, 60)              \
	X(ENODATA, 61) X(ETIME, 62) X(ENOSR, 63) X(ENONET, 64) X(ENOPKG, 65)   \
	X(EREMOTE, 66) X(ENOLINK, 67) X(EADV, 68) X(ESRMNT, 69) X(ECOMM, 70)   \
	X(EPROTO, 71) X(EMULTIHOP, 72) X(EDOTDOT, 73) X(EBADMSG, 74)           \
	X(EOVERFLOW, 75) X(ENOTUNIQ, 76) X(EBADFD, 77) X(EREMCHG, 78)          \
	X(ELIBACC, 79) X(ELIBBAD, 80) X(ELIBSCN, 81) X(ELIBMAX, 82)            \
	X(ELIBEXEC, 83) X(EILSEQ, 84) X(ERESTART, 85) X(ESTRPIPE, 86)          \
	X(EUSERS, 87) X(ENOTSOCK, 88) X(EDESTADDRREQ, 89) X(EMSGSIZE, 90)      \
	X(EPROTOTYPE, 91) X(ENOPROTOOPT, 92) X(EPROTONOSUPPORT, 93)            \
	X(ESOCKTNOSUPPORT, 94) X(EOPNOTSUPP, 95) X(EPFNOSUPPORT, 96)           \
	X(EAFNOSUPPORT, 97) X(EADDRINUSE, 98) X(EADDRNOTAVAIL, 99)             \
	X(ENETDOWN, 100) X(ENETUNREACH, 101) X(ENETRESET, 102)                 \
	X(ECONNABORTED, 103) X(ECONNRESET, 104) X(ENOBUFS, 105)                \
	X(EISCONN, 106) X(ENOTCONN, 107) X(ESHUTDOWN, 108)                     \
	X(ETOOMANYREFS, 109) X(ETIMEDOUT, 110) X(ECONNREFUSED, 111)            \
	X(EHOSTDOWN, 112) X(EHOSTUNREACH, 113) X(EALREADY, 114)                \
	X(EINPROGRESS, 115) X(ESTALE, 116) X(EUCLEAN, 117) X(ENOTNAM, 118)     \
	X(ENAVAIL, 119) X(EISNAM, 120) X(EREMOTEIO, 121) X(EDQUOT, 122)        \
	X(ENOMEDIUM, 123) X(EMEDIUMTYPE, 124) X(ECANCELED, 125)                \
	X(ENOKEY, 126) X(EKEYEXPIRED, 127) X(EKEYREVOKED, 128)                 \
	X(EKEYREJECTED, 129) X(EOWNERDEAD, 130) X(ENOTRECOVERABLE, 131)        \
	X(ERESTARTSYS, 512) X(ERESTARTNOINTR, 513) X(ERESTARTNOHAND, 514)      \
	X(ENOIOCTLCMD, 515) X(ERESTART_RESTARTBLOCK, 516)                      \
	X(EBADHANDLE, 521) X(ENOTSYNC, 522) X(EBADCOOKIE, 523)                 \
	X(ENOTSUPP, 524) X(ETOOSMALL, 525) X(ESERVERFAULT, 526)                \
	X(EBADTYPE, 527) X(EJUKEBOX, 528) X(EIOCBQUEUED, 529)

/* Positive pb_status values: LDLM results (lustre_dlm.h). X(NAME, value) */
#define LNETCAP_ELDLM_LIST(X)                                                  \
	X(ELDLM_LOCK_MATCHED, 1)                                               \
	X(ELDLM_LOCK_CHANGED, 300)                                             \
	X(ELDLM_LOCK_ABORTED, 301)                                             \
	X(ELDLM_LOCK_REPLACED, 302)                                            \
	X(ELDLM_NO_LOCK_DATA, 303)                                             \
	X(ELDLM_LOCK_WOULDBLOCK, 304)                                          \
	X(ELDLM_NAMESPACE_EXISTS, 400)                                         \
	X(ELDLM_BAD_NAMESPACE, 401)

#endif /* LNETCAP_PTLRPC_H */
