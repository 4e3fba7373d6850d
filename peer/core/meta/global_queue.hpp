#pragma once
// The meta-scheduler's global queue: waiting jobs in arrival order, indexed
// by width so that a pass can go straight to the earliest job narrow enough
// to start. Under overload (Jones et al.'s Initial Strategy past its breaking
// point) the queue holds hundreds of thousands of jobs; a pass then costs
// what it places, not what waits.
//
// Jobs sit in arrival order from the oldest waiting one on, with the gaps
// first fit leaves; a tree of minimum widths over those places answers
// first() in O(log n) (a set of positions per width cost a search per width,
// and a node allocation per push). Most of the time the queue is a few tens
// of places long: then first() reads their widths in a row, which costs less
// than walking and keeping the tree, and the tree is built only when the
// places grow past a few hundred.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "peer/model/job.hpp"

namespace gridpeer {

class GlobalQueue {
 public:
  /// A job's place in arrival order (increasing, never reused).
  using Position = std::uint64_t;

  explicit GlobalQueue(std::size_t origins) : per_origin_(origins, 0) {}

  Position push(const Job& job);
  void erase(Position position);
  /// The waiting job at `position`; throws std::out_of_range when none waits there.
  [[nodiscard]] const Job& at(Position position) const;
  [[nodiscard]] std::size_t size() const { return waiting_; }
  [[nodiscard]] bool empty() const { return waiting_ == 0; }
  [[nodiscard]] std::size_t waiting_from(ServerIndex origin) const { return per_origin_.at(origin); }
  /// CPUs asked for by every waiting job together (004's SL reads it per event).
  [[nodiscard]] std::int64_t total_cpus() const { return total_cpus_; }

  /// The fewest CPUs a waiting job asks for (none waits: nullopt; a job asking
  /// for the most an int holds counts one fewer, see width_of()).
  [[nodiscard]] std::optional<int> narrowest() const {
    if (waiting_ == 0) return std::nullopt;
    return narrowest_;
  }
  /// The earliest job at or after `from`; with `widest`, only jobs of at most
  /// that many CPUs. (Inline around a search that returns a plain position:
  /// GCC returned the optional through the stack, a stall at every call.)
  [[nodiscard]] std::optional<Position> first(Position from, std::optional<int> widest = std::nullopt) const {
    const Position found = first_within(from, widest ? *widest : kNoJob - 1);
    if (found == kNoPosition) return std::nullopt;
    return found;
  }

  /// Every waiting job, in arrival order.
  template <typename F>
  void for_each(F&& visit) const {
    for (std::size_t i = head_; i < jobs_.size(); ++i) {
      if (waits(i)) visit(jobs_[i]);
    }
  }
  /// Waiting jobs in arrival order while `visit` returns true: a prefix costs
  /// what it reads, not what waits.
  template <typename F>
  void for_each_while(F&& visit) const {
    for (std::size_t i = head_; i < jobs_.size(); ++i) {
      if (waits(i) && !visit(jobs_[i])) return;
    }
  }

 private:
  static constexpr int kNoJob = std::numeric_limits<int>::max();
  static constexpr Position kNoPosition = std::numeric_limits<Position>::max();
  /// first(): kNoPosition when no job of at most `most` CPUs waits from `from` on.
  [[nodiscard]] Position first_within(Position from, int most) const;
  [[nodiscard]] bool waits(std::size_t slot) const { return widths_[slot] != kNoJob; }
  /// The width the searches and counts use: kNoJob marks an empty place, so a
  /// job asking for that many CPUs (none fits anywhere) counts one fewer.
  [[nodiscard]] static int width_of(const Job& job) { return std::min(job.cpus, kNoJob - 1); }
  /// The tree's leaf for `position`'s width, or none when it waits no more.
  void set_leaf(Position position, int width);
  /// Makes the tree again over the places from front_ on, with room to grow.
  void rebuild_tree();
  [[nodiscard]] std::size_t places() const { return jobs_.size() - head_; }
  void count_width(int width, int by);

  // Positions front_, front_ + 1, ... from slot head_ on: the oldest waiting
  // job first (vectors read from head_: a deque allocated a block every six jobs).
  std::vector<Job> jobs_;
  std::vector<int> widths_;  // by slot: its job's CPUs, kNoJob once it waits no more
  std::size_t head_ = 0;
  Position front_ = 0;
  Position next_ = 0;
  std::size_t waiting_ = 0;
  // Minimum width over places tree_base_ + [0, leaves_): a leaf per place,
  // kNoJob where none waits; node k's children are 2k and 2k + 1. Kept only
  // while tree_live_ (many places); otherwise widths_ is read in a row.
  bool tree_live_ = false;
  std::vector<int> tree_;
  Position tree_base_ = 0;
  std::size_t leaves_ = 0;
  std::vector<std::size_t> per_origin_;
  std::int64_t total_cpus_ = 0;
  // Waiting jobs per width, and the narrowest one (read at every pass: the
  // counts find it again only when its last job leaves).
  std::vector<std::uint32_t> of_width_;  // below kCountedWidths
  std::map<int, std::uint32_t> wider_;   // the rest
  int narrowest_ = 0;
};

}  // namespace gridpeer
