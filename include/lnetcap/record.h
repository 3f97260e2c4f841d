/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * record.h - lnetcap capture record format, version 1.
 *
 * A record is the payload of one pcapng Enhanced Packet Block whose
 * interface uses LNETCAP_LINKTYPE.  It is:
 *
 *   struct lnetcap_rec_hdr   (rec_hdr_len bytes: 104 in the first version 1
 *                             writers, 128 since the health fields)
 *   LNet header              (lnet_hdr_len bytes: 72 = nid4 wire form,
 *                             96 = nid16 form, 0 = none)
 *   payload prefix           (payload_caplen bytes of payload_len)
 *
 * Every multi-byte field of the record header is LITTLE-endian on disk,
 * except the NIDs, which keep struct lnet_nid's own big-endian net number
 * and address (see lnet.h).  The timestamp is the EPB's, not repeated here.
 * docs/record-format.md has the byte diagram and compatibility policy:
 * new fields are only appended; readers skip rec_hdr_len bytes, so an old
 * reader handles a newer minor layout; an incompatible change bumps
 * LNETCAP_REC_VERSION and readers refuse versions they do not know.
 */
#ifndef LNETCAP_RECORD_H
#define LNETCAP_RECORD_H

#include "compat.h"
#include "lnet.h"

/* One LINKTYPE_USERn slot, defined only here.  USER0 is claimed by
 * traceeshark and USER2 falls back to Apple PKTAP in Wireshark, so lnetcap
 * uses USER7 (154 = 147 + 7) until an official LINKTYPE is assigned (see
 * docs/linktype.md).  Wireshark's wtap encapsulation for it is USER7 = 52. */
#define LNETCAP_LINKTYPE_USER_SLOT 7
#define LNETCAP_LINKTYPE (147 + LNETCAP_LINKTYPE_USER_SLOT)
#define LNETCAP_WTAP_ENCAP_USER0 45

/* Bytes "LNCR" on disk (little-endian u32). */
#define LNETCAP_REC_MAGIC 0x52434E4CU
#define LNETCAP_REC_VERSION 1

/* Where the record was taken.  X(NAME, value, "text") */
#define LNETCAP_DIR_LIST(X)                                                    \
	X(UNKNOWN, 0, "unknown")                                               \
	X(SEND, 1, "send")                                                     \
	X(RECV, 2, "recv")                                                     \
	X(FORWARD, 3, "forward")                                               \
	X(DROP, 4, "drop")                                                     \
	X(WIRE, 5, "wire")

