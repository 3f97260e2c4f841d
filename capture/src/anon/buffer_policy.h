// SPDX-License-Identifier: GPL-2.0-or-later
// buffer_policy.h - the anonymizer's allowlist: what becomes of a PtlRPC
// buffer of each kind (include/lnetcap/rpc_formats.h's RMF_*).  A buffer
// survives only when its kind is known to hold neither an identity nor user
// data, and its length is the one that kind has; everything else, and every
// buffer whose kind the format table cannot tell (unknown opcode, formats
// that disagree), is replaced.  Why each kind is kept: docs/ANONYMIZE.md.
#pragma once

#include <cstddef>

#include "lnetcap/rpc_formats.h"

namespace lnetcap::anon {

enum class Treatment {
  kZero,        // replaced by zeros (binary, or text that is data)
  kToken,       // a name: replaced by a keyed token of the same length
  kKeep,        // numbers only (I/O extents, FIDs, connect flags): kept
  kDlm,         // a lock request or reply: kept; LDLM_PLAIN resource names
                // (MGS config locks spell the fsname, quota locks the uid)
                // replaced by keyed pseudonyms
  kPtlrpcBody,  // kept; jobid, uid, gid, projid rewritten
  kObdo,        // kept; o_uid, o_gid, o_projid rewritten
  kMdtBody,     // kept; mbo_*uid, mbo_*gid, mbo_projid rewritten
  kReint,       // kept; rr_fs*id, suppgids (and setattr's sa_*) rewritten
};

/// What the anonymizer does with a buffer of kind `kind` that is `len`
/// bytes long: a kept kind whose length is not its own is zeroed (the
/// message is not what the table says).
Treatment treatment(enum lnetcap_rmf kind, std::size_t len);

}  // namespace lnetcap::anon
