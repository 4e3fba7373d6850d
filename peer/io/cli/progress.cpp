#include "peer/io/cli/progress.hpp"

#include <unistd.h>
#include <iostream>
#include <string>
#include <utility>

namespace gridpeer::cli {

Progress::Progress(std::string label, std::size_t total)
    : label_(std::move(label)), total_(total), enabled_(isatty(STDERR_FILENO) != 0) {}

Progress::~Progress() {
  finish();
}

void Progress::finish() {
  if (printed_) std::cerr << '\n';
  printed_ = false;
}

void Progress::update(std::size_t done) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (done < total_ && now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  printed_ = true;
  const double percent = total_ == 0 ? 100.0 : 100.0 * static_cast<double>(done) / static_cast<double>(total_);
  std::string eta;
  if (done > 0 && done < total_) {
    // The rate so far, carried to the end.
    const double elapsed = std::chrono::duration<double>(now - started_).count();
    const auto left = static_cast<long long>(elapsed * static_cast<double>(total_ - done) / static_cast<double>(done));
    eta = left >= 60 ? ", ETA " + std::to_string(left / 60) + "m" + (left % 60 < 10 ? "0" : "") +
                           std::to_string(left % 60) + "s"
                     : ", ETA " + std::to_string(left) + "s";
  }
  // Trailing spaces wipe what a longer previous line left.
  std::cerr << '\r' << label_ << ": " << done << '/' << total_ << " (" << static_cast<int>(percent) << "%" << eta
            << ")   " << std::flush;
}

}  // namespace gridpeer::cli
