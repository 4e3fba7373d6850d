#include "sim/studies/cli_support.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <algorithm>
#include <atomic>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "peer/io/cli/output_file.hpp"
#include "peer/workload/calendar.hpp"
#include "sim/studies/run_identity.hpp"

namespace gridpeer::sim {

std::shared_ptr<spdlog::logger> make_logger(const std::string& name, bool verbose) {
  auto logger = std::make_shared<spdlog::logger>(name, std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  logger->set_pattern("[%n] [%^%l%$] %v");
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::info);
  return logger;
}

void add_shaping_options(cxxopts::Options& options) {
  options.add_options()(
      "load-factor",
      "divide every inter-arrival time by this (2 = twice the offered load over half the span; job sizes and "
      "run times unchanged): the usual way to study load with a real log",
      cxxopts::value<double>()->default_value("1"))(
      "arrival-factor",
      "the Lublin model's arrival knob: multiplies the shape of its inter-arrival gamma (below 1 = more load); "
      "--workload lublin/synthetic only",
      cxxopts::value<double>()->default_value("1"))(
      "estimates",
      "users' run-time estimates of generated jobs, and of a trace's jobs whose log gives none (SWF field 9 = -1; "
      "the others keep their own): exact (= run time, the models' default, which flatters backfilling), factor:F "
      "(run time x F), or f-model:F (run time x U[1,F] per job, Mu'alem and Feitelson 2001)",
      cxxopts::value<std::string>());
}

WorkloadShaping shaping_from_options(const cxxopts::ParseResult& args) {
  WorkloadShaping shaping;
  shaping.load_factor = args["load-factor"].as<double>();
  shaping.arrival_factor = args["arrival-factor"].as<double>();
  if (args.count("estimates") != 0U) {
    const std::string text = args["estimates"].as<std::string>();
    shaping.estimates = workload::parse_estimate_model(text);
    if (!shaping.estimates) {
      throw std::invalid_argument("--estimates '" + text + "' is not exact, factor:F or f-model:F (F >= 1)");
    }
  }
  return shaping;
}

void write_json_file(const std::string& path, const nlohmann::json& json) {
  cli::write_output_file(path, json.dump(2) + "\n");
}

void add_study_output_options(cxxopts::Options& options, const std::string& csv, const std::string& csv_help) {
  options.add_options("output")("out", "write the result as JSON to this file", cxxopts::value<std::string>())(
      csv, csv_help, cxxopts::value<std::string>())(
      "no-timing", "write wall_seconds as 0, so the same seed gives identical JSON")("v,verbose", "log more")(
      "h,help", "show this help");
}

void write_study_json(const cxxopts::ParseResult& args, nlohmann::json json, const nlohmann::json& identity, int argc,
                      char** argv) {
  if (args.count("out") == 0U) return;
  if (!identity.is_null()) json["identity"] = identity;
  json["gridpeer_version"] = gridpeer_version();
  json["command_line"] = command_line_of(argc, argv);
  write_json_file(args["out"].as<std::string>(), json);
}

std::optional<workload::TraceWindow> window_from_options(const std::string& start, int days) {
  if (start.empty()) return std::nullopt;
  const auto date = workload::parse_date(start);
  if (!date) throw std::invalid_argument("--window-start '" + start + "' is not a date such as 2002-03-01");
  if (days <= 0) throw std::invalid_argument("--window-days must be positive");
  return workload::TraceWindow{workload::unix_time(*date), static_cast<std::int64_t>(days) * 86400};
}

void parallel_for(std::size_t count, std::size_t threads, const std::function<void(std::size_t)>& work,
                  const std::function<std::string(std::size_t)>& describe) {
  std::atomic<std::size_t> next{0};
  std::mutex failure_lock;
  std::string failure;
  const auto worker = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        work(i);
      } catch (const std::exception& error) {
        const std::lock_guard lock(failure_lock);
        if (failure.empty()) failure = describe(i) + ": " + error.what();
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < std::max<std::size_t>(1, std::min(threads, count)); ++t) pool.emplace_back(worker);
  for (auto& thread : pool) thread.join();
  if (!failure.empty()) throw std::runtime_error(failure);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<double> parse_positive_list(const std::string& text, const char* option, const char* what,
                                        const char* hint) {
  std::vector<double> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || !(v > 0)) {
      throw std::invalid_argument(fmt::format("--{}: '{}' is not {} ({})", option, item, what, hint));
    }
    values.push_back(v);
  }
  return values;
}

}  // namespace gridpeer::sim
