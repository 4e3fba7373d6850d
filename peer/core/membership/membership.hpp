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
// advance(). Ties: timers by (time, arming order); members by roster index.
//
// Sized for 100,000 members in one process: cards live in a roster (one per
// daemon, one shared by a simulated grid's members), and a member's view
// keeps only where it differs from "alive at incarnation 0" for the members
// it knew from the start. A pass's probe order is a seeded permutation of the
// roster's index range, and members are drawn by rejection: nothing per
// member holds a list of every member.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "peer/core/membership/gossip_queue.hpp"
#include "peer/core/membership/roster.hpp"
#include "peer/core/timer_table.hpp"
#include "peer/model/index_permutation.hpp"
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
  /// The periodic whole-view exchange (anti-entropy, and what heals a
  /// partition). SWIM has none; at 100,000 members each costs 100,000
  /// updates, so the big points of the study turn it off. Joins are
  /// answered either way.
  bool syncs = true;
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
  std::uint64_t stalls = 0;           ///< times it was run more than a period late (its timers moved)
};

class Membership {
 public:
  /// `self` at `incarnation` (a journaled member that restarts passes one
  /// above its last), its random choices from `rng`, with a roster of its own.
  Membership(MemberCard self, std::uint32_t incarnation, MembershipConfig config, Rng rng, TimePoint now);
  /// The same with a roster shared among the members one driver runs (it
  /// must outlive this member).
  Membership(MemberCard self, std::uint32_t incarnation, MembershipConfig config, Rng rng, TimePoint now,
             Roster& shared);

  // ---- inputs -------------------------------------------------------------
  /// Members known from a static topology: alive at incarnation 0, as every
  /// member started from the same file knows them. The caller knows them
  /// already: no MemberChanged is output for them.
  void add_known(const std::vector<MemberCard>& members, TimePoint now);
  /// The same for the roster's members first .. end - 1, already in it (a
  /// driver that shares one roster among a static grid's members).
  void add_known_range(std::uint32_t first, std::uint32_t end, TimePoint now);
  /// Joins through these members, one at a time, until one answers (by name
  /// and address: a name may be only a label until the answer comes).
  void join(const std::vector<MemberCard>& via, TimePoint now);
  /// Announces that this member leaves; LeaveAnnounced follows when it has
  /// been gossiped enough.
  void leave(TimePoint now);
  /// A message from a member by name (one with no name is ignored).
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
  /// Another member as this one sees it; none when unknown (or forgotten).
  [[nodiscard]] std::optional<Member> member(std::string_view name) const;
  /// The same, its state alone (no card copied).
  [[nodiscard]] std::optional<MemberState> state_of(std::string_view name) const;
  /// Members alive or suspect, this one aside.
  [[nodiscard]] std::size_t live_members() const { return live_count_; }
  /// Members known in any state, this one aside.
  [[nodiscard]] std::size_t known_members() const { return known_count_; }
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
  using Index = std::uint32_t;
  Membership(std::unique_ptr<Roster> own, Roster* shared, MemberCard self, std::uint32_t incarnation,
             MembershipConfig config, Rng rng, TimePoint now);
  enum class TimerKind : std::uint8_t { tick, probe_timeout, relay_expiry, suspicion, join_timeout, sync, leave_done };
  struct Timer {
    TimerKind kind = TimerKind::tick;
    std::uint64_t seq = 0;  ///< probe_timeout, relay_expiry
    Index member = 0;       ///< suspicion
  };
  using Timers = TimerTable<Timer>;
  struct Suspicion {
    Timers::Handle timer;
    TimePoint started;
    std::set<std::string, std::less<>> by;  ///< who suspected it (the first included)
  };
  struct Probe {
    std::uint64_t seq = 0;
    Index target = 0;
    bool answered = false;
  };
  /// A PingReq this member carries out: the Ack it gets is passed back.
  struct Relay {
    std::string requester;
    std::uint64_t requester_seq = 0;
    Timers::Handle expiry;
  };
  /// Roster members first .. end - 1, known alive at incarnation 0 since `since`.
  struct KnownRange {
    Index first = 0;
    Index end = 0;
    TimePoint since{};
  };
  /// A member whose view differs from its known range's (or that is in none).
  struct Entry {
    bool known = true;  ///< false: forgotten (or never known)
    std::uint32_t incarnation = 0;
    MemberState state = MemberState::alive;
    TimePoint since{};
    std::unique_ptr<MemberCard> card;  ///< when it differs from the roster's
  };
  /// One member as this one sees it, read from its range and its entry.
  struct Seen {
    bool known = false;
    std::uint32_t incarnation = 0;
    MemberState state = MemberState::alive;
    TimePoint since{};
  };

