// SPDX-License-Identifier: GPL-2.0-or-later
// fuzz_filter - the filter language (filter.h) and the NID/net syntax it
// uses.  Bad text must end in lnetcap::Error.  Text that parses must
// survive a round trip: Filter::to_string() parses back to a filter with
// the same text that matches the same messages, and a NID or net prints
// as text that parses back to the same value.  The in-kernel clauses made
// from it (filter/kernel_clauses.h) accept every sample message it accepts.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "error.h"
#include "filter/filter.h"
#include "filter/kernel_clauses.h"
#include "fuzz_support.h"
#include "kernel_view.h"
#include "lnetcap_clause.h"
#include "record.h"
#include "nid.h"

using namespace lnetcap;

namespace {

void check_round_trip(const filter::Filter& f) {
  const std::string text = f.to_string();
  filter::Filter again;
  try {
    again = filter::Filter::parse(text);
  } catch (const Error& e) {
    std::fprintf(stderr, "to_string() gave '%s', which does not parse: %s\n", text.c_str(), e.what());
    std::abort();
  }
  if (again.to_string() != text) {
    std::fprintf(stderr, "'%s' reparses as '%s'\n", text.c_str(), again.to_string().c_str());
    std::abort();
  }
  for (const auto& m : fuzz::sample_messages())
    if (f.matches(m.msg) != again.matches(m.msg)) {
      std::fprintf(stderr, "'%s' matches differently after its round trip\n", text.c_str());
      std::abort();
    }
}

void check_nid_syntax(std::string_view text) {
  if (auto nid = Nid::parse(text)) {
    const auto back = Nid::parse(nid->to_string());
    if (!back || *back != *nid) {
      std::fprintf(stderr, "NID '%s' prints as '%s', which does not parse back\n",
                   std::string(text).c_str(), nid->to_string().c_str());
      std::abort();
    }
  }
  if (auto net = Net::parse(text)) {
    const auto back = Net::parse(net->to_string());
    if (!back || *back != *net) {
      std::fprintf(stderr, "net '%s' prints as '%s', which does not parse back\n",
                   std::string(text).c_str(), net->to_string().c_str());
      std::abort();
    }
  }
}

// The in-kernel clauses (lnetcapd's table and lnetcap's fixed one) must accept every message the filter
// accepts, tested with the programs' own evaluator on each sample message
// as the kernel would hold it.
void check_kernel_clauses(const filter::Filter& f) {
  lnetcap_subfilter table{};
  filter::fill_table(filter::kernel_clauses(f), table);
  for (const auto& m : fuzz::sample_messages()) {
    const std::vector<std::uint8_t> bytes = test::kernel_record(m.msg.rec);
    if (bytes.empty()) continue;
    std::string why;
    const auto view = parse_record(ByteSpan(bytes), &why);
    if (!view) std::abort();
    alignas(4) std::uint8_t hdr[LNETCAP_HDR_NID16_LEN];
    std::memcpy(hdr, view->lnet_header.data(), sizeof(hdr));
    alignas(4) std::uint8_t local[sizeof(lnetcap_nid)];
    view->hdr.local_nid.to_lnet_nid(local);
    const Message k = decode_message(*view, 0, 0);
    if (f.matches(k) &&
        !lnetcap_subfilter_match(&table, reinterpret_cast<const __u32*>(hdr), view->hdr.direction,
                                 reinterpret_cast<const __u32*>(local))) {
      std::fprintf(stderr, "'%s' matches a message its in-kernel clauses reject\n", f.to_string().c_str());
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  check_nid_syntax(text);
  filter::Filter f;
  try {
    f = filter::Filter::parse(text);
  } catch (const Error& e) {
    if (std::string_view(e.what()).empty()) std::abort();  // errors say what was wrong
    return 0;
  }
  check_round_trip(f);
  check_kernel_clauses(f);
  return 0;
}
