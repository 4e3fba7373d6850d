#include "peer/client/grid_args.hpp"

#include <cstdlib>
#include <stdexcept>

#include "peer/transport/busy_poll.hpp"
#include "peer/transport/peer_client.hpp"
#include "peer/transport/plaintext.hpp"

namespace gridpeer::client {

cxxopts::Options grid_options(const std::string& command, const std::string& what) {
  cxxopts::Options options("gridctl " + command, what);
  options.add_options()("topology", "topology file the peers run", cxxopts::value<std::string>())(
      "sites", "site split of the topology", cxxopts::value<std::string>())(
      "host", "address the peers listen on (when --peer is not given)",
      cxxopts::value<std::string>()->default_value("127.0.0.1"))("base-port", "peer i listens on base-port + i",
                                                                 cxxopts::value<int>()->default_value("7400"))(
      "peer", "NAME=HOST:PORT of a peer (repeat; overrides --host/--base-port)",
      cxxopts::value<std::vector<std::string>>())(
      "tls-dir",
      "mutual TLS (the default, and required unless --plaintext) with the certificates of gridctl ca in DIR: "
      "DIR/ca.pem and --cert's NAME.pem and NAME-key.pem (default: $GRIDCTL_TLS_DIR)",
      cxxopts::value<std::string>())("cert",
                                     "the name of your certificate in --tls-dir; its role decides what the peers let "
                                     "you do: operator or submitter (default: $GRIDCTL_CERT)",
                                     cxxopts::value<std::string>())(
      "plaintext",
      "no TLS, to peers run with gridpeer --plaintext: refused unless every peer is at a loopback address")(
      "reply-timeout",
      "seconds a peer may leave a request unanswered before gridctl gives up on it (a stopped peer keeps its "
      "connection open)",
      cxxopts::value<int>()->default_value("30"))(
      "busy-poll",
      "microseconds a read looks for a peer's reply without sleeping before it blocks (0 to 10000; 0: blocks at "
      "once). Cuts a round trip where waking a sleeping process is slow (virtual machines), at the cost of a busy "
      "CPU while it waits; pair it with gridpeer --busy-poll",
      cxxopts::value<int>()->default_value("0"))("h,help", "show this help");
  return options;
}

Grid grid_from(const cxxopts::ParseResult& args) {
  if (args.count("topology") == 0U) throw std::invalid_argument("--topology is required (see --help)");
  topology::TopologySelection selection;
  if (args.count("sites") != 0U) selection.split = args["sites"].as<std::string>();
  Grid grid{topology::load_topology(args["topology"].as<std::string>(), selection), {}, nullptr, {}};
  const int reply_timeout = args["reply-timeout"].as<int>();
  if (reply_timeout < 1 || reply_timeout > 86'400) throw std::invalid_argument("--reply-timeout: give 1 to 86400 s");
  grid.reply_timeout = std::chrono::seconds(reply_timeout);
  grid.busy_poll = transport::busy_poll_window(args["busy-poll"].as<int>());
  grid.addresses = transport::peer_addresses(
      grid.topology, args["host"].as<std::string>(), args["base-port"].as<int>(),
      args.count("peer") != 0U ? args["peer"].as<std::vector<std::string>>() : std::vector<std::string>{});
  // An option given beats the environment; --plaintext beats both.
  const auto from_env = [&](const char* option, const char* variable) -> std::string {
    if (args.count(option) != 0U) return args[option].as<std::string>();
    const char* value = std::getenv(variable);  // NOLINT(concurrency-mt-unsafe): read once, at start-up
    return value != nullptr ? value : "";
  };
  if (args.count("plaintext") != 0U) {
    if (args.count("tls-dir") != 0U) throw std::invalid_argument("give --tls-dir or --plaintext, not both");
    std::vector<transport::NamedAddress> reach;
    for (std::size_t i = 0; i < grid.addresses.size(); ++i) {
      reach.push_back({"peer " + grid.topology.servers[i].spec.name, grid.addresses[i]});
    }
    transport::require_loopback(reach, "gridctl");
    return grid;
  }
  const std::string dir = from_env("tls-dir", "GRIDCTL_TLS_DIR");
  if (dir.empty()) throw std::invalid_argument(transport::tls_or_plaintext_needed("gridctl") + ", with --cert NAME");
  const std::string cert = from_env("cert", "GRIDCTL_CERT");
  if (cert.empty()) {
    throw std::invalid_argument("--tls-dir needs --cert NAME (or $GRIDCTL_CERT): whose certificate to present");
  }
  grid.tls = transport::load_tls(transport::TlsFiles::in(dir, cert));
  grid.tls_dir = dir;
  return grid;
}

PeerClient::Settings settings_for(const Grid& grid, std::size_t server) {
  return {grid.tls, grid.tls ? grid.topology.servers.at(server).spec.name : std::string(), grid.reply_timeout,
          grid.busy_poll};
}

std::vector<PeerReach> poll_status(transport::asio::io_context& io, const Grid& grid) {
  std::vector<PeerReach> reach(grid.addresses.size());
  for (std::size_t i = 0; i < grid.addresses.size(); ++i) {
    if (grid.addresses[i].port == 0) {
      reach[i].error = "an index no member answered for yet";
      continue;
    }
    try {
      PeerClient peer(io, grid.addresses[i], settings_for(grid, i));
      reach[i].status = peer.request<protocol::PeerStatus>(protocol::StatusRequest{});
    } catch (const std::exception& error) {
      reach[i].error = error.what();
    }
  }
  return reach;
}

std::optional<protocol::PeerStatus> add_joined_members(transport::asio::io_context& io, Grid& grid, bool with_left) {
  for (std::size_t i = 0; i < grid.addresses.size(); ++i) {
    protocol::PeerStatus status;
    try {
      PeerClient peer(io, grid.addresses[i], settings_for(grid, i));
      status = peer.request<protocol::PeerStatus>(protocol::StatusRequest{});
    } catch (const std::exception&) {
      continue;  // the next one may answer; status and results name the unreachable
    }
    for (const protocol::MemberStatus& member : status.members) {
      auto& servers = grid.topology.servers;
      if (member.index < servers.size() && !servers[member.index].spec.name.empty()) continue;  // in the file
      if (member.state == protocol::MemberState::left && !with_left) continue;
      if (servers.size() <= member.index) {
        servers.resize(member.index + 1);
        grid.addresses.resize(member.index + 1);
      }
      servers[member.index].spec = member.card.server;
      servers[member.index].spec.name = member.card.name;
      if (!member.card.address.empty()) grid.addresses[member.index] = transport::parse_address(member.card.address);
      grid.topology.site_count = std::max(grid.topology.site_count, member.card.server.site + 1);
    }
    return status;
  }
  return std::nullopt;
}

}  // namespace gridpeer::client
