#pragma once
// Who is in the grid, kept by gossip (sans-I/O): failure detection and
// dissemination after SWIM (Das, Gupta & Motivala 2002), with the refinements
// of Lifeguard (Dadgar, Phillips & Currey 2018) that pay here.
//
// Every period T a member probes one other, chosen round-robin over a list
// shuffled at every pass (so each is probed within two passes): a Ping, and if
// no Ack comes within the probe time-out, PingReqs through K others, which
// probe the target for it. With no answer by the end of the period the target
// is suspect. A suspect that hears of it refutes with a higher incarnation;
// one that does not within the suspicion time-out is dead. The time-out
// starts long and shortens as other members suspect it independently
// (Lifeguard's dynamic suspicion), and a probe of a suspect carries the
// suspicion, so it hears first (Lifeguard's buddy system). Every change rides
// on probes and acks, each sent a bounded number of times (retransmit_mult x
// ceil(log10(n + 1))): traffic per member stays constant in the grid's size,
// and a change reaches every member in O(log n) periods.
//
// A joining member sends its card to a member it knows of (MemberSync) and
// gets every member back; every sync_interval a member exchanges its whole
// view with one alive member and one it holds dead, which heals partitions (a
// member that finds itself held dead refutes). A leaving member gossips that
// it leaves, keeps answering for as long as that takes, and says when it may go.
//
// Inputs carry `now`; outputs are values (sends, changes of a member's state,
// a join that failed, a leave announced); next_deadline() says when to call
// advance(). Ties: timers by (time, arming order); members by name.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "peer/core/membership/gossip_queue.hpp"
#include "peer/core/timer_table.hpp"
#include "peer/model/rng.hpp"
#include "peer/model/time.hpp"
#include "protocol/membership.hpp"

namespace gridpeer::membership {

using protocol::MemberCard;
using protocol::MembershipMessage;
using protocol::MemberState;
using protocol::MemberUpdate;

struct MembershipConfig {
  Duration period = std::chrono::seconds(1);                ///< T: one probe per member per period
  Duration probe_timeout = std::chrono::milliseconds(400);  ///< a direct probe's wait, before PingReqs
  int indirect_probes = 3;                                  ///< K
  int retransmit_mult = 4;                                  ///< an update is sent mult x ceil(log10(n + 1)) times
  /// The suspicion time-out: at least suspicion_mult x max(1, log10(n)) x T,
  /// starting at suspicion_max_mult times that and shortening with
  /// independent suspicions.
  int suspicion_mult = 4;
  int suspicion_max_mult = 6;
  /// Updates on one probe or ack: about what a 1,400-byte datagram holds (as
  /// memberlist bounds it); fewer saturate under loss (docs/membership.md).
  std::size_t max_piggyback = 32;
  Duration sync_interval = std::chrono::seconds(30);
  Duration join_timeout = std::chrono::seconds(3);  ///< per member asked, before the next
  int join_rounds = 3;                              ///< passes over the members given, then it fails
  Duration forget_after = std::chrono::hours(24);   ///< dead and left members kept so long, then dropped
  std::size_t max_members = std::size_t{1} << 20;

