#include "sim/commands/bench_targets.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace gridpeer::sim::bench {
namespace {

std::optional<nlohmann::json> row_of(const nlohmann::json& cases, const std::string& name) {
  for (const auto& row : cases) {
    if (row.at("case") == name) return row;
  }
  return std::nullopt;
}

double number(const nlohmann::json& row, const char* key) {
  return row.value(key, 0.0);
}

/// One target over the rows it needs: "not run" unless all are there.
void check(std::vector<TargetCheck>& out, const nlohmann::json& cases, std::string target,
           const std::vector<std::string>& needs,
           const std::function<std::pair<bool, std::string>(const std::vector<nlohmann::json>&)>& measure) {
  std::vector<nlohmann::json> rows;
  for (const auto& name : needs) {
    auto row = row_of(cases, name);
    if (!row) {
      out.push_back({std::move(target), "needs the case " + name, "not run"});
      return;
    }
    rows.push_back(std::move(*row));
  }
  const auto [met, measured] = measure(rows);
  out.push_back({std::move(target), measured, met ? "met" : "not met"});
}

/// ratio >= floor, and the yardstick agrees on the schedule.
void yardstick_target(std::vector<TargetCheck>& out, const nlohmann::json& cases, const std::string& policy,
                      double floor) {
  check(out, cases, fmt::format("replay {}: whole process >= {:.0f}x faster than the Python loop", policy, floor),
        {"replay-" + policy, "yardstick-" + policy}, [&](const std::vector<nlohmann::json>& r) {
          const double ours = number(r[0], "wall_seconds");
          const double python = number(r[1], "wall_seconds");
          const double ratio = python / ours;
          const double wait_ours = number(r[0], "mean_wait_s");
          const double wait_python = number(r[1], "mean_wait_s");
          const bool same = std::abs(wait_ours - wait_python) <= 1e-6 * std::max(1.0, std::abs(wait_ours));
          const double scheduling = number(r[1], "simulation_seconds") / number(r[0], "simulation_seconds");
          return std::pair{
              ratio >= floor && same,
              fmt::format("{:.1f}x ({:.3f} s vs {:.3f} s; scheduling alone {:.0f}x); mean wait {}", ratio, ours, python,
                          scheduling, same ? "the same" : fmt::format("differs: {} vs {}", wait_ours, wait_python))};
        });
}

void at_most(std::vector<TargetCheck>& out, const nlohmann::json& cases, const std::string& target,
             const std::string& name, const char* key, double limit, const char* unit) {
  check(out, cases, target, {name}, [&](const std::vector<nlohmann::json>& r) {
    const double value = number(r[0], key);
    // Three significant figures, never in exponent form (3,594 MB, not 3.59e+03).
    const std::string shown = value >= 1000 ? fmt::format("{:.0f}", value) : fmt::format("{:.3g}", value);
    return std::pair{value <= limit, fmt::format("{} {}", shown, unit)};
  });
}

void ratio_at_most(std::vector<TargetCheck>& out, const nlohmann::json& cases, const std::string& target,
                   const std::string& over, const std::string& under, const char* key, double limit) {
  check(out, cases, target, {over, under}, [&](const std::vector<nlohmann::json>& r) {
    const double a = number(r[0], key);
    const double b = number(r[1], key);
    const double ratio = b > 0 ? a / b : INFINITY;
    return std::pair{ratio <= limit, fmt::format("{:.2f}x ({:.3g} vs {:.3g})", ratio, a, b)};
  });
}

}  // namespace

