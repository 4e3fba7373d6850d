#include "peer/io/traces/trace_file.hpp"

#include <array>
#include <cstdlib>

#include "peer/io/traces/gzip_blocks.hpp"

namespace gridpeer::traces {

TraceFile::TraceFile(const std::filesystem::path& path) : path_(path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw TraceFileError("cannot open trace '" + path.string() + "': no such readable file");
  }
  std::array<char, 2> magic{};
  file.read(magic.data(), magic.size());
  compressed_ = file.gcount() == 2 && static_cast<unsigned char>(magic[0]) == 0x1f &&
                static_cast<unsigned char>(magic[1]) == 0x8b;
  file.clear();
  file.seekg(0);
  if (compressed_) {
    gzip_ = std::make_unique<GzipBlocks>(path, std::move(file));
  } else {
    plain_ = std::move(file);
  }
}

TraceFile::~TraceFile() = default;

std::size_t TraceFile::read(char* into, std::size_t capacity) {
  if (gzip_) return gzip_->read(into, capacity);
  if (!plain_) return 0;
  plain_.read(into, static_cast<std::streamsize>(capacity));
  if (plain_.bad()) throw TraceFileError("trace '" + path_.string() + "': read error");
  return static_cast<std::size_t>(plain_.gcount());
}

void TraceFile::check_rest() {
  std::array<char, 1 << 16> sink{};
  while (read(sink.data(), sink.size()) > 0) {
  }
}

std::optional<std::filesystem::path> resolve_trace_dir(const std::optional<std::string>& flag) {
  namespace fs = std::filesystem;
  if (flag) return fs::path(*flag);
  if (const char* env = std::getenv("GRIDPEER_TRACE_DIR"); env != nullptr && *env != '\0') return fs::path(env);
  std::error_code error;
  // The documented rules only (README, Traces): nothing found through the
  // path the binary was built from, which would differ on another machine.
  if (fs::is_directory("../shared/traces", error)) return fs::path("../shared/traces");
  return std::nullopt;
}

std::filesystem::path resolve_trace_file(const std::string& name,
                                         const std::optional<std::filesystem::path>& trace_dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::is_regular_file(name, error)) return fs::path(name);
  if (trace_dir && fs::is_regular_file(*trace_dir / name, error)) return *trace_dir / name;
  std::string where =
      trace_dir ? "in '" + trace_dir->string() + "' or " : std::string("(no trace directory found) or ");
  throw TraceFileError("trace '" + name + "' not found " + where +
                       "as a path. Point --trace-dir (or GRIDPEER_TRACE_DIR) at a directory holding the "
                       "Parallel Workloads Archive logs (https://www.cs.huji.ac.il/labs/parallel/workload/), "
                       "or use a synthetic workload.");
}

workload::SwfTrace load_swf_file(const std::filesystem::path& path, workload::SwfReadOptions options) {
  TraceFile file(path);
  try {
    return workload::read_swf([&file](char* into, std::size_t capacity) { return file.read(into, capacity); },
                              path.string(), options);
  } catch (const workload::SwfError&) {
    // Damaged deflate data can inflate to garbage before the checksum at the
    // member's end says so: a damaged file is the cause to report, not the
    // garbage line it made.
    file.check_rest();
    throw;
  }
}

}  // namespace gridpeer::traces
