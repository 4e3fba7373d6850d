#pragma once
// The origin's side of co-allocation among peers (docs/coallocation.md,
// "Among peers"): own jobs placed as parts on several servers. Prepare: each
// part's peer is asked to hold its CPUs and its link's headroom from one
// start, under a lease that ends before it. Commit once every part is held:
// all start at that instant and end at the job's end, which the origin keeps
// -- Jones et al.'s clock, the communication stretched by the lowest share
// any part's link allows -- and sends again, with a renewed lease, when a
// share changes and every third of a lease. A refusal, a prepare not
// answered in time, a part lost, or a part's peer gone or silent for a lease aborts every part,
// and the job is decided anew.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "peer/core/p2p/handoff_sides.hpp"
#include "peer/core/policy/split_clock.hpp"

namespace gridpeer {

/// What the origin side asks of its peer.
class SplitsPeer : public HandoffPeer {
 public:
  /// A message to a part's peer (itself included: delivered after the current input).
  virtual void send_part(ServerIndex to, const protocol::Message& message) = 0;
  [[nodiscard]] virtual int mhz() const = 0;
  /// The next attempt number of an own job (shared with its hand-offs).
  virtual std::uint32_t next_attempt(JobId job) = 0;
  /// The placement failed: the job is decided anew, `barred` not asked about
  /// it for a while (the server that refused it, or every part's, so that a
  /// placement that fails is not tried again at once).
  virtual void split_failed(const Job& job, const std::vector<ServerIndex>& barred, TimePoint now) = 0;
  /// The job ran to its end on every part.
  virtual void split_ended(JobEnded ended) = 0;
};

/// One part as the origin chose it.
struct PlannedPart {
  ServerIndex server = 0;
  int cpus = 0;
  int mhz = 1;  ///< the server's speed (the slowest part sets the run time)
  /// The most its link may carry with the part (0: no bound), re-checked there.
  double link_limit_mbps = 0;
};

class SplitJobs {
 public:
  /// A part's start comes this long after its hold's lease ends, so that a
  /// hold not committed is let go before it could start.
  static constexpr Duration kStartAfterLease = microseconds(1000);

  explicit SplitJobs(SplitsPeer& peer) : peer_(peer) {}

  /// Places `job` as `parts` (two or more, each server once).
  void place(const Job& job, const std::vector<PlannedPart>& parts, TimePoint now);
  void on_report(ServerIndex from, const protocol::PartReport& report, TimePoint now);
  void on_timer(const PeerTimer& timer, TimePoint now);
  /// A part's peer restarted or went away: the jobs with a part there are aborted.
  void lost_peer(ServerIndex peer, TimePoint now);

  [[nodiscard]] bool holds(JobId job) const { return splits_.count(job) != 0U; }
  [[nodiscard]] std::size_t open() const { return splits_.size(); }
  /// A split job's expected run, `run` (at the origin's speed) on servers as
  /// slow as `slowest_mhz`, with its links allowing `share`: Jones et al.'s
  /// eqs. 5-6 (an origin weighs a split against the best single place with it).
  [[nodiscard]] Duration expected_run(Duration run, int slowest_mhz, double share) const;
  void check_invariants(std::size_t& armed) const;

 private:
  enum class PartState : std::uint8_t { asked, prepared, finished };
  struct Part {
    PlannedPart planned;
    double demand = 0;
    double share = 1;
    double lowest_share = 1;
    PartState state = PartState::asked;
    TimePoint heard{};  ///< its peer's last word (each renewal is answered)
  };
  struct Split {
    Job job;
    std::uint32_t attempt = 0;
    std::vector<Part> parts;
    TimePoint start{};
    std::optional<SplitClock> clock;  ///< set at the commit
    TimerSlot timer;                  ///< the prepare deadline, then the next renewal
    TimePoint renewed{};              ///< when the commit or the last renewal went
  };
  void commit(Split& split, TimePoint now);
  /// Sends every part not finished the job's end and a lease from now.
  void renew(Split& split, TimePoint now);
  void send_renewal(const Split& split, const Part& part, TimePoint now);
  void abort(JobId job, std::optional<ServerIndex> refused_by, TimePoint now);
  void complete(JobId job, TimePoint now);
  [[nodiscard]] static double lowest_share(const Split& split);
  [[nodiscard]] Duration run_time(const Split& split, Duration on_origin) const;

  SplitsPeer& peer_;
  std::map<JobId, Split> splits_;
};

}  // namespace gridpeer
