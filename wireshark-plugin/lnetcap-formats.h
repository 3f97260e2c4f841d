/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-formats.h - what a PtlRPC buffer holds, asked of the one table of
 * request and reply formats (include/lnetcap/rpc_formats.h) that the agent's
 * decoder and the anonymizer read too, so that the three agree by
 * construction instead of each keeping its own per-opcode buffer indexes.
 */
#ifndef LNETCAP_FORMATS_H
#define LNETCAP_FORMATS_H

#include "packet-lnetcap.h"

#include "lnetcap/rpc_formats.h" /* enum lnetcap_rmf: LNETCAP_RMF_* */

/* No such buffer: an index lnetcap_rpc_buf() refuses. */
#define LNETCAP_RPC_NO_BUF G_MAXUINT

/* What buffer i of this message holds: the kind every format of its opcode
 * and direction agrees on (any release), LNETCAP_RMF_NONE when none has
 * that buffer or they disagree. */
enum lnetcap_rmf lnetcap_rpc_kind(const lnetcap_pkt_t *pkt, guint i);

/* The index of the first buffer of kind in this message's format (every
 * format of its opcode and direction agreeing), or LNETCAP_RPC_NO_BUF;
 * LNETCAP_BUF(pkt, NAME) for LNETCAP_RMF_NAME. */
guint lnetcap_rpc_index(const lnetcap_pkt_t *pkt, enum lnetcap_rmf kind);
#define LNETCAP_BUF(pkt, kind) lnetcap_rpc_index((pkt), LNETCAP_RMF_##kind)

/* The same for the format chosen by sel: the rr_opcode of an MDS_REINT, the
 * ldlm_intent.opc bits of an LDLM_ENQUEUE. */
enum lnetcap_rmf lnetcap_rpc_kind_sel(guint32 opc, gboolean reply, guint32 sel, guint i);

/* The index of the first buffer of kind in the format chosen by sel, or
 * LNETCAP_RPC_NO_BUF when it has none (lnetcap_rpc_buf() refuses it). */
guint lnetcap_rpc_index_sel(guint32 opc, gboolean reply, guint32 sel, enum lnetcap_rmf kind);

#endif /* LNETCAP_FORMATS_H */
