#pragma once
// Opening workload traces: plain or gzip-compressed SWF files (detected by
// their magic bytes), and finding the trace directory. This is the programs'
// file I/O, kept out of the sans-I/O workload library.
#include <filesystem>
#include <istream>
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

/// A readable stream over a trace file, decompressing gzip on the fly.
class TraceFile {
 public:
  explicit TraceFile(const std::filesystem::path& path);
  ~TraceFile();
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  std::istream& stream();
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] bool compressed() const { return compressed_; }

 private:
  struct Impl;
  std::filesystem::path path_;
  bool compressed_ = false;
  std::unique_ptr<Impl> impl_;
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
