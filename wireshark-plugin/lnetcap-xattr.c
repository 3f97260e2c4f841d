/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-xattr.c - extended attributes and POSIX ACLs in MDT replies
 * (fields lnetcap.mdt.xattr.* and lnetcap.mdt.acl.*):
 *  - MDS_GETXATTR: the request names the xattr (getxattr) or asks for the
 *    list (listxattr); the reply's RMF_EADATA holds the value or the
 *    NUL-separated names.  Which of the two only the request says, so it is
 *    remembered per transaction;
 *  - the xattr cache refill of LDLM_ENQUEUE with IT_GETXATTR: names, values
 *    and their lengths in three buffers (mdt_getxattr_all(), mdt_xattr.c);
 *  - RMF_ACL of getattr/open replies: a posix_acl_xattr (little-endian, as
 *    the xattr is stored), also decoded where an xattr value is an ACL.
 * Slots and structures: include/lnetcap/bodies.h (Lustre 2.15-2.17).
 */
#include <epan/packet.h>
#include <epan/expert.h>

#include "packet-lnetcap.h"
#include "lnetcap-vals.h"
#include "lnetcap/bodies.h"

static int hf_xattr = -1;
static int hf_xattr_name = -1;
static int hf_xattr_value = -1;
static int hf_xattr_value_len = -1;
static int hf_xattr_count = -1;
static int hf_acl = -1;
static int hf_acl_version = -1;
static int hf_acl_entry = -1;
static int hf_acl_tag = -1;
static int hf_acl_perm = -1;
static int hf_acl_perm_r = -1;
static int hf_acl_perm_w = -1;
static int hf_acl_perm_x = -1;
static int hf_acl_id = -1;
static gint ett_xattr = -1;
static gint ett_acl = -1;
static gint ett_acl_entry = -1;
static gint ett_acl_perm = -1;
static expert_field ei_acl_bad = EI_INIT;
static expert_field ei_acl_zeroed = EI_INIT;
static expert_field ei_xattr_bad = EI_INIT;

/* The Info column lists at most this many xattr names. */
#define INFO_NAMES 3

static const value_string acl_id_vals[] = { { LNETCAP_ACL_UNDEFINED_ID, "undefined" }, { 0, NULL } };

/* What an MDS_GETXATTR request asked for, kept for its reply. */
typedef struct {
	guint64 valid;      /* OBD_MD_FLXATTR or OBD_MD_FLXATTRLS */
	const char *name;   /* getxattr: the xattr's name */
} getxattr_ask_t;

/* lnetcap_trans_t * -> getxattr_ask_t *; at most one entry per indexed
 * transaction, so bounded by lnetcap.max_table_entries like the trans table. */
static wmem_map_t *asks;

/* The mdt_body of buffer i: mbo_valid and a __u32 at field offset f32; FALSE
 * when the body is absent, short or not captured. */
static gboolean body_fields(tvbuff_t *tvb, const lnetcap_pkt_t *pkt, guint i, guint f32,
			    guint64 *valid, guint32 *v32)
{
	guint32 off, len;
	if (!lnetcap_rpc_buf(pkt, i, &off, &len) || len < sizeof(struct lnetcap_mdt_body) ||
	    (guint64)off + sizeof(struct lnetcap_mdt_body) > tvb_captured_length(tvb))
		return FALSE;
	*valid = tvb_get_guint64(tvb, off + LNETCAP_OFF(struct lnetcap_mdt_body, mbo_valid),
				 pkt->rpc.encoding);
	*v32 = tvb_get_guint32(tvb, off + f32, pkt->rpc.encoding);
	return TRUE;
}

/* TRUE when the captured part of len bytes at off is all zero. */
static gboolean all_zero(tvbuff_t *tvb, guint32 off, guint32 len)
{
	guint cap = tvb_captured_length(tvb);
	guint32 end = (guint64)off + len > cap ? cap : off + len;
	for (guint32 p = off; p < end; p++)
		if (tvb_get_guint8(tvb, p))
			return FALSE;
	return TRUE;
}

static void add_perm_text(proto_item *it, guint32 perm)
{
	proto_item_append_text(it, " (%c%c%c)", perm & 4 ? 'r' : '-', perm & 2 ? 'w' : '-',
			       perm & 1 ? 'x' : '-');
}

