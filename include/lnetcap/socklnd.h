/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * socklnd.h - socklnd (LNet over TCP) framing: the acceptor's connection
 * request, the HELLO of protocol V1..V4 and the ksock_msg header that frames
 * every message of a V2+ data stream.
 *
 * Source of truth: Lustre master c881f8ebcb (2.17.57) and b2_15/b2_16,
 *   include/uapi/linux/lnet/lnet-idl.h   (lnet_acceptor_connreq{,_v2},
 *                                         lnet_magicversion)
 *   lnet/klnds/socklnd/socklnd-idl.h     (ksock_hello_msg{,_nid4},
 *                                         ksock_msg_hdr, KSOCK_MSG_*,
 *                                         KSOCK_PROTO_V*)
 *   include/uapi/linux/lnet/socklnd.h    (SOCKLND_CONN_*)
 * as summarised in docs/protocol.md section 5.1.
 *
 * Byte order: everything here is in the SENDER's native order; a receiver
 * recognises a byte-swapped magic and flips.  The LNet header that follows
 * a ksock_msg header is little-endian regardless (lnet.h).
 *
 * A TCP connection, active side first:
 *   active  -> passive: connreq (16 or 28 B), HELLO, ksock_msg, ksock_msg...
 *   passive -> active:  HELLO, ksock_msg, ksock_msg...
 * V1 has no ksock_msg header: its HELLO is a 72-byte LNet header of type
 * HELLO and the stream is plain LNet header + payload.
 */
#ifndef LNETCAP_SOCKLND_H
#define LNETCAP_SOCKLND_H

#include "compat.h"
#include "lnet.h"

/* Default acceptor port (lnet module parameter accept_port). */
#define LNETCAP_SOCKLND_DEFAULT_PORT 988

/* --- Acceptor connection request (active side, before the HELLO) ---------
 * v1 (16 bytes): magic, version 1, target nid4 (u64).
 * v2 (28 bytes): magic, version 2, target struct lnet_nid (large NIDs).
 */
struct lnetcap_acceptor_connreq {
	__u32 acr_magic;   /* LNETCAP_LNET_PROTO_ACCEPTOR_MAGIC */
	__u32 acr_version; /* LNETCAP_LNET_PROTO_ACCEPTOR_VERSION */
	__u64 acr_nid;     /* target NID */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_acceptor_connreq, 16);
LNETCAP_ASSERT_OFFSET(struct lnetcap_acceptor_connreq, acr_version, 4);
LNETCAP_ASSERT_OFFSET(struct lnetcap_acceptor_connreq, acr_nid, 8);

struct lnetcap_acceptor_connreq_v2 {
	__u32 acr_magic;   /* LNETCAP_LNET_PROTO_ACCEPTOR_MAGIC */
	__u32 acr_version; /* LNETCAP_LNET_PROTO_ACCEPTOR_VERSION_16 */
	struct lnetcap_nid acr_nid;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_acceptor_connreq_v2, 28);
LNETCAP_ASSERT_OFFSET(struct lnetcap_acceptor_connreq_v2, acr_version, 4);
LNETCAP_ASSERT_OFFSET(struct lnetcap_acceptor_connreq_v2, acr_nid, 8);

/* --- struct lnet_magicversion: dest_nid of a V1 HELLO --------------------- */
struct lnetcap_magicversion {
	__u32 magic;         /* LNETCAP_LNET_PROTO_TCP_MAGIC */
	__u16 version_major; /* LNETCAP_LNET_PROTO_TCP_VERSION_MAJOR */
	__u16 version_minor; /* LNETCAP_LNET_PROTO_TCP_VERSION_MINOR */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_magicversion, 8);
LNETCAP_ASSERT_OFFSET(struct lnetcap_magicversion, version_major, 4);
LNETCAP_ASSERT_OFFSET(struct lnetcap_magicversion, version_minor, 6);

#define LNETCAP_LNET_PROTO_TCP_VERSION_MAJOR 1
#define LNETCAP_LNET_PROTO_TCP_VERSION_MINOR 0

/* --- socklnd protocol versions (kshm_version) ------------------------------
 * X(NAME, value, LNet header bytes in a ksock_msg).  V1 has no kshm_version
 * field (it is told by LNETCAP_LNET_PROTO_TCP_MAGIC) and no ksock_msg.
 */
#define LNETCAP_KSOCK_PROTO_LIST(X)                                            \
	X(V1, 1, LNETCAP_HDR_NID4_LEN)                                         \
	X(V2, 2, LNETCAP_HDR_NID4_LEN)                                         \
	X(V3, 3, LNETCAP_HDR_NID4_LEN)                                         \
	X(V4, 4, LNETCAP_HDR_NID16_LEN)