enum lnetcap_direction {
#define LNETCAP_X_(name, value, str) LNETCAP_DIR_##name = value,
	LNETCAP_DIR_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/* Which observation point produced the record.  X(NAME, value, "text") */
#define LNETCAP_HOOK_LIST(X)                                                   \
	X(UNKNOWN, 0, "unknown")                                               \
	X(LNET_NI_SEND, 1, "lnet_ni_send")                                     \
	X(LNET_PARSE, 2, "lnet_parse")                                         \
	X(LNET_FINALIZE, 3, "lnet_finalize")                                   \
	X(LNET_DROP, 4, "lnet_drop_message")                                   \
	X(SOCKLND_STREAM, 5, "socklnd_stream")                                 \
	X(SYNTHETIC, 6, "synthetic")                                           \
	X(LNET_REMOTE_FAILURE, 7, "lnet_handle_remote_failure_locked")

enum lnetcap_hook {
#define LNETCAP_X_(name, value, str) LNETCAP_HOOK_##name = value,
	LNETCAP_HOOK_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/* rec_flags bits.  X(NAME, bit, "text") */
#define LNETCAP_REC_FLAG_LIST(X)                                               \
	X(TASK_VALID, 0x1, "pid and comm are valid")                           \
	X(GAP_BEFORE, 0x2, "source lost data before this record")              \
	X(PAYLOAD_UNREADABLE, 0x4, "payload bytes could not be read")          \
	X(STATUS_VALID, 0x8, "completion status is valid")                     \
	X(HEALTH_VALID, 0x10, "health status and retry count are valid")      \
	X(PAYLOAD_NO_PAGE_MAP, 0x20, "payload pages could not be mapped")      \
	X(PAYLOAD_FAULT, 0x40, "reading the payload faulted")                  \
	X(PAYLOAD_PAGE_LIMIT, 0x80, "payload spans more pages than are read")  \
	X(QUEUE_VALID, 0x100, "queue_ns is valid")                             \
	X(OUTCOME, 0x200, "outcome of message msg_id, not a message of its own") \
	X(PAYLOAD_DEVICE_MEMORY, 0x400,                                        \
	  "payload is in device (GPU) memory, which is never read")          \
	X(PAYLOAD_DISCARDED, 0x800,                                            \
	  "LNet may discard the received payload (LNET_MD_DISCARD)")

enum lnetcap_rec_flag {
#define LNETCAP_X_(name, value, str) LNETCAP_REC_F_##name = value,
	LNETCAP_REC_FLAG_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/*
 * Why LNet dropped a message (drop_reason of DROP records).  Where it was
 * dropped decides the value; status and health say what LNet reported.
 * X(NAME, value, "short text", "description")
 */
#define LNETCAP_DROP_REASON_LIST(X)                                            \
	X(NONE, 0, "none", "not a drop")                                       \
	X(SEND_BEFORE_LND, 1, "not-sent",                                      \
	  "LNet dropped the send before the LND (no route, peer dead, "       \
	  "deadline, MD unlinked)")                                           \
	X(SEND_FAILED, 2, "send-failed",                                       \
	  "the LND or the network failed the send (health says how), or it "   \
	  "completed after its MD was unlinked (-ETIMEDOUT, as LNet counts)")  \
	X(RECV_NO_MATCH, 3, "no-match",                                        \
	  "received message matched no MD (lnet_parse, -ENOENT)")              \
	X(RECV_REFUSED, 4, "refused",                                          \
	  "lnet_parse refused the received message (routing off, no buffer)")  \
	X(RECV_FAILED, 5, "recv-failed",                                       \
	  "receiving the payload failed after lnet_parse")                     \
	X(PARSE_DROPPED, 6, "parse-dropped",                                   \
	  "dropped in lnet_parse before a message existed (sender lookup, "   \
	  "memory, asymmetric route, simulated peer failure)")                 \
	X(DROP_RULE, 7, "drop-rule",                                           \
	  "an LNet drop rule (lctl net_drop_add) dropped it in lnet_parse")    \
	X(MALFORMED, 8, "malformed",                                           \
	  "lnet_parse rejected the header as a protocol error")                \
	X(RESPONSE_TIMEOUT, 9, "response-timeout",                             \
	  "no ACK or REPLY came within lnet_response_timeout: LNet gave up "   \
	  "on the response and lowered the peer NI's health")

enum lnetcap_drop_reason {
#define LNETCAP_X_(name, value, str, desc) LNETCAP_DROP_##name = value,
	LNETCAP_DROP_REASON_LIST(LNETCAP_X_)
#undef LNETCAP_X_
};

/*
 * Record header v1 (128 bytes; the first 104 are all a reader of the first
 * v1 layout knows):
 *
 *  0       4       6       8   9   10  11  12      14  15  16      20      24
 *  +-------+-------+-------+---+---+---+---+-------+---+---+-------+-------+
 *  | magic |version|hdr_len|dir|hk |lnd|lhl| flags |hs |rty| cpu   | pid   |
 *  +-------+-------+-------+---+---+---+---+-------+---+---+-------+-------+
 *  24                              40              48      52      56
 *  +-------------------------------+---------------+-------+-------+
 *  | comm[16]                      | seq (u64)     |pay_len|pay_cap|
 *  +-------------------------------+---------------+-------+-------+
 *  56                  76                  96      100     104
 *  +-------------------+-------------------+-------+-------+
 *  | local_nid (20)    | peer_nid (20)     |status | ni_id |
 *  +-------------------+-------------------+-------+-------+
 *  104             112             120 121           128
 *  +---------------+---------------+---+-------------+
 *  | queue_ns      | msg_id        |drp| reserved(7) |
 *  +---------------+---------------+---+-------------+
 */
struct lnetcap_rec_hdr {
	__u32 magic;          /* LNETCAP_REC_MAGIC */
	__u16 version;        /* LNETCAP_REC_VERSION */
	__u16 rec_hdr_len;    /* bytes of this header; LNet header follows */
	__u8 direction;       /* enum lnetcap_direction */
	__u8 hook;            /* enum lnetcap_hook */
	__u8 lnd_type;        /* LND of the local NI (enum lnetcap_lnd_type) */
	__u8 lnet_hdr_len;    /* 0, 72 (nid4) or 96 (nid16) */
	__u16 rec_flags;      /* LNETCAP_REC_F_* */
	__u8 health_status;   /* enum lnetcap_health */
	__u8 retry_count;     /* LNet resends of this message, saturating */
	__u32 cpu;            /* CPU that observed it; ~0 when unknown */
	__u32 pid;            /* initiating task (TASK_VALID) */
	char comm[16];        /* initiating task name, NUL padded */
	__u64 seq;            /* per-source sequence number; gaps = drops */
	__u32 payload_len;    /* original LNet payload length */
	__u32 payload_caplen; /* payload bytes present in this record */
	struct lnetcap_nid local_nid; /* NI that sent/received it */
	struct lnetcap_nid peer_nid;  /* next/previous hop */
	__s32 status;         /* completion status (STATUS_VALID), -errno */
	__u32 ni_id;          /* source-local NI index (pcapng interface) */
	/* Appended (rec_hdr_len 128).  Readers of a 104-byte header take
	 * these as 0. */
	__u64 queue_ns;       /* LNet held it: lnet_send to LND (QUEUE_VALID) */
	__u64 msg_id;         /* the message: ((cpu + 1) << 48) | seq of its
	                       * first record; 0 = not tracked */
	__u8 drop_reason;     /* enum lnetcap_drop_reason (DROP records) */
	__u8 reserved[7];     /* zero */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_rec_hdr, 128);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, version, 4);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, rec_hdr_len, 6);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, direction, 8);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, hook, 9);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, lnd_type, 10);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, lnet_hdr_len, 11);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, rec_flags, 12);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, health_status, 14);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, retry_count, 15);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, cpu, 16);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, pid, 20);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, comm, 24);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, seq, 40);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, payload_len, 48);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, payload_caplen, 52);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, local_nid, 56);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, peer_nid, 76);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, status, 96);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, ni_id, 100);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, queue_ns, 104);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, msg_id, 112);
