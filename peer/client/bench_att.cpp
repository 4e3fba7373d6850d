// gridctl bench-att: how fast one gridpeer answers ATT queries on a real
// socket. gridctl speaks as another peer of the topology (one that is not
// running), so the queries take the path a partner's do: framing, decoding,
// the core's AWT forecast, encoding.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "peer/client/behind_data.hpp"
#include "peer/client/commands.hpp"
#include "peer/client/grid_args.hpp"
#include "peer/io/cli/output_file.hpp"
#include "peer/io/cli/parse.hpp"
#include "peer/io/report/quantiles.hpp"
#include "peer/transport/peer_client.hpp"

namespace gridpeer::client {

namespace {

using Clock = std::chrono::steady_clock;

/// Reads until the reply to `query`; other traffic (heartbeats) is skipped.
void await_reply(PeerClient& peer, protocol::QueryId query) {
  for (;;) {
    const protocol::WireMessage message = peer.receive();
    if (const auto* reply = std::get_if<protocol::AttReply>(&message); reply != nullptr && reply->query == query) {
      return;
    }
  }
}

/// Reads one AttReply, whichever query it answers.
void await_any_reply(PeerClient& peer) {
  for (;;) {
    if (std::holds_alternative<protocol::AttReply>(peer.receive())) return;
  }
}

/// The peer measured and the one gridctl speaks as, with the measured peer's
/// own Hello, which a peer's Hello must match.
struct BenchEnds {
  const Grid& grid;
  ServerIndex to;
  ServerIndex as;
  protocol::Hello target;

  [[nodiscard]] const std::string& to_name() const { return grid.topology.servers[to].spec.name; }
  [[nodiscard]] const ServerSpec& as_spec() const { return grid.topology.servers.at(as).spec; }

  /// A connection to the measured peer speaking as `who` (over TLS with
  /// that peer's certificate from --tls-dir).
  [[nodiscard]] PeerClient connect_as(transport::asio::io_context& io, ServerIndex who) const {
    PeerClient::Settings as_peer = settings_for(grid, to);
    if (grid.tls) {
      as_peer.tls = transport::load_tls(transport::TlsFiles::in(grid.tls_dir, grid.topology.servers[who].spec.name));
    }
    return PeerClient(
        io, grid.addresses.at(to),
        transport::peer_hello(grid.topology, who, target.time_scale, 1, target.epoch_unix_us, target.algorithm),
        as_peer);
  }
};

/// Makes the ATT queries, numbered from 1, for one job's requirements.
class QueryMaker {
 public:
  explicit QueryMaker(protocol::JobRequirements requirements) : requirements_(requirements) {}
  protocol::AttQuery operator()() {
    requirements_.job = next_;
    return protocol::AttQuery{next_++, requirements_};
  }
  [[nodiscard]] const protocol::JobRequirements& requirements() const { return requirements_; }

 private:
  protocol::JobRequirements requirements_;
  protocol::QueryId next_ = 1;
};

/// The submit round trips of a backlog sent one at a time (under
/// --state-dir each is synced to the journal before its ack).
struct BacklogFigures {
  report::Quantiles round_trip_us;
  double per_second = 0;
};

BacklogFigures submit_backlog(transport::asio::io_context& io, const BenchEnds& ends, std::size_t backlog) {
  std::vector<double> submit_us;
  double elapsed = 0;
  if (backlog > 0) {
    // Widths cycle through 1..CPUs/2 and run times through one week to one
    // month, so the forecast has starts and ends at many points to sweep.
    PeerClient submitter(io, ends.grid.addresses.at(ends.to), settings_for(ends.grid, ends.to));
    const int half = std::max(1, ends.grid.topology.servers[ends.to].spec.total_cpus() / 2);
    for (std::size_t i = 0; i < backlog; ++i) {
      Job job;
      job.cpus = 1 + static_cast<int>((i * 7) % static_cast<std::size_t>(half));
      job.run_time =
          seconds(std::int64_t{7} * 86400 + static_cast<std::int64_t>((i * 7919) % (std::size_t{23} * 86400)));
      job.requested_time = job.run_time;
      const auto sent = Clock::now();
      submitter.request<protocol::SubmitAck>(protocol::Submit{job});
      submit_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - sent).count());
      elapsed += submit_us.back() / 1e6;
    }
  }
  return {report::quantiles(submit_us), elapsed > 0 ? static_cast<double>(backlog) / elapsed : 0};
}

