/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * fld.h - the FLD (FID Location Database) RPCs: FLD_QUERY and FLD_READ,
 * by which a client or MDT asks which target serves a FID sequence.
 *
 * Source: Lustre 2.16.1 lustre/ptlrpc/layout.c (RQF_FLD_QUERY, RQF_FLD_READ;
 * identical in 2.15 and 2.17) and lustre_idl.h (enum fld_op,
 * struct lu_seq_range_array).
 *   FLD_QUERY request: ptlrpc_body, RMF_FLD_OPC (__u32 fld_op),
 *                      RMF_FLD_MDFLD (lu_seq_range: the sequence asked for)
 *             reply:   ptlrpc_body, RMF_FLD_MDFLD (the range that holds it)
 *   FLD_READ  request: ptlrpc_body, RMF_FLD_MDFLD (where to start)
 *             reply:   ptlrpc_body, RMF_GENERIC_DATA (lu_seq_range_array)
 * The FLD_READ reply has no swabber: fld_index.c writes it little-endian
 * (range_array_cpu_to_le) whatever the message's byte order.
 */
#ifndef LNETCAP_FLD_H
#define LNETCAP_FLD_H

#include "bodies.h" /* struct lnetcap_lu_seq_range, LU_SEQ_RANGE_* */

/* enum fld_op (the RMF_FLD_OPC of FLD_QUERY).  X(NAME, value) */
#define LNETCAP_FLD_OP_LIST(X) X(FLD_CREATE, 0) X(FLD_DELETE, 1) X(FLD_LOOKUP, 2)

/* RMF_GENERIC_DATA of an FLD_READ reply: lsra_count ranges follow. */
struct lnetcap_lu_seq_range_array {
	__u32 lsra_count;
	__u32 lsra_padding;
	/* struct lnetcap_lu_seq_range lsra_lsr[lsra_count] follows */
} LNETCAP_PACKED;
LNETCAP_ASSERT_SIZE(struct lnetcap_lu_seq_range_array, 8);

#endif /* LNETCAP_FLD_H */
