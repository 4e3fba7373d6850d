#include "peer/client/grid_args.hpp"

#include <stdexcept>

#include "peer/client/peer_client.hpp"

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
      "speak mutual TLS with the certificates of gridctl ca in DIR: DIR/ca.pem and --cert's NAME.pem and NAME-key.pem "
      "(peers run with gridpeer --tls-dir); without it, plaintext",
      cxxopts::value<std::string>())("cert",
                                     "with --tls-dir: the name of your certificate (its role decides what the "
                                     "peers let you do: operator or submitter)",
                                     cxxopts::value<std::string>())("h,help", "show this help");
  return options;
}

Grid grid_from(const cxxopts::ParseResult& args) {
  if (args.count("topology") == 0U) throw std::invalid_argument("--topology is required (see --help)");
  topology::TopologySelection selection;
  if (args.count("sites") != 0U) selection.split = args["sites"].as<std::string>();
  Grid grid{topology::load_topology(args["topology"].as<std::string>(), selection), {}, nullptr};
  grid.addresses = net::peer_addresses(
      grid.topology, args["host"].as<std::string>(), args["base-port"].as<int>(),
      args.count("peer") != 0U ? args["peer"].as<std::vector<std::string>>() : std::vector<std::string>{});
  if (args.count("tls-dir") != 0U) {
    if (args.count("cert") == 0U) {
      throw std::invalid_argument("--tls-dir needs --cert NAME: whose certificate to present");
    }
    grid.tls = net::load_tls(net::TlsFiles::in(args["tls-dir"].as<std::string>(), args["cert"].as<std::string>()));
  }
  return grid;
}

PeerClient::Secure secure_for(const Grid& grid, std::size_t server) {
  return {grid.tls, grid.tls ? grid.topology.servers.at(server).spec.name : std::string()};
}

std::vector<PeerReach> poll_status(net::asio::io_context& io, const Grid& grid) {
  std::vector<PeerReach> reach(grid.addresses.size());
  for (std::size_t i = 0; i < grid.addresses.size(); ++i) {
    try {
      PeerClient peer(io, grid.addresses[i], secure_for(grid, i));
      reach[i].status = peer.request<protocol::PeerStatus>(protocol::StatusRequest{});
    } catch (const std::exception& error) {
      reach[i].error = error.what();
    }
  }
  return reach;
}

}  // namespace gridpeer::client
