#define BOOST_TEST_MODULE sim
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../workload/trace_dir.hpp"
#include "peer/core/metrics.hpp"
#include "peer/io/cli/output_file.hpp"
#include "peer/io/cli/parse.hpp"
#include "peer/model/rng.hpp"
#include "peer/workload/lublin.hpp"
#include "sim/studies/local_replay.hpp"
#include "sim/studies/queue_replay.hpp"
#include "sim/studies/workloads.hpp"

using namespace gridpeer;
using namespace gridpeer::sim;

namespace {

/// Rebuilds node usage over time from the records and returns its maximum.
int peak_nodes(const std::vector<JobRecord>& records, const ServerSpec& server) {
  std::multimap<TimePoint, int> changes;  // at equal times, releases (-) sort before claims (+)
  for (const JobRecord& r : records) {
    if (r.finish == r.start) continue;
    changes.emplace(r.start, server.nodes_for(r.cpus));
    changes.emplace(r.finish, -server.nodes_for(r.cpus));
  }
  int in_use = 0;
  int peak = 0;
  for (auto it = changes.begin(); it != changes.end();) {
    const TimePoint t = it->first;
    int delta = 0;
    for (; it != changes.end() && it->first == t; ++it) delta += it->second;
    in_use += delta;
    peak = std::max(peak, in_use);
  }
  BOOST_TEST(in_use == 0);
  return peak;
}

void check_invariants(const std::vector<Job>& jobs, const LocalReplayResult& result, const ServerSpec& server) {
  BOOST_TEST(result.records.size() + result.rejected == jobs.size());
  std::map<JobId, int> seen;
  for (const JobRecord& r : result.records) {
    ++seen[r.id];
    BOOST_TEST_REQUIRE(r.start >= r.submit);
    BOOST_TEST_REQUIRE(r.run().count() == jobs[r.id].run_time.count());
  }
  for (const auto& [id, count] : seen) BOOST_TEST_REQUIRE(count == 1);
  BOOST_TEST(peak_nodes(result.records, server) <= server.nodes);
  const MetricsSummary summary = summarize(result.records, std::vector<ServerSpec>{server});
  BOOST_TEST(summary.per_server.front().utilization <= 1.0);
  BOOST_TEST(summary.weighted_utilization <= 1.0);
}

}  // namespace

BOOST_AUTO_TEST_CASE(replay_reproduces_the_hand_computed_easy_schedule) {
  // The scenario of tests/core/local_scheduler_test.cpp, through the driver.
  const ServerSpec server{"four", 4, 1, 1000, 0};
  std::vector<Job> jobs;
  const int cpus[] = {2, 3, 4, 1, 1};
  const int run[] = {10, 10, 10, 25, 5};
  for (JobId i = 0; i < 5; ++i) jobs.push_back({i, 0, cpus[i], TimePoint{}, seconds(run[i]), seconds(run[i]), 0, 0});
  const auto result = replay_local(server, {LocalPolicy::easy, 0}, jobs);
  std::map<JobId, double> starts;
  for (const JobRecord& r : result.records) starts[r.id] = to_seconds(r.start);
  const std::map<JobId, double> expected{{0, 0}, {1, 10}, {2, 25}, {3, 0}, {4, 0}};
  BOOST_TEST(starts == expected);
  const MetricsSummary summary = summarize(result.records, std::vector<ServerSpec>{server});
  BOOST_TEST(summary.avg_wait_s == 7.0);  // (0 + 10 + 25 + 0 + 0) / 5
  BOOST_TEST(summary.avg_response_s == (10 + 20 + 35 + 25 + 5) / 5.0);
  BOOST_TEST(summary.span_s == 35.0);
}