void lnetcap_posix_acl(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint32 off,
		       guint32 len, const char *what)
{
	static int *const perm_bits[] = { &hf_acl_perm_r, &hf_acl_perm_w, &hf_acl_perm_x, NULL };
	const guint32 hdr = sizeof(struct lnetcap_posix_acl_xattr_header);
	const guint32 esz = sizeof(struct lnetcap_posix_acl_xattr_entry);
	guint cap = tvb_captured_length(tvb);
	guint32 version, n;
	proto_item *ti;
	proto_tree *t;

	if (len == 0)
		return;
	ti = proto_tree_add_item(tree, hf_acl, tvb, lnetcap_clamp(tvb, off),
				 (gint)MIN(len, cap - MIN(off, cap)), ENC_NA);
	proto_item_append_text(ti, " (%s)", what);
	t = proto_item_add_subtree(ti, ett_acl);
	if (len < hdr || (len - hdr) % esz) {
		proto_tree_add_expert_format(t, pinfo, &ei_acl_bad, tvb, lnetcap_clamp(tvb, off), 0,
			"%u bytes are not a posix_acl_xattr header and 8-byte entries", len);
		return;
	}
	if ((guint64)off + hdr > cap) {
		proto_tree_add_expert_format(t, pinfo, &lnetcap_ei_truncated, tvb,
			lnetcap_clamp(tvb, off), 0, "ACL (%s) was not captured: snap length too small",
			what);
		return;
	}
	/* Little-endian whatever the message's byte order: the xattr's own format. */
	proto_tree_add_item_ret_uint(t, hf_acl_version, tvb,
		LNETCAP_FIELD(off, lnetcap_posix_acl_xattr_header, a_version), ENC_LITTLE_ENDIAN, &version);
	if (version == 0 && all_zero(tvb, off, len)) {
		/* lnetcap --anon-key zeroes binary buffers, ACLs (and their ids) too. */
		proto_tree_add_expert(t, pinfo, &ei_acl_zeroed, tvb, (gint)off, 4);
		return;
	}
	if (version != LNETCAP_POSIX_ACL_XATTR_VERSION) {
		proto_tree_add_expert_format(t, pinfo, &ei_acl_bad, tvb, (gint)off, 4,
			"posix_acl_xattr version %u, expected %u", version,
			LNETCAP_POSIX_ACL_XATTR_VERSION);
		return;
	}
	n = (len - hdr) / esz;
	proto_item_append_text(ti, ": %u entr%s", n, n == 1 ? "y" : "ies");
	for (guint32 k = 0; k < n; k++) {
		guint32 eo = off + hdr + k * esz, tag, perm, id;
		proto_item *ei;
		proto_tree *et;
		if ((guint64)eo + esz > cap) {
			proto_tree_add_expert_format(t, pinfo, &lnetcap_ei_truncated, tvb,
				lnetcap_clamp(tvb, eo), 0, "ACL entries %u-%u cut by the snap length",
				k + 1, n);
			break;
		}
		tag = tvb_get_letohs(tvb, LNETCAP_AT(eo, lnetcap_posix_acl_xattr_entry, e_tag));
		perm = tvb_get_letohs(tvb, LNETCAP_AT(eo, lnetcap_posix_acl_xattr_entry, e_perm));
		id = tvb_get_letohl(tvb, LNETCAP_AT(eo, lnetcap_posix_acl_xattr_entry, e_id));
		ei = proto_tree_add_item(t, hf_acl_entry, tvb, (gint)eo, (gint)esz, ENC_NA);
		proto_item_append_text(ei, ": %s", val_to_str(tag, lnetcap_acl_tag_vals, "tag 0x%x"));
		if (tag == LNETCAP_ACL_USER || tag == LNETCAP_ACL_GROUP) /* the others have no id */
			proto_item_append_text(ei, " %u", id);
		add_perm_text(ei, perm);
		et = proto_item_add_subtree(ei, ett_acl_entry);
		proto_tree_add_item(et, hf_acl_tag, tvb, LNETCAP_FIELD(eo, lnetcap_posix_acl_xattr_entry, e_tag), ENC_LITTLE_ENDIAN);
		add_perm_text(proto_tree_add_bitmask(et, tvb, (gint)LNETCAP_AT(eo, lnetcap_posix_acl_xattr_entry, e_perm), hf_acl_perm, ett_acl_perm,
						     perm_bits, ENC_LITTLE_ENDIAN), perm);
		proto_tree_add_item(et, hf_acl_id, tvb, LNETCAP_FIELD(eo, lnetcap_posix_acl_xattr_entry, e_id), ENC_LITTLE_ENDIAN);
	}
}

