/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-formats.c - the plugin's questions to include/lnetcap/rpc_formats.h
 * (see lnetcap-formats.h).  The table is small (a few hundred rows) and a
 * dissector asks a handful of questions per message, so a linear walk is
 * enough; nothing is cached, so nothing can go stale.
 */
#include "lnetcap-formats.h"

enum lnetcap_rmf lnetcap_rpc_kind(const lnetcap_pkt_t *pkt, guint i)
{
	gboolean reply = pkt->rpc.pb_type != LNETCAP_PTL_RPC_MSG_REQUEST;
	return lnetcap_rpc_buffer_kind(pkt->rpc.opc, 0, 0, reply, i);
}

guint lnetcap_rpc_index(const lnetcap_pkt_t *pkt, enum lnetcap_rmf kind)
{
	for (guint i = 0; i < LNETCAP_RPC_FORMAT_MAX_BUFS; i++)
		if (lnetcap_rpc_kind(pkt, i) == kind)
			return i;
	return LNETCAP_RPC_NO_BUF;
}

enum lnetcap_rmf lnetcap_rpc_kind_sel(guint32 opc, gboolean reply, guint32 sel, guint i)
{
	return lnetcap_rpc_buffer_kind(opc, 1, sel, reply, i);
}

guint lnetcap_rpc_index_sel(guint32 opc, gboolean reply, guint32 sel, enum lnetcap_rmf kind)
{
	for (guint i = 0; i < LNETCAP_RPC_FORMAT_MAX_BUFS; i++)
		if (lnetcap_rpc_kind_sel(opc, reply, sel, i) == kind)
			return i;
	return LNETCAP_RPC_NO_BUF;
}
