/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-names.c - names for NIDs in the plugin: the hosts-style file
 * lnetcap reads (docs/REPORTS.md "Names for NIDs", lnetcap(8) FILES), from
 * the preference lnetcap.nid_names_file or else "lnet_nids" in Wireshark's
 * personal configuration directory.  Shown as NAME@NET in the fields
 * lnetcap.lnet.src_name/dest_name when Wireshark resolves network
 * addresses (View > Name Resolution, tshark -N n), as it does for IP hosts.
 *
 * A line is "KEY NAME" ('#' starts a comment); KEY is a NID as lnetcap
 * prints it (10.0.1.1@tcp), ADDRESS@LND* (16@kfi*: that address on every
 * net of the LND) or ADDRESS (on every net).  The most specific key wins.
 * The file is read again for each capture file.
 *
 * An IP NID (tcp, o2ib, gip, efa) the file does not name gets the name
 * Wireshark's own resolver gives its address (get_hostname/get_hostname6:
 * the "hosts" files of the personal and global configuration directories,
 * and DNS when external network name resolution is on, tshark -N nN), as
 * it would for the same address in an IP header; the file wins.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <epan/addr_resolv.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <wsutil/filesystem.h>

#include <wsutil/inet_addr.h>

#include "lnetcap-names.h"
#include "lnetcap/lnet.h"

#define NAMES_MAX_ENTRIES 100000

static const char *pref_names_file = "";
static GHashTable *exact_names;   /* "10.0.1.1@tcp" -> name */
static GHashTable *lnd_names;     /* "16@kfi" (address@LND) -> name */
static GHashTable *addr_names;    /* "192.168.2.1" -> name */

static void names_clear(void)
{
	if (exact_names) {
		g_hash_table_destroy(exact_names);
		g_hash_table_destroy(lnd_names);
		g_hash_table_destroy(addr_names);
	}
	exact_names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	lnd_names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	addr_names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

/* "kfi1" -> "kfi": the LND part of a net name. */
static void strip_net_number(char *net)
{
	size_t n = strlen(net);

	while (n > 0 && isdigit((unsigned char)net[n - 1]))
		net[--n] = '\0';
}

static void names_load(void)
{
	char *path, line[512];
	FILE *f;
	guint entries = 0;

	names_clear();
	path = pref_names_file && *pref_names_file ? g_strdup(pref_names_file)
						   : get_persconffile_path("lnet_nids", FALSE);
	f = path ? fopen(path, "r") : NULL;
	g_free(path);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && entries < NAMES_MAX_ENTRIES) {
		char key[256], name[256], *hash = strchr(line, '#'), *at;
		size_t klen;

		if (hash)
			*hash = '\0';
		if (sscanf(line, "%255s %255s", key, name) != 2)
			continue;
		klen = strlen(key);
		at = strrchr(key, '@');
		if (!at) {
			g_hash_table_insert(addr_names, g_strdup(key), g_strdup(name));
		} else if (key[klen - 1] == '*') {
			key[klen - 1] = '\0';
			strip_net_number(at + 1);
			g_hash_table_insert(lnd_names, g_strdup(key), g_strdup(name));
		} else {
			g_hash_table_insert(exact_names, g_strdup(key), g_strdup(name));
		}
		entries++;
	}
	fclose(f);
}

/* TRUE when lnd ("tcp", "o2ib": a net name without its number) addresses
 * its NIDs by IP, from the one LND table. */
static gboolean ip_lnd(const char *lnd)
{
#define X(id, value, str, style) \
	if ((style) == LNETCAP_ADDR_STYLE_IP && strcmp(lnd, str) == 0) \
		return TRUE;
	LNETCAP_LND_LIST(X)
#undef X
	return FALSE;
}

/* The host name Wireshark's resolver knows for addr (an IP NID's address
 * text), or NULL: get_hostname* return the address itself when unnamed. */
static const char *resolver_name(const char *addr, const char *net, wmem_allocator_t *scope)
{
	char *lnd = wmem_strdup(scope, net);
	const char *name;
	ws_in4_addr a4;
	ws_in6_addr a6;

	strip_net_number(lnd);
	if (!ip_lnd(lnd))
		return NULL;
	if (ws_inet_pton4(addr, &a4))
		name = get_hostname(a4);
	else if (ws_inet_pton6(addr, &a6))
		name = get_hostname6(&a6);
	else
		return NULL;
	return name && strcmp(name, addr) != 0 ? name : NULL;
}

const char *lnetcap_nid_name(const char *nid_str, wmem_allocator_t *scope)
{
	const char *at, *name;
	char *addr, *lnd_key;

	if (!gbl_resolv_flags.network_name || !exact_names || !nid_str)
		return NULL;
	at = strrchr(nid_str, '@');
	if (!at)
		return NULL;
	name = (const char *)g_hash_table_lookup(exact_names, nid_str);
	addr = wmem_strndup(scope, nid_str, (gsize)(at - nid_str));
	if (!name) {
		lnd_key = wmem_strdup(scope, nid_str);
		strip_net_number(lnd_key);
		name = (const char *)g_hash_table_lookup(lnd_names, lnd_key);
	}
	if (!name)
		name = (const char *)g_hash_table_lookup(addr_names, addr);
	if (!name)
		name = resolver_name(addr, at + 1, scope);
	return name ? wmem_strdup_printf(scope, "%s%s", name, at) : NULL;
}

void lnetcap_names_register_prefs(module_t *mod)
{
	prefs_register_filename_preference(mod, "nid_names_file", "NID names file",
		"Hosts-style file of names for NIDs (\"10.0.1.1@tcp client1\", \"16@kfi* nid016\", "
		"\"192.168.2.1 oss1\"), shown when network addresses are resolved. Empty: "
		"lnet_nids in the personal configuration directory.", &pref_names_file, FALSE);
	register_init_routine(names_load);
}