void lnetcap_mdt_acl(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const lnetcap_pkt_t *pkt,
		     guint body, guint i)
{
	guint64 valid;
	guint32 aclsize, off, len;
	if (!body_fields(tvb, pkt, body, LNETCAP_OFF(struct lnetcap_mdt_body, mbo_aclsize), &valid,
			 &aclsize) || !(valid & LNETCAP_OBD_MD_FLACL))
		return;
	if (!lnetcap_rpc_buf(pkt, i, &off, &len) || len == 0 || aclsize == 0)
		return;
	/* mdt_shrink_reply() cuts RMF_ACL to mbo_aclsize. */
	lnetcap_posix_acl(tvb, pinfo, tree, off, MIN(len, aclsize), "RMF_ACL");
}

static gboolean is_acl_name(const char *name)
{
	return strcmp(name, LNETCAP_XATTR_NAME_ACL_ACCESS) == 0 ||
	       strcmp(name, LNETCAP_XATTR_NAME_ACL_DEFAULT) == 0;
}

/* One xattr (name, and the value at voff, vlen bytes when have_value);
 * returns its subtree. */
static proto_tree *add_xattr(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint32 noff,
			     guint32 nlen, const char *name, gboolean name_generated,
			     gboolean have_value, guint32 voff, guint32 vlen)
{
	guint cap = tvb_captured_length(tvb);
	proto_item *ti, *it;
	proto_tree *t;
	ti = proto_tree_add_none_format(tree, hf_xattr, tvb, (gint)noff, (gint)nlen, "Xattr: %s",
					name);
	t = proto_item_add_subtree(ti, ett_xattr);
	it = proto_tree_add_string(t, hf_xattr_name, tvb, (gint)noff, (gint)nlen, name);
	if (name_generated)
		proto_item_set_generated(it);
	if (!have_value)
		return t;
	proto_item_append_text(ti, " (%u bytes)", vlen);
	proto_tree_add_uint(t, hf_xattr_value_len, tvb, lnetcap_clamp(tvb, voff), 0, vlen);
	if (vlen == 0)
		return t;
	if ((guint64)voff + vlen > cap) {
		/* The captured prefix is real data; say what is missing. */
		guint32 got = voff < cap ? cap - voff : 0;
		if (got)
			proto_item_append_text(proto_tree_add_item(t, hf_xattr_value, tvb, (gint)voff,
				(gint)got, ENC_NA), " [%u of %u bytes captured]", got, vlen);
		proto_tree_add_expert_format(t, pinfo, &lnetcap_ei_truncated, tvb,
			lnetcap_clamp(tvb, voff), 0, "Value of %s cut by the snap length", name);
		return t;
	}
	proto_tree_add_item(t, hf_xattr_value, tvb, (gint)voff, (gint)vlen, ENC_NA);
	if (is_acl_name(name))
		lnetcap_posix_acl(tvb, pinfo, t, voff, vlen, name);
	return t;
}

/* Walks the NUL-separated names of len bytes at off; calls back per name
 * with its offset and length (without the NUL).  Returns the count. */
typedef void (*name_cb)(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint32 k,
			guint32 noff, guint32 nlen, const char *name, void *data);

static guint32 walk_names(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint32 off,
			  guint32 len, name_cb cb, void *data)
{
	guint cap = tvb_captured_length(tvb);
	guint32 k = 0, p = off, end = off + len;
	wmem_strbuf_t *info = wmem_strbuf_new(pinfo->pool, "");
	while (p < end) {
		gint nul;
		guint32 nlen;
		const char *name;
		if (p >= cap) {
			proto_tree_add_expert_format(tree, pinfo, &lnetcap_ei_truncated, tvb,
				lnetcap_clamp(tvb, p), 0, "Xattr names cut by the snap length");
			break;
		}
		nul = tvb_find_guint8(tvb, (gint)p, (gint)(MIN(end, cap) - p), 0);
		if (nul < 0) {
			if (end > cap)
				proto_tree_add_expert_format(tree, pinfo, &lnetcap_ei_truncated, tvb,
					(gint)p, 0, "Xattr names cut by the snap length");
			else
				proto_tree_add_expert_format(tree, pinfo, &ei_xattr_bad, tvb, (gint)p,
					(gint)(end - p), "Xattr name without its terminating NUL");
			break;
		}
		nlen = (guint32)nul - p;
		name = (const char *)tvb_get_string_enc(pinfo->pool, tvb, (gint)p, (gint)nlen,
							ENC_UTF_8 | ENC_NA);
		if (k < INFO_NAMES)
			wmem_strbuf_append_printf(info, "%s%s", k ? ", " : "", name);
		cb(tvb, pinfo, tree, k, p, nlen, name, data);
		k++;
		p = (guint32)nul + 1;
	}
	if (k)
		col_append_fstr(pinfo->cinfo, COL_INFO, " xattrs: %s%s", wmem_strbuf_get_str(info),
				k > INFO_NAMES ? wmem_strdup_printf(pinfo->pool, " (+%u more)",
				k - INFO_NAMES) : "");
	return k;
}

