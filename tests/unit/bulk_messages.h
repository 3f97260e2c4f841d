// SPDX-License-Identifier: GPL-2.0-or-later
// bulk_messages.h - records of bulk RPCs, encoded as the capture writes them
// and decoded again (so the wire handles a REPLY or ACK names its GET or
// PUT by go through decode_message), for the bulk linker, text and summary
// tests: OST_WRITE (GET + REPLY) and OST_READ (PUT + ACK) as a client, a
// server or a router records them, on socklnd or o2iblnd.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"
#include "message_fixtures.h"

namespace lnetcap::test {

/// Who records: the client, the server, or a router between them.
enum class Seen { kClient, kServer, kRouter };

class BulkRecords {
 public:
  static constexpr std::uint64_t kMs = 1000000;
  BulkRecords(const char* client, const char* server, Seen seen, const char* router = "10.99.0.3@tcp")
      : client_(nid(client)), server_(nid(server)), router_(nid(router)), seen_(seen) {}

  /// The request PUT (client -> server).
  const Message& request(std::uint64_t ms, std::uint64_t xid, std::uint64_t mbits, std::uint32_t opc,
                         const std::string& jobid, std::uint32_t portal = LNETCAP_PORTAL_OST_IO) {
    RpcSpec rpc;
    rpc.opc = opc;
    rpc.version = 0x00030003;
    rpc.status = 4242;
    rpc.mbits = mbits;
    rpc.jobid = jobid;
    rpc.buffers.push_back(std::vector<std::uint8_t>(208, 0));  // ost_body
    auto payload = lustre_msg(rpc);
    LnetHeaderSpec h;
    h.src = client_;
    h.dst = server_;
    h.portal = portal;
    h.match_bits = xid;
    h.payload_length = static_cast<std::uint32_t>(payload.size());
    return add(ms, h, payload, h.payload_length);
  }
  /// The final reply PUT (server -> client), on match bits mbits.
  const Message& reply(std::uint64_t ms, std::uint64_t mbits, std::uint32_t opc, bool want_ack = false,
                       std::pair<std::uint64_t, std::uint64_t> ack_wmd = {0x5e1, 0x5e2}) {
    RpcSpec rpc;
    rpc.type = LNETCAP_PTL_RPC_MSG_REPLY;
    rpc.opc = opc;
    rpc.version = 0x00030003;
    rpc.status = opc == LNETCAP_OPC_OST_READ ? 1048576 : 0;
    auto payload = lustre_msg(rpc);
    LnetHeaderSpec h;
    h.src = server_;
    h.dst = client_;
    h.portal = LNETCAP_PORTAL_OSC_REPLY;
    h.match_bits = mbits;
    h.offset = 224;
    h.want_ack = want_ack;
    h.wmd = ack_wmd;
    h.payload_length = static_cast<std::uint32_t>(payload.size());
    return add(ms, h, payload, h.payload_length);
  }
  /// The server's bulk GET (OST_WRITE), return MD wmd.
  const Message& get(std::uint64_t ms, std::uint64_t mbits, std::pair<std::uint64_t, std::uint64_t> wmd,
                     std::uint32_t len = 1048576, std::uint32_t portal = LNETCAP_PORTAL_OST_BULK) {
    LnetHeaderSpec h;
    h.type = LNETCAP_MSG_GET;
    h.src = server_;
    h.dst = client_;
    h.portal = portal;
    h.match_bits = mbits;
    h.sink_length = len;
    h.wmd = wmd;
    return add(ms, h, {}, 0);
  }
  /// The client's REPLY with the data (on o2iblnd the RDMA REPLY lnetcap
  /// records with the header a REPLY message would carry).
  const Message& data_reply(std::uint64_t ms, std::pair<std::uint64_t, std::uint64_t> wmd,
                            std::uint32_t len = 1048576) {
    LnetHeaderSpec h;
    h.type = LNETCAP_MSG_REPLY;
    h.src = client_;
    h.dst = server_;
    h.payload_length = len;
    h.wmd = wmd;
    return add(ms, h, std::vector<std::uint8_t>(1024, 0x5a), len);
  }
  /// The server's bulk PUT (OST_READ), asking for an ACK on MD ack_wmd.
  const Message& put(std::uint64_t ms, std::uint64_t mbits, std::pair<std::uint64_t, std::uint64_t> ack_wmd,
                     std::uint32_t len = 1048576, std::uint32_t portal = LNETCAP_PORTAL_OST_BULK) {
    LnetHeaderSpec h;
    h.src = server_;
    h.dst = client_;
    h.portal = portal;
    h.match_bits = mbits;
    h.want_ack = true;
    h.wmd = ack_wmd;
    h.payload_length = len;
    return add(ms, h, std::vector<std::uint8_t>(1024, 0xa5), len);
  }
  /// The client's ACK of a PUT (bulk or reply).
  const Message& ack(std::uint64_t ms, std::uint64_t mbits, std::pair<std::uint64_t, std::uint64_t> wmd,
                     std::uint32_t mlen = 1048576) {
    LnetHeaderSpec h;
    h.type = LNETCAP_MSG_ACK;
    h.src = client_;
    h.dst = server_;
    h.match_bits = mbits;
    h.mlength = mlen;
    h.wmd = wmd;
    return add(ms, h, {}, 0);
  }

  const std::deque<OwnedMessage>& all() const { return msgs_; }
  std::vector<const Message*> messages() const {
    std::vector<const Message*> v;
    for (const OwnedMessage& o : msgs_) v.push_back(&o.msg);
    return v;
  }

 private:
  const Message& add(std::uint64_t ms, const LnetHeaderSpec& h, const std::vector<std::uint8_t>& payload,
                     std::uint32_t payload_len) {
    RecordSpec r;
    r.seq = ++seq_;
    r.payload_len = payload_len;
    r.hook = LNETCAP_HOOK_LNET_FINALIZE;
    switch (seen_) {
      case Seen::kRouter:
        r.direction = LNETCAP_DIR_FORWARD;
        r.local = router_;
        r.peer = h.dst;
        break;
      default: {
        const Nid me = seen_ == Seen::kClient ? client_ : server_;
        r.direction = h.src == me ? LNETCAP_DIR_SEND : LNETCAP_DIR_RECV;
        r.local = me;
        r.peer = h.src == me ? h.dst : h.src;
      }
    }
    msgs_.push_back(make_message(r, h, payload, 1700000000000000000ULL + ms * kMs));
    return msgs_.back().msg;
  }

  Nid client_, server_, router_;
  Seen seen_;
  std::uint64_t seq_ = 0;
  std::deque<OwnedMessage> msgs_;  // a deque: a Message points into its own bytes
};

}  // namespace lnetcap::test
