// SPDX-License-Identifier: GPL-2.0-or-later
// include/lnetcap/rpc_formats.h against Lustre's own request formats:
// tests/data/layout-extract-<tag>.txt, written from lustre/ptlrpc/layout.c
// by scripts/layout-extract.py.  A release that adds, drops or reorders a
// buffer fails here instead of being misread (and wrongly anonymized).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lnetcap/rpc_formats.h"

namespace {

struct Extracted {
  std::string opc;  // "-" or a number
  std::vector<std::string> req, rep;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  return out;
}

std::map<std::string, Extracted> read_extract(const std::filesystem::path& p) {
  std::map<std::string, Extracted> out;
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line[0] == '@') continue;
    std::stringstream ls(line);
    std::string name, opc, req, rep;
    ls >> name >> opc >> req >> rep;
    out[name] = {opc.substr(4), split(req.substr(4)), split(rep.substr(4))};
  }
  return out;
}

const char* rmf_name(unsigned k) {
  static const char* const kNames[] = {
      "NONE",
#define LNETCAP_X_(name) #name,
      LNETCAP_RMF_LIST(LNETCAP_X_)
#undef LNETCAP_X_
  };
  return k < LNETCAP_RMF_COUNT ? kNames[k] : "?";
}

std::vector<std::string> names(const unsigned char* list) {
  std::vector<std::string> out;
  for (int i = 0; i < LNETCAP_RPC_FORMAT_MAX_BUFS && list[i] != LNETCAP_RMF_NONE; ++i)
    out.push_back(rmf_name(list[i]));
  return out;
}

// "v2_17_57" -> LNETCAP_LUSTRE_V(2, 17, 57)
unsigned tag_version(const std::string& tag) {
  unsigned a = 0, b = 0, c = 0;
  std::sscanf(tag.c_str(), "v%u_%u_%u", &a, &b, &c);
  return LNETCAP_LUSTRE_V(a, b, c);
}

std::vector<std::filesystem::path> extracts() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(LNETCAP_SOURCE_DIR "/tests/data"))
    if (e.path().filename().string().rfind("layout-extract-", 0) == 0) out.push_back(e.path());
  return out;
}

}  // namespace

// Every release's formats, buffer by buffer, and the opcode its handler
// table gives them; no row the release lacks, none twice.
TEST(RpcFormats, MatchLustreLayoutExtracts) {
  const auto files = extracts();
  ASSERT_GE(files.size(), 4u) << "tests/data/layout-extract-*.txt (2.15, 2.16, 2.17, master)";
  for (const auto& file : files) {
    const std::string tag = file.stem().string().substr(std::strlen("layout-extract-"));
    const unsigned v = tag_version(tag);
    const auto lustre = read_extract(file);
    ASSERT_GT(lustre.size(), 90u) << file;
    std::set<std::string> seen;
    for (const auto& f : lnetcap_rpc_formats) {
      if (f.since > v || (f.until != 0 && v >= f.until)) continue;
      SCOPED_TRACE(tag + " RQF_" + f.name);
      EXPECT_TRUE(seen.insert(f.name).second) << "two rows for one release";
      const auto it = lustre.find(f.name);
      if (it == lustre.end()) {
        ADD_FAILURE() << "not a format of " << tag;
        continue;
      }
      EXPECT_EQ(names(f.req), it->second.req);
      EXPECT_EQ(names(f.rep), it->second.rep);
      if (it->second.opc != "-") {
        EXPECT_EQ(std::to_string(f.opc), it->second.opc);
      }
    }
    for (const auto& [name, _] : lustre) EXPECT_TRUE(seen.count(name)) << tag << ": RQF_" << name << " missing";
  }
}

// "@reint 0x8 MDS_REINT_UNLINK": the formats the MDT picks inside a handler.
struct Selector {
  std::string kind, rqf;
  unsigned value;
};
std::vector<Selector> read_selectors(const std::filesystem::path& p) {
  std::vector<Selector> out;
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != '@') continue;
    std::stringstream ls(line.substr(1));
    Selector s;
    std::string value;
    ls >> s.kind >> value >> s.rqf;
    s.value = static_cast<unsigned>(std::stoul(value, nullptr, 0));
    out.push_back(s);
  }
  return out;
}

