#pragma once
// What makes two runs the same run: every option that changes the result (with
// its default when not given), the content of every input file, and the
// version of the code. Sweeps reuse a saved run only when its identity hash
// matches exactly (docs/experiments.md).
#include <cxxopts.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "sim/studies/grid_experiment.hpp"

namespace gridpeer::sim {

/// "0.1.0+<commit>[-dirty]", from the build (cmake/WriteVersion.cmake).
std::string gridpeer_version();

/// FNV-1a, 64 bits, as 16 hex digits. Written by hand: it names runs and
/// inputs so that a changed one is noticed; it is not a defence against
/// anyone forging a collision, which nobody sweeping their own runs would.
std::string hash_hex(std::string_view bytes);
/// hash_hex of a file's bytes; throws std::runtime_error naming the file.
std::string file_hash(const std::filesystem::path& path);

/// Hashes each file once (a sweep's runs share their traces).
class FileHashes {
 public:
  const std::string& of(const std::filesystem::path& path);

 private:
  std::map<std::filesystem::path, std::string> hashes_;
};

/// {"version", "options": {name: value} of every result-changing option,
/// "inputs": {file name: content hash}}. The topology's path is replaced by
/// its content hash (or kept as "synthetic:N"), so moving files changes nothing.
nlohmann::json run_identity(const cxxopts::ParseResult& args, const ExperimentSpec& spec, FileHashes& hashes);
/// hash_hex of the identity's canonical JSON (keys sorted).
std::string identity_hash(const nlohmann::json& identity);

/// The command line as one string, arguments with spaces quoted.
std::string command_line_of(int argc, char** argv);

}  // namespace gridpeer::sim
