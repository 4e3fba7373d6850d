#include "peer/io/traces/gzip_blocks.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "peer/io/traces/trace_file.hpp"

namespace gridpeer::traces {
namespace {

constexpr std::size_t kBlock = std::size_t{1} << 18;
// Blocks inflated ahead of the reader: enough to keep both threads busy,
// little enough that a large log is never held whole.
constexpr std::size_t kBlocksAhead = 4;
constexpr int kGzipOnly = 16 + MAX_WBITS;

/// zlib's stream, ended on every way out.
class Inflater {
 public:
  Inflater() {
    if (inflateInit2(&stream_, kGzipOnly) != Z_OK) throw std::bad_alloc();
  }
  ~Inflater() { inflateEnd(&stream_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  z_stream& operator*() { return stream_; }
  z_stream* operator->() { return &stream_; }

 private:
  z_stream stream_{};
};

}  // namespace

GzipBlocks::GzipBlocks(std::filesystem::path path, std::ifstream file)
    : path_(std::move(path)), file_(std::move(file)), helper_([this] { inflate_all(); }) {}

GzipBlocks::~GzipBlocks() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  helper_.join();
}

bool GzipBlocks::hand_over(std::string block) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return stopping_ || ready_.size() < kBlocksAhead; });
  if (stopping_) return false;
  ready_.push_back(std::move(block));
  lock.unlock();
  changed_.notify_all();
  return true;
}

std::string GzipBlocks::next_block() {
  {
    const std::lock_guard lock(mutex_);
    if (!spare_.empty()) {
      std::string block = std::move(spare_.back());
      spare_.pop_back();
      block.resize(kBlock);
      return block;
    }
  }
  return std::string(kBlock, '\0');
}

void GzipBlocks::inflate_all() {
  try {
    Inflater inflater;
    std::vector<char> input(kBlock);
    std::string output(kBlock, '\0');
    inflater->next_out = reinterpret_cast<Bytef*>(output.data());
    inflater->avail_out = static_cast<uInt>(kBlock);
    std::size_t consumed = 0;  // compressed bytes inflated, for messages
    bool in_member = false;    // a member has begun and not ended
    for (;;) {
      if (inflater->avail_in == 0) {
        file_.read(input.data(), static_cast<std::streamsize>(input.size()));
        if (file_.bad()) throw TraceFileError("trace '" + path_.string() + "': read error");
        const auto got = static_cast<std::size_t>(file_.gcount());
        if (got == 0) break;
        inflater->next_in = reinterpret_cast<Bytef*>(input.data());
        inflater->avail_in = static_cast<uInt>(got);
      }
      const uInt before = inflater->avail_in;
      const int status = inflate(&*inflater, Z_NO_FLUSH);
      consumed += before - inflater->avail_in;
      if (status == Z_STREAM_END) {
        // Another member may follow (gzip -d reads them all).
        inflateReset(&*inflater);
        in_member = false;
      } else if (status == Z_OK || status == Z_BUF_ERROR) {
        in_member = true;
      } else {
        // What was inflated before the damage is handed over first.
        output.resize(kBlock - inflater->avail_out);
        if (!output.empty() && !hand_over(std::move(output))) return;
        const char* why = inflater->msg != nullptr ? inflater->msg : "damaged data";
        throw TraceFileError("trace '" + path_.string() + "' is not a valid gzip file: " + why +
                             " at compressed byte " + std::to_string(consumed) +
                             ". Download it again (the archive's logs end in .swf.gz), or give the plain .swf.");
      }
      if (inflater->avail_out == 0) {
        if (!hand_over(std::exchange(output, next_block()))) return;
        inflater->next_out = reinterpret_cast<Bytef*>(output.data());
        inflater->avail_out = static_cast<uInt>(kBlock);
      }
    }
    output.resize(kBlock - inflater->avail_out);
    if (!output.empty() && !hand_over(std::move(output))) return;
    if (in_member) {
      throw TraceFileError("trace '" + path_.string() + "' ends in the middle of its gzip data (after " +
                           std::to_string(consumed) + " compressed bytes): the file is truncated. Download it again.");
    }
  } catch (...) {
    const std::lock_guard lock(mutex_);
    failure_ = std::current_exception();
  }
  {
    const std::lock_guard lock(mutex_);
    finished_ = true;
  }
  changed_.notify_all();
}

std::size_t GzipBlocks::read(char* into, std::size_t capacity) {
  std::size_t copied = 0;
  while (copied < capacity) {
    if (current_at_ == current_.size()) {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [this] { return !ready_.empty() || finished_; });
      if (ready_.empty()) {
        if (failure_ && copied == 0) std::rethrow_exception(std::exchange(failure_, nullptr));
        break;
      }
      if (current_.capacity() >= kBlock) spare_.push_back(std::move(current_));
      current_ = std::move(ready_.front());
      ready_.pop_front();
      current_at_ = 0;
      lock.unlock();
      changed_.notify_all();
    }
    const std::size_t n = std::min(capacity - copied, current_.size() - current_at_);
    std::memcpy(into + copied, current_.data() + current_at_, n);
    current_at_ += n;
    copied += n;
  }
  return copied;
}

}  // namespace gridpeer::traces
