// The driver's map from the ids peers give jobs back to the trace's jobs.
#include <boost/test/unit_test.hpp>
#include <utility>
#include <vector>

#include "peer/model/ids.hpp"
#include "sim/driver/job_index.hpp"

using namespace gridpeer;
using namespace gridpeer::sim;

BOOST_AUTO_TEST_SUITE(job_index)

BOOST_AUTO_TEST_CASE(ids_from_each_origin_find_their_jobs) {
  // Two origins; origin 1 restarts (incarnation 2) after its second job.
  JobIndex index(2);
  const JobId a = job_id_of(0, job_sequence_of(1, 1));
  const JobId b = job_id_of(1, job_sequence_of(1, 1));
  const JobId c = job_id_of(1, job_sequence_of(1, 2));
  const JobId d = job_id_of(1, job_sequence_of(2, 1));
  index.add(a, 0);
  index.add(b, 1);
  index.add(c, 2);
  index.add(d, 3);
  BOOST_TEST(index.find(a).value() == 0U);
  BOOST_TEST(index.find(b).value() == 1U);
  BOOST_TEST(index.find(c).value() == 2U);
  BOOST_TEST(index.find(d).value() == 3U);
  BOOST_TEST(!index.find(job_id_of(0, job_sequence_of(1, 2))).has_value());
  BOOST_TEST(!index.find(job_id_of(7, 1)).has_value());  // an origin the grid does not have
  // Origin 1's jobs in the order it numbered them: the restart's last.
  std::vector<std::pair<JobId, std::size_t>> seen;
  index.for_each_of(1, [&](JobId id, std::size_t at) { seen.emplace_back(id, at); });
  BOOST_TEST((seen == std::vector<std::pair<JobId, std::size_t>>{{b, 1}, {c, 2}, {d, 3}}));
  seen.clear();
  index.for_each_of(9, [&](JobId id, std::size_t at) { seen.emplace_back(id, at); });
  BOOST_TEST(seen.empty());
}

BOOST_AUTO_TEST_CASE(out_of_order_ids_are_kept_sorted_and_the_first_add_stands) {
  JobIndex index(1);
  index.add(30, 0);
  index.add(10, 1);
  index.add(20, 2);
  index.add(10, 9);  // again: the first stands
  BOOST_TEST(index.find(10).value() == 1U);
  BOOST_TEST(index.find(20).value() == 2U);
  BOOST_TEST(index.find(30).value() == 0U);
  BOOST_TEST(!index.find(15).has_value());
  // Under one list, ids whose top bits name no origin still go there.
  index.add(job_id_of(5, 1), 4);
  BOOST_TEST(index.find(job_id_of(5, 1)).value() == 4U);
}

BOOST_AUTO_TEST_CASE(ids_with_gaps_are_found_where_their_distance_from_the_first_misleads) {
  // Consecutive ids sit as far from the first entry as they are from the
  // first id; after a gap (a restart's new incarnation) that guess is wrong
  // and the search finds them.
  JobIndex index(1);
  for (const JobId id : {3, 4, 5, 9, 10, 40}) index.add(id, static_cast<std::size_t>(id) * 2);
  BOOST_TEST(index.find(3).value() == 6U);    // the first
  BOOST_TEST(index.find(5).value() == 10U);   // guessed at its place
  BOOST_TEST(index.find(9).value() == 18U);   // guessed at place 6: past the end
  BOOST_TEST(index.find(10).value() == 20U);  // guessed at place 7: past the end
  BOOST_TEST(index.find(40).value() == 80U);
  BOOST_TEST(!index.find(2).has_value());  // below the first
  BOOST_TEST(!index.find(6).has_value());  // guessed at place 3, which holds 9
  BOOST_TEST(!index.find(41).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
