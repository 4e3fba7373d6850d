#include "peer/core/p2p/bag_rounds.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <stdexcept>

#include "peer/core/policy/job_grouping.hpp"
#include "peer/model/invariant.hpp"

namespace gridpeer {

namespace {

/// One group as a job: 1 CPU, the members' run times, estimates and data summed.
Job group_job(std::span<const Job> bag, const JobGroup& group) {
  const Job& first = bag[group.jobs.front()];
  Job job{first.id, first.origin, 1, first.submit, Duration::zero(), Duration::zero(), 0, 0};
  for (std::size_t member : group.jobs) {
    const Job& m = bag[member];
    job.submit = std::min(job.submit, m.submit);
    job.run_time += m.run_time;
    job.requested_time += m.requested_time;
    job.input_bytes += m.input_bytes;
    job.output_bytes += m.output_bytes;
  }
  return job;
}

/// `from` + `span` x part / whole, exact at the ends.
TimePoint share_of(TimePoint from, Duration span, Duration part, Duration whole) {
  if (whole <= Duration::zero() || part >= whole) return from + (part >= whole ? span : Duration::zero());
  const double fraction = static_cast<double>(part.count()) / static_cast<double>(whole.count());
  return from + Duration{std::llround(static_cast<double>(span.count()) * fraction)};
}

}  // namespace

BagRounds::BagRounds(BagGrouping config) : config_(config) {
  if (config_.enabled && !(config_.granularity_s > 0)) {
    throw std::invalid_argument("bag grouping: the granularity must be > 0 s");
  }
}

bool BagRounds::collect(const Job& job) {
  assert(job.bag != 0 && job.cpus == 1);
  ++waiting_;
  members_.insert(job.id);
  const auto open = open_.find(job.bag);
  if (open != open_.end()) {
    rounds_.at(open->second).members.push_back(job);
    return false;
  }
  open_.emplace(job.bag, job.id);
  rounds_.emplace(job.id, Round{job.bag, {job}});
  return true;
}

std::vector<GroupPlacement> BagRounds::conclude(JobId round, std::span<const BagCandidate> candidates, int origin_mhz) {
  const auto it = rounds_.find(round);
  assert(it != rounds_.end() && "a bag round concludes once");
  const Round bag = std::move(it->second);
  rounds_.erase(it);
  open_.erase(bag.bag);
  waiting_ -= bag.members.size();

  // [choice] A candidate that would hold its groups in its queue for phi or
  // more is left out, unless every candidate would (002's rule for one job,
  // applied to the bag's groups).
  // Usable: the jobs fit there and it says how fast it is (a reply of 0 MHz
  // is no help: found by fuzz_peer).
  const auto usable = [](const BagCandidate& c) { return c.can_run && c.mhz > 0; };
  const bool any_ready =
      std::any_of(candidates.begin(), candidates.end(), [&](const BagCandidate& c) { return usable(c) && c.ready; });
  std::vector<ServerIndex> servers;
  std::vector<GroupingResource> resources;
  for (const BagCandidate& c : candidates) {
    if (!usable(c) || (any_ready && !c.ready)) continue;
    const double mips = config_.total_mips ? static_cast<double>(c.mhz) * std::max(c.free_cpus, 1) : c.mhz;
    servers.push_back(c.server);
    resources.push_back({mips, c.bandwidth});
  }
  // The origin is always usable (a member needs one CPU): only a bug gets here.
  invariant(!resources.empty(), "BagRounds", "a bag round has a usable candidate: its origin");

  // The MI the grouping sees: the user's estimate at the origin's MIPS.
  std::vector<double> mi;
  mi.reserve(bag.members.size());
  for (const Job& m : bag.members) mi.push_back(to_seconds(m.requested_time) * origin_mhz);
  const std::vector<std::size_t> order = config_.bandwidth_aware ? by_bandwidth(resources) : in_order(resources);
  const std::vector<JobGroup> groups = group_jobs(mi, resources, order, config_.granularity_s);

  std::vector<GroupPlacement> placements;
  placements.reserve(groups.size());
  for (std::size_t g : largest_first(groups)) {
    const JobGroup& group = groups[g];
    std::vector<Job>& members = groups_[bag.members[group.jobs.front()].id];
    for (std::size_t j : group.jobs) members.push_back(bag.members[j]);
    placements.push_back({group_job(bag.members, group), servers[group.resource]});
  }
  return placements;
}

std::vector<JobRecord> BagRounds::members_of(const JobRecord& record) {
  const auto it = groups_.find(record.id);
  if (it == groups_.end()) return {};
  const std::vector<Job> members = std::move(it->second);
  groups_.erase(it);
  for (const Job& m : members) members_.erase(m.id);
  Duration whole = Duration::zero();
  for (const Job& m : members) whole += m.run_time;
  const Duration span = record.finish - record.start;
  std::vector<JobRecord> records;
  records.reserve(members.size());
  Duration before = Duration::zero();
  for (const Job& m : members) {
    const TimePoint start = share_of(record.start, span, before, whole);
    before += m.run_time;
    const TimePoint finish = share_of(record.start, span, before, whole);
    records.push_back(JobRecord::of(m, record.executed_on, start, finish, record.transferred() ? record.end : finish));
  }
  return records;
}

std::vector<JobId> BagRounds::group_ids() const {
  std::vector<JobId> ids;
  ids.reserve(groups_.size());
  for (const auto& entry : groups_) ids.push_back(entry.first);
  return ids;
}

void BagRounds::check_invariants() const {
  std::size_t waiting = 0;
  for (const auto& [id, round] : rounds_) {
    invariant(!round.members.empty() && round.members.front().id == id, "BagRounds",
              "a round is known by its first member");
    invariant(open_.count(round.bag) != 0U && open_.at(round.bag) == id, "BagRounds", "a bag has one open round");
    waiting += round.members.size();
  }
  std::size_t grouped = 0;
  for (const auto& [id, members] : groups_) {
    invariant(!members.empty() && members.front().id == id, "BagRounds", "a group is known by its first member");
    grouped += members.size();
  }
  invariant(open_.size() == rounds_.size(), "BagRounds", "every open bag has its round");
  invariant(waiting == waiting_, "BagRounds", "the waiting count is the rounds' members");
  invariant(members_.size() == waiting + grouped, "BagRounds", "every member is in one round or one group");
}

bool BagRounds::knows(JobId job) const {
  return members_.count(job) != 0U;
}

}  // namespace gridpeer
