/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conv_filter_check FILE.pcapng - checks the display filters the Wireshark
 * GUI builds from the lnetcap plugin's conversation tables and conversation
 * filter, through libwireshark itself (no GUI needed):
 *  - Statistics > Conversations > LNetCap, "Apply as Filter" on a row, in
 *    each of the nine directions: get_conversation_filter();
 *  - Statistics > Endpoints > LNetCap, "Apply as Filter": get_endpoint_filter();
 *  - the packet list's Conversation Filter > LNetCap and Colorize
 *    Conversation: the build_filter_string of the plugin's entry in
 *    packet_conv_filter_list (what register_conversation_filter() added).
 * Pass 1 dissects FILE with the plugin's conversation and endpoint taps
 * (tap "lnetcap", the packet functions of its register_ct_t) and notes each
 * frame's NID pair (pinfo->src/dst) and conversation filter.  Every filter
 * string must compile (dfilter_compile); pass 2 applies them all and each
 * must select exactly the frames of its conversation, direction or
 * endpoint, as many as the table row counts, and at least one.
 *
 * Run it unprivileged: libwireshark ignores WIRESHARK_PLUGIN_DIR for root.
 * Exit 0 when every filter is right, 1 otherwise (each wrong one printed).
 */
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <wsutil/filesystem.h>
#include <wsutil/privileges.h>
#include <wsutil/buffer.h>
#include <wsutil/wslog.h>
#include <wiretap/wtap.h>
#include <epan/epan.h>
#include <epan/epan_dissect.h>
#include <epan/frame_data.h>
#include <epan/tap.h>
#include <epan/to_str.h>
#include <epan/address_types.h>
#include <epan/conversation_table.h>
#include <epan/conversation_filter.h>
#include <epan/dfilter/dfilter.h>

#include "ws-version.h" /* LNETCAP_CONV_FILTER_CALL: the callbacks' arguments */

/* What epan asks of the application about frames: their time stamps. */
struct packet_provider_data {
	GArray *ts; /* nstime_t per frame, index frame number - 1 */
};

static const nstime_t *frame_ts(struct packet_provider_data *prov, guint32 num)
{
	return num >= 1 && num <= prov->ts->len ? &g_array_index(prov->ts, nstime_t, num - 1) : NULL;
}

typedef struct {
	char *src, *dst; /* NIDs of the frame, NULL when it has none */
} frame_nids_t;

typedef enum { SEL_PAIR, SEL_SRC_DST, SEL_EITHER, SEL_SRC, SEL_DST } sel_kind_t;

/* One filter the GUI would build and what it must select. */
typedef struct {
	char *what;     /* where the GUI builds it, for messages */
	char *filter;
	sel_kind_t kind;
	char *a, *b;
	gboolean must_select; /* a row or packet of its own: selects >= 1 frame */
	dfilter_t *df;
	guint64 matched, wrong;
} check_t;

static GArray *frames;  /* frame_nids_t */
static GPtrArray *checks;
static gboolean all_ok = TRUE;

static gboolean selects(const check_t *c, const frame_nids_t *f)
{
	if (!f->src)
		return FALSE;
	switch (c->kind) {
	case SEL_PAIR:
		return (!strcmp(f->src, c->a) && !strcmp(f->dst, c->b)) ||
		       (!strcmp(f->src, c->b) && !strcmp(f->dst, c->a));
	case SEL_SRC_DST:
		return !strcmp(f->src, c->a) && !strcmp(f->dst, c->b);
	case SEL_EITHER:
		return !strcmp(f->src, c->a) || !strcmp(f->dst, c->a);
	case SEL_SRC:
		return !strcmp(f->src, c->a);
	case SEL_DST:
		return !strcmp(f->dst, c->a);
	}
	return FALSE;
}

static void add_check(char *what, char *filter, sel_kind_t kind, const char *a, const char *b,
		      gboolean must_select)
{
	check_t *c = g_new0(check_t, 1);
	c->what = what;
	c->filter = filter;
	c->kind = kind;
	c->a = g_strdup(a);
	c->b = g_strdup(b);
	c->must_select = must_select;
	g_ptr_array_add(checks, c);
}

/* Reads FILE once in a new epan session, calling per_frame after each
 * frame is dissected (with a tree when prime_filters). */
