// SPDX-License-Identifier: GPL-2.0-or-later
// The in-kernel clauses made from filters (filter/kernel_clauses.h: the
// direct capture's fixed table and lnetcapd's subscriber table), tested
// with the very code the BPF programs run (bpf/lnetcap_clause.h) on every
// record of the samples/ captures:
// the clauses accept every record the filter accepts (soundness), and
// reject what a filter made only of kernel-testable terms rejects.
#include <gtest/gtest.h>

#include <cstring>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "file_source.h"
#include "kernel_view.h"
#include "filter/filter.h"
#include "filter/kernel_clauses.h"
#include "live/subfilter_writer.h"
#include "lnetcap_clause.h"
#include "message.h"
#include "record.h"

namespace lnetcap {
namespace {

using filter::ClauseOptions;
using filter::Filter;
using filter::KernelClauseSet;

// A record as the kernel makes it: the 96-byte in-memory LNet header
// (what the programs test) and the message the daemon decodes from it.
struct KernelRecord {
  std::vector<std::uint8_t> bytes;  // the whole record (nid16 header)
  alignas(4) std::uint8_t hdr[LNETCAP_HDR_NID16_LEN];
  alignas(4) std::uint8_t local[sizeof(lnetcap_nid)];  // rec_hdr.local_nid
  std::uint8_t direction;
  Message msg;
};

std::vector<std::unique_ptr<KernelRecord>> load_samples() {
  std::vector<std::unique_ptr<KernelRecord>> out;
  for (const char* name : {"lustre-fs-part1.pcapng", "lnet-socklnd.pcapng", "synthetic-rpcs.pcapng"}) {
    LnetcapFileSource src(std::string(LNETCAP_SOURCE_DIR) + "/samples/" + name);
    CapturedRecord rec;
    while (src.next(rec)) {
      std::string why;
      auto v = parse_record(rec.bytes, &why);
      if (!v || v->lnet_header.empty()) continue;  // the kernel always has a header
      auto k = std::make_unique<KernelRecord>();
      const std::vector<std::uint8_t> h = test::nid16_header(*v);
      k->bytes = test::kernel_record(*v);
      auto kv = parse_record(ByteSpan(k->bytes), &why);
      EXPECT_TRUE(kv) << why;
      if (!kv) continue;
      std::memcpy(k->hdr, h.data(), h.size());
      k->direction = kv->hdr.direction;
      kv->hdr.local_nid.to_lnet_nid(k->local);
      k->msg = decode_message(*kv, rec.ts_ns, rec.interface_id);
      // The conversion keeps what filters look at.
      const Message orig = decode_message(*v, rec.ts_ns, rec.interface_id);
      EXPECT_EQ(k->msg.lnet.type, orig.lnet.type);
      EXPECT_EQ(k->msg.lnet.src_nid, orig.lnet.src_nid);
      EXPECT_EQ(k->msg.lnet.dest_nid, orig.lnet.dest_nid);
      EXPECT_EQ(k->msg.lnet.portal, orig.lnet.portal);
      EXPECT_EQ(k->msg.rpc.opc, orig.rpc.opc);
      out.push_back(std::move(k));
    }
  }
  return out;
}

const std::vector<std::unique_ptr<KernelRecord>>& samples() {
  static const auto records = load_samples();
  return records;
}

bool kernel_passes(const lnetcap_subfilter& table, const KernelRecord& r) {
  return lnetcap_subfilter_match(&table, reinterpret_cast<const __u32*>(r.hdr), r.direction,
                                 reinterpret_cast<const __u32*>(r.local)) != 0;
}

lnetcap_subfilter table_for(const KernelClauseSet& set) {
  lnetcap_subfilter t{};
  filter::fill_table(set, t);
  return t;
}

const char* const kSeventeenPortals =
    "portal 1 or portal 2 or portal 3 or portal 4 or portal 5 or portal 6 or portal 7 or "
    "portal 8 or portal 9 or portal 10 or portal 11 or portal 12 or portal 13 or portal 14 or "
    "portal 15 or portal 16 or portal 17";

// Filters over the samples' NIDs, nets, portals, types, directions and
// RPC fields, with every operator and nesting the approximation handles.
const char* const kFilters[] = {
    "type put", "type get", "type ack", "type reply", "type != put", "not type put",
    "type > 1", "type <= 2", "type >= 40", "portal 0", "portal != 0", "portal MDS_REQUEST",
    "portal OST_IO", "portal > 10", "not portal 0", "opcode LDLM_ENQUEUE", "opcode OBD_PING",
    "opcode OST_WRITE or type get", "rpc request", "rpc reply and portal 10", "status != 0",
    "status == -2", "jobid dd.500", "jobid", "uid 0", "xid 0", "xid > 1000", "len > 100",
    "len < 300 and type put", "nid 10.0.3.1@tcp", "nid 10.0.3.2@tcp", "src nid 10.0.3.2@tcp",
    "dst nid 10.0.3.1@tcp and type put", "not nid 10.0.3.1@tcp", "nid 192.168.1.9@tcp",
    "net tcp", "net kfi", "net o2ib", "src net tcp", "dst net tcp1", "not net tcp",
    "ni 10.0.3.1@tcp", "ni 10.0.3.2@tcp", "ni tcp", "ni kfi", "not ni 10.0.3.1@tcp",
    "not ni tcp", "ni 10.0.3.1@tcp or type get", "(ni kfi and type put) or dir recv",
    "ni 10.0.3.1@tcp and ni 10.0.3.2@tcp", "ni tcp and ni kfi", "dir send", "dir recv", "dir forward", "dir wire", "not dir wire",
    "drop", "drop no-match", "not drop", "not drop refused", "health OK", "health != OK",
    "retries > 0", "queue > 1ms", "rc < 0", "pid 0",
    "(type put or type get) and nid 10.0.3.2@tcp",
    "not (type put and portal 0)", "not (nid 10.0.3.1@tcp or type ack)",
    "not (type put or dir wire)", "(portal 4 or portal 10) and (src nid 10.0.3.2@tcp or type get)",
    "type put and type get", "nid 10.0.3.1@tcp and not nid 10.0.3.1@tcp",
    "src nid 10.0.3.1@tcp and src nid 10.0.3.2@tcp", "nid 10.0.3.1@tcp and nid 10.0.3.2@tcp",
    "net tcp and net kfi", "opcode LDLM_ENQUEUE or opcode OBD_PING or type ack",
    kSeventeenPortals,
    "(type put or type get or type ack) and (dir send or dir recv or dir wire) and "
    "(portal 4 or portal 10 or portal 0)",
    "nid fe80::1@tcp", "not not type get", "!(type get || type reply) && dir wire",
};

TEST(KernelClauses, AcceptEveryRecordTheFilterAccepts) {
  ASSERT_GT(samples().size(), 3000u);
  std::size_t rejected_somewhere = 0;
  for (const char* text : kFilters) {
    const Filter f = Filter::parse(text);
    const KernelClauseSet set = filter::kernel_clauses(f);
    EXPECT_LE(set.clauses.size(), LNETCAP_SUB_CLAUSES) << text;
    const lnetcap_subfilter table = table_for(set);
    for (const auto& r : samples()) {
      const bool kernel = kernel_passes(table, *r);
      if (f.matches(r->msg)) {
        ASSERT_TRUE(kernel) << "'" << text << "' matches a record its clauses reject ("
                            << msg_type_name(r->msg.lnet.type) << " " << r->msg.lnet.src_nid.to_string()
                            << " -> " << r->msg.lnet.dest_nid.to_string() << ")";
      }
      if (!kernel) ++rejected_somewhere;
    }
  }
  // The clauses do leave records in the kernel.
  EXPECT_GT(rejected_somewhere, 10000u);
}

// Random nestings of and/or/not over the samples' values (a fixed seed, so
// the same filters every run).
std::string random_filter(std::mt19937& rng, int depth) {
  static const char* const terms[] = {
      "type put", "type get", "type ack", "type reply", "type != get", "type > 1", "type >= 31",
      "portal 0", "portal 12", "portal != 4", "portal OST_IO", "opcode LDLM_ENQUEUE",
      "opcode OBD_PING", "rpc request", "rpc reply", "status == -2", "xid > 5", "len > 100",
      "nid 10.0.3.1@tcp", "nid 10.0.3.2@tcp", "src nid 10.0.3.2@tcp", "dst nid 10.0.3.1@tcp",
      "net tcp", "net kfi", "src net tcp", "dst net tcp1", "dir send", "dir recv", "dir wire",
      "dir forward", "drop", "drop no-match", "health OK", "ni 10.0.3.1@tcp", "ni 10.0.3.2@tcp",
      "ni tcp", "ni kfi"};
  const unsigned r = rng() % 100;
  if (depth > 3 || r < 35) return terms[rng() % std::size(terms)];
  if (r < 50) return "not " + random_filter(rng, depth + 1);
  const char* op = r < 75 ? " and " : " or ";
  return "(" + random_filter(rng, depth + 1) + op + random_filter(rng, depth + 1) + ")";
}

TEST(KernelClauses, RandomFiltersAcceptEveryRecordTheyAccept) {
  std::mt19937 rng(14);
  std::size_t narrowed = 0;
  for (int i = 0; i < 400; ++i) {
    const std::string text = random_filter(rng, 0);
    const Filter f = Filter::parse(text);
    const KernelClauseSet set = filter::kernel_clauses(f);
    narrowed += !set.pass_all;
    const lnetcap_subfilter table = table_for(set);
    for (const auto& r : samples())
      if (f.matches(r->msg) && !kernel_passes(table, *r))
        FAIL() << "'" << text << "' matches a record its clauses reject";
  }
  EXPECT_GT(narrowed, 100u);  // most random filters still leave something in the kernel
}

// Filters made only of terms the kernel tests exactly: the clauses decide
// every record as the filter does.
TEST(KernelClauses, ExactWhereEveryTermIsKernelTestable) {
  const char* const exact[] = {
      "type put", "type get", "type != put", "not type ack", "type > 1", "portal 0",
      "portal MDS_REQUEST", "nid 10.0.3.1@tcp", "src nid 10.0.3.2@tcp",
      "dst nid 10.0.3.1@tcp and type put", "net tcp", "net kfi", "dir send", "dir wire",
      "not dir wire", "drop", "not drop", "(type put or type get) and nid 10.0.3.2@tcp",
      "not (type put or dir wire)", "(portal 4 or portal 12) and (src nid 10.0.3.2@tcp or type get)",
      "type put and type get", "src nid 10.0.3.1@tcp and src nid 10.0.3.2@tcp",
      "!(type get || type reply) && dir wire", "ni 10.0.3.1@tcp", "ni 10.0.3.2@tcp", "ni tcp",
      "ni kfi", "ni 10.0.3.1@tcp or type get", "(ni kfi and type put) or dir recv",
      "ni 10.0.3.2@tcp and (type ack or dir send)", "ni 10.0.3.1@tcp and ni 10.0.3.2@tcp"};
  for (const char* text : exact) {
    const Filter f = Filter::parse(text);
    const KernelClauseSet set = filter::kernel_clauses(f);
    ASSERT_FALSE(set.pass_all) << text;
    const lnetcap_subfilter table = table_for(set);
    std::size_t matched = 0;
    for (const auto& r : samples()) {
      ASSERT_EQ(kernel_passes(table, *r), f.matches(r->msg))
          << "'" << text << "' on " << msg_type_name(r->msg.lnet.type) << " "
          << r->msg.lnet.src_nid.to_string() << " -> " << r->msg.lnet.dest_nid.to_string();
      matched += f.matches(r->msg);
    }
    if (std::string(text).find("and type get") == std::string::npos &&
        std::string(text).find("src nid 10.0.3.1@tcp and") == std::string::npos &&
        std::string(text).find("ni 10.0.3.1@tcp and") == std::string::npos) {
      EXPECT_GT(matched, 0u) << "'" << text << "' matches no sample record: a weak test";
    }
  }
}

// Terms the kernel cannot test still narrow by what they imply.
TEST(KernelClauses, RpcTermsKeepOnlyPutsAndXidsAckPutGet) {
  for (const char* text : {"opcode LDLM_ENQUEUE", "jobid dd.500", "rpc reply", "status != 0"}) {
    const lnetcap_subfilter table = table_for(filter::kernel_clauses(Filter::parse(text)));
    for (const auto& r : samples())
      EXPECT_EQ(kernel_passes(table, *r), r->msg.lnet.type == LNETCAP_MSG_PUT) << text;
  }
  const lnetcap_subfilter xid = table_for(filter::kernel_clauses(Filter::parse("xid 42")));
  for (const auto& r : samples())
    EXPECT_EQ(kernel_passes(xid, *r), r->msg.lnet.type != LNETCAP_MSG_REPLY &&
                                          r->msg.lnet.type != LNETCAP_MSG_HELLO);
}

TEST(KernelClauses, WhatCannotBeTestedPassesEverything) {
  for (const char* text : {"", "len > 100", "health OK", "not ni 10.0.3.1@tcp", "not ni tcp",
                           "ni <?>", "type put or not ni kfi", "not nid 10.0.3.1@tcp",
                           "not portal 0", "queue > 1ms", "type put or pid 7",
                           "drop refused or not drop refused"})
    EXPECT_TRUE(filter::kernel_clauses(Filter::parse(text)).pass_all) << text;
  // More alternatives than the table holds.
  EXPECT_TRUE(filter::kernel_clauses(Filter::parse(kSeventeenPortals)).pass_all);
  ClauseOptions small;
  small.max_clauses = 2;
  EXPECT_TRUE(filter::kernel_clauses(Filter::parse("portal 1 or portal 2 or portal 3"), small).pass_all);
  // A filter that can never match needs nothing from the kernel.
  const KernelClauseSet none = filter::kernel_clauses(Filter::parse("type put and type get"));
  EXPECT_FALSE(none.pass_all);
  EXPECT_TRUE(none.clauses.empty());
}

TEST(KernelClauses, ShapesOfTheClauses) {
  auto clauses = [](const char* text) { return filter::kernel_clauses(Filter::parse(text)).clauses; };
  // One clause, both terms in it.
  auto c = clauses("type put and portal OST_IO and nid 10.0.3.1@tcp");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].type_mask, 1u << LNETCAP_MSG_PUT);
  EXPECT_EQ(c[0].portal, 6u);  // OST_IO
  EXPECT_EQ(c[0].any, Nid::parse("10.0.3.1@tcp"));
  // Types and directions are masks: one clause for an "or" of them.
  c = clauses("type put or type get or not dir drop");
  ASSERT_EQ(c.size(), 2u);
  // A product: (a or b) and (c or d) is four clauses.
  EXPECT_EQ(clauses("(portal 4 or portal 10) and (nid 10.0.3.1@tcp or nid 10.0.3.2@tcp)").size(), 4u);
  // A clause implied by another is left out.
  EXPECT_EQ(clauses("type put or (type put and nid 10.0.3.1@tcp)").size(), 1u);
  // ni: the local NI's NID or net, in every clause of an "and".
  c = clauses("ni 10.0.3.1@tcp and (type get or dir send)");
  ASSERT_EQ(c.size(), 2u);
  for (const auto& x : c) EXPECT_EQ(x.ni, Nid::parse("10.0.3.1@tcp"));
  c = clauses("ni kfi or ni tcp");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].ni_net, Net::parse("kfi"));
  // A NID on a net implies the net; two local NIs never hold together.
  EXPECT_EQ(clauses("ni tcp or ni 10.0.3.1@tcp").size(), 1u);
  EXPECT_TRUE(clauses("ni tcp and ni kfi").empty());
}