enum lnetcap_ksock_proto {
#define LNETCAP_X_(name, value, hdrlen) LNETCAP_KSOCK_PROTO_##name = value,
	LNETCAP_KSOCK_PROTO_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/* --- Connection types (kshm_ctype, SOCKLND_CONN_*) -------------------------
 * X(NAME, value, "text").  NONE (-1) is never sent.  The passive side
 * answers BULK_IN with BULK_OUT and vice versa.
 */
#define LNETCAP_SOCKLND_CONN_LIST(X)                                           \
	X(ANY, 0, "any")                                                       \
	X(CONTROL, 1, "control")                                               \
	X(BULK_IN, 2, "bulk_in")                                               \
	X(BULK_OUT, 3, "bulk_out")

enum lnetcap_socklnd_conn {
	LNETCAP_SOCKLND_CONN_NONE = -1,
#define LNETCAP_X_(name, value, str) LNETCAP_SOCKLND_CONN_##name = value,
	LNETCAP_SOCKLND_CONN_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/* Deprecated kshm_ips[] array: Lustre sends nips = 0 and accepts at most
 * LNET_INTERFACES_NUM (16) entries. */
#define LNETCAP_KSOCK_HELLO_MAX_IPS 16

/* --- HELLO V2/V3 (struct ksock_hello_msg_nid4), 56 bytes + 4 x nips --------
 *  0      4        8          16         24      28      32         40         48     52    56
 *  +------+--------+----------+----------+-------+-------+----------+----------+------+-----+
 *  |magic |version |src_nid   |dst_nid   |src_pid|dst_pid|src_incarn|dst_incarn|ctype |nips |
 *  +------+--------+----------+----------+-------+-------+----------+----------+------+-----+
 */
struct lnetcap_ksock_hello_nid4 {
	__u32 kshm_magic;   /* LNETCAP_LNET_PROTO_MAGIC */
	__u32 kshm_version; /* LNETCAP_KSOCK_PROTO_V2 or V3 */
	__u64 kshm_src_nid;
	__u64 kshm_dst_nid;
	__u32 kshm_src_pid;
	__u32 kshm_dst_pid;
	__u64 kshm_src_incarnation;
	__u64 kshm_dst_incarnation;
	__u32 kshm_ctype; /* enum lnetcap_socklnd_conn */
	__u32 kshm_nips;  /* u32 IPs that follow (deprecated, sent as 0) */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ksock_hello_nid4, 56);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello_nid4, kshm_version, 4);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello_nid4, kshm_src_nid, 8);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello_nid4, kshm_dst_nid, 16);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello_nid4, kshm_src_pid, 24);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello_nid4, kshm_dst_pid, 28);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello_nid4, kshm_src_incarnation, 32);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello_nid4, kshm_dst_incarnation, 40);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello_nid4, kshm_ctype, 48);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello_nid4, kshm_nips, 52);

/* --- HELLO V4 (struct ksock_hello_msg), 80 bytes + 4 x nips ----------------
 * The same fields with struct lnet_nid NIDs (IPv6 sockets use V4).
 */
struct lnetcap_ksock_hello {
	__u32 kshm_magic;   /* LNETCAP_LNET_PROTO_MAGIC */
	__u32 kshm_version; /* LNETCAP_KSOCK_PROTO_V4 */
	struct lnetcap_nid kshm_src_nid;
	struct lnetcap_nid kshm_dst_nid;
	__u32 kshm_src_pid;
	__u32 kshm_dst_pid;
	__u64 kshm_src_incarnation;
	__u64 kshm_dst_incarnation;
	__u32 kshm_ctype;
	__u32 kshm_nips;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ksock_hello, 80);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello, kshm_version, 4);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello, kshm_src_nid, 8);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello, kshm_dst_nid, 28);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello, kshm_src_pid, 48);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello, kshm_dst_pid, 52);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello, kshm_src_incarnation, 56);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello, kshm_dst_incarnation, 64);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello, kshm_ctype, 72);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_hello, kshm_nips, 76);

/* --- ksock_msg header, 24 bytes, before every message of a V2+ stream ------
 *  0        4        8                  16                 24
 *  +--------+--------+------------------+------------------+------------
 *  |type    |csum    |zc_cookies[0]     |zc_cookies[1]     | LNet header (LNET only)
 *  +--------+--------+------------------+------------------+------------
 * NOOP is the header alone (it carries zero-copy ACK cookies).  LNET is
 * followed by a 72-byte (V2/V3) or 96-byte (V4) LNet header and
 * payload_length bytes of payload.
 */
struct lnetcap_ksock_msg_hdr {
	__u32 ksm_type; /* LNETCAP_KSOCK_MSG_NOOP or LNETCAP_KSOCK_MSG_LNET */
	__u32 ksm_csum; /* 0 = no checksum */
	__u64 ksm_zc_cookies[2]; /* [0] ZC request, [1] ZC ACK */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ksock_msg_hdr, 24);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_msg_hdr, ksm_csum, 4);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ksock_msg_hdr, ksm_zc_cookies, 8);

#define LNETCAP_KSOCK_MSG_LIST(X)                                              \
	X(NOOP, 0xc0, "NOOP")                                                  \
	X(LNET, 0xc1, "LNET")

enum lnetcap_ksock_msg_type {
#define LNETCAP_X_(name, value, str) LNETCAP_KSOCK_MSG_##name = value,
	LNETCAP_KSOCK_MSG_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

#define LNETCAP_KSOCK_MSG_HDR_LEN 24

#endif /* LNETCAP_SOCKLND_H */
