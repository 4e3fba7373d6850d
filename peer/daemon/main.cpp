// gridpeer: one grid-scheduler peer with its local-scheduler emulator.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cxxopts.hpp>
#include <iostream>
#include <stdexcept>

#include "gridpeer/version.hpp"
#include "peer/daemon/grid_join.hpp"
#include "peer/daemon/peer_daemon.hpp"
#include "peer/io/cli/parse.hpp"
#include "peer/io/cli/scheduler_options.hpp"
#include "peer/transport/busy_poll.hpp"
#include "peer/transport/peer_addresses.hpp"
#include "peer/transport/plaintext.hpp"

namespace {

using namespace gridpeer;

int run(int argc, char** argv) {
  cxxopts::Options options(
      "gridpeer",
      "One grid-scheduler peer (Shan et al. 2004's S-I, R-I, Sy-I, Local or Centralized) with its local-scheduler "
      "emulator, on a real network. Peers and their servers come from a topology file.");
  options.add_options()("topology", "topology file (servers, sites, network)", cxxopts::value<std::string>())(
      "sites", "site split of the topology", cxxopts::value<std::string>())(
      "network", "network setting of the topology (for ADT estimates)", cxxopts::value<std::string>())(
      "id", "this peer: a server name of the topology, or its index", cxxopts::value<std::string>())(
      "host", "address every peer listens on when --peer is not given",
      cxxopts::value<std::string>()->default_value("127.0.0.1"))(
      "base-port", "peer i listens on --host at base-port + i", cxxopts::value<int>()->default_value("7400"))(
      "peer", "NAME=HOST:PORT of a peer (repeat for each; overrides --host/--base-port); HOST may be a name",
      cxxopts::value<std::vector<std::string>>())(
      "join",
      "HOST:PORT of a member of a running grid to join through (repeat to name more, tried in turn): this peer "
      "learns the grid from it, is given a server index, and becomes a member (a partner wherever a member's "
      "--partners takes it) without any of them restarting. --topology then need describe only this peer's "
      "server (one [[servers]] entry) and the grid's network; the peer's certificate names it",
      cxxopts::value<std::vector<std::string>>())(
      "listen", "HOST:PORT to accept connections on (default: this peer's own address; 0.0.0.0:PORT in containers)",
      cxxopts::value<std::string>())(
      "partners",
      "whom this peer asks about its jobs, among the members not left or dead, chosen again whenever one joins, "
      "leaves or is declared dead: all (as Shan et al. 2004), site (its own site's), random:K (K drawn from "
      "--partner-seed; a member that joins takes a place only where it is drawn before the K-th, one that goes is "
      "replaced by the next drawn) or best:K (the K with the widest, then shortest, route). It still links to "
      "every member; others may ask it whatever their own sets",
      cxxopts::value<std::string>()->default_value("all"))("partner-seed",
                                                           "seed of --partners random:K (each peer's draw is its own)",
                                                           cxxopts::value<std::uint64_t>()->default_value("1"))(
      "algorithm", "local, central, si, ri or syi", cxxopts::value<std::string>()->default_value("si"))(
      "central",
      "with --algorithm central: the peer that places every job from its ATT queries (name or index; every peer "
      "must name the same one)",
      cxxopts::value<std::string>()->default_value("0"))("data-blind", "decide without the data-transfer (ADT) terms")(
      "time-scale", "virtual seconds per real second (1000: one trace second per real millisecond)",
      cxxopts::value<double>()->default_value("1000"))(
      "data-scale",
      "modelled bytes per payload byte sent (default: the time scale, so a link shaped to the "
      "topology's bandwidth takes the modelled time, scaled)",
      cxxopts::value<double>())("handoff-timeout",
                                "virtual seconds an offer may wait for its accept before the job is taken back",
                                cxxopts::value<double>()->default_value("10"))(
      "peer-lost-after",
      "virtual seconds a disconnected partner may stay away before the jobs committed to it end as lost (back "
      "sooner after a restart, they run again)",
      cxxopts::value<double>()->default_value("30"))(
      "probe-interval",
      "real seconds between two probes of the membership's gossip (SWIM): each period this peer probes one member; "
      "one that answers neither directly nor through other members is suspect, and is declared dead six periods "
      "later unless it answers (at least 0.05)",
      cxxopts::value<double>()->default_value("5"))(
      "epoch-unix-us",
      "real time (Unix µs) of virtual time 0; default: start-up (peers adopt the earliest within --max-epoch-skew). "
      "Refused if, at the time scale, virtual time is already within 100 years of the end of the grid's time "
      "(9,000 years)",
      cxxopts::value<std::int64_t>())(
      "max-epoch-skew",
      "real seconds a partner's epoch may differ from this peer's; a partner further off is refused (a peer joining "
      "a grid that has run longer is given the grid's --epoch-unix-us, which every peer logs at start-up)",
      cxxopts::value<double>()->default_value("86400"))(
      "state-dir",
      "directory for this peer's journal (SQLite, synced at every commit): its incarnation, so that job ids never "
      "repeat across restarts; one directory per peer (without it ids repeat across restarts with probability "
      "1/65536)",
      cxxopts::value<std::string>())(
      "init-state",
      "with --state-dir: this peer is new to the grid. A file in the directory that is not a journal (empty, say) is "
      "moved aside and a new journal made; an existing journal is never replaced. Without it a missing journal is "
      "made new, and anything else that is not a journal is refused")(
      "shutdown-grace", "real seconds to finish held work on SIGINT/SIGTERM or gridctl shutdown",
      cxxopts::value<double>()->default_value("30"))(
      "bag-grouping",
      "off, ba or blind: group each bag submitted here (gridctl submit --bag) over the partners by Ang et al. 2007's "
      "rule, widest path first (ba) or in their own order (blind); every peer of a grid must agree",
      cxxopts::value<std::string>()->default_value("off"))(
      "granularity", "with --bag-grouping: seconds of work per group (RMI = MIPS x granularity)",
      cxxopts::value<double>()->default_value("10"))(
      "tls-dir",
      "mutual TLS (the default, and required unless --plaintext) with the certificates of gridctl ca in DIR: "
      "DIR/ca.pem, DIR/NAME.pem and DIR/NAME-key.pem, NAME this peer's server name; partners and gridctl must "
      "present certificates of the same CA",
      cxxopts::value<std::string>())("plaintext",
                                     "no TLS, for experiments on one machine: refused unless this peer listens on "
                                     "and every partner is at a loopback address (127.0.0.0/8, ::1, localhost)")(
      "handshake-timeout", "real seconds a new connection has to send its hello before it is closed",
      cxxopts::value<double>()->default_value("10"))(
      "peer-silence",
      "real seconds a connected partner may send nothing (it heartbeats every second) before its link is closed "
      "and it counts as away",
      cxxopts::value<double>()->default_value("10"))(
      "client-idle", "real seconds a client connection may stay silent between requests before it is closed",
      cxxopts::value<double>()->default_value("60"))(
      "write-timeout",
      "real seconds a frame may take to be written before its reader counts as not reading and is cut off",
      cxxopts::value<double>()->default_value("30"))(
      "max-connections", "connections held at once, handshakes included; one more is closed at once",
      cxxopts::value<std::size_t>()->default_value("1024"))("max-connections-per-address",
                                                            "connections held at once from one IP address",
                                                            cxxopts::value<std::size_t>()->default_value("128"))(
      "busy-poll",
      "microseconds the event loop looks for the next message without sleeping after each one (0 to 10000; 0: "
      "sleeps at once). Cuts a query's round trip where waking a sleeping process is slow (virtual machines), at "
      "the cost of a CPU kept busy that long after every message: for a peer with a core to spare",
      cxxopts::value<int>()->default_value("0"))("log-level", "trace, debug, info, warn, error",
                                                 cxxopts::value<std::string>()->default_value("info"))(
      "version", "print the version and exit")("h,help", "show this help");
  cli::add_scheduler_options(options);
  const auto args = cli::parse_options(options, argc, argv);
  if (args.count("version") != 0U) {
    std::cout << "gridpeer " << GRIDPEER_VERSION << '\n';
    return 0;
  }
  if (args.count("help") != 0U || argc == 1) {
    std::cout << options.help() << "\nExample (three peers of tiny-3server on loopback, over mutual TLS):\n"
              << "  gridctl ca init grid-ca --grid tiny-3server\n"
              << "  for p in A B C; do gridctl ca issue $p --role peer --ca grid-ca; done\n"
              << "  gridctl ca issue ops --role operator --ca grid-ca\n"
              << "  for p in A B C; do gridpeer --topology tiny-3server --id $p --tls-dir grid-ca & done\n"
              << "  gridctl status --topology tiny-3server --tls-dir grid-ca --cert ops\n";
    return 0;
  }
  if (args.count("topology") == 0U || args.count("id") == 0U) {
    throw std::invalid_argument("--topology and --id are required (see --help)");
  }
  topology::TopologySelection selection;
  if (args.count("sites") != 0U) selection.split = args["sites"].as<std::string>();
  if (args.count("network") != 0U) selection.network = args["network"].as<std::string>();
  daemon::DaemonConfig config;
  config.grid = topology::load_topology(args["topology"].as<std::string>(), selection);
  config.self = config.grid.resolve_server(args["id"].as<std::string>());
  config.addresses = transport::peer_addresses(
      config.grid, args["host"].as<std::string>(), args["base-port"].as<int>(),
      args.count("peer") != 0U ? args["peer"].as<std::vector<std::string>>() : std::vector<std::string>{});
  if (args.count("listen") != 0U) config.listen = transport::parse_address(args["listen"].as<std::string>());
  config.grid_config = cli::scheduler_config_from(args);
  const std::string algorithm = args["algorithm"].as<std::string>();
  const auto parsed = parse_grid_algorithm(algorithm);
  if (!parsed) throw std::invalid_argument("--algorithm '" + algorithm + "' is not local, central, si, ri or syi");
  config.grid_config.algorithm = *parsed;
  if (*parsed == GridAlgorithm::central) {
    config.grid_config.central_peer = config.grid.resolve_server(args["central"].as<std::string>());
  }
  config.partners = topology::parse_partner_rule(args["partners"].as<std::string>());
  config.partner_seed = args["partner-seed"].as<std::uint64_t>();
  if (*parsed == GridAlgorithm::central && config.partners.kind != topology::PartnerRule::Kind::all) {
    throw std::invalid_argument(
        "--partners applies to si, ri, syi and local: under central every peer asks the "
        "central peer, which asks every member");
  }
  config.grid_config.parameters.data_blind = args.count("data-blind") != 0U;
  config.time_scale = args["time-scale"].as<double>();
  if (!(config.time_scale > 0)) throw std::invalid_argument("--time-scale must be positive");
  config.data_scale = args.count("data-scale") != 0U ? args["data-scale"].as<double>() : config.time_scale;
  if (!(config.data_scale > 0)) throw std::invalid_argument("--data-scale must be positive");
  config.grid_config.parameters.handoff_timeout = cli::seconds_option(args, "handoff-timeout");
  config.peer_lost_after = cli::seconds_option(args, "peer-lost-after");
  config.probe_interval =
      std::chrono::round<std::chrono::milliseconds>(cli::seconds_option(args, "probe-interval", 0.05));
  if (args.count("epoch-unix-us") != 0U) {
    config.epoch_unix_us = args["epoch-unix-us"].as<std::int64_t>();
    if (config.epoch_unix_us < protocol::kMinWireEpochUs || config.epoch_unix_us > protocol::kMaxWireEpochUs) {
      throw std::invalid_argument("--epoch-unix-us must be a time between 2000 and 2100 in Unix microseconds");
    }
  }
  const std::string grouping = args["bag-grouping"].as<std::string>();
  if (grouping != "off" && grouping != "ba" && grouping != "blind") {
    throw std::invalid_argument("--bag-grouping '" + grouping + "' is not off, ba or blind");
  }
  config.grid_config.bag_grouping.enabled = grouping != "off";
  config.grid_config.bag_grouping.bandwidth_aware = grouping == "ba";
  config.grid_config.bag_grouping.granularity_s = args["granularity"].as<double>();
  const auto real_ms = [&](const char* option) {
    const double s = args[option].as<double>();
    if (!(s > 0 && s < 86'400)) throw std::invalid_argument(std::string("--") + option + " must be 0 < s < 86400");
    return std::chrono::milliseconds(static_cast<std::int64_t>(s * 1000));
  };
  config.limits.handshake_timeout = real_ms("handshake-timeout");
  config.limits.write_timeout = real_ms("write-timeout");
  const bool plaintext = args.count("plaintext") != 0U;
  if (plaintext == (args.count("tls-dir") != 0U)) {
    throw std::invalid_argument(plaintext ? "give --tls-dir or --plaintext, not both"
                                          : transport::tls_or_plaintext_needed("gridpeer"));
  }
  std::vector<transport::PeerAddress> join;
  if (args.count("join") != 0U) {
    for (const std::string& entry : args["join"].as<std::vector<std::string>>()) {
      join.push_back(transport::parse_address(entry));
    }
    if (config.grid.routed) {
      throw std::invalid_argument(
          "--join needs a topology of sites and WAN links: a routed network's file lists "
          "every link, so its members cannot grow");
    }
  }
  if (plaintext) {
    std::vector<transport::NamedAddress> reach{
        {"--listen", config.listen.host.empty() ? config.addresses.at(config.self) : config.listen}};
    for (const transport::PeerAddress& member : join) reach.push_back({"--join", member});
    for (ServerIndex i = 0; i < config.addresses.size(); ++i) {
      if (i != config.self) reach.push_back({"peer " + config.grid.servers[i].spec.name, config.addresses[i]});
    }
    transport::require_loopback(reach, "gridpeer");
  } else {
    const std::string& self_name = config.grid.servers[config.self].spec.name;
    const auto files = transport::TlsFiles::in(args["tls-dir"].as<std::string>(), self_name);
    config.tls = transport::load_tls(files);
    if (config.tls->own_name != self_name) {
      throw std::invalid_argument(files.certificate + " names " + config.tls->own_name + ", not " + self_name +
                                  ": issue this peer's certificate with gridctl ca issue " + self_name +
                                  " --role peer");
    }
  }
  config.max_connections = args["max-connections"].as<std::size_t>();
  config.max_connections_per_address = args["max-connections-per-address"].as<std::size_t>();
  if (config.max_connections < 1 || config.max_connections_per_address < 1) {
    throw std::invalid_argument("--max-connections and --max-connections-per-address must be at least 1");
  }
  config.peer_silence = real_ms("peer-silence");
  if (args.count("state-dir") != 0U) config.state_dir = args["state-dir"].as<std::string>();
  config.init_state = args.count("init-state") != 0U;
  if (config.init_state && config.state_dir.empty()) throw std::invalid_argument("--init-state needs --state-dir");
  const double skew = args["max-epoch-skew"].as<double>();
  if (!(skew >= 0 && skew <= 100.0 * 365 * 86'400)) {
    throw std::invalid_argument("--max-epoch-skew must be between 0 and 100 years in seconds");
  }
  config.max_epoch_skew = std::chrono::microseconds(static_cast<std::int64_t>(skew * 1e6));
  config.client_idle = real_ms("client-idle");
  const std::chrono::microseconds busy_poll = transport::busy_poll_window(args["busy-poll"].as<int>());
  config.shutdown_grace =
      std::chrono::milliseconds(static_cast<std::int64_t>(args["shutdown-grace"].as<double>() * 1000));

  auto log = spdlog::stderr_color_mt("gridpeer");
  log->set_level(spdlog::level::from_str(args["log-level"].as<std::string>()));
  log->set_pattern("[%H:%M:%S.%e] [" + config.grid.servers[config.self].spec.name + "] [%^%l%$] %v");

  // A real round trip costs time-scale times its length in virtual time: keep
  // the time-outs at least this long in real time, or every reply would be
  // late and every offer taken back.
  const auto at_least = [&](Duration& timeout, double real_seconds, const char* what) {
    const Duration floor = seconds_ceil(real_seconds * config.time_scale);
    if (timeout >= floor) return;
    log->info("{} raised from {:.3f} to {:.3f} virtual s ({} ms real at time scale {})", what, to_seconds(timeout),
              to_seconds(floor), real_seconds * 1000, config.time_scale);
    timeout = floor;
  };
  at_least(config.grid_config.parameters.query_timeout, 0.02, "ATT query time-out");
  at_least(config.grid_config.parameters.handoff_timeout, 1.0, "hand-off time-out");
  // Long enough for a restarted partner to be redialled (back-off up to 5 s).
  at_least(config.peer_lost_after, 6.0, "peer-lost time-out");
  if (config.grid_config.coallocation.enabled()) {
    // A part's lease covers a hold and the commit's way there, and three renewals.
    at_least(config.grid_config.coallocation.lease, 3 * 0.02 + 3.0, "co-allocation lease");
    Duration& lease = config.grid_config.coallocation.lease;
    lease = std::max(lease, 3 * config.grid_config.parameters.query_timeout);
    // Peers share one epoch, so their virtual clocks differ by their hosts'
    // clock error: allow 50 ms of it, scaled, before a split's start.
    Duration& clock_error = config.grid_config.coallocation.skew;
    clock_error = std::max(clock_error, seconds_ceil(0.05 * config.time_scale));
  }

  transport::asio::io_context io;
  if (!join.empty()) {
    // Before anything is started: the grid, this peer's index and the
    // grid's epoch come from the member that answers.
    protocol::Hello hello =
        transport::peer_hello(config.grid, config.self, config.time_scale, 0,
                              config.epoch_unix_us != 0 ? config.epoch_unix_us : transport::ScaledClock::unix_now_us(),
                              algorithm_label(config.grid_config));
    hello.peer = protocol::kNoMemberIndex;
    hello.joining = true;
    hello.membership = true;
    const transport::PeerAddress& me = config.addresses.at(config.self);
    hello.address = me.host + ":" + std::to_string(me.port);
    try {
      transport::asio::io_context join_io;  // run to its end by the join: the peer's own starts fresh
      const daemon::JoinedGrid grid = daemon::join_grid(join_io, config, hello, join, 3, *log);
      daemon::take_joined_grid(config, grid);
      config.joined = true;
      if (config.epoch_unix_us == 0) config.epoch_unix_us = grid.epoch_unix_us;
      log->info("joined the grid through {}: server {} of {}", grid.via, config.self, config.grid.servers.size());
    } catch (const std::exception& error) {
      log->critical("{}", error.what());
      return daemon::kExitRefused;
    }
  }
  daemon::PeerDaemon peer(io, std::move(config), log);
  try {
    peer.start();
  } catch (const daemon::JournalError& error) {
    // A damaged journal needs an operator; a full disk may clear.
    log->critical("{}", error.what());
    return error.damaged() ? daemon::kExitRefused : daemon::kExitStorage;
  } catch (const std::exception& error) {
    log->critical("{}", error.what());
    return daemon::kExitRefused;
  }
  transport::asio::signal_set signals(io, SIGINT, SIGTERM);
  int received = 0;
  std::function<void(const boost::system::error_code&, int)> on_signal = [&](const boost::system::error_code& ec,
                                                                             int number) {
    if (ec) return;
    if (++received > 1) {
      log->warn("second signal: stopping now");
      io.stop();
      return;
    }
    peer.shutdown(number == SIGINT ? "SIGINT" : "SIGTERM");
    signals.async_wait(on_signal);
  };
  signals.async_wait(on_signal);
  try {
    transport::run_polling(io, busy_poll);
  } catch (const std::exception& error) {
    // Nothing may fail silently: what a handler did not catch ends the
    // process, and a supervisor restarts it from its journal.
    log->critical("unexpected error: {}; exiting with status {}", error.what(), daemon::kExitInternal);
    log->flush();
    return daemon::kExitInternal;
  }
  return peer.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "gridpeer: " << error.what() << '\n';
    return gridpeer::daemon::kExitRefused;
  }
}
