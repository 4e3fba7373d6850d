// The guarantee 001's fairness rests on, in randomised states: under EASY and
// conservative backfilling with exact estimates, a job whose input is in
// never starts later than the first reservation it was given, and no such
// reservation ever moves later -- whatever else happens: new jobs, guests
// taken on reservation-safe nodes (fair P2P: input staged, arriving early or
// late), jobs withdrawn (ICS+B: placed elsewhere), parts pinned on
// reservation-safe nodes, jobs ending.
#include <boost/test/unit_test.hpp>
#include <map>
#include <set>

#include "peer/core/local/local_scheduler.hpp"
#include "peer/model/rng.hpp"

using namespace gridpeer;

BOOST_AUTO_TEST_SUITE(reservation_guarantee)

BOOST_AUTO_TEST_CASE(no_reservation_is_ever_delayed) {
  const std::vector<LocalPolicyConfig> policies{{LocalPolicy::easy, 0},
                                                {LocalPolicy::conservative, 0},
                                                {LocalPolicy::conservative, 3},
                                                {LocalPolicy::conservative, 10}};
  constexpr int kSeedsPerPolicy = 30;
  constexpr int kOperations = 150;
  std::size_t checked_starts = 0;
  std::size_t guests = 0;
  std::size_t withdrawn = 0;
  std::size_t pinned = 0;
  for (const LocalPolicyConfig& policy : policies) {
    for (std::uint64_t seed = 1; seed <= kSeedsPerPolicy; ++seed) {
      Rng rng(seed * 100 + static_cast<std::uint64_t>(policy.reservation_depth));
      const ServerSpec server{"s", static_cast<int>(rng.uniform_int(4, 32)), 1, 1000, 0};
      LocalScheduler local(server, policy);
      std::map<JobId, TimePoint> first_reserved;  // jobs whose input is in
      std::map<JobId, TimePoint> last_reserved;
      std::map<JobId, TimePoint> input_at;  // guests: when their input really lands
      std::set<JobId> waiting;
      std::set<JobId> waiting_for_input;
      TimePoint now{};
      JobId next = 1;
      const auto observe = [&] {
        for (const LocalEvent& e : local.take_events()) {
          if (e.kind != LocalEvent::Kind::started) continue;
          waiting.erase(e.id);
          const auto first = first_reserved.find(e.id);
          if (first == first_reserved.end()) continue;
          ++checked_starts;
          BOOST_TEST(e.at <= first->second, "policy " << to_string(policy.policy) << " depth "
                                                      << policy.reservation_depth << " seed " << seed << " job " << e.id
                                                      << " started after its first reservation");
        }
        for (const Reservation& r : local.reservation_schedule()) {
          if (r.running || r.pinned || waiting_for_input.count(r.id) != 0U) continue;
          first_reserved.emplace(r.id, r.start);
          const auto [it, fresh] = last_reserved.emplace(r.id, r.start);
          BOOST_TEST((fresh || r.start <= it->second), "policy " << to_string(policy.policy) << " depth "
                                                                 << policy.reservation_depth << " seed " << seed
                                                                 << " job " << r.id << " reservation moved later");
          it->second = r.start;
        }
      };
      for (int op = 0; op < kOperations; ++op) {
        now += seconds(rng.uniform_int(0, 40));
        // Inputs due by now land (some later than expected).
        for (auto it = input_at.begin(); it != input_at.end();) {
          if (it->second > now) {
            ++it;
            continue;
          }
          local.input_arrived(it->first, it->second > local.now() ? it->second : local.now());
          waiting_for_input.erase(it->first);
          it = input_at.erase(it);
          observe();
        }
        local.advance(now);
        observe();
        const int nodes = static_cast<int>(rng.uniform_int(1, server.nodes));
        const Duration run = seconds(rng.uniform_int(1, 200));
        const double draw = rng.uniform(0, 1);
        if (draw < 0.55) {  // an own job, exact estimate
          BOOST_REQUIRE(local.submit({next, nodes, run, run}, now));
          waiting.insert(next++);
        } else if (draw < 0.75) {  // a guest, taken only on reservation-safe nodes at its input's landing
          const Duration transfer = seconds(rng.uniform_int(0, 60));
          if (local.reservation_safe_nodes(now + transfer, run) >= nodes) {
            BOOST_REQUIRE(local.submit({next, nodes, run, run, now + transfer}, now));
            // Its input lands up to 30 s early or late.
            const Duration skew = seconds(rng.uniform_int(-30, 30));
            input_at[next] = std::max(now, now + transfer + skew);
            waiting_for_input.insert(next);
            waiting.insert(next++);
            ++guests;
          }
        } else if (draw < 0.85 && !waiting.empty()) {  // a waiting job placed elsewhere
          const auto pick =
              std::next(waiting.begin(), rng.uniform_int(0, static_cast<std::int64_t>(waiting.size()) - 1));
          if (waiting_for_input.count(*pick) == 0U && local.withdraw(*pick, now)) {
            first_reserved.erase(*pick);
            waiting.erase(pick);
            ++withdrawn;
          }
        } else if (local.reservation_safe_nodes(now, run) >= nodes) {  // a part pinned now, safely
          BOOST_REQUIRE(local.submit({next++, nodes, run, run, std::nullopt, now}, now));
          ++pinned;
        }
        observe();
        BOOST_CHECK_NO_THROW(local.check_invariants());
      }
    }
  }
  BOOST_TEST(checked_starts > 2000U);
  BOOST_TEST(guests > 200U);
  BOOST_TEST(withdrawn > 200U);
  BOOST_TEST(pinned > 100U);
}

BOOST_AUTO_TEST_SUITE_END()
