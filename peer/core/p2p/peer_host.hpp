#pragma once
// The one host of a peer's core, for both drivers (gridsim's virtual-time
// grid and the gridpeer daemon): it owns the GridPeer and does, once, what
// every host of a peer must do around it --
//   - numbers the jobs users submit (origin, incarnation, counter: ids that
//     never repeat across restarts, peer/model/ids.hpp) and refuses them
//     while draining or when a start's ids are used up;
//   - checks what comes from outside before the core sees it (an offered
//     job's id must carry the offering peer as its origin);
//   - turns what a driver learns of a partner's link -- up with a boot id,
//     down, away too long -- into the core's PeerState (a driver that knows
//     more, as gridsim knows its crashes, says the state itself);
//   - carries out the core's outputs through the driver's environment, and
//     makes everything a batch asks to keep durable before anything of that
//     batch is sent ("persist before the next send").
// Drivers supply only send, stage, persist and time (PeerEnvironment); they
// reach the core through this class alone. Sans-I/O like the core.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "peer/core/durable.hpp"
#include "peer/core/grid_config.hpp"
#include "peer/core/p2p/grid_peer.hpp"
#include "peer/core/scheduler.hpp"
#include "peer/model/job.hpp"
#include "peer/model/prefetch.hpp"
#include "peer/model/server.hpp"
#include "peer/network/network_view.hpp"
#include "protocol/messages.hpp"

namespace gridpeer {

/// What a driver does for the peer it hosts. PeerHost::settle calls persist
/// first -- once, with everything one batch asks to keep and the jobs it
/// ended -- and only when it returns, the rest in the order the core asked.
class PeerEnvironment {
 public:
  virtual ~PeerEnvironment() = default;
  /// Makes `kept` and the results of `ended` durable before returning (a
  /// journaled peer). Throws if it cannot: then nothing of the batch is
  /// carried out.
  virtual void persist(std::span<const Persist* const> kept, std::span<const JobEnded* const> ended) = 0;
  virtual void send(ServerIndex to, const protocol::Message& message) = 0;
  virtual void stage(const DataTransfer& transfer) = 0;
  virtual void ended(const JobEnded& ended) = 0;
  /// A part of a split job stopped running here. Only a driver that audits
  /// its runs (gridsim fuzz) keeps it; others need do nothing.
  virtual void part_ran(const PartRan& /*ran*/) {}
  /// Where the host builds each batch, kept between settles; null: the host
  /// keeps a buffer of its own. A driver of thousands of peers gives one for
  /// all of them, so that a batch is built in memory the last settle used:
  /// a buffer per peer was a miss in memory at every settle.
  virtual std::vector<SchedulerOutput>* batch_buffer() { return nullptr; }
};

/// How a partner's link came up (PeerHost::link_up), for the driver's log.
enum class LinkUp : std::uint8_t {
  connected,              ///< the first time, or again with the same boot id (the link only dropped)
  restarted_empty,        ///< a new boot id, no journal: what was committed to it runs elsewhere
  restarted_from_journal  ///< a new boot id, journaled: it is asked again about what it had promised
};

// On a line of its own: its members' order counts lines (see below).
class alignas(64) PeerHost {
 public:
  struct Setup {
    ServerIndex id = 0;
    ServerSpec server;
    /// Shared by the peers of one grid that run with it (never null).
    std::shared_ptr<const GridConfig> config;
    std::vector<ServerIndex> partners;
    /// This start's number (1 on a new journal, one more at every start):
    /// in every job id, and above every hand-off attempt of earlier starts.
    std::uint64_t incarnation = 1;
    /// The R-I/Sy-I period starts this long after its first sigma.
    Duration period_phase{};
    /// A partner whose link has been down this long is given up (the jobs
    /// committed to it end as lost): link_down/link_up drivers only.
    Duration peer_lost_after = seconds(30);
  };
  PeerHost(Setup setup, const network::NetworkView& network, TimePoint start);

  // ---- users' jobs ----------------------------------------------------------
  struct Submission {
    JobId id = 0;  ///< the id this peer gave it
    bool accepted = false;
    std::string refusal;  ///< why not, for the user
  };
  /// Numbers `job` as this peer's next, stamps it with this peer as its
  /// origin and `now` as its submit time, and hands it to the core.
  Submission submit(Job job, TimePoint now);
  /// Jobs accepted since this start.
  [[nodiscard]] std::uint64_t accepted_jobs() const { return next_counter_ - 1; }

