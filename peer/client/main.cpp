// gridctl: submit jobs to gridpeer peers, replay traces against them at a
// time scale, and collect their status and results.
#include <fmt/format.h>

#include <unistd.h>
#include <charconv>
#include <chrono>
#include <cxxopts.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include "gridpeer/version.hpp"
#include "peer/client/commands.hpp"
#include "peer/client/grid_args.hpp"
#include "peer/client/manifest.hpp"
#include "peer/core/metrics.hpp"
#include "peer/io/cli/output_file.hpp"
#include "peer/io/cli/parse.hpp"
#include "peer/io/cli/progress.hpp"
#include "peer/io/grid_jobs/grid_workload.hpp"
#include "peer/io/report/jobs_csv.hpp"
#include "peer/io/report/metrics_json.hpp"
#include "peer/io/topology/topology.hpp"
#include "peer/transport/peer_addresses.hpp"
#include "peer/transport/peer_client.hpp"
#include "peer/workload/data_sizes.hpp"

namespace {

using namespace gridpeer;
using client::Grid;
using client::grid_from;
using client::grid_options;

constexpr const char* kUsage =
    "gridctl COMMAND [options]   (gridctl COMMAND --help for its options; gridctl --version)\n"
    "  submit    submit one job to a peer\n"
    "  replay    replay a workload (trace windows, a synthetic model, or an SWF file) against the peers of a\n"
    "            topology at a time scale\n"
    "  status    every peer's queues, RU, connections and counters\n"
    "  results   every peer's job records (JSON lines) and the gridsim metrics summary (JSON)\n"
    "  drain     stop the peers taking new submissions and offers (an operator's certificate)\n"
    "  undrain   let drained peers take submissions and offers again (an operator's certificate)\n"
    "  bench-att ATT query round trip (p50/p99) and queries/s against one peer\n"
    "  compose   write a docker-compose testbed (shaped site and WAN networks) for a topology\n"
    "  shutdown  ask the peers to finish what they hold and exit (an operator's certificate)\n"
    "  leave     ask one peer (--to) to leave the grid: finish or hand back what it holds, tell the members, exit\n"
    "  ca        the grid's certificate authority (ca init DIR) and the certificates it signs for peers and\n"
    "            users (ca issue NAME --role peer|operator|submitter)\n";

int submit_command(int argc, char** argv) {
  auto options = grid_options("submit", "Submit one job to a peer; prints the id it was given.");
  options.add_options()("to", "the peer (server name or index)", cxxopts::value<std::string>()->default_value("0"))(
      "cpus", "CPUs, or 'all' for every CPU of the server", cxxopts::value<std::string>()->default_value("1"))(
      "run", "real run time in seconds (what the emulator runs)", cxxopts::value<double>()->default_value("60"))(
      "requested", "the user's estimate in seconds (default: the run time)", cxxopts::value<double>())(
      "input-bytes", "input data size", cxxopts::value<std::uint64_t>()->default_value("0"))(
      "output-bytes", "output data size", cxxopts::value<std::uint64_t>()->default_value("0"))(
      "count", "submit this many such jobs (one id per line)", cxxopts::value<std::size_t>()->default_value("1"))(
      "bag",
      "submit them as bag N (N > 0) of 1-CPU jobs: a peer run with --bag-grouping groups a bag over its partners "
      "(Ang et al. 2007, docs/reproducing-003.md)",
      cxxopts::value<std::uint32_t>()->default_value("0"));
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  const Grid grid = grid_from(args);
  const ServerIndex to = grid.topology.resolve_server(args["to"].as<std::string>());
  Job job;
  const std::string cpus = args["cpus"].as<std::string>();
  if (cpus == "all") {
    job.cpus = grid.topology.servers[to].spec.total_cpus();
  } else {
    const auto [end, ec] = std::from_chars(cpus.data(), cpus.data() + cpus.size(), job.cpus);
    if (ec != std::errc{} || end != cpus.data() + cpus.size()) {
      throw std::invalid_argument("--cpus '" + cpus + "' is neither a number nor 'all'");
    }
  }
  job.run_time = cli::seconds_option(args, "run");
  job.requested_time = cli::seconds_option(args, args.count("requested") != 0U ? "requested" : "run");
  job.input_bytes = args["input-bytes"].as<std::uint64_t>();
  job.output_bytes = args["output-bytes"].as<std::uint64_t>();
  if (job.cpus < 1) throw std::invalid_argument("--cpus must be 1 or more");
  job.bag = args["bag"].as<std::uint32_t>();
  if (job.bag != 0 && job.cpus != 1) throw std::invalid_argument("--bag: the jobs of a bag need one CPU each");
  const std::size_t count = args["count"].as<std::size_t>();
  if (count < 1 || count > 1'000'000) throw std::invalid_argument("--count: give 1 to 1000000");
  transport::asio::io_context io;
  client::PeerClient peer(io, grid.addresses[to], client::settings_for(grid, to));
  const auto print = [](const protocol::SubmitAck& ack) {
    if (!ack.accepted) throw std::runtime_error("not accepted: " + ack.reason);
    std::cout << ack.job << '\n';
  };
  if (job.bag == 0) {
    for (std::size_t i = 0; i < count; ++i) print(peer.request<protocol::SubmitAck>(protocol::Submit{job}));
    return 0;
  }
  // A bag goes in one frame, so the peer groups all of it in one round.
  if (count > protocol::kMaxBagJobs) throw std::invalid_argument("--count: a bag holds at most 100000 jobs");
  peer.send(protocol::SubmitBag{job.bag, std::vector<Job>(count, job)});
  for (std::size_t i = 0; i < count; ++i) {
    protocol::WireMessage reply = peer.receive();
    const auto* ack = std::get_if<protocol::SubmitAck>(&reply);
    if (ack == nullptr)
      throw std::runtime_error("the peer answered a bag with " + std::string(protocol::message_name(reply)));
    print(*ack);
  }
  return 0;
}

/// Waits until every peer reports every other connected, or `timeout_s` passes
/// (then false, having said who is missing).
bool wait_until_connected(transport::asio::io_context& io, const Grid& grid, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  std::string missing;
  for (bool first = true;; first = false) {
    missing.clear();
    const auto reach = client::poll_status(io, grid);
    for (std::size_t i = 0; i < reach.size(); ++i) {
      const std::string& name = grid.topology.servers[i].spec.name;
      if (!reach[i].status) {
        missing += " " + name + " (unreachable)";
      } else if (reach[i].status->connected.size() + 1 < grid.addresses.size()) {
        missing += " " + name + " (" + std::to_string(reach[i].status->connected.size()) + "/" +
                   std::to_string(grid.addresses.size() - 1) + " connected)";
      }
    }
    if (missing.empty()) return true;
    if (std::chrono::steady_clock::now() >= deadline) {
      std::cerr << "not every peer is connected after " << timeout_s << " s:" << missing << '\n';
      return false;
    }
    if (first) std::cerr << "waiting for the peers to connect:" << missing << '\n';
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

/// Every peer's number of job records (each peer keeps those of the jobs
/// submitted to it); nullopt if a peer cannot be asked.
std::optional<std::uint64_t> records_held(transport::asio::io_context& io, const Grid& grid) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < grid.addresses.size(); ++i) {
    try {
      client::PeerClient peer(io, grid.addresses[i], client::settings_for(grid, i));
      // From past the end: the reply carries the count and no records.
      total +=
          peer.request<protocol::ResultsReply>(protocol::ResultsRequest{std::numeric_limits<std::uint64_t>::max(), 1})
              .total;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return total;
}

/// Waits (real time, bounded) until the peers hold `expected` records.
bool wait_for_records(transport::asio::io_context& io, const Grid& grid, std::size_t expected, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  cli::Progress progress("ended", expected);
  std::uint64_t ended = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (const auto held = records_held(io, grid)) {
      ended = *held;
      progress.update(std::min<std::uint64_t>(ended, expected));
      if (ended >= expected) {
        progress.finish();
        std::cerr << fmt::format("all {} submitted jobs ended\n", expected);
        return true;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  progress.finish();
  std::cerr << fmt::format("--wait: {} of {} submitted jobs ended after {} s; gridctl results tells which\n", ended,
                           expected, timeout_s);
  return false;
}

int replay_command(int argc, char** argv) {
  auto options = grid_options(
      "replay",
      "Replay a workload against the peers: each server's jobs go to its peer at their submit times divided "
      "by the time scale (the peers' --time-scale).");
  options.add_options()("workload", "topology (trace windows), synthetic, feitelson96, poisson, or an SWF file",
                        cxxopts::value<std::string>()->default_value("synthetic"))(
      "split", "how an SWF file is split: queue or round-robin", cxxopts::value<std::string>()->default_value("queue"))(
      "jobs", "jobs per server of a synthetic workload", cxxopts::value<std::size_t>()->default_value("50"))(
      "limit-days", "only the first N days of each trace window", cxxopts::value<double>()->default_value("0"))(
      "max-jobs", "stop after this many jobs in all (0 = all)", cxxopts::value<std::size_t>()->default_value("0"))(
      "data-size", "input data per CPU-second: " + std::string(workload::kDataSizeChoices),
      cxxopts::value<std::string>()->default_value("medium"))("seed", "seed of the workload and data sizes",
                                                              cxxopts::value<std::uint64_t>()->default_value("1"))(
      "time-scale", "virtual seconds per real second (as the peers run)",
      cxxopts::value<double>()->default_value("1000"))("trace-dir", "where trace files are",
                                                       cxxopts::value<std::string>())(
      "manifest",
      "write what was handed to which peer here (JSON lines, each flushed as it is written, so a killed replay "
      "leaves every job it handed), for gridctl results --manifest to account for every job; an existing file is "
      "refused unless --overwrite-manifest",
      cxxopts::value<std::string>())("overwrite-manifest", "replace the --manifest file if it exists")(
      "connect-timeout",
      "real seconds to wait for every peer to be connected to every other before the first job (they agree on "
      "virtual time once connected); then go on regardless",
      cxxopts::value<double>()->default_value("10"))(
      "reconnect",
      "real seconds to keep trying a peer that cannot be reached before its remaining jobs are given up (a peer "
      "restarted from its --state-dir comes back with every job it acknowledged); a submission whose "
      "acknowledgement was cut off is written to the manifest as unacknowledged and never sent again (0 = give a "
      "peer up at its first failure)",
      cxxopts::value<double>()->default_value("0"))(
      "wait",
      "after the last submission, wait up to this many real seconds for every submitted job to end (its record "
      "at its origin), showing progress; exit non-zero if some have not (0 = return once submitted)",
      cxxopts::value<double>()->default_value("0"));
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  const Grid grid = grid_from(args);
  grid_jobs::GridWorkloadRequest request;
  request.source = args["workload"].as<std::string>();
  request.split = args["split"].as<std::string>() == "round-robin" ? grid_jobs::SplitRule::round_robin
                                                                   : grid_jobs::SplitRule::queue;
  request.synthetic_jobs_per_server = args["jobs"].as<std::size_t>();
  request.limit_days = args["limit-days"].as<double>();
  request.seed = args["seed"].as<std::uint64_t>();
  const auto size = workload::parse_data_size(args["data-size"].as<std::string>());
  if (!size) throw std::invalid_argument("--data-size is " + std::string(workload::kDataSizeChoices));
  request.data_size = *size;
  if (args.count("trace-dir") != 0U) request.trace_dir = args["trace-dir"].as<std::string>();
  const double scale = args["time-scale"].as<double>();
  if (!(scale > 0)) throw std::invalid_argument("--time-scale must be positive");
  grid_jobs::GridWorkload load = grid_jobs::load_grid_workload(grid.topology, request);
  if (const auto max = args["max-jobs"].as<std::size_t>(); max > 0 && load.jobs.size() > max) load.jobs.resize(max);
  std::cerr << fmt::format("replaying {} jobs ({}) at time scale {}, seed {}\n", load.jobs.size(), load.description,
                           scale, request.seed);
  std::ofstream manifest;
  if (args.count("manifest") != 0U) {
    const std::string path = args["manifest"].as<std::string>();
    // A second replay with the same manifest overwrote the first one's
    // account silently.
    if (std::filesystem::exists(path) && args.count("overwrite-manifest") == 0U) {
      throw std::invalid_argument("the manifest " + path +
                                  " exists: it accounts for an earlier replay; give another path, or "
                                  "--overwrite-manifest to replace it");
    }
    manifest.open(path, std::ios::trunc);
    if (!manifest) throw std::invalid_argument("cannot write the manifest " + path);
  }
  transport::asio::io_context io;
  if (!wait_until_connected(io, grid, args["connect-timeout"].as<double>())) std::cerr << "replaying regardless\n";
  // One connection per peer; a peer that cannot be reached (or goes away)
  // gets no more jobs from this replay, and the rest goes on.
  std::map<ServerIndex, std::unique_ptr<client::PeerClient>> peers;
  std::map<ServerIndex, std::string> unreachable;
  const auto start = std::chrono::steady_clock::now();
  const TimePoint first = load.jobs.empty() ? TimePoint{} : load.jobs.front().submit;
  std::size_t refused = 0;
  std::size_t not_reached = 0;
  std::size_t unacknowledged = 0;
  const auto reconnect_ms = static_cast<std::int64_t>(args["reconnect"].as<double>() * 1000);
  cli::Progress progress("submitted", load.jobs.size());
  for (std::size_t index = 0; index < load.jobs.size(); ++index) {
    const Job& job = load.jobs[index];
    const double real_s = to_seconds(job.submit - first) / scale;
    std::this_thread::sleep_until(start + std::chrono::microseconds(static_cast<std::int64_t>(real_s * 1e6)));
    client::ManifestEntry entry{index, job.origin, std::nullopt, client::ManifestEntry::Status::submitted, {}};
    entry.source = index < load.sources.size() ? load.sources[index] : JobSource{};
    entry.submit_s = to_seconds(job.submit);
    entry.requested_s = to_seconds(job.requested_time);
    entry.cpus = job.cpus;
    const std::string& name = grid.topology.servers[job.origin].spec.name;
    if (const auto gone = unreachable.find(job.origin); gone != unreachable.end()) {
      entry.status = client::ManifestEntry::Status::unreachable;
      entry.reason = gone->second;
    } else {
      auto& peer = peers[job.origin];
      // Connecting: tried again for --reconnect seconds (a peer restarting
      // from its journal is back in a moment); a job not yet sent is safe to send.
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(reconnect_ms);
      std::string why;
      while (!peer) {
        try {
          peer = std::make_unique<client::PeerClient>(io, grid.addresses.at(job.origin),
                                                      client::settings_for(grid, job.origin));
        } catch (const std::exception& error) {
          why = error.what();
          if (std::chrono::steady_clock::now() >= give_up) break;
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
      }
      if (!peer) {
        entry.status = client::ManifestEntry::Status::unreachable;
        entry.reason = why;
        unreachable[job.origin] = why;
        peers.erase(job.origin);
        std::cerr << "peer " << name << " unreachable; its remaining jobs are not submitted: " << why << '\n';
      } else {
        try {
          const auto ack = peer->request<protocol::SubmitAck>(protocol::Submit{job});
          entry.origin_boot = peer->peer().boot_id;
          if (ack.accepted) {
            entry.job = ack.job;
          } else {
            entry.status = client::ManifestEntry::Status::refused;
            entry.reason = ack.reason;
          }
        } catch (const std::exception& error) {
          // Sent, the answer cut off: it may have been accepted. Never sent
          // again (it could run twice); the next job reconnects.
          peers.erase(job.origin);
          if (reconnect_ms > 0) {
            entry.status = client::ManifestEntry::Status::unacknowledged;
            entry.reason = error.what();
            ++unacknowledged;
            std::cerr << "job " << index << " to " << name << " unacknowledged: " << error.what() << '\n';
          } else {
            entry.status = client::ManifestEntry::Status::unreachable;
            entry.reason = error.what();
            unreachable[job.origin] = error.what();
            std::cerr << "peer " << name << " unreachable; its remaining jobs are not submitted: " << error.what()
                      << '\n';
          }
        }
      }
    }
    if (entry.status == client::ManifestEntry::Status::refused) {
      ++refused;
      std::cerr << "job refused by " << name << ": " << entry.reason << '\n';
    }
    if (entry.status == client::ManifestEntry::Status::unreachable) ++not_reached;
    if (manifest.is_open()) {
      client::write_manifest_line(manifest, entry, grid.topology);
      manifest.flush();  // a killed replay keeps every line written
      if (!manifest) {
        // Going on would submit jobs the manifest cannot account for.
        throw std::runtime_error(fmt::format(
            "failed while writing the manifest {} at job {} of {} (is the disk full?): the replay stops here, "
            "so that no job goes unaccounted; that job and the ones before it were submitted",
            args["manifest"].as<std::string>(), index + 1, load.jobs.size()));
      }
    }
    progress.update(index + 1);
  }
  progress.finish();
  const std::size_t submitted = load.jobs.size() - refused - not_reached - unacknowledged;
  std::cerr << fmt::format("submitted {} jobs in {:.1f} s ({} refused, {} not reached, {} unacknowledged)\n", submitted,
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), refused,
                           not_reached, unacknowledged);
  const bool all_handed = refused == 0 && not_reached == 0 && unacknowledged == 0;
  const double wait_s = args["wait"].as<double>();
  if (wait_s <= 0) return all_handed ? 0 : 1;
  return wait_for_records(io, grid, submitted, wait_s) && all_handed ? 0 : 1;
}

/// The grid's members as one peer sees them: state, incarnation, since when.
void print_members(const protocol::PeerStatus& seen) {
  std::cout << fmt::format("\nmembers as {} sees them (virtual s {:.1f}):\n", seen.name,
                           to_seconds(seen.now.time_since_epoch()));
  std::cout << fmt::format("{:<8} {:>6} {:<8} {:>6} {:>10}  {}\n", "member", "server", "state", "incarn", "since s",
                           "address, server");
  for (const protocol::MemberStatus& m : seen.members) {
    std::cout << fmt::format("{:<8} {:>6} {:<8} {:>6} {:>10.1f}  {} ({} x {} CPUs at {} MHz, site {})\n", m.card.name,
                             m.index, protocol::to_string(m.state), m.incarnation,
                             to_seconds(m.since.time_since_epoch()),
                             m.card.address.empty() ? std::string("-") : m.card.address, m.card.server.nodes,
                             m.card.server.cpus_per_node, m.card.server.mhz, m.card.server.site);
  }
}

int status_command(int argc, char** argv) {
  auto options = grid_options("status", "Print every peer's state; unreachable peers are named.");
  options.add_options()("wait",
                        "first wait up to this many real seconds for every peer to be connected to every "
                        "other; exit non-zero if they are not",
                        cxxopts::value<double>());
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  Grid grid = grid_from(args);
  transport::asio::io_context io;
  int unreachable = 0;
  if (args.count("wait") != 0U && !wait_until_connected(io, grid, args["wait"].as<double>())) ++unreachable;
  const std::optional<protocol::PeerStatus> seen_by = client::add_joined_members(io, grid);
  std::cout << fmt::format(
      "{:<8} {:>10} {:>6} {:>6} {:>5} {:>6} {:>5} {:>9} {:>9} {:>5} {:>5} {:>5} {:>5} {:>9}  connected\n", "peer",
      "virtual s", "grid", "queue", "run", "input", "RU", "submitted", "completed", "sent", "recv", "lost", "start",
      "recovered");
  const auto reach = client::poll_status(io, grid);
  for (std::size_t i = 0; i < reach.size(); ++i) {
    if (grid.addresses[i].port == 0) continue;  // an index between members, or one that left
    if (!reach[i].status) {
      ++unreachable;
      std::cout << fmt::format("{:<8} unreachable: {}\n", grid.topology.servers[i].spec.name, reach[i].error);
      continue;
    }
    const protocol::PeerStatus& s = *reach[i].status;
    std::string connected;
    for (const auto p : s.connected) {
      connected +=
          (p < grid.topology.servers.size() ? grid.topology.servers[p].spec.name : "#" + std::to_string(p)) + " ";
    }
    std::cout << fmt::format(
        "{:<8} {:>10.1f} {:>6} {:>6} {:>5} {:>6} {:>5.2f} {:>9} {:>9} {:>5} {:>5} {:>5} {:>5} {:>9}  {}{}\n", s.name,
        to_seconds(s.now.time_since_epoch()), s.grid_queue, s.local_queue, s.running, s.awaiting_input, s.ru,
        s.submitted, s.completed, s.jobs_sent, s.jobs_received, s.lost, s.incarnation, s.recovered, connected,
        s.draining ? "(draining)" : "");
  }
  if (seen_by) print_members(*seen_by);
  return unreachable == 0 ? 0 : 1;
}

int results_command(int argc, char** argv) {
  auto options = grid_options(
      "results",
      "Collect every job record from the peers (each peer holds its own jobs' records) and compute the same "
      "metrics as gridsim.");
  options.add_options()("records", "write the records as JSON lines here (- for stdout)",
                        cxxopts::value<std::string>())("out", "write the summary JSON here",
                                                       cxxopts::value<std::string>())(
      "expect", "exit non-zero unless this many jobs have ended", cxxopts::value<std::size_t>())(
      "manifest",
      "the manifest of gridctl replay: account for every job it handed (ended, in progress, or held by an "
      "unreachable origin); exit non-zero while any is in progress",
      cxxopts::value<std::string>())(
      "jobs-csv",
      "write every job to this CSV file in Batsim's jobs.csv layout, as gridsim run --jobs-csv does "
      "(docs/output-formats.md); with --manifest, also the jobs without a record, each job's trace file and "
      "SWF job number, and times on the workload's clock",
      cxxopts::value<std::string>())("swf", "write the jobs' schedule to this file as SWF (as gridsim run --swf)",
                                     cxxopts::value<std::string>());
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  Grid grid = grid_from(args);
  transport::asio::io_context io;
  client::add_joined_members(io, grid, true);  // one that left may still hold its own results
  std::vector<protocol::ResultRecord> all;
  std::vector<std::string> unreachable;
  std::set<ServerIndex> unreachable_peers;
  std::map<ServerIndex, std::uint64_t> boots;
  for (std::size_t i = 0; i < grid.addresses.size(); ++i) {
    if (grid.addresses[i].port == 0) continue;  // an index no member answered for
    try {
      client::PeerClient peer(io, grid.addresses[i], client::settings_for(grid, i));
      // A journaled peer's restart keeps its jobs: only an empty one's takes them.
      if (!peer.peer().journaled) boots[static_cast<ServerIndex>(i)] = peer.peer().boot_id;
      for (std::uint64_t from = 0;;) {
        const auto reply = peer.request<protocol::ResultsReply>(protocol::ResultsRequest{from, 10'000});
        all.insert(all.end(), reply.records.begin(), reply.records.end());
        from += reply.records.size();
        if (reply.records.empty() || from >= reply.total) break;
      }
    } catch (const std::exception& error) {
      unreachable.push_back(grid.topology.servers[i].spec.name + ": " + error.what());
      unreachable_peers.insert(static_cast<ServerIndex>(i));
    }
  }
  if (unreachable.size() == grid.addresses.size()) {
    for (const auto& u : unreachable) std::cerr << "unreachable: " << u << '\n';
    std::cerr << "gridctl results: no peer of " << grid.topology.name
              << " could be reached, so there is nothing to report. Are the peers running (gridpeer --topology "
                 "... --name ...), and is --topology the file they were started with?\n";
    return 1;
  }
  std::vector<JobRecord> completed;
  std::size_t lost = 0;
  std::size_t rejected = 0;
  std::size_t inconsistent = 0;
  nlohmann::json not_completed = nlohmann::json::array();  // lost or rejected, with the reason
  std::ofstream records_file;
  const bool to_stdout = args.count("records") != 0U && args["records"].as<std::string>() == "-";
  if (args.count("records") != 0U && !to_stdout) {
    records_file.open(args["records"].as<std::string>());
    if (!records_file) throw std::invalid_argument("cannot write --records " + args["records"].as<std::string>());
  }
  const auto server_name = [&](ServerIndex i) {
    return i < grid.topology.servers.size() ? grid.topology.servers[i].spec.name : "#" + std::to_string(i);
  };
  for (const auto& r : all) {
    const char* outcome = r.outcome == protocol::ResultRecord::Outcome::completed ? "completed"
                          : r.outcome == protocol::ResultRecord::Outcome::lost    ? "lost"
                                                                                  : "rejected";
    const nlohmann::json line = {{"id", r.record.id},
                                 {"origin", server_name(r.record.origin)},
                                 {"executed_on", server_name(r.record.executed_on)},
                                 {"cpus", r.record.cpus},
                                 {"submit_s", to_seconds(r.record.submit.time_since_epoch())},
                                 {"start_s", to_seconds(r.record.start.time_since_epoch())},
                                 {"finish_s", to_seconds(r.record.finish.time_since_epoch())},
                                 {"end_s", to_seconds(r.record.end.time_since_epoch())},
                                 {"input_bytes", r.record.input_bytes},
                                 {"output_bytes", r.record.output_bytes},
                                 {"recoveries", r.record.recoveries},
                                 {"outcome", outcome},
                                 {"reason", r.reason}};
    nlohmann::json with_parts = line;
    if (!r.parts.empty()) {
      // A split job: every server's share, and the least share of its link it ran at.
      nlohmann::json parts = nlohmann::json::array();
      for (const protocol::ResultPart& part : r.parts) {
        parts.push_back(
            {{"server", server_name(part.server)}, {"cpus", part.cpus}, {"lowest_share", part.lowest_share}});
      }
      with_parts["parts"] = std::move(parts);
    }
    if (to_stdout) std::cout << with_parts.dump() << '\n';
    if (records_file.is_open()) records_file << with_parts.dump() << '\n';
    const JobRecord& t = r.record;
    const bool consistent = t.origin < grid.topology.servers.size() && t.executed_on < grid.topology.servers.size() &&
                            t.submit <= t.start && t.start <= t.finish && t.finish <= t.end;
    if (r.outcome == protocol::ResultRecord::Outcome::completed && !consistent) {
      // A peer sent times out of order: report it, keep it out of the metrics.
      ++inconsistent;
      std::cerr << "record out of order, left out of the metrics: " << line.dump() << '\n';
    } else if (r.outcome == protocol::ResultRecord::Outcome::completed) {
      completed.push_back(r.record);
    } else {
      ++(r.outcome == protocol::ResultRecord::Outcome::lost ? lost : rejected);
      not_completed.push_back(line);
    }
  }
  if (records_file.is_open()) {
    records_file.close();
    if (!records_file) {
      throw std::runtime_error("failed while writing --records " + args["records"].as<std::string>() +
                               " (is the disk full?)");
    }
  }
  std::vector<ServerSpec> servers;
  for (const auto& server : grid.topology.servers) servers.push_back(server.spec);
  const MetricsSummary summary = summarize(completed, servers);
  nlohmann::json out = report::summary_json(summary);
  out.update({{"per_server", report::per_server_json(summary)},
              {"topology", grid.topology.name},
              {"lost_jobs", lost},
              {"rejected_jobs", rejected},
              {"inconsistent_records", inconsistent},
              {"not_completed", not_completed},
              {"unreachable_peers", unreachable}});
  std::optional<client::Accounting> accounting;
  std::optional<std::vector<client::ManifestEntry>> manifest;
  if (args.count("manifest") != 0U) {
    manifest = client::read_manifest(args["manifest"].as<std::string>(), grid.topology, &std::cerr);
    accounting = client::account(*manifest, all, unreachable_peers, boots);
    out["accounting"] = client::to_json(*accounting, grid.topology);
  }
  const auto rows = client::job_rows(all, manifest ? &*manifest : nullptr);
  if (args.count("jobs-csv") != 0U) {
    cli::write_output_file(args["jobs-csv"].as<std::string>(), report::batsim_jobs_csv(rows, servers));
  }
  if (args.count("swf") != 0U) {
    cli::write_output_file(
        args["swf"].as<std::string>(),
        report::schedule_swf(rows, servers,
                             {"Note: collected from the peers of " + grid.topology.name + " by gridctl results"}));
  }
  if (args.count("out") != 0U) cli::write_output_file(args["out"].as<std::string>(), out.dump(2) + "\n");
  if (!to_stdout) std::cout << out.dump(2) << '\n';
  for (const auto& u : unreachable) std::cerr << "unreachable: " << u << '\n';
  const std::size_t ended = completed.size() + inconsistent + lost + rejected;
  if (args.count("expect") != 0U && ended != args["expect"].as<std::size_t>()) {
    std::cerr << fmt::format("{} jobs ended ({} completed, {} lost, {} rejected); expected {}\n", ended,
                             completed.size(), lost, rejected, args["expect"].as<std::size_t>());
    return 1;
  }
  if (accounting) {
    if (!accounting->settled()) {
      std::string which;
      constexpr std::size_t kNamed = 20;
      for (std::size_t i = 0; i < accounting->in_progress_jobs.size() && i < kNamed; ++i) {
        const auto& [job, origin] = accounting->in_progress_jobs[i];
        which += fmt::format("{}{} (origin {})", i == 0 ? "" : ", ", job, grid.topology.servers[origin].spec.name);
      }
      if (accounting->in_progress_jobs.size() > kNamed) {
        which +=
            fmt::format(" and {} more (accounting.in_progress_jobs)", accounting->in_progress_jobs.size() - kNamed);
      }
      std::cerr << fmt::format("{} of {} submitted jobs still in progress: {}\n", accounting->in_progress,
                               accounting->submitted, which);
      return 1;
    }
    return 0;  // every job accounted for, unreachable peers included
  }
  return unreachable.empty() ? 0 : 1;
}

int broadcast_command(const std::string& command, const protocol::WireMessage& message, int argc, char** argv) {
  const std::map<std::string, std::string> what{
      {"drain",
       "Stop peers taking new work: submissions are refused, offers too, and ATT queries are answered "
       "'never' (what they hold runs on). Needs an operator's certificate."},
      {"undrain", "Let drained peers take submissions and offers again. Needs an operator's certificate."},
      {"shutdown", "Ask peers to finish what they hold and exit. Needs an operator's certificate."},
      {"leave",
       "Ask a peer to leave the grid for good: it takes no new work, finishes or hands back what it holds, tells "
       "the other members it leaves (they count it as left, not away) and exits. --to is required. Needs an "
       "operator's certificate."}};
  auto options = grid_options(command, what.at(command));
  options.add_options()("to", "only this peer (server name or index; repeat for several); default: every peer",
                        cxxopts::value<std::vector<std::string>>());
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  Grid grid = grid_from(args);
  transport::asio::io_context io;
  client::add_joined_members(io, grid);  // --to may name one that joined
  if (command == "leave" && args.count("to") == 0U) {
    throw std::invalid_argument("gridctl leave needs --to PEER: which peer leaves the grid");
  }
  std::set<std::size_t> chosen;
  if (args.count("to") != 0U) {
    for (const std::string& name : args["to"].as<std::vector<std::string>>()) {
      chosen.insert(grid.topology.resolve_server(name));
    }
  }
  int failed = 0;
  for (std::size_t i = 0; i < grid.addresses.size(); ++i) {
    if ((!chosen.empty() && chosen.count(i) == 0U) || grid.addresses[i].port == 0) continue;
    try {
      client::PeerClient peer(io, grid.addresses[i], client::settings_for(grid, i));
      peer.request<protocol::Ack>(message);
    } catch (const std::exception& error) {
      ++failed;
      std::cerr << grid.topology.servers[i].spec.name << ": " << error.what() << '\n';
    }
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && (std::string(argv[1]) == "--version" || std::string(argv[1]) == "version")) {
    std::cout << "gridctl " << GRIDPEER_VERSION << '\n';
    return 0;
  }
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  try {
    if (command == "submit") return submit_command(argc - 1, argv + 1);
    if (command == "replay") return replay_command(argc - 1, argv + 1);
    if (command == "status") return status_command(argc - 1, argv + 1);
    if (command == "results") return results_command(argc - 1, argv + 1);
    if (command == "bench-att") return client::bench_att_command(argc - 1, argv + 1);
    if (command == "compose") return client::compose_command(argc - 1, argv + 1);
    if (command == "ca") return client::ca_command(argc - 1, argv + 1);
    if (command == "drain") return broadcast_command(command, protocol::Drain{}, argc - 1, argv + 1);
    if (command == "undrain") return broadcast_command(command, protocol::Undrain{}, argc - 1, argv + 1);
    if (command == "shutdown") return broadcast_command(command, protocol::Shutdown{}, argc - 1, argv + 1);
    if (command == "leave") return broadcast_command(command, protocol::Shutdown{true}, argc - 1, argv + 1);
    std::cerr << "gridctl: unknown command '" << command << "'\n" << kUsage;
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "gridctl " << command << ": " << error.what() << '\n';
    return 2;
  }
}
