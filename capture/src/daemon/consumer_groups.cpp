// SPDX-License-Identifier: GPL-2.0-or-later
#include "consumer_groups.h"

#include <algorithm>

#include "consumer_group.h"
#include "log_text.h"

namespace lnetcap::daemon {

std::string ConsumerGroups::join_problem(const std::string& group_id, const std::string& name,
                                         const std::string& filter_text, bool anonymized) const {
  auto it = groups_.find(group_id);
  if (it == groups_.end()) return "";
  const Group& g = it->second;
  if (g.ids.size() >= kMaxGroupMembers)
    return "consumer group '" + name + "' has " + std::to_string(kMaxGroupMembers) +
           " members, the most one group may have";
  if (g.filter_text != filter_text)
    return "the members of consumer group '" + name + "' use the filter '" + log_text(g.filter_text) +
           "': a member must use the same filter (each record goes to exactly one member)";
  if (g.anonymized != anonymized)
    return std::string("the members of consumer group '") + name + "' are " + (g.anonymized ? "" : "not ") +
           "anonymized by lnetcapd and this subscriber would " + (anonymized ? "" : "not ") +
           "be: a group's members see the same records";
  return "";
}

void ConsumerGroups::join(const std::string& group_id, const std::string& id, std::uint64_t token,
                          const std::string& filter_text, bool anonymized) {
  Group& g = groups_[group_id];
  if (g.ids.empty()) {
    g.filter_text = filter_text;
    g.anonymized = anonymized;
    ++(anonymized ? anonymized_groups_ : plain_groups_);
  }
  g.ids.push_back(id);
  g.tokens.push_back(token);
  g.decided_for = 0;  // the choice for the current record (if any) is made again
}

void ConsumerGroups::leave(const std::string& group_id, const std::string& id, const Departure& how) {
  auto it = groups_.find(group_id);
  if (it == groups_.end()) return;
  Group& g = it->second;
  const auto at = std::find(g.ids.begin(), g.ids.end(), id);
  if (at == g.ids.end()) return;
  g.tokens.erase(g.tokens.begin() + (at - g.ids.begin()));
  g.ids.erase(at);
  g.decided_for = 0;
  Departed& d = g.departed;
  ++d.members;
  d.sent += how.sent;
  d.dropped += how.dropped;
  if (!how.said_bye) {
    ++d.without_bye;
    d.unconfirmed += how.sent;
  }
  if (g.ids.empty()) {
    --(g.anonymized ? anonymized_groups_ : plain_groups_);
    groups_.erase(it);
  }
}

void ConsumerGroups::leave(const std::string& group_id, const std::string& id) { leave(group_id, id, Departure{}); }

void ConsumerGroups::passed_on(const std::string& group_id, std::uint64_t n) {
  if (auto it = groups_.find(group_id); it != groups_.end()) it->second.departed.passed_on += n;
}

const std::string* ConsumerGroups::member_for(const std::string& group_id, std::uint64_t key) const {
  auto it = groups_.find(group_id);
  if (it == groups_.end() || it->second.ids.empty()) return nullptr;
  return &it->second.ids[choose(it->second, key)];
}

std::vector<std::string> ConsumerGroups::group_ids() const {
  std::vector<std::string> ids;
  for (const auto& [id, g] : groups_) ids.push_back(id);
  return ids;
}

void ConsumerGroups::set_anonymized(const std::string& group_id) {
  auto it = groups_.find(group_id);
  if (it == groups_.end() || it->second.anonymized) return;
  it->second.anonymized = true;
  --plain_groups_;
  ++anonymized_groups_;
}

std::size_t ConsumerGroups::members(const std::string& group_id) const {
  auto it = groups_.find(group_id);
  return it == groups_.end() ? 0 : it->second.ids.size();
}

std::size_t ConsumerGroups::choose(const Group& g, std::uint64_t key) { return pick_member(key, g.tokens); }

}  // namespace lnetcap::daemon
