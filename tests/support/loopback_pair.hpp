#pragma once
// Two plaintext Connections joined over loopback TCP, for tests that run
// both ends in one io_context.
#include <memory>
#include <utility>

#include "peer/transport/connection.hpp"

namespace gridpeer::testing {

/// Connected sockets over loopback: the connecting end first.
inline std::pair<transport::tcp::socket, transport::tcp::socket> loopback_sockets(transport::asio::io_context& io) {
  transport::tcp::acceptor acceptor(io, transport::tcp::endpoint(transport::asio::ip::address_v4::loopback(), 0));
  transport::tcp::socket a(io);
  a.connect(acceptor.local_endpoint());
  transport::tcp::socket b = acceptor.accept();
  return {std::move(a), std::move(b)};
}

/// Two connected plaintext Connections, not started: the connecting end first.
inline std::pair<std::shared_ptr<transport::Connection>, std::shared_ptr<transport::Connection>> connected_pair(
    transport::asio::io_context& io) {
  auto [a, b] = loopback_sockets(io);
  return {std::make_shared<transport::Connection>(std::move(a), transport::ConnectionLimits{}),
          std::make_shared<transport::Connection>(std::move(b), transport::ConnectionLimits{})};
}

}  // namespace gridpeer::testing
