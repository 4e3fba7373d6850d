// Batsim's jobs.csv layout: hand-computed node assignments and rows.
#define BOOST_TEST_MODULE report
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "peer/io/report/jobs_csv.hpp"

using gridpeer::Job;
using gridpeer::JobRecord;
using gridpeer::ServerSpec;
using gridpeer::TimePoint;
using namespace gridpeer::report;

namespace {

TimePoint at(std::int64_t seconds) {
  return TimePoint{std::chrono::seconds(seconds)};
}

JobRow completed(gridpeer::JobId id, gridpeer::ServerIndex on, int cpus, std::int64_t start, std::int64_t finish) {
  JobRow row;
  row.record.id = id;
  row.record.origin = on;
  row.record.executed_on = on;
  row.record.cpus = cpus;
  row.record.submit = at(0);
  row.record.start = at(start);
  row.record.finish = at(finish);
  row.record.end = at(finish);
  return row;
}

std::vector<ServerSpec> two_servers() {
  ServerSpec a;
  a.name = "A";
  a.nodes = 4;
  ServerSpec b;
  b.name = "B";
  b.nodes = 2;
  b.cpus_per_node = 4;
  return {a, b};
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields(1);
  for (const char c : line) {
    if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

}  // namespace

BOOST_AUTO_TEST_CASE(nodes_are_the_lowest_free_ones_when_a_job_starts) {
  // A: 4 nodes. j0 takes 0-1 over [0,10); j1 takes 2-3 over [0,5); j2 starts
  // at 5 when j1 has just left: 2-3 again. j3 (one node at 10) gets 0, since
  // j0 leaves at 10 before j3 starts. B's nodes are 4 and 5: j4 wants 5 CPUs
  // on 4-CPU nodes, so both.
  const std::vector<JobRow> rows = {completed(0, 0, 2, 0, 10), completed(1, 0, 2, 0, 5), completed(2, 0, 2, 5, 10),
                                    completed(3, 0, 1, 10, 12), completed(4, 1, 5, 3, 4)};
  const auto nodes = allocate_nodes(rows, two_servers());
  const std::vector<std::string> expected = {"0-1", "2-3", "2-3", "0", "4-5"};
  BOOST_TEST(nodes == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_zero_length_job_holds_its_node_only_at_its_instant) {
  // j0 (4 nodes) runs [0,0]; j1 (4 nodes) starts at 0 too: both fit, one
  // after the other. j2 overlaps j1 and cannot fit: left without nodes.
  const std::vector<JobRow> rows = {completed(0, 0, 4, 0, 0), completed(1, 0, 4, 0, 5), completed(2, 0, 1, 2, 3)};
  const auto nodes = allocate_nodes(rows, two_servers());
  BOOST_TEST(nodes[0] == "0-3");
  BOOST_TEST(nodes[1] == "0-3");
  BOOST_TEST(nodes[2].empty());
}

BOOST_AUTO_TEST_CASE(rows_carry_every_job_and_how_it_ended) {
  std::vector<Job> jobs(3);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].id = i;
    jobs[i].cpus = 2;
    jobs[i].submit = at(static_cast<std::int64_t>(10 * i));
    jobs[i].requested_time = std::chrono::seconds(100);
  }
  const auto log = std::make_shared<const std::string>("log.swf");
  const std::vector<gridpeer::JobSource> sources = {{log, 11}, {log, 12}, {log, 13}};
  JobRecord done = JobRecord::of(jobs[0], 0, at(4), at(54), at(60));
  const std::vector<JobRecord> records = {done};
  const std::vector<JobEnding> endings = {{1, RowState::lost, "peer B went away, holding it"}};
  const auto rows = rows_for_jobs(jobs, sources, records, endings);
  BOOST_REQUIRE_EQUAL(rows.size(), 3U);
  BOOST_TEST((rows[2].state == RowState::unfinished));
  const std::string csv = batsim_jobs_csv(rows, two_servers());
  std::vector<std::string> lines;
  for (std::size_t from = 0, to; (to = csv.find('\n', from)) != std::string::npos; from = to + 1) {
    lines.push_back(csv.substr(from, to - from));
  }
  BOOST_REQUIRE_EQUAL(lines.size(), 4U);
  const auto header = split(lines[0]);
  const auto field = [&](std::size_t line, const std::string& column) {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == column) return split(lines[line])[i];
    }
    return std::string("<no column " + column + ">");
  };
  // Completed: waited 4 s, ran 50 s; turnaround is Batsim's (to the end of
  // execution, 54 s), the output was home at 60 s.
  BOOST_TEST(field(1, "success") == "1");
  BOOST_TEST(field(1, "waiting_time") == "4");
  BOOST_TEST(field(1, "execution_time") == "50");
  BOOST_TEST(field(1, "turnaround_time") == "54");
  BOOST_TEST(field(1, "stretch") == "1.08");
  BOOST_TEST(field(1, "requested_time") == "100");
  BOOST_TEST(field(1, "requested_number_of_resources") == "2");
  BOOST_TEST(field(1, "allocated_resources") == "0-1");
  BOOST_TEST(field(1, "swf_job_number") == "11");
  BOOST_TEST(field(1, "output_home_time") == "60");
  // Lost: no times, the reason quoted because it holds a comma.
  BOOST_TEST(field(2, "success") == "0");
  BOOST_TEST(field(2, "final_state") == "COMPLETED_KILLED");
  BOOST_TEST(field(2, "starting_time").empty());
  BOOST_TEST(lines[2].find("\"peer B went away, holding it\"") != std::string::npos);
  BOOST_TEST(field(3, "final_state") == "NOT_FINISHED");
  BOOST_TEST(field(3, "submission_time") == "20");
}

BOOST_AUTO_TEST_CASE(the_time_series_steps_where_the_schedule_changes) {
  // j0: submitted at A at 0, runs there [0,10) on 2 nodes. j1: submitted at A
  // at 2, runs on B [5,8) on both of B's 4-CPU nodes (5 CPUs).
  auto j0 = completed(0, 0, 2, 0, 10);
  auto j1 = completed(1, 1, 5, 5, 8);
  j1.record.origin = 0;
  j1.record.submit = at(2);
  const std::vector<JobRow> rows = {j0, j1};
  const std::string expected =
      "time,server,busy_nodes,utilization,running_jobs,waiting_jobs\n"
      "0,A,0,0,0,0\n0,B,0,0,0,0\n"
      "0,A,2,0.5,1,0\n"
      "2,A,2,0.5,1,1\n"
      "5,A,2,0.5,1,0\n5,B,2,1,1,0\n"
      "8,B,0,0,0,0\n"
      "10,A,0,0,0,0\n";
  BOOST_TEST(time_series_csv(rows, two_servers()) == expected);
}
