// libFuzzer: what a damaged or hand-edited journal can hold. Three ways in:
// a row's body as text (an entry, or a result), and a whole journal file
// with bytes overwritten where the fuzzer says (a damaged disk). Reading it
// must end in a row that keeps every wire bound, or in an error -- never a
// crash, an assertion or a row half believed. What a row decodes to must
// encode and decode to itself.
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "peer/journal/journal.hpp"
#include "peer/journal/journal_codec.hpp"
#include "protocol/bounds.hpp"

using namespace gridpeer;
using namespace gridpeer::daemon;
namespace fs = std::filesystem;

namespace {

constexpr JournalOwner kOwner{0, 3};

void check_bounds(const protocol::ResultRecord& result) {
  protocol::check_record(result.record, "result");  // throws (a finding) if a row out of bounds was taken
}

/// A journal of peer A holding a few entries of each phase and some results:
/// the bytes the file-damage mode starts from. Made once per process.
const std::vector<char>& template_journal() {
  static const std::vector<char> bytes = [] {
    const fs::path dir = fs::temp_directory_path() / ("gridpeer-journal-fuzz-template-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    {
      auto journal = Journal::open(dir, "A", "tiny", kOwner, false);
      journal->begin_incarnation();
      std::vector<Persist> persists;
      for (std::uint64_t n = 1; n <= 6; ++n) {
        Job job;
        job.id = job_id_of(n % 2 == 0 ? 0 : 1, n);
        job.origin = origin_in_id(job.id);
        job.cpus = static_cast<int>(n);
        job.run_time = seconds(60);
        job.requested_time = seconds(90);
        DurableJob entry;
        entry.job = job;
        const bool own = job.origin == 0;
        entry.phase = own ? (n % 4 == 0 ? DurableJob::Phase::committed : DurableJob::Phase::accepted)
                          : (n % 3 == 0 ? DurableJob::Phase::ran : DurableJob::Phase::hosting);
        entry.peer = 2;
        entry.origin_mhz = 500;
        entry.finish = TimePoint{seconds(100)};
        persists.push_back({DurableKey{own ? DurableRole::own : DurableRole::hosted, job.id}, entry});
      }
      std::vector<const Persist*> pointers;
      for (const Persist& p : persists) pointers.push_back(&p);
      std::vector<protocol::ResultRecord> results;
      for (std::uint64_t n = 10; n < 30; ++n) {
        Job job;
        job.id = job_id_of(0, n);
        results.push_back({JobRecord::of(job, 1, TimePoint{seconds(1)}, TimePoint{seconds(2)}, TimePoint{seconds(3)}),
                           JobOutcome::completed, "ok"});
      }
      journal->commit(pointers, results);
    }  // closed: checkpointed into the one file
    std::ifstream in(dir / "journal.sqlite", std::ios::binary);
    std::vector<char> content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fs::remove_all(dir);
    return content;
  }();
  return bytes;
}

void damaged_file(FuzzedDataProvider& in) {
  std::vector<char> bytes = template_journal();
  for (int edits = in.ConsumeIntegralInRange(1, 8); edits > 0 && in.remaining_bytes() > 0; --edits) {
    const std::size_t at = in.ConsumeIntegralInRange<std::size_t>(0, bytes.size() - 1);
    const std::string with = in.ConsumeRandomLengthString(64);
    for (std::size_t i = 0; i < with.size() && at + i < bytes.size(); ++i) bytes[at + i] = with[i];
  }
  if (in.ConsumeBool()) bytes.resize(in.ConsumeIntegralInRange<std::size_t>(0, bytes.size()));
  const fs::path dir = fs::temp_directory_path() / ("gridpeer-journal-fuzz-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "journal.sqlite", std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  try {
    auto journal = Journal::open(dir, "A", "tiny", kOwner, false);
    journal->entries();
    for (const auto& result : journal->results()) check_bounds(result);
  } catch (const JournalError&) {
  } catch (const std::runtime_error&) {  // another peer's journal: refused by name
  }
  fs::remove_all(dir);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  switch (in.ConsumeIntegralInRange(0, 2)) {
    case 0: {
      const auto role = in.ConsumeBool() ? DurableRole::own : DurableRole::hosted;
      const std::string text = in.ConsumeRemainingBytesAsString();
      DurableJob entry;
      try {
        entry = decode_entry(text, role, kOwner);
      } catch (const std::runtime_error&) {
        break;  // refused, by name: what a damaged row must get
      }
      protocol::check_job(entry.job, "job");  // an exception here is a finding: a row out of bounds was taken
      if (!(decode_entry(encode_entry(entry), role, kOwner) == entry)) std::abort();
      break;
    }
    case 1: {
      const std::string text = in.ConsumeRemainingBytesAsString();
      protocol::ResultRecord result;
      try {
        result = decode_result(text, kOwner);
      } catch (const std::runtime_error&) {
        break;
      }
      check_bounds(result);
      const protocol::ResultRecord back = decode_result(encode_result(result), kOwner);
      if (back.record.id != result.record.id || back.record.end != result.record.end ||
          back.outcome != result.outcome || back.reason != result.reason) {
        std::abort();
      }
      break;
    }
    default:
      damaged_file(in);
      break;
  }
  return 0;
}
