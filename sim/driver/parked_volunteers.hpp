#pragma once
// R-I and Sy-I peers volunteer to every partner at every period (Shan et al. 2004, §3.1.2),
// and most of those messages reach a peer with nothing waiting, where all they
// do is note who offered. Sent through the event queue they were 95% of an
// R-I run's events. The driver parks them here instead, by
// receiver, and hands them over just before the receiver's next input -- or
// puts them back in the queue, keeping their order, once the receiver has a
// job waiting and a volunteer could act. Every one is still sent and counted.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "peer/model/ids.hpp"
#include "peer/model/time.hpp"

namespace gridpeer::sim {

struct ParkedVolunteer {
  TimePoint at;            ///< when it arrives
  std::uint64_t sequence;  ///< its place among events of one instant
  ServerIndex from;
  double utilization;  ///< what the volunteer advertised
};

class ParkedVolunteers {
 public:
  explicit ParkedVolunteers(std::size_t peers) : by_receiver_(peers) {}

  void park(ServerIndex to, const ParkedVolunteer& volunteer) {
    by_receiver_[to].push_back(volunteer);
    ++count_;
  }
  // With none parked anywhere (every algorithm but R-I and Sy-I), the answer
  // needs no peer's list: each is a miss in memory at 10,000 peers.
  [[nodiscard]] bool empty(ServerIndex to) const { return count_ == 0 || by_receiver_[to].empty(); }

  /// Removes those of `to` that arrive before the event (at, sequence): calls
  /// note on each that arrived before `at`, in no particular order (all such a
  /// one does is note its sender, and the latest offer per sender is kept),
  /// then deliver on those of the instant `at` itself, in sequence order.
  template <class Note, class Deliver>
  void take_before(ServerIndex to, TimePoint at, std::uint64_t sequence, Note&& note, Deliver&& deliver) {
    if (count_ == 0) return;
    auto& parked = by_receiver_[to];
    if (parked.empty()) return;
    // Those arriving later are moved to the front in place and the due ones
    // cut off the end (a stable partition took a buffer from the heap at each
    // call); only the few of the very instant need sorting (measured: sorting
    // every hand-over was a tenth of a 12-server R-I run, 3% at 1,000 peers).
    const auto due = std::partition(parked.begin(), parked.end(), [&](const ParkedVolunteer& v) {
      return v.at > at || (v.at == at && v.sequence >= sequence);
    });
    const auto instant = std::partition(due, parked.end(), [&](const ParkedVolunteer& v) { return v.at < at; });
    count_ -= static_cast<std::size_t>(parked.end() - due);
    for (auto v = due; v != instant; ++v) note(*v);
    taken_.assign(instant, parked.end());
    parked.erase(due, parked.end());
    std::sort(taken_.begin(), taken_.end(),
              [](const ParkedVolunteer& a, const ParkedVolunteer& b) { return a.sequence < b.sequence; });
    for (const ParkedVolunteer& v : taken_) deliver(v);
  }

  /// Removes every one of `to` (each arrives after the event being handled).
  template <class Requeue>
  void take_all(ServerIndex to, Requeue&& requeue) {
    auto& parked = by_receiver_[to];
    taken_.swap(parked);
    parked.clear();
    count_ -= taken_.size();
    for (const ParkedVolunteer& v : taken_) requeue(v);
    taken_.clear();
  }

 private:
  std::vector<std::vector<ParkedVolunteer>> by_receiver_;
  std::vector<ParkedVolunteer> taken_;  // reused: no allocation per delivery
  std::size_t count_ = 0;               // parked, over every receiver
};

}  // namespace gridpeer::sim
