#pragma once
// A gzip file inflated with ISA-L on a helper thread, handed over in blocks:
// reading a log costs the larger of inflating and parsing rather than their
// sum (as zcat | awk, two processes, does). Several gzip members in one file
// are read one after the other, as gzip -d does.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gridpeer::traces {

class GzipBlocks {
 public:
  /// Starts inflating `path` (already open as `file`, at its start).
  GzipBlocks(std::filesystem::path path, std::ifstream file);
  /// Stops the helper thread and waits for it.
  ~GzipBlocks();
  GzipBlocks(const GzipBlocks&) = delete;
  GzipBlocks& operator=(const GzipBlocks&) = delete;

  /// Up to `capacity` inflated bytes; 0 at the end. Throws TraceFileError,
  /// naming the file and the compressed offset, where the data is damaged
  /// or ends early -- after everything before that point was handed over.
  std::size_t read(char* into, std::size_t capacity);

 private:
  void inflate_all();
  /// Hands a full block over, waiting while the reader is kBlocksAhead behind.
  /// False when the reader has gone.
  bool hand_over(std::string block);
  /// An empty block to fill: a read one if there is one (a fresh block each
  /// time was a page fault per page of the log).
  std::string next_block();

  std::filesystem::path path_;
  std::ifstream file_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> ready_;   // inflated blocks not yet read
  std::vector<std::string> spare_;  // blocks read, for the helper to fill again
  bool finished_ = false;           // the helper has handed over its last block
  bool stopping_ = false;           // the reader has gone
  std::exception_ptr failure_;      // why the helper stopped early
  std::string current_;             // the block being read
  std::size_t current_at_ = 0;
  std::thread helper_;
};

}  // namespace gridpeer::traces
