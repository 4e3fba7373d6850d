// Co-allocation among peers (docs/coallocation.md, "Among peers"), by hand:
// two GridPeers, A (server 0) and B (server 1), 8 one-CPU nodes each, a
// 12-CPU job of A's that neither holds whole. Messages go between them at
// once; a test may drop some, or stop one peer, to see the leases at work.
#include <boost/test/unit_test.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "peer/core/p2p/grid_peer.hpp"
#include "tests/support/fixed_network.hpp"

using namespace gridpeer;

namespace {

TimePoint at_us(std::int64_t us) {
  return TimePoint{microseconds(us)};
}

GridConfig split_config(PeerSplit split, double link_mbps) {
  GridConfig c;
  c.algorithm = GridAlgorithm::sender;
  c.parameters.phi = seconds(10);
  c.parameters.query_timeout = seconds(2);
  c.local_policy = {LocalPolicy::easy, 0};
  c.coallocation.split = split;
  c.coallocation.chunk = 0.6;
  c.coallocation.link_mbps = link_mbps;  // K 0.7, BSBW 500 Mb/s, lease 60 s: the defaults
  return c;
}

Job wide_job(JobId id, int cpus = 12, std::int64_t run_s = 100) {
  return Job{id, 0, cpus, TimePoint{}, seconds(run_s), seconds(run_s), 0, 0};
}

using Drop = std::function<bool(ServerIndex from, ServerIndex to, const protocol::Message&)>;

struct TwoSites {
  const testing::FixedNetwork network;
  GridPeer a;
  GridPeer b;
  std::vector<JobEnded> ended;  // A's jobs, as they end
  bool b_stopped = false;       // B neither runs nor answers (crashed, or cut off)
  Drop drop = [](ServerIndex, ServerIndex, const protocol::Message&) { return false; };

  TwoSites(PeerSplit split, double b_link_mbps, std::optional<PeerSplit> b_split = std::nullopt)
      : a(0, ServerSpec{"A", 8, 1, 1000, 0}, split_config(split, 1000), {1}, network),
        b(1, ServerSpec{"B", 8, 1, 1000, 1}, split_config(b_split.value_or(split), b_link_mbps), {0}, network) {}

  GridPeer& peer(ServerIndex id) { return id == 0 ? a : b; }

