// Site selection and the ATT estimate, on cases worked out by hand.
#include <boost/test/unit_test.hpp>
#include <vector>

#include "peer/core/local/local_scheduler.hpp"
#include "peer/core/policy/estimate.hpp"
#include "peer/core/policy/site_selection.hpp"
#include "peer/core/policy/turnaround_cost.hpp"
#include "tests/support/fixed_network.hpp"

using namespace gridpeer;

namespace {

SiteCandidate candidate(ServerIndex server, Duration att, double ru) {
  SiteCandidate c;
  c.server = server;
  c.att = att;
  c.ru = ru;
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(policy)

BOOST_AUTO_TEST_CASE(turnaround_cost_prefers_low_utilisation_among_near_ties) {
  const protocol::JobRequirements job{};
  const std::vector<SiteCandidate> candidates{candidate(0, seconds(100), 0.9), candidate(1, seconds(104), 0.2),
                                              candidate(2, seconds(106), 0.0), candidate(3, kForever, 0.0)};
  // Within 5% of 100 s: servers 0 and 1; server 1 is less used.
  BOOST_TEST(TurnaroundCost(0.05).choose(candidates, job).value() == 1U);
  // With no tolerance the minimum ATT wins.
  BOOST_TEST(TurnaroundCost(0.0).choose(candidates, job).value() == 0U);
  // Nobody can run it.
  const std::vector<SiteCandidate> impossible{candidate(0, kForever, 0.0)};
  BOOST_TEST(!TurnaroundCost(0.05).choose(impossible, job).has_value());
  // The factory gives the same rule.
  const auto rule = make_site_selection({SiteRule::turnaround_cost, 0.05});
  BOOST_TEST(rule->name() == "turnaround-cost");
  BOOST_TEST(rule->choose(candidates, job).value() == 1U);
}

BOOST_AUTO_TEST_CASE(att_is_the_wait_or_the_input_then_the_scaled_run_and_the_output) {
  // Server 1: 4 single-CPU nodes at 500 MHz, all busy for 50 s (planned).
  // A 2-CPU job from server 0 (1000 MHz) asking 100 s there runs
  // ERT = 100 x 1000 / 500 = 200 s here. Every transfer takes 30 s.
  // ATT = max(AWT 50, ADT in 30) + 200 + ADT out 30 = 280 s; data-blind: 250 s.
  LocalScheduler local(ServerSpec{"B", 4, 1, 500, 0}, {LocalPolicy::easy, 0});
  BOOST_REQUIRE(local.submit({1, 4, seconds(50), seconds(40)}, TimePoint{}));
  testing::FixedNetwork network;
  network.delay = seconds(30);
  const protocol::JobRequirements job{7, 0, 2, seconds(100), 1000, 0, 0};
  const SiteCandidate c = estimate_candidate(job, 1, local, network, false);
  BOOST_TEST(c.awt.count() == seconds(50).count());
  BOOST_TEST(c.att.count() == seconds(280).count());
  BOOST_TEST(c.ru == 1.0);
  BOOST_TEST(c.free_cpus == 0);
  BOOST_TEST(c.total_cpus == 4);
  BOOST_TEST(c.mhz == 500);
  BOOST_TEST(estimate_candidate(job, 1, local, network, true).att.count() == seconds(250).count());
  // An input slower than the wait holds the start back: 80 s of input.
  network.delay = seconds(80);
  BOOST_TEST(estimate_candidate(job, 1, local, network, false).att.count() == seconds(80 + 200 + 80).count());
  // A job wider than the server can never run there.
  const protocol::JobRequirements wide{8, 0, 5, seconds(100), 1000, 0, 0};
  BOOST_TEST((estimate_candidate(wide, 1, local, network, false).att == kForever));
}

BOOST_AUTO_TEST_CASE(a_reply_carries_the_candidate_there_and_back) {
  SiteCandidate c = candidate(3, seconds(12), 0.5);
  c.awt = seconds(2);
  c.free_cpus = 16;
  c.total_cpus = 64;
  c.mhz = 375;
  c.queue_length = 4;
  const SiteCandidate back = candidate_of(3, reply_of(9, 42, c));
  BOOST_TEST((back.att == c.att && back.awt == c.awt));
  BOOST_TEST((back.ru == c.ru && back.free_cpus == 16 && back.total_cpus == 64 && back.mhz == 375));
  BOOST_TEST(back.queue_length == 4U);
}

BOOST_AUTO_TEST_SUITE_END()
