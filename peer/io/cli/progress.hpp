#pragma once
// Progress of long work on stderr: "label: done/total (p%, ETA 1m05s)" rewritten in
// place, only when stderr is a terminal and at most a few times a second.
// Shared by gridsim and gridctl; when stderr is not a terminal callers log
// milestones instead (a CI log must not fill with carriage returns).
#include <chrono>
#include <cstddef>
#include <string>

namespace gridpeer::cli {

class Progress {
 public:
  Progress(std::string label, std::size_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void update(std::size_t done);
  void set_total(std::size_t total) { total_ = total; }
  /// Ends the line now (before other output), rather than at destruction.
  void finish();
  [[nodiscard]] bool enabled() const { return enabled_; }

 private:
  std::string label_;
  std::size_t total_;
  bool enabled_;
  bool printed_ = false;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace gridpeer::cli
