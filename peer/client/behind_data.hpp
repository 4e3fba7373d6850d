#pragma once
// gridctl bench-att --behind-transfers: what a control frame takes behind
// staged data. gridctl stages endless transfers to the measured peer the way
// a peer does (a header, then chunks, each sent once the last is written)
// and meanwhile sends ATT queries one at a time, timing each round trip.
// The data goes on the queries' own connection, as between real peers, or
// on another peer's (a separate flow over the same link).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "peer/transport/connection.hpp"
#include "protocol/wire.hpp"

namespace gridpeer::client {

struct BehindDataSettings {
  std::size_t transfers = 1;                ///< endless transfers under way at once
  std::size_t chunk_bytes = 64 * 1024;      ///< as a peer's --chunk-bytes
  std::size_t queries = 100;                ///< round trips timed
  std::chrono::milliseconds gap{50};        ///< between a reply and the next query
  std::chrono::milliseconds warm_up{2000};  ///< staging alone before the first query (the link's queues fill)
  std::chrono::seconds reply_timeout{30};   ///< a query unanswered this long ends the measurement
};

struct BehindDataResult {
  std::vector<double> round_trips_us;  ///< one per answered query, in order
  std::uint64_t staged_bytes = 0;      ///< payload written while the queries ran
  double seconds = 0;                  ///< from the first query to the last reply
  bool timed_out = false;              ///< a query went unanswered for the reply time-out
  std::size_t query_bytes = 0;         ///< a query's frame on the wire
  std::size_t reply_bytes = 0;         ///< a reply's
  std::string closed;                  ///< why a connection closed before the end (empty: it did not)
};

/// `queries` carries the ATT queries (`next_query` makes each); `data` the
/// transfers -- the same connection, or another one. Neither is started yet;
/// both are closed on return.
BehindDataResult round_trips_behind_data(transport::asio::io_context& io,
                                         const std::shared_ptr<transport::Connection>& queries,
                                         const std::shared_ptr<transport::Connection>& data,
                                         const std::function<protocol::AttQuery()>& next_query,
                                         const BehindDataSettings& settings);

}  // namespace gridpeer::client
