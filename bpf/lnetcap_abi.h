/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * lnetcap_abi.h - the contract between the BPF programs and the agent that
 * loads them (capture/src/live/): the read-only configuration the agent
 * writes before load, the struct offsets it fills in from BTF or from a
 * built-in per-Lustre-version table, and the envelope around each record in
 * the ring buffer.  The record itself is include/lnetcap/record.h format v1.
 *
 * Included by clang -target bpf and by C++; plain __uN types only.
 */
#ifndef LNETCAP_ABI_H
#define LNETCAP_ABI_H

#include <lnetcap/compat.h>
#include <lnetcap/lnet.h>
#include <lnetcap/record.h>

/*
 * Where the fields the programs read live, in bytes from the start of their
 * struct.  Every read is bpf_probe_read_kernel(base + offset), so one record
 * builder serves fentry and kprobe programs and any Lustre version whose
 * layout is known.  Bit flags are given as the byte holding the bit and the
 * bit's number in that byte (x86 is little-endian: bit n of the byte).
 */
struct lnetcap_layout {
	/* struct lnet_msg */
	__u16 msg_type;          /* __u32 */
	__u16 msg_from;          /* struct lnet_nid: previous hop (RX) */
	__u16 msg_health_status; /* enum lnet_msg_hstatus (int) */
	__u16 msg_retry_count;   /* int */
	__u16 msg_txpeer;        /* struct lnet_peer_ni * */
	__u16 msg_md;            /* struct lnet_libmd * */
	__u16 msg_txni;          /* struct lnet_ni *: NI of a failed send */
	__u16 msg_rxni;          /* struct lnet_ni * */
	__u16 msg_len;           /* unsigned int: payload length */
	__u16 msg_wanted;        /* unsigned int: bytes received (RX) */
	__u16 msg_offset;        /* unsigned int: offset in the MD */
	__u16 msg_niov;          /* unsigned int: entries of msg_kiov */
	__u16 msg_kiov;          /* struct bio_vec *: the payload's pages */
	__u16 msg_hdr;           /* struct lnet_hdr (96 bytes) */
	__u16 msg_tx_committed_byte;
	__u16 msg_rx_committed_byte;
	__u16 msg_routing_byte;
	__u8 msg_tx_committed_bit;
	__u8 msg_rx_committed_bit;
	__u8 msg_routing_bit;
	__u8 pad0[3];
	/* struct lnet_libmd */
	__u16 md_start;          /* char * */
	__u16 md_options;        /* unsigned int, LNET_MD_KIOV = 0x100 */
	__u16 md_flags;          /* unsigned int, LNET_MD_FLAG_ABORTED = 0x4 */
	__u16 md_handler;        /* lnet_handler_t: the MD's event callback */
	/* struct lnet_ni */
	__u16 ni_nid;            /* struct lnet_nid */
	/* struct lnet_peer_ni */
	__u16 lpni_nid;          /* struct lnet_nid */
	/* struct lnet_libmd: its page vector, for a message that has none of
	 * its own (the REPLY of an RDMA GET, lnet_create_reply_msg) */
	__u16 md_niov;           /* unsigned int */
	__u16 md_kiov;           /* struct bio_vec[] at the end of the MD */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_layout, 56);

/* struct lnet_libmd option bit: the MD is a bio_vec array, not a buffer. */
#define LNETCAP_LNET_MD_KIOV 0x100U
/* struct lnet_libmd flag bit: the MD was unlinked while messages still used
 * it.  A send on it that completes without error is reported by LNet as
 * -ETIMEDOUT (lnet_msg_detach_md, when the MD has a handler) and not
 * counted as sent: its waiter gave up on it. */
#define LNETCAP_LNET_MD_FLAG_ABORTED 0x4U
/* struct lnet_libmd flag bit (2.16+, LNET_MD_FLAG_GPU, set from the
 * LNET_MD_GPU_ADDR option): the pages are device memory that RDMA LNDs
 * move peer to peer.  Their struct pages are ZONE_DEVICE or PCI memory:
 * the direct-map address of one is not host memory, and reading it could
 * touch a device BAR.  lnetcap never reads such a payload.  Unused in
 * 2.15, where BIT(5) is free. */
#define LNETCAP_LNET_MD_FLAG_GPU 0x20U
/* struct lnet_libmd option bit (master after 2.17.57, LU-20342,
 * LNET_MD_DISCARD): socklnd may drop an incoming payload (MSG_TRUNC)
 * instead of copying it, so what the MD's pages hold after a receive is
 * not what was sent.  Unused by every earlier release. */
#define LNETCAP_LNET_MD_DISCARD 0x4000U

