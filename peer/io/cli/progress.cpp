#include "peer/io/cli/progress.hpp"

#include <unistd.h>
#include <iostream>
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
  std::cerr << '\r' << label_ << ": " << done << '/' << total_ << " (" << static_cast<int>(percent) << "%)"
            << std::flush;
}

}  // namespace gridpeer::cli
