/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * lnet.h - LNet wire facts: NIDs, LND types, message types, portals, health
 * status and the two forms of the LNet header.
 *
 * Source of truth: Lustre master c881f8ebcb (2.17.57) and b2_15/b2_16,
 *   include/uapi/linux/lnet/lnet-idl.h    (struct _lnet_hdr_nid4, lnet_nid)
 *   include/uapi/linux/lnet/lnet-types.h  (struct lnet_hdr_nid16, constants)
 *   include/uapi/linux/lnet/nidstr.h      (LND types)
 *   include/linux/lnet/lib-types.h        (enum lnet_msg_hstatus)
 *   include/uapi/linux/lustre/lustre_idl.h (portal numbers)
 * as summarised in docs/protocol.md sections 1, 2 and 6.4.
 *
 * Byte order: the 72-byte nid4 header is little-endian on the wire.  The
 * 96-byte nid16 header is the in-memory struct lnet_hdr with pids, type and
 * length little-endian and NIDs in struct lnet_nid form, whose net number
 * and address words are BIG-endian.  Readers must use the accessors in the
 * agent/plugin, never cast these structs on a big-endian host.
 *
 * Every enumeration is an X-macro list sorted by value: the C enum below,
 * the plugin's value_strings, the agent's name tables and the filter
 * language's keywords are all expanded from the same list.
 */
#ifndef LNETCAP_LNET_H
#define LNETCAP_LNET_H

#include "compat.h"

/* --- LNet message types (enum lnet_msg_type) ------------------------------ */
#define LNETCAP_MSG_TYPE_LIST(X)                                               \
	X(ACK, 0, "ACK")                                                       \
	X(PUT, 1, "PUT")                                                       \
	X(GET, 2, "GET")                                                       \
	X(REPLY, 3, "REPLY")                                                   \
	X(HELLO, 4, "HELLO")

