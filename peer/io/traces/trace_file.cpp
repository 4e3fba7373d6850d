#include "peer/io/traces/trace_file.hpp"

#include <array>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <cstdlib>
#include <fstream>

namespace gridpeer::traces {

namespace io = boost::iostreams;

struct TraceFile::Impl {
  std::ifstream file;
  io::filtering_istream filtered;
};

TraceFile::TraceFile(const std::filesystem::path& path) : path_(path), impl_(std::make_unique<Impl>()) {
  impl_->file.open(path, std::ios::binary);
  if (!impl_->file) {
    throw TraceFileError("cannot open trace '" + path.string() + "': no such readable file");
  }
  std::array<char, 2> magic{};
  impl_->file.read(magic.data(), magic.size());
  compressed_ = impl_->file.gcount() == 2 && static_cast<unsigned char>(magic[0]) == 0x1f &&
                static_cast<unsigned char>(magic[1]) == 0x8b;
  impl_->file.clear();
  impl_->file.seekg(0);
  if (compressed_) impl_->filtered.push(io::gzip_decompressor());
  impl_->filtered.push(impl_->file);
}

TraceFile::~TraceFile() = default;

std::istream& TraceFile::stream() {
  return impl_->filtered;
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
    return workload::read_swf(file.stream(), path.string(), options);
  } catch (const io::gzip_error& error) {
    throw TraceFileError("trace '" + path.string() + "' is not a valid gzip file: " + error.what());
  }
}

}  // namespace gridpeer::traces
