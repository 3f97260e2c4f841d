/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * out_update.h - object updates between targets (OUT_UPDATE, the
 * "Object Unified Target" RPC of DNE and LFSCK) and batched metadata
 * requests (MDS_BATCH, Lustre 2.16+).
 *
 * Source: Lustre 2.16.1 lustre_idl.h (enum update_type, enum update_flag,
 * object_update_param, object_update, object_update_request,
 * out_update_header, out_update_buffer, object_update_result,
 * object_update_reply, batch_update_request, but_update_header,
 * but_update_buffer, batch_update_reply, enum batch_update_cmd),
 * lustre/include/obj_update.h (how they are packed) and layout.c:
 *   OUT_UPDATE request: ptlrpc_body, RMF_OUT_UPDATE_HEADER (out_update_header,
 *                       whose ouh_inline_data holds an object_update_request
 *                       of ouh_inline_length bytes when the updates fit
 *                       inline), RMF_OUT_UPDATE_BUF (out_update_buffer[]:
 *                       sizes of the bulk pages otherwise)
 *              reply:   ptlrpc_body, RMF_OUT_UPDATE_REPLY (object_update_reply)
 *   MDS_BATCH  request: ptlrpc_body, RMF_BUT_HEADER (but_update_header, with
 *                       a batch_update_request inline), RMF_BUT_BUF
 *              reply:   ptlrpc_body, RMF_BUT_REPLY (batch_update_reply)
 * The OUT structures are the same in 2.15, 2.16 and 2.17; MDS_BATCH and the
 * lm_opc of lustre_msg_v2 (lm_padding_2 in 2.15) are 2.16+.
 *
 * Packing (obj_update.h): updates follow each other from ourq_updates[0];
 * an update is its 40-byte header then ou_params_count parameters, each
 * 8 bytes of header and oup_len bytes, rounded up to 8.  A reply's results
 * start at round_up(offsetof(ourp_lens[ourp_count]), 8), result i taking
 * round_up(ourp_lens[i], 8) bytes.  A batch's sub-requests (and sub-replies)
 * are whole lustre_msg_v2 messages one after the other, each
 * lustre_packed_msg_size() long; a sub-request's lm_opc is its
 * batch_update_cmd, a sub-reply's (lm_result) its return code.
 */
#ifndef LNETCAP_OUT_UPDATE_H
#define LNETCAP_OUT_UPDATE_H

#include "bodies.h" /* struct lnetcap_lu_fid */

/* enum update_type (ou_type).  X(NAME, value) */
#define LNETCAP_OUT_TYPE_LIST(X)                                               \
	X(OUT_START, 0) X(OUT_CREATE, 1) X(OUT_DESTROY, 2) X(OUT_REF_ADD, 3)   \
	X(OUT_REF_DEL, 4) X(OUT_ATTR_SET, 5) X(OUT_ATTR_GET, 6)                \
	X(OUT_XATTR_SET, 7) X(OUT_XATTR_GET, 8) X(OUT_INDEX_LOOKUP, 9)         \
	X(OUT_INDEX_INSERT, 10) X(OUT_INDEX_DELETE, 11) X(OUT_WRITE, 12)       \
	X(OUT_XATTR_DEL, 13) X(OUT_PUNCH, 14) X(OUT_READ, 15) X(OUT_NOOP, 16)  \
	X(OUT_XATTR_LIST, 17)

/* enum update_flag (ou_flags).  X(NAME, bit) */
#define LNETCAP_UPDATE_FL_LIST(X)                                              \
	X(OST, 0x1) X(SYNC, 0x2) X(COMMITTED, 0x4) X(NOLOG, 0x8)

struct lnetcap_object_update_param {
	__u16 oup_len;
	__u16 oup_padding;
	__u32 oup_padding2;
	/* char oup_buf[oup_len] follows, padded to 8 */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_object_update_param, 8);

