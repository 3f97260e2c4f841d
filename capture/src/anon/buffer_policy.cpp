// SPDX-License-Identifier: GPL-2.0-or-later
#include "buffer_policy.h"

#include <cstdint>

#include "lnetcap/bodies.h"
#include "lnetcap/ptlrpc.h"

namespace lnetcap::anon {
namespace {

bool exactly(std::size_t len, std::size_t size) { return len == size; }
bool array_of(std::size_t len, std::size_t element) { return len > 0 && len % element == 0; }

}  // namespace

// Every kind is named (no default:), so a kind added to LNETCAP_RMF_LIST
// is a -Wswitch warning here until someone decides what it may show.
Treatment treatment(enum lnetcap_rmf kind, std::size_t len) {
  switch (kind) {
    // The ptlrpc_body: opcode, status, flags, transaction numbers; its
    // identities are rewritten field by field (v2 bodies are shorter).
    case LNETCAP_RMF_PTLRPC_BODY:
      return len >= LNETCAP_PTLRPC_BODY_V2_LEN ? Treatment::kPtlrpcBody : Treatment::kZero;

    // Identities in fixed places, rewritten; everything else in them is
    // numbers (FIDs, sizes, times, flags, modes).
    case LNETCAP_RMF_OST_BODY:
      return exactly(len, sizeof(struct lnetcap_obdo)) ? Treatment::kObdo : Treatment::kZero;
    case LNETCAP_RMF_MDT_BODY:
      return exactly(len, sizeof(struct lnetcap_mdt_body)) ? Treatment::kMdtBody : Treatment::kZero;
    case LNETCAP_RMF_REC_REINT:
      return exactly(len, sizeof(struct lnetcap_mdt_rec_reint)) ? Treatment::kReint : Treatment::kZero;

    // Lock requests and replies: handles, modes, flags, policies and
    // resource names, which for IBITS/EXTENT/FLOCK locks are FIDs and object
    // ids; an LDLM_PLAIN name is text or a quota id (kDlm rewrites it).
    case LNETCAP_RMF_DLM_REQ:
      // ldlm_request_bufsize(): more lock handles than the struct holds.
      return len >= sizeof(struct lnetcap_ldlm_request) &&
                     (len - sizeof(struct lnetcap_ldlm_request)) % sizeof(std::uint64_t) == 0
                 ? Treatment::kDlm
                 : Treatment::kZero;
    case LNETCAP_RMF_DLM_REP:
      return exactly(len, sizeof(struct lnetcap_ldlm_reply)) ? Treatment::kDlm : Treatment::kZero;

    // Numbers only, what an analysis of I/O and recovery reads: the
    // intent's opcode; object ids and the extents of a bulk I/O; I/O
    // epochs; connect flags and versions; statfs counters; FID sequences
    // and ranges; llog ids; return codes.
    case LNETCAP_RMF_LDLM_INTENT:  // __u64 opc
    case LNETCAP_RMF_OBD_ID:       // __u64
    case LNETCAP_RMF_CONN:         // struct lustre_handle: a random cookie
      return exactly(len, sizeof(std::uint64_t)) ? Treatment::kKeep : Treatment::kZero;
    case LNETCAP_RMF_OBD_IOOBJ:
      return array_of(len, sizeof(struct lnetcap_obd_ioobj)) ? Treatment::kKeep : Treatment::kZero;
    case LNETCAP_RMF_NIOBUF_REMOTE:
      return array_of(len, sizeof(struct lnetcap_niobuf_remote)) ? Treatment::kKeep : Treatment::kZero;
    case LNETCAP_RMF_MDT_EPOCH:
      return exactly(len, sizeof(struct lnetcap_mdt_ioepoch)) ? Treatment::kKeep : Treatment::kZero;
    case LNETCAP_RMF_CONNECT_DATA:
      // Older peers send a shorter obd_connect_data (RMF_F_STRUCT_ARRAY-less,
      // minimum size): any 8-byte multiple up to the current struct.
      return len <= sizeof(struct lnetcap_obd_connect_data) && array_of(len, sizeof(std::uint64_t))
                 ? Treatment::kKeep
                 : Treatment::kZero;
    case LNETCAP_RMF_OBD_STATFS:
      return exactly(len, sizeof(struct lnetcap_obd_statfs)) ? Treatment::kKeep : Treatment::kZero;
    case LNETCAP_RMF_SEQ_OPC:
    case LNETCAP_RMF_FLD_OPC:
    case LNETCAP_RMF_U32:
      return exactly(len, sizeof(std::uint32_t)) ? Treatment::kKeep : Treatment::kZero;
    case LNETCAP_RMF_SEQ_RANGE:
    case LNETCAP_RMF_FLD_MDFLD:
      return exactly(len, sizeof(struct lnetcap_lu_seq_range)) ? Treatment::kKeep : Treatment::kZero;
    case LNETCAP_RMF_FID:
      return exactly(len, sizeof(struct lnetcap_lu_fid)) ? Treatment::kKeep : Treatment::kZero;
    case LNETCAP_RMF_FID_ARRAY:
      return array_of(len, sizeof(struct lnetcap_lu_fid)) ? Treatment::kKeep : Treatment::kZero;
    case LNETCAP_RMF_RCS:
      return array_of(len, sizeof(std::uint32_t)) ? Treatment::kKeep : Treatment::kZero;
    case LNETCAP_RMF_LLOGD_BODY:
      return exactly(len, sizeof(struct lnetcap_llogd_body)) ? Treatment::kKeep : Treatment::kZero;
    case LNETCAP_RMF_MGS_CONFIG_RES:
      return exactly(len, sizeof(struct lnetcap_mgs_config_res)) ? Treatment::kKeep : Treatment::kZero;

    // Names: a keyed token of the same length, so one name still matches
    // itself across messages (and files anonymized with one key).
    case LNETCAP_RMF_NAME:      // file, xattr or llog name
    case LNETCAP_RMF_SYMTGT:    // symlink target or rename's second name
    case LNETCAP_RMF_TGTUUID:   // target names ("lfs-MDT0000_UUID")
    case LNETCAP_RMF_CLUUID:    // client UUIDs
      return Treatment::kToken;

    // Everything else holds user data, names inside structures, or things
    // lnetcap does not rewrite field by field: zeros.
    case LNETCAP_RMF_ACL:                  // uids and gids
    case LNETCAP_RMF_BUT_BUF:              // batched requests: names
    case LNETCAP_RMF_BUT_HEADER:
    case LNETCAP_RMF_BUT_REPLY:
    case LNETCAP_RMF_CAPA1:                // capabilities: uid, keys
    case LNETCAP_RMF_CAPA2:
    case LNETCAP_RMF_CLOSE_DATA:
    case LNETCAP_RMF_DEFAULT_MDT_MD:       // layouts: pool names
    case LNETCAP_RMF_DLM_GL_DESC:          // glimpse descriptors: quota ids
    case LNETCAP_RMF_DLM_LVB:              // an LVB or, for IT_LAYOUT, a layout
    case LNETCAP_RMF_EADATA:               // xattr names and values, layouts
    case LNETCAP_RMF_EAVALS:
    case LNETCAP_RMF_EAVALS_LENS:
    case LNETCAP_RMF_FIEMAP_KEY:
    case LNETCAP_RMF_FIEMAP_VAL:
    case LNETCAP_RMF_FILE_ENCCTX:          // encryption context
    case LNETCAP_RMF_FILE_SECCTX:          // security labels
    case LNETCAP_RMF_FILE_SECCTX_NAME:
    case LNETCAP_RMF_GENERIC_DATA:
    case LNETCAP_RMF_GETINFO_KEY:          // key strings and their values
    case LNETCAP_RMF_GETINFO_VAL:
    case LNETCAP_RMF_GETINFO_VALLEN:
    case LNETCAP_RMF_HSM_STATE_SET:
    case LNETCAP_RMF_HSM_USER_STATE:
    case LNETCAP_RMF_IDX_INFO:
    case LNETCAP_RMF_LAYOUT_INTENT:
    case LNETCAP_RMF_LFSCK_REPLY:
    case LNETCAP_RMF_LFSCK_REQUEST:
    case LNETCAP_RMF_LLOG_LOG_HDR:         // llh_tgtuuid
    case LNETCAP_RMF_LOGCOOKIES:
    case LNETCAP_RMF_MDS_HSM_ARCHIVE:
    case LNETCAP_RMF_MDS_HSM_CURRENT_ACTION:
    case LNETCAP_RMF_MDS_HSM_PROGRESS:
    case LNETCAP_RMF_MDS_HSM_REQUEST:
    case LNETCAP_RMF_MDS_HSM_USER_ITEM:
    case LNETCAP_RMF_MDT_MD:               // layouts: pool names
    case LNETCAP_RMF_MGS_CONFIG_BODY:      // config log names
    case LNETCAP_RMF_MGS_SEND_PARAM:
    case LNETCAP_RMF_MGS_TARGET_INFO:      // target names, NIDs, parameters
    case LNETCAP_RMF_MGS_TARGET_NIDLIST:
    case LNETCAP_RMF_NIOBUF_INLINE:        // file data (DoM read on open)
    case LNETCAP_RMF_OBD_QUOTACTL:         // quota ids, pool names
    case LNETCAP_RMF_OBD_QUOTA_ITER:
    case LNETCAP_RMF_OST_LADVISE:
    case LNETCAP_RMF_OST_LADVISE_HDR:
    case LNETCAP_RMF_OUT_UPDATE_BUF:       // object updates: names, xattrs
    case LNETCAP_RMF_OUT_UPDATE_HEADER:
    case LNETCAP_RMF_OUT_UPDATE_REPLY:
    case LNETCAP_RMF_QUOTA_BODY:           // quota ids
    case LNETCAP_RMF_SELINUX_POL:
    case LNETCAP_RMF_SETINFO_KEY:
    case LNETCAP_RMF_SETINFO_VAL:
    case LNETCAP_RMF_SHORT_IO:             // file data
    case LNETCAP_RMF_SWAP_LAYOUTS:
    case LNETCAP_RMF_NONE:                 // the table cannot tell
    case LNETCAP_RMF_COUNT:
      return Treatment::kZero;
  }
  return Treatment::kZero;
}

}  // namespace lnetcap::anon
