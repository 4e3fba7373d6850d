#include "sim/experiments/cli_support.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <fstream>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "peer/workload/calendar.hpp"

namespace gridpeer::sim {

std::shared_ptr<spdlog::logger> make_logger(const std::string& name, bool verbose) {
  auto logger = std::make_shared<spdlog::logger>(name, std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  logger->set_pattern("[%n] [%^%l%$] %v");
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::info);
  return logger;
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write '" + path + "': check the directory exists and is writable");
  out << text;
  if (!out) throw std::runtime_error("failed while writing '" + path + "'");
}

void write_json_file(const std::string& path, const nlohmann::json& json) {
  write_text_file(path, json.dump(2) + "\n");
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

}  // namespace gridpeer::sim
