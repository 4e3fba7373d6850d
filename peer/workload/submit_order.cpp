#include "peer/workload/submit_order.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace gridpeer::workload {
namespace {

bool by_submit(const Job& a, const Job& b) {
  return a.submit < b.submit;
}

}  // namespace

void sort_by_submit(std::vector<Job>& jobs, std::span<const std::size_t> run_ends) {
  // Where each run begins, and the end of the last.
  std::vector<std::size_t> bounds{0};
  for (const std::size_t end : run_ends) {
    if (end < bounds.back() || end > jobs.size()) {
      throw std::invalid_argument("sort_by_submit: the runs' ends must rise and stay within the jobs");
    }
    bounds.push_back(end);
  }
  if (bounds.back() != jobs.size()) bounds.push_back(jobs.size());
  const auto at = [&](std::size_t index) { return jobs.begin() + static_cast<std::ptrdiff_t>(index); };
  for (std::size_t r = 0; r + 1 < bounds.size(); ++r) {
    // libstdc++'s stable_sort merges even a sorted range through its buffer.
    if (!std::is_sorted(at(bounds[r]), at(bounds[r + 1]), by_submit)) {
      std::stable_sort(at(bounds[r]), at(bounds[r + 1]), by_submit);
    }
  }
  // Neighbours merged pairwise, the left one's jobs first on ties: the same
  // order as one stable sort of the whole.
  while (bounds.size() > 2) {
    std::vector<std::size_t> merged{0};
    for (std::size_t r = 0; r + 1 < bounds.size(); r += 2) {
      if (r + 2 < bounds.size()) std::inplace_merge(at(bounds[r]), at(bounds[r + 1]), at(bounds[r + 2]), by_submit);
      merged.push_back(bounds[std::min(r + 2, bounds.size() - 1)]);
    }
    bounds = std::move(merged);
  }
}

}  // namespace gridpeer::workload