  /// Delivers every message between them at `now` until none is left.
  void settle(TimePoint now) {
    for (int round = 0; round < 100; ++round) {
      bool any = false;
      for (const ServerIndex from : {ServerIndex{0}, ServerIndex{1}}) {
        if (from == 1 && b_stopped) continue;
        BOOST_REQUIRE_NO_THROW(peer(from).check_invariants());
        for (SchedulerOutput& output : peer(from).take_outputs()) {
          if (auto* end = std::get_if<JobEnded>(&output)) {
            ended.push_back(std::move(*end));
            continue;
          }
          const auto* send = std::get_if<SendMessage>(&output);
          if (send == nullptr) continue;
          if (drop(from, send->to, send->message) || (send->to == 1 && b_stopped)) continue;
          peer(send->to).on_message(from, send->message, now);
          any = true;
        }
      }
      if (!any) return;
    }
    BOOST_FAIL("the two peers kept talking");
  }
  /// Lets time pass to `until`, deadline by deadline.
  void run_to(TimePoint until) {
    for (int step = 0; step < 10'000; ++step) {
      const TimePoint next = std::min(a.next_deadline(), b_stopped ? kNever : b.next_deadline());
      if (next > until) break;
      a.advance(next);
      if (!b_stopped) b.advance(next);
      settle(next);
    }
    a.advance(until);
    if (!b_stopped) b.advance(until);
    settle(until);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(coallocation_among_peers)

// A1 over A (8 free) and B (8 free), n = 12, BSBW 500: PPBW = 4 x 11 x 500 /
// 144 = 152.78 Mb/s; on a 1000 Mb/s link eq. 7 has no real root (144 - 4 x
// 1000 x 11 / 152.78 < 0), so any split is allowed and A1 takes the largest
// first: A 8, B 4. Each link then carries 8 x 152.78 x 4 / 11 = 444.4 Mb/s,
// within 1000: share 1. Prepared at 0, every part starts at 2 x 2 s + 1 ms =
// 4.001 s and ends 100 s later, at 104.001 s.
BOOST_AUTO_TEST_CASE(a_job_wider_than_either_site_runs_as_two_parts_that_start_and_end_together) {
  TwoSites grid(PeerSplit::a1, 1000);
  grid.a.submit(wide_job(1), TimePoint{});
  grid.settle(TimePoint{});
  BOOST_TEST(grid.a.local().pinned_jobs() == 1U);
  BOOST_TEST(grid.b.local().pinned_jobs() == 1U);
  grid.run_to(at_us(4'001'000));
  BOOST_TEST(grid.a.local().busy_nodes() == 8);
  BOOST_TEST(grid.b.local().busy_nodes() == 4);
  grid.run_to(at_us(104'000'999));
  BOOST_TEST(grid.ended.empty());
  grid.run_to(at_us(104'001'000));
  BOOST_REQUIRE(grid.ended.size() == 1U);
  const JobEnded& done = grid.ended.front();
  BOOST_TEST((done.outcome == JobOutcome::completed));
  BOOST_TEST(done.record.start == at_us(4'001'000));
  BOOST_TEST(done.record.finish == at_us(104'001'000));
  BOOST_TEST(done.record.executed_on == 0U);  // the largest part's server
  BOOST_TEST((done.parts == std::vector<JobPart>{{0, 8, 1.0}, {1, 4, 1.0}}), boost::test_tools::per_element());
  BOOST_TEST(grid.a.counters().jobs_split == 1U);
  BOOST_TEST(grid.b.counters().parts_held == 1U);
  BOOST_TEST(grid.a.local().busy_nodes() == 0);
  BOOST_TEST(grid.b.local().busy_nodes() == 0);
}

// B3 (chunk 60%: ceil(0.6 x 12) = 8 on the site with most free nodes, A by
// index): A 8, B 4, 444.4 Mb/s on each link. B's link carries 300 Mb/s, so
// its share is 300 / 444.4 = 0.675 and the job runs 100 x (0.7 + 0.3 /
// 0.675) = 114.444445 s (eqs. 5-6, rounded up to the µs): from 4.001 s to
// 118.445445 s. Its turnaround, 118.4 s, still beats waiting for nothing.
BOOST_AUTO_TEST_CASE(a_part_on_a_saturated_link_slows_the_whole_job) {
  TwoSites grid(PeerSplit::b3, 300);
  grid.a.submit(wide_job(1), TimePoint{});
  grid.settle(TimePoint{});
  grid.run_to(at_us(200'000'000));
  BOOST_REQUIRE(grid.ended.size() == 1U);
  const JobEnded& done = grid.ended.front();
  BOOST_TEST(done.record.start == at_us(4'001'000));
  BOOST_TEST(done.record.finish == at_us(118'445'445));
  BOOST_REQUIRE(done.parts.size() == 2U);
  BOOST_TEST(done.parts[0].lowest_share == 1.0);
  BOOST_TEST(done.parts[1].lowest_share == 0.675, boost::test_tools::tolerance(1e-9));
}

// A1 will not put 4 CPUs on B's 300 Mb/s link (eq. 7: B may take at most 2),
// and A alone holds 8 of 12: no split. The job waits and is asked about again
// a period (60 s) later, instead of being rejected.
BOOST_AUTO_TEST_CASE(a1_keeps_a_job_off_a_link_it_would_saturate) {
  TwoSites grid(PeerSplit::a1, 300);
  grid.a.submit(wide_job(1), TimePoint{});
  grid.settle(TimePoint{});
  BOOST_TEST(grid.a.local().pinned_jobs() == 0U);
  BOOST_TEST(grid.a.undecided_jobs() == 1U);
  BOOST_TEST(grid.a.counters().queries_sent == 1U);
  grid.run_to(at_us(62'000'000));
  BOOST_TEST(grid.a.counters().queries_sent == 2U);
  BOOST_TEST(grid.ended.empty());
}

// B's own 8-CPU job takes every node between its reply and A's prepare: B
// refuses, A aborts its own part (released before its start) and decides
// the job anew -- B is barred from it for a while, so it waits.
BOOST_AUTO_TEST_CASE(one_refusal_aborts_every_part) {
  TwoSites grid(PeerSplit::a1, 1000);
  bool prepared_b = false;
  grid.drop = [&](ServerIndex, ServerIndex to, const protocol::Message& m) {
    if (to == 1 && std::holds_alternative<protocol::PartPrepare>(m) && !prepared_b) {
      prepared_b = true;
      grid.b.submit(Job{(JobId{1} << 40) + 1, 1, 8, TimePoint{}, seconds(1000), seconds(1000), 0, 0}, TimePoint{});
      grid.b.take_outputs();
      grid.b.on_message(0, m, TimePoint{});
      return true;
    }
    return false;
  };
  grid.a.submit(wide_job(1), TimePoint{});
  grid.settle(TimePoint{});
  BOOST_TEST(grid.a.counters().split_aborts == 1U);
  BOOST_TEST(grid.a.local().pinned_jobs() == 0U);
  BOOST_TEST(grid.b.local().pinned_jobs() == 0U);
  BOOST_TEST(grid.a.undecided_jobs() == 1U);
  BOOST_TEST(grid.ended.empty());
}

// The commit to B is lost: B's hold lapses at its lease's end (4 s), B tells
// A, and A lets go of its own part before its start (4.001 s): nothing runs.
// B is barred from the job for a while, so it waits to be asked about again.
BOOST_AUTO_TEST_CASE(a_hold_whose_commit_is_lost_lapses_before_the_start) {
  TwoSites grid(PeerSplit::a1, 1000);
  grid.drop = [](ServerIndex, ServerIndex to, const protocol::Message& m) {
    const auto* decision = std::get_if<protocol::PartDecision>(&m);
    return to == 1 && decision != nullptr && decision->order == protocol::PartOrder::commit;
  };
  grid.a.submit(wide_job(1), TimePoint{});
  grid.settle(TimePoint{});
  grid.run_to(at_us(4'000'000));
  BOOST_TEST(grid.b.counters().parts_lapsed == 1U);
  BOOST_TEST(grid.a.counters().split_aborts == 1U);
  grid.run_to(at_us(4'001'000));
  BOOST_TEST(grid.a.local().busy_nodes() == 0);
  BOOST_TEST(grid.b.local().busy_nodes() == 0);
  BOOST_TEST(grid.a.local().pinned_jobs() == 0U);
  BOOST_TEST(grid.a.undecided_jobs() == 1U);
}

// B crashes after the commit, before the start: A hears B restarted, aborts
// its own part before it starts, and decides the job anew.
BOOST_AUTO_TEST_CASE(a_crash_between_commit_and_start_starts_nothing) {
  TwoSites grid(PeerSplit::a1, 1000);
  grid.a.submit(wide_job(1), TimePoint{});
  grid.settle(TimePoint{});
  grid.b_stopped = true;
  grid.a.on_peer(1, PeerState::restarted, "test", at_us(3'000'000));
  grid.settle(at_us(3'000'000));
  BOOST_TEST(grid.a.counters().split_aborts == 1U);
  BOOST_TEST(grid.a.local().pinned_jobs() == 0U);
  grid.run_to(at_us(4'001'000));
  BOOST_TEST(grid.a.local().busy_nodes() == 0);
  BOOST_TEST(grid.a.undecided_jobs() == 1U);
}

// A 1,000-s job; A stops at 50 s, after its parts started (a crash that
// never comes back). Its last renewal went at 44.001 s (every 20 s from the
// start at 4.001 s) with a lease to 104.001 s: B's part ends itself then,
// not at 1,004.001 s.
BOOST_AUTO_TEST_CASE(a_part_whose_origin_is_silent_ends_itself_after_a_lease) {
  TwoSites grid(PeerSplit::a1, 1000);
  grid.a.submit(wide_job(1, 12, 1000), TimePoint{});
  grid.settle(TimePoint{});
  grid.run_to(at_us(50'000'000));
  BOOST_TEST(grid.b.local().busy_nodes() == 4);
  // From here on B runs alone: A neither runs nor answers.
  for (int step = 0; step < 100; ++step) {
    const TimePoint next = grid.b.next_deadline();
    if (next > at_us(200'000'000)) break;
    grid.b.advance(next);
    grid.b.take_outputs();
    if (grid.b.local().busy_nodes() == 0) {
      BOOST_TEST(next == at_us(104'001'000));
      break;
    }
  }
  BOOST_TEST(grid.b.local().busy_nodes() == 0);
  BOOST_TEST(grid.b.counters().parts_lapsed == 1U);
}

// B is cut off after the start: it hears no renewal and A hears no answer.
// A renews at 24.001 s (a third of a lease after the start); B does not
// answer, so A renews again every query time-out (2 s): 26.001, ...,
// 60.001 s, when B has been silent for more than a lease (since its answer
// to the commit, at 0): A gives up the job, its own part ends then. B's part
// ends itself at its lease's end, 64.001 s (committed with a lease from the
// start). Neither runs to the job's end.
BOOST_AUTO_TEST_CASE(a_part_cut_off_from_its_origin_ends_and_so_do_its_siblings) {
  TwoSites grid(PeerSplit::a1, 1000);
  grid.a.submit(wide_job(1, 12, 1000), TimePoint{});
  grid.settle(TimePoint{});  // prepared and committed; from here on B hears and says nothing
  grid.drop = [](ServerIndex from, ServerIndex to, const protocol::Message& m) {
    const auto* decision = std::get_if<protocol::PartDecision>(&m);
    const bool cut = (decision != nullptr && decision->order != protocol::PartOrder::commit) ||
                     std::holds_alternative<protocol::PartReport>(m);
    return cut && from != to && (from == 1 || to == 1);
  };
  grid.run_to(at_us(60'000'000));
  BOOST_TEST(grid.a.local().busy_nodes() == 8);
  BOOST_TEST(grid.b.local().busy_nodes() == 4);
  grid.run_to(at_us(60'001'000));
  BOOST_TEST(grid.a.local().busy_nodes() == 0);
  BOOST_TEST(grid.a.counters().split_aborts == 1U);
  BOOST_TEST(grid.b.local().busy_nodes() == 4);
  grid.run_to(at_us(64'000'999));
  BOOST_TEST(grid.b.local().busy_nodes() == 4);
  grid.run_to(at_us(64'001'000));
  BOOST_TEST(grid.b.local().busy_nodes() == 0);
  BOOST_TEST(grid.b.counters().parts_lapsed == 1U);
}

// At 54.001 s (half the job's work done) B's link share falls to 0.5: what
// is left runs 70 + 30 / 0.5 = 130 s x 0.5 = 65 s, so the job now ends at
// 119.001 s. The renewal with that end never reaches B (nor do the ones that
// follow), so B's part stops at 104.001 s and says so: A learns the job
// could not run whole and gives it up then, its own part with it.
BOOST_AUTO_TEST_CASE(a_part_that_missed_its_job_s_later_end_stops_the_job) {
  TwoSites grid(PeerSplit::a1, 1000);
  grid.a.submit(wide_job(1), TimePoint{});
  grid.settle(TimePoint{});
  grid.run_to(at_us(54'001'000));
  grid.drop = [](ServerIndex, ServerIndex to, const protocol::Message& m) {
    return to == 1 && std::holds_alternative<protocol::PartDecision>(m);
  };
  grid.a.on_message(1, protocol::PartReport{1, 1, protocol::PartState::share, 0.5, at_us(104'001'000)},
                    at_us(54'001'000));
  grid.settle(at_us(54'001'000));
  grid.run_to(at_us(104'000'999));
  BOOST_TEST(grid.a.local().busy_nodes() == 8);
  BOOST_TEST(grid.b.local().busy_nodes() == 4);
  grid.run_to(at_us(104'001'000));
  BOOST_TEST(grid.a.local().busy_nodes() == 0);
  BOOST_TEST(grid.b.local().busy_nodes() == 0);
  BOOST_TEST(grid.a.counters().split_aborts == 1U);
  BOOST_TEST(grid.ended.empty());
  BOOST_TEST(grid.a.undecided_jobs() == 1U);
}

// B's link (1000 Mb/s) carries a part of 600 Mb/s. A second origin, whose
// rule counted on B's reply from before it (A1 at LSLT 100%: at most 1000
// Mb/s with its part), asks B to hold 2 CPUs demanding 500 Mb/s: 1,100 is
// over the bound, so B refuses. The same part under a bound of 1,200 (B3,
// whose choice needed the link within 1000 Mb/s before its part: 600 + 500
// is allowed up to 1000 + 500 = 1,500) is held.
BOOST_AUTO_TEST_CASE(a_part_that_would_take_headroom_another_took_is_refused) {
  TwoSites grid(PeerSplit::a1, 1000);
  const TimePoint start = at_us(4'001'000);
  const TimePoint lease_end = start - microseconds(1000);
  const auto reports = [&grid] {
    std::vector<protocol::PartReport> out;
    for (SchedulerOutput& output : grid.b.take_outputs()) {
      const auto* send = std::get_if<SendMessage>(&output);
      if (send == nullptr) continue;
      if (const auto* report = std::get_if<protocol::PartReport>(&send->message)) out.push_back(*report);
    }
    return out;
  };
  grid.b.on_message(0, protocol::PartPrepare{wide_job(1), 1, 1000, 2, 600, start, lease_end, 1000}, TimePoint{});
  auto heard = reports();
  BOOST_REQUIRE(!heard.empty());
  BOOST_TEST((heard.front().state == protocol::PartState::prepared));
  grid.b.on_message(0, protocol::PartPrepare{wide_job(2), 1, 1000, 2, 500, start, lease_end, 1000}, TimePoint{});
  heard = reports();
  BOOST_REQUIRE(heard.size() == 1U);
  BOOST_TEST((heard.front().state == protocol::PartState::refused));
  BOOST_TEST(grid.b.local().pinned_jobs() == 1U);
  grid.b.on_message(0, protocol::PartPrepare{wide_job(3), 1, 1000, 2, 500, start, lease_end, 1500}, TimePoint{});
  heard = reports();
  BOOST_REQUIRE(!heard.empty());
  BOOST_TEST((heard.front().state == protocol::PartState::prepared));
  BOOST_TEST(grid.b.local().pinned_jobs() == 2U);
  BOOST_TEST(grid.b.counters().parts_held == 2U);
}

// B does not co-allocate: its replies offer no part, and a prepare sent to
// it anyway (a peer configured otherwise) is refused, with nothing held.
BOOST_AUTO_TEST_CASE(a_peer_that_does_not_coallocate_refuses_a_part) {
  TwoSites grid(PeerSplit::a1, 1000, PeerSplit::off);
  const TimePoint start = at_us(4'001'000);
  grid.b.on_message(0, protocol::PartPrepare{wide_job(1), 1, 1000, 4, 444.4, start, start - microseconds(1000)},
                    TimePoint{});
  std::vector<protocol::PartReport> reports;
  for (SchedulerOutput& output : grid.b.take_outputs()) {
    const auto* send = std::get_if<SendMessage>(&output);
    if (send == nullptr) continue;
    if (const auto* report = std::get_if<protocol::PartReport>(&send->message)) reports.push_back(*report);
  }
  BOOST_REQUIRE(reports.size() == 1U);
  BOOST_TEST((reports.front().state == protocol::PartState::refused));
  BOOST_TEST(grid.b.local().pinned_jobs() == 0U);
  BOOST_TEST(grid.b.counters().parts_held == 0U);
}

BOOST_AUTO_TEST_SUITE_END()