  /// Throws std::invalid_argument naming the bad field.
  void validate() const;
};

/// A member as this one sees it.
struct Member {
  MemberCard card;
  std::uint32_t incarnation = 0;
  MemberState state = MemberState::alive;
  TimePoint since{};  ///< when this member last saw it change
};

/// Send `message` to member `to` (by name; the card says where).
struct MemberSend {
  std::string to;
  std::string address;  ///< the card's address, for a driver that dials
  MembershipMessage message;
};
/// A member's state changed here (before: none when it was unknown).
struct MemberChanged {
  std::string member;
  std::optional<MemberState> before;
  MemberState after = MemberState::alive;
  std::uint32_t incarnation = 0;
  MemberCard card;
};
/// Nobody of the members asked to join through answered.
struct JoinFailed {
  std::string reason;
};
/// This member's leave has been gossiped as long as any update is: it may go.
struct LeaveAnnounced {};
using MembershipOutput = std::variant<MemberSend, MemberChanged, JoinFailed, LeaveAnnounced>;

/// What the membership did, for the traffic figures and the operators.
struct MembershipCounters {
  std::uint64_t probes = 0;           ///< Pings this member started
  std::uint64_t indirect_probes = 0;  ///< PingReqs it sent
  std::uint64_t messages_sent = 0;    ///< every message (syncs included)
  std::uint64_t updates_sent = 0;     ///< updates piggybacked
  std::uint64_t suspicions = 0;       ///< members it came to suspect
  std::uint64_t refutations = 0;      ///< times it refuted a suspicion or death of itself
  std::uint64_t syncs = 0;            ///< whole-view exchanges it started
};

class Membership {
 public:
  /// `self` at `incarnation` (a journaled member that restarts passes one
  /// above its last), its random choices from `rng`.
  Membership(MemberCard self, std::uint32_t incarnation, MembershipConfig config, Rng rng, TimePoint now);

  // ---- inputs -------------------------------------------------------------
  /// Members known from a static topology: alive at incarnation 0, as every
  /// member started from the same file knows them. The caller knows them
  /// already: no MemberChanged is output for them.
  void add_known(const std::vector<MemberCard>& members, TimePoint now);
  /// Joins through these members, one at a time, until one answers (by name
  /// and address: a name may be only a label until the answer comes).
  void join(const std::vector<MemberCard>& via, TimePoint now);
  /// Announces that this member leaves; LeaveAnnounced follows when it has
  /// been gossiped enough.
  void leave(TimePoint now);
  void on_message(std::string_view from, const MembershipMessage& message, TimePoint now);
  void advance(TimePoint now);

  // ---- outputs ------------------------------------------------------------
  [[nodiscard]] TimePoint next_deadline() const { return timers_.next_deadline(); }
  std::vector<MembershipOutput> take_outputs();

  // ---- state --------------------------------------------------------------
  [[nodiscard]] const std::string& name() const { return self_.name; }
  [[nodiscard]] std::uint32_t incarnation() const { return incarnation_; }
  [[nodiscard]] bool leaving() const { return leaving_; }
  /// Started from a topology, or its join was answered.
  [[nodiscard]] bool joined() const { return joined_; }
  /// Every other member known, by name.
  [[nodiscard]] const std::map<std::string, Member, std::less<>>& members() const { return members_; }
  [[nodiscard]] const Member* member(std::string_view name) const;
  /// Members alive or suspect, this one aside.
  [[nodiscard]] std::size_t live_members() const { return live_.size(); }
  [[nodiscard]] const MembershipCounters& counters() const { return counters_; }
  /// Throws std::logic_error naming a broken invariant.
  void check_invariants() const;

  /// The suspicion time-out with `confirmations` independent suspicions
  /// among `members`, as configured (Lifeguard: from the longest down to the
  /// shortest as log(c + 1) / log(k + 1)).
  static Duration suspicion_timeout(const MembershipConfig& config, std::size_t members, int confirmations);
  /// How often a member exchanges its whole view among `members`:
  /// sync_interval up to 32 members, one more interval per doubling beyond.
  static Duration sync_interval(const MembershipConfig& config, std::size_t members);
  /// How many times an update is sent among `members`.
  static int retransmit_limit(const MembershipConfig& config, std::size_t members);

 private:
  enum class TimerKind : std::uint8_t { tick, probe_timeout, relay_expiry, suspicion, join_timeout, sync, leave_done };
  struct Timer {
    TimerKind kind = TimerKind::tick;
    std::uint64_t seq = 0;  ///< probe_timeout, relay_expiry
    std::string member;     ///< suspicion
  };
  using Timers = TimerTable<Timer>;
  struct Suspicion {
    Timers::Handle timer;
    TimePoint started;
    std::set<std::string, std::less<>> by;  ///< who suspected it (the first included)
  };
  struct Probe {
    std::uint64_t seq = 0;
    std::string target;
    bool answered = false;
  };
  /// A PingReq this member carries out: the Ack it gets is passed back.
  struct Relay {
    std::string requester;
    std::uint64_t requester_seq = 0;
    Timers::Handle expiry;
  };