  // ---- from other peers -----------------------------------------------------
  /// A message from peer `from`; an offer whose job id does not carry `from`
  /// as its origin is refused here (out of range), never shown to the core.
  void on_message(ServerIndex from, const protocol::Message& message, TimePoint now);
  void on_transfer_done(const DataTransfer& transfer, TimePoint now);

  // ---- partners --------------------------------------------------------------
  /// Whom its peer asks from now on (GridPeer::set_partners).
  void set_partners(std::vector<ServerIndex> partners) { peer_.set_partners(std::move(partners)); }
  [[nodiscard]] const std::vector<ServerIndex>& partners() const { return peer_.partners(); }
  /// What the driver knows of a partner, told directly.
  void on_peer(ServerIndex peer, PeerState state, std::string_view reason, TimePoint now);
  /// A link to `peer` is up, its hello saying `boot_id` (new at every start
  /// of that peer) and whether it keeps a journal.
  LinkUp link_up(ServerIndex peer, std::uint64_t boot_id, bool journaled, TimePoint now);
  /// A link to `peer` is down: it is out of reach, and given up if it stays
  /// away for peer_lost_after (advance() does it, next_deadline() says when).
  void link_down(ServerIndex peer, std::string_view reason, TimePoint now);

  // ---- time and outputs -----------------------------------------------------
  void advance(TimePoint now);
  /// Asks for the host's own lines (its peer and the peer's local scheduler
  /// sit inside it) ahead of its next input: a driver of many peers calls it
  /// for the next event's peer. In `parts` parts, one a call: the host is
  /// some 40 lines.
  void prefetch_part(std::size_t part, std::size_t parts) const { prefetch_lines_part(*this, part, parts); }
  [[nodiscard]] TimePoint next_deadline() const;
  void quiesce(TimePoint now);
  /// Carries out what the core asked for since the last call (persist first).
  void settle(PeerEnvironment& environment);

  // ---- a journaled peer ------------------------------------------------------
  /// What the journal kept, right after construction (GridPeer::restore).
  Recovery restore(std::span<const std::pair<DurableKey, DurableJob>> entries, TimePoint now);

  // ---- state -----------------------------------------------------------------
  /// A draining peer refuses submissions here and offers in the core.
  void set_draining(bool draining);
  [[nodiscard]] bool draining() const { return draining_; }
  [[nodiscard]] ServerIndex id() const { return peer_.id(); }
  [[nodiscard]] std::uint64_t incarnation() const { return incarnation_; }
  [[nodiscard]] const ServerSpec& server() const { return peer_.server(); }
  [[nodiscard]] ServerLoad load() const { return peer_.load(peer_.id()); }
  [[nodiscard]] const SchedulerCounters& counters() const { return peer_.counters(); }
  [[nodiscard]] std::size_t undecided_jobs() const { return peer_.undecided_jobs(); }
  [[nodiscard]] std::size_t open_handoffs() const { return peer_.open_handoffs(); }
  void check_invariants() const { peer_.check_invariants(); }
  /// gridsim's parked volunteers (sim/driver/parked_volunteers.hpp): whether
  /// a Volunteer arriving now could act, and noting one that could not.
  [[nodiscard]] bool volunteer_would_act() const { return peer_.volunteer_would_act(); }
  void note_volunteer(ServerIndex from, TimePoint at) { peer_.note_volunteer(from, at); }

 private:
  struct Link {
    std::uint64_t boot_id = 0;            ///< from its last hello (0: never up)
    std::optional<TimePoint> down_since;  ///< down, what it held not given up yet
    std::string down_reason;
  };
  /// Partners away longer than peer_lost_after are given up.
  void expire_links(TimePoint now);

  // First, in the line before the peer's own hot fields: read at every settle
  // and every deadline asked (at 10,000 peers each line is a miss in memory).
  std::vector<SchedulerOutput> answered_;  // what the host answered itself, carried out first
  std::size_t links_waited_on_ = 0;        // links down whose peer is not given up yet
  bool draining_ = false;
  GridPeer peer_;
  std::uint64_t incarnation_;
  std::uint64_t next_counter_ = 1;
  Duration peer_lost_after_;
  std::vector<Link> links_;                     // by server index, grown as partners appear
  std::vector<SchedulerOutput> settle_buffer_;  // empty; kept for its capacity (no batch_buffer given)
};

}  // namespace gridpeer