struct lnetcap_object_update {
	__u16 ou_type;          /* enum update_type */
	__u16 ou_params_count;
	__u32 ou_result_size;
	__u32 ou_flags;         /* UPDATE_FL_* */
	__u32 ou_padding1;
	__u64 ou_batchid;       /* transno on the master */
	struct lnetcap_lu_fid ou_fid;
	/* struct lnetcap_object_update_param ou_params[] follows */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_object_update, 40);
LNETCAP_ASSERT_OFFSET(struct lnetcap_object_update, ou_fid, 24);

#define LNETCAP_UPDATE_REQUEST_MAGIC_V1 0xBDDE0001U
#define LNETCAP_UPDATE_REQUEST_MAGIC_V2 0xBDDE0002U
struct lnetcap_object_update_request {
	__u32 ourq_magic;
	__u16 ourq_count;
	__u16 ourq_padding;
	/* struct lnetcap_object_update ourq_updates[] follows */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_object_update_request, 8);

#define LNETCAP_OUT_UPDATE_HEADER_MAGIC 0xBDDF0001U
struct lnetcap_out_update_header {
	__u32 ouh_magic;
	__u32 ouh_count;          /* 1 inline, else the bulk buffer count */
	__u32 ouh_inline_length;
	__u32 ouh_reply_size;
	/* ouh_inline_data[ouh_inline_length] follows */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_out_update_header, 16);

/* RMF_OUT_UPDATE_BUF and RMF_BUT_BUF entries: sizes of the bulk buffers. */
struct lnetcap_update_buffer {
	__u32 size;               /* oub_size / bub_size */
	__u32 padding;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_update_buffer, 8);

struct lnetcap_object_update_result {
	__s32 our_rc;
	__u16 our_datalen;
	__u16 our_padding;
	/* our_data[our_datalen] follows */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_object_update_result, 8);

#define LNETCAP_UPDATE_REPLY_MAGIC_V1 0x00BD0001U
#define LNETCAP_UPDATE_REPLY_MAGIC_V2 0x00BD0002U
struct lnetcap_object_update_reply {
	__u32 ourp_magic;
	__u16 ourp_count;
	__u16 ourp_padding;
	/* __u16 ourp_lens[ourp_count] follows, then the results */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_object_update_reply, 8);

/* --- MDS_BATCH (2.16+) --- */
#define LNETCAP_BUT_REQUEST_MAGIC 0xBADE0001U
struct lnetcap_batch_update_request {
	__u32 burq_magic;
	__u16 burq_count;         /* sub-requests */
	__u16 burq_padding;
	/* struct lustre_msg_v2 burq_reqmsg[] follows */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_batch_update_request, 8);

#define LNETCAP_BUT_HEADER_MAGIC 0xBADF0001U
struct lnetcap_but_update_header {
	__u32 buh_magic;
	__u32 buh_count;          /* 1 inline, else the bulk buffer count */
	__u32 buh_inline_length;
	__u32 buh_reply_size;
	__u32 buh_update_count;   /* sub-requests in the batch */
	__u32 buh_padding;
	/* buh_inline_data[buh_inline_length] follows */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_but_update_header, 24);

#define LNETCAP_BUT_REPLY_MAGIC 0x00AD0001U
struct lnetcap_batch_update_reply {
	__u32 burp_magic;
	__u16 burp_count;         /* sub-requests the target handled */
	__u16 burp_padding;
	/* struct lustre_msg_v2 burp_repmsg[] follows */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_batch_update_reply, 8);

/* enum batch_update_cmd (a sub-request's lm_opc).  X(NAME, value) */
#define LNETCAP_BUT_CMD_LIST(X) X(BUT_GETATTR, 1)

/* Buffers of a BUT_GETATTR sub-request (layout.c mds_batch_getattr_client):
 * DLM_REQ, LDLM_INTENT, MDT_BODY, CAPA1, NAME, FILE_SECCTX_NAME. */
#define LNETCAP_BUT_GETATTR_NAME_BUF 4

#endif /* LNETCAP_OUT_UPDATE_H */
