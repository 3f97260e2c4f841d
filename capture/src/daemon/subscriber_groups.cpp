// SPDX-License-Identifier: GPL-2.0-or-later
// subscriber_groups.cpp - SubscriberSet's consumer-group members
// (subscriber_set.h, consumer_groups.h): what a member gone without BYE had
// gathered goes to the others, and --status shows the groups.
#include <cinttypes>

#include "log_text.h"
#include "subscriber_set.h"

namespace lnetcap::daemon {

std::pair<std::uint64_t, std::uint64_t> SubscriberSet::pass_on(Subscriber& leaver, std::vector<std::string>& gone) {
  if (leaver.batch_records == 0 || leaver.batch_keys.size() != leaver.batch_records || !last_interfaces_)
    return {0, leaver.batch_records};
  // The batch as the member would have read it: its records, cut at its
  // snap length (a member with a shorter one cuts them again; one with a
  // longer one gets them as they are), each given to the member that takes
  // its key now, numbered as that member's.
  const subscribe::Frames frames{subscribe::encode_batch_header(leaver.batch_records), std::move(leaver.batch)};
  const std::vector<subscribe::BatchEntry> entries = subscribe::decode_batch(frames);
  std::uint64_t passed = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string* to = groups_.member_for(leaver.group_id, leaver.batch_keys[i]);
    if (!to) return {passed, entries.size() - i};
    const subscribe::BatchEntry& e = entries[i];
    CapturedRecord rec;
    rec.ts_ns = e.meta.ts_ns;
    rec.interface_id = e.meta.interface_id;
    rec.bytes = e.record;
    rec.orig_len = e.meta.orig_len;
    rec.epb_flags = e.meta.epb_flags;
    rec.has_drops_before = e.meta.has_drops_before;
    rec.drops_before = e.meta.drops_before;
    for (const ByteSpan& c : e.comments) rec.comments.emplace_back(c.begin(), c.end());
    const std::string id = *to;  // hand() may flush, and a flush never changes the members
    Subscriber& taker = subscribers_.at(id);
    if (!hand(id, taker, rec, interfaces_for(taker, *last_interfaces_), last_stats_, last_watermark_,
              leaver.batch_keys[i]))
      gone.push_back(id);  // still a member: what it holds is passed on when it is removed
    ++passed;
  }
  leaver.batch_records = 0;
  leaver.batch_keys.clear();
  return {passed, 0};
}

GroupTotals SubscriberSet::group_totals() const {
  GroupTotals t;
  const std::vector<std::string> ids = groups_.group_ids();
  t.groups = ids.size();
  for (const auto& gid : ids) t.members += groups_.member_ids(gid).size();
  t.unconfirmed_total = group_unconfirmed_;
  t.passed_on_total = group_passed_on_;
  t.links_given_up_total = plain_keys_.given_up() + pseudonymous_keys_.given_up();
  return t;
}

void SubscriberSet::group_status(subscribe::Status& st, const std::string& user) const {
  auto item = [&](const std::string& name, const std::string& value) { st.items.emplace_back(name, value); };
  std::size_t members = 0, own = 0;
  const std::vector<std::string> ids = groups_.group_ids();
  for (const auto& gid : ids) members += groups_.member_ids(gid).size();
  const std::string prefix = user + "\n";
  for (const auto& gid : ids) own += gid.compare(0, prefix.size(), prefix) == 0;
  item("consumer groups", std::to_string(ids.size()) + " (" + std::to_string(members) + " members), " +
                              std::to_string(own) + " of them yours (only yours are shown)");
  char line[256];
  for (int anonymized = 0; anonymized < 2; ++anonymized) {
    if (!groups_.any(anonymized)) continue;
    const GroupKeyer& k = group_keyer(anonymized);
    std::snprintf(line, sizeof line,
                  "%zu requests, %zu transfers held (at most %zu each); %" PRIu64 " given up before their bulk",
                  k.rpcs(), k.transfers(), GroupKeyer::kMaxRpcs, k.given_up());
    item(anonymized ? "group bulk links (anonymized)" : "group bulk links", line);
  }
  for (const auto& gid : ids) {
    if (gid.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string name = "group '" + log_text(gid.substr(prefix.size())) + "'";
    const auto& d = groups_.departed(gid);
    const auto& member_ids = groups_.member_ids(gid);
    std::snprintf(line, sizeof line,
                  "%zu members; %" PRIu64 " gone (%" PRIu64 " sent, %" PRIu64 " dropped), %" PRIu64
                  " of them without BYE (%" PRIu64 " records sent to them unconfirmed, %" PRIu64
                  " gathered for them passed on)",
                  member_ids.size(), d.members, d.sent, d.dropped, d.without_bye, d.unconfirmed, d.passed_on);
    item(name, line);
    for (std::size_t i = 0; i < member_ids.size(); ++i) {
      const Subscriber& s = subscribers_.at(member_ids[i]);
      std::snprintf(line, sizeof line, "subscriber %" PRIu64 ": %" PRIu64 " sent, %" PRIu64 " dropped", s.number,
                    s.sent, s.dropped);
      item(name + " member " + std::to_string(i + 1), line);
    }
  }
}

}  // namespace lnetcap::daemon
