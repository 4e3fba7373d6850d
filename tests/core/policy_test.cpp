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
  BOOST_TEST(TurnaroundCost(0.05).choose(candidates, job, {}).value() == 1U);
  // With no tolerance the minimum ATT wins.
  BOOST_TEST(TurnaroundCost(0.0).choose(candidates, job, {}).value() == 0U);
  // Nobody can run it.
  const std::vector<SiteCandidate> impossible{candidate(0, kForever, 0.0)};
  BOOST_TEST(!TurnaroundCost(0.05).choose(impossible, job, {}).has_value());
  // The factory gives the same rule.
  const auto rule = make_site_selection({SiteRule::turnaround_cost, 0.05});
  BOOST_TEST(rule->name() == "turnaround-cost");
  BOOST_TEST(rule->choose(candidates, job, {}).value() == 1U);
}

BOOST_AUTO_TEST_CASE(allocation_rules_choose_among_replies_as_spec_case_1) {
  // Spec 004's case 1 among replies: self at 1000 MHz with 4 free CPUs (ATT
  // 100 s), a partner at 2000 MHz with 6 free (ATT 50 s); a job of 4 CPUs, two
  // more jobs (6 and 2 CPUs) in the grid queue. Effective speeds 1/100 and
  // 1/50 over their mean: 2/3 and 4/3, case 1's ratio. SH from the clocks:
  // 2/3 and 4/3, variance 1/9; SL = 12 / 10 = 1.2.
  const protocol::JobRequirements job{1, 0, 4, seconds(100), 1000, 0, 0};
  std::vector<SiteCandidate> candidates{candidate(0, seconds(100), 0.5), candidate(1, seconds(50), 0.4)};
  candidates[0].free_cpus = 4;
  candidates[0].mhz = 1000;
  candidates[1].free_cpus = 6;
  candidates[1].mhz = 2000;
  const std::vector<int> others{6, 2};
  const SelectionContext queued{others};
  const auto pick = [&](std::string_view rule, const SelectionContext& context) {
    const auto config = parse_site_rule(rule);
    BOOST_REQUIRE(config.has_value());
    return make_site_selection(*config)->choose(candidates, job, context);
  };
  // Situation (b): BF S1 (no leftover), FF S2 (least ATT), SI BF; TI (0.05, 2)
  // SL 1.2 low: FF. AI: TNoA 2 against 1, score 4/3 - 2/3 - 2/3 = 0: FF. AI2:
  // TCC_bf = 4 x 2/3 + 6 x 4/3 = 32/3, TCC_ff = 16/3, score 2 x 1/2 = 1: BF.
  // TAI (0.05, 1.5): SH high, SL low: FF. TAI2 (0.05, 1): both high: AI2, BF.
  const std::vector<std::pair<std::string_view, std::size_t>> in_b{{"bf", 0}, {"ff", 1},  {"si", 0},  {"ti", 1},
                                                                   {"ai", 1}, {"ai2", 0}, {"tai", 1}, {"tai2", 0}};
  for (const auto& [rule, expected] : in_b) BOOST_TEST(pick(rule, queued).value() == expected, rule);
  // Situation (a), nothing else queued: SI takes FF; AI and AI2 by eq. 7 the faster.
  for (const std::string_view rule : {"si", "ai", "ai2"}) BOOST_TEST(pick(rule, {}).value() == 1U, rule);
  // Data-aware FF: the faster clock behind a slow link (ATT 300 s) loses.
  candidates[1].att = seconds(300);
  BOOST_TEST(pick("ff", queued).value() == 0U);
  // A candidate that can never run the job is no site; indices stay the caller's.
  SiteCandidate never = candidate(5, kForever, 0.0);
  never.free_cpus = 64;
  never.mhz = 3000;
  candidates = {never, candidates[0], candidates[1]};
  BOOST_TEST(pick("ff", queued).value() == 1U);
  BOOST_TEST(pick("bf", queued).value() == 1U);
  // Nobody can start it now: 002's turnaround cost decides (least ATT, then RU within 5%).
  candidates[1].free_cpus = 2;
  candidates[2].free_cpus = 3;
  candidates[2].att = seconds(102);
  BOOST_TEST(pick("bf", queued).value() == 2U);  // 102 s is within 5% of 100 s and less used
  BOOST_TEST(!parse_site_rule("best").has_value());
  BOOST_TEST(site_rule_name(*parse_site_rule("tai2")) == "tai2");
  BOOST_TEST(site_rule_name(*parse_site_rule("tc")) == "tc");
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
