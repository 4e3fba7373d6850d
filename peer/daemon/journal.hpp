#pragma once
// A peer's durable state under --state-dir (issue 19): SQLite in WAL mode
// with synchronous=FULL, so that what a transaction wrote survives a kill -9
// or a power cut once it has committed. It holds whose state it is, the
// peer's incarnation (counted up at every start, so that job ids never
// repeat), what the core asked to keep (Persist outputs, one row per job and
// role: peer/core/durable.hpp) and the results not yet lost to the daemon's
// --max-results. Daemon-only: the core never touches it.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "peer/core/durable.hpp"
#include "protocol/wire.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace gridpeer::daemon {

class Journal {
 public:
  /// Opens (or creates) DIR/journal.sqlite for peer `self_name` of grid
  /// `grid_name`. Throws std::runtime_error naming the file and SQLite's
  /// reason, or saying whose state the directory holds if not this peer's.
  static std::unique_ptr<Journal> open(const std::filesystem::path& dir, const std::string& self_name,
                                       const std::string& grid_name);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  /// The incarnation of this start, one more than the last (1 on a new
  /// journal), committed and synced before it is returned.
  std::uint64_t begin_incarnation();
  /// The grid's epoch (Unix us of virtual time 0) this peer last ran on, 0
  /// if none: a restarted peer keeps the grid's virtual time, so that what it
  /// kept (submit, start and finish times) stays in the past.
  std::int64_t epoch();
  void save_epoch(std::int64_t epoch_unix_us);
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }

  /// What the last run kept, in key order (own jobs in the order they were
  /// submitted). Throws std::runtime_error naming the row of a damaged entry.
  std::vector<std::pair<DurableKey, DurableJob>> entries();
  /// The results kept, in the order the jobs ended.
  std::vector<protocol::ResultRecord> results();
  /// One transaction, synced before it returns: the entries the core asked
  /// to keep or forget, and the results of jobs that ended, together.
  void commit(const std::vector<const Persist*>& persists, const std::vector<protocol::ResultRecord>& results);

 private:
  Journal(sqlite3* db, std::filesystem::path file);
  void execute(const std::string& sql);
  /// The integer value of `key` in the peer table, if set.
  std::int64_t read_value(const std::string& key, std::int64_t otherwise);
  std::string read_text(const std::string& key);
  void write(const std::string& key, const std::string& text, std::int64_t value);

  /// A statement prepared once (finalized with the journal).
  sqlite3_stmt* prepare(const char* sql);
  void step_done(sqlite3_stmt* statement);

  sqlite3* db_;
  std::filesystem::path file_;
  sqlite3_stmt* put_ = nullptr;
  sqlite3_stmt* erase_ = nullptr;
  sqlite3_stmt* add_result_ = nullptr;
};

}  // namespace gridpeer::daemon