static void list_name_cb(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint32 k,
			 guint32 noff, guint32 nlen, const char *name, void *data)
{
	add_xattr(tvb, pinfo, tree, noff, nlen, name, FALSE, FALSE, 0, 0);
}

void lnetcap_getxattr_request(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			      lnetcap_pkt_t *pkt)
{
	guint64 valid;
	guint32 easize;
	const char *name = NULL;
	getxattr_ask_t *ask;
	if (!body_fields(tvb, pkt, 1, LNETCAP_OFF(struct lnetcap_mdt_body, mbo_eadatasize), &valid,
			 &easize))
		return;
	valid &= LNETCAP_OBD_MD_FLXATTRALL;
	if (valid == LNETCAP_OBD_MD_FLXATTR) {
		name = lnetcap_mdt_name(tvb, pinfo, tree, pkt, LNETCAP_GETXATTR_REQ_NAME, hf_xattr_name);
		col_append_fstr(pinfo->cinfo, COL_INFO, " getxattr \"%s\"", name ? name : "?");
	} else if (valid == LNETCAP_OBD_MD_FLXATTRLS) {
		col_append_str(pinfo->cinfo, COL_INFO, " listxattr");
	} else {
		return;
	}
	if (easize == 0)
		col_append_str(pinfo->cinfo, COL_INFO, " (size only)");
	if (PINFO_FD_VISITED(pinfo) || !pkt->trans || wmem_map_lookup(asks, pkt->trans))
		return;
	ask = wmem_new0(wmem_file_scope(), getxattr_ask_t);
	ask->valid = valid;
	ask->name = name ? wmem_strdup(wmem_file_scope(), name) : NULL;
	wmem_map_insert(asks, pkt->trans, ask);
}

void lnetcap_getxattr_reply(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			    lnetcap_pkt_t *pkt)
{
	const getxattr_ask_t *ask = pkt->trans ? (const getxattr_ask_t *)wmem_map_lookup(asks,
		pkt->trans) : NULL;
	guint64 valid;
	guint32 easize, off, len;
	if (!body_fields(tvb, pkt, 1, LNETCAP_OFF(struct lnetcap_mdt_body, mbo_eadatasize), &valid,
			 &easize))
		return;
	if (!lnetcap_rpc_buf(pkt, LNETCAP_GETXATTR_REP_EADATA, &off, &len))
		return;
	len = MIN(len, easize);
	if (!ask) {
		/* Without its request, value and name list look alike. */
		if (len)
			col_append_fstr(pinfo->cinfo, COL_INFO, " %u bytes of xattr data", len);
		return;
	}
	if (ask->valid == LNETCAP_OBD_MD_FLXATTRLS) {
		proto_item *it;
		guint32 n = walk_names(tvb, pinfo, tree, off, len, list_name_cb, NULL);
		it = proto_tree_add_uint(tree, hf_xattr_count, tvb, lnetcap_clamp(tvb, off), 0, n);
		proto_item_set_generated(it);
		if (!n && easize)
			col_append_fstr(pinfo->cinfo, COL_INFO, " %u bytes of names", easize);
		return;
	}
	/* getxattr: the name is the request's.  A size probe (request
	 * mbo_eadatasize 0) gets the value's size and no bytes. */
	if (len == 0 && easize) {
		proto_tree *t = add_xattr(tvb, pinfo, tree, lnetcap_clamp(tvb, off), 0,
					  ask->name ? ask->name : "?", TRUE, FALSE, 0, 0);
		proto_tree_add_uint(t, hf_xattr_value_len, tvb, lnetcap_clamp(tvb, off), 0, easize);
	} else {
		add_xattr(tvb, pinfo, tree, lnetcap_clamp(tvb, off), 0, ask->name ? ask->name : "?",
			  TRUE, TRUE, off, len);
	}
	col_append_fstr(pinfo->cinfo, COL_INFO, " \"%s\" %u bytes", ask->name ? ask->name : "?",
			easize);
}

