// SPDX-License-Identifier: GPL-2.0-or-later
// consumer_groups.h - lnetcapd's consumer groups and their members: who may
// join, and which member takes the record being delivered (the choice
// itself: consumer_group.h).
//
// A group belongs to the user who made it (a local uid, a CurveZMQ key, an
// insecure TCP address: the fair-share user of serving_limits.h): another
// user naming the same group makes a group of its own, so nobody can take
// a share of someone else's stream.  Its members use one filter and one
// anonymization, so that a record matches for every member or for none and
// goes to exactly one of them; a join with another filter is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lnetcap::daemon {

class ConsumerGroups {
 public:
  /// Why a subscriber may not join the group `group_id` (its user's group
  /// `name`) with this filter and anonymization ("" when it may).
  std::string join_problem(const std::string& group_id, const std::string& name, const std::string& filter_text,
                           bool anonymized) const;
  /// Adds a member: `id` its routing id, `token` distinct among members
  /// (the subscriber's number: never reused, so a returning subscriber is
  /// a new member).
  void join(const std::string& group_id, const std::string& id, std::uint64_t token, const std::string& filter_text,
            bool anonymized);
  /// Removes a member; a group without members is gone.
  void leave(const std::string& group_id, const std::string& id);
  /// The anonymize policy now forces the group's members (a reload): they
  /// are one user's, so it forces all of them at once (user_of()).
  void set_anonymized(const std::string& group_id);
  /// A new record is being delivered: every group chooses again.
  void next_record() { ++record_; }
  /// Whether member `id` takes the current record.  `key` is
  /// group_key(message) of the record as the group's members see it,
  /// computed once per group and record.
  template <typename KeyOf>
  bool takes(const std::string& group_id, const std::string& id, KeyOf key_of) {
    Group& g = groups_.at(group_id);
    if (g.decided_for != record_) {
      g.chosen = choose(g, key_of());
      g.decided_for = record_;
    }
    return g.ids[g.chosen] == id;
  }
  std::size_t groups() const { return groups_.size(); }
  std::size_t members(const std::string& group_id) const;

 private:
  struct Group {
    // The members in the order they joined: routing ids and tokens.
    std::vector<std::string> ids;
    std::vector<std::uint64_t> tokens;
    std::string filter_text;
    bool anonymized = false;
    std::uint64_t decided_for = 0;  // the record_ `chosen` is for
    std::size_t chosen = 0;
  };
  static std::size_t choose(const Group& g, std::uint64_t key);

  std::map<std::string, Group> groups_;
  std::uint64_t record_ = 1;
};

}  // namespace lnetcap::daemon
