/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * lnetcap_clause.h - how a message is tested against the in-kernel filter's
 * clauses (struct lnetcap_clause, lnetcap_abi.h): the direct capture's
 * fixed table in .rodata (cfg.clause) and lnetcapd's map "subfilter".  One
 * definition for the BPF programs (lnetcap_rec.bpf.h) and for user space,
 * whose unit tests check with this very code that the clauses made from a
 * filter accept every record the filter accepts.
 *
 * h is the 96-byte in-memory LNet header (struct lnetcap_hdr_nid16) at a
 * 4-byte aligned address, read as words; dir is the record's direction;
 * local the record's local NI NID (rec_hdr.local_nid), word aligned.
 *
 * Clauses are read through volatile pointers: in the programs the fixed
 * table is `const volatile` .rodata, which clang must not fold to its
 * all-zero initializer (the agent writes it before load, and the verifier
 * then sees its words as constants and prunes what they switch off).
 */
#ifndef LNETCAP_CLAUSE_H
#define LNETCAP_CLAUSE_H

#include "lnetcap_abi.h"

#ifdef __cplusplus
#define LNETCAP_CL_INLINE inline
#else
#define LNETCAP_CL_INLINE static __always_inline
#endif
#define LNETCAP_CL_TABLE const volatile

/* Index of a header field in 32-bit words. */
#define LNETCAP_HW(field) (LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, field) / 4)
LNETCAP_STATIC_ASSERT(LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, msg.put.ptl_index) % 4 == 0,
		      "put.ptl_index must be a word");
LNETCAP_STATIC_ASSERT(LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, msg.get.ptl_index) % 4 == 0,
		      "get.ptl_index must be a word");

/* n: a NID in the header (word aligned); t: a clause's struct lnetcap_nid
 * (word aligned in struct lnetcap_clause); words: address words to compare
 * (1 or 4), after the first word (nid_size, nid_type, nid_num). */
LNETCAP_CL_INLINE int lnetcap_cl_nid(const __u32 *n, LNETCAP_CL_TABLE void *t, __u32 words)
{
	LNETCAP_CL_TABLE __u32 *x = (LNETCAP_CL_TABLE __u32 *)t;

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
LNETCAP_CL_INLINE int lnetcap_clause_match(LNETCAP_CL_TABLE struct lnetcap_clause *c,
					   const __u32 *h, __u32 dir, const __u32 *local)
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
	if ((terms & LNETCAP_CL_NI) && !lnetcap_cl_nid(local, &c->ni, c->ni_words))
		return 0;
	if ((terms & LNETCAP_CL_NI_NET) && !lnetcap_cl_net(local, c->ni_net_type, c->ni_net_num))
		return 0;
	return 1;
}

/* 1 when one of the first n of the max clauses at c matches.  max is a
 * constant at every call, so the loop is bounded for the verifier; in the
 * fixed table n is a constant too, and the loop ends where the table does. */
LNETCAP_CL_INLINE int lnetcap_clauses_match(LNETCAP_CL_TABLE struct lnetcap_clause *c, __u32 n,
					    __u32 max, const __u32 *h, __u32 dir,
					    const __u32 *local)
{
	__u32 i;

	for (i = 0; i < max; i++) {
		if (i >= n)
			break;
		if (lnetcap_clause_match(&c[i], h, dir, local))
			return 1;
	}
	return 0;
}

/* 1 when the table lets the message through (its sequence lock aside). */
LNETCAP_CL_INLINE int lnetcap_subfilter_match(LNETCAP_CL_TABLE struct lnetcap_subfilter *sf,
					      const __u32 *h, __u32 dir, const __u32 *local)
{
	if (sf->pass_all)
		return 1;
	return lnetcap_clauses_match(sf->clause, sf->count, LNETCAP_SUB_CLAUSES, h, dir, local);
}

#endif /* LNETCAP_CLAUSE_H */