/// --behind-transfers: round trips one at a time behind staged data.
int measure_behind_data(const cxxopts::ParseResult& args, transport::asio::io_context& io, const BenchEnds& ends,
                        PeerClient peer, QueryMaker& query, std::size_t queries) {
  BehindDataSettings behind;
  behind.transfers = args["behind-transfers"].as<std::size_t>();
  behind.chunk_bytes = args["chunk-bytes"].as<std::size_t>();
  behind.queries = queries;
  behind.gap = std::chrono::milliseconds(std::max(0, args["gap-ms"].as<int>()));
  behind.warm_up = std::chrono::milliseconds(std::max(0, args["warm-up-ms"].as<int>()));
  if (behind.chunk_bytes == 0 || behind.chunk_bytes > (1U << 20))
    throw std::invalid_argument("--chunk-bytes must be between 1 and 1048576 (a peer's largest chunk)");
  transport::ConnectionLimits limits;
  limits.max_hello_bytes = limits.codec.max_frame_bytes;  // the peer's first frames are its own traffic
  const auto query_link = peer.into_connection(limits);
  std::string data_as = ends.as_spec().name;
  std::shared_ptr<transport::Connection> data_link = query_link;
  if (args.count("transfers-as") != 0U) {
    const ServerIndex other = ends.grid.topology.resolve_server(args["transfers-as"].as<std::string>());
    if (other == ends.to || other == ends.as)
      throw std::invalid_argument("--transfers-as must name a third server, neither --to nor --as");
    data_as = ends.grid.topology.servers[other].spec.name;
    data_link = ends.connect_as(io, other).into_connection(limits);
  }
  const BehindDataResult result = round_trips_behind_data(io, query_link, data_link, std::ref(query), behind);
  if (!result.closed.empty()) {
    throw std::runtime_error("the connection to " + ends.to_name() +
                             " closed during the measurement: " + result.closed + " (its log says why)");
  }
  const auto trips = report::quantiles(result.round_trips_us);
  const double slowest =
      result.round_trips_us.empty() ? 0 : *std::max_element(result.round_trips_us.begin(), result.round_trips_us.end());
  const double mbps = result.seconds > 0 ? static_cast<double>(result.staged_bytes) * 8 / result.seconds / 1e6 : 0;
  const std::string channel = data_link == query_link ? "the queries' own connection" : "a separate connection";
  std::cout << fmt::format(
      "ATT queries to {} (as {}) behind {} endless transfer(s) of {}-byte chunks from {} on {}:\n"
      "  round trip: p50 {:.1f} us, p99 {:.1f} us, max {:.1f} us ({} of {} queries{})\n"
      "  data staged meanwhile: {:.2f} Mb/s ({} bytes in {:.2f} s)\n",
      ends.to_name(), ends.as_spec().name, behind.transfers, behind.chunk_bytes, data_as, channel, trips.median,
      trips.p99, slowest, result.round_trips_us.size(), queries, result.timed_out ? ", then one unanswered" : "", mbps,
      result.staged_bytes, result.seconds);
  if (args.count("out") != 0U) {
    const nlohmann::json out = {{"to", ends.to_name()},
                                {"as", ends.as_spec().name},
                                {"transfers", behind.transfers},
                                {"transfers_as", data_as},
                                {"same_connection", data_link == query_link},
                                {"chunk_bytes", behind.chunk_bytes},
                                {"queries", queries},
                                {"answered", result.round_trips_us.size()},
                                {"timed_out", result.timed_out},
                                {"round_trip_p50_us", trips.median},
                                {"round_trip_p99_us", trips.p99},
                                {"round_trip_max_us", slowest},
                                {"query_bytes", result.query_bytes},
                                {"reply_bytes", result.reply_bytes},
                                {"staged_mbps", mbps}};
    cli::write_output_file(args["out"].as<std::string>(), out.dump(2) + "\n");
  }
  return result.timed_out ? 1 : 0;
}

