#include "peer/core/meta/meta_scheduler.hpp"

#include <algorithm>
#include <cassert>
#include <stdexcept>

#include "peer/model/invariant.hpp"

namespace gridpeer {

MetaScheduler::MetaScheduler(std::vector<ServerSpec> servers, LocalPolicyConfig policy,
                             std::vector<std::unique_ptr<PlacementModule>> chain, QueueDiscipline discipline,
                             const network::NetworkView& network, TimePoint start)
    : chain_(std::move(chain)), discipline_(discipline), network_(network), now_(start) {
  if (servers.empty()) throw std::invalid_argument("a meta-scheduler needs at least one site");
  if (chain_.empty()) throw std::invalid_argument("a meta-scheduler needs at least one placement module");
  locals_.reserve(servers.size());
  for (ServerSpec& server : servers) locals_.emplace_back(std::move(server), policy, start);
  for (ServerIndex i = 0; i < locals_.size(); ++i) server_indices_.push_back(i);
  counters_.resize(locals_.size());
}

void MetaScheduler::submit(const Job& job, TimePoint now) {
  advance(now);
  if (job.origin >= locals_.size()) throw std::invalid_argument("job " + std::to_string(job.id) + ": no such origin");
  if (placed_.count(job.id) != 0U ||
      std::any_of(queue_.begin(), queue_.end(), [&](const Job& queued) { return queued.id == job.id; })) {
    outputs_.emplace_back(JobEnded{JobRecord::of(job, job.origin, now, now, now), JobOutcome::rejected,
                                   "job id " + std::to_string(job.id) + " is already in use"});
    return;
  }
  queue_.push_back(job);
  pass(now);
  checked();
}

void MetaScheduler::on_message(ServerIndex from, const protocol::Message& /*message*/, TimePoint /*now*/) {
  throw std::logic_error("a meta-scheduler exchanges no messages (one came from server " + std::to_string(from) + ")");
}

void MetaScheduler::on_peer(ServerIndex /*peer*/, PeerState /*state*/, std::string_view /*reason*/, TimePoint now) {
  advance(now);
}

void MetaScheduler::on_transfer_done(const DataTransfer& transfer, TimePoint now) {
  advance(now);
  const auto it = placed_.find(transfer.job);
  assert(it != placed_.end() && "every transfer belongs to a placed job");
  Placed& placed = it->second;
  switch (transfer.kind) {
    case DataTransfer::Kind::input:
      assert(transfer.to == placed.site && !placed.input_here);
      placed.input_here = true;
      locals_[placed.site].input_arrived(transfer.job, now);
      collect(placed.site);
      break;
    case DataTransfer::Kind::output:
      // The end of the job (002 §3: end = output home).
      outputs_.emplace_back(JobEnded{
          JobRecord::of(placed.job, transfer.from, transfer.start, transfer.finish, now), JobOutcome::completed, {}});
      placed_.erase(it);
      break;
  }
  if (!queue_.empty()) pass(now);
  checked();
}

void MetaScheduler::advance(TimePoint now) {
  // Sites' events in time order (sites in index order at equal times); a
  // pass after each instant at which jobs ended, as nodes came free then.
  for (;;) {
    const TimePoint next = next_deadline();
    if (next > now) break;
    for (ServerIndex site = 0; site < locals_.size(); ++site) {
      if (locals_[site].next_deadline() != next) continue;
      locals_[site].advance(next);
      collect(site);
    }
    if (!queue_.empty()) pass(next);
  }
  for (ServerIndex site = 0; site < locals_.size(); ++site) {
    locals_[site].advance(now);
    collect(site);
  }
  now_ = now;
}

TimePoint MetaScheduler::next_deadline() const {
  TimePoint next = kNever;
  for (const LocalScheduler& local : locals_) next = std::min(next, local.next_deadline());
  return next;
}

std::vector<SchedulerOutput> MetaScheduler::take_outputs() {
  std::vector<SchedulerOutput> taken;
  taken.swap(outputs_);
  return taken;
}

ServerLoad MetaScheduler::load(ServerIndex server) const {
  const LocalScheduler& local = locals_.at(server);
  const auto waiting = static_cast<std::size_t>(
      std::count_if(queue_.begin(), queue_.end(), [&](const Job& job) { return job.origin == server; }));
  return {waiting, local.queued_jobs(), local.running_jobs(), local.jobs_awaiting_input(),
          local.resource_utilization()};
}

void MetaScheduler::pass(TimePoint now) {
  const SiteView sites(locals_, network_, now);
  for (std::size_t i = 0; i < queue_.size();) {
    std::optional<ServerIndex> site;
    for (const auto& module : chain_) {
      site = module->place(queue_[i], sites);
      if (site) break;
    }
    if (!site) {
      if (discipline_ == QueueDiscipline::blocking) return;
      ++i;
      continue;
    }
    if (*site >= locals_.size()) throw std::logic_error("a placement module chose a site that does not exist");
    const Job job = queue_[i];
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
    dispatch(job, *site, now);
  }
}

void MetaScheduler::dispatch(const Job& job, ServerIndex site, TimePoint now) {
  placed_[job.id] = Placed{job, site, kNever, site == job.origin};
  if (site == job.origin) {
    if (!locals_[site].submit({job.id, job.cpus, job.requested_time, job.run_time}, now)) ++counters_[site].rejected;
  } else {
    // Placed away from home: the input is staged first, and run times scale
    // with the speeds (ERT, 002 §3.1.1).
    ++counters_[job.origin].jobs_sent;
    ++counters_[site].jobs_received;
    const int origin_mhz = locals_[job.origin].server().mhz;
    const int mhz = locals_[site].server().mhz;
    const Duration planned = expected_run_time(job.requested_time, origin_mhz, mhz);
    const Duration actual = expected_run_time(job.run_time, origin_mhz, mhz);
    const TimePoint input_expected = now + network_.transfer_estimate(job.input_bytes, job.origin, site);
    outputs_.emplace_back(StartTransfer{DataTransfer::input_of(job, site, 1)});
    if (!locals_[site].submit({job.id, job.cpus, planned, actual, input_expected}, now)) ++counters_[site].rejected;
  }
  collect(site);
}

void MetaScheduler::collect(ServerIndex site) {
  for (const LocalEvent& event : locals_[site].take_events()) {
    const auto it = placed_.find(event.id);
    assert(it != placed_.end());
    Placed& placed = it->second;
    switch (event.kind) {
      case LocalEvent::Kind::started:
        placed.start = event.at;
        continue;
      case LocalEvent::Kind::rejected: {
        const ServerSpec& server = locals_[site].server();
        outputs_.emplace_back(JobEnded{JobRecord::of(placed.job, site, event.at, event.at, event.at),
                                       JobOutcome::rejected, cannot_fit_reason(placed.job.cpus, server)});
        break;
      }
      case LocalEvent::Kind::finished:
        if (site != placed.job.origin) {
          outputs_.emplace_back(StartTransfer{DataTransfer::output_of(placed.job, site, event.start, event.at)});
          continue;  // it ends once its output is home
        }
        outputs_.emplace_back(
            JobEnded{JobRecord::of(placed.job, site, event.start, event.at, event.at), JobOutcome::completed, {}});
        break;
    }
    placed_.erase(it);
  }
}

void MetaScheduler::check_invariants() const {
  const auto require = [](bool holds, const char* what) { invariant(holds, "MetaScheduler", what); };
  std::size_t hosted = 0;
  for (const LocalScheduler& local : locals_) {
    local.check_invariants();
    hosted += local.queued_jobs() + local.running_jobs();
  }
  require(hosted <= placed_.size(), "the sites run placed jobs only");
  for (const Job& job : queue_) require(placed_.count(job.id) == 0U, "a queued job is not placed yet");
  for (const auto& [id, placed] : placed_) {
    require(placed.site < locals_.size() && placed.job.id == id, "a placed job is on a site");
    require(placed.site != placed.job.origin || placed.input_here, "a job at home waits for no input");
  }
}

}  // namespace gridpeer