std::vector<TargetCheck> check_targets(const nlohmann::json& cases, const nlohmann::json& peers) {
  std::vector<TargetCheck> out;
  // 1. The three big studies in minutes (2 cores).
  at_most(out, cases, "gridsim sweep shan2004 (five seeds) within 10 minutes", "study-shan2004", "wall_seconds", 600,
          "s");
  at_most(out, cases, "gridsim sweep jones2004 within 10 minutes", "study-jones2004", "wall_seconds", 600, "s");
  at_most(out, cases, "gridsim sweep shih2010 within 90 s", "study-shih2010", "wall_seconds", 90, "s");
  // 2. Replay near the parsing floor.
  yardstick_target(out, cases, "fcfs", 5);
  yardstick_target(out, cases, "easy", 5);
  yardstick_target(out, cases, "conservative", 50);
  at_most(out, cases, "replay fcfs: scheduling <= 0.3 us per job", "replay-fcfs", "us_per_job", 0.3, "us/job");
  at_most(out, cases, "replay easy: scheduling <= 0.3 us per job", "replay-easy", "us_per_job", 0.3, "us/job");
  check(
      out, cases, "parsing the log within 1.5x of zcat | awk", {"replay-fcfs", "parse-floor"},
      [](const std::vector<nlohmann::json>& r) {
        const double ours = number(r[0], "load_seconds");
        const double floor = number(r[1], "wall_seconds");
        return std::pair{ours <= 1.5 * floor, fmt::format("{:.2f}x ({:.3f} s vs {:.3f} s)", ours / floor, ours, floor)};
      });
  // 3. Growth in peers.
  ratio_at_most(out, cases, "us per job at 10,000 peers within 3x of 12", "peers-10000", "peers-12", "us_per_job", 3);
  at_most(out, cases, "10,000 peers x 100 jobs: under 1 GB", "peers-10000", "peak_rss_mb", 1024, "MB");
  at_most(out, cases, "100,000 peers x 100 jobs within 4 GB", "peers-100000x100", "peak_rss_mb", 4096, "MB");
  check(out, cases, "a 100,000-peer run completes", {"peers-100000"}, [](const std::vector<nlohmann::json>& r) {
    return std::pair{number(r[0], "jobs") > 0, fmt::format("{:.0f} jobs in {:.1f} s, {:.0f} MB, {:.2f} us/job",
                                                           number(r[0], "jobs"), number(r[0], "wall_seconds"),
                                                           number(r[0], "peak_rss_mb"), number(r[0], "us_per_job"))};
  });
  // 4. R-I and Sy-I against S-I.
  ratio_at_most(out, cases, "R-I within 3x of S-I per job (12 servers)", "grid12-ri", "grid12-si", "us_per_job", 3);
  ratio_at_most(out, cases, "Sy-I within 3x of S-I per job (12 servers)", "grid12-syi", "grid12-si", "us_per_job", 3);
  ratio_at_most(out, cases, "R-I within 3x of S-I per job (1,000 peers)", "ri-1000", "peers-1000", "us_per_job", 3);
  ratio_at_most(out, cases, "Sy-I within 3x of S-I per job (1,000 peers)", "syi-1000", "peers-1000", "us_per_job", 3);
  // Shan et al.'s matrix, one seed: no pathological run.
  check(out, cases, "every run of Shan et al.'s matrix under 10 s (one core each)", {"sweep-002"},
        [](const std::vector<nlohmann::json>& r) {
          const double slowest = number(r[0], "slowest_run_s");
          return std::pair{slowest < 10,
                           fmt::format("slowest {:.1f} s ({})", slowest, r[0].value("slowest_run", std::string{}))};
        });
  // 5. Real peers: measured by scripts/bench-peers (gridsim does not host the daemon).
  const std::string plain_target = "gridpeer ATT round trip p50 <= 25 us, >= 100,000 queries/s (loopback, no TLS)";
  const std::string tls_target = "gridpeer ATT round trip p50 <= 35 us over mutual TLS";
  if (peers.is_null() || !peers.contains("att")) {
    out.push_back({plain_target, "run scripts/bench-peers, then bench --peers bench-peers.json", "not run"});
    out.push_back({tls_target, "the same", "not run"});
    return out;
  }
  // The kernel's own round trip on this machine, measured in the same rounds
  // (older bench-peers.json files lack it): a target below it cannot be met here.
  const std::string floor = peers.contains("loopback_echo_p50_us")
                                ? fmt::format("; a plain echo over the same loopback: p50 {:.1f} us{}",
                                              peers.at("loopback_echo_p50_us").get<double>(),
                                              peers.value("cpus_kept_awake", false) ? "; CPUs kept awake" : "")
                                : std::string{};
  // Measured twice: with the processes sleeping between messages (the
  // default) and with both ends polling before they sleep (--busy-poll, in
  // files from bench-peers since it has it). A target is met by either; the
  // cell says which met it.
  const auto& att = peers.at("att");
  const std::string polling = fmt::format("with --busy-poll {} on both ends", peers.value("busy_poll_us", 0));
  const auto plain_met = [](const nlohmann::json& m) {
    return m.at("round_trip_p50_us").get<double>() <= 25 && m.at("queries_per_second").get<double>() >= 100'000;
  };
  const auto plain_cell = [](const nlohmann::json& m) {
    return fmt::format("p50 {:.1f} us, p99 {:.1f} us, {:.0f} queries/s", m.at("round_trip_p50_us").get<double>(),
                       m.at("round_trip_p99_us").get<double>(), m.at("queries_per_second").get<double>());
  };
  const auto tls_met = [](const nlohmann::json& m) { return m.at("round_trip_p50_us").get<double>() <= 35; };
  const auto tls_cell = [](const nlohmann::json& m) {
    return fmt::format("p50 {:.1f} us, {:.0f} queries/s", m.at("round_trip_p50_us").get<double>(),
                       m.at("queries_per_second").get<double>());
  };
  const auto row = [&](const std::string& target, const std::string& mode, const auto& met, const auto& cell_of) {
    const nlohmann::json& sleeping = att.at(mode);
    std::string measured = "sleeping: " + cell_of(sleeping);
    bool ok = met(sleeping);
    if (att.contains(mode + "-polling")) {
      const nlohmann::json& polled = att.at(mode + "-polling");
      measured += "; " + polling + ": " + cell_of(polled);
      ok = ok || met(polled);
    }
    out.push_back({target, measured + floor, ok ? "met" : "not met"});
  };
  row(plain_target, "plaintext", plain_met, plain_cell);
  row(tls_target, "tls", tls_met, tls_cell);
  return out;
}

