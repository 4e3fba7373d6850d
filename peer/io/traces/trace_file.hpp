#pragma once
// Opening workload traces: plain or gzip-compressed SWF files (detected by
// their magic bytes), and finding the trace directory. This is the programs'
// file I/O, kept out of the sans-I/O workload library.
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "peer/workload/swf.hpp"

namespace gridpeer::traces {

class TraceFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class GzipBlocks;

/// A trace file's bytes, gzip inflated on the fly (on a helper thread).
class TraceFile {
 public:
  explicit TraceFile(const std::filesystem::path& path);
  ~TraceFile();
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  /// Up to `capacity` bytes of the log; 0 at its end. Throws TraceFileError
  /// on a read fault or damaged gzip data, naming the file.
  std::size_t read(char* into, std::size_t capacity);
  /// Reads the rest, only to throw TraceFileError if it is damaged.
  void check_rest();
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] bool compressed() const { return compressed_; }

 private:
  std::filesystem::path path_;
  bool compressed_ = false;
  std::ifstream plain_;               // a plain log, read as it is
  std::unique_ptr<GzipBlocks> gzip_;  // a compressed one
};

/// The trace directory: `flag` if given, else $GRIDPEER_TRACE_DIR, else
/// ../shared/traces (from the working directory, then from the source tree)
/// when present. nullopt when none is found.
std::optional<std::filesystem::path> resolve_trace_dir(const std::optional<std::string>& flag);

/// A trace named in a topology or on the command line: an existing path as
/// given, else the name inside the trace directory. Throws TraceFileError
/// saying where it looked and how to fix it.
std::filesystem::path resolve_trace_file(const std::string& name,
                                         const std::optional<std::filesystem::path>& trace_dir);

/// Reads a whole SWF file (gzipped or not). SwfError names the file and line.
workload::SwfTrace load_swf_file(const std::filesystem::path& path, workload::SwfReadOptions options = {});

}  // namespace gridpeer::traces