// -i narrows every clause of the filter (capture_config's fixed table):
// exactly, whatever the filter's clauses are.
TEST(KernelClauses, RestrictToAnInterface) {
  filter::KernelClause ni;
  ni.ni = Nid::parse("10.0.3.2@tcp");
  auto set = [](const char* text) { return filter::kernel_clauses(Filter::parse(text)); };
  for (const char* text : {"", "type get or dir send", "opcode OBD_PING", "len > 100",
                           "ni 10.0.3.1@tcp", "(ni kfi and type put) or dir recv"}) {
    const Filter with_ni = Filter::parse(std::string("ni 10.0.3.2@tcp and (") +
                                         (*text ? text : "type >= 0") + ")");
    const KernelClauseSet r = filter::restrict_to(set(text), ni);
    EXPECT_FALSE(r.pass_all) << text;
    const lnetcap_subfilter t = table_for(r);
    for (const auto& rec : samples()) {
      // Sound for the filter, exact for -i.
      if (with_ni.matches(rec->msg)) {
        ASSERT_TRUE(kernel_passes(t, *rec)) << text;
      }
      if (!(rec->msg.rec.hdr.local_nid == *ni.ni)) {
        ASSERT_FALSE(kernel_passes(t, *rec)) << text;
      }
    }
  }
  // Without -i nothing changes.
  EXPECT_EQ(filter::restrict_to(set("type get"), filter::KernelClause{}), set("type get"));
  EXPECT_TRUE(filter::restrict_to(KernelClauseSet::everything(), filter::KernelClause{}).pass_all);
  // -i alone is one clause; "ni" of another NI leaves none.
  EXPECT_EQ(filter::restrict_to(KernelClauseSet::everything(), ni).clauses.size(), 1u);
  EXPECT_TRUE(filter::restrict_to(set("ni 10.0.3.1@tcp"), ni).clauses.empty());
  // Exact on the samples: -i 10.0.3.2@tcp with "type get or dir send".
  const lnetcap_subfilter t = table_for(filter::restrict_to(set("type get or dir send"), ni));
  const Filter both = Filter::parse("ni 10.0.3.2@tcp and (type get or dir send)");
  std::size_t kept = 0;
  for (const auto& rec : samples()) {
    ASSERT_EQ(kernel_passes(t, *rec), both.matches(rec->msg));
    kept += both.matches(rec->msg);
  }
  EXPECT_GT(kept, 0u);
}

