/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rpc_predicates.h - what a PtlRPC message means, decided once for the
 * agent (text, filters, summaries, metrics, anonymizer) and the Wireshark
 * plugin.  Each predicate takes the decoded fields, not a buffer, so every
 * consumer can call it whatever its reader is.  The meaning follows
 * Lustre 2.16's own code (named in each comment); change it here only.
 */
#ifndef LNETCAP_RPC_PREDICATES_H
#define LNETCAP_RPC_PREDICATES_H

#include "compat.h"
#include "lnet.h"
#include "ptlrpc.h"

/*
 * An early reply (adaptive timeouts: "the server needs more time"), not the
 * final reply.  ptlrpc_at_send_early_reply() packs a reply holding only the
 * ptlrpc_body and sends it with PTLRPC_REPLY_EARLY at offset 0 of the
 * client's reply buffer; null_authorize() sets lm_cksum on such a reply
 * only (a final one, rq_packed_final, lands at lustre_msg_early_size when
 * the client supports AT, or at offset 0 without lm_cksum when it does not).
 * The client's reply_in_callback() takes offset 0 as the sign.
 */
static inline int lnetcap_rpc_is_early_reply(__u32 pb_type, __u32 bufcount, __u32 lm_cksum,
					     __u32 put_offset)
{
	return pb_type == LNETCAP_PTL_RPC_MSG_REPLY && bufcount == 1 && put_offset == 0 &&
	       lm_cksum != 0;
}

/*
 * pb_status of a reply is the bulk transfer size, not a status: a
 * successful OST_READ/OST_WRITE (tgt_brw_read() sets rc = nob and
 * rq_status = rc; tgt_brw_write() likewise).
 */
static inline int lnetcap_rpc_status_is_byte_count(__u32 opc, __u32 pb_type, __s32 status)
{
	return (opc == LNETCAP_OPC_OST_READ || opc == LNETCAP_OPC_OST_WRITE) &&
	       pb_type == LNETCAP_PTL_RPC_MSG_REPLY && status > 0;
}

/*
 * A final reply reports a failure: an error reply (PTL_RPC_MSG_ERR, from
 * ptlrpc_send_error()) or a negative errno.  ptlrpc_check_status() on the
 * client treats exactly these as failures.  Positive statuses are results:
 * the byte count above, and the ELDLM_* codes, which lustre_dlm.h calls
 * "LDLM non-error return states" - ELDLM_LOCK_ABORTED (301) is the normal
 * answer to every intent enqueue (mdt_intent_policy()).  Requests carry the
 * sender's pid in pb_status and are never errors; neither are early replies.
 */
static inline int lnetcap_rpc_is_error(__u32 pb_type, __s32 status)
{
	if (pb_type == LNETCAP_PTL_RPC_MSG_ERR)
		return 1;
	return pb_type == LNETCAP_PTL_RPC_MSG_REPLY && status < 0;
}

/* pb_status of a request is the sender's pid (ptlrpc_send_new_req() sets it), not
 * a status: printers and dissectors show it only for replies. */
static inline int lnetcap_rpc_has_status(__u32 pb_type)
{
	return pb_type != LNETCAP_PTL_RPC_MSG_REQUEST;
}

#endif /* LNETCAP_RPC_PREDICATES_H */
