#pragma once
// One way every command parses its options and answers --help.
#include <cxxopts.hpp>
#include <iostream>
#include <optional>

namespace gridpeer::cli {

/// Parses the command line; with --help, prints the help to stdout and
/// returns nullopt (the command then exits 0).
inline std::optional<cxxopts::ParseResult> parse_or_help(cxxopts::Options& options, int argc, char** argv) {
  cxxopts::ParseResult args = options.parse(argc, argv);
  if (args.count("help") != 0U) {
    std::cout << options.help() << '\n';
    return std::nullopt;
  }
  return args;
}

}  // namespace gridpeer::cli
