/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lnetcap_rec.bpf.h - the one record builder shared by every lnetcap BPF
 * program (fentry, kprobe, and the uprobe/raw_tp programs of the host tests
 * and benchmark).
 *
 * A hook describes what it found (struct lnetcap_src: addresses of the LNet
 * header, the local NI, the peer NID and the lnet_msg).  The builder reads
 * everything through cfg.lo offsets with LNETCAP_READ (bpf_probe_read_kernel,
 * or bpf_probe_read_user for the host tests, which lay out fake Lustre
 * structs in user memory), applies the in-kernel filter on a stack copy of
 * the fixed part, and only then reserves ring space, so rejected messages
 * never cross the ring.  Record format: include/lnetcap/record.h v1, behind
 * struct lnetcap_ring_env.
 */
#ifndef LNETCAP_REC_BPF_H
#define LNETCAP_REC_BPF_H

#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "lnetcap_abi.h"
#include "lnetcap_clause.h"

#ifndef LNETCAP_READ
#define LNETCAP_READ bpf_probe_read_kernel
#endif

/* Word aligned: the programs read cfg.clause as words (lnetcap_clause.h). */
const volatile struct lnetcap_cfg cfg __attribute__((aligned(8))) = {};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20); /* the agent sets -B before load */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* the agent sets the number of possible CPUs */
	__type(key, __u32);
	__type(value, struct lnetcap_pcpu);
} pcpu SEC(".maps");

/*
 * lnetcapd's clause table (lnetcap_abi.h, struct lnetcap_subfilter): read
 * only when cfg.filter_sub is set; the daemon maps the value and rewrites
 * it in place as subscribers come and go.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lnetcap_subfilter);
} subfilter SEC(".maps");

/*
 * Payloads spread over several pages are gathered here before they are
 * copied into the ring: one slot per CPU (the agent sets max_entries to the
 * possible CPUs and value_size to snaplen + LNETCAP_PIECE_MAX, so a piece of
 * up to one page written at any offset below snaplen stays inside the slot,
 * which is what the verifier checks).  No BTF types: the agent resizes it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 4 * LNETCAP_PIECE_MAX);
} pages SEC(".maps");

#ifdef LNETCAP_WITH_KFUNC
/*
 * Payload pages (bulk MDs, router buffers) need kmap: only the lnetcap_kfunc
 * module can copy them (docs/kernel-contract.md).  The kfunc writes into a
 * per-CPU map value, the one memory argument every kernel since 5.18 accepts
 * for a kfunc (dst + dst__sz), and the builder copies that into the ring.
 */
struct lnetcap_scratch {
	__u8 buf[LNETCAP_KFUNC_SCRATCH];
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lnetcap_scratch);
} scratch SEC(".maps");

/*
 * docs/kernel-contract.md: msg is the lnet_msg's address as a scalar (a
 * typed pointer could never match across the two modules' split BTF).
 * Copies up to dst__sz payload bytes from offset; returns bytes or -errno.
 */
extern int bpf_lnetcap_msg_payload(__u64 msg, __u32 offset, void *dst,
				   __u32 dst__sz) __ksym;
#endif

