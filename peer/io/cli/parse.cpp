#include "peer/io/cli/parse.hpp"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace gridpeer::cli {
namespace {

/// Levenshtein distance; option names are short, so the plain table is enough.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> long_names(const cxxopts::Options& options) {
  std::vector<std::string> names;
  for (const auto& group : options.groups()) {
    for (const auto& option : options.group_help(group).options) {
      for (const auto& name : option.l) {
        if (name.size() > 1) names.push_back(name);
      }
    }
  }
  return names;
}

/// The option an argument belongs to: "--name=value", or "--name" before it.
std::string option_of_value(int argc, const char* const* argv, const std::string& value) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word.starts_with("--") && word.ends_with("=" + value)) return std::string(word.substr(0, word.find('=')));
    if (word == value && i > 1 && std::string_view(argv[i - 1]).starts_with("-")) return argv[i - 1];
  }
  return {};
}

/// The text between the quotes of a cxxopts message ('x' or ‘x’).
std::string quoted(const std::string& message) {
  for (const std::string_view open : {"\xE2\x80\x98", "'", "`"}) {
    const auto from = message.find(open);
    if (from == std::string::npos) continue;
    const auto start = from + open.size();
    for (const std::string_view close : {"\xE2\x80\x99", "'"}) {
      const auto to = message.find(close, start);
      if (to != std::string::npos) return message.substr(start, to - start);
    }
  }
  return {};
}

}  // namespace

std::string nearest_option(const cxxopts::Options& options, const std::string& typed) {
  std::string best;
  std::size_t best_distance = 3;  // more than two edits is not a typo
  for (const auto& name : long_names(options)) {
    const std::size_t distance = name.starts_with(typed) && typed.size() >= 3 ? 1 : edit_distance(typed, name);
    if (distance < best_distance) {
      best_distance = distance;
      best = name;
    }
  }
  return best;
}

cxxopts::ParseResult parse_options(cxxopts::Options& options, int argc, const char* const* argv) {
  try {
    return options.parse(argc, argv);
  } catch (const cxxopts::exceptions::incorrect_argument_type& error) {
    const std::string value = quoted(error.what());
    const std::string option = option_of_value(argc, argv, value);
    throw std::invalid_argument((option.empty() ? std::string("an option") : option) + ": '" + value +
                                "' is not a valid value (see --help for what it takes)");
  } catch (const cxxopts::exceptions::no_such_option& error) {
    const std::string typed = quoted(error.what());
    const std::string nearest = nearest_option(options, typed);
    throw std::invalid_argument("unknown option --" + typed +
                                (nearest.empty() ? std::string(" (see --help)") : "; did you mean --" + nearest + "?"));
  } catch (const cxxopts::exceptions::parsing& error) {
    throw std::invalid_argument(std::string(error.what()) + " (see --help)");
  }
}

std::optional<cxxopts::ParseResult> parse_or_help(cxxopts::Options& options, int argc, char** argv) {
  cxxopts::ParseResult args = parse_options(options, argc, argv);
  if (args.count("help") != 0U) {
    std::cout << options.help() << '\n';
    return std::nullopt;
  }
  return args;
}

Duration seconds_option(const cxxopts::ParseResult& args, const std::string& name, double at_least) {
  const double value = args[name].as<double>();
  if (!(value >= at_least && value <= kLongestOptionSeconds)) {
    std::ostringstream message;
    message << std::setprecision(10) << "--" << name << " takes " << at_least << " to " << kLongestOptionSeconds
            << " seconds (got " << value << ")";
    throw std::invalid_argument(message.str());
  }
  return seconds_ceil(value);
}

}  // namespace gridpeer::cli
