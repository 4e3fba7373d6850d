// SWF records to jobs; calendar windows and shifting.
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <sstream>

#include "peer/io/grid_jobs/grid_workload.hpp"
#include "peer/model/rng.hpp"
#include "peer/workload/calendar.hpp"
#include "peer/workload/data_sizes.hpp"
#include "peer/workload/swf_checks.hpp"
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

BOOST_AUTO_TEST_CASE(jobs_come_in_submit_order_with_ties_in_record_order) {
  // Out of order, with ties: sorted stably, each job's record kept beside it.
  const std::vector<SwfRecord> records{record(30, 1, 1, 1, 1), record(10, 2, 1, 1, 2), record(30, 3, 1, 1, 3),
                                       record(10, 4, 1, 1, 4), record(20, 5, 1, 1, 5)};
  std::vector<std::size_t> sources;
  const std::vector<Job> jobs = jobs_from_swf(records, SwfHeader{}, {}, nullptr, &sources);
  BOOST_REQUIRE(jobs.size() == 5U);
  const std::vector<std::int64_t> run_times{2, 4, 5, 1, 3};
  const std::vector<std::size_t> expected_sources{1, 3, 4, 0, 2};
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    BOOST_TEST(jobs[i].run_time.count() == seconds(run_times[i]).count());
    BOOST_TEST(jobs[i].id == i);
  }
  BOOST_TEST(sources == expected_sources, boost::test_tools::per_element());
  // Already in order (the archive's logs): the records' own order, untouched.
  const std::vector<SwfRecord> in_order{record(10, 1, 1, 1, 1), record(10, 2, 1, 1, 2), record(20, 3, 1, 1, 3)};
  const std::vector<Job> same = jobs_from_swf(in_order, SwfHeader{}, {}, nullptr, &sources);
  BOOST_REQUIRE(same.size() == 3U);
  for (std::size_t i = 0; i < same.size(); ++i) {
    BOOST_TEST(same[i].run_time.count() == seconds(static_cast<std::int64_t>(i + 1)).count());
    BOOST_TEST(sources[i] == i);
  }
}

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

BOOST_AUTO_TEST_CASE(a_log_without_waits_says_so_once_and_one_with_waits_says_nothing) {
  std::vector<SwfRecord> records{record(0, 10, 1, 1, 10), record(5, 10, 1, 1, 10)};
  const auto silent = check_swf_log(records, "nowait.swf");
  BOOST_REQUIRE(silent.size() == 1U);
  BOOST_TEST(silent[0].find("nowait.swf: no job has a wait time") == 0U);
  records[1].wait_time = 0;  // one wait recorded is enough
  BOOST_TEST(check_swf_log(records, "nowait.swf").empty());
}

BOOST_AUTO_TEST_CASE(windows_past_or_outside_their_log_are_named) {
  // The log: submissions from 2002-03-01 (day 0) to 2002-03-11 (day 10).
  SwfHeader header;
  header.unix_start_time = unix_time({2002, 3, 1});
  const std::vector<SwfRecord> records{record(0, 10, 1, 1, 10), record(std::int64_t{5} * 86400, 10, 1, 1, 10),
                                       record(std::int64_t{10} * 86400, 10, 1, 1, 10)};
  const auto warnings_for = [&](CivilDate start, int days) {
    SwfConversionOptions options;
    options.window = TraceWindow{unix_time(start), std::int64_t{days} * 86400};
    SwfConversionReport report;
    jobs_from_swf(records, header, options, &report);
    return check_swf_window(records, header, "log.swf", options.window, report);
  };
  BOOST_TEST(warnings_for({2002, 3, 1}, 10).empty());  // inside (the last day is within the day's slack)
  const auto past = warnings_for({2002, 3, 6}, 30);    // runs 25 days past the last submission
  BOOST_REQUIRE(past.size() == 1U);
  BOOST_TEST(past[0].find("log.swf window 2002-03-06 + 30.0 days: the log ends 25.0 days before") == 0U);
  BOOST_TEST(past[0].find("truncated to 5.0 days") != std::string::npos);
  const auto early = warnings_for({2002, 2, 20}, 20);  // starts 9 days before the log
  BOOST_REQUIRE(early.size() == 1U);
  BOOST_TEST(early[0].find("the log starts 9.0 days into the window (2002-03-01)") != std::string::npos);
  const auto outside = warnings_for({2003, 1, 1}, 92);  // no job at all
  BOOST_REQUIRE(outside.size() == 1U);
  BOOST_TEST(outside[0].find("lies wholly outside the log (submissions from 2002-03-01 to 2002-03-11)") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(missing_requested_times_are_named_or_drawn_from_a_model) {
  // Two of three jobs without a requested time (field 9 = -1).
  const std::vector<SwfRecord> records{record(0, 100, 1, 1, -1), record(1, 100, 1, 1, 500), record(2, 50, 1, 1, -1)};
  SwfConversionReport report;
  const auto perfect = jobs_from_swf(records, SwfHeader{}, {}, &report);
  BOOST_TEST(report.estimate_from_run_time == 2U);
  BOOST_TEST(perfect[0].requested_time.count() == seconds(100).count());
  const auto warnings = check_swf_window(records, SwfHeader{}, "est.swf", std::nullopt, report);
  BOOST_REQUIRE(warnings.size() == 1U);
  BOOST_TEST(warnings[0].find("est.swf: 2 of 3 jobs have no requested time") == 0U);

  // factor:3 makes up the two missing ones (run x 3) and leaves the user's 500 s alone.
  SwfConversionOptions options;
  options.missing_estimates = EstimateModel{EstimateModel::Kind::factor, 3.0};
  const auto drawn = jobs_from_swf(records, SwfHeader{}, options, &report);
  BOOST_TEST(report.estimates_drawn == 2U);
  BOOST_TEST(report.estimate_from_run_time == 0U);
  BOOST_TEST(drawn[0].requested_time.count() == seconds(300).count());
  BOOST_TEST(drawn[1].requested_time.count() == seconds(500).count());
  BOOST_TEST(drawn[2].requested_time.count() == seconds(150).count());
  BOOST_TEST(check_swf_window(records, SwfHeader{}, "est.swf", std::nullopt, report).empty());
}

BOOST_AUTO_TEST_CASE(data_sizes_count_cpus_or_whole_nodes) {
  // 002's rule: mean input = b x work; 10 CPUs for 100 s at b = 1,000 B is 1 MB
  // counting CPUs, and 3 nodes of 4 CPUs (ceil(10 / 4)) x 100 s = 0.3 MB counting nodes.
  // Averaged over 4,000 draws (sd = mean / 3), the mean is within 2%.
  double cpus_sum = 0, nodes_sum = 0;
  gridpeer::Rng rng(5);
  for (int i = 0; i < 4000; ++i) {
    Job job;
    job.cpus = 10;
    job.run_time = seconds(100);
    assign_data_sizes(job, 1000, rng);
    cpus_sum += static_cast<double>(job.input_bytes);
    assign_data_sizes(job, 1000, rng, 4);
    nodes_sum += static_cast<double>(job.input_bytes);
    BOOST_TEST(std::llabs(static_cast<long long>(job.output_bytes) - 5 * static_cast<long long>(job.input_bytes)) <= 3);
  }
  BOOST_TEST(cpus_sum / 4000 == 1e6, boost::test_tools::tolerance(0.02));
  BOOST_TEST(nodes_sum / 4000 == 3e5, boost::test_tools::tolerance(0.02));
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
