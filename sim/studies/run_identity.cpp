#include "sim/studies/run_identity.hpp"

#include <fmt/format.h>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <gridpeer/version.hpp>

#include "peer/io/traces/trace_file.hpp"
#include "sim/studies/grid_options.hpp"
#include "sim/studies/synthetic_grid.hpp"
#include "sim/studies/workloads.hpp"

namespace gridpeer::sim {

std::string gridpeer_version() {
  return GRIDPEER_VERSION;
}

std::string hash_hex(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char byte : bytes) {
    hash ^= static_cast<unsigned char>(byte);
    hash *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", hash);
}

std::string file_hash(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot be read to hash it");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return hash_hex(bytes.str());
}

const std::string& FileHashes::of(const std::filesystem::path& path) {
  auto it = hashes_.find(path);
  if (it == hashes_.end()) it = hashes_.emplace(path, file_hash(path)).first;
  return it->second;
}

namespace {

/// The trace files a run reads, resolved as the workload loader resolves them.
std::set<std::filesystem::path> trace_inputs(const ExperimentSpec& spec) {
  std::set<std::filesystem::path> files;
  const auto& source = spec.workload.source;
  if (is_synthetic_model(source)) return files;
  const auto dir = traces::resolve_trace_dir(spec.workload.trace_dir);
  if (source == "topology") {
    for (const auto& server : load_grid(spec).servers) {
      if (server.trace) files.insert(traces::resolve_trace_file(server.trace->file, dir));
    }
  } else {
    files.insert(traces::resolve_trace_file(source, dir));
  }
  return files;
}

}  // namespace

nlohmann::json run_identity(const cxxopts::ParseResult& args, const ExperimentSpec& spec, FileHashes& hashes) {
  std::map<std::string, std::string> options;
  for (const auto& option : args.defaults()) options[option.key()] = option.value();
  for (const auto& option : args.arguments()) options[option.key()] = option.value();
  nlohmann::json kept = nlohmann::json::object();
  for (const auto& [name, value] : options) {
    if (option_changes_result(name)) kept[name] = value;
  }
  nlohmann::json inputs = nlohmann::json::object();
  if (synthetic_grid_size(spec.topology_file)) {
    kept["topology"] = spec.topology_file;
  } else {
    // The topology by content: a built-in and a copy of it are the same grid.
    kept["topology"] = hash_hex(topology::topology_text(spec.topology_file));
  }
  for (const auto& file : trace_inputs(spec)) inputs[file.filename().string()] = hashes.of(file);
  return {{"version", gridpeer_version()}, {"options", kept}, {"inputs", inputs}};
}

std::string identity_hash(const nlohmann::json& identity) {
  return hash_hex(identity.dump());
}

std::string command_line_of(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i > 0) line += ' ';
    line += arg.find_first_of(" \t'\"") == std::string::npos ? arg : "'" + arg + "'";
  }
  return line;
}

}  // namespace gridpeer::sim
