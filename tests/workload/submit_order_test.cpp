// Submit order: a workload of sorted streams merged, and any workload sorted,
// always as one stable sort by submit time would order it.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <stdexcept>
#include <vector>

#include "peer/model/rng.hpp"
#include "peer/workload/submit_order.hpp"

using namespace gridpeer;

namespace {

Job job_at(JobId id, std::int64_t submit_s) {
  Job job;
  job.id = id;
  job.submit = at_seconds(submit_s);
  return job;
}

std::vector<JobId> ids_of(const std::vector<Job>& jobs) {
  std::vector<JobId> ids;
  for (const Job& job : jobs) ids.push_back(job.id);
  return ids;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(submit_order)

BOOST_AUTO_TEST_CASE(three_streams_merge_with_ties_taken_stream_by_stream) {
  // Stream 1: 1@0 2@5 3@9; stream 2: 4@5 5@5 6@7; stream 3: 7@0 8@9.
  // At 0: 1 then 7; at 5: 2 (stream 1), then 4 and 5; 6@7; at 9: 3 then 8.
  std::vector<Job> jobs{job_at(1, 0), job_at(2, 5), job_at(3, 9), job_at(4, 5),
                        job_at(5, 5), job_at(6, 7), job_at(7, 0), job_at(8, 9)};
  const std::vector<std::size_t> ends{3, 6, 8};
  workload::sort_by_submit(jobs, ends);
  const std::vector<JobId> expected{1, 7, 2, 4, 5, 6, 3, 8};
  BOOST_TEST(ids_of(jobs) == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_stream_out_of_order_is_sorted_before_the_merge) {
  // Stream 1 (3@4 1@2 2@2) is not sorted: 1@2 2@2 3@4; stream 2: 4@2.
  std::vector<Job> jobs{job_at(3, 4), job_at(1, 2), job_at(2, 2), job_at(4, 2)};
  const std::vector<std::size_t> ends{3};
  workload::sort_by_submit(jobs, ends);
  const std::vector<JobId> expected{1, 2, 4, 3};
  BOOST_TEST(ids_of(jobs) == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(any_streams_give_what_one_stable_sort_gives) {
  Rng rng(2026);
  for (int round = 0; round < 200; ++round) {
    const auto streams = static_cast<std::size_t>(rng.uniform_int(0, 9));
    std::vector<Job> jobs;
    std::vector<std::size_t> ends;
    for (std::size_t s = 0; s < streams; ++s) {
      const auto count = rng.uniform_int(0, 12);
      const bool sorted = rng.uniform_int(0, 3) != 0;
      std::int64_t at = rng.uniform_int(0, 5);
      for (std::int64_t i = 0; i < count; ++i) {
        // Few distinct instants, so that ties within and across streams are common.
        at = sorted ? at + rng.uniform_int(0, 2) : rng.uniform_int(0, 20);
        jobs.push_back(job_at(static_cast<JobId>(jobs.size() + 1), at));
      }
      ends.push_back(jobs.size());
    }
    std::vector<Job> expected = jobs;
    std::stable_sort(expected.begin(), expected.end(), [](const Job& a, const Job& b) { return a.submit < b.submit; });
    workload::sort_by_submit(jobs, ends);
    BOOST_TEST_REQUIRE(ids_of(jobs) == ids_of(expected), boost::test_tools::per_element());
    // Without the streams' ends the whole is one run: the same order.
    std::vector<Job> whole = expected;
    std::reverse(whole.begin(), whole.end());
    std::vector<Job> again = whole;
    std::stable_sort(again.begin(), again.end(), [](const Job& a, const Job& b) { return a.submit < b.submit; });
    workload::sort_by_submit(whole);
    BOOST_TEST_REQUIRE(ids_of(whole) == ids_of(again), boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_CASE(ends_that_fall_or_pass_the_jobs_are_refused) {
  std::vector<Job> jobs{job_at(1, 0), job_at(2, 1)};
  const std::vector<std::size_t> falling{2, 1};
  const std::vector<std::size_t> beyond{3};
  BOOST_CHECK_THROW(workload::sort_by_submit(jobs, falling), std::invalid_argument);
  BOOST_CHECK_THROW(workload::sort_by_submit(jobs, beyond), std::invalid_argument);
  BOOST_TEST(ids_of(jobs) == (std::vector<JobId>{1, 2}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