/*
 * How a struct page * becomes the kernel address of its bytes, as the
 * kernel's page_address() does on x86_64's direct map:
 *
 *   va = page_offset_base + (page - vmemmap_base) / page_struct_size
 *                           * page_size
 *
 * vmemmap_base and page_offset_base are variables when the kernel
 * randomizes its memory layout (CONFIG_RANDOMIZE_MEMORY): the agent finds
 * their addresses in /proc/kallsyms and the programs read their values.
 * Otherwise they are the fixed 4-level constants.  page_struct_size is
 * sizeof(struct page) from the kernel's BTF.  pages = 0: no translation is
 * known, page-vector payloads are unreadable.
 */
struct lnetcap_kmem {
	__u64 page_offset_var; /* &page_offset_base, 0 = use page_offset */
	__u64 vmemmap_var;     /* &vmemmap_base, 0 = use vmemmap */
	__u64 page_offset;
	__u64 vmemmap;
	__u32 page_struct_size;
	__u32 page_size;       /* power of two */
	__u8 pages;            /* 1: the translation above is usable */
	__u8 pad[7];
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_kmem, 48);

/* x86_64 with a fixed memory layout (4-level paging, no KASLR of the
 * direct map): arch/x86/include/asm/page_64_types.h, pgtable_64_types.h. */
#define LNETCAP_X86_PAGE_OFFSET_L4 0xffff888000000000ULL
#define LNETCAP_X86_VMEMMAP_L4 0xffffea0000000000ULL

/* struct bio_vec (include/linux/bvec.h, unchanged since 2.6): page
 * pointer, then length and offset. */
#define LNETCAP_BVEC_SIZE 16U
#define LNETCAP_BVEC_LEN 8U
#define LNETCAP_BVEC_OFFSET 12U
/* Bio_vec entries walked to find the first payload byte (LNET_MAX_IOV)
 * and pieces copied per record.  Payload pieces are at most one page, so
 * the page path carries up to LNETCAP_PAGE_PIECES pages of payload. */
#define LNETCAP_MAX_KIOV 256U
#define LNETCAP_PAGE_PIECES 64U
/* Largest piece read at once (x86_64 pages); the per-CPU "pages" slot is
 * snaplen + this many bytes. */
#define LNETCAP_PIECE_MAX 4096U

/* Bytes copied per record by the lnetcap_kfunc path (per-CPU scratch). */
#define LNETCAP_KFUNC_SCRATCH 16384U
/* Payload classes: records reserve LNETCAP_SMALL_PAYLOAD payload bytes when
 * that is enough, else the full snap length, so small messages do not eat
 * a whole snaplen of ring space each. */
#define LNETCAP_SMALL_PAYLOAD 256U

/*
 * The in-kernel filter is a disjunction of clauses (struct lnetcap_clause),
 * each a conjunction of the terms the programs can test; lnetcap_clause.h
 * evaluates one, for the programs and for the unit tests alike.  User space
 * makes the clauses a sound over-approximation of the filter
 * (capture/src/filter/kernel_clauses.h), which still runs on every record;
 * -i is a term of every clause and exact (it is not checked again).
 *
 * Two tables use them: the fixed one in .rodata (cfg.clause, set at load:
 * the verifier sees its constants, so unused terms and clauses are dead
 * code) and lnetcapd's map "subfilter" below.
 */
#define LNETCAP_SUB_CLAUSES 16U
/* Clauses in cfg: the direct capture's filter and -i (more: pass all). */
#define LNETCAP_CFG_CLAUSES 8U

/* lnetcap_clause.terms: which of the optional terms apply. */
#define LNETCAP_CL_PORTAL 0x1U /* PUT or GET on portal */
#define LNETCAP_CL_SRC 0x2U    /* src NID == src */
#define LNETCAP_CL_DST 0x4U    /* dest NID == dst */
#define LNETCAP_CL_ANY 0x8U    /* src or dest NID == any */
#define LNETCAP_CL_NET 0x10U   /* src or dest NID in net_type/net_num */
#define LNETCAP_CL_NI 0x20U    /* local NI's NID == ni */
#define LNETCAP_CL_NI_NET 0x40U /* local NI's NID in ni_net_type/ni_net_num */

struct lnetcap_clause {
	__u32 type_mask; /* bit t: LNet type t; bit 31: every type >= 31 */
	__u32 dir_mask;  /* bit d: record direction d; bit 31: every d >= 31 */
	__u32 terms;     /* LNETCAP_CL_* */
	__u32 portal;
	/* NIDs compare their first word (size, type, net) and addr_words
	 * words of address (1 for 4-byte addresses, 4 for IPv6): the bytes
	 * user space compares, never padding after the address. */
	struct lnetcap_nid src;
	struct lnetcap_nid dst;
	struct lnetcap_nid any;
	__u8 src_words;
	__u8 dst_words;
	__u8 any_words;
	__u8 net_type;
	__u16 net_num;   /* big-endian, as nid_num */
	__u8 ni_words;
	__u8 ni_net_type;
	struct lnetcap_nid ni; /* the record's local NI (rec_hdr.local_nid) */
	__u16 ni_net_num; /* big-endian, as nid_num */
	__u16 pad;
};
LNETCAP_ASSERT_SIZE(struct lnetcap_clause, 108);
LNETCAP_ASSERT_OFFSET(struct lnetcap_clause, ni, 84);

