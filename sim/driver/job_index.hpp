#pragma once
// The trace's job behind an id as its origin numbered it. Ids from one origin
// grow with each submission (peer/model/ids.hpp: the incarnation above a
// counter), so each origin keeps a sorted list and a lookup is a binary
// search: 16 bytes a job, where a hash map took about 45 (10 million jobs
// in one run held 450 MB of them, profiled with heaptrack).
#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "peer/model/ids.hpp"

namespace gridpeer::sim {

class JobIndex {
 public:
  /// One list per origin; an id whose origin is not below `origins` goes in
  /// the last (the meta-scheduler keeps the trace's ids: one list for all).
  explicit JobIndex(std::size_t origins) : by_origin_(std::max<std::size_t>(origins, 1)) {}

  void reserve(std::size_t origin, std::size_t jobs) { by_origin_[origin].reserve(jobs); }

  /// Records that `id` names the trace's job at `index`; the first add of an id stands.
  void add(JobId id, std::size_t index) {
    auto& list = list_of(id);
    if (list.empty() || list.back().first < id) {  // the usual case: ids in the order given
      list.emplace_back(id, index);
      return;
    }
    const auto at = std::lower_bound(list.begin(), list.end(), Entry{id, 0},
                                     [](const Entry& a, const Entry& b) { return a.first < b.first; });
    if (at == list.end() || at->first != id) list.insert(at, Entry{id, index});  // out of order: rare
  }

  /// Visits (id, index) of the ids an origin gave, in id order: the order it
  /// numbered them (an incarnation's ids are above the last one's).
  template <class Visit>
  void for_each_of(ServerIndex origin, Visit&& visit) const {
    if (origin >= by_origin_.size()) return;
    for (const auto& [id, index] : by_origin_[origin]) visit(id, index);
  }

  [[nodiscard]] std::optional<std::size_t> find(JobId id) const {
    const auto& list = by_origin_[bucket_of(id)];
    // An origin's ids are consecutive within one start of it, so an id is
    // usually as far from the first as its entry is: two cache lines read,
    // where the search read five (the driver looks up every job as it ends).
    if (!list.empty() && id >= list.front().first) {
      const JobId guess = id - list.front().first;
      if (guess < list.size() && list[guess].first == id) return list[guess].second;
    }
    const auto at = std::lower_bound(list.begin(), list.end(), Entry{id, 0},
                                     [](const Entry& a, const Entry& b) { return a.first < b.first; });
    if (at == list.end() || at->first != id) return std::nullopt;
    return at->second;
  }

 private:
  using Entry = std::pair<JobId, std::size_t>;
  [[nodiscard]] std::size_t bucket_of(JobId id) const {
    const std::size_t origin = origin_in_id(id);
    return origin < by_origin_.size() ? origin : by_origin_.size() - 1;
  }
  std::vector<Entry>& list_of(JobId id) { return by_origin_[bucket_of(id)]; }

  std::vector<std::vector<Entry>> by_origin_;
};

}  // namespace gridpeer::sim
