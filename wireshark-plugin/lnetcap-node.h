/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-node.h - which node captured a record, from the provenance of
 * the pcapng interface (IDB) it was written on.
 *
 * lnetcap writes one interface per LNet NI, named by the NI's NID, and
 * notes the capturing host at the end of the description ("LNet NI
 * 10.77.0.1@tcp, lnetcap fentry, on client1"; lnetcapd's subscriptions and
 * flight recorder write "on NODE" too).  mergecap keeps every file's IDBs as
 * interfaces of their own, one file after the other.  So, walking the
 * interfaces in order, an interface belongs to the latest node with the
 * same host, unless that node already has an interface of the same name:
 * then it starts a new node (a second file from a host of the same name,
 * as QEMU guests without a host name all say "on (none)", but each has its
 * own 0@lo).  A file with no host note (a converted tcpdump capture, an
 * anonymized one) is one node until an interface name repeats.
 */
#ifndef LNETCAP_NODE_H
#define LNETCAP_NODE_H

#include <epan/packet.h>

typedef struct lnetcap_node lnetcap_node_t;

/* The node of the interface this record was written on; NULL only when
 * the interface table is full (lnetcap.max_table_entries). */
const lnetcap_node_t *lnetcap_node_of(packet_info *pinfo);
/* 1-based, in the order of the nodes' first interfaces in the file. */
guint lnetcap_node_index(const lnetcap_node_t *node);
/* What to call the node: its host name when that names one node only, else
 * its first NID (not 0@lo), else "node N". */
const char *lnetcap_node_label(const lnetcap_node_t *node, wmem_allocator_t *scope);
/* The node one of whose interfaces is named nid, or NULL (0@lo never
 * names a node: every node has one). */
const lnetcap_node_t *lnetcap_node_by_nid(const char *nid);

void lnetcap_register_node(void);

#endif /* LNETCAP_NODE_H */
