// Shih, Huang & Chung's eight site-selection rules (Shih, Huang & Chung 2010) on states worked
// by hand (our reading of Shih, Huang & Chung 2010, case 1 and the rules' edges).
#include <boost/test/unit_test.hpp>
#include <vector>

#include "peer/core/policy/processor_allocation.hpp"

using namespace gridpeer;

namespace {

std::optional<std::size_t> pick(AllocationRuleKind kind, const AllocationState& state, double sht, double slt) {
  return make_allocation_rule({kind, sht, slt})->choose(state);
}

std::optional<std::size_t> pick(AllocationRuleKind kind, const AllocationState& state) {
  const AllocationRuleConfig config = default_allocation_rule(kind);
  return make_allocation_rule(config)->choose(state);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(processor_allocation)

BOOST_AUTO_TEST_CASE(case_1_one_state_in_situation_b) {
  // S1: speed 1, 4 free; S2: speed 2, 6 free; queue NRPs [4, 6, 2].
  const std::vector<AllocationSite> sites{{4, 1.0}, {6, 2.0}};
  const std::vector<int> waiting{4, 6, 2};
  AllocationState state{sites, waiting, false, speed_heterogeneity(sites)};
  BOOST_TEST(state.heterogeneity == 0.25);
  BOOST_TEST(system_load(state) == 1.2);
  BOOST_TEST(*pick(AllocationRuleKind::bf, state) == 0U);
  BOOST_TEST(*pick(AllocationRuleKind::ff, state) == 1U);
  BOOST_TEST(*pick(AllocationRuleKind::si, state) == 0U);
  BOOST_TEST(*pick(AllocationRuleKind::ti, state, 0.05, 2) == 1U);  // SL 1.2 <= 2: FF
  BOOST_TEST(*pick(AllocationRuleKind::ti, state, 0.05, 1) == 0U);  // SL 1.2 > 1: BF
  // AI: by BF the head and J2 are placed (TNoA 2); by FF J2 fits nowhere, so
  // J3 is not counted though it fits (TNoA 1). Score 2 - 1 - 1 x 1 = 0: FF.
  BOOST_TEST(allocation_chain(state, 0).placed == 2);
  BOOST_TEST(allocation_chain(state, 1).placed == 1);
  BOOST_TEST(*pick(AllocationRuleKind::ai, state) == 1U);
  // AI2: TCC_bf = 1x4 + 2x6 = 16, TCC_ff = 2x4 = 8; score 2 x 0.5 = 1, not above: BF.
  BOOST_TEST(allocation_chain(state, 0).capacity == 16.0);
  BOOST_TEST(allocation_chain(state, 1).capacity == 8.0);
  BOOST_TEST(*pick(AllocationRuleKind::ai2, state) == 0U);
  // SH 0.25 is high: TAI (0.05, 1.5) with SL low takes FF; TAI2 (0.05, 1),
  // high and high, asks AI2: BF.
  BOOST_TEST(*pick(AllocationRuleKind::tai, state) == 1U);
  BOOST_TEST(*pick(AllocationRuleKind::tai2, state) == 0U);
}

BOOST_AUTO_TEST_CASE(situation_a_and_the_shortcut) {
  const std::vector<AllocationSite> sites{{4, 1.0}, {6, 2.0}};
  const std::vector<int> head{4};
  AllocationState state{sites, head, true, speed_heterogeneity(sites)};
  BOOST_TEST(*pick(AllocationRuleKind::si, state) == 1U);            // queue was empty: FF
  BOOST_TEST(*pick(AllocationRuleKind::ti, state) == 1U);            // SH 0.25 > 0.05: FF
  BOOST_TEST(*pick(AllocationRuleKind::ti, state, 0.3, 2) == 0U);    // SH low: BF
  BOOST_TEST(*pick(AllocationRuleKind::ai, state) == 1U);            // eq. 7: CS_bf 1 < CS_ff 2: FF
  BOOST_TEST(*pick(AllocationRuleKind::tai2, state) == 1U);          // SH high, SL 0 low: FF
  BOOST_TEST(*pick(AllocationRuleKind::tai2, state, 0.3, 1) == 1U);  // both low: AI2, eq. 7: FF
  // Equal speeds: eq. 7 keeps BF.
  const std::vector<AllocationSite> even{{4, 1.0}, {6, 1.0}};
  AllocationState flat{even, head, true, speed_heterogeneity(even)};
  BOOST_TEST(flat.heterogeneity == 0.0);
  BOOST_TEST(*pick(AllocationRuleKind::ai, flat) == 0U);
  BOOST_TEST(*pick(AllocationRuleKind::ff, flat) == 0U);  // ties: lowest index (first fit at SH 0)
  // One site fits: every rule takes it.
  const std::vector<int> wide{5};
  AllocationState only{sites, wide, false, 0.25};
  for (const auto kind :
       {AllocationRuleKind::bf, AllocationRuleKind::ff, AllocationRuleKind::si, AllocationRuleKind::ti,
        AllocationRuleKind::ai, AllocationRuleKind::ai2, AllocationRuleKind::tai, AllocationRuleKind::tai2}) {
    BOOST_TEST(*pick(kind, only) == 1U, to_string(kind));
  }
  // None fits: the head waits.
  const std::vector<int> huge{7};
  AllocationState none{sites, huge, false, 0.25};
  BOOST_TEST(!pick(AllocationRuleKind::tai2, none));
}

BOOST_AUTO_TEST_CASE(names_round_trip) {
  for (const char* name : {"bf", "ff", "si", "ti", "ai", "ai2", "tai", "tai2"}) {
    const auto kind = parse_allocation_rule(name);
    BOOST_REQUIRE(kind);
    BOOST_TEST(to_string(*kind) == name);
  }
  BOOST_TEST(!parse_allocation_rule("best-fit"));
  BOOST_CHECK_THROW(make_allocation_rule({AllocationRuleKind::ti, -1, 2}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_reachable_prefix_decides_as_the_whole_queue) {
  // The meta-scheduler hands a rule only the first (free + 1) waiting jobs and
  // the queue's total: every rule must decide as on the whole queue. Free: 3 +
  // 5 = 8, so 9 jobs of one processor or more cover any chain.
  const std::vector<AllocationSite> sites{{3, 1.0}, {5, 1.6}};
  std::vector<int> whole;
  for (int i = 0; i < 40; ++i) whole.push_back(1 + (i * 7) % 5);  // 1..5 processors
  whole.front() = 2;
  double total = 0;
  for (const int processors : whole) total += processors;
  const std::vector<int> prefix(whole.begin(), whole.begin() + 9);
  for (const bool empty_queue : {false, true}) {
    const AllocationState full{sites, whole, empty_queue, speed_heterogeneity(sites)};
    const AllocationState cut{sites, prefix, empty_queue, speed_heterogeneity(sites), total};
    BOOST_TEST(system_load(cut) == system_load(full));
    BOOST_TEST(system_load(full) == total / 8);
    for (std::size_t first = 0; first < sites.size(); ++first) {
      BOOST_TEST(allocation_chain(cut, first).placed == allocation_chain(full, first).placed);
      BOOST_TEST(allocation_chain(cut, first).capacity == allocation_chain(full, first).capacity);
    }
    for (const auto kind :
         {AllocationRuleKind::bf, AllocationRuleKind::ff, AllocationRuleKind::si, AllocationRuleKind::ti,
          AllocationRuleKind::ai, AllocationRuleKind::ai2, AllocationRuleKind::tai, AllocationRuleKind::tai2}) {
      for (const double slt : {1.0, 20.0}) {
        BOOST_TEST((pick(kind, cut, 0.05, slt) == pick(kind, full, 0.05, slt)), to_string(kind) << " SLT " << slt);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