/* What a hook knows about one message. */
struct lnetcap_src {
	__u64 hdr;      /* address of the 96-byte in-memory struct lnet_hdr */
	__u64 ni;       /* struct lnet_ni *: the local NI */
	__u64 peer_nid; /* address of a struct lnet_nid, 0 = unknown */
	__u64 msg;      /* struct lnet_msg *, 0 at lnet_parse */
	__u32 payload_len;  /* original payload length */
	__u32 payload_have; /* bytes readable at payload (<= payload_len) */
	__u64 payload;      /* contiguous payload address, 0 = none */
	__s32 status;
	__u16 flags;        /* LNETCAP_REC_F_* known up front */
	__u8 dir;           /* enum lnetcap_direction */
	__u8 hook;          /* enum lnetcap_hook */
	__u8 use_kfunc;     /* payload only reachable through the kfunc */
	__u8 use_pages;     /* payload spans several msg_kiov pieces */
	__u16 why;          /* LNETCAP_REC_F_PAYLOAD_* reason when unreadable */
	/* use_pages: where the payload starts (lnetcap_pages.bpf.h) */
	__u64 kiov;
	__u32 niov, kiov_i, kiov_skip;
	/* health fields (record.h): with flags QUEUE_VALID / OUTCOME */
	__u64 queue_ns;
	__u64 msg_id;       /* 0: a new message, numbered by its record */
	__u8 drop_reason;   /* enum lnetcap_drop_reason */
	/* hdr is a header the programs built in a map (the REPLY of an RDMA
	 * GET), read as kernel memory in every flavour */
	__u8 hdr_built;
	/* the header's src_nid is the local NI's (the responder's REPLY of an
	 * RDMA GET has none yet: only lnet_send would set it) */
	__u8 src_is_ni;
	/* no NI is known (a GET LNetGetForce sent, msg_txni never set): the
	 * local NID is the header's src_nid, the NI's, as LNetGetForce set it */
	__u8 local_is_src;
	/* an attempt handed to the LND: its health is not known yet, and
	 * msg_health_status still holds the previous attempt's failure
	 * (LNet sets it only when the LND completes the send), so OK */
	__u8 attempt_start;
	/* health status when there is no lnet_msg (HEALTH_VALID with it) */
	__u8 health;
};

/* The fixed part of a sample, built on the stack before anything is
 * reserved: 8 + 128 + 96 = 232 bytes. */
struct lnetcap_fixed {
	struct lnetcap_ring_env env;
	struct lnetcap_rec_hdr rh;
	struct lnetcap_hdr_nid16 lh;
};

/* The current thread is the agent's self-check (cfg.self_tid). */
static __always_inline bool lnetcap_self_task(void)
{
	return cfg.self_tid && (__u32)bpf_get_current_pid_tgid() == cfg.self_tid;
}

static __always_inline struct lnetcap_pcpu *lnetcap_pcpu(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&pcpu, &cpu);
}

static __always_inline void lnetcap_count(struct lnetcap_pcpu *pc, int stat)
{
	if (pc && stat >= 0 && stat < LNETCAP_STAT_COUNT)
		__sync_fetch_and_add(&pc->stat[stat], 1);
}

/*
 * The clauses read the LNet header and the local NID on the stack as words
 * (lnetcap_clause.h).
 */
LNETCAP_STATIC_ASSERT(LNETCAP_OFFSETOF(struct lnetcap_fixed, rh.local_nid) % 4 == 0,
		      "local_nid must be word aligned on the stack");
LNETCAP_STATIC_ASSERT(LNETCAP_OFFSETOF(struct lnetcap_fixed, lh) % 4 == 0,
		      "the LNet header must be word aligned on the stack");

/*
 * The second stage: does some subscriber of lnetcapd (or its recorder,
 * trigger or metrics) want this message?  The table is read under its
 * sequence lock: while it is being rewritten, or if it changed during the
 * test, the message passes, so an update never makes a subscriber lose a
 * message its new filter accepts.  (x86 keeps loads in order; the compiler
 * barriers keep clang from moving the table reads across the gen reads.)
 */
/*
 * A global (not inlined, not static) function: the verifier checks it once,
 * on its own, instead of in every hook at every call site.  Inlined, the
 * clause loop's registers spilled into the hook's frame, and lnet_ni_send's
 * frame plus lnetcap_gather_pages' passed the 512-byte combined stack
 * ("combined stack size of 2 calls is 576" on 6.1, fentry flavour, seen in
 * rig.daemon); as a static subprog it was verified per call site and
 * lnet_finalize passed the million-instruction limit.  Global function
 * arguments may be NULL as far as the verifier knows, hence the check.
 */
__noinline int lnetcap_sub_keep(const struct lnetcap_fixed *f)
{
	__u32 zero = 0, gen;
	int keep;
	struct lnetcap_subfilter *sf = bpf_map_lookup_elem(&subfilter, &zero);

	if (!sf || !f)
		return 1;
	gen = *(volatile __u32 *)&sf->gen;
	if (gen & 1)
		return 1;
	asm volatile("" ::: "memory");
	keep = lnetcap_subfilter_match(sf, (const __u32 *)&f->lh, f->rh.direction,
				       (const __u32 *)&f->rh.local_nid);
	asm volatile("" ::: "memory");
	return keep || *(volatile __u32 *)&sf->gen != gen;
}

