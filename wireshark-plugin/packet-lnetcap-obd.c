/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap-obd.c - connect RPCs (OST_CONNECT, MDS_CONNECT,
 * MGS_CONNECT: target and client obd_uuid, the import handle and
 * obd_connect_data) and OBD_PING, which has no body beyond ptlrpc_body.
 * Layouts: RQF_*_CONNECT in docs/protocol.md 4.2, obd_connect_data in 4.3.
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "packet-lnetcap.h"
#include "lnetcap-formats.h"
#include "lnetcap-vals.h"
#include "lnetcap/bodies.h"
#include "lnetcap/ptlrpc.h"

#define OCD(f) (gint)off + LNETCAP_OFF(struct lnetcap_obd_connect_data, f), \
	LNETCAP_LEN(struct lnetcap_obd_connect_data, f)

static int proto_obd = -1;
static gint ett_obd = -1;
static int hf_target_uuid = -1;
static int hf_client_uuid = -1;
static int hf_conn_handle = -1;
static int hf_selinux_pol = -1;
static int hf_ocd_version = -1;
static int hf_ocd_version_str = -1;
static int hf_ocd_grant = -1;
static int hf_ocd_index = -1;
static int hf_ocd_brw_size = -1;
static int hf_ocd_ibits_known = -1;
static int hf_ocd_grant_blkbits = -1;
static int hf_ocd_grant_inobits = -1;
static int hf_ocd_grant_tax_kb = -1;
static int hf_ocd_grant_max_blks = -1;
static int hf_ocd_transno = -1;
static int hf_ocd_group = -1;
static int hf_ocd_cksum_types = -1;
static int hf_ocd_max_easize = -1;
static int hf_ocd_instance = -1;
static int hf_ocd_maxbytes = -1;
static int hf_ocd_maxmodrpcs = -1;
static int hf_ocd_conn_policy = -1;
static int hf_ocd_compr_type = -1;

static int hf_os_type = -1;
static int hf_os_blocks = -1;
static int hf_os_bfree = -1;
static int hf_os_bavail = -1;
static int hf_os_files = -1;
static int hf_os_ffree = -1;
static int hf_os_fsid = -1;
static int hf_os_bsize = -1;
static int hf_os_namelen = -1;
static int hf_os_maxbytes = -1;
static int hf_os_state = -1;
static int hf_os_fprecreated = -1;
static int hf_os_granted = -1;

static gint ett_ocd = -1;
static gint ett_statfs = -1;

static lnetcap_flagset_t fs_connect = LNETCAP_FLAGSET(
	"lnetcap.obd.ocd.connect_flags", "Connect flags", 64, lnetcap_connect_flag_defs,
	lnetcap_connect_flag_count);
static lnetcap_flagset_t fs_connect2 = LNETCAP_FLAGSET(
	"lnetcap.obd.ocd.connect_flags2", "Connect flags 2", 64, lnetcap_connect2_flag_defs,
	lnetcap_connect2_flag_count);

static void dissect_ocd(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt,
			guint i)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, v;
	proto_item *it;
	/* Older peers send a shorter obd_connect_data: decode the part up to
	 * ocd_connect_flags2 when that much is there. */
	proto_tree *t;
	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, i,
		LNETCAP_OFF(struct lnetcap_obd_connect_data, ocd_compr_type), ett_ocd,
		"obd_connect_data", &t, &off))
		return;
	lnetcap_flagset_add(t, tvb, (gint)off, enc, &fs_connect);
	proto_tree_add_item_ret_uint(t, hf_ocd_version, tvb, OCD(ocd_version), enc, &v);
	it = proto_tree_add_string(t, hf_ocd_version_str, tvb, OCD(ocd_version),
		wmem_strdup_printf(pinfo->pool, "%u.%u.%u.%u", v >> 24, (v >> 16) & 0xff,
				   (v >> 8) & 0xff, v & 0xff));
	proto_item_set_generated(it);
	proto_tree_add_item(t, hf_ocd_grant, tvb, OCD(ocd_grant), enc);
	proto_tree_add_item(t, hf_ocd_index, tvb, OCD(ocd_index), enc);
	proto_tree_add_item(t, hf_ocd_brw_size, tvb, OCD(ocd_brw_size), enc);
	proto_tree_add_item(t, hf_ocd_ibits_known, tvb, OCD(ocd_ibits_known), enc);
	proto_tree_add_item(t, hf_ocd_grant_blkbits, tvb, OCD(ocd_grant_blkbits), enc);
	proto_tree_add_item(t, hf_ocd_grant_inobits, tvb, OCD(ocd_grant_inobits), enc);
	proto_tree_add_item(t, hf_ocd_grant_tax_kb, tvb, OCD(ocd_grant_tax_kb), enc);
	proto_tree_add_item(t, hf_ocd_grant_max_blks, tvb, OCD(ocd_grant_max_blks), enc);
	proto_tree_add_item(t, hf_ocd_transno, tvb, OCD(ocd_transno), enc);
	proto_tree_add_item(t, hf_ocd_group, tvb, OCD(ocd_group), enc);
	proto_tree_add_item(t, hf_ocd_cksum_types, tvb, OCD(ocd_cksum_types), enc);
	proto_tree_add_item(t, hf_ocd_max_easize, tvb, OCD(ocd_max_easize), enc);
	proto_tree_add_item(t, hf_ocd_instance, tvb, OCD(ocd_instance), enc);
	proto_tree_add_item(t, hf_ocd_maxbytes, tvb, OCD(ocd_maxbytes), enc);
	proto_tree_add_item(t, hf_ocd_maxmodrpcs, tvb, OCD(ocd_maxmodrpcs), enc);
	proto_tree_add_item(t, hf_ocd_conn_policy, tvb, OCD(ocd_conn_policy), enc);
	lnetcap_flagset_add(t, tvb, (gint)off + LNETCAP_OFF(struct lnetcap_obd_connect_data,
							    ocd_connect_flags2), enc, &fs_connect2);
	if (pkt->rpc.buf_len[i] >= LNETCAP_OFF(struct lnetcap_obd_connect_data, ocd_compr_type) + 8 &&
	    tvb_captured_length(tvb) >= off + LNETCAP_OFF(struct lnetcap_obd_connect_data, ocd_compr_type) + 8)
		proto_tree_add_item(t, hf_ocd_compr_type, tvb, OCD(ocd_compr_type), enc);
}

