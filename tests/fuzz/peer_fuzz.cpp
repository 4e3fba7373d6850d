// libFuzzer: one GridPeer (server 0 of a three-server grid) fed an arbitrary
// sequence of inputs: its own submissions, decoded frames from its partners,
// time passing, transfers landing, hand-offs taken back, and -- for a
// journaled peer -- crashes after which a new peer is restored from what the
// old one asked to keep. The core must not crash, must never run
// more CPUs than its server has, and must end each of its own jobs at most
// once, across restores too -- and across a journal that refuses a batch's
// commit (the daemon then exits before carrying any of it out).
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "peer/core/p2p/grid_peer.hpp"
#include "protocol/codec.hpp"
#include "tests/support/fixed_network.hpp"

using namespace gridpeer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  GridConfig config;
  const GridAlgorithm algorithms[] = {GridAlgorithm::local, GridAlgorithm::central, GridAlgorithm::sender,
                                      GridAlgorithm::receiver, GridAlgorithm::symmetric};
  config.algorithm = algorithms[in.ConsumeIntegralInRange<int>(0, 4)];
  if (config.algorithm == GridAlgorithm::central) config.central_peer = in.ConsumeIntegralInRange<ServerIndex>(0, 2);
  config.local_policy.policy = static_cast<LocalPolicy>(in.ConsumeIntegralInRange<int>(0, 2));
  config.local_policy.reservation_depth = in.ConsumeIntegralInRange<int>(0, 3);
  // 003's bags grouped at their origin (S-I, R-I, Sy-I only).
  const bool migrates = config.algorithm != GridAlgorithm::local && config.algorithm != GridAlgorithm::central;
  config.bag_grouping.enabled = migrates && in.ConsumeBool();
  config.bag_grouping.granularity_s = in.ConsumeIntegralInRange<int>(1, 600);
  config.bag_grouping.bandwidth_aware = in.ConsumeBool();
  config.bag_grouping.total_mips = in.ConsumeBool();
  config.journaled = !config.bag_grouping.enabled && in.ConsumeBool();
  const ServerSpec server{"S0", 8, 2, 500, 0};
  testing::FixedNetwork network;
  network.bandwidth = 1e9;
  auto peer = std::make_unique<GridPeer>(0, server, config, std::vector<ServerIndex>{1, 2}, network);
  std::map<DurableKey, DurableJob> journal;  // what the peer asked to keep
  std::uint32_t incarnation = 1;
  TimePoint now{};
  JobId next_job = 1;
  struct Sent {
    Job job;
    ServerIndex to;
    std::uint32_t attempt;
  };
  std::vector<Sent> dispatched;       // own jobs offered away: may be refused or lost, or their output may land
  std::vector<DataTransfer> inbound;  // transfers to us the fuzzer may complete
  std::set<JobId> ended;
  for (int step = 0; step < 2000 && in.remaining_bytes() > 0; ++step) {
    switch (in.ConsumeIntegralInRange<int>(0, 7)) {
      case 0: {  // a submission
        Job job;
        job.id = next_job++;
        job.origin = 0;
        job.submit = now;
        job.cpus = in.ConsumeIntegralInRange<int>(1, 20);
        job.run_time = seconds(in.ConsumeIntegralInRange<std::int64_t>(0, 100'000));
        job.requested_time = job.run_time + seconds(in.ConsumeIntegralInRange<std::int64_t>(0, 1000));
        job.input_bytes = in.ConsumeIntegral<std::uint32_t>();
        job.output_bytes = in.ConsumeIntegral<std::uint32_t>();
        job.bag = in.ConsumeIntegralInRange<std::uint32_t>(0, 2);
        peer->submit(job, now);
        break;
      }
      case 1: {  // a frame from a partner
        const auto from = in.ConsumeIntegralInRange<ServerIndex>(1, 2);
        const std::vector<std::uint8_t> frame = in.ConsumeBytes<std::uint8_t>(in.ConsumeIntegralInRange(0, 512));
        const auto decoded = protocol::decode(frame);
        if (const auto* wire = std::get_if<protocol::WireMessage>(&decoded)) {
          std::visit(
              [&](const auto& m) {
                using T = std::decay_t<decltype(m)>;
                if constexpr (std::is_constructible_v<protocol::Message, T>) peer->on_message(from, m, now);
              },
              *wire);
        }
        break;
      }
      case 2:  // time passes
        now += Duration(in.ConsumeIntegralInRange<std::int64_t>(0, 10'000'000'000));
        peer->advance(now);
        break;
      case 3:  // an inbound transfer lands
        if (!inbound.empty()) {
          const std::size_t i = in.ConsumeIntegralInRange<std::size_t>(0, inbound.size() - 1);
          DataTransfer transfer = inbound[i];
          inbound.erase(inbound.begin() + static_cast<std::ptrdiff_t>(i));
          peer->on_transfer_done(transfer, now);
        }
        break;
      case 4:  // a hand-off fails: refused, or its executor goes away (restarted empty or not)
        if (!dispatched.empty()) {
          const std::size_t i = in.ConsumeIntegralInRange<std::size_t>(0, dispatched.size() - 1);
          const Sent sent = dispatched[i];
          dispatched.erase(dispatched.begin() + static_cast<std::ptrdiff_t>(i));
          if (in.ConsumeBool()) {
            peer->on_message(sent.to, protocol::JobReject{sent.job.id, sent.attempt, protocol::RejectReason::draining},
                             now);
          } else if (in.ConsumeBool()) {
            peer->on_peer(sent.to, PeerState::unreachable, "fuzz", now);
            peer->on_peer(sent.to, PeerState::reachable, "fuzz", now);
          } else {
            const PeerState states[] = {PeerState::restarted, PeerState::gone, PeerState::recovered};
            peer->on_peer(sent.to, states[in.ConsumeIntegralInRange(0, 2)], "fuzz", now);
            peer->on_peer(sent.to, PeerState::reachable, "fuzz", now);
          }
        }
        break;
      case 5: {  // a message built field by field (reaches the handlers faster than raw frames)
        const auto from = in.ConsumeIntegralInRange<ServerIndex>(1, 2);
        const auto job_id =
            in.ConsumeBool() ? in.ConsumeIntegralInRange<JobId>(0, next_job) : in.ConsumeIntegral<JobId>();
        const auto attempt = in.ConsumeIntegralInRange<std::uint32_t>(0, 3);
        switch (in.ConsumeIntegralInRange<int>(0, 7)) {
          case 5:
            peer->on_message(from, protocol::JobAccept{job_id, attempt, in.ConsumeBool()}, now);
            break;
          case 6:
            peer->on_message(from, protocol::JobCommit{job_id, attempt, in.ConsumeBool()}, now);
            break;
          case 7:
            peer->on_message(from,
                             protocol::JobReject{job_id, attempt,
                                                 static_cast<protocol::RejectReason>(in.ConsumeIntegralInRange(0, 5))},
                             now);
            break;
          case 0: {
            Job job;
            job.id = job_id;
            job.origin = in.ConsumeBool() ? from : in.ConsumeIntegralInRange<ServerIndex>(0, 3);
            job.cpus = in.ConsumeIntegralInRange<int>(1, 20);
            job.run_time = seconds(in.ConsumeIntegralInRange<std::int64_t>(0, 100'000));
            job.requested_time = job.run_time;
            job.input_bytes = in.ConsumeIntegral<std::uint16_t>();
            job.output_bytes = in.ConsumeIntegral<std::uint16_t>();
            peer->on_message(from, protocol::JobOffer{job, in.ConsumeIntegralInRange<int>(1, 2000), attempt}, now);
            break;
          }
          case 1:
            peer->on_message(from,
                             protocol::AttReply{in.ConsumeIntegralInRange<protocol::QueryId>(0, 64), job_id,
                                                Duration(in.ConsumeIntegral<std::int64_t>() & 0x7fffffffffffLL),
                                                Duration(in.ConsumeIntegral<std::uint32_t>()),
                                                in.ConsumeFloatingPointInRange(0.0, 1.0)},
                             now);
            break;
          case 2:
            peer->on_message(from, protocol::Placement{job_id, in.ConsumeIntegralInRange<ServerIndex>(0, 3)}, now);
            break;
          case 3:
            peer->on_message(from, protocol::Volunteer{in.ConsumeFloatingPointInRange(0.0, 1.0)}, now);
            break;
          default:
            peer->on_message(from,
                             protocol::PlaceRequest{{job_id, in.ConsumeBool() ? from : 0,
                                                     in.ConsumeIntegralInRange<int>(1, 20), seconds(60), 500, 0, 0}},
                             now);
            break;
        }
        break;
      }
      case 7:  // a journaled peer crashes and a new one is restored from its journal
        if (config.journaled) {
          const std::vector<std::pair<DurableKey, DurableJob>> kept(journal.begin(), journal.end());
          peer = std::make_unique<GridPeer>(0, server, config, std::vector<ServerIndex>{1, 2}, network, now);
          peer->restore(kept, ++incarnation, now);
        }
        break;
      default:  // a dispatched job ran elsewhere: its output comes home
        if (!dispatched.empty()) {
          const std::size_t i = in.ConsumeIntegralInRange<std::size_t>(0, dispatched.size() - 1);
          const Job job = dispatched[i].job;
          const ServerIndex executor = dispatched[i].to;
          dispatched.erase(dispatched.begin() + static_cast<std::ptrdiff_t>(i));
          inbound.push_back(DataTransfer::output_of(job, executor, now, now));
        }
        break;
    }
    std::vector<SchedulerOutput> batch = peer->take_outputs();
    const bool keeps = std::any_of(batch.begin(), batch.end(),
                                   [](const SchedulerOutput& o) { return std::holds_alternative<Persist>(o); });
    if (keeps && in.remaining_bytes() > 0 && in.ConsumeIntegralInRange<int>(0, 15) == 0) {
      // The journal refused this batch (a full disk): the daemon exits before
      // carrying out any of it -- nothing sent, kept or recorded -- and is
      // restarted from what was committed before.
      const std::vector<std::pair<DurableKey, DurableJob>> kept(journal.begin(), journal.end());
      peer = std::make_unique<GridPeer>(0, server, config, std::vector<ServerIndex>{1, 2}, network, now);
      peer->restore(kept, ++incarnation, now);
      batch.clear();
    }
    for (SchedulerOutput& output : batch) {
      if (auto* send = std::get_if<SendMessage>(&output)) {
        if (const auto* offer = std::get_if<protocol::JobOffer>(&send->message)) {
          dispatched.push_back({offer->job, send->to, offer->attempt});
        } else if (const auto* accept = std::get_if<protocol::JobAccept>(&send->message); accept && !accept->hosting) {
          // We took an offer: its origin may commit, and its input may come.
          DataTransfer input;
          input.job = accept->job;
          input.from = send->to;
          input.to = 0;
          input.attempt = accept->attempt;
          inbound.push_back(input);
        }
      } else if (auto* start = std::get_if<StartTransfer>(&output)) {
        // Inputs of jobs others sent us land here; our own outputs and inputs leave.
        if (start->transfer.to == 0) inbound.push_back(start->transfer);
      } else if (auto* persist = std::get_if<Persist>(&output)) {
        if (!config.journaled) std::abort();  // only a journaled peer asks to keep anything
        if (persist->entry) {
          journal.insert_or_assign(persist->key, *persist->entry);
        } else {
          journal.erase(persist->key);
        }
      } else if (auto* ended_job = std::get_if<JobEnded>(&output)) {
        if (!ended.insert(ended_job->record.id).second) std::abort();  // a job ended twice
        if (ended_job->outcome != JobOutcome::completed && ended_job->reason.empty()) std::abort();
      }
    }
    if (peer->local().busy_nodes() > server.nodes || peer->local().busy_nodes() < 0) std::abort();
    peer->check_invariants();  // throws, naming the invariant, when one is broken
  }
  return 0;
}
