/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-node.c - the capturing node of a record, from its interface's
 * name and description (see lnetcap-node.h for the rule).  The interfaces
 * are walked once, in order, as the first frames on them are dissected;
 * the node of interface i depends on interfaces 0..i only, so it never
 * changes once decided.  Labels are worked out when asked, from what is
 * known then.
 */
#include <string.h>

#include <epan/epan.h>
#include <epan/wmem_scopes.h>
#include <wiretap/wtap.h>

#include "lnetcap-node.h"
#include "lnetcap-tables.h"
#include "ws-version.h"

struct lnetcap_node {
	guint index;          /* 1-based */
	const char *host;     /* from "on HOST"; "" when the descriptions name none */
	const char *nid;      /* first interface named by a NID other than 0@lo */
	const char *first;    /* first interface's name */
	wmem_map_t *names;    /* names of its interfaces */
};

/* Interfaces probed past the one a frame is on (IDBs read but with no
 * frame yet), so a label can name an NI whose frames come later. */
#define NODE_PROBE_AHEAD 64

static wmem_map_t *iface_node;     /* (section << 32 | interface id) + 1 -> node */
static wmem_map_t *placed;         /* section -> its next interface to place, + 1 */
static wmem_map_t *nodes;          /* index -> node */
static wmem_map_t *latest_by_host; /* "section/host" -> its latest node */
static wmem_map_t *host_nodes;     /* host -> how many nodes say it */
static wmem_map_t *node_by_nid;    /* interface name (NID) -> node */

static const char *LOOPBACK_NID = "0@lo";

/* HOST of the last ", on HOST" (or a leading "on HOST"), up to a comma. */
static const char *host_of(const char *desc)
{
	const char *p = NULL, *q, *end;

	if (!desc)
		return "";
	if (strncmp(desc, "on ", 3) == 0)
		p = desc + 3;
	for (q = strstr(desc, ", on "); q; q = strstr(q + 1, ", on "))
		p = q + 5;
	if (!p)
		return "";
	end = strchr(p, ',');
	return wmem_strndup(wmem_file_scope(), p, end ? (gsize)(end - p) : strlen(p));
}

/* A host name that tells nodes apart: an unnamed guest's uname is "(none)". */
static gboolean real_host(const char *host)
{
	return host[0] != '\0' && strcmp(host, "(none)") != 0;
}

static lnetcap_node_t *new_node(const char *host)
{
	lnetcap_node_t *n = wmem_new0(wmem_file_scope(), lnetcap_node_t);
	guint count = GPOINTER_TO_UINT(wmem_map_lookup(host_nodes, host));

	n->index = wmem_map_size(nodes) + 1;
	n->host = host;
	n->names = wmem_map_new(wmem_file_scope(), g_str_hash, g_str_equal);
	wmem_map_insert(nodes, GUINT_TO_POINTER(n->index), n);
	wmem_map_insert(host_nodes, (gpointer)host, GUINT_TO_POINTER(count + 1));
	return n;
}

static guint64 *iface_key(guint section, guint32 i)
{
	guint64 *k = wmem_new(wmem_file_scope(), guint64);
	*k = ((guint64)section << 32 | i) + 1;
	return k;
}

/* Places interface i of a section; FALSE when the table is full.  A new
 * section (a file appended to another, cat a.pcapng b.pcapng) starts new
 * nodes: its interfaces join no node of another section. */