  void handle(std::string_view from, const protocol::MemberPing& ping, TimePoint now);
  void handle(std::string_view from, const protocol::MemberAck& ack, TimePoint now);
  void handle(std::string_view from, const protocol::MemberPingReq& request, TimePoint now);
  void handle(std::string_view from, const protocol::MemberSync& sync, TimePoint now);
  void fire(const Timer& timer, TimePoint now);

  void tick(TimePoint now);
  void probe_timed_out(std::uint64_t seq);
  void suspicion_expired(const std::string& member, TimePoint now);
  void try_next_join(TimePoint now);
  void sync(TimePoint now);

  /// Applies one fact heard from `from`; returns whether it changed anything
  /// (then it is gossiped on). `from_sync`: a whole view's "dead" counts as
  /// suspect, so a member in the other half of a healed partition may refute.
  bool apply(const MemberUpdate& update, std::string_view from, TimePoint now, bool from_sync = false);
  void apply_all(const std::vector<MemberUpdate>& updates, std::string_view from, TimePoint now);
  void refute(std::uint32_t heard, TimePoint now);
  void set_state(const std::string& name, Member& member, MemberState state, std::uint32_t incarnation, TimePoint now);
  void start_suspicion(const std::string& name, std::uint32_t incarnation, const std::string& by, TimePoint now);
  /// Another member's independent suspicion: the time-out shortens. Whether it was new.
  bool confirm_suspicion(const std::string& name, const std::string& by, TimePoint now);
  void end_suspicion(const std::string& name);
  void forget_old(TimePoint now);

  void send(const std::string& to, MembershipMessage message);
  void send_to(const std::string& to, const std::string& address, MembershipMessage message);
  [[nodiscard]] std::vector<MemberUpdate> piggyback(const std::string& to);
  [[nodiscard]] MemberUpdate self_update() const;
  [[nodiscard]] MemberUpdate update_of(const std::string& name, const Member& member) const;
  [[nodiscard]] std::vector<MemberUpdate> whole_view() const;
  void gossip(const MemberUpdate& update);
  /// `into_this_pass`: a member learnt of now enters the current pass of the
  /// probe order at a random place still to come (SWIM).
  void add_live(const std::string& name, bool into_this_pass = true);
  void remove_live(const std::string& name);
  [[nodiscard]] std::optional<std::string> next_probe_target();
  /// Up to `count` live members other than `except`, drawn without replacement.
  [[nodiscard]] std::vector<std::string> random_live(std::size_t count, std::string_view except);

  MemberCard self_;
  std::uint32_t incarnation_;
  MembershipConfig config_;
  Rng rng_;
  std::map<std::string, Member, std::less<>> members_;
  std::vector<std::string> live_;  ///< alive or suspect, in a stable order for draws
  std::map<std::string, std::size_t, std::less<>> live_index_;
  std::vector<std::string> probe_order_;  ///< this pass's shuffled targets
  std::size_t probe_next_ = 0;
  std::map<std::string, Suspicion, std::less<>> suspicions_;
  std::optional<Probe> probe_;
  std::optional<Timers::Handle> probe_timer_;
  std::map<std::uint64_t, Relay> relays_;  ///< by the seq of the Ping sent for it
  GossipQueue gossip_;
  Timers timers_;
  std::uint64_t next_seq_ = 1;
  bool joining_ = false;
  bool joined_ = true;
  std::vector<MemberCard> join_via_;
  std::size_t join_next_ = 0;
  int join_round_ = 0;
  std::optional<Timers::Handle> join_timer_;
  bool leaving_ = false;
  std::vector<MembershipOutput> outputs_;
  MembershipCounters counters_;
};

}  // namespace gridpeer::membership
