#include "peer/io/traces/gzip_blocks.hpp"

#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "peer/io/traces/trace_file.hpp"

namespace gridpeer::traces {
namespace {

constexpr std::size_t kBlock = std::size_t{1} << 18;
// Blocks inflated ahead of the reader: enough to keep both threads busy,
// little enough that a large log is never held whole.
constexpr std::size_t kBlocksAhead = 4;

/// ISA-L's inflate state for gzip members: the header parsed and the
/// trailer's CRC and length checked. The state (87 KB, with its history
/// window) lives on the heap, not on the helper thread's stack.
class Inflater {
 public:
  Inflater() : state_(std::make_unique<inflate_state>()) { begin_member(); }
  /// Ready for the next member, keeping the input not yet inflated and the
  /// room left for output (initialising clears both).
  void begin_member() {
    std::uint8_t* const next_in = state_->next_in;
    const auto avail_in = state_->avail_in;
    std::uint8_t* const next_out = state_->next_out;
    const auto avail_out = state_->avail_out;
    isal_inflate_init(state_.get());
    state_->crc_flag = ISAL_GZIP;
    state_->next_in = next_in;
    state_->avail_in = avail_in;
    state_->next_out = next_out;
    state_->avail_out = avail_out;
  }
  inflate_state& operator*() { return *state_; }
  inflate_state* operator->() { return state_.get(); }

 private:
  std::unique_ptr<inflate_state> state_;
};

const char* inflate_fault(int status) {
  switch (status) {
    case ISAL_INVALID_WRAPPER:
      return "not a gzip header";
    case ISAL_UNSUPPORTED_METHOD:
      return "a compression method other than deflate";
    case ISAL_INCORRECT_CHECKSUM:
      return "the CRC or the length in the trailer does not match the data";
    case ISAL_INVALID_BLOCK:
      return "an invalid deflate block";
    case ISAL_INVALID_SYMBOL:
      return "an invalid deflate code";
    case ISAL_INVALID_LOOKBACK:
      return "a distance too far back";
    default:
      return "damaged data";
  }
}

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
    std::vector<std::uint8_t> input(kBlock);
    std::string output(kBlock, '\0');
    inflater->next_out = reinterpret_cast<std::uint8_t*>(output.data());
    inflater->avail_out = static_cast<std::uint32_t>(kBlock);
    std::size_t consumed = 0;      // compressed bytes inflated, for messages
    std::size_t member_start = 0;  // where the member being inflated begins
    bool in_member = false;        // a member has begun and not ended
    for (;;) {
      if (inflater->avail_in == 0) {
        file_.read(reinterpret_cast<char*>(input.data()), static_cast<std::streamsize>(input.size()));
        if (file_.bad()) throw TraceFileError("trace '" + path_.string() + "': read error");
        const auto got = static_cast<std::size_t>(file_.gcount());
        if (got == 0) break;
        inflater->next_in = input.data();
        inflater->avail_in = static_cast<std::uint32_t>(got);
      }
      const std::uint32_t before = inflater->avail_in;
      const std::uint32_t room = inflater->avail_out;
      const int status = isal_inflate(&*inflater);
      consumed += before - inflater->avail_in;
      if (status != ISAL_DECOMP_OK) {
        // What was inflated before the damage is handed over first.
        output.resize(kBlock - inflater->avail_out);
        if (!output.empty() && !hand_over(std::move(output))) return;
        throw TraceFileError("trace '" + path_.string() + "' is not a valid gzip file: " + inflate_fault(status) +
                             " in the member that begins at compressed byte " + std::to_string(member_start) +
                             " (found by byte " + std::to_string(consumed) +
                             "). Download it again (the archive's logs end in .swf.gz), or give the plain .swf.");
      }
      const bool member_ended = inflater->block_state == ISAL_BLOCK_FINISH;
      in_member = !member_ended;
      if (!member_ended && inflater->avail_in == before && inflater->avail_out == room) {
        // ISA-L takes all its input or fills the output; a call that did
        // neither would loop for ever.
        throw TraceFileError("trace '" + path_.string() + "': the gzip reader stopped at compressed byte " +
                             std::to_string(consumed) + ". Give the plain .swf (gzip -d it).");
      }
      if (inflater->avail_out == 0 || member_ended) {
        // A full block goes over; so does a member's end, before the next
        // member (or the damage after it) is read.
        output.resize(kBlock - inflater->avail_out);
        if (!output.empty() && !hand_over(std::exchange(output, next_block()))) return;
        output.resize(kBlock);  // an empty block not handed over is refilled
        inflater->next_out = reinterpret_cast<std::uint8_t*>(output.data());
        inflater->avail_out = static_cast<std::uint32_t>(kBlock);
      }
      if (member_ended) {
        // Another member may follow (gzip -d reads them all).
        inflater.begin_member();
        member_start = consumed;
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
