/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ws-version.h - the C types that differ between Wireshark releases.  With
 * plugin.c (the plugin ABI), this is the only place that knows which
 * release the plugin is built for; the dissector files use the 4.0 API
 * through these names.
 */
#ifndef LNETCAP_WS_VERSION_H
#define LNETCAP_WS_VERSION_H

#include <ws_version.h>
#include <glib.h>

/* Wireshark 4.3+ passes C99 bool where 4.0-4.2 passed gboolean (preference
 * variables, address-type callbacks); GCC 14 rejects the mismatch. */
#if WIRESHARK_VERSION_MAJOR > 4 || (WIRESHARK_VERSION_MAJOR == 4 && WIRESHARK_VERSION_MINOR >= 3)
#include <stdbool.h>
typedef bool lnetcap_ws_bool;
#else
typedef gboolean lnetcap_ws_bool;
#endif

/* Wireshark 4.1+ (released in 4.2) passes a user_data pointer to the
 * conversation filter callbacks and takes it at registration.  The plugin
 * writes its callbacks with LNETCAP_CONV_FILTER_PARAMS and registers them
 * with LNETCAP_CONV_FILTER_USER_DATA as the last argument list item. */
#if WIRESHARK_VERSION_MAJOR > 4 || (WIRESHARK_VERSION_MAJOR == 4 && WIRESHARK_VERSION_MINOR >= 1)
#define LNETCAP_CONV_FILTER_PARAMS(pinfo) packet_info *pinfo, void *user_data _U_
#define LNETCAP_CONV_FILTER_CALL(pinfo) (pinfo), NULL
#define LNETCAP_CONV_FILTER_USER_DATA , NULL
typedef lnetcap_ws_bool lnetcap_conv_valid_t;
#else
#define LNETCAP_CONV_FILTER_PARAMS(pinfo) packet_info *pinfo
#define LNETCAP_CONV_FILTER_CALL(pinfo) (pinfo)
#define LNETCAP_CONV_FILTER_USER_DATA
typedef gboolean lnetcap_conv_valid_t;
#endif

/* A record's interface id counts within its pcapng section.  Wireshark
 * 4.1+ (4.2) names an interface by id and section; 4.0's
 * epan_get_interface_name/_description take the id alone and index the
 * IDBs of the whole file, so they are right for the first section only (a
 * file appended to another with cat): there the plugin knows no name. */
#if WIRESHARK_VERSION_MAJOR > 4 || (WIRESHARK_VERSION_MAJOR == 4 && WIRESHARK_VERSION_MINOR >= 1)
#define LNETCAP_IFACE_NAME(epan, i, s) epan_get_interface_name((epan), (i), (s))
#define LNETCAP_IFACE_DESCR(epan, i, s) epan_get_interface_description((epan), (i), (s))
#else
#define LNETCAP_IFACE_NAME(epan, i, s) ((s) == 0 ? epan_get_interface_name((epan), (i)) : NULL)
#define LNETCAP_IFACE_DESCR(epan, i, s) \
	((s) == 0 ? epan_get_interface_description((epan), (i)) : NULL)
#endif

#endif /* LNETCAP_WS_VERSION_H */
