// SPDX-License-Identifier: GPL-2.0-or-later
// anonymizer.h - makes a trace safe to attach to a public bug report.
//
// Policy (docs/ANONYMIZE.md):
//  * NIDs are replaced consistently with a keyed hash (HMAC-SHA256): the
//    same NID maps to the same pseudonym in every file anonymised with the
//    same key, so captures from several nodes still line up.  LND type and
//    net number are kept (o2ib1 stays o2ib1); 0@lo and LNET_NID_ANY stay.
//  * jobids, uids, gids and projids (ptlrpc_body, mdt_body, obdo, reint
//    records) are replaced the same way; 0 (root) is kept.
//  * Of a PtlRPC message only the structured buffers lnetcap knows are kept
//    (ptlrpc_body, LDLM request/reply/intent, obdo, obd_ioobj, niobuf,
//    mdt_body, reint records, I/O epoch, connect data), with identities
//    rewritten; every other buffer — file names, symlink targets, UUIDs,
//    xattrs, layouts, ACLs, security contexts — is replaced: strings by a
//    keyed token of the same length, binary data by zeros.  Buffer lengths
//    never change, so the message still dissects.
//  * Random cookies kept for pairing (LNet MD handles, lock, open and
//    connection handles) become keyed pseudonyms (handle_pseudonyms.h);
//    XIDs and match bits move by one keyed offset (xid_shift.h).
//  * LNet ping/push payloads keep their structure with NIDs rewritten, also
//    in the NID metadata trailer (Lustre 2.17), whose LND-defined bytes
//    (EFA addresses) become zeros; any other payload (bulk file data) is
//    dropped.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../message.h"
#include "../codec/wire_reader.h"
#include "../nid.h"
#include "../source.h"
#include "handle_pseudonyms.h"
#include "xid_shift.h"

namespace lnetcap::anon {

struct Changes {
  std::uint64_t records = 0;
  std::uint64_t nids = 0;        // NID fields rewritten
  std::uint64_t jobids = 0;
  std::uint64_t ids = 0;         // uid/gid/projid fields rewritten
  std::uint64_t buffers = 0;     // PtlRPC buffers replaced (names, UUIDs, EAs…)
  std::uint64_t ping_metadata = 0;  // LND bytes of ping NID metadata entries zeroed
  std::uint64_t handles = 0;     // random cookies given pseudonyms (handle_pseudonyms.h)
  std::uint64_t payload_bytes_dropped = 0;
  std::string summary() const;  // one line for stderr and the pcapng comment
};

class Anonymizer {
 public:
  explicit Anonymizer(std::vector<std::uint8_t> key);
  /// Reads the key from path, creating it (32 random bytes, mode 0600) when
  /// it does not exist, so the same file can be used on other nodes.
  static std::vector<std::uint8_t> load_or_create_key(const std::string& path);
  static std::vector<std::uint8_t> random_key();

  /// Rewrites one valid lnetcap record (see the policy above).
  std::vector<std::uint8_t> rewrite_record(ByteSpan record);
  /// The same for a record the caller has already decoded (msg.rec points
  /// into it): the pipeline decodes each record once.
  std::vector<std::uint8_t> rewrite_record(const Message& msg);
  /// Interface names keep only net names and mapped NIDs or stream
  /// endpoints; descriptions become the pseudonyms of the NIDs they
  /// mention; os, hardware, filter and comments are dropped.
  CaptureInterface rewrite_interface(const CaptureInterface& in);
  std::string rewrite_interface_name(std::string_view name);
  /// Replaces every NID written in text ("... 10.0.0.1@tcp ...").
  std::string rewrite_text(std::string_view text);

  Nid map_nid(const Nid& nid);
  std::uint32_t map_id(std::uint32_t id);
  std::string map_string(std::string_view s, const char* domain);
  const Changes& changes() const { return changes_; }

 private:
  std::optional<std::string> map_endpoint(std::string_view endpoint);
  std::vector<std::uint8_t> digest(const char* domain, const void* data, std::size_t len) const;
  // An RPC as its request and reply both name it: the client's NID and the XID.
  using RpcKey = std::pair<Nid, std::uint64_t>;
  void rewrite_ptlrpc(std::vector<std::uint8_t>& payload, std::uint32_t opc_hint,
                      const std::optional<RpcKey>& rpc);
  void remember_selector(const RpcKey& rpc, std::uint32_t sel);
  static std::uint32_t format_selector(const WireWriter& msg, std::uint32_t count, std::uint32_t opc,
                                       bool is_reply, bool* have);
  void rewrite_ping_info(std::vector<std::uint8_t>& payload, std::size_t message_len);

  std::vector<std::uint8_t> key_;
  HandlePseudonyms handles_{key_};
  XidShift xids_{key_};
  std::map<Nid, Nid> nid_cache_;
  // A reply carries no selector (rr_opcode, intent): the one its request
  // had, when this anonymizer saw the request, picks the reply's format.
  // The oldest are forgotten first (a reply's request comes shortly before).
  static constexpr std::size_t kMaxSelectors = 65536;
  std::map<RpcKey, std::uint32_t> selectors_;
  std::deque<RpcKey> selector_order_;
  Changes changes_;
};

}  // namespace lnetcap::anon