/* obd_uuid strings (RMF_TGTUUID/RMF_CLUUID, up to 40 bytes, NUL padded). */
static const char *add_uuid(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt,
			    guint i, int hf)
{
	guint32 off, len;
	const guint8 *s = NULL;
	if (!lnetcap_rpc_buf(pkt, i, &off, &len) || len == 0 ||
	    (guint64)off + len > tvb_captured_length(tvb))
		return NULL;
	proto_tree_add_item_ret_string(tree, hf, tvb, (gint)off, (gint)MIN(len, LNETCAP_OBD_UUID_LEN),
				       ENC_ASCII | ENC_NA, pinfo->pool, &s);
	return (const char *)s;
}

#define OS(f) (gint)off + LNETCAP_OFF(struct lnetcap_obd_statfs, f), \
	LNETCAP_LEN(struct lnetcap_obd_statfs, f)

/* obd_statfs of an OST_STATFS / MDS_STATFS reply (buffer 1). */
void lnetcap_obd_statfs(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt)
{
	guint enc = pkt->rpc.encoding;
	guint32 off, bsize;
	guint64 blocks, bavail;
	proto_tree *t;

	if (!lnetcap_rpc_buf_tree(tvb, pinfo, tree, pkt, 1, sizeof(struct lnetcap_obd_statfs),
				  ett_statfs, "obd_statfs", &t, &off))
		return;
	proto_tree_add_item(t, hf_os_type, tvb, OS(os_type), enc);
	proto_tree_add_item_ret_uint64(t, hf_os_blocks, tvb, OS(os_blocks), enc, &blocks);
	proto_tree_add_item(t, hf_os_bfree, tvb, OS(os_bfree), enc);
	proto_tree_add_item_ret_uint64(t, hf_os_bavail, tvb, OS(os_bavail), enc, &bavail);
	proto_tree_add_item(t, hf_os_files, tvb, OS(os_files), enc);
	proto_tree_add_item(t, hf_os_ffree, tvb, OS(os_ffree), enc);
	proto_tree_add_item(t, hf_os_fsid, tvb, OS(os_fsid), ENC_ASCII);
	proto_tree_add_item_ret_uint(t, hf_os_bsize, tvb, OS(os_bsize), enc, &bsize);
	proto_tree_add_item(t, hf_os_namelen, tvb, OS(os_namelen), enc);
	proto_tree_add_item(t, hf_os_maxbytes, tvb, OS(os_maxbytes), enc);
	proto_tree_add_item(t, hf_os_state, tvb, OS(os_state), enc);
	proto_tree_add_item(t, hf_os_fprecreated, tvb, OS(os_fprecreated), enc);
	proto_tree_add_item(t, hf_os_granted, tvb, OS(os_granted), enc);
	col_append_fstr(pinfo->cinfo, COL_INFO, " %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
			" KiB free", bavail * bsize / 1024, blocks * bsize / 1024);
}

static void dissect_obd_rpc(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt)
{
	guint32 off, len;
	const char *target;

	switch (pkt->rpc.opc) {
	case LNETCAP_OPC_OST_CONNECT:
	case LNETCAP_OPC_MDS_CONNECT:
	case LNETCAP_OPC_MGS_CONNECT:
		if (pkt->rpc.pb_type != LNETCAP_PTL_RPC_MSG_REQUEST) {
			dissect_ocd(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, CONNECT_DATA));
			break;
		}
		/* RQF_*_CONNECT (include/lnetcap/rpc_formats.h): the target and
		 * client UUIDs, the connection handle, the connect data and the
		 * SELinux policy. */
		target = add_uuid(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, TGTUUID), hf_target_uuid);
		add_uuid(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, CLUUID), hf_client_uuid);
		if (lnetcap_rpc_buf(pkt, LNETCAP_BUF(pkt, CONN), &off, &len) && len >= sizeof(guint64) &&
		    off + sizeof(guint64) <= tvb_captured_length(tvb))
			proto_tree_add_item(tree, hf_conn_handle, tvb, (gint)off, sizeof(guint64), pkt->rpc.encoding);
		dissect_ocd(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, CONNECT_DATA));
		add_uuid(tvb, pinfo, tree, pkt, LNETCAP_BUF(pkt, SELINUX_POL), hf_selinux_pol);
		if (target && target[0])
			col_append_fstr(pinfo->cinfo, COL_INFO, " to %s", target);
		break;
	case LNETCAP_OPC_OBD_PING:
		break;
	}
}

