// The meta-scheduler's global queue against a plain list of waiting jobs:
// the earliest job from a position on (of at most some width), every waiting
// job in arrival order, the counts, through random pushes and erasures --
// under first fit, from anywhere in the queue, so that it holds gaps and its
// index is remade as positions run past it.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "peer/core/meta/global_queue.hpp"
#include "peer/model/rng.hpp"

using namespace gridpeer;

namespace {

struct Waiting {
  GlobalQueue::Position position;
  Job job;
};

std::optional<GlobalQueue::Position> reference_first(const std::vector<Waiting>& waiting, GlobalQueue::Position from,
                                                     std::optional<int> widest) {
  for (const Waiting& w : waiting) {
    if (w.position >= from && (!widest || w.job.cpus <= *widest)) return w.position;
  }
  return std::nullopt;
}

Job job_of(JobId id, int cpus, ServerIndex origin) {
  Job job;
  job.id = id;
  job.cpus = cpus;
  job.origin = origin;
  return job;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(global_queue)

BOOST_AUTO_TEST_CASE(first_fit_skips_wider_and_earlier_jobs) {
  GlobalQueue queue(2);
  const auto a = queue.push(job_of(1, 40, 0));  // 0
  const auto b = queue.push(job_of(2, 10, 1));  // 1
  const auto c = queue.push(job_of(3, 30, 0));  // 2
  const auto d = queue.push(job_of(4, 10, 0));  // 3
  BOOST_TEST(*queue.first(0) == a);
  BOOST_TEST(*queue.first(0, 20) == b);
  BOOST_TEST(*queue.first(b + 1, 20) == d);
  BOOST_TEST(*queue.first(b + 1, 35) == c);
  BOOST_TEST(!queue.first(0, 5).has_value());
  queue.erase(b);
  BOOST_TEST(*queue.first(0, 20) == d);
  BOOST_TEST(queue.waiting_from(0) == 3U);
  BOOST_TEST(queue.waiting_from(1) == 0U);
  BOOST_TEST(queue.total_cpus() == 80);
  BOOST_TEST(*queue.narrowest() == 10);
  BOOST_CHECK_THROW((void)queue.at(b), std::out_of_range);  // job 2 waits no more
  BOOST_TEST(queue.at(c).id == 3U);
  queue.erase(a);
  BOOST_TEST(*queue.first(0) == c);
  BOOST_TEST(queue.at(c).id == 3U);
  queue.erase(c);
  queue.erase(d);
  BOOST_TEST(queue.empty());
  BOOST_TEST(!queue.first(0).has_value());
  // Positions are never reused.
  BOOST_TEST(queue.push(job_of(5, 10, 1)) == d + 1);
}

BOOST_AUTO_TEST_CASE(absurdly_wide_jobs_wait_like_any_other) {
  // A request for a billion CPUs, or for the most an int holds, is a
  // mistake no grid can run; it waits (nothing places it) without the
  // queue's counts growing with its width, and is found only by a search
  // without a bound.
  GlobalQueue queue(1);
  const int most = std::numeric_limits<int>::max();
  const auto huge = queue.push(job_of(1, most, 0));
  const auto big = queue.push(job_of(2, 1'000'000'000, 0));
  BOOST_TEST(*queue.narrowest() == 1'000'000'000);
  BOOST_TEST(*queue.first(0) == huge);
  BOOST_TEST(*queue.first(huge + 1) == big);
  BOOST_TEST(!queue.first(0, 1'000'000).has_value());
  const auto small = queue.push(job_of(3, 8, 0));
  BOOST_TEST(*queue.narrowest() == 8);
  BOOST_TEST(*queue.first(0, 8) == small);
  queue.erase(small);
  BOOST_TEST(*queue.narrowest() == 1'000'000'000);
  queue.erase(big);
  BOOST_TEST(*queue.narrowest() == most - 1);  // counted one short of the empty-place mark
  BOOST_TEST(queue.at(huge).cpus == most);
  BOOST_TEST(queue.total_cpus() == most);
  queue.erase(huge);
  BOOST_TEST(queue.empty());
}

BOOST_AUTO_TEST_CASE(random_pushes_and_erasures_agree_with_a_plain_list) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    Rng rng(seed);
    GlobalQueue queue(3);
    std::vector<Waiting> waiting;
    JobId next_id = 1;
    // Some seeds keep the queue short (positions run far past a small index),
    // others let it grow into the thousands, and some grow it past a few
    // hundred and drain it again, twice (the queue keeps its tree of widths
    // only while it is long).
    for (int step = 0; step < 4000; ++step) {
      const bool filling = (step / 1000) % 2 == 0;
      const double push_share = seed % 3 == 0 ? (filling ? 0.8 : 0.25) : (seed % 2 == 0 ? 0.5 : 0.65);
      if (waiting.empty() || rng.bernoulli(push_share)) {
        const Job job = job_of(next_id++, static_cast<int>(rng.uniform_int(1, 64)),
                               static_cast<ServerIndex>(rng.uniform_int(0, 2)));
        waiting.push_back({queue.push(job), job});
      } else {
        // Often the front (strict FCFS), else anywhere (first fit).
        const auto k =
            rng.bernoulli(0.3)
                ? 0
                : static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(waiting.size()) - 1));
        queue.erase(waiting[k].position);
        waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(k));
      }
      BOOST_REQUIRE_EQUAL(queue.size(), waiting.size());
      std::optional<int> narrowest;
      for (const Waiting& w : waiting) narrowest = std::min(narrowest.value_or(w.job.cpus), w.job.cpus);
      BOOST_REQUIRE(queue.narrowest() == narrowest);
      const GlobalQueue::Position last = waiting.empty() ? 0 : waiting.back().position;
      for (int probe = 0; probe < 3; ++probe) {
        const auto from = static_cast<GlobalQueue::Position>(rng.uniform_int(0, static_cast<std::int64_t>(last) + 2));
        const std::optional<int> widest =
            rng.bernoulli(0.2) ? std::nullopt : std::optional<int>(static_cast<int>(rng.uniform_int(0, 64)));
        BOOST_REQUIRE(queue.first(from, widest) == reference_first(waiting, from, widest));
      }
    }
    std::vector<JobId> order;
    queue.for_each([&](const Job& job) { order.push_back(job.id); });
    std::vector<JobId> expected;
    std::int64_t cpus = 0;
    std::vector<std::size_t> per_origin(3, 0);
    for (const Waiting& w : waiting) {
      expected.push_back(w.job.id);
      cpus += w.job.cpus;
      ++per_origin[w.job.origin];
      BOOST_REQUIRE(queue.at(w.position) == w.job);
    }
    BOOST_TEST(order == expected, boost::test_tools::per_element());
    BOOST_TEST(queue.total_cpus() == cpus);
    for (ServerIndex origin = 0; origin < 3; ++origin) BOOST_TEST(queue.waiting_from(origin) == per_origin[origin]);
    std::vector<JobId> prefix;
    queue.for_each_while([&](const Job& job) {
      prefix.push_back(job.id);
      return prefix.size() < 5;
    });
    expected.resize(std::min<std::size_t>(expected.size(), 5));
    BOOST_TEST(prefix == expected, boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_SUITE_END()