  void handle(std::string_view from, const protocol::MemberPing& ping, TimePoint now);
  void handle(std::string_view from, const protocol::MemberAck& ack, TimePoint now);
  void handle(std::string_view from, const protocol::MemberPingReq& request, TimePoint now);
  void handle(std::string_view from, const protocol::MemberSync& sync, TimePoint now);
  void fire(const Timer& timer, TimePoint now);
  /// Every timer later by `by` (this member was not run for that long).
  void delay_timers(Duration by);

  void tick(TimePoint now);
  void probe_timed_out(std::uint64_t seq);
  void suspicion_expired(Index member, TimePoint now);
  void try_next_join(TimePoint now);
  void sync(TimePoint now);

  /// Applies one fact heard from `from`; returns whether it changed anything
  /// (then it is gossiped on). `from_sync`: a whole view's "dead" counts as
  /// suspect, so a member in the other half of a healed partition may refute.
  bool apply(const MemberUpdate& update, std::string_view from, TimePoint now, bool from_sync = false);
  bool learn(const MemberUpdate& update, TimePoint now);
  void apply_all(const std::vector<MemberUpdate>& updates, std::string_view from, TimePoint now);
  void refute(std::uint32_t heard, TimePoint now);
  void set_state(Index member, MemberState state, std::uint32_t incarnation, TimePoint now);
  void start_suspicion(Index member, std::uint32_t incarnation, std::string_view by, TimePoint now);
  /// Another member's independent suspicion: the time-out shortens. Whether it was new.
  bool confirm_suspicion(Index member, std::string_view by, TimePoint now);
  void end_suspicion(Index member);
  void forget_old(TimePoint now);

  // The view: ranges known from the start, and entries where it differs.
  [[nodiscard]] const KnownRange* range_of(Index member) const;
  [[nodiscard]] Seen seen(Index member) const;
  [[nodiscard]] bool live_at(Index member) const;
  /// A member known by this one (itself aside), with its index: one roster
  /// lookup for both.
  [[nodiscard]] std::optional<std::pair<Index, Seen>> known(std::string_view name) const;
  /// Members first .. end - 1 other than this one.
  [[nodiscard]] std::size_t others_in(Index first, Index end) const;
  /// The member's entry, made from its range if it has none yet.
  Entry& entry(Index member);
  [[nodiscard]] const MemberCard& card_of(Index member) const;
  [[nodiscard]] const std::string& name_of(Index member) const { return roster_.card(member).name; }
  void add_range(Index first, Index end, TimePoint now);
  /// Calls `visit(index, seen)` for every member known, by index.
  template <class Visit>
  void for_each_known(Visit&& visit) const;

  void send(Index to, MembershipMessage message);
  /// To a member that may not be in the roster (no address then).
  void send_by_name(std::string_view to, MembershipMessage message);
  void send_to(const std::string& to, const std::string& address, MembershipMessage message);
  [[nodiscard]] std::vector<MemberUpdate> piggyback(std::string_view to);
  [[nodiscard]] MemberUpdate self_update() const;
  [[nodiscard]] MemberUpdate update_of(Index member) const;
  [[nodiscard]] std::vector<MemberUpdate> whole_view() const;
  void gossip(const MemberUpdate& update);
  /// The next live member of this pass's probe order, starting a new pass
  /// (a new permutation) when this one is done.
  [[nodiscard]] std::optional<Index> next_probe_target();
  /// Up to `count` live members other than `except`, drawn without replacement.
  [[nodiscard]] std::vector<Index> random_live(std::size_t count, std::optional<Index> except);

  std::unique_ptr<Roster> own_roster_;  ///< when none is shared
  Roster& roster_;
  MemberCard self_;
  Index self_index_ = 0;
  std::uint32_t incarnation_;
  MembershipConfig config_;
  Rng rng_;
  std::vector<KnownRange> known_ranges_;  ///< by first index, disjoint
  std::map<Index, Entry> changed_;
  std::size_t known_count_ = 0;
  std::size_t live_count_ = 0;
  std::optional<IndexPermutation> probe_order_;
  std::uint64_t probe_place_ = 0;  ///< the next place of this pass's order
  std::map<Index, Suspicion> suspicions_;
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