namespace {

std::string machine() {
  std::string model = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  return fmt::format("{} cores, {}", std::thread::hardware_concurrency(), model);
}

/// A table cell: a literal '|' would end it.
std::string cell(const std::string& text) {
  std::string escaped;
  for (const char c : text) {
    if (c == '|') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

}  // namespace

std::string performance_markdown(const nlohmann::json& cases, const std::vector<TargetCheck>& targets,
                                 const std::string& version, bool quick, const std::string& notes) {
  std::string md;
  md += "# Performance: measured figures, the speed targets, and what bounds each hot path\n\n";
  md += fmt::format(
      "Generated, not written: with the Parallel Workloads Archive logs found (`--trace-dir DIR` or "
      "`GRIDPEER_TRACE_DIR`; without them the trace cases are skipped), `gridsim bench{} --out bench.json`, the "
      "three studies by name (`gridsim bench --cases study-shan2004,study-jones2004,study-shih2010 --out "
      "studies.json`), 100,000 peers x 100 jobs (`gridsim bench --cases peers-100000x100 --out big.json`), "
      "`scripts/bench-peers` (writes bench-peers.json), then `gridsim bench --from studies.json,bench.json,big.json "
      "--peers bench-peers.json --markdown docs/performance.md`. Run them again rather than edit the tables. The "
      "notes from \"What each hot path costs\" on are written by hand in this file, and `--markdown` keeps them "
      "when it makes the page again.\n\n",
      quick ? " --quick" : "");
  md += fmt::format("- code: gridpeer {}\n- machine: {}\n- build: `release` preset (-O3, assertions on)\n\n", version,
                    machine());
  md +=
      "Each case runs in a process of its own, so its peak RSS is its own. *wall* is the whole child (start-up, "
      "loading, parsing); *sim* and the rates cover the simulation only. A case under 5 s is run three times "
      "and the run of median wall time kept; inside it, a grid simulation under 0.1 s is run again on the "
      "same workload for about a second and its median run reported (12 peers: about 3 ms a run). Ratios in the "
      "targets come from one bench, side by side. The "
      "sweep's *sim s* is the sum of its runs' own wall times, each run once: a run that several names share "
      "(a baseline on an axis it does not read) ran once and counts once.\n\n";
  md += "## Targets\n\n| target | measured | verdict |\n|---|---|---|\n";
  for (const auto& t : targets) {
    md += fmt::format("| {} | {} | **{}** |\n", cell(t.target), cell(t.measured), t.verdict);
  }
  md +=
      "\nThe real-peer figures (ATT round trip over loopback, 1,000 jobs queued, median of three rounds) come "
      "from `scripts/bench-peers`, which starts `gridpeer` daemons: sleeping between messages (the default), and "
      "with the daemon and gridctl polling before they sleep (`--busy-poll`, off by default: it keeps a CPU "
      "busy).\n\n";
  md +=
      "## Cases\n\n| case | what | jobs | events | wall s | sim s | us/job | RSS MB "
      "|\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& row : cases) {
    md += fmt::format("| {} | {} | {} | {} | {:.2f} | {:.2f} | {:.2f} | {:.1f} |\n", row.at("case").get<std::string>(),
                      cell(row.at("what").get<std::string>()), row.at("jobs").get<std::size_t>(),
                      row.at("events").get<std::uint64_t>(), number(row, "wall_seconds"),
                      number(row, "simulation_seconds"), number(row, "us_per_job"), number(row, "peak_rss_mb"));
  }
  md += "\n";
  if (!notes.empty()) {
    md += notes;
  } else {
    md += fmt::format(
        "{}\n\nWritten by hand in the project's docs/performance.md, not by the bench: `--markdown` keeps that "
        "part of the file it replaces.\n",
        kNotesHeading);
  }
  return md;
}

std::string hand_written_notes(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return {};
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw std::runtime_error("cannot read '" + path + "', whose hand-written notes --markdown keeps");
  const std::string page = text.str();
  const std::string heading = std::string("\n") + kNotesHeading;
  const std::size_t at = page.find(heading);
  return at == std::string::npos ? std::string() : page.substr(at + 1);
}

}  // namespace gridpeer::sim::bench
