// SPDX-License-Identifier: GPL-2.0-or-later
// self_check.h - proves, before the first record is trusted, that the
// struct offsets lnetcap will use are those of the running lnet module.
//
// How: with the capture programs just loaded (the very programs and
// offsets of the capture), lnetcap asks LNet to ping 0@lo, as `lnetctl
// ping 0@lo` does (ioctl IOC_LIBCFS_PING_PEER on /dev/lnet: 2.15.0 through
// 2.17.57 all accept it).  Every field of the messages that ping makes is
// known in advance: a GET from 0@lo to 0@lo on LNet's reserved portal 0
// with the ping match bits, no payload, sent by this thread; the REPLY
// carrying the node's lnet_ping_info (which starts with the ping magic),
// sent and received on 0@lo; status and health OK.  The programs record
// every message handled in this thread whatever the filter says
// (lnetcap_cfg.self_tid), and those records are compared here field by
// field; they never reach the capture.
//
// Why a loopback ping and not another message: it is the one message a
// node can cause without touching the network or any peer (the loopback
// LND hands it to lnet_parse in the same thread), it needs no Lustre
// mount, only LNet up, it works on clients, servers and routers, and LNet
// itself pings peers all the time, so it is as harmless as LNet traffic
// gets.  It exercises every read but one: a loopback send has no peer NI
// (msg_txpeer NULL), so lpni_nid is not read.  lpni_nid changed in the
// same commit as the lnet_msg members in every release read (tables are
// proven as a whole), and the plausibility check on the first records
// (layout_check.h) requires every SEND's peer NI to be on the sending
// NI's net, which a wrong lpni_nid offset does not survive.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../record.h"

namespace lnetcap::live {

struct SelfCheckResult {
  enum Status {
    kProven,      // every field read as expected
    kMismatch,    // a field differs: the offsets are wrong
    kImpossible,  // no self-ping could be made (LNet down, no /dev/lnet)
  };
  Status status = kImpossible;
  /// kMismatch: "in the ping's SEND GET, msg_hdr (type): expected GET (2),
  /// read 0"; kImpossible: why; kProven: what was checked.
  std::string detail;
};

/// Asks LNet to ping 0@lo from the calling thread.  Returns 0 on success,
/// else a negative errno with *why saying what failed.
int lnet_self_ping(std::string* why);

/// Compares the records this thread's self-ping made, in capture order,
/// with what LNet makes of a ping of 0@lo.  ping_rc: lnet_self_ping's.
SelfCheckResult judge_self_ping(const std::vector<RecordView>& recs);

/// The user-facing sentence for a result (for -D, -v and the refusal).
std::string describe(const SelfCheckResult& r);

}  // namespace lnetcap::live