/*
 * Read-only configuration (.rodata), set by the agent between open and load
 * so the verifier sees constants: a disabled filter is dead code and the
 * ring reservation sizes are known.
 */
struct lnetcap_cfg {
	struct lnetcap_layout lo;
	struct lnetcap_kmem km;
	__u32 snaplen;       /* payload bytes per record (0 = headers only) */
	__u32 wakeup_batch;  /* power of two: force a consumer wakeup every N */
	__u32 dir_mask;      /* 1 << LNETCAP_DIR_* of directions to keep,
	                      * DROP records by LNETCAP_DIRMASK_DROP_*: the
	                      * hooks' first test (-Q, and the directions the
	                      * clauses below can accept) */
	__u8 filter_clauses; /* keep what one of clause[0, clause_count)
	                      * accepts (none: nothing) */
	__u8 clause_count;   /* <= LNETCAP_CFG_CLAUSES */
	__u8 filter_sub;     /* lnetcapd: also test map "subfilter" (below) */
	__u8 drop_rule_nid4; /* lnet_drop_rule_match's local_nid is a 64-bit
	                      * NID value (2.15: LNET_NID_ANY = not a receive),
	                      * not a struct lnet_nid * (2.16+: NULL) */
	struct lnetcap_clause clause[LNETCAP_CFG_CLAUSES];
	/* The agent's start-up self-check (capture/src/live/self_check.h):
	 * every message handled in this thread (its LNet self-ping) is
	 * recorded whatever the filter and -Q say, with the thread id, so the
	 * agent can compare it with what it knows and keep it out of the
	 * capture.  0: none.  The thread never causes LNet traffic again. */
	__u32 self_tid;
} LNETCAP_PACKED;
/* The programs read the clauses as words. */
LNETCAP_ASSERT_OFFSET(struct lnetcap_cfg, clause, 120);

/*
 * The second, optional filter stage, used by lnetcapd only (cfg.filter_sub;
 * without it the stage is dead code the verifier removes).  The .rodata
 * clauses above are fixed at load; lnetcapd's subscribers come and go, so it
 * folds what they need into map "subfilter" (one mmapable array value the
 * daemon rewrites in place): a message passes when pass_all is set or any
 * of the first `count` clauses matches.  The daemon still evaluates every
 * subscriber's filter on every record it receives.
 *
 * Not packed (every field is naturally aligned, the sizes are asserted):
 * the programs read whole words.
 *
 * Updates are a sequence lock: the writer makes gen odd, rewrites the
 * clauses, makes gen even again; a program that sees gen odd, or changed
 * while it evaluated, passes the message (never a wrong rejection).
 */
struct lnetcap_subfilter {
	__u32 gen;       /* even: stable; odd: being rewritten */
	__u32 pass_all;  /* 1: every message passes */
	__u32 count;     /* valid clauses, <= LNETCAP_SUB_CLAUSES */
	__u32 pad;
	struct lnetcap_clause clause[LNETCAP_SUB_CLAUSES];
};
LNETCAP_ASSERT_SIZE(struct lnetcap_subfilter, 16 + 16 * 108);

/* dir_mask bits that keep DROP records: a drop of a received message
 * belongs with -Q in, of a message being sent with -Q out. */
#define LNETCAP_DIRMASK_DROP_RX (1U << 8)
#define LNETCAP_DIRMASK_DROP_TX (1U << 9)

/* Every ring sample: this envelope, then the record (rec_hdr + LNet header +
 * payload prefix).  The sample may be longer than the record: the agent
 * uses rec_hdr_len + lnet_hdr_len + payload_caplen. */
struct lnetcap_ring_env {
	__u64 ktime_ns; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_ring_env, 8);

/* Per-CPU state: map "pcpu" is a mmapable array with one 64-byte slot per
 * possible CPU, so the agent can read the counters without a bpf() call
 * (after -Z dropped CAP_BPF) and CPUs never share a cache line.  stat[] is
 * indexed by enum lnetcap_stat.  A sequence number is taken for every
 * message that passes the filter, so a record that could not be reserved
 * leaves a gap the agent turns into epb_dropcount. */
struct lnetcap_pcpu {
	__u64 stat[LNETCAP_STAT_COUNT];
	__u64 seq;
	__u64 pad[8 - LNETCAP_STAT_COUNT - 1];
};
LNETCAP_ASSERT_SIZE(struct lnetcap_pcpu, 64);

#define LNETCAP_RING_FIXED                                                    \
	(sizeof(struct lnetcap_ring_env) + sizeof(struct lnetcap_rec_hdr) +   \
	 sizeof(struct lnetcap_hdr_nid16))

#endif /* LNETCAP_ABI_H */
