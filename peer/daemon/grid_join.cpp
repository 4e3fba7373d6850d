#include "peer/daemon/grid_join.hpp"

#include <chrono>
#include <map>
#include <thread>

#include "peer/transport/peer_client.hpp"

namespace gridpeer::daemon {

namespace {

std::string text_of(const transport::PeerAddress& address) {
  return address.host + ":" + std::to_string(address.port);
}

}  // namespace

topology::TopologyServer server_of(const protocol::MemberCard& card) {
  topology::TopologyServer server;
  server.spec = card.server;
  server.spec.name = card.name;
  return server;
}

JoinedGrid join_grid(transport::asio::io_context& io, const DaemonConfig& config, const protocol::Hello& hello,
                     const std::vector<transport::PeerAddress>& via, int rounds, spdlog::logger& log) {
  std::map<std::string, std::string> answers;  // the last from each member asked
  for (int round = 0; round < rounds; ++round) {
    if (round > 0) std::this_thread::sleep_for(std::chrono::seconds(1));  // before the process serves anything
    for (const transport::PeerAddress& address : via) {
      try {
        transport::PeerClientSettings settings;
        settings.tls = config.tls;
        settings.reply_timeout = std::chrono::seconds(10);
        transport::PeerClient member(io, address, hello, settings);
        // Its hello came first; then every member, then it closes.
        protocol::WireMessage answer = member.receive();
        const auto* sync = std::get_if<protocol::MemberSync>(&answer);
        if (sync == nullptr) {
          throw std::runtime_error(text_of(address) + " answered the join with " + protocol::message_name(answer));
        }
        JoinedGrid grid;
        grid.via = member.peer().name + " at " + text_of(address);
        grid.epoch_unix_us = member.peer().epoch_unix_us;
        grid.via_name = member.peer().name;
        grid.view = sync->members;
        for (const protocol::MemberUpdate& update : sync->members) {
          if (update.card && update.card->index != protocol::kNoMemberIndex) grid.members.push_back(*update.card);
        }
        return grid;
      } catch (const std::exception& e) {
        log.warn("joining through {}: {}", text_of(address), e.what());
        answers[text_of(address)] = e.what();
      }
    }
  }
  std::string why;
  for (const auto& [address, answer] : answers) why += (why.empty() ? "" : "; ") + answer;
  throw std::runtime_error("could not join the grid through any of the --join members (" + why +
                           "). Check that one of them runs and is reachable, and that this peer's certificate is of "
                           "the grid's CA");
}

void take_joined_grid(DaemonConfig& config, const JoinedGrid& grid) {
  const topology::TopologyServer own = config.grid.servers.at(config.self);
  const transport::PeerAddress own_address = config.addresses.at(config.self);
  std::vector<topology::TopologyServer> servers;
  std::vector<transport::PeerAddress> addresses;
  std::optional<ServerIndex> self;
  for (const protocol::MemberCard& card : grid.members) {
    if (card.index >= protocol::kMaxPeers)
      throw std::invalid_argument(grid.via + " gave member " + card.name + " index " + std::to_string(card.index));
    if (servers.size() <= card.index) {
      servers.resize(card.index + 1);
      addresses.resize(card.index + 1);
    }
    if (!servers[card.index].spec.name.empty()) {
      throw std::invalid_argument(grid.via + " gave index " + std::to_string(card.index) + " to both " +
                                  servers[card.index].spec.name + " and " + card.name);
    }
    servers[card.index] = server_of(card);
    if (card.name == own.spec.name) {
      self = card.index;
      servers[card.index] = own;  // what this peer's file says of it
      addresses[card.index] = own_address;
    } else if (!card.address.empty()) {
      addresses[card.index] = transport::parse_address(card.address);
    }
  }
  if (!self) throw std::invalid_argument(grid.via + " answered the join without giving this peer an index");
  config.joined_through = grid.via_name;
  config.joined_view = grid.view;
  int sites = 0;
  for (const auto& server : servers) sites = std::max(sites, server.spec.site + 1);
  config.grid.servers = std::move(servers);
  config.grid.site_count = std::max(config.grid.site_count, sites);
  config.addresses = std::move(addresses);
  config.self = *self;
}

}  // namespace gridpeer::daemon
