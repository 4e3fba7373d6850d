#pragma once
// Command-line options for the grid scheduler's configuration (local policy
// and 002's parameters), shared by gridsim and gridpeer so both read them
// the same way.
#include <cxxopts.hpp>

#include "peer/core/grid_config.hpp"

namespace gridpeer::cli {

/// --policy, --depth, --phi, --sigma, --delta, --epsilon, --site-rule, --site-thresholds, --timeout.
void add_scheduler_options(cxxopts::Options& options);
/// The local policy and the parameters (not the algorithm); throws
/// std::invalid_argument naming the option when a value is out of range.
GridConfig scheduler_config_from(const cxxopts::ParseResult& args);

}  // namespace gridpeer::cli
