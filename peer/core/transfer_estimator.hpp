#pragma once
// ADT (002 §3.1.1): how long a data transfer would take given the bandwidth
// the path would give now. The core asks; a driver answers (the simulator
// from its network model, the daemon from what it measures).
#include <cstdint>

#include "peer/model/job.hpp"
#include "peer/model/time.hpp"

namespace gridpeer {

class TransferEstimator {
 public:
  virtual ~TransferEstimator() = default;
  /// Expected duration of moving `bytes` from server `from` to server `to`
  /// starting now (zero when from == to).
  [[nodiscard]] virtual Duration estimate(std::uint64_t bytes, ServerIndex from, ServerIndex to) const = 0;
};

}  // namespace gridpeer
