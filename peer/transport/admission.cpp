#include "peer/transport/admission.hpp"

#include <algorithm>
#include <cassert>

namespace gridpeer::transport {

ConnectionAdmission::ConnectionAdmission(std::size_t max_total, std::size_t max_per_address)
    : max_total_(max_total), max_per_address_(max_per_address) {
  assert(max_total_ > 0 && max_per_address_ > 0);
}

void ConnectionAdmission::forget_closed() {
  // Linear in the connections held, which the cap bounds; run only when one
  // is admitted or counted, so a lease's end needs no call back.
  per_address_.clear();
  std::erase_if(leases_, [](const std::weak_ptr<const std::string>& lease) { return lease.expired(); });
  for (const auto& weak : leases_) {
    if (const auto lease = weak.lock()) ++per_address_[*lease];
  }
}

std::variant<ConnectionAdmission::Lease, std::string> ConnectionAdmission::admit(const std::string& address) {
  forget_closed();
  if (leases_.size() >= max_total_) {
    return "this peer holds " + std::to_string(leases_.size()) + " connections, its cap (--max-connections)";
  }
  const auto from = per_address_.find(address);
  if (from != per_address_.end() && from->second >= max_per_address_) {
    return "this address holds " + std::to_string(from->second) +
           " connections, the cap per address (--max-connections-per-address)";
  }
  auto lease = std::make_shared<const std::string>(address);
  leases_.push_back(lease);
  ++per_address_[address];
  return lease;
}

std::size_t ConnectionAdmission::open() {
  forget_closed();
  return leases_.size();
}

std::size_t ConnectionAdmission::open_from(const std::string& address) {
  forget_closed();
  const auto it = per_address_.find(address);
  return it == per_address_.end() ? 0 : it->second;
}

}  // namespace gridpeer::transport
