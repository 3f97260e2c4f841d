/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <epan/packet.h>

#include "packet-lnetcap.h"

void dissect_lnetcap_ldlm(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt)
{
}

void lnetcap_register_ldlm(int proto)
{
}
