#include "peer/core/membership/gossip_queue.hpp"

#include <stdexcept>
#include <utility>

namespace gridpeer::membership {

void GossipQueue::push(protocol::MemberUpdate update) {
  const auto found = entries_.find(update.member);
  if (found != entries_.end()) {
    order_.erase(Key{found->second.sent, found->second.order, found->first});
    entries_.erase(found);
  }
  const std::uint64_t order = next_order_++;
  order_.emplace(0, order, update.member);
  std::string member = update.member;
  entries_.emplace(std::move(member), Entry{std::move(update), 0, order});
}

std::vector<protocol::MemberUpdate> GossipQueue::take(std::size_t count, int limit, std::string_view skip) {
  std::vector<protocol::MemberUpdate> out;
  std::vector<Key> sent;
  for (auto it = order_.begin(); it != order_.end() && out.size() < count; ++it) {
    if (std::get<2>(*it) == skip) continue;
    out.push_back(entries_.at(std::get<2>(*it)).update);
    sent.push_back(*it);
  }
  for (const Key& key : sent) {
    order_.erase(key);
    Entry& entry = entries_.at(std::get<2>(key));
    ++entry.sent;
    if (entry.sent >= limit) {
      entries_.erase(std::get<2>(key));
    } else {
      order_.emplace(entry.sent, entry.order, std::get<2>(key));
    }
  }
  return out;
}

const protocol::MemberUpdate* GossipQueue::find(std::string_view member) const {
  const auto found = entries_.find(member);
  return found == entries_.end() ? nullptr : &found->second.update;
}

void GossipQueue::check_invariants() const {
  if (order_.size() != entries_.size()) throw std::logic_error("gossip queue: order and entries differ in size");
  for (const auto& [member, entry] : entries_) {
    if (order_.count(Key{entry.sent, entry.order, member}) == 0U) {
      throw std::logic_error("gossip queue: the update about " + member + " is not in the order");
    }
  }
}

}  // namespace gridpeer::membership
