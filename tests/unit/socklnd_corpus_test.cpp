// SPDX-License-Identifier: GPL-2.0-or-later
// The real captures in tests/data/corpus (two Lustre 2.16.1 nodes, socklnd
// over TCP port 988; see its README.md for the counts quoted here) read
// through open_socklnd_file: every message accounted for, no byte left over.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "error.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"
#include "message.h"
#include "options.h"
#include "record.h"
#include "socklnd/socklnd_source.h"

namespace lnetcap {
namespace {

struct Read {
  std::vector<Message> msgs;
  std::vector<std::vector<std::uint8_t>> bytes;  // owns what msgs point into
  std::map<std::string, std::uint64_t> stats;
  std::size_t interfaces = 0;
};

Read read_corpus(const char* name, std::optional<std::uint32_t> snaplen = {}) {
  std::string path = std::string(LNETCAP_CORPUS_DIR) + "/" + name;
  if (!std::filesystem::exists(path)) throw std::runtime_error("missing " + path);
  Options opts;
  opts.read_file = path;
  opts.snaplen = snaplen;
  auto src = open_socklnd_file(opts);
  Read r;
  CapturedRecord rec;
  while (src->next(rec)) {
    r.bytes.emplace_back(rec.bytes.begin(), rec.bytes.end());
  }
  for (std::size_t i = 0; i < r.bytes.size(); ++i) {
    std::string why;
    auto v = parse_record(r.bytes[i], &why);
    if (!v) throw std::runtime_error(why);
    r.msgs.push_back(decode_message(*v, 0, 0));
  }
  for (auto& [k, v] : src->stats().details) r.stats[k] = v;
  r.interfaces = src->interfaces().size();
  return r;
}

// The corpus ships with the repository (tests/data/corpus): a missing file
// is a broken checkout, so it fails the case instead of skipping it.
#define REQUIRE_CORPUS(file)                                                  \
  ASSERT_TRUE(std::filesystem::exists(std::string(LNETCAP_CORPUS_DIR) + "/" + (file))) \
      << "corpus file " << (file) << " missing from tests/data/corpus"

TEST(SocklndCorpus, LnetSocklndEveryMessageAccountedFor) {
  REQUIRE_CORPUS("lnet-socklnd.pcap");
  Read r = read_corpus("lnet-socklnd.pcap");
  std::map<std::uint32_t, int> by_type;
  for (const auto& m : r.msgs) {
    ++by_type[m.lnet.type];
    EXPECT_EQ(m.rec.hdr.hook, LNETCAP_HOOK_SOCKLND_STREAM);
    EXPECT_EQ(m.rec.hdr.flags, 0u);
    EXPECT_EQ(m.rec.hdr.direction, LNETCAP_DIR_WIRE);
    EXPECT_EQ(m.rec.hdr.payload_caplen, std::min<std::uint32_t>(1024, m.lnet.payload_length));
    // One hop, no routers: the header's source is the sending end.
    EXPECT_EQ(m.rec.hdr.local_nid, m.lnet.src_nid);
    EXPECT_EQ(m.rec.hdr.peer_nid, m.lnet.dest_nid);
  }
  EXPECT_EQ(r.msgs.size(), 2910u);
  EXPECT_EQ(by_type[LNETCAP_MSG_PUT], 1928);
  EXPECT_EQ(by_type[LNETCAP_MSG_GET], 490);
  EXPECT_EQ(by_type[LNETCAP_MSG_REPLY], 490);
  EXPECT_EQ(by_type[LNETCAP_MSG_ACK], 2);
  EXPECT_EQ(r.stats["socklnd connection requests"], 3u);
  EXPECT_EQ(r.stats["socklnd HELLOs V3"], 6u);
  EXPECT_EQ(r.stats["socklnd NOOPs"], 1u);
  EXPECT_EQ(r.stats["socklnd LNet messages"], 2910u);
  // "with no bytes left over"
  EXPECT_EQ(r.stats["socklnd resynchronisations"], 0u);
  EXPECT_EQ(r.stats["socklnd bytes skipped while resynchronising"], 0u);
  EXPECT_EQ(r.stats["socklnd streams ending inside a message"], 0u);
  EXPECT_EQ(r.stats["tcp gaps (data not captured)"], 0u);
  // Three connections (control 1023, bulk_in 1022, bulk_out 1021); an
  // interface appears with a connection's first LNet message, and the
  // bulk_in connection carried none.
  EXPECT_EQ(r.interfaces, 2u);
}

TEST(SocklndCorpus, LustreFsAllPtlrpcMessagesWithTheirOpcodes) {
  REQUIRE_CORPUS("lustre-fs-part1.pcap");
  Read r = read_corpus("lustre-fs-part1.pcap");
  // The corpus README's list, from Wireshark 4.0's built-in dissectors.
  const std::map<std::string, int> expected = {
      {"LDLM_ENQUEUE", 21},
      {"LDLM_CANCEL", 4},
      {"MGS_CONNECT", 1},
      {"MGS_CONFIG_READ", 1},
      {"LLOG_ORIGIN_HANDLE_CREATE", 3},
      {"LLOG_ORIGIN_HANDLE_NEXT_BLOCK", 2},
      {"LLOG_ORIGIN_HANDLE_READ_HEADER", 2},
      {"MDS_CONNECT", 1},
      {"MDS_GET_ROOT", 1},
      {"MDS_GETATTR", 1},
      {"MDS_STATFS", 4},
      {"MDS_CLOSE", 7},
      {"MDS_REINT", 1},
      {"MDS_READPAGE", 1},
      {"MDS_SYNC", 1},
      {"OST_CONNECT", 1},
      {"OST_STATFS", 1},
      {"OST_SYNC", 1},
      {"OST_WRITE", 4},
      {"OST_READ", 1},
      {"OBD_PING", 5},
      {"SEQ_QUERY", 1},
  };
  std::map<std::string, int> requests, replies;
  int rpcs = 0;
  for (const auto& m : r.msgs) {
    if (!m.rpc.present) continue;
    ++rpcs;
    const char* op = opcode_name(m.rpc.opc);
    ASSERT_NE(op, nullptr) << m.rpc.opc;
    if (m.rpc.type == LNETCAP_PTL_RPC_MSG_REQUEST) ++requests[op];
    else if (m.rpc.type == LNETCAP_PTL_RPC_MSG_REPLY) ++replies[op];
    else ADD_FAILURE() << "unexpected RPC type " << m.rpc.type;
  }
  EXPECT_EQ(rpcs, 130);
  EXPECT_EQ(requests, expected);
  EXPECT_EQ(replies, expected);
  EXPECT_EQ(r.stats["socklnd resynchronisations"], 0u);
  EXPECT_EQ(r.stats["socklnd bytes skipped while resynchronising"], 0u);
  EXPECT_EQ(r.stats["socklnd streams ending inside a message"], 0u);
}

TEST(SocklndCorpus, SnaplenZeroKeepsEveryHeader) {
  REQUIRE_CORPUS("lnet-socklnd.pcap");
  Read r = read_corpus("lnet-socklnd.pcap", 0);
  EXPECT_EQ(r.msgs.size(), 2910u);
  for (const auto& m : r.msgs) EXPECT_EQ(m.rec.payload.size(), 0u);
}

TEST(SocklndCorpus, UnreadableFileIsAClearError) {
  Options opts;
  opts.read_file = "/nonexistent/x.pcap";
  try {
    open_socklnd_file(opts);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.pcap"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lnetcap
