/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-nid.h - LNet NIDs in C for the plugin: decode both wire forms
 * and print them exactly as Lustre's libcfs_nidstr_r() does (and as the
 * agent's capture/src/nid.cpp does), e.g. 10.0.0.1@tcp, 16@kfi, 0@lo,
 * fe80::1@tcp1, c0a80102@<99:0>, <?>.
 */
#ifndef LNETCAP_NID_H
#define LNETCAP_NID_H

#include <glib.h>

/* Large form: the fields of struct lnet_nid in host order, address bytes
 * in network order (only size + 4 of them are significant). */
typedef struct lnetcap_ws_nid {
	guint8 size;
	guint8 type;
	guint16 num;
	guint8 addr[16];
} lnetcap_nid_t;

/* Longest text: IPv6 (45) + '@' + "<255:65535>" + NUL. */
#define LNETCAP_NID_STRLEN 64

void lnetcap_nid_from_nid4(lnetcap_nid_t *nid, guint64 nid4);
/* From the 20 raw bytes of struct lnet_nid. */
void lnetcap_nid_from_raw(lnetcap_nid_t *nid, const guint8 *raw20);
/* Back to the 20-byte struct lnet_nid form (for address data). */
void lnetcap_nid_to_raw(const lnetcap_nid_t *nid, guint8 *raw20);
gboolean lnetcap_nid_is_any(const lnetcap_nid_t *nid);
/* Writes the text into buf (LNETCAP_NID_STRLEN bytes); returns its length. */
int lnetcap_nid_to_str(const lnetcap_nid_t *nid, char *buf, size_t len);
/* "tcp", "o2ib1", "<99:3>" */
int lnetcap_net_to_str(guint type, guint num, char *buf, size_t len);
/* Name of an LND in NID strings, or NULL when Lustre has none. */
const char *lnetcap_lnd_name(guint type);

#endif /* LNETCAP_NID_H */
