/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-nid.c - NID decoding and printing.  The rules mirror
 * capture/src/nid.cpp (Lustre's libcfs_nidstr_r): the net number is
 * appended only when non-zero, IP-style LNDs print dotted IPv4 or IPv6,
 * numeric LNDs print decimal, anything else prints hex words and an unknown
 * net prints as <type:num>.
 */
#include <wsutil/pint.h>

#include <stdio.h>
#include <string.h>

#include <wsutil/inet_addr.h>

#include "lnetcap-nid.h"
#include "lnetcap/lnet.h"

typedef struct {
	guint type;
	const char *name;
	int style;
} lnd_info_t;

static const lnd_info_t lnds[] = {
#define X(id, value, str, style) { value, str, style },
	LNETCAP_LND_LIST(X)
#undef X
};

static const lnd_info_t *printable_lnd(guint type)
{
	for (size_t i = 0; i < G_N_ELEMENTS(lnds); i++) {
		if (lnds[i].type == type)
			return lnds[i].style != LNETCAP_ADDR_STYLE_NONE ? &lnds[i] : NULL;
	}
	return NULL;
}

const char *lnetcap_lnd_name(guint type)
{
	const lnd_info_t *l = printable_lnd(type);
	return l ? l->name : NULL;
}

void lnetcap_nid_from_nid4(lnetcap_nid_t *nid, guint64 nid4)
{
	memset(nid, 0, sizeof(*nid));
	if (nid4 == LNETCAP_LNET_NID_ANY) {
		nid->size = LNETCAP_NID_SIZE_MAX;
		nid->type = LNETCAP_NID_TYPE_ANY;
		nid->num = 0xffff;
		memset(nid->addr, 0xff, sizeof(nid->addr));
		return;
	}
	guint32 net = LNETCAP_NID4_NET(nid4);
	guint32 addr = LNETCAP_NID4_ADDR(nid4);
	nid->type = (guint8)LNETCAP_NET_TYPE(net);
	nid->num = (guint16)LNETCAP_NET_NUM(net);
	nid->addr[0] = (guint8)(addr >> 24);
	nid->addr[1] = (guint8)(addr >> 16);
	nid->addr[2] = (guint8)(addr >> 8);
	nid->addr[3] = (guint8)addr;
}

void lnetcap_nid_from_raw(lnetcap_nid_t *nid, const guint8 *raw)
{
	memset(nid, 0, sizeof(*nid));
	if (raw[LNETCAP_OFFSETOF(struct lnetcap_nid, nid_type)] == LNETCAP_NID_TYPE_ANY) {
		nid->size = LNETCAP_NID_SIZE_MAX;
		nid->type = LNETCAP_NID_TYPE_ANY;
		nid->num = 0xffff;
		memset(nid->addr, 0xff, sizeof(nid->addr));
		return;
	}
	/* A corrupt nid_size must not make us read past the 16 address bytes. */
	guint8 size = raw[LNETCAP_OFFSETOF(struct lnetcap_nid, nid_size)];
	const guint8 *num = raw + LNETCAP_OFFSETOF(struct lnetcap_nid, nid_num);
	nid->size = size <= LNETCAP_NID_SIZE_MAX ? size : LNETCAP_NID_SIZE_MAX;
	nid->type = raw[LNETCAP_OFFSETOF(struct lnetcap_nid, nid_type)];
	nid->num = (guint16)((num[0] << 8) | num[1]); /* big-endian */
	memcpy(nid->addr, raw + LNETCAP_OFFSETOF(struct lnetcap_nid, nid_addr), (size_t)nid->size + 4);
}

void lnetcap_nid_to_raw(const lnetcap_nid_t *nid, guint8 *raw)
{
	guint8 *num = raw + LNETCAP_OFFSETOF(struct lnetcap_nid, nid_num);
	raw[LNETCAP_OFFSETOF(struct lnetcap_nid, nid_size)] = nid->size;
	raw[LNETCAP_OFFSETOF(struct lnetcap_nid, nid_type)] = nid->type;
	num[0] = (guint8)(nid->num >> 8); /* big-endian */
	num[1] = (guint8)nid->num;
	memcpy(raw + LNETCAP_OFFSETOF(struct lnetcap_nid, nid_addr), nid->addr,
	       LNETCAP_LEN(struct lnetcap_nid, nid_addr));
}

gboolean lnetcap_nid_is_any(const lnetcap_nid_t *nid)
{
	return nid->type == LNETCAP_NID_TYPE_ANY;
}

int lnetcap_net_to_str(guint type, guint num, char *buf, size_t len)
{
	const char *name = lnetcap_lnd_name(type);
	if (!name)
		return snprintf(buf, len, "<%u:%u>", type, num);
	if (num)
		return snprintf(buf, len, "%s%u", name, num);
	return snprintf(buf, len, "%s", name);
}

int lnetcap_nid_to_str(const lnetcap_nid_t *nid, char *buf, size_t len)
{
	char addr[WS_INET6_ADDRSTRLEN + 8];
	char net[24];
	const lnd_info_t *l;
	int addr_bytes = nid->size + 4;

	if (lnetcap_nid_is_any(nid))
		return snprintf(buf, len, "<?>");
	l = printable_lnd(nid->type);
	if (l && l->style == LNETCAP_ADDR_STYLE_IP && addr_bytes == 4) {
		ws_inet_ntop4(nid->addr, addr, sizeof(addr));
	} else if (l && l->style == LNETCAP_ADDR_STYLE_IP && addr_bytes == 16) {
		ws_inet_ntop6(nid->addr, addr, sizeof(addr));
	} else if (l && l->style == LNETCAP_ADDR_STYLE_NUM && addr_bytes == 4) {
		snprintf(addr, sizeof(addr), "%u", pntoh32(nid->addr));
	} else {
		/* Unknown LND or unusual size: hex words, as libcfs does. */
		size_t n = 0;
		for (int i = 0; i < addr_bytes && n < sizeof(addr); i += 4)
			n += (size_t)snprintf(addr + n, sizeof(addr) - n, "%s%x",
					      i ? ":" : "", pntoh32(nid->addr + i));
	}
	lnetcap_net_to_str(nid->type, nid->num, net, sizeof(net));
	return snprintf(buf, len, "%s@%s", addr, net);
}