TEST(KernelClauses, PseudonymousFiltersTestNoNid) {
  ClauseOptions pseudo;
  pseudo.nids_are_pseudonyms = true;
  for (const char* text : kFilters) {
    const Filter f = Filter::parse(text);
    const KernelClauseSet set = filter::kernel_clauses(f, pseudo);
    for (const auto& c : set.clauses) EXPECT_FALSE(c.src || c.dst || c.any || c.ni) << text;
    // Nets, types, portals and directions survive anonymization.
    if (std::string(text).find("nid") == std::string::npos && std::string(text).find("ni ") == std::string::npos) {
      EXPECT_EQ(set, filter::kernel_clauses(f)) << text;
    }
  }
  EXPECT_EQ(filter::kernel_clauses(Filter::parse("nid 10.0.3.1@tcp"), pseudo), KernelClauseSet::everything());
}

TEST(KernelClauses, UnionOfSubscribers) {
  auto set = [](const char* text) { return filter::kernel_clauses(Filter::parse(text)); };
  EXPECT_TRUE(filter::unite({set("type get"), set(""), set("nid 10.0.3.1@tcp")}).pass_all);
  EXPECT_EQ(filter::unite({set("type get"), set("type get and nid 10.0.3.1@tcp")}), set("type get"));
  EXPECT_EQ(filter::unite({}).clauses.size(), 0u);
  EXPECT_FALSE(filter::unite({}).pass_all);
  const KernelClauseSet both = filter::unite({set("opcode OBD_PING"), set("dir send and type ack")});
  ASSERT_EQ(both.clauses.size(), 2u);
  // The union passes exactly what either passes.
  const lnetcap_subfilter u = table_for(both), a = table_for(set("opcode OBD_PING")),
                          b = table_for(set("dir send and type ack"));
  for (const auto& r : samples())
    EXPECT_EQ(kernel_passes(u, *r), kernel_passes(a, *r) || kernel_passes(b, *r));
  std::vector<KernelClauseSet> many;
  for (int p = 1; p <= 17; ++p) many.push_back(set(("portal " + std::to_string(p)).c_str()));
  EXPECT_TRUE(filter::unite(many).pass_all);
}

