/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_plugin - the Wireshark plugin's dissection, fed the way Wireshark's
 * own fuzzshark feeds a dissector: libwireshark is initialised once with
 * the plugin registered (its sources are compiled into this program, with
 * the sanitizers and coverage), then each input is one frame of link type
 * LNETCAP_LINKTYPE (LINKTYPE_USER7, 154), so the frame dissector hands it to
 * the lnetcap dissector through "wtap_encap" exactly as when tshark reads a
 * capture.  The tree is built visible and every label is formatted and the
 * columns filled, as `tshark -V` does.
 *
 * Besides crashes and sanitizer reports, two outcomes are bugs:
 *  - a dissector bug (WIRESHARK_ABORT_ON_DISSECTOR_BUG aborts), and
 *  - an exception out of the dissector ("[Malformed Packet: LNetCap]"): the
 *    plugin checks lengths itself and reports short data as expert info.
 * Like fuzzshark, state kept across frames (request/reply and cross-node
 * tables) carries over from one input to the next within a run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wireshark.h>
#include <epan/column-info.h>
#include <epan/column.h>
#include <epan/epan.h>
#include <epan/epan_dissect.h>
#include <epan/prefs.h>
#include <epan/proto.h>
#include <epan/timestamp.h>
#include <wiretap/wtap.h>
#include <wsutil/privileges.h>

#include "lnetcap/record.h"

void plugin_register(void);
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const guint8 *data, size_t size);

static epan_t *session;
static epan_dissect_t *edt;
static column_info cinfo;
static int hf_malformed = -1;

static const nstime_t *frame_ts(struct packet_provider_data *prov, guint32 frame_num)
{
	static const nstime_t zero;

	(void)prov;
	(void)frame_num;
	return &zero;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const struct packet_provider_funcs funcs = { frame_ts, NULL, NULL, NULL };
	e_prefs *prefs;

	(void)argc;
	(void)argv;
	/* Nothing from the user's or the system's Wireshark set-up: no
	 * profile, no installed plugins (an installed lnetcap.so would register
	 * the protocol twice). */
	g_setenv("WIRESHARK_CONFIG_DIR", "/nonexistent/lnetcap-fuzz", TRUE);
	g_setenv("XDG_CONFIG_HOME", "/nonexistent/lnetcap-fuzz", TRUE);
	g_setenv("WIRESHARK_ABORT_ON_DISSECTOR_BUG", "1", TRUE);
	g_setenv("WIRESHARK_DEBUG_WMEM_OVERRIDE", "simple", TRUE); /* plain malloc: ASan sees it */
	g_setenv("G_SLICE", "always-malloc", TRUE);
	g_setenv("TZ", "UTC", TRUE);

	init_process_policies();
	timestamp_set_type(TS_RELATIVE);
	timestamp_set_precision(TS_PREC_AUTO);
	timestamp_set_seconds_type(TS_SECONDS_DEFAULT);
	wtap_init(FALSE);
	plugin_register(); /* what loading lnetcap.so does */
	if (!epan_init(NULL, NULL, FALSE)) {
		fprintf(stderr, "fuzz_plugin: epan_init failed\n");
		exit(2);
	}
	prefs = epan_load_settings();
	build_column_format_array(&cinfo, prefs->num_cols, TRUE);
	hf_malformed = proto_registrar_get_id_byname("_ws.malformed");
	if (hf_malformed < 0 || proto_get_id_by_filter_name("lnetcap") < 0) {
		fprintf(stderr, "fuzz_plugin: the lnetcap protocol is not registered\n");
		exit(2);
	}
	session = epan_new(NULL, &funcs);
	edt = epan_dissect_new(session, TRUE, TRUE);
	return 0;
}

/* Formats every label of the tree, as printing it would. */
static void fill_labels(proto_node *node, gpointer data)
{
	gchar label[ITEM_LABEL_LENGTH];
	field_info *fi = PNODE_FINFO(node);

	(void)data;
	if (fi) {
		label[0] = '\0';
		proto_item_fill_label(fi, label);
	}
	proto_tree_children_foreach(node, fill_labels, NULL);
}

int LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
	static guint32 frame_number;
	static guint32 cum_bytes;
	wtap_rec rec;
	frame_data fd;
	tvbuff_t *tvb;
	GPtrArray *malformed;
	guint32 len = size > G_MAXINT32 ? G_MAXINT32 : (guint32)size;

	wtap_rec_init(&rec);
	rec.rec_type = REC_TYPE_PACKET;
	rec.presence_flags = WTAP_HAS_TS | WTAP_HAS_CAP_LEN;
	rec.ts.secs = 1700000000 + frame_number;
	rec.rec_header.packet_header.caplen = len;
	rec.rec_header.packet_header.len = len;
	rec.rec_header.packet_header.pkt_encap = WTAP_ENCAP_USER0 + LNETCAP_LINKTYPE_USER_SLOT;

	frame_data_init(&fd, ++frame_number, &rec, 0, cum_bytes);
	cum_bytes += len;
	tvb = tvb_new_real_data(data, len, len);
	epan_dissect_prime_with_hfid(edt, hf_malformed);
	epan_dissect_run(edt, WTAP_FILE_TYPE_SUBTYPE_UNKNOWN, &rec, tvb, &fd, &cinfo);
	epan_dissect_fill_in_columns(edt, FALSE, TRUE);
	fill_labels(edt->tree, NULL);

	/* An exception shows as a visible "[Malformed Packet: LNetCap]" item;
	 * expert infos of the Malformed group (how the plugin reports short
	 * data) add only a hidden one. */
	malformed = proto_get_finfo_ptr_array(edt->tree, hf_malformed);
	for (guint i = 0; malformed && i < malformed->len; i++) {
		field_info *fi = (field_info *)g_ptr_array_index(malformed, i);

		if (!FI_GET_FLAG(fi, FI_HIDDEN)) {
			fprintf(stderr, "fuzz_plugin: frame %u ended in an exception (Malformed Packet)\n",
				frame_number);
			abort();
		}
	}

	epan_dissect_reset(edt); /* frees the tvb too */
	frame_data_destroy(&fd);
	wtap_rec_cleanup(&rec);
	return 0;
}
