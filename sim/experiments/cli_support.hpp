#pragma once
// Small helpers shared by gridsim's commands: logging, progress, output files.
#include <spdlog/logger.h>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "peer/workload/swf_jobs.hpp"

namespace gridpeer::sim {

/// A logger writing to stderr, named for the program (one per process here;
/// peers get their own in the grid driver).
std::shared_ptr<spdlog::logger> make_logger(const std::string& name, bool verbose);

/// Prints "label: done/total" on stderr, rewritten in place, only when stderr
/// is a terminal and at most a few times a second.
class Progress {
 public:
  Progress(std::string label, std::size_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void update(std::size_t done);
  void set_total(std::size_t total) { total_ = total; }
  /// False when stderr is not a terminal (then callers log milestones instead).
  [[nodiscard]] bool enabled() const { return enabled_; }

 private:
  std::string label_;
  std::size_t total_;
  bool enabled_;
  bool printed_ = false;
  std::chrono::steady_clock::time_point last_{};
};

/// Writes `text` to `path`, or throws std::runtime_error saying why not.
void write_text_file(const std::string& path, const std::string& text);
void write_json_file(const std::string& path, const nlohmann::json& json);

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