static int dissect_obd(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	lnetcap_pkt_t *pkt = (lnetcap_pkt_t *)data;
	dissect_obd_rpc(tvb, pinfo, lnetcap_body_tree(tvb, pinfo, tree, proto_obd, ett_obd, pkt), pkt);
	return (int)tvb_captured_length(tvb);
}

void lnetcap_handoff_obd(void)
{
	static const guint32 opcodes[] = {
		LNETCAP_OPC_OST_CONNECT,
		LNETCAP_OPC_MDS_CONNECT,
		LNETCAP_OPC_MGS_CONNECT,
		LNETCAP_OPC_OBD_PING,
	};
	lnetcap_body_register(proto_obd, dissect_obd, opcodes, array_length(opcodes));
}

void lnetcap_register_obd(void)
{
	static hf_register_info hf[] = {
		{ &hf_target_uuid, { "Target UUID", "lnetcap.obd.target_uuid", FT_STRINGZPAD, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_client_uuid, { "Client UUID", "lnetcap.obd.client_uuid", FT_STRINGZPAD, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_conn_handle, { "Connection handle", "lnetcap.obd.conn_handle", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_selinux_pol, { "SELinux policy", "lnetcap.obd.selinux_pol", FT_STRINGZPAD, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_version, { "Version", "lnetcap.obd.ocd.version", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_version_str, { "Lustre version", "lnetcap.obd.ocd.lustre_version", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_grant, { "Grant", "lnetcap.obd.ocd.grant", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_index, { "Target index", "lnetcap.obd.ocd.index", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_brw_size, { "BRW size", "lnetcap.obd.ocd.brw_size", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_ibits_known, { "Inode bits known", "lnetcap.obd.ocd.ibits_known", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_grant_blkbits, { "Grant block bits", "lnetcap.obd.ocd.grant_blkbits", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_grant_inobits, { "Grant inode bits", "lnetcap.obd.ocd.grant_inobits", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_grant_tax_kb, { "Grant tax (KiB)", "lnetcap.obd.ocd.grant_tax_kb", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_grant_max_blks, { "Grant max blocks", "lnetcap.obd.ocd.grant_max_blks", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_transno, { "Transno", "lnetcap.obd.ocd.transno", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_group, { "Group", "lnetcap.obd.ocd.group", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_cksum_types, { "Checksum types", "lnetcap.obd.ocd.cksum_types", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_max_easize, { "Max EA size", "lnetcap.obd.ocd.max_easize", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_instance, { "Instance", "lnetcap.obd.ocd.instance", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_maxbytes, { "Max bytes", "lnetcap.obd.ocd.maxbytes", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_maxmodrpcs, { "Max modify RPCs", "lnetcap.obd.ocd.maxmodrpcs", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_conn_policy, { "Connection policy", "lnetcap.obd.ocd.conn_policy", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_os_type, { "Type", "lnetcap.obd.statfs.type", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_os_blocks, { "Blocks", "lnetcap.obd.statfs.blocks", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_os_bfree, { "Blocks free", "lnetcap.obd.statfs.bfree", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_os_bavail, { "Blocks available", "lnetcap.obd.statfs.bavail", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_os_files, { "Files", "lnetcap.obd.statfs.files", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_os_ffree, { "Files free", "lnetcap.obd.statfs.ffree", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_os_fsid, { "FS id", "lnetcap.obd.statfs.fsid", FT_STRINGZPAD, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_os_bsize, { "Block size", "lnetcap.obd.statfs.bsize", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_os_namelen, { "Name length", "lnetcap.obd.statfs.namelen", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_os_maxbytes, { "Max bytes", "lnetcap.obd.statfs.maxbytes", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_os_state, { "State", "lnetcap.obd.statfs.state", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_os_fprecreated, { "Precreated", "lnetcap.obd.statfs.fprecreated", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_os_granted, { "Granted", "lnetcap.obd.statfs.granted", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ocd_compr_type, { "Compression types", "lnetcap.obd.ocd.compr_type", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
	};
	static gint *ett[] = { &ett_obd, &ett_ocd, &ett_statfs };
	int proto;

	proto_obd = proto_register_protocol("Lustre OBD connect and ping (lnetcap)", "OBD", "lnetcap.obd");
	proto = proto_obd;
	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	lnetcap_flagset_register(proto, &fs_connect);
	lnetcap_flagset_register(proto, &fs_connect2);
}