static gboolean read_file(const char *path, gboolean prime_filters,
			  void (*per_frame)(epan_dissect_t *edt, guint32 num))
{
	struct packet_provider_data prov;
	static const struct packet_provider_funcs funcs = { frame_ts, NULL, NULL, NULL };
	int err = 0;
	gchar *err_info = NULL;
	gint64 offset;
	wtap *wth = wtap_open_offline(path, WTAP_TYPE_AUTO, &err, &err_info, FALSE);
	wtap_rec rec;
	Buffer buf;
	epan_t *session;
	epan_dissect_t *edt;
	frame_data fd, first, prev;
	const frame_data *ref = NULL;
	nstime_t elapsed;
	guint32 num = 0, cum_bytes = 0;

	if (!wth) {
		fprintf(stderr, "conv_filter_check: cannot open %s: %s\n", path,
			err_info ? err_info : g_strerror(err));
		return FALSE;
	}
	prov.ts = g_array_new(FALSE, TRUE, sizeof(nstime_t));
	session = epan_new(&prov, &funcs);
	edt = epan_dissect_new(session, prime_filters, FALSE);
	wtap_rec_init(&rec);
	ws_buffer_init(&buf, 1514);
	nstime_set_zero(&elapsed);
	while (wtap_read(wth, &rec, &buf, &err, &err_info, &offset)) {
		tvbuff_t *tvb;
		num++;
		g_array_append_val(prov.ts, rec.ts);
		frame_data_init(&fd, num, &rec, offset, cum_bytes);
		frame_data_set_before_dissect(&fd, &elapsed, &ref, num > 1 ? &prev : NULL);
		if (prime_filters)
			for (guint i = 0; i < checks->len; i++) {
				check_t *c = g_ptr_array_index(checks, i);
				if (c->df)
					epan_dissect_prime_with_dfilter(edt, c->df);
			}
		tvb = tvb_new_real_data(ws_buffer_start_ptr(&buf), fd.cap_len, fd.cap_len);
		epan_dissect_run_with_taps(edt, wtap_file_type_subtype(wth), &rec, tvb, &fd, NULL);
		per_frame(edt, num);
		frame_data_set_after_dissect(&fd, &cum_bytes);
		epan_dissect_reset(edt);
		frame_data_destroy(&fd);
		prev = fd;
		if (num == 1) {
			first = fd;
			ref = &first;
		}
	}
	if (err) {
		fprintf(stderr, "conv_filter_check: reading %s: %s\n", path,
			err_info ? err_info : g_strerror(err));
		return FALSE;
	}
	ws_buffer_free(&buf);
	wtap_rec_cleanup(&rec);
	epan_dissect_free(edt);
	epan_free(session);
	wtap_close(wth);
	g_array_free(prov.ts, TRUE);
	return num > 0;
}

static const conversation_filter_t *lnetcap_conv_filter;
static int at_nid = -1;

/* Pass 1: each frame's NIDs and the filter Conversation Filter builds. */
static void note_frame(epan_dissect_t *edt, guint32 num)
{
	packet_info *pinfo = &edt->pi;
	frame_nids_t f = { NULL, NULL };

	if (pinfo->src.type == at_nid && pinfo->dst.type == at_nid) {
		f.src = address_to_str(NULL, &pinfo->src);
		f.dst = address_to_str(NULL, &pinfo->dst);
	}
	g_array_append_val(frames, f);
	if (lnetcap_conv_filter->is_filter_valid(LNETCAP_CONV_FILTER_CALL(pinfo)) != (f.src != NULL)) {
		printf("FAIL: frame %u: Conversation Filter offered %s a frame %s NIDs\n", num,
		       f.src ? "not for" : "for", f.src ? "with" : "without");
		all_ok = FALSE;
	}
	if (f.src && lnetcap_conv_filter->is_filter_valid(LNETCAP_CONV_FILTER_CALL(pinfo))) {
		/* Frames of one conversation build one string: check it once. */
		static GHashTable *seen;
		gchar *s = lnetcap_conv_filter->build_filter_string(LNETCAP_CONV_FILTER_CALL(pinfo));
		if (!seen)
			seen = g_hash_table_new(g_str_hash, g_str_equal);
		if (s && g_hash_table_contains(seen, s)) {
			g_free(s);
			return;
		}
		if (s)
			g_hash_table_add(seen, s);
		add_check(g_strdup_printf("frame %u: Conversation Filter", num), s, SEL_PAIR, f.src,
			  f.dst, TRUE);
	}
}

