#pragma once
// Small helpers shared by gridsim's commands: logging, progress, output files.
#include <spdlog/logger.h>
#include <chrono>
#include <cstddef>
#include <cxxopts.hpp>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "peer/io/cli/progress.hpp"
#include "peer/workload/shaping.hpp"
#include "peer/workload/swf_jobs.hpp"

namespace gridpeer::sim {

/// A logger writing to stderr, named for the program (one per process here;
/// peers get their own in the grid driver).
std::shared_ptr<spdlog::logger> make_logger(const std::string& name, bool verbose);

using cli::Progress;

/// --load-factor, --arrival-factor and --estimates (workload::shaping): one
/// definition for run, compare, sweep, replay and generate.
void add_shaping_options(cxxopts::Options& options);
struct WorkloadShaping {
  double load_factor = 1.0;
  double arrival_factor = 1.0;
  std::optional<workload::EstimateModel> estimates;
};
WorkloadShaping shaping_from_options(const cxxopts::ParseResult& args);

/// "200,100,50": numbers above 0, comma-separated. Throws std::invalid_argument
/// saying "--OPTION: 'x' is not WHAT (HINT)".
std::vector<double> parse_positive_list(const std::string& text, const char* option, const char* what,
                                        const char* hint = "a number above 0");
void write_json_file(const std::string& path, const nlohmann::json& json);

/// The output options of a one-run study command (gridsim coalloc, allocate,
/// group, bag): --out, one per-row CSV option `csv` (help `csv_help`),
/// --no-timing, -v and -h.
void add_study_output_options(cxxopts::Options& options, const std::string& csv, const std::string& csv_help);
/// With --out: the result's JSON, with what identifies the run (unless
/// null), the version and the command line, written to the file.
void write_study_json(const cxxopts::ParseResult& args, nlohmann::json json, const nlohmann::json& identity, int argc,
                      char** argv);

/// --window-start DATE with --window-days N into a window, or nullopt.
std::optional<workload::TraceWindow> window_from_options(const std::string& start, int days);

double seconds_since(std::chrono::steady_clock::time_point start);

/// Calls work(i) for every i in [0, count) from `threads` threads (each index
/// once, in increasing order of start). If any call throws, the others still
/// run and the first failure is rethrown as std::runtime_error naming its index
/// through `describe`.
void parallel_for(std::size_t count, std::size_t threads, const std::function<void(std::size_t)>& work,
                  const std::function<std::string(std::size_t)>& describe);

}  // namespace gridpeer::sim