enum lnetcap_msg_type {
#define LNETCAP_X_(name, value, str) LNETCAP_MSG_##name = value,
	LNETCAP_MSG_TYPE_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/* --- LND types (nidstr.h) -------------------------------------------------
 * X(ENUM, value, "name in NID strings", address style)
 * Address styles: IP prints dotted IPv4 or IPv6 by address size, NUM prints
 * decimal, NONE means Lustre no longer has string functions for the type
 * (removed LNDs and TOFU), so NIDs print as <type:num>.
 */
#define LNETCAP_ADDR_STYLE_NONE 0
#define LNETCAP_ADDR_STYLE_IP 1
#define LNETCAP_ADDR_STYLE_NUM 2

#define LNETCAP_LND_LIST(X)                                                    \
	X(QSWLND, 1, "elan", LNETCAP_ADDR_STYLE_NONE)                          \
	X(SOCKLND, 2, "tcp", LNETCAP_ADDR_STYLE_IP)                            \
	X(GMLND, 3, "gm", LNETCAP_ADDR_STYLE_NONE)                             \
	X(PTLLND, 4, "ptl", LNETCAP_ADDR_STYLE_NONE)                           \
	X(O2IBLND, 5, "o2ib", LNETCAP_ADDR_STYLE_IP)                           \
	X(CIBLND, 6, "cib", LNETCAP_ADDR_STYLE_NONE)                           \
	X(OPENIBLND, 7, "openib", LNETCAP_ADDR_STYLE_NONE)                     \
	X(IIBLND, 8, "iib", LNETCAP_ADDR_STYLE_NONE)                           \
	X(LOLND, 9, "lo", LNETCAP_ADDR_STYLE_NUM)                              \
	X(RALND, 10, "ra", LNETCAP_ADDR_STYLE_NONE)                            \
	X(VIBLND, 11, "vib", LNETCAP_ADDR_STYLE_NONE)                          \
	X(MXLND, 12, "mx", LNETCAP_ADDR_STYLE_NONE)                            \
	X(GNILND, 13, "gni", LNETCAP_ADDR_STYLE_NUM)                           \
	X(GNIIPLND, 14, "gip", LNETCAP_ADDR_STYLE_IP)                          \
	X(PTL4LND, 15, "ptlf", LNETCAP_ADDR_STYLE_NUM)                         \
	X(KFILND, 16, "kfi", LNETCAP_ADDR_STYLE_NUM)                           \
	X(TOFULND, 17, "tofu", LNETCAP_ADDR_STYLE_NONE)                        \
	X(EFALND, 18, "efa", LNETCAP_ADDR_STYLE_IP)                            \
	X(BXI3LND, 19, "bxi3f", LNETCAP_ADDR_STYLE_NUM)

enum lnetcap_lnd_type {
#define LNETCAP_X_(name, value, str, style) LNETCAP_LND_##name = value,
	LNETCAP_LND_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/* --- Portals ---------------------------------------------------------------
 * X(NAME, number): LNet's reserved portal, the lnet_selftest portals and every
 * portal lustre_idl.h defines today (not Wireshark's stale list).
 */
#define LNETCAP_PORTAL_LIST(X)                                                 \
	X(LNET_RESERVED, 0)                                                    \
	X(CONNMGR_REQUEST, 1)                                                  \
	X(CONNMGR_REPLY, 2)                                                    \
	X(OSC_REPLY, 4)                                                        \
	X(OST_IO, 6)                                                           \
	X(OST_CREATE, 7)                                                       \
	X(OST_BULK, 8)                                                         \
	X(MDC_REPLY, 10)                                                       \
	X(MDS_REQUEST, 12)                                                     \
	X(MDS_IO, 13)                                                          \
	X(MDS_BULK, 14)                                                        \
	X(LDLM_CB_REQUEST, 15)                                                 \
	X(LDLM_CB_REPLY, 16)                                                   \
	X(LDLM_CANCEL_REQUEST, 17)                                             \
	X(LDLM_CANCEL_REPLY, 18)                                               \
	X(MDS_READPAGE, 23)                                                    \
	X(OUT, 24)                                                             \
	X(MGC_REPLY, 25)                                                       \
	X(MGS_REQUEST, 26)                                                     \
	X(MGS_REPLY, 27)                                                       \
	X(OST_REQUEST, 28)                                                     \
	X(FLD_REQUEST, 29)                                                     \
	X(SEQ_METADATA, 30)                                                    \
	X(SEQ_DATA, 31)                                                        \
	X(SEQ_CONTROLLER, 32)                                                  \
	X(MGS_BULK, 33)                                                        \
	X(SRPC_REQUEST, 50)                                                    \
	X(SRPC_FRAMEWORK_REQUEST, 51)                                          \
	X(SRPC_RDMA, 52)

enum lnetcap_portal {
#define LNETCAP_X_(name, value) LNETCAP_PORTAL_##name = value,
	LNETCAP_PORTAL_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/* The requesters' reply portals (lustre_idl.h's *_REPLY_PORTAL): a PUT to
 * one of them is a PtlRPC reply, never bulk, even when too little of its
 * payload was captured to read its body (-s 0, or a dropped reply). */
static inline int lnetcap_portal_is_reply(__u32 portal)
{
	switch (portal) {
	case LNETCAP_PORTAL_CONNMGR_REPLY:
	case LNETCAP_PORTAL_OSC_REPLY:
	case LNETCAP_PORTAL_MDC_REPLY:
	case LNETCAP_PORTAL_LDLM_CB_REPLY:
	case LNETCAP_PORTAL_LDLM_CANCEL_REPLY:
	case LNETCAP_PORTAL_MGC_REPLY:
	case LNETCAP_PORTAL_MGS_REPLY:
		return 1;
	default:
		return 0;
	}
}

/* --- LNet message health status (enum lnet_msg_hstatus) ------------------ */
#define LNETCAP_HEALTH_LIST(X)                                                 \
	X(OK, 0, "OK")                                                         \
	X(LOCAL_INTERRUPT, 1, "LOCAL_INTERRUPT")                               \
	X(LOCAL_DROPPED, 2, "LOCAL_DROPPED")                                   \
	X(LOCAL_ABORTED, 3, "LOCAL_ABORTED")                                   \
	X(LOCAL_NO_ROUTE, 4, "LOCAL_NO_ROUTE")                                 \
	X(LOCAL_ERROR, 5, "LOCAL_ERROR")                                       \
	X(LOCAL_TIMEOUT, 6, "LOCAL_TIMEOUT")                                   \
	X(REMOTE_ERROR, 7, "REMOTE_ERROR")                                     \
	X(REMOTE_DROPPED, 8, "REMOTE_DROPPED")                                 \
	X(REMOTE_TIMEOUT, 9, "REMOTE_TIMEOUT")                                 \
	X(NETWORK_TIMEOUT, 10, "NETWORK_TIMEOUT")

enum lnetcap_health {
#define LNETCAP_X_(name, value, str) LNETCAP_HEALTH_##name = value,
	LNETCAP_HEALTH_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/* --- Constants (lnet-idl.h, lnet-types.h, lib-types.h) -------------------- */
#define LNETCAP_LNET_PROTO_TCP_MAGIC 0xeebc0dedU
#define LNETCAP_LNET_PROTO_IB_MAGIC 0x0be91b91U
#define LNETCAP_LNET_PROTO_GNI_MAGIC 0xb00fbabeU
#define LNETCAP_LNET_PROTO_KFI_MAGIC 0xdeadbeefU
#define LNETCAP_LNET_PROTO_EFA_MAGIC 0x2be092beU
#define LNETCAP_LNET_PROTO_ACCEPTOR_MAGIC 0xacce7100U
#define LNETCAP_LNET_PROTO_PING_MAGIC 0x70696E67U /* "ping" */
#define LNETCAP_LNET_PROTO_MAGIC 0x45726963U      /* "Eric" */
#define LNETCAP_LNET_PROTO_ACCEPTOR_VERSION 1
#define LNETCAP_LNET_PROTO_ACCEPTOR_VERSION_16 2

#define LNETCAP_LNET_MTU (1U << 20)
#define LNETCAP_LNET_PID_LUSTRE 12345U
#define LNETCAP_LNET_PID_USERFLAG 0x80000000U
#define LNETCAP_LNET_PID_ANY 0xffffffffU
#define LNETCAP_LNET_NID_ANY 0xffffffffffffffffULL
#define LNETCAP_LNET_WIRE_COOKIE_NONE 0xffffffffffffffffULL
#define LNETCAP_LNET_PING_MATCHBITS 0x8000000000000000ULL
/* The kthreads that send LNet's own pings (the same GET on the wire):
 * health's recovery pings of NIs below full health (lib-move.c,
 * kthread_run(lnet_monitor_thread, ..., "monitor_thread")) and discovery
 * (peer.c, "lnet_discovery"); 2.13 to master. */
#define LNETCAP_LNET_MONITOR_TASK "monitor_thread"
#define LNETCAP_LNET_DISCOVERY_TASK "lnet_discovery"
#define LNETCAP_LNET_NI_STATUS_UP 0x15aac0deU
#define LNETCAP_LNET_NI_STATUS_DOWN 0xdeadfaceU

/* Ping feature bits (lnet_ping_info.pi_features). */
#define LNETCAP_PING_FEAT_LIST(X)                                              \
	X(BASE, 0x1)                                                           \
	X(NI_STATUS, 0x2)                                                      \
	X(RTE_DISABLED, 0x4)                                                   \
	X(MULTI_RAIL, 0x8)                                                     \
	X(DISCOVERY, 0x10)                                                     \
	X(LARGE_ADDR, 0x20)                                                    \
	X(PRIMARY_LARGE, 0x40)                                                 \
	X(METADATA, 0x80)

enum lnetcap_ping_feat {
#define LNETCAP_X_(name, bit) LNETCAP_PING_FEAT_##name = bit,
	LNETCAP_PING_FEAT_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/* --- nid4 (lnet_nid_t) -----------------------------------------------------
 * u64, little-endian on the wire:
 *   bits  0..31 address (IPv4 as a host integer: 192.168.1.2 = 0xc0a80102)
 *   bits 32..47 net number
 *   bits 48..55 LND type
 *   bits 56..63 zero
 */
#define LNETCAP_NID4_ADDR(nid) ((__u32)((nid)&0xffffffffULL))
#define LNETCAP_NID4_NET(nid) ((__u32)((nid) >> 32))
#define LNETCAP_NET_NUM(net) ((net)&0xffff)
#define LNETCAP_NET_TYPE(net) (((net) >> 16) & 0xff)
#define LNETCAP_MKNET(type, num) ((((__u32)(type)) << 16) | ((__u32)(num)))
#define LNETCAP_MKNID4(net, addr) ((((__u64)(net)) << 32) | ((__u64)(addr)))
/* The same u64 as the bytes it is on the wire (little-endian), for a
 * dissector that shows its parts where they lie. */
struct lnetcap_nid4_bytes {
	__u32 n4_addr;
	__u16 n4_net_num;
	__u8 n4_lnd;
	__u8 n4_zero;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_nid4_bytes, 8);
LNETCAP_ASSERT_OFFSET(struct lnetcap_nid4_bytes, n4_lnd, 6);

/* --- Large NID (struct lnet_nid, 20 bytes) --------------------------------
 *  0        1        2               4                                20
 *  +--------+--------+---------------+--------------------------------+
 *  |nid_size|nid_type| nid_num (BE)  | nid_addr[4] (BE words)         |
 *  +--------+--------+---------------+--------------------------------+
 * nid_size = bytes - 8: 0 for a 4-byte (nid4-compatible) address, 12 for
 * IPv6.  nid_type 0xff means "any".
 */
struct lnetcap_nid {
	__u8 nid_size;
	__u8 nid_type;
	__u16 nid_num; /* big-endian */
	__u32 nid_addr[4]; /* big-endian */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_nid, 20);
LNETCAP_ASSERT_OFFSET(struct lnetcap_nid, nid_num, 2);
LNETCAP_ASSERT_OFFSET(struct lnetcap_nid, nid_addr, 4);

#define LNETCAP_NID_TYPE_ANY 0xff
#define LNETCAP_NID_SIZE_IPV6 12
/* Largest nid_size Lustre defines: addr bytes = nid_size + 4 <= 16. */
#define LNETCAP_NID_SIZE_MAX 12

/* struct lnet_handle_wire: opaque cookies, never byte-swapped by LNet. */
struct lnetcap_handle_wire {
	__u64 wh_interface_cookie;
	__u64 wh_object_cookie;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_handle_wire, 16);
/* wh_interface_cookie is the_lnet.ln_interface_cookie, the sender's
 * ktime_get_real_ns() when LNet started.  wh_object_cookie is the MD's
 * lh_cookie (lib-types.h, api-ni.c lnet_res_lh_initialize()): a counter,
 * then the CPT (LNET_CPT_BITS wide: the node's partition count, not on the
 * wire), then the resource type in the low LNET_COOKIE_TYPE_BITS bits. */
#define LNETCAP_LNET_COOKIE_TYPE_BITS 2
#define LNETCAP_LNET_COOKIE_TYPE_MASK ((1ULL << LNETCAP_LNET_COOKIE_TYPE_BITS) - 1ULL)
#define LNETCAP_LNET_COOKIE_TYPE_MD 1

/* The 40-byte msg union, identical in both header forms. */
struct lnetcap_ack {
	struct lnetcap_handle_wire dst_wmd;
	__u64 match_bits;
	__u32 mlength;
} LNETCAP_PACKED;
struct lnetcap_put {
	struct lnetcap_handle_wire ack_wmd;
	__u64 match_bits;
	__u64 hdr_data;
	__u32 ptl_index;
	__u32 offset;
} LNETCAP_PACKED;
struct lnetcap_get {
	struct lnetcap_handle_wire return_wmd;
	__u64 match_bits;
	__u32 ptl_index;
	__u32 src_offset;
	__u32 sink_length;
} LNETCAP_PACKED;
struct lnetcap_reply {
	struct lnetcap_handle_wire dst_wmd;
} LNETCAP_PACKED;
struct lnetcap_hello {
	__u64 incarnation;
	__u32 type;
} LNETCAP_PACKED;
union lnetcap_msg_union {
	struct lnetcap_ack ack;
	struct lnetcap_put put;
	struct lnetcap_get get;
	struct lnetcap_reply reply;
	struct lnetcap_hello hello;
	__u8 raw[40];
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(union lnetcap_msg_union, 40);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ack, match_bits, 16);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ack, mlength, 24);
LNETCAP_ASSERT_OFFSET(struct lnetcap_put, match_bits, 16);
LNETCAP_ASSERT_OFFSET(struct lnetcap_put, hdr_data, 24);
LNETCAP_ASSERT_OFFSET(struct lnetcap_put, ptl_index, 32);
LNETCAP_ASSERT_OFFSET(struct lnetcap_put, offset, 36);
LNETCAP_ASSERT_OFFSET(struct lnetcap_get, match_bits, 16);
LNETCAP_ASSERT_OFFSET(struct lnetcap_get, ptl_index, 24);
LNETCAP_ASSERT_OFFSET(struct lnetcap_get, src_offset, 28);
LNETCAP_ASSERT_OFFSET(struct lnetcap_get, sink_length, 32);
LNETCAP_ASSERT_OFFSET(struct lnetcap_hello, type, 8);

/* --- Classic wire header, 72 bytes, all little-endian ----------------------
 *  0        8        16       20       24       28       32              72
 *  +--------+--------+--------+--------+--------+--------+---------------+
 *  |dest_nid|src_nid |dest_pid|src_pid | type   |pay_len | msg union     |
 *  +--------+--------+--------+--------+--------+--------+---------------+
 */
struct lnetcap_hdr_nid4 {
	__u64 dest_nid;
	__u64 src_nid;
	__u32 dest_pid;
	__u32 src_pid;
	__u32 type;
	__u32 payload_length;
	union lnetcap_msg_union msg;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_hdr_nid4, 72);
LNETCAP_ASSERT_OFFSET(struct lnetcap_hdr_nid4, src_nid, 8);
LNETCAP_ASSERT_OFFSET(struct lnetcap_hdr_nid4, dest_pid, 16);
LNETCAP_ASSERT_OFFSET(struct lnetcap_hdr_nid4, src_pid, 20);
LNETCAP_ASSERT_OFFSET(struct lnetcap_hdr_nid4, type, 24);
LNETCAP_ASSERT_OFFSET(struct lnetcap_hdr_nid4, payload_length, 28);
LNETCAP_ASSERT_OFFSET(struct lnetcap_hdr_nid4, msg, 32);

/* --- Large-address header, 96 bytes (= in-memory struct lnet_hdr) ----------
 *  0                20               40       44       48       52       56      96
 *  +----------------+----------------+--------+--------+--------+--------+-------+
 *  |dest_nid (lnet_nid)|src_nid      |dest_pid|src_pid | type   |pay_len | msg   |
 *  +----------------+----------------+--------+--------+--------+--------+-------+
 */
struct lnetcap_hdr_nid16 {
	struct lnetcap_nid dest_nid;
	struct lnetcap_nid src_nid;
	__u32 dest_pid;
	__u32 src_pid;
	__u32 type;
	__u32 payload_length;
	union lnetcap_msg_union msg;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_hdr_nid16, 96);
LNETCAP_ASSERT_OFFSET(struct lnetcap_hdr_nid16, src_nid, 20);
LNETCAP_ASSERT_OFFSET(struct lnetcap_hdr_nid16, dest_pid, 40);
LNETCAP_ASSERT_OFFSET(struct lnetcap_hdr_nid16, src_pid, 44);
LNETCAP_ASSERT_OFFSET(struct lnetcap_hdr_nid16, type, 48);
LNETCAP_ASSERT_OFFSET(struct lnetcap_hdr_nid16, payload_length, 52);
LNETCAP_ASSERT_OFFSET(struct lnetcap_hdr_nid16, msg, 56);

#define LNETCAP_HDR_NID4_LEN 72
#define LNETCAP_HDR_NID16_LEN 96

/* --- LNet ping / discovery push payload (struct lnet_ping_info) ----------- */
struct lnetcap_ni_status {
	__u64 ns_nid; /* nid4 */
	__u32 ns_status;
	__u32 ns_msg_size;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ni_status, 16);

struct lnetcap_ping_info {
	__u32 pi_magic;
	__u32 pi_features;
	__u32 pi_pid;
	__u32 pi_nnis;
	/* struct lnetcap_ni_status pi_ni[pi_nnis] follows */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ping_info, 16);

/* struct lnet_ni_large_status (lnet-idl.h, 2.16+): with the LARGE_ADDR ping
 * feature these follow the nid4 list, each only as long as its NID needs
 * (ns_nid.nid_size + 8 address bytes), rounded up to 4. */
struct lnetcap_ni_large_status {
	__u32 ns_status;
	struct lnetcap_nid ns_nid;
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ni_large_status, 24);
LNETCAP_ASSERT_OFFSET(struct lnetcap_ni_large_status, ns_nid, 4);

/* The NID metadata trailer (Lustre 2.17+; lnet-idl.h struct
 * lnet_nid_metadata and struct lnet_nid_md_entry; written by api-ni.c
 * lnet_ping_target_install_locked(), read by lnet_discover_nid_metadata()).
 * With the METADATA ping feature it follows the NI lists: after the nid4
 * list, or with LARGE_ADDR where pi_ni[0].ns_msg_size (& ~3) says the
 * large list ends.  A u32 count in the info's byte order, then that many
 * entries: a nid4 and LNET_MD_BUFFER_SZ bytes the NI's LND defines (the
 * EFA LND: its GID and queue pair data, i.e. addresses; Lustre's
 * CFS_FAIL_TEST_PING_MD fault fills them with 0x5a).  Lustre does not
 * swab the trailer.  2.15 and 2.16 have neither the feature nor these. */
#define LNETCAP_LNET_MD_BUFFER_SZ 32
struct lnetcap_nid_md_entry {
	__u64 nid; /* nid4 */
	__u8 buffer[LNETCAP_LNET_MD_BUFFER_SZ];
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_nid_md_entry, 40);
LNETCAP_ASSERT_OFFSET(struct lnetcap_nid_md_entry, buffer, 8);

struct lnetcap_nid_metadata {
	__u32 num_nid_mappings;
	/* struct lnetcap_nid_md_entry nid_mappings[num_nid_mappings] follows */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_nid_metadata, 4);

#endif /* LNETCAP_LNET_H */