/* Pass 2: every filter on every frame. */
static void apply_filters(epan_dissect_t *edt, guint32 num)
{
	const frame_nids_t *f = &g_array_index(frames, frame_nids_t, num - 1);
	for (guint i = 0; i < checks->len; i++) {
		check_t *c = g_ptr_array_index(checks, i);
		if (!c->df || !dfilter_apply_edt(c->df, edt))
			continue;
		c->matched++;
		if (!selects(c, f)) {
			if (!c->wrong)
				printf("FAIL: %s: '%s' selects frame %u (%s -> %s)\n", c->what, c->filter,
				       num, f->src ? f->src : "no NIDs", f->dst ? f->dst : "");
			c->wrong++;
		}
	}
}

/* Frames with src NID a (NULL: any) and dst NID b (NULL: any). */
static guint64 count_frames(const char *a, const char *b)
{
	guint64 n = 0;
	for (guint k = 0; k < frames->len; k++) {
		const frame_nids_t *f = &g_array_index(frames, frame_nids_t, k);
		n += f->src && (!a || !strcmp(f->src, a)) && (!b || !strcmp(f->dst, b));
	}
	return n;
}

/* A table row's packet counts must be its frames: what its filter selects. */
static void check_row(const char *what, guint64 tx, guint64 rx, guint64 want_tx, guint64 want_rx)
{
	if (tx != want_tx || rx != want_rx) {
		printf("FAIL: %s counts %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " frames sent/received, "
		       "the capture has %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "\n", what, tx, rx,
		       want_tx, want_rx);
		all_ok = FALSE;
	}
}

static void conv_checks(conv_hash_t *ch)
{
	static const struct {
		conv_direction_e dir;
		const char *name;
		sel_kind_t kind;
		gboolean swap, use_b; /* the expected a/b from the row's A and B */
	} dirs[] = {
		{ CONV_DIR_A_TO_FROM_B, "A<->B", SEL_PAIR, FALSE, FALSE },
		{ CONV_DIR_A_TO_B, "A->B", SEL_SRC_DST, FALSE, FALSE },
		{ CONV_DIR_A_FROM_B, "A<-B", SEL_SRC_DST, TRUE, FALSE },
		{ CONV_DIR_A_TO_FROM_ANY, "A<->Any", SEL_EITHER, FALSE, FALSE },
		{ CONV_DIR_A_TO_ANY, "A->Any", SEL_SRC, FALSE, FALSE },
		{ CONV_DIR_A_FROM_ANY, "A<-Any", SEL_DST, FALSE, FALSE },
		{ CONV_DIR_ANY_TO_FROM_B, "Any<->B", SEL_EITHER, FALSE, TRUE },
		{ CONV_DIR_ANY_TO_B, "Any->B", SEL_DST, FALSE, TRUE },
		{ CONV_DIR_ANY_FROM_B, "Any<-B", SEL_SRC, FALSE, TRUE },
	};
	for (guint i = 0; ch->conv_array && i < ch->conv_array->len; i++) {
		conv_item_t *it = &g_array_index(ch->conv_array, conv_item_t, i);
		char *a = address_to_str(NULL, &it->src_address);
		char *b = address_to_str(NULL, &it->dst_address);
		char *row = g_strdup_printf("Conversations row %s / %s", a, b);
		/* A conversation of a NID with itself counts each frame once. */
		if (!strcmp(a, b))
			check_row(row, it->tx_frames + it->rx_frames, 0, count_frames(a, a), 0);
		else
			check_row(row, it->tx_frames, it->rx_frames, count_frames(a, b), count_frames(b, a));
		for (size_t d = 0; d < G_N_ELEMENTS(dirs); d++) {
			const char *x = dirs[d].use_b ? b : (dirs[d].swap ? b : a);
			const char *y = dirs[d].swap ? a : b;
			add_check(g_strdup_printf("%s, %s", row, dirs[d].name),
				  get_conversation_filter(it, dirs[d].dir), dirs[d].kind, x, y,
				  dirs[d].dir == CONV_DIR_A_TO_FROM_B);
		}
		g_free(row);
		wmem_free(NULL, a);
		wmem_free(NULL, b);
	}
}

static void endpoint_checks(conv_hash_t *eh)
{
	for (guint i = 0; eh->conv_array && i < eh->conv_array->len; i++) {
		endpoint_item_t *it = &g_array_index(eh->conv_array, endpoint_item_t, i);
		char *a = address_to_str(NULL, &it->myaddress);
		char *row = g_strdup_printf("Endpoints row %s", a);
		check_row(row, it->tx_frames, it->rx_frames, count_frames(a, NULL), count_frames(NULL, a));
		add_check(row, get_endpoint_filter(it), SEL_EITHER, a, NULL, TRUE);
		wmem_free(NULL, a);
	}
}