LNETCAP_ASSERT_OFFSET(struct lnetcap_rec_hdr, drop_reason, 120);

/* The shortest header a reader accepts (the first v1 layout), and the one
 * this version writes. */
#define LNETCAP_REC_HDR_V1_LEN 104
#define LNETCAP_REC_HDR_LEN 128
/* msg_id = LNETCAP_MSG_ID(cpu, seq) of the message's first record. */
#define LNETCAP_MSG_ID(cpu, seq) ((((__u64)(cpu) + 1) << 48) | ((seq) & 0xffffffffffffULL))
#define LNETCAP_CPU_UNKNOWN 0xffffffffU

/* Capture statistics, kept per CPU by the BPF programs and per source by
 * the agent.  X(NAME, "text") in index order. */
#define LNETCAP_STAT_LIST(X)                                                   \
	X(SEEN, "messages seen by the hooks")                                  \
	X(FILTERED, "messages rejected by the in-kernel filter")               \
	X(RING_FULL, "records dropped: ring buffer full")                      \
	X(PAYLOAD_READ_FAILED, "payload copies that failed")                   \
	X(EMITTED, "records committed to the ring")                            \
	X(UNTRACKED, "messages not tracked: lnet_msg or lnet_parse map full")

enum lnetcap_stat {
#define LNETCAP_X_(name, str) LNETCAP_STAT_##name,
	LNETCAP_STAT_LIST(LNETCAP_X_)
#undef LNETCAP_X_
	LNETCAP_STAT_COUNT
};

/* Default snap length: enough for a lustre_msg header, the ptlrpc_body and
 * the first request buffers (an LDLM enqueue with intent is under 1 KiB). */
#define LNETCAP_DEFAULT_SNAPLEN 1024U
/* Largest payload prefix a record can carry (one LNet MTU). */
#define LNETCAP_MAX_SNAPLEN LNETCAP_LNET_MTU

#endif /* LNETCAP_RECORD_H */