// The writer's sequence lock: gen is even and grows by two per change; a
// table that would not change is not written.
TEST(SubfilterWriter, PublishesUnderTheSequenceLock) {
  lnetcap_subfilter shared{};
  live::SubfilterWriter w(&shared);
  const KernelClauseSet gets = filter::kernel_clauses(Filter::parse("type get"));
  EXPECT_TRUE(w.publish(gets));
  EXPECT_EQ(shared.gen, 2u);
  EXPECT_EQ(shared.count, 1u);
  EXPECT_FALSE(w.publish(gets));
  EXPECT_EQ(shared.gen, 2u);
  for (const auto& r : samples())
    EXPECT_EQ(kernel_passes(shared, *r), r->msg.lnet.type == LNETCAP_MSG_GET);
  EXPECT_TRUE(w.publish(KernelClauseSet::everything()));
  EXPECT_EQ(shared.gen, 4u);
  EXPECT_EQ(shared.pass_all, 1u);
  EXPECT_TRUE(w.publish(KernelClauseSet{}));
  EXPECT_EQ(shared.gen, 6u);
  for (const auto& r : samples()) EXPECT_FALSE(kernel_passes(shared, *r));
  EXPECT_EQ(w.updates(), 3u);
}

}  // namespace
}  // namespace lnetcap