int main(int argc, char **argv)
{
	conv_hash_t conv = { 0 }, endp = { 0 };
	register_ct_t *ct;
	GString *e;
	char *cfg_err;
	int proto;
	guint n_ok = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE.pcapng\n", argv[0]);
		return 2;
	}
	ws_log_init("conv_filter_check", NULL);
	init_process_policies();
	if (started_with_special_privs()) {
		fprintf(stderr, "conv_filter_check: run it unprivileged (libwireshark ignores "
			"WIRESHARK_PLUGIN_DIR for root)\n");
		return 2;
	}
	cfg_err = configuration_init(argv[0], NULL);
	if (cfg_err) {
		fprintf(stderr, "conv_filter_check: %s\n", cfg_err);
		return 1;
	}
	wtap_init(TRUE);
	if (!epan_init(NULL, NULL, TRUE)) {
		fprintf(stderr, "conv_filter_check: epan_init failed\n");
		return 1;
	}
	epan_load_settings();
	proto = proto_get_id_by_filter_name("lnetcap");
	at_nid = address_type_get_by_name("AT_LNETCAP_NID");
	ct = proto >= 0 ? get_conversation_by_proto_id(proto) : NULL;
	for (GList *l = packet_conv_filter_list; l; l = l->next) {
		const conversation_filter_t *cf = l->data;
		if (!strcmp(cf->proto_name, "lnetcap"))
			lnetcap_conv_filter = cf;
	}
	if (proto < 0 || at_nid < 0 || !ct || !lnetcap_conv_filter) {
		fprintf(stderr, "conv_filter_check: the lnetcap plugin is not loaded, or registers "
			"no conversation table, NID address type or conversation filter "
			"(WIRESHARK_PLUGIN_DIR=%s)\n", g_getenv("WIRESHARK_PLUGIN_DIR") ?
			g_getenv("WIRESHARK_PLUGIN_DIR") : "unset");
		return 1;
	}

	/* Pass 1, with the Conversations and Endpoints taps. */
	frames = g_array_new(FALSE, TRUE, sizeof(frame_nids_t));
	checks = g_ptr_array_new();
	e = register_tap_listener("lnetcap", &conv, NULL, 0, NULL, get_conversation_packet_func(ct),
				  NULL, NULL);
	if (!e)
		e = register_tap_listener("lnetcap", &endp, NULL, 0, NULL,
					  get_endpoint_packet_func(ct), NULL, NULL);
	if (e) {
		fprintf(stderr, "conv_filter_check: tap: %s\n", e->str);
		return 1;
	}
	if (!read_file(argv[1], FALSE, note_frame))
		return 1;
	remove_tap_listener(&conv);
	remove_tap_listener(&endp);
	conv_checks(&conv);
	endpoint_checks(&endp);
	if (!conv.conv_array || !endp.conv_array) {
		printf("FAIL: the LNetCap Conversations/Endpoints tables are empty\n");
		return 1;
	}

	/* Every filter must compile... */
	for (guint i = 0; i < checks->len; i++) {
		check_t *c = g_ptr_array_index(checks, i);
		gchar *msg = NULL;
		if (!c->filter || !dfilter_compile(c->filter, &c->df, &msg) || !c->df) {
			printf("FAIL: %s: '%s' is not a valid display filter: %s\n", c->what,
			       c->filter ? c->filter : "(none built)", msg ? msg : "empty");
			all_ok = FALSE;
			c->df = NULL;
		}
		g_free(msg);
	}
	/* ...and select exactly its frames (pass 2). */
	if (!read_file(argv[1], TRUE, apply_filters))
		return 1;
	for (guint i = 0; i < checks->len; i++) {
		check_t *c = g_ptr_array_index(checks, i);
		guint64 want = 0;
		if (!c->df)
			continue;
		for (guint k = 0; k < frames->len; k++)
			want += selects(c, &g_array_index(frames, frame_nids_t, k));
		if (c->wrong || c->matched != want || (c->must_select && want == 0)) {
			printf("FAIL: %s: '%s' selects %" G_GUINT64_FORMAT " frame(s), %" G_GUINT64_FORMAT
			       " not of it; expected %" G_GUINT64_FORMAT "\n", c->what, c->filter,
			       c->matched, c->wrong, want);
			all_ok = FALSE;
		} else {
			n_ok++;
		}
	}
	printf("%u of %u filters valid and selecting exactly their frames (%u frames, %u "
	       "conversations, %u endpoints)\n", n_ok, checks->len, frames->len, conv.conv_array->len,
	       endp.conv_array->len);
	return all_ok && n_ok == checks->len ? 0 : 1;
}
