#pragma once
// Members of a grid's membership (peer/core/membership) in one process, in
// virtual time: messages take a latency (plus a seeded jitter), may be lost
// at a seeded rate or cut by a partition, and members start, join, stop
// (crash) and leave at given times. The membership tests and gridsim's
// membership study drive the same core objects through it.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "peer/core/membership/membership.hpp"
#include "peer/model/rng.hpp"
#include "peer/model/time.hpp"
#include "sim/driver/event_queue.hpp"
#include "sim/driver/wake_queue.hpp"

namespace gridpeer::sim {

struct MembershipGridOptions {
  membership::MembershipConfig config;
  Duration latency = std::chrono::milliseconds(1);  ///< one way
  Duration jitter = Duration::zero();               ///< uniform extra delay, up to this
  double loss = 0;                                  ///< each message lost with this probability
  std::uint64_t seed = 1;
};

/// A change one member saw, with when.
struct ObservedChange {
  TimePoint at;
  std::string observer;
  membership::MemberChanged change;
};

class MembershipGrid {
 public:
  explicit MembershipGrid(MembershipGridOptions options);

  /// `count` members named prefix0, prefix1, ... that all know each other
  /// from the start (a static topology), started at `at`.
  std::vector<std::string> start_static(std::size_t count, TimePoint at, const std::string& prefix = "m");
  /// A new member that joins at `at` through the members named.
  void join(const std::string& name, const std::vector<std::string>& via, TimePoint at);
  /// The member stops at `at`: it neither sends nor receives again (a crash).
  void stop(const std::string& name, TimePoint at);
  /// The member announces at `at` that it leaves, and stops once its leave
  /// has been gossiped (LeaveAnnounced).
  void leave(const std::string& name, TimePoint at);
  /// From `at`, messages between members of different groups are lost;
  /// members in no group are cut off from everyone. An empty list heals.
  void partition(std::vector<std::set<std::string>> groups, TimePoint at);

  /// From `at`, messages between `a` and `b` (both ways) are lost; mend()
  /// ends it.
  void cut(const std::string& a, const std::string& b, TimePoint at);
  void mend(const std::string& a, const std::string& b, TimePoint at);

  /// Runs every event up to and including `until`; bounded by `max_events`
  /// (throws std::runtime_error past it).
  void run_until(TimePoint until, std::uint64_t max_events = 200'000'000);

  [[nodiscard]] const membership::Membership& member(std::string_view name) const;
  [[nodiscard]] bool running(std::string_view name) const;
  [[nodiscard]] std::vector<std::string> names() const;
  /// Every member's view of `name` (running members only, `name` aside):
  /// how many hold it in `state`.
  [[nodiscard]] std::size_t holding(std::string_view name, protocol::MemberState state) const;
  [[nodiscard]] std::size_t running_members() const;
  [[nodiscard]] const std::vector<ObservedChange>& changes() const { return changes_; }
  /// Members whose join failed, each with the reason.
  [[nodiscard]] const std::vector<std::string>& join_failures() const { return join_failures_; }
  [[nodiscard]] std::uint64_t delivered() const { return delivered_; }
  [[nodiscard]] std::uint64_t lost() const { return lost_; }
  [[nodiscard]] TimePoint now() const { return now_; }
  /// Runs every running member's invariant checks.
  void check_invariants() const;

 private:
  using Index = std::uint32_t;  ///< a member's place in the shared roster
  struct Node {
    std::unique_ptr<membership::Membership> membership;  ///< none: in the roster, never started
    bool running = false;
    TimePoint wake = kNever;  ///< its wake-up in wakes_ (kNever: none)
  };
  struct Event {
    TimePoint at;
    std::uint64_t seq = 0;
    enum class Kind : std::uint8_t { deliver, action } kind = Kind::action;
    Index to = 0;
    Index from = 0;
    std::shared_ptr<const protocol::MembershipMessage> message;  ///< deliver
    std::function<void()> action;                                ///< action
  };

  Node& start(const std::string& name, TimePoint at);
  void settle(Index member);
  /// The member is stopped or gone: no more wake-ups.
  void halt(Index member);
  void schedule(Event event);
  void schedule_action(TimePoint at, std::function<void()> action);
  [[nodiscard]] bool connected(Index a, Index b) const;
  [[nodiscard]] membership::MemberCard card_of(const std::string& name) const;
  [[nodiscard]] const Node* node(std::string_view name) const;
  [[nodiscard]] Index index_of(const std::string& name) const;
  [[nodiscard]] const std::string& name_of(Index member) const { return roster_.card(member).name; }

  MembershipGridOptions options_;
  Rng rng_;
  membership::Roster roster_;  ///< every member's card, shared by their views
  std::vector<Node> nodes_;    ///< by roster index
  EventQueue<Event> events_;   ///< earliest first, then the first scheduled
  WakeQueue wakes_{0};         ///< each member's one wake-up, by roster index
  std::uint64_t next_seq_ = 0;
  /// The event or wake-up being handled, (time, sequence): nothing yet.
  WakeQueue::Handling handling_{TimePoint::min(), 0};
  TimePoint now_{};
  std::vector<std::set<std::string>> groups_;
  std::set<std::pair<std::string, std::string>> cuts_;  ///< (lesser, greater) name
  std::vector<ObservedChange> changes_;
  std::vector<std::string> join_failures_;
  std::uint64_t delivered_ = 0;
  std::uint64_t lost_ = 0;
  std::uint64_t member_seed_ = 0;
};

}  // namespace gridpeer::sim
