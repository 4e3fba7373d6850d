// Bag grouping at an origin peer (Ang et al. 2007 in the P2P grid), by hand: one
// ATT round for the whole bag, Fig. 1's groups over the repliers and the
// origin, largest first through the ordinary hand-off, members' records
// split back out of each group's, and a refused group decided anew as a
// plain S-I job.
#include <boost/test/unit_test.hpp>
#include <limits>
#include <string>
#include <vector>

#include "peer/core/p2p/grid_peer.hpp"

using namespace gridpeer;

namespace {

/// Path bandwidth from the origin: 1 MB/s to server 1, 4 MB/s to server 2.
struct TwoPaths final : network::NetworkView {
  [[nodiscard]] Duration transfer_estimate(std::uint64_t bytes, ServerIndex from, ServerIndex to) const override {
    return from == to ? Duration::zero() : seconds_ceil(static_cast<double>(bytes) / bottleneck_bandwidth(from, to));
  }
  [[nodiscard]] double bottleneck_bandwidth(ServerIndex from, ServerIndex to) const override {
    if (from == to) return std::numeric_limits<double>::infinity();
    return from == 1 || to == 1 ? 1e6 : 4e6;
  }
};

GridConfig grouping(bool bandwidth_aware) {
  GridConfig c;
  c.algorithm = GridAlgorithm::sender;
  c.parameters.phi = seconds(10);
  c.parameters.handoff_timeout = seconds(60);  // no offer lapses within a case
  c.local_policy = {LocalPolicy::easy, 0};
  c.bag_grouping = {true, 2.0, bandwidth_aware, false};
  return c;
}

TimePoint at(std::int64_t s) {
  return TimePoint{seconds(s)};
}
TimePoint at_ms(std::int64_t ms) {
  return TimePoint{microseconds(ms * 1000)};
}

/// Eight members of bag 7, 1 s each at the origin's 100 MIPS (100 MI),
/// 1 kB in and 2 kB out: ids 1..8.
Job member(JobId id) {
  Job j{id, 0, 1, TimePoint{}, seconds(1), seconds(1), 1000, 2000};
  j.bag = 7;
  return j;
}

/// A partner's reply to query 0: idle, 4 free CPUs, at `mhz`.
protocol::AttReply idle_reply(int mhz) {
  protocol::AttReply r;
  r.query = 0;
  r.job = 1;
  r.att = seconds(1);
  r.free_cpus = 4;
  r.total_cpus = 4;
  r.mhz = mhz;
  return r;
}

struct Sent {
  ServerIndex to = 0;
  JobId group = 0;
  Duration run{};
  std::uint64_t input = 0;
  std::uint64_t output = 0;
  bool operator==(const Sent&) const = default;
};
std::ostream& operator<<(std::ostream& out, const Sent& s) {
  return out << "to " << s.to << " group " << s.group << " run " << s.run << " in " << s.input << " out " << s.output;
}

struct Ended {
  JobId id = 0;
  ServerIndex on = 0;
  TimePoint start{}, finish{}, end{};
  JobOutcome outcome = JobOutcome::completed;
  bool operator==(const Ended&) const = default;
};
std::ostream& operator<<(std::ostream& out, const Ended& e) {
  return out << "job " << e.id << " on " << e.on << " " << e.start << ".." << e.finish << " end " << e.end;
}

struct Seen {
  std::vector<Sent> offers;
  std::vector<Ended> ended;
  std::size_t queries = 0;
  std::size_t inputs = 0;
};

Seen seen(GridPeer& peer) {
  BOOST_CHECK_NO_THROW(peer.check_invariants());
  Seen s;
  for (const SchedulerOutput& o : peer.take_outputs()) {
    if (const auto* send = std::get_if<SendMessage>(&o)) {
      if (const auto* offer = std::get_if<protocol::JobOffer>(&send->message)) {
        s.offers.push_back(
            {send->to, offer->job.id, offer->job.run_time, offer->job.input_bytes, offer->job.output_bytes});
      }
      if (std::holds_alternative<protocol::AttQuery>(send->message)) ++s.queries;
    } else if (const auto* start = std::get_if<StartTransfer>(&o)) {
      s.inputs += start->transfer.kind == DataTransfer::Kind::input ? 1 : 0;
    } else if (const auto* ended = std::get_if<JobEnded>(&o)) {
      const JobRecord& r = ended->record;
      s.ended.push_back({r.id, r.executed_on, r.start, r.finish, r.end, ended->outcome});
    }
  }
  return s;
}

/// Origin 0 (one 1-CPU node at 100 MIPS) with partners 1 (200 MIPS) and
/// 2 (100 MIPS); the bag submitted at t = 0, both replies in at t = 0.
struct Origin {
  const TwoPaths network;
  GridPeer peer;
  explicit Origin(bool bandwidth_aware)
      : peer(0, ServerSpec{"A", 1, 1, 100, 0}, grouping(bandwidth_aware), {1, 2}, network) {
    for (JobId id = 1; id <= 8; ++id) peer.submit(member(id), at(0));
    const Seen asked = seen(peer);
    BOOST_TEST(asked.queries == 2U);  // one round for the whole bag, not one per job
    BOOST_TEST(asked.offers.empty());
    BOOST_TEST(peer.undecided_jobs() == 8U);
    peer.on_message(1, idle_reply(200), at(0));
    peer.on_message(2, idle_reply(100), at(0));
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(bag_grouping)

// RMI = MIPS x 2 s: the origin 200 MI (2 jobs), partner 2 200 MI (2 jobs),
// partner 1 400 MI (4 jobs). Bandwidth-aware order: origin (its data stays),
// 2 (4 MB/s), 1 (1 MB/s) -> groups {1,2}@0, {3,4}@2, {5..8}@1; largest first:
// {5..8} (400 MI), then {1,2} and {3,4} (200 MI, in creation order).
BOOST_AUTO_TEST_CASE(bandwidth_aware_groups_are_placed_largest_first) {
  Origin o(true);
  const Seen placed = seen(o.peer);
  const std::vector<Sent> expected{{1, 5, seconds(4), 4000, 8000}, {2, 3, seconds(2), 2000, 4000}};
  BOOST_TEST(placed.offers == expected, boost::test_tools::per_element());
  BOOST_TEST(o.peer.counters().bag_groups == 3U);
  BOOST_TEST(o.peer.undecided_jobs() == 0U);
  BOOST_TEST(o.peer.local().running_jobs() == 1U);  // {1,2} runs here, as one 1-CPU job

  // The local group ends at t = 2 s: its members split its run, 1 s each.
  o.peer.advance(at(2));
  const std::vector<Ended> local{{1, 0, at(0), at(1), at(1)}, {2, 0, at(1), at(2), at(2)}};
  BOOST_TEST(seen(o.peer).ended == local, boost::test_tools::per_element());

  // {5..8} at partner 1: accepted (input staged once), run 10..12 s there,
  // output home at 13 s -- each member a quarter of the run, all ending at 13.
  o.peer.on_message(1, protocol::JobAccept{5, 1, false}, at(3));
  BOOST_TEST(seen(o.peer).inputs == 1U);
  o.peer.on_message(1, protocol::JobAccept{5, 1, true}, at(3));
  DataTransfer output = DataTransfer::output_of(Job{5, 0}, 1, at(10), at(12));
  output.to = 0;
  o.peer.on_transfer_done(output, at(13));
  const std::vector<Ended> remote{{5, 1, at(10), at_ms(10'500), at(13)},
                                  {6, 1, at_ms(10'500), at(11), at(13)},
                                  {7, 1, at(11), at_ms(11'500), at(13)},
                                  {8, 1, at_ms(11'500), at(12), at(13)}};
  BOOST_TEST(seen(o.peer).ended == remote, boost::test_tools::per_element());
}

// Blind: the candidates in their own order, origin, 1, 2 -> {1,2}@0,
// {3,4,5,6}@1, {7,8}@2; largest first {3..6}, {1,2}, {7,8}.
BOOST_AUTO_TEST_CASE(blind_grouping_visits_the_candidates_in_order) {
  Origin o(false);
  const std::vector<Sent> expected{{1, 3, seconds(4), 4000, 8000}, {2, 7, seconds(2), 2000, 4000}};
  BOOST_TEST(seen(o.peer).offers == expected, boost::test_tools::per_element());
}

// Partner 2 refuses {3,4}: it is decided anew as one plain S-I job. The
// origin's AWT is 2 s (its {1,2} runs until then), below phi = 10 s, so it
// runs here after {1,2}: members 3 and 4 at 2..3 and 3..4 s.
BOOST_AUTO_TEST_CASE(a_refused_group_is_decided_as_a_plain_job) {
  Origin o(true);
  static_cast<void>(seen(o.peer));
  o.peer.on_message(2, protocol::JobReject{3, 1, protocol::RejectReason::draining}, at(0));
  const Seen after = seen(o.peer);
  BOOST_TEST(after.offers.empty());
  BOOST_TEST(after.queries == 0U);
  BOOST_TEST(o.peer.counters().taken_back == 1U);
  o.peer.advance(at(4));
  const std::vector<Ended> ended{{1, 0, at(0), at(1), at(1)},
                                 {2, 0, at(1), at(2), at(2)},
                                 {3, 0, at(2), at(3), at(3)},
                                 {4, 0, at(3), at(4), at(4)}};
  BOOST_TEST(seen(o.peer).ended == ended, boost::test_tools::per_element());
}

// A member submitted while the round is open joins it; a partner whose
// reply shows no free CPU and an AWT of phi is left out while another is
// ready; a later bag
// opens a round of its own; ids of a bag's members count as in use.
BOOST_AUTO_TEST_CASE(late_members_join_busy_partners_are_left_out) {
  const TwoPaths network;
  GridPeer peer(0, ServerSpec{"A", 1, 1, 100, 0}, grouping(true), {1, 2}, network);
  for (JobId id = 1; id <= 4; ++id) peer.submit(member(id), at(0));
  BOOST_TEST(seen(peer).queries == 2U);
  peer.submit(member(3), at(0));  // id 3 is a member already
  BOOST_TEST(seen(peer).ended.size() == 1U);
  peer.submit(member(5), at(0));
  peer.submit(member(6), at(0));
  BOOST_TEST(seen(peer).queries == 0U);  // they joined the open round
  protocol::AttReply busy = idle_reply(200);
  busy.free_cpus = 0;
  busy.awt = seconds(10);  // = phi: its groups would wait too long
  peer.on_message(1, busy, at(0));
  peer.on_message(2, idle_reply(100), at(0));
  // Candidates origin (200 MI) and 2 (200 MI): {1,2}@0, {3,4}@2, {5,6}@0.
  const std::vector<Sent> expected{{2, 3, seconds(2), 2000, 4000}};
  BOOST_TEST(seen(peer).offers == expected, boost::test_tools::per_element());
  BOOST_TEST(peer.counters().bag_groups == 3U);
  Job next = member(9);
  next.bag = 8;
  peer.submit(next, at(1));
  BOOST_TEST(seen(peer).queries == 2U);
}

// A member wider than one CPU is decided alone (S-I: its own query), and a
// round whose only ready repliers give no speed falls back on the origin
// (found by fuzz_peer: replies of 0 MHz with free CPUs).
BOOST_AUTO_TEST_CASE(wide_members_go_alone_and_speechless_replies_are_ignored) {
  const TwoPaths network;
  GridPeer peer(0, ServerSpec{"A", 2, 1, 100, 0}, grouping(true), {1, 2}, network);
  Job wide = member(1);
  wide.cpus = 2;
  wide.run_time = wide.requested_time = seconds(100);
  peer.submit(wide, at(0));
  BOOST_TEST(peer.local().running_jobs() == 1U);  // AWT 0 < phi: run here at once, not grouped
  BOOST_TEST(peer.undecided_jobs() == 0U);
  static_cast<void>(seen(peer));
  // At t = 1 the origin is full for 99 s (not ready); the repliers are idle but say 0 MHz.
  for (JobId id = 2; id <= 3; ++id) peer.submit(member(id), at(1));
  protocol::AttReply mute = idle_reply(0);
  mute.query = 0;
  peer.on_message(1, mute, at(1));
  peer.on_message(2, mute, at(1));
  BOOST_TEST(seen(peer).offers.empty());  // both groups here: the only usable candidate
  BOOST_TEST(peer.counters().bag_groups == 1U);
}

BOOST_AUTO_TEST_CASE(no_grouping_for_local_or_central) {
  const TwoPaths network;
  GridConfig c = grouping(true);
  c.algorithm = GridAlgorithm::local;
  BOOST_CHECK_THROW(GridPeer(0, ServerSpec{"A", 1, 1, 100, 0}, c, {1}, network), std::invalid_argument);
  c = grouping(true);
  c.bag_grouping.granularity_s = 0;
  BOOST_CHECK_THROW(GridPeer(0, ServerSpec{"A", 1, 1, 100, 0}, c, {1}, network), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