/// The two phases: round trips one at a time (latency), then `window` in
/// flight (throughput).
int measure_two_phases(const cxxopts::ParseResult& args, const BenchEnds& ends, PeerClient& peer, QueryMaker& query,
                       std::size_t queries, const BacklogFigures& backlog) {
  const std::size_t window = std::max<std::size_t>(1, args["window"].as<std::size_t>());
  for (int i = 0; i < 200; ++i) {  // warm-up: connection, allocator, caches
    const auto q = query();
    peer.send(q);
    await_reply(peer, q.query);
  }

  std::vector<double> round_trips_us;
  round_trips_us.reserve(queries);
  for (std::size_t i = 0; i < queries; ++i) {
    const auto q = query();
    const auto start = Clock::now();
    peer.send(q);
    await_reply(peer, q.query);
    round_trips_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  const auto latency = report::quantiles(round_trips_us);

  const auto start = Clock::now();
  std::size_t sent = 0;
  std::size_t answered = 0;
  while (answered < queries) {
    while (sent < queries && sent - answered < window) {
      peer.send(query());
      ++sent;
    }
    await_any_reply(peer);
    ++answered;
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  const double per_second = static_cast<double>(queries) / elapsed;
  const std::size_t backlog_jobs = args["backlog"].as<std::size_t>();

  std::cout << fmt::format(
      "ATT queries to {} (as {}, {} CPUs, {} s requested, {} at time scale {}, backlog {} jobs):\n"
      "  round trip, one at a time: p50 {:.1f} us, p99 {:.1f} us ({} queries)\n"
      "  throughput, {} in flight: {:.0f} queries/s ({} queries in {:.2f} s)\n"
      "  submissions (the backlog, one at a time): p50 {:.1f} us, p99 {:.1f} us, {:.0f} jobs/s\n",
      ends.to_name(), ends.as_spec().name, query.requirements().cpus, to_seconds(query.requirements().requested),
      ends.target.algorithm, ends.target.time_scale, backlog_jobs, latency.median, latency.p99, queries, window,
      per_second, queries, elapsed, backlog.round_trip_us.median, backlog.round_trip_us.p99, backlog.per_second);
  if (args.count("out") != 0U) {
    const nlohmann::json out = {{"to", ends.to_name()},
                                {"as", ends.as_spec().name},
                                {"queries", queries},
                                {"window", window},
                                {"backlog", backlog_jobs},
                                {"round_trip_p50_us", latency.median},
                                {"round_trip_p99_us", latency.p99},
                                {"queries_per_second", per_second},
                                {"submit_p50_us", backlog.round_trip_us.median},
                                {"submit_p99_us", backlog.round_trip_us.p99},
                                {"submits_per_second", backlog.per_second}};
    cli::write_output_file(args["out"].as<std::string>(), out.dump(2) + "\n");
  }
  return 0;
}

}  // namespace

int bench_att_command(int argc, char** argv) {
  auto options = grid_options(
      "bench-att",
      "Measure ATT query round trips against one running peer: gridctl connects as another peer of the topology\n"
      "(--as; it must not be running) and sends AttQuery messages: one at a time for the latency (p50/p99),\n"
      "then --window at a time for the throughput (queries/s).");
  options.add_options()("to", "the peer measured (name or index)", cxxopts::value<std::string>()->default_value("0"))(
      "as", "the peer gridctl speaks as (name or index; default: the first other server)",
      cxxopts::value<std::string>())("queries", "queries per phase",
                                     cxxopts::value<std::size_t>()->default_value("20000"))(
      "window", "queries in flight in the throughput phase", cxxopts::value<std::size_t>()->default_value("64"))(
      "cpus", "CPUs the queried job asks for", cxxopts::value<int>()->default_value("4"))(
      "requested", "requested time of the queried job, seconds", cxxopts::value<double>()->default_value("3600"))(
      "backlog",
      "first submit this many long jobs to the measured peer, so queries forecast over a real queue (they stay: "
      "a week to a month of run time each; shut the peer down afterwards)",
      cxxopts::value<std::size_t>()->default_value("0"))(
      "behind-transfers",
      "instead of the two phases: stage N endless transfers to the peer, as a peer stages a job's data (a "
      "header, then chunks, each once the last is written), and time --queries round trips behind them, one "
      "at a time --gap-ms apart (0: the same measurement without data, the baseline)",
      cxxopts::value<std::size_t>())("transfers-as",
                                     "with --behind-transfers: send the data as this other peer, on a connection "
                                     "of its own (a separate flow over the same link); default: on the queries' "
                                     "own connection, as between real peers",
                                     cxxopts::value<std::string>())(
      "chunk-bytes", "with --behind-transfers: payload bytes per chunk (a peer's default)",
      cxxopts::value<std::size_t>()->default_value("65536"))(
      "gap-ms", "with --behind-transfers: milliseconds between a reply and the next query",
      cxxopts::value<int>()->default_value("50"))(
      "warm-up-ms", "with --behind-transfers: milliseconds of data alone before the first query",
      cxxopts::value<int>()->default_value("2000"))("out", "write the figures as JSON here",
                                                    cxxopts::value<std::string>());
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  const Grid grid = grid_from(args);
  if (grid.topology.servers.size() < 2)
    throw std::invalid_argument("bench-att needs a topology of two servers or more");
  const ServerIndex to = grid.topology.resolve_server(args["to"].as<std::string>());
  const ServerIndex as = args.count("as") != 0U ? grid.topology.resolve_server(args["as"].as<std::string>())
                                                : (to == 0 ? ServerIndex{1} : ServerIndex{0});
  if (as == to) throw std::invalid_argument("--as must name another server than --to");
  const std::size_t queries = args["queries"].as<std::size_t>();
  if (queries == 0) throw std::invalid_argument("--queries must be at least 1");

  transport::asio::io_context io;
  BenchEnds ends{grid, to, as, {}};
  {
    PeerClient probe(io, grid.addresses.at(to), settings_for(grid, to));
    ends.target = probe.peer();
    const auto status = probe.request<protocol::PeerStatus>(protocol::StatusRequest{});
    for (const auto p : status.connected) {
      if (p == as) {
        throw std::invalid_argument(grid.topology.servers[as].spec.name +
                                    " is running and connected; --as must name a server whose peer is not running");
      }
    }
  }
  const BacklogFigures backlog = submit_backlog(io, ends, args["backlog"].as<std::size_t>());
  PeerClient peer = ends.connect_as(io, as);

  protocol::JobRequirements requirements;
  requirements.origin = as;
  requirements.cpus = args["cpus"].as<int>();
  requirements.requested = cli::seconds_option(args, "requested");
  requirements.origin_mhz = ends.as_spec().mhz;
  QueryMaker query(requirements);
  if (args.count("behind-transfers") != 0U) return measure_behind_data(args, io, ends, std::move(peer), query, queries);
  return measure_two_phases(args, ends, peer, query, queries, backlog);
}

}  // namespace gridpeer::client