/* Intent getxattr reply: names, values, lengths. */
typedef struct {
	guint32 lens_off, lens_n;  /* the __u32 lengths (message byte order) */
	guint32 vals_off, vals_len;
	guint32 pos;               /* offset of the next value in vals */
	guint enc;
	gboolean broken;
} cache_walk_t;

static void cache_name_cb(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint32 k,
			  guint32 noff, guint32 nlen, const char *name, void *data)
{
	cache_walk_t *w = (cache_walk_t *)data;
	guint32 vlen;
	if (w->broken || k >= w->lens_n) {
		if (!w->broken)
			proto_tree_add_expert_format(tree, pinfo, &ei_xattr_bad, tvb, (gint)noff,
				(gint)nlen, "More names than the %u lengths in RMF_EAVALS_LENS", w->lens_n);
		w->broken = TRUE;
		add_xattr(tvb, pinfo, tree, noff, nlen, name, FALSE, FALSE, 0, 0);
		return;
	}
	if ((guint64)w->lens_off + 4 * (k + 1) > tvb_captured_length(tvb)) {
		proto_tree_add_expert_format(tree, pinfo, &lnetcap_ei_truncated, tvb,
			lnetcap_clamp(tvb, w->lens_off + 4 * k), 0,
			"RMF_EAVALS_LENS cut by the snap length");
		w->broken = TRUE;
		add_xattr(tvb, pinfo, tree, noff, nlen, name, FALSE, FALSE, 0, 0);
		return;
	}
	vlen = tvb_get_guint32(tvb, w->lens_off + 4 * k, w->enc);
	if ((guint64)w->pos + vlen > w->vals_len) {
		proto_tree_add_expert_format(tree, pinfo, &ei_xattr_bad, tvb, (gint)noff, (gint)nlen,
			"Value of %s (%u bytes at %u) runs past the %u bytes of RMF_EAVALS", name, vlen,
			w->pos, w->vals_len);
		w->broken = TRUE;
		add_xattr(tvb, pinfo, tree, noff, nlen, name, FALSE, FALSE, 0, 0);
		return;
	}
	add_xattr(tvb, pinfo, tree, noff, nlen, name, FALSE, TRUE, w->vals_off + w->pos, vlen);
	w->pos += vlen;
}

void lnetcap_xattr_cache(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt)
{
	guint64 valid;
	guint32 names_size, noff, nlen, vlen_total, nlens, loff, llen;
	cache_walk_t w;
	proto_item *it;
	guint32 n;
	/* mdt_getxattr_all(): mbo_eadatasize names bytes, mbo_aclsize value
	 * bytes, mbo_max_mdsize lengths. */
	if (!body_fields(tvb, pkt, 2, LNETCAP_OFF(struct lnetcap_mdt_body, mbo_eadatasize), &valid,
			 &names_size) ||
	    !body_fields(tvb, pkt, 2, LNETCAP_OFF(struct lnetcap_mdt_body, mbo_aclsize), &valid,
			 &vlen_total) ||
	    !body_fields(tvb, pkt, 2, LNETCAP_OFF(struct lnetcap_mdt_body, mbo_max_mdsize), &valid,
			 &nlens))
		return;
	if (!(valid & LNETCAP_OBD_MD_FLXATTR) ||
	    !lnetcap_rpc_buf(pkt, LNETCAP_INTENT_GETXATTR_REP_NAMES, &noff, &nlen) ||
	    !lnetcap_rpc_buf(pkt, LNETCAP_INTENT_GETXATTR_REP_VALS, &w.vals_off, &w.vals_len) ||
	    !lnetcap_rpc_buf(pkt, LNETCAP_INTENT_GETXATTR_REP_LENS, &loff, &llen))
		return;
	w.lens_off = loff;
	w.lens_n = MIN(llen / 4, nlens);
	w.vals_len = MIN(w.vals_len, vlen_total);
	w.pos = 0;
	w.enc = pkt->rpc.encoding;
	w.broken = FALSE;
	n = walk_names(tvb, pinfo, tree, noff, MIN(nlen, names_size), cache_name_cb, &w);
	it = proto_tree_add_uint(tree, hf_xattr_count, tvb, lnetcap_clamp(tvb, noff), 0, n);
	proto_item_set_generated(it);
	if (n != nlens && !w.broken)
		proto_tree_add_expert_format(tree, pinfo, &ei_xattr_bad, tvb, lnetcap_clamp(tvb, loff),
			0, "%u names but mbo_max_mdsize says %u values", n, nlens);
}