// The selector of every row the MDT picks by rr_opcode or intent is the
// one mdt_handler.c uses, in every release.
TEST(RpcFormats, SelectorsMatchTheMdtHandlers) {
  for (const auto& file : extracts()) {
    const auto sels = read_selectors(file);
    ASSERT_GE(sels.size(), 15u) << file;
    for (const auto& s : sels) {
      SCOPED_TRACE(file.filename().string() + " @" + s.kind + " RQF_" + s.rqf);
      bool found = false;
      for (const auto& f : lnetcap_rpc_formats) {
        if (s.rqf != f.name) continue;
        found = true;
        if (s.kind == "reint") {
          EXPECT_EQ(f.sel_kind, LNETCAP_SEL_REINT);
          EXPECT_TRUE(lnetcap_rpc_format_matches(&f, LNETCAP_OPC_MDS_REINT, 1, s.value));
        } else if (s.kind == "intent") {
          EXPECT_EQ(f.sel_kind, LNETCAP_SEL_INTENT);
          EXPECT_EQ(f.sel & s.value, s.value) << "intent bits";
        } else {  // intent_reint: an open intent's own format
          EXPECT_EQ(f.sel_kind, LNETCAP_SEL_INTENT);
          EXPECT_NE(f.sel & (LNETCAP_ITF_OPEN | LNETCAP_ITF_CREAT), 0u);
        }
      }
      EXPECT_TRUE(found);
    }
  }
}

// Selectors name the opcodes that carry them; whole messages start with
// the ptlrpc_body, batch items do not.
TEST(RpcFormats, RowsAreConsistent) {
  for (const auto& f : lnetcap_rpc_formats) {
    SCOPED_TRACE(f.name);
    if (f.sel_kind == LNETCAP_SEL_REINT) {
      EXPECT_EQ(f.opc, unsigned{LNETCAP_OPC_MDS_REINT});
    }
    if (f.sel_kind == LNETCAP_SEL_INTENT) {
      EXPECT_EQ(f.opc, unsigned{LNETCAP_OPC_LDLM_ENQUEUE});
    }
    const bool whole = f.sel_kind != LNETCAP_SEL_BATCH_ITEM;
    EXPECT_EQ(f.req[0] == LNETCAP_RMF_PTLRPC_BODY, whole);
    EXPECT_EQ(f.rep[0] == LNETCAP_RMF_PTLRPC_BODY, whole);
  }
}

// The one answer to "is buffer 1 an ldlm_request?" (was two opcode ranges).
TEST(RpcFormats, DlmRequestOpcodes) {
  std::set<unsigned> with;
  for (unsigned opc = 0; opc < 2000; ++opc)
    if (lnetcap_rpc_has_dlm_request(opc)) with.insert(opc);
  EXPECT_EQ(with, (std::set<unsigned>{LNETCAP_OPC_LDLM_ENQUEUE, LNETCAP_OPC_LDLM_CONVERT,
                                      LNETCAP_OPC_LDLM_CANCEL, LNETCAP_OPC_LDLM_BL_CALLBACK,
                                      LNETCAP_OPC_LDLM_CP_CALLBACK, LNETCAP_OPC_LDLM_GL_CALLBACK}));
}

// A buffer whose kind the candidate formats disagree on is unknown.
TEST(RpcFormats, BufferKindNeedsAgreement) {
  // OST_WRITE: ..., NIOBUF_REMOTE, CAPA1, SHORT_IO.
  EXPECT_EQ(lnetcap_rpc_buffer_kind(LNETCAP_OPC_OST_WRITE, 0, 0, 0, 3), LNETCAP_RMF_NIOBUF_REMOTE);
  EXPECT_EQ(lnetcap_rpc_buffer_kind(LNETCAP_OPC_OST_WRITE, 0, 0, 0, 5), LNETCAP_RMF_SHORT_IO);
  // A REINT_CREATE request: buffer 4 is EADATA or SYMTGT by the mode.
  EXPECT_EQ(lnetcap_rpc_buffer_kind(LNETCAP_OPC_MDS_REINT, 1, LNETCAP_REINT_CREATE, 0, 3), LNETCAP_RMF_NAME);
  EXPECT_EQ(lnetcap_rpc_buffer_kind(LNETCAP_OPC_MDS_REINT, 1, LNETCAP_REINT_CREATE, 0, 4), LNETCAP_RMF_NONE);
  // An enqueue reply: DLM_REP, then an LVB or an mdt_body by the intent.
  EXPECT_EQ(lnetcap_rpc_buffer_kind(LNETCAP_OPC_LDLM_ENQUEUE, 0, 0, 1, 1), LNETCAP_RMF_DLM_REP);
  EXPECT_EQ(lnetcap_rpc_buffer_kind(LNETCAP_OPC_LDLM_ENQUEUE, 0, 0, 1, 2), LNETCAP_RMF_NONE);
  EXPECT_EQ(lnetcap_rpc_buffer_kind(LNETCAP_OPC_LDLM_ENQUEUE, 1, LNETCAP_ITF_GETATTR, 0, 3), LNETCAP_RMF_MDT_BODY);
  // No format: LDLM_SET_INFO, an opcode nobody defines.
  EXPECT_EQ(lnetcap_rpc_buffer_kind(LNETCAP_OPC_LDLM_SET_INFO, 0, 0, 0, 1), LNETCAP_RMF_NONE);
  EXPECT_EQ(lnetcap_rpc_buffer_kind(4242, 0, 0, 0, 0), LNETCAP_RMF_NONE);
}
