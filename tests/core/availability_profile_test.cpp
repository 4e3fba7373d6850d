#include <boost/test/unit_test.hpp>

#include "peer/core/local/availability_profile.hpp"
#include "peer/model/rng.hpp"

using namespace gridpeer;

namespace {

bool no_equal_neighbours(const AvailabilityProfile& profile) {
  const auto steps = profile.steps();
  for (std::size_t i = 1; i < steps.size(); ++i) {
    if (steps[i].free == steps[i - 1].free || steps[i].at <= steps[i - 1].at) return false;
  }
  return true;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(availability_profile)

BOOST_AUTO_TEST_CASE(reservations_shape_the_step_function) {
  // 10 nodes; 4 busy over [0,10), 3 more over [5,20).
  AvailabilityProfile profile(10, TimePoint{});
  profile.reserve(at_seconds(0), at_seconds(10), 4);
  profile.reserve(at_seconds(5), at_seconds(20), 3);
  BOOST_TEST(profile.free_at(at_seconds(0)) == 6);
  BOOST_TEST(profile.free_at(at_seconds(5)) == 3);
  BOOST_TEST(profile.free_at(at_seconds(10)) == 7);
  BOOST_TEST(profile.free_at(at_seconds(20)) == 10);
  BOOST_TEST(profile.steps().size() == 4U);
  BOOST_TEST(no_equal_neighbours(profile));
}

BOOST_AUTO_TEST_CASE(earliest_fit_skips_holes_that_are_too_short) {
  AvailabilityProfile profile(10, TimePoint{});
  profile.reserve(at_seconds(0), at_seconds(10), 4);
  profile.reserve(at_seconds(5), at_seconds(20), 3);
  // 6 nodes: free 6 on [0,5) only -> a 5 s job fits at 0, a 6 s job at 10.
  BOOST_TEST((profile.earliest_fit(6, seconds(5), TimePoint{}) == at_seconds(0)));
  BOOST_TEST((profile.earliest_fit(6, seconds(6), TimePoint{}) == at_seconds(10)));
  // 8 nodes: only from 20.
  BOOST_TEST((profile.earliest_fit(8, seconds(1), TimePoint{}) == at_seconds(20)));
  // not_before inside a hole.
  BOOST_TEST((profile.earliest_fit(3, seconds(100), at_seconds(7)) == at_seconds(7)));
  BOOST_TEST((profile.earliest_fit(11, seconds(1), TimePoint{}) == kNever));
  BOOST_TEST(profile.fits_at(at_seconds(10), 7, seconds(10)));
  BOOST_TEST(!profile.fits_at(at_seconds(9), 7, seconds(10)));
}

BOOST_AUTO_TEST_CASE(release_undoes_reserve_and_merges_steps) {
  AvailabilityProfile profile(8, TimePoint{});
  profile.reserve(at_seconds(2), at_seconds(4), 3);
  profile.reserve(at_seconds(4), at_seconds(6), 3);  // merges with the previous
  BOOST_TEST(profile.steps().size() == 3U);
  profile.release(at_seconds(2), at_seconds(6), 3);
  BOOST_TEST(profile.steps().size() == 1U);
  BOOST_TEST(profile.free_at(at_seconds(3)) == 8);
}

BOOST_AUTO_TEST_CASE(advance_forgets_the_past) {
  AvailabilityProfile profile(8, TimePoint{});
  profile.reserve(at_seconds(0), at_seconds(10), 5);
  profile.advance_to(at_seconds(4));
  BOOST_TEST((profile.origin() == at_seconds(4)));
  BOOST_TEST(profile.free_at(at_seconds(4)) == 3);
  BOOST_TEST((profile.earliest_fit(4, seconds(1), TimePoint{}) == at_seconds(10)));
}

BOOST_AUTO_TEST_CASE(a_held_window_is_given_back_without_touching_the_profile) {
  // By hand: 10 nodes, 6 busy over [0,10), a job of 5 nodes held at [10,20).
  // Given back, it fits nowhere before 10: it stays. Once 2 more nodes are
  // free over [0,10), it would start at once.
  AvailabilityProfile profile(10, TimePoint{});
  profile.reserve(at_seconds(0), at_seconds(10), 6);
  profile.reserve(at_seconds(10), at_seconds(20), 5);
  BOOST_TEST((profile.earliest_fit_given_back(5, seconds(10), TimePoint{}, at_seconds(10)) == at_seconds(10)));
  profile.release(at_seconds(0), at_seconds(10), 2);
  BOOST_TEST((profile.earliest_fit_given_back(5, seconds(10), TimePoint{}, at_seconds(10)) == TimePoint{}));
  // Against giving it back for real, over random profiles (merged edges included).
  Rng rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    const int nodes = 16;
    AvailabilityProfile random(nodes, TimePoint{});
    for (int k = 0; k < 12; ++k) {
      const TimePoint start = at_seconds(rng.uniform_int(0, 40));
      const TimePoint end = start + seconds(rng.uniform_int(1, 20));
      const int want = static_cast<int>(rng.uniform_int(1, 6));
      if (random.fits_at(start, want, end - start)) random.reserve(start, end, want);
    }
    const int width = static_cast<int>(rng.uniform_int(1, nodes));
    const Duration length = seconds(rng.uniform_int(1, 15));
    const TimePoint held = random.earliest_fit(width, length, at_seconds(rng.uniform_int(0, 50)));
    random.reserve(held, held + length, width);
    AvailabilityProfile given_back = random;
    given_back.release(held, held + length, width);
    const TimePoint now = std::min(at_seconds(rng.uniform_int(0, 10)), held);  // a replan asks at or before it
    BOOST_TEST_REQUIRE((random.earliest_fit_given_back(width, length, now, held) ==
                        std::min(given_back.earliest_fit(width, length, now), held)),
                       "trial " << trial);
  }
}

BOOST_AUTO_TEST_SUITE_END()
