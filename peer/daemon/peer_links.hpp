#pragma once
// The daemon's connection to each partner: the one its hello was admitted
// on (ready), or the one being dialed or greeted. Written by the connection
// gate, read by whoever sends to a partner.
#include <memory>
#include <vector>

#include "peer/model/ids.hpp"
#include "peer/transport/connection.hpp"
#include "protocol/wire.hpp"

namespace gridpeer::daemon {

class PeerLinks {
 public:
  explicit PeerLinks(std::size_t servers) : links_(servers) {}

  struct Link {
    std::shared_ptr<transport::Connection> connection;
    bool ready = false;  ///< its hello admitted: messages flow
  };
  [[nodiscard]] std::size_t size() const { return links_.size(); }
  /// The grid grew: room for links up to `servers`.
  void grow(std::size_t servers) {
    if (links_.size() < servers) links_.resize(servers);
  }
  Link& operator[](ServerIndex peer) { return links_.at(peer); }
  const Link& operator[](ServerIndex peer) const { return links_.at(peer); }

  /// Sends `message` on the partner's admitted link; false (nothing sent)
  /// when there is none or it has closed.
  bool send(ServerIndex peer, const protocol::WireMessage& message) const {
    const Link& link = links_.at(peer);
    if (!link.ready || !link.connection || !link.connection->is_open()) return false;
    link.connection->send(message);
    return true;
  }
  [[nodiscard]] bool ready(ServerIndex peer) const {
    const Link& link = links_.at(peer);
    return link.ready && link.connection && link.connection->is_open();
  }
  /// `connection` is the partner's current one (not a stale or replaced one).
  [[nodiscard]] bool current(ServerIndex peer, const std::shared_ptr<transport::Connection>& connection) const {
    return connection && links_.at(peer).connection == connection;
  }
  void close_all(const std::string& why) {
    for (Link& link : links_) {
      if (link.connection) link.connection->close(why);
    }
  }

 private:
  std::vector<Link> links_;
};

}  // namespace gridpeer::daemon