/*
 * The first stage: the clauses the agent made of its filter and -i
 * (cfg.clause, filter::kernel_clauses).  They are .rodata, so the verifier
 * sees every word of them as a constant: the loop ends at clause_count and
 * the terms a clause does not use are dead code.  A global function for
 * the same reason as lnetcap_sub_keep below (checked once, its registers
 * in its own frame); f is never NULL (the verifier does not know).
 */
__noinline int lnetcap_cfg_keep(const struct lnetcap_fixed *f)
{
	if (!f)
		return 1;
	return lnetcap_clauses_match(cfg.clause, cfg.clause_count, LNETCAP_CFG_CLAUSES,
				     (const __u32 *)&f->lh, f->rh.direction,
				     (const __u32 *)&f->rh.local_nid);
}

/*
 * The in-kernel filter (lnetcap_abi.h): -Q, then the fixed clauses, then
 * lnetcapd's table.  The user-space filter still runs on every record, so
 * the clauses only ever save work; -i is exact here and not checked again.
 */
static __always_inline bool lnetcap_keep(const struct lnetcap_fixed *f)
{
	/* The agent's self-check ping: never filtered (cfg.self_tid). */
	if (lnetcap_self_task())
		return true;
	/* DROP records were checked by their side (LNETCAP_DIRMASK_DROP_*). */
	if (f->rh.direction != LNETCAP_DIR_DROP &&
	    !(cfg.dir_mask & (1U << f->rh.direction)))
		return false;
	if (cfg.filter_clauses && !lnetcap_cfg_keep(f))
		return false;
	/* Last: it passes only what the fixed filter already kept. */
	if (cfg.filter_sub && !lnetcap_sub_keep(f))
		return false;
	return true;
}

/* Reads a bit flag of struct lnet_msg located by (byte, bit). */
static __always_inline bool lnetcap_msg_flag(__u64 msg, __u16 byte, __u8 bit)
{
	__u8 v = 0;

	LNETCAP_READ(&v, sizeof(v), (const void *)(msg + byte));
	return (v >> (bit & 7)) & 1;
}

static __always_inline __u64 lnetcap_read_ptr(__u64 addr)
{
	__u64 v = 0;

	LNETCAP_READ(&v, sizeof(v), (const void *)addr);
	return v;
}

static __always_inline __u32 lnetcap_read_u32(__u64 addr)
{
	__u32 v = 0;

	LNETCAP_READ(&v, sizeof(v), (const void *)addr);
	return v;
}

/*
 * min(v, max) written so that the verifier sees the bound on the very
 * register that is used afterwards: clang otherwise proves the clamp
 * redundant (it knows the reservation class) and drops it, or clamps a
 * copy of the register.
 */
static __always_inline __u64 lnetcap_clamp(__u64 v, __u64 max)
{
	asm volatile("if %[v] <= %[m] goto +1;"
		     "%[v] = %[m];"
		     : [v] "+r"(v)
		     : [m] "r"(max));
	return v;
}

#include "lnetcap_pages.bpf.h"

/*
 * Copies the payload prefix into the reserved sample.  room is a constant on
 * every path (the reservation class), so the verifier sees the copy bounded.
 */
