/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lnetcap_pages.bpf.h - reading a payload that lives in a page vector
 * (struct bio_vec array: lnet_msg.msg_kiov), without any kernel module.
 *
 * Lustre 2.15+ turns every MD into pages (lnet_md_build() sets
 * LNET_MD_KIOV even for contiguous request buffers), and router buffers
 * are pages too, so this is how nearly every payload is read.  BPF has no
 * kmap(), but on x86_64 every page is also mapped in the kernel's direct
 * map, at the address page_address() computes from the struct page
 * pointer (struct lnetcap_kmem in lnetcap_abi.h).  bpf_probe_read_kernel()
 * of that address reads the bytes; a wrong address faults harmlessly and
 * the record says so.
 *
 * A payload inside one piece (most PtlRPC requests and replies) is read
 * straight into the ring.  One spread over several pieces is gathered in
 * the per-CPU "pages" slot first (bounded loops, so kernels from 5.8 on
 * verify it), then copied into the ring once.
 */
#ifndef LNETCAP_PAGES_BPF_H
#define LNETCAP_PAGES_BPF_H

/* Where the payload of msg starts in its page vector. */
struct lnetcap_kiov_pos {
	__u64 kiov;  /* struct bio_vec * */
	__u32 niov;  /* entries */
	__u32 i;     /* entry holding the first payload byte */
	__u32 skip;  /* bytes of entry i before it */
};

/* This CPU's "pages" slot: the gather loop's running totals, then the
 * gathered bytes. */
struct lnetcap_page_slot {
	__u32 done;
	__u32 skip;
	__u8 data[];
};

/* snaplen with every lower bit set: the per-CPU slot's mask (a constant
 * to the verifier, since cfg is read-only). */
static __always_inline __u32 lnetcap_snap_mask(void)
{
	__u32 m = cfg.snaplen;

	m |= m >> 1;
	m |= m >> 2;
	m |= m >> 4;
	m |= m >> 8;
	m |= m >> 16;
	return m;
}

/* The direct map: where page_address() puts the bytes of a struct page. */
struct lnetcap_dmap {
	__u64 base;    /* page_offset_base */
	__u64 vmemmap; /* vmemmap_base */
};

static __always_inline void lnetcap_dmap_get(struct lnetcap_dmap *d)
{
	d->base = cfg.km.page_offset_var ?
		  lnetcap_read_ptr(cfg.km.page_offset_var) : cfg.km.page_offset;
	d->vmemmap = cfg.km.vmemmap_var ?
		     lnetcap_read_ptr(cfg.km.vmemmap_var) : cfg.km.vmemmap;
}

/* The kernel address of the bytes of a struct page, 0 when it is not one. */
static __always_inline __u64 lnetcap_page_va(const struct lnetcap_dmap *d,
					     __u64 page)
{
	__u32 sz = cfg.km.page_struct_size;

	if (!page || !sz || page < d->vmemmap || (page - d->vmemmap) % sz)
		return 0;
	return d->base + (page - d->vmemmap) / sz * cfg.km.page_size;
}

/* One bio_vec: page, length, offset. */
struct lnetcap_bvec {
	__u64 page;
	__u32 len;
	__u32 offset;
};

static __always_inline bool lnetcap_read_bvec(struct lnetcap_bvec *bv,
					      __u64 kiov, __u32 i)
{
	return LNETCAP_READ(bv, sizeof(*bv),
			    (const void *)(kiov + (__u64)i * LNETCAP_BVEC_SIZE)) == 0;
}

/*
 * Finds the entry holding the payload's first byte, msg_offset bytes into
 * the vector, without walking it (a loop over up to 256 entries whose
 * every exit the verifier would follow separately): the first entry, or,
 * past it, entry 1 + (offset - len0) / page_size.  That is exact for every
 * vector lnet_md_build() makes from a buffer (page-sized entries after the
 * first, which is where requests land at an offset); bulk vectors and
 * router buffers are used from offset 0.  The entry found is checked to
 * hold the byte; anything else is reported as a fault.
 */
static __always_inline bool lnetcap_kiov_find(struct lnetcap_kiov_pos *p,
					      __u64 msg, struct lnetcap_bvec *bv,
					      __u16 *why)
{
	__u64 md;
	__u32 skip;

	p->kiov = lnetcap_read_ptr(msg + cfg.lo.msg_kiov);
	p->niov = lnetcap_read_u32(msg + cfg.lo.msg_niov);
	skip = lnetcap_read_u32(msg + cfg.lo.msg_offset);
	/* The reply lnet_create_reply_msg() makes for an RDMA GET has only
	 * its MD: the data landed in the MD's own page vector. */
	if (!p->kiov && cfg.lo.md_kiov) {
		md = lnetcap_read_ptr(msg + cfg.lo.msg_md);
		if (md) {
			p->kiov = md + cfg.lo.md_kiov;
			p->niov = lnetcap_read_u32(md + cfg.lo.md_niov);
		}
	}
	*why = LNETCAP_REC_F_PAYLOAD_FAULT;
	if (!p->kiov || !p->niov || p->niov > LNETCAP_MAX_KIOV ||
	    !lnetcap_read_bvec(bv, p->kiov, 0))
		return false;
	p->i = 0;
	if (skip >= bv->len) {
		skip -= bv->len;
		p->i = 1 + skip / cfg.km.page_size;
		skip %= cfg.km.page_size;
		if (p->i >= p->niov || !lnetcap_read_bvec(bv, p->kiov, p->i) ||
		    skip >= bv->len)
			return false;
	}
	p->skip = skip;
	*why = 0;
	return true;
}

