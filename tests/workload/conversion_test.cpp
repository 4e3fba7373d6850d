// SWF records to jobs; calendar windows and shifting.
#include <boost/test/unit_test.hpp>
#include <sstream>

#include "peer/io/grid_jobs/grid_workload.hpp"
#include "peer/workload/calendar.hpp"
#include "peer/workload/swf_jobs.hpp"

using namespace gridpeer;
using namespace gridpeer::workload;

BOOST_AUTO_TEST_SUITE(conversion)

BOOST_AUTO_TEST_CASE(calendar_arithmetic) {
  BOOST_TEST(unix_time({2002, 3, 1}) == 1014940800);
  BOOST_TEST(unix_time({2000, 2, 29}) == 951782400);
  BOOST_TEST(days_from_civil({1970, 1, 1}) == 0);
  BOOST_TEST(days_from_civil({1969, 12, 31}) == -1);
  BOOST_TEST(unix_time({1600, 3, 1}) == -11670912000LL);
  for (std::int64_t day = -200000; day < 200000; day += 997) {
    BOOST_TEST(days_from_civil(civil_from_days(day)) == day);
  }
  BOOST_TEST(parse_date("2002-09-01").has_value());
  BOOST_TEST(!parse_date("2002-02-29").has_value());
  BOOST_TEST(parse_date("2000-02-29").has_value());
  BOOST_TEST(!parse_date("2002-13-01").has_value());
  BOOST_TEST(!parse_date("2002/03/01").has_value());
  BOOST_TEST(to_string(CivilDate{2002, 3, 1}) == "2002-03-01");
}

namespace {

SwfRecord record(std::int64_t submit, std::int64_t run, std::int64_t allocated, std::int64_t requested_procs,
                 std::int64_t requested_time) {
  SwfRecord r;
  r.submit_time = submit;
  r.run_time = run;
  r.allocated_processors = allocated;
  r.requested_processors = requested_procs;
  r.requested_time = requested_time;
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(fields_map_to_jobs_and_unknowns_are_counted) {
  const std::vector<SwfRecord> records{
      record(100, 50, 8, 16, 60),    // allocated processors win; estimate kept
      record(50, 30, -1, 4, -1),     // requested processors; estimate from run time; sorted first
      record(200, -1, 4, 4, 100),    // no run time: dropped
      record(300, 0, 4, 4, 100),     // zero run time: dropped by default
      record(400, 10, -1, -1, 100),  // no processors: dropped
      record(500, 90, 2, 2, 60),     // estimate below run time: raised to 90
      record(-1, 10, 2, 2, 60),      // no submit time: dropped
  };
  SwfConversionReport report;
  const std::vector<Job> jobs = jobs_from_swf(records, SwfHeader{}, {}, &report);
  BOOST_REQUIRE(jobs.size() == 3U);
  BOOST_TEST(jobs[0].id == 0U);
  BOOST_TEST(jobs[0].cpus == 4);
  BOOST_TEST((jobs[0].submit == at_seconds(50)));
  BOOST_TEST(jobs[0].requested_time.count() == seconds(30).count());
  BOOST_TEST(jobs[1].cpus == 8);
  BOOST_TEST(jobs[1].requested_time.count() == seconds(60).count());
  BOOST_TEST(jobs[2].requested_time.count() == seconds(90).count());
  BOOST_TEST(report.records == 7U);
  BOOST_TEST(report.converted == 3U);
  BOOST_TEST(report.unknown_run_time == 1U);
  BOOST_TEST(report.zero_run_time == 1U);
  BOOST_TEST(report.unknown_processors == 1U);
  BOOST_TEST(report.unknown_submit_time == 1U);
  BOOST_TEST(report.estimate_from_run_time == 1U);
  BOOST_TEST(report.raised_estimates == 1U);
  BOOST_TEST(report.dropped() == 4U);

  SwfConversionOptions keep;
  keep.keep_zero_run_time = true;
  keep.estimate_at_least_run_time = false;
  keep.origin = 7;
  keep.first_id = 100;
  const std::vector<Job> kept = jobs_from_swf(records, SwfHeader{}, keep);
  BOOST_REQUIRE(kept.size() == 4U);
  BOOST_TEST(kept[0].id == 100U);
  BOOST_TEST(kept[3].origin == 7U);
  BOOST_TEST(kept[3].requested_time.count() == seconds(60).count());
}

BOOST_AUTO_TEST_CASE(windows_select_by_calendar_and_shift_to_zero) {
  // Log starts 2002-02-28 00:00 UTC; a window of 2 days from 2002-03-01 keeps
  // submits in [86400, 86400 + 172800) and shifts them by -86400.
  SwfHeader header;
  header.unix_start_time = unix_time({2002, 2, 28});
  const std::vector<SwfRecord> records{record(86399, 10, 1, 1, 10), record(86400, 10, 1, 1, 10),
                                       record(100000, 10, 1, 1, 10), record(259199, 10, 1, 1, 10),
                                       record(259200, 10, 1, 1, 10)};
  SwfConversionOptions options;
  options.window = TraceWindow{unix_time({2002, 3, 1}), std::int64_t{2} * 86400};
  SwfConversionReport report;
  const auto jobs = jobs_from_swf(records, header, options, &report);
  BOOST_REQUIRE(jobs.size() == 3U);
  BOOST_TEST((jobs[0].submit == at_seconds(0)));
  BOOST_TEST((jobs[1].submit == at_seconds(13600)));
  BOOST_TEST((jobs[2].submit == at_seconds(172799)));
  BOOST_TEST(report.outside_window == 2U);
  BOOST_CHECK_THROW(jobs_from_swf(records, SwfHeader{}, options), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(the_jobs_key_changes_with_every_field_that_changes_the_jobs) {
  // A sweep loads jobs once per key: a field missing from the key would make
  // runs with different workloads share one (seen: --load-factor).
  using gridpeer::grid_jobs::GridWorkloadRequest;
  using gridpeer::grid_jobs::jobs_key;
  const GridWorkloadRequest base;
  std::vector<GridWorkloadRequest> changed(9, base);
  changed[0].source = "lublin";
  changed[1].split = gridpeer::grid_jobs::SplitRule::round_robin;
  changed[2].synthetic_jobs_per_server = 7;
  changed[3].seed = 2;
  changed[4].trace_dir = "/elsewhere";
  changed[5].limit_days = 3;
  changed[6].load_factor = 1.5;
  changed[7].arrival_factor = 0.8;
  changed[8].estimates = gridpeer::workload::EstimateModel{gridpeer::workload::EstimateModel::Kind::factor, 2.0};
  for (const auto& request : changed) BOOST_TEST(jobs_key(request) != jobs_key(base));
  GridWorkloadRequest other_data = base;
  other_data.data_size = gridpeer::workload::DataSize::large;  // drawn per run: the same jobs
  BOOST_TEST(jobs_key(other_data) == jobs_key(base));
}