BOOST_AUTO_TEST_CASE(synthetic_replays_are_deterministic_and_keep_invariants) {
  const ServerSpec server{"s", 64, 2, 1000, 0};
  for (const LocalPolicyConfig policy :
       {LocalPolicyConfig{LocalPolicy::fcfs, 0}, LocalPolicyConfig{LocalPolicy::easy, 0},
        LocalPolicyConfig{LocalPolicy::conservative, 0}, LocalPolicyConfig{LocalPolicy::conservative, 10}}) {
    workload::LublinConfig model;
    model.max_nodes = 128;
    const auto jobs = workload::LublinGenerator(model, Rng(99)).generate(3000);
    const auto first = replay_local(server, policy, jobs);
    const auto second = replay_local(server, policy, jobs);
    BOOST_TEST_CONTEXT(to_string(policy.policy) << " depth " << policy.reservation_depth) {
      check_invariants(jobs, first, server);
      BOOST_REQUIRE(first.records.size() == second.records.size());
      for (std::size_t i = 0; i < first.records.size(); ++i) {
        BOOST_TEST_REQUIRE(first.records[i].id == second.records[i].id);
        BOOST_TEST_REQUIRE((first.records[i].start == second.records[i].start));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(fcfs_starts_jobs_in_submit_order) {
  const ServerSpec server{"s", 32, 1, 1000, 0};
  workload::LublinConfig model;
  model.max_nodes = 32;
  const auto jobs = workload::LublinGenerator(model, Rng(5)).generate(2000);
  const auto result = replay_local(server, {LocalPolicy::fcfs, 0}, jobs);
  std::vector<TimePoint> start_by_id(jobs.size());
  for (const JobRecord& r : result.records) start_by_id[r.id] = r.start;
  for (std::size_t i = 1; i < jobs.size(); ++i) BOOST_TEST_REQUIRE(start_by_id[i] >= start_by_id[i - 1]);
}

BOOST_AUTO_TEST_CASE(real_trace_slice_replays_cleanly, *boost::unit_test::precondition(traces_present())) {
  // SDSC SP2, 30 days from 1998-09-01 on its own 128 nodes, every policy.
  WorkloadRequest request;
  request.source = (*test_trace_dir() / "SDSC-SP2-1998-4.2-cln.swf.gz").string();
  request.window = workload::TraceWindow{904608000, std::int64_t{30} * 86400};
  const Workload workload = load_workload(request);
  BOOST_TEST(workload.jobs.size() > 1000U);
  BOOST_TEST(!workload.provenance.empty());
  const ServerSpec server{"SP2", 128, 1, 1000, 0};
  double fcfs_wait = 0;
  for (const LocalPolicyConfig policy :
       {LocalPolicyConfig{LocalPolicy::fcfs, 0}, LocalPolicyConfig{LocalPolicy::easy, 0},
        LocalPolicyConfig{LocalPolicy::conservative, 0}}) {
    const auto result = replay_local(server, policy, workload.jobs);
    BOOST_TEST_CONTEXT(to_string(policy.policy)) {
      check_invariants(workload.jobs, result, server);
      const double wait = summarize(result.records, std::vector<ServerSpec>{server}).avg_wait_s;
      if (policy.policy == LocalPolicy::fcfs)
        fcfs_wait = wait;
      else
        BOOST_TEST(wait <= fcfs_wait);  // backfilling never hurts on this slice
    }
  }
}

namespace {

/// The replay-only engine and the plan-based scheduler give one schedule:
/// every record field for field, in the same completion order, and the same
/// rejections, events and longest queue.
void require_same_replay(const ServerSpec& server, LocalPolicy policy, const std::vector<Job>& jobs) {
  const LocalReplayResult fast = replay_queue(server, {policy, 0}, jobs);
  const LocalReplayResult planned = replay_with_plans(server, {policy, 0}, jobs);
  BOOST_TEST_CONTEXT(to_string(policy) << " on " << server.name << ", " << jobs.size() << " jobs") {
    BOOST_TEST_REQUIRE(fast.records.size() == planned.records.size());
    for (std::size_t i = 0; i < fast.records.size(); ++i) {
      BOOST_TEST_CONTEXT("record " << i << ", job " << planned.records[i].id) {
        BOOST_TEST_REQUIRE(fast.records[i].id == planned.records[i].id);
        BOOST_TEST_REQUIRE((fast.records[i] == planned.records[i]));
      }
    }
    BOOST_TEST(fast.rejected == planned.rejected);
    BOOST_TEST(fast.events == planned.events);
    BOOST_TEST(fast.max_queue == planned.max_queue);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_replay_only_engine_gives_the_plan_based_schedule) {
  // Wide and narrow servers, nodes of one and of several CPUs, estimates
  // exact and padded, jobs too wide for the server, runs of no time, and
  // bursts at one instant (ties in submit, start and end times).
  for (const LocalPolicy policy : {LocalPolicy::fcfs, LocalPolicy::easy}) {
    for (const std::uint64_t seed : {1U, 2U, 3U}) {
      workload::LublinConfig model;
      model.max_nodes = 64;
      std::vector<Job> jobs = workload::LublinGenerator(model, Rng(seed)).generate(4000);
      require_same_replay(ServerSpec{"s32", 32, 1, 1000, 0}, policy, jobs);
      require_same_replay(ServerSpec{"s16x4", 16, 4, 1000, 0}, policy, jobs);
      Rng rng(seed + 100);
      for (Job& job : jobs) {
        job.submit = TimePoint{} + seconds((job.submit - TimePoint{}) / seconds(1) / 600 * 600);  // bursts
        job.run_time = seconds(rng.uniform_int(0, 3) * 600);
        job.requested_time = job.run_time * rng.uniform_int(1, 3);
      }
      require_same_replay(ServerSpec{"s48", 48, 1, 1000, 0}, policy, jobs);
    }
  }
}

BOOST_AUTO_TEST_CASE(the_replay_only_engine_gives_the_plan_based_schedule_on_a_whole_log,
                     *boost::unit_test::precondition(traces_present())) {
  WorkloadRequest request;
  request.source = (*test_trace_dir() / "SDSC-SP2-1998-4.2-cln.swf.gz").string();
  const Workload workload = load_workload(request);
  for (const LocalPolicy policy : {LocalPolicy::fcfs, LocalPolicy::easy}) {
    require_same_replay(ServerSpec{"SDSC-SP2", 128, 1, 1000, 0}, policy, workload.jobs);
  }
}

BOOST_AUTO_TEST_CASE(gridsim_replay_writes_the_promised_json) {
  const auto out = std::filesystem::temp_directory_path() / "gridsim-replay-test.json";
  const std::string command =
      std::string(GRIDSIM_BINARY) + " replay --jobs 400 --seed 7 --out " + out.string() + " > /dev/null 2>&1";
  BOOST_REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream in(out);
  const auto json = nlohmann::json::parse(in);
  BOOST_TEST(json["seed"].get<int>() == 7);
  BOOST_REQUIRE(json["results"].size() == 3U);
  for (const auto& row : json["results"]) {
    BOOST_TEST(row["jobs"].get<int>() == 400);
    for (const char* key : {"avg_wait_s", "avg_response_s", "avg_bounded_slowdown", "utilization", "wall_seconds"}) {
      BOOST_TEST(row.contains(key), key);
    }
  }
  std::filesystem::remove(out);
  // A bad option is an error that says so, with a non-zero exit.
  BOOST_TEST(std::system((std::string(GRIDSIM_BINARY) + " replay --policy sjf > /dev/null 2>&1").c_str()) != 0);
  BOOST_TEST(
      std::system((std::string(GRIDSIM_BINARY) + " replay --workload /nonexistent.swf > /dev/null 2>&1").c_str()) != 0);
  // A workload that could not all be written is an error, never a short file.
  if (std::filesystem::exists("/dev/full")) {
    BOOST_TEST(
        std::system((std::string(GRIDSIM_BINARY) + " generate --jobs 2000 --out /dev/full > /dev/null 2>&1").c_str()) !=
        0);
  }
}

BOOST_AUTO_TEST_CASE(a_time_option_takes_seconds_in_its_range_and_names_itself_outside) {
  cxxopts::Options options("t");
  options.add_options()("wait", "", cxxopts::value<double>())("probe", "", cxxopts::value<double>());
  const auto parsed = [&](std::initializer_list<const char*> words) {
    std::vector<const char*> argv{"t"};
    argv.insert(argv.end(), words.begin(), words.end());
    return cli::parse_options(options, static_cast<int>(argv.size()), argv.data());
  };
  BOOST_TEST(cli::seconds_option(parsed({"--wait", "2.0000001"}), "wait").count() == 2'000'001);
  BOOST_TEST(cli::seconds_option(parsed({"--wait", "0"}), "wait").count() == 0);
  BOOST_TEST(cli::seconds_option(parsed({"--wait", "1e9"}), "wait").count() == 1'000'000'000'000'000);
  BOOST_TEST(cli::seconds_option(parsed({"--probe", "0.05"}), "probe", 0.05).count() == 50'000);
  // Past a billion seconds a time would once wrap to a negative one and run
  // as a timeout that has always passed: now the option says what it takes.
  // (cxxopts itself refuses "nan" and "inf" as numbers.)
  for (const char* bad : {"1e300", "-5", "1000000000.5", "-1e-9"}) {
    try {
      cli::seconds_option(parsed({"--wait", bad}), "wait");
      BOOST_FAIL("--wait " << bad << " was taken");
    } catch (const std::invalid_argument& e) {
      BOOST_TEST(std::string(e.what()).find("--wait takes 0 to 1000000000 seconds") == 0, e.what());
    }
  }
  try {
    cli::seconds_option(parsed({"--probe", "0.01"}), "probe", 0.05);
    BOOST_FAIL("--probe 0.01 was taken");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string(e.what()) == "--probe takes 0.05 to 1000000000 seconds (got 0.01)");
  }
  // Through the commands: gridsim's --phi, fuzz's --max-down (the message on stderr, a non-zero exit).
  const auto error_of = [](const std::string& arguments) {
    const std::string command = std::string(GRIDSIM_BINARY) + " " + arguments + " 2>&1 >/dev/null; echo exit=$?";
    std::ostringstream said;
    FILE* out = popen(command.c_str(), "r");
    BOOST_REQUIRE(out != nullptr);
    for (int c = std::fgetc(out); c != EOF; c = std::fgetc(out)) said.put(static_cast<char>(c));
    pclose(out);
    return said.str();
  };
  const std::string phi = error_of("run --workload synthetic --jobs 10 --phi 1e300");
  BOOST_TEST(phi.find("--phi takes 0 to 1000000000 seconds (got 1e+300)") != std::string::npos, phi);
  BOOST_TEST(phi.find("exit=0") == std::string::npos, phi);
  const std::string down = error_of("fuzz --seed 1 --max-down -1");
  BOOST_TEST(down.find("--max-down takes 0 to") != std::string::npos, down);
  BOOST_TEST(down.find("exit=0") == std::string::npos, down);
}

BOOST_AUTO_TEST_CASE(an_output_file_is_written_whole_or_an_error_names_it) {
  const auto dir = std::filesystem::temp_directory_path() / "gridpeer-output-file-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto read = [](const std::filesystem::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const std::string file = (dir / "out.json").string();
  cli::write_output_file(file, "first\n");
  cli::write_output_file(file, "second, longer\n");
  BOOST_TEST(read(file) == "second, longer\n");
  BOOST_TEST(std::distance(std::filesystem::directory_iterator(dir), {}) == 1);  // nothing left aside
  // Through a link, the file it names is written and the link stays.
  std::filesystem::create_symlink(file, dir / "link.json");
  cli::write_output_file((dir / "link.json").string(), "through the link\n");
  BOOST_TEST(std::filesystem::is_symlink(dir / "link.json"));
  BOOST_TEST(read(file) == "through the link\n");
  // Streamed: a writer that fails half-way leaves the file as it was, and
  // nothing aside; one that returns replaces it.
  BOOST_CHECK_THROW(cli::write_output_file(file,
                                           [](std::ostream& out) {
                                             out << "half of a workload\n";
                                             throw std::invalid_argument("the generator failed");
                                           }),
                    std::invalid_argument);
  BOOST_TEST(read(file) == "through the link\n");
  BOOST_TEST(std::distance(std::filesystem::directory_iterator(dir), {}) == 2);  // the file and the link
  cli::write_output_file(file, [](std::ostream& out) {
    for (int line = 0; line < 3; ++line) out << "line " << line << '\n';
  });
  BOOST_TEST(read(file) == "line 0\nline 1\nline 2\n");
  const auto refused = [](const std::string& path) {
    try {
      cli::write_output_file(path, std::string(100'000, 'x'));
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("written");
  };
  const std::string missing = (dir / "no-such-dir" / "out.json").string();
  BOOST_TEST(refused(missing) == "cannot write '" + missing + "': check the directory exists and is writable");
  if (std::filesystem::exists("/dev/full")) {
    // A device is written into, never renamed over, and a full one is an error.
    BOOST_TEST(refused("/dev/full") == "failed while writing '/dev/full' (is the disk full?)");
    BOOST_TEST(std::filesystem::is_character_file("/dev/full"));
    cli::write_output_file("/dev/null", "gone\n");
    BOOST_TEST(std::filesystem::is_character_file("/dev/null"));
  }
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(bench_markdown_keeps_the_hand_written_notes_of_the_page_it_replaces) {
  // The figures come from an earlier --out file; the page's notes are written
  // by hand in the page alone, so making it again must keep them as they are
  // and replace only what the bench writes.
  const auto dir = std::filesystem::temp_directory_path() / "gridsim-bench-markdown-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const nlohmann::json figures = {{"quick", false},
                                  {"version", "9.9.9+test"},
                                  {"cases",
                                   {{{"case", "peers-12"},
                                     {"what", "twelve peers"},
                                     {"jobs", 1200},
                                     {"events", 12420},
                                     {"wall_seconds", 1.0},
                                     {"simulation_seconds", 0.003},
                                     {"us_per_job", 2.5},
                                     {"peak_rss_mb", 8.5}}}},
                                  {"targets", nlohmann::json::array()}};
  std::ofstream(dir / "bench.json") << figures.dump();
  const std::string notes =
      "## What each hot path costs, and what bounds it\n\nA note only a person wrote, | with a bar.\n\n## More\nkept\n";
  std::ofstream(dir / "page.md") << "# an old page\n\n| stale | table |\n\n" << notes;
  const auto read = [](const std::filesystem::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const auto gridsim = [&](const std::string& arguments) {
    const std::string command =
        std::string(GRIDSIM_BINARY) + " bench " + arguments + " > " + (dir / "said.txt").string() + " 2>&1";
    const int status = std::system(command.c_str());
    return std::make_pair(status, read(dir / "said.txt"));
  };
  const std::string from = "--from " + (dir / "bench.json").string();
  BOOST_TEST(gridsim(from + " --markdown " + (dir / "page.md").string()).first == 0);
  const std::string page = read(dir / "page.md");
  BOOST_TEST(page.find("# Performance:") == 0, page);
  BOOST_TEST(page.find("gridpeer 9.9.9+test") != std::string::npos);
  BOOST_TEST(page.find("| peers-12 | twelve peers | 1200 | 12420 |") != std::string::npos, page);
  BOOST_TEST(page.find("stale") == std::string::npos);
  BOOST_TEST(page.size() >= notes.size());
  BOOST_TEST(page.substr(page.size() - notes.size()) == notes);
  // Made twice, the page is the same: the notes are not added again.
  BOOST_TEST(gridsim(from + " --markdown " + (dir / "page.md").string()).first == 0);
  BOOST_TEST(read(dir / "page.md") == page);
  // A new page says where the notes are.
  BOOST_TEST(gridsim(from + " --markdown " + (dir / "new.md").string()).first == 0);
  const std::string fresh = read(dir / "new.md");
  BOOST_TEST(fresh.find("## What each hot path costs, and what bounds it\n\nWritten by hand in the project's") !=
                 std::string::npos,
             fresh);
  // Figures that are not a bench's are refused with the file named.
  std::ofstream(dir / "broken.json") << "{\"cases\": [";
  const auto broken = gridsim("--from " + (dir / "broken.json").string());
  BOOST_TEST(broken.first != 0);
  BOOST_TEST(
      broken.second.find("--from: " + (dir / "broken.json").string() + " is not a JSON object") != std::string::npos,
      broken.second);
  std::ofstream(dir / "other.json") << R"({"runs": []})";
  const auto other = gridsim("--from " + (dir / "other.json").string());
  BOOST_TEST(other.first != 0);
  BOOST_TEST(other.second.find("has no list of cases") != std::string::npos, other.second);
  // A page that cannot be written is an error, not a silent loss.
  const auto unwritable = gridsim(from + " --markdown " + (dir / "no-such-dir" / "page.md").string());
  BOOST_TEST(unwritable.first != 0);
  BOOST_TEST(unwritable.second.find("cannot write") != std::string::npos, unwritable.second);
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(gridsim_group_and_topology_read_a_simgrid_platform) {
  // A Full zone of three hosts: the user h0 and two resources behind one
  // link each. `gridsim topology` shows the pinned routes; `gridsim group`
  // groups a bag over them, writing its JSON; a broken file is an error.
  const auto dir = std::filesystem::temp_directory_path() / "gridsim-platform-test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream xml(dir / "p.xml");
    xml << "<?xml version='1.0'?>\n<platform version=\"4.1\"><zone id=\"w\" routing=\"Full\">"
           "<host id=\"h0\" speed=\"1Gf\"/><host id=\"h1\" speed=\"1050Mf\" core=\"2\"/>"
           "<host id=\"h2\" speed=\"684Mf\"/>"
           "<link id=\"a\" bandwidth=\"10Mbps\" latency=\"10ms\"/><link id=\"b\" bandwidth=\"1Mbps\" "
           "latency=\"10ms\"/>"
           "<route src=\"h0\" dst=\"h1\"><link_ctn id=\"a\"/></route>"
           "<route src=\"h0\" dst=\"h2\"><link_ctn id=\"b\"/></route>"
           "<route src=\"h1\" dst=\"h2\"><link_ctn id=\"a\"/><link_ctn id=\"b\"/></route>"
           "</zone></platform>\n";
  }
  const std::string gridsim = GRIDSIM_BINARY;
  BOOST_TEST(
      std::system(
          (gridsim + " topology " + (dir / "p.xml").string() + " > " + (dir / "t.txt").string() + " 2>&1").c_str()) ==
      0);
  std::ifstream shown(dir / "t.txt");
  std::stringstream read;
  read << shown.rdbuf();
  const std::string text = read.str();
  BOOST_TEST(text.find("6 routes given by the file") != std::string::npos, text);
  const auto out = dir / "g.json";
  BOOST_REQUIRE(std::system((gridsim + " group --topology " + (dir / "p.xml").string() +
                             " --user h0 --no-background --jobs 20 --granularity 2 --rmi-mips pe --no-timing --out " +
                             out.string() + " > /dev/null 2>&1")
                                .c_str()) == 0);
  std::ifstream in(out);
  const auto json = nlohmann::json::parse(in);
  // h1 (10 Mb/s) before h2 (1 Mb/s); RMI (one PE's MIPS) 2,100 and 1,368 MI
  // over 4,000 MI of jobs.
  BOOST_TEST(json["path_mbps"]["h1"].get<double>() == 10.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(json["path_mbps"]["h2"].get<double>() == 1.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(json["groups"].get<int>() >= 2);
  BOOST_TEST(json["total_s"].get<double>() > 0);
  {
    std::ofstream broken(dir / "b.xml");
    broken << "<platform version=\"4.1\"><zone id=\"w\" routing=\"Cluster\"/></platform>";
  }
  BOOST_TEST(std::system((gridsim + " topology " + (dir / "b.xml").string() + " > /dev/null 2>&1").c_str()) != 0);
  std::filesystem::remove_all(dir);
}
