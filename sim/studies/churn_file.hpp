#pragma once
// Churn at given times (gridsim --churn-file): one event per line,
//
//   time_s,event,server[,away_s]
//   3600,leave,B,7200      # B leaves at 1 h and joins again 2 h later
//   7200,join,E            # E, outside the grid until now, joins
//   86400,leave,C          # C leaves for good
//
// `server` a name of the grid or its index. A server whose first event is a
// join starts outside the grid. Blank lines, `#` comments and a header line
// starting with `time_s` are skipped.
#include <string>
#include <string_view>
#include <vector>

#include "peer/io/topology/topology.hpp"
#include "sim/driver/churn.hpp"

namespace gridpeer::sim {

struct ChurnEvents {
  std::vector<PeerLeave> leaves;
  std::vector<PeerJoin> joins;
};

/// Throws std::invalid_argument naming `source`, the line and what is wrong.
ChurnEvents parse_churn_events(std::string_view text, const std::string& source, const topology::Topology& grid);
/// The file at `path` (its errors name it).
ChurnEvents load_churn_events(const std::string& path, const topology::Topology& grid);

}  // namespace gridpeer::sim