static __always_inline __u32 lnetcap_copy_payload(__u8 *dst, __u32 room,
						  __u32 caplen,
						  const struct lnetcap_src *s,
						  struct lnetcap_pcpu *pc,
						  __u16 *why)
{
	__u64 len = lnetcap_clamp(caplen, room);

	if (len == 0)
		return 0;
	if (s->use_pages) {
		__u32 cpu = bpf_get_smp_processor_id();
		__u64 r = lnetcap_gather_pages(s->kiov, s->niov, s->kiov_i,
					       s->kiov_skip, len);
		struct lnetcap_page_slot *buf = bpf_map_lookup_elem(&pages, &cpu);
		__u64 got = (__u32)r;

		*why = r >> 32;
		if (got < len)
			lnetcap_count(pc, LNETCAP_STAT_PAYLOAD_READ_FAILED);
		got = lnetcap_clamp(got, room);
		if (buf && got && bpf_probe_read_kernel(dst, got, buf->data) == 0)
			return got;
		return 0;
	}
	if (!s->use_kfunc) {
		if (LNETCAP_READ(dst, len, (const void *)s->payload) == 0)
			return len;
		lnetcap_count(pc, LNETCAP_STAT_PAYLOAD_READ_FAILED);
		*why = LNETCAP_REC_F_PAYLOAD_FAULT;
		return 0;
	}
#ifdef LNETCAP_WITH_KFUNC
	{
		__u32 zero = 0;
		struct lnetcap_scratch *sc = bpf_map_lookup_elem(&scratch, &zero);
		int got;

		if (!sc)
			return 0;
		len = lnetcap_clamp(len, LNETCAP_KFUNC_SCRATCH);
		got = bpf_lnetcap_msg_payload(s->msg, 0,
					      sc->buf, len);
		if (got <= 0) {
			lnetcap_count(pc, LNETCAP_STAT_PAYLOAD_READ_FAILED);
			*why = LNETCAP_REC_F_PAYLOAD_FAULT;
			return 0;
		}
		len = lnetcap_clamp(got, len);
		len = lnetcap_clamp(len, room);
		len = lnetcap_clamp(len, LNETCAP_KFUNC_SCRATCH);
		bpf_probe_read_kernel(dst, len, sc->buf);
		return len;
	}
#else
	return 0;
#endif
}

/* Fills the fixed part from what the hook found. */
static __always_inline void lnetcap_fill(struct lnetcap_fixed *f,
					 const struct lnetcap_src *s)
{
	__builtin_memset(f, 0, sizeof(*f));
	f->rh.magic = LNETCAP_REC_MAGIC;
	f->rh.version = LNETCAP_REC_VERSION;
	f->rh.rec_hdr_len = sizeof(struct lnetcap_rec_hdr);
	f->rh.direction = s->dir;
	f->rh.hook = s->hook;
	/* hdr 0: an event no LNet header belongs to (a response timeout) */
	f->rh.lnet_hdr_len = s->hdr ? LNETCAP_HDR_NID16_LEN : 0;
	f->rh.rec_flags = s->flags;
	f->rh.cpu = bpf_get_smp_processor_id();
	f->rh.status = s->status;
	f->rh.ni_id = 0;
	if (s->hdr_built)
		bpf_probe_read_kernel(&f->lh, sizeof(f->lh), (const void *)s->hdr);
	else if (s->hdr)
		LNETCAP_READ(&f->lh, sizeof(f->lh), (const void *)s->hdr);
	if (s->ni)
		LNETCAP_READ(&f->rh.local_nid, sizeof(f->rh.local_nid),
			     (const void *)(s->ni + cfg.lo.ni_nid));
	if (s->src_is_ni)
		__builtin_memcpy(&f->lh.src_nid, &f->rh.local_nid,
				 sizeof(f->lh.src_nid));
	if (s->local_is_src)
		__builtin_memcpy(&f->rh.local_nid, &f->lh.src_nid,
				 sizeof(f->rh.local_nid));
	/* The LND type of a NI is its NID's type (net = LND type + number). */
	f->rh.lnd_type = f->rh.local_nid.nid_type;
	if (s->peer_nid)
		LNETCAP_READ(&f->rh.peer_nid, sizeof(f->rh.peer_nid),
			     (const void *)s->peer_nid);
	if (s->msg) {
		int hs = 0, retries = 0;

		if (!s->attempt_start)
			LNETCAP_READ(&hs, sizeof(hs),
				     (const void *)(s->msg + cfg.lo.msg_health_status));
		LNETCAP_READ(&retries, sizeof(retries),
			     (const void *)(s->msg + cfg.lo.msg_retry_count));
		f->rh.health_status = hs < 0 ? 0 : hs > 255 ? 255 : hs;
		f->rh.retry_count = retries < 0 ? 0 : retries > 255 ? 255 : retries;
		f->rh.rec_flags |= LNETCAP_REC_F_HEALTH_VALID;
	} else if (s->flags & LNETCAP_REC_F_HEALTH_VALID) {
		f->rh.health_status = s->health;
	}
	if ((s->flags & LNETCAP_REC_F_TASK_VALID) || lnetcap_self_task()) {
		f->rh.pid = (__u32)bpf_get_current_pid_tgid();
		bpf_get_current_comm(f->rh.comm, sizeof(f->rh.comm));
	}
	f->rh.payload_len = s->payload_len;
	f->rh.queue_ns = s->queue_ns;
	f->rh.msg_id = s->msg_id;
	f->rh.drop_reason = s->drop_reason;
}

