/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ws-seq-analysis.h - Wireshark's flow graph ("sequence analysis") API.
 *
 * Releases that ship epan/sequence_analysis.h get it from there.  Debian
 * 12's libwireshark-dev (4.0) and Debian 13's (4.4) leave that header out
 * although libwireshark exports its functions, so for 4.0 and 4.4 the
 * structures the plugin fills are declared here, as Wireshark 4.0.17's
 * libwireshark.so.16 and 4.4's libwireshark.so.18 lay them out.  Those
 * layouts were read from the libraries themselves (objdump of
 * sequence_analysis_info_new, _create_sai_with_addresses, _use_color_filter
 * and _use_col_info_as_label_comment):
 *  - 4.0: an item of 0x90 bytes with frame_label at 0x48, time_str at 0x50,
 *    comment at 0x58, the colours at 0x64/0x68 and a gboolean
 *    has_color_filter at 0x6c; an info of 0x3e8 bytes with items at 0x10;
 *  - 4.4: the same item up to the colours, then C99 bools (a byte written
 *    at 0x6c), 0x88 bytes in all; an info of 0x410 bytes (a bool any_addr,
 *    an occurrence byte per node after the nodes), items at 0x10.
 * The asserts below pin those numbers.  Any other release without the
 * header gets no flow graph (LNETCAP_HAVE_SEQ_ANALYSIS stays undefined).
 */
#ifndef LNETCAP_WS_SEQ_ANALYSIS_H
#define LNETCAP_WS_SEQ_ANALYSIS_H

#include <stddef.h>

#include <epan/packet.h>
#include <epan/tap.h>

#include "ws-version.h"

#if defined(__has_include)
#if __has_include(<epan/sequence_analysis.h>)
#include <epan/sequence_analysis.h>
#define LNETCAP_HAVE_SEQ_ANALYSIS 1
#endif
#endif

#if !defined(LNETCAP_HAVE_SEQ_ANALYSIS) && WIRESHARK_VERSION_MAJOR == 4 && \
	WIRESHARK_VERSION_MINOR == 4
#define LNETCAP_HAVE_SEQ_ANALYSIS 1
#include <stdbool.h>
#define MAX_NUM_NODES 40

typedef struct _seq_analysis_item {
	uint32_t frame_number;
	address src_addr;
	uint16_t port_src;
	address dst_addr;
	uint16_t port_dst;
	char *frame_label;
	char *time_str;
	char *comment;
	uint16_t conv_num;
	unsigned fg_color;
	unsigned bg_color;
	bool has_color_filter;
	bool display;
	unsigned src_node;
	unsigned dst_node;
	uint16_t line_style;
	int info_type;
	void *info_ptr;
} seq_analysis_item_t;

typedef struct _seq_analysis_info {
	const char *name;
	bool any_addr;
	int nconv;
	GQueue *items;
	GHashTable *ht;
	address nodes[MAX_NUM_NODES];
	uint8_t occurrence[MAX_NUM_NODES];
	uint32_t num_nodes;
} seq_analysis_info_t;

WS_DLL_PUBLIC void register_seq_analysis(const char *name, const char *ui_name,
					 const int proto_id, const char *tap_listener,
					 unsigned tap_flags, tap_packet_cb tap_func);
WS_DLL_PUBLIC void sequence_analysis_use_color_filter(packet_info *pinfo,
						      seq_analysis_item_t *sai);

#if GLIB_SIZEOF_VOID_P == 8
G_STATIC_ASSERT(sizeof(seq_analysis_item_t) == 0x88);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, src_addr) == 0x8);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, dst_addr) == 0x28);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, frame_label) == 0x48);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, time_str) == 0x50);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, comment) == 0x58);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, fg_color) == 0x64);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, bg_color) == 0x68);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, has_color_filter) == 0x6c);
G_STATIC_ASSERT(sizeof(seq_analysis_info_t) == 0x410);
G_STATIC_ASSERT(offsetof(seq_analysis_info_t, items) == 0x10);
G_STATIC_ASSERT(offsetof(seq_analysis_info_t, num_nodes) == 0x408);
#endif
#endif

#if !defined(LNETCAP_HAVE_SEQ_ANALYSIS) && WIRESHARK_VERSION_MAJOR == 4 && \
	WIRESHARK_VERSION_MINOR == 0
#define LNETCAP_HAVE_SEQ_ANALYSIS 1
#define MAX_NUM_NODES 40

typedef struct _seq_analysis_item {
	guint32 frame_number;
	address src_addr;
	guint16 port_src;
	address dst_addr;
	guint16 port_dst;
	gchar *frame_label;      /* above the arrow */
	gchar *time_str;
	gchar *comment;          /* right of the graph */
	guint16 conv_num;
	unsigned fg_color;
	unsigned bg_color;
	gboolean has_color_filter;
	gboolean display;
	guint src_node;
	guint dst_node;
	guint16 line_style;
	int info_type;           /* ga_info_type: GA_INFO_TYPE_NONE = 0 */
	gpointer info_ptr;
} seq_analysis_item_t;

typedef struct _seq_analysis_info {
	const char *name;
	gboolean any_addr;
	int nconv;
	GQueue *items;
	GHashTable *ht;
	address nodes[MAX_NUM_NODES];
	guint32 num_nodes;
} seq_analysis_info_t;

WS_DLL_PUBLIC void register_seq_analysis(const char *name, const char *ui_name,
					 const int proto_id, const char *tap_listener,
					 guint tap_flags, tap_packet_cb tap_func);
WS_DLL_PUBLIC void sequence_analysis_use_color_filter(packet_info *pinfo,
						      seq_analysis_item_t *sai);

#if GLIB_SIZEOF_VOID_P == 8
G_STATIC_ASSERT(sizeof(seq_analysis_item_t) == 0x90);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, src_addr) == 0x8);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, dst_addr) == 0x28);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, frame_label) == 0x48);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, time_str) == 0x50);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, comment) == 0x58);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, fg_color) == 0x64);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, bg_color) == 0x68);
G_STATIC_ASSERT(offsetof(seq_analysis_item_t, has_color_filter) == 0x6c);
G_STATIC_ASSERT(sizeof(seq_analysis_info_t) == 0x3e8);
G_STATIC_ASSERT(offsetof(seq_analysis_info_t, any_addr) == 0x8);
G_STATIC_ASSERT(offsetof(seq_analysis_info_t, items) == 0x10);
G_STATIC_ASSERT(offsetof(seq_analysis_info_t, num_nodes) == 0x3e0);
#endif
#endif

#endif /* LNETCAP_WS_SEQ_ANALYSIS_H */