static gboolean place_interface(packet_info *pinfo, guint section, guint32 i)
{
	const char *name = LNETCAP_IFACE_NAME(pinfo->epan, i, section);
	const char *desc = LNETCAP_IFACE_DESCR(pinfo->epan, i, section);
	const char *host, *host_key;
	lnetcap_node_t *n;

	if (lnetcap_table_is_full(iface_node))
		return FALSE;
	/* 4.0 names an interface it does not have "unknown", with no
	 * description; lnetcap describes every interface it writes.  One whose
	 * name is not known keeps the node of the ones before it. */
	name = name ? wmem_strdup(wmem_file_scope(), name)
		    : wmem_strdup_printf(wmem_file_scope(), "interface %u", i);
	host = host_of(desc);
	host_key = wmem_strdup_printf(wmem_file_scope(), "%u/%s", section, host);
	n = (lnetcap_node_t *)wmem_map_lookup(latest_by_host, host_key);
	if (!n || wmem_map_contains(n->names, name)) {
		n = new_node(host);
		wmem_map_insert(latest_by_host, (gpointer)host_key, n);
	}
	wmem_map_insert(n->names, (gpointer)name, n);
	if (!n->first)
		n->first = name;
	if (strchr(name, '@') && strcmp(name, LOOPBACK_NID) != 0) {
		if (!n->nid)
			n->nid = name;
		if (!wmem_map_contains(node_by_nid, name))
			wmem_map_insert(node_by_nid, (gpointer)name, n);
	}
	wmem_map_insert(iface_node, iface_key(section, i), n);
	wmem_map_insert(placed, GUINT_TO_POINTER(section + 1), GUINT_TO_POINTER(i + 2));
	return TRUE;
}

static guint32 interface_of(const packet_info *pinfo)
{
	if (pinfo->rec && pinfo->rec->rec_type == REC_TYPE_PACKET &&
	    (pinfo->rec->presence_flags & WTAP_HAS_INTERFACE_ID))
		return pinfo->rec->rec_header.packet_header.interface_id;
	return 0;
}

const lnetcap_node_t *lnetcap_node_of(packet_info *pinfo)
{
	guint32 iface = interface_of(pinfo);
	guint section = pinfo->rec ? pinfo->rec->section_number : 0;
	guint64 key = ((guint64)section << 32 | iface) + 1;
	lnetcap_node_t *n = (lnetcap_node_t *)wmem_map_lookup(iface_node, &key);
	guint32 i;

	if (n)
		return n;
	/* Interfaces in order: their nodes depend on those before them. */
	i = GPOINTER_TO_UINT(wmem_map_lookup(placed, GUINT_TO_POINTER(section + 1)));
	i = i ? i - 1 : 0;
	for (; i <= iface; i++)
		if (!place_interface(pinfo, section, i))
			break;
	for (; i < iface + NODE_PROBE_AHEAD &&
	       LNETCAP_IFACE_DESCR(pinfo->epan, i, section); i++)
		if (!place_interface(pinfo, section, i))
			break;
	return (const lnetcap_node_t *)wmem_map_lookup(iface_node, &key);
}

guint lnetcap_node_index(const lnetcap_node_t *node)
{
	return node ? node->index : 0;
}

const char *lnetcap_node_label(const lnetcap_node_t *node, wmem_allocator_t *scope)
{
	gboolean named;

	if (!node)
		return "unknown node";
	named = real_host(node->host);
	if (named && GPOINTER_TO_UINT(wmem_map_lookup(host_nodes, node->host)) == 1)
		return node->host;
	if (node->nid)
		return named ? wmem_strdup_printf(scope, "%s (%s)", node->host, node->nid)
			     : node->nid;
	if (named)
		return wmem_strdup_printf(scope, "%s (node %u)", node->host, node->index);
	return wmem_strdup_printf(scope, "node %u", node->index);
}

const lnetcap_node_t *lnetcap_node_by_nid(const char *nid)
{
	return nid ? (const lnetcap_node_t *)wmem_map_lookup(node_by_nid, nid) : NULL;
}

void lnetcap_register_node(void)
{
	iface_node = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
					    g_int64_hash, g_int64_equal);
	placed = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
					g_direct_hash, g_direct_equal);
	nodes = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
				       g_direct_hash, g_direct_equal);
	latest_by_host = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
						g_str_hash, g_str_equal);
	host_nodes = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
					    g_str_hash, g_str_equal);
	node_by_nid = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
					     g_str_hash, g_str_equal);
}