void lnetcap_register_xattr(int proto)
{
	static hf_register_info hf[] = {
		{ &hf_xattr, { "Xattr", "lnetcap.mdt.xattr", FT_NONE, BASE_NONE, NULL, 0,
		  "One extended attribute", HFILL } },
		{ &hf_xattr_name, { "Xattr name", "lnetcap.mdt.xattr.name", FT_STRINGZ, BASE_NONE, NULL, 0,
		  "Name of an extended attribute (asked for, listed or returned)", HFILL } },
		{ &hf_xattr_value, { "Xattr value", "lnetcap.mdt.xattr.value", FT_BYTES, BASE_NONE, NULL, 0,
		  NULL, HFILL } },
		{ &hf_xattr_value_len, { "Xattr value length", "lnetcap.mdt.xattr.value_len", FT_UINT32,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_xattr_count, { "Xattrs", "lnetcap.mdt.xattr.count", FT_UINT32, BASE_DEC, NULL, 0,
		  "Names in a listxattr reply or an xattr cache refill", HFILL } },
		{ &hf_acl, { "POSIX ACL", "lnetcap.mdt.acl", FT_NONE, BASE_NONE, NULL, 0,
		  "posix_acl_xattr (little-endian whatever the message byte order)", HFILL } },
		{ &hf_acl_version, { "ACL version", "lnetcap.mdt.acl.version", FT_UINT32, BASE_DEC, NULL, 0,
		  "a_version (2)", HFILL } },
		{ &hf_acl_entry, { "ACL entry", "lnetcap.mdt.acl.entry", FT_NONE, BASE_NONE, NULL, 0,
		  NULL, HFILL } },
		{ &hf_acl_tag, { "Tag", "lnetcap.mdt.acl.tag", FT_UINT16, BASE_HEX,
		  VALS(lnetcap_acl_tag_vals), 0, "e_tag", HFILL } },
		{ &hf_acl_perm, { "Permissions", "lnetcap.mdt.acl.perm", FT_UINT16, BASE_OCT, NULL, 0,
		  "e_perm", HFILL } },
		{ &hf_acl_perm_r, { "Read", "lnetcap.mdt.acl.perm.read", FT_BOOLEAN, 16, NULL, 0x4,
		  NULL, HFILL } },
		{ &hf_acl_perm_w, { "Write", "lnetcap.mdt.acl.perm.write", FT_BOOLEAN, 16, NULL, 0x2,
		  NULL, HFILL } },
		{ &hf_acl_perm_x, { "Execute", "lnetcap.mdt.acl.perm.execute", FT_BOOLEAN, 16, NULL, 0x1,
		  NULL, HFILL } },
		{ &hf_acl_id, { "Id", "lnetcap.mdt.acl.id", FT_UINT32, BASE_DEC, VALS(acl_id_vals), 0,
		  "e_id: the UID (USER) or GID (GROUP)", HFILL } },
	};
	static gint *ett[] = { &ett_xattr, &ett_acl, &ett_acl_entry, &ett_acl_perm };
	static ei_register_info ei[] = {
		{ &ei_acl_bad, { "lnetcap.mdt.acl.bad", PI_MALFORMED, PI_WARN,
		  "Not a posix_acl_xattr", EXPFILL } },
		{ &ei_acl_zeroed, { "lnetcap.mdt.acl.zeroed", PI_UNDECODED, PI_NOTE,
		  "ACL bytes all zero (lnetcap --anon-key zeroes them)", EXPFILL } },
		{ &ei_xattr_bad, { "lnetcap.mdt.xattr.bad", PI_MALFORMED, PI_WARN,
		  "Xattr names, values and lengths disagree", EXPFILL } },
	};
	expert_module_t *em;

	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto);
	expert_register_field_array(em, ei, array_length(ei));
	asks = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_direct_hash,
				      g_direct_equal);
}