/*
 * Filters, numbers, reserves, copies and commits one record.  Returns the
 * record's message id (s->msg_id, or LNETCAP_MSG_ID(cpu, seq) for a new
 * message), 0 when the filter rejected it; a record lost to a full ring
 * still numbers its message, so its outcome links to the gap.
 */
static __always_inline __u64 lnetcap_emit(const struct lnetcap_src *s)
{
	struct lnetcap_pcpu *pc = lnetcap_pcpu();
	struct lnetcap_fixed f;
	__u32 want, caplen, size;
	__u64 seq, flags;
	__u16 why = s->why;
	__u8 *rec;

	lnetcap_count(pc, LNETCAP_STAT_SEEN);
	lnetcap_fill(&f, s);
	if (!lnetcap_keep(&f)) {
		lnetcap_count(pc, LNETCAP_STAT_FILTERED);
		return 0;
	}
	seq = pc ? __sync_fetch_and_add(&pc->seq, 1) : 0;
	f.rh.seq = seq;
	/* An outcome without msg_id is of a message no record names. */
	if (!f.rh.msg_id && !(f.rh.rec_flags & LNETCAP_REC_F_OUTCOME))
		f.rh.msg_id = LNETCAP_MSG_ID(f.rh.cpu, seq);
	f.env.ktime_ns = bpf_ktime_get_ns();

	/* want: payload bytes this record should carry. */
	want = s->payload_have;
	if (want > cfg.snaplen)
		want = cfg.snaplen;
	caplen = want;
	if (!s->payload && !s->use_kfunc && !s->use_pages)
		caplen = 0;

	/* Three reservation classes; each size is a load-time constant. */
	if (caplen == 0) {
		rec = bpf_ringbuf_reserve(&events, LNETCAP_RING_FIXED, 0);
		size = 0;
	} else if (cfg.snaplen > LNETCAP_SMALL_PAYLOAD &&
		   caplen <= LNETCAP_SMALL_PAYLOAD) {
		rec = bpf_ringbuf_reserve(&events,
					  LNETCAP_RING_FIXED + LNETCAP_SMALL_PAYLOAD, 0);
		size = LNETCAP_SMALL_PAYLOAD;
	} else {
		rec = bpf_ringbuf_reserve(&events, LNETCAP_RING_FIXED + cfg.snaplen, 0);
		size = cfg.snaplen;
	}
	if (!rec) {
		/* The consumed seq leaves the gap the agent reports. */
		lnetcap_count(pc, LNETCAP_STAT_RING_FULL);
		return f.rh.msg_id;
	}
	if (size == LNETCAP_SMALL_PAYLOAD && cfg.snaplen > LNETCAP_SMALL_PAYLOAD)
		caplen = lnetcap_copy_payload(rec + LNETCAP_RING_FIXED,
					      LNETCAP_SMALL_PAYLOAD, caplen, s, pc,
					      &why);
	else if (size)
		caplen = lnetcap_copy_payload(rec + LNETCAP_RING_FIXED,
					      cfg.snaplen, caplen, s, pc, &why);
	else
		caplen = 0;
	if (caplen < want)
		f.rh.rec_flags |= LNETCAP_REC_F_PAYLOAD_UNREADABLE | why;
	f.rh.payload_caplen = caplen;
	__builtin_memcpy(rec, &f, sizeof(f));

	/* Batched wake-ups: the consumer also polls with a timeout, so an
	 * idle tail is flushed without a wake-up. */
	flags = BPF_RB_NO_WAKEUP;
	if ((seq & (cfg.wakeup_batch - 1)) == 0)
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(rec, flags);
	lnetcap_count(pc, LNETCAP_STAT_EMITTED);
	return f.rh.msg_id;
}

#endif /* LNETCAP_REC_BPF_H */
