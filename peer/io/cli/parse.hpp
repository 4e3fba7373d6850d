#pragma once
// One way every command parses its options and answers --help.
#include <cxxopts.hpp>
#include <optional>
#include <string>

#include "peer/model/time.hpp"

namespace gridpeer::cli {

/// Parses the command line. A value of the wrong type names its option
/// ("--limit-days: 'abc' is not a valid value"), an unknown option suggests the
/// nearest known one; both throw std::invalid_argument.
cxxopts::ParseResult parse_options(cxxopts::Options& options, int argc, const char* const* argv);

/// parse_options; with --help, prints the help to stdout and returns nullopt
/// (the command then exits 0).
std::optional<cxxopts::ParseResult> parse_or_help(cxxopts::Options& options, int argc, char** argv);

/// The longest time an option takes: a billion seconds (about 32 years) is
/// past any experiment or timeout, and far inside what a time holds.
inline constexpr double kLongestOptionSeconds = 1e9;

/// Option `name`, in seconds, rounded up to the microsecond. A value below
/// `at_least`, above kLongestOptionSeconds or not a number throws
/// std::invalid_argument naming the option and the range it takes.
Duration seconds_option(const cxxopts::ParseResult& args, const std::string& name, double at_least = 0);

/// The closest long option name to `typed` (at most two edits, or a prefix),
/// or "" when none is close.
std::string nearest_option(const cxxopts::Options& options, const std::string& typed);

}  // namespace gridpeer::cli
