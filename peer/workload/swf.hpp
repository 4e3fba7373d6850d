#pragma once
// Standard Workload Format (Parallel Workloads Archive): header comments
// starting with ';', then one job per line with 18 whitespace-separated
// fields, -1 meaning unknown. Parses from a stream; opening files (and
// gunzipping) is the programs' business.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <istream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gridpeer::workload {

struct SwfRecord {
  std::int64_t job_number = -1;
  std::int64_t submit_time = -1;  ///< seconds since the log's UnixStartTime
  std::int64_t wait_time = -1;
  std::int64_t run_time = -1;
  std::int64_t allocated_processors = -1;
  double average_cpu_time = -1;
  double used_memory = -1;
  std::int64_t requested_processors = -1;
  std::int64_t requested_time = -1;  ///< the user's estimate
  double requested_memory = -1;
  std::int64_t status = -1;
  std::int64_t user_id = -1;
  std::int64_t group_id = -1;
  std::int64_t executable = -1;
  std::int64_t queue = -1;
  std::int64_t partition = -1;
  std::int64_t preceding_job = -1;
  std::int64_t think_time = -1;
  std::size_t line = 0;  ///< where it came from, for messages
};

struct SwfQueue {
  std::int64_t number = -1;
  std::string name;
};

struct SwfHeader {
  std::optional<std::int64_t> max_procs;
  std::optional<std::int64_t> max_nodes;
  std::optional<std::int64_t> unix_start_time;
  std::optional<std::int64_t> time_zone;
  std::optional<std::int64_t> max_jobs;
  std::optional<std::int64_t> max_records;
  std::string installation;
  std::string computer;
  std::string acknowledge;
  std::vector<SwfQueue> queues;
  /// Every header line as written: keep it wherever results are published
  /// (acknowledgements, the SDSC copyright notice).
  std::vector<std::string> lines;
};

class SwfError : public std::runtime_error {
 public:
  SwfError(std::string source, std::size_t line, const std::string& what);
  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] std::size_t line() const { return line_; }

 private:
  std::string source_;
  std::size_t line_;
};

struct SwfReadOptions {
  /// Skip malformed lines (and count them) instead of stopping at the first.
  bool skip_malformed = false;
};

/// A source that cannot be read on; the reader reports it as an SwfError at
/// the line it was reading. (Other exceptions, such as a damaged gzip file's,
/// pass through as they are: they name their file themselves.)
class SwfReadFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where a reader's bytes come from: copies up to `capacity` bytes of the log
/// into `into` and says how many; 0 only at its end.
using SwfByteSource = std::function<std::size_t(char* into, std::size_t capacity)>;

/// An istream as a byte source (tests, standard input).
SwfByteSource bytes_of(std::istream& in);

/// Streams records one at a time; the header is complete once the first
/// record has been read (or the source has ended).
class SwfReader {
 public:
  SwfReader(SwfByteSource source, std::string source_name, SwfReadOptions options = {});

  /// The next job line, or nullopt at the end. Throws SwfError on a malformed
  /// line unless skip_malformed is set.
  std::optional<SwfRecord> next();

  [[nodiscard]] const SwfHeader& header() const { return header_; }
  [[nodiscard]] std::size_t skipped_lines() const { return skipped_; }
  /// The first few skip reasons, "source:line: reason".
  [[nodiscard]] const std::vector<std::string>& skip_reasons() const { return skip_reasons_; }

 private:
  void read_header_line(std::string_view line);
  /// The next line (without its newline) from the buffer, read in blocks
  /// (one call per line through a decompressing stream cost twice the
  /// parse); false at the end. The view lives until the next call.
  bool next_line(std::string_view& line);

  SwfByteSource bytes_;
  std::string source_;
  SwfReadOptions options_;
  SwfHeader header_;
  std::size_t line_number_ = 0;
  std::size_t skipped_ = 0;
  std::vector<std::string> skip_reasons_;
  std::string buffer_;  ///< what was read and not yet split, from buffer_start_
  std::size_t buffer_start_ = 0;
  bool ended_ = false;  ///< the source has nothing more
};

struct SwfTrace {
  SwfHeader header;
  std::vector<SwfRecord> records;
  std::size_t skipped_lines = 0;
  std::vector<std::string> skip_reasons;
};

SwfTrace read_swf(SwfByteSource source, const std::string& source_name, SwfReadOptions options = {});
SwfTrace read_swf(std::istream& in, const std::string& source_name, SwfReadOptions options = {});

/// Parses one job line; throws std::invalid_argument describing the fault.
SwfRecord parse_swf_line(std::string_view line);

}  // namespace gridpeer::workload
