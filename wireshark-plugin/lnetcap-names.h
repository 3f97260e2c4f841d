/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lnetcap-names.h - names for NIDs (lnetcap-names.c). */
#ifndef LNETCAP_NAMES_H
#define LNETCAP_NAMES_H

#include <epan/prefs.h>
#include <epan/wmem_scopes.h>

/* "NAME@NET" for a NID text when network name resolution is on and the
 * names file names its address; NULL otherwise. */
const char *lnetcap_nid_name(const char *nid_str, wmem_allocator_t *scope);
void lnetcap_names_register_prefs(module_t *mod);

#endif /* LNETCAP_NAMES_H */
