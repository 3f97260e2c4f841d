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

/// Every user's groups together, for the metrics (which name no group:
/// a group's name is its user's, and the metrics endpoint has no access
/// control).  The totals only grow.
struct GroupTotals {
  std::uint64_t groups = 0, members = 0;
  std::uint64_t unconfirmed_total = 0;      // records sent to members gone without BYE
  std::uint64_t passed_on_total = 0;        // gathered for them, given to the others
  std::uint64_t links_given_up_total = 0;   // the keyers' (group_keyer.h)
};

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
  /// What became of a member's records when it went.
  struct Departure {
    std::uint64_t sent = 0, dropped = 0;
    bool said_bye = true;         // read on until its END (docs/DAEMON.md)
  };
  /// The group's departed members together (--status).
  struct Departed {
    std::uint64_t members = 0, sent = 0, dropped = 0;
    // Members gone without BYE (killed, disconnected): what they were sent
    // and had not written when they went is lost with them, and the daemon
    // cannot tell how much that was (libzmq gives no receipt), so all they
    // were sent is "unconfirmed".
    std::uint64_t without_bye = 0, unconfirmed = 0;
    // Gathered for them and not yet sent when they went: given to the others.
    std::uint64_t passed_on = 0;
  };
  /// Removes a member; a group without members is gone.
  void leave(const std::string& group_id, const std::string& id, const Departure& how);
  void leave(const std::string& group_id, const std::string& id);
  /// Records of a departed member passed on to the others (if the group
  /// is still there).
  void passed_on(const std::string& group_id, std::uint64_t n);
  /// The member that takes `key` now (consumer_group.h), or nullptr when
  /// the group has none left.
  const std::string* member_for(const std::string& group_id, std::uint64_t key) const;
  /// Whether some group's members are (not) anonymized: which of the two
  /// keyers (group_keyer.h) must see the record.
  bool any(bool anonymized) const { return (anonymized ? anonymized_groups_ : plain_groups_) != 0; }
  /// The groups' ids (user, newline, name), members' routing ids in the
  /// order they joined, and departed members (--status).
  std::vector<std::string> group_ids() const;
  const std::vector<std::string>& member_ids(const std::string& group_id) const { return groups_.at(group_id).ids; }
  const Departed& departed(const std::string& group_id) const { return groups_.at(group_id).departed; }
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
    Departed departed;
  };
  static std::size_t choose(const Group& g, std::uint64_t key);

  std::map<std::string, Group> groups_;
  std::size_t plain_groups_ = 0, anonymized_groups_ = 0;
  std::uint64_t record_ = 1;
};

}  // namespace lnetcap::daemon
