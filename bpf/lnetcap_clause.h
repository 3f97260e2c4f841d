/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * lnetcap_clause.h - how a message is tested against lnetcapd's clause
 * table (struct lnetcap_subfilter, lnetcap_abi.h).  One definition for the
 * BPF programs (lnetcap_rec.bpf.h) and for user space, whose unit tests
 * check with this very code that the clauses made from a filter accept
 * every record the filter accepts.
 *
 * h is the 96-byte in-memory LNet header (struct lnetcap_hdr_nid16) at a
 * 4-byte aligned address, read as words; dir is the record's direction.
 */
#ifndef LNETCAP_CLAUSE_H
#define LNETCAP_CLAUSE_H

#include "lnetcap_abi.h"

#ifdef __cplusplus
#define LNETCAP_CL_INLINE inline
#else
#define LNETCAP_CL_INLINE static __always_inline
#endif

/* Index of a header field in 32-bit words. */
#define LNETCAP_HW(field) (LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, field) / 4)
LNETCAP_STATIC_ASSERT(LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, msg.put.ptl_index) % 4 == 0,
		      "put.ptl_index must be a word");
LNETCAP_STATIC_ASSERT(LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, msg.get.ptl_index) % 4 == 0,
		      "get.ptl_index must be a word");

/* n: a NID in the header (word aligned); t: a clause's struct lnetcap_nid
 * (word aligned in struct lnetcap_clause); words: address words to compare
 * (1 or 4), after the first word (nid_size, nid_type, nid_num). */
LNETCAP_CL_INLINE int lnetcap_cl_nid(const __u32 *n, const void *t, __u32 words)
{
	const __u32 *x = (const __u32 *)t;

	if (n[0] != x[0] || n[1] != x[1])
		return 0;
	if (words > 1 && (n[2] != x[2] || n[3] != x[3] || n[4] != x[4]))
		return 0;
	return 1;
}

LNETCAP_CL_INLINE int lnetcap_cl_net(const __u32 *n, __u8 type, __u16 num_be)
{
	const __u8 *b = (const __u8 *)n;

	return b[1] == type && *(const __u16 *)(b + 2) == num_be;
}

/* 1 when every term of c holds for the message. */
LNETCAP_CL_INLINE int lnetcap_clause_match(const struct lnetcap_clause *c, const __u32 *h,
					   __u32 dir)
{
	const __u32 *src = h + LNETCAP_HW(src_nid);
	const __u32 *dst = h + LNETCAP_HW(dest_nid);
	__u32 type = h[LNETCAP_HW(type)];
	__u32 terms = c->terms;

	if (!(c->type_mask & (1U << (type < 31 ? type : 31))))
		return 0;
	if (!(c->dir_mask & (1U << (dir < 31 ? dir : 31))))
		return 0;
	if (terms & LNETCAP_CL_PORTAL) {
		__u32 ptl;

		if (type == LNETCAP_MSG_PUT)
			ptl = h[LNETCAP_HW(msg.put.ptl_index)];
		else if (type == LNETCAP_MSG_GET)
			ptl = h[LNETCAP_HW(msg.get.ptl_index)];
		else
			return 0;
		if (ptl != c->portal)
			return 0;
	}
	if ((terms & LNETCAP_CL_SRC) && !lnetcap_cl_nid(src, &c->src, c->src_words))
		return 0;
	if ((terms & LNETCAP_CL_DST) && !lnetcap_cl_nid(dst, &c->dst, c->dst_words))
		return 0;
	if ((terms & LNETCAP_CL_ANY) && !lnetcap_cl_nid(src, &c->any, c->any_words) &&
	    !lnetcap_cl_nid(dst, &c->any, c->any_words))
		return 0;
	if ((terms & LNETCAP_CL_NET) && !lnetcap_cl_net(src, c->net_type, c->net_num) &&
	    !lnetcap_cl_net(dst, c->net_type, c->net_num))
		return 0;
	return 1;
}

/* 1 when the table lets the message through (its sequence lock aside). */
LNETCAP_CL_INLINE int lnetcap_subfilter_match(const struct lnetcap_subfilter *sf, const __u32 *h,
					      __u32 dir)
{
	__u32 n = sf->count, i;

	if (sf->pass_all)
		return 1;
	for (i = 0; i < LNETCAP_SUB_CLAUSES; i++) {
		if (i >= n)
			break;
		if (lnetcap_clause_match(&sf->clause[i], h, dir))
			return 1;
	}
	return 0;
}

#endif /* LNETCAP_CLAUSE_H */
