/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plugin.c - the Wireshark plugin ABI.  With ws-version.h (the few C types
 * that changed), it is the only file that knows which Wireshark release it
 * is built for.  The dissector files use the 4.0 API (which 4.2 and 4.4
 * still accept); version differences go here:
 *
 *  - 4.0 - 4.6: export plugin_version/plugin_want_major/plugin_want_minor
 *    and plugin_register(), which registers a proto_plugin and a
 *    tap_plugin (for the stats_tree).
 *  - 4.3+: also plugin_describe() returning WS_PLUGIN_DESC_* flags.
 *  - a release with WIRESHARK_PLUGIN_REGISTER_EPAN (wsutil/plugins.h)
 *    wants a module struct instead; handled below when that macro exists.
 *
 * A plugin binary only loads into the major.minor it was compiled against;
 * rebuild per release (docs/PLUGIN.md).
 */
#define WS_BUILD_DLL
#include <wireshark.h>
#include <epan/packet.h>
#include <epan/proto.h>
#include <epan/tap.h>
/* 4.0's -dev package does not ship wsutil/plugins.h; newer ones define
 * WS_PLUGIN_DESC_* and the module registration macro there. */
#if defined(__has_include)
#if __has_include(<wsutil/plugins.h>)
#include <wsutil/plugins.h>
#endif
#endif

#include "packet-lnetcap.h"

void proto_register_lnetcap(void);
void proto_reg_handoff_lnetcap(void);

#ifndef LNETCAP_PLUGIN_VERSION
#define LNETCAP_PLUGIN_VERSION "0.1.0"
#endif

static void register_taps(void)
{
	lnetcap_register_stats_tree();
	lnetcap_register_phases_table();
	lnetcap_register_phases_tree();
}

#ifdef WIRESHARK_PLUGIN_REGISTER_EPAN
/* Newer module-struct registration. */
static void plugin_register_all(void)
{
	static proto_plugin plug;
	static tap_plugin tap;
	plug.register_protoinfo = proto_register_lnetcap;
	plug.register_handoff = proto_reg_handoff_lnetcap;
	proto_register_plugin(&plug);
	tap.register_tap_listener = register_taps;
	tap_register_plugin(&tap);
}

static struct ws_module module = {
	.flags = WS_PLUGIN_DESC_DISSECTOR | WS_PLUGIN_DESC_TAP_LISTENER,
	.version = LNETCAP_PLUGIN_VERSION,
	.spdx_id = "GPL-2.0-or-later",
	.home_url = "",
	.blurb = "LNet capture records, LNet headers and Lustre PtlRPC",
	.register_cb = &plugin_register_all,
};

WIRESHARK_PLUGIN_REGISTER_EPAN(&module, 0)
#else
WS_DLL_PUBLIC_DEF const gchar plugin_version[] = LNETCAP_PLUGIN_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

void plugin_register(void)
{
	static proto_plugin plug;
	static tap_plugin tap;

	plug.register_protoinfo = proto_register_lnetcap;
	plug.register_handoff = proto_reg_handoff_lnetcap;
	proto_register_plugin(&plug);
	tap.register_tap_listener = register_taps;
	tap_register_plugin(&tap);
}

#if defined(WS_PLUGIN_DESC_DISSECTOR)
WS_DLL_PUBLIC uint32_t plugin_describe(void);

uint32_t plugin_describe(void)
{
	return WS_PLUGIN_DESC_DISSECTOR | WS_PLUGIN_DESC_TAP_LISTENER;
}
#endif
#endif