/*
 * Sets s->payload when the first `want` payload bytes sit in one piece,
 * else s->use_pages (gathered at copy time), else s->why.
 */
static __always_inline void lnetcap_kiov_src(struct lnetcap_src *s, __u64 msg,
					     __u32 want)
{
	struct lnetcap_kiov_pos p = {};
	struct lnetcap_bvec bv = {};
	struct lnetcap_dmap d;
	__u64 va;

	if (!cfg.km.pages) {
		s->why = LNETCAP_REC_F_PAYLOAD_NO_PAGE_MAP;
		return;
	}
	if (!lnetcap_kiov_find(&p, msg, &bv, &s->why))
		return;
	lnetcap_dmap_get(&d);
	va = lnetcap_page_va(&d, bv.page);
	if (!va) {
		s->why = LNETCAP_REC_F_PAYLOAD_NO_PAGE_MAP;
		return;
	}
	if (bv.len - p.skip >= want) {
		s->payload = va + bv.offset + p.skip;
		return;
	}
	s->use_pages = 1;
	s->kiov = p.kiov;
	s->niov = p.niov;
	s->kiov_i = p.i;
	s->kiov_skip = p.skip;
}

/*
 * Gathers up to `want` (<= cfg.snaplen) payload bytes from the pieces,
 * starting at entry i, skip bytes in, into this CPU's "pages" slot.
 * Returns the bytes gathered, and in bits 32..47 the
 * LNETCAP_REC_F_PAYLOAD_* reason of a shortfall.
 *
 * A global (not inlined) function: the verifier checks it once, on its
 * own, instead of once per call site and per state the caller reaches it
 * in, which would multiply the loop's paths past the verifier's limit.
 * So its arguments are plain integers.
 */
__noinline __u64 lnetcap_gather_pages(__u64 kiov, __u32 niov, __u32 i,
				      __u32 skip, __u32 want)
{
	__u32 cpu = bpf_get_smp_processor_id(), n;
	__u64 fail = LNETCAP_REC_F_PAYLOAD_PAGE_LIMIT;
	struct lnetcap_page_slot *slot;
	struct lnetcap_bvec bv;
	struct lnetcap_dmap d;
	__u64 va;
	int k;

	slot = bpf_map_lookup_elem(&pages, &cpu);
	if (!slot)
		return (__u64)LNETCAP_REC_F_PAYLOAD_FAULT << 32;
	lnetcap_dmap_get(&d);
	slot->done = 0;
	slot->skip = skip;
	/*
	 * Written for the verifier, which follows every path through every
	 * iteration and only merges paths whose registers it knows no better
	 * than each other: the running totals live in the slot (so they read
	 * back as unknowns, the same on every path), and bounds come from
	 * masks, not clamps.  An LNet bio_vec never exceeds a page
	 * (lnet_md_build refuses it), so each iteration consumes its whole
	 * piece, or reaches `want` and ends.
	 */
	for (k = 0; k < LNETCAP_PAGE_PIECES; k++) {
		if (slot->done >= want) {
			fail = 0;
			break;
		}
		fail = LNETCAP_REC_F_PAYLOAD_FAULT;
		if (i >= niov || !lnetcap_read_bvec(&bv, kiov, i) ||
		    bv.len > LNETCAP_PIECE_MAX || slot->skip > bv.len)
			break;
		va = lnetcap_page_va(&d, bv.page);
		if (!va && bv.len) {
			fail = LNETCAP_REC_F_PAYLOAD_NO_PAGE_MAP;
			break;
		}
		n = bv.len - slot->skip; /* 0: an empty entry */
		if (n > want - slot->done)
			n = want - slot->done;
		/* The data area is mask + 1 + 2 * LNETCAP_PIECE_MAX bytes,
		 * and done < want <= snaplen <= mask. */
		n &= 2 * LNETCAP_PIECE_MAX - 1;
		if (n && LNETCAP_READ(slot->data + (slot->done & lnetcap_snap_mask()),
				      n, (const void *)(va + bv.offset + slot->skip)))
			break;
		fail = LNETCAP_REC_F_PAYLOAD_PAGE_LIMIT;
		slot->done += n;
		slot->skip = 0;
		i++;
	}
	return fail << 32 | slot->done;
}

#endif /* LNETCAP_PAGES_BPF_H */
